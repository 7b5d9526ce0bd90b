// scenes.c: the worlds of scenes.h. Each builder writes exactly what the helper it replaced wrote
// (same boxes, same order, same seeds), so test expectations and benchmark digests are unchanged.
#include "scenes.h"

#include <vxk/chunk_geometry.h>

vxk_world* vxk_scene_world(void)
{
    return vxk_scene_world_with(NULL, 0.0f);
}

vxk_world* vxk_scene_world_with(vxk_jobs* jobs, float voxel_size)
{
    vxk_world_def def = vxk_default_world_def();
    def.jobs = jobs;
    if (voxel_size != 0.0f)
        def.voxel_size = voxel_size;
    vxk_world* world = NULL;
    return vxk_world_create(&def, &world) == VXK_OK ? world : NULL;
}

typedef struct scene_fill {
    vxk_int_box box;
    uint8_t material;
} scene_fill;

// The near boxes first: vxk_scene_edge_terrain_near fills the first EDGE_NEAR_COUNT.
static const scene_fill k_edge_fills[] = {
    {{{-5, 0, -7}, {20, 3, 9}}, VXK_MAT_STONE},
    {{{-3, 4, -2}, {4, 6, 5}}, VXK_MAT_WATER},
    {{{0, 0, 0}, {15, 15, 15}}, VXK_MAT_DIRT},
    {{{2, 9, 2}, {2, 9, 2}}, VXK_MAT_AIR},
    {{{INT32_MAX - 2, INT32_MAX - 1, INT32_MAX - 3}, {INT32_MAX, INT32_MAX, INT32_MAX}},
     VXK_MAT_METAL},
    {{{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MIN + 2, INT32_MIN + 1, INT32_MIN}}, VXK_MAT_WOOD},
};
enum { EDGE_NEAR_COUNT = 4, EDGE_COUNT = sizeof(k_edge_fills) / sizeof(k_edge_fills[0]) };

// The status tests' terrain: stone, with dirt and water on it, near the origin.
static const scene_fill k_status_fills[] = {
    {{{-12, 0, -9}, {20, 5, 14}}, VXK_MAT_STONE},
    {{{0, 6, 0}, {5, 9, 5}}, VXK_MAT_DIRT},
    {{{-4, 6, 8}, {3, 8, 12}}, VXK_MAT_WATER},
};
enum { STATUS_FILL_COUNT = sizeof(k_status_fills) / sizeof(k_status_fills[0]) };

static vxk_status fill_all(vxk_world* world, const scene_fill* fills, int count)
{
    for (int i = 0; i < count; ++i) {
        vxk_status st = vxk_world_fill_box(world, fills[i].box, fills[i].material);
        if (st != VXK_OK)
            return st;
    }
    return VXK_OK;
}

vxk_status vxk_scene_edge_terrain(vxk_world* world)
{
    return fill_all(world, k_edge_fills, EDGE_COUNT);
}

vxk_status vxk_scene_edge_terrain_near(vxk_world* world)
{
    return fill_all(world, k_edge_fills, EDGE_NEAR_COUNT);
}

static vxk_world* world_with_terrain(vxk_status (*fill)(vxk_world*))
{
    vxk_world* world = vxk_scene_world();
    if (world && fill(world) != VXK_OK) {
        vxk_world_destroy(world);
        world = NULL;
    }
    return world;
}

vxk_world* vxk_scene_edge_world(void)
{
    return world_with_terrain(vxk_scene_edge_terrain);
}

vxk_world* vxk_scene_edge_world_near(void)
{
    return world_with_terrain(vxk_scene_edge_terrain_near);
}

static vxk_status status_terrain(vxk_world* world)
{
    return fill_all(world, k_status_fills, STATUS_FILL_COUNT);
}

vxk_world* vxk_scene_status_world(void)
{
    return world_with_terrain(status_terrain);
}

vxk_status vxk_scene_edge_chunk_quads(vxk_quad* quads, uint32_t* count)
{
    vxk_world* world = vxk_scene_edge_world();
    if (!world)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_status st = vxk_chunk_mesh(world, quads, VXK_MESHER_MAX_QUADS, count, (vxk_int3){0, 0, 0});
    vxk_world_destroy(world);
    return st;
}

vxk_worldgen_def vxk_scene_worldgen_def(vxk_int3 size, uint64_t seed)
{
    vxk_worldgen_def def = vxk_default_worldgen_def();
    def.size_x = size.x;
    def.size_y = size.y;
    def.size_z = size.z;
    def.seed = seed;
    return def;
}

vxk_worldgen_def vxk_scene_bench_worldgen_def(bool quick, double scale, uint64_t seed)
{
    if (!(scale > 0.0))
        scale = 1.0;
    int32_t base_xz = quick ? 256 : 2048;
    int32_t size_xz = (int32_t)((double)base_xz * scale + 0.5);
    if (size_xz < 8)
        size_xz = 8;
    if (size_xz > 65536)
        size_xz = 65536;
    return vxk_scene_worldgen_def((vxk_int3){size_xz, quick ? 128 : 256, size_xz}, seed);
}

vxk_world* vxk_scene_fast_body_world(vxk_jobs* jobs, float voxel_size, int32_t side)
{
    vxk_world_def def = vxk_default_world_def();
    def.voxel_size = voxel_size;
    def.linear_slop = 0.02f * voxel_size;
    def.jobs = jobs;
    vxk_world* w = NULL;
    if (vxk_world_create(&def, &w) != VXK_OK)
        return NULL;
    const int32_t h = side / 2;
    if (vxk_world_fill_box(w, (vxk_int_box){{-h, -8, -h}, {h - 1, -1, h - 1}}, VXK_MAT_STONE) !=
            VXK_OK ||
        vxk_world_fill_box(w, (vxk_int_box){{h, -8, -16}, {h + 8191, -1, 15}}, VXK_MAT_STONE) !=
            VXK_OK ||
        vxk_world_step(w, 0.0f) != VXK_OK) {
        vxk_world_destroy(w);
        return NULL;
    }
    return w;
}

vxk_status vxk_scene_fast_body(vxk_world* world, float voxel_size, vxk_vec3 position,
                               vxk_vec3 velocity, vxk_body_id* out)
{
    uint8_t voxels[8];
    for (int i = 0; i < 8; ++i)
        voxels[i] = VXK_MAT_STONE;
    vxk_voxel_grid grid = {{2, 2, 2}, voxels};
    vxk_body_def d = vxk_default_body_def();
    d.position = position;
    d.linear_velocity = velocity;
    d.shape = vxk_voxel_shape(&grid, voxel_size);
    return vxk_body_create(world, &d, out);
}
