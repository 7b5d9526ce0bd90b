// test_api_fuzz.c: the dynamics' contract as a property (vxk/world.h, "Limits"): no sequence of
// calls that each returned VXK_OK can make a later step fail, and after every VXK_OK each pose and
// velocity is finite. Seeded random sequences of API calls (worlds from random defs and material
// tables, bodies of every shape and type made and destroyed, poses, velocities, forces, torques,
// impulses, voxel edits, sleep, steps of random dt, terrain fills, rays), every float drawn over
// the whole float range (random finite bit patterns: log-uniform magnitudes from 1e-45 to FLT_MAX,
// both signs, and zeros) or near its field's limits. After each call: its status is one its
// header lists (tests/status_lists.h), an error left the world as it was (vxk_world_hash), and
// after VXK_OK every body's pose, box and velocities are finite, its speeds within the maxima,
// and the next vxk_world_step succeeds.
//
// Sequences that write terrain make spheres, boxes and capsules; the others make voxel bodies too
// (a voxel body gathers the terrain around it voxel by voxel over its margin, whose cost at the
// speeds the limits allow is the narrowphase's to bound, not the contract's).
//
// VXK_API_FUZZ_SEQUENCES=n runs n sequences (default 8000, 1000 under sanitizers);
// VXK_API_FUZZ_ONLY=k replays sequence k alone, printing each call.
#include "status_lists.h"
#include "test.h"

#include <vxk/vxk.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BODIES 16 // live bodies at most
#define ID_RING 32    // the last ids handed out, live or destroyed
#define MAT_LIGHT 21  // solid, density 0.5 (a light body)
#define STEP_DT (1.0f / 60.0f)

typedef struct fuzz {
    uint64_t rng;
    vxk_world* w;
    float vs;     // the world's voxel size
    bool terrain; // this sequence writes terrain (and makes no voxel bodies)
    bool verbose; // print each call
    bool wild;    // the values of this call may be anything (else near their limits)
    int sequence; // its number
    int call;     // the call being checked
    int failures; // checks failed
    // The shape of the sequences: live bodies at most (<= MAX_BODIES), calls (min + [0, span)).
    // Part of a sequence's seed: a regression (test_api_regressions) names the shape it ran in.
    uint32_t max_bodies, calls_min, calls_span;
    vxk_body_id ids[ID_RING];
    uint32_t id_count; // ids handed out
} fuzz;

// ---- random values ------------------------------------------------------------------------------

static uint32_t below(fuzz* f, uint32_t n)
{
    return (uint32_t)(vxk_test_rand(&f->rng) % n);
}

static double unit(fuzz* f)
{
    return (double)(vxk_test_rand(&f->rng) >> 11) * (1.0 / 9007199254740992.0);
}

// Any finite float, both signs: a random bit pattern (its exponent uniform, so its magnitude
// log-uniform from the least subnormal to FLT_MAX), and zeros.
static float any_float(fuzz* f)
{
    if (below(f, 16) == 0)
        return below(f, 2) ? -0.0f : 0.0f;
    for (;;) {
        uint32_t bits = (uint32_t)vxk_test_rand(&f->rng);
        if ((bits >> 23 & 0xFFu) == 0xFFu)
            continue;
        float x;
        memcpy(&x, &bits, sizeof(x));
        return x;
    }
}

// A magnitude log-uniform in [lo, hi], negative one time in eight.
static float near_float(fuzz* f, double lo, double hi)
{
    double m = exp(log(lo) + unit(f) * (log(hi) - log(lo)));
    return (float)(below(f, 8) == 0 ? -m : m);
}

// A field's value: near the field's range [lo, hi] (which straddles its limits) or zero; in a wild
// call, one value in four anything.
static float draw(fuzz* f, double lo, double hi)
{
    if (f->wild && below(f, 4) == 0)
        return any_float(f);
    return below(f, 16) == 0 ? 0.0f : near_float(f, lo, hi);
}

// One time in four, a field of a def takes a drawn value (else it keeps its default).
static void sometimes(fuzz* f, float* field, double lo, double hi)
{
    if (below(f, 4) == 0)
        *field = draw(f, lo, hi);
}

static vxk_vec3 draw3(fuzz* f, double lo, double hi)
{
    return (vxk_vec3){draw(f, lo, hi), draw(f, lo, hi), draw(f, lo, hi)};
}

// A position: near the terrain at the origin half the time, else anywhere up to past the range.
static vxk_vec3 draw_position(fuzz* f)
{
    if (below(f, 2)) {
        float s = 24.0f * f->vs;
        return (vxk_vec3){(float)(unit(f) * 2 - 1) * s, (float)(unit(f) * 2 - 0.5) * s,
                          (float)(unit(f) * 2 - 1) * s};
    }
    double edge = 2147483648.0 * f->vs;
    return draw3(f, 1e-3 * f->vs, 4.0 * edge);
}

static vxk_quat draw_rotation(fuzz* f)
{
    uint32_t r = below(f, 8);
    if (r == 0 && f->wild)
        return (vxk_quat){any_float(f), any_float(f), any_float(f), any_float(f)};
    double q[4], n = 0.0;
    do {
        n = 0.0;
        for (int i = 0; i < 4; ++i) {
            q[i] = unit(f) * 2 - 1;
            n += q[i] * q[i];
        }
    } while (n < 1e-3 || n > 1.0);
    n = sqrt(n) * (r == 1 && below(f, 2) ? 1.0 + (unit(f) - 0.5) * 4e-3 : 1.0); // off unit
    return (vxk_quat){(float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n)};
}

// A material: one a body may have, or (one time in sixteen) air, water or an undefined id.
static uint8_t draw_material(fuzz* f)
{
    static const uint8_t usable[] = {VXK_MAT_STONE, VXK_MAT_WOOD, VXK_MAT_METAL, MAT_LIGHT,
                                     VXK_MAT_ICE};
    static const uint8_t other[] = {VXK_MAT_AIR, VXK_MAT_WATER, 200};
    return below(f, 16) ? usable[below(f, sizeof(usable))] : other[below(f, sizeof(other))];
}

static vxk_body_id draw_id(fuzz* f)
{
    if (f->id_count == 0 || below(f, 16) == 0)
        return (vxk_body_id){below(f, 4), below(f, 3)}; // null or made up
    return f->ids[below(f, f->id_count < ID_RING ? f->id_count : ID_RING)];
}

// ---- checks -------------------------------------------------------------------------------------

// Calls and their VXK_OKs by function, over all sequences (VXK_API_FUZZ_STATS=1 prints them).
typedef struct call_count {
    const char* function;
    uint64_t calls, ok;
} call_count;
static call_count g_counts[24];

static void count_call(const char* function, vxk_status st)
{
    for (size_t i = 0; i < sizeof(g_counts) / sizeof(g_counts[0]); ++i) {
        call_count* c = &g_counts[i];
        if (!c->function)
            c->function = function;
        if (strcmp(c->function, function) == 0) {
            c->calls++;
            c->ok += st == VXK_OK;
            return;
        }
    }
}

#define FUZZ_FAIL(f, ...)                                                               \
    do {                                                                                \
        fprintf(stderr, "sequence %d (VXK_API_FUZZ_ONLY=%d), call %d: ", (f)->sequence, \
                (f)->sequence, (f)->call);                                              \
        fprintf(stderr, __VA_ARGS__);                                                   \
        fprintf(stderr, "\n");                                                          \
        (f)->failures++;                                                                \
        return false;                                                                   \
    } while (0)

static bool finite3(vxk_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static double length3(vxk_vec3 v)
{
    return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
}

// Every body: pose, box and velocities finite, speeds within the maxima. Replays print them.
static bool bodies_sane(fuzz* f, const char* after)
{
    vxk_body_id ids[MAX_BODIES + 4];
    uint32_t n = vxk_world_get_bodies(f->w, ids, MAX_BODIES + 4);
    for (uint32_t i = 0; i < n && i < MAX_BODIES + 4; ++i) {
        vxk_transform t;
        vxk_vec3 v, av;
        vxk_aabb box;
        if (vxk_body_get_transform(f->w, ids[i], &t) != VXK_OK ||
            vxk_body_get_velocity(f->w, ids[i], &v, &av) != VXK_OK ||
            vxk_body_get_aabb(f->w, ids[i], &box) != VXK_OK)
            FUZZ_FAIL(f, "after %s: body %u unreadable", after, ids[i].index);
        if (f->verbose)
            fprintf(stderr,
                    "     body %u: p (%.9g, %.9g, %.9g) q (%.9g, %.9g, %.9g, %.9g) "
                    "v (%.9g, %.9g, %.9g) w (%.9g, %.9g, %.9g)\n",
                    ids[i].index, (double)t.p.x, (double)t.p.y, (double)t.p.z, (double)t.q.x,
                    (double)t.q.y, (double)t.q.z, (double)t.q.w, (double)v.x, (double)v.y,
                    (double)v.z, (double)av.x, (double)av.y, (double)av.z);
        bool finite = finite3(t.p) && isfinite(t.q.x) && isfinite(t.q.y) && isfinite(t.q.z) &&
                      isfinite(t.q.w) && finite3(v) && finite3(av) && finite3(box.min) &&
                      finite3(box.max);
        if (!finite)
            FUZZ_FAIL(f,
                      "after %s: body %u not finite: p (%g, %g, %g) q w %g v (%g, %g, %g) "
                      "w (%g, %g, %g)",
                      after, ids[i].index, (double)t.p.x, (double)t.p.y, (double)t.p.z,
                      (double)t.q.w, (double)v.x, (double)v.y, (double)v.z, (double)av.x,
                      (double)av.y, (double)av.z);
        if (length3(v) > VXK_MAX_LINEAR_SPEED * (1.0 + 1e-6) ||
            length3(av) > VXK_MAX_ANGULAR_SPEED * (1.0 + 1e-6))
            FUZZ_FAIL(f, "after %s: body %u speed %.9g, spin %.9g past the maxima", after,
                      ids[i].index, length3(v), length3(av));
    }
    return true;
}

// The status of a call: one its header lists; after an error the world as it was (hash); after
// VXK_OK sane bodies and a next step that succeeds (and leaves them sane).
static bool check(fuzz* f, const char* function, vxk_status st, uint64_t hash_before)
{
    f->call++;
    count_call(function, st);
    if (f->verbose)
        fprintf(stderr, "  %d: %s -> %s\n", f->call, function, vxk_status_string(st));
    if (!vxk_test_status_documented(function, st))
        FUZZ_FAIL(f, "%s returned %s, which its header does not list", function,
                  vxk_status_string(st));
    if (st != VXK_OK) {
        if (vxk_world_hash(f->w) != hash_before)
            FUZZ_FAIL(f, "%s failed (%s) and changed the world", function, vxk_status_string(st));
        return true;
    }
    if (!bodies_sane(f, function))
        return false;
    vxk_status next = vxk_world_step(f->w, STEP_DT);
    if (next != VXK_OK)
        FUZZ_FAIL(f, "the step after %s failed: %s", function, vxk_status_string(next));
    return bodies_sane(f, "the next step");
}

#define CALL(f, fn, ...)                              \
    do {                                              \
        uint64_t hash_ = vxk_world_hash((f)->w);      \
        if (!check((f), #fn, fn(__VA_ARGS__), hash_)) \
            return false;                             \
    } while (0)

// ---- the calls ----------------------------------------------------------------------------------

static vxk_shape_def draw_shape(fuzz* f, vxk_voxel_grid* grid, uint8_t* cells)
{
    uint32_t kinds = f->terrain ? 3 : 4;
    uint32_t kind = below(f, kinds);
    float size = draw(f, 6e-4, 1.5e3), size2 = draw(f, 6e-4, 1.5e3);
    if (kind == 0)
        return vxk_sphere_shape(size, draw_material(f));
    if (kind == 1)
        return vxk_box_shape(draw3(f, 6e-4, 1.5e3), draw_material(f));
    if (kind == 2)
        return vxk_capsule_shape(size, size2, draw_material(f));
    grid->size =
        (vxk_int3){1 + (int32_t)below(f, 3), 1 + (int32_t)below(f, 3), 1 + (int32_t)below(f, 3)};
    if (below(f, 32) == 0)
        grid->size.y = below(f, 2) ? 0 : VXK_BODY_MAX_GRID + 1; // refused before it is read
    for (int i = 0; i < 27; ++i)
        cells[i] = below(f, 3) == 0 ? VXK_MAT_AIR
                   : below(f, 64)   ? VXK_MAT_STONE + below(f, 9)
                                    : 200;
    cells[below(f, 27)] = VXK_MAT_STONE;
    grid->voxels = cells;
    return vxk_voxel_shape(grid, below(f, 4) == 0 ? 0.0f : size);
}

static bool call_create(fuzz* f)
{
    vxk_voxel_grid grid;
    uint8_t cells[27];
    vxk_body_def d = vxk_default_body_def();
    uint32_t r = below(f, 8);
    d.type = r == 0 ? VXK_BODY_STATIC : r == 1 ? VXK_BODY_KINEMATIC : VXK_BODY_DYNAMIC;
    d.shape = draw_shape(f, &grid, cells);
    d.position = draw_position(f);
    d.rotation = draw_rotation(f);
    if (below(f, 2))
        d.linear_velocity = draw3(f, 1e-3, 2e3);
    if (below(f, 2))
        d.angular_velocity = draw3(f, 1e-3, 2e3);
    sometimes(f, &d.linear_damping, 1e-3, 4e3);
    sometimes(f, &d.angular_damping, 1e-3, 4e3);
    sometimes(f, &d.gravity_scale, 1e-3, 40.0);
    sometimes(f, &d.friction, 1e-3, 400.0);
    if (below(f, 4) == 0)
        d.restitution = f->wild ? any_float(f) : (float)(unit(f) * 1.3 - 0.25);
    d.is_bullet = below(f, 4) == 0;
    d.awake = below(f, 8) != 0;
    vxk_body_id id = {0, 0};
    uint64_t hash = vxk_world_hash(f->w);
    if (vxk_world_body_count(f->w) >= f->max_bodies)
        return true;
    vxk_status st = vxk_body_create(f->w, &d, &id);
    if (f->verbose)
        fprintf(stderr,
                "     create: type %d shape %d radius %.9g half (%.9g, %.9g, %.9g) height %.9g "
                "voxel %.9g material %d p (%.9g, %.9g, %.9g)\n",
                d.type, d.shape.type, (double)d.shape.radius, (double)d.shape.half_extents.x,
                (double)d.shape.half_extents.y, (double)d.shape.half_extents.z,
                (double)d.shape.half_height, (double)d.shape.voxel_size, d.shape.material,
                (double)d.position.x, (double)d.position.y, (double)d.position.z);
    if (st == VXK_OK)
        f->ids[f->id_count++ % ID_RING] = id;
    return check(f, "vxk_body_create", st, hash);
}

static bool call_body(fuzz* f)
{
    vxk_body_id id = draw_id(f);
    switch (below(f, 11)) {
    case 0: CALL(f, vxk_body_destroy, f->w, id); break;
    case 1: CALL(f, vxk_body_set_transform, f->w, id, draw_position(f), draw_rotation(f)); break;
    case 2:
        CALL(f, vxk_body_set_velocity, f->w, id, draw3(f, 1e-3, 2e3), draw3(f, 1e-3, 2e3));
        break;
    case 3: CALL(f, vxk_body_set_awake, f->w, id, below(f, 2) != 0); break;
    case 4: CALL(f, vxk_body_apply_force, f->w, id, draw3(f, 1e-3, 4e20), draw_position(f)); break;
    case 5: CALL(f, vxk_body_apply_force_to_center, f->w, id, draw3(f, 1e-3, 4e20)); break;
    case 6: CALL(f, vxk_body_apply_torque, f->w, id, draw3(f, 1e-3, 4e20)); break;
    case 7:
        CALL(f, vxk_body_apply_impulse, f->w, id, draw3(f, 1e-3, 4e20), draw_position(f));
        break;
    case 8: CALL(f, vxk_body_apply_angular_impulse, f->w, id, draw3(f, 1e-3, 4e20)); break;
    case 9: {
        // A voxel edit (other bodies refuse it): a box in or past a 3^3 grid.
        uint8_t ids[27];
        for (int i = 0; i < 27; ++i)
            ids[i] = below(f, 2) ? draw_material(f) : VXK_MAT_AIR;
        vxk_int3 lo = {(int32_t)below(f, 3), (int32_t)below(f, 3), (int32_t)below(f, 3)};
        vxk_int_box box = {lo,
                           {lo.x + (int32_t)below(f, 2), lo.y + (int32_t)below(f, 2),
                            lo.z + (int32_t)below(f, 2)}};
        CALL(f, vxk_body_set_voxels, f->w, id, box, ids);
        break;
    }
    default: {
        vxk_ray_query q = {
            {draw_position(f), draw3(f, 1e-3, 10.0), below(f, 4) ? INFINITY : draw(f, 1e-3, 1e10)},
            vxk_default_ray_filter()};
        vxk_ray_result r;
        uint64_t hash = vxk_world_hash(f->w);
        vxk_status st = vxk_raycast_query(f->w, &r, &q);
        if (st == VXK_OK && r.target != VXK_RAY_TARGET_NONE &&
            !(finite3(r.point) && finite3(r.normal) && isfinite(r.distance)))
            FUZZ_FAIL(f,
                      "vxk_raycast_query from (%g, %g, %g) along (%g, %g, %g) to %g: target %d "
                      "at %g, point (%g, %g, %g), normal (%g, %g, %g)",
                      (double)q.ray.origin.x, (double)q.ray.origin.y, (double)q.ray.origin.z,
                      (double)q.ray.direction.x, (double)q.ray.direction.y,
                      (double)q.ray.direction.z, (double)q.ray.max_distance, r.target,
                      (double)r.distance, (double)r.point.x, (double)r.point.y, (double)r.point.z,
                      (double)r.normal.x, (double)r.normal.y, (double)r.normal.z);
        return check(f, "vxk_raycast_query", st, hash);
    }
    }
    return true;
}

static bool call_world(fuzz* f)
{
    switch (below(f, 4)) {
    case 0: {
        if (!f->terrain)
            return true;
        int32_t s = 24;
        vxk_int3 lo = {(int32_t)below(f, (uint32_t)s) - s / 2, (int32_t)below(f, 8) - 8,
                       (int32_t)below(f, (uint32_t)s) - s / 2};
        vxk_int_box box = {lo,
                           {lo.x + (int32_t)below(f, 8), lo.y + (int32_t)below(f, 8),
                            lo.z + (int32_t)below(f, 8)}};
        uint8_t m = below(f, 3) ? VXK_MAT_STONE : below(f, 2) ? VXK_MAT_AIR : VXK_MAT_WATER;
        CALL(f, vxk_world_fill_box, f->w, box, m);
        break;
    }
    case 1: {
        vxk_ray ray = {draw_position(f), draw3(f, 1e-3, 10.0),
                       below(f, 4) ? INFINITY : draw(f, 1e-3, 1e10)};
        vxk_ray_hit hit;
        uint64_t hash = vxk_world_hash(f->w);
        vxk_status st = vxk_raycast(f->w, &hit, &ray);
        if (st == VXK_OK && hit.hit &&
            !(finite3(hit.point) && finite3(hit.normal) && isfinite(hit.distance)))
            FUZZ_FAIL(f,
                      "vxk_raycast from (%g, %g, %g) along (%g, %g, %g): at %g, point (%g, %g, %g)",
                      (double)ray.origin.x, (double)ray.origin.y, (double)ray.origin.z,
                      (double)ray.direction.x, (double)ray.direction.y, (double)ray.direction.z,
                      (double)hit.distance, (double)hit.point.x, (double)hit.point.y,
                      (double)hit.point.z);
        return check(f, "vxk_raycast", st, hash);
    }
    default: {
        uint32_t r = below(f, 4);
        float dt = r == 0 ? STEP_DT : r == 1 && f->wild ? any_float(f) : draw(f, 1e-7, 2.0);
        CALL(f, vxk_world_step, f->w, dt);
        break;
    }
    }
    return true;
}

// ---- a sequence ---------------------------------------------------------------------------------

// A material table of the default's with MAT_LIGHT, and (random) now and then a random density,
// friction and restitution on wood (random values as every other).
static void draw_materials(fuzz* f, vxk_material_table* t, bool random)
{
    vxk_default_material_table(t);
    vxk_material* light = &t->materials[MAT_LIGHT];
    *light = t->materials[VXK_MAT_WOOD];
    light->density = 0.5f;
    if (random && below(f, 4) == 0) {
        vxk_material* wood = &t->materials[VXK_MAT_WOOD];
        wood->density = draw(f, 1e-4, 4e5);
        wood->friction = draw(f, 1e-3, 400.0);
        wood->restitution = f->wild ? any_float(f) : (float)(unit(f) * 1.2);
    }
}

// A world from a random def: until one is made, each refusal checked against the header's list.
static bool make_world(fuzz* f)
{
    static vxk_material_table table;
    for (int attempt = 0;; ++attempt) {
        f->wild = below(f, 2) != 0;
        vxk_world_def d = vxk_default_world_def();
        bool tame = attempt >= 4; // then only the voxel size is random, within its range
        draw_materials(f, &table, !tame);
        d.materials = &table;
        d.voxel_size = tame ? (float)exp(log(1e-3) + unit(f) * log(1e6)) : draw(f, 6e-4, 1.5e3);
        if (!tame) {
            if (below(f, 2))
                d.gravity = draw3(f, 1e-2, 400.0);
            if (below(f, 4) == 0)
                d.substeps = below(f, 70);
            sometimes(f, &d.contact_hertz, 1e-2, 4e4);
            sometimes(f, &d.contact_damping_ratio, 1e-3, 4e3);
            sometimes(f, &d.contact_push_speed, 1e-3, 4e3);
            sometimes(f, &d.restitution_threshold, 1e-3, 4e3);
            sometimes(f, &d.linear_slop, 1e-4, 4.0);
            sometimes(f, &d.sleep_threshold, 1e-3, 4e3);
            sometimes(f, &d.time_to_sleep, 1e-3, 100.0);
            d.enable_sleep = below(f, 4) != 0;
            d.contact_recycling = below(f, 4) != 0;
        }
        vxk_world* const canary = (vxk_world*)(uintptr_t)0xA5A5A5A0u;
        vxk_world* w = canary;
        vxk_status st = vxk_world_create(&d, &w);
        f->call++;
        count_call("vxk_world_create", st);
        if (!vxk_test_status_documented("vxk_world_create", st))
            FUZZ_FAIL(f, "vxk_world_create returned %s, which its header does not list",
                      vxk_status_string(st));
        if (f->verbose)
            fprintf(stderr,
                    "  world: %s voxel %.9g gravity (%.9g, %.9g, %.9g) substeps %u hertz %.9g "
                    "ratio %.9g push %.9g threshold %.9g slop %.9g sleep %d %.9g %.9g "
                    "recycling %d wood %.9g %.9g %.9g\n",
                    vxk_status_string(st), (double)d.voxel_size, (double)d.gravity.x,
                    (double)d.gravity.y, (double)d.gravity.z, d.substeps, (double)d.contact_hertz,
                    (double)d.contact_damping_ratio, (double)d.contact_push_speed,
                    (double)d.restitution_threshold, (double)d.linear_slop, d.enable_sleep,
                    (double)d.sleep_threshold, (double)d.time_to_sleep, d.contact_recycling,
                    (double)table.materials[VXK_MAT_WOOD].density,
                    (double)table.materials[VXK_MAT_WOOD].friction,
                    (double)table.materials[VXK_MAT_WOOD].restitution);
        if (st != VXK_OK) {
            if (w != canary)
                FUZZ_FAIL(f, "vxk_world_create failed and wrote *out");
            continue;
        }
        f->w = w;
        f->vs = d.voxel_size;
        return true;
    }
}

static bool run_sequence(fuzz* f)
{
    if (!make_world(f))
        return false;
    if (f->terrain) {
        // A floor and a block near the origin.
        CALL(f, vxk_world_fill_box, f->w, ((vxk_int_box){{-12, -4, -12}, {11, -1, 11}}),
             VXK_MAT_STONE);
        CALL(f, vxk_world_fill_box, f->w, ((vxk_int_box){{2, 0, -3}, {5, 3, 0}}), VXK_MAT_WOOD);
    }
    CALL(f, vxk_world_step, f->w, 0.0f);
    int calls = (int)f->calls_min + (int)below(f, f->calls_span);
    for (int i = 0; i < calls; ++i) {
        f->wild = below(f, 2) != 0;
        uint32_t r = below(f, 10);
        bool ok = r < 3 ? call_create(f) : r < 8 ? call_body(f) : call_world(f);
        if (!ok)
            return false;
    }
    return true;
}

#define FUZZ_SEED 0xF022A11u

// The sequences' shapes (fuzz.max_bodies, calls_min, calls_span), the last one the default.
static const uint32_t k_shape_1[3] = {12, 20, 40}, k_shape_2[3] = {16, 30, 90};
#define k_shape k_shape_2

// One sequence, its generator made from the base seed and its number; whether it passed.
static bool run_one(uint64_t base, const uint32_t shape[3], int sequence, bool verbose)
{
    fuzz f;
    memset(&f, 0, sizeof(f));
    f.max_bodies = shape[0];
    f.calls_min = shape[1];
    f.calls_span = shape[2];
    f.rng = base ^ ((uint64_t)sequence * 0x9E3779B97F4A7C15ull);
    f.sequence = sequence;
    f.verbose = verbose;
    f.terrain = below(&f, 2) != 0;
    bool ok = run_sequence(&f) && f.failures == 0;
    vxk_world_destroy(f.w);
    return ok;
}

static int test_api_sequences(void)
{
    const char* env = getenv("VXK_API_FUZZ_SEQUENCES");
    const char* only = getenv("VXK_API_FUZZ_ONLY");
    int count = env ? atoi(env) : VXK_TEST_SLOW ? 1000 : 8000;
    int first = only ? atoi(only) : 0;
    if (only)
        count = first + 1;
    VXK_CHECK(vxk_test_status_lists_problems() == 0);
    uint64_t base = vxk_test_seed(FUZZ_SEED);
    int failures = 0;
    for (int s = first; s < count && failures < 5; ++s)
        failures += !run_one(base, k_shape, s, only != NULL);
    uint64_t total = 0, total_ok = 0;
    for (size_t i = 0; i < sizeof(g_counts) / sizeof(g_counts[0]) && g_counts[i].function; ++i) {
        total += g_counts[i].calls;
        total_ok += g_counts[i].ok;
        if (getenv("VXK_API_FUZZ_STATS"))
            fprintf(stderr, "  %-32s %8llu calls, %8llu ok\n", g_counts[i].function,
                    (unsigned long long)g_counts[i].calls, (unsigned long long)g_counts[i].ok);
    }
    fprintf(stderr, "  %d sequences from %d: %llu calls checked, %llu returned VXK_OK\n",
            count - first, first, (unsigned long long)total, (unsigned long long)total_ok);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), 0);
    return failures != 0;
}

// Sequences that once failed, by the VXK_TEST_SEED they ran under, the shape and their number,
// run whatever the seed.
static int test_api_regressions(void)
{
    static const struct {
        uint64_t soak_seed;
        const uint32_t* shape;
        int sequence;
        const char* what;
    } cases[] = {
        {3, k_shape_1, 4141,
         "a box of half extents (0.85, 0.17, 628) spinning at 1000 rad/s into a capsule of radius "
         "220: the solve's central friction (a tangent mass of -0.27) went to NaN"},
        {21, k_shape_2, 3931,
         "a capsule 640 m long and 2.3 cm thick in one island with voxel bodies: the solve went "
         "to NaN step after step"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        uint64_t base = FUZZ_SEED ^ (cases[i].soak_seed * 0x9E3779B97F4A7C15ull);
        VXK_CHECK_MSG(run_one(base, cases[i].shape, cases[i].sequence, false),
                      "VXK_TEST_SEED=%llu, sequence %d: %s", (unsigned long long)cases[i].soak_seed,
                      cases[i].sequence, cases[i].what);
    }
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), 0);
    return 0;
}

int main(void)
{
    VXK_RUN(test_api_regressions);
    VXK_RUN(test_api_sequences);
    return vxk_test_finish();
}
