/* kdiag stand-in for cuSPARSE's <cusparse.h>, used only where this machine lacks the real header.
 * Declares what torch's CUDA headers name: the handle type cusparseHandle_t (an opaque pointer to the
 * library's context) and the status type cusparseStatus_t with its success value, as NVIDIA's cuSPARSE
 * documentation describes them ("cuSPARSE Types Reference").  No cuSPARSE function is declared (see
 * README.md in this folder). */
#ifndef KDIAG_STAND_IN_CUSPARSE_H
#define KDIAG_STAND_IN_CUSPARSE_H

struct cusparseContext;
typedef struct cusparseContext* cusparseHandle_t;

typedef enum { CUSPARSE_STATUS_SUCCESS = 0 } cusparseStatus_t;

#endif
