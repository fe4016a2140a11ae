//! Shared helpers of the HCCL tests (`tests/hccl_*.rs`): the mock's
//! `libhccl.so` opened with `libloading` (communicator symbols found through
//! its handle, as the loader of ascendcl-sys does), the C signatures the
//! tests call, and a harness that runs one closure per rank on its own
//! thread and device.

#![allow(dead_code)]

use std::ffi::c_void;
use std::sync::OnceLock;
use std::time::Duration;

use libloading::Library;

use crate::common::{OK, T};

pub type Ptr = *mut c_void;
pub type Comm = *mut c_void;

pub const SUCCESS: i32 = 0;
pub const E_PARA: i32 = 1;
pub const E_PTR: i32 = 2;
pub const E_NOT_SUPPORT: i32 = 5;
pub const E_TIMEOUT: i32 = 9;
pub const E_TCP_CONNECT: i32 = 11;
pub const E_AGAIN: i32 = 20;
/// What a stream with a failed collective reports at synchronize.
pub const STREAM_FAILED: i32 = 507018;
pub const STREAM_TIMEOUT: i32 = 507017;

pub const INT8: i32 = 0;
pub const INT16: i32 = 1;
pub const INT32: i32 = 2;
pub const FP16: i32 = 3;
pub const FP32: i32 = 4;
pub const INT64: i32 = 5;
pub const UINT64: i32 = 6;
pub const UINT8: i32 = 7;
pub const UINT16: i32 = 8;
pub const UINT32: i32 = 9;
pub const FP64: i32 = 10;
pub const BFP16: i32 = 11;

pub const SUM: i32 = 0;
pub const PROD: i32 = 1;
pub const MAX: i32 = 2;
pub const MIN: i32 = 3;

/// Every dtype the mock moves and reduction tests try, with its element
/// size (which of them reduce with which op: [`reduces`]).
pub const DTYPES: [(i32, usize); 12] = [
    (INT8, 1),
    (INT16, 2),
    (INT32, 4),
    (INT64, 8),
    (UINT8, 1),
    (UINT16, 2),
    (UINT32, 4),
    (UINT64, 8),
    (FP16, 2),
    (BFP16, 2),
    (FP32, 4),
    (FP64, 8),
];
pub const OPS: [i32; 4] = [SUM, PROD, MAX, MIN];

/// Whether CANN 8.5.0's HCCL reduces `dtype` with `op` on an Ascend 910B
/// (the mock's chip): unsigned integers and fp64 never (hcomm v8.5.0
/// hccl_communicator_host.cc:788-804), PROD not of int16 or bf16
/// (param_check.cc:318-338); every other call is refused with
/// `HCCL_E_NOT_SUPPORT` before anything is queued.
pub fn reduces(dtype: i32, op: i32) -> bool {
    let unsigned_or_f64 = matches!(dtype, UINT8 | UINT16 | UINT32 | UINT64 | FP64);
    !unsigned_or_f64 && !(op == PROD && (dtype == INT16 || dtype == BFP16))
}

/// The 4108-byte root info.
#[repr(C)]
pub struct RootInfo(pub [u8; 4108]);

pub type GetRootInfo = unsafe extern "C" fn(*mut RootInfo) -> i32;
pub type InitRootInfo = unsafe extern "C" fn(u32, *const RootInfo, u32, *mut Comm) -> i32;
pub type InitAll = unsafe extern "C" fn(u32, *mut i32, *mut Comm) -> i32;
pub type CommFn = unsafe extern "C" fn(Comm) -> i32;
pub type CommU32 = unsafe extern "C" fn(Comm, *mut u32) -> i32;
pub type AsyncError = unsafe extern "C" fn(Comm, *mut i32) -> i32;
pub type Barrier = unsafe extern "C" fn(Comm, Ptr) -> i32;
pub type AllReduce = unsafe extern "C" fn(Ptr, Ptr, u64, i32, i32, Comm, Ptr) -> i32;
pub type Broadcast = unsafe extern "C" fn(Ptr, u64, i32, u32, Comm, Ptr) -> i32;
pub type AllGather = unsafe extern "C" fn(Ptr, Ptr, u64, i32, Comm, Ptr) -> i32;
pub type ReduceScatter = unsafe extern "C" fn(Ptr, Ptr, u64, i32, i32, Comm, Ptr) -> i32;
pub type Reduce = unsafe extern "C" fn(Ptr, Ptr, u64, i32, i32, u32, Comm, Ptr) -> i32;
pub type Scatter = unsafe extern "C" fn(Ptr, Ptr, u64, i32, u32, Comm, Ptr) -> i32;
pub type SendRecv = unsafe extern "C" fn(Ptr, u64, i32, u32, Comm, Ptr) -> i32;
pub type ErrorString = unsafe extern "C" fn(i32) -> *const std::ffi::c_char;

/// `libhccl.so`, opened once per test binary after the mock (which `T::new`
/// selects), so it binds to the same instance.
pub fn hccl() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: the mock's libraries run no initialisation beyond registering
        // a reset hook with the already loaded mock.
        unsafe { Library::new(ascendcl_mock::hccl_path()) }.expect("libhccl.so loads")
    })
}

/// A function of libhccl.so (or of libhcomm.so through it) of signature `F`.
///
/// # Safety
/// `F` must be the function's C signature.
pub unsafe fn f<F: Copy>(name: &str) -> F {
    // SAFETY: the caller vouches for the signature.
    unsafe {
        *hccl()
            .get::<F>(name.as_bytes())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

/// A fresh mock with short HCCL timeouts (connect, exec).
pub fn fresh(connect_ms: u64, exec_ms: u64) -> T {
    let t = T::new();
    hccl();
    t.s.set_hccl_timeouts(
        Duration::from_millis(connect_ms),
        Duration::from_millis(exec_ms),
    );
    t
}

/// Communicators for devices 0..n in this process.
pub fn init_all(n: u32) -> Vec<Comm> {
    let mut devs: Vec<i32> = (0..n as i32).collect();
    let mut comms = vec![std::ptr::null_mut(); n as usize];
    // SAFETY: `devs` and `comms` hold n elements each.
    let rc = unsafe { f::<InitAll>("HcclCommInitAll")(n, devs.as_mut_ptr(), comms.as_mut_ptr()) };
    assert_eq!(rc, SUCCESS, "HcclCommInitAll");
    comms
}

pub fn destroy(c: Comm) -> i32 {
    // SAFETY: the test passes handles it got from init (or probes bad ones on purpose).
    unsafe { f::<CommFn>("HcclCommDestroy")(c) }
}

pub fn async_error(c: Comm) -> i32 {
    let mut e = -1;
    // SAFETY: `e` is a valid out-pointer.
    let rc = unsafe { f::<AsyncError>("HcclGetCommAsyncError")(c, &mut e) };
    assert_eq!(rc, SUCCESS);
    e
}

/// What one rank's thread gets: the test's view, its rank, comm, device
/// (current on the thread) and a stream of that device.
pub struct Rank<'a> {
    pub t: &'a T,
    pub rank: u32,
    pub n: u32,
    pub comm: Comm,
    pub stream: Ptr,
}

impl Rank<'_> {
    /// A device buffer holding `data`.
    pub fn upload(&self, data: &[u8]) -> Ptr {
        let p = self.t.malloc(data.len().max(1), 0).expect("device memory");
        if !data.is_empty() {
            assert_eq!(self.t.upload(p, data), OK);
        }
        p
    }

    pub fn download(&self, p: Ptr, len: usize) -> Vec<u8> {
        self.t.download(p, len)
    }

    pub fn sync(&self) -> i32 {
        self.t.sync_stream(self.stream)
    }

    pub fn free(&self, p: Ptr) {
        assert_eq!(self.t.free(p), OK);
    }
}

/// Runs `body` for every rank of communicators made by HcclCommInitAll on
/// devices 0..n, each on its own thread with its device set and a stream of
/// its own; destroys everything afterwards. Returns the closures' results.
pub fn ranks<R: Send>(t: &T, n: u32, body: impl Fn(&Rank) -> R + Sync) -> Vec<R> {
    let comms = init_all(n);
    let out = std::thread::scope(|sc| {
        let handles: Vec<_> = comms
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let comm = c as usize;
                let body = &body;
                sc.spawn(move || {
                    assert_eq!(t.set_device(i as i32), OK);
                    let stream = t.create_stream().expect("a stream");
                    let r = Rank {
                        t,
                        rank: i as u32,
                        n,
                        comm: comm as Comm,
                        stream,
                    };
                    let res = body(&r);
                    assert_eq!(t.destroy_stream(stream), OK);
                    assert_eq!(t.reset_device(i as i32), OK);
                    res
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a rank panicked"))
            .collect::<Vec<R>>()
    });
    for c in comms {
        assert_eq!(destroy(c), SUCCESS);
    }
    out
}

/// Deterministic test data: `count` elements of `es` bytes for `rank`,
/// chosen so that every reduction stays finite and exact enough to compare.
pub fn data(dtype: i32, es: usize, count: usize, rank: u32, salt: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(count * es);
    for i in 0..count {
        let k = (i as u32)
            .wrapping_mul(7)
            .wrapping_add(rank * 13 + salt * 5)
            % 11;
        let x = k as f64 - 4.0; // -4 ..= 6: small integers, exact in every type
        match dtype {
            FP16 => v.extend_from_slice(&f32_to_f16(x as f32 * 0.5).to_le_bytes()),
            BFP16 => {
                v.extend_from_slice(&((((x as f32) * 0.5).to_bits() >> 16) as u16).to_le_bytes())
            }
            FP32 => v.extend_from_slice(&((x as f32) * 0.5).to_le_bytes()),
            FP64 => v.extend_from_slice(&(x * 0.5).to_le_bytes()),
            _ => {
                let u = if dtype == UINT8 || dtype == UINT16 || dtype == UINT32 || dtype == UINT64 {
                    k as u64 + 1
                } else {
                    x as i64 as u64
                };
                v.extend_from_slice(&u.to_le_bytes()[..es]);
            }
        }
    }
    v
}

/// f32 -> IEEE half, for exactly representable small values.
pub fn f32_to_f16(x: f32) -> u16 {
    if x == 0.0 {
        return if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = ((b >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | man
}

/// f32 -> IEEE half, rounded to nearest even (normal range and zero).
pub fn f16_rne(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let a = b & 0x7fff_ffff;
    if a == 0 {
        return sign;
    }
    let exp = (a >> 23) as i32 - 127 + 15;
    assert!(
        (1..31).contains(&exp),
        "test values stay in the normal half range"
    );
    let man = a & 0x7f_ffff;
    let mut half = ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && half & 1 == 1) {
        half += 1;
    }
    sign | half as u16
}

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f32;
    if exp == 0 {
        return sign * man * 2f32.powi(-24);
    }
    sign * (1.0 + man / 1024.0) * 2f32.powi(exp - 15)
}

pub fn bf16_rne(x: f32) -> u16 {
    let u = x.to_bits();
    ((u + 0x7fff + ((u >> 16) & 1)) >> 16) as u16
}

/// The host reference of a reduction over `inputs` (one per rank, in rank
/// order): integers wrap in their width, f16/bf16 reduce in f32 and round
/// once, f32/f64 in their own precision.
pub fn reduce_ref(dtype: i32, es: usize, op: i32, inputs: &[Vec<u8>]) -> Vec<u8> {
    let count = inputs[0].len() / es;
    let mut out = Vec::with_capacity(count * es);
    for i in 0..count {
        let el = |r: usize| &inputs[r][i * es..(i + 1) * es];
        match dtype {
            FP16 | BFP16 | FP32 => {
                let get = |r: usize| -> f32 {
                    let b = el(r);
                    match dtype {
                        FP16 => f16_to_f32(u16::from_le_bytes([b[0], b[1]])),
                        BFP16 => f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16),
                        _ => f32::from_le_bytes(b.try_into().unwrap()),
                    }
                };
                let mut acc = get(0);
                for r in 1..inputs.len() {
                    let x = get(r);
                    acc = match op {
                        SUM => acc + x,
                        PROD => acc * x,
                        MAX => acc.max(x),
                        _ => acc.min(x),
                    };
                }
                match dtype {
                    FP16 => out.extend_from_slice(&f16_rne(acc).to_le_bytes()),
                    BFP16 => out.extend_from_slice(&bf16_rne(acc).to_le_bytes()),
                    _ => out.extend_from_slice(&acc.to_le_bytes()),
                }
            }
            FP64 => {
                let get = |r: usize| f64::from_le_bytes(el(r).try_into().unwrap());
                let mut acc = get(0);
                for r in 1..inputs.len() {
                    let x = get(r);
                    acc = match op {
                        SUM => acc + x,
                        PROD => acc * x,
                        MAX => acc.max(x),
                        _ => acc.min(x),
                    };
                }
                out.extend_from_slice(&acc.to_le_bytes());
            }
            _ => {
                let signed = matches!(dtype, INT8 | INT16 | INT32 | INT64);
                let bits = es as u32 * 8;
                let get = |r: usize| -> i128 {
                    let mut b = [0u8; 8];
                    b[..es].copy_from_slice(el(r));
                    let u = u64::from_le_bytes(b);
                    if signed {
                        ((u << (64 - bits)) as i64 >> (64 - bits)) as i128
                    } else {
                        u as i128
                    }
                };
                let mask: u128 = if bits == 64 {
                    u64::MAX as u128
                } else {
                    (1u128 << bits) - 1
                };
                let mut acc = get(0);
                for r in 1..inputs.len() {
                    let x = get(r);
                    acc = match op {
                        SUM => ((acc.wrapping_add(x) as u128) & mask) as i128,
                        PROD => ((acc.wrapping_mul(x) as u128) & mask) as i128,
                        MAX => acc.max(x),
                        _ => acc.min(x),
                    };
                    if signed && matches!(op, SUM | PROD) {
                        // back to the signed value of the width
                        let u = acc as u128 as u64;
                        acc = ((u << (64 - bits)) as i64 >> (64 - bits)) as i128;
                    }
                }
                out.extend_from_slice(&(acc as u128 as u64).to_le_bytes()[..es]);
            }
        }
    }
    out
}
