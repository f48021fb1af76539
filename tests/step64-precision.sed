# Test-only addition to the step-64 port: print the solution norm with 16 digits so that
# it can be compared with the deal.II CPU reference to 1e-10.
1i #include <iomanip>
s|pcout << "  solution norm: " << global_norm|pcout << "  solution norm: " << std::setprecision(16) << global_norm|
