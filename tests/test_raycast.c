// test_raycast.c: world raycasts against brute force over every primitive of the world: (1) the
// same float quad test on every quad of every chunk in the kernel's frame (must agree exactly),
// (2) double precision over world-space triangles (within 1e-5, or the float error of far origins
// and grazing hits; near-ties honestly allowed), (3) watertightness: rays aimed exactly at the
// edges and corners where quads meet (material seams, chunk borders) against exact
// double-precision rays through the solid voxels as unit cubes. Worlds: a test terrain with caves
// and floating voxels, the generator's terrain, a terrain of material seams; VXK_RAY_SOAK=N adds N
// more worlds. Rays: random, axis-aligned, from inside solid, grazing edges and corners, very
// long, negative coordinates. Batch equals single for 1, 2 and 4 workers (also on camera tiles,
// the batch's packet path); after edits a warm cache answers as brute force and as a cold cache;
// threads racing on one world agree. Empty space costs steps by what a ray passes near, not by
// its length; the coordinate range is int32 for terrain and rays alike. Edge tests
// (harness.h): special floats in every ray component, one bad ray in a batch, terrain at both
// ends of int32; rays out of memory.
#include <vxk/broadphase.h>
#include <vxk/kdtree.h>
#include <vxk/mesher.h>
#include <vxk/raycast.h>
#include <vxk/worldgen.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "narrow_cache.h"
#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"

#define WORLD_X 40
#define WORLD_Y 24
#define WORLD_Z 40
static const int32_t WORLD_MIN[3] = {-20, -12, -17};

// ---- world --------------------------------------------------------------------------------------

// The box of make_world's and make_generated_world's terrain.
static vxk_int_box world_box(void)
{
    return (vxk_int_box){
        {WORLD_MIN[0], WORLD_MIN[1], WORLD_MIN[2]},
        {WORLD_MIN[0] + WORLD_X - 1, WORLD_MIN[1] + WORLD_Y - 1, WORLD_MIN[2] + WORLD_Z - 1}};
}

static vxk_world* make_world(vxk_jobs* jobs, float voxel_size, uint64_t seed)
{
    vxk_world* world = vxk_scene_world_with(jobs, voxel_size);
    if (!world)
        return NULL;
    static uint8_t ids[WORLD_X * WORLD_Y * WORLD_Z];
    uint64_t rng = seed;
    int height[WORLD_X][WORLD_Z];
    for (int x = 0; x < WORLD_X; ++x)
        for (int z = 0; z < WORLD_Z; ++z)
            height[x][z] = 8 +
                           (int)(4.0 * sin(x * 0.3 + (double)(seed & 7)) + 3.0 * cos(z * 0.25)) +
                           (int)(vxk_test_rand(&rng) % 2);
    for (int y = 0; y < WORLD_Y; ++y)
        for (int z = 0; z < WORLD_Z; ++z)
            for (int x = 0; x < WORLD_X; ++x) {
                uint8_t id = 0;
                if (y < height[x][z])
                    id = y < 3 ? VXK_MAT_BEDROCK
                               : (y + 2 < height[x][z] ? VXK_MAT_STONE : VXK_MAT_DIRT);
                else if (y < 7)
                    id = VXK_MAT_WATER;
                // Sparse floating voxels and pillars above the ground.
                if (id == 0 && vxk_test_rand(&rng) % 97 == 0)
                    id = VXK_MAT_WOOD;
                ids[x + WORLD_X * (z + WORLD_Z * y)] = id;
            }
    // Caves: random air boxes below the surface.
    for (int k = 0; k < 14; ++k) {
        int x0 = (int)(vxk_test_rand(&rng) % (WORLD_X - 6));
        int z0 = (int)(vxk_test_rand(&rng) % (WORLD_Z - 6));
        int y0 = 2 + (int)(vxk_test_rand(&rng) % 6);
        int sx = 2 + (int)(vxk_test_rand(&rng) % 9), sy = 1 + (int)(vxk_test_rand(&rng) % 4),
            sz = 2 + (int)(vxk_test_rand(&rng) % 9);
        for (int y = y0; y < y0 + sy && y < WORLD_Y; ++y)
            for (int z = z0; z < z0 + sz && z < WORLD_Z; ++z)
                for (int x = x0; x < x0 + sx && x < WORLD_X; ++x)
                    ids[x + WORLD_X * (z + WORLD_Z * y)] = 0;
    }
    if (vxk_world_write_box(world, world_box(), ids) != VXK_OK ||
        vxk_broadphase_build(world) != VXK_OK) {
        vxk_world_destroy(world);
        return NULL;
    }
    return world;
}

// Every chunk's narrowphase data, built outside the cache, and its triangles in world space.
typedef struct brute_world {
    vxk_narrow_chunk* chunks;
    uint32_t count;
    double* tris; // 9 doubles per triangle
    uint8_t* tri_material;
    uint32_t tri_count;
} brute_world;

typedef struct collect_ctx {
    vxk_int3* coords;
    uint32_t count;
} collect_ctx;

static void collect_chunk(void* user, const vxk_chunk_info* info)
{
    collect_ctx* c = (collect_ctx*)user;
    c->coords[c->count++] = info->coord;
}

static int brute_build(const vxk_world* world, brute_world* b)
{
    memset(b, 0, sizeof(*b));
    vxk_int3* coords = (vxk_int3*)malloc(4096 * sizeof(vxk_int3));
    collect_ctx cc = {coords, 0};
    vxk_world_for_each_chunk(world, collect_chunk, &cc);
    VXK_CHECK(cc.count < 4096);
    b->chunks = (vxk_narrow_chunk*)calloc(cc.count, sizeof(vxk_narrow_chunk));
    b->count = cc.count;
    uint32_t quads = 0;
    for (uint32_t i = 0; i < cc.count; ++i) {
        VXK_CHECK(vxk_narrow_build_chunk(world, &b->chunks[i], coords[i]) == VXK_OK);
        quads += b->chunks[i].quad_count;
    }
    b->tris = (double*)malloc((size_t)quads * 2 * 9 * sizeof(double));
    b->tri_material = (uint8_t*)malloc((size_t)quads * 2);
    float vs = vxk_world_voxel_size(world);
    for (uint32_t i = 0; i < cc.count; ++i) {
        const vxk_narrow_chunk* c = &b->chunks[i];
        vxk_mesh tri = {0};
        vxk_vec3 origin = {8.0f * (float)c->coord.x * vs, 8.0f * (float)c->coord.y * vs,
                           8.0f * (float)c->coord.z * vs};
        VXK_CHECK(vxk_quad_to_mesh(&tri, c->quads, c->quad_count, 3, origin, vs) == VXK_OK);
        for (uint32_t p = 0; p < tri.primitive_count; ++p) {
            for (int k = 0; k < 3; ++k) {
                vxk_vec3 v = tri.vertices[tri.indices[3 * p + k]];
                double* out = &b->tris[(size_t)b->tri_count * 9 + 3 * k];
                out[0] = v.x;
                out[1] = v.y;
                out[2] = v.z;
            }
            b->tri_material[b->tri_count++] = tri.materials[p];
        }
        vxk_mesh_free(&tri);
    }
    free(coords);
    return 0;
}

static void brute_free(brute_world* b)
{
    for (uint32_t i = 0; i < b->count; ++i)
        vxk_narrow_free_chunk(&b->chunks[i]);
    free(b->chunks);
    free(b->tris);
    free(b->tri_material);
}

// The kernel's ray preparation (documented in vxk/raycast.h), repeated here.
typedef struct prepared {
    float o[3], dv[3], dn[3], tmax;
} prepared;

static void prepare(const vxk_world* world, const vxk_ray* ray, prepared* p)
{
    float d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    float m = fmaxf(fabsf(d[0]), fmaxf(fabsf(d[1]), fabsf(d[2])));
    float s[3] = {d[0] / m, d[1] / m, d[2] / m};
    float inv_len = 1.0f / sqrtf((s[0] * s[0] + s[1] * s[1]) + s[2] * s[2]);
    float inv_vs = 1.0f / vxk_world_voxel_size(world);
    float o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    for (int i = 0; i < 3; ++i) {
        p->dn[i] = s[i] * inv_len;
        p->dv[i] = p->dn[i] * inv_vs;
        p->o[i] = o[i] * inv_vs;
    }
    p->tmax = isinf(ray->max_distance) ? FLT_MAX : ray->max_distance;
}

static bool inside_solid(const vxk_world* world, const prepared* p, uint8_t* material)
{
    uint8_t id =
        vxk_world_get_voxel(world, (vxk_int3){(int32_t)floorf(p->o[0]), (int32_t)floorf(p->o[1]),
                                              (int32_t)floorf(p->o[2])});
    *material = id;
    return vxk_world_materials(world)->materials[id].kind == VXK_MATERIAL_SOLID;
}

// (1) Same float test in the same frame over every quad of every chunk: the kernel's frame (the
// origin relative to chunk c_ref = trunc(o / 8), every chunk's quads shifted by 8 (c - c_ref):
// exact in float for these worlds).
static bool brute_float(const brute_world* b, const prepared* p, float* t_out)
{
    bool found = false;
    float best = p->tmax;
    double c_ref[3];
    float o_ref[3];
    for (int a = 0; a < 3; ++a) {
        c_ref[a] = trunc((double)p->o[a] * 0.125);
        o_ref[a] = (float)((double)p->o[a] - 8.0 * c_ref[a]);
    }
    vxk_kdtree_ray kr = {{o_ref[0], o_ref[1], o_ref[2]}, {p->dv[0], p->dv[1], p->dv[2]}, p->tmax};
    for (uint32_t i = 0; i < b->count; ++i) {
        const vxk_narrow_chunk* c = &b->chunks[i];
        // Skip chunks whose box (padded by a voxel) the ray misses (double slab test).
        const int32_t cc[3] = {c->coord.x, c->coord.y, c->coord.z};
        double t0 = -1.0, t1 = (double)p->tmax + 1.0;
        for (int a = 0; a < 3 && t0 <= t1; ++a) {
            double lo = 8.0 * cc[a] - 1.0, hi = lo + 10.0;
            if (p->dv[a] == 0.0f) {
                if (p->o[a] < lo || p->o[a] > hi)
                    t0 = t1 + 1.0;
                continue;
            }
            double ta = (lo - p->o[a]) / p->dv[a], tb = (hi - p->o[a]) / p->dv[a];
            t0 = fmax(t0, fmin(ta, tb));
            t1 = fmin(t1, fmax(ta, tb));
        }
        if (t0 > t1)
            continue;
        vxk_vec3 shift = {(float)(8.0 * (cc[0] - c_ref[0])), (float)(8.0 * (cc[1] - c_ref[1])),
                          (float)(8.0 * (cc[2] - c_ref[2]))};
        for (uint32_t q = 0; q < c->quad_count; ++q) {
            vxk_vec3 v4[4];
            vxk_quad_corners(v4, c->quads[q], shift, 1.0f);
            float t, u, v;
            if (vxk_kdtree_intersect_quad(&kr, v4[0], v4[1], v4[3], p->tmax, &t, &u, &v) &&
                (!found || t < best)) {
                best = t;
                found = true;
            }
        }
    }
    *t_out = best;
    return found;
}

// (2) Double-precision Moller-Trumbore over world triangles, in one pass for three versions of
// every triangle: exact, shrunk and grown by `margin` in barycentric terms (and in t at the
// ends). Chunks whose box (padded by one voxel) the ray misses are skipped with a double slab test.
typedef struct double_result {
    bool hit[3]; // exact, shrunk, grown
    double t[3];
} double_result;

static void brute_double(const brute_world* b, const vxk_ray* ray, float voxel_size, double margin,
                         double_result* out)
{
    double o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    double d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int i = 0; i < 3; ++i)
        d[i] /= len;
    double tmax = isinf(ray->max_distance) ? INFINITY : ray->max_distance;
    const double lo_m[3] = {0.0, margin, -margin};
    // the shrunk segment starts at +margin: a ray starting on a face (within rounding of it)
    // is a near-tie too
    const double t_lo[3] = {0.0, margin, -margin};
    const double t_hi[3] = {tmax, tmax * (1.0 - margin) - margin, tmax * (1.0 + margin) + margin};
    for (int k = 0; k < 3; ++k) {
        out->hit[k] = false;
        out->t[k] = INFINITY;
    }
    uint32_t tri = 0;
    for (uint32_t c = 0; c < b->count; ++c) {
        uint32_t n = 2 * b->chunks[c].quad_count;
        double bl[3] = {(8.0 * b->chunks[c].coord.x - 1) * voxel_size,
                        (8.0 * b->chunks[c].coord.y - 1) * voxel_size,
                        (8.0 * b->chunks[c].coord.z - 1) * voxel_size};
        double t0 = -1.0, t1 = t_hi[2] + 1.0;
        for (int a = 0; a < 3 && t0 <= t1; ++a) {
            double bh = bl[a] + 10.0 * voxel_size;
            if (d[a] == 0.0) {
                if (o[a] < bl[a] || o[a] > bh)
                    t0 = t1 + 1.0;
                continue;
            }
            double ta = (bl[a] - o[a]) / d[a], tb = (bh - o[a]) / d[a];
            t0 = fmax(t0, fmin(ta, tb));
            t1 = fmin(t1, fmax(ta, tb));
        }
        if (t0 > t1) {
            tri += n;
            continue;
        }
        for (uint32_t i = tri; i < tri + n; ++i) {
            const double* v = &b->tris[(size_t)i * 9];
            double e1[3] = {v[3] - v[0], v[4] - v[1], v[5] - v[2]};
            double e2[3] = {v[6] - v[0], v[7] - v[1], v[8] - v[2]};
            double pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                            d[0] * e2[1] - d[1] * e2[0]};
            double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
            if (fabs(det) < 1e-12)
                continue;
            double inv = 1.0 / det;
            double s[3] = {o[0] - v[0], o[1] - v[1], o[2] - v[2]};
            double u = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) * inv;
            double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2],
                           s[0] * e1[1] - s[1] * e1[0]};
            double vv = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
            double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
            for (int k = 0; k < 3; ++k) {
                double m = lo_m[k];
                if (u >= m && vv >= m && u + vv <= 1.0 - m && t >= t_lo[k] && t <= t_hi[k] &&
                    t < out->t[k]) {
                    out->t[k] = t;
                    out->hit[k] = true;
                }
            }
        }
        tri += n;
    }
}

// ---- rays ---------------------------------------------------------------------------------------

static vxk_vec3 random_dir(uint64_t* rng)
{
    for (;;) {
        vxk_vec3 d = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                      vxk_test_randf(rng, -1, 1)};
        float l2 = d.x * d.x + d.y * d.y + d.z * d.z;
        if (l2 > 1e-4f && l2 <= 1.0f)
            return d;
    }
}

// Kinds of rays, chosen by index.
static vxk_ray make_ray(const vxk_world* world, uint64_t* rng, uint32_t kind)
{
    float vs = vxk_world_voxel_size(world);
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        int32_t size = a == 0 ? WORLD_X : (a == 1 ? WORLD_Y : WORLD_Z);
        lo[a] = (float)(WORLD_MIN[a] - 4) * vs;
        hi[a] = (float)(WORLD_MIN[a] + size + 4) * vs;
    }
    vxk_ray r;
    r.origin = (vxk_vec3){vxk_test_randf(rng, lo[0], hi[0]), vxk_test_randf(rng, lo[1], hi[1]),
                          vxk_test_randf(rng, lo[2], hi[2])};
    r.direction = random_dir(rng);
    uint32_t m = (uint32_t)(vxk_test_rand(rng) % 4);
    r.max_distance =
        m == 0 ? INFINITY
               : (m == 1 ? vxk_test_randf(rng, 0, 10 * vs) : vxk_test_randf(rng, 0, 80 * vs));
    switch (kind % 8) {
    case 0: // random
        break;
    case 1: { // along an axis, from integer or chunk-boundary coordinates
        int axis = (int)(vxk_test_rand(rng) % 3);
        float dir[3] = {0, 0, 0};
        dir[axis] = vxk_test_rand(rng) & 1 ? 1.0f : -1.0f;
        r.direction = (vxk_vec3){dir[0], dir[1], dir[2]};
        float* o = &r.origin.x;
        for (int a = 0; a < 3; ++a) {
            uint64_t snap = vxk_test_rand(rng) % 3;
            if (snap == 0)
                o[a] = floorf(o[a] / vs) * vs; // voxel plane
            else if (snap == 1)
                o[a] = floorf(o[a] / (8 * vs)) * 8 * vs; // chunk plane
        }
        break;
    }
    case 2: { // from inside: origin at a random point of a random voxel
        break;
    }
    case 3: { // grazing: lattice corner to lattice corner
        float* o = &r.origin.x;
        float t[3];
        for (int a = 0; a < 3; ++a) {
            o[a] = floorf(o[a] / vs) * vs;
            t[a] = floorf(vxk_test_randf(rng, lo[a], hi[a]) / vs) * vs;
        }
        r.direction = (vxk_vec3){t[0] - o[0], t[1] - o[1], t[2] - o[2]};
        if (r.direction.x == 0 && r.direction.y == 0 && r.direction.z == 0)
            r.direction.y = -1;
        // Some along a face diagonal (one axis zero).
        if (vxk_test_rand(rng) % 2)
            (&r.direction.x)[vxk_test_rand(rng) % 3] = 0.0f;
        if (r.direction.x == 0 && r.direction.y == 0 && r.direction.z == 0)
            r.direction.x = 1;
        break;
    }
    case 4: { // very long: from far away towards the world
        float far = vxk_test_randf(rng, 200, 5000) * vs;
        vxk_vec3 d = random_dir(rng);
        float l = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
        vxk_vec3 target = r.origin;
        r.origin = (vxk_vec3){target.x - d.x / l * far, target.y - d.y / l * far,
                              target.z - d.z / l * far};
        r.direction = d;
        r.max_distance = vxk_test_rand(rng) % 2 ? INFINITY : far * 2;
        break;
    }
    case 5: // downwards from above the surface
        r.origin.y = hi[1] + vxk_test_randf(rng, 0, 20 * vs);
        r.direction =
            (vxk_vec3){vxk_test_randf(rng, -0.3f, 0.3f), -1, vxk_test_randf(rng, -0.3f, 0.3f)};
        r.max_distance = INFINITY;
        break;
    case 6: // horizontal through the caves
        r.origin.y = (float)(WORLD_MIN[1] + 2 + (int)(vxk_test_rand(rng) % 8)) * vs +
                     vxk_test_randf(rng, 0, vs);
        r.direction.y = 0;
        if (r.direction.x == 0 && r.direction.z == 0)
            r.direction.x = 1;
        break;
    default: // short rays
        r.max_distance = vxk_test_randf(rng, 0, 3 * vs);
        break;
    }
    return r;
}

// ---- checks -------------------------------------------------------------------------------------

static int check_ray(const vxk_world* world, const brute_world* b, const vxk_ray* ray,
                     const vxk_ray_hit* got, uint32_t index, uint32_t* ambiguous,
                     uint32_t* disagree)
{
    prepared p;
    prepare(world, ray, &p);
    uint8_t inside_material;
    if (inside_solid(world, &p, &inside_material)) {
        VXK_CHECK_MSG(got->hit && got->distance == 0.0f && got->material == inside_material,
                      "ray %u from inside solid: hit %d distance %g", index, got->hit,
                      (double)got->distance);
        VXK_CHECK(got->normal.x == -p.dn[0] && got->normal.y == -p.dn[1] &&
                  got->normal.z == -p.dn[2]);
        return 0;
    }
    // (1) exact agreement with the same float test.
    float tf;
    bool hf = brute_float(b, &p, &tf);
    VXK_CHECK_MSG(hf == (got->hit != 0), "ray %u: float brute %s, raycast %s (t %g vs %g)", index,
                  hf ? "hit" : "miss", got->hit ? "hit" : "miss", (double)tf,
                  (double)got->distance);
    if (hf)
        VXK_CHECK_MSG(tf == got->distance, "ray %u: t %.9g vs brute %.9g", index,
                      (double)got->distance, (double)tf);
    // (2) double precision, world space: a ray is clear when the triangles shrunk and grown by
    // a margin (barycentric) agree; otherwise it grazes an edge or ends at a face (a near-tie).
    // The margin is 1e-5, or more for rays from far away: the kernel's positions along the ray
    // are floats in voxel units, good to a few ulps of the origin's magnitude, and the faces'
    // edges are at least one voxel long.
    double mag = fmax(fabs(p.o[0]), fmax(fabs(p.o[1]), fabs(p.o[2])));
    double margin = fmax(1e-5, 8.0 * FLT_EPSILON * mag);
    double_result dr;
    brute_double(b, ray, vxk_world_voxel_size(world), margin, &dr);
    bool h_strict = dr.hit[0], h_inner = dr.hit[1], h_outer = dr.hit[2];
    double t_strict = dr.t[0], t_inner = dr.t[1], t_outer = dr.t[2];
    double scale = fmax(1.0, h_outer ? fabs(t_outer) : 0.0);
    double tol = 1e-5 * scale;
    bool clear = h_inner == h_outer && (!h_inner || fabs(t_inner - t_outer) <= tol);
    // Distances: 1e-5 relative, or the float error of the positions (a few ulps of their
    // magnitude in voxel units) over the cosine of the incidence angle for grazing hits, where no
    // float computation from the float origin does better.
    float vs = vxk_world_voxel_size(world);
    double cosine =
        fabs(p.dn[0] * got->normal.x + p.dn[1] * got->normal.y + p.dn[2] * got->normal.z);
    double reach = mag + (got->hit ? (double)got->distance / vs : 0.0);
    double tol_t = fmax(tol, 8.0 * FLT_EPSILON * reach * vs / fmax(cosine, 1e-6));
    if (clear) {
        VXK_CHECK_MSG(h_strict == (got->hit != 0), "ray %u: double brute %s, raycast %s", index,
                      h_strict ? "hit" : "miss", got->hit ? "hit" : "miss");
        if (h_strict) {
            VXK_CHECK_MSG(fabs((double)got->distance - t_strict) <= tol_t,
                          "ray %u: t %.9g vs double %.9g", index, (double)got->distance, t_strict);
            float n2 = got->normal.x * got->normal.x + got->normal.y * got->normal.y +
                       got->normal.z * got->normal.z;
            VXK_CHECK(n2 == 1.0f);
            VXK_CHECK(vxk_world_materials(world)->materials[got->material].kind ==
                      VXK_MATERIAL_SOLID);
        }
    } else {
        // Near-tie: the answer must lie between what the shrunk and grown triangles allow.
        ++*ambiguous;
        if (h_strict != (got->hit != 0) ||
            (h_strict && fabs((double)got->distance - t_strict) > tol_t))
            ++*disagree;
        if (got->hit)
            VXK_CHECK_MSG(h_outer && (double)got->distance >= t_outer - tol_t,
                          "ray %u: ambiguous, t %g below grown %g", index, (double)got->distance,
                          t_outer);
        if (h_inner)
            VXK_CHECK_MSG(got->hit && (double)got->distance <= t_inner + tol_t,
                          "ray %u: ambiguous, missed the shrunk hit at %g", index, t_inner);
    }
    return 0;
}

static uint32_t ray_count(void)
{
    return VXK_TEST_SLOW ? 6000 : 100000;
}

// A world of the generator's terrain (vxk_worldgen_run: height field, caves, water), the same
// box as make_world's: generated at the origin in a world of its own, then copied to WORLD_MIN.
static vxk_world* make_generated_world(float voxel_size, uint64_t seed)
{
    vxk_world* gen = vxk_scene_world_with(NULL, voxel_size);
    vxk_world* world = vxk_scene_world_with(NULL, voxel_size);
    vxk_worldgen_def g = vxk_scene_worldgen_def((vxk_int3){WORLD_X, WORLD_Y, WORLD_Z}, seed);
    g.cave_density = 1.0f;
    static uint8_t ids[WORLD_X * WORLD_Y * WORLD_Z];
    const vxk_int_box at_origin = {{0, 0, 0}, {WORLD_X - 1, WORLD_Y - 1, WORLD_Z - 1}};
    bool ok = gen && world && vxk_worldgen_run(gen, &g) == VXK_OK &&
              vxk_world_read_box(gen, ids, at_origin) == VXK_OK &&
              vxk_world_write_box(world, world_box(), ids) == VXK_OK &&
              vxk_broadphase_build(world) == VXK_OK;
    vxk_world_destroy(gen);
    if (!ok) {
        vxk_world_destroy(world);
        return NULL;
    }
    return world;
}

static int run_world(float voxel_size, uint64_t seed, bool generated)
{
    vxk_world* world =
        generated ? make_generated_world(voxel_size, seed) : make_world(NULL, voxel_size, seed);
    VXK_CHECK(world);
    brute_world b;
    VXK_CHECK(brute_build(world, &b) == 0);
    uint64_t rng = seed * 31 + 7;
    uint32_t n = ray_count() / 2;
    uint32_t hits = 0, inside = 0, ambiguous = 0, disagree = 0;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_ray ray = make_ray(world, &rng, i);
        if (i % 8 == 2) {
            // Inside a random voxel (solid or not).
            float vs = voxel_size;
            ray.origin = (vxk_vec3){((float)(WORLD_MIN[0] + (int)(vxk_test_rand(&rng) % WORLD_X)) +
                                     vxk_test_randf(&rng, 0, 1)) *
                                        vs,
                                    ((float)(WORLD_MIN[1] + (int)(vxk_test_rand(&rng) % WORLD_Y)) +
                                     vxk_test_randf(&rng, 0, 1)) *
                                        vs,
                                    ((float)(WORLD_MIN[2] + (int)(vxk_test_rand(&rng) % WORLD_Z)) +
                                     vxk_test_randf(&rng, 0, 1)) *
                                        vs};
        }
        vxk_ray_hit hit;
        VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &ray), VXK_OK);
        if (check_ray(world, &b, &ray, &hit, i, &ambiguous, &disagree))
            return 1;
        bool any = false;
        VXK_CHECK_EQ_INT(vxk_raycast_any(world, &any, &ray), VXK_OK);
        VXK_CHECK_MSG(any == (hit.hit != 0), "ray %u: any %d closest %d", i, any, hit.hit);
        hits += hit.hit;
        prepared p;
        prepare(world, &ray, &p);
        uint8_t m;
        inside += inside_solid(world, &p, &m);
    }
    fprintf(stderr,
            "   %s world, voxel %g: %u rays, %u hits, %u from inside, %u near-ties, %u of them "
            "answered differently than the exact double test\n",
            generated ? "generator" : "test", (double)voxel_size, n, hits, inside, ambiguous,
            disagree);
    VXK_CHECK(hits > n / 4 && hits < n);
    VXK_CHECK(inside > n / 50);
    VXK_CHECK(disagree < n / 100);
    brute_free(&b);
    vxk_world_destroy(world);
    return 0;
}

static int test_against_brute_force(void)
{
    if (run_world(1.0f, 11, false) || run_world(0.5f, 12, false) || run_world(1.0f, 13, true))
        return 1;
    // Soak runs: VXK_RAY_SOAK=N adds N more worlds (seeds 100.., voxel sizes 1, 0.5, 0.37).
    const char* soak = getenv("VXK_RAY_SOAK");
    int extra = soak ? atoi(soak) : 0;
    for (int k = 0; k < extra; ++k) {
        uint64_t seed = 100 + (uint64_t)k;
        float vs = seed % 3 == 0 ? 0.37f : (seed % 2 ? 1.0f : 0.5f);
        fprintf(stderr, "   soak world %d: seed %d, voxel size %g\n", k, (int)seed, (double)vs);
        if (run_world(vs, seed, k % 2 == 1))
            return 1;
    }
    return 0;
}

// Batch output equals the single-ray output, identically for 1, 2 and 4 workers.
static int test_batch(void)
{
    uint32_t n = VXK_TEST_SLOW ? 3000 : 20000;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* single = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    vxk_ray_hit* batch = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    uint32_t workers[3] = {1, 2, 4};
    for (int w = 0; w < 3; ++w) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers[w];
        vxk_jobs* jobs = NULL;
        VXK_CHECK(vxk_jobs_create(&jd, &jobs) == 0);
        vxk_world* world = make_world(jobs, 1.0f, 21);
        VXK_CHECK(world);
        uint64_t rng = vxk_test_seed(99);
        for (uint32_t i = 0; i < n; ++i)
            rays[i] = make_ray(world, &rng, i);
        if (w == 0)
            for (uint32_t i = 0; i < n; ++i)
                VXK_CHECK_EQ_INT(vxk_raycast(world, &single[i], &rays[i]), VXK_OK);
        memset(batch, 0xAB, n * sizeof(vxk_ray_hit));
        VXK_CHECK_EQ_INT(vxk_raycast_batch(world, batch, rays, n), VXK_OK);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK_MSG(memcmp(&batch[i], &single[i], sizeof(vxk_ray_hit)) == 0,
                          "workers %u ray %u differs", workers[w], i);
        // A tiny budget (constant eviction) gives the same answers.
        vxk_narrow_cache_set_budget(vxk_narrow_cache_get(world), 16 << 10);
        VXK_CHECK_EQ_INT(vxk_raycast_batch(world, batch, rays, n), VXK_OK);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK_MSG(memcmp(&batch[i], &single[i], sizeof(vxk_ray_hit)) == 0,
                          "small budget, workers %u ray %u differs", workers[w], i);
        vxk_world_destroy(world);
        vxk_jobs_destroy(jobs);
    }
    free(rays);
    free(single);
    free(batch);
    return 0;
}

// Rays of 8x8 pixel tiles of pinhole cameras looking down at the terrain at an angle (coherent
// packets: one origin, one octant), tiles of parallel rays from origins spread inside one chunk,
// tiles starting inside the terrain, tiles with short finite max distances, and incoherent groups
// (random rays) in between, so that packets and single rays mix within every batch piece.
static void make_camera_rays(const vxk_world* world, uint64_t* rng, vxk_ray* rays, uint32_t n)
{
    float vs = vxk_world_voxel_size(world);
    uint32_t i = 0;
    while (i < n) {
        uint32_t kind = (uint32_t)(vxk_test_rand(rng) % 6);
        vxk_vec3 eye = {vxk_test_randf(rng, (float)WORLD_MIN[0], (float)(WORLD_MIN[0] + WORLD_X)),
                        vxk_test_randf(rng, (float)(WORLD_MIN[1] + WORLD_Y), 60.0f),
                        vxk_test_randf(rng, (float)WORLD_MIN[2], (float)(WORLD_MIN[2] + WORLD_Z))};
        if (kind == 3) // inside the terrain's box: many origins in solid voxels
            eye.y = vxk_test_randf(rng, (float)WORLD_MIN[1], (float)(WORLD_MIN[1] + WORLD_Y));
        eye = (vxk_vec3){eye.x * vs, eye.y * vs, eye.z * vs};
        // Forward: down at 20..70 degrees below the horizon; right and up span the image plane.
        float yaw = vxk_test_randf(rng, 0.0f, 6.2831853f);
        float pitch = vxk_test_randf(rng, 0.35f, 1.22f);
        vxk_vec3 fwd = {cosf(pitch) * cosf(yaw), -sinf(pitch), cosf(pitch) * sinf(yaw)};
        vxk_vec3 right = {-sinf(yaw), 0.0f, cosf(yaw)};
        vxk_vec3 up = {fwd.y * right.z - fwd.z * right.y, fwd.z * right.x - fwd.x * right.z,
                       fwd.x * right.y - fwd.y * right.x};
        float fov = kind == 5 ? 0.2f : 0.01f; // tile angular size per pixel
        uint32_t tile = kind == 4 ? 8 : 64;   // kind 4: one packet-sized group
        for (uint32_t p = 0; p < tile && i < n; ++p, ++i) {
            vxk_ray* r = &rays[i];
            if (kind == 2) { // incoherent: random rays through the world
                r->origin =
                    (vxk_vec3){vxk_test_randf(rng, -30, 30) * vs, vxk_test_randf(rng, -20, 40) * vs,
                               vxk_test_randf(rng, -30, 30) * vs};
                r->direction = random_dir(rng);
                r->max_distance = INFINITY;
                continue;
            }
            float px = ((float)(p % 8) - 3.5f) * fov, py = ((float)(p / 8) - 3.5f) * fov;
            r->origin = eye;
            r->direction =
                (vxk_vec3){fwd.x + px * right.x + py * up.x, fwd.y + px * right.y + py * up.y,
                           fwd.z + px * right.z + py * up.z};
            r->max_distance = INFINITY;
            if (kind == 1) { // parallel rays from points spread within the eye's chunk
                float* o = &r->origin.x;
                for (int a = 0; a < 3; ++a)
                    o[a] = (floorf(o[a] / (8 * vs)) * 8 + vxk_test_randf(rng, 0, 8)) * vs;
                r->direction = fwd;
            }
            if (kind == 4 || kind == 5) // finite: some end before the surface, some after
                r->max_distance = vxk_test_randf(rng, 0, 60) * vs;
        }
    }
}

// The batch's packet path equals vxk_raycast byte for byte on camera tiles mixed with incoherent
// rays, for 1, 2 and 4 workers, with a roomy and a tiny cache budget.
static int test_batch_packets(void)
{
    uint32_t n = VXK_TEST_SLOW ? 4000 : 30000;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* single = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    vxk_ray_hit* batch = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    VXK_CHECK(rays && single && batch);
    uint32_t workers[3] = {1, 2, 4};
    uint32_t hits = 0, inside = 0;
    for (int w = 0; w < 3; ++w) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers[w];
        vxk_jobs* jobs = NULL;
        VXK_CHECK(vxk_jobs_create(&jd, &jobs) == 0);
        vxk_world* world = make_world(jobs, w == 2 ? 0.5f : 1.0f, 31);
        VXK_CHECK(world);
        uint64_t rng = 1234 + (uint64_t)w;
        make_camera_rays(world, &rng, rays, n);
        for (uint32_t i = 0; i < n; ++i) {
            VXK_CHECK_EQ_INT(vxk_raycast(world, &single[i], &rays[i]), VXK_OK);
            hits += single[i].hit;
            inside += single[i].hit && single[i].distance == 0.0f;
        }
        vxk_raycast_cache_stats before, after;
        vxk_raycast_get_cache_stats(world, &before);
        for (int budget = 0; budget < 2; ++budget) {
            if (budget)
                vxk_narrow_cache_set_budget(vxk_narrow_cache_get(world), 16 << 10);
            // Offsets shift the packets against the tiles (groups of 8 start at each piece).
            for (uint32_t off = 0; off < 8; off += 3) {
                memset(batch, 0xAB, n * sizeof(vxk_ray_hit));
                VXK_CHECK_EQ_INT(vxk_raycast_batch(world, batch, rays + off, n - off), VXK_OK);
                for (uint32_t i = 0; i + off < n; ++i)
                    VXK_CHECK_MSG(memcmp(&batch[i], &single[i + off], sizeof(vxk_ray_hit)) == 0,
                                  "workers %u budget %d offset %u ray %u differs", workers[w],
                                  budget, off, i + off);
            }
        }
        // The camera tiles went through the packet path (a 64-ray tile holds 8 groups of 8;
        // kinds 0, 1 and 3, half the tiles, have near-parallel rays)
        vxk_raycast_get_cache_stats(world, &after);
        VXK_CHECK(after.packets - before.packets > (uint64_t)n / 64);
        vxk_world_destroy(world);
        vxk_jobs_destroy(jobs);
    }
    // The rays exercise both outcomes and the inside-solid case.
    VXK_CHECK(hits > n / 4 && hits < 3 * n && inside > 50);
    free(rays);
    free(single);
    free(batch);
    return 0;
}

// Editing terrain (and updating the broadphase) changes what rays hit: the cache rebuilds.
static int test_edit(void)
{
    vxk_world* world = make_world(NULL, 1.0f, 31);
    VXK_CHECK(world);
    uint64_t rng = vxk_test_seed(5);
    for (int round = 0; round < 6; ++round) {
        int64_t lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            int32_t size = a == 0 ? WORLD_X : (a == 1 ? WORLD_Y : WORLD_Z);
            lo[a] = WORLD_MIN[a] + (int64_t)(vxk_test_rand(&rng) % (uint64_t)(size - 8));
            hi[a] = lo[a] + (int64_t)(vxk_test_rand(&rng) % 8);
        }
        uint8_t material = round % 2 ? 0 : VXK_MAT_METAL;
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), material), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
        brute_world b;
        VXK_CHECK(brute_build(world, &b) == 0);
        uint32_t ambiguous = 0, disagree = 0;
        for (uint32_t i = 0; i < (VXK_TEST_SLOW ? 300u : 2000u); ++i) {
            vxk_ray ray = make_ray(world, &rng, i);
            // Aim at the edited box.
            vxk_vec3 target = {(float)(lo[0] + hi[0]) * 0.5f + 0.3f, (float)(lo[1] + hi[1]) * 0.5f,
                               (float)(lo[2] + hi[2]) * 0.5f - 0.2f};
            if (i % 2)
                ray.direction = (vxk_vec3){target.x - ray.origin.x, target.y - ray.origin.y,
                                           target.z - ray.origin.z};
            if (ray.direction.x == 0 && ray.direction.y == 0 && ray.direction.z == 0)
                continue;
            vxk_ray_hit hit;
            VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &ray), VXK_OK);
            if (check_ray(world, &b, &ray, &hit, i, &ambiguous, &disagree))
                return 1;
        }
        brute_free(&b);
    }
    vxk_raycast_cache_stats stats;
    vxk_raycast_get_cache_stats(world, &stats);
    VXK_CHECK(stats.builds > 0 && stats.entries > 0);
    vxk_world_destroy(world);
    return 0;
}

static int test_bad_input(void)
{
    vxk_world* world = make_world(NULL, 1.0f, 41);
    VXK_CHECK(world);
    vxk_ray good = {{0, 30, 0}, {0, -1, 0}, INFINITY};
    vxk_ray_hit hit;
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &good), VXK_OK);
    VXK_CHECK(hit.hit && hit.normal.y == 1.0f);
    VXK_CHECK_EQ_INT(vxk_raycast(NULL, &hit, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast(world, NULL, &good), VXK_ERR_INVALID_ARGUMENT);
    struct {
        vxk_ray ray;
        vxk_status expect;
    } bad[] = {
        {{{NAN, 0, 0}, {0, -1, 0}, 10}, VXK_ERR_NOT_FINITE},
        {{{0, INFINITY, 0}, {0, -1, 0}, 10}, VXK_ERR_NOT_FINITE},
        {{{0, 0, 0}, {0, NAN, 0}, 10}, VXK_ERR_NOT_FINITE},
        {{{0, 0, 0}, {-INFINITY, 1, 0}, 10}, VXK_ERR_NOT_FINITE},
        {{{0, 0, 0}, {0, -1, 0}, NAN}, VXK_ERR_NOT_FINITE},
        {{{0, 0, 0}, {0, 0, 0}, 10}, VXK_ERR_OUT_OF_RANGE},
        {{{0, 0, 0}, {0, -0.0f, 0}, 10}, VXK_ERR_OUT_OF_RANGE},
        {{{0, 0, 0}, {0, -1, 0}, -1}, VXK_ERR_OUT_OF_RANGE},
        {{{0, 0, 0}, {0, -1, 0}, -INFINITY}, VXK_ERR_OUT_OF_RANGE},
        {{{3e9f, 0, 0}, {0, -1, 0}, 10}, VXK_ERR_OUT_OF_RANGE},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        vxk_ray_hit untouched;
        memset(&untouched, 0x5A, sizeof(untouched));
        vxk_ray_hit copy = untouched;
        VXK_CHECK_EQ_INT(vxk_raycast(world, &untouched, &bad[i].ray), bad[i].expect);
        VXK_CHECK(memcmp(&untouched, &copy, sizeof(copy)) == 0);
        bool any = true;
        VXK_CHECK_EQ_INT(vxk_raycast_any(world, &any, &bad[i].ray), bad[i].expect);
        VXK_CHECK(any == true);
        // A batch with one bad ray writes nothing.
        vxk_ray rays[3] = {good, bad[i].ray, good};
        vxk_ray_hit hits[3];
        memset(hits, 0x5A, sizeof(hits));
        VXK_CHECK_EQ_INT(vxk_raycast_batch(world, hits, rays, 3), bad[i].expect);
        for (int k = 0; k < 3; ++k)
            VXK_CHECK(memcmp(&hits[k], &copy, sizeof(copy)) == 0);
    }
    VXK_CHECK_EQ_INT(vxk_raycast_batch(world, NULL, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(world, NULL, &good, 1), VXK_ERR_INVALID_ARGUMENT);
    // Tiny and huge directions are normalised alike.
    vxk_ray tiny = {{0.5f, 30, 0.5f}, {0, -1e-30f, 0}, INFINITY};
    vxk_ray huge = {{0.5f, 30, 0.5f}, {0, -3e38f, 0}, INFINITY};
    vxk_ray_hit a, b;
    VXK_CHECK_EQ_INT(vxk_raycast(world, &a, &tiny), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_raycast(world, &b, &huge), VXK_OK);
    VXK_CHECK(a.hit && memcmp(&a, &b, sizeof(a)) == 0);
    // Max distance 0 from outside misses; from inside solid hits at 0.
    vxk_ray zero = {{0.5f, 30, 0.5f}, {0, -1, 0}, 0};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &a, &zero), VXK_OK);
    VXK_CHECK(!a.hit);
    zero.origin.y = (float)WORLD_MIN[1] + 0.5f; // bedrock
    VXK_CHECK_EQ_INT(vxk_raycast(world, &a, &zero), VXK_OK);
    VXK_CHECK(a.hit && a.distance == 0.0f && a.material == VXK_MAT_BEDROCK);
    // Far from any terrain, infinite rays miss quickly.
    vxk_ray away = {{1e8f, 1e8f, -1e8f}, {1, 0.5f, 0.25f}, INFINITY};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &a, &away), VXK_OK);
    VXK_CHECK(!a.hit);
    vxk_world_destroy(world);
    return 0;
}

// Warm cache, then edits of many kinds (boxes of metal, air and water; single voxels on chunk
// faces and edges, which change a neighbour's faces; whole chunks emptied; new chunks in empty
// space) each followed by a broadphase update: the same rays must equal brute force on the new
// terrain, and a cleared (cold) cache must give bit-identical answers.
static int test_edit_warm_cache(void)
{
    vxk_jobs_def jd = vxk_default_jobs_def();
    jd.worker_count = 2;
    vxk_jobs* jobs = NULL;
    VXK_CHECK(vxk_jobs_create(&jd, &jobs) == 0);
    vxk_world* world = make_world(jobs, 1.0f, 51);
    VXK_CHECK(world);
    uint32_t n = VXK_TEST_SLOW ? 600 : 3000;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* warm = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    vxk_ray_hit* cold = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    vxk_ray_hit* batch = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    uint64_t rng = vxk_test_seed(8);
    for (uint32_t i = 0; i < n; ++i)
        rays[i] = make_ray(world, &rng, i);
    for (uint32_t i = 0; i < n; ++i)
        VXK_CHECK_EQ_INT(vxk_raycast(world, &warm[i], &rays[i]), VXK_OK);
    vxk_raycast_cache_stats before;
    vxk_raycast_get_cache_stats(world, &before);
    for (int round = 0; round < 10; ++round) {
        int64_t lo[3], hi[3];
        uint8_t material = 0;
        int kind = round % 5;
        for (int a = 0; a < 3; ++a) {
            int32_t size = a == 0 ? WORLD_X : (a == 1 ? WORLD_Y : WORLD_Z);
            lo[a] = WORLD_MIN[a] + (int64_t)(vxk_test_rand(&rng) % (uint64_t)(size - 8));
            hi[a] = lo[a] + (int64_t)(vxk_test_rand(&rng) % 6);
        }
        if (kind == 0) { // metal box
            material = VXK_MAT_METAL;
        } else if (kind == 1) { // one voxel on the low face/edge of a chunk: neighbours change
            lo[0] = hi[0] = lo[0] - ((lo[0] % 8) + 8) % 8;
            if (round % 2)
                lo[2] = hi[2] = lo[2] - ((lo[2] % 8) + 8) % 8;
            hi[1] = lo[1];
            material = round % 4 ? VXK_MAT_STONE : 0;
        } else if (kind == 2) { // a whole chunk emptied (its entry disappears)
            for (int a = 0; a < 3; ++a) {
                lo[a] -= ((lo[a] % 8) + 8) % 8;
                hi[a] = lo[a] + 7;
            }
        } else if (kind == 3) { // water
            material = VXK_MAT_WATER;
        } else { // new terrain in empty space above the world
            lo[1] = WORLD_MIN[1] + WORLD_Y + 1;
            hi[1] = lo[1] + 2;
            material = VXK_MAT_WOOD;
        }
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), material), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
        brute_world b;
        VXK_CHECK(brute_build(world, &b) == 0);
        uint32_t ambiguous = 0, disagree = 0;
        for (uint32_t i = 0; i < n; ++i) {
            VXK_CHECK_EQ_INT(vxk_raycast(world, &warm[i], &rays[i]), VXK_OK);
            if (check_ray(world, &b, &rays[i], &warm[i], i, &ambiguous, &disagree))
                return 1;
        }
        VXK_CHECK(disagree < n / 50 + 1);
        VXK_CHECK_EQ_INT(vxk_raycast_batch(world, batch, rays, n), VXK_OK);
        VXK_CHECK(memcmp(batch, warm, n * sizeof(vxk_ray_hit)) == 0);
        vxk_raycast_cache_clear(world);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK_EQ_INT(vxk_raycast(world, &cold[i], &rays[i]), VXK_OK);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK_MSG(memcmp(&cold[i], &warm[i], sizeof(vxk_ray_hit)) == 0,
                          "round %d ray %u: warm and cold caches differ", round, i);
        brute_free(&b);
    }
    vxk_raycast_cache_stats after;
    vxk_raycast_get_cache_stats(world, &after);
    VXK_CHECK(after.builds > before.builds && after.hits > before.hits);
    free(rays);
    free(warm);
    free(cold);
    free(batch);
    vxk_world_destroy(world);
    vxk_jobs_destroy(jobs);
    return 0;
}

// Several threads at once on one world (single rays and batches over the world's jobs, with a
// large and a tiny cache budget): every answer equals the single-threaded reference bit for bit.
typedef struct concurrent_arg {
    const vxk_world* world;
    const vxk_ray* rays;
    const vxk_ray_hit* expect;
    uint32_t n, index;
    _Atomic int failures;
} concurrent_arg;

typedef struct thread_slot {
    concurrent_arg* shared;
    uint32_t index;
} thread_slot;

static void* concurrent_main(void* user)
{
    thread_slot* t = (thread_slot*)user;
    concurrent_arg* a = t->shared;
    vxk_ray_hit* out = (vxk_ray_hit*)calloc(a->n, sizeof(vxk_ray_hit));
    for (int rep = 0; rep < 2; ++rep) {
        if ((t->index + (uint32_t)rep) % 2) {
            if (vxk_raycast_batch(a->world, out, a->rays, a->n) != VXK_OK)
                atomic_fetch_add(&a->failures, 1);
        } else {
            // Each thread walks the rays from its own starting point.
            for (uint32_t k = 0; k < a->n; ++k) {
                uint32_t i = (k + t->index * (a->n / 4)) % a->n;
                if (vxk_raycast(a->world, &out[i], &a->rays[i]) != VXK_OK)
                    atomic_fetch_add(&a->failures, 1);
            }
        }
        if (memcmp(out, a->expect, a->n * sizeof(vxk_ray_hit)) != 0)
            atomic_fetch_add(&a->failures, 1);
    }
    free(out);
    return NULL;
}

static int test_concurrent(void)
{
    uint32_t n = VXK_TEST_SLOW ? 1200 : 8000;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* expect = (vxk_ray_hit*)calloc(n, sizeof(vxk_ray_hit));
    for (uint32_t workers = 1; workers <= 3; ++workers) {
        for (int budget_kind = 0; budget_kind < 2; ++budget_kind) {
            vxk_jobs_def jd = vxk_default_jobs_def();
            jd.worker_count = workers;
            vxk_jobs* jobs = NULL;
            VXK_CHECK(vxk_jobs_create(&jd, &jobs) == 0);
            vxk_world* world = make_world(jobs, 1.0f, 61);
            VXK_CHECK(world);
            uint64_t rng = vxk_test_seed(17);
            for (uint32_t i = 0; i < n; ++i)
                rays[i] = make_ray(world, &rng, i);
            for (uint32_t i = 0; i < n; ++i)
                VXK_CHECK_EQ_INT(vxk_raycast(world, &expect[i], &rays[i]), VXK_OK);
            vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
            if (budget_kind)
                vxk_narrow_cache_set_budget(cache, 24 << 10);
            else
                vxk_narrow_cache_clear(cache); // every thread races to build
            concurrent_arg shared = {world, rays, expect, n, 0, 0};
            pthread_t threads[4];
            thread_slot slots[4];
            for (uint32_t t = 0; t < 4; ++t) {
                slots[t] = (thread_slot){&shared, t};
                VXK_CHECK(pthread_create(&threads[t], NULL, concurrent_main, &slots[t]) == 0);
            }
            for (uint32_t t = 0; t < 4; ++t)
                pthread_join(threads[t], NULL);
            VXK_CHECK_MSG(atomic_load(&shared.failures) == 0, "workers %u budget kind %d: %d",
                          workers, budget_kind, atomic_load(&shared.failures));
            vxk_raycast_cache_stats st;
            vxk_raycast_get_cache_stats(world, &st);
            if (!budget_kind)
                VXK_CHECK(st.evictions == 0 && st.hits > st.misses);
            vxk_world_destroy(world);
            vxk_jobs_destroy(jobs);
        }
    }
    free(rays);
    free(expect);
    return 0;
}

// Terrain in two far-apart places: the dense ray grid would be mostly empty, so the rays read the
// broadphase map instead; the answers still equal brute force.
static int test_sparse_world(void)
{
    vxk_world* world = make_world(NULL, 1.0f, 71);
    VXK_CHECK(world);
    const int64_t lo[3] = {90000, -3, 4000}, hi[3] = {90011, 5, 4009};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
    VXK_CHECK(vxk_narrow_ray_grid(vxk_narrow_cache_get(world), world) == NULL);
    brute_world b;
    VXK_CHECK(brute_build(world, &b) == 0);
    uint64_t rng = vxk_test_seed(4);
    uint32_t ambiguous = 0, disagree = 0, far_hits = 0;
    uint32_t n = VXK_TEST_SLOW ? 400 : 4000;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_ray ray = make_ray(world, &rng, i);
        if (i % 4 == 3) // at the far block
            ray = (vxk_ray){{90005.5f + vxk_test_randf(&rng, -30, 30), 12.0f,
                             4004.5f + vxk_test_randf(&rng, -30, 30)},
                            random_dir(&rng),
                            INFINITY};
        vxk_ray_hit hit;
        VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &ray), VXK_OK);
        if (check_ray(world, &b, &ray, &hit, i, &ambiguous, &disagree))
            return 1;
        far_hits += hit.hit && hit.point.x > 80000.0f;
    }
    VXK_CHECK(far_hits > 0);
    VXK_CHECK(disagree < n / 50 + 1);
    brute_free(&b);
    vxk_world_destroy(world);
    return 0;
}

// ---- watertightness
// ------------------------------------------------------------------------------
//
// A reference that shares no code with the kernel's quad and kD tests: the kernel's prepared ray
// (float origin and direction in voxel units, as documented in vxk/raycast.h, taken as exact) in
// double precision against the solid voxels themselves as closed unit cubes. For a tolerance eps
// (voxel units, per axis) it gives two distances (world units):
//   t_out: where the ray first comes within eps of a solid voxel (the solid grown by eps);
//   t_in:  where the ray first lies farther than eps from every non-solid voxel (the solid shrunk
//          by eps): by then it has crossed the surface for certain.
// A ray that starts in a non-solid voxel must be answered with a hit at t_out - tt <= t <=
// t_in + tt (tt: the float rounding of t itself) on a face that exists within eps of the hit
// point (a solid voxel of the reported material behind it, a non-solid one in front); it may miss
// only when it never enters the shrunk solid (t_in infinite). Where the exact ray passes within
// eps of an edge, both faces (and at a convex edge, passing by) lie within these bounds; a ray
// that leaks through an edge and reports a far face from inside lies beyond t_in. (Which way the
// face looks is not checked: hits are two-sided, and a ray that touches an edge exactly, or starts
// on a face, may report a face it meets from behind; both faces at an edge are the solid's.)

typedef struct cube_world {
    const vxk_world* world;
    int32_t lo[3], hi[3]; // voxel box holding all the terrain (inclusive lo, exclusive hi)
} cube_world;

static bool cube_solid(const cube_world* cw, int32_t x, int32_t y, int32_t z, uint8_t* material)
{
    uint8_t id = vxk_world_get_voxel(cw->world, (vxk_int3){x, y, z});
    if (material)
        *material = id;
    return vxk_world_materials(cw->world)->materials[id].kind == VXK_MATERIAL_SOLID;
}

// The interval of t over which o + t d lies in the closed box [lo, hi]; false when empty.
static bool cube_slab(const double o[3], const double d[3], const double lo[3], const double hi[3],
                      double* t0, double* t1)
{
    double a = -INFINITY, b = INFINITY;
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0) {
            if (o[k] < lo[k] || o[k] > hi[k])
                return false;
            continue;
        }
        double ta = (lo[k] - o[k]) / d[k], tb = (hi[k] - o[k]) / d[k];
        a = fmax(a, fmin(ta, tb));
        b = fmin(b, fmax(ta, tb));
    }
    *t0 = a;
    *t1 = b;
    return a <= b;
}

typedef struct cube_interval {
    double t0, t1;
} cube_interval;

static int cube_interval_less(const void* a, const void* b)
{
    double x = ((const cube_interval*)a)->t0, y = ((const cube_interval*)b)->t0;
    return x < y ? -1 : (x > y ? 1 : 0);
}

// t_out and t_in (infinite when never reached) of the ray (o, d) over t in [0, tmax].
static void cube_reference(const cube_world* cw, const double o[3], const double d[3], double tmax,
                           double eps, double* t_out, double* t_in)
{
    *t_out = *t_in = INFINITY;
    // Outside the terrain's box (grown by two voxels) everything is air.
    double blo[3], bhi[3], ta, tb;
    for (int k = 0; k < 3; ++k) {
        blo[k] = cw->lo[k] - 2.0;
        bhi[k] = cw->hi[k] + 2.0;
    }
    if (!cube_slab(o, d, blo, bhi, &ta, &tb) || tb < 0.0)
        return;
    double t_end = fmin(tb, tmax);
    // Voxels along the ray (an exact-enough double DDA), each with its 26 neighbours: every voxel
    // within eps (< 1) of the ray is one of them.
    size_t cap = 4096, ns = 0, nn = 0;
    cube_interval* solid = (cube_interval*)malloc(cap * sizeof(cube_interval));
    cube_interval* open = (cube_interval*)malloc(cap * sizeof(cube_interval));
    double t = fmax(ta, 0.0);
    int32_t v[3], step[3];
    double t_next[3], t_delta[3];
    for (int k = 0; k < 3; ++k) {
        v[k] = (int32_t)floor(o[k] + t * d[k]);
        step[k] = d[k] > 0 ? 1 : (d[k] < 0 ? -1 : 0);
        t_delta[k] = d[k] != 0.0 ? fabs(1.0 / d[k]) : INFINITY;
        double next = v[k] + (d[k] > 0 ? 1.0 : 0.0);
        t_next[k] = d[k] != 0.0 ? (next - o[k]) / d[k] : INFINITY;
    }
    for (;;) {
        for (int dy = -1; dy <= 1; ++dy)
            for (int dz = -1; dz <= 1; ++dz)
                for (int dx = -1; dx <= 1; ++dx) {
                    int32_t u[3] = {v[0] + dx, v[1] + dy, v[2] + dz};
                    double lo[3], hi[3], u0, u1;
                    for (int k = 0; k < 3; ++k) {
                        lo[k] = u[k] - eps;
                        hi[k] = u[k] + 1.0 + eps;
                    }
                    if (!cube_slab(o, d, lo, hi, &u0, &u1) || u1 < 0.0)
                        continue;
                    bool is_solid = cube_solid(cw, u[0], u[1], u[2], NULL);
                    cube_interval** list = is_solid ? &solid : &open;
                    size_t* n = is_solid ? &ns : &nn;
                    if (*n == cap) {
                        cap *= 2;
                        solid = (cube_interval*)realloc(solid, cap * sizeof(cube_interval));
                        open = (cube_interval*)realloc(open, cap * sizeof(cube_interval));
                    }
                    (*list)[(*n)++] = (cube_interval){u0, u1};
                }
        int a = t_next[0] <= t_next[1] ? (t_next[0] <= t_next[2] ? 0 : 2)
                                       : (t_next[1] <= t_next[2] ? 1 : 2);
        if (t_next[a] > t_end)
            break;
        v[a] += step[a];
        t_next[a] += t_delta[a];
    }
    for (size_t i = 0; i < ns; ++i)
        *t_out = fmin(*t_out, fmax(solid[i].t0, 0.0));
    if (*t_out > tmax)
        *t_out = INFINITY;
    qsort(open, nn, sizeof(cube_interval), cube_interval_less);
    // [0, covered] lies within eps of non-solid voxels (before the box: air, two voxels clear)
    double covered = fmax(ta, 0.0);
    bool gap = false;
    for (size_t i = 0; i < nn && !gap; ++i) {
        if (open[i].t0 > covered)
            gap = true;
        else
            covered = fmax(covered, open[i].t1);
    }
    if (covered < t_end)
        *t_in = covered;
    free(solid);
    free(open);
}

// Whether a face with outward normal axis k, sign s exists within eps of point p (voxel units):
// a solid voxel of `material` behind it and a non-solid one in front.
static bool cube_face_near(const cube_world* cw, const double p[3], int k, int s, uint8_t material,
                           double eps)
{
    double plane = floor(p[k] + 0.5);
    if (fabs(p[k] - plane) > eps)
        return false;
    int a = (k + 1) % 3, b = (k + 2) % 3;
    for (int32_t ia = (int32_t)floor(p[a] - eps); ia <= (int32_t)floor(p[a] + eps); ++ia)
        for (int32_t ib = (int32_t)floor(p[b] - eps); ib <= (int32_t)floor(p[b] + eps); ++ib) {
            int32_t behind[3], front[3];
            behind[a] = front[a] = ia;
            behind[b] = front[b] = ib;
            behind[k] = (int32_t)plane - (s > 0 ? 1 : 0);
            front[k] = (int32_t)plane - (s > 0 ? 0 : 1);
            uint8_t m;
            if (cube_solid(cw, behind[0], behind[1], behind[2], &m) && m == material &&
                !cube_solid(cw, front[0], front[1], front[2], NULL))
                return true;
        }
    return false;
}

typedef struct cube_counts {
    uint32_t rays, hits, inside;
} cube_counts;

// Checks one answer against the cube reference; on a failure writes why into why (size 512) and
// returns 1. reach: the voxel distance the ray is meant to cover (the tolerance grows with it, as
// raycast.h's 1e-5 relative error does).
static int cube_check(const cube_world* cw, const vxk_ray* ray, const vxk_ray_hit* hit,
                      double reach, cube_counts* counts, char* why)
{
    prepared p;
    prepare(cw->world, ray, &p);
    ++counts->rays;
    if (cube_solid(cw, (int32_t)floorf(p.o[0]), (int32_t)floorf(p.o[1]), (int32_t)floorf(p.o[2]),
                   NULL)) {
        ++counts->inside;
        snprintf(why, 512, "starts in solid: hit %d at %g", hit->hit, (double)hit->distance);
        return !(hit->hit && hit->distance == 0.0f);
    }
    double o[3], d[3];
    for (int k = 0; k < 3; ++k) {
        o[k] = p.o[k];
        d[k] = p.dv[k];
    }
    // raycast.h: distances good to 1e-5 relative, positions to a few ulps of their distance from
    // the origin's chunk
    double eps = 1e-5 * (1.0 + reach) + 8.0 * FLT_EPSILON * (8.0 + reach);
    double tmax = isinf(ray->max_distance) ? INFINITY : ray->max_distance;
    double t_out, t_in;
    cube_reference(cw, o, d, tmax, eps, &t_out, &t_in);
    double t = hit->distance;
    double tt = 4.0 * FLT_EPSILON * fmax(t, 1.0);
    const float n[3] = {hit->normal.x, hit->normal.y, hit->normal.z};
    snprintf(why, 512,
             "%s at %.9g normal (%g %g %g) material %u; the solid is touched at %.9g, entered by "
             "%.9g; origin (%a %a %a) direction (%a %a %a)",
             hit->hit ? "hit" : "miss", t, (double)n[0], (double)n[1], (double)n[2], hit->material,
             t_out, t_in, (double)ray->origin.x, (double)ray->origin.y, (double)ray->origin.z,
             (double)ray->direction.x, (double)ray->direction.y, (double)ray->direction.z);
    if (isfinite(t_in) && !(hit->hit && t <= t_in + tt))
        return 1; // missed the surface, or went through it
    if (!hit->hit)
        return 0;
    ++counts->hits;
    if (t < t_out - tt)
        return 1; // before the solid
    int k = n[0] != 0.0f ? 0 : (n[1] != 0.0f ? 1 : 2);
    int s = n[k] > 0.0f ? 1 : -1;
    double at[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
    return !cube_face_near(cw, at, k, s, hit->material, eps); // a face that is not there
}

// The minimal leak of issue 14: a ray crossing the surface within an ulp of the edge between a
// stone and a dirt top face. The top face at (1, 1, 0.624) must be hit, not the far side.
static int test_seam_regression(void)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    const vxk_int_box a = {{0, 0, 0}, {0, 0, 0}}, b = {{1, 0, 0}, {1, 0, 0}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, a, VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, b, VXK_MAT_DIRT), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
    vxk_ray ray = {{-0x1.c617a6p+2f, 0x1.41c5e4p+3f, 0x1.2d2a1ap+3f},
                   {0x1.14780ep-1f, -0x1.35432cp-1f, -0x1.2c1c06p-1f},
                   INFINITY};
    vxk_ray_hit hit;
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &ray), VXK_OK);
    VXK_CHECK_MSG(hit.hit && hit.normal.x == 0.0f && hit.normal.y == 1.0f && hit.normal.z == 0.0f,
                  "hit %d normal (%g %g %g) at %.7g", hit.hit, (double)hit.normal.x,
                  (double)hit.normal.y, (double)hit.normal.z, (double)hit.distance);
    VXK_CHECK_MSG(fabs(hit.distance - 14.99170) < 1e-4 && fabsf(hit.point.x - 1.0f) < 1e-4f &&
                      fabsf(hit.point.y - 1.0f) < 1e-5f && fabsf(hit.point.z - 0.624f) < 1e-3f,
                  "distance %.7g point (%.7g %.7g %.7g)", (double)hit.distance, (double)hit.point.x,
                  (double)hit.point.y, (double)hit.point.z);
    cube_world cw = {world, {0, 0, 0}, {2, 1, 1}};
    cube_counts counts = {0};
    char why[512];
    VXK_CHECK_MSG(!cube_check(&cw, &ray, &hit, 16.0, &counts, why), "%s", why);
    bool any = false;
    VXK_CHECK_EQ_INT(vxk_raycast_any(world, &any, &ray), VXK_OK);
    VXK_CHECK(any);
    vxk_world_destroy(world);
    return 0;
}

// A terrain of seams: a stepped height field whose voxels take one of five materials in small
// patches (so that coplanar faces of different materials meet all over the surface), pillars and
// floating blocks (convex edges and corners), across chunk borders on every axis, at `offset`.
static vxk_world* make_seam_world(float voxel_size, uint64_t seed, const int32_t offset[3],
                                  cube_world* cw)
{
    enum { SX = 37, SY = 22, SZ = 35 };
    vxk_world* world = vxk_scene_world_with(NULL, voxel_size);
    if (!world)
        return NULL;
    static uint8_t ids[SX * SY * SZ];
    static const uint8_t materials[5] = {VXK_MAT_STONE, VXK_MAT_DIRT, VXK_MAT_GRASS, VXK_MAT_SAND,
                                         VXK_MAT_CLAY};
    uint64_t rng = seed;
    memset(ids, 0, sizeof(ids));
    for (int z = 0; z < SZ; ++z)
        for (int x = 0; x < SX; ++x) {
            int h = 7 + (int)(2.5 * sin(x * 0.45 + (double)(seed & 3)) + 2.0 * cos(z * 0.37)) +
                    (int)(vxk_test_rand(&rng) % 2);
            if (vxk_test_rand(&rng) % 41 == 0)
                h += 3 + (int)(vxk_test_rand(&rng) % 4); // a pillar
            for (int y = 0; y < h && y < SY; ++y) {
                uint64_t patch = (uint64_t)(x / 2) * 73856093u ^ (uint64_t)(z / 3) * 19349663u ^
                                 (uint64_t)(y / 2) * 83492791u ^ seed;
                ids[x + SX * (z + SZ * y)] = materials[((patch * 0x9E3779B97F4A7C15ull) >> 40) % 5];
            }
        }
    for (int k = 0; k < 12; ++k) { // floating blocks
        int x0 = (int)(vxk_test_rand(&rng) % (SX - 3)), z0 = (int)(vxk_test_rand(&rng) % (SZ - 3));
        int y0 = 15 + (int)(vxk_test_rand(&rng) % 5);
        int sx = 1 + (int)(vxk_test_rand(&rng) % 3), sz = 1 + (int)(vxk_test_rand(&rng) % 3);
        for (int y = y0; y < y0 + 2 && y < SY; ++y)
            for (int z = z0; z < z0 + sz; ++z)
                for (int x = x0; x < x0 + sx; ++x)
                    ids[x + SX * (z + SZ * y)] = materials[(x + y + z) % 5];
    }
    vxk_int3 min = {offset[0] - 13, offset[1] - 7, offset[2] - 11};
    if (vxk_world_write_box(world, vxk_test_box_sized(min, (vxk_int3){SX, SY, SZ}), ids) !=
            VXK_OK ||
        vxk_broadphase_build(world) != VXK_OK) {
        vxk_world_destroy(world);
        return NULL;
    }
    *cw = (cube_world){world, {min.x, min.y, min.z}, {min.x + SX, min.y + SY, min.z + SZ}};
    return world;
}

// A face of the terrain: solid voxel v, outward normal axis k and sign s.
typedef struct cube_face {
    int32_t v[3];
    int k, s;
} cube_face;

// A point on an edge of a face where quads meet: a material seam or a chunk border in the face's
// plane (or, now and then, any edge), an edge point or a corner, and a ray towards it from 14 to
// 16 voxels away in front of the face at an incidence cosine of 0.2 to 0.9. The float ray passes
// within an ulp or so of the point: its direction is taken from the rounded origin.
static bool aim_at_edge(const cube_world* cw, const cube_face* faces, uint32_t face_count,
                        uint64_t* rng, float voxel_size, vxk_ray* ray, uint32_t* kind)
{
    for (int attempt = 0; attempt < 200; ++attempt) {
        const cube_face* f = &faces[vxk_test_rand(rng) % face_count];
        int a = (f->k + 1 + (int)(vxk_test_rand(rng) % 2)) % 3, b = 3 - f->k - a;
        int side = (int)(vxk_test_rand(rng) % 2);
        int32_t w[3] = {f->v[0], f->v[1], f->v[2]};
        w[a] += side ? 1 : -1;
        int32_t edge = f->v[a] + side; // the edge's coordinate on axis a
        uint8_t mv, mw;
        cube_solid(cw, f->v[0], f->v[1], f->v[2], &mv);
        int32_t wf[3] = {w[0], w[1], w[2]};
        wf[f->k] += f->s;
        bool coplanar =
            cube_solid(cw, w[0], w[1], w[2], &mw) && !cube_solid(cw, wf[0], wf[1], wf[2], NULL);
        bool seam = coplanar && mw != mv;
        bool border = edge % 8 == 0 || (f->v[f->k] + (f->s > 0)) % 8 == 0;
        uint32_t want = (uint32_t)(vxk_test_rand(rng) % 5);
        if ((want < 2 && !seam) || (want >= 2 && want < 4 && !border))
            continue;
        double pt[3];
        pt[f->k] = f->v[f->k] + (f->s > 0 ? 1.0 : 0.0);
        pt[a] = edge;
        uint32_t along = (uint32_t)(vxk_test_rand(rng) % 3);
        pt[b] = f->v[b] + (along == 0 ? 0.0 : (along == 1 ? 1.0 : vxk_test_randf(rng, 0, 1)));
        // Direction: cosine c against the inward normal, the rest in the face's plane.
        double c = vxk_test_randf(rng, 0.2f, 0.9f), phi = vxk_test_randf(rng, 0, 6.2831853f);
        double dir[3];
        dir[f->k] = -f->s * c;
        dir[a] = sqrt(1.0 - c * c) * cos(phi);
        dir[b] = sqrt(1.0 - c * c) * sin(phi);
        double dist = vxk_test_randf(rng, 14, 16);
        float o[3];
        for (int m = 0; m < 3; ++m)
            o[m] = (float)((pt[m] - dist * dir[m]) * voxel_size);
        if (cube_solid(cw, (int32_t)floor(o[0] / voxel_size), (int32_t)floor(o[1] / voxel_size),
                       (int32_t)floor(o[2] / voxel_size), NULL))
            continue;
        ray->origin = (vxk_vec3){o[0], o[1], o[2]};
        ray->direction =
            (vxk_vec3){(float)(pt[0] * voxel_size - o[0]), (float)(pt[1] * voxel_size - o[1]),
                       (float)(pt[2] * voxel_size - o[2])};
        ray->max_distance = INFINITY;
        *kind = seam ? 0 : (border ? 1 : 2);
        return true;
    }
    return false;
}

static int run_watertight(float voxel_size, uint64_t seed, const int32_t offset[3], uint32_t n)
{
    cube_world cw;
    vxk_world* world = make_seam_world(voxel_size, seed, offset, &cw);
    VXK_CHECK(world);
    // The terrain's faces.
    uint32_t cap = 65536, count = 0;
    cube_face* faces = (cube_face*)malloc(cap * sizeof(cube_face));
    for (int32_t y = cw.lo[1]; y < cw.hi[1]; ++y)
        for (int32_t z = cw.lo[2]; z < cw.hi[2]; ++z)
            for (int32_t x = cw.lo[0]; x < cw.hi[0]; ++x) {
                if (!cube_solid(&cw, x, y, z, NULL))
                    continue;
                for (int k = 0; k < 3; ++k)
                    for (int s = -1; s <= 1; s += 2) {
                        int32_t u[3] = {x, y, z};
                        u[k] += s;
                        if (!cube_solid(&cw, u[0], u[1], u[2], NULL) && count < cap)
                            faces[count++] = (cube_face){{x, y, z}, k, s};
                    }
            }
    VXK_CHECK(count > 1000);
    uint64_t rng = vxk_test_seed(seed);
    cube_counts counts = {0};
    uint32_t kinds[3] = {0, 0, 0}, failures = 0;
    char why[512], first[640] = "";
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* hits = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    vxk_ray_hit* batch = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t kind = 0;
        VXK_CHECK(aim_at_edge(&cw, faces, count, &rng, voxel_size, &rays[i], &kind));
        ++kinds[kind];
        VXK_CHECK_EQ_INT(vxk_raycast(world, &hits[i], &rays[i]), VXK_OK);
        if (cube_check(&cw, &rays[i], &hits[i], 16.0, &counts, why) && failures++ == 0)
            snprintf(first, sizeof(first), "ray %u (%s): %s", i,
                     kind == 0 ? "seam" : (kind == 1 ? "chunk border" : "edge"), why);
        bool any = false;
        VXK_CHECK_EQ_INT(vxk_raycast_any(world, &any, &rays[i]), VXK_OK);
        VXK_CHECK_MSG(any == (hits[i].hit != 0), "ray %u: any %d closest %d", i, any, hits[i].hit);
    }
    VXK_CHECK_EQ_INT(vxk_raycast_batch(world, batch, rays, n), VXK_OK);
    VXK_CHECK(memcmp(batch, hits, n * sizeof(vxk_ray_hit)) == 0);
    fprintf(stderr,
            "   voxel %g offset (%d %d %d): %u rays (%u at seams, %u at chunk borders), %u hits, "
            "%u from inside, %u wrong\n",
            (double)voxel_size, offset[0], offset[1], offset[2], counts.rays, kinds[0], kinds[1],
            counts.hits, counts.inside, failures);
    VXK_CHECK_MSG(failures == 0, "%u of %u rays: first %s", failures, n, first);
    VXK_CHECK(counts.hits > n / 2 && kinds[0] > n / 5 && kinds[1] > n / 5);
    free(rays);
    free(hits);
    free(batch);
    free(faces);
    vxk_world_destroy(world);
    return 0;
}

// Thousands of rays aimed exactly at edges and corners where quads meet (material seams, chunk
// borders, convex and concave edges), checked against the cube reference; near the origin, at a
// voxel size of 0.5 and far from it on negative and positive axes.
static int test_watertight(void)
{
    uint32_t n = VXK_TEST_SLOW ? 500 : 4000;
    const int32_t origin[3] = {0, 0, 0}, far[3] = {1048579, -37, -262149};
    if (run_watertight(1.0f, 81, origin, n) || run_watertight(0.5f, 82, origin, n) ||
        run_watertight(1.0f, 83, far, n))
        return 1;
    return 0;
}

// ---- empty space and the coordinate range ------------------------------------------------------

// Terrain at x = 0 and x = 2^26 (and 2^27), nothing between: a ray between them crosses millions of
// empty chunk cells. Its cost must depend on what it passes near: the DDA's steps
// (vxk_raycast_cache_stats.steps, cells visited plus empty blocks skipped) stay in the hundreds,
// and the far face is hit. (The blocks are 16 voxels thick: at 2^26 voxels from the origin a float
// position is good to a few voxels, so a one-voxel wall's two faces may coincide.)
static int test_far_sparse(void)
{
    for (int shift = 26; shift <= 27; ++shift) {
        vxk_world* world = vxk_scene_world();
        VXK_CHECK(world != NULL);
        int64_t far = (int64_t)1 << shift;
        const int64_t near_lo[3] = {0, 0, 0}, near_hi[3] = {15, 15, 15};
        const int64_t far_lo[3] = {far, 0, 0}, far_hi[3] = {far + 15, 15, 15};
        const int64_t block_lo[3] = {far, far, far}, block_hi[3] = {far + 63, far + 63, far + 63};
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(near_lo, near_hi), VXK_MAT_STONE),
                         VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(far_lo, far_hi), VXK_MAT_DIRT),
                         VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(block_lo, block_hi), VXK_MAT_METAL),
                         VXK_OK);
        VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
        struct {
            vxk_ray ray;
            float distance, normal_x;
            uint8_t material;
        } cases[] = {
            {{{16.5f, 8.5f, 8.5f}, {1, 0, 0}, INFINITY}, (float)far - 16.5f, -1.0f, VXK_MAT_DIRT},
            {{{(float)far - 8.0f, 8.5f, 8.5f}, {-1, 0, 0}, INFINITY},
             (float)far - 24.0f,
             1.0f,
             VXK_MAT_STONE},
            {{{16.5f, 8.5f, 8.5f}, {1, 0, 0}, (float)far * 0.5f}, 0.0f, 0.0f, 0},
            // across the empty cube towards the block: hits one of its three near faces
            {{{16.5f, 16.5f, 16.5f}, {1, 1.0000001f, 0.9999999f}, INFINITY},
             0.0f,
             0.0f,
             VXK_MAT_METAL},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
            vxk_raycast_cache_stats before, after;
            vxk_raycast_get_cache_stats(world, &before);
            vxk_ray_hit hit;
            VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &cases[i].ray), VXK_OK);
            vxk_raycast_get_cache_stats(world, &after);
            uint64_t steps = after.steps - before.steps;
            VXK_CHECK_MSG(steps > 0 && steps < 2000, "2^%d case %zu: %llu DDA steps", shift, i,
                          (unsigned long long)steps);
            VXK_CHECK_MSG(hit.hit == (cases[i].material != 0), "2^%d case %zu: hit %d", shift, i,
                          hit.hit);
            if (!hit.hit)
                continue;
            VXK_CHECK_EQ_INT(hit.material, cases[i].material);
            if (cases[i].distance > 0.0f)
                VXK_CHECK_MSG(fabsf(hit.distance - cases[i].distance) <=
                                      1e-5f * cases[i].distance &&
                                  hit.normal.x == cases[i].normal_x,
                              "2^%d case %zu: distance %.9g normal x %g", shift, i,
                              (double)hit.distance, (double)hit.normal.x);
            else
                VXK_CHECK(hit.point.x > (float)far - 8.0f && hit.point.y > (float)far - 8.0f &&
                          hit.point.z > (float)far - 8.0f);
        }
        vxk_world_destroy(world);
    }
    return 0;
}

// Rays that hit a voxel 2^24 voxels or more from their origin report the face they enter by:
// there a voxel's two faces on the ray's axis round to one plane in the ray's frame, and the back
// face (from (0.5, 33554304, 0.5) down onto voxel (0, 0, 0): normal (0, -1, 0) at 33554304) was
// reported (issue 26, item 11). Every axis both ways, voxel sizes 1 and 0.5, near and far: the
// normal faces the ray, the distance is the entry face's (to float precision) and the point lies
// on that face; a column of two voxels is entered from its end.
static int test_far_entry_face(void)
{
    const double distances[] = {100.0,      16777215.0, 16777217.0,
                                33554304.0, 67108872.0, 1073741824.0};
    const float voxel_sizes[] = {1.0f, 0.5f};
    for (int vi = 0; vi < 2; ++vi) {
        const float vs = voxel_sizes[vi];
        vxk_world* world = vxk_scene_world_with(NULL, vs);
        VXK_CHECK(world != NULL);
        VXK_CHECK_EQ_INT(
            vxk_world_fill_box(world, (vxk_int_box){{0, 0, 0}, {0, 0, 0}}, VXK_MAT_METAL), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
        for (size_t di = 0; di < sizeof(distances) / sizeof(distances[0]); ++di) {
            for (int axis = 0; axis < 3; ++axis) {
                for (int sign = -1; sign <= 1; sign += 2) {
                    // From +D going -axis: enters by the face at 1; from -D going +axis: at 0.
                    double start = sign < 0 ? distances[di] : -distances[di];
                    double face = sign < 0 ? 1.0 : 0.0;
                    vxk_ray ray = {{0.5f * vs, 0.5f * vs, 0.5f * vs}, {0, 0, 0}, INFINITY};
                    (&ray.origin.x)[axis] = (float)(start * vs);
                    (&ray.direction.x)[axis] = (float)sign;
                    vxk_ray_hit hit;
                    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &ray), VXK_OK);
                    double want = fabs(face - start) * vs;
                    float normal = (&hit.normal.x)[axis], point = (&hit.point.x)[axis];
                    VXK_CHECK_MSG(hit.hit && normal == (float)-sign &&
                                      fabs(hit.distance - want) <= 1e-7 * want &&
                                      point == (float)(face * vs),
                                  "voxel %g, axis %d, direction %+d from %.0f: hit %d, normal %g, "
                                  "distance %.9g (want %.9g), point %.9g (want %g)",
                                  (double)vs, axis, sign, start, hit.hit, (double)normal,
                                  (double)hit.distance, want, (double)point, face * vs);
                    vxk_ray_query q = {ray, vxk_default_ray_filter()};
                    vxk_ray_result r;
                    VXK_CHECK_EQ_INT(vxk_raycast_query(world, &r, &q), VXK_OK);
                    VXK_CHECK(r.target == VXK_RAY_TARGET_TERRAIN);
                    VXK_CHECK(r.voxel.x == 0 && r.voxel.y == 0 && r.voxel.z == 0);
                    VXK_CHECK((&r.normal.x)[axis] == (float)-sign && r.distance == hit.distance);
                }
            }
        }
        // A column of two voxels, entered from its top from 2^25 voxels up: its top face's normal
        // (the distance may name either of its faces there, within the precision of vxk/raycast.h).
        VXK_CHECK_EQ_INT(
            vxk_world_fill_box(world, (vxk_int_box){{0, 0, 0}, {0, 1, 0}}, VXK_MAT_METAL), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
        vxk_ray down = {{0.5f * vs, 33554304.0f * vs, 0.5f * vs}, {0, -1, 0}, INFINITY};
        vxk_ray_hit hit;
        VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &down), VXK_OK);
        VXK_CHECK(hit.hit && hit.normal.y == 1.0f);
        VXK_CHECK(fabs(hit.distance - 33554302.0 * vs) <= 2.0 * vs);
        vxk_world_destroy(world);
    }
    return 0;
}

// One coordinate range everywhere: terrain is stored at any int32 voxel coordinate, and rays start
// anywhere in that range and hit terrain anywhere in it (an origin outside it is refused).
static int test_coordinate_range(void)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    const vxk_int_box hi = {{INT32_MAX, 5, 5}, {INT32_MAX, 5, 5}};
    const vxk_int_box lo = {{INT32_MIN, 5, 5}, {INT32_MIN, 5, 5}};
    const vxk_int_box mid = {{0, 5, 5}, {0, 5, 5}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, hi, VXK_MAT_METAL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, lo, VXK_MAT_WOOD), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, mid, VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
    vxk_ray_hit hit;
    // towards the last voxel of the range
    vxk_ray up = {{2147480000.0f, 5.5f, 5.5f}, {1, 0, 0}, INFINITY};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &up), VXK_OK);
    VXK_CHECK_MSG(hit.hit && hit.material == VXK_MAT_METAL && hit.normal.x == -1.0f &&
                      fabs((double)hit.distance - (2147483647.0 - 2147480064.0)) < 300.0,
                  "hit %d material %u distance %.9g", hit.hit, hit.material, (double)hit.distance);
    // towards the first one, from 2^31 voxels away (where a float position is good to a hundred
    // voxels: the voxel's two x faces may coincide, so either may be reported)
    vxk_ray down = {{-1000.0f, 5.5f, 5.5f}, {-1, 0, 0}, INFINITY};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &down), VXK_OK);
    VXK_CHECK_MSG(hit.hit && hit.material == VXK_MAT_WOOD && hit.normal.x != 0.0f &&
                      fabs((double)hit.distance - (2147483648.0 - 1000.0)) < 1e-5 * 2147483648.0,
                  "hit %d material %u distance %.9g", hit.hit, hit.material, (double)hit.distance);
    // an origin on the lowest coordinate is in range (inside the wood voxel)
    vxk_ray edge = {{-2147483648.0f, 5.5f, 5.5f}, {1, 0, 0}, INFINITY};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &edge), VXK_OK);
    VXK_CHECK(hit.hit && hit.distance == 0.0f && hit.material == VXK_MAT_WOOD);
    // past the highest one, and past the lowest one, refused
    vxk_ray past = {{2147483648.0f, 5.5f, 5.5f}, {-1, 0, 0}, INFINITY};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &past), VXK_ERR_OUT_OF_RANGE);
    past.origin.x = -2147483904.0f;
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &past), VXK_ERR_OUT_OF_RANGE);
    // with a voxel size of 0.25 the range is in voxels: world units a quarter of it
    vxk_world_destroy(world);
    world = vxk_scene_world_with(NULL, 0.25f);
    VXK_CHECK(world != NULL);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, hi, VXK_MAT_METAL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
    vxk_ray quarter = {{536870000.0f, 1.375f, 1.375f}, {1, 0, 0}, INFINITY};
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &quarter), VXK_OK);
    VXK_CHECK(hit.hit && hit.material == VXK_MAT_METAL);
    quarter.origin.x = 536870912.0f;
    VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &quarter), VXK_ERR_OUT_OF_RANGE);
    vxk_world_destroy(world);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static int test_raycast_edges(void)
{
    vxk_world* w = vxk_scene_edge_world_near();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    const vxk_ray good = {{2.5f, 30.0f, 2.5f}, {0.0f, -1.0f, 0.0f}, 100.0f};
    vxk_ray_hit hit;
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, &good), VXK_OK);
    VXK_CHECK(hit.hit == 1 && hit.material == VXK_MAT_DIRT);
    bool any = false;
    VXK_CHECK_EQ_INT(vxk_raycast(NULL, &hit, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast(w, NULL, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_any(NULL, &any, &good), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_any(w, &any, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_any(w, NULL, &good), VXK_ERR_INVALID_ARGUMENT);
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float v = special_float(k);
        for (int c = 0; c < 7; ++c) {
            vxk_ray ray = good;
            float* f = c < 3   ? &(&ray.origin.x)[c]
                       : c < 6 ? &(&ray.direction.x)[c - 3]
                               : &ray.max_distance;
            *f = v;
            memset(&hit, CANARY, sizeof(hit));
            vxk_status st = vxk_raycast(w, &hit, &ray);
            memset(&any, CANARY, sizeof(any));
            vxk_status st_any = vxk_raycast_any(w, &any, &ray);
            VXK_CHECK_EQ_INT(st, st_any);
            bool zero_dir =
                ray.direction.x == 0.0f && ray.direction.y == 0.0f && ray.direction.z == 0.0f;
            if (zero_dir) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
            } else if (c == 6 && (isnan(v) || v < 0.0f)) {
                VXK_CHECK_EQ_INT(st, isnan(v) ? VXK_ERR_NOT_FINITE : VXK_ERR_OUT_OF_RANGE);
            } else if (c < 6 && !isfinite(v)) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
            } else if (c < 3 && fabsf(v) == FLT_MAX) {
                // Far outside the int32 voxel space (not documented: see the report).
                VXK_CHECK(st != VXK_OK);
            } else {
                VXK_CHECK_MSG(st == VXK_OK, "component %d value %g status %d", c, (double)v,
                              (int)st);
                VXK_CHECK(hit.hit == 0 || hit.hit == 1);
                VXK_CHECK(hit.hit == any);
                continue;
            }
            uint8_t raw[sizeof(hit)];
            memcpy(raw, &hit, sizeof(hit));
            VXK_CHECK(all_canary(raw, sizeof(raw)));
            memcpy(raw, &any, sizeof(any));
            VXK_CHECK(all_canary(raw, sizeof(any)));
        }
    }
    vxk_ray zero = good;
    zero.direction = (vxk_vec3){0.0f, -0.0f, 0.0f};
    memset(&hit, CANARY, sizeof(hit));
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, &zero), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK(all_canary(&hit, sizeof(hit)));
    // A denormal direction is a direction: it is normalized and hits like (0, -1, 0).
    vxk_ray tiny = good;
    tiny.direction = (vxk_vec3){0.0f, -FLT_TRUE_MIN, 0.0f};
    vxk_ray_hit tiny_hit;
    VXK_CHECK_EQ_INT(vxk_raycast(w, &tiny_hit, &tiny), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_raycast(w, &hit, &good), VXK_OK);
    VXK_CHECK(memcmp(&tiny_hit, &hit, sizeof(hit)) == 0);

    // Batch: one bad ray anywhere means nothing is written.
    enum { RAYS = 300 };
    vxk_ray rays[RAYS];
    for (int i = 0; i < RAYS; ++i)
        rays[i] = (vxk_ray){{(float)(i % 17) - 4.5f, 30.0f, (float)(i % 13) - 4.5f},
                            {0.01f * (float)(i % 5), -1.0f, 0.0f},
                            INFINITY};
    static vxk_ray_hit hits[RAYS];
    const int bad_at[] = {0, 150, RAYS - 1};
    for (int b = 0; b < 3; ++b) {
        for (int k = 0; k < 3; ++k) {
            vxk_ray keep = rays[bad_at[b]];
            rays[bad_at[b]].direction.y = special_float(k);
            memset(hits, CANARY, sizeof(hits));
            VXK_CHECK_EQ_INT(vxk_raycast_batch(w, hits, rays, RAYS), VXK_ERR_NOT_FINITE);
            VXK_CHECK(all_canary(hits, sizeof(hits)));
            rays[bad_at[b]] = keep;
        }
    }
    VXK_CHECK_EQ_INT(vxk_raycast_batch(NULL, hits, rays, RAYS), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, NULL, rays, RAYS), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, hits, NULL, RAYS), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, NULL, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, hits, rays, RAYS), VXK_OK);
    for (int i = 0; i < RAYS; i += 37) {
        vxk_ray_hit single;
        VXK_CHECK_EQ_INT(vxk_raycast(w, &single, &rays[i]), VXK_OK);
        VXK_CHECK(memcmp(&single, &hits[i], sizeof(single)) == 0);
    }
    vxk_raycast_cache_stats stats;
    memset(&stats, CANARY, sizeof(stats));
    vxk_raycast_get_cache_stats(NULL, &stats);
    VXK_CHECK_EQ_U64(stats.entries, 0);
    vxk_raycast_get_cache_stats(w, NULL);
    vxk_raycast_cache_clear(NULL);
    vxk_world_destroy(w);
    return 0;
}

// Terrain at both ends of the int32 voxel range: raycasts must not size anything by the span.
static int test_raycast_int32_extremes(void)
{
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    const vxk_int_box top = {{INT32_MAX - 2, INT32_MAX - 1, INT32_MAX - 3},
                             {INT32_MAX, INT32_MAX, INT32_MAX}};
    const vxk_int_box bottom = {{INT32_MIN, INT32_MIN, INT32_MIN},
                                {INT32_MIN + 2, INT32_MIN + 1, INT32_MIN}};
    const vxk_int_box ground = {{0, 0, 0}, {7, 3, 7}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, top, VXK_MAT_METAL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, bottom, VXK_MAT_WOOD), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, ground, VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    vxk_ray r = {{2.5f, 30.0f, 2.5f}, {0.0f, -1.0f, 0.0f}, 100.0f};
    vxk_ray_hit h;
    VXK_CHECK_EQ_INT(vxk_raycast(w, &h, &r), VXK_OK);
    VXK_CHECK(h.hit == 1);
    VXK_CHECK_MSG(fabsf(h.distance - 26.0f) < 1e-4f, "distance %g", (double)h.distance);
    VXK_CHECK_EQ_INT(h.material, VXK_MAT_STONE);
    vxk_world_destroy(w);
    return 0;
}

// Rays allocate (cache builds): on OOM a ray reports it and writes nothing; every attempt starts
// from a cold cache.
static int test_oom_rays(void)
{
    vxk_world* w = vxk_scene_edge_world_near();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    enum { RAYS = 40 };
    vxk_ray rays[RAYS];
    for (int i = 0; i < RAYS; ++i)
        rays[i] = (vxk_ray){{(float)(i % 9) - 4.5f, 30.0f, (float)(i % 7) - 2.5f},
                            {0.05f * (float)(i % 3), -1.0f, 0.0f},
                            INFINITY};
    static vxk_ray_hit hits[RAYS], ref_hits[RAYS];
    VXK_CHECK_EQ_INT(vxk_raycast_batch(w, ref_hits, rays, RAYS), VXK_OK);
    vxk_ray_hit one;
    OOM_SWEEP(
        {
            vxk_raycast_cache_clear(w);
            memset(&one, CANARY, sizeof(one));
        },
        vxk_raycast(w, &one, &rays[3]),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&one, sizeof(one)));
            } else {
                VXK_CHECK(memcmp(&one, &ref_hits[3], sizeof(one)) == 0);
            }
        },
        {});
    OOM_SWEEP(vxk_raycast_cache_clear(w), vxk_raycast_batch(w, hits, rays, RAYS),
              {
                  if (st != VXK_OK)
                      VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                  else
                      VXK_CHECK(memcmp(hits, ref_hits, sizeof(hits)) == 0);
              },
              {});
    vxk_world_destroy(w);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/raycast.h on the status terrain, for each status it lists (out of memory:
// a fresh world's ray cache cannot be made).
static int test_statuses_raycast(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_world* w = vxk_scene_status_world();
    vxk_world* fresh = vxk_scene_status_world(); // its ray cache is created by its first ray
    VXK_CHECK(w != NULL && fresh != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(fresh), VXK_OK);
    const vxk_ray down = {{2.5f, 20.0f, 2.5f}, {0, -1, 0}, INFINITY};
    vxk_ray rays[4] = {down, down, down, down};
    rays[0].origin.x = nanf("");
    rays[1].direction.y = 0;
    rays[2].max_distance = -1;
    rays[3].origin.x = 3e9f; // past the int32 voxel range
    const vxk_status bad_status[4] = {VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE,
                                      VXK_ERR_OUT_OF_RANGE, VXK_ERR_OUT_OF_RANGE};
    vxk_ray_hit hit;
    bool any = false;
    EXPECT_NO_MEMORY(vxk_raycast(fresh, &hit, &down));
    EXPECT_NO_MEMORY(vxk_raycast_any(fresh, &any, &down));
    EXPECT_NO_MEMORY(vxk_raycast_batch(fresh, &hit, &down, 1));
    EXPECT_STATUS(VXK_OK, vxk_raycast(w, &hit, &down));
    VXK_CHECK(hit.hit);
    EXPECT_STATUS(VXK_OK, vxk_raycast_any(w, &any, &down));
    EXPECT_STATUS(VXK_OK, vxk_raycast_batch(w, &hit, &down, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast(w, NULL, &down));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_any(w, &any, NULL));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_batch(w, NULL, &down, 1));
    for (int i = 0; i < 4; ++i) {
        EXPECT_STATUS(bad_status[i], vxk_raycast(w, &hit, &rays[i]));
        EXPECT_STATUS(bad_status[i], vxk_raycast_any(w, &any, &rays[i]));
        EXPECT_STATUS(bad_status[i], vxk_raycast_batch(w, &hit, &rays[i], 1));
    }
    // Queries that hit bodies: a zero filter is refused, then the ray's own errors.
    vxk_ray_query query = {down, vxk_default_ray_filter()};
    vxk_ray_query no_filter = {down, {0, 0, {0, 0}}};
    vxk_ray_result result;
    EXPECT_NO_MEMORY(vxk_raycast_query(fresh, &result, &query));
    EXPECT_NO_MEMORY(vxk_raycast_query_batch(fresh, &result, &query, 1));
    EXPECT_STATUS(VXK_OK, vxk_raycast_query(w, &result, &query));
    VXK_CHECK_EQ_INT(result.target, VXK_RAY_TARGET_TERRAIN);
    EXPECT_STATUS(VXK_OK, vxk_raycast_query_batch(w, &result, &query, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query(w, NULL, &query));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query(w, &result, &no_filter));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query_batch(w, NULL, &query, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query_batch(w, &result, &no_filter, 1));
    for (int i = 0; i < 4; ++i) {
        vxk_ray_query bad = {rays[i], vxk_default_ray_filter()};
        EXPECT_STATUS(bad_status[i], vxk_raycast_query(w, &result, &bad));
        EXPECT_STATUS(bad_status[i], vxk_raycast_query_batch(w, &result, &bad, 1));
    }
    vxk_world_destroy(fresh);
    vxk_world_destroy(w);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_bad_input);
    VXK_RUN(test_against_brute_force);
    VXK_RUN(test_batch);
    VXK_RUN(test_batch_packets);
    VXK_RUN(test_edit);
    VXK_RUN(test_edit_warm_cache);
    VXK_RUN(test_concurrent);
    VXK_RUN(test_sparse_world);
    VXK_RUN(test_seam_regression);
    VXK_RUN(test_watertight);
    VXK_RUN(test_far_sparse);
    VXK_RUN(test_far_entry_face);
    VXK_RUN(test_coordinate_range);
    vxk_edge_tests_begin();
    VXK_RUN(test_raycast_edges);
    VXK_RUN(test_raycast_int32_extremes);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_rays);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_raycast);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
