// Host stand-ins for the device kernels of CANN's runtime samples
// (example/kernel_func/*.cpp in hicann/runtime). Our own code: each keeps the
// host signature of the kernel's launcher (`XxxDo(blockDim, stream, ...)`) and
// does what the kernel does to device memory with public runtime calls only,
// in stream order: copy the buffer to pinned host memory on the stream,
// change it in a host function on the stream, copy it back.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>
#include "acl/acl.h"

namespace standin {

struct Job {
    std::function<void(void *host)> body;
    void *host;
};

inline void RunBody(void *arg)
{
    Job *job = static_cast<Job *>(arg);
    job->body(job->host);
}

inline void Free(void *arg)
{
    Job *job = static_cast<Job *>(arg);
    aclrtFreeHost(job->host);
    delete job;
}

// Runs body on a host copy of dev[0, bytes) after the stream's earlier work,
// and copies the result back before the stream's later work. bytes == 0: body
// only (a kernel that touches no memory). A stream subscribed with
// aclrtSubscribeReport takes no host functions: there the call waits instead.
inline void OnStream(aclrtStream stream, void *dev, size_t bytes, std::function<void(void *)> body)
{
    Job *job = new Job{std::move(body), nullptr};
    if (bytes != 0) {
        if (aclrtMallocHost(&job->host, bytes) != ACL_SUCCESS) {
            fprintf(stderr, "standin: aclrtMallocHost failed\n");
            delete job;
            return;
        }
        aclrtMemcpyAsync(job->host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream);
    }
    if (aclrtLaunchHostFunc(stream, RunBody, job) != ACL_SUCCESS) {
        aclrtSynchronizeStream(stream);
        job->body(job->host);
        if (bytes != 0) {
            aclrtMemcpy(dev, bytes, job->host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
            aclrtFreeHost(job->host);
        }
        delete job;
        return;
    }
    if (bytes != 0) {
        aclrtMemcpyAsync(dev, bytes, job->host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);
        aclrtLaunchHostFunc(stream, Free, job);
    } else {
        aclrtLaunchHostFunc(stream, [](void *arg) { delete static_cast<Job *>(arg); }, job);
    }
}

// The same, done before returning: waits for the stream, then changes
// dev[0, bytes) with synchronous copies. For the kernels of samples that
// destroy their stream with aclrtDestroyStreamForce right after the launch,
// without a synchronize: on a card the one-block kernel has run by then, while
// a force-destroy discards what is still queued (the mock does), so a
// stand-in queued on the stream would never run.
inline void Now(aclrtStream stream, void *dev, size_t bytes, const std::function<void(void *)> &body)
{
    std::vector<unsigned char> host(bytes);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(host.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    body(host.data());
    aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
}

} // namespace standin
