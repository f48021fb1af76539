// deal.II's Multigrid, MGTransferBase and MGSmootherBase for gpumf vectors (include/gpumf/multigrid.h).
#include <gpumf/multigrid.h>

#include <deal.II/multigrid/multigrid.templates.h>

namespace dealii
{
  namespace
  {
    template <typename VectorType>
    void
    prolongate_and_add_through_temporary(const MGTransferBase<VectorType> &transfer,
                                         const unsigned int                to_level,
                                         VectorType                       &dst,
                                         const VectorType                 &src)
    {
      VectorType temporary;
      temporary.reinit(dst, true);
      transfer.prolongate(to_level, temporary, src);
      dst += temporary;
    }
  } // namespace

  template <>
  void
  MGTransferBase<gpumf::Vector<float>>::prolongate_and_add(const unsigned int          to_level,
                                                           gpumf::Vector<float>       &dst,
                                                           const gpumf::Vector<float> &src) const
  {
    prolongate_and_add_through_temporary(*this, to_level, dst, src);
  }

  template <>
  void
  MGTransferBase<gpumf::Vector<double>>::prolongate_and_add(const unsigned int           to_level,
                                                            gpumf::Vector<double>       &dst,
                                                            const gpumf::Vector<double> &src) const
  {
    prolongate_and_add_through_temporary(*this, to_level, dst, src);
  }

  template <>
  void
  MGSmootherBase<gpumf::Vector<float>>::apply(const unsigned int          level,
                                              gpumf::Vector<float>       &u,
                                              const gpumf::Vector<float> &rhs) const
  {
    u = 0.f;
    smooth(level, u, rhs);
  }

  template <>
  void
  MGSmootherBase<gpumf::Vector<double>>::apply(const unsigned int           level,
                                               gpumf::Vector<double>       &u,
                                               const gpumf::Vector<double> &rhs) const
  {
    u = 0.;
    smooth(level, u, rhs);
  }

  template class Multigrid<gpumf::Vector<float>>;
  template class Multigrid<gpumf::Vector<double>>;
} // namespace dealii
