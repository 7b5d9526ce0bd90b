// phase_mesh.c: throughput of the greedy quad mesher (seed 000's narrowphase input) and of box
// compounds (seed 004) over the mixed chunks of the shared world, in parallel pieces merged in
// piece order; quad and box digests fold into b->hash.
#include "bench.h"

#include <core.h>
#include <vxk/boxes.h>
#include <vxk/chunk_geometry.h>
#include <vxk/mesher.h>
#include <vxk/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESH_BENCH_GRAIN 16 // chunks per piece: fixed, so pieces do not depend on threads

typedef struct mesh_piece {
    uint64_t quads, triangles, boxes, boxes_material, solid_voxels, hash;
} mesh_piece;

typedef struct mesh_bench_ctx {
    const vxk_world* world;
    const vxk_int3* chunks;
    mesh_piece* pieces;
    bool boxes;
} mesh_bench_ctx;

static void collect_mixed(void* ctx, const vxk_chunk_info* info)
{
    vxk_int3** cursor = (vxk_int3**)ctx;
    if (info->is_mixed)
        *(*cursor)++ = info->coord;
}

static void count_chunks(void* ctx, const vxk_chunk_info* info)
{
    (void)info;
    ++*(uint32_t*)ctx;
}

static void mesh_piece_fn(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    mesh_bench_ctx* c = (mesh_bench_ctx*)ctx;
    mesh_piece* piece = &c->pieces[begin / MESH_BENCH_GRAIN];
    memset(piece, 0, sizeof(*piece));
    piece->hash = VXK_HASH_SEED;
    vxk_quad quads[VXK_MESHER_MAX_QUADS];
    vxk_voxel_box boxes[VXK_BOXES_CHUNK_MAX];
    for (uint32_t i = begin; i < end; ++i) {
        vxk_int3 p = c->chunks[i];
        uint32_t count = 0;
        if (!c->boxes) {
            if (vxk_chunk_mesh(c->world, quads, VXK_MESHER_MAX_QUADS, &count,
                               (vxk_int3){p.x, p.y, p.z}) != VXK_OK)
                abort();
            piece->quads += count;
            piece->triangles += 2u * count;
            piece->hash = vxk_hash_bytes(piece->hash, quads, count * sizeof(vxk_quad));
        } else {
            if (vxk_chunk_boxes(c->world, boxes, VXK_BOXES_CHUNK_MAX, &count,
                                (vxk_int3){p.x, p.y, p.z}, VXK_BOXES_ANY_SOLID) != VXK_OK)
                abort();
            piece->boxes += count;
            for (uint32_t k = 0; k < count; ++k)
                piece->solid_voxels +=
                    (uint64_t)boxes[k].size_x * boxes[k].size_y * boxes[k].size_z;
            piece->hash = vxk_hash_bytes(piece->hash, boxes, count * sizeof(vxk_voxel_box));
            if (vxk_chunk_boxes(c->world, boxes, VXK_BOXES_CHUNK_MAX, &count,
                                (vxk_int3){p.x, p.y, p.z}, VXK_BOXES_PER_MATERIAL) != VXK_OK)
                abort();
            piece->boxes_material += count;
            piece->hash = vxk_hash_bytes(piece->hash, boxes, count * sizeof(vxk_voxel_box));
        }
    }
}

// The article's box loop voxel by voxel (tested[] bytes, TrySpreadX/Y/Z), any-solid mode: the
// speed reference for the bit-row version. Returns the box count.
static uint32_t article_boxes(const uint8_t* voxels, const uint8_t* solid)
{
    uint8_t tested[512];
    memset(tested, 0, sizeof(tested));
    uint32_t boxes = 0;
    for (int i = 0; i < 512; ++i) {
        if (tested[i])
            continue;
        tested[i] = 1;
        if (!solid[voxels[i]])
            continue;
        int start[3] = {i & 7, i >> 6, (i >> 3) & 7}, size[3] = {1, 1, 1};
        bool can[3] = {true, true, true};
        while (can[0] || can[1] || can[2]) {
            for (int axis = 0; axis < 3; ++axis) {
                if (!can[axis])
                    continue;
                int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3, p[3];
                p[axis] = start[axis] + size[axis];
                for (p[a1] = start[a1]; can[axis] && p[a1] < start[a1] + size[a1]; ++p[a1])
                    for (p[a2] = start[a2]; can[axis] && p[a2] < start[a2] + size[a2]; ++p[a2]) {
                        int j = p[0] + 8 * p[2] + 64 * p[1];
                        if (p[axis] >= 8 || tested[j] || !solid[voxels[j]])
                            can[axis] = false;
                    }
                if (!can[axis])
                    continue;
                for (p[a1] = start[a1]; p[a1] < start[a1] + size[a1]; ++p[a1])
                    for (p[a2] = start[a2]; p[a2] < start[a2] + size[a2]; ++p[a2])
                        tested[p[0] + 8 * p[2] + 64 * p[1]] = 1;
                size[axis]++;
            }
        }
        ++boxes;
    }
    return boxes;
}

// Single-thread kernels on pre-read voxels: the mesher without the world read, and the box
// compounds against the article's loop on the same chunks.
static void bench_kernels(vxk_bench* b, const vxk_world* world, const vxk_int3* chunks,
                          uint32_t count)
{
    uint32_t n = count < 2048 ? count : 2048;
    if (n == 0)
        return;
    uint8_t* mesh_boxes = (uint8_t*)malloc((size_t)n * VXK_MESHER_BOX_VOXELS);
    uint8_t* voxels = (uint8_t*)malloc((size_t)n * 512);
    uint8_t solid[256];
    vxk_chunk_solid_table(solid, vxk_world_materials(world));
    for (uint32_t i = 0; i < n; ++i) {
        vxk_int3 c = chunks[(uint64_t)i * count / n];
        vxk_world_read_box(world, mesh_boxes + (size_t)i * 1000,
                           (vxk_int_box){{c.x * 8 - 1, c.y * 8 - 1, c.z * 8 - 1},
                                         {c.x * 8 + 8, c.y * 8 + 8, c.z * 8 + 8}});
        vxk_world_read_box(
            world, voxels + (size_t)i * 512,
            (vxk_int_box){{c.x * 8, c.y * 8, c.z * 8}, {c.x * 8 + 7, c.y * 8 + 7, c.z * 8 + 7}});
    }
    int reps = b->quick ? 1 : 3;
    double best[3] = {1e30, 1e30, 1e30};
    uint64_t check[3] = {0, 0, 0};
    vxk_quad quads[VXK_MESHER_MAX_QUADS];
    vxk_voxel_box boxes[VXK_BOXES_CHUNK_MAX];
    for (int r = 0; r < reps; ++r) {
        double t0 = vxk_bench_now();
        uint64_t total = 0;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t q = 0;
            vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &q, mesh_boxes + (size_t)i * 1000,
                                solid);
            total += q;
        }
        double t1 = vxk_bench_now();
        uint64_t box_total = 0;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t k = 0;
            vxk_boxes_chunk(boxes, VXK_BOXES_CHUNK_MAX, &k, voxels + (size_t)i * 512, solid,
                            VXK_BOXES_ANY_SOLID);
            box_total += k;
        }
        double t2 = vxk_bench_now();
        uint64_t article_total = 0;
        for (uint32_t i = 0; i < n; ++i)
            article_total += article_boxes(voxels + (size_t)i * 512, solid);
        double t3 = vxk_bench_now();
        best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];
        best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];
        best[2] = t3 - t2 < best[2] ? t3 - t2 : best[2];
        check[0] = total;
        check[1] = box_total;
        check[2] = article_total;
    }
    if (check[1] != check[2])
        fprintf(stderr, "mesh bench: box counts differ from the article's loop\n");
    vxk_bench_sink(check[0]);
    vxk_bench_figure_add(b, "mesh_core_chunks_per_s", n / best[0]);
    vxk_bench_figure_add(b, "box_core_chunks_per_s", n / best[1]);
    vxk_bench_figure_add(b, "box_article_chunks_per_s", n / best[2]);
    free(mesh_boxes);
    free(voxels);
}

static double run_pass(vxk_bench* b, mesh_bench_ctx* ctx, uint32_t count)
{
    double t0 = vxk_bench_now();
    vxk_parallel_for(b->jobs, ctx->boxes ? "boxes" : "mesh", count, MESH_BENCH_GRAIN, mesh_piece_fn,
                     ctx);
    return vxk_bench_now() - t0;
}

void vxk_bench_mesh(vxk_bench* b)
{
    const vxk_world* world = vxk_bench_shared_world(b);
    if (!world) {
        fprintf(stderr, "mesh bench: cannot build a world\n");
        return;
    }
    uint32_t total = 0;
    vxk_world_for_each_chunk(world, count_chunks, &total);
    vxk_int3* chunks = (vxk_int3*)malloc(((size_t)total + 1) * sizeof(vxk_int3));
    vxk_int3* cursor = chunks;
    vxk_world_for_each_chunk(world, collect_mixed, &cursor);
    uint32_t count = (uint32_t)(cursor - chunks);
    uint32_t pieces = vxk_parallel_for_pieces(count, MESH_BENCH_GRAIN);
    mesh_piece* piece = (mesh_piece*)calloc((size_t)pieces + 1, sizeof(mesh_piece));
    mesh_bench_ctx ctx = {world, chunks, piece, false};
    uint32_t threads = b->threads ? b->threads : 1;
    int reps = b->quick ? 1 : 3;

    // Mesh: vxk_chunk_mesh per chunk (box read + meshing). Median of reps.
    double times[8];
    for (int r = 0; r < reps; ++r)
        times[r] = run_pass(b, &ctx, count);
    double mesh_s = vxk_bench_median(times, reps);
    mesh_piece sum = {0};
    for (uint32_t p = 0; p < pieces; ++p) {
        sum.quads += piece[p].quads;
        sum.triangles += piece[p].triangles;
        vxk_bench_hash(b, &piece[p].hash, sizeof(piece[p].hash));
    }
    vxk_bench_phase_add(b, "mesh", mesh_s, count);
    double per_core = mesh_s > 0 ? 1.0 / (mesh_s * threads) : 0.0;
    vxk_bench_figure_add(b, "mesh_chunks_per_s", (double)count * per_core);
    vxk_bench_figure_add(b, "mesh_tris_per_s", (double)sum.triangles * per_core);
    vxk_bench_figure_add(b, "mesh_quads_per_chunk", count ? (double)sum.quads / count : 0.0);
    vxk_bench_figure_add(b, "mesh_tris_per_chunk", count ? (double)sum.triangles / count : 0.0);
    vxk_bench_figure_add(b, "mesh_mixed_chunks", count);

    // Boxes: both modes per chunk (any solid, then per material).
    ctx.boxes = true;
    for (int r = 0; r < reps; ++r)
        times[r] = run_pass(b, &ctx, count);
    double boxes_s = vxk_bench_median(times, reps);
    memset(&sum, 0, sizeof(sum));
    for (uint32_t p = 0; p < pieces; ++p) {
        sum.boxes += piece[p].boxes;
        sum.boxes_material += piece[p].boxes_material;
        sum.solid_voxels += piece[p].solid_voxels;
        vxk_bench_hash(b, &piece[p].hash, sizeof(piece[p].hash));
    }
    vxk_bench_phase_add(b, "boxes", boxes_s, 2.0 * count);
    double solid = sum.solid_voxels ? (double)sum.solid_voxels : 1.0;
    vxk_bench_figure_add(b, "boxes_per_solid_voxel", (double)sum.boxes / solid);
    vxk_bench_figure_add(b, "boxes_per_solid_voxel_per_material",
                         (double)sum.boxes_material / solid);
    vxk_bench_figure_add(b, "box_chunks_per_s",
                         boxes_s > 0 ? 2.0 * count / (boxes_s * threads) : 0.0);

    bench_kernels(b, world, chunks, count);
    free(piece);
    free(chunks);
}
