// Stand-in for kernel_func/short_OP.cpp: block i doubles x[i].
#include "standin.h"

void ShortOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    standin::OnStream(stream, x, blockDim * sizeof(uint32_t), [blockDim](void *host) {
        for (uint32_t i = 0; i < blockDim; i++) {
            static_cast<uint32_t *>(host)[i] *= 2;
        }
    });
}
