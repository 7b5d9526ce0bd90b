// harness.h: what the edge and out-of-memory tests of every concept share: an allocator hook
// that fails the Nth allocation (or every one from the Nth on), an assert recorder, canary
// buffers, the special float values, a snapshot of a world's hashes and the byte counter with
// the checks that a failed call changed nothing, and OOM_SWEEP, which runs a call failing at
// every allocation in turn, and the begin/end calls a file's edge and OOM tests run between.
// Include after test.h. A concept's edge and out-of-memory tests live in its
// tests/test_<concept>.c.
#ifndef VXK_TEST_HARNESS_H
#define VXK_TEST_HARNESS_H

#include <vxk/vxk.h>

#include "test.h"

#include <float.h>
#include <math.h>
#include <string.h>

typedef struct fail_alloc_state {
    bool armed;
    bool sticky;       // fail every allocation from the Nth on, not only the Nth
    uint64_t calls;    // allocations seen while armed
    uint64_t fail_at;  // 1-based
    uint64_t failures; // allocations refused
} fail_alloc_state;
static fail_alloc_state g_fa __attribute__((unused));

static inline void* fa_alloc(size_t size, void* user)
{
    (void)user;
    if (g_fa.armed) {
        ++g_fa.calls;
        if (g_fa.calls == g_fa.fail_at || (g_fa.sticky && g_fa.calls > g_fa.fail_at)) {
            ++g_fa.failures;
            return NULL;
        }
    }
    return malloc(size);
}

static inline void fa_free(void* pointer, size_t size, void* user)
{
    (void)size;
    (void)user;
    free(pointer);
}

static inline void fa_arm(uint64_t n, bool sticky)
{
    g_fa = (fail_alloc_state){true, sticky, 0, n, 0};
}

// Returns the allocations seen while armed.
static inline uint64_t fa_disarm(void)
{
    g_fa.armed = false;
    return g_fa.calls;
}

static int g_assert_count __attribute__((unused));
static uint64_t g_sweep_n
    __attribute__((unused)); // the attempt an OOM sweep is at (printed when a check fails)
static int g_sweep_sticky __attribute__((unused));
static inline int record_assert(const char* condition, const char* file, int line)
{
    ++g_assert_count;
    fprintf(stderr, "vxk assert under test: %s (%s:%d)\n", condition, file, line);
    return 0; // continue: the test reports the assert as a failure
}

// ---- helpers ----------------------------------------------------------------------------------

#define CANARY 0xA5u

static inline bool all_canary(const void* p, size_t n)
{
    const uint8_t* b = (const uint8_t*)p;
    for (size_t i = 0; i < n; ++i)
        if (b[i] != CANARY)
            return false;
    return true;
}

static inline float f_nan(void)
{
    return nanf("");
}

// The float values every float input is tried with: the first three are non-finite.
static inline float special_float(int k)
{
    switch (k) {
    case 0: return f_nan();
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0f;
    case 4: return FLT_TRUE_MIN;
    case 5: return FLT_MAX;
    default: return -FLT_MAX;
    }
}
#define SPECIAL_FLOATS 7

typedef struct snapshot {
    uint64_t terrain;
    uint64_t broadphase;
    size_t bytes;
} snapshot;

static inline snapshot snap(const vxk_world* world)
{
    snapshot s;
    s.terrain = world ? vxk_world_terrain_hash(world) : 0;
    s.broadphase = world ? vxk_broadphase_hash(world) : 0;
    s.bytes = vxk_allocated_bytes();
    return s;
}

#define CHECK_UNCHANGED(world, before)                            \
    do {                                                          \
        snapshot after_ = snap(world);                            \
        VXK_CHECK_EQ_U64(after_.terrain, (before).terrain);       \
        VXK_CHECK_EQ_U64(after_.broadphase, (before).broadphase); \
        VXK_CHECK_EQ_U64(after_.bytes, (before).bytes);           \
    } while (0)

// As CHECK_UNCHANGED, for a call that failed out of memory: storage grown before the failing
// allocation may stay with the world (released with it; the sweeps check that), so bytes may
// only grow, and such attempts are counted in `retained`.
#define CHECK_UNCHANGED_MAY_GROW(world, before, retained)         \
    do {                                                          \
        snapshot after_ = snap(world);                            \
        VXK_CHECK_EQ_U64(after_.terrain, (before).terrain);       \
        VXK_CHECK_EQ_U64(after_.broadphase, (before).broadphase); \
        VXK_CHECK(after_.bytes >= (before).bytes);                \
        (retained) += after_.bytes > (before).bytes;              \
    } while (0)

// Runs `call` with the Nth allocation failing, for N = 1, 2, ... until a run needs fewer than N
// allocations, in both modes (only the Nth fails / every allocation from the Nth fails).
// `setup` runs before each attempt with the allocator unarmed; `check` runs after it with the
// status in `st`; `cleanup` runs after check.
#define OOM_SWEEP(setup, call, check, cleanup)                                             \
    for (int sticky_ = 0; sticky_ < 2; ++sticky_) {                                        \
        for (uint64_t n_ = 1;; ++n_) {                                                     \
            setup;                                                                         \
            g_sweep_n = n_;                                                                \
            g_sweep_sticky = sticky_;                                                      \
            fa_arm(n_, sticky_ != 0);                                                      \
            vxk_status st = (call);                                                        \
            uint64_t calls_ = fa_disarm();                                                 \
            bool failed_ = g_fa.failures > 0;                                              \
            (void)failed_;                                                                 \
            check;                                                                         \
            cleanup;                                                                       \
            VXK_CHECK_EQ_INT(g_assert_count, 0);                                           \
            if (calls_ < n_) {                                                             \
                VXK_CHECK_MSG(st == VXK_OK, "no failure injected but status %d", (int)st); \
                break;                                                                     \
            }                                                                              \
            VXK_CHECK(n_ < 200000);                                                        \
        }                                                                                  \
    }

// VXK_RUN for a test made of OOM_SWEEPs: a failure also names the allocation it happened at.
// The sweeps run one thread through every allocation: under TSan (VXK_TSAN) they only cost time
// (about a minute of the threaded tests) and are skipped; the Release and ASan builds run them.
#if defined(VXK_TSAN)
#define VXK_RUN_SWEEP(fn) \
    ((void)(fn), fprintf(stderr, "-- %s skipped under TSan (one thread)\n", #fn))
#else
#define VXK_RUN_SWEEP(fn)                                                                \
    do {                                                                                 \
        int failed_before_ = vxk_test_failed;                                            \
        VXK_RUN(fn);                                                                     \
        if (vxk_test_failed != failed_before_)                                           \
            fprintf(stderr, "  at allocation %llu, %s\n", (unsigned long long)g_sweep_n, \
                    g_sweep_sticky ? "failing from there on" : "failing alone");         \
    } while (0)
#endif

// A file's edge tests run between vxk_edge_tests_begin() and vxk_edge_tests_end(): the assert
// recorder is installed, so a kernel assert is counted instead of ending the program, and the
// end fails the run when any fired. Its sweeps (VXK_RUN_SWEEP) run between
// vxk_oom_tests_begin() and vxk_oom_tests_end(), with the failing allocator installed.
static inline void vxk_edge_tests_begin(void)
{
    vxk_set_assert_handler(record_assert);
}

static inline void vxk_edge_tests_end(void)
{
    vxk_set_assert_handler(NULL);
    if (g_assert_count != 0) {
        fprintf(stderr, "FAILED: %d kernel asserts fired in the edge tests\n", g_assert_count);
        ++vxk_test_failed;
    }
}

static inline void vxk_oom_tests_begin(void)
{
    static const vxk_allocator failing = {fa_alloc, fa_free, NULL};
    vxk_set_allocator(&failing);
}

static inline void vxk_oom_tests_end(void)
{
    vxk_set_allocator(NULL);
}

// An allocator that refuses everything (set it around one call to get its out-of-memory status).
static inline void* vxk_test_refuse_alloc(size_t size, void* user)
{
    (void)size;
    (void)user;
    return NULL;
}

static inline void vxk_test_plain_free(void* pointer, size_t size, void* user)
{
    (void)size;
    (void)user;
    free(pointer);
}

// Installs an allocator that refuses everything; vxk_set_allocator(NULL) ends it.
static inline void vxk_test_refuse_allocations(void)
{
    static const vxk_allocator refuse = {vxk_test_refuse_alloc, vxk_test_plain_free, NULL};
    vxk_set_allocator(&refuse);
}

#endif
