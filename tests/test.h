// test.h: the tiny test harness. Each test is a function returning 0 on success; a failing check
// prints the expression, the values and the place, and makes the test return 1.
//
//   static int test_something(void) { VXK_CHECK_EQ_U64(a, b); return 0; }
//   int main(void) { VXK_RUN(test_something); return vxk_test_finish(); }
#ifndef VXK_TEST_H
#define VXK_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int vxk_test_passed __attribute__((unused)), vxk_test_failed __attribute__((unused));

#define VXK_CHECK(cond)                                                              \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

#define VXK_CHECK_MSG(cond, ...)                                                     \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
            return 1;                                                                \
        }                                                                            \
    } while (0)

#define VXK_CHECK_EQ_U64(a, b)                                                                \
    do {                                                                                      \
        uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                                    \
        if (va_ != vb_) {                                                                     \
            fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n", __FILE__, \
                    __LINE__, #a, #b, va_, vb_);                                              \
            return 1;                                                                         \
        }                                                                                     \
    } while (0)

#define VXK_CHECK_EQ_INT(a, b)                                                                    \
    do {                                                                                          \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                     \
        if (va_ != vb_) {                                                                         \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
                    va_, vb_);                                                                    \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

// VXK_TEST_FILTER=text runs only the tests whose name contains text.
#define VXK_RUN(fn)                                      \
    do {                                                 \
        const char* filter_ = getenv("VXK_TEST_FILTER"); \
        if (filter_ && !strstr(#fn, filter_))            \
            break;                                       \
        fprintf(stderr, "-- %s\n", #fn);                 \
        if (fn() == 0)                                   \
            ++vxk_test_passed;                           \
        else {                                           \
            ++vxk_test_failed;                           \
            fprintf(stderr, "FAILED: %s\n", #fn);        \
        }                                                \
    } while (0)

static inline int vxk_test_finish(void)
{
    fprintf(stderr, "%d passed, %d failed\n", vxk_test_passed, vxk_test_failed);
    return vxk_test_failed ? 1 : 0;
}

// Seeded PRNG for tests (SplitMix64).
static inline uint64_t vxk_test_rand(uint64_t* state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline float vxk_test_randf(uint64_t* state, float lo, float hi)
{
    return lo + (hi - lo) * (float)((vxk_test_rand(state) >> 40) * (1.0 / 16777216.0));
}

// Reads a whole file into a malloc'd buffer (one spare byte); NULL if it cannot be read.
static inline uint8_t* vxk_test_read_file(const char* path, size_t* size)
{
    FILE* f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t* data = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? (uint8_t*)malloc((size_t)n + 1) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data)
        *size = (size_t)n;
    return data;
}

// The path of a file of the shared sample data: $VXK_DATA_DIR/relative when VXK_DATA_DIR is set
// (scripts and ctest point it elsewhere), else VXK_SHARED_DIR/data/relative. A test that needs a
// sample fails when it is missing, naming this path.
static inline void vxk_test_data_path(char* path, size_t size, const char* relative)
{
    const char* dir = getenv("VXK_DATA_DIR");
    if (dir && *dir)
        snprintf(path, size, "%s/%s", dir, relative);
    else
        snprintf(path, size, "%s/data/%s", VXK_SHARED_DIR, relative);
}

// The seed of a test's random inputs: the literal, or, when VXK_TEST_SEED=k (k > 0) is set, a
// mix of both (scripts/soak runs the tests over many k).
static inline uint64_t vxk_test_seed(uint64_t literal)
{
    const char* env = getenv("VXK_TEST_SEED");
    uint64_t k = env ? strtoull(env, NULL, 10) : 0;
    return k ? literal ^ (k * 0x9E3779B97F4A7C15ull) : literal;
}

// Sanitizer builds are slower; tests may shrink loop counts by this factor (never to zero).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VXK_TEST_SLOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VXK_TEST_SLOW 1
#endif
#endif
#ifndef VXK_TEST_SLOW
#define VXK_TEST_SLOW 0
#endif

// Boxes for vxk_world_fill/read/write_box from corners computed in int64 (inclusive) or from a
// computed min and size, both in range. Fixed boxes are written as vxk_int_box literals.
#include <vxk/base.h>
static inline vxk_int_box vxk_test_box(const int64_t lo[3], const int64_t hi[3])
{
    return (vxk_int_box){{(int32_t)lo[0], (int32_t)lo[1], (int32_t)lo[2]},
                         {(int32_t)hi[0], (int32_t)hi[1], (int32_t)hi[2]}};
}
static inline vxk_int_box vxk_test_box_sized(vxk_int3 min, vxk_int3 size)
{
    // size - 1 first: a box ending at INT32_MAX must not overflow on the way.
    return (vxk_int_box){min, {min.x + (size.x - 1), min.y + (size.y - 1), min.z + (size.z - 1)}};
}

#endif
