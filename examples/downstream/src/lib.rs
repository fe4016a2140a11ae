//! A downstream crate of `ascendcl`: loads a model's weights onto the device.
//!
//! Its code takes a `&Runtime`, so its program calls `Runtime::init()` (see
//! `src/main.rs`) and its tests `Runtime::mock()` (see `tests/`).

use ascendcl::prelude::*;
use ascendcl::{Context, Result};

/// Weights on one device: one buffer per named tensor.
#[derive(Debug)]
pub struct Weights {
    /// (name, device buffer), in the order given.
    pub tensors: Vec<(String, DeviceBuffer<f32>)>,
}

impl Weights {
    /// Uploads every tensor to `ctx`'s device. On an error nothing stays
    /// allocated: the buffers uploaded so far are dropped (freed).
    pub fn upload(ctx: &Context, tensors: &[(&str, &[f32])]) -> Result<Weights> {
        let mut uploaded = Vec::with_capacity(tensors.len());
        for (name, values) in tensors {
            uploaded.push((name.to_string(), DeviceBuffer::from_host(ctx, values)?));
        }
        Ok(Weights { tensors: uploaded })
    }

    /// Sum of every weight, read back from the device.
    pub fn checksum(&self) -> Result<f64> {
        let mut sum = 0.0;
        for (_, buffer) in &self.tensors {
            sum += buffer.to_vec()?.iter().map(|&x| f64::from(x)).sum::<f64>();
        }
        Ok(sum)
    }
}

/// Opens device 0 and uploads `tensors`: what the program runs.
pub fn load(rt: &Runtime, tensors: &[(&str, &[f32])]) -> Result<(Device, Weights)> {
    let device = Device::open(rt, 0)?;
    let weights = Weights::upload(&device.default_context(), tensors)?;
    Ok((device, weights))
}
