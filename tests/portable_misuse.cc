// Compiled only by the test portable.message (never built by default): cell functors that fit
// neither of gpumf's forms must stop the compilation with a message that names the fix, not a page
// of template errors.
#include <gpumf/portable.h>

using namespace dealii;

namespace
{
  using Data = gpumf::Portable::MatrixFree<2, double>::Data;

  /// deal.II 9.7's form without n_q_points.
  struct NoPoints
  {
    GPUMF_HOST_DEVICE void
    operator()(const Data *,
               const gpumf::Portable::DeviceVector<double> &,
               gpumf::Portable::DeviceVector<double> &) const
    {}
  };

  /// 9.7's arguments with 9.6's vector pointers: neither form.
  struct Mixed
  {
    static constexpr unsigned int n_q_points = 9;

    GPUMF_HOST_DEVICE void
    operator()(const Data *, const double *, double *) const
    {}
  };

  /// 9.7's form with several source vectors.
  struct Several
  {
    static constexpr unsigned int n_q_points = 9;

    GPUMF_HOST_DEVICE void
    operator()(const Data *,
               const gpumf::Portable::DeviceVector<double> &,
               gpumf::Portable::DeviceVector<double> &) const
    {}
  };
} // namespace

void
misuse(const gpumf::Portable::MatrixFree<2, double> &mf, gpumf::Vector<double> &src, gpumf::Vector<double> &dst)
{
  mf.cell_loop(NoPoints(), src, dst);
  mf.cell_loop(Mixed(), src, dst);
  std::vector<const gpumf::Vector<double> *> sources{&src, &src};
  mf.cell_loop(Several(), sources, dst);
}

int
main()
{}
