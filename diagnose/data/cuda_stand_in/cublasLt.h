/* kdiag stand-in for cuBLASLt's <cublasLt.h>, used only where this machine lacks the real header.
 * Declares what torch's CUDA headers name: the handle type cublasLtHandle_t (an opaque pointer to the
 * library's context), as NVIDIA's cuBLAS documentation describes it ("cuBLASLt Datatypes Reference").
 * No cuBLASLt function is declared (see README.md in this folder). */
#ifndef KDIAG_STAND_IN_CUBLASLT_H
#define KDIAG_STAND_IN_CUBLASLT_H

struct cublasLtContext;
typedef struct cublasLtContext* cublasLtHandle_t;

#endif
