#!/usr/bin/env bash
# Re-records the golden traces of the examples (ascendcl-mock/traces/*.jsonl)
# over the mock, through the recording shim: the same path a recording on an
# Atlas card takes, with the mock as the "real" library.
#
#   scripts/record-golden.sh [EXAMPLE...]     (default: all of them)
#
# Run it after a change to an example or to the ascendcl crate changes the
# calls an example makes (tests/golden_traces.rs then fails and says so), and
# commit the traces with the change. A trace recorded on a card can replace a
# file here as is (see docs/recording-on-a-card.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
    examples=(quickstart 01_devices 02_streams_events 03_async_copies 04_reserve_mem 05_allocator)
fi

build=$(mktemp)
trap 'rm -f "$build"' EXIT
cargo build --examples --message-format=json >"$build"
out_dir=$(grep '"reason":"build-script-executed"' "$build" | grep 'ascendcl-mock#' |
    sed -E 's/.*"out_dir":"([^"]*)".*/\1/' | tail -n 1)
mock="$out_dir/libascendcl.so"
shim="$out_dir/libascendcl_record.so"
[ -f "$mock" ] && [ -f "$shim" ] || { echo "error: no mock or shim in '$out_dir'" >&2; exit 1; }

mkdir -p ascendcl-mock/traces
for example in "${examples[@]}"; do
    exe=$(grep '"reason":"compiler-artifact"' "$build" | grep -o "\"executable\":\"[^\"]*/examples/$example\"" |
        sed -E 's/"executable":"(.*)"/\1/' | tail -n 1)
    [ -n "$exe" ] || { echo "error: no example named $example" >&2; exit 1; }
    trace="ascendcl-mock/traces/$example.jsonl"
    rm -f "$trace"
    # 05_allocator runs its device out of memory 4 GiB at a time, and its
    # expandable segments map 2 MiB pages: on a 4200 MiB device that is one
    # block (8.6k calls) instead of fifteen (127k calls).
    settings=(ASCENDCL_LIBRARY="$shim" ASCENDCL_RECORD_TARGET="$mock" ASCENDCL_RECORD_TRACE="$root/$trace")
    [ "$example" = 05_allocator ] && settings+=(ASCENDCL_MOCK_HBM_BYTES=4200MiB)
    env -u LD_PRELOAD -u ASCENDCL_MOCK_FAULTS -u ASCENDCL_MOCK_TRACE -u ASCENDCL_MOCK_REPLAY \
        -u ASCENDCL_MOCK_DEVICE_COUNT -u ASCENDCL_MOCK_SOC_NAME -u ASCENDCL_MOCK_STREAM_DELAY_US \
        -u ASCENDCL_MOCK_HBM_BYTES "${settings[@]}" \
        "$exe" >/dev/null 2>&1 || { echo "error: $example failed while recording" >&2; exit 1; }
    # The header names the target; the build directory is nobody's business.
    sed -i "1s#\"target\":\"[^\"]*\"#\"target\":\"ascendcl-mock (libascendcl.so)\"#" "$trace"
    echo "$trace: $(($(wc -l <"$trace") - 1)) calls"
done
