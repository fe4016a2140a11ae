//! How the HCCL mock fails: ranks that disagree on a collective, a rank that
//! never arrives, an init some ranks never join, a communicator destroyed
//! with work queued. Every failure reaches every rank as an error (a failed
//! stream and the communicator's async error) within the scaled-down
//! timeouts, never as a hang.

mod common;
mod hccl_support;

use std::time::{Duration, Instant};

use ascendcl_mock::Resource;
use hccl_support::*;

const N: u32 = 3;

/// One AllReduce per rank with per-rank arguments; returns each rank's
/// (call status, synchronize status, async error) and the synchronize's
/// error message (messages are per thread).
fn allreduce_each(
    t: &common::T,
    args: impl Fn(u32) -> (u64, i32, i32) + Sync,
) -> Vec<((i32, i32, i32), String)> {
    ranks(t, N, |r| {
        let (count, dtype, op) = args(r.rank);
        let send = r.upload(&[1; 64]);
        let recv = r.upload(&[0; 64]);
        // SAFETY: 64-byte buffers hold every count used here.
        let rc = unsafe {
            f::<AllReduce>("HcclAllReduce")(send, recv, count, dtype, op, r.comm, r.stream)
        };
        let sync = r.sync();
        let msg = r.t.recent_msg().unwrap_or_default();
        let out = ((rc, sync, async_error(r.comm)), msg);
        r.free(send);
        r.free(recv);
        out
    })
}

#[test]
fn a_count_dtype_or_op_mismatch_fails_the_stream_and_sets_the_async_error_on_every_rank() {
    let t = fresh(5000, 5000);
    type Args = fn(u32) -> (u64, i32, i32);
    let cases: [(&str, Args); 3] = [
        ("count", |r| (if r == 2 { 6 } else { 5 }, FP32, SUM)),
        ("dtype", |r| (5, if r == 1 { INT32 } else { FP32 }, SUM)),
        ("op", |r| (5, FP32, if r == 0 { MAX } else { SUM })),
    ];
    for (what, args) in cases {
        let start = Instant::now();
        let res = allreduce_each(&t, args);
        for (rank, ((rc, sync, err), msg)) in res.iter().enumerate() {
            assert_eq!(
                *rc, SUCCESS,
                "{what}: the call itself only queues (rank {rank})"
            );
            assert_eq!(*sync, STREAM_FAILED, "{what}: rank {rank}'s stream fails");
            assert_eq!(*err, E_PARA, "{what}: rank {rank}'s async error");
            assert!(
                msg.contains("disagree") && msg.contains(what),
                "{what}: the message says why: {msg}"
            );
        }
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{what}: detected at once, not by a timeout"
        );
    }
}

#[test]
fn a_root_or_kind_mismatch_is_an_error_on_every_rank_and_breaks_later_collectives() {
    let t = fresh(5000, 5000);
    let res = ranks(&t, N, |r| {
        let buf = r.upload(&[0; 16]);
        // SAFETY: 16-byte buffer holds 4 f32.
        let rc = unsafe {
            if r.rank == 1 {
                f::<AllReduce>("HcclAllReduce")(buf, buf, 4, FP32, SUM, r.comm, r.stream)
            } else {
                f::<Broadcast>("HcclBroadcast")(buf, 4, FP32, r.rank, r.comm, r.stream)
            }
        };
        let first = (rc, r.sync());
        // the ranks are out of step: every later exchange fails too
        // SAFETY: as above.
        let rc = unsafe { f::<Broadcast>("HcclBroadcast")(buf, 4, FP32, 0, r.comm, r.stream) };
        let second = (rc, r.sync(), async_error(r.comm));
        r.free(buf);
        (first, second)
    });
    for (rank, ((rc, sync), (rc2, sync2, err))) in res.into_iter().enumerate() {
        assert_eq!((rc, sync), (SUCCESS, STREAM_FAILED), "rank {rank}");
        assert_eq!(
            (rc2, sync2, err),
            (SUCCESS, STREAM_FAILED, E_PARA),
            "rank {rank}"
        );
    }
}

#[test]
fn a_rank_that_never_arrives_times_the_others_out_after_the_exec_timeout() {
    let t = fresh(5000, 300);
    let start = Instant::now();
    let res = ranks(&t, N, |r| {
        let buf = r.upload(&[0; 16]);
        let out = if r.rank == 2 {
            // wait until the others have timed out, then arrive: too late
            std::thread::sleep(Duration::from_millis(800));
            // SAFETY: 16-byte buffer holds 4 f32.
            let rc = unsafe {
                f::<AllReduce>("HcclAllReduce")(buf, buf, 4, FP32, SUM, r.comm, r.stream)
            };
            (rc, r.sync(), async_error(r.comm), String::new())
        } else {
            // SAFETY: as above.
            let rc = unsafe {
                f::<AllReduce>("HcclAllReduce")(buf, buf, 4, FP32, SUM, r.comm, r.stream)
            };
            let sync = r.sync();
            (
                rc,
                sync,
                async_error(r.comm),
                r.t.recent_msg().unwrap_or_default(),
            )
        };
        r.free(buf);
        out
    });
    for (rank, (rc, sync, err, msg)) in res.iter().enumerate() {
        assert_eq!(
            (*rc, *sync, *err),
            (SUCCESS, STREAM_TIMEOUT, E_TIMEOUT),
            "rank {rank}"
        );
        if rank < 2 {
            assert!(
                msg.contains("HCCL_EXEC_TIMEOUT") && msg.contains("not arrived: 2"),
                "{msg}"
            );
        }
    }
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "bounded by the scaled timeout"
    );
}

/// Root info made on device 0 of this thread.
fn root_info(t: &common::T) -> Box<RootInfo> {
    assert_eq!(t.set_device(0), 0);
    let mut info = Box::new(RootInfo([0; 4108]));
    // SAFETY: `info` is a writable 4108-byte root info.
    let rc = unsafe { f::<GetRootInfo>("HcclGetRootInfo")(&mut *info) };
    assert_eq!(rc, SUCCESS);
    info
}

/// The rendezvous socket's directory named in a root info.
fn socket_dir(info: &RootInfo) -> std::path::PathBuf {
    let path = &info.0[28..28 + 108];
    let end = path.iter().position(|&b| b == 0).unwrap();
    let p = std::path::PathBuf::from(std::str::from_utf8(&path[..end]).unwrap());
    p.parent().unwrap().to_path_buf()
}

/// Ranks `joining` of `n` call HcclCommInitRootInfo, each on its thread and
/// device; returns their statuses and comms.
fn init_ranks(t: &common::T, info: &RootInfo, n: u32, joining: &[u32]) -> Vec<(i32, usize)> {
    std::thread::scope(|sc| {
        let hs: Vec<_> = joining
            .iter()
            .map(|&rank| {
                let info = info as *const RootInfo as usize;
                sc.spawn(move || {
                    assert_eq!(t.set_device(rank as i32), 0);
                    let mut comm: Comm = std::ptr::null_mut();
                    // SAFETY: `info` outlives the scope; `comm` is an out-pointer.
                    let rc = unsafe {
                        f::<InitRootInfo>("HcclCommInitRootInfo")(
                            n,
                            info as *const RootInfo,
                            rank,
                            &mut comm,
                        )
                    };
                    (rc, comm as usize)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn init_from_root_info_joins_every_rank_and_the_socket_goes_with_the_last_comm() {
    let t = fresh(5000, 5000);
    let info = root_info(&t);
    let dir = socket_dir(&info);
    assert!(dir.exists(), "the hub listens in {dir:?}");
    let res = init_ranks(&t, &info, N, &[0, 1, 2]);
    assert_eq!(t.s.live(Resource::HcclComm), 3);
    for (rank, &(rc, comm)) in res.iter().enumerate() {
        assert_eq!(rc, SUCCESS, "rank {rank}");
        let (mut size, mut id) = (0u32, 99u32);
        // SAFETY: a live comm and out-pointers.
        unsafe {
            assert_eq!(
                f::<CommU32>("HcclGetRankSize")(comm as Comm, &mut size),
                SUCCESS
            );
            assert_eq!(
                f::<CommU32>("HcclGetRankId")(comm as Comm, &mut id),
                SUCCESS
            );
        }
        assert_eq!((size, id), (N, rank as u32));
    }
    for &(_, comm) in &res {
        assert_eq!(destroy(comm as Comm), SUCCESS);
    }
    assert_eq!(t.s.live(Resource::HcclComm), 0);
    let deadline = Instant::now() + Duration::from_secs(2);
    while dir.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!dir.exists(), "no socket directory is left behind");
}

#[test]
fn an_init_that_not_every_rank_joins_fails_with_timeout_on_every_waiting_rank() {
    let t = fresh(300, 5000);
    let info = root_info(&t);
    let dir = socket_dir(&info);
    let start = Instant::now();
    let res = init_ranks(&t, &info, N, &[0, 2]);
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "bounded by the connect timeout"
    );
    for (rc, comm) in res {
        assert_eq!((rc, comm), (E_TIMEOUT, 0));
    }
    assert_eq!(t.s.live(Resource::HcclComm), 0);
    let deadline = Instant::now() + Duration::from_secs(2);
    while dir.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!dir.exists(), "the hub gave up and removed its socket");
}

#[test]
fn destroying_a_comm_with_queued_collectives_fails_them_at_once_instead_of_waiting() {
    let t = fresh(5000, 10_000);
    let comms = init_all(2);
    assert_eq!(t.set_device(0), 0);
    let stream = t.create_stream().unwrap();
    let buf = t.malloc(64, 0).unwrap();
    // Rank 1 never joins these: they wait for the 10 s exec timeout.
    // SAFETY: a 64-byte buffer holds 4 f32; live comm and stream.
    unsafe {
        assert_eq!(
            f::<AllReduce>("HcclAllReduce")(buf, buf, 4, FP32, SUM, comms[0], stream),
            SUCCESS
        );
        assert_eq!(
            f::<AllReduce>("HcclAllReduce")(buf, buf, 4, FP32, MAX, comms[0], stream),
            SUCCESS
        );
    }
    std::thread::sleep(Duration::from_millis(50)); // the first one is at the hub
    let start = Instant::now();
    assert_eq!(destroy(comms[0]), SUCCESS);
    assert_eq!(t.sync_stream(stream), STREAM_FAILED);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "not the 10 s timeout"
    );
    let msg = t.recent_msg().unwrap_or_default();
    assert!(msg.contains("destroyed"), "{msg}");
    assert_eq!(t.s.live(Resource::HcclComm), 1);
    // no call on it any more: a destroyed handle is refused
    let mut size = 0u32;
    // SAFETY: probing a destroyed handle is safe with the mock (checked).
    let rc = unsafe { f::<CommU32>("HcclGetRankSize")(comms[0], &mut size) };
    assert_eq!(rc, E_PARA);
    assert_eq!(destroy(comms[1]), SUCCESS);
    assert_eq!(t.s.live(Resource::HcclComm), 0);
    assert_eq!(t.free(buf), 0);
    assert_eq!(t.destroy_stream(stream), 0);
}

#[test]
fn a_destroy_refused_with_again_leaves_the_comm_usable_and_a_retry_destroys_it() {
    // The mock holds its lock through every HCCL call, so another thread's
    // call never overlaps a destroy; HCCL_E_AGAIN is reached by injection.
    let t = fresh(5000, 5000);
    let comms = init_all(1);
    t.s.inject(&ascendcl_mock::Fault::nth("HcclCommDestroy", 1, E_AGAIN))
        .unwrap();
    assert_eq!(destroy(comms[0]), E_AGAIN);
    assert_eq!(t.s.live(Resource::HcclComm), 1);
    let mut size = 0u32;
    // SAFETY: a live comm.
    let rc = unsafe { f::<CommU32>("HcclGetRankSize")(comms[0], &mut size) };
    assert_eq!(rc, SUCCESS);
    assert_eq!(destroy(comms[0]), SUCCESS);
    assert_eq!(t.s.live(Resource::HcclComm), 0);
}

#[test]
fn results_appear_only_after_the_stream_ran_the_collective() {
    let t = fresh(5000, 5000);
    t.s.set_stream_delay(Duration::from_millis(100));
    let res = ranks(&t, 2, |r| {
        let buf = r.upload(&2f32.to_le_bytes());
        // SAFETY: one f32.
        let rc =
            unsafe { f::<AllReduce>("HcclAllReduce")(buf, buf, 1, FP32, SUM, r.comm, r.stream) };
        let queued = !r.t.stream_done(r.stream);
        let sync = r.sync();
        let out = r.download(buf, 4);
        r.free(buf);
        (rc, queued, sync, out)
    });
    for (rc, queued, sync, out) in res {
        assert_eq!(rc, SUCCESS);
        assert!(queued, "the call returned before the work ran");
        assert_eq!(sync, 0);
        assert_eq!(out, 4f32.to_le_bytes());
    }
}
