//! Indices that operators read from device data: an `nll_loss` target
//! outside `[0, C)` that is not `ignore_index`, a max-pool-backward index
//! outside its plane. Nothing can check them before the kernel runs, and on
//! a card the kernel would read or write out of bounds with them; the mock
//! counts each such launch as misuse (`OUT_OF_BOUNDS`, an abort with
//! `ASCENDCL_MOCK_ABORT_ON_MISUSE=1`) and its kernel touches nothing for
//! them. These tests cause misuse on purpose, so they are not in CI's
//! abort-on-misuse run; the abort is checked in a child process.

mod common;

use ascendcl::ops::{self, Reduction, Tensor, TensorMut, Window, Workspace};
use ascendcl::prelude::*;
use ascendcl_mock::Misuse;

use common::Env;

/// Runs `test` on a fresh mock, then checks that everything was released
/// and nothing was parked (misuse is the test's to check).
fn run(test: impl FnOnce(&Env) -> ascendcl::Result<()>) {
    let env = common::env();
    if let Err(error) = test(&env) {
        panic!("test failed: {error}");
    }
    let live = env.session.live_counts();
    assert!(live.is_empty(), "resources still alive: {live:?}");
    let parked = ascendcl::take_deferred_errors();
    assert!(parked.is_empty(), "{parked:?}");
}

const C: usize = 4;
/// Log-probabilities of 3 samples over 4 classes: row n is -(n*4 + c + 1)/10.
fn log_probs() -> Vec<f32> {
    (0..3 * C).map(|i| -((i + 1) as f32) / 10.0).collect()
}

/// `nll_loss` with reduction none of the 3 samples for `targets`: the loss
/// per sample.
fn nll_none(env: &Env, targets: &[i64]) -> ascendcl::Result<Vec<f32>> {
    let (_device, ctx) = env.device0();
    let stream = Stream::new(&ctx)?;
    let x = DeviceBuffer::from_host(&ctx, &log_probs())?;
    let t = DeviceBuffer::from_host(&ctx, targets)?;
    let w = DeviceBuffer::from_host(&ctx, &[1.0f32; C])?;
    let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 3)?;
    let mut tw = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
    ops::nll_loss(
        &Tensor::new(&x, &[3, C])?,
        &Tensor::new(&t, &[3])?,
        &Tensor::new(&w, &[C])?,
        Reduction::None,
        -100,
        TensorMut::new(&mut out, &[3])?,
        TensorMut::new(&mut tw, &[1])?,
    )?
    .launch(&stream, Workspace::none())?
    .wait()?;
    out.to_vec()
}

#[test]
fn an_nll_loss_target_out_of_range_is_misuse_and_its_loss_is_nan() {
    run(|env| {
        let loss = nll_none(env, &[1, 2, -100])?;
        assert_eq!(loss, vec![0.2, 0.7, 0.0], "in range, and ignored");
        assert_eq!(env.session.misuse_total(), 0);

        let loss = nll_none(env, &[1, 7, -3])?;
        assert_eq!(loss[0], 0.2);
        assert!(loss[1].is_nan() && loss[2].is_nan(), "{loss:?}");
        assert_eq!(env.session.misuse(Misuse::OutOfBounds), 1, "one per launch");
        let log = env.session.misuse_log();
        assert!(
            log.contains("aclnnNLLLoss: 2 target(s) outside [0, 4) and not ignoreIndex -100 (first: 7, of sample 1)"),
            "{log}"
        );
        Ok(())
    });
}

#[test]
fn an_nll_loss_backward_target_out_of_range_is_misuse_and_leaves_its_row_zero() {
    run(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let x = DeviceBuffer::from_host(&ctx, &log_probs())?;
        let t = DeviceBuffer::from_host(&ctx, &[1i64, 4, 0])?;
        let w = DeviceBuffer::from_host(&ctx, &[1.0f32; C])?;
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32; 3])?;
        let tw = DeviceBuffer::from_host(&ctx, &[3.0f32])?;
        let mut grad = DeviceBuffer::from_host(&ctx, &[9.0f32; 3 * C])?;
        ops::nll_loss_backward(
            &Tensor::new(&g, &[3])?,
            &Tensor::new(&x, &[3, C])?,
            &Tensor::new(&t, &[3])?,
            &Tensor::new(&w, &[C])?,
            Reduction::None,
            -100,
            &Tensor::new(&tw, &[1])?,
            TensorMut::new(&mut grad, &[3, C])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        let mut want = vec![0.0f32; 3 * C];
        want[1] = -1.0; // sample 0, class 1
        want[2 * C] = -1.0; // sample 2, class 0; sample 1 (target 4) stays zero
        assert_eq!(grad.to_vec()?, want);
        assert_eq!(env.session.misuse(Misuse::OutOfBounds), 1);
        assert!(
            env.session
                .misuse_log()
                .contains("aclnnNLLLossBackward: 1 target(s) outside [0, 4)"),
            "{}",
            env.session.misuse_log()
        );
        Ok(())
    });
}

#[test]
fn a_max_pool_backward_index_outside_its_plane_is_misuse_and_is_skipped() {
    run(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let win = Window::square(2, 0);
        let xs: Vec<f32> = (0..16).map(|i| i as f32).collect();
        let x = DeviceBuffer::from_host(&ctx, &xs)?;
        let (mut out, mut idx) = (
            DeviceBuffer::<f32>::zeroed(&ctx, 4)?,
            DeviceBuffer::<i32>::zeroed(&ctx, 4)?,
        );
        ops::max_pool2d_with_indices(
            &Tensor::new(&x, &[1, 1, 4, 4])?,
            [2, 2],
            &win,
            false,
            TensorMut::new(&mut out, &[1, 1, 2, 2])?,
            TensorMut::new(&mut idx, &[1, 1, 2, 2])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(idx.to_vec()?, vec![5, 7, 13, 15]);
        let g = DeviceBuffer::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0])?;
        let backward = |indices: &[i32]| -> ascendcl::Result<Vec<f32>> {
            let ix = DeviceBuffer::from_host(&ctx, indices)?;
            let mut gi = DeviceBuffer::from_host(&ctx, &[9.0f32; 16])?;
            ops::max_pool2d_with_indices_backward(
                &Tensor::new(&g, &[1, 1, 2, 2])?,
                &Tensor::new(&x, &[1, 1, 4, 4])?,
                &Tensor::new(&ix, &[1, 1, 2, 2])?,
                [2, 2],
                &win,
                false,
                TensorMut::new(&mut gi, &[1, 1, 4, 4])?,
            )?
            .launch(&stream, Workspace::none())?
            .wait()?;
            gi.to_vec()
        };
        let mut want = vec![0.0f32; 16];
        (want[5], want[7], want[13], want[15]) = (1.0, 2.0, 3.0, 4.0);
        assert_eq!(backward(&[5, 7, 13, 15])?, want);
        assert_eq!(env.session.misuse_total(), 0);
        want[7] = 0.0;
        assert_eq!(backward(&[5, 16, 13, 15])?, want, "index 16 is skipped");
        assert_eq!(env.session.misuse(Misuse::OutOfBounds), 1);
        let log = env.session.misuse_log();
        assert!(
            log.contains(
                "aclnnMaxPool2dWithIndicesBackward: 1 index(es) outside the 4 x 4 plane (first: 16)"
            ),
            "{log}"
        );
        Ok(())
    });
}

#[test]
fn with_abort_on_misuse_an_out_of_range_target_stops_the_process() {
    const NAME: &str = "with_abort_on_misuse_an_out_of_range_target_stops_the_process";
    const CHILD: &str = "ASCENDCL_OPS_INDEX_HAZARD_CHILD";
    if std::env::var(CHILD).is_ok() {
        let env = common::env();
        let _ = nll_none(&env, &[0, 5, 0]);
        println!("survived an out-of-range target");
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("ASCENDCL_MOCK_ABORT_ON_MISUSE", "1")
        .output()
        .expect("the test binary runs");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(6), "SIGABRT: {:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("misuse OUT_OF_BOUNDS"), "{stderr}");
    assert!(stderr.contains("aclnnNLLLoss: 1 target(s)"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("survived"));
}
