// bench_fast_body.c: what one fast voxel body costs a step, at 10 to 100,000 m/s in three
// directions over flat terrain (perf/phase_fast_body.c, also `vxk bench --phases fast_body`).
// One JSON line.
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_fast_body};
    return vxk_bench_main(argc, argv, phases, 1, 1);
}
