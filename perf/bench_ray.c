// bench_ray.c: world raycast benchmark (seed 000: kD tree ray queries through the lazy
// narrowphase cache) with Embree and Bullet peers; prints every figure as one JSON line.
// Usage: bench_ray [--quick] [--threads N] (0 = all cores).
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_ray};
    return vxk_bench_main(argc, argv, phases, 1, 0);
}
