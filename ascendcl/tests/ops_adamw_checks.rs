//! The argument checks of `aclnnApplyAdamWV2` as the real operator makes
//! them (each rule cited in the mock's `op_adamw.c`), and its step
//! convention: the `step` tensor holds the steps taken so far, so two
//! launches with step 0 then 1 equal PyTorch's two first steps, and the op
//! leaves `step` unchanged.

mod common;

use ascendcl::ops::{self, AdamW, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

#[test]
fn adamw_refuses_amsgrad_without_its_maximum_a_step_of_two_elements_and_an_int32_step() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut var = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut m = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut v = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let grad = DeviceBuffer::from_host(&ctx, &[1.0f32; 4])?;
        let step2 = DeviceBuffer::from_host(&ctx, &[0.0f32, 0.0])?;
        let step_i32 = DeviceBuffer::from_host(&ctx, &[0i32])?;
        let step = DeviceBuffer::from_host(&ctx, &[0.0f32])?;
        // phase 1 only: the refusal's text, or None when accepted
        let mut attempt = |step: Tensor<'_>, grad_shape: &[usize], hyper: AdamW| {
            let r = ops::apply_adam_w_v2(
                TensorMut::new(&mut var, &[4])?,
                TensorMut::new(&mut m, &[4])?,
                TensorMut::new(&mut v, &[4])?,
                None,
                &Tensor::new(&grad, grad_shape)?,
                &step,
                hyper,
            );
            Ok::<_, ascendcl::Error>(r.err().map(|e| e.to_string()))
        };
        let amsgrad = AdamW {
            amsgrad: true,
            ..AdamW::default()
        };
        let why = attempt(Tensor::new(&step, &[1])?, &[4], amsgrad)?;
        assert!(
            why.as_deref()
                .is_some_and(|w| w.contains("maxGradNormOptionalRef")),
            "amsgrad without max_grad_norm: {why:?}"
        );
        let why = attempt(Tensor::new(&step2, &[2])?, &[4], AdamW::default())?;
        assert!(why.is_some_and(|w| w.contains("step")), "a 2-element step");
        let why = attempt(Tensor::new(&step_i32, &[1])?, &[4], AdamW::default())?;
        assert!(why.is_some_and(|w| w.contains("step")), "an int32 step");
        let why = attempt(Tensor::new(&step, &[1])?, &[2, 2], AdamW::default())?;
        assert!(
            why.is_some_and(|w| w.contains("grad")),
            "grad [2, 2] for var [4]"
        );
        Ok(())
    });
}

/// PyTorch's AdamW for one weight from zero moments, in f64: the weight
/// after one step per gradient.
fn reference(mut var: f64, grads: &[f64], h: &AdamW) -> f64 {
    let (b1, b2) = (f64::from(h.beta1), f64::from(h.beta2));
    let (lr, wd, eps) = (f64::from(h.lr), f64::from(h.weight_decay), f64::from(h.eps));
    let (mut m, mut v) = (0.0, 0.0);
    for (i, g) in grads.iter().enumerate() {
        let t = (i + 1) as f64;
        var *= 1.0 - lr * wd;
        m += (g - m) * (1.0 - b1);
        v = v * b2 + g * g * (1.0 - b2);
        let denom = v.sqrt() / (1.0 - b2.powf(t)).sqrt() + eps;
        var -= lr / (1.0 - b1.powf(t)) * m / denom;
    }
    var
}

#[test]
fn two_launches_with_step_0_then_1_are_pytorchs_first_two_steps_and_step_is_not_written() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let mut var = DeviceBuffer::from_host(&ctx, &[1.0f32])?;
        let mut m = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let mut v = DeviceBuffer::<f32>::zeroed(&ctx, 1)?;
        let grads = [0.5f32, -0.25];
        let hyper = AdamW {
            lr: 0.1,
            ..AdamW::default()
        };
        for (taken, g) in grads.iter().enumerate() {
            let grad = DeviceBuffer::from_host(&ctx, &[*g])?;
            let step = DeviceBuffer::from_host(&ctx, &[taken as i64])?;
            ops::apply_adam_w_v2(
                TensorMut::new(&mut var, &[1])?,
                TensorMut::new(&mut m, &[1])?,
                TensorMut::new(&mut v, &[1])?,
                None,
                &Tensor::new(&grad, &[1])?,
                &Tensor::new(&step, &[1])?,
                hyper,
            )?
            .launch(&stream, Workspace::none())?
            .wait()?;
            assert_eq!(
                step.to_vec()?,
                vec![taken as i64],
                "step is read, not written"
            );
        }
        let want = reference(1.0, &[0.5, -0.25], &hyper);
        let got = f64::from(var.to_vec()?[0]);
        assert!((got - want).abs() < 1e-6, "{got} vs PyTorch's {want}");
        // with the other convention (t = step) the first launch divides by 0
        assert!(got.is_finite());
        Ok(())
    });
}
