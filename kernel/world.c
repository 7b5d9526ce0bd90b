// world.c: the world object: creation from a def, the material table, the job scheduler, and the
// validated public terrain API (get, read, fill, write, iteration, memory, hash, a chunk's quads
// and boxes) over terrain.c and chunk_geometry.c.
// Follows seed 000 (Roblox terrain physics) for the sparse chunk terrain.
#include <vxk/chunk_geometry.h>
#include <vxk/vox.h>
#include <vxk/world.h>

#include <float.h>

#include "edit_thread.h"
#include "world_internal.h"

#define VXK_WORLD_DEF_COOKIE 0x564B5744u // "VKWD"
#define VXK_WORLD_COOKIE 0x564B574Fu     // "VKWO"

vxk_world_def vxk_default_world_def(void)
{
    vxk_world_def def;
    memset(&def, 0, sizeof(def));
    def.cookie = VXK_WORLD_DEF_COOKIE;
    def.voxel_size = 1.0f;
    def.materials = NULL;
    def.jobs = NULL;
    def.narrow_cache_bytes = (size_t)64 << 20;
    def.gravity = (vxk_vec3){0.0f, -9.81f, 0.0f};
    def.substeps = 4;
    def.contact_hertz = 30.0f;
    def.contact_damping_ratio = 10.0f;
    def.contact_push_speed = 3.0f;
    def.restitution_threshold = 1.0f;
    def.linear_slop = 0.005f;
    def.contact_recycling = true;
    def.enable_sleep = true;
    def.sleep_threshold = 0.05f;
    def.time_to_sleep = 0.5f;
    return def;
}

_Static_assert(VXK_JOBS_OK == VXK_OK && VXK_JOBS_ERR_INVALID_ARGUMENT == VXK_ERR_INVALID_ARGUMENT &&
                   VXK_JOBS_ERR_BAD_DEF == VXK_ERR_BAD_DEF &&
                   VXK_JOBS_ERR_OUT_OF_MEMORY == VXK_ERR_OUT_OF_MEMORY &&
                   VXK_JOBS_ERR_NESTING == VXK_ERR_NESTING,
               "the scheduler's status codes are vxk_status values");

// The world's own scheduler allocates through the kernel's hook like everything else.
static void* jobs_alloc(size_t size, void* user)
{
    (void)user;
    return vxk_alloc(size);
}

static void jobs_free(void* pointer, size_t size, void* user)
{
    (void)user;
    vxk_free(pointer, size);
}

vxk_status vxk_world_create(const vxk_world_def* def, vxk_world** out)
{
    if (!def || !out)
        return VXK_ERR_INVALID_ARGUMENT;
    if (def->cookie != VXK_WORLD_DEF_COOKIE)
        return VXK_ERR_BAD_DEF;
    if (!vxk_is_finite(def->voxel_size))
        return VXK_ERR_NOT_FINITE;
    if (!(def->voxel_size >= VXK_MIN_SIZE && def->voxel_size <= VXK_MAX_SIZE))
        return VXK_ERR_OUT_OF_RANGE;
    vxk_status status = vxk_dynamics_validate_def(def);
    if (status != VXK_OK)
        return status;
    if (def->materials) {
        status = vxk_material_table_validate(def->materials);
        if (status != VXK_OK)
            return status;
    }

    vxk_world* world = (vxk_world*)vxk_calloc(sizeof(vxk_world));
    if (!world)
        return VXK_ERR_OUT_OF_MEMORY;
    world->cookie = VXK_WORLD_COOKIE;
    world->voxel_size = def->voxel_size;
    world->inv_voxel_size = 1.0f / def->voxel_size;
    if (def->materials)
        world->materials = *def->materials;
    else
        vxk_default_material_table(&world->materials);
    world->narrow_cache_bytes = def->narrow_cache_bytes;
    vxk_arena_init(&world->step_arena);
    if (vxk_terrain_init(&world->terrain, &world->materials) != VXK_OK) {
        vxk_free(world, sizeof(*world));
        return VXK_ERR_OUT_OF_MEMORY;
    }
    if (def->jobs) {
        world->jobs = def->jobs;
    } else {
        // One worker: jobs run inline on the waiting thread, in submission order.
        vxk_jobs_def jobs_def = vxk_default_jobs_def();
        jobs_def.worker_count = 1;
        jobs_def.max_jobs = 1u << 16;
        jobs_def.allocator = (vxk_jobs_allocator){jobs_alloc, jobs_free, NULL};
        if (vxk_jobs_create(&jobs_def, &world->owned_jobs) != 0) {
            vxk_terrain_destroy(&world->terrain);
            vxk_free(world, sizeof(*world));
            return VXK_ERR_OUT_OF_MEMORY;
        }
        world->jobs = world->owned_jobs;
    }
    // Every subsystem up front: readers find them all (and never cast const away to make one).
    if (vxk_broadphase_attach(world) != VXK_OK || vxk_narrow_cache_attach(world) != VXK_OK ||
        vxk_rays_attach(world) != VXK_OK || vxk_dynamics_attach(world, def) != VXK_OK ||
        vxk_edit_attach(world) != VXK_OK) {
        vxk_world_destroy(world);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    *out = world;
    return VXK_OK;
}

void vxk_world_destroy(vxk_world* world)
{
    if (!world)
        return;
    // The edit system first: its thread must stop before anything it reads goes.
    if (world->edit.destroy)
        world->edit.destroy(world->edit.self);
    if (world->dynamics.destroy)
        world->dynamics.destroy(world->dynamics.self);
    // Derived data first: it may refer to terrain chunks.
    if (world->rays.destroy)
        world->rays.destroy(world->rays.self);
    if (world->narrow.destroy)
        world->narrow.destroy(world->narrow.self);
    if (world->broadphase.destroy)
        world->broadphase.destroy(world->broadphase.self);
    vxk_terrain_destroy(&world->terrain);
    vxk_arena_destroy(&world->step_arena);
    if (world->owned_jobs)
        vxk_jobs_destroy(world->owned_jobs);
    world->cookie = 0;
    vxk_free(world, sizeof(*world));
}

float vxk_world_voxel_size(const vxk_world* world)
{
    return world ? world->voxel_size : 0.0f;
}

const vxk_material_table* vxk_world_materials(const vxk_world* world)
{
    return world ? &world->materials : NULL;
}

vxk_jobs* vxk_world_jobs(const vxk_world* world)
{
    return world ? world->jobs : NULL;
}

uint8_t vxk_world_get_voxel(const vxk_world* world, vxk_int3 voxel)
{
    return world ? vxk_terrain_get_voxel(&world->terrain, voxel) : VXK_MAT_AIR;
}

// Checks a box: not inverted; with bytes, also that its byte count fits size_t.
static vxk_status check_box(vxk_int_box box, bool bytes)
{
    if (box.max.x < box.min.x || box.max.y < box.min.y || box.max.z < box.min.z)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!bytes)
        return VXK_OK;
    // Each extent is at most 2^32, so even the plane may overflow 64 bits.
    uint64_t dx = (uint64_t)((int64_t)box.max.x - box.min.x) + 1;
    uint64_t dy = (uint64_t)((int64_t)box.max.y - box.min.y) + 1;
    uint64_t dz = (uint64_t)((int64_t)box.max.z - box.min.z) + 1;
    if (dz > (uint64_t)SIZE_MAX / dx || dy > (uint64_t)SIZE_MAX / (dx * dz))
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

vxk_status vxk_world_read_box(const vxk_world* world, uint8_t* out, vxk_int_box box)
{
    if (!world || !out)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_box(box, true);
    if (status != VXK_OK)
        return status;
    vxk_terrain_read(&world->terrain, out, box);
    return VXK_OK;
}

// <vxk/chunk_geometry.h>: a world's chunk handed to the terrain's adapter (chunk_geometry.c).
vxk_status vxk_chunk_mesh(const vxk_world* world, vxk_quad* out, uint32_t capacity, uint32_t* count,
                          vxk_int3 chunk)
{
    if (!world || !out || !count)
        return VXK_ERR_INVALID_ARGUMENT;
    return vxk_terrain_chunk_mesh(&world->terrain, out, capacity, count, &world->materials, chunk);
}

vxk_status vxk_chunk_boxes(const vxk_world* world, vxk_voxel_box* out, uint32_t capacity,
                           uint32_t* count, vxk_int3 chunk, vxk_boxes_mode mode)
{
    if (!world || !out || !count || (unsigned)mode >= VXK_BOXES_MODE_COUNT)
        return VXK_ERR_INVALID_ARGUMENT;
    return vxk_terrain_chunk_boxes(&world->terrain, out, capacity, count, &world->materials, chunk,
                                   mode);
}

static bool material_defined(const vxk_world* world, uint8_t id)
{
    return id == VXK_MAT_AIR || world->materials.materials[id].defined;
}

vxk_status vxk_world_fill_box(vxk_world* world, vxk_int_box box, uint8_t material)
{
    if (!world)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_box(box, false);
    if (status != VXK_OK)
        return status;
    if (!material_defined(world, material))
        return VXK_ERR_BAD_MATERIAL;
    return vxk_terrain_fill(&world->terrain, box, material);
}

vxk_status vxk_world_write_box(vxk_world* world, vxk_int_box box, const uint8_t* ids)
{
    if (!world || !ids)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_box(box, true);
    if (status != VXK_OK)
        return status;
    size_t count = ((size_t)((int64_t)box.max.x - box.min.x) + 1) *
                   ((size_t)((int64_t)box.max.y - box.min.y) + 1) *
                   ((size_t)((int64_t)box.max.z - box.min.z) + 1);
    bool seen[VXK_MATERIAL_COUNT] = {false};
    for (size_t i = 0; i < count; ++i)
        seen[ids[i]] = true;
    for (int id = 0; id < VXK_MATERIAL_COUNT; ++id)
        if (seen[id] && !material_defined(world, (uint8_t)id))
            return VXK_ERR_BAD_MATERIAL;
    return vxk_terrain_write(&world->terrain, box, ids);
}

void vxk_world_for_each_chunk(const vxk_world* world, vxk_chunk_visit_fn* fn, void* ctx)
{
    if (!world || !fn)
        return;
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &count);
    for (uint32_t i = 0; i < count; ++i) {
        const vxk_chunk* c = chunks[i];
        vxk_chunk_info info;
        info.coord = c->coord;
        info.uniform_material = c->payload ? 0 : c->uniform_material;
        info.is_mixed = c->payload != NULL;
        info.version = c->version;
        info.voxels = c->payload;
        fn(ctx, &info);
    }
}

void vxk_world_get_memory_stats(const vxk_world* world, vxk_world_memory_stats* out)
{
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    if (!world)
        return;
    vxk_terrain_memory(&world->terrain, out);
    if (world->broadphase.memory)
        world->broadphase.memory(world->broadphase.self, out);
    if (world->narrow.memory)
        world->narrow.memory(world->narrow.self, out);
    if (world->rays.memory)
        world->rays.memory(world->rays.self, out);
    if (world->dynamics.memory)
        world->dynamics.memory(world->dynamics.self, out);
    if (world->edit.memory)
        world->edit.memory(world->edit.self, out);
    out->step_bytes = world->step_arena.held;
    out->total_bytes = sizeof(*world) + out->map_bytes + out->chunk_entry_bytes + out->voxel_bytes +
                       out->occupancy_bytes + out->terrain_other_bytes + out->broadphase_bytes +
                       out->narrow_bytes + out->step_bytes + out->body_bytes + out->contact_bytes;
}

uint64_t vxk_world_terrain_hash(const vxk_world* world)
{
    return world ? vxk_terrain_hash(&world->terrain) : 0;
}

// ---- .vox models into the terrain (vxk/vox.h) --------------------------------------------------
// The world's side of the importer: the parser (edit/vox.c) reads the model into a grid against
// the world's material table, and the grid is written as one box, as vxk_world_write_box does.

static vxk_status write_model(vxk_world* world, vxk_voxel_grid* grid, vxk_int3 offset)
{
    vxk_status st = VXK_OK;
    int64_t end[3] = {(int64_t)offset.x + grid->size.x - 1, (int64_t)offset.y + grid->size.y - 1,
                      (int64_t)offset.z + grid->size.z - 1};
    for (int k = 0; k < 3; ++k)
        if (end[k] > INT32_MAX)
            st = VXK_ERR_OUT_OF_RANGE;
    if (st == VXK_OK)
        st = vxk_world_write_box(
            world, (vxk_int_box){offset, {(int32_t)end[0], (int32_t)end[1], (int32_t)end[2]}},
            grid->voxels);
    vxk_voxel_grid_free(grid);
    return st;
}

// The options with the world's materials (a def of another origin keeps its cookie, which the
// parser refuses).
static vxk_vox_options world_vox_options(const vxk_world* world, const vxk_vox_options* opts)
{
    vxk_vox_options local = opts ? *opts : vxk_default_vox_options();
    local.materials = &world->materials;
    return local;
}

vxk_status vxk_vox_load_into_world(vxk_world* world, const void* data, size_t size, vxk_int3 offset,
                                   const vxk_vox_options* opts)
{
    if (!world)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_vox_options local = world_vox_options(world, opts);
    vxk_voxel_grid grid;
    vxk_status st = vxk_vox_load_flat(data, size, &local, &grid, NULL);
    return st != VXK_OK ? st : write_model(world, &grid, offset);
}

vxk_status vxk_vox_load_into_world_file(vxk_world* world, const char* path, vxk_int3 offset,
                                        const vxk_vox_options* opts)
{
    if (!world || !path)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_vox_options local = world_vox_options(world, opts);
    vxk_vox_scene scene;
    vxk_status st = vxk_vox_load_grids_file(path, &local, &scene);
    vxk_voxel_grid grid = {{0, 0, 0}, NULL};
    if (st == VXK_OK)
        st = vxk_vox_scene_flatten(&scene, &grid, NULL);
    vxk_vox_scene_free(&scene);
    return st != VXK_OK ? st : write_model(world, &grid, offset);
}
