// raycast_internal.h: what the files of the world raycasts share (raycast.c: the entry points and
// batches; raycast_traverse.c: clip and chunk DDA; raycast_chunk.c: a chunk's data and kD query;
// raycast_index.c: the world's ray state and sparse ray index), after seed 000 (Roblox terrain
// physics, "Loose kD tree: queries"): the prepared ray, the pins of a call, packets and the
// context of one trace.
#ifndef VXK_RAYCAST_INTERNAL_H
#define VXK_RAYCAST_INTERNAL_H

#include <vxk/broadphase.h>
#include <vxk/raycast.h>
#include <vxk/simd_kernels.h>

#include <pthread.h>
#include <stdatomic.h>

#include "narrow_cache.h"
#include "ray_grid.h"

// The voxel coordinate range of the terrain (int32): origins lie in [-2^31, 2^31), segments are
// clipped to it.
#define RAY_VOXEL_LIMIT 2147483648.0
// Rays expected to cross more chunks than this clip against the terrain's chunk bounds first.
#define RAY_LONG_CHUNKS 2048.0
// Chunks remembered per packet (the chunk data met and the lanes whose slab test hits it).
#define RAY_PACKET_CHUNKS 64
// The sparse ray index's levels: cells of 4^l chunks per axis (raycast_index.c).
#define RAY_LEVEL_BITS 2

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

// ---- the world's ray state (raycast_index.c) -------------------------------------------------

typedef struct ray_index ray_index;

typedef struct ray_state {
    pthread_mutex_t lock;
    _Atomic(ray_index*) index;         // NULL: none built (or out of memory)
    _Atomic uint64_t index_generation; // 1 + the broadphase generation of index
    _Atomic uint64_t steps;            // DDA steps of rays in sparse worlds
} ray_state;

// The world's ray state (created with the world; the state, not the world, is mutable).
static inline ray_state* state_get(const vxk_world* world)
{
    return (ray_state*)world->rays.self;
}

// The sparse ray index of the current broadphase, built on first need after each build or update
// (concurrent callers wait); NULL when out of memory (rays then step cell by cell).
const ray_index* vxk_ray_index_get(ray_state* state, const vxk_world* world);

// The highest clear level around chunk c, 0 when level 1 is busy (no broadphase entry with mask
// bits within 4^l chunks of c's level-l cell at a clear level l). hint: the level the ray's last
// step found.
uint32_t vxk_ray_clear_level(const ray_index* index, const int32_t c[3], uint32_t hint);

// ---- one trace ---------------------------------------------------------------------------------

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

// The best hit so far, copied out of the chunk data (the memo may unpin that chunk later).
typedef struct ray_result {
    float t;
    bool found;
    bool entry;     // the hit was moved to the face the ray enters by (raycast_traverse.c)
    double entry_t; // then its distance, in double
    vxk_quad quad;
    vxk_int3 chunk;
} ray_result;

// The broadphase entry of a chunk: through the grid when there is one (ctx->grid, or the trace's
// local copy of it), else through the broadphase map.
static inline uint8_t chunk_peek(const ray_context* ctx, const vxk_ray_grid* grid, int32_t cx,
                                 int32_t cy, int32_t cz, const uint64_t** solid)
{
    if (grid)
        return vxk_ray_grid_peek(grid, (vxk_int3){cx, cy, cz}, solid);
    return vxk_broadphase_peek(ctx->world, solid, (vxk_int3){cx, cy, cz});
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

// ---- a chunk's data and query (raycast_chunk.c) ------------------------------------------------

// A memo of capacity slots (a power of two; past RAY_MEMO_LINEAR, 16, an open-addressing table)
// whose pins are dropped all at once when limit are held.
void vxk_ray_memo_init(ray_memo* m, memo_slot* slots, uint32_t capacity, uint32_t limit);
// Drops every pin of the memo (and the data it built itself).
void vxk_ray_memo_release(ray_memo* m);
// Chunk c's data, pinned for the rest of the call or batch piece; NULL (and VXK_OK) for a chunk
// without terrain. Errors: those of building the data (out of memory).
vxk_status vxk_ray_memo_get(ray_context* ctx, int32_t cx, int32_t cy, int32_t cz,
                            const vxk_narrow_chunk** out);
// Queries chunk c if the ray passes near its mask bits over [ta, tb]; *queried tells whether the
// chunk's tree was searched (over the whole ray, so the chunk is done). any = first hit only.
// solid: the chunk's mask words when the caller has peeked them already, else NULL.
vxk_status vxk_ray_visit_chunk(ray_context* ctx, const ray_setup* r, int32_t cx, int32_t cy,
                               int32_t cz, double ta, double tb, double ev, bool any,
                               const uint64_t* solid, ray_result* best, bool* queried);

// ---- the traversal (raycast_traverse.c) --------------------------------------------------------

// The terrain's chunk bounds, for long rays in worlds without a sparse index.
void vxk_ray_bounds_compute(const vxk_terrain* terrain, ray_bounds* b);
// Traces one ray. *hit (closest) or *hit_any (any) is written only on success, after the last
// step that can fail; *voxel (may be NULL) as vxk_raycast_terrain's.
vxk_status vxk_ray_trace(ray_context* ctx, const ray_setup* r, bool any, vxk_ray_hit* hit,
                         bool* hit_any, vxk_int3* voxel);

#endif
