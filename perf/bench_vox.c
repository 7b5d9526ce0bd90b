// bench_vox.c: the .vox import benchmark: parses, flattens and loads into terrain a synthetic
// MagicaVoxel scene (16 models of 64^3 voxels, 64 rotated instances; --quick: 4 models of 24^3,
// 8 instances) and prints the figures as one JSON line. Usage: bench_vox [--quick] [--threads N].
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_vox};
    return vxk_bench_main(argc, argv, phases, 1, 0);
}
