//! Conformance with CANN 8.5.0 (hicann/runtime, tag v8.5.0): model
//! subscription and the getters of its records (`acl/acl_prof.h`), served by
//! the mock's `libmsprofiler.so`. Sources under
//! src/dfx/msprof/collector/dvvp/: msprofiler/prof_api_common.cpp,
//! msprofiler/prof_acl_core.cpp, profimpl/adapter/src/msprofiler_acl_api.cpp,
//! analyze/src/op_desc_parser.cpp, analyze/inc/data_struct.h and
//! common/utils/utils.cpp. Each test cites its lines.

mod common;

use std::ffi::{c_char, c_void};

use ascendcl_mock::Misuse;
use ascendcl_sys::prof::{Profiler, profiler_for};
use ascendcl_sys::*;
use common::*;

fn prof(t: &T) -> &'static Profiler {
    profiler_for(Some(t.lib)).expect("the mock's libmsprofiler.so beside its libascendcl.so")
}

const INVALID_PARAM: i32 = 100000;
const RECORD: usize = 80;

/// CRC-32C, reflected, from !0, not inverted: the record signature of
/// utils.cpp:1253-1303 (its table is CRC-32C's; written here bit by bit,
/// independently of the mock's C).
fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// One record in data_struct.h:192-205's layout, signed.
#[allow(clippy::too_many_arguments)]
fn record(
    model: u32,
    flag: u32,
    thread: u32,
    op_index: u64,
    duration: u64,
    start: u64,
    end: u64,
) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[4..8].copy_from_slice(&model.to_ne_bytes());
    r[8..12].copy_from_slice(&flag.to_ne_bytes());
    r[12..16].copy_from_slice(&thread.to_ne_bytes());
    r[16..24].copy_from_slice(&op_index.to_ne_bytes());
    r[24..32].copy_from_slice(&duration.to_ne_bytes());
    r[32..40].copy_from_slice(&start.to_ne_bytes());
    r[40..48].copy_from_slice(&end.to_ne_bytes());
    r[72..76].copy_from_slice(&3u32.to_ne_bytes()); // device id
    let sig = crc32c(&r[4..]);
    r[0..4].copy_from_slice(&sig.to_ne_bytes());
    r
}

/// The checksum is the standard one: CRC-32C's check value for "123456789"
/// is 0xE3069283 after the usual final inversion, which the profiler leaves
/// out; and the first non-zero entry of utils.cpp:1263's table is 0xF26B8303,
/// the checksum's step for the byte 1 from 0.
#[test]
fn the_record_signature_is_crc32c_without_the_final_inversion() {
    assert_eq!(!crc32c(b"123456789"), 0xE306_9283);
    let mut step = 1u32;
    for _ in 0..8 {
        step = if step & 1 == 1 {
            (step >> 1) ^ 0x82F6_3B78
        } else {
            step >> 1
        };
    }
    assert_eq!(step, 0xF26B_8303);
}

fn data(p: &[u8]) -> *const c_void {
    p.as_ptr().cast()
}

/// prof_api_common.cpp:21-46: a null fd or a time switch other than 0/1 ->
/// NULL; the metrics are not checked. :48-57: null -> 100000. A destroyed
/// or made-up config is refused by the mock and counted.
#[test]
fn subscribe_configs_check_the_fd_and_the_time_switch_and_are_destroyed_once() {
    let t = T::new();
    let p = prof(&t);
    let mut fd: i32 = 5;
    let fdp: *mut c_void = (&raw mut fd).cast();
    let metrics = aclprofAicoreMetrics::ACL_AICORE_NONE;
    // SAFETY: the mock only stores `fd`; it never reads through it here.
    unsafe {
        assert!(
            p.aclprofCreateSubscribeConfig(1, metrics, std::ptr::null_mut())
                .unwrap()
                .is_null()
        );
        assert!(
            p.aclprofCreateSubscribeConfig(2, metrics, fdp)
                .unwrap()
                .is_null()
        );
        assert!(
            p.aclprofCreateSubscribeConfig(-1, metrics, fdp)
                .unwrap()
                .is_null()
        );
        let odd = p
            .aclprofCreateSubscribeConfig(0, aclprofAicoreMetrics::ACL_AICORE_MEMORY_UB, fdp)
            .unwrap();
        assert!(!odd.is_null());
        let c = p.aclprofCreateSubscribeConfig(1, metrics, fdp).unwrap();
        assert!(!c.is_null());
        assert_eq!(
            p.aclprofDestroySubscribeConfig(std::ptr::null()).unwrap(),
            INVALID_PARAM
        );
        assert_eq!(p.aclprofDestroySubscribeConfig(c).unwrap(), OK);
        assert_eq!(p.aclprofDestroySubscribeConfig(c).unwrap(), INVALID_PARAM);
        t.assert_misuse(Misuse::DoubleFree, 1);
        assert_eq!(p.aclprofDestroySubscribeConfig(odd).unwrap(), OK);
    }
}

/// msprofiler_acl_api.cpp:405-425, 461-469: the model id is looked up first;
/// an id no loaded model has -> ACL_ERROR_INVALID_MODEL_ID (100011), before
/// the config is looked at. The mock loads no offline models, so every id
/// is refused this way (docs/mock-conformance.md).
#[test]
fn subscribing_a_model_that_is_not_loaded_is_refused_with_100011() {
    let t = T::with_device(0);
    let p = prof(&t);
    let mut fd: i32 = 5;
    // SAFETY: as above; a null config is allowed to reach the model check.
    unsafe {
        let c = p
            .aclprofCreateSubscribeConfig(
                1,
                aclprofAicoreMetrics::ACL_AICORE_NONE,
                (&raw mut fd).cast(),
            )
            .unwrap();
        assert_eq!(
            p.aclprofModelSubscribe(1, c).unwrap(),
            ACL_ERROR_INVALID_MODEL_ID
        );
        assert_eq!(
            p.aclprofModelSubscribe(7, std::ptr::null()).unwrap(),
            ACL_ERROR_INVALID_MODEL_ID
        );
        assert_eq!(
            p.aclprofModelUnSubscribe(1).unwrap(),
            ACL_ERROR_INVALID_MODEL_ID
        );
        assert_eq!(p.aclprofDestroySubscribeConfig(c).unwrap(), OK);
    }
    assert_eq!(ACL_ERROR_INVALID_MODEL_ID, 100011);
    assert_eq!(t.reset_device(0), OK);
    t.assert_clean(0);
}

/// op_desc_parser.cpp:39-56, 300-317: records are 80 bytes; the data must be
/// a whole number of them, each signed; the count is the length over 80.
/// The length is taken as 32 bits.
#[test]
fn op_num_counts_whole_signed_records_and_refuses_anything_else() {
    let t = T::new();
    let p = prof(&t);
    let mut size = 0usize;
    let mut two = record(1, 0, 0, 1, 5, 10, 15).to_vec();
    two.extend_from_slice(&record(1, 0, 0, 2, 6, 20, 26));
    let mut n = 99u32;
    // SAFETY: every pointer covers the length given with it.
    unsafe {
        assert_eq!(p.aclprofGetOpDescSize(&mut size).unwrap(), OK);
        assert_eq!(size, RECORD);
        assert_eq!(
            p.aclprofGetOpDescSize(std::ptr::null_mut()).unwrap(),
            INVALID_PARAM
        );
        assert_eq!(
            p.aclprofGetOpNum(data(&two), two.len(), &mut n).unwrap(),
            OK
        );
        assert_eq!(n, 2);
        assert_eq!(p.aclprofGetOpNum(data(&two), 0, &mut n).unwrap(), OK);
        assert_eq!(n, 0);
        // The sample's "Hello\0": not a whole record.
        let hello = b"Hello\0";
        n = 7;
        assert_eq!(
            p.aclprofGetOpNum(data(hello), hello.len(), &mut n).unwrap(),
            INVALID_PARAM
        );
        assert_eq!(n, 7, "untouched on failure");
        assert_eq!(
            p.aclprofGetOpNum(std::ptr::null(), 80, &mut n).unwrap(),
            INVALID_PARAM
        );
        assert_eq!(
            p.aclprofGetOpNum(data(&two), 80, std::ptr::null_mut())
                .unwrap(),
            INVALID_PARAM
        );
        // One flipped bit of the second record breaks its signature.
        let mut bad = two.clone();
        bad[RECORD + 33] ^= 1;
        assert_eq!(
            p.aclprofGetOpNum(data(&bad), bad.len(), &mut n).unwrap(),
            INVALID_PARAM
        );
        // 2^32 + 80 bytes are read as 80: one record.
        if usize::BITS == 64 {
            assert_eq!(
                p.aclprofGetOpNum(data(&two), (1usize << 32) + RECORD, &mut n)
                    .unwrap(),
                OK
            );
            assert_eq!(n, 1);
        }
    }
}

/// op_desc_parser.cpp:27-33 (index + 1 records must fit), 58-71 (model id:
/// the error code in its place, msprofiler_acl_api.cpp:485-497), 240-285
/// (times: 0 on failure), 319-356 (flag and attribute: only null data and
/// the index are checked).
#[test]
fn record_getters_read_the_real_layout_and_give_their_failure_values() {
    let t = T::new();
    let p = prof(&t);
    let mut two = record(4, 0, 0, 1, 5, 10, 15).to_vec();
    two.extend_from_slice(&record(9, 2, 1234, 2, 6, 20, 26));
    let d = data(&two);
    let len = two.len();
    // SAFETY: every pointer covers the length given with it.
    unsafe {
        assert_eq!(p.aclprofGetModelId(d, len, 0).unwrap(), 4);
        assert_eq!(p.aclprofGetModelId(d, len, 1).unwrap(), 9);
        assert_eq!(
            p.aclprofGetModelId(d, len, 2).unwrap(),
            INVALID_PARAM as usize
        );
        assert_eq!(p.aclprofGetOpStart(d, len, 1).unwrap(), 20);
        assert_eq!(p.aclprofGetOpEnd(d, len, 1).unwrap(), 26);
        assert_eq!(p.aclprofGetOpDuration(d, len, 0).unwrap(), 5);
        assert_eq!(p.aclprofGetOpStart(d, len, u32::MAX).unwrap(), 0);
        assert_eq!(p.aclprofGetOpEnd(std::ptr::null(), len, 0).unwrap(), 0);
        assert_eq!(p.aclprofGetOpDuration(d, len - 1, 0).unwrap(), 0);
        assert_eq!(
            p.aclprofGetOpFlag(d, len, 1).unwrap(),
            aclprofSubscribeOpFlag::ACL_SUBSCRIBE_OP_THREAD
        );
        assert_eq!(
            p.aclprofGetOpFlag(d, len, 5).unwrap(),
            aclprofSubscribeOpFlag::ACL_SUBSCRIBE_OP
        );
        assert_eq!(
            p.aclprofGetOpFlag(std::ptr::null(), len, 0).unwrap(),
            aclprofSubscribeOpFlag::ACL_SUBSCRIBE_NONE
        );
        let thread = p
            .aclprofGetOpAttriValue(
                d,
                len,
                1,
                aclprofSubscribeOpAttri::ACL_SUBSCRIBE_ATTRI_THREADID,
            )
            .unwrap();
        assert_eq!(std::ffi::CStr::from_ptr(thread).to_str().unwrap(), "1234");
        assert!(
            p.aclprofGetOpAttriValue(
                d,
                len,
                0,
                aclprofSubscribeOpAttri::ACL_SUBSCRIBE_ATTRI_THREADID
            )
            .unwrap()
            .is_null(),
            "record 0 is a plain op: no thread attribute"
        );
    }
}

/// op_desc_parser.cpp:89-215: type and name come from tables filled as
/// records are written and emptied as each is read. The mock writes no
/// record, so a well-formed record's lookup misses (100000) after the same
/// argument checks as the real parser's.
#[test]
fn type_and_name_getters_check_their_arguments_and_know_no_unwritten_op() {
    let t = T::new();
    let p = prof(&t);
    let one = record(1, 0, 0, 1, 5, 10, 15);
    let d = data(&one);
    let mut n = 0usize;
    let mut buf = [0 as c_char; 16];
    // SAFETY: every pointer covers the length given with it.
    unsafe {
        assert_eq!(
            p.aclprofGetOpTypeLen(d, RECORD, 0, &mut n).unwrap(),
            INVALID_PARAM
        );
        assert_eq!(
            p.aclprofGetOpNameLen(d, RECORD, 0, &mut n).unwrap(),
            INVALID_PARAM
        );
        assert_eq!(
            p.aclprofGetOpType(d, RECORD, 0, buf.as_mut_ptr(), buf.len())
                .unwrap(),
            INVALID_PARAM
        );
        assert_eq!(
            p.aclprofGetOpName(d, RECORD, 0, buf.as_mut_ptr(), 0)
                .unwrap(),
            INVALID_PARAM
        );
        assert_eq!(
            p.aclprofGetOpTypeLen(d, RECORD, 0, std::ptr::null_mut())
                .unwrap(),
            INVALID_PARAM
        );
    }
    assert_eq!(n, 0, "nothing written on failure");
    let journal = t.s.journal();
    let name = journal
        .iter()
        .rev()
        .find(|e| e.function() == "aclprofGetOpName")
        .unwrap();
    assert_eq!(name.ret(), INVALID_PARAM);
    let type_ = journal
        .iter()
        .rev()
        .find(|e| e.function() == "aclprofGetOpType")
        .unwrap();
    assert!(
        type_.message().is_some_and(|m| m.contains("op index 1")),
        "the miss names the op index: {:?}",
        type_.message()
    );
}
