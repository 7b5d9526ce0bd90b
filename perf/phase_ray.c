// phase_ray.c: the world raycast benchmark phase (seed 000: kD tree ray queries through the lazy
// narrowphase cache): rays from above the surface downwards and horizontal rays through caves,
// single-threaded (cold and warm cache) and batched over all threads; camera tiles one thread,
// single rays against the batch's 8-ray packets; rays across 2^26 voxels of empty space in a
// sparse world; against Embree (rtcIntersect1 over the same triangles) and Bullet when their
// peers are built.
#include "bench.h"
#include "scenes.h"

#include <vxk/broadphase.h>
#include <vxk/mesher.h>
#include <vxk/raycast.h>
#include <vxk/world.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "narrow_cache.h"
#include "world_internal.h"

#ifdef VXK_HAVE_EMBREE
#include "peer_embree.h"
#endif
#ifdef VXK_HAVE_BULLET
#include "peer_bullet.h"
#endif

typedef struct ray_region {
    int32_t lo[3], hi[3]; // voxel box the rays aim into (inclusive lo, exclusive hi)
} ray_region;

// The ray region: a square in x/z at the centre of the terrain's chunk bounds, all heights.
static bool find_region(const vxk_world* world, int32_t side, ray_region* r)
{
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &count);
    if (!chunks || count == 0)
        return false;
    int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t c[3] = {chunks[i]->coord.x, chunks[i]->coord.y, chunks[i]->coord.z};
        for (int a = 0; a < 3; ++a) {
            lo[a] = c[a] < lo[a] ? c[a] : lo[a];
            hi[a] = c[a] > hi[a] ? c[a] : hi[a];
        }
    }
    for (int a = 0; a < 3; ++a) {
        r->lo[a] = lo[a] * 8;
        r->hi[a] = (hi[a] + 1) * 8;
    }
    for (int a = 0; a < 3; a += 2) {
        int32_t mid = (r->lo[a] + r->hi[a]) / 2;
        int32_t half = side / 2;
        if (r->hi[a] - r->lo[a] > side) {
            r->lo[a] = mid - half;
            r->hi[a] = mid + half;
        }
    }
    return true;
}

static float randf(uint64_t* s, float lo, float hi)
{
    return lo + (hi - lo) * (float)((vxk_splitmix64(s) >> 40) * (1.0 / 16777216.0));
}

// Half the rays from above the surface downwards (slightly tilted), half horizontal from air
// voxels under the surface (caves) with a 64-voxel reach.
static void make_rays(const vxk_world* world, const ray_region* r, uint64_t seed, vxk_ray* rays,
                      uint32_t n)
{
    float vs = vxk_world_voxel_size(world);
    uint64_t s = seed;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_ray* ray = &rays[i];
        if (i % 2 == 0) {
            ray->origin = (vxk_vec3){randf(&s, (float)r->lo[0], (float)r->hi[0]) * vs,
                                     ((float)r->hi[1] + randf(&s, 1, 16)) * vs,
                                     randf(&s, (float)r->lo[2], (float)r->hi[2]) * vs};
            ray->direction = (vxk_vec3){randf(&s, -0.4f, 0.4f), -1, randf(&s, -0.4f, 0.4f)};
            ray->max_distance = INFINITY;
            continue;
        }
        // Horizontal: an air voxel with solid somewhere above it (under the surface), else any.
        vxk_vec3 o = {0, 0, 0};
        for (int attempt = 0; attempt < 64; ++attempt) {
            int32_t x = r->lo[0] + (int32_t)(vxk_splitmix64(&s) % (uint64_t)(r->hi[0] - r->lo[0]));
            int32_t z = r->lo[2] + (int32_t)(vxk_splitmix64(&s) % (uint64_t)(r->hi[2] - r->lo[2]));
            int32_t y = r->lo[1] + (int32_t)(vxk_splitmix64(&s) % (uint64_t)(r->hi[1] - r->lo[1]));
            o = (vxk_vec3){((float)x + 0.5f) * vs, ((float)y + 0.5f) * vs, ((float)z + 0.5f) * vs};
            uint8_t id = vxk_world_get_voxel(world, (vxk_int3){x, y, z});
            if (id != 0)
                continue;
            bool covered = false;
            for (int32_t k = 1; k <= 8 && !covered; ++k)
                covered = vxk_world_get_voxel(world, (vxk_int3){x, y + k, z}) != 0;
            if (covered)
                break;
        }
        float angle = randf(&s, 0, 6.2831853f);
        ray->origin = o;
        ray->direction = (vxk_vec3){cosf(angle), randf(&s, -0.05f, 0.05f), sinf(angle)};
        ray->max_distance = 64.0f * vs;
    }
}

// Process CPU time (all threads): per-ray CPU cost of a batch equal to that of single rays means
// the threads add no work (no contention); the wall-clock gain then depends on free cores.
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double trace_single(const vxk_world* world, const vxk_ray* rays, uint32_t n,
                           vxk_ray_hit* hits)
{
    double t0 = vxk_bench_now();
    for (uint32_t i = 0; i < n; ++i)
        vxk_raycast(world, &hits[i], &rays[i]);
    return vxk_bench_now() - t0;
}

// Coherent rays: a w x w pinhole camera above the region's centre looking down at 45 degrees
// (60-degree field of view), stored tile by tile (8x8 pixels, rows of 8 consecutive), so that
// each 8 consecutive rays share the eye and an octant: the batch's packets.
static void make_camera_rays(const vxk_world* world, const ray_region* r, uint32_t w, vxk_ray* rays)
{
    float vs = vxk_world_voxel_size(world);
    vxk_vec3 eye = {(float)(r->lo[0] + r->hi[0]) * 0.5f * vs, ((float)r->hi[1] + 24.0f) * vs,
                    (float)(r->lo[2] + 3 * r->hi[2]) * 0.25f * vs};
    const float c = 0.70710678f;
    vxk_vec3 fwd = {0.0f, -c, -c}, right = {1.0f, 0.0f, 0.0f}, up = {0.0f, c, -c};
    float half = 0.57735027f; // tan(30 degrees)
    uint32_t i = 0;
    for (uint32_t ty = 0; ty < w / 8; ++ty)
        for (uint32_t tx = 0; tx < w / 8; ++tx)
            for (uint32_t p = 0; p < 64; ++p, ++i) {
                float px = (((float)(tx * 8 + p % 8) + 0.5f) / (float)w * 2.0f - 1.0f) * half;
                float py = (1.0f - ((float)(ty * 8 + p / 8) + 0.5f) / (float)w * 2.0f) * half;
                rays[i].origin = eye;
                rays[i].direction =
                    (vxk_vec3){fwd.x + px * right.x + py * up.x, fwd.y + px * right.y + py * up.y,
                               fwd.z + px * right.z + py * up.z};
                rays[i].max_distance = INFINITY;
            }
}

// The share of rays traced in packets (8 lanes each) over reps batches of n rays, from the cache
// statistics before and after.
static double packet_lane_fraction(const vxk_raycast_cache_stats* before,
                                   const vxk_raycast_cache_stats* after, int reps, uint32_t n)
{
    return (double)(after->packets - before->packets) * 8.0 / ((double)reps * n);
}

// The camera rays on one thread: through vxk_raycast one by one, and through vxk_raycast_batch one
// 8x8 tile per call (64 rays: a single piece, run on the calling thread, packets of 8). Best of 3.
static void bench_camera(vxk_bench* b, const vxk_world* world, const ray_region* region)
{
    uint32_t w = b->quick ? 128 : 512, n = w * w;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* single = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    vxk_ray_hit* packet = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    if (!rays || !single || !packet) {
        free(rays);
        free(single);
        free(packet);
        return;
    }
    make_camera_rays(world, region, w, rays);
    trace_single(world, rays, n, single); // warms the cache
    double t_single = 1e30, t_packet = 1e30;
    vxk_raycast_cache_stats s0, s1;
    vxk_raycast_get_cache_stats(world, &s0);
    for (int rep = 0; rep < 3; ++rep) {
        double t = trace_single(world, rays, n, single);
        t_single = t < t_single ? t : t_single;
        double t0 = vxk_bench_now();
        for (uint32_t i = 0; i < n; i += 64)
            vxk_raycast_batch(world, packet + i, rays + i, 64);
        t = vxk_bench_now() - t0;
        t_packet = t < t_packet ? t : t_packet;
    }
    vxk_raycast_get_cache_stats(world, &s1);
    uint32_t same = 0, hit_count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        same += memcmp(&single[i], &packet[i], sizeof(vxk_ray_hit)) == 0;
        hit_count += single[i].hit;
    }
    vxk_bench_phase_add(b, "ray_coherent_single", t_single, n);
    vxk_bench_phase_add(b, "ray_packet", t_packet, n);
    vxk_bench_figure_add(b, "rays_coherent_single_per_s", n / t_single);
    vxk_bench_figure_add(b, "rays_packet_per_s", n / t_packet);
    vxk_bench_figure_add(b, "ray_packet_speedup", t_single / t_packet);
    vxk_bench_figure_add(b, "ray_coherent_hit_fraction", (double)hit_count / n);
    vxk_bench_figure_add(b, "ray_packet_equals_single", same == n ? 1.0 : 0.0);
    vxk_bench_figure_add(b, "ray_packet_lane_fraction", packet_lane_fraction(&s0, &s1, 3, n));
    free(rays);
    free(single);
    free(packet);
}

// A sparse world: blocks of 16^3 voxels at x = 0 and at 2^26 voxels along x and along the
// diagonal, nothing between (no dense ray grid). Rays from beside the first block to random points
// of the far ones cross 2^23 empty chunk cells: their cost is the empty-space skipping's (the
// coarse occupancy levels), reported per ray with the DDA steps it took.
static void bench_sparse(vxk_bench* b)
{
    vxk_world* world = vxk_scene_world();
    if (!world)
        return;
    const int32_t far = 1 << 26;
    const vxk_int3 lo[3] = {{0, 0, 0}, {far, 0, 0}, {far, far, far}};
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) {
        vxk_int_box box = {lo[k], {lo[k].x + 15, lo[k].y + 15, lo[k].z + 15}};
        ok = vxk_world_fill_box(world, box, VXK_MAT_STONE) == VXK_OK;
    }
    if (!ok || vxk_broadphase_build(world) != VXK_OK) {
        vxk_world_destroy(world);
        return;
    }
    uint32_t n = b->quick ? 200 : 2000;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* hits = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    uint64_t s = b->seed * 31 + 5;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_int3 target = lo[1 + i % 2];
        vxk_vec3 o = {randf(&s, 17, 40), randf(&s, 17, 40), randf(&s, 17, 40)};
        vxk_vec3 t = {(float)target.x + randf(&s, 1, 15), (float)target.y + randf(&s, 1, 15),
                      (float)target.z + randf(&s, 1, 15)};
        rays[i] = (vxk_ray){o, {t.x - o.x, t.y - o.y, t.z - o.z}, INFINITY};
    }
    vxk_raycast_cache_stats s0, s1;
    trace_single(world, rays, n, hits); // builds the trees and the sparse ray index
    vxk_raycast_get_cache_stats(world, &s0);
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
        double t = trace_single(world, rays, n, hits);
        best = t < best ? t : best;
    }
    vxk_raycast_get_cache_stats(world, &s1);
    uint32_t hit_count = 0;
    for (uint32_t i = 0; i < n; ++i)
        hit_count += hits[i].hit;
    vxk_bench_phase_add(b, "ray_sparse", best, n);
    vxk_bench_figure_add(b, "ray_sparse_us", best / n * 1e6);
    vxk_bench_figure_add(b, "ray_sparse_steps", (double)(s1.steps - s0.steps) / (3.0 * n));
    vxk_bench_figure_add(b, "ray_sparse_hit_fraction", (double)hit_count / n);
    free(rays);
    free(hits);
    vxk_world_destroy(world);
}

#if defined(VXK_HAVE_EMBREE) || defined(VXK_HAVE_BULLET)
// World-space triangles (two per mesher quad) of every terrain chunk a ray can reach: the aiming
// region widened by the farthest sideways drift of make_rays' rays (downward rays tilt at most 0.4
// per unit of descent, horizontal ones reach 64 voxels), so the peers can hit whatever we hit
// without being handed the whole world (Bullet's quantized tree holds at most 2^21 triangles).
typedef struct region_mesh {
    float* vertices;
    uint32_t* indices;
    uint32_t vertex_count, tri_count, vertex_capacity, tri_capacity;
} region_mesh;

static bool region_mesh_build(const vxk_world* world, const ray_region* region, region_mesh* out)
{
    memset(out, 0, sizeof(*out));
    float vs = vxk_world_voxel_size(world);
    int32_t drift = (int32_t)ceilf(0.4f * (float)(region->hi[1] - region->lo[1] + 16));
    int32_t margin = (drift > 64 ? drift : 64) + 8;
    int32_t lo_x = (region->lo[0] - margin) >> 3, hi_x = (region->hi[0] + margin) >> 3;
    int32_t lo_z = (region->lo[2] - margin) >> 3, hi_z = (region->hi[2] + margin) >> 3;
    uint32_t chunk_count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &chunk_count);
    for (uint32_t i = 0; chunks && i < chunk_count; ++i) {
        int32_t cx = chunks[i]->coord.x, cy = chunks[i]->coord.y, cz = chunks[i]->coord.z;
        if (cx < lo_x || cx > hi_x || cz < lo_z || cz > hi_z)
            continue;
        vxk_quad quads[VXK_MESHER_MAX_QUADS];
        uint32_t count = 0;
        if (vxk_chunk_mesh(world, quads, VXK_MESHER_MAX_QUADS, &count, (vxk_int3){cx, cy, cz}) !=
                VXK_OK ||
            count == 0)
            continue;
        vxk_mesh m = {0};
        vxk_vec3 origin = {8.0f * (float)cx * vs, 8.0f * (float)cy * vs, 8.0f * (float)cz * vs};
        if (vxk_quad_to_mesh(&m, quads, count, 3, origin, vs) != VXK_OK)
            return false;
        if (out->vertex_count + m.vertex_count > out->vertex_capacity) {
            out->vertex_capacity = (out->vertex_count + m.vertex_count) * 2;
            out->vertices =
                (float*)realloc(out->vertices, (size_t)out->vertex_capacity * 3 * sizeof(float));
        }
        if (out->tri_count + m.primitive_count > out->tri_capacity) {
            out->tri_capacity = (out->tri_count + m.primitive_count) * 2;
            out->indices =
                (uint32_t*)realloc(out->indices, (size_t)out->tri_capacity * 3 * sizeof(uint32_t));
        }
        memcpy(out->vertices + 3 * (size_t)out->vertex_count, m.vertices,
               (size_t)m.vertex_count * sizeof(vxk_vec3));
        for (uint32_t k = 0; k < 3 * m.primitive_count; ++k)
            out->indices[3 * (size_t)out->tri_count + k] = m.indices[k] + out->vertex_count;
        out->vertex_count += m.vertex_count;
        out->tri_count += m.primitive_count;
        vxk_mesh_free(&m);
    }
    return out->tri_count > 0;
}

static void region_mesh_free(region_mesh* m)
{
    free(m->vertices);
    free(m->indices);
}

// Peer rays: unit directions, origins outside solid only (ours answers distance 0 inside).
typedef struct peer_rays {
    float* origins;
    float* dirs;
    float* tmax;
    uint32_t n;
} peer_rays;

static void peer_rays_make(const vxk_ray* rays, uint32_t n, peer_rays* p)
{
    p->origins = (float*)malloc((size_t)n * 3 * sizeof(float));
    p->dirs = (float*)malloc((size_t)n * 3 * sizeof(float));
    p->tmax = (float*)malloc((size_t)n * sizeof(float));
    p->n = n;
    for (uint32_t i = 0; i < n; ++i) {
        const vxk_ray* r = &rays[i];
        float len = sqrtf(r->direction.x * r->direction.x + r->direction.y * r->direction.y +
                          r->direction.z * r->direction.z);
        p->origins[3 * i + 0] = r->origin.x;
        p->origins[3 * i + 1] = r->origin.y;
        p->origins[3 * i + 2] = r->origin.z;
        p->dirs[3 * i + 0] = r->direction.x / len;
        p->dirs[3 * i + 1] = r->direction.y / len;
        p->dirs[3 * i + 2] = r->direction.z / len;
        p->tmax[i] = isinf(r->max_distance) ? 1e30f : r->max_distance;
    }
}

static void peer_rays_free(peer_rays* p)
{
    free(p->origins);
    free(p->dirs);
    free(p->tmax);
}

#define PEER_REPS 5

static double agreement(const vxk_ray_hit* ours, const float* theirs, uint32_t n)
{
    uint32_t agree = 0;
    for (uint32_t i = 0; i < n; ++i) {
        bool a = ours[i].hit != 0, b = theirs[i] >= 0.0f;
        if (a != b)
            continue;
        if (!a || fabsf(ours[i].distance - theirs[i]) <= 1e-4f * fmaxf(1.0f, theirs[i]))
            ++agree;
    }
    return n ? (double)agree / n : 0.0;
}
#endif

void vxk_bench_ray(vxk_bench* b)
{
    vxk_world* world = vxk_bench_shared_world(b);
    if (!world) {
        fprintf(stderr, "phase ray: cannot generate a world\n");
        return;
    }
    vxk_broadphase_stats counts;
    vxk_broadphase_get_stats(world, &counts);
    if (counts.entries == 0 && vxk_broadphase_build(world) != VXK_OK) {
        fprintf(stderr, "phase ray: broadphase build failed\n");
        return;
    }
    ray_region region;
    if (!find_region(world, b->quick ? 96 : 192, &region)) {
        return;
    }
    uint32_t n = b->quick ? 20000 : 200000;
    vxk_ray* rays = (vxk_ray*)malloc(n * sizeof(vxk_ray));
    vxk_ray_hit* hits = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    vxk_ray_hit* batch = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
    make_rays(world, &region, b->seed * 7919 + 13, rays, n);
    vxk_bench_progress(b, "rays");

    // Cold: the cache is empty, the first rays build meshes and trees.
    vxk_raycast_cache_clear(world);
    double cold = trace_single(world, rays, n, hits);
    // Warm, single thread: best of 3.
    vxk_raycast_cache_stats before, after;
    vxk_raycast_get_cache_stats(world, &before);
    double warm = 1e30, warm_cpu = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
        double c0 = cpu_now();
        double t = trace_single(world, rays, n, hits);
        double c = cpu_now() - c0;
        warm = t < warm ? t : warm;
        warm_cpu = c < warm_cpu ? c : warm_cpu;
    }
    vxk_raycast_get_cache_stats(world, &after);
    double lookups = (double)(after.hits - before.hits) + (double)(after.misses - before.misses);
    double hit_rate = lookups > 0 ? (double)(after.hits - before.hits) / lookups : 1.0;
    // Batch over all threads (the world's jobs).
    double batch_time = 1e30, batch_cpu = 1e30;
    vxk_raycast_cache_stats p0, p1;
    vxk_raycast_get_cache_stats(world, &p0);
    for (int rep = 0; rep < 3; ++rep) {
        double c0 = cpu_now();
        double t0 = vxk_bench_now();
        vxk_raycast_batch(world, batch, rays, n);
        double t = vxk_bench_now() - t0;
        double c = cpu_now() - c0;
        batch_time = t < batch_time ? t : batch_time;
        batch_cpu = c < batch_cpu ? c : batch_cpu;
    }
    vxk_raycast_get_cache_stats(world, &p1);
    uint32_t hit_count = 0, same = 0;
    for (uint32_t i = 0; i < n; ++i) {
        hit_count += hits[i].hit;
        same += memcmp(&hits[i], &batch[i], sizeof(vxk_ray_hit)) == 0;
    }
    vxk_bench_hash(b, batch, (uint64_t)n * sizeof(vxk_ray_hit));
    vxk_bench_phase_add(b, "ray_single", warm, n);
    vxk_bench_phase_add(b, "ray_batch", batch_time, n);
    vxk_bench_figure_add(b, "rays_per_s", n / warm);
    vxk_bench_figure_add(b, "rays_batch_per_s", n / batch_time);
    vxk_bench_figure_add(b, "ray_cold_per_s", n / cold);
    vxk_bench_figure_add(b, "ray_single_cpu_ns", warm_cpu / n * 1e9);
    vxk_bench_figure_add(b, "ray_batch_cpu_ns", batch_cpu / n * 1e9);
    vxk_bench_figure_add(b, "ray_batch_packet_lane_fraction", packet_lane_fraction(&p0, &p1, 3, n));
    vxk_bench_figure_add(b, "ray_cache_hit_rate", hit_rate);
    vxk_bench_figure_add(b, "ray_hit_fraction", (double)hit_count / n);
    vxk_bench_figure_add(b, "ray_batch_equals_single", same == n ? 1.0 : 0.0);
    vxk_bench_figure_add(b, "ray_cache_bytes", (double)after.bytes);
    vxk_bench_figure_add(b, "ray_cache_chunks", (double)after.entries);
    vxk_bench_figure_add(b, "ray_cache_bytes_per_chunk",
                         after.entries ? (double)after.bytes / (double)after.entries : 0.0);
    bench_camera(b, world, &region);
    bench_sparse(b);

#if defined(VXK_HAVE_EMBREE) || defined(VXK_HAVE_BULLET)
    // Peers trace the same triangles: every terrain chunk's, one scene. Rays starting inside
    // solid are left out (vxk answers them at distance 0 by definition). Each side traces the
    // same rays on one thread, one ray per call; ours with a warm cache (cold is above). Each
    // peer's runs alternate with ours, best of PEER_REPS each.
    vxk_bench_progress(b, "ray peers");
    region_mesh mesh;
    if (region_mesh_build(world, &region, &mesh)) {
        vxk_ray* outside = (vxk_ray*)malloc(n * sizeof(vxk_ray));
        vxk_ray_hit* outside_hits = (vxk_ray_hit*)malloc(n * sizeof(vxk_ray_hit));
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (!(hits[i].hit && hits[i].distance == 0.0f))
                outside[m++] = rays[i];
        trace_single(world, outside, m, outside_hits); // warm: the cache holds every chunk
        peer_rays pr;
        peer_rays_make(outside, m, &pr);
        float* t_peer = (float*)malloc((size_t)m * sizeof(float));
        vxk_bench_figure_add(b, "ray_peer_triangles", mesh.tri_count);
#ifdef VXK_HAVE_EMBREE
        vxk_peer_embree* embree =
            vxk_peer_embree_create(mesh.vertices, mesh.vertex_count, mesh.indices, mesh.tri_count);
        if (embree) {
            double theirs = 1e30, ours_e = 1e30;
            for (int rep = 0; rep < PEER_REPS; ++rep) {
                double to = trace_single(world, outside, m, outside_hits);
                ours_e = to < ours_e ? to : ours_e;
                double t0 = vxk_bench_now();
                vxk_peer_embree_trace(embree, pr.origins, pr.dirs, pr.tmax, m, t_peer);
                double t = vxk_bench_now() - t0;
                theirs = t < theirs ? t : theirs;
            }
            vxk_bench_figure_add(b, "embree_rays_per_s", m / theirs);
            vxk_bench_figure_add(b, "embree_ray_ratio", theirs / ours_e);
            vxk_bench_figure_add(b, "embree_ray_agreement", agreement(outside_hits, t_peer, m));
            vxk_peer_embree_destroy(embree);
        }
#endif
#ifdef VXK_HAVE_BULLET
        // Bullet's quantized btBvhTriangleMeshShape, one segment query per ray (infinite rays
        // become 10^4-unit segments; t = fraction * length).
        vxk_bullet_mesh* bullet =
            vxk_bullet_build(mesh.vertices, mesh.vertex_count, mesh.indices, mesh.tri_count, 1);
        if (bullet) {
            double theirs = 1e30, ours_b = 1e30;
            for (int rep = 0; rep < PEER_REPS; ++rep) {
                double to = trace_single(world, outside, m, outside_hits);
                ours_b = to < ours_b ? to : ours_b;
                double t0 = vxk_bench_now();
                for (uint32_t i = 0; i < m; ++i) {
                    const float* o = &pr.origins[3 * i];
                    const float* d = &pr.dirs[3 * i];
                    float len = pr.tmax[i] < 1e4f ? pr.tmax[i] : 1e4f;
                    float to[3] = {o[0] + d[0] * len, o[1] + d[1] * len, o[2] + d[2] * len};
                    float fraction = 0.0f;
                    t_peer[i] =
                        vxk_bullet_raycast(bullet, o, to, &fraction) ? fraction * len : -1.0f;
                }
                double t = vxk_bench_now() - t0;
                theirs = t < theirs ? t : theirs;
            }
            vxk_bench_figure_add(b, "world_bullet_rays_per_s", m / theirs);
            vxk_bench_figure_add(b, "world_bullet_ray_ratio", theirs / ours_b);
            vxk_bench_figure_add(b, "world_bullet_ray_agreement",
                                 agreement(outside_hits, t_peer, m));
            vxk_bullet_destroy(bullet);
        }
#endif
        free(t_peer);
        peer_rays_free(&pr);
        free(outside);
        free(outside_hits);
    }
    region_mesh_free(&mesh);
#endif
    free(rays);
    free(hits);
    free(batch);
}
