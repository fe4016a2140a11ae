#!/usr/bin/env bash
# Replays every golden trace strictly, RUNS times in a row each (default 10),
# through `ascendcl trace replay`, and checks that each edited trace fails
# with exit status 86 and a report naming the call. Reads the traces only
# through the files scripts/record-golden-traces.sh writes:
#   ascendcl-mock/traces/golden.tsv, ascendcl-mock/traces/edited/expected.tsv
#
#   scripts/replay-golden-traces.sh [RUNS]
#
# Needs the examples and the CLI built (cargo build --workspace --examples;
# cargo build -p ascendcl-cli).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${1:-10}
ascendcl=${ASCENDCL:-target/debug/ascendcl}
examples=${EXAMPLES_DIR:-target/debug/examples}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# arguments: comma-separated, "-" for none
split_args() {
    argv=()
    [ "$1" = - ] || IFS=, read -r -a argv <<<"$1"
}

while IFS=$'\t' read -r example trace args; do
    split_args "$args"
    for run in $(seq "$runs"); do
        rc=0
        "$ascendcl" trace replay "$trace" -- "$examples/$example" ${argv[@]+"${argv[@]}"} >/dev/null 2>"$log" || rc=$?
        if [ "$rc" != 0 ]; then
            echo "error: $trace: run $run of $example exited with $rc" >&2
            tail -n 5 "$log" >&2
            exit 1
        fi
    done
    echo "$trace: $runs strict replays of $example passed ($(tail -n 1 "$log" | sed 's/^trace replay: //'))"
done <ascendcl-mock/traces/golden.tsv

while IFS=$'\t' read -r trace example args expected; do
    split_args "$args"
    [ -n "$expected" ] || { echo "error: $trace: no expected text" >&2; exit 1; }
    rc=0
    "$ascendcl" trace replay "$trace" -- "$examples/$example" ${argv[@]+"${argv[@]}"} >/dev/null 2>"$log" || rc=$?
    if [ "$rc" != 86 ] || ! grep -qF -- "$expected" "$log"; then
        echo "error: $trace: expected exit 86 naming '$expected', got $rc" >&2
        tail -n 5 "$log" >&2
        exit 1
    fi
    echo "$trace: exit 86, names '$expected'"
done <ascendcl-mock/traces/edited/expected.tsv
