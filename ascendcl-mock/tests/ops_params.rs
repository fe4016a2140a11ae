//! Phase-1 parameter errors of every op of the mock's libopapi.so: a null
//! required argument is 161001, a bad dtype, shape, broadcast, dim or
//! attribute is 161002, each with a message naming the op and the
//! parameter; a failed phase 1 builds no executor.

mod common;
#[macro_use]
mod ops_support;

use ascendcl_mock::Resource;
use common::OK;
use ops_support::*;

/// One op's phase 1 over its pointer arguments (descriptors) `p`, with the
/// integer attributes `i`.
type Call<'a> = Box<dyn Fn(&OpsTest, &[Ptr], &[i64]) -> (i32, u64, Ptr) + 'a>;

struct Case<'a> {
    op: &'static str,
    names: &'static [&'static str],
    ptrs: Vec<Ptr>,
    ints: Vec<i64>,
    call: Call<'a>,
    /// (what, argument index, replacement) or attribute (index, value) cases that must give 161002
    bad_ptrs: Vec<(&'static str, usize, Ptr)>,
    bad_ints: Vec<(&'static str, usize, i64)>,
}

fn check(o: &OpsTest, c: &Case) {
    let (rc, _, e) = (c.call)(o, &c.ptrs, &c.ints);
    assert_eq!(
        rc,
        OK,
        "{}: the valid call fails: {:?}",
        c.op,
        o.t.recent_msg()
    );
    assert_eq!(o.ops.destroy_executor(e), OK);
    for (i, name) in c.names.iter().enumerate() {
        let mut p = c.ptrs.clone();
        p[i] = std::ptr::null_mut();
        let (rc, _, e) = (c.call)(o, &p, &c.ints);
        assert_eq!(rc, NULLPTR, "{}: null {name}", c.op);
        assert!(e.is_null());
        let msg = o.t.recent_msg().unwrap_or_default();
        assert!(
            msg.contains(c.op) && msg.contains(name),
            "{}: null {name}: message {msg:?}",
            c.op
        );
    }
    for (what, i, bad) in &c.bad_ptrs {
        let mut p = c.ptrs.clone();
        p[*i] = *bad;
        let (rc, _, e) = (c.call)(o, &p, &c.ints);
        assert_eq!(rc, INVALID, "{}: {what}: {:?}", c.op, o.t.recent_msg());
        assert!(e.is_null());
        let msg = o.t.recent_msg().unwrap_or_default();
        assert!(msg.contains(c.op), "{}: {what}: message {msg:?}", c.op);
    }
    for (what, i, bad) in &c.bad_ints {
        let mut v = c.ints.clone();
        v[*i] = *bad;
        let (rc, _, _) = (c.call)(o, &c.ptrs, &v);
        assert_eq!(rc, INVALID, "{}: {what}", c.op);
        assert!(o.t.recent_msg().unwrap_or_default().contains(c.op));
    }
    assert_eq!(
        o.t.s.live(Resource::AclnnExecutor),
        0,
        "{}: no executor leaked",
        c.op
    );
}

#[test]
fn every_op_rejects_null_and_invalid_arguments_with_the_documented_codes() {
    let mut o = OpsTest::new();
    let z = |n: usize| vec![0.0f32; n];
    let (m23, _) = o.f32_tensor(&[2, 3], &z(6));
    let (m32, _) = o.f32_tensor(&[3, 2], &z(6));
    let (m22, _) = o.f32_tensor(&[2, 2], &z(4));
    let (m33, _) = o.f32_tensor(&[3, 3], &z(9));
    let (v2, _) = o.f32_tensor(&[2], &z(2));
    let (v3, _) = o.f32_tensor(&[3], &z(3));
    let (v4, _) = o.f32_tensor(&[4], &z(4));
    let (one, _) = o.f32_tensor(&[1], &z(1));
    let (t3d, _) = o.f32_tensor(&[1, 2, 3], &z(6));
    let (h23, _) = o.raw_tensor(&[2, 3], ACL_FLOAT16, &[0u8; 12]);
    let (i2, _) = o.raw_tensor(&[2], ACL_INT64, &[0u8; 16]);
    let (i3, _) = o.raw_tensor(&[3], ACL_INT64, &[0u8; 24]);
    let (i23, _) = o.raw_tensor(&[2, 3], ACL_INT32, &[0u8; 24]);
    let (b23, _) = o.raw_tensor(&[2, 3], ACL_BOOL, &[0u8; 6]);
    let (f2, _) = o.raw_tensor(&[2], ACL_FLOAT, &[0u8; 8]);
    let s = o.scalar_f32(1.0);
    let dims0 = o.int_array(&[0]);
    let dims_bad = o.int_array(&[2]);
    let dims_dup = o.int_array(&[0, -2]);

    let cases = vec![
        Case {
            op: "aclnnMm",
            names: &["self", "mat2", "out"],
            ptrs: vec![m23, m32, m22],
            ints: vec![0],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnMmGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, i8),
                    (p[0], p[1], p[2], i[0] as i8)
                )
            }),
            bad_ptrs: vec![
                ("inner dimensions differ", 1, m23),
                ("out shape", 2, m33),
                ("3-D self", 0, t3d),
                (
                    "i32 self (f32, f16 and bf16 only; mixed floats are promoted)",
                    0,
                    i23,
                ),
            ],
            bad_ints: vec![("cubeMathType 5", 0, 5)],
        },
        Case {
            op: "aclnnAddmm",
            names: &["self", "mat1", "mat2", "beta", "alpha", "out"],
            ptrs: vec![v2, m23, m32, s, s, m22],
            ints: vec![0],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnAddmmGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, i8),
                    (p[0], p[1], p[2], p[3], p[4], p[5], i[0] as i8)
                )
            }),
            bad_ptrs: vec![
                ("self does not broadcast", 0, v3),
                ("out shape", 5, m33),
                ("int mat1", 1, i23),
            ],
            bad_ints: vec![("cubeMathType -1", 0, -1)],
        },
        Case {
            op: "aclnnMatmul",
            names: &["self", "mat2", "out"],
            ptrs: vec![m23, m32, m22],
            ints: vec![0],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnMatmulGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, i8),
                    (p[0], p[1], p[2], i[0] as i8)
                )
            }),
            bad_ptrs: vec![("inner dimensions differ", 1, m22), ("out shape", 2, v2)],
            bad_ints: vec![("cubeMathType 9", 0, 9)],
        },
        Case {
            op: "aclnnAdd",
            names: &["self", "other", "alpha", "out"],
            ptrs: vec![m23, v3, s, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnAddGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2], p[3])
                )
            }),
            bad_ptrs: vec![
                ("other does not broadcast", 1, v2),
                ("out is not the broadcast shape", 3, m32),
                ("float result into an int out", 3, i23),
                ("bool self", 0, b23),
            ],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnAdds",
            names: &["self", "other", "alpha", "out"],
            ptrs: vec![m23, s, s, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnAddsGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2], p[3])
                )
            }),
            bad_ptrs: vec![("out shape", 3, m32)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnInplaceAdd",
            names: &["selfRef", "other", "alpha"],
            ptrs: vec![m23, v3, s],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnInplaceAddGetWorkspaceSize",
                    (Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2])
                )
            }),
            bad_ptrs: vec![
                ("other broadcasts beyond selfRef", 1, t3d),
                ("other does not broadcast", 1, v2),
            ],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnSub",
            names: &["self", "other", "alpha", "out"],
            ptrs: vec![m23, v3, s, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnSubGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2], p[3])
                )
            }),
            bad_ptrs: vec![("other does not broadcast", 1, v2)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnMul",
            names: &["self", "other", "out"],
            ptrs: vec![m23, v3, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnMulGetWorkspaceSize",
                    (Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2])
                )
            }),
            bad_ptrs: vec![("other does not broadcast", 1, v2), ("out shape", 2, v3)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnMuls",
            names: &["self", "other", "out"],
            ptrs: vec![m23, s, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnMulsGetWorkspaceSize",
                    (Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2])
                )
            }),
            bad_ptrs: vec![("out shape", 2, v3)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnInplaceMuls",
            names: &["selfRef", "other"],
            ptrs: vec![m23, s],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnInplaceMulsGetWorkspaceSize",
                    (Ptr, Ptr),
                    (p[0], p[1])
                )
            }),
            bad_ptrs: vec![("bool selfRef", 0, b23)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnRelu",
            names: &["self", "out"],
            ptrs: vec![m23, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(o.ops, "aclnnReluGetWorkspaceSize", (Ptr, Ptr), (p[0], p[1]))
            }),
            bad_ptrs: vec![
                ("out shape", 1, m32),
                ("out dtype", 1, h23),
                ("bool self", 0, b23),
            ],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnThresholdBackward",
            names: &["gradOutput", "self", "threshold", "out"],
            ptrs: vec![m23, m23, s, m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnThresholdBackwardGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr),
                    (p[0], p[1], p[2], p[3])
                )
            }),
            bad_ptrs: vec![("self does not broadcast", 1, m32), ("out shape", 3, v3)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnLogSoftmax",
            names: &["self", "out"],
            ptrs: vec![m23, m23],
            ints: vec![1],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnLogSoftmaxGetWorkspaceSize",
                    (Ptr, i64, Ptr),
                    (p[0], i[0], p[1])
                )
            }),
            bad_ptrs: vec![("out shape", 1, m32), ("int self", 0, i23)],
            bad_ints: vec![("dim 2 of a 2-D self", 0, 2), ("dim -3", 0, -3)],
        },
        Case {
            op: "aclnnLogSoftmaxBackward",
            names: &["gradOutput", "output", "out"],
            ptrs: vec![m23, m23, m23],
            ints: vec![-1],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnLogSoftmaxBackwardGetWorkspaceSize",
                    (Ptr, Ptr, i64, Ptr),
                    (p[0], p[1], i[0], p[2])
                )
            }),
            bad_ptrs: vec![
                ("output shape", 1, m32),
                ("integer out", 2, i23),
                ("f16 output with f32 gradOutput", 1, h23),
            ],
            bad_ints: vec![("dim 5", 0, 5)],
        },
        Case {
            op: "aclnnNLLLoss",
            names: &["self", "target", "weight", "out", "totalWeightOut"],
            ptrs: vec![m23, i2, v3, one, one],
            ints: vec![1, -100],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnNLLLossGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, i64, i64, Ptr, Ptr),
                    (p[0], p[1], p[2], i[0], i[1], p[3], p[4])
                )
            }),
            bad_ptrs: vec![
                ("target length", 1, i3),
                ("float target", 1, f2),
                ("weight length", 2, v2),
                ("out of 2 elements for mean", 3, v2),
                ("3-D self", 0, t3d),
            ],
            bad_ints: vec![("reduction 3", 0, 3)],
        },
        Case {
            op: "aclnnNLLLossBackward",
            names: &[
                "gradOutput",
                "self",
                "target",
                "weight",
                "totalWeight",
                "out",
            ],
            ptrs: vec![one, m23, i2, v3, one, m23],
            ints: vec![2, -100],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnNLLLossBackwardGetWorkspaceSize",
                    (Ptr, Ptr, Ptr, Ptr, i64, i64, Ptr, Ptr),
                    (p[0], p[1], p[2], p[3], i[0], i[1], p[4], p[5])
                )
            }),
            bad_ptrs: vec![
                ("out shape", 5, m32),
                ("gradOutput of 2 elements for sum", 0, v2),
            ],
            bad_ints: vec![("reduction -1", 0, -1)],
        },
        Case {
            op: "aclnnReduceSum",
            names: &["self", "dims", "out"],
            ptrs: vec![m23, dims0, v3],
            ints: vec![0, ACL_FLOAT as i64],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnReduceSumGetWorkspaceSize",
                    (Ptr, Ptr, bool, i32, Ptr),
                    (p[0], p[1], i[0] != 0, i[1] as i32, p[2])
                )
            }),
            bad_ptrs: vec![
                ("dim out of range", 1, dims_bad),
                ("dim twice", 1, dims_dup),
                ("out shape", 2, v2),
            ],
            bad_ints: vec![
                ("dtype differs from out", 1, ACL_FLOAT16 as i64),
                ("keepDims changes out", 0, 1),
            ],
        },
        Case {
            op: "aclnnCast",
            names: &["self", "out"],
            ptrs: vec![m23, h23],
            ints: vec![ACL_FLOAT16 as i64],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnCastGetWorkspaceSize",
                    (Ptr, i32, Ptr),
                    (p[0], i[0] as i32, p[1])
                )
            }),
            bad_ptrs: vec![("out shape", 1, v3)],
            bad_ints: vec![("dtype differs from out", 0, ACL_INT32 as i64)],
        },
        Case {
            op: "aclnnInplaceCopy",
            names: &["selfRef", "src"],
            ptrs: vec![m23, v3],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnInplaceCopyGetWorkspaceSize",
                    (Ptr, Ptr),
                    (p[0], p[1])
                )
            }),
            bad_ptrs: vec![
                ("src does not broadcast", 1, v2),
                ("src has more dimensions than selfRef", 1, t3d),
            ],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnInplaceZero",
            names: &["selfRef"],
            ptrs: vec![m23],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(o.ops, "aclnnInplaceZeroGetWorkspaceSize", (Ptr), (p[0]))
            }),
            bad_ptrs: vec![],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnInplaceFillScalar",
            names: &["selfRef", "value"],
            ptrs: vec![m23, s],
            ints: vec![],
            call: Box::new(|o, p, _| {
                phase1!(
                    o.ops,
                    "aclnnInplaceFillScalarGetWorkspaceSize",
                    (Ptr, Ptr),
                    (p[0], p[1])
                )
            }),
            bad_ptrs: vec![("a tensor where the scalar goes", 1, m23)],
            bad_ints: vec![],
        },
        Case {
            op: "aclnnArgMax",
            names: &["self", "out"],
            ptrs: vec![m23, i2],
            ints: vec![1, 0],
            call: Box::new(|o, p, i| {
                phase1!(
                    o.ops,
                    "aclnnArgMaxGetWorkspaceSize",
                    (Ptr, i64, bool, Ptr),
                    (p[0], i[0], i[1] != 0, p[1])
                )
            }),
            bad_ptrs: vec![("float out", 1, v2), ("out shape", 1, i3)],
            bad_ints: vec![("dim 2", 0, 2), ("keepdim changes out", 1, 1)],
        },
    ];
    for c in &cases {
        check(&o, c);
    }
    // a stale (destroyed) descriptor is rejected, not read
    let (gone, _) = o.ops_tensor_then_destroy(&[4]);
    let (rc, _, _) = phase1!(o.ops, "aclnnReluGetWorkspaceSize", (Ptr, Ptr), (gone, v4));
    assert_eq!(rc, INVALID);
    o.finish();
}

#[test]
fn phase_one_rejects_null_workspace_size_and_executor_pointers() {
    let mut o = OpsTest::new();
    let (x, _) = o.f32_tensor(&[2], &[0.0; 2]);
    type Relu = unsafe extern "C" fn(Ptr, Ptr, *mut u64, *mut Ptr) -> i32;
    // SAFETY: aclnnReluGetWorkspaceSize's C signature; the nulls are what is tested.
    let f = unsafe { o.ops.op::<Relu>("aclnnReluGetWorkspaceSize") };
    let mut ws = 0u64;
    let mut e: Ptr = std::ptr::null_mut();
    // SAFETY: as above; the mock checks the out-pointers.
    unsafe {
        assert_eq!(f(x, x, std::ptr::null_mut(), &mut e), NULLPTR);
        assert_eq!(f(x, x, &mut ws, std::ptr::null_mut()), NULLPTR);
    }
    assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0);
    o.finish();
}
