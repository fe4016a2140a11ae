//! The mock's `libacl_dvpp_op.so` against the rules of CANN 8.5's DVPP
//! operator pages (cited in `csrc/dvpp/*.c`): initialization, the image
//! tensor checks, statuses in the acldvpp family (106001 null, 106002
//! invalid, 106101 uninitialized), results visible only after a
//! synchronize, a decode of bytes that are not a JPEG failing its stream,
//! and the users' overwrite pit flagged as an unordered access.
//!
//! This binary never calls aclInit (which initializes DVPP too), so the
//! initialization rules are observable here.

mod common;
#[macro_use]
mod ops_support;

use std::sync::OnceLock;
use std::time::Duration;

use ascendcl_mock::Misuse;
use common::OK;
use libloading::Library;
use ops_support::*;

const DV_NULL: i32 = 106001;
const DV_INVALID: i32 = 106002;
const DV_UNINIT: i32 = 106101;
const NCHW: i32 = 0;
const NHWC: i32 = 1;

fn dvpp() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        ops(); // the descriptor library first, bound to the same mock
        // SAFETY: the mock's library runs no initialisation of its own.
        unsafe { Library::new(ascendcl_mock::DVPP_PATH) }.expect("libacl_dvpp_op.so loads")
    })
}

/// A function of libacl_dvpp_op.so with the signature `F`.
///
/// # Safety
/// `F` must be the function's C signature.
unsafe fn f<F: Copy>(name: &str) -> F {
    // SAFETY: the caller vouches for the signature.
    unsafe {
        *dvpp()
            .get::<F>(name.as_bytes())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

fn init() -> i32 {
    // SAFETY: acldvppInit(const char *).
    unsafe { f::<unsafe extern "C" fn(*const i8) -> i32>("acldvppInit")(std::ptr::null()) }
}

fn finalize() -> i32 {
    // SAFETY: acldvppFinalize(void).
    unsafe { f::<unsafe extern "C" fn() -> i32>("acldvppFinalize")() }
}

/// A contiguous tensor of `format` (freed by the test's finish).
fn image(o: &mut OpsTest, dims: &[i64], dtype: i32, format: i32, addr: Ptr) -> Ptr {
    let strides = contiguous_strides(dims);
    // SAFETY: aclCreateTensor's signature (acl_meta.h); the slices outlive the call.
    let t = unsafe {
        o.ops.nn::<CreateTensor>("aclCreateTensor")(
            dims.as_ptr(),
            dims.len() as u64,
            dtype,
            strides.as_ptr(),
            0,
            format,
            dims.as_ptr(),
            dims.len() as u64,
            addr,
        )
    };
    assert!(!t.is_null(), "aclCreateTensor {dims:?}");
    o.adopt_tensor(t);
    t
}

fn decode(self_: Ptr, channels: u32, recover: bool, out: Ptr) -> (i32, u64, Ptr) {
    let (mut ws, mut ex) = (0u64, std::ptr::null_mut());
    type P1 = unsafe extern "C" fn(Ptr, u32, bool, Ptr, *mut u64, *mut Ptr) -> i32;
    // SAFETY: acldvppDecodeJpegGetWorkspaceSize's signature (operatorlist_00065).
    let rc = unsafe {
        f::<P1>("acldvppDecodeJpegGetWorkspaceSize")(
            self_, channels, recover, out, &mut ws, &mut ex,
        )
    };
    (rc, ws, ex)
}

fn launch(op: &str, exec: Ptr, stream: Ptr) -> i32 {
    // SAFETY: the standard phase-2 signature (workspace, size, executor, stream).
    unsafe {
        f::<unsafe extern "C" fn(Ptr, u64, Ptr, Ptr) -> i32>(op)(
            std::ptr::null_mut(),
            0,
            exec,
            stream,
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn crop_resize(
    s: Ptr,
    top: u32,
    left: u32,
    h: u32,
    w: u32,
    size: Ptr,
    mode: u32,
    out: Ptr,
) -> (i32, Ptr) {
    let (mut ws, mut ex) = (0u64, std::ptr::null_mut());
    type P1 =
        unsafe extern "C" fn(Ptr, u32, u32, u32, u32, Ptr, u32, Ptr, *mut u64, *mut Ptr) -> i32;
    // SAFETY: acldvppCropAndResizeGetWorkspaceSize's signature (operatorlist_00077).
    let rc = unsafe {
        f::<P1>("acldvppCropAndResizeGetWorkspaceSize")(
            s, top, left, h, w, size, mode, out, &mut ws, &mut ex,
        )
    };
    (rc, ex)
}

fn normalize(s: Ptr, mean: Ptr, std: Ptr, out: Ptr) -> (i32, Ptr) {
    let (mut ws, mut ex) = (0u64, std::ptr::null_mut());
    type P1 = unsafe extern "C" fn(Ptr, Ptr, Ptr, Ptr, *mut u64, *mut Ptr) -> i32;
    // SAFETY: acldvppNormalizeGetWorkspaceSize's signature (operatorlist_00064).
    let rc =
        unsafe { f::<P1>("acldvppNormalizeGetWorkspaceSize")(s, mean, std, out, &mut ws, &mut ex) };
    (rc, ex)
}

fn float_array(o: &mut OpsTest, v: &[f32]) -> Ptr {
    // SAFETY: aclCreateFloatArray(const float *, uint64_t); the slice outlives the call.
    let a = unsafe {
        o.ops
            .nn::<unsafe extern "C" fn(*const f32, u64) -> Ptr>("aclCreateFloatArray")(
            v.as_ptr(),
            v.len() as u64,
        )
    };
    assert!(!a.is_null());
    o.adopt(a, "aclDestroyFloatArray");
    a
}

/// A JPEG made by Pillow (examples/reference/dvpp), and Pillow's pixels.
fn sample() -> (&'static [u8], usize, usize) {
    (
        include_bytes!("../../examples/reference/dvpp/c420_q75.jpg"),
        48,
        64,
    )
}

#[test]
fn an_op_before_acldvpp_init_is_106101_and_init_twice_and_finalize_twice_succeed() {
    let mut o = OpsTest::new();
    assert_eq!(finalize(), OK);
    let bytes = o.buf(&[0xFF, 0xD8, 0xFF, 0xD9]);
    let out_p = o.buf(&[0u8; 3 * 8 * 8]);
    let s = image(&mut o, &[4], ACL_UINT8, ACL_FORMAT_ND, bytes);
    let out = image(&mut o, &[8, 8, 3], ACL_UINT8, NHWC, out_p);
    assert_eq!(decode(s, 3, true, out).0, DV_UNINIT);
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("acldvppInit"), "{msg}");
    assert_eq!(init(), OK);
    assert_eq!(
        init(),
        OK,
        "a second acldvppInit is not an error (operatorlist_00062)"
    );
    let (rc, _, ex) = decode(s, 3, true, out);
    assert_eq!(rc, OK);
    assert_eq!(o.ops.destroy_executor(ex), OK);
    // SAFETY: acldvppInit(const char *): a reserved path must be null.
    let rc =
        unsafe { f::<unsafe extern "C" fn(*const i8) -> i32>("acldvppInit")(c"x.json".as_ptr()) };
    assert_eq!(rc, DV_INVALID);
    assert_eq!(finalize(), OK);
    assert_eq!(finalize(), OK);
    assert_eq!(decode(s, 3, true, out).0, DV_UNINIT);
    o.finish();
}

#[test]
fn decode_refuses_bad_channels_recover_false_null_and_bad_outputs_with_acldvpp_codes() {
    let mut o = OpsTest::new();
    assert_eq!(init(), OK);
    let bytes = o.buf(&[0u8; 64]);
    let p = o.buf(&[0u8; 2 * 3 * 8 * 8]);
    let s = image(&mut o, &[64], ACL_UINT8, ACL_FORMAT_ND, bytes);
    let good = image(&mut o, &[8, 8, 3], ACL_UINT8, NHWC, p);
    let two_c = image(&mut o, &[8, 8, 2], ACL_UINT8, NHWC, p);
    let nd = image(&mut o, &[8, 8, 3], ACL_UINT8, ACL_FORMAT_ND, p);
    let n2 = image(&mut o, &[2, 3, 8, 8], ACL_UINT8, NCHW, p);
    let f32_out = image(&mut o, &[8, 8, 3], ACL_FLOAT, NHWC, p);
    let f32_in = image(&mut o, &[16], ACL_FLOAT, ACL_FORMAT_ND, bytes);
    assert_eq!(decode(std::ptr::null_mut(), 3, true, good).0, DV_NULL);
    assert_eq!(decode(s, 3, true, std::ptr::null_mut()).0, DV_NULL);
    for (what, args) in [
        ("channels 2", (s, 2, true, good)),
        ("tryRecoverTruncated false", (s, 3, false, good)),
        ("out with 2 channels", (s, 2, true, two_c)),
        ("out of format ND", (s, 3, true, nd)),
        ("out of two images", (s, 3, true, n2)),
        ("a float out", (s, 3, true, f32_out)),
        ("float bytes", (f32_in, 3, true, good)),
        ("1 channel asked, out has 3", (s, 1, true, good)),
    ] {
        assert_eq!(
            decode(args.0, args.1, args.2, args.3).0,
            DV_INVALID,
            "{what}"
        );
    }
    assert_eq!(finalize(), OK);
    o.finish();
}

#[test]
fn a_decoded_image_is_visible_only_after_a_synchronize() {
    let mut o = OpsTest::new();
    assert_eq!(init(), OK);
    let (jpeg, h, w) = sample();
    let bytes = o.buf(jpeg);
    let out_p = o.buf(&vec![7u8; h * w * 3]);
    let s = image(
        &mut o,
        &[jpeg.len() as i64],
        ACL_UINT8,
        ACL_FORMAT_ND,
        bytes,
    );
    let out = image(&mut o, &[1, h as i64, w as i64, 3], ACL_UINT8, NHWC, out_p);
    o.t.s.set_stream_delay(Duration::from_millis(50));
    let (rc, ws, ex) = decode(s, 3, true, out);
    assert_eq!((rc, ws), (OK, 0));
    assert_eq!(launch("acldvppDecodeJpeg", ex, o.stream), OK);
    assert!(!o.t.stream_done(o.stream));
    let early = o.t.download(out_p, 16);
    assert!(early.iter().all(|&b| b == 7), "written before the task ran");
    assert_eq!(o.t.sync_stream(o.stream), OK);
    o.t.s.set_stream_delay(Duration::ZERO);
    let pixels = o.t.download(out_p, h * w * 3);
    assert!(pixels.iter().any(|&b| b != 7));
    // the early read is exactly the race the happens-before model reports
    assert!(
        o.t.s.misuse_log().contains("acldvppDecodeJpeg"),
        "{}",
        o.t.s.misuse_log()
    );
    assert_eq!(finalize(), OK);
    o.finish_with_misuse(Misuse::UnorderedAccess, 1);
}

#[test]
fn a_decode_of_bytes_that_are_no_baseline_jpeg_fails_its_stream_with_the_reason() {
    let mut o = OpsTest::new();
    assert_eq!(init(), OK);
    let gif = b"GIF89a, not a JPEG at all...............";
    let bytes = o.buf(gif);
    let out_p = o.buf(&[0u8; 3 * 8 * 8]);
    let s = image(&mut o, &[gif.len() as i64], ACL_UINT8, ACL_FORMAT_ND, bytes);
    let out = image(&mut o, &[3, 8, 8], ACL_UINT8, NCHW, out_p);
    let (rc, _, ex) = decode(s, 3, true, out);
    assert_eq!(rc, OK, "phase 1 cannot read device bytes");
    assert_eq!(launch("acldvppDecodeJpeg", ex, o.stream), OK);
    assert_eq!(o.t.sync_stream(o.stream), 507000);
    let msg = o.t.recent_msg().unwrap_or_default();
    assert!(msg.contains("acldvppDecodeJpeg"), "{msg}");
    // the error is reported once; the next synchronize orders the host after the task
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(finalize(), OK);
    o.finish();
}

#[test]
fn crop_and_resize_and_normalize_refuse_what_their_pages_exclude() {
    let mut o = OpsTest::new();
    assert_eq!(init(), OK);
    let p = o.buf(&[0u8; 3 * 16 * 16 * 4]);
    let q = o.buf(&[0u8; 3 * 16 * 16 * 4]);
    let src = image(&mut o, &[3, 16, 16], ACL_UINT8, NCHW, p);
    let dst = image(&mut o, &[3, 8, 8], ACL_UINT8, NCHW, q);
    let dst_f = image(&mut o, &[3, 8, 8], ACL_FLOAT, NCHW, q);
    let dst_nhwc = image(&mut o, &[8, 8, 3], ACL_UINT8, NHWC, q);
    let size = o.int_array(&[8, 8]);
    let wrong = o.int_array(&[8, 9]);
    let (rc, ex) = crop_resize(src, 2, 2, 10, 12, size, 0, dst);
    assert_eq!(rc, OK);
    assert_eq!(o.ops.destroy_executor(ex), OK);
    for (what, (top, left, h, w, sz, mode, out)) in [
        ("height 3", (0, 0, 3, 12, size, 0, dst)),
        ("width 5", (0, 0, 10, 5, size, 0, dst)),
        ("a crop past the bottom", (8, 0, 10, 12, size, 0, dst)),
        ("size unlike out", (0, 0, 10, 12, wrong, 0, dst)),
        ("mode 3", (0, 0, 10, 12, size, 3, dst)),
        ("out of another dtype", (0, 0, 10, 12, size, 0, dst_f)),
        ("out of another format", (0, 0, 10, 12, size, 0, dst_nhwc)),
    ] {
        assert_eq!(
            crop_resize(src, top, left, h, w, sz, mode, out).0,
            DV_INVALID,
            "{what}"
        );
    }
    assert_eq!(
        crop_resize(src, 0, 0, 10, 12, std::ptr::null_mut(), 0, dst).0,
        DV_NULL
    );
    let m3 = float_array(&mut o, &[1.0, 2.0, 3.0]);
    let m2 = float_array(&mut o, &[1.0, 2.0]);
    let small = image(&mut o, &[3, 16, 5], ACL_UINT8, NCHW, p);
    let out16 = image(&mut o, &[3, 16, 16], ACL_FLOAT, NCHW, q);
    let out16_u8 = image(&mut o, &[3, 16, 16], ACL_UINT8, NCHW, q);
    let out_small = image(&mut o, &[3, 16, 5], ACL_FLOAT, NCHW, q);
    let (rc, ex) = normalize(src, m3, m3, out16);
    assert_eq!(rc, OK);
    assert_eq!(o.ops.destroy_executor(ex), OK);
    assert_eq!(
        normalize(src, m2, m3, out16).0,
        DV_INVALID,
        "mean of 2 for 3 channels"
    );
    assert_eq!(
        normalize(src, m3, m3, out16_u8).0,
        DV_INVALID,
        "a uint8 out"
    );
    assert_eq!(
        normalize(small, m3, m3, out_small).0,
        DV_INVALID,
        "5 pixels wide"
    );
    assert_eq!(normalize(src, std::ptr::null_mut(), m3, out16).0, DV_NULL);
    assert_eq!(finalize(), OK);
    o.finish();
}

/// The users' loader, in raw calls: decode each image into one output
/// buffer on the DVPP stream, hand it to the training stream (a copy reads
/// it) with no event between them, decode the next image into the same
/// buffer without waiting. On a card the next decode may overwrite the
/// image while it is read; the mock flags both unordered pairs.
#[test]
fn the_users_loader_decoding_into_a_buffer_still_read_by_another_stream_is_flagged() {
    let mut o = OpsTest::new();
    assert_eq!(init(), OK);
    let (jpeg, h, w) = sample();
    let n = h * w * 3;
    let bytes = o.buf(jpeg);
    let slot = o.buf(&vec![0u8; n]);
    let train_input = o.buf(&vec![0u8; n]);
    let train = o.t.create_stream().unwrap();
    let s = image(
        &mut o,
        &[jpeg.len() as i64],
        ACL_UINT8,
        ACL_FORMAT_ND,
        bytes,
    );
    let out = image(&mut o, &[3, h as i64, w as i64], ACL_UINT8, NCHW, slot);
    for _image in 0..2 {
        let (rc, _, ex) = decode(s, 3, true, out);
        assert_eq!(rc, OK);
        assert_eq!(launch("acldvppDecodeJpeg", ex, o.stream), OK);
        // the consumer reads the slot on its own stream, unordered
        assert_eq!(o.t.memcpy_async(train_input, n, slot, n, 3, train), OK);
    }
    assert_eq!(o.t.sync_stream(o.stream), OK);
    assert_eq!(o.t.sync_stream(train), OK);
    assert!(
        o.t.s.misuse(Misuse::UnorderedAccess) >= 2,
        "{}",
        o.t.s.misuse_log()
    );
    assert!(
        o.t.s.misuse_log().contains("acldvppDecodeJpeg"),
        "{}",
        o.t.s.misuse_log()
    );
    assert_eq!(o.t.destroy_stream(train), OK);
    assert_eq!(finalize(), OK);
    let n = o.t.s.misuse(Misuse::UnorderedAccess);
    o.finish_with_misuse(Misuse::UnorderedAccess, n);
}
