// test_ray_body.c: ray queries that hit bodies (vxk/raycast.h: vxk_raycast_query,
// vxk_raycast_query_batch) against a brute-force reference written here from the shapes'
// definitions alone: spheres by the geometric construction (closest approach to the centre),
// boxes by their six face planes in world space, voxel grids (voxel bodies and the terrain) by
// every exposed face of every solid voxel, with vectors rotated by the quaternion formula (no
// matrix). Thousands of seeded rays over random scenes (rotated boxes, spheres, voxel bodies of
// every body type, some destroyed, over generated terrain with caves and water), with random
// filters and exclusions: the closest hit, what was hit (terrain voxel or body id), the normal and
// the material must match; the batch must equal single queries byte for byte, and a terrain-only
// query vxk_raycast. Plus hand-made cases with known answers, bad input and out-of-memory sweeps.
//
// The reference is taken three times: exact, with every face shrunk by EPS inside its plane
// (sphere radius - EPS; a hit there is certainly a hit), and grown by EPS. A ray is clear when the
// three agree on what is hit (and the hit is not at max_distance): then the result must equal
// the exact one. Otherwise (grazing an edge or silhouette within EPS) its distance must lie
// between the grown and the shrunk references'. Clear rays must be the vast majority.
#include <math.h>
#include <string.h>

#include <vxk/vxk.h>

#include "harness.h"
#include "scenes.h"
#include "test.h"

#define EPS 2e-4 // metres, far above float rounding at the scenes' coordinates
#define TERRAIN_X 32
#define TERRAIN_Y 24
#define TERRAIN_Z 32
#define TARGET_TERRAIN (-1)
#define NONE_T INFINITY

// ---- reference geometry ------------------------------------------------------------------------

typedef struct ref_ray {
    double o[3], d[3]; // d unit
    double tmax;
} ref_ray;

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// v rotated by the unit quaternion (x, y, z, w): v + 2w (u x v) + 2 u x (u x v); conj: -u.
static void quat_apply(const double q[4], bool inverse, const double v[3], double out[3])
{
    double u[3] = {inverse ? -q[0] : q[0], inverse ? -q[1] : q[1], inverse ? -q[2] : q[2]};
    double uv[3], uuv[3];
    cross3(u, v, uv);
    cross3(u, uv, uuv);
    for (int k = 0; k < 3; ++k)
        out[k] = v[k] + 2.0 * q[3] * uv[k] + 2.0 * uuv[k];
}

// A reference hit of one target.
typedef struct ref_hit {
    double t;       // NONE_T: no hit
    double n[3];    // world normal
    double edge;    // how far inside its face the hit lies (metres); INFINITY for spheres
    vxk_int3 voxel; // grids: the solid voxel
    uint8_t material;
    bool inside; // the origin is inside the shape
} ref_hit;

static ref_hit no_hit(void)
{
    ref_hit h;
    memset(&h, 0, sizeof(h));
    h.t = NONE_T;
    return h;
}

// A ray starting inside a shape: distance 0, normal against the direction.
static ref_hit inside_hit(const ref_ray* r)
{
    ref_hit h = no_hit();
    h.t = 0.0;
    h.inside = true;
    for (int k = 0; k < 3; ++k)
        h.n[k] = -r->d[k];
    h.edge = INFINITY;
    return h;
}

static ref_hit ref_sphere(const double c[3], double radius, const ref_ray* r, double grow)
{
    ref_hit h = no_hit();
    double rad = radius + grow;
    double l[3] = {c[0] - r->o[0], c[1] - r->o[1], c[2] - r->o[2]};
    double l2 = dot3(l, l);
    if (l2 <= rad * rad) {
        h = inside_hit(r);
        return h;
    }
    double tca = dot3(l, r->d); // the closest approach along the ray
    if (tca < 0.0)
        return h;
    double d2 = l2 - tca * tca;
    if (d2 > rad * rad)
        return h;
    h.t = tca - sqrt(rad * rad - d2);
    for (int k = 0; k < 3; ++k)
        h.n[k] = (r->o[k] + h.t * r->d[k] - c[k]) / rad;
    h.edge = INFINITY;
    return h;
}

// The box's six faces in world space: the plane through centre + s h_a axis_a, with normal
// s axis_a, hit from outside; the point must lie within h_b (+ grow) along the other axes.
static ref_hit ref_box(const double c[3], const double q[4], const double half[3], const ref_ray* r,
                       double grow)
{
    ref_hit h = no_hit();
    double axis[3][3];
    for (int a = 0; a < 3; ++a) {
        double e[3] = {0, 0, 0};
        e[a] = 1.0;
        quat_apply(q, false, e, axis[a]);
    }
    double rel[3] = {r->o[0] - c[0], r->o[1] - c[1], r->o[2] - c[2]};
    bool inside = true;
    for (int a = 0; a < 3; ++a)
        inside &= fabs(dot3(rel, axis[a])) <= half[a] + grow;
    if (inside) {
        h = inside_hit(r);
        return h;
    }
    for (int a = 0; a < 3; ++a) {
        for (int s = -1; s <= 1; s += 2) {
            double n[3] = {s * axis[a][0], s * axis[a][1], s * axis[a][2]};
            double dn = dot3(r->d, n);
            if (dn >= 0.0)
                continue;
            // plane: dot(x - c, n) = half[a] + grow
            double t = ((half[a] + grow) - dot3(rel, n)) / dn;
            if (t < 0.0 || t >= h.t)
                continue;
            double p[3] = {rel[0] + t * r->d[0], rel[1] + t * r->d[1], rel[2] + t * r->d[2]};
            double margin = INFINITY;
            for (int b = 0; b < 3; ++b) {
                if (b == a)
                    continue;
                double m = half[b] + grow - fabs(dot3(p, axis[b]));
                margin = m < margin ? m : margin;
            }
            if (margin < 0.0)
                continue;
            h.t = t;
            memcpy(h.n, n, sizeof(n));
            h.edge = margin;
        }
    }
    return h;
}

// A voxel grid in a frame: world = p + rotate(q, origin + g * vs) for grid coordinates g.
typedef struct ref_face {
    int32_t v[3];
    int8_t axis, sign;
} ref_face;

typedef struct ref_grid {
    int32_t n[3];
    uint8_t* ids;
    uint8_t* solid;
    ref_face* faces; // exposed faces of solid voxels
    uint32_t face_count;
    double p[3], q[4], origin[3], vs;
    int32_t offset[3]; // added to the reported voxel (terrain: the read box's corner)
} ref_grid;

static size_t grid_index(const ref_grid* g, const int32_t v[3])
{
    return (size_t)v[0] + (size_t)g->n[0] * ((size_t)v[2] + (size_t)g->n[2] * (size_t)v[1]);
}

static bool grid_solid_at(const ref_grid* g, const int32_t v[3])
{
    for (int a = 0; a < 3; ++a)
        if (v[a] < 0 || v[a] >= g->n[a])
            return false;
    return g->solid[grid_index(g, v)] != 0;
}

// Lists the exposed faces (a solid voxel beside a non-solid one or the grid's outside).
static int grid_faces(ref_grid* g)
{
    size_t cap = 0;
    g->face_count = 0;
    g->faces = NULL;
    for (int32_t y = 0; y < g->n[1]; ++y)
        for (int32_t z = 0; z < g->n[2]; ++z)
            for (int32_t x = 0; x < g->n[0]; ++x) {
                int32_t v[3] = {x, y, z};
                if (!grid_solid_at(g, v))
                    continue;
                for (int a = 0; a < 3; ++a)
                    for (int s = -1; s <= 1; s += 2) {
                        int32_t w[3] = {x, y, z};
                        w[a] += s;
                        if (grid_solid_at(g, w))
                            continue;
                        if (g->face_count == cap) {
                            cap = cap ? 2 * cap : 256;
                            g->faces = (ref_face*)realloc(g->faces, cap * sizeof(ref_face));
                            VXK_CHECK(g->faces != NULL);
                        }
                        g->faces[g->face_count++] = (ref_face){{x, y, z}, (int8_t)a, (int8_t)s};
                    }
            }
    return 0;
}

static void grid_free(ref_grid* g)
{
    free(g->ids);
    free(g->solid);
    free(g->faces);
    memset(g, 0, sizeof(*g));
}

static ref_hit ref_grid_hit(const ref_grid* g, const ref_ray* r, double grow)
{
    ref_hit h = no_hit();
    double rel[3] = {r->o[0] - g->p[0], r->o[1] - g->p[1], r->o[2] - g->p[2]};
    double lo[3], ld[3], go[3], gd[3];
    quat_apply(g->q, true, rel, lo);
    quat_apply(g->q, true, r->d, ld);
    for (int a = 0; a < 3; ++a) {
        go[a] = (lo[a] - g->origin[a]) / g->vs;
        gd[a] = ld[a] / g->vs;
    }
    // Inside: the voxel holding the origin is solid (shrunk: and the origin is EPS clear of its
    // faces; grown: any voxel within EPS of the origin is solid).
    double eg = grow / g->vs;
    int32_t base[3];
    for (int a = 0; a < 3; ++a)
        base[a] = (int32_t)floor(go[a]);
    bool inside = false;
    if (grow >= 0.0) {
        for (int dx = -1; dx <= 1 && !inside; ++dx)
            for (int dy = -1; dy <= 1 && !inside; ++dy)
                for (int dz = -1; dz <= 1 && !inside; ++dz) {
                    int32_t v[3] = {base[0] + dx, base[1] + dy, base[2] + dz};
                    bool near = true;
                    for (int a = 0; a < 3; ++a)
                        near &= go[a] >= v[a] - eg && go[a] <= v[a] + 1 + eg;
                    inside = near && grid_solid_at(g, v);
                }
    } else {
        inside = grid_solid_at(g, base);
        for (int a = 0; a < 3; ++a)
            inside &= go[a] - base[a] >= -eg && base[a] + 1 - go[a] >= -eg;
    }
    if (inside) {
        h = inside_hit(r);
        for (int a = 0; a < 3; ++a)
            (&h.voxel.x)[a] = base[a] + g->offset[a];
        if (grid_solid_at(g, base))
            h.material = g->ids[grid_index(g, base)];
        return h;
    }
    for (uint32_t f = 0; f < g->face_count; ++f) {
        const ref_face* face = &g->faces[f];
        int a = face->axis;
        if (face->sign * gd[a] >= 0.0)
            continue; // hit from inside: never the first entry of a ray from outside
        double plane = face->v[a] + (face->sign > 0 ? 1.0 : 0.0);
        double t = (plane - go[a]) / gd[a];
        if (t < 0.0 || t >= h.t)
            continue;
        double margin = INFINITY;
        for (int b = 0; b < 3; ++b) {
            if (b == a)
                continue;
            double x = go[b] + t * gd[b];
            double m = fmin(x - (face->v[b] - eg), (face->v[b] + 1 + eg) - x);
            margin = m < margin ? m : margin;
        }
        if (margin < 0.0)
            continue;
        h.t = t;
        double nl[3] = {0, 0, 0};
        nl[a] = face->sign;
        quat_apply(g->q, false, nl, h.n);
        h.edge = margin * g->vs;
        for (int k = 0; k < 3; ++k)
            (&h.voxel.x)[k] = face->v[k] + g->offset[k];
        h.material = g->ids[grid_index(g, face->v)];
    }
    return h;
}

// ---- scenes ------------------------------------------------------------------------------------

typedef struct scene_body {
    vxk_body_id id;
    vxk_shape_type shape;
    vxk_body_type type;
    bool live;
    double p[3], q[4];
    double radius, half[3];
    uint8_t material;
    ref_grid grid; // voxel bodies
} scene_body;

typedef struct scene {
    vxk_world* world;
    float voxel_size;
    ref_grid terrain;
    scene_body* bodies;
    uint32_t body_count;
    double lo[3], hi[3]; // where bodies and rays are
} scene;

static uint8_t random_material(uint64_t* rng)
{
    static const uint8_t ids[] = {VXK_MAT_STONE, VXK_MAT_DIRT, VXK_MAT_WOOD,
                                  VXK_MAT_METAL, VXK_MAT_ICE,  VXK_MAT_SAND};
    return ids[vxk_test_rand(rng) % (sizeof(ids) / sizeof(ids[0]))];
}

static vxk_quat random_quat(uint64_t* rng)
{
    double u1 = vxk_test_randf(rng, 0, 1), u2 = vxk_test_randf(rng, 0, 1),
           u3 = vxk_test_randf(rng, 0, 1);
    double a = sqrt(1.0 - u1), b = sqrt(u1), tau = 6.283185307179586;
    return (vxk_quat){(float)(a * sin(tau * u2)), (float)(a * cos(tau * u2)),
                      (float)(b * sin(tau * u3)), (float)(b * cos(tau * u3))};
}

static int read_terrain(scene* s)
{
    ref_grid* g = &s->terrain;
    memset(g, 0, sizeof(*g));
    g->n[0] = TERRAIN_X;
    g->n[1] = TERRAIN_Y;
    g->n[2] = TERRAIN_Z;
    size_t count = (size_t)TERRAIN_X * TERRAIN_Y * TERRAIN_Z;
    g->ids = (uint8_t*)malloc(count);
    g->solid = (uint8_t*)malloc(count);
    VXK_CHECK(g->ids && g->solid);
    vxk_int_box box = {{0, 0, 0}, {TERRAIN_X - 1, TERRAIN_Y - 1, TERRAIN_Z - 1}};
    VXK_CHECK_EQ_INT(vxk_world_read_box(s->world, g->ids, box), VXK_OK);
    const vxk_material_table* table = vxk_world_materials(s->world);
    for (size_t i = 0; i < count; ++i)
        g->solid[i] = table->materials[g->ids[i]].kind == VXK_MATERIAL_SOLID;
    g->q[3] = 1.0;
    g->vs = s->voxel_size;
    return grid_faces(g);
}

// A random voxel body grid: a blob of about half its voxels, with holes.
static void random_grid(uint64_t* rng, vxk_voxel_grid* grid, uint8_t* voxels)
{
    grid->size =
        (vxk_int3){1 + (int32_t)(vxk_test_rand(rng) % 9), 1 + (int32_t)(vxk_test_rand(rng) % 9),
                   1 + (int32_t)(vxk_test_rand(rng) % 9)};
    grid->voxels = voxels;
    size_t n = (size_t)grid->size.x * grid->size.y * grid->size.z;
    uint8_t material = random_material(rng);
    for (size_t i = 0; i < n; ++i)
        voxels[i] =
            vxk_test_rand(rng) % 100 < 55 ? (vxk_test_rand(rng) % 4 ? material : VXK_MAT_CLAY) : 0;
    voxels[vxk_test_rand(rng) % n] = material; // at least one solid voxel
}

static int add_body(scene* s, uint64_t* rng)
{
    scene_body* sb = &s->bodies[s->body_count];
    memset(sb, 0, sizeof(*sb));
    vxk_body_def def = vxk_default_body_def();
    uint32_t type = (uint32_t)(vxk_test_rand(rng) % 4);
    def.type = type == 0 ? VXK_BODY_STATIC : type == 1 ? VXK_BODY_KINEMATIC : VXK_BODY_DYNAMIC;
    def.position = (vxk_vec3){vxk_test_randf(rng, (float)s->lo[0], (float)s->hi[0]),
                              vxk_test_randf(rng, (float)s->lo[1], (float)s->hi[1]),
                              vxk_test_randf(rng, (float)s->lo[2], (float)s->hi[2])};
    def.rotation = random_quat(rng);
    uint32_t shape = (uint32_t)(vxk_test_rand(rng) % 3);
    uint8_t voxels[9 * 9 * 9];
    vxk_voxel_grid grid;
    float scale = s->voxel_size;
    if (shape == 0) {
        def.shape = vxk_sphere_shape(scale * vxk_test_randf(rng, 0.2f, 1.6f), random_material(rng));
    } else if (shape == 1) {
        def.shape = vxk_box_shape((vxk_vec3){scale * vxk_test_randf(rng, 0.1f, 1.4f),
                                             scale * vxk_test_randf(rng, 0.1f, 1.4f),
                                             scale * vxk_test_randf(rng, 0.1f, 1.4f)},
                                  random_material(rng));
    } else {
        random_grid(rng, &grid, voxels);
        def.shape = vxk_voxel_shape(&grid, scale * vxk_test_randf(rng, 0.15f, 0.6f));
    }
    VXK_CHECK_EQ_INT(vxk_body_create(s->world, &def, &sb->id), VXK_OK);
    vxk_transform pose;
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(s->world, sb->id, &pose), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_info(s->world, sb->id, &info), VXK_OK);
    sb->shape = info.shape;
    sb->type = info.type;
    sb->live = true;
    double p[3] = {pose.p.x, pose.p.y, pose.p.z}, q[4] = {pose.q.x, pose.q.y, pose.q.z, pose.q.w};
    memcpy(sb->p, p, sizeof(p));
    memcpy(sb->q, q, sizeof(q));
    sb->radius = def.shape.radius;
    sb->half[0] = def.shape.half_extents.x;
    sb->half[1] = def.shape.half_extents.y;
    sb->half[2] = def.shape.half_extents.z;
    sb->material = def.shape.material;
    if (sb->shape == VXK_SHAPE_VOXELS) {
        ref_grid* g = &sb->grid;
        g->n[0] = info.grid_size.x;
        g->n[1] = info.grid_size.y;
        g->n[2] = info.grid_size.z;
        size_t n = (size_t)g->n[0] * g->n[1] * g->n[2];
        g->ids = (uint8_t*)malloc(n);
        g->solid = (uint8_t*)malloc(n);
        VXK_CHECK(g->ids && g->solid);
        vxk_int_box all = {{0, 0, 0}, {g->n[0] - 1, g->n[1] - 1, g->n[2] - 1}};
        VXK_CHECK_EQ_INT(vxk_body_read_voxels(s->world, sb->id, g->ids, all), VXK_OK);
        for (size_t i = 0; i < n; ++i)
            g->solid[i] = g->ids[i] != 0;
        memcpy(g->p, p, sizeof(p));
        memcpy(g->q, q, sizeof(q));
        g->origin[0] = info.grid_origin.x;
        g->origin[1] = info.grid_origin.y;
        g->origin[2] = info.grid_origin.z;
        g->vs = info.voxel_size;
        if (grid_faces(g))
            return 1;
    }
    s->body_count++;
    return 0;
}

static void scene_free(scene* s)
{
    for (uint32_t i = 0; i < s->body_count; ++i)
        grid_free(&s->bodies[i].grid);
    free(s->bodies);
    grid_free(&s->terrain);
    vxk_world_destroy(s->world);
    memset(s, 0, sizeof(*s));
}

static int scene_make(scene* s, vxk_jobs* jobs, float voxel_size, uint32_t bodies, uint64_t seed)
{
    memset(s, 0, sizeof(*s));
    s->voxel_size = voxel_size;
    s->world = vxk_scene_world_with(jobs, voxel_size);
    VXK_CHECK(s->world != NULL);
    vxk_worldgen_def gen =
        vxk_scene_worldgen_def((vxk_int3){TERRAIN_X, TERRAIN_Y, TERRAIN_Z}, seed);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(s->world, &gen), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(s->world), VXK_OK);
    if (read_terrain(s))
        return 1;
    for (int a = 0; a < 3; ++a) {
        s->lo[a] = -2.0 * voxel_size;
        s->hi[a] =
            (double)(a == 1 ? TERRAIN_Y + 4 : (a == 0 ? TERRAIN_X : TERRAIN_Z) + 2) * voxel_size;
    }
    s->bodies = (scene_body*)calloc(bodies, sizeof(scene_body));
    VXK_CHECK(s->bodies != NULL);
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + 5;
    for (uint32_t i = 0; i < bodies; ++i)
        if (add_body(s, &rng))
            return 1;
    // Some bodies destroyed: holes in the id range, stale ids to exclude.
    for (uint32_t i = 0; i < s->body_count; i += 7) {
        VXK_CHECK_EQ_INT(vxk_body_destroy(s->world, s->bodies[i].id), VXK_OK);
        s->bodies[i].live = false;
    }
    return 0;
}

// ---- the reference of one query ----------------------------------------------------------------

static bool passes(const scene_body* b, const vxk_ray_filter* f)
{
    uint32_t bit = b->type == VXK_BODY_STATIC      ? VXK_RAY_HIT_STATIC
                   : b->type == VXK_BODY_KINEMATIC ? VXK_RAY_HIT_KINEMATIC
                                                   : VXK_RAY_HIT_DYNAMIC;
    return b->live && (f->hit & bit) && !VXK_ID_EQUAL(b->id, f->exclude);
}

static ref_hit target_hit(const scene* s, int target, const ref_ray* r, double grow)
{
    if (target == TARGET_TERRAIN)
        return ref_grid_hit(&s->terrain, r, grow);
    const scene_body* b = &s->bodies[target];
    if (b->shape == VXK_SHAPE_SPHERE)
        return ref_sphere(b->p, b->radius, r, grow);
    if (b->shape == VXK_SHAPE_BOX)
        return ref_box(b->p, b->q, b->half, r, grow);
    return ref_grid_hit(&b->grid, r, grow);
}

// The closest reference hit over the targets the filter lets through (terrain first, then bodies
// by index: the order of ties).
typedef struct ref_best {
    int target; // TARGET_TERRAIN, a body, or -2 for none
    ref_hit hit;
    double second_t; // the closest hit of any other target
} ref_best;

static ref_best ref_closest(const scene* s, const vxk_ray_filter* f, const ref_ray* r, double grow)
{
    ref_best best = {-2, no_hit(), NONE_T};
    for (int target = TARGET_TERRAIN; target < (int)s->body_count; ++target) {
        if (target == TARGET_TERRAIN ? !(f->hit & VXK_RAY_HIT_TERRAIN)
                                     : !passes(&s->bodies[target], f))
            continue;
        ref_hit h = target_hit(s, target, r, grow);
        if (h.t > r->tmax)
            continue;
        if (h.t < best.hit.t) {
            best.second_t = best.hit.t;
            best.target = target;
            best.hit = h;
        } else if (h.t < best.second_t) {
            best.second_t = h.t;
        }
    }
    return best;
}

static ref_ray ref_of(const vxk_ray* ray)
{
    ref_ray r;
    double d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    double len = sqrt(dot3(d, d));
    r.o[0] = ray->origin.x;
    r.o[1] = ray->origin.y;
    r.o[2] = ray->origin.z;
    for (int k = 0; k < 3; ++k)
        r.d[k] = d[k] / len;
    r.tmax = isinf(ray->max_distance) ? INFINITY : ray->max_distance;
    return r;
}

typedef struct check_counts {
    uint32_t rays, clear, ambiguous, body_hits, terrain_hits, misses, inside;
} check_counts;

// The target a result names, by the scene's own ids.
static int result_target(const scene* s, const vxk_ray_result* res)
{
    if (res->target == VXK_RAY_TARGET_TERRAIN)
        return TARGET_TERRAIN;
    if (res->target != VXK_RAY_TARGET_BODY)
        return -2;
    for (uint32_t i = 0; i < s->body_count; ++i)
        if (VXK_ID_EQUAL(s->bodies[i].id, res->body))
            return (int)i;
    return -3; // an id the scene does not know
}

static int check_query(const scene* s, const vxk_ray_query* q, const vxk_ray_result* res,
                       check_counts* counts)
{
    ref_ray r = ref_of(&q->ray);
    ref_best exact = ref_closest(s, &q->filter, &r, 0.0);
    ref_best tight = ref_closest(s, &q->filter, &r, -EPS);
    ref_best loose = ref_closest(s, &q->filter, &r, EPS);
    int got = result_target(s, res);
    counts->rays++;
    VXK_CHECK_MSG(got != -3, "result names body %u:%u, not of the scene", res->body.index,
                  res->body.generation);
    if (got >= 0)
        VXK_CHECK_MSG(passes(&s->bodies[got], &q->filter),
                      "hit body %d that the filter (hit %u, exclude %u:%u) refuses", got,
                      q->filter.hit, q->filter.exclude.index, q->filter.exclude.generation);
    if (got == TARGET_TERRAIN)
        VXK_CHECK(q->filter.hit & VXK_RAY_HIT_TERRAIN);
    double t = got == -2 ? NONE_T : (double)res->distance;
    double tol_t = 1e-4 * (1.0 + fabs(exact.hit.t < NONE_T ? exact.hit.t : 0.0));
    // Grazing faces make the terrain's float distance error grow as 1 / cos.
    double cosine = exact.target == -2 ? 1.0 : fabs(dot3(exact.hit.n, r.d));
    bool clear = exact.target == tight.target && exact.target == loose.target &&
                 (exact.target == -2 ||
                  (fabs(tight.hit.t - loose.hit.t) <= tol_t + 2.5 * EPS / fmax(cosine, 0.05) &&
                   cosine > 0.05 && loose.second_t > tight.hit.t + 1e-3 &&
                   exact.hit.t < r.tmax - 1e-3 && (exact.hit.inside || exact.hit.edge > 1e-3)));
    if (clear && exact.target == -2 && loose.target != -2)
        clear = false;
    if (clear) {
        counts->clear++;
        VXK_CHECK_MSG(got == exact.target, "hit target %d at %g, reference %d at %g", got, t,
                      exact.target, exact.hit.t);
        if (got == -2) {
            counts->misses++;
            VXK_CHECK(res->distance == 0.0f && res->material == 0 && res->normal.x == 0.0f &&
                      VXK_ID_IS_NULL(res->body));
            return 0;
        }
        VXK_CHECK_MSG(fabs(t - exact.hit.t) <= tol_t / fmax(cosine, 0.05),
                      "distance %.9g, reference %.9g", t, exact.hit.t);
        double n[3] = {res->normal.x, res->normal.y, res->normal.z};
        for (int k = 0; k < 3; ++k)
            VXK_CHECK_MSG(fabs(n[k] - exact.hit.n[k]) <= 1e-4,
                          "normal %g %g %g, reference %g %g %g", n[0], n[1], n[2], exact.hit.n[0],
                          exact.hit.n[1], exact.hit.n[2]);
        double p[3] = {res->point.x, res->point.y, res->point.z};
        for (int k = 0; k < 3; ++k)
            VXK_CHECK(fabs(p[k] - (r.o[k] + exact.hit.t * r.d[k])) <= 1e-3 / fmax(cosine, 0.05));
        VXK_CHECK_EQ_INT(res->material,
                         exact.hit.material ? exact.hit.material : s->bodies[got].material);
        if (got == TARGET_TERRAIN || s->bodies[got].shape == VXK_SHAPE_VOXELS) {
            VXK_CHECK_EQ_INT(res->voxel.x, exact.hit.voxel.x);
            VXK_CHECK_EQ_INT(res->voxel.y, exact.hit.voxel.y);
            VXK_CHECK_EQ_INT(res->voxel.z, exact.hit.voxel.z);
        } else {
            VXK_CHECK(res->voxel.x == 0 && res->voxel.y == 0 && res->voxel.z == 0);
        }
        if (got == TARGET_TERRAIN) {
            VXK_CHECK(VXK_ID_IS_NULL(res->body) && res->target == VXK_RAY_TARGET_TERRAIN);
            counts->terrain_hits++;
        } else {
            VXK_CHECK(VXK_ID_EQUAL(res->body, s->bodies[got].id));
            counts->body_hits++;
        }
        counts->inside += exact.hit.inside;
        return 0;
    }
    // Within EPS of an edge, a silhouette, a tie or max_distance: the distance lies between the
    // grown and the shrunk references', and the target hit is hit by the grown reference there.
    counts->ambiguous++;
    double t_lo = loose.hit.t - 1e-3, t_hi = tight.hit.t + 1e-3;
    VXK_CHECK_MSG(t >= t_lo && (t <= t_hi || (got == -2 && tight.hit.t >= r.tmax - 1e-3)),
                  "distance %g outside [%g, %g] (target %d; references %d, %d)", t, t_lo, t_hi, got,
                  loose.target, tight.target);
    if (got != -2) {
        ref_hit own = target_hit(s, got, &r, EPS);
        VXK_CHECK_MSG(own.t <= t + 1e-3, "target %d hit at %g, its grown reference at %g", got, t,
                      own.t);
    }
    return 0;
}

// ---- random queries ----------------------------------------------------------------------------

static vxk_vec3 random_unit(uint64_t* rng)
{
    for (;;) {
        vxk_vec3 v = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                      vxk_test_randf(rng, -1, 1)};
        float l2 = v.x * v.x + v.y * v.y + v.z * v.z;
        if (l2 > 0.01f && l2 <= 1.0f)
            return v;
    }
}

// A live body's world point: its centre, or the centre of one of its solid voxels.
static vxk_vec3 body_point(const scene* s, const scene_body* b, uint64_t* rng)
{
    if (b->shape != VXK_SHAPE_VOXELS || b->grid.face_count == 0)
        return (vxk_vec3){(float)b->p[0], (float)b->p[1], (float)b->p[2]};
    (void)s;
    const ref_face* f = &b->grid.faces[vxk_test_rand(rng) % b->grid.face_count];
    double local[3], world[3];
    for (int a = 0; a < 3; ++a)
        local[a] = b->grid.origin[a] + (f->v[a] + 0.5) * b->grid.vs;
    quat_apply(b->q, false, local, world);
    return (vxk_vec3){(float)(world[0] + b->p[0]), (float)(world[1] + b->p[1]),
                      (float)(world[2] + b->p[2])};
}

static vxk_ray_query random_query(const scene* s, uint64_t* rng)
{
    vxk_ray_query q;
    memset(&q, 0, sizeof(q));
    q.filter = vxk_default_ray_filter();
    vxk_vec3 o = {vxk_test_randf(rng, (float)s->lo[0], (float)s->hi[0]),
                  vxk_test_randf(rng, (float)s->lo[1], (float)s->hi[1]),
                  vxk_test_randf(rng, (float)s->lo[2], (float)s->hi[2])};
    vxk_vec3 d = random_unit(rng);
    const scene_body* b = &s->bodies[vxk_test_rand(rng) % s->body_count];
    for (uint32_t tries = 0; !b->live && tries < 8; ++tries)
        b = &s->bodies[vxk_test_rand(rng) % s->body_count];
    uint32_t kind = (uint32_t)(vxk_test_rand(rng) % 8);
    if (kind <= 3) {
        // aimed at a body's centre or at one of its voxels, from a random point or a point near
        vxk_vec3 at = body_point(s, b, rng);
        if (kind >= 2) {
            vxk_vec3 u = random_unit(rng);
            float away = s->voxel_size * vxk_test_randf(rng, 1.0f, 12.0f);
            o = (vxk_vec3){at.x + away * u.x, at.y + away * u.y, at.z + away * u.z};
        }
        d = (vxk_vec3){at.x - o.x, at.y - o.y, at.z - o.z};
        if (d.x == 0.0f && d.y == 0.0f && d.z == 0.0f)
            d.y = -1.0f;
    } else if (kind == 4) {
        o = body_point(s, b, rng); // inside (or at) a body
    } else if (kind == 5) {
        o.y = (float)s->hi[1]; // down onto the terrain
        d = (vxk_vec3){vxk_test_randf(rng, -0.3f, 0.3f), -1.0f, vxk_test_randf(rng, -0.3f, 0.3f)};
    }
    q.ray.origin = o;
    q.ray.direction = d;
    uint32_t reach = (uint32_t)(vxk_test_rand(rng) % 4);
    q.ray.max_distance = reach <= 1 ? INFINITY : vxk_test_randf(rng, 0.0f, 40.0f * s->voxel_size);
    uint32_t filter = (uint32_t)(vxk_test_rand(rng) % 8);
    if (filter >= 5)
        q.filter.hit = 1u + (uint32_t)(vxk_test_rand(rng) % VXK_RAY_HIT_ALL);
    if (filter == 1 || filter == 4) {
        // exclude what the unfiltered reference would hit first (often), or any body
        ref_ray r = ref_of(&q.ray);
        ref_best first = ref_closest(s, &q.filter, &r, 0.0);
        q.filter.exclude = first.target >= 0 ? s->bodies[first.target].id : b->id;
    } else if (filter == 2) {
        q.filter.exclude = b->id; // possibly destroyed: excludes nothing
    }
    return q;
}

static int run_scene(vxk_jobs* jobs, float voxel_size, uint32_t bodies, uint32_t rays,
                     uint64_t seed, check_counts* counts)
{
    scene s;
    if (scene_make(&s, jobs, voxel_size, bodies, seed))
        return 1;
    vxk_ray_query* queries = (vxk_ray_query*)malloc(sizeof(vxk_ray_query) * rays);
    vxk_ray_result* single = (vxk_ray_result*)malloc(sizeof(vxk_ray_result) * rays);
    vxk_ray_result* batch = (vxk_ray_result*)malloc(sizeof(vxk_ray_result) * rays);
    VXK_CHECK(queries && single && batch);
    uint64_t rng = seed ^ 0x5DEECE66Dull;
    for (uint32_t i = 0; i < rays; ++i)
        queries[i] = random_query(&s, &rng);
    for (uint32_t i = 0; i < rays; ++i) {
        VXK_CHECK_EQ_INT(vxk_raycast_query(s.world, &single[i], &queries[i]), VXK_OK);
        if (check_query(&s, &queries[i], &single[i], counts)) {
            fprintf(stderr,
                    "scene seed %llu, ray %u: (%.9g %.9g %.9g) dir (%.9g %.9g %.9g) max %g "
                    "filter %u exclude %u:%u\n",
                    (unsigned long long)seed, i, queries[i].ray.origin.x, queries[i].ray.origin.y,
                    queries[i].ray.origin.z, queries[i].ray.direction.x, queries[i].ray.direction.y,
                    queries[i].ray.direction.z, queries[i].ray.max_distance, queries[i].filter.hit,
                    queries[i].filter.exclude.index, queries[i].filter.exclude.generation);
            return 1;
        }
        // A terrain-only query is vxk_raycast's result.
        if (queries[i].filter.hit == VXK_RAY_HIT_TERRAIN) {
            vxk_ray_hit hit;
            VXK_CHECK_EQ_INT(vxk_raycast(s.world, &hit, &queries[i].ray), VXK_OK);
            VXK_CHECK_EQ_INT(hit.hit, single[i].target == VXK_RAY_TARGET_TERRAIN);
            VXK_CHECK(memcmp(&hit.distance, &single[i].distance, sizeof(float)) == 0);
            VXK_CHECK(memcmp(&hit.point, &single[i].point, sizeof(vxk_vec3)) == 0);
            VXK_CHECK(memcmp(&hit.normal, &single[i].normal, sizeof(vxk_vec3)) == 0);
            VXK_CHECK_EQ_INT(hit.material, single[i].material);
            if (hit.hit) {
                VXK_CHECK_EQ_INT(hit.chunk.x, single[i].voxel.x >> 3);
                VXK_CHECK_EQ_INT(hit.chunk.y, single[i].voxel.y >> 3);
                VXK_CHECK_EQ_INT(hit.chunk.z, single[i].voxel.z >> 3);
            }
        }
    }
    memset(batch, CANARY, sizeof(vxk_ray_result) * rays);
    VXK_CHECK_EQ_INT(vxk_raycast_query_batch(s.world, batch, queries, rays), VXK_OK);
    for (uint32_t i = 0; i < rays; ++i)
        VXK_CHECK_MSG(memcmp(&batch[i], &single[i], sizeof(vxk_ray_result)) == 0,
                      "batch result %u differs from the single query's", i);
    free(queries);
    free(single);
    free(batch);
    scene_free(&s);
    return 0;
}

static int test_against_reference(void)
{
    vxk_jobs_def jd = vxk_default_jobs_def();
    jd.worker_count = 3;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
    check_counts counts = {0};
    static const float voxel_sizes[] = {1.0f, 0.5f, 1.0f, 0.25f, 1.0f, 2.0f};
    uint64_t seed = vxk_test_seed(170501);
    for (uint32_t k = 0; k < sizeof(voxel_sizes) / sizeof(voxel_sizes[0]); ++k)
        if (run_scene(k % 2 ? jobs : NULL, voxel_sizes[k], 48 + 16 * k, 900, seed + k, &counts))
            return 1;
    vxk_jobs_destroy(jobs);
    fprintf(stderr,
            "%u rays: %u clear (%u body hits, %u terrain hits, %u misses, %u from inside), %u "
            "within EPS of an edge or a tie\n",
            counts.rays, counts.clear, counts.body_hits, counts.terrain_hits, counts.misses,
            counts.inside, counts.ambiguous);
    // The reference must decide nearly every ray, and every kind of result must occur.
    VXK_CHECK(counts.ambiguous * 20 < counts.rays);
    VXK_CHECK(counts.body_hits > counts.rays / 8);
    VXK_CHECK(counts.terrain_hits > counts.rays / 10);
    VXK_CHECK(counts.misses > counts.rays / 50);
    VXK_CHECK(counts.inside > counts.rays / 100);
    return 0;
}

// ---- hand-made cases ---------------------------------------------------------------------------

static vxk_ray_query query_of(vxk_vec3 o, vxk_vec3 d, float max_distance, uint32_t hit)
{
    vxk_ray_query q;
    memset(&q, 0, sizeof(q));
    q.ray = (vxk_ray){o, d, max_distance};
    q.filter.hit = hit;
    return q;
}

static int test_known_answers(void)
{
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    // A box of half extents (1, 0.5, 2) at (0, 5, 0) turned 90 degrees about y: its top at
    // y = 5.5, its footprint x in [-2, 2], z in [-1, 1].
    vxk_body_def def = vxk_default_body_def();
    def.type = VXK_BODY_STATIC;
    def.position = (vxk_vec3){0, 5, 0};
    float h = sqrtf(0.5f);
    def.rotation = (vxk_quat){0, h, 0, h};
    def.shape = vxk_box_shape((vxk_vec3){1.0f, 0.5f, 2.0f}, VXK_MAT_WOOD);
    vxk_body_id box;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &box), VXK_OK);
    // A sphere of radius 1 at (10, 0, 0).
    def = vxk_default_body_def();
    def.position = (vxk_vec3){10, 0, 0};
    def.gravity_scale = 0;
    def.shape = vxk_sphere_shape(1.0f, VXK_MAT_METAL);
    vxk_body_id ball;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &ball), VXK_OK);
    // A ring of 8 voxels (3 x 1 x 3, the middle empty) of 0.5 m at rest, kinematic.
    uint8_t ring[9] = {VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, 0,
                       VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_DIRT};
    vxk_voxel_grid grid = {{3, 1, 3}, ring};
    def = vxk_default_body_def();
    def.type = VXK_BODY_KINEMATIC;
    def.position = (vxk_vec3){-10, 0, 0};
    def.shape = vxk_voxel_shape(&grid, 0.5f);
    vxk_body_id ring_id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &ring_id), VXK_OK);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, ring_id, &info), VXK_OK);
    vxk_transform pose;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, ring_id, &pose), VXK_OK);
    // The ring's grid corner in world (no rotation): centre + grid_origin.
    float gx = pose.p.x + info.grid_origin.x, gy = pose.p.y + info.grid_origin.y,
          gz = pose.p.z + info.grid_origin.z;

    vxk_ray_result res;
    vxk_ray_query q =
        query_of((vxk_vec3){1.5f, 20, 0.5f}, (vxk_vec3){0, -3, 0}, INFINITY, VXK_RAY_HIT_ALL);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_BODY);
    VXK_CHECK(VXK_ID_EQUAL(res.body, box));
    VXK_CHECK(fabsf(res.distance - 14.5f) < 1e-5f);
    VXK_CHECK(fabsf(res.normal.y - 1.0f) < 1e-6f && fabsf(res.normal.x) < 1e-6f);
    VXK_CHECK_EQ_INT(res.material, VXK_MAT_WOOD);
    // Past the turned box's footprint along z (the unturned box would be hit): a miss.
    q.ray.origin = (vxk_vec3){0.0f, 20, 1.5f};
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_NONE);
    // Short of the box: a miss; terrain only: a miss (no terrain, no broadphase needed).
    q.ray.origin = (vxk_vec3){1.5f, 20, 0.5f};
    q.ray.max_distance = 14.0f;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_NONE);
    q.ray.max_distance = 14.5f; // reaching exactly
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_BODY);
    // Statics filtered out, or the box excluded: a miss.
    q.ray.max_distance = INFINITY;
    q.filter.hit = VXK_RAY_HIT_DYNAMIC | VXK_RAY_HIT_KINEMATIC | VXK_RAY_HIT_TERRAIN;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_NONE);
    q.filter.hit = VXK_RAY_HIT_ALL;
    q.filter.exclude = box;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_NONE);

    // The sphere along +x from the origin: t = 9, normal -x.
    q = query_of((vxk_vec3){0, 0, 0}, (vxk_vec3){2, 0, 0}, INFINITY, VXK_RAY_HIT_DYNAMIC);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(VXK_ID_EQUAL(res.body, ball));
    VXK_CHECK(fabsf(res.distance - 9.0f) < 1e-5f && fabsf(res.normal.x + 1.0f) < 1e-6f);
    VXK_CHECK(fabsf(res.point.x - 9.0f) < 1e-5f && res.material == VXK_MAT_METAL);
    // From inside the sphere: distance 0, normal against the direction.
    q.ray.origin = (vxk_vec3){10.2f, 0.1f, 0};
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(res.distance == 0.0f && res.normal.x == -1.0f && VXK_ID_EQUAL(res.body, ball));

    // Down through the ring's hole: a miss, although the ray crosses the ring's box.
    q = query_of((vxk_vec3){gx + 0.75f, 5, gz + 0.75f}, (vxk_vec3){0, -1, 0}, INFINITY,
                 VXK_RAY_HIT_ALL);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_NONE);
    // Down onto the dirt corner voxel (2, 0, 2): its top face at gy + 0.5.
    q.ray.origin = (vxk_vec3){gx + 1.25f, 5, gz + 1.25f};
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(VXK_ID_EQUAL(res.body, ring_id));
    VXK_CHECK(fabsf(res.distance - (5.0f - (gy + 0.5f))) < 1e-5f && res.normal.y == 1.0f);
    VXK_CHECK(res.voxel.x == 2 && res.voxel.y == 0 && res.voxel.z == 2);
    VXK_CHECK_EQ_INT(res.material, VXK_MAT_DIRT);
    // Along +x through the middle row: enters voxel (0, 0, 1) at its -x face.
    q = query_of((vxk_vec3){gx - 3, gy + 0.25f, gz + 0.75f}, (vxk_vec3){1, 0, 0}, INFINITY,
                 VXK_RAY_HIT_KINEMATIC);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(VXK_ID_EQUAL(res.body, ring_id) && res.normal.x == -1.0f);
    VXK_CHECK(fabsf(res.distance - 3.0f) < 1e-5f && res.voxel.x == 0 && res.voxel.z == 1);
    // From inside the hole heading +x: voxel (2, 0, 1) at distance 0.25.
    q.ray.origin = (vxk_vec3){gx + 0.75f, gy + 0.25f, gz + 0.75f};
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(fabsf(res.distance - 0.25f) < 1e-5f && res.voxel.x == 2 && res.voxel.z == 1);

    // Terrain and a body at the same distance: terrain wins the tie. A stone floor with its top at
    // y = 0 and a box resting on it from below... (the box's top face and the floor's coincide).
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, (vxk_int_box){{20, -4, -4}, {27, -1, 3}}, VXK_MAT_STONE),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    def = vxk_default_body_def();
    def.type = VXK_BODY_STATIC;
    def.position = (vxk_vec3){24, -0.5f, 0};
    def.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
    vxk_body_id buried;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &buried), VXK_OK);
    q = query_of((vxk_vec3){24.25f, 6, 0.25f}, (vxk_vec3){0, -1, 0}, INFINITY, VXK_RAY_HIT_ALL);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_TERRAIN);
    VXK_CHECK(res.distance == 6.0f && res.voxel.x == 24 && res.voxel.y == -1 && res.voxel.z == 0);
    q.filter.hit = VXK_RAY_HIT_BODIES;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(VXK_ID_EQUAL(res.body, buried) && res.distance == 6.0f);
    vxk_world_destroy(w);
    return 0;
}

// Many bodies, so that batches walk their hierarchy, on worlds of 1 and 4 workers: every result
// equals the single query's.
static int test_batch_workers(void)
{
    uint64_t seed = vxk_test_seed(170502);
    for (uint32_t workers = 1; workers <= 4; workers += 3) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        vxk_jobs* jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
        scene s;
        if (scene_make(&s, jobs, 1.0f, 400, seed))
            return 1;
        enum { RAYS = 3000 };
        static vxk_ray_query queries[RAYS];
        static vxk_ray_result single[RAYS], batch[RAYS];
        uint64_t rng = seed + 11;
        for (uint32_t i = 0; i < RAYS; ++i) {
            queries[i] = random_query(&s, &rng);
            VXK_CHECK_EQ_INT(vxk_raycast_query(s.world, &single[i], &queries[i]), VXK_OK);
        }
        VXK_CHECK_EQ_INT(vxk_raycast_query_batch(s.world, batch, queries, RAYS), VXK_OK);
        VXK_CHECK(memcmp(batch, single, sizeof(batch)) == 0);
        check_counts counts = {0};
        for (uint32_t i = 0; i < RAYS; i += 10)
            if (check_query(&s, &queries[i], &batch[i], &counts))
                return 1;
        scene_free(&s);
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

// ---- bad input, out of memory ------------------------------------------------------------------

static int test_bad_input(void)
{
    vxk_world* w = vxk_scene_edge_world_near();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    vxk_body_def def = vxk_default_body_def();
    def.position = (vxk_vec3){0, 30, 0};
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &id), VXK_OK);
    vxk_ray_query good =
        query_of((vxk_vec3){0.1f, 40, 0.2f}, (vxk_vec3){0, -1, 0}, INFINITY, VXK_RAY_HIT_ALL);
    vxk_ray_result res, ref;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &ref, &good), VXK_OK);
    VXK_CHECK(VXK_ID_EQUAL(ref.body, id));
    snapshot before = snap(w);
    memset(&res, CANARY, sizeof(res));
    VXK_CHECK_EQ_INT(vxk_raycast_query(NULL, &res, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, NULL, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, NULL), VXK_ERR_INVALID_ARGUMENT);
    enum { BAD = 12 };
    vxk_ray_query bad[BAD];
    vxk_status expect[BAD];
    for (int i = 0; i < BAD; ++i)
        bad[i] = good;
    bad[0].filter.hit = 0;
    bad[1].filter.hit = VXK_RAY_HIT_ALL + 1;
    bad[2].filter.pad = 1;
    bad[3].ray.origin.x = f_nan();
    bad[4].ray.direction.z = INFINITY;
    bad[5].ray.max_distance = f_nan();
    bad[6].ray.direction = (vxk_vec3){0, 0, 0};
    bad[7].ray.max_distance = -1.0f;
    bad[8].ray.origin.y = 3e9f; // outside the int32 voxel range
    bad[9] = bad[6];
    bad[9].filter.hit = VXK_RAY_HIT_BODIES; // the ray is checked whatever the filter hits
    bad[10] = bad[8];
    bad[10].filter.hit = VXK_RAY_HIT_DYNAMIC;
    bad[11] = bad[3];
    bad[11].filter.hit = 0; // the filter is checked first
    for (int i = 0; i < 3; ++i)
        expect[i] = VXK_ERR_INVALID_ARGUMENT;
    expect[3] = expect[4] = expect[5] = VXK_ERR_NOT_FINITE;
    expect[6] = expect[7] = expect[8] = expect[9] = expect[10] = VXK_ERR_OUT_OF_RANGE;
    expect[11] = VXK_ERR_INVALID_ARGUMENT;
    static vxk_ray_query batch_in[64];
    static vxk_ray_result batch_out[64];
    for (int i = 0; i < BAD; ++i) {
        VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &bad[i]), expect[i]);
        VXK_CHECK(all_canary(&res, sizeof(res)));
        // In a batch, anywhere: the same status, and nothing written.
        for (int k = 0; k < 64; ++k)
            batch_in[k] = good;
        batch_in[(i * 13) % 64] = bad[i];
        memset(batch_out, CANARY, sizeof(batch_out));
        VXK_CHECK_EQ_INT(vxk_raycast_query_batch(w, batch_out, batch_in, 64), expect[i]);
        VXK_CHECK(all_canary(batch_out, sizeof(batch_out)));
    }
    VXK_CHECK_EQ_INT(vxk_raycast_query_batch(NULL, batch_out, batch_in, 1),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_query_batch(w, NULL, batch_in, 1), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_query_batch(w, batch_out, NULL, 1), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_query_batch(w, NULL, NULL, 0), VXK_OK);
    CHECK_UNCHANGED(w, before);
    // A stale exclusion excludes nothing; the live one excludes the body.
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
    vxk_body_id again;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &again), VXK_OK);
    VXK_CHECK_EQ_INT(again.index, id.index);
    vxk_ray_query q = good;
    q.filter.exclude = id;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK(VXK_ID_EQUAL(res.body, again));
    q.filter.exclude = again;
    VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
    VXK_CHECK_EQ_INT(res.target, VXK_RAY_TARGET_TERRAIN);
    vxk_world_destroy(w);
    return 0;
}

static int test_oom_queries(void)
{
    scene s;
    if (scene_make(&s, NULL, 1.0f, 40, vxk_test_seed(170503)))
        return 1;
    enum { RAYS = 48 };
    static vxk_ray_query queries[RAYS];
    static vxk_ray_result ref[RAYS], out[RAYS];
    uint64_t rng = 99;
    for (uint32_t i = 0; i < RAYS; ++i)
        queries[i] = random_query(&s, &rng);
    queries[0].filter = vxk_default_ray_filter();
    VXK_CHECK_EQ_INT(vxk_raycast_query_batch(s.world, ref, queries, RAYS), VXK_OK);
    vxk_ray_result one;
    OOM_SWEEP(
        {
            vxk_raycast_cache_clear(s.world);
            memset(&one, CANARY, sizeof(one));
        },
        vxk_raycast_query(s.world, &one, &queries[0]),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&one, sizeof(one)));
            } else {
                VXK_CHECK(memcmp(&one, &ref[0], sizeof(one)) == 0);
            }
        },
        {});
    OOM_SWEEP(
        {
            vxk_raycast_cache_clear(s.world);
            memset(out, CANARY, sizeof(out));
        },
        vxk_raycast_query_batch(s.world, out, queries, RAYS),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(out, sizeof(out)));
            } else {
                VXK_CHECK(memcmp(out, ref, sizeof(out)) == 0);
            }
        },
        {});
    scene_free(&s);
    return 0;
}

int main(void)
{
    VXK_RUN(test_known_answers);
    VXK_RUN(test_against_reference);
    VXK_RUN(test_batch_workers);
    vxk_edge_tests_begin();
    VXK_RUN(test_bad_input);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_queries);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    return vxk_test_finish();
}
