// Stand-in for kernel_func/kernel_add.cpp: dst = srcA + srcB over totalSize
// floats (the kernel splits them over blockDim blocks). Three steps in stream
// order: take a host copy of each source (written back unchanged), then
// compute dst.
#include <memory>
#include <vector>
#include "standin.h"

void AddDo(uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, uint32_t totalSize)
{
    (void)blockDim;
    size_t bytes = totalSize * sizeof(float);
    auto a = std::make_shared<std::vector<float>>(totalSize);
    auto b = std::make_shared<std::vector<float>>(totalSize);
    standin::OnStream(stream, srcA, bytes, [a, bytes](void *host) { memcpy(a->data(), host, bytes); });
    standin::OnStream(stream, srcB, bytes, [b, bytes](void *host) { memcpy(b->data(), host, bytes); });
    standin::OnStream(stream, dst, bytes, [a, b, totalSize](void *host) {
        for (uint32_t i = 0; i < totalSize; i++) {
            static_cast<float *>(host)[i] = (*a)[i] + (*b)[i];
        }
    });
}
