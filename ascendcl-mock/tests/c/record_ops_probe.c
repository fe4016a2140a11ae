/*
 * record_ops_probe.c: calls phase 1 of every operator of the recording
 * shim's table (csrc/record/rec_ops_table.h) once, with a live tensor for
 * every tensor, a scalar for every scalar, [2,1] for every int array,
 * [true,false,true] for every bool array, a list of one tensor for every
 * tensor list, 1 for every integer, 0.25 for every double and float and
 * "BSH" for every string. Most calls fail the mock's checks, which journal the
 * arguments first: tests/record_ops.rs runs this under the shim with the
 * mock's journal on, and compares what both wrote of every call.
 */
#include <acl/acl.h>
#include <aclnn/aclnn.h>
#include <stdio.h>

#include "record/rec_each.h"
#include "record/rec_ops_table.h"

static aclTensor *t;
static aclScalar *k;
static aclIntArray *ia;
static aclBoolArray *ba;
static aclTensorList *tl;
static char text[] = "BSH";

#define PV_T t
#define PV_TO t
#define PV_S k
#define PV_IA ia
#define PV_BA ba
#define PV_TL tl
#define PV_TLO tl
#define PV_I8 1
#define PV_I32 1
#define PV_I64 1
#define PV_U64 1
#define PV_B 1
#define PV_DT ACL_FLOAT
#define PV_F64 0.25
#define PV_F32 0.25f
#define PV_STR text
#define PV_(k, n) PV_##k
#define PV(p) PV_ p

#define CALL(Name, ...)                                                                                             \
    {                                                                                                               \
        uint64_t ws = 0;                                                                                            \
        aclOpExecutor *ex = NULL;                                                                                   \
        aclnnStatus rc = aclnn##Name##GetWorkspaceSize(RN_EACH(PV, RN_COMMA, __VA_ARGS__), &ws, &ex);              \
        if (rc == 0 && ex) {                                                                                        \
            aclDestroyAclOpExecutor(ex);                                                                            \
        }                                                                                                           \
        calls++;                                                                                                    \
    }

int main(void)
{
    if (aclInit(NULL) || aclrtSetDevice(0)) {
        fprintf(stderr, "record_ops_probe: no device\n");
        return 1;
    }
    void *dev = NULL;
    if (aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST)) {
        return 1;
    }
    int64_t dims[2] = {2, 4}, strides[2] = {4, 1}, storage[1] = {8}, values[2] = {2, 1};
    bool mask[3] = {true, false, true};
    float one = 1.0f;
    t = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, dev);
    k = aclCreateScalar(&one, ACL_FLOAT);
    ia = aclCreateIntArray(values, 2);
    ba = aclCreateBoolArray(mask, 3);
    /* the list owns its member (and destroys it) */
    const aclTensor *member = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, dev);
    tl = member ? aclCreateTensorList(&member, 1) : NULL;
    if (!t || !k || !ia || !ba || !tl) {
        fprintf(stderr, "record_ops_probe: descriptors failed\n");
        return 1;
    }
    int calls = 0;
    REC_OPS(CALL)
    aclDestroyTensor(t);
    aclDestroyScalar(k);
    aclDestroyIntArray(ia);
    aclDestroyBoolArray(ba);
    aclDestroyTensorList(tl);
    aclrtFree(dev);
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d operators called\n", calls);
    return 0;
}
