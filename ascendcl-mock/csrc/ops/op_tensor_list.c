/*
 * op_tensor_list.c (libopapi.so): aclTensorList arguments (op_tensor_list.h).
 * A list's members are live tensors owned by the list (nn_desc.c).
 */
#include "op_tensor_list.h"

#include <stdio.h>

void ph1_arg_list(ph1 *p, const char *key, const aclTensorList *l)
{
    char sym[48];
    if (!l) {
        aclmock_arg_str(&p->c, key, NULL);
        return;
    }
    if (aclmocknn_is_live(l, MK_TENSOR_LIST)) {
        snprintf(sym, sizeof(sym), "l%llu", (unsigned long long)l->id);
    } else {
        snprintf(sym, sizeof(sym), "?%p", (const void *)l);
    }
    aclmock_arg_str(&p->c, key, sym);
}

bool need_list(ph1 *p, const aclTensorList *l, const char *name)
{
    if (p->rc) {
        return false;
    }
    if (!l) {
        p->rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s is null", p->op, name);
        return false;
    }
    if (!aclmocknn_is_live(l, MK_TENSOR_LIST)) {
        p->rc = aclmock_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s (%p) is not a live aclTensorList", p->op, name,
                             (const void *)l);
        return false;
    }
    for (uint64_t i = 0; i < l->n; i++) {
        if (!l->v[i]) {
            p->rc = aclmock_fail(ACLNN_ERR_PARAM_NULLPTR, "%s: tensor %llu of %s is null", p->op,
                                 (unsigned long long)i, name);
            return false;
        }
    }
    return true;
}
