#!/usr/bin/env bash
# Builds Huawei's own CANN 8.5.0 sample programs against CANN's real headers,
# links them to the mock (libascendcl.so and its operator, HCCL and profiler
# libraries) and runs them, one verdict line per program, then a summary per
# group. Outside `cargo test` and CI: the samples are Huawei's code, so they
# are never committed here; this script takes the trees as arguments.
#
#   scripts/cann-samples.sh SRC...
#
# SRC: source trees (checkouts or extracted archives) of hicann/runtime,
# ops-math, ops-nn, ops-cv, hccl and hcomm at v8.5.0, in any order. Found in
# them: the headers (include/external/acl, src/inc/external/aclnn, the op
# directories' op_api/aclnn_*.h, hccl's include/), the op examples
# (*/examples/test_aclnn_*.cpp), the runtime samples (example/*/*/ with a
# CMakeLists.txt) and the HCCL samples (examples/*/*/ with a Makefile).
#
# Environment: CANN_SAMPLES_TIMEOUT (seconds per program, default 120),
# CANN_SAMPLES_ONLY (an extended regex: only the programs whose name
# matches), CANN_SAMPLES_WORK (build directory, default a temporary one, kept
# when set), CANN_SAMPLES_ALL=1 (also list the op examples left out because
# the mock lacks their operators). Verdicts:
#   PASS [(no check in the sample)] [misuse N: KIND ...]
#   FAIL (exit N: last error line)   TIMEOUT   NO-BUILD (first compiler error)
#   NO-LINK (missing: symbols)       CANNOT-RUN-ON-A-MOCK (why)
# The mock's misuse count (ASCENDCL_MOCK_ABORT_ON_MISUSE unset) comes from a
# small preloaded reporter that reads it at exit through aclmock.h.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here="$root/scripts/cann-samples"
[ $# -ge 1 ] || { sed -n '2,25p' "$0" >&2; exit 2; }
srcs=()
for s in "$@"; do srcs+=("$(cd "$s" && pwd)") || exit 2; done
timeout_s=${CANN_SAMPLES_TIMEOUT:-120}
only=${CANN_SAMPLES_ONLY:-}
work=${CANN_SAMPLES_WORK:-$(mktemp -d)}
[ -n "${CANN_SAMPLES_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

# --- the mock, found as scripts/record-golden-traces.sh finds it
build_json="$work/build.json"
(cd "$root" && cargo build -p ascendcl-mock --message-format=json >"$build_json") || exit 1
mock=$(grep '"reason":"build-script-executed"' "$build_json" | grep 'ascendcl-mock#' |
    sed -E 's/.*"out_dir":"([^"]*)".*/\1/' | tail -n 1)
[ -f "$mock/libascendcl.so" ] || { echo "error: no mock in '$mock'" >&2; exit 1; }
mock_libs=(ascendcl nnopbase opapi hccl hcomm msprofiler acl_dvpp_op)
link_flags=(-L"$mock" "-Wl,-rpath,$mock" "-Wl,--as-needed")
for l in "${mock_libs[@]}"; do link_flags+=(-l"$l"); done
link_flags+=(-lpthread)
# what the mock's libraries export, to tell a missing operator before compiling
for l in "${mock_libs[@]}"; do nm -D --defined-only "$mock/lib$l.so" | awk 'NF == 3 {print $3}'; done |
    sort -u >"$work/exports"

# --- the misuse reporter: our code, preloaded into every program
cat >"$work/misuse_report.c" <<'EOF'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "aclmock.h"
/* At exit, appends "misuse N" and the mock's misuse log to $CANN_SAMPLES_MISUSE.
 * Looked up, not linked: the wrappers it is preloaded into (timeout, bash,
 * mpirun) have no mock, and say nothing. */
__attribute__((destructor)) static void report(void)
{
    uint64_t (*count)(aclmockMisuse) = (uint64_t (*)(aclmockMisuse))dlsym(RTLD_DEFAULT, "aclmockMisuseCount");
    size_t (*text)(char *, size_t) = (size_t (*)(char *, size_t))dlsym(RTLD_DEFAULT, "aclmockMisuseLog");
    const char *path = getenv("CANN_SAMPLES_MISUSE");
    FILE *f = count && text && path ? fopen(path, "a") : NULL;
    if (!f) return;
    static char log[4096];
    text(log, sizeof(log));
    fprintf(f, "misuse %llu\n%s", (unsigned long long)count(ACLMOCK_MISUSE_COUNT), log);
    fclose(f);
}
EOF
gcc -shared -fPIC -o "$work/misuse_report.so" "$work/misuse_report.c" -I"$root/ascendcl-mock/include" -ldl || exit 1

# --- CANN's real headers from the trees, gathered into one include farm
inc="$work/include"
mkdir -p "$inc/aclnnop" "$inc/hccl"
cann_inc=()
add_inc() { [ -d "$1" ] && case " ${cann_inc[*]-} " in *" -I$1 "*) ;; *) cann_inc+=(-I"$1") ;; esac; }
for s in "${srcs[@]}"; do
    while read -r h; do add_inc "$(dirname "$(dirname "$h")")"; done < <(
        find "$s" \( -path '*/include/external/acl/acl.h' -o -path '*/include/acl/acl.h' -o \
            -path '*/inc/external/aclnn/aclnn_base.h' -o -path '*/include/aclnn/aclnn_base.h' \) -not -path '*/test*')
    for d in common/inc/external common/inc/op_api; do add_inc "$s/$d"; done # aclnn_util.h
    # op headers, "aclnnop/aclnn_x.h": the first of a name wins, experimental/ last
    find "$s" \( -name 'aclnn_*.h' -o -name 'acl_*.h' \) \( -path '*/op_api/*' -o -path '*/aclnnop/*' \) -not -path '*/test*' |
        sort | awk '/experimental/ {late[n++] = $0; next} {print} END {for (i = 0; i < n; i++) print late[i]}' |
        while read -r h; do ln -s "$h" "$inc/aclnnop/" 2>/dev/null; done
    # "hccl/hccl.h": hccl's include/hccl.h, hcomm's include/hccl/*.h
    for h in "$s"/include/hccl.h "$s"/include/hccl/*.h; do [ -f "$h" ] && ln -sf "$h" "$inc/hccl/"; done
done
cann_inc=(-I"$inc" -I"$inc/aclnnop" "${cann_inc[@]}") # some samples include "aclnn_x.h" bare
grep -q . < <(printf '%s\n' "${cann_inc[@]}" | grep -v "^-I$inc") ||
    { echo "error: no CANN headers (include/external/acl) in the given trees" >&2; exit 1; }

# --- verdicts
declare -A pass total
tally() { # group verdict...
    total[$1]=$((${total[$1]:-0} + 1))
    case $2 in PASS*) pass[$1]=$((${pass[$1]:-0} + 1)) ;; esac
    printf '%-8s %-70s %s\n' "$1" "$name" "${*:2}"
}
# Compiles "$@" into $exe; on failure sets $why to NO-BUILD/NO-LINK and returns 1.
compile() {
    local log="$exe.build.log"
    # securec.h: our stand-in, searched last (an install's own comes first)
    if "${cxx:-g++}" -std=c++17 -w -o "$exe" "$@" "${cann_inc[@]}" -I"$here/securec" "${link_flags[@]}" >"$log" 2>&1; then
        return 0
    fi
    local missing
    missing=$(grep -oE "undefined reference to \`[^'(]+" "$log" | sed 's/.*`//' | sort -u | tr '\n' ' ')
    if [ -n "$missing" ]; then why="NO-LINK (missing: ${missing% })"; else
        why="NO-BUILD ($(grep -m1 -E 'error|fatal' "$log" | sed "s|$work/||g; s|.*/||" | cut -c1-150))"
    fi
    return 1
}
# Weak references the mock leaves unresolved: the program links, then calls null.
weak_missing() {
    nm -u "$1" | awk '$1 == "w" {print $2}' | grep -E '^(acl|Hccl|hccl|aclnn|msprof)' |
        sort -u | comm -23 - "$work/exports" | tr '\n' ' '
}
# Runs the command in $dir under the timeout with the reporter; sets $rc, $log
# and $misuse ("" or "misuse N: KIND ...").
run() {
    log="$exe.log"
    local m="$exe.misuse"
    rm -f "$m"
    (cd "$dir" && env -u ASCENDCL_MOCK_ABORT_ON_MISUSE LD_PRELOAD="$work/misuse_report.so" \
        CANN_SAMPLES_MISUSE="$m" timeout -k 5 "$timeout_s" "$@") >"$log" 2>&1 </dev/null
    rc=$?
    misuse=""
    local n
    n=$(awk '/^misuse / {s += $2} END {print s + 0}' "$m" 2>/dev/null || echo 0)
    if [ "${n:-0}" -gt 0 ]; then
        misuse="misuse $n: $(grep -v '^misuse ' "$m" | cut -d: -f1,2 | sort -u | head -3 | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
    fi
}
# The verdict of a run from $rc, $log, $misuse; "checks" = the sample compares.
verdict() {
    local checks=$1 err
    err=$(grep -m1 -E '\[ERROR\]|failed\. ERROR|return err|[Ff]ail(ed|ure)|[Mm]ismatch|wrong value' "$log" | cut -c1-140)
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "TIMEOUT (${timeout_s}s)"
    elif [ "$rc" -gt 128 ] && [ -z "$err" ]; then echo "FAIL (exit $rc: SIG$(kill -l $((rc - 128))))${misuse:+ ($misuse)}"
    elif [ "$rc" -ne 0 ]; then echo "FAIL (exit $rc: ${err:-$(tail -n 1 "$log" | cut -c1-140)})${misuse:+ ($misuse)}"
    elif [ -n "$err" ]; then echo "FAIL (exit 0, printed: $err)${misuse:+ ($misuse)}"
    elif [ "$checks" = yes ]; then echo "PASS${misuse:+ ($misuse)}"
    else echo "PASS (no check in the sample)${misuse:+ ($misuse)}"; fi
}
# Whether the sample's sources compare results themselves (else PASS says so).
checks_in() {
    if grep -qiE 'expect|golden|mismatch|fabs|std::abs|\babs\(|isclose|allclose|tolerance|verify|FAILURE' "$@" 2>/dev/null
    then echo yes; else echo no; fi
}
wanted() { [ -z "$only" ] || [[ $name =~ $only ]]; }

# --- op examples: examples/test_aclnn_<op>.cpp, one program each
run_op_examples() {
    local f op_dir missing
    while read -r f; do
        name=${f#"$s"/}; name="$(basename "$s")/$name"
        wanted || continue
        grep -q 'main *(' "$f" || { empty=$((empty + 1)); continue; } # a licence header only
        # Operators: aclnnX with its aclnnXGetWorkspaceSize. One the mock does not
        # export is named without compiling (the linker would name it too).
        missing=$(grep -oE '\baclnn[A-Z][A-Za-z0-9]*GetWorkspaceSize\b' "$f" | sed 's/GetWorkspaceSize$//' |
            sort -u | while read -r o; do grep -qx "${o}GetWorkspaceSize" "$work/exports" || echo "$o"; done | tr '\n' ' ')
        if [ -n "$missing" ]; then
            others=$((others + 1))
            [ -n "${CANN_SAMPLES_ALL:-}" ] && printf '%-8s %-70s %s\n' ops "$name" \
                "NO-LINK (operator not in the mock: ${missing% })"
            continue
        fi
        exe="$work/bin/$(echo "$name" | tr '/' '_')"; dir=$(dirname "$f")
        # the example's own op directory first, for header names used twice
        op_dir=$(dirname "$dir"); mkdir -p "$exe.inc/aclnnop"
        find "$op_dir" \( -name 'aclnn_*.h' -o -name 'acl_*.h' \) -path '*/op_api/*' -exec ln -sf {} "$exe.inc/aclnnop/" \;
        why=""
        if compile -I"$exe.inc" "$f"; then
            run "$exe"
            why=$(verdict "$(checks_in "$f")")
            local weak; weak=$(weak_missing "$exe")
            [ -n "$weak" ] && why="$why [weak, missing: ${weak% }]"
        fi
        tally ops "$why"
    done < <(find "$s" -path '*/examples/*' -name 'test_aclnn_*.cpp' -not -path '*/arch[0-9]*/*' \
        -not -path '*/scripts/opgen/*' | sort)
}

# Why a runtime sample cannot run on any mock, from its build files; "" if it can.
device_only() {
    local d=$1 k
    grep -q ascendc_fatbin_library "$d/CMakeLists.txt" &&
        { echo "loads a compiled device binary (ascendc_fatbin_library, aclrtBinaryLoad)"; return; }
    for k in $(grep -oE 'kernel_func/[A-Za-z_]+\.cpp' "$d/CMakeLists.txt" | sed 's|kernel_func/||; s|\.cpp||' | sort -u); do
        [ -f "$here/standins/$k.cpp" ] && continue
        case $k in
        error_OP) echo "its kernel error_OP traps on the device (asm trap); no host call fails a stream task" ;;
        *) echo "device kernel kernel_func/$k.cpp (<<<>>>) has no host stand-in" ;;
        esac
        return
    done
}

# The sample's own check: the lines of its run.sh after it runs the program
# (they grep its output: "[SUCCESS]" or "[FAILURE] ..."), on our logs.
run_sh_check() {
    local check
    check=$(awk '/^ *(\.\/build\/|wait )/ {n = NR} {line[NR] = $0} END {for (i = n + 1; i <= NR; i++) print line[i]}' "$1")
    grep -q 'FAILURE' <<<"$check" || return 0
    (cd "$dir" && file_path="$log" file_path_proc_a=a.out file_path_proc_b=b.out bash -c "$check") >"$log.check" 2>&1
    # a failure is printed into the log, where verdict() finds it
    sed -n 's/.*\[FAILURE\]:* */[ERROR] wrong value: /p' "$log.check" >>"$log"
}

# --- runtime samples: example/<area>/<N_name>/ with a CMakeLists.txt
run_runtime_samples() {
    local d main extra k stand why_dev exes e hdirs=()
    # the samples' shared headers (utils.h, memory/mem_utils.h, ...)
    while read -r k; do hdirs+=(-I"$k"); done < <(find "$s/example" -name '*.h' -printf '%h\n' | sort -u)
    while read -r d; do
        name="runtime/${d#"$s"/example/}"
        wanted || continue
        exe="$work/bin/$(echo "$name" | tr '/' '_')"; mkdir -p "$(dirname "$exe")"
        why_dev=$(device_only "$d")
        if [ -n "$why_dev" ]; then tally runtime "CANNOT-RUN-ON-A-MOCK ($why_dev)"; continue; fi
        # sources: every .cpp the CMakeLists names (kernels aside), resolved from the sample
        extra=()
        for k in $(grep -oE '[A-Za-z0-9_./${}]+\.cpp' "$d/CMakeLists.txt" | grep -v kernel_func |
            sed 's|\${CMAKE_CURRENT_SOURCE_DIR}/||' | sort -u); do
            case $k in main.cpp | proc_a.cpp | proc_b.cpp) continue ;; esac
            [ -f "$d/$k" ] && extra+=("$d/$k")
        done
        stand=()
        for k in $(grep -oE 'kernel_func/[A-Za-z_]+\.cpp' "$d/CMakeLists.txt" | sed 's|kernel_func/||' | sort -u); do
            stand+=("$here/standins/$k")
        done
        [ ${#stand[@]} -gt 0 ] && stand+=(-I"$here/standins")
        exes=(); why=""
        for main in main proc_a proc_b; do
            [ -f "$d/$main.cpp" ] || continue
            e="$exe.$main"
            local saved=$exe; exe=$e
            compile -I"$d" "${hdirs[@]}" "$d/$main.cpp" "${extra[@]}" "${stand[@]}" || { exe=$saved; break; }
            exe=$saved; exes+=("$e")
        done
        [ -n "$why" ] && { tally runtime "$why"; continue; }
        # a copy of the sample to run in: samples read acl.json, write files
        dir="$exe.run"; rm -rf "$dir"; cp -r "$d" "$dir"
        # and the directories its run.sh makes for it (file/, input/, output/)
        for k in $(grep -oE 'mkdir -p [a-z ]+' "$d/run.sh" 2>/dev/null | sed 's/mkdir -p//'); do
            [ "$k" = build ] || mkdir -p "$dir/$k"
        done
        if [ ${#exes[@]} -eq 1 ]; then
            run "${exes[0]}"
        else
            # two processes at once, as its run.sh starts them
            run bash -c '"$1" > a.out 2>&1 & a=$!; "$2" > b.out 2>&1 & b=$!
                wait $a; ra=$?; wait $b; rb=$?; cat a.out b.out; exit $((ra | rb))' _ "${exes[0]}" "${exes[1]}"
        fi
        run_sh_check "$d/run.sh"
        why=$(verdict "$(checks_in "$d/run.sh")")
        for e in "${exes[@]}"; do k=$(weak_missing "$e"); [ -n "$k" ] && why="$why [weak, missing: ${k% }]"; done
        tally runtime "$why"
    done < <(find "$s/example" -mindepth 3 -maxdepth 3 -name CMakeLists.txt -printf '%h\n' 2>/dev/null | sort -V)
}

# --- HCCL samples: examples/<area>/<N_name>/ with a Makefile and main.cc
run_hccl_samples() {
    local d repo n
    repo=$(basename "$s")
    while read -r d; do
        name="$repo/${d#"$s"/examples/}"
        wanted || continue
        if grep -q CUSTOM_ "$d/Makefile"; then
            tally hccl "CANNOT-RUN-ON-A-MOCK (needs its custom HCCL operator library, built from an AI CPU kernel)"; continue
        fi
        exe="$work/bin/$(echo "$name" | tr '/' '_')"; mkdir -p "$(dirname "$exe")"; why=""
        if grep -q 'mpirun' "$d/Makefile"; then
            # one process per device under MPI, as its Makefile's test target
            command -v mpicxx >/dev/null || { tally hccl "NO-BUILD (needs MPI: mpicxx, mpirun)"; continue; }
            n=$(grep -oE 'mpirun +-n +[0-9]+' "$d/Makefile" | grep -oE '[0-9]+$')
            if ! cxx=mpicxx compile "$d/main.cc"; then tally hccl "$why"; continue; fi
            dir="$exe.run"; rm -rf "$dir"; cp -r "$d" "$dir"
            run mpirun --allow-run-as-root --oversubscribe -n "${n:-8}" "$exe"
        else
            compile "$d/main.cc" || { tally hccl "$why"; continue; }
            dir="$exe.run"; rm -rf "$dir"; cp -r "$d" "$dir"
            run "$exe"
        fi
        why=$(verdict "$(checks_in "$d/main.cc")")
        n=$(weak_missing "$exe"); [ -n "$n" ] && why="$why [weak, missing: ${n% }]"
        tally hccl "$why"
    done < <(find "$s/examples" -mindepth 3 -maxdepth 3 -name Makefile -printf '%h\n' 2>/dev/null | sort -V)
}
mkdir -p "$work/bin"
others=0 empty=0
for s in "${srcs[@]}"; do
    run_op_examples
    [ -d "$s/example" ] && run_runtime_samples
    [ -d "$s/examples" ] && grep -qs HcclCommInit -r "$s/examples" --include=main.cc && run_hccl_samples
done
echo
for g in ops runtime hccl; do
    [ -n "${total[$g]:-}" ] && echo "$g: ${pass[$g]:-0} of ${total[$g]} pass"
done
[ "$others" -gt 0 ] && echo "ops: besides, $others examples call operators the mock does not export (CANN_SAMPLES_ALL=1 lists them)"
[ "$empty" -gt 0 ] && echo "ops: and $empty example files have no program in them (a licence header only)"
exit 0
