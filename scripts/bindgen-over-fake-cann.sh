#!/usr/bin/env bash
# `cargo build -p ascendcl-sys --features bindgen` over fake CANN installs,
# each found through ASCEND_TOOLKIT_HOME as a real one is. They are laid out
# from OUR OWN declaration headers under CANN's file names (no CANN header is
# in the repository or downloaded), which tests what decides, per library,
# whether CANN's headers or ours are read, and how CANN's are read:
#
#   runtime-only  include/acl/ only (a CANN runtime image): runtime and
#                 profiler from CANN's, aclnn, hccl and dvpp from ours
#   full          + aclnn/acl_meta.h, aclnn/aclnn_base.h, aclnn/opdev/op_errno.h,
#                 aclnnop/aclnn_<op>.h, hccl/hccl.h, hccl_types.h, hccl_comm.h,
#                 acldvppop/acldvpp_base.h, acldvpp_init.h, acldvpp_<op>.h:
#                 every library from CANN's (aclnn, hccl and dvpp parsed as C++)
#   broken-aclnn  full, with a C++ syntax error in aclnn/acl_meta.h: aclnn
#                 and dvpp (whose headers include it) fall back to ours with a
#                 warning, the rest from CANN's
#   no libclang   LIBCLANG_PATH names an empty directory: a build error that
#                 says what to install, not a panic
#
# Because the fake headers are ours, every regenerated file must equal the
# committed one (src/bindings/); the crate then compiles against them.
# Needs libclang. Takes a few seconds per case once bindgen is built.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
fakes="$target_dir/fake-cann"
ours=ascendcl-sys/include
rm -rf "$fakes"

# include/acl/ is laid out as CANN's already (acl.h, acl_rt.h, acl_base.h,
# acl_prof.h, error_codes/).
lay_out_runtime() {
    mkdir -p "$1/include"
    cp -r "$ours/acl" "$1/include/acl"
}

lay_out_full() {
    lay_out_runtime "$1"
    local include="$1/include"
    mkdir -p "$include/aclnn/opdev" "$include/aclnnop" "$include/hccl"
    # Every declaration of ours in acl_meta.h; each other header CANN has
    # includes it (the header guard keeps one copy).
    cp "$ours/aclnn/aclnn.h" "$include/aclnn/acl_meta.h"
    # The CANN file names the build reads (bindgen_headers.rs), not a copy of
    # the list: a name added there is laid out here too.
    headers=$(grep -o '"aclnn\(op\)\?/[a-z0-9_]*\.h"' ascendcl-sys/bindgen_headers.rs | tr -d '"' | grep -v "^aclnn/aclnn.h$" | sort -u)
    [ -n "$headers" ] || { echo "no aclnn header names found in bindgen_headers.rs"; exit 1; }
    for header in $headers aclnn/opdev/op_errno.h; do
        [ -e "$include/$header" ] || printf '#include "aclnn/acl_meta.h"\n' >"$include/$header"
    done
    cp "$ours/hccl/hccl.h" "$include/hccl/hccl.h"
    for header in hccl_types.h hccl_comm.h; do
        printf '#include "hccl/hccl.h"\n' >"$include/hccl/$header"
    done
    # acldvppop/: our declarations as acldvpp_base.h (including the aclnn
    # types from acl_meta.h, as CANN's do), each other header including it;
    # the names from bindgen_headers.rs, as for aclnn.
    mkdir -p "$include/acldvppop"
    sed 's#"aclnn/aclnn.h"#"aclnn/acl_meta.h"#' "$ours/acldvppop/acldvpp.h" >"$include/acldvppop/acldvpp_base.h"
    dvpp_headers=$(grep -o '"acldvppop/[a-z0-9_]*\.h"' ascendcl-sys/bindgen_headers.rs | tr -d '"' | sort -u)
    [ -n "$dvpp_headers" ] || { echo "no acldvppop header names found in bindgen_headers.rs"; exit 1; }
    for header in $dvpp_headers; do
        [ -e "$include/$header" ] || printf '#include "acldvppop/acldvpp_base.h"\n' >"$include/$header"
    done
}

lay_out_runtime "$fakes/runtime-only"
lay_out_full "$fakes/full"
lay_out_full "$fakes/broken-aclnn"
printf 'namespace {\n' >>"$fakes/broken-aclnn/include/aclnn/acl_meta.h"

# Builds ascendcl-sys with the bindgen feature over the install $1 and checks
# that each library's bindings came from the source given ("runtime=cann ...")
# and equal the committed ones.
check() {
    local name=$1 expected=$2 log="$fakes/$1.log"
    echo "--- $name: expect $expected"
    ASCEND_TOOLKIT_HOME="$fakes/$name" cargo build -p ascendcl-sys --features bindgen \
        --message-format=json-render-diagnostics >"$log.json" 2>"$log" || {
        cat "$log"
        echo "$name: the build failed"
        exit 1
    }
    grep "bindings" "$log" | sed 's/^warning: ascendcl-sys@[^:]*: /    /'
    for pair in $expected; do
        local library=${pair%%=*} source=${pair#*=} header
        case "$source" in
            cann) header="CANN's headers in $fakes/$name/include" ;;
            ours) header="our declaration header" ;;
        esac
        grep -q "$library bindings generated from $header" "$log" \
            || { echo "$name: the $library bindings are not from $header"; exit 1; }
    done
    local out_dir
    out_dir=$(grep '"reason":"build-script-executed"' "$log.json" | grep '"package_id":"[^"]*ascendcl-sys' \
        | grep -o '"out_dir":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
    [ -d "$out_dir" ] || { echo "$name: no OUT_DIR for ascendcl-sys in the build output"; exit 1; }
    for file in ascendcl-sys/src/bindings/*.rs; do
        cmp -s "$file" "$out_dir/$(basename "$file")" || {
            diff "$file" "$out_dir/$(basename "$file")" | head -n 20
            echo "$name: the regenerated $(basename "$file") differs from the committed one"
            exit 1
        }
    done
    echo "    the $(ls ascendcl-sys/src/bindings/*.rs | wc -l) regenerated files equal the committed ones; ascendcl-sys compiles against them"
}

check runtime-only "runtime=cann profiler=cann aclnn=ours hccl=ours dvpp=ours"
grep -q "aclnn bindings generated from our declaration header .*lacks aclnn/acl_meta.h" "$fakes/runtime-only.log" \
    || { echo "runtime-only: the aclnn warning does not name the missing header"; exit 1; }
check full "runtime=cann profiler=cann aclnn=cann hccl=cann dvpp=cann"
# CANN's DVPP headers include acl_meta.h, so they fail with it and fall back too.
check broken-aclnn "runtime=cann profiler=cann aclnn=ours hccl=cann dvpp=ours"
grep -q "aclnn bindings: bindgen failed on CANN's headers" "$fakes/broken-aclnn.log" \
    || { echo "broken-aclnn: no warning that bindgen failed on CANN's aclnn headers"; exit 1; }
grep -q "dvpp bindings: bindgen failed on CANN's headers" "$fakes/broken-aclnn.log" \
    || { echo "broken-aclnn: no warning that bindgen failed on CANN's DVPP headers"; exit 1; }

echo "--- no libclang: a build error that says what to install"
empty=$(mktemp -d)
rc=0
LIBCLANG_PATH="$empty" ASCEND_TOOLKIT_HOME="$fakes/full" cargo build -p ascendcl-sys --features bindgen \
    >"$fakes/no-libclang.log" 2>&1 || rc=$?
rmdir "$empty"
[ "$rc" != 0 ] || { echo "no libclang: the build succeeded"; exit 1; }
grep -q "needs libclang, which cannot be loaded" "$fakes/no-libclang.log" \
    || { cat "$fakes/no-libclang.log"; echo "no libclang: no error naming libclang"; exit 1; }
if grep -q "panicked" "$fakes/no-libclang.log"; then
    cat "$fakes/no-libclang.log"
    echo "no libclang: the build script panicked"
    exit 1
fi
grep -A1 "error: the .bindgen" "$fakes/no-libclang.log" | sed 's/^/    /'

# The drift tests' comparisons with CANN's headers (ignored on a machine
# without CANN) run over the full fake install: our declarations against
# themselves laid out as CANN's, read the way CANN's are read. Without the
# bindgen feature, so this rebuilds the default ascendcl-sys: run last in CI.
echo "--- the bindings drift tests against the full fake install, none ignored"
ASCEND_TOOLKIT_HOME="$fakes/full" cargo test -p ascendcl-sys --test bindings_drift >"$fakes/drift.log" 2>&1 || {
    cat "$fakes/drift.log"
    exit 1
}
grep -q "test result: ok\. [0-9]* passed; 0 failed; 0 ignored" "$fakes/drift.log" \
    || { cat "$fakes/drift.log"; echo "drift tests: some were ignored or failed"; exit 1; }
grep "test result" "$fakes/drift.log" | sed 's/^/    /'
