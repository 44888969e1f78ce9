/* kdiag stand-in for cuSOLVER's dense-solver header <cusolverDn.h>, used only where this machine lacks the
 * real header.  Declares what torch's CUDA headers name: the handle type cusolverDnHandle_t (an opaque
 * pointer to the library's context), as NVIDIA's cuSOLVER documentation describes it ("cuSolverDN Types"),
 * and the common types of <cusolver_common.h>.  No cuSOLVER function is declared (see README.md in this
 * folder). */
#ifndef KDIAG_STAND_IN_CUSOLVERDN_H
#define KDIAG_STAND_IN_CUSOLVERDN_H

#include <cusolver_common.h>

struct cusolverDnContext;
typedef struct cusolverDnContext* cusolverDnHandle_t;

#endif
