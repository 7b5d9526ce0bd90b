// ray_body.c: ray queries that hit bodies as well as terrain (vxk/raycast.h: vxk_raycast_query,
// vxk_raycast_query_batch). The terrain half is collision/raycast.c's (ray_terrain.h); this file
// adds the bodies, which collision/ may not know: spheres and oriented boxes analytically, voxel
// bodies by a 3D DDA over the grid in the body's frame (Amanatides & Woo 1987, "A Fast Voxel
// Traversal Algorithm for Ray Tracing"), so a voxel body is hit on the exact face of its first
// solid voxel.
//
// Body maths runs in double from the float pose: a body far from the origin (or a long ray)
// keeps its hits within float rounding of the exact ones.
//
// Culling: a single query slab-tests every live body's world box; a batch builds a body BVH
// (collision/body_bvh.c) over those boxes once per call and walks it per ray, nearer child first,
// skipping every node that starts beyond the best hit so far. The tree lives one call, so it is
// built by midpoint splits, not binned SAH: in the physics stress run (256 rays, 4,000 bodies a
// batch) the SAH build took most of the batch's time and the midpoint build halved the batch. The
// boxes come from vxk_body_compute_aabb (the shape at the current pose) grown by a margin that
// covers their float rounding, so culling never drops a body the exact test would hit.
#include <vxk/raycast.h>

#include <math.h>
#include <string.h>

#include "body_bvh.h"
#include "dynamics.h"
#include "ray_body.h"
#include "shape.h"
#include "ray_terrain.h"

_Static_assert(sizeof(vxk_ray_filter) == 16, "vxk_ray_filter is 16 bytes");
_Static_assert(sizeof(vxk_ray_query) == 44, "vxk_ray_query is 44 bytes");
_Static_assert(sizeof(vxk_ray_result) == 52, "vxk_ray_result is 52 bytes");

// Queries of a batch per piece of the body pass, and the body count from which a batch builds a
// hierarchy rather than testing every box.
#define RAY_BODY_GRAIN 64
#define RAY_BODY_BVH_MIN 16
// Cull boxes are grown by this much per metre of coordinate magnitude, plus RAY_BODY_PAD_MIN: far
// above the float rounding of vxk_body_compute_aabb.
#define RAY_BODY_PAD_REL 1e-5f
#define RAY_BODY_PAD_MIN 1e-4f
// Deepest hierarchy walked with the fixed stack; a deeper one (degenerate boxes) is not walked:
// the batch tests every box instead.
#define RAY_BODY_STACK 128

vxk_ray_filter vxk_default_ray_filter(void)
{
    return (vxk_ray_filter){VXK_RAY_HIT_ALL, 0, {0, 0}};
}

static void ray_prepare(const vxk_ray_query* q, vxk_body_ray* r)
{
    const vxk_ray* ray = &q->ray;
    double d[3] = {ray->direction.x, ray->direction.y, ray->direction.z};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    r->o[0] = ray->origin.x;
    r->o[1] = ray->origin.y;
    r->o[2] = ray->origin.z;
    for (int a = 0; a < 3; ++a) {
        r->d[a] = d[a] / len;
        r->inv[a] = 1.0 / r->d[a];
    }
    r->tmax = isinf(ray->max_distance) ? INFINITY : (double)ray->max_distance;
    r->filter = q->filter;
}

// The segment [0, limit] against a box: its entry time (0 for an origin inside), or false.
bool vxk_ray_slab_box(const vxk_body_ray* r, const double lo[3], const double hi[3], double limit,
                      double* t_enter, int* axis)
{
    double t0 = 0.0, t1 = limit;
    int enter = -1;
    for (int a = 0; a < 3; ++a) {
        if (r->d[a] == 0.0) {
            if (r->o[a] < lo[a] || r->o[a] > hi[a])
                return false;
            continue;
        }
        double ta = (lo[a] - r->o[a]) * r->inv[a], tb = (hi[a] - r->o[a]) * r->inv[a];
        if (ta > tb) {
            double s = ta;
            ta = tb;
            tb = s;
        }
        if (ta > t0) {
            t0 = ta;
            enter = a;
        }
        if (tb < t1)
            t1 = tb;
        if (t0 > t1)
            return false;
    }
    *t_enter = t0;
    if (axis)
        *axis = enter;
    return true;
}

static bool cull_box(const vxk_body_ray* r, const vxk_aabb* box, double limit, double* t_enter)
{
    const double lo[3] = {box->min.x, box->min.y, box->min.z};
    const double hi[3] = {box->max.x, box->max.y, box->max.z};
    return vxk_ray_slab_box(r, lo, hi, limit, t_enter, NULL);
}

// ---- exact shapes --------------------------------------------------------------------------

vxk_ray_rot3 vxk_ray_rotation(vxk_quat q)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    vxk_ray_rot3 r;
    r.m[0][0] = 1.0 - 2.0 * (y * y + z * z);
    r.m[0][1] = 2.0 * (x * y + w * z);
    r.m[0][2] = 2.0 * (x * z - w * y);
    r.m[1][0] = 2.0 * (x * y - w * z);
    r.m[1][1] = 1.0 - 2.0 * (x * x + z * z);
    r.m[1][2] = 2.0 * (y * z + w * x);
    r.m[2][0] = 2.0 * (x * z + w * y);
    r.m[2][1] = 2.0 * (y * z - w * x);
    r.m[2][2] = 1.0 - 2.0 * (x * x + y * y);
    return r;
}

vxk_body_ray vxk_ray_to_local(const vxk_body_ray* r, const vxk_body* b, const vxk_ray_rot3* rot)
{
    double rel[3] = {r->o[0] - b->pose.p.x, r->o[1] - b->pose.p.y, r->o[2] - b->pose.p.z};
    vxk_body_ray l = *r;
    for (int c = 0; c < 3; ++c) {
        l.o[c] = rot->m[c][0] * rel[0] + rot->m[c][1] * rel[1] + rot->m[c][2] * rel[2];
        l.d[c] = rot->m[c][0] * r->d[0] + rot->m[c][1] * r->d[1] + rot->m[c][2] * r->d[2];
        l.inv[c] = 1.0 / l.d[c];
    }
    return l;
}

void vxk_ray_world_axis(const vxk_ray_rot3* rot, int axis, double sign, double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = sign * rot->m[axis][k];
}

void vxk_ray_hit_inside(const vxk_body_ray* r, vxk_body_hit* h, uint32_t index)
{
    h->t = 0.0;
    h->index = index;
    for (int k = 0; k < 3; ++k)
        h->n[k] = -r->d[k];
}

void vxk_ray_sphere(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best)
{
    double c[3] = {b->pose.p.x, b->pose.p.y, b->pose.p.z};
    double oc[3] = {r->o[0] - c[0], r->o[1] - c[1], r->o[2] - c[2]};
    double radius = b->radius;
    double bq = oc[0] * r->d[0] + oc[1] * r->d[1] + oc[2] * r->d[2];
    double cq = (oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2]) - radius * radius;
    if (cq <= 0.0) {
        if (vxk_ray_takes(best, 0.0, index)) {
            vxk_ray_hit_inside(r, best, index);
            best->material = b->material;
            best->voxel = (vxk_int3){0, 0, 0};
        }
        return;
    }
    double disc = bq * bq - cq;
    if (bq >= 0.0 || disc < 0.0)
        return;
    double t = cq / (-bq + sqrt(disc)); // the nearer root, without cancellation
    if (t > r->tmax || !vxk_ray_takes(best, t, index))
        return;
    best->t = t;
    best->index = index;
    for (int k = 0; k < 3; ++k)
        best->n[k] = (r->o[k] + t * r->d[k] - c[k]) / radius;
    best->material = b->material;
    best->voxel = (vxk_int3){0, 0, 0};
}

void vxk_ray_box(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best)
{
    vxk_ray_rot3 rot = vxk_ray_rotation(b->pose.q);
    vxk_body_ray l = vxk_ray_to_local(r, b, &rot);
    double hi[3] = {b->half.x, b->half.y, b->half.z};
    double lo[3] = {-hi[0], -hi[1], -hi[2]};
    double t = 0.0;
    int axis = -1;
    if (!vxk_ray_slab_box(&l, lo, hi, fmin(r->tmax, best->t), &t, &axis) ||
        !vxk_ray_takes(best, t, index))
        return;
    if (axis < 0) {
        vxk_ray_hit_inside(r, best, index);
    } else {
        best->t = t;
        best->index = index;
        vxk_ray_world_axis(&rot, axis, l.d[axis] > 0.0 ? -1.0 : 1.0, best->n);
    }
    best->material = b->material;
    best->voxel = (vxk_int3){0, 0, 0};
}

static inline bool grid_solid(const vxk_voxel_grid* g, const int32_t v[3])
{
    return g->voxels[(size_t)v[0] +
                     (size_t)g->size.x * ((size_t)v[2] + (size_t)g->size.z * (size_t)v[1])] != 0;
}

static void voxel_hit(vxk_body_hit* best, const vxk_voxel_grid* g, const int32_t v[3],
                      uint32_t index)
{
    best->index = index;
    best->material = vxk_voxel_grid_get(g, (vxk_int3){v[0], v[1], v[2]});
    best->voxel = (vxk_int3){v[0], v[1], v[2]};
}

// The DDA over the grid in voxel units: position(t) = g + t * gd for t in world units.
void vxk_ray_voxels(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best)
{
    const vxk_voxel_data* vd = b->voxels;
    const vxk_voxel_grid* grid = &vd->grid;
    vxk_ray_rot3 rot = vxk_ray_rotation(b->pose.q);
    vxk_body_ray l = vxk_ray_to_local(r, b, &rot);
    double inv_vs = 1.0 / (double)vd->voxel_size;
    const double origin[3] = {vd->origin.x, vd->origin.y, vd->origin.z};
    const int32_t n[3] = {grid->size.x, grid->size.y, grid->size.z};
    vxk_body_ray g = l; // in voxel units
    for (int a = 0; a < 3; ++a) {
        g.o[a] = (l.o[a] - origin[a]) * inv_vs;
        g.d[a] = l.d[a] * inv_vs;
        g.inv[a] = 1.0 / g.d[a];
    }
    const double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {n[0], n[1], n[2]};
    double limit = fmin(r->tmax, best->t), t = 0.0;
    int axis = -1;
    if (!vxk_ray_slab_box(&g, lo, hi, limit, &t, &axis))
        return;
    // The first voxel: the origin's (inside the grid's box), or the one entered through the face
    // of axis `axis`.
    int32_t v[3];
    for (int a = 0; a < 3; ++a) {
        double at = a == axis ? (g.d[a] > 0.0 ? 0.5 : (double)n[a] - 0.5) : g.o[a] + t * g.d[a];
        double f = floor(at);
        v[a] = f < 0.0 ? 0 : (f >= (double)n[a] ? n[a] - 1 : (int32_t)f);
    }
    int32_t step[3];
    double next[3];
    for (int a = 0; a < 3; ++a) {
        step[a] = g.d[a] > 0.0 ? 1 : -1;
        next[a] = g.d[a] == 0.0 ? INFINITY : ((double)(v[a] + (g.d[a] > 0.0)) - g.o[a]) * g.inv[a];
    }
    for (;;) {
        if (grid_solid(grid, v)) {
            if (!vxk_ray_takes(best, t, index))
                return;
            if (axis < 0) {
                vxk_ray_hit_inside(r, best, index);
            } else {
                best->t = t;
                vxk_ray_world_axis(&rot, axis, -(double)step[axis], best->n);
            }
            voxel_hit(best, grid, v, index);
            return;
        }
        int a = next[1] < next[0] ? 1 : 0;
        a = next[2] < next[a] ? 2 : a;
        t = next[a];
        if (t > limit)
            return;
        v[a] += step[a];
        if (v[a] < 0 || v[a] >= n[a])
            return;
        next[a] = ((double)(v[a] + (g.d[a] > 0.0)) - g.o[a]) * g.inv[a];
        axis = a;
    }
}

// ---- bodies of a query -----------------------------------------------------------------------

static bool body_passes(const vxk_dynamics* dyn, uint32_t index, const vxk_ray_filter* f)
{
    const vxk_body* b = &dyn->bodies[index];
    if (!b->live)
        return false;
    static const uint32_t type_bit[3] = {VXK_RAY_HIT_STATIC, VXK_RAY_HIT_KINEMATIC,
                                         VXK_RAY_HIT_DYNAMIC};
    if (b->type > VXK_BODY_DYNAMIC || !(f->hit & type_bit[b->type]))
        return false;
    return !(f->exclude.generation != 0 && f->exclude.index == index &&
             dyn->ids.generations[index] == f->exclude.generation);
}

static void ray_body(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best)
{
    vxk_body_class(b)->raycast(r, b, index, best);
}

static vxk_aabb cull_box_of(const vxk_body* b)
{
    vxk_aabb box = vxk_body_compute_aabb(b);
    float m = fmaxf(fmaxf(fabsf(box.min.x), fabsf(box.max.x)),
                    fmaxf(fmaxf(fabsf(box.min.y), fabsf(box.max.y)),
                          fmaxf(fabsf(box.min.z), fabsf(box.max.z))));
    float pad = RAY_BODY_PAD_MIN + RAY_BODY_PAD_REL * m;
    box.min = vxk_v3_sub(box.min, vxk_v3(pad, pad, pad));
    box.max = vxk_v3_add(box.max, vxk_v3(pad, pad, pad));
    return box;
}

// Every live body, box first (single queries, and batches without a usable hierarchy).
static void bodies_all(const vxk_dynamics* dyn, const vxk_body_ray* r, vxk_body_hit* best)
{
    for (uint32_t i = 0; i < dyn->ids.count; ++i) {
        if (!body_passes(dyn, i, &r->filter))
            continue;
        const vxk_body* b = &dyn->bodies[i];
        vxk_aabb box = cull_box_of(b);
        double t = 0.0;
        if (cull_box(r, &box, fmin(r->tmax, best->t), &t))
            ray_body(r, b, i, best);
    }
}

// A batch's hierarchy over the live bodies' cull boxes: object k is body body_of[k].
typedef struct body_tree {
    vxk_bvh bvh;
    uint32_t* body_of;
    size_t body_of_bytes;
    bool usable;
} body_tree;

static void bodies_tree(const vxk_dynamics* dyn, const body_tree* tree, const vxk_body_ray* r,
                        vxk_body_hit* best)
{
    const vxk_bvh* bvh = &tree->bvh;
    uint32_t stack[RAY_BODY_STACK];
    double stack_t[RAY_BODY_STACK];
    uint32_t top = 0;
    double t_root = 0.0;
    if (!cull_box(r, &bvh->nodes[0].box, fmin(r->tmax, best->t), &t_root))
        return;
    stack[top] = 0;
    stack_t[top++] = t_root;
    while (top) {
        --top;
        if (stack_t[top] > best->t || stack_t[top] > r->tmax)
            continue;
        const vxk_bvh_node* node = &bvh->nodes[stack[top]];
        double limit = fmin(r->tmax, best->t);
        if (node->count) {
            for (uint32_t k = 0; k < node->count; ++k) {
                uint32_t object = bvh->object_ids[node->left_first + k];
                uint32_t index = tree->body_of[object];
                double t = 0.0;
                if (body_passes(dyn, index, &r->filter) &&
                    cull_box(r, &bvh->boxes[object], fmin(r->tmax, best->t), &t))
                    ray_body(r, &dyn->bodies[index], index, best);
            }
            continue;
        }
        uint32_t left = node->left_first, right = left + 1;
        double tl = 0.0, tr = 0.0;
        bool hl = cull_box(r, &bvh->nodes[left].box, limit, &tl);
        bool hr = cull_box(r, &bvh->nodes[right].box, limit, &tr);
        // The farther child goes on the stack first, so the nearer one is walked first.
        if (hl && hr) {
            bool left_first = tl <= tr;
            stack[top] = left_first ? right : left;
            stack_t[top++] = left_first ? tr : tl;
            stack[top] = left_first ? left : right;
            stack_t[top++] = left_first ? tl : tr;
        } else if (hl || hr) {
            stack[top] = hl ? left : right;
            stack_t[top++] = hl ? tl : tr;
        }
    }
}

// ---- results -----------------------------------------------------------------------------------

static bool filter_ok(const vxk_ray_filter* f)
{
    return f->hit != 0 && (f->hit & ~VXK_RAY_HIT_ALL) == 0 && f->pad == 0;
}

static vxk_status query_check(const vxk_world* world, const vxk_ray_query* q)
{
    if (!filter_ok(&q->filter))
        return VXK_ERR_INVALID_ARGUMENT;
    return vxk_ray_check(world, &q->ray);
}

// The starting best of a query's body pass: its terrain hit (which bodies must beat), or its
// max_distance.
static vxk_body_hit best_start(const vxk_body_ray* r, const vxk_ray_hit* terrain)
{
    vxk_body_hit best;
    memset(&best, 0, sizeof(best));
    best.index = VXK_RAY_NO_BODY;
    if (terrain && terrain->hit) {
        best.t = terrain->distance;
        best.inclusive = false;
    } else {
        best.t = r->tmax;
        best.inclusive = true;
    }
    return best;
}

static void write_result(const vxk_dynamics* dyn, const vxk_body_ray* r, const vxk_body_hit* best,
                         const vxk_ray_hit* terrain, const vxk_int3* terrain_voxel,
                         vxk_ray_result* out)
{
    memset(out, 0, sizeof(*out));
    if (best->index != VXK_RAY_NO_BODY) {
        out->target = VXK_RAY_TARGET_BODY;
        out->distance = (float)best->t;
        out->point =
            (vxk_vec3){(float)(r->o[0] + best->t * r->d[0]), (float)(r->o[1] + best->t * r->d[1]),
                       (float)(r->o[2] + best->t * r->d[2])};
        out->normal = (vxk_vec3){(float)best->n[0], (float)best->n[1], (float)best->n[2]};
        out->material = best->material;
        out->voxel = best->voxel;
        out->body = (vxk_body_id){best->index, dyn->ids.generations[best->index]};
    } else if (terrain && terrain->hit) {
        out->target = VXK_RAY_TARGET_TERRAIN;
        out->distance = terrain->distance;
        out->point = terrain->point;
        out->normal = terrain->normal;
        out->material = terrain->material;
        out->voxel = *terrain_voxel;
    }
}

vxk_status vxk_raycast_query(const vxk_world* world, vxk_ray_result* result,
                             const vxk_ray_query* query)
{
    if (!world || !result || !query)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = query_check(world, query);
    if (status != VXK_OK)
        return status;
    vxk_ray_hit terrain = {0};
    vxk_int3 voxel = {0, 0, 0};
    if (query->filter.hit & VXK_RAY_HIT_TERRAIN) {
        status = vxk_raycast_terrain(world, &terrain, &voxel, &query->ray);
        if (status != VXK_OK)
            return status;
    }
    vxk_body_ray r;
    ray_prepare(query, &r);
    vxk_body_hit best = best_start(&r, &terrain);
    const vxk_dynamics* dyn = vxk_dynamics_get(world);
    if (query->filter.hit & VXK_RAY_HIT_BODIES)
        bodies_all(dyn, &r, &best);
    write_result(dyn, &r, &best, &terrain, &voxel, result);
    return VXK_OK;
}

typedef struct query_batch {
    const vxk_dynamics* dyn;
    const vxk_ray_query* queries;
    vxk_ray_result* results;
    const uint32_t* terrain_slot; // per query: its slot in hits/voxels, or VXK_RAY_NO_BODY
    const vxk_ray_hit* hits;
    const vxk_int3* voxels;
    const body_tree* tree; // NULL: every body's box is tested
} query_batch;

static void batch_piece(void* user, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const query_batch* job = (const query_batch*)user;
    for (uint32_t i = begin; i < end; ++i) {
        const vxk_ray_query* q = &job->queries[i];
        uint32_t slot = job->terrain_slot[i];
        const vxk_ray_hit* terrain = slot != VXK_RAY_NO_BODY ? &job->hits[slot] : NULL;
        const vxk_int3* voxel = slot != VXK_RAY_NO_BODY ? &job->voxels[slot] : NULL;
        vxk_body_ray r;
        ray_prepare(q, &r);
        vxk_body_hit best = best_start(&r, terrain);
        if (q->filter.hit & VXK_RAY_HIT_BODIES) {
            if (job->tree)
                bodies_tree(job->dyn, job->tree, &r, &best);
            else
                bodies_all(job->dyn, &r, &best);
        }
        write_result(job->dyn, &r, &best, terrain, voxel, &job->results[i]);
    }
}

// Builds the batch's hierarchy over the live bodies; usable stays false (every box is tested)
// when there are few bodies, or the tree is too deep for the walk's stack or its boxes are not
// finite. VXK_ERR_OUT_OF_MEMORY.
static vxk_status tree_build(const vxk_dynamics* dyn, body_tree* tree)
{
    memset(tree, 0, sizeof(*tree));
    uint32_t live = dyn->ids.live;
    if (live < RAY_BODY_BVH_MIN)
        return VXK_OK;
    size_t box_bytes = sizeof(vxk_aabb) * (size_t)live;
    tree->body_of_bytes = sizeof(uint32_t) * (size_t)live;
    vxk_aabb* boxes = (vxk_aabb*)vxk_alloc(box_bytes);
    tree->body_of = (uint32_t*)vxk_alloc(tree->body_of_bytes);
    if (!boxes || !tree->body_of) {
        vxk_free(boxes, box_bytes);
        vxk_free(tree->body_of, tree->body_of_bytes);
        tree->body_of = NULL;
        return VXK_ERR_OUT_OF_MEMORY;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < dyn->ids.count && n < live; ++i) {
        if (!dyn->bodies[i].live)
            continue;
        boxes[n] = cull_box_of(&dyn->bodies[i]);
        tree->body_of[n++] = i;
    }
    vxk_status status = vxk_bvh_build(&tree->bvh, boxes, n, VXK_BVH_BUILD_MIDPOINT);
    vxk_free(boxes, box_bytes);
    if (status == VXK_ERR_OUT_OF_MEMORY)
        return status;
    tree->usable = status == VXK_OK && n > 0 && tree->bvh.depth + 2 < RAY_BODY_STACK;
    return VXK_OK;
}

static void tree_free(body_tree* tree)
{
    vxk_bvh_free(&tree->bvh);
    vxk_free(tree->body_of, tree->body_of_bytes);
    memset(tree, 0, sizeof(*tree));
}

vxk_status vxk_raycast_query_batch(const vxk_world* world, vxk_ray_result* results,
                                   const vxk_ray_query* queries, uint32_t count)
{
    if (!world || ((!results || !queries) && count > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    uint32_t terrain_count = 0;
    bool any_bodies = false;
    for (uint32_t i = 0; i < count; ++i) {
        vxk_status status = query_check(world, &queries[i]);
        if (status != VXK_OK)
            return status;
        terrain_count += (queries[i].filter.hit & VXK_RAY_HIT_TERRAIN) != 0;
        any_bodies |= (queries[i].filter.hit & VXK_RAY_HIT_BODIES) != 0;
    }
    if (count == 0)
        return VXK_OK;
    // One block: the queries' terrain slots, then the terrain rays, hits and voxels.
    size_t slot_bytes = sizeof(uint32_t) * (size_t)count;
    size_t ray_bytes = sizeof(vxk_ray) * (size_t)terrain_count;
    size_t hit_bytes = sizeof(vxk_ray_hit) * (size_t)terrain_count;
    size_t voxel_bytes = sizeof(vxk_int3) * (size_t)terrain_count;
    size_t bytes = slot_bytes + ray_bytes + hit_bytes + voxel_bytes;
    char* block = (char*)vxk_alloc(bytes);
    if (!block)
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t* slots = (uint32_t*)block;
    vxk_ray* rays = (vxk_ray*)(block + slot_bytes);
    vxk_ray_hit* hits = (vxk_ray_hit*)(block + slot_bytes + ray_bytes);
    vxk_int3* voxels = (vxk_int3*)(block + slot_bytes + ray_bytes + hit_bytes);
    uint32_t k = 0;
    for (uint32_t i = 0; i < count; ++i) {
        slots[i] = VXK_RAY_NO_BODY;
        if (queries[i].filter.hit & VXK_RAY_HIT_TERRAIN) {
            rays[k] = queries[i].ray;
            slots[i] = k++;
        }
    }
    vxk_status status = vxk_raycast_terrain_batch(world, hits, voxels, rays, terrain_count);
    const vxk_dynamics* dyn = vxk_dynamics_get(world);
    body_tree tree = {0};
    if (status == VXK_OK && any_bodies)
        status = tree_build(dyn, &tree);
    if (status == VXK_OK) {
        query_batch job = {dyn, queries, results, slots, hits, voxels, tree.usable ? &tree : NULL};
        vxk_parallel_for(world->jobs, "raycast_query", count, RAY_BODY_GRAIN, batch_piece, &job);
    }
    tree_free(&tree);
    vxk_free(block, bytes);
    return status;
}
