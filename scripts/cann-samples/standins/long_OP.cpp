// Stand-in for kernel_func/long_OP.cpp: a long task (the kernel spins on a
// floating-point loop whose result stays positive), then block i adds 1 to
// x[i]. The stand-in sleeps instead, so that the samples' queries of an
// unfinished task see one.
#include <chrono>
#include <thread>
#include "standin.h"

void LongOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    standin::OnStream(stream, x, blockDim * sizeof(uint32_t), [blockDim](void *host) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        for (uint32_t i = 0; i < blockDim; i++) {
            static_cast<uint32_t *>(host)[i] += 1;
        }
    });
}
