// Stand-in for kernel_func/kernel_print.cpp: each of blockDim blocks prints
// "Hello World", at once (standin::Now): the sample force-destroys its
// stream next.
#include "standin.h"

void PrintDo(uint32_t blockDim, void *stream)
{
    standin::Now(stream, nullptr, 0, [blockDim](void *) {
        for (uint32_t i = 0; i < blockDim; i++) {
            printf("Hello World\n");
        }
        fflush(stdout);
    });
}
