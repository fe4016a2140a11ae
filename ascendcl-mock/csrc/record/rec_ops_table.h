/*
 * rec_ops_table.h: the aclnn operators the recording shim records, one line
 * each: the operator's name without "aclnn" and the parameters of its
 * phase 1 (<Name>GetWorkspaceSize) before workspaceSize and executor, in the
 * order and under the names of the declaration header
 * (ascendcl-sys/include/aclnn/aclnn.h). rec_api_nn_ops.c turns every line
 * into both exported functions: phase 1 records each parameter under its
 * name (the mock's journal keys, csrc/ops/op_*.c), the executor and the
 * workspace size it returned; phase 2 (aclnn<Name>) records workspace,
 * workspaceSize, executor and stream, which all operators share.
 *
 * A parameter is KIND(name); the kinds and how each is written:
 *   T  const aclTensor *      "t<N>" (null: null)
 *   TO aclTensor *            "t<N>"
 *   S  const aclScalar *      "k<N>"
 *   IA const aclIntArray *    its values, "[1,2]"
 *   BA const aclBoolArray *   its values, "[true,false]"
 *   TL const aclTensorList *  "l<N>" (null: null)
 *   TLO aclTensorList *       "l<N>"
 *   I8 int8_t, I32 int, I64 int64_t, U64 uint64_t, B bool, DT aclDataType:
 *                             a number
 *   F64 double, F32 float     "%.17g" (of the value as a double) as a string
 *   STR char *                the string (null: null)
 * A wrong kind is a compile error (the header declares every function), and
 * tests/record_ops.rs checks every line against the mock's journal.
 *
 * To add an operator: append one line here (and its two names to
 * ../ops_functions.h, as for the mock).
 */
#ifndef ACLRECORD_OPS_TABLE_H
#define ACLRECORD_OPS_TABLE_H

#define REC_OPS(OP)                                                                                                  \
    OP(Mm, (T, self), (T, mat2), (TO, out), (I8, cubeMathType))                                                     \
    OP(Addmm, (T, self), (T, mat1), (T, mat2), (S, beta), (S, alpha), (TO, out), (I8, cubeMathType))                \
    OP(InplaceAddmm, (T, selfRef), (T, mat1), (T, mat2), (S, beta), (S, alpha), (I8, cubeMathType))                 \
    OP(Matmul, (T, self), (T, mat2), (TO, out), (I8, cubeMathType))                                                 \
    OP(Add, (T, self), (T, other), (S, alpha), (TO, out))                                                           \
    OP(Adds, (T, self), (S, other), (S, alpha), (TO, out))                                                          \
    OP(InplaceAdd, (T, selfRef), (T, other), (S, alpha))                                                            \
    OP(Mul, (T, self), (T, other), (TO, out))                                                                       \
    OP(Muls, (T, self), (S, other), (TO, out))                                                                      \
    OP(InplaceMuls, (TO, selfRef), (S, other))                                                                      \
    OP(Sub, (T, self), (T, other), (S, alpha), (TO, out))                                                           \
    OP(InplaceSub, (TO, selfRef), (T, other), (S, alpha))                                                           \
    OP(Relu, (T, self), (T, out))                                                                                   \
    OP(ThresholdBackward, (T, gradOutput), (T, self), (S, threshold), (TO, out))                                    \
    OP(LogSoftmax, (T, self), (I64, dim), (TO, out))                                                                \
    OP(LogSoftmaxBackward, (T, gradOutput), (T, output), (I64, dim), (TO, out))                                     \
    OP(NLLLoss, (T, self), (T, target), (T, weight), (I64, reduction), (I64, ignoreIndex), (TO, out),               \
       (TO, totalWeightOut))                                                                                        \
    OP(NLLLossBackward, (T, gradOutput), (T, self), (T, target), (T, weight), (I64, reduction),                     \
       (I64, ignoreIndex), (T, totalWeight), (TO, out))                                                             \
    OP(ReduceSum, (T, self), (IA, dims), (B, keepDims), (DT, dtype), (TO, out))                                     \
    OP(Cast, (T, self), (DT, dtype), (TO, out))                                                                     \
    OP(InplaceCopy, (TO, selfRef), (T, src))                                                                        \
    OP(InplaceZero, (TO, selfRef))                                                                                  \
    OP(InplaceFillScalar, (TO, selfRef), (S, value))                                                                \
    OP(ArgMax, (T, self), (I64, dim), (B, keepdim), (TO, out))                                                      \
    OP(Convolution, (T, input), (T, weight), (T, bias), (IA, stride), (IA, padding), (IA, dilation),                \
       (B, transposed), (IA, outputPadding), (I64, groups), (TO, output), (I8, cubeMathType))                       \
    OP(ConvolutionBackward, (T, gradOutput), (T, input), (T, weight), (IA, biasSizes), (IA, stride),                \
       (IA, padding), (IA, dilation), (B, transposed), (IA, outputPadding), (I32, groups), (BA, outputMask),        \
       (I8, cubeMathType), (TO, gradInput), (TO, gradWeight), (TO, gradBias))                                       \
    OP(BatchNorm, (T, input), (T, weight), (T, bias), (TO, runningMean), (TO, runningVar), (B, training),           \
       (F64, momentum), (F64, eps), (TO, output), (TO, saveMean), (TO, saveInvstd))                                 \
    OP(BatchNormBackward, (T, gradOut), (T, input), (T, weight), (T, runningMean), (T, runningVar),                 \
       (T, saveMean), (T, saveInvstd), (B, training), (F64, eps), (BA, outputMask), (TO, gradInput),                \
       (TO, gradWeight), (TO, gradBias))                                                                            \
    OP(MaxPool2dWithIndices, (T, self), (IA, kernelSize), (IA, stride), (IA, padding), (IA, dilation),              \
       (B, ceilMode), (TO, out), (TO, indices))                                                                     \
    OP(MaxPool2dWithIndicesBackward, (T, gradOutput), (T, self), (T, indices), (IA, kernelSize), (IA, stride),      \
       (IA, padding), (IA, dilation), (B, ceilMode), (TO, gradInput))                                               \
    OP(AdaptiveAvgPool2d, (T, self), (IA, outputSize), (TO, out))                                                   \
    OP(AdaptiveAvgPool2dBackward, (T, gradOutput), (T, self), (TO, out))                                            \
    OP(UpsampleBicubic2d, (T, self), (IA, outputSize), (B, alignCorners), (F64, scalesH), (F64, scalesW),           \
       (TO, out))                                                                                                   \
    OP(UpsampleBicubic2dBackward, (T, gradOut), (IA, outputSize), (IA, inputSize), (B, alignCorners),               \
       (F64, scalesH), (F64, scalesW), (TO, gradInput))                                                             \
    OP(UpsampleBilinear2d, (T, self), (IA, outputSize), (B, alignCorners), (F64, scalesH), (F64, scalesW),          \
       (TO, out))                                                                                                   \
    OP(LayerNorm, (T, input), (IA, normalizedShape), (T, weightOptional), (T, biasOptional), (F64, eps),            \
       (TO, out), (TO, meanOutOptional), (TO, rstdOutOptional))                                                     \
    OP(LayerNormBackward, (T, gradOut), (T, input), (IA, normalizedShape), (T, mean), (T, rstd),                    \
       (T, weightOptional), (T, biasOptional), (BA, outputMask), (TO, gradInputOut), (TO, gradWeightOut),           \
       (TO, gradBiasOut))                                                                                           \
    OP(Mean, (T, self), (IA, dim), (B, keepDim), (DT, dtype), (TO, out))                                            \
    OP(Amax, (T, self), (IA, dim), (B, keepDim), (TO, out))                                                         \
    OP(Softmax, (T, self), (I64, dim), (TO, out))                                                                   \
    OP(SoftmaxBackward, (T, gradOutput), (T, output), (I64, dim), (TO, out))                                        \
    OP(Sigmoid, (T, self), (TO, out))                                                                               \
    OP(SigmoidBackward, (T, gradOutput), (T, output), (TO, gradInput))                                              \
    OP(Tanh, (T, self), (TO, out))                                                                                  \
    OP(TanhBackward, (T, gradOutput), (T, output), (TO, gradInput))                                                 \
    OP(Silu, (T, self), (TO, out))                                                                                  \
    OP(SiluBackward, (T, gradOutput), (T, self), (TO, gradInput))                                                   \
    OP(Div, (T, self), (T, other), (TO, out))                                                                       \
    OP(Sqrt, (T, self), (TO, out))                                                                                  \
    OP(Rsqrt, (T, self), (TO, out))                                                                                 \
    OP(Exp, (T, self), (TO, out))                                                                                   \
    OP(Log, (T, self), (TO, out))                                                                                   \
    OP(Neg, (T, self), (TO, out))                                                                                   \
    OP(PowTensorScalar, (T, self), (S, exponent), (T, out))                                                         \
    OP(Clamp, (T, self), (S, clipValueMin), (S, clipValueMax), (TO, out))                                           \
    OP(IsFinite, (T, self), (TO, out))                                                                              \
    OP(FlashAttentionScore, (T, query), (T, key), (T, value), (T, realShiftOptional), (T, dropMaskOptional),        \
       (T, paddingMaskOptional), (T, attenMaskOptional), (IA, prefixOptional), (F64, scaleValue), (F64, keepProb),  \
       (I64, preTokens), (I64, nextTokens), (I64, headNum), (STR, inputLayout), (I64, innerPrecise),                \
       (I64, sparseMode), (T, softmaxMaxOut), (T, softmaxSumOut), (T, softmaxOutOut), (T, attentionOutOut))         \
    OP(FlashAttentionScoreGrad, (T, query), (T, keyIn), (T, value), (T, dy), (T, pseShiftOptional),                 \
       (T, dropMaskOptional), (T, paddingMaskOptional), (T, attenMaskOptional), (T, softmaxMaxOptional),            \
       (T, softmaxSumOptional), (T, softmaxInOptional), (T, attentionInOptional), (IA, prefixOptional),             \
       (F64, scaleValue), (F64, keepProb), (I64, preTokens), (I64, nextTokens), (I64, headNum),                     \
       (STR, inputLayout), (I64, innerPrecise), (I64, sparseMode), (T, dqOut), (T, dkOut), (T, dvOut),              \
       (T, dpseOut))                                                                                                \
    OP(Gelu, (T, self), (TO, out))                                                                                  \
    OP(GeluBackward, (T, gradOutput), (T, self), (T, gradInput))                                                    \
    OP(GeluV2, (T, x), (I64, approximate), (TO, y))                                                                 \
    OP(GeluBackwardV2, (T, gradOutput), (T, self), (STR, approximate), (TO, gradInput))                             \
    OP(Embedding, (T, weight), (T, indices), (T, out))                                                              \
    OP(EmbeddingDenseBackward, (T, grad), (T, indices), (U64, numWeights), (U64, paddingIdx),                       \
       (B, scaleGradByFreq), (T, out))                                                                              \
    OP(BatchMatMul, (T, self), (T, mat2), (TO, out), (I8, cubeMathType))                                            \
    OP(Permute, (T, self), (IA, dims), (TO, out))                                                                   \
    OP(ApplyAdamWV2, (TO, varRef), (TO, mRef), (TO, vRef), (TO, maxGradNormOptionalRef), (T, grad), (T, step),      \
       (F32, lr), (F32, beta1), (F32, beta2), (F32, weightDecay), (F32, eps), (B, amsgrad), (B, maximize))          \
    OP(Cat, (TL, tensors), (I64, dim), (TO, out))                                                                   \
    OP(SplitTensor, (T, self), (U64, splitSections), (I64, dim), (TLO, out))                                        \
    OP(SplitWithSize, (T, self), (IA, splitSize), (I64, dim), (TLO, out))                                           \
    OP(MaxDim, (T, self), (I64, dim), (B, keepdim), (TO, out), (TO, indices))                                       \
    OP(SWhere, (T, condition), (T, self), (T, other), (TO, out))                                                    \
    OP(InplaceMaskedFillScalar, (TO, selfRef), (T, mask), (S, value))                                               \
    OP(InplaceMaskedFillTensor, (TO, selfRef), (T, mask), (T, value))                                               \
    OP(DropoutGenMask, (IA, shape), (F64, prob), (I64, seed), (I64, offset), (TO, out))                             \
    OP(DropoutGenMaskV2, (IA, shape), (F64, prob), (I64, seed), (I64, offset), (DT, probDataType), (TO, out))       \
    OP(DropoutDoMask, (T, self), (T, mask), (F64, prob), (TO, out))                                                 \
    OP(DropoutBackward, (T, gradOutput), (T, mask), (F64, scale), (TO, out))                                        \
    /* append new operators above this line */

#endif /* ACLRECORD_OPS_TABLE_H */
