#!/usr/bin/env bash
# Starts a data-parallel job the way a cluster launcher does, with plain
# environment variables (torchrun's: RANK, WORLD_SIZE, LOCAL_RANK,
# MASTER_ADDR, MASTER_PORT): 2 "nodes" x 4 ranks on this machine, the
# master on the loopback interface. Every rank is one process of
# `train_data_parallel --launcher env`, which joins through
# `ascendcl::hccl::join` (rank 0 serves its root info on MASTER_PORT + 1)
# and checks its weights against rank 0's and its losses against PyTorch's.
# Exit 0 only if every rank passes; no rank outlives the script.
#
#   [LAUNCHER=slurm] examples/launch_two_nodes.sh [PATH/TO/train_data_parallel]
#       (LAUNCHER=slurm: Slurm's variables instead, SLURM_PROCID, SLURM_NTASKS,
#       SLURM_LOCALID and SLURM_STEP_NODELIST=localhost, no MASTER_ADDR;
#       LAUNCHER=ranktable: a rank table of the 2 servers x 4 devices,
#       RANK_TABLE_FILE, RANK_ID and RANK_SIZE, HcclCommInitClusterInfo)
#   MISSING=K examples/launch_two_nodes.sh ...
#       starts every rank but K, and passes only if every started rank fails
#       within HCCL_CONNECT_TIMEOUT (default 3 s here) with rank 0 naming K
#       (K = 0: the others say rank 0 did not answer), and no rank process
#       is left running
# Every run also checks that the mock's HCCL hubs left no socket behind (the
# ranks' TMPDIR is the script's own).
#       (default: target/debug/examples/train_data_parallel; build it with
#       `cargo build --example train_data_parallel`)
#
#   LAUNCHER=torchrun-real examples/launch_two_nodes.sh ...
#       the same job under real torchrun (with torch installed): two
#       `torchrun --nnodes 2 --nproc-per-node 4 --node-rank N --no-python`,
#       one per "node"; skipped (exit 0, saying so) without torchrun
set -euo pipefail
exe=${1:-target/debug/examples/train_data_parallel}
[ -x "$exe" ] || { echo "error: $exe is not built (cargo build --example train_data_parallel)" >&2; exit 2; }
if [ "${LAUNCHER:-}" = torchrun-real ]; then
    command -v torchrun >/dev/null || { echo "SKIP: torchrun is not installed (pip install torch)"; exit 0; }
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1] - 1)')
    logs=$(mktemp -d)
    trap 'rm -rf "$logs"' EXIT
    pids=()
    for node in 0 1; do
        torchrun --nnodes 2 --nproc-per-node 4 --node-rank "$node" --master-addr 127.0.0.1 \
            --master-port "$port" --no-python "$exe" --launcher env >"$logs/node-$node.log" 2>&1 &
        pids+=($!)
    done
    status=0
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    passed=$(cat "$logs"/node-*.log | grep -c "bit-identical to rank 0's: true; every loss PyTorch's: true" || true)
    if [ "$status" = 0 ] && [ "$passed" = 8 ]; then
        echo "PASS: 8 ranks under torchrun --nnodes 2 --nproc-per-node 4"
        exit 0
    fi
    echo "FAIL: torchrun: $passed of 8 ranks passed"
    tail -n 5 "$logs"/node-*.log
    exit 1
fi
nodes=2
per_node=4
world=$((nodes * per_node))
# A port pair nobody uses: MASTER_PORT (a launcher's own store) and the next
# (the root info).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1] - 1)' 2>/dev/null \
    || echo $((20000 + RANDOM % 20000)))
logs=$(mktemp -d)
# The ranks' TMPDIR, where the mock's HCCL hub keeps its socket: checked
# empty at the end (no socket left behind).
hubs="$logs/t"
mkdir -p "$hubs"
if [ "${LAUNCHER:-torchrun}" = ranktable ]; then
    {
        printf '{"status": "completed", "version": "1.0", "server_count": "%s", "server_list": [' "$nodes"
        for node in $(seq 0 $((nodes - 1))); do
            [ "$node" = 0 ] || printf ', '
            printf '{"server_id": "10.0.0.%s", "device": [' "$node"
            for local in $(seq 0 $((per_node - 1))); do
                [ "$local" = 0 ] || printf ', '
                printf '{"device_id": "%s", "device_ip": "192.168.%s.%s", "rank_id": "%s"}' \
                    "$local" "$node" "$local" $((node * per_node + local))
            done
            printf ']}'
        done
        printf ']}\n'
    } >"$logs/rank_table.json"
fi
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$logs"
}
trap cleanup EXIT
missing=${MISSING:-}
[ -z "$missing" ] || export HCCL_CONNECT_TIMEOUT=${HCCL_CONNECT_TIMEOUT:-3}
for node in $(seq 0 $((nodes - 1))); do
    for local in $(seq 0 $((per_node - 1))); do
        rank=$((node * per_node + local))
        [ "$rank" != "$missing" ] || continue
        if [ "${LAUNCHER:-torchrun}" = slurm ]; then
            vars=(SLURM_PROCID=$rank SLURM_NTASKS=$world SLURM_LOCALID=$local SLURM_STEP_NODELIST=localhost)
        elif [ "${LAUNCHER:-torchrun}" = ranktable ]; then
            vars=(RANK_TABLE_FILE="$logs/rank_table.json" RANK_ID=$rank RANK_SIZE=$world)
        else
            vars=(RANK=$rank WORLD_SIZE=$world LOCAL_RANK=$local MASTER_ADDR=127.0.0.1)
        fi
        env "${vars[@]}" MASTER_PORT=$port HCCL_CONNECT_TIMEOUT="${HCCL_CONNECT_TIMEOUT:-60}" TMPDIR="$hubs" \
            "$exe" --launcher env >"$logs/rank-$rank.log" 2>&1 &
        pids+=($!)
    done
done
failed=0
ranks=()
for rank in $(seq 0 $((world - 1))); do [ "$rank" = "$missing" ] || ranks+=("$rank"); done
for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
        failed=$((failed + 1))
        [ -n "$missing" ] || { echo "rank ${ranks[$i]} failed:"; tail -n 5 "$logs/rank-${ranks[$i]}.log"; }
    fi
done
pids=()
if [ -n "$missing" ]; then
    # Every started rank failed, rank 0 named the missing one, none is left.
    stray=$(pgrep -f -- "$exe --launcher env" || true)
    named=true
    if [ "${LAUNCHER:-torchrun}" = ranktable ]; then
        # HCCL's own rendezvous: every rank times out in HcclCommInitClusterInfo.
        grep -h "error" "$logs/rank-0.log" | head -n 1
    elif [ "$missing" != 0 ]; then
        grep -h "error" "$logs/rank-0.log" | head -n 1
        grep -q "rank(s) \[$missing\] never fetched" "$logs/rank-0.log" || named=false
    else
        grep -h "error" "$logs/rank-1.log" | head -n 1
    fi
    left=$(ls -A "$hubs")
    if [ "$failed" -eq "${#ranks[@]}" ] && $named && [ -z "$stray" ] && [ -z "$left" ]; then
        echo "PASS: rank $missing never started; all ${#ranks[@]} others failed within the timeout and said why"
        exit 0
    fi
    echo "FAIL: $failed of ${#ranks[@]} started ranks failed; stray processes: ${stray:-none}; left in TMPDIR: ${left:-nothing}"
    exit 1
fi
for rank in $(seq 0 $((world - 1))); do tail -n 1 "$logs/rank-$rank.log"; done
if [ "$failed" -ne 0 ]; then
    echo "FAIL: $failed of $world ranks failed"
    exit 1
fi
if [ -n "$(ls -A "$hubs")" ]; then
    echo "FAIL: the ranks left sockets behind: $(ls -A "$hubs")"
    exit 1
fi
echo "PASS: $world ranks on $nodes nodes x $per_node, launched from ${LAUNCHER:-torchrun}'s environment variables"
