// test_solver.c: the graph-coloured wide contact solver (solver.c, solver_wide.c,
// constraint_graph.c). The 8-wide kernels (prepare, warm start, solve, relax, restitution) equal
// their scalar twins bit for bit on seeded random batches; the colouring puts every constraint in
// exactly one colour, never two sharing a dynamic body in one colour, in list order, and is a
// function of its input; a tower of boxes and a sphere rest on terrain; a small pyramid gives
// the same poses, bit for bit, for the inline world and 1, 2, 3 and 8 workers.
#include "arena.h"
#include "constraint_graph.h"
#include "dynamics.h"
#include "solver_wide.h"
#include "test.h"

#include <vxk/body.h>
#include <vxk/jobs.h>
#include <vxk/vxk.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEP_DT (1.0f / 60.0f)

// ---- wide kernels against their twins -------------------------------------------------------

static float rand_range(uint64_t* s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(vxk_test_rand(s) >> 40) * (1.0f / 16777216.0f);
}

// A random float in [lo, hi], now and then an exact zero (zeros steer the kernels' branches).
static float rand_value(uint64_t* s, float lo, float hi)
{
    return (vxk_test_rand(s) % 16) == 0 ? 0.0f : rand_range(s, lo, hi);
}

enum { BODIES = 24 };

static void random_states(uint64_t* s, vxk_solver_state* states, uint32_t count)
{
    memset(states, 0, sizeof(vxk_solver_state) * count);
    for (uint32_t i = 0; i < count; ++i) {
        vxk_solver_state* st = &states[i];
        st->v = vxk_v3(rand_value(s, -5, 5), rand_value(s, -5, 5), rand_value(s, -5, 5));
        st->w = vxk_v3(rand_value(s, -3, 3), rand_value(s, -3, 3), rand_value(s, -3, 3));
        st->dp = vxk_v3(rand_value(s, -0.1f, 0.1f), rand_value(s, -0.1f, 0.1f),
                        rand_value(s, -0.1f, 0.1f));
        vxk_quat q =
            vxk_quat_normalize((vxk_quat){rand_range(s, -0.1f, 0.1f), rand_range(s, -0.1f, 0.1f),
                                          rand_range(s, -0.1f, 0.1f), 1.0f});
        st->dr = vxk_mat3_from_quat(q);
    }
}

// A batch over bodies [0, BODIES): distinct dynamic bodies per lane (the colouring's promise),
// some lanes against the static slot BODIES or empty (scratch slot BODIES + 1), 1..4 points.
static void random_batch(uint64_t* s, vxk_wide_constraint* c)
{
    memset(c, 0, sizeof(*c));
    uint32_t perm[BODIES];
    for (uint32_t i = 0; i < BODIES; ++i)
        perm[i] = i;
    for (uint32_t i = BODIES - 1; i > 0; --i) {
        uint32_t j = (uint32_t)(vxk_test_rand(s) % (i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    c->lane_count = 1 + (uint32_t)(vxk_test_rand(s) % VXK_WIDE_LANES);
    for (uint32_t lane = 0; lane < VXK_WIDE_LANES; ++lane) {
        if (lane >= c->lane_count) {
            c->a[lane] = c->b[lane] = BODIES + 1;
            continue;
        }
        bool static_a = vxk_test_rand(s) % 3 == 0;
        c->a[lane] = static_a ? BODIES : perm[2 * lane];
        c->b[lane] = perm[2 * lane + 1];
        c->write_a |= (uint32_t)!static_a << lane;
        c->write_b |= 1u << lane;
        c->inv_mass_a[lane] = static_a ? 0.0f : rand_range(s, 0.1f, 2.0f);
        c->inv_mass_b[lane] = rand_range(s, 0.1f, 2.0f);
        vxk_vec3 n = vxk_v3_normalize(
            vxk_v3(rand_range(s, -1, 1), rand_range(s, -1, 1), rand_range(s, -1, 1)));
        vxk_vec3 t1 = vxk_v3_normalize(vxk_v3_cross(n, vxk_v3(0.3f, 0.5f, 0.8f)));
        vxk_vec3 t2 = vxk_v3_cross(n, t1);
        vxk_vec3 dirs[3] = {n, t1, t2};
        for (int d = 0; d < 3; ++d) {
            float(*dst)[VXK_WIDE_LANES] = d == 0 ? c->normal : d == 1 ? c->t1 : c->t2;
            dst[0][lane] = dirs[d].x;
            dst[1][lane] = dirs[d].y;
            dst[2][lane] = dirs[d].z;
        }
        c->friction[lane] = rand_value(s, 0, 1);
        c->restitution[lane] = rand_value(s, 0, 1);
        c->has_restitution |= c->restitution[lane] != 0.0f;
        c->bias_rate[lane] = rand_range(s, 0, 30);
        c->mass_scale[lane] = rand_range(s, 0.5f, 1);
        c->impulse_scale[lane] = rand_range(s, 0, 0.5f);
        // Round bodies (spheres, capsules) on some lanes: the anchors' cores in the solve.
        c->radius_a[lane] = static_a ? 0.0f : rand_value(s, 0, 0.6f);
        c->radius_b[lane] = rand_value(s, 0, 0.6f);
        c->has_round |= c->radius_a[lane] != 0.0f || c->radius_b[lane] != 0.0f;
        // Random inverse inertias, friction centre and masses (prepare overwrites them half the
        // time); large friction impulses put some lanes outside the Coulomb disc.
        for (int k = 0; k < 6; ++k) {
            c->inv_i_a[k][lane] = static_a ? 0.0f : rand_value(s, -1, 1);
            c->inv_i_b[k][lane] = rand_value(s, -1, 1);
        }
        for (int k = 0; k < 3; ++k) {
            c->center_a[k][lane] = rand_value(s, -1, 1);
            c->center_b[k][lane] = rand_value(s, -1, 1);
            c->tangent_mass[k][lane] = rand_value(s, -1, 2);
        }
        c->friction_impulse[0][lane] = rand_value(s, -3, 3);
        c->friction_impulse[1][lane] = rand_value(s, -3, 3);
        c->twist_mass[lane] = rand_value(s, 0, 2);
        c->twist_impulse[lane] = rand_value(s, -2, 2);
        uint32_t points = 1 + (uint32_t)(vxk_test_rand(s) % VXK_MANIFOLD_POINTS);
        if (points > c->point_count)
            c->point_count = points;
        for (uint32_t p = 0; p < points; ++p) {
            vxk_wide_point* wp = &c->points[p];
            c->point_lanes[p] |= 1u << lane;
            for (int k = 0; k < 3; ++k) {
                wp->ra[k][lane] = rand_value(s, -1, 1);
                wp->rb[k][lane] = rand_value(s, -1, 1);
            }
            wp->normal_mass[lane] = rand_value(s, 0, 3);
            wp->lever_arm[lane] = rand_value(s, 0, 1);
            wp->separation[lane] = rand_value(s, -0.05f, 0.05f);
            wp->normal_impulse[lane] = rand_value(s, 0, 2);
            wp->max_normal_impulse[lane] = rand_value(s, 0, 1);
            wp->relative_velocity[lane] = rand_value(s, -4, 1);
        }
    }
}

static int compare_runs(const vxk_solver_state* a, const vxk_solver_state* b,
                        const vxk_wide_constraint* ca, const vxk_wide_constraint* cb,
                        const char* pass, int round)
{
    VXK_CHECK_MSG(memcmp(a, b, sizeof(vxk_solver_state) * (BODIES + 2)) == 0,
                  "%s, round %d: body states differ between the SIMD kernel and its twin", pass,
                  round);
    VXK_CHECK_MSG(memcmp(ca, cb, sizeof(*ca)) == 0,
                  "%s, round %d: accumulated impulses differ between the SIMD kernel and its twin",
                  pass, round);
    return 0;
}

static int test_wide_matches_twin(void)
{
    uint64_t seed = vxk_test_seed(0x501CE);
    static vxk_solver_state sw[BODIES + 2], ss[BODIES + 2];
    static vxk_wide_constraint cw, cs;
    static vxk_mat3 inertia[BODIES + 2];
    int outside = 0;
    for (int round = 0; round < 2000; ++round) {
        random_states(&seed, sw, BODIES + 2);
        // The static and scratch slots rest, as the solver keeps them.
        memset(&sw[BODIES], 0, 2 * sizeof(vxk_solver_state));
        sw[BODIES].dr = sw[BODIES + 1].dr = vxk_mat3_from_quat(vxk_quat_identity());
        memcpy(ss, sw, sizeof(sw));
        random_batch(&seed, &cw);
        memcpy(&cs, &cw, sizeof(cw));
        vxk_wide_params prm = {rand_range(&seed, 60, 960), rand_range(&seed, 0.5f, 5),
                               rand_range(&seed, 0.5f, 2), true, (round & 2) != 0};
        // Prepare overwrites the random axes half the time (both kernels see either).
        if (round % 2 == 0) {
            for (uint32_t i = 0; i < BODIES + 2; ++i)
                for (int k = 0; k < 9; ++k) {
                    float* m = &inertia[i].cx.x;
                    m[k] = i < BODIES ? rand_value(&seed, -1, 1) : 0.0f;
                }
            float spec = rand_range(&seed, 0.005f, 0.05f);
            vxk_wide_prepare(&cw, sw, inertia, spec);
            vxk_wide_prepare_scalar(&cs, ss, inertia, spec);
            if (compare_runs(sw, ss, &cw, &cs, "prepare", round))
                return 1;
        }
        vxk_wide_warm_start(sw, &cw);
        vxk_wide_warm_start_scalar(ss, &cs);
        if (compare_runs(sw, ss, &cw, &cs, "warm start", round))
            return 1;
        for (int pass = 0; pass < 3; ++pass) {
            prm.use_bias = pass != 1;
            vxk_wide_solve(sw, &cw, &prm);
            vxk_wide_solve_scalar(ss, &cs, &prm);
            if (compare_runs(sw, ss, &cw, &cs, prm.use_bias ? "solve" : "relax", round))
                return 1;
        }
        // A relax pass ends with the friction impulse inside the Coulomb disc of the manifold's
        // total normal impulse and the twist within friction x the normal impulses' moment about
        // the centre.
        prm.use_bias = false;
        vxk_wide_solve(sw, &cw, &prm);
        vxk_wide_solve_scalar(ss, &cs, &prm);
        if (compare_runs(sw, ss, &cw, &cs, "second relax", round))
            return 1;
        for (uint32_t lane = 0; lane < cw.lane_count; ++lane) {
            double total = 0.0, moment = 0.0;
            for (uint32_t p = 0; p < cw.point_count; ++p) {
                VXK_CHECK_MSG(cw.points[p].normal_impulse[lane] >= 0.0f,
                              "negative normal impulse %g",
                              (double)cw.points[p].normal_impulse[lane]);
                total += cw.points[p].normal_impulse[lane];
                moment += (double)cw.points[p].normal_impulse[lane] * cw.points[p].lever_arm[lane];
            }
            float l1 = cw.friction_impulse[0][lane], l2 = cw.friction_impulse[1][lane];
            double limit = cw.friction[lane] * total;
            double len = sqrt((double)l1 * l1 + (double)l2 * l2);
            VXK_CHECK_MSG(len <= limit * 1.0001 + 1e-6, "friction impulse %g outside the disc %g",
                          len, limit);
            VXK_CHECK_MSG(fabs((double)cw.twist_impulse[lane]) <=
                              cw.friction[lane] * moment * 1.0001 + 1e-6,
                          "twist impulse %g past its limit %g", (double)cw.twist_impulse[lane],
                          cw.friction[lane] * moment);
            outside += limit > 0.0 && len > limit * 0.9999;
        }
        vxk_wide_restitution(sw, &cw, &prm);
        vxk_wide_restitution_scalar(ss, &cs, &prm);
        if (compare_runs(sw, ss, &cw, &cs, "restitution", round))
            return 1;
        // Lanes beyond lane_count and the static slot are never written.
        VXK_CHECK(memcmp(&sw[BODIES], &ss[BODIES], 2 * sizeof(vxk_solver_state)) == 0);
        VXK_CHECK_MSG(sw[BODIES].v.x == 0.0f && sw[BODIES].w.y == 0.0f,
                      "the static slot moved (round %d)", round);
    }
    VXK_CHECK_MSG(outside > 100, "only %d points reached the friction cone's edge", outside);
    return 0;
}

// ---- colouring ------------------------------------------------------------------------------

static int check_coloring(const vxk_graph_coloring* g, const uint32_t* a, const uint32_t* b,
                          uint32_t count, uint32_t bodies)
{
    VXK_CHECK_EQ_INT(g->start[0], 0);
    VXK_CHECK_EQ_INT(g->start[VXK_GRAPH_COLORS + 1], count);
    uint8_t* seen = calloc(count + 1, 1);
    uint32_t* owner = malloc(sizeof(uint32_t) * (bodies + 1));
    VXK_CHECK(seen && owner);
    for (uint32_t c = 0; c <= VXK_GRAPH_COLORS; ++c) {
        VXK_CHECK(g->start[c] <= g->start[c + 1]);
        for (uint32_t i = 0; i < bodies; ++i)
            owner[i] = UINT32_MAX;
        for (uint32_t k = g->start[c]; k < g->start[c + 1]; ++k) {
            uint32_t i = g->order[k];
            VXK_CHECK(i < count);
            VXK_CHECK_MSG(!seen[i], "constraint %u listed twice", i);
            seen[i] = 1;
            VXK_CHECK_EQ_INT(g->color[i], c);
            if (k > g->start[c])
                VXK_CHECK_MSG(g->order[k - 1] < i, "colour %u out of list order", c);
            if (c == VXK_GRAPH_OVERFLOW)
                continue;
            bool da = a[i] != VXK_GRAPH_NO_BODY, db = b[i] != VXK_GRAPH_NO_BODY;
            if (c == 0 && da != db)
                VXK_CHECK_MSG(false, "constraint %u with one dynamic body in colour 0", i);
            const uint32_t ends[2] = {a[i], b[i]};
            for (int e = 0; e < 2; ++e) {
                if (ends[e] == VXK_GRAPH_NO_BODY)
                    continue;
                VXK_CHECK_MSG(owner[ends[e]] == UINT32_MAX || owner[ends[e]] == i,
                              "colour %u holds constraints %u and %u on body %u", c, owner[ends[e]],
                              i, ends[e]);
                owner[ends[e]] = i;
            }
        }
    }
    for (uint32_t i = 0; i < count; ++i)
        VXK_CHECK_MSG(seen[i], "constraint %u in no colour", i);
    free(seen);
    free(owner);
    return 0;
}

static int test_coloring(void)
{
    uint64_t seed = vxk_test_seed(0xC0102);
    vxk_arena arena;
    vxk_arena_init(&arena);
    int overflowed = 0;
    for (int round = 0; round < 300; ++round) {
        uint32_t bodies = 1 + (uint32_t)(vxk_test_rand(&seed) % 200);
        uint32_t count = (uint32_t)(vxk_test_rand(&seed) % 1500);
        uint32_t* a = malloc(sizeof(uint32_t) * (count + 1));
        uint32_t* b = malloc(sizeof(uint32_t) * (count + 1));
        VXK_CHECK(a && b);
        // Some rounds concentrate on few bodies (stars past the colour count overflow).
        uint32_t spread = round % 3 == 0 ? 1 + bodies / 16 : bodies;
        for (uint32_t i = 0; i < count; ++i) {
            uint32_t x = (uint32_t)(vxk_test_rand(&seed) % spread);
            uint32_t y = (uint32_t)(vxk_test_rand(&seed) % bodies);
            a[i] = vxk_test_rand(&seed) % 4 == 0 ? VXK_GRAPH_NO_BODY : x;
            b[i] = vxk_test_rand(&seed) % 16 == 0 ? VXK_GRAPH_NO_BODY : y;
            if (a[i] == b[i] && a[i] != VXK_GRAPH_NO_BODY)
                a[i] = VXK_GRAPH_NO_BODY; // a constraint joins two bodies
        }
        vxk_graph_coloring g1, g2;
        VXK_CHECK_EQ_INT(vxk_graph_color(&g1, a, b, count, bodies, &arena), VXK_OK);
        if (check_coloring(&g1, a, b, count, bodies))
            return 1;
        VXK_CHECK_EQ_INT(vxk_graph_color(&g2, a, b, count, bodies, &arena), VXK_OK);
        VXK_CHECK(memcmp(g1.start, g2.start, sizeof(g1.start)) == 0);
        VXK_CHECK(count == 0 || memcmp(g1.order, g2.order, sizeof(uint32_t) * count) == 0);
        // Greedy: a constraint in colour c > its first allowed colour conflicts in every
        // colour before c; checked through the overflow, which only takes what fits nowhere.
        overflowed += g1.start[VXK_GRAPH_OVERFLOW + 1] > g1.start[VXK_GRAPH_OVERFLOW];
        free(a);
        free(b);
        vxk_arena_reset(&arena);
    }
    VXK_CHECK_MSG(overflowed > 0, "no round overflowed the %d colours", VXK_GRAPH_COLORS);
    // A chain a-b, b-c, ... alternates two colours; a star overflows after the colour count.
    {
        enum { N = VXK_GRAPH_COLORS + 16 };
        uint32_t a[N], b[N];
        for (uint32_t i = 0; i < N; ++i) {
            a[i] = i;
            b[i] = i + 1;
        }
        vxk_graph_coloring g;
        VXK_CHECK_EQ_INT(vxk_graph_color(&g, a, b, N, N + 1, &arena), VXK_OK);
        for (uint32_t i = 0; i < N; ++i)
            VXK_CHECK_EQ_INT(g.color[i], i % 2);
        for (uint32_t i = 0; i < N; ++i) {
            a[i] = 0;
            b[i] = i + 1;
        }
        VXK_CHECK_EQ_INT(vxk_graph_color(&g, a, b, N, N + 1, &arena), VXK_OK);
        for (uint32_t i = 0; i < N; ++i)
            VXK_CHECK_EQ_INT(g.color[i], i < VXK_GRAPH_COLORS ? i : VXK_GRAPH_OVERFLOW);
    }
    vxk_arena_destroy(&arena);
    return 0;
}

// ---- worlds ---------------------------------------------------------------------------------

static vxk_world* make_world(vxk_jobs* jobs)
{
    vxk_world_def def = vxk_default_world_def();
    def.gravity = (vxk_vec3){0.0f, -9.81f, 0.0f};
    def.jobs = jobs;
    vxk_world* w = NULL;
    if (vxk_world_create(&def, &w) != VXK_OK)
        return NULL;
    if (vxk_world_fill_box(w, (vxk_int_box){{-32, -8, -32}, {31, -1, 31}}, VXK_MAT_STONE) !=
        VXK_OK) {
        vxk_world_destroy(w);
        return NULL;
    }
    return w;
}

static vxk_body_id add_box(vxk_world* w, vxk_vec3 p)
{
    vxk_body_def d = vxk_default_body_def();
    d.position = p;
    d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
    vxk_body_id id = {0, 0};
    return vxk_body_create(w, &d, &id) == VXK_OK ? id : (vxk_body_id){0, 0};
}

static vxk_transform pose(const vxk_world* w, vxk_body_id id)
{
    vxk_transform t = {{NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}};
    vxk_body_get_transform(w, id, &t);
    return t;
}

// A tower of 6 boxes and a sphere dropped beside it come to rest on the terrain.
static int test_stack_and_sphere_rest(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    enum { N = 6 };
    vxk_body_id ids[N];
    for (int i = 0; i < N; ++i) {
        ids[i] = add_box(w, (vxk_vec3){2.5f, 0.5f + (float)i, 3.5f});
        VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
    }
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){-4.0f, 3.0f, 1.0f};
    d.shape = vxk_sphere_shape(0.5f, VXK_MAT_STONE);
    vxk_body_id sphere = {0, 0};
    VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &sphere), VXK_OK);
    for (int step = 0; step < 360; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    for (int i = 0; i < N; ++i) {
        vxk_vec3 p = pose(w, ids[i]).p;
        double dx = p.x - 2.5, dz = p.z - 3.5, dy = p.y - (0.5 + i);
        VXK_CHECK_MSG(sqrt(dx * dx + dz * dz) < 0.02 && fabs(dy) < 0.05,
                      "box %d moved to (%.4g %.4g %.4g)", i, (double)p.x, (double)p.y, (double)p.z);
        vxk_vec3 v, av;
        vxk_body_get_velocity(w, ids[i], &v, &av);
        VXK_CHECK_MSG(vxk_v3_length(v) < 0.05f, "box %d still moves at %g", i,
                      (double)vxk_v3_length(v));
    }
    vxk_vec3 sp = pose(w, sphere).p;
    vxk_vec3 sv, sw;
    vxk_body_get_velocity(w, sphere, &sv, &sw);
    VXK_CHECK_MSG(fabs(sp.y - 0.5) < 0.03 && vxk_v3_length(sv) < 0.05f,
                  "sphere at height %.4g, speed %.3g", (double)sp.y, (double)vxk_v3_length(sv));
    vxk_world_destroy(w);
    return 0;
}

// More manifolds on one dynamic body than there are colours: 81 spheres resting on one wide box
// (82 manifolds of the box; the colours take 63 of the spheres' after colour 0, the rest go
// to the overflow, solved one manifold per batch). Every sphere rests on the box's top, the box
// on the floor.
static int test_overflow_rests(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){0.0f, 0.5f, 0.0f};
    d.shape = vxk_box_shape((vxk_vec3){8.0f, 0.5f, 8.0f}, VXK_MAT_STONE);
    vxk_body_id slab = {0, 0};
    VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &slab), VXK_OK);
    enum { SIDE = 9 };
    _Static_assert(SIDE * SIDE + 1 > VXK_GRAPH_COLORS, "the slab must overflow the colours");
    vxk_body_id balls[SIDE * SIDE];
    for (int i = 0; i < SIDE * SIDE; ++i) {
        d.position =
            (vxk_vec3){-7.2f + 1.8f * (float)(i % SIDE), 1.45f, -7.2f + 1.8f * (float)(i / SIDE)};
        d.shape = vxk_sphere_shape(0.45f, VXK_MAT_STONE);
        VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &balls[i]), VXK_OK);
    }
    for (int step = 0; step < 240; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_vec3 sp = pose(w, slab).p;
    VXK_CHECK_MSG(fabs(sp.y - 0.5) < 0.02 && fabs(sp.x) < 0.02 && fabs(sp.z) < 0.02,
                  "slab at (%.4g %.4g %.4g)", (double)sp.x, (double)sp.y, (double)sp.z);
    for (int i = 0; i < SIDE * SIDE; ++i) {
        vxk_vec3 p = pose(w, balls[i]).p, v, av;
        vxk_body_get_velocity(w, balls[i], &v, &av);
        VXK_CHECK_MSG(fabs(p.y - 1.45) < 0.02 && vxk_v3_length(v) < 0.05f,
                      "sphere %d at height %.4g, speed %.3g", i, (double)p.y,
                      (double)vxk_v3_length(v));
    }
    vxk_world_destroy(w);
    return 0;
}

// A world on a scheduler of `workers` workers (0: inline), returned in *jobs for the caller to
// destroy after the world.
static vxk_world* make_world_on(uint32_t workers, vxk_jobs** jobs)
{
    *jobs = NULL;
    if (workers) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        if (vxk_jobs_create(&jd, jobs) != 0)
            return NULL;
    }
    return make_world(*jobs);
}

// A pyramid of 14 at the base on 0 (inline), 1, 2, 3 and 8 workers: the same poses, bit for bit
// (the colours' batches run as parallel pieces).
static int pyramid_run(uint32_t workers, vxk_transform* out, int count)
{
    vxk_jobs* jobs = NULL;
    vxk_world* w = make_world_on(workers, &jobs);
    VXK_CHECK(w != NULL);
    vxk_body_id ids[128];
    int n = 0;
    for (int row = 0; row < 14; ++row)
        for (int i = 0; i < 14 - row; ++i) {
            ids[n] = add_box(w, (vxk_vec3){(float)i + 0.5f * (float)row - 7.0f, 0.5f + (float)row,
                                           0.5f + 0.01f * (float)i});
            VXK_CHECK(!VXK_ID_IS_NULL(ids[n]));
            ++n;
        }
    VXK_CHECK_EQ_INT(n, count);
    for (int step = 0; step < 240; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    for (int i = 0; i < n; ++i)
        out[i] = pose(w, ids[i]);
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    return 0;
}

static int test_workers_bitwise(void)
{
    enum { COUNT = 105 };
    vxk_transform first[COUNT], other[COUNT];
    if (pyramid_run(0, first, COUNT))
        return 1;
    for (int i = 0; i < COUNT; ++i)
        VXK_CHECK_MSG(first[i].p.y > 0.4f, "pyramid box %d fell to %.4g", i, (double)first[i].p.y);
    const uint32_t workers[] = {1, 2, 3, 8};
    for (size_t r = 0; r < sizeof(workers) / sizeof(workers[0]); ++r) {
        if (pyramid_run(workers[r], other, COUNT))
            return 1;
        VXK_CHECK_MSG(memcmp(first, other, sizeof(first)) == 0,
                      "%u workers: poses differ from the inline world's", workers[r]);
    }
    return 0;
}

// Islands and bundles: a pile (one island of a few hundred manifolds), towers, free spheres and
// a kinematic platform carrying boxes, stepped 90 times (30 under TSan) with the solver's bundling
// at its defaults, with every island alone and spread by colour (large_island 1), and with all
// islands in one bundle; each on 0 (inline), 1, 2, 3 and 8 workers. Islands only decide which
// bodies are solved together, never how, so every run gives the same world hash.
#ifdef VXK_TSAN
#define ISLAND_STEPS 30
#else
#define ISLAND_STEPS 90
#endif
static int island_run(uint32_t workers, uint32_t bundle_manifolds, uint32_t large_island,
                      uint64_t* hash, uint32_t* islands)
{
    vxk_jobs* jobs = NULL;
    vxk_world* w = make_world_on(workers, &jobs);
    VXK_CHECK(w != NULL);
    vxk_dynamics* dyn = vxk_dynamics_get(w);
    dyn->settings.bundle_manifolds = bundle_manifolds;
    dyn->settings.large_island = large_island;
    uint64_t seed = vxk_test_seed(0x1514D);
    for (int i = 0; i < 160; ++i) // the pile
        VXK_CHECK(!VXK_ID_IS_NULL(
            add_box(w, (vxk_vec3){rand_range(&seed, -3, 3), 0.5f + 1.05f * (float)(i / 20),
                                  rand_range(&seed, -3, 3)})));
    for (int t = 0; t < 12; ++t) // towers
        for (int k = 0; k < 3; ++k)
            VXK_CHECK(!VXK_ID_IS_NULL(
                add_box(w, (vxk_vec3){-20.0f + 3.0f * (float)t, 0.5f + (float)k, 15.0f})));
    for (int i = 0; i < 20; ++i) { // free spheres
        vxk_body_def d = vxk_default_body_def();
        d.position = (vxk_vec3){rand_range(&seed, -25, 25), rand_range(&seed, 5, 15), -20.0f};
        d.shape = vxk_sphere_shape(0.4f, VXK_MAT_STONE);
        vxk_body_id id;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &id), VXK_OK);
    }
    vxk_body_def plat = vxk_default_body_def(); // a kinematic platform with boxes on it
    plat.type = VXK_BODY_KINEMATIC;
    plat.position = (vxk_vec3){15.0f, 2.0f, -5.0f};
    plat.linear_velocity = (vxk_vec3){0.5f, 0.0f, 0.0f};
    plat.angular_velocity = (vxk_vec3){0.0f, 0.3f, 0.0f};
    plat.shape = vxk_box_shape((vxk_vec3){3.0f, 0.25f, 3.0f}, VXK_MAT_STONE);
    vxk_body_id platform;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &plat, &platform), VXK_OK);
    for (int i = 0; i < 4; ++i)
        VXK_CHECK(!VXK_ID_IS_NULL(add_box(w, (vxk_vec3){13.5f + 1.2f * (float)i, 2.8f, -5.0f})));
    for (int step = 0; step < ISLAND_STEPS; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(w, &stats);
    *islands = stats.islands;
    *hash = vxk_world_hash(w);
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    return 0;
}

static int test_island_bundling_bitwise(void)
{
    uint64_t first = 0;
    uint32_t first_islands = 0;
    if (island_run(0, VXK_SOLVER_BUNDLE_MANIFOLDS, VXK_SOLVER_LARGE_ISLAND, &first, &first_islands))
        return 1;
    fprintf(stderr, "   %u islands, hash %016llx\n", first_islands, (unsigned long long)first);
    VXK_CHECK_MSG(first_islands > 20, "only %u islands", first_islands);
    const uint32_t bundle[3] = {VXK_SOLVER_BUNDLE_MANIFOLDS, 1, 1000000};
    const uint32_t large[3] = {VXK_SOLVER_LARGE_ISLAND, 1, 1000000};
    const uint32_t workers[5] = {0, 1, 2, 3, 8};
    for (int v = 0; v < 3; ++v)
        for (int r = 0; r < 5; ++r) {
            uint64_t hash = 0;
            uint32_t islands = 0;
            if (island_run(workers[r], bundle[v], large[v], &hash, &islands))
                return 1;
            VXK_CHECK_MSG(hash == first && islands == first_islands,
                          "bundling %u/%u, %u workers: hash %016llx (%u islands), inline default "
                          "%016llx (%u islands)",
                          bundle[v], large[v], workers[r], (unsigned long long)hash, islands,
                          (unsigned long long)first, first_islands);
        }
    return 0;
}

// The scene for the parallel solve: 10,000 boxes in one island (a 25 x 25 x 16 block,
// face to face), BLOCK_STEPS steps on 0 (inline), 1, 2, 3 and 8 workers: one island, one hash.
// The hash is printed for scripts/test, which compares it with the scalar build's. Under the
// thread sanitizer, which runs it ten times slower, a block of 10 x 10 x 8 (still one island of
// about 7,000 manifolds, over the large-island threshold) for 3 steps.
#ifdef VXK_TSAN
#define BLOCK_STEPS 3
#define BLOCK_SIDE 10
#define BLOCK_LAYERS 8
#else
#define BLOCK_STEPS 10
#define BLOCK_SIDE 25
#define BLOCK_LAYERS 16
#endif
static int block_run(uint32_t workers, uint64_t* hash, uint32_t* islands)
{
    vxk_jobs* jobs = NULL;
    vxk_world* w = make_world_on(workers, &jobs);
    VXK_CHECK(w != NULL);
    for (int y = 0; y < BLOCK_LAYERS; ++y)
        for (int z = 0; z < BLOCK_SIDE; ++z)
            for (int x = 0; x < BLOCK_SIDE; ++x)
                VXK_CHECK(!VXK_ID_IS_NULL(
                    add_box(w, (vxk_vec3){(float)x - 12.0f, 0.5f + (float)y, (float)z - 12.0f})));
    for (int step = 0; step < BLOCK_STEPS; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(w, &stats);
    *islands = stats.islands;
    *hash = vxk_world_hash(w);
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    return 0;
}

static int test_one_island_of_10000(void)
{
    uint64_t first = 0, other = 0;
    uint32_t islands = 0;
    if (block_run(0, &first, &islands))
        return 1;
    VXK_CHECK_EQ_INT(islands, 1);
    const uint32_t workers[] = {1, 2, 3, 8};
    for (int r = 0; r < 4; ++r) {
        if (block_run(workers[r], &other, &islands))
            return 1;
        VXK_CHECK_MSG(other == first && islands == 1,
                      "%u workers: hash %016llx (%u islands), inline %016llx", workers[r],
                      (unsigned long long)other, islands, (unsigned long long)first);
    }
    printf("one-island determinism hash (%d boxes, %d steps): %016llx\n",
           BLOCK_SIDE * BLOCK_SIDE * BLOCK_LAYERS, BLOCK_STEPS, (unsigned long long)first);
    return 0;
}

int main(void)
{
    VXK_RUN(test_wide_matches_twin);
    VXK_RUN(test_coloring);
    VXK_RUN(test_stack_and_sphere_rest);
    VXK_RUN(test_overflow_rests);
    VXK_RUN(test_workers_bitwise);
    VXK_RUN(test_island_bundling_bitwise);
    VXK_RUN(test_one_island_of_10000);
    return vxk_test_finish();
}
