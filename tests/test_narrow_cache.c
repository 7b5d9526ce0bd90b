// test_narrow_cache.c: the lazy narrowphase cache under concurrency: every (chunk, stamp) built
// once while resident (single flight), data equal to a fresh build, bytes within the budget after
// eviction (pinned entries excepted), rebuilds after edits of the chunk or a neighbour, LRU order,
// acquires at an unchanged terrain epoch, the dense broadphase grid of the ray path and its
// lock-free slots (epochs, eviction, recycled entries, stale pinned data), and the quantized quad
// tree against the float fallback (bit-identical hits on random rays).
#include <vxk/broadphase.h>
#include <vxk/world.h>

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "narrow_cache.h"
#include "test.h"

#define SX 40
#define SY 24
#define SZ 32
static const int32_t MINV[3] = {-16, -8, -24};

static vxk_world* make_world(vxk_jobs* jobs, size_t budget, uint64_t seed)
{
    vxk_world_def def = vxk_default_world_def();
    def.jobs = jobs;
    def.narrow_cache_bytes = budget;
    vxk_world* world = NULL;
    if (vxk_world_create(&def, &world) != VXK_OK)
        return NULL;
    static uint8_t ids[SX * SY * SZ];
    uint64_t rng = seed;
    for (int y = 0; y < SY; ++y)
        for (int z = 0; z < SZ; ++z)
            for (int x = 0; x < SX; ++x) {
                int h = 9 + (x * 7 + z * 3) % 5;
                uint8_t id = y < h ? VXK_MAT_STONE : 0;
                if (vxk_test_rand(&rng) % 9 == 0)
                    id = id ? 0 : VXK_MAT_DIRT;
                ids[x + SX * (z + SZ * y)] = id;
            }
    if (vxk_world_write_box(
            world,
            vxk_test_box_sized((vxk_int3){MINV[0], MINV[1], MINV[2]}, (vxk_int3){SX, SY, SZ}),
            ids) != VXK_OK) {
        vxk_world_destroy(world);
        return NULL;
    }
    return world;
}

typedef struct chunk_list {
    vxk_int3 coords[1024];
    uint32_t count;
} chunk_list;

static void collect(void* user, const vxk_chunk_info* info)
{
    chunk_list* l = (chunk_list*)user;
    if (l->count < 1024)
        l->coords[l->count++] = info->coord;
}

static int same_data(const vxk_narrow_chunk* a, const vxk_narrow_chunk* b)
{
    VXK_CHECK(a->coord.x == b->coord.x && a->coord.y == b->coord.y && a->coord.z == b->coord.z);
    VXK_CHECK_EQ_U64(a->stamp, b->stamp);
    VXK_CHECK_EQ_U64(a->quad_count, b->quad_count);
    VXK_CHECK(a->quad_count == 0 ||
              memcmp(a->quads, b->quads, a->quad_count * sizeof(vxk_quad)) == 0);
    VXK_CHECK_EQ_INT(a->quantized, b->quantized);
    VXK_CHECK_EQ_U64(vxk_kdtree16_total_bytes(&a->tree16), vxk_kdtree16_total_bytes(&b->tree16));
    if (a->quantized) {
        // One block: nodes, corner slots, slot quad ids.
        VXK_CHECK(memcmp(a->tree16.nodes, b->tree16.nodes, vxk_kdtree16_total_bytes(&a->tree16)) ==
                  0);
        VXK_CHECK(memcmp(&a->tree16.origin, &b->tree16.origin, sizeof(vxk_vec3)) == 0);
        VXK_CHECK(memcmp(&a->tree16.step, &b->tree16.step, sizeof(vxk_vec3)) == 0);
    }
    VXK_CHECK_EQ_U64(a->mesh.vertex_count, b->mesh.vertex_count);
    VXK_CHECK(a->mesh.vertex_count == 0 || memcmp(a->mesh.vertices, b->mesh.vertices,
                                                  a->mesh.vertex_count * sizeof(vxk_vec3)) == 0);
    VXK_CHECK_EQ_U64(a->tree.node_count, b->tree.node_count);
    VXK_CHECK(a->tree.node_count == 0 || memcmp(a->tree.nodes, b->tree.nodes,
                                                a->tree.node_count * sizeof(vxk_kdtree_node)) == 0);
    VXK_CHECK_EQ_U64(a->bytes, b->bytes);
    VXK_CHECK(memcmp(a->solid, b->solid, sizeof(a->solid)) == 0);
    return 0;
}

// Nothing pinned: a clear leaves the cache without entries or bytes.
static int clears_to_empty(vxk_narrow_cache* cache)
{
    vxk_narrow_cache_clear(cache);
    vxk_narrow_stats st;
    vxk_narrow_cache_stats(cache, &st);
    VXK_CHECK_EQ_U64(st.entries, 0);
    VXK_CHECK_EQ_U64(st.bytes, 0);
    return 0;
}

// The chunk's solid bits against its voxels read one by one (bit x + 8 z of word y).
static int solid_bits_match(const vxk_world* world, const vxk_narrow_chunk* d)
{
    for (int32_t y = 0; y < 8; ++y)
        for (int32_t z = 0; z < 8; ++z)
            for (int32_t x = 0; x < 8; ++x) {
                uint8_t id = vxk_world_get_voxel(
                    world, (vxk_int3){8 * d->coord.x + x, 8 * d->coord.y + y, 8 * d->coord.z + z});
                bool solid = vxk_terrain_kind(&world->terrain, (uint8_t)id) == VXK_MATERIAL_SOLID;
                VXK_CHECK_EQ_INT((int)((d->solid[y] >> (x + 8 * z)) & 1u), (int)solid);
            }
    return 0;
}

// ---- quantized tree against the float fallback ----------------------------------------------

static float rand_in(uint64_t* rng, float lo, float hi)
{
    return lo + (hi - lo) * (float)((vxk_test_rand(rng) >> 40) * (1.0 / 16777216.0));
}

// Every chunk of a few worlds: the cache's structure is the quantized tree, valid, dequantizing
// to the float fallback's mesh exactly, and every ray (random, axis-aligned from lattice points,
// lattice corner to corner) gets bit-identical closest hits (t, u, v, quad) and any-hit answers
// from both; the quantized entry is the smaller.
static int test_quantized_equals_float(void)
{
    uint32_t rays_per_chunk = VXK_TEST_SLOW ? 60 : 400;
    uint64_t rays = 0, hits = 0, chunk_total = 0;
    for (uint64_t seed = 31; seed < 34; ++seed) {
        vxk_world* world = make_world(NULL, (size_t)64 << 20, seed);
        VXK_CHECK(world);
        static chunk_list chunks;
        chunks.count = 0;
        vxk_world_for_each_chunk(world, collect, &chunks);
        uint64_t rng = seed * 977;
        for (uint32_t i = 0; i < chunks.count; ++i) {
            vxk_int3 c = chunks.coords[i];
            vxk_narrow_chunk q, f;
            VXK_CHECK_EQ_INT(vxk_narrow_build_chunk(world, &q, c), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_narrow_build_chunk_float(world, &f, c), VXK_OK);
            VXK_CHECK_EQ_U64(q.quad_count, f.quad_count);
            VXK_CHECK(!f.quantized && f.tree16.nodes == NULL);
            if (q.quad_count == 0) {
                VXK_CHECK(!q.quantized && !f.block);
                continue;
            }
            ++chunk_total;
            VXK_CHECK(q.quantized && q.mesh.vertex_count == 0 && q.block == NULL);
            VXK_CHECK(memcmp(q.quads, f.quads, q.quad_count * sizeof(vxk_quad)) == 0);
            VXK_CHECK_EQ_INT(vxk_kdtree16_validate(&q.tree16), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_kdtree_validate(&f.tree), VXK_OK);
            VXK_CHECK(q.bytes < f.bytes);
            vxk_mesh deq = {0};
            VXK_CHECK_EQ_INT(vxk_kdtree16_dequantize(&q.tree16, &deq), VXK_OK);
            VXK_CHECK_EQ_U64(deq.vertex_count, f.mesh.vertex_count);
            VXK_CHECK(memcmp(deq.vertices, f.mesh.vertices, deq.vertex_count * sizeof(vxk_vec3)) ==
                      0);
            vxk_mesh_free(&deq);
            for (uint32_t r = 0; r < rays_per_chunk; ++r) {
                vxk_kdtree_ray ray;
                float* o = &ray.origin.x;
                float* d = &ray.dir.x;
                for (int a = 0; a < 3; ++a) {
                    o[a] = rand_in(&rng, -2.0f, 10.0f);
                    d[a] = rand_in(&rng, -1.0f, 1.0f);
                }
                uint32_t kind = r % 3;
                if (kind == 1) { // along an axis from a lattice point
                    int axis = (int)(vxk_test_rand(&rng) % 3);
                    for (int a = 0; a < 3; ++a) {
                        o[a] = floorf(o[a]);
                        d[a] = a == axis ? ((vxk_test_rand(&rng) & 1) ? 1.0f : -1.0f) : 0.0f;
                    }
                } else if (kind == 2) { // lattice corner to lattice corner (grazing edges)
                    for (int a = 0; a < 3; ++a) {
                        o[a] = floorf(o[a]);
                        d[a] = floorf(rand_in(&rng, -2.0f, 10.0f)) - o[a];
                    }
                    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)
                        d[1] = 1.0f;
                }
                uint64_t m = vxk_test_rand(&rng) % 3;
                ray.tmax = m == 0 ? FLT_MAX : rand_in(&rng, 0.0f, m == 1 ? 2.0f : 20.0f);
                vxk_kdtree_hit hq, hf;
                bool bq = vxk_narrow_raycast(&q, &hq, &ray);
                bool bf = vxk_narrow_raycast(&f, &hf, &ray);
                VXK_CHECK_EQ_INT(bq, bf);
                VXK_CHECK_MSG(memcmp(&hq, &hf, sizeof(hq)) == 0,
                              "chunk %d %d %d ray %u: t %.9g/%.9g quad %u/%u", c.x, c.y, c.z, r,
                              (double)hq.t, (double)hf.t, hq.primitive, hf.primitive);
                VXK_CHECK_EQ_INT(vxk_narrow_raycast_any(&q, &ray), bf);
                VXK_CHECK_EQ_INT(vxk_narrow_raycast_any(&f, &ray), bf);
                ++rays;
                hits += bf;
            }
            vxk_narrow_free_chunk(&q);
            vxk_narrow_free_chunk(&f);
        }
        vxk_world_destroy(world);
    }
    fprintf(stderr, "   %llu chunks, %llu rays, %llu hits\n", (unsigned long long)chunk_total,
            (unsigned long long)rays, (unsigned long long)hits);
    VXK_CHECK(chunk_total > 100);
    VXK_CHECK(hits > rays / 10 && hits < rays);
    return 0;
}

// ---- concurrent requests ------------------------------------------------------------------------

typedef struct shared_state {
    vxk_world* world;
    const chunk_list* chunks;
    vxk_narrow_chunk* fresh;        // fresh build per chunk
    _Atomic uint64_t* first_serial; // per chunk: serial of the first build seen (big budget)
    bool check_single_build;
    _Atomic int failures;
    uint32_t iterations;
} shared_state;

static void worker_loop(shared_state* s, uint64_t seed)
{
    uint64_t rng = seed;
    vxk_narrow_ref refs[4] = {{0}};
    for (uint32_t it = 0; it < s->iterations; ++it) {
        uint32_t k = (uint32_t)(vxk_test_rand(&rng) % s->chunks->count);
        // Skewed: half the requests go to 8 hot chunks (many threads race for the same build).
        if (vxk_test_rand(&rng) & 1)
            k %= 8;
        vxk_int3 c = s->chunks->coords[k];
        const vxk_narrow_chunk* data = NULL;
        vxk_narrow_ref* ref = &refs[it % 4];
        vxk_narrow_release(ref); // keep up to 4 pins alive at a time
        if (vxk_narrow_acquire(s->world, &data, ref, c) != VXK_OK || !data) {
            atomic_fetch_add(&s->failures, 1);
            continue;
        }
        if (same_data(data, &s->fresh[k]))
            atomic_fetch_add(&s->failures, 1);
        if (s->check_single_build) {
            uint64_t expected = 0;
            if (!atomic_compare_exchange_strong(&s->first_serial[k], &expected,
                                                data->build_serial) &&
                expected != data->build_serial)
                atomic_fetch_add(&s->failures, 1);
        }
    }
    for (int i = 0; i < 4; ++i)
        vxk_narrow_release(&refs[i]);
}

typedef struct thread_arg {
    shared_state* s;
    uint64_t seed;
} thread_arg;

static void* thread_main(void* user)
{
    thread_arg* a = (thread_arg*)user;
    worker_loop(a->s, a->seed);
    return NULL;
}

static void job_piece(void* user, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    for (uint32_t i = begin; i < end; ++i)
        worker_loop((shared_state*)user, 1000 + i);
}

// mode: 0 = raw pthreads, else jobs with `workers` workers.
static int run_concurrent(int mode, uint32_t workers, size_t budget)
{
    vxk_jobs* jobs = NULL;
    if (mode) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        VXK_CHECK(vxk_jobs_create(&jd, &jobs) == 0);
    }
    vxk_world* world = make_world(jobs, budget, 77);
    VXK_CHECK(world);
    static chunk_list chunks;
    chunks.count = 0;
    vxk_world_for_each_chunk(world, collect, &chunks);
    VXK_CHECK(chunks.count > 16);
    vxk_narrow_chunk* fresh = (vxk_narrow_chunk*)calloc(chunks.count, sizeof(*fresh));
    _Atomic uint64_t* first = (_Atomic uint64_t*)calloc(chunks.count, sizeof(*first));
    for (uint32_t i = 0; i < chunks.count; ++i)
        VXK_CHECK(vxk_narrow_build_chunk(world, &fresh[i], chunks.coords[i]) == VXK_OK);
    bool big = budget >= ((size_t)64 << 20);
    shared_state s = {world, &chunks, fresh, first, big, 0, VXK_TEST_SLOW ? 600 : 4000};
    if (mode == 0) {
        pthread_t threads[4];
        thread_arg args[4];
        for (int t = 0; t < 4; ++t) {
            args[t] = (thread_arg){&s, 17 + (uint64_t)t};
            VXK_CHECK(pthread_create(&threads[t], NULL, thread_main, &args[t]) == 0);
        }
        for (int t = 0; t < 4; ++t)
            pthread_join(threads[t], NULL);
    } else {
        vxk_parallel_for(jobs, "narrow_test", 8, 1, job_piece, &s);
    }
    VXK_CHECK_EQ_INT(atomic_load(&s.failures), 0);
    vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
    vxk_narrow_stats st;
    vxk_narrow_cache_stats(cache, &st);
    uint32_t requested = 0;
    for (uint32_t i = 0; i < chunks.count; ++i)
        requested += big ? (atomic_load(&first[i]) != 0) : 1;
    if (big) {
        // Nothing evicted: every requested chunk was built exactly once.
        VXK_CHECK_EQ_U64(st.evictions, 0);
        VXK_CHECK_EQ_U64(st.builds, requested);
        VXK_CHECK_EQ_U64(st.entries, requested);
    } else {
        VXK_CHECK(st.evictions > 0);
        VXK_CHECK_MSG(st.bytes <= budget, "bytes %llu budget %zu", (unsigned long long)st.bytes,
                      budget);
    }
    fprintf(stderr,
            "   mode %d workers %u budget %zu: builds %llu hits %llu waits %llu "
            "evictions %llu\n",
            mode, workers, budget, (unsigned long long)st.builds, (unsigned long long)st.hits,
            (unsigned long long)st.waits, (unsigned long long)st.evictions);
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(world, &mem);
    VXK_CHECK(mem.narrow_bytes >= st.bytes);
    for (uint32_t i = 0; i < chunks.count; ++i)
        vxk_narrow_free_chunk(&fresh[i]);
    free(fresh);
    free((void*)first);
    vxk_world_destroy(world);
    if (jobs)
        vxk_jobs_destroy(jobs);
    return 0;
}

static int test_concurrent_single_flight(void)
{
    if (run_concurrent(0, 4, (size_t)64 << 20))
        return 1;
    for (uint32_t w = 1; w <= 4; w *= 2)
        if (run_concurrent(1, w, (size_t)64 << 20))
            return 1;
    return 0;
}

static int test_concurrent_eviction(void)
{
    if (run_concurrent(0, 4, 96 << 10))
        return 1;
    for (uint32_t w = 1; w <= 4; w *= 2)
        if (run_concurrent(1, w, 64 << 10))
            return 1;
    return 0;
}

// ---- edits --------------------------------------------------------------------------------------

static int test_edit_rebuilds(void)
{
    vxk_world* world = make_world(NULL, (size_t)64 << 20, 5);
    VXK_CHECK(world);
    int32_t cx = -1, cy = 0, cz = -2; // a surface chunk
    const vxk_narrow_chunk* before = NULL;
    vxk_narrow_ref before_ref = {0};
    VXK_CHECK(vxk_narrow_acquire(world, &before, &before_ref, (vxk_int3){cx, cy, cz}) == VXK_OK &&
              before);
    vxk_narrow_chunk before_copy;
    VXK_CHECK(vxk_narrow_build_chunk(world, &before_copy, (vxk_int3){cx, cy, cz}) == VXK_OK);
    uint64_t serial = before->build_serial;
    // Same version again: no rebuild.
    const vxk_narrow_chunk* again = NULL;
    vxk_narrow_ref again_ref = {0};
    VXK_CHECK(vxk_narrow_acquire(world, &again, &again_ref, (vxk_int3){cx, cy, cz}) == VXK_OK);
    VXK_CHECK(again == before && again->build_serial == serial);
    vxk_narrow_release(&again_ref);

    // Edits: inside the chunk, in a face neighbour touching it, in an edge neighbour.
    const int64_t boxes[3][2][3] = {
        {{-8 + 2, 3, -16 + 2}, {-8 + 4, 5, -16 + 4}}, // the chunk itself
        {{-8 + 8, 0, -16 + 0}, {-8 + 8, 7, -16 + 7}}, // +x face neighbour, the layer at x = 0
        {{-8 + 8, 8, -16 + 3}, {-8 + 8, 8, -16 + 3}}, // +x+y edge neighbour, one voxel
    };
    for (int e = 0; e < 3; ++e) {
        uint64_t old_stamp = vxk_narrow_stamp(world, (vxk_int3){cx, cy, cz});
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(boxes[e][0], boxes[e][1]),
                                            e == 1 ? 0 : VXK_MAT_METAL),
                         VXK_OK);
        VXK_CHECK(vxk_narrow_stamp(world, (vxk_int3){cx, cy, cz}) != old_stamp);
        const vxk_narrow_chunk* after = NULL;
        vxk_narrow_ref after_ref = {0};
        VXK_CHECK(vxk_narrow_acquire(world, &after, &after_ref, (vxk_int3){cx, cy, cz}) == VXK_OK &&
                  after);
        VXK_CHECK(after->build_serial > serial);
        serial = after->build_serial;
        vxk_narrow_chunk fresh;
        VXK_CHECK(vxk_narrow_build_chunk(world, &fresh, (vxk_int3){cx, cy, cz}) == VXK_OK);
        VXK_CHECK(same_data(after, &fresh) == 0);
        vxk_narrow_free_chunk(&fresh);
        vxk_narrow_release(&after_ref);
    }
    // The first pin still reads its (old) data intact after the entry went stale.
    VXK_CHECK(same_data(before, &before_copy) == 0);
    vxk_narrow_release(&before_ref);
    vxk_narrow_free_chunk(&before_copy);
    // Removing the chunk's voxels entirely: no terrain entry, no data.
    const int64_t lo[3] = {-8, 0, -16}, hi[3] = {-1, 7, -9};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), 0), VXK_OK);
    const vxk_narrow_chunk* gone = (const vxk_narrow_chunk*)1;
    vxk_narrow_ref gone_ref = {0};
    VXK_CHECK(vxk_narrow_acquire(world, &gone, &gone_ref, (vxk_int3){cx, cy, cz}) == VXK_OK);
    VXK_CHECK(gone == NULL && gone_ref.entry == NULL);
    vxk_narrow_stats st;
    vxk_narrow_cache_stats(vxk_narrow_cache_get(world), &st);
    VXK_CHECK_EQ_U64(st.stale, 3);
    vxk_world_destroy(world);
    return 0;
}

// ---- LRU ----------------------------------------------------------------------------------------

static int test_lru_order(void)
{
    vxk_world* world = make_world(NULL, (size_t)64 << 20, 9);
    VXK_CHECK(world);
    static chunk_list chunks;
    chunks.count = 0;
    vxk_world_for_each_chunk(world, collect, &chunks);
    vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
    uint32_t n = chunks.count;
    uint64_t* last_use = (uint64_t*)calloc(n, sizeof(uint64_t));
    uint64_t* stamps = (uint64_t*)calloc(n, sizeof(uint64_t));
    uint64_t rng = 3, clock = 0;
    // A deterministic access sequence; remember each chunk's last use.
    for (uint32_t step = 0; step < 3 * n; ++step) {
        uint32_t k = step < n ? step : (uint32_t)(vxk_test_rand(&rng) % n);
        const vxk_narrow_chunk* d;
        vxk_narrow_ref ref = {0};
        VXK_CHECK(vxk_narrow_acquire(world, &d, &ref, chunks.coords[k]) == VXK_OK && d);
        stamps[k] = d->stamp;
        last_use[k] = ++clock;
        vxk_narrow_release(&ref);
    }
    // Pin the least recently used chunk: it must survive any budget.
    uint32_t oldest = 0;
    for (uint32_t k = 1; k < n; ++k)
        if (last_use[k] < last_use[oldest])
            oldest = k;
    const vxk_narrow_chunk* pinned;
    vxk_narrow_ref pin = {0};
    VXK_CHECK(vxk_narrow_acquire(world, &pinned, &pin, chunks.coords[oldest]) == VXK_OK);
    last_use[oldest] = ++clock;
    vxk_narrow_stats st;
    vxk_narrow_cache_stats(cache, &st);
    VXK_CHECK_EQ_U64(st.entries, n);
    size_t budgets[3] = {st.bytes / 2, st.bytes / 5, 0};
    for (int bi = 0; bi < 3; ++bi) {
        vxk_narrow_cache_set_budget(cache, budgets[bi]);
        vxk_narrow_cache_stats(cache, &st);
        VXK_CHECK(st.bytes <= budgets[bi] || (bi == 2 && st.bytes == pinned->bytes));
        // Every evicted chunk was used before every resident one (the pinned one aside).
        uint64_t newest_evicted = 0, oldest_resident = UINT64_MAX;
        for (uint32_t k = 0; k < n; ++k) {
            bool resident = vxk_narrow_cache_contains(cache, chunks.coords[k], stamps[k]);
            if (k == oldest) {
                VXK_CHECK(resident);
                continue;
            }
            if (resident)
                oldest_resident = VXK_MIN(oldest_resident, last_use[k]);
            else
                newest_evicted = VXK_MAX(newest_evicted, last_use[k]);
        }
        VXK_CHECK_MSG(newest_evicted < oldest_resident, "budget %zu: evicted %llu resident %llu",
                      budgets[bi], (unsigned long long)newest_evicted,
                      (unsigned long long)oldest_resident);
    }
    vxk_narrow_release(&pin);
    VXK_CHECK(clears_to_empty(cache) == 0);
    free(last_use);
    free(stamps);
    vxk_world_destroy(world);
    return 0;
}

// ---- ray grid and epoch-checked acquires --------------------------------------------------------

// Every cell of the ray grid (and a margin around it) reads as vxk_broadphase_peek, after the
// build and after each update; acquires that skip the stamp at an unchanged epoch hand out the
// same data as a fresh build after edits of the chunk and of its neighbours.
static void count_entry(void* user, vxk_int3 chunk, uint8_t tag, const uint64_t* solid)
{
    (void)chunk;
    (void)solid;
    *(uint64_t*)user += tag != 0 ? 1 : 1000000;
}

static int test_grid_and_epochs(void)
{
    vxk_world* world = make_world(NULL, (size_t)64 << 20, 13);
    VXK_CHECK(world);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
    vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
    static chunk_list chunks;
    uint64_t rng = 21, last_generation = 0;
    for (int round = 0; round < 8; ++round) {
        const vxk_ray_grid* grid = vxk_narrow_ray_grid(cache, world);
        VXK_CHECK(grid);
        uint64_t visited = 0;
        vxk_broadphase_stats counts;
        vxk_broadphase_for_each(world, count_entry, &visited);
        vxk_broadphase_get_stats(world, &counts);
        VXK_CHECK_EQ_U64(visited, counts.entries);
        // Bumped by the build and by every update that changed something.
        uint64_t generation = vxk_broadphase_generation(world);
        VXK_CHECK(generation >= 1 && generation >= last_generation);
        last_generation = generation;
        // NULL arguments are harmless.
        const uint64_t* none = NULL;
        VXK_CHECK_EQ_INT(vxk_broadphase_peek(NULL, &none, (vxk_int3){0, 0, 0}), 0);
        VXK_CHECK(none && none[0] == 0 && none[7] == 0);
        VXK_CHECK_EQ_INT(vxk_broadphase_peek(world, NULL, (vxk_int3){0, 0, 0}), 0);
        VXK_CHECK_EQ_U64(vxk_broadphase_generation(NULL), 0);
        vxk_broadphase_for_each(NULL, count_entry, &visited);
        vxk_broadphase_for_each(world, NULL, &visited);
        VXK_CHECK_EQ_U64(visited, counts.entries);
        VXK_CHECK(vxk_narrow_ray_grid(cache, world) == grid); // unchanged broadphase
        for (int32_t y = grid->min[1] - 2; y < grid->min[1] + (int32_t)grid->size[1] + 2; ++y)
            for (int32_t z = grid->min[2] - 2; z < grid->min[2] + (int32_t)grid->size[2] + 2; ++z)
                for (int32_t x = grid->min[0] - 2; x < grid->min[0] + (int32_t)grid->size[0] + 2;
                     ++x) {
                    const uint64_t* a = NULL;
                    const uint64_t* b = NULL;
                    uint8_t ta = vxk_ray_grid_peek(grid, (vxk_int3){x, y, z}, &a);
                    uint8_t tb = vxk_broadphase_peek(world, &b, (vxk_int3){x, y, z});
                    VXK_CHECK_EQ_INT(ta, tb);
                    vxk_broadphase_entry e;
                    VXK_CHECK_EQ_INT(vxk_broadphase_get(world, &e, (vxk_int3){x, y, z}), VXK_OK);
                    VXK_CHECK_EQ_INT(e.tag, tb);
                    if (tb != 0)
                        VXK_CHECK(a == b && memcmp(a, e.solid, sizeof(e.solid)) == 0);
                }
        // Acquire every chunk at this epoch (twice: the second skips the stamp), compare.
        chunks.count = 0;
        vxk_world_for_each_chunk(world, collect, &chunks);
        for (uint32_t i = 0; i < chunks.count; ++i) {
            vxk_int3 c = chunks.coords[i];
            for (int rep = 0; rep < 2; ++rep) {
                const vxk_narrow_chunk* data = NULL;
                vxk_narrow_ref ref = {0};
                VXK_CHECK_EQ_INT(vxk_narrow_acquire_current(cache, world, &data, &ref, c), VXK_OK);
                VXK_CHECK(data);
                VXK_CHECK_EQ_U64(data->stamp, vxk_narrow_stamp(world, c));
                vxk_narrow_chunk fresh;
                VXK_CHECK(vxk_narrow_build_chunk(world, &fresh, c) == VXK_OK);
                VXK_CHECK(same_data(data, &fresh) == 0);
                if (rep == 0)
                    VXK_CHECK(solid_bits_match(world, data) == 0);
                vxk_narrow_free_chunk(&fresh);
                vxk_narrow_release(&ref);
            }
        }
        // An edit: a voxel on a chunk face (the neighbour's faces change), a box, or new terrain
        // outside the old grid box; then the broadphase update.
        int64_t lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            int32_t size = a == 0 ? SX : (a == 1 ? SY : SZ);
            lo[a] = MINV[a] + (int64_t)(vxk_test_rand(&rng) % (uint64_t)size);
            hi[a] = lo[a] + (round % 3 == 1 ? 3 : 0);
        }
        if (round % 3 == 0)
            lo[0] = hi[0] = lo[0] - ((lo[0] % 8) + 8) % 8;
        if (round % 3 == 2) {
            lo[1] = hi[1] = MINV[1] + SY + 9 + round;
        }
        uint8_t material = (round & 1) ? 0 : VXK_MAT_METAL;
        if (round % 3 == 2)
            material = VXK_MAT_WOOD;
        VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), material), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
    }
    vxk_world_destroy(world);
    return 0;
}

// The rays' lock-free slots: nothing before a publish; after it the slot pins the very entry the
// cache returned, and only at its epoch; "no terrain chunk" is remembered per epoch; an evicted
// entry is refused; a recycled entry (its memory reused for another chunk) is never taken for
// the chunk it held before; a slot pin keeps an entry alive through a clear until released.
static int test_ray_slots(void)
{
    vxk_world* world = make_world(NULL, (size_t)64 << 20, 29);
    VXK_CHECK(world);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
    vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
    const vxk_ray_grid* grid = vxk_narrow_ray_grid(cache, world);
    VXK_CHECK(grid);
    uint32_t epoch = vxk_terrain_epoch(&world->terrain);
    static chunk_list chunks;
    chunks.count = 0;
    vxk_world_for_each_chunk(world, collect, &chunks);
    VXK_CHECK(chunks.count >= 2);
    uint64_t slot_hits = 0;
    vxk_narrow_stats before;
    vxk_narrow_cache_stats(cache, &before);
    for (uint32_t i = 0; i < chunks.count; ++i) {
        vxk_int3 c = chunks.coords[i];
        uint64_t cell = 0;
        VXK_CHECK(vxk_ray_grid_cell(grid, c, &cell));
        const vxk_narrow_chunk* data = NULL;
        vxk_narrow_ref ref = {0};
        VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell, epoch, &data, &ref));
        VXK_CHECK_EQ_INT(vxk_narrow_acquire_current(cache, world, &data, &ref, c), VXK_OK);
        VXK_CHECK(data);
        vxk_narrow_publish(grid, cell, epoch, &ref);
        const vxk_narrow_chunk* again = NULL;
        vxk_narrow_ref ref2 = {0};
        VXK_CHECK(vxk_narrow_acquire_slot(cache, grid, cell, epoch, &again, &ref2));
        VXK_CHECK(again == data && ref2.entry == ref.entry);
        ++slot_hits;
        // another epoch: refused (again and ref2 untouched)
        VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell, epoch + 1, &again, &ref2));
        VXK_CHECK(again == data && ref2.entry == ref.entry);
        vxk_narrow_chunk fresh;
        VXK_CHECK(vxk_narrow_build_chunk(world, &fresh, c) == VXK_OK);
        VXK_CHECK(same_data(again, &fresh) == 0);
        vxk_narrow_free_chunk(&fresh);
        vxk_narrow_release(&ref2);
        vxk_narrow_release(&ref);
    }
    vxk_narrow_count_rays(cache, slot_hits, 0);
    vxk_narrow_stats after;
    vxk_narrow_cache_stats(cache, &after);
    VXK_CHECK(after.hits - before.hits >= slot_hits);
    // A cell of the grid without a terrain chunk: the slot remembers "nothing" at this epoch.
    bool found_empty = false;
    for (int32_t y = grid->min[1]; y < grid->min[1] + (int32_t)grid->size[1] && !found_empty; ++y)
        for (int32_t z = grid->min[2]; z < grid->min[2] + (int32_t)grid->size[2] && !found_empty;
             ++z)
            for (int32_t x = grid->min[0];
                 x < grid->min[0] + (int32_t)grid->size[0] && !found_empty; ++x) {
                if (vxk_narrow_stamp(world, (vxk_int3){x, y, z}) != 0)
                    continue;
                found_empty = true;
                uint64_t cell = 0;
                VXK_CHECK(vxk_ray_grid_cell(grid, (vxk_int3){x, y, z}, &cell));
                const vxk_narrow_chunk* data = NULL;
                vxk_narrow_ref ref = {0};
                VXK_CHECK_EQ_INT(
                    vxk_narrow_acquire_current(cache, world, &data, &ref, (vxk_int3){x, y, z}),
                    VXK_OK);
                VXK_CHECK(!data && !ref.entry);
                vxk_narrow_publish(grid, cell, epoch, &ref);
                data = (const vxk_narrow_chunk*)&ref; // any non-NULL value
                VXK_CHECK(vxk_narrow_acquire_slot(cache, grid, cell, epoch, &data, &ref));
                VXK_CHECK(!data && !ref.entry);
                VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell, epoch + 1, &data, &ref));
            }
    VXK_CHECK(found_empty);
    // Nothing stayed pinned: a clear empties the cache.
    VXK_CHECK(clears_to_empty(cache) == 0);
    // Chunk a published, its entry evicted: refused. Chunk b built next reuses a's entry memory:
    // a's slot (still pointing there) is refused, b's own slot works once published.
    vxk_int3 a = chunks.coords[0], b = chunks.coords[1];
    uint64_t cell_a = 0, cell_b = 0;
    VXK_CHECK(vxk_ray_grid_cell(grid, a, &cell_a));
    VXK_CHECK(vxk_ray_grid_cell(grid, b, &cell_b));
    const vxk_narrow_chunk* data = NULL;
    vxk_narrow_ref ref = {0};
    VXK_CHECK_EQ_INT(vxk_narrow_acquire_current(cache, world, &data, &ref, a), VXK_OK);
    void* entry_a = ref.entry;
    vxk_narrow_publish(grid, cell_a, epoch, &ref);
    vxk_narrow_release(&ref);
    vxk_narrow_cache_clear(cache);
    VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell_a, epoch, &data, &ref));
    VXK_CHECK_EQ_INT(vxk_narrow_acquire_current(cache, world, &data, &ref, b), VXK_OK);
    VXK_CHECK(ref.entry == entry_a); // recycled (the free list's last entry)
    VXK_CHECK(data->coord.x == b.x && data->coord.y == b.y && data->coord.z == b.z);
    vxk_narrow_ref stale = {0};
    const vxk_narrow_chunk* stale_data = NULL;
    VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell_a, epoch, &stale_data, &stale));
    vxk_narrow_publish(grid, cell_b, epoch, &ref);
    VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell_a, epoch, &stale_data, &stale));
    vxk_narrow_release(&ref);
    // A slot pin keeps a stale entry intact: chunk b is edited, the next acquire detaches b's
    // entry and builds anew, the pinned data stays the old build until released (then freed).
    VXK_CHECK(vxk_narrow_acquire_slot(cache, grid, cell_b, epoch, &data, &ref));
    vxk_narrow_chunk old_build;
    VXK_CHECK(vxk_narrow_build_chunk(world, &old_build, b) == VXK_OK);
    int64_t lo[3] = {8 * (int64_t)b.x + 3, 8 * (int64_t)b.y + 3, 8 * (int64_t)b.z + 3};
    int64_t hi[3] = {lo[0] + 1, lo[1] + 1, lo[2] + 1};
    uint8_t fill = data->solid[3] & (1ull << (3 + 8 * 3)) ? 0 : VXK_MAT_METAL;
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, vxk_test_box(lo, hi), fill), VXK_OK);
    uint32_t epoch2 = vxk_terrain_epoch(&world->terrain);
    VXK_CHECK(epoch2 != epoch);
    VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell_b, epoch2, &stale_data, &stale));
    const vxk_narrow_chunk* rebuilt = NULL;
    vxk_narrow_ref ref_new = {0};
    VXK_CHECK_EQ_INT(vxk_narrow_acquire_current(cache, world, &rebuilt, &ref_new, b), VXK_OK);
    VXK_CHECK(rebuilt != data && ref_new.entry != ref.entry);
    VXK_CHECK(same_data(data, &old_build) == 0);
    VXK_CHECK(rebuilt->stamp != old_build.stamp);
    vxk_narrow_free_chunk(&old_build);
    // the detached entry is refused even at its own cell and the new epoch once republished
    vxk_narrow_publish(grid, cell_b, epoch2, &ref);
    VXK_CHECK(!vxk_narrow_acquire_slot(cache, grid, cell_b, epoch2, &stale_data, &stale));
    vxk_narrow_release(&ref);
    vxk_narrow_publish(grid, cell_b, epoch2, &ref_new);
    VXK_CHECK(vxk_narrow_acquire_slot(cache, grid, cell_b, epoch2, &stale_data, &stale));
    VXK_CHECK(stale_data == rebuilt);
    vxk_narrow_release(&stale);
    vxk_narrow_release(&ref_new);
    VXK_CHECK(clears_to_empty(cache) == 0);
    vxk_world_destroy(world);
    return 0;
}

// A chunk at an end of the int32 voxel range (its mesher box reaching one cell past it, where no
// terrain can be) builds as the same content elsewhere with those cells empty: the same quads.
static int test_chunk_at_int32_ends(void)
{
    uint64_t rng = vxk_test_seed(0x1E7D);
    for (int side = 0; side < 6; ++side) {
        const int axis = side % 3, low = side / 3;
        vxk_world_def def = vxk_default_world_def();
        vxk_world* world = NULL;
        VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
        int32_t edge[3] = {0, 0, 0};
        edge[axis] = low ? -(1 << 28) : (1 << 28) - 1;
        const vxk_int3 edge_chunk = {edge[0], edge[1], edge[2]}, ref_chunk = {2, 2, 2};
        uint8_t box[1000];
        for (int y = 0; y < 10; ++y)
            for (int z = 0; z < 10; ++z)
                for (int x = 0; x < 10; ++x) {
                    const int at[3] = {x, y, z};
                    uint32_t r = (uint32_t)(vxk_test_rand(&rng) % 4);
                    uint8_t id = r == 0 ? 0 : r == 1 ? VXK_MAT_DIRT : VXK_MAT_STONE;
                    box[x + 10 * (z + 10 * y)] = at[axis] == (low ? 0 : 9) ? 0 : id;
                }
        // The reference box whole; the edge box without its cells past the range.
        VXK_CHECK_EQ_INT(vxk_world_write_box(world, (vxk_int_box){{15, 15, 15}, {24, 24, 24}}, box),
                         VXK_OK);
        int64_t lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            lo[k] = 8 * (int64_t)edge[k] - 1;
            hi[k] = lo[k] + 9;
        }
        if (low)
            lo[axis] += 1;
        else
            hi[axis] -= 1;
        uint8_t part[1000];
        int n[3] = {(int)(hi[0] - lo[0] + 1), (int)(hi[1] - lo[1] + 1), (int)(hi[2] - lo[2] + 1)};
        const int skip = low ? 1 : 0;
        for (int y = 0; y < n[1]; ++y)
            for (int z = 0; z < n[2]; ++z)
                for (int x = 0; x < n[0]; ++x) {
                    int b[3] = {x, y, z};
                    b[axis] += skip;
                    part[x + n[0] * (z + n[2] * y)] = box[b[0] + 10 * (b[2] + 10 * b[1])];
                }
        VXK_CHECK_EQ_INT(vxk_world_write_box(world, vxk_test_box(lo, hi), part), VXK_OK);
        vxk_narrow_chunk a, b;
        VXK_CHECK_EQ_INT(vxk_narrow_build_chunk(world, &a, edge_chunk), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_narrow_build_chunk(world, &b, ref_chunk), VXK_OK);
        VXK_CHECK_MSG(a.quad_count == b.quad_count && a.quad_count > 0 &&
                          memcmp(a.quads, b.quads, a.quad_count * sizeof(vxk_quad)) == 0,
                      "axis %d %s end: %u quads, the reference %u", axis, low ? "low" : "high",
                      a.quad_count, b.quad_count);
        vxk_narrow_free_chunk(&a);
        vxk_narrow_free_chunk(&b);
        vxk_world_destroy(world);
    }
    return 0;
}

int main(void)
{
    VXK_RUN(test_quantized_equals_float);
    VXK_RUN(test_chunk_at_int32_ends);
    VXK_RUN(test_edit_rebuilds);
    VXK_RUN(test_lru_order);
    VXK_RUN(test_grid_and_epochs);
    VXK_RUN(test_ray_slots);
    VXK_RUN(test_concurrent_single_flight);
    VXK_RUN(test_concurrent_eviction);
    return vxk_test_finish();
}
