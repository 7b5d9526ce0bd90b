// step.c: vxk_world_step, the orchestrator of one step (docs/architecture.md, "One step"). A step
// context carries what the stages share: the chunks written since the last step, taken once and
// handed to every stage that consumes them, and the stage timings. Each stage is a named function
// here; its work lives in its own file (masks: collision/broadphase.c, caches:
// collision/narrow_cache.c). The edit system's publish (edit/edit_thread.c) comes first.
#include "dynamics.h"
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
    vxk_world_step_stats stats;
} step_context;

static vxk_status stage_take_dirty(step_context* ctx)
{
    ctx->dirty = vxk_terrain_take_dirty(&ctx->world->terrain, &ctx->dirty_count);
    ctx->stats.dirty_chunks = ctx->dirty_count;
    vxk_status status = vxk_chunk_neighbourhood(ctx->arena, &ctx->near, &ctx->near_count,
                                                ctx->dirty, ctx->dirty_count);
    ctx->stats.near_chunks = ctx->near_count;
    return status;
}

// Masks of the written chunks and their neighbours, rebuilt as jobs (the full build the first
// time). All or nothing: on failure the previous masks stay.
static vxk_status stage_masks(step_context* ctx)
{
    return vxk_broadphase_update_neighbourhood(ctx->world, ctx->near, ctx->near_count);
}

// Cache entries whose meshes and trees read a written chunk. Entries are also checked by stamp on
// use; dropping them here frees their memory at once and keeps the check from ever failing late.
static void stage_caches(step_context* ctx)
{
    vxk_narrow_cache* cache = vxk_narrow_cache_get(ctx->world);
    if (ctx->near_count)
        ctx->stats.cache_entries_dropped =
            vxk_narrow_cache_invalidate(cache, ctx->near, ctx->near_count);
}

// The stages as spans on the calling thread's Chrome trace (when tracing is on): they run one
// after another from the step's start, so each begins where the one before ended.
static void trace_stages(vxk_jobs* jobs, uint64_t start, const vxk_world_step_stats* stats)
{
    static const char* const names[VXK_STEP_STAGE_COUNT] = {
        "step_take_dirty",  "step_masks", "step_caches",     "step_candidates",
        "step_narrowphase", "step_solve", "step_continuous", "step_events"};
    uint64_t at = start;
    for (int i = 0; i < VXK_STEP_STAGE_COUNT; ++i) {
        uint64_t end = at + (uint64_t)(stats->stage_seconds[i] * 1e9);
        if (end > at)
            vxk_jobs_trace_span(jobs, names[i], at, end);
        at = end;
    }
}

vxk_status vxk_world_step(vxk_world* world, float dt)
{
    if (!world)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_is_finite(dt))
        return VXK_ERR_NOT_FINITE;
    if (dt < 0.0f)
        return VXK_ERR_OUT_OF_RANGE;
    // Edits submitted before the previous step began become the terrain this step reads (their
    // chunks join the written ones taken next).
    vxk_status published = vxk_edit_publish(world);
    if (published != VXK_OK)
        return published;
    vxk_arena_reset(&world->step_arena);
    step_context ctx = {world, dt, &world->step_arena, NULL, 0, NULL, 0, {0}};
    uint64_t start = vxk_jobs_now_ns(), mark = start;
    vxk_status status = stage_take_dirty(&ctx);
    ctx.stats.stage_seconds[VXK_STEP_TAKE_DIRTY] = vxk_seconds_since(&mark);
    if (status == VXK_OK)
        status = stage_masks(&ctx);
    if (status != VXK_OK) {
        vxk_terrain_untake_dirty(&world->terrain);
        return status;
    }
    ctx.stats.stage_seconds[VXK_STEP_MASKS] = vxk_seconds_since(&mark);
    stage_caches(&ctx);
    // Sleeping bodies near written terrain wake (its contacts may have changed under them).
    vxk_dynamics_wake_chunks(vxk_dynamics_get(world), ctx.dirty, ctx.dirty_count,
                             world->voxel_size);
    ctx.stats.stage_seconds[VXK_STEP_CACHES] = vxk_seconds_since(&mark);
    if (dt > 0.0f) {
        status = vxk_dynamics_step(world, ctx.arena, dt, &ctx.stats);
        if (status != VXK_OK && ctx.stats.stage_seconds[VXK_STEP_SOLVE] == 0.0)
            return status; // nothing moved
    }
    ctx.stats.total_seconds = (double)(vxk_jobs_now_ns() - start) * 1e-9;
    trace_stages(world->jobs, start, &ctx.stats);
    ctx.stats.steps = world->step_stats.steps + 1;
    ctx.stats.arena_bytes = ctx.arena->total;
    world->step_stats = ctx.stats;
    return status;
}

void vxk_world_get_step_stats(const vxk_world* world, vxk_world_step_stats* out)
{
    if (world && out)
        *out = world->step_stats;
}
