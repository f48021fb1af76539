/**
 * @file benchmarks/kernel_lab/dof_compression.h
 * Compressed DoF codes of FE_Q cells in 3D, a design the kernel lab measures (not in the library).
 *
 * deal.II numbers the DoFs of each geometric entity of a cell (8 vertices, 12 lines, 6 faces,
 * the interior) contiguously. The local DoF (i, j, k) of a cell of degree p (lexicographic
 * order) belongs to the entity of class c = cx + 3 cy + 9 cz with cx = 0 (i = 0), 1 (0 < i < p)
 * or 2 (i = p), likewise cy, cz. Where the cells of a mesh share an orientation (Cartesian
 * and most refined meshes), the code of each DoF is the base of its entity in that cell plus
 * an offset that is the same in every cell:
 * @verbatim
 *   code(cell, l) = base(cell, class(l)) + offset(l)       (no_dof where the base is no_dof)
 * @endverbatim
 * so that a cell is described by 27 bases instead of (p+1)^3 codes. The offsets are taken
 * from the codes themselves (per class, from the first cell whose DoFs of that class are all
 * plain vector entries), and every cell is checked against them: a cell whose codes do not
 * follow (another orientation, a constraint row, a class partly constrained) is not
 * compressed and keeps its codes.
 */
#ifndef gpumf_kernel_lab_dof_compression_h
#define gpumf_kernel_lab_dof_compression_h

#include <gpumf/config.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// Entity classes of a hexahedron: 8 vertices, 12 lines, 6 faces, 1 interior.
    constexpr unsigned int n_entity_classes = 27;

    /// The class of coordinate @p i of a DoF in a cell of degree @p p: 0 (i = 0), 1 (inside), 2 (i = p).
    __host__ __device__ constexpr unsigned int
    entity_class_1d(const unsigned int i, const unsigned int p)
    {
      return i == 0 ? 0u : (i == p ? 2u : 1u);
    }

    /// The entity class of local DoF (i, j, k) of a cell of degree @p p.
    __host__ __device__ constexpr unsigned int
    entity_class(const unsigned int i, const unsigned int j, const unsigned int k, const unsigned int p)
    {
      return entity_class_1d(i, p) + 3 * entity_class_1d(j, p) + 9 * entity_class_1d(k, p);
    }

    /// The compressed codes of a set of cells (see the file documentation).
    struct CompressedDoFCodes
    {
      /// Per cell n_entity_classes bases ([cell * 27 + class]); no_dof for a class without DoFs
      /// in the vector (Dirichlet); meaningless for cells that are not compressed.
      std::vector<unsigned int> bases;
      /// Per local DoF (lexicographic) its offset in its entity.
      std::vector<unsigned int> offsets;
      /// Per cell: 1 if its codes are base + offset.
      std::vector<unsigned char> compressed;
      /// Cells compressed.
      std::size_t n_compressed = 0;
    };

    /**
     * Compresses the codes of @p n_cells cells of degree @p p ((p+1)^3 codes a cell, [cell *
     * (p+1)^3 + l]); @p plain(code) is true for a code that is a vector entry (not no_dof, not a
     * constraint row), @p none the code of a DoF without entry (no_dof).
     */
    template <typename Plain>
    CompressedDoFCodes
    compress_dof_codes(const unsigned int *codes,
                       const std::size_t   n_cells,
                       const unsigned int  p,
                       const unsigned int  none,
                       const Plain        &plain)
    {
      const unsigned int        n = (p + 1) * (p + 1) * (p + 1);
      std::vector<unsigned int> cls(n);
      for (unsigned int k = 0, l = 0; k <= p; ++k)
        for (unsigned int j = 0; j <= p; ++j)
          for (unsigned int i = 0; i <= p; ++i, ++l)
            cls[l] = entity_class(i, j, k, p);

      CompressedDoFCodes result;
      result.bases.assign(n_entity_classes * n_cells, none);
      result.offsets.assign(n, 0);
      result.compressed.assign(n_cells, 0);

      // the base of each class in a cell: none if all its codes are none, the smallest code if
      // all are plain, else the cell cannot be compressed (a mixed or constrained class)
      const auto cell_bases = [&](const std::size_t cell, unsigned int *base) {
        const unsigned int *c = codes + cell * n;
        std::fill(base, base + n_entity_classes, none);
        bool         ok                       = true;
        unsigned int n_none[n_entity_classes] = {}, n_plain[n_entity_classes] = {};
        for (unsigned int l = 0; l < n; ++l)
          if (c[l] == none)
            ++n_none[cls[l]];
          else if (plain(c[l]))
            {
              ++n_plain[cls[l]];
              base[cls[l]] = n_plain[cls[l]] == 1 ? c[l] : std::min(base[cls[l]], c[l]);
            }
          else
            ok = false;
        for (unsigned int e = 0; e < n_entity_classes; ++e)
          if (n_none[e] > 0 && n_plain[e] > 0)
            ok = false;
        return ok;
      };

      // the offsets of each class from the first cell where that class is plain
      bool have[n_entity_classes] = {};
      {
        unsigned int base[n_entity_classes];
        unsigned int missing = n_entity_classes;
        for (std::size_t cell = 0; cell < n_cells && missing > 0; ++cell)
          if (cell_bases(cell, base))
            for (unsigned int e = 0; e < n_entity_classes; ++e)
              if (!have[e] && base[e] != none)
                {
                  for (unsigned int l = 0; l < n; ++l)
                    if (cls[l] == e)
                      result.offsets[l] = codes[cell * n + l] - base[e];
                  have[e] = true;
                  --missing;
                }
      }

      for (std::size_t cell = 0; cell < n_cells; ++cell)
        {
          unsigned int *base = result.bases.data() + cell * n_entity_classes;
          bool          ok   = cell_bases(cell, base);
          for (unsigned int l = 0; l < n && ok; ++l)
            {
              const unsigned int b = base[cls[l]];
              ok                   = (b == none) ? codes[cell * n + l] == none :
                                                   have[cls[l]] && codes[cell * n + l] == b + result.offsets[l];
            }
          result.compressed[cell] = ok ? 1 : 0;
          result.n_compressed += ok ? 1 : 0;
        }
      return result;
    }
  } // namespace internal
} // namespace gpumf

#endif
