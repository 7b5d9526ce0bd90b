// step.c: vxk_world_step, the one list of a step's stages, in order, over one step context
// (docs/architecture.md, "One step"): publish, spawn, masks, caches, predict, candidates,
// narrowphase, islands, solve, sleep, continuous, events. Each stage is a named function here; its
// work lives in its own file (publish: edit/edit_thread.c; masks: collision/broadphase.c; caches:
// collision/narrow_cache.c; spawn: dynamics/spawn.c; predict and candidates:
// dynamics/candidates.c; narrowphase: dynamics/narrowphase.c; islands, solve and sleep:
// dynamics/solver.c; continuous: dynamics/continuous.c; events: dynamics/contacts.c). The context
// carries what the stages share: the chunks written since the last step, taken once and handed to
// every stage that consumes them, the dynamics' frame, and the stage timings.
#include "dynamics.h"
#include "continuous.h"
#include "edit_thread.h"
#include "narrow_cache.h"
#include "sleep.h"
#include "world_internal.h"

#include <vxk/broadphase.h>
#include <vxk/jobs.h>

typedef struct step_context {
    vxk_world* world;
    float dt;
    vxk_arena* arena;      // memory of this step (the world's, reset at the step's start)
    const vxk_int3* dirty; // sorted by (y, z, x), unique; owned by the terrain until next take
    uint32_t dirty_count;
    // The written chunks and their 26 neighbours, sorted and unique (arena memory): every chunk
    // whose derived data (masks, meshes, trees) can read a written voxel.
    const vxk_int3* near;
    uint32_t near_count;
    vxk_spawn_list spawn; // what the publish hands the spawn stage
    vxk_dynamics* dyn;
    vxk_dynamics_frame frame; // what the dynamics stages share
    uint64_t mark;            // the stage timer
    bool moved;               // the solve ran: a later failure keeps the motion
    vxk_world_step_stats stats;
} step_context;

// The stages' trace span names; vxk_step_stage_name is the part after "step_".
static const char* const stage_names[VXK_STEP_STAGE_COUNT] = {
    "step_publish", "step_spawn",      "step_masks",       "step_caches",
    "step_predict", "step_candidates", "step_narrowphase", "step_islands",
    "step_solve",   "step_sleep",      "step_continuous",  "step_events"};

const char* vxk_step_stage_name(vxk_step_stage stage)
{
    return (unsigned)stage < VXK_STEP_STAGE_COUNT ? stage_names[stage] + 5 : "unknown";
}

// The time since the last lap, as the stage's.
static void lap(step_context* ctx, vxk_step_stage stage)
{
    ctx->stats.stage_seconds[stage] = vxk_seconds_since(&ctx->mark);
}

// Edits submitted before the previous step began become the terrain this step reads (their
// chunks join the written ones taken next).
static vxk_status stage_publish(step_context* ctx)
{
    return vxk_edit_publish(ctx->world, &ctx->spawn);
}

// The written chunks taken once, and the masks of them and their neighbours rebuilt as jobs (the
// full build the first time). All or nothing: on failure the previous masks stay and the chunks
// stay listed for the next step.
static vxk_status stage_masks(step_context* ctx)
{
    ctx->dirty = vxk_terrain_take_dirty(&ctx->world->terrain, &ctx->dirty_count);
    ctx->stats.dirty_chunks = ctx->dirty_count;
    vxk_status status = vxk_chunk_neighbourhood(ctx->arena, &ctx->near, &ctx->near_count,
                                                ctx->dirty, ctx->dirty_count);
    ctx->stats.near_chunks = ctx->near_count;
    if (status == VXK_OK)
        status = vxk_broadphase_update_neighbourhood(ctx->world, ctx->near, ctx->near_count);
    if (status != VXK_OK)
        vxk_terrain_untake_dirty(&ctx->world->terrain);
    return status;
}

// Cache entries whose meshes and trees read a written chunk. Entries are also checked by stamp on
// use; dropping them here frees their memory at once and keeps the check from ever failing late.
// Sleeping bodies near written terrain wake (its contacts may have changed under them).
static void stage_caches(step_context* ctx)
{
    vxk_narrow_cache* cache = vxk_narrow_cache_get(ctx->world);
    if (ctx->near_count)
        ctx->stats.cache_entries_dropped =
            vxk_narrow_cache_invalidate(cache, ctx->near, ctx->near_count);
    vxk_dynamics_wake_chunks(ctx->dyn, ctx->dirty, ctx->dirty_count, ctx->world->voxel_size);
}

// The published body edits applied and split, the terrain debris made into bodies; then the
// edit system makes the edits' outcomes final.
static void stage_spawn(step_context* ctx)
{
    vxk_dynamics_spawn(ctx->dyn, &ctx->spawn);
    vxk_edit_publish_finish(ctx->world, &ctx->spawn);
}

static vxk_status stage_predict(step_context* ctx)
{
    return vxk_dynamics_predict(ctx->dyn, &ctx->frame);
}

static vxk_status stage_candidates(step_context* ctx)
{
    return vxk_dynamics_candidates(ctx->dyn, &ctx->frame, &ctx->stats);
}

static vxk_status stage_narrowphase(step_context* ctx)
{
    return vxk_dynamics_narrowphase(ctx->dyn, &ctx->frame, &ctx->stats);
}

static vxk_status stage_islands(step_context* ctx)
{
    return vxk_dynamics_islands(ctx->dyn, &ctx->frame, &ctx->stats);
}

static vxk_status stage_solve(step_context* ctx)
{
    return vxk_dynamics_solve(ctx->dyn, &ctx->frame);
}

static void stage_sleep(step_context* ctx)
{
    vxk_dynamics_sleep_islands(ctx->dyn, &ctx->frame);
}

// Bullets, and bodies that moved more than half their size, swept to their first time of impact
// with the terrain and static bodies. On failure nothing moved back; the events still run.
static vxk_status stage_continuous(step_context* ctx)
{
    return vxk_dynamics_continuous(ctx->dyn, ctx->frame.start, ctx->arena, ctx->dt, NULL);
}

static vxk_status stage_events(step_context* ctx)
{
    return vxk_dynamics_events(ctx->dyn, &ctx->frame, &ctx->stats);
}

// The stages as spans on the calling thread's Chrome trace (when tracing is on): they run one
// after another from the step's start, so each begins where the one before ended.
static void trace_stages(vxk_jobs* jobs, uint64_t start, const vxk_world_step_stats* stats)
{
    uint64_t at = start;
    for (int i = 0; i < VXK_STEP_STAGE_COUNT; ++i) {
        uint64_t end = at + (uint64_t)(stats->stage_seconds[i] * 1e9);
        if (end > at)
            vxk_jobs_trace_span(jobs, stage_names[i], at, end);
        at = end;
    }
}

// The dynamics stages. A failure before the solve has moved nothing and is returned at once;
// after it, the continuous and events stages' failures are reported with the motion kept.
static vxk_status run_dynamics(step_context* ctx)
{
    vxk_status status = stage_predict(ctx);
    lap(ctx, VXK_STEP_PREDICT);
    if (status != VXK_OK)
        return status;
    status = stage_candidates(ctx);
    lap(ctx, VXK_STEP_CANDIDATES);
    if (status != VXK_OK)
        return status;
    status = stage_narrowphase(ctx);
    lap(ctx, VXK_STEP_NARROWPHASE);
    if (status != VXK_OK)
        return status;
    status = stage_islands(ctx);
    lap(ctx, VXK_STEP_ISLANDS);
    if (status != VXK_OK)
        return status;
    status = stage_solve(ctx);
    lap(ctx, VXK_STEP_SOLVE);
    if (status != VXK_OK)
        return status;
    ctx->moved = true;
    stage_sleep(ctx);
    lap(ctx, VXK_STEP_SLEEP);
    vxk_status continuous = stage_continuous(ctx);
    lap(ctx, VXK_STEP_CONTINUOUS);
    status = stage_events(ctx);
    lap(ctx, VXK_STEP_EVENTS);
    return continuous != VXK_OK ? continuous : status;
}

vxk_status vxk_world_step(vxk_world* world, float dt)
{
    if (!world)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_is_finite(dt))
        return VXK_ERR_NOT_FINITE;
    if (dt < 0.0f || (dt > 0.0f && dt < VXK_MIN_DT) || dt > VXK_MAX_DT)
        return VXK_ERR_OUT_OF_RANGE;
    step_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.world = world;
    ctx.dt = dt;
    ctx.arena = &world->step_arena;
    ctx.dyn = vxk_dynamics_get(world);
    ctx.frame.dt = dt;
    ctx.frame.arena = ctx.arena;
    uint64_t start = vxk_jobs_now_ns();
    ctx.mark = start;
    vxk_status status = stage_publish(&ctx);
    lap(&ctx, VXK_STEP_PUBLISH);
    if (status != VXK_OK)
        return status;
    stage_spawn(&ctx);
    lap(&ctx, VXK_STEP_SPAWN);
    vxk_arena_reset(ctx.arena);
    status = stage_masks(&ctx);
    lap(&ctx, VXK_STEP_MASKS);
    if (status != VXK_OK)
        return status;
    stage_caches(&ctx);
    lap(&ctx, VXK_STEP_CACHES);
    if (dt > 0.0f) {
        status = run_dynamics(&ctx);
        if (status != VXK_OK && !ctx.moved)
            return status; // nothing moved
    }
    ctx.stats.total_seconds = (double)(vxk_jobs_now_ns() - start) * 1e-9;
    trace_stages(world->jobs, start, &ctx.stats);
    ctx.stats.steps = world->step_stats.steps + 1;
    ctx.stats.arena_bytes = ctx.arena->total;
    world->step_stats = ctx.stats;
    return status;
}

// vxk/edit.h: a publish outside a step (the last batches' spawn between the edit system's two
// halves), so the edit wing never calls the dynamics.
vxk_status vxk_edit_disable(vxk_world* world)
{
    vxk_spawn_list spawn;
    vxk_status status = vxk_edit_disable_begin(world, &spawn);
    if (status != VXK_OK)
        return status;
    vxk_dynamics_spawn(vxk_dynamics_get(world), &spawn);
    vxk_edit_publish_finish(world, &spawn);
    vxk_edit_disable_end(world);
    return VXK_OK;
}

void vxk_world_get_step_stats(const vxk_world* world, vxk_world_step_stats* out)
{
    if (world && out)
        *out = world->step_stats;
}
