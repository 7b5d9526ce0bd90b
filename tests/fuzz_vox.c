// fuzz_vox.c: libFuzzer target for the .vox importer: every input goes through
// vxk_vox_load_grids, vxk_vox_scene_flatten and vxk_vox_load_into_world; a crash, a sanitizer
// report, a status outside the documented set or a leaked byte stops the run.
#include <vxk/vox.h>
#include <vxk/world.h>

#include <stdio.h>
#include <stdlib.h>

static void require(int condition, const char* what)
{
    if (!condition) {
        fprintf(stderr, "fuzz_vox: %s\n", what);
        abort();
    }
}

static int allowed(vxk_status st)
{
    return st == VXK_OK || st == VXK_ERR_MALFORMED || st == VXK_ERR_TRUNCATED ||
           st == VXK_ERR_OUT_OF_RANGE || st == VXK_ERR_UNSUPPORTED;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // Tighter budgets than the defaults keep each input fast; the checks are the same.
    vxk_vox_options o = vxk_default_vox_options();
    o.max_bytes = 1u << 20;
    o.max_scene_extent = 128;
    o.max_instances = 1024;
    o.max_nodes = 1u << 16;
    size_t before = vxk_allocated_bytes();

    vxk_vox_scene scene;
    vxk_status st = vxk_vox_load_grids(data, size, &o, &scene);
    require(allowed(st), "unexpected status from vxk_vox_load_grids");
    if (st == VXK_OK) {
        for (uint32_t i = 0; i < scene.model_count; ++i) {
            const vxk_voxel_grid* g = &scene.models[i];
            require(g->size.x >= 1 && g->size.x <= VXK_VOX_MAX_MODEL_SIZE && g->size.y >= 1 &&
                        g->size.y <= VXK_VOX_MAX_MODEL_SIZE && g->size.z >= 1 &&
                        g->size.z <= VXK_VOX_MAX_MODEL_SIZE,
                    "model size out of range");
        }
        for (uint32_t i = 0; i < scene.instance_count; ++i)
            require(scene.instances[i].model < scene.model_count, "instance without model");
        vxk_voxel_grid flat;
        vxk_int3 origin;
        vxk_status fs = vxk_vox_scene_flatten(&scene, &flat, &origin);
        require(fs == VXK_OK || fs == VXK_ERR_OUT_OF_RANGE, "unexpected status from flatten");
        if (fs == VXK_OK) {
            require(flat.size.x <= o.max_scene_extent && flat.size.y <= o.max_scene_extent &&
                        flat.size.z <= o.max_scene_extent,
                    "flattened grid beyond the extent limit");
            vxk_voxel_grid_free(&flat);
        }
    }
    vxk_vox_scene_free(&scene);
    require(vxk_allocated_bytes() == before, "bytes leaked by load/flatten");

    // One world serves many inputs (creating one is costly); it is renewed now and then so that
    // its terrain stays small.
    static vxk_world* world;
    static unsigned loads;
    if (st == VXK_OK) {
        if (world && ++loads % 256 == 0) {
            vxk_world_destroy(world);
            world = NULL;
        }
        vxk_world_def def = vxk_default_world_def();
        if (world || vxk_world_create(&def, &world) == VXK_OK) {
            uint64_t hash = vxk_world_terrain_hash(world);
            vxk_status ws = vxk_vox_load_into_world(world, data, size, (vxk_int3){-3, 2, 7}, &o);
            require(ws == VXK_OK || ws == VXK_ERR_OUT_OF_RANGE, "unexpected world load status");
            require(ws == VXK_OK || vxk_world_terrain_hash(world) == hash,
                    "a failed world load changed the terrain");
        }
    }
    return 0;
}
