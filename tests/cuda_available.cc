// Exits 0 when gpumf can use a CUDA device, 1 otherwise (used by test scripts).
#include <gpumf/backend.h>

#include <iostream>

int
main()
{
  std::cout << "gpumf device: " << gpumf::device_name() << std::endl;
  return gpumf::cuda_available() ? 0 : 1;
}
