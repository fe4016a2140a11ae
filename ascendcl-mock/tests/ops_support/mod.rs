//! Shared helpers of the operator-library tests (`tests/ops_*.rs`): the
//! mock's `libnnopbase.so` and `libopapi.so` opened with `libloading` by the
//! paths the build script publishes, the few C signatures the tests call,
//! and device buffers of typed elements.

#![allow(dead_code)]

use std::ffi::c_void;
use std::sync::OnceLock;

use libloading::Library;

pub mod params;

use crate::common::{OK, T};

pub const ACL_FLOAT: i32 = 0;
pub const ACL_FLOAT16: i32 = 1;
pub const ACL_INT8: i32 = 2;
pub const ACL_INT32: i32 = 3;
pub const ACL_UINT8: i32 = 4;
pub const ACL_INT64: i32 = 9;
pub const ACL_DOUBLE: i32 = 11;
pub const ACL_BOOL: i32 = 12;
pub const ACL_STRING: i32 = 13;
pub const ACL_BF16: i32 = 27;
pub const ACL_FORMAT_ND: i32 = 2;

pub const NULLPTR: i32 = 161001;
pub const INVALID: i32 = 161002;
pub const RUNTIME: i32 = 361001;

pub type Ptr = *mut c_void;
pub type CreateTensor =
    unsafe extern "C" fn(*const i64, u64, i32, *const i64, i64, i32, *const i64, u64, Ptr) -> Ptr;
pub type Destroy = unsafe extern "C" fn(Ptr) -> i32;
pub type Phase2 = unsafe extern "C" fn(Ptr, u64, Ptr, Ptr) -> i32;

/// The two operator libraries, opened once per test binary (after the mock
/// itself, which `T::new` selects, so they bind to the same instance).
pub struct Ops {
    pub nn: Library,
    pub op: Library,
}

pub fn ops() -> &'static Ops {
    static OPS: OnceLock<Ops> = OnceLock::new();
    OPS.get_or_init(|| {
        // SAFETY: the mock's libraries run no initialisation beyond the C
        // runtime's; they depend on the already loaded mock (same soname).
        let nn =
            unsafe { Library::new(ascendcl_mock::nnopbase_path()) }.expect("libnnopbase.so loads");
        // SAFETY: as above.
        let op = unsafe { Library::new(ascendcl_mock::opapi_path()) }.expect("libopapi.so loads");
        Ops { nn, op }
    })
}

impl Ops {
    /// A function of libnnopbase.so with the signature `F`.
    ///
    /// # Safety
    /// `F` must be the function's C signature.
    pub unsafe fn nn<F: Copy>(&self, name: &str) -> F {
        // SAFETY: the caller vouches for the signature.
        unsafe {
            *self
                .nn
                .get::<F>(name.as_bytes())
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        }
    }

    /// A function of libopapi.so with the signature `F`.
    ///
    /// # Safety
    /// `F` must be the function's C signature.
    pub unsafe fn op<F: Copy>(&self, name: &str) -> F {
        // SAFETY: the caller vouches for the signature.
        unsafe {
            *self
                .op
                .get::<F>(name.as_bytes())
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        }
    }

    /// A tensor descriptor (null on failure).
    pub fn tensor(
        &self,
        dims: &[i64],
        strides: &[i64],
        offset: i64,
        dtype: i32,
        storage: &[i64],
        addr: Ptr,
    ) -> Ptr {
        assert_eq!(dims.len(), strides.len());
        // SAFETY: the signature of acl_meta.h; the slices outlive the call.
        unsafe {
            self.nn::<CreateTensor>("aclCreateTensor")(
                dims.as_ptr(),
                dims.len() as u64,
                dtype,
                strides.as_ptr(),
                offset,
                ACL_FORMAT_ND,
                storage.as_ptr(),
                storage.len() as u64,
                addr,
            )
        }
    }

    /// A contiguous tensor of shape `dims` at `addr`.
    pub fn contiguous(&self, dims: &[i64], dtype: i32, addr: Ptr) -> Ptr {
        let t = self.tensor(dims, &contiguous_strides(dims), 0, dtype, dims, addr);
        assert!(!t.is_null(), "aclCreateTensor {dims:?} failed");
        t
    }

    pub fn destroy_tensor(&self, t: Ptr) -> i32 {
        // SAFETY: acl_meta.h signature; the mock validates the handle.
        unsafe { self.nn::<Destroy>("aclDestroyTensor")(t) }
    }

    /// A scalar from a host value of `dtype` (null on failure).
    pub fn scalar_raw(&self, value: *const c_void, dtype: i32) -> Ptr {
        // SAFETY: acl_meta.h signature; the mock copies the value during the call.
        unsafe {
            self.nn::<unsafe extern "C" fn(*const c_void, i32) -> Ptr>("aclCreateScalar")(
                value, dtype,
            )
        }
    }

    pub fn scalar_f32(&self, v: f32) -> Ptr {
        let s = self.scalar_raw((&v as *const f32).cast(), ACL_FLOAT);
        assert!(!s.is_null());
        s
    }

    pub fn scalar_f64(&self, v: f64) -> Ptr {
        let s = self.scalar_raw((&v as *const f64).cast(), ACL_DOUBLE);
        assert!(!s.is_null());
        s
    }

    pub fn scalar_i64(&self, v: i64) -> Ptr {
        let s = self.scalar_raw((&v as *const i64).cast(), ACL_INT64);
        assert!(!s.is_null());
        s
    }

    pub fn destroy_scalar(&self, s: Ptr) -> i32 {
        // SAFETY: acl_meta.h signature; the mock validates the handle.
        unsafe { self.nn::<Destroy>("aclDestroyScalar")(s) }
    }

    pub fn int_array(&self, v: &[i64]) -> Ptr {
        // SAFETY: acl_meta.h signature; the slice outlives the call.
        let a = unsafe {
            self.nn::<unsafe extern "C" fn(*const i64, u64) -> Ptr>("aclCreateIntArray")(
                v.as_ptr(),
                v.len() as u64,
            )
        };
        assert!(!a.is_null());
        a
    }

    pub fn bool_array(&self, v: &[bool]) -> Ptr {
        // SAFETY: acl_meta.h signature (bool is one byte in C and Rust); the
        // slice outlives the call.
        let a = unsafe {
            self.nn::<unsafe extern "C" fn(*const bool, u64) -> Ptr>("aclCreateBoolArray")(
                v.as_ptr(),
                v.len() as u64,
            )
        };
        assert!(!a.is_null());
        a
    }

    pub fn destroy_int_array(&self, a: Ptr) -> i32 {
        // SAFETY: acl_meta.h signature; the mock validates the handle.
        unsafe { self.nn::<Destroy>("aclDestroyIntArray")(a) }
    }

    pub fn set_repeatable(&self, e: Ptr) -> i32 {
        // SAFETY: acl_meta.h signature; the mock validates the handle.
        unsafe { self.nn::<Destroy>("aclSetAclOpExecutorRepeatable")(e) }
    }

    pub fn destroy_executor(&self, e: Ptr) -> i32 {
        // SAFETY: acl_meta.h signature; the mock validates the handle.
        unsafe { self.nn::<Destroy>("aclDestroyAclOpExecutor")(e) }
    }

    /// Phase 2 of `op` (e.g. "aclnnAdd").
    pub fn launch(&self, op: &str, ws: Ptr, ws_size: u64, exec: Ptr, stream: Ptr) -> i32 {
        // SAFETY: every aclnnXxx phase 2 has this signature (aclnn-facts.md A.2.3).
        unsafe { self.op::<Phase2>(op)(ws, ws_size, exec, stream) }
    }
}

pub fn contiguous_strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// Device memory holding `bytes`, freed by the test through `T::free`.
pub fn dev(t: &T, bytes: &[u8]) -> Ptr {
    let p = t.malloc(bytes.len().max(32), 0).expect("device memory");
    assert_eq!(t.upload(p, bytes), OK);
    p
}

pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn i64_bytes(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn i32_bytes(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn u16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn read_f32(t: &T, p: Ptr, n: usize) -> Vec<f32> {
    t.download(p, n * 4)
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn read_i64(t: &T, p: Ptr, n: usize) -> Vec<i64> {
    t.download(p, n * 8)
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn read_i32(t: &T, p: Ptr, n: usize) -> Vec<i32> {
    t.download(p, n * 4)
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn read_u16(t: &T, p: Ptr, n: usize) -> Vec<u16> {
    t.download(p, n * 2)
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Asserts `got` equals `want` within `rel` relative error (absolute near 0).
pub fn assert_close(got: &[f32], want: &[f32], rel: f32) {
    assert_eq!(got.len(), want.len(), "lengths: got {got:?}, want {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = rel * w.abs().max(1.0);
        assert!(
            (g - w).abs() <= tol || (g.is_nan() && w.is_nan()),
            "element {i}: got {g}, want {w} (got {got:?}, want {want:?})"
        );
    }
}

/// A test with a device, a stream and the operator libraries.
pub struct OpsTest {
    pub t: T,
    pub ops: &'static Ops,
    pub stream: Ptr,
    buffers: Vec<Ptr>,
    descs: Vec<(Ptr, &'static str)>,
}

impl OpsTest {
    pub fn new() -> OpsTest {
        let t = T::with_device(0);
        let ops = ops();
        let stream = t.create_stream().expect("a stream");
        OpsTest {
            t,
            ops,
            stream,
            buffers: Vec::new(),
            descs: Vec::new(),
        }
    }

    /// Device buffer with `bytes`, freed by `finish`.
    pub fn buf(&mut self, bytes: &[u8]) -> Ptr {
        let p = dev(&self.t, bytes);
        self.buffers.push(p);
        p
    }

    /// Contiguous f32 tensor holding `v`, destroyed by `finish`.
    pub fn f32_tensor(&mut self, dims: &[i64], v: &[f32]) -> (Ptr, Ptr) {
        let p = self.buf(&f32_bytes(v));
        let t = self.ops.contiguous(dims, ACL_FLOAT, p);
        self.descs.push((t, "aclDestroyTensor"));
        (t, p)
    }

    /// A tensor of `dtype` over `bytes` (contiguous), destroyed by `finish`.
    pub fn raw_tensor(&mut self, dims: &[i64], dtype: i32, bytes: &[u8]) -> (Ptr, Ptr) {
        let p = self.buf(bytes);
        let t = self.ops.contiguous(dims, dtype, p);
        self.descs.push((t, "aclDestroyTensor"));
        (t, p)
    }

    /// A view descriptor over an existing buffer, destroyed by `finish`.
    pub fn view(
        &mut self,
        dims: &[i64],
        strides: &[i64],
        offset: i64,
        dtype: i32,
        storage: &[i64],
        p: Ptr,
    ) -> Ptr {
        let t = self.ops.tensor(dims, strides, offset, dtype, storage, p);
        assert!(
            !t.is_null(),
            "view {dims:?} {strides:?} failed: {:?}",
            self.t.recent_msg()
        );
        self.descs.push((t, "aclDestroyTensor"));
        t
    }

    /// Takes a tensor descriptor made elsewhere: destroyed by `finish`.
    pub fn adopt_tensor(&mut self, t: Ptr) {
        self.descs.push((t, "aclDestroyTensor"));
    }

    /// Takes a descriptor destroyed by `destroy` (a function of
    /// libnnopbase.so with the signature (handle) -> status) at `finish`.
    pub fn adopt(&mut self, d: Ptr, destroy: &'static str) {
        self.descs.push((d, destroy));
    }

    /// A descriptor that was created and destroyed (a stale handle), and
    /// the buffer it pointed at.
    pub fn ops_tensor_then_destroy(&mut self, dims: &[i64]) -> (Ptr, Ptr) {
        let n: i64 = dims.iter().product();
        let p = self.buf(&vec![0u8; (n as usize) * 4]);
        let t = self.ops.contiguous(dims, ACL_FLOAT, p);
        assert_eq!(self.ops.destroy_tensor(t), OK);
        (t, p)
    }

    pub fn scalar_f32(&mut self, v: f32) -> Ptr {
        let s = self.ops.scalar_f32(v);
        self.descs.push((s, "aclDestroyScalar"));
        s
    }

    pub fn scalar_f64(&mut self, v: f64) -> Ptr {
        let s = self.ops.scalar_f64(v);
        self.descs.push((s, "aclDestroyScalar"));
        s
    }

    pub fn scalar_i64(&mut self, v: i64) -> Ptr {
        let s = self.ops.scalar_i64(v);
        self.descs.push((s, "aclDestroyScalar"));
        s
    }

    pub fn int_array(&mut self, v: &[i64]) -> Ptr {
        let a = self.ops.int_array(v);
        self.descs.push((a, "aclDestroyIntArray"));
        a
    }

    pub fn bool_array(&mut self, v: &[bool]) -> Ptr {
        let a = self.ops.bool_array(v);
        self.descs.push((a, "aclDestroyBoolArray"));
        a
    }

    /// Runs phase 2 with a workspace of `ws` bytes (allocated if non-zero)
    /// and synchronizes the stream.
    pub fn run(&mut self, op: &str, ws: u64, exec: Ptr) {
        let w = if ws > 0 {
            self.buf(&vec![0u8; ws as usize])
        } else {
            std::ptr::null_mut()
        };
        let rc = self.ops.launch(op, w, ws, exec, self.stream);
        assert_eq!(rc, OK, "{op}: {:?}", self.t.recent_msg());
        assert_eq!(self.t.sync_stream(self.stream), OK);
    }

    /// Destroys every descriptor and buffer, the stream, and asserts the
    /// mock is clean (no live descriptor, executor, buffer; no misuse).
    pub fn finish(self) {
        self.release().assert_clean(1);
    }

    /// Like `finish`, but exactly `n` misuses of `kind` (and no other) must
    /// have been counted.
    pub fn finish_with_misuse(self, kind: ascendcl_mock::Misuse, n: u64) {
        self.finish_with_misuses(&[(kind, n)]);
    }

    /// Like `finish`, but exactly these misuse counts (and no other kind).
    pub fn finish_with_misuses(self, want: &[(ascendcl_mock::Misuse, u64)]) {
        let t = self.release();
        for kind in ascendcl_mock::Misuse::ALL {
            let n = want.iter().find(|(k, _)| *k == kind).map_or(0, |(_, n)| *n);
            assert_eq!(t.s.misuse(kind), n, "misuse {kind:?}: {}", t.s.misuse_log());
        }
        for kind in ascendcl_mock::Resource::ALL {
            let want = u64::from(kind == ascendcl_mock::Resource::DeviceRef);
            assert_eq!(t.s.live(kind), want, "live count of {kind:?}");
        }
    }

    fn release(mut self) -> T {
        for (d, f) in self.descs.drain(..).rev() {
            // SAFETY: each destroy function has the signature (handle) -> status.
            let rc = unsafe { self.ops.nn::<Destroy>(f)(d) };
            assert_eq!(rc, OK, "{f}");
        }
        for p in self.buffers.drain(..) {
            assert_eq!(self.t.free(p), OK);
        }
        assert_eq!(self.t.destroy_stream(self.stream), OK);
        self.t
    }
}

/// Calls a phase-1 function and returns (status, workspace size, executor).
/// (Test helper: the arguments are plain values and descriptor pointers,
/// whose validity the mock checks; the types are the op's C parameters.)
#[allow(unused_macros)] // not every test binary calls an op
macro_rules! phase1 {
    ($ops:expr, $name:literal, ($($ty:ty),*), ($($arg:expr),*)) => {{
        let mut ws: u64 = 0;
        let mut exec: $crate::ops_support::Ptr = std::ptr::null_mut();
        // SAFETY: the parameter types are the op's phase-1 list from its
        // CANN 8.5.0 header, followed by the two standard out-pointers.
        let f = unsafe {
            $ops.op::<unsafe extern "C" fn($($ty,)* *mut u64, *mut $crate::ops_support::Ptr) -> i32>($name)
        };
        // SAFETY: the arguments match the declared types; out-pointers are locals.
        let rc = unsafe { f($($arg,)* &mut ws, &mut exec) };
        (rc, ws, exec)
    }};
}
