// phase_world.c: the world-generation benchmark phase: generates the default benchmark world
// (vxk_scene_bench_worldgen_def: 2048 x 256 x 2048 voxels; quick: 256 x 128 x 256) and reports
// time and terrain memory.
#include <stdio.h>

#include <vxk/world.h>
#include <vxk/worldgen.h>

#include "bench.h"
#include "scenes.h"

void vxk_bench_world(vxk_bench* b)
{
    vxk_worldgen_def gen = vxk_scene_bench_worldgen_def(b->quick, b->scale, b->seed);
    vxk_world* world = vxk_scene_world_with(b->jobs, 0.0f);
    if (!world) {
        fprintf(stderr, "phase world: cannot create the world\n");
        return;
    }
    vxk_bench_progress(b, "worldgen");
    double t0 = vxk_bench_now();
    vxk_status status = vxk_worldgen_run(world, &gen);
    double seconds = vxk_bench_now() - t0;
    if (status != VXK_OK) {
        fprintf(stderr, "phase world: generation failed: %s\n", vxk_status_string(status));
        vxk_world_destroy(world);
        return;
    }
    b->world = world;

    double voxels = (double)gen.size_x * (double)gen.size_y * (double)gen.size_z;
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    double terrain_bytes = (double)(mem.map_bytes + mem.chunk_entry_bytes + mem.voxel_bytes +
                                    mem.occupancy_bytes + mem.terrain_other_bytes);
    vxk_bench_phase_add(b, "worldgen", seconds, voxels);
    vxk_bench_figure_add(b, "gen_s", seconds);
    vxk_bench_figure_add(b, "gen_voxels_per_s", voxels / seconds);
    vxk_bench_figure_add(b, "world_voxels", voxels);
    vxk_bench_figure_add(b, "terrain_bytes_per_voxel", terrain_bytes / voxels);
    vxk_bench_figure_add(b, "chunks", (double)mem.chunk_count);
    vxk_bench_figure_add(b, "mixed_chunks", (double)mem.mixed_chunks);
    vxk_bench_figure_add(b, "uniform_chunks", (double)mem.uniform_chunks);
    uint64_t hash = vxk_world_terrain_hash(world);
    vxk_bench_figure_add(b, "terrain_hash_low32", (double)(uint32_t)hash);
    vxk_bench_hash(b, &hash, sizeof(hash));
}

vxk_world* vxk_bench_shared_world(vxk_bench* b)
{
    if (!b->world)
        vxk_bench_world(b);
    return (vxk_world*)b->world;
}
