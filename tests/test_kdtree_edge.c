// test_kdtree_edge.c: the kD trees' validation contract (query results are tested in
// test_kdtree.c): bad meshes, scratch and queries are refused or find nothing and write nothing,
// for the float and the 16-bit tree; builds out of memory leave the tree
// untouched and leak nothing.
#include <float.h>
#include <math.h>
#include <string.h>

#include <vxk/vxk.h>

#include "harness.h"
#include "scenes.h"
#include "test.h"
#include "status_lists.h"

// ---- bad input and out of memory ----------------------------------------------------------------

static int test_kdtree_edges(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_vec3 verts[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    vxk_mesh mesh = {verts, 4, idx, NULL, 2, 3};
    vxk_kdtree tree;
    memset(&tree, CANARY, sizeof(tree));
    VXK_CHECK(vxk_kdtree_build(NULL, &mesh, NULL, 0) != VXK_OK);
    VXK_CHECK(vxk_kdtree_build(&tree, NULL, NULL, 0) != VXK_OK);
    vxk_mesh m = mesh;
    m.corners = 2;
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    m = mesh;
    m.vertex_count = 3;
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    m = mesh;
    m.indices = NULL;
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    m = mesh;
    m.primitive_count = VXK_KD_MAX_PRIMITIVES + 1; // rejected before the indices are read
    VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    for (int k = 0; k < 3; ++k) {
        vxk_vec3 nv[4];
        memcpy(nv, verts, sizeof(nv));
        nv[1].z = special_float(k);
        m = mesh;
        m.vertices = nv;
        VXK_CHECK(vxk_kdtree_build(&tree, &m, NULL, 0) != VXK_OK);
    }
    // Scratch too small or misaligned.
    uint64_t scratch[512];
    size_t need = vxk_kdtree_build_scratch_size(2);
    VXK_CHECK(need <= sizeof(scratch));
    VXK_CHECK(vxk_kdtree_build(&tree, &mesh, scratch, need - 1) != VXK_OK);
    VXK_CHECK(vxk_kdtree_build(&tree, &mesh, (uint8_t*)scratch + 4, need) != VXK_OK);
    VXK_CHECK(all_canary(&tree, sizeof(tree)));
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);

    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &mesh, scratch, need), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_kdtree_validate(&tree), VXK_OK);
    // Queries with non-finite or inverted input find nothing and write nothing.
    uint32_t out[8];
    for (int k = 0; k < 3; ++k) {
        float v = special_float(k);
        vxk_aabb box = {{-1, -1, -1}, {2, 2, 2}};
        box.min.y = v;
        box.max.y = k == 2 ? v : box.max.y;
        memset(out, CANARY, sizeof(out));
        if (k == 0)
            VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 8, &box, NULL), 0);
        vxk_kdtree_ray ray = {{0.5f, 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
        (&ray.origin.x)[k] = v;
        vxk_kdtree_hit hit;
        VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &ray, NULL));
        VXK_CHECK(!vxk_kdtree_raycast_any(&tree, &ray, NULL));
        ray = (vxk_kdtree_ray){{0.5f, 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
        (&ray.dir.x)[k] = v;
        VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &ray, NULL));
        VXK_CHECK(!vxk_kdtree_raycast_any(&tree, &ray, NULL));
    }
    vxk_aabb inverted = {{2, 2, 2}, {-1, -1, -1}};
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 8, &inverted, NULL), 0);
    vxk_kdtree_ray zero_dir = {{0.5f, 0.5f, -1.0f}, {0, 0, 0}, 10.0f};
    vxk_kdtree_hit hit;
    VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &zero_dir, NULL));
    vxk_kdtree_ray negative = {{0.5f, 0.5f, -1.0f}, {0, 0, 1}, -1.0f};
    VXK_CHECK(!vxk_kdtree_raycast(&tree, &hit, &negative, NULL));
    // Capacity 0 counts without writing.
    vxk_aabb all = {{-1, -1, -1}, {2, 2, 2}};
    memset(out, CANARY, sizeof(out));
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 0, &all, NULL), 2);
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, NULL, 0, &all, NULL), 2);
    VXK_CHECK(all_canary(out, sizeof(out)));
    VXK_CHECK_EQ_U64(vxk_kdtree_query_aabb(&tree, out, 1, &all, NULL), 2);
    VXK_CHECK(all_canary(out + 1, sizeof(out) - sizeof(out[0])));
    vxk_kdtree_free(&tree);
    vxk_kdtree_free(NULL);

    // The 16-bit variant.
    vxk_kdtree16 t16;
    memset(&t16, CANARY, sizeof(t16));
    VXK_CHECK(vxk_kdtree16_build(NULL, &mesh, NULL, 0) != VXK_OK);
    VXK_CHECK(vxk_kdtree16_build(&t16, NULL, NULL, 0) != VXK_OK);
    m = mesh;
    m.corners = 7;
    VXK_CHECK(vxk_kdtree16_build(&t16, &m, NULL, 0) != VXK_OK);
    {
        vxk_vec3 nv[4];
        memcpy(nv, verts, sizeof(nv));
        nv[0].x = f_nan();
        m = mesh;
        m.vertices = nv;
        VXK_CHECK(vxk_kdtree16_build(&t16, &m, NULL, 0) != VXK_OK);
    }
    m = mesh;
    m.primitive_count = VXK_KD16_MAX_PRIMITIVES + 1;
    m.indices = NULL;
    VXK_CHECK(vxk_kdtree16_build(&t16, &m, NULL, 0) != VXK_OK);
    VXK_CHECK(vxk_kdtree16_build(&t16, &mesh, scratch, need - 1) != VXK_OK);
    VXK_CHECK(all_canary(&t16, sizeof(t16)));
    vxk_mesh deq;
    memset(&deq, CANARY, sizeof(deq));
    VXK_CHECK(vxk_kdtree16_dequantize(NULL, &deq) != VXK_OK);
    VXK_CHECK(all_canary(&deq, sizeof(deq)));
    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&t16, &mesh, NULL, 0), VXK_OK);
    VXK_CHECK(vxk_kdtree16_dequantize(&t16, NULL) != VXK_OK);
    vxk_aabb nan_box = {{f_nan(), 0, 0}, {1, 1, 1}};
    VXK_CHECK_EQ_U64(vxk_kdtree16_query_aabb(&t16, out, 8, &nan_box, NULL), 0);
    vxk_kdtree_ray nan_ray = {{f_nan(), 0.5f, -1.0f}, {0, 0, 1}, 10.0f};
    VXK_CHECK(!vxk_kdtree16_raycast(&t16, &hit, &nan_ray, NULL));
    VXK_CHECK(!vxk_kdtree16_raycast_any(&t16, &nan_ray, NULL));
    vxk_kdtree16_free(&t16);
    vxk_kdtree16_free(NULL);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// kD trees (float and 16-bit) built out of memory on a mesher mesh: the tree untouched, nothing
// leaked.
static int test_oom_kdtree(void)
{
    vxk_mesh mesh;
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    VXK_CHECK_EQ_INT(vxk_scene_edge_chunk_quads(quads, &count), VXK_OK);
    VXK_CHECK(count > 0);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, count, 4, (vxk_vec3){0, 0, 0}, 1.0f), VXK_OK);
    size_t base = vxk_allocated_bytes();
    vxk_kdtree tree;
    OOM_SWEEP(
        memset(&tree, CANARY, sizeof(tree)), vxk_kdtree_build(&tree, &mesh, NULL, 0),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&tree, sizeof(tree)));
            }
        },
        {
            if (st == VXK_OK)
                vxk_kdtree_free(&tree);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_kdtree16 t16;
    OOM_SWEEP(
        memset(&t16, CANARY, sizeof(t16)), vxk_kdtree16_build(&t16, &mesh, NULL, 0),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&t16, sizeof(t16)));
            }
        },
        {
            if (st == VXK_OK)
                vxk_kdtree16_free(&t16);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_mesh_free(&mesh);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Builder 0 (vxk_kdtree_build), 1 (vxk_kdtree_build_in) or 2 (vxk_kdtree16_build) on a mesh; the
// tree it builds is released.
static vxk_status kd_build(int builder, const vxk_mesh* mesh, void* scratch, size_t scratch_size)
{
    vxk_kdtree tree;
    vxk_kdtree16 tree16;
    vxk_kdtree_node storage[8];
    vxk_status st;
    if (builder == 0)
        st = vxk_kdtree_build(&tree, mesh, scratch, scratch_size);
    else if (builder == 1)
        st = vxk_kdtree_build_in(&tree, mesh, storage, 8, scratch, scratch_size);
    else
        st = vxk_kdtree16_build(&tree16, mesh, scratch, scratch_size);
    if (st == VXK_OK && builder == 2)
        vxk_kdtree16_free(&tree16);
    else if (st == VXK_OK)
        vxk_kdtree_free(&tree);
    return st;
}

// The builders, validators and the dequantizer of vxk/kdtree.h and vxk/kdtree16.h for each
// status they list.
static int test_statuses_kdtree(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_vec3 vertices[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    const vxk_mesh good = {vertices, 4, indices, NULL, 2, 3};
    vxk_mesh five = good, beyond = good;
    five.corners = 5;
    beyond.primitive_count = VXK_KD_MAX_PRIMITIVES + 1; // refused before its indices are read
    uint64_t scratch[64];
    // The float builders and the quantized one share these checks.
    static const char* const builders[3] = {"vxk_kdtree_build", "vxk_kdtree_build_in",
                                            "vxk_kdtree16_build"};
    for (int b = 0; b < 3; ++b) {
        const char* fn = builders[b];
        EXPECT_STATUS_OF(fn, VXK_OK, kd_build(b, &good, NULL, 0), "two triangles");
        EXPECT_STATUS_OF(fn, VXK_ERR_INVALID_ARGUMENT, kd_build(b, NULL, NULL, 0), "NULL mesh");
        EXPECT_STATUS_OF(fn, VXK_ERR_INVALID_ARGUMENT, kd_build(b, &five, NULL, 0), "corners 5");
        EXPECT_STATUS_OF(fn, VXK_ERR_OUT_OF_RANGE, kd_build(b, &beyond, NULL, 0),
                         "2^28 + 1 primitives");
        indices[4] = 4;
        EXPECT_STATUS_OF(fn, VXK_ERR_OUT_OF_RANGE, kd_build(b, &good, NULL, 0), "index 4 of 4");
        indices[4] = 2;
        vertices[2].y = INFINITY;
        EXPECT_STATUS_OF(fn, VXK_ERR_NOT_FINITE, kd_build(b, &good, NULL, 0), "infinite vertex");
        vertices[2].y = 1;
        EXPECT_STATUS_OF(fn, VXK_ERR_CAPACITY, kd_build(b, &good, scratch, 8),
                         "8 bytes of scratch");
        vxk_test_refuse_allocations();
        vxk_status st = kd_build(b, &good, NULL, 0);
        vxk_set_allocator(NULL);
        EXPECT_STATUS_OF(fn, VXK_ERR_OUT_OF_MEMORY, st, "no memory");
    }
    vxk_kdtree tree;
    vxk_kdtree_node storage[8];
    vxk_kdtree16 tree16;
    vxk_mesh out;
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree_build(NULL, &good, NULL, 0));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree_build_in(&tree, &good, NULL, 8, NULL, 0));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_kdtree_build_in(&tree, &good, storage, 2, NULL, 0));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree16_build(NULL, &good, NULL, 0));
    // Past the quantized tree's primitive limit.
    uint32_t many = VXK_KD16_MAX_PRIMITIVES + 1;
    uint32_t* zeros = (uint32_t*)calloc(3 * (size_t)many, sizeof(uint32_t));
    VXK_CHECK(zeros != NULL);
    const vxk_mesh crowded = {vertices, 1, zeros, NULL, many, 3};
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_kdtree16_build(&tree16, &crowded, NULL, 0));
    free(zeros);

    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &good, NULL, 0), VXK_OK);
    EXPECT_STATUS(VXK_OK, vxk_kdtree_validate(&tree));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree_validate(NULL));
    EXPECT_NO_MEMORY(vxk_kdtree_validate(&tree));
    vxk_kdtree deeper = tree;
    deeper.depth += 1;
    EXPECT_STATUS(VXK_ERR_MALFORMED, vxk_kdtree_validate(&deeper));
    vxk_kdtree_free(&tree);

    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&tree16, &good, NULL, 0), VXK_OK);
    EXPECT_STATUS(VXK_OK, vxk_kdtree16_validate(&tree16));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree16_validate(NULL));
    EXPECT_NO_MEMORY(vxk_kdtree16_validate(&tree16));
    vxk_kdtree16 deeper16 = tree16;
    deeper16.depth += 1;
    EXPECT_STATUS(VXK_ERR_MALFORMED, vxk_kdtree16_validate(&deeper16));
    EXPECT_STATUS(VXK_OK, vxk_kdtree16_dequantize(&tree16, &out));
    vxk_mesh_free(&out);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree16_dequantize(&tree16, NULL));
    EXPECT_NO_MEMORY(vxk_kdtree16_dequantize(&tree16, &out));
    vxk_kdtree16_free(&tree16);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    vxk_edge_tests_begin();
    VXK_RUN(test_kdtree_edges);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_kdtree);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_kdtree);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
