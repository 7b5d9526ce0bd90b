// test_id.c: the id layout (vxk/id.h) and the id pool: random create/destroy sequences against a
// reference model (a plain array of live flags and a set of every id ever handed out), stale ids
// refused for ever, generation wrap retiring an index, out-of-memory leaving the pool unchanged;
// salts: even, distinct, far apart, drawn safely from threads, and ids of one pool refused by
// another.
#include "harness.h"
#include "test.h"

#include <pthread.h>

#include <vxk/id.h>

#include "id_pool.h"

static int test_id_layout(void)
{
    vxk_body_id none = VXK_NULL_ID(vxk_body_id);
    VXK_CHECK(VXK_ID_IS_NULL(none));
    VXK_CHECK_EQ_U64(VXK_ID_KEY(none), 0);
    vxk_shape_id s = {7, 3};
    VXK_CHECK(!VXK_ID_IS_NULL(s));
    VXK_CHECK_EQ_U64(VXK_ID_KEY(s), ((uint64_t)3 << 32) | 7);
    vxk_shape_id t = {7, 5};
    VXK_CHECK(!VXK_ID_EQUAL(s, t));
    t.generation = 3;
    VXK_CHECK(VXK_ID_EQUAL(s, t));
    VXK_CHECK_EQ_U64(sizeof(vxk_contact_id), 8);
    return 0;
}

// Reference: every id handed out, in order, and whether it is still live.
typedef struct ref_id {
    uint32_t index, generation;
    bool live;
} ref_id;

static int test_pool_against_model(void)
{
    uint64_t rng = vxk_test_seed(0x1D);
    enum { steps = 200000, cap = 210000 };
    ref_id* ref = calloc(cap, sizeof(ref_id));
    uint32_t* live = calloc(cap, sizeof(uint32_t)); // positions in ref of live ids
    uint32_t live_count = 0, ref_count = 0;
    vxk_id_pool pool;
    vxk_id_pool_init(&pool);
    for (int step = 0; step < steps; ++step) {
        uint32_t r = (uint32_t)(vxk_test_rand(&rng) % 100);
        if (r < 55 || live_count == 0) {
            uint32_t index, generation;
            VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
            VXK_CHECK(generation != 0);
            // Never an id handed out before, and never the index of a live one.
            for (uint32_t k = 0; k < live_count; ++k)
                VXK_CHECK(ref[live[k]].index != index);
            ref[ref_count] = (ref_id){index, generation, true};
            live[live_count++] = ref_count++;
        } else if (r < 95) {
            uint32_t k = (uint32_t)(vxk_test_rand(&rng) % live_count);
            ref_id* id = &ref[live[k]];
            VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, id->index, id->generation), VXK_OK);
            id->live = false;
            live[k] = live[--live_count];
        } else {
            // A stale or made-up id is refused and changes nothing.
            uint32_t before = pool.live;
            ref_id* old = &ref[vxk_test_rand(&rng) % ref_count];
            if (!old->live)
                VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, old->index, old->generation),
                                 VXK_ERR_STALE_ID);
            uint32_t bogus = (uint32_t)vxk_test_rand(&rng);
            if (!vxk_id_pool_valid(&pool, bogus % (pool.count + 3), bogus >> 8))
                VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, bogus % (pool.count + 3), bogus >> 8),
                                 VXK_ERR_STALE_ID);
            VXK_CHECK_EQ_U64(pool.live, before);
        }
        VXK_CHECK_EQ_U64(pool.live, live_count);
    }
    // Every id ever handed out: valid exactly when the model says live, and no two equal.
    for (uint32_t k = 0; k < ref_count; ++k)
        VXK_CHECK_EQ_INT(vxk_id_pool_valid(&pool, ref[k].index, ref[k].generation), ref[k].live);
    VXK_CHECK_EQ_INT(vxk_id_pool_valid(&pool, 0, 0), 0);
    // No id was handed out twice: an open-addressing set of their 64-bit keys.
    // An open-addressing set (capacity a power of two over 2 x count).
    uint32_t cap2 = 1;
    while (cap2 < 2 * ref_count)
        cap2 *= 2;
    uint64_t* set = calloc(cap2, sizeof(uint64_t));
    for (uint32_t k = 0; k < ref_count; ++k) {
        uint64_t key = (uint64_t)ref[k].generation << 32 | ref[k].index;
        uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (cap2 - 1);
        while (set[h]) {
            VXK_CHECK_MSG(set[h] != key, "id {%u, %u} handed out twice", ref[k].index,
                          ref[k].generation);
            h = (h + 1) & (cap2 - 1);
        }
        set[h] = key;
    }
    free(set);
    vxk_id_pool_destroy(&pool);
    free(ref);
    free(live);
    return 0;
}

// An index whose counter reaches the end is retired: its last id goes stale and the index is
// never handed out again, whatever the salt.
static int test_generation_wrap(void)
{
    const uint32_t salts[] = {0u, 2u, 0xA5A5A5A4u, 0xFFFFFFFEu, vxk_id_salt(7)};
    for (size_t s = 0; s < sizeof(salts) / sizeof(salts[0]); ++s) {
        const uint32_t salt = salts[s];
        vxk_id_pool pool;
        vxk_id_pool_init_salted(&pool, salt);
        uint32_t index, generation;
        VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
        VXK_CHECK_EQ_U64(generation, salt ^ 1u);
        VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, index, generation), VXK_OK);
        // As if index 0 had been freed and reused 2^31 - 1 times: its free counter is the last
        // even one.
        pool.generations[0] = salt ^ (UINT32_MAX - 1u);
        VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
        VXK_CHECK_EQ_U64(index, 0);
        VXK_CHECK_EQ_U64(generation, salt ^ UINT32_MAX);
        VXK_CHECK_EQ_U64(vxk_id_pool_unsalt(&pool, generation), UINT32_MAX);
        VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, 0, generation), VXK_OK);
        VXK_CHECK(!vxk_id_pool_valid(&pool, 0, generation));
        VXK_CHECK(!vxk_id_pool_valid(&pool, 0, 0));
        VXK_CHECK(!vxk_id_pool_valid(&pool, 0, salt));
        VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, 0, generation), VXK_ERR_STALE_ID);
        // Retired: the next ids come from new indices, index 0 never again.
        for (int i = 0; i < 100; ++i) {
            VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
            VXK_CHECK(index != 0);
            VXK_CHECK_EQ_U64(generation, salt ^ 1u);
        }
        VXK_CHECK(!vxk_id_pool_valid(&pool, 0, salt ^ 1u));
        vxk_id_pool_destroy(&pool);
    }
    return 0;
}

static int popcount32(uint32_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        ++n;
    return n;
}

static int compare_u32(const void* a, const void* b)
{
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

// The salts of 2^20 pools in a row: even, all distinct, and consecutive ones as far apart as
// random 31-bit values (15.5 bits on average, every bit flipping about half the time).
static int test_salts_distinct_and_far(void)
{
    enum { N = 1 << 20 };
    uint32_t* salt = malloc(N * sizeof(uint32_t));
    VXK_CHECK(salt != NULL);
    const uint32_t first = 0xFFF80000u; // across the wrap of the 32-bit serial
    for (uint32_t i = 0; i < N; ++i) {
        salt[i] = vxk_id_salt(first + i);
        VXK_CHECK_MSG((salt[i] & 1u) == 0, "salt %08x of serial %u is odd", salt[i], first + i);
    }
    uint64_t distance = 0;
    uint32_t flips[32] = {0};
    int closest = 32;
    for (uint32_t i = 1; i < N; ++i) {
        uint32_t d = salt[i] ^ salt[i - 1];
        int bits = popcount32(d);
        distance += (uint64_t)bits;
        closest = bits < closest ? bits : closest;
        for (int b = 0; b < 32; ++b)
            flips[b] += d >> b & 1u;
    }
    double mean = (double)distance / (N - 1);
    VXK_CHECK_MSG(mean > 15.3 && mean < 15.7, "consecutive salts differ in %.3f bits on average",
                  mean);
    VXK_CHECK_MSG(closest >= 1, "two consecutive salts equal");
    VXK_CHECK_EQ_U64(flips[0], 0);
    for (int b = 1; b < 32; ++b)
        VXK_CHECK_MSG(flips[b] > 0.49 * N && flips[b] < 0.51 * N, "bit %d flips in %u of %u", b,
                      flips[b], N - 1);
    qsort(salt, N, sizeof(uint32_t), compare_u32);
    for (uint32_t i = 1; i < N; ++i)
        VXK_CHECK_MSG(salt[i] != salt[i - 1], "salt %08x drawn twice", salt[i]);
    // The serial counts modulo 2^31: 2^31 pools in a row have distinct salts, then they repeat.
    VXK_CHECK_EQ_U64(vxk_id_salt(5), vxk_id_salt(5u + (1u << 31)));
    VXK_CHECK(vxk_id_salt(0) != vxk_id_salt(1u << 30));
    free(salt);
    return 0;
}

// Pools drawn one after another get distinct even salts, and an id keeps its counter: the
// unsalted generations are those of an unsalted pool, whatever the salt.
static int test_pools_salted(void)
{
    enum { POOLS = 64, IDS = 300 };
    vxk_id_pool pools[POOLS];
    for (int p = 0; p < POOLS; ++p) {
        vxk_id_pool_init(&pools[p]);
        VXK_CHECK_EQ_U64(pools[p].salt & 1u, 0);
        for (int q = 0; q < p; ++q)
            VXK_CHECK_MSG(pools[p].salt != pools[q].salt, "pools %d and %d share salt %08x", q, p,
                          pools[p].salt);
    }
    // The same history in every pool: alloc, free every third, alloc again (reusing them).
    uint32_t index[POOLS][IDS + IDS / 3], generation[POOLS][IDS + IDS / 3];
    for (int p = 0; p < POOLS; ++p) {
        int n = 0;
        for (int i = 0; i < IDS; ++i, ++n)
            VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pools[p], &index[p][n], &generation[p][n]), VXK_OK);
        for (int i = 0; i < IDS; i += 3)
            VXK_CHECK_EQ_INT(vxk_id_pool_free(&pools[p], index[p][i], generation[p][i]), VXK_OK);
        for (int i = 0; i < IDS / 3; ++i, ++n)
            VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pools[p], &index[p][n], &generation[p][n]), VXK_OK);
        for (int i = 0; i < n; ++i) {
            VXK_CHECK_EQ_U64(index[p][i], index[0][i]);
            // Live ids odd, never 0; the counters equal across pools.
            VXK_CHECK_EQ_U64(generation[p][i] & 1u, 1);
            VXK_CHECK_EQ_U64(generation[p][i] ^ pools[p].salt, generation[0][i] ^ pools[0].salt);
            VXK_CHECK_EQ_U64(vxk_id_pool_unsalt(&pools[p], generation[p][i]), i < IDS ? 1u : 3u);
        }
        VXK_CHECK_EQ_U64(vxk_id_pool_unsalt(&pools[p], 0), 0);
    }
    // Every id of one pool, live or stale there, is refused by every other pool.
    for (int p = 0; p < POOLS; ++p)
        for (int q = 0; q < POOLS; ++q) {
            if (p == q)
                continue;
            for (int i = 0; i < IDS + IDS / 3; ++i) {
                VXK_CHECK_MSG(!vxk_id_pool_valid(&pools[q], index[p][i], generation[p][i]),
                              "id {%u, %08x} of pool %d valid in pool %d", index[p][i],
                              generation[p][i], p, q);
                if (i % 3 && i < IDS) // live in p: a foreign free changes nothing
                    VXK_CHECK_EQ_INT(vxk_id_pool_free(&pools[q], index[p][i], generation[p][i]),
                                     VXK_ERR_STALE_ID);
            }
            VXK_CHECK_EQ_U64(pools[q].live, IDS);
        }
    for (int p = 0; p < POOLS; ++p)
        vxk_id_pool_destroy(&pools[p]);
    return 0;
}

// Salts drawn from several threads at once: none drawn twice (the serial is atomic).
enum { SALT_THREADS = 4, SALTS_PER_THREAD = 20000 };

static void* draw_salts(void* arg)
{
    uint32_t* out = (uint32_t*)arg;
    for (int i = 0; i < SALTS_PER_THREAD; ++i)
        out[i] = vxk_id_pool_next_salt();
    return NULL;
}

static int test_salts_from_threads(void)
{
    uint32_t* salt = malloc(SALT_THREADS * SALTS_PER_THREAD * sizeof(uint32_t));
    VXK_CHECK(salt != NULL);
    pthread_t threads[SALT_THREADS];
    for (int t = 0; t < SALT_THREADS; ++t)
        VXK_CHECK_EQ_INT(
            pthread_create(&threads[t], NULL, draw_salts, salt + (size_t)t * SALTS_PER_THREAD), 0);
    for (int t = 0; t < SALT_THREADS; ++t)
        pthread_join(threads[t], NULL);
    qsort(salt, SALT_THREADS * SALTS_PER_THREAD, sizeof(uint32_t), compare_u32);
    for (int i = 1; i < SALT_THREADS * SALTS_PER_THREAD; ++i)
        VXK_CHECK_MSG(salt[i] != salt[i - 1], "salt %08x drawn twice", salt[i]);
    free(salt);
    return 0;
}

// Out of memory while growing: an error, the pool unchanged.
static int test_out_of_memory(void)
{
    vxk_id_pool pool;
    vxk_id_pool_init(&pool);
    uint32_t index, generation;
    for (int i = 0; i < 64; ++i) // the first block holds 64
        VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
    vxk_set_allocator(&(vxk_allocator){vxk_test_refuse_alloc, vxk_test_plain_free, NULL});
    vxk_status status = vxk_id_pool_alloc(&pool, &index, &generation);
    vxk_set_allocator(NULL);
    VXK_CHECK_EQ_INT(status, VXK_ERR_OUT_OF_MEMORY);
    VXK_CHECK_EQ_U64(pool.count, 64);
    VXK_CHECK_EQ_U64(pool.live, 64);
    VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
    VXK_CHECK_EQ_U64(index, 64);
    vxk_id_pool_destroy(&pool);
    return 0;
}

int main(void)
{
    VXK_RUN(test_id_layout);
    VXK_RUN(test_pool_against_model);
    VXK_RUN(test_generation_wrap);
    VXK_RUN(test_salts_distinct_and_far);
    VXK_RUN(test_pools_salted);
    VXK_RUN(test_salts_from_threads);
    VXK_RUN(test_out_of_memory);
    return vxk_test_finish();
}
