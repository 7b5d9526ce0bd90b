// solver.c: the contact solver, Box2D v3's soft step in 3D (docs/architecture.md, "Solver"),
// over islands solved as jobs.
//
// Per step: contacts are prepared once (anchors, effective masses, the separation at the
// step's start); then each of `substeps` substeps integrates velocities (gravity, forces,
// damping), warm starts, solves the contacts with soft constraints (a spring-damper of
// contact_hertz and contact_damping_ratio pushing overlap out at most at contact_push_speed),
// integrates positions, and relaxes (the same solve without the push, so the push adds no
// energy; friction is solved here); after the substeps restitution is applied and the impulses
// are stored for the next step's warm start. The separation of each point is updated within the
// step from the bodies' position and rotation deltas, so the substeps see their own motion
// without a new collision pass; a positive separation is a speculative point, which only stops
// the approach so that the surfaces just meet.
//
// Islands and jobs. The dynamic bodies linked by manifolds form islands (island.c). Small
// islands are packed, in island order, into bundles of at least BUNDLE_MANIFOLDS manifolds, and
// each bundle runs its whole step (every substep) as one job over its own compact copies of its
// bodies: no barrier between substeps, and the working set of a job fits the cache. A kinematic
// body that a bundle touches gets a private copy there, integrated by the same formula in every
// copy. An island with more than LARGE_ISLAND manifolds (a pile of thousands of boxes) is solved
// on its own with its colours' batches spread over every worker, colour after colour.
//
// Order: a bundle's manifolds are graph-coloured in list order (constraint_graph.c, Box2D v3's
// rule): a colour holds no two manifolds sharing a dynamic body, so solving a colour's manifolds
// at once gives what solving them one by one would. A manifold's colour depends only on the
// manifolds before it that share its bodies, all in its own island, so it is the same whatever
// the bundling; each colour is packed 8 manifolds to a batch and solved by the wide kernels
// (solver_wide.c), and a lane's result does not depend on its batch. Then the overflow (what fit
// no colour), one manifold per batch, in list order. So the results are the same bits for any
// bundling, any worker count and, with exact IEEE operations only, SIMD and scalar builds.
#include "constraint_graph.h"
#include "dynamics.h"
#include "island.h"
#include "sleep.h"
#include "solver_wide.h"

#include <float.h>

// Gauss-Seidel passes of the restitution solve.
// The persistent buffers of the dynamics (vxk_dynamics.scratch) the solver uses; contacts.c uses
// the first five.
#define RESTITUTION_ITERATIONS 4
#define SOLVER_SCRATCH_WORK 6
#define SOLVER_SCRATCH_BATCHES 7
// The distance (in linear slops) over which a speculative point's weight in the friction centre
// falls from 1 to almost 0 (Box3D's speculative distance).
#define SPECULATIVE_SLOPS 4.0f
// Bundles: small islands in island order until settings.bundle_manifolds manifolds
// (VXK_SOLVER_BUNDLE_MANIFOLDS by default) or BUNDLE_BODIES bodies; an island with more than
// settings.large_island manifolds (VXK_SOLVER_LARGE_ISLAND) is solved alone, its colours spread
// over the workers.
#define BUNDLE_BODIES 256
// Wide batches per parallel piece, bodies per integration piece (large islands).
#define BATCH_GRAIN 4
#define BODY_GRAIN 256

// What the solver keeps of a body besides its vxk_solver_state (read at integration only).
typedef struct solver_body {
    vxk_quat q;         // current rotation
    vxk_quat q0;        // rotation at the step's start
    vxk_vec3 dv, dw;    // velocity change per substep: h (g s + F / m), h I^-1 torque
    float linear_damp;  // 1 / (1 + h c)
    float angular_damp; // 1 / (1 + h c)
    float inv_mass;
    uint32_t body;    // body index; UINT32_MAX for the static and scratch slots
    uint32_t dynamic; // its velocities are integrated and solved
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

// An orthonormal pair perpendicular to unit n (branch-free construction of Duff et al.).
static void tangents(vxk_vec3 n, vxk_vec3* t1, vxk_vec3* t2)
{
    float sign = copysignf(1.0f, n.z);
    float a = -1.0f / (sign + n.z);
    float b = n.x * n.y * a;
    *t1 = vxk_v3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
    *t2 = vxk_v3(b, sign + n.y * n.y * a, -n.y);
}

// A bundle: consecutive islands solved together, on local slots: its dynamic bodies (in island
// order), then copies of the kinematic bodies its manifolds touch (first touch first), then the
// static slot and a scratch slot the empty lanes point at.
typedef struct bundle {
    uint32_t island_begin, island_end;
    uint32_t body_begin, body_count;         // range of islands.bodies (dynamic slots)
    uint32_t manifold_begin, manifold_count; // range of islands.manifolds
    uint32_t local_capacity;                 // slots reserved
    uint32_t local_count;                    // slots used (phase B)
    uint32_t kinematic_count;
    uint32_t static_slot, scratch_slot;
    bool large;
    size_t work_offset;
    uint32_t batch_offset, batch_count;
    uint32_t batch_start[VXK_GRAPH_COLORS + 2]; // per colour, local batch index
    vxk_graph_coloring coloring;
    // Working memory (phase B on), in the work buffer.
    vxk_solver_state* states;
    solver_body* bodies;
    vxk_mat3* inv_i;
    uint32_t* global; // local slot -> global slot
    uint32_t* ma;     // per manifold: the local slots of its two ends
    uint32_t* mb;
    uint32_t* ca; // colouring inputs: local dynamic slot or VXK_GRAPH_NO_BODY
    uint32_t* cb;
    uint64_t* sets;
    uint32_t* order;
    uint8_t* color;
    uint8_t* points; // per manifold: its point count (read once, in list order)
} bundle;

// The step as every bundle sees it.
typedef struct solve_ctx {
    vxk_dynamics* dyn;
    vxk_contact* contacts;
    const uint32_t* moving; // global slot -> body index
    const uint32_t* end_a;  // per contact: global slot of end a (static_slot: none)
    const uint32_t* end_b;  // per contact: global slot of end b
    uint32_t* local_of;     // global dynamic slot -> local slot in its bundle
    const vxk_islands* islands;
    bundle* bundles;
    uint32_t bundle_count;
    uint8_t* work;
    vxk_wide_constraint* batches;
    uint32_t global_static;
    uint32_t substeps;
    float h, inv_h, speculative_distance, restitution_threshold, push_speed;
    float slop; // the linear slop: a manifold with a point within it touches
    vxk_vec3 gravity;
    softness soft, static_soft;
    vxk_jobs* jobs;
    float dt;
    uint8_t* sleepy; // per island: it falls asleep after this step
} solve_ctx;

// ---- setup -----------------------------------------------------------------------------------

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

static size_t bundle_work_bytes(uint32_t local_capacity, uint32_t manifolds)
{
    size_t m = (size_t)manifolds + 1, l = (size_t)local_capacity;
    return align64(sizeof(vxk_solver_state) * l) + align64(sizeof(solver_body) * l) +
           align64(sizeof(vxk_mat3) * l) + align64(sizeof(uint32_t) * l) +
           4 * align64(sizeof(uint32_t) * m) +
           align64(sizeof(uint64_t) * vxk_graph_set_words(local_capacity)) +
           align64(sizeof(uint32_t) * m) + 2 * align64(m);
}

static void* take(uint8_t** cursor, size_t bytes)
{
    void* p = *cursor;
    *cursor += align64(bytes);
    return p;
}

// The solver's copy of body index `body` (NULL: the static or scratch slot).
static void init_slot(const solve_ctx* x, vxk_solver_state* st, solver_body* s, vxk_mat3* inv_i,
                      const vxk_body* b, uint32_t body)
{
    const vxk_mat3 identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memset(st, 0, sizeof(*st));
    memset(s, 0, sizeof(*s));
    st->dr = identity;
    s->body = body;
    if (!b) {
        s->q = s->q0 = vxk_quat_identity();
        memset(inv_i, 0, sizeof(*inv_i));
        return;
    }
    st->v = b->v;
    st->w = b->w;
    s->q = s->q0 = b->pose.q;
    s->inv_mass = b->inv_mass;
    s->dynamic = b->type == VXK_BODY_DYNAMIC;
    if (!s->dynamic) {
        memset(inv_i, 0, sizeof(*inv_i));
        return;
    }
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    vxk_mat3 ri = vxk_mat3_mul(&r, &b->inv_inertia);
    vxk_mat3 rt = vxk_mat3_transpose(&r);
    *inv_i = vxk_mat3_mul(&ri, &rt);
    vxk_vec3 acc =
        vxk_v3_add(vxk_v3_scale(x->gravity, b->gravity_scale), vxk_v3_scale(b->force, b->inv_mass));
    s->dv = vxk_v3_scale(acc, x->h);
    s->dw = vxk_v3_scale(vxk_mat3_mul_v(inv_i, b->torque), x->h);
    s->linear_damp = 1.0f / (1.0f + x->h * b->linear_damping);
    s->angular_damp = 1.0f / (1.0f + x->h * b->angular_damping);
}

// The local slot of global slot g in bundle k (a dynamic body of its own, or a kinematic copy,
// added on first use; the static slot for g == the global static slot).
static uint32_t local_slot(const solve_ctx* x, bundle* k, uint32_t g)
{
    if (g == x->global_static)
        return k->static_slot;
    const vxk_body* b = &x->dyn->bodies[x->moving[g]];
    if (b->type == VXK_BODY_DYNAMIC)
        return x->local_of[g];
    for (uint32_t i = 0; i < k->kinematic_count; ++i)
        if (k->global[k->body_count + i] == g)
            return k->body_count + i;
    uint32_t s = k->body_count + k->kinematic_count++;
    k->global[s] = g;
    return s;
}

// Phase B of a bundle: local slots, the colouring and the batch count.
static void setup_bundle(const solve_ctx* x, bundle* k)
{
    uint8_t* cursor = x->work + k->work_offset;
    size_t l = k->local_capacity, m = (size_t)k->manifold_count + 1;
    k->states = (vxk_solver_state*)take(&cursor, sizeof(vxk_solver_state) * l);
    k->bodies = (solver_body*)take(&cursor, sizeof(solver_body) * l);
    k->inv_i = (vxk_mat3*)take(&cursor, sizeof(vxk_mat3) * l);
    k->global = (uint32_t*)take(&cursor, sizeof(uint32_t) * l);
    k->ma = (uint32_t*)take(&cursor, sizeof(uint32_t) * m);
    k->mb = (uint32_t*)take(&cursor, sizeof(uint32_t) * m);
    k->ca = (uint32_t*)take(&cursor, sizeof(uint32_t) * m);
    k->cb = (uint32_t*)take(&cursor, sizeof(uint32_t) * m);
    k->sets = (uint64_t*)take(&cursor, sizeof(uint64_t) * vxk_graph_set_words(k->local_capacity));
    k->order = (uint32_t*)take(&cursor, sizeof(uint32_t) * m);
    k->color = (uint8_t*)take(&cursor, m);
    k->points = (uint8_t*)take(&cursor, m);
    const uint32_t* bodies = x->islands->bodies + k->body_begin;
    for (uint32_t i = 0; i < k->body_count; ++i) {
        k->global[i] = bodies[i];
        x->local_of[bodies[i]] = i;
    }
    k->kinematic_count = 0;
    // Kinematic copies may be added up to the capacity less the static and scratch slots.
    k->static_slot = k->local_capacity - 2;
    k->scratch_slot = k->local_capacity - 1;
    const uint32_t* list = x->islands->manifolds + k->manifold_begin;
    for (uint32_t i = 0; i < k->manifold_count; ++i) {
        uint32_t ci = list[i];
        k->points[i] = (uint8_t)x->contacts[ci].point_count;
        k->ma[i] = local_slot(x, k, x->end_a[ci]);
        k->mb[i] = local_slot(x, k, x->end_b[ci]);
        k->ca[i] = k->ma[i] < k->body_count ? k->ma[i] : VXK_GRAPH_NO_BODY;
        k->cb[i] = k->mb[i] < k->body_count ? k->mb[i] : VXK_GRAPH_NO_BODY;
    }
    // Compact: the static and scratch slots right after the kinematic copies.
    k->static_slot = k->body_count + k->kinematic_count;
    k->scratch_slot = k->static_slot + 1;
    k->local_count = k->scratch_slot + 1;
    for (uint32_t i = 0; i < k->manifold_count; ++i) {
        if (k->ma[i] == k->local_capacity - 2)
            k->ma[i] = k->static_slot;
        if (k->mb[i] == k->local_capacity - 2)
            k->mb[i] = k->static_slot;
    }
    vxk_graph_color_into(&k->coloring, k->ca, k->cb, k->manifold_count, k->body_count, k->sets,
                         k->order, k->color);
    // Within a colour, manifolds with more points first (stable): a batch loops over its
    // lanes' most points, so mixing 1-point spheres with 4-point boxes wastes lanes. A lane's
    // result does not depend on its batch, so this changes no bit of the result.
    uint32_t* sorted = k->ca; // the colouring inputs are no longer needed
    for (uint32_t c = 0; c < VXK_GRAPH_OVERFLOW; ++c) {
        uint32_t begin = k->coloring.start[c], end = k->coloring.start[c + 1], n = begin;
        for (int points = VXK_MANIFOLD_POINTS; points >= 0; --points)
            for (uint32_t i = begin; i < end; ++i)
                if ((int)k->points[k->order[i]] == points)
                    sorted[n++] = k->order[i];
        memcpy(k->order + begin, sorted + begin, sizeof(uint32_t) * (end - begin));
    }
    uint32_t batches = 0;
    for (uint32_t c = 0; c <= VXK_GRAPH_OVERFLOW; ++c) {
        k->batch_start[c] = batches;
        uint32_t n = k->coloring.start[c + 1] - k->coloring.start[c];
        uint32_t lanes = c == VXK_GRAPH_OVERFLOW ? 1u : VXK_WIDE_LANES;
        batches += (n + lanes - 1) / lanes;
    }
    k->batch_start[VXK_GRAPH_OVERFLOW + 1] = batches;
    k->batch_count = batches;
}

static void setup_range(void* vctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const solve_ctx* x = (const solve_ctx*)vctx;
    for (uint32_t i = begin; i < end; ++i)
        setup_bundle(x, &x->bundles[i]);
}

// ---- passes ----------------------------------------------------------------------------------

typedef enum pass_kind { PASS_WARM, PASS_SOLVE, PASS_RESTITUTION } pass_kind;

typedef struct pass_job {
    vxk_solver_state* states;
    vxk_wide_constraint* first;
    const vxk_wide_params* params;
    pass_kind kind;
} pass_job;

static void run_batches(const pass_job* job, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; ++i) {
        vxk_wide_constraint* w = &job->first[i];
        if (job->kind == PASS_WARM)
            vxk_wide_warm_start(job->states, w);
        else if (job->kind == PASS_SOLVE)
            vxk_wide_solve(job->states, w, job->params);
        else if (w->has_restitution)
            vxk_wide_restitution(job->states, w, job->params);
    }
}

static void pass_range(void* vjob, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    run_batches((const pass_job*)vjob, begin, end);
}

// One pass over a bundle's constraints: the colours in order (a large bundle's colours in
// parallel pieces: they share no dynamic body), then the overflow in list order, through the same
// kernels.
static void run_pass(const solve_ctx* x, const bundle* k, vxk_jobs* jobs, pass_kind kind,
                     const vxk_wide_params* params)
{
    vxk_wide_constraint* batches = x->batches + k->batch_offset;
    for (uint32_t c = 0; c <= VXK_GRAPH_OVERFLOW; ++c) {
        uint32_t count = k->batch_start[c + 1] - k->batch_start[c];
        pass_job job = {k->states, batches + k->batch_start[c], params, kind};
        if (jobs && c != VXK_GRAPH_OVERFLOW && count > BATCH_GRAIN)
            vxk_parallel_for(jobs, "solve_colour", count, BATCH_GRAIN, pass_range, &job);
        else
            run_batches(&job, 0, count);
    }
}

typedef struct integrate_job {
    vxk_solver_state* states;
    solver_body* bodies;
    float h;
    bool positions;
} integrate_job;

static void integrate(const integrate_job* job, uint32_t begin, uint32_t end)
{
    for (uint32_t i = begin; i < end; ++i) {
        vxk_solver_state* st = &job->states[i];
        solver_body* s = &job->bodies[i];
        if (job->positions) {
            st->dp = vxk_v3_mul_add(st->dp, job->h, st->v);
            s->q = vxk_quat_integrate(s->q, st->w, job->h);
            st->dr = vxk_mat3_from_quat(vxk_quat_mul(s->q, vxk_quat_conj(s->q0)));
        } else if (s->dynamic) {
            st->v = vxk_v3_scale(vxk_v3_add(st->v, s->dv), s->linear_damp);
            st->w = vxk_v3_scale(vxk_v3_add(st->w, s->dw), s->angular_damp);
        }
    }
}

static void integrate_range(void* vjob, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    integrate((const integrate_job*)vjob, begin, end);
}

static void integrate_bundle(const bundle* k, vxk_jobs* jobs, float h, bool positions)
{
    // Positions: the dynamic bodies and the kinematic copies; velocities: the dynamic ones.
    uint32_t count = positions ? k->body_count + k->kinematic_count : k->body_count;
    integrate_job job = {k->states, k->bodies, h, positions};
    if (jobs && count > BODY_GRAIN)
        vxk_parallel_for(jobs, "integrate", count, BODY_GRAIN, integrate_range, &job);
    else
        integrate(&job, 0, count);
}

// ---- packing ---------------------------------------------------------------------------------

static void pack3(float (*dst)[VXK_WIDE_LANES], uint32_t lane, vxk_vec3 v)
{
    dst[0][lane] = v.x;
    dst[1][lane] = v.y;
    dst[2][lane] = v.z;
}

static vxk_vec3 unpack3(const float (*src)[VXK_WIDE_LANES], uint32_t lane)
{
    return vxk_v3(src[0][lane], src[1][lane], src[2][lane]);
}

// Lane `lane` of w = contact k on local slots a, b.
static void pack_lane(const solve_ctx* x, const bundle* kb, vxk_wide_constraint* w, uint32_t lane,
                      const vxk_contact* k, uint32_t a, uint32_t b)
{
    w->a[lane] = a;
    w->b[lane] = b;
    w->write_a |= (uint32_t)(a < kb->body_count) << lane;
    w->write_b |= (uint32_t)(b < kb->body_count) << lane;
    float ima = kb->bodies[a].inv_mass, imb = kb->bodies[b].inv_mass;
    w->inv_mass_a[lane] = ima;
    w->inv_mass_b[lane] = imb;
    vxk_vec3 t1, t2;
    tangents(k->normal, &t1, &t2);
    pack3(w->normal, lane, k->normal);
    pack3(w->t1, lane, t1);
    pack3(w->t2, lane, t2);
    w->friction[lane] = k->friction;
    w->restitution[lane] = k->restitution;
    softness soft = ima == 0.0f || imb == 0.0f ? x->static_soft : x->soft;
    w->bias_rate[lane] = soft.bias_rate;
    w->mass_scale[lane] = soft.mass_scale;
    w->impulse_scale[lane] = soft.impulse_scale;
    w->radius_a[lane] = k->terrain ? 0.0f : x->dyn->bodies[k->a].radius;
    w->radius_b[lane] = x->dyn->bodies[k->b].radius;
    w->has_round |= w->radius_a[lane] != 0.0f || w->radius_b[lane] != 0.0f;
    if (k->point_count > w->point_count)
        w->point_count = k->point_count;
    for (uint32_t p = 0; p < k->point_count; ++p) {
        const vxk_contact_point_state* cp = &k->points[p];
        vxk_wide_point* wp = &w->points[p];
        pack3(wp->ra, lane, cp->anchor_a);
        pack3(wp->rb, lane, cp->anchor_b);
        wp->separation[lane] = cp->separation;
        wp->normal_impulse[lane] = cp->normal_impulse;
        w->point_lanes[p] |= 1u << lane;
    }
    w->friction_impulse[0][lane] = vxk_v3_dot(k->friction_impulse, t1);
    w->friction_impulse[1][lane] = vxk_v3_dot(k->friction_impulse, t2);
    w->twist_impulse[lane] = k->twist_impulse;
    w->lane_count = lane + 1;
}

// Also decides whether the manifold touches (a point within the slop or one that pushed), here
// where its points are at hand rather than in a pass of its own over every manifold.
static void unpack_lane(const vxk_wide_constraint* w, uint32_t lane, vxk_contact* k, float slop)
{
    uint8_t touching = 0;
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
        touching |= cp->separation < slop || cp->max_normal_impulse > 0.0f;
    }
    k->touching = touching;
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

// The manifolds of batch `index` of a bundle: order entries [*first, *end) of its colour.
static void batch_range(const bundle* k, uint32_t index, uint32_t* first, uint32_t* end)
{
    uint32_t c = 0;
    while (k->batch_start[c + 1] <= index)
        c++;
    const uint32_t lanes = c == VXK_GRAPH_OVERFLOW ? 1u : VXK_WIDE_LANES;
    *first = k->coloring.start[c] + (index - k->batch_start[c]) * lanes;
    *end = *first + lanes < k->coloring.start[c + 1] ? *first + lanes : k->coloring.start[c + 1];
}

// Packs and prepares batch `index` of a bundle: its colour's manifolds in list order, 8 to a
// batch (the overflow's one), the batch zeroed just before it is filled, while it is in cache.
static void pack_batch(const solve_ctx* x, const bundle* k, uint32_t index)
{
    const uint32_t* list = x->islands->manifolds + k->manifold_begin;
    const uint32_t* order = k->coloring.order;
    vxk_wide_constraint* w = &x->batches[k->batch_offset + index];
    uint32_t first, end;
    batch_range(k, index, &first, &end);
    // Zero what the kernels read: the header and the points up to the batch's most.
    uint32_t most = 0;
    for (uint32_t l = first; l < end; ++l)
        most = k->points[order[l]] > most ? k->points[order[l]] : most;
    memset(w, 0, offsetof(vxk_wide_constraint, points) + sizeof(vxk_wide_point) * most);
    for (uint32_t l = 0; l < VXK_WIDE_LANES; ++l)
        w->a[l] = w->b[l] = k->scratch_slot;
    for (uint32_t i = first; i < end; ++i) {
        uint32_t m = order[i];
        pack_lane(x, k, w, i - first, &x->contacts[list[m]], k->ma[m], k->mb[m]);
    }
    vxk_wide_prepare(w, k->states, k->inv_i, x->speculative_distance);
    w->has_restitution = batch_may_bounce(w, x->restitution_threshold);
}

// The impulses of batch `index` back into its manifolds.
static void unpack_batch(const solve_ctx* x, const bundle* k, uint32_t index)
{
    const uint32_t* list = x->islands->manifolds + k->manifold_begin;
    const vxk_wide_constraint* w = &x->batches[k->batch_offset + index];
    uint32_t first, end;
    batch_range(k, index, &first, &end);
    for (uint32_t i = first; i < end; ++i)
        unpack_lane(w, i - first, &x->contacts[list[k->coloring.order[i]]], x->slop);
}

// ---- a bundle's step -------------------------------------------------------------------------

typedef enum work_kind { WORK_INIT, WORK_PACK, WORK_UNPACK } work_kind;

typedef struct work_job {
    const solve_ctx* x;
    const bundle* k;
    work_kind kind;
} work_job;

static void work_range(void* vjob, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const work_job* job = (const work_job*)vjob;
    const solve_ctx* x = job->x;
    const bundle* k = job->k;
    for (uint32_t i = begin; i < end; ++i) {
        if (job->kind == WORK_PACK) {
            pack_batch(x, k, i);
        } else if (job->kind == WORK_UNPACK) {
            unpack_batch(x, k, i);
        } else {
            // The solver's copies of the local slots (the static and scratch slots from nothing).
            bool real = i < k->body_count + k->kinematic_count;
            uint32_t body = real ? x->moving[k->global[i]] : UINT32_MAX;
            init_slot(x, &k->states[i], &k->bodies[i], &k->inv_i[i],
                      real ? &x->dyn->bodies[body] : NULL, body);
        }
    }
}

// Work over a bundle's slots or batches: every item stands alone, so a large island spreads it
// over the workers.
static void bundle_work(const solve_ctx* x, const bundle* k, vxk_jobs* jobs, work_kind kind,
                        uint32_t count)
{
    work_job job = {x, k, kind};
    if (jobs && count > 64)
        vxk_parallel_for(jobs, "solve_pack", count, 32, work_range, &job);
    else
        work_range(&job, 0, count, 0);
}

// The bodies' sleep times, and which of the bundle's islands fall asleep: those whose every body
// has moved slower than the sleep threshold for the time to sleep, and that touch no moving
// kinematic body.
static void mark_sleepy(const solve_ctx* x, const bundle* k)
{
    const vxk_dynamics_settings* set = &x->dyn->settings;
    const vxk_islands* is = x->islands;
    for (uint32_t i = k->island_begin; i < k->island_end; ++i) {
        float least = FLT_MAX;
        for (uint32_t j = is->body_start[i]; j < is->body_start[i + 1]; ++j) {
            vxk_body* b = &x->dyn->bodies[x->moving[is->bodies[j]]];
            if (vxk_body_sleep_velocity(b) > set->sleep_threshold)
                b->sleep_time = 0.0f;
            else
                b->sleep_time += x->dt;
            least = fminf(least, b->sleep_time);
        }
        for (uint32_t j = is->manifold_start[i]; j < is->manifold_start[i + 1]; ++j) {
            uint32_t c = is->manifolds[j];
            uint32_t ends[2] = {x->end_a[c], x->end_b[c]};
            for (int e = 0; e < 2; ++e) {
                if (ends[e] == x->global_static)
                    continue;
                const vxk_body* o = &x->dyn->bodies[x->moving[ends[e]]];
                if (o->type == VXK_BODY_KINEMATIC &&
                    (vxk_v3_length_sq(o->v) > 0.0f || vxk_v3_length_sq(o->w) > 0.0f))
                    least = 0.0f;
            }
        }
        x->sleepy[i] = set->enable_sleep && least >= set->time_to_sleep;
    }
}

// Phase D: the whole step of a bundle; jobs spread a large one's colours and bodies over the
// workers (NULL: all on this thread).
static void solve_bundle(const solve_ctx* x, bundle* k, vxk_jobs* jobs)
{
    bundle_work(x, k, jobs, WORK_INIT, k->local_count);
    bundle_work(x, k, jobs, WORK_PACK, k->batch_count);
    vxk_wide_params params = {x->inv_h, x->push_speed, x->restitution_threshold, false, false};
    for (uint32_t sub = 0; sub < x->substeps; ++sub) {
        integrate_bundle(k, jobs, x->h, false);
        run_pass(x, k, jobs, PASS_WARM, &params);
        params.use_bias = true;
        params.reverse = (sub & 1u) != 0;
        run_pass(x, k, jobs, PASS_SOLVE, &params);
        integrate_bundle(k, jobs, x->h, true);
        params.use_bias = false;
        params.reverse = (sub & 1u) == 0;
        run_pass(x, k, jobs, PASS_SOLVE, &params);
    }
    // Restitution: points that closed faster than the threshold and pushed bounce back, within
    // e^2 of the energy their manifold took (solver_wide_kernel.h). One pass (as Box2D) leaves a
    // flat-landing box spinning: the first point of a face takes the whole bounce. A few
    // Gauss-Seidel passes spread it over the face's points as a simultaneous solve would.
    for (uint32_t iteration = 0; iteration < RESTITUTION_ITERATIONS; ++iteration)
        run_pass(x, k, jobs, PASS_RESTITUTION, &params);
    // The impulses back into the manifolds, the motion back into the dynamic bodies.
    bundle_work(x, k, jobs, WORK_UNPACK, k->batch_count);
    for (uint32_t i = 0; i < k->body_count; ++i) {
        vxk_body* b = &x->dyn->bodies[k->bodies[i].body];
        b->pose.p = vxk_v3_add(b->pose.p, k->states[i].dp);
        b->pose.q = k->bodies[i].q;
        b->v = k->states[i].v;
        b->w = k->states[i].w;
    }
    mark_sleepy(x, k);
}

static void solve_range(void* vctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const solve_ctx* x = (const solve_ctx*)vctx;
    for (uint32_t i = begin; i < end; ++i)
        if (!x->bundles[i].large)
            solve_bundle(x, &x->bundles[i], NULL);
}

// ---- the solve -------------------------------------------------------------------------------

// What the islands stage hands the solve and sleep stages (arena memory).
struct vxk_solve_state {
    solve_ctx x;
    vxk_islands islands;
    uint8_t* dynamic;
    uint32_t* sleepers;
    uint32_t nb;
};

vxk_status vxk_dynamics_islands(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                                vxk_world_step_stats* stats)
{
    const vxk_dynamics_settings* set = &dyn->settings;
    uint32_t nb = f->moving_count, nc = f->now_count;
    struct vxk_solve_state* state =
        (struct vxk_solve_state*)vxk_arena_alloc(f->arena, sizeof(struct vxk_solve_state));
    uint32_t* slot =
        (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)dyn->ids.count + 1));
    uint8_t* dynamic = (uint8_t*)vxk_arena_alloc(f->arena, (size_t)nb + 1);
    uint32_t* end_a = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)nc + 1));
    uint32_t* end_b = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)nc + 1));
    uint32_t* link_a = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)nc + 1));
    uint32_t* link_b = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)nc + 1));
    uint32_t* local_of = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)nb + 1));
    if (!state || !slot || !dynamic || !end_a || !end_b || !link_a || !link_b || !local_of)
        return VXK_ERR_OUT_OF_MEMORY;
    // Global slots: the moving bodies in index order, then one static slot.
    const uint32_t global_static = nb;
    uint32_t kinematic_total = 0;
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        slot[i] = global_static;
    for (uint32_t i = 0; i < nb; ++i) {
        slot[f->moving[i]] = i;
        dynamic[i] = dyn->bodies[f->moving[i]].type == VXK_BODY_DYNAMIC;
        kinematic_total += !dynamic[i];
    }
    for (uint32_t i = 0; i < nc; ++i) {
        const vxk_contact* k = &f->now[i];
        end_a[i] = k->terrain ? global_static : slot[k->a];
        end_b[i] = slot[k->b];
        link_a[i] = end_a[i] != global_static && dynamic[end_a[i]] ? end_a[i] : VXK_ISLAND_NO_BODY;
        link_b[i] = end_b[i] != global_static && dynamic[end_b[i]] ? end_b[i] : VXK_ISLAND_NO_BODY;
    }
    // The poses at the solve's start, for the continuous stage's sweeps.
    f->start =
        (vxk_transform*)vxk_arena_alloc(f->arena, sizeof(vxk_transform) * (size_t)f->cap + 16);
    if (!f->start)
        return VXK_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < nb; ++i)
        f->start[f->moving[i]] = dyn->bodies[f->moving[i]].pose;
    vxk_islands* islands = &state->islands;
    vxk_status status = vxk_islands_build(islands, dynamic, nb, link_a, link_b, nc, f->arena);
    if (status != VXK_OK)
        return status;
    stats->islands = islands->count;
    // Bundles (phase A): islands in order; a large island alone.
    bundle* bundles =
        (bundle*)vxk_arena_alloc(f->arena, sizeof(bundle) * ((size_t)islands->count + 1));
    if (!bundles)
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t bundle_count = 0;
    size_t work_bytes = 0;
    for (uint32_t i = 0; i < islands->count;) {
        bundle* k = &bundles[bundle_count++];
        memset(k, 0, sizeof(*k));
        k->island_begin = i;
        uint32_t e = i;
        do {
            e++;
        } while (e < islands->count &&
                 islands->manifold_start[i + 1] - islands->manifold_start[i] <= set->large_island &&
                 islands->manifold_start[e + 1] - islands->manifold_start[e] <= set->large_island &&
                 islands->manifold_start[e] - islands->manifold_start[i] < set->bundle_manifolds &&
                 islands->body_start[e] - islands->body_start[i] < BUNDLE_BODIES);
        k->island_end = e;
        k->body_begin = islands->body_start[i];
        k->body_count = islands->body_start[e] - k->body_begin;
        k->manifold_begin = islands->manifold_start[i];
        k->manifold_count = islands->manifold_start[e] - k->manifold_begin;
        k->large = k->manifold_count > set->large_island;
        uint32_t kinematic_bound =
            2 * k->manifold_count < kinematic_total ? 2 * k->manifold_count : kinematic_total;
        k->local_capacity = k->body_count + kinematic_bound + 2;
        k->work_offset = work_bytes;
        work_bytes += bundle_work_bytes(k->local_capacity, k->manifold_count);
        i = e;
    }
    // The working memory and the batches live in persistent buffers of the dynamics (a steady
    // run allocates nothing, and their pages stay mapped).
    if (vxk_dynamics_reserve(&dyn->scratch[SOLVER_SCRATCH_WORK],
                             &dyn->scratch_bytes[SOLVER_SCRATCH_WORK], work_bytes + 64) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    const uint32_t substeps = set->substeps;
    const float h = f->dt / (float)substeps;
    float hertz = fminf(set->contact_hertz, 0.25f * (float)substeps / fmaxf(f->dt, 1e-9f));
    solve_ctx* x = &state->x;
    memset(x, 0, sizeof(*x));
    x->dyn = dyn;
    x->contacts = f->now;
    x->moving = f->moving;
    x->end_a = end_a;
    x->end_b = end_b;
    x->local_of = local_of;
    x->islands = islands;
    x->bundles = bundles;
    x->bundle_count = bundle_count;
    x->work = (uint8_t*)align64((size_t)dyn->scratch[SOLVER_SCRATCH_WORK]);
    x->global_static = global_static;
    x->substeps = substeps;
    x->h = h;
    x->inv_h = h > 0.0f ? 1.0f / h : 0.0f;
    x->speculative_distance = SPECULATIVE_SLOPS * set->linear_slop;
    x->slop = set->linear_slop;
    x->restitution_threshold = set->restitution_threshold;
    x->push_speed = set->contact_push_speed;
    x->gravity = set->gravity;
    x->soft = make_soft(hertz, set->contact_damping_ratio, h);
    x->static_soft = make_soft(2.0f * hertz, set->contact_damping_ratio, h);
    x->jobs = dyn->world ? dyn->world->jobs : NULL;
    x->dt = f->dt;
    x->sleepy = (uint8_t*)vxk_arena_alloc(f->arena, (size_t)islands->count + 1);
    state->sleepers = (uint32_t*)vxk_arena_alloc(f->arena, sizeof(uint32_t) * ((size_t)nb + 1));
    if (!x->sleepy || !state->sleepers)
        return VXK_ERR_OUT_OF_MEMORY;
    state->dynamic = dynamic;
    state->nb = nb;
    f->solve = state;
    return VXK_OK;
}

vxk_status vxk_dynamics_solve(vxk_dynamics* dyn, vxk_dynamics_frame* f)
{
    struct vxk_solve_state* state = f->solve;
    solve_ctx* x = &state->x;
    bundle* bundles = x->bundles;
    const uint32_t bundle_count = x->bundle_count;
    // Phase B: local slots and colours, per bundle in parallel.
    if (x->jobs && bundle_count > 1)
        vxk_parallel_for(x->jobs, "solve_setup", bundle_count, 4, setup_range, x);
    else
        setup_range(x, 0, bundle_count, 0);
    // Phase C: the batches' places.
    uint32_t batch_count = 0;
    for (uint32_t i = 0; i < bundle_count; ++i) {
        bundles[i].batch_offset = batch_count;
        batch_count += bundles[i].batch_count;
    }
    if (vxk_dynamics_reserve(&dyn->scratch[SOLVER_SCRATCH_BATCHES],
                             &dyn->scratch_bytes[SOLVER_SCRATCH_BATCHES],
                             sizeof(vxk_wide_constraint) * ((size_t)batch_count + 1)) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    x->batches = (vxk_wide_constraint*)dyn->scratch[SOLVER_SCRATCH_BATCHES];
    // Phase D: the small bundles as jobs, then each large island across the workers.
    if (x->jobs && bundle_count > 1)
        vxk_parallel_for(x->jobs, "solve_islands", bundle_count, 1, solve_range, x);
    else
        solve_range(x, 0, bundle_count, 0);
    for (uint32_t i = 0; i < bundle_count; ++i)
        if (bundles[i].large)
            solve_bundle(x, &bundles[i], x->jobs);
    // Kinematic bodies move by their velocities, substep by substep as their copies did.
    for (uint32_t i = 0; i < state->nb; ++i) {
        if (state->dynamic[i])
            continue;
        vxk_body* b = &dyn->bodies[f->moving[i]];
        vxk_solver_state st;
        solver_body s;
        vxk_mat3 inv_i;
        init_slot(x, &st, &s, &inv_i, b, f->moving[i]);
        integrate_job job = {&st, &s, x->h, true};
        for (uint32_t sub = 0; sub < x->substeps; ++sub)
            integrate(&job, 0, 1);
        b->pose.p = vxk_v3_add(b->pose.p, st.dp);
        b->pose.q = s.q;
    }
    return VXK_OK;
}

void vxk_dynamics_sleep_islands(vxk_dynamics* dyn, vxk_dynamics_frame* f)
{
    struct vxk_solve_state* state = f->solve;
    const vxk_islands* islands = &state->islands;
    // The islands that fell asleep, in island order.
    for (uint32_t i = 0; i < islands->count; ++i) {
        if (!state->x.sleepy[i])
            continue;
        uint32_t n = 0;
        for (uint32_t j = islands->body_start[i]; j < islands->body_start[i + 1]; ++j)
            state->sleepers[n++] = f->moving[islands->bodies[j]];
        vxk_dynamics_sleep(dyn, state->sleepers, n);
    }
}
