// The kernel lab (doc/performance.md, "The kernel lab"): runs one cell-kernel design at a time
// on gpumf's data layout (DoF codes numbered like deal.II's, geometry per cell or per point,
// vectors), checks it against a naive host reference and prints GDoF/s, bytes, the fraction
// of the copy roofline, registers and occupancy. Built without deal.II, one object per degree.
#ifndef gpumf_kernel_lab_h
#define gpumf_kernel_lab_h

#include <map>
#include <string>
#include <vector>

namespace lab
{
  struct Options
  {
    std::vector<std::string> forms           = {"bp5", "bp3", "bp1"};
    std::vector<std::string> geometry        = {"affine", "stored"};
    std::vector<std::string> designs         = {"tiled", "tiled-compressed", "async", "async-compressed"};
    std::vector<std::string> numbers         = {"double"};
    double                   dofs            = 2e7;
    unsigned int             repeat          = 20;
    unsigned int             cells_per_block = 0;  // 0: the most resident cells
    int                      scratch_pad     = -2; // numbers after a cell's scratch (-1: 4 n_q^3, -2: the library's)
    int                      carveout = -2; // shared-memory carve-out, percent (-1: the driver's, -2: the library's)
    bool                     check    = true;
  };

  /// One line of the lab's table.
  struct Row
  {
    std::string  design, form, geometry, number;
    unsigned int degree = 0, n_q = 0, cells_per_block = 0, registers = 0, spill_bytes = 0;
    double       n_dofs = 0, n_cells = 0, seconds = 0, model_bytes = 0, design_bytes = 0, occupancy = 0;
    double       error        = -1; // against the host reference, relative to its largest entry (-1: not checked)
    bool         passed       = true;
    std::size_t  shared_bytes = 0;
    unsigned int cell_stride  = 0;
    int          carveout     = 0; // the shared-memory carve-out the kernel ran with (percent; -1 the driver's)
    double       compressed_fraction = 0;
  };

  using Runner = void (*)(const Options &, std::vector<Row> &);

  /// The runners of the degrees compiled in (each lab_degree.cu object adds its own).
  std::map<unsigned int, Runner> &
  registry();
} // namespace lab

#endif
