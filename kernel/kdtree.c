// kdtree.c: the loose kD tree of seed 000 (Roblox terrain physics, "Loose kD tree"): build by
// longest axis and mean centroid with a 25% median fallback, stackless AABB and front-to-back ray
// traversal with segment clipping; triangles and quads; a 16-bit quantized variant.
#include <vxk/kdtree.h>

#include "core.h"

#include <float.h>
#include <math.h>

_Static_assert(sizeof(vxk_kd_node) == 12, "the kD node is 12 bytes (seed 000)");
_Static_assert(sizeof(vxk_kd_node16) == 6, "the quantized kD node is 6 bytes");
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

// Moller-Trumbore on the edges e1 = p1 - p0, e2 = p2 - p0; quad: u and v each in [0, 1].
static inline __attribute__((always_inline)) bool intersect_mt(const vxk_kd_ray* ray, vxk_vec3 p0,
                                                               vxk_vec3 p1, vxk_vec3 p2,
                                bool quad, float tmax, float* t_out, float* u_out, float* v_out)
{
    vxk_vec3 e1 = v_sub(p1, p0), e2 = v_sub(p2, p0);
    vxk_vec3 p = v_cross(ray->dir, e2);
    float det = v_dot(e1, p);
    // det = dir . (e1 x e2): reject when it vanishes relative to |dir| |e1| |e2| (a degenerate
    // primitive or a ray in its plane), where u, v and t would be rounding noise
    double scale = (double)v_dot(ray->dir, ray->dir) * (double)v_dot(e1, e1) *
                   (double)v_dot(e2, e2);
    if (!((double)det * (double)det > 1e-12 * scale))
        return false;
    float inv = 1.0f / det;
    vxk_vec3 s = v_sub(ray->origin, p0);
    float u = v_dot(s, p) * inv;
    if (!(u >= 0.0f && u <= 1.0f))
        return false;
    vxk_vec3 q = v_cross(s, e1);
    float v = v_dot(ray->dir, q) * inv;
    if (!(v >= 0.0f && (quad ? v <= 1.0f : u + v <= 1.0f)))
        return false;
    float t = v_dot(e2, q) * inv;
    if (!(t >= 0.0f && t <= tmax))
        return false;
    *t_out = t;
    *u_out = u;
    *v_out = v;
    return true;
}

bool vxk_kd_intersect_triangle(const vxk_kd_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v2,
                               float tmax, float* t, float* u, float* v)
{
    return intersect_mt(ray, v0, v1, v2, false, tmax, t, u, v);
}

bool vxk_kd_intersect_quad(const vxk_kd_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v3,
                           float tmax, float* t, float* u, float* v)
{
    return intersect_mt(ray, v0, v1, v3, true, tmax, t, u, v);
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
    size_t index_count = (size_t)mesh->primitive_count * mesh->corners;
    for (size_t i = 0; i < index_count; ++i)
        if (mesh->indices[i] >= mesh->vertex_count)
            return VXK_ERR_OUT_OF_RANGE;
    for (uint32_t i = 0; i < mesh->vertex_count; ++i)
        if (!vxk_vec3_is_finite(mesh->vertices[i]))
            return VXK_ERR_NOT_FINITE;
    return VXK_OK;
}

size_t vxk_kdtree_build_scratch_size(uint32_t primitive_count)
{
    // nodes under construction (2n - 1 at most), then primitive order + centroid[3] + bmin[3] +
    // bmax[3], structure of arrays
    size_t nodes = primitive_count > 1 ? 2 * (size_t)primitive_count - 1 : 1;
    return nodes * sizeof(vxk_kd_node) +
           (size_t)primitive_count * (sizeof(uint32_t) + 9 * sizeof(float));
}

typedef struct build_task {
    uint32_t node, begin, end, depth;
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

// Builds into nodes (capacity 2n - 1, at least 1); returns the node count and the depth.
static uint32_t build_nodes(vxk_kd_node* nodes, const vxk_vec3* vertices, const uint32_t* indices,
                            uint32_t n, uint32_t corners, void* scratch, uint32_t* depth_out,
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
    float scale = 1.0f / (float)corners;
    vxk_aabb all = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
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
            ctx.bmin[a][i] = lo[a];
            ctx.bmax[a][i] = hi[a];
            ctx.centroid[a][i] = sum[a] * scale;
        }
        all.min.x = VXK_MIN(all.min.x, lo[0]);
        all.min.y = VXK_MIN(all.min.y, lo[1]);
        all.min.z = VXK_MIN(all.min.z, lo[2]);
        all.max.x = VXK_MAX(all.max.x, hi[0]);
        all.max.y = VXK_MAX(all.max.y, hi[1]);
        all.max.z = VXK_MAX(all.max.z, hi[2]);
        ctx.order[i] = i;
    }
    *bounds_out = all;

    build_task stack[VXK_KD_MAX_DEPTH + 2];
    uint32_t sp = 0, node_count = 1, depth = 0;
    stack[sp++] = (build_task){0, 0, n, 0};
    uint32_t* order = ctx.order;
    while (sp) {
        build_task task = stack[--sp];
        uint32_t count = task.end - task.begin;
        vxk_kd_node* node = &nodes[task.node];
        if (task.depth > depth)
            depth = task.depth;
        if (count <= 2) {
            node->primitives[0] = count > 0 ? order[task.begin] : VXK_KD_NO_PRIMITIVE;
            node->primitives[1] = count > 1 ? order[task.begin + 1] : VXK_KD_NO_PRIMITIVE;
            node->info = VXK_KD_LEAF | (count << KD_SHIFT);
            continue;
        }
        // bounds of the node's primitives and centroid sum
        float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        float sum[3] = {0, 0, 0};
        for (uint32_t i = task.begin; i < task.end; ++i) {
            uint32_t p = order[i];
            for (int a = 0; a < 3; ++a) {
                lo[a] = ctx.bmin[a][p] < lo[a] ? ctx.bmin[a][p] : lo[a];
                hi[a] = ctx.bmax[a][p] > hi[a] ? ctx.bmax[a][p] : hi[a];
                sum[a] += ctx.centroid[a][p];
            }
        }
        float ex = hi[0] - lo[0], ey = hi[1] - lo[1], ez = hi[2] - lo[2];
        uint32_t axis = ex >= ey ? (ex >= ez ? 0 : 2) : (ey >= ez ? 1 : 2);
        const float* c = ctx.centroid[axis];
        float split = sum[axis] / (float)count;
        uint32_t i = task.begin, j = task.end;
        while (i < j) {
            if (c[order[i]] < split) {
                ++i;
            } else {
                --j;
                uint32_t tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
        }
        uint32_t left = i - task.begin;
        if (left * 4ull < count || (count - left) * 4ull < count) {
            left = count / 2;
            select_kth(order, c, task.begin, task.end, task.begin + left);
        }
        uint32_t mid = task.begin + left;
        const float* bmax = ctx.bmax[axis];
        const float* bmin = ctx.bmin[axis];
        float s0 = -FLT_MAX, s1 = FLT_MAX;
        for (uint32_t k = task.begin; k < mid; ++k)
            s0 = bmax[order[k]] > s0 ? bmax[order[k]] : s0;
        for (uint32_t k = mid; k < task.end; ++k)
            s1 = bmin[order[k]] < s1 ? bmin[order[k]] : s1;
        uint32_t child = node_count;
        node_count += 2;
        node->splits[0] = s0;
        node->splits[1] = s1;
        node->info = axis | (child << KD_SHIFT);
        VXK_ASSERT(sp + 2 <= VXK_KD_MAX_DEPTH + 2);
        stack[sp++] = (build_task){child + 1, mid, task.end, task.depth + 1};
        stack[sp++] = (build_task){child, task.begin, mid, task.depth + 1};
    }
    VXK_ASSERT(depth <= VXK_KD_MAX_DEPTH);
    *depth_out = depth;
    return node_count;
}

// Runs the builder with caller or owned scratch; returns nodes trimmed to size.
static vxk_status build_common(const vxk_vec3* vertices, const uint32_t* indices, uint32_t n,
                               uint32_t corners, void* scratch, size_t scratch_size,
                               vxk_kd_node** nodes_out, uint32_t* node_count_out,
                               uint32_t* depth_out, vxk_aabb* bounds_out)
{
    size_t need = vxk_kdtree_build_scratch_size(n);
    void* owned = NULL;
    if (scratch) {
        if (scratch_size < need || ((uintptr_t)scratch & 7u))
            return VXK_ERR_CAPACITY;
    } else if (need) {
        owned = vxk_alloc(need);
        if (!owned)
            return VXK_ERR_OUT_OF_MEMORY;
        scratch = owned;
    }
    // build in scratch, then one exact allocation: no trimming copy per chunk
    uint32_t capacity = n > 1 ? 2 * n - 1 : 1;
    vxk_kd_node* work = (vxk_kd_node*)scratch;
    uint32_t count = build_nodes(work, vertices, indices, n, corners, work + capacity, depth_out,
                                 bounds_out);
    vxk_kd_node* nodes = (vxk_kd_node*)vxk_alloc((size_t)count * sizeof(vxk_kd_node));
    if (nodes)
        memcpy(nodes, work, (size_t)count * sizeof(vxk_kd_node));
    vxk_free(owned, need);
    if (!nodes)
        return VXK_ERR_OUT_OF_MEMORY;
    *nodes_out = nodes;
    *node_count_out = count;
    return VXK_OK;
}

vxk_status vxk_kdtree_build(vxk_kdtree* tree, const vxk_mesh* mesh, void* scratch,
                            size_t scratch_size)
{
    if (!tree)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_mesh(mesh);
    if (status != VXK_OK)
        return status;
    vxk_kdtree built;
    memset(&built, 0, sizeof(built));
    status = build_common(mesh->vertices, mesh->indices, mesh->primitive_count, mesh->corners,
                          scratch, scratch_size, &built.nodes, &built.node_count, &built.depth,
                          &built.bounds);
    if (status != VXK_OK)
        return status;
    built.vertices = mesh->vertices;
    built.indices = mesh->indices;
    built.vertex_count = mesh->vertex_count;
    built.primitive_count = mesh->primitive_count;
    built.corners = mesh->corners;
    *tree = built;
    return VXK_OK;
}

void vxk_kdtree_free(vxk_kdtree* tree)
{
    if (!tree)
        return;
    vxk_free(tree->nodes, (size_t)tree->node_count * sizeof(vxk_kd_node));
    memset(tree, 0, sizeof(*tree));
}

size_t vxk_kdtree_bytes(const vxk_kdtree* tree)
{
    return tree ? (size_t)tree->node_count * sizeof(vxk_kd_node) : 0;
}

// ---- traversal, shared by the float and the quantized tree -------------------------------------

typedef struct kd_view {
    const vxk_kd_node* nodes;     // float tree, or
    const vxk_kd_node16* nodes16; // quantized tree
    const vxk_vec3* vertices;
    const uint16_t* qvertices;
    const uint32_t* indices;
    const uint16_t* qindices;
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
    uint32_t p0, p1; // leaf primitives
} kd_decoded;

static inline __attribute__((always_inline)) kd_decoded decode(const kd_view* view, bool q16,
                                                               uint32_t index)
{
    kd_decoded d;
    if (q16) {
        vxk_kd_node16 n = view->nodes16[index];
        d.axis = n.info & KD_AXIS_MASK;
        uint32_t payload = (uint32_t)n.info >> KD_SHIFT;
        if (d.axis == VXK_KD_LEAF) {
            d.child = payload;
            d.p0 = n.a;
            d.p1 = n.b;
            d.s0 = d.s1 = 0.0f;
        } else {
            d.child = 2 * payload + 1;
            d.s0 = view->origin[d.axis] + (float)n.a * view->step[d.axis];
            d.s1 = view->origin[d.axis] + (float)n.b * view->step[d.axis];
            d.p0 = d.p1 = 0;
        }
    } else {
        vxk_kd_node n = view->nodes[index];
        d.axis = n.info & KD_AXIS_MASK;
        d.child = n.info >> KD_SHIFT;
        d.s0 = n.splits[0];
        d.s1 = n.splits[1];
        d.p0 = n.primitives[0];
        d.p1 = n.primitives[1];
    }
    return d;
}

static inline __attribute__((always_inline)) vxk_vec3 fetch_vertex(const kd_view* view, bool q16,
                                                                   uint32_t prim, uint32_t corner)
{
    size_t slot = (size_t)prim * view->corners + corner;
    if (q16) {
        const uint16_t* q = view->qvertices + 3 * (size_t)view->qindices[slot];
        return (vxk_vec3){view->origin[0] + (float)q[0] * view->step[0],
                          view->origin[1] + (float)q[1] * view->step[1],
                          view->origin[2] + (float)q[2] * view->step[2]};
    }
    return view->vertices[view->indices[slot]];
}

static inline __attribute__((always_inline)) bool prim_overlaps(const kd_view* view, bool q16,
                                                                uint32_t prim, const float* lo,
                                                                const float* hi)
{
    vxk_vec3 v = fetch_vertex(view, q16, prim, 0);
    float pl[3] = {v.x, v.y, v.z}, ph[3] = {v.x, v.y, v.z};
    for (uint32_t c = 1; c < view->corners; ++c) {
        vxk_vec3 w = fetch_vertex(view, q16, prim, c);
        float wa[3] = {w.x, w.y, w.z};
        for (int a = 0; a < 3; ++a) {
            pl[a] = wa[a] < pl[a] ? wa[a] : pl[a];
            ph[a] = wa[a] > ph[a] ? wa[a] : ph[a];
        }
    }
    return pl[0] <= hi[0] && ph[0] >= lo[0] && pl[1] <= hi[1] && ph[1] >= lo[1] &&
           pl[2] <= hi[2] && ph[2] >= lo[2];
}

static inline __attribute__((always_inline)) uint32_t query_aabb(const kd_view* view, bool q16,
                                                                 uint32_t* out, uint32_t capacity,
                                                                 const vxk_aabb* box,
                                                                 void* scratch)
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
            if (d.child > 0 && prim_overlaps(view, q16, d.p0, lo, hi)) {
                if (found < capacity)
                    out[found] = d.p0;
                ++found;
            }
            if (d.child > 1 && prim_overlaps(view, q16, d.p1, lo, hi)) {
                if (found < capacity)
                    out[found] = d.p1;
                ++found;
            }
            continue;
        }
        if (d.s1 <= hi[d.axis])
            stack[sp++] = d.child + 1;
        if (d.s0 >= lo[d.axis])
            stack[sp++] = d.child;
    }
    return found;
}

static inline __attribute__((always_inline)) bool test_prim(const kd_view* view, bool q16,
                                                            const vxk_kd_ray* ray, uint32_t prim,
                                                            float tmax, float* t, float* u,
                                                            float* v)
{
    vxk_vec3 p0 = fetch_vertex(view, q16, prim, 0);
    vxk_vec3 p1 = fetch_vertex(view, q16, prim, 1);
    if (view->corners == 4) {
        vxk_vec3 p3 = fetch_vertex(view, q16, prim, 3);
        return intersect_mt(ray, p0, p1, p3, true, tmax, t, u, v);
    }
    vxk_vec3 p2 = fetch_vertex(view, q16, prim, 2);
    return intersect_mt(ray, p0, p1, p2, false, tmax, t, u, v);
}

// Relative widening of every segment bound (seed 000: "slightly expand the segment on each
// branch"), scaled by the coordinates' magnitude over the direction.
#define KD_RAY_EPS 1.0e-5f

static inline __attribute__((always_inline)) bool raycast(const kd_view* view, bool q16,
                                                          vxk_kd_hit* hit, const vxk_kd_ray* ray,
                                                          bool any, void* scratch)
{
    vxk_kd_hit best = {ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
    if (hit)
        *hit = best;
    if (!ray || view->primitive_count == 0)
        return false;
    if (!vxk_vec3_is_finite(ray->origin) || !vxk_vec3_is_finite(ray->dir) ||
        !vxk_is_finite(ray->tmax) || !(ray->tmax >= 0.0f))
        return false;
    float o[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
    float d[3] = {ray->dir.x, ray->dir.y, ray->dir.z};
    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)
        return false;
    float bmin[3] = {view->bounds.min.x, view->bounds.min.y, view->bounds.min.z};
    float bmax[3] = {view->bounds.max.x, view->bounds.max.y, view->bounds.max.z};
    float inv[3], eps[3];
    uint32_t near_side[3];
    bool flat[3];
    float tmin = 0.0f, tmax = ray->tmax;
    for (int a = 0; a < 3; ++a) {
        flat[a] = d[a] == 0.0f;
        near_side[a] = d[a] < 0.0f;
        float mag = fabsf(o[a]) + VXK_MAX(fabsf(bmin[a]), fabsf(bmax[a])) + 1.0f;
        if (flat[a]) {
            inv[a] = 0.0f;
            eps[a] = 0.0f;
            if (o[a] < bmin[a] || o[a] > bmax[a])
                return false;
            continue;
        }
        inv[a] = 1.0f / d[a];
        if (!vxk_is_finite(inv[a])) {
            // a component below 2^-126 moves the ray by nothing a float can hold: flat
            flat[a] = true;
            inv[a] = 0.0f;
            eps[a] = 0.0f;
            if (o[a] < bmin[a] || o[a] > bmax[a])
                return false;
            continue;
        }
        eps[a] = KD_RAY_EPS * mag * fabsf(inv[a]);
        float ta = (bmin[a] - o[a]) * inv[a], tb = (bmax[a] - o[a]) * inv[a];
        float t0 = VXK_MIN(ta, tb) - eps[a], t1 = VXK_MAX(ta, tb) + eps[a];
        tmin = VXK_MAX(tmin, t0);
        tmax = VXK_MIN(tmax, t1);
    }
    if (!(tmin <= tmax))
        return false;

    kd_ray_entry local[VXK_KD_MAX_DEPTH + 1];
    kd_ray_entry* stack = scratch ? (kd_ray_entry*)scratch : local;
    uint32_t sp = 0;
    stack[sp++] = (kd_ray_entry){0, tmin, tmax};
    while (sp) {
        kd_ray_entry e = stack[--sp];
        // a segment starting past the best hit cannot hold a nearer (or tying) one
        if (e.tmin > best.t)
            continue;
        float seg_max = VXK_MIN(e.tmax, best.t);
        kd_decoded n = decode(view, q16, e.node);
        if (n.axis == VXK_KD_LEAF) {
            for (uint32_t k = 0; k < n.child; ++k) {
                uint32_t prim = k ? n.p1 : n.p0;
                float t, u, v;
                if (!test_prim(view, q16, ray, prim, best.t, &t, &u, &v))
                    continue;
                if (any) {
                    if (hit)
                        *hit = (vxk_kd_hit){t, u, v, prim};
                    return true;
                }
                if (t < best.t || (t == best.t && prim < best.primitive))
                    best = (vxk_kd_hit){t, u, v, prim};
            }
            continue;
        }
        uint32_t a = n.axis;
        if (flat[a]) {
            if (o[a] >= n.s1)
                stack[sp++] = (kd_ray_entry){n.child + 1, e.tmin, seg_max};
            if (o[a] <= n.s0)
                stack[sp++] = (kd_ray_entry){n.child, e.tmin, seg_max};
            continue;
        }
        uint32_t near = near_side[a];
        float s_near = near ? n.s1 : n.s0, s_far = near ? n.s0 : n.s1;
        float t_near_end = (s_near - o[a]) * inv[a] + eps[a];
        float t_far_start = (s_far - o[a]) * inv[a] - eps[a];
        if (t_far_start <= seg_max)
            stack[sp++] = (kd_ray_entry){n.child + (near ^ 1u), VXK_MAX(t_far_start, e.tmin),
                                         seg_max};
        if (t_near_end >= e.tmin)
            stack[sp++] = (kd_ray_entry){n.child + near, e.tmin, VXK_MIN(t_near_end, seg_max)};
    }
    if (best.primitive == VXK_KD_NO_PRIMITIVE)
        return false;
    if (hit)
        *hit = best;
    return true;
}

static kd_view view_of(const vxk_kdtree* tree)
{
    kd_view v;
    memset(&v, 0, sizeof(v));
    v.nodes = tree->nodes;
    v.vertices = tree->vertices;
    v.indices = tree->indices;
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
    kd_view view = view_of(tree);
    return query_aabb(&view, false, out, capacity, box, scratch);
}

bool vxk_kdtree_raycast(const vxk_kdtree* tree, vxk_kd_hit* hit, const vxk_kd_ray* ray,
                        void* scratch)
{
    if (!tree || !tree->nodes) {
        if (hit)
            *hit = (vxk_kd_hit){ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
        return false;
    }
    kd_view view = view_of(tree);
    return raycast(&view, false, hit, ray, false, scratch);
}

bool vxk_kdtree_raycast_any(const vxk_kdtree* tree, const vxk_kd_ray* ray, void* scratch)
{
    if (!tree || !tree->nodes)
        return false;
    kd_view view = view_of(tree);
    return raycast(&view, false, NULL, ray, true, scratch);
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
            if (d.child <= e.node || d.child + 1 >= node_count ||
                sp + 2 > VXK_KD_MAX_DEPTH + 2) {
                status = VXK_ERR_MALFORMED;
                break;
            }
            stack[sp++] = (entry){d.child + 1, e.depth + 1, {d.axis, false, d.s1}};
            stack[sp++] = (entry){d.child, e.depth + 1, {d.axis, true, d.s0}};
            continue;
        }
        if (d.child > 2 || (d.child == 0 && n > 0)) {
            status = VXK_ERR_MALFORMED;
            break;
        }
        for (uint32_t k = 0; k < d.child && status == VXK_OK; ++k) {
            uint32_t prim = k ? d.p1 : d.p0;
            if (prim >= n || seen[prim]) {
                status = VXK_ERR_MALFORMED;
                break;
            }
            seen[prim] = 1;
            float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
            for (uint32_t c = 0; c < view->corners; ++c) {
                vxk_vec3 w = fetch_vertex(view, q16, prim, c);
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

static kd_view view_of16(const vxk_kdtree16* tree)
{
    kd_view v;
    memset(&v, 0, sizeof(v));
    v.nodes16 = tree->nodes;
    v.qvertices = tree->vertices;
    v.qindices = tree->indices;
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

static size_t vertex_block_bytes(uint32_t vertex_count)
{
    return vertex_count ? (size_t)vertex_count * 3 * sizeof(uint16_t) : 1;
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

vxk_status vxk_kdtree16_build(vxk_kdtree16* tree, const vxk_mesh* mesh, void* scratch,
                              size_t scratch_size)
{
    if (!tree)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_mesh(mesh);
    if (status != VXK_OK)
        return status;
    if (mesh->primitive_count > VXK_KD16_MAX_PRIMITIVES ||
        mesh->vertex_count > VXK_KD16_MAX_VERTICES)
        return VXK_ERR_UNSUPPORTED;
    uint32_t nv = mesh->vertex_count, n = mesh->primitive_count, corners = mesh->corners;
    size_t index_count = (size_t)n * corners;
    vxk_kdtree16 built;
    memset(&built, 0, sizeof(built));
    built.vertex_count = nv;
    built.primitive_count = n;
    built.corners = corners;

    // grid: per-axis integer origin below the referenced vertices, power-of-two step
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    bool any = false;
    for (size_t i = 0; i < index_count; ++i) {
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

    size_t qv_bytes = (size_t)nv * 3 * sizeof(uint16_t);
    size_t qi_bytes = index_count * sizeof(uint16_t);
    size_t fv_bytes = (size_t)nv * sizeof(vxk_vec3);
    built.vertices = (uint16_t*)vxk_alloc(qv_bytes ? qv_bytes : 1);
    built.indices = (uint16_t*)vxk_alloc(qi_bytes ? qi_bytes : 1);
    vxk_vec3* deq = (vxk_vec3*)vxk_alloc(fv_bytes ? fv_bytes : 1);
    if (!built.vertices || !built.indices || !deq) {
        vxk_free(built.vertices, qv_bytes ? qv_bytes : 1);
        vxk_free(built.indices, qi_bytes ? qi_bytes : 1);
        vxk_free(deq, fv_bytes ? fv_bytes : 1);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < nv; ++i) {
        vxk_vec3 p = mesh->vertices[i];
        float pa[3] = {p.x, p.y, p.z};
        float da[3];
        for (int a = 0; a < 3; ++a) {
            double q = floor(((double)pa[a] - (double)origin[a]) / (double)step[a] + 0.5);
            q = q < 0.0 ? 0.0 : (q > 65535.0 ? 65535.0 : q);
            built.vertices[3 * i + a] = (uint16_t)q;
            da[a] = dequantize(origin[a], step[a], (uint32_t)q);
        }
        deq[i] = (vxk_vec3){da[0], da[1], da[2]};
    }
    // weld vertices that quantize to the same grid point (meshers emit four corners per quad):
    // sort (position, id) keys; each run of equal positions becomes one vertex
    size_t nv1 = nv ? nv : 1;
    uint32_t* remap = (uint32_t*)vxk_alloc(nv1 * sizeof(uint32_t));
    uint64_t* keys = (uint64_t*)vxk_alloc(nv1 * sizeof(uint64_t));
    if (!remap || !keys) {
        vxk_free(remap, nv1 * sizeof(uint32_t));
        vxk_free(keys, nv1 * sizeof(uint64_t));
        vxk_free(built.vertices, qv_bytes ? qv_bytes : 1);
        vxk_free(built.indices, qi_bytes ? qi_bytes : 1);
        vxk_free(deq, fv_bytes ? fv_bytes : 1);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < nv; ++i) {
        const uint16_t* q = built.vertices + 3 * (size_t)i;
        keys[i] = ((uint64_t)q[2] << 48) | ((uint64_t)q[1] << 32) | ((uint64_t)q[0] << 16) | i;
    }
    sort_u64(keys, nv);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < nv; ++k) {
        if (k == 0 || (keys[k] >> 16) != (keys[k - 1] >> 16)) {
            uint64_t pos = keys[k] >> 16;
            // unique <= k: this slot's key was already read
            built.vertices[3 * (size_t)unique + 0] = (uint16_t)pos;
            built.vertices[3 * (size_t)unique + 1] = (uint16_t)(pos >> 16);
            built.vertices[3 * (size_t)unique + 2] = (uint16_t)(pos >> 32);
            deq[unique] = (vxk_vec3){dequantize(origin[0], step[0], (uint16_t)pos),
                                     dequantize(origin[1], step[1], (uint16_t)(pos >> 16)),
                                     dequantize(origin[2], step[2], (uint16_t)(pos >> 32))};
            ++unique;
        }
        remap[keys[k] & 0xFFFFu] = unique - 1;
    }
    vxk_free(keys, nv1 * sizeof(uint64_t));
    for (size_t i = 0; i < index_count; ++i)
        built.indices[i] = (uint16_t)remap[mesh->indices[i]];
    vxk_free(remap, nv1 * sizeof(uint32_t));
    if (unique < nv) {
        size_t welded_bytes = (size_t)unique * 3 * sizeof(uint16_t);
        uint16_t* shrunk = (uint16_t*)vxk_realloc(built.vertices, qv_bytes,
                                                  welded_bytes ? welded_bytes : 1);
        if (shrunk) { // otherwise keep the larger block; vertices past unique are unused
            built.vertices = shrunk;
            built.vertex_count = unique;
        }
    }
    // the builder indexes the dequantized vertices through the welded indices
    uint32_t* windices = (uint32_t*)vxk_alloc(index_count ? index_count * sizeof(uint32_t) : 1);
    if (!windices) {
        vxk_free(built.vertices, vertex_block_bytes(built.vertex_count));
        vxk_free(built.indices, qi_bytes ? qi_bytes : 1);
        vxk_free(deq, fv_bytes ? fv_bytes : 1);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < index_count; ++i)
        windices[i] = built.indices[i];

    vxk_kd_node* nodes = NULL;
    uint32_t node_count = 0;
    status = build_common(deq, windices, n, corners, scratch, scratch_size, &nodes,
                          &node_count, &built.depth, &built.bounds);
    vxk_free(deq, fv_bytes ? fv_bytes : 1);
    vxk_free(windices, index_count ? index_count * sizeof(uint32_t) : 1);
    if (status == VXK_OK) {
        built.nodes = (vxk_kd_node16*)vxk_alloc((size_t)node_count * sizeof(vxk_kd_node16));
        if (!built.nodes)
            status = VXK_ERR_OUT_OF_MEMORY;
    }
    if (status != VXK_OK) {
        vxk_free(nodes, (size_t)node_count * sizeof(vxk_kd_node));
        vxk_free(built.vertices, vertex_block_bytes(built.vertex_count));
        vxk_free(built.indices, qi_bytes ? qi_bytes : 1);
        return status;
    }
    built.node_count = node_count;
    for (uint32_t i = 0; i < node_count; ++i) {
        vxk_kd_node src = nodes[i];
        uint32_t axis = src.info & KD_AXIS_MASK;
        vxk_kd_node16* dst = &built.nodes[i];
        if (axis == VXK_KD_LEAF) {
            uint32_t count = src.info >> KD_SHIFT;
            dst->a = count > 0 ? (uint16_t)src.primitives[0] : 0;
            dst->b = count > 1 ? (uint16_t)src.primitives[1] : 0;
            dst->info = (uint16_t)(VXK_KD_LEAF | (count << KD_SHIFT));
            continue;
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
        dst->a = (uint16_t)a0;
        dst->b = (uint16_t)a1;
        dst->info = (uint16_t)(axis | (((child - 1) / 2) << KD_SHIFT));
    }
    vxk_free(nodes, (size_t)node_count * sizeof(vxk_kd_node));
    *tree = built;
    return VXK_OK;
}

void vxk_kdtree16_free(vxk_kdtree16* tree)
{
    if (!tree)
        return;
    size_t qi_bytes = (size_t)tree->primitive_count * tree->corners * sizeof(uint16_t);
    vxk_free(tree->nodes, (size_t)tree->node_count * sizeof(vxk_kd_node16));
    vxk_free(tree->vertices, vertex_block_bytes(tree->vertex_count));
    vxk_free(tree->indices, qi_bytes ? qi_bytes : 1);
    memset(tree, 0, sizeof(*tree));
}

size_t vxk_kdtree16_bytes(const vxk_kdtree16* tree)
{
    return tree ? (size_t)tree->node_count * sizeof(vxk_kd_node16) : 0;
}

size_t vxk_kdtree16_total_bytes(const vxk_kdtree16* tree)
{
    if (!tree)
        return 0;
    return vxk_kdtree16_bytes(tree) + (size_t)tree->vertex_count * 3 * sizeof(uint16_t) +
           (size_t)tree->primitive_count * tree->corners * sizeof(uint16_t);
}

vxk_status vxk_kdtree16_dequantize(const vxk_kdtree16* tree, vxk_mesh* out)
{
    if (!tree || !out || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    size_t index_count = (size_t)tree->primitive_count * tree->corners;
    vxk_mesh m;
    memset(&m, 0, sizeof(m));
    m.vertex_count = tree->vertex_count;
    m.primitive_count = tree->primitive_count;
    m.corners = tree->corners;
    m.vertices = (vxk_vec3*)vxk_alloc((size_t)tree->vertex_count * sizeof(vxk_vec3));
    m.indices = (uint32_t*)vxk_alloc(index_count * sizeof(uint32_t));
    if ((tree->vertex_count && !m.vertices) || (index_count && !m.indices)) {
        vxk_mesh_free(&m);
        return VXK_ERR_OUT_OF_MEMORY;
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

size_t vxk_kdtree16_query_scratch_size(const vxk_kdtree16* tree)
{
    return tree ? ((size_t)tree->depth + 1) * sizeof(kd_ray_entry) : 0;
}

uint32_t vxk_kdtree16_query_aabb(const vxk_kdtree16* tree, uint32_t* out, uint32_t capacity,
                                 const vxk_aabb* box, void* scratch)
{
    if (!tree || !tree->nodes || (!out && capacity))
        return 0;
    kd_view view = view_of16(tree);
    return query_aabb(&view, true, out, capacity, box, scratch);
}

bool vxk_kdtree16_raycast(const vxk_kdtree16* tree, vxk_kd_hit* hit, const vxk_kd_ray* ray,
                          void* scratch)
{
    if (!tree || !tree->nodes) {
        if (hit)
            *hit = (vxk_kd_hit){ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
        return false;
    }
    kd_view view = view_of16(tree);
    return raycast(&view, true, hit, ray, false, scratch);
}

bool vxk_kdtree16_raycast_any(const vxk_kdtree16* tree, const vxk_kd_ray* ray, void* scratch)
{
    if (!tree || !tree->nodes)
        return false;
    kd_view view = view_of16(tree);
    return raycast(&view, true, NULL, ray, true, scratch);
}

vxk_status vxk_kdtree16_validate(const vxk_kdtree16* tree)
{
    if (!tree || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    kd_view view = view_of16(tree);
    return validate_view(&view, true, tree->node_count, tree->depth);
}
