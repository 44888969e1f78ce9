/* kdiag stand-in for cuBLAS's <cublas_v2.h>, used only where this machine lacks the real header.
 * Declares what torch's CUDA headers name: the handle type cublasHandle_t (an opaque pointer to the
 * library's context) and the status type cublasStatus_t with its success value, as NVIDIA's cuBLAS
 * documentation describes them ("cuBLAS Datatypes Reference").  No cuBLAS function is declared: a
 * source that calls one is not checked here (see README.md in this folder). */
#ifndef KDIAG_STAND_IN_CUBLAS_V2_H
#define KDIAG_STAND_IN_CUBLAS_V2_H

struct cublasContext;
typedef struct cublasContext* cublasHandle_t;

typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;

#endif
