// test_worldgen.c: the terrain generator: identical terrain (hash and sorted chunk list) for any
// worker count, seeds that differ, voxels outside the box kept, structural properties (bedrock,
// water level, air above the surface, caves only with cave_density > 0), validation.
#include <math.h>
#include <string.h>

#include <vxk/worldgen.h>

#include "test.h"
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

static vxk_world* make_world(vxk_jobs* jobs)
{
    vxk_world_def def = vxk_default_world_def();
    def.jobs = jobs;
    vxk_world* world = NULL;
    return vxk_world_create(&def, &world) == VXK_OK ? world : NULL;
}

// Mixed payloads hold bits equal to a recomputation and are never one material.
static int check_payloads(const vxk_world* world)
{
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(world, &count);
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
        vxk_world* world = make_world(jobs);
        VXK_CHECK(world != NULL);
        // Content across the box's far edges must survive (sizes are not multiples of 8).
        int64_t lo[3] = {90, 20, -6}, hi[3] = {130, 40, 20};
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), VXK_MAT_METAL), VXK_OK);
        vxk_worldgen_def gen = vxk_default_worldgen_def();
        gen.size_x = 117;
        gen.size_y = 70;
        gen.size_z = 101;
        gen.seed = 7;
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
        vxk_world* world = make_world(NULL);
        VXK_CHECK(world != NULL);
        vxk_worldgen_def gen = vxk_default_worldgen_def();
        gen.size_x = 64;
        gen.size_y = 64;
        gen.size_z = 64;
        gen.seed = 100 + (uint64_t)s;
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
    vxk_world* world = make_world(NULL);
    VXK_CHECK(world != NULL);
    vxk_worldgen_def gen = vxk_default_worldgen_def();
    gen.size_x = SX;
    gen.size_y = SY;
    gen.size_z = SZ;
    gen.seed = seed;
    gen.cave_density = caves;
    gen.water_level = water_level;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_world_read_box(world, voxels,
                           vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){SX, SY, SZ})),
        VXK_OK);
    // Nothing outside the box.
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(world, &count);
    for (uint32_t i = 0; i < count; ++i) {
        VXK_CHECK(chunks[i]->cx >= 0 && chunks[i]->cx < SX / 8);
        VXK_CHECK(chunks[i]->cy >= 0 && chunks[i]->cy < SY / 8);
        VXK_CHECK(chunks[i]->cz >= 0 && chunks[i]->cz < SZ / 8);
    }
    VXK_CHECK(check_payloads(world) == 0);
    vxk_world_memory mem;
    vxk_world_memory_stats(world, &mem);
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
    vxk_world* world = make_world(NULL);
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
    vxk_world_memory mem;
    vxk_world_memory_stats(world, &mem);
    VXK_CHECK_EQ_U64(mem.chunk_count, 0);
    vxk_world_destroy(world);
    return 0;
}

int main(void)
{
    VXK_RUN(test_validation);
    VXK_RUN(test_seeds_differ);
    VXK_RUN(test_worker_counts);
    VXK_RUN(test_structure);
    return vxk_test_finish();
}
