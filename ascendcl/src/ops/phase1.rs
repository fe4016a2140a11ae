//! Building an operator's phase 1: descriptors, then
//! `aclnnXxxGetWorkspaceSize`, giving a [`Prepared`] operator.

use std::ffi::c_void;

use ascendcl_sys::{
    Aclnn, SymbolError, aclBoolArray, aclIntArray, aclOpExecutor, aclScalar, aclTensor,
    aclTensorList, aclnnStatus, aclrtStream,
};

use crate::call::recent_message;
use crate::context::Context;
use crate::error::{AclError, Error, Result};
use crate::few::Few;
use crate::ops::descriptor::{BoolArrayDesc, IntArrayDesc, ScalarDesc, TensorDesc, TensorListDesc};
use crate::ops::prepared::{Prepared, Slot, SlotKind};
use crate::ops::scalar::Scalar;
use crate::ops::tensor::{Storage, Tensor, TensorMut};
use crate::verified_names::VerifiedNames;

/// The launch function of an operator (`aclnnXxx`).
pub(crate) type Phase2 = unsafe fn(
    &Aclnn,
    *mut c_void,
    u64,
    *mut aclOpExecutor,
    aclrtStream,
) -> std::result::Result<aclnnStatus, SymbolError>;

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
    pub(crate) aclnn: &'static Aclnn,
    pub(crate) ctx: &'a Context,
    pub(crate) reads: Few<Storage<'a>>,
    pub(crate) writes: Few<Storage<'a>>,
    pub(crate) tensors: Few<TensorDesc>,
    pub(crate) scalars: Few<ScalarDesc>,
    pub(crate) arrays: Few<IntArrayDesc>,
    pub(crate) bool_arrays: Few<BoolArrayDesc>,
    pub(crate) lists: Few<TensorListDesc>,
    pub(crate) slots: Few<Slot>,
}

impl<'a> Phase1<'a> {
    /// Starts operator `op` (its name without `aclnn`) on the device of `ctx`.
    pub(crate) fn new(op: &'static str, ctx: &'a Context) -> Result<Phase1<'a>> {
        Ok(Phase1 {
            op,
            aclnn: aclnn_for(ctx, op)?,
            ctx,
            reads: Few::new(),
            writes: Few::new(),
            tensors: Few::new(),
            scalars: Few::new(),
            arrays: Few::new(),
            bool_arrays: Few::new(),
            lists: Few::new(),
            slots: Few::new(),
        })
    }

    fn same_device(&self, storage: &Storage<'_>, role: &str) -> Result<()> {
        if storage.ctx.device_id() == self.ctx.device_id() {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "aclnn{}: `{role}` is on device {} but the first tensor on device {}",
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
        let desc = TensorDesc::new(self.aclnn, storage, t.0, t.1)?;
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
        phase2: Phase2,
        call: impl FnOnce(
            &Aclnn,
            *mut u64,
            *mut *mut aclOpExecutor,
        ) -> std::result::Result<aclnnStatus, SymbolError>,
    ) -> Result<Prepared<'a>> {
        self.ctx.bind()?;
        let mut workspace_size = 0u64;
        let mut executor: *mut aclOpExecutor = std::ptr::null_mut();
        let status = call(self.aclnn, &mut workspace_size, &mut executor)?;
        if status != 0 {
            let function = phase1_name(self.op);
            return Err(AclError::new(status, function, recent_message(self.ctx.lib())).into());
        }
        if executor.is_null() {
            return Err(Error::InvalidState(format!(
                "aclnn{}GetWorkspaceSize succeeded without an executor",
                self.op
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
