//! libnnopbase.so of the mock: descriptor creation validates its arguments
//! (null + message on failure), live counts follow create/destroy, tensor
//! lists own their tensors, every call is journaled and fault-injectable.

mod common;
#[macro_use]
mod ops_support;

use ascendcl_mock::{Fault, Misuse, Resource};
use common::{OK, T};
use ops_support::*;

fn last_ret(t: &T, function: &str) -> i64 {
    let e =
        t.s.journal()
            .into_iter()
            .rev()
            .find(|e| e.raw_field("fn") == Some(&format!("\"{function}\"")))
            .unwrap_or_else(|| panic!("no journal entry for {function}"));
    e.raw_field("ret")
        .expect("ret")
        .parse()
        .expect("numeric ret")
}

#[test]
fn tensor_create_destroy_is_counted_live_and_journaled() {
    let t = T::with_device(0);
    let ops = ops();
    let p = t.malloc(64, 0).unwrap();
    let a = ops.contiguous(&[2, 3], ACL_FLOAT, p);
    let b = ops.contiguous(&[4], ACL_FLOAT16, p);
    assert_eq!(t.s.live(Resource::AclnnTensor), 2);
    assert_eq!(t.s.call_count("aclCreateTensor"), 2);
    assert_eq!(ops.destroy_tensor(a), OK);
    assert_eq!(ops.destroy_tensor(b), OK);
    assert_eq!(t.s.live(Resource::AclnnTensor), 0);
    let line =
        t.s.journal()
            .into_iter()
            .find(|e| e.raw_field("fn") == Some("\"aclCreateTensor\""))
            .expect("journaled");
    assert!(line.line.contains("\"view\":\"[2,3]\""), "{}", line.line);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

#[test]
fn invalid_tensor_arguments_return_null_with_code_and_message() {
    let t = T::with_device(0);
    let ops = ops();
    let p = t.malloc(64, 0).unwrap();
    type Case<'a> = (&'a str, Box<dyn Fn() -> Ptr + 'a>, i64);
    let cases: [Case; 6] = [
        (
            "null dims with a nonzero count",
            // SAFETY: acl_meta.h signature; the null dims is what is tested.
            Box::new(|| unsafe {
                ops.nn::<CreateTensor>("aclCreateTensor")(
                    std::ptr::null(),
                    2,
                    ACL_FLOAT,
                    [1i64, 1].as_ptr(),
                    0,
                    ACL_FORMAT_ND,
                    [2i64].as_ptr(),
                    1,
                    p,
                )
            }),
            NULLPTR as i64,
        ),
        (
            "negative dim",
            Box::new(|| ops.tensor(&[2, -1], &[1, 1], 0, ACL_FLOAT, &[2], p)),
            INVALID as i64,
        ),
        (
            "storage too small for view and strides",
            Box::new(|| ops.tensor(&[2, 4], &[4, 1], 0, ACL_FLOAT, &[7], p)),
            INVALID as i64,
        ),
        (
            "storage too small once the offset is added",
            Box::new(|| ops.tensor(&[2, 2], &[2, 1], 5, ACL_FLOAT, &[8], p)),
            INVALID as i64,
        ),
        (
            "unsupported dtype",
            Box::new(|| ops.tensor(&[2], &[1], 0, ACL_STRING, &[2], p)),
            INVALID as i64,
        ),
        (
            "more than 8 dimensions",
            Box::new(|| ops.tensor(&[1; 9], &[1; 9], 0, ACL_FLOAT, &[1], p)),
            INVALID as i64,
        ),
    ];
    for (what, create, code) in cases {
        let d = create();
        assert!(d.is_null(), "{what}: a descriptor was created");
        assert_eq!(last_ret(&t, "aclCreateTensor"), code, "{what}");
        let msg = t.recent_msg().unwrap_or_default();
        assert!(msg.contains("aclCreateTensor"), "{what}: message {msg:?}");
    }
    // a transposed view inside its storage is fine (strides in elements)
    let tr = ops.tensor(&[4, 2], &[1, 4], 0, ACL_FLOAT, &[2, 4], p);
    assert!(!tr.is_null());
    assert_eq!(ops.destroy_tensor(tr), OK);
    assert_eq!(t.s.live(Resource::AclnnTensor), 0);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

#[test]
fn scalars_and_arrays_are_counted_live_and_a_null_value_is_rejected() {
    let t = T::with_device(0);
    let ops = ops();
    let v = 2.5f32;
    let s = ops.scalar_raw((&v as *const f32).cast(), ACL_FLOAT);
    let h = 0x3c00u16; // 1.0 in f16
    let s16 = ops.scalar_raw((&h as *const u16).cast(), ACL_FLOAT16);
    let b = 1u8;
    let sb = ops.scalar_raw((&b as *const u8).cast(), ACL_BOOL);
    assert!(!s.is_null() && !s16.is_null() && !sb.is_null());
    assert!(ops.scalar_raw(std::ptr::null(), ACL_FLOAT).is_null());
    assert_eq!(last_ret(&t, "aclCreateScalar"), NULLPTR as i64);
    assert_eq!(t.s.live(Resource::AclnnScalar), 3);
    let ia = ops.int_array(&[0, 1]);
    let bools = [true, false];
    // SAFETY: acl_meta.h signature; the slice outlives the call.
    let ba = unsafe {
        ops.nn::<unsafe extern "C" fn(*const bool, u64) -> Ptr>("aclCreateBoolArray")(
            bools.as_ptr(),
            2,
        )
    };
    let floats = [0.5f32];
    // SAFETY: as above.
    let fa = unsafe {
        ops.nn::<unsafe extern "C" fn(*const f32, u64) -> Ptr>("aclCreateFloatArray")(
            floats.as_ptr(),
            1,
        )
    };
    assert!(!ba.is_null() && !fa.is_null());
    assert_eq!(t.s.live(Resource::AclnnArray), 3);
    for (d, f) in [
        (s, "aclDestroyScalar"),
        (s16, "aclDestroyScalar"),
        (sb, "aclDestroyScalar"),
        (ia, "aclDestroyIntArray"),
        (ba, "aclDestroyBoolArray"),
        (fa, "aclDestroyFloatArray"),
    ] {
        // SAFETY: (handle) -> status.
        assert_eq!(unsafe { ops.nn::<Destroy>(f)(d) }, OK, "{f}");
    }
    t.assert_clean(1);
}

#[test]
fn tensor_list_owns_and_destroys_its_tensors() {
    let t = T::with_device(0);
    let ops = ops();
    let p = t.malloc(64, 0).unwrap();
    let a = ops.contiguous(&[2], ACL_FLOAT, p);
    let b = ops.contiguous(&[3], ACL_FLOAT, p);
    let v = [a as *const std::ffi::c_void, b as *const std::ffi::c_void];
    // SAFETY: acl_meta.h signature; the array outlives the call.
    let l = unsafe {
        ops.nn::<unsafe extern "C" fn(*const *const std::ffi::c_void, u64) -> Ptr>(
            "aclCreateTensorList",
        )(v.as_ptr(), 2)
    };
    assert!(!l.is_null());
    assert_eq!(t.s.live(Resource::AclnnTensorList), 1);
    // SAFETY: (handle) -> status.
    assert_eq!(unsafe { ops.nn::<Destroy>("aclDestroyTensorList")(l) }, OK);
    assert_eq!(t.s.live(Resource::AclnnTensorList), 0);
    assert_eq!(
        t.s.live(Resource::AclnnTensor),
        0,
        "the list destroyed its tensors"
    );
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

#[test]
fn destroying_twice_is_an_error_and_a_double_free_misuse() {
    let t = T::with_device(0);
    let ops = ops();
    let p = t.malloc(64, 0).unwrap();
    let a = ops.contiguous(&[2], ACL_FLOAT, p);
    assert_eq!(ops.destroy_tensor(a), OK);
    assert_eq!(ops.destroy_tensor(a), INVALID);
    assert_eq!(ops.destroy_tensor(std::ptr::null_mut()), NULLPTR);
    t.assert_misuse(Misuse::DoubleFree, 1);
    assert_eq!(t.free(p), OK);
}

#[test]
fn injected_faults_fail_descriptor_calls_by_name() {
    let t = T::with_device(0);
    let ops = ops();
    let p = t.malloc(64, 0).unwrap();
    t.s.inject(&Fault::nth("aclCreateTensor", 1, 561000).with_message("injected"))
        .unwrap();
    assert!(ops.tensor(&[2], &[1], 0, ACL_FLOAT, &[2], p).is_null());
    assert_eq!(last_ret(&t, "aclCreateTensor"), 561000);
    assert_eq!(t.s.live(Resource::AclnnTensor), 0);
    let a = ops.contiguous(&[2], ACL_FLOAT, p);
    t.s.inject(&Fault::nth("aclDestroyTensor", 1, 561000))
        .unwrap();
    assert_eq!(ops.destroy_tensor(a), 561000);
    assert_eq!(ops.destroy_tensor(a), OK);
    assert_eq!(t.free(p), OK);
    t.assert_clean(1);
}

#[test]
fn aclnn_init_and_finalize_are_accepted_next_to_acl_init() {
    let t = T::with_device(0);
    let ops = ops();
    // SAFETY: aclnn_base.h signatures.
    unsafe {
        assert_eq!(
            ops.nn::<unsafe extern "C" fn(*const i8) -> i32>("aclnnInit")(std::ptr::null()),
            OK
        );
        assert_eq!(
            ops.nn::<unsafe extern "C" fn() -> i32>("aclnnFinalize")(),
            OK
        );
    }
    assert_eq!(t.s.call_count("aclnnInit"), 1);
    t.assert_clean(1);
}

#[test]
fn descriptor_functions_resolve_through_the_op_library_handle_as_torch_npu_finds_them() {
    let _t = T::with_device(0);
    let ops = ops();
    // SAFETY: only symbol addresses are compared; nothing is called.
    let (via_op, via_nn) = unsafe {
        (
            ops.op::<CreateTensor>("aclCreateTensor") as usize,
            ops.nn::<CreateTensor>("aclCreateTensor") as usize,
        )
    };
    assert_eq!(via_op, via_nn, "libopapi.so depends on libnnopbase.so");
}
