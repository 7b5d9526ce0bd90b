// test_broadphase.c: the terrain bit broadphase (seed 000): masks equal a brute-force dilation of
// the voxels for every chunk; AABB queries equal a brute-force voxel scan on 100,000 seeded random
// boxes (chunk borders, voxel boundaries, negative coordinates); updates after random fills equal
// a full rebuild; batch equals single; identical content for 1, 2, 3 and 8 workers; bad input. Edge
// tests (harness.h): chunks beyond int32, special floats in every box component, capacities, one
// bad box in a batch; build, update, list and batch queries out of memory.
#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"
#include "broadphase_sweep.h"

#include <vxk/broadphase.h>
#include <vxk/world.h>
#include <vxk/worldgen.h>

#include <math.h>
#include <string.h>

enum { AIR = 0, SOLID = 1, WATER = 2 };

// ---- worlds ----------------------------------------------------------------------------------

typedef struct test_world {
    vxk_jobs* jobs;
    vxk_world* world;
} test_world;

static int world_open(test_world* t, uint32_t workers, float voxel_size)
{
    vxk_jobs_def jd = vxk_default_jobs_def();
    jd.worker_count = workers;
    jd.max_jobs = 1u << 14; // small worlds: a small job pool is quicker to create
    VXK_CHECK(vxk_jobs_create(&jd, &t->jobs) == 0);
    t->world = vxk_scene_world_with(t->jobs, voxel_size);
    VXK_CHECK(t->world != NULL);
    return 0;
}

static void world_close(test_world* t)
{
    vxk_world_destroy(t->world);
    vxk_jobs_destroy(t->jobs);
}

// Random boxes of stone, water and air inside [lo, hi] (inclusive voxel bounds).
// When chunks is not NULL, appends every chunk each box overlaps (up to capacity; duplicates kept).
static int random_fills_listed(vxk_world* world, uint64_t* rng, int count, const int lo[3],
                               const int hi[3], int max_extent, vxk_int3* chunks, uint32_t capacity,
                               uint32_t* chunk_count)
{
    static const uint8_t materials[4] = {VXK_MAT_STONE, VXK_MAT_WATER, VXK_MAT_AIR, VXK_MAT_DIRT};
    for (int n = 0; n < count; ++n) {
        int64_t a[3], b[3];
        for (int k = 0; k < 3; ++k) {
            int span = hi[k] - lo[k] + 1;
            a[k] = lo[k] + (int64_t)(vxk_test_rand(rng) % (uint64_t)span);
            b[k] = a[k] + (int64_t)(vxk_test_rand(rng) % (uint64_t)max_extent);
            if (b[k] > hi[k])
                b[k] = hi[k];
        }
        uint8_t m = materials[vxk_test_rand(rng) % 4];
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(a, b), m), VXK_OK);
        for (int64_t cy = a[1] >> 3; chunks && cy <= b[1] >> 3; ++cy)
            for (int64_t cz = a[2] >> 3; cz <= b[2] >> 3; ++cz)
                for (int64_t cx = a[0] >> 3; cx <= b[0] >> 3; ++cx) {
                    VXK_CHECK(*chunk_count < capacity);
                    chunks[(*chunk_count)++] = (vxk_int3){(int32_t)cx, (int32_t)cy, (int32_t)cz};
                }
    }
    return 0;
}

static int random_fills(vxk_world* world, uint64_t* rng, int count, const int lo[3],
                        const int hi[3], int max_extent)
{
    return random_fills_listed(world, rng, count, lo, hi, max_extent, NULL, 0, NULL);
}

// ---- the dense reference ---------------------------------------------------------------------

// Kinds of all voxels of [origin, origin + size) and their 3x3x3 dilation. Outside is air.
typedef struct dense {
    int32_t origin[3], size[3];
    uint8_t* kind;    // index x + sx*(z + sz*y)
    uint8_t* dilated; // bit 0 solid, bit 1 water: any of the 27 neighbours
} dense;

static size_t dense_index(const dense* d, int32_t x, int32_t y, int32_t z)
{
    return (size_t)(x - d->origin[0]) +
           (size_t)d->size[0] *
               ((size_t)(z - d->origin[2]) + (size_t)d->size[2] * (size_t)(y - d->origin[1]));
}

static bool dense_inside(const dense* d, int64_t x, int64_t y, int64_t z)
{
    return x >= d->origin[0] && x < (int64_t)d->origin[0] + d->size[0] && y >= d->origin[1] &&
           y < (int64_t)d->origin[1] + d->size[1] && z >= d->origin[2] &&
           z < (int64_t)d->origin[2] + d->size[2];
}

static uint8_t dense_kind(const dense* d, int64_t x, int64_t y, int64_t z)
{
    return dense_inside(d, x, y, z) ? d->kind[dense_index(d, (int32_t)x, (int32_t)y, (int32_t)z)]
                                    : AIR;
}

static uint8_t dense_dilated(const dense* d, int64_t x, int64_t y, int64_t z)
{
    return dense_inside(d, x, y, z) ? d->dilated[dense_index(d, (int32_t)x, (int32_t)y, (int32_t)z)]
                                    : 0;
}

// Reads the region with vxk_world_get_voxel (the independent path) and dilates by brute force.
// The caller guarantees the terrain outside the region's one-voxel-inset is air.
static int dense_load(dense* d, const vxk_world* world, const int32_t origin[3],
                      const int32_t size[3])
{
    memcpy(d->origin, origin, sizeof(d->origin));
    memcpy(d->size, size, sizeof(d->size));
    size_t n = (size_t)size[0] * (size_t)size[1] * (size_t)size[2];
    d->kind = (uint8_t*)calloc(n, 1);
    d->dilated = (uint8_t*)calloc(n, 1);
    VXK_CHECK(d->kind && d->dilated);
    const vxk_material_table* table = vxk_world_materials(world);
    for (int32_t y = origin[1]; y < origin[1] + size[1]; ++y)
        for (int32_t z = origin[2]; z < origin[2] + size[2]; ++z)
            for (int32_t x = origin[0]; x < origin[0] + size[0]; ++x) {
                uint8_t id = vxk_world_get_voxel(world, (vxk_int3){x, y, z});
                uint8_t k = table->materials[id].kind;
                d->kind[dense_index(d, x, y, z)] = k == VXK_MATERIAL_SOLID   ? SOLID
                                                   : k == VXK_MATERIAL_WATER ? WATER
                                                                             : AIR;
            }
    for (int32_t y = origin[1]; y < origin[1] + size[1]; ++y)
        for (int32_t z = origin[2]; z < origin[2] + size[2]; ++z)
            for (int32_t x = origin[0]; x < origin[0] + size[0]; ++x) {
                uint8_t bits = 0;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz)
                        for (int dx = -1; dx <= 1; ++dx) {
                            uint8_t k = dense_kind(d, x + dx, y + dy, z + dz);
                            bits |= k == SOLID ? 1 : k == WATER ? 2 : 0;
                        }
                d->dilated[dense_index(d, x, y, z)] = bits;
            }
    return 0;
}

static void dense_free(dense* d)
{
    free(d->kind);
    free(d->dilated);
}

// Every chunk touching the region (and one ring around it): the entry equals the brute force.
static int check_masks_brute_force(const vxk_world* world, const dense* d, uint32_t* masked)
{
    int32_t c0[3], c1[3];
    for (int k = 0; k < 3; ++k) {
        c0[k] = (d->origin[k] >> 3) - 1;
        c1[k] = ((d->origin[k] + d->size[k] - 1) >> 3) + 1;
    }
    uint32_t entries_seen = 0;
    *masked = 0;
    for (int32_t cy = c0[1]; cy <= c1[1]; ++cy)
        for (int32_t cz = c0[2]; cz <= c1[2]; ++cz)
            for (int32_t cx = c0[0]; cx <= c1[0]; ++cx) {
                uint64_t solid[8] = {0}, water[8] = {0};
                int counts[3] = {0, 0, 0};
                for (int y = -1; y <= 8; ++y)
                    for (int z = -1; z <= 8; ++z)
                        for (int x = -1; x <= 8; ++x)
                            counts[dense_kind(d, (int64_t)cx * 8 + x, (int64_t)cy * 8 + y,
                                              (int64_t)cz * 8 + z)]++;
                for (int y = 0; y < 8; ++y)
                    for (int z = 0; z < 8; ++z)
                        for (int x = 0; x < 8; ++x) {
                            uint8_t bits = dense_dilated(d, (int64_t)cx * 8 + x,
                                                         (int64_t)cy * 8 + y, (int64_t)cz * 8 + z);
                            if (bits & 1)
                                solid[y] |= 1ull << (x + 8 * z);
                            if (bits & 2)
                                water[y] |= 1ull << (x + 8 * z);
                        }
                uint8_t tag = counts[AIR] == 1000     ? VXK_BROADPHASE_NONE
                              : counts[SOLID] == 1000 ? VXK_BROADPHASE_FULL_SOLID
                              : counts[WATER] == 1000 ? VXK_BROADPHASE_FULL_WATER
                                                      : VXK_BROADPHASE_MASK;
                vxk_broadphase_entry e;
                VXK_CHECK_EQ_INT(vxk_broadphase_get(world, &e, (vxk_int3){cx, cy, cz}), VXK_OK);
                VXK_CHECK_MSG(e.tag == tag, "chunk %d %d %d tag %d, brute force %d", cx, cy, cz,
                              e.tag, tag);
                for (int y = 0; y < 8; ++y) {
                    VXK_CHECK_MSG(e.solid[y] == solid[y], "chunk %d %d %d solid slice %d", cx, cy,
                                  cz, y);
                    VXK_CHECK_MSG(e.water[y] == water[y], "chunk %d %d %d water slice %d", cx, cy,
                                  cz, y);
                }
                entries_seen += tag != VXK_BROADPHASE_NONE;
                *masked += tag == VXK_BROADPHASE_MASK;
            }
    // No entry may exist outside the scanned chunks.
    VXK_CHECK_EQ_U64(vxk_broadphase_get_chunks(world, NULL, 0), entries_seen);
    return 0;
}

// ---- query reference -------------------------------------------------------------------------

static int compare_hits_yzx(const vxk_broadphase_hit* a, const vxk_broadphase_hit* b)
{
    if (a->chunk.y != b->chunk.y)
        return a->chunk.y < b->chunk.y ? -1 : 1;
    if (a->chunk.z != b->chunk.z)
        return a->chunk.z < b->chunk.z ? -1 : 1;
    if (a->chunk.x != b->chunk.x)
        return a->chunk.x < b->chunk.x ? -1 : 1;
    return 0;
}

// Brute force: every voxel cell overlapping (min - 1, max + 1) voxel units with positive volume;
// a chunk is hit solid (water) when any such voxel of it has a solid (water) voxel among its 27
// neighbours. Hits come out in (cy, cz, cx) order. Only voxels inside the dense region can be set.
static uint32_t brute_query(const dense* d, float voxel_size, vxk_aabb box, vxk_broadphase_hit* out,
                            uint32_t capacity)
{
    double a[3] = {(double)box.min.x / voxel_size, (double)box.min.y / voxel_size,
                   (double)box.min.z / voxel_size};
    double b[3] = {(double)box.max.x / voxel_size, (double)box.max.y / voxel_size,
                   (double)box.max.z / voxel_size};
    int64_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = INT64_MAX;
        hi[k] = INT64_MIN;
        for (int64_t v = (int64_t)floor(a[k]) - 3; v <= (int64_t)ceil(b[k]) + 3; ++v) {
            if ((double)(v + 1) > a[k] - 1.0 && (double)v < b[k] + 1.0) {
                lo[k] = v < lo[k] ? v : lo[k];
                hi[k] = v > hi[k] ? v : hi[k];
            }
        }
        // Restrict to the dense region: nothing outside it is set.
        int64_t r0 = d->origin[k], r1 = (int64_t)d->origin[k] + d->size[k] - 1;
        lo[k] = lo[k] < r0 ? r0 : lo[k];
        hi[k] = hi[k] > r1 ? r1 : hi[k];
        if (lo[k] > hi[k])
            return 0;
    }
    uint32_t n = 0;
    for (int64_t cy = lo[1] >> 3; cy <= hi[1] >> 3; ++cy)
        for (int64_t cz = lo[2] >> 3; cz <= hi[2] >> 3; ++cz)
            for (int64_t cx = lo[0] >> 3; cx <= hi[0] >> 3; ++cx) {
                uint32_t flags = 0;
                for (int64_t y = (cy * 8 > lo[1] ? cy * 8 : lo[1]);
                     y <= (cy * 8 + 7 < hi[1] ? cy * 8 + 7 : hi[1]); ++y)
                    for (int64_t z = (cz * 8 > lo[2] ? cz * 8 : lo[2]);
                         z <= (cz * 8 + 7 < hi[2] ? cz * 8 + 7 : hi[2]); ++z)
                        for (int64_t x = (cx * 8 > lo[0] ? cx * 8 : lo[0]);
                             x <= (cx * 8 + 7 < hi[0] ? cx * 8 + 7 : hi[0]); ++x)
                            flags |= dense_dilated(d, x, y, z);
                if (flags) {
                    if (n < capacity)
                        out[n] =
                            (vxk_broadphase_hit){{(int32_t)cx, (int32_t)cy, (int32_t)cz}, flags};
                    ++n;
                }
            }
    return n;
}

// A random query box over the dense region: small and large, snapped to voxel boundaries or to
// chunk borders now and then, sometimes degenerate (a point or a flat box).
static vxk_aabb random_box(uint64_t* rng, const dense* d, float voxel_size)
{
    float p[2][3];
    uint32_t mode = (uint32_t)(vxk_test_rand(rng) % 8);
    for (int k = 0; k < 3; ++k) {
        float lo = (float)(d->origin[k] - 2), hi = (float)(d->origin[k] + d->size[k] + 2);
        float c = vxk_test_randf(rng, lo, hi);
        float extent =
            mode < 5 ? vxk_test_randf(rng, 0.0f, 4.0f) : vxk_test_randf(rng, 0.0f, 20.0f);
        float a = c, b = c + extent;
        if (mode == 2 || mode == 6) { // voxel boundaries
            a = floorf(a);
            b = ceilf(b);
        } else if (mode == 3) { // chunk borders
            a = 8.0f * floorf(a / 8.0f);
            b = a + 8.0f * (float)(1 + vxk_test_rand(rng) % 2);
        } else if (mode == 4) { // a point on a chunk border
            a = b = 8.0f * floorf(a / 8.0f);
        } else if (mode == 7 && k == 1) { // flat
            b = a;
        }
        p[0][k] = a * voxel_size;
        p[1][k] = b * voxel_size;
    }
    return (vxk_aabb){{p[0][0], p[0][1], p[0][2]}, {p[1][0], p[1][1], p[1][2]}};
}

static int check_queries(const vxk_world* world, const dense* d, float voxel_size, uint64_t seed,
                         uint32_t count, uint32_t* total_hits)
{
    enum { CAP = 4096 };
    static vxk_broadphase_hit got[CAP], want[CAP];
    uint64_t rng = seed;
    for (uint32_t q = 0; q < count; ++q) {
        vxk_aabb box = random_box(&rng, d, voxel_size);
        uint32_t n = 0;
        vxk_status s = vxk_broadphase_query_aabb(world, got, CAP, &n, box);
        VXK_CHECK_EQ_INT(s, VXK_OK);
        uint32_t m = brute_query(d, voxel_size, box, want, CAP);
        VXK_CHECK_MSG(n == m, "query %u (%g %g %g)-(%g %g %g): %u hits, brute force %u", q,
                      (double)box.min.x, (double)box.min.y, (double)box.min.z, (double)box.max.x,
                      (double)box.max.y, (double)box.max.z, n, m);
        for (uint32_t i = 0; i < n; ++i) {
            VXK_CHECK_MSG(compare_hits_yzx(&got[i], &want[i]) == 0 && got[i].flags == want[i].flags,
                          "query %u hit %u: chunk %d %d %d flags %u, brute %d %d %d flags %u", q, i,
                          got[i].chunk.x, got[i].chunk.y, got[i].chunk.z, got[i].flags,
                          want[i].chunk.x, want[i].chunk.y, want[i].chunk.z, want[i].flags);
        }
        *total_hits += n;
    }
    return 0;
}

// ---- tests -----------------------------------------------------------------------------------

static const int32_t g_origin[3] = {-44, -28, -44};
static const int32_t g_size[3] = {88, 56, 88};
static const int g_fill_lo[3] = {-40, -24, -40}; // one voxel inside the dense region or more
static const int g_fill_hi[3] = {39, 23, 39};

// vxk_broadphase_compute (no storage) equals the stored entries, for entries and random chunks.
static int check_compute_equals_get(const vxk_world* world, uint64_t* rng)
{
    enum { N = 2048 };
    static vxk_int3 chunks[N];
    static vxk_broadphase_entry computed[N];
    uint32_t listed = vxk_broadphase_get_chunks(world, chunks, N / 2);
    uint32_t n = listed < N / 2 ? listed : N / 2;
    while (n < N)
        chunks[n++] = (vxk_int3){(int32_t)(vxk_test_rand(rng) % 14) - 7,
                                 (int32_t)(vxk_test_rand(rng) % 10) - 5,
                                 (int32_t)(vxk_test_rand(rng) % 14) - 7};
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(world, computed, chunks, N), VXK_OK);
    for (uint32_t i = 0; i < N; ++i) {
        vxk_broadphase_entry stored;
        VXK_CHECK_EQ_INT(vxk_broadphase_get(world, &stored, chunks[i]), VXK_OK);
        VXK_CHECK_MSG(memcmp(&stored, &computed[i], sizeof(stored)) == 0,
                      "compute differs from the stored entry at chunk %d %d %d", chunks[i].x,
                      chunks[i].y, chunks[i].z);
    }
    vxk_int3 far = {0, -(1 << 28) - 1, 0};
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(world, computed, &far, 1), VXK_ERR_OUT_OF_RANGE);
    return 0;
}

static int test_random_world_masks_and_queries(void)
{
    const float voxel_sizes[2] = {1.0f, 0.5f};
    const uint32_t total = VXK_TEST_SLOW ? 10000 : 100000;
    uint32_t hits = 0;
    for (int w = 0; w < 2; ++w) {
        test_world t;
        if (world_open(&t, 2, voxel_sizes[w]))
            return 1;
        uint64_t rng = 0xB0A7 + (uint64_t)w;
        if (random_fills(t.world, &rng, 120, g_fill_lo, g_fill_hi, 24))
            return 1;
        VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
        dense d;
        if (dense_load(&d, t.world, g_origin, g_size))
            return 1;
        uint32_t masked = 0;
        if (check_masks_brute_force(t.world, &d, &masked))
            return 1;
        VXK_CHECK_MSG(masked > 50, "only %u masked chunks", masked);
        if (check_compute_equals_get(t.world, &rng))
            return 1;
        if (check_queries(t.world, &d, voxel_sizes[w], 0x9E + (uint64_t)w, total / 2, &hits))
            return 1;
        dense_free(&d);
        world_close(&t);
    }
    VXK_CHECK_MSG(hits > total, "queries found only %u hits", hits);
    return 0;
}

static int test_generated_world(void)
{
    test_world t;
    if (world_open(&t, 2, 1.0f))
        return 1;
    vxk_worldgen_def def = vxk_scene_worldgen_def((vxk_int3){64, 48, 64}, 7);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(t.world, &def), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
    dense d;
    const int32_t origin[3] = {-2, -2, -2}, size[3] = {68, 52, 68};
    if (dense_load(&d, t.world, origin, size))
        return 1;
    uint32_t masked = 0, hits = 0;
    if (check_masks_brute_force(t.world, &d, &masked))
        return 1;
    VXK_CHECK(masked > 20);
    if (check_queries(t.world, &d, 1.0f, 0x6E11, VXK_TEST_SLOW ? 5000 : 30000, &hits))
        return 1;
    VXK_CHECK(hits > 1000);
    dense_free(&d);
    world_close(&t);
    return 0;
}

// One voxel on a chunk's face, edge or corner reaches exactly the chunks whose 10^3 box holds it.
static int test_single_border_voxels(void)
{
    const int32_t positions[][3] = {
        {3, 4, 5},   {0, 4, 5}, {-1, 4, 5},   {7, -8, 3}, {0, 0, 5},
        {-8, -1, 7}, {0, 0, 0}, {-1, -1, -1}, {7, 7, 7},  {-9, 15, -16},
    };
    for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); ++i) {
        for (int m = 0; m < 2; ++m) {
            test_world t;
            if (world_open(&t, 1, 1.0f))
                return 1;
            const int32_t* p = positions[i];
            int64_t a[3] = {p[0], p[1], p[2]};
            VXK_CHECK_EQ_INT(
                vxk_world_fill_box(t.world, vxk_test_box(a, a), m ? VXK_MAT_WATER : VXK_MAT_STONE),
                VXK_OK);
            VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
            int border = 0;
            for (int k = 0; k < 3; ++k)
                border += (p[k] & 7) == 0 || (p[k] & 7) == 7;
            vxk_int3 list[16];
            uint32_t count = vxk_broadphase_get_chunks(t.world, list, 16);
            VXK_CHECK_EQ_U64(count, 1u << border);
            for (uint32_t e = 0; e < count; ++e) {
                vxk_broadphase_entry entry;
                vxk_broadphase_get(t.world, &entry, list[e]);
                VXK_CHECK_EQ_INT(entry.tag, VXK_BROADPHASE_MASK);
                // The voxel's own chunk-local bit (clamped into this chunk) is set.
                int32_t lx = p[0] - list[e].x * 8, ly = p[1] - list[e].y * 8,
                        lz = p[2] - list[e].z * 8;
                lx = lx < 0 ? 0 : lx > 7 ? 7 : lx;
                ly = ly < 0 ? 0 : ly > 7 ? 7 : ly;
                lz = lz < 0 ? 0 : lz > 7 ? 7 : lz;
                const uint64_t* mask = m ? entry.water : entry.solid;
                const uint64_t* other = m ? entry.solid : entry.water;
                VXK_CHECK((mask[ly] >> (lx + 8 * lz)) & 1);
                for (int y = 0; y < 8; ++y)
                    VXK_CHECK_EQ_U64(other[y], 0);
            }
            dense d;
            const int32_t origin[3] = {p[0] - 12, p[1] - 12, p[2] - 12}, size[3] = {24, 24, 24};
            if (dense_load(&d, t.world, origin, size))
                return 1;
            uint32_t masked = 0;
            if (check_masks_brute_force(t.world, &d, &masked))
                return 1;
            dense_free(&d);
            world_close(&t);
        }
    }
    return 0;
}

typedef struct content {
    vxk_int3* coords;
    vxk_broadphase_entry* entries;
    uint32_t count;
    uint64_t hash;
} content;

static int content_read(content* c, const vxk_world* world)
{
    uint32_t n = vxk_broadphase_get_chunks(world, NULL, 0);
    c->coords = (vxk_int3*)malloc((size_t)(n ? n : 1) * sizeof(vxk_int3));
    c->entries = (vxk_broadphase_entry*)malloc((size_t)(n ? n : 1) * sizeof(vxk_broadphase_entry));
    VXK_CHECK(c->coords && c->entries);
    c->count = vxk_broadphase_get_chunks(world, c->coords, n);
    VXK_CHECK_EQ_U64(c->count, n);
    for (uint32_t i = 0; i < n; ++i)
        VXK_CHECK_EQ_INT(vxk_broadphase_get(world, &c->entries[i], c->coords[i]), VXK_OK);
    c->hash = vxk_broadphase_hash(world);
    return 0;
}

static int content_equal(const content* a, const content* b)
{
    VXK_CHECK_EQ_U64(a->count, b->count);
    VXK_CHECK_EQ_U64(a->hash, b->hash);
    for (uint32_t i = 0; i < a->count; ++i) {
        VXK_CHECK(memcmp(&a->coords[i], &b->coords[i], sizeof(vxk_int3)) == 0);
        VXK_CHECK(memcmp(&a->entries[i], &b->entries[i], sizeof(vxk_broadphase_entry)) == 0);
    }
    return 0;
}

static void content_free(content* c)
{
    free(c->coords);
    free(c->entries);
}

// Same world, 1, 2, 3 and 8 workers: the same content and hash, built and updated.
static int test_worker_counts_identical(void)
{
    const uint32_t workers[4] = {1, 2, 3, 8};
    content reference;
    memset(&reference, 0, sizeof(reference));
    for (int w = 0; w < 4; ++w) {
        test_world t;
        if (world_open(&t, workers[w], 1.0f))
            return 1;
        vxk_worldgen_def def = vxk_scene_worldgen_def((vxk_int3){96, 48, 80}, 3);
        VXK_CHECK_EQ_INT(vxk_worldgen_run(t.world, &def), VXK_OK);
        uint64_t rng = 0xF111;
        const int lo[3] = {-20, -10, -20}, hi[3] = {110, 60, 100};
        if (random_fills(t.world, &rng, 40, lo, hi, 30))
            return 1;
        VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
        if (random_fills(t.world, &rng, 30, lo, hi, 12))
            return 1;
        VXK_CHECK_EQ_INT(vxk_world_step(t.world, 0.0f), VXK_OK);
        content c;
        if (content_read(&c, t.world))
            return 1;
        VXK_CHECK(c.count > 100);
        if (w == 0)
            reference = c;
        else {
            if (content_equal(&reference, &c))
                return 1;
            content_free(&c);
        }
        world_close(&t);
    }
    content_free(&reference);
    return 0;
}

// Updates after random fills (dirty list, explicit lists, duplicates) equal a full rebuild and
// the brute force.
static int test_update_equals_rebuild(void)
{
    test_world t;
    if (world_open(&t, 3, 1.0f))
        return 1;
    uint64_t rng = 0x0DD;
    if (random_fills(t.world, &rng, 80, g_fill_lo, g_fill_hi, 20))
        return 1;
    VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
    const int rounds = VXK_TEST_SLOW ? 10 : 40;
    for (int r = 0; r < rounds; ++r) {
        int fills = 1 + (int)(vxk_test_rand(&rng) % 6);
        if (r % 3 == 0) {
            if (random_fills(t.world, &rng, fills, g_fill_lo, g_fill_hi, 1 + r % 17))
                return 1;
            VXK_CHECK_EQ_INT(vxk_world_step(t.world, 0.0f), VXK_OK);
        } else {
            // An explicit list of the filled boxes' chunks, reversed, with duplicates.
            static vxk_int3 chunks[8192];
            uint32_t n = 0;
            if (random_fills_listed(t.world, &rng, fills, g_fill_lo, g_fill_hi, 1 + r % 17, chunks,
                                    4096, &n))
                return 1;
            for (uint32_t i = 0; i < n; ++i)
                chunks[n + i] = chunks[n - 1 - i];
            VXK_CHECK_EQ_INT(vxk_broadphase_update(t.world, chunks + n / 2, 2 * n - n / 2), VXK_OK);
        }
        content updated, rebuilt;
        if (content_read(&updated, t.world))
            return 1;
        if (r % 5 == 4) {
            dense d;
            uint32_t masked;
            if (dense_load(&d, t.world, g_origin, g_size) ||
                check_masks_brute_force(t.world, &d, &masked))
                return 1;
            dense_free(&d);
        }
        VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
        if (content_read(&rebuilt, t.world) || content_equal(&updated, &rebuilt))
            return 1;
        content_free(&updated);
        content_free(&rebuilt);
    }
    world_close(&t);
    return 0;
}

// Batch queries equal single queries, in input order, for any worker count; capacity errors.
static int test_batch_equals_single(void)
{
    enum { BOXES = 3000, CAP = 1 << 18 };
    static vxk_aabb boxes[BOXES];
    static uint32_t offsets[BOXES + 1];
    static vxk_broadphase_hit batch[CAP], single[4096];
    const uint32_t workers[3] = {1, 2, 8};
    for (int w = 0; w < 3; ++w) {
        test_world t;
        if (world_open(&t, workers[w], 1.0f))
            return 1;
        uint64_t rng = 0xBA7C4;
        if (random_fills(t.world, &rng, 100, g_fill_lo, g_fill_hi, 24))
            return 1;
        VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
        dense d;
        memcpy(d.origin, g_origin, sizeof(d.origin));
        memcpy(d.size, g_size, sizeof(d.size));
        for (int i = 0; i < BOXES; ++i)
            boxes[i] = random_box(&rng, &d, 1.0f);
        VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(t.world, batch, CAP, offsets, boxes, BOXES),
                         VXK_OK);
        VXK_CHECK_EQ_U64(offsets[0], 0);
        for (int i = 0; i < BOXES; ++i) {
            uint32_t n = 0;
            VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, single, 4096, &n, boxes[i]),
                             VXK_OK);
            VXK_CHECK_EQ_U64(offsets[i + 1] - offsets[i], n);
            VXK_CHECK(memcmp(batch + offsets[i], single, (size_t)n * sizeof(single[0])) == 0);
        }
        uint32_t total = offsets[BOXES];
        VXK_CHECK(total > BOXES / 2);
        // Too small: VXK_ERR_CAPACITY, offsets still give the needed size.
        VXK_CHECK_EQ_INT(
            vxk_broadphase_query_batch(t.world, batch, total - 1, offsets, boxes, BOXES),
            VXK_ERR_CAPACITY);
        VXK_CHECK_EQ_U64(offsets[BOXES], total);
        uint32_t n = 0;
        VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(t.world, batch, CAP, offsets, boxes, 0),
                         VXK_OK);
        VXK_CHECK_EQ_U64(offsets[0], 0);
        (void)n;
        world_close(&t);
    }
    return 0;
}

// NaN/Inf, inverted boxes, coordinates beyond the int32 voxel space, NULLs, capacity; boxes that
// cover the whole world take the entry-scan path and still equal the per-entry reference.
static int test_bad_input_and_huge_boxes(void)
{
    test_world t;
    if (world_open(&t, 2, 1.0f))
        return 1;
    vxk_broadphase_hit hits[4096];
    uint32_t n = 7;
    vxk_aabb ok = {{0, 0, 0}, {1, 1, 1}};
    // Before any build: no entries, no hits.
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, hits, 16, &n, ok), VXK_OK);
    VXK_CHECK_EQ_U64(n, 0);
    uint64_t rng = 0x5EED;
    if (random_fills(t.world, &rng, 60, g_fill_lo, g_fill_hi, 24))
        return 1;
    VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
    const float nan = nanf(""), inf = INFINITY;
    vxk_aabb bad[] = {
        {{nan, 0, 0}, {1, 1, 1}},   {{0, 0, 0}, {1, inf, 1}}, {{-inf, 0, 0}, {1, 1, 1}},
        {{0, 0, 2}, {1, 1, 1}},     {{5, 0, 0}, {1, 1, 1}},   {{0, 0, 0}, {1, 3e9f, 1}},
        {{-3e9f, 0, 0}, {1, 1, 1}},
    };
    const vxk_status expected[] = {VXK_ERR_NOT_FINITE,       VXK_ERR_NOT_FINITE,
                                   VXK_ERR_NOT_FINITE,       VXK_ERR_INVALID_ARGUMENT,
                                   VXK_ERR_INVALID_ARGUMENT, VXK_ERR_OUT_OF_RANGE,
                                   VXK_ERR_OUT_OF_RANGE};
    uint32_t offsets[4];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        n = 7;
        VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, hits, 16, &n, bad[i]), expected[i]);
        VXK_CHECK_EQ_U64(n, 0);
        vxk_aabb batch[3] = {ok, bad[i], ok};
        VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(t.world, hits, 16, offsets, batch, 3),
                         expected[i]);
    }
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(NULL, hits, 16, &n, ok), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, NULL, 16, &n, ok),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, hits, 16, NULL, ok),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(t.world, hits, 16, NULL, &ok, 1),
                     VXK_ERR_INVALID_ARGUMENT);
    vxk_int3 far = {1 << 28, 0, 0};
    VXK_CHECK_EQ_INT(vxk_broadphase_update(t.world, &far, 1), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_broadphase_update(t.world, NULL, 1), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(NULL), VXK_ERR_INVALID_ARGUMENT);

    // Whole-world boxes (scan path) and the same through the range path.
    content c;
    if (content_read(&c, t.world))
        return 1;
    vxk_broadphase_hit want[4096];
    uint32_t m = 0;
    for (uint32_t i = 0; i < c.count; ++i) {
        uint64_t s = 0, w = 0;
        for (int y = 0; y < 8; ++y) {
            s |= c.entries[i].solid[y];
            w |= c.entries[i].water[y];
        }
        uint32_t flags = (s ? VXK_BROADPHASE_HIT_SOLID : 0u) | (w ? VXK_BROADPHASE_HIT_WATER : 0u);
        if (flags && m < 4096)
            want[m++] = (vxk_broadphase_hit){c.coords[i], flags};
    }
    vxk_aabb huge[] = {
        {{-2e9f, -2e9f, -2e9f}, {2e9f, 2e9f, 2e9f}},
        {{-2147483648.0f, -1000, -1000}, {2147483648.0f, 1000, 1000}},
        {{-200, -200, -200}, {200, 200, 200}},
    };
    for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); ++i) {
        VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, hits, 4096, &n, huge[i]), VXK_OK);
        VXK_CHECK_EQ_U64(n, m);
        VXK_CHECK(memcmp(hits, want, (size_t)m * sizeof(hits[0])) == 0);
        // Capacity: the first hits in order, the full count, VXK_ERR_CAPACITY.
        VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(t.world, hits, 5, &n, huge[i]),
                         VXK_ERR_CAPACITY);
        VXK_CHECK_EQ_U64(n, m);
        VXK_CHECK(memcmp(hits, want, 5 * sizeof(hits[0])) == 0);
    }
    content_free(&c);
    world_close(&t);
    return 0;
}

// ---- swept queries ---------------------------------------------------------------------------

enum { SWEEP_CAP = 1 << 16 };
static vxk_broadphase_hit g_sweep_hits[SWEEP_CAP], g_box_hits[SWEEP_CAP], g_union[SWEEP_CAP];

static uint32_t sweep_query(const vxk_world* world, vxk_broadphase_sweep sweep,
                            vxk_broadphase_hit* out, vxk_status* status)
{
    uint32_t offsets[2] = {0, 0};
    *status = vxk_broadphase_query_sweep_batch(world, out, SWEEP_CAP, offsets, &sweep, 1);
    return offsets[1];
}

static vxk_aabb sweep_bounds(vxk_broadphase_sweep w)
{
    vxk_vec3 end_min = {w.box.min.x + w.motion.x, w.box.min.y + w.motion.y,
                        w.box.min.z + w.motion.z};
    vxk_vec3 end_max = {w.box.max.x + w.motion.x, w.box.max.y + w.motion.y,
                        w.box.max.z + w.motion.z};
    return (vxk_aabb){{fminf(w.box.min.x, end_min.x), fminf(w.box.min.y, end_min.y),
                       fminf(w.box.min.z, end_min.z)},
                      {fmaxf(w.box.max.x, end_max.x), fmaxf(w.box.max.y, end_max.y),
                       fmaxf(w.box.max.z, end_max.z)}};
}

// The index of chunk c in a (cy, cz, cx) sorted list, or -1.
static int64_t find_hit(const vxk_broadphase_hit* list, uint32_t n, vxk_int3 c)
{
    uint32_t lo = 0, hi = n;
    vxk_broadphase_hit key = {c, 0};
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        int order = compare_hits_yzx(&list[mid], &key);
        if (order == 0)
            return mid;
        if (order < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int same_hits(const vxk_broadphase_hit* a, uint32_t na, const vxk_broadphase_hit* b,
                     uint32_t nb, const char* what, uint32_t q)
{
    VXK_CHECK_MSG(na == nb, "%s %u: %u hits, expected %u", what, q, na, nb);
    for (uint32_t i = 0; i < na; ++i)
        VXK_CHECK_MSG(compare_hits_yzx(&a[i], &b[i]) == 0 && a[i].flags == b[i].flags,
                      "%s %u hit %u: chunk %d %d %d flags %u, expected %d %d %d flags %u", what, q,
                      i, a[i].chunk.x, a[i].chunk.y, a[i].chunk.z, a[i].flags, b[i].chunk.x,
                      b[i].chunk.y, b[i].chunk.z, b[i].flags);
    return 0;
}

// A sweep's hits against the box queries along its motion: sorted without duplicates; every hit
// of the box at any of the sampled points of the motion is a hit (flags included); every hit is
// a hit of the box grown by the samples' spacing and a chunk (the flags read the cells the box
// covers while it crosses a chunk) at one of them.
static int check_sweep_bounds(const vxk_world* world, vxk_broadphase_sweep w, uint32_t q)
{
    vxk_status st;
    uint32_t n = sweep_query(world, w, g_sweep_hits, &st);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    for (uint32_t i = 1; i < n; ++i)
        VXK_CHECK(compare_hits_yzx(&g_sweep_hits[i - 1], &g_sweep_hits[i]) < 0);
    float length =
        sqrtf(w.motion.x * w.motion.x + w.motion.y * w.motion.y + w.motion.z * w.motion.z);
    uint32_t samples = 1 + (uint32_t)ceilf(2.0f * length);
    float grow = length / (float)samples + 9.0f;
    uint32_t united = 0;
    for (uint32_t i = 0; i <= samples; ++i) {
        float u = (float)i / (float)samples;
        vxk_vec3 at = {w.motion.x * u, w.motion.y * u, w.motion.z * u};
        vxk_aabb box = {{w.box.min.x + at.x, w.box.min.y + at.y, w.box.min.z + at.z},
                        {w.box.max.x + at.x, w.box.max.y + at.y, w.box.max.z + at.z}};
        uint32_t m = 0;
        VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(world, g_box_hits, SWEEP_CAP, &m, box), VXK_OK);
        for (uint32_t k = 0; k < m; ++k) {
            int64_t j = find_hit(g_sweep_hits, n, g_box_hits[k].chunk);
            VXK_CHECK_MSG(j >= 0 && (g_box_hits[k].flags & ~g_sweep_hits[j].flags) == 0,
                          "sweep %u misses chunk %d %d %d (flags %u) of its box at u %g", q,
                          g_box_hits[k].chunk.x, g_box_hits[k].chunk.y, g_box_hits[k].chunk.z,
                          g_box_hits[k].flags, (double)u);
        }
        vxk_aabb grown = {{box.min.x - grow, box.min.y - grow, box.min.z - grow},
                          {box.max.x + grow, box.max.y + grow, box.max.z + grow}};
        VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(world, g_box_hits, SWEEP_CAP, &m, grown),
                         VXK_OK);
        for (uint32_t k = 0; k < m; ++k) { // the union, unsorted, flags merged
            uint32_t j = 0;
            while (j < united && compare_hits_yzx(&g_union[j], &g_box_hits[k]) != 0)
                ++j;
            if (j == united)
                g_union[united++] = g_box_hits[k];
            else
                g_union[j].flags |= g_box_hits[k].flags;
        }
    }
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t j = 0;
        while (j < united && compare_hits_yzx(&g_union[j], &g_sweep_hits[i]) != 0)
            ++j;
        VXK_CHECK_MSG(j < united && (g_sweep_hits[i].flags & ~g_union[j].flags) == 0,
                      "sweep %u hit chunk %d %d %d (flags %u) far from its motion", q,
                      g_sweep_hits[i].chunk.x, g_sweep_hits[i].chunk.y, g_sweep_hits[i].chunk.z,
                      g_sweep_hits[i].flags);
    }
    return 0;
}

// vxk_broadphase_query_sweep_batch: without motion exactly the box query; along one axis
// exactly the query of the box it sweeps; along any direction within the bounds above; the walk
// over the chunks it crosses equal to the scan of the entries (the same sweeps in a world with
// far terrain added, where the walk is cheaper); a batch equal to single sweeps.
static int test_sweep_queries(void)
{
    const uint32_t count = VXK_TEST_SLOW ? 60 : 300;
    test_world t, far;
    if (world_open(&t, 2, 1.0f) || world_open(&far, 1, 1.0f))
        return 1;
    uint64_t rng = 0x5EE9;
    uint64_t rng_far = rng;
    if (random_fills(t.world, &rng, 40, g_fill_lo, g_fill_hi, 24) ||
        random_fills(far.world, &rng_far, 40, g_fill_lo, g_fill_hi, 24))
        return 1;
    VXK_CHECK_EQ_INT(vxk_world_fill_box(far.world,
                                        (vxk_int_box){{-1024, -4000, -1024}, {1023, -3993, 1023}},
                                        VXK_MAT_STONE),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(far.world), VXK_OK);
    dense d;
    memcpy(d.origin, g_origin, sizeof(d.origin));
    memcpy(d.size, g_size, sizeof(d.size));
    static vxk_broadphase_sweep batch[64];
    static uint32_t offsets[65];
    static vxk_broadphase_hit batch_hits[SWEEP_CAP];
    uint64_t hits = 0;
    for (uint32_t q = 0; q < count; ++q) {
        vxk_broadphase_sweep w = {random_box(&rng, &d, 1.0f), {0, 0, 0}};
        uint32_t kind = q % 4;
        float reach = q % 8 < 4 ? 12.0f : q % 8 < 6 ? 120.0f : 400.0f;
        float m[3] = {0, 0, 0};
        if (kind == 1)
            m[vxk_test_rand(&rng) % 3] = vxk_test_randf(&rng, -reach, reach);
        else if (kind >= 2)
            for (int k = 0; k < 3; ++k)
                m[k] = vxk_test_randf(&rng, -reach, reach);
        w.motion = (vxk_vec3){m[0], m[1], m[2]};
        if (reach > 200.0f) { // wide and long: through the scan of the entries
            w.box.min = (vxk_vec3){w.box.min.x - 12, w.box.min.y - 12, w.box.min.z - 12};
            w.box.max = (vxk_vec3){w.box.max.x + 12, w.box.max.y + 12, w.box.max.z + 12};
        }
        vxk_status st;
        uint32_t n = sweep_query(t.world, w, g_sweep_hits, &st);
        VXK_CHECK_EQ_INT(st, VXK_OK);
        hits += n;
        if (kind <= 1) {
            uint32_t want = 0;
            VXK_CHECK_EQ_INT(
                vxk_broadphase_query_aabb(t.world, g_box_hits, SWEEP_CAP, &want, sweep_bounds(w)),
                VXK_OK);
            if (same_hits(g_sweep_hits, n, g_box_hits, want, "axis sweep", q))
                return 1;
        } else if (check_sweep_bounds(t.world, w, q)) {
            return 1;
        }
        uint32_t n_far = sweep_query(far.world, w, g_box_hits, &st);
        VXK_CHECK_EQ_INT(st, VXK_OK);
        if (same_hits(g_box_hits, n_far, g_sweep_hits, n, "sweep with far terrain", q))
            return 1;
        batch[q % 64] = w;
        if (q % 64 == 63) {
            VXK_CHECK_EQ_INT(vxk_broadphase_query_sweep_batch(t.world, batch_hits, SWEEP_CAP,
                                                              offsets, batch, 64),
                             VXK_OK);
            for (uint32_t i = 0; i < 64; ++i) {
                uint32_t one = sweep_query(t.world, batch[i], g_sweep_hits, &st);
                if (same_hits(batch_hits + offsets[i], offsets[i + 1] - offsets[i], g_sweep_hits,
                              one, "batch sweep", i))
                    return 1;
            }
        }
    }
    VXK_CHECK_MSG(hits > count, "sweeps found only %llu hits", (unsigned long long)hits);
    world_close(&t);
    world_close(&far);
    return 0;
}

// A long diagonal sweep over a plain gives the chunks along its path (as many as its length),
// where the box around it gives the square of that; past the ends of the int32 range a sweep
// finds nothing and is not refused; bad input.
static int test_sweep_cost_and_edges(void)
{
    test_world t;
    if (world_open(&t, 1, 1.0f))
        return 1;
    VXK_CHECK_EQ_INT(
        vxk_world_fill_box(t.world, (vxk_int_box){{-512, -8, -512}, {511, -1, 511}}, VXK_MAT_STONE),
        VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(t.world,
                                        (vxk_int_box){{INT32_MAX - 20, -8, -8}, {INT32_MAX, -1, 7}},
                                        VXK_MAT_STONE),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(t.world), VXK_OK);
    vxk_broadphase_sweep diagonal = {{{-500, 0, -500}, {-499, 1, -499}}, {990, 0, 990}};
    vxk_status st;
    uint32_t n = sweep_query(t.world, diagonal, g_sweep_hits, &st), m = 0;
    VXK_CHECK_EQ_INT(st, VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_broadphase_query_aabb(t.world, g_box_hits, SWEEP_CAP, &m, sweep_bounds(diagonal)),
        VXK_OK);
    // (Two layers of chunks hold the plain's top; a diagonal crosses about 3 chunks per step.)
    VXK_CHECK_MSG(n >= 124 && n <= 8 * 125, "the diagonal sweep hits %u chunks", n);
    VXK_CHECK_MSG(m >= 124 * 124, "the box around it hits %u", m);
    // Across the high end of the range along x: the chunks up to it, as the box up to it.
    vxk_broadphase_sweep across = {{{2147483520.0f, -1, -1}, {2147483520.0f, 1, 1}}, {1e10f, 0, 0}};
    n = sweep_query(t.world, across, g_sweep_hits, &st);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_broadphase_query_aabb(t.world, g_box_hits, SWEEP_CAP, &m,
                                  (vxk_aabb){{2147483520.0f, -1, -1}, {2147483648.0f, 1, 1}}),
        VXK_OK);
    VXK_CHECK(m > 0);
    if (same_hits(g_sweep_hits, n, g_box_hits, m, "across the end", 0))
        return 1;
    vxk_broadphase_sweep beyond[] = {
        {{{3e9f, 0, 0}, {3e9f, 1, 1}}, {1e9f, 0, 0}},
        {{{-1e30f, -1e30f, -1e30f}, {-1e29f, -1e29f, -1e29f}}, {0, 0, 0}},
        {{{0, 3e9f, 0}, {1, 3e9f, 1}}, {0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); ++i) {
        VXK_CHECK_EQ_U64(sweep_query(t.world, beyond[i], g_sweep_hits, &st), 0);
        VXK_CHECK_EQ_INT(st, VXK_OK);
    }
    // Through the whole range: the entries it crosses, from both ends.
    vxk_broadphase_sweep through = {{{-3e9f, -2, -2}, {-3e9f, 0, 0}}, {6e9f, 0, 0}};
    n = sweep_query(t.world, through, g_sweep_hits, &st);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    VXK_CHECK(n > 128 && find_hit(g_sweep_hits, n, (vxk_int3){(1 << 28) - 1, -1, -1}) >= 0);
    // Bad input: nothing written, the first bad sweep's status.
    const float nan = nanf("");
    vxk_broadphase_sweep ok = {{{0, 0, 0}, {1, 1, 1}}, {0, 0, 0}};
    vxk_broadphase_sweep bad[] = {
        {{{nan, 0, 0}, {1, 1, 1}}, {0, 0, 0}},
        {{{0, 0, 0}, {1, 1, 1}}, {0, INFINITY, 0}},
        {{{0, 2, 0}, {1, 1, 1}}, {0, 0, 0}},
    };
    const vxk_status expected[] = {VXK_ERR_NOT_FINITE, VXK_ERR_NOT_FINITE,
                                   VXK_ERR_INVALID_ARGUMENT};
    uint32_t offsets[4];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        vxk_broadphase_sweep three[3] = {ok, bad[i], ok};
        VXK_CHECK_EQ_INT(
            vxk_broadphase_query_sweep_batch(t.world, g_sweep_hits, 16, offsets, three, 3),
            expected[i]);
    }
    VXK_CHECK_EQ_INT(vxk_broadphase_query_sweep_batch(NULL, g_sweep_hits, 16, offsets, &ok, 1),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_sweep_batch(t.world, g_sweep_hits, 16, NULL, &ok, 1),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_sweep_batch(t.world, NULL, 16, offsets, &ok, 1),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_sweep_batch(t.world, g_sweep_hits, 16, offsets, NULL, 1),
                     VXK_ERR_INVALID_ARGUMENT);
    // Short: VXK_ERR_CAPACITY with the offsets giving the size needed.
    VXK_CHECK_EQ_INT(
        vxk_broadphase_query_sweep_batch(t.world, g_sweep_hits, 3, offsets, &diagonal, 1),
        VXK_ERR_CAPACITY);
    VXK_CHECK(offsets[1] >= 124);
    world_close(&t);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static int test_broadphase_edges(void)
{
    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    snapshot s0 = snap(w);

    VXK_CHECK_EQ_INT(vxk_broadphase_update(NULL, NULL, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_update(w, NULL, 3), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_world_step(NULL, 0.0f), VXK_ERR_INVALID_ARGUMENT);
    const int32_t outside[] = {INT32_MAX, INT32_MIN, 1 << 28, -(1 << 28) - 1};
    vxk_broadphase_entry entries[4];
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < 4; ++i) {
            vxk_int3 chunks[3] = {{0, 0, 0}, {1, 1, 1}, {0, 0, 0}};
            (&chunks[1].x)[a] = outside[i];
            VXK_CHECK_EQ_INT(vxk_broadphase_update(w, chunks, 3), VXK_ERR_OUT_OF_RANGE);
            memset(entries, CANARY, sizeof(entries));
            VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, entries, chunks, 3), VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(entries, sizeof(entries)));
            // Chunks past the int32 voxel range have no entry.
            memset(entries, CANARY, sizeof(entries));
            VXK_CHECK_EQ_INT(vxk_broadphase_get(w, entries, chunks[1]), VXK_OK);
            VXK_CHECK_EQ_INT(entries[0].tag, VXK_BROADPHASE_NONE);
        }
    }
    vxk_int3 edge[2] = {{(1 << 28) - 1, (1 << 28) - 1, (1 << 28) - 1},
                        {-(1 << 28), -(1 << 28), -(1 << 28)}};
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, entries, edge, 2), VXK_OK);
    VXK_CHECK(entries[0].tag != VXK_BROADPHASE_NONE && entries[1].tag != VXK_BROADPHASE_NONE);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(NULL, entries, edge, 2), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, entries, NULL, 2), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, NULL, edge, 2), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, NULL, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_get(NULL, entries, edge[0]), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_get(w, NULL, edge[0]), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_update(w, NULL, 0), VXK_OK);
    CHECK_UNCHANGED(w, s0);

    // get_chunks: a NULL world, a NULL buffer, capacity 0 and every short capacity.
    uint32_t n = 0;
    VXK_CHECK_EQ_U64(vxk_broadphase_get_chunks(NULL, NULL, 0), 0);
    uint32_t total = vxk_broadphase_get_chunks(w, NULL, 0);
    VXK_CHECK(total > 4);
    VXK_CHECK_EQ_U64(vxk_broadphase_get_chunks(w, NULL, 5), total);
    vxk_int3* all = (vxk_int3*)malloc((total + 1) * sizeof(vxk_int3));
    vxk_int3* part = (vxk_int3*)malloc((total + 1) * sizeof(vxk_int3));
    VXK_CHECK(all && part);
    memset(all, CANARY, (total + 1) * sizeof(vxk_int3));
    VXK_CHECK_EQ_U64(vxk_broadphase_get_chunks(w, all, total + 1), total);
    VXK_CHECK(all_canary(all + total, sizeof(vxk_int3)));
    for (uint32_t i = 1; i < total; ++i)
        VXK_CHECK_MSG(all[i - 1].y < all[i].y ||
                          (all[i - 1].y == all[i].y &&
                           (all[i - 1].z < all[i].z ||
                            (all[i - 1].z == all[i].z && all[i - 1].x < all[i].x))),
                      "chunk %u out of (cy, cz, cx) order", i);
    // Short: the first capacity of the sorted list, selected without a buffer of its own (no
    // allocation, so it cannot fail).
    for (uint32_t capacity = 1; capacity <= total; ++capacity) {
        memset(part, CANARY, (total + 1) * sizeof(vxk_int3));
        vxk_test_refuse_allocations();
        n = vxk_broadphase_get_chunks(w, part, capacity);
        vxk_set_allocator(NULL);
        VXK_CHECK_EQ_U64(n, total);
        VXK_CHECK_MSG(memcmp(part, all, capacity * sizeof(vxk_int3)) == 0, "capacity %u", capacity);
        VXK_CHECK(all_canary(part + capacity, (total + 1 - capacity) * sizeof(vxk_int3)));
    }
    free(all);
    free(part);

    // query_aabb: every special float in every component.
    static vxk_broadphase_hit hits[1024];
    const vxk_aabb good = {{-4, -4, -4}, {4, 4, 4}};
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float v = special_float(k);
        for (int c = 0; c < 6; ++c) {
            vxk_aabb box = good;
            float* f = c < 3 ? &(&box.min.x)[c] : &(&box.max.x)[c - 3];
            *f = v;
            memset(hits, CANARY, sizeof(hits));
            n = 0xA5A5A5A5u;
            vxk_status st = vxk_broadphase_query_aabb(w, hits, 1024, &n, box);
            if (!isfinite(v)) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
            } else if (box.min.x > box.max.x || box.min.y > box.max.y || box.min.z > box.max.z) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_INVALID_ARGUMENT);
            } else if (fabsf(v) > 2147483648.0f) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
            } else {
                VXK_CHECK_EQ_INT(st, VXK_OK);
                continue;
            }
            VXK_CHECK_EQ_U64(n, 0);
            VXK_CHECK(all_canary(hits, sizeof(hits)));
        }
    }
    // The int32 voxel space boundary itself is accepted and finds the corner chunks.
    vxk_aabb space = {{-2147483648.0f, -2147483648.0f, -2147483648.0f},
                      {2147483648.0f, 2147483648.0f, 2147483648.0f}};
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, hits, 1024, &n, space), VXK_OK);
    VXK_CHECK(n >= 2);
    VXK_CHECK(hits[0].chunk.y == -(1 << 28) && hits[n - 1].chunk.y == (1 << 28) - 1);
    uint32_t big = n;
    memset(hits, CANARY, sizeof(hits));
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, hits, 1, &n, space), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(n, big);
    VXK_CHECK(all_canary(hits + 1, sizeof(hits) - sizeof(hits[0])));
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(NULL, hits, 1024, &n, good),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, hits, 64, NULL, good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, NULL, 64, &n, good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, NULL, 0, &n, good), VXK_ERR_CAPACITY);

    // query_batch: one bad box among good ones; nothing is written.
    enum { BOXES = 200 };
    vxk_aabb boxes[BOXES];
    for (int i = 0; i < BOXES; ++i)
        boxes[i] = (vxk_aabb){{(float)i - 8, -2, -3}, {(float)i - 6, 2, 3}};
    uint32_t offsets[BOXES + 1];
    vxk_broadphase_hit* results = (vxk_broadphase_hit*)malloc(4096 * sizeof(vxk_broadphase_hit));
    for (int k = 0; k < 3; ++k) {
        vxk_aabb keep = boxes[137];
        boxes[137].max.z = special_float(k);
        memset(offsets, CANARY, sizeof(offsets));
        memset(results, CANARY, 4096 * sizeof(vxk_broadphase_hit));
        VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, results, 4096, offsets, boxes, BOXES),
                         VXK_ERR_NOT_FINITE);
        VXK_CHECK(all_canary(offsets, sizeof(offsets)));
        VXK_CHECK(all_canary(results, 4096 * sizeof(vxk_broadphase_hit)));
        boxes[137] = keep;
    }
    vxk_aabb keep = boxes[5];
    boxes[5].min.x = 3e9f;
    boxes[5].max.x = 3.5e9f;
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, results, 4096, offsets, boxes, BOXES),
                     VXK_ERR_OUT_OF_RANGE);
    boxes[5] = keep;
    VXK_CHECK(all_canary(offsets, sizeof(offsets)));
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(NULL, results, 4096, offsets, boxes, BOXES),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, results, 4096, NULL, boxes, BOXES),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, results, 4096, offsets, NULL, BOXES),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, NULL, 4096, offsets, boxes, BOXES),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, results, 4096, offsets, boxes, BOXES), VXK_OK);
    s0 = snap(w); // the batch keeps its per-thread hit buffers (documented)
    uint32_t needed = offsets[BOXES];
    VXK_CHECK(needed > 1);
    // Capacity too small: offsets filled, the capacity needed in offsets[count].
    memset(offsets, CANARY, sizeof(offsets));
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, results, needed - 1, offsets, boxes, BOXES),
                     VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(offsets[BOXES], needed);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, NULL, 0, offsets, boxes, BOXES),
                     VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(offsets[BOXES], needed);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, NULL, 0, offsets, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_U64(offsets[0], 0);
    free(results);

    vxk_broadphase_stats counts = {1, 1, 1};
    vxk_broadphase_get_stats(NULL, &counts);
    VXK_CHECK(counts.entries == 0 && counts.full == 0 && counts.bytes == 0);
    vxk_broadphase_get_stats(w, NULL);
    (void)vxk_broadphase_hash(NULL);
    CHECK_UNCHANGED(w, s0);

    // Before any build: no entries, no hits, no crash.
    vxk_world* fresh = vxk_scene_edge_world();
    VXK_CHECK(fresh != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(fresh, hits, 1024, &n, space), VXK_OK);
    VXK_CHECK_EQ_U64(n, 0);
    VXK_CHECK_EQ_U64(vxk_broadphase_get_chunks(fresh, NULL, 0), 0);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(fresh, NULL, 0, offsets, boxes, BOXES), VXK_OK);
    VXK_CHECK_EQ_U64(offsets[BOXES], 0);
    vxk_world_destroy(fresh);
    vxk_world_destroy(w);
    return 0;
}

// Broadphase build and update: on OOM the previous broadphase is kept; a later step with
// a working allocator still reaches the result of a full rebuild (no dirty chunk is lost).
static int test_oom_broadphase(void)
{
    size_t base = vxk_allocated_bytes();
    const vxk_int_box clay = {{-9, 2, -9}, {9, 12, 3}};
    vxk_world* ref = vxk_scene_edge_world();
    VXK_CHECK(ref != NULL);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(ref, clay, VXK_MAT_CLAY), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(ref), VXK_OK);
    uint64_t expected = vxk_broadphase_hash(ref);
    vxk_world_destroy(ref);
    unsigned retained = 0;
    for (int op = 0; op < 2; ++op) {
        vxk_world* w = NULL;
        snapshot s0;
        OOM_SWEEP(
            {
                w = vxk_scene_edge_world();
                VXK_CHECK(w != NULL);
                VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
                VXK_CHECK_EQ_INT(vxk_world_fill_box(w, clay, VXK_MAT_CLAY), VXK_OK);
                s0 = snap(w);
            },
            op == 0 ? vxk_broadphase_build(w) : vxk_world_step(w, 0.0f),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    CHECK_UNCHANGED_MAY_GROW(w, s0, retained);
                    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
                    // After a failed build or update the dirty chunks are still there for the
                    // retry, which must give the full build's masks.
                    VXK_CHECK_EQ_U64(vxk_broadphase_hash(w), expected);
                } else {
                    VXK_CHECK_EQ_U64(vxk_broadphase_hash(w), expected);
                }
            },
            {
                vxk_world_destroy(w);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    fprintf(stderr, "   failed builds/updates that kept grown storage: %u\n", retained);
    return 0;
}

// Reads that allocate: batch queries (the chunk list allocates nothing; test_broadphase_edges
// runs it with every allocation refused).
static int test_oom_queries(void)
{
    vxk_world* w = vxk_scene_edge_world_near();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    enum { BOXES = 150 };
    vxk_aabb boxes[BOXES];
    for (int i = 0; i < BOXES; ++i)
        boxes[i] = (vxk_aabb){{(float)i - 30, -2, -3}, {(float)i - 26, 2, 3}};
    uint32_t offsets[BOXES + 1], ref_offsets[BOXES + 1];
    static vxk_broadphase_hit results[4096], ref_results[4096];
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, ref_results, 4096, ref_offsets, boxes, BOXES),
                     VXK_OK);
    snapshot s0 = snap(w); // the batch keeps its per-thread buffers
    OOM_SWEEP(
        {}, vxk_broadphase_query_batch(w, results, 4096, offsets, boxes, BOXES),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
            } else {
                VXK_CHECK(memcmp(offsets, ref_offsets, sizeof(offsets)) == 0);
                VXK_CHECK(memcmp(results, ref_results,
                                 ref_offsets[BOXES] * sizeof(vxk_broadphase_hit)) == 0);
            }
        },
        {
            snapshot s1 = snap(w);
            VXK_CHECK_EQ_U64(s1.terrain, s0.terrain);
            VXK_CHECK_EQ_U64(s1.broadphase, s0.broadphase);
        });
    vxk_world_destroy(w);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/broadphase.h on the status terrain, for each status it lists.
static int test_statuses_broadphase(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_world* w = vxk_scene_status_world();
    VXK_CHECK(w != NULL);
    EXPECT_NO_MEMORY(vxk_broadphase_build(w));
    EXPECT_STATUS(VXK_OK, vxk_broadphase_build(w));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_build(NULL));

    const vxk_int3 chunk = {0, 0, 0}, beyond = {1 << 28, 0, 0};
    EXPECT_STATUS(VXK_OK, vxk_broadphase_update(w, &chunk, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_update(w, NULL, 1));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_broadphase_update(w, &beyond, 1));
    EXPECT_NO_MEMORY(vxk_broadphase_update(w, &chunk, 1));

    vxk_broadphase_entry entry;
    EXPECT_STATUS(VXK_OK, vxk_broadphase_compute(w, &entry, &chunk, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_compute(w, NULL, &chunk, 1));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_broadphase_compute(w, &entry, &beyond, 1));
    EXPECT_STATUS(VXK_OK, vxk_broadphase_get(w, &entry, chunk));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_get(w, NULL, chunk));

    uint32_t count = 0;
    vxk_broadphase_hit hits[256];
    const vxk_aabb near = {{-1, 0, -1}, {2, 3, 2}};
    const vxk_aabb huge = {{-1e6f, -1e6f, -1e6f}, {1e6f, 1e6f, 1e6f}};
    const vxk_aabb bad[] = {
        {{nanf(""), 0, 0}, {1, 1, 1}}, {{2, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1e10f, 1, 1}}};
    const vxk_status bad_status[] = {VXK_ERR_NOT_FINITE, VXK_ERR_INVALID_ARGUMENT,
                                     VXK_ERR_OUT_OF_RANGE};
    EXPECT_STATUS(VXK_OK, vxk_broadphase_query_aabb(w, hits, 256, &count, near));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_query_aabb(w, hits, 256, NULL, near));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_broadphase_query_aabb(w, hits, 0, &count, near));
    EXPECT_NO_MEMORY(vxk_broadphase_query_aabb(w, hits, 256, &count, huge));
    uint32_t offsets[2];
    EXPECT_STATUS(VXK_OK, vxk_broadphase_query_batch(w, hits, 256, offsets, &near, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT,
                  vxk_broadphase_query_batch(w, hits, 256, NULL, &near, 1));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_broadphase_query_batch(w, NULL, 0, offsets, &near, 1));
    // The batch keeps its scratch for the next one: a batch of more pieces has to grow it.
    static vxk_aabb many[200];
    static uint32_t many_offsets[201];
    for (int i = 0; i < 200; ++i)
        many[i] = near;
    EXPECT_NO_MEMORY(vxk_broadphase_query_batch(w, hits, 256, many_offsets, many, 200));
    for (int i = 0; i < 3; ++i) {
        EXPECT_STATUS(bad_status[i], vxk_broadphase_query_aabb(w, hits, 256, &count, bad[i]));
        EXPECT_STATUS(bad_status[i], vxk_broadphase_query_batch(w, hits, 256, offsets, &bad[i], 1));
    }
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
    VXK_RUN(test_random_world_masks_and_queries);
    VXK_RUN(test_generated_world);
    VXK_RUN(test_single_border_voxels);
    VXK_RUN(test_worker_counts_identical);
    VXK_RUN(test_update_equals_rebuild);
    VXK_RUN(test_batch_equals_single);
    VXK_RUN(test_bad_input_and_huge_boxes);
    VXK_RUN(test_sweep_queries);
    VXK_RUN(test_sweep_cost_and_edges);
    vxk_edge_tests_begin();
    VXK_RUN(test_broadphase_edges);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_broadphase);
    VXK_RUN_SWEEP(test_oom_queries);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_broadphase);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
