// Stand-in for kernel_func/write_read_value.cpp: each of blockDim blocks
// writes `value` to, or reads and prints, its own int of devPtr. Done at
// once (standin::Now): the memory samples force-destroy their stream next.
#include "standin.h"

void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value)
{
    standin::Now(stream, devPtr, blockDim * sizeof(int), [blockDim, value](void *host) {
        for (uint32_t i = 0; i < blockDim; i++) {
            static_cast<int *>(host)[i] = value;
            printf("Source data: %d\n", value);
        }
        fflush(stdout);
    });
}

void ReadDo(uint32_t blockDim, void *stream, int *devPtr)
{
    standin::Now(stream, devPtr, blockDim * sizeof(int), [blockDim](void *host) {
        for (uint32_t i = 0; i < blockDim; i++) {
            printf("Destination data: %d\n", static_cast<int *>(host)[i]);
        }
        fflush(stdout);
    });
}
