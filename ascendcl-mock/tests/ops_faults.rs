//! Fault sweep over the mock's operator libraries: an injected failure of
//! any descriptor call, phase 1 or phase 2 of a small MLP forward step is
//! reported to the caller, and once the caller cleans up what it created
//! nothing is left alive (descriptors, executors, buffers) and nothing
//! counts as misuse.

mod common;
#[macro_use]
mod ops_support;

use ascendcl_mock::{Fault, Resource};
use common::OK;
use ops_support::*;

/// Everything a step created, to be destroyed whatever happened.
#[derive(Default)]
struct Made {
    tensors: Vec<Ptr>,
    scalars: Vec<Ptr>,
}

/// One forward step (Addmm, Relu, LogSoftmax, NLLLoss) written as careful
/// caller code: every failure is returned, executors that phase 1 built are
/// always handed to phase 2 (which consumes them). Returns the first error.
fn step(o: &mut OpsTest, made: &mut Made) -> Result<f32, i32> {
    let x = o.buf(&f32_bytes(&[1.0, -1.0, 0.5, 2.0]));
    let w = o.buf(&f32_bytes(&[0.5, -0.5, 1.0, 1.0]));
    let b = o.buf(&f32_bytes(&[0.1, -0.1]));
    let h = o.buf(&f32_bytes(&[0.0; 4]));
    let lp = o.buf(&f32_bytes(&[0.0; 4]));
    let tgt = o.buf(&i64_bytes(&[0, 1]));
    let wt = o.buf(&f32_bytes(&[1.0, 1.0]));
    let loss = o.buf(&f32_bytes(&[0.0]));
    let tw = o.buf(&f32_bytes(&[0.0]));
    let mut tensor = |dims: &[i64], dtype: i32, p: Ptr| -> Result<Ptr, i32> {
        let t = o
            .ops
            .tensor(dims, &contiguous_strides(dims), 0, dtype, dims, p);
        if t.is_null() {
            return Err(-1);
        }
        made.tensors.push(t);
        Ok(t)
    };
    let xt = tensor(&[2, 2], ACL_FLOAT, x)?;
    let wt_ = tensor(&[2, 2], ACL_FLOAT, w)?;
    let bt = tensor(&[2], ACL_FLOAT, b)?;
    let ht = tensor(&[2, 2], ACL_FLOAT, h)?;
    let lpt = tensor(&[2, 2], ACL_FLOAT, lp)?;
    let tt = tensor(&[2], ACL_INT64, tgt)?;
    let wtt = tensor(&[2], ACL_FLOAT, wt)?;
    let losst = tensor(&[1], ACL_FLOAT, loss)?;
    let twt = tensor(&[1], ACL_FLOAT, tw)?;
    let one = 1.0f64;
    let s = o.ops.scalar_raw((&one as *const f64).cast(), ACL_DOUBLE);
    if s.is_null() {
        return Err(-1);
    }
    made.scalars.push(s);
    let launch = |o: &mut OpsTest, op: &str, r: (i32, u64, Ptr)| -> Result<(), i32> {
        let (rc, ws, e) = r;
        if rc != OK {
            return Err(rc);
        }
        let wsp = if ws > 0 {
            o.buf(&vec![0u8; ws as usize])
        } else {
            std::ptr::null_mut()
        };
        match o.ops.launch(op, wsp, ws, e, o.stream) {
            OK => Ok(()),
            rc => Err(rc),
        }
    };
    let r = phase1!(
        o.ops,
        "aclnnAddmmGetWorkspaceSize",
        (Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, i8),
        (bt, xt, wt_, s, s, ht, 0)
    );
    launch(o, "aclnnAddmm", r)?;
    let r = phase1!(o.ops, "aclnnReluGetWorkspaceSize", (Ptr, Ptr), (ht, ht));
    launch(o, "aclnnRelu", r)?;
    let r = phase1!(
        o.ops,
        "aclnnLogSoftmaxGetWorkspaceSize",
        (Ptr, i64, Ptr),
        (ht, 1, lpt)
    );
    launch(o, "aclnnLogSoftmax", r)?;
    let r = phase1!(
        o.ops,
        "aclnnNLLLossGetWorkspaceSize",
        (Ptr, Ptr, Ptr, i64, i64, Ptr, Ptr),
        (lpt, tt, wtt, 1, -100, losst, twt)
    );
    launch(o, "aclnnNLLLoss", r)?;
    let rc = o.t.sync_stream(o.stream);
    if rc != OK {
        return Err(rc);
    }
    Ok(read_f32(&o.t, loss, 1)[0])
}

fn cleanup(o: &OpsTest, made: Made) {
    for t in made.tensors {
        assert_eq!(o.ops.destroy_tensor(t), OK);
    }
    for s in made.scalars {
        assert_eq!(o.ops.destroy_scalar(s), OK);
    }
}

#[test]
fn a_clean_step_computes_the_loss() {
    let mut o = OpsTest::new();
    let mut made = Made::default();
    // h = relu(x @ w + b) = [[0, 0], [2.35, 1.65]]; log_softmax rows; targets [0, 1]
    let loss = step(&mut o, &mut made).expect("the step runs");
    let row1 = {
        let (a, b) = (2.35f64, 1.65f64);
        let m = a.max(b);
        let lse = m + ((a - m).exp() + (b - m).exp()).ln();
        lse - b
    };
    let want = ((2.0f64).ln() + row1) / 2.0;
    assert!(
        (f64::from(loss) - want).abs() < 1e-6,
        "loss {loss}, want {want}"
    );
    cleanup(&o, made);
    o.finish();
}

#[test]
fn a_fault_in_any_call_of_the_step_is_reported_and_leaks_nothing() {
    let functions = [
        "aclCreateTensor",
        "aclCreateScalar",
        "aclnnAddmmGetWorkspaceSize",
        "aclnnAddmm",
        "aclnnReluGetWorkspaceSize",
        "aclnnRelu",
        "aclnnLogSoftmaxGetWorkspaceSize",
        "aclnnLogSoftmax",
        "aclnnNLLLossGetWorkspaceSize",
        "aclnnNLLLoss",
        "aclrtMalloc",
    ];
    for f in functions {
        for nth in [1u64, 2] {
            let mut o = OpsTest::new();
            o.t.s.inject(&Fault::nth(f, nth, 561000)).unwrap();
            let mut made = Made::default();
            let r =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| step(&mut o, &mut made)));
            let calls = o.t.s.call_count(f);
            match r {
                Ok(Err(_)) => {}
                Ok(Ok(_)) => assert!(calls < nth, "{f}@{nth}: the fault was not reported"),
                // a failed aclrtMalloc makes the test helper panic: that is the report
                Err(_) => assert_eq!(f, "aclrtMalloc", "{f}@{nth}: unexpected panic"),
            }
            o.t.s.clear_faults();
            assert_eq!(o.t.sync_stream(o.stream), OK);
            cleanup(&o, made);
            assert_eq!(o.t.s.live(Resource::AclnnExecutor), 0, "{f}@{nth}");
            o.finish();
        }
    }
}
