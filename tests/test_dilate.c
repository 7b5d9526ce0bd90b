// test_dilate.c: the bit dilation kernel (seed 000 bit broadphase): SIMD and scalar twins are
// bit-identical and equal a brute-force 3x3x3 dilation over a 10^3 byte box; the gather of the
// neighbourhood from 27 chunks' occupancy bits equals a byte-box reference; border, edge and
// corner voxels reach the neighbour chunks; air/full tagging on edge cases.
#include "test.h"

#include <vxk/simd_dilate.h>

#include <string.h>

enum { AIR = 0, SOLID = 1, WATER = 2 };

// A 10^3 byte box, index x + 10*(z + 10*y).
typedef struct box10 {
    uint8_t v[1000];
} box10;

static void random_box(box10* box, uint64_t* rng)
{
    // Densities from empty to full, with a share of uniform boxes and nearly uniform ones.
    uint32_t mode = (uint32_t)(vxk_test_rand(rng) % 8);
    uint32_t solid_p = (uint32_t)(vxk_test_rand(rng) % 1025);
    uint32_t water_p = (uint32_t)(vxk_test_rand(rng) % 1025);
    if (mode == 0)
        solid_p = water_p = 0;
    else if (mode == 1)
        solid_p = 1024, water_p = 0;
    else if (mode == 2)
        solid_p = 0, water_p = 1024;
    else if (mode == 3)
        solid_p = 1020, water_p = 0;
    else if (mode == 4)
        solid_p = 4, water_p = 2;
    for (int i = 0; i < 1000; ++i) {
        uint32_t r = (uint32_t)(vxk_test_rand(rng) & 1023);
        uint32_t q = (uint32_t)(vxk_test_rand(rng) & 1023);
        box->v[i] = r < solid_p ? SOLID : (q < water_p ? WATER : AIR);
    }
    if (mode == 5) // one voxel somewhere in an otherwise uniform box
        box->v[vxk_test_rand(rng) % 1000] = (uint8_t)(vxk_test_rand(rng) % 3);
}

static void box_to_rows(vxk_dilate_rows* rows, const box10* box)
{
    memset(rows, 0, sizeof(*rows));
    for (int y = 0; y < 10; ++y)
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x) {
                uint8_t m = box->v[x + 10 * (z + 10 * y)];
                if (m == SOLID)
                    rows->rows[y * 10 + z][0] |= (uint16_t)(1u << x);
                else if (m == WATER)
                    rows->rows[y * 10 + z][1] |= (uint16_t)(1u << x);
            }
}

static void brute_dilate(vxk_dilate_mask* out, uint8_t* kind, const box10* box)
{
    memset(out, 0, sizeof(*out));
    for (int y = 1; y < 9; ++y)
        for (int z = 1; z < 9; ++z)
            for (int x = 1; x < 9; ++x) {
                int solid = 0, water = 0;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz)
                        for (int dx = -1; dx <= 1; ++dx) {
                            uint8_t m = box->v[(x + dx) + 10 * ((z + dz) + 10 * (y + dy))];
                            solid |= m == SOLID;
                            water |= m == WATER;
                        }
                uint64_t bit = 1ull << ((x - 1) + 8 * (z - 1));
                if (solid)
                    out->solid[y - 1] |= bit;
                if (water)
                    out->water[y - 1] |= bit;
            }
    int counts[3] = {0, 0, 0};
    for (int i = 0; i < 1000; ++i)
        counts[box->v[i]]++;
    *kind = counts[AIR] == 1000     ? VXK_DILATE_EMPTY
            : counts[SOLID] == 1000 ? VXK_DILATE_FULL_SOLID
            : counts[WATER] == 1000 ? VXK_DILATE_FULL_WATER
                                    : VXK_DILATE_MASK;
}

static int check_mask_equal(const vxk_dilate_mask* a, const vxk_dilate_mask* b, uint32_t index,
                            const char* what)
{
    for (int y = 0; y < 8; ++y) {
        VXK_CHECK_MSG(a->solid[y] == b->solid[y], "%s chunk %u solid slice %d: %016llx vs %016llx",
                      what, index, y, (unsigned long long)a->solid[y],
                      (unsigned long long)b->solid[y]);
        VXK_CHECK_MSG(a->water[y] == b->water[y], "%s chunk %u water slice %d: %016llx vs %016llx",
                      what, index, y, (unsigned long long)a->water[y],
                      (unsigned long long)b->water[y]);
    }
    return 0;
}

// 100,000 random chunks in batches: SIMD == scalar == brute force, kinds included.
static int test_random_chunks_match_brute_force(void)
{
    enum { BATCH = 1000 };
    const uint32_t total = VXK_TEST_SLOW ? 20000 : 100000;
    static box10 boxes[BATCH];
    static vxk_dilate_rows rows[BATCH];
    static vxk_dilate_mask simd[BATCH], scalar[BATCH];
    static uint8_t simd_kind[BATCH], scalar_kind[BATCH];
    uint64_t rng = 0xD11A7E;
    uint32_t kind_counts[4] = {0, 0, 0, 0};
    for (uint32_t done = 0; done < total; done += BATCH) {
        for (int i = 0; i < BATCH; ++i) {
            random_box(&boxes[i], &rng);
            box_to_rows(&rows[i], &boxes[i]);
        }
        vxk_dilate_chunks(simd, simd_kind, rows, BATCH);
        vxk_dilate_chunks_scalar(scalar, scalar_kind, rows, BATCH);
        for (int i = 0; i < BATCH; ++i) {
            vxk_dilate_mask brute;
            uint8_t brute_kind;
            brute_dilate(&brute, &brute_kind, &boxes[i]);
            uint32_t index = done + (uint32_t)i;
            if (check_mask_equal(&simd[i], &scalar[i], index, "simd/scalar"))
                return 1;
            if (check_mask_equal(&scalar[i], &brute, index, "scalar/brute"))
                return 1;
            VXK_CHECK_EQ_INT(simd_kind[i], brute_kind);
            VXK_CHECK_EQ_INT(scalar_kind[i], brute_kind);
            kind_counts[brute_kind]++;
        }
    }
    // The generator must have reached every kind, or the comparison proves little.
    for (int k = 0; k < 4; ++k)
        VXK_CHECK_MSG(kind_counts[k] > total / 50, "kind %d seen %u times", k, kind_counts[k]);
    return 0;
}

// Bits 10..15 of a row are outside the box; both twins ignore them identically.
static int test_high_bits_ignored(void)
{
    uint64_t rng = vxk_test_seed(77);
    for (int n = 0; n < 2000; ++n) {
        vxk_dilate_rows clean, dirty;
        box10 box;
        random_box(&box, &rng);
        box_to_rows(&clean, &box);
        dirty = clean;
        for (int r = 0; r < 100; ++r)
            for (int k = 0; k < 2; ++k)
                dirty.rows[r][k] |= (uint16_t)(vxk_test_rand(&rng) & 0xFC00);
        vxk_dilate_mask a, b, c;
        uint8_t ka, kb, kc;
        vxk_dilate_chunks(&a, &ka, &clean, 1);
        vxk_dilate_chunks(&b, &kb, &dirty, 1);
        vxk_dilate_chunks_scalar(&c, &kc, &dirty, 1);
        if (check_mask_equal(&a, &b, (uint32_t)n, "clean/dirty simd") ||
            check_mask_equal(&a, &c, (uint32_t)n, "clean/dirty scalar"))
            return 1;
        VXK_CHECK_EQ_INT(ka, kb);
        VXK_CHECK_EQ_INT(ka, kc);
    }
    // NULL kinds are allowed.
    vxk_dilate_rows zero;
    memset(&zero, 0, sizeof(zero));
    vxk_dilate_mask m;
    vxk_dilate_chunks(&m, NULL, &zero, 1);
    vxk_dilate_chunks_scalar(&m, NULL, &zero, 1);
    for (int y = 0; y < 8; ++y)
        VXK_CHECK_EQ_U64(m.solid[y] | m.water[y], 0);
    return 0;
}

// ---- a 40^3 byte world of 5^3 chunks, for the gather -------------------------------------------

enum { WN = 40, WC = 5 };
typedef struct byte_world {
    uint8_t v[WN * WN * WN]; // x + WN*(z + WN*y)
    uint64_t solid[WC * WC * WC][8], water[WC * WC * WC][8];
} byte_world;

static int chunk_index(int cx, int cy, int cz)
{
    return cx + WC * (cz + WC * cy);
}

static void world_bits(byte_world* w)
{
    memset(w->solid, 0, sizeof(w->solid));
    memset(w->water, 0, sizeof(w->water));
    for (int y = 0; y < WN; ++y)
        for (int z = 0; z < WN; ++z)
            for (int x = 0; x < WN; ++x) {
                uint8_t m = w->v[x + WN * (z + WN * y)];
                int c = chunk_index(x / 8, y / 8, z / 8);
                uint64_t bit = 1ull << (x % 8 + 8 * (z % 8));
                if (m == SOLID)
                    w->solid[c][y % 8] |= bit;
                else if (m == WATER)
                    w->water[c][y % 8] |= bit;
            }
}

static void world_box(box10* box, const byte_world* w, int cx, int cy, int cz)
{
    for (int y = 0; y < 10; ++y)
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x) {
                int wx = cx * 8 + x - 1, wy = cy * 8 + y - 1, wz = cz * 8 + z - 1;
                box->v[x + 10 * (z + 10 * y)] = w->v[wx + WN * (wz + WN * wy)];
            }
}

static void gather_pointers(const byte_world* w, int cx, int cy, int cz, const uint64_t* solid[27],
                            const uint64_t* water[27])
{
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx) {
                int i = (dx + 1) + 3 * (dz + 1) + 9 * (dy + 1);
                int c = chunk_index(cx + dx, cy + dy, cz + dz);
                solid[i] = w->solid[c];
                water[i] = w->water[c];
            }
}

// Gathers chunk (cx, cy, cz) both ways, dilates, and checks against the byte-box reference.
static int check_world_chunk(const byte_world* w, int cx, int cy, int cz, uint8_t* kind_out)
{
    const uint64_t* solid[27];
    const uint64_t* water[27];
    gather_pointers(w, cx, cy, cz, solid, water);
    vxk_dilate_rows simd_rows, scalar_rows, ref_rows;
    vxk_dilate_gather(&simd_rows, solid, water);
    vxk_dilate_gather_scalar(&scalar_rows, solid, water);
    box10 box;
    world_box(&box, w, cx, cy, cz);
    box_to_rows(&ref_rows, &box);
    VXK_CHECK_MSG(memcmp(&simd_rows, &ref_rows, sizeof(ref_rows)) == 0,
                  "simd gather differs at chunk %d %d %d", cx, cy, cz);
    VXK_CHECK_MSG(memcmp(&scalar_rows, &ref_rows, sizeof(ref_rows)) == 0,
                  "scalar gather differs at chunk %d %d %d", cx, cy, cz);
    vxk_dilate_mask mask, brute;
    uint8_t kind, brute_kind;
    vxk_dilate_chunks(&mask, &kind, &simd_rows, 1);
    brute_dilate(&brute, &brute_kind, &box);
    if (check_mask_equal(&mask, &brute, (uint32_t)chunk_index(cx, cy, cz), "world"))
        return 1;
    VXK_CHECK_EQ_INT(kind, brute_kind);
    *kind_out = kind;
    return 0;
}

static int test_gather_random_worlds(void)
{
    static byte_world w;
    uint64_t rng = 0x6A7E;
    const int worlds = VXK_TEST_SLOW ? 40 : 200;
    for (int n = 0; n < worlds; ++n) {
        // Per chunk its own density, with uniform chunks mixed in.
        uint32_t solid_p[WC * WC * WC], water_p[WC * WC * WC];
        for (int c = 0; c < WC * WC * WC; ++c) {
            uint32_t mode = (uint32_t)(vxk_test_rand(&rng) % 6);
            solid_p[c] = mode == 0 ? 0 : mode == 1 ? 1024 : (uint32_t)(vxk_test_rand(&rng) % 1025);
            water_p[c] = mode == 2 ? 1024 : mode < 2 ? 0 : (uint32_t)(vxk_test_rand(&rng) % 300);
        }
        for (int y = 0; y < WN; ++y)
            for (int z = 0; z < WN; ++z)
                for (int x = 0; x < WN; ++x) {
                    int c = chunk_index(x / 8, y / 8, z / 8);
                    uint32_t r = (uint32_t)(vxk_test_rand(&rng) & 1023);
                    uint32_t q = (uint32_t)(vxk_test_rand(&rng) & 1023);
                    w.v[x + WN * (z + WN * y)] =
                        r < solid_p[c] ? SOLID : (q < water_p[c] ? WATER : AIR);
                }
        world_bits(&w);
        for (int cy = 1; cy < WC - 1; ++cy)
            for (int cz = 1; cz < WC - 1; ++cz)
                for (int cx = 1; cx < WC - 1; ++cx) {
                    uint8_t kind;
                    if (check_world_chunk(&w, cx, cy, cz, &kind))
                        return 1;
                }
    }
    return 0;
}

// One voxel of `material` at world voxel (x, y, z) in a world of `background`: every chunk whose
// 10^3 box holds the voxel must see it (a mask), every other chunk must stay uniform.
static int check_single_voxel(byte_world* w, int x, int y, int z, uint8_t material,
                              uint8_t background)
{
    memset(w->v, background, sizeof(w->v));
    w->v[x + WN * (z + WN * y)] = material;
    world_bits(w);
    uint8_t uniform_kind = background == AIR     ? VXK_DILATE_EMPTY
                           : background == SOLID ? VXK_DILATE_FULL_SOLID
                                                 : VXK_DILATE_FULL_WATER;
    int touched = 0;
    for (int cy = 1; cy < WC - 1; ++cy)
        for (int cz = 1; cz < WC - 1; ++cz)
            for (int cx = 1; cx < WC - 1; ++cx) {
                uint8_t kind;
                if (check_world_chunk(w, cx, cy, cz, &kind))
                    return 1;
                int inside = x >= cx * 8 - 1 && x <= cx * 8 + 8 && y >= cy * 8 - 1 &&
                             y <= cy * 8 + 8 && z >= cz * 8 - 1 && z <= cz * 8 + 8;
                VXK_CHECK_MSG(kind == (inside ? VXK_DILATE_MASK : uniform_kind),
                              "voxel %d %d %d chunk %d %d %d kind %d", x, y, z, cx, cy, cz, kind);
                touched += inside;
            }
    // Interior voxels reach 1 chunk, face voxels 2, edge voxels 4, corner voxels 8.
    int lx = x % 8, ly = y % 8, lz = z % 8;
    int border_axes = (lx == 0 || lx == 7) + (ly == 0 || ly == 7) + (lz == 0 || lz == 7);
    VXK_CHECK_EQ_INT(touched, 1 << border_axes);
    return 0;
}

static int test_border_edge_corner_voxels(void)
{
    static byte_world w;
    // The middle chunk is (2,2,2): voxels 16..23. Interior, faces, edges, corners.
    const int positions[][3] = {
        {19, 19, 19}, {16, 19, 19}, {23, 19, 19}, {19, 16, 20}, {20, 23, 18}, {19, 20, 16},
        {18, 18, 23}, {16, 16, 19}, {23, 19, 23}, {19, 23, 16}, {16, 16, 16}, {23, 23, 23},
        {16, 23, 16}, {23, 16, 23}, {16, 23, 23}, {23, 16, 16}, {16, 16, 23}, {23, 23, 16},
    };
    for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); ++i) {
        const int* p = positions[i];
        if (check_single_voxel(&w, p[0], p[1], p[2], SOLID, AIR) ||
            check_single_voxel(&w, p[0], p[1], p[2], WATER, AIR) ||
            check_single_voxel(&w, p[0], p[1], p[2], AIR, SOLID) ||
            check_single_voxel(&w, p[0], p[1], p[2], WATER, SOLID) ||
            check_single_voxel(&w, p[0], p[1], p[2], AIR, WATER))
            return 1;
    }
    return 0;
}

// Uniform boxes and boxes that differ from uniform in one voxel of the one-voxel border.
static int test_full_and_air_tagging(void)
{
    const uint8_t materials[3] = {AIR, SOLID, WATER};
    const uint8_t expected[3] = {VXK_DILATE_EMPTY, VXK_DILATE_FULL_SOLID, VXK_DILATE_FULL_WATER};
    for (int m = 0; m < 3; ++m) {
        box10 box;
        memset(box.v, materials[m], sizeof(box.v));
        vxk_dilate_rows rows;
        box_to_rows(&rows, &box);
        vxk_dilate_mask a, b, brute;
        uint8_t ka, kb, kbrute;
        vxk_dilate_chunks(&a, &ka, &rows, 1);
        vxk_dilate_chunks_scalar(&b, &kb, &rows, 1);
        brute_dilate(&brute, &kbrute, &box);
        VXK_CHECK_EQ_INT(ka, expected[m]);
        VXK_CHECK_EQ_INT(kb, expected[m]);
        VXK_CHECK_EQ_INT(kbrute, expected[m]);
        for (int y = 0; y < 8; ++y) {
            VXK_CHECK_EQ_U64(a.solid[y], m == 1 ? ~0ull : 0);
            VXK_CHECK_EQ_U64(a.water[y], m == 2 ? ~0ull : 0);
        }
        // Change each border voxel of the 10^3 box in turn: the kind becomes MASK.
        for (int i = 0; i < 1000; ++i) {
            int x = i % 10, z = (i / 10) % 10, y = i / 100;
            if (x != 0 && x != 9 && y != 0 && y != 9 && z != 0 && z != 9)
                continue;
            box10 changed = box;
            changed.v[i] = materials[(m + 1) % 3];
            box_to_rows(&rows, &changed);
            vxk_dilate_chunks(&a, &ka, &rows, 1);
            vxk_dilate_chunks_scalar(&b, &kb, &rows, 1);
            brute_dilate(&brute, &kbrute, &changed);
            VXK_CHECK_EQ_INT(ka, VXK_DILATE_MASK);
            VXK_CHECK_EQ_INT(kb, VXK_DILATE_MASK);
            VXK_CHECK_EQ_INT(kbrute, VXK_DILATE_MASK);
            if (check_mask_equal(&a, &brute, (uint32_t)i, "border") ||
                check_mask_equal(&b, &brute, (uint32_t)i, "border"))
                return 1;
        }
    }
    return 0;
}

int main(void)
{
    VXK_RUN(test_random_chunks_match_brute_force);
    VXK_RUN(test_high_bits_ignored);
    VXK_RUN(test_gather_random_worlds);
    VXK_RUN(test_border_edge_corner_voxels);
    VXK_RUN(test_full_and_air_tagging);
    return vxk_test_finish();
}
