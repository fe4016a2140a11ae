//! The argument checks of the mock's collectives against CANN 8.5.0's
//! sources, one test per rule, each citing its lines: hicann/hcomm tag
//! v8.5.0 (`op_base.cc`, `op_base_host.cc` in src/framework/op_base/src/,
//! `param_check.cc` in src/framework/common/src/, `hccl_communicator_host.cc`
//! and `hccl_comm*.cc` in src/framework/communicator/) and hicann/hccl v8.5.0
//! (`src/ops/interface/hccl_collective_op.cc`: every HcclX forwards to
//! hcomm's HcclXInner). A refused call queues nothing: the last test checks
//! that a call refused on one rank leaves nothing its peers would have to
//! match.

mod common;
mod hccl_support;

use std::time::{Duration, Instant};

use hccl_support::*;

type AllGatherV =
    unsafe extern "C" fn(Ptr, u64, Ptr, *const u64, *const u64, i32, Comm, Ptr) -> i32;
type ReduceScatterV =
    unsafe extern "C" fn(Ptr, *const u64, *const u64, Ptr, u64, i32, i32, Comm, Ptr) -> i32;
type AlltoAll = unsafe extern "C" fn(Ptr, u64, i32, Ptr, u64, i32, Comm, Ptr) -> i32;
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

const SEND: i32 = 0;
/// hcomm src/pub_inc/hccl_common.h:64: SYS_MAX_COUNT.
const MAX_COUNT: u64 = 0x7_FFFF_FFFF;
const INT128: i32 = 12;

fn null() -> Ptr {
    std::ptr::null_mut()
}

/// Two communicators of devices 0 and 1; the thread's device is 0, with a
/// stream and two 64-byte buffers of it. Rank 0's calls below are all
/// refused, so rank 1 never has to issue anything.
struct Two {
    t: common::T,
    comms: Vec<Comm>,
    s: Ptr,
    a: Ptr,
    b: Ptr,
}

impl Two {
    fn new() -> Two {
        let t = fresh(5000, 2000);
        let comms = init_all(2);
        assert_eq!(t.set_device(0), 0);
        let s = t.create_stream().unwrap();
        let a = t.malloc(64, 0).unwrap();
        let b = t.malloc(64, 0).unwrap();
        Two { t, comms, s, a, b }
    }

    fn c(&self) -> Comm {
        self.comms[0]
    }

    /// Checks that nothing was queued and releases everything.
    fn finish(self) {
        assert_eq!(self.t.sync_stream(self.s), 0, "nothing was queued");
        assert_eq!(self.t.free(self.a), 0);
        assert_eq!(self.t.free(self.b), 0);
        assert_eq!(self.t.destroy_stream(self.s), 0);
        for c in &self.comms {
            assert_eq!(destroy(*c), SUCCESS);
        }
    }
}

fn all_reduce(a: Ptr, b: Ptr, n: u64, dt: i32, op: i32, c: Comm, s: Ptr) -> i32 {
    // SAFETY: the mock checks every argument before it reads a buffer.
    unsafe { f::<AllReduce>("HcclAllReduce")(a, b, n, dt, op, c, s) }
}

/// op_base_host.cc:85-110 (HcclAllReduceInner) with param_check.cc:400-432
/// (HcomCheckOpParam: count, dtype, stream), :303-316, :318-338 and
/// hccl_communicator_host.cc:788-804 (via hccl_comm_host.cc:65): each
/// check is seen by making it and every later one fail at once.
#[test]
fn allreduce_checks_count_pointers_count_range_dtype_stream_op_and_reduce_dtype_in_that_order() {
    let w = Two::new();
    let (a, b, c, s) = (w.a, w.b, w.c(), w.s);
    let huge = MAX_COUNT + 1;
    assert_eq!(
        all_reduce(null(), null(), 0, 99, 99, null(), null()),
        SUCCESS
    );
    assert_eq!(all_reduce(null(), null(), 4, 99, 99, null(), null()), E_PTR);
    assert_eq!(all_reduce(null(), null(), huge, 99, 99, c, null()), E_PTR);
    assert_eq!(all_reduce(a, null(), huge, 99, 99, c, null()), E_PTR);
    assert_eq!(all_reduce(a, b, huge, 99, 99, c, null()), E_PARA, "count");
    assert_eq!(
        all_reduce(a, b, MAX_COUNT, 99, 99, c, null()),
        E_NOT_SUPPORT
    );
    assert_eq!(
        all_reduce(a, b, 4, 13, 99, c, null()),
        E_NOT_SUPPORT,
        "dtype 13"
    );
    assert_eq!(all_reduce(a, b, 4, FP32, 99, c, null()), E_PTR, "stream");
    assert_eq!(all_reduce(a, b, 4, FP32, 99, c, s), E_NOT_SUPPORT, "op 99");
    assert_eq!(all_reduce(a, b, 4, INT16, PROD, c, s), E_NOT_SUPPORT);
    assert_eq!(all_reduce(a, b, 4, BFP16, PROD, c, s), E_NOT_SUPPORT);
    assert_eq!(all_reduce(a, b, 4, UINT8, SUM, c, s), E_NOT_SUPPORT);
    let msg = w.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("uint8 does not reduce"), "{msg}");
    w.finish();
}

/// The reductions' dtype x op table on an Ascend 910B (param_check.cc:318-338,
/// hccl_communicator_host.cc:788-804): the same for AllReduce
/// (op_base_host.cc:107-110, hccl_comm_host.cc:65-66), ReduceScatter
/// (op_base.cc:1637-1640, hccl_comm.cc:611-612), Reduce (op_base.cc:2875-2878,
/// hccl_comm.cc:728-729) and ReduceScatterV (op_base.cc:1731-1734,
/// hccl_comm.cc:674-675). int128 passes the sources' checks; the mock does
/// not reduce it (docs/mock-conformance.md).
#[test]
fn every_reduction_refuses_unsigned_integers_fp64_and_prod_of_int16_or_bf16() {
    let w = Two::new();
    let (a, b, c, s) = (w.a, w.b, w.c(), w.s);
    let counts = [2u64, 2];
    let displs = [0u64, 2];
    let mut refused = 0;
    for (dtype, _) in DTYPES.iter().copied().chain([(INT128, 16)]) {
        for op in OPS {
            if reduces(dtype, op) && dtype != INT128 {
                continue; // would queue and wait for rank 1
            }
            // SAFETY: 64-byte buffers hold 2 elements of every type twice.
            let rcs = unsafe {
                [
                    all_reduce(a, b, 2, dtype, op, c, s),
                    f::<ReduceScatter>("HcclReduceScatter")(a, b, 1, dtype, op, c, s),
                    f::<Reduce>("HcclReduce")(a, b, 2, dtype, op, 1, c, s),
                    f::<ReduceScatterV>("HcclReduceScatterV")(
                        a,
                        counts.as_ptr(),
                        displs.as_ptr(),
                        b,
                        2,
                        dtype,
                        op,
                        c,
                        s,
                    ),
                ]
            };
            assert_eq!(rcs, [E_NOT_SUPPORT; 4], "dtype {dtype} op {op}");
            refused += 1;
        }
    }
    // 5 types never reduce (20 pairs), PROD of int16 and bf16 (2), int128 (4)
    assert_eq!(refused, 26);
    w.finish();
}

/// op_base.cc:2873-2882 (HcclReduceInner): the root is checked after the
/// reduction op and the dtype x op rule, and before hcclComm's
/// CheckDataType(needReduce) (hccl_comm.cc:728-730).
#[test]
fn reduce_checks_the_root_between_the_op_rules_and_the_reduce_dtype() {
    let w = Two::new();
    let (a, b, c, s) = (w.a, w.b, w.c(), w.s);
    // SAFETY: as above.
    let reduce = |dt: i32, op: i32, root: u32| unsafe {
        f::<Reduce>("HcclReduce")(a, b, 2, dt, op, root, c, s)
    };
    assert_eq!(reduce(FP32, SUM, 2), E_PARA, "root out of range");
    assert_eq!(reduce(INT16, PROD, 2), E_NOT_SUPPORT, "op rule first");
    assert_eq!(
        reduce(UINT8, SUM, 2),
        E_PARA,
        "root before the reduce dtype"
    );
    assert_eq!(reduce(FP32, 9, 2), E_NOT_SUPPORT, "op first");
    // SAFETY: as above.
    let bcast = |root: u32| unsafe { f::<Broadcast>("HcclBroadcast")(a, 2, FP32, root, c, s) };
    assert_eq!(bcast(2), E_PARA, "op_base.cc:1541");
    w.finish();
}

/// op_base.cc:1847-1873 (HcclScatterInner, which hccl's HcclScatter runs on
/// a 910B: scatter_op.cc:55-56 with alg_env_config.cc:761-763): the send
/// buffer is needed on the root only, checked before the root's range.
#[test]
fn scatter_needs_a_send_buffer_on_the_root_only_checked_before_the_root_range() {
    let w = Two::new();
    let (b, c, s) = (w.b, w.c(), w.s);
    // SAFETY: as above.
    let scatter = |send: Ptr, root: u32, st: Ptr| unsafe {
        f::<Scatter>("HcclScatter")(send, b, 2, FP32, root, c, st)
    };
    assert_eq!(scatter(null(), 0, null()), E_PTR, "the root's send buffer");
    assert_eq!(scatter(null(), 5, null()), E_PTR, "then the stream");
    assert_eq!(scatter(null(), 5, s), E_PARA, "then the root");
    w.finish();
}

/// op_base.cc:2152-2160 and 2229-2237 (HcclSendInner, HcclRecvInner): the
/// count and the dtype before the peer (hccl_comm.cc:788-789, 807-808).
#[test]
fn send_and_recv_check_the_count_and_dtype_before_the_peer() {
    let w = Two::new();
    let (a, c, s) = (w.a, w.c(), w.s);
    for name in ["HcclSend", "HcclRecv"] {
        // SAFETY: as above.
        let p2p = |n: u64, dt: i32, peer: u32| unsafe { f::<SendRecv>(name)(a, n, dt, peer, c, s) };
        assert_eq!(p2p(MAX_COUNT + 1, 13, 7), E_PARA, "{name}: count");
        assert_eq!(p2p(2, 13, 7), E_NOT_SUPPORT, "{name}: dtype");
        assert_eq!(p2p(2, FP32, 7), E_PARA, "{name}: peer out of range");
        assert_eq!(
            p2p(2, UINT64, 0),
            E_PARA,
            "{name}: itself (the mock's rule)"
        );
        // SAFETY: as above, with no stream.
        let rc = unsafe { f::<SendRecv>(name)(a, 2, 13, 7, c, null()) };
        assert_eq!(rc, E_PTR, "{name}: the stream before the dtype");
    }
    w.finish();
}

/// op_base.cc:3444-3481 (HcclBatchSendRecvInner): no items succeed; every
/// item needs a buffer, even of count 0, a dtype, a count and a rank in
/// range.
#[test]
fn batch_send_recv_of_no_items_succeeds_and_every_item_needs_a_buffer() {
    let w = Two::new();
    let (a, c, s) = (w.a, w.c(), w.s);
    let batch = |items: &mut [Item]| {
        // SAFETY: `items` holds items.len() items.
        unsafe { f::<Batch>("HcclBatchSendRecv")(items.as_mut_ptr(), items.len() as u32, c, s) }
    };
    let item = |buf: Ptr, count: u64, dtype: i32, remote: u32| Item {
        kind: SEND,
        buf,
        count,
        dtype,
        remote,
    };
    assert_eq!(batch(&mut []), SUCCESS, "itemNum 0");
    assert_eq!(batch(&mut [item(null(), 0, FP32, 1)]), E_PTR);
    assert_eq!(batch(&mut [item(a, 1, 13, 1)]), E_NOT_SUPPORT);
    assert_eq!(batch(&mut [item(a, MAX_COUNT + 1, FP32, 1)]), E_PARA);
    assert_eq!(batch(&mut [item(a, 1, FP32, 2)]), E_PARA, "remote rank");
    // the sources check every item before the mock checks any: item 0 would
    // be refused by the mock (to itself), item 1 by the sources first
    let mut two = [item(a, 1, FP32, 0), item(null(), 1, FP32, 1)];
    assert_eq!(batch(&mut two), E_PTR);
    w.finish();
}

/// op_base.cc:2569-2601 (HcclAlltoAllInner) and param_check.cc:164-261
/// (HcomCheckAlltoAllV(C)ExternalMem): not one buffer for both sides;
/// AlltoAll's counts and types agree; V and VC need a buffer where
/// something moves and counts within SYS_MAX_COUNT.
#[test]
fn all_to_all_refuses_one_buffer_for_both_sides_and_unequal_counts_or_types() {
    let w = Two::new();
    let (a, b, c, s) = (w.a, w.b, w.c(), w.s);
    // SAFETY: as above; count arrays hold 2 elements, the matrix 4.
    unsafe {
        let a2a = f::<AlltoAll>("HcclAlltoAll");
        assert_eq!(a2a(null(), 0, 99, null(), 0, 98, null(), null()), SUCCESS);
        assert_eq!(a2a(a, 1, FP32, b, 2, FP32, c, s), E_PARA, "counts");
        assert_eq!(a2a(a, 1, FP32, b, 1, INT32, c, s), E_PARA, "types");
        assert_eq!(a2a(a, 1, FP32, a, 1, FP32, c, s), E_PARA, "one buffer");
        assert_eq!(a2a(a, 1, FP32, a, 1, FP32, null(), s), E_PTR, "comm first");
        let v = f::<AlltoAllV>("HcclAlltoAllV");
        let (one, zero, huge) = ([1u64, 1], [0u64, 1], [MAX_COUNT + 1, 0]);
        let (o, z) = (one.as_ptr(), zero.as_ptr());
        assert_eq!(v(a, o, z, FP32, a, o, z, FP32, c, s), E_PARA, "one buffer");
        assert_eq!(v(null(), o, z, FP32, b, o, z, FP32, c, s), E_PTR);
        assert_eq!(v(a, huge.as_ptr(), z, 13, b, o, z, FP32, c, s), E_PARA);
        assert_eq!(v(a, o, z, 13, b, o, z, FP32, c, s), E_NOT_SUPPORT);
        assert_eq!(
            v(a, o, z, FP32, b, o, z, INT32, c, s),
            E_PARA,
            "mock: one type"
        );
        let vc = f::<AlltoAllVC>("HcclAlltoAllVC");
        let m = [1u64, 1, 1, 1];
        assert_eq!(vc(a, m.as_ptr(), FP32, a, FP32, c, s), E_PARA, "one buffer");
        assert_eq!(vc(null(), m.as_ptr(), FP32, b, FP32, c, s), E_PTR);
        assert_eq!(
            vc(a, m.as_ptr(), FP32, b, FP32, c, null()),
            E_PTR,
            "stream last"
        );
    }
    w.finish();
}

/// op_base.cc:2033-2109 (HcclAllGatherVInner) and 1709-1785
/// (HcclReduceScatterVInner): counts within SYS_MAX_COUNT, all zero is a
/// success that queues nothing, and this rank's own count must be the one
/// passed, refused at the call.
#[test]
fn v_collectives_refuse_an_own_count_unlike_the_array_and_skip_empty_ones() {
    let w = Two::new();
    let (a, b, c, s) = (w.a, w.b, w.c(), w.s);
    let counts = [2u64, 3];
    let displs = [0u64, 2];
    let zeros = [0u64, 0];
    let huge = [MAX_COUNT + 1, 0];
    // SAFETY: as above; arrays hold 2 elements.
    unsafe {
        let agv = f::<AllGatherV>("HcclAllGatherV");
        let d = displs.as_ptr();
        assert_eq!(
            agv(a, 3, b, counts.as_ptr(), d, FP32, c, s),
            E_PARA,
            "own count"
        );
        assert_eq!(agv(a, 0, null(), zeros.as_ptr(), d, FP32, c, s), SUCCESS);
        assert_eq!(agv(a, 0, b, huge.as_ptr(), d, FP32, c, s), E_PARA);
        assert_eq!(agv(a, 2, null(), counts.as_ptr(), d, FP32, c, s), E_PTR);
        let rsv = f::<ReduceScatterV>("HcclReduceScatterV");
        let cp = counts.as_ptr();
        assert_eq!(rsv(a, cp, d, b, 3, FP32, SUM, c, s), E_PARA, "own count");
        assert_eq!(
            rsv(null(), zeros.as_ptr(), d, b, 0, UINT8, SUM, c, s),
            SUCCESS
        );
        assert_eq!(rsv(a, cp, d, b, 2, UINT8, PROD, c, s), E_NOT_SUPPORT);
        assert_eq!(rsv(null(), cp, d, b, 2, FP32, SUM, c, s), E_PTR);
    }
    w.finish();
}

/// A call refused on one rank queues nothing, so the communicator stays in
/// step: after each refusal on rank 0 alone, a valid all-reduce on every
/// rank completes (no mismatch, no timeout) with the right sum.
#[test]
fn a_call_refused_on_one_rank_leaves_nothing_that_its_peers_would_have_to_match() {
    const N: u32 = 3;
    let t = fresh(5000, 3000);
    const CASES: [&str; 10] = [
        "PROD of int16",
        "SUM of uint8",
        "an op that is none",
        "a count too large",
        "a root out of range",
        "a broadcast root out of range",
        "no send buffer on the scatter root",
        "one buffer for an all-to-all",
        "an own count unlike the array",
        "a send to a rank out of range",
    ];
    let refused = |k: usize, r: &Rank, a: Ptr, b: Ptr| {
        let (c, s) = (r.comm, r.stream);
        let counts = [1u64; N as usize];
        let displs = [0u64, 1, 2];
        // SAFETY: 64-byte device buffers of the rank's device, the rank's
        // comm and stream, arrays of N elements; the mock refuses each call
        // before it reads anything.
        unsafe {
            match k {
                0 => all_reduce(a, b, 4, INT16, PROD, c, s),
                1 => all_reduce(a, b, 4, UINT8, SUM, c, s),
                2 => all_reduce(a, b, 4, FP32, 7, c, s),
                3 => all_reduce(a, b, MAX_COUNT + 1, FP32, SUM, c, s),
                4 => f::<Reduce>("HcclReduce")(a, b, 4, FP32, SUM, N, c, s),
                5 => f::<Broadcast>("HcclBroadcast")(a, 4, FP32, N + 1, c, s),
                6 => f::<Scatter>("HcclScatter")(null(), b, 4, FP32, r.rank, c, s),
                7 => f::<AlltoAll>("HcclAlltoAll")(a, 1, FP32, a, 1, FP32, c, s),
                8 => f::<AllGatherV>("HcclAllGatherV")(
                    a,
                    2,
                    b,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    FP32,
                    c,
                    s,
                ),
                _ => f::<SendRecv>("HcclSend")(a, 4, FP32, N, c, s),
            }
        }
    };
    let outs = ranks(&t, N, |r| {
        let a = r.upload(&[0; 64]);
        let b = r.upload(&[0; 64]);
        let mut sums = Vec::new();
        for (k, what) in CASES.iter().enumerate() {
            if r.rank == 0 {
                let rc = refused(k, r, a, b);
                assert_ne!(rc, SUCCESS, "{what}");
                assert_eq!(r.sync(), 0, "{what}: nothing queued");
            }
            let x = (r.rank + 1) as f32 * (k + 1) as f32;
            let buf = r.upload(&x.to_le_bytes());
            let start = Instant::now();
            let rc = all_reduce(buf, buf, 1, FP32, SUM, r.comm, r.stream);
            assert_eq!((rc, r.sync()), (SUCCESS, 0), "after {what}");
            assert!(
                start.elapsed() < Duration::from_millis(2500),
                "after {what}"
            );
            let got = r.download(buf, 4);
            sums.push(f32::from_le_bytes(got.try_into().unwrap()));
            r.free(buf);
        }
        r.free(a);
        r.free(b);
        (async_error(r.comm), sums)
    });
    let want: Vec<f32> = (1..=CASES.len()).map(|k| 6.0 * k as f32).collect();
    for (rank, (err, sums)) in outs.iter().enumerate() {
        assert_eq!(*err, SUCCESS, "rank {rank}: no exchange failed");
        assert_eq!(sums, &want, "rank {rank}");
    }
}
