// The error check every program here uses: the format of the CUDA samples' helper_cuda.h
// ("CUDA error at FILE:LINE code=N(cudaErrorX) "call""), so the logs look like real-world ones.
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\": %s\n", __FILE__, __LINE__,   \
                    (int)err_, cudaGetErrorName(err_), #call, cudaGetErrorString(err_));          \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)
