// test_boxes.c: greedy box compounds against the article's voxel-by-voxel loop (seed 004:
// a tested[] array, TrySpreadX/Y/Z) on seeded random grids and chunks, plus the properties:
// boxes are disjoint, cover exactly the solid voxels, and cannot grow along any axis at the end.
// Edge tests (harness.h): bad grids, modes, capacities and chunks at the int32 range; box lists and
// grids out of memory.
#include <vxk/chunk_geometry.h>
#include <vxk/boxes.h>
#include <vxk/vox.h>
#include <vxk/world.h>

#include <string.h>

#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"

typedef struct ref_grid {
    int sx, sy, sz;
    const uint8_t* voxels;
    const uint8_t* solid; // NULL: nonzero ids
    int per_material;
} ref_grid;

static size_t ref_index(const ref_grid* g, int x, int y, int z)
{
    return (size_t)x + (size_t)g->sx * ((size_t)z + (size_t)g->sz * (size_t)y);
}

static int ref_contributes(const ref_grid* g, const uint8_t* tested, int x, int y, int z,
                           uint8_t material)
{
    if (x >= g->sx || y >= g->sy || z >= g->sz)
        return 0;
    size_t i = ref_index(g, x, y, z);
    uint8_t v = g->voxels[i];
    int solid = g->solid ? g->solid[v] != 0 : v != 0;
    if (!solid || tested[i])
        return 0;
    return !g->per_material || v == material;
}

// TrySpread along one axis, voxel by voxel, exactly as the article writes TrySpreadX.
static int ref_try_spread(const ref_grid* g, uint8_t* tested, int can, int axis, const int start[3],
                          int size[3], uint8_t material)
{
    int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    for (int i = start[a1]; can && i < start[a1] + size[a1]; ++i)
        for (int j = start[a2]; can && j < start[a2] + size[a2]; ++j) {
            int p[3];
            p[axis] = start[axis] + size[axis];
            p[a1] = i;
            p[a2] = j;
            if (!ref_contributes(g, tested, p[0], p[1], p[2], material))
                can = 0;
        }
    if (!can)
        return 0;
    for (int i = start[a1]; i < start[a1] + size[a1]; ++i)
        for (int j = start[a2]; j < start[a2] + size[a2]; ++j) {
            int p[3];
            p[axis] = start[axis] + size[axis];
            p[a1] = i;
            p[a2] = j;
            tested[ref_index(g, p[0], p[1], p[2])] = 1;
        }
    size[axis]++;
    return 1;
}

static uint32_t ref_boxes(const ref_grid* g, vxk_voxel_box* out)
{
    size_t n = (size_t)g->sx * g->sy * g->sz;
    uint8_t* tested = calloc(n, 1);
    uint32_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        if (tested[i])
            continue;
        tested[i] = 1;
        uint8_t v = g->voxels[i];
        if (!(g->solid ? g->solid[v] != 0 : v != 0))
            continue;
        int start[3] = {(int)(i % (size_t)g->sx), (int)(i / ((size_t)g->sx * g->sz)),
                        (int)((i / (size_t)g->sx) % (size_t)g->sz)};
        int size[3] = {1, 1, 1};
        int cx = 1, cy = 1, cz = 1;
        while (cx || cy || cz) {
            cx = ref_try_spread(g, tested, cx, 0, start, size, v);
            cy = ref_try_spread(g, tested, cy, 1, start, size, v);
            cz = ref_try_spread(g, tested, cz, 2, start, size, v);
        }
        vxk_voxel_box b = {0};
        b.x = (uint16_t)start[0];
        b.y = (uint16_t)start[1];
        b.z = (uint16_t)start[2];
        b.size_x = (uint16_t)size[0];
        b.size_y = (uint16_t)size[1];
        b.size_z = (uint16_t)size[2];
        b.material = g->per_material ? v : 0;
        out[count++] = b;
    }
    free(tested);
    return count;
}

// Disjoint, exact cover of the solid voxels, uniform material per box when asked, and maximal:
// each +axis layer of box k holds a voxel outside the grid, not solid, of another material, or
// taken by an earlier box.
static int check_properties(const ref_grid* g, const vxk_voxel_box* boxes, uint32_t count)
{
    size_t n = (size_t)g->sx * g->sy * g->sz;
    uint32_t* owner = calloc(n, sizeof(uint32_t));
    for (uint32_t k = 0; k < count; ++k) {
        vxk_voxel_box b = boxes[k];
        VXK_CHECK(b.size_x >= 1 && b.size_y >= 1 && b.size_z >= 1);
        VXK_CHECK(b.x + b.size_x <= g->sx && b.y + b.size_y <= g->sy && b.z + b.size_z <= g->sz);
        uint8_t first = g->voxels[ref_index(g, b.x, b.y, b.z)];
        for (int y = b.y; y < b.y + b.size_y; ++y)
            for (int z = b.z; z < b.z + b.size_z; ++z)
                for (int x = b.x; x < b.x + b.size_x; ++x) {
                    size_t i = ref_index(g, x, y, z);
                    VXK_CHECK_MSG(owner[i] == 0, "boxes %u and %u overlap", owner[i] - 1, k);
                    owner[i] = k + 1;
                    uint8_t v = g->voxels[i];
                    VXK_CHECK(g->solid ? g->solid[v] != 0 : v != 0);
                    if (g->per_material) {
                        VXK_CHECK_EQ_INT(v, first);
                        VXK_CHECK_EQ_INT(b.material, v);
                    }
                }
    }
    for (size_t i = 0; i < n; ++i) {
        uint8_t v = g->voxels[i];
        int solid = g->solid ? g->solid[v] != 0 : v != 0;
        VXK_CHECK_MSG(solid == (owner[i] != 0), "voxel %zu solid %d covered %u", i, solid,
                      owner[i]);
    }
    for (uint32_t k = 0; k < count; ++k) {
        vxk_voxel_box b = boxes[k];
        int lo[3] = {b.x, b.y, b.z}, sz[3] = {b.size_x, b.size_y, b.size_z};
        uint8_t material = g->voxels[ref_index(g, b.x, b.y, b.z)];
        for (int axis = 0; axis < 3; ++axis) {
            int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
            int blocked = 0;
            for (int i = lo[a1]; i < lo[a1] + sz[a1] && !blocked; ++i)
                for (int j = lo[a2]; j < lo[a2] + sz[a2] && !blocked; ++j) {
                    int p[3];
                    p[axis] = lo[axis] + sz[axis];
                    p[a1] = i;
                    p[a2] = j;
                    if (p[0] >= g->sx || p[1] >= g->sy || p[2] >= g->sz) {
                        blocked = 1;
                        continue;
                    }
                    size_t idx = ref_index(g, p[0], p[1], p[2]);
                    uint8_t v = g->voxels[idx];
                    int solid = g->solid ? g->solid[v] != 0 : v != 0;
                    if (!solid || owner[idx] <= k || (g->per_material && v != material))
                        blocked = 1;
                }
            VXK_CHECK_MSG(blocked, "box %u could still grow along axis %d", k, axis);
        }
    }
    free(owner);
    return 0;
}

static void fill_random(uint8_t* voxels, int sx, int sy, int sz, uint64_t* rng)
{
    size_t n = (size_t)sx * sy * sz;
    uint8_t palette[4];
    uint32_t palette_size = 1 + (uint32_t)(vxk_test_rand(rng) % 4);
    for (uint32_t i = 0; i < palette_size; ++i)
        palette[i] = (uint8_t)(1 + vxk_test_rand(rng) % 255);
    uint32_t shape = (uint32_t)(vxk_test_rand(rng) % 3);
    uint32_t density = (uint32_t)(vxk_test_rand(rng) % 101);
    memset(voxels, 0, n);
    if (shape == 0) {
        for (size_t i = 0; i < n; ++i)
            if (vxk_test_rand(rng) % 100 < density)
                voxels[i] = palette[vxk_test_rand(rng) % palette_size];
        return;
    }
    uint32_t boxes = 1 + (uint32_t)(vxk_test_rand(rng) % 8);
    int size[3] = {sx, sy, sz};
    for (uint32_t b = 0; b < boxes; ++b) {
        int lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = (int)(vxk_test_rand(rng) % (uint64_t)size[a]);
            hi[a] = lo[a] + (int)(vxk_test_rand(rng) % (uint64_t)(size[a] - lo[a]));
        }
        uint8_t m = (shape == 2 && (vxk_test_rand(rng) & 3) == 0)
                        ? 0
                        : palette[vxk_test_rand(rng) % palette_size];
        for (int y = lo[1]; y <= hi[1]; ++y)
            for (int z = lo[2]; z <= hi[2]; ++z)
                for (int x = lo[0]; x <= hi[0]; ++x)
                    voxels[(size_t)x + (size_t)sx * ((size_t)z + (size_t)sz * y)] = m;
    }
}

static int test_chunks_match_article(void)
{
    uint64_t rng = 0xB0C5ull;
    uint8_t voxels[512];
    uint8_t solid[256];
    static vxk_voxel_box ref[512], got[512], again[512];
    uint64_t boxes = 0, solid_voxels = 0;
    int iterations = VXK_TEST_SLOW ? 2000 : 10000;
    for (int iter = 0; iter < iterations; ++iter) {
        fill_random(voxels, 8, 8, 8, &rng);
        int use_table = (int)(vxk_test_rand(&rng) & 1);
        for (int i = 0; i < 256; ++i)
            solid[i] = i != 0 && (vxk_test_rand(&rng) % 4) != 0;
        for (int mode = 0; mode < 2; ++mode) {
            ref_grid g = {8, 8, 8, voxels, use_table ? solid : NULL, mode};
            uint32_t nref = ref_boxes(&g, ref), n = 0;
            VXK_CHECK_EQ_INT(vxk_boxes_chunk(got, 512, &n, voxels, g.solid, (vxk_boxes_mode)mode),
                             VXK_OK);
            VXK_CHECK_EQ_INT(n, nref);
            VXK_CHECK_MSG(memcmp(got, ref, n * sizeof(vxk_voxel_box)) == 0,
                          "chunk %d mode %d differs from the article's loop", iter, mode);
            if (check_properties(&g, got, n))
                return 1;
            // The exact-capacity path gives the same boxes; one less is a capacity error.
            uint32_t n2 = 0;
            VXK_CHECK_EQ_INT(vxk_boxes_chunk(again, n, &n2, voxels, g.solid, (vxk_boxes_mode)mode),
                             VXK_OK);
            VXK_CHECK(n2 == n && memcmp(again, got, n * sizeof(vxk_voxel_box)) == 0);
            if (n > 0) {
                uint32_t n3 = 777;
                VXK_CHECK_EQ_INT(
                    vxk_boxes_chunk(again, n - 1, &n3, voxels, g.solid, (vxk_boxes_mode)mode),
                    VXK_ERR_CAPACITY);
                VXK_CHECK_EQ_INT(n3, 777);
            }
            // The grid path on the same voxels agrees with the chunk path.
            vxk_voxel_grid grid = {{8, 8, 8}, voxels};
            vxk_box_list list = {0};
            VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &grid, g.solid, (vxk_boxes_mode)mode), VXK_OK);
            VXK_CHECK(list.count == n);
            VXK_CHECK(n == 0 || memcmp(list.boxes, got, n * sizeof(vxk_voxel_box)) == 0);
            vxk_box_list_free(&list);
            if (mode == 0) {
                boxes += n;
                for (int i = 0; i < 512; ++i)
                    solid_voxels += g.solid ? g.solid[voxels[i]] != 0 : voxels[i] != 0;
            }
        }
    }
    fprintf(stderr, "   %d random chunks: %.3f boxes per solid voxel (any solid)\n", iterations,
            solid_voxels ? (double)boxes / (double)solid_voxels : 0.0);
    return 0;
}

static int test_grids_match_article(void)
{
    uint64_t rng = 0x6A1Dull;
    int iterations = VXK_TEST_SLOW ? 300 : 2000;
    vxk_box_list list = {0}; // reused: storage only grows
    for (int iter = 0; iter < iterations; ++iter) {
        // x up to 150 crosses several 64-bit words per row.
        int sx = 1 + (int)(vxk_test_rand(&rng) % 150);
        int sy = 1 + (int)(vxk_test_rand(&rng) % 16);
        int sz = 1 + (int)(vxk_test_rand(&rng) % 16);
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){sx, sy, sz}), VXK_OK);
        fill_random(grid.voxels, sx, sy, sz, &rng);
        size_t n = (size_t)sx * sy * sz;
        vxk_voxel_box* ref = malloc(n * sizeof(vxk_voxel_box) + 1);
        for (int mode = 0; mode < 2; ++mode) {
            ref_grid g = {sx, sy, sz, grid.voxels, NULL, mode};
            uint32_t nref = ref_boxes(&g, ref);
            VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &grid, NULL, (vxk_boxes_mode)mode), VXK_OK);
            VXK_CHECK_EQ_INT(list.count, nref);
            VXK_CHECK_MSG(nref == 0 || memcmp(list.boxes, ref, nref * sizeof(vxk_voxel_box)) == 0,
                          "grid %d (%dx%dx%d) mode %d differs from the article's loop", iter, sx,
                          sy, sz, mode);
            if (check_properties(&g, list.boxes, list.count))
                return 1;
        }
        free(ref);
        vxk_voxel_grid_free(&grid);
    }
    vxk_box_list_free(&list);
    return 0;
}

static int test_errors(void)
{
    uint8_t voxels[512] = {0};
    vxk_voxel_box out[512];
    uint32_t n = 0;
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(NULL, 512, &n, voxels, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(out, 512, NULL, voxels, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(out, 512, &n, NULL, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(out, 512, &n, voxels, NULL, (vxk_boxes_mode)7),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(out, 512, &n, voxels, NULL, VXK_BOXES_ANY_SOLID), VXK_OK);
    VXK_CHECK_EQ_INT(n, 0);
    memset(voxels, 3, sizeof(voxels));
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(out, 512, &n, voxels, NULL, VXK_BOXES_PER_MATERIAL), VXK_OK);
    VXK_CHECK_EQ_INT(n, 1);
    VXK_CHECK(out[0].size_x == 8 && out[0].size_y == 8 && out[0].size_z == 8 &&
              out[0].material == 3);

    vxk_box_list list = {0};
    vxk_voxel_grid bad = {{0, 4, 4}, voxels};
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &bad, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    vxk_voxel_grid none = {{4, 4, 4}, NULL};
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &none, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_grid(NULL, &none, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(list.boxes == NULL && list.count == 0);
    return 0;
}

// World chunks read through the world equal the chunk path on voxels read one by one.
static int test_world_chunks(void)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    uint64_t rng = 0x77ull;
    vxk_int3 min = {-12, -8, -4}, size = {24, 16, 16};
    static uint8_t ids[24 * 16 * 16];
    static const uint8_t mats[3] = {VXK_MAT_STONE, VXK_MAT_WATER, VXK_MAT_SAND};
    for (size_t i = 0; i < sizeof(ids); ++i)
        ids[i] = vxk_test_rand(&rng) % 3 ? mats[vxk_test_rand(&rng) % 3] : 0;
    VXK_CHECK_EQ_INT(vxk_world_write_box(world, vxk_test_box_sized(min, size), ids), VXK_OK);
    uint8_t solid[256];
    const vxk_material_table* table = vxk_world_materials(world);
    for (int i = 0; i < 256; ++i)
        solid[i] = table->materials[i].kind == VXK_MATERIAL_SOLID;
    static vxk_voxel_box a[512], b[512];
    for (int cy = -2; cy <= 1; ++cy)
        for (int cz = -1; cz <= 2; ++cz)
            for (int cx = -2; cx <= 1; ++cx)
                for (int mode = 0; mode < 2; ++mode) {
                    uint32_t na = 0, nb = 0;
                    VXK_CHECK_EQ_INT(vxk_chunk_boxes(world, a, 512, &na, (vxk_int3){cx, cy, cz},
                                                     (vxk_boxes_mode)mode),
                                     VXK_OK);
                    uint8_t voxels[512];
                    for (int y = 0; y < 8; ++y)
                        for (int z = 0; z < 8; ++z)
                            for (int x = 0; x < 8; ++x)
                                voxels[x + 8 * z + 64 * y] = vxk_world_get_voxel(
                                    world, (vxk_int3){cx * 8 + x, cy * 8 + y, cz * 8 + z});
                    VXK_CHECK_EQ_INT(
                        vxk_boxes_chunk(b, 512, &nb, voxels, solid, (vxk_boxes_mode)mode), VXK_OK);
                    VXK_CHECK(na == nb && memcmp(a, b, na * sizeof(vxk_voxel_box)) == 0);
                }
    uint32_t n = 0;
    VXK_CHECK_EQ_INT(vxk_chunk_boxes(world, a, 512, &n, (vxk_int3){INT32_MAX / 8 + 1, 0, 0},
                                     VXK_BOXES_ANY_SOLID),
                     VXK_ERR_OUT_OF_RANGE);
    vxk_world_destroy(world);
    return 0;
}

// The .vox samples: properties hold, and the boxes-per-solid-voxel figure is printed.
static int test_vox_samples(void)
{
    static const char* files[] = {"dotvox_axes.vox", "floooh_cassette.vox", "floooh_scene.vox",
                                  "ogt_test_multiple_model_scene.vox"};
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); ++f) {
        char relative[256], path[1024];
        snprintf(relative, sizeof(relative), "vox/%s", files[f]);
        vxk_test_data_path(path, sizeof(path), relative);
        size_t size = 0;
        uint8_t* data = vxk_test_read_file(path, &size);
        VXK_CHECK_MSG(data != NULL, "cannot read %s", path);
        vxk_voxel_grid grid = {0};
        vxk_status status = vxk_vox_load_flat(data, size, NULL, &grid, NULL);
        free(data);
        VXK_CHECK_EQ_INT(status, VXK_OK);
        vxk_box_list list = {0};
        for (int mode = 0; mode < 2; ++mode) {
            VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &grid, NULL, (vxk_boxes_mode)mode), VXK_OK);
            ref_grid g = {grid.size.x, grid.size.y, grid.size.z, grid.voxels, NULL, mode};
            if (check_properties(&g, list.boxes, list.count))
                return 1;
            size_t n = (size_t)grid.size.x * grid.size.y * grid.size.z, solid = 0;
            for (size_t i = 0; i < n; ++i)
                solid += grid.voxels[i] != 0;
            fprintf(stderr, "   %s (%dx%dx%d, %zu solid) %s: %u boxes, %.4f per solid voxel\n",
                    files[f], grid.size.x, grid.size.y, grid.size.z, solid,
                    mode ? "per material" : "any solid", list.count,
                    solid ? (double)list.count / (double)solid : 0.0);
        }
        vxk_box_list_free(&list);
        vxk_voxel_grid_free(&grid);
    }
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static int test_voxel_grid_and_boxes(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_voxel_grid grid;
    memset(&grid, CANARY, sizeof(grid));
    VXK_CHECK(vxk_voxel_grid_create(NULL, (vxk_int3){1, 1, 1}) != VXK_OK);
    const int32_t bad[] = {0, -1, INT32_MIN, 4097, INT32_MAX};
    for (int a = 0; a < 3; ++a) {
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
            int32_t s[3] = {2, 2, 2};
            s[a] = bad[i];
            VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){s[0], s[1], s[2]}),
                             VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(&grid, sizeof(grid)));
        }
    }
    vxk_voxel_grid_free(NULL);
    vxk_voxel_grid zero;
    memset(&zero, 0, sizeof(zero));
    vxk_voxel_grid_free(&zero);

    // vxk_boxes_chunk.
    uint8_t voxels[512];
    uint64_t rng = vxk_test_seed(99);
    for (int i = 0; i < 512; ++i)
        voxels[i] = (uint8_t)(vxk_test_rand(&rng) % 3);
    vxk_voxel_box boxes[VXK_BOXES_CHUNK_MAX];
    uint32_t count = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(NULL, 512, &count, voxels, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(boxes, 512, NULL, voxels, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(boxes, 512, &count, NULL, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(boxes, 512, &count, voxels, NULL, VXK_BOXES_MODE_COUNT),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(boxes, 512, &count, voxels, NULL, (vxk_boxes_mode)-1),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    uint32_t full = 0;
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(boxes, 512, &full, voxels, NULL, VXK_BOXES_PER_MATERIAL),
                     VXK_OK);
    VXK_CHECK(full > 1);
    const uint32_t caps[] = {0, 1, full - 1};
    for (int i = 0; i < 3; ++i) {
        memset(boxes, CANARY, sizeof(boxes));
        VXK_CHECK_EQ_INT(
            vxk_boxes_chunk(boxes, caps[i], &count, voxels, NULL, VXK_BOXES_PER_MATERIAL),
            VXK_ERR_CAPACITY);
        VXK_CHECK(all_canary(boxes, sizeof(boxes)));
        VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    }
    // An empty chunk needs no room at all.
    uint8_t air[512] = {0};
    VXK_CHECK_EQ_INT(vxk_boxes_chunk(boxes, 0, &count, air, NULL, VXK_BOXES_ANY_SOLID), VXK_OK);
    VXK_CHECK_EQ_U64(count, 0);

    // vxk_chunk_boxes at and beyond the int32 chunk range.
    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
    count = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(
        vxk_chunk_boxes(NULL, boxes, 512, &count, (vxk_int3){0, 0, 0}, VXK_BOXES_ANY_SOLID),
        VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){0, 0, 0}, (vxk_boxes_mode)7),
                     VXK_ERR_INVALID_ARGUMENT);
    const int32_t outside[] = {INT32_MAX, INT32_MIN, (1 << 28), -(1 << 28) - 1};
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < 4; ++i) {
            int32_t c[3] = {0, 0, 0};
            c[a] = outside[i];
            memset(boxes, CANARY, sizeof(boxes));
            VXK_CHECK_EQ_INT(vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){c[0], c[1], c[2]},
                                             VXK_BOXES_ANY_SOLID),
                             VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(boxes, sizeof(boxes)));
        }
    }
    VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    // The first and last chunks of int32 are valid and hold the populated voxels.
    int32_t top = (1 << 28) - 1, bottom = -(1 << 28);
    VXK_CHECK_EQ_INT(
        vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){top, top, top}, VXK_BOXES_PER_MATERIAL),
        VXK_OK);
    VXK_CHECK(count >= 1 && boxes[0].material == VXK_MAT_METAL);
    VXK_CHECK_EQ_INT(vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){bottom, bottom, bottom},
                                     VXK_BOXES_PER_MATERIAL),
                     VXK_OK);
    VXK_CHECK(count >= 1 && boxes[0].material == VXK_MAT_WOOD);
    vxk_world_destroy(w);

    // vxk_boxes_grid: the list is unchanged on argument errors.
    vxk_box_list list = {0};
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){9, 5, 7}), VXK_OK);
    for (size_t i = 0; i < 9 * 5 * 7; ++i)
        grid.voxels[i] = (uint8_t)(vxk_test_rand(&rng) % 4);
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_PER_MATERIAL), VXK_OK);
    vxk_box_list kept = list;
    VXK_CHECK_EQ_INT(vxk_boxes_grid(NULL, &grid, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, NULL, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_MODE_COUNT),
                     VXK_ERR_INVALID_ARGUMENT);
    vxk_voxel_grid forged = grid;
    forged.voxels = NULL;
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &forged, NULL, VXK_BOXES_ANY_SOLID),
                     VXK_ERR_INVALID_ARGUMENT);
    const int32_t bad_grid[] = {0, -1, INT32_MIN};
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < 3; ++i) {
            forged = grid;
            (&forged.size.x)[a] = bad_grid[i];
            VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &forged, NULL, VXK_BOXES_ANY_SOLID),
                             VXK_ERR_INVALID_ARGUMENT);
        }
        // Larger than 16-bit box coordinates: rejected before any voxel is read.
        forged = grid;
        (&forged.size.x)[a] = 65536;
        VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &forged, NULL, VXK_BOXES_ANY_SOLID),
                         VXK_ERR_OUT_OF_RANGE);
        (&forged.size.x)[a] = INT32_MAX;
        VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &forged, NULL, VXK_BOXES_ANY_SOLID),
                         VXK_ERR_OUT_OF_RANGE);
    }
    VXK_CHECK(list.boxes == kept.boxes && list.count == kept.count &&
              list.capacity == kept.capacity);
    vxk_box_list_free(&list);
    vxk_box_list_free(NULL);
    vxk_voxel_grid_free(&grid);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

static int test_oom_boxes(void)
{
    vxk_voxel_grid grid;
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){70, 9, 11}), VXK_OK);
    uint64_t rng = vxk_test_seed(17);
    for (size_t i = 0; i < 70 * 9 * 11; ++i)
        grid.voxels[i] = (uint8_t)(vxk_test_rand(&rng) % 5 == 0 ? 0 : 1 + vxk_test_rand(&rng) % 3);
    vxk_box_list ref = {0};
    VXK_CHECK_EQ_INT(vxk_boxes_grid(&ref, &grid, NULL, VXK_BOXES_PER_MATERIAL), VXK_OK);
    VXK_CHECK(ref.count > 256); // the list has to grow more than once
    size_t base = vxk_allocated_bytes();
    vxk_box_list list = {0};
    OOM_SWEEP(
        list = (vxk_box_list){0}, vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_PER_MATERIAL),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK_EQ_U64(list.count, 0);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(),
                                 base + (size_t)list.capacity * sizeof(vxk_voxel_box));
            } else {
                VXK_CHECK_EQ_U64(list.count, ref.count);
                VXK_CHECK(memcmp(list.boxes, ref.boxes, ref.count * sizeof(vxk_voxel_box)) == 0);
            }
        },
        {
            vxk_box_list_free(&list);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    // A list reused across calls keeps its storage and contents are replaced.
    vxk_box_list_free(&ref);
    vxk_voxel_grid_free(&grid);
    size_t voxels_base = vxk_allocated_bytes();
    (void)voxels_base;
    OOM_SWEEP(
        memset(&grid, CANARY, sizeof(grid)), vxk_voxel_grid_create(&grid, (vxk_int3){3, 4, 5}),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&grid, sizeof(grid)));
            }
        },
        {
            if (st == VXK_OK)
                vxk_voxel_grid_free(&grid);
        });
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// vxk_voxel_grid_create for each status vxk/voxel_grid.h lists.
static int test_statuses_voxel_grid(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_voxel_grid grid;
    EXPECT_STATUS(VXK_OK, vxk_voxel_grid_create(&grid, (vxk_int3){3, 4, 5}));
    vxk_voxel_grid_free(&grid);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_voxel_grid_create(NULL, (vxk_int3){3, 4, 5}));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_voxel_grid_create(&grid, (vxk_int3){3, 4097, 5}));
    EXPECT_NO_MEMORY(vxk_voxel_grid_create(&grid, (vxk_int3){3, 4, 5}));
    return vxk_status_group_end(start);
}

// vxk_boxes_chunk, vxk_chunk_boxes (on the status terrain) and vxk_boxes_grid for each status
// their headers list.
static int test_statuses_boxes(void)
{
    vxk_status_group start = vxk_status_group_begin();
    uint32_t count = 0;
    vxk_world* w = vxk_scene_status_world();
    VXK_CHECK(w != NULL);
    vxk_voxel_box boxes[VXK_BOXES_CHUNK_MAX];
    uint8_t voxels[512] = {0};
    voxels[0] = voxels[9] = VXK_MAT_STONE; // two separate voxels: two boxes
    EXPECT_STATUS(VXK_OK, vxk_boxes_chunk(boxes, 512, &count, voxels, NULL, VXK_BOXES_ANY_SOLID));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT,
                  vxk_boxes_chunk(boxes, 512, &count, voxels, NULL, (vxk_boxes_mode)7));
    EXPECT_STATUS(VXK_ERR_CAPACITY,
                  vxk_boxes_chunk(boxes, 1, &count, voxels, NULL, VXK_BOXES_ANY_SOLID));
    EXPECT_STATUS(VXK_OK, vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){0, 0, 0},
                                          VXK_BOXES_PER_MATERIAL));
    EXPECT_STATUS(
        VXK_ERR_INVALID_ARGUMENT,
        vxk_chunk_boxes(w, NULL, 512, &count, (vxk_int3){0, 0, 0}, VXK_BOXES_PER_MATERIAL));
    EXPECT_STATUS(
        VXK_ERR_OUT_OF_RANGE,
        vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){1 << 28, 0, 0}, VXK_BOXES_ANY_SOLID));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_chunk_boxes(w, boxes, 0, &count, (vxk_int3){0, 0, 0},
                                                    VXK_BOXES_PER_MATERIAL));
    vxk_world_destroy(w);

    vxk_box_list list = {0};
    vxk_voxel_grid grid = {{8, 8, 8}, voxels};
    EXPECT_STATUS(VXK_OK, vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_ANY_SOLID));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_boxes_grid(NULL, &grid, NULL, VXK_BOXES_ANY_SOLID));
    vxk_voxel_grid wide = {{65536, 1, 1}, voxels}; // refused before its voxels are read
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_boxes_grid(&list, &wide, NULL, VXK_BOXES_ANY_SOLID));
    vxk_box_list_free(&list);
    EXPECT_NO_MEMORY(vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_ANY_SOLID));
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_errors);
    VXK_RUN(test_chunks_match_article);
    VXK_RUN(test_grids_match_article);
    VXK_RUN(test_world_chunks);
    VXK_RUN(test_vox_samples);
    vxk_edge_tests_begin();
    VXK_RUN(test_voxel_grid_and_boxes);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_boxes);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_voxel_grid);
    VXK_RUN(test_statuses_boxes);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
