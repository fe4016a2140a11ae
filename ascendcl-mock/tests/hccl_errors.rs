//! The HCCL mock's argument checks: what each call refuses before queuing
//! anything, with which code (hcomm/hccl sources where they decide, the
//! mock's documented rule where not: docs/mock-conformance.md, "HCCL").

mod common;
mod hccl_support;

use std::ffi::CStr;

use ascendcl_mock::{Misuse, Resource};
use hccl_support::*;

fn null() -> Ptr {
    std::ptr::null_mut()
}

#[test]
fn collectives_refuse_null_pointers_bad_dtypes_ops_roots_and_foreign_streams_without_queuing() {
    let t = fresh(5000, 5000);
    let comms = init_all(2);
    assert_eq!(t.set_device(0), 0);
    let s0 = t.create_stream().unwrap();
    let buf = t.malloc(64, 0).unwrap();
    let c = comms[0];
    let ar = |s: Ptr, r: Ptr, n: u64, dt: i32, op: i32, comm: Comm, st: Ptr| {
        // SAFETY: the mock checks every argument; buffers are 64 bytes.
        unsafe { f::<AllReduce>("HcclAllReduce")(s, r, n, dt, op, comm, st) }
    };
    assert_eq!(ar(null(), buf, 4, FP32, SUM, c, s0), E_PTR, "null sendBuf");
    assert_eq!(ar(buf, null(), 4, FP32, SUM, c, s0), E_PTR, "null recvBuf");
    assert_eq!(ar(buf, buf, 4, FP32, SUM, null(), s0), E_PTR, "null comm");
    assert_eq!(ar(buf, buf, 4, FP32, SUM, c, null()), E_PTR, "null stream");
    assert_eq!(
        ar(buf, buf, 4, 13, SUM, c, s0),
        E_NOT_SUPPORT,
        "dtype 13 is unassigned"
    );
    assert_eq!(
        ar(buf, buf, 4, 255, SUM, c, s0),
        E_NOT_SUPPORT,
        "reserved dtype"
    );
    assert_eq!(
        ar(buf, buf, 4, FP32, 7, c, s0),
        E_NOT_SUPPORT,
        "unknown reduction op (hcomm param_check.cc:303-316)"
    );
    assert_eq!(
        ar(buf, buf, 2, 12, SUM, c, s0),
        E_NOT_SUPPORT,
        "int128 moves but does not reduce"
    );
    assert_eq!(
        ar(null(), null(), 0, 99, 99, null(), null()),
        SUCCESS,
        "count 0 succeeds before any check"
    );
    let msg = t.recent_msg().unwrap_or_default();
    assert!(
        msg.contains("does not reduce"),
        "the latest failure's text: {msg}"
    );
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            f::<Broadcast>("HcclBroadcast")(buf, 4, FP32, 2, c, s0),
            E_PARA,
            "root out of range"
        );
        assert_eq!(
            f::<Reduce>("HcclReduce")(buf, buf, 4, FP32, SUM, 5, c, s0),
            E_PARA,
            "root out of range"
        );
        assert_eq!(
            f::<SendRecv>("HcclSend")(buf, 4, FP32, 0, c, s0),
            E_PARA,
            "send to itself"
        );
        assert_eq!(
            f::<SendRecv>("HcclRecv")(buf, 4, FP32, 2, c, s0),
            E_PARA,
            "peer out of range"
        );
    }
    // a stream of device 1 for the comm of device 0
    assert_eq!(t.set_device(1), 0);
    let s1 = t.create_stream().unwrap();
    let b1 = t.malloc(64, 0).unwrap();
    assert_eq!(
        ar(b1, b1, 4, FP32, SUM, c, s1),
        E_PARA,
        "stream of another device"
    );
    // device memory of another device than the stream's
    assert_eq!(
        ar(buf, b1, 4, FP32, SUM, comms[1], s1),
        E_PARA,
        "sendBuf on another device"
    );
    // host memory is not device memory
    let mut host = [0u8; 64];
    let hp = host.as_mut_ptr().cast();
    assert_eq!(
        ar(hp, b1, 4, FP32, SUM, comms[1], s1),
        E_PARA,
        "host memory"
    );
    assert_eq!(t.sync_stream(s1), 0, "nothing was queued");
    assert_eq!(t.s.call_count("HcclAllReduce"), 12);
    assert_eq!(t.free(b1), 0);
    assert_eq!(t.destroy_stream(s1), 0);
    assert_eq!(t.set_device(0), 0);
    assert_eq!(t.free(buf), 0);
    assert_eq!(t.destroy_stream(s0), 0);
    for c in comms {
        assert_eq!(destroy(c), SUCCESS);
    }
}

#[test]
fn init_refuses_null_pointers_bad_ranks_foreign_blobs_and_threads_without_a_device() {
    let t = fresh(5000, 5000);
    let mut info = RootInfo([0; 4108]);
    let mut comm: Comm = null();
    // SAFETY: the mock checks every argument.
    unsafe {
        assert_eq!(
            f::<GetRootInfo>("HcclGetRootInfo")(std::ptr::null_mut()),
            E_PTR
        );
        assert_eq!(
            f::<GetRootInfo>("HcclGetRootInfo")(&mut info),
            15,
            "no device set: HCCL_E_RUNTIME"
        );
        assert_eq!(t.set_device(0), 0);
        let init = f::<InitRootInfo>("HcclCommInitRootInfo");
        assert_eq!(
            init(2, &info, 0, &mut comm),
            E_PARA,
            "a blob HcclGetRootInfo did not make"
        );
        assert_eq!(f::<GetRootInfo>("HcclGetRootInfo")(&mut info), SUCCESS);
        assert_eq!(init(2, std::ptr::null(), 0, &mut comm), E_PTR);
        assert_eq!(init(2, &info, 0, std::ptr::null_mut()), E_PTR);
        assert_eq!(init(2, &info, 2, &mut comm), E_PARA, "rank >= nRanks");
        assert_eq!(init(0, &info, 0, &mut comm), E_PARA, "no ranks");
        let all = f::<InitAll>("HcclCommInitAll");
        let mut devs = [0, 0];
        let mut comms = [null(); 2];
        assert_eq!(
            all(2, devs.as_mut_ptr(), comms.as_mut_ptr()),
            E_PARA,
            "a device twice"
        );
        devs = [0, 99];
        assert_eq!(
            all(2, devs.as_mut_ptr(), comms.as_mut_ptr()),
            E_PARA,
            "not a device"
        );
        assert_eq!(all(0, devs.as_mut_ptr(), comms.as_mut_ptr()), E_PARA);
        assert_eq!(all(2, std::ptr::null_mut(), comms.as_mut_ptr()), E_PTR);
        type Cluster = unsafe extern "C" fn(*const std::ffi::c_char, u32, *mut Comm) -> i32;
        let rc = f::<Cluster>("HcclCommInitClusterInfo")(
            c"no-such-ranktable.json".as_ptr(),
            0,
            &mut comm,
        );
        assert_eq!(rc, E_PARA, "a rank table that cannot be read");
        // The Config form (hcomm's 02_rank_table sample calls it): the same
        // checks, and a config that must be there.
        type ClusterConfig =
            unsafe extern "C" fn(*const std::ffi::c_char, u32, *mut u8, *mut Comm) -> i32;
        let cluster_config = f::<ClusterConfig>("HcclCommInitClusterInfoConfig");
        let mut config = [0u8; 4096];
        let table = c"no-such-ranktable.json".as_ptr();
        assert_eq!(
            cluster_config(table, 0, std::ptr::null_mut(), &mut comm),
            E_PTR,
            "no config"
        );
        assert_eq!(
            cluster_config(table, 0, config.as_mut_ptr(), std::ptr::null_mut()),
            E_PTR
        );
        assert_eq!(
            cluster_config(table, 0, config.as_mut_ptr(), &mut comm),
            E_PARA,
            "a rank table that cannot be read"
        );
    }
    assert_eq!(t.s.live(Resource::HcclComm), 0);
}

#[test]
fn queries_on_null_unknown_or_destroyed_comms_are_errors_and_destroyed_handles_count_as_misuse() {
    let t = fresh(5000, 5000);
    let comms = init_all(2);
    let mut v = 0u32;
    let mut bogus = 0u64;
    let bogus: Comm = (&mut bogus as *mut u64).cast();
    // SAFETY: the mock checks handles against its registry before using them.
    unsafe {
        let size = f::<CommU32>("HcclGetRankSize");
        assert_eq!(size(null(), &mut v), E_PTR);
        assert_eq!(size(comms[1], std::ptr::null_mut()), E_PTR);
        assert_eq!(size(bogus, &mut v), E_PARA);
        assert_eq!(size(comms[1], &mut v), SUCCESS);
        assert_eq!(v, 2);
        let mut name = [0u8; 128];
        type Name = unsafe extern "C" fn(Comm, *mut u8) -> i32;
        assert_eq!(
            f::<Name>("HcclGetCommName")(comms[0], name.as_mut_ptr()),
            SUCCESS
        );
        let mut name1 = [0u8; 128];
        assert_eq!(
            f::<Name>("HcclGetCommName")(comms[1], name1.as_mut_ptr()),
            SUCCESS
        );
        assert_eq!(name, name1, "one name for every rank of a communicator");
        assert!(
            CStr::from_bytes_until_nul(&name)
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("aclmock-")
        );
    }
    assert_eq!(destroy(null()), SUCCESS, "a null comm is skipped");
    assert_eq!(destroy(comms[0]), SUCCESS);
    assert_eq!(destroy(comms[0]), E_PARA, "destroyed twice");
    assert!(t.s.misuse(Misuse::DestroyedHandle) >= 1);
    assert_eq!(destroy(comms[1]), SUCCESS);
}

#[test]
fn error_strings_name_every_code_and_the_determinism_switch_round_trips() {
    let _t = fresh(5000, 5000);
    let es = |c: i32| {
        // SAFETY: returns a static string for any code.
        let p = unsafe { f::<ErrorString>("HcclGetErrorString")(c) };
        // SAFETY: a NUL-terminated static string.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
    };
    let texts: Vec<String> = (0..=24).chain([1041]).map(es).collect();
    for (i, s) in texts.iter().enumerate() {
        assert!(!s.is_empty() && !s.contains("unknown"), "code {i}: {s}");
    }
    let unique: std::collections::HashSet<_> = texts.iter().collect();
    assert_eq!(unique.len(), texts.len(), "every code has its own text");
    assert!(es(12345).contains("unknown"));
    assert!(es(E_AGAIN).contains("again"));
    type Set = unsafe extern "C" fn(i32, i32) -> i32;
    type Get = unsafe extern "C" fn(i32, *mut i32) -> i32;
    let mut v = -1;
    // SAFETY: HcclConfigValue is a union of one i32, passed by value.
    unsafe {
        assert_eq!(f::<Set>("HcclSetConfig")(0, 1), SUCCESS);
        assert_eq!(f::<Get>("HcclGetConfig")(0, &mut v), SUCCESS);
        assert_eq!(v, 1);
        assert_eq!(f::<Set>("HcclSetConfig")(0, 3), E_PARA);
        assert_eq!(f::<Set>("HcclSetConfig")(1, 0), E_NOT_SUPPORT);
        assert_eq!(f::<Get>("HcclGetConfig")(0, std::ptr::null_mut()), E_PTR);
        assert_eq!(f::<Set>("HcclSetConfig")(0, 0), SUCCESS);
        type Group = unsafe extern "C" fn() -> i32;
        assert_eq!(f::<Group>("HcclGroupEnd")(), E_PARA, "end without start");
        assert_eq!(f::<Group>("HcclGroupStart")(), SUCCESS);
        assert_eq!(f::<Group>("HcclGroupEnd")(), SUCCESS);
    }
}
