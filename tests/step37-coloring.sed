# Test-only change to the gpumf port of step-37 (after port-step-37.sed and step37-test.sed):
# with the environment variable GPUMF_STEP37_COLORING set, the system and level MatrixFree
# objects color their cells instead of adding with atomics, so that the results are bitwise
# reproducible on the GPU and two runs with different exchange methods (GPUMF_EXCHANGE) can be
# compared digit for digit (doc/testing.md). Without the variable the port is unchanged.
/^ *(update_gradients | update_JxW_values | update_quadrature_points);$/a\
      additional_data.use_coloring = std::getenv("GPUMF_STEP37_COLORING") != nullptr;
