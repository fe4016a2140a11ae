/*
 * dvpp_functions.h: the functions of the mock's DVPP operator library
 * (libacl_dvpp_op.so, csrc/dvpp/), as an X-macro. Like the operator
 * libraries' (ops_functions.h) they are journaled, counted and
 * fault-injected by the mock through the aclmock_* entry points, so their
 * names extend the mock's function list. The recording shim does not export
 * them.
 */
#ifndef ACLMOCK_DVPP_FUNCTIONS_H
#define ACLMOCK_DVPP_FUNCTIONS_H

#define MOCK_DVPP_FUNCTIONS(X)                                                                                 \
    X(acldvppInit) X(acldvppFinalize) X(acldvppDecodeJpegGetWorkspaceSize) X(acldvppDecodeJpeg)               \
    X(acldvppCropAndResizeGetWorkspaceSize) X(acldvppCropAndResize) X(acldvppResizeGetWorkspaceSize)          \
    X(acldvppResize) X(acldvppHorizontalFlipGetWorkspaceSize) X(acldvppHorizontalFlip)                        \
    X(acldvppNormalizeGetWorkspaceSize) X(acldvppNormalize)

#endif /* ACLMOCK_DVPP_FUNCTIONS_H */
