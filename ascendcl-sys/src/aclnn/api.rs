//! The aclnn functions, as methods of [`Aclnn`].
//!
//! As for the runtime (`crate::api`): each method has the C function's name
//! and parameters and returns `Result<status, SymbolError>`; the symbol is
//! resolved on first call (descriptor functions from `libnnopbase.so`,
//! operators from the op libraries in order) and cached. Every signature is
//! checked at compile time against the bindgen declarations of our header
//! `include/aclnn/aclnn.h`.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use super::Aclnn;
use crate::error::SymbolError;
use crate::types::*;

macro_rules! aclnn_functions {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;
    )*) => {
        /// Lazily resolved function pointers, one per function.
        #[allow(non_snake_case)]
        #[derive(Default)]
        pub(crate) struct AclnnSymbols {
            $( $name: OnceLock<Result<unsafe extern "C" fn($($ty),*) -> $ret, String>>, )*
        }

        /// Names of every aclnn function this crate can call, in declaration order.
        pub const ACLNN_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];

        impl Aclnn {
            $(
                $(#[doc = $doc])*
                ///
                /// Returns `Err` if no library opened exports the function.
                ///
                /// # Safety
                /// This calls the C function directly: pointer arguments must
                /// be valid as the C function documents, descriptors and
                /// executors must be live objects of these libraries, and
                /// device memory a queued operator uses must stay valid until
                /// the stream has run it.
                #[allow(non_snake_case, clippy::too_many_arguments)]
                #[inline]
                pub unsafe fn $name(&self, $($arg: $ty),*) -> Result<$ret, SymbolError> {
                    let slot = self.symbols.$name.get_or_init(|| {
                        // SAFETY: the pointer type is the one declared for
                        // this C function (checked against bindgen below).
                        unsafe { aclnn_functions!(@resolve $kind, self, concat!(stringify!($name), "\0")) }
                    });
                    match slot {
                        // SAFETY: the caller upholds the C contract (see # Safety).
                        Ok(f) => Ok(unsafe { f($($arg),*) }),
                        Err(reason) => Err(self.missing(stringify!($name), reason)),
                    }
                }
            )*

            /// Resolves the function named `name` (one of [`ACLNN_FUNCTIONS`])
            /// without calling it.
            pub fn require_function(&self, name: &str) -> Result<(), SymbolError> {
                match name {
                    $(
                        stringify!($name) => {
                            let slot = self.symbols.$name.get_or_init(|| {
                                // SAFETY: as in the method of the same name.
                                unsafe { aclnn_functions!(@resolve $kind, self, concat!(stringify!($name), "\0")) }
                            });
                            slot.as_ref()
                                .map(|_| ())
                                .map_err(|reason| self.missing(stringify!($name), reason))
                        }
                    )*
                    _ => Err(SymbolError {
                        symbol: "(unknown)",
                        library: self.dir.clone(),
                        reason: format!("{name} is not an aclnn function this crate declares"),
                    }),
                }
            }
        }

        /// Never instantiated, only type-checked: every loaded signature must
        /// equal the bindgen declaration of the same name.
        #[allow(dead_code, clippy::extra_unused_type_parameters)]
        fn signatures_match_declarations<T>() {
            $( let _: unsafe extern "C" fn($($ty),*) -> $ret = crate::bindings::functions::$name; )*
        }
    };
    (@resolve descriptor, $self:ident, $name:expr) => { $self.resolve_descriptor($name) };
    (@resolve op, $self:ident, $name:expr) => { $self.resolve_op($name) };
}

aclnn_functions! {
    // ------------------------------------------------------------ descriptors
    /// A tensor descriptor (view dims, element strides and offset over a
    /// storage shape) of device memory at `tensorData`; null on failure.
    descriptor fn aclCreateTensor(viewDims: *const i64, viewDimsNum: u64, dataType: aclDataType, stride: *const i64, offset: i64, format: aclFormat, storageDims: *const i64, storageDimsNum: u64, tensorData: *mut c_void) -> *mut aclTensor;
    /// A scalar holding a copy of the host value; null on failure.
    descriptor fn aclCreateScalar(value: *mut c_void, dataType: aclDataType) -> *mut aclScalar;
    /// An int64 array holding a copy of `size` values; null on failure.
    descriptor fn aclCreateIntArray(value: *const i64, size: u64) -> *mut aclIntArray;
    /// A float array holding a copy of `size` values; null on failure.
    descriptor fn aclCreateFloatArray(value: *const f32, size: u64) -> *mut aclFloatArray;
    /// A bool array holding a copy of `size` values; null on failure.
    descriptor fn aclCreateBoolArray(value: *const bool, size: u64) -> *mut aclBoolArray;
    /// A list of existing tensor descriptors; null on failure.
    descriptor fn aclCreateTensorList(value: *const *const aclTensor, size: u64) -> *mut aclTensorList;
    /// A list of existing scalars; null on failure.
    descriptor fn aclCreateScalarList(value: *const *const aclScalar, size: u64) -> *mut aclScalarList;
    /// Destroys a tensor descriptor.
    descriptor fn aclDestroyTensor(tensor: *const aclTensor) -> aclnnStatus;
    /// Destroys a scalar.
    descriptor fn aclDestroyScalar(scalar: *const aclScalar) -> aclnnStatus;
    /// Destroys an int array.
    descriptor fn aclDestroyIntArray(array: *const aclIntArray) -> aclnnStatus;
    /// Destroys a float array.
    descriptor fn aclDestroyFloatArray(array: *const aclFloatArray) -> aclnnStatus;
    /// Destroys a bool array.
    descriptor fn aclDestroyBoolArray(array: *const aclBoolArray) -> aclnnStatus;
    /// Destroys a tensor list.
    descriptor fn aclDestroyTensorList(array: *const aclTensorList) -> aclnnStatus;
    /// Destroys a scalar list.
    descriptor fn aclDestroyScalarList(array: *const aclScalarList) -> aclnnStatus;
    /// Keeps an executor for more than one launch (then destroy it explicitly).
    descriptor fn aclSetAclOpExecutorRepeatable(executor: *mut aclOpExecutor) -> aclnnStatus;
    /// Destroys a repeatable executor.
    descriptor fn aclDestroyAclOpExecutor(executor: *mut aclOpExecutor) -> aclnnStatus;
    /// Re-points the `index`th input of a repeatable executor at `addr`.
    descriptor fn aclSetInputTensorAddr(executor: *mut aclOpExecutor, index: usize, tensor: *mut aclTensor, addr: *mut c_void) -> aclnnStatus;
    /// Re-points the `index`th output of a repeatable executor at `addr`.
    descriptor fn aclSetOutputTensorAddr(executor: *mut aclOpExecutor, index: usize, tensor: *mut aclTensor, addr: *mut c_void) -> aclnnStatus;
    /// Re-points the `index`th tensor (inputs then outputs) at `addr`.
    descriptor fn aclSetTensorAddr(executor: *mut aclOpExecutor, index: usize, tensor: *mut aclTensor, addr: *mut c_void) -> aclnnStatus;
    /// Sets a descriptor's device address.
    descriptor fn aclSetRawTensorAddr(tensor: *mut aclTensor, addr: *mut c_void) -> aclnnStatus;
    /// Reads a descriptor's device address.
    descriptor fn aclGetRawTensorAddr(tensor: *const aclTensor, addr: *mut *mut c_void) -> aclnnStatus;
    /// Optional aclnn initialisation (aclInit covers it).
    descriptor fn aclnnInit(configPath: *const c_char) -> aclnnStatus;
    /// Pairs with `aclnnInit`.
    descriptor fn aclnnFinalize() -> aclnnStatus;

    // ---------------------------------------------------------------- matmul
    /// Phase 1 of `out = self @ mat2` (2-D).
    op fn aclnnMmGetWorkspaceSize(self_: *const aclTensor, mat2: *const aclTensor, out: *mut aclTensor, cubeMathType: i8, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Mm: queues it on `stream`.
    op fn aclnnMm(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = beta*self + alpha*(mat1 @ mat2)`.
    op fn aclnnAddmmGetWorkspaceSize(self_: *const aclTensor, mat1: *const aclTensor, mat2: *const aclTensor, beta: *const aclScalar, alpha: *const aclScalar, out: *mut aclTensor, cubeMathType: i8, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Addmm.
    op fn aclnnAddmm(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef = beta*selfRef + alpha*(mat1 @ mat2)` (`selfRef` is const in CANN's header).
    op fn aclnnInplaceAddmmGetWorkspaceSize(selfRef: *const aclTensor, mat1: *const aclTensor, mat2: *const aclTensor, beta: *const aclScalar, alpha: *const aclScalar, cubeMathType: i8, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceAddmm.
    op fn aclnnInplaceAddmm(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = torch.matmul(self, mat2)`.
    op fn aclnnMatmulGetWorkspaceSize(self_: *const aclTensor, mat2: *const aclTensor, out: *mut aclTensor, cubeMathType: i8, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Matmul.
    op fn aclnnMatmul(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;

    // ----------------------------------------------------------- elementwise
    /// Phase 1 of `out = self + alpha*other`.
    op fn aclnnAddGetWorkspaceSize(self_: *const aclTensor, other: *const aclTensor, alpha: *const aclScalar, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Add.
    op fn aclnnAdd(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self + alpha*other` with a scalar `other`.
    op fn aclnnAddsGetWorkspaceSize(self_: *const aclTensor, other: *const aclScalar, alpha: *const aclScalar, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Adds.
    op fn aclnnAdds(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef += alpha*other`.
    op fn aclnnInplaceAddGetWorkspaceSize(selfRef: *const aclTensor, other: *const aclTensor, alpha: *const aclScalar, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceAdd.
    op fn aclnnInplaceAdd(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self * other`.
    op fn aclnnMulGetWorkspaceSize(self_: *const aclTensor, other: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Mul.
    op fn aclnnMul(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self * scalar`.
    op fn aclnnMulsGetWorkspaceSize(self_: *const aclTensor, other: *const aclScalar, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Muls.
    op fn aclnnMuls(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef *= scalar`.
    op fn aclnnInplaceMulsGetWorkspaceSize(selfRef: *mut aclTensor, other: *const aclScalar, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceMuls.
    op fn aclnnInplaceMuls(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self - alpha*other`.
    op fn aclnnSubGetWorkspaceSize(self_: *const aclTensor, other: *const aclTensor, alpha: *const aclScalar, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Sub.
    op fn aclnnSub(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef -= alpha*other`.
    op fn aclnnInplaceSubGetWorkspaceSize(selfRef: *mut aclTensor, other: *const aclTensor, alpha: *const aclScalar, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceSub.
    op fn aclnnInplaceSub(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;

    // ------------------------------------------------------------ activation
    /// Phase 1 of `out = max(self, 0)` (`out` is const in CANN's header).
    op fn aclnnReluGetWorkspaceSize(self_: *const aclTensor, out: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Relu.
    op fn aclnnRelu(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = gradOutput where self > threshold else 0`.
    op fn aclnnThresholdBackwardGetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, threshold: *const aclScalar, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of ThresholdBackward.
    op fn aclnnThresholdBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = log_softmax(self, dim)`.
    op fn aclnnLogSoftmaxGetWorkspaceSize(self_: *const aclTensor, dim: i64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of LogSoftmax.
    op fn aclnnLogSoftmax(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the log_softmax gradient given the forward output.
    op fn aclnnLogSoftmaxBackwardGetWorkspaceSize(gradOutput: *const aclTensor, output: *const aclTensor, dim: i64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of LogSoftmaxBackward.
    op fn aclnnLogSoftmaxBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;

    // ------------------------------------------------------------------ loss
    /// Phase 1 of the weighted negative log likelihood.
    op fn aclnnNLLLossGetWorkspaceSize(self_: *const aclTensor, target: *const aclTensor, weight: *const aclTensor, reduction: i64, ignoreIndex: i64, out: *mut aclTensor, totalWeightOut: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of NLLLoss.
    op fn aclnnNLLLoss(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the NLL loss gradient with respect to `self`.
    op fn aclnnNLLLossBackwardGetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, target: *const aclTensor, weight: *const aclTensor, reduction: i64, ignoreIndex: i64, totalWeight: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of NLLLossBackward.
    op fn aclnnNLLLossBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;

    // ------------------------------------------------------ reductions, data
    /// Phase 1 of the sum over `dims` into `dtype`.
    op fn aclnnReduceSumGetWorkspaceSize(self_: *const aclTensor, dims: *const aclIntArray, keepDims: bool, dtype: aclDataType, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of ReduceSum.
    op fn aclnnReduceSum(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the element type conversion.
    op fn aclnnCastGetWorkspaceSize(self_: *const aclTensor, dtype: aclDataType, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Cast.
    op fn aclnnCast(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef = src` (broadcast, converted).
    op fn aclnnInplaceCopyGetWorkspaceSize(selfRef: *mut aclTensor, src: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceCopy.
    op fn aclnnInplaceCopy(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef = 0`.
    op fn aclnnInplaceZeroGetWorkspaceSize(selfRef: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceZero.
    op fn aclnnInplaceZero(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef = value`.
    op fn aclnnInplaceFillScalarGetWorkspaceSize(selfRef: *mut aclTensor, value: *const aclScalar, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceFillScalar.
    op fn aclnnInplaceFillScalar(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the index of the maximum along `dim`.
    op fn aclnnArgMaxGetWorkspaceSize(self_: *const aclTensor, dim: i64, keepdim: bool, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of ArgMax.
    op fn aclnnArgMax(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;

    // ------------------------------------------------- second set: ResNet
    /// Phase 1 of the convolution (`groups` is 64-bit here).
    op fn aclnnConvolutionGetWorkspaceSize(input: *const aclTensor, weight: *const aclTensor, bias: *const aclTensor, stride: *const aclIntArray, padding: *const aclIntArray, dilation: *const aclIntArray, transposed: bool, outputPadding: *const aclIntArray, groups: i64, output: *mut aclTensor, cubeMathType: i8, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Convolution.
    op fn aclnnConvolution(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the convolution's gradients (`groups` is a 32-bit int here).
    op fn aclnnConvolutionBackwardGetWorkspaceSize(gradOutput: *const aclTensor, input: *const aclTensor, weight: *const aclTensor, biasSizes: *const aclIntArray, stride: *const aclIntArray, padding: *const aclIntArray, dilation: *const aclIntArray, transposed: bool, outputPadding: *const aclIntArray, groups: c_int, outputMask: *const aclBoolArray, cubeMathType: i8, gradInput: *mut aclTensor, gradWeight: *mut aclTensor, gradBias: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of ConvolutionBackward.
    op fn aclnnConvolutionBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of batch normalization.
    op fn aclnnBatchNormGetWorkspaceSize(input: *const aclTensor, weight: *const aclTensor, bias: *const aclTensor, runningMean: *mut aclTensor, runningVar: *mut aclTensor, training: bool, momentum: f64, eps: f64, output: *mut aclTensor, saveMean: *mut aclTensor, saveInvstd: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of BatchNorm.
    op fn aclnnBatchNorm(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of batch normalization's gradients.
    op fn aclnnBatchNormBackwardGetWorkspaceSize(gradOut: *const aclTensor, input: *const aclTensor, weight: *const aclTensor, runningMean: *const aclTensor, runningVar: *const aclTensor, saveMean: *const aclTensor, saveInvstd: *const aclTensor, training: bool, eps: f64, outputMask: *const aclBoolArray, gradInput: *mut aclTensor, gradWeight: *mut aclTensor, gradBias: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of BatchNormBackward.
    op fn aclnnBatchNormBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of 2-D max pooling with indices.
    op fn aclnnMaxPool2dWithIndicesGetWorkspaceSize(self_: *const aclTensor, kernelSize: *const aclIntArray, stride: *const aclIntArray, padding: *const aclIntArray, dilation: *const aclIntArray, ceilMode: bool, out: *mut aclTensor, indices: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of MaxPool2dWithIndices.
    op fn aclnnMaxPool2dWithIndices(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of max pooling's gradient.
    op fn aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, indices: *const aclTensor, kernelSize: *const aclIntArray, stride: *const aclIntArray, padding: *const aclIntArray, dilation: *const aclIntArray, ceilMode: bool, gradInput: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of MaxPool2dWithIndicesBackward.
    op fn aclnnMaxPool2dWithIndicesBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of adaptive average pooling.
    op fn aclnnAdaptiveAvgPool2dGetWorkspaceSize(self_: *const aclTensor, outputSize: *const aclIntArray, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of AdaptiveAvgPool2d.
    op fn aclnnAdaptiveAvgPool2d(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of adaptive average pooling's gradient.
    op fn aclnnAdaptiveAvgPool2dBackwardGetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of AdaptiveAvgPool2dBackward.
    op fn aclnnAdaptiveAvgPool2dBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the bicubic resize.
    op fn aclnnUpsampleBicubic2dGetWorkspaceSize(self_: *const aclTensor, outputSize: *const aclIntArray, alignCorners: bool, scalesH: f64, scalesW: f64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of UpsampleBicubic2d.
    op fn aclnnUpsampleBicubic2d(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the bicubic resize's gradient.
    op fn aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(gradOut: *const aclTensor, outputSize: *const aclIntArray, inputSize: *const aclIntArray, alignCorners: bool, scalesH: f64, scalesW: f64, gradInput: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of UpsampleBicubic2dBackward.
    op fn aclnnUpsampleBicubic2dBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the bilinear resize.
    op fn aclnnUpsampleBilinear2dGetWorkspaceSize(self_: *const aclTensor, outputSize: *const aclIntArray, alignCorners: bool, scalesH: f64, scalesW: f64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of UpsampleBilinear2d.
    op fn aclnnUpsampleBilinear2d(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    // ---- operators III, norm_shape batch
    /// Phase 1 of layer normalization.
    op fn aclnnLayerNormGetWorkspaceSize(input: *const aclTensor, normalizedShape: *const aclIntArray, weightOptional: *const aclTensor, biasOptional: *const aclTensor, eps: f64, out: *mut aclTensor, meanOutOptional: *mut aclTensor, rstdOutOptional: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of LayerNorm.
    op fn aclnnLayerNorm(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of layer normalization's gradients.
    op fn aclnnLayerNormBackwardGetWorkspaceSize(gradOut: *const aclTensor, input: *const aclTensor, normalizedShape: *const aclIntArray, mean: *const aclTensor, rstd: *const aclTensor, weightOptional: *const aclTensor, biasOptional: *const aclTensor, outputMask: *const aclBoolArray, gradInputOut: *mut aclTensor, gradWeightOut: *mut aclTensor, gradBiasOut: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of LayerNormBackward.
    op fn aclnnLayerNormBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the mean over a list of dims.
    op fn aclnnMeanGetWorkspaceSize(self_: *const aclTensor, dim: *const aclIntArray, keepDim: bool, dtype: aclDataType, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Mean.
    op fn aclnnMean(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the maximum over a list of dims.
    op fn aclnnAmaxGetWorkspaceSize(self_: *const aclTensor, dim: *const aclIntArray, keepDim: bool, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Amax.
    op fn aclnnAmax(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    // ---- operators III, batch "activations"
    /// Phase 1 of softmax along one dim.
    op fn aclnnSoftmaxGetWorkspaceSize(self_: *const aclTensor, dim: i64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Softmax.
    op fn aclnnSoftmax(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of softmax's gradient given the forward output.
    op fn aclnnSoftmaxBackwardGetWorkspaceSize(gradOutput: *const aclTensor, output: *const aclTensor, dim: i64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of SoftmaxBackward.
    op fn aclnnSoftmaxBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the sigmoid.
    op fn aclnnSigmoidGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Sigmoid.
    op fn aclnnSigmoid(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the sigmoid's gradient given the forward output.
    op fn aclnnSigmoidBackwardGetWorkspaceSize(gradOutput: *const aclTensor, output: *const aclTensor, gradInput: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of SigmoidBackward.
    op fn aclnnSigmoidBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of tanh (an integer or bool self gives a float result).
    op fn aclnnTanhGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Tanh.
    op fn aclnnTanh(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of tanh's gradient given the forward output.
    op fn aclnnTanhBackwardGetWorkspaceSize(gradOutput: *const aclTensor, output: *const aclTensor, gradInput: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of TanhBackward.
    op fn aclnnTanhBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of SiLU, `self * sigmoid(self)`.
    op fn aclnnSiluGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Silu.
    op fn aclnnSilu(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of SiLU's gradient given the forward input.
    op fn aclnnSiluBackwardGetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, gradInput: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of SiluBackward.
    op fn aclnnSiluBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;

    // ---------------------------------- operators III, batch `elementwise`
    /// Phase 1 of `out = self / other`, broadcast (integers divided in float).
    op fn aclnnDivGetWorkspaceSize(self_: *const aclTensor, other: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Div.
    op fn aclnnDiv(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = sqrt(self)`.
    op fn aclnnSqrtGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Sqrt.
    op fn aclnnSqrt(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = rsqrt(self)`.
    op fn aclnnRsqrtGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Rsqrt.
    op fn aclnnRsqrt(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = exp(self)`.
    op fn aclnnExpGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Exp.
    op fn aclnnExp(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = log(self)`.
    op fn aclnnLogGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Log.
    op fn aclnnLog(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = neg(self)`.
    op fn aclnnNegGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Neg.
    op fn aclnnNeg(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self ** exponent`, scalar exponent (`out` is const in CANN's header).
    op fn aclnnPowTensorScalarGetWorkspaceSize(self_: *const aclTensor, exponent: *const aclScalar, out: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of PowTensorScalar.
    op fn aclnnPowTensorScalar(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = clamp(self, min, max)`; either bound may be null, not both.
    op fn aclnnClampGetWorkspaceSize(self_: *const aclTensor, clipValueMin: *const aclScalar, clipValueMax: *const aclScalar, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Clamp.
    op fn aclnnClamp(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = isfinite(self)` (`out` BOOL).
    op fn aclnnIsFiniteGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of IsFinite.
    op fn aclnnIsFinite(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    // ---------------------------- end of operators III, batch `elementwise`
    // ----------------------------------- operators III, batch `attention`
    /// Phase 1 of FlashAttentionScore (hicann/ops-transformer); the outputs are const in CANN's header.
    op fn aclnnFlashAttentionScoreGetWorkspaceSize(query: *const aclTensor, key: *const aclTensor, value: *const aclTensor, realShiftOptional: *const aclTensor, dropMaskOptional: *const aclTensor, paddingMaskOptional: *const aclTensor, attenMaskOptional: *const aclTensor, prefixOptional: *const aclIntArray, scaleValue: f64, keepProb: f64, preTokens: i64, nextTokens: i64, headNum: i64, inputLayout: *mut c_char, innerPrecise: i64, sparseMode: i64, softmaxMaxOut: *const aclTensor, softmaxSumOut: *const aclTensor, softmaxOutOut: *const aclTensor, attentionOutOut: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of FlashAttentionScore.
    op fn aclnnFlashAttentionScore(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of FlashAttentionScoreGrad: dq, dk, dv from the forward's inputs, dy and saved statistics.
    op fn aclnnFlashAttentionScoreGradGetWorkspaceSize(query: *const aclTensor, keyIn: *const aclTensor, value: *const aclTensor, dy: *const aclTensor, pseShiftOptional: *const aclTensor, dropMaskOptional: *const aclTensor, paddingMaskOptional: *const aclTensor, attenMaskOptional: *const aclTensor, softmaxMaxOptional: *const aclTensor, softmaxSumOptional: *const aclTensor, softmaxInOptional: *const aclTensor, attentionInOptional: *const aclTensor, prefixOptional: *const aclIntArray, scaleValue: f64, keepProb: f64, preTokens: i64, nextTokens: i64, headNum: i64, inputLayout: *mut c_char, innerPrecise: i64, sparseMode: i64, dqOut: *const aclTensor, dkOut: *const aclTensor, dvOut: *const aclTensor, dpseOut: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of FlashAttentionScoreGrad.
    op fn aclnnFlashAttentionScoreGrad(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    // ------------------------------ end of operators III, batch `attention`

    // --------------------------------------- operators III, batch `ops-a`
    /// Phase 1 of GELU, the tanh approximation.
    op fn aclnnGeluGetWorkspaceSize(self_: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Gelu.
    op fn aclnnGelu(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the gradient of the tanh-approximated GELU (`gradInput` is const in CANN's header).
    op fn aclnnGeluBackwardGetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, gradInput: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of GeluBackward.
    op fn aclnnGeluBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of GELU with `approximate` 0 (erf) or 1 (tanh).
    op fn aclnnGeluV2GetWorkspaceSize(x: *const aclTensor, approximate: i64, y: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of GeluV2.
    op fn aclnnGeluV2(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of GELU's gradient with `approximate` "none" or "tanh" (a C string).
    op fn aclnnGeluBackwardV2GetWorkspaceSize(gradOutput: *const aclTensor, self_: *const aclTensor, approximate: *mut c_char, gradInput: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of GeluBackwardV2.
    op fn aclnnGeluBackwardV2(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = weight[indices, :]` (`out` is const in CANN's header).
    op fn aclnnEmbeddingGetWorkspaceSize(weight: *const aclTensor, indices: *const aclTensor, out: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Embedding.
    op fn aclnnEmbedding(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the embedding's dense gradient (`out` is const in CANN's header).
    op fn aclnnEmbeddingDenseBackwardGetWorkspaceSize(grad: *const aclTensor, indices: *const aclTensor, numWeights: u64, paddingIdx: u64, scaleGradByFreq: bool, out: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of EmbeddingDenseBackward.
    op fn aclnnEmbeddingDenseBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out[b] = self[b] @ mat2[b]` (3-D; a batch dim of 1 broadcasts).
    op fn aclnnBatchMatMulGetWorkspaceSize(self_: *const aclTensor, mat2: *const aclTensor, out: *mut aclTensor, cubeMathType: i8, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of BatchMatMul.
    op fn aclnnBatchMatMul(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self.permute(dims)`, materialized.
    op fn aclnnPermuteGetWorkspaceSize(self_: *const aclTensor, dims: *const aclIntArray, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Permute.
    op fn aclnnPermute(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of one fused AdamW step on var, m, v (and maxGradNorm with amsgrad), in place.
    op fn aclnnApplyAdamWV2GetWorkspaceSize(varRef: *mut aclTensor, mRef: *mut aclTensor, vRef: *mut aclTensor, maxGradNormOptionalRef: *mut aclTensor, grad: *const aclTensor, step: *const aclTensor, lr: f32, beta1: f32, beta2: f32, weightDecay: f32, eps: f32, amsgrad: bool, maximize: bool, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of ApplyAdamWV2.
    op fn aclnnApplyAdamWV2(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    // ------------------------------------ end of operators III, batch `ops-a`
    // ---- operators III, batch `ops3b`
    /// Phase 1 of the concatenation of a tensor list along `dim`.
    op fn aclnnCatGetWorkspaceSize(tensors: *const aclTensorList, dim: i64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of Cat.
    op fn aclnnCat(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of splitting `self` into pieces of `splitSections` along `dim`.
    op fn aclnnSplitTensorGetWorkspaceSize(self_: *const aclTensor, splitSections: u64, dim: i64, out: *mut aclTensorList, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of SplitTensor.
    op fn aclnnSplitTensor(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of splitting `self` into pieces of the sizes in `splitSize` along `dim`.
    op fn aclnnSplitWithSizeGetWorkspaceSize(self_: *const aclTensor, splitSize: *const aclIntArray, dim: i64, out: *mut aclTensorList, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of SplitWithSize.
    op fn aclnnSplitWithSize(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of the maximum along `dim` with its index.
    op fn aclnnMaxDimGetWorkspaceSize(self_: *const aclTensor, dim: i64, keepdim: bool, out: *mut aclTensor, indices: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of MaxDim.
    op fn aclnnMaxDim(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = condition ? self : other`.
    op fn aclnnSWhereGetWorkspaceSize(condition: *const aclTensor, self_: *const aclTensor, other: *const aclTensor, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of SWhere.
    op fn aclnnSWhere(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef[mask] = value` for a scalar value.
    op fn aclnnInplaceMaskedFillScalarGetWorkspaceSize(selfRef: *mut aclTensor, mask: *const aclTensor, value: *const aclScalar, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceMaskedFillScalar.
    op fn aclnnInplaceMaskedFillScalar(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `selfRef[mask] = value` for a 0-d tensor value.
    op fn aclnnInplaceMaskedFillTensorGetWorkspaceSize(selfRef: *mut aclTensor, mask: *const aclTensor, value: *const aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of InplaceMaskedFillTensor.
    op fn aclnnInplaceMaskedFillTensor(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of generating a dropout bit mask from `seed` and `offset`.
    op fn aclnnDropoutGenMaskGetWorkspaceSize(shape: *const aclIntArray, prob: f64, seed: i64, offset: i64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of DropoutGenMask.
    op fn aclnnDropoutGenMask(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of DropoutGenMask with `prob` rounded to `probDataType`.
    op fn aclnnDropoutGenMaskV2GetWorkspaceSize(shape: *const aclIntArray, prob: f64, seed: i64, offset: i64, probDataType: aclDataType, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of DropoutGenMaskV2.
    op fn aclnnDropoutGenMaskV2(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = self * mask / (1 - prob)`.
    op fn aclnnDropoutDoMaskGetWorkspaceSize(self_: *const aclTensor, mask: *const aclTensor, prob: f64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of DropoutDoMask.
    op fn aclnnDropoutDoMask(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    /// Phase 1 of `out = gradOutput * mask * scale`.
    op fn aclnnDropoutBackwardGetWorkspaceSize(gradOutput: *const aclTensor, mask: *const aclTensor, scale: f64, out: *mut aclTensor, workspaceSize: *mut u64, executor: *mut *mut aclOpExecutor) -> aclnnStatus;
    /// Phase 2 of DropoutBackward.
    op fn aclnnDropoutBackward(workspace: *mut c_void, workspaceSize: u64, executor: *mut aclOpExecutor, stream: aclrtStream) -> aclnnStatus;
    // ---------------------------------- end of operators III, batch `ops3b`
}
