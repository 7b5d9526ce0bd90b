// candidates.c: the predict and candidates stages of a step. Predict: each live body's box at its
// pose and the motion its margins must cover (its velocity after this step's gravity and forces,
// the reach of its surface by rotation). Candidates: body pairs from the incremental body BVH over
// the swept boxes, the terrain chunks near each awake dynamic body from the bit broadphase (seed
// 000's solid masks), and the narrowphase tasks in key order, each with its contacts of the last
// step.
#include "dynamics.h"

#include "broadphase_sweep.h"

// How far the pair tracker pads the bodies' boxes (metres): a body re-enters its tree only when
// its swept box leaves the padded one.
#define BVH_PAD 0.1f

enum { SCRATCH_LIVE, SCRATCH_BOXES, SCRATCH_HITS, SCRATCH_OFFSETS, SCRATCH_TASKS };

static vxk_status reserve(vxk_dynamics* dyn, int slot, size_t bytes)
{
    return vxk_dynamics_reserve(&dyn->scratch[slot], &dyn->scratch_bytes[slot], bytes);
}

// The limits where the step begins (vxk/world.h, vxk_world_step): the velocities within the
// maximum speeds, and the force and torque scaled down so that over dt they change the velocity
// by at most twice the maximum (enough to turn it round). The solver then never sees a speed past
// a few times the maxima, whatever the bodies were given.
static void limit_motion(vxk_body* b, float dt)
{
    if (vxk_v3_longer(b->v, VXK_MAX_LINEAR_SPEED)) // (no store otherwise: a warm body stays clean)
        b->v = vxk_v3_clamp_length(b->v, VXK_MAX_LINEAR_SPEED);
    if (vxk_v3_longer(b->w, VXK_MAX_ANGULAR_SPEED))
        b->w = vxk_v3_clamp_length(b->w, VXK_MAX_ANGULAR_SPEED);
    if (b->type != VXK_BODY_DYNAMIC)
        return;
    const double most_dv = 2.0 * VXK_MAX_LINEAR_SPEED, most_dw = 2.0 * VXK_MAX_ANGULAR_SPEED;
    if (b->force.x != 0.0f || b->force.y != 0.0f || b->force.z != 0.0f) {
        double dv = vxk_v3_length_d(b->force) * b->inv_mass * dt;
        if (dv > most_dv) {
            double s = most_dv / dv;
            b->force =
                vxk_v3((float)(b->force.x * s), (float)(b->force.y * s), (float)(b->force.z * s));
        }
    }
    if (b->torque.x == 0.0f && b->torque.y == 0.0f && b->torque.z == 0.0f)
        return;
    // |r I^-1 r^T t| = |I^-1 r^T t| (r a rotation), in double: a small body's inverse inertia
    // times a large torque overflows float.
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    const vxk_vec3 axes[3] = {r.cx, r.cy, r.cz};
    const vxk_vec3 inv[3] = {b->inv_inertia.cx, b->inv_inertia.cy, b->inv_inertia.cz};
    double local[3], sum = 0.0;
    for (int i = 0; i < 3; ++i)
        local[i] = (double)axes[i].x * b->torque.x + (double)axes[i].y * b->torque.y +
                   (double)axes[i].z * b->torque.z;
    for (int i = 0; i < 3; ++i) {
        double c = (double)vxk_v3_get(inv[0], (uint32_t)i) * local[0] +
                   (double)vxk_v3_get(inv[1], (uint32_t)i) * local[1] +
                   (double)vxk_v3_get(inv[2], (uint32_t)i) * local[2];
        sum += c * c;
    }
    double dw = sqrt(sum) * dt;
    if (dw > most_dw) {
        double s = most_dw / dw;
        b->torque =
            vxk_v3((float)(b->torque.x * s), (float)(b->torque.y * s), (float)(b->torque.z * s));
    }
}

// A body's velocity at the end of this step's first integration (after gravity and forces), the
// motion the margins must cover.
static vxk_vec3 body_velocity(const vxk_dynamics* dyn, const vxk_body* b, float dt)
{
    if (b->type == VXK_BODY_STATIC || !b->awake)
        return vxk_v3(0, 0, 0);
    vxk_vec3 v = b->v;
    if (b->type == VXK_BODY_DYNAMIC)
        v = vxk_v3_add(
            v, vxk_v3_scale(vxk_v3_add(vxk_v3_scale(dyn->settings.gravity, b->gravity_scale),
                                       vxk_v3_scale(b->force, b->inv_mass)),
                            dt));
    return v;
}

// How far a body's surface may move by rotation in a step.
static float body_spin_reach(const vxk_body* b, float dt)
{
    return b->type == VXK_BODY_STATIC || !b->awake ? 0.0f
                                                   : vxk_v3_length(b->w) * b->bound_radius * dt;
}

vxk_status vxk_dynamics_predict(vxk_dynamics* dyn, vxk_dynamics_frame* f)
{
    const float dt = f->dt;
    // Boxes for the candidate search grow by the reach plus 4 slops.
    const float base_margin = 4.0f * dyn->settings.linear_slop;
    uint32_t cap = dyn->ids.count;
    f->cap = cap;
    if (reserve(dyn, SCRATCH_LIVE, sizeof(uint32_t) * (size_t)cap * 3 + 16) != VXK_OK ||
        reserve(dyn, SCRATCH_BOXES, sizeof(vxk_aabb) * (size_t)cap * 2 + 16) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    f->live = (uint32_t*)dyn->scratch[SCRATCH_LIVE];
    f->moving = f->live + cap; // filled after the narrowphase has woken what it touched
    f->dynamic = f->moving + cap;
    f->fat = (vxk_aabb*)dyn->scratch[SCRATCH_BOXES];
    f->dyn_boxes = f->fat + cap;
    f->reach = (float*)vxk_arena_alloc(f->arena, sizeof(float) * (size_t)cap + 16);
    f->spin = (float*)vxk_arena_alloc(f->arena, sizeof(float) * (size_t)cap + 16);
    f->vel = (vxk_vec3*)vxk_arena_alloc(f->arena, sizeof(vxk_vec3) * (size_t)cap + 16);
    // Sleeping dynamic bodies (their terrain manifolds are carried).
    f->asleep = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * (size_t)cap + 16);
    if (!f->reach || !f->spin || !f->vel || !f->asleep)
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t live_count = 0, dynamic_count = 0, asleep_count = 0;
    for (uint32_t i = 0; i < cap; ++i) {
        vxk_body* b = &dyn->bodies[i];
        if (!b->live)
            continue;
        if (b->type != VXK_BODY_STATIC && b->awake) // a sleeping body is still, without forces
            limit_motion(b, dt);
        if (b->awake)
            b->aabb = vxk_body_compute_aabb(b);
        f->vel[i] = body_velocity(dyn, b, dt);
        f->spin[i] = body_spin_reach(b, dt);
        f->reach[i] = vxk_v3_length(f->vel[i]) * dt + f->spin[i];
        float g = f->reach[i] + base_margin;
        f->fat[live_count] = (vxk_aabb){vxk_v3_sub(b->aabb.min, vxk_v3(g, g, g)),
                                        vxk_v3_add(b->aabb.max, vxk_v3(g, g, g))};
        f->live[live_count++] = i;
        if (b->type == VXK_BODY_DYNAMIC && b->awake) {
            f->dyn_boxes[dynamic_count] = f->fat[live_count - 1];
            f->dynamic[dynamic_count++] = i;
        } else if (b->type == VXK_BODY_DYNAMIC) {
            f->asleep[asleep_count++] = i;
        }
    }
    f->live_count = live_count;
    f->dynamic_count = dynamic_count;
    f->asleep_count = asleep_count;
    f->moving_count = 0;
    return VXK_OK;
}

// The terrain chunks near each awake dynamic body (hits and offsets in the dynamics' buffers):
// those of its box grown by its reach, or for a fast body (VXK_FAST_MOTION_VOXELS) those along
// its path (its box grown by the reach's part that is not motion and VXK_FAST_MOTION_VOXELS
// voxels, swept along the motion), as many as the speed where the grown box's are the cube of it.
// Terrain lies within the int32 voxel range: the parts of a box past it have none.
static vxk_status terrain_candidates(vxk_dynamics* dyn, vxk_dynamics_frame* f)
{
    const uint32_t dynamic_count = f->dynamic_count;
    if (reserve(dyn, SCRATCH_OFFSETS, sizeof(uint32_t) * ((size_t)dynamic_count + 1)) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_broadphase_sweep* sweeps = (vxk_broadphase_sweep*)vxk_arena_alloc(
        f->arena, sizeof(vxk_broadphase_sweep) * (size_t)dynamic_count + 16);
    if (!sweeps)
        return VXK_ERR_OUT_OF_MEMORY;
    const float voxel_size = dyn->world->voxel_size;
    const float fast = VXK_FAST_MOTION_VOXELS * voxel_size;
    for (uint32_t d = 0; d < dynamic_count; ++d) {
        uint32_t i = f->dynamic[d];
        vxk_vec3 motion = vxk_v3_scale(f->vel[i], f->dt);
        if (!(vxk_v3_length(motion) > fast)) {
            sweeps[d] = (vxk_broadphase_sweep){f->dyn_boxes[d], {0, 0, 0}};
            continue;
        }
        const vxk_aabb* box = &dyn->bodies[i].aabb;
        float g = f->spin[i] + 4.0f * dyn->settings.linear_slop + fast + voxel_size;
        sweeps[d] = (vxk_broadphase_sweep){
            {vxk_v3_sub(box->min, vxk_v3(g, g, g)), vxk_v3_add(box->max, vxk_v3(g, g, g))}, motion};
    }
    uint32_t* offsets = (uint32_t*)dyn->scratch[SCRATCH_OFFSETS];
    uint32_t hit_cap = (uint32_t)(dyn->scratch_bytes[SCRATCH_HITS] / sizeof(vxk_broadphase_hit));
    vxk_status status;
    for (;;) {
        status = vxk_broadphase_query_sweep_batch(dyn->world,
                                                  (vxk_broadphase_hit*)dyn->scratch[SCRATCH_HITS],
                                                  hit_cap, offsets, sweeps, dynamic_count);
        if (status != VXK_ERR_CAPACITY)
            break;
        if (reserve(dyn, SCRATCH_HITS,
                    sizeof(vxk_broadphase_hit) * (size_t)offsets[dynamic_count]) != VXK_OK) {
            status = VXK_ERR_OUT_OF_MEMORY;
            break;
        }
        hit_cap = (uint32_t)(dyn->scratch_bytes[SCRATCH_HITS] / sizeof(vxk_broadphase_hit));
    }
    if (status != VXK_OK)
        return status == VXK_ERR_CAPACITY ? VXK_ERR_OUT_OF_MEMORY : status;
    f->offsets = offsets;
    f->hits = (const vxk_broadphase_hit*)dyn->scratch[SCRATCH_HITS];
    return VXK_OK;
}

// Each task's contacts of the last step (the cache): both lists are in key order.
static void map_cache(const vxk_dynamics* dyn, vxk_dynamics_frame* f)
{
    const vxk_contact* prev = dyn->contacts;
    uint32_t j = 0, pc = dyn->contact_count;
    for (uint32_t t = 0; t < f->task_count; ++t) {
        vxk_narrow_task* task = &f->tasks[t];
        vxk_contact key;
        key.terrain = task->a == UINT32_MAX;
        key.a = key.terrain ? 0 : task->a;
        key.b = task->b;
        while (j < pc && vxk_contact_group_compare(&prev[j], &key) < 0)
            j++;
        uint32_t e = j;
        while (e < pc && vxk_contact_group_compare(&prev[e], &key) == 0)
            e++;
        task->prev_begin = j;
        task->prev_end = e;
        j = e;
    }
}

vxk_status vxk_dynamics_candidates(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                                   vxk_world_step_stats* stats)
{
    const float dt = f->dt;
    // Points are reported within the closing motion plus one slop.
    const float point_margin = dyn->settings.linear_slop;
    // Pairs from the BVH (object id = position in live), tracked across steps.
    if (dyn->bodies_changed) {
        vxk_bvh_tracker_reset(&dyn->pairs);
        dyn->bodies_changed = false;
    }
    const vxk_bvh_pair* pairs = NULL;
    uint32_t pair_count = 0;
    vxk_status status = vxk_bvh_tracker_update(&dyn->pairs, dyn->world->jobs, &pairs, &pair_count,
                                               f->fat, f->live_count, BVH_PAD);
    if (status != VXK_OK) {
        dyn->bodies_changed = true; // the tracker starts over after a failure anyway
        return status;
    }
    status = terrain_candidates(dyn, f);
    if (status != VXK_OK)
        return status;
    // Tasks in key order: terrain (body, chunk), then pairs (a, b) with a dynamic body.
    const uint32_t dynamic_count = f->dynamic_count, asleep_count = f->asleep_count;
    uint32_t task_cap = dynamic_count + asleep_count + pair_count;
    uint32_t piece_cap = task_cap / VXK_NARROW_GRAIN + 1;
    if (reserve(dyn, SCRATCH_TASKS, sizeof(vxk_narrow_task) * (size_t)task_cap + 16) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    if (!vxk_grow_items_zeroed((void**)&dyn->pieces, &dyn->piece_capacity, piece_cap,
                               sizeof(vxk_contact_piece)))
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_narrow_task* tasks = (vxk_narrow_task*)dyn->scratch[SCRATCH_TASKS];
    const uint32_t *dynamic = f->dynamic, *asleep = f->asleep, *offsets = f->offsets;
    uint32_t task_count = 0;
    // Terrain tasks by body index: the awake bodies' chunks, the sleeping bodies' kept manifolds.
    for (uint32_t d = 0, z = 0; d < dynamic_count || z < asleep_count;) {
        if (z == asleep_count || (d < dynamic_count && dynamic[d] < asleep[z])) {
            if (offsets[d + 1] > offsets[d])
                tasks[task_count++] = (vxk_narrow_task){UINT32_MAX,
                                                        dynamic[d],
                                                        offsets[d],
                                                        offsets[d + 1],
                                                        f->reach[dynamic[d]] + point_margin,
                                                        0,
                                                        0,
                                                        0};
            d++;
        } else {
            tasks[task_count++] = (vxk_narrow_task){UINT32_MAX, asleep[z++], 0, 0, 0.0f, 0, 0, 1};
        }
    }
    stats->terrain_tasks = task_count;
    for (uint32_t p = 0; p < pair_count; ++p) {
        uint32_t a = f->live[pairs[p].a], b = f->live[pairs[p].b];
        if (dyn->bodies[a].type != VXK_BODY_DYNAMIC && dyn->bodies[b].type != VXK_BODY_DYNAMIC)
            continue;
        // The speculative margin of a pair: its closing motion over the step (relative velocity,
        // and each surface's spin) plus the slop, so bodies moving together (a stack falling
        // as one) add nothing.
        float closing =
            vxk_v3_length(vxk_v3_sub(f->vel[b], f->vel[a])) * dt + f->spin[a] + f->spin[b];
        uint32_t still = !vxk_body_active(&dyn->bodies[a]) && !vxk_body_active(&dyn->bodies[b]);
        tasks[task_count++] = (vxk_narrow_task){a, b, 0, 0, closing + point_margin, 0, 0, still};
    }
    stats->body_pairs = pair_count;
    f->tasks = tasks;
    f->task_count = task_count;
    map_cache(dyn, f);
    return VXK_OK;
}
