// continuous.c: the continuous collision stage (continuous.h), after Box3D's b3SolveContinuous:
// bullets only, against static geometry (terrain faces, static bodies), moved back to their first
// time of impact with their velocity kept.
//
// Frames: each bullet's sweep and its obstacles are expressed relative to its centre at the
// step's start, so the advancement works on small coordinates wherever the body is.
#include "continuous.h"
#include "broadphase_sweep.h"
#include "narrow_cache.h"
#include "shape.h"
#include "toi.h"

#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>

// Bullets per parallel piece: each sweep is costly and bullets are few.
#define BULLET_GRAIN 1

typedef struct bullet_result {
    vxk_transform pose; // at the time of impact (when t < 1)
    float t;
    uint32_t pairs, max_iterations;
    uint8_t core, stalled;
    vxk_status status;
} bullet_result;

typedef struct continuous_ctx {
    vxk_dynamics* dyn;
    vxk_narrow_cache* cache;
    const vxk_transform* start;
    const uint32_t* bullets;
    const vxk_aabb* swept; // per bullet, world
    const vxk_broadphase_hit* hits;
    const uint32_t* offsets; // per bullet into hits
    const uint32_t* statics; // static body indices, ascending
    uint32_t static_count;
    bullet_result* results;
    float voxel_size, target, tolerance;
} continuous_ctx;

// One bullet's sweep: its pieces and the earliest time found so far.
typedef struct bullet_sweep {
    const continuous_ctx* ctx;
    const vxk_body* body;
    vxk_sweep sweep;
    vxk_vec3 origin; // world centre at the step's start (the sweep's frame)
    bullet_result* out;
} bullet_sweep;

static uint32_t piece_count(const vxk_body* b)
{
    return vxk_body_class(b)->piece_count(b);
}

static vxk_toi_piece body_piece(const vxk_body* b, uint32_t i)
{
    return vxk_body_class(b)->piece(b, i);
}

// Sweeps every piece of the bullet against one obstacle whose box (sweep frame) is [lo, hi].
static void sweep_obstacle(bullet_sweep* s, const vxk_toi_obstacle* obstacle, vxk_vec3 lo,
                           vxk_vec3 hi)
{
    const continuous_ctx* ctx = s->ctx;
    bullet_result* out = s->out;
    float reach = ctx->target + ctx->tolerance;
    for (uint32_t i = 0; i < piece_count(s->body); ++i) {
        vxk_toi_piece piece = body_piece(s->body, i);
        if (!vxk_toi_may_reach(&s->sweep, &piece, lo, hi, reach))
            continue;
        vxk_toi_output toi;
        vxk_toi_guarded(&toi, &s->sweep, &piece, obstacle, ctx->target, ctx->tolerance, out->t);
        out->pairs++;
        if (toi.iterations > out->max_iterations)
            out->max_iterations = toi.iterations;
        if (toi.state != VXK_TOI_SEPARATED && toi.t < out->t) {
            out->t = toi.t;
            out->core = toi.core;
            out->stalled = toi.state == VXK_TOI_STALLED;
        }
    }
}

static void sweep_chunk(bullet_sweep* s, const vxk_aabb* swept, vxk_int3 coord)
{
    const continuous_ctx* ctx = s->ctx;
    const vxk_narrow_chunk* chunk = NULL;
    vxk_narrow_ref ref = {0};
    if (vxk_narrow_acquire_current(ctx->cache, ctx->dyn->world, &chunk, &ref, coord) != VXK_OK) {
        s->out->status = VXK_ERR_OUT_OF_MEMORY;
        return;
    }
    if (!chunk)
        return;
    float inv = 1.0f / ctx->voxel_size;
    vxk_vec3 corner = vxk_v3(8.0f * (float)coord.x, 8.0f * (float)coord.y, 8.0f * (float)coord.z);
    vxk_aabb box = {vxk_v3_sub(vxk_v3_scale(swept->min, inv), corner),
                    vxk_v3_sub(vxk_v3_scale(swept->max, inv), corner)};
    uint32_t hits[VXK_MESHER_MAX_QUADS];
    uint32_t n = vxk_narrow_chunk_query(chunk, hits, &box);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_face f;
        vxk_face_from_quad(&f, chunk->quads[hits[i]], coord, ctx->voxel_size);
        vxk_toi_obstacle o = vxk_toi_face_obstacle(&f, s->origin);
        vxk_vec3 lo = vxk_v3_sub(o.box.center, o.box.half);
        vxk_vec3 hi = vxk_v3_add(o.box.center, o.box.half);
        sweep_obstacle(s, &o, lo, hi);
    }
    vxk_narrow_release(&ref);
}

static bool boxes_overlap(const vxk_aabb* a, const vxk_aabb* b)
{
    return a->min.x <= b->max.x && a->min.y <= b->max.y && a->min.z <= b->max.z &&
           b->min.x <= a->max.x && b->min.y <= a->max.y && b->min.z <= a->max.z;
}

// Every piece of a static body whose box meets the sweep's, as an obstacle.
static void sweep_static(bullet_sweep* s, const vxk_aabb* swept, const vxk_body* b)
{
    if (!boxes_overlap(swept, &b->aabb))
        return;
    for (uint32_t i = 0; i < piece_count(b); ++i) {
        vxk_toi_piece piece = body_piece(b, i);
        vxk_aabb world, local;
        vxk_toi_obstacle o = vxk_toi_piece_obstacle(&piece, b->pose, s->origin, &world, &local);
        if (!boxes_overlap(swept, &world))
            continue;
        sweep_obstacle(s, &o, local.min, local.max);
    }
}

static void sweep_bullet(const continuous_ctx* ctx, uint32_t k)
{
    uint32_t index = ctx->bullets[k];
    bullet_sweep s;
    s.ctx = ctx;
    s.body = &ctx->dyn->bodies[index];
    s.out = &ctx->results[k];
    memset(s.out, 0, sizeof(*s.out));
    s.out->t = 1.0f;
    s.out->status = VXK_OK;
    vxk_transform start = ctx->start[index];
    s.origin = start.p;
    vxk_sweep_init(&s.sweep, vxk_v3(0, 0, 0), start.q, vxk_v3_sub(s.body->pose.p, start.p),
                   s.body->pose.q);
    const vxk_aabb* swept = &ctx->swept[k];
    for (uint32_t h = ctx->offsets[k]; h < ctx->offsets[k + 1] && s.out->status == VXK_OK; ++h)
        if (ctx->hits[h].flags & VXK_BROADPHASE_HIT_SOLID)
            sweep_chunk(&s, swept, ctx->hits[h].chunk);
    for (uint32_t j = 0; j < ctx->static_count; ++j)
        sweep_static(&s, swept, &ctx->dyn->bodies[ctx->statics[j]]);
    if (s.out->t < 1.0f) {
        vxk_transform p = vxk_sweep_pose(&s.sweep, s.out->t);
        s.out->pose = (vxk_transform){vxk_v3_add(s.origin, p.p), p.q};
    }
}

static void bullet_range(void* vctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const continuous_ctx* ctx = (const continuous_ctx*)vctx;
    for (uint32_t k = begin; k < end; ++k)
        sweep_bullet(ctx, k);
}

// An awake dynamic body that moved this step to a finite pose (a body whose motion blew up to
// NaN or infinity is not swept): a bullet always, another body when its surface may have moved
// more than half its smallest extent (Box3D's rule for fast bodies: slower ones cannot pass a
// surface between two steps' speculative contacts).
static bool to_sweep(const vxk_body* b, const vxk_transform* start)
{
    if (!b->live || b->type != VXK_BODY_DYNAMIC || !b->awake)
        return false;
    if (!vxk_vec3_is_finite(b->pose.p) || !vxk_vec3_is_finite(start->p))
        return false;
    if (memcmp(&start->p, &b->pose.p, sizeof(vxk_vec3)) == 0 &&
        memcmp(&start->q, &b->pose.q, sizeof(vxk_quat)) == 0)
        return false;
    if (b->is_bullet)
        return true;
    // The motion of the surface: the centre's, plus the rotation's at the bounding radius
    // (2 |sin(angle / 2)| of the rotation between the poses).
    vxk_quat dq = vxk_quat_mul(b->pose.q, vxk_quat_conj(start->q));
    float arc = 2.0f * sqrtf(dq.x * dq.x + dq.y * dq.y + dq.z * dq.z) * b->bound_radius;
    float moved = vxk_v3_length(vxk_v3_sub(b->pose.p, start->p)) + arc;
    return moved > 0.5f * vxk_body_class(b)->min_extent(b);
}

// Positions are held within twice the int32 voxel range, past which the broadphase finds no
// terrain anyway, so that the sweeps' boxes and motions stay finite.
static vxk_vec3 clamp_to_range(vxk_vec3 v, float limit)
{
    return vxk_v3_max(vxk_v3(-limit, -limit, -limit), vxk_v3_min(vxk_v3(limit, limit, limit), v));
}

vxk_status vxk_dynamics_continuous(vxk_dynamics* dyn, const vxk_transform* start_poses,
                                   vxk_arena* arena, float dt, vxk_continuous_stats* stats)
{
    if (stats)
        memset(stats, 0, sizeof(*stats));
    if (!(dt > 0.0f))
        return VXK_OK;
    uint32_t cap = dyn->ids.count;
    uint32_t bullet_count = 0, static_count = 0;
    for (uint32_t i = 0; i < cap; ++i) {
        const vxk_body* b = &dyn->bodies[i];
        static_count += b->live && b->type == VXK_BODY_STATIC;
        bullet_count += to_sweep(b, &start_poses[i]);
    }
    if (!bullet_count)
        return VXK_OK;
    uint32_t* bullets = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * bullet_count);
    uint32_t* statics = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * (static_count + 1));
    vxk_aabb* swept = (vxk_aabb*)vxk_arena_alloc(arena, sizeof(vxk_aabb) * bullet_count);
    vxk_broadphase_sweep* sweeps =
        (vxk_broadphase_sweep*)vxk_arena_alloc(arena, sizeof(vxk_broadphase_sweep) * bullet_count);
    uint32_t* offsets = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * (bullet_count + 1));
    bullet_result* results =
        (bullet_result*)vxk_arena_alloc(arena, sizeof(bullet_result) * bullet_count);
    if (!bullets || !statics || !swept || !sweeps || !offsets || !results)
        return VXK_ERR_OUT_OF_MEMORY;
    const float target = dyn->settings.linear_slop;
    const float tolerance = 0.25f * dyn->settings.linear_slop;
    vxk_world* world = dyn->world;
    const float limit = fminf(4294967296.0f * world->voxel_size, 1e37f);
    const float fast = VXK_FAST_MOTION_VOXELS * world->voxel_size;
    uint32_t nb = 0, ns = 0;
    for (uint32_t i = 0; i < cap; ++i) {
        const vxk_body* b = &dyn->bodies[i];
        if (b->live && b->type == VXK_BODY_STATIC)
            statics[ns++] = i;
        if (!to_sweep(b, &start_poses[i]))
            continue;
        // Every pose of the sweep lies within the bounding radius of the centre's segment.
        float reach = b->bound_radius + target + tolerance;
        vxk_vec3 g = vxk_v3(reach, reach, reach);
        vxk_vec3 p0 = clamp_to_range(start_poses[i].p, limit);
        vxk_vec3 p1 = clamp_to_range(b->pose.p, limit);
        swept[nb] =
            (vxk_aabb){vxk_v3_sub(vxk_v3_min(p0, p1), g), vxk_v3_add(vxk_v3_max(p0, p1), g)};
        // The terrain chunks of the box around the segment; those along the segment when it is
        // long (VXK_FAST_MOTION_VOXELS: the box's grow with the cube of its length).
        vxk_vec3 motion = vxk_v3_sub(p1, p0);
        sweeps[nb] = vxk_v3_length(motion) > fast
                         ? (vxk_broadphase_sweep){{vxk_v3_sub(p0, g), vxk_v3_add(p0, g)}, motion}
                         : (vxk_broadphase_sweep){swept[nb], {0, 0, 0}};
        bullets[nb++] = i;
    }
    // Terrain chunks near each sweep (arena hits, grown once when short).
    uint32_t hit_cap = 64u * bullet_count;
    vxk_broadphase_hit* hits =
        (vxk_broadphase_hit*)vxk_arena_alloc(arena, sizeof(vxk_broadphase_hit) * hit_cap);
    if (!hits)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_status status =
        vxk_broadphase_query_sweep_batch(world, hits, hit_cap, offsets, sweeps, bullet_count);
    if (status == VXK_ERR_CAPACITY) {
        hit_cap = offsets[bullet_count];
        hits = (vxk_broadphase_hit*)vxk_arena_alloc(arena, sizeof(vxk_broadphase_hit) * hit_cap);
        if (!hits)
            return VXK_ERR_OUT_OF_MEMORY;
        status =
            vxk_broadphase_query_sweep_batch(world, hits, hit_cap, offsets, sweeps, bullet_count);
    }
    if (status != VXK_OK)
        return status == VXK_ERR_CAPACITY ? VXK_ERR_OUT_OF_MEMORY : status;
    vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
    if (!cache)
        return VXK_ERR_OUT_OF_MEMORY;
    continuous_ctx ctx = {.dyn = dyn,
                          .cache = cache,
                          .start = start_poses,
                          .bullets = bullets,
                          .swept = swept,
                          .hits = hits,
                          .offsets = offsets,
                          .statics = statics,
                          .static_count = ns,
                          .results = results,
                          .voxel_size = world->voxel_size,
                          .target = target,
                          .tolerance = tolerance};
    vxk_parallel_for(world->jobs, "continuous", nb, BULLET_GRAIN, bullet_range, &ctx);
    for (uint32_t k = 0; k < nb; ++k)
        if (results[k].status != VXK_OK)
            return results[k].status;
    for (uint32_t k = 0; k < nb; ++k) {
        const bullet_result* r = &results[k];
        if (stats) {
            stats->bullets++;
            stats->pairs += r->pairs;
            if (r->max_iterations > stats->max_iterations)
                stats->max_iterations = r->max_iterations;
        }
        if (!(r->t < 1.0f))
            continue;
        vxk_body* b = &dyn->bodies[bullets[k]];
        b->pose = r->pose;
        b->aabb = vxk_body_compute_aabb(b);
        if (stats) {
            stats->hits++;
            stats->core_hits += r->core;
            stats->stalls += r->stalled;
        }
    }
    return VXK_OK;
}
