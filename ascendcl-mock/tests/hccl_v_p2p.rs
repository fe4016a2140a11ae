//! The HCCL mock's collectives with per-rank counts (AllGatherV,
//! ReduceScatterV, AlltoAllV, AlltoAllVC), point-to-point calls (Send/Recv,
//! BatchSendRecv) and Barrier, against host references, on three ranks.

mod common;
mod hccl_support;

use hccl_support::*;

const N: u32 = 3;

type AllGatherV =
    unsafe extern "C" fn(Ptr, u64, Ptr, *const u64, *const u64, i32, Comm, Ptr) -> i32;
type ReduceScatterV =
    unsafe extern "C" fn(Ptr, *const u64, *const u64, Ptr, u64, i32, i32, Comm, Ptr) -> i32;
type AlltoAllV = unsafe extern "C" fn(
    Ptr,
    *const u64,
    *const u64,
    i32,
    Ptr,
    *const u64,
    *const u64,
    i32,
    Comm,
    Ptr,
) -> i32;
type AlltoAllVC = unsafe extern "C" fn(Ptr, *const u64, i32, Ptr, i32, Comm, Ptr) -> i32;

#[repr(C)]
struct Item {
    kind: i32,
    buf: Ptr,
    count: u64,
    dtype: i32,
    remote: u32,
}
type Batch = unsafe extern "C" fn(*mut Item, u32, Comm, Ptr) -> i32;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn allgatherv_places_rank_k_count_k_elements_at_displacement_k() {
    let t = fresh(5000, 5000);
    // rank k contributes k+1 elements (values 10k, 10k+1, ...); displacements leave gaps
    let counts = [1u64, 2, 3];
    let displs = [5u64, 0, 8];
    let outs = ranks(&t, N, |r| {
        let k = r.rank as usize;
        let mine: Vec<f32> = (0..counts[k]).map(|i| (10 * k as u64 + i) as f32).collect();
        let send = r.upload(&f32s(&mine));
        let recv = r.upload(&f32s(&[-1.0; 11]));
        // SAFETY: arrays of N u64; recv holds 11 f32, the extent of the blocks.
        let rc = unsafe {
            f::<AllGatherV>("HcclAllGatherV")(
                send,
                counts[k],
                recv,
                counts.as_ptr(),
                displs.as_ptr(),
                FP32,
                r.comm,
                r.stream,
            )
        };
        assert_eq!(rc, SUCCESS);
        assert_eq!(r.sync(), 0);
        let out = r.download(recv, 44);
        r.free(send);
        r.free(recv);
        out
    });
    let mut want = [-1.0f32; 11];
    for k in 0..3 {
        for i in 0..counts[k] {
            want[(displs[k] + i) as usize] = (10 * k as u64 + i) as f32;
        }
    }
    for o in outs {
        assert_eq!(o, f32s(&want));
    }
}

#[test]
fn reducescatterv_gives_rank_j_the_sum_of_every_rank_s_block_j() {
    let t = fresh(5000, 5000);
    let counts = [2u64, 1, 3];
    let displs = [4u64, 0, 1]; // blocks in any order in the send buffer
    let outs = ranks(&t, N, |r| {
        let k = r.rank as f32;
        let send_vals: Vec<f32> = (0..6).map(|i| k * 100.0 + i as f32).collect();
        let send = r.upload(&f32s(&send_vals));
        let mine = counts[r.rank as usize];
        let recv = r.upload(&f32s(&vec![0.0; mine as usize]));
        // SAFETY: arrays of N u64; send holds 6 f32, recv `mine`.
        let rc = unsafe {
            f::<ReduceScatterV>("HcclReduceScatterV")(
                send,
                counts.as_ptr(),
                displs.as_ptr(),
                recv,
                mine,
                FP32,
                SUM,
                r.comm,
                r.stream,
            )
        };
        assert_eq!(rc, SUCCESS);
        assert_eq!(r.sync(), 0);
        let out = r.download(recv, mine as usize * 4);
        r.free(send);
        r.free(recv);
        out
    });
    for (j, o) in outs.iter().enumerate() {
        let want: Vec<f32> = (0..counts[j])
            .map(|i| {
                (0..3)
                    .map(|k| k as f32 * 100.0 + (displs[j] + i) as f32)
                    .sum()
            })
            .collect();
        assert_eq!(o, &f32s(&want), "rank {j}");
    }
}

#[test]
fn alltoallv_and_alltoallvc_deliver_what_rank_i_sends_rank_j_in_rank_order() {
    let t = fresh(5000, 5000);
    // m[i][j] elements from i to j
    let m: [[u64; 3]; 3] = [[1, 2, 0], [3, 1, 1], [0, 2, 2]];
    let outs = ranks(&t, N, |r| {
        let i = r.rank as usize;
        let sc: Vec<u64> = m[i].to_vec();
        let sd: Vec<u64> = (0..3).map(|j| m[i][..j].iter().sum()).collect();
        let rc_: Vec<u64> = (0..3).map(|s| m[s][i]).collect();
        let rd: Vec<u64> = (0..3).map(|s| (0..s).map(|q| m[q][i]).sum()).collect();
        let total_s: u64 = sc.iter().sum();
        let total_r: u64 = rc_.iter().sum();
        // element e of the block for j is 100*i + 10*j + e
        let vals: Vec<f32> = (0..3)
            .flat_map(|j| (0..m[i][j]).map(move |e| (100 * i as u64 + 10 * j as u64 + e) as f32))
            .collect();
        let send = r.upload(&f32s(&vals));
        let recv = r.upload(&vec![0; total_r as usize * 4]);
        let recv2 = r.upload(&vec![0; total_r as usize * 4]);
        let flat: Vec<u64> = m.iter().flatten().copied().collect();
        // SAFETY: arrays of N u64 (matrix N*N); buffers sized by the counts.
        unsafe {
            let rc = f::<AlltoAllV>("HcclAlltoAllV")(
                send,
                sc.as_ptr(),
                sd.as_ptr(),
                FP32,
                recv,
                rc_.as_ptr(),
                rd.as_ptr(),
                FP32,
                r.comm,
                r.stream,
            );
            assert_eq!(rc, SUCCESS);
            let rc = f::<AlltoAllVC>("HcclAlltoAllVC")(
                send,
                flat.as_ptr(),
                FP32,
                recv2,
                FP32,
                r.comm,
                r.stream,
            );
            assert_eq!(rc, SUCCESS);
        }
        assert_eq!(r.sync(), 0);
        let out = (
            r.download(recv, total_r as usize * 4),
            r.download(recv2, total_r as usize * 4),
        );
        let _ = total_s;
        for p in [send, recv, recv2] {
            r.free(p);
        }
        out
    });
    for (j, (v, vc)) in outs.iter().enumerate() {
        let want: Vec<f32> = (0..3)
            .flat_map(|i| (0..m[i][j]).map(move |e| (100 * i as u64 + 10 * j as u64 + e) as f32))
            .collect();
        assert_eq!(v, &f32s(&want), "AlltoAllV rank {j}");
        assert_eq!(vc, &f32s(&want), "AlltoAllVC rank {j}");
    }
}

#[test]
fn send_recv_pairs_pass_a_token_around_the_ring() {
    let t = fresh(5000, 5000);
    let outs = ranks(&t, N, |r| {
        let next = (r.rank + 1) % N;
        let prev = (r.rank + N - 1) % N;
        let mine = r.upload(&f32s(&[r.rank as f32; 3]));
        let got = r.upload(&f32s(&[0.0; 3]));
        // Even ranks send first, odd ranks receive first: no cycle of waits.
        // SAFETY: buffers of 3 f32.
        unsafe {
            let send = || f::<SendRecv>("HcclSend")(mine, 3, FP32, next, r.comm, r.stream);
            let recv = || f::<SendRecv>("HcclRecv")(got, 3, FP32, prev, r.comm, r.stream);
            if r.rank % 2 == 0 {
                assert_eq!(send(), SUCCESS);
                assert_eq!(recv(), SUCCESS);
            } else {
                assert_eq!(recv(), SUCCESS);
                assert_eq!(send(), SUCCESS);
            }
        }
        assert_eq!(r.sync(), 0);
        let out = r.download(got, 12);
        r.free(mine);
        r.free(got);
        out
    });
    for (k, o) in outs.iter().enumerate() {
        assert_eq!(o, &f32s(&[((k as u32 + N - 1) % N) as f32; 3]));
    }
}

#[test]
fn batch_send_recv_exchanges_with_both_neighbours_in_one_call() {
    let t = fresh(5000, 5000);
    let outs = ranks(&t, N, |r| {
        let next = (r.rank + 1) % N;
        let prev = (r.rank + N - 1) % N;
        let to_next = r.upload(&f32s(&[r.rank as f32 + 0.5; 2]));
        let to_prev = r.upload(&(r.rank as i32 * 7).to_le_bytes());
        let from_prev = r.upload(&f32s(&[0.0; 2]));
        let from_next = r.upload(&[0; 4]);
        let mut items = [
            Item {
                kind: 0,
                buf: to_next,
                count: 2,
                dtype: FP32,
                remote: next,
            },
            Item {
                kind: 1,
                buf: from_next,
                count: 1,
                dtype: INT32,
                remote: next,
            },
            Item {
                kind: 0,
                buf: to_prev,
                count: 1,
                dtype: INT32,
                remote: prev,
            },
            Item {
                kind: 1,
                buf: from_prev,
                count: 2,
                dtype: FP32,
                remote: prev,
            },
        ];
        // SAFETY: four items with buffers of their counts.
        let rc =
            unsafe { f::<Batch>("HcclBatchSendRecv")(items.as_mut_ptr(), 4, r.comm, r.stream) };
        assert_eq!(rc, SUCCESS);
        assert_eq!(r.sync(), 0);
        let out = (r.download(from_prev, 8), r.download(from_next, 4));
        for p in [to_next, to_prev, from_prev, from_next] {
            r.free(p);
        }
        out
    });
    for (k, (p, nx)) in outs.iter().enumerate() {
        let prev = (k as u32 + N - 1) % N;
        let next = (k as u32 + 1) % N;
        assert_eq!(p, &f32s(&[prev as f32 + 0.5; 2]));
        assert_eq!(nx, &(next as i32 * 7).to_le_bytes().to_vec());
    }
}

#[test]
fn barrier_completes_on_every_rank_and_is_journaled() {
    let t = fresh(5000, 5000);
    let rcs = ranks(&t, N, |r| {
        // SAFETY: live comm and stream.
        let rc = unsafe { f::<Barrier>("HcclBarrier")(r.comm, r.stream) };
        (rc, r.sync())
    });
    assert!(rcs.iter().all(|&(a, b)| a == SUCCESS && b == 0), "{rcs:?}");
    assert_eq!(t.s.call_count("HcclBarrier"), u64::from(N));
    let journal = t.s.journal();
    assert!(
        journal
            .iter()
            .any(|e| e.function() == "HcclBarrier" && e.line.contains("\"comm\"")),
        "the journal names the barrier and its comm"
    );
}

#[test]
fn grouped_sends_and_receives_run_fused_so_both_ranks_may_send_first() {
    let t = fresh(5000, 5000);
    type Group = unsafe extern "C" fn() -> i32;
    let outs = ranks(&t, 2, |r| {
        let peer = 1 - r.rank;
        let mine = r.upload(&f32s(&[r.rank as f32 + 1.0; 4]));
        let got = r.upload(&f32s(&[0.0; 4]));
        let sum_in = r.upload(&f32s(&[1.0; 2]));
        let sum_out = r.upload(&f32s(&[0.0; 2]));
        // SAFETY: buffers of 4 and 2 f32; live comm and stream.
        let codes = unsafe {
            [
                f::<Group>("HcclGroupStart")(),
                f::<SendRecv>("HcclSend")(mine, 4, FP32, peer, r.comm, r.stream),
                f::<SendRecv>("HcclRecv")(got, 4, FP32, peer, r.comm, r.stream),
                // a collective inside the group runs after the kept sends and receives
                f::<AllReduce>("HcclAllReduce")(sum_in, sum_out, 2, FP32, SUM, r.comm, r.stream),
                f::<Group>("HcclGroupEnd")(),
            ]
        };
        assert_eq!(codes, [SUCCESS; 5]);
        assert_eq!(r.sync(), 0);
        let out = (r.download(got, 16), r.download(sum_out, 8));
        for p in [mine, got, sum_in, sum_out] {
            r.free(p);
        }
        out
    });
    for (k, (got, sum)) in outs.iter().enumerate() {
        assert_eq!(got, &f32s(&[(1 - k) as f32 + 1.0; 4]), "rank {k}");
        assert_eq!(sum, &f32s(&[2.0; 2]));
    }
}

#[test]
fn reducescatterv_matches_the_host_reduction_for_every_dtype_and_op_cann_reduces() {
    let t = fresh(5000, 5000);
    let counts = [3u64, 0, 5]; // odd counts, and a rank that receives nothing
    let displs = [5u64, 8, 0];
    let failures = ranks(&t, N, |r| {
        let mut bad = Vec::new();
        for (dtype, es) in DTYPES {
            for op in OPS {
                let ins: Vec<Vec<u8>> = (0..N).map(|k| data(dtype, es, 8, k, op as u32)).collect();
                let send = r.upload(&ins[r.rank as usize]);
                let mine = counts[r.rank as usize];
                let recv = r.upload(&vec![0; mine as usize * es]);
                // SAFETY: arrays of N u64; send holds 8 elements, recv `mine`.
                let rc = unsafe {
                    f::<ReduceScatterV>("HcclReduceScatterV")(
                        send,
                        counts.as_ptr(),
                        displs.as_ptr(),
                        recv,
                        mine,
                        dtype,
                        op,
                        r.comm,
                        r.stream,
                    )
                };
                assert_eq!(
                    rc,
                    if reduces(dtype, op) {
                        SUCCESS
                    } else {
                        E_NOT_SUPPORT
                    }
                );
                assert_eq!(r.sync(), 0);
                let full = reduce_ref(dtype, es, op, &ins);
                let lo = displs[r.rank as usize] as usize * es;
                let got = if mine == 0 {
                    Vec::new()
                } else {
                    r.download(recv, mine as usize * es)
                };
                let want = if reduces(dtype, op) {
                    full[lo..lo + mine as usize * es].to_vec()
                } else {
                    vec![0; mine as usize * es]
                };
                if got != want {
                    bad.push((dtype, op));
                }
                r.free(send);
                r.free(recv);
            }
        }
        bad
    });
    assert!(failures.iter().all(Vec::is_empty), "{failures:?}");
}

#[test]
fn allgatherv_alltoallv_and_send_recv_move_every_dtype_bytes_exactly() {
    let t = fresh(5000, 5000);
    let counts = [1u64, 3, 5];
    let displs = [0u64, 1, 4];
    let failures = ranks(&t, N, |r| {
        let mut bad = Vec::new();
        let k = r.rank as usize;
        for (dtype, es) in DTYPES {
            let all: Vec<Vec<u8>> = (0..N).map(|q| data(dtype, es, 9, q, 3)).collect();
            // AllGatherV: rank q contributes counts[q] elements
            let send = r.upload(&all[k][..counts[k] as usize * es]);
            let recv = r.upload(&vec![0; 9 * es]);
            // SAFETY: arrays of N u64; recv holds 9 elements (the extent).
            let rc = unsafe {
                f::<AllGatherV>("HcclAllGatherV")(
                    send,
                    counts[k],
                    recv,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    dtype,
                    r.comm,
                    r.stream,
                )
            };
            assert_eq!((rc, r.sync()), (SUCCESS, 0));
            let want: Vec<u8> = (0..3)
                .flat_map(|q| all[q][..counts[q] as usize * es].to_vec())
                .collect();
            if r.download(recv, 9 * es) != want {
                bad.push(("AllGatherV", dtype));
            }
            r.free(send);
            r.free(recv);
            // AlltoAllV: rank i sends (i + j) % 3 + 1 elements to rank j
            let m = |i: usize, j: usize| ((i + j) % 3 + 1) as u64;
            let sc: Vec<u64> = (0..3).map(|j| m(k, j)).collect();
            let sd: Vec<u64> = (0..3).map(|j| sc[..j].iter().sum()).collect();
            let rc_: Vec<u64> = (0..3).map(|i| m(i, k)).collect();
            let rd: Vec<u64> = (0..3).map(|i| rc_[..i].iter().sum()).collect();
            let send = r.upload(&all[k][..sc.iter().sum::<u64>() as usize * es]);
            let total: u64 = rc_.iter().sum();
            let recv = r.upload(&vec![0; total as usize * es]);
            // SAFETY: arrays of N u64; buffers sized by the counts.
            let rc = unsafe {
                f::<AlltoAllV>("HcclAlltoAllV")(
                    send,
                    sc.as_ptr(),
                    sd.as_ptr(),
                    dtype,
                    recv,
                    rc_.as_ptr(),
                    rd.as_ptr(),
                    dtype,
                    r.comm,
                    r.stream,
                )
            };
            assert_eq!((rc, r.sync()), (SUCCESS, 0));
            let want: Vec<u8> = (0..3)
                .flat_map(|i| {
                    let off: u64 = (0..k).map(|j| m(i, j)).sum();
                    all[i][off as usize * es..(off + m(i, k)) as usize * es].to_vec()
                })
                .collect();
            if r.download(recv, total as usize * es) != want {
                bad.push(("AlltoAllV", dtype));
            }
            r.free(send);
            r.free(recv);
            // Send/Recv: rank 0 sends 7 elements to rank 2
            if k != 1 {
                let buf = r.upload(&if k == 0 {
                    all[0][..7 * es].to_vec()
                } else {
                    vec![0; 7 * es]
                });
                // SAFETY: `buf` holds 7 elements.
                let rc = unsafe {
                    if k == 0 {
                        f::<SendRecv>("HcclSend")(buf, 7, dtype, 2, r.comm, r.stream)
                    } else {
                        f::<SendRecv>("HcclRecv")(buf, 7, dtype, 0, r.comm, r.stream)
                    }
                };
                assert_eq!((rc, r.sync()), (SUCCESS, 0));
                if k == 2 && r.download(buf, 7 * es) != all[0][..7 * es] {
                    bad.push(("Send/Recv", dtype));
                }
                r.free(buf);
            }
        }
        bad
    });
    assert!(failures.iter().all(Vec::is_empty), "{failures:?}");
}
