// test_id.c: the id layout (vxk/id.h) and the id pool: random create/destroy sequences against a
// reference model (a plain array of live flags and a set of every id ever handed out), stale ids
// refused for ever, generation wrap retiring an index, out-of-memory leaving the pool unchanged.
#include "harness.h"
#include "test.h"

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

// An index whose generation reaches the end is retired: its last id goes stale and the index is
// never handed out again.
static int test_generation_wrap(void)
{
    vxk_id_pool pool;
    vxk_id_pool_init(&pool);
    uint32_t index, generation;
    VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, index, generation), VXK_OK);
    // As if index 0 had been freed and reused 2^31 - 1 times: its free generation is the last
    // even one.
    pool.generations[0] = UINT32_MAX - 1u;
    VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
    VXK_CHECK_EQ_U64(index, 0);
    VXK_CHECK_EQ_U64(generation, UINT32_MAX);
    VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, 0, UINT32_MAX), VXK_OK);
    VXK_CHECK(!vxk_id_pool_valid(&pool, 0, UINT32_MAX));
    VXK_CHECK(!vxk_id_pool_valid(&pool, 0, 0));
    VXK_CHECK_EQ_INT(vxk_id_pool_free(&pool, 0, UINT32_MAX), VXK_ERR_STALE_ID);
    // Retired: the next ids come from new indices, index 0 never again.
    for (int i = 0; i < 100; ++i) {
        VXK_CHECK_EQ_INT(vxk_id_pool_alloc(&pool, &index, &generation), VXK_OK);
        VXK_CHECK(index != 0);
        VXK_CHECK_EQ_U64(generation, 1);
    }
    vxk_id_pool_destroy(&pool);
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
    VXK_RUN(test_out_of_memory);
    return vxk_test_finish();
}
