// test_api_edge.c: every public function against bad input (NULL pointers, non-finite and extreme
// floats, coordinates at and beyond int32, zero and huge counts, short buffers, forged defs,
// undefined materials, stale handles) and against an allocator that fails the Nth allocation:
// each call returns its status and leaves the world hashes, the byte counter and outputs as before.
#include <float.h>
#include <math.h>
#include <string.h>

#include <vxk/vxk.h>

#include "harness.h"
#include "test.h"

static vxk_world* make_world(void)
{
    vxk_world_def def = vxk_default_world_def();
    vxk_world* world = NULL;
    if (vxk_world_create(&def, &world) != VXK_OK)
        return NULL;
    return world;
}

// Some terrain: uniform and mixed chunks, water, and voxels at both ends of int32.
static vxk_status populate_some(vxk_world* world, size_t box_count)
{
    static const int64_t boxes[][7] = {
        {-5, 0, -7, 20, 3, 9, VXK_MAT_STONE},
        {-3, 4, -2, 4, 6, 5, VXK_MAT_WATER},
        {0, 0, 0, 15, 15, 15, VXK_MAT_DIRT},
        {2, 9, 2, 2, 9, 2, VXK_MAT_AIR},
        {INT32_MAX - 2, INT32_MAX - 1, INT32_MAX - 3, INT32_MAX, INT32_MAX, INT32_MAX,
         VXK_MAT_METAL},
        {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN + 2, INT32_MIN + 1, INT32_MIN, VXK_MAT_WOOD},
    };
    for (size_t i = 0; i < box_count && i < sizeof(boxes) / sizeof(boxes[0]); ++i) {
        vxk_status st =
            vxk_world_fill_box(world, vxk_test_box(boxes[i], boxes[i] + 3), (uint8_t)boxes[i][6]);
        if (st != VXK_OK)
            return st;
    }
    return VXK_OK;
}

static vxk_status populate(vxk_world* world)
{
    return populate_some(world, 6);
}

// Without the voxels at the int32 extremes (see test_raycast_edges).
static vxk_status populate_near(vxk_world* world)
{
    return populate_some(world, 4);
}

// ---- base -------------------------------------------------------------------------------------

static int test_base(void)
{
    for (int s = 0; s < VXK_STATUS_COUNT + 3; ++s) {
        const char* text = vxk_status_string((vxk_status)s);
        VXK_CHECK(text != NULL && text[0] != 0);
    }
    VXK_CHECK(vxk_status_string((vxk_status)-1) != NULL);
    VXK_CHECK(strcmp(vxk_version_string(), "0.1.0") == 0);
    // An allocator with a missing function is not installed (the default is used instead):
    // allocations still count and succeed.
    size_t before = vxk_allocated_bytes();
    vxk_allocator partial = {fa_alloc, NULL, NULL};
    vxk_set_allocator(&partial);
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    vxk_world_destroy(w);
    vxk_set_allocator(NULL);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- materials and world creation ------------------------------------------------------------

static int test_material_table(void)
{
    vxk_default_material_table(NULL); // tolerated, nothing to write
    VXK_CHECK_EQ_INT(vxk_material_table_validate(NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_material_table base;
    vxk_default_material_table(&base);
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&base), VXK_OK);
    static vxk_material_table t;
    // Non-finite and negative values of every float field.
    for (int field = 0; field < 3; ++field) {
        for (int k = 0; k < SPECIAL_FLOATS; ++k) {
            t = base;
            float v = special_float(k);
            float* f = field == 0   ? &t.materials[VXK_MAT_STONE].density
                       : field == 1 ? &t.materials[VXK_MAT_STONE].friction
                                    : &t.materials[VXK_MAT_STONE].restitution;
            *f = v;
            vxk_status st = vxk_material_table_validate(&t);
            bool ok = isfinite(v) && v >= 0.0f && (field != 2 || v <= 1.0f);
            if (ok)
                VXK_CHECK_EQ_INT(st, VXK_OK);
            else
                VXK_CHECK_MSG(st != VXK_OK, "field %d value %g accepted", field, (double)v);
        }
    }
    t = base;
    t.materials[0].defined = 0;
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&t), VXK_ERR_BAD_MATERIAL);
    t = base;
    t.materials[0].kind = VXK_MATERIAL_SOLID;
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&t), VXK_ERR_BAD_MATERIAL);
    t = base;
    t.materials[77].defined = 1; // zeroed entry: kind air on a nonzero id
    VXK_CHECK(vxk_material_table_validate(&t) != VXK_OK);
    t = base;
    t.materials[VXK_MAT_STONE].kind = 9;
    VXK_CHECK(vxk_material_table_validate(&t) != VXK_OK);
    t = base;
    t.materials[VXK_MAT_STONE].defined = 2;
    VXK_CHECK(vxk_material_table_validate(&t) != VXK_OK);
    t = base;
    memset(t.materials[VXK_MAT_STONE].name, 'x', sizeof(t.materials[0].name));
    VXK_CHECK(vxk_material_table_validate(&t) != VXK_OK);
    // Undefined entries may hold anything.
    t = base;
    memset(&t.materials[200], 0xFF, sizeof(vxk_material));
    t.materials[200].defined = 0;
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&t), VXK_OK);
    return 0;
}

static int test_world_create(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_world* const canary = (vxk_world*)(uintptr_t)0xA5A5A5A0u;
    vxk_world* out = canary;
    vxk_world_def def = vxk_default_world_def();
    VXK_CHECK_EQ_INT(vxk_world_create(NULL, &out), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_world_create(&def, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_world_def zero;
    memset(&zero, 0, sizeof(zero));
    VXK_CHECK_EQ_INT(vxk_world_create(&zero, &out), VXK_ERR_BAD_DEF);
    vxk_world_def forged = def;
    forged.cookie ^= 1u;
    VXK_CHECK_EQ_INT(vxk_world_create(&forged, &out), VXK_ERR_BAD_DEF);
    forged.cookie = ~0u;
    VXK_CHECK_EQ_INT(vxk_world_create(&forged, &out), VXK_ERR_BAD_DEF);
    VXK_CHECK(out == canary);
    // voxel_size: non-finite, zero, negative, and sizes whose reciprocal is not a normal float.
    const float bad_sizes[] = {f_nan(), INFINITY, -INFINITY, 0.0f,         -0.0f,
                               -1.0f,   -FLT_MAX, FLT_MAX,   FLT_TRUE_MIN, FLT_MIN / 4.0f};
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); ++i) {
        vxk_world_def d = def;
        d.voxel_size = bad_sizes[i];
        vxk_status st = vxk_world_create(&d, &out);
        VXK_CHECK_MSG(st != VXK_OK, "voxel_size %g accepted", (double)bad_sizes[i]);
        if (!isfinite(bad_sizes[i]))
            VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
        else
            VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK(out == canary);
    }
    // Extreme but usable sizes are accepted and usable.
    const float ok_sizes[] = {1e-30f, 1e30f, FLT_MIN * 8.0f};
    for (size_t i = 0; i < sizeof(ok_sizes) / sizeof(ok_sizes[0]); ++i) {
        vxk_world_def d = def;
        d.voxel_size = ok_sizes[i];
        vxk_world* w = NULL;
        VXK_CHECK_EQ_INT(vxk_world_create(&d, &w), VXK_OK);
        VXK_CHECK(vxk_world_voxel_size(w) == ok_sizes[i]);
        vxk_world_destroy(w);
    }
    // A bad material table in the def.
    static vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_DIRT].density = f_nan();
    vxk_world_def d = def;
    d.materials = &table;
    VXK_CHECK_EQ_INT(vxk_world_create(&d, &out), VXK_ERR_NOT_FINITE);
    VXK_CHECK(out == canary);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);

    // Accessors and destroy tolerate NULL.
    vxk_world_destroy(NULL);
    VXK_CHECK(vxk_world_voxel_size(NULL) == 0.0f);
    VXK_CHECK(vxk_world_materials(NULL) == NULL);
    VXK_CHECK(vxk_world_jobs(NULL) == NULL);
    VXK_CHECK_EQ_INT(vxk_world_get_voxel(NULL, (vxk_int3){0, 0, 0}), VXK_MAT_AIR);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(NULL), 0);
    vxk_world_memory mem;
    memset(&mem, CANARY, sizeof(mem));
    vxk_world_memory_stats(NULL, &mem);
    VXK_CHECK_EQ_U64(mem.total_bytes, 0);
    return 0;
}

// ---- terrain reads and writes -----------------------------------------------------------------

static void count_chunks(void* ctx, const vxk_chunk_info* info)
{
    (void)info;
    ++*(uint32_t*)ctx;
}

static int test_world_terrain(void)
{
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
    snapshot s0 = snap(w);

    // Extremes are stored and read back.
    VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){INT32_MAX, INT32_MAX, INT32_MAX}),
                     VXK_MAT_METAL);
    VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){INT32_MIN, INT32_MIN, INT32_MIN}),
                     VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){INT32_MIN, INT32_MAX, INT32_MIN}),
                     VXK_MAT_AIR);

    // read_box: inverted boxes, byte counts past size_t, NULL pointers; the buffer is untouched.
    uint8_t buf[64];
    const vxk_int_box bad_boxes[] = {
        {{0, 0, 0}, {-1, 0, 0}},
        {{0, 0, 0}, {0, -1, 0}},
        {{0, 0, 0}, {0, 0, -1}},
        {{INT32_MAX, 0, 0}, {INT32_MIN, 0, 0}},
        {{0, INT32_MAX, 0}, {0, INT32_MIN, 0}},
        {{0, 0, INT32_MAX}, {0, 0, INT32_MIN}},
        {{INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}},
    };
    const vxk_int_box huge_boxes[] = {
        {{INT32_MIN, 0, INT32_MIN}, {INT32_MAX, 0, INT32_MAX}},
        {{INT32_MIN, INT32_MIN, 0}, {INT32_MAX, INT32_MAX, 0}},
        {{0, INT32_MIN, INT32_MIN}, {0, INT32_MAX, INT32_MAX}},
        {{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}},
    };
    const size_t bad_count = sizeof(bad_boxes) / sizeof(bad_boxes[0]);
    const size_t huge_count = sizeof(huge_boxes) / sizeof(huge_boxes[0]);
    for (size_t i = 0; i < bad_count; ++i) {
        memset(buf, CANARY, sizeof(buf));
        VXK_CHECK_EQ_INT(vxk_world_read_box(w, buf, bad_boxes[i]), VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK(all_canary(buf, sizeof(buf)));
    }
    for (size_t i = 0; i < huge_count; ++i) {
        memset(buf, CANARY, sizeof(buf));
        VXK_CHECK_EQ_INT(vxk_world_read_box(w, buf, huge_boxes[i]), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK(all_canary(buf, sizeof(buf)));
    }
    const vxk_int_box unit = {{0, 0, 0}, {0, 0, 0}};
    VXK_CHECK(vxk_world_read_box(NULL, buf, unit) != VXK_OK);
    VXK_CHECK(vxk_world_read_box(w, NULL, unit) != VXK_OK);
    // The last voxels of int32 read fine.
    VXK_CHECK_EQ_INT(vxk_world_read_box(
                         w, buf,
                         vxk_test_box_sized((vxk_int3){INT32_MAX - 1, INT32_MAX - 1, INT32_MAX - 1},
                                            (vxk_int3){2, 2, 2})),
                     VXK_OK);
    VXK_CHECK_EQ_INT(buf[7], VXK_MAT_METAL);

    // fill_box: NULL, inverted boxes, undefined materials. Nothing changes.
    const vxk_int_box small = {{0, 0, 0}, {3, 3, 3}};
    VXK_CHECK(vxk_world_fill_box(NULL, small, VXK_MAT_STONE) != VXK_OK);
    for (size_t i = 0; i < bad_count; ++i) {
        VXK_CHECK_EQ_INT(vxk_world_fill_box(w, bad_boxes[i], VXK_MAT_STONE),
                         VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK_EQ_INT(vxk_world_fill_box(w, bad_boxes[i], VXK_MAT_AIR),
                         VXK_ERR_INVALID_ARGUMENT);
    }
    for (int id = VXK_MAT_DEFAULT_COUNT; id < 256; id += 17)
        VXK_CHECK_EQ_INT(vxk_world_fill_box(w, small, (uint8_t)id), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, small, 255), VXK_ERR_BAD_MATERIAL);
    // A solid fill of the whole int32 space cannot be stored: an error, nothing changed.
    const vxk_int_box all = huge_boxes[huge_count - 1];
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, all, VXK_MAT_STONE), VXK_ERR_OUT_OF_MEMORY);
    CHECK_UNCHANGED(w, s0);

    // write_box: an undefined id anywhere in the buffer rejects the whole write.
    uint8_t ids[4 * 4 * 4];
    for (int i = 0; i < 64; ++i)
        ids[i] = (uint8_t)(i % 3 == 0 ? VXK_MAT_SAND : VXK_MAT_AIR);
    for (int pos = 0; pos < 64; pos += 7) {
        uint8_t keep = ids[pos];
        ids[pos] = 200;
        VXK_CHECK_EQ_INT(
            vxk_world_write_box(w, vxk_test_box_sized((vxk_int3){-2, -2, -2}, (vxk_int3){4, 4, 4}),
                                ids),
            VXK_ERR_BAD_MATERIAL);
        ids[pos] = keep;
    }
    VXK_CHECK(vxk_world_write_box(NULL,
                                  vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){4, 4, 4}),
                                  ids) != VXK_OK);
    VXK_CHECK(vxk_world_write_box(w, vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){4, 4, 4}),
                                  NULL) != VXK_OK);
    for (size_t i = 0; i < bad_count; ++i)
        VXK_CHECK_EQ_INT(vxk_world_write_box(w, bad_boxes[i], ids), VXK_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < huge_count; ++i)
        VXK_CHECK_EQ_INT(vxk_world_write_box(w, huge_boxes[i], ids), VXK_ERR_OUT_OF_RANGE);
    CHECK_UNCHANGED(w, s0);

    // Iteration and stats tolerate NULL callbacks and outputs.
    vxk_world_for_each_chunk(w, NULL, NULL);
    uint32_t n = 0;
    vxk_world_for_each_chunk(NULL, count_chunks, &n);
    VXK_CHECK_EQ_U64(n, 0);
    vxk_world_for_each_chunk(w, count_chunks, &n);
    VXK_CHECK(n > 0);
    vxk_world_memory_stats(w, NULL);

    // An air fill over the whole int32 space clears everything (the sparse path).
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, all, VXK_MAT_AIR), VXK_OK);
    n = 0;
    vxk_world_for_each_chunk(w, count_chunks, &n);
    VXK_CHECK_EQ_U64(n, 0);
    vxk_world* empty = make_world();
    VXK_CHECK(empty != NULL);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), vxk_world_terrain_hash(empty));
    vxk_world_destroy(empty);
    vxk_world_destroy(w);
    return 0;
}

// ---- worldgen ---------------------------------------------------------------------------------

static vxk_worldgen_def tiny_gen(void)
{
    vxk_worldgen_def g = vxk_default_worldgen_def();
    g.size_x = 20;
    g.size_y = 24;
    g.size_z = 18;
    g.seed = 7;
    return g;
}

static int test_worldgen_edges(void)
{
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
    snapshot s0 = snap(w);
    vxk_worldgen_def g = tiny_gen();
    VXK_CHECK_EQ_INT(vxk_worldgen_run(NULL, &g), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_worldgen_def bad;
    memset(&bad, 0, sizeof(bad));
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_BAD_DEF);
    bad = g;
    bad.cookie += 1;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_BAD_DEF);
    const int32_t bad_xz[] = {0, -1, INT32_MIN, INT32_MAX, 65537};
    const int32_t bad_y[] = {0, 7, -8, INT32_MIN, INT32_MAX, 4097};
    for (size_t i = 0; i < sizeof(bad_xz) / sizeof(bad_xz[0]); ++i) {
        bad = g;
        bad.size_x = bad_xz[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
        bad = g;
        bad.size_z = bad_xz[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    for (size_t i = 0; i < sizeof(bad_y) / sizeof(bad_y[0]); ++i) {
        bad = g;
        bad.size_y = bad_y[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    // cave_density: NaN is not finite; infinities and values outside [0, 1] are out of range.
    const float bad_density[] = {INFINITY, -INFINITY, FLT_MAX, -FLT_TRUE_MIN, 1.0000001f, -1.0f};
    bad = g;
    bad.cave_density = f_nan();
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_NOT_FINITE);
    for (size_t i = 0; i < sizeof(bad_density) / sizeof(bad_density[0]); ++i) {
        bad = g;
        bad.cave_density = bad_density[i];
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    CHECK_UNCHANGED(w, s0);
    vxk_world_destroy(w);

    // A table without a terrain material.
    static vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_CLAY].defined = 0;
    vxk_world_def def = vxk_default_world_def();
    def.materials = &table;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
    s0 = snap(w);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &g), VXK_ERR_BAD_MATERIAL);
    table.materials[VXK_MAT_CLAY].defined = 1;
    table.materials[VXK_MAT_WATER].kind = VXK_MATERIAL_SOLID;
    vxk_world_destroy(w);
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &g), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), vxk_world_terrain_hash(w));
    vxk_world_destroy(w);

    // Valid extremes: -0.0 and denormal densities, water levels at both ends, seed extremes.
    const float ok_density[] = {-0.0f, FLT_TRUE_MIN, 1.0f};
    const int32_t levels[] = {INT32_MAX, INT32_MIN + 1, -1};
    for (int i = 0; i < 3; ++i) {
        w = make_world();
        VXK_CHECK(w != NULL);
        vxk_worldgen_def v = g;
        v.cave_density = ok_density[i];
        v.water_level = levels[i];
        v.seed = i == 0 ? 0 : UINT64_MAX;
        VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &v), VXK_OK);
        // Nothing outside the box.
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){-1, 0, 0}), VXK_MAT_AIR);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){0, v.size_y, 0}), VXK_MAT_AIR);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){0, 0, 0}), VXK_MAT_BEDROCK);
        vxk_world_destroy(w);
    }
    return 0;
}

// ---- voxel grids and boxes --------------------------------------------------------------------

static int test_voxel_grid_and_boxes(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_voxel_grid grid;
    memset(&grid, CANARY, sizeof(grid));
    VXK_CHECK(vxk_voxel_grid_create(NULL, 1, 1, 1) != VXK_OK);
    const int32_t bad[] = {0, -1, INT32_MIN, 4097, INT32_MAX};
    for (int a = 0; a < 3; ++a) {
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
            int32_t s[3] = {2, 2, 2};
            s[a] = bad[i];
            VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, s[0], s[1], s[2]), VXK_ERR_OUT_OF_RANGE);
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
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
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
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, 9, 5, 7), VXK_OK);
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
            (&forged.size_x)[a] = bad_grid[i];
            VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &forged, NULL, VXK_BOXES_ANY_SOLID),
                             VXK_ERR_INVALID_ARGUMENT);
        }
        // Larger than 16-bit box coordinates: rejected before any voxel is read.
        forged = grid;
        (&forged.size_x)[a] = 65536;
        VXK_CHECK_EQ_INT(vxk_boxes_grid(&list, &forged, NULL, VXK_BOXES_ANY_SOLID),
                         VXK_ERR_OUT_OF_RANGE);
        (&forged.size_x)[a] = INT32_MAX;
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

// ---- mesher -----------------------------------------------------------------------------------

static int test_mesher_edges(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_material_table table;
    vxk_default_material_table(&table);
    uint8_t solid[256];
    memset(solid, CANARY, sizeof(solid));
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(NULL, &table), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(all_canary(solid, sizeof(solid)));
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, &table), VXK_OK);

    // A checkerboard box: the most quads one chunk can make.
    uint8_t box[VXK_MESHER_BOX_VOXELS];
    for (int y = 0; y < 10; ++y)
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x)
                box[x + 10 * (z + 10 * y)] = (uint8_t)((x + y + z) % 2 ? VXK_MAT_STONE : 0);
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(NULL, 4096, &count, box, solid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 4096, NULL, box, solid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 4096, &count, NULL, solid),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 4096, &count, box, NULL), VXK_ERR_INVALID_ARGUMENT);
    uint32_t full = 0;
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &full, box, solid), VXK_OK);
    VXK_CHECK_EQ_U64(full, VXK_MESHER_MAX_QUADS);
    const uint32_t caps[] = {0, 1, full - 1};
    for (int i = 0; i < 3; ++i) {
        memset(quads, CANARY, sizeof(quads));
        VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, caps[i], &count, box, solid), VXK_ERR_CAPACITY);
        VXK_CHECK(all_canary(quads, sizeof(quads)));
        VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    }

    // vxk_chunk_mesh: chunks whose 10^3 box leaves int32.
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(NULL, quads, 4096, &count, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, NULL, 4096, &count, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, 4096, NULL, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    const int32_t outside[] = {INT32_MAX, INT32_MIN, (1 << 28) - 1, -(1 << 28)};
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < 4; ++i) {
            int32_t c[3] = {0, 0, 0};
            c[a] = outside[i];
            memset(quads, CANARY, sizeof(quads));
            VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, 4096, &count, (vxk_int3){c[0], c[1], c[2]}),
                             VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(quads, sizeof(quads)));
        }
    }
    VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, 0, &count, (vxk_int3){0, 0, 0}), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, VXK_MESHER_MAX_QUADS, &count, (vxk_int3){0, 0, 0}),
                     VXK_OK);
    uint32_t chunk_quads = count;
    VXK_CHECK(chunk_quads > 0);
    vxk_world_destroy(w);

    // vxk_quad_to_mesh: the mesh is untouched on every error.
    vxk_mesh mesh;
    memset(&mesh, CANARY, sizeof(mesh));
    vxk_vec3 o = {0, 0, 0};
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(NULL, quads, 4, 3, o, 1.0f), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, NULL, 4, 3, o, 1.0f), VXK_ERR_INVALID_ARGUMENT);
    const uint32_t bad_corners[] = {0, 1, 2, 5, UINT32_MAX};
    for (int i = 0; i < 5; ++i)
        VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 4, bad_corners[i], o, 1.0f),
                         VXK_ERR_INVALID_ARGUMENT);
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float v = special_float(k);
        for (int a = 0; a < 3; ++a) {
            vxk_vec3 bo = o;
            (&bo.x)[a] = v;
            vxk_status st = vxk_quad_to_mesh(&mesh, quads, 4, 4, bo, 1.0f);
            if (!isfinite(v))
                VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
            else if (st == VXK_OK)
                vxk_mesh_free(&mesh), memset(&mesh, CANARY, sizeof(mesh));
        }
        vxk_status st = vxk_quad_to_mesh(&mesh, quads, 4, 4, o, v);
        if (!isfinite(v))
            VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
        else if (!(v > 0.0f))
            VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
        else {
            VXK_CHECK_EQ_INT(st, VXK_OK);
            vxk_mesh_free(&mesh);
            memset(&mesh, CANARY, sizeof(mesh));
        }
    }
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 4, 3, o, 0.0f), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 4, 3, o, -1.0f), VXK_ERR_OUT_OF_RANGE);
    // A huge count is rejected before any quad is read (quads points at 4 quads only).
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, (1u << 28) + 1, 3, o, 1.0f),
                     VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, UINT32_MAX, 4, o, 1.0f), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
    // count 0: an empty mesh with NULL arrays.
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, NULL, 0, 3, o, 1.0f), VXK_OK);
    VXK_CHECK(mesh.vertices == NULL && mesh.indices == NULL && mesh.primitive_count == 0);
    vxk_mesh_free(&mesh);
    vxk_mesh_free(NULL);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- OBJ --------------------------------------------------------------------------------------

static const char k_obj[] = "# a quad and a triangle\n"
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 2 -0\n"
                            "vt 0 0\nvn 0 0 1\n"
                            "f 1/1/1 2/1/1 3/1/1 4/1/1\n"
                            "f -3 -2 -1\n";

static int test_obj_edges(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_mesh mesh;
    uint32_t line = 77;
    memset(&mesh, CANARY, sizeof(mesh));
    VXK_CHECK(vxk_obj_read(NULL, k_obj, sizeof(k_obj) - 1, 3, &line) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, NULL, 5, 3, &line), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(vxk_obj_read(&mesh, k_obj, sizeof(k_obj) - 1, 0, &line) != VXK_OK);
    VXK_CHECK(vxk_obj_read(&mesh, k_obj, sizeof(k_obj) - 1, 5, &line) != VXK_OK);
    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
    // Malformed lines: the status, the line, and the mesh untouched.
    static const struct {
        const char* text;
        uint32_t line;
    } bad[] = {
        {"v nan 0 0\n", 1},
        {"v 0 inf 0\n", 1},
        {"v 0 0 -inf\n", 1},
        {"v 1e39 0 0\n", 1},
        {"v -1e39 0 0\n", 1},
        {"v 0x1p3 0 0\n", 1},
        {"v 0 0\n", 1},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -2147483649\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", 4},
        {"f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", 1},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        line = 77;
        vxk_status st = vxk_obj_read(&mesh, bad[i].text, strlen(bad[i].text), 3, &line);
        VXK_CHECK_MSG(st == VXK_ERR_MALFORMED, "case %zu status %d", i, (int)st);
        VXK_CHECK_EQ_U64(line, bad[i].line);
        VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        // NULL error_line is allowed.
        VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, bad[i].text, strlen(bad[i].text), 3, NULL),
                         VXK_ERR_MALFORMED);
    }
    // Every prefix of a valid file parses or fails cleanly, never reading past size.
    for (size_t n = 0; n <= sizeof(k_obj) - 1; ++n) {
        char* copy = (char*)malloc(n ? n : 1);
        memcpy(copy, k_obj, n);
        vxk_status st = vxk_obj_read(&mesh, copy, n, 4, &line);
        free(copy);
        if (st == VXK_OK) {
            vxk_mesh_free(&mesh);
            memset(&mesh, CANARY, sizeof(mesh));
        } else {
            VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
        }
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    }
    line = 5;
    VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, NULL, 0, 3, &line), VXK_OK);
    VXK_CHECK_EQ_U64(line, 0);
    VXK_CHECK(mesh.primitive_count == 0 && mesh.vertex_count == 0);
    vxk_mesh_free(&mesh);

    // Special floats round-trip bit-exactly: -0.0, denormals, FLT_MAX.
    vxk_vec3 verts[4] = {{-0.0f, FLT_TRUE_MIN, FLT_MAX},
                         {-FLT_MAX, FLT_MIN, -FLT_TRUE_MIN},
                         {1.0f / 3.0f, 1e-40f, 0.0f},
                         {-1e38f, 3.4028e38f, 1.17549e-38f}};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    vxk_mesh src = {verts, 4, idx, NULL, 2, 3};
    char* text = (char*)(uintptr_t)0xA5A5A5A0u;
    size_t size = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &src), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, text, size, 3, &line), VXK_OK);
    vxk_obj_free_text(text, size);
    VXK_CHECK_EQ_U64(mesh.vertex_count, 4);
    VXK_CHECK(memcmp(mesh.vertices, verts, sizeof(verts)) == 0);
    VXK_CHECK(memcmp(mesh.indices, idx, sizeof(idx)) == 0);
    vxk_mesh_free(&mesh);

    // vxk_obj_write on invalid meshes: text and size untouched.
    text = (char*)(uintptr_t)0xA5A5A5A0u;
    size = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_obj_write(NULL, &size, &src), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, NULL, &src), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(vxk_obj_write(&text, &size, NULL) != VXK_OK);
    vxk_mesh m = src;
    m.corners = 5;
    VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
    m = src;
    m.indices = NULL;
    VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
    m = src;
    m.vertex_count = 3; // index 3 now out of range
    VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
    for (int k = 0; k < 3; ++k) {
        vxk_vec3 nv[4];
        memcpy(nv, verts, sizeof(nv));
        nv[2].y = special_float(k);
        m = src;
        m.vertices = nv;
        VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
        VXK_CHECK(vxk_obj_save("/nonexistent-dir/x.obj", &m) != VXK_OK);
    }
    VXK_CHECK(text == (char*)(uintptr_t)0xA5A5A5A0u && size == 0xA5A5A5A5u);
    vxk_obj_free_text(NULL, 0);

    // Files: NULL paths, missing files, unwritable paths.
    memset(&mesh, CANARY, sizeof(mesh));
    VXK_CHECK(vxk_obj_load(&mesh, NULL, 3, &line) != VXK_OK);
    VXK_CHECK(vxk_obj_load(NULL, "x.obj", 3, &line) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_load(&mesh, "/nonexistent-dir/x.obj", 3, &line), VXK_ERR_IO);
    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
    VXK_CHECK(vxk_obj_save(NULL, &src) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_save("/nonexistent-dir/x.obj", &src), VXK_ERR_IO);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- kD trees (validation contract only; query results are tested in test_kdtree) -------------

static int test_kdtree_edges(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_vec3 verts[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    vxk_mesh mesh = {verts, 4, idx, NULL, 2, 3};
    vxk_kdtree tree;
    memset(&tree, CANARY, sizeof(tree));
    VXK_CHECK(vxk_kdtree_build(NULL, &mesh, NULL, 0) != VXK_OK);
    VXK_CHECK(vxk_kdtree_build(&tree, NULL, NULL, 0) != VXK_OK);
    vxk_mesh m = mesh;
    m.corners = 2;
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    m = mesh;
    m.vertex_count = 3;
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    m = mesh;
    m.indices = NULL;
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    m = mesh;
    m.primitive_count = VXK_KD_MAX_PRIMITIVES + 1; // rejected before the indices are read
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    for (int k = 0; k < 3; ++k) {
        vxk_vec3 nv[4];
        memcpy(nv, verts, sizeof(nv));
        nv[1].z = special_float(k);
        m = mesh;
        m.vertices = nv;
        VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    }
    // Scratch too small or misaligned.
    uint64_t scratch[512];
    size_t need = vxk_kdtree_build_scratch_size(2);
    VXK_CHECK(need <= sizeof(scratch));
    VXK_CHECK(vxk_kdtree_build(&tree, &mesh, scratch, need - 1) != VXK_OK);
    VXK_CHECK(vxk_kdtree_build(&tree, &mesh, (uint8_t*)scratch + 4, need) != VXK_OK);
    VXK_CHECK(all_canary(&tree, sizeof(tree)));
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);

    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &mesh, scratch, need), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_kdtree_validate(&tree), VXK_OK);
    // Queries with non-finite or inverted input find nothing and write nothing.
    uint32_t out[8];
    for (int k = 0; k < 3; ++k) {
        float v = special_float(k);
        vxk_aabb box = {{-1, -1, -1}, {2, 2, 2}};
        box.min.y = v;
        box.max.y = k == 2 ? v : box.max.y;
        memset(out, CANARY, sizeof(out));
        if (k == 0)
            VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 8, &box, NULL), 0);
        vxk_kdtree_ray ray = {{0.5f, 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
        (&ray.origin.x)[k] = v;
        vxk_kdtree_hit hit;
        VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &ray, NULL));
        VXK_CHECK(!vxk_kdtree_raycast_any(&tree, &ray, NULL));
        ray = (vxk_kdtree_ray){{0.5f, 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
        (&ray.dir.x)[k] = v;
        VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &ray, NULL));
        VXK_CHECK(!vxk_kdtree_raycast_any(&tree, &ray, NULL));
    }
    vxk_aabb inverted = {{2, 2, 2}, {-1, -1, -1}};
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 8, &inverted, NULL), 0);
    vxk_kdtree_ray zero_dir = {{0.5f, 0.5f, -1.0f}, {0, 0, 0}, 10.0f};
    vxk_kdtree_hit hit;
    VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &zero_dir, NULL));
    vxk_kdtree_ray negative = {{0.5f, 0.5f, -1.0f}, {0, 0, 1}, -1.0f};
    VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &negative, NULL));
    // Capacity 0 counts without writing.
    vxk_aabb all = {{-1, -1, -1}, {2, 2, 2}};
    memset(out, CANARY, sizeof(out));
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 0, &all, NULL), 2);
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, NULL, 0, &all, NULL), 2);
    VXK_CHECK(all_canary(out, sizeof(out)));
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 1, &all, NULL), 2);
    VXK_CHECK(all_canary(out + 1, sizeof(out) - sizeof(out[0])));
    vxk_kdtree_free(&tree);
    vxk_kdtree_free(NULL);

    // The 16-bit variant.
    vxk_kdtree16 t16;
    memset(&t16, CANARY, sizeof(t16));
    VXK_CHECK(vxk_kdtree16_build(NULL, &mesh, NULL, 0) != VXK_OK);
    VXK_CHECK(vxk_kdtree16_build(&t16, NULL, NULL, 0) != VXK_OK);
    m = mesh;
    m.corners = 7;
    VXK_CHECK(vxk_kdtree16_build(&t16, &m, NULL, 0) != VXK_OK);
    {
        vxk_vec3 nv[4];
        memcpy(nv, verts, sizeof(nv));
        nv[0].x = f_nan();
        m = mesh;
        m.vertices = nv;
        VXK_CHECK(vxk_kdtree16_build(&t16, &m, NULL, 0) != VXK_OK);
    }
    m = mesh;
    m.primitive_count = VXK_KD16_MAX_PRIMITIVES + 1;
    m.indices = NULL;
    VXK_CHECK(vxk_kdtree16_build(&t16, &m, NULL, 0) != VXK_OK);
    VXK_CHECK(vxk_kdtree16_build(&t16, &mesh, scratch, need - 1) != VXK_OK);
    VXK_CHECK(all_canary(&t16, sizeof(t16)));
    vxk_mesh deq;
    memset(&deq, CANARY, sizeof(deq));
    VXK_CHECK(vxk_kdtree16_dequantize(NULL, &deq) != VXK_OK);
    VXK_CHECK(all_canary(&deq, sizeof(deq)));
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&t16, &mesh, NULL, 0), VXK_OK);
    VXK_CHECK(vxk_kdtree16_dequantize(&t16, NULL) != VXK_OK);
    vxk_aabb nan_box = {{f_nan(), 0, 0}, {1, 1, 1}};
    VXK_CHECK_EQ_U64(vxk_kdtree16_query_aabb(&t16, out, 8, &nan_box, NULL), 0);
    vxk_kdtree_ray nan_ray = {{f_nan(), 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
    VXK_CHECK(!vxk_kdtree16_raycast(&t16, &hit, &nan_ray, NULL));
    VXK_CHECK(!vxk_kdtree16_raycast_any(&t16, &nan_ray, NULL));
    // packets: hostile lanes miss, lanes outside bits 0-7 and outside the mask are ignored
    vxk_kdtree_ray packet[8];
    vxk_kdtree_hit packet_hits[8];
    for (int l = 0; l < 8; ++l)
        packet[l] = (vxk_kdtree_ray){{0.5f, 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
    packet[1] = nan_ray;
    packet[2].dir = (vxk_vec3){0, 0, 0};
    packet[3].tmax = -1.0f;
    packet[4].dir.z = INFINITY;
    memset(packet_hits, CANARY, sizeof(packet_hits));
    uint32_t found = vxk_kdtree16_raycast8(&t16, packet_hits, packet, 0x1FFu & ~0x80u);
    VXK_CHECK((found & 0x1Eu) == 0);
    for (int l = 1; l <= 4; ++l)
        VXK_CHECK(packet_hits[l].primitive == VXK_KD_NO_PRIMITIVE);
    VXK_CHECK(all_canary(&packet_hits[7], sizeof(packet_hits[7])));
    for (int l = 0; l < 7; ++l) {
        if (l >= 1 && l <= 4)
            continue;
        vxk_kdtree_hit single;
        bool h = vxk_kdtree16_raycast(&t16, &single, &packet[l], NULL);
        VXK_CHECK(h == (((found >> l) & 1u) != 0));
        VXK_CHECK(memcmp(&single, &packet_hits[l], sizeof(single)) == 0);
    }
    VXK_CHECK_EQ_U64(vxk_kdtree16_raycast8(&t16, NULL, packet, 0xFF), 0);
    VXK_CHECK_EQ_U64(vxk_kdtree16_raycast8(&t16, packet_hits, NULL, 0xFF), 0);
    VXK_CHECK_EQ_U64(vxk_kdtree16_raycast8(&t16, packet_hits, packet, 0), 0);
    vxk_kdtree16_free(&t16);
    vxk_kdtree16_free(NULL);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- broadphase -------------------------------------------------------------------------------

static int test_broadphase_edges(void)
{
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
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
            VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, chunks, 3, entries), VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(entries, sizeof(entries)));
            // Chunks past the int32 voxel range have no entry.
            memset(entries, CANARY, sizeof(entries));
            VXK_CHECK_EQ_INT(vxk_broadphase_get(w, chunks[1], entries), VXK_OK);
            VXK_CHECK_EQ_INT(entries[0].tag, VXK_BROADPHASE_NONE);
        }
    }
    vxk_int3 edge[2] = {{(1 << 28) - 1, (1 << 28) - 1, (1 << 28) - 1},
                        {-(1 << 28), -(1 << 28), -(1 << 28)}};
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, edge, 2, entries), VXK_OK);
    VXK_CHECK(entries[0].tag != VXK_BROADPHASE_NONE && entries[1].tag != VXK_BROADPHASE_NONE);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(NULL, edge, 2, entries), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, NULL, 2, entries), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, edge, 2, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_compute(w, NULL, 0, NULL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_get(NULL, edge[0], entries), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_get(w, edge[0], NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_update(w, NULL, 0), VXK_OK);
    CHECK_UNCHANGED(w, s0);

    // list: capacity 0 and too small.
    uint32_t n = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_broadphase_list(NULL, NULL, 0, &n), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_list(w, NULL, 0, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_list(w, NULL, 5, &n), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_U64(n, 0xA5A5A5A5u);
    uint32_t total = 0;
    VXK_CHECK_EQ_INT(vxk_broadphase_list(w, NULL, 0, &total), VXK_ERR_CAPACITY);
    VXK_CHECK(total > 4);
    vxk_int3* all = (vxk_int3*)malloc(total * sizeof(vxk_int3));
    vxk_int3* part = (vxk_int3*)malloc(total * sizeof(vxk_int3));
    VXK_CHECK_EQ_INT(vxk_broadphase_list(w, all, total, &n), VXK_OK);
    VXK_CHECK_EQ_U64(n, total);
    memset(part, CANARY, total * sizeof(vxk_int3));
    VXK_CHECK_EQ_INT(vxk_broadphase_list(w, part, 3, &n), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(n, total);
    VXK_CHECK(memcmp(part, all, 3 * sizeof(vxk_int3)) == 0);
    VXK_CHECK(all_canary(part + 3, (total - 3) * sizeof(vxk_int3)));
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
            vxk_status st = vxk_broadphase_query_aabb(w, box, hits, 1024, &n);
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
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, space, hits, 1024, &n), VXK_OK);
    VXK_CHECK(n >= 2);
    VXK_CHECK(hits[0].chunk.y == -(1 << 28) && hits[n - 1].chunk.y == (1 << 28) - 1);
    uint32_t big = n;
    memset(hits, CANARY, sizeof(hits));
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, space, hits, 1, &n), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(n, big);
    VXK_CHECK(all_canary(hits + 1, sizeof(hits) - sizeof(hits[0])));
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(NULL, good, hits, 1024, &n),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, good, hits, 64, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, good, NULL, 64, &n), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(w, good, NULL, 0, &n), VXK_ERR_CAPACITY);

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

    vxk_broadphase_counts counts = {1, 1, 1};
    vxk_broadphase_stats(NULL, &counts);
    VXK_CHECK(counts.entries == 0 && counts.full == 0 && counts.bytes == 0);
    vxk_broadphase_stats(w, NULL);
    (void)vxk_broadphase_hash(NULL);
    CHECK_UNCHANGED(w, s0);

    // Before any build: no entries, no hits, no crash.
    vxk_world* fresh = make_world();
    VXK_CHECK(fresh != NULL);
    VXK_CHECK_EQ_INT(populate(fresh), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_aabb(fresh, space, hits, 1024, &n), VXK_OK);
    VXK_CHECK_EQ_U64(n, 0);
    VXK_CHECK_EQ_INT(vxk_broadphase_list(fresh, NULL, 0, &n), VXK_OK);
    VXK_CHECK_EQ_U64(n, 0);
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(fresh, NULL, 0, offsets, boxes, BOXES), VXK_OK);
    VXK_CHECK_EQ_U64(offsets[BOXES], 0);
    vxk_world_destroy(fresh);
    vxk_world_destroy(w);
    return 0;
}

// ---- raycast ----------------------------------------------------------------------------------

static int test_raycast_edges(void)
{
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate_near(w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    const vxk_ray good = {{2.5f, 30.0f, 2.5f}, {0.0f, -1.0f, 0.0f}, 100.0f};
    vxk_ray_hit hit;
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, &good), VXK_OK);
    VXK_CHECK(hit.hit == 1 && hit.material == VXK_MAT_DIRT);
    bool any = false;
    VXK_CHECK_EQ_INT(vxk_raycast(NULL, &hit, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast(w, NULL, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_any(NULL, &any, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_any(w, &any, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_any(w, NULL, &good), VXK_ERR_INVALID_ARGUMENT);
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float v = special_float(k);
        for (int c = 0; c < 7; ++c) {
            vxk_ray ray = good;
            float* f = c < 3   ? &(&ray.origin.x)[c]
                       : c < 6 ? &(&ray.direction.x)[c - 3]
                               : &ray.max_distance;
            *f = v;
            memset(&hit, CANARY, sizeof(hit));
            vxk_status st = vxk_raycast(w, &hit, &ray);
            memset(&any, CANARY, sizeof(any));
            vxk_status st_any = vxk_raycast_any(w, &any, &ray);
            VXK_CHECK_EQ_INT(st, st_any);
            bool zero_dir =
                ray.direction.x == 0.0f && ray.direction.y == 0.0f && ray.direction.z == 0.0f;
            if (zero_dir) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
            } else if (c == 6 && (isnan(v) || v < 0.0f)) {
                VXK_CHECK_EQ_INT(st, isnan(v) ? VXK_ERR_NOT_FINITE : VXK_ERR_OUT_OF_RANGE);
            } else if (c < 6 && !isfinite(v)) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
            } else if (c < 3 && fabsf(v) == FLT_MAX) {
                // Far outside the int32 voxel space (not documented: see the report).
                VXK_CHECK(st != VXK_OK);
            } else {
                VXK_CHECK_MSG(st == VXK_OK, "component %d value %g status %d", c, (double)v,
                              (int)st);
                VXK_CHECK(hit.hit == 0 || hit.hit == 1);
                VXK_CHECK(hit.hit == any);
                continue;
            }
            uint8_t raw[sizeof(hit)];
            memcpy(raw, &hit, sizeof(hit));
            VXK_CHECK(all_canary(raw, sizeof(raw)));
            memcpy(raw, &any, sizeof(any));
            VXK_CHECK(all_canary(raw, sizeof(any)));
        }
    }
    vxk_ray zero = good;
    zero.direction = (vxk_vec3){0.0f, -0.0f, 0.0f};
    memset(&hit, CANARY, sizeof(hit));
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, &zero), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK(all_canary(&hit, sizeof(hit)));
    // A denormal direction is a direction: it is normalized and hits like (0, -1, 0).
    vxk_ray tiny = good;
    tiny.direction = (vxk_vec3){0.0f, -FLT_TRUE_MIN, 0.0f};
    vxk_ray_hit tiny_hit;
    VXK_CHECK_EQ_INT(vxk_raycast(w, &tiny_hit, &tiny), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, &good), VXK_OK);
    VXK_CHECK(memcmp(&tiny_hit, &hit, sizeof(hit)) == 0);

    // Batch: one bad ray anywhere means nothing is written.
    enum { RAYS = 300 };
    vxk_ray rays[RAYS];
    for (int i = 0; i < RAYS; ++i)
        rays[i] = (vxk_ray){{(float)(i % 17) - 4.5f, 30.0f, (float)(i % 13) - 4.5f},
                            {0.01f * (float)(i % 5), -1.0f, 0.0f},
                            INFINITY};
    static vxk_ray_hit hits[RAYS];
    const int bad_at[] = {0, 150, RAYS - 1};
    for (int b = 0; b < 3; ++b) {
        for (int k = 0; k < 3; ++k) {
            vxk_ray keep = rays[bad_at[b]];
            rays[bad_at[b]].direction.y = special_float(k);
            memset(hits, CANARY, sizeof(hits));
            VXK_CHECK_EQ_INT(vxk_raycast_batch(w, hits, rays, RAYS), VXK_ERR_NOT_FINITE);
            VXK_CHECK(all_canary(hits, sizeof(hits)));
            rays[bad_at[b]] = keep;
        }
    }
    VXK_CHECK_EQ_INT(vxk_raycast_batch(NULL, hits, rays, RAYS), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, NULL, rays, RAYS), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, hits, NULL, RAYS), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, NULL, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, hits, rays, RAYS), VXK_OK);
    for (int i = 0; i < RAYS; i += 37) {
        vxk_ray_hit single;
        VXK_CHECK_EQ_INT(vxk_raycast(w, &single, &rays[i]), VXK_OK);
        VXK_CHECK(memcmp(&single, &hits[i], sizeof(single)) == 0);
    }
    vxk_ray_cache_stats stats;
    memset(&stats, CANARY, sizeof(stats));
    vxk_raycast_cache_stats(NULL, &stats);
    VXK_CHECK_EQ_U64(stats.entries, 0);
    vxk_raycast_cache_stats(w, NULL);
    vxk_raycast_cache_clear(NULL);
    vxk_world_destroy(w);
    return 0;
}

// ---- .vox ------------------------------------------------------------------------------------

static bool scene_zeroed(const vxk_vox_scene* s)
{
    static const vxk_vox_scene zero;
    return memcmp(s, &zero, sizeof(zero)) == 0;
}

static int test_vox_edges(void)
{
    size_t before = vxk_allocated_bytes();
    size_t size = 0;
    uint8_t* data = vxk_test_read_file(VXK_SOURCE_DIR "/tests/data/vox/ok_base.vox", &size);
    VXK_CHECK(data != NULL && size > 8);
    vxk_vox_scene scene;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, &scene), VXK_OK);
    vxk_vox_scene_free(&scene);
    VXK_CHECK(scene_zeroed(&scene));

    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    memset(&scene, CANARY, sizeof(scene));
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(NULL, size, NULL, &scene), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(scene_zeroed(&scene));
    memset(&scene, CANARY, sizeof(scene));
    VXK_CHECK(vxk_vox_load_grids(NULL, 0, NULL, &scene) != VXK_OK);
    VXK_CHECK(scene_zeroed(&scene));
    vxk_vox_options zero_opts;
    memset(&zero_opts, 0, sizeof(zero_opts));
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &zero_opts, &scene), VXK_ERR_BAD_DEF);
    vxk_vox_options opts = vxk_default_vox_options();
    opts.cookie ^= 0x100u;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &opts, &scene), VXK_ERR_BAD_DEF);
    VXK_CHECK(scene_zeroed(&scene));
    opts = vxk_default_vox_options();
    opts.max_scene_extent = 0;
    VXK_CHECK(vxk_vox_load_grids(data, size, &opts, &scene) != VXK_OK);
    opts = vxk_default_vox_options();
    opts.max_bytes = 0;
    VXK_CHECK(vxk_vox_load_grids(data, size, &opts, &scene) != VXK_OK);
    // Mapping to an undefined material; a table with no solid material for the default mapping.
    opts = vxk_default_vox_options();
    opts.use_palette_to_material = true;
    for (int c = 0; c < 256; ++c)
        opts.palette_to_material[c] = VXK_MAT_STONE;
    opts.palette_to_material[1] = 201;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &opts, &scene), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK(scene_zeroed(&scene));
    static vxk_material_table water_only;
    vxk_default_material_table(&water_only);
    for (int id = 1; id < VXK_MAT_DEFAULT_COUNT; ++id)
        if (id != VXK_MAT_WATER)
            water_only.materials[id].defined = 0;
    opts = vxk_default_vox_options();
    opts.materials = &water_only;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &opts, &scene), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK(scene_zeroed(&scene));
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);

    // Every truncation fails cleanly, zeroes the scene and leaks nothing.
    for (size_t n = 0; n < size; ++n) {
        uint8_t* cut = (uint8_t*)malloc(n ? n : 1);
        memcpy(cut, data, n);
        memset(&scene, CANARY, sizeof(scene));
        vxk_status st = vxk_vox_load_grids(cut, n, NULL, &scene);
        free(cut);
        VXK_CHECK_MSG(st != VXK_OK, "truncated at %zu accepted", n);
        VXK_CHECK(scene_zeroed(&scene));
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    }

    // Files.
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file(NULL, NULL, &scene), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file("x.vox", NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file("/nonexistent-dir/x.vox", NULL, &scene), VXK_ERR_IO);
    VXK_CHECK(scene_zeroed(&scene));

    // Flatten.
    vxk_voxel_grid grid;
    vxk_int3 origin = {7, 7, 7};
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(&scene, NULL, &origin), VXK_ERR_INVALID_ARGUMENT);
    memset(&grid, CANARY, sizeof(grid));
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(NULL, &grid, &origin), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(grid.voxels == NULL && grid.size_x == 0);
    memset(&scene, 0, sizeof(scene));
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(&scene, &grid, &origin), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(origin.x == 7 && origin.y == 7 && origin.z == 7);
    vxk_vox_scene_free(NULL);
    vxk_vox_scene_free(&scene);
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, size, NULL, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, size, NULL, &grid, NULL), VXK_OK);
    vxk_voxel_grid_free(&grid);
    memset(&grid, CANARY, sizeof(grid));
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, 20, NULL, &grid, &origin), VXK_ERR_TRUNCATED);
    VXK_CHECK(grid.voxels == NULL);

    // Into a world: the world is unchanged on any error.
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(populate(w), VXK_OK);
    snapshot s0 = snap(w);
    const vxk_int3 at = {-3, 1, 2};
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world(NULL, data, size, at, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world(w, data, size, at, &zero_opts), VXK_ERR_BAD_DEF);
    VXK_CHECK(vxk_vox_load_into_world(w, NULL, size, at, NULL) != VXK_OK);
    VXK_CHECK(vxk_vox_load_into_world(w, data, size - 1, at, NULL) != VXK_OK);
    const vxk_int3 far[] = {{INT32_MAX, 0, 0}, {0, INT32_MAX, 0}, {0, 0, INT32_MAX - 1}};
    for (int i = 0; i < 3; ++i)
        VXK_CHECK_EQ_INT(vxk_vox_load_into_world(w, data, size, far[i], NULL),
                         VXK_ERR_OUT_OF_RANGE);
    opts = vxk_default_vox_options();
    opts.use_palette_to_material = true;
    memset(opts.palette_to_material, VXK_MAT_STONE, sizeof(opts.palette_to_material));
    opts.palette_to_material[9] = 180;
    opts.palette_to_material[200] = 180;
    opts.palette_to_material[255] = 180;
    VXK_CHECK(vxk_vox_load_into_world(w, data, size, at, &opts) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world_file(NULL, "x.vox", at, NULL),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world_file(w, NULL, at, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world_file(w, "/nonexistent-dir/x.vox", at, NULL),
                     VXK_ERR_IO);
    CHECK_UNCHANGED(w, s0);
    // The lowest corner of int32 is a valid place.
    VXK_CHECK_EQ_INT(
        vxk_vox_load_into_world(w, data, size, (vxk_int3){INT32_MIN, INT32_MIN, INT32_MIN}, NULL),
        VXK_OK);
    vxk_world_destroy(w);
    free(data);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- jobs -------------------------------------------------------------------------------------

static void count_job(void* ctx, uint32_t thread)
{
    (void)thread;
    __atomic_fetch_add((uint32_t*)ctx, 1u, __ATOMIC_RELAXED);
}

static void count_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    __atomic_fetch_add((uint64_t*)ctx, (uint64_t)(end - begin), __ATOMIC_RELAXED);
}

static int test_jobs_edges(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    vxk_jobs* const canary = (vxk_jobs*)(uintptr_t)0xA5A5A5A0u;
    vxk_jobs* jobs = canary;
    VXK_CHECK_EQ_INT(vxk_jobs_create(NULL, &jobs), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_jobs_def bad;
    memset(&bad, 0, sizeof(bad));
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.cookie ^= 1u;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.max_jobs = 0;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.max_jobs = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.worker_count = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.external_threads = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.trace_capacity = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    VXK_CHECK(jobs == canary);
    def.trace_capacity = 64;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);

    // Submissions that must be refused with the null handle.
    uint32_t counter = 0;
    vxk_job_desc desc = {"edge", count_job, &counter, NULL, 0, NULL};
    vxk_job none = vxk_jobs_submit(jobs, NULL);
    VXK_CHECK(none.index == 0 && none.generation == 0);
    vxk_job_desc d = desc;
    d.fn = NULL;
    none = vxk_jobs_submit(jobs, &d);
    VXK_CHECK(none.generation == 0);
    d = desc;
    d.dep_count = 3;
    none = vxk_jobs_submit(jobs, &d);
    VXK_CHECK(none.generation == 0);
    none = vxk_jobs_submit(NULL, &desc);
    VXK_CHECK(none.generation == 0);
    VXK_CHECK_EQ_U64(counter, 0);
    // Null, stale and forged handles as dependencies and to wait on.
    vxk_job first = vxk_jobs_submit(jobs, &desc);
    VXK_CHECK(first.generation != 0);
    vxk_jobs_wait(jobs, first);
    vxk_jobs_wait(jobs, first); // finished: returns at once
    vxk_job forged[4] = {{0, 0}, first, {UINT32_MAX, 5}, {first.index, first.generation + 7}};
    vxk_jobs_wait(jobs, forged[2]);
    vxk_jobs_wait(jobs, forged[3]);
    vxk_jobs_wait(NULL, first);
    d = desc;
    d.deps = forged;
    d.dep_count = 4;
    vxk_job second = vxk_jobs_submit(jobs, &d);
    VXK_CHECK(second.generation != 0);
    vxk_jobs_wait(jobs, second);
    VXK_CHECK_EQ_U64(counter, 2);
    vxk_jobs_wait_group(jobs, NULL);
    vxk_jobs_wait_group(NULL, NULL);
    vxk_job_group_init(NULL);
    vxk_job_group group = {0, 0, 0, 0};
    vxk_jobs_wait_group(jobs, &group); // empty group

    // parallel_for: count 0, grain 0, huge grain, NULL fn or jobs.
    uint64_t sum = 0;
    vxk_parallel_for(jobs, "edge", 0, 4, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 0);
    vxk_parallel_for(jobs, "edge", 1000, 0, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 1000);
    vxk_parallel_for(jobs, "edge", 1000, UINT32_MAX, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 2000);
    vxk_parallel_for(jobs, "edge", 1000, 1, NULL, &sum);
    vxk_parallel_for(NULL, "edge", 1000, 1, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 2000);
    VXK_CHECK_EQ_U64(vxk_parallel_for_pieces(UINT32_MAX, 0), UINT32_MAX);
    VXK_CHECK_EQ_U64(vxk_parallel_for_pieces(UINT32_MAX, UINT32_MAX), 1);
    VXK_CHECK_EQ_U64(vxk_parallel_for_pieces(0, 7), 0);

    // Scratch: bad thread index, bad alignment, sizes beyond the arena, marks beyond the top.
    uint32_t self = vxk_jobs_thread_index(jobs);
    uint32_t threads = vxk_jobs_thread_count(jobs);
    VXK_CHECK(self < threads);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, threads, 16, 16) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, UINT32_MAX, 16, 16) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(NULL, 0, 16, 16) == NULL);
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, UINT32_MAX), 0);
    size_t mark = vxk_jobs_scratch_mark(jobs, self);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, 16, 3) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, SIZE_MAX, 16) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, def.scratch_bytes + 1, 1) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, 16, (size_t)1 << 63) == NULL);
    void* p = vxk_jobs_scratch_alloc(jobs, self, 100, 64);
    VXK_CHECK(p != NULL && ((uintptr_t)p & 63u) == 0);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, def.scratch_bytes, 1) == NULL);
    vxk_jobs_scratch_release(jobs, self, SIZE_MAX); // beyond the top: ignored
    VXK_CHECK(vxk_jobs_scratch_mark(jobs, self) > mark);
    vxk_jobs_scratch_release(jobs, UINT32_MAX, 0);
    vxk_jobs_scratch_release(jobs, self, mark);
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, self), mark);

    // Tracing.
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(jobs, NULL), -1);
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(NULL, "x.json"), -1);
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(jobs, "/nonexistent-dir/trace.json"), -1);
    vxk_job_summary summary[2];
    memset(summary, CANARY, sizeof(summary));
    uint32_t names = vxk_jobs_summary(jobs, NULL, 0);
    VXK_CHECK(names >= 1);
    VXK_CHECK_EQ_U64(vxk_jobs_summary(jobs, summary, 0), names);
    VXK_CHECK(all_canary(summary, sizeof(summary)));
    VXK_CHECK_EQ_U64(vxk_jobs_summary(NULL, summary, 2), 0);
    vxk_jobs_destroy(jobs);
    vxk_jobs_destroy(NULL);
    return 0;
}

// ---- allocation failure sweeps ----------------------------------------------------------------

static int test_oom_world_create(void)
{
    size_t base = vxk_allocated_bytes();
    vxk_world* w = NULL;
    vxk_world_def def = vxk_default_world_def();
    OOM_SWEEP(
        w = (vxk_world*)(uintptr_t)0xA5A5A5A0u, vxk_world_create(&def, &w),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(w == (vxk_world*)(uintptr_t)0xA5A5A5A0u);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            } else {
                VXK_CHECK_EQ_INT(populate(w), VXK_OK);
            }
        },
        {
            if (st == VXK_OK)
                vxk_world_destroy(w);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    return 0;
}

// Writes on a populated world (fresh per attempt): on OOM nothing changes, on success the terrain
// equals the one written with a working allocator.
static int test_oom_terrain_writes(void)
{
    size_t base = vxk_allocated_bytes();
    uint8_t ids[10 * 11 * 12];
    uint64_t rng = vxk_test_seed(5);
    for (size_t i = 0; i < sizeof(ids); ++i)
        ids[i] = (uint8_t)(vxk_test_rand(&rng) % 4 == 0 ? VXK_MAT_GRAVEL : VXK_MAT_AIR);
    const int64_t fill_lo[3] = {-20, -3, -20}, fill_hi[3] = {40, 9, 17};
    const int64_t air_lo[3] = {-1, 1, -1}, air_hi[3] = {3, 2, 3};
    const vxk_int3 wmin = {-6, -1, 5}, wsize = {10, 11, 12};
    unsigned retained = 0;
    for (int op = 0; op < 3; ++op) {
        // Reference result.
        vxk_world* ref = make_world();
        VXK_CHECK(ref != NULL && populate(ref) == VXK_OK);
        vxk_status ref_st =
            op == 0   ? vxk_world_fill_box(ref, vxk_test_box(fill_lo, fill_hi), VXK_MAT_ICE)
            : op == 1 ? vxk_world_fill_box(ref, vxk_test_box(air_lo, air_hi), VXK_MAT_AIR)
                      : vxk_world_write_box(ref, vxk_test_box_sized(wmin, wsize), ids);
        VXK_CHECK_EQ_INT(ref_st, VXK_OK);
        uint64_t expected = vxk_world_terrain_hash(ref);
        vxk_world_destroy(ref);

        vxk_world* w = NULL;
        snapshot s0;
        OOM_SWEEP(
            {
                w = make_world();
                VXK_CHECK(w != NULL && populate(w) == VXK_OK);
                s0 = snap(w);
            },
            (op == 0   ? vxk_world_fill_box(w, vxk_test_box(fill_lo, fill_hi), VXK_MAT_ICE)
             : op == 1 ? vxk_world_fill_box(w, vxk_test_box(air_lo, air_hi), VXK_MAT_AIR)
                       : vxk_world_write_box(w, vxk_test_box_sized(wmin, wsize), ids)),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    CHECK_UNCHANGED_MAY_GROW(w, s0, retained);
                } else {
                    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), expected);
                }
            },
            {
                vxk_world_destroy(w);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    fprintf(stderr, "   failed writes that kept grown storage: %u\n", retained);
    return 0;
}

// Worldgen documents partial output on OOM: the box may be partly generated, but voxels outside
// it are kept, nothing leaks, and a successful run equals the reference.
static int test_oom_worldgen(void)
{
    size_t base = vxk_allocated_bytes();
    vxk_worldgen_def g = tiny_gen();
    vxk_world* ref = make_world();
    VXK_CHECK(ref != NULL && populate(ref) == VXK_OK);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(ref, &g), VXK_OK);
    uint64_t expected = vxk_world_terrain_hash(ref);
    vxk_world_destroy(ref);
    uint8_t outside_before[4 * 4 * 4], outside_after[4 * 4 * 4];
    const vxk_int3 probe = {-2, 22, -2}, probe_size = {4, 4, 4}; // straddles the box corner
    vxk_world* w = NULL;
    OOM_SWEEP(
        {
            w = make_world();
            VXK_CHECK(w != NULL && populate(w) == VXK_OK);
            VXK_CHECK_EQ_INT(
                vxk_world_read_box(w, outside_before, vxk_test_box_sized(probe, probe_size)),
                VXK_OK);
        },
        vxk_worldgen_run(w, &g),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK_EQ_INT(
                    vxk_world_read_box(w, outside_after, vxk_test_box_sized(probe, probe_size)),
                    VXK_OK);
                for (int y = 0; y < 4; ++y)
                    for (int z = 0; z < 4; ++z)
                        for (int x = 0; x < 4; ++x) {
                            bool inside =
                                probe.x + x >= 0 && probe.y + y < g.size_y && probe.z + z >= 0;
                            int i = x + 4 * (z + 4 * y);
                            if (!inside)
                                VXK_CHECK_EQ_INT(outside_after[i], outside_before[i]);
                        }
                VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){20, 3, 9}), VXK_MAT_STONE);
                VXK_CHECK_EQ_INT(
                    vxk_world_get_voxel(w, (vxk_int3){INT32_MAX, INT32_MAX, INT32_MAX}),
                    VXK_MAT_METAL);
            } else {
                VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), expected);
            }
        },
        {
            vxk_world_destroy(w);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    return 0;
}

// Broadphase build and update: on OOM the previous broadphase is kept; a later step with
// a working allocator still reaches the result of a full rebuild (no dirty chunk is lost).
static int test_oom_broadphase(void)
{
    size_t base = vxk_allocated_bytes();
    const int64_t lo[3] = {-9, 2, -9}, hi[3] = {9, 12, 3};
    vxk_world* ref = make_world();
    VXK_CHECK(ref != NULL && populate(ref) == VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(ref, vxk_test_box(lo, hi), VXK_MAT_CLAY), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(ref), VXK_OK);
    uint64_t expected = vxk_broadphase_hash(ref);
    vxk_world_destroy(ref);
    unsigned retained = 0;
    for (int op = 0; op < 2; ++op) {
        vxk_world* w = NULL;
        snapshot s0;
        OOM_SWEEP(
            {
                w = make_world();
                VXK_CHECK(w != NULL && populate(w) == VXK_OK);
                VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
                VXK_CHECK_EQ_INT(vxk_world_fill_box(w, vxk_test_box(lo, hi), VXK_MAT_CLAY), VXK_OK);
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

// Readers after a write never allocate the sorted chunk view (the write reserved it): with every
// allocation failing, the terrain hash and chunk iteration still see the whole terrain.
static int test_oom_sorted_view(void)
{
    const int64_t lo[3] = {-30, -3, -20}, hi[3] = {17, 9, 25};
    vxk_world* ref = make_world();
    VXK_CHECK(ref != NULL && populate(ref) == VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(ref, vxk_test_box(lo, hi), VXK_MAT_SAND), VXK_OK);
    uint64_t expected = vxk_world_terrain_hash(ref);
    uint32_t expected_chunks = 0, chunks = 0;
    vxk_world_for_each_chunk(ref, count_chunks, &expected_chunks);
    vxk_world_destroy(ref);

    vxk_world* w = make_world();
    VXK_CHECK(w != NULL && populate(w) == VXK_OK);
    (void)vxk_world_terrain_hash(w);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, vxk_test_box(lo, hi), VXK_MAT_SAND),
                     VXK_OK); // grows the chunk set
    fa_arm(1, true);
    uint64_t hash = vxk_world_terrain_hash(w);
    vxk_world_for_each_chunk(w, count_chunks, &chunks);
    fa_disarm();
    VXK_CHECK_EQ_U64(hash, expected);
    VXK_CHECK_EQ_INT(chunks, expected_chunks);
    VXK_CHECK(expected_chunks > 0);
    vxk_world_destroy(w);
    return 0;
}

// Terrain at both ends of the int32 voxel range: raycasts must not size anything by the span.
static int test_raycast_int32_extremes(void)
{
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL);
    const int64_t a0[3] = {INT32_MAX - 2, INT32_MAX - 1, INT32_MAX - 3};
    const int64_t a1[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
    const int64_t b0[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    const int64_t b1[3] = {INT32_MIN + 2, INT32_MIN + 1, INT32_MIN};
    const int64_t g0[3] = {0, 0, 0}, g1[3] = {7, 3, 7};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, vxk_test_box(a0, a1), VXK_MAT_METAL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, vxk_test_box(b0, b1), VXK_MAT_WOOD), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, vxk_test_box(g0, g1), VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    vxk_ray r = {{2.5f, 30.0f, 2.5f}, {0.0f, -1.0f, 0.0f}, 100.0f};
    vxk_ray_hit h;
    VXK_CHECK_EQ_INT(vxk_raycast(w, &h, &r), VXK_OK);
    VXK_CHECK(h.hit == 1);
    VXK_CHECK_MSG(fabsf(h.distance - 26.0f) < 1e-4f, "distance %g", (double)h.distance);
    VXK_CHECK_EQ_INT(h.material, VXK_MAT_STONE);
    vxk_world_destroy(w);
    return 0;
}

// Reads that allocate: broadphase list and batch queries, rays (cache builds).
static int test_oom_queries(void)
{
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL && populate_near(w) == VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    snapshot s0 = snap(w);
    vxk_int3 list[256];
    uint32_t n = 0;
    VXK_CHECK_EQ_INT(vxk_broadphase_list(w, list, 256, &n), VXK_OK);
    uint32_t expected_n = n;
    OOM_SWEEP(
        n = 0xA5A5A5A5u, vxk_broadphase_list(w, list, 256, &n),
        {
            if (st != VXK_OK)
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
            else
                VXK_CHECK_EQ_U64(n, expected_n);
        },
        CHECK_UNCHANGED(w, s0));

    enum { BOXES = 150 };
    vxk_aabb boxes[BOXES];
    for (int i = 0; i < BOXES; ++i)
        boxes[i] = (vxk_aabb){{(float)i - 30, -2, -3}, {(float)i - 26, 2, 3}};
    uint32_t offsets[BOXES + 1], ref_offsets[BOXES + 1];
    static vxk_broadphase_hit results[4096], ref_results[4096];
    VXK_CHECK_EQ_INT(vxk_broadphase_query_batch(w, ref_results, 4096, ref_offsets, boxes, BOXES),
                     VXK_OK);
    s0 = snap(w); // the batch keeps its per-thread buffers
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

    // Rays: every attempt starts from a cold cache.
    enum { RAYS = 40 };
    vxk_ray rays[RAYS];
    for (int i = 0; i < RAYS; ++i)
        rays[i] = (vxk_ray){{(float)(i % 9) - 4.5f, 30.0f, (float)(i % 7) - 2.5f},
                            {0.05f * (float)(i % 3), -1.0f, 0.0f},
                            INFINITY};
    static vxk_ray_hit hits[RAYS], ref_hits[RAYS];
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, ref_hits, rays, RAYS), VXK_OK);
    vxk_ray_hit one;
    OOM_SWEEP(
        {
            vxk_raycast_cache_clear(w);
            memset(&one, CANARY, sizeof(one));
        },
        vxk_raycast(w, &one, &rays[3]),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&one, sizeof(one)));
            } else {
                VXK_CHECK(memcmp(&one, &ref_hits[3], sizeof(one)) == 0);
            }
        },
        {});
    OOM_SWEEP(vxk_raycast_cache_clear(w), vxk_raycast_batch(w, hits, rays, RAYS),
              {
                  if (st != VXK_OK)
                      VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                  else
                      VXK_CHECK(memcmp(hits, ref_hits, sizeof(hits)) == 0);
              },
              {});
    vxk_world_destroy(w);
    return 0;
}

static int test_oom_vox(void)
{
    size_t base = vxk_allocated_bytes();
    size_t size = 0;
    uint8_t* data = vxk_test_read_file(VXK_SOURCE_DIR "/tests/data/vox/ok_base.vox", &size);
    VXK_CHECK(data != NULL);
    vxk_vox_scene scene;
    OOM_SWEEP(
        memset(&scene, CANARY, sizeof(scene)), vxk_vox_load_grids(data, size, NULL, &scene),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(scene_zeroed(&scene));
            }
        },
        {
            vxk_vox_scene_free(&scene);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_voxel_grid grid;
    OOM_SWEEP(
        memset(&grid, CANARY, sizeof(grid)), vxk_vox_load_flat(data, size, NULL, &grid, NULL),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(grid.voxels == NULL);
            }
        },
        {
            if (st == VXK_OK)
                vxk_voxel_grid_free(&grid);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_world* ref = make_world();
    VXK_CHECK(ref != NULL && populate(ref) == VXK_OK);
    const vxk_int3 at = {-3, 1, 2};
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world(ref, data, size, at, NULL), VXK_OK);
    uint64_t expected = vxk_world_terrain_hash(ref);
    vxk_world_destroy(ref);
    vxk_world* w = NULL;
    snapshot s0;
    OOM_SWEEP(
        {
            w = make_world();
            VXK_CHECK(w != NULL && populate(w) == VXK_OK);
            s0 = snap(w);
        },
        vxk_vox_load_into_world(w, data, size, at, NULL),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                CHECK_UNCHANGED(w, s0);
            } else {
                VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), expected);
            }
        },
        {
            vxk_world_destroy(w);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    free(data);
    return 0;
}

static int test_oom_meshes(void)
{
    size_t base = vxk_allocated_bytes();
    vxk_mesh mesh, ref;
    uint32_t line = 0;
    VXK_CHECK_EQ_INT(vxk_obj_read(&ref, k_obj, sizeof(k_obj) - 1, 4, &line), VXK_OK);
    size_t ref_bytes = vxk_allocated_bytes() - base;
    OOM_SWEEP(
        memset(&mesh, CANARY, sizeof(mesh)),
        vxk_obj_read(&mesh, k_obj, sizeof(k_obj) - 1, 4, &line),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base + ref_bytes);
            } else {
                VXK_CHECK(
                    mesh.primitive_count == ref.primitive_count &&
                    memcmp(mesh.vertices, ref.vertices, mesh.vertex_count * sizeof(vxk_vec3)) == 0);
            }
        },
        {
            if (st == VXK_OK)
                vxk_mesh_free(&mesh);
        });
    char* text = NULL;
    size_t size = 0;
    OOM_SWEEP(
        {
            text = NULL;
            size = 7;
        },
        vxk_obj_write(&text, &size, &ref),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(text == NULL && size == 7);
            }
        },
        {
            if (st == VXK_OK)
                vxk_obj_free_text(text, size);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base + ref_bytes);
        });
    vxk_mesh_free(&ref);

    // Mesher output to meshes, and the kD trees built on them.
    vxk_world* w = make_world();
    VXK_CHECK(w != NULL && populate(w) == VXK_OK);
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, VXK_MESHER_MAX_QUADS, &count, (vxk_int3){0, 0, 0}),
                     VXK_OK);
    vxk_world_destroy(w);
    VXK_CHECK(count > 0);
    base = vxk_allocated_bytes();
    for (uint32_t corners = 3; corners <= 4; ++corners) {
        OOM_SWEEP(
            memset(&mesh, CANARY, sizeof(mesh)),
            vxk_quad_to_mesh(&mesh, quads, count, corners, (vxk_vec3){1, 2, 3}, 0.5f),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
                }
            },
            {
                if (st == VXK_OK)
                    vxk_mesh_free(&mesh);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, count, 4, (vxk_vec3){0, 0, 0}, 1.0f), VXK_OK);
    base = vxk_allocated_bytes();
    vxk_kdtree tree;
    OOM_SWEEP(
        memset(&tree, CANARY, sizeof(tree)), vxk_kdtree_build(&tree, &mesh, NULL, 0),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&tree, sizeof(tree)));
            }
        },
        {
            if (st == VXK_OK)
                vxk_kdtree_free(&tree);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_kdtree16 t16;
    OOM_SWEEP(
        memset(&t16, CANARY, sizeof(t16)), vxk_kdtree16_build(&t16, &mesh, NULL, 0),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&t16, sizeof(t16)));
            }
        },
        {
            if (st == VXK_OK)
                vxk_kdtree16_free(&t16);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_mesh_free(&mesh);
    return 0;
}

static int test_oom_boxes(void)
{
    vxk_voxel_grid grid;
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, 70, 9, 11), VXK_OK);
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
        memset(&grid, CANARY, sizeof(grid)), vxk_voxel_grid_create(&grid, 3, 4, 5),
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

int main(void)
{
    vxk_set_assert_handler(record_assert);
    VXK_RUN(test_base);
    VXK_RUN(test_material_table);
    VXK_RUN(test_world_create);
    VXK_RUN(test_world_terrain);
    VXK_RUN(test_worldgen_edges);
    VXK_RUN(test_voxel_grid_and_boxes);
    VXK_RUN(test_mesher_edges);
    VXK_RUN(test_obj_edges);
    VXK_RUN(test_kdtree_edges);
    VXK_RUN(test_broadphase_edges);
    VXK_RUN(test_raycast_edges);
    VXK_RUN(test_raycast_int32_extremes);
    VXK_RUN(test_vox_edges);
    VXK_RUN(test_jobs_edges);

    vxk_allocator failing = {fa_alloc, fa_free, NULL};
    vxk_set_allocator(&failing);
    VXK_RUN_SWEEP(test_oom_world_create);
    VXK_RUN_SWEEP(test_oom_terrain_writes);
    VXK_RUN_SWEEP(test_oom_worldgen);
    VXK_RUN_SWEEP(test_oom_broadphase);
    VXK_RUN_SWEEP(test_oom_sorted_view);
    VXK_RUN_SWEEP(test_oom_queries);
    VXK_RUN_SWEEP(test_oom_vox);
    VXK_RUN_SWEEP(test_oom_meshes);
    VXK_RUN_SWEEP(test_oom_boxes);
    vxk_set_allocator(NULL);

    VXK_CHECK_EQ_INT(g_assert_count, 0);
    vxk_set_assert_handler(NULL);
    return vxk_test_finish();
}
