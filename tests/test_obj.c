// test_obj.c: OBJ import/export: round trips of seeded random meshes, every face-corner form and
// negative indices against hand-built meshes, a table of malformed inputs with their status and
// line, and random mutations of valid files (must return, never crash). Edge tests (harness.h):
// malformed lines keep the mesh untouched, every prefix parses or fails cleanly, special floats
// round-trip, bad meshes and paths are refused; read and write out of memory.
#include <vxk/obj.h>

#include "core.h"
#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"

#include <math.h>

static void random_mesh(vxk_mesh* m, uint64_t* s, uint32_t corners)
{
    m->corners = corners;
    m->vertex_count = 1 + (uint32_t)(vxk_test_rand(s) % 200);
    m->primitive_count = (uint32_t)(vxk_test_rand(s) % 300);
    m->vertices = (vxk_vec3*)malloc(sizeof(vxk_vec3) * m->vertex_count);
    m->indices = (uint32_t*)malloc(sizeof(uint32_t) * (m->primitive_count * corners + 1));
    m->materials = NULL;
    for (uint32_t i = 0; i < m->vertex_count; ++i) {
        uint64_t kind = vxk_test_rand(s) % 4;
        float scale = kind == 0 ? 1e-20f : (kind == 1 ? 1e20f : (kind == 2 ? 1.0f : 1000.0f));
        m->vertices[i] =
            (vxk_vec3){vxk_test_randf(s, -scale, scale), vxk_test_randf(s, -scale, scale),
                       kind == 3 ? (float)(int)vxk_test_randf(s, -50, 50) : -0.0f};
    }
    for (uint32_t i = 0; i < m->primitive_count * corners; ++i)
        m->indices[i] = (uint32_t)(vxk_test_rand(s) % m->vertex_count);
}

static int same_mesh(const vxk_mesh* a, const vxk_mesh* b)
{
    VXK_CHECK_EQ_INT(a->corners, b->corners);
    VXK_CHECK_EQ_INT(a->vertex_count, b->vertex_count);
    VXK_CHECK_EQ_INT(a->primitive_count, b->primitive_count);
    for (uint32_t i = 0; i < a->vertex_count; ++i) {
        // bitwise except the sign of zero, which %g writes as "-0" and reads back exactly
        VXK_CHECK(memcmp(&a->vertices[i], &b->vertices[i], sizeof(vxk_vec3)) == 0);
    }
    VXK_CHECK(memcmp(a->indices, b->indices, sizeof(uint32_t) * a->primitive_count * a->corners) ==
              0);
    return 0;
}

static int test_round_trip(void)
{
    uint64_t s = vxk_test_seed(11);
    for (int round = 0; round < 200; ++round) {
        vxk_mesh m;
        random_mesh(&m, &s, round % 2 ? 4 : 3);
        char* text;
        size_t size;
        VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &m), VXK_OK);
        VXK_CHECK_EQ_U64(strlen(text), size);
        vxk_mesh back;
        uint32_t line = 99;
        VXK_CHECK_EQ_INT(vxk_obj_read(&back, text, size, m.corners, &line), VXK_OK);
        VXK_CHECK_EQ_INT(line, 0);
        if (m.primitive_count == 0 && m.corners == 4)
            back.corners = 4; // no face says it is a quad
        if (same_mesh(&m, &back))
            return 1;
        vxk_mesh_free(&back);
        if (m.corners == 4 && m.primitive_count) { // quads read as triangles: fans
            VXK_CHECK_EQ_INT(vxk_obj_read(&back, text, size, 3, NULL), VXK_OK);
            VXK_CHECK_EQ_INT(back.corners, 3);
            VXK_CHECK_EQ_INT(back.primitive_count, 2 * m.primitive_count);
            for (uint32_t q = 0; q < m.primitive_count; ++q) {
                const uint32_t* a = m.indices + 4 * q;
                const uint32_t* t = back.indices + 6 * q;
                VXK_CHECK(t[0] == a[0] && t[1] == a[1] && t[2] == a[2]);
                VXK_CHECK(t[3] == a[0] && t[4] == a[2] && t[5] == a[3]);
            }
            vxk_mesh_free(&back);
        }
        vxk_obj_free_text(text, size);
        free(m.vertices);
        free(m.indices);
    }
    // through a file
    vxk_mesh m;
    random_mesh(&m, &s, 3);
    const char* path = "test_obj_roundtrip.obj";
    VXK_CHECK_EQ_INT(vxk_obj_save(path, &m), VXK_OK);
    vxk_mesh back;
    VXK_CHECK_EQ_INT(vxk_obj_load(&back, path, 3, NULL), VXK_OK);
    if (same_mesh(&m, &back))
        return 1;
    vxk_mesh_free(&back);
    remove(path);
    VXK_CHECK_EQ_INT(vxk_obj_load(&back, "no/such/dir/file.obj", 3, NULL), VXK_ERR_IO);
    free(m.vertices);
    free(m.indices);
    return 0;
}

static int test_forms(void)
{
    const char* text = "# a comment\n"
                       "mtllib x.mtl\no thing\ng group\ns off\nusemtl stone\n"
                       "v 0 0 0\r\n"
                       "v 1 0 0 1.0\n"
                       "  v\t1 1 0\n"
                       "v 0 1 0 0.5 0.5 0.5\n"
                       "vt 0.5 0.5\nvn 0 0 1\n"
                       "f 1 2 3\n"
                       "f 1/1 3/1 4/1\n"
                       "f 1//1 2//1 3//1 4//1\n"
                       "f -4/1/1 -3/1/1 -2/1/1 -1/1/1\n"
                       "l 1 2\n"
                       "f 1 2 3 4 1 2"; // no final newline; a hexagon fan
    vxk_mesh m;
    uint32_t line = 7;
    VXK_CHECK_EQ_INT(vxk_obj_read(&m, text, strlen(text), 3, &line), VXK_OK);
    VXK_CHECK_EQ_INT(line, 0);
    VXK_CHECK_EQ_INT(m.vertex_count, 4);
    VXK_CHECK_EQ_INT(m.corners, 3);
    uint32_t want[] = {0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 3, 0, 1, 2,
                       0, 2, 3, 0, 1, 2, 0, 2, 3, 0, 3, 0, 0, 0, 1};
    VXK_CHECK_EQ_INT(m.primitive_count, sizeof(want) / sizeof(want[0]) / 3);
    VXK_CHECK(memcmp(m.indices, want, sizeof(want)) == 0);
    VXK_CHECK(m.vertices[2].x == 1.0f && m.vertices[2].y == 1.0f && m.vertices[2].z == 0.0f);
    vxk_mesh_free(&m);
    // quads kept when every face has four corners
    const char* quads = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\nf 4 3 2 1\n";
    VXK_CHECK_EQ_INT(vxk_obj_read(&m, quads, strlen(quads), 4, NULL), VXK_OK);
    VXK_CHECK_EQ_INT(m.corners, 4);
    VXK_CHECK_EQ_INT(m.primitive_count, 2);
    VXK_CHECK(m.indices[4] == 3 && m.indices[7] == 0);
    vxk_mesh_free(&m);
    VXK_CHECK_EQ_INT(vxk_obj_read(&m, "", 0, 3, NULL), VXK_OK);
    VXK_CHECK_EQ_INT(m.vertex_count + m.primitive_count, 0);
    vxk_mesh_free(&m);
    VXK_CHECK_EQ_INT(vxk_obj_read(&m, "", 0, 5, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_obj_read(NULL, "", 0, 3, NULL), VXK_ERR_INVALID_ARGUMENT);
    return 0;
}

typedef struct bad_case {
    const char* text;
    uint32_t line;
} bad_case;

static int test_malformed(void)
{
    static const bad_case cases[] = {
        {"v 1 2\n", 1},
        {"v 1 2 x\n", 1},
        {"v 1 2 3\nv nan 0 0\n", 2},
        {"v 1 2 3\nv inf 0 0\n", 2},
        {"v 1 2 3\nv 1e39 0 0\n", 2},
        {"v 1 2 3\nv 0x1p3 0 0\n", 2},
        {"v 1 2 3\nv 1..2 0 0\n", 2},
        {"v 1 2 3\nv 1 2 3 4 5 6 7 8\n", 2},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2 3\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2/ 2 3\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2/3/4 2 3\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/a 2 3\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 99999999999 2 3\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -99999999999 2 3\n", 4},
        {"v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", 3}, // a forward reference
        {"# ok\n\nv 0 0 0\n\n\nv 1 0 0\nv 0 1 0\n# x\nf 1 2 3\nf 3 2 +\n", 10},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        vxk_mesh m;
        memset(&m, 0x5A, sizeof(m));
        vxk_mesh before = m;
        uint32_t line = 0;
        vxk_status st = vxk_obj_read(&m, cases[i].text, strlen(cases[i].text), 3, &line);
        VXK_CHECK_MSG(st == VXK_ERR_MALFORMED && line == cases[i].line,
                      "case %zu: status %d line %u, want line %u", i, (int)st, line, cases[i].line);
        VXK_CHECK(memcmp(&m, &before, sizeof(m)) == 0);
    }
    // a face with too many corners
    size_t cap = 64 + 8 * (VXK_OBJ_MAX_FACE_CORNERS + 2);
    char* big = (char*)malloc(cap);
    size_t n = (size_t)snprintf(big, cap, "v 0 0 0\nf");
    for (uint32_t i = 0; i < VXK_OBJ_MAX_FACE_CORNERS + 1; ++i)
        n += (size_t)snprintf(big + n, cap - n, " 1");
    vxk_mesh m;
    uint32_t line = 0;
    VXK_CHECK_EQ_INT(vxk_obj_read(&m, big, n, 3, &line), VXK_ERR_MALFORMED);
    VXK_CHECK_EQ_INT(line, 2);
    free(big);
    // writing a bad mesh
    vxk_vec3 v[3] = {{0, 0, 0}, {1, 0, 0}, {NAN, 1, 0}};
    uint32_t idx[3] = {0, 1, 2};
    vxk_mesh bad = {v, 3, idx, NULL, 1, 3};
    char* text;
    size_t size;
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &bad), VXK_ERR_NOT_FINITE);
    v[2].x = 0;
    idx[2] = 3;
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &bad), VXK_ERR_OUT_OF_RANGE);
    bad.corners = 2;
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &bad), VXK_ERR_INVALID_ARGUMENT);
    return 0;
}

// Random byte mutations of valid files: the reader returns a status and, on success, a mesh whose
// indices are all in range.
static int test_mutations(void)
{
    uint64_t s = vxk_test_seed(77);
    uint32_t rounds = VXK_TEST_SLOW ? 400 : 2000, ok = 0;
    const char alphabet[] = "vf/-+.0123456789e \n\t#xn\0";
    for (uint32_t round = 0; round < rounds; ++round) {
        vxk_mesh m;
        random_mesh(&m, &s, 3 + (uint32_t)(vxk_test_rand(&s) % 2));
        m.primitive_count %= 20;
        char* text;
        size_t size;
        VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &m), VXK_OK);
        // copy into an exact-size heap buffer without a terminator so ASan sees overreads
        char* buf = (char*)malloc(size ? size : 1);
        memcpy(buf, text, size);
        uint32_t edits = 1 + (uint32_t)(vxk_test_rand(&s) % 8);
        for (uint32_t e = 0; e < edits && size; ++e) {
            size_t at = (size_t)(vxk_test_rand(&s) % size);
            uint64_t op = vxk_test_rand(&s) % 3;
            if (op == 0)
                buf[at] = alphabet[vxk_test_rand(&s) % (sizeof(alphabet) - 1)];
            else if (op == 1)
                buf[at] = (char)(vxk_test_rand(&s) & 0xFF);
            else
                size = at; // truncate
        }
        vxk_mesh back;
        uint32_t line = 0;
        vxk_status st = vxk_obj_read(&back, buf, size, 3 + (round & 1), &line);
        VXK_CHECK(st == VXK_OK || st == VXK_ERR_MALFORMED);
        if (st == VXK_OK) {
            ++ok;
            for (uint32_t i = 0; i < back.primitive_count * back.corners; ++i)
                VXK_CHECK(back.indices[i] < back.vertex_count);
            for (uint32_t i = 0; i < back.vertex_count; ++i)
                VXK_CHECK(vxk_vec3_is_finite(back.vertices[i]));
            vxk_mesh_free(&back);
        } else {
            VXK_CHECK(line >= 1);
        }
        free(buf);
        vxk_obj_free_text(text, strlen(text));
        free(m.vertices);
        free(m.indices);
    }
    fprintf(stderr, "   mutations: %u of %u still valid\n", ok, rounds);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), 0);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static const char k_obj[] = "# a quad and a triangle\n"
                            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 2 -0\n"
                            "vt 0 0\nvn 0 0 1\n"
                            "f 1/1/1 2/1/1 3/1/1 4/1/1\n"
                            "f -3 -2 -1\n";

static int test_obj_edges(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_mesh mesh;
    uint32_t line = 77;
    memset(&mesh, CANARY, sizeof(mesh));
    VXK_CHECK(vxk_obj_read(NULL, k_obj, sizeof(k_obj) - 1, 3, &line) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, NULL, 5, 3, &line), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(vxk_obj_read(&mesh, k_obj, sizeof(k_obj) - 1, 0, &line) != VXK_OK);
    VXK_CHECK(vxk_obj_read(&mesh, k_obj, sizeof(k_obj) - 1, 5, &line) != VXK_OK);
    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
    // Malformed lines: the status, the line, and the mesh untouched.
    static const struct {
        const char* text;
        uint32_t line;
    } bad[] = {
        {"v nan 0 0\n", 1},
        {"v 0 inf 0\n", 1},
        {"v 0 0 -inf\n", 1},
        {"v 1e39 0 0\n", 1},
        {"v -1e39 0 0\n", 1},
        {"v 0x1p3 0 0\n", 1},
        {"v 0 0\n", 1},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -2147483649\n", 4},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", 4},
        {"f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", 1},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        line = 77;
        vxk_status st = vxk_obj_read(&mesh, bad[i].text, strlen(bad[i].text), 3, &line);
        VXK_CHECK_MSG(st == VXK_ERR_MALFORMED, "case %zu status %d", i, (int)st);
        VXK_CHECK_EQ_U64(line, bad[i].line);
        VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        // NULL error_line is allowed.
        VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, bad[i].text, strlen(bad[i].text), 3, NULL),
                         VXK_ERR_MALFORMED);
    }
    // Every prefix of a valid file parses or fails cleanly, never reading past size.
    for (size_t n = 0; n <= sizeof(k_obj) - 1; ++n) {
        char* copy = (char*)malloc(n ? n : 1);
        memcpy(copy, k_obj, n);
        vxk_status st = vxk_obj_read(&mesh, copy, n, 4, &line);
        free(copy);
        if (st == VXK_OK) {
            vxk_mesh_free(&mesh);
            memset(&mesh, CANARY, sizeof(mesh));
        } else {
            VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
        }
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    }
    line = 5;
    VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, NULL, 0, 3, &line), VXK_OK);
    VXK_CHECK_EQ_U64(line, 0);
    VXK_CHECK(mesh.primitive_count == 0 && mesh.vertex_count == 0);
    vxk_mesh_free(&mesh);

    // Special floats round-trip bit-exactly: -0.0, denormals, FLT_MAX.
    vxk_vec3 verts[4] = {{-0.0f, FLT_TRUE_MIN, FLT_MAX},
                         {-FLT_MAX, FLT_MIN, -FLT_TRUE_MIN},
                         {1.0f / 3.0f, 1e-40f, 0.0f},
                         {-1e38f, 3.4028e38f, 1.17549e-38f}};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    vxk_mesh src = {verts, 4, idx, NULL, 2, 3};
    char* text = (char*)(uintptr_t)0xA5A5A5A0u;
    size_t size = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, &size, &src), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_read(&mesh, text, size, 3, &line), VXK_OK);
    vxk_obj_free_text(text, size);
    VXK_CHECK_EQ_U64(mesh.vertex_count, 4);
    VXK_CHECK(memcmp(mesh.vertices, verts, sizeof(verts)) == 0);
    VXK_CHECK(memcmp(mesh.indices, idx, sizeof(idx)) == 0);
    vxk_mesh_free(&mesh);

    // vxk_obj_write on invalid meshes: text and size untouched.
    text = (char*)(uintptr_t)0xA5A5A5A0u;
    size = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_obj_write(NULL, &size, &src), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_obj_write(&text, NULL, &src), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(vxk_obj_write(&text, &size, NULL) != VXK_OK);
    vxk_mesh m = src;
    m.corners = 5;
    VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
    m = src;
    m.indices = NULL;
    VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
    m = src;
    m.vertex_count = 3; // index 3 now out of range
    VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
    for (int k = 0; k < 3; ++k) {
        vxk_vec3 nv[4];
        memcpy(nv, verts, sizeof(nv));
        nv[2].y = special_float(k);
        m = src;
        m.vertices = nv;
        VXK_CHECK(vxk_obj_write(&text, &size, &m) != VXK_OK);
        VXK_CHECK(vxk_obj_save("/nonexistent-dir/x.obj", &m) != VXK_OK);
    }
    VXK_CHECK(text == (char*)(uintptr_t)0xA5A5A5A0u && size == 0xA5A5A5A5u);
    vxk_obj_free_text(NULL, 0);

    // Files: NULL paths, missing files, unwritable paths.
    memset(&mesh, CANARY, sizeof(mesh));
    VXK_CHECK(vxk_obj_load(&mesh, NULL, 3, &line) != VXK_OK);
    VXK_CHECK(vxk_obj_load(NULL, "x.obj", 3, &line) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_load(&mesh, "/nonexistent-dir/x.obj", 3, &line), VXK_ERR_IO);
    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
    VXK_CHECK(vxk_obj_save(NULL, &src) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_obj_save("/nonexistent-dir/x.obj", &src), VXK_ERR_IO);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// OBJ read and write out of memory: the mesh or text untouched, nothing leaked.
static int test_oom_obj(void)
{
    size_t base = vxk_allocated_bytes();
    vxk_mesh mesh, ref;
    uint32_t line = 0;
    VXK_CHECK_EQ_INT(vxk_obj_read(&ref, k_obj, sizeof(k_obj) - 1, 4, &line), VXK_OK);
    size_t ref_bytes = vxk_allocated_bytes() - base;
    OOM_SWEEP(
        memset(&mesh, CANARY, sizeof(mesh)),
        vxk_obj_read(&mesh, k_obj, sizeof(k_obj) - 1, 4, &line),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base + ref_bytes);
            } else {
                VXK_CHECK(
                    mesh.primitive_count == ref.primitive_count &&
                    memcmp(mesh.vertices, ref.vertices, mesh.vertex_count * sizeof(vxk_vec3)) == 0);
            }
        },
        {
            if (st == VXK_OK)
                vxk_mesh_free(&mesh);
        });
    char* text = NULL;
    size_t size = 0;
    OOM_SWEEP(
        {
            text = NULL;
            size = 7;
        },
        vxk_obj_write(&text, &size, &ref),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(text == NULL && size == 7);
            }
        },
        {
            if (st == VXK_OK)
                vxk_obj_free_text(text, size);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base + ref_bytes);
        });
    vxk_mesh_free(&ref);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Writes text to the file at path; false when it cannot.
static bool write_text_file(const char* path, const char* text)
{
    FILE* f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(text, 1, strlen(text), f) == strlen(text);
    return fclose(f) == 0 && ok;
}

// Each function of vxk/obj.h for each status it lists.
static int test_statuses_obj(void)
{
    vxk_status_group start = vxk_status_group_begin();
    static const char good[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    static const char bad[] = "v 0 0 0\nf 1 2 3\n";
    vxk_mesh mesh;
    EXPECT_STATUS(VXK_OK, vxk_obj_read(&mesh, good, sizeof(good) - 1, 3, NULL));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_obj_read(&mesh, good, sizeof(good) - 1, 5, NULL));
    EXPECT_STATUS(VXK_ERR_MALFORMED, vxk_obj_read(&mesh, bad, sizeof(bad) - 1, 3, NULL));
    EXPECT_NO_MEMORY(vxk_obj_read(&mesh, good, sizeof(good) - 1, 3, NULL));

    char* text = NULL;
    size_t size = 0;
    EXPECT_STATUS(VXK_OK, vxk_obj_write(&text, &size, &mesh));
    vxk_obj_free_text(text, size);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_obj_write(&text, &size, NULL));
    EXPECT_NO_MEMORY(vxk_obj_write(&text, &size, &mesh));
    mesh.indices[1] = 3;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_obj_write(&text, &size, &mesh));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_obj_save("test_obj_statuses_never.obj", &mesh));
    mesh.indices[1] = 1;
    mesh.vertices[2].z = nanf("");
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_obj_write(&text, &size, &mesh));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_obj_save("test_obj_statuses_never.obj", &mesh));
    mesh.vertices[2].z = 0;

    // Files live in the test's working directory (the build tree).
    const char* saved = "test_obj_statuses.obj";
    const char* malformed = "test_obj_statuses_malformed.obj";
    EXPECT_STATUS(VXK_OK, vxk_obj_save(saved, &mesh));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_obj_save(NULL, &mesh));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_obj_save(saved, NULL));
    EXPECT_STATUS(VXK_ERR_IO, vxk_obj_save("/nonexistent/dir/x.obj", &mesh));
    EXPECT_NO_MEMORY(vxk_obj_save(saved, &mesh));
    vxk_mesh_free(&mesh);

    VXK_CHECK(write_text_file(malformed, bad));
    EXPECT_STATUS(VXK_OK, vxk_obj_load(&mesh, saved, 3, NULL));
    vxk_mesh_free(&mesh);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_obj_load(&mesh, NULL, 3, NULL));
    EXPECT_STATUS(VXK_ERR_MALFORMED, vxk_obj_load(&mesh, malformed, 3, NULL));
    EXPECT_STATUS(VXK_ERR_IO, vxk_obj_load(&mesh, "/nonexistent/x.obj", 3, NULL));
    EXPECT_STATUS(VXK_ERR_IO, vxk_obj_load(&mesh, ".", 3, NULL)); // a directory
    EXPECT_NO_MEMORY(vxk_obj_load(&mesh, saved, 3, NULL));
    remove(saved);
    remove(malformed);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_round_trip);
    VXK_RUN(test_forms);
    VXK_RUN(test_malformed);
    VXK_RUN(test_mutations);
    vxk_edge_tests_begin();
    VXK_RUN(test_obj_edges);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_obj);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_obj);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
