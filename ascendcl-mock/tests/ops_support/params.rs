//! The phase-1 argument-check harness of the second operator set's tests
//! (`ops2_params_*.rs`): one valid call, then each required argument null
//! (161001) and each documented bad argument (161002), no executor left.

use super::*;
use crate::common::OK;
use ascendcl_mock::Resource;

pub const INNER_NULLPTR: i32 = 561103;

/// Calls one phase 1 with pointer arguments `p` and numeric knobs `k`
/// (attributes passed by value), returning (status, executor).
pub type Call = fn(&OpsTest, &[Ptr], &[f64]) -> (i32, Ptr);

pub struct Case {
    pub op: &'static str,
    pub ptrs: Vec<Ptr>,
    pub knobs: Vec<f64>,
    pub call: Call,
    /// (index into ptrs, name): required, so null is 161001
    pub required: Vec<(usize, &'static str)>,
    /// (what, index, replacement) that must give 161002
    pub bad_ptrs: Vec<(&'static str, usize, Ptr)>,
    /// (what, knob index, value) that must give 161002
    pub bad_knobs: Vec<(&'static str, usize, f64)>,
}

pub fn check(o: &OpsTest, c: &Case) {
    let (rc, e) = (c.call)(o, &c.ptrs, &c.knobs);
    assert_eq!(
        rc,
        OK,
        "{}: the valid call fails: {:?}",
        c.op,
        o.t.recent_msg()
    );
    assert_eq!(o.ops.destroy_executor(e), OK);
    for (i, name) in &c.required {
        let mut p = c.ptrs.clone();
        p[*i] = std::ptr::null_mut();
        let (rc, e) = (c.call)(o, &p, &c.knobs);
        assert_eq!(rc, NULLPTR, "{}: null {name}: {:?}", c.op, o.t.recent_msg());
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
        let (rc, e) = (c.call)(o, &p, &c.knobs);
        assert_eq!(rc, INVALID, "{}: {what}: {:?}", c.op, o.t.recent_msg());
        assert!(e.is_null());
        let msg = o.t.recent_msg().unwrap_or_default();
        assert!(msg.contains(c.op), "{}: {what}: message {msg:?}", c.op);
    }
    for (what, i, bad) in &c.bad_knobs {
        let mut k = c.knobs.clone();
        k[*i] = *bad;
        let (rc, e) = (c.call)(o, &c.ptrs, &k);
        assert_eq!(rc, INVALID, "{}: {what}: {:?}", c.op, o.t.recent_msg());
        assert!(e.is_null());
        assert!(
            o.t.recent_msg().unwrap_or_default().contains(c.op),
            "{}: {what}",
            c.op
        );
    }
    assert_eq!(
        o.t.s.live(Resource::AclnnExecutor),
        0,
        "{}: no executor leaked",
        c.op
    );
}

pub fn f32t(o: &mut OpsTest, dims: &[i64]) -> Ptr {
    let n: i64 = dims.iter().product();
    o.f32_tensor(dims, &vec![0.0; n.max(1) as usize]).0
}

pub fn typed(o: &mut OpsTest, dims: &[i64], dtype: i32) -> Ptr {
    let n: i64 = dims.iter().product();
    o.raw_tensor(dims, dtype, &vec![0u8; (n.max(1) * 8) as usize])
        .0
}
