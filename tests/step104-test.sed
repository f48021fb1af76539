# Test-only change to step-104 (deal.II's and the port alike): refinements 0 and 1 instead of 0 to 9 (the host backend takes minutes for refinement 2).
s|unsigned int n_refinements = 10;|unsigned int n_refinements = 2;|
