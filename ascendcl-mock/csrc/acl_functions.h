/*
 * acl_functions.h: every AscendCL function of our declaration header, in
 * header order, as an X-macro. Shared by the mock (csrc, one library) and the
 * recording shim (csrc/record/), so both export the same set.
 */
#ifndef ACLMOCK_ACL_FUNCTIONS_H
#define ACLMOCK_ACL_FUNCTIONS_H

/* Every exported ACL function, in header order (X-macro). */
#define MOCK_FUNCTIONS(X)                                                                                         \
    X(aclCreateDataBuffer) X(aclDestroyDataBuffer) X(aclUpdateDataBuffer) X(aclGetDataBufferAddr)                 \
    X(aclGetDataBufferSizeV2) X(aclGetCannAttributeList) X(aclGetCannAttribute) X(aclrtGetSocName) X(aclInit)     \
    X(aclFinalize) X(aclFinalizeReference) X(aclGetRecentErrMsg) X(aclrtGetVersion) X(aclrtGetRunMode)            \
    X(aclrtPeekAtLastError) X(aclrtGetLastError) X(aclsysGetCANNVersion) X(aclsysGetVersionStr)                   \
    X(aclsysGetVersionNum) X(aclrtSetDevice) X(aclrtResetDevice) X(aclrtResetDeviceForce) X(aclrtGetDevice)       \
    X(aclrtGetDeviceCount) X(aclrtSynchronizeDevice) X(aclrtSynchronizeDeviceWithTimeout)                         \
    X(aclrtQueryDeviceStatus) X(aclrtDeviceGetStreamPriorityRange) X(aclrtGetDeviceResLimit)                      \
    X(aclrtSetDeviceResLimit) X(aclrtResetDeviceResLimit) X(aclrtGetDeviceInfo) X(aclrtGetDeviceCapability)       \
    X(aclrtGetDeviceUtilizationRate) X(aclrtSetDeviceSatMode) X(aclrtGetDeviceSatMode)                            \
    X(aclrtDeviceCanAccessPeer) X(aclrtDeviceEnablePeerAccess) X(aclrtDeviceDisablePeerAccess)                    \
    X(aclrtDevicePeerAccessStatus) X(aclrtSetOpWaitTimeout) X(aclrtSetOpExecuteTimeOut)                           \
    X(aclrtSetExceptionInfoCallback) X(aclrtGetTaskIdFromExceptionInfo) X(aclrtGetStreamIdFromExceptionInfo)      \
    X(aclrtGetThreadIdFromExceptionInfo) X(aclrtGetDeviceIdFromExceptionInfo)                                     \
    X(aclrtGetErrorCodeFromExceptionInfo) X(aclrtCreateContext) X(aclrtDestroyContext) X(aclrtSetCurrentContext)  \
    X(aclrtGetCurrentContext) X(aclrtCtxGetCurrentDefaultStream) X(aclrtCtxSetSysParamOpt)                        \
    X(aclrtCtxGetSysParamOpt) X(aclrtCreateStream) X(aclrtCreateStreamWithConfig) X(aclrtDestroyStream)           \
    X(aclrtDestroyStreamForce) X(aclrtSynchronizeStream) X(aclrtSynchronizeStreamWithTimeout) X(aclrtStreamQuery) \
    X(aclrtStreamWaitEvent) X(aclrtStreamWaitEventWithTimeout) X(aclrtSetStreamFailureMode)                       \
    X(aclrtSetStreamOverflowSwitch) X(aclrtGetStreamOverflowSwitch) X(aclrtCreateEvent)                           \
    X(aclrtCreateEventWithFlag) X(aclrtCreateEventExWithFlag) X(aclrtDestroyEvent) X(aclrtRecordEvent)            \
    X(aclrtResetEvent) X(aclrtQueryEvent) X(aclrtQueryEventStatus) X(aclrtQueryEventWaitStatus)                   \
    X(aclrtSynchronizeEvent) X(aclrtSynchronizeEventWithTimeout) X(aclrtEventElapsedTime)                         \
    X(aclrtEventGetTimestamp) X(aclrtCreateNotify) X(aclrtDestroyNotify) X(aclrtRecordNotify)                     \
    X(aclrtWaitAndResetNotify) X(aclrtNotifyGetExportKey) X(aclrtNotifyImportByKey) X(aclrtNotifySetImportPid)    \
    X(aclrtMalloc) X(aclrtMallocAlign32) X(aclrtMallocCached) X(aclrtMallocWithCfg) X(aclrtFree)                  \
    X(aclrtMallocHost) X(aclrtFreeHost) X(aclrtMallocHostWithCfg) X(aclrtHostRegister) X(aclrtHostUnregister)     \
    X(aclrtPointerGetAttributes) X(aclrtMemcpy) X(aclrtMemcpyAsync) X(aclrtMemcpy2d) X(aclrtMemcpy2dAsync)        \
    X(aclrtMemset) X(aclrtMemsetAsync) X(aclrtGetMemInfo) X(aclrtIpcMemGetExportKey) X(aclrtIpcMemClose)          \
    X(aclrtIpcMemImportByKey) X(aclrtIpcMemSetImportPid) X(aclrtDeviceGetBareTgid) X(aclrtValueWrite)             \
    X(aclrtValueWait) X(aclrtMemGetAllocationGranularity) X(aclrtReserveMemAddress) X(aclrtReleaseMemAddress)     \
    X(aclrtMallocPhysical) X(aclrtFreePhysical) X(aclrtMapMem) X(aclrtUnmapMem) X(aclrtMemSetAccess)              \
    X(aclrtMemGetAccess) X(aclrtMemRetainAllocationHandle) X(aclrtMemGetAllocationPropertiesFromHandle)           \
    X(aclrtMemExportToShareableHandle) X(aclrtMemImportFromShareableHandle) X(aclrtMemSetPidToShareableHandle)    \
    X(aclrtLaunchHostFunc) X(aclrtSubscribeReport) X(aclrtLaunchCallback) X(aclrtProcessReport)                   \
    X(aclrtUnSubscribeReport) X(aclmdlRICaptureBegin) X(aclmdlRICaptureGetInfo) X(aclmdlRICaptureEnd)             \
    X(aclmdlRIDebugJsonPrint) X(aclmdlRICaptureThreadExchangeMode) X(aclmdlRIExecuteAsync) X(aclmdlRIDestroy)     \
    X(acldumpRegCallback) X(acldumpUnregCallback) X(aclopStartDumpArgs) X(aclopStopDumpArgs)

#endif /* ACLMOCK_ACL_FUNCTIONS_H */
