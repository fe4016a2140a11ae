//! Fault injection and the journal cover every HCCL function of the mock:
//! an injected fault makes the call return the injected code before it does
//! anything (no communicator, no hub, no queued work), the journal records
//! the call with its arguments and result, and the next call works.

mod common;
mod hccl_support;

use ascendcl_mock::{Fault, Resource};
use hccl_support::*;

const CODE: i32 = 4; // HCCL_E_INTERNAL

type A2a = unsafe extern "C" fn(Ptr, u64, i32, Ptr, u64, i32, Comm, Ptr) -> i32;
type V = unsafe extern "C" fn(Ptr, u64, Ptr, *const u64, *const u64, i32, Comm, Ptr) -> i32;
type Rsv = unsafe extern "C" fn(Ptr, *const u64, *const u64, Ptr, u64, i32, i32, Comm, Ptr) -> i32;
type A2aV = unsafe extern "C" fn(
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
type A2aVc = unsafe extern "C" fn(Ptr, *const u64, i32, Ptr, i32, Comm, Ptr) -> i32;
type Batch = unsafe extern "C" fn(Ptr, u32, Comm, Ptr) -> i32;

/// Calls the collective `name` once on a one-rank communicator.
fn call(name: &str, comm: Comm, stream: Ptr, a: Ptr, b: Ptr) -> i32 {
    let one = [1u64];
    let zero = [0u64];
    // SAFETY: `a` and `b` are 64-byte device buffers; every count below fits;
    // arrays hold one element (one rank).
    unsafe {
        match name {
            "HcclAllReduce" => f::<AllReduce>(name)(a, b, 4, FP32, SUM, comm, stream),
            "HcclBroadcast" => f::<Broadcast>(name)(a, 4, FP32, 0, comm, stream),
            "HcclAllGather" => f::<AllGather>(name)(a, b, 4, FP32, comm, stream),
            "HcclReduceScatter" => f::<ReduceScatter>(name)(a, b, 4, FP32, SUM, comm, stream),
            "HcclReduce" => f::<Reduce>(name)(a, b, 4, FP32, SUM, 0, comm, stream),
            "HcclScatter" => f::<Scatter>(name)(a, b, 4, FP32, 0, comm, stream),
            "HcclAlltoAll" => f::<A2a>(name)(a, 4, FP32, b, 4, FP32, comm, stream),
            "HcclAllGatherV" => {
                f::<V>(name)(a, 1, b, one.as_ptr(), zero.as_ptr(), FP32, comm, stream)
            }
            "HcclReduceScatterV" => f::<Rsv>(name)(
                a,
                one.as_ptr(),
                zero.as_ptr(),
                b,
                1,
                FP32,
                SUM,
                comm,
                stream,
            ),
            "HcclAlltoAllV" => f::<A2aV>(name)(
                a,
                one.as_ptr(),
                zero.as_ptr(),
                FP32,
                b,
                one.as_ptr(),
                zero.as_ptr(),
                FP32,
                comm,
                stream,
            ),
            "HcclAlltoAllVC" => f::<A2aVc>(name)(a, one.as_ptr(), FP32, b, FP32, comm, stream),
            "HcclBarrier" => f::<hccl_support::Barrier>(name)(comm, stream),
            // point to point needs a peer: with one rank only the fault path runs
            "HcclSend" | "HcclRecv" => f::<SendRecv>(name)(a, 4, FP32, 0, comm, stream),
            "HcclBatchSendRecv" => f::<Batch>(name)(std::ptr::null_mut(), 0, comm, stream),
            _ => unreachable!("{name}"),
        }
    }
}

const COLLECTIVES: [&str; 12] = [
    "HcclAllReduce",
    "HcclBroadcast",
    "HcclAllGather",
    "HcclReduceScatter",
    "HcclReduce",
    "HcclScatter",
    "HcclAlltoAll",
    "HcclAllGatherV",
    "HcclReduceScatterV",
    "HcclAlltoAllV",
    "HcclAlltoAllVC",
    "HcclBarrier",
];

#[test]
fn an_injected_fault_fails_each_collective_once_without_queuing_and_the_retry_runs() {
    let t = fresh(5000, 5000);
    let comms = init_all(1);
    assert_eq!(t.set_device(0), 0);
    let stream = t.create_stream().unwrap();
    let a = t.malloc(64, 0).unwrap();
    let b = t.malloc(64, 0).unwrap();
    for name in COLLECTIVES
        .into_iter()
        .chain(["HcclSend", "HcclRecv", "HcclBatchSendRecv"])
    {
        t.s.inject(&Fault::nth(name, 1, CODE).with_message("injected by the sweep"))
            .unwrap();
        let seq = t.s.journal_len();
        assert_eq!(call(name, comms[0], stream, a, b), CODE, "{name}");
        assert!(!t.s.journal_since(seq).is_empty());
        let entry =
            t.s.journal()
                .into_iter()
                .rev()
                .find(|e| e.function() == name)
                .unwrap();
        assert_eq!(entry.ret(), CODE, "{name}: journaled with its result");
        assert!(
            entry.line.contains("\"comm\""),
            "{name}: journaled with its arguments: {}",
            entry.line
        );
        assert!(
            t.stream_done(stream),
            "{name}: the faulted call queued nothing"
        );
        if COLLECTIVES.contains(&name) {
            assert_eq!(
                call(name, comms[0], stream, a, b),
                SUCCESS,
                "{name}: the retry"
            );
            assert_eq!(t.sync_stream(stream), 0, "{name}");
        }
    }
    assert_eq!(t.free(a), 0);
    assert_eq!(t.free(b), 0);
    assert_eq!(t.destroy_stream(stream), 0);
    assert_eq!(destroy(comms[0]), SUCCESS);
}

#[test]
fn an_injected_fault_on_any_init_creates_no_communicator_and_no_rendezvous() {
    let t = fresh(5000, 5000);
    assert_eq!(t.set_device(0), 0);
    let mut info = RootInfo([0; 4108]);
    t.s.inject(&Fault::nth("HcclGetRootInfo", 1, CODE)).unwrap();
    // SAFETY: a writable root info.
    let rc = unsafe { f::<GetRootInfo>("HcclGetRootInfo")(&mut info) };
    assert_eq!(rc, CODE);
    assert!(info.0.iter().all(|&b| b == 0), "nothing was written");
    // SAFETY: as above.
    let rc = unsafe { f::<GetRootInfo>("HcclGetRootInfo")(&mut info) };
    assert_eq!(rc, SUCCESS);
    let mut comm: Comm = std::ptr::null_mut();
    for name in ["HcclCommInitRootInfo", "HcclCommInitAll"] {
        t.s.inject(&Fault::nth(name, 1, CODE)).unwrap();
        let mut devs = [0i32];
        // SAFETY: valid root info, device list and out-pointers.
        let rc = unsafe {
            if name == "HcclCommInitAll" {
                f::<InitAll>(name)(1, devs.as_mut_ptr(), &mut comm)
            } else {
                f::<InitRootInfo>(name)(1, &info, 0, &mut comm)
            }
        };
        assert_eq!(rc, CODE, "{name}");
        assert!(comm.is_null(), "{name}");
        assert_eq!(t.s.live(Resource::HcclComm), 0, "{name}");
    }
    // the root info still works for a one-rank communicator
    // SAFETY: as above.
    let rc = unsafe { f::<InitRootInfo>("HcclCommInitRootInfo")(1, &info, 0, &mut comm) };
    assert_eq!(rc, SUCCESS);
    for name in ["HcclGetRankSize", "HcclGetRankId", "HcclGetCommAsyncError"] {
        t.s.inject(&Fault::nth(name, 1, CODE)).unwrap();
        let mut v = 0u32;
        // SAFETY: a live comm and an out-pointer of 4 bytes.
        assert_eq!(unsafe { f::<CommU32>(name)(comm, &mut v) }, CODE, "{name}");
    }
    assert_eq!(destroy(comm), SUCCESS);
    assert_eq!(t.s.live(Resource::HcclComm), 0);
    assert_eq!(t.s.call_count("HcclCommInitRootInfo"), 2);
}

#[test]
fn an_injected_fault_reaches_the_remaining_communicator_functions_by_name() {
    let t = fresh(5000, 5000);
    let comms = init_all(1);
    type Group = unsafe extern "C" fn() -> i32;
    type Set = unsafe extern "C" fn(i32, i32) -> i32;
    type Get = unsafe extern "C" fn(i32, *mut i32) -> i32;
    type Name = unsafe extern "C" fn(Comm, *mut u8) -> i32;
    type Config = unsafe extern "C" fn(u32, *const RootInfo, u32, *const u8, *mut Comm) -> i32;
    type Cluster = unsafe extern "C" fn(*const std::ffi::c_char, u32, *mut Comm) -> i32;
    type ClusterConfig =
        unsafe extern "C" fn(*const std::ffi::c_char, u32, *const u8, *mut Comm) -> i32;
    let mut name = [0u8; 128];
    let mut v = 0i32;
    let info = RootInfo([0; 4108]);
    let config = [0u8; 4096];
    let mut comm: Comm = std::ptr::null_mut();
    let (vp, np, cp): (*mut i32, *mut u8, *mut Comm) = (&mut v, name.as_mut_ptr(), &mut comm);
    let call = |fname: &str| -> i32 {
        // SAFETY: valid pointers of the sizes the C functions read and write;
        // the injected fault returns before any argument is used.
        unsafe {
            match fname {
                "HcclGroupStart" | "HcclGroupEnd" => f::<Group>(fname)(),
                "HcclSetConfig" => f::<Set>(fname)(0, 0),
                "HcclGetConfig" => f::<Get>(fname)(0, vp),
                "HcclGetCommName" => f::<Name>(fname)(comms[0], np),
                "HcclCommInitRootInfoConfig" => {
                    f::<Config>(fname)(1, &info, 0, config.as_ptr(), cp)
                }
                "HcclCommInitClusterInfo" => f::<Cluster>(fname)(c"x".as_ptr(), 0, cp),
                "HcclCommInitClusterInfoConfig" => {
                    f::<ClusterConfig>(fname)(c"x".as_ptr(), 0, config.as_ptr(), cp)
                }
                "HcclBarrier" => f::<hccl_support::Barrier>(fname)(comms[0], std::ptr::null_mut()),
                _ => destroy(comms[0]),
            }
        }
    };
    for fname in [
        "HcclGroupStart",
        "HcclGroupEnd",
        "HcclSetConfig",
        "HcclGetConfig",
        "HcclGetCommName",
        "HcclCommInitRootInfoConfig",
        "HcclCommInitClusterInfo",
        "HcclCommInitClusterInfoConfig",
        "HcclBarrier",
        "HcclCommDestroy",
    ] {
        t.s.inject(&Fault::nth(fname, 1, CODE)).unwrap();
        assert_eq!(call(fname), CODE, "{fname}");
        assert_eq!(t.s.call_count(fname), 1, "{fname}");
    }
    assert!(
        comm.is_null() && v == 0 && name[0] == 0,
        "faulted calls write nothing"
    );
    assert_eq!(
        t.s.live(Resource::HcclComm),
        1,
        "the faulted destroy left it alive"
    );
    assert_eq!(destroy(comms[0]), SUCCESS);
}
