// bench_edit.c: the edit system (vxk/edit.h): edits applied per second by the writer thread
// (single voxels, 4^3 boxes, spheres of radius 4 and 16) against direct writes, the submit call's
// latency (median, p99) and the step's publish cost, as one JSON line (perf/phase_edit.c).
// Usage: bench_edit [--quick] [--threads N] (0 = all cores; default 2).
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_edit};
    return vxk_bench_main(argc, argv, phases, 1, 2);
}
