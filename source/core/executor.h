// The one way the library runs a kernel on a backend.
//
// A kernel family lists its kernels once, in its `*_kernels.h`, as a macro of two parameters: the
// number type and what goes before each declaration, e.g.
//
//   #define GPUMF_VECTOR_KERNELS(Number, TEMPLATE)                        \
//     /* x[i] = s */                                                      \
//     TEMPLATE void fill(Number *x, std::size_t n, Number s);
//   GPUMF_DECLARE_KERNELS(GPUMF_VECTOR_KERNELS(Number, template <typename Number>))
//
// GPUMF_DECLARE_KERNELS declares the list twice from that one text: in namespace
// gpumf::internal::host (the naive host reference, `*_reference.cc`, g++) and in
// gpumf::internal::cuda (`*_kernels.cu`, nvcc). Each implementation file instantiates its
// definitions with the same list: `GPUMF_VECTOR_KERNELS(double, template)` is
// `template void fill(double *x, std::size_t n, double s);`, an explicit instantiation.
//
// The library calls a kernel only through GPUMF_DISPATCH(backend, kernel(arguments)): the CUDA
// implementation when backend is Backend::cuda, else the host reference. So a kernel without a host
// reference does not link in any build, one without a CUDA implementation does not compile in the
// CUDA build, and in a build without CUDA (GPUMF_WITH_CUDA=OFF: the .cu files are not compiled)
// reaching the CUDA branch throws ExcNoGPU (the public API cannot reach it: such a build refuses
// Backend::cuda). GPUMF_DISPATCH is an expression with the kernel's value.
//
// The cell loops of user functors are templates compiled in the user's translation unit; they
// make the same choice in include/gpumf/internal/cell_loop.h. CUDA runtime calls that are not
// kernels stay behind `#if GPUMF_WITH_CUDA`, since the CUDA runtime is not linked in a build without
// CUDA: memory, events and device queries in core/ (core/device.h for the set-up's), the streams
// and events of the exchange in linear_algebra/exchange.cc and ipc.cc.
#ifndef gpumf_source_core_executor_h
#define gpumf_source_core_executor_h

#include <gpumf/backend.h>
#include <gpumf/config.h>

namespace gpumf
{
  namespace internal
  {
    /// Throws ExcNoGPU: this build has no CUDA backend.
    [[noreturn]] void
    throw_no_cuda();
  } // namespace internal
} // namespace gpumf

/// Declares a family's kernel list in namespaces host and cuda of gpumf::internal.
#define GPUMF_DECLARE_KERNELS(...) \
  namespace gpumf                  \
  {                                \
    namespace internal             \
    {                              \
      namespace host               \
      {                            \
        __VA_ARGS__                \
      }                            \
      namespace cuda               \
      {                            \
        __VA_ARGS__                \
      }                            \
    }                              \
  }

/// What goes before a kernel declaration templated on the dimension and the number type.
#define GPUMF_TEMPLATE_DIM_NUMBER template <int dim, typename Number>

#if GPUMF_WITH_CUDA
#  define GPUMF_DISPATCH(backend, ...) \
    ((backend) == ::gpumf::Backend::cuda ? ::gpumf::internal::cuda::__VA_ARGS__ : ::gpumf::internal::host::__VA_ARGS__)
#else
#  define GPUMF_DISPATCH(backend, ...)                                              \
    ((backend) == ::gpumf::Backend::cuda ?                                          \
       (::gpumf::internal::throw_no_cuda(), ::gpumf::internal::host::__VA_ARGS__) : \
       ::gpumf::internal::host::__VA_ARGS__)
#endif

#endif
