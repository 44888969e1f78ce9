/* kdiag stand-in for cuSOLVER's <cusolver_common.h>, used only where this machine lacks the real header.
 * Declares what torch's CUDA headers name: the status type cusolverStatus_t with its success value and
 * the invalid-value status torch's error check tests for, as NVIDIA's cuSOLVER documentation describes
 * them ("cuSolver Types Reference").  No cuSOLVER function is declared (see README.md in this folder). */
#ifndef KDIAG_STAND_IN_CUSOLVER_COMMON_H
#define KDIAG_STAND_IN_CUSOLVER_COMMON_H

typedef enum { CUSOLVER_STATUS_SUCCESS = 0, CUSOLVER_STATUS_INVALID_VALUE = 3 } cusolverStatus_t;

#endif
