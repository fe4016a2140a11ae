// Stand-in for kernel_func/kernel_print.cpp: each of blockDim blocks prints
// "Hello World".
#include "standin.h"

void PrintDo(uint32_t blockDim, void *stream)
{
    standin::OnStream(stream, nullptr, 0, [blockDim](void *) {
        for (uint32_t i = 0; i < blockDim; i++) {
            printf("Hello World\n");
        }
        fflush(stdout);
    });
}
