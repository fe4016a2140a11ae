//! Raw `ascendcl-sys` operator sequences, the baselines the safe layer's
//! launches are measured against: what a careful C++ caller of aclnn writes
//! (descriptors, phase 1, phase 2, destroys), with no tracking at all.
//!
//! Every function here panics on a failed call: a baseline that fails has
//! nothing to measure.

use std::ffi::c_void;

use ascendcl::sys::{
    Aclnn, aclDataType, aclFormat, aclIntArray, aclOpExecutor, aclScalar, aclTensor, aclrtStream,
};

/// Row-major strides of `shape`.
pub fn contiguous(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1].max(1);
    }
    strides
}

/// Launches operators through raw calls on one stream, with one workspace.
#[derive(Debug, Clone, Copy)]
pub struct RawOps<'a> {
    /// The operator libraries.
    pub aclnn: &'a Aclnn,
    /// The stream everything is launched on (its context current).
    pub stream: aclrtStream,
    /// Device memory for workspaces (or null).
    pub workspace: *mut c_void,
    /// Its size in bytes.
    pub workspace_len: u64,
}

/// A phase 1 call: fills the workspace size and the executor.
pub type Phase1<'f> = dyn FnOnce(*mut u64, *mut *mut aclOpExecutor) -> i32 + 'f;
/// A phase 2 call: workspace, its size, executor, stream.
pub type Phase2<'f> = dyn FnOnce(*mut c_void, u64, *mut aclOpExecutor, aclrtStream) -> i32 + 'f;

impl RawOps<'_> {
    /// A descriptor of a `dtype` view of `data` (storage of `storage`
    /// elements, 1-D).
    ///
    /// # Safety
    /// `data` is live device memory of at least `storage` elements, and the
    /// view (shape, strides, offset 0) lies inside it.
    pub unsafe fn tensor(
        &self,
        data: *mut c_void,
        shape: &[i64],
        strides: &[i64],
        storage: i64,
        dtype: aclDataType,
    ) -> *mut aclTensor {
        // SAFETY: valid arrays of the given lengths; `data` as the caller says.
        let t = unsafe {
            self.aclnn.aclCreateTensor(
                shape.as_ptr(),
                shape.len() as u64,
                dtype,
                strides.as_ptr(),
                0,
                aclFormat::ACL_FORMAT_ND,
                [storage].as_ptr(),
                1,
                data,
            )
        }
        .expect("aclCreateTensor");
        assert!(!t.is_null(), "aclCreateTensor refused {shape:?}");
        t
    }

    /// A contiguous f32 descriptor over `data`.
    ///
    /// # Safety
    /// As [`RawOps::tensor`], with storage of the shape's element count.
    pub unsafe fn f32s(&self, data: *mut c_void, shape: &[i64]) -> *mut aclTensor {
        let storage = shape.iter().product::<i64>().max(1);
        // SAFETY: forwarded to the caller.
        unsafe {
            self.tensor(
                data,
                shape,
                &contiguous(shape),
                storage,
                aclDataType::ACL_FLOAT,
            )
        }
    }

    /// An f32 scalar descriptor (the value is copied by `aclCreateScalar`).
    pub fn scalar(&self, value: f32) -> *mut aclScalar {
        let mut v = value;
        // SAFETY: a valid pointer to an f32.
        let s = unsafe {
            self.aclnn
                .aclCreateScalar((&raw mut v).cast(), aclDataType::ACL_FLOAT)
        }
        .expect("aclCreateScalar");
        assert!(!s.is_null(), "aclCreateScalar refused");
        s
    }

    /// An int array descriptor (values copied).
    pub fn ints(&self, values: &[i64]) -> *mut aclIntArray {
        // SAFETY: a valid array of the given length.
        let a = unsafe {
            self.aclnn
                .aclCreateIntArray(values.as_ptr(), values.len() as u64)
        }
        .expect("aclCreateIntArray");
        assert!(!a.is_null(), "aclCreateIntArray refused");
        a
    }

    /// Runs phase 1 and phase 2 of one operator with the workspace.
    pub fn launch(&self, name: &str, phase1: Box<Phase1<'_>>, phase2: Box<Phase2<'_>>) {
        let (mut size, mut executor) = (0u64, std::ptr::null_mut());
        let status = phase1(&raw mut size, &raw mut executor);
        assert_eq!(status, 0, "{name} phase 1");
        assert!(
            size <= self.workspace_len,
            "{name} needs {size} bytes of workspace"
        );
        let workspace = if size == 0 {
            std::ptr::null_mut()
        } else {
            self.workspace
        };
        assert_eq!(
            phase2(workspace, size, executor, self.stream),
            0,
            "{name} phase 2"
        );
    }

    /// Destroys tensor descriptors.
    pub fn drop_tensors(&self, tensors: &[*mut aclTensor]) {
        for &t in tensors {
            // SAFETY: descriptors this module created, destroyed once.
            unsafe { self.aclnn.aclDestroyTensor(t) }.expect("aclDestroyTensor");
        }
    }

    /// Destroys scalar descriptors.
    pub fn drop_scalars(&self, scalars: &[*mut aclScalar]) {
        for &s in scalars {
            // SAFETY: descriptors this module created, destroyed once.
            unsafe { self.aclnn.aclDestroyScalar(s) }.expect("aclDestroyScalar");
        }
    }

    /// Destroys int array descriptors.
    pub fn drop_ints(&self, arrays: &[*mut aclIntArray]) {
        for &a in arrays {
            // SAFETY: descriptors this module created, destroyed once.
            unsafe { self.aclnn.aclDestroyIntArray(a) }.expect("aclDestroyIntArray");
        }
    }

    /// One fresh ReLU of `len` f32 elements: `y = relu(x)`.
    ///
    /// # Safety
    /// `x` and `y` are live device buffers of `len` f32.
    pub unsafe fn relu(&self, x: *mut c_void, y: *mut c_void, len: i64) {
        // SAFETY: as the caller says.
        let (a, b) = unsafe { (self.f32s(x, &[len]), self.f32s(y, &[len])) };
        let aclnn = self.aclnn;
        self.launch(
            "Relu",
            // SAFETY: live descriptors and valid out-pointers.
            Box::new(|ws, ex| unsafe { aclnn.aclnnReluGetWorkspaceSize(a, b, ws, ex) }.unwrap()),
            // SAFETY: the executor phase 1 returned, a live stream.
            Box::new(|w, n, ex, s| unsafe { aclnn.aclnnRelu(w, n, ex, s) }.unwrap()),
        );
        self.drop_tensors(&[a, b]);
    }

    /// One fresh `1×1×4×4` convolution with a `1×1×3×3` kernel, padding 1.
    ///
    /// # Safety
    /// `x` and `y` hold 16 f32, `w` 9 f32, all live device memory.
    pub unsafe fn conv3x3(&self, x: *mut c_void, w: *mut c_void, y: *mut c_void) {
        // SAFETY: as the caller says.
        let (tx, tw, ty) = unsafe {
            (
                self.f32s(x, &[1, 1, 4, 4]),
                self.f32s(w, &[1, 1, 3, 3]),
                self.f32s(y, &[1, 1, 4, 4]),
            )
        };
        let (stride, pad, dilation, out_pad) = (
            self.ints(&[1, 1]),
            self.ints(&[1, 1]),
            self.ints(&[1, 1]),
            self.ints(&[0, 0]),
        );
        let aclnn = self.aclnn;
        self.launch(
            "Convolution",
            Box::new(|ws, ex| {
                // SAFETY: live descriptors (no bias) and valid out-pointers.
                unsafe {
                    aclnn.aclnnConvolutionGetWorkspaceSize(
                        tx,
                        tw,
                        std::ptr::null(),
                        stride,
                        pad,
                        dilation,
                        false,
                        out_pad,
                        1,
                        ty,
                        0,
                        ws,
                        ex,
                    )
                }
                .unwrap()
            }),
            // SAFETY: the executor phase 1 returned, a live stream.
            Box::new(|w, n, ex, s| unsafe { aclnn.aclnnConvolution(w, n, ex, s) }.unwrap()),
        );
        self.drop_ints(&[stride, pad, dilation, out_pad]);
        self.drop_tensors(&[tx, tw, ty]);
    }
}
