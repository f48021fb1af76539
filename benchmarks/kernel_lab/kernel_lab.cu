// gpumf_kernel_lab: tries cell-kernel designs on gpumf's data layout (lab.h). Usage:
//   gpumf_kernel_lab [--degrees 2,4 (default: those compiled in)] [--forms bp5,bp3,bp1] [--geometry affine,stored]
//                    [--designs tiled,async,...] [--numbers double,float] [--dofs 2e7]
//                    [--repeat 20] [--cells-per-block G] [--scratch-pad P] [--carveout C] [--no-check]
// prints one CSV line per design and case, with the copy roofline measured in the same run.
#include "lab.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace lab
{
  std::map<unsigned int, Runner> &
  registry()
  {
    static std::map<unsigned int, Runner> runners;
    return runners;
  }
} // namespace lab

namespace
{
  std::vector<std::string>
  split(const std::string &s)
  {
    std::vector<std::string> parts;
    std::stringstream        in(s);
    for (std::string part; std::getline(in, part, ',');)
      parts.push_back(part);
    return parts;
  }

  /// Bytes per second of a device-to-device copy of 2 x 1 GiB (the roofline of gpumf's benchmarks).
  double
  copy_bandwidth()
  {
    const std::size_t half = std::size_t(1) << 30;
    void             *a = nullptr, *b = nullptr;
    if (cudaMalloc(&a, half) != cudaSuccess || cudaMalloc(&b, half) != cudaSuccess)
      throw std::runtime_error("kernel lab: no memory for the copy roofline");
    cudaMemset(a, 1, half);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    std::vector<float> times;
    for (int r = 0; r < 12; ++r)
      {
        cudaEventRecord(start);
        cudaMemcpyAsync(b, a, half, cudaMemcpyDeviceToDevice);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        if (r >= 2)
          times.push_back(ms);
      }
    cudaFree(a);
    cudaFree(b);
    std::sort(times.begin(), times.end());
    return 2. * half / (times[times.size() / 2] * 1e-3);
  }
} // namespace

int
main(int argc, char **argv)
{
  try
    {
      lab::Options              o;
      std::vector<unsigned int> degrees; // default: those compiled in
      for (const auto &entry : lab::registry())
        degrees.push_back(entry.first);
      for (int i = 1; i < argc; ++i)
        {
          const std::string arg   = argv[i];
          const auto        value = [&]() {
            if (i + 1 >= argc)
              throw std::runtime_error("kernel lab: " + arg + " needs a value");
            return std::string(argv[++i]);
          };
          if (arg == "--degrees")
            {
              degrees.clear();
              for (const auto &d : split(value()))
                degrees.push_back(std::stoul(d));
            }
          else if (arg == "--forms")
            o.forms = split(value());
          else if (arg == "--geometry")
            o.geometry = split(value());
          else if (arg == "--designs")
            o.designs = split(value());
          else if (arg == "--numbers")
            o.numbers = split(value());
          else if (arg == "--dofs")
            o.dofs = std::stod(value());
          else if (arg == "--repeat")
            o.repeat = std::stoul(value());
          else if (arg == "--cells-per-block")
            o.cells_per_block = std::stoul(value());
          else if (arg == "--scratch-pad")
            {
              o.scratch_pad = std::stoi(value());
              if (o.scratch_pad < -2)
                throw std::runtime_error("kernel lab: --scratch-pad takes -2 (the library's), -1 (4 n_q^3) or "
                                         "a padding >= 0");
            }
          else if (arg == "--carveout")
            {
              const std::string text = value();
              std::size_t       end  = 0;
              try
                {
                  o.carveout = std::stoi(text, &end);
                }
              catch (const std::exception &)
                {
                  end = 0;
                }
              if (text.empty() || end != text.size() || o.carveout < -2 || o.carveout > 100)
                throw std::runtime_error("kernel lab: --carveout takes -2 (the library's rule: the least that holds "
                                         "the blocks), -1 (the driver's default) or a percent 0-100");
            }
          else if (arg == "--no-check")
            o.check = false;
          else
            throw std::runtime_error("kernel lab: unknown argument " + arg + " (see the head of kernel_lab.cu)");
        }
      int devices = 0;
      if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
        {
          std::printf("kernel lab: no CUDA device: SKIPPED\n");
          return 77;
        }
      cudaDeviceProp prop;
      cudaGetDeviceProperties(&prop, 0);
      const double roofline = copy_bandwidth(); // bytes/s
      std::printf("# device %s, copy roofline %.3f TB/s\n", prop.name, roofline * 1e-12);
      std::printf(
        "design,form,geometry,number,degree,n_q,dofs,cells,cells_per_block,registers,spill_bytes,"
        "shared_bytes,cell_stride,carveout,occupancy,seconds,gdofs,model_bytes,roofline_fraction,design_bytes,"
        "compressed_cells,error,check\n");
      bool all_passed = true;
      for (const unsigned int p : degrees)
        {
          const auto it = lab::registry().find(p);
          if (it == lab::registry().end())
            throw std::runtime_error("kernel lab: degree " + std::to_string(p) +
                                     " not compiled in (GPUMF_LAB_DEGREES of the build)");
          std::vector<lab::Row> rows;
          it->second(o, rows);
          for (const auto &r : rows)
            {
              std::printf("%s,%s,%s,%s,%u,%u,%.0f,%.0f,%u,%u,%u,%zu,%u,%d,%.3f,%.4e,%.2f,%.4e,%.3f,%.4e,%.3f,%.2e,%s\n",
                          r.design.c_str(),
                          r.form.c_str(),
                          r.geometry.c_str(),
                          r.number.c_str(),
                          r.degree,
                          r.n_q,
                          r.n_dofs,
                          r.n_cells,
                          r.cells_per_block,
                          r.registers,
                          r.spill_bytes,
                          r.shared_bytes,
                          r.cell_stride,
                          r.carveout,
                          r.occupancy,
                          r.seconds,
                          r.n_dofs / r.seconds * 1e-9,
                          r.model_bytes,
                          r.model_bytes / r.seconds / roofline,
                          r.design_bytes,
                          r.compressed_fraction,
                          r.error,
                          r.error < 0 ? "not checked" : (r.passed ? "passed" : "FAILED"));
              all_passed = all_passed && r.passed;
            }
          std::fflush(stdout);
        }
      return all_passed ? 0 : 1;
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
}
