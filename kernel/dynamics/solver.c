// solver.c: the contact solver, Box2D v3's soft step in 3D (docs/architecture.md, "Solver").
//
// Per step: contacts are prepared once (anchors, effective masses, the separation at the
// step's start); then each of `substeps` substeps integrates velocities (gravity, forces,
// damping), warm starts, solves the contacts with soft constraints (a spring-damper of
// contact_hertz and contact_damping_ratio pushing overlap out at most at contact_push_speed),
// integrates positions, and relaxes (the same solve without the push, so the push adds no
// energy); after the substeps restitution is applied and the impulses are stored for the next
// step's warm start. The separation of each point is updated within the step from the bodies'
// position and rotation deltas, so the substeps see their own motion without a new collision
// pass; a positive separation is a speculative point, which only stops the approach so that the
// surfaces just meet.
//
// Data: per point, everything an iteration reads is precomputed at prepare in one record (the
// lever arms crossed with the normal and tangents, and those mapped by the world inverse
// inertia), so an iteration is dot products and multiply-adds, with no matrix product.
// Contacts are solved in their list order (the pair-key order), one at a time (Gauss-Seidel):
// deterministic for any worker count.
#include "dynamics.h"

// Gauss-Seidel passes of the restitution solve.
#define RESTITUTION_ITERATIONS 4

typedef struct solver_body {
    vxk_vec3 v, w;
    vxk_vec3 dp;    // position delta since the step's start
    vxk_quat q;     // current rotation
    vxk_quat q0;    // rotation at the step's start
    vxk_mat3 dr;    // rotation since the step's start (q q0^-1), refreshed with q
    vxk_mat3 inv_i; // world inverse inertia (fixed over the step)
    float inv_mass;
} solver_body;

typedef struct softness {
    float bias_rate, mass_scale, impulse_scale;
} softness;

static softness make_soft(float hertz, float zeta, float h)
{
    if (hertz == 0.0f)
        return (softness){0.0f, 1.0f, 0.0f};
    float omega = 2.0f * 3.14159265359f * hertz;
    float a1 = 2.0f * zeta + h * omega;
    float a2 = h * omega * a1;
    float a3 = 1.0f / (1.0f + a2);
    return (softness){omega / a1, a2 * a3, a3};
}

static inline float max_f(float a, float b)
{
    return a > b ? a : b;
}

// One direction (normal or tangent) of a point: the lever arms crossed with it, and those
// mapped by the inverse inertias (the angular velocity change per unit impulse).
typedef struct axis_row {
    vxk_vec3 ca, cb; // ra x d, rb x d
    vxk_vec3 ia, ib; // Ia (ra x d), Ib (rb x d)
    float mass;      // effective mass along d
} axis_row;

typedef struct point_row {
    axis_row n, t1, t2;
    vxk_vec3 ra, rb;
    float separation; // at the step's start
    vxk_contact_point_state* state;
} point_row;

typedef struct constraint {
    uint32_t a, b; // solver body slots (the last slot is the static body)
    uint32_t first_point, point_count;
    vxk_vec3 normal, t1, t2;
    float friction, restitution;
    softness soft;
} constraint;

// An orthonormal pair perpendicular to unit n (branch-free construction of Duff et al.).
static void tangents(vxk_vec3 n, vxk_vec3* t1, vxk_vec3* t2)
{
    float sign = copysignf(1.0f, n.z);
    float a = -1.0f / (sign + n.z);
    float b = n.x * n.y * a;
    *t1 = vxk_v3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
    *t2 = vxk_v3(b, sign + n.y * n.y * a, -n.y);
}

static axis_row make_row(const solver_body* A, const solver_body* B, vxk_vec3 ra, vxk_vec3 rb,
                         vxk_vec3 d)
{
    axis_row r;
    r.ca = vxk_v3_cross(ra, d);
    r.cb = vxk_v3_cross(rb, d);
    r.ia = vxk_mat3_mul_v(&A->inv_i, r.ca);
    r.ib = vxk_mat3_mul_v(&B->inv_i, r.cb);
    float k = A->inv_mass + B->inv_mass + vxk_v3_dot(r.ca, r.ia) + vxk_v3_dot(r.cb, r.ib);
    r.mass = k > 0.0f ? 1.0f / k : 0.0f;
    return r;
}

// Relative velocity of B against A at the point, along the row's direction d.
static inline float row_velocity(const solver_body* A, const solver_body* B, const axis_row* r,
                                 vxk_vec3 d)
{
    return vxk_v3_dot(vxk_v3_sub(B->v, A->v), d) + vxk_v3_dot(B->w, r->cb) -
           vxk_v3_dot(A->w, r->ca);
}

static inline void row_apply(solver_body* A, solver_body* B, const axis_row* r, vxk_vec3 d,
                             float impulse)
{
    A->v = vxk_v3_mul_add(A->v, -A->inv_mass * impulse, d);
    A->w = vxk_v3_mul_add(A->w, -impulse, r->ia);
    B->v = vxk_v3_mul_add(B->v, B->inv_mass * impulse, d);
    B->w = vxk_v3_mul_add(B->w, impulse, r->ib);
}

// Where a body-fixed anchor r (at the step's start) is now, minus where it was.
static inline vxk_vec3 anchor_delta(const solver_body* s, vxk_vec3 r)
{
    return vxk_v3_add(s->dp, vxk_v3_sub(vxk_mat3_mul_v(&s->dr, r), r));
}

static void solve_contacts(solver_body* bodies, const constraint* cs, uint32_t n, point_row* rows,
                           float inv_h, float push_speed, bool use_bias)
{
    for (uint32_t i = 0; i < n; ++i) {
        const constraint* c = &cs[i];
        solver_body* A = &bodies[c->a];
        solver_body* B = &bodies[c->b];
        point_row* pr = rows + c->first_point;
        for (uint32_t p = 0; p < c->point_count; ++p) {
            point_row* r = &pr[p];
            vxk_contact_point_state* cp = r->state;
            float s =
                vxk_v3_dot(c->normal, vxk_v3_sub(anchor_delta(B, r->rb), anchor_delta(A, r->ra))) +
                r->separation;
            float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
            if (s > 0.0f) {
                bias = s * inv_h; // speculative: approach until the surfaces meet
            } else if (use_bias) {
                bias = max_f(c->soft.bias_rate * s, -push_speed);
                mass_scale = c->soft.mass_scale;
                impulse_scale = c->soft.impulse_scale;
            }
            float vn = row_velocity(A, B, &r->n, c->normal);
            float impulse =
                -r->n.mass * mass_scale * (vn + bias) - impulse_scale * cp->normal_impulse;
            float next = max_f(cp->normal_impulse + impulse, 0.0f);
            impulse = next - cp->normal_impulse;
            cp->normal_impulse = next;
            cp->max_normal_impulse = max_f(cp->max_normal_impulse, impulse);
            row_apply(A, B, &r->n, c->normal, impulse);
        }
        for (uint32_t p = 0; p < c->point_count; ++p) {
            point_row* r = &pr[p];
            vxk_contact_point_state* cp = r->state;
            float l1 = cp->tangent_impulse[0] - r->t1.mass * row_velocity(A, B, &r->t1, c->t1);
            float l2 = cp->tangent_impulse[1] - r->t2.mass * row_velocity(A, B, &r->t2, c->t2);
            // The Coulomb cone: the tangent impulse stays within friction * normal impulse.
            float limit = c->friction * cp->normal_impulse;
            float len2 = l1 * l1 + l2 * l2;
            if (len2 > limit * limit) {
                float scale = len2 > 0.0f ? limit / sqrtf(len2) : 0.0f;
                l1 *= scale;
                l2 *= scale;
            }
            float d1 = l1 - cp->tangent_impulse[0], d2 = l2 - cp->tangent_impulse[1];
            cp->tangent_impulse[0] = l1;
            cp->tangent_impulse[1] = l2;
            row_apply(A, B, &r->t1, c->t1, d1);
            row_apply(A, B, &r->t2, c->t2, d2);
        }
    }
}

vxk_status vxk_solve(const vxk_solve_input* in)
{
    vxk_dynamics* dyn = in->dyn;
    const vxk_dynamics_settings* set = &dyn->settings;
    uint32_t nb = in->moving_count;
    uint32_t point_total = 0;
    for (uint32_t i = 0; i < in->contact_count; ++i)
        point_total += in->contacts[i].point_count;
    solver_body* bodies =
        (solver_body*)vxk_arena_alloc(in->arena, sizeof(solver_body) * ((size_t)nb + 1));
    uint32_t* slot =
        (uint32_t*)vxk_arena_alloc(in->arena, sizeof(uint32_t) * ((size_t)dyn->ids.count + 1));
    constraint* cs = (constraint*)vxk_arena_alloc(in->arena, sizeof(constraint) *
                                                                 ((size_t)in->contact_count + 1));
    point_row* rows =
        (point_row*)vxk_arena_alloc(in->arena, sizeof(point_row) * ((size_t)point_total + 1));
    if (!bodies || !slot || !cs || !rows)
        return VXK_ERR_OUT_OF_MEMORY;
    const uint32_t static_slot = nb;
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        slot[i] = static_slot;
    const vxk_mat3 identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (uint32_t i = 0; i < nb; ++i) {
        const vxk_body* b = &dyn->bodies[in->moving[i]];
        solver_body* s = &bodies[i];
        slot[in->moving[i]] = i;
        s->v = b->v;
        s->w = b->w;
        s->dp = vxk_v3(0, 0, 0);
        s->q = s->q0 = b->pose.q;
        s->dr = identity;
        s->inv_mass = b->inv_mass;
        if (b->type == VXK_BODY_DYNAMIC) {
            vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
            vxk_mat3 ri = vxk_mat3_mul(&r, &b->inv_inertia);
            vxk_mat3 rt = vxk_mat3_transpose(&r);
            s->inv_i = vxk_mat3_mul(&ri, &rt);
        } else {
            memset(&s->inv_i, 0, sizeof(s->inv_i));
        }
    }
    solver_body* st = &bodies[static_slot];
    memset(st, 0, sizeof(*st));
    st->q = st->q0 = vxk_quat_identity();
    st->dr = identity;

    const uint32_t substeps = set->substeps;
    const float h = in->dt / (float)substeps;
    const float inv_h = h > 0.0f ? 1.0f / h : 0.0f;
    float hertz = fminf(set->contact_hertz, 0.25f * (float)substeps / fmaxf(in->dt, 1e-9f));
    softness soft = make_soft(hertz, set->contact_damping_ratio, h);
    softness static_soft = make_soft(2.0f * hertz, set->contact_damping_ratio, h);

    // Prepare: anchors from the centres of mass at the step's start, effective masses.
    uint32_t nc = 0, np = 0;
    for (uint32_t i = 0; i < in->contact_count; ++i) {
        vxk_contact* k = &in->contacts[i];
        constraint* c = &cs[nc++];
        c->a = k->terrain ? static_slot : slot[k->a];
        c->b = slot[k->b];
        c->first_point = np;
        c->point_count = k->point_count;
        c->normal = k->normal;
        tangents(k->normal, &c->t1, &c->t2);
        c->friction = k->friction;
        c->restitution = k->restitution;
        const solver_body* A = &bodies[c->a];
        const solver_body* B = &bodies[c->b];
        bool rigid_other = A->inv_mass == 0.0f || B->inv_mass == 0.0f;
        c->soft = rigid_other ? static_soft : soft;
        // The static body never moves, so its anchor delta is zero whatever ra is.
        vxk_vec3 ca = k->terrain ? vxk_v3(0, 0, 0) : dyn->bodies[k->a].pose.p;
        vxk_vec3 cb = dyn->bodies[k->b].pose.p;
        for (uint32_t p = 0; p < k->point_count; ++p) {
            vxk_contact_point_state* cp = &k->points[p];
            point_row* r = &rows[np++];
            r->state = cp;
            r->ra = vxk_v3_sub(cp->point, ca);
            r->rb = vxk_v3_sub(cp->point, cb);
            // The separation as a function of the anchors' motion: s = s0 + n . (dB - dA).
            r->separation = cp->separation;
            r->n = make_row(A, B, r->ra, r->rb, c->normal);
            r->t1 = make_row(A, B, r->ra, r->rb, c->t1);
            r->t2 = make_row(A, B, r->ra, r->rb, c->t2);
            cp->relative_velocity = row_velocity(A, B, &r->n, c->normal);
            cp->max_normal_impulse = 0.0f;
        }
    }

    const vxk_vec3 g = set->gravity;
    for (uint32_t sub = 0; sub < substeps; ++sub) {
        // Integrate velocities.
        for (uint32_t i = 0; i < nb; ++i) {
            const vxk_body* b = &dyn->bodies[in->moving[i]];
            if (b->type != VXK_BODY_DYNAMIC)
                continue;
            solver_body* s = &bodies[i];
            vxk_vec3 acc =
                vxk_v3_add(vxk_v3_scale(g, b->gravity_scale), vxk_v3_scale(b->force, b->inv_mass));
            s->v =
                vxk_v3_scale(vxk_v3_mul_add(s->v, h, acc), 1.0f / (1.0f + h * b->linear_damping));
            s->w = vxk_v3_scale(
                vxk_v3_add(s->w, vxk_v3_scale(vxk_mat3_mul_v(&s->inv_i, b->torque), h)),
                1.0f / (1.0f + h * b->angular_damping));
        }
        // Warm start.
        for (uint32_t i = 0; i < nc; ++i) {
            const constraint* c = &cs[i];
            solver_body* A = &bodies[c->a];
            solver_body* B = &bodies[c->b];
            for (uint32_t p = 0; p < c->point_count; ++p) {
                const point_row* r = &rows[c->first_point + p];
                const vxk_contact_point_state* cp = r->state;
                row_apply(A, B, &r->n, c->normal, cp->normal_impulse);
                row_apply(A, B, &r->t1, c->t1, cp->tangent_impulse[0]);
                row_apply(A, B, &r->t2, c->t2, cp->tangent_impulse[1]);
            }
        }
        solve_contacts(bodies, cs, nc, rows, inv_h, set->contact_push_speed, true);
        // Integrate positions.
        for (uint32_t i = 0; i < nb; ++i) {
            solver_body* s = &bodies[i];
            s->dp = vxk_v3_mul_add(s->dp, h, s->v);
            s->q = vxk_quat_integrate(s->q, s->w, h);
            s->dr = vxk_mat3_from_quat(vxk_quat_mul(s->q, vxk_quat_conj(s->q0)));
        }
        solve_contacts(bodies, cs, nc, rows, inv_h, set->contact_push_speed, false);
    }
    // Restitution: points that closed faster than the threshold and pushed bounce back. One pass
    // (as Box2D) leaves a flat-landing box spinning: the first point of a face takes the whole
    // bounce. A few Gauss-Seidel passes spread it over the face's points as a simultaneous
    // solve would.
    for (uint32_t iteration = 0; iteration < RESTITUTION_ITERATIONS; ++iteration)
        for (uint32_t i = 0; i < nc; ++i) {
            const constraint* c = &cs[i];
            if (c->restitution == 0.0f)
                continue;
            solver_body* A = &bodies[c->a];
            solver_body* B = &bodies[c->b];
            for (uint32_t p = 0; p < c->point_count; ++p) {
                const point_row* r = &rows[c->first_point + p];
                vxk_contact_point_state* cp = r->state;
                if (cp->relative_velocity > -set->restitution_threshold ||
                    cp->max_normal_impulse == 0.0f)
                    continue;
                float vn = row_velocity(A, B, &r->n, c->normal);
                float impulse = -r->n.mass * (vn + c->restitution * cp->relative_velocity);
                float next = max_f(cp->normal_impulse + impulse, 0.0f);
                impulse = next - cp->normal_impulse;
                cp->normal_impulse = next;
                row_apply(A, B, &r->n, c->normal, impulse);
            }
        }
    // Write back.
    for (uint32_t i = 0; i < nb; ++i) {
        vxk_body* b = &dyn->bodies[in->moving[i]];
        const solver_body* s = &bodies[i];
        b->pose.p = vxk_v3_add(b->pose.p, s->dp);
        b->pose.q = s->q;
        if (b->type == VXK_BODY_DYNAMIC) {
            b->v = s->v;
            b->w = s->w;
        }
    }
    return VXK_OK;
}
