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
// Data: per point, everything an iteration reads is precomputed at prepare (the lever arms
// crossed with the normal and tangents, and those mapped by the world inverse inertia), so an
// iteration is dot products and multiply-adds, with no matrix product.
//
// Order: the manifolds are graph-coloured in list order (constraint_graph.c, Box2D v3's rule): a
// colour holds no two manifolds sharing a dynamic body, so solving a colour's manifolds at once
// gives what solving them one by one would. Each colour is packed 8 manifolds to a batch and
// solved by the wide kernels (solver_wide.c: prepare, warm start, solve, relax, restitution),
// its batches as parallel pieces; colours run one after the other, then the overflow (what fit
// no colour) one manifold per batch, in list order, through the same kernels. The
// order is a function of the manifold list alone, so the results are the same bits for any
// worker count, and (exact IEEE operations only) for SIMD and scalar builds.
#include "constraint_graph.h"
#include "dynamics.h"
#include "solver_wide.h"

// Gauss-Seidel passes of the restitution solve.
#define RESTITUTION_ITERATIONS 4
// The persistent buffer of the dynamics (vxk_dynamics.scratch) that holds the wide batches;
// contacts.c uses the first six.
#define SOLVER_SCRATCH_BATCHES 7
// The distance (in linear slops) over which a speculative point's weight in the friction centre
// falls from 1 to almost 0 (Box3D's speculative distance).
#define SPECULATIVE_SLOPS 4.0f
// Wide batches per parallel piece.
#define BATCH_GRAIN 4

// What the solver keeps of a body besides its vxk_solver_state (read at integration only).
typedef struct solver_body {
    vxk_quat q;     // current rotation
    vxk_quat q0;    // rotation at the step's start
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

typedef struct constraint {
    uint32_t a, b; // solver body slots (the last slot is the static body)
    uint32_t point_count;
    vxk_vec3 normal, t1, t2;
    float inv_mass_a, inv_mass_b;
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

// The step's constraints and bodies as the passes see them.
typedef struct solve_ctx {
    vxk_solver_state* states; // nb + 2: the moving bodies, the static slot, a scratch slot
    vxk_wide_constraint* batches;
    // Colour c's batches: [start[c], start[c + 1]); the overflow (c = VXK_GRAPH_OVERFLOW) has one
    // manifold per batch, solved one after the other.
    uint32_t batch_start[VXK_GRAPH_COLORS + 2];
    vxk_wide_params params;
    vxk_jobs* jobs;
} solve_ctx;

typedef struct prepare_ctx {
    const vxk_dynamics* dyn;
    const solver_body* bodies;
    const vxk_solver_state* states;
    const uint32_t* slot; // by body index
    uint32_t static_slot;
    softness soft, static_soft;
} prepare_ctx;

// Constraint c of contact k (its points not yet).
static void prepare_constraint(const prepare_ctx* x, constraint* c, const vxk_contact* k)
{
    c->a = k->terrain ? x->static_slot : x->slot[k->a];
    c->b = x->slot[k->b];
    c->point_count = k->point_count;
    c->normal = k->normal;
    tangents(k->normal, &c->t1, &c->t2);
    c->friction = k->friction;
    c->restitution = k->restitution;
    c->inv_mass_a = x->bodies[c->a].inv_mass;
    c->inv_mass_b = x->bodies[c->b].inv_mass;
    bool rigid_other = c->inv_mass_a == 0.0f || c->inv_mass_b == 0.0f;
    c->soft = rigid_other ? x->static_soft : x->soft;
}

// Manifolds per batch: 8 in a colour, 1 in the overflow (its manifolds may share bodies).
static inline uint32_t lanes_of(uint32_t color)
{
    return color == VXK_GRAPH_OVERFLOW ? 1u : VXK_WIDE_LANES;
}

typedef enum pass_kind { PASS_WARM, PASS_SOLVE, PASS_RESTITUTION } pass_kind;

typedef struct pass_job {
    solve_ctx* ctx;
    vxk_wide_constraint* first;
    pass_kind kind;
} pass_job;

static void run_batches(solve_ctx* ctx, vxk_wide_constraint* first, uint32_t count, pass_kind kind)
{
    for (uint32_t i = 0; i < count; ++i) {
        vxk_wide_constraint* w = &first[i];
        if (kind == PASS_WARM)
            vxk_wide_warm_start(ctx->states, w);
        else if (kind == PASS_SOLVE)
            vxk_wide_solve(ctx->states, w, &ctx->params);
        else if (w->has_restitution)
            vxk_wide_restitution(ctx->states, w, &ctx->params);
    }
}

static void pass_range(void* vjob, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    pass_job* job = (pass_job*)vjob;
    run_batches(job->ctx, job->first + begin, end - begin, job->kind);
}

// One pass over every constraint: the colours in order (each colour's batches in parallel
// pieces: they share no dynamic body), then the overflow in list order, through the same
// kernels.
static void run_pass(solve_ctx* ctx, pass_kind kind)
{
    for (uint32_t c = 0; c < VXK_GRAPH_COLORS; ++c) {
        uint32_t count = ctx->batch_start[c + 1] - ctx->batch_start[c];
        vxk_wide_constraint* first = ctx->batches + ctx->batch_start[c];
        if (count <= BATCH_GRAIN || !ctx->jobs) {
            run_batches(ctx, first, count, kind);
        } else {
            pass_job job = {ctx, first, kind};
            vxk_parallel_for(ctx->jobs, "solve_colour", count, BATCH_GRAIN, pass_range, &job);
        }
    }
    // The overflow: one-lane batches, in list order (they may share bodies).
    run_batches(ctx, ctx->batches + ctx->batch_start[VXK_GRAPH_OVERFLOW],
                ctx->batch_start[VXK_GRAPH_OVERFLOW + 1] - ctx->batch_start[VXK_GRAPH_OVERFLOW],
                kind);
}

static void pack3(float (*dst)[VXK_WIDE_LANES], uint32_t lane, vxk_vec3 v)
{
    dst[0][lane] = v.x;
    dst[1][lane] = v.y;
    dst[2][lane] = v.z;
}

// Lane `lane` of w = constraint c, but for its points (pack_point).
static void pack_lane(vxk_wide_constraint* w, uint32_t lane, const constraint* c, bool dynamic_a,
                      bool dynamic_b)
{
    w->a[lane] = c->a;
    w->b[lane] = c->b;
    w->write_a |= (uint32_t)dynamic_a << lane;
    w->write_b |= (uint32_t)dynamic_b << lane;
    w->inv_mass_a[lane] = c->inv_mass_a;
    w->inv_mass_b[lane] = c->inv_mass_b;
    pack3(w->normal, lane, c->normal);
    pack3(w->t1, lane, c->t1);
    pack3(w->t2, lane, c->t2);
    w->friction[lane] = c->friction;
    w->restitution[lane] = c->restitution;
    w->has_restitution |= c->restitution != 0.0f;
    w->bias_rate[lane] = c->soft.bias_rate;
    w->mass_scale[lane] = c->soft.mass_scale;
    w->impulse_scale[lane] = c->soft.impulse_scale;
    if (c->point_count > w->point_count)
        w->point_count = c->point_count;
}

static vxk_vec3 unpack3(const float (*src)[VXK_WIDE_LANES], uint32_t lane)
{
    return vxk_v3(src[0][lane], src[1][lane], src[2][lane]);
}

static void unpack_lane(const vxk_wide_constraint* w, uint32_t lane, vxk_contact* k)
{
    // The friction impulse as a world vector: the next step's tangents may differ.
    k->friction_impulse =
        vxk_v3_add(vxk_v3_scale(unpack3(w->t1, lane), w->friction_impulse[0][lane]),
                   vxk_v3_scale(unpack3(w->t2, lane), w->friction_impulse[1][lane]));
    k->twist_impulse = w->twist_impulse[lane];
    for (uint32_t p = 0; p < k->point_count; ++p) {
        vxk_contact_point_state* cp = &k->points[p];
        const vxk_wide_point* wp = &w->points[p];
        cp->normal_impulse = wp->normal_impulse[lane];
        cp->max_normal_impulse = wp->max_normal_impulse[lane];
        cp->relative_velocity = wp->relative_velocity[lane];
    }
}

// Whether some point of a prepared batch closes faster than the restitution threshold on a
// lane with restitution: the restitution passes skip the other batches (their impulses would
// all be zero), which is every batch of a scene at rest.
static uint32_t batch_may_bounce(const vxk_wide_constraint* w, float threshold)
{
    for (uint32_t p = 0; p < w->point_count; ++p)
        for (uint32_t l = 0; l < w->lane_count; ++l)
            if ((w->point_lanes[p] >> l & 1u) && w->restitution[l] != 0.0f &&
                !(w->points[p].relative_velocity[l] > -threshold))
                return 1;
    return 0;
}

vxk_status vxk_solve(const vxk_solve_input* in)
{
    vxk_dynamics* dyn = in->dyn;
    const vxk_dynamics_settings* set = &dyn->settings;
    uint32_t nb = in->moving_count;
    uint32_t nc = in->contact_count;
    solver_body* bodies =
        (solver_body*)vxk_arena_alloc(in->arena, sizeof(solver_body) * ((size_t)nb + 2));
    vxk_solver_state* states =
        (vxk_solver_state*)vxk_arena_alloc(in->arena, sizeof(vxk_solver_state) * ((size_t)nb + 2));
    uint32_t* slot =
        (uint32_t*)vxk_arena_alloc(in->arena, sizeof(uint32_t) * ((size_t)dyn->ids.count + 1));
    uint32_t* color_a = (uint32_t*)vxk_arena_alloc(in->arena, sizeof(uint32_t) * ((size_t)nc + 1));
    uint32_t* color_b = (uint32_t*)vxk_arena_alloc(in->arena, sizeof(uint32_t) * ((size_t)nc + 1));
    vxk_mat3* inv_i = (vxk_mat3*)vxk_arena_alloc(in->arena, sizeof(vxk_mat3) * ((size_t)nb + 2));
    if (!bodies || !states || !slot || !color_a || !color_b || !inv_i)
        return VXK_ERR_OUT_OF_MEMORY;
    const uint32_t static_slot = nb;
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        slot[i] = static_slot;
    const vxk_mat3 identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (uint32_t i = 0; i < nb; ++i) {
        const vxk_body* b = &dyn->bodies[in->moving[i]];
        solver_body* s = &bodies[i];
        vxk_solver_state* st = &states[i];
        slot[in->moving[i]] = i;
        memset(st, 0, sizeof(*st));
        st->v = b->v;
        st->w = b->w;
        st->dr = identity;
        s->q = s->q0 = b->pose.q;
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
    // The static slot, and a scratch slot the empty lanes of a batch point at.
    for (uint32_t i = nb; i < nb + 2; ++i) {
        memset(&bodies[i], 0, sizeof(bodies[i]));
        bodies[i].q = bodies[i].q0 = vxk_quat_identity();
        memset(&states[i], 0, sizeof(states[i]));
        states[i].dr = identity;
    }

    for (uint32_t i = 0; i < nb + 2; ++i)
        inv_i[i] = bodies[i].inv_i;

    const uint32_t substeps = set->substeps;
    const float h = in->dt / (float)substeps;
    const float inv_h = h > 0.0f ? 1.0f / h : 0.0f;
    float hertz = fminf(set->contact_hertz, 0.25f * (float)substeps / fmaxf(in->dt, 1e-9f));
    softness soft = make_soft(hertz, set->contact_damping_ratio, h);
    softness static_soft = make_soft(2.0f * hertz, set->contact_damping_ratio, h);
    const float speculative_distance = SPECULATIVE_SLOPS * set->linear_slop;

    // Colour: by the bodies' slots, dynamic ones only.
    prepare_ctx prep = {dyn, bodies, states, slot, static_slot, soft, static_soft};
    for (uint32_t i = 0; i < nc; ++i) {
        const vxk_contact* k = &in->contacts[i];
        uint32_t a = k->terrain ? static_slot : slot[k->a], b = slot[k->b];
        bool dynamic_a = a != static_slot && dyn->bodies[in->moving[a]].type == VXK_BODY_DYNAMIC;
        bool dynamic_b = b != static_slot && dyn->bodies[in->moving[b]].type == VXK_BODY_DYNAMIC;
        color_a[i] = dynamic_a ? a : VXK_GRAPH_NO_BODY;
        color_b[i] = dynamic_b ? b : VXK_GRAPH_NO_BODY;
    }
    vxk_graph_coloring coloring;
    vxk_status status = vxk_graph_color(&coloring, color_a, color_b, nc, nb, in->arena);
    if (status != VXK_OK)
        return status;
    solve_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    uint32_t batch_count = 0;
    for (uint32_t c = 0; c <= VXK_GRAPH_OVERFLOW; ++c) {
        ctx.batch_start[c] = batch_count;
        uint32_t n = coloring.start[c + 1] - coloring.start[c], lanes = lanes_of(c);
        batch_count += (n + lanes - 1) / lanes;
    }
    ctx.batch_start[VXK_GRAPH_OVERFLOW + 1] = batch_count;
    // The batches live in a persistent buffer of the dynamics (a steady run allocates nothing,
    // and their pages stay mapped: as arena memory they would be fresh pages whenever the step
    // arena grows).
    if (vxk_dynamics_reserve(&dyn->scratch[SOLVER_SCRATCH_BATCHES],
                             &dyn->scratch_bytes[SOLVER_SCRATCH_BATCHES],
                             sizeof(vxk_wide_constraint) * ((size_t)batch_count + 1)) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    ctx.batches = (vxk_wide_constraint*)dyn->scratch[SOLVER_SCRATCH_BATCHES];
    // Prepare and pack: colour c's constraints, in list order, 8 to a batch (the overflow's one),
    // straight into the batch (zeroed just before, while it is in cache).
    const uint32_t scratch_slot = nb + 1;
    for (uint32_t c = 0; c <= VXK_GRAPH_OVERFLOW; ++c) {
        const uint32_t lanes = lanes_of(c);
        for (uint32_t k = coloring.start[c]; k < coloring.start[c + 1]; ++k) {
            uint32_t j = k - coloring.start[c];
            vxk_wide_constraint* w = &ctx.batches[ctx.batch_start[c] + j / lanes];
            uint32_t lane = j % lanes;
            if (lane == 0) {
                // Zero what the kernels read: the header and the points up to the batch's most.
                uint32_t most = 0;
                for (uint32_t l = k; l < k + lanes && l < coloring.start[c + 1]; ++l)
                    most = most > in->contacts[coloring.order[l]].point_count
                               ? most
                               : in->contacts[coloring.order[l]].point_count;
                memset(w, 0, offsetof(vxk_wide_constraint, points) + sizeof(vxk_wide_point) * most);
                for (uint32_t l = 0; l < VXK_WIDE_LANES; ++l)
                    w->a[l] = w->b[l] = scratch_slot;
            }
            uint32_t ci = coloring.order[k];
            constraint prepared;
            constraint* con = &prepared;
            vxk_contact* contact = &in->contacts[ci];
            prepare_constraint(&prep, con, contact);
            pack_lane(w, lane, con, color_a[ci] != VXK_GRAPH_NO_BODY,
                      color_b[ci] != VXK_GRAPH_NO_BODY);
            for (uint32_t p = 0; p < con->point_count; ++p) {
                vxk_contact_point_state* cp = &contact->points[p];
                vxk_wide_point* wp = &w->points[p];
                pack3(wp->ra, lane, cp->anchor_a);
                pack3(wp->rb, lane, cp->anchor_b);
                wp->separation[lane] = cp->separation;
                wp->normal_impulse[lane] = cp->normal_impulse;
                w->point_lanes[p] |= 1u << lane;
            }
            w->friction_impulse[0][lane] = vxk_v3_dot(contact->friction_impulse, con->t1);
            w->friction_impulse[1][lane] = vxk_v3_dot(contact->friction_impulse, con->t2);
            w->twist_impulse[lane] = contact->twist_impulse;
            w->lane_count = lane + 1;
            // The axes and relative velocities of a full batch, 8 lanes at a time.
            if (lane == lanes - 1 || k + 1 == coloring.start[c + 1]) {
                vxk_wide_prepare(w, states, inv_i, speculative_distance);
                w->has_restitution = batch_may_bounce(w, set->restitution_threshold);
            }
        }
    }
    ctx.states = states;
    ctx.jobs = dyn->world ? dyn->world->jobs : NULL;
    ctx.params.inv_h = inv_h;
    ctx.params.push_speed = set->contact_push_speed;
    ctx.params.restitution_threshold = set->restitution_threshold;
    ctx.params.reverse = false;

    const vxk_vec3 g = set->gravity;
    for (uint32_t sub = 0; sub < substeps; ++sub) {
        // Integrate velocities.
        for (uint32_t i = 0; i < nb; ++i) {
            const vxk_body* b = &dyn->bodies[in->moving[i]];
            if (b->type != VXK_BODY_DYNAMIC)
                continue;
            vxk_solver_state* s = &states[i];
            vxk_vec3 acc =
                vxk_v3_add(vxk_v3_scale(g, b->gravity_scale), vxk_v3_scale(b->force, b->inv_mass));
            s->v =
                vxk_v3_scale(vxk_v3_mul_add(s->v, h, acc), 1.0f / (1.0f + h * b->linear_damping));
            s->w = vxk_v3_scale(
                vxk_v3_add(s->w, vxk_v3_scale(vxk_mat3_mul_v(&bodies[i].inv_i, b->torque), h)),
                1.0f / (1.0f + h * b->angular_damping));
        }
        run_pass(&ctx, PASS_WARM);
        ctx.params.use_bias = true;
        ctx.params.reverse = (sub & 1u) != 0;
        run_pass(&ctx, PASS_SOLVE);
        // Integrate positions.
        for (uint32_t i = 0; i < nb; ++i) {
            vxk_solver_state* st = &states[i];
            solver_body* s = &bodies[i];
            st->dp = vxk_v3_mul_add(st->dp, h, st->v);
            s->q = vxk_quat_integrate(s->q, st->w, h);
            st->dr = vxk_mat3_from_quat(vxk_quat_mul(s->q, vxk_quat_conj(s->q0)));
        }
        ctx.params.use_bias = false;
        ctx.params.reverse = (sub & 1u) == 0;
        run_pass(&ctx, PASS_SOLVE);
    }
    // Restitution: points that closed faster than the threshold and pushed bounce back. One pass
    // (as Box2D) leaves a flat-landing box spinning: the first point of a face takes the whole
    // bounce. A few Gauss-Seidel passes spread it over the face's points as a simultaneous
    // solve would.
    for (uint32_t iteration = 0; iteration < RESTITUTION_ITERATIONS; ++iteration)
        run_pass(&ctx, PASS_RESTITUTION);
    // The impulses back into the manifolds.
    for (uint32_t c = 0; c <= VXK_GRAPH_OVERFLOW; ++c)
        for (uint32_t k = coloring.start[c]; k < coloring.start[c + 1]; ++k) {
            uint32_t j = k - coloring.start[c];
            unpack_lane(&ctx.batches[ctx.batch_start[c] + j / lanes_of(c)], j % lanes_of(c),
                        &in->contacts[coloring.order[k]]);
        }
    // Write back.
    for (uint32_t i = 0; i < nb; ++i) {
        vxk_body* b = &dyn->bodies[in->moving[i]];
        const vxk_solver_state* s = &states[i];
        b->pose.p = vxk_v3_add(b->pose.p, s->dp);
        b->pose.q = bodies[i].q;
        if (b->type == VXK_BODY_DYNAMIC) {
            b->v = s->v;
            b->w = s->w;
        }
    }
    return VXK_OK;
}
