#!/usr/bin/env bash
# Records every AscendCL call a command makes into a trace that the mock can
# replay (format: docs/trace-format.md; guide: docs/recording-on-a-card.md).
#
#   scripts/record-on-card.sh [-o TRACE] [-t LIBRARY] [--] COMMAND [ARG...]
#   scripts/record-on-card.sh --examples [-o DIR] [-t LIBRARY]
#
#   -o TRACE    the trace file (default: ascendcl-trace.jsonl in the current
#               directory; "%p" in the name becomes the process id, for
#               programs that start several processes)
#   -t LIBRARY  the real AscendCL library (default: libascendcl.so or
#               libacl_rt.so of the CANN install, found like ascendcl-sys
#               does; if none is found, the script refuses with exit 3)
#   --examples  record every example of this repository that has a golden
#               trace (ascendcl-mock/traces/golden.tsv: the training ones
#               too), each into DIR/<example>.jsonl (default DIR:
#               card-traces); they replace the golden traces as they are
#
# Works for C, C++ and Python programs (pyACL, torch_npu: through LD_PRELOAD)
# and for programs built on ascendcl-sys (through ASCENDCL_LIBRARY). Needs a C
# compiler, not Rust: the recording shim is built from
# ascendcl-mock/csrc/record/ into target/ascendcl-record/ on first use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
trace=
target=${ASCENDCL_RECORD_TARGET:-}
examples=0
while [ $# -gt 0 ]; do
    case "$1" in
        --examples) examples=1; shift ;;
        -o) [ $# -ge 2 ] || usage; trace=$2; shift 2 ;;
        -t) [ $# -ge 2 ] || usage; target=$2; shift 2 ;;
        -h|--help) usage ;;
        --) shift; break ;;
        -*) usage ;;
        *) break ;;
    esac
done
if [ $examples -eq 1 ]; then
    # Every example with a golden trace, recorded by this script itself.
    [ $# -eq 0 ] || usage
    dir=${trace:-card-traces}
    mkdir -p "$dir"
    (cd "$root" && cargo build --workspace --examples) >&2
    failed=0
    while IFS=$'\t' read -r example _ args; do
        argv=()
        [ "$args" = - ] || IFS=, read -r -a argv <<<"$args"
        echo "record-on-card: --- $example" >&2
        "$0" -o "$dir/$example.jsonl" ${target:+-t "$target"} -- "$root/target/debug/examples/$example" \
            ${argv[@]+"${argv[@]}"} >/dev/null || {
            rc=$?
            [ $rc -ne 3 ] || exit 3 # no library to record: the same for every example
            echo "record-on-card: $example failed (exit $rc)" >&2
            failed=1
        }
    done <"$root/ascendcl-mock/traces/golden.tsv"
    echo "record-on-card: traces in $dir/; replay one here with: ascendcl trace replay $dir/EXAMPLE.jsonl -- target/debug/examples/EXAMPLE" >&2
    exit $failed
fi
[ $# -gt 0 ] || usage
trace=${trace:-ascendcl-trace.jsonl}

# --- the shim -----------------------------------------------------------------
src="$root/ascendcl-mock/csrc/record"
build_dir=${ASCENDCL_RECORD_BUILD_DIR:-$root/target/ascendcl-record}
shim="$build_dir/libascendcl_record.so"
csrc="$root/ascendcl-mock/csrc"
if [ ! -f "$shim" ] || [ ! -f "$build_dir/libhccl.so" ] || [ ! -f "$build_dir/libopapi.so" ] ||
    [ -n "$(find "$src" "$csrc/record_hccl" "$csrc/record_aclnn" \
        "$csrc/acl_functions.h" "$csrc/hccl_functions.h" "$csrc/json_quote.c" "$csrc/json_quote.h" \
        "$root/ascendcl-sys/include" -newer "$shim" -print -quit)" ]; then
    mkdir -p "$build_dir"
    "${CC:-cc}" -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -pthread -Wl,-z,defs \
        -Wl,-soname,libascendcl_record.so \
        -I "$root/ascendcl-sys/include" -I "$root/ascendcl-mock/include" -I "$csrc" -I "$src" \
        -o "$shim" "$src"/*.c "$csrc/json_quote.c" -ldl -lpthread
    # The shim's HCCL face, as libhccl.so beside it: ascendcl-sys (and
    # torch_npu) open libhccl.so from the runtime library's directory.
    "${CC:-cc}" -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -Wl,-z,defs \
        -Wl,-soname,libhccl_record.so -Wl,-rpath,'$ORIGIN' \
        -o "$build_dir/libhccl.so" "$csrc/record_hccl/hccl_record.c" -Wl,--no-as-needed "$shim"
    # Its aclnn faces, as libnnopbase.so and libopapi.so: ascendcl-sys opens
    # the operator libraries from ASCENDCL_ACLNN_DIR, set to this directory.
    for face in libnnopbase libopapi; do
        "${CC:-cc}" -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -Wl,-z,defs \
            -Wl,-soname,${face}_record.so -Wl,-rpath,'$ORIGIN' \
            -o "$build_dir/$face.so" "$csrc/record_aclnn/aclnn_record.c" -Wl,--no-as-needed "$shim"
    done
    echo "record-on-card: built $shim (and its HCCL and aclnn faces beside it)" >&2
fi

# --- the real library -----------------------------------------------------------
if [ -z "$target" ]; then
    arch=$(uname -m)
    for dir in "${ASCEND_TOOLKIT_HOME:-}" "${ASCEND_HOME_PATH:-}" "${ASCEND_INSTALL_PATH:-}" \
        "$HOME/Ascend/cann" "$HOME/Ascend/ascend-toolkit/latest" \
        /usr/local/Ascend/cann /usr/local/Ascend/ascend-toolkit/latest; do
        [ -n "$dir" ] && [ -d "$dir" ] || continue
        for lib in lib64/libascendcl.so lib64/libacl_rt.so runtime/lib64/libascendcl.so \
            "$arch-linux/lib64/libascendcl.so" "$arch-linux/lib64/libacl_rt.so"; do
            if [ -f "$dir/$lib" ]; then target="$dir/$lib"; break 2; fi
        done
    done
fi
if [ -z "$target" ]; then
    echo "record-on-card: no CANN install found: install CANN (or set ASCEND_HOME_PATH), or name the real" \
        "library with -t; to record calls made to the mock, use: ascendcl trace record --mock" >&2
    exit 3
fi
export ASCENDCL_RECORD_TARGET="$target"
# The operator libraries: the shim's faces for loaders that open them by
# directory; the shim forwards to the real ones (beside the runtime library
# unless ASCENDCL_ACLNN_DIR named them).
export ASCENDCL_RECORD_ACLNN_DIR="${ASCENDCL_ACLNN_DIR:-$(dirname "$target")}"
export ASCENDCL_ACLNN_DIR="$build_dir"

# --- record ---------------------------------------------------------------------
case "$trace" in /*) ;; *) trace="$PWD/$trace" ;; esac
case "$trace" in *%p*) ;; *) rm -f "$trace" ;; esac
export ASCENDCL_RECORD_TRACE="$trace"
export ASCENDCL_LIBRARY="$shim"
export LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}"
status=0
"$@" || status=$?
unset LD_PRELOAD

# --- what was written ---------------------------------------------------------------
pattern=${trace//%p/*}
base=${pattern%.jsonl}
found=0
for file in $pattern "$base".*.jsonl; do
    [ -f "$file" ] || continue
    found=1
    echo "record-on-card: $file: $(($(wc -l <"$file") - 1)) calls" >&2
done
if [ $found -eq 0 ]; then
    echo "record-on-card: no trace was written: the command made no AscendCL call through the shim" >&2
else
    cat >&2 <<'NOTE'
record-on-card: a trace holds function names, sizes, symbolic ids, return codes
and error texts, never the data copied. Before sharing it, read its first line
(library path, program name) and the "msg" texts for anything private. Summary:
  ascendcl trace summary TRACE      (cargo install --path ascendcl-cli)
NOTE
fi
exit $status
