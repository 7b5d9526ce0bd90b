// test_jobs_contracts.c: the scheduler's promises under hostile use, each under a watchdog that
// fails the test (instead of hanging ctest) when a wait never returns:
// - every parallel read and write of the public API from a thread that finds no free slot;
// - external slots come back when their threads exit (distinct pthread_t for every thread);
// - waits on acyclic wait graphs never deadlock (the P/J/K/L case, random graphs with
//   dependencies, waits inside jobs, children and groups, for 1 to 4 workers);
// - nesting stays bounded on every path (a 60,000-deep chain of jobs that each submit a child
//   and wait on it), and the cap cannot strand an awaited job in a blocked thread's deque;
// - the fence-based Chase-Lev deque under many thieves (the Release and ASan builds run the
//   fences that ship; TSan sees its own variant).
#define _GNU_SOURCE
#include "test.h"

#include <vxk/broadphase.h>
#include <vxk/jobs.h>
#include <vxk/raycast.h>
#include <vxk/world.h>
#include <vxk/worldgen.h>

#include "deque.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// ---- watchdog -----------------------------------------------------------------------------

typedef struct watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    int seconds;
    const char* what;
} watchdog;

static void* watchdog_main(void* p)
{
    watchdog* w = p;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += w->seconds;
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        if (pthread_cond_timedwait(&w->cond, &w->lock, &until) != 0 && !w->done) {
            fprintf(stderr, "watchdog: %s did not finish within %d s (deadlock)\n", w->what,
                    w->seconds);
            fflush(stderr);
            _exit(1);
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static void watchdog_start(watchdog* w, int seconds, const char* what)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->done = 0;
    w->seconds = seconds * (VXK_TEST_SLOW ? 4 : 1);
    w->what = what;
    pthread_create(&w->thread, NULL, watchdog_main, w);
}

static void watchdog_stop(watchdog* w)
{
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

// ---- 1. every parallel entry point from threads without a slot ---------------------------

enum { READ_RAYS = 700, READ_BOXES = 300, READ_HITS = 1 << 16 };

typedef struct world_reads {
    vxk_ray rays[READ_RAYS];
    vxk_aabb boxes[READ_BOXES];
} world_reads;

typedef struct read_results {
    vxk_status ray_status, box_status;
    vxk_ray_hit hits[READ_RAYS];
    uint32_t offsets[READ_BOXES + 1];
    vxk_broadphase_hit* box_hits;
} read_results;

static void run_reads(const vxk_world* world, const world_reads* in, read_results* out)
{
    memset(out->hits, 0, sizeof(out->hits));
    out->ray_status = vxk_raycast_batch(world, out->hits, in->rays, READ_RAYS);
    out->box_status = vxk_broadphase_query_batch(world, out->box_hits, READ_HITS, out->offsets,
                                                 in->boxes, READ_BOXES);
}

static int same_results(const read_results* a, const read_results* b)
{
    VXK_CHECK_EQ_INT(a->ray_status, VXK_OK);
    VXK_CHECK_EQ_INT(b->ray_status, VXK_OK);
    VXK_CHECK_EQ_INT(a->box_status, VXK_OK);
    VXK_CHECK_EQ_INT(b->box_status, VXK_OK);
    VXK_CHECK(memcmp(a->hits, b->hits, sizeof(a->hits)) == 0);
    VXK_CHECK(memcmp(a->offsets, b->offsets, sizeof(a->offsets)) == 0);
    VXK_CHECK(memcmp(a->box_hits, b->box_hits, a->offsets[READ_BOXES] * sizeof(*a->box_hits)) == 0);
    return 0;
}

typedef struct holder_arg {
    vxk_world* world;
    const world_reads* in;
    pthread_barrier_t* registered;
    pthread_barrier_t* release;
    read_results out;
} holder_arg;

// Takes an external slot of the world's scheduler (through a batch read) and keeps it, alive,
// until released.
static void* holder_main(void* p)
{
    holder_arg* a = p;
    run_reads(a->world, a->in, &a->out);
    pthread_barrier_wait(a->registered);
    pthread_barrier_wait(a->release);
    return NULL;
}

typedef struct slotless_arg {
    vxk_world* world;
    const world_reads* in;
    bool writes;
    read_results out;
    vxk_status build, update, gen, step;
} slotless_arg;

static void* slotless_main(void* p)
{
    slotless_arg* a = p;
    run_reads(a->world, a->in, &a->out);
    if (!a->writes)
        return NULL;
    // The writes that run on the world's jobs too (exclusive: no other call runs meanwhile).
    a->build = vxk_broadphase_build(a->world);
    vxk_int3 dirty[2] = {{0, 0, 0}, {1, 0, 1}};
    a->update = vxk_broadphase_update(a->world, dirty, 2);
    vxk_worldgen_def gen = vxk_default_worldgen_def();
    gen.size_x = 40;
    gen.size_y = 24;
    gen.size_z = 40;
    gen.seed = 7;
    a->gen = vxk_worldgen_run(a->world, &gen);
    a->step = vxk_world_step(a->world, 0.0f);
    return NULL;
}

static int test_slotless_world_calls(void)
{
    vxk_world_def def = vxk_default_world_def(); // its own 1-worker scheduler, 8 external slots
    vxk_world* world = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &world), VXK_OK);
    vxk_worldgen_def gen = vxk_default_worldgen_def();
    gen.size_x = 96;
    gen.size_y = 48;
    gen.size_z = 96;
    VXK_CHECK_EQ_INT(vxk_worldgen_run(world, &gen), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(world), VXK_OK);
    world_reads* in = malloc(sizeof(world_reads));
    uint64_t rng = vxk_test_seed(0x51075);
    for (int i = 0; i < READ_RAYS; ++i) {
        in->rays[i].origin = (vxk_vec3){vxk_test_randf(&rng, 0, 96), vxk_test_randf(&rng, 30, 60),
                                        vxk_test_randf(&rng, 0, 96)};
        in->rays[i].direction =
            (vxk_vec3){vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, -1, -0.1f),
                       vxk_test_randf(&rng, -1, 1)};
        in->rays[i].max_distance = 200.0f;
    }
    for (int i = 0; i < READ_BOXES; ++i) {
        vxk_vec3 c = {vxk_test_randf(&rng, 0, 96), vxk_test_randf(&rng, 0, 48),
                      vxk_test_randf(&rng, 0, 96)};
        float r = vxk_test_randf(&rng, 0.5f, 6);
        in->boxes[i] = (vxk_aabb){{c.x - r, c.y - r, c.z - r}, {c.x + r, c.y + r, c.z + r}};
    }
    read_results* ref = malloc(sizeof(read_results));
    ref->box_hits = malloc(READ_HITS * sizeof(vxk_broadphase_hit));
    run_reads(world, in, ref); // the creating thread: thread 0

    enum { holders = 8 };
    pthread_barrier_t registered, release;
    pthread_barrier_init(&registered, NULL, holders + 1);
    pthread_barrier_init(&release, NULL, holders + 1);
    holder_arg* h = calloc(holders, sizeof(holder_arg));
    pthread_t ht[holders];
    for (int i = 0; i < holders; ++i) {
        h[i] = (holder_arg){world, in, &registered, &release, {0}};
        h[i].out.box_hits = malloc(READ_HITS * sizeof(vxk_broadphase_hit));
        VXK_CHECK(pthread_create(&ht[i], NULL, holder_main, &h[i]) == 0);
    }
    pthread_barrier_wait(&registered);
    for (int i = 0; i < holders; ++i)
        VXK_CHECK(same_results(ref, &h[i].out) == 0);
    // Every external slot is held by a live thread: the next threads get none of their own.
    slotless_arg s[2];
    pthread_t st[2];
    for (int i = 0; i < 2; ++i) {
        memset(&s[i], 0, sizeof(s[i]));
        s[i].world = world;
        s[i].in = in;
        s[i].out.box_hits = malloc(READ_HITS * sizeof(vxk_broadphase_hit));
    }
    // One slotless thread alone, reading then writing; it read before any write, so its reads
    // equal thread 0's.
    s[0].writes = true;
    VXK_CHECK(pthread_create(&st[0], NULL, slotless_main, &s[0]) == 0);
    pthread_join(st[0], NULL);
    VXK_CHECK(same_results(ref, &s[0].out) == 0);
    VXK_CHECK_EQ_INT(s[0].build, VXK_OK);
    VXK_CHECK_EQ_INT(s[0].update, VXK_OK);
    VXK_CHECK_EQ_INT(s[0].gen, VXK_OK);
    VXK_CHECK_EQ_INT(s[0].step, VXK_OK);
    // Then two slotless threads reading at once (they share the last slot) against thread 0's
    // reads of the changed world.
    run_reads(world, in, ref);
    s[0].writes = false;
    for (int i = 0; i < 2; ++i)
        VXK_CHECK(pthread_create(&st[i], NULL, slotless_main, &s[i]) == 0);
    for (int i = 0; i < 2; ++i)
        pthread_join(st[i], NULL);
    for (int i = 0; i < 2; ++i)
        VXK_CHECK(same_results(ref, &s[i].out) == 0);
    pthread_barrier_wait(&release);
    for (int i = 0; i < holders; ++i)
        pthread_join(ht[i], NULL);
    for (int i = 0; i < holders; ++i)
        free(h[i].out.box_hits);
    free(s[0].out.box_hits);
    free(s[1].out.box_hits);
    pthread_barrier_destroy(&registered);
    pthread_barrier_destroy(&release);
    free(h);
    free(ref->box_hits);
    free(ref);
    free(in);
    vxk_world_destroy(world);
    return 0;
}

// ---- 2. external slots come back when their threads exit --------------------------------

typedef struct flag_ctx {
    _Atomic uint32_t ran;
} flag_ctx;

static void flag_job(void* ctx, uint32_t thread)
{
    (void)thread;
    atomic_fetch_add(&((flag_ctx*)ctx)->ran, 1);
}

typedef struct short_arg {
    vxk_jobs* jobs;
    uint32_t index;
    int submitted;
    flag_ctx flag;
} short_arg;

static void* short_main(void* p)
{
    short_arg* a = p;
    a->index = vxk_jobs_thread_index(a->jobs);
    vxk_job_desc d = {"short", flag_job, &a->flag, NULL, 0, NULL};
    vxk_job j = vxk_jobs_submit(a->jobs, &d);
    a->submitted = j.generation != 0;
    vxk_jobs_wait(a->jobs, j);
    return NULL;
}

static int test_slots_released_on_exit(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    def.external_threads = 2;
    def.max_jobs = 4096;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    // Each thread runs on a stack of its own that stays allocated, so no two threads share a
    // pthread_t (glibc would otherwise hand the next thread the last one's descriptor).
    enum { count = 24 };
    const size_t stack_bytes = 2u << 20; // room for sanitizer runtimes
    void* stacks[count];
    for (int t = 0; t < count; ++t) {
        stacks[t] = aligned_alloc(4096, stack_bytes);
        VXK_CHECK(stacks[t]);
        short_arg a = {jobs, 0, 0, {0}};
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstack(&attr, stacks[t], stack_bytes);
        pthread_t thread;
        VXK_CHECK(pthread_create(&thread, &attr, short_main, &a) == 0);
        pthread_join(thread, NULL);
        pthread_attr_destroy(&attr);
        VXK_CHECK_MSG(a.index >= 2 && a.index < 4, "thread %d got index %u", t, a.index);
        VXK_CHECK(a.submitted);
        VXK_CHECK_EQ_U64(atomic_load(&a.flag.ran), 1);
    }
    vxk_jobs_destroy(jobs);
    for (int t = 0; t < count; ++t)
        free(stacks[t]);
    return 0;
}

// ---- 3. waits on acyclic wait graphs ------------------------------------------------------

typedef struct pjkl {
    vxk_jobs* jobs;
    vxk_job p, l;
    _Atomic uint32_t j_ran, k_done;
} pjkl;

static void j_fn(void* ctx, uint32_t thread)
{
    (void)thread;
    atomic_store(&((pjkl*)ctx)->j_ran, 1);
}

static void p_fn(void* ctx, uint32_t thread)
{
    (void)thread;
    pjkl* c = ctx;
    vxk_job_desc d = {"J", j_fn, c, NULL, 0, NULL};
    vxk_jobs_wait(c->jobs, vxk_jobs_submit(c->jobs, &d));
}

static void l_fn(void* ctx, uint32_t thread)
{
    (void)ctx;
    (void)thread;
}

static void k_fn(void* ctx, uint32_t thread)
{
    (void)thread;
    pjkl* c = ctx;
    vxk_jobs_wait(c->jobs, c->l);
    atomic_store(&c->k_done, 1);
}

// P submits J and waits on J; K waits on L; L depends on P. A wait that ran K on top of P's
// frame could never return: K needs L, L needs P, P sits below K.
static int test_pjkl(void)
{
    for (uint32_t wc = 1; wc <= 3; ++wc) {
        for (int round = 0; round < 50; ++round) {
            vxk_jobs_def def = vxk_default_jobs_def();
            def.worker_count = wc;
            def.max_jobs = 1024;
            vxk_jobs* jobs = NULL;
            VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
            pjkl c;
            memset(&c, 0, sizeof(c));
            c.jobs = jobs;
            vxk_job_group group;
            vxk_job_group_init(&group);
            c.p = vxk_jobs_submit(jobs, &(vxk_job_desc){"P", p_fn, &c, NULL, 0, &group});
            c.l = vxk_jobs_submit(jobs, &(vxk_job_desc){"L", l_fn, &c, &c.p, 1, &group});
            vxk_job k = vxk_jobs_submit(jobs, &(vxk_job_desc){"K", k_fn, &c, NULL, 0, &group});
            VXK_CHECK(c.p.generation && c.l.generation && k.generation);
            if (round & 1)
                vxk_jobs_wait_group(jobs, &group);
            else
                vxk_jobs_wait(jobs, k);
            VXK_CHECK_EQ_U64(atomic_load(&c.k_done), 1);
            vxk_jobs_wait(jobs, c.l);
            VXK_CHECK_EQ_U64(atomic_load(&c.j_ran), 1);
            vxk_jobs_destroy(jobs);
        }
    }
    return 0;
}

// Random acyclic wait graphs. Job i of rank i may depend on and wait on jobs of lower rank; when
// it runs it submits children of rank i - 1/2 (which may depend on and wait on jobs below i too)
// and waits on them, on a group of them, or on neither. Every wait and dependency points down in
// rank, so every job can finish. Checked: each job runs once, starts after its dependencies
// ended, and every wait returns after its job ended.
enum { GRAPH_MAX_EDGES = 4, GRAPH_MAX_CHILDREN = 3 };

typedef struct graph_job graph_job;
typedef struct graph {
    vxk_jobs* jobs;
    uint32_t count;
    graph_job* nodes;    // top-level jobs, rank order
    graph_job* children; // GRAPH_MAX_CHILDREN per top-level job
    vxk_job* handles;    // of top-level jobs, set before any job of higher rank is submitted
    _Atomic uint64_t clock;
    _Atomic uint32_t errors;
} graph;

struct graph_job {
    graph* g;
    uint32_t rank;
    uint32_t dep_count, wait_count, child_count;
    uint32_t deps[GRAPH_MAX_EDGES], waits[GRAPH_MAX_EDGES];
    uint32_t child_mode; // 0: wait on each child, 1: wait on a group of them, 2: on neither
    _Atomic uint64_t start, end;
    _Atomic uint32_t runs;
};

static void graph_check_done(graph* g, uint32_t target, uint64_t now)
{
    uint64_t end = atomic_load(&g->nodes[target].end);
    if (end == 0 || end > now)
        atomic_fetch_add(&g->errors, 1);
}

static void graph_fn(void* ctx, uint32_t thread)
{
    (void)thread;
    graph_job* n = ctx;
    graph* g = n->g;
    uint64_t start = atomic_fetch_add(&g->clock, 1) + 1;
    atomic_store(&n->start, start);
    atomic_fetch_add(&n->runs, 1);
    for (uint32_t i = 0; i < n->dep_count; ++i)
        graph_check_done(g, n->deps[i], start);
    vxk_job kids[GRAPH_MAX_CHILDREN];
    vxk_job_group group;
    vxk_job_group_init(&group);
    for (uint32_t i = 0; i < n->child_count; ++i) {
        graph_job* c = &g->children[n->rank * GRAPH_MAX_CHILDREN + i];
        vxk_job deps[GRAPH_MAX_EDGES];
        for (uint32_t k = 0; k < c->dep_count; ++k)
            deps[k] = g->handles[c->deps[k]];
        vxk_job_desc d = {"child", graph_fn,     c,
                          deps,    c->dep_count, n->child_mode == 1 ? &group : NULL};
        kids[i] = vxk_jobs_submit(g->jobs, &d);
        if (kids[i].generation == 0)
            atomic_fetch_add(&g->errors, 1);
    }
    for (uint32_t i = 0; i < n->wait_count; ++i) {
        vxk_jobs_wait(g->jobs, g->handles[n->waits[i]]);
        graph_check_done(g, n->waits[i], atomic_fetch_add(&g->clock, 1) + 1);
    }
    if (n->child_mode == 0) {
        for (uint32_t i = 0; i < n->child_count; ++i)
            vxk_jobs_wait(g->jobs, kids[i]);
    } else if (n->child_mode == 1) {
        vxk_jobs_wait_group(g->jobs, &group);
    }
    if (n->child_mode != 2) {
        uint64_t now = atomic_fetch_add(&g->clock, 1) + 1;
        for (uint32_t i = 0; i < n->child_count; ++i) {
            graph_job* c = &g->children[n->rank * GRAPH_MAX_CHILDREN + i];
            uint64_t end = atomic_load(&c->end);
            if (end == 0 || end > now)
                atomic_fetch_add(&g->errors, 1);
        }
    }
    atomic_store(&n->end, atomic_fetch_add(&g->clock, 1) + 1);
}

static void graph_edges(uint64_t* rng, uint32_t below, uint32_t* count, uint32_t* out)
{
    *count = below ? (uint32_t)(vxk_test_rand(rng) % (GRAPH_MAX_EDGES + 1)) : 0;
    for (uint32_t k = 0; k < *count; ++k) {
        // Mostly near neighbours (long chains), sometimes far back.
        uint32_t back = vxk_test_rand(rng) % 4 ? 1 + (uint32_t)(vxk_test_rand(rng) % 8) : below;
        back = back > below ? below : back;
        out[k] = below - 1 - (uint32_t)(vxk_test_rand(rng) % back);
    }
}

static int run_graph(uint32_t workers, uint32_t count, uint64_t seed)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = workers;
    def.max_jobs = 1u << 14;
    def.spin_count = 50;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
    graph g;
    memset(&g, 0, sizeof(g));
    g.jobs = jobs;
    g.count = count;
    g.nodes = calloc(count, sizeof(graph_job));
    g.children = calloc((size_t)count * GRAPH_MAX_CHILDREN, sizeof(graph_job));
    g.handles = calloc(count, sizeof(vxk_job));
    uint64_t rng = seed;
    for (uint32_t i = 0; i < count; ++i) {
        graph_job* n = &g.nodes[i];
        n->g = &g;
        n->rank = i;
        graph_edges(&rng, i, &n->dep_count, n->deps);
        graph_edges(&rng, i, &n->wait_count, n->waits);
        n->child_count = (uint32_t)(vxk_test_rand(&rng) % (GRAPH_MAX_CHILDREN + 1));
        n->child_mode = (uint32_t)(vxk_test_rand(&rng) % 3);
        for (uint32_t c = 0; c < n->child_count; ++c) {
            graph_job* k = &g.children[i * GRAPH_MAX_CHILDREN + c];
            k->g = &g;
            k->rank = i; // a child's waits use the top-level handles below its parent
            graph_edges(&rng, i, &k->dep_count, k->deps);
            graph_edges(&rng, i, &k->wait_count, k->waits);
        }
    }
    vxk_job_group all;
    vxk_job_group_init(&all);
    for (uint32_t i = 0; i < count; ++i) {
        graph_job* n = &g.nodes[i];
        vxk_job deps[GRAPH_MAX_EDGES];
        for (uint32_t k = 0; k < n->dep_count; ++k)
            deps[k] = g.handles[n->deps[k]];
        vxk_job_desc d = {"graph", graph_fn, n, deps, n->dep_count, &all};
        g.handles[i] = vxk_jobs_submit(jobs, &d);
        VXK_CHECK(g.handles[i].generation != 0);
    }
    if (seed & 1) {
        vxk_jobs_wait_group(jobs, &all);
    } else {
        for (uint32_t i = count; i-- > 0;)
            vxk_jobs_wait(jobs, g.handles[i]);
    }
    vxk_jobs_destroy(jobs); // children left unawaited (mode 2) finish here
    VXK_CHECK_EQ_U64(atomic_load(&g.errors), 0);
    for (uint32_t i = 0; i < count; ++i) {
        VXK_CHECK_EQ_U64(atomic_load(&g.nodes[i].runs), 1);
        for (uint32_t c = 0; c < g.nodes[i].child_count; ++c)
            VXK_CHECK_EQ_U64(atomic_load(&g.children[i * GRAPH_MAX_CHILDREN + c].runs), 1);
    }
    free(g.nodes);
    free(g.children);
    free(g.handles);
    return 0;
}

static int test_random_wait_graphs(void)
{
    uint64_t rng = vxk_test_seed(0x6A4F);
    const int rounds = VXK_TEST_SLOW ? 6 : 24;
    for (int r = 0; r < rounds; ++r) {
        uint32_t workers = 1 + (uint32_t)(r % 4);
        uint64_t seed = vxk_test_rand(&rng);
        if (run_graph(workers, VXK_TEST_SLOW ? 300 : 1000, seed) != 0) {
            fprintf(stderr, "graph round %d, %u workers, seed %llu\n", r, workers,
                    (unsigned long long)seed);
            return 1;
        }
    }
    return 0;
}

// ---- 4 and 5. bounded nesting -------------------------------------------------------------

typedef struct chain {
    vxk_jobs* jobs;
    uint32_t length;
    _Atomic uint32_t visits;
    _Atomic uint64_t max_stack; // bytes between a job's frame and its thread's outermost job
} chain;

typedef struct chain_link {
    chain* c;
    uint32_t level;
    uintptr_t base; // frame address of the outermost job on this pthread, 0 if unknown
    pthread_t thread;
} chain_link;

static void chain_fn(void* ctx, uint32_t thread)
{
    (void)thread;
    chain_link* l = ctx;
    chain* c = l->c;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    pthread_t me = pthread_self();
    uintptr_t base = l->base && pthread_equal(l->thread, me) ? l->base : here;
    uint64_t used = base > here ? base - here : here - base;
    uint64_t seen = atomic_load(&c->max_stack);
    while (used > seen && !atomic_compare_exchange_weak(&c->max_stack, &seen, used)) {
    }
    atomic_fetch_add(&c->visits, 1);
    if (l->level + 1 >= c->length)
        return;
    chain_link next = {c, l->level + 1, base, me};
    vxk_job_desc d = {"chain", chain_fn, &next, NULL, 0, NULL};
    vxk_jobs_wait(c->jobs, vxk_jobs_submit(c->jobs, &d));
}

// 60,000 jobs that each submit a child and wait on it: the depth on any one stack stays bounded
// (the run continues on other threads' stacks), for 1, 2 and 4 workers.
static int test_deep_chain(void)
{
    const uint32_t length = VXK_TEST_SLOW ? 12000 : 60000;
    const uint32_t worker_counts[] = {1, 2, 4};
    for (int k = 0; k < 3; ++k) {
        vxk_jobs_def def = vxk_default_jobs_def();
        def.worker_count = worker_counts[k];
        def.max_jobs = 1u << 17;
        vxk_jobs* jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
        chain c = {jobs, length, 0, 0};
        chain_link first = {&c, 0, 0, pthread_self()};
        vxk_job_desc d = {"chain", chain_fn, &first, NULL, 0, NULL};
        vxk_jobs_wait(jobs, vxk_jobs_submit(jobs, &d));
        VXK_CHECK_EQ_U64(atomic_load(&c.visits), length);
        // 64 levels of a few hundred bytes each; far below a default 8 MiB stack.
        VXK_CHECK_MSG(atomic_load(&c.max_stack) < (1u << 20), "%llu bytes of stack",
                      (unsigned long long)atomic_load(&c.max_stack));
        vxk_jobs_destroy(jobs);
    }
    return 0;
}

// Thread 0 submits a whole chain (job k waits on job k + 1, all in thread 0's deque), then blocks
// outside the scheduler: the background worker must reach every job however deep it is nested.
typedef struct pre_chain {
    vxk_jobs* jobs;
    vxk_job* handles;
    uint32_t length;
    _Atomic uint32_t visits;
} pre_chain;

typedef struct pre_link {
    pre_chain* c;
    uint32_t level;
} pre_link;

static void pre_fn(void* ctx, uint32_t thread)
{
    (void)thread;
    pre_link* l = ctx;
    atomic_fetch_add(&l->c->visits, 1);
    if (l->level + 1 < l->c->length)
        vxk_jobs_wait(l->c->jobs, l->c->handles[l->level + 1]);
}

static int test_cap_with_blocked_submitter(void)
{
    const uint32_t length = 1000;
    for (uint32_t wc = 2; wc <= 3; ++wc) {
        vxk_jobs_def def = vxk_default_jobs_def();
        def.worker_count = wc;
        def.max_jobs = 4096;
        vxk_jobs* jobs = NULL;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &jobs), 0);
        pre_chain c = {jobs, calloc(length, sizeof(vxk_job)), length, 0};
        pre_link* links = calloc(length, sizeof(pre_link));
        // Handles are all written before the first job can read one: the last submitted first.
        for (uint32_t i = length; i-- > 0;) {
            links[i] = (pre_link){&c, i};
            vxk_job_desc d = {"pre", pre_fn, &links[i], NULL, 0, NULL};
            c.handles[i] = vxk_jobs_submit(jobs, &d);
            VXK_CHECK(c.handles[i].generation != 0);
        }
        // Blocked outside the scheduler (no wait, no help) until the chain is done.
        for (int ms = 0; atomic_load(&c.visits) < length && ms < 100000; ++ms)
            sleep_ms(1);
        VXK_CHECK_EQ_U64(atomic_load(&c.visits), length);
        vxk_jobs_destroy(jobs);
        free(c.handles);
        free(links);
    }
    return 0;
}

// ---- two schedulers on one thread ---------------------------------------------------------

// A callback of scheduler A runs a parallel_for of scheduler B, then one of A again. The thread
// the callback runs on may hold A's shared slot or be a continuation thread past the nesting
// cap: either way it must find its A index again after B took over its thread-local cache.
typedef struct two_ctx {
    vxk_jobs* a;
    vxk_jobs* b;
    _Atomic uint32_t inner_a, inner_b, bad_index;
} two_ctx;

static void two_inner_b(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    two_ctx* c = ctx;
    if (thread >= vxk_jobs_thread_count(c->b))
        atomic_fetch_add(&c->bad_index, 1);
    atomic_fetch_add(&c->inner_b, end - begin);
}

static void two_inner_a(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    two_ctx* c = ctx;
    if (thread >= vxk_jobs_thread_count(c->a))
        atomic_fetch_add(&c->bad_index, 1);
    atomic_fetch_add(&c->inner_a, end - begin);
}

static void two_outer(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    two_ctx* c = ctx;
    (void)thread;
    for (uint32_t i = begin; i < end; ++i) {
        vxk_parallel_for(c->b, "two_b", 40, 3, two_inner_b, c);
        vxk_parallel_for(c->a, "two_a", 40, 3, two_inner_a, c);
    }
}

static void* two_slotless_main(void* p)
{
    two_ctx* c = p;
    vxk_parallel_for(c->a, "two_outer", 20, 1, two_outer, c);
    return NULL;
}

typedef struct two_chain {
    two_ctx* c;
    uint32_t level, length;
} two_chain;

static void two_chain_fn(void* ctx, uint32_t thread)
{
    two_chain* l = ctx;
    if (thread >= vxk_jobs_thread_count(l->c->a))
        atomic_fetch_add(&l->c->bad_index, 1);
    vxk_parallel_for(l->c->b, "two_b", 40, 3, two_inner_b, l->c);
    if (l->level + 1 == l->length)
        return;
    two_chain next = {l->c, l->level + 1, l->length};
    vxk_jobs_wait(l->c->a, vxk_jobs_submit(l->c->a, &(vxk_job_desc){"two", two_chain_fn, &next,
                                                                    NULL, 0, NULL}));
    vxk_parallel_for(l->c->a, "two_a", 40, 3, two_inner_a, l->c);
}

static int test_two_schedulers_nested(void)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = 2;
    def.external_threads = 0; // every other thread works through A's shared slot
    def.max_jobs = 4096;
    vxk_jobs *a = NULL, *b = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &a), 0);
    def.external_threads = 2;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&def, &b), 0);
    two_ctx c = {a, b, 0, 0, 0};
    pthread_t t;
    VXK_CHECK(pthread_create(&t, NULL, two_slotless_main, &c) == 0);
    pthread_join(t, NULL);
    VXK_CHECK_EQ_U64(atomic_load(&c.inner_b), 20 * 40);
    VXK_CHECK_EQ_U64(atomic_load(&c.inner_a), 20 * 40);
    // A chain past A's nesting cap: its deep levels run on continuation threads.
    two_ctx d = {a, b, 0, 0, 0};
    two_chain first = {&d, 0, 200};
    vxk_jobs_wait(a,
                  vxk_jobs_submit(a, &(vxk_job_desc){"two", two_chain_fn, &first, NULL, 0, NULL}));
    VXK_CHECK_EQ_U64(atomic_load(&d.inner_b), 200 * 40);
    VXK_CHECK_EQ_U64(atomic_load(&d.inner_a), 199 * 40);
    VXK_CHECK_EQ_U64(atomic_load(&c.bad_index) + atomic_load(&d.bad_index), 0);
    vxk_jobs_destroy(b);
    vxk_jobs_destroy(a);
    return 0;
}

// ---- 9. the deque with the fences that ship -----------------------------------------------

typedef struct deque_stress {
    vxk_deque deque;
    _Atomic uint32_t* taken; // per item: how often it came out
    _Atomic uint32_t stop;
    _Atomic uint64_t stolen;
} deque_stress;

static void* thief_main(void* p)
{
    deque_stress* s = p;
    uint64_t stolen = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        uint32_t x = vxk_deque_steal(&s->deque);
        if (x == VXK_DEQUE_EMPTY || x == VXK_DEQUE_ABORT) {
            sched_yield();
            continue;
        }
        atomic_fetch_add_explicit(&s->taken[x], 1, memory_order_relaxed);
        ++stolen;
    }
    // Drain what is left after the owner stopped.
    for (;;) {
        uint32_t x = vxk_deque_steal(&s->deque);
        if (x == VXK_DEQUE_EMPTY)
            break;
        if (x != VXK_DEQUE_ABORT) {
            atomic_fetch_add_explicit(&s->taken[x], 1, memory_order_relaxed);
            ++stolen;
        }
    }
    atomic_fetch_add(&s->stolen, stolen);
    return NULL;
}

// The owner pushes in random bursts (growing the array from 16 slots) and takes in random
// bursts while six thieves steal; every item must come out exactly once.
static int test_deque_many_thieves(void)
{
    const uint32_t items = VXK_TEST_SLOW ? 200000 : 2000000;
    deque_stress s;
    vxk_jobs_allocator malloc_free = {0}; // outlives the deque
    VXK_CHECK(vxk_deque_init(&s.deque, 16, &malloc_free));
    s.taken = calloc(items, sizeof(*s.taken));
    atomic_init(&s.stop, 0);
    atomic_init(&s.stolen, 0);
    enum { thieves = 6 };
    pthread_t t[thieves];
    for (int i = 0; i < thieves; ++i)
        VXK_CHECK(pthread_create(&t[i], NULL, thief_main, &s) == 0);
    uint64_t rng = vxk_test_seed(0xDE0E);
    uint32_t next = 0;
    uint64_t owner_took = 0;
    while (next < items) {
        uint32_t burst = 1 + (uint32_t)(vxk_test_rand(&rng) % 64);
        for (uint32_t i = 0; i < burst && next < items; ++i)
            VXK_CHECK(vxk_deque_push(&s.deque, next++));
        uint32_t takes = (uint32_t)(vxk_test_rand(&rng) % 80);
        for (uint32_t i = 0; i < takes; ++i) {
            uint32_t x = vxk_deque_take(&s.deque);
            if (x == VXK_DEQUE_EMPTY)
                break;
            VXK_CHECK(x < items);
            atomic_fetch_add_explicit(&s.taken[x], 1, memory_order_relaxed);
            ++owner_took;
        }
    }
    for (;;) {
        uint32_t x = vxk_deque_take(&s.deque);
        if (x == VXK_DEQUE_EMPTY)
            break;
        atomic_fetch_add_explicit(&s.taken[x], 1, memory_order_relaxed);
        ++owner_took;
    }
    atomic_store_explicit(&s.stop, 1, memory_order_release);
    for (int i = 0; i < thieves; ++i)
        pthread_join(t[i], NULL);
    for (uint32_t i = 0; i < items; ++i)
        VXK_CHECK_MSG(atomic_load(&s.taken[i]) == 1, "item %u came out %u times", i,
                      atomic_load(&s.taken[i]));
    VXK_CHECK_EQ_U64(owner_took + atomic_load(&s.stolen), items);
    vxk_deque_free(&s.deque);
    free(s.taken);
    return 0;
}

// Tiny jobs on random DAGs with more workers than cores: every worker but one is a thief most of
// the time.
static int test_tiny_jobs_many_workers(void)
{
    uint64_t rng = vxk_test_seed(0x71E7);
    for (int r = 0; r < (VXK_TEST_SLOW ? 2 : 6); ++r) {
        uint64_t seed = vxk_test_rand(&rng);
        VXK_CHECK_MSG(run_graph(8, VXK_TEST_SLOW ? 400 : 3000, seed) == 0, "seed %llu",
                      (unsigned long long)seed);
    }
    return 0;
}

// Each test runs under a watchdog: a wait that never returns fails the test instead of hanging.
#define WATCHED(fn, seconds)              \
    static int watched_##fn(void)         \
    {                                     \
        watchdog w;                       \
        watchdog_start(&w, seconds, #fn); \
        int result = fn();                \
        watchdog_stop(&w);                \
        return result;                    \
    }
WATCHED(test_slotless_world_calls, 120)
WATCHED(test_slots_released_on_exit, 60)
WATCHED(test_pjkl, 60)
WATCHED(test_random_wait_graphs, 240)
WATCHED(test_deep_chain, 240)
WATCHED(test_cap_with_blocked_submitter, 120)
WATCHED(test_two_schedulers_nested, 120)
WATCHED(test_deque_many_thieves, 120)
WATCHED(test_tiny_jobs_many_workers, 240)

int main(void)
{
    VXK_RUN(watched_test_slotless_world_calls);
    VXK_RUN(watched_test_slots_released_on_exit);
    VXK_RUN(watched_test_pjkl);
    VXK_RUN(watched_test_random_wait_graphs);
    VXK_RUN(watched_test_deep_chain);
    VXK_RUN(watched_test_cap_with_blocked_submitter);
    VXK_RUN(watched_test_two_schedulers_nested);
    VXK_RUN(watched_test_deque_many_thieves);
    VXK_RUN(watched_test_tiny_jobs_many_workers);
    return vxk_test_finish();
}
