/* op_elementwise.h: dtype rules shared by the element-wise operators of the
 * third set (op_div.c, op_unary.c, op_pow.c, op_clamp.c, op_isfinite.c). */
#ifndef ACLMOCK_OPS_OP_ELEMENTWISE_H
#define ACLMOCK_OPS_OP_ELEMENTWISE_H

#include "op_internal.h"

/* opbase's PromoteType over the real dtypes the mock has (PyTorch's
 * promoteTypes table: bool < integers < f16/bf16 < f32 < f64, f16 with bf16
 * is f32, uint8 with int8 is int16). -1 where the pair has no promotion
 * (an unsigned 16/32/64-bit integer with a signed one). */
int32_t ew_promote(int32_t a, int32_t b);
/* OP_CHECK_RESULT_DTYPE_CAST_FAILED's CanCast(from, to) (PyTorch's canCast):
 * a floating value cannot go into an integer or bool tensor, nor a non-bool
 * value into a bool tensor. */
bool ew_can_cast(int32_t from, int32_t to);
/* 161002 "the result dtype X cannot be cast to out's dtype Y" unless
 * ew_can_cast(from, out's dtype). */
bool ew_check_cast(ph1 *p, int32_t from, const aclTensor *out, const char *name);
/* Integer dtypes, bool included (IsIntegralType(dt, true)). */
static inline bool ew_is_integral(int32_t dt) { return !mk_dtype_is_float(dt); }

#endif
