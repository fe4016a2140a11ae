#!/usr/bin/env bash
# Instructions per launch, raw vs safe, for every row of the launch-cost bench:
# each side of each row runs twice under callgrind (N1 and N2 launches) and
# the difference over N2-N1 is that side's instructions per launch (setup
# cancels out). Counts the whole process (launching thread, the mock's stream
# workers, the C mock itself), so it is the work a launch causes on the mock;
# unlike the times, the machine's noise does not move it.
#
#   bash scripts/launch-instructions.sh [N1 N2]      (needs valgrind; about 4 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
n1=${1:-500}
n2=${2:-1500}
command -v valgrind >/dev/null || { echo "valgrind is not installed (Debian: apt-get install valgrind)"; exit 2; }
cargo build --release -q -p ascendcl-benches --example launch_cost
bin=target/release/examples/launch_cost
# Valgrind cannot reserve the mock's default 64 GB of device address space.
export ASCENDCL_MOCK_HBM_BYTES=$((256 << 20))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # row side launches
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bin" --count "$1" "$2" "$3" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "| launch | raw instructions | safe instructions | safe/raw |"
echo "|---|---:|---:|---:|"
for row in h2d_copy_4k relu_fresh relu_repeatable conv3x3_fresh mlp_step all_reduce_2_ranks; do
    declare -A per
    # A step is 25 launches: a twentieth as many steps.
    scale=1
    [ "$row" = mlp_step ] && scale=20
    for side in raw safe; do
        a=$(count "$row" "$side" $((n1 / scale)))
        b=$(count "$row" "$side" $((n2 / scale)))
        per[$side]=$(( (b - a) / ((n2 - n1) / scale) ))
    done
    python3 -c "r, s = ${per[raw]}, ${per[safe]}; print(f'| $row | {r} | {s} | {s / r:.3f} |')"
done
