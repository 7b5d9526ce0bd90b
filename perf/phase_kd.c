// phase_kd.c: the loose kD tree benchmark phase (seed 000): build speed, bytes per triangle and
// query speed of the float, quad and 16-bit quantized trees over real terrain chunk meshes
// (worldgen + greedy mesher), with Bullet's btBvhTriangleMeshShape as the peer when present.
#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>
#include <vxk/chunk_geometry.h>
#include <vxk/mesher.h>
#include <vxk/world.h>

#include "bench.h"
#include "core.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef VXK_HAVE_BULLET
#include "peer_bullet.h"
#endif

typedef struct kd_chunk {
    vxk_mesh tri;  // welded triangles (two per quad)
    vxk_mesh quad; // welded quads
    vxk_aabb bounds;
} kd_chunk;

typedef struct kd_collect {
    vxk_int3* coords;
    uint32_t count, capacity;
} kd_collect;

static void collect_chunk(void* ctx, const vxk_chunk_info* info)
{
    kd_collect* c = (kd_collect*)ctx;
    if (c->count == c->capacity) {
        c->capacity = c->capacity ? 2 * c->capacity : 1024;
        c->coords = (vxk_int3*)realloc(c->coords, sizeof(vxk_int3) * c->capacity);
    }
    c->coords[c->count++] = info->coord;
}

static int compare_vertex_ref(const void* a, const void* b, const vxk_vec3* v)
{
    const vxk_vec3* p = &v[*(const uint32_t*)a];
    const vxk_vec3* q = &v[*(const uint32_t*)b];
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->z != q->z)
        return p->z < q->z ? -1 : 1;
    return 0;
}

static const vxk_vec3* g_weld_vertices;
static int compare_weld(const void* a, const void* b)
{
    return compare_vertex_ref(a, b, g_weld_vertices);
}

// Merges equal vertices (the mesher emits four per quad) into a malloc'ed mesh.
static void weld(vxk_mesh* out, const vxk_mesh* in)
{
    uint32_t nv = in->vertex_count;
    uint32_t* order = (uint32_t*)malloc(sizeof(uint32_t) * (nv + 1));
    uint32_t* remap = (uint32_t*)malloc(sizeof(uint32_t) * (nv + 1));
    for (uint32_t i = 0; i < nv; ++i)
        order[i] = i;
    g_weld_vertices = in->vertices;
    qsort(order, nv, sizeof(uint32_t), compare_weld);
    out->vertices = (vxk_vec3*)malloc(sizeof(vxk_vec3) * (nv + 1));
    out->vertex_count = 0;
    for (uint32_t k = 0; k < nv; ++k) {
        if (k == 0 || compare_vertex_ref(&order[k], &order[k - 1], in->vertices) != 0)
            out->vertices[out->vertex_count++] = in->vertices[order[k]];
        remap[order[k]] = out->vertex_count - 1;
    }
    size_t index_count = (size_t)in->primitive_count * in->corners;
    out->indices = (uint32_t*)malloc(sizeof(uint32_t) * (index_count + 1));
    for (size_t i = 0; i < index_count; ++i)
        out->indices[i] = remap[in->indices[i]];
    out->materials = NULL;
    out->primitive_count = in->primitive_count;
    out->corners = in->corners;
    free(order);
    free(remap);
}

static void free_welded(vxk_mesh* m)
{
    free(m->vertices);
    free(m->indices);
}

static uint32_t load_chunks(vxk_bench* b, const vxk_world* world, kd_chunk* chunks,
                            uint32_t max_chunks)
{
    kd_collect c = {NULL, 0, 0};
    vxk_world_for_each_chunk(world, collect_chunk, &c);
    // a seeded shuffle: a sample of the whole world, not its bottom layer
    uint64_t seed = b->seed + 12345;
    for (uint32_t i = c.count; i > 1; --i) {
        uint32_t j = (uint32_t)(vxk_splitmix64(&seed) % i);
        vxk_int3 t = c.coords[i - 1];
        c.coords[i - 1] = c.coords[j];
        c.coords[j] = t;
    }
    vxk_quad* quads = (vxk_quad*)malloc(sizeof(vxk_quad) * VXK_MESHER_MAX_QUADS);
    uint32_t n = 0;
    float voxel = vxk_world_voxel_size(world);
    for (uint32_t i = 0; i < c.count && n < max_chunks; ++i) {
        uint32_t count = 0;
        vxk_int3 cc = c.coords[i];
        if (vxk_chunk_mesh(world, quads, VXK_MESHER_MAX_QUADS, &count,
                           (vxk_int3){cc.x, cc.y, cc.z}) != VXK_OK ||
            count == 0)
            continue;
        vxk_vec3 origin = {(float)cc.x * 8 * voxel, (float)cc.y * 8 * voxel,
                           (float)cc.z * 8 * voxel};
        vxk_mesh raw_tri, raw_quad;
        if (vxk_quad_to_mesh(&raw_tri, quads, count, 3, origin, voxel) != VXK_OK)
            continue;
        if (vxk_quad_to_mesh(&raw_quad, quads, count, 4, origin, voxel) != VXK_OK) {
            vxk_mesh_free(&raw_tri);
            continue;
        }
        kd_chunk* k = &chunks[n++];
        weld(&k->tri, &raw_tri);
        weld(&k->quad, &raw_quad);
        vxk_mesh_free(&raw_tri);
        vxk_mesh_free(&raw_quad);
        vxk_aabb bb = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
        for (uint32_t v = 0; v < k->tri.vertex_count; ++v) {
            vxk_vec3 p = k->tri.vertices[v];
            bb.min.x = fminf(bb.min.x, p.x);
            bb.min.y = fminf(bb.min.y, p.y);
            bb.min.z = fminf(bb.min.z, p.z);
            bb.max.x = fmaxf(bb.max.x, p.x);
            bb.max.y = fmaxf(bb.max.y, p.y);
            bb.max.z = fmaxf(bb.max.z, p.z);
        }
        k->bounds = bb;
    }
    free(quads);
    free(c.coords);
    return n;
}

static float rnd(uint64_t* s, float lo, float hi)
{
    return lo + (hi - lo) * (float)((vxk_splitmix64(s) >> 40) * (1.0 / 16777216.0));
}

static int compare_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

// Median of v[0 .. n) (sorts a copy).
static double median(const double* v, int n)
{
    double tmp[64];
    if (n > 64)
        n = 64;
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(double), compare_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

// Median over reps of num[r] / den[r]: paired measurements taken back to back, so a load change
// on the machine shifts both sides of each ratio. (Only the peer ratios use it.)
static __attribute__((unused)) double median_ratio(const double* num, const double* den, int n)
{
    double r[64];
    for (int i = 0; i < n && i < 64; ++i)
        r[i] = num[i] / den[i];
    return median(r, n);
}

#define KD_MAX_REPS 15

typedef struct kd_query {
    uint32_t chunk;
    vxk_aabb box;
} kd_query;

typedef struct kd_bench_ray {
    uint32_t chunk;
    vxk_kdtree_ray ray;
} kd_bench_ray;

void vxk_bench_kd(vxk_bench* b)
{
    vxk_world* world = vxk_bench_shared_world(b);
    if (!world) {
        fprintf(stderr, "phase kd: cannot generate a world\n");
        return;
    }
    uint32_t max_chunks = b->quick ? 64 : 2000;
    kd_chunk* chunks = (kd_chunk*)calloc(max_chunks, sizeof(kd_chunk));
    vxk_bench_progress(b, "kd: meshing chunks");
    uint32_t n = load_chunks(b, world, chunks, max_chunks);
    if (n == 0) {
        fprintf(stderr, "phase kd: no chunk meshes\n");
        free(chunks);
        return;
    }
    double tris = 0, quads = 0, verts = 0;
    uint32_t max_prims = 0;
    for (uint32_t i = 0; i < n; ++i) {
        tris += chunks[i].tri.primitive_count;
        quads += chunks[i].quad.primitive_count;
        verts += chunks[i].tri.vertex_count;
        max_prims = VXK_MAX(max_prims, chunks[i].tri.primitive_count);
    }
    size_t scratch_size = vxk_kdtree_build_scratch_size(max_prims);
    void* scratch = malloc(scratch_size);
    vxk_kdtree* tri_trees = (vxk_kdtree*)calloc(n, sizeof(vxk_kdtree));
    vxk_kdtree* quad_trees = (vxk_kdtree*)calloc(n, sizeof(vxk_kdtree));
    vxk_kdtree16* q16_trees = (vxk_kdtree16*)calloc(n, sizeof(vxk_kdtree16));
    vxk_kdtree16* q16q_trees = (vxk_kdtree16*)calloc(n, sizeof(vxk_kdtree16));
    // the allocation-free build: nodes bump-allocated from one arena, as a chunk cache would
    vxk_kdtree* arena_trees = (vxk_kdtree*)calloc(n, sizeof(vxk_kdtree));
    size_t arena_nodes = 0;
    for (uint32_t i = 0; i < n; ++i)
        arena_nodes += vxk_kdtree_max_nodes(chunks[i].tri.primitive_count);
    vxk_kdtree_node* arena = (vxk_kdtree_node*)malloc(sizeof(vxk_kdtree_node) * arena_nodes);
#ifdef VXK_HAVE_BULLET
    vxk_bullet_mesh** peers[2] = {(vxk_bullet_mesh**)calloc(n, sizeof(vxk_bullet_mesh*)),
                                  (vxk_bullet_mesh**)calloc(n, sizeof(vxk_bullet_mesh*))};
    double t_bullet[2][KD_MAX_REPS], t_bullet_best[KD_MAX_REPS];
#endif
    // ---- builds: single thread, allocation included, every variant (and Bullet's two) timed
    // back to back in each repetition; medians over the repetitions
    int reps = b->quick ? 3 : 15;
    double t_tri[KD_MAX_REPS], t_quad[KD_MAX_REPS], t_q16[KD_MAX_REPS], t_q16q[KD_MAX_REPS];
    double t_arena[KD_MAX_REPS];
    vxk_bench_progress(b, "kd: builds");
    // batches of chunks, every structure in turn: a load change on the machine lands on all
    // sides of a comparison instead of on whichever happened to run then
    const uint32_t batch = 100;
    for (int r = 0; r < reps; ++r) {
        t_tri[r] = t_quad[r] = t_q16[r] = t_q16q[r] = t_arena[r] = 0;
        size_t arena_used = 0;
#ifdef VXK_HAVE_BULLET
        t_bullet[0][r] = t_bullet[1][r] = 0;
#endif
        for (uint32_t b0 = 0; b0 < n; b0 += batch) {
            uint32_t b1 = VXK_MIN(n, b0 + batch);
            double t0 = vxk_bench_now();
            for (uint32_t i = b0; i < b1; ++i)
                vxk_kdtree_build(&tri_trees[i], &chunks[i].tri, scratch, scratch_size);
            double t1 = vxk_bench_now();
            for (uint32_t i = b0; i < b1; ++i)
                vxk_kdtree_build(&quad_trees[i], &chunks[i].quad, scratch, scratch_size);
            double t2 = vxk_bench_now();
            for (uint32_t i = b0; i < b1; ++i)
                vxk_kdtree16_build(&q16_trees[i], &chunks[i].tri, scratch, scratch_size);
            double t3 = vxk_bench_now();
            for (uint32_t i = b0; i < b1; ++i)
                vxk_kdtree16_build(&q16q_trees[i], &chunks[i].quad, scratch, scratch_size);
            double t4 = vxk_bench_now();
            for (uint32_t i = b0; i < b1; ++i) {
                vxk_kdtree_build_in(&arena_trees[i], &chunks[i].tri, arena + arena_used,
                                    (uint32_t)(arena_nodes - arena_used), scratch, scratch_size);
                arena_used += arena_trees[i].node_count;
            }
            double t5 = vxk_bench_now();
            t_arena[r] += t5 - t4;
            t_tri[r] += t1 - t0;
            t_quad[r] += t2 - t1;
            t_q16[r] += t3 - t2;
            t_q16q[r] += t4 - t3;
#ifdef VXK_HAVE_BULLET
            // Bullet over the same welded triangles, quantized and not
            for (int quantized = 0; quantized < 2; ++quantized) {
                double tb = vxk_bench_now();
                for (uint32_t i = b0; i < b1; ++i)
                    peers[quantized][i] = vxk_bullet_build(
                        &chunks[i].tri.vertices[0].x, chunks[i].tri.vertex_count,
                        chunks[i].tri.indices, chunks[i].tri.primitive_count, quantized);
                t_bullet[quantized][r] += vxk_bench_now() - tb;
            }
#endif
        }
#ifdef VXK_HAVE_BULLET
        t_bullet_best[r] = fmin(t_bullet[0][r], t_bullet[1][r]);
        if (r + 1 < reps)
            for (int quantized = 0; quantized < 2; ++quantized)
                for (uint32_t i = 0; i < n; ++i)
                    vxk_bullet_destroy(peers[quantized][i]);
#endif
        if (r + 1 < reps)
            for (uint32_t i = 0; i < n; ++i) {
                vxk_kdtree_free(&tri_trees[i]);
                vxk_kdtree_free(&quad_trees[i]);
                vxk_kdtree16_free(&q16_trees[i]);
                vxk_kdtree16_free(&q16q_trees[i]);
            }
    }
    double best_tri = median(t_tri, reps), best_quad = median(t_quad, reps);
    double best_q16 = median(t_q16, reps), best_q16q = median(t_q16q, reps);
    double tri_nodes = 0, quad_nodes = 0, q16_nodes = 0, q16_total = 0, q16q_nodes = 0,
           q16q_total = 0, mesh_tri = 0, mesh_quad = 0, depth_sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        tri_nodes += (double)vxk_kdtree_bytes(&tri_trees[i]);
        quad_nodes += (double)vxk_kdtree_bytes(&quad_trees[i]);
        q16_nodes += (double)vxk_kdtree16_bytes(&q16_trees[i]);
        q16_total += (double)vxk_kdtree16_total_bytes(&q16_trees[i]);
        q16q_nodes += (double)vxk_kdtree16_bytes(&q16q_trees[i]);
        q16q_total += (double)vxk_kdtree16_total_bytes(&q16q_trees[i]);
        mesh_tri += 12.0 * chunks[i].tri.vertex_count + 12.0 * chunks[i].tri.primitive_count;
        mesh_quad += 12.0 * chunks[i].quad.vertex_count + 16.0 * chunks[i].quad.primitive_count;
        depth_sum += tri_trees[i].depth;
        vxk_bench_hash(b, tri_trees[i].nodes, vxk_kdtree_bytes(&tri_trees[i]));
    }
    vxk_bench_phase_add(b, "kd_build_tris", best_tri, tris);
    vxk_bench_phase_add(b, "kd_build_quads", best_quad, quads);
    vxk_bench_phase_add(b, "kd_build_q16", best_q16, tris);
    vxk_bench_phase_add(b, "kd_build_q16_quads", best_q16q, quads);
    vxk_bench_figure_add(b, "kd_chunks", n);
    vxk_bench_figure_add(b, "kd_tris_per_chunk", tris / n);
    vxk_bench_figure_add(b, "kd_quads_per_chunk", quads / n);
    vxk_bench_figure_add(b, "kd_verts_per_tri", verts / tris);
    vxk_bench_figure_add(b, "kd_mean_depth", depth_sum / n);
    vxk_bench_figure_add(b, "kd_build_tris_per_s", tris / best_tri);
    vxk_bench_figure_add(b, "kd_build_arena_tris_per_s", tris / median(t_arena, reps));
    vxk_bench_figure_add(b, "kd_bytes_per_tri", tri_nodes / tris);
    vxk_bench_figure_add(b, "kd_total_bytes_per_tri", (tri_nodes + mesh_tri) / tris);
    vxk_bench_figure_add(b, "kd_quad_build_tris_per_s", 2 * quads / best_quad);
    vxk_bench_figure_add(b, "kd_quad_bytes_per_tri", quad_nodes / (2 * quads));
    vxk_bench_figure_add(b, "kd_quad_total_bytes_per_tri", (quad_nodes + mesh_quad) / (2 * quads));
    vxk_bench_figure_add(b, "kd_q16_build_tris_per_s", tris / best_q16);
    vxk_bench_figure_add(b, "kd_q16_bytes_per_tri", q16_nodes / tris);
    vxk_bench_figure_add(b, "kd_q16_total_bytes_per_tri", q16_total / tris);
    // quads: per triangle-equivalent (half a quad) and per actual quad
    vxk_bench_figure_add(b, "kd_q16_quad_build_quads_per_s", quads / best_q16q);
    vxk_bench_figure_add(b, "kd_q16_quad_bytes_per_tri_eq", q16q_nodes / (2 * quads));
    vxk_bench_figure_add(b, "kd_q16_quad_total_bytes_per_tri_eq", q16q_total / (2 * quads));
    vxk_bench_figure_add(b, "kd_q16_quad_total_bytes_per_quad", q16q_total / quads);
    vxk_bench_figure_add(b, "kd_q16_quad_total_bytes_per_mesh_tri", q16q_total / tris);

    // ---- AABB queries: body-sized boxes near the surface
    uint64_t seed = b->seed * 0x9E3779B97F4A7C15ull + 7;
    uint32_t query_count = b->quick ? 20000 : 400000;
    kd_query* queries = (kd_query*)malloc(sizeof(kd_query) * query_count);
    for (uint32_t q = 0; q < query_count; ++q) {
        uint32_t c = (uint32_t)(vxk_splitmix64(&seed) % n);
        const vxk_mesh* m = &chunks[c].tri;
        vxk_vec3 p = m->vertices[vxk_splitmix64(&seed) % m->vertex_count];
        float h = rnd(&seed, 0.25f, 1.5f);
        p.x += rnd(&seed, -1, 1);
        p.y += rnd(&seed, -1, 1);
        p.z += rnd(&seed, -1, 1);
        queries[q] = (kd_query){c, {{p.x - h, p.y - h, p.z - h}, {p.x + h, p.y + h, p.z + h}}};
    }
    uint32_t out[4096];
    uint64_t found = 0;
    int qreps = b->quick ? 2 : 7;
    double t_aabb[KD_MAX_REPS];
    for (int r = 0; r < qreps; ++r) {
        double t0 = vxk_bench_now();
        found = 0;
        for (uint32_t q = 0; q < query_count; ++q)
            found += vxk_kdtree_query_aabb(&tri_trees[queries[q].chunk], out, 4096, &queries[q].box,
                                           NULL);
        t_aabb[r] = vxk_bench_now() - t0;
    }
    double aabb_s = median(t_aabb, qreps);
    vxk_bench_hash(b, &found, sizeof(found));
    vxk_bench_phase_add(b, "kd_aabb_queries", aabb_s, query_count);
    vxk_bench_figure_add(b, "aabb_queries_per_s", query_count / aabb_s);
    vxk_bench_figure_add(b, "aabb_results_per_query", (double)found / query_count);
    free(queries);

    // ---- rays: half aimed at surface points, half random, segments of 32 voxels; every ray goes
    // to its own chunk's tree, the same rays in the same order for every structure and for Bullet
    uint32_t ray_count = b->quick ? 20000 : 400000;
    kd_bench_ray* rays = (kd_bench_ray*)malloc(sizeof(kd_bench_ray) * ray_count);
    for (uint32_t r = 0; r < ray_count; ++r) {
        uint32_t c = (uint32_t)(vxk_splitmix64(&seed) % n);
        vxk_aabb bb = chunks[c].bounds;
        vxk_vec3 o = {rnd(&seed, bb.min.x - 2, bb.max.x + 2),
                      rnd(&seed, bb.min.y - 2, bb.max.y + 2),
                      rnd(&seed, bb.min.z - 2, bb.max.z + 2)};
        vxk_vec3 d;
        if (r & 1) {
            const vxk_mesh* m = &chunks[c].tri;
            vxk_vec3 p = m->vertices[vxk_splitmix64(&seed) % m->vertex_count];
            d = (vxk_vec3){p.x + rnd(&seed, -0.7f, 0.7f) - o.x, p.y + rnd(&seed, -0.7f, 0.7f) - o.y,
                           p.z + rnd(&seed, -0.7f, 0.7f) - o.z};
        } else {
            d = (vxk_vec3){rnd(&seed, -1, 1), rnd(&seed, -1, 1), rnd(&seed, -1, 1)};
        }
        float len = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
        if (len < 1e-6f) {
            d = (vxk_vec3){0, -1, 0};
            len = 1;
        }
        d = (vxk_vec3){d.x / len, d.y / len, d.z / len};
        rays[r] = (kd_bench_ray){c, {o, d, 32.0f}};
    }
    vxk_kdtree_hit* hits = (vxk_kdtree_hit*)malloc(sizeof(vxk_kdtree_hit) * ray_count);
    float* bullet_t = (float*)malloc(sizeof(float) * ray_count);
    uint64_t hit_count = 0, quad_hits = 0, q16_hits = 0, q16q_hits = 0, any_hits = 0;
    double t_ray[KD_MAX_REPS], t_qray[KD_MAX_REPS], t_q16ray[KD_MAX_REPS], t_q16qray[KD_MAX_REPS],
        t_any[KD_MAX_REPS];
#ifdef VXK_HAVE_BULLET
    double t_bray[2][KD_MAX_REPS];
    uint64_t bullet_hits[2] = {0, 0};
#endif
    vxk_bench_progress(b, "kd: rays");
    const uint32_t ray_batch = 8192; // every structure in turn per batch, as for the builds
    for (int rep = 0; rep < qreps; ++rep) {
        hit_count = quad_hits = q16_hits = q16q_hits = any_hits = 0;
        t_ray[rep] = t_qray[rep] = t_q16ray[rep] = t_q16qray[rep] = t_any[rep] = 0;
#ifdef VXK_HAVE_BULLET
        bullet_hits[0] = bullet_hits[1] = 0;
        t_bray[0][rep] = t_bray[1][rep] = 0;
#endif
        for (uint32_t r0 = 0; r0 < ray_count; r0 += ray_batch) {
            uint32_t r1 = VXK_MIN(ray_count, r0 + ray_batch);
            double t0 = vxk_bench_now();
            for (uint32_t r = r0; r < r1; ++r)
                hit_count +=
                    vxk_kdtree_raycast(&tri_trees[rays[r].chunk], &hits[r], &rays[r].ray, NULL);
            double t1 = vxk_bench_now();
            for (uint32_t r = r0; r < r1; ++r) {
                vxk_kdtree_hit h;
                quad_hits += vxk_kdtree_raycast(&quad_trees[rays[r].chunk], &h, &rays[r].ray, NULL);
            }
            double t2 = vxk_bench_now();
            for (uint32_t r = r0; r < r1; ++r) {
                vxk_kdtree_hit h;
                q16_hits += vxk_kdtree16_raycast(&q16_trees[rays[r].chunk], &h, &rays[r].ray, NULL);
            }
            double t3 = vxk_bench_now();
            for (uint32_t r = r0; r < r1; ++r) {
                vxk_kdtree_hit h;
                q16q_hits +=
                    vxk_kdtree16_raycast(&q16q_trees[rays[r].chunk], &h, &rays[r].ray, NULL);
            }
            double t4 = vxk_bench_now();
            for (uint32_t r = r0; r < r1; ++r)
                any_hits += vxk_kdtree_raycast_any(&tri_trees[rays[r].chunk], &rays[r].ray, NULL);
            double t5 = vxk_bench_now();
            t_ray[rep] += t1 - t0;
            t_qray[rep] += t2 - t1;
            t_q16ray[rep] += t3 - t2;
            t_q16qray[rep] += t4 - t3;
            t_any[rep] += t5 - t4;
#ifdef VXK_HAVE_BULLET
            for (int quantized = 0; quantized < 2; ++quantized) {
                double tb = vxk_bench_now();
                uint64_t bh = 0;
                for (uint32_t r = r0; r < r1; ++r) {
                    const vxk_kdtree_ray* ray = &rays[r].ray;
                    float from[3] = {ray->origin.x, ray->origin.y, ray->origin.z};
                    float to[3] = {ray->origin.x + ray->dir.x * ray->tmax,
                                   ray->origin.y + ray->dir.y * ray->tmax,
                                   ray->origin.z + ray->dir.z * ray->tmax};
                    float fraction = 0.0f;
                    int hit =
                        vxk_bullet_raycast(peers[quantized][rays[r].chunk], from, to, &fraction);
                    bh += (uint64_t)hit;
                    bullet_t[r] = hit ? fraction * ray->tmax : -1.0f;
                }
                t_bray[quantized][rep] += vxk_bench_now() - tb;
                bullet_hits[quantized] += bh;
            }
#endif
        }
    }
    double ray_s = median(t_ray, qreps), quad_ray_s = median(t_qray, qreps);
    double q16_ray_s = median(t_q16ray, qreps), q16q_ray_s = median(t_q16qray, qreps);
    double any_s = median(t_any, qreps);
    vxk_bench_hash(b, &hit_count, sizeof(hit_count));
    vxk_bench_phase_add(b, "kd_rays", ray_s, ray_count);
    vxk_bench_phase_add(b, "kd_quad_rays", quad_ray_s, ray_count);
    vxk_bench_phase_add(b, "kd_q16_rays", q16_ray_s, ray_count);
    vxk_bench_phase_add(b, "kd_q16_quad_rays", q16q_ray_s, ray_count);
    vxk_bench_figure_add(b, "kd_rays_per_s", ray_count / ray_s);
    vxk_bench_figure_add(b, "kd_quad_rays_per_s", ray_count / quad_ray_s);
    vxk_bench_figure_add(b, "kd_q16_rays_per_s", ray_count / q16_ray_s);
    vxk_bench_figure_add(b, "kd_q16_quad_rays_per_s", ray_count / q16q_ray_s);
    vxk_bench_figure_add(b, "kd_any_rays_per_s", ray_count / any_s);
    vxk_bench_figure_add(b, "kd_ray_hit_fraction", (double)hit_count / ray_count);
    // quads and triangles may disagree on rays grazing a quad's diagonal (border rounding)
    vxk_bench_figure_add(b, "kd_q16_hit_match", q16_hits == hit_count && any_hits == hit_count);
    vxk_bench_figure_add(b, "kd_quad_hit_diff", fabs((double)quad_hits - (double)hit_count));
    vxk_bench_figure_add(b, "kd_q16_quad_hit_match", q16q_hits == quad_hits);

#ifdef VXK_HAVE_BULLET
    double bullet_build = median(t_bullet_best, reps);
    vxk_bench_phase_add(b, "bullet_build", bullet_build, tris);
    vxk_bench_figure_add(b, "bullet_build_tris_per_s", tris / bullet_build);
    vxk_bench_figure_add(b, "bullet_build_quantized_tris_per_s", tris / median(t_bullet[1], reps));
    vxk_bench_figure_add(b, "bullet_build_plain_tris_per_s", tris / median(t_bullet[0], reps));
    // the faster of Bullet's two builds in each repetition over ours in the same repetition
    vxk_bench_figure_add(b, "bullet_build_ratio", median_ratio(t_bullet_best, t_tri, reps));
    vxk_bench_figure_add(b, "bullet_build_ratio_arena", median_ratio(t_bullet_best, t_arena, reps));
    vxk_bench_figure_add(b, "bullet_build_ratio_q16", median_ratio(t_bullet_best, t_q16, reps));
    vxk_bench_figure_add(b, "bullet_build_ratio_q16_quads",
                         median_ratio(t_bullet_best, t_q16q, reps));
    double bullet_bytes[2] = {0, 0};
    for (int quantized = 0; quantized < 2; ++quantized)
        for (uint32_t i = 0; i < n; ++i)
            bullet_bytes[quantized] += (double)vxk_bullet_node_bytes(peers[quantized][i]);
    vxk_bench_figure_add(b, "bullet_bytes_per_tri", bullet_bytes[1] / tris);
    vxk_bench_figure_add(b, "bullet_bytes_per_tri_unquantized", bullet_bytes[0] / tris);
    // Bullet's rays: whichever of its two trees is faster (median), over the same rays
    int fast = median(t_bray[1], qreps) <= median(t_bray[0], qreps) ? 1 : 0;
    double bullet_ray_s = median(t_bray[fast], qreps);
    vxk_bench_phase_add(b, "bullet_rays", bullet_ray_s, ray_count);
    vxk_bench_figure_add(b, "bullet_rays_per_s", ray_count / bullet_ray_s);
    vxk_bench_figure_add(b, "bullet_rays_quantized_per_s", ray_count / median(t_bray[1], qreps));
    vxk_bench_figure_add(b, "bullet_rays_plain_per_s", ray_count / median(t_bray[0], qreps));
    vxk_bench_figure_add(b, "bullet_ray_fastest_is_quantized", fast);
    vxk_bench_figure_add(b, "bullet_ray_ratio", median_ratio(t_bray[fast], t_ray, qreps));
    vxk_bench_figure_add(b, "bullet_ray_ratio_quads", median_ratio(t_bray[fast], t_qray, qreps));
    vxk_bench_figure_add(b, "bullet_ray_ratio_q16", median_ratio(t_bray[fast], t_q16ray, qreps));
    vxk_bench_figure_add(b, "bullet_ray_ratio_q16_quads",
                         median_ratio(t_bray[fast], t_q16qray, qreps));
    // bullet_t holds the last Bullet pass (quantized); both of Bullet's trees hit the same rays
    uint64_t agree = 0;
    for (uint32_t r = 0; r < ray_count; ++r) {
        bool ours = hits[r].primitive != VXK_KD_NO_PRIMITIVE;
        bool theirs = bullet_t[r] >= 0.0f;
        if (ours == theirs &&
            (!ours || fabsf(hits[r].t - bullet_t[r]) <= 1e-4f * fmaxf(1.0f, hits[r].t)))
            ++agree;
    }
    vxk_bench_figure_add(b, "bullet_ray_agreement", (double)agree / ray_count);
    vxk_bench_figure_add(b, "bullet_hit_match", bullet_hits[0] == bullet_hits[1]);
    for (int quantized = 0; quantized < 2; ++quantized) {
        for (uint32_t i = 0; i < n; ++i)
            vxk_bullet_destroy(peers[quantized][i]);
        free(peers[quantized]);
    }
#endif
    free(bullet_t);

    free(hits);
    free(rays);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_kdtree_free(&tri_trees[i]);
        vxk_kdtree_free(&quad_trees[i]);
        vxk_kdtree16_free(&q16_trees[i]);
        vxk_kdtree16_free(&q16q_trees[i]);
        free_welded(&chunks[i].tri);
        free_welded(&chunks[i].quad);
    }
    free(tri_trees);
    free(quad_trees);
    free(q16_trees);
    free(q16q_trees);
    free(arena_trees);
    free(arena);
    free(scratch);
    free(chunks);
}
