// test_voxel_types.c: voxel types and normals (vxk/voxel_types.h, seed 003) against a brute-force
// reference written here: per voxel, the 6 face neighbours counted one by one, and for Inside
// voxels a walk along each of the 26 directions to the first non-solid cell.
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <vxk/voxel_types.h>

#include "harness.h"
#include "test.h"
#include "status_lists.h"

// The article's normal_lut, in its order.
static const int ref_dirs[26][3] = {
    {1, 0, 0},   {0, 1, 0},   {0, 0, 1},   {-1, 0, 0},  {0, -1, 0},  {0, 0, -1}, {1, 1, 0},
    {1, 0, 1},   {0, 1, 1},   {-1, 1, 0},  {-1, 0, 1},  {0, -1, 1},  {1, -1, 0}, {1, 0, -1},
    {0, 1, -1},  {-1, -1, 0}, {-1, 0, -1}, {0, -1, -1}, {1, 1, 1},   {1, 1, -1}, {1, -1, 1},
    {1, -1, -1}, {-1, 1, 1},  {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}};

typedef struct ref_grid {
    const vxk_voxel_grid* grid;
    const uint8_t* solid;
} ref_grid;

static bool ref_solid(ref_grid r, int x, int y, int z)
{
    vxk_int3 s = r.grid->size;
    if (x < 0 || y < 0 || z < 0 || x >= s.x || y >= s.y || z >= s.z)
        return false;
    return r.solid[r.grid->voxels[x + s.x * (z + s.z * y)]] != 0;
}

static uint32_t ref_index(int x, int y, int z)
{
    for (uint32_t k = 0; k < 26; ++k)
        if (ref_dirs[k][0] == x && ref_dirs[k][1] == y && ref_dirs[k][2] == z)
            return k;
    return 31;
}

static uint8_t ref_byte(ref_grid r, int x, int y, int z)
{
    if (!ref_solid(r, x, y, z))
        return (uint8_t)(31u << 3);
    int empty = 0, sum[3] = {0, 0, 0};
    for (int k = 0; k < 6; ++k) {
        if (!ref_solid(r, x + ref_dirs[k][0], y + ref_dirs[k][1], z + ref_dirs[k][2])) {
            ++empty;
            for (int a = 0; a < 3; ++a)
                sum[a] += ref_dirs[k][a];
        }
    }
    if (empty > 0) {
        uint32_t type = empty == 1 ? 3u : empty == 2 ? 2u : 1u; // Face, Edge, Corner
        return (uint8_t)(type | ref_index(sum[0], sum[1], sum[2]) << 3);
    }
    long best = -1;
    uint32_t best_k = 31;
    for (uint32_t k = 0; k < 26; ++k) {
        int n = 1;
        while (ref_solid(r, x + n * ref_dirs[k][0], y + n * ref_dirs[k][1], z + n * ref_dirs[k][2]))
            ++n;
        int len2 = ref_dirs[k][0] * ref_dirs[k][0] + ref_dirs[k][1] * ref_dirs[k][1] +
                   ref_dirs[k][2] * ref_dirs[k][2];
        long d2 = (long)n * n * len2;
        if (best < 0 || d2 < best) {
            best = d2;
            best_k = k;
        }
    }
    return (uint8_t)(4u | best_k << 3);
}

static uint8_t g_solid[256];

static void init_solid(void)
{
    for (int m = 0; m < 256; ++m)
        g_solid[m] = (uint8_t)(m != 0 && m != 7); // 7: a non-solid material besides air
}

static size_t grid_count(const vxk_voxel_grid* g)
{
    return (size_t)g->size.x * (size_t)g->size.y * (size_t)g->size.z;
}

// The library's bytes equal the reference's; names the first differing voxel.
static int check_against_reference(const vxk_voxel_grid* grid, const uint8_t* types)
{
    ref_grid r = {grid, g_solid};
    vxk_int3 s = grid->size;
    for (int y = 0; y < s.y; ++y)
        for (int z = 0; z < s.z; ++z)
            for (int x = 0; x < s.x; ++x) {
                uint8_t want = ref_byte(r, x, y, z), got = types[x + s.x * (z + s.z * y)];
                VXK_CHECK_MSG(want == got,
                              "grid %dx%dx%d voxel (%d,%d,%d): type %u normal %u, expected type %u "
                              "normal %u",
                              s.x, s.y, s.z, x, y, z, got & 7u, got >> 3, want & 7u, want >> 3);
            }
    return 0;
}

static uint8_t random_material(uint64_t* rng, uint32_t fill_per_mille)
{
    if (vxk_test_rand(rng) % 1000 >= fill_per_mille)
        return vxk_test_rand(rng) % 4 == 0 ? 7 : 0;
    return (uint8_t)(1 + vxk_test_rand(rng) % 5);
}

static void random_fill(vxk_voxel_grid* g, uint64_t* rng, uint32_t fill_per_mille)
{
    for (size_t i = 0; i < grid_count(g); ++i)
        g->voxels[i] = random_material(rng, fill_per_mille);
}

// Compute on a canary-filled buffer and compare with the reference.
static int compute_and_check(const vxk_voxel_grid* grid)
{
    size_t n = grid_count(grid);
    uint8_t* types = (uint8_t*)malloc(n + 1);
    VXK_CHECK(types != NULL);
    memset(types, CANARY, n + 1);
    vxk_status st = vxk_voxel_types_compute(types, grid, g_solid);
    int failed = st != VXK_OK || types[n] != CANARY || check_against_reference(grid, types);
    if (st != VXK_OK)
        fprintf(stderr, "compute returned %s\n", vxk_status_string(st));
    free(types);
    return failed;
}

static int test_normal_table(void)
{
    for (uint32_t k = 0; k < 26; ++k) {
        vxk_int3 o = vxk_voxel_normal_offset(k);
        VXK_CHECK_EQ_INT(o.x, ref_dirs[k][0]);
        VXK_CHECK_EQ_INT(o.y, ref_dirs[k][1]);
        VXK_CHECK_EQ_INT(o.z, ref_dirs[k][2]);
        vxk_vec3 d = vxk_voxel_normal_dir(k);
        float length = sqrtf((float)(o.x * o.x + o.y * o.y + o.z * o.z));
        VXK_CHECK_MSG(fabsf(d.x * d.x + d.y * d.y + d.z * d.z - 1.0f) < 1e-6f, "index %u", k);
        VXK_CHECK_MSG(fabsf(d.x - o.x / length) < 1e-6f && fabsf(d.y - o.y / length) < 1e-6f &&
                          fabsf(d.z - o.z / length) < 1e-6f,
                      "index %u", k);
    }
    const uint32_t bad[3] = {26, VXK_VOXEL_NORMAL_NONE, UINT32_MAX};
    for (int i = 0; i < 3; ++i) {
        vxk_vec3 d = vxk_voxel_normal_dir(bad[i]);
        vxk_int3 o = vxk_voxel_normal_offset(bad[i]);
        VXK_CHECK(d.x == 0.0f && d.y == 0.0f && d.z == 0.0f);
        VXK_CHECK(o.x == 0 && o.y == 0 && o.z == 0);
    }
    uint8_t b = vxk_voxel_byte(VXK_VOXEL_EDGE, 17);
    VXK_CHECK_EQ_INT(vxk_voxel_type_of(b), VXK_VOXEL_EDGE);
    VXK_CHECK_EQ_INT(vxk_voxel_normal_of(b), 17);
    VXK_CHECK_EQ_INT(vxk_voxel_type_of(VXK_VOXEL_BYTE_EMPTY), VXK_VOXEL_EMPTY);
    VXK_CHECK_EQ_INT(vxk_voxel_normal_of(VXK_VOXEL_BYTE_EMPTY), VXK_VOXEL_NORMAL_NONE);
    return 0;
}

static uint8_t type_at(const uint8_t* types, vxk_int3 s, int x, int y, int z)
{
    return types[x + s.x * (z + s.z * y)];
}

#define CHECK_VOXEL(types, s, x, y, z, type, normal)                                              \
    do {                                                                                          \
        uint8_t b_ = type_at(types, s, x, y, z);                                                  \
        VXK_CHECK_MSG(b_ == vxk_voxel_byte(type, normal),                                         \
                      "voxel (%d,%d,%d): type %u normal %u, expected type %u normal %u", x, y, z, \
                      b_ & 7u, b_ >> 3, (unsigned)(type), (unsigned)(normal));                    \
    } while (0)

// A box of material 1 in a grid of size s; types computed into types.
static int shape(uint8_t* types, vxk_voxel_grid* g, vxk_int3 s, vxk_int_box box)
{
    g->size = s;
    memset(g->voxels, 0, grid_count(g));
    for (int y = box.min.y; y <= box.max.y; ++y)
        for (int z = box.min.z; z <= box.max.z; ++z)
            for (int x = box.min.x; x <= box.max.x; ++x)
                g->voxels[x + s.x * (z + s.z * y)] = 1;
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(types, g, g_solid), VXK_OK);
    return check_against_reference(g, types);
}

static int test_canonical_shapes(void)
{
    static uint8_t voxels[9 * 9 * 9], types[9 * 9 * 9];
    vxk_voxel_grid g = {{1, 1, 1}, voxels};
    const vxk_voxel_type C = VXK_VOXEL_CORNER, E = VXK_VOXEL_EDGE, F = VXK_VOXEL_FACE,
                         I = VXK_VOXEL_INSIDE;
    const uint32_t NONE = VXK_VOXEL_NORMAL_NONE;

    // A lone voxel: 6 empty neighbours, a Corner whose directions cancel (no lookup normal).
    vxk_int3 s = {1, 1, 1};
    VXK_CHECK(shape(types, &g, s, (vxk_int_box){{0, 0, 0}, {0, 0, 0}}) == 0);
    CHECK_VOXEL(types, s, 0, 0, 0, C, NONE);
    s = (vxk_int3){5, 5, 5};
    VXK_CHECK(shape(types, &g, s, (vxk_int_box){{2, 2, 2}, {2, 2, 2}}) == 0);
    CHECK_VOXEL(types, s, 2, 2, 2, C, NONE);
    CHECK_VOXEL(types, s, 2, 2, 1, VXK_VOXEL_EMPTY, NONE);

    // A bar along x: its ends have 5 empty neighbours and point outwards, its middle 4 (none).
    s = (vxk_int3){7, 3, 3};
    VXK_CHECK(shape(types, &g, s, (vxk_int_box){{1, 1, 1}, {5, 1, 1}}) == 0);
    CHECK_VOXEL(types, s, 1, 1, 1, C, 3u);
    CHECK_VOXEL(types, s, 5, 1, 1, C, 0u);
    CHECK_VOXEL(types, s, 3, 1, 1, C, NONE);

    // A plate one voxel thick (xz): interior has +y and -y empty (Edge, no normal), its rim 3
    // (Corner, outward), its corners 4 (Corner, diagonal).
    s = (vxk_int3){5, 1, 5};
    VXK_CHECK(shape(types, &g, s, (vxk_int_box){{0, 0, 0}, {4, 0, 4}}) == 0);
    CHECK_VOXEL(types, s, 2, 0, 2, E, NONE);
    CHECK_VOXEL(types, s, 0, 0, 2, C, 3u);
    CHECK_VOXEL(types, s, 2, 0, 4, C, 2u);
    CHECK_VOXEL(types, s, 0, 0, 0, C, 16u); // (-1, 0, -1)
    CHECK_VOXEL(types, s, 4, 0, 4, C, 7u);  // (1, 0, 1)

    // A 4-cube filling its grid: corners, edges, faces and a 2x2x2 inside.
    s = (vxk_int3){4, 4, 4};
    VXK_CHECK(shape(types, &g, s, (vxk_int_box){{0, 0, 0}, {3, 3, 3}}) == 0);
    CHECK_VOXEL(types, s, 0, 0, 0, C, 25u); // (-1,-1,-1)
    CHECK_VOXEL(types, s, 3, 3, 3, C, 18u); // (1,1,1)
    CHECK_VOXEL(types, s, 3, 0, 3, C, 20u); // (1,-1,1)
    CHECK_VOXEL(types, s, 1, 0, 0, E, 17u); // (0,-1,-1)
    CHECK_VOXEL(types, s, 3, 3, 1, E, 6u);  // (1,1,0)
    CHECK_VOXEL(types, s, 1, 1, 0, F, 5u);  // -z
    CHECK_VOXEL(types, s, 1, 3, 2, F, 1u);  // +y
    // Inside (1,1,1): -x, -y and -z exit after 2 steps (distance^2 4), ties to the lowest index.
    CHECK_VOXEL(types, s, 1, 1, 1, I, 3u);
    CHECK_VOXEL(types, s, 2, 2, 2, I, 0u);
    CHECK_VOXEL(types, s, 2, 1, 2, I, 0u); // +x, -y and +z tie

    // A 7-cube: the centre is 4 steps from every face: +x, the lowest index.
    s = (vxk_int3){9, 9, 9};
    VXK_CHECK(shape(types, &g, s, (vxk_int_box){{1, 1, 1}, {7, 7, 7}}) == 0);
    CHECK_VOXEL(types, s, 4, 4, 4, I, 0u);
    CHECK_VOXEL(types, s, 4, 6, 4, I, 1u);
    // A hole diagonal to an inside voxel: the corner direction (distance^2 3) beats the faces.
    voxels[3 + 9 * (3 + 9 * 3)] = 0;
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(types, &g, g_solid), VXK_OK);
    VXK_CHECK(check_against_reference(&g, types) == 0);
    CHECK_VOXEL(types, s, 4, 4, 4, I, 25u);
    CHECK_VOXEL(types, s, 4, 3, 3, F, 3u); // the hole is its -x face neighbour
    return 0;
}

static int test_random_grids(void)
{
    uint64_t rng = vxk_test_seed(0x7e57u);
    static uint8_t voxels[40 * 40 * 40];
    for (int i = 0; i < 320; ++i) {
        vxk_voxel_grid g = {{(int32_t)(1 + vxk_test_rand(&rng) % 40),
                             (int32_t)(1 + vxk_test_rand(&rng) % 40),
                             (int32_t)(1 + vxk_test_rand(&rng) % 40)},
                            voxels};
        if (i % 3 == 0) // small grids: more of them are dense everywhere
            g.size = (vxk_int3){g.size.x % 9 + 1, g.size.y % 9 + 1, g.size.z % 9 + 1};
        uint32_t fill = (uint32_t)(vxk_test_rand(&rng) % 1001);
        if (i % 4 == 1)
            fill = 900 + fill % 101; // dense: Inside voxels with long exits
        random_fill(&g, &rng, fill);
        if (compute_and_check(&g)) {
            fprintf(stderr, "grid %d, fill %u/1000\n", i, fill);
            return 1;
        }
    }
    return 0;
}

static int test_multi_word_rows(void)
{
    uint64_t rng = vxk_test_seed(0x3a11u);
    const vxk_int3 sizes[] = {{63, 3, 3},  {64, 4, 3},  {65, 3, 4},  {127, 3, 3},
                              {128, 4, 4}, {129, 3, 5}, {200, 5, 3}, {256, 3, 3},
                              {3, 70, 3},  {4, 3, 130}, {130, 6, 6}, {66, 66, 2}};
    vxk_voxel_grid g;
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&g, (vxk_int3){256, 66, 130}), VXK_OK);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        for (int round = 0; round < 3; ++round) {
            g.size = sizes[i];
            random_fill(&g, &rng, round == 0 ? 500u : round == 1 ? 950u : 1000u);
            if (compute_and_check(&g)) {
                fprintf(stderr, "size %d,%d,%d round %d\n", sizes[i].x, sizes[i].y, sizes[i].z,
                        round);
                g.size = (vxk_int3){256, 66, 130};
                vxk_voxel_grid_free(&g);
                return 1;
            }
        }
    }
    g.size = (vxk_int3){256, 66, 130};
    vxk_voxel_grid_free(&g);
    return 0;
}

// update after random edits equals a full compute (and the reference, now and then).
static int update_rounds(vxk_int3 size, int edits, uint64_t seed)
{
    uint64_t rng = vxk_test_seed(seed);
    vxk_voxel_grid g;
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&g, size), VXK_OK);
    size_t n = grid_count(&g);
    random_fill(&g, &rng, 850);
    uint8_t* types = (uint8_t*)malloc(n);
    uint8_t* full = (uint8_t*)malloc(n);
    VXK_CHECK(types && full);
    int failed = vxk_voxel_types_compute(types, &g, g_solid) != VXK_OK;
    for (int e = 0; e < edits && !failed; ++e) {
        vxk_int_box box;
        int32_t lo[3], hi[3], s[3] = {size.x, size.y, size.z};
        bool single = vxk_test_rand(&rng) % 2 == 0;
        for (int a = 0; a < 3; ++a) {
            lo[a] = (int32_t)(vxk_test_rand(&rng) % (uint64_t)s[a]);
            // Now and then a box large enough for update to redo every Inside normal.
            uint64_t reach = e % 10 == 3 ? (uint64_t)s[a] : 6;
            int32_t extent = single ? 0 : (int32_t)(vxk_test_rand(&rng) % reach);
            hi[a] = lo[a] + extent < s[a] ? lo[a] + extent : s[a] - 1;
        }
        box = (vxk_int_box){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
        uint32_t mode = (uint32_t)(vxk_test_rand(&rng) % 3);
        for (int y = lo[1]; y <= hi[1]; ++y)
            for (int z = lo[2]; z <= hi[2]; ++z)
                for (int x = lo[0]; x <= hi[0]; ++x)
                    g.voxels[x + size.x * (z + size.z * y)] = mode == 0 ? 0
                                                              : mode == 1
                                                                  ? 2
                                                                  : random_material(&rng, 500);
        if (vxk_test_rand(&rng) % 8 == 0) // the box may also be larger than what changed
            box.min.x = box.min.x > 0 ? box.min.x - 1 : 0;
        if (vxk_voxel_types_update(types, &g, g_solid, box) != VXK_OK ||
            vxk_voxel_types_compute(full, &g, g_solid) != VXK_OK) {
            failed = 1;
            break;
        }
        if (memcmp(types, full, n) != 0) {
            size_t i = 0;
            while (types[i] == full[i])
                ++i;
            fprintf(stderr, "edit %d box (%d,%d,%d)-(%d,%d,%d): voxel %zu is %u, full %u\n", e,
                    box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z, i, types[i],
                    full[i]);
            failed = 1;
        }
        if (!failed && e % 50 == 0)
            failed = check_against_reference(&g, types);
    }
    free(types);
    free(full);
    vxk_voxel_grid_free(&g);
    return failed;
}

static int test_update_matches_compute(void)
{
    VXK_CHECK(update_rounds((vxk_int3){17, 13, 19}, 500, 0x0bd1u) == 0);
    VXK_CHECK(update_rounds((vxk_int3){1, 5, 1}, 100, 0x0bd2u) == 0);
    VXK_CHECK(update_rounds((vxk_int3){70, 6, 5}, 150, 0x0bd3u) == 0);
    // Large enough that small edits take the per-voxel path (the lines through the change mark
    // few voxels), and big boxes the full pass.
    VXK_CHECK(update_rounds((vxk_int3){40, 36, 38}, 120, 0x0bd4u) == 0);
    return 0;
}

static int test_errors(void)
{
    static uint8_t voxels[8 * 8 * 8], out[8 * 8 * 8 + 1];
    memset(voxels, 1, sizeof(voxels));
    vxk_voxel_grid g = {{8, 8, 8}, voxels};
    size_t before = vxk_allocated_bytes();
    memset(out, CANARY, sizeof(out));
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(NULL, &g, g_solid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(out, NULL, g_solid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(out, &g, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_voxel_grid no_voxels = {{8, 8, 8}, NULL};
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(out, &no_voxels, g_solid), VXK_ERR_INVALID_ARGUMENT);
    const vxk_int3 bad_sizes[] = {
        {0, 8, 8}, {8, -1, 8}, {8, 8, 257}, {257, 1, 1}, {INT32_MIN, 1, 1}};
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); ++i) {
        vxk_voxel_grid bad = {bad_sizes[i], voxels};
        VXK_CHECK_EQ_INT(vxk_voxel_types_compute(out, &bad, g_solid), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_INT(
            vxk_voxel_types_update(out, &bad, g_solid, (vxk_int_box){{0, 0, 0}, {0, 0, 0}}),
            VXK_ERR_OUT_OF_RANGE);
    }
    VXK_CHECK(all_canary(out, sizeof(out)));

    const vxk_int_box whole = {{0, 0, 0}, {7, 7, 7}};
    VXK_CHECK_EQ_INT(vxk_voxel_types_update(NULL, &g, g_solid, whole), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_types_update(out, NULL, g_solid, whole), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_types_update(out, &g, NULL, whole), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_types_update(out, &no_voxels, g_solid, whole),
                     VXK_ERR_INVALID_ARGUMENT);
    const vxk_int_box inverted[] = {{{3, 0, 0}, {2, 7, 7}},
                                    {{0, 5, 0}, {7, 4, 7}},
                                    {{0, 0, 1}, {7, 7, 0}},
                                    {{INT32_MAX, 0, 0}, {INT32_MIN, 0, 0}}};
    for (size_t i = 0; i < sizeof(inverted) / sizeof(inverted[0]); ++i)
        VXK_CHECK_EQ_INT(vxk_voxel_types_update(out, &g, g_solid, inverted[i]),
                         VXK_ERR_INVALID_ARGUMENT);
    const vxk_int_box outside[] = {
        {{-1, 0, 0}, {7, 7, 7}},
        {{0, 0, 0}, {8, 7, 7}},
        {{0, -5, 0}, {0, -1, 0}},
        {{0, 0, 8}, {0, 0, 9}},
        {{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}}};
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); ++i)
        VXK_CHECK_EQ_INT(vxk_voxel_types_update(out, &g, g_solid, outside[i]),
                         VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK(all_canary(out, sizeof(out)));

    // Out of memory: nothing written.
    static const vxk_allocator refuse = {vxk_test_refuse_alloc, vxk_test_plain_free, NULL};
    vxk_set_allocator(&refuse);
    vxk_status st_compute = vxk_voxel_types_compute(out, &g, g_solid);
    vxk_status st_update = vxk_voxel_types_update(out, &g, g_solid, whole);
    vxk_set_allocator(NULL);
    VXK_CHECK_EQ_INT(st_compute, VXK_ERR_OUT_OF_MEMORY);
    VXK_CHECK_EQ_INT(st_update, VXK_ERR_OUT_OF_MEMORY);
    VXK_CHECK(all_canary(out, sizeof(out)));
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

static int test_oom_voxel_types(void)
{
    // A cube with an inside: both allocations (bit rows, inside scratch) happen.
    static uint8_t voxels[70 * 6 * 6], expected[70 * 6 * 6], out[70 * 6 * 6];
    memset(voxels, 3, sizeof(voxels));
    vxk_voxel_grid g = {{70, 6, 6}, voxels};
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(expected, &g, g_solid), VXK_OK);
    size_t base = vxk_allocated_bytes();
    OOM_SWEEP(
        memset(out, CANARY, sizeof(out)), vxk_voxel_types_compute(out, &g, g_solid),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(out, sizeof(out)));
            } else {
                VXK_CHECK(memcmp(out, expected, sizeof(out)) == 0);
            }
        },
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base));
    const vxk_int_box box = {{10, 2, 2}, {12, 3, 3}};
    OOM_SWEEP(
        memcpy(out, expected, sizeof(out)), vxk_voxel_types_update(out, &g, g_solid, box),
        {
            VXK_CHECK(st == VXK_OK || st == VXK_ERR_OUT_OF_MEMORY);
            VXK_CHECK(memcmp(out, expected, sizeof(out)) == 0);
        },
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base));
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/voxel_types.h for each status it lists.
static int test_statuses_voxel_types(void)
{
    vxk_status_group start = vxk_status_group_begin();
    uint8_t solid[256] = {0};
    solid[1] = 1;
    static uint8_t voxels[4 * 4 * 4], types[4 * 4 * 4];
    memset(voxels, 1, sizeof(voxels)); // a full cube: an inside too
    vxk_voxel_grid grid = {{4, 4, 4}, voxels}, wide = {{257, 1, 1}, voxels};
    const vxk_int_box box = {{1, 1, 1}, {2, 2, 2}};
    EXPECT_STATUS(VXK_OK, vxk_voxel_types_compute(types, &grid, solid));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_voxel_types_compute(NULL, &grid, solid));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_voxel_types_compute(types, &wide, solid));
    EXPECT_NO_MEMORY(vxk_voxel_types_compute(types, &grid, solid));
    EXPECT_STATUS(VXK_OK, vxk_voxel_types_update(types, &grid, solid, box));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_voxel_types_update(types, &grid, NULL, box));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT,
                  vxk_voxel_types_update(types, &grid, solid, (vxk_int_box){{2, 0, 0}, {1, 0, 0}}));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE,
                  vxk_voxel_types_update(types, &grid, solid, (vxk_int_box){{0, 0, 0}, {4, 0, 0}}));
    EXPECT_NO_MEMORY(vxk_voxel_types_update(types, &grid, solid, box));
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    init_solid();
    VXK_RUN(test_normal_table);
    VXK_RUN(test_canonical_shapes);
    VXK_RUN(test_random_grids);
    VXK_RUN(test_multi_word_rows);
    VXK_RUN(test_update_matches_compute);
    vxk_edge_tests_begin();
    VXK_RUN(test_errors);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_voxel_types);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_voxel_types);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
