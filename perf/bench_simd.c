// bench_simd.c: prints one JSON line with the throughput of each SIMD kernel and its speedup
// over the scalar twin (bits_*_gbps counts bytes read + written; ray_aabb8_per_s counts rays,
// ray_tri8_per_s / ray_quad8_per_s count ray-primitive tests). Usage: bench_simd [--quick]
// [--threads N] (the kernels run on one thread; N only sizes the job system).
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_simd};
    return vxk_bench_main(argc, argv, phases, 1, 1);
}
