// raycast.c: world ray queries (seed 000, Roblox terrain physics, "Loose kD tree: queries"): a
// chunk-level 3D DDA (Amanatides & Woo 1987) in voxel units over a dense grid of the bit
// broadphase, a mask test per chunk, then the chunk's lazily built quantized kD tree front to back
// with early exit; cached trees are reused without revalidation while the terrain epoch is
// unchanged.
//
// Mechanisms (retuned over time; the header states only the contract):
// Rays are clipped in O(1) to the box of the broadphase entries, read through a dense grid of
// them (ray_grid.c: built once per broadphase build or update by the first ray after it, with a
// bitmap of blocks through which the DDA steps without reading cells); a sparse world without a
// grid uses the broadphase map instead, clips infinite rays to the terrain's y range in O(1), and
// skips empty space by a sparse index of the entries with mask bits over coarser cells (4^l
// chunks per axis, l = 1..14; built by the first ray after each broadphase build or update,
// O(entries)): a ray in a cell with no entry within 4^l chunks leaves that cell in one step, so
// its steps grow with the logarithm of the distances to the entries it passes near, not with its
// length (a ray across 2^26 voxels of empty space takes a few hundred steps).
//
// Cache: a chunk's quads and its 16-bit quantized quad kD tree (vxk_kdtree16; chunk-local voxel
// corners quantize exactly, so hits equal those of the float tree over the same quads; a chunk
// past the quantized tree's limits gets the float tree) are looked up once per call
// (vxk_raycast) or once per batch piece (vxk_raycast_batch, which keeps what a piece met pinned, a
// number bounded by the cache budget); an entry confirmed current at the terrain's write epoch is
// reused without revalidation until the next terrain write. A lookup first reads the chunk's slot
// in the ray grid, which remembers the entry last found for the chunk: a hit there pins it with
// one atomic increment, without a lock (otherwise one shard lock, and the slot is updated).
#include <vxk/broadphase.h>
#include <vxk/raycast.h>
#include <vxk/simd_kernels.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "narrow_cache.h"
#include "ray_grid.h"
#include "ray_terrain.h"

_Static_assert(sizeof(vxk_ray_hit) == 44, "vxk_ray_hit is 44 bytes");

// The voxel coordinate range of the terrain (int32): origins lie in [-2^31, 2^31), segments are
// clipped to it.
#define RAY_VOXEL_LIMIT 2147483648.0
// Rays expected to cross more chunks than this clip against the terrain's chunk bounds first.
#define RAY_LONG_CHUNKS 2048.0
// Rays whose segment comes within two chunks of the range's bounds look for chunks of its
// outermost layer (edge_chunk), which the cache cannot build: a segment's coordinates are bounded
// by its magnitude, so a coordinate this large is the cheap test.
#define RAY_EDGE_VOXELS 16.0
#define RAY_NEAR_EDGE (RAY_VOXEL_LIMIT - RAY_EDGE_VOXELS)
// The ray's thickening (ev, voxels) per voxel of coordinate magnitude along its segment: about
// 170 float ulps, far above the rounding of positions and hits in float, far below a voxel.
#define RAY_MARGIN_REL 1e-5
// The least magnitude the thickening assumes (voxels), so that rays near the origin keep one.
#define RAY_MARGIN_MIN_MAG 1.0
// A ray clear of a cell boundary by this many thickenings stays clear of the neighbour beyond it
// (the DDA's crossing times carry far less rounding than one thickening).
#define RAY_CLEAR_MARGINS 2.0
// Voxels added around the boxes a segment is clipped to: more than the thickening, so a clip
// never cuts a span whose thickened ray could still reach a face in the box.
#define RAY_CLIP_PAD 1.0
// The packet's slab-test box thickening per unit of local coordinate magnitude, float arithmetic
// (about 1700 ulps), and the least magnitude it assumes: twice the box's own coordinates (<= 8).
#define RAY_PACKET_MARGIN_REL 1e-4f
#define RAY_PACKET_MARGIN_MIN_MAG 16.0f
#define RAY_MEMO_SINGLE 16
#define RAY_MEMO_BATCH 2048
#define RAY_SEEN 8
#define RAY_GRAIN_MIN 64
#define RAY_GRAIN_MAX 4096
// Chunks remembered per packet (the chunk data met and the lanes whose slab test hits it).
#define RAY_PACKET_CHUNKS 64

// A prepared ray: voxel-unit origin, voxel-unit direction per world unit, world-unit direction.
typedef struct ray_setup {
    float o[3];  // origin / voxel_size
    float dv[3]; // normalize(direction) / voxel_size
    float dn[3]; // normalize(direction)
    float tmax;  // max_distance (world units), FLT_MAX for +inf
    vxk_vec3 origin;
} ray_setup;

// Pins held for the duration of one call (single ray) or one batch piece: the terrain cannot
// change meanwhile, so a chunk's data found once stays current. Keyed by chunk coordinate: a dense
// list for single calls, an open-addressing table for batch pieces; chunks without data (no
// terrain entry) are remembered too.
typedef struct memo_slot {
    int32_t x, y, z;
    uint32_t used;
    const vxk_narrow_chunk* data;
    vxk_narrow_ref ref;
    vxk_narrow_chunk* owned; // data built outside the cache (edge_chunk), freed with the pin
} memo_slot;

typedef struct ray_memo {
    memo_slot* slots; // mask + 1 slots
    uint32_t mask;
    uint32_t count, limit; // pins are dropped all at once when count reaches limit
    uint32_t owned;        // slots holding data built outside the cache
} ray_memo;

typedef struct ray_bounds {
    bool known;
    bool empty;
    int32_t min[3], max[3]; // chunk coordinates, inclusive
} ray_bounds;

// A coherent group of 8 rays of a batch piece, traced lane after lane: the first lane to need a
// chunk's data fetches it for all and slab-tests all 8 rays at once against the box of the chunk's
// solid voxels (which holds every face of the chunk), thickened; lanes that miss the box skip
// that chunk's kD query, which could not hit. The lanes' own traversals are unchanged. (Querying
// a chunk's tree for all lanes at once, a packet traversal since removed, was measured 6 % slower
// than the lanes' own queries once the leaves were tested 8 quads at a time: a lane's leaf test is
// one vector kernel either way, and the packet's masks and segments cost more than shared nodes
// save.)
typedef struct packet_chunk {
    int32_t x, y, z;
    uint32_t lanes; // bit i: lane i's slab test hit the chunk's box
    const vxk_narrow_chunk* data;
} packet_chunk;

typedef struct ray_packet {
    vxk_ray8 rays;  // voxel-unit origins and directions, t over [0, tmax] in world units
    uint32_t lane;  // the lane being traced
    uint32_t count; // chunks remembered (pinned by the memo; cleared when it unpins)
    packet_chunk chunks[RAY_PACKET_CHUNKS];
} ray_packet;

// ---- the world's ray state: sparse ray index, counters ---------------------------------------
//
// Worlds without a dense ray grid (sparse ones, vxk_narrow_ray_grid) would have a ray step
// through every empty chunk cell it crosses. The sparse ray index marks, per level l = 1 ..
// RAY_LEVELS, the cells of 4^l chunks per axis that hold a broadphase entry with mask bits (one
// open-addressing table of (level, cell) keys, built by the first ray after a broadphase build or
// update). A ray in a cell without mask bits looks up the 27 level-l cells around its own, level
// after level: where all are clear, no entry lies within 4^l chunks of the ray while it stays in
// that cell, and it jumps to the cell's exit in one step. A ray then steps through empty space in
// a number of steps that grows with the logarithm of the distances to the entries it passes.
#define RAY_LEVELS 14 // 4^14 chunks: the whole int32 voxel range
#define RAY_LEVEL_BITS 2

typedef struct ray_index_slot {
    int32_t x, y, z;
    uint32_t level; // 0: empty slot
} ray_index_slot;

typedef struct ray_index {
    ray_index_slot* slots;
    uint64_t mask;  // slots - 1
    uint64_t count; // used slots
    size_t bytes;
} ray_index;

typedef struct ray_state {
    pthread_mutex_t lock;
    _Atomic(ray_index*) index;         // NULL: none built (or out of memory)
    _Atomic uint64_t index_generation; // 1 + the broadphase generation of index
    _Atomic uint64_t steps;            // DDA steps of rays in sparse worlds
} ray_state;

static inline uint64_t index_hash(uint32_t level, int64_t x, int64_t y, int64_t z)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)z * 0x165667B19E3779F9ull ^ (uint64_t)level * 0x27D4EB2F165667C5ull;
    return h ^ (h >> 29);
}

static bool index_has(const ray_index* index, uint32_t level, int64_t x, int64_t y, int64_t z)
{
    for (uint64_t i = index_hash(level, x, y, z) & index->mask;; i = (i + 1) & index->mask) {
        const ray_index_slot* slot = &index->slots[i];
        if (!slot->level)
            return false;
        if (slot->level == level && slot->x == x && slot->y == y && slot->z == z)
            return true;
    }
}

// Inserts (level, x, y, z) unless present; grows the table at half load. False when out of memory.
static bool index_add(ray_index* index, uint32_t level, int32_t x, int32_t y, int32_t z)
{
    if (2 * (index->count + 1) > index->mask + 1) {
        ray_index bigger = {0};
        bigger.mask = 2 * (index->mask + 1) - 1;
        bigger.bytes = (size_t)(bigger.mask + 1) * sizeof(ray_index_slot);
        bigger.slots = (ray_index_slot*)vxk_calloc(bigger.bytes);
        if (!bigger.slots)
            return false;
        for (uint64_t i = 0; i <= index->mask; ++i) {
            const ray_index_slot* slot = &index->slots[i];
            if (slot->level && !index_add(&bigger, slot->level, slot->x, slot->y, slot->z))
                return false; // cannot happen: bigger has room
        }
        vxk_free(index->slots, index->bytes);
        *index = bigger;
    }
    uint64_t i = index_hash(level, x, y, z) & index->mask;
    for (; index->slots[i].level; i = (i + 1) & index->mask) {
        const ray_index_slot* slot = &index->slots[i];
        if (slot->level == level && slot->x == x && slot->y == y && slot->z == z)
            return true;
    }
    index->slots[i] = (ray_index_slot){x, y, z, level};
    ++index->count;
    return true;
}

static void index_free(ray_index* index)
{
    if (!index)
        return;
    vxk_free(index->slots, index->bytes);
    vxk_free(index, sizeof(*index));
}

typedef struct index_fill {
    ray_index* index;
    bool ok;
} index_fill;

static void index_visit(void* user, vxk_int3 chunk, uint8_t tag, const uint64_t* solid)
{
    (void)solid;
    index_fill* f = (index_fill*)user;
    if (tag != VXK_BROADPHASE_MASK || !f->ok)
        return;
    for (uint32_t level = 1; level <= RAY_LEVELS && f->ok; ++level) {
        int shift = (int)(RAY_LEVEL_BITS * level);
        f->ok = index_add(f->index, level, chunk.x >> shift, chunk.y >> shift, chunk.z >> shift);
    }
}

static ray_index* index_build(const vxk_world* world)
{
    ray_index* index = (ray_index*)vxk_calloc(sizeof(ray_index));
    if (!index)
        return NULL;
    index->mask = 63;
    index->bytes = 64 * sizeof(ray_index_slot);
    index->slots = (ray_index_slot*)vxk_calloc(index->bytes);
    index_fill f = {index, index->slots != NULL};
    if (f.ok)
        vxk_broadphase_for_each(world, index_visit, &f);
    if (!f.ok) {
        index_free(index);
        return NULL;
    }
    return index;
}

static void state_destroy(void* self)
{
    ray_state* state = (ray_state*)self;
    index_free(atomic_load(&state->index));
    pthread_mutex_destroy(&state->lock);
    vxk_free(state, sizeof(*state));
}

static void state_memory(const void* self, vxk_world_memory* stats)
{
    ray_state* state = (ray_state*)self;
    const ray_index* index = atomic_load(&state->index);
    stats->narrow_bytes += sizeof(*state) + (index ? sizeof(*index) + index->bytes : 0);
}

vxk_status vxk_rays_attach(vxk_world* world)
{
    ray_state* state = (ray_state*)vxk_calloc(sizeof(ray_state));
    if (!state)
        return VXK_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&state->lock, NULL);
    world->rays.self = state;
    world->rays.destroy = state_destroy;
    world->rays.memory = state_memory;
    return VXK_OK;
}

// The world's ray state (created with the world; the state, not the world, is mutable).
static inline ray_state* state_get(const vxk_world* world)
{
    return (ray_state*)world->rays.self;
}

// The sparse ray index of the current broadphase, built on first need after each build or update
// (concurrent callers wait); NULL when out of memory (rays then step cell by cell).
static const ray_index* index_get(ray_state* state, const vxk_world* world)
{
    uint64_t want = vxk_broadphase_generation(world) + 1;
    if (atomic_load_explicit(&state->index_generation, memory_order_acquire) == want)
        return atomic_load_explicit(&state->index, memory_order_relaxed);
    // A new broadphase: nobody reads the old index any more (builds and updates do not overlap
    // rays, and a ray only uses an index whose generation it saw current).
    pthread_mutex_lock(&state->lock);
    if (atomic_load_explicit(&state->index_generation, memory_order_relaxed) != want) {
        index_free(atomic_load_explicit(&state->index, memory_order_relaxed));
        atomic_store_explicit(&state->index, index_build(world), memory_order_relaxed);
        atomic_store_explicit(&state->index_generation, want, memory_order_release);
    }
    ray_index* index = atomic_load_explicit(&state->index, memory_order_relaxed);
    pthread_mutex_unlock(&state->lock);
    return index;
}

// Whether the 27 level-l cells around chunk c's are all clear (no broadphase entry with mask bits
// within 4^l chunks of c's level-l cell: farther than the one cell around its own that the DDA
// visits).
static bool level_clear(const ray_index* index, uint32_t level, const int32_t c[3])
{
    int shift = (int)(RAY_LEVEL_BITS * level);
    int64_t x = c[0] >> shift, y = c[1] >> shift, z = c[2] >> shift;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx)
                if (index_has(index, level, x + dx, y + dy, z + dz))
                    return false;
    return true;
}

// The highest clear level around chunk c, 0 when level 1 is busy. Clear levels run from 1 up to
// the first busy one (a level's 27 cells hold the 27 of every level below), so the search starts
// at the level the ray's last step found (hint; it changes by a level or two between steps) and
// walks up or down from there.
static uint32_t clear_level(const ray_index* index, const int32_t c[3], uint32_t hint)
{
    uint32_t level = hint < 1 ? 1 : (hint > RAY_LEVELS ? RAY_LEVELS : hint);
    if (!level_clear(index, level, c)) {
        while (--level >= 1 && !level_clear(index, level, c)) {
        }
        return level;
    }
    while (level < RAY_LEVELS && level_clear(index, level + 1, c))
        ++level;
    return level;
}

typedef struct ray_context {
    const vxk_world* world;
    vxk_narrow_cache* cache;
    const vxk_ray_grid* grid; // NULL: broadphase lookups through its map
    ray_bounds* bounds;
    ray_memo memo;
    ray_packet* packet; // NULL outside the packet path
    uint32_t epoch;     // the terrain epoch (no writes while rays run)
    uint64_t slot_hits; // chunk data found through the grid's slots (added to the stats once)
    ray_state* state;
    const ray_index* index; // sparse worlds (no grid): the sparse ray index, or NULL
    uint64_t steps;         // DDA steps in a sparse world (added to the stats once)
    bool near_edge;         // the ray's segment reaches the outermost chunk layer (edge_chunk)
    // The frame of the ray's quad tests: the origin relative to chunk c_ref = trunc(o / 8), exact
    // (|o_ref| <= |o| and a multiple of o's ulp), every chunk's quads shifted by 8 (c - c_ref).
    float o_ref[3];
    double c_ref[3];
    bool framed;      // o_ref and c_ref are set (at the ray's first chunk visit)
    uint64_t packets; // coherent groups traced as packets (added to the stats once)
} ray_context;

// Sets up the cache and grid of a context; false when out of memory.
// The cache and the ray state exist as long as the world (vxk_world_create makes them).
static inline __attribute__((always_inline)) void context_init(ray_context* ctx,
                                                               const vxk_world* world)
{
    ctx->world = world;
    ctx->cache = vxk_narrow_cache_get(world);
    ctx->grid = vxk_narrow_ray_grid(ctx->cache, world);
    ctx->epoch = vxk_terrain_epoch(&world->terrain);
    ctx->state = state_get(world);
    ctx->index = !ctx->grid ? index_get(ctx->state, world) : NULL;
}

// Adds what a call or a batch piece counted to the shared statistics.
static void context_count(const ray_context* ctx)
{
    vxk_narrow_count_rays(ctx->cache, ctx->slot_hits, ctx->packets);
    if (ctx->steps) // sparse worlds only: no shared write per ray elsewhere
        atomic_fetch_add_explicit(&ctx->state->steps, ctx->steps, memory_order_relaxed);
}

// The broadphase entry of a chunk: through the grid when there is one (ctx->grid, or the trace's
// local copy of it), else through the broadphase map.
static inline uint8_t chunk_peek(const ray_context* ctx, const vxk_ray_grid* grid, int32_t cx,
                                 int32_t cy, int32_t cz, const uint64_t** solid)
{
    if (grid)
        return vxk_ray_grid_peek(grid, (vxk_int3){cx, cy, cz}, solid);
    return vxk_broadphase_peek(ctx->world, (vxk_int3){cx, cy, cz}, solid);
}

// The axis of the smallest of t[0..2], the lowest on ties; selects rather than branches (which
// way a diagonal ray steps next is a coin flip for the predictor).
static inline int min_axis(const double t[3])
{
    int a01 = t[1] < t[0];
    double t01 = a01 ? t[1] : t[0];
    return t[2] < t01 ? 2 : a01;
}

// Plain comparisons (inlined; the operands are never NaN) instead of libm's fmin/fmax calls.
static inline double dmin(double a, double b)
{
    return a < b ? a : b;
}
static inline double dmax(double a, double b)
{
    return a > b ? a : b;
}

static vxk_status ray_validate(const vxk_world* world, const vxk_ray* ray, ray_setup* out)
{
    if (!vxk_vec3_is_finite(ray->origin) || !vxk_vec3_is_finite(ray->direction) ||
        isnan(ray->max_distance))
        return VXK_ERR_NOT_FINITE;
    if (ray->max_distance < 0.0f)
        return VXK_ERR_OUT_OF_RANGE;
    float d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    float a0 = fabsf(d[0]), a1 = fabsf(d[1]), a2 = fabsf(d[2]);
    float m = a0 > a1 ? a0 : a1; // finite, nonnegative: equal to fmaxf without the libm call
    m = m > a2 ? m : a2;
    if (m == 0.0f)
        return VXK_ERR_OUT_OF_RANGE;
    float s[3] = {d[0] / m, d[1] / m, d[2] / m};
    float len2 = (s[0] * s[0] + s[1] * s[1]) + s[2] * s[2];
    float inv_len = 1.0f / sqrtf(len2);
    float inv_vs = world->inv_voxel_size;
    float o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    for (int i = 0; i < 3; ++i) {
        out->dn[i] = s[i] * inv_len;
        out->dv[i] = out->dn[i] * inv_vs;
        out->o[i] = o[i] * inv_vs;
        if (!(out->o[i] >= -RAY_VOXEL_LIMIT && out->o[i] < RAY_VOXEL_LIMIT))
            return VXK_ERR_OUT_OF_RANGE;
    }
    if (out->dv[0] == 0.0f && out->dv[1] == 0.0f && out->dv[2] == 0.0f)
        return VXK_ERR_OUT_OF_RANGE;
    out->tmax = isinf(ray->max_distance) ? FLT_MAX : ray->max_distance;
    out->origin = ray->origin;
    return VXK_OK;
}

// ---- terrain bounds for long rays -------------------------------------------------------------

static void bounds_compute(const vxk_world* world, ray_bounds* b)
{
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &count);
    b->known = true;
    b->empty = count == 0 || !chunks;
    if (b->empty)
        return;
    for (int a = 0; a < 3; ++a) {
        b->min[a] = INT32_MAX;
        b->max[a] = INT32_MIN;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t c[3] = {chunks[i]->coord.x, chunks[i]->coord.y, chunks[i]->coord.z};
        for (int a = 0; a < 3; ++a) {
            b->min[a] = VXK_MIN(b->min[a], c[a]);
            b->max[a] = VXK_MAX(b->max[a], c[a]);
        }
    }
}

// Clips [*t0, *t1] (world units) to a box in voxel units; false when the segment misses it.
// inv: 1 / dv per axis (0 where dv is 0), computed once per ray.
static bool clip_box(const ray_setup* r, const double inv[3], const double lo[3],
                     const double hi[3], double* t0, double* t1)
{
    for (int a = 0; a < 3; ++a) {
        double o = r->o[a];
        if (r->dv[a] == 0.0f) {
            if (o < lo[a] || o > hi[a])
                return false;
            continue;
        }
        double ta = (lo[a] - o) * inv[a], tb = (hi[a] - o) * inv[a];
        if (ta > tb) {
            double x = ta;
            ta = tb;
            tb = x;
        }
        *t0 = ta > *t0 ? ta : *t0;
        *t1 = tb < *t1 ? tb : *t1;
    }
    return *t0 <= *t1;
}

// ---- per-chunk work ---------------------------------------------------------------------------

// Up to RAY_MEMO_LINEAR slots are kept dense and scanned (nothing to clear per call); larger memos
// are open-addressing tables.
#define RAY_MEMO_LINEAR 16

static void memo_init(ray_memo* m, memo_slot* slots, uint32_t capacity, uint32_t limit)
{
    if (capacity > RAY_MEMO_LINEAR)
        memset(slots, 0, (size_t)capacity * sizeof(memo_slot));
    m->slots = slots;
    m->mask = capacity - 1;
    m->count = 0;
    m->limit = limit;
    m->owned = 0;
}

// ---- chunks at the edge of the range ----------------------------------------------------------

// The outermost chunk layer of the int32 voxel range: the mesher's 10^3 box around such a chunk
// leaves int32 (vxk_chunk_mesh refuses it), so the cache cannot build its data. A ray builds
// it itself (the voxels past the range are air) and keeps it for the call or batch piece, in the
// memo slot that would have held the pin.
static bool edge_chunk(vxk_int3 chunk)
{
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    bool edge = false;
    for (int a = 0; a < 3; ++a)
        edge |= c[a] == (INT32_MAX >> 3) || c[a] == (INT32_MIN >> 3);
    return edge;
}

static void edge_chunk_free(vxk_narrow_chunk* data)
{
    if (!data)
        return;
    vxk_narrow_free_chunk(data);
    vxk_free(data, sizeof(*data));
}

// The data of an edge chunk: NULL (and VXK_OK) when it has no terrain entry.
static vxk_status edge_chunk_build(const vxk_world* world, vxk_narrow_chunk** out, vxk_int3 chunk)
{
    *out = NULL;
    if (!vxk_terrain_find(&world->terrain, chunk))
        return VXK_OK;
    vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint8_t box[VXK_MESHER_BOX_VOXELS], solid_kind[256];
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    for (int y = 0; y < VXK_MESHER_BOX; ++y)
        for (int z = 0; z < VXK_MESHER_BOX; ++z)
            for (int x = 0; x < VXK_MESHER_BOX; ++x) {
                const int64_t v[3] = {8 * (int64_t)c[0] - 1 + x, 8 * (int64_t)c[1] - 1 + y,
                                      8 * (int64_t)c[2] - 1 + z};
                bool inside = true;
                for (int a = 0; a < 3; ++a)
                    inside &= v[a] >= INT32_MIN && v[a] <= INT32_MAX;
                box[x + VXK_MESHER_BOX * (z + VXK_MESHER_BOX * y)] =
                    inside ? vxk_world_get_voxel(
                                 world, (vxk_int3){(int32_t)v[0], (int32_t)v[1], (int32_t)v[2]})
                           : 0;
            }
    vxk_chunk_solid_table(solid_kind, &world->materials);
    uint32_t count = 0;
    vxk_status status = vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, box, solid_kind);
    vxk_narrow_chunk* data = (vxk_narrow_chunk*)vxk_calloc(sizeof(vxk_narrow_chunk));
    if (status != VXK_OK || !data) {
        vxk_free(data, sizeof(*data));
        return status != VXK_OK ? status : VXK_ERR_OUT_OF_MEMORY;
    }
    data->coord = chunk;
    uint64_t water[8];
    vxk_terrain_chunk_bits(&world->terrain, chunk, data->solid, water);
    vxk_mesh mesh = {0};
    if (count) {
        data->quads = (vxk_quad*)vxk_alloc((size_t)count * sizeof(vxk_quad));
        status = data->quads ? VXK_OK : VXK_ERR_OUT_OF_MEMORY;
        if (status == VXK_OK) {
            memcpy(data->quads, quads, (size_t)count * sizeof(vxk_quad));
            data->quad_count = count;
            status = vxk_quad_to_mesh(&mesh, quads, count, 4, (vxk_vec3){0.0f, 0.0f, 0.0f}, 1.0f);
        }
        if (status == VXK_OK)
            status = vxk_kdtree16_build(&data->tree16, &mesh, NULL, 0);
        data->quantized = status == VXK_OK;
        vxk_mesh_free(&mesh);
    }
    if (status != VXK_OK) {
        edge_chunk_free(data);
        return status;
    }
    *out = data;
    return VXK_OK;
}

// The data a memo built outside the cache (rare: edge chunks), freed.
static __attribute__((noinline)) void memo_free_owned(ray_memo* m)
{
    uint32_t n = m->mask < RAY_MEMO_LINEAR ? m->count : m->mask + 1;
    for (uint32_t i = 0; i < n; ++i) {
        edge_chunk_free(m->slots[i].owned);
        m->slots[i].owned = NULL;
    }
    m->owned = 0;
}

static void memo_release(ray_memo* m)
{
    if (!m->count)
        return;
    if (__builtin_expect(m->owned != 0, 0))
        memo_free_owned(m);
    if (m->mask < RAY_MEMO_LINEAR) {
        for (uint32_t i = 0; i < m->count; ++i)
            vxk_narrow_release(&m->slots[i].ref);
    } else {
        for (uint32_t i = 0; i <= m->mask; ++i)
            if (m->slots[i].used) {
                vxk_narrow_release(&m->slots[i].ref);
                m->slots[i].used = 0;
            }
    }
    m->count = 0;
}

static vxk_status memo_get(ray_context* ctx, int32_t cx, int32_t cy, int32_t cz,
                           const vxk_narrow_chunk** out)
{
    ray_memo* m = &ctx->memo;
    bool linear = m->mask < RAY_MEMO_LINEAR;
    uint32_t h =
        ((uint32_t)cx * 0x9E3779B1u) ^ ((uint32_t)cy * 0x85EBCA77u) ^ ((uint32_t)cz * 0xC2B2AE3Du);
    h ^= h >> 15;
    if (linear) {
        for (uint32_t i = 0; i < m->count; ++i) {
            const memo_slot* slot = &m->slots[i];
            if (slot->x == cx && slot->y == cy && slot->z == cz) {
                *out = slot->data;
                return VXK_OK;
            }
        }
    } else {
        for (uint32_t i = h & m->mask;; i = (i + 1) & m->mask) {
            const memo_slot* slot = &m->slots[i];
            if (!slot->used)
                break;
            if (slot->x == cx && slot->y == cy && slot->z == cz) {
                *out = slot->data;
                return VXK_OK;
            }
        }
    }
    const vxk_narrow_chunk* data = NULL;
    vxk_narrow_ref ref = {0};
    vxk_narrow_chunk* owned = NULL;
    // The grid's slot first (no lock); on a miss the cache, whose answer the slot then keeps.
    uint64_t cell = 0;
    bool in_grid = ctx->grid && vxk_ray_grid_cell(ctx->grid, (vxk_int3){cx, cy, cz}, &cell);
    if (__builtin_expect(ctx->near_edge, 0) && edge_chunk((vxk_int3){cx, cy, cz})) {
        vxk_status status = edge_chunk_build(ctx->world, &owned, (vxk_int3){cx, cy, cz});
        if (status != VXK_OK)
            return status;
        data = owned;
    } else if (in_grid &&
               vxk_narrow_acquire_slot(ctx->cache, ctx->grid, cell, ctx->epoch, &data, &ref)) {
        ++ctx->slot_hits;
    } else {
        vxk_status status =
            vxk_narrow_acquire_current(ctx->cache, ctx->world, &data, &ref, (vxk_int3){cx, cy, cz});
        if (status != VXK_OK)
            return status;
        if (in_grid)
            vxk_narrow_publish(ctx->grid, cell, ctx->epoch, &ref);
    }
    if (m->count >= m->limit) {
        memo_release(m);
        if (ctx->packet)
            ctx->packet->count = 0; // its chunk data was pinned by the memo
    }
    uint32_t i = m->count;
    if (!linear)
        for (i = h & m->mask; m->slots[i].used; i = (i + 1) & m->mask) {
        }
    m->slots[i] = (memo_slot){cx, cy, cz, 1u, data, ref, owned};
    ++m->count;
    m->owned += owned != NULL;
    *out = data;
    return VXK_OK;
}

// Bits x0..x1 of every row (row masks of the article: masks for a cell range along x or z).
static inline uint64_t row_mask_x(int x0, int x1)
{
    uint64_t row = ((2ull << x1) - 1) & ~((1ull << x0) - 1);
    return row * 0x0101010101010101ull;
}
static inline uint64_t row_mask_z(int z0, int z1)
{
    // 2 << 63 wraps to 0, so z1 = 7 gives all bits from row z0 up.
    return ((2ull << (8 * z1 + 7)) - 1) & ~((1ull << (8 * z0)) - 1);
}

// The voxel box of a span in a chunk: Y slices y0..y1 and the X/Z rows mask of each slice.
typedef struct span_box {
    int y0, y1;
    uint64_t xz;
} span_box;

// The box of the ray over t in [ta, tb] (world units), thickened by ev voxels, in the chunk whose
// corner is local_o's origin; false when it misses the chunk.
static bool span_box_of(const ray_setup* r, const float local_o[3], double ta, double tb, double ev,
                        span_box* box)
{
    int c0[3], c1[3];
    for (int a = 0; a < 3; ++a) {
        double p0 = local_o[a] + ta * (double)r->dv[a];
        double p1 = local_o[a] + tb * (double)r->dv[a];
        double lo = dmin(p0, p1) - ev, hi = dmax(p0, p1) + ev;
        if (hi < 0.0 || lo > 8.0)
            return false;
        double f0 = floor(lo), f1 = floor(hi);
        c0[a] = f0 < 0.0 ? 0 : (f0 > 7.0 ? 7 : (int)f0);
        c1[a] = f1 < 0.0 ? 0 : (f1 > 7.0 ? 7 : (int)f1);
    }
    box->y0 = c0[1];
    box->y1 = c1[1];
    box->xz = row_mask_x(c0[0], c1[0]) & row_mask_z(c0[2], c1[2]);
    return true;
}

// Does a set bit of the chunk's mask lie in the box (one AND per Y slice, the article's row
// masks)? Finer cuts of a long diagonal span were measured to cost more than the tree queries
// they save; the kD tree's own bounds reject the rest.
static bool span_touches(const span_box* box, const uint64_t solid[8])
{
    uint64_t any = 0;
    for (int y = box->y0; y <= box->y1; ++y)
        any |= solid[y] & box->xz;
    return any != 0;
}

// The lanes of the packet whose rays meet chunk c's solid voxel box, thickened by a margin far
// above float error at the box's distance (so a lane that misses cannot hit a face there).
static uint32_t packet_lanes(const ray_packet* p, const vxk_narrow_chunk* data, int32_t cx,
                             int32_t cy, int32_t cz)
{
    if (!data || data->quad_count == 0)
        return 0;
    uint64_t rows = 0;
    int y0 = 8, y1 = -1;
    for (int y = 0; y < 8; ++y)
        if (data->solid[y]) {
            rows |= data->solid[y];
            y0 = y < y0 ? y : y0;
            y1 = y;
        }
    if (!rows)
        return 0xFFu; // faces without solid bits cannot occur; test every lane then
    uint64_t xs = rows | rows >> 32;
    xs |= xs >> 16;
    xs |= xs >> 8;
    xs &= 0xFFu;
    uint32_t zs = 0;
    for (int z = 0; z < 8; ++z)
        zs |= ((rows >> (8 * z)) & 0xFFu) ? 1u << z : 0u;
    vxk_ray8 local = p->rays;
    float mag = 0.0f;
    for (int i = 0; i < 8; ++i) {
        local.ox[i] -= 8.0f * (float)cx;
        local.oy[i] -= 8.0f * (float)cy;
        local.oz[i] -= 8.0f * (float)cz;
        float m = fabsf(local.ox[i]) + fabsf(local.oy[i]) + fabsf(local.oz[i]);
        mag = m > mag ? m : mag;
    }
    float e = RAY_PACKET_MARGIN_REL * (RAY_PACKET_MARGIN_MIN_MAG + mag);
    float lo[3] = {(float)__builtin_ctzll(xs) - e, (float)y0 - e, (float)__builtin_ctz(zs) - e};
    float hi[3] = {(float)(64 - __builtin_clzll(xs)) + e, (float)(y1 + 1) + e,
                   (float)(32 - __builtin_clz(zs)) + e};
    float t_enter[8];
    return vxk_ray8_aabb(&local, lo, hi, t_enter);
}

// Chunk c's data for a ray: through the packet's chunks when there is a packet (*skip: the lane's
// slab test missed the chunk), else through the memo.
static vxk_status chunk_data(ray_context* ctx, int32_t cx, int32_t cy, int32_t cz,
                             const vxk_narrow_chunk** out, bool* skip)
{
    *skip = false;
    ray_packet* p = ctx->packet;
    if (!p)
        return memo_get(ctx, cx, cy, cz, out);
    for (uint32_t i = 0; i < p->count; ++i) {
        const packet_chunk* pc = &p->chunks[i];
        if (pc->x == cx && pc->y == cy && pc->z == cz) {
            *out = pc->data;
            *skip = !((pc->lanes >> p->lane) & 1u);
            return VXK_OK;
        }
    }
    vxk_status status = memo_get(ctx, cx, cy, cz, out);
    if (status != VXK_OK || p->count == RAY_PACKET_CHUNKS)
        return status;
    uint32_t lanes = packet_lanes(p, *out, cx, cy, cz);
    packet_chunk* pc = &p->chunks[p->count++];
    *pc = (packet_chunk){.x = cx, .y = cy, .z = cz, .lanes = lanes, .data = *out};
    *skip = !((lanes >> p->lane) & 1u);
    return VXK_OK;
}

// The best hit so far, copied out of the chunk data (the memo may unpin that chunk later).
typedef struct ray_result {
    float t;
    bool found;
    vxk_quad quad;
    vxk_int3 chunk;
} ray_result;

// The chunk's tree query in the ray's frame (vxk_narrow_raycast with a frame).
static inline bool chunk_raycast(const vxk_narrow_chunk* data, vxk_kdtree_hit* hit,
                                 const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any)
{
    return data->quantized ? vxk_kdtree16_raycast_framed(&data->tree16, hit, ray, frame, any, NULL)
                           : vxk_kdtree_raycast_framed(&data->tree, hit, ray, frame, any, NULL);
}

// Queries chunk c if the ray passes near its mask bits over [ta, tb]; *queried tells whether the
// chunk's tree was searched (over the whole ray, so the chunk is done). any = first hit only.
// solid: the chunk's mask words when the caller has peeked them already, else NULL.
static vxk_status visit_chunk(ray_context* ctx, const ray_setup* r, int32_t cx, int32_t cy,
                              int32_t cz, double ta, double tb, double ev, bool any,
                              const uint64_t* solid, ray_result* best, bool* queried)
{
    *queried = false;
    // No entry: all air around; full solid: no faces (the mesher needs a non-solid neighbour).
    if (!solid && chunk_peek(ctx, ctx->grid, cx, cy, cz, &solid) != VXK_BROADPHASE_MASK)
        return VXK_OK;
    const int32_t c[3] = {cx, cy, cz};
    float local_o[3];
    for (int a = 0; a < 3; ++a)
        local_o[a] = (float)((double)r->o[a] - 8.0 * (double)c[a]);
    span_box box;
    if (!span_box_of(r, local_o, ta, tb, ev, &box) || !span_touches(&box, solid))
        return VXK_OK;
    const vxk_narrow_chunk* data = NULL;
    bool skip = false;
    vxk_status status = chunk_data(ctx, cx, cy, cz, &data, &skip);
    if (status != VXK_OK)
        return status;
    // Every face of the chunk bounds one of its solid voxels: the same test on the exact solid
    // bits (the broadphase mask is dilated) spares the query of a span that only passes the
    // dilation. Later spans test the chunk again.
    if (data && !skip && !span_touches(&box, data->solid))
        return VXK_OK;
    *queried = true;
    if (skip || !data || data->quad_count == 0)
        return VXK_OK;
    vxk_kdtree_ray kr = {{local_o[0], local_o[1], local_o[2]},
                         {r->dv[0], r->dv[1], r->dv[2]},
                         best->found ? best->t : r->tmax};
    // The quads are tested in the ray's frame (every chunk's faces on one grid around the
    // origin's chunk, so faces that meet across a chunk border meet exactly); the chunk's own
    // frame, local_o, drives the tree's traversal.
    if (!ctx->framed) {
        for (int a = 0; a < 3; ++a) {
            ctx->c_ref[a] = trunc((double)r->o[a] * 0.125);
            ctx->o_ref[a] = (float)((double)r->o[a] - 8.0 * ctx->c_ref[a]);
        }
        ctx->framed = true;
    }
    vxk_kdtree_frame frame = {{ctx->o_ref[0], ctx->o_ref[1], ctx->o_ref[2]},
                              {8.0 * ((double)cx - ctx->c_ref[0]),
                               8.0 * ((double)cy - ctx->c_ref[1]),
                               8.0 * ((double)cz - ctx->c_ref[2])}};
    if (any) {
        best->found |= chunk_raycast(data, NULL, &kr, &frame, true);
        return VXK_OK;
    }
    // A closest hit copies its quad out of the quad array, a separate allocation the tree query
    // never reads: its first lines are requested now, so that their miss overlaps the query.
    vxk_prefetch_span(data->quads, (size_t)data->quad_count * sizeof(vxk_quad), 256);
    vxk_kdtree_hit hit;
    if (chunk_raycast(data, &hit, &kr, &frame, false) && (!best->found || hit.t < best->t)) {
        best->t = hit.t;
        best->found = true;
        best->quad = data->quads[hit.primitive];
        best->chunk = data->coord;
    }
    return VXK_OK;
}

// ---- the traversal ------------------------------------------------------------------------------

// The last RAY_SEEN chunks whose trees a ray searched (over its whole length, so they are done).
typedef struct seen_set {
    vxk_int3 at[RAY_SEEN];
    uint32_t count, next;
} seen_set;

// visit_chunk for a chunk the ray has not searched yet. A chunk whose mask the span misses is
// tested again on a later span; one whose tree was searched is done for the whole ray.
static vxk_status visit_unseen(ray_context* ctx, const ray_setup* r, int32_t x, int32_t y,
                               int32_t z, double ta, double tb, double ev, bool any,
                               const uint64_t* solid, ray_result* best, seen_set* seen)
{
    bool dup = false;
    for (uint32_t i = 0; i < seen->count; ++i)
        dup |= seen->at[i].x == x && seen->at[i].y == y && seen->at[i].z == z;
    if (dup)
        return VXK_OK;
    bool queried = false;
    vxk_status status = visit_chunk(ctx, r, x, y, z, ta, tb, ev, any, solid, best, &queried);
    if (queried) {
        seen->at[seen->next] = (vxk_int3){x, y, z};
        seen->next = (seen->next + 1) % RAY_SEEN;
        seen->count = VXK_MIN(seen->count + 1, RAY_SEEN);
    }
    return status;
}

// Whether the ray over [ta, tb] comes within ev voxels (per axis) of chunk cell (x, y, z): a slab
// test against the cell's box grown by ev.
static inline bool near_cell(const ray_setup* r, const double inv[3], int32_t x, int32_t y,
                             int32_t z, double ta, double tb, double ev)
{
    const int32_t c[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        double lo = 8.0 * (double)c[a] - ev, hi = 8.0 * (double)c[a] + 8.0 + ev;
        double o = (double)r->o[a];
        if (r->dv[a] == 0.0f) {
            if (o < lo || o > hi)
                return false;
            continue;
        }
        double t0 = (lo - o) * inv[a], t1 = (hi - o) * inv[a];
        ta = dmax(ta, dmin(t0, t1));
        tb = dmin(tb, dmax(t0, t1));
    }
    return ta <= tb;
}

static bool start_inside(ray_context* ctx, const ray_setup* r, vxk_ray_hit* hit, vxk_int3* voxel)
{
    int32_t v[3];
    for (int a = 0; a < 3; ++a)
        v[a] = (int32_t)floorf(r->o[a]);
    // The dilated mask covers every solid voxel: a clear bit (or no entry, or full water) settles
    // it without reading the voxel.
    const uint64_t* solid = NULL;
    vxk_int3 c = {vxk_floor_div8(v[0]), vxk_floor_div8(v[1]), vxk_floor_div8(v[2])};
    uint8_t tag = chunk_peek(ctx, ctx->grid, c.x, c.y, c.z, &solid);
    uint32_t bit = (uint32_t)vxk_mod8(v[0]) + 8u * (uint32_t)vxk_mod8(v[2]);
    if (tag == VXK_BROADPHASE_NONE || tag == VXK_BROADPHASE_FULL_WATER ||
        !((solid[vxk_mod8(v[1])] >> bit) & 1u))
        return false;
    if (tag == VXK_BROADPHASE_MASK) {
        // The chunk's cached data holds its exact solid bits: a clear bit settles it without a
        // terrain lookup, and the data pinned here serves the chunk's visit below. Should the
        // data be unavailable (out of memory), the voxel is read instead.
        const vxk_narrow_chunk* data = NULL;
        if (memo_get(ctx, c.x, c.y, c.z, &data) == VXK_OK &&
            (!data || !((data->solid[vxk_mod8(v[1])] >> bit) & 1u)))
            return false;
    }
    uint8_t id = vxk_world_get_voxel(ctx->world, (vxk_int3){v[0], v[1], v[2]});
    if (vxk_terrain_kind(&ctx->world->terrain, (uint8_t)id) != VXK_MATERIAL_SOLID)
        return false;
    if (hit) {
        memset(hit, 0, sizeof(*hit));
        hit->hit = 1;
        hit->point = r->origin;
        hit->normal = (vxk_vec3){-r->dn[0], -r->dn[1], -r->dn[2]};
        hit->distance = 0.0f;
        hit->material = id;
        hit->chunk = c;
    }
    if (voxel)
        *voxel = (vxk_int3){v[0], v[1], v[2]};
    return true;
}

// The DDA's next crossing time per axis for a ray in chunk cell c (INFINITY on a flat axis).
static inline void dda_seat(const ray_setup* r, const double inv[3], const int32_t c[3],
                            double t_next[3])
{
    for (int a = 0; a < 3; ++a) {
        double d = r->dv[a];
        if (d > 0)
            t_next[a] = (8.0 * ((double)c[a] + 1.0) - (double)r->o[a]) * inv[a];
        else if (d < 0)
            t_next[a] = (8.0 * (double)c[a] - (double)r->o[a]) * inv[a];
        else
            t_next[a] = INFINITY;
    }
}

// The part of a ray that can meet anything, in world units along it: [t0, t1].
typedef struct ray_segment {
    double t0, t1;
    double maxdv;  // the largest |dv| component: voxels per world unit along the dominant axis
    double inv[3]; // 1 / dv per axis (0 where dv is 0)
} ray_segment;

// Clips the ray to where chunks may have something to visit: the grid's box, the coordinate
// range and, for long rays, the terrain's bounds. False when nothing is left.
static inline __attribute__((always_inline)) bool ray_clip(ray_context* ctx, const ray_setup* r,
                                                           ray_segment* seg)
{
    seg->t0 = 0.0;
    seg->t1 = r->tmax;
    seg->maxdv = dmax(fabs(r->dv[0]), dmax(fabs(r->dv[1]), fabs(r->dv[2])));
    // Reciprocals once per ray: the slab clips and the DDA multiply. Their rounding moves chunk
    // boundaries by an ulp, far inside the ev/et thickening, and hits come from the kD queries.
    for (int a = 0; a < 3; ++a)
        seg->inv[a] = r->dv[a] != 0.0f ? 1.0 / (double)r->dv[a] : 0.0;
    // Every broadphase entry lies in the grid's box: outside it no chunk has anything to visit,
    // so the segment is clipped to the box (plus a voxel) in O(1), within the coordinate limits
    // (one clip against the intersection of the two boxes: the same times as two clips).
    double lo_box[3], hi_box[3];
    for (int a = 0; a < 3; ++a) {
        lo_box[a] = -RAY_VOXEL_LIMIT;
        hi_box[a] = RAY_VOXEL_LIMIT;
        if (ctx->grid) {
            lo_box[a] = dmax(lo_box[a], 8.0 * (double)ctx->grid->min[a] - RAY_CLIP_PAD);
            hi_box[a] =
                dmin(hi_box[a],
                     8.0 * ((double)ctx->grid->min[a] + (double)ctx->grid->size[a]) + RAY_CLIP_PAD);
        }
    }
    bool live = clip_box(r, seg->inv, lo_box, hi_box, &seg->t0, &seg->t1);
    if (live && (seg->t1 - seg->t0) * seg->maxdv > RAY_LONG_CHUNKS * 8.0) {
        // The sorted chunk view gives the y range in O(1) (first and last chunk): most long rays
        // end there; near-horizontal ones still need the x/z bounds (a scan of the chunks).
        uint32_t count = 0;
        const vxk_chunk* const* sorted = vxk_terrain_sorted_chunks(&ctx->world->terrain, &count);
        if (!sorted || count == 0) {
            live = false;
        } else {
            double lo[3] = {-RAY_VOXEL_LIMIT, 8.0 * (double)sorted[0]->coord.y - RAY_CLIP_PAD,
                            -RAY_VOXEL_LIMIT};
            double hi[3] = {RAY_VOXEL_LIMIT,
                            8.0 * ((double)sorted[count - 1]->coord.y + 1.0) + RAY_CLIP_PAD,
                            RAY_VOXEL_LIMIT};
            live = clip_box(r, seg->inv, lo, hi, &seg->t0, &seg->t1);
        }
    }
    // Sparse worlds with their index skip empty space in few steps: no scan for the bounds.
    if (live && !ctx->index && (seg->t1 - seg->t0) * seg->maxdv > RAY_LONG_CHUNKS * 8.0) {
        ray_bounds local = {0};
        ray_bounds* b = ctx->bounds ? ctx->bounds : &local;
        if (!b->known)
            bounds_compute(ctx->world, b);
        if (b->empty) {
            live = false;
        } else {
            double lo[3], hi[3];
            for (int a = 0; a < 3; ++a) {
                lo[a] = 8.0 * (double)b->min[a] - RAY_CLIP_PAD;
                hi[a] = 8.0 * ((double)b->max[a] + 1.0) + RAY_CLIP_PAD;
            }
            live = clip_box(r, seg->inv, lo, hi, &seg->t0, &seg->t1);
        }
    }
    return live;
}

// What a ray's DDA keeps besides its cell and that cell's crossing times (which live apart: the
// cell is passed by address to the sparse index, and whatever shares its storage stays in memory
// with it).
typedef struct ray_walk {
    int step[3];
    double t_delta[3];
    double ta;     // the span the ray is in runs from ta to its next crossing
    int prev_axis; // the axis the ray entered its cell through (-1: its first cell)
    double ev, et; // thickening in voxels, and in t along the dominant axis
    bool flat_near[3];
    double margin[3];
    // sparse worlds: the level-1 cell (4^3 chunks) last found busy, not looked up again
    int32_t busy_cell[3];
    uint32_t hint_level;
    uint64_t steps;
} ray_walk;

enum { SKIP_NONE, SKIP_JUMPED, SKIP_END };

// Sparse world: a cell c without mask bits may sit in a clear coarse cell, which the ray then
// leaves in one step (it keeps its cell in the directions it does not exit through, clamped to
// the coarse cell, and enters the next one). SKIP_END: the rest of the segment is empty.
static inline __attribute__((always_inline)) int
walk_skip_sparse(ray_context* ctx, const ray_setup* r, const ray_segment* seg,
                 const ray_index* sparse, ray_walk* w, int32_t c[3], double t_next[3])
{
    const int32_t cell1[3] = {c[0] >> RAY_LEVEL_BITS, c[1] >> RAY_LEVEL_BITS,
                              c[2] >> RAY_LEVEL_BITS};
    const uint64_t* solid = NULL;
    uint32_t level = 0;
    if ((cell1[0] != w->busy_cell[0] || cell1[1] != w->busy_cell[1] ||
         cell1[2] != w->busy_cell[2]) &&
        chunk_peek(ctx, NULL, c[0], c[1], c[2], &solid) != VXK_BROADPHASE_MASK) {
        level = clear_level(sparse, c, w->hint_level);
        w->hint_level = level;
        if (!level)
            for (int a = 0; a < 3; ++a)
                w->busy_cell[a] = cell1[a];
    }
    if (!level)
        return SKIP_NONE;
    int shift = (int)(RAY_LEVEL_BITS * level);
    int64_t size = (int64_t)1 << shift, lo[3];
    double t_exit = INFINITY;
    int axis = 0;
    for (int a = 0; a < 3; ++a) {
        lo[a] = ((int64_t)c[a] >> shift) * size;
        if (!w->step[a])
            continue;
        double bound = 8.0 * (double)(w->step[a] > 0 ? lo[a] + size : lo[a]);
        double t = (bound - (double)r->o[a]) * seg->inv[a];
        axis = t < t_exit ? a : axis;
        t_exit = dmin(t, t_exit);
    }
    if (t_exit >= seg->t1)
        return SKIP_END;
    for (int a = 0; a < 3; ++a) {
        double p = (double)r->o[a] + t_exit * (double)r->dv[a];
        int64_t k = (int64_t)floor(p * 0.125);
        k = k < lo[a] ? lo[a] : (k > lo[a] + size - 1 ? lo[a] + size - 1 : k);
        if (a == axis)
            k = w->step[a] > 0 ? lo[a] + size : lo[a] - 1;
        c[a] = (int32_t)k;
    }
    dda_seat(r, seg->inv, c, t_next);
    w->ta = dmax(w->ta, t_exit);
    w->prev_axis = axis;
    return SKIP_JUMPED;
}

// Visits the chunks within ev of the ray over its span [ta, te] in cell c (tb: the next crossing,
// along next_axis; te = min(tb, t1)): usually the cell alone.
static inline __attribute__((always_inline)) vxk_status
walk_visit(ray_context* ctx, const ray_setup* r, const ray_segment* seg, const vxk_ray_grid* grid,
           const ray_walk* w, const int32_t c[3], const double t_next[3], double tb, double te,
           int next_axis, bool any, ray_result* best, seen_set* seen)
{
    const int* step = w->step;
    double ta = w->ta, t1 = seg->t1, ev = w->ev, et = w->et;
    int prev_axis = w->prev_axis;
    vxk_status status = VXK_OK;
    // The cell is alone for sure when the ray stays clear, by RAY_CLEAR_MARGINS thickenings, of
    // every boundary but the ones it enters and leaves through: the times it crosses them (t_next,
    // and t_next - t_delta behind) say so without positions. Otherwise the span's box gives the
    // candidates.
    bool alone = true;
    for (int a = 0; a < 3; ++a) {
        if (!step[a]) {
            alone &= !w->flat_near[a];
            continue;
        }
        double m = w->margin[a];
        if ((a != next_axis || tb >= t1) && t_next[a] - te <= m)
            alone = false;
        if (a != prev_axis && ta - (t_next[a] - w->t_delta[a]) <= m)
            alone = false;
    }
    // alone in a cell without mask bits: nothing to visit
    const uint64_t* solid = NULL;
    bool empty = alone && chunk_peek(ctx, grid, c[0], c[1], c[2], &solid) != VXK_BROADPHASE_MASK;
    int32_t lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
    if (alone) { // the cell alone, straight away (the loop below gets an empty range)
        if (!empty)
            status = visit_unseen(ctx, r, c[0], c[1], c[2], ta - et, te + et, ev, any, solid, best,
                                  seen);
        lo[0] = c[0] + 1;
    }
    for (int a = 0; a < 3 && !alone; ++a) {
        double p0 = (double)r->o[a] + (ta - et) * (double)r->dv[a];
        double p1 = (double)r->o[a] + (te + et) * (double)r->dv[a];
        double mn = dmin(p0, p1) - ev, mx = dmax(p0, p1) + ev;
        lo[a] = (int32_t)floor(mn * 0.125);
        hi[a] = (int32_t)floor(mx * 0.125);
        lo[a] = VXK_MAX(lo[a], c[a] - 1);
        hi[a] = VXK_MIN(hi[a], c[a] + 1);
    }
    for (int32_t y = lo[1]; y <= hi[1] && status == VXK_OK; ++y)
        for (int32_t z = lo[2]; z <= hi[2] && status == VXK_OK; ++z)
            for (int32_t x = lo[0]; x <= hi[0] && status == VXK_OK; ++x) {
                // The DDA's previous and next cells get their own full test.
                int32_t off[3] = {x - c[0], y - c[1], z - c[2]};
                int nonzero = (off[0] != 0) + (off[1] != 0) + (off[2] != 0);
                bool behind = false, ahead = false;
                for (int a = 0; a < 3; ++a) {
                    behind |= a == prev_axis && off[a] == -step[a];
                    ahead |= a == next_axis && off[a] == step[a];
                }
                if (nonzero == 1 && (behind || (ahead && tb < t1)))
                    continue;
                // A neighbour is visited only when the ray passes within ev of it over the span
                // (the range above is the span's box: a ray along a face crosses the corner cells
                // of that box far from them).
                if (nonzero && !near_cell(r, seg->inv, x, y, z, ta - et, te + et, ev))
                    continue;
                status = visit_unseen(ctx, r, x, y, z, ta - et, te + et, ev, any, NULL, best, seen);
            }
    return status;
}

// Walks the chunk cells of the clipped segment front to back (3D DDA), visiting the chunks near
// the ray, until the first hit that no later chunk can beat (any: the first hit).
static inline __attribute__((always_inline)) vxk_status ray_traverse(ray_context* ctx,
                                                                     const ray_setup* r,
                                                                     const ray_segment* seg,
                                                                     bool any, ray_result* best)
{
    vxk_status status = VXK_OK;
    // The grid's fields in a local (the DDA reads them every step; through ctx they would be
    // reloaded after every call)
    vxk_ray_grid grid_copy;
    const vxk_ray_grid* grid = NULL;
    if (ctx->grid) {
        grid_copy = *ctx->grid;
        grid = &grid_copy;
    }
    const double* inv = seg->inv;
    double t0 = seg->t0, t1 = seg->t1, maxdv = seg->maxdv;
    ray_walk w;
    // Thickness (voxel units) covering float error of positions and hits along the ray.
    double mag = dmax(fabs(r->o[0]), dmax(fabs(r->o[1]), fabs(r->o[2]))) + t1 * maxdv;
    double ev = RAY_MARGIN_REL * (RAY_MARGIN_MIN_MAG + mag);
    double et = ev / maxdv;
    w.ev = ev;
    w.et = et;
    ctx->near_edge |= mag >= RAY_NEAR_EDGE; // mag bounds every coordinate of the segment
    ctx->framed = false;
    int32_t c[3];
    double t_next[3];
    for (int a = 0; a < 3; ++a) {
        double p = (double)r->o[a] + t0 * (double)r->dv[a];
        c[a] = (int32_t)floor(p * 0.125);
        double d = r->dv[a];
        w.step[a] = d > 0 ? 1 : (d < 0 ? -1 : 0);
        w.t_delta[a] = d != 0 ? 8.0 * fabs(inv[a]) : INFINITY;
    }
    dda_seat(r, inv, c, t_next);
    for (int a = 0; a < 3; ++a)
        w.busy_cell[a] = INT32_MIN;
    w.hint_level = 1;
    const ray_index* sparse = grid ? NULL : ctx->index;
    w.steps = 0;
    // Axes the ray does not move along: whether its constant position lies within
    // RAY_CLEAR_MARGINS thickenings of a boundary of its cell (then neighbours on that axis may
    // matter).
    for (int a = 0; a < 3; ++a) {
        double below = (double)r->o[a] - 8.0 * (double)c[a];
        w.flat_near[a] = w.step[a] == 0 &&
                         (below <= RAY_CLEAR_MARGINS * ev || 8.0 - below <= RAY_CLEAR_MARGINS * ev);
    }
    // a boundary this close (in t) to the span's ends may put the ray near a neighbour
    for (int a = 0; a < 3; ++a)
        w.margin[a] = RAY_CLEAR_MARGINS * (et + ev * fabs(inv[a]));
    seen_set seen;
    seen.count = seen.next = 0;
    w.ta = t0;
    w.prev_axis = -1;
    for (;;) {
        double tb = dmin(t_next[0], dmin(t_next[1], t_next[2]));
        double te = dmin(tb, t1);
        int next_axis = min_axis(t_next);
        // No cell with mask bits within one cell of this block: every visit would find
        // nothing, so the DDA steps on without them.
        bool busy = true;
        if (grid) {
            busy = vxk_ray_grid_busy(grid, c);
        } else if (sparse) {
            ++w.steps;
            int skip = walk_skip_sparse(ctx, r, seg, sparse, &w, c, t_next);
            if (skip == SKIP_END)
                break;
            if (skip == SKIP_JUMPED)
                continue;
        }
        if (busy)
            status =
                walk_visit(ctx, r, seg, grid, &w, c, t_next, tb, te, next_axis, any, best, &seen);
        if (status != VXK_OK || (any && best->found))
            break;
        if (tb >= t1 || (best->found && tb - et > (double)best->t))
            break;
        int a = next_axis;
        w.prev_axis = a;
        // selects over constant indices: c and t_next stay in registers (an index computed
        // at run time would send them through memory on the loop's critical path)
        w.ta = tb;
        for (int k = 0; k < 3; ++k) {
            c[k] += k == a ? w.step[k] : 0;
            t_next[k] += k == a ? w.t_delta[k] : 0.0;
        }
    }
    ctx->steps += w.steps;
    return status;
}

// The solid voxel whose face the closest hit lies on (vxk_raycast_query): the quad's layer along
// its normal, and along u and v the voxel of the quad under the hit point (clamped to the quad, so
// a hit on an edge of the quad still names one of its own voxels).
static vxk_int3 hit_voxel(const ray_setup* r, const ray_result* best)
{
    static const uint8_t u_axis[3] = {2, 0, 0}, v_axis[3] = {1, 2, 1};
    vxk_quad q = best->quad;
    uint32_t axis = vxk_quad_axis(q);
    const int64_t chunk[3] = {best->chunk.x, best->chunk.y, best->chunk.z};
    const int64_t origin[3] = {q.x, q.y, q.z};
    int64_t out[3];
    out[axis] = 8 * chunk[axis] + origin[axis];
    const uint32_t in_plane[2] = {u_axis[axis], v_axis[axis]};
    const int64_t extent[2] = {q.width, q.height};
    for (int k = 0; k < 2; ++k) {
        uint32_t a = in_plane[k];
        int64_t base = 8 * chunk[a] + origin[a];
        double at = (double)r->o[a] + (double)best->t * (double)r->dv[a] - (double)base;
        int64_t i = at > 0.0 ? (int64_t)floor(at) : 0;
        out[a] = base + (i < extent[k] ? i : extent[k] - 1);
    }
    return (vxk_int3){(int32_t)out[0], (int32_t)out[1], (int32_t)out[2]};
}

// Writes the ray's result: *hit_any, and *hit (zeroed, then the closest hit if any).
static inline __attribute__((always_inline)) void
ray_write_hit(const ray_setup* r, const ray_result* best, vxk_ray_hit* hit, bool* hit_any)
{
    if (hit_any)
        *hit_any = best->found;
    if (!hit)
        return;
    memset(hit, 0, sizeof(*hit));
    if (!best->found)
        return;
    vxk_quad q = best->quad;
    uint32_t axis = vxk_quad_axis(q);
    // selects, not a store at a run-time index into an array read back whole (a store-forwarding
    // stall)
    float sign = vxk_quad_positive(q) ? 1.0f : -1.0f;
    float n[3] = {axis == 0 ? sign : 0.0f, axis == 1 ? sign : 0.0f, axis == 2 ? sign : 0.0f};
    hit->hit = 1;
    hit->distance = best->t;
    hit->point = (vxk_vec3){r->origin.x + best->t * r->dn[0], r->origin.y + best->t * r->dn[1],
                            r->origin.z + best->t * r->dn[2]};
    hit->normal = (vxk_vec3){n[0], n[1], n[2]};
    hit->material = q.material;
    hit->chunk = best->chunk;
}

// Traces one ray. *hit (closest) or *hit_any (any) is written only on success, after the last
// step that can fail.
static vxk_status ray_trace(ray_context* ctx, const ray_setup* r, bool any, vxk_ray_hit* hit,
                            bool* hit_any, vxk_int3* voxel)
{
    // Chunks of the range's outermost layer are built by the ray (edge_chunk): only rays that
    // start or end near a range boundary look for them.
    ctx->near_edge = false;
    for (int a = 0; a < 3; ++a)
        ctx->near_edge |= fabs((double)r->o[a]) >= RAY_NEAR_EDGE;
    if (start_inside(ctx, r, hit, voxel)) {
        if (hit_any)
            *hit_any = true;
        return VXK_OK;
    }
    ray_segment seg;
    bool live = ray_clip(ctx, r, &seg);
    ray_result best = {0};
    if (live) {
        vxk_status status = ray_traverse(ctx, r, &seg, any, &best);
        if (status != VXK_OK)
            return status;
    }
    ray_write_hit(r, &best, hit, hit_any);
    if (voxel)
        *voxel = best.found ? hit_voxel(r, &best) : (vxk_int3){0, 0, 0};
    return VXK_OK;
}

// ---- public API ---------------------------------------------------------------------------------

// One ray on the calling thread: its own memo of pins, released before returning. ray_trace
// writes *hit or *hit_any only once nothing can fail any more, so an error leaves them untouched
// (a local result copied out afterwards was measured to stall on store forwarding).
static vxk_status trace_call(const vxk_world* world, const vxk_ray* ray, bool any, vxk_ray_hit* hit,
                             bool* hit_any, vxk_int3* voxel)
{
    ray_setup r;
    vxk_status status = ray_validate(world, ray, &r);
    if (status != VXK_OK)
        return status;
    ray_context ctx = {0};
    context_init(&ctx, world);
    memo_slot slots[RAY_MEMO_SINGLE];
    memo_init(&ctx.memo, slots, RAY_MEMO_SINGLE, RAY_MEMO_SINGLE);
    status = ray_trace(&ctx, &r, any, hit, hit_any, voxel);
    memo_release(&ctx.memo);
    context_count(&ctx);
    return status;
}

vxk_status vxk_raycast(const vxk_world* world, vxk_ray_hit* hit, const vxk_ray* ray)
{
    if (!world || !ray || !hit)
        return VXK_ERR_INVALID_ARGUMENT;
    return trace_call(world, ray, false, hit, NULL, NULL);
}

vxk_status vxk_raycast_any(const vxk_world* world, bool* hit_any, const vxk_ray* ray)
{
    if (!world || !ray || !hit_any)
        return VXK_ERR_INVALID_ARGUMENT;
    return trace_call(world, ray, true, NULL, hit_any, NULL);
}

vxk_status vxk_ray_check(const vxk_world* world, const vxk_ray* ray)
{
    ray_setup r;
    return ray_validate(world, ray, &r);
}

vxk_status vxk_raycast_terrain(const vxk_world* world, vxk_ray_hit* hit, vxk_int3* voxel,
                               const vxk_ray* ray)
{
    return trace_call(world, ray, false, hit, NULL, voxel);
}

typedef struct batch_job {
    const vxk_world* world;
    vxk_ray_hit* hits;
    vxk_int3* voxels; // NULL: not asked for
    const vxk_ray* rays;
    ray_bounds* bounds;
    vxk_narrow_cache* cache;
    const vxk_ray_grid* grid;
    ray_state* state;
    const ray_index* index;
    const uint64_t* order; // ray order keys sorted (low 32 bits: the ray), or NULL: input order
    uint32_t memo_limit;
    _Atomic int status;
} batch_job;

// A packet is coherent when its 8 origins lie in one chunk and its 8 directions in one octant
// (equal sign bits per axis) and within RAY_PACKET_SPREAD of each other per component: the lanes
// then cross mostly the same chunks. (Rays of one chunk and octant but spread directions, as in a
// batch of random rays sorted by origin, share few chunks: as a packet they were measured 8 %
// slower than lane by lane.)
#define RAY_PACKET_SPREAD 0.125f

static bool packet_coherent(const ray_setup r[8])
{
    int32_t c[3];
    for (int a = 0; a < 3; ++a)
        c[a] = (int32_t)floorf(r[0].o[a] * 0.125f);
    for (int k = 1; k < 8; ++k)
        for (int a = 0; a < 3; ++a)
            if (signbit(r[k].dv[a]) != signbit(r[0].dv[a]) ||
                !(fabsf(r[k].dn[a] - r[0].dn[a]) <= RAY_PACKET_SPREAD) ||
                (int32_t)floorf(r[k].o[a] * 0.125f) != c[a])
                return false;
    return true;
}

// Spreads the low 9 bits of v to every third bit (a Morton code's lanes).
static inline uint64_t morton_spread(uint32_t v)
{
    uint64_t x = v & 0x1FFu;
    x = (x | x << 16) & 0x030000FFull;
    x = (x | x << 8) & 0x0300F00Full;
    x = (x | x << 4) & 0x030C30C3ull;
    x = (x | x << 2) & 0x09249249ull;
    return x;
}

// The order key of a ray in its batch: the Morton code of its origin's chunk (low 9 bits per
// axis), its direction octant, then its index (ties keep the input order). Rays in key order start
// in the same chunks and head the same way, so they share chunk data in the caches and a piece's
// memo, and form the coherent groups of the packet path. Results do not depend on the order (each
// ray is traced on its own and written to its own slot).
static uint64_t ray_order_key(const ray_setup* r, uint32_t index)
{
    uint64_t code = 0, octant = 0;
    for (int a = 0; a < 3; ++a) {
        code |= morton_spread((uint32_t)(int32_t)floorf(r->o[a] * 0.125f)) << a;
        octant |= (uint64_t)(signbit(r->dv[a]) != 0) << a;
    }
    return ((code << 3 | octant) << 32) | index; // a 30-bit key over the 32-bit payload
}

// Rays a piece requests ahead of the one it traces. In key order a piece reads its rays and writes
// their hits at scattered indices: each a miss that would stall the ray's start (the records of a
// large batch lie far outside the caches), unless requested this far ahead.
#define RAY_PREFETCH_AHEAD 16

VXK_PREFETCH_INLINE void prefetch_ray(const batch_job* job, uint32_t at)
{
    const char* ray = (const char*)&job->rays[at];
    char* hit = (char*)&job->hits[at];
    __builtin_prefetch(ray);
    __builtin_prefetch(ray + sizeof(vxk_ray) - 1);
    __builtin_prefetch(hit, 1);
    __builtin_prefetch(hit + sizeof(vxk_ray_hit) - 1, 1);
}

static void batch_piece(void* user, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    batch_job* job = (batch_job*)user;
    ray_context ctx = {.world = job->world,
                       .cache = job->cache,
                       .grid = job->grid,
                       .state = job->state,
                       .index = job->index,
                       .bounds = job->bounds,
                       .epoch = vxk_terrain_epoch(&job->world->terrain)};
    // A table of about 4 slots per ray of the piece (a small piece clears less); its pins are
    // dropped when it is 3/4 full, as at the budget's limit.
    memo_slot slots[RAY_MEMO_BATCH];
    uint32_t capacity = 64;
    while (capacity < RAY_MEMO_BATCH && capacity < 4 * (end - begin))
        capacity *= 2;
    uint32_t limit = VXK_MIN(job->memo_limit, capacity * 3 / 4);
    memo_init(&ctx.memo, slots, capacity, limit);
    uint32_t count = end - begin;
    ray_packet packet;
    uint32_t j = 0, requested = 0; // rays [0, requested) of the piece are requested
    while (j < count) {
        ray_setup r[8];
        uint32_t index[8];
        uint32_t n = count - j >= 8 ? 8 : 1;
        for (; job->order && requested < count && requested < j + n + RAY_PREFETCH_AHEAD;
             ++requested)
            prefetch_ray(job, (uint32_t)job->order[begin + requested]);
        for (uint32_t k = 0; k < n; ++k) {
            uint32_t at = begin + j + k;
            index[k] = job->order ? (uint32_t)job->order[at] : at;
            vxk_status status = ray_validate(job->world, &job->rays[index[k]], &r[k]);
            VXK_ASSERT(status == VXK_OK);
            (void)status;
        }
        if (n == 8 && packet_coherent(r)) {
            packet.count = 0;
            for (uint32_t k = 0; k < 8; ++k)
                vxk_ray8_set(&packet.rays, k, r[k].o, r[k].dv, 0.0f, r[k].tmax);
            ctx.packet = &packet;
            ++ctx.packets;
        }
        for (uint32_t k = 0; k < n; ++k, ++j) {
            packet.lane = k;
            vxk_ray_hit* hit = &job->hits[index[k]];
            vxk_int3* voxel = job->voxels ? &job->voxels[index[k]] : NULL;
            vxk_status status = ray_trace(&ctx, &r[k], false, hit, NULL, voxel);
            if (status != VXK_OK) {
                int expected = VXK_OK;
                atomic_compare_exchange_strong(&job->status, &expected, (int)status);
                memset(hit, 0, sizeof(*hit));
            }
        }
        ctx.packet = NULL;
    }
    memo_release(&ctx.memo);
    context_count(&ctx);
}

static vxk_status batch_run(const vxk_world* world, vxk_ray_hit* hits, vxk_int3* voxels,
                            const vxk_ray* rays, uint32_t count)
{
    bool long_rays = false;
    // Without memory for the order the rays run in input order (same results).
    size_t order_bytes = 2 * (size_t)count * sizeof(uint64_t);
    uint64_t* order = count > 1 ? (uint64_t*)vxk_alloc(order_bytes) : NULL;
    for (uint32_t i = 0; i < count; ++i) {
        ray_setup r;
        vxk_status status = ray_validate(world, &rays[i], &r);
        if (status != VXK_OK) {
            vxk_free(order, order_bytes);
            return status;
        }
        if (order)
            order[i] = ray_order_key(&r, i);
        double maxdv = dmax(fabs(r.dv[0]), dmax(fabs(r.dv[1]), fabs(r.dv[2])));
        long_rays |= (double)r.tmax * maxdv > RAY_LONG_CHUNKS * 8.0;
    }
    if (count == 0)
        return VXK_OK;
    ray_context setup = {0};
    context_init(&setup, world);
    if (order)
        vxk_radix_sort_records(order, order + count, count, 1);
    if (setup.grid) {
        // A segment clipped to the grid's box spans at most its largest side along the ray's
        // dominant axis: no ray stays long when that side is short, and no bounds are needed.
        uint32_t side =
            VXK_MAX(setup.grid->size[0], VXK_MAX(setup.grid->size[1], setup.grid->size[2]));
        long_rays &= (double)side + 1.0 > RAY_LONG_CHUNKS;
    }
    // Bounds once for the batch (read-only in the pieces), unless a sparse world's index serves.
    long_rays &= setup.index == NULL;
    ray_bounds bounds = {0};
    if (long_rays)
        bounds_compute(world, &bounds);
    // A piece keeps the chunks it met pinned (one cache lookup per chunk and piece instead of
    // one per ray); the pins per piece are capped by the budget so that pieces running at once
    // leave most of it evictable.
    vxk_jobs* jobs = vxk_world_jobs(world);
    uint32_t workers = jobs ? vxk_jobs_worker_count(jobs) : 1;
    size_t per_piece = world->narrow_cache_bytes / (8u * 1024u * (workers ? workers : 1));
    uint32_t limit = per_piece < 8 ? 8
                                   : (per_piece > RAY_MEMO_BATCH * 3 / 4 ? RAY_MEMO_BATCH * 3 / 4
                                                                         : (uint32_t)per_piece);
    // Pieces of about 1/32 of the batch: the cut depends on count alone.
    uint32_t grain = count / 32;
    grain = grain < RAY_GRAIN_MIN ? RAY_GRAIN_MIN : (grain > RAY_GRAIN_MAX ? RAY_GRAIN_MAX : grain);
    batch_job job = {world,       hits,       voxels,      rays,        long_rays ? &bounds : NULL,
                     setup.cache, setup.grid, setup.state, setup.index, order,
                     limit,       VXK_OK};
    vxk_parallel_for(jobs, "raycast_batch", count, grain, batch_piece, &job);
    vxk_free(order, order_bytes);
    return (vxk_status)atomic_load(&job.status);
}

vxk_status vxk_raycast_batch(const vxk_world* world, vxk_ray_hit* hits, const vxk_ray* rays,
                             uint32_t count)
{
    if (!world || ((!hits || !rays) && count > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    return batch_run(world, hits, NULL, rays, count);
}

vxk_status vxk_raycast_terrain_batch(const vxk_world* world, vxk_ray_hit* hits, vxk_int3* voxels,
                                     const vxk_ray* rays, uint32_t count)
{
    return batch_run(world, hits, voxels, rays, count);
}

void vxk_raycast_cache_stats(const vxk_world* world, vxk_ray_cache_stats* out)
{
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    if (!world)
        return;
    vxk_narrow_stats s;
    vxk_narrow_cache_stats(vxk_narrow_cache_get(world), &s);
    uint64_t steps = atomic_load_explicit(&state_get(world)->steps, memory_order_relaxed);
    *out = (vxk_ray_cache_stats){s.hits,  s.misses, s.builds,  s.evictions, s.entries,
                                 s.bytes, s.budget, s.packets, steps};
}

void vxk_raycast_cache_clear(const vxk_world* world)
{
    if (!world)
        return;
    vxk_narrow_cache_clear(vxk_narrow_cache_get(world));
}
