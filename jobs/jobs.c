// jobs.c: the fiber-free job scheduler: a job pool with generation-checked handles, dependency
// counters with per-job continuation lists, Chase-Lev deques with stealing plus an injection
// queue, waits that run other jobs, a bounded spin then a futex sleep, and parallel_for.
#define _GNU_SOURCE
#include "jobs_internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// A thread stops stealing from other workers' deques once it runs this many jobs nested inside
// waits, which bounds its stack. It still runs jobs from its own deque (its own children) and
// from the injection queue (where a non-worker's children go): were all threads capped, every
// queued job would still have a thread that may run it, so the cap cannot deadlock.
#define VXK_JOBS_MAX_NEST 96
#define VXK_JOBS_MAX_THREADS 1024
#define VXK_JOBS_MAX_CAPACITY (1u << 26)

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void futex_wait(_Atomic uint32_t* word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t*)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

// Sleeps at most timeout_ns.
static void futex_wait_timed(_Atomic uint32_t* word, uint32_t expected, long timeout_ns)
{
    struct timespec ts = {0, timeout_ns};
    syscall(SYS_futex, (uint32_t*)word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t* word, int count)
{
    syscall(SYS_futex, (uint32_t*)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

uint64_t vxk_jobs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// ---- thread indices -----------------------------------------------------------------------

static _Atomic uint64_t g_next_uid = 1;
static _Thread_local uint64_t tls_uid;
static _Thread_local uint32_t tls_index;

static uint32_t register_thread(vxk_jobs* jobs)
{
    pthread_t me = pthread_self();
    uint32_t index = UINT32_MAX;
    pthread_mutex_lock(&jobs->external_lock);
    // A worker or the creating thread comes here when it used another scheduler in between.
    for (uint32_t i = 0; i < jobs->worker_count && index == UINT32_MAX; ++i) {
        if (jobs->threads[i].started && pthread_equal(jobs->threads[i].thread, me))
            index = i;
    }
    for (uint32_t i = 0; i < jobs->external_used && index == UINT32_MAX; ++i) {
        if (pthread_equal(jobs->threads[jobs->worker_count + i].thread, me))
            index = jobs->worker_count + i;
    }
    if (index == UINT32_MAX && jobs->worker_count + jobs->external_used < jobs->thread_count) {
        index = jobs->worker_count + jobs->external_used++;
        jobs->threads[index].thread = me;
    }
    pthread_mutex_unlock(&jobs->external_lock);
    if (index != UINT32_MAX) {
        tls_uid = jobs->uid;
        tls_index = index;
    }
    return index;
}

static inline vxk_jobs_thread* self_thread(vxk_jobs* jobs)
{
    if (tls_uid == jobs->uid)
        return &jobs->threads[tls_index];
    uint32_t index = register_thread(jobs);
    return index == UINT32_MAX ? NULL : &jobs->threads[index];
}

uint32_t vxk_jobs_thread_index(vxk_jobs* jobs)
{
    if (!jobs)
        return UINT32_MAX;
    vxk_jobs_thread* self = self_thread(jobs);
    return self ? self->index : UINT32_MAX;
}

uint32_t vxk_jobs_worker_count(const vxk_jobs* jobs)
{
    return jobs ? jobs->worker_count : 0;
}

uint32_t vxk_jobs_thread_count(const vxk_jobs* jobs)
{
    return jobs ? jobs->thread_count : 0;
}

// ---- index pools (job slots, continuation nodes) ------------------------------------------

static bool pool_init(vxk_index_pool* pool, uint32_t capacity)
{
    pool->stack = malloc((size_t)capacity * sizeof(uint32_t));
    if (!pool->stack)
        return false;
    pthread_mutex_init(&pool->lock, NULL);
    pool->stack_count = 0;
    pool->capacity = capacity;
    atomic_init(&pool->bump, 0);
    return true;
}

static void pool_free_memory(vxk_index_pool* pool)
{
    if (pool->stack) {
        pthread_mutex_destroy(&pool->lock);
        free(pool->stack);
        pool->stack = NULL;
    }
}

static void pool_refill(vxk_index_pool* pool, vxk_index_cache* cache)
{
    pthread_mutex_lock(&pool->lock);
    uint32_t n = pool->stack_count < VXK_JOBS_BATCH ? pool->stack_count : VXK_JOBS_BATCH;
    pool->stack_count -= n;
    memcpy(cache->items, pool->stack + pool->stack_count, n * sizeof(uint32_t));
    pthread_mutex_unlock(&pool->lock);
    cache->count = n;
    if (n)
        return;
    uint32_t begin = atomic_load_explicit(&pool->bump, memory_order_relaxed);
    do {
        if (begin >= pool->capacity)
            return;
        n = pool->capacity - begin < VXK_JOBS_BATCH ? pool->capacity - begin : VXK_JOBS_BATCH;
    } while (!atomic_compare_exchange_weak_explicit(&pool->bump, &begin, begin + n,
                                                    memory_order_relaxed, memory_order_relaxed));
    for (uint32_t i = 0; i < n; ++i)
        cache->items[i] = begin + n - 1 - i; // lowest index popped first
    cache->count = n;
}

static inline uint32_t pool_alloc(vxk_index_pool* pool, vxk_index_cache* cache)
{
    if (cache->count == 0)
        pool_refill(pool, cache);
    return cache->count ? cache->items[--cache->count] : VXK_JOBS_NIL;
}

static inline void pool_release(vxk_index_pool* pool, vxk_index_cache* cache, uint32_t index)
{
    if (cache->count == VXK_JOBS_CACHE) {
        pthread_mutex_lock(&pool->lock);
        memcpy(pool->stack + pool->stack_count, cache->items + VXK_JOBS_CACHE - VXK_JOBS_BATCH,
               VXK_JOBS_BATCH * sizeof(uint32_t));
        pool->stack_count += VXK_JOBS_BATCH;
        pthread_mutex_unlock(&pool->lock);
        cache->count -= VXK_JOBS_BATCH;
    }
    cache->items[cache->count++] = index;
}

// ---- queues and wake-ups ------------------------------------------------------------------

static bool inject_push(vxk_jobs* jobs, uint32_t index)
{
    pthread_mutex_lock(&jobs->inject_lock);
    uint32_t count = atomic_load_explicit(&jobs->inject_count, memory_order_relaxed);
    if (count == jobs->inject_capacity) {
        uint32_t capacity = jobs->inject_capacity * 2;
        uint32_t* items = capacity ? malloc((size_t)capacity * sizeof(uint32_t)) : NULL;
        if (!items) {
            pthread_mutex_unlock(&jobs->inject_lock);
            return false;
        }
        for (uint32_t i = 0; i < count; ++i)
            items[i] = jobs->inject_items[(jobs->inject_head + i) & (jobs->inject_capacity - 1)];
        free(jobs->inject_items);
        jobs->inject_items = items;
        jobs->inject_capacity = capacity;
        jobs->inject_head = 0;
    }
    jobs->inject_items[(jobs->inject_head + count) & (jobs->inject_capacity - 1)] = index;
    atomic_store_explicit(&jobs->inject_count, count + 1, memory_order_relaxed);
    pthread_mutex_unlock(&jobs->inject_lock);
    return true;
}

static uint32_t inject_pop(vxk_jobs* jobs)
{
    if (atomic_load_explicit(&jobs->inject_count, memory_order_relaxed) == 0)
        return VXK_JOBS_NIL;
    uint32_t index = VXK_JOBS_NIL;
    pthread_mutex_lock(&jobs->inject_lock);
    uint32_t count = atomic_load_explicit(&jobs->inject_count, memory_order_relaxed);
    if (count) {
        index = jobs->inject_items[jobs->inject_head];
        jobs->inject_head = (jobs->inject_head + 1) & (jobs->inject_capacity - 1);
        atomic_store_explicit(&jobs->inject_count, count - 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&jobs->inject_lock);
    return index;
}

// Called after new work became visible. The seq_cst fence pairs with the one an idle thread
// issues between announcing its sleep and re-checking the queues, so either the sleeper sees the
// work or we see the sleeper (no lost wake-up). A sleeping background worker can run anything,
// so waking one suffices; with none asleep (all busy, possibly blocked in waits, or no background
// worker at all) the threads asleep in a wait are woken instead, since they run ready jobs too.
static inline void notify_work(vxk_jobs* jobs)
{
    VXK_FENCE_SEQ_CST();
    if (jobs->worker_count > 1 &&
        atomic_load_explicit(&jobs->sleeping_workers, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&jobs->work_epoch, 1, memory_order_seq_cst);
        futex_wake(&jobs->work_epoch, 1);
    } else if (atomic_load_explicit(&jobs->sleeping_waiters, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&jobs->done_epoch, 1, memory_order_seq_cst);
        futex_wake(&jobs->done_epoch, INT_MAX);
    }
}

// Called after a job's completion was published with seq_cst read-modify-writes (its group,
// then its state). A waiter increments sleeping_waiters (seq_cst) before re-reading that state
// (seq_cst), so one of the two sees the other without a fence.
static inline void notify_done(vxk_jobs* jobs)
{
    if (atomic_load_explicit(&jobs->sleeping_waiters, memory_order_seq_cst)) {
        atomic_fetch_add_explicit(&jobs->done_epoch, 1, memory_order_seq_cst);
        futex_wake(&jobs->done_epoch, INT_MAX);
    }
}

static void run_job(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index);

static void make_ready(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index)
{
    bool queued = self->index < jobs->worker_count ? vxk_deque_push(&self->deque, index)
                                                   : inject_push(jobs, index);
    if (!queued && self->index < jobs->worker_count)
        queued = inject_push(jobs, index);
    if (!queued) {
        // Out of memory for queue growth: the job is ready, so running it here is correct.
        run_job(jobs, self, index);
        return;
    }
    notify_work(jobs);
}

// Whether `self` could find a job to run (a thread without an index runs none).
static inline bool work_available(vxk_jobs* jobs, const vxk_jobs_thread* self)
{
    if (!self)
        return false;
    if (atomic_load_explicit(&jobs->inject_count, memory_order_relaxed))
        return true;
    bool worker = self->index < jobs->worker_count;
    if (self->depth >= VXK_JOBS_MAX_NEST && jobs->worker_count > 1)
        return worker && vxk_deque_maybe_nonempty(&jobs->threads[self->index].deque);
    for (uint32_t i = 0; i < jobs->worker_count; ++i) {
        if (vxk_deque_maybe_nonempty(&jobs->threads[i].deque))
            return true;
    }
    return false;
}

static uint32_t find_work(vxk_jobs* jobs, vxk_jobs_thread* self)
{
    uint32_t wc = jobs->worker_count;
    bool worker = self->index < wc;
    if (wc > 1 && worker) {
        uint32_t x = vxk_deque_take(&self->deque);
        if (x != VXK_DEQUE_EMPTY)
            return x;
    }
    uint32_t x = inject_pop(jobs);
    if (x != VXK_JOBS_NIL)
        return x;
    if (wc > 1 && self->depth >= VXK_JOBS_MAX_NEST)
        return VXK_JOBS_NIL;
    // One worker: its deque is read from the top (oldest first), so jobs run in submission order.
    self->rng = self->rng * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t start = wc > 1 ? (uint32_t)(self->rng >> 33) % wc : 0;
    for (uint32_t k = 0; k < wc; ++k) {
        uint32_t victim = start + k < wc ? start + k : start + k - wc;
        if (wc > 1 && victim == self->index)
            continue;
        for (int attempt = 0; attempt < 4; ++attempt) {
            x = vxk_deque_steal(&jobs->threads[victim].deque);
            if (x == VXK_DEQUE_EMPTY)
                break;
            if (x != VXK_DEQUE_ABORT)
                return x;
            cpu_relax();
        }
    }
    return VXK_JOBS_NIL;
}

// ---- running and finishing ----------------------------------------------------------------

static inline uint32_t next_generation(uint32_t generation)
{
    return generation + 1 ? generation + 1 : 1;
}

static void finish_job(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index)
{
    vxk_job_slot* slot = &jobs->slots[index];
    // The group first: once a handle reads as finished, the job no longer touches its group,
    // so a caller that waited on every handle may drop the group.
    if (slot->group)
        __atomic_fetch_sub(&slot->group->pending_do_not_touch, 1, __ATOMIC_SEQ_CST);
    uint32_t generation =
        (uint32_t)(atomic_load_explicit(&slot->state, memory_order_relaxed) >> 32);
    uint64_t old = atomic_exchange_explicit(
        &slot->state, (uint64_t)next_generation(generation) << 32 | VXK_JOBS_NIL,
        memory_order_seq_cst);
    for (uint32_t node = (uint32_t)old; node != VXK_JOBS_NIL;) {
        uint32_t waiter = jobs->nodes[node].job;
        uint32_t next = jobs->nodes[node].next;
        pool_release(&jobs->node_pool, &self->node_cache, node);
        if (atomic_fetch_sub_explicit(&jobs->slots[waiter].pending, 1, memory_order_acq_rel) == 1)
            make_ready(jobs, self, waiter);
        node = next;
    }
    pool_release(&jobs->slot_pool, &self->slot_cache, index);
    atomic_store_explicit(&self->finished,
                          atomic_load_explicit(&self->finished, memory_order_relaxed) + 1,
                          memory_order_release);
    notify_done(jobs);
}

static void run_job(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index)
{
    vxk_job_slot* slot = &jobs->slots[index];
    if (jobs->trace_capacity) {
        uint64_t start = vxk_jobs_now_ns();
        slot->fn(slot->ctx, self->index);
        vxk_jobs_trace_record(jobs, self, slot->name, start, vxk_jobs_now_ns());
    } else {
        slot->fn(slot->ctx, self->index);
    }
    finish_job(jobs, self, index);
}

// ---- waiting ------------------------------------------------------------------------------

typedef bool wait_done_fn(vxk_jobs* jobs, const void* arg);

static bool job_is_done(vxk_jobs* jobs, const void* arg)
{
    const vxk_job* job = arg;
    if (job->generation == 0 || job->index >= jobs->slot_pool.capacity)
        return true;
    uint64_t state = atomic_load_explicit(&jobs->slots[job->index].state, memory_order_seq_cst);
    return (uint32_t)(state >> 32) != job->generation;
}

static bool group_is_done(vxk_jobs* jobs, const void* arg)
{
    (void)jobs;
    vxk_job_group* group = (vxk_job_group*)arg;
    return __atomic_load_n(&group->pending_do_not_touch, __ATOMIC_SEQ_CST) == 0;
}

static uint64_t sum_counters(const vxk_jobs* jobs, bool finished)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < jobs->thread_count; ++i) {
        const vxk_jobs_thread* t = &jobs->threads[i];
        sum += atomic_load_explicit(finished ? &t->finished : &t->submitted, memory_order_acquire);
    }
    return sum;
}

static bool all_done(vxk_jobs* jobs, const void* arg)
{
    (void)arg;
    uint64_t submitted = sum_counters(jobs, false);
    uint64_t finished = sum_counters(jobs, true);
    return finished == submitted && sum_counters(jobs, false) == submitted;
}

static void wait_until(vxk_jobs* jobs, vxk_jobs_thread* self, wait_done_fn* done, const void* arg)
{
    uint32_t idle = 0;
    while (!done(jobs, arg)) {
        if (self) {
            uint32_t x = find_work(jobs, self);
            if (x != VXK_JOBS_NIL) {
                ++self->depth;
                run_job(jobs, self, x);
                --self->depth;
                idle = 0;
                continue;
            }
        }
        if (++idle < jobs->spin_count) {
            cpu_relax();
            continue;
        }
        idle = 0;
        atomic_fetch_add_explicit(&jobs->sleeping_waiters, 1, memory_order_seq_cst);
        uint32_t epoch = atomic_load_explicit(&jobs->done_epoch, memory_order_seq_cst);
        VXK_FENCE_SEQ_CST();
        if (!done(jobs, arg) && !work_available(jobs, self)) {
            // The per-thread counters behind all_done are not published with seq_cst
            // operations, so that wait (destroy only) re-checks on a short timeout.
            if (done == all_done)
                futex_wait_timed(&jobs->done_epoch, epoch, 1000000);
            else
                futex_wait(&jobs->done_epoch, epoch);
        }
        atomic_fetch_sub_explicit(&jobs->sleeping_waiters, 1, memory_order_seq_cst);
    }
}

void vxk_jobs_wait(vxk_jobs* jobs, vxk_job job)
{
    if (!jobs || job_is_done(jobs, &job))
        return;
    wait_until(jobs, self_thread(jobs), job_is_done, &job);
}

void vxk_job_group_init(vxk_job_group* group)
{
    if (group) {
        __atomic_store_n(&group->pending_do_not_touch, 0, __ATOMIC_RELAXED);
        group->reserved = 0;
    }
}

void vxk_jobs_wait_group(vxk_jobs* jobs, vxk_job_group* group)
{
    if (!jobs || !group || group_is_done(jobs, group))
        return;
    wait_until(jobs, self_thread(jobs), group_is_done, group);
}

// ---- workers ------------------------------------------------------------------------------

static void* worker_main(void* arg)
{
    vxk_jobs_thread* self = arg;
    vxk_jobs* jobs = self->owner;
    pthread_mutex_lock(&jobs->external_lock);
    self->thread = pthread_self();
    pthread_mutex_unlock(&jobs->external_lock);
    tls_uid = jobs->uid;
    tls_index = self->index;
    uint32_t idle = 0;
    while (!atomic_load_explicit(&jobs->stop, memory_order_acquire)) {
        if (idle == 0 || work_available(jobs, self)) {
            uint32_t x = find_work(jobs, self);
            if (x != VXK_JOBS_NIL) {
                run_job(jobs, self, x);
                idle = 0;
                continue;
            }
        }
        if (++idle < jobs->spin_count) {
            cpu_relax();
            continue;
        }
        idle = 0;
        atomic_fetch_add_explicit(&jobs->sleeping_workers, 1, memory_order_seq_cst);
        uint32_t epoch = atomic_load_explicit(&jobs->work_epoch, memory_order_seq_cst);
        VXK_FENCE_SEQ_CST();
        if (!atomic_load_explicit(&jobs->stop, memory_order_seq_cst) && !work_available(jobs, self))
            futex_wait(&jobs->work_epoch, epoch);
        atomic_fetch_sub_explicit(&jobs->sleeping_workers, 1, memory_order_seq_cst);
    }
    return NULL;
}

// ---- create / destroy ---------------------------------------------------------------------

vxk_jobs_def vxk_default_jobs_def(void)
{
    vxk_jobs_def def;
    memset(&def, 0, sizeof(def));
    def.cookie = VXK_JOBS_COOKIE;
    def.worker_count = 0;
    def.external_threads = 8;
    def.max_jobs = 1u << 20;
    def.scratch_bytes = (size_t)4 << 20;
    def.trace_capacity = 0;
    def.spin_count = 2000;
    return def;
}

static void free_jobs(vxk_jobs* jobs)
{
    if (jobs->threads) {
        for (uint32_t i = 0; i < jobs->thread_count; ++i) {
            vxk_jobs_thread* t = &jobs->threads[i];
            vxk_deque_free(&t->deque);
            free(t->scratch);
            free(t->trace);
        }
        free(jobs->threads);
    }
    pool_free_memory(&jobs->slot_pool);
    pool_free_memory(&jobs->node_pool);
    free(jobs->slots_memory);
    free(jobs->nodes);
    free(jobs->inject_items);
    pthread_mutex_destroy(&jobs->inject_lock);
    pthread_mutex_destroy(&jobs->external_lock);
    free(jobs);
}

int vxk_jobs_create(const vxk_jobs_def* def, vxk_jobs** out)
{
    if (!def || !out || def->cookie != VXK_JOBS_COOKIE || def->max_jobs == 0 ||
        def->max_jobs > VXK_JOBS_MAX_CAPACITY / 2 || def->worker_count > VXK_JOBS_MAX_THREADS ||
        def->external_threads > VXK_JOBS_MAX_THREADS || def->trace_capacity > (1u << 24))
        return -1;
    uint32_t workers = def->worker_count;
    if (workers == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        workers = cores < 1                      ? 1
                  : cores > VXK_JOBS_MAX_THREADS ? VXK_JOBS_MAX_THREADS
                                                 : (uint32_t)cores;
    }
    *out = NULL;
    vxk_jobs* jobs = calloc(1, sizeof(vxk_jobs));
    if (!jobs)
        return -2;
    jobs->uid = atomic_fetch_add(&g_next_uid, 1);
    jobs->worker_count = workers;
    jobs->thread_count = workers + def->external_threads;
    jobs->spin_count = def->spin_count ? def->spin_count : 1;
    jobs->trace_capacity = def->trace_capacity;
    jobs->scratch_bytes = def->scratch_bytes;
    jobs->trace_base_ns = vxk_jobs_now_ns();
    pthread_mutex_init(&jobs->inject_lock, NULL);
    pthread_mutex_init(&jobs->external_lock, NULL);

    // Indices parked in per-thread caches are not usable by others, so the pools hold extra.
    uint32_t slack = jobs->thread_count * VXK_JOBS_CACHE;
    uint32_t slot_capacity = def->max_jobs + slack;
    uint32_t node_capacity = 2 * def->max_jobs + slack;
    // calloc: large blocks come from fresh zero pages, touched only as jobs use them. A zero
    // state is generation 0, which no handle carries.
    jobs->slots_memory = calloc((size_t)slot_capacity + 1, sizeof(vxk_job_slot));
    if (jobs->slots_memory)
        jobs->slots = (vxk_job_slot*)(((uintptr_t)jobs->slots_memory + 63) & ~(uintptr_t)63);
    jobs->nodes = calloc(node_capacity, sizeof(vxk_job_node));
    jobs->threads = calloc(jobs->thread_count, sizeof(vxk_jobs_thread));
    jobs->inject_capacity = 256;
    jobs->inject_items = malloc(jobs->inject_capacity * sizeof(uint32_t));
    bool ok = jobs->slots && jobs->nodes && jobs->threads && jobs->inject_items &&
              pool_init(&jobs->slot_pool, slot_capacity) &&
              pool_init(&jobs->node_pool, node_capacity);
    for (uint32_t i = 0; ok && i < jobs->thread_count; ++i) {
        vxk_jobs_thread* t = &jobs->threads[i];
        t->owner = jobs;
        t->index = i;
        t->rng = 0x9E3779B97F4A7C15ull * (i + 1);
        atomic_init(&t->submitted, 0);
        atomic_init(&t->finished, 0);
        if (i < workers)
            ok = vxk_deque_init(&t->deque, 1024);
        if (ok && jobs->trace_capacity) {
            t->trace = malloc((size_t)jobs->trace_capacity * sizeof(vxk_trace_event));
            ok = t->trace != NULL;
        }
    }
    if (!ok) {
        free_jobs(jobs);
        return -2;
    }
    jobs->threads[0].thread = pthread_self();
    jobs->threads[0].started = true;
    tls_uid = jobs->uid;
    tls_index = 0;
    for (uint32_t i = 1; i < workers; ++i) {
        // started is set before the thread runs: register_thread reads it under the lock.
        pthread_mutex_lock(&jobs->external_lock);
        jobs->threads[i].started = true;
        pthread_mutex_unlock(&jobs->external_lock);
        if (pthread_create(&jobs->threads[i].handle, NULL, worker_main, &jobs->threads[i]) != 0) {
            atomic_store(&jobs->stop, true);
            for (uint32_t k = 1; k < i; ++k) {
                atomic_fetch_add(&jobs->work_epoch, 1);
                futex_wake(&jobs->work_epoch, INT_MAX);
                pthread_join(jobs->threads[k].handle, NULL);
            }
            free_jobs(jobs);
            return -2;
        }
    }
    *out = jobs;
    return 0;
}

void vxk_jobs_destroy(vxk_jobs* jobs)
{
    if (!jobs)
        return;
    wait_until(jobs, self_thread(jobs), all_done, NULL);
    atomic_store_explicit(&jobs->stop, true, memory_order_seq_cst);
    atomic_fetch_add_explicit(&jobs->work_epoch, 1, memory_order_seq_cst);
    futex_wake(&jobs->work_epoch, INT_MAX);
    for (uint32_t i = 1; i < jobs->worker_count; ++i)
        pthread_join(jobs->threads[i].handle, NULL);
    if (tls_uid == jobs->uid)
        tls_uid = 0;
    free_jobs(jobs);
}

// ---- submit -------------------------------------------------------------------------------

// Adds `waiter` to the continuation list of `dep`; false when dep has finished already.
static bool attach(vxk_jobs* jobs, vxk_jobs_thread* self, vxk_job dep, uint32_t waiter)
{
    if (dep.generation == 0 || dep.index >= jobs->slot_pool.capacity)
        return false;
    vxk_job_slot* slot = &jobs->slots[dep.index];
    uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
    if ((uint32_t)(state >> 32) != dep.generation)
        return false;
    uint32_t node = pool_alloc(&jobs->node_pool, &self->node_cache);
    if (node == VXK_JOBS_NIL) {
        // No continuation node left: let the dependency finish before going on.
        wait_until(jobs, self, job_is_done, &dep);
        return false;
    }
    jobs->nodes[node].job = waiter;
    do {
        if ((uint32_t)(state >> 32) != dep.generation) {
            pool_release(&jobs->node_pool, &self->node_cache, node);
            return false;
        }
        jobs->nodes[node].next = (uint32_t)state;
    } while (!atomic_compare_exchange_weak_explicit(&slot->state, &state,
                                                    (state & 0xFFFFFFFF00000000ull) | node,
                                                    memory_order_release, memory_order_acquire));
    return true;
}

vxk_job vxk_jobs_submit(vxk_jobs* jobs, const vxk_job_desc* desc)
{
    vxk_job handle = {0, 0};
    if (!jobs || !desc || !desc->fn || (desc->dep_count && !desc->deps))
        return handle;
    vxk_jobs_thread* self = self_thread(jobs);
    if (!self)
        return handle;
    uint32_t index = pool_alloc(&jobs->slot_pool, &self->slot_cache);
    if (index == VXK_JOBS_NIL)
        return handle;
    vxk_job_slot* slot = &jobs->slots[index];
    uint32_t generation =
        (uint32_t)(atomic_load_explicit(&slot->state, memory_order_relaxed) >> 32);
    generation = generation ? generation : 1;
    slot->fn = desc->fn;
    slot->ctx = desc->ctx;
    slot->name = desc->name;
    slot->group = desc->group;
    if (desc->group)
        __atomic_fetch_add(&desc->group->pending_do_not_touch, 1, __ATOMIC_RELAXED);
    atomic_store_explicit(&slot->state, (uint64_t)generation << 32 | VXK_JOBS_NIL,
                          memory_order_relaxed);
    atomic_store_explicit(&self->submitted,
                          atomic_load_explicit(&self->submitted, memory_order_relaxed) + 1,
                          memory_order_release);
    handle.index = index;
    handle.generation = generation;
    if (desc->dep_count == 0) {
        make_ready(jobs, self, index);
        return handle;
    }
    // One extra count held while attaching, so the job cannot start before all deps are seen.
    atomic_store_explicit(&slot->pending, desc->dep_count + 1, memory_order_relaxed);
    uint32_t unattached = 1;
    for (uint32_t i = 0; i < desc->dep_count; ++i)
        unattached += attach(jobs, self, desc->deps[i], index) ? 0 : 1;
    if (atomic_fetch_sub_explicit(&slot->pending, unattached, memory_order_acq_rel) == unattached)
        make_ready(jobs, self, index);
    return handle;
}

// ---- parallel_for -------------------------------------------------------------------------

// Participants (the caller plus helper jobs) start on contiguous blocks of pieces, each claimed
// through the participant's own counter on its own cache line; a participant that runs out
// claims pieces from the others' counters. The piece cut never changes, only who runs a piece.
#define VXK_PFOR_MAX_PARTS 64

// 64-bit claim counters: each participant overshoots a block's end once, which must not wrap a
// counter when the last block ends near 2^32 pieces.
typedef struct parallel_for_part {
    _Alignas(64) _Atomic uint64_t next;
    uint64_t end;
} parallel_for_part;
_Static_assert(sizeof(parallel_for_part) == 64, "one counter per cache line");

typedef struct parallel_for_state {
    vxk_range_fn* fn;
    void* ctx;
    uint32_t count;
    uint32_t grain;
    uint32_t parts;
    _Atomic uint32_t next_part;
    parallel_for_part part[VXK_PFOR_MAX_PARTS];
} parallel_for_state;

static void parallel_for_claim(parallel_for_state* p, parallel_for_part* part, uint32_t thread)
{
    for (;;) {
        uint64_t k = atomic_fetch_add_explicit(&part->next, 1, memory_order_relaxed);
        if (k >= part->end)
            return;
        uint64_t begin = k * p->grain;
        uint64_t end = begin + p->grain < p->count ? begin + p->grain : p->count;
        p->fn(p->ctx, (uint32_t)begin, (uint32_t)end, thread);
    }
}

static void parallel_for_run(parallel_for_state* p, uint32_t first, uint32_t thread)
{
    for (uint32_t i = 0; i < p->parts; ++i) {
        uint32_t q = first + i < p->parts ? first + i : first + i - p->parts;
        parallel_for_claim(p, &p->part[q], thread);
    }
}

static void parallel_for_job(void* ctx, uint32_t thread)
{
    parallel_for_state* p = ctx;
    uint32_t first = atomic_fetch_add_explicit(&p->next_part, 1, memory_order_relaxed);
    parallel_for_run(p, first < p->parts ? first : 0, thread);
}

void vxk_parallel_for(vxk_jobs* jobs, const char* name, uint32_t count, uint32_t grain,
                      vxk_range_fn* fn, void* ctx)
{
    if (!jobs || !fn || count == 0)
        return;
    grain = grain ? grain : 1;
    uint32_t pieces = vxk_parallel_for_pieces(count, grain);
    vxk_jobs_thread* self = self_thread(jobs);
    if (!self || jobs->worker_count == 1 || pieces == 1) {
        uint32_t thread = self ? self->index : UINT32_MAX;
        uint64_t start = jobs->trace_capacity && self ? vxk_jobs_now_ns() : 0;
        for (uint32_t k = 0; k < pieces; ++k) {
            uint64_t begin = (uint64_t)k * grain;
            fn(ctx, (uint32_t)begin, (uint32_t)(begin + grain < count ? begin + grain : count),
               thread);
        }
        if (start)
            vxk_jobs_trace_record(jobs, self, name, start, vxk_jobs_now_ns());
        return;
    }
    uint32_t parts = jobs->worker_count < pieces ? jobs->worker_count : pieces;
    parts = parts < VXK_PFOR_MAX_PARTS ? parts : VXK_PFOR_MAX_PARTS;
    parallel_for_state p;
    p.fn = fn;
    p.ctx = ctx;
    p.count = count;
    p.grain = grain;
    p.parts = parts;
    atomic_init(&p.next_part, 1);
    for (uint32_t q = 0; q < parts; ++q) {
        atomic_init(&p.part[q].next, (uint64_t)pieces * q / parts);
        p.part[q].end = (uint64_t)pieces * (q + 1) / parts;
    }
    vxk_job_group group = {0, 0};
    vxk_job_desc desc = {name, parallel_for_job, &p, NULL, 0, &group};
    for (uint32_t i = 1; i < parts; ++i) {
        if (vxk_jobs_submit(jobs, &desc).generation == 0)
            break; // pool full: the remaining blocks are claimed by the running participants
    }
    uint64_t start = jobs->trace_capacity ? vxk_jobs_now_ns() : 0;
    parallel_for_run(&p, 0, self->index);
    if (start)
        vxk_jobs_trace_record(jobs, self, name, start, vxk_jobs_now_ns());
    if (!group_is_done(jobs, &group))
        wait_until(jobs, self, group_is_done, &group);
}
