// test_mesher.c: the greedy quad mesher against a brute-force list of unit faces and a
// brute-force classification of every unit edge, on seeded random chunks; closure of the
// surface of enclosed blobs; mesh conversion; world chunks against vxk_world_get_voxel. Edge tests
// (harness.h): bad arguments, capacities, chunks whose box leaves int32, special floats in mesh
// conversion; mesh conversion out of memory.
#include <vxk/chunk_geometry.h>
#include <vxk/mesher.h>
#include <vxk/world.h>

#include <math.h>
#include <string.h>

#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"

#define BOX(x, y, z) ((x) + 10 * ((z) + 10 * (y)))

typedef struct random_chunk {
    uint8_t box[VXK_MESHER_BOX_VOXELS];
    uint8_t solid[256];
} random_chunk;

// Random chunk: a random solid table, a palette of 1..6 ids, and one of several shapes
// (uniform noise of random density, layered terrain, random boxes) so that both tiny and
// large merged quads occur; the border is random too.
static void make_random_chunk(random_chunk* c, uint64_t* rng)
{
    memset(c->solid, 0, sizeof(c->solid));
    for (int i = 1; i < 256; ++i)
        c->solid[i] = (vxk_test_rand(rng) % 10) < 7 ? (uint8_t)(1 + vxk_test_rand(rng) % 3) : 0;
    uint8_t palette[6];
    uint32_t palette_size = 1 + (uint32_t)(vxk_test_rand(rng) % 6);
    for (uint32_t i = 0; i < palette_size; ++i)
        palette[i] = (uint8_t)(vxk_test_rand(rng) % 256);
    uint32_t shape = (uint32_t)(vxk_test_rand(rng) % 4);
    uint32_t density = (uint32_t)(vxk_test_rand(rng) % 101);
    memset(c->box, 0, sizeof(c->box));
    if (shape == 0) {
        for (int i = 0; i < VXK_MESHER_BOX_VOXELS; ++i)
            if (vxk_test_rand(rng) % 100 < density)
                c->box[i] = palette[vxk_test_rand(rng) % palette_size];
    } else if (shape == 1) {
        int base = (int)(vxk_test_rand(rng) % 10);
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x) {
                int h = base + (int)(vxk_test_rand(rng) % 3) - 1;
                for (int y = 0; y < 10 && y <= h; ++y)
                    c->box[BOX(x, y, z)] = palette[(y / 3) % palette_size];
            }
    } else {
        uint32_t boxes = 1 + (uint32_t)(vxk_test_rand(rng) % 6);
        for (uint32_t b = 0; b < boxes; ++b) {
            int lo[3], hi[3];
            for (int a = 0; a < 3; ++a) {
                lo[a] = (int)(vxk_test_rand(rng) % 10);
                hi[a] = lo[a] + (int)(vxk_test_rand(rng) % (uint64_t)(10 - lo[a]));
            }
            uint8_t m = palette[vxk_test_rand(rng) % palette_size];
            for (int y = lo[1]; y <= hi[1]; ++y)
                for (int z = lo[2]; z <= hi[2]; ++z)
                    for (int x = lo[0]; x <= hi[0]; ++x)
                        c->box[BOX(x, y, z)] = m;
        }
        if (shape == 3) // sprinkle holes of air and of another material
            for (int i = 0; i < 40; ++i)
                c->box[vxk_test_rand(rng) % 1000] =
                    (vxk_test_rand(rng) & 1) ? 0 : palette[vxk_test_rand(rng) % palette_size];
    }
}

static int is_solid(const random_chunk* c, int x, int y, int z)
{
    return c->solid[c->box[BOX(x, y, z)]] != 0;
}

static const int k_axis_u[3] = {2, 0, 0};
static const int k_axis_v[3] = {1, 2, 1};

// Brute-force class of the unit edge of face (chunk voxel p, normal axis/sign) towards in-plane
// axis t with sign ts, straight from the definition in mesher.h.
static uint32_t brute_edge(const random_chunk* c, const int p[3], int axis, int positive, int t,
                           int ts)
{
    int q[3] = {p[0] + 1, p[1] + 1, p[2] + 1};
    q[t] += ts;
    int side = is_solid(c, q[0], q[1], q[2]);
    q[axis] += positive ? 1 : -1;
    if (is_solid(c, q[0], q[1], q[2]))
        return VXK_EDGE_CONCAVE;
    return side ? VXK_EDGE_FLAT : VXK_EDGE_CONVEX;
}

// Faces per (chunk voxel, normal) with owner quad index + 1 (0 = none).
typedef struct face_map {
    uint32_t owner[512][6];
} face_map;

static int rasterize(face_map* map, const vxk_quad* quads, uint32_t count)
{
    memset(map, 0, sizeof(*map));
    for (uint32_t i = 0; i < count; ++i) {
        vxk_quad q = quads[i];
        uint32_t axis = vxk_quad_axis(q);
        VXK_CHECK_MSG(axis < 3 && (q.normal >> 3) == 0, "quad %u normal %u", i, q.normal);
        VXK_CHECK_MSG(q.width >= 1 && q.height >= 1, "quad %u empty", i);
        int o[3] = {q.x, q.y, q.z};
        VXK_CHECK_MSG(o[k_axis_u[axis]] + q.width <= 8 && o[k_axis_v[axis]] + q.height <= 8 &&
                          o[axis] < 8,
                      "quad %u leaves the chunk", i);
        for (int j = 0; j < q.height; ++j)
            for (int k = 0; k < q.width; ++k) {
                int p[3] = {o[0], o[1], o[2]};
                p[k_axis_u[axis]] += k;
                p[k_axis_v[axis]] += j;
                uint32_t slot = axis * 2 + (vxk_quad_positive(q) ? 1 : 0);
                uint32_t* owner = &map->owner[p[0] + 8 * p[2] + 64 * p[1]][slot];
                VXK_CHECK_MSG(*owner == 0, "quads %u and %u overlap", *owner - 1, i);
                *owner = i + 1;
            }
    }
    return 0;
}

// Compares quads with the brute-force faces and edge classes of chunk c.
static int check_chunk(const random_chunk* c, const vxk_quad* quads, uint32_t count,
                       uint64_t* faces_seen)
{
    static face_map map;
    if (rasterize(&map, quads, count))
        return 1;
    for (int y = 0; y < 8; ++y)
        for (int z = 0; z < 8; ++z)
            for (int x = 0; x < 8; ++x)
                for (int axis = 0; axis < 3; ++axis)
                    for (int positive = 0; positive < 2; ++positive) {
                        int p[3] = {x, y, z};
                        int n[3] = {x + 1, y + 1, z + 1};
                        n[axis] += positive ? 1 : -1;
                        int face =
                            is_solid(c, x + 1, y + 1, z + 1) && !is_solid(c, n[0], n[1], n[2]);
                        uint32_t owner = map.owner[x + 8 * z + 64 * y][axis * 2 + positive];
                        VXK_CHECK_MSG(face == (owner != 0),
                                      "face (%d %d %d) axis %d +%d: brute %d quad %u", x, y, z,
                                      axis, positive, face, owner);
                        if (!face)
                            continue;
                        ++*faces_seen;
                        vxk_quad q = quads[owner - 1];
                        VXK_CHECK_EQ_INT(q.material, c->box[BOX(x + 1, y + 1, z + 1)]);
                        int o[3] = {q.x, q.y, q.z};
                        int i = p[k_axis_u[axis]] - o[k_axis_u[axis]];
                        int j = p[k_axis_v[axis]] - o[k_axis_v[axis]];
                        // (slot, in-plane axis, sign, on the quad's boundary)
                        int edges[4][4] = {{VXK_EDGE_MINUS_U, k_axis_u[axis], -1, i == 0},
                                           {VXK_EDGE_PLUS_U, k_axis_u[axis], 1, i == q.width - 1},
                                           {VXK_EDGE_MINUS_V, k_axis_v[axis], -1, j == 0},
                                           {VXK_EDGE_PLUS_V, k_axis_v[axis], 1, j == q.height - 1}};
                        for (int e = 0; e < 4; ++e) {
                            uint32_t brute =
                                brute_edge(c, p, axis, positive, edges[e][1], edges[e][2]);
                            uint32_t expect = edges[e][3] ? vxk_quad_edge(q, (uint32_t)edges[e][0])
                                                          : VXK_EDGE_FLAT;
                            VXK_CHECK_MSG(brute == expect,
                                          "edge %d of face (%d %d %d) axis %d +%d: brute %u, "
                                          "quad %u says %u",
                                          e, x, y, z, axis, positive, brute, owner - 1, expect);
                        }
                    }
    return 0;
}

static int test_random_chunks(void)
{
    uint64_t rng = 0x6D657368ull;
    random_chunk c;
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint64_t faces = 0, quad_total = 0;
    uint32_t max_quads = 0;
    for (int iter = 0; iter < 10000; ++iter) {
        make_random_chunk(&c, &rng);
        uint32_t count = 0;
        VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, c.box, c.solid),
                         VXK_OK);
        if (check_chunk(&c, quads, count, &faces)) {
            fprintf(stderr, "chunk %d failed\n", iter);
            return 1;
        }
        // Same input, same output: determinism of the pure function, and the small-capacity path.
        static vxk_quad again[VXK_MESHER_MAX_QUADS];
        uint32_t count2 = 0;
        VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(again, count, &count2, c.box, c.solid), VXK_OK);
        VXK_CHECK_EQ_INT(count2, count);
        VXK_CHECK(memcmp(again, quads, count * sizeof(vxk_quad)) == 0);
        quad_total += count;
        max_quads = count > max_quads ? count : max_quads;
    }
    fprintf(stderr, "   10000 chunks: %llu unit faces in %llu quads (max %u per chunk)\n",
            (unsigned long long)faces, (unsigned long long)quad_total, max_quads);
    VXK_CHECK(quad_total < faces); // merging happened somewhere
    return 0;
}

// Counts each directed unit edge of the unit faces of the quads (CCW corners) in a 9^3 lattice:
// a closed, consistently wound surface has every directed edge matched by its reverse.
static int check_closed(const vxk_quad* quads, uint32_t count)
{
    enum { L = 9 };
    static int32_t directed[L * L * L][3]; // +1 per edge along +axis from a vertex, -1 reverse
    static uint8_t uses[L * L * L][3];
    memset(directed, 0, sizeof(directed));
    memset(uses, 0, sizeof(uses));
    for (uint32_t i = 0; i < count; ++i) {
        vxk_quad q = quads[i];
        uint32_t axis = vxk_quad_axis(q);
        for (int j = 0; j < q.height; ++j)
            for (int k = 0; k < q.width; ++k) {
                vxk_quad unit = q;
                int o[3] = {q.x, q.y, q.z};
                o[k_axis_u[axis]] += k;
                o[k_axis_v[axis]] += j;
                unit.x = (uint8_t)o[0];
                unit.y = (uint8_t)o[1];
                unit.z = (uint8_t)o[2];
                unit.width = unit.height = 1;
                vxk_vec3 corner[4];
                vxk_quad_corners(corner, unit, (vxk_vec3){0, 0, 0}, 1.0f);
                for (int e = 0; e < 4; ++e) {
                    vxk_vec3 a = corner[e], b = corner[(e + 1) & 3];
                    int pa[3] = {(int)a.x, (int)a.y, (int)a.z};
                    int pb[3] = {(int)b.x, (int)b.y, (int)b.z};
                    int d = -1, sign = 0, diff = 0;
                    for (int t = 0; t < 3; ++t)
                        if (pa[t] != pb[t]) {
                            d = t;
                            sign = pb[t] > pa[t] ? 1 : -1;
                            ++diff;
                        }
                    VXK_CHECK_MSG(diff == 1 && abs(pb[d] - pa[d]) == 1, "unit edge not unit");
                    int* lo = sign > 0 ? pa : pb;
                    int id = lo[0] + L * (lo[2] + L * lo[1]);
                    directed[id][d] += sign;
                    uses[id][d]++;
                }
            }
    }
    for (int i = 0; i < L * L * L; ++i)
        for (int d = 0; d < 3; ++d) {
            VXK_CHECK_MSG(directed[i][d] == 0, "open edge at vertex %d axis %d", i, d);
            // 2 faces on a manifold edge, 4 where two solid voxels meet only along the edge.
            VXK_CHECK_MSG(uses[i][d] == 0 || uses[i][d] == 2 || uses[i][d] == 4,
                          "edge used %u times", uses[i][d]);
        }
    return 0;
}

static int test_enclosed_blobs_closed(void)
{
    uint64_t rng = 0xB10Bull;
    random_chunk c;
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    int iterations = VXK_TEST_SLOW ? 500 : 3000;
    for (int iter = 0; iter < iterations; ++iter) {
        memset(c.solid, 0, sizeof(c.solid));
        c.solid[1] = c.solid[2] = c.solid[3] = 1;
        memset(c.box, 0, sizeof(c.box));
        uint32_t density = (uint32_t)(vxk_test_rand(&rng) % 100);
        for (int y = 1; y <= 8; ++y)
            for (int z = 1; z <= 8; ++z)
                for (int x = 1; x <= 8; ++x)
                    if (vxk_test_rand(&rng) % 100 < density)
                        c.box[BOX(x, y, z)] = (uint8_t)(1 + vxk_test_rand(&rng) % 4); // 4: air-like
        uint32_t count = 0;
        VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, c.box, c.solid),
                         VXK_OK);
        if (check_closed(quads, count)) {
            fprintf(stderr, "blob %d not closed\n", iter);
            return 1;
        }
    }
    return 0;
}

static int test_worst_case_and_errors(void)
{
    random_chunk c;
    memset(c.solid, 0, sizeof(c.solid));
    c.solid[7] = 1;
    for (int y = 0; y < 10; ++y)
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x)
                c.box[BOX(x, y, z)] = ((x + y + z) & 1) ? 7 : 0;
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, c.box, c.solid),
                     VXK_OK);
    VXK_CHECK_EQ_INT(count, VXK_MESHER_MAX_QUADS);
    uint64_t faces = 0;
    if (check_chunk(&c, quads, count, &faces))
        return 1;

    // Too small a buffer: error, nothing written, count untouched.
    static vxk_quad small[VXK_MESHER_MAX_QUADS];
    memset(small, 0xAB, sizeof(small));
    uint32_t small_count = 12345;
    VXK_CHECK_EQ_INT(
        vxk_quad_mesh_chunk(small, VXK_MESHER_MAX_QUADS - 1, &small_count, c.box, c.solid),
        VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_INT(small_count, 12345);
    for (size_t i = 0; i < sizeof(small); ++i)
        VXK_CHECK(((uint8_t*)small)[i] == 0xAB);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(NULL, 10, &count, c.box, c.solid),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 10, NULL, c.box, c.solid),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 10, &count, NULL, c.solid),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 10, &count, c.box, NULL), VXK_ERR_INVALID_ARGUMENT);

    // A full chunk inside full border: no faces. Full chunk in air: one 8x8 quad per side, all
    // edges convex.
    memset(c.box, 7, sizeof(c.box));
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, c.box, c.solid),
                     VXK_OK);
    VXK_CHECK_EQ_INT(count, 0);
    memset(c.box, 0, sizeof(c.box));
    for (int y = 1; y <= 8; ++y)
        for (int z = 1; z <= 8; ++z)
            for (int x = 1; x <= 8; ++x)
                c.box[BOX(x, y, z)] = 7;
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, c.box, c.solid),
                     VXK_OK);
    VXK_CHECK_EQ_INT(count, 6);
    for (uint32_t i = 0; i < count; ++i) {
        VXK_CHECK_EQ_INT(quads[i].width, 8);
        VXK_CHECK_EQ_INT(quads[i].height, 8);
        VXK_CHECK_EQ_INT(quads[i].edges, 0x55); // four convex edges
        VXK_CHECK_EQ_INT(quads[i].material, 7);
    }
    return 0;
}

// Triangles and quads as meshes: winding gives the quad's normal, areas add up to the faces.
static int test_mesh_conversion(void)
{
    uint64_t rng = 0xC0417ull;
    random_chunk c;
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    for (int iter = 0; iter < 200; ++iter) {
        make_random_chunk(&c, &rng);
        uint32_t count = 0;
        VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, c.box, c.solid),
                         VXK_OK);
        vxk_vec3 origin = {vxk_test_randf(&rng, -100, 100), vxk_test_randf(&rng, -100, 100),
                           vxk_test_randf(&rng, -100, 100)};
        float scale = 0.25f * (float)(1 + vxk_test_rand(&rng) % 8);
        for (uint32_t corners = 3; corners <= 4; ++corners) {
            vxk_mesh mesh;
            VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, count, corners, origin, scale), VXK_OK);
            VXK_CHECK_EQ_INT(mesh.corners, corners);
            VXK_CHECK_EQ_INT(mesh.vertex_count, 4 * count);
            VXK_CHECK_EQ_INT(mesh.primitive_count, count * (corners == 3 ? 2 : 1));
            double area = 0, expect_area = 0;
            for (uint32_t p = 0; p < mesh.primitive_count; ++p) {
                uint32_t qi = corners == 3 ? p / 2 : p;
                vxk_quad q = quads[qi];
                VXK_CHECK_EQ_INT(mesh.materials[p], q.material);
                const uint32_t* idx = mesh.indices + corners * p;
                for (uint32_t k = 0; k < corners; ++k)
                    VXK_CHECK(idx[k] < mesh.vertex_count && idx[k] / 4 == qi);
                vxk_vec3 a = mesh.vertices[idx[0]], b = mesh.vertices[idx[1]];
                vxk_vec3 d = mesh.vertices[idx[corners - 1]], e = mesh.vertices[idx[2]];
                double ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
                double vx = (corners == 3 ? e.x : d.x) - a.x, vy = (corners == 3 ? e.y : d.y) - a.y,
                       vz = (corners == 3 ? e.z : d.z) - a.z;
                double n[3] = {uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx};
                uint32_t axis = vxk_quad_axis(q);
                double along = n[axis] * (vxk_quad_positive(q) ? 1.0 : -1.0);
                VXK_CHECK_MSG(along > 0, "primitive %u winds against its normal", p);
                VXK_CHECK(n[(axis + 1) % 3] == 0 && n[(axis + 2) % 3] == 0);
                area += corners == 3 ? 0.5 * along : along;
                if (corners == 4 || (p & 1) == 0)
                    expect_area += (double)q.width * q.height * scale * scale;
                // corners lie at origin + scale * integer lattice points of the chunk
                for (uint32_t k = 0; k < corners; ++k) {
                    vxk_vec3 v = mesh.vertices[idx[k]];
                    double lx = (v.x - origin.x) / scale, ly = (v.y - origin.y) / scale;
                    double lz = (v.z - origin.z) / scale;
                    VXK_CHECK(lx > -0.01 && lx < 8.01 && ly > -0.01 && ly < 8.01 && lz > -0.01 &&
                              lz < 8.01);
                }
            }
            VXK_CHECK_MSG(fabs(area - expect_area) <= 1e-3 * (1 + expect_area),
                          "area %f expected %f", area, expect_area);
            vxk_mesh_free(&mesh);
        }
    }
    vxk_mesh mesh;
    memset(&mesh, 0x5A, sizeof(mesh));
    vxk_mesh before = mesh;
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 1, 5, (vxk_vec3){0, 0, 0}, 1.0f),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, NULL, 1, 3, (vxk_vec3){0, 0, 0}, 1.0f),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 1, 3, (vxk_vec3){NAN, 0, 0}, 1.0f),
                     VXK_ERR_NOT_FINITE);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 1, 3, (vxk_vec3){0, 0, 0}, INFINITY),
                     VXK_ERR_NOT_FINITE);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 1, 3, (vxk_vec3){0, 0, 0}, -1.0f),
                     VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK(memcmp(&mesh, &before, sizeof(mesh)) == 0);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, NULL, 0, 3, (vxk_vec3){0, 0, 0}, 1.0f), VXK_OK);
    VXK_CHECK(mesh.primitive_count == 0 && mesh.vertices == NULL);
    vxk_mesh_free(&mesh);
    uint8_t solid[256];
    vxk_material_table table;
    vxk_default_material_table(&table);
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, &table), VXK_OK);
    for (int i = 0; i < 256; ++i)
        VXK_CHECK_EQ_INT(solid[i], table.materials[i].kind == VXK_MATERIAL_SOLID);
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, NULL), VXK_ERR_INVALID_ARGUMENT);
    return 0;
}

// World chunks: the mesher's box read through the world equals a box built voxel by voxel.
static int test_world_chunks(void)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    uint64_t rng = 0x3031ull;
    // Terrain over 4x3x4 chunks around the origin (negative coordinates included).
    vxk_int3 min = {-16, -8, -16}, size = {32, 24, 32};
    static uint8_t ids[32 * 24 * 32];
    static const uint8_t mats[4] = {VXK_MAT_STONE, VXK_MAT_DIRT, VXK_MAT_WATER, VXK_MAT_GRASS};
    for (int y = 0; y < size.y; ++y)
        for (int z = 0; z < size.z; ++z)
            for (int x = 0; x < size.x; ++x) {
                int h = 10 + (int)(vxk_test_rand(&rng) % 4);
                uint8_t m = y < h ? mats[vxk_test_rand(&rng) % 4] : 0;
                if (vxk_test_rand(&rng) % 10 == 0)
                    m = mats[vxk_test_rand(&rng) % 4];
                ids[x + size.x * (z + size.z * y)] = m;
            }
    VXK_CHECK_EQ_INT(vxk_world_write_box(world, vxk_test_box_sized(min, size), ids), VXK_OK);
    uint8_t solid[256];
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, vxk_world_materials(world)), VXK_OK);
    static vxk_quad a[VXK_MESHER_MAX_QUADS], b[VXK_MESHER_MAX_QUADS];
    uint64_t total = 0;
    for (int cy = -2; cy <= 2; ++cy)
        for (int cz = -3; cz <= 2; ++cz)
            for (int cx = -3; cx <= 2; ++cx) {
                uint32_t na = 0, nb = 0;
                VXK_CHECK_EQ_INT(
                    vxk_chunk_mesh(world, a, VXK_MESHER_MAX_QUADS, &na, (vxk_int3){cx, cy, cz}),
                    VXK_OK);
                uint8_t box[VXK_MESHER_BOX_VOXELS];
                for (int y = 0; y < 10; ++y)
                    for (int z = 0; z < 10; ++z)
                        for (int x = 0; x < 10; ++x)
                            box[BOX(x, y, z)] = vxk_world_get_voxel(
                                world, (vxk_int3){cx * 8 - 1 + x, cy * 8 - 1 + y, cz * 8 - 1 + z});
                VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(b, VXK_MESHER_MAX_QUADS, &nb, box, solid),
                                 VXK_OK);
                VXK_CHECK_EQ_INT(na, nb);
                VXK_CHECK(memcmp(a, b, na * sizeof(vxk_quad)) == 0);
                total += na;
            }
    VXK_CHECK(total > 0);
    uint32_t n = 0;
    VXK_CHECK_EQ_INT(
        vxk_chunk_mesh(world, a, VXK_MESHER_MAX_QUADS, &n, (vxk_int3){INT32_MAX / 8, 0, 0}),
        VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(
        vxk_chunk_mesh(world, a, VXK_MESHER_MAX_QUADS, &n, (vxk_int3){-(1 << 28), 0, 0}),
        VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(NULL, a, VXK_MESHER_MAX_QUADS, &n, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    vxk_world_destroy(world);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static int test_mesher_edges(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_material_table table;
    vxk_default_material_table(&table);
    uint8_t solid[256];
    memset(solid, CANARY, sizeof(solid));
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(NULL, &table), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(all_canary(solid, sizeof(solid)));
    VXK_CHECK_EQ_INT(vxk_chunk_solid_table(solid, &table), VXK_OK);

    // A checkerboard box: the most quads one chunk can make.
    uint8_t box[VXK_MESHER_BOX_VOXELS];
    for (int y = 0; y < 10; ++y)
        for (int z = 0; z < 10; ++z)
            for (int x = 0; x < 10; ++x)
                box[x + 10 * (z + 10 * y)] = (uint8_t)((x + y + z) % 2 ? VXK_MAT_STONE : 0);
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0xA5A5A5A5u;
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(NULL, 4096, &count, box, solid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 4096, NULL, box, solid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 4096, &count, NULL, solid),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, 4096, &count, box, NULL), VXK_ERR_INVALID_ARGUMENT);
    uint32_t full = 0;
    VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &full, box, solid), VXK_OK);
    VXK_CHECK_EQ_U64(full, VXK_MESHER_MAX_QUADS);
    const uint32_t caps[] = {0, 1, full - 1};
    for (int i = 0; i < 3; ++i) {
        memset(quads, CANARY, sizeof(quads));
        VXK_CHECK_EQ_INT(vxk_quad_mesh_chunk(quads, caps[i], &count, box, solid), VXK_ERR_CAPACITY);
        VXK_CHECK(all_canary(quads, sizeof(quads)));
        VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    }

    // vxk_chunk_mesh: chunks whose 10^3 box leaves int32.
    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(NULL, quads, 4096, &count, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, NULL, 4096, &count, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, 4096, NULL, (vxk_int3){0, 0, 0}),
                     VXK_ERR_INVALID_ARGUMENT);
    const int32_t outside[] = {INT32_MAX, INT32_MIN, (1 << 28) - 1, -(1 << 28)};
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < 4; ++i) {
            int32_t c[3] = {0, 0, 0};
            c[a] = outside[i];
            memset(quads, CANARY, sizeof(quads));
            VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, 4096, &count, (vxk_int3){c[0], c[1], c[2]}),
                             VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(quads, sizeof(quads)));
        }
    }
    VXK_CHECK_EQ_U64(count, 0xA5A5A5A5u);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, 0, &count, (vxk_int3){0, 0, 0}), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_INT(vxk_chunk_mesh(w, quads, VXK_MESHER_MAX_QUADS, &count, (vxk_int3){0, 0, 0}),
                     VXK_OK);
    uint32_t chunk_quads = count;
    VXK_CHECK(chunk_quads > 0);
    vxk_world_destroy(w);

    // vxk_quad_to_mesh: the mesh is untouched on every error.
    vxk_mesh mesh;
    memset(&mesh, CANARY, sizeof(mesh));
    vxk_vec3 o = {0, 0, 0};
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(NULL, quads, 4, 3, o, 1.0f), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, NULL, 4, 3, o, 1.0f), VXK_ERR_INVALID_ARGUMENT);
    const uint32_t bad_corners[] = {0, 1, 2, 5, UINT32_MAX};
    for (int i = 0; i < 5; ++i)
        VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 4, bad_corners[i], o, 1.0f),
                         VXK_ERR_INVALID_ARGUMENT);
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float v = special_float(k);
        for (int a = 0; a < 3; ++a) {
            vxk_vec3 bo = o;
            (&bo.x)[a] = v;
            vxk_status st = vxk_quad_to_mesh(&mesh, quads, 4, 4, bo, 1.0f);
            if (!isfinite(v))
                VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
            else if (st == VXK_OK)
                vxk_mesh_free(&mesh), memset(&mesh, CANARY, sizeof(mesh));
        }
        vxk_status st = vxk_quad_to_mesh(&mesh, quads, 4, 4, o, v);
        if (!isfinite(v))
            VXK_CHECK_EQ_INT(st, VXK_ERR_NOT_FINITE);
        else if (!(v > 0.0f))
            VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
        else {
            VXK_CHECK_EQ_INT(st, VXK_OK);
            vxk_mesh_free(&mesh);
            memset(&mesh, CANARY, sizeof(mesh));
        }
    }
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 4, 3, o, 0.0f), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, 4, 3, o, -1.0f), VXK_ERR_OUT_OF_RANGE);
    // A huge count is rejected before any quad is read (quads points at 4 quads only).
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, (1u << 28) + 1, 3, o, 1.0f),
                     VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, quads, UINT32_MAX, 4, o, 1.0f), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
    // count 0: an empty mesh with NULL arrays.
    VXK_CHECK_EQ_INT(vxk_quad_to_mesh(&mesh, NULL, 0, 3, o, 1.0f), VXK_OK);
    VXK_CHECK(mesh.vertices == NULL && mesh.indices == NULL && mesh.primitive_count == 0);
    vxk_mesh_free(&mesh);
    vxk_mesh_free(NULL);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// Mesher output to meshes out of memory (3 and 4 corners): the mesh untouched, nothing leaked.
static int test_oom_meshes(void)
{
    vxk_mesh mesh;
    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    VXK_CHECK_EQ_INT(vxk_scene_edge_chunk_quads(quads, &count), VXK_OK);
    VXK_CHECK(count > 0);
    size_t base = vxk_allocated_bytes();
    for (uint32_t corners = 3; corners <= 4; ++corners) {
        OOM_SWEEP(
            memset(&mesh, CANARY, sizeof(mesh)),
            vxk_quad_to_mesh(&mesh, quads, count, corners, (vxk_vec3){1, 2, 3}, 0.5f),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    VXK_CHECK(all_canary(&mesh, sizeof(mesh)));
                }
            },
            {
                if (st == VXK_OK)
                    vxk_mesh_free(&mesh);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// vxk_chunk_solid_table, vxk_quad_mesh_chunk, vxk_chunk_mesh (on the status terrain) and
// vxk_quad_to_mesh for each status their headers list.
static int test_statuses_mesher(void)
{
    vxk_status_group start = vxk_status_group_begin();
    static vxk_material_table table;
    vxk_default_material_table(&table);
    uint8_t solid[256];
    EXPECT_STATUS(VXK_OK, vxk_chunk_solid_table(solid, &table));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_chunk_solid_table(solid, NULL));

    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    uint8_t box[VXK_MESHER_BOX_VOXELS] = {0};
    box[1 + 10 * (1 + 10 * 1)] = VXK_MAT_STONE; // chunk voxel (0, 0, 0): six faces
    EXPECT_STATUS(VXK_OK, vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, box, solid));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_quad_mesh_chunk(quads, 8, NULL, box, solid));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_quad_mesh_chunk(quads, 5, &count, box, solid));

    vxk_world* w = vxk_scene_status_world();
    VXK_CHECK(w != NULL);
    EXPECT_STATUS(VXK_OK,
                  vxk_chunk_mesh(w, quads, VXK_MESHER_MAX_QUADS, &count, (vxk_int3){0, 0, 0}));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT,
                  vxk_chunk_mesh(NULL, quads, 8, &count, (vxk_int3){0, 0, 0}));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE,
                  vxk_chunk_mesh(w, quads, 8, &count, (vxk_int3){1 << 28, 0, 0}));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_chunk_mesh(w, quads, 0, &count, (vxk_int3){0, 0, 0}));

    vxk_mesh mesh;
    const vxk_vec3 zero = {0, 0, 0};
    EXPECT_STATUS(VXK_OK, vxk_quad_to_mesh(&mesh, quads, 1, 4, zero, 1.0f));
    vxk_mesh_free(&mesh);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_quad_to_mesh(&mesh, quads, 1, 5, zero, 1.0f));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_quad_to_mesh(&mesh, quads, 1, 3, zero, nanf("")));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_quad_to_mesh(&mesh, quads, 1, 3, zero, 0.0f));
    EXPECT_NO_MEMORY(vxk_quad_to_mesh(&mesh, quads, 1, 3, zero, 1.0f));
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
    VXK_RUN(test_worst_case_and_errors);
    VXK_RUN(test_random_chunks);
    VXK_RUN(test_enclosed_blobs_closed);
    VXK_RUN(test_mesh_conversion);
    VXK_RUN(test_world_chunks);
    vxk_edge_tests_begin();
    VXK_RUN(test_mesher_edges);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_meshes);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_mesher);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
