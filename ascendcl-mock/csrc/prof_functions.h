/*
 * prof_functions.h: the functions of the mock's profiler library
 * (libmsprofiler.so, csrc/prof/), as an X-macro. Like the operator
 * libraries' (ops_functions.h) they are journaled, counted and
 * fault-injected by the mock through the aclmock_* entry points, so their
 * names extend the mock's function list. The recording shim, a stand-in for
 * the runtime library only, does not export them.
 */
#ifndef ACLMOCK_PROF_FUNCTIONS_H
#define ACLMOCK_PROF_FUNCTIONS_H

#define MOCK_PROF_FUNCTIONS(X)                                                                                 \
    X(aclprofInit) X(aclprofFinalize) X(aclprofStart) X(aclprofStop) X(aclprofCreateConfig) X(aclprofDestroyConfig) \
        X(aclprofSetConfig) X(aclprofCreateStepInfo) X(aclprofGetStepTimestamp) X(aclprofDestroyStepInfo)      \
            X(aclprofCreateStamp) X(aclprofSetStampTraceMessage) X(aclprofMark) X(aclprofDestroyStamp)         \
                MOCK_PROF_SUBSCRIBE_FUNCTIONS(X)

/* csrc/prof/subscribe.c */
#define MOCK_PROF_SUBSCRIBE_FUNCTIONS(X)                                                                       \
    X(aclprofCreateSubscribeConfig) X(aclprofDestroySubscribeConfig) X(aclprofModelSubscribe)                  \
        X(aclprofModelUnSubscribe) X(aclprofGetOpDescSize) X(aclprofGetOpNum) X(aclprofGetOpTypeLen)           \
            X(aclprofGetOpType) X(aclprofGetOpNameLen) X(aclprofGetOpName) X(aclprofGetOpStart)                \
                X(aclprofGetOpEnd) X(aclprofGetOpDuration) X(aclprofGetModelId) X(aclprofGetOpFlag)            \
                    X(aclprofGetOpAttriValue)

#endif /* ACLMOCK_PROF_FUNCTIONS_H */
