#!/usr/bin/env bash
# Re-records every golden trace (ascendcl-mock/traces/) in one command, over
# the mock, through the recording shim: the same path a recording on an
# Atlas card takes, with the mock as the "real" library. Also writes what CI
# reads them through (.ci/run never names a trace itself):
#
#   ascendcl-mock/traces/golden.tsv          example<TAB>trace<TAB>arguments
#   ascendcl-mock/traces/edited/expected.tsv trace<TAB>example<TAB>arguments<TAB>text
#       (arguments separated by commas, "-" for none)
#       edited copies of the train_mlp trace (one tensor's shape changed, one
#       operator removed) whose strict replay must fail with exit 86 and a
#       report containing "text" (the call it names)
#
#   scripts/record-golden-traces.sh [TRACE...]   (default: all of them; a
#   trace is named after its example, or e.g. train_mlp-graph)
#
# Run it after a change to an example, the ascendcl crate or the shim
# changes the calls an example makes (tests/golden_traces.rs and the CI
# replay then fail and say so), and commit the traces with the change.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# example, arguments ("-" for none), extra environment of the recording,
# and the trace's name when it is not the example's
golden=(
    "quickstart - -"
    "01_devices - -"
    "02_streams_events - -"
    "03_async_copies - -"
    "04_reserve_mem - -"
    "05_allocator - ASCENDCL_MOCK_HBM_BYTES=4200MiB"
    "pipeline - -"
    "train_mlp - -"
    "train_resnet - -"
    "train_data_parallel --mode,threads,--ranks,2 -"
    "train_data_parallel --mode,processes,--ranks,2 - train_data_parallel-processes"
    "train_gpt - -"
    "train_mlp --graph - train_mlp-graph"
    "train_resnet --graph - train_resnet-graph"
)
# 05_allocator runs its device out of memory 4 GiB at a time, and its
# expandable segments map 2 MiB pages: on a 4200 MiB device that is one block
# (8.6k calls) instead of fifteen (127k calls). train_data_parallel: its
# threads mode (HcclCommInitAll, one thread per rank) on 2 ranks, and its
# processes mode (root info, one process per rank): one trace per process,
# NAME.jsonl for the first and NAME.processK.jsonl for the ranks it starts
# (renamed from the shim's NAME.<pid>.jsonl, in the order of their launch
# keys); on replay each process picks its own (docs/trace-format.md).

wanted=("$@")
build=$(mktemp)
trap 'rm -f "$build"' EXIT
cargo build --workspace --examples --message-format=json >"$build"
out_dir=$(grep '"reason":"build-script-executed"' "$build" | grep 'ascendcl-mock#' |
    sed -E 's/.*"out_dir":"([^"]*)".*/\1/' | tail -n 1)
mock="$out_dir/libascendcl.so"
[ -f "$mock" ] && [ -f "$out_dir/libascendcl_record.so" ] || { echo "error: no mock or shim in '$out_dir'" >&2; exit 1; }
# The shim with its faces, as `ascendcl trace record` lays them out: a
# program opening HCCL or the aclnn libraries beside the runtime library (or
# from ASCENDCL_ACLNN_DIR) reaches the shim's wrappers.
faces="$root/target/golden-shim"
mkdir -p "$faces"
for pair in libascendcl_record.so:libascendcl_record.so libhccl.so:libhccl_record.so \
    libnnopbase.so:libnnopbase_record.so libopapi.so:libopapi_record.so; do
    ln -sf "$out_dir/${pair#*:}" "$faces/${pair%%:*}"
done
shim="$faces/libascendcl_record.so"

exe_of() {
    grep '"reason":"compiler-artifact"' "$build" | grep -o "\"executable\":\"[^\"]*/examples/$1\"" |
        sed -E 's/"executable":"(.*)"/\1/' | tail -n 1
}

traces=ascendcl-mock/traces
mkdir -p "$traces/edited"
manifest="$traces/golden.tsv"
new_manifest=$(mktemp)
for entry in "${golden[@]}"; do
    read -r example args extra name <<<"$entry"
    name=${name:-$example}
    argv=()
    [ "$args" = - ] || IFS=, read -r -a argv <<<"$args"
    printf '%s\t%s\t%s\n' "$example" "$traces/$name.jsonl" "$args" >>"$new_manifest"
    if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $name "* ]]; then
        continue
    fi
    exe=$(exe_of "$example")
    [ -n "$exe" ] || { echo "error: no example named $example" >&2; exit 1; }
    trace="$traces/$name.jsonl"
    rm -f "$trace" "$traces/$name".*.jsonl
    settings=(ASCENDCL_LIBRARY="$shim" ASCENDCL_RECORD_TARGET="$mock" ASCENDCL_RECORD_TRACE="$root/$trace"
        ASCENDCL_ACLNN_DIR="$faces" ASCENDCL_RECORD_ACLNN_DIR="$out_dir")
    [ "$extra" = - ] || settings+=("$extra")
    env -u LD_PRELOAD -u ASCENDCL_MOCK_FAULTS -u ASCENDCL_MOCK_TRACE -u ASCENDCL_MOCK_REPLAY \
        -u ASCENDCL_MOCK_DEVICE_COUNT -u ASCENDCL_MOCK_SOC_NAME -u ASCENDCL_MOCK_STREAM_DELAY_US \
        -u ASCENDCL_MOCK_HBM_BYTES -u ASCENDCL_RECORD_HCCL_TARGET "${settings[@]}" \
        "$exe" "${argv[@]}" >/dev/null 2>&1 || { echo "error: $example failed while recording" >&2; exit 1; }
    # The processes the example started: stable names, in launch-key order.
    k=0
    while IFS=$'\t' read -r _ file; do
        [ -n "$file" ] || continue
        mv "$file" "$traces/$name.process$k.jsonl"
        k=$((k + 1))
    done < <(for file in "$traces/$name".[0-9]*.jsonl; do
        [ -e "$file" ] && printf '%s\t%s\n' "$(head -n 1 "$file" | grep -o '"launch":.*')" "$file"
    done | sort)
    for file in "$trace" "$traces/$name".process*.jsonl; do
        [ -e "$file" ] || continue
        # The header names the target; the build directory is nobody's business.
        sed -i "1s#\"target\":\"[^\"]*\"#\"target\":\"ascendcl-mock (libascendcl.so)\"#" "$file"
        echo "$file: $(($(wc -l <"$file") - 1)) calls"
    done
done
mv "$new_manifest" "$manifest"

# The edited traces, from train_mlp's first 400 lines (the replay fails at
# the edit, long before their end): the first tensor of shape [64,16]
# becomes [64,17]; the first aclnnReluGetWorkspaceSize is removed.
base="$traces/train_mlp.jsonl"
shape="$traces/edited/train_mlp-shape-changed.jsonl"
removed="$traces/edited/train_mlp-op-removed.jsonl"
head -n 400 "$base" >"$shape.orig"
sed '0,/"view":"\[64,16\]"/s//"view":"[64,17]"/' "$shape.orig" >"$shape"
awk '!done && /"fn":"aclnnReluGetWorkspaceSize"/ { done = 1; next } { print }' "$shape.orig" >"$removed"
cmp -s "$shape.orig" "$shape" && { echo "error: no [64,16] tensor in $base to change" >&2; exit 1; }
cmp -s "$shape.orig" "$removed" && { echo "error: no aclnnReluGetWorkspaceSize in $base to remove" >&2; exit 1; }
rm -f "$shape.orig"
# The processes set, edited in rank 1's trace only (the others link to the
# golden ones): its first HcclAllReduce's count grows by one.
set_name=train_data_parallel-processes
edited_set="$traces/edited/$set_name"
rm -f "$edited_set".jsonl "$edited_set".*.jsonl
ln -s "../$set_name.jsonl" "$edited_set.jsonl"
ln -s "../$set_name.process0.jsonl" "$edited_set.process0.jsonl"
head -n 400 "$traces/$set_name.process1.jsonl" | awk '
    !done && /"fn":"HcclAllReduce"/ && match($0, /"count":[0-9]+/) {
        n = substr($0, RSTART + 8, RLENGTH - 8) + 1
        $0 = substr($0, 1, RSTART - 1) "\"count\":" n substr($0, RSTART + RLENGTH)
        done = 1
    }
    { print }
    END { if (!done) exit 1 }' >"$edited_set.process1.jsonl" ||
    { echo "error: no HcclAllReduce in the first 400 lines of $set_name.process1.jsonl" >&2; exit 1; }
{
    printf '%s\t%s\t%s\t%s\n' "$edited_set.jsonl" train_data_parallel --mode,processes,--ranks,2 "different argument count"
    printf '%s\t%s\t%s\t%s\n' "$shape" train_mlp - "aclCreateTensor {\"view\":\"[64,17]\""
    printf '%s\t%s\t%s\t%s\n' "$shape" train_mlp - "different argument view"
    printf '%s\t%s\t%s\t%s\n' "$removed" train_mlp - "the program aclnnReluGetWorkspaceSize"
} >"$traces/edited/expected.tsv"
echo "$traces/golden.tsv, $traces/edited/: written"
