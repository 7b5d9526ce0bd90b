// phase_broadphase.c: the bit broadphase benchmark phase (seed 000): full parallel build over the
// generated world, the dilation kernel alone and the full per-chunk path per core, the dilation
// against memcpy of the same input bytes, mask memory per voxel, and AABB overlap queries.
//
// Input bytes of the dilation kernel are the rows it reads: 100 rows x 16 bit x (solid, water)
// = 400 bytes per chunk (vxk_dilate_rows); dilate_vs_memcpy compares the kernel's input bytes/s
// with memcpy of a buffer of the same size in the same run.
#include "bench.h"

#include <vxk/broadphase.h>
#include <vxk/simd_dilate.h>
#include <vxk/world.h>

#include <core.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BP_BENCH_KERNEL_CHUNKS 4096 // 1.6 MB of rows: in L2/L3, as a build piece streams them
#define BP_BENCH_SAMPLES 5

static double figure_of(const vxk_bench* b, const char* key)
{
    for (int i = 0; i < b->figure_count; ++i)
        if (strcmp(b->figures[i].key, key) == 0)
            return b->figures[i].value;
    return 0.0;
}

// Voxels of the benchmark world: what the world phase generated, else the terrain's chunk box.
static double world_voxels(const vxk_bench* b, const vxk_world* world)
{
    double generated = figure_of(b, "world_voxels");
    if (generated > 0.0)
        return generated;
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    return (double)mem.chunk_count * 512.0;
}

// The 10^3 neighbourhood rows of a chunk, read as bytes through the public API.
static void read_rows(const vxk_world* world, vxk_int3 chunk, vxk_dilate_rows* rows)
{
    uint8_t box[1000];
    vxk_int3 min = {chunk.x * 8 - 1, chunk.y * 8 - 1, chunk.z * 8 - 1};
    vxk_world_read_box(world, box, (vxk_int_box){min, {min.x + 9, min.y + 9, min.z + 9}});
    const vxk_material_table* table = vxk_world_materials(world);
    memset(rows, 0, sizeof(*rows));
    for (int y = 0; y < 10; ++y)
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x) {
                uint8_t kind = table->materials[box[x + 10 * (z + 10 * y)]].kind;
                if (kind == VXK_MATERIAL_SOLID)
                    rows->rows[y * 10 + z][0] |= (uint16_t)(1u << x);
                else if (kind == VXK_MATERIAL_WATER)
                    rows->rows[y * 10 + z][1] |= (uint16_t)(1u << x);
            }
}

typedef void dilate_fn(vxk_dilate_mask*, uint8_t*, const vxk_dilate_rows*, size_t);

// Chunks per second of one kernel over the buffer (median of samples, single thread).
static double time_kernel(dilate_fn* fn, vxk_dilate_mask* out, uint8_t* kinds,
                          const vxk_dilate_rows* rows, uint32_t n, double min_seconds)
{
    double rates[BP_BENCH_SAMPLES];
    for (int s = 0; s < BP_BENCH_SAMPLES; ++s) {
        uint64_t done = 0;
        double t0 = vxk_bench_now(), t = t0;
        do {
            fn(out, kinds, rows, n);
            done += n;
            t = vxk_bench_now();
        } while (t - t0 < min_seconds);
        vxk_bench_sink(out[done % n].solid[3] ^ kinds[done % n]);
        rates[s] = (double)done / (t - t0);
    }
    return vxk_bench_median(rates, BP_BENCH_SAMPLES);
}

static double time_memcpy(void* dst, const void* src, size_t bytes, double min_seconds)
{
    double rates[BP_BENCH_SAMPLES];
    for (int s = 0; s < BP_BENCH_SAMPLES; ++s) {
        uint64_t done = 0;
        double t0 = vxk_bench_now(), t = t0;
        do {
            memcpy(dst, src, bytes);
            __asm__ volatile("" : : "r"(dst) : "memory");
            done += bytes;
            t = vxk_bench_now();
        } while (t - t0 < min_seconds);
        vxk_bench_sink(((const uint8_t*)dst)[done % bytes]);
        rates[s] = (double)done / (t - t0);
    }
    return vxk_bench_median(rates, BP_BENCH_SAMPLES);
}

// Body-sized boxes (1..4 voxels a side) at random places inside random masked chunks: the
// surface region, where bodies meet the terrain.
static void surface_boxes(vxk_aabb* boxes, uint32_t count, const vxk_int3* masked,
                          uint32_t masked_count, float voxel_size, uint64_t seed)
{
    uint64_t rng = seed;
    for (uint32_t i = 0; i < count; ++i) {
        vxk_int3 c = masked[vxk_splitmix64(&rng) % masked_count];
        float p[3], e[3];
        const int32_t base[3] = {c.x * 8, c.y * 8, c.z * 8};
        for (int k = 0; k < 3; ++k) {
            p[k] = (float)base[k] + 8.0f * (float)((vxk_splitmix64(&rng) >> 40) * 0x1p-24);
            e[k] = 1.0f + 3.0f * (float)((vxk_splitmix64(&rng) >> 40) * 0x1p-24);
        }
        boxes[i].min = (vxk_vec3){p[0] * voxel_size, p[1] * voxel_size, p[2] * voxel_size};
        boxes[i].max = (vxk_vec3){(p[0] + e[0]) * voxel_size, (p[1] + e[1]) * voxel_size,
                                  (p[2] + e[2]) * voxel_size};
    }
}

void vxk_bench_broadphase(vxk_bench* b)
{
    vxk_world* world = vxk_bench_shared_world(b);
    if (!world) {
        fprintf(stderr, "phase broadphase: cannot generate a world\n");
        return;
    }
    const double min_seconds = b->quick ? 0.02 : 0.1;

    // ---- build ----
    vxk_bench_progress(b, "broadphase build");
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    double t0 = vxk_bench_now();
    vxk_status status = vxk_broadphase_build(world);
    double build_seconds = vxk_bench_now() - t0;
    if (status != VXK_OK) {
        fprintf(stderr, "phase broadphase: build failed: %s\n", vxk_status_string(status));
        return;
    }
    vxk_bench_phase_add(b, "broadphase_build", build_seconds, (double)mem.chunk_count);
    vxk_bench_figure_add(b, "broadphase_build_s", build_seconds);
    vxk_bench_figure_add(b, "broadphase_build_chunks_per_s",
                         (double)mem.chunk_count / build_seconds);
    if (figure_of(b, "gen_s") > 0.0)
        vxk_bench_figure_add(b, "world_and_masks_s", figure_of(b, "gen_s") + build_seconds);

    double voxels = world_voxels(b, world);
    vxk_world_get_memory_stats(world, &mem);
    uint64_t masked_entries = mem.broadphase_entries - mem.broadphase_full;
    vxk_bench_figure_add(b, "broadphase_entries", (double)mem.broadphase_entries);
    vxk_bench_figure_add(b, "broadphase_full", (double)mem.broadphase_full);
    vxk_bench_figure_add(b, "broadphase_bits_per_voxel",
                         (double)masked_entries * sizeof(vxk_dilate_mask) * 8.0 / voxels);
    vxk_bench_figure_add(b, "broadphase_all_bits_per_voxel",
                         (double)mem.broadphase_bytes * 8.0 / voxels);
    vxk_bench_figure_add(b, "terrain_and_masks_bytes_per_voxel", (double)mem.total_bytes / voxels);
    uint64_t hash = vxk_broadphase_hash(world);
    vxk_bench_hash(b, &hash, sizeof(hash));
    vxk_bench_figure_add(b, "broadphase_hash_low32", (double)(uint32_t)hash);

    // ---- the masked chunks (sorted), for the kernel, the full path and the queries ----
    uint32_t entry_count = vxk_broadphase_get_chunks(world, NULL, 0);
    vxk_int3* entries =
        (vxk_int3*)malloc((size_t)(entry_count ? entry_count : 1) * sizeof(vxk_int3));
    if (!entries) {
        fprintf(stderr, "phase broadphase: cannot list entries\n");
        return;
    }
    uint32_t listed = vxk_broadphase_get_chunks(world, entries, entry_count);
    uint32_t masked = 0;
    for (uint32_t i = 0; i < listed; ++i) {
        vxk_broadphase_entry e;
        vxk_broadphase_get(world, &e, entries[i]);
        if (e.tag == VXK_BROADPHASE_MASK)
            entries[masked++] = entries[i];
    }
    if (masked == 0) {
        fprintf(stderr, "phase broadphase: the world has no masked chunk\n");
        free(entries);
        return;
    }

    // ---- the dilation kernel alone, one thread, mixed chunks of this world ----
    vxk_bench_progress(b, "dilation kernel");
    uint32_t kn = BP_BENCH_KERNEL_CHUNKS;
    vxk_dilate_rows* rows = (vxk_dilate_rows*)malloc(kn * sizeof(vxk_dilate_rows));
    vxk_dilate_rows* copy = (vxk_dilate_rows*)malloc(kn * sizeof(vxk_dilate_rows));
    vxk_dilate_mask* out = (vxk_dilate_mask*)malloc(kn * sizeof(vxk_dilate_mask));
    uint8_t* kinds = (uint8_t*)malloc(kn);
    if (rows && copy && out && kinds) {
        uint64_t rng = b->seed ^ 0xD11A7Eull;
        for (uint32_t i = 0; i < kn; ++i)
            read_rows(world, entries[vxk_splitmix64(&rng) % masked], &rows[i]);
        double simd_rate = time_kernel(vxk_dilate_chunks, out, kinds, rows, kn, min_seconds);
        double scalar_rate =
            time_kernel(vxk_dilate_chunks_scalar, out, kinds, rows, kn, min_seconds);
        double memcpy_rate = time_memcpy(copy, rows, kn * sizeof(vxk_dilate_rows), min_seconds);
        vxk_bench_phase_add(b, "dilate_kernel", (double)kn / simd_rate, kn);
        vxk_bench_figure_add(b, "dilate_chunks_per_s", simd_rate);
        vxk_bench_figure_add(b, "dilate_scalar_chunks_per_s", scalar_rate);
        vxk_bench_figure_add(b, "dilate_vs_memcpy",
                             simd_rate * (double)sizeof(vxk_dilate_rows) / memcpy_rate);
        vxk_bench_figure_add(b, "memcpy_gbps", memcpy_rate * 1e-9);
    }
    free(rows);
    free(copy);
    free(out);
    free(kinds);

    // ---- the full per-chunk path (lookups + gather + dilate + classify), one thread ----
    vxk_bench_progress(b, "dilation full path");
    uint32_t fn = masked < (b->quick ? 20000u : 200000u) ? masked : (b->quick ? 20000u : 200000u);
    vxk_broadphase_entry* computed =
        (vxk_broadphase_entry*)malloc((size_t)fn * sizeof(vxk_broadphase_entry));
    if (computed) {
        double rates[3];
        for (int s = 0; s < 3; ++s) {
            double s0 = vxk_bench_now();
            vxk_broadphase_compute(world, computed, entries, fn);
            rates[s] = (double)fn / (vxk_bench_now() - s0);
        }
        vxk_bench_sink(computed[fn / 2].solid[4]);
        vxk_bench_figure_add(b, "dilate_full_chunks_per_s", vxk_bench_median(rates, 3));
    }
    free(computed);

    // ---- overlap queries: single (one thread) and batch (all workers) ----
    vxk_bench_progress(b, "overlap queries");
    uint32_t qn = b->quick ? 20000u : 1000000u;
    vxk_aabb* boxes = (vxk_aabb*)malloc((size_t)qn * sizeof(vxk_aabb));
    uint32_t* offsets = (uint32_t*)malloc(((size_t)qn + 1) * sizeof(uint32_t));
    if (boxes && offsets) {
        surface_boxes(boxes, qn, entries, masked, vxk_world_voxel_size(world), b->seed ^ 0xB0B);
        vxk_broadphase_hit hits[256];
        uint64_t total_hits = 0;
        double q0 = vxk_bench_now();
        for (uint32_t i = 0; i < qn; ++i) {
            uint32_t n = 0;
            vxk_broadphase_query_aabb(world, hits, 256, &n, boxes[i]);
            total_hits += n;
        }
        double single_seconds = vxk_bench_now() - q0;
        vxk_bench_phase_add(b, "overlap_single", single_seconds, qn);
        vxk_bench_figure_add(b, "overlap_queries_per_s", (double)qn / single_seconds);
        vxk_bench_figure_add(b, "overlap_hits_per_query", (double)total_hits / qn);
        vxk_broadphase_hit* results =
            (vxk_broadphase_hit*)malloc((size_t)(total_hits ? total_hits : 1) * sizeof(*results));
        if (results) {
            double rates[3], best = 0.0;
            for (int s = 0; s < 3; ++s) {
                double s0 = vxk_bench_now();
                status = vxk_broadphase_query_batch(world, results, (uint32_t)total_hits, offsets,
                                                    boxes, qn);
                double sec = vxk_bench_now() - s0;
                rates[s] = (double)qn / sec;
                best = s == 0 || sec < best ? sec : best;
            }
            if (status == VXK_OK) {
                vxk_bench_phase_add(b, "overlap_batch", best, qn);
                vxk_bench_figure_add(b, "overlap_batch_queries_per_s", vxk_bench_median(rates, 3));
                uint64_t qhash =
                    vxk_hash_bytes(VXK_HASH_SEED, results, (size_t)total_hits * sizeof(*results));
                vxk_bench_hash(b, &qhash, sizeof(qhash));
            } else {
                fprintf(stderr, "phase broadphase: batch query failed: %s\n",
                        vxk_status_string(status));
            }
        }
        free(results);
    }
    free(boxes);
    free(offsets);
    free(entries);
}
