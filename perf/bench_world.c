// bench_world.c: generates the benchmark world (the world phase: 2048 x 256 x 2048 voxels;
// --quick: 256 x 128 x 256), then builds and queries its bit broadphase (seed 000), and prints
// every figure as one JSON line. Usage: bench_world [--quick] [--threads N] (0 = all cores).
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_world, vxk_bench_broadphase};
    return vxk_bench_main(argc, argv, phases, 2, 0);
}
