/* op_dropout.h: what the dropout ops of batch ops3b share (op_dropout_gen_mask.c,
 * op_dropout.c): the mask's size and the keep probability's rounding. */
#ifndef ACLMOCK_OPS_OP_DROPOUT_H
#define ACLMOCK_OPS_OP_DROPOUT_H

#include "op_internal.h"

/* Bytes of the bit mask for n elements: n rounded up to 128 bits, 8 bits a
 * byte (aclnn_dropout_gen_mask.cpp:90-97, aclnn_dropout_do_mask.cpp:109,
 * aclnn_dropout_backward.cpp:115). */
static inline int64_t dropout_mask_bytes(int64_t n) { return (n + 127) / 128 * 128 / 8; }

/* prob's "equal to 0 / 1" test: |a - b| <= DBL_EPSILON (IsDoubleEqual,
 * aclnn_dropout_do_mask.cpp:88-91). */
bool dropout_prob_is(double prob, double v);

#endif
