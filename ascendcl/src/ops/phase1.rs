//! Building an operator's phase 1: descriptors, then
//! `aclnnXxxGetWorkspaceSize`, giving a [`Prepared`] operator.

use std::ffi::c_void;

use ascendcl_sys::{
    Aclnn, Dvpp, SymbolError, aclBoolArray, aclFloatArray, aclFormat, aclIntArray, aclOpExecutor,
    aclScalar, aclTensor, aclTensorList, acldvppStatus, aclnnStatus, aclrtStream,
};

use crate::call::recent_message;
use crate::context::Context;
use crate::error::{AclError, Error, Result};
use crate::few::Few;
use crate::ops::descriptor::{
    BoolArrayDesc, FloatArrayDesc, IntArrayDesc, ScalarDesc, TensorDesc, TensorListDesc,
};
use crate::ops::prepared::{Prepared, Slot, SlotKind};
use crate::ops::scalar::Scalar;
use crate::ops::slots::Slots;
use crate::ops::tensor::{Storage, Tensor, TensorMut};
use crate::verified_names::VerifiedNames;

/// The launch function of an aclnn operator (`aclnnXxx`).
pub(crate) type AclnnPhase2 = unsafe fn(
    &Aclnn,
    *mut c_void,
    u64,
    *mut aclOpExecutor,
    aclrtStream,
) -> std::result::Result<aclnnStatus, SymbolError>;

/// The launch function of a DVPP operator (`acldvppXxx`).
pub(crate) type DvppPhase2 = unsafe fn(
    &Dvpp,
    *mut c_void,
    u64,
    *mut aclOpExecutor,
    aclrtStream,
) -> std::result::Result<acldvppStatus, SymbolError>;

/// An operator's launch: an aclnn operator's or a DVPP operator's (the
/// DVPP operators take aclnn descriptors and executors, from their own
/// library).
#[derive(Clone, Copy)]
pub(crate) enum Phase2 {
    Aclnn(AclnnPhase2),
    Dvpp(&'static Dvpp, DvppPhase2),
}

impl Phase2 {
    /// Calls the launch function.
    ///
    /// # Safety
    /// As the C function: a live executor from this operator's phase 1, a
    /// workspace of at least `size` bytes (or null for 0), a live stream.
    #[inline]
    pub(crate) unsafe fn call(
        self,
        aclnn: &Aclnn,
        workspace: *mut c_void,
        size: u64,
        executor: *mut aclOpExecutor,
        stream: aclrtStream,
    ) -> std::result::Result<i32, SymbolError> {
        match self {
            // SAFETY: the caller's contract.
            Phase2::Aclnn(f) => unsafe { f(aclnn, workspace, size, executor, stream) },
            // SAFETY: the caller's contract.
            Phase2::Dvpp(dvpp, f) => unsafe { f(dvpp, workspace, size, executor, stream) },
        }
    }

    /// The C prefix of the operator's functions: `aclnn` or `acldvpp`.
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Phase2::Aclnn(_) => "aclnn",
            Phase2::Dvpp(..) => "acldvpp",
        }
    }

    /// The launch function's name, for error reports.
    pub(crate) fn name(self, op: &str) -> &'static str {
        match self {
            Phase2::Aclnn(_) => phase2_name(op),
            Phase2::Dvpp(..) => crate::dvpp::function_name(op, ""),
        }
    }
}

/// The libraries for the runtime of `ctx`, with operator `op` usable.
pub(crate) fn aclnn_for(ctx: &Context, op: &'static str) -> Result<&'static Aclnn> {
    /// The operators whose two functions resolved: checked once per process.
    static VERIFIED: VerifiedNames = VerifiedNames::new();
    let aclnn = ctx.aclnn()?;
    VERIFIED.check(aclnn, op, || aclnn.require_op(op))?;
    Ok(aclnn)
}

/// Descriptors and borrows collected for one operator.
pub(crate) struct Phase1<'a> {
    pub(crate) op: &'static str,
    /// `aclnn` or `acldvpp`: the C prefix of the operator's functions.
    pub(crate) prefix: &'static str,
    /// The format of the tensors described next (ND but for DVPP images).
    pub(crate) format: aclFormat,
    pub(crate) float_arrays: Few<FloatArrayDesc>,
    pub(crate) aclnn: &'static Aclnn,
    pub(crate) ctx: &'a Context,
    pub(crate) reads: Few<Storage<'a>>,
    pub(crate) writes: Few<Storage<'a>>,
    pub(crate) tensors: Few<TensorDesc>,
    pub(crate) scalars: Few<ScalarDesc>,
    pub(crate) arrays: Few<IntArrayDesc>,
    pub(crate) bool_arrays: Few<BoolArrayDesc>,
    pub(crate) lists: Few<TensorListDesc>,
    pub(crate) slots: Slots,
}

impl<'a> Phase1<'a> {
    /// Starts operator `op` (its name without `aclnn`) on the device of `ctx`.
    pub(crate) fn new(op: &'static str, ctx: &'a Context) -> Result<Phase1<'a>> {
        Ok(Phase1 {
            op,
            prefix: "aclnn",
            format: aclFormat::ACL_FORMAT_ND,
            float_arrays: Few::new(),
            aclnn: aclnn_for(ctx, op)?,
            ctx,
            reads: Few::new(),
            writes: Few::new(),
            tensors: Few::new(),
            scalars: Few::new(),
            arrays: Few::new(),
            bool_arrays: Few::new(),
            lists: Few::new(),
            slots: Slots::new(),
        })
    }

    /// Starts DVPP operator `op` (its name without `acldvpp`), whose
    /// descriptors come from the aclnn library of `ctx`'s runtime.
    pub(crate) fn new_dvpp(op: &'static str, ctx: &'a Context) -> Result<Phase1<'a>> {
        Ok(Phase1 {
            op,
            prefix: "acldvpp",
            format: aclFormat::ACL_FORMAT_ND,
            float_arrays: Few::new(),
            aclnn: ctx.aclnn()?,
            ctx,
            reads: Few::new(),
            writes: Few::new(),
            tensors: Few::new(),
            scalars: Few::new(),
            arrays: Few::new(),
            bool_arrays: Few::new(),
            lists: Few::new(),
            slots: Slots::new(),
        })
    }

    /// A float array (held until the launch returns).
    pub(crate) fn floats(&mut self, values: &[f32]) -> Result<*const aclFloatArray> {
        let desc = FloatArrayDesc::new(self.aclnn, self.ctx, values)?;
        let raw = desc.raw;
        self.float_arrays.push(desc);
        Ok(raw)
    }

    fn same_device(&self, storage: &Storage<'_>, role: &str) -> Result<()> {
        if storage.ctx.device_id() == self.ctx.device_id() {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "{}{}: `{role}` is on device {} but the first tensor on device {}",
            self.prefix,
            self.op,
            storage.ctx.device_id(),
            self.ctx.device_id()
        )))
    }

    fn describe(
        &mut self,
        storage: &Storage<'a>,
        t: (crate::ops::DType, &crate::ops::tensor::Layout),
    ) -> Result<*mut aclTensor> {
        let format = self.format;
        let desc = TensorDesc::new(self.aclnn, storage, t.0, t.1, format)?;
        let raw = desc.raw;
        self.tensors.push(desc);
        Ok(raw)
    }

    /// A tensor the operator reads.
    pub(crate) fn input(&mut self, role: &str, t: &Tensor<'a>) -> Result<*const aclTensor> {
        self.same_device(&t.storage, role)?;
        let raw = self.describe(&t.storage, (t.dtype, &t.layout))?;
        self.reads.push(t.storage);
        self.slots.push(Slot::of(
            SlotKind::Input,
            self.tensors.len() - 1,
            t.dtype,
            &t.layout,
        ));
        Ok(raw)
    }

    /// A tensor the operator writes.
    pub(crate) fn output(&mut self, role: &str, t: TensorMut<'a>) -> Result<*mut aclTensor> {
        self.same_device(&t.storage, role)?;
        let raw = self.describe(&t.storage, (t.dtype, &t.layout))?;
        self.writes.push(t.storage);
        self.slots.push(Slot::of(
            SlotKind::Output,
            self.tensors.len() - 1,
            t.dtype,
            &t.layout,
        ));
        Ok(raw)
    }

    /// A tensor the operator reads and writes in place (an input slot of the
    /// executor).
    pub(crate) fn in_place(&mut self, role: &str, t: TensorMut<'a>) -> Result<*mut aclTensor> {
        self.same_device(&t.storage, role)?;
        let raw = self.describe(&t.storage, (t.dtype, &t.layout))?;
        self.writes.push(t.storage);
        self.slots.push(Slot::of(
            SlotKind::InPlace,
            self.tensors.len() - 1,
            t.dtype,
            &t.layout,
        ));
        Ok(raw)
    }

    /// An optional tensor the operator reads (null when absent).
    pub(crate) fn input_opt(
        &mut self,
        role: &str,
        t: Option<&Tensor<'a>>,
    ) -> Result<*const aclTensor> {
        match t {
            Some(t) => self.input(role, t),
            None => Ok(std::ptr::null()),
        }
    }

    /// An optional tensor the operator writes (null when not wanted).
    pub(crate) fn output_opt(
        &mut self,
        role: &str,
        t: Option<TensorMut<'a>>,
    ) -> Result<*mut aclTensor> {
        match t {
            Some(t) => self.output(role, t),
            None => Ok(std::ptr::null_mut()),
        }
    }

    /// Wraps the tensors described since index `first` into a tensor list
    /// (which then owns them; their slots stay, for re-pointing).
    fn list_from(&mut self, first: usize) -> Result<*mut aclTensorList> {
        let desc = TensorListDesc::new(self.aclnn, self.ctx, &mut self.tensors[first..])?;
        let raw = desc.raw;
        self.lists.push(desc);
        Ok(raw)
    }

    /// A tensor list the operator reads (`role` names it in errors).
    pub(crate) fn input_list(
        &mut self,
        role: &str,
        ts: &[&Tensor<'a>],
    ) -> Result<*const aclTensorList> {
        let first = self.tensors.len();
        for (i, t) in ts.iter().enumerate() {
            self.input(&format!("{role}[{i}]"), t)?;
        }
        Ok(self.list_from(first)?.cast_const())
    }

    /// A tensor list the operator writes.
    pub(crate) fn output_list(
        &mut self,
        role: &str,
        ts: Vec<TensorMut<'a>>,
    ) -> Result<*mut aclTensorList> {
        let first = self.tensors.len();
        for (i, t) in ts.into_iter().enumerate() {
            self.output(&format!("{role}[{i}]"), t)?;
        }
        self.list_from(first)
    }

    /// A bool array.
    pub(crate) fn bools(&mut self, values: &[bool]) -> Result<*const aclBoolArray> {
        let desc = BoolArrayDesc::new(self.aclnn, self.ctx, values)?;
        let raw = desc.raw;
        self.bool_arrays.push(desc);
        Ok(raw)
    }

    /// A scalar.
    pub(crate) fn scalar(&mut self, value: Scalar) -> Result<*const aclScalar> {
        let desc = ScalarDesc::new(self.aclnn, self.ctx, value)?;
        let raw = desc.raw;
        self.scalars.push(desc);
        Ok(raw)
    }

    /// An int64 array.
    pub(crate) fn ints(&mut self, values: &[i64]) -> Result<*const aclIntArray> {
        let desc = IntArrayDesc::new(self.aclnn, self.ctx, values)?;
        let raw = desc.raw;
        self.arrays.push(desc);
        Ok(raw)
    }

    /// Runs phase 1 (`call` is `aclnnXxxGetWorkspaceSize` with the
    /// descriptors) and returns the prepared operator, launched by `phase2`.
    pub(crate) fn run(
        self,
        phase2: AclnnPhase2,
        call: impl FnOnce(
            &Aclnn,
            *mut u64,
            *mut *mut aclOpExecutor,
        ) -> std::result::Result<aclnnStatus, SymbolError>,
    ) -> Result<Prepared<'a>> {
        let (aclnn, op) = (self.aclnn, self.op);
        self.finish(
            Phase2::Aclnn(phase2),
            || phase1_name(op),
            |ws, ex| call(aclnn, ws, ex),
        )
    }

    /// [`run`](Self::run) for a DVPP operator of `dvpp` (started with
    /// [`Phase1::new_dvpp`]).
    pub(crate) fn run_dvpp(
        self,
        dvpp: &'static Dvpp,
        phase2: DvppPhase2,
        call: impl FnOnce(
            &Dvpp,
            *mut u64,
            *mut *mut aclOpExecutor,
        ) -> std::result::Result<acldvppStatus, SymbolError>,
    ) -> Result<Prepared<'a>> {
        let op = self.op;
        let function = || crate::dvpp::function_name(op, "GetWorkspaceSize");
        self.finish(Phase2::Dvpp(dvpp, phase2), function, |ws, ex| {
            call(dvpp, ws, ex)
        })
    }

    /// `function` names the phase-1 function for an error report; it is
    /// looked up only then (a search of the function list: never on the
    /// launch path).
    fn finish(
        self,
        phase2: Phase2,
        function: impl FnOnce() -> &'static str,
        call: impl FnOnce(*mut u64, *mut *mut aclOpExecutor) -> std::result::Result<i32, SymbolError>,
    ) -> Result<Prepared<'a>> {
        self.ctx.bind()?;
        let mut workspace_size = 0u64;
        let mut executor: *mut aclOpExecutor = std::ptr::null_mut();
        let status = call(&mut workspace_size, &mut executor)?;
        if status != 0 {
            return Err(AclError::new(status, function(), recent_message(self.ctx.lib())).into());
        }
        if executor.is_null() {
            return Err(Error::InvalidState(format!(
                "{} succeeded without an executor",
                function()
            )));
        }
        Ok(Prepared::new(self, phase2, executor, workspace_size))
    }
}

/// `aclnn<op>GetWorkspaceSize` as a static string, for error reports.
pub(crate) fn phase1_name(op: &str) -> &'static str {
    ascendcl_sys::ACLNN_FUNCTIONS
        .iter()
        .find(|f| {
            f.strip_prefix("aclnn")
                .and_then(|r| r.strip_suffix("GetWorkspaceSize"))
                == Some(op)
        })
        .copied()
        .unwrap_or("aclnn phase 1")
}

/// `aclnn<op>` as a static string, for error reports.
pub(crate) fn phase2_name(op: &str) -> &'static str {
    ascendcl_sys::ACLNN_FUNCTIONS
        .iter()
        .find(|f| f.strip_prefix("aclnn") == Some(op))
        .copied()
        .unwrap_or("aclnn phase 2")
}
