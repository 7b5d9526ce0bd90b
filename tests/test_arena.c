// test_arena.c: the step's bump allocator (kernel/arena.h) and the neighbourhood of written
// chunks the step computes in it: random allocations against a reference list of what each one
// holds, alignment, reuse after reset without new allocations, out of memory; the neighbourhood
// against a brute-force set of every chunk within one of the input.
#include "harness.h"
#include "test.h"

#include "world_internal.h"

#include <stdlib.h>

typedef struct ref_alloc {
    uint8_t* p;
    size_t bytes;
    uint8_t tag;
} ref_alloc;

// One round of random allocations, each filled with its own tag; all checked at the end.
static int round_of(vxk_arena* arena, uint64_t seed, ref_alloc* ref, int count)
{
    uint64_t rng = seed;
    for (int i = 0; i < count; ++i) {
        size_t bytes = 1 + (size_t)(vxk_test_rand(&rng) % (i % 17 == 0 ? 300000 : 700));
        uint8_t* p = (uint8_t*)vxk_arena_alloc(arena, bytes);
        VXK_CHECK(p != NULL);
        VXK_CHECK_MSG(((uintptr_t)p & 15) == 0, "allocation %d at %p not 16-byte aligned", i,
                      (void*)p);
        ref[i] = (ref_alloc){p, bytes, (uint8_t)(i * 37 + 11)};
        memset(p, ref[i].tag, bytes);
    }
    for (int i = 0; i < count; ++i)
        for (size_t k = 0; k < ref[i].bytes; ++k)
            VXK_CHECK_MSG(ref[i].p[k] == ref[i].tag, "allocation %d byte %zu overwritten", i, k);
    return 0;
}

static int test_arena_rounds(void)
{
    enum { count = 2000 };
    ref_alloc* ref = calloc(count, sizeof(ref_alloc));
    vxk_arena arena;
    vxk_arena_init(&arena);
    VXK_CHECK(vxk_arena_alloc(&arena, 0) == NULL);
    uint64_t seed = vxk_test_seed(0xA7E4A);
    for (int round = 0; round < 4; ++round) {
        VXK_CHECK_EQ_INT(round_of(&arena, seed, ref, count), 0);
        size_t peak = arena.peak;
        VXK_CHECK(arena.held >= peak);
        vxk_arena_reset(&arena);
        // The same allocations again fit the one block the reset kept: no allocation at all.
        size_t before = vxk_allocated_bytes();
        VXK_CHECK_EQ_INT(round_of(&arena, seed, ref, count), 0);
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        VXK_CHECK_EQ_U64(arena.peak, peak);
        vxk_arena_reset(&arena);
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    }
    vxk_arena_destroy(&arena);
    VXK_CHECK_EQ_U64(arena.held, 0);
    free(ref);
    return 0;
}

static int test_arena_out_of_memory(void)
{
    vxk_arena arena;
    vxk_arena_init(&arena);
    VXK_CHECK(vxk_arena_alloc(&arena, 100) != NULL);
    vxk_arena saved = arena;
    vxk_set_allocator(&(vxk_allocator){vxk_test_refuse_alloc, vxk_test_plain_free, NULL});
    VXK_CHECK(vxk_arena_alloc(&arena, (size_t)1 << 20) == NULL); // needs a new block
    vxk_set_allocator(NULL);
    VXK_CHECK(memcmp(&arena, &saved, sizeof(arena)) == 0);
    VXK_CHECK(vxk_arena_alloc(&arena, 100) != NULL); // the old block still serves
    vxk_arena_destroy(&arena);
    return 0;
}

static int compare_yzx(const void* a, const void* b)
{
    const vxk_int3* p = (const vxk_int3*)a;
    const vxk_int3* q = (const vxk_int3*)b;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->z != q->z)
        return p->z < q->z ? -1 : 1;
    return p->x < q->x ? -1 : (p->x > q->x);
}

static uint32_t sort_unique(vxk_int3* v, uint32_t n)
{
    qsort(v, n, sizeof(vxk_int3), compare_yzx);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (u == 0 || compare_yzx(&v[u - 1], &v[i]) != 0)
            v[u++] = v[i];
    return u;
}

static int test_neighbourhood_brute_force(void)
{
    const int32_t lo = -(1 << 28), hi = (1 << 28) - 1; // the chunk range of int32 voxels
    uint64_t rng = vxk_test_seed(0x4E16);
    vxk_arena arena;
    vxk_arena_init(&arena);
    for (int trial = 0; trial < 300; ++trial) {
        uint32_t n = 1 + (uint32_t)(vxk_test_rand(&rng) % 60);
        vxk_int3 in[60];
        int32_t base = trial % 3 == 0 ? lo : trial % 3 == 1 ? hi - 6 : -3;
        for (uint32_t i = 0; i < n; ++i) {
            int32_t r[3];
            for (int a = 0; a < 3; ++a)
                r[a] = base + (int32_t)(vxk_test_rand(&rng) % 7);
            in[i] = (vxk_int3){r[0], r[1], r[2]};
        }
        n = sort_unique(in, n);
        vxk_int3* ref = malloc((size_t)n * 27 * sizeof(vxk_int3));
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz)
                    for (int dx = -1; dx <= 1; ++dx) {
                        int64_t x = (int64_t)in[i].x + dx, y = (int64_t)in[i].y + dy;
                        int64_t z = (int64_t)in[i].z + dz;
                        if (x < lo || x > hi || y < lo || y > hi || z < lo || z > hi)
                            continue;
                        ref[m++] = (vxk_int3){(int32_t)x, (int32_t)y, (int32_t)z};
                    }
        m = sort_unique(ref, m);
        const vxk_int3* got = NULL;
        uint32_t count = 0;
        VXK_CHECK_EQ_INT(vxk_chunk_neighbourhood(&arena, &got, &count, in, n), VXK_OK);
        VXK_CHECK_EQ_U64(count, m);
        VXK_CHECK(memcmp(got, ref, (size_t)m * sizeof(vxk_int3)) == 0);
        free(ref);
        vxk_arena_reset(&arena);
    }
    const vxk_int3* none = NULL;
    uint32_t zero = 1;
    VXK_CHECK_EQ_INT(vxk_chunk_neighbourhood(&arena, &none, &zero, NULL, 0), VXK_OK);
    VXK_CHECK_EQ_U64(zero, 0);
    vxk_arena_destroy(&arena);
    return 0;
}

int main(void)
{
    VXK_RUN(test_arena_rounds);
    VXK_RUN(test_arena_out_of_memory);
    VXK_RUN(test_neighbourhood_brute_force);
    return vxk_test_finish();
}
