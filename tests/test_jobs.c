// test_jobs.c: the job scheduler: exactly-once execution, dependencies on random DAGs (checked
// with atomic sequence stamps), nested waits and parallel_for, a million tiny jobs, concurrent
// external submitters, identical results for 1/2/3/8 workers, scratch arenas, trace export,
// the wake-up of sleeping workers and waiters, dependency/submit races, destroy right after
// submit, nesting beyond the cap, group lifetime and external slot exhaustion. Edge tests
// (harness.h): bad defs, refused submissions, stale and forged handles, degenerate parallel_for
// counts and grains, scratch misuse, trace and summary arguments.
#define _GNU_SOURCE
#include "test.h"
#include "harness.h"
#include "scenes.h"

#include <vxk/jobs.h>

#include "jobs_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// Most tests keep fewer than 2^16 jobs live; a smaller pool keeps sanitizer builds (which clear
// allocations eagerly) fast.
static vxk_jobs* make_jobs_sized(uint32_t workers, uint32_t trace_capacity, uint32_t max_jobs)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = workers;
    def.trace_capacity = trace_capacity;
    def.max_jobs = max_jobs;
    vxk_jobs* jobs = NULL;
    if (vxk_jobs_create(&def, &jobs) != 0)
        return NULL;
    return jobs;
}

static vxk_jobs* make_jobs(uint32_t workers, uint32_t trace_capacity)
{
    return make_jobs_sized(workers, trace_capacity, 1u << 16);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

// ---- exactly once -------------------------------------------------------------------------

typedef struct once_ctx {
    _Atomic uint32_t* runs;
    uint32_t index;
} once_ctx;

static void once_job(void* ctx, uint32_t thread)
{
    (void)thread;
    once_ctx* c = ctx;
    atomic_fetch_add_explicit(&c->runs[c->index], 1, memory_order_relaxed);
}

static int test_each_job_runs_once(void)
{
    const uint32_t n = VXK_TEST_SLOW ? 20000 : 100000;
    _Atomic uint32_t* runs = calloc(n, sizeof(*runs));
    once_ctx* ctx = malloc(n * sizeof(once_ctx));
    vxk_job* handles = malloc(n * sizeof(vxk_job));
    const uint32_t worker_counts[] = {1, 2, 4};
    for (int w = 0; w < 3; ++w) {
        vxk_jobs* jobs = make_jobs_sized(worker_counts[w], 0, n);
        VXK_CHECK(jobs);
        VXK_CHECK_EQ_U64(vxk_jobs_worker_count(jobs), worker_counts[w]);
        for (uint32_t i = 0; i < n; ++i) {
            atomic_store(&runs[i], 0);
            ctx[i] = (once_ctx){runs, i};
        }
        vxk_job_group group;
        vxk_job_group_init(&group);
        for (uint32_t i = 0; i < n; ++i) {
            vxk_job_desc d = {"once", once_job, &ctx[i], NULL, 0, i % 2 ? &group : NULL};
            handles[i] = vxk_jobs_submit(jobs, &d);
            VXK_CHECK(handles[i].generation != 0);
        }
        vxk_jobs_wait_group(jobs, &group);
        for (uint32_t i = 1; i < n; i += 2)
            VXK_CHECK_MSG(atomic_load(&runs[i]) == 1, "job %u ran %u times", i,
                          atomic_load(&runs[i]));
        for (uint32_t i = 0; i < n; i += 2)
            vxk_jobs_wait(jobs, handles[i]);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK_MSG(atomic_load(&runs[i]) == 1, "job %u ran %u times with %u workers", i,
                          atomic_load(&runs[i]), worker_counts[w]);
        // Waiting again on finished handles returns at once and runs nothing twice.
        for (uint32_t i = 0; i < n; i += 97)
            vxk_jobs_wait(jobs, handles[i]);
        vxk_jobs_destroy(jobs);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK_EQ_U64(atomic_load(&runs[i]), 1);
    }
    free(runs);
    free(ctx);
    free(handles);
    return 0;
}

// With one worker everything runs inline on the waiting thread in submission order.
typedef struct order_ctx {
    uint32_t* log;
    uint32_t* count;
    uint32_t index;
} order_ctx;

static void order_job(void* ctx, uint32_t thread)
{
    order_ctx* c = ctx;
    if (thread == 0)
        c->log[(*c->count)++] = c->index;
}

static int test_single_worker_order(void)
{
    const uint32_t n = 5000;
    vxk_jobs* jobs = make_jobs(1, 0);
    VXK_CHECK(jobs);
    uint32_t* log = calloc(n, sizeof(uint32_t));
    order_ctx* ctx = malloc(n * sizeof(order_ctx));
    uint32_t count = 0;
    vxk_job last = {0, 0};
    for (uint32_t i = 0; i < n; ++i) {
        ctx[i] = (order_ctx){log, &count, i};
        vxk_job_desc d = {"order", order_job, &ctx[i], NULL, 0, NULL};
        last = vxk_jobs_submit(jobs, &d);
    }
    VXK_CHECK_EQ_U64(count, 0); // nothing runs before a wait
    vxk_jobs_wait(jobs, last);
    VXK_CHECK_EQ_U64(count, n);
    for (uint32_t i = 0; i < n; ++i)
        VXK_CHECK_EQ_U64(log[i], i);
    vxk_jobs_destroy(jobs);
    free(log);
    free(ctx);
    return 0;
}

// ---- dependencies on random DAGs ----------------------------------------------------------

typedef struct dag_node {
    _Atomic uint64_t start;
    _Atomic uint64_t end;
    _Atomic uint32_t runs;
    uint32_t dep_count;
    uint32_t deps[8];
    _Atomic uint64_t* clock;
    uint32_t work;
    uint64_t result;
} dag_node;

static void dag_job(void* ctx, uint32_t thread)
{
    (void)thread;
    dag_node* node = ctx;
    atomic_store(&node->start, atomic_fetch_add(node->clock, 1) + 1);
    uint64_t x = node->work;
    for (uint32_t i = 0; i < node->work; ++i)
        x = x * 6364136223846793005ull + 1;
    node->result = x;
    atomic_fetch_add(&node->runs, 1);
    atomic_store(&node->end, atomic_fetch_add(node->clock, 1) + 1);
}

static int run_dag(uint32_t workers, uint64_t seed)
{
    const uint32_t n = 10000;
    vxk_jobs* jobs = make_jobs(workers, 0);
    VXK_CHECK(jobs);
    dag_node* nodes = calloc(n, sizeof(dag_node));
    vxk_job* handles = calloc(n, sizeof(vxk_job));
    _Atomic uint64_t clock = 0;
    uint64_t rng = seed;
    vxk_job_group group;
    vxk_job_group_init(&group);
    for (uint32_t i = 0; i < n; ++i) {
        dag_node* node = &nodes[i];
        node->clock = &clock;
        node->work = (uint32_t)(vxk_test_rand(&rng) % 200);
        node->dep_count = i ? (uint32_t)(vxk_test_rand(&rng) % 9) : 0;
        vxk_job deps[9];
        for (uint32_t k = 0; k < node->dep_count; ++k) {
            // Mostly recent jobs (often still pending), sometimes old ones (often finished).
            uint32_t span = vxk_test_rand(&rng) % 4 ? (i < 64 ? i : 64) : i;
            node->deps[k] = i - 1 - (uint32_t)(vxk_test_rand(&rng) % span);
            deps[k] = handles[node->deps[k]];
        }
        uint32_t dep_count = node->dep_count;
        if (dep_count && vxk_test_rand(&rng) % 8 == 0)
            deps[dep_count++] = (vxk_job){0, 0}; // null handles are allowed and ignored
        vxk_job_desc d = {"dag", dag_job, node, deps, dep_count, &group};
        handles[i] = vxk_jobs_submit(jobs, &d);
        VXK_CHECK(handles[i].generation != 0);
        if (i % 2500 == 2499)
            vxk_jobs_wait(jobs, handles[i - 1000]); // waits in the middle of submission
    }
    vxk_jobs_wait_group(jobs, &group);
    for (uint32_t i = 0; i < n; ++i) {
        dag_node* node = &nodes[i];
        VXK_CHECK_MSG(atomic_load(&node->runs) == 1, "dag job %u ran %u times", i,
                      atomic_load(&node->runs));
        uint64_t start = atomic_load(&node->start);
        for (uint32_t k = 0; k < node->dep_count; ++k) {
            uint64_t dep_end = atomic_load(&nodes[node->deps[k]].end);
            VXK_CHECK_MSG(dep_end != 0 && dep_end < start,
                          "workers %u: job %u started at %llu before dep %u ended at %llu", workers,
                          i, (unsigned long long)start, node->deps[k], (unsigned long long)dep_end);
        }
    }
    vxk_jobs_destroy(jobs);
    free(nodes);
    free(handles);
    return 0;
}

static int test_random_dags(void)
{
    const uint32_t worker_counts[] = {1, 2, 3, 8};
    for (int w = VXK_TEST_SLOW ? 2 : 0; w < 4; ++w) {
        for (uint64_t seed = 1; seed <= (VXK_TEST_SLOW ? 1u : 3u); ++seed) {
            if (run_dag(worker_counts[w], seed * 7919 + w))
                return 1;
        }
    }
    return 0;
}

// ---- nested waits and nested parallel_for ------------------------------------------------

typedef struct fib_ctx {
    vxk_jobs* jobs;
    uint32_t n;
    uint64_t result;
} fib_ctx;

static void fib_job(void* ctx, uint32_t thread)
{
    (void)thread;
    fib_ctx* c = ctx;
    if (c->n < 2) {
        c->result = c->n;
        return;
    }
    fib_ctx a = {c->jobs, c->n - 1, 0}, b = {c->jobs, c->n - 2, 0};
    vxk_job_desc da = {"fib", fib_job, &a, NULL, 0, NULL};
    vxk_job_desc db = {"fib", fib_job, &b, NULL, 0, NULL};
    vxk_job ja = vxk_jobs_submit(c->jobs, &da);
    vxk_job jb = vxk_jobs_submit(c->jobs, &db);
    vxk_jobs_wait(c->jobs, jb);
    vxk_jobs_wait(c->jobs, ja);
    c->result = a.result + b.result;
}

static int test_nested_waits(void)
{
    const uint32_t worker_counts[] = {1, 2, 4};
    for (int w = 0; w < 3; ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w], 0);
        VXK_CHECK(jobs);
        fib_ctx root = {jobs, VXK_TEST_SLOW ? 15 : 20, 0};
        vxk_job_desc d = {"fib", fib_job, &root, NULL, 0, NULL};
        vxk_jobs_wait(jobs, vxk_jobs_submit(jobs, &d));
        uint64_t a = 0, b = 1;
        for (uint32_t i = 0; i < root.n; ++i) {
            uint64_t t = a + b;
            a = b;
            b = t;
        }
        VXK_CHECK_EQ_U64(root.result, a);
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

typedef struct nested_ctx {
    vxk_jobs* jobs;
    _Atomic uint32_t* hits; // outer * inner_count + i
    uint32_t outer;
    uint32_t inner_count;
    uint32_t thread_count;
    _Atomic uint32_t bad_thread;
} nested_ctx;

typedef struct inner_ctx {
    nested_ctx* shared;
    uint32_t outer;
    uint32_t offset;
} inner_ctx;

static void inner_leaf(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    inner_ctx* c = ctx;
    if (thread >= c->shared->thread_count)
        atomic_store(&c->shared->bad_thread, 1);
    uint32_t base = c->outer * c->shared->inner_count + c->offset;
    for (uint32_t i = begin; i < end; ++i)
        atomic_fetch_add_explicit(&c->shared->hits[base + i], 1, memory_order_relaxed);
}

// Middle level: a parallel_for inside a range callback, itself inside a job. Piece k of 4 covers
// a quarter of the items with one more nested parallel_for.
static void inner_middle(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    inner_ctx* c = ctx;
    uint32_t quarter = c->shared->inner_count / 4;
    for (uint32_t k = begin; k < end; ++k) {
        inner_ctx leaf = {c->shared, c->outer, k * quarter};
        vxk_parallel_for(c->shared->jobs, "leaf", quarter, 13, inner_leaf, &leaf);
    }
}

static void outer_job(void* ctx, uint32_t thread)
{
    (void)thread;
    inner_ctx* c = ctx;
    vxk_parallel_for(c->shared->jobs, "middle", 4, 1, inner_middle, c);
}

static int test_nested_parallel_for(void)
{
    const uint32_t worker_counts[] = {1, 2, 3};
    const uint32_t outer_count = VXK_TEST_SLOW ? 60 : 300, inner_count = 1000;
    for (int w = 0; w < 3; ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w], 0);
        VXK_CHECK(jobs);
        nested_ctx shared = {jobs,
                             calloc((size_t)outer_count * inner_count, sizeof(uint32_t)),
                             0,
                             inner_count,
                             vxk_jobs_thread_count(jobs),
                             0};
        inner_ctx* ctx = malloc(outer_count * sizeof(inner_ctx));
        vxk_job_group group;
        vxk_job_group_init(&group);
        for (uint32_t o = 0; o < outer_count; ++o) {
            ctx[o] = (inner_ctx){&shared, o, 0};
            vxk_job_desc d = {"outer", outer_job, &ctx[o], NULL, 0, &group};
            VXK_CHECK(vxk_jobs_submit(jobs, &d).generation != 0);
        }
        vxk_jobs_wait_group(jobs, &group);
        VXK_CHECK_EQ_U64(atomic_load(&shared.bad_thread), 0);
        for (uint32_t i = 0; i < outer_count * inner_count; ++i)
            VXK_CHECK_MSG(atomic_load(&shared.hits[i]) == 1, "item %u hit %u times", i,
                          atomic_load(&shared.hits[i]));
        vxk_jobs_destroy(jobs);
        free((void*)shared.hits);
        free(ctx);
    }
    return 0;
}

// ---- a million tiny jobs ------------------------------------------------------------------

typedef struct tiny_ctx {
    uint64_t* per_thread; // one counter per thread index, 8 apart (no false sharing)
} tiny_ctx;

static void tiny_job(void* ctx, uint32_t thread)
{
    tiny_ctx* c = ctx;
    c->per_thread[thread * 8] += 1;
}

static int test_million_tiny_jobs(void)
{
    const uint32_t n = VXK_TEST_SLOW ? 100000 : 1000000;
    const uint32_t worker_counts[] = {1, 2};
    for (int w = 0; w < 2; ++w) {
        vxk_jobs* jobs = make_jobs_sized(worker_counts[w], 0, n);
        VXK_CHECK(jobs);
        uint32_t threads = vxk_jobs_thread_count(jobs);
        tiny_ctx ctx = {calloc((size_t)threads * 8, sizeof(uint64_t))};
        vxk_job_group group;
        vxk_job_group_init(&group);
        vxk_job_desc d = {"tiny", tiny_job, &ctx, NULL, 0, &group};
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK(vxk_jobs_submit(jobs, &d).generation != 0);
        vxk_jobs_wait_group(jobs, &group);
        uint64_t sum = 0;
        for (uint32_t t = 0; t < threads; ++t)
            sum += ctx.per_thread[t * 8];
        VXK_CHECK_EQ_U64(sum, n);
        // The second round reuses freed slots: with one worker the peak is the same, so no
        // new slot is touched; with more it never exceeds the live count plus the caches.
        uint32_t bump = atomic_load(&jobs->slot_pool.bump);
        for (uint32_t i = 0; i < n; ++i)
            VXK_CHECK(vxk_jobs_submit(jobs, &d).generation != 0);
        vxk_jobs_wait_group(jobs, &group);
        sum = 0;
        for (uint32_t t = 0; t < threads; ++t)
            sum += ctx.per_thread[t * 8];
        VXK_CHECK_EQ_U64(sum, 2ull * n);
        uint32_t bump_after = atomic_load(&jobs->slot_pool.bump);
        if (worker_counts[w] == 1)
            VXK_CHECK(bump_after <= bump + threads * VXK_JOBS_CACHE);
        VXK_CHECK(bump_after <= n + 2 * threads * VXK_JOBS_CACHE);
        vxk_jobs_destroy(jobs);
        free(ctx.per_thread);
    }
    return 0;
}

// ---- external threads submitting and waiting concurrently -----------------------------------

typedef struct chain_ctx {
    uint64_t* cells;
    uint32_t index;
} chain_ctx;

static void chain_job(void* ctx, uint32_t thread)
{
    (void)thread;
    chain_ctx* c = ctx;
    // Each link reads its predecessor, so a dependency violation changes the result.
    c->cells[c->index] = (c->index ? c->cells[c->index - 1] : 7) * 31 + c->index;
}

typedef struct external_arg {
    vxk_jobs* jobs;
    uint32_t seed;
    int failed;
    uint32_t thread_index;
    pthread_barrier_t* alive; // held until every thread read its index (slots come back on exit)
} external_arg;

static void* external_main(void* p)
{
    external_arg* arg = p;
    enum { links = 400, rounds = 6 };
    uint64_t cells[links];
    chain_ctx ctx[links];
    _Atomic uint32_t runs[links];
    once_ctx once[links];
    for (int round = 0; round < rounds; ++round) {
        vxk_job prev = {0, 0};
        vxk_job_group group;
        vxk_job_group_init(&group);
        for (uint32_t i = 0; i < links; ++i) {
            ctx[i] = (chain_ctx){cells, i};
            atomic_store(&runs[i], 0);
            once[i] = (once_ctx){runs, i};
            vxk_job_desc d = {"chain", chain_job, &ctx[i], &prev, prev.generation ? 1 : 0, NULL};
            prev = vxk_jobs_submit(arg->jobs, &d);
            vxk_job_desc o = {"ext_once", once_job, &once[i], NULL, 0, &group};
            vxk_jobs_submit(arg->jobs, &o);
        }
        if (round % 2)
            vxk_jobs_wait_group(arg->jobs, &group);
        vxk_jobs_wait(arg->jobs, prev);
        vxk_jobs_wait_group(arg->jobs, &group);
        uint64_t expect = 7;
        for (uint32_t i = 0; i < links; ++i) {
            expect = expect * 31 + i;
            if (cells[i] != expect || atomic_load(&runs[i]) != 1)
                arg->failed = 1;
        }
    }
    arg->thread_index = vxk_jobs_thread_index(arg->jobs);
    if (arg->alive)
        pthread_barrier_wait(arg->alive);
    return NULL;
}

static int test_many_external_threads(void)
{
    const uint32_t worker_counts[] = {1, 2, 4};
    for (int w = 0; w < 3; ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w], 0);
        VXK_CHECK(jobs);
        enum { count = 6 };
        pthread_t threads[count];
        external_arg args[count];
        pthread_barrier_t alive;
        pthread_barrier_init(&alive, NULL, count);
        for (int t = 0; t < count; ++t) {
            args[t] = (external_arg){jobs, (uint32_t)t, 0, 0, &alive};
            VXK_CHECK(pthread_create(&threads[t], NULL, external_main, &args[t]) == 0);
        }
        external_arg own = {jobs, 99, 0, 0, NULL};
        external_main(&own); // the main thread submits and waits at the same time
        for (int t = 0; t < count; ++t)
            pthread_join(threads[t], NULL);
        pthread_barrier_destroy(&alive);
        VXK_CHECK_EQ_INT(own.failed, 0);
        VXK_CHECK_EQ_U64(own.thread_index, 0);
        uint32_t seen = 0;
        for (int t = 0; t < count; ++t) {
            VXK_CHECK_EQ_INT(args[t].failed, 0);
            // External threads take indices from worker_count up, each its own.
            VXK_CHECK(args[t].thread_index >= worker_counts[w]);
            VXK_CHECK(args[t].thread_index < vxk_jobs_thread_count(jobs));
            VXK_CHECK((seen & (1u << (args[t].thread_index - worker_counts[w]))) == 0);
            seen |= 1u << (args[t].thread_index - worker_counts[w]);
        }
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

// ---- identical results for any worker count ------------------------------------------------

typedef struct reduce_ctx {
    const float* values;
    float* piece_sums;
    uint32_t grain;
    uint32_t* piece_begin;
    uint32_t* piece_end;
    uint32_t thread_count;
    _Atomic uint32_t bad_thread;
} reduce_ctx;

static void reduce_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    reduce_ctx* c = ctx;
    if (thread >= c->thread_count)
        atomic_store(&c->bad_thread, 1);
    float sum = 0.0f;
    for (uint32_t i = begin; i < end; ++i)
        sum += c->values[i] * c->values[i] + 0.5f * c->values[i];
    uint32_t piece = begin / c->grain;
    c->piece_sums[piece] = sum;
    c->piece_begin[piece] = begin;
    c->piece_end[piece] = end;
}

static int test_deterministic_reduction(void)
{
    const uint32_t n = 1000003, grain = 1000;
    uint32_t pieces = vxk_parallel_for_pieces(n, grain);
    VXK_CHECK_EQ_U64(pieces, 1001);
    float* values = malloc(n * sizeof(float));
    uint64_t rng = vxk_test_seed(42);
    for (uint32_t i = 0; i < n; ++i)
        values[i] = vxk_test_randf(&rng, -1000.0f, 1000.0f);
    // Reference: the same cut, computed serially.
    float reference = 0.0f;
    for (uint32_t k = 0; k < pieces; ++k) {
        float sum = 0.0f;
        uint32_t end = (k + 1) * grain < n ? (k + 1) * grain : n;
        for (uint32_t i = k * grain; i < end; ++i)
            sum += values[i] * values[i] + 0.5f * values[i];
        reference += sum;
    }
    const uint32_t worker_counts[] = {1, 2, 3, 8};
    for (int w = 0; w < 4; ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w], 0);
        VXK_CHECK(jobs);
        for (int rep = 0; rep < 3; ++rep) {
            reduce_ctx c = {values,
                            calloc(pieces, sizeof(float)),
                            grain,
                            calloc(pieces, sizeof(uint32_t)),
                            calloc(pieces, sizeof(uint32_t)),
                            vxk_jobs_thread_count(jobs),
                            0};
            vxk_parallel_for(jobs, "reduce", n, grain, reduce_range, &c);
            float total = 0.0f;
            for (uint32_t k = 0; k < pieces; ++k) {
                VXK_CHECK_EQ_U64(c.piece_begin[k], k * grain);
                VXK_CHECK_EQ_U64(c.piece_end[k], (k + 1) * grain < n ? (k + 1) * grain : n);
                total += c.piece_sums[k];
            }
            VXK_CHECK_EQ_U64(atomic_load(&c.bad_thread), 0);
            VXK_CHECK_MSG(memcmp(&total, &reference, sizeof(float)) == 0,
                          "workers %u: %.9g != %.9g", worker_counts[w], total, reference);
            free(c.piece_sums);
            free(c.piece_begin);
            free(c.piece_end);
        }
        vxk_jobs_destroy(jobs);
    }
    free(values);
    return 0;
}

// ---- scratch arena ------------------------------------------------------------------------

typedef struct scratch_ctx {
    vxk_jobs* jobs;
    uint32_t seed;
    _Atomic uint32_t failures;
} scratch_ctx;

static void scratch_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    scratch_ctx* c = ctx;
    for (uint32_t k = begin; k < end; ++k) {
        size_t mark = vxk_jobs_scratch_mark(c->jobs, thread);
        uint32_t words = 16 + k % 200;
        uint32_t* a = vxk_jobs_scratch_alloc(c->jobs, thread, words * 4, 64);
        uint64_t* b = vxk_jobs_scratch_alloc(c->jobs, thread, 24, 8);
        if (!a || !b || ((uintptr_t)a & 63) || ((uintptr_t)b & 7) ||
            (uintptr_t)b < (uintptr_t)(a + words)) {
            atomic_fetch_add(&c->failures, 1);
            continue;
        }
        for (uint32_t i = 0; i < words; ++i)
            a[i] = k * 1000003u + i;
        b[0] = b[1] = b[2] = k;
        for (uint32_t i = 0; i < words; ++i)
            if (a[i] != k * 1000003u + i)
                atomic_fetch_add(&c->failures, 1);
        vxk_jobs_scratch_release(c->jobs, thread, mark);
        if (vxk_jobs_scratch_mark(c->jobs, thread) != mark)
            atomic_fetch_add(&c->failures, 1);
    }
}

static int test_scratch_arena(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    def.scratch_bytes = 4096;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    uint32_t me = vxk_jobs_thread_index(jobs);
    VXK_CHECK_EQ_U64(me, 0);
    size_t mark = vxk_jobs_scratch_mark(jobs, me);
    VXK_CHECK_EQ_U64(mark, 0);
    void* p = vxk_jobs_scratch_alloc(jobs, me, 1000, 16);
    VXK_CHECK(p && ((uintptr_t)p & 15) == 0);
    size_t mark2 = vxk_jobs_scratch_mark(jobs, me);
    VXK_CHECK(mark2 >= 1000);
    void* q = vxk_jobs_scratch_alloc(jobs, me, 3000, 256);
    VXK_CHECK(q == NULL || (uintptr_t)q >= (uintptr_t)p + 1000);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, me, 5000, 16) == NULL); // larger than the arena
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, me, 16, 3) == NULL);    // not a power of two
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, 9999, 16, 16) == NULL); // no such thread
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, 9999), 0);
    vxk_jobs_scratch_release(jobs, me, mark2);
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, me), mark2);
    // Fill to exhaustion, then release and allocate again.
    uint32_t blocks = 0;
    while (vxk_jobs_scratch_alloc(jobs, me, 100, 4))
        ++blocks;
    VXK_CHECK_EQ_U64(blocks, (4096 - mark2) / 100);
    vxk_jobs_scratch_release(jobs, me, mark);
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, me), 0);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, me, 4096, 1) != NULL);
    vxk_jobs_scratch_release(jobs, me, 0);
    vxk_jobs_destroy(jobs);

    jobs = make_jobs(3, 0);
    VXK_CHECK(jobs);
    scratch_ctx c = {jobs, 1, 0};
    vxk_parallel_for(jobs, "scratch", 20000, 37, scratch_range, &c);
    VXK_CHECK_EQ_U64(atomic_load(&c.failures), 0);
    for (uint32_t t = 0; t < vxk_jobs_thread_count(jobs); ++t)
        VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, t), 0);
    vxk_jobs_destroy(jobs);
    return 0;
}

// ---- trace export and summary -------------------------------------------------------------

static void named_job(void* ctx, uint32_t thread)
{
    (void)thread;
    volatile uint32_t* spin = ctx;
    for (uint32_t i = 0; i < 200; ++i)
        *spin;
}

static uint32_t count_occurrences(const char* text, const char* needle)
{
    uint32_t n = 0;
    for (const char* p = strstr(text, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

// A minimal JSON syntax check: balanced {} and [] outside strings, valid escapes, one value.
static int json_is_valid(const char* text)
{
    char stack[64];
    int depth = 0;
    bool in_string = false;
    for (const char* p = text; *p; ++p) {
        if (in_string) {
            if (*p == '\\') {
                if (!strchr("\"\\/bfnrtu", p[1]))
                    return 0;
                ++p;
            } else if (*p == '"') {
                in_string = false;
            } else if ((unsigned char)*p < 0x20) {
                return 0;
            }
            continue;
        }
        if (*p == '"')
            in_string = true;
        else if (*p == '{' || *p == '[') {
            if (depth == 64)
                return 0;
            stack[depth++] = *p;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0 || stack[depth - 1] != (*p == '}' ? '{' : '['))
                return 0;
            --depth;
            if (depth == 0) {
                for (const char* q = p + 1; *q; ++q)
                    if (*q != '\n' && *q != ' ')
                        return 0;
                return 1;
            }
        }
    }
    return 0;
}

static char* read_file(const char* path)
{
    FILE* f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = malloc((size_t)size + 1);
    size_t got = fread(text, 1, (size_t)size, f);
    text[got] = 0;
    fclose(f);
    return text;
}

static int check_trace(uint32_t workers, uint32_t capacity, uint32_t jobs_count)
{
    vxk_jobs* jobs = make_jobs(workers, capacity);
    VXK_CHECK(jobs);
    uint32_t spin = 0;
    static const char* const names[3] = {"alpha", "beta", "quote\"name"};
    vxk_job_group group;
    vxk_job_group_init(&group);
    for (uint32_t i = 0; i < jobs_count; ++i) {
        vxk_job_desc d = {names[i % 3], named_job, &spin, NULL, 0, &group};
        VXK_CHECK(vxk_jobs_submit(jobs, &d).generation != 0);
    }
    vxk_jobs_wait_group(jobs, &group);
    char path[256];
    snprintf(path, sizeof(path), "/tmp/vxk_test_trace_%d_%u.json", (int)getpid(), workers);
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(jobs, path), 0);
    char* text = read_file(path);
    VXK_CHECK(text);
    VXK_CHECK(json_is_valid(text));
    VXK_CHECK(strncmp(text, "{\"traceEvents\":[", 16) == 0);
    uint32_t expected = 0;
    if (capacity >= jobs_count) {
        expected = jobs_count;
    } else {
        // Each thread's ring keeps its last `capacity` events.
        for (uint32_t t = 0; t < vxk_jobs_thread_count(jobs); ++t) {
            uint64_t w = jobs->threads[t].trace_written;
            expected += (uint32_t)(w < capacity ? w : capacity);
        }
    }
    VXK_CHECK_EQ_U64(count_occurrences(text, "\"ph\":\"X\""), expected);
    VXK_CHECK_EQ_U64(count_occurrences(text, "\"ph\":\"M\""), vxk_jobs_thread_count(jobs));
    VXK_CHECK_EQ_U64(count_occurrences(text, "\"name\":\"thread_name\""),
                     vxk_jobs_thread_count(jobs));
    VXK_CHECK_EQ_U64(count_occurrences(text, "\"dur\":"), expected);
    free(text);
    remove(path);

    vxk_job_summary summary[4];
    uint32_t names_found = vxk_jobs_get_summaries(jobs, summary, 4);
    VXK_CHECK_EQ_U64(names_found, 3);
    uint64_t total_count = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        total_count += summary[i].count;
        VXK_CHECK(summary[i].total_seconds >= 0.0);
        VXK_CHECK(summary[i].mean_seconds * (double)summary[i].count <=
                  summary[i].total_seconds * (1 + 1e-9) + 1e-12);
        if (i)
            VXK_CHECK(summary[i - 1].total_seconds >= summary[i].total_seconds);
        if (capacity >= jobs_count)
            VXK_CHECK_EQ_U64(summary[i].count, jobs_count / 3);
    }
    VXK_CHECK_EQ_U64(total_count, expected);
    vxk_jobs_clear_trace(jobs);
    VXK_CHECK_EQ_U64(vxk_jobs_get_summaries(jobs, summary, 4), 0);
    vxk_jobs_destroy(jobs);
    return 0;
}

static int test_trace_export(void)
{
    if (check_trace(2, 4096, 999))
        return 1;
    if (check_trace(1, 100, 999)) // ring overflow: oldest events dropped
        return 1;
    return check_trace(3, 300, 3000);
}

// ---- sleeping workers wake for new work ---------------------------------------------------

typedef struct flag_ctx {
    _Atomic uint32_t done;
    _Atomic uint32_t ran_on;
} flag_ctx;

static void flag_job(void* ctx, uint32_t thread)
{
    flag_ctx* c = ctx;
    atomic_store(&c->ran_on, thread);
    atomic_store(&c->done, 1);
}

static int wait_for_sleepers(vxk_jobs* jobs, uint32_t expected)
{
    for (int i = 0; i < 20000; ++i) {
        if (atomic_load(&jobs->sleeping_workers) == expected)
            return 1;
        sleep_ms(1);
    }
    return 0;
}

typedef struct wake_arg {
    vxk_jobs* jobs;
    int rounds;
    int failed_round;
    uint32_t ran_on;
} wake_arg;

// An external thread waits until both background workers sleep, submits, and then polls a flag
// without waiting through the scheduler: only a woken worker can run the job.
static void* wake_main(void* p)
{
    wake_arg* arg = p;
    for (int round = 0; round < arg->rounds; ++round) {
        flag_ctx flag = {0, 0};
        if (!wait_for_sleepers(arg->jobs, 2)) {
            arg->failed_round = round;
            return NULL;
        }
        vxk_job_desc d = {"flag", flag_job, &flag, NULL, 0, NULL};
        if (vxk_jobs_submit(arg->jobs, &d).generation == 0) {
            arg->failed_round = round;
            return NULL;
        }
        int polls = 0;
        while (!atomic_load(&flag.done) && polls++ < 20000)
            sleep_ms(1);
        arg->ran_on = atomic_load(&flag.ran_on);
        if (!atomic_load(&flag.done) || (arg->ran_on != 1 && arg->ran_on != 2)) {
            arg->failed_round = round;
            return NULL;
        }
    }
    return NULL;
}

static int test_sleeping_workers_wake(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 3;
    def.spin_count = 50;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    wake_arg arg = {jobs, VXK_TEST_SLOW ? 20 : 100, -1, 0};
    pthread_t t;
    VXK_CHECK(pthread_create(&t, NULL, wake_main, &arg) == 0);
    pthread_join(t, NULL);
    VXK_CHECK_MSG(arg.failed_round < 0, "round %d: no wake-up (job ran on %u)", arg.failed_round,
                  arg.ran_on);
    // Idle again: every background worker sleeps (an idle scheduler uses no CPU).
    VXK_CHECK(wait_for_sleepers(jobs, 2));
    vxk_jobs_destroy(jobs);
    return 0;
}

// ---- two schedulers used from the same threads ---------------------------------------------

typedef struct cross_ctx {
    vxk_jobs* a;
    vxk_jobs* b;
    _Atomic uint32_t mismatches;
    _Atomic uint32_t runs;
} cross_ctx;

static void cross_inner(void* ctx, uint32_t thread)
{
    cross_ctx* c = ctx;
    if (vxk_jobs_thread_index(c->b) != thread)
        atomic_fetch_add(&c->mismatches, 1);
    atomic_fetch_add(&c->runs, 1);
}

// Runs on scheduler a, uses scheduler b, then checks its index on a is unchanged.
static void cross_outer(void* ctx, uint32_t thread)
{
    cross_ctx* c = ctx;
    vxk_job_desc d = {"cross_inner", cross_inner, c, NULL, 0, NULL};
    vxk_jobs_wait(c->b, vxk_jobs_submit(c->b, &d));
    if (vxk_jobs_thread_index(c->a) != thread)
        atomic_fetch_add(&c->mismatches, 1);
    atomic_fetch_add(&c->runs, 1);
}

static int test_two_schedulers(void)
{
    vxk_jobs* a = make_jobs(3, 0);
    vxk_jobs* b = make_jobs(2, 0);
    VXK_CHECK(a && b);
    cross_ctx c = {a, b, 0, 0};
    vxk_job_group group;
    vxk_job_group_init(&group);
    const uint32_t n = 400;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_job_desc d = {"cross_outer", cross_outer, &c, NULL, 0, &group};
        VXK_CHECK(vxk_jobs_submit(a, &d).generation != 0);
    }
    vxk_jobs_wait_group(a, &group);
    VXK_CHECK_EQ_U64(atomic_load(&c.runs), 2 * n);
    VXK_CHECK_EQ_U64(atomic_load(&c.mismatches), 0);
    VXK_CHECK_EQ_U64(vxk_jobs_thread_index(a), 0); // the creating thread of both
    VXK_CHECK_EQ_U64(vxk_jobs_thread_index(b), 0);
    vxk_jobs_destroy(b);
    vxk_jobs_destroy(a);
    return 0;
}

// ---- bad input ----------------------------------------------------------------------------

typedef struct gate_ctx {
    _Atomic uint32_t open;
    once_ctx* once;
} gate_ctx;

// Holds its dependents back until the test opens it.
static void gate_job(void* ctx, uint32_t thread)
{
    gate_ctx* c = ctx;
    while (!atomic_load(&c->open))
        sleep_ms(1);
    once_job(c->once, thread);
}

// ---- the allocator hook -------------------------------------------------------------------

// Counts the bytes it holds and refuses the allocation numbered fail_at (1-based; 0: none).
typedef struct count_alloc {
    _Atomic int64_t bytes;
    _Atomic uint64_t calls;
    uint64_t fail_at;
} count_alloc;

static void* count_alloc_fn(size_t size, void* user)
{
    count_alloc* c = user;
    uint64_t n = atomic_fetch_add(&c->calls, 1) + 1;
    if (n == c->fail_at)
        return NULL;
    void* p = aligned_alloc(16, (size + 15) & ~(size_t)15);
    if (p)
        atomic_fetch_add(&c->bytes, (int64_t)size);
    return p;
}

static void count_free(void* pointer, size_t size, void* user)
{
    count_alloc* c = user;
    atomic_fetch_sub(&c->bytes, (int64_t)size);
    free(pointer);
}

static void pfor_touch(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    _Atomic uint32_t* hits = ctx;
    (void)thread;
    for (uint32_t i = begin; i < end; ++i)
        atomic_fetch_add(&hits[i], 1);
}

// Every allocation goes through the def's hook: a scheduler that worked (deques grown, scratch,
// traces, dependency walks, parallel_for) gives back every byte it took, and an allocation that
// fails at any point of create returns VXK_JOBS_ERR_OUT_OF_MEMORY with nothing held.
static int test_allocator_hook(void)
{
    count_alloc c = {0, 0, 0};
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    def.max_jobs = 4096;
    def.trace_capacity = 64;
    def.allocator = (vxk_jobs_allocator){count_alloc_fn, count_free, &c};
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), VXK_JOBS_OK);
    uint64_t create_calls = atomic_load(&c.calls);
    VXK_CHECK(create_calls > 0 && atomic_load(&c.bytes) > 0);
    _Atomic uint32_t hits[3000];
    for (int i = 0; i < 3000; ++i)
        atomic_init(&hits[i], 0);
    _Atomic uint32_t runs[1] = {0};
    once_ctx once = {runs, 0};
    vxk_job prev = {0, 0};
    for (int i = 0; i < 3000; ++i) { // a long chain grows the deque beyond 1024 entries
        vxk_job_desc d = {"x", once_job, &once, &prev, prev.generation ? 1 : 0, NULL};
        prev = vxk_jobs_submit(jobs, &d);
    }
    vxk_jobs_wait(jobs, prev);
    vxk_parallel_for(jobs, "touch", 3000, 7, pfor_touch, hits);
    void* scratch = vxk_jobs_scratch_alloc(jobs, 0, 1024, 16);
    VXK_CHECK(scratch);
    vxk_job_summary summary[4];
    VXK_CHECK(vxk_jobs_get_summaries(jobs, summary, 4) >= 1);
    vxk_jobs_destroy(jobs);
    VXK_CHECK_EQ_U64(atomic_load(&runs[0]), 3000);
    for (int i = 0; i < 3000; ++i)
        VXK_CHECK_EQ_U64(atomic_load(&hits[i]), 1);
    VXK_CHECK(atomic_load(&c.calls) > create_calls);
    VXK_CHECK_EQ_INT(atomic_load(&c.bytes), 0);
    for (uint64_t k = 1; k <= create_calls; ++k) {
        count_alloc f = {0, 0, k};
        def.allocator.user = &f;
        jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), VXK_JOBS_ERR_OUT_OF_MEMORY);
        VXK_CHECK(jobs == NULL);
        VXK_CHECK_EQ_INT(atomic_load(&f.bytes), 0);
    }
    return 0;
}

static int test_bad_input(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    vxk_jobs* jobs = NULL;
    def.cookie = 0;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), VXK_JOBS_ERR_BAD_DEF);
    VXK_CHECK(jobs == NULL);
    def = vxk_default_jobs_def();
    def.max_jobs = 0;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), VXK_JOBS_ERR_BAD_DEF);
    def = vxk_default_jobs_def();
    def.allocator.free = count_free; // one function without the other
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), VXK_JOBS_ERR_BAD_DEF);
    VXK_CHECK_EQ_INT(vxk_jobs_create(NULL, &jobs), VXK_JOBS_ERR_INVALID_ARGUMENT);
    def = vxk_default_jobs_def();
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, NULL), VXK_JOBS_ERR_INVALID_ARGUMENT);
    def.worker_count = 2;
    def.max_jobs = 100;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    VXK_CHECK(vxk_jobs_submit(jobs, NULL).generation == 0);
    vxk_job_desc no_fn = {"x", NULL, NULL, NULL, 0, NULL};
    VXK_CHECK(vxk_jobs_submit(jobs, &no_fn).generation == 0);
    _Atomic uint32_t runs[1] = {0};
    once_ctx once = {runs, 0};
    vxk_job_desc no_deps = {"x", once_job, &once, NULL, 3, NULL};
    VXK_CHECK(vxk_jobs_submit(jobs, &no_deps).generation == 0);
    vxk_jobs_wait(jobs, (vxk_job){0, 0});
    vxk_jobs_wait(jobs, (vxk_job){0xFFFFFFF0u, 5}); // out of range: treated as finished
    vxk_jobs_wait(NULL, (vxk_job){1, 1});
    vxk_jobs_wait_group(jobs, NULL);
    vxk_parallel_for(jobs, "none", 0, 10, NULL, NULL);
    // Stale dependencies and stale waits: a finished job's slot is reused with a new generation.
    vxk_job_desc d = {"x", once_job, &once, NULL, 0, NULL};
    vxk_job first = vxk_jobs_submit(jobs, &d);
    vxk_jobs_wait(jobs, first);
    for (int i = 0; i < 300; ++i) {
        vxk_job_desc dep = {"x", once_job, &once, &first, 1, NULL};
        vxk_job later = vxk_jobs_submit(jobs, &dep);
        VXK_CHECK(later.generation != 0);
        vxk_jobs_wait(jobs, first);
        vxk_jobs_wait(jobs, later);
    }
    VXK_CHECK_EQ_U64(atomic_load(&runs[0]), 301);
    // Capacity: with 100 live jobs a submit may fail with the null handle, never crash.
    vxk_job_group group;
    vxk_job_group_init(&group);
    gate_ctx gate = {0, &once};
    vxk_job held = vxk_jobs_submit(jobs, &(vxk_job_desc){"gate", gate_job, &gate, NULL, 0, NULL});
    uint32_t accepted = 0, refused = 0;
    for (int i = 0; i < 5000; ++i) {
        vxk_job_desc gated = {"x", once_job, &once, &held, 1, &group};
        if (vxk_jobs_submit(jobs, &gated).generation)
            ++accepted;
        else
            ++refused;
    }
    atomic_store(&gate.open, 1);
    vxk_jobs_wait_group(jobs, &group);
    VXK_CHECK(accepted >= 100 && refused > 0);
    VXK_CHECK_EQ_U64(atomic_load(&runs[0]), 301 + 1 + accepted);
    vxk_jobs_destroy(jobs);
    vxk_jobs_destroy(NULL);
    return 0;
}

// ---- adversarial stress: wake-ups, dependency races, destroy, nesting, lifetimes ------------

// Hang guard: waits up to about ms milliseconds for *flag >= value. Never a timing assertion: a
// correct scheduler sets the flag long before; a lost wake-up never sets it.
static int poll_flag_ms(_Atomic uint32_t* flag, uint32_t value, int ms)
{
    for (int i = 0; i < 2000; ++i) {
        if (atomic_load(flag) >= value)
            return 1;
        sched_yield();
    }
    for (int i = 0; i < ms; ++i) {
        if (atomic_load(flag) >= value)
            return 1;
        sleep_ms(1);
    }
    return atomic_load(flag) >= value;
}

static int wait_for_waiters(vxk_jobs* jobs, uint32_t expected)
{
    for (int i = 0; i < 20000; ++i) {
        if (atomic_load(&jobs->sleeping_waiters) >= expected)
            return 1;
        sleep_ms(1);
    }
    return 0;
}

typedef struct stall_ctx {
    _Atomic uint32_t running;
    _Atomic uint32_t released;
    _Atomic uint32_t timed_out;
} stall_ctx;

// Occupies its thread until the late job has run (a 5 s guard keeps a broken scheduler from
// hanging the test).
static void stall_gate(void* ctx, uint32_t thread)
{
    (void)thread;
    stall_ctx* c = ctx;
    atomic_fetch_add(&c->running, 1);
    if (!poll_flag_ms(&c->released, 1, 5000))
        atomic_store(&c->timed_out, 1);
}

static void stall_release(void* ctx, uint32_t thread)
{
    (void)thread;
    atomic_store(&((stall_ctx*)ctx)->released, 1);
}

typedef struct stall_arg {
    vxk_jobs* jobs;
    stall_ctx* c;
    vxk_job_group* group;
    int ok;
} stall_arg;

// Runs one gate job itself (with one worker there is no background thread to run it).
static void* stall_gate_main(void* p)
{
    stall_arg* a = p;
    vxk_job_desc d = {"gate", stall_gate, a->c, NULL, 0, a->group};
    vxk_job h = vxk_jobs_submit(a->jobs, &d);
    vxk_jobs_wait(a->jobs, h);
    a->ok = h.generation != 0;
    return NULL;
}

// Once the main thread sleeps in its wait, submits the job that releases the gates and leaves.
static void* stall_late_main(void* p)
{
    stall_arg* a = p;
    if (!wait_for_waiters(a->jobs, 1))
        return NULL;
    sleep_ms(3); // let the waiter get into the futex
    vxk_job_desc d = {"release", stall_release, a->c, NULL, 0, NULL};
    a->ok = vxk_jobs_submit(a->jobs, &d).generation != 0;
    return NULL;
}

// Every thread that could run jobs is busy or asleep in a wait when an external thread submits:
// the waiting thread must wake and run the new job (a wait runs other ready jobs), else the gates
// it waits for never open.
static int test_submit_while_all_wait(void)
{
    for (uint32_t wc = 1; wc <= 3; ++wc) {
        vxk_jobs_def def = vxk_default_jobs_def();
        def.worker_count = wc;
        def.spin_count = 20;
        vxk_jobs* jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
        for (int round = 0; round < 3; ++round) {
            stall_ctx c = {0, 0, 0};
            vxk_job_group group;
            vxk_job_group_init(&group);
            stall_arg gate = {jobs, &c, &group, 0}, late = {jobs, &c, NULL, 0};
            pthread_t gate_thread, late_thread;
            if (wc == 1) {
                VXK_CHECK(pthread_create(&gate_thread, NULL, stall_gate_main, &gate) == 0);
            } else {
                // One gate per background worker; the main thread runs nothing until it waits.
                for (uint32_t i = 1; i < wc; ++i) {
                    vxk_job_desc d = {"gate", stall_gate, &c, NULL, 0, &group};
                    VXK_CHECK(vxk_jobs_submit(jobs, &d).generation != 0);
                }
            }
            uint32_t gates = wc == 1 ? 1 : wc - 1;
            VXK_CHECK(poll_flag_ms(&c.running, gates, 10000));
            VXK_CHECK(pthread_create(&late_thread, NULL, stall_late_main, &late) == 0);
            vxk_jobs_wait_group(jobs, &group);
            pthread_join(late_thread, NULL);
            if (wc == 1) {
                pthread_join(gate_thread, NULL);
                VXK_CHECK(gate.ok);
            }
            VXK_CHECK(late.ok);
            VXK_CHECK_MSG(atomic_load(&c.timed_out) == 0,
                          "workers %u round %d: the waiting thread slept through a submit", wc,
                          round);
            VXK_CHECK_EQ_U64(atomic_load(&c.released), 1);
        }
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

typedef struct ping_arg {
    vxk_jobs* jobs;
    uint64_t seed;
    int rounds;
    int failed_round;
} ping_arg;

// Submits one job at a time and polls its flag outside the scheduler, after random pauses, so
// the submit lands at every point of the workers' spin-then-sleep path.
static void* ping_main(void* p)
{
    ping_arg* a = p;
    uint64_t rng = a->seed;
    for (int round = 0; round < a->rounds; ++round) {
        flag_ctx flag = {0, 0};
        vxk_job_desc d = {"ping", flag_job, &flag, NULL, 0, NULL};
        uint32_t pause = (uint32_t)(vxk_test_rand(&rng) % 64);
        if (pause < 40) {
            for (volatile uint32_t i = 0; i < pause * 50; i = i + 1) {
            }
        } else if (pause < 62) {
            sched_yield();
        } else {
            sleep_ms(1);
        }
        if (vxk_jobs_submit(a->jobs, &d).generation == 0 || !poll_flag_ms(&flag.done, 1, 10000)) {
            a->failed_round = round;
            return NULL;
        }
        // Neither submitter runs jobs: a background worker (1 or 2) must have woken for it.
        uint32_t ran_on = atomic_load(&flag.ran_on);
        if (ran_on != 1 && ran_on != 2) {
            a->failed_round = round;
            return NULL;
        }
    }
    return NULL;
}

static int test_wake_stress(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 3;
    def.spin_count = 1; // workers fall asleep almost at once
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    int rounds = VXK_TEST_SLOW ? 400 : 4000;
    ping_arg external = {jobs, 11, rounds, -1}, own = {jobs, 12, rounds, -1};
    pthread_t t;
    VXK_CHECK(pthread_create(&t, NULL, ping_main, &external) == 0);
    ping_main(&own); // thread 0 pushes to its own deque, the external thread to the inject queue
    pthread_join(t, NULL);
    VXK_CHECK_MSG(external.failed_round < 0, "external submitter: round %d not run",
                  external.failed_round);
    VXK_CHECK_MSG(own.failed_round < 0, "thread 0 submitter: round %d not run", own.failed_round);
    vxk_jobs_destroy(jobs);
    return 0;
}

typedef struct race_pair {
    _Atomic uint32_t a_done;
    _Atomic uint32_t a_runs;
    _Atomic uint32_t b_runs;
    _Atomic uint32_t b_early; // B started before A returned
    uint32_t spin;
} race_pair;

static void race_a(void* ctx, uint32_t thread)
{
    (void)thread;
    race_pair* p = ctx;
    for (volatile uint32_t i = 0; i < p->spin; i = i + 1) {
    }
    atomic_fetch_add(&p->a_runs, 1);
    atomic_store(&p->a_done, 1);
}

static void race_b(void* ctx, uint32_t thread)
{
    (void)thread;
    race_pair* p = ctx;
    if (!atomic_load(&p->a_done))
        atomic_fetch_add(&p->b_early, 1);
    atomic_fetch_add(&p->b_runs, 1);
}

typedef struct race_arg {
    vxk_jobs* jobs;
    race_pair* pairs;
    uint32_t count;
    uint64_t seed;
    int failed;
} race_arg;

// Submits pairs (A, B) with B depending on A just submitted (often finishing while B attaches),
// on the previous B (often finished), on a long-finished A (its slot reused, the handle stale),
// on A twice and on the null handle.
static void race_drive(race_arg* a)
{
    uint64_t rng = a->seed;
    vxk_job prev_b = {0, 0}, old_a = {0, 0};
    vxk_job_group group;
    vxk_job_group_init(&group);
    for (uint32_t i = 0; i < a->count; ++i) {
        race_pair* p = &a->pairs[i];
        p->spin = (uint32_t)(vxk_test_rand(&rng) % 48);
        vxk_job_desc da = {"race_a", race_a, p, NULL, 0, &group};
        vxk_job ha = vxk_jobs_submit(a->jobs, &da);
        if (vxk_test_rand(&rng) % 2)
            sched_yield();
        vxk_job deps[5] = {ha, prev_b, old_a, ha, {0, 0}};
        vxk_job_desc db = {"race_b", race_b, p, deps, 5, &group};
        vxk_job hb = vxk_jobs_submit(a->jobs, &db);
        if (ha.generation == 0 || hb.generation == 0)
            a->failed = 1;
        prev_b = hb;
        if (i % 100 == 0)
            old_a = ha;
        if (i % 256 == 255)
            vxk_jobs_wait_group(a->jobs, &group);
    }
    vxk_jobs_wait_group(a->jobs, &group);
}

static void* race_main(void* p)
{
    race_drive(p);
    return NULL;
}

static void race_job(void* ctx, uint32_t thread)
{
    (void)thread;
    race_drive(ctx);
}

static int test_dependency_races(void)
{
    const uint32_t per = VXK_TEST_SLOW ? 1500 : 15000;
    const uint32_t worker_counts[] = {2, 3};
    for (int w = 0; w < 2; ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w], 0);
        VXK_CHECK(jobs);
        enum { drivers = 4 };
        race_pair* pairs = calloc((size_t)drivers * per, sizeof(race_pair));
        race_arg args[drivers];
        for (int d = 0; d < drivers; ++d)
            args[d] = (race_arg){jobs, pairs + (size_t)d * per, per, 1000u + (uint64_t)d, 0};
        pthread_t threads[2];
        for (int d = 0; d < 2; ++d)
            VXK_CHECK(pthread_create(&threads[d], NULL, race_main, &args[d]) == 0);
        // One driver runs inside a job (a worker submitting to its own deque), one on thread 0.
        vxk_job_desc dj = {"race_driver", race_job, &args[2], NULL, 0, NULL};
        vxk_job driver = vxk_jobs_submit(jobs, &dj);
        race_drive(&args[3]);
        vxk_jobs_wait(jobs, driver);
        for (int d = 0; d < 2; ++d)
            pthread_join(threads[d], NULL);
        for (int d = 0; d < drivers; ++d)
            VXK_CHECK_EQ_INT(args[d].failed, 0);
        for (uint32_t i = 0; i < drivers * per; ++i) {
            VXK_CHECK_MSG(atomic_load(&pairs[i].a_runs) == 1 && atomic_load(&pairs[i].b_runs) == 1,
                          "pair %u ran %u/%u times", i, atomic_load(&pairs[i].a_runs),
                          atomic_load(&pairs[i].b_runs));
            VXK_CHECK_MSG(atomic_load(&pairs[i].b_early) == 0, "pair %u: B ran before A", i);
        }
        vxk_jobs_destroy(jobs);
        free(pairs);
    }
    return 0;
}

typedef struct spawn_ctx {
    vxk_jobs* jobs;
    _Atomic uint32_t* count;
} spawn_ctx;

static void count_job(void* ctx, uint32_t thread)
{
    (void)thread;
    atomic_fetch_add(((spawn_ctx*)ctx)->count, 1);
}

// Submits children and returns without waiting for them.
static void spawn_job(void* ctx, uint32_t thread)
{
    (void)thread;
    spawn_ctx* c = ctx;
    for (int i = 0; i < 5; ++i) {
        vxk_job_desc d = {"child", count_job, c, NULL, 0, NULL};
        vxk_jobs_submit(c->jobs, &d);
    }
    atomic_fetch_add(c->count, 1);
}

static void* spawn_external_main(void* p)
{
    spawn_ctx* c = p;
    for (int i = 0; i < 20; ++i) {
        vxk_job_desc d = {"ext", count_job, c, NULL, 0, NULL};
        vxk_jobs_submit(c->jobs, &d);
    }
    return NULL; // leaves without waiting
}

// vxk_jobs_destroy right after submissions (chains, jobs that spawn jobs, fire-and-forget
// submits from a thread that has exited), sometimes while the workers sleep: every job runs
// exactly once before destroy returns.
static int test_destroy_right_after_submit(void)
{
    const int rounds = VXK_TEST_SLOW ? 40 : 300;
    enum { links = 20, spawners = 10 };
    uint64_t cells[links];
    chain_ctx chain[links];
    for (int round = 0; round < rounds; ++round) {
        vxk_jobs_def def = vxk_default_jobs_def();
        def.worker_count = 1 + (uint32_t)round % 4;
        def.spin_count = round % 3 ? 1 : 2000;
        def.max_jobs = 4096;
        vxk_jobs* jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
        if (round % 5 == 0 && def.worker_count > 1)
            VXK_CHECK(wait_for_sleepers(jobs, def.worker_count - 1));
        _Atomic uint32_t count = 0;
        spawn_ctx sc = {jobs, &count};
        uint32_t expected = 0;
        memset(cells, 0, sizeof(cells));
        if (round % 7 != 6) { // every 7th round destroys an untouched scheduler
            vxk_job prev = {0, 0};
            for (uint32_t i = 0; i < links; ++i) {
                chain[i] = (chain_ctx){cells, i};
                vxk_job_desc d = {"chain", chain_job, &chain[i], &prev, prev.generation ? 1 : 0,
                                  NULL};
                prev = vxk_jobs_submit(jobs, &d);
                VXK_CHECK(prev.generation != 0);
            }
            for (int i = 0; i < spawners; ++i) {
                vxk_job_desc d = {"spawn", spawn_job, &sc, NULL, 0, NULL};
                VXK_CHECK(vxk_jobs_submit(jobs, &d).generation != 0);
            }
            expected += spawners * 6;
            if (round % 4 == 1) {
                pthread_t t;
                VXK_CHECK(pthread_create(&t, NULL, spawn_external_main, &sc) == 0);
                pthread_join(t, NULL);
                expected += 20;
            }
        }
        vxk_jobs_destroy(jobs);
        VXK_CHECK_EQ_U64(atomic_load(&count), expected);
        if (round % 7 != 6) {
            uint64_t expect = 7;
            for (uint32_t i = 0; i < links; ++i) {
                expect = expect * 31 + i;
                VXK_CHECK_MSG(cells[i] == expect, "round %d: chain link %u", round, i);
            }
        }
    }
    return 0;
}

typedef struct deep_ctx {
    vxk_jobs* jobs;
    uint32_t level;
    uint32_t depth;
    _Atomic uint32_t* visits;
} deep_ctx;

// A chain of jobs, each waiting on the next, deeper than the nesting cap. Run from external
// threads (whose children go to the injection queue) and thread 0 at once.
static void deep_job(void* ctx, uint32_t thread)
{
    (void)thread;
    deep_ctx* c = ctx;
    atomic_fetch_add(c->visits, 1);
    if (c->level + 1 < c->depth) {
        deep_ctx child = {c->jobs, c->level + 1, c->depth, c->visits};
        vxk_job_desc d = {"deep", deep_job, &child, NULL, 0, NULL};
        vxk_jobs_wait(c->jobs, vxk_jobs_submit(c->jobs, &d));
    }
}

// parallel_for nested in parallel_for: piece 0 recurses, pieces 1 and 2 are leaves.
static void deep_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    deep_ctx* c = ctx;
    for (uint32_t k = begin; k < end; ++k) {
        if (k == 0 && c->level + 1 < c->depth) {
            deep_ctx child = {c->jobs, c->level + 1, c->depth, c->visits};
            vxk_parallel_for(c->jobs, "deep_for", 3, 1, deep_range, &child);
        } else {
            atomic_fetch_add(c->visits, 1);
        }
    }
}

typedef struct deep_arg {
    vxk_jobs* jobs;
    uint32_t depth;
    _Atomic uint32_t chain_visits;
    _Atomic uint32_t for_visits;
} deep_arg;

static void* deep_main(void* p)
{
    deep_arg* a = p;
    deep_ctx root = {a->jobs, 0, a->depth, &a->chain_visits};
    vxk_job_desc d = {"deep", deep_job, &root, NULL, 0, NULL};
    vxk_jobs_wait(a->jobs, vxk_jobs_submit(a->jobs, &d));
    deep_ctx for_root = {a->jobs, 0, a->depth, &a->for_visits};
    vxk_parallel_for(a->jobs, "deep_for", 3, 1, deep_range, &for_root);
    return NULL;
}

static int test_deep_nesting(void)
{
    const uint32_t depth = 300; // beyond VXK_JOBS_MAX_NEST (96)
    const uint32_t worker_counts[] = {1, 2, 3};
    // Rounds: the threads must all hit the nesting cap at once for the deadlock this guards
    // against (a capped thread that could not run the injection queue) to show.
    for (int w = 0; w < 3 * (VXK_TEST_SLOW ? 2 : 6); ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w % 3], 0);
        VXK_CHECK(jobs);
        deep_arg args[3];
        pthread_t threads[2];
        for (int i = 0; i < 3; ++i)
            args[i] = (deep_arg){jobs, depth, 0, 0};
        for (int i = 0; i < 2; ++i)
            VXK_CHECK(pthread_create(&threads[i], NULL, deep_main, &args[i]) == 0);
        deep_main(&args[2]);
        for (int i = 0; i < 2; ++i)
            pthread_join(threads[i], NULL);
        for (int i = 0; i < 3; ++i) {
            VXK_CHECK_EQ_U64(atomic_load(&args[i].chain_visits), depth);
            VXK_CHECK_EQ_U64(atomic_load(&args[i].for_visits), 2 * depth + 1);
        }
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

typedef struct lifetime_ctx {
    _Atomic uint32_t started;
    uint32_t spin;
} lifetime_ctx;

static void lifetime_job(void* ctx, uint32_t thread)
{
    (void)thread;
    lifetime_ctx* c = ctx;
    atomic_store(&c->started, 1);
    for (volatile uint32_t i = 0; i < c->spin; i = i + 1) {
    }
}

// Once vxk_jobs_wait says a job finished, the job no longer touches its group: a caller that
// waited on every handle may free the group at once (under ASan a late touch is a use after free).
static int test_group_outlives_handle_wait(void)
{
    vxk_jobs* jobs = make_jobs(2, 0);
    VXK_CHECK(jobs);
    const int rounds = VXK_TEST_SLOW ? 2000 : 20000;
    uint64_t rng = vxk_test_seed(5);
    uint32_t late = 0;
    for (int round = 0; round < rounds; ++round) {
        vxk_job_group* group = malloc(sizeof(vxk_job_group));
        vxk_job_group_init(group);
        lifetime_ctx c = {0, (uint32_t)(vxk_test_rand(&rng) % 32)};
        vxk_job_desc dj = {"life", lifetime_job, &c, NULL, 0, group};
        vxk_job j = vxk_jobs_submit(jobs, &dj);
        // A dependent gives the finishing worker continuation work to do.
        vxk_job_desc dk = {"life_next", lifetime_job, &(lifetime_ctx){0, 0}, &j, 1, NULL};
        vxk_job k = vxk_jobs_submit(jobs, &dk);
        VXK_CHECK(j.generation && k.generation);
        // Let the background worker take the job, so the wait below races its finish.
        VXK_CHECK(poll_flag_ms(&c.started, 1, 10000));
        vxk_jobs_wait(jobs, j);
        if (__atomic_load_n(&group->pending_do_not_touch, __ATOMIC_SEQ_CST) != 0)
            ++late;
        free(group);
        vxk_jobs_wait(jobs, k);
    }
    VXK_CHECK_MSG(late == 0, "%u of %d finished jobs still held their group", late, rounds);
    vxk_jobs_destroy(jobs);
    return 0;
}

typedef struct pfor_check {
    _Atomic uint32_t* hits;
    uint32_t count;
    uint32_t grain;
    uint32_t thread_count;
    _Atomic uint32_t bad;
} pfor_check;

static void pfor_mark(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    pfor_check* c = ctx;
    uint32_t expect_end = c->count - begin < c->grain ? c->count : begin + c->grain;
    // Every piece gets a valid index, also when the caller has no slot of its own (its pieces
    // then get the shared last one).
    bool thread_ok = thread < c->thread_count;
    if (begin % c->grain || end != expect_end || !thread_ok)
        atomic_fetch_add(&c->bad, 1);
    for (uint32_t i = begin; i < end; ++i)
        atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
}

typedef struct pfor_arg {
    vxk_jobs* jobs;
    uint64_t seed;
    int calls;
    int failed;
} pfor_arg;

static int pfor_once(pfor_arg* a, uint64_t* rng)
{
    uint32_t count = 1 + (uint32_t)(vxk_test_rand(rng) % 3000);
    uint32_t grain = (uint32_t)(vxk_test_rand(rng) % 5 ? vxk_test_rand(rng) % 40 : 0);
    pfor_check c = {calloc(count, sizeof(uint32_t)), count, grain ? grain : 1,
                    vxk_jobs_thread_count(a->jobs), 0};
    vxk_parallel_for(a->jobs, "pfor_check", count, grain, pfor_mark, &c);
    int ok = atomic_load(&c.bad) == 0;
    for (uint32_t i = 0; i < count; ++i)
        ok &= atomic_load(&c.hits[i]) == 1;
    free((void*)c.hits);
    return ok;
}

static void* pfor_main(void* p)
{
    pfor_arg* a = p;
    uint64_t rng = a->seed;
    for (int i = 0; i < a->calls; ++i)
        if (!pfor_once(a, &rng))
            a->failed = 1;
    return NULL;
}

static void pfor_job(void* ctx, uint32_t thread)
{
    (void)thread;
    pfor_main(ctx);
}

// Every piece exactly once with the documented cut, from thread 0, from external threads and
// from inside a job at once, with 66 workers (participants capped at 64) and with 3.
static int test_parallel_for_concurrent(void)
{
    const uint32_t worker_counts[] = {3, 66};
    for (int w = 0; w < 2; ++w) {
        vxk_jobs* jobs = make_jobs(worker_counts[w], 0);
        VXK_CHECK(jobs);
        int calls = VXK_TEST_SLOW ? 8 : 60;
        pfor_arg args[4];
        for (int i = 0; i < 4; ++i)
            args[i] = (pfor_arg){jobs, 77u + (uint64_t)i, calls, 0};
        pthread_t threads[2];
        for (int i = 0; i < 2; ++i)
            VXK_CHECK(pthread_create(&threads[i], NULL, pfor_main, &args[i]) == 0);
        vxk_job_desc d = {"pfor_driver", pfor_job, &args[2], NULL, 0, NULL};
        vxk_job driver = vxk_jobs_submit(jobs, &d);
        pfor_main(&args[3]);
        vxk_jobs_wait(jobs, driver);
        for (int i = 0; i < 2; ++i)
            pthread_join(threads[i], NULL);
        for (int i = 0; i < 4; ++i)
            VXK_CHECK_EQ_INT(args[i].failed, 0);
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

typedef struct slot_arg {
    vxk_jobs* jobs;
    pthread_barrier_t* barrier;
    vxk_job slow;
    uint32_t index;
    int own_job_ran;
    int failed;
} slot_arg;

static void* slot_main(void* p)
{
    slot_arg* a = p;
    pthread_barrier_wait(a->barrier);
    a->index = vxk_jobs_thread_index(a->jobs);
    pthread_barrier_wait(a->barrier); // every thread stays alive until all have registered
    _Atomic uint32_t runs[1] = {0};
    once_ctx once = {runs, 0};
    vxk_job_desc d = {"slot", once_job, &once, NULL, 0, NULL};
    vxk_job h = vxk_jobs_submit(a->jobs, &d);
    vxk_jobs_wait(a->jobs, h);
    a->own_job_ran = h.generation != 0 && atomic_load(&runs[0]) == 1;
    if (h.generation == 0) // threads without a slot of their own submit through the shared one
        a->failed = 1;
    vxk_jobs_wait(a->jobs, a->slow);
    pfor_arg pa = {a->jobs, a->index, 3, 0};
    pfor_main(&pa);
    a->failed |= pa.failed;
    return NULL;
}

// More external threads than slots register at once: each slot goes to exactly one thread; the
// others get UINT32_MAX from vxk_jobs_thread_index and work through the shared last slot: their
// submits succeed and their parallel_for pieces get that index.
static int test_external_slot_exhaustion(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    def.external_threads = 3;
    def.max_jobs = 4096;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    enum { count = 8 };
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, count);
    gate_ctx gate = {0, NULL};
    _Atomic uint32_t gate_runs[1] = {0};
    once_ctx gate_once = {gate_runs, 0};
    gate.once = &gate_once;
    vxk_job slow = vxk_jobs_submit(jobs, &(vxk_job_desc){"gate", gate_job, &gate, NULL, 0, NULL});
    VXK_CHECK(slow.generation != 0);
    slot_arg args[count];
    pthread_t threads[count];
    for (int t = 0; t < count; ++t) {
        args[t] = (slot_arg){jobs, &barrier, slow, 0, 0, 0};
        VXK_CHECK(pthread_create(&threads[t], NULL, slot_main, &args[t]) == 0);
    }
    sleep_ms(20);
    atomic_store(&gate.open, 1);
    for (int t = 0; t < count; ++t)
        pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&barrier);
    uint32_t seen = 0, unindexed = 0;
    for (int t = 0; t < count; ++t) {
        VXK_CHECK_EQ_INT(args[t].failed, 0);
        VXK_CHECK(args[t].own_job_ran);
        if (args[t].index == UINT32_MAX) {
            ++unindexed;
            continue;
        }
        VXK_CHECK(args[t].index >= 2 && args[t].index < 5);
        VXK_CHECK((seen & (1u << args[t].index)) == 0);
        seen |= 1u << args[t].index;
    }
    VXK_CHECK_EQ_U64(unindexed, count - 3);
    VXK_CHECK_EQ_U64(atomic_load(&gate_runs[0]), 1);
    vxk_jobs_destroy(jobs);
    return 0;
}

// ---- bad input ----------------------------------------------------------------------------------

static void edge_count_job(void* ctx, uint32_t thread)
{
    (void)thread;
    __atomic_fetch_add((uint32_t*)ctx, 1u, __ATOMIC_RELAXED);
}

static void count_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    __atomic_fetch_add((uint64_t*)ctx, (uint64_t)(end - begin), __ATOMIC_RELAXED);
}

static int test_jobs_edges(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    vxk_jobs* const canary = (vxk_jobs*)(uintptr_t)0xA5A5A5A0u;
    vxk_jobs* jobs = canary;
    VXK_CHECK_EQ_INT(vxk_jobs_create(NULL, &jobs), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_jobs_def bad;
    memset(&bad, 0, sizeof(bad));
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.cookie ^= 1u;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.max_jobs = 0;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.max_jobs = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.worker_count = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.external_threads = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    bad = def;
    bad.trace_capacity = UINT32_MAX;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&bad, &jobs), VXK_ERR_BAD_DEF);
    VXK_CHECK(jobs == canary);
    def.trace_capacity = 64;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);

    // Submissions that must be refused with the null handle.
    uint32_t counter = 0;
    vxk_job_desc desc = {"edge", edge_count_job, &counter, NULL, 0, NULL};
    vxk_job none = vxk_jobs_submit(jobs, NULL);
    VXK_CHECK(none.index == 0 && none.generation == 0);
    vxk_job_desc d = desc;
    d.fn = NULL;
    none = vxk_jobs_submit(jobs, &d);
    VXK_CHECK(none.generation == 0);
    d = desc;
    d.dep_count = 3;
    none = vxk_jobs_submit(jobs, &d);
    VXK_CHECK(none.generation == 0);
    none = vxk_jobs_submit(NULL, &desc);
    VXK_CHECK(none.generation == 0);
    VXK_CHECK_EQ_U64(counter, 0);
    // Null, stale and forged handles as dependencies and to wait on.
    vxk_job first = vxk_jobs_submit(jobs, &desc);
    VXK_CHECK(first.generation != 0);
    vxk_jobs_wait(jobs, first);
    vxk_jobs_wait(jobs, first); // finished: returns at once
    vxk_job forged[4] = {{0, 0}, first, {UINT32_MAX, 5}, {first.index, first.generation + 7}};
    vxk_jobs_wait(jobs, forged[2]);
    vxk_jobs_wait(jobs, forged[3]);
    vxk_jobs_wait(NULL, first);
    d = desc;
    d.deps = forged;
    d.dep_count = 4;
    vxk_job second = vxk_jobs_submit(jobs, &d);
    VXK_CHECK(second.generation != 0);
    vxk_jobs_wait(jobs, second);
    VXK_CHECK_EQ_U64(counter, 2);
    vxk_jobs_wait_group(jobs, NULL);
    vxk_jobs_wait_group(NULL, NULL);
    vxk_job_group_init(NULL);
    vxk_job_group group = {0, 0, 0, 0};
    vxk_jobs_wait_group(jobs, &group); // empty group

    // parallel_for: count 0, grain 0, huge grain, NULL fn or jobs.
    uint64_t sum = 0;
    vxk_parallel_for(jobs, "edge", 0, 4, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 0);
    vxk_parallel_for(jobs, "edge", 1000, 0, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 1000);
    vxk_parallel_for(jobs, "edge", 1000, UINT32_MAX, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 2000);
    vxk_parallel_for(jobs, "edge", 1000, 1, NULL, &sum);
    vxk_parallel_for(NULL, "edge", 1000, 1, count_range, &sum);
    VXK_CHECK_EQ_U64(sum, 2000);
    VXK_CHECK_EQ_U64(vxk_parallel_for_pieces(UINT32_MAX, 0), UINT32_MAX);
    VXK_CHECK_EQ_U64(vxk_parallel_for_pieces(UINT32_MAX, UINT32_MAX), 1);
    VXK_CHECK_EQ_U64(vxk_parallel_for_pieces(0, 7), 0);

    // Scratch: bad thread index, bad alignment, sizes beyond the arena, marks beyond the top.
    uint32_t self = vxk_jobs_thread_index(jobs);
    uint32_t threads = vxk_jobs_thread_count(jobs);
    VXK_CHECK(self < threads);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, threads, 16, 16) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, UINT32_MAX, 16, 16) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(NULL, 0, 16, 16) == NULL);
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, UINT32_MAX), 0);
    size_t mark = vxk_jobs_scratch_mark(jobs, self);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, 16, 3) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, SIZE_MAX, 16) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, def.scratch_bytes + 1, 1) == NULL);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, 16, (size_t)1 << 63) == NULL);
    void* p = vxk_jobs_scratch_alloc(jobs, self, 100, 64);
    VXK_CHECK(p != NULL && ((uintptr_t)p & 63u) == 0);
    VXK_CHECK(vxk_jobs_scratch_alloc(jobs, self, def.scratch_bytes, 1) == NULL);
    vxk_jobs_scratch_release(jobs, self, SIZE_MAX); // beyond the top: ignored
    VXK_CHECK(vxk_jobs_scratch_mark(jobs, self) > mark);
    vxk_jobs_scratch_release(jobs, UINT32_MAX, 0);
    vxk_jobs_scratch_release(jobs, self, mark);
    VXK_CHECK_EQ_U64(vxk_jobs_scratch_mark(jobs, self), mark);

    // Tracing.
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(jobs, NULL), -1);
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(NULL, "x.json"), -1);
    VXK_CHECK_EQ_INT(vxk_jobs_write_trace(jobs, "/nonexistent-dir/trace.json"), -1);
    vxk_job_summary summary[2];
    memset(summary, CANARY, sizeof(summary));
    uint32_t names = vxk_jobs_get_summaries(jobs, NULL, 0);
    VXK_CHECK(names >= 1);
    VXK_CHECK_EQ_U64(vxk_jobs_get_summaries(jobs, summary, 0), names);
    VXK_CHECK(all_canary(summary, sizeof(summary)));
    VXK_CHECK_EQ_U64(vxk_jobs_get_summaries(NULL, summary, 2), 0);
    vxk_jobs_destroy(jobs);
    vxk_jobs_destroy(NULL);
    return 0;
}

int main(void)
{
    VXK_RUN(test_bad_input);
    VXK_RUN(test_allocator_hook);
    VXK_RUN(test_each_job_runs_once);
    VXK_RUN(test_single_worker_order);
    VXK_RUN(test_random_dags);
    VXK_RUN(test_nested_waits);
    VXK_RUN(test_nested_parallel_for);
    VXK_RUN(test_million_tiny_jobs);
    VXK_RUN(test_many_external_threads);
    VXK_RUN(test_deterministic_reduction);
    VXK_RUN(test_scratch_arena);
    VXK_RUN(test_trace_export);
    VXK_RUN(test_two_schedulers);
    VXK_RUN(test_sleeping_workers_wake);
    VXK_RUN(test_submit_while_all_wait);
    VXK_RUN(test_wake_stress);
    VXK_RUN(test_dependency_races);
    VXK_RUN(test_destroy_right_after_submit);
    VXK_RUN(test_deep_nesting);
    VXK_RUN(test_group_outlives_handle_wait);
    VXK_RUN(test_parallel_for_concurrent);
    VXK_RUN(test_external_slot_exhaustion);
    vxk_edge_tests_begin();
    VXK_RUN(test_jobs_edges);
    vxk_edge_tests_end();
    return vxk_test_finish();
}
