// test_worldgen.c: the terrain generator: identical terrain (hash and sorted chunk list) for any
// worker count, seeds that differ, voxels outside the box kept, structural properties (bedrock,
// water level, air above the surface, caves only with cave_density > 0), validation. Edge tests
// (harness.h): bad defs and material tables change nothing; out of memory, voxels outside the box
// are kept and a run that succeeds equals the reference.
#include <math.h>
#include <string.h>

#include <vxk/worldgen.h>

#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"
#include "world_internal.h"

typedef struct chunk_list {
    vxk_int3 coords[20000];
    uint8_t mixed[20000];
    uint32_t count;
} chunk_list;

static void collect_chunk(void* ctx, const vxk_chunk_info* info)
{
    chunk_list* list = (chunk_list*)ctx;
    if (list->count < 20000) {
        list->coords[list->count] = info->coord;
        list->mixed[list->count] = info->is_mixed;
    }
    list->count++;
}

// Mixed payloads hold bits equal to a recomputation and are never one material.
static int check_payloads(const vxk_world* world)
{
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &count);
    const vxk_material_table* mats = vxk_world_materials(world);
    for (uint32_t i = 0; i < count; ++i) {
        const vxk_chunk* c = chunks[i];
        if (!c->payload) {
            VXK_CHECK(c->uniform_material != 0);
            continue;
        }
        bool uniform = true;
        uint64_t solid[8] = {0}, water[8] = {0};
        for (int v = 0; v < 512; ++v) {
            uniform &= c->payload[v] == c->payload[0];
            uint8_t kind = mats->materials[c->payload[v]].kind;
            solid[v / 64] |= (uint64_t)(kind == VXK_MATERIAL_SOLID) << (v % 64);
            water[v / 64] |= (uint64_t)(kind == VXK_MATERIAL_WATER) << (v % 64);
        }
        VXK_CHECK(!uniform);
        VXK_CHECK(memcmp(solid, vxk_chunk_solid_bits(c), sizeof(solid)) == 0);
        VXK_CHECK(memcmp(water, vxk_chunk_water_bits(c), sizeof(water)) == 0);
    }
    return 0;
}

static int test_worker_counts(void)
{
    static chunk_list reference, list;
    const uint32_t workers[] = {1, 2, 3, 8};
    uint64_t reference_hash = 0;
    for (int w = 0; w < 4; ++w) {
        vxk_jobs_def jobs_def = vxk_default_jobs_def();
        jobs_def.worker_count = workers[w];
        vxk_jobs* jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&jobs_def, &jobs), 0);
        vxk_world* world = vxk_scene_world_with(jobs, 0.0f);
        VXK_CHECK(world != NULL);
        // Content across the box's far edges must survive (sizes are not multiples of 8).
        int64_t lo[3] = {90, 20, -6}, hi[3] = {130, 40, 20};
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), VXK_MAT_METAL), VXK_OK);
        vxk_worldgen_def gen = vxk_scene_worldgen_def((vxk_int3){117, 70, 101}, 7);
        gen.cave_density = 0.8f;
        VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
        uint64_t hash = vxk_world_terrain_hash(world);
        chunk_list* out = w == 0 ? &reference : &list;
        out->count = 0;
        vxk_world_for_each_chunk(world, collect_chunk, out);
        VXK_CHECK(out->count > 0 && out->count < 20000);
        if (w == 0) {
            reference_hash = hash;
            VXK_CHECK(check_payloads(world) == 0);
            for (int64_t x = lo[0]; x <= hi[0]; ++x)
                for (int64_t y = lo[1]; y <= hi[1]; ++y)
                    for (int64_t z = lo[2]; z <= hi[2]; ++z) {
                        bool inside = x < gen.size_x && y < gen.size_y && z >= 0 && z < gen.size_z;
                        uint8_t m = vxk_world_get_voxel(
                            world, (vxk_int3){(int32_t)x, (int32_t)y, (int32_t)z});
                        if (!inside)
                            VXK_CHECK_EQ_INT(m, VXK_MAT_METAL);
                        else
                            VXK_CHECK(m != VXK_MAT_METAL);
                    }
        } else {
            VXK_CHECK_EQ_U64(hash, reference_hash);
            VXK_CHECK_EQ_U64(list.count, reference.count);
            VXK_CHECK(memcmp(list.coords, reference.coords, list.count * sizeof(vxk_int3)) == 0);
            VXK_CHECK(memcmp(list.mixed, reference.mixed, list.count) == 0);
        }
        // Running again over the same box gives the same terrain.
        VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
        VXK_CHECK_EQ_U64(vxk_world_terrain_hash(world), reference_hash);
        vxk_world_destroy(world);
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

static int test_seeds_differ(void)
{
    uint64_t hashes[4];
    for (int s = 0; s < 4; ++s) {
        vxk_world* world = vxk_scene_world();
        VXK_CHECK(world != NULL);
        vxk_worldgen_def gen = vxk_scene_worldgen_def((vxk_int3){64, 64, 64}, 100 + (uint64_t)s);
        VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
        hashes[s] = vxk_world_terrain_hash(world);
        for (int k = 0; k < s; ++k)
            VXK_CHECK(hashes[k] != hashes[s]);
        vxk_world_destroy(world);
    }
    return 0;
}

#define SX 128
#define SY 96
#define SZ 128

static bool is_solid(uint8_t m)
{
    return m != VXK_MAT_AIR && m != VXK_MAT_WATER;
}

// Counts air voxels lying more than 16 voxels under their column's top solid voxel: overhangs
// displace the surface by at most 2 * 8 voxels, so deeper air can only be a cave.
static uint64_t deep_air(const uint8_t* voxels)
{
    uint64_t count = 0;
    for (int z = 0; z < SZ; ++z)
        for (int x = 0; x < SX; ++x) {
            int top = -1;
            for (int y = SY - 1; y >= 0 && top < 0; --y)
                if (is_solid(voxels[x + SX * (z + SZ * y)]))
                    top = y;
            for (int y = 2; y < top - 16; ++y)
                count += voxels[x + SX * (z + SZ * y)] == VXK_MAT_AIR;
        }
    return count;
}

static int generate_box(uint64_t seed, float caves, int32_t water_level, uint8_t* voxels)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    vxk_worldgen_def gen = vxk_scene_worldgen_def((vxk_int3){SX, SY, SZ}, seed);
    gen.cave_density = caves;
    gen.water_level = water_level;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
    const vxk_int_box generated = {{0, 0, 0}, {SX - 1, SY - 1, SZ - 1}};
    VXK_CHECK_EQ_INT(vxk_world_read_box(world, voxels, generated), VXK_OK);
    // Nothing outside the box.
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &count);
    for (uint32_t i = 0; i < count; ++i) {
        VXK_CHECK(chunks[i]->coord.x >= 0 && chunks[i]->coord.x < SX / 8);
        VXK_CHECK(chunks[i]->coord.y >= 0 && chunks[i]->coord.y < SY / 8);
        VXK_CHECK(chunks[i]->coord.z >= 0 && chunks[i]->coord.z < SZ / 8);
    }
    VXK_CHECK(check_payloads(world) == 0);
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    VXK_CHECK(mem.uniform_chunks > 0 && mem.mixed_chunks > 0);
    vxk_world_destroy(world);
    return 0;
}

static int test_structure(void)
{
    static uint8_t with_caves[SX * SY * SZ], without_caves[SX * SY * SZ];
    const int32_t water_level = 30;
    uint64_t counts[256] = {0};
    uint64_t deep_cave_air = 0;
    for (uint64_t seed = 3; seed <= (VXK_TEST_SLOW ? 3u : 4u); ++seed) {
        VXK_CHECK(generate_box(seed, 1.0f, water_level, with_caves) == 0);
        VXK_CHECK(generate_box(seed, 0.0f, water_level, without_caves) == 0);
        uint64_t grass_or_sand_top = 0, columns = 0;
        for (int z = 0; z < SZ; ++z)
            for (int x = 0; x < SX; ++x) {
                int top = -1;
                for (int y = 0; y < SY; ++y) {
                    uint8_t m = with_caves[x + SX * (z + SZ * y)];
                    counts[m]++;
                    if (y <= 1)
                        VXK_CHECK_EQ_INT(m, VXK_MAT_BEDROCK); // bedrock floor
                    else
                        VXK_CHECK(m != VXK_MAT_BEDROCK);
                    if (m == VXK_MAT_WATER)
                        VXK_CHECK_MSG(y <= water_level, "water at y %d", y);
                    if (is_solid(m))
                        top = y;
                }
                VXK_CHECK(top >= 2 && top < SY - 1);
                // Above the surface: water up to the level, air above it.
                for (int y = top + 1; y < SY; ++y) {
                    uint8_t m = with_caves[x + SX * (z + SZ * y)];
                    VXK_CHECK(m == VXK_MAT_AIR || m == VXK_MAT_WATER);
                    if (y > water_level)
                        VXK_CHECK_EQ_INT(m, VXK_MAT_AIR);
                }
                uint8_t top_material = with_caves[x + SX * (z + SZ * top)];
                grass_or_sand_top += top_material == VXK_MAT_GRASS || top_material == VXK_MAT_SAND;
                ++columns;
            }
        // Materials by depth all occur; the surface is mostly grass or sand.
        VXK_CHECK(counts[VXK_MAT_GRASS] > 0 && counts[VXK_MAT_DIRT] > 0);
        VXK_CHECK(counts[VXK_MAT_STONE] > counts[VXK_MAT_DIRT]);
        VXK_CHECK(counts[VXK_MAT_SAND] > 0 && counts[VXK_MAT_WATER] > 0);
        VXK_CHECK(counts[VXK_MAT_GRAVEL] + counts[VXK_MAT_CLAY] > 0);
        VXK_CHECK_MSG(grass_or_sand_top * 10 >= columns * 9, "%llu of %llu columns",
                      (unsigned long long)grass_or_sand_top, (unsigned long long)columns);

        // Caves only remove solid ground (never bedrock, never add water), and only with
        // cave_density > 0.
        uint64_t carved = 0;
        for (size_t i = 0; i < sizeof(with_caves); ++i) {
            if (with_caves[i] == without_caves[i])
                continue;
            VXK_CHECK_EQ_INT(with_caves[i], VXK_MAT_AIR);
            VXK_CHECK(is_solid(without_caves[i]) && without_caves[i] != VXK_MAT_BEDROCK);
            ++carved;
        }
        VXK_CHECK(carved > 0);
        VXK_CHECK_EQ_U64(deep_air(without_caves), 0);
        deep_cave_air += deep_air(with_caves);
        if (seed == 3)
            VXK_CHECK(deep_cave_air > 0);
    }
    // Materials by depth all occur (seed 3 has land and lakes; seed 4 is mostly under water).
    VXK_CHECK(counts[VXK_MAT_GRASS] > 0 && counts[VXK_MAT_DIRT] > 0);
    VXK_CHECK(counts[VXK_MAT_STONE] > counts[VXK_MAT_DIRT]);
    VXK_CHECK(counts[VXK_MAT_SAND] > 0 && counts[VXK_MAT_WATER] > 0);
    VXK_CHECK(counts[VXK_MAT_GRAVEL] > 0 && counts[VXK_MAT_CLAY] > 0);
    return 0;
}

static int test_validation(void)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    vxk_worldgen_def gen = vxk_default_worldgen_def();
    gen.size_x = gen.size_z = 32;
    gen.size_y = 32;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
    uint64_t hash = vxk_world_terrain_hash(world);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(NULL, &gen), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_worldgen_def bad = gen;
    bad.cookie = 0;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_BAD_DEF);
    const int32_t bad_xz[] = {0, -5, 65537, INT32_MAX, INT32_MIN};
    for (int i = 0; i < 5; ++i) {
        bad = gen;
        bad.size_x = bad_xz[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_OUT_OF_RANGE);
        bad = gen;
        bad.size_z = bad_xz[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    const int32_t bad_y[] = {0, 7, 4097, -1};
    for (int i = 0; i < 4; ++i) {
        bad = gen;
        bad.size_y = bad_y[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    bad = gen;
    bad.cave_density = NAN;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_NOT_FINITE);
    bad.cave_density = 1.5f;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_OUT_OF_RANGE);
    bad.cave_density = -0.1f;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &bad), VXK_ERR_OUT_OF_RANGE);
    bad.cave_density = INFINITY;
    VXK_CHECK(vxk_worldgen_run(world, &bad) != VXK_OK);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(world), hash);
    vxk_world_destroy(world);

    // A world whose table lacks a material the generator places is refused.
    vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_GRAVEL].defined = 0;
    vxk_world_def def = vxk_default_world_def();
    def.materials = &table;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_ERR_BAD_MATERIAL);
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    VXK_CHECK_EQ_U64(mem.chunk_count, 0);
    vxk_world_destroy(world);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static vxk_worldgen_def tiny_gen(void)
{
    return vxk_scene_worldgen_def((vxk_int3){20, 24, 18}, 7);
}

static int test_worldgen_edges(void)
{
    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
    snapshot s0 = snap(w);
    vxk_worldgen_def g = tiny_gen();
    VXK_CHECK_EQ_INT(vxk_worldgen_run(NULL, &g), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_worldgen_def bad;
    memset(&bad, 0, sizeof(bad));
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_BAD_DEF);
    bad = g;
    bad.cookie += 1;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_BAD_DEF);
    const int32_t bad_xz[] = {0, -1, INT32_MIN, INT32_MAX, 65537};
    const int32_t bad_y[] = {0, 7, -8, INT32_MIN, INT32_MAX, 4097};
    for (size_t i = 0; i < sizeof(bad_xz) / sizeof(bad_xz[0]); ++i) {
        bad = g;
        bad.size_x = bad_xz[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
        bad = g;
        bad.size_z = bad_xz[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    for (size_t i = 0; i < sizeof(bad_y) / sizeof(bad_y[0]); ++i) {
        bad = g;
        bad.size_y = bad_y[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    // cave_density: NaN is not finite; infinities and values outside [0, 1] are out of range.
    const float bad_density[] = {INFINITY, -INFINITY, FLT_MAX, -FLT_TRUE_MIN, 1.0000001f, -1.0f};
    bad = g;
    bad.cave_density = f_nan();
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_NOT_FINITE);
    for (size_t i = 0; i < sizeof(bad_density) / sizeof(bad_density[0]); ++i) {
        bad = g;
        bad.cave_density = bad_density[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    CHECK_UNCHANGED(w, s0);
    vxk_world_destroy(w);

    // A table without a terrain material.
    static vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_CLAY].defined = 0;
    vxk_world_def def = vxk_default_world_def();
    def.materials = &table;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_scene_edge_terrain(w), VXK_OK);
    s0 = snap(w);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &g), VXK_ERR_BAD_MATERIAL);
    table.materials[VXK_MAT_CLAY].defined = 1;
    table.materials[VXK_MAT_WATER].kind = VXK_MATERIAL_SOLID;
    vxk_world_destroy(w);
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &g), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), vxk_world_terrain_hash(w));
    vxk_world_destroy(w);

    // Valid extremes: -0.0 and denormal densities, water levels at both ends, seed extremes.
    const float ok_density[] = {-0.0f, FLT_TRUE_MIN, 1.0f};
    const int32_t levels[] = {INT32_MAX, INT32_MIN + 1, -1};
    for (int i = 0; i < 3; ++i) {
        w = vxk_scene_world();
        VXK_CHECK(w != NULL);
        vxk_worldgen_def v = g;
        v.cave_density = ok_density[i];
        v.water_level = levels[i];
        v.seed = i == 0 ? 0 : UINT64_MAX;
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &v), VXK_OK);
        // Nothing outside the box.
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){-1, 0, 0}), VXK_MAT_AIR);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){0, v.size_y, 0}), VXK_MAT_AIR);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){0, 0, 0}), VXK_MAT_BEDROCK);
        vxk_world_destroy(w);
    }
    return 0;
}

// Worldgen documents partial output on OOM: the box may be partly generated, but voxels outside
// it are kept, nothing leaks, and a successful run equals the reference.
static int test_oom_worldgen(void)
{
    size_t base = vxk_allocated_bytes();
    vxk_worldgen_def g = tiny_gen();
    vxk_world* ref = vxk_scene_edge_world();
    VXK_CHECK(ref != NULL);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(ref, &g), VXK_OK);
    uint64_t expected = vxk_world_terrain_hash(ref);
    vxk_world_destroy(ref);
    uint8_t outside_before[4 * 4 * 4], outside_after[4 * 4 * 4];
    const vxk_int3 probe = {-2, 22, -2}; // a 4^3 box from here straddles the box corner
    const vxk_int_box probe_box = {probe, {probe.x + 3, probe.y + 3, probe.z + 3}};
    vxk_world* w = NULL;
    OOM_SWEEP(
        {
            w = vxk_scene_edge_world();
            VXK_CHECK(w != NULL);
            VXK_CHECK_EQ_INT(vxk_world_read_box(w, outside_before, probe_box), VXK_OK);
        },
        vxk_worldgen_run(w, &g),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK_EQ_INT(vxk_world_read_box(w, outside_after, probe_box), VXK_OK);
                for (int y = 0; y < 4; ++y)
                    for (int z = 0; z < 4; ++z)
                        for (int x = 0; x < 4; ++x) {
                            bool inside =
                                probe.x + x >= 0 && probe.y + y < g.size_y && probe.z + z >= 0;
                            int i = x + 4 * (z + 4 * y);
                            if (!inside)
                                VXK_CHECK_EQ_INT(outside_after[i], outside_before[i]);
                        }
                VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){20, 3, 9}), VXK_MAT_STONE);
                VXK_CHECK_EQ_INT(
                    vxk_world_get_voxel(w, (vxk_int3){INT32_MAX, INT32_MAX, INT32_MAX}),
                    VXK_MAT_METAL);
            } else {
                VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), expected);
            }
        },
        {
            vxk_world_destroy(w);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// A world of the default def with the material table table.
static vxk_world* world_with_materials(const vxk_material_table* table)
{
    vxk_world_def def = vxk_default_world_def();
    def.materials = table;
    vxk_world* world = NULL;
    return vxk_world_create(&def, &world) == VXK_OK ? world : NULL;
}

// vxk_worldgen_run for each status vxk/worldgen.h lists (a bad material: the world's table leaves
// out one the generator writes).
static int test_statuses_worldgen(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    vxk_worldgen_def g = vxk_default_worldgen_def(), bad = g;
    g.size_x = g.size_z = 12;
    g.size_y = 16;
    EXPECT_STATUS(VXK_OK, vxk_worldgen_run(w, &g));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_worldgen_run(w, NULL));
    bad.cookie = 0;
    EXPECT_STATUS(VXK_ERR_BAD_DEF, vxk_worldgen_run(w, &bad));
    bad = g;
    bad.size_y = 7;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_worldgen_run(w, &bad));
    bad = g;
    bad.cave_density = nanf("");
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_worldgen_run(w, &bad));
    bad.cave_density = 1.5f;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_worldgen_run(w, &bad));
    EXPECT_NO_MEMORY(vxk_worldgen_run(w, &g));
    vxk_world_destroy(w);
    static vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_CLAY].defined = 0; // a terrain material the generator needs
    w = world_with_materials(&table);
    VXK_CHECK(w != NULL);
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_worldgen_run(w, &g));
    vxk_world_destroy(w);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_validation);
    VXK_RUN(test_seeds_differ);
    VXK_RUN(test_worker_counts);
    VXK_RUN(test_structure);
    vxk_edge_tests_begin();
    VXK_RUN(test_worldgen_edges);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_worldgen);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_worldgen);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
