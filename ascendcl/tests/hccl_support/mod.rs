//! Shared pieces of the HCCL tests: communicators on the mock's devices,
//! one thread per rank, and element types with host reference reductions.

#![allow(dead_code)]

use ascendcl::hccl::{Bf16Bits, Communicator, F16Bits, HcclElement, ReduceOp};
use std::time::Duration;

use ascendcl::{Device, Result};

/// How long a rank waits for its peers in these tests (HCCL's connect and
/// execution timeouts, scaled down from minutes): a test that goes wrong
/// fails with HCCL_E_TIMEOUT instead of hanging.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(10);

/// `n` devices and one communicator per device (`HcclCommInitAll`), with
/// the timeouts scaled down to [`PEER_TIMEOUT`].
pub fn communicators(env: &crate::common::Env, n: u32) -> Result<(Vec<Device>, Vec<Communicator>)> {
    communicators_with_timeout(env, n, PEER_TIMEOUT)
}

/// As [`communicators`], with collectives timing out after `exec`.
pub fn communicators_with_timeout(
    env: &crate::common::Env,
    n: u32,
    exec: Duration,
) -> Result<(Vec<Device>, Vec<Communicator>)> {
    env.session.set_hccl_timeouts(PEER_TIMEOUT, exec);
    let devices: Vec<Device> = (0..n)
        .map(|i| Device::open(&env.rt, i))
        .collect::<Result<_>>()?;
    let comms = Communicator::init_all(&devices)?;
    Ok((devices, comms))
}

/// Runs `f` for every communicator, each on its own thread; every rank's
/// result, or the first error (after every thread has ended).
pub fn on_ranks<T: Send>(
    comms: &[Communicator],
    f: impl Fn(&Communicator) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let f = &f;
    std::thread::scope(|s| {
        let joins: Vec<_> = comms.iter().map(|comm| s.spawn(move || f(comm))).collect();
        joins
            .into_iter()
            .map(|j| j.join().expect("a rank's thread panicked"))
            .collect()
    })
}

/// An element type the tests reduce on the host too. Values are small
/// integers, so every reduction is exact in every type and order.
pub trait TestElement: HcclElement + PartialEq + std::fmt::Debug {
    const NAME: &'static str;
    fn from_i64(v: i64) -> Self;
    fn to_f64(self) -> f64;
    /// Whether negative values are allowed.
    const SIGNED: bool;
}

macro_rules! int_element {
    ($($t:ty: $signed:expr),*) => {$(
        impl TestElement for $t {
            const NAME: &'static str = stringify!($t);
            const SIGNED: bool = $signed;
            fn from_i64(v: i64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
int_element!(i8: true, i16: true, i32: true, i64: true, u8: false, u16: false, u32: false, u64: false, f32: true, f64: true);

/// f32 -> f16 bits, exact for the small integers the tests use.
fn f16_bits(v: f32) -> u16 {
    if v == 0.0 {
        return if v.is_sign_negative() { 0x8000 } else { 0 };
    }
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = ((bits >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | mantissa
}

impl TestElement for F16Bits {
    const NAME: &'static str = "f16";
    const SIGNED: bool = true;
    fn from_i64(v: i64) -> Self {
        F16Bits(f16_bits(v as f32))
    }
    fn to_f64(self) -> f64 {
        f64::from(ascendcl::validate::f16_bits_to_f32(self.0))
    }
}

impl TestElement for Bf16Bits {
    const NAME: &'static str = "bf16";
    const SIGNED: bool = true;
    fn from_i64(v: i64) -> Self {
        Bf16Bits(((v as f32).to_bits() >> 16) as u16)
    }
    fn to_f64(self) -> f64 {
        f64::from(ascendcl::validate::bf16_bits_to_f32(self.0))
    }
}

/// Rank `rank`'s input at index `i`: values in 1..=3 (or -1..=1 when
/// signed), varying with both, so that a swapped rank or index shows.
pub fn input<T: TestElement>(rank: u32, i: usize, salt: u64) -> T {
    let v = ((u64::from(rank) * 7 + i as u64 * 3 + salt) % 3) as i64;
    T::from_i64(if T::SIGNED { v - 1 } else { v + 1 })
}

pub fn inputs<T: TestElement>(rank: u32, len: usize, salt: u64) -> Vec<T> {
    (0..len).map(|i| input(rank, i, salt)).collect()
}

/// `op` over the ranks' values at index `i`, on the host.
pub fn reduced<T: TestElement>(op: ReduceOp, ranks: u32, i: usize, salt: u64) -> T {
    let values = (0..ranks).map(|r| input::<T>(r, i, salt).to_f64());
    let v = match op {
        ReduceOp::Sum => values.sum(),
        ReduceOp::Prod => values.product(),
        ReduceOp::Max => values.fold(f64::MIN, f64::max),
        ReduceOp::Min => values.fold(f64::MAX, f64::min),
    };
    T::from_i64(v as i64)
}

pub const OPS: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min];

/// Names of the HCCL functions called since the journal was cleared.
pub fn hccl_calls(env: &crate::common::Env) -> Vec<String> {
    env.calls()
        .into_iter()
        .filter(|f| f.starts_with("Hccl"))
        .collect()
}

/// As [`on_ranks`], giving each thread its communicator by value (to drop
/// or destroy it there).
pub fn on_owned_ranks<T: Send>(
    comms: Vec<Communicator>,
    f: impl Fn(Communicator) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let f = &f;
    std::thread::scope(|s| {
        let joins: Vec<_> = comms
            .into_iter()
            .map(|comm| s.spawn(move || f(comm)))
            .collect();
        joins
            .into_iter()
            .map(|j| j.join().expect("a rank's thread panicked"))
            .collect()
    })
}
