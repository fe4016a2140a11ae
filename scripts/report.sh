#!/usr/bin/env bash
# One command for the benchmark report: runs the criterion benches, then
# writes target/report/REPORT.md and target/report/reserved_vs_live.svg
# (`ascendcl bench-report`, of the ascendcl-cli crate).
# On an Atlas card (CANN's set_env.sh sourced) the same command measures the
# device; otherwise everything runs on the mock.
#   scripts/report.sh            # full: ~10 minutes on 2 cores
#   QUICK=1 scripts/report.sh    # short criterion runs, for a first look
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${QUICK:-0}" = 1 ]; then
    timing=(--warm-up-time 1 --measurement-time 2)
else
    timing=(--warm-up-time 3 --measurement-time 5)
fi
for bench in overhead stream_sync reserve_mem; do
    cargo bench --bench "$bench" -- "${timing[@]}"
done
cargo build --release -p ascendcl-cli
ascendcl=${CARGO_TARGET_DIR:-target}/release/ascendcl
# The benches fall back to the mock without CANN; the report does only when
# asked, so ask when this machine has no AscendCL library.
# (doctor exits 1 when it finds any problem: only its JSON decides here.)
doctor=$("$ascendcl" doctor --json || true)
backend=()
grep -q '"status":"loaded"' <<<"$doctor" || backend=(--mock)
"$ascendcl" bench-report "${backend[@]}" --out target/report "$@"
