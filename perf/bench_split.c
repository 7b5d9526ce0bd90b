// bench_split.c: connectivity splitting over 32^3 regions against a brute-force BFS in the same
// run (perf/phase_split.c, also `vxk bench --phases split`). One JSON line.
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_split};
    return vxk_bench_main(argc, argv, phases, 1, 1);
}
