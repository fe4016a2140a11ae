//! Every collective of the HCCL mock with one count per rank, against a
//! reference computed on the host: every dtype and reduction op (those CANN
//! does not reduce refused at the call on every rank, nothing queued), odd
//! counts, three ranks (one thread and device each, HcclCommInitAll). Each rank
//! issues the whole sequence of calls in the same order, as a training loop
//! does, and checks every result after one synchronize per call.

mod common;
mod hccl_support;

use hccl_support::*;

const N: u32 = 3;
const COUNTS: [usize; 3] = [1, 7, 301];

/// The inputs of every rank for one case.
fn inputs(dtype: i32, es: usize, count: usize, salt: u32) -> Vec<Vec<u8>> {
    (0..N).map(|r| data(dtype, es, count, r, salt)).collect()
}

#[test]
fn allreduce_matches_the_host_reduction_for_every_dtype_op_and_odd_count_on_every_rank() {
    let t = fresh(5000, 5000);
    let failures = ranks(&t, N, |r| {
        let mut bad = Vec::new();
        for (dtype, es) in DTYPES {
            for op in OPS {
                for (salt, count) in COUNTS.into_iter().enumerate() {
                    let ins = inputs(dtype, es, count, salt as u32);
                    let send = r.upload(&ins[r.rank as usize]);
                    let recv = r.upload(&vec![0xAB; count * es]);
                    // SAFETY: buffers of `count` elements, live comm and stream.
                    let rc = unsafe {
                        f::<AllReduce>("HcclAllReduce")(
                            send,
                            recv,
                            count as u64,
                            dtype,
                            op,
                            r.comm,
                            r.stream,
                        )
                    };
                    if !reduces(dtype, op) {
                        assert_eq!(rc, E_NOT_SUPPORT, "dtype {dtype} op {op}");
                    } else {
                        assert_eq!(rc, SUCCESS);
                    }
                    assert_eq!(r.sync(), 0);
                    let want = if reduces(dtype, op) {
                        reduce_ref(dtype, es, op, &ins)
                    } else {
                        vec![0xAB; count * es]
                    };
                    if r.download(recv, count * es) != want {
                        bad.push((dtype, op, count));
                    }
                    r.free(send);
                    r.free(recv);
                }
            }
        }
        bad
    });
    for (rank, bad) in failures.iter().enumerate() {
        assert!(
            bad.is_empty(),
            "rank {rank}: wrong (dtype, op, count): {bad:?}"
        );
    }
}

#[test]
fn allreduce_in_place_reduces_into_the_send_buffer() {
    let t = fresh(5000, 5000);
    let outs = ranks(&t, N, |r| {
        let ins = inputs(FP32, 4, 9, 3);
        let buf = r.upload(&ins[r.rank as usize]);
        // SAFETY: one buffer of 9 f32 as send and receive.
        let rc =
            unsafe { f::<AllReduce>("HcclAllReduce")(buf, buf, 9, FP32, SUM, r.comm, r.stream) };
        assert_eq!(rc, SUCCESS);
        assert_eq!(r.sync(), 0);
        let out = r.download(buf, 36);
        r.free(buf);
        (out, reduce_ref(FP32, 4, SUM, &ins))
    });
    for (got, want) in outs {
        assert_eq!(got, want);
    }
}

#[test]
fn reduce_writes_the_reduction_on_the_root_only() {
    let t = fresh(5000, 5000);
    let failures = ranks(&t, N, |r| {
        let mut bad = Vec::new();
        for (dtype, es) in DTYPES {
            for op in OPS {
                let count = 7;
                let root = (op as u32 + 1) % N;
                let ins = inputs(dtype, es, count, op as u32);
                let send = r.upload(&ins[r.rank as usize]);
                let before = vec![0x5A; count * es];
                let recv = r.upload(&before);
                // SAFETY: buffers of `count` elements, live comm and stream.
                let rc = unsafe {
                    f::<Reduce>("HcclReduce")(
                        send,
                        recv,
                        count as u64,
                        dtype,
                        op,
                        root,
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
                let want = if r.rank == root && reduces(dtype, op) {
                    reduce_ref(dtype, es, op, &ins)
                } else {
                    before
                };
                if r.download(recv, count * es) != want {
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
fn reduce_scatter_gives_rank_r_the_reduction_of_every_rank_s_block_r() {
    let t = fresh(5000, 5000);
    let failures = ranks(&t, N, |r| {
        let mut bad = Vec::new();
        for (dtype, es) in DTYPES {
            for op in OPS {
                let count = 5; // per rank
                let ins = inputs(dtype, es, count * N as usize, op as u32 + 7);
                let send = r.upload(&ins[r.rank as usize]);
                let recv = r.upload(&vec![0; count * es]);
                // SAFETY: send holds count*N elements, recv count.
                let rc = unsafe {
                    f::<ReduceScatter>("HcclReduceScatter")(
                        send,
                        recv,
                        count as u64,
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
                let lo = r.rank as usize * count * es;
                let got = r.download(recv, count * es);
                let untouched = got.iter().all(|&b| b == 0);
                if (reduces(dtype, op) && got != full[lo..lo + count * es])
                    || (!reduces(dtype, op) && !untouched)
                {
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
fn broadcast_allgather_scatter_and_alltoall_move_every_dtype_bytes_exactly() {
    let t = fresh(5000, 5000);
    let failures = ranks(&t, N, |r| {
        let mut bad = Vec::new();
        let n = N as usize;
        for (dtype, es) in DTYPES {
            for count in [1usize, 7] {
                let ins = inputs(dtype, es, count * n, count as u32);
                let mine = &ins[r.rank as usize];
                let b = count * es;
                // Broadcast from root 2 (in place).
                let buf = r.upload(&mine[..b]);
                // SAFETY: `buf` holds `count` elements.
                let rc = unsafe {
                    f::<Broadcast>("HcclBroadcast")(buf, count as u64, dtype, 2, r.comm, r.stream)
                };
                assert_eq!(rc, SUCCESS);
                assert_eq!(r.sync(), 0);
                if r.download(buf, b) != ins[2][..b] {
                    bad.push(("Broadcast", dtype, count));
                }
                r.free(buf);
                // AllGather: rank k's first block at k.
                let send = r.upload(&mine[..b]);
                let recv = r.upload(&vec![0; b * n]);
                // SAFETY: send holds count, recv count*N elements.
                let rc = unsafe {
                    f::<AllGather>("HcclAllGather")(
                        send,
                        recv,
                        count as u64,
                        dtype,
                        r.comm,
                        r.stream,
                    )
                };
                assert_eq!(rc, SUCCESS);
                assert_eq!(r.sync(), 0);
                let want: Vec<u8> = ins.iter().flat_map(|v| v[..b].to_vec()).collect();
                if r.download(recv, b * n) != want {
                    bad.push(("AllGather", dtype, count));
                }
                r.free(send);
                r.free(recv);
                // Scatter from root 1: rank k gets block k of the root's buffer.
                let send = r.upload(mine);
                let recv = r.upload(&vec![0; b]);
                // SAFETY: send holds count*N, recv count elements.
                let rc = unsafe {
                    f::<Scatter>("HcclScatter")(
                        send,
                        recv,
                        count as u64,
                        dtype,
                        1,
                        r.comm,
                        r.stream,
                    )
                };
                assert_eq!(rc, SUCCESS);
                assert_eq!(r.sync(), 0);
                let k = r.rank as usize;
                if r.download(recv, b) != ins[1][k * b..(k + 1) * b] {
                    bad.push(("Scatter", dtype, count));
                }
                r.free(recv);
                // AlltoAll: block j of rank i lands at block i of rank j.
                let recv = r.upload(&vec![0; b * n]);
                type A2a = unsafe extern "C" fn(Ptr, u64, i32, Ptr, u64, i32, Comm, Ptr) -> i32;
                // SAFETY: send and recv hold count*N elements.
                let rc = unsafe {
                    f::<A2a>("HcclAlltoAll")(
                        send,
                        count as u64,
                        dtype,
                        recv,
                        count as u64,
                        dtype,
                        r.comm,
                        r.stream,
                    )
                };
                assert_eq!(rc, SUCCESS);
                assert_eq!(r.sync(), 0);
                let want: Vec<u8> = ins
                    .iter()
                    .flat_map(|v| v[k * b..(k + 1) * b].to_vec())
                    .collect();
                if r.download(recv, b * n) != want {
                    bad.push(("AlltoAll", dtype, count));
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
fn f16_and_bf16_sums_round_once_to_nearest_even_after_an_f32_accumulation() {
    // 1 + 2^-11 + 2^-11 in f16: rounding after each step would give 1 twice
    // (ties to even); accumulating in f32 gives 1 + 2^-10, exact in f16.
    let t = fresh(5000, 5000);
    let outs = ranks(&t, N, |r| {
        let x: f32 = if r.rank == 0 { 1.0 } else { 2f32.powi(-11) };
        let h = f16_rne(x).to_le_bytes();
        let bx: f32 = if r.rank == 0 { 1.0 } else { 2f32.powi(-8) };
        let bb = bf16_rne(bx).to_le_bytes();
        let (s1, r1) = (r.upload(&h), r.upload(&[0, 0]));
        let (s2, r2) = (r.upload(&bb), r.upload(&[0, 0]));
        // SAFETY: one element each.
        unsafe {
            assert_eq!(
                f::<AllReduce>("HcclAllReduce")(s1, r1, 1, FP16, SUM, r.comm, r.stream),
                SUCCESS
            );
            assert_eq!(
                f::<AllReduce>("HcclAllReduce")(s2, r2, 1, BFP16, SUM, r.comm, r.stream),
                SUCCESS
            );
        }
        assert_eq!(r.sync(), 0);
        let out = (r.download(r1, 2), r.download(r2, 2));
        for p in [s1, r1, s2, r2] {
            r.free(p);
        }
        out
    });
    for (h, b) in outs {
        assert_eq!(
            u16::from_le_bytes([h[0], h[1]]),
            f16_rne(1.0 + 2f32.powi(-10))
        );
        assert_eq!(
            u16::from_le_bytes([b[0], b[1]]),
            bf16_rne(1.0 + 2f32.powi(-7))
        );
    }
}
