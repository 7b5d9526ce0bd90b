// test_sleep.c: islands falling asleep and waking (sleep.c, solver.c, contacts.c): a pile falls
// asleep within 2 s of coming to rest and stays exactly still; it wakes when a ball hits it; a
// falling or thrown body never sleeps in mid-air; every wake rule of vxk/body.h (API pushes and
// sets, vxk_body_set_awake, a terrain write under a sleeping body, a static body destroyed under
// it); a moving kinematic platform keeps what it carries awake; sleep off never sleeps; and the
// world hash with sleeping islands is the same for 0 (inline), 1, 2, 3 and 8 workers.
#include "test.h"

#include <vxk/body.h>
#include <vxk/jobs.h>
#include <vxk/vxk.h>

#include <math.h>
#include <string.h>

#define STEP_DT (1.0f / 60.0f)

static float rand_range(uint64_t* s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(vxk_test_rand(s) >> 40) * (1.0f / 16777216.0f);
}

static vxk_world* make_world(vxk_jobs* jobs, bool sleep)
{
    vxk_world_def def = vxk_default_world_def();
    def.jobs = jobs;
    def.enable_sleep = sleep;
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

static vxk_body_id add(vxk_world* w, vxk_body_def d)
{
    vxk_body_id id = {0, 0};
    return vxk_body_create(w, &d, &id) == VXK_OK ? id : (vxk_body_id){0, 0};
}

static vxk_body_id add_box(vxk_world* w, vxk_vec3 p)
{
    vxk_body_def d = vxk_default_body_def();
    d.position = p;
    d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
    return add(w, d);
}

static vxk_body_id add_sphere(vxk_world* w, vxk_vec3 p, vxk_vec3 v)
{
    vxk_body_def d = vxk_default_body_def();
    d.position = p;
    d.linear_velocity = v;
    d.shape = vxk_sphere_shape(0.5f, VXK_MAT_STONE);
    return add(w, d);
}

static bool awake(const vxk_world* w, vxk_body_id id)
{
    vxk_body_info info;
    return vxk_body_get_info(w, id, &info) == VXK_OK && info.awake;
}

static vxk_transform pose(const vxk_world* w, vxk_body_id id)
{
    vxk_transform t = {{NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}};
    vxk_body_get_transform(w, id, &t);
    return t;
}

// The fastest surface speed of the bodies (speed plus spin times a bound of their size).
static float fastest(const vxk_world* w, const vxk_body_id* ids, int n)
{
    float most = 0.0f;
    for (int i = 0; i < n; ++i) {
        vxk_vec3 v, a;
        vxk_body_get_velocity(w, ids[i], &v, &a);
        float s = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) +
                  0.9f * sqrtf(a.x * a.x + a.y * a.y + a.z * a.z);
        most = s > most ? s : most;
    }
    return most;
}

enum { PILE = 40 };

// A pile of boxes dropped on each other at random: ids out.
static int make_pile(vxk_world* w, vxk_body_id* ids)
{
    uint64_t seed = vxk_test_seed(0x51EE9);
    for (int i = 0; i < PILE; ++i) {
        ids[i] = add_box(w, (vxk_vec3){rand_range(&seed, -1.5f, 1.5f), 0.6f + 1.1f * (float)i / 4,
                                       rand_range(&seed, -1.5f, 1.5f)});
        VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
    }
    return 0;
}

// The pile comes to rest (its fastest surface under the threshold from some step on) and is all
// asleep within 2 s of that step; asleep, nothing of it moves by a bit, and the stats count it.
// Then a ball thrown at it wakes it.
static int test_pile_sleeps_and_wakes(void)
{
    vxk_world* w = make_world(NULL, true);
    VXK_CHECK(w != NULL);
    vxk_body_id ids[PILE];
    if (make_pile(w, ids))
        return 1;
    int rest_step = -1, asleep_step = -1;
    for (int step = 0; step < 900 && asleep_step < 0; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        bool all_asleep = true;
        for (int i = 0; i < PILE; ++i)
            all_asleep &= !awake(w, ids[i]);
        if (all_asleep) {
            asleep_step = step;
            break;
        }
        // Rest: slower than the threshold (0.05 m/s) from here on, as far as the run shows.
        float f = fastest(w, ids, PILE);
        if (f > 0.05f)
            rest_step = -1;
        else if (rest_step < 0)
            rest_step = step;
    }
    fprintf(stderr, "   pile: at rest from step %d, all asleep at step %d\n", rest_step,
            asleep_step);
    VXK_CHECK_MSG(asleep_step >= 0, "the pile never fell asleep");
    VXK_CHECK_MSG(rest_step >= 0 && asleep_step - rest_step <= 120,
                  "asleep at step %d, %d steps after coming to rest at step %d", asleep_step,
                  asleep_step - rest_step, rest_step);
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(w, &stats);
    VXK_CHECK_EQ_INT(stats.sleeping_bodies, PILE);
    VXK_CHECK_EQ_INT(stats.awake_bodies, 0);
    vxk_transform before[PILE];
    for (int i = 0; i < PILE; ++i)
        before[i] = pose(w, ids[i]);
    for (int step = 0; step < 100; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    for (int i = 0; i < PILE; ++i) {
        vxk_transform t = pose(w, ids[i]);
        VXK_CHECK_MSG(memcmp(&t, &before[i], sizeof(t)) == 0, "sleeping box %d moved", i);
    }
    vxk_world_get_step_stats(w, &stats);
    VXK_CHECK_EQ_INT(stats.islands, 0); // nothing awake to solve
    // A ball at 8 m/s from the side: when it reaches the pile, the pile wakes and moves.
    vxk_body_id ball = add_sphere(w, (vxk_vec3){-8.0f, 1.0f, 0.0f}, (vxk_vec3){8.0f, 0.0f, 0.0f});
    VXK_CHECK(!VXK_ID_IS_NULL(ball));
    int woke = -1;
    for (int step = 0; step < 120 && woke < 0; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        for (int i = 0; i < PILE && woke < 0; ++i)
            if (awake(w, ids[i]))
                woke = step;
    }
    VXK_CHECK_MSG(woke >= 0, "the pile did not wake when hit");
    for (int step = 0; step < 10; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    int moved = 0;
    for (int i = 0; i < PILE; ++i) {
        vxk_transform t = pose(w, ids[i]);
        moved += memcmp(&t, &before[i], sizeof(t)) != 0;
    }
    fprintf(stderr, "   hit: woke at step %d, %d of %d boxes moved\n", woke, moved, PILE);
    VXK_CHECK_MSG(moved > 0, "nothing moved after the hit");
    vxk_world_destroy(w);
    return 0;
}

// A body dropped from 60 m falls for 3.5 s and one thrown up passes its apex: neither sleeps in
// the air.
static int test_nothing_sleeps_in_the_air(void)
{
    vxk_world* w = make_world(NULL, true);
    VXK_CHECK(w != NULL);
    vxk_body_id drop = add_box(w, (vxk_vec3){5.0f, 60.0f, 5.0f});
    vxk_body_id thrown =
        add_sphere(w, (vxk_vec3){-5.0f, 1.0f, -5.0f}, (vxk_vec3){0.0f, 12.0f, 0.0f});
    VXK_CHECK(!VXK_ID_IS_NULL(drop) && !VXK_ID_IS_NULL(thrown));
    for (int step = 0; step < 200; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        if (pose(w, drop).p.y > 1.0f)
            VXK_CHECK_MSG(awake(w, drop), "the falling box slept at y %.3g, step %d",
                          (double)pose(w, drop).p.y, step);
        if (pose(w, thrown).p.y > 1.0f)
            VXK_CHECK_MSG(awake(w, thrown), "the thrown sphere slept at y %.3g, step %d",
                          (double)pose(w, thrown).p.y, step);
    }
    vxk_world_destroy(w);
    return 0;
}

// Runs until body id sleeps (at most 10 s).
static int sleep_until(vxk_world* w, vxk_body_id id)
{
    for (int step = 0; step < 600 && awake(w, id); ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_MSG(!awake(w, id), "the body never fell asleep");
    return 0;
}

// Every API push or set wakes a sleeping body (and the island it slept with); user data does not.
static int test_api_wakes(void)
{
    vxk_world* w = make_world(NULL, true);
    VXK_CHECK(w != NULL);
    vxk_body_id low = add_box(w, (vxk_vec3){0.0f, 0.5f, 0.0f});
    vxk_body_id top = add_box(w, (vxk_vec3){0.0f, 1.5f, 0.0f});
    VXK_CHECK(!VXK_ID_IS_NULL(low) && !VXK_ID_IS_NULL(top));
    for (int kind = 0; kind < 8; ++kind) {
        if (sleep_until(w, top))
            return 1;
        VXK_CHECK_MSG(!awake(w, low), "the island did not sleep as one");
        VXK_CHECK_EQ_INT(vxk_body_set_user_data(w, top, &kind), VXK_OK);
        VXK_CHECK(!awake(w, top));
        vxk_transform t = pose(w, top);
        vxk_status st = VXK_OK;
        switch (kind) {
        case 0: st = vxk_body_apply_force(w, top, (vxk_vec3){1, 0, 0}, t.p); break;
        case 1: st = vxk_body_apply_force_to_center(w, top, (vxk_vec3){1, 0, 0}); break;
        case 2: st = vxk_body_apply_torque(w, top, (vxk_vec3){0, 1, 0}); break;
        case 3: st = vxk_body_apply_impulse(w, top, (vxk_vec3){0.1f, 0, 0}, t.p); break;
        case 4: st = vxk_body_apply_angular_impulse(w, top, (vxk_vec3){0, 0.1f, 0}); break;
        case 5: st = vxk_body_set_velocity(w, top, (vxk_vec3){0, 0, 0}, (vxk_vec3){0, 0, 0}); break;
        case 6: st = vxk_body_set_transform(w, top, t.p, t.q); break;
        default: st = vxk_body_set_awake(w, top, true); break;
        }
        VXK_CHECK_EQ_INT(st, VXK_OK);
        VXK_CHECK_MSG(awake(w, top) && awake(w, low), "call %d did not wake the island", kind);
    }
    // Put to sleep by the API: it sleeps alone, and the box on it wakes it at the next step.
    VXK_CHECK_EQ_INT(vxk_body_set_awake(w, low, false), VXK_OK);
    VXK_CHECK(!awake(w, low) && awake(w, top));
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_MSG(awake(w, low), "a body under an awake one stayed asleep");
    vxk_world_destroy(w);
    return 0;
}

// The terrain under a sleeping box is removed: it wakes and falls; a static platform under
// another is destroyed: it wakes and falls.
static int test_support_removed_wakes(void)
{
    vxk_world* w = make_world(NULL, true);
    VXK_CHECK(w != NULL);
    vxk_body_id box = add_box(w, (vxk_vec3){10.5f, 0.5f, 10.5f});
    vxk_body_def pd = vxk_default_body_def();
    pd.type = VXK_BODY_STATIC;
    pd.position = (vxk_vec3){-10.0f, 3.0f, -10.0f};
    pd.shape = vxk_box_shape((vxk_vec3){2.0f, 0.25f, 2.0f}, VXK_MAT_STONE);
    vxk_body_id platform = add(w, pd);
    vxk_body_id onto = add_box(w, (vxk_vec3){-10.0f, 3.75f, -10.0f});
    VXK_CHECK(!VXK_ID_IS_NULL(box) && !VXK_ID_IS_NULL(platform) && !VXK_ID_IS_NULL(onto));
    if (sleep_until(w, box) || sleep_until(w, onto))
        return 1;
    // A write far away wakes nothing.
    VXK_CHECK_EQ_INT(
        vxk_world_fill_box(w, (vxk_int_box){{-30, 0, 25}, {-29, 0, 26}}, VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK(!awake(w, box) && !awake(w, onto));
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, (vxk_int_box){{8, -8, 8}, {13, -1, 13}}, VXK_MAT_AIR),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_MSG(awake(w, box), "the box did not wake when the terrain under it went");
    VXK_CHECK(!awake(w, onto));
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, platform), VXK_OK);
    VXK_CHECK_MSG(awake(w, onto), "the box did not wake when its platform was destroyed");
    for (int step = 0; step < 30; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_MSG(pose(w, box).p.y < -0.5f, "the box did not fall (y %.3g)",
                  (double)pose(w, box).p.y);
    VXK_CHECK_MSG(pose(w, onto).p.y < 3.0f, "the box on the platform did not fall (y %.3g)",
                  (double)pose(w, onto).p.y);
    vxk_world_destroy(w);
    return 0;
}

// A box on a moving kinematic platform stays awake; once the platform stops it sleeps. With
// sleep off nothing sleeps.
static int test_kinematic_and_sleep_off(void)
{
    vxk_world* w = make_world(NULL, true);
    VXK_CHECK(w != NULL);
    vxk_body_def pd = vxk_default_body_def();
    pd.type = VXK_BODY_KINEMATIC;
    pd.position = (vxk_vec3){0.0f, 3.0f, 0.0f};
    pd.linear_velocity = (vxk_vec3){0.2f, 0.0f, 0.0f};
    pd.shape = vxk_box_shape((vxk_vec3){3.0f, 0.25f, 3.0f}, VXK_MAT_STONE);
    vxk_body_id platform = add(w, pd);
    vxk_body_id box = add_box(w, (vxk_vec3){0.0f, 3.75f, 0.0f});
    VXK_CHECK(!VXK_ID_IS_NULL(platform) && !VXK_ID_IS_NULL(box));
    for (int step = 0; step < 300; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        VXK_CHECK_MSG(awake(w, box), "the box on the moving platform slept at step %d", step);
    }
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, platform, (vxk_vec3){0, 0, 0}, (vxk_vec3){0, 0, 0}),
                     VXK_OK);
    if (sleep_until(w, box))
        return 1;
    vxk_world_destroy(w);
    w = make_world(NULL, false);
    VXK_CHECK(w != NULL);
    box = add_box(w, (vxk_vec3){0.0f, 0.5f, 0.0f});
    for (int step = 0; step < 300; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_MSG(awake(w, box), "a box slept with sleep off");
    vxk_world_destroy(w);
    return 0;
}

// Bodies created asleep (awake false) sleep where they are made, in mid-air too, until woken;
// 300 of them, with no awake body at all in the first steps (the step's task lists are sized for
// sleeping bodies as well as awake ones).
static int test_created_asleep(void)
{
    vxk_world* w = make_world(NULL, true);
    VXK_CHECK(w != NULL);
    enum { N = 300 };
    vxk_body_id ids[N];
    for (int i = 0; i < N; ++i) {
        vxk_body_def d = vxk_default_body_def();
        d.position = (vxk_vec3){-15.0f + (float)(i % 20) * 1.5f, 0.5f + (float)(i / 100) * 5.0f,
                                -15.0f + (float)((i / 20) % 5) * 1.5f};
        d.awake = false;
        d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
        ids[i] = add(w, d);
        VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
    }
    vxk_transform before = pose(w, ids[N - 1]);
    for (int step = 0; step < 30; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_transform after = pose(w, ids[N - 1]);
    VXK_CHECK_MSG(memcmp(&before, &after, sizeof(before)) == 0, "a body created asleep moved");
    VXK_CHECK(!awake(w, ids[N - 1]));
    VXK_CHECK_EQ_INT(vxk_body_set_awake(w, ids[N - 1], true), VXK_OK);
    for (int step = 0; step < 30; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_MSG(pose(w, ids[N - 1]).p.y < before.p.y - 1.0f, "the woken body did not fall");
    vxk_world_destroy(w);
    return 0;
}

// Piles that fall asleep and are woken by balls: one hash for every worker count.
static int sleep_run(uint32_t workers, uint64_t* hash)
{
    vxk_jobs* jobs = NULL;
    if (workers) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
    }
    vxk_world* w = make_world(jobs, true);
    VXK_CHECK(w != NULL);
    vxk_body_id ids[PILE];
    if (make_pile(w, ids))
        return 1;
    for (int step = 0; step < 300; ++step) {
        if (step == 200)
            VXK_CHECK(!VXK_ID_IS_NULL(
                add_sphere(w, (vxk_vec3){-8.0f, 1.0f, 0.3f}, (vxk_vec3){9.0f, 0.0f, 0.0f})));
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    }
    *hash = vxk_world_hash(w);
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    return 0;
}

static int test_workers_bitwise(void)
{
    uint64_t first = 0, other = 0;
    if (sleep_run(0, &first))
        return 1;
    const uint32_t workers[] = {1, 2, 3, 8};
    for (int r = 0; r < 4; ++r) {
        if (sleep_run(workers[r], &other))
            return 1;
        VXK_CHECK_MSG(other == first, "%u workers: hash %016llx, inline %016llx", workers[r],
                      (unsigned long long)other, (unsigned long long)first);
    }
    return 0;
}

int main(void)
{
    VXK_RUN(test_pile_sleeps_and_wakes);
    VXK_RUN(test_nothing_sleeps_in_the_air);
    VXK_RUN(test_api_wakes);
    VXK_RUN(test_support_removed_wakes);
    VXK_RUN(test_kinematic_and_sleep_off);
    VXK_RUN(test_created_asleep);
    VXK_RUN(test_workers_bitwise);
    return vxk_test_finish();
}
