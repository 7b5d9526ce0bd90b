// worldgen.c: deterministic parallel terrain generation from integer-hash value noise: fBm
// heightmap, worm caves (ridged 3D noise on a 4-voxel lattice, interpolated), overhangs, water,
// bedrock and materials by depth. Uniform chunks are detected from lattice bounds (seed 000:
// sparse chunks stay cheap when most of the world is uniform).
#include <vxk/worldgen.h>

#include <math.h>

#include "world_internal.h"

#define WORLDGEN_DEF_COOKIE 0x564B5747u // "VKWG"
#define WORLDGEN_MAX_XZ 65536
#define WORLDGEN_MAX_Y 4096
#define WORLDGEN_BATCH_COLUMNS 8192u // chunk columns generated between two terrain inserts
#define WORLDGEN_GRAIN 4u            // chunk columns per job
#define OVERHANG_AMPLITUDE 8.0f      // voxels of vertical surface displacement in cliff regions
#define POCKET_THRESHOLD 0.78f       // |pocket noise| above this: gravel (+) or clay (-)
#define CAVE_MIN_DEPTH 4.0f          // caves stay this far under the heightmap surface
#define HEIGHT_OCTAVES 6

enum { NOISE_OVERHANG, NOISE_CAVE1, NOISE_CAVE2, NOISE_POCKET, NOISE_CAVE_REGION, NOISE_COUNT };

static const float k_noise_frequency[NOISE_COUNT] = {1.0f / 16.0f, 1.0f / 64.0f, 1.0f / 64.0f,
                                                     1.0f / 32.0f, 1.0f / 128.0f};

vxk_worldgen_def vxk_default_worldgen_def(void)
{
    vxk_worldgen_def def;
    memset(&def, 0, sizeof(def));
    def.cookie = WORLDGEN_DEF_COOKIE;
    def.size_x = 256;
    def.size_y = 128;
    def.size_z = 256;
    def.seed = 1;
    def.cave_density = 0.5f;
    def.water_level = VXK_WORLDGEN_WATER_AUTO;
    return def;
}

// ---- Integer-hash value noise ----------------------------------------------------------------

static inline uint32_t hash3(uint64_t seed, int32_t x, int32_t y, int32_t z)
{
    uint64_t h = seed ^ ((uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ull);
    h ^= (uint64_t)(uint32_t)y * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)z * 0x165667B19E3779F9ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

// Lattice value in [-1, 1): 24 hash bits, exact in float.
static inline float lattice_value(uint64_t seed, int32_t x, int32_t y, int32_t z)
{
    return (float)(hash3(seed, x, y, z) >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static inline float smooth(float t)
{
    return t * t * (3.0f - 2.0f * t);
}

static inline float lerp(float a, float b, float t)
{
    return a + (b - a) * t;
}

// Value noise at integer voxel coordinates scaled by a power-of-two frequency (exact in float).
static float value_noise3(uint64_t seed, int32_t x, int32_t y, int32_t z, float frequency)
{
    float px = (float)x * frequency, py = (float)y * frequency, pz = (float)z * frequency;
    float fx = floorf(px), fy = floorf(py), fz = floorf(pz);
    int32_t ix = (int32_t)fx, iy = (int32_t)fy, iz = (int32_t)fz;
    float tx = smooth(px - fx), ty = smooth(py - fy), tz = smooth(pz - fz);
    float c000 = lattice_value(seed, ix, iy, iz), c100 = lattice_value(seed, ix + 1, iy, iz);
    float c010 = lattice_value(seed, ix, iy + 1, iz),
          c110 = lattice_value(seed, ix + 1, iy + 1, iz);
    float c001 = lattice_value(seed, ix, iy, iz + 1),
          c101 = lattice_value(seed, ix + 1, iy, iz + 1);
    float c011 = lattice_value(seed, ix, iy + 1, iz + 1);
    float c111 = lattice_value(seed, ix + 1, iy + 1, iz + 1);
    float a = lerp(lerp(c000, c100, tx), lerp(c010, c110, tx), ty);
    float b = lerp(lerp(c001, c101, tx), lerp(c011, c111, tx), ty);
    return lerp(a, b, tz);
}

static float value_noise2(uint64_t seed, int32_t x, int32_t z, float frequency)
{
    float px = (float)x * frequency, pz = (float)z * frequency;
    float fx = floorf(px), fz = floorf(pz);
    int32_t ix = (int32_t)fx, iz = (int32_t)fz;
    float tx = smooth(px - fx), tz = smooth(pz - fz);
    float c00 = lattice_value(seed, ix, 0, iz), c10 = lattice_value(seed, ix + 1, 0, iz);
    float c01 = lattice_value(seed, ix, 0, iz + 1), c11 = lattice_value(seed, ix + 1, 0, iz + 1);
    return lerp(lerp(c00, c10, tx), lerp(c01, c11, tx), tz);
}

// ---- Generation --------------------------------------------------------------------------------

typedef struct gen_piece {
    vxk_terrain_chunk_source* chunks;
    uint32_t count, capacity;
    bool failed;
} gen_piece;

typedef struct gen_context {
    const vxk_world* world;
    int32_t size_x, size_y, size_z;
    int32_t columns_x, chunks_y;
    int32_t water_level;
    float cave_threshold;
    float cave_region; // caves only where the region noise exceeds this
    uint64_t height_seeds[HEIGHT_OCTAVES];
    uint64_t cliff_seed;
    uint64_t noise_seeds[NOISE_COUNT];
    uint32_t batch_begin;
    gen_piece* pieces;
} gen_context;

// Per-column state: heights, cliff mask and lazily evaluated noise lattice planes (every 4
// voxels in y; 3 x 3 points per plane at x0 + 4i, z0 + 4k, index k*3 + i).
typedef struct column_state {
    int32_t cx, cz, x0, z0, width_x, width_z;
    float height[64], cliff[64]; // index x + 8*z
    float height_min, height_max, overhang_max;
    float* lattice[NOISE_COUNT]; // planes * 9 floats each
    uint8_t* plane_done[NOISE_COUNT];
} column_state;

static float surface_height(const gen_context* g, int32_t x, int32_t z)
{
    float sum = 0.0f, amplitude = 1.0f, frequency = 1.0f / 512.0f, norm = 0.0f;
    for (int o = 0; o < HEIGHT_OCTAVES; ++o) {
        sum += amplitude * value_noise2(g->height_seeds[o], x, z, frequency);
        norm += amplitude;
        amplitude *= 0.5f;
        frequency *= 2.0f;
    }
    float n = sum / norm;
    float h = (float)g->size_y * (0.33f + 0.45f * n);
    return fminf(fmaxf(h, 4.0f), (float)g->size_y - 2.0f);
}

static float cliff_weight(const gen_context* g, int32_t x, int32_t z)
{
    float n = 0.67f * value_noise2(g->cliff_seed, x, z, 1.0f / 256.0f) +
              0.33f * value_noise2(g->cliff_seed + 1, x, z, 1.0f / 128.0f);
    return fminf(fmaxf((n - 0.15f) * 4.0f, 0.0f), 1.0f);
}

// The 27 lattice values around chunk row cy of the column (planes 2cy .. 2cy+2).
static const float* chunk_lattice(const gen_context* g, column_state* c, int noise, int32_t cy)
{
    float* planes = c->lattice[noise];
    for (int32_t j = 2 * cy; j <= 2 * cy + 2; ++j) {
        if (c->plane_done[noise][j])
            continue;
        for (int k = 0; k < 3; ++k)
            for (int i = 0; i < 3; ++i)
                planes[9 * j + 3 * k + i] =
                    value_noise3(g->noise_seeds[noise], c->x0 + 4 * i, 4 * j, c->z0 + 4 * k,
                                 k_noise_frequency[noise]);
        c->plane_done[noise][j] = 1;
    }
    return planes + 9 * 2 * cy;
}

static void lattice_bounds(const float* values, float* lo, float* hi)
{
    float mn = values[0], mx = values[0];
    for (int i = 1; i < 27; ++i) {
        mn = fminf(mn, values[i]);
        mx = fmaxf(mx, values[i]);
    }
    *lo = mn;
    *hi = mx;
}

// Trilinear interpolation of 27 lattice values (4-voxel spacing) to the chunk's 512 voxels,
// done separably (x, then z, then y).
static void interpolate_chunk(const float* lattice, float* field)
{
    static const float t[4] = {0.0f, 0.25f, 0.5f, 0.75f};
    float rows[3][3][8], planes[3][8][8];
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k)
            for (int x = 0; x < 8; ++x) {
                const float* p = lattice + 9 * j + 3 * k + (x >> 2);
                rows[j][k][x] = lerp(p[0], p[1], t[x & 3]);
            }
    for (int j = 0; j < 3; ++j)
        for (int z = 0; z < 8; ++z)
            for (int x = 0; x < 8; ++x)
                planes[j][z][x] = lerp(rows[j][z >> 2][x], rows[j][(z >> 2) + 1][x], t[z & 3]);
    for (int y = 0; y < 8; ++y)
        for (int z = 0; z < 8; ++z)
            for (int x = 0; x < 8; ++x)
                field[x + 8 * z + 64 * y] =
                    lerp(planes[y >> 2][z][x], planes[(y >> 2) + 1][z][x], t[y & 3]);
}

static bool emit(gen_piece* piece, vxk_int3 chunk, uint8_t material, uint8_t* payload)
{
    if (!vxk_grow_items((void**)&piece->chunks, &piece->capacity, (uint64_t)piece->count + 1,
                        sizeof(*piece->chunks))) {
        piece->failed = true;
        if (payload)
            vxk_terrain_payload_free(payload);
        return false;
    }
    piece->chunks[piece->count++] = (vxk_terrain_chunk_source){chunk, material, payload};
    return true;
}

// Air at a chunk: only an existing entry needs a record (to remove it).
static void emit_air(const gen_context* g, gen_piece* piece, vxk_int3 chunk)
{
    if (vxk_terrain_find(&g->world->terrain, chunk))
        emit(piece, chunk, VXK_MAT_AIR, NULL);
}

static bool cave_possible(const gen_context* g, column_state* c, int32_t cy)
{
    float y0 = (float)(cy * 8);
    if (g->cave_threshold <= 0.0f || y0 + 7.0f < 3.0f || y0 > c->height_max - CAVE_MIN_DEPTH)
        return false;
    float region_lo, region_hi;
    lattice_bounds(chunk_lattice(g, c, NOISE_CAVE_REGION, cy), &region_lo, &region_hi);
    if (region_hi <= g->cave_region)
        return false;
    for (int n = NOISE_CAVE1; n <= NOISE_CAVE2; ++n) {
        float lo, hi;
        lattice_bounds(chunk_lattice(g, c, n, cy), &lo, &hi);
        // Interpolated values stay inside [lo, hi]: |v| < t is impossible unless the range meets
        // (-t, t).
        if (lo >= g->cave_threshold || hi <= -g->cave_threshold)
            return false;
    }
    return true;
}

static bool pocket_possible(const gen_context* g, column_state* c, int32_t cy)
{
    float lo, hi;
    lattice_bounds(chunk_lattice(g, c, NOISE_POCKET, cy), &lo, &hi);
    return hi > POCKET_THRESHOLD || lo < -POCKET_THRESHOLD;
}

static void generate_chunk(const gen_context* g, column_state* c, gen_piece* piece, int32_t cy)
{
    const int32_t y0 = cy * 8;
    const int32_t height_y = VXK_MIN(8, g->size_y - y0);
    const bool edge = c->width_x < 8 || c->width_z < 8 || height_y < 8;
    const float top = (float)(y0 + 7);
    const float wl = (float)g->water_level;

    if (!edge && cy > 0) {
        if (c->height_max + c->overhang_max - (float)y0 <= 0.0f && (float)y0 >= c->height_max) {
            // No solid voxel and every voxel above the surface: water up to the level, then air.
            if (top <= wl) {
                emit(piece, (vxk_int3){c->cx, cy, c->cz}, VXK_MAT_WATER, NULL);
                return;
            }
            if ((float)y0 > wl) {
                emit_air(g, piece, (vxk_int3){c->cx, cy, c->cz});
                return;
            }
        } else if (c->height_min - c->overhang_max - top >= 4.0f) {
            // Every voxel at least 4 under the surface: stone unless a cave or pocket may reach in.
            if (!cave_possible(g, c, cy) && !pocket_possible(g, c, cy)) {
                emit(piece, (vxk_int3){c->cx, cy, c->cz}, VXK_MAT_STONE, NULL);
                return;
            }
        }
    }

    uint8_t voxels[VXK_CHUNK_VOXELS];
    if (edge) { // keep what the world holds outside the generated box
        const vxk_chunk* old = vxk_terrain_find(&g->world->terrain, (vxk_int3){c->cx, cy, c->cz});
        if (old && old->payload)
            memcpy(voxels, old->payload, VXK_CHUNK_VOXELS);
        else
            memset(voxels, old ? old->uniform_material : 0, VXK_CHUNK_VOXELS);
    }
    float overhang[VXK_CHUNK_VOXELS], cave1[VXK_CHUNK_VOXELS], cave2[VXK_CHUNK_VOXELS];
    float pocket[VXK_CHUNK_VOXELS], region[VXK_CHUNK_VOXELS];
    bool use_overhang = c->overhang_max > 0.0f && (float)y0 <= c->height_max + c->overhang_max &&
                        top >= c->height_min - c->overhang_max;
    bool use_caves = cave_possible(g, c, cy);
    bool use_pockets = pocket_possible(g, c, cy);
    if (use_overhang)
        interpolate_chunk(chunk_lattice(g, c, NOISE_OVERHANG, cy), overhang);
    if (use_caves) {
        interpolate_chunk(chunk_lattice(g, c, NOISE_CAVE1, cy), cave1);
        interpolate_chunk(chunk_lattice(g, c, NOISE_CAVE2, cy), cave2);
        interpolate_chunk(chunk_lattice(g, c, NOISE_CAVE_REGION, cy), region);
    }
    if (use_pockets)
        interpolate_chunk(chunk_lattice(g, c, NOISE_POCKET, cy), pocket);
    const float t = g->cave_threshold;

    for (int ly = 0; ly < height_y; ++ly) {
        int32_t y = y0 + ly;
        float fy = (float)y;
        for (int lz = 0; lz < c->width_z; ++lz)
            for (int lx = 0; lx < c->width_x; ++lx) {
                int column = lx + 8 * lz;
                int i = column + 64 * ly;
                float h = c->height[column];
                float depth = h - fy;
                if (use_overhang)
                    depth += OVERHANG_AMPLITUDE * c->cliff[column] * overhang[i];
                bool shore = h < wl + 2.5f;
                uint8_t m;
                if (y <= 1) {
                    m = VXK_MAT_BEDROCK;
                } else if (depth > 0.0f) {
                    if (use_caves && y >= 3 && h - fy >= CAVE_MIN_DEPTH &&
                        region[i] > g->cave_region && fabsf(cave1[i]) < t && fabsf(cave2[i]) < t)
                        m = VXK_MAT_AIR;
                    else if (depth < 1.0f)
                        m = shore ? VXK_MAT_SAND : VXK_MAT_GRASS;
                    else if (depth < 4.0f)
                        m = shore ? VXK_MAT_SAND : VXK_MAT_DIRT;
                    else if (use_pockets && pocket[i] > POCKET_THRESHOLD)
                        m = VXK_MAT_GRAVEL;
                    else if (use_pockets && pocket[i] < -POCKET_THRESHOLD)
                        m = VXK_MAT_CLAY;
                    else
                        m = VXK_MAT_STONE;
                } else {
                    m = (y <= g->water_level && fy >= h) ? VXK_MAT_WATER : VXK_MAT_AIR;
                }
                voxels[i] = m;
            }
    }

    bool uniform = true;
    for (int i = 1; i < VXK_CHUNK_VOXELS && uniform; ++i)
        uniform = voxels[i] == voxels[0];
    if (uniform) {
        if (voxels[0] == VXK_MAT_AIR)
            emit_air(g, piece, (vxk_int3){c->cx, cy, c->cz});
        else
            emit(piece, (vxk_int3){c->cx, cy, c->cz}, voxels[0], NULL);
        return;
    }
    uint8_t* payload = vxk_terrain_payload_alloc();
    if (!payload) {
        piece->failed = true;
        return;
    }
    memcpy(payload, voxels, VXK_CHUNK_VOXELS);
    vxk_terrain_payload_update_bits(&g->world->terrain, payload);
    emit(piece, (vxk_int3){c->cx, cy, c->cz}, 0, payload);
}

static void generate_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const gen_context* g = (const gen_context*)ctx;
    gen_piece* piece = &g->pieces[begin / WORLDGEN_GRAIN];
    uint32_t planes = (uint32_t)g->chunks_y * 2 + 1;
    size_t lattice_bytes = (size_t)NOISE_COUNT * planes * (9 * sizeof(float) + 1);
    uint8_t* memory = (uint8_t*)vxk_alloc(lattice_bytes);
    if (!memory) {
        piece->failed = true;
        return;
    }
    column_state c;
    for (int n = 0; n < NOISE_COUNT; ++n) {
        c.lattice[n] = (float*)(void*)(memory + (size_t)n * planes * 9 * sizeof(float));
        c.plane_done[n] =
            memory + (size_t)NOISE_COUNT * planes * 9 * sizeof(float) + (size_t)n * planes;
    }
    for (uint32_t i = begin; i < end && !piece->failed; ++i) {
        uint32_t column = g->batch_begin + i;
        c.cx = (int32_t)(column % (uint32_t)g->columns_x);
        c.cz = (int32_t)(column / (uint32_t)g->columns_x);
        c.x0 = c.cx * 8;
        c.z0 = c.cz * 8;
        c.width_x = VXK_MIN(8, g->size_x - c.x0);
        c.width_z = VXK_MIN(8, g->size_z - c.z0);
        c.height_min = INFINITY;
        c.height_max = -INFINITY;
        float cliff_max = 0.0f;
        for (int lz = 0; lz < 8; ++lz)
            for (int lx = 0; lx < 8; ++lx) {
                int k = lx + 8 * lz;
                if (lx >= c.width_x || lz >= c.width_z) {
                    c.height[k] = 0.0f;
                    c.cliff[k] = 0.0f;
                    continue;
                }
                c.height[k] = surface_height(g, c.x0 + lx, c.z0 + lz);
                c.cliff[k] = cliff_weight(g, c.x0 + lx, c.z0 + lz);
                c.height_min = fminf(c.height_min, c.height[k]);
                c.height_max = fmaxf(c.height_max, c.height[k]);
                cliff_max = fmaxf(cliff_max, c.cliff[k]);
            }
        c.overhang_max = OVERHANG_AMPLITUDE * cliff_max;
        memset(c.plane_done[0], 0, (size_t)NOISE_COUNT * planes);
        for (int32_t cy = 0; cy < g->chunks_y && !piece->failed; ++cy)
            generate_chunk(g, &c, piece, cy);
    }
    vxk_free(memory, lattice_bytes);
}

static void free_piece_payloads(gen_piece* pieces, uint32_t count)
{
    for (uint32_t p = 0; p < count; ++p) {
        for (uint32_t i = 0; i < pieces[p].count; ++i)
            if (pieces[p].chunks[i].payload)
                vxk_terrain_payload_free(pieces[p].chunks[i].payload);
        pieces[p].count = 0;
    }
}

vxk_status vxk_worldgen_run(vxk_world* world, const vxk_worldgen_def* def)
{
    if (!world || !def)
        return VXK_ERR_INVALID_ARGUMENT;
    if (def->cookie != WORLDGEN_DEF_COOKIE)
        return VXK_ERR_BAD_DEF;
    if (def->size_x < 1 || def->size_x > WORLDGEN_MAX_XZ || def->size_z < 1 ||
        def->size_z > WORLDGEN_MAX_XZ || def->size_y < 8 || def->size_y > WORLDGEN_MAX_Y)
        return VXK_ERR_OUT_OF_RANGE;
    if (isnan(def->cave_density))
        return VXK_ERR_NOT_FINITE;
    if (!(def->cave_density >= 0.0f && def->cave_density <= 1.0f))
        return VXK_ERR_OUT_OF_RANGE;
    static const uint8_t used[] = {VXK_MAT_BEDROCK, VXK_MAT_STONE,  VXK_MAT_DIRT, VXK_MAT_GRASS,
                                   VXK_MAT_SAND,    VXK_MAT_GRAVEL, VXK_MAT_CLAY, VXK_MAT_WATER};
    for (size_t i = 0; i < sizeof(used); ++i) {
        const vxk_material* m = &world->materials.materials[used[i]];
        uint8_t kind = used[i] == VXK_MAT_WATER ? VXK_MATERIAL_WATER : VXK_MATERIAL_SOLID;
        if (!m->defined || m->kind != kind)
            return VXK_ERR_BAD_MATERIAL;
    }

    gen_context g;
    memset(&g, 0, sizeof(g));
    g.world = world;
    g.size_x = def->size_x;
    g.size_y = def->size_y;
    g.size_z = def->size_z;
    g.columns_x = (def->size_x + 7) / 8;
    g.chunks_y = (def->size_y + 7) / 8;
    // The automatic level tops a chunk row (8k - 1) so that the water surface does not make a
    // whole row of chunks mixed.
    g.water_level = def->water_level == VXK_WORLDGEN_WATER_AUTO ? ((def->size_y * 3 / 10) & ~7) - 1
                                                                : def->water_level;
    // Density widens the tunnels (half-width in noise units) and the share of the volume where
    // tunnels run (a low-frequency region noise above a threshold).
    g.cave_threshold = def->cave_density > 0.0f ? 0.08f + 0.08f * def->cave_density : 0.0f;
    g.cave_region = 0.6f - 0.8f * def->cave_density;
    uint64_t state = def->seed;
    for (int o = 0; o < HEIGHT_OCTAVES; ++o)
        g.height_seeds[o] = vxk_splitmix64(&state);
    g.cliff_seed = vxk_splitmix64(&state);
    for (int n = 0; n < NOISE_COUNT; ++n)
        g.noise_seeds[n] = vxk_splitmix64(&state);

    uint32_t columns = (uint32_t)g.columns_x * (uint32_t)((def->size_z + 7) / 8);
    uint32_t max_pieces = vxk_parallel_for_pieces(WORLDGEN_BATCH_COLUMNS, WORLDGEN_GRAIN);
    gen_piece* pieces = (gen_piece*)vxk_calloc((size_t)max_pieces * sizeof(gen_piece));
    if (!pieces)
        return VXK_ERR_OUT_OF_MEMORY;
    g.pieces = pieces;
    vxk_status status = VXK_OK;
    vxk_jobs* jobs = world->jobs;
    for (uint32_t begin = 0; begin < columns && status == VXK_OK; begin += WORLDGEN_BATCH_COLUMNS) {
        uint32_t count = VXK_MIN(WORLDGEN_BATCH_COLUMNS, columns - begin);
        uint32_t piece_count = vxk_parallel_for_pieces(count, WORLDGEN_GRAIN);
        g.batch_begin = begin;
        vxk_parallel_for(jobs, "worldgen", count, WORLDGEN_GRAIN, generate_range, &g);
        bool failed = false;
        for (uint32_t p = 0; p < piece_count; ++p)
            failed |= pieces[p].failed;
        // Pieces enter the terrain in piece order: the same map for any worker count.
        for (uint32_t p = 0; p < piece_count && !failed; ++p) {
            status = vxk_terrain_adopt_chunks(&world->terrain, pieces[p].chunks, pieces[p].count);
            if (status != VXK_OK)
                break;
            pieces[p].count = 0;
        }
        if (failed)
            status = VXK_ERR_OUT_OF_MEMORY;
        if (status != VXK_OK)
            free_piece_payloads(pieces, piece_count);
    }
    for (uint32_t p = 0; p < max_pieces; ++p)
        vxk_free(pieces[p].chunks, (size_t)pieces[p].capacity * sizeof(vxk_terrain_chunk_source));
    vxk_free(pieces, (size_t)max_pieces * sizeof(gen_piece));
    return status;
}
