// contacts.c: persistent manifolds and the events stage of a step: the impulses a manifold
// carries from the last step (warm starting by feature id, else by position), contact begin and
// end events from the last and the new manifolds walked in key order, the hand-over of the step's
// manifolds to the next step, and the read API (vxk_world_get_contacts,
// vxk_world_get_contact_begin_events, _end_events).
#include "dynamics.h"

#include <float.h>

// A point whose features are new takes the impulses of the nearest previous point of its pair
// within this distance (metres; Bullet's contact breaking threshold).
#define WARM_MATCH_DISTANCE 0.02f

// ---- persistence and events ------------------------------------------------------------------

int vxk_contact_group_compare(const vxk_contact* x, const vxk_contact* y)
{
    if (x->terrain != y->terrain)
        return x->terrain ? -1 : 1;
    if (x->terrain)
        return x->b < y->b ? -1 : x->b > y->b ? 1 : 0;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return 0;
}

static bool same_bodies(const vxk_contact* x, const vxk_contact* y)
{
    return x->a_gen == y->a_gen && x->b_gen == y->b_gen;
}

static uint32_t group_end(const vxk_contact* list, uint32_t count, uint32_t begin)
{
    uint32_t e = begin + 1;
    while (e < count && vxk_contact_group_compare(&list[begin], &list[e]) == 0)
        e++;
    return e;
}

static bool group_touching(const vxk_contact* list, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; ++i)
        if (list[i].touching)
            return true;
    return false;
}

// Carries the accumulated impulses of matching points from the previous step's group: first by
// feature id; a point whose features changed (a clip that picked the other box's face, a
// reduction that kept another corner) takes the nearest unclaimed previous point within
// WARM_MATCH_DISTANCE under a normal within VXK_CLUSTER_COS, as a persistent manifold matches by
// position. Without the fallback a resting stack loses a few percent of its warm starts every
// step, and tall stacks jitter and lean.
void vxk_contact_warm_start(vxk_contact* now, uint32_t nb, uint32_t ne, const vxk_contact* prev,
                            uint32_t pb, uint32_t pe)
{
    // Friction is per manifold: each takes the impulses of the previous manifold whose normal is
    // nearest to its own (within VXK_CLUSTER_COS).
    for (uint32_t i = nb; i < ne; ++i) {
        float best = VXK_CLUSTER_COS;
        for (uint32_t j = pb; j < pe && j - pb < VXK_TASK_MANIFOLDS; ++j) {
            float d = vxk_v3_dot(prev[j].normal, now[i].normal);
            if (d >= best) {
                best = d;
                now[i].friction_impulse = prev[j].friction_impulse;
                now[i].twist_impulse = prev[j].twist_impulse;
            }
        }
    }
    // Claimed previous points: bit q of claimed[j - pb] (a group holds at most VXK_TASK_MANIFOLDS).
    uint8_t claimed[VXK_TASK_MANIFOLDS] = {0};
    bool unmatched = false;
    for (uint32_t i = nb; i < ne; ++i)
        for (uint32_t p = 0; p < now[i].point_count; ++p) {
            vxk_contact_point_state* cp = &now[i].points[p];
            bool found = false;
            for (uint32_t j = pb; j < pe && j - pb < VXK_TASK_MANIFOLDS && !found; ++j)
                for (uint32_t q = 0; q < prev[j].point_count; ++q)
                    if (prev[j].points[q].feature == cp->feature && !(claimed[j - pb] >> q & 1u)) {
                        cp->normal_impulse = prev[j].points[q].normal_impulse;
                        claimed[j - pb] |= (uint8_t)(1u << q);
                        found = true;
                        break;
                    }
            if (!found) {
                cp->feature_matched = 0;
                unmatched = true;
            } else {
                cp->feature_matched = 1;
            }
        }
    if (!unmatched)
        return;
    for (uint32_t i = nb; i < ne; ++i)
        for (uint32_t p = 0; p < now[i].point_count; ++p) {
            vxk_contact_point_state* cp = &now[i].points[p];
            if (cp->feature_matched)
                continue;
            float best = WARM_MATCH_DISTANCE * WARM_MATCH_DISTANCE;
            uint32_t bj = UINT32_MAX, bq = 0;
            for (uint32_t j = pb; j < pe && j - pb < VXK_TASK_MANIFOLDS; ++j) {
                if (vxk_v3_dot(prev[j].normal, now[i].normal) < VXK_CLUSTER_COS)
                    continue;
                for (uint32_t q = 0; q < prev[j].point_count; ++q) {
                    if (claimed[j - pb] >> q & 1u)
                        continue;
                    float d2 = vxk_v3_length_sq(vxk_v3_sub(prev[j].points[q].point, cp->point));
                    if (d2 < best)
                        best = d2, bj = j, bq = q;
                }
            }
            if (bj == UINT32_MAX)
                continue;
            cp->normal_impulse = prev[bj].points[bq].normal_impulse;
            claimed[bj - pb] |= (uint8_t)(1u << bq);
        }
}

static vxk_body_id contact_a(const vxk_contact* c)
{
    return c->terrain ? VXK_NULL_ID(vxk_body_id) : (vxk_body_id){c->a, c->a_gen};
}

static void fill_event(vxk_contact_event* e, const vxk_contact* list, uint32_t begin, uint32_t end,
                       bool with_speed)
{
    memset(e, 0, sizeof(*e));
    const vxk_contact* c = &list[begin];
    e->a = contact_a(c);
    e->b = (vxk_body_id){c->b, c->b_gen};
    e->chunk = c->chunk;
    float deepest = FLT_MAX;
    for (uint32_t i = begin; i < end; ++i)
        for (uint32_t p = 0; p < list[i].point_count; ++p) {
            const vxk_contact_point_state* cp = &list[i].points[p];
            e->normal_impulse += cp->normal_impulse;
            if (cp->separation < deepest) {
                deepest = cp->separation;
                e->point = cp->point;
                e->normal = list[i].normal;
                if (with_speed)
                    e->approach_speed = fmaxf(0.0f, -cp->relative_velocity);
            }
        }
}

static vxk_status push_event(vxk_contact_event** list, uint32_t* count, uint32_t* capacity,
                             const vxk_contact_event* e)
{
    if (*count == *capacity) {
        void* p = *list;
        if (!vxk_grow_items(&p, capacity, (uint64_t)*count + 1u, sizeof(vxk_contact_event)))
            return VXK_ERR_OUT_OF_MEMORY;
        *list = (vxk_contact_event*)p;
    }
    (*list)[(*count)++] = *e;
    return VXK_OK;
}

// Walks the previous and the new contact groups in key order and records begin and end events
// (warm starting happened in the narrowphase tasks). Events cannot fail to be recorded silently:
// their buffers are grown here (VXK_ERR_OUT_OF_MEMORY is reported, the step's motion is kept).
static vxk_status record_events(vxk_dynamics* dyn, vxk_contact* now, uint32_t now_count)
{
    vxk_contact* prev = dyn->contacts;
    uint32_t pc = dyn->contact_count;
    uint32_t i = 0, j = 0;
    vxk_status status = VXK_OK;
    while (i < now_count || j < pc) {
        int cmp;
        if (i == now_count)
            cmp = 1;
        else if (j == pc)
            cmp = -1;
        else
            cmp = vxk_contact_group_compare(&now[i], &prev[j]);
        uint32_t ie = cmp <= 0 ? group_end(now, now_count, i) : i;
        uint32_t je = cmp >= 0 ? group_end(prev, pc, j) : j;
        bool matched = cmp == 0 && same_bodies(&now[i], &prev[j]);
        bool was = cmp >= 0 && group_touching(prev, j, je);
        bool is = cmp <= 0 && group_touching(now, i, ie);
        if (is && !(was && matched)) {
            vxk_contact_event e;
            fill_event(&e, now, i, ie, true);
            if (push_event(&dyn->begin_events, &dyn->begin_count, &dyn->begin_capacity, &e) !=
                VXK_OK)
                status = VXK_ERR_OUT_OF_MEMORY;
        }
        if (was && !(is && matched)) {
            vxk_contact_event e;
            fill_event(&e, prev, j, je, false);
            if (push_event(&dyn->end_events, &dyn->end_count, &dyn->end_capacity, &e) != VXK_OK)
                status = VXK_ERR_OUT_OF_MEMORY;
        }
        i = ie;
        j = je;
    }
    return status;
}

// Whether a body's pose and velocities are all finite: one sum, which no finite values of the
// limits' sizes can overflow, so it is finite exactly when they all are.
static bool motion_finite(const vxk_body* b)
{
    const vxk_transform* t = &b->pose;
    return vxk_is_finite(t->p.x + t->p.y + t->p.z + t->q.x + t->q.y + t->q.z + t->q.w + b->v.x +
                         b->v.y + b->v.z + b->w.x + b->w.y + b->w.z);
}

// A manifold with a value that is not finite starts cold (impulses 0): no NaN is warm started
// into the next step.
static void cool_manifold(vxk_contact* c)
{
    bool finite = vxk_vec3_is_finite(c->friction_impulse) && vxk_is_finite(c->twist_impulse);
    for (uint32_t p = 0; p < c->point_count; ++p) {
        const vxk_contact_point_state* cp = &c->points[p];
        finite = finite && vxk_is_finite(cp->normal_impulse) &&
                 vxk_is_finite(cp->max_normal_impulse) && vxk_is_finite(cp->separation) &&
                 vxk_is_finite(cp->relative_velocity);
    }
    if (finite)
        return;
    c->friction_impulse = vxk_v3(0, 0, 0);
    c->twist_impulse = 0.0f;
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_contact_point_state* cp = &c->points[p];
        cp->normal_impulse = cp->max_normal_impulse = cp->relative_velocity = 0.0f;
        if (!vxk_is_finite(cp->separation))
            cp->separation = FLT_MAX; // measured anew by the next step's narrowphase
    }
}

// The limits where the step ends (vxk/world.h, vxk_world_step): what the solve and the sweeps
// made of the velocities within the maximum speeds. And their last guard: a body whose motion
// came out of the step not finite (a float overflow in the solve of a contact of extreme lever
// arms, aspect or mass ratios) is put back where the step began, at rest, and the step's manifolds
// with a value that is not finite start cold. The forces are cleared and the boxes brought to the
// poses.
static void end_motion(vxk_dynamics* dyn, vxk_dynamics_frame* f)
{
    bool reset = false;
    for (uint32_t i = 0; i < f->moving_count; ++i) {
        vxk_body* b = &dyn->bodies[f->moving[i]];
        if (!motion_finite(b)) {
            b->pose = f->start[f->moving[i]];
            b->v = b->w = vxk_v3(0, 0, 0);
            reset = true;
        }
        b->v = vxk_v3_clamp_length(b->v, VXK_MAX_LINEAR_SPEED);
        b->w = vxk_v3_clamp_length(b->w, VXK_MAX_ANGULAR_SPEED);
        b->force = b->torque = vxk_v3(0, 0, 0);
        b->aabb = vxk_body_compute_aabb(b);
    }
    for (uint32_t i = 0; reset && i < f->now_count; ++i)
        cool_manifold(&f->now[i]);
}

vxk_status vxk_dynamics_events(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                               vxk_world_step_stats* stats)
{
    const float slop = dyn->settings.linear_slop;
    end_motion(dyn, f);
    vxk_contact* now = f->now;
    const uint32_t now_count = f->now_count;
    // Whether each manifold touches: the solver decided it for those it solved, carried ones
    // keep theirs (nothing about them changed); the rest (none in a scene where every moving
    // body's manifolds are solved) are decided here. Only their first line is read.
    for (uint32_t i = 0; i < now_count; ++i) {
        vxk_contact* c = &now[i];
        if (c->touching != VXK_TOUCHING_UNKNOWN)
            continue;
        c->touching = 0;
        for (uint32_t p = 0; p < c->point_count; ++p)
            if (c->points[p].separation < slop || c->points[p].max_normal_impulse > 0.0f)
                c->touching = 1;
    }
    dyn->begin_count = 0;
    dyn->end_count = 0;
    vxk_status status = VXK_OK;
    if (record_events(dyn, now, now_count) != VXK_OK)
        status = VXK_ERR_OUT_OF_MEMORY;
    vxk_contact* old = dyn->contacts;
    uint32_t old_cap = dyn->contact_capacity;
    dyn->contacts = now;
    dyn->contact_count = now_count;
    dyn->contact_capacity = dyn->next_capacity;
    dyn->next_contacts = old;
    dyn->next_capacity = old_cap;
    stats->awake_bodies = stats->sleeping_bodies = 0;
    for (uint32_t i = 0; i < f->cap; ++i) {
        const vxk_body* b = &dyn->bodies[i];
        if (b->live && b->type == VXK_BODY_DYNAMIC) {
            stats->awake_bodies += b->awake;
            stats->sleeping_bodies += !b->awake;
        }
    }
    return status;
}

// ---- reading contacts ------------------------------------------------------------------------

uint32_t vxk_world_get_contacts(const vxk_world* world, vxk_contact_data* out, uint32_t capacity)
{
    if (!world)
        return 0;
    const vxk_dynamics* dyn = vxk_dynamics_get(world);
    for (uint32_t i = 0; i < dyn->contact_count && i < capacity && out; ++i) {
        const vxk_contact* c = &dyn->contacts[i];
        vxk_contact_data* d = &out[i];
        memset(d, 0, sizeof(*d));
        d->a = contact_a(c);
        d->b = (vxk_body_id){c->b, c->b_gen};
        d->chunk = c->chunk;
        d->normal = c->normal;
        d->friction = c->friction;
        d->restitution = c->restitution;
        d->point_count = c->point_count;
        d->friction_impulse = c->friction_impulse;
        d->twist_impulse = c->twist_impulse;
        for (uint32_t p = 0; p < c->point_count; ++p) {
            d->points[p].point = c->points[p].point;
            d->points[p].separation = c->points[p].separation;
            d->points[p].normal_impulse = c->points[p].normal_impulse;
            d->points[p].feature = c->points[p].feature;
        }
    }
    return dyn->contact_count;
}

// The begin (end false) or end events of the last step into the caller's buffer.
static uint32_t get_events(const vxk_world* world, bool end, vxk_contact_event* out,
                           uint32_t capacity)
{
    if (!world)
        return 0;
    const vxk_dynamics* dyn = vxk_dynamics_get(world);
    const vxk_contact_event* events = end ? dyn->end_events : dyn->begin_events;
    uint32_t count = end ? dyn->end_count : dyn->begin_count;
    if (out && count && capacity)
        memcpy(out, events, sizeof(vxk_contact_event) * VXK_MIN(count, capacity));
    return count;
}

uint32_t vxk_world_get_contact_begin_events(const vxk_world* world, vxk_contact_event* out,
                                            uint32_t capacity)
{
    return get_events(world, false, out, capacity);
}

uint32_t vxk_world_get_contact_end_events(const vxk_world* world, vxk_contact_event* out,
                                          uint32_t capacity)
{
    return get_events(world, true, out, capacity);
}
