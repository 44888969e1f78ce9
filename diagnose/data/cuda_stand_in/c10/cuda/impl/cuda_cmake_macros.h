/* kdiag stand-in for torch's c10/cuda/impl/cuda_cmake_macros.h, used only where the installed torch lacks it
 * (its CPU wheels do not ship it).  torch's build generates that file from its CMake configuration; the
 * configuration it records only changes how c10's CUDA library exports its symbols on Windows, so nothing
 * needs declaring here for a compile check on Linux (see README.md in this folder). */
#pragma once
