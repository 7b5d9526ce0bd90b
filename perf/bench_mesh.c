// bench_mesh.c: prints one JSON line with the greedy mesher and box compound figures over the
// mixed chunks of a generated world (per-core chunk and triangle rates, quads and triangles per
// chunk, boxes per solid voxel). Usage: bench_mesh [--quick] [--threads N] (0 = all cores).
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_mesh};
    return vxk_bench_main(argc, argv, phases, 1, 1);
}
