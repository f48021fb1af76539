// The deal.II classes whose objects a gpumf program shares with libdeal.ii (made in a .cu file,
// used by the library, or the other way round), for nvcc_layout_test: GPUMF_LAYOUT_TYPES(F)
// calls F(type) for each.
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/index_set.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/hp/fe_collection.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/read_write_vector.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/data_out.h>

#include <cstddef>
#include <string>
#include <vector>

#define GPUMF_LAYOUT_TYPES(F)                           \
  F(dealii::IndexSet)                                   \
  F(dealii::ConditionalOStream)                         \
  F(dealii::Triangulation<3>)                           \
  F(dealii::parallel::distributed::Triangulation<3>)    \
  F(dealii::DoFHandler<3>)                              \
  F(dealii::FE_Q<3>)                                    \
  F(dealii::hp::FECollection<3>)                        \
  F(dealii::MappingQ<3>)                                \
  F(dealii::QGauss<3>)                                  \
  F(dealii::FEValues<3>)                                \
  F(dealii::AffineConstraints<double>)                  \
  F(dealii::Utilities::MPI::Partitioner)                \
  F(dealii::Vector<double>)                             \
  F(dealii::LinearAlgebra::ReadWriteVector<double>)     \
  F(dealii::LinearAlgebra::distributed::Vector<double>) \
  F(dealii::LinearAlgebra::distributed::Vector<float>)  \
  F(dealii::SolverControl)                              \
  F(dealii::DataOut<3>)

namespace test
{
  /// "type size alignment" of each type, as the compiler of the calling file lays it out
  struct Layout
  {
    std::string name;
    std::size_t size, alignment;
  };

  std::vector<Layout>
  layouts_in_cuda_file();
} // namespace test
