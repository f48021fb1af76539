// gpumf::MatrixFree's geometry (geometry.h): a polynomial mapping's support points on the host,
// everything else by the backend's geometry kernel; FEValues on the host for other mappings.
#include <deal.II/base/polynomial.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <string>

#include "core/threads.h"
#include "matrix_free/geometry.h"
#include "matrix_free/geometry_kernels.h"

namespace gpumf
{
  namespace internal
  {
    using namespace dealii;

    namespace
    {
      /**
       * MappingQ::compute_mapping_support_points(), which deal.II declares protected: a
       * derived class may name it, and the member pointer it gives calls the mapping's own
       * (virtual) version, MappingQCache's cached points included. No object of this class
       * is made. deal.II 9.4 and 9.6 return the points; 9.8 fills a small_vector argument: the
       * member pointer's type says which (no version test: whichever deal.II has it).
       */
      template <int dim>
      struct SupportPoints : MappingQ<dim>
      {
        static std::vector<Point<dim>>
        of(const MappingQ<dim> &mapping, const typename Triangulation<dim>::cell_iterator &cell)
        {
          const auto function = &SupportPoints::compute_mapping_support_points;
          using Returning =
            std::vector<Point<dim>> (MappingQ<dim>::*)(const typename Triangulation<dim>::cell_iterator &) const;
          if constexpr (std::is_same_v<decltype(function), const Returning>)
            return (mapping.*function)(cell);
          else
            {
              boost::container::small_vector<Point<dim>, 200> points;
              (mapping.*function)(cell, points);
              return std::vector<Point<dim>>(points.begin(), points.end());
            }
        }
      };

      /// The checks on the counts that 32-bit indices reach.
      void
      check_sizes(const std::size_t n_total)
      {
        AssertThrow(n_total < std::numeric_limits<unsigned int>::max(),
                    ExcNotSupported("gpumf::MatrixFree: " + std::to_string(n_total) +
                                    " quadrature points on one rank; at most 2^32 are supported (32-bit "
                                    "indices): distribute the mesh over more ranks."));
      }

      void
      check_per_point(const std::size_t n_total, const unsigned int dim)
      {
        AssertThrow(n_total * dim * dim < std::numeric_limits<unsigned int>::max(),
                    ExcNotSupported(
                      "gpumf::MatrixFree: geometry per point needs dim^2 = " + std::to_string(dim * dim) +
                      " entries for each of the " + std::to_string(n_total) +
                      " quadrature points on this rank, more than the 2^32 that 32-bit indices reach. "
                      "Distribute the mesh over more ranks, or use an affine mesh (one Jacobian per cell)."));
      }

      void
      check_affine(const std::size_t first_curved, const std::size_t n_cells, const bool affine_asked)
      {
        AssertThrow(first_curved == n_cells || !affine_asked,
                    ExcNotSupported("gpumf::MatrixFree: GeometryStorage::affine needs parallelepiped cells "
                                    "(constant Jacobian), but the Jacobian varies within locally owned cell " +
                                    std::to_string(first_curved) +
                                    " in color order. Use "
                                    "GeometryStorage::per_point or automatic."));
      }

      void
      check_distorted(const std::size_t first_distorted, const std::size_t n_cells)
      {
        AssertThrow(first_distorted == n_cells,
                    ExcNotSupported("gpumf::MatrixFree: the mapping's Jacobian determinant is zero or negative at a "
                                    "quadrature point of locally owned cell " +
                                    std::to_string(first_distorted) +
                                    " in color order (a distorted or inverted cell, deal.II's "
                                    "ExcDistortedMappedCell): fix the mesh or the mapping."));
      }

      /**
       * Where the geometry is stored, the same for both ways of computing it: per point where
       * asked for (made before the first pass), else per cell where no cell is curved, else per
       * point, made and filled by a second pass. @p allocate_per_point makes the per-point
       * arrays, @p pass(per_point) computes every cell (writing the per-point values if asked),
       * @p first_with(mask) the first cell with a flag in @p mask. Returns whether it is affine.
       */
      template <typename Storage, typename Allocate, typename Pass, typename FirstWith>
      bool
      decide_storage(const Storage     storage,
                     const std::size_t n_cells,
                     const Allocate   &allocate_per_point,
                     const Pass       &pass,
                     const FirstWith  &first_with)
      {
        const bool per_point_asked = storage == Storage::per_point;
        if (per_point_asked)
          allocate_per_point();
        pass(per_point_asked);
        check_distorted(first_with(cell_distorted), n_cells);
        if (per_point_asked)
          return false;
        const std::size_t first_curved = first_with(cell_curved);
        check_affine(first_curved, n_cells, storage == Storage::affine);
        if (first_curved == n_cells)
          return true;
        allocate_per_point();
        pass(true);
        return false;
      }

      /// The per-point weights of the tensor-product quadrature, in double.
      template <int dim>
      std::vector<double>
      tensor_weights(const Quadrature<1> &quad)
      {
        const Quadrature<dim> quadrature(quad);
        std::vector<double>   weights(quadrature.size());
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          weights[q] = quadrature.weight(q);
        return weights;
      }

      /**
       * A polynomial mapping: its support points per cell (lexicographic) in deal.II's threads,
       * then the backend's kernel. The per-cell pass first; the per-point arrays only where a
       * cell is curved (or asked for), in a second pass of the kernel.
       */
      template <int dim, typename Number>
      void
      from_support_points(const MappingQ<dim>                                           &mapping,
                          const Quadrature<1>                                           &quad,
                          const std::vector<typename Triangulation<dim>::cell_iterator> &cells,
                          const typename MatrixFree<dim, Number>::GeometryStorage        storage,
                          const Backend                                                  backend,
                          GeometryArrays<dim, Number>                                   &arrays)
      {
        const unsigned int degree  = mapping.get_degree();
        const unsigned int n_s1    = degree + 1;
        const unsigned int n_s     = Utilities::pow(n_s1, dim);
        const unsigned int n_cells = cells.size();
        const unsigned int n_q1    = quad.size();
        const unsigned int n_q     = Utilities::pow(n_q1, dim);
        const std::size_t  n_total = std::size_t(n_cells) * n_q;
        check_sizes(n_total);
        // MappingQ's basis: Lagrange polynomials on the Gauss-Lobatto points, its support points
        // numbered as FE_Q's (hierarchic)
        const auto          basis = Polynomials::generate_complete_Lagrange_basis(QGaussLobatto<1>(n_s1).get_points());
        std::vector<double> values(n_q1 * n_s1), derivatives(n_q1 * n_s1), value_and_derivative(2);
        for (unsigned int q = 0; q < n_q1; ++q)
          for (unsigned int i = 0; i < n_s1; ++i)
            {
              basis[i].value(quad.point(q)[0], value_and_derivative);
              values[q * n_s1 + i]      = value_and_derivative[0];
              derivatives[q * n_s1 + i] = value_and_derivative[1];
            }

        // written by the threads (first touch there)
        std::unique_ptr<double[]> support(new double[std::size_t(n_cells) * n_s * dim]);
        internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
          for (unsigned int c = begin; c < end; ++c)
            lexicographic_support_points(mapping, cells[c], support.get() + std::size_t(c) * n_s * dim);
        });
        Array<double> device_support, device_values, device_derivatives, device_weights;
        device_support.reinit(backend, support.get(), std::size_t(n_cells) * n_s * dim);
        support.reset();
        device_values.reinit(backend, values);
        device_derivatives.reinit(backend, derivatives);
        device_weights.reinit(backend, tensor_weights<dim>(quad));

        Array<Number>       cell_det, cell_inverse;
        Array<unsigned int> flags;
        arrays.q_points.reinit(backend, n_total);
        cell_det.reinit(backend, n_cells);
        cell_inverse.reinit(backend, std::size_t(dim) * dim * n_cells);
        flags.reinit(backend, n_cells);
        MappingGeometry<dim, Number> g{device_support.data(),
                                       device_values.data(),
                                       device_derivatives.data(),
                                       n_s1,
                                       n_q1,
                                       n_cells,
                                       reinterpret_cast<Number *>(arrays.q_points.data()),
                                       cell_det.data(),
                                       cell_inverse.data(),
                                       flags.data(),
                                       nullptr,
                                       nullptr,
                                       device_weights.data()};
        const auto                   allocate_per_point = [&]() {
          check_per_point(n_total, dim);
          arrays.JxW.reinit(backend, n_total);
          arrays.inv_jacobian.reinit(backend, std::size_t(dim) * dim * n_total);
          g.JxW          = arrays.JxW.data();
          g.inv_jacobian = arrays.inv_jacobian.data();
        };
        // (the kernel writes the per-point values where g has their arrays)
        const auto pass = [&](bool) {
          if (n_cells > 0)
            GPUMF_DISPATCH(backend, mapping_geometry(g));
        };
        const auto first_with = [&](const unsigned int mask) {
          return n_cells == 0 ? std::size_t(0) : GPUMF_DISPATCH(backend, first_with(flags.data(), n_cells, mask));
        };
        arrays.affine = decide_storage(storage, n_cells, allocate_per_point, pass, first_with);
        if (arrays.affine)
          {
            arrays.JxW          = std::move(cell_det);
            arrays.inv_jacobian = std::move(cell_inverse);
          }
      }

      /**
       * Any other mapping: FEValues per cell in deal.II's threads (one FEValues per range of
       * cells), copied to the backend. The points and one Jacobian per cell first; every point's
       * JxW and inverse Jacobian in a second pass only where a cell is curved (or asked for).
       */
      template <int dim, typename Number>
      void
      from_fe_values(const Mapping<dim>                                            &mapping,
                     const Quadrature<1>                                           &quad,
                     const std::vector<typename Triangulation<dim>::cell_iterator> &cells,
                     const typename MatrixFree<dim, Number>::GeometryStorage        storage,
                     const Backend                                                  backend,
                     GeometryArrays<dim, Number>                                   &arrays)
      {
        const unsigned int    n_cells = cells.size();
        const Quadrature<dim> quadrature(quad);
        const unsigned int    n_q     = quadrature.size();
        const std::size_t     n_total = std::size_t(n_cells) * n_q;
        check_sizes(n_total);
        // written by the threads (first touch there)
        std::unique_ptr<Number[]> points(new Number[dim * n_total]), cell_det(new Number[n_cells]),
          cell_inverse(new Number[dim * dim * std::size_t(n_cells)]), JxW, inv_jacobian;
        std::vector<unsigned int> flags(n_cells, 0);
        const FE_Q<dim>           fe(1); // (geometry only: any element)
        const auto                pass = [&](const bool per_point) {
          internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
            FEValues<dim> fe_values(mapping,
                                    fe,
                                    quadrature,
                                    update_quadrature_points | update_JxW_values | update_inverse_jacobians);
            for (unsigned int c = begin; c < end; ++c)
              {
                fe_values.reinit(cells[c]);
                const auto   inverse_0 = fe_values.inverse_jacobian(0);
                const double det_0     = fe_values.JxW(0) / quadrature.weight(0);
                for (unsigned int e = 0; e < dim; ++e)
                  for (unsigned int d = 0; d < dim; ++d)
                    cell_inverse[(e * dim + d) * std::size_t(n_cells) + c] = inverse_0[e][d];
                cell_det[c] = det_0;
                for (unsigned int q = 0; q < n_q; ++q)
                  {
                    const std::size_t k         = std::size_t(c) * n_q + q;
                    const auto        inverse_q = fe_values.inverse_jacobian(q);
                    const double      det_q     = fe_values.JxW(q) / quadrature.weight(q);
                    for (unsigned int d = 0; d < dim; ++d)
                      points[k * dim + d] = fe_values.quadrature_point(q)[d];
                    if (per_point)
                      {
                        JxW[k] = fe_values.JxW(q);
                        for (unsigned int e = 0; e < dim; ++e)
                          for (unsigned int d = 0; d < dim; ++d)
                            inv_jacobian[(e * dim + d) * n_total + k] = inverse_q[e][d];
                      }
                    if (!(det_q > 0))
                      flags[c] |= cell_distorted;
                    if (differs_from_point_0<dim>(det_q, det_0, inverse_q, inverse_0))
                      flags[c] |= cell_curved;
                  }
              }
          });
        };
        const auto first_with = [&](const unsigned int mask) {
          return std::size_t(
            std::find_if(flags.begin(), flags.end(), [mask](const unsigned int f) { return (f & mask) != 0; }) -
            flags.begin());
        };
        const auto allocate_per_point = [&]() {
          check_per_point(n_total, dim);
          JxW.reset(new Number[n_total]);
          inv_jacobian.reset(new Number[dim * dim * n_total]);
        };
        arrays.affine = decide_storage(storage, n_cells, allocate_per_point, pass, first_with);
        arrays.q_points.reinit(backend, reinterpret_cast<const Point<dim, Number> *>(points.get()), n_total);
        if (arrays.affine)
          {
            arrays.JxW.reinit(backend, cell_det.get(), n_cells);
            arrays.inv_jacobian.reinit(backend, cell_inverse.get(), std::size_t(dim) * dim * n_cells);
          }
        else
          {
            arrays.JxW.reinit(backend, JxW.get(), n_total);
            arrays.inv_jacobian.reinit(backend, inv_jacobian.get(), std::size_t(dim) * dim * n_total);
          }
      }
    } // namespace

    template <int dim>
    void
    lexicographic_support_points(const MappingQ<dim>                              &mapping,
                                 const typename Triangulation<dim>::cell_iterator &cell,
                                 double                                           *out)
    {
      const unsigned int            degree = mapping.get_degree();
      const unsigned int            n_s    = Utilities::pow(degree + 1, dim);
      const std::vector<Point<dim>> points = SupportPoints<dim>::of(mapping, cell);
      // MappingQ numbers its support points as FE_Q its DoFs (hierarchic)
      static thread_local std::vector<unsigned int> lexicographic;
      if (lexicographic.size() != n_s)
        lexicographic = FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
      AssertThrow(points.size() == n_s,
                  ExcInternalError("gpumf: MappingQ(" + std::to_string(degree) + ") gave " +
                                   std::to_string(points.size()) + " support points for a cell, not " +
                                   std::to_string(n_s) + "."));
      for (unsigned int i = 0; i < n_s; ++i)
        for (unsigned int d = 0; d < dim; ++d)
          out[i * dim + d] = points[lexicographic[i]][d];
    }

    template <int dim, typename Number>
    void
    setup_geometry(const Mapping<dim>                                            &mapping,
                   const Quadrature<1>                                           &quad,
                   const std::vector<typename Triangulation<dim>::cell_iterator> &cells,
                   const typename MatrixFree<dim, Number>::GeometryStorage        storage,
                   const Backend                                                  backend,
                   const MPI_Comm                                                 comm,
                   const bool                                                     with_mpi,
                   GeometryArrays<dim, Number>                                   &arrays)
    {
      static_assert(sizeof(Point<dim, Number>) == dim * sizeof(Number), "Point<dim, Number> is dim Numbers");
      // What fails on this rank (out of memory, a curved cell with GeometryStorage::affine, a
      // distorted cell) is thrown after the collective calls below, which every rank must reach.
      std::exception_ptr failure;
      std::string        message;
      try
        {
          if (const auto *mapping_q = dynamic_cast<const MappingQ<dim> *>(&mapping))
            from_support_points(*mapping_q, quad, cells, storage, backend, arrays);
          else
            from_fe_values(mapping, quad, cells, storage, backend, arrays);
        }
      catch (const std::exception &e)
        {
          failure       = std::current_exception();
          message       = e.what();
          arrays.affine = false;
        }

      // One Jacobian for all cells: every rank affine, and the determinant and inverse Jacobian of
      // every cell between the same smallest and largest value (to rounding); collective, as
      // affine may differ between ranks.
      const unsigned int  n_cells = arrays.affine && !failure ? arrays.JxW.size() : 0;
      std::vector<double> low(dim * dim + 1, std::numeric_limits<double>::max()),
        high(dim * dim + 1, -std::numeric_limits<double>::max());
      for (unsigned int e = 0; e <= dim * dim && n_cells > 0; ++e)
        GPUMF_DISPATCH(backend,
                       value_range(e == 0 ? arrays.JxW.data() :
                                            arrays.inv_jacobian.data() + (e - 1) * std::size_t(n_cells),
                                   std::size_t(n_cells),
                                   low[e],
                                   high[e]));
      if (with_mpi)
        {
          MPI_Allreduce(MPI_IN_PLACE, low.data(), dim * dim + 1, MPI_DOUBLE, MPI_MIN, comm);
          MPI_Allreduce(MPI_IN_PLACE, high.data(), dim * dim + 1, MPI_DOUBLE, MPI_MAX, comm);
        }
      const bool all_affine = with_mpi ? Utilities::MPI::min(int(arrays.affine), comm) == 1 : arrays.affine;
      double     scale      = 0;
      for (unsigned int e = 1; e <= dim * dim; ++e)
        scale = std::max({scale, std::abs(low[e]), std::abs(high[e])});
      bool uniform = all_affine && low[0] <= high[0]; // (no cell on any rank: not uniform)
      for (unsigned int e = 0; e <= dim * dim && uniform; ++e)
        uniform = high[e] - low[e] <= 1e-12 * (e == 0 ? std::abs(high[0]) : scale);
      arrays.uniform = uniform;
      const std::vector<std::string> messages =
        with_mpi ? Utilities::MPI::all_gather(comm, message) : std::vector<std::string>{message};
      if (failure)
        std::rethrow_exception(failure);
      for (const std::string &other : messages)
        AssertThrow(other.empty(),
                    ExcNotSupported("gpumf::MatrixFree: the geometry could not be set up on another rank: " + other));
    }

#define GPUMF_INSTANTIATE(dim, Number)                                                                       \
  template void setup_geometry<dim, Number>(const Mapping<dim> &,                                            \
                                            const Quadrature<1> &,                                           \
                                            const std::vector<typename Triangulation<dim>::cell_iterator> &, \
                                            const typename MatrixFree<dim, Number>::GeometryStorage,         \
                                            const Backend,                                                   \
                                            const MPI_Comm,                                                  \
                                            const bool,                                                      \
                                            GeometryArrays<dim, Number> &);
    GPUMF_INSTANTIATE(2, float)
    GPUMF_INSTANTIATE(2, double)
    GPUMF_INSTANTIATE(3, float)
    GPUMF_INSTANTIATE(3, double)
#undef GPUMF_INSTANTIATE
    template void
    lexicographic_support_points<2>(const MappingQ<2> &, const Triangulation<2>::cell_iterator &, double *);
    template void
    lexicographic_support_points<3>(const MappingQ<3> &, const Triangulation<3>::cell_iterator &, double *);
  } // namespace internal
} // namespace gpumf
