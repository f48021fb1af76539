// The meshes and elements of the discontinuous Galerkin tests (dg_test, dg_mass_test): Cartesian
// with Dirichlet and Neumann ids, distorted, a curved shell with MappingQ(3), adaptive (hanging
// faces), and in 3D two cells whose second is turned by each of the 24 rotations of the cube.
#ifndef gpumf_tests_dg_meshes_h
#define gpumf_tests_dg_meshes_h

#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "test_utils.h"

namespace test
{
  namespace dg
  {
    using namespace dealii;

    enum class Mesh
    {
      cube,           // Cartesian, boundary ids by face (colorize): 0 Dirichlet, others Neumann
      distorted,      // interior vertices moved at random: non-affine cells
      shell,          // curved, MappingQ(3); outer boundary Neumann
      rotated,        // 3D: two cells, the second turned by rotation `variant` of the 24
      adaptive,       // the cube with the cells near a corner refined once more (2D: twice): hanging faces
      adaptive_shell, // the shell with the cells of x > 0 (and, in 2D, then x, y > 0) refined: curved hanging faces
      periodic,       // step-59's box [0, 2.5] x [0, 2.8]^(dim-1), periodic in x, id 0 at y = 0 (Dirichlet), 1 else
      periodic_cell   // the same box as one cell: its own neighbour across the period
    };

    inline std::string
    name(const Mesh mesh)
    {
      if (mesh == Mesh::periodic)
        return "periodic";
      if (mesh == Mesh::periodic_cell)
        return "periodic cell";
      return mesh == Mesh::cube      ? "cube" :
             mesh == Mesh::distorted ? "distorted" :
             mesh == Mesh::shell     ? "shell" :
             mesh == Mesh::rotated   ? "rotated" :
             mesh == Mesh::adaptive  ? "adaptive" :
                                       "adaptive shell";
    }

    enum class Element
    {
      dgq,
      hermite,
      legendre
    };

    inline std::string
    name(const Element element)
    {
      return element == Element::dgq ? "FE_DGQ" : element == Element::hermite ? "FE_DGQHermite" : "FE_DGQLegendre";
    }

    template <int dim>
    std::unique_ptr<FiniteElement<dim>>
    make_element(const Element element, const unsigned int degree)
    {
      if (element == Element::dgq)
        return std::make_unique<FE_DGQ<dim>>(degree);
      if (element == Element::hermite)
        return std::make_unique<FE_DGQHermite<dim>>(degree);
      return std::make_unique<FE_DGQLegendre<dim>>(degree);
    }

    /// The 24 rotations of the cube: signed permutation matrices with determinant 1.
    inline std::vector<Tensor<2, 3>>
    cube_rotations()
    {
      std::vector<Tensor<2, 3>> result;
      const unsigned int        perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
      for (const auto &perm : perms)
        for (unsigned int signs = 0; signs < 8; ++signs)
          {
            Tensor<2, 3> r;
            for (unsigned int i = 0; i < 3; ++i)
              r[i][perm[i]] = (signs >> i) & 1 ? -1. : 1.;
            if (determinant(r) > 0)
              result.push_back(r);
          }
      return result;
    }

    /// Two unit cubes [0,1]^3 and [1,2]x[0,1]^2; the second's vertices listed in a frame turned by @p r.
    inline void
    make_rotated(Triangulation<3> &tria, const Tensor<2, 3> &r)
    {
      std::vector<Point<3>> vertices;
      // the 12 vertices of the 3 x 2 x 2 grid of points, x fastest
      for (unsigned int z = 0; z < 2; ++z)
        for (unsigned int y = 0; y < 2; ++y)
          for (unsigned int x = 0; x < 3; ++x)
            vertices.emplace_back(x, y, z);
      const auto index = [](const Point<3> &p) {
        return unsigned(std::lround(p[0])) + 3 * unsigned(std::lround(p[1])) + 6 * unsigned(std::lround(p[2]));
      };
      std::vector<CellData<3>> cells(2);
      for (unsigned int v = 0; v < 8; ++v)
        {
          const Point<3> local(v % 2, (v / 2) % 2, v / 4);
          cells[0].vertices[v] = index(local);
          // the second cell's local vertex v at the center (1.5, .5, .5) plus r (local - center)
          const Tensor<1, 3> centered = local - Point<3>(0.5, 0.5, 0.5);
          const Tensor<1, 3> turned   = r * centered;
          cells[1].vertices[v]        = index(Point<3>(1.5 + turned[0], 0.5 + turned[1], 0.5 + turned[2]));
        }
      tria.create_triangulation(vertices, cells, SubCellData());
      // a Neumann part: the faces at y = 1
      for (const auto &cell : tria.active_cell_iterators())
        for (const unsigned int f : cell->face_indices())
          if (cell->at_boundary(f) && std::abs(cell->face(f)->center()[1] - 1) < 1e-12)
            cell->face(f)->set_boundary_id(1);
    }

    /// A mesh of the DG tests and its mapping (MappingQ(3) on the shell, else MappingQ(1)).
    template <int dim>
    struct DGMesh
    {
      std::unique_ptr<Triangulation<dim>> tria;
      std::unique_ptr<Mapping<dim>>       mapping;
    };

    /// Mesh @p mesh (@p variant: the rotation of Mesh::rotated, which is refined once for odd
    /// ones); with @p multigrid the levels of a parallel mesh are kept on every rank
    /// (construct_multigrid_hierarchy), for level DoFs.
    template <int dim>
    DGMesh<dim>
    make_mesh(const Mesh mesh, const unsigned int variant, const MPI_Comm comm, const bool multigrid = false)
    {
      DGMesh<dim> result;
      result.mapping = std::make_unique<MappingQ<dim>>(mesh == Mesh::shell ? 3 : 1);
      if (mesh == Mesh::rotated)
        {
          if constexpr (dim == 3)
            {
              result.tria = std::make_unique<Triangulation<dim>>();
              make_rotated(*result.tria, cube_rotations()[variant]);
              result.tria->refine_global(variant % 2);
            }
        }
      else
        {
          result.tria = std::make_unique<parallel::distributed::Triangulation<dim>>(
            comm,
            multigrid ? Triangulation<dim>::limit_level_difference_at_vertices : Triangulation<dim>::none,
            multigrid ? parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy :
                        parallel::distributed::Triangulation<dim>::default_setting);
          if (mesh == Mesh::cube)
            {
              GridGenerator::hyper_cube(*result.tria, 0., 1., true);
              result.tria->refine_global(dim == 2 ? 3 : 2);
            }
          else if (mesh == Mesh::adaptive)
            {
              GridGenerator::hyper_cube(*result.tria, 0., 1., true);
              result.tria->refine_global(dim == 2 ? 2 : 1);
              for (unsigned int round = 0; round < (dim == 2 ? 2 : 1); ++round)
                {
                  for (const auto &cell : result.tria->active_cell_iterators())
                    if (cell->is_locally_owned() && cell->center().norm() < 0.6)
                      cell->set_refine_flag();
                  result.tria->execute_coarsening_and_refinement();
                }
            }
          else if (mesh == Mesh::adaptive_shell)
            {
              test::make_mesh(*result.tria, test::Domain::shell, 0);
              for (unsigned int round = 0; round < (dim == 2 ? 2 : 1); ++round)
                {
                  for (const auto &cell : result.tria->active_cell_iterators())
                    if (cell->is_locally_owned() && cell->center()[0] > 0 && (round == 0 || cell->center()[1] > 0))
                      cell->set_refine_flag();
                  result.tria->execute_coarsening_and_refinement();
                }
            }
          else if (mesh == Mesh::periodic || mesh == Mesh::periodic_cell)
            {
              Point<dim> upper_right;
              upper_right[0] = 2.5;
              for (unsigned int d = 1; d < dim; ++d)
                upper_right[d] = 2.8;
              GridGenerator::hyper_rectangle(*result.tria, Point<dim>(), upper_right);
              const auto cell = result.tria->begin_active();
              cell->face(0)->set_boundary_id(10);
              cell->face(1)->set_boundary_id(11);
              cell->face(2)->set_boundary_id(0);
              for (unsigned int f = 3; f < cell->n_faces(); ++f)
                cell->face(f)->set_boundary_id(1);
              std::vector<GridTools::PeriodicFacePair<typename Triangulation<dim>::cell_iterator>> pairs;
              GridTools::collect_periodic_faces(*result.tria, 10, 11, 0, pairs);
              result.tria->add_periodicity(pairs);
              if (mesh == Mesh::periodic)
                result.tria->refine_global(dim == 2 ? 3 : 2);
            }
          else if (mesh == Mesh::distorted)
            test::make_mesh(*result.tria, test::Domain::distorted_cube, 0);
          else
            {
              test::make_mesh(*result.tria, test::Domain::shell, 1);
              for (const auto &cell : result.tria->active_cell_iterators())
                for (const unsigned int f : cell->face_indices())
                  if (cell->at_boundary(f) && cell->face(f)->center().norm() > 0.75)
                    cell->face(f)->set_boundary_id(1);
            }
        }
      return result;
    }
  } // namespace dg
} // namespace test

#endif
