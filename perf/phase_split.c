// phase_split.c: connectivity splitting (geometry/split.h) over 32^3 regions of terrain, against
// a brute-force breadth-first search voxel by voxel over a byte grid, in the same run.
//
// A region is 4 x 4 x 4 chunks of 8^3: a ground 5 to 9 voxels deep with small caves, anchored
// at y = 0, and a "mushroom": a 4 x 4 pillar from the ground to y = 21 under a cap of about
// 16 x 4 x 16 with a few holes. Each of INSTANCES regions (random sizes and places) is gathered
// from its chunks into bit rows (vxk_flood_gather_chunks) and then:
//   - cut: the pillar's layers 13..14 are removed; the search (boundary anchors and KEEP_LAST, the
//     terrain's flags) finds the cap and the pillar's top as one free component: begin, run to the
//     end, result. `split_us` is the median time per search, `split_visited` the median voxels
//     claimed, `split_us_per_32k_visited` the time per 32^3 voxels claimed;
//   - notch: one ground voxel removed; its finders meet and KEEP_LAST ends the search (`notch_us`);
//   - labels: vxk_split_components of the whole region, every solid voxel flooded (`labels_us`);
//   - the brute force: for the cut, a queue-based BFS of every seed's whole component over the
//     byte grid, then its anchors (`bfs_us`); for the labels, a BFS labelling of every voxel
//     (`bfs_labels_us`); `*_vs_bfs` are the speed ratios. Each brute-force result is compared with
//     the split result (count of free voxels, component count) and the run aborts on a mismatch.
//   - gather: the chunks to rows, SIMD (`gather_us`) and scalar twin (`gather_scalar_us`).
// Times are medians over instances of the mean of REPEAT back-to-back runs. One thread.
// Run by perf/bench_split and `vxk bench --phases split`: [--quick] [--threads N] (threads unused).
#include "bench.h"

#include "core.h"
#include "split.h"

#include <vxk/simd_flood.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIDE 32
#define CHUNKS (SIDE / 8)
#define VOXELS (SIDE * SIDE * SIDE)
#define INSTANCES 200
#define REPEAT 20

typedef struct region {
    uint8_t solid[VOXELS]; // index x + 32 (z + 32 y)
    uint64_t blocks[CHUNKS * CHUNKS * CHUNKS][8];
    const uint64_t* chunks[CHUNKS * CHUNKS * CHUNKS];
    uint64_t rows[SIDE * SIDE]; // one word per row (32 voxels used)
    uint64_t anchor[SIDE * SIDE];
    vxk_int3 cut[64];
    uint32_t cut_count;
    vxk_int3 notch;
} region;

static inline size_t at(int x, int y, int z)
{
    return (size_t)x + SIDE * ((size_t)z + SIDE * (size_t)y);
}

static uint32_t rand_below(uint64_t* rng, uint32_t n)
{
    return (uint32_t)(vxk_splitmix64(rng) % n);
}

static void make_region(region* r, uint64_t* rng)
{
    memset(r, 0, sizeof(*r));
    int heights[4][4];
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
            heights[i][k] = 5 + (int)rand_below(rng, 4);
    for (int z = 0; z < SIDE; ++z)
        for (int x = 0; x < SIDE; ++x) {
            int top = heights[x / 8][z / 8] + (rand_below(rng, 4) == 0); // a bump now and then
            for (int y = 0; y < top; ++y)
                r->solid[at(x, y, z)] = 1;
        }
    for (int c = 0; c < 6; ++c) { // caves
        int cx = (int)rand_below(rng, SIDE), cy = 2 + (int)rand_below(rng, 3),
            cz = (int)rand_below(rng, SIDE);
        for (int y = cy - 1; y <= cy + 1; ++y)
            for (int z = cz - 2; z <= cz + 2; ++z)
                for (int x = cx - 2; x <= cx + 2; ++x)
                    if (x >= 0 && z >= 0 && x < SIDE && z < SIDE && y > 0)
                        r->solid[at(x, y, z)] = 0;
    }
    int px = 10 + (int)rand_below(rng, 9), pz = 10 + (int)rand_below(rng, 9);
    int half = 6 + (int)rand_below(rng, 4);
    for (int y = 1; y <= 21; ++y)
        for (int z = pz; z < pz + 4; ++z)
            for (int x = px; x < px + 4; ++x)
                r->solid[at(x, y, z)] = 1;
    for (int y = 22; y <= 25; ++y)
        for (int z = pz + 2 - half; z < pz + 2 + half; ++z)
            for (int x = px + 2 - half; x < px + 2 + half; ++x)
                if (x > 0 && z > 0 && x < SIDE - 1 && z < SIDE - 1)
                    r->solid[at(x, y, z)] = rand_below(rng, 20) != 0;
    for (int y = 13; y <= 14; ++y)
        for (int z = pz; z < pz + 4; ++z)
            for (int x = px; x < px + 4; ++x) {
                r->solid[at(x, y, z)] = 0;
                r->cut[r->cut_count++] = (vxk_int3){x, y, z};
            }
    // The notch: the ground voxel at the top of a column away from the pillar.
    int nx = (px + 16) % SIDE, nz = (pz + 16) % SIDE, ny = SIDE - 1;
    while (ny > 0 && !r->solid[at(nx, ny, nz)])
        --ny;
    r->notch = (vxk_int3){nx, ny, nz};
    // Chunk blocks (bit x + 8z of slice y), the floor's anchor rows.
    for (int y = 0; y < SIDE; ++y)
        for (int z = 0; z < SIDE; ++z)
            for (int x = 0; x < SIDE; ++x)
                if (r->solid[at(x, y, z)])
                    r->blocks[x / 8 + CHUNKS * (z / 8 + CHUNKS * (y / 8))][y % 8] |=
                        1ull << (x % 8 + 8 * (z % 8));
    for (int i = 0; i < CHUNKS * CHUNKS * CHUNKS; ++i)
        r->chunks[i] = r->blocks[i];
    for (int z = 0; z < SIDE; ++z)
        r->anchor[z] = 0xFFFFFFFFull; // rows (0, z)
}

// ---- the brute force --------------------------------------------------------------------------

typedef struct brute {
    int32_t label[VOXELS];
    uint32_t queue[VOXELS];
} brute;

// BFS of the component of `start` (label `label`); returns its size, *anchored if it holds a
// voxel at y = 0 or on the region's faces.
static uint32_t bfs(brute* w, const uint8_t* solid, size_t start, int32_t label, bool* anchored)
{
    uint32_t head = 0, tail = 0, size = 0;
    w->queue[tail++] = (uint32_t)start;
    w->label[start] = label;
    *anchored = false;
    while (head < tail) {
        uint32_t i = w->queue[head++];
        int x = (int)(i % SIDE), z = (int)((i / SIDE) % SIDE), y = (int)(i / (SIDE * SIDE));
        ++size;
        if (x == 0 || y == 0 || z == 0 || x == SIDE - 1 || y == SIDE - 1 || z == SIDE - 1)
            *anchored = true;
        const int nb[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z},
                              {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
        for (int k = 0; k < 6; ++k) {
            if (nb[k][0] < 0 || nb[k][1] < 0 || nb[k][2] < 0 || nb[k][0] >= SIDE ||
                nb[k][1] >= SIDE || nb[k][2] >= SIDE)
                continue;
            size_t n = at(nb[k][0], nb[k][1], nb[k][2]);
            if (solid[n] && w->label[n] < 0) {
                w->label[n] = label;
                w->queue[tail++] = (uint32_t)n;
            }
        }
    }
    return size;
}

// The free voxels of the cut: every seed's component searched whole, then kept if unanchored.
static uint32_t brute_cut(brute* w, const region* r)
{
    for (size_t i = 0; i < VOXELS; ++i)
        w->label[i] = -1;
    uint32_t free_voxels = 0;
    int32_t label = 0;
    for (uint32_t i = 0; i < r->cut_count; ++i)
        for (int k = 0; k < 6; ++k) {
            int q[3] = {r->cut[i].x, r->cut[i].y, r->cut[i].z};
            q[k / 2] += (k & 1) ? 1 : -1;
            if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= SIDE || q[1] >= SIDE || q[2] >= SIDE)
                continue;
            size_t s = at(q[0], q[1], q[2]);
            if (r->solid[s] && w->label[s] < 0) {
                bool anchored;
                uint32_t size = bfs(w, r->solid, s, label++, &anchored);
                if (!anchored)
                    free_voxels += size;
            }
        }
    return free_voxels;
}

static uint32_t brute_labels(brute* w, const region* r)
{
    for (size_t i = 0; i < VOXELS; ++i)
        w->label[i] = -1;
    int32_t label = 0;
    for (size_t i = 0; i < VOXELS; ++i)
        if (r->solid[i] && w->label[i] < 0) {
            bool anchored;
            bfs(w, r->solid, i, label++, &anchored);
        }
    return (uint32_t)label;
}

// ---- timing -----------------------------------------------------------------------------------

typedef struct sample {
    double split, notch, labels, bfs, bfs_labels, gather, gather_scalar;
    double visited, expanded, notch_visited;
} sample;

// The median over instances of one field of the samples.
static double median_of(const sample* samples, uint32_t n, double* column, size_t offset)
{
    for (uint32_t i = 0; i < n; ++i)
        memcpy(&column[i], (const char*)&samples[i] + offset, sizeof(double));
    return vxk_bench_median(column, (int)n);
}

static void split_cut(vxk_split* s, vxk_split_result* res, const vxk_split_grid* grid,
                      const vxk_int3* removed, uint32_t count)
{
    bool done = false;
    if (vxk_split_begin(s, grid, removed, count,
                        VXK_SPLIT_BOUNDARY_ANCHORS | VXK_SPLIT_KEEP_LAST) != VXK_OK ||
        vxk_split_run(s, 0, &done) != VXK_OK || !done || vxk_split_result_get(s, res) != VXK_OK)
        abort();
}

void vxk_bench_split(vxk_bench* b)
{
    uint32_t instances = b->quick ? 20 : INSTANCES;
    region* r = (region*)malloc(sizeof(region));
    brute* w = (brute*)malloc(sizeof(brute));
    sample* samples = (sample*)calloc(instances, sizeof(sample));
    double* column = (double*)malloc(instances * sizeof(double));
    vxk_split s;
    vxk_split_init(&s);
    vxk_split_result res = {0};
    uint64_t rng = 0x5B117B3Cull ^ b->seed;
    uint64_t scalar_rows[SIDE * SIDE];
    for (uint32_t n = 0; n < instances; ++n) {
        make_region(r, &rng);
        sample* sm = &samples[n];
        double t0 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            vxk_flood_gather_chunks(r->rows, r->chunks, CHUNKS, CHUNKS, CHUNKS);
        double t1 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            vxk_flood_gather_chunks_scalar(scalar_rows, r->chunks, CHUNKS, CHUNKS, CHUNKS);
        double t2 = vxk_bench_now();
        sm->gather = (t1 - t0) / REPEAT;
        sm->gather_scalar = (t2 - t1) / REPEAT;
        if (memcmp(scalar_rows, r->rows, sizeof(scalar_rows)) != 0) {
            fprintf(stderr, "split: gather twins differ\n");
            abort();
        }
        vxk_split_grid grid = {{SIDE, SIDE, SIDE}, r->rows, r->anchor};
        vxk_split_stats st;

        t0 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            split_cut(&s, &res, &grid, r->cut, r->cut_count);
        t1 = vxk_bench_now();
        vxk_split_stats_get(&s, &st);
        sm->split = (t1 - t0) / REPEAT;
        sm->visited = (double)st.voxels_visited;
        sm->expanded = (double)st.voxels_expanded;
        uint32_t free_voxels = 0;
        for (uint32_t c = 0; c < res.component_count; ++c)
            free_voxels += res.components[c].voxel_count;
        vxk_bench_hash(b, &free_voxels, sizeof(free_voxels));

        // The notch's grid: the rows with the notch voxel removed.
        memcpy(scalar_rows, r->rows, sizeof(scalar_rows));
        scalar_rows[r->notch.y * SIDE + r->notch.z] &= ~(1ull << r->notch.x);
        vxk_split_grid notch_grid = {{SIDE, SIDE, SIDE}, scalar_rows, r->anchor};
        t0 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            split_cut(&s, &res, &notch_grid, &r->notch, 1);
        t1 = vxk_bench_now();
        vxk_split_stats_get(&s, &st);
        sm->notch = (t1 - t0) / REPEAT;
        sm->notch_visited = (double)st.voxels_visited;
        if (res.component_count != 0) {
            fprintf(stderr, "split: the notch freed %u components\n", res.component_count);
            abort();
        }

        t0 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            if (vxk_split_components(&s, &res, &grid) != VXK_OK)
                abort();
        t1 = vxk_bench_now();
        sm->labels = (t1 - t0) / REPEAT;
        uint32_t labels = res.component_count;

        uint32_t brute_free = 0, brute_count = 0;
        t0 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            brute_free = brute_cut(w, r);
        t1 = vxk_bench_now();
        for (int k = 0; k < REPEAT; ++k)
            brute_count = brute_labels(w, r);
        t2 = vxk_bench_now();
        sm->bfs = (t1 - t0) / REPEAT;
        sm->bfs_labels = (t2 - t1) / REPEAT;
        if (brute_free != free_voxels || brute_count != labels) {
            fprintf(stderr, "split: instance %u: free %u vs brute %u, labels %u vs %u\n", n,
                    free_voxels, brute_free, labels, brute_count);
            abort();
        }
    }
#define MEDIAN_OF(field) median_of(samples, instances, column, offsetof(sample, field))
    double split_us = 1e6 * MEDIAN_OF(split), bfs_us = 1e6 * MEDIAN_OF(bfs);
    double labels_us = 1e6 * MEDIAN_OF(labels), bfs_labels_us = 1e6 * MEDIAN_OF(bfs_labels);
    double visited = MEDIAN_OF(visited);
    vxk_bench_figure_add(b, "split_us", split_us);
    vxk_bench_figure_add(b, "split_visited", visited);
    vxk_bench_figure_add(b, "split_expanded", MEDIAN_OF(expanded));
    vxk_bench_figure_add(b, "split_us_per_32k_visited", split_us * VOXELS / visited);
    vxk_bench_figure_add(b, "bfs_us", bfs_us);
    vxk_bench_figure_add(b, "split_vs_bfs", bfs_us / split_us);
    vxk_bench_figure_add(b, "notch_us", 1e6 * MEDIAN_OF(notch));
    vxk_bench_figure_add(b, "notch_visited", MEDIAN_OF(notch_visited));
    vxk_bench_figure_add(b, "labels_us", labels_us);
    vxk_bench_figure_add(b, "bfs_labels_us", bfs_labels_us);
    vxk_bench_figure_add(b, "labels_vs_bfs", bfs_labels_us / labels_us);
    vxk_bench_figure_add(b, "gather_us", 1e6 * MEDIAN_OF(gather));
    vxk_bench_figure_add(b, "gather_scalar_us", 1e6 * MEDIAN_OF(gather_scalar));
#undef MEDIAN_OF
    vxk_bench_phase_add(b, "split_cut", split_us * 1e-6, 1);
    vxk_bench_phase_add(b, "split_labels", labels_us * 1e-6, 1);
    vxk_split_result_free(&res);
    vxk_split_destroy(&s);
    free(column);
    free(samples);
    free(w);
    free(r);
}
