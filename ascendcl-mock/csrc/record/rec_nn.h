/*
 * rec_nn.h: the recording shim's aclnn part (rec_nn_values.c,
 * rec_api_nn_desc.c, rec_api_nn_exec.c, rec_api_nn_ops.c).
 */
#ifndef ACLRECORD_INTERNAL_REC_NN_H
#define ACLRECORD_INTERNAL_REC_NN_H

#include "rec.h"

#include <aclnn/aclnn.h>

/* Keeps `text` as the values of the array with id `id`. */
void rn_keep_text(uint64_t id, const char *text);
/* "<letter><id>" of a known handle, "?0x..." of another. */
void rn_symbol(char *out, size_t cap, char letter, const void *h);
/* Argument: a descriptor or executor (null: null). */
void ra_nn(rec_call *c, const char *key, char letter, const void *h);
/* Argument: an array by the values kept at its creation ("[1,2]"). */
void ra_nn_values(rec_call *c, const char *key, char letter, const void *h);
/* Out-value: a new descriptor or executor, numbered now. */
void ro_nn_new(rec_call *c, const char *key, char letter, const void *h);
/* "[d0,d1,...]" of at most cap values into b. */
void rn_dims(jbuf *b, const int64_t *d, uint64_t n, uint64_t cap);
/* The host value at p of dtype dt as a double (the mock's form); false for a
 * dtype the shim does not read. */
bool rn_scalar_value(const void *p, int32_t dt, double *out);

/* The most dims a tensor of the mock may have (csrc/ops/aclnn_mock.h
 * MK_MAX_DIMS): the mock writes at most that many values of an int array
 * passed to an operator. */
#define RN_MAX_DIMS 8

#endif /* ACLRECORD_INTERNAL_REC_NN_H */
