// The benchmarks' curved mesh: a box under a smooth displacement (zero on no face), represented
// by a MappingQCache of degree 3 over MappingQ1: curved, non-affine cells.
#ifndef gpumf_benchmarks_deformed_mapping_h
#define gpumf_benchmarks_deformed_mapping_h

#include <deal.II/base/numbers.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/fe/mapping_q_cache.h>

#include <cmath>
#include <memory>

namespace bench
{
  template <int dim>
  std::unique_ptr<dealii::MappingQCache<dim>>
  deformed_mapping(const dealii::Triangulation<dim> &tria)
  {
    auto mapping = std::make_unique<dealii::MappingQCache<dim>>(3);
    mapping->initialize(
      dealii::MappingQ1<dim>(),
      tria,
      [](const typename dealii::Triangulation<dim>::cell_iterator &, const dealii::Point<dim> &x) {
        dealii::Point<dim> shift;
        for (unsigned int d = 0; d < dim; ++d)
          shift[d] = 0.03 * std::sin(dealii::numbers::PI * x[(d + 1) % dim]) * std::sin(2 * dealii::numbers::PI * x[d]);
        return shift;
      },
      true);
    return mapping;
  }
} // namespace bench

#endif
