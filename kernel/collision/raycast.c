// raycast.c: world ray queries (seed 000, Roblox terrain physics, "Loose kD tree: queries"): a
// chunk-level 3D DDA (Amanatides & Woo 1987) in voxel units over a dense grid of the bit
// broadphase, a mask test per chunk, then the chunk's lazily built quantized kD tree front to back
// with early exit; cached trees are reused without revalidation while the terrain epoch is
// unchanged. This file holds the entry points: rays checked and prepared, one ray per call, and
// batches in pieces over the jobs, sorted into coherent packets. The traversal is
// raycast_traverse.c's, a chunk's visit raycast_chunk.c's, the sparse ray index raycast_index.c's.
#include "raycast_internal.h"

#include <float.h>
#include <math.h>

#include "ray_terrain.h"

_Static_assert(sizeof(vxk_ray_hit) == 44, "vxk_ray_hit is 44 bytes");

#define RAY_MEMO_SINGLE 16
#define RAY_MEMO_BATCH 2048
#define RAY_GRAIN_MIN 64
#define RAY_GRAIN_MAX 4096

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
    ctx->index = !ctx->grid ? vxk_ray_index_get(ctx->state, world) : NULL;
}

// Adds what a call or a batch piece counted to the shared statistics.
static void context_count(const ray_context* ctx)
{
    vxk_narrow_count_rays(ctx->cache, ctx->slot_hits, ctx->packets);
    if (ctx->steps) // sparse worlds only: no shared write per ray elsewhere
        atomic_fetch_add_explicit(&ctx->state->steps, ctx->steps, memory_order_relaxed);
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

// ---- public API ---------------------------------------------------------------------------------

// One ray on the calling thread: its own memo of pins, released before returning. vxk_ray_trace
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
    vxk_ray_memo_init(&ctx.memo, slots, RAY_MEMO_SINGLE, RAY_MEMO_SINGLE);
    status = vxk_ray_trace(&ctx, &r, any, hit, hit_any, voxel);
    vxk_ray_memo_release(&ctx.memo);
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
    vxk_ray_memo_init(&ctx.memo, slots, capacity, limit);
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
            vxk_status status = vxk_ray_trace(&ctx, &r[k], false, hit, NULL, voxel);
            if (status != VXK_OK) {
                int expected = VXK_OK;
                atomic_compare_exchange_strong(&job->status, &expected, (int)status);
                memset(hit, 0, sizeof(*hit));
            }
        }
        ctx.packet = NULL;
    }
    vxk_ray_memo_release(&ctx.memo);
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
        vxk_ray_bounds_compute(&world->terrain, &bounds);
    // A piece keeps the chunks it met pinned (one cache lookup per chunk and piece instead of
    // one per ray); the pins per piece are capped by the budget so that pieces running at once
    // leave most of it evictable.
    vxk_jobs* jobs = world->jobs;
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

void vxk_raycast_get_cache_stats(const vxk_world* world, vxk_raycast_cache_stats* out)
{
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    if (!world)
        return;
    vxk_narrow_stats s;
    vxk_narrow_cache_stats(vxk_narrow_cache_get(world), &s);
    uint64_t steps = atomic_load_explicit(&state_get(world)->steps, memory_order_relaxed);
    *out = (vxk_raycast_cache_stats){s.hits,  s.misses, s.builds,  s.evictions, s.entries,
                                     s.bytes, s.budget, s.packets, steps};
}

void vxk_raycast_cache_clear(const vxk_world* world)
{
    if (!world)
        return;
    vxk_narrow_cache_clear(vxk_narrow_cache_get(world));
}
