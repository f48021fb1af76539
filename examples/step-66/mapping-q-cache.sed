# The step-66 port's change 14 (doc/porting.md), in a file of its own so that the benchmark can
# apply the same change to deal.II's CPU program (benchmarks/step66.sh, "deal.II with
# MappingQCache"): the mapping becomes a MappingQCache of the same degree, initialized from
# MappingQ at the start of each set-up. The support points of MappingQ on the curved ball come
# from the manifolds (transfinite interpolation inside, spherical on the boundary) and cost
# about 0.1 ms per cell; MappingQ computes them again for every MatrixFree object (active cells,
# the norm's, every level) and every FEValues, MappingQCache once per cell and mesh.
s|^#include <deal.II/fe/mapping_q.h>$|#include <deal.II/fe/mapping_q.h>\
#include <deal.II/fe/mapping_q_cache.h>|
s|^    const MappingQ<dim>                       mapping;$|    MappingQCache<dim>                        mapping;|
/^    TimerOutput::Scope t(computing_timer, "setup system");$/a\
\
    mapping.initialize(MappingQ<dim>(fe_degree), triangulation);
