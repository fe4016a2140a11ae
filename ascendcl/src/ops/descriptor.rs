//! RAII descriptors of libnnopbase: tensors, scalars, int arrays.
//!
//! They live only from phase 1 to the return of phase 2: the executor copies
//! what it needs (torch_npu destroys them right after launching too).

use std::ffi::c_void;

use ascendcl_sys::{
    Aclnn, aclBoolArray, aclFloatArray, aclFormat, aclIntArray, aclScalar, aclTensor, aclTensorList,
};

use crate::call::recent_message;
use crate::context::Context;
use crate::error::{AclError, Error, Result};
use crate::ops::DType;
use crate::ops::scalar::Scalar;
use crate::ops::tensor::{Layout, Storage};

/// An error for a descriptor creation that returned null.
fn creation_failed(ctx: &Context, function: &'static str) -> Error {
    // Null carries no status; the text (if any) says why.
    AclError::new(
        ascendcl_sys::ACLNN_ERR_PARAM_INVALID,
        function,
        recent_message(ctx.lib()),
    )
    .into()
}

/// Runs a destroy from a destructor: tried twice (a failed destroy leaves
/// the object alive, so trying again is sound), then parked.
fn destroy(
    what: &'static str,
    mut call: impl FnMut() -> std::result::Result<i32, ascendcl_sys::SymbolError>,
) {
    crate::deferred::release(what, || match call() {
        Ok(0) => Ok(()),
        Ok(code) => Err(AclError::new(code, what, None).into()),
        Err(missing) => Err(missing.into()),
    });
}

/// An `aclTensor`.
pub(crate) struct TensorDesc {
    pub(crate) raw: *mut aclTensor,
    aclnn: &'static Aclnn,
    /// Destroyed by us; false once a [`TensorListDesc`] owns it.
    owned: bool,
}

impl TensorDesc {
    /// A tensor of `format` (ND for every aclnn operator here; NCHW or NHWC
    /// for the DVPP operators, which read the image layout from it).
    pub(crate) fn new(
        aclnn: &'static Aclnn,
        storage: &Storage<'_>,
        dtype: DType,
        layout: &Layout,
        format: aclFormat,
    ) -> Result<TensorDesc> {
        let storage_dims = [i64::try_from(storage.len)
            .map_err(|_| Error::invalid("tensor storage too large for int64"))?];
        // SAFETY: the arrays live across the call and hold `len` values; the
        // device address is live memory borrowed by the view (the runtime
        // only records it).
        let raw = unsafe {
            aclnn.aclCreateTensor(
                layout.shape.as_ptr(),
                layout.shape.len() as u64,
                dtype.raw(),
                layout.strides.as_ptr(),
                layout.offset,
                format,
                storage_dims.as_ptr(),
                1,
                storage.ptr,
            )
        }?;
        if raw.is_null() {
            return Err(creation_failed(storage.ctx, "aclCreateTensor"));
        }
        Ok(TensorDesc {
            raw,
            aclnn,
            owned: true,
        })
    }
}

impl Drop for TensorDesc {
    fn drop(&mut self) {
        if !self.owned {
            return; // its list destroys it
        }
        // SAFETY: a descriptor we created, destroyed once.
        destroy("aclDestroyTensor", || unsafe {
            self.aclnn.aclDestroyTensor(self.raw)
        });
    }
}

/// An `aclScalar`.
pub(crate) struct ScalarDesc {
    pub(crate) raw: *mut aclScalar,
    aclnn: &'static Aclnn,
}

impl ScalarDesc {
    pub(crate) fn new(aclnn: &'static Aclnn, ctx: &Context, value: Scalar) -> Result<ScalarDesc> {
        let mut bytes = value.bytes();
        // SAFETY: `bytes` holds one value of the declared dtype; the runtime
        // copies it during the call.
        let raw = unsafe {
            aclnn.aclCreateScalar(bytes.as_mut_ptr().cast::<c_void>(), value.dtype().raw())
        }?;
        if raw.is_null() {
            return Err(creation_failed(ctx, "aclCreateScalar"));
        }
        Ok(ScalarDesc { raw, aclnn })
    }
}

impl Drop for ScalarDesc {
    fn drop(&mut self) {
        // SAFETY: a scalar we created, destroyed once.
        destroy("aclDestroyScalar", || unsafe {
            self.aclnn.aclDestroyScalar(self.raw)
        });
    }
}

/// An `aclIntArray`.
pub(crate) struct IntArrayDesc {
    pub(crate) raw: *mut aclIntArray,
    aclnn: &'static Aclnn,
}

impl IntArrayDesc {
    pub(crate) fn new(
        aclnn: &'static Aclnn,
        ctx: &Context,
        values: &[i64],
    ) -> Result<IntArrayDesc> {
        // SAFETY: `values` holds `len` int64s; the runtime copies them.
        let raw = unsafe { aclnn.aclCreateIntArray(values.as_ptr(), values.len() as u64) }?;
        if raw.is_null() {
            return Err(creation_failed(ctx, "aclCreateIntArray"));
        }
        Ok(IntArrayDesc { raw, aclnn })
    }
}

impl Drop for IntArrayDesc {
    fn drop(&mut self) {
        // SAFETY: an array we created, destroyed once.
        destroy("aclDestroyIntArray", || unsafe {
            self.aclnn.aclDestroyIntArray(self.raw)
        });
    }
}

/// An `aclFloatArray`.
pub(crate) struct FloatArrayDesc {
    pub(crate) raw: *mut aclFloatArray,
    aclnn: &'static Aclnn,
}

impl FloatArrayDesc {
    pub(crate) fn new(
        aclnn: &'static Aclnn,
        ctx: &Context,
        values: &[f32],
    ) -> Result<FloatArrayDesc> {
        // SAFETY: `values` holds `len` floats; the runtime copies them.
        let raw = unsafe { aclnn.aclCreateFloatArray(values.as_ptr(), values.len() as u64) }?;
        if raw.is_null() {
            return Err(creation_failed(ctx, "aclCreateFloatArray"));
        }
        Ok(FloatArrayDesc { raw, aclnn })
    }
}

impl Drop for FloatArrayDesc {
    fn drop(&mut self) {
        // SAFETY: an array we created, destroyed once.
        destroy("aclDestroyFloatArray", || unsafe {
            self.aclnn.aclDestroyFloatArray(self.raw)
        });
    }
}

/// An `aclBoolArray`.
pub(crate) struct BoolArrayDesc {
    pub(crate) raw: *mut aclBoolArray,
    aclnn: &'static Aclnn,
}

impl BoolArrayDesc {
    pub(crate) fn new(
        aclnn: &'static Aclnn,
        ctx: &Context,
        values: &[bool],
    ) -> Result<BoolArrayDesc> {
        // SAFETY: `values` holds `len` bools; the runtime copies them.
        let raw = unsafe { aclnn.aclCreateBoolArray(values.as_ptr(), values.len() as u64) }?;
        if raw.is_null() {
            return Err(creation_failed(ctx, "aclCreateBoolArray"));
        }
        Ok(BoolArrayDesc { raw, aclnn })
    }
}

impl Drop for BoolArrayDesc {
    fn drop(&mut self) {
        // SAFETY: an array we created, destroyed once.
        destroy("aclDestroyBoolArray", || unsafe {
            self.aclnn.aclDestroyBoolArray(self.raw)
        });
    }
}

/// An `aclTensorList`. It owns its tensors: `aclDestroyTensorList` destroys
/// them ("the aclTensor in the aclTensorList does not need to be destroyed
/// again", CANN 8.5.0 aclDestroyTensorList, Constraints), so the
/// [`TensorDesc`]s it was made of are marked not owned once it exists.
pub(crate) struct TensorListDesc {
    pub(crate) raw: *mut aclTensorList,
    aclnn: &'static Aclnn,
}

impl TensorListDesc {
    /// A list of `members` (our tensors, in order). On failure the members
    /// stay ours (a failed create takes nothing).
    pub(crate) fn new(
        aclnn: &'static Aclnn,
        ctx: &Context,
        members: &mut [TensorDesc],
    ) -> Result<TensorListDesc> {
        let raws: Vec<*const aclTensor> = members.iter().map(|m| m.raw.cast_const()).collect();
        // SAFETY: `raws` holds `len` live tensors we own, none in a list yet;
        // the runtime copies the pointer array during the call.
        let raw = unsafe { aclnn.aclCreateTensorList(raws.as_ptr(), raws.len() as u64) }?;
        if raw.is_null() {
            return Err(creation_failed(ctx, "aclCreateTensorList"));
        }
        for m in members {
            m.owned = false;
        }
        Ok(TensorListDesc { raw, aclnn })
    }
}

impl Drop for TensorListDesc {
    fn drop(&mut self) {
        // SAFETY: a list we created, destroyed once (with its tensors).
        destroy("aclDestroyTensorList", || unsafe {
            self.aclnn.aclDestroyTensorList(self.raw)
        });
    }
}
