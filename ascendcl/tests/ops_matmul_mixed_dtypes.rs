//! Matrix products of two different float dtypes run, as CANN's shared
//! matmul rule promotes them (ops-nn v8.5.0, matmul/common/op_host/op_api/
//! matmul_util.cpp:2144-2162, :2191-2226: f16 or bf16 with f32 to f32, f16
//! with bf16 to f32) instead of refusing them. The inputs and products here
//! are exact in every dtype involved, so the expected values are exact.

mod common;

use ascendcl::ops::{self, CubeMath, DType, Tensor, TensorMut};
use ascendcl::prelude::*;

/// f16 bits of 1.0, 0.5, -2.0, 0.25 (a 2×2 matrix).
const A_F16: [u16; 4] = [0x3C00, 0x3800, 0xC000, 0x3400];
/// bf16 bits of the same values.
const A_BF16: [u16; 4] = [0x3F80, 0x3F00, 0xC000, 0x3E80];
const B_F32: [f32; 4] = [1.5, 2.0, 0.25, -1.0];
/// f16 bits of `B_F32`.
const B_F16: [u16; 4] = [0x3E00, 0x4000, 0x3400, 0xBC00];
/// `A @ B`.
const PRODUCT: [f32; 4] = [1.625, 1.5, -2.9375, -4.25];

#[test]
fn mm_addmm_and_matmul_of_mixed_float_dtypes_promote_to_f32() {
    common::check(|env| {
        let (_device, ctx) = env.device0();
        let stream = Stream::new(&ctx)?;
        let a16 = DeviceBuffer::from_host(&ctx, &A_F16)?;
        let abf = DeviceBuffer::from_host(&ctx, &A_BF16)?;
        let b32 = DeviceBuffer::from_host(&ctx, &B_F32)?;
        let b16 = DeviceBuffer::from_host(&ctx, &B_F16)?;
        let bias = DeviceBuffer::from_host(&ctx, &[1.0f32, -1.0])?;
        let mut out = DeviceBuffer::<f32>::zeroed(&ctx, 4)?;
        let mut ws = DeviceBuffer::<u8>::zeroed(&ctx, 4096)?;
        let pairs = [
            (
                "f16 x f32",
                Tensor::with_dtype(&a16, &[2, 2], DType::F16)?,
                Tensor::new(&b32, &[2, 2])?,
            ),
            (
                "bf16 x f32",
                Tensor::with_dtype(&abf, &[2, 2], DType::BF16)?,
                Tensor::new(&b32, &[2, 2])?,
            ),
            (
                "bf16 x f16",
                Tensor::with_dtype(&abf, &[2, 2], DType::BF16)?,
                Tensor::with_dtype(&b16, &[2, 2], DType::F16)?,
            ),
        ];
        for (what, a, b) in &pairs {
            ops::mm(
                a,
                b,
                TensorMut::new(&mut out, &[2, 2])?,
                CubeMath::KeepDtype,
            )?
            .launch(&stream, &mut ws)?
            .wait()?;
            assert_eq!(out.to_vec()?, PRODUCT, "mm {what}");
            ops::matmul(
                a,
                b,
                TensorMut::new(&mut out, &[2, 2])?,
                CubeMath::KeepDtype,
            )?
            .launch(&stream, &mut ws)?
            .wait()?;
            assert_eq!(out.to_vec()?, PRODUCT, "matmul {what}");
            ops::addmm(
                &Tensor::new(&bias, &[2])?,
                a,
                b,
                1.0f32,
                1.0f32,
                TensorMut::new(&mut out, &[2, 2])?,
                CubeMath::KeepDtype,
            )?
            .launch(&stream, &mut ws)?
            .wait()?;
            let with_bias: Vec<f32> = PRODUCT
                .iter()
                .enumerate()
                .map(|(i, p)| p + if i % 2 == 0 { 1.0 } else { -1.0 })
                .collect();
            assert_eq!(out.to_vec()?, with_bias, "addmm {what}");
        }
        Ok(())
    });
}
