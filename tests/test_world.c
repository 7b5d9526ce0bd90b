// test_world.c: the chunk map, the material table and the world's terrain API against brute-force
// references: a key array for the map, a dense voxel array for get/fill/read/write, recomputed
// occupancy bits, changed-chunk sets for versions and the dirty list, validation without effect.
// Edge tests (harness.h): material tables, world defs and terrain calls with bad input change
// nothing; creation and writes out of memory change nothing or equal the reference, and readers
// after a write never allocate the sorted chunk view.
#include <math.h>
#include <string.h>

#include "chunk_map.h"
#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"
#include "world_internal.h"

// ---- chunk map ---------------------------------------------------------------------------------

typedef struct ref_entry {
    int32_t x, y, z;
    uint32_t value;
} ref_entry;

static int ref_find(const ref_entry* ref, int n, int32_t x, int32_t y, int32_t z)
{
    for (int i = 0; i < n; ++i)
        if (ref[i].x == x && ref[i].y == y && ref[i].z == z)
            return i;
    return -1;
}

static int32_t random_key_coord(uint64_t* rng)
{
    uint64_t r = vxk_test_rand(rng);
    switch (r % 4) {
    case 0: return (int32_t)((r >> 8) % 7) - 3; // dense cluster: many collisions in runs
    case 1: return (int32_t)((r >> 8) % 64) - 32;
    case 2:
        return (r >> 8) & 1 ? INT32_MAX - (int32_t)((r >> 9) % 3)
                            : INT32_MIN + (int32_t)((r >> 9) % 3);
    default: return (int32_t)(uint32_t)(r >> 16);
    }
}

static int test_chunk_map_random(void)
{
    uint64_t rng = vxk_test_seed(12345);
    enum { MAX_KEYS = 700 };
    static ref_entry ref[MAX_KEYS];
    for (int round = 0; round < 6; ++round) {
        vxk_chunk_map map;
        vxk_chunk_map_init(&map);
        int n = 0;
        int ops = VXK_TEST_SLOW ? 3000 : 20000;
        for (int op = 0; op < ops; ++op) {
            int32_t x = random_key_coord(&rng), y = random_key_coord(&rng);
            int32_t z = random_key_coord(&rng);
            if (round % 2 == 0) { // small key space: inserts and removes hit existing keys
                x = (int32_t)(vxk_test_rand(&rng) % 9) - 4;
                y = (int32_t)(vxk_test_rand(&rng) % 5) - 2;
                z = (int32_t)(vxk_test_rand(&rng) % 9) - 4;
            }
            uint64_t kind = vxk_test_rand(&rng) % 10;
            int at = ref_find(ref, n, x, y, z);
            if (kind < 5 && (n < MAX_KEYS || at >= 0)) {
                uint32_t value = (uint32_t)(vxk_test_rand(&rng) % 0xFFFFFFFFu);
                VXK_CHECK(vxk_chunk_map_insert(&map, (vxk_int3){x, y, z}, value));
                if (at >= 0)
                    ref[at].value = value;
                else
                    ref[n++] = (ref_entry){x, y, z, value};
            } else if (kind < 8) {
                uint32_t old = 0;
                bool removed = vxk_chunk_map_remove(&map, (vxk_int3){x, y, z}, &old);
                VXK_CHECK_EQ_INT(removed, at >= 0);
                if (at >= 0) {
                    VXK_CHECK_EQ_U64(old, ref[at].value);
                    ref[at] = ref[--n];
                }
            } else {
                uint32_t found = vxk_chunk_map_find(&map, (vxk_int3){x, y, z});
                VXK_CHECK_EQ_U64(found, at >= 0 ? ref[at].value : VXK_CHUNK_MAP_EMPTY);
            }
            VXK_CHECK_EQ_U64(map.count, n);
            if (op % 500 == 0 || op == ops - 1) {
                // Every reference key is found; iteration visits exactly the reference set.
                for (int i = 0; i < n; ++i)
                    VXK_CHECK_EQ_U64(
                        vxk_chunk_map_find(&map, (vxk_int3){ref[i].x, ref[i].y, ref[i].z}),
                        ref[i].value);
                uint32_t cursor = 0, visited = 0;
                const vxk_chunk_map_slot* slot;
                while ((slot = vxk_chunk_map_next(&map, &cursor)) != NULL) {
                    int i = ref_find(ref, n, slot->key.x, slot->key.y, slot->key.z);
                    VXK_CHECK(i >= 0);
                    VXK_CHECK_EQ_U64(slot->value, ref[i].value);
                    ++visited;
                }
                VXK_CHECK_EQ_U64(visited, n);
                VXK_CHECK(map.capacity == 0 ||
                          (uint64_t)map.count * 4 <= (uint64_t)map.capacity * 3);
                VXK_CHECK_EQ_U64(vxk_chunk_map_bytes(&map), (uint64_t)map.capacity * 16);
            }
        }
        vxk_chunk_map_free(&map);
        VXK_CHECK_EQ_U64(map.count, 0);
    }
    return 0;
}

// The same operations give the same slot layout; reserve keeps every entry.
static int test_chunk_map_layout(void)
{
    vxk_chunk_map a, b;
    vxk_chunk_map_init(&a);
    vxk_chunk_map_init(&b);
    VXK_CHECK(vxk_chunk_map_reserve(&b, 3000));
    uint32_t reserved_capacity = b.capacity;
    for (int i = 0; i < 3000; ++i) {
        int32_t x = i % 17 - 8, y = (i / 17) % 13 - 6, z = i / 221;
        VXK_CHECK(vxk_chunk_map_insert(&a, (vxk_int3){x, y, z}, (uint32_t)i));
        VXK_CHECK(vxk_chunk_map_insert(&b, (vxk_int3){x, y, z}, (uint32_t)i));
        if (i % 3 == 0) {
            VXK_CHECK(vxk_chunk_map_remove(&a, (vxk_int3){x, y, z}, NULL));
            VXK_CHECK(vxk_chunk_map_remove(&b, (vxk_int3){x, y, z}, NULL));
        }
    }
    VXK_CHECK_EQ_U64(b.capacity, reserved_capacity); // no growth after the reserve
    VXK_CHECK_EQ_U64(a.count, 2000);
    vxk_chunk_map c;
    vxk_chunk_map_init(&c);
    for (int i = 0; i < 3000; ++i) {
        int32_t x = i % 17 - 8, y = (i / 17) % 13 - 6, z = i / 221;
        VXK_CHECK(vxk_chunk_map_insert(&c, (vxk_int3){x, y, z}, (uint32_t)i));
        if (i % 3 == 0)
            VXK_CHECK(vxk_chunk_map_remove(&c, (vxk_int3){x, y, z}, NULL));
    }
    VXK_CHECK_EQ_U64(a.capacity, c.capacity);
    VXK_CHECK(memcmp(a.slots, c.slots, vxk_chunk_map_bytes(&a)) == 0);
    for (int i = 0; i < 3000; ++i) {
        int32_t x = i % 17 - 8, y = (i / 17) % 13 - 6, z = i / 221;
        uint32_t expect = i % 3 == 0 ? VXK_CHUNK_MAP_EMPTY : (uint32_t)i;
        VXK_CHECK_EQ_U64(vxk_chunk_map_find(&b, (vxk_int3){x, y, z}), expect);
    }
    vxk_chunk_map_clear(&a);
    VXK_CHECK_EQ_U64(a.count, 0);
    VXK_CHECK_EQ_U64(vxk_chunk_map_find(&a, (vxk_int3){0, 0, 0}), VXK_CHUNK_MAP_EMPTY);
    vxk_chunk_map_free(&a);
    vxk_chunk_map_free(&b);
    vxk_chunk_map_free(&c);
    return 0;
}

// ---- materials ---------------------------------------------------------------------------------

static int test_materials(void)
{
    vxk_material_table table;
    vxk_default_material_table(&table);
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&table), VXK_OK);
    VXK_CHECK_EQ_INT(table.materials[0].kind, VXK_MATERIAL_AIR);
    VXK_CHECK_EQ_INT(table.materials[VXK_MAT_WATER].kind, VXK_MATERIAL_WATER);
    for (int id = 1; id < VXK_MAT_DEFAULT_COUNT; ++id) {
        VXK_CHECK(table.materials[id].defined);
        VXK_CHECK(table.materials[id].density > 100.0f);
        VXK_CHECK(table.materials[id].name[0] != 0);
        if (id != VXK_MAT_WATER)
            VXK_CHECK_EQ_INT(table.materials[id].kind, VXK_MATERIAL_SOLID);
    }
    for (int id = VXK_MAT_DEFAULT_COUNT; id < VXK_MATERIAL_COUNT; ++id)
        VXK_CHECK(!table.materials[id].defined);
    // Real-world ordering of densities: metal > stone > water > wood; ice floats.
    VXK_CHECK(table.materials[VXK_MAT_METAL].density > table.materials[VXK_MAT_STONE].density);
    VXK_CHECK(table.materials[VXK_MAT_STONE].density > table.materials[VXK_MAT_WATER].density);
    VXK_CHECK(table.materials[VXK_MAT_ICE].density < table.materials[VXK_MAT_WATER].density);
    VXK_CHECK(table.materials[VXK_MAT_ICE].friction < table.materials[VXK_MAT_DIRT].friction);

    VXK_CHECK_EQ_INT(vxk_material_table_validate(NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_material_table bad = table;
    bad.materials[0].kind = VXK_MATERIAL_SOLID;
    VXK_CHECK(vxk_material_table_validate(&bad) != VXK_OK);
    bad = table;
    bad.materials[VXK_MAT_STONE].density = NAN;
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&bad), VXK_ERR_NOT_FINITE);
    bad = table;
    bad.materials[VXK_MAT_STONE].restitution = 1.5f;
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&bad), VXK_ERR_OUT_OF_RANGE);
    bad = table;
    bad.materials[VXK_MAT_SAND].friction = -0.1f;
    VXK_CHECK_EQ_INT(vxk_material_table_validate(&bad), VXK_ERR_OUT_OF_RANGE);
    bad = table;
    bad.materials[40].defined = 1; // defined but kind air at a nonzero id
    VXK_CHECK(vxk_material_table_validate(&bad) != VXK_OK);
    bad = table;
    bad.materials[40].defined = 1;
    bad.materials[40].kind = 7;
    VXK_CHECK(vxk_material_table_validate(&bad) != VXK_OK);
    bad = table;
    memset(bad.materials[VXK_MAT_DIRT].name, 'x', sizeof(bad.materials[0].name));
    VXK_CHECK(vxk_material_table_validate(&bad) != VXK_OK);
    return 0;
}

// ---- world against a dense reference ----------------------------------------------------------

// Reference region (voxels): x, z in [-40, 40), y in [-24, 24): 10 x 6 x 10 chunks.
#define RX0 (-40)
#define RY0 (-24)
#define RZ0 (-40)
#define RSX 80
#define RSY 48
#define RSZ 80
#define RCX (RSX / 8)
#define RCY (RSY / 8)
#define RCZ (RSZ / 8)
#define RCHUNKS (RCX * RCY * RCZ)

typedef struct reference {
    uint8_t voxels[RSX * RSY * RSZ]; // index x + RSX*(z + RSZ*y)
} reference;

static inline size_t ref_index(int x, int y, int z)
{
    return (size_t)(x - RX0) + RSX * ((size_t)(z - RZ0) + RSZ * (size_t)(y - RY0));
}

static const uint8_t k_materials[] = {0,
                                      0,
                                      0,
                                      VXK_MAT_STONE,
                                      VXK_MAT_DIRT,
                                      VXK_MAT_SAND,
                                      VXK_MAT_WATER,
                                      VXK_MAT_BEDROCK,
                                      VXK_MAT_METAL};

static uint8_t random_material(uint64_t* rng)
{
    return k_materials[vxk_test_rand(rng) % sizeof(k_materials)];
}

static int rand_range(uint64_t* rng, int lo, int hi) // inclusive
{
    return lo + (int)(vxk_test_rand(rng) % (uint64_t)(hi - lo + 1));
}

// A random box inside the reference region, biased to chunk borders and chunk-aligned boxes.
static void random_box(uint64_t* rng, int lo[3], int hi[3])
{
    const int r0[3] = {RX0, RY0, RZ0}, rs[3] = {RSX, RSY, RSZ};
    uint64_t kind = vxk_test_rand(rng) % 6;
    for (int a = 0; a < 3; ++a) {
        int extent;
        switch (kind) {
        case 0: extent = rand_range(rng, 1, 2); break;
        case 1: extent = rand_range(rng, 1, 10); break;
        case 2: extent = rand_range(rng, 6, 30); break;
        case 3: extent = 8 * rand_range(rng, 1, 3); break;
        case 4: extent = rand_range(rng, 12, rs[a]); break;
        default: extent = rand_range(rng, 1, 18); break;
        }
        int start;
        if (kind == 3)
            start = r0[a] + 8 * rand_range(rng, 0, (rs[a] - extent) / 8);
        else if (kind == 5) // straddle a chunk border
            start = r0[a] + 8 * rand_range(rng, 1, rs[a] / 8 - 1) - rand_range(rng, 0, extent);
        else
            start = r0[a] + rand_range(rng, 0, rs[a] - extent);
        if (start < r0[a])
            start = r0[a];
        if (start + extent > r0[a] + rs[a])
            extent = r0[a] + rs[a] - start;
        lo[a] = start;
        hi[a] = start + extent - 1;
    }
}

typedef struct chunk_versions {
    uint32_t version[RCHUNKS];
    uint8_t present[RCHUNKS];
    int count, mixed, outside, order_ok;
    int last[3];
} chunk_versions;

static int chunk_slot(vxk_int3 c)
{
    int x = c.x - RX0 / 8, y = c.y - RY0 / 8, z = c.z - RZ0 / 8;
    if (x < 0 || y < 0 || z < 0 || x >= RCX || y >= RCY || z >= RCZ)
        return -1;
    return x + RCX * (z + RCZ * y);
}

static void collect_versions(void* ctx, const vxk_chunk_info* info)
{
    chunk_versions* v = (chunk_versions*)ctx;
    int c[3] = {info->coord.y, info->coord.z, info->coord.x};
    if (v->count > 0) {
        bool less = c[0] < v->last[0] ||
                    (c[0] == v->last[0] &&
                     (c[1] < v->last[1] || (c[1] == v->last[1] && c[2] <= v->last[2])));
        if (less)
            v->order_ok = 0;
    }
    memcpy(v->last, c, sizeof(c));
    v->count++;
    v->mixed += info->is_mixed;
    int slot = chunk_slot(info->coord);
    if (slot < 0) {
        v->outside++;
        return;
    }
    v->present[slot] = 1;
    v->version[slot] = info->version;
}

static void versions_of(const vxk_world* world, chunk_versions* v)
{
    memset(v, 0, sizeof(*v));
    v->order_ok = 1;
    vxk_world_for_each_chunk(world, collect_versions, v);
}

// Per reference chunk: did any voxel differ between two reference states?
static void changed_chunks(const reference* a, const reference* b, uint8_t changed[RCHUNKS])
{
    memset(changed, 0, RCHUNKS);
    for (int y = RY0; y < RY0 + RSY; ++y)
        for (int z = RZ0; z < RZ0 + RSZ; ++z) {
            size_t i = ref_index(RX0, y, z);
            if (memcmp(a->voxels + i, b->voxels + i, RSX) == 0)
                continue;
            for (int x = RX0; x < RX0 + RSX; ++x)
                if (a->voxels[ref_index(x, y, z)] != b->voxels[ref_index(x, y, z)])
                    changed[chunk_slot((vxk_int3){x >> 3, y >> 3, z >> 3})] = 1;
        }
}

// Full comparison: voxels, chunk set, collapse invariants, occupancy bits, memory stats.
static int check_world(const vxk_world* world, const reference* ref, uint64_t* rng)
{
    static uint8_t readback[RSX * RSY * RSZ];
    VXK_CHECK_EQ_INT(vxk_world_read_box(
                         world, readback,
                         vxk_test_box_sized((vxk_int3){RX0, RY0, RZ0}, (vxk_int3){RSX, RSY, RSZ})),
                     VXK_OK);
    VXK_CHECK(memcmp(readback, ref->voxels, sizeof(readback)) == 0);
    for (int i = 0; i < 500; ++i) {
        int x = rand_range(rng, RX0, RX0 + RSX - 1), y = rand_range(rng, RY0, RY0 + RSY - 1);
        int z = rand_range(rng, RZ0, RZ0 + RSZ - 1);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(world, (vxk_int3){x, y, z}),
                         ref->voxels[ref_index(x, y, z)]);
    }
    const vxk_material_table* mats = vxk_world_materials(world);
    int expected_chunks = 0, expected_mixed = 0;
    for (int cy = RY0 / 8; cy < (RY0 + RSY) / 8; ++cy)
        for (int cz = RZ0 / 8; cz < (RZ0 + RSZ) / 8; ++cz)
            for (int cx = RX0 / 8; cx < (RX0 + RSX) / 8; ++cx) {
                uint8_t voxels[512];
                for (int y = 0; y < 8; ++y)
                    for (int z = 0; z < 8; ++z)
                        for (int x = 0; x < 8; ++x)
                            voxels[vxk_voxel_index((uint32_t)x, (uint32_t)y, (uint32_t)z)] =
                                ref->voxels[ref_index(cx * 8 + x, cy * 8 + y, cz * 8 + z)];
                bool uniform = true;
                for (int i = 1; i < 512; ++i)
                    uniform &= voxels[i] == voxels[0];
                const vxk_chunk* c = vxk_terrain_find(&world->terrain, (vxk_int3){cx, cy, cz});
                uint64_t solid[8], water[8], bits_solid[8] = {0}, bits_water[8] = {0};
                for (int i = 0; i < 512; ++i) {
                    uint8_t kind = mats->materials[voxels[i]].kind;
                    bits_solid[i / 64] |= (uint64_t)(kind == VXK_MATERIAL_SOLID) << (i % 64);
                    bits_water[i / 64] |= (uint64_t)(kind == VXK_MATERIAL_WATER) << (i % 64);
                }
                vxk_terrain_chunk_bits(&world->terrain, (vxk_int3){cx, cy, cz}, solid, water);
                VXK_CHECK(memcmp(solid, bits_solid, sizeof(solid)) == 0);
                VXK_CHECK(memcmp(water, bits_water, sizeof(water)) == 0);
                if (uniform && voxels[0] == 0) {
                    VXK_CHECK_MSG(c == NULL, "all-air chunk %d %d %d has an entry", cx, cy, cz);
                    continue;
                }
                VXK_CHECK(c != NULL);
                ++expected_chunks;
                if (uniform) {
                    VXK_CHECK_MSG(c->payload == NULL, "uniform chunk %d %d %d not collapsed", cx,
                                  cy, cz);
                    VXK_CHECK_EQ_INT(c->uniform_material, voxels[0]);
                } else {
                    ++expected_mixed;
                    VXK_CHECK(c->payload != NULL);
                    VXK_CHECK(memcmp(c->payload, voxels, 512) == 0);
                    VXK_CHECK(memcmp(vxk_chunk_solid_bits(c), bits_solid, 64) == 0);
                    VXK_CHECK(memcmp(vxk_chunk_water_bits(c), bits_water, 64) == 0);
                }
            }
    chunk_versions v;
    versions_of(world, &v);
    VXK_CHECK_EQ_INT(v.count, expected_chunks);
    VXK_CHECK_EQ_INT(v.mixed, expected_mixed);
    VXK_CHECK_EQ_INT(v.outside, 0);
    VXK_CHECK(v.order_ok);
    uint32_t sorted_count = 0;
    const vxk_chunk* const* sorted = vxk_terrain_sorted_chunks(&world->terrain, &sorted_count);
    VXK_CHECK_EQ_U64(sorted_count, expected_chunks);
    for (uint32_t i = 0; i < sorted_count; ++i)
        VXK_CHECK(vxk_terrain_find(&world->terrain, sorted[i]->coord) == sorted[i]);
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    VXK_CHECK_EQ_U64(mem.chunk_count, expected_chunks);
    VXK_CHECK_EQ_U64(mem.mixed_chunks, expected_mixed);
    VXK_CHECK_EQ_U64(mem.uniform_chunks, expected_chunks - expected_mixed);
    VXK_CHECK_EQ_U64(mem.voxel_bytes, (uint64_t)expected_mixed * 512);
    VXK_CHECK_EQ_U64(mem.occupancy_bytes, (uint64_t)expected_mixed * 128);
    VXK_CHECK(mem.map_bytes >= (uint64_t)expected_chunks * 16);
    VXK_CHECK(mem.chunk_entry_bytes >= (uint64_t)expected_chunks * 32);
    VXK_CHECK(mem.total_bytes >=
              mem.map_bytes + mem.chunk_entry_bytes + mem.voxel_bytes + mem.occupancy_bytes);
    return 0;
}

static int apply_reference_box(reference* ref, const int lo[3], const int hi[3], const uint8_t* ids,
                               uint8_t material)
{
    int sx = hi[0] - lo[0] + 1, sz = hi[2] - lo[2] + 1;
    for (int y = lo[1]; y <= hi[1]; ++y)
        for (int z = lo[2]; z <= hi[2]; ++z)
            for (int x = lo[0]; x <= hi[0]; ++x)
                ref->voxels[ref_index(x, y, z)] =
                    ids ? ids[(x - lo[0]) + sx * ((z - lo[2]) + sz * (y - lo[1]))] : material;
    return 0;
}

static int test_world_random_ops(void)
{
    static reference ref, before;
    static uint8_t ids[RSX * RSY * RSZ], readback[RSX * RSY * RSZ];
    static uint8_t changed[RCHUNKS];
    static chunk_versions v0, v1;
    for (int seed = 1; seed <= 2; ++seed) {
        uint64_t rng = 0xABCDEF00ull + (uint64_t)seed;
        vxk_world_def def = vxk_default_world_def();
        vxk_world* world = NULL;
        VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
        memset(&ref, 0, sizeof(ref));
        int ops = VXK_TEST_SLOW ? 800 : 3000;
        uint32_t dirty_count = 0;
        vxk_terrain_take_dirty(&world->terrain, &dirty_count);
        VXK_CHECK_EQ_U64(dirty_count, 0);
        for (int op = 0; op < ops; ++op) {
            int lo[3], hi[3];
            random_box(&rng, lo, hi);
            int sx = hi[0] - lo[0] + 1, sy = hi[1] - lo[1] + 1, sz = hi[2] - lo[2] + 1;
            before = ref;
            versions_of(world, &v0);
            uint64_t kind = vxk_test_rand(&rng) % 10;
            if (kind < 5) {
                uint8_t m = random_material(&rng);
                int64_t mn[3] = {lo[0], lo[1], lo[2]}, mx[3] = {hi[0], hi[1], hi[2]};
                VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(mn, mx), m), VXK_OK);
                apply_reference_box(&ref, lo, hi, NULL, m);
            } else if (kind < 8) {
                size_t n = (size_t)sx * sy * sz;
                uint64_t style = vxk_test_rand(&rng) % 4;
                uint8_t m = random_material(&rng);
                for (size_t i = 0; i < n; ++i) {
                    if (style == 0)
                        ids[i] = m; // uniform: full chunks must come out without a payload
                    else if (style == 1)
                        ids[i] = vxk_test_rand(&rng) % 8 ? m : random_material(&rng);
                    else if (style == 2) // copy of what is there (a no-op write)
                        ids[i] = ref.voxels[ref_index(lo[0] + (int)(i % sx),
                                                      lo[1] + (int)(i / ((size_t)sx * sz)),
                                                      lo[2] + (int)((i / sx) % sz))];
                    else
                        ids[i] = random_material(&rng);
                }
                VXK_CHECK_EQ_INT(
                    vxk_world_write_box(
                        world,
                        vxk_test_box_sized((vxk_int3){lo[0], lo[1], lo[2]}, (vxk_int3){sx, sy, sz}),
                        ids),
                    VXK_OK);
                apply_reference_box(&ref, lo, hi, ids, 0);
            } else {
                VXK_CHECK_EQ_INT(
                    vxk_world_read_box(world, readback,
                                       vxk_test_box_sized((vxk_int3){lo[0], lo[1], lo[2]},
                                                          (vxk_int3){sx, sy, sz})),
                    VXK_OK);
                for (int y = lo[1]; y <= hi[1]; ++y)
                    for (int z = lo[2]; z <= hi[2]; ++z)
                        for (int x = lo[0]; x <= hi[0]; ++x)
                            VXK_CHECK_EQ_INT(
                                readback[(x - lo[0]) + sx * ((z - lo[2]) + sz * (y - lo[1]))],
                                ref.voxels[ref_index(x, y, z)]);
            }
            // Versions and the dirty list follow exactly the chunks whose content changed.
            changed_chunks(&before, &ref, changed);
            versions_of(world, &v1);
            uint32_t max_before = 0;
            for (int i = 0; i < RCHUNKS; ++i)
                if (v0.present[i] && v0.version[i] > max_before)
                    max_before = v0.version[i];
            int changed_count = 0;
            for (int i = 0; i < RCHUNKS; ++i) {
                changed_count += changed[i];
                if (!v1.present[i])
                    continue;
                if (changed[i])
                    VXK_CHECK_MSG(v1.version[i] > max_before, "op %d chunk %d version %u <= %u", op,
                                  i, v1.version[i], max_before);
                else
                    VXK_CHECK_MSG(v0.present[i] && v1.version[i] == v0.version[i],
                                  "op %d: unchanged chunk %d got a new version", op, i);
            }
            const vxk_int3* dirty = vxk_terrain_take_dirty(&world->terrain, &dirty_count);
            VXK_CHECK_EQ_INT((int)dirty_count, changed_count);
            for (uint32_t i = 0; i < dirty_count; ++i) {
                int slot = chunk_slot(dirty[i]);
                VXK_CHECK(slot >= 0 && changed[slot]);
                if (i > 0) { // sorted by (cy, cz, cx), unique
                    const vxk_int3 a = dirty[i - 1], b = dirty[i];
                    VXK_CHECK(a.y < b.y ||
                              (a.y == b.y && (a.z < b.z || (a.z == b.z && a.x < b.x))));
                }
            }
            if (op % 25 == 0 || op == ops - 1)
                if (check_world(world, &ref, &rng))
                    return 1;
        }
        // A world written densely from the reference has the same content, hence the same hash.
        vxk_world* copy = NULL;
        VXK_CHECK_EQ_INT(vxk_world_create(&def, &copy), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_write_box(copy,
                                             vxk_test_box_sized((vxk_int3){RX0, RY0, RZ0},
                                                                (vxk_int3){RSX, RSY, RSZ}),
                                             ref.voxels),
                         VXK_OK);
        VXK_CHECK_EQ_U64(vxk_world_terrain_hash(copy), vxk_world_terrain_hash(world));
        VXK_CHECK(check_world(copy, &ref, &rng) == 0);
        // One voxel more makes the hashes differ.
        int64_t p[3] = {3, 4, 5};
        uint8_t m = ref.voxels[ref_index(3, 4, 5)] == VXK_MAT_CLAY ? VXK_MAT_ICE : VXK_MAT_CLAY;
        VXK_CHECK_EQ_INT(vxk_world_fill_box(copy, vxk_test_box(p, p), m), VXK_OK);
        VXK_CHECK(vxk_world_terrain_hash(copy) != vxk_world_terrain_hash(world));
        vxk_world_destroy(copy);

        // Clearing everything with one air fill over the whole int32 range empties the world.
        int64_t all_lo[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
        int64_t all_hi[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(all_lo, all_hi), 0), VXK_OK);
        memset(&ref, 0, sizeof(ref));
        VXK_CHECK(check_world(world, &ref, &rng) == 0);
        vxk_world_memory_stats mem;
        vxk_world_get_memory_stats(world, &mem);
        VXK_CHECK_EQ_U64(mem.chunk_count, 0);
        vxk_world_destroy(world);
    }
    return 0;
}

// Collapse to uniform and removal of all-air chunks, step by step.
static int test_collapse_and_removal(void)
{
    vxk_world_def def = vxk_default_world_def();
    vxk_world* world = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
    int64_t lo[3] = {-8, 0, 0}, hi[3] = {-1, 3, 7};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), VXK_MAT_STONE), VXK_OK);
    const vxk_chunk* c = vxk_terrain_find(&world->terrain, (vxk_int3){-1, 0, 0});
    VXK_CHECK(c && c->payload);
    int64_t lo2[3] = {-8, 4, 0}, hi2[3] = {-1, 7, 7};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo2, hi2), VXK_MAT_STONE), VXK_OK);
    c = vxk_terrain_find(&world->terrain, (vxk_int3){-1, 0, 0});
    VXK_CHECK(c && !c->payload && c->uniform_material == VXK_MAT_STONE);
    // Punch one voxel, then fill it back: mixed, then uniform again.
    int64_t p[3] = {-5, 6, 2};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(p, p), VXK_MAT_WATER), VXK_OK);
    c = vxk_terrain_find(&world->terrain, (vxk_int3){-1, 0, 0});
    VXK_CHECK(c && c->payload);
    uint64_t solid[8], water[8];
    vxk_terrain_chunk_bits(&world->terrain, (vxk_int3){-1, 0, 0}, solid, water);
    VXK_CHECK_EQ_U64(water[6], 1ull << (3 + 8 * 2));
    VXK_CHECK_EQ_U64(solid[6], ~(1ull << (3 + 8 * 2)));
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(p, p), VXK_MAT_STONE), VXK_OK);
    c = vxk_terrain_find(&world->terrain, (vxk_int3){-1, 0, 0});
    VXK_CHECK(c && !c->payload);
    // Air voxel by voxel through write_box: removal happens with the last voxel.
    uint8_t air[64] = {0};
    for (int y = 0; y < 8; ++y) {
        VXK_CHECK(vxk_terrain_find(&world->terrain, (vxk_int3){-1, 0, 0}) != NULL);
        VXK_CHECK_EQ_INT(
            vxk_world_write_box(world,
                                vxk_test_box_sized((vxk_int3){-8, y, 0}, (vxk_int3){8, 1, 8}), air),
            VXK_OK);
    }
    VXK_CHECK(vxk_terrain_find(&world->terrain, (vxk_int3){-1, 0, 0}) == NULL);
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    VXK_CHECK_EQ_U64(mem.chunk_count, 0);
    VXK_CHECK_EQ_U64(mem.voxel_bytes, 0);
    // Bulk: a big fill makes interior chunks uniform; only the border chunks carry payloads.
    int64_t blo[3] = {-13, -3, 5}, bhi[3] = {50, 20, 70};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(blo, bhi), VXK_MAT_DIRT), VXK_OK);
    vxk_world_get_memory_stats(world, &mem);
    int64_t chunks = 0, mixed = 0;
    for (int32_t cy = -1; cy <= 2; ++cy)
        for (int32_t cz = 0; cz <= 8; ++cz)
            for (int32_t cx = -2; cx <= 6; ++cx) {
                ++chunks;
                bool full = cx * 8 >= -13 && cx * 8 + 7 <= 50 && cy * 8 >= -3 && cy * 8 + 7 <= 20 &&
                            cz * 8 >= 5 && cz * 8 + 7 <= 70;
                mixed += !full;
                const vxk_chunk* k = vxk_terrain_find(&world->terrain, (vxk_int3){cx, cy, cz});
                VXK_CHECK(k && (k->payload != NULL) == !full);
            }
    VXK_CHECK_EQ_U64(mem.chunk_count, chunks);
    VXK_CHECK_EQ_U64(mem.mixed_chunks, mixed);
    vxk_world_destroy(world);
    return 0;
}

// Bad input returns an error and leaves the terrain (hash, chunk count, dirty list) unchanged.
static int test_validation(void)
{
    vxk_world_def def = vxk_default_world_def();
    vxk_world* world = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(NULL, &world), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_world_create(&def, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_world_def bad = def;
    bad.cookie = 0;
    VXK_CHECK_EQ_INT(vxk_world_create(&bad, &world), VXK_ERR_BAD_DEF);
    vxk_world_def zeroed;
    memset(&zeroed, 0, sizeof(zeroed));
    VXK_CHECK_EQ_INT(vxk_world_create(&zeroed, &world), VXK_ERR_BAD_DEF);
    bad = def;
    bad.voxel_size = NAN;
    VXK_CHECK(vxk_world_create(&bad, &world) != VXK_OK);
    bad.voxel_size = INFINITY;
    VXK_CHECK(vxk_world_create(&bad, &world) != VXK_OK);
    bad.voxel_size = 0.0f;
    VXK_CHECK(vxk_world_create(&bad, &world) != VXK_OK);
    bad.voxel_size = -1.0f;
    VXK_CHECK(vxk_world_create(&bad, &world) != VXK_OK);
    vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_STONE].density = NAN;
    bad = def;
    bad.materials = &table;
    VXK_CHECK(vxk_world_create(&bad, &world) != VXK_OK);
    VXK_CHECK(world == NULL);

    def.voxel_size = 0.5f;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
    VXK_CHECK(vxk_world_voxel_size(world) == 0.5f);
    VXK_CHECK(vxk_world_jobs(world) != NULL);
    int64_t lo[3] = {-20, -9, -20}, hi[3] = {20, 9, 20};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), VXK_MAT_STONE), VXK_OK);
    int64_t lo2[3] = {-3, -3, -3}, hi2[3] = {3, 3, 3};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo2, hi2), VXK_MAT_WATER), VXK_OK);
    uint32_t dirty_count = 0;
    vxk_terrain_take_dirty(&world->terrain, &dirty_count);
    VXK_CHECK(dirty_count > 0);
    uint64_t hash = vxk_world_terrain_hash(world);
    vxk_world_memory_stats mem0, mem1;
    vxk_world_get_memory_stats(world, &mem0);

    const vxk_int_box ok_box = {{0, 0, 0}, {4, 4, 4}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(NULL, ok_box, 1), VXK_ERR_INVALID_ARGUMENT);
    for (int a = 0; a < 3; ++a) {
        // Inverted on one axis, by one voxel and across the whole int32 range.
        vxk_int_box box = ok_box;
        int32_t* lo_a = a == 0 ? &box.min.x : a == 1 ? &box.min.y : &box.min.z;
        int32_t* hi_a = a == 0 ? &box.max.x : a == 1 ? &box.max.y : &box.max.z;
        *lo_a = 5;
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, box, 0), VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, box, 1), VXK_ERR_INVALID_ARGUMENT);
        *lo_a = INT32_MAX;
        *hi_a = INT32_MIN;
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, box, 1), VXK_ERR_INVALID_ARGUMENT);
    }
    for (int id = VXK_MAT_DEFAULT_COUNT; id < 256; id += 17)
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, ok_box, (uint8_t)id), VXK_ERR_BAD_MATERIAL);
    // Filling (nearly) all of int32 space with solid cannot be stored: an error, nothing changed.
    const vxk_int_box huge = {{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, 0, INT32_MAX}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, huge, VXK_MAT_STONE), VXK_ERR_OUT_OF_MEMORY);

    uint8_t ids[125];
    for (int i = 0; i < 125; ++i)
        ids[i] = (uint8_t)(i % VXK_MAT_DEFAULT_COUNT);
    ids[77] = 99; // one undefined id: the whole write is refused
    VXK_CHECK_EQ_INT(vxk_world_write_box(
                         world, vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){5, 5, 5}), ids),
                     VXK_ERR_BAD_MATERIAL);
    ids[77] = 1;
    VXK_CHECK_EQ_INT(vxk_world_write_box(
                         NULL, vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){5, 5, 5}), ids),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_world_write_box(
                         world, vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){5, 5, 5}), NULL),
                     VXK_ERR_INVALID_ARGUMENT);
    // Inverted boxes, and boxes whose byte count overflows size_t (2^64 and 2^96 bytes).
    const vxk_int_box inverted = {{0, 0, 0}, {4, -1, 4}};
    const vxk_int_box plane64 = {{INT32_MIN, 0, INT32_MIN}, {INT32_MAX, 0, INT32_MAX}};
    const vxk_int_box all = {{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}};
    VXK_CHECK_EQ_INT(vxk_world_write_box(world, inverted, ids), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_world_write_box(world, plane64, ids), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_world_write_box(world, all, ids), VXK_ERR_OUT_OF_RANGE);
    uint8_t out[125];
    VXK_CHECK_EQ_INT(vxk_world_read_box(world, out, inverted), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_world_read_box(world, out, plane64), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_world_read_box(world, out, all), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_world_read_box(
                         world, NULL, vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){5, 5, 5})),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(
        vxk_world_read_box(NULL, out, vxk_test_box_sized((vxk_int3){0, 0, 0}, (vxk_int3){5, 5, 5})),
        VXK_ERR_INVALID_ARGUMENT);

    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(world), hash);
    vxk_world_get_memory_stats(world, &mem1);
    VXK_CHECK_EQ_U64(mem1.chunk_count, mem0.chunk_count);
    VXK_CHECK_EQ_U64(mem1.mixed_chunks, mem0.mixed_chunks);
    vxk_terrain_take_dirty(&world->terrain, &dirty_count);
    VXK_CHECK_EQ_U64(dirty_count, 0);
    // A write of the same material is a no-op: no dirty chunk, same hash.
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo2, hi2), VXK_MAT_WATER), VXK_OK);
    vxk_terrain_take_dirty(&world->terrain, &dirty_count);
    VXK_CHECK_EQ_U64(dirty_count, 0);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(world), hash);
    vxk_world_destroy(world);
    vxk_world_destroy(NULL);
    return 0;
}

// Coordinates at the ends of the int32 range.
static int test_int32_edges(void)
{
    vxk_world_def def = vxk_default_world_def();
    vxk_world* world = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
    const int32_t corners[2] = {INT32_MIN, INT32_MAX};
    for (int i = 0; i < 8; ++i) {
        int32_t x = corners[i & 1], y = corners[(i >> 1) & 1], z = corners[(i >> 2) & 1];
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(world, (vxk_int3){x, y, z}), 0);
        int64_t p[3] = {x, y, z};
        uint8_t m = (uint8_t)(1 + i % 10);
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(p, p), m), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(world, (vxk_int3){x, y, z}), m);
    }
    // Boxes touching the ends: [MAX-9, MAX] and [MIN, MIN+9] along every axis.
    int64_t lo[3] = {(int64_t)INT32_MAX - 9, INT32_MIN, INT32_MIN};
    int64_t hi[3] = {INT32_MAX, (int64_t)INT32_MIN + 9, (int64_t)INT32_MIN + 9};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), VXK_MAT_SAND), VXK_OK);
    uint8_t out[1000];
    VXK_CHECK_EQ_INT(
        vxk_world_read_box(world, out,
                           vxk_test_box_sized((vxk_int3){INT32_MAX - 9, INT32_MIN, INT32_MIN},
                                              (vxk_int3){10, 10, 10})),
        VXK_OK);
    for (int i = 0; i < 1000; ++i)
        VXK_CHECK_EQ_INT(out[i], VXK_MAT_SAND);
    uint8_t ids[1000];
    for (int i = 0; i < 1000; ++i)
        ids[i] = (uint8_t)(i % 7 == 0 ? VXK_MAT_WATER : VXK_MAT_CLAY);
    VXK_CHECK_EQ_INT(
        vxk_world_write_box(world,
                            vxk_test_box_sized((vxk_int3){INT32_MIN, INT32_MAX - 9, INT32_MAX - 9},
                                               (vxk_int3){10, 10, 10}),
                            ids),
        VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_world_read_box(world, out,
                           vxk_test_box_sized((vxk_int3){INT32_MIN, INT32_MAX - 9, INT32_MAX - 9},
                                              (vxk_int3){10, 10, 10})),
        VXK_OK);
    VXK_CHECK(memcmp(out, ids, 1000) == 0);
    VXK_CHECK_EQ_INT(vxk_world_get_voxel(world, (vxk_int3){INT32_MIN, INT32_MAX, INT32_MAX}),
                     ids[999]);
    const vxk_chunk* c = vxk_terrain_find(
        &world->terrain, (vxk_int3){INT32_MIN >> 3, INT32_MAX >> 3, INT32_MAX >> 3});
    VXK_CHECK(c && c->payload);
    // The chunk order holds across the whole coordinate range.
    chunk_versions v;
    versions_of(world, &v);
    VXK_CHECK(v.order_ok);
    vxk_world_destroy(world);
    return 0;
}

// Concurrent readers after writes: the lazily built sorted view, hash, get and read.
typedef struct reader_ctx {
    const vxk_world* world;
    uint64_t hashes[64];
    uint32_t counts[64];
    uint8_t values[64];
} reader_ctx;

static void reader_piece(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    reader_ctx* r = (reader_ctx*)ctx;
    for (uint32_t i = begin; i < end; ++i) {
        uint32_t count = 0;
        vxk_terrain_sorted_chunks(&r->world->terrain, &count);
        r->counts[i] = count;
        r->hashes[i] = vxk_world_terrain_hash(r->world);
        uint8_t box[27];
        vxk_world_read_box(r->world, box,
                           vxk_test_box_sized((vxk_int3){(int32_t)i, 1, 1}, (vxk_int3){3, 3, 3}));
        // box[13] is the box's centre, voxel (i + 1, 2, 2)
        r->values[i] =
            (uint8_t)(vxk_world_get_voxel(r->world, (vxk_int3){(int32_t)i + 1, 2, 2}) ^ box[13]);
    }
}

static int test_concurrent_readers(void)
{
    vxk_jobs_def jobs_def = vxk_default_jobs_def();
    jobs_def.worker_count = 4;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&jobs_def, &jobs), 0);
    vxk_world_def def = vxk_default_world_def();
    def.jobs = jobs;
    vxk_world* world = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
    VXK_CHECK(vxk_world_jobs(world) == jobs);
    uint64_t rng = vxk_test_seed(99);
    for (int round = 0; round < 20; ++round) {
        int64_t lo[3] = {rand_range(&rng, -30, 30), rand_range(&rng, -10, 10),
                         rand_range(&rng, -30, 30)};
        int64_t hi[3] = {lo[0] + rand_range(&rng, 0, 20), lo[1] + rand_range(&rng, 0, 20),
                         lo[2] + rand_range(&rng, 0, 20)};
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), random_material(&rng)),
                         VXK_OK);
        reader_ctx ctx;
        memset(&ctx, 0, sizeof(ctx));
        ctx.world = world;
        vxk_parallel_for(jobs, "readers", 64, 1, reader_piece, &ctx);
        uint64_t hash = vxk_world_terrain_hash(world);
        vxk_world_memory_stats mem;
        vxk_world_get_memory_stats(world, &mem);
        for (int i = 0; i < 64; ++i) {
            VXK_CHECK_EQ_U64(ctx.hashes[i], hash);
            VXK_CHECK_EQ_U64(ctx.counts[i], mem.chunk_count);
            VXK_CHECK_EQ_INT(ctx.values[i], 0);
        }
    }
    vxk_world_destroy(world);
    vxk_jobs_destroy(jobs);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static void count_chunks(void* ctx, const vxk_chunk_info* info)
{
    (void)info;
    ++*(uint32_t*)ctx;
}

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
            // The limits (vxk/world.h): density 0 or 1e-3..1e5, friction 0..100, restitution 0..1.
            bool in_range = field == 0   ? v == 0.0f || (v >= 1e-3f && v <= 1e5f)
                            : field == 1 ? v >= 0.0f && v <= 100.0f
                                         : v >= 0.0f && v <= 1.0f;
            VXK_CHECK_EQ_INT(st, !isfinite(v) ? VXK_ERR_NOT_FINITE
                                 : in_range   ? VXK_OK
                                              : VXK_ERR_OUT_OF_RANGE);
        }
    }
    // The edges of the ranges: finite values past them are refused (a subnormal or huge density
    // made a body of no or infinite mass, a huge friction NaN impulses).
    const struct {
        int field;
        float value;
        vxk_status want;
    } edges[] = {{0, 1e-3f, VXK_OK},
                 {0, 0.99e-3f, VXK_ERR_OUT_OF_RANGE},
                 {0, 1e-30f, VXK_ERR_OUT_OF_RANGE},
                 {0, 1e5f, VXK_OK},
                 {0, 1.001e5f, VXK_ERR_OUT_OF_RANGE},
                 {0, 1e30f, VXK_ERR_OUT_OF_RANGE},
                 {1, 100.0f, VXK_OK},
                 {1, 100.01f, VXK_ERR_OUT_OF_RANGE},
                 {1, FLT_MAX, VXK_ERR_OUT_OF_RANGE}};
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); ++i) {
        t = base;
        if (edges[i].field == 0)
            t.materials[VXK_MAT_WOOD].density = edges[i].value;
        else
            t.materials[VXK_MAT_WOOD].friction = edges[i].value;
        VXK_CHECK_MSG(vxk_material_table_validate(&t) == edges[i].want, "field %d value %g",
                      edges[i].field, (double)edges[i].value);
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

// The world def's dynamics past their limits (vxk/world.h): gravity of 1e30 and a linear slop of
// FLT_MAX were accepted and every step then failed (issue 26, item 6). Each finite value past its
// range is refused (VXK_ERR_OUT_OF_RANGE, *out untouched), and the ends of the ranges make worlds
// whose steps succeed with a body moving.
static int test_world_def_limits(void)
{
    typedef struct def_case {
        const char* what;
        int field;
        float value;
    } def_case;
    // Fields: 0..2 gravity x..z, 3 hertz, 4 damping ratio, 5 push speed, 6 restitution
    // threshold, 7 linear slop, 8 sleep threshold, 9 voxel size, 10 gravity (value, 0, 0).
    const def_case bad[] = {
        {"gravity.y -1e30", 1, -1e30f},          {"gravity.x 1e30", 0, 1e30f},
        {"gravity (100.01, 0, 0)", 10, 100.01f}, {"gravity.z -FLT_MAX", 2, -FLT_MAX},
        {"gravity.y 100.01", 1, 100.01f},        {"contact_hertz 1e30", 3, 1e30f},
        {"contact_hertz 10001", 3, 10001.0f},    {"contact_damping_ratio FLT_MAX", 4, FLT_MAX},
        {"contact_push_speed 1e30", 5, 1e30f},   {"restitution_threshold 1000.5", 6, 1000.5f},
        {"linear_slop FLT_MAX", 7, FLT_MAX},     {"linear_slop 1.01", 7, 1.01f},
        {"sleep_threshold 1e30", 8, 1e30f},      {"voxel_size 1e30", 9, 1e30f},
        {"voxel_size FLT_MAX", 9, FLT_MAX},      {"voxel_size subnormal", 9, FLT_TRUE_MIN},
    };
    const def_case ok[] = {
        {"gravity.y -100", 1, -100.0f},  {"gravity (100, 0, 0)", 10, 100.0f},
        {"contact_hertz 1e4", 3, 1e4f},  {"contact_damping_ratio 1000", 4, 1000.0f},
        {"push speed 1000", 5, 1000.0f}, {"restitution threshold 1000", 6, 1000.0f},
        {"linear_slop 1", 7, 1.0f},      {"sleep threshold 1000", 8, 1000.0f},
        {"voxel_size 1e-3", 9, 1e-3f},   {"voxel_size 1e3", 9, 1e3f},
        {"contact_hertz 0", 3, 0.0f},    {"linear_slop 0", 7, 0.0f},
    };
    for (int pass = 0; pass < 2; ++pass) {
        const def_case* cases = pass == 0 ? bad : ok;
        size_t count = pass == 0 ? sizeof(bad) / sizeof(bad[0]) : sizeof(ok) / sizeof(ok[0]);
        for (size_t i = 0; i < count; ++i) {
            vxk_world_def d = vxk_default_world_def();
            float* fields[10] = {&d.gravity.x,
                                 &d.gravity.y,
                                 &d.gravity.z,
                                 &d.contact_hertz,
                                 &d.contact_damping_ratio,
                                 &d.contact_push_speed,
                                 &d.restitution_threshold,
                                 &d.linear_slop,
                                 &d.sleep_threshold,
                                 &d.voxel_size};
            if (cases[i].field == 10) // the whole gravity along x: |gravity| is the limit's
                d.gravity = (vxk_vec3){cases[i].value, 0, 0};
            else
                *fields[cases[i].field] = cases[i].value;
            vxk_world* const canary = (vxk_world*)(uintptr_t)0xA5A5A5A0u;
            vxk_world* w = canary;
            vxk_status st = vxk_world_create(&d, &w);
            if (pass == 0) {
                VXK_CHECK_MSG(st == VXK_ERR_OUT_OF_RANGE && w == canary, "%s: %s", cases[i].what,
                              vxk_status_string(st));
                continue;
            }
            VXK_CHECK_MSG(st == VXK_OK, "%s: %s", cases[i].what, vxk_status_string(st));
            float s = d.voxel_size;
            VXK_CHECK_EQ_INT(
                vxk_world_fill_box(w, (vxk_int_box){{-8, -8, -8}, {7, -1, 7}}, VXK_MAT_STONE),
                VXK_OK);
            vxk_body_def b = vxk_default_body_def();
            b.position = (vxk_vec3){0, 2 * s, 0};
            b.shape = vxk_sphere_shape(s, VXK_MAT_STONE);
            b.linear_velocity = (vxk_vec3){1, -10, 0};
            vxk_body_id id;
            VXK_CHECK_EQ_INT(vxk_body_create(w, &b, &id), VXK_OK);
            for (int k = 0; k < 30; ++k) {
                VXK_CHECK_MSG((st = vxk_world_step(w, 1.0f / 60.0f)) == VXK_OK, "%s: step %d: %s",
                              cases[i].what, k, vxk_status_string(st));
                vxk_transform t;
                vxk_vec3 v, av;
                VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
                VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
                VXK_CHECK_MSG(
                    isfinite(t.p.x + t.p.y + t.p.z + v.x + v.y + v.z + av.x + av.y + av.z),
                    "%s: step %d not finite", cases[i].what, k);
            }
            vxk_world_destroy(w);
        }
    }
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
    // voxel_size: non-finite, zero, negative, and sizes outside [1e-3, 1e3] (the limits of
    // vxk/world.h: a body of the terrain's voxels at 1e30 m overflowed the step).
    const float bad_sizes[] = {f_nan(), INFINITY, -INFINITY, 0.0f,         -0.0f,
                               -1.0f,   -FLT_MAX, FLT_MAX,   FLT_TRUE_MIN, FLT_MIN / 4.0f,
                               1e30f,   1e-30f,   0.999e-3f, 1000.001f};
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
    // The extremes of the range are accepted and usable.
    const float ok_sizes[] = {1e-3f, 1e3f, 0.25f};
    for (size_t i = 0; i < sizeof(ok_sizes) / sizeof(ok_sizes[0]); ++i) {
        vxk_world_def d = def;
        d.voxel_size = ok_sizes[i];
        vxk_world* w = NULL;
        VXK_CHECK_EQ_INT(vxk_world_create(&d, &w), VXK_OK);
        VXK_CHECK(vxk_world_voxel_size(w) == ok_sizes[i]);
        VXK_CHECK_EQ_INT(
            vxk_world_fill_box(w, (vxk_int_box){{-4, -4, -4}, {3, -1, 3}}, VXK_MAT_STONE), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
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
    vxk_world_memory_stats mem;
    memset(&mem, CANARY, sizeof(mem));
    vxk_world_get_memory_stats(NULL, &mem);
    VXK_CHECK_EQ_U64(mem.total_bytes, 0);
    return 0;
}

static int test_world_terrain(void)
{
    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
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
    VXK_CHECK_EQ_INT(vxk_world_read_box(w, buf,
                                        (vxk_int_box){{INT32_MAX - 1, INT32_MAX - 1, INT32_MAX - 1},
                                                      {INT32_MAX, INT32_MAX, INT32_MAX}}),
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
    const vxk_int_box cube = {{-2, -2, -2}, {1, 1, 1}};
    uint8_t ids[4 * 4 * 4];
    for (int i = 0; i < 64; ++i)
        ids[i] = (uint8_t)(i % 3 == 0 ? VXK_MAT_SAND : VXK_MAT_AIR);
    for (int pos = 0; pos < 64; pos += 7) {
        uint8_t keep = ids[pos];
        ids[pos] = 200;
        VXK_CHECK_EQ_INT(vxk_world_write_box(w, cube, ids), VXK_ERR_BAD_MATERIAL);
        ids[pos] = keep;
    }
    VXK_CHECK(vxk_world_write_box(NULL, small, ids) != VXK_OK);
    VXK_CHECK(vxk_world_write_box(w, small, NULL) != VXK_OK);
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
    vxk_world_get_memory_stats(w, NULL);

    // An air fill over the whole int32 space clears everything (the sparse path).
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, all, VXK_MAT_AIR), VXK_OK);
    n = 0;
    vxk_world_for_each_chunk(w, count_chunks, &n);
    VXK_CHECK_EQ_U64(n, 0);
    vxk_world* empty = vxk_scene_world();
    VXK_CHECK(empty != NULL);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), vxk_world_terrain_hash(empty));
    vxk_world_destroy(empty);
    vxk_world_destroy(w);
    return 0;
}

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
                VXK_CHECK_EQ_INT(vxk_scene_edge_terrain(w), VXK_OK);
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
    const vxk_int_box fill = {{-20, -3, -20}, {40, 9, 17}}, hole = {{-1, 1, -1}, {3, 2, 3}};
    const vxk_int_box written = {{-6, -1, 5}, {3, 9, 16}}; // 10 x 11 x 12, as ids
    unsigned retained = 0;
    for (int op = 0; op < 3; ++op) {
        // Reference result.
        vxk_world* ref = vxk_scene_edge_world();
        VXK_CHECK(ref != NULL);
        vxk_status ref_st = op == 0   ? vxk_world_fill_box(ref, fill, VXK_MAT_ICE)
                            : op == 1 ? vxk_world_fill_box(ref, hole, VXK_MAT_AIR)
                                      : vxk_world_write_box(ref, written, ids);
        VXK_CHECK_EQ_INT(ref_st, VXK_OK);
        uint64_t expected = vxk_world_terrain_hash(ref);
        vxk_world_destroy(ref);

        vxk_world* w = NULL;
        snapshot s0;
        OOM_SWEEP(
            {
                w = vxk_scene_edge_world();
                VXK_CHECK(w != NULL);
                s0 = snap(w);
            },
            (op == 0   ? vxk_world_fill_box(w, fill, VXK_MAT_ICE)
             : op == 1 ? vxk_world_fill_box(w, hole, VXK_MAT_AIR)
                       : vxk_world_write_box(w, written, ids)),
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

// Readers after a write never allocate the sorted chunk view (the write reserved it): with every
// allocation failing, the terrain hash and chunk iteration still see the whole terrain.
static int test_oom_sorted_view(void)
{
    const vxk_int_box sand = {{-30, -3, -20}, {17, 9, 25}};
    vxk_world* ref = vxk_scene_edge_world();
    VXK_CHECK(ref != NULL);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(ref, sand, VXK_MAT_SAND), VXK_OK);
    uint64_t expected = vxk_world_terrain_hash(ref);
    uint32_t expected_chunks = 0, chunks = 0;
    vxk_world_for_each_chunk(ref, count_chunks, &expected_chunks);
    vxk_world_destroy(ref);

    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
    (void)vxk_world_terrain_hash(w);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, sand, VXK_MAT_SAND),
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

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/world.h but the step (test_step's), for each status it lists: the
// material table, world creation, reading, filling and writing boxes (refused while the
// edit system is on).
static int test_statuses_world(void)
{
    vxk_status_group start = vxk_status_group_begin();
    static vxk_material_table base, t;
    vxk_default_material_table(&base);
    EXPECT_STATUS(VXK_OK, vxk_material_table_validate(&base));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_material_table_validate(NULL));
    t = base;
    t.materials[0].kind = VXK_MATERIAL_SOLID;
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_material_table_validate(&t));
    t = base;
    t.materials[VXK_MAT_STONE].friction = nanf("");
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_material_table_validate(&t));
    t = base;
    t.materials[VXK_MAT_STONE].restitution = 1.5f;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_material_table_validate(&t));
    t = base;
    t.materials[VXK_MAT_STONE].friction = -1.0f;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_material_table_validate(&t));
    t = base;
    memset(t.materials[VXK_MAT_STONE].name, 'x', sizeof(t.materials[0].name));
    EXPECT_STATUS(VXK_ERR_MALFORMED, vxk_material_table_validate(&t));

    vxk_world_def def = vxk_default_world_def(), d = def;
    vxk_world* w = NULL;
    EXPECT_STATUS(VXK_OK, vxk_world_create(&def, &w));
    vxk_world_destroy(w);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_create(NULL, &w));
    d.cookie = 0;
    EXPECT_STATUS(VXK_ERR_BAD_DEF, vxk_world_create(&d, &w));
    d = def;
    d.voxel_size = INFINITY;
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_world_create(&d, &w));
    d.voxel_size = -1.0f;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_create(&d, &w));
    d.voxel_size = FLT_MAX;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_create(&d, &w));
    d = def;
    d.materials = &t; // the name without its NUL
    EXPECT_STATUS(VXK_ERR_MALFORMED, vxk_world_create(&d, &w));
    t = base;
    t.materials[VXK_MAT_WOOD].kind = 7;
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_world_create(&d, &w));
    EXPECT_NO_MEMORY(vxk_world_create(&def, &w));

    w = vxk_scene_status_world();
    VXK_CHECK(w != NULL);
    uint8_t box[64];
    const vxk_int_box cube = {{0, 0, 0}, {3, 3, 3}}; // 64 voxels, the bytes of box
    EXPECT_STATUS(VXK_OK, vxk_world_read_box(w, box, cube));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_read_box(w, NULL, cube));
    const vxk_int_box inverted = {{0, 0, 0}, {3, -1, 3}};
    const vxk_int_box all = {{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}};
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_read_box(w, box, inverted));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_read_box(w, box, all));

    const vxk_int_box small = {{1, 1, 1}, {3, 3, 3}};
    EXPECT_STATUS(VXK_OK, vxk_world_fill_box(w, small, VXK_MAT_SAND));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_fill_box(NULL, small, VXK_MAT_SAND));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_fill_box(w, inverted, VXK_MAT_SAND));
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_world_fill_box(w, small, 200));
    EXPECT_STATUS(VXK_ERR_OUT_OF_MEMORY, vxk_world_fill_box(w, all, VXK_MAT_STONE));
    EXPECT_NO_MEMORY(
        vxk_world_fill_box(w, (vxk_int_box){{1000, 0, 0}, {1003, 3, 3}}, VXK_MAT_SAND));

    memset(box, VXK_MAT_CLAY, sizeof(box));
    EXPECT_STATUS(VXK_OK, vxk_world_write_box(w, cube, box));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_write_box(NULL, cube, box));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_write_box(w, inverted, box));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_write_box(w, all, box));
    EXPECT_NO_MEMORY(vxk_world_write_box(w, (vxk_int_box){{2000, 0, 0}, {2003, 3, 3}}, box));
    box[17] = 201;
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_world_write_box(w, cube, box));
    // While the edit thread's system is on (vxk/edit.h), the direct writes are refused.
    vxk_edit_def ed = vxk_default_edit_def();
    VXK_CHECK_EQ_INT(vxk_edit_enable(w, &ed), VXK_OK);
    box[17] = VXK_MAT_CLAY;
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_world_fill_box(w, small, VXK_MAT_SAND));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_world_write_box(w, cube, box));
    VXK_CHECK_EQ_INT(vxk_edit_disable(w), VXK_OK);
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
    VXK_RUN(test_chunk_map_random);
    VXK_RUN(test_chunk_map_layout);
    VXK_RUN(test_materials);
    VXK_RUN(test_collapse_and_removal);
    VXK_RUN(test_validation);
    VXK_RUN(test_int32_edges);
    VXK_RUN(test_world_random_ops);
    VXK_RUN(test_concurrent_readers);
    vxk_edge_tests_begin();
    VXK_RUN(test_material_table);
    VXK_RUN(test_world_create);
    VXK_RUN(test_world_def_limits);
    VXK_RUN(test_world_terrain);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_world_create);
    VXK_RUN_SWEEP(test_oom_terrain_writes);
    VXK_RUN_SWEEP(test_oom_sorted_view);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_world);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
