/* op_tensor_list.h: aclTensorList arguments of the ops of batch ops3b
 * (op_cat.c, op_split.c): checks and journal fields. */
#ifndef ACLMOCK_OPS_OP_TENSOR_LIST_H
#define ACLMOCK_OPS_OP_TENSOR_LIST_H

#include "op_internal.h"

/* The list as "l<id>", null, or "?ptr" for a pointer that is not a live list. */
void ph1_arg_list(ph1 *p, const char *key, const aclTensorList *l);
/* null -> 161001; not a live tensor list -> 161002; a null member -> 161001
 * (OP_CHECK_NULL on each member, e.g. ops-math v8.5.0 aclnn_cat.cpp:87-89). */
bool need_list(ph1 *p, const aclTensorList *l, const char *name);

#endif
