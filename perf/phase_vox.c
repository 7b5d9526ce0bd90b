// phase_vox.c: the .vox import benchmark phase: writes a synthetic MagicaVoxel file in memory
// (models with a scene graph of rotated, translated instances) and times parsing, flattening
// and loading into terrain. Single-threaded: the importer does not use the job system.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vxk/vox.h>
#include <vxk/world.h>

#include "bench.h"
#include "scenes.h"
#include "core.h"

typedef struct vox_writer {
    uint8_t* p;
    size_t n, cap;
} vox_writer;

static void put(vox_writer* w, const void* data, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2;
        w->p = (uint8_t*)realloc(w->p, w->cap);
        if (!w->p)
            abort();
    }
    memcpy(w->p + w->n, data, n);
    w->n += n;
}
static void put_i32(vox_writer* w, int32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}
static size_t begin_chunk(vox_writer* w, const char* id)
{
    size_t at = w->n;
    put(w, id, 4);
    put_i32(w, 0);
    put_i32(w, 0);
    return at;
}
static void set_i32(vox_writer* w, size_t at, int32_t v)
{
    for (int k = 0; k < 4; ++k)
        w->p[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}
static void end_chunk(vox_writer* w, size_t at)
{
    set_i32(w, at + 4, (int32_t)(w->n - at - 12));
}
static void put_string(vox_writer* w, const char* s)
{
    put_i32(w, (int32_t)strlen(s));
    put(w, s, strlen(s));
}

// models of side^3 voxels (about 40% filled), instances on a cube grid with the 24 rotations.
static void write_scene(vox_writer* w, int models, int side, int grid, uint64_t seed,
                        uint64_t* file_voxels)
{
    // The 24 rotation bytes with determinant +1.
    static const uint8_t proper[24] = {2,  4,  9,  17, 22, 24, 33, 38,  40,  50,  52,  57,
                                       65, 70, 72, 82, 84, 89, 98, 100, 105, 113, 118, 120};
    *file_voxels = 0;
    put(w, "VOX ", 4);
    put_i32(w, 150);
    size_t main_at = begin_chunk(w, "MAIN");
    uint64_t rng = seed;
    for (int m = 0; m < models; ++m) {
        size_t at = begin_chunk(w, "SIZE");
        for (int k = 0; k < 3; ++k)
            put_i32(w, side);
        end_chunk(w, at);
        at = begin_chunk(w, "XYZI");
        size_t count_at = w->n;
        put_i32(w, 0);
        int32_t count = 0;
        for (int z = 0; z < side; ++z)
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x)
                    if (vxk_splitmix64(&rng) % 10 < 4) {
                        uint8_t e[4] = {(uint8_t)x, (uint8_t)y, (uint8_t)z,
                                        (uint8_t)(1 + (x + y + z + m) % 255)};
                        put(w, e, 4);
                        ++count;
                    }
        set_i32(w, count_at, count);
        *file_voxels += (uint64_t)count;
        end_chunk(w, at);
    }
    int instances = grid * grid * grid;
    size_t at = begin_chunk(w, "nTRN");
    put_i32(w, 0), put_i32(w, 0), put_i32(w, 1), put_i32(w, -1), put_i32(w, -1);
    put_i32(w, 1), put_i32(w, 0);
    end_chunk(w, at);
    at = begin_chunk(w, "nGRP");
    put_i32(w, 1), put_i32(w, 0), put_i32(w, instances);
    for (int i = 0; i < instances; ++i)
        put_i32(w, 2 + 2 * i);
    end_chunk(w, at);
    for (int i = 0; i < instances; ++i) {
        char t[48], r[8];
        snprintf(t, sizeof(t), "%d %d %d", (i % grid) * (side + 2), (i / grid % grid) * (side + 2),
                 (i / grid / grid) * (side + 2));
        snprintf(r, sizeof(r), "%d", proper[i % 24]);
        at = begin_chunk(w, "nTRN");
        put_i32(w, 2 + 2 * i), put_i32(w, 0), put_i32(w, 3 + 2 * i), put_i32(w, -1);
        put_i32(w, 0), put_i32(w, 1), put_i32(w, 2);
        put_string(w, "_t"), put_string(w, t), put_string(w, "_r"), put_string(w, r);
        end_chunk(w, at);
        at = begin_chunk(w, "nSHP");
        put_i32(w, 3 + 2 * i), put_i32(w, 0), put_i32(w, 1), put_i32(w, i % models);
        put_i32(w, 0);
        end_chunk(w, at);
    }
    set_i32(w, main_at + 8, (int32_t)(w->n - main_at - 12));
}

void vxk_bench_vox(vxk_bench* b)
{
    int models = b->quick ? 4 : 16, side = b->quick ? 24 : 64, grid = b->quick ? 2 : 4;
    int reps = b->quick ? 3 : 5;
    vox_writer w = {0};
    uint64_t file_voxels;
    write_scene(&w, models, side, grid, b->seed ^ 0x766f78, &file_voxels);
    double parse[8], flatten[8], world_load[8];
    uint64_t placed = 0, grid_voxels = 0;
    for (int r = 0; r < reps; ++r) {
        vxk_vox_scene scene;
        double t0 = vxk_bench_now();
        vxk_status st = vxk_vox_load_grids(w.p, w.n, NULL, &scene);
        double t1 = vxk_bench_now();
        vxk_voxel_grid flat;
        if (st == VXK_OK)
            st = vxk_vox_scene_flatten(&scene, &flat, NULL);
        double t2 = vxk_bench_now();
        if (st != VXK_OK) {
            fprintf(stderr, "phase vox: %s\n", vxk_status_string(st));
            vxk_vox_scene_free(&scene);
            free(w.p);
            return;
        }
        placed = 0;
        for (uint32_t i = 0; i < scene.instance_count; ++i) {
            const vxk_voxel_grid* g = &scene.models[scene.instances[i].model];
            size_t n = (size_t)g->size.x * g->size.y * g->size.z;
            for (size_t v = 0; v < n; ++v)
                placed += g->voxels[v] != 0;
        }
        grid_voxels = (uint64_t)flat.size.x * flat.size.y * flat.size.z;
        vxk_bench_hash(b, flat.voxels, grid_voxels);
        vxk_voxel_grid_free(&flat);
        vxk_vox_scene_free(&scene);

        vxk_world* world = vxk_scene_world_with(b->jobs, 0.0f);
        if (!world)
            break;
        double t3 = vxk_bench_now();
        st = vxk_vox_load_into_world(world, w.p, w.n, (vxk_int3){-100, 0, 37}, NULL);
        double t4 = vxk_bench_now();
        vxk_world_destroy(world);
        if (st != VXK_OK) {
            fprintf(stderr, "phase vox: world load: %s\n", vxk_status_string(st));
            break;
        }
        parse[r] = t1 - t0;
        flatten[r] = t2 - t1;
        world_load[r] = t4 - t3;
    }
    double tp = vxk_bench_median(parse, reps), tf = vxk_bench_median(flatten, reps);
    double tw = vxk_bench_median(world_load, reps);
    vxk_bench_phase_add(b, "vox_parse", tp, (double)file_voxels);
    vxk_bench_phase_add(b, "vox_flatten", tf, (double)placed);
    vxk_bench_phase_add(b, "vox_load_world", tw, (double)grid_voxels);
    vxk_bench_figure_add(b, "vox_file_mb", (double)w.n / 1e6);
    vxk_bench_figure_add(b, "vox_instances", (double)(grid * grid * grid));
    vxk_bench_figure_add(b, "vox_parse_mb_per_s", (double)w.n / 1e6 / tp);
    vxk_bench_figure_add(b, "vox_parse_mvoxels_per_s", (double)file_voxels / 1e6 / tp);
    vxk_bench_figure_add(b, "vox_flatten_mvoxels_per_s", (double)placed / 1e6 / tf);
    vxk_bench_figure_add(b, "vox_world_load_ms", tw * 1e3);
    vxk_bench_figure_add(b, "vox_world_load_mvoxels_per_s", (double)grid_voxels / 1e6 / tw);
    free(w.p);
}
