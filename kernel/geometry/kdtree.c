// kdtree.c: the loose kD tree of seed 000 (Roblox terrain physics, "Loose kD tree"): build by
// longest axis and mean centroid with a 25% median fallback, stackless AABB and front-to-back ray
// traversal with segment clipping; triangles and quads (axis-aligned rectangles by the watertight
// rectangle test of simd/ray.c, after Woop, Benthin and Wald 2013); a 16-bit quantized variant.
#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>

#include "core.h"
#include <vxk/simd.h>
#include <vxk/simd_kernels.h>

#include <float.h>
#include <math.h>

_Static_assert(sizeof(vxk_kdtree_node) == 12, "the kD node is 12 bytes (seed 000)");
_Static_assert(sizeof(vxk_kdtree16_node) == 6, "the quantized kD node is 6 bytes");
_Static_assert(sizeof(vxk_vec3) == 12, "vertices are packed float triples");

#define KD_AXIS_MASK 3u
#define KD_SHIFT 2u

static inline float vec_axis(const vxk_vec3* v, uint32_t axis)
{
    return axis == 0 ? v->x : (axis == 1 ? v->y : v->z);
}

// ---- primitive tests ---------------------------------------------------------------------------

static inline vxk_vec3 v_sub(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline vxk_vec3 v_cross(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline float v_dot(vxk_vec3 a, vxk_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// det = dir . (e1 x e2): false when it vanishes relative to |dir| |e1| |e2| (a degenerate
// primitive or a ray in its plane), where u, v and t are rounding noise. Checked last, for the
// few candidates that pass the cheap tests.
static inline __attribute__((always_inline)) bool mt_solid(vxk_vec3 dir, vxk_vec3 e1, vxk_vec3 e2,
                                                           float det)
{
    double scale = (double)v_dot(dir, dir) * (double)v_dot(e1, e1) * (double)v_dot(e2, e2);
    return (double)det * (double)det > 1e-12 * scale;
}

// Moller-Trumbore on the edges e1 = p1 - p0, e2 = p2 - p0; quad: u and v each in [0, 1].
static inline __attribute__((always_inline)) bool
intersect_mt(const vxk_kdtree_ray* ray, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 p2, bool quad,
             float tmax, float* t_out, float* u_out, float* v_out)
{
    vxk_vec3 e1 = v_sub(p1, p0), e2 = v_sub(p2, p0);
    vxk_vec3 p = v_cross(ray->dir, e2);
    float det = v_dot(e1, p);
    float inv = 1.0f / det;
    vxk_vec3 s = v_sub(ray->origin, p0);
    float u = v_dot(s, p) * inv;
    vxk_vec3 q = v_cross(s, e1);
    float v = v_dot(ray->dir, q) * inv;
    float t = v_dot(e2, q) * inv;
    // one combined test: each partial one is a coin flip for the branch predictor, while the
    // combined outcome (usually a miss) predicts well; NaNs fail every comparison
    int inside = (u >= 0.0f) & (u <= 1.0f) & (v >= 0.0f) & (quad ? v <= 1.0f : u + v <= 1.0f) &
                 (t >= 0.0f) & (t <= tmax);
    if (!inside)
        return false;
    if (!mt_solid(ray->dir, e1, e2, det))
        return false;
    *t_out = t;
    *u_out = u;
    *v_out = v;
    return true;
}

bool vxk_kdtree_intersect_triangle(const vxk_kdtree_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v2,
                                   float tmax, float* t, float* u, float* v)
{
    return intersect_mt(ray, v0, v1, v2, false, tmax, t, u, v);
}

// The primitive tests of one query, in its frame: the ray from the frame's origin as the
// rectangle kernels take it and as Moller-Trumbore takes it, and the shift of the tree's
// coordinates. (Moller-Trumbore on rectangles, used until 2026-11-25, was not watertight: u = 1 of
// one quad and u = 0 of its neighbour are different roundings, and a ray within an ulp of their
// shared edge could miss both.)
typedef struct kd_tests {
    vxk_rect_ray rect;
    vxk_kdtree_ray mt;
    double shift[3];
    bool shifted;     // a nonzero shift: corners go through shift_corner
    bool one_by_one;  // quantized leaves: origin + shift is not exact in float
    bool uv;          // hits report u and v (not in a frame)
    float qorigin[3]; // quantized trees: the dequantization origin plus the shift
} kd_tests;

static inline vxk_vec3 shift_corner(const kd_tests* tests, vxk_vec3 v)
{
    if (!tests->shifted)
        return v;
    return (vxk_vec3){(float)(tests->shift[0] + (double)v.x),
                      (float)(tests->shift[1] + (double)v.y),
                      (float)(tests->shift[2] + (double)v.z)};
}

// A quad (corners in the tests' frame): the rectangle test for an axis-aligned rectangle, with
// the kernels' extents (v0 and v2 = (v0 + e1) + e2), else Moller-Trumbore.
static inline bool quad_test(const kd_tests* tests, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 p3,
                             float tmax, float* t, float* u, float* v)
{
    const float v0[3] = {p0.x, p0.y, p0.z};
    const float e1[3] = {p1.x - p0.x, p1.y - p0.y, p1.z - p0.z};
    const float e2[3] = {p3.x - p0.x, p3.y - p0.y, p3.z - p0.z};
    if (!vxk_quad_is_rect(e1, e2))
        return intersect_mt(&tests->mt, p0, p1, p3, true, tmax, t, u, v);
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        float v2 = (v0[a] + e1[a]) + e2[a];
        lo[a] = vxk_f32_min(v0[a], v2);
        hi[a] = vxk_f32_max(v0[a], v2);
    }
    vxk_rect_ray r = tests->rect;
    r.tmax = tmax;
    if (!vxk_ray_rect1(&r, lo, hi, t))
        return false;
    vxk_ray_rect1_uv(&r, *t, v0, e1, e2, u, v);
    return true;
}

// Whether four corners (v0, v1, v2, v3) form an axis-aligned rectangle by the rule of the tests.
static bool quad_rect(const vxk_vec3* v)
{
    const float e1[3] = {v[1].x - v[0].x, v[1].y - v[0].y, v[1].z - v[0].z};
    const float e2[3] = {v[3].x - v[0].x, v[3].y - v[0].y, v[3].z - v[0].z};
    return vxk_quad_is_rect(e1, e2);
}

static void tests_of_ray(kd_tests* tests, const vxk_kdtree_ray* ray)
{
    const float o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    const float d[3] = {ray->dir.x, ray->dir.y, ray->dir.z};
    vxk_rect_ray_set(&tests->rect, o, d, 0.0f, ray->tmax);
    tests->mt = *ray;
    tests->shifted = tests->one_by_one = false;
    tests->uv = true;
    for (int a = 0; a < 3; ++a) {
        tests->shift[a] = 0.0;
        tests->qorigin[a] = 0.0f;
    }
}

bool vxk_kdtree_intersect_quad(const vxk_kdtree_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v3,
                               float tmax, float* t, float* u, float* v)
{
    kd_tests tests;
    tests_of_ray(&tests, ray);
    return quad_test(&tests, v0, v1, v3, tmax, t, u, v);
}

// ---- mesh validation and builder ----------------------------------------------------------------

static vxk_status check_mesh(const vxk_mesh* mesh)
{
    if (!mesh || (mesh->corners != 3 && mesh->corners != 4))
        return VXK_ERR_INVALID_ARGUMENT;
    if (mesh->primitive_count > VXK_KD_MAX_PRIMITIVES)
        return VXK_ERR_OUT_OF_RANGE;
    if ((mesh->primitive_count && !mesh->indices) || (mesh->vertex_count && !mesh->vertices))
        return VXK_ERR_INVALID_ARGUMENT;
    // branch-free reductions (they vectorise): a chunk's checks cost a few dozen instructions
    size_t index_count = (size_t)mesh->primitive_count * mesh->corners;
    uint32_t max_index = 0;
    for (size_t i = 0; i < index_count; ++i)
        max_index = VXK_MAX(max_index, mesh->indices[i]);
    if (index_count && max_index >= mesh->vertex_count)
        return VXK_ERR_OUT_OF_RANGE;
    // one flat pass over the coordinates (it vectorises); NaN fails the comparison
    const float* f = mesh->vertex_count ? &mesh->vertices[0].x : NULL;
    _Static_assert(sizeof(vxk_vec3) == 3 * sizeof(float), "vxk_vec3 is 3 packed floats");
    uint32_t special = 0;
    for (size_t i = 0; i < 3 * (size_t)mesh->vertex_count; ++i)
        special |= (uint32_t) !(fabsf(f[i]) <= FLT_MAX);
    if (special)
        return VXK_ERR_NOT_FINITE;
    return VXK_OK;
}

size_t vxk_kdtree_build_scratch_size(uint32_t primitive_count)
{
    // nodes under construction (2n - 1 at most), then primitive order + centroid[3] + bmin[3] +
    // bmax[3], structure of arrays
    size_t nodes = primitive_count > 1 ? 2 * (size_t)primitive_count - 1 : 1;
    return nodes * sizeof(vxk_kdtree_node) +
           (size_t)primitive_count * (sizeof(uint32_t) + 9 * sizeof(float));
}

// A node to split: its primitives order[begin .. end), their bounds and centroid sum (gathered by
// the parent's pass over them, so each level reads the primitive data once).
typedef struct build_task {
    uint32_t node, begin, end, depth;
    float lo[3], hi[3], sum[3];
} build_task;

typedef struct build_ctx {
    uint32_t* order;
    float* centroid[3];
    float* bmin[3];
    float* bmax[3];
} build_ctx;

// Key of the median fallback: centroid on the axis, ties broken by primitive index, so the result
// is the split of the midpoint-sorted list whatever the partition history.
static inline bool key_less(const float* c, uint32_t a, uint32_t b)
{
    return c[a] < c[b] || (c[a] == c[b] && a < b);
}

// Quickselect (Lomuto, median-of-three pivot): afterwards order[begin .. k) precede order[k] and
// order[k .. end) do not, by key_less.
static void select_kth(uint32_t* order, const float* c, uint32_t begin, uint32_t end, uint32_t k)
{
    while (end - begin > 1) {
        uint32_t mid = begin + (end - begin) / 2, last = end - 1;
        uint32_t a = order[begin], b = order[mid], d = order[last];
        uint32_t pick;
        if (key_less(c, a, b))
            pick = key_less(c, b, d) ? mid : (key_less(c, a, d) ? last : begin);
        else
            pick = key_less(c, a, d) ? begin : (key_less(c, b, d) ? last : mid);
        uint32_t pivot = order[pick];
        order[pick] = order[last];
        order[last] = pivot;
        uint32_t store = begin;
        for (uint32_t i = begin; i < last; ++i) {
            if (key_less(c, order[i], pivot)) {
                uint32_t tmp = order[i];
                order[i] = order[store];
                order[store++] = tmp;
            }
        }
        order[last] = order[store];
        order[store] = pivot;
        if (k == store)
            return;
        if (k < store)
            end = store;
        else
            begin = store + 1;
    }
}

// Bounds and centroid sum of order[begin .. end) into *task, in order (the summation order the
// node would use itself, so the result does not depend on who computes it).
static inline void gather(const build_ctx* ctx, build_task* task)
{
    float lo0 = FLT_MAX, lo1 = FLT_MAX, lo2 = FLT_MAX;
    float hi0 = -FLT_MAX, hi1 = -FLT_MAX, hi2 = -FLT_MAX;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f;
    for (uint32_t i = task->begin; i < task->end; ++i) {
        uint32_t p = ctx->order[i];
        lo0 = ctx->bmin[0][p] < lo0 ? ctx->bmin[0][p] : lo0;
        lo1 = ctx->bmin[1][p] < lo1 ? ctx->bmin[1][p] : lo1;
        lo2 = ctx->bmin[2][p] < lo2 ? ctx->bmin[2][p] : lo2;
        hi0 = ctx->bmax[0][p] > hi0 ? ctx->bmax[0][p] : hi0;
        hi1 = ctx->bmax[1][p] > hi1 ? ctx->bmax[1][p] : hi1;
        hi2 = ctx->bmax[2][p] > hi2 ? ctx->bmax[2][p] : hi2;
        s0 += ctx->centroid[0][p];
        s1 += ctx->centroid[1][p];
        s2 += ctx->centroid[2][p];
    }
    task->lo[0] = lo0, task->lo[1] = lo1, task->lo[2] = lo2;
    task->hi[0] = hi0, task->hi[1] = hi1, task->hi[2] = hi2;
    task->sum[0] = s0, task->sum[1] = s1, task->sum[2] = s2;
}

// Per-primitive bounds and centroids into ctx, the identity order, and the root's bounds and
// centroid sum.
static inline __attribute__((always_inline)) void
init_primitives(const build_ctx* ctx, build_task* root, const vxk_vec3* vertices,
                const uint32_t* indices, uint32_t n, uint32_t corners)
{
    float scale = 1.0f / (float)corners;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t* idx = indices + (size_t)i * corners;
        vxk_vec3 p = vertices[idx[0]];
        float lo[3] = {p.x, p.y, p.z}, hi[3] = {p.x, p.y, p.z}, sum[3] = {p.x, p.y, p.z};
        for (uint32_t c = 1; c < corners; ++c) {
            vxk_vec3 q = vertices[idx[c]];
            float qa[3] = {q.x, q.y, q.z};
            for (int a = 0; a < 3; ++a) {
                lo[a] = qa[a] < lo[a] ? qa[a] : lo[a];
                hi[a] = qa[a] > hi[a] ? qa[a] : hi[a];
                sum[a] += qa[a];
            }
        }
        for (int a = 0; a < 3; ++a) {
            float c = sum[a] * scale;
            ctx->bmin[a][i] = lo[a];
            ctx->bmax[a][i] = hi[a];
            ctx->centroid[a][i] = c;
            root->lo[a] = VXK_MIN(root->lo[a], lo[a]);
            root->hi[a] = VXK_MAX(root->hi[a], hi[a]);
            root->sum[a] += c;
        }
        ctx->order[i] = i;
    }
}

// Builds into nodes (capacity 2n - 1, at least 1); returns the node count and the depth. Leaves
// hold up to max_leaf primitives: with leaf_ranges a leaf stores (first position in the final
// order, unused) and the caller reads the primitives from the order array (scratch), otherwise
// the primitive indices themselves (max_leaf <= 2).
static uint32_t build_nodes(vxk_kdtree_node* nodes, const vxk_vec3* vertices,
                            const uint32_t* indices, uint32_t n, uint32_t corners, void* scratch,
                            uint32_t max_leaf, bool leaf_ranges, uint32_t* depth_out,
                            vxk_aabb* bounds_out)
{
    build_ctx ctx;
    ctx.order = (uint32_t*)scratch;
    float* f = (float*)(ctx.order + n);
    for (int a = 0; a < 3; ++a) {
        ctx.centroid[a] = f + (size_t)a * n;
        ctx.bmin[a] = f + (size_t)(3 + a) * n;
        ctx.bmax[a] = f + (size_t)(6 + a) * n;
    }
    build_task root = {0,
                       0,
                       n,
                       0,
                       {FLT_MAX, FLT_MAX, FLT_MAX},
                       {-FLT_MAX, -FLT_MAX, -FLT_MAX},
                       {0.0f, 0.0f, 0.0f}};
    if (corners == 3) // a constant corner count unrolls the per-primitive loop
        init_primitives(&ctx, &root, vertices, indices, n, 3);
    else
        init_primitives(&ctx, &root, vertices, indices, n, 4);
    *bounds_out =
        (vxk_aabb){{root.lo[0], root.lo[1], root.lo[2]}, {root.hi[0], root.hi[1], root.hi[2]}};

    build_task stack[VXK_KD_MAX_DEPTH + 2];
    uint32_t sp = 0, node_count = 1, depth = 0;
    stack[sp++] = root;
    uint32_t* order = ctx.order;
    while (sp) {
        // children are written in place over the popped entry: read what is needed first
        const build_task* tp = &stack[--sp];
        build_task task = {tp->node, tp->begin, tp->end, tp->depth, {0}, {0}, {0}};
        uint32_t count = task.end - task.begin;
        vxk_kdtree_node* node = &nodes[task.node];
        if (task.depth > depth)
            depth = task.depth;
        if (count <= max_leaf) {
            if (leaf_ranges) {
                node->primitives[0] = task.begin;
                node->primitives[1] = 0;
            } else {
                node->primitives[0] = count > 0 ? order[task.begin] : VXK_KD_NO_PRIMITIVE;
                node->primitives[1] = count > 1 ? order[task.begin + 1] : VXK_KD_NO_PRIMITIVE;
            }
            node->info = VXK_KD_LEAF | (count << KD_SHIFT);
            continue;
        }
        float ex = tp->hi[0] - tp->lo[0], ey = tp->hi[1] - tp->lo[1];
        float ez = tp->hi[2] - tp->lo[2];
        uint32_t axis = ex >= ey ? (ex >= ez ? 0 : 2) : (ey >= ez ? 1 : 2);
        const float* c = ctx.centroid[axis];
        float split = tp->sum[axis] / (float)count;
        // branch-free Lomuto partition: the comparison is data-dependent and mispredicts often
        uint32_t i = task.begin;
        for (uint32_t k = task.begin; k < task.end; ++k) {
            uint32_t p = order[k];
            uint32_t less = c[p] < split;
            order[k] = order[i];
            order[i] = p;
            i += less;
        }
        uint32_t left = i - task.begin;
        if (left * 4ull < count || (count - left) * 4ull < count) {
            left = count / 2;
            select_kth(order, c, task.begin, task.end, task.begin + left);
        }
        uint32_t mid = task.begin + left;
        uint32_t child = node_count;
        node_count += 2;
        VXK_ASSERT(sp + 2 <= VXK_KD_MAX_DEPTH + 2);
        build_task* rt = &stack[sp];
        build_task* lt = &stack[sp + 1];
        sp += 2;
        rt->node = child + 1, rt->begin = mid, rt->end = task.end, rt->depth = task.depth + 1;
        lt->node = child, lt->begin = task.begin, lt->end = mid, lt->depth = task.depth + 1;
        float s0 = -FLT_MAX, s1 = FLT_MAX;
        // the planes come from the children's bounds; leaves need nothing else
        if (mid - task.begin > max_leaf) {
            gather(&ctx, lt);
            s0 = lt->hi[axis];
        } else {
            const float* bmax = ctx.bmax[axis];
            for (uint32_t k = task.begin; k < mid; ++k)
                s0 = bmax[order[k]] > s0 ? bmax[order[k]] : s0;
        }
        if (task.end - mid > max_leaf) {
            gather(&ctx, rt);
            s1 = rt->lo[axis];
        } else {
            const float* bmin = ctx.bmin[axis];
            for (uint32_t k = mid; k < task.end; ++k)
                s1 = bmin[order[k]] < s1 ? bmin[order[k]] : s1;
        }
        node->splits[0] = s0;
        node->splits[1] = s1;
        node->info = axis | (child << KD_SHIFT);
    }
    VXK_ASSERT(depth <= VXK_KD_MAX_DEPTH);
    *depth_out = depth;
    return node_count;
}

// Runs the builder with caller or owned scratch; returns nodes trimmed to size.
// Runs the builder with caller or owned scratch. storage: caller memory of storage_capacity
// nodes to build in, or NULL for one exact allocation.
static vxk_status build_common(const vxk_vec3* vertices, const uint32_t* indices, uint32_t n,
                               uint32_t corners, void* scratch, size_t scratch_size,
                               vxk_kdtree_node* storage, uint32_t storage_capacity,
                               vxk_kdtree_node** nodes_out, uint32_t* node_count_out,
                               uint32_t* depth_out, vxk_aabb* bounds_out)
{
    size_t need = vxk_kdtree_build_scratch_size(n);
    uint32_t capacity = vxk_kdtree_max_nodes(n);
    void* owned = NULL;
    if (storage && storage_capacity < capacity)
        return VXK_ERR_CAPACITY;
    if (scratch) {
        if (scratch_size < need || ((uintptr_t)scratch & 7u))
            return VXK_ERR_CAPACITY;
    } else if (need) {
        owned = vxk_alloc(need);
        if (!owned)
            return VXK_ERR_OUT_OF_MEMORY;
        scratch = owned;
    }
    // build in the caller's storage, or in scratch and then one exact allocation
    vxk_kdtree_node* work = storage ? storage : (vxk_kdtree_node*)scratch;
    uint32_t count =
        build_nodes(work, vertices, indices, n, corners, (vxk_kdtree_node*)scratch + capacity, 2,
                    false, depth_out, bounds_out);
    vxk_kdtree_node* nodes = storage;
    if (!storage) {
        nodes = (vxk_kdtree_node*)vxk_alloc((size_t)count * sizeof(vxk_kdtree_node));
        if (nodes)
            memcpy(nodes, work, (size_t)count * sizeof(vxk_kdtree_node));
    }
    vxk_free(owned, need);
    if (!nodes)
        return VXK_ERR_OUT_OF_MEMORY;
    *nodes_out = nodes;
    *node_count_out = count;
    return VXK_OK;
}

uint32_t vxk_kdtree_max_nodes(uint32_t primitive_count)
{
    return primitive_count > 1 ? 2 * primitive_count - 1 : 1;
}

static vxk_status build_tree(vxk_kdtree* tree, const vxk_mesh* mesh, void* scratch,
                             size_t scratch_size, vxk_kdtree_node* storage,
                             uint32_t storage_capacity)
{
    if (!tree)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_mesh(mesh);
    if (status != VXK_OK)
        return status;
    vxk_kdtree built;
    memset(&built, 0, sizeof(built));
    status = build_common(mesh->vertices, mesh->indices, mesh->primitive_count, mesh->corners,
                          scratch, scratch_size, storage, storage_capacity, &built.nodes,
                          &built.node_count, &built.depth, &built.bounds);
    if (status != VXK_OK)
        return status;
    built.vertices = mesh->vertices;
    built.indices = mesh->indices;
    built.vertex_count = mesh->vertex_count;
    built.primitive_count = mesh->primitive_count;
    built.corners = mesh->corners;
    built.owns_nodes = storage == NULL;
    *tree = built;
    return VXK_OK;
}

vxk_status vxk_kdtree_build(vxk_kdtree* tree, const vxk_mesh* mesh, void* scratch,
                            size_t scratch_size)
{
    return build_tree(tree, mesh, scratch, scratch_size, NULL, 0);
}

vxk_status vxk_kdtree_build_in(vxk_kdtree* tree, const vxk_mesh* mesh, vxk_kdtree_node* storage,
                               uint32_t capacity, void* scratch, size_t scratch_size)
{
    if (!storage)
        return VXK_ERR_INVALID_ARGUMENT;
    return build_tree(tree, mesh, scratch, scratch_size, storage, capacity);
}

void vxk_kdtree_free(vxk_kdtree* tree)
{
    if (!tree)
        return;
    if (tree->owns_nodes)
        vxk_free(tree->nodes, (size_t)tree->node_count * sizeof(vxk_kdtree_node));
    memset(tree, 0, sizeof(*tree));
}

size_t vxk_kdtree_bytes(const vxk_kdtree* tree)
{
    return tree ? (size_t)tree->node_count * sizeof(vxk_kdtree_node) : 0;
}

// ---- traversal, shared by the float and the quantized tree -------------------------------------

typedef struct kd_view {
    const vxk_kdtree_node* nodes;     // float tree, or
    const vxk_kdtree16_node* nodes16; // quantized tree
    const vxk_vec3* vertices;
    const uint16_t* qvertices; // quantized triangles: welded vertices; quads: 3 per slot
    const uint32_t* indices;
    const uint16_t* qindices;
    const uint16_t* qids;         // quantized quads: primitive of each slot
    uint32_t id_bits, count_bias; // quantized triangle leaves: index width, count offset
    uint32_t corners;
    uint32_t depth;
    uint32_t primitive_count;
    float origin[3], step[3];
    vxk_aabb bounds;
} kd_view;

typedef struct kd_ray_entry {
    uint32_t node;
    float tmin, tmax;
} kd_ray_entry;

typedef struct kd_decoded {
    uint32_t axis;  // 3 = leaf
    uint32_t child; // branch: first child; leaf: count
    float s0, s1;   // branch splits
    uint32_t p[4];  // leaf primitives; leaf-ordered quantized quads: p[0] is the first slot, p[1]
                    // 1 when all its quads are axis-aligned rectangles
} kd_decoded;

// Quantized quads keep their geometry in leaf order (slots); everything else indexes primitives.
static inline bool slotted(const kd_view* view, bool q16)
{
    return q16 && view->corners == 4;
}

// Primitive k of a decoded leaf and the slot its geometry is fetched from.
static inline __attribute__((always_inline)) uint32_t
leaf_prim(const kd_view* view, bool q16, const kd_decoded* d, uint32_t k, uint32_t* slot)
{
    if (slotted(view, q16)) {
        *slot = d->p[0] + k;
        return view->qids[*slot];
    }
    *slot = d->p[k];
    return d->p[k];
}

static inline __attribute__((always_inline)) kd_decoded decode(const kd_view* view, bool q16,
                                                               uint32_t index)
{
    kd_decoded d;
    if (q16) {
        vxk_kdtree16_node n = view->nodes16[index];
        d.axis = n.info & KD_AXIS_MASK;
        uint32_t payload = (uint32_t)n.info >> KD_SHIFT;
        if (d.axis == VXK_KD_LEAF) {
            d.s0 = d.s1 = 0.0f;
            if (view->corners == 4) { // a slot range, and whether its quads are all rectangles
                d.child = payload;
                d.p[0] = n.a;
                d.p[1] = n.b;
                d.p[2] = d.p[3] = 0;
            } else { // a 2-bit count, then packed primitive indices (see kdtree.h)
                uint64_t bits = (uint64_t)n.a | ((uint64_t)n.b << 16) | ((uint64_t)payload << 32);
                uint32_t w = view->id_bits, mask = (1u << w) - 1u;
                uint64_t ids = bits >> 2;
                d.child = (uint32_t)(bits & 3u) + view->count_bias;
                d.p[0] = (uint32_t)ids & mask;
                d.p[1] = (uint32_t)(ids >> w) & mask;
                d.p[2] = (uint32_t)(ids >> 2 * w) & mask;
                d.p[3] = (uint32_t)(ids >> 3 * w) & mask;
            }
        } else {
            d.child = 2 * payload + 1;
            d.s0 = view->origin[d.axis] + (float)n.a * view->step[d.axis];
            d.s1 = view->origin[d.axis] + (float)n.b * view->step[d.axis];
            d.p[0] = d.p[1] = d.p[2] = d.p[3] = 0;
        }
    } else {
        vxk_kdtree_node n = view->nodes[index];
        d.axis = n.info & KD_AXIS_MASK;
        d.child = n.info >> KD_SHIFT;
        d.s0 = n.splits[0];
        d.s1 = n.splits[1];
        d.p[0] = n.primitives[0];
        d.p[1] = n.primitives[1];
        d.p[2] = d.p[3] = 0;
    }
    return d;
}

// The fourth corner of a stored parallelogram (v0, v1, v3): v1 + (v3 - v0).
static inline vxk_vec3 quad_corner2(vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v3)
{
    return (vxk_vec3){v1.x + (v3.x - v0.x), v1.y + (v3.y - v0.y), v1.z + (v3.z - v0.z)};
}

// Corner `corner` of primitive k of a decoded leaf. A slotted leaf (first slot f, count w) stores
// its quads' coordinates as 9 rows of w uint16 at qvertices + 9 f (v0 x y z, v1 x y z, v3 x y z),
// so that one vector load takes a coordinate of the whole leaf.
static inline __attribute__((always_inline)) vxk_vec3
fetch_vertex(const kd_view* view, bool q16, const kd_decoded* leaf, uint32_t k, uint32_t corner)
{
    if (slotted(view, q16)) {
        const uint16_t* g = view->qvertices + 9 * (size_t)leaf->p[0] + k;
        size_t w = leaf->child;
        vxk_vec3 p[3];
        for (uint32_t c = 0; c < 3; ++c)
            p[c] = (vxk_vec3){view->origin[0] + (float)g[(3 * c) * w] * view->step[0],
                              view->origin[1] + (float)g[(3 * c + 1) * w] * view->step[1],
                              view->origin[2] + (float)g[(3 * c + 2) * w] * view->step[2]};
        if (corner == 2)
            return quad_corner2(p[0], p[1], p[2]);
        return p[corner == 3 ? 2 : corner];
    }
    size_t slot = (size_t)leaf->p[k] * view->corners + corner;
    if (q16) {
        const uint16_t* q = view->qvertices + 3 * (size_t)view->qindices[slot];
        return (vxk_vec3){view->origin[0] + (float)q[0] * view->step[0],
                          view->origin[1] + (float)q[1] * view->step[1],
                          view->origin[2] + (float)q[2] * view->step[2]};
    }
    return view->vertices[view->indices[slot]];
}

static inline __attribute__((always_inline)) bool prim_overlaps(const kd_view* view, bool q16,
                                                                const kd_decoded* leaf, uint32_t k,
                                                                const float* lo, const float* hi)
{
    vxk_vec3 v = fetch_vertex(view, q16, leaf, k, 0);
    float pl[3] = {v.x, v.y, v.z}, ph[3] = {v.x, v.y, v.z};
    for (uint32_t c = 1; c < view->corners; ++c) {
        vxk_vec3 w = fetch_vertex(view, q16, leaf, k, c);
        float wa[3] = {w.x, w.y, w.z};
        for (int a = 0; a < 3; ++a) {
            pl[a] = wa[a] < pl[a] ? wa[a] : pl[a];
            ph[a] = wa[a] > ph[a] ? wa[a] : ph[a];
        }
    }
    return pl[0] <= hi[0] && ph[0] >= lo[0] && pl[1] <= hi[1] && ph[1] >= lo[1] && pl[2] <= hi[2] &&
           ph[2] >= lo[2];
}

static inline __attribute__((always_inline)) uint32_t query_aabb(const kd_view* view, bool q16,
                                                                 uint32_t* out, uint32_t capacity,
                                                                 const vxk_aabb* box, void* scratch)
{
    if (!box || view->primitive_count == 0)
        return 0;
    float lo[3] = {box->min.x, box->min.y, box->min.z};
    float hi[3] = {box->max.x, box->max.y, box->max.z};
    // rejects NaN too
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]))
        return 0;
    if (!(lo[0] <= view->bounds.max.x && hi[0] >= view->bounds.min.x &&
          lo[1] <= view->bounds.max.y && hi[1] >= view->bounds.min.y &&
          lo[2] <= view->bounds.max.z && hi[2] >= view->bounds.min.z))
        return 0;
    uint32_t local[VXK_KD_MAX_DEPTH + 1];
    uint32_t* stack = scratch ? (uint32_t*)scratch : local;
    uint32_t sp = 0, found = 0;
    stack[sp++] = 0;
    while (sp) {
        kd_decoded d = decode(view, q16, stack[--sp]);
        if (d.axis == VXK_KD_LEAF) {
            for (uint32_t k = 0; k < d.child; ++k) {
                uint32_t slot, prim = leaf_prim(view, q16, &d, k, &slot);
                if (prim_overlaps(view, q16, &d, k, lo, hi)) {
                    if (found < capacity)
                        out[found] = prim;
                    ++found;
                }
            }
            continue;
        }
        stack[sp] = d.child + 1; // branch-free pushes, as in the ray traversal
        sp += d.s1 <= hi[d.axis];
        stack[sp] = d.child;
        sp += d.s0 >= lo[d.axis];
    }
    return found;
}

static inline __attribute__((always_inline)) bool
test_prim(const kd_view* view, bool q16, const kd_tests* tests, const kd_decoded* leaf, uint32_t k,
          float tmax, float* t, float* u, float* v)
{
    vxk_vec3 p0 = shift_corner(tests, fetch_vertex(view, q16, leaf, k, 0));
    vxk_vec3 p1 = shift_corner(tests, fetch_vertex(view, q16, leaf, k, 1));
    if (view->corners == 4) {
        vxk_vec3 p3 = shift_corner(tests, fetch_vertex(view, q16, leaf, k, 3));
        return quad_test(tests, p0, p1, p3, tmax, t, u, v);
    }
    vxk_vec3 p2 = shift_corner(tests, fetch_vertex(view, q16, leaf, k, 2));
    return intersect_mt(&tests->mt, p0, p1, p2, false, tmax, t, u, v);
}

// Relative widening of every segment bound (seed 000: "slightly expand the segment on each
// branch"), scaled by the coordinates' magnitude over the direction.
#define KD_RAY_EPS 1.0e-4f

// A ray ready for traversal: reciprocals, per-axis widening, near sides, and its segment clipped
// to the root bounds. The single-ray and the packet traversal share it (and kd_split), so their
// lanes compute the same values. An axis is flat when its component is zero or so small that its
// reciprocal overflows (it moves the ray by nothing a float can hold); its tests are on positions.
typedef struct kd_begin {
    float o[4], inv[4], eps[4]; // lane 3 unused
    float inv_raw[4];           // 1 / dir, infinite on a flat axis (inv has 0 there)
    uint32_t flat[4];           // all ones for a flat axis
    uint32_t near_side[4];
    float tmin, tmax;
} kd_begin;

// False when the ray cannot hit (invalid, or missing the root bounds). The three axes go through
// one 4-lane pass (one division for all three reciprocals); each lane does the scalar rules'
// operations in their order, and the clip reduces the axes in order 0, 1, 2, as a loop over them
// would.
static inline __attribute__((always_inline)) bool
kd_ray_begin(const kd_view* view, const vxk_kdtree_ray* ray, kd_begin* b)
{
    const simde__m128 zero = simde_mm_setzero_ps();
    simde__m128 o = simde_mm_set_ps(0.0f, ray->origin.z, ray->origin.y, ray->origin.x);
    simde__m128 d = simde_mm_set_ps(1.0f, ray->dir.z, ray->dir.y, ray->dir.x);
    // finite lanes: x - x is 0 (inf and NaN give NaN); also tmax finite and >= 0
    simde__m128 finite = simde_mm_and_ps(simde_mm_cmpeq_ps(simde_mm_sub_ps(o, o), zero),
                                         simde_mm_cmpeq_ps(simde_mm_sub_ps(d, d), zero));
    simde__m128 dzero = simde_mm_cmpeq_ps(d, zero);
    if (simde_mm_movemask_ps(finite) != 0xF || (simde_mm_movemask_ps(dzero) & 7) == 7 ||
        !vxk_is_finite(ray->tmax) || !(ray->tmax >= 0.0f))
        return false;
    const simde__m128 sign = simde_mm_set1_ps(-0.0f);
    simde__m128 bmin =
        simde_mm_set_ps(0.0f, view->bounds.min.z, view->bounds.min.y, view->bounds.min.x);
    simde__m128 bmax =
        simde_mm_set_ps(0.0f, view->bounds.max.z, view->bounds.max.y, view->bounds.max.x);
    simde__m128 inv = simde_mm_div_ps(simde_mm_set1_ps(1.0f), d);
    simde_mm_storeu_ps(b->inv_raw, inv);
    simde__m128 inv_abs = simde_mm_andnot_ps(sign, inv);
    // flat: zero, or a reciprocal that overflowed
    simde__m128 flat =
        simde_mm_or_ps(dzero, simde_mm_cmpeq_ps(inv_abs, simde_mm_set1_ps(INFINITY)));
    inv = simde_mm_andnot_ps(flat, inv);
    simde__m128 mag =
        simde_mm_add_ps(simde_mm_add_ps(simde_mm_andnot_ps(sign, o),
                                        simde_mm_max_ps(simde_mm_andnot_ps(sign, bmin),
                                                        simde_mm_andnot_ps(sign, bmax))),
                        simde_mm_set1_ps(1.0f));
    simde__m128 eps_flat = simde_mm_mul_ps(simde_mm_set1_ps(KD_RAY_EPS), mag);
    // flat axes are widened alike: the primitive test's rounding may accept a primitive that
    // far outside its plane
    simde__m128 eps = simde_mm_or_ps(
        simde_mm_and_ps(flat, eps_flat),
        simde_mm_andnot_ps(flat, simde_mm_mul_ps(eps_flat, simde_mm_andnot_ps(sign, inv))));
    simde__m128 outside = simde_mm_or_ps(simde_mm_cmplt_ps(o, simde_mm_sub_ps(bmin, eps)),
                                         simde_mm_cmpgt_ps(o, simde_mm_add_ps(bmax, eps)));
    if (simde_mm_movemask_ps(simde_mm_and_ps(flat, outside)) & 7)
        return false;
    simde__m128 ta = simde_mm_mul_ps(simde_mm_sub_ps(bmin, o), inv);
    simde__m128 tb = simde_mm_mul_ps(simde_mm_sub_ps(bmax, o), inv);
    float t0[4], t1[4];
    simde_mm_storeu_ps(t0, simde_mm_sub_ps(simde_mm_min_ps(ta, tb), eps));
    simde_mm_storeu_ps(t1, simde_mm_add_ps(simde_mm_max_ps(ta, tb), eps));
    simde_mm_storeu_ps(b->o, o);
    simde_mm_storeu_ps(b->inv, inv);
    simde_mm_storeu_ps(b->eps, eps);
    simde_mm_storeu_si128((simde__m128i*)b->flat, simde_mm_castps_si128(flat));
    simde_mm_storeu_si128(
        (simde__m128i*)b->near_side,
        simde_mm_srli_epi32(simde_mm_castps_si128(simde_mm_cmplt_ps(d, zero)), 31));
    uint32_t flat_bits = (uint32_t)simde_mm_movemask_ps(flat);
    float tmin = 0.0f, tmax = ray->tmax;
    for (int a = 0; a < 3; ++a) {
        if ((flat_bits >> a) & 1u)
            continue;
        tmin = VXK_MAX(tmin, t0[a]);
        tmax = VXK_MIN(tmax, t1[a]);
    }
    b->tmin = tmin;
    b->tmax = tmax;
    return tmin <= tmax;
}

// The primitive tests of a query that kd_ray_begin accepted: the ray from the frame's origin
// (NULL: the ray's own) with the reciprocals kd_ray_begin computed (the same divisions as
// vxk_rect_ray_set), and the frame's shift.
static inline __attribute__((always_inline)) void
kd_tests_init(kd_tests* tests, const kd_view* view, const vxk_kdtree_ray* ray, const kd_begin* b,
              const vxk_kdtree_frame* frame)
{
    vxk_vec3 o = frame ? frame->origin : ray->origin;
    tests->mt = (vxk_kdtree_ray){o, ray->dir, ray->tmax};
    tests->uv = !frame;
    if (view->corners == 4) { // triangles take Moller-Trumbore alone
        const float d[3] = {ray->dir.x, ray->dir.y, ray->dir.z};
        tests->rect.o[0] = o.x;
        tests->rect.o[1] = o.y;
        tests->rect.o[2] = o.z;
        tests->rect.flat = 0;
        for (int a = 0; a < 3; ++a) {
            tests->rect.d[a] = d[a];
            tests->rect.inv[a] = b->inv_raw[a];
            tests->rect.flat |= (b->flat[a] & 1u) << a;
        }
        tests->rect.tmin = 0.0f;
        tests->rect.tmax = ray->tmax;
    }
    tests->shifted = tests->one_by_one = false;
    for (int a = 0; a < 3; ++a) {
        tests->shift[a] = 0.0;
        tests->qorigin[a] = view->origin[a];
    }
    if (!frame)
        return;
    for (int a = 0; a < 3; ++a) {
        double q = (double)view->origin[a] + frame->shift[a];
        tests->shift[a] = frame->shift[a];
        tests->qorigin[a] = (float)q;
        tests->shifted |= frame->shift[a] != 0.0;
        tests->one_by_one |= (double)tests->qorigin[a] != q;
    }
}

// The children of branch n the ray reaches from its segment [tmin, seg_max]: the near one (taken
// first; a flat axis takes the left first) over [tmin, near_max], the far one over
// [far_min, seg_max].
typedef struct kd_children {
    uint32_t near; // 0 left, 1 right
    bool reach_near, reach_far;
    float near_max, far_min;
} kd_children;

static inline __attribute__((always_inline)) kd_children
kd_split(const kd_begin* b, const kd_decoded* n, float tmin, float seg_max)
{
    uint32_t a = n->axis;
    kd_children c;
    if (b->flat[a]) {
        c.near = 0;
        c.reach_near = b->o[a] <= n->s0 + b->eps[a];
        c.reach_far = b->o[a] >= n->s1 - b->eps[a];
        c.near_max = seg_max;
        c.far_min = tmin;
        return c;
    }
    c.near = b->near_side[a];
    // The near plane by a mask on the bits, not a branch: the ray's sign on the node's axis is a
    // coin flip for the predictor.
    uint32_t b0, b1;
    memcpy(&b0, &n->s0, sizeof(b0));
    memcpy(&b1, &n->s1, sizeof(b1));
    uint32_t swap = (b0 ^ b1) & (0u - c.near);
    uint32_t bn = b0 ^ swap, bf = b1 ^ swap;
    float s_near, s_far;
    memcpy(&s_near, &bn, sizeof(s_near));
    memcpy(&s_far, &bf, sizeof(s_far));
    float t_near_end = (s_near - b->o[a]) * b->inv[a] + b->eps[a];
    float t_far_start = (s_far - b->o[a]) * b->inv[a] - b->eps[a];
    c.reach_near = t_near_end >= tmin;
    c.reach_far = t_far_start <= seg_max;
    c.near_max = VXK_MIN(t_near_end, seg_max);
    c.far_min = VXK_MAX(t_far_start, tmin);
    return c;
}

// Closest-hit order: nearer, then the lower primitive index on a tie (what a brute-force scan in
// index order keeps).
static inline bool kd_better(float t, uint32_t prim, const vxk_kdtree_hit* best)
{
    return t < best->t || (t == best->t && prim < best->primitive);
}

// A candidate a vector leaf test found (edges e1, e2): the degeneracy test, then the tie rule, as
// the scalar loop applies them. True when `any` and it was taken (the search stops).
static inline __attribute__((always_inline)) bool take_candidate(const kd_tests* tests, vxk_vec3 e1,
                                                                 vxk_vec3 e2,
                                                                 const vxk_kdtree_hit* cand,
                                                                 bool any, vxk_kdtree_hit* best)
{
    vxk_vec3 dir = tests->mt.dir;
    if (!mt_solid(dir, e1, e2, v_dot(e1, v_cross(dir, e2))))
        return false;
    if (any || kd_better(cand->t, cand->primitive, best))
        *best = *cand;
    return any;
}

// Candidate k of a leaf's test (the leaf's k-th quad, primitive prim): taken by the tie rule,
// after the degeneracy test for a quad that is not a rectangle. A leaf of rectangles (whose
// kernel reports t alone) gets u and v of a taken hit here, from the quad's corners in the frame.
// True when `any` and it was taken (the search stops).
static inline __attribute__((always_inline)) bool
take_quad(const kd_view* view, const kd_tests* tests, const kd_decoded* leaf, uint32_t k,
          const vxk_kdtree_hit* cand, bool any, vxk_kdtree_hit* best)
{
    if (leaf->p[1]) {
        if (!any && !kd_better(cand->t, cand->primitive, best))
            return false;
        *best = *cand;
        if (tests->uv) {
            vxk_vec3 p0 = shift_corner(tests, fetch_vertex(view, true, leaf, k, 0));
            vxk_vec3 p1 = shift_corner(tests, fetch_vertex(view, true, leaf, k, 1));
            vxk_vec3 p3 = shift_corner(tests, fetch_vertex(view, true, leaf, k, 3));
            const float v0[3] = {p0.x, p0.y, p0.z};
            const float e1[3] = {p1.x - p0.x, p1.y - p0.y, p1.z - p0.z};
            const float e2[3] = {p3.x - p0.x, p3.y - p0.y, p3.z - p0.z};
            vxk_ray_rect1_uv(&tests->rect, best->t, v0, e1, e2, &best->u, &best->v);
        }
        return any;
    }
    {
        vxk_vec3 p0 = fetch_vertex(view, true, leaf, k, 0);
        vxk_vec3 e1 = v_sub(fetch_vertex(view, true, leaf, k, 1), p0);
        vxk_vec3 e2 = v_sub(fetch_vertex(view, true, leaf, k, 3), p0);
        const float f1[3] = {e1.x, e1.y, e1.z}, f2[3] = {e2.x, e2.y, e2.z};
        if (!vxk_quad_is_rect(f1, f2))
            return take_candidate(tests, e1, e2, cand, any, best);
    }
    if (any || kd_better(cand->t, cand->primitive, best))
        *best = *cand;
    return any;
}

// The quads of a slotted leaf against the ray, 8 at a time: a leaf of rectangles by
// vxk_ray_qrect8, any other by vxk_ray_qquad8 (both the tests' operations on the leaf's rows,
// dequantized with the frame's origin, so they find the same hits as quad_test), bounded by the
// best hit so far; the candidates then take the degeneracy test (quads that are not rectangles)
// and the tie rule in slot order, as the scalar loop would. When the frame's origin is not exact
// in float, the quads go one by one through quad_test. True when `any` and a quad was hit.
static inline __attribute__((always_inline)) bool leaf_quads8(const kd_view* view,
                                                              const kd_tests* tests,
                                                              const kd_decoded* leaf, bool any,
                                                              vxk_kdtree_hit* best)
{
    uint32_t first = leaf->p[0], w = leaf->child;
    if (__builtin_expect(tests->one_by_one, 0)) {
        for (uint32_t k = 0; k < w; ++k) {
            float t, u, v;
            if (!test_prim(view, true, tests, leaf, k, best->t, &t, &u, &v))
                continue;
            vxk_kdtree_hit cand = {t, u, v, view->qids[first + k]};
            if (any || kd_better(t, cand.primitive, best))
                *best = cand;
            if (any)
                return true;
        }
        return false;
    }
    const uint16_t* rows = view->qvertices + 9 * (size_t)first;
    vxk_rect_ray rect = tests->rect;
    for (uint32_t base = 0; base < w; base += 8) {
        // a hit in the block before bounds this one
        rect.tmax = best->t;
        vxk_hit8 h;
        uint32_t n = VXK_MIN(w - base, 8u), found;
        if (leaf->p[1]) {
            found = vxk_ray_qrect8(&rect, rows + base, w, n, tests->qorigin, view->step, &h);
        } else {
            vxk_simd_ray r = {{rect.o[0], rect.o[1], rect.o[2]},
                              {rect.d[0], rect.d[1], rect.d[2]},
                              0.0f,
                              best->t};
            found = vxk_ray_qquad8(&r, rows + base, w, n, tests->qorigin, view->step, &h);
        }
        for (; found; found &= found - 1) {
            uint32_t j = (uint32_t)__builtin_ctz(found), k = base + j;
            vxk_kdtree_hit cand = {h.t[j], h.u[j], h.v[j], view->qids[first + k]};
            if (take_quad(view, tests, leaf, k, &cand, any, best))
                return true;
        }
    }
    return false;
}

typedef struct kd_v3x4 {
    simde__m128 x, y, z;
} kd_v3x4;

static inline kd_v3x4 v4_sub(kd_v3x4 a, kd_v3x4 b)
{
    return (kd_v3x4){simde_mm_sub_ps(a.x, b.x), simde_mm_sub_ps(a.y, b.y),
                     simde_mm_sub_ps(a.z, b.z)};
}
static inline kd_v3x4 v4_cross(kd_v3x4 a, kd_v3x4 b)
{
    return (kd_v3x4){simde_mm_sub_ps(simde_mm_mul_ps(a.y, b.z), simde_mm_mul_ps(a.z, b.y)),
                     simde_mm_sub_ps(simde_mm_mul_ps(a.z, b.x), simde_mm_mul_ps(a.x, b.z)),
                     simde_mm_sub_ps(simde_mm_mul_ps(a.x, b.y), simde_mm_mul_ps(a.y, b.x))};
}
static inline simde__m128 v4_dot(kd_v3x4 a, kd_v3x4 b)
{
    return simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(a.x, b.x), simde_mm_mul_ps(a.y, b.y)),
                           simde_mm_mul_ps(a.z, b.z));
}
// Lanes 0 and 1 of x, y, z from two vertices (12-byte loads: 8 + 4 bytes, never past a vertex);
// lanes 2 and 3 hold copies the caller masks off.
static inline kd_v3x4 v4_pair(const vxk_vec3* a, const vxk_vec3* b)
{
    simde__m128 va = simde_mm_movelh_ps(
        simde_mm_loadl_pi(simde_mm_setzero_ps(), (const simde__m64*)a), simde_mm_load_ss(&a->z));
    simde__m128 vb = simde_mm_movelh_ps(
        simde_mm_loadl_pi(simde_mm_setzero_ps(), (const simde__m64*)b), simde_mm_load_ss(&b->z));
    simde__m128 lo = simde_mm_unpacklo_ps(va, vb); // ax bx ay by
    return (kd_v3x4){lo, simde_mm_movehl_ps(lo, lo), simde_mm_unpackhi_ps(va, vb)};
}
static inline kd_v3x4 v4_splat(vxk_vec3 a)
{
    return (kd_v3x4){simde_mm_set1_ps(a.x), simde_mm_set1_ps(a.y), simde_mm_set1_ps(a.z)};
}

// The (at most two) primitives of a float leaf: corners 0, 1 and the last stored one (v2 of a
// triangle, v3 of a quad) of each (the first twice in a leaf of one), and in lanes 0 and 1 the
// first corner and the edges from it.
typedef struct float_pair {
    const vxk_vec3* c[2][3];
    kd_v3x4 p0, e1, e2;
} float_pair;

static inline __attribute__((always_inline)) float_pair float_leaf_pair(const kd_view* view,
                                                                        const kd_decoded* leaf)
{
    float_pair f;
    uint32_t k1 = leaf->child > 1 ? 1u : 0u, last = view->corners - 1;
    const uint32_t* ia = view->indices + (size_t)leaf->p[0] * view->corners;
    const uint32_t* ib = view->indices + (size_t)leaf->p[k1] * view->corners;
    f.c[0][0] = &view->vertices[ia[0]];
    f.c[0][1] = &view->vertices[ia[1]];
    f.c[0][2] = &view->vertices[ia[last]];
    f.c[1][0] = &view->vertices[ib[0]];
    f.c[1][1] = &view->vertices[ib[1]];
    f.c[1][2] = &view->vertices[ib[last]];
    f.p0 = v4_pair(f.c[0][0], f.c[1][0]);
    f.e1 = v4_sub(v4_pair(f.c[0][1], f.c[1][1]), f.p0);
    f.e2 = v4_sub(v4_pair(f.c[0][2], f.c[1][2]), f.p0);
    return f;
}

// The (at most two) quads of a float leaf when both are axis-aligned rectangles: the rectangle
// test in two lanes with quad_test's operations in its order (so the hits of the brute-force
// scan), then the tie rule in leaf order and u and v of a taken hit by vxk_ray_rect1_uv. -1 when
// a quad is not a rectangle (the caller tests the leaf quad by quad), else 1 when `any` and one
// was hit, 0 otherwise.
static inline __attribute__((always_inline)) int leaf_float_rects(const kd_view* view,
                                                                  const kd_tests* tests,
                                                                  const kd_decoded* leaf, bool any,
                                                                  vxk_kdtree_hit* best)
{
    uint32_t count = leaf->child, lanes = (1u << count) - 1u;
    if (!count)
        return 0;
    float_pair f = float_leaf_pair(view, leaf);
    const simde__m128 zero = simde_mm_setzero_ps();
    const simde__m128 e[2][3] = {{f.e1.x, f.e1.y, f.e1.z}, {f.e2.x, f.e2.y, f.e2.z}};
    simde__m128 nz[2][3];
    for (int k = 0; k < 2; ++k)
        for (int a = 0; a < 3; ++a)
            nz[k][a] =
                simde_mm_or_ps(simde_mm_cmplt_ps(e[k][a], zero), simde_mm_cmpgt_ps(e[k][a], zero));
    simde__m128 bad = zero, any_nz[2];
    for (int k = 0; k < 2; ++k) {
        any_nz[k] = simde_mm_or_ps(simde_mm_or_ps(nz[k][0], nz[k][1]), nz[k][2]);
        bad = simde_mm_or_ps(bad,
                             simde_mm_or_ps(simde_mm_and_ps(nz[k][0], nz[k][1]),
                                            simde_mm_or_ps(simde_mm_and_ps(nz[k][0], nz[k][2]),
                                                           simde_mm_and_ps(nz[k][1], nz[k][2]))));
    }
    for (int a = 0; a < 3; ++a)
        bad = simde_mm_or_ps(bad, simde_mm_and_ps(nz[0][a], nz[1][a]));
    simde__m128 rect = simde_mm_andnot_ps(bad, simde_mm_and_ps(any_nz[0], any_nz[1]));
    if (((uint32_t)simde_mm_movemask_ps(rect) & lanes) != lanes)
        return -1;
    const simde__m128 p0[3] = {f.p0.x, f.p0.y, f.p0.z};
    simde__m128 enter = simde_mm_set1_ps(-INFINITY), exit = simde_mm_set1_ps(INFINITY);
    simde__m128 ok = simde_mm_castsi128_ps(simde_mm_set1_epi32(-1));
    for (int a = 0; a < 3; ++a) {
        simde__m128 v2 = simde_mm_add_ps(simde_mm_add_ps(p0[a], e[0][a]), e[1][a]);
        simde__m128 lo = simde_mm_min_ps(p0[a], v2), hi = simde_mm_max_ps(p0[a], v2);
        simde__m128 o = simde_mm_set1_ps(tests->rect.o[a]);
        simde__m128 dlo = simde_mm_sub_ps(lo, o), dhi = simde_mm_sub_ps(hi, o);
        if ((tests->rect.flat >> a) & 1u) {
            ok = simde_mm_and_ps(ok, simde_mm_cmplt_ps(lo, hi));
            ok = simde_mm_and_ps(ok, simde_mm_cmple_ps(dlo, zero));
            ok = simde_mm_and_ps(ok, simde_mm_cmpge_ps(dhi, zero));
            continue;
        }
        simde__m128 inv = simde_mm_set1_ps(tests->rect.inv[a]);
        simde__m128 t0 = simde_mm_mul_ps(dlo, inv), t1 = simde_mm_mul_ps(dhi, inv);
        enter = simde_mm_max_ps(enter, simde_mm_min_ps(t0, t1));
        exit = simde_mm_min_ps(exit, simde_mm_max_ps(t0, t1));
    }
    ok = simde_mm_and_ps(ok, simde_mm_cmple_ps(enter, exit));
    ok = simde_mm_and_ps(ok, simde_mm_cmpge_ps(enter, simde_mm_set1_ps(tests->rect.tmin)));
    ok = simde_mm_and_ps(ok, simde_mm_cmple_ps(enter, simde_mm_set1_ps(best->t)));
    uint32_t found = (uint32_t)simde_mm_movemask_ps(ok) & lanes;
    if (__builtin_expect(!found, 1))
        return 0;
    float tt[4];
    simde_mm_storeu_ps(tt, simde_mm_add_ps(enter, zero));
    for (; found; found &= found - 1) {
        uint32_t k = (uint32_t)__builtin_ctz(found);
        if (!any && !kd_better(tt[k], leaf->p[k], best))
            continue;
        *best = (vxk_kdtree_hit){tt[k], 0.0f, 0.0f, leaf->p[k]};
        if (tests->uv) {
            vxk_vec3 q0 = *f.c[k][0], q1 = *f.c[k][1], q3 = *f.c[k][2];
            const float v0[3] = {q0.x, q0.y, q0.z};
            const float f1[3] = {q1.x - q0.x, q1.y - q0.y, q1.z - q0.z};
            const float f2[3] = {q3.x - q0.x, q3.y - q0.y, q3.z - q0.z};
            vxk_ray_rect1_uv(&tests->rect, best->t, v0, f1, f2, &best->u, &best->v);
        }
        if (any)
            return 1;
    }
    return 0;
}

// The (at most two) triangles of a float leaf against the ray at once, with intersect_mt's
// operations per lane (its scalar twin: test_kdtree requires every tree hit to equal a brute-force
// scan with vxk_kdtree_intersect_*), bounded by the best hit so far; candidates then take the
// degeneracy test and the tie rule in leaf order, as the scalar loop would. Two lanes run both
// tests side by side where the scalar loop ran them one after the other, each ending in a
// division. True when `any` and one was hit.
static inline __attribute__((always_inline)) bool leaf_float4(const kd_view* view,
                                                              const kd_tests* tests,
                                                              const kd_decoded* leaf, bool any,
                                                              vxk_kdtree_hit* best)
{
    uint32_t count = leaf->child;
    VXK_ASSERT(count <= 2 && view->corners == 3);
    if (!count)
        return false;
    float_pair f = float_leaf_pair(view, leaf);
    const vxk_vec3 *a0 = f.c[0][0], *b0 = f.c[1][0];
    const vxk_vec3 *a1 = f.c[0][1], *b1 = f.c[1][1];
    const vxk_vec3 *a2 = f.c[0][2], *b2 = f.c[1][2];
    kd_v3x4 p0 = f.p0, e1 = f.e1, e2 = f.e2;
    kd_v3x4 d = v4_splat(tests->mt.dir);
    kd_v3x4 p = v4_cross(d, e2);
    simde__m128 det = v4_dot(e1, p);
    simde__m128 inv = simde_mm_div_ps(simde_mm_set1_ps(1.0f), det);
    kd_v3x4 s = v4_sub(v4_splat(tests->mt.origin), p0);
    simde__m128 u = simde_mm_mul_ps(v4_dot(s, p), inv);
    kd_v3x4 q = v4_cross(s, e1);
    simde__m128 v = simde_mm_mul_ps(v4_dot(d, q), inv);
    simde__m128 t = simde_mm_mul_ps(v4_dot(e2, q), inv);
    const simde__m128 zero = simde_mm_setzero_ps(), one = simde_mm_set1_ps(1.0f);
    simde__m128 ok = simde_mm_and_ps(simde_mm_cmpge_ps(u, zero), simde_mm_cmple_ps(u, one));
    ok = simde_mm_and_ps(ok, simde_mm_cmpge_ps(v, zero));
    ok = simde_mm_and_ps(ok, simde_mm_cmple_ps(simde_mm_add_ps(u, v), one));
    ok = simde_mm_and_ps(ok, simde_mm_cmpge_ps(t, zero));
    ok = simde_mm_and_ps(ok, simde_mm_cmple_ps(t, simde_mm_set1_ps(best->t)));
    uint32_t found = (uint32_t)simde_mm_movemask_ps(ok) & ((1u << count) - 1u);
    if (__builtin_expect(!found, 1))
        return false;
    float tt[4], uu[4], vv[4];
    simde_mm_storeu_ps(tt, t);
    simde_mm_storeu_ps(uu, u);
    simde_mm_storeu_ps(vv, v);
    for (; found; found &= found - 1) {
        uint32_t k = (uint32_t)__builtin_ctz(found);
        vxk_vec3 q0 = *(k ? b0 : a0);
        vxk_vec3 f1 = v_sub(*(k ? b1 : a1), q0), f2 = v_sub(*(k ? b2 : a2), q0);
        vxk_kdtree_hit cand = {tt[k], uu[k], vv[k], leaf->p[k]};
        if (take_candidate(tests, f1, f2, &cand, any, best))
            return true;
    }
    return false;
}

static inline __attribute__((always_inline)) bool
raycast(const kd_view* view, bool q16, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
        const vxk_kdtree_frame* frame, bool any, void* scratch)
{
    vxk_kdtree_hit best = {ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
    if (hit)
        *hit = best;
    if (!ray || view->primitive_count == 0)
        return false;
    kd_begin begin;
    if (!kd_ray_begin(view, ray, &begin))
        return false;
    kd_tests tests;
    kd_tests_init(&tests, view, ray, &begin, frame);
    int rects = 0;

    kd_ray_entry local[VXK_KD_MAX_DEPTH + 1];
    kd_ray_entry* stack = scratch ? (kd_ray_entry*)scratch : local;
    uint32_t sp = 0, node = 0;
    float tmin = begin.tmin, tmax = begin.tmax;
    for (;;) {
        kd_decoded n = decode(view, q16, node);
        if (n.axis != VXK_KD_LEAF) {
            // descend into the near child straight away (no stack round trip on the critical
            // path); the far one waits on the stack
            kd_children c = kd_split(&begin, &n, tmin, VXK_MIN(tmax, best.t));
            uint32_t near = n.child + c.near, far = n.child + (c.near ^ 1u);
            if (__builtin_expect(c.reach_near, 1)) {
                stack[sp] = (kd_ray_entry){far, c.far_min, tmax};
                sp += c.reach_far;
                node = near;
                tmax = c.near_max;
                continue;
            }
            if (c.reach_far) {
                node = far;
                tmin = c.far_min;
                continue;
            }
        } else if (slotted(view, q16)) {
            if (leaf_quads8(view, &tests, &n, any, &best))
                break;
        } else if (!q16 && view->corners == 3 && !tests.shifted) {
            if (leaf_float4(view, &tests, &n, any, &best))
                break;
        } else if (!q16 && !tests.shifted &&
                   (rects = leaf_float_rects(view, &tests, &n, any, &best)) >= 0) {
            if (rects)
                break;
        } else {
            for (uint32_t k = 0; k < n.child; ++k) {
                float t, u, v;
                if (!test_prim(view, q16, &tests, &n, k, best.t, &t, &u, &v))
                    continue;
                uint32_t slot, prim = leaf_prim(view, q16, &n, k, &slot);
                if (any || kd_better(t, prim, &best))
                    best = (vxk_kdtree_hit){t, u, v, prim};
                if (any)
                    break;
            }
            if (any && best.primitive != VXK_KD_NO_PRIMITIVE)
                break;
        }
        // a segment starting past the best hit cannot hold a nearer (or tying) one
        do {
            if (!sp)
                goto done;
            --sp;
        } while (stack[sp].tmin > best.t);
        node = stack[sp].node;
        tmin = stack[sp].tmin;
        tmax = stack[sp].tmax;
    }
done:
    if (best.primitive == VXK_KD_NO_PRIMITIVE)
        return false;
    if (!tests.uv) // framed queries report t alone
        best.u = best.v = 0.0f;
    if (hit)
        *hit = best;
    return true;
}

// ---- packet traversal ---------------------------------------------------------------------------

// A packet stack entry: the node, the lanes that reach it, and each lane's segment.
typedef struct kd_packet_entry {
    uint32_t node, mask;
    float tmin[8], tmax[8];
} kd_packet_entry;

// Up to 8 rays through the tree together: every lane follows the single-ray traversal's rules
// (the same segments, pruning against its own best hit, the same primitive tests), and nodes and
// primitives are fetched once for all lanes that reach them. The visiting order is the first
// live lane's; any order finds every lane's closest hit (pruning never drops a node that could
// hold a hit at or before the lane's current best), so each lane's result equals its single ray's.
static inline __attribute__((always_inline)) uint32_t raycast8(const kd_view* view, bool q16,
                                                               vxk_kdtree_hit hits[8],
                                                               const vxk_kdtree_ray rays[8],
                                                               uint32_t lanes)
{
    kd_begin lane[8];
    kd_tests tests[8];
    vxk_kdtree_hit best[8];
    uint32_t live = 0;
    for (uint32_t l = 0; l < 8; ++l) {
        if (!((lanes >> l) & 1u))
            continue;
        best[l] = (vxk_kdtree_hit){rays[l].tmax, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
        if (view->primitive_count && kd_ray_begin(view, &rays[l], &lane[l])) {
            kd_tests_init(&tests[l], view, &rays[l], &lane[l], NULL);
            live |= 1u << l;
        }
    }
    kd_packet_entry stack[VXK_KD_MAX_DEPTH + 1];
    uint32_t sp = 0;
    if (live) {
        stack[0].node = 0;
        stack[0].mask = live;
        for (uint32_t l = 0; l < 8; ++l) {
            stack[0].tmin[l] = (live >> l) & 1u ? lane[l].tmin : 0.0f;
            stack[0].tmax[l] = (live >> l) & 1u ? lane[l].tmax : 0.0f;
        }
        sp = 1;
    }
    while (sp) {
        const kd_packet_entry e = stack[--sp];
        uint32_t m = 0;
        float seg_max[8];
        for (uint32_t rest = e.mask; rest; rest &= rest - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(rest);
            if (e.tmin[l] > best[l].t)
                continue;
            m |= 1u << l;
            seg_max[l] = VXK_MIN(e.tmax[l], best[l].t);
        }
        if (!m)
            continue;
        kd_decoded n = decode(view, q16, e.node);
        if (n.axis == VXK_KD_LEAF && slotted(view, q16)) {
            // each lane's leaf test as its single ray's (one vector test per lane)
            for (uint32_t rest = m; rest; rest &= rest - 1) {
                uint32_t l = (uint32_t)__builtin_ctz(rest);
                leaf_quads8(view, &tests[l], &n, false, &best[l]);
            }
            continue;
        }
        if (n.axis == VXK_KD_LEAF) {
            for (uint32_t k = 0; k < n.child; ++k) {
                uint32_t slot;
                uint32_t prim = VXK_KD_NO_PRIMITIVE;
                for (uint32_t rest = m; rest; rest &= rest - 1) {
                    uint32_t l = (uint32_t)__builtin_ctz(rest);
                    float t, u, v;
                    if (!test_prim(view, q16, &tests[l], &n, k, best[l].t, &t, &u, &v))
                        continue;
                    if (prim == VXK_KD_NO_PRIMITIVE)
                        prim = leaf_prim(view, q16, &n, k, &slot);
                    if (kd_better(t, prim, &best[l]))
                        best[l] = (vxk_kdtree_hit){t, u, v, prim};
                }
            }
            continue;
        }
        kd_packet_entry child[2] = {{n.child, 0, {0}, {0}}, {n.child + 1, 0, {0}, {0}}};
        bool right_first = false;
        for (uint32_t rest = m; rest; rest &= rest - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(rest);
            kd_children c = kd_split(&lane[l], &n, e.tmin[l], seg_max[l]);
            // the first live lane's near child is taken first
            if (rest == m)
                right_first = c.near;
            uint32_t far = c.near ^ 1u;
            child[c.near].mask |= (uint32_t)c.reach_near << l;
            child[c.near].tmin[l] = e.tmin[l];
            child[c.near].tmax[l] = c.near_max;
            child[far].mask |= (uint32_t)c.reach_far << l;
            child[far].tmin[l] = c.far_min;
            child[far].tmax[l] = seg_max[l];
        }
        uint32_t later = right_first ? 0u : 1u, sooner = later ^ 1u;
        if (child[later].mask)
            stack[sp++] = child[later];
        if (child[sooner].mask)
            stack[sp++] = child[sooner];
    }
    uint32_t found = 0;
    for (uint32_t l = 0; l < 8; ++l) {
        if (!((lanes >> l) & 1u))
            continue;
        hits[l] = best[l];
        found |= (best[l].primitive != VXK_KD_NO_PRIMITIVE) << l;
    }
    return found;
}

// A query visits a small tree's nodes and leaves in an order it cannot predict: request the start
// of each array it reads (up to 16 cache lines; a chunk's arrays are mostly smaller) at once
// rather than missing line after line. The float tree's nodes, indices and vertices are three
// allocations, so its misses would come as a chain of three; requested together they overlap with
// each other and with the ray's setup. (512 bytes measured 3-5 % slower on bench_kd's rays.)
#define KD_PREFETCH_BYTES 1024u

VXK_PREFETCH_INLINE void prefetch_tree(const vxk_kdtree* t)
{
    vxk_prefetch_span(t->nodes, (size_t)t->node_count * sizeof(vxk_kdtree_node), KD_PREFETCH_BYTES);
    vxk_prefetch_span(t->indices, (size_t)t->primitive_count * t->corners * sizeof(uint32_t),
                      KD_PREFETCH_BYTES);
    vxk_prefetch_span(t->vertices, (size_t)t->vertex_count * sizeof(vxk_vec3), KD_PREFETCH_BYTES);
}

// Instantiates a traversal for a compile-time corner count: the view is a local whose corners
// field is set to a constant just before the (inlined) call, so each branch compiles to code
// specialised for triangles or quads.
#define KD_BY_CORNERS(view, call) \
    ((view).corners == 4 ? ((view).corners = 4, (call)) : ((view).corners = 3, (call)))

static kd_view view_of(const vxk_kdtree* tree)
{
    kd_view v; // every field set one by one (no memset on the query path)
    v.nodes = tree->nodes;
    v.vertices = tree->vertices;
    v.indices = tree->indices;
    v.nodes16 = NULL;
    v.qvertices = NULL;
    v.qindices = NULL;
    v.qids = NULL;
    v.id_bits = v.count_bias = 0;
    for (int a = 0; a < 3; ++a)
        v.origin[a] = v.step[a] = 0.0f;
    v.corners = tree->corners;
    v.depth = tree->depth;
    v.primitive_count = tree->primitive_count;
    v.bounds = tree->bounds;
    return v;
}

size_t vxk_kdtree_query_scratch_size(const vxk_kdtree* tree)
{
    return tree ? ((size_t)tree->depth + 1) * sizeof(kd_ray_entry) : 0;
}

uint32_t vxk_kdtree_query_aabb(const vxk_kdtree* tree, uint32_t* out, uint32_t capacity,
                               const vxk_aabb* box, void* scratch)
{
    if (!tree || !tree->nodes || (!out && capacity))
        return 0;
    prefetch_tree(tree);
    kd_view view = view_of(tree);
    return KD_BY_CORNERS(view, query_aabb(&view, false, out, capacity, box, scratch));
}

// A query without a tree: a miss (a closest-hit query writes the miss).
static bool no_tree(vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray)
{
    if (hit)
        *hit = (vxk_kdtree_hit){ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
    return false;
}

// The float tree's closest-hit and any-hit queries, each its own function with the traversal
// specialised for the corner count (one function holding all four was too large for GCC to
// inline the vector helpers into: any-hit queries ran at half speed).
static bool float_raycast(const vxk_kdtree* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                          const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return no_tree(hit, ray);
    prefetch_tree(tree);
    kd_view view = view_of(tree);
    return KD_BY_CORNERS(view, raycast(&view, false, hit, ray, frame, false, scratch));
}

static bool float_raycast_any(const vxk_kdtree* tree, const vxk_kdtree_ray* ray,
                              const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return false;
    prefetch_tree(tree);
    kd_view view = view_of(tree);
    return KD_BY_CORNERS(view, raycast(&view, false, NULL, ray, frame, true, scratch));
}

bool vxk_kdtree_raycast_framed(const vxk_kdtree* tree, vxk_kdtree_hit* hit,
                               const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any,
                               void* scratch)
{
    return any ? float_raycast_any(tree, ray, frame, scratch)
               : float_raycast(tree, hit, ray, frame, scratch);
}

bool vxk_kdtree_raycast(const vxk_kdtree* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                        void* scratch)
{
    return float_raycast(tree, hit, ray, NULL, scratch);
}

bool vxk_kdtree_raycast_any(const vxk_kdtree* tree, const vxk_kdtree_ray* ray, void* scratch)
{
    return float_raycast_any(tree, ray, NULL, scratch);
}

// ---- validation ------------------------------------------------------------------------------

typedef struct kd_constraint {
    uint32_t axis;
    bool left;
    float bound;
} kd_constraint;

static vxk_status validate_view(const kd_view* view, bool q16, uint32_t node_count,
                                uint32_t stored_depth)
{
    uint32_t n = view->primitive_count;
    uint32_t leaf_max =
        q16 ? (view->corners == 4 ? VXK_KD16_QUAD_LEAF_MAX : 3u + view->count_bias) : 2u;
    if (node_count == 0)
        return VXK_ERR_MALFORMED;
    uint8_t* seen = (uint8_t*)vxk_calloc(n + (size_t)node_count);
    if (!seen)
        return VXK_ERR_OUT_OF_MEMORY;
    uint8_t* visited = seen + n;
    typedef struct {
        uint32_t node, depth;
        kd_constraint from_parent;
    } entry;
    entry stack[VXK_KD_MAX_DEPTH + 2];
    kd_constraint path[VXK_KD_MAX_DEPTH + 1];
    uint32_t sp = 0, max_depth = 0;
    vxk_status status = VXK_OK;
    vxk_aabb tight = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    stack[sp++] = (entry){0, 0, {0, false, 0.0f}};
    while (sp && status == VXK_OK) {
        entry e = stack[--sp];
        if (e.node >= node_count || visited[e.node] || e.depth > VXK_KD_MAX_DEPTH) {
            status = VXK_ERR_MALFORMED;
            break;
        }
        visited[e.node] = 1;
        if (e.depth > 0)
            path[e.depth - 1] = e.from_parent;
        max_depth = VXK_MAX(max_depth, e.depth);
        kd_decoded d = decode(view, q16, e.node);
        if (d.axis != VXK_KD_LEAF) {
            if (d.child <= e.node || d.child + 1 >= node_count || sp + 2 > VXK_KD_MAX_DEPTH + 2) {
                status = VXK_ERR_MALFORMED;
                break;
            }
            stack[sp++] = (entry){d.child + 1, e.depth + 1, {d.axis, false, d.s1}};
            stack[sp++] = (entry){d.child, e.depth + 1, {d.axis, true, d.s0}};
            continue;
        }
        if (d.child > leaf_max || (d.child == 0 && n > 0) ||
            (slotted(view, q16) && (uint64_t)d.p[0] + d.child > n)) {
            status = VXK_ERR_MALFORMED;
            break;
        }
        if (slotted(view, q16) && d.p[1] > 1) {
            status = VXK_ERR_MALFORMED;
            break;
        }
        for (uint32_t k = 0; k < d.child && status == VXK_OK; ++k) {
            uint32_t slot, prim = leaf_prim(view, q16, &d, k, &slot);
            if (prim >= n || seen[prim]) {
                status = VXK_ERR_MALFORMED;
                break;
            }
            if (slotted(view, q16) && d.p[1]) { // flagged: every quad a rectangle
                vxk_vec3 corners[4];
                for (uint32_t c = 0; c < 4; ++c)
                    corners[c] = fetch_vertex(view, q16, &d, k, c);
                if (!quad_rect(corners)) {
                    status = VXK_ERR_MALFORMED;
                    break;
                }
            }
            seen[prim] = 1;
            float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
            for (uint32_t c = 0; c < view->corners; ++c) {
                vxk_vec3 w = fetch_vertex(view, q16, &d, k, c);
                for (uint32_t a = 0; a < 3; ++a) {
                    float x = vec_axis(&w, a);
                    lo[a] = VXK_MIN(lo[a], x);
                    hi[a] = VXK_MAX(hi[a], x);
                }
            }
            tight.min.x = VXK_MIN(tight.min.x, lo[0]);
            tight.min.y = VXK_MIN(tight.min.y, lo[1]);
            tight.min.z = VXK_MIN(tight.min.z, lo[2]);
            tight.max.x = VXK_MAX(tight.max.x, hi[0]);
            tight.max.y = VXK_MAX(tight.max.y, hi[1]);
            tight.max.z = VXK_MAX(tight.max.z, hi[2]);
            for (uint32_t level = 0; level < e.depth; ++level) {
                kd_constraint cst = path[level];
                if (cst.left ? hi[cst.axis] > cst.bound : lo[cst.axis] < cst.bound) {
                    status = VXK_ERR_MALFORMED;
                    break;
                }
            }
        }
    }
    if (status == VXK_OK) {
        for (uint32_t i = 0; i < n; ++i)
            if (!seen[i])
                status = VXK_ERR_MALFORMED;
        if (max_depth != stored_depth)
            status = VXK_ERR_MALFORMED;
        if (n > 0 && memcmp(&tight, &view->bounds, sizeof(tight)) != 0)
            status = VXK_ERR_MALFORMED;
    }
    vxk_free(seen, n + (size_t)node_count);
    return status;
}

vxk_status vxk_kdtree_validate(const vxk_kdtree* tree)
{
    if (!tree || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    kd_view view = view_of(tree);
    return validate_view(&view, false, tree->node_count, tree->depth);
}

// ---- 16-bit quantized tree ---------------------------------------------------------------------

// Triangle leaves pack a 2-bit count and the primitive indices into 46 bits: 4 indices of 11 bits
// (count - 1 stored) for 1..2048 triangles, else 3 of 14 bits (count stored).
static void tri_leaf_format(uint32_t n, uint32_t* id_bits, uint32_t* count_bias)
{
    bool narrow = n > 0 && n <= 2048;
    *id_bits = narrow ? 11u : 14u;
    *count_bias = narrow ? 1u : 0u;
}

static kd_view view_of16(const vxk_kdtree16* tree)
{
    // every field set one by one: a memset of the view costs more than a whole ray test
    kd_view v;
    v.nodes = NULL;
    v.vertices = NULL;
    v.indices = NULL;
    v.nodes16 = tree->nodes;
    v.qvertices = tree->vertices;
    v.qindices = tree->indices;
    v.qids = tree->ids;
    tri_leaf_format(tree->primitive_count, &v.id_bits, &v.count_bias);
    v.corners = tree->corners;
    v.depth = tree->depth;
    v.primitive_count = tree->primitive_count;
    v.origin[0] = tree->origin.x;
    v.origin[1] = tree->origin.y;
    v.origin[2] = tree->origin.z;
    v.step[0] = tree->step.x;
    v.step[1] = tree->step.y;
    v.step[2] = tree->step.z;
    v.bounds = tree->bounds;
    return v;
}

static inline float dequantize(float origin, float step, uint32_t q)
{
    return origin + (float)q * step;
}

static void sort_u64(uint64_t* a, uint32_t n)
{
    // shell sort (Ciura gaps): no recursion, no allocation, fast for chunk-sized inputs
    static const uint32_t gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); ++g) {
        uint32_t gap = gaps[g];
        for (uint32_t i = gap; i < n; ++i) {
            uint64_t v = a[i];
            uint32_t j = i;
            while (j >= gap && a[j - gap] > v) {
                a[j] = a[j - gap];
                j -= gap;
            }
            a[j] = v;
        }
    }
}

// The finest power-of-two step that spans [origin, hi] in 65535 steps.
static float pick_step(float origin, float hi)
{
    double extent = (double)hi - (double)origin;
    int k = 16;
    while (k > -140 && extent > 65535.0 * ldexp(1.0, -k))
        --k;
    return (float)ldexp(1.0, -k);
}

static size_t block(size_t bytes)
{
    return bytes ? bytes : 1;
}

static size_t ids_bytes(const vxk_kdtree16* tree)
{
    return tree->ids ? (size_t)tree->primitive_count * sizeof(uint16_t) : 0;
}

static size_t qindex_bytes(const vxk_kdtree16* tree)
{
    return tree->indices ? (size_t)tree->primitive_count * tree->corners * sizeof(uint16_t) : 0;
}

// Bytes after a quad tree's slot ids: the leaf test's vector loads read 16 bytes from each
// coordinate row, up to 14 bytes past the geometry.
#define KD16_PAD 16u

// Everything a quantized tree owns lives in one block: nodes, vertices, indices or slot ids (and
// the quad tree's padding).
static size_t block16_bytes(const vxk_kdtree16* t)
{
    return (size_t)t->node_count * sizeof(vxk_kdtree16_node) +
           (size_t)t->vertex_count * 3 * sizeof(uint16_t) + qindex_bytes(t) + ids_bytes(t) +
           (t->ids ? KD16_PAD : 0);
}

static void free16(vxk_kdtree16* t)
{
    if (t->nodes)
        vxk_free(t->nodes, block(block16_bytes(t)));
    memset(t, 0, sizeof(*t));
}

static uint16_t quantize(float x, float origin, float step)
{
    double q = floor(((double)x - (double)origin) / (double)step + 0.5);
    q = q < 0.0 ? 0.0 : (q > 65535.0 ? 65535.0 : q);
    return (uint16_t)q;
}

// Triangles: welded uint16 vertices into qv (3 * mesh->vertex_count capacity; *unique_out used)
// and uint16 indices in the mesh's order into qi. Fills deq (the dequantized welded vertices) and
// windices (the welded indices as uint32) for the builder.
static vxk_status quantize_triangles(uint16_t* qv, uint16_t* qi, uint32_t* unique_out,
                                     const vxk_mesh* mesh, const float* origin, const float* step,
                                     vxk_vec3* deq, uint32_t* windices)
{
    uint32_t nv = mesh->vertex_count;
    size_t index_count = (size_t)mesh->primitive_count * 3;
    size_t nv1 = nv ? nv : 1;
    uint32_t* remap = (uint32_t*)vxk_alloc(nv1 * sizeof(uint32_t));
    uint64_t* keys = (uint64_t*)vxk_alloc(nv1 * sizeof(uint64_t));
    if (!remap || !keys) {
        vxk_free(remap, nv1 * sizeof(uint32_t));
        vxk_free(keys, nv1 * sizeof(uint64_t));
        return VXK_ERR_OUT_OF_MEMORY;
    }
    // weld vertices that quantize to the same grid point (meshers emit four corners per quad):
    // sort (position, id) keys; each run of equal positions becomes one vertex
    for (uint32_t i = 0; i < nv; ++i) {
        vxk_vec3 p = mesh->vertices[i];
        uint64_t qx = quantize(p.x, origin[0], step[0]), qy = quantize(p.y, origin[1], step[1]);
        uint64_t qz = quantize(p.z, origin[2], step[2]);
        keys[i] = (qz << 48) | (qy << 32) | (qx << 16) | i;
    }
    sort_u64(keys, nv);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < nv; ++k) {
        if (k == 0 || (keys[k] >> 16) != (keys[k - 1] >> 16)) {
            uint64_t pos = keys[k] >> 16;
            uint16_t* q = qv + 3 * (size_t)unique;
            q[0] = (uint16_t)pos;
            q[1] = (uint16_t)(pos >> 16);
            q[2] = (uint16_t)(pos >> 32);
            deq[unique] = (vxk_vec3){dequantize(origin[0], step[0], q[0]),
                                     dequantize(origin[1], step[1], q[1]),
                                     dequantize(origin[2], step[2], q[2])};
            ++unique;
        }
        remap[keys[k] & 0xFFFFu] = unique - 1;
    }
    vxk_free(keys, nv1 * sizeof(uint64_t));
    for (size_t i = 0; i < index_count; ++i) {
        qi[i] = (uint16_t)remap[mesh->indices[i]];
        windices[i] = qi[i];
    }
    vxk_free(remap, nv1 * sizeof(uint32_t));
    *unique_out = unique;
    return VXK_OK;
}

// Quads: the parallelogram corners v0, v1, v3 of each quad quantized into g (9 per primitive, in
// the mesh's order); deq gets all four dequantized corners (v2 = v1 + (v3 - v0)) and windices the
// identity, for the builder.
static void quantize_quads(uint16_t* g, const vxk_mesh* mesh, const float* origin,
                           const float* step, vxk_vec3* deq, uint32_t* windices)
{
    static const uint32_t stored[3] = {0, 1, 3};
    for (uint32_t p = 0; p < mesh->primitive_count; ++p) {
        vxk_vec3 w[3];
        for (int c = 0; c < 3; ++c) {
            vxk_vec3 v = mesh->vertices[mesh->indices[4 * (size_t)p + stored[c]]];
            uint16_t* q = g + 9 * (size_t)p + 3 * c;
            q[0] = quantize(v.x, origin[0], step[0]);
            q[1] = quantize(v.y, origin[1], step[1]);
            q[2] = quantize(v.z, origin[2], step[2]);
            w[c] = (vxk_vec3){dequantize(origin[0], step[0], q[0]),
                              dequantize(origin[1], step[1], q[1]),
                              dequantize(origin[2], step[2], q[2])};
        }
        vxk_vec3* d = deq + 4 * (size_t)p;
        d[0] = w[0];
        d[1] = w[1];
        d[2] = quad_corner2(w[0], w[1], w[2]);
        d[3] = w[2];
        for (uint32_t c = 0; c < 4; ++c)
            windices[4 * (size_t)p + c] = 4 * p + c;
    }
}

// The quantized node of a built float node; leaves come as slot ranges of `order`.
static vxk_kdtree16_node to_node16(vxk_kdtree_node src, const uint32_t* order, bool quads,
                                   uint32_t id_bits, uint32_t count_bias, const float* origin,
                                   const float* step)
{
    vxk_kdtree16_node dst;
    uint32_t axis = src.info & KD_AXIS_MASK;
    if (axis == VXK_KD_LEAF) {
        uint32_t count = src.info >> KD_SHIFT, first = src.primitives[0];
        if (quads) {
            dst.a = (uint16_t)first;
            dst.b = 0;
            dst.info = (uint16_t)(VXK_KD_LEAF | (count << KD_SHIFT));
            return dst;
        }
        VXK_ASSERT(count >= count_bias && count - count_bias <= 3);
        uint64_t bits = count - count_bias;
        for (uint32_t k = 0; k < count; ++k)
            bits |= (uint64_t)order[first + k] << (2 + id_bits * k);
        dst.a = (uint16_t)bits;
        dst.b = (uint16_t)(bits >> 16);
        dst.info = (uint16_t)(VXK_KD_LEAF | ((bits >> 32) << KD_SHIFT));
        return dst;
    }
    uint32_t child = src.info >> KD_SHIFT;
    VXK_ASSERT(child % 2 == 1 && (child - 1) / 2 < (1u << 14));
    float o = origin[axis], s = step[axis];
    // round outward: the left plane up, the right plane down, so the tree stays loose-correct
    double q0 = ceil(((double)src.splits[0] - o) / s);
    double q1 = floor(((double)src.splits[1] - o) / s);
    q0 = q0 < 0.0 ? 0.0 : (q0 > 65535.0 ? 65535.0 : q0);
    q1 = q1 < 0.0 ? 0.0 : (q1 > 65535.0 ? 65535.0 : q1);
    uint32_t a0 = (uint32_t)q0, a1 = (uint32_t)q1;
    while (a0 < 65535 && dequantize(o, s, a0) < src.splits[0])
        ++a0;
    while (a1 > 0 && dequantize(o, s, a1) > src.splits[1])
        --a1;
    dst.a = (uint16_t)a0;
    dst.b = (uint16_t)a1;
    dst.info = (uint16_t)(axis | (((child - 1) / 2) << KD_SHIFT));
    return dst;
}

vxk_status vxk_kdtree16_build(vxk_kdtree16* tree, const vxk_mesh* mesh, void* scratch,
                              size_t scratch_size)
{
    if (!tree)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_mesh(mesh);
    if (status != VXK_OK)
        return status;
    // quads keep copies of their corners, so only triangles index vertices with uint16
    if (mesh->primitive_count > VXK_KD16_MAX_PRIMITIVES ||
        (mesh->corners == 3 && mesh->vertex_count > VXK_KD16_MAX_VERTICES))
        return VXK_ERR_UNSUPPORTED;
    uint32_t n = mesh->primitive_count, corners = mesh->corners;
    bool quads = corners == 4;
    uint32_t id_bits, count_bias;
    tri_leaf_format(n, &id_bits, &count_bias);
    size_t need = vxk_kdtree_build_scratch_size(n);
    if (scratch && (scratch_size < need || ((uintptr_t)scratch & 7u)))
        return VXK_ERR_CAPACITY;
    vxk_kdtree16 built;
    memset(&built, 0, sizeof(built));
    built.primitive_count = n;
    built.corners = corners;

    // grid: per-axis integer origin below the stored corners, power-of-two step
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    bool any = false;
    for (size_t i = 0; i < (size_t)n * corners; ++i) {
        if (quads && i % 4 == 2) // v2 is derived, not stored
            continue;
        vxk_vec3 p = mesh->vertices[mesh->indices[i]];
        float pa[3] = {p.x, p.y, p.z};
        for (int a = 0; a < 3; ++a) {
            lo[a] = !any || pa[a] < lo[a] ? pa[a] : lo[a];
            hi[a] = !any || pa[a] > hi[a] ? pa[a] : hi[a];
        }
        any = true;
    }
    float origin[3], step[3];
    for (int a = 0; a < 3; ++a) {
        origin[a] = floorf(lo[a]);
        step[a] = pick_step(origin[a], hi[a]);
    }
    built.origin = (vxk_vec3){origin[0], origin[1], origin[2]};
    built.step = (vxk_vec3){step[0], step[1], step[2]};

    // builder inputs: dequantized corners and uint32 indices into them
    size_t deq_count = quads ? 4 * (size_t)n : mesh->vertex_count;
    size_t deq_bytes = block(deq_count * sizeof(vxk_vec3));
    size_t win_bytes = block((size_t)n * corners * sizeof(uint32_t));
    size_t geo_bytes = block(9 * (size_t)n * sizeof(uint16_t));
    vxk_vec3* deq = (vxk_vec3*)vxk_alloc(deq_bytes);
    uint32_t* windices = (uint32_t*)vxk_alloc(win_bytes);
    // quads: 9 coordinates per quad; triangles: the vertices, then the indices
    size_t tv_count = quads ? 0 : 3 * (size_t)mesh->vertex_count;
    if (!quads)
        geo_bytes = block((tv_count + 3 * (size_t)n) * sizeof(uint16_t));
    uint16_t* geo = (uint16_t*)vxk_alloc(geo_bytes);
    void* owned = scratch ? NULL : vxk_alloc(block(need));
    vxk_kdtree_node* work = (vxk_kdtree_node*)(scratch ? scratch : owned);
    status = deq && windices && geo && work ? VXK_OK : VXK_ERR_OUT_OF_MEMORY;
    uint32_t unique = 0;
    if (status == VXK_OK) {
        if (quads)
            quantize_quads(geo, mesh, origin, step, deq, windices);
        else
            status =
                quantize_triangles(geo, geo + tv_count, &unique, mesh, origin, step, deq, windices);
    }
    uint32_t capacity = n > 1 ? 2 * n - 1 : 1;
    uint32_t* order = (uint32_t*)(work + capacity);
    uint32_t node_count = 0;
    if (status == VXK_OK) {
        node_count = build_nodes(work, deq, windices, n, corners, order,
                                 quads ? VXK_KD16_QUAD_LEAF_MAX : 3u + count_bias, true,
                                 &built.depth, &built.bounds);
        // one block (nodes, then geometry), so a ray reads one contiguous stretch of memory
        size_t nb = (size_t)node_count * sizeof(vxk_kdtree16_node);
        size_t vb = (size_t)(quads ? 3 * n : unique) * 3 * sizeof(uint16_t);
        size_t rest = (size_t)n * (quads ? 1 : 3) * sizeof(uint16_t);
        uint8_t* mem = (uint8_t*)vxk_alloc(block(nb + vb + rest + (quads ? KD16_PAD : 0)));
        if (!mem) {
            status = VXK_ERR_OUT_OF_MEMORY;
        } else {
            built.nodes = (vxk_kdtree16_node*)mem;
            built.node_count = node_count;
            built.vertices = (uint16_t*)(mem + nb);
            built.vertex_count = quads ? 3 * n : unique;
            for (uint32_t i = 0; i < node_count; ++i)
                built.nodes[i] =
                    to_node16(work[i], order, quads, id_bits, count_bias, origin, step);
            if (quads) { // geometry and quad index in leaf order: a leaf is contiguous
                built.ids = (uint16_t*)(mem + nb + vb);
                for (uint32_t slot = 0; slot < n; ++slot)
                    built.ids[slot] = (uint16_t)order[slot];
                // each leaf's 9 coordinate rows (see fetch_vertex)
                for (uint32_t i = 0; i < node_count; ++i) {
                    if ((work[i].info & KD_AXIS_MASK) != VXK_KD_LEAF)
                        continue;
                    uint32_t first = work[i].primitives[0], w = work[i].info >> KD_SHIFT;
                    uint16_t* rows = built.vertices + 9 * (size_t)first;
                    bool rects = true;
                    for (uint32_t k = 0; k < w; ++k) {
                        for (uint32_t j = 0; j < 9; ++j)
                            rows[j * w + k] = geo[9 * (size_t)order[first + k] + j];
                        rects &= quad_rect(deq + 4 * (size_t)order[first + k]);
                    }
                    built.nodes[i].b = rects ? 1u : 0u;
                }
                memset(mem + nb + vb + rest, 0, KD16_PAD);
            } else {
                built.indices = (uint16_t*)(mem + nb + vb);
                memcpy(built.vertices, geo, vb);
                memcpy(built.indices, geo + tv_count, rest);
            }
            VXK_ASSERT(block16_bytes(&built) == nb + vb + rest + (quads ? KD16_PAD : 0));
        }
    }
    vxk_free(deq, deq_bytes);
    vxk_free(windices, win_bytes);
    vxk_free(geo, geo_bytes);
    if (owned)
        vxk_free(owned, block(need));
    if (status != VXK_OK)
        return status;
    *tree = built;
    return VXK_OK;
}

void vxk_kdtree16_free(vxk_kdtree16* tree)
{
    if (tree)
        free16(tree);
}

size_t vxk_kdtree16_bytes(const vxk_kdtree16* tree)
{
    return tree ? (size_t)tree->node_count * sizeof(vxk_kdtree16_node) : 0;
}

size_t vxk_kdtree16_total_bytes(const vxk_kdtree16* tree)
{
    if (!tree)
        return 0;
    return block16_bytes(tree);
}

vxk_status vxk_kdtree16_dequantize(const vxk_kdtree16* tree, vxk_mesh* out)
{
    if (!tree || !out || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    bool quads = tree->corners == 4;
    size_t index_count = (size_t)tree->primitive_count * tree->corners;
    vxk_mesh m;
    memset(&m, 0, sizeof(m));
    m.vertex_count = quads ? (uint32_t)index_count : tree->vertex_count;
    m.primitive_count = tree->primitive_count;
    m.corners = tree->corners;
    m.vertices = (vxk_vec3*)vxk_alloc((size_t)m.vertex_count * sizeof(vxk_vec3));
    m.indices = (uint32_t*)vxk_alloc(index_count * sizeof(uint32_t));
    if ((m.vertex_count && !m.vertices) || (index_count && !m.indices)) {
        vxk_mesh_free(&m);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    if (quads) { // four corners per quad in primitive order, leaf after leaf
        kd_view view = view_of16(tree);
        for (uint32_t i = 0; i < tree->node_count; ++i) {
            kd_decoded d = decode(&view, true, i);
            if (d.axis != VXK_KD_LEAF)
                continue;
            for (uint32_t k = 0; k < d.child; ++k) {
                uint32_t p = tree->ids[d.p[0] + k];
                for (uint32_t c = 0; c < 4; ++c) {
                    m.vertices[4 * (size_t)p + c] = fetch_vertex(&view, true, &d, k, c);
                    m.indices[4 * (size_t)p + c] = 4 * p + c;
                }
            }
        }
        *out = m;
        return VXK_OK;
    }
    for (uint32_t i = 0; i < tree->vertex_count; ++i) {
        const uint16_t* q = tree->vertices + 3 * (size_t)i;
        m.vertices[i] = (vxk_vec3){dequantize(tree->origin.x, tree->step.x, q[0]),
                                   dequantize(tree->origin.y, tree->step.y, q[1]),
                                   dequantize(tree->origin.z, tree->step.z, q[2])};
    }
    for (size_t i = 0; i < index_count; ++i)
        m.indices[i] = tree->indices[i];
    *out = m;
    return VXK_OK;
}

VXK_PREFETCH_INLINE void prefetch16(const vxk_kdtree16* t)
{
    vxk_prefetch_span(t->nodes, block16_bytes(t), KD_PREFETCH_BYTES);
}

size_t vxk_kdtree16_query_scratch_size(const vxk_kdtree16* tree)
{
    return tree ? ((size_t)tree->depth + 1) * sizeof(kd_ray_entry) : 0;
}

uint32_t vxk_kdtree16_query_aabb(const vxk_kdtree16* tree, uint32_t* out, uint32_t capacity,
                                 const vxk_aabb* box, void* scratch)
{
    if (!tree || !tree->nodes || (!out && capacity))
        return 0;
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, query_aabb(&view, true, out, capacity, box, scratch));
}

// The quantized tree's queries, as float_raycast and float_raycast_any.
static bool q16_raycast(const vxk_kdtree16* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                        const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return no_tree(hit, ray);
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, raycast(&view, true, hit, ray, frame, false, scratch));
}

static bool q16_raycast_any(const vxk_kdtree16* tree, const vxk_kdtree_ray* ray,
                            const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return false;
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, raycast(&view, true, NULL, ray, frame, true, scratch));
}

bool vxk_kdtree16_raycast_framed(const vxk_kdtree16* tree, vxk_kdtree_hit* hit,
                                 const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any,
                                 void* scratch)
{
    return any ? q16_raycast_any(tree, ray, frame, scratch)
               : q16_raycast(tree, hit, ray, frame, scratch);
}

bool vxk_kdtree16_raycast(const vxk_kdtree16* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                          void* scratch)
{
    return q16_raycast(tree, hit, ray, NULL, scratch);
}

uint32_t vxk_kdtree16_raycast8(const vxk_kdtree16* tree, vxk_kdtree_hit hits[8],
                               const vxk_kdtree_ray rays[8], uint32_t lanes)
{
    lanes &= 0xFFu;
    if (!hits || !rays || !lanes)
        return 0;
    if (!tree || !tree->nodes) {
        for (uint32_t l = 0; l < 8; ++l)
            if ((lanes >> l) & 1u)
                hits[l] = (vxk_kdtree_hit){rays[l].tmax, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
        return 0;
    }
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, raycast8(&view, true, hits, rays, lanes));
}

bool vxk_kdtree16_raycast_any(const vxk_kdtree16* tree, const vxk_kdtree_ray* ray, void* scratch)
{
    return q16_raycast_any(tree, ray, NULL, scratch);
}

vxk_status vxk_kdtree16_validate(const vxk_kdtree16* tree)
{
    if (!tree || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    kd_view view = view_of16(tree);
    return validate_view(&view, true, tree->node_count, tree->depth);
}
