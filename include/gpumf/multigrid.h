/**
 * @file gpumf/multigrid.h
 * deal.II's geometric multigrid classes (Multigrid, PreconditionMG, mg::Matrix,
 * mg::SmootherRelaxation, MGCoarseGridIterativeSolver, ...) driving gpumf::Vector level vectors.
 * deal.II compiles the non-template parts of Multigrid, MGTransferBase and MGSmootherBase for
 * its own vector types only; gpumf provides them for gpumf::Vector<float> and gpumf::Vector<double>
 * (source/multigrid/multigrid.cc), declared here so that every user sees them. Included by gpumf/mg_transfer.h.
 */
#ifndef gpumf_multigrid_h
#define gpumf_multigrid_h

#include <gpumf/vector.h>

#include <deal.II/multigrid/mg_base.h>
#include <deal.II/multigrid/multigrid.h>

namespace dealii
{
  /// dst += P src through a temporary (as deal.II's default for its own vectors).
  template <>
  void
  MGTransferBase<gpumf::Vector<float>>::prolongate_and_add(const unsigned int,
                                                           gpumf::Vector<float> &,
                                                           const gpumf::Vector<float> &) const;
  template <>
  void
  MGTransferBase<gpumf::Vector<double>>::prolongate_and_add(const unsigned int,
                                                            gpumf::Vector<double> &,
                                                            const gpumf::Vector<double> &) const;
  /// u = 0, then smooth() (as deal.II's default for its own vectors).
  template <>
  void
  MGSmootherBase<gpumf::Vector<float>>::apply(const unsigned int,
                                              gpumf::Vector<float> &,
                                              const gpumf::Vector<float> &) const;
  template <>
  void
  MGSmootherBase<gpumf::Vector<double>>::apply(const unsigned int,
                                               gpumf::Vector<double> &,
                                               const gpumf::Vector<double> &) const;

  extern template class Multigrid<gpumf::Vector<float>>;
  extern template class Multigrid<gpumf::Vector<double>>;
} // namespace dealii

#endif
