// bench_kd.c: the loose kD tree benchmark (seed 000): builds float, quad and 16-bit quantized
// trees over terrain chunk meshes, measures bytes and AABB/ray queries, and compares with Bullet
// when present; prints every figure as one JSON line. Usage: bench_kd [--quick] [--threads N].
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_kd};
    return vxk_bench_main(argc, argv, phases, 1, 0);
}
