//! Dropout on the mock (batch ops3b): the properties of the generated mask
//! that hold on a card too (the same seed and offset give the same mask,
//! the bit layout do-mask reads, a kept fraction of `1 - prob` within
//! binomial noise) and the mock's own stream rule (offset `k` shifts the
//! stream by `k` elements); the argument checks of the four operators; and
//! `DropoutBackward` against central differences of `DropoutDoMask`, with a
//! negated gradient shown to fail the same check. (PyTorch cannot give a
//! golden for the random bits; the do-mask and the backward given a mask are
//! in the `ops3b` goldens.)

mod common;

use ascendcl::ops::{self, DType, Tensor, TensorMut, Workspace};
use ascendcl::prelude::*;

use common::refused;

/// The mask of `elements` elements for (prob, seed, offset).
fn mask(
    ctx: &Context,
    stream: &Stream,
    elements: usize,
    prob: f64,
    seed: i64,
    offset: i64,
) -> ascendcl::Result<Vec<u8>> {
    let n = ops::dropout_mask_len(elements);
    let mut m = DeviceBuffer::<u8>::zeroed(ctx, n)?;
    ops::dropout_gen_mask(
        &[elements as i64],
        prob,
        seed,
        offset,
        TensorMut::new(&mut m, &[n])?,
    )?
    .launch(stream, Workspace::none())?
    .wait()?;
    m.to_vec()
}

fn bit(m: &[u8], i: usize) -> bool {
    (m[i / 8] >> (i % 8)) & 1 == 1
}

#[test]
fn the_same_seed_and_offset_give_the_same_mask_and_another_seed_or_offset_another() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let a = mask(&ctx, &stream, 4096, 0.5, 7, 0)?;
        assert_eq!(a, mask(&ctx, &stream, 4096, 0.5, 7, 0)?);
        assert_ne!(a, mask(&ctx, &stream, 4096, 0.5, 8, 0)?);
        assert_ne!(a, mask(&ctx, &stream, 4096, 0.5, 7, 4096)?);
        Ok(())
    });
}

#[test]
fn on_the_mock_an_offset_of_k_shifts_the_stream_by_k_elements() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let a = mask(&ctx, &stream, 1024, 0.3, 99, 0)?;
        for k in [1usize, 3, 8, 200] {
            let b = mask(&ctx, &stream, 1024, 0.3, 99, k as i64)?;
            for i in 0..1024 - k {
                assert_eq!(bit(&b, i), bit(&a, i + k), "offset {k}, element {i}");
            }
        }
        Ok(())
    });
}

#[test]
fn the_kept_fraction_is_one_minus_prob_within_five_binomial_standard_deviations() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let n = 128 * 800;
        for (prob, seed) in [(0.1, 1), (0.3, 2), (0.5, 3), (0.9, 4)] {
            let m = mask(&ctx, &stream, n, prob, seed, 0)?;
            let kept: u32 = m.iter().map(|b| b.count_ones()).sum();
            let (mean, sd) = (
                n as f64 * (1.0 - prob),
                (n as f64 * prob * (1.0 - prob)).sqrt(),
            );
            assert!(
                (f64::from(kept) - mean).abs() <= 5.0 * sd,
                "prob {prob}: kept {kept} of {n}, expected {mean} ± {}",
                5.0 * sd
            );
        }
        Ok(())
    });
}

#[test]
fn prob_0_sets_every_bit_prob_1_none_and_v2_with_f32_gives_v1s_mask() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        assert!(
            mask(&ctx, &stream, 300, 0.0, 5, 0)?
                .iter()
                .all(|&b| b == 0xFF)
        );
        assert!(mask(&ctx, &stream, 300, 1.0, 5, 0)?.iter().all(|&b| b == 0));
        let v1 = mask(&ctx, &stream, 1000, 0.4, 5, 16)?;
        let mut v2 = DeviceBuffer::<u8>::zeroed(&ctx, v1.len())?;
        ops::dropout_gen_mask_v2(
            &[10, 100],
            0.4,
            5,
            16,
            DType::F32,
            TensorMut::new(&mut v2, &[v1.len()])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        assert_eq!(v2.to_vec()?, v1);
        Ok(())
    });
}

#[test]
fn do_mask_keeps_exactly_the_elements_whose_bit_is_set_lsb_first_and_scales_them() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let n = 300;
        let m = mask(&ctx, &stream, n, 0.5, 11, 0)?;
        let (ones, mb) = (
            DeviceBuffer::from_host(&ctx, &vec![1.0f32; n])?,
            DeviceBuffer::from_host(&ctx, &m)?,
        );
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, n)?;
        ops::dropout_do_mask(
            &Tensor::new(&ones, &[n])?,
            &Tensor::new(&mb, &[m.len()])?,
            0.5,
            TensorMut::new(&mut y, &[n])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        for (i, v) in y.to_vec()?.into_iter().enumerate() {
            assert_eq!(v, if bit(&m, i) { 2.0 } else { 0.0 }, "element {i}");
        }
        Ok(())
    });
}

#[test]
fn the_dropout_ops_refuse_a_wrong_mask_size_a_non_u8_mask_a_bad_prob_or_scale_and_an_i32_self() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let mut m15 = DeviceBuffer::<u8>::zeroed(&ctx, 15)?;
        let mut m32 = DeviceBuffer::<u8>::zeroed(&ctx, 32)?;
        let mut f = DeviceBuffer::<f32>::zeroed(&ctx, 16)?;
        refused(
            "15 mask bytes for 100 elements",
            "aclnnDropoutGenMask",
            ops::dropout_gen_mask(&[100], 0.5, 0, 0, TensorMut::new(&mut m15, &[15])?),
        );
        refused(
            "an f32 mask",
            "aclnnDropoutGenMask",
            ops::dropout_gen_mask(&[100], 0.5, 0, 0, TensorMut::new(&mut f, &[16])?),
        );
        refused(
            "prob 1.5",
            "aclnnDropoutGenMask",
            ops::dropout_gen_mask(&[100], 1.5, 0, 0, TensorMut::new(&mut m32, &[16])?),
        );
        refused(
            "an i32 probDataType",
            "aclnnDropoutGenMaskV2",
            ops::dropout_gen_mask_v2(
                &[100],
                0.5,
                0,
                0,
                DType::I32,
                TensorMut::new(&mut m32, &[16])?,
            ),
        );
        let x = DeviceBuffer::from_host(&ctx, &[1.0f32; 200])?;
        let xi = DeviceBuffer::from_host(&ctx, &[1i32; 200])?;
        let (short, long) = (
            DeviceBuffer::<u8>::zeroed(&ctx, 16)?,
            DeviceBuffer::<u8>::zeroed(&ctx, 48)?,
        );
        let mut y = DeviceBuffer::<f32>::zeroed(&ctx, 200)?;
        let xt = Tensor::new(&x, &[200])?;
        refused(
            "16 mask bytes for 200 elements",
            "aclnnDropoutDoMask",
            ops::dropout_do_mask(
                &xt,
                &Tensor::new(&short, &[16])?,
                0.5,
                TensorMut::new(&mut y, &[200])?,
            ),
        );
        refused(
            "an i32 self",
            "aclnnDropoutDoMask",
            ops::dropout_do_mask(
                &Tensor::new(&xi, &[200])?,
                &Tensor::new(&long, &[48])?,
                0.5,
                TensorMut::new(&mut y, &[200])?,
            ),
        );
        refused(
            "48 mask bytes where the backward needs exactly 32",
            "aclnnDropoutBackward",
            ops::dropout_backward(
                &xt,
                &Tensor::new(&long, &[48])?,
                2.0,
                TensorMut::new(&mut y, &[200])?,
            ),
        );
        refused(
            "scale 0.5 (p = -1)",
            "aclnnDropoutBackward",
            ops::dropout_backward(
                &xt,
                &Tensor::new(&long, &[32])?,
                0.5,
                TensorMut::new(&mut y, &[200])?,
            ),
        );
        Ok(())
    });
}

/// `Σ w·do_mask(x)` on the mock.
fn loss(
    ctx: &Context,
    stream: &Stream,
    x: &[f32],
    w: &[f32],
    m: &[u8],
    p: f64,
) -> ascendcl::Result<f64> {
    let (xb, mb) = (
        DeviceBuffer::from_host(ctx, x)?,
        DeviceBuffer::from_host(ctx, m)?,
    );
    let mut y = DeviceBuffer::<f32>::zeroed(ctx, x.len())?;
    ops::dropout_do_mask(
        &Tensor::new(&xb, &[x.len()])?,
        &Tensor::new(&mb, &[m.len()])?,
        p,
        TensorMut::new(&mut y, &[x.len()])?,
    )?
    .launch(stream, Workspace::none())?
    .wait()?;
    Ok(y.to_vec()?
        .iter()
        .zip(w)
        .map(|(a, b)| f64::from(*a) * f64::from(*b))
        .sum())
}

#[test]
fn dropout_backward_matches_central_differences_of_do_mask_and_a_negated_gradient_fails() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let (n, p, h) = (40usize, 0.25, 1e-2f32);
        let m = mask(&ctx, &stream, n, p, 3, 0)?;
        let wave = |k: f32| (0..n).map(|i| ((i as f32) * k).sin()).collect::<Vec<f32>>();
        // v = w: the directional derivative Σ w²·bit·scale cannot vanish
        let (x, w) = (wave(0.7), wave(2.1));
        let v = w.clone();
        let step = |by: f32| {
            x.iter()
                .zip(&v)
                .map(|(a, d)| a + by * d)
                .collect::<Vec<f32>>()
        };
        let numeric = (loss(&ctx, &stream, &step(h), &w, &m, p)?
            - loss(&ctx, &stream, &step(-h), &w, &m, p)?)
            / (2.0 * f64::from(h));
        let (wb, mb) = (
            DeviceBuffer::from_host(&ctx, &w)?,
            DeviceBuffer::from_host(&ctx, &m)?,
        );
        let mut dx = DeviceBuffer::<f32>::zeroed(&ctx, n)?;
        ops::dropout_backward(
            &Tensor::new(&wb, &[n])?,
            &Tensor::new(&mb, &[m.len()])?,
            1.0 / (1.0 - p),
            TensorMut::new(&mut dx, &[n])?,
        )?
        .launch(&stream, Workspace::none())?
        .wait()?;
        let analytic: f64 = dx
            .to_vec()?
            .iter()
            .zip(&v)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum();
        let agrees = |g: f64| (numeric - g).abs() <= 2e-3 * (1.0 + g.abs());
        assert!(
            analytic.abs() > 0.1,
            "a direction the mask does not hide: {analytic}"
        );
        assert!(
            agrees(analytic),
            "numeric {numeric} vs DropoutBackward {analytic}"
        );
        assert!(!agrees(-analytic), "a negated gradient must fail the check");
        Ok(())
    });
}
