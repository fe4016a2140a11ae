//! The recording shim and HCCL, continued: the count and displacement
//! arrays of V collectives, root infos as hashes, and communicator names
//! mapped through the replay's bijection.

mod record_hccl_support;

use ascendcl_mock::Recorder;
use ascendcl_mock::trace::Trace;
use ascendcl_sys::*;
use record_hccl_support::*;

#[test]
fn a_v_collective_records_its_count_and_displacement_arrays_and_a_changed_count_diverges() {
    let r = Rec::start("gatherv");
    let (codes, values) = program(r.lib, r.hccl, Work::GatherV);
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    assert_eq!(values, [2.0, 2.0], "rank 1's block comes first");
    Recorder::get().stop();
    let t = Trace::read(&r.path).unwrap();
    let half = COUNT / 2;
    for v in t.records.iter().filter(|r| r.function == "HcclAllGatherV") {
        let s = |k: &str| v.args.get(k).and_then(|v| v.as_str()).map(str::to_string);
        assert_eq!(
            s("recvCounts"),
            Some(format!("[{half},{half}]")),
            "{:?}",
            v.args
        );
        assert_eq!(s("recvDispls"), Some(format!("[{half},0]")));
    }
    let mock = replay_strictly(&r.path);
    let (codes, _) = program(r.lib, r.hccl, Work::GatherV);
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");

    let text = std::fs::read_to_string(&r.path).unwrap();
    let edited = text.replacen(
        &format!("\"recvDispls\":\"[{half},0]\""),
        &format!("\"recvDispls\":\"[0,{half}]\""),
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&r.path, edited).unwrap();
    let mock = replay_strictly(&r.path);
    let _ = program(r.lib, r.hccl, Work::GatherV);
    let status = mock.replay_status();
    let d = status.divergence.as_ref().expect("a divergence");
    assert_eq!(d.actual.function, "HcclAllGatherV", "{}", status.text);
    assert!(d.reason.contains("recvDispls"), "{}", status.text);
}

#[test]
fn a_root_info_is_recorded_as_a_hash_that_its_init_repeats_and_replay_ignores() {
    let r = Rec::start("rootinfo");
    // SAFETY: a zeroed root info is a valid out-buffer; comm is an
    // out-pointer; the one-rank communicator is destroyed once.
    let codes = unsafe {
        let mut info: HcclRootInfo = std::mem::zeroed();
        let mut comm: HcclComm = std::ptr::null_mut();
        let a = r.lib.aclrtSetDevice(0).unwrap();
        let b = r.hccl.HcclGetRootInfo(&mut info).unwrap().0 as i32;
        let c = r
            .hccl
            .HcclCommInitRootInfo(1, &info, 0, &mut comm)
            .unwrap()
            .0 as i32;
        let d = r.hccl.HcclCommDestroy(comm).unwrap().0 as i32;
        [a, b, c, d]
    };
    assert_eq!(codes, [OK; 4]);
    Recorder::get().stop();
    let t = Trace::read(&r.path).unwrap();
    let got = t
        .records
        .iter()
        .find(|r| r.function == "HcclGetRootInfo")
        .unwrap();
    let hash = got
        .output("rootInfo")
        .and_then(|v| v.as_str())
        .unwrap()
        .to_string();
    assert!(
        hash.starts_with("fnv1a64:") && hash.len() == 8 + 16,
        "{hash}"
    );
    let init = t
        .records
        .iter()
        .find(|r| r.function == "HcclCommInitRootInfo")
        .unwrap();
    assert_eq!(
        init.arg("rootInfo").and_then(|v| v.as_str()),
        Some(hash.as_str())
    );
    // another root info in the trace: still the same call
    let text = std::fs::read_to_string(&r.path).unwrap();
    std::fs::write(&r.path, text.replace(&hash, "fnv1a64:0123456789abcdef")).unwrap();
    let mock = replay_strictly(&r.path);
    // SAFETY: as above.
    unsafe {
        let mut info: HcclRootInfo = std::mem::zeroed();
        let mut comm: HcclComm = std::ptr::null_mut();
        r.lib.aclrtSetDevice(0).unwrap();
        r.hccl.HcclGetRootInfo(&mut info).unwrap();
        r.hccl.HcclCommInitRootInfo(1, &info, 0, &mut comm).unwrap();
        r.hccl.HcclCommDestroy(comm).unwrap();
    }
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
}

#[test]
fn communicator_names_are_mapped_like_streams_so_ranks_numbered_in_another_order_replay() {
    let r = Rec::start("comm-order");
    let (codes, _) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    Recorder::get().stop();
    // as if the other rank's communicator had been numbered first
    let text = std::fs::read_to_string(&r.path).unwrap();
    let swapped = text
        .replace("\"comm1\"", "\"commX\"")
        .replace("\"comm2\"", "\"comm1\"")
        .replace("\"commX\"", "\"comm2\"");
    assert_ne!(swapped, text);
    std::fs::write(&r.path, swapped).unwrap();
    let mock = replay_strictly(&r.path);
    let (codes, values) = program(r.lib, r.hccl, Work::AllReduce(COUNT));
    let status = mock.replay_status();
    assert!(status.is_complete(), "{}", status.text);
    assert!(codes.iter().all(|&c| c == OK), "{codes:?}");
    assert_eq!(values, [3.0, 3.0]);
}
