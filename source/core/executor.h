// GPUMF_CUDA(statement): the one way the library's .cc files reach a CUDA kernel launcher of
// source/*.cu. With the CUDA backend compiled in, the statement runs. In a build without CUDA
// (GPUMF_WITH_CUDA=OFF) the .cu files are not compiled, so the statement is not compiled either
// and reaching it throws ExcNoGPU (the public API cannot reach it: such a build refuses
// Backend::cuda). A launcher called without this macro leaves an undefined reference in a
// host-only build, which CI builds and links. The statement may `return`; it must not
// `break` or `continue` (the macro is a do-while block, so that it is one statement in both
// builds).
#ifndef gpumf_source_core_executor_h
#define gpumf_source_core_executor_h

#include <gpumf/backend.h>
#include <gpumf/config.h>

#if GPUMF_WITH_CUDA
#  define GPUMF_CUDA(...) \
    do                      \
      {                     \
        __VA_ARGS__;        \
      }                     \
    while (false)
#else
#  define GPUMF_CUDA(...)                                                                        \
    do                                                                                           \
      {                                                                                          \
        AssertThrow(false, ::gpumf::ExcNoGPU("gpumf was built without CUDA (GPUMF_WITH_CUDA=OFF)")); \
      }                                                                                          \
    while (false)
#endif

#endif
