/* nn_internal.h: helpers shared by the files of libnnopbase.so. */
#ifndef ACLMOCK_OPS_NN_INTERNAL_H
#define ACLMOCK_OPS_NN_INTERNAL_H

#include "aclnn_mock.h"

bool nn_reg_add(const void *p, int kind);
bool nn_reg_del(const void *p, int kind);
uint64_t nn_next_id(void);

#endif
