// test_kdtree.c: the loose kD tree (seed 000) against brute force over all primitives: AABB
// queries, closest and any ray hits on seeded random meshes and rays, the tree invariants, the
// quantized tree against the float tree on dequantized geometry, quad trees against triangles,
// and watertight quads (rays aimed exactly at shared edges and corners of a closed surface, within
// one tree and across trees in a shared frame).
#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>

#include "core.h"
#include "test.h"

#include <float.h>
#include <math.h>

// ---- meshes --------------------------------------------------------------------------------

typedef struct test_mesh {
    vxk_mesh mesh;
    uint32_t vertex_capacity, index_capacity;
} test_mesh;

static void tm_init(test_mesh* m, uint32_t corners, uint32_t vertex_capacity,
                    uint32_t primitive_capacity)
{
    memset(m, 0, sizeof(*m));
    m->mesh.corners = corners;
    m->vertex_capacity = vertex_capacity;
    m->index_capacity = primitive_capacity * corners;
    m->mesh.vertices = (vxk_vec3*)malloc(sizeof(vxk_vec3) * (vertex_capacity + 1));
    m->mesh.indices = (uint32_t*)malloc(sizeof(uint32_t) * (m->index_capacity + 1));
}

static void tm_free(test_mesh* m)
{
    free(m->mesh.vertices);
    free(m->mesh.indices);
    memset(m, 0, sizeof(*m));
}

typedef enum soup_kind {
    SOUP_RANDOM,
    SOUP_THIN,
    SOUP_FLAT,
    SOUP_DEGENERATE,
    SOUP_CLUSTER,
    SOUP_KIND_COUNT
} soup_kind;

static vxk_vec3 rand_point(uint64_t* s, float lo, float hi)
{
    return (vxk_vec3){vxk_test_randf(s, lo, hi), vxk_test_randf(s, lo, hi),
                      vxk_test_randf(s, lo, hi)};
}

// A triangle soup; kind picks the pathology.
static void make_soup(test_mesh* m, uint64_t* s, uint32_t n, soup_kind kind)
{
    tm_init(m, 3, 3 * n, n);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_vec3 c = rand_point(s, -10.0f, 10.0f);
        if (kind == SOUP_CLUSTER)
            c = rand_point(s, -0.01f, 0.01f);
        float size = vxk_test_randf(s, 0.05f, 3.0f);
        vxk_vec3 p[3];
        for (int k = 0; k < 3; ++k) {
            vxk_vec3 d = rand_point(s, -size, size);
            p[k] = (vxk_vec3){c.x + d.x, c.y + d.y, c.z + d.z};
        }
        if (kind == SOUP_THIN) // a sliver: the third vertex almost on the first edge
            p[2] = (vxk_vec3){0.5f * (p[0].x + p[1].x), 0.5f * (p[0].y + p[1].y) + 1e-4f,
                              0.5f * (p[0].z + p[1].z)};
        if (kind == SOUP_FLAT)
            p[0].y = p[1].y = p[2].y = 1.0f;
        if (kind == SOUP_DEGENERATE) {
            uint64_t r = vxk_test_rand(s) % 4;
            if (r == 0)
                p[1] = p[0];
            else if (r == 1)
                p[2] = p[1] = p[0];
            else if (r == 2)
                p[2] = (vxk_vec3){2 * p[1].x - p[0].x, 2 * p[1].y - p[0].y, 2 * p[1].z - p[0].z};
        }
        for (int k = 0; k < 3; ++k) {
            m->mesh.vertices[m->mesh.vertex_count] = p[k];
            m->mesh.indices[3 * i + k] = m->mesh.vertex_count++;
        }
    }
    m->mesh.primitive_count = n;
}

// Faces of random solid voxels in a g^3 grid at integer coordinates (plus offset), as quads with
// shared vertices, or each quad split into (v0, v1, v2), (v0, v2, v3) when corners == 3.
static void make_voxel_mesh(test_mesh* m, uint64_t* s, int g, uint32_t fill_percent,
                            uint32_t corners, vxk_int3 offset)
{
    uint8_t* solid = (uint8_t*)calloc((size_t)g * g * g, 1);
    for (int i = 0; i < g * g * g; ++i)
        solid[i] = vxk_test_rand(s) % 100 < fill_percent;
    int gv = g + 1;
    uint32_t* vmap = (uint32_t*)malloc(sizeof(uint32_t) * (size_t)gv * gv * gv);
    memset(vmap, 0xFF, sizeof(uint32_t) * (size_t)gv * gv * gv);
    uint32_t max_quads = (uint32_t)(6 * g * g * g);
    tm_init(m, corners, (uint32_t)(gv * gv * gv), corners == 4 ? max_quads : 2 * max_quads);
    for (int z = 0; z < g; ++z)
        for (int y = 0; y < g; ++y)
            for (int x = 0; x < g; ++x) {
                if (!solid[x + g * (y + g * z)])
                    continue;
                int p[3] = {x, y, z};
                for (int axis = 0; axis < 3; ++axis)
                    for (int side = 0; side < 2; ++side) {
                        int q[3] = {x, y, z};
                        q[axis] += side ? 1 : -1;
                        if (q[axis] >= 0 && q[axis] < g && solid[q[0] + g * (q[1] + g * q[2])])
                            continue;
                        int b = (axis + 1) % 3, c = (axis + 2) % 3;
                        int corner_offsets[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
                        uint32_t vi[4];
                        for (int k = 0; k < 4; ++k) {
                            int v[3] = {p[0], p[1], p[2]};
                            v[axis] += side;
                            v[b] += corner_offsets[k][0];
                            v[c] += corner_offsets[k][1];
                            uint32_t key = (uint32_t)(v[0] + gv * (v[1] + gv * v[2]));
                            if (vmap[key] == UINT32_MAX) {
                                vmap[key] = m->mesh.vertex_count;
                                m->mesh.vertices[m->mesh.vertex_count++] =
                                    (vxk_vec3){(float)(v[0] + offset.x), (float)(v[1] + offset.y),
                                               (float)(v[2] + offset.z)};
                            }
                            vi[k] = vmap[key];
                        }
                        uint32_t* out = m->mesh.indices + (size_t)m->mesh.primitive_count * corners;
                        if (corners == 4) {
                            memcpy(out, vi, sizeof(vi));
                            m->mesh.primitive_count += 1;
                        } else {
                            uint32_t t[6] = {vi[0], vi[1], vi[2], vi[0], vi[2], vi[3]};
                            memcpy(out, t, sizeof(t));
                            m->mesh.primitive_count += 2;
                        }
                    }
            }
    free(vmap);
    free(solid);
}

// ---- references ------------------------------------------------------------------------------

static vxk_aabb prim_bounds(const vxk_mesh* m, uint32_t p)
{
    vxk_aabb b = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    for (uint32_t c = 0; c < m->corners; ++c) {
        vxk_vec3 v = m->vertices[m->indices[p * m->corners + c]];
        b.min.x = fminf(b.min.x, v.x);
        b.min.y = fminf(b.min.y, v.y);
        b.min.z = fminf(b.min.z, v.z);
        b.max.x = fmaxf(b.max.x, v.x);
        b.max.y = fmaxf(b.max.y, v.y);
        b.max.z = fmaxf(b.max.z, v.z);
    }
    return b;
}

static uint32_t brute_aabb(const vxk_mesh* m, const vxk_aabb* q, uint32_t* out)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < m->primitive_count; ++p) {
        vxk_aabb b = prim_bounds(m, p);
        if (b.min.x <= q->max.x && b.max.x >= q->min.x && b.min.y <= q->max.y &&
            b.max.y >= q->min.y && b.min.z <= q->max.z && b.max.z >= q->min.z)
            out[n++] = p;
    }
    return n;
}

static bool brute_prim(const vxk_mesh* m, const vxk_kdtree_ray* r, uint32_t p, float tmax, float* t,
                       float* u, float* v)
{
    const uint32_t* idx = m->indices + (size_t)p * m->corners;
    if (m->corners == 4)
        return vxk_kdtree_intersect_quad(r, m->vertices[idx[0]], m->vertices[idx[1]],
                                         m->vertices[idx[3]], tmax, t, u, v);
    return vxk_kdtree_intersect_triangle(r, m->vertices[idx[0]], m->vertices[idx[1]],
                                         m->vertices[idx[2]], tmax, t, u, v);
}

static bool brute_ray(const vxk_mesh* m, const vxk_kdtree_ray* r, vxk_kdtree_hit* hit)
{
    vxk_kdtree_hit best = {r->tmax, 0, 0, VXK_KD_NO_PRIMITIVE};
    for (uint32_t p = 0; p < m->primitive_count; ++p) {
        float t, u, v;
        if (brute_prim(m, r, p, best.t, &t, &u, &v) &&
            (t < best.t || best.primitive == VXK_KD_NO_PRIMITIVE))
            best = (vxk_kdtree_hit){t, u, v, p};
    }
    *hit = best;
    return best.primitive != VXK_KD_NO_PRIMITIVE;
}

static int cmp_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

static vxk_aabb mesh_bounds(const vxk_mesh* m)
{
    vxk_aabb b = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    for (uint32_t p = 0; p < m->primitive_count; ++p) {
        vxk_aabb q = prim_bounds(m, p);
        b.min.x = fminf(b.min.x, q.min.x);
        b.min.y = fminf(b.min.y, q.min.y);
        b.min.z = fminf(b.min.z, q.min.z);
        b.max.x = fmaxf(b.max.x, q.max.x);
        b.max.y = fmaxf(b.max.y, q.max.y);
        b.max.z = fmaxf(b.max.z, q.max.z);
    }
    return b;
}

// Random ray of one of several kinds, aimed at the mesh.
static vxk_kdtree_ray random_ray(uint64_t* s, const vxk_mesh* m, vxk_aabb b)
{
    vxk_vec3 ext = {b.max.x - b.min.x + 1.0f, b.max.y - b.min.y + 1.0f, b.max.z - b.min.z + 1.0f};
    vxk_vec3 lo = {b.min.x - 0.5f * ext.x, b.min.y - 0.5f * ext.y, b.min.z - 0.5f * ext.z};
    vxk_kdtree_ray r;
    r.origin = (vxk_vec3){lo.x + 2 * ext.x * vxk_test_randf(s, 0, 1),
                          lo.y + 2 * ext.y * vxk_test_randf(s, 0, 1),
                          lo.z + 2 * ext.z * vxk_test_randf(s, 0, 1)};
    r.dir = rand_point(s, -1.0f, 1.0f);
    r.tmax = 1e4f;
    uint32_t kind = (uint32_t)(vxk_test_rand(s) % 7);
    if (kind == 0) { // along an axis
        float sign = vxk_test_rand(s) & 1 ? 1.0f : -1.0f;
        uint32_t a = (uint32_t)(vxk_test_rand(s) % 3);
        r.dir = (vxk_vec3){a == 0 ? sign : 0.0f, a == 1 ? sign : 0.0f, a == 2 ? sign : 0.0f};
    } else if (kind == 1) { // from inside the bounds
        r.origin =
            (vxk_vec3){vxk_test_randf(s, b.min.x, b.max.x), vxk_test_randf(s, b.min.y, b.max.y),
                       vxk_test_randf(s, b.min.z, b.max.z)};
    } else if ((kind == 2 || kind == 3) && m->primitive_count) { // at a vertex or an edge point
        uint32_t p = (uint32_t)(vxk_test_rand(s) % m->primitive_count);
        uint32_t c0 = (uint32_t)(vxk_test_rand(s) % m->corners);
        uint32_t c1 = (c0 + 1) % m->corners;
        vxk_vec3 a = m->vertices[m->indices[p * m->corners + c0]];
        vxk_vec3 e = m->vertices[m->indices[p * m->corners + c1]];
        float f = kind == 2 ? 0.0f : vxk_test_randf(s, 0, 1);
        vxk_vec3 target = {a.x + f * (e.x - a.x), a.y + f * (e.y - a.y), a.z + f * (e.z - a.z)};
        r.dir = (vxk_vec3){target.x - r.origin.x, target.y - r.origin.y, target.z - r.origin.z};
        r.tmax = vxk_test_rand(s) & 1 ? 1.0f : 2.0f; // ends on the target or passes it
    } else if (kind == 4) { // very long: from far away, or an unbounded segment from nearby
        // (from much further, float rounding of the origin alone exceeds the size of slivers)
        float far = vxk_test_rand(s) & 1 ? 20.0f : 1.0f;
        r.origin = (vxk_vec3){r.origin.x * far, r.origin.y * far, r.origin.z * far};
        vxk_vec3 c = {0.5f * (b.min.x + b.max.x), 0.5f * (b.min.y + b.max.y),
                      0.5f * (b.min.z + b.max.z)};
        r.dir = (vxk_vec3){c.x - r.origin.x + vxk_test_randf(s, -2, 2),
                           c.y - r.origin.y + vxk_test_randf(s, -2, 2),
                           c.z - r.origin.z + vxk_test_randf(s, -2, 2)};
        r.tmax = 1e30f;
    } else if (kind == 5) { // a short segment
        r.tmax = vxk_test_randf(s, 0.0f, 3.0f);
    }
    if (r.dir.x == 0 && r.dir.y == 0 && r.dir.z == 0)
        r.dir.x = 1.0f;
    return r;
}

static int check_aabb_queries(const vxk_kdtree* tree, const vxk_mesh* m, uint64_t* s,
                              uint32_t queries)
{
    uint32_t cap = m->primitive_count + 1;
    uint32_t* got = (uint32_t*)malloc(sizeof(uint32_t) * cap);
    uint32_t* want = (uint32_t*)malloc(sizeof(uint32_t) * cap);
    void* scratch = malloc(vxk_kdtree_query_scratch_size(tree));
    vxk_aabb b = mesh_bounds(m);
    int fail = 0;
    for (uint32_t i = 0; i < queries && !fail; ++i) {
        vxk_vec3 c = {vxk_test_randf(s, b.min.x - 2, b.max.x + 2),
                      vxk_test_randf(s, b.min.y - 2, b.max.y + 2),
                      vxk_test_randf(s, b.min.z - 2, b.max.z + 2)};
        float h = vxk_test_randf(s, 0.0f, 4.0f);
        vxk_aabb q = {{c.x - h, c.y - vxk_test_randf(s, 0, h), c.z - h},
                      {c.x + vxk_test_randf(s, 0, h), c.y + h, c.z + h}};
        if (i % 5 == 0 && m->primitive_count) // exactly a primitive's box: touching counts
            q = prim_bounds(m, (uint32_t)(vxk_test_rand(s) % m->primitive_count));
        uint32_t n = vxk_kdtree_query_aabb(tree, got, cap, &q, (i & 1) ? scratch : NULL);
        uint32_t w = brute_aabb(m, &q, want);
        qsort(got, n, sizeof(uint32_t), cmp_u32);
        if (n != w || memcmp(got, want, sizeof(uint32_t) * n) != 0) {
            fprintf(stderr, "aabb query %u: tree %u brute %u\n", i, n, w);
            fail = 1;
        }
        if (!fail && n > 1) { // truncated output still returns the full count
            uint32_t again = vxk_kdtree_query_aabb(tree, got, n / 2, &q, NULL);
            if (again != n)
                fail = 1;
        }
    }
    free(got);
    free(want);
    free(scratch);
    return fail;
}

static int check_rays(const vxk_kdtree* tree, const vxk_mesh* m, uint64_t* s, uint32_t rays)
{
    void* scratch = malloc(vxk_kdtree_query_scratch_size(tree));
    vxk_aabb b = mesh_bounds(m);
    for (uint32_t i = 0; i < rays; ++i) {
        vxk_kdtree_ray r = random_ray(s, m, b);
        vxk_kdtree_hit th, bh;
        bool tree_hit = vxk_kdtree_raycast(tree, &th, &r, (i & 1) ? scratch : NULL);
        bool brute_hit = brute_ray(m, &r, &bh);
        bool any = vxk_kdtree_raycast_any(tree, &r, (i & 2) ? scratch : NULL);
        if (getenv("KD_DEBUG") && (tree_hit != brute_hit || any != brute_hit)) {
            fprintf(stderr, "o %.9g %.9g %.9g d %.9g %.9g %.9g tmax %.9g\n", r.origin.x, r.origin.y,
                    r.origin.z, r.dir.x, r.dir.y, r.dir.z, r.tmax);
            for (uint32_t c = 0; c < m->corners; ++c) {
                vxk_vec3 v = m->vertices[m->indices[bh.primitive * m->corners + c]];
                fprintf(stderr, "v %.9g %.9g %.9g\n", v.x, v.y, v.z);
            }
            fprintf(stderr, "bounds %g %g %g %g %g %g\n", tree->bounds.min.x, tree->bounds.min.y,
                    tree->bounds.min.z, tree->bounds.max.x, tree->bounds.max.y, tree->bounds.max.z);
        }
        VXK_CHECK_MSG(tree_hit == brute_hit && any == brute_hit,
                      "ray %u: tree %d any %d brute %d (t %g prim %u)", i, tree_hit, any, brute_hit,
                      (double)bh.t, bh.primitive);
        if (!brute_hit)
            continue;
        // the same primitive test on the same data: identical results, ties to the lower index
        VXK_CHECK_MSG(th.primitive == bh.primitive && th.t == bh.t && th.u == bh.u && th.v == bh.v,
                      "ray %u: tree prim %u t %.9g, brute prim %u t %.9g", i, th.primitive,
                      (double)th.t, bh.primitive, (double)bh.t);
    }
    free(scratch);
    return 0;
}

static int check_tree(const vxk_mesh* m, uint64_t* s, uint32_t queries, uint32_t rays)
{
    vxk_kdtree tree;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, m, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_kdtree_validate(&tree), VXK_OK);
    // depth bound of the 25% rule
    double bound =
        m->primitive_count > 2 ? ceil(log(m->primitive_count / 2.0) / log(4.0 / 3.0)) + 1 : 0;
    VXK_CHECK_MSG(tree.depth <= bound, "depth %u > %g", tree.depth, bound);
    VXK_CHECK(tree.node_count <= (m->primitive_count > 1 ? 2 * m->primitive_count - 1 : 1));
    int fail = check_aabb_queries(&tree, m, s, queries) || check_rays(&tree, m, s, rays);
    vxk_kdtree_free(&tree);
    return fail;
}

// ---- tests ---------------------------------------------------------------------------------

static uint32_t scaled(uint32_t n)
{
    return VXK_TEST_SLOW ? (n + 3) / 4 : n;
}

static int test_soups(void)
{
    uint64_t s = vxk_test_seed(101);
    uint32_t total_rays = 0;
    for (int round = 0; round < 20; ++round) {
        soup_kind kind = (soup_kind)(round % SOUP_KIND_COUNT);
        uint32_t n = 1 + (uint32_t)(vxk_test_rand(&s) % 600);
        test_mesh m;
        make_soup(&m, &s, n, kind);
        uint32_t rays = scaled(3000);
        int fail = check_tree(&m.mesh, &s, scaled(300), rays);
        tm_free(&m);
        VXK_CHECK_MSG(!fail, "soup round %d kind %d n %u", round, (int)kind, n);
        total_rays += rays;
    }
    fprintf(stderr, "   soups: %u rays\n", total_rays);
    return 0;
}

static int test_voxel_meshes(void)
{
    uint64_t s = vxk_test_seed(202);
    uint32_t total_rays = 0;
    for (int round = 0; round < 20; ++round) {
        int g = 2 + (int)(vxk_test_rand(&s) % 9);
        uint32_t corners = round % 2 ? 4 : 3;
        vxk_int3 offset = {(int32_t)(vxk_test_rand(&s) % 64) - 32, 0, round * 8};
        test_mesh m;
        make_voxel_mesh(&m, &s, g, 20 + (uint32_t)(vxk_test_rand(&s) % 60), corners, offset);
        uint32_t rays = scaled(2000);
        int fail = check_tree(&m.mesh, &s, scaled(300), rays);
        tm_free(&m);
        VXK_CHECK_MSG(!fail, "voxel round %d g %d corners %u", round, g, corners);
        total_rays += rays;
    }
    fprintf(stderr, "   voxel meshes: %u rays\n", total_rays);
    return 0;
}

// Ties: coincident duplicate triangles must report the lower index, as the brute force does.
static int test_duplicates(void)
{
    uint64_t s = vxk_test_seed(303);
    test_mesh m;
    make_soup(&m, &s, 40, SOUP_RANDOM);
    // copy every triangle twice more, reusing the same vertices
    uint32_t n = m.mesh.primitive_count;
    uint32_t* idx = (uint32_t*)malloc(sizeof(uint32_t) * 9 * n);
    for (uint32_t k = 0; k < 3; ++k)
        memcpy(idx + 3 * n * k, m.mesh.indices, sizeof(uint32_t) * 3 * n);
    free(m.mesh.indices);
    m.mesh.indices = idx;
    m.mesh.primitive_count = 3 * n;
    int fail = check_tree(&m.mesh, &s, 200, scaled(5000));
    tm_free(&m);
    VXK_CHECK(!fail);
    return 0;
}

// The mesh of a test round: two rounds in three a voxel mesh (quads on odd rounds, triangles on
// even ones) at offset, the third a triangle soup.
static void make_round_mesh(test_mesh* m, uint64_t* s, int round, vxk_int3 offset)
{
    if (round % 3 != 2)
        make_voxel_mesh(m, s, 2 + (int)(vxk_test_rand(s) % 8), 40, round % 2 ? 4 : 3, offset);
    else
        make_soup(m, s, 1 + (uint32_t)(vxk_test_rand(s) % 400),
                  (soup_kind)(round % SOUP_KIND_COUNT));
}

static int test_quantized(void)
{
    uint64_t s = vxk_test_seed(404);
    for (int round = 0; round < 24; ++round) {
        test_mesh m;
        bool voxel = round % 3 != 2;
        make_round_mesh(&m, &s, round,
                        (vxk_int3){(int32_t)(vxk_test_rand(&s) % 2000) - 1000, 7, -300});
        vxk_kdtree16 q;
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &m.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&q), VXK_OK);
        vxk_mesh deq;
        VXK_CHECK_EQ_INT(vxk_kdtree16_dequantize(&q, &deq), VXK_OK);
        if (m.mesh.corners == 3)
            VXK_CHECK(q.vertex_count <= m.mesh.vertex_count); // welded
        else // three stored corners per quad, in leaf order
            VXK_CHECK(q.vertex_count == 3 * m.mesh.primitive_count && !q.indices);
        if (voxel) { // integer coordinates are exact on the power-of-two grid
            for (uint32_t i = 0; i < m.mesh.primitive_count * m.mesh.corners; ++i)
                VXK_CHECK(memcmp(&deq.vertices[deq.indices[i]], &m.mesh.vertices[m.mesh.indices[i]],
                                 sizeof(vxk_vec3)) == 0);
        }
        vxk_kdtree f;
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&f, &deq, NULL, 0), VXK_OK);
        // the same splits with wider leaves: the float tree with small subtrees collapsed
        VXK_CHECK(q.depth <= f.depth);
        VXK_CHECK(q.node_count <= f.node_count);
        VXK_CHECK(m.mesh.primitive_count == 0 ||
                  memcmp(&q.bounds, &f.bounds, sizeof(q.bounds)) == 0);
        vxk_aabb b = mesh_bounds(&deq);
        uint32_t cap = deq.primitive_count + 1;
        uint32_t* a1 = (uint32_t*)malloc(sizeof(uint32_t) * cap);
        uint32_t* a2 = (uint32_t*)malloc(sizeof(uint32_t) * cap);
        void* scratch = malloc(vxk_kdtree16_query_scratch_size(&q));
        for (uint32_t i = 0; i < scaled(2000); ++i) {
            vxk_kdtree_ray r = random_ray(&s, &deq, b);
            vxk_kdtree_hit h1, h2;
            bool hit1 = vxk_kdtree16_raycast(&q, &h1, &r, (i & 1) ? scratch : NULL);
            bool hit2 = vxk_kdtree_raycast(&f, &h2, &r, NULL);
            VXK_CHECK_EQ_INT(hit1, hit2);
            VXK_CHECK_EQ_INT(vxk_kdtree16_raycast_any(&q, &r, NULL), hit2);
            VXK_CHECK(memcmp(&h1, &h2, sizeof(h1)) == 0);
            vxk_vec3 c = r.origin;
            float h = vxk_test_randf(&s, 0, 3);
            vxk_aabb box = {{c.x - h, c.y - h, c.z - h}, {c.x + h, c.y + h, c.z + h}};
            if (i % 3 == 0 && deq.primitive_count) {
                vxk_vec3 p = deq.vertices[deq.indices[vxk_test_rand(&s) %
                                                      (deq.primitive_count * deq.corners)]];
                box = (vxk_aabb){p, {p.x + h, p.y, p.z + h}};
            }
            uint32_t n1 = vxk_kdtree16_query_aabb(&q, a1, cap, &box, (i & 1) ? scratch : NULL);
            uint32_t n2 = vxk_kdtree_query_aabb(&f, a2, cap, &box, NULL);
            VXK_CHECK_EQ_INT(n1, n2);
            qsort(a1, n1, sizeof(uint32_t), cmp_u32);
            qsort(a2, n2, sizeof(uint32_t), cmp_u32);
            VXK_CHECK(memcmp(a1, a2, sizeof(uint32_t) * n1) == 0);
            uint32_t w = brute_aabb(&deq, &box, a2);
            VXK_CHECK_EQ_INT(n1, w);
        }
        // byte accounting: 6-byte nodes, 3 x uint16 per vertex, uint16 indices (triangles) or
        // slot quad indices and the 16-byte padding of the leaf loads (quads)
        VXK_CHECK_EQ_U64(vxk_kdtree16_total_bytes(&q),
                         6ull * q.node_count + 6ull * q.vertex_count +
                             2ull * (q.corners == 3 ? 3 : 1) * q.primitive_count +
                             (q.corners == 3 ? 0 : 16));
        free(a1);
        free(a2);
        free(scratch);
        vxk_kdtree_free(&f);
        vxk_mesh_free(&deq);
        vxk_kdtree16_free(&q);
        tm_free(&m);
    }
    return 0;
}

// A soup of n quads with four independent random corners (not parallelograms).
static void make_quad_soup(test_mesh* m, uint64_t* s, uint32_t n, float spread)
{
    tm_init(m, 4, 4 * n, n);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_vec3 c = rand_point(s, -spread, spread);
        float size = vxk_test_randf(s, 0.05f, 3.0f);
        for (int k = 0; k < 4; ++k) {
            vxk_vec3 d = rand_point(s, -size, size);
            m->mesh.vertices[m->mesh.vertex_count] = (vxk_vec3){c.x + d.x, c.y + d.y, c.z + d.z};
            m->mesh.indices[4 * i + k] = m->mesh.vertex_count++;
        }
    }
    m->mesh.primitive_count = n;
}

// The quantized tree against brute force over its dequantized mesh, directly.
static int check_q16_against_brute(const vxk_kdtree16* q, const vxk_mesh* deq, uint64_t* s,
                                   uint32_t rays)
{
    uint32_t cap = deq->primitive_count + 1;
    uint32_t* got = (uint32_t*)malloc(sizeof(uint32_t) * cap);
    uint32_t* want = (uint32_t*)malloc(sizeof(uint32_t) * cap);
    void* scratch = malloc(vxk_kdtree16_query_scratch_size(q) + 1);
    vxk_aabb b = mesh_bounds(deq);
    for (uint32_t i = 0; i < rays; ++i) {
        vxk_kdtree_ray r = random_ray(s, deq, b);
        vxk_kdtree_hit th, bh;
        bool tree_hit = vxk_kdtree16_raycast(q, &th, &r, (i & 1) ? scratch : NULL);
        bool brute_hit = brute_ray(deq, &r, &bh);
        VXK_CHECK_MSG(tree_hit == brute_hit && vxk_kdtree16_raycast_any(q, &r, NULL) == brute_hit,
                      "q16 ray %u: tree %d brute %d", i, tree_hit, brute_hit);
        if (brute_hit)
            VXK_CHECK_MSG(th.primitive == bh.primitive && th.t == bh.t && th.u == bh.u &&
                              th.v == bh.v,
                          "q16 ray %u: tree prim %u t %.9g, brute prim %u t %.9g", i, th.primitive,
                          (double)th.t, bh.primitive, (double)bh.t);
        vxk_vec3 c = r.origin;
        float h = vxk_test_randf(s, 0, 4);
        vxk_aabb box = {{c.x - h, c.y - h, c.z - h}, {c.x + h, c.y + h, c.z + h}};
        if (i % 4 == 0 && deq->primitive_count)
            box = prim_bounds(deq, (uint32_t)(vxk_test_rand(s) % deq->primitive_count));
        uint32_t n = vxk_kdtree16_query_aabb(q, got, cap, &box, (i & 2) ? scratch : NULL);
        uint32_t w = brute_aabb(deq, &box, want);
        qsort(got, n, sizeof(uint32_t), cmp_u32);
        VXK_CHECK_MSG(n == w && memcmp(got, want, sizeof(uint32_t) * n) == 0,
                      "q16 box %u: tree %u brute %u", i, n, w);
    }
    free(got);
    free(want);
    free(scratch);
    return 0;
}

// Both quantized leaf layouts at every size class: triangle leaves of 4 packed 11-bit indices
// (1..2048 triangles) or 3 packed 14-bit ones (past 2048, up to the 16384 limit), and leaf-ordered
// quads (any quad taken as its parallelogram v0, v1, v3), each against brute force.
static int test_quantized_layouts(void)
{
    uint64_t s = vxk_test_seed(4242);
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 9, 37, 300, 2047, 2048, 2049, 5000, 16384};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        for (uint32_t corners = 3; corners <= 4; ++corners) {
            uint32_t n = sizes[k];
            test_mesh m;
            float spread = 4.0f + (float)sqrt((double)n);
            if (corners == 3)
                make_soup(&m, &s, n, (soup_kind)(k % SOUP_KIND_COUNT));
            else
                make_quad_soup(&m, &s, n, spread);
            vxk_kdtree16 q;
            VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &m.mesh, NULL, 0), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&q), VXK_OK);
            vxk_mesh deq;
            VXK_CHECK_EQ_INT(vxk_kdtree16_dequantize(&q, &deq), VXK_OK);
            VXK_CHECK_EQ_INT(deq.primitive_count, n);
            if (corners == 4) { // stored as parallelograms: v2 = v1 + (v3 - v0)
                for (uint32_t p = 0; p < n; ++p) {
                    const uint32_t* i4 = deq.indices + 4 * (size_t)p;
                    vxk_vec3 a = deq.vertices[i4[0]], b = deq.vertices[i4[1]];
                    vxk_vec3 c = deq.vertices[i4[2]], d = deq.vertices[i4[3]];
                    VXK_CHECK(c.x == b.x + (d.x - a.x) && c.y == b.y + (d.y - a.y) &&
                              c.z == b.z + (d.z - a.z));
                }
            }
            // wider leaves than the float tree's two: more than two primitives a leaf on average
            if (n >= 300)
                VXK_CHECK_MSG((double)n / ((q.node_count + 1) / 2) > 2.0, "n %u nodes %u", n,
                              q.node_count);
            uint32_t rays = scaled(n > 2048 ? 150 : 400);
            if (check_q16_against_brute(&q, &deq, &s, rays))
                return 1;
            // the validator notices a broken leaf layout
            if (corners == 4 && n >= 2) {
                uint16_t saved = q.ids[1];
                q.ids[1] = q.ids[0];
                VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&q), VXK_ERR_MALFORMED);
                q.ids[1] = saved;
            }
            if (q.node_count > 1) { // the root's left plane made too tight
                vxk_kdtree16_node saved = q.nodes[0];
                q.nodes[0].a = 0;
                q.nodes[0].b = 65535;
                VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&q), VXK_ERR_MALFORMED);
                q.nodes[0] = saved;
            }
            VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&q), VXK_OK);
            vxk_mesh_free(&deq);
            vxk_kdtree16_free(&q);
            tm_free(&m);
        }
    }
    // caller scratch and owned scratch give identical trees; too small a scratch changes nothing
    for (uint32_t corners = 3; corners <= 4; ++corners) {
        test_mesh m;
        if (corners == 3)
            make_soup(&m, &s, 700, SOUP_RANDOM);
        else
            make_quad_soup(&m, &s, 700, 20.0f);
        size_t need = vxk_kdtree_build_scratch_size(m.mesh.primitive_count);
        void* scratch = malloc(need);
        vxk_kdtree16 a, b;
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&a, &m.mesh, scratch, need), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&b, &m.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(a.node_count, b.node_count);
        VXK_CHECK_EQ_U64(vxk_kdtree16_total_bytes(&a), vxk_kdtree16_total_bytes(&b));
        VXK_CHECK(memcmp(a.nodes, b.nodes, vxk_kdtree16_total_bytes(&a)) == 0);
        vxk_kdtree16 untouched;
        memset(&untouched, 0xCD, sizeof(untouched));
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&untouched, &m.mesh, scratch, need - 1),
                         VXK_ERR_CAPACITY);
        VXK_CHECK(untouched.node_count == 0xCDCDCDCDu);
        vxk_kdtree16_free(&a);
        vxk_kdtree16_free(&b);
        free(scratch);
        tm_free(&m);
    }
    // the empty quad mesh: one empty leaf, queries find nothing
    vxk_mesh empty = {NULL, 0, NULL, NULL, 0, 4};
    vxk_kdtree16 e;
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&e, &empty, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&e), VXK_OK);
    vxk_kdtree_ray ray = {{0, 0, -5}, {0, 0, 1}, 100.0f};
    vxk_kdtree_hit hit;
    VXK_CHECK(!vxk_kdtree16_raycast(&e, &hit, &ray, NULL) && hit.primitive == VXK_KD_NO_PRIMITIVE);
    vxk_aabb all = {{-1e9f, -1e9f, -1e9f}, {1e9f, 1e9f, 1e9f}};
    VXK_CHECK_EQ_INT(vxk_kdtree16_query_aabb(&e, NULL, 0, &all, NULL), 0);
    vxk_kdtree16_free(&e);
    // past the limit: unsupported, nothing written
    test_mesh big;
    make_soup(&big, &s, VXK_KD16_MAX_PRIMITIVES + 1, SOUP_RANDOM);
    vxk_kdtree16 q;
    memset(&q, 0xAB, sizeof(q));
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &big.mesh, NULL, 0), VXK_ERR_UNSUPPORTED);
    VXK_CHECK(q.node_count == 0xABABABABu);
    tm_free(&big);
    return 0;
}

// The allocation-free build: the same nodes as the allocating build, in caller storage that the
// tree does not own; bad storage changes nothing.
static int test_build_in_storage(void)
{
    uint64_t s = vxk_test_seed(909);
    for (int round = 0; round < 12; ++round) {
        test_mesh m;
        if (round % 2)
            make_voxel_mesh(&m, &s, 2 + round, 35, round % 4 == 1 ? 4 : 3, (vxk_int3){3, -4, 5});
        else
            make_soup(&m, &s, (uint32_t)(vxk_test_rand(&s) % 900), (soup_kind)(round % 5));
        uint32_t n = m.mesh.primitive_count, cap = vxk_kdtree_max_nodes(n);
        VXK_CHECK_EQ_INT(cap, n > 1 ? 2 * n - 1 : 1);
        // storage inside a larger block with guard nodes on both sides
        vxk_kdtree_node* block = (vxk_kdtree_node*)malloc(sizeof(vxk_kdtree_node) * (cap + 2));
        memset(block, 0x5A, sizeof(vxk_kdtree_node) * (cap + 2));
        size_t need = vxk_kdtree_build_scratch_size(n);
        void* scratch = malloc(need);
        vxk_kdtree a, b;
        memset(&b, 0xAB, sizeof(b));
        vxk_kdtree untouched = b;
        // one node short (an empty or one-primitive mesh needs its single leaf too)
        VXK_CHECK_EQ_INT(vxk_kdtree_build_in(&b, &m.mesh, block + 1, cap - 1, scratch, need),
                         VXK_ERR_CAPACITY);
        VXK_CHECK(memcmp(&b, &untouched, sizeof(b)) == 0);
        VXK_CHECK_EQ_INT(vxk_kdtree_build_in(&b, &m.mesh, NULL, cap, scratch, need),
                         VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&a, &m.mesh, scratch, need), VXK_OK);
        void* sc = round % 3 ? scratch : NULL;
        VXK_CHECK_EQ_INT(vxk_kdtree_build_in(&b, &m.mesh, block + 1, cap, sc, sc ? need : 0),
                         VXK_OK);
        VXK_CHECK(b.nodes == block + 1 && !b.owns_nodes && a.owns_nodes);
        VXK_CHECK_EQ_INT(a.node_count, b.node_count);
        VXK_CHECK_EQ_INT(a.depth, b.depth);
        VXK_CHECK(memcmp(a.nodes, b.nodes, sizeof(vxk_kdtree_node) * a.node_count) == 0);
        VXK_CHECK(memcmp(&a.bounds, &b.bounds, sizeof(a.bounds)) == 0);
        VXK_CHECK_EQ_INT(vxk_kdtree_validate(&b), VXK_OK);
        // guards untouched: nothing written outside the given capacity
        vxk_kdtree_node guard;
        memset(&guard, 0x5A, sizeof(guard));
        VXK_CHECK(memcmp(&block[0], &guard, sizeof(guard)) == 0);
        VXK_CHECK(memcmp(&block[cap + 1], &guard, sizeof(guard)) == 0);
        if (check_rays(&b, &m.mesh, &s, scaled(300)) ||
            check_aabb_queries(&b, &m.mesh, &s, scaled(200)))
            return 1;
        vxk_kdtree_free(&b); // zeroes, frees nothing (ASan would flag a bad free)
        VXK_CHECK(b.nodes == NULL && b.node_count == 0);
        vxk_kdtree_free(&a);
        free(scratch);
        free(block);
        tm_free(&m);
    }
    return 0;
}

// A quad tree over voxel quads against a triangle tree over the same quads split in two.
static int test_quads_vs_triangles(void)
{
    uint64_t s = vxk_test_seed(505);
    uint32_t disagreements = 0, rays_total = 0;
    for (int round = 0; round < 12; ++round) {
        int g = 3 + (int)(vxk_test_rand(&s) % 7);
        uint64_t seed = vxk_test_rand(&s);
        uint64_t s1 = seed, s2 = seed;
        test_mesh mq, mt;
        vxk_int3 offset = {round, -round, 3};
        make_voxel_mesh(&mq, &s1, g, 45, 4, offset);
        make_voxel_mesh(&mt, &s2, g, 45, 3, offset);
        VXK_CHECK_EQ_INT(mt.mesh.primitive_count, 2 * mq.mesh.primitive_count);
        vxk_kdtree tq, tt;
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&tq, &mq.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&tt, &mt.mesh, NULL, 0), VXK_OK);
        vxk_aabb b = mesh_bounds(&mq.mesh);
        uint32_t cap = mt.mesh.primitive_count + 1;
        uint32_t* a1 = (uint32_t*)malloc(sizeof(uint32_t) * cap);
        uint32_t* a2 = (uint32_t*)malloc(sizeof(uint32_t) * cap);
        for (uint32_t i = 0; i < scaled(4000); ++i) {
            vxk_kdtree_ray r = random_ray(&s, &mq.mesh, b);
            if (i % 7 == 2 || i % 7 == 3) // keep off the exact-edge rays: the splits differ there
                r.dir.x += 1e-3f;
            vxk_kdtree_hit hq, ht;
            bool q_hit = vxk_kdtree_raycast(&tq, &hq, &r, NULL);
            bool t_hit = vxk_kdtree_raycast(&tt, &ht, &r, NULL);
            ++rays_total;
            bool agree = q_hit == t_hit;
            if (agree && q_hit) {
                float tol = 1e-5f * fmaxf(1.0f, fabsf(hq.t));
                agree = fabsf(hq.t - ht.t) <= tol;
                if (agree && hq.primitive != ht.primitive / 2) {
                    // a different primitive only at an equal distance (a shared edge)
                    agree = fabsf(hq.t - ht.t) <= tol;
                }
            }
            if (!agree) {
                // allowed only within rounding of a quad's border: the nearer of the two hits
                // (the one the other tree missed) must lie on one
                bool use_q = q_hit && (!t_hit || hq.t <= ht.t);
                const vxk_kdtree_hit* h = use_q ? &hq : &ht;
                vxk_vec3 p = {r.origin.x + h->t * r.dir.x, r.origin.y + h->t * r.dir.y,
                              r.origin.z + h->t * r.dir.z};
                uint32_t quad = use_q ? hq.primitive : ht.primitive / 2;
                const uint32_t* idx = mq.mesh.indices + 4 * quad;
                vxk_vec3 v0 = mq.mesh.vertices[idx[0]], v2 = mq.mesh.vertices[idx[2]];
                float d = FLT_MAX;
                float pa[3] = {p.x, p.y, p.z},
                      lo[3] = {fminf(v0.x, v2.x), fminf(v0.y, v2.y), fminf(v0.z, v2.z)};
                float hi[3] = {fmaxf(v0.x, v2.x), fmaxf(v0.y, v2.y), fmaxf(v0.z, v2.z)};
                for (int a = 0; a < 3; ++a)
                    if (hi[a] > lo[a])
                        d = fminf(d, fminf(fabsf(pa[a] - lo[a]), fabsf(pa[a] - hi[a])));
                // the diagonal v0-v2 is the triangles' shared edge, a border of theirs (Moller-
                // Trumbore is not watertight there: both triangles can miss a point on it)
                double w[3] = {pa[0] - v0.x, pa[1] - v0.y, pa[2] - v0.z};
                double g[3] = {v2.x - v0.x, v2.y - v0.y, v2.z - v0.z};
                double cr[3] = {w[1] * g[2] - w[2] * g[1], w[2] * g[0] - w[0] * g[2],
                                w[0] * g[1] - w[1] * g[0]};
                double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
                d = fminf(d, (float)(sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / gl));
                if (getenv("KD_DEBUG") && d >= 1e-3f)
                    fprintf(stderr,
                            "o %.9g %.9g %.9g d %.9g %.9g %.9g tmax %g q %d %u %g t %d %u %g\n",
                            r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z, r.tmax,
                            q_hit, hq.primitive, hq.t, t_hit, ht.primitive, ht.t);
                VXK_CHECK_MSG(d < 1e-3f, "quad/triangle disagree off the border: ray %u d %g", i,
                              (double)d);
                ++disagreements;
            }
            vxk_vec3 c = r.origin;
            float h = vxk_test_randf(&s, 0, 2);
            vxk_aabb box = {{c.x - h, c.y - h, c.z - h}, {c.x + h, c.y + h, c.z + h}};
            uint32_t n1 = vxk_kdtree_query_aabb(&tq, a1, cap, &box, NULL);
            uint32_t n2 = vxk_kdtree_query_aabb(&tt, a2, cap, &box, NULL);
            VXK_CHECK_EQ_INT(2 * n1, n2);
            for (uint32_t k = 0; k < n2; ++k)
                a2[k] /= 2;
            qsort(a1, n1, sizeof(uint32_t), cmp_u32);
            qsort(a2, n2, sizeof(uint32_t), cmp_u32);
            for (uint32_t k = 0; k < n1; ++k)
                VXK_CHECK(a1[k] == a2[2 * k] && a1[k] == a2[2 * k + 1]);
        }
        free(a1);
        free(a2);
        vxk_kdtree_free(&tq);
        vxk_kdtree_free(&tt);
        tm_free(&mq);
        tm_free(&mt);
    }
    fprintf(stderr, "   quads vs triangles: %u rays, %u border disagreements\n", rays_total,
            disagreements);
    VXK_CHECK(disagreements * 100 <= rays_total); // rays aimed at edges make most of them
    return 0;
}

// The quad test on axis-aligned rectangles (voxel faces, any corner order) against an exact
// double-precision plane test: hits agree away from the border and the segment's ends, t within
// 1e-6 relative, (u, v) within 1e-4; rays parallel to the rectangle miss.
static int test_rectangles(void)
{
    uint64_t s = vxk_test_seed(9191);
    uint32_t hits = 0, checked = 0;
    for (uint32_t i = 0; i < scaled(200000); ++i) {
        int k = (int)(vxk_test_rand(&s) % 3), a1 = (k + 1 + (int)(vxk_test_rand(&s) % 2)) % 3;
        int a3 = 3 - k - a1;
        float p0[3], e1[3] = {0, 0, 0}, e3[3] = {0, 0, 0};
        for (int a = 0; a < 3; ++a)
            p0[a] = (float)(int)vxk_test_randf(&s, -8.0f, 8.0f);
        e1[a1] = (float)(1 + (int)(vxk_test_rand(&s) % 6)) * (vxk_test_rand(&s) & 1 ? 1.0f : -1.0f);
        e3[a3] = (float)(1 + (int)(vxk_test_rand(&s) % 6)) * (vxk_test_rand(&s) & 1 ? 1.0f : -1.0f);
        vxk_vec3 v0 = {p0[0], p0[1], p0[2]};
        vxk_vec3 v1 = {p0[0] + e1[0], p0[1] + e1[1], p0[2] + e1[2]};
        vxk_vec3 v3 = {p0[0] + e3[0], p0[1] + e3[1], p0[2] + e3[2]};
        vxk_kdtree_ray r;
        r.origin = (vxk_vec3){vxk_test_randf(&s, -12, 12), vxk_test_randf(&s, -12, 12),
                              vxk_test_randf(&s, -12, 12)};
        float target[3];
        for (int a = 0; a < 3; ++a)
            target[a] = p0[a] + vxk_test_randf(&s, -0.2f, 1.2f) * e1[a] +
                        vxk_test_randf(&s, -0.2f, 1.2f) * e3[a];
        float o[3] = {r.origin.x, r.origin.y, r.origin.z}, d[3];
        for (int a = 0; a < 3; ++a)
            d[a] = target[a] - o[a];
        if (i % 5 == 0)
            d[k] = 0.0f; // parallel to the plane
        r.dir = (vxk_vec3){d[0], d[1], d[2]};
        r.tmax = i % 3 == 0 ? vxk_test_randf(&s, 0.0f, 1.5f) : 2.0f;
        float t, u, v;
        bool got = vxk_kdtree_intersect_quad(&r, v0, v1, v3, r.tmax, &t, &u, &v);
        if (d[k] == 0.0f) {
            VXK_CHECK_MSG(!got, "ray %u parallel to the rectangle hits", i);
            continue;
        }
        double td = ((double)p0[k] - o[k]) / d[k];
        double uu = ((double)o[a1] + td * d[a1] - p0[a1]) / e1[a1];
        double vv = ((double)o[a3] + td * d[a3] - p0[a3]) / e3[a3];
        bool want = uu >= 0 && uu <= 1 && vv >= 0 && vv <= 1 && td >= 0 && td <= r.tmax;
        double border = fmin(fmin(fabs(uu), fabs(1 - uu)), fmin(fabs(vv), fabs(1 - vv)));
        double tborder = fmin(fabs(td), fabs(td - r.tmax));
        double len = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
        if (border < 1e-4 || tborder < 1e-4 || fabs(d[k]) < 1e-4 * len)
            continue; // within rounding of an edge or an end, or nearly in the plane (documented
                      // to miss)
        ++checked;
        VXK_CHECK_MSG(got == want, "ray %u: rectangle test %d, reference %d", i, got, want);
        if (got) {
            ++hits;
            VXK_CHECK(fabs(t - td) <= 1e-6 * fmax(1.0, fabs(td)));
            VXK_CHECK(fabs(u - uu) <= 1e-4 && fabs(v - vv) <= 1e-4);
        }
    }
    VXK_CHECK(hits > checked / 10 && hits < checked);
    return 0;
}

// Rays parallel to a plane of the voxel lattice and within a few ulps of it (a flat axis): the
// primitive test's rounding may accept a face that lies just past the ray, and the trees must
// then visit it too, so that float and quantized trees still equal brute force exactly.
static int test_flat_rays(void)
{
    uint64_t s = vxk_test_seed(7070);
    uint32_t checked = 0, hits = 0;
    for (int round = 0; round < 16; ++round) {
        test_mesh m;
        make_voxel_mesh(&m, &s, 2 + (int)(vxk_test_rand(&s) % 7), 45, round % 2 ? 4 : 3,
                        (vxk_int3){round - 8, 5, -3});
        vxk_kdtree f;
        vxk_kdtree16 q;
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&f, &m.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &m.mesh, NULL, 0), VXK_OK);
        vxk_aabb b = mesh_bounds(&m.mesh);
        for (uint32_t i = 0; i < scaled(3000); ++i) {
            vxk_kdtree_ray r = random_ray(&s, &m.mesh, b);
            float* o = &r.origin.x;
            float* d = &r.dir.x;
            int flat = (int)(vxk_test_rand(&s) % 3);
            d[flat] = 0.0f;
            if (i % 3 == 0)
                d[(flat + 1) % 3] = 0.0f;
            if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)
                d[(flat + 2) % 3] = 1.0f;
            // on a lattice plane, nudged by up to 3 ulps either way
            float plane = roundf(o[flat]);
            int ulps = (int)(vxk_test_rand(&s) % 7) - 3;
            o[flat] = plane;
            for (; ulps > 0; --ulps)
                o[flat] = nextafterf(o[flat], INFINITY);
            for (; ulps < 0; ++ulps)
                o[flat] = nextafterf(o[flat], -INFINITY);
            vxk_kdtree_hit want, got_f, got_q;
            bool hit = brute_ray(&m.mesh, &r, &want);
            VXK_CHECK_EQ_INT(vxk_kdtree_raycast(&f, &got_f, &r, NULL), hit);
            VXK_CHECK_EQ_INT(vxk_kdtree16_raycast(&q, &got_q, &r, NULL), hit);
            VXK_CHECK_MSG(memcmp(&want, &got_f, sizeof(want)) == 0,
                          "round %d ray %u: float tree t %.9g prim %u, brute t %.9g prim %u", round,
                          i, (double)got_f.t, got_f.primitive, (double)want.t, want.primitive);
            VXK_CHECK(memcmp(&want, &got_q, sizeof(want)) == 0);
            ++checked;
            hits += hit;
        }
        vxk_kdtree_free(&f);
        vxk_kdtree16_free(&q);
        tm_free(&m);
    }
    VXK_CHECK(hits > checked / 20 && hits < checked);
    return 0;
}

static int test_validator_catches_corruption(void)
{
    uint64_t s = vxk_test_seed(606);
    test_mesh m;
    make_soup(&m, &s, 300, SOUP_RANDOM);
    vxk_kdtree tree;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &m.mesh, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_kdtree_validate(&tree), VXK_OK);
    int caught = 0, tried = 0;
    for (uint32_t i = 0; i < tree.node_count; ++i) {
        vxk_kdtree_node saved = tree.nodes[i];
        uint32_t axis = saved.info & 3u;
        if (axis != VXK_KD_LEAF) {
            tree.nodes[i].splits[0] = saved.splits[0] - 0.5f; // left plane too tight
        } else if ((saved.info >> 2) == 2) {
            tree.nodes[i].primitives[1] = saved.primitives[0]; // a primitive twice
        } else {
            continue;
        }
        ++tried;
        caught += vxk_kdtree_validate(&tree) == VXK_ERR_MALFORMED;
        tree.nodes[i] = saved;
    }
    VXK_CHECK(tried > 10);
    VXK_CHECK_EQ_INT(caught, tried);
    uint32_t saved_depth = tree.depth;
    tree.depth = saved_depth + 1;
    VXK_CHECK_EQ_INT(vxk_kdtree_validate(&tree), VXK_ERR_MALFORMED);
    tree.depth = saved_depth;
    vxk_kdtree_free(&tree);
    tm_free(&m);
    return 0;
}

static int test_bad_input_and_edges(void)
{
    uint64_t s = vxk_test_seed(707);
    test_mesh m;
    make_soup(&m, &s, 50, SOUP_RANDOM);
    vxk_kdtree tree;
    memset(&tree, 0xAB, sizeof(tree));
    vxk_kdtree before = tree;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(NULL, &m.mesh, NULL, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, NULL, NULL, 0), VXK_ERR_INVALID_ARGUMENT);
    m.mesh.corners = 5;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &m.mesh, NULL, 0), VXK_ERR_INVALID_ARGUMENT);
    m.mesh.corners = 3;
    m.mesh.indices[7] = m.mesh.vertex_count;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &m.mesh, NULL, 0), VXK_ERR_OUT_OF_RANGE);
    m.mesh.indices[7] = 0;
    float saved = m.mesh.vertices[3].y;
    m.mesh.vertices[3].y = NAN;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &m.mesh, NULL, 0), VXK_ERR_NOT_FINITE);
    m.mesh.vertices[3].y = -INFINITY;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &m.mesh, NULL, 0), VXK_ERR_NOT_FINITE);
    m.mesh.vertices[3].y = INFINITY;
    vxk_kdtree16 q16_untouched;
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q16_untouched, &m.mesh, NULL, 0), VXK_ERR_NOT_FINITE);
    m.mesh.vertices[3].y = saved;
    uint64_t small[4];
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &m.mesh, small, sizeof(small)), VXK_ERR_CAPACITY);
    VXK_CHECK(memcmp(&tree, &before, sizeof(tree)) == 0);

    // caller scratch gives the same tree as owned scratch, and builds are deterministic
    size_t need = vxk_kdtree_build_scratch_size(m.mesh.primitive_count);
    void* scratch = malloc(need);
    vxk_kdtree t1, t2;
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&t1, &m.mesh, scratch, need), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&t2, &m.mesh, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(t1.node_count, t2.node_count);
    VXK_CHECK(memcmp(t1.nodes, t2.nodes, sizeof(vxk_kdtree_node) * t1.node_count) == 0);
    VXK_CHECK_EQ_U64(vxk_kdtree_bytes(&t1), 12ull * t1.node_count);
    free(scratch);

    // hostile queries
    vxk_kdtree_ray r = {{0, 0, -50}, {0, 0, 1}, NAN};
    vxk_kdtree_hit h;
    VXK_CHECK(!vxk_kdtree_raycast(&t1, &h, &r, NULL));
    VXK_CHECK_EQ_U64(h.primitive, VXK_KD_NO_PRIMITIVE);
    r.tmax = 100.0f;
    r.dir = (vxk_vec3){0, 0, 0};
    VXK_CHECK(!vxk_kdtree_raycast(&t1, &h, &r, NULL));
    r.dir = (vxk_vec3){NAN, 0, 1};
    VXK_CHECK(!vxk_kdtree_raycast_any(&t1, &r, NULL));
    r.dir = (vxk_vec3){0, 0, 1};
    r.tmax = -1.0f;
    VXK_CHECK(!vxk_kdtree_raycast(&t1, &h, &r, NULL));
    VXK_CHECK(!vxk_kdtree_raycast(&t1, &h, NULL, NULL));
    uint32_t out[4];
    vxk_aabb nan_box = {{NAN, 0, 0}, {1, 1, 1}};
    VXK_CHECK_EQ_INT(vxk_kdtree_query_aabb(&t1, out, 4, &nan_box, NULL), 0);
    vxk_aabb inverted = {{1, 1, 1}, {0, 0, 0}};
    VXK_CHECK_EQ_INT(vxk_kdtree_query_aabb(&t1, out, 4, &inverted, NULL), 0);
    vxk_aabb all = {{-100, -100, -100}, {100, 100, 100}};
    VXK_CHECK_EQ_INT(vxk_kdtree_query_aabb(&t1, out, 4, &all, NULL), 50);
    VXK_CHECK_EQ_INT(vxk_kdtree_query_aabb(&t1, NULL, 0, &all, NULL), 50);
    vxk_kdtree_free(&t1);
    vxk_kdtree_free(&t2);

    // the empty mesh: one empty leaf, queries find nothing
    vxk_mesh empty = {NULL, 0, NULL, NULL, 0, 3};
    VXK_CHECK_EQ_INT(vxk_kdtree_build(&t1, &empty, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_INT(t1.node_count, 1);
    VXK_CHECK_EQ_INT(vxk_kdtree_validate(&t1), VXK_OK);
    r.tmax = 10.0f;
    VXK_CHECK(!vxk_kdtree_raycast(&t1, &h, &r, NULL));
    VXK_CHECK_EQ_INT(vxk_kdtree_query_aabb(&t1, out, 4, &all, NULL), 0);
    vxk_kdtree_free(&t1);
    vxk_kdtree16 q;
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &empty, NULL, 0), VXK_OK);
    VXK_CHECK(!vxk_kdtree16_raycast(&q, &h, &r, NULL));
    vxk_kdtree16_free(&q);
    tm_free(&m);

    // too large for the quantized tree
    test_mesh big;
    make_soup(&big, &s, VXK_KD16_MAX_PRIMITIVES + 1, SOUP_RANDOM);
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &big.mesh, NULL, 0), VXK_ERR_UNSUPPORTED);
    tm_free(&big);
    return 0;
}

// A large soup: the depth bound holds and the tree validates.
static int test_large(void)
{
    uint64_t s = vxk_test_seed(808);
    test_mesh m;
    make_soup(&m, &s, VXK_TEST_SLOW ? 20000 : 200000, SOUP_CLUSTER);
    int fail = check_tree(&m.mesh, &s, 50, 200);
    tm_free(&m);
    VXK_CHECK(!fail);
    return 0;
}

// ---- watertightness
// ------------------------------------------------------------------------------

// The closed surface of the box [lo, lo + size) of whole numbers, each unit square of it a quad
// (wound outwards), for squares whose centre x is below split (below) or not (!below). Corners
// are stored relative to shift.
static void make_box_surface(test_mesh* m, const int32_t lo[3], const int32_t size[3], float split,
                             bool below, const int32_t shift[3])
{
    uint32_t n = 2 * (uint32_t)(size[0] * size[1] + size[1] * size[2] + size[0] * size[2]);
    tm_init(m, 4, 4 * n, n);
    for (int k = 0; k < 3; ++k) {
        int a = (k + 1) % 3, b = (k + 2) % 3; // a x b points along +k
        for (int side = 0; side < 2; ++side)
            for (int i = 0; i < size[a]; ++i)
                for (int j = 0; j < size[b]; ++j) {
                    float p[4][3];
                    for (int c = 0; c < 4; ++c) {
                        int di = c == 1 || c == 2, dj = c >= 2;
                        if (!side) { // the -k face winds the other way
                            int x = di;
                            di = dj;
                            dj = x;
                        }
                        p[c][k] = (float)(lo[k] + side * size[k] - shift[k]);
                        p[c][a] = (float)(lo[a] + i + di - shift[a]);
                        p[c][b] = (float)(lo[b] + j + dj - shift[b]);
                    }
                    float cx = 0.25f * (p[0][0] + p[1][0] + p[2][0] + p[3][0]) + (float)shift[0];
                    if ((cx < split) != below)
                        continue;
                    uint32_t q = m->mesh.primitive_count++;
                    for (int c = 0; c < 4; ++c) {
                        m->mesh.vertices[m->mesh.vertex_count] =
                            (vxk_vec3){p[c][0], p[c][1], p[c][2]};
                        m->mesh.indices[4 * q + (uint32_t)c] = m->mesh.vertex_count++;
                    }
                }
    }
}

// Rays aimed exactly at lattice points of a box's surface built from unit squares: points on
// edges that squares share (every one split between two quads, every lattice point shared by
// four), on the box's own edges and at its corners, from 10 to 20 units away and towards a point
// inside the box. The float ray passes within an ulp or so of the point, and must hit the
// surface there (t within 1e-5 of 1: its direction is the rounded origin to the point): in the
// float tree, the quantized tree (leaves of rectangles), a brute-force scan with
// vxk_kdtree_intersect_quad, and two trees holding the two halves of the surface at different
// shifts queried in one vxk_kdtree_frame (faces meeting across trees).
static int test_watertight_quads(void)
{
    uint64_t s = vxk_test_seed(4242);
    uint32_t rays = 0;
    for (int round = 0; round < 12; ++round) {
        int32_t lo[3], size[3], none[3] = {0, 0, 0};
        int32_t shift_a[3] = {-16, 8, 0}, shift_b[3] = {24, -8, 40 + round};
        for (int a = 0; a < 3; ++a) {
            lo[a] = (int32_t)(vxk_test_rand(&s) % 21) - 10;
            size[a] = 1 + (int32_t)(vxk_test_rand(&s) % 5);
        }
        float split = (float)lo[0] + (float)(vxk_test_rand(&s) % (uint64_t)(size[0] + 1));
        test_mesh whole, half_a, half_b;
        make_box_surface(&whole, lo, size, INFINITY, true, none);
        make_box_surface(&half_a, lo, size, split, true, shift_a);
        make_box_surface(&half_b, lo, size, split, false, shift_b);
        vxk_kdtree f, fa;
        vxk_kdtree16 q, qb;
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&f, &whole.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&q, &whole.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree_build(&fa, &half_a.mesh, NULL, 0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_kdtree16_build(&qb, &half_b.mesh, NULL, 0), VXK_OK);
        for (uint32_t i = 0; i < scaled(4000); i += 8) {
            for (int l = 0; l < 8; ++l, ++rays) {
                // a lattice point on the surface: one coordinate on a face, the others whole
                double p[3];
                int k = (int)(vxk_test_rand(&s) % 3);
                for (int a = 0; a < 3; ++a)
                    p[a] = lo[a] + (double)(vxk_test_rand(&s) % (uint64_t)(size[a] + 1));
                p[k] = lo[k] + (vxk_test_rand(&s) % 2 ? size[k] : 0);
                int e = (k + 1) % 3;
                if (vxk_test_rand(&s) % 3 == 0) // anywhere along an edge
                    p[e] = lo[e] + (double)(vxk_test_rand(&s) % (uint64_t)size[e]) +
                           vxk_test_randf(&s, 0, 1);
                double inside[3], dir[3], len = 0.0;
                for (int a = 0; a < 3; ++a) {
                    inside[a] = lo[a] + vxk_test_randf(&s, 0.25f, 0.75f) * size[a];
                    dir[a] = inside[a] - p[a];
                    len += dir[a] * dir[a];
                }
                double dist = vxk_test_randf(&s, 10, 20) / sqrt(len);
                float o[3];
                for (int a = 0; a < 3; ++a)
                    o[a] = (float)(p[a] - dist * dir[a]);
                vxk_kdtree_ray r = {
                    {o[0], o[1], o[2]},
                    {(float)(p[0] - o[0]), (float)(p[1] - o[1]), (float)(p[2] - o[2])},
                    2.0f};
                vxk_kdtree_hit hf, hq, hb;
                bool got_f = vxk_kdtree_raycast(&f, &hf, &r, NULL);
                bool got_q = vxk_kdtree16_raycast(&q, &hq, &r, NULL);
                bool got_b = brute_ray(&whole.mesh, &r, &hb);
                VXK_CHECK_MSG(got_f && fabsf(hf.t - 1.0f) < 1e-5f,
                              "round %d ray %u: float tree %d at %.9g, aimed at (%g %g %g)", round,
                              i + (uint32_t)l, got_f, (double)hf.t, p[0], p[1], p[2]);
                VXK_CHECK_MSG(got_q && memcmp(&hq, &hf, sizeof(hq)) == 0 && got_b &&
                                  memcmp(&hb, &hf, sizeof(hb)) == 0,
                              "round %d ray %u: trees and brute force differ", round,
                              i + (uint32_t)l);
                // the two halves, each in its own coordinates, tested in the shared frame
                vxk_kdtree_frame frame = {r.origin, {shift_a[0], shift_a[1], shift_a[2]}};
                vxk_kdtree_ray ra = {
                    {o[0] - (float)shift_a[0], o[1] - (float)shift_a[1], o[2] - (float)shift_a[2]},
                    r.dir,
                    2.0f};
                vxk_kdtree_hit ha, hb2;
                bool got_a = vxk_kdtree_raycast_framed(&fa, &ha, &ra, &frame, false, NULL);
                for (int a = 0; a < 3; ++a)
                    frame.shift[a] = shift_b[a];
                vxk_kdtree_ray rb = {
                    {o[0] - (float)shift_b[0], o[1] - (float)shift_b[1], o[2] - (float)shift_b[2]},
                    r.dir,
                    2.0f};
                bool got_b2 = vxk_kdtree16_raycast_framed(&qb, &hb2, &rb, &frame, false, NULL);
                float t = fminf(got_a ? ha.t : INFINITY, got_b2 ? hb2.t : INFINITY);
                VXK_CHECK_MSG(fabsf(t - 1.0f) < 1e-5f,
                              "round %d ray %u: halves %d %d at %.9g, aimed at (%g %g %g)", round,
                              i + (uint32_t)l, got_a, got_b2, (double)t, p[0], p[1], p[2]);
                VXK_CHECK(vxk_kdtree16_raycast_framed(&qb, NULL, &rb, &frame, true, NULL) ==
                          got_b2);
            }
        }
        vxk_kdtree_free(&f);
        vxk_kdtree_free(&fa);
        vxk_kdtree16_free(&q);
        vxk_kdtree16_free(&qb);
        tm_free(&whole);
        tm_free(&half_a);
        tm_free(&half_b);
    }
    fprintf(stderr, "   watertight quads: %u rays\n", rays);
    return 0;
}

int main(void)
{
    VXK_RUN(test_soups);
    VXK_RUN(test_voxel_meshes);
    VXK_RUN(test_duplicates);
    VXK_RUN(test_quantized);
    VXK_RUN(test_quantized_layouts);
    VXK_RUN(test_build_in_storage);
    VXK_RUN(test_quads_vs_triangles);
    VXK_RUN(test_rectangles);
    VXK_RUN(test_flat_rays);
    VXK_RUN(test_validator_catches_corruption);
    VXK_RUN(test_bad_input_and_edges);
    VXK_RUN(test_large);
    VXK_RUN(test_watertight_quads);
    return vxk_test_finish();
}
