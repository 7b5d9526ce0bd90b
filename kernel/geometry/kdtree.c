// kdtree.c: the loose kD tree of seed 000 (Roblox terrain physics, "Loose kD tree"): build by
// longest axis and mean centroid with a 25% median fallback, the float tree's queries with its
// leaves tested two primitives at a time; triangles by Moller-Trumbore (1997), axis-aligned
// rectangles by the watertight test of simd/ray.c (after Woop, Benthin and Wald 2013).
#include "kdtree_internal.h"

_Static_assert(sizeof(vxk_kdtree_node) == 12, "the kD node is 12 bytes (seed 000)");
_Static_assert(sizeof(vxk_vec3) == 12, "vertices are packed float triples");

// ---- primitive tests ----------------------------------------------------------------------------

bool vxk_kdtree_intersect_triangle(const vxk_kdtree_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v2,
                                   float tmax, float* t, float* u, float* v)
{
    return kd_intersect_mt(ray, v0, v1, v2, false, tmax, t, u, v);
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
    return kd_quad_test(&tests, v0, v1, v3, tmax, t, u, v);
}

// ---- mesh validation and builder ----------------------------------------------------------------

vxk_status vxk_kd_check_mesh(const vxk_mesh* mesh)
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

// kdtree16.c's way to the builder. The float build calls build_nodes itself: through the
// exported function it measured 7 % slower (same instructions, placed differently).
uint32_t vxk_kd_build_nodes(vxk_kdtree_node* nodes, const vxk_vec3* vertices,
                            const uint32_t* indices, uint32_t n, uint32_t corners, void* scratch,
                            uint32_t max_leaf, bool leaf_ranges, uint32_t* depth_out,
                            vxk_aabb* bounds_out)
{
    return build_nodes(nodes, vertices, indices, n, corners, scratch, max_leaf, leaf_ranges,
                       depth_out, bounds_out);
}

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
    vxk_status status = vxk_kd_check_mesh(mesh);
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

// ---- float leaves -------------------------------------------------------------------------------

typedef struct kd_v3x4 {
    vxk_f32x4 x, y, z;
} kd_v3x4;

static inline kd_v3x4 v4_sub(kd_v3x4 a, kd_v3x4 b)
{
    return (kd_v3x4){vxk_f32x4_sub(a.x, b.x), vxk_f32x4_sub(a.y, b.y), vxk_f32x4_sub(a.z, b.z)};
}
static inline kd_v3x4 v4_cross(kd_v3x4 a, kd_v3x4 b)
{
    return (kd_v3x4){vxk_f32x4_sub(vxk_f32x4_mul(a.y, b.z), vxk_f32x4_mul(a.z, b.y)),
                     vxk_f32x4_sub(vxk_f32x4_mul(a.z, b.x), vxk_f32x4_mul(a.x, b.z)),
                     vxk_f32x4_sub(vxk_f32x4_mul(a.x, b.y), vxk_f32x4_mul(a.y, b.x))};
}
static inline vxk_f32x4 v4_dot(kd_v3x4 a, kd_v3x4 b)
{
    return vxk_f32x4_add(vxk_f32x4_add(vxk_f32x4_mul(a.x, b.x), vxk_f32x4_mul(a.y, b.y)),
                         vxk_f32x4_mul(a.z, b.z));
}
// Lanes 0 and 1 of x, y, z from two vertices (12-byte loads, never past a vertex); lanes 2 and 3
// hold copies the caller masks off.
static inline kd_v3x4 v4_pair(const vxk_vec3* a, const vxk_vec3* b)
{
    vxk_f32x4 va = vxk_f32x4_load3((const float*)(const void*)a);
    vxk_f32x4 vb = vxk_f32x4_load3((const float*)(const void*)b);
    vxk_f32x4 lo = vxk_f32x4_interleave_lo(va, vb); // ax bx ay by
    return (kd_v3x4){lo, vxk_f32x4_dup_high(lo), vxk_f32x4_interleave_hi(va, vb)};
}
static inline kd_v3x4 v4_splat(vxk_vec3 a)
{
    return (kd_v3x4){vxk_f32x4_broadcast(a.x), vxk_f32x4_broadcast(a.y), vxk_f32x4_broadcast(a.z)};
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
// test in two lanes with kd_quad_test's operations in its order (so the hits of the brute-force
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
    const vxk_f32x4 zero = vxk_f32x4_zero();
    const vxk_f32x4 e[2][3] = {{f.e1.x, f.e1.y, f.e1.z}, {f.e2.x, f.e2.y, f.e2.z}};
    vxk_mask4 nz[2][3];
    for (int k = 0; k < 2; ++k)
        for (int a = 0; a < 3; ++a)
            nz[k][a] = vxk_mask4_or(vxk_f32x4_cmplt(e[k][a], zero), vxk_f32x4_cmpgt(e[k][a], zero));
    vxk_mask4 bad = vxk_mask4_zeros(), any_nz[2];
    for (int k = 0; k < 2; ++k) {
        any_nz[k] = vxk_mask4_or(vxk_mask4_or(nz[k][0], nz[k][1]), nz[k][2]);
        bad = vxk_mask4_or(bad, vxk_mask4_or(vxk_mask4_and(nz[k][0], nz[k][1]),
                                             vxk_mask4_or(vxk_mask4_and(nz[k][0], nz[k][2]),
                                                          vxk_mask4_and(nz[k][1], nz[k][2]))));
    }
    for (int a = 0; a < 3; ++a)
        bad = vxk_mask4_or(bad, vxk_mask4_and(nz[0][a], nz[1][a]));
    vxk_mask4 rect = vxk_mask4_andnot(vxk_mask4_and(any_nz[0], any_nz[1]), bad);
    if ((vxk_mask4_movemask(rect) & lanes) != lanes)
        return -1;
    const vxk_f32x4 p0[3] = {f.p0.x, f.p0.y, f.p0.z};
    vxk_f32x4 enter = vxk_f32x4_broadcast(-INFINITY), exit = vxk_f32x4_broadcast(INFINITY);
    vxk_mask4 ok = vxk_mask4_ones();
    for (int a = 0; a < 3; ++a) {
        vxk_f32x4 v2 = vxk_f32x4_add(vxk_f32x4_add(p0[a], e[0][a]), e[1][a]);
        vxk_f32x4 lo = vxk_f32x4_min(p0[a], v2), hi = vxk_f32x4_max(p0[a], v2);
        vxk_f32x4 o = vxk_f32x4_broadcast(tests->rect.o[a]);
        vxk_f32x4 dlo = vxk_f32x4_sub(lo, o), dhi = vxk_f32x4_sub(hi, o);
        if ((tests->rect.flat >> a) & 1u) {
            ok = vxk_mask4_and(ok, vxk_f32x4_cmplt(lo, hi));
            ok = vxk_mask4_and(ok, vxk_f32x4_cmple(dlo, zero));
            ok = vxk_mask4_and(ok, vxk_f32x4_cmpge(dhi, zero));
            continue;
        }
        vxk_f32x4 inv = vxk_f32x4_broadcast(tests->rect.inv[a]);
        vxk_f32x4 t0 = vxk_f32x4_mul(dlo, inv), t1 = vxk_f32x4_mul(dhi, inv);
        enter = vxk_f32x4_max(enter, vxk_f32x4_min(t0, t1));
        exit = vxk_f32x4_min(exit, vxk_f32x4_max(t0, t1));
    }
    ok = vxk_mask4_and(ok, vxk_f32x4_cmple(enter, exit));
    ok = vxk_mask4_and(ok, vxk_f32x4_cmpge(enter, vxk_f32x4_broadcast(tests->rect.tmin)));
    ok = vxk_mask4_and(ok, vxk_f32x4_cmple(enter, vxk_f32x4_broadcast(best->t)));
    uint32_t found = vxk_mask4_movemask(ok) & lanes;
    if (__builtin_expect(!found, 1))
        return 0;
    float tt[4];
    vxk_f32x4_store(tt, vxk_f32x4_add(enter, zero));
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

// The (at most two) triangles of a float leaf against the ray at once, with kd_intersect_mt's
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
    vxk_f32x4 det = v4_dot(e1, p);
    vxk_f32x4 inv = vxk_f32x4_div(vxk_f32x4_broadcast(1.0f), det);
    kd_v3x4 s = v4_sub(v4_splat(tests->mt.origin), p0);
    vxk_f32x4 u = vxk_f32x4_mul(v4_dot(s, p), inv);
    kd_v3x4 q = v4_cross(s, e1);
    vxk_f32x4 v = vxk_f32x4_mul(v4_dot(d, q), inv);
    vxk_f32x4 t = vxk_f32x4_mul(v4_dot(e2, q), inv);
    const vxk_f32x4 zero = vxk_f32x4_zero(), one = vxk_f32x4_broadcast(1.0f);
    vxk_mask4 ok = vxk_mask4_and(vxk_f32x4_cmpge(u, zero), vxk_f32x4_cmple(u, one));
    ok = vxk_mask4_and(ok, vxk_f32x4_cmpge(v, zero));
    ok = vxk_mask4_and(ok, vxk_f32x4_cmple(vxk_f32x4_add(u, v), one));
    ok = vxk_mask4_and(ok, vxk_f32x4_cmpge(t, zero));
    ok = vxk_mask4_and(ok, vxk_f32x4_cmple(t, vxk_f32x4_broadcast(best->t)));
    uint32_t found = vxk_mask4_movemask(ok) & ((1u << count) - 1u);
    if (__builtin_expect(!found, 1))
        return false;
    float tt[4], uu[4], vv[4];
    vxk_f32x4_store(tt, t);
    vxk_f32x4_store(uu, u);
    vxk_f32x4_store(vv, v);
    for (; found; found &= found - 1) {
        uint32_t k = (uint32_t)__builtin_ctz(found);
        vxk_vec3 q0 = *(k ? b0 : a0);
        vxk_vec3 f1 = kd_v3_sub(*(k ? b1 : a1), q0), f2 = kd_v3_sub(*(k ? b2 : a2), q0);
        vxk_kdtree_hit cand = {tt[k], uu[k], vv[k], leaf->p[k]};
        if (kd_take_candidate(tests, f1, f2, &cand, any, best))
            return true;
    }
    return false;
}

static inline __attribute__((always_inline)) int kd_ray_leaf(const kd_view* view,
                                                             const kd_tests* tests,
                                                             const kd_decoded* leaf, bool any,
                                                             vxk_kdtree_hit* best)
{
    if (tests->shifted)
        return -1;
    if (view->corners == 3)
        return leaf_float4(view, tests, leaf, any, best) ? 1 : 0;
    return leaf_float_rects(view, tests, leaf, any, best);
}

// ---- queries ------------------------------------------------------------------------------------

VXK_PREFETCH_INLINE void prefetch_tree(const vxk_kdtree* t)
{
    vxk_prefetch_span(t->nodes, (size_t)t->node_count * sizeof(vxk_kdtree_node), KD_PREFETCH_BYTES);
    vxk_prefetch_span(t->indices, (size_t)t->primitive_count * t->corners * sizeof(uint32_t),
                      KD_PREFETCH_BYTES);
    vxk_prefetch_span(t->vertices, (size_t)t->vertex_count * sizeof(vxk_vec3), KD_PREFETCH_BYTES);
}

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
    return KD_BY_CORNERS(view, kd_query_aabb(&view, false, out, capacity, box, scratch));
}

// The float tree's closest-hit and any-hit queries, each its own function with the traversal
// specialised for the corner count (one function holding all four was too large for GCC to
// inline the vector helpers into: any-hit queries ran at half speed).
static bool float_raycast(const vxk_kdtree* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                          const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return kd_no_tree(hit, ray);
    prefetch_tree(tree);
    kd_view view = view_of(tree);
    return KD_BY_CORNERS(view, kd_raycast(&view, false, hit, ray, frame, false, scratch));
}

static bool float_raycast_any(const vxk_kdtree* tree, const vxk_kdtree_ray* ray,
                              const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return false;
    prefetch_tree(tree);
    kd_view view = view_of(tree);
    return KD_BY_CORNERS(view, kd_raycast(&view, false, NULL, ray, frame, true, scratch));
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

// ---- validation ---------------------------------------------------------------------------------

static inline float vec_axis(const vxk_vec3* v, uint32_t axis)
{
    return axis == 0 ? v->x : (axis == 1 ? v->y : v->z);
}

typedef struct kd_constraint {
    uint32_t axis;
    bool left;
    float bound;
} kd_constraint;

vxk_status vxk_kd_validate_view(const kd_view* view, bool q16, uint32_t node_count,
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
        kd_decoded d = kd_decode(view, q16, e.node);
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
            (kd_slotted(view, q16) && (uint64_t)d.p[0] + d.child > n)) {
            status = VXK_ERR_MALFORMED;
            break;
        }
        if (kd_slotted(view, q16) && d.p[1] > 1) {
            status = VXK_ERR_MALFORMED;
            break;
        }
        for (uint32_t k = 0; k < d.child && status == VXK_OK; ++k) {
            uint32_t slot, prim = kd_leaf_prim(view, q16, &d, k, &slot);
            if (prim >= n || seen[prim]) {
                status = VXK_ERR_MALFORMED;
                break;
            }
            if (kd_slotted(view, q16) && d.p[1]) { // flagged: every quad a rectangle
                vxk_vec3 corners[4];
                for (uint32_t c = 0; c < 4; ++c)
                    corners[c] = kd_fetch_vertex(view, q16, &d, k, c);
                if (!kd_quad_rect(corners)) {
                    status = VXK_ERR_MALFORMED;
                    break;
                }
            }
            seen[prim] = 1;
            float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
            for (uint32_t c = 0; c < view->corners; ++c) {
                vxk_vec3 w = kd_fetch_vertex(view, q16, &d, k, c);
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
    return vxk_kd_validate_view(&view, false, tree->node_count, tree->depth);
}
