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

// Jobs run nested inside waits on one stack: at most this many. A wait at the cap that has a job
// to run continues on a new thread's stack (the continuation takes over the thread index while
// the original thread is parked in pthread_join), so the depth of any one stack is bounded while
// the chain of waits is not.
#define VXK_JOBS_MAX_STACK_NEST 64
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

// Live schedulers, so that a thread-exit destructor (which gets only a slot pointer) can tell
// whether its scheduler still exists: destroy unlinks it under the same lock before freeing.
static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;
static vxk_jobs* g_live;

static void pool_flush(vxk_index_pool* pool, vxk_index_cache* cache);

// Returns an external slot to the free ones: its cached indices go back to the pools; its
// counters, trace ring and scratch arena stay with the slot for the next thread.
static void release_slot(vxk_jobs* jobs, vxk_jobs_thread* t)
{
    pool_flush(&jobs->slot_pool, &t->slot_cache);
    pool_flush(&jobs->node_pool, &t->node_cache);
    pool_flush(&jobs->link_pool, &t->link_cache);
    pthread_mutex_lock(&jobs->external_lock);
    t->in_use = false;
    pthread_mutex_unlock(&jobs->external_lock);
}

static void thread_exit(void* value)
{
    vxk_jobs_thread* t = value;
    pthread_mutex_lock(&g_live_lock);
    for (vxk_jobs* jobs = g_live; jobs; jobs = jobs->next_live) {
        if (t >= jobs->threads && t < jobs->threads + jobs->thread_count) {
            release_slot(jobs, t);
            break;
        }
    }
    pthread_mutex_unlock(&g_live_lock);
}

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
    for (uint32_t i = jobs->worker_count; i < jobs->shared && index == UINT32_MAX; ++i) {
        if (jobs->threads[i].in_use && pthread_equal(jobs->threads[i].thread, me))
            index = i;
    }
    // The shared slot, when this thread holds it (it used another scheduler inside a call).
    if (index == UINT32_MAX && jobs->threads[jobs->shared].in_use &&
        pthread_equal(jobs->threads[jobs->shared].thread, me))
        index = jobs->shared;
    bool taken = false;
    for (uint32_t i = jobs->worker_count; i < jobs->shared && index == UINT32_MAX; ++i) {
        if (!jobs->threads[i].in_use) {
            jobs->threads[i].in_use = true;
            jobs->threads[i].thread = me;
            index = i;
            taken = true;
        }
    }
    pthread_mutex_unlock(&jobs->external_lock);
    if (taken && pthread_setspecific(jobs->exit_key, &jobs->threads[index]) != 0) {
        release_slot(jobs, &jobs->threads[index]); // no destructor: the slot could not come back
        index = UINT32_MAX;
    }
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

// The calling thread's slot, or the shared one (taken under shared_lock) when every external
// slot is held by a live thread; *shared says which. Nested calls on the same thread find the
// shared slot through the thread-local index and do not lock again.
static vxk_jobs_thread* enter(vxk_jobs* jobs, bool* shared)
{
    vxk_jobs_thread* self = self_thread(jobs);
    *shared = self == NULL;
    if (self)
        return self;
    pthread_mutex_lock(&jobs->shared_lock);
    vxk_jobs_thread* t = &jobs->threads[jobs->shared];
    pthread_mutex_lock(&jobs->external_lock);
    t->thread = pthread_self();
    t->in_use = true;
    pthread_mutex_unlock(&jobs->external_lock);
    tls_uid = jobs->uid;
    tls_index = jobs->shared;
    return t;
}

static void leave(vxk_jobs* jobs, bool shared)
{
    if (!shared)
        return;
    pthread_mutex_lock(&jobs->external_lock);
    jobs->threads[jobs->shared].in_use = false;
    pthread_mutex_unlock(&jobs->external_lock);
    tls_uid = 0;
    pthread_mutex_unlock(&jobs->shared_lock);
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

static bool pool_init(vxk_index_pool* pool, uint32_t capacity, const vxk_jobs_allocator* allocator)
{
    pool->allocator = allocator;
    pool->stack = vxk_jobs_mem_alloc(allocator, (size_t)capacity * sizeof(uint32_t), false);
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
        vxk_jobs_mem_free(pool->allocator, pool->stack, (size_t)pool->capacity * sizeof(uint32_t));
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

// Returns every cached index to the global stack (a thread that gives its slot back).
static void pool_flush(vxk_index_pool* pool, vxk_index_cache* cache)
{
    pthread_mutex_lock(&pool->lock);
    memcpy(pool->stack + pool->stack_count, cache->items, cache->count * sizeof(uint32_t));
    pool->stack_count += cache->count;
    pthread_mutex_unlock(&pool->lock);
    cache->count = 0;
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
        uint32_t* items = capacity ? vxk_jobs_mem_alloc(&jobs->allocator,
                                                        (size_t)capacity * sizeof(uint32_t), false)
                                   : NULL;
        if (!items) {
            pthread_mutex_unlock(&jobs->inject_lock);
            return false;
        }
        for (uint32_t i = 0; i < count; ++i)
            items[i] = jobs->inject_items[(jobs->inject_head + i) & (jobs->inject_capacity - 1)];
        vxk_jobs_mem_free(&jobs->allocator, jobs->inject_items,
                          (size_t)jobs->inject_capacity * sizeof(uint32_t));
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
// issues between announcing its sleep and re-checking, so either the sleeper sees the work or we
// see the sleeper (no lost wake-up). A sleeping background worker can run anything, so waking one
// suffices for it; threads asleep in a wait are woken as well, since a wait inside a job runs
// only the jobs it needs and the new one may be among them.
static inline void notify_work(vxk_jobs* jobs)
{
    VXK_FENCE_SEQ_CST();
    if (jobs->worker_count > 1 &&
        atomic_load_explicit(&jobs->sleeping_workers, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&jobs->work_epoch, 1, memory_order_seq_cst);
        futex_wake(&jobs->work_epoch, 1);
    }
    if (atomic_load_explicit(&jobs->sleeping_waiters, memory_order_relaxed)) {
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

static inline uint32_t generation_of(const vxk_jobs* jobs, uint32_t index)
{
    return (uint32_t)(atomic_load_explicit(&jobs->slots[index].state, memory_order_acquire) >> 32);
}

// Takes a ready job for the calling thread; the acquire pairs with make_ready's release, which
// follows the submitter's writes of fn and ctx.
static inline bool claim(vxk_jobs* jobs, uint32_t index, uint32_t generation)
{
    uint32_t expected = generation;
    return generation != 0 &&
           atomic_compare_exchange_strong_explicit(&jobs->slots[index].ready, &expected, 0,
                                                   memory_order_acquire, memory_order_relaxed);
}

// A queue entry: whatever job is ready in that slot now (an entry whose job was claimed through
// a wait is stale; a newer job of the slot that is ready may be taken through it, and its own
// entry then goes stale instead).
static inline bool claim_entry(vxk_jobs* jobs, uint32_t index)
{
    return claim(jobs, index,
                 atomic_load_explicit(&jobs->slots[index].ready, memory_order_relaxed));
}

static void run_nested(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index);

static void make_ready(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index, uint32_t generation)
{
    atomic_store_explicit(&jobs->slots[index].ready, generation, memory_order_release);
    bool worker = self->index < jobs->worker_count;
    bool queued = worker ? vxk_deque_push(&self->deque, index) : inject_push(jobs, index);
    if (!queued && worker)
        queued = inject_push(jobs, index);
    if (!queued) {
        // Out of memory for queue growth: the job is ready, so running it here is correct.
        if (claim(jobs, index, generation))
            run_nested(jobs, self, index);
        return;
    }
    notify_work(jobs);
}

// Whether a thread outside every job could find a job to run (a hint before sleeping).
static inline bool work_available(vxk_jobs* jobs)
{
    if (atomic_load_explicit(&jobs->inject_count, memory_order_relaxed))
        return true;
    for (uint32_t i = 0; i < jobs->worker_count; ++i) {
        if (vxk_deque_maybe_nonempty(&jobs->threads[i].deque))
            return true;
    }
    return false;
}

// Any ready job, for a thread outside every job: its own deque, the injection queue, then the
// others' deques. Stale entries are dropped on the way.
static uint32_t find_work(vxk_jobs* jobs, vxk_jobs_thread* self)
{
    uint32_t wc = jobs->worker_count;
    bool worker = self->index < wc;
    if (wc > 1 && worker) {
        for (uint32_t x; (x = vxk_deque_take(&self->deque)) != VXK_DEQUE_EMPTY;) {
            if (claim_entry(jobs, x))
                return x;
        }
    }
    for (uint32_t x; (x = inject_pop(jobs)) != VXK_JOBS_NIL;) {
        if (claim_entry(jobs, x))
            return x;
    }
    // One worker: its deque is read from the top (oldest first), so jobs run in submission order.
    self->rng = self->rng * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t start = wc > 1 ? (uint32_t)(self->rng >> 33) % wc : 0;
    for (uint32_t k = 0; k < wc; ++k) {
        uint32_t victim = start + k < wc ? start + k : start + k - wc;
        if (wc > 1 && victim == self->index)
            continue;
        for (int aborts = 0; aborts < 4;) {
            uint32_t x = vxk_deque_steal(&jobs->threads[victim].deque);
            if (x == VXK_DEQUE_EMPTY)
                break;
            if (x == VXK_DEQUE_ABORT) {
                ++aborts;
                cpu_relax();
            } else if (claim_entry(jobs, x)) {
                return x;
            }
        }
    }
    return VXK_JOBS_NIL;
}

// ---- groups -------------------------------------------------------------------------------

// A group counts its unfinished members. Those submitted with unfinished dependencies are also
// kept in a list (slot index + 1 links in the slots, under a spin lock), so that a wait inside a
// job can reach what they depend on; members without are ready at once and are found in the
// queues (scan_queues). Most groups (parallel work without dependencies) never take the lock.
static void group_lock(vxk_job_group* group)
{
    while (__atomic_exchange_n(&group->lock_do_not_touch, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&group->lock_do_not_touch, __ATOMIC_RELAXED))
            cpu_relax();
    }
}

static void group_unlock(vxk_job_group* group)
{
    __atomic_store_n(&group->lock_do_not_touch, 0, __ATOMIC_RELEASE);
}

static void group_join(vxk_jobs* jobs, vxk_job_group* group, uint32_t index, bool listed)
{
    vxk_job_slot* slot = &jobs->slots[index];
    slot->listed = listed;
    if (!listed) {
        // Ordered before the job's completion by the queue's release and the claim's acquire.
        __atomic_fetch_add(&group->pending_do_not_touch, 1, __ATOMIC_RELAXED);
        return;
    }
    group_lock(group);
    __atomic_fetch_add(&group->pending_do_not_touch, 1, __ATOMIC_RELAXED);
    slot->group_prev = group->tail_do_not_touch;
    slot->group_next = 0;
    if (group->tail_do_not_touch)
        jobs->slots[group->tail_do_not_touch - 1].group_next = index + 1;
    else
        __atomic_store_n(&group->head_do_not_touch, index + 1, __ATOMIC_RELAXED);
    group->tail_do_not_touch = index + 1;
    group_unlock(group);
}

static void group_leave(vxk_jobs* jobs, vxk_job_group* group, uint32_t index)
{
    vxk_job_slot* slot = &jobs->slots[index];
    if (!slot->listed) {
        __atomic_fetch_sub(&group->pending_do_not_touch, 1, __ATOMIC_SEQ_CST);
        return;
    }
    group_lock(group);
    if (slot->group_prev)
        jobs->slots[slot->group_prev - 1].group_next = slot->group_next;
    else
        __atomic_store_n(&group->head_do_not_touch, slot->group_next, __ATOMIC_RELAXED);
    if (slot->group_next)
        jobs->slots[slot->group_next - 1].group_prev = slot->group_prev;
    else
        group->tail_do_not_touch = slot->group_prev;
    __atomic_fetch_sub(&group->pending_do_not_touch, 1, __ATOMIC_SEQ_CST);
    group_unlock(group);
}

// Claims a ready job of `group` named by a queue entry (any entry: the group is checked on the
// slot, after the acquire that makes the submitter's write of it visible; a slot reused
// meanwhile fails the claim, its `ready` having changed).
static bool claim_member(vxk_jobs* jobs, uint32_t index, const vxk_job_group* group)
{
    if (index >= jobs->slot_pool.capacity)
        return false;
    vxk_job_slot* slot = &jobs->slots[index];
    uint32_t generation = atomic_load_explicit(&slot->ready, memory_order_acquire);
    return generation && atomic_load_explicit(&slot->group, memory_order_relaxed) == group &&
           claim(jobs, index, generation);
}

// A ready member of `group` in the queues: the calling worker's own deque newest first (where
// a job's children usually are), the injection queue newest first, then the other deques.
static uint32_t scan_queues(vxk_jobs* jobs, vxk_jobs_thread* self, const vxk_job_group* group)
{
    uint32_t wc = jobs->worker_count;
    int64_t top, bottom;
    if (self->index < wc) {
        vxk_deque_range(&self->deque, &top, &bottom);
        for (int64_t i = bottom - 1; i >= top; --i) {
            uint32_t x = vxk_deque_peek(&self->deque, i);
            if (claim_member(jobs, x, group))
                return x;
        }
    }
    if (atomic_load_explicit(&jobs->inject_count, memory_order_relaxed)) {
        uint32_t found = VXK_JOBS_NIL;
        pthread_mutex_lock(&jobs->inject_lock);
        uint32_t count = atomic_load_explicit(&jobs->inject_count, memory_order_relaxed);
        for (uint32_t i = count; i-- > 0 && found == VXK_JOBS_NIL;) {
            uint32_t x = jobs->inject_items[(jobs->inject_head + i) & (jobs->inject_capacity - 1)];
            if (claim_member(jobs, x, group))
                found = x;
        }
        pthread_mutex_unlock(&jobs->inject_lock);
        if (found != VXK_JOBS_NIL)
            return found;
    }
    for (uint32_t w = 0; w < wc; ++w) {
        if (w == self->index)
            continue;
        vxk_deque_range(&jobs->threads[w].deque, &top, &bottom);
        for (int64_t i = top; i < bottom; ++i) {
            uint32_t x = vxk_deque_peek(&jobs->threads[w].deque, i);
            if (claim_member(jobs, x, group))
                return x;
        }
    }
    return VXK_JOBS_NIL;
}

// ---- what a wait inside a job may run ------------------------------------------------------
//
// A wait outside every job may run any ready job: no frame below it can be waiting for the job
// it runs. A wait inside a job may not: were it to run an unrelated job K on top of the waiting
// job P, and K wait for something that needs P to finish, neither could ever finish, though the
// wait graph has no cycle. So a wait inside a job runs only jobs the awaited job (or group)
// needs: itself, its dependencies, theirs, and so on. When the wait graph is acyclic none of
// them can need the waiting frame, so running them on top of it is safe, and the waiting thread
// alone can always finish what it waits for (no other thread must be free for that).
//
// The walk is a depth-first search over dependency lists with a visited set of handles. Lists
// are read like a seqlock: a job's links are freed only after its generation changed, so a link
// read before a re-check that still finds the generation was the job's own.

static bool walk_push(const vxk_jobs* jobs, vxk_walk* w, uint32_t* top, uint32_t index,
                      uint32_t generation)
{
    if (*top == w->stack_capacity) {
        uint32_t capacity = w->stack_capacity ? w->stack_capacity * 2 : 64;
        vxk_walk_frame* stack =
            vxk_jobs_mem_alloc(&jobs->allocator, (size_t)capacity * sizeof(vxk_walk_frame), false);
        if (!stack)
            return false;
        if (w->stack)
            memcpy(stack, w->stack, (size_t)w->stack_capacity * sizeof(vxk_walk_frame));
        vxk_jobs_mem_free(&jobs->allocator, w->stack,
                          (size_t)w->stack_capacity * sizeof(vxk_walk_frame));
        w->stack = stack;
        w->stack_capacity = capacity;
    }
    w->stack[(*top)++] = (vxk_walk_frame){index, generation, VXK_JOBS_WALK_START};
    return true;
}

static inline uint32_t seen_slot(uint64_t key, uint32_t capacity)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1);
}

// Inserts key; false when it was there already. Out of memory it answers true (unvisited): the
// walk then may visit a job twice, never misses one.
static void seen_free(const vxk_jobs* jobs, vxk_walk* w)
{
    vxk_jobs_mem_free(&jobs->allocator, w->seen_keys, (size_t)w->seen_capacity * sizeof(uint64_t));
    vxk_jobs_mem_free(&jobs->allocator, w->seen_stamps,
                      (size_t)w->seen_capacity * sizeof(uint32_t));
}

static bool seen_insert(const vxk_jobs* jobs, vxk_walk* w, uint64_t key)
{
    if ((w->seen_count + 1) * 2 > w->seen_capacity) {
        uint32_t capacity = w->seen_capacity ? w->seen_capacity * 2 : 256;
        uint64_t* keys =
            vxk_jobs_mem_alloc(&jobs->allocator, (size_t)capacity * sizeof(uint64_t), false);
        uint32_t* stamps =
            vxk_jobs_mem_alloc(&jobs->allocator, (size_t)capacity * sizeof(uint32_t), true);
        if (!keys || !stamps) {
            vxk_jobs_mem_free(&jobs->allocator, keys, (size_t)capacity * sizeof(uint64_t));
            vxk_jobs_mem_free(&jobs->allocator, stamps, (size_t)capacity * sizeof(uint32_t));
            return true;
        }
        for (uint32_t i = 0; i < w->seen_capacity; ++i) {
            if (w->seen_stamps[i] != w->stamp)
                continue;
            uint32_t k = seen_slot(w->seen_keys[i], capacity);
            while (stamps[k] == 1)
                k = (k + 1) & (capacity - 1);
            keys[k] = w->seen_keys[i];
            stamps[k] = 1;
        }
        seen_free(jobs, w);
        w->seen_keys = keys;
        w->seen_stamps = stamps;
        w->seen_capacity = capacity;
        w->stamp = 1;
    }
    uint32_t k = seen_slot(key, w->seen_capacity);
    while (w->seen_stamps[k] == w->stamp) {
        if (w->seen_keys[k] == key)
            return false;
        k = (k + 1) & (w->seen_capacity - 1);
    }
    w->seen_keys[k] = key;
    w->seen_stamps[k] = w->stamp;
    ++w->seen_count;
    return true;
}

static void seen_reset(vxk_walk* w)
{
    w->seen_count = 0;
    if (++w->stamp == 0) {
        if (w->seen_stamps)
            memset(w->seen_stamps, 0, (size_t)w->seen_capacity * sizeof(uint32_t));
        w->stamp = 1;
    }
}

// Claims a ready job that `job` (or, with job NULL, `group`) needs; VXK_JOBS_NIL when none is
// ready and unclaimed now.
static uint32_t closure_find(vxk_jobs* jobs, vxk_jobs_thread* self, const vxk_job* job,
                             vxk_job_group* group)
{
    vxk_walk* w = &self->walk;
    uint32_t top = 0;
    seen_reset(w);
    if (job) {
        if (job->generation == 0 || job->index >= jobs->slot_pool.capacity)
            return VXK_JOBS_NIL;
        if (claim(jobs, job->index, job->generation))
            return job->index;
        walk_push(jobs, w, &top, job->index, job->generation);
    } else if (group) {
        uint32_t x = scan_queues(jobs, self, group);
        if (x != VXK_JOBS_NIL)
            return x;
        // Listed members in submission order: a ready one is taken at once, the waiting ones are
        // walked.
        if (__atomic_load_n(&group->head_do_not_touch, __ATOMIC_ACQUIRE) == 0)
            return VXK_JOBS_NIL;
        group_lock(group);
        for (uint32_t m = group->head_do_not_touch; m; m = jobs->slots[m - 1].group_next) {
            uint32_t generation = generation_of(jobs, m - 1);
            if (claim(jobs, m - 1, generation)) {
                group_unlock(group);
                return m - 1;
            }
            if (atomic_load_explicit(&jobs->slots[m - 1].pending, memory_order_relaxed))
                walk_push(jobs, w, &top, m - 1, generation);
        }
        group_unlock(group);
    }
    while (top) {
        vxk_walk_frame* f = &w->stack[top - 1];
        vxk_job_slot* slot = &jobs->slots[f->index];
        if (generation_of(jobs, f->index) != f->generation) {
            --top; // finished
            continue;
        }
        if (f->cursor == VXK_JOBS_WALK_START) {
            if (claim(jobs, f->index, f->generation))
                return f->index;
            if (atomic_load_explicit(&slot->pending, memory_order_acquire) == 0) {
                --top; // running, or being queued
                continue;
            }
            uint32_t head = atomic_load_explicit(&slot->deps, memory_order_acquire);
            atomic_thread_fence(memory_order_acquire);
            if (generation_of(jobs, f->index) != f->generation) {
                --top;
                continue;
            }
            f->cursor = head;
        }
        if (f->cursor == VXK_JOBS_NIL) {
            --top;
            continue;
        }
        const vxk_job_link* link = &jobs->links[f->cursor];
        uint32_t index = atomic_load_explicit(&link->index, memory_order_relaxed);
        uint32_t generation = atomic_load_explicit(&link->generation, memory_order_relaxed);
        uint32_t next = atomic_load_explicit(&link->next, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (generation_of(jobs, f->index) != f->generation) {
            --top;
            continue;
        }
        f->cursor = next;
        if (index < jobs->slot_pool.capacity &&
            seen_insert(jobs, w, (uint64_t)generation << 32 | index))
            walk_push(jobs, w, &top, index, generation);
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
    vxk_job_group* group = atomic_load_explicit(&slot->group, memory_order_relaxed);
    if (group)
        group_leave(jobs, group, index);
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
            make_ready(
                jobs, self, waiter,
                (uint32_t)(atomic_load_explicit(&jobs->slots[waiter].state, memory_order_relaxed) >>
                           32));
        node = next;
    }
    // The dependency list goes after the generation changed (walkers re-check it).
    uint32_t link = atomic_load_explicit(&slot->deps, memory_order_relaxed);
    while (link != VXK_JOBS_NIL) {
        uint32_t next = atomic_load_explicit(&jobs->links[link].next, memory_order_relaxed);
        pool_release(&jobs->link_pool, &self->link_cache, link);
        link = next;
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

static void run_nested(vxk_jobs* jobs, vxk_jobs_thread* self, uint32_t index)
{
    ++self->nest;
    ++self->stack_depth;
    run_job(jobs, self, index);
    --self->stack_depth;
    --self->nest;
}

// ---- waiting ------------------------------------------------------------------------------

typedef bool wait_done_fn(vxk_jobs* jobs, const void* arg);

typedef struct wait_target {
    wait_done_fn* done;
    const void* arg;
    const vxk_job* job;   // what a wait inside a job may help with: this job's closure,
    vxk_job_group* group; // or this group's members' (neither: nothing)
} wait_target;

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

static uint32_t find_for(vxk_jobs* jobs, vxk_jobs_thread* self, const wait_target* t)
{
    return self->nest == 0 ? find_work(jobs, self) : closure_find(jobs, self, t->job, t->group);
}

static int wait_until(vxk_jobs* jobs, vxk_jobs_thread* self, const wait_target* t);

typedef struct continuation {
    vxk_jobs* jobs;
    vxk_jobs_thread* self;
    const wait_target* target;
    uint32_t first;
    int result;
} continuation;

// The slot's owner becomes this thread while it runs (so that register_thread finds the index
// again after a job used another scheduler, which takes over the thread-local cache), and goes
// back to the waiting thread at the end.
static pthread_t set_slot_thread(vxk_jobs* jobs, vxk_jobs_thread* self, pthread_t thread)
{
    pthread_mutex_lock(&jobs->external_lock);
    pthread_t old = self->thread;
    self->thread = thread;
    pthread_mutex_unlock(&jobs->external_lock);
    return old;
}

static void* continuation_main(void* arg)
{
    continuation* c = arg;
    tls_uid = c->jobs->uid;
    tls_index = c->self->index;
    pthread_t owner = set_slot_thread(c->jobs, c->self, pthread_self());
    uint32_t depth = c->self->stack_depth;
    c->self->stack_depth = 0;
    run_nested(c->jobs, c->self, c->first);
    c->result = wait_until(c->jobs, c->self, c->target);
    c->self->stack_depth = depth;
    set_slot_thread(c->jobs, c->self, owner);
    return NULL;
}

// The wait goes on, from the claimed job `first` on, on a new thread's stack under this thread's
// index; this thread sleeps in pthread_join meanwhile (its slot is not touched by it).
static int continue_elsewhere(vxk_jobs* jobs, vxk_jobs_thread* self, const wait_target* t,
                              uint32_t first)
{
    continuation c = {jobs, self, t, first, 0};
    pthread_t thread;
    if (pthread_create(&thread, NULL, continuation_main, &c) != 0) {
        make_ready(jobs, self, first, generation_of(jobs, first)); // back for others to take
        return VXK_JOBS_ERR_NESTING;
    }
    pthread_join(thread, NULL);
    return c.result;
}

static int wait_until(vxk_jobs* jobs, vxk_jobs_thread* self, const wait_target* t)
{
    uint32_t idle = 0;
    while (!t->done(jobs, t->arg)) {
        uint32_t x = self ? find_for(jobs, self, t) : VXK_JOBS_NIL;
        if (x == VXK_JOBS_NIL) {
            if (++idle < jobs->spin_count) {
                cpu_relax();
                continue;
            }
            idle = 0;
            atomic_fetch_add_explicit(&jobs->sleeping_waiters, 1, memory_order_seq_cst);
            uint32_t epoch = atomic_load_explicit(&jobs->done_epoch, memory_order_seq_cst);
            VXK_FENCE_SEQ_CST();
            bool done = t->done(jobs, t->arg);
            if (!done && self)
                x = find_for(jobs, self, t);
            if (!done && x == VXK_JOBS_NIL) {
                // The per-thread counters behind all_done are not published with seq_cst
                // operations, so that wait (destroy only) re-checks on a short timeout.
                if (t->done == all_done)
                    futex_wait_timed(&jobs->done_epoch, epoch, 1000000);
                else
                    futex_wait(&jobs->done_epoch, epoch);
            }
            atomic_fetch_sub_explicit(&jobs->sleeping_waiters, 1, memory_order_seq_cst);
            if (x == VXK_JOBS_NIL)
                continue;
        }
        if (self->stack_depth >= VXK_JOBS_MAX_STACK_NEST)
            return continue_elsewhere(jobs, self, t, x);
        run_nested(jobs, self, x);
        idle = 0;
    }
    return VXK_JOBS_OK;
}

int vxk_jobs_wait(vxk_jobs* jobs, vxk_job job)
{
    if (!jobs || job_is_done(jobs, &job))
        return VXK_JOBS_OK;
    bool shared;
    vxk_jobs_thread* self = enter(jobs, &shared);
    wait_target t = {job_is_done, &job, &job, NULL};
    int result = wait_until(jobs, self, &t);
    leave(jobs, shared);
    return result;
}

void vxk_job_group_init(vxk_job_group* group)
{
    if (group)
        memset(group, 0, sizeof(*group));
}

int vxk_jobs_wait_group(vxk_jobs* jobs, vxk_job_group* group)
{
    if (!jobs || !group || group_is_done(jobs, group))
        return VXK_JOBS_OK;
    bool shared;
    vxk_jobs_thread* self = enter(jobs, &shared);
    wait_target t = {group_is_done, group, NULL, group};
    int result = wait_until(jobs, self, &t);
    leave(jobs, shared);
    return result;
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
        if (idle == 0 || work_available(jobs)) {
            uint32_t x = find_work(jobs, self);
            if (x != VXK_JOBS_NIL) {
                run_nested(jobs, self, x); // the job's own waits count as inside a job
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
        if (!atomic_load_explicit(&jobs->stop, memory_order_seq_cst) && !work_available(jobs))
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
    const vxk_jobs_allocator* a = &jobs->allocator;
    if (jobs->threads) {
        for (uint32_t i = 0; i < jobs->thread_count; ++i) {
            vxk_jobs_thread* t = &jobs->threads[i];
            vxk_deque_free(&t->deque);
            vxk_jobs_mem_free(a, t->scratch, jobs->scratch_bytes ? jobs->scratch_bytes : 1);
            vxk_jobs_mem_free(a, t->trace, (size_t)jobs->trace_capacity * sizeof(vxk_trace_event));
            vxk_jobs_mem_free(a, t->walk.stack,
                              (size_t)t->walk.stack_capacity * sizeof(vxk_walk_frame));
            seen_free(jobs, &t->walk);
        }
        vxk_jobs_mem_free(a, jobs->threads, (size_t)jobs->thread_count * sizeof(vxk_jobs_thread));
    }
    pool_free_memory(&jobs->slot_pool);
    pool_free_memory(&jobs->node_pool);
    pool_free_memory(&jobs->link_pool);
    vxk_jobs_mem_free(a, jobs->slots_memory, jobs->slots_bytes);
    vxk_jobs_mem_free(a, jobs->nodes, (size_t)jobs->node_pool.capacity * sizeof(vxk_job_node));
    vxk_jobs_mem_free(a, jobs->links, (size_t)jobs->link_pool.capacity * sizeof(vxk_job_link));
    vxk_jobs_mem_free(a, jobs->inject_items, (size_t)jobs->inject_capacity * sizeof(uint32_t));
    pthread_mutex_destroy(&jobs->inject_lock);
    pthread_mutex_destroy(&jobs->external_lock);
    pthread_mutex_destroy(&jobs->shared_lock);
    vxk_jobs_allocator allocator = jobs->allocator;
    vxk_jobs_mem_free(&allocator, jobs, sizeof(vxk_jobs));
}

int vxk_jobs_create(const vxk_jobs_def* def, vxk_jobs** out)
{
    if (!def || !out)
        return VXK_JOBS_ERR_INVALID_ARGUMENT;
    if (def->cookie != VXK_JOBS_COOKIE || def->max_jobs == 0 ||
        def->max_jobs > VXK_JOBS_MAX_CAPACITY / 2 || def->worker_count > VXK_JOBS_MAX_THREADS ||
        def->external_threads > VXK_JOBS_MAX_THREADS || def->trace_capacity > (1u << 24) ||
        !def->allocator.alloc != !def->allocator.free)
        return VXK_JOBS_ERR_BAD_DEF;
    uint32_t workers = def->worker_count;
    if (workers == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        workers = cores < 1                      ? 1
                  : cores > VXK_JOBS_MAX_THREADS ? VXK_JOBS_MAX_THREADS
                                                 : (uint32_t)cores;
    }
    *out = NULL;
    vxk_jobs* jobs = vxk_jobs_mem_alloc(&def->allocator, sizeof(vxk_jobs), true);
    if (!jobs)
        return VXK_JOBS_ERR_OUT_OF_MEMORY;
    jobs->allocator = def->allocator;
    jobs->uid = atomic_fetch_add(&g_next_uid, 1);
    jobs->worker_count = workers;
    jobs->thread_count = workers + def->external_threads + 1;
    jobs->shared = jobs->thread_count - 1;
    jobs->spin_count = def->spin_count ? def->spin_count : 1;
    jobs->trace_capacity = def->trace_capacity;
    jobs->scratch_bytes = def->scratch_bytes;
    jobs->trace_base_ns = vxk_jobs_now_ns();
    pthread_mutex_init(&jobs->inject_lock, NULL);
    pthread_mutex_init(&jobs->external_lock, NULL);
    pthread_mutex_init(&jobs->shared_lock, NULL);

    // Indices parked in per-thread caches are not usable by others, so the pools hold extra.
    uint32_t slack = jobs->thread_count * VXK_JOBS_CACHE;
    uint32_t slot_capacity = def->max_jobs + slack;
    uint32_t node_capacity = 2 * def->max_jobs + slack;
    // Zeroed (without a hook through calloc: large blocks come from fresh zero pages, touched
    // only as jobs use them). A zero state is generation 0, which no handle carries.
    const vxk_jobs_allocator* a = &jobs->allocator;
    jobs->slots_bytes = ((size_t)slot_capacity + 1) * sizeof(vxk_job_slot);
    jobs->slots_memory = vxk_jobs_mem_alloc(a, jobs->slots_bytes, true);
    if (jobs->slots_memory)
        jobs->slots = (vxk_job_slot*)(((uintptr_t)jobs->slots_memory + 63) & ~(uintptr_t)63);
    jobs->nodes = vxk_jobs_mem_alloc(a, (size_t)node_capacity * sizeof(vxk_job_node), true);
    jobs->links = vxk_jobs_mem_alloc(a, (size_t)node_capacity * sizeof(vxk_job_link), true);
    jobs->threads =
        vxk_jobs_mem_alloc(a, (size_t)jobs->thread_count * sizeof(vxk_jobs_thread), true);
    jobs->inject_capacity = 256;
    jobs->inject_items = vxk_jobs_mem_alloc(a, jobs->inject_capacity * sizeof(uint32_t), false);
    // The pools' capacities size the node arrays when they are freed: set them even if a pool
    // fails.
    jobs->node_pool.capacity = node_capacity;
    jobs->link_pool.capacity = node_capacity;
    bool ok = jobs->slots && jobs->nodes && jobs->links && jobs->threads && jobs->inject_items &&
              pool_init(&jobs->slot_pool, slot_capacity, a) &&
              pool_init(&jobs->node_pool, node_capacity, a) &&
              pool_init(&jobs->link_pool, node_capacity, a);
    for (uint32_t i = 0; ok && i < jobs->thread_count; ++i) {
        vxk_jobs_thread* t = &jobs->threads[i];
        t->owner = jobs;
        t->index = i;
        t->rng = 0x9E3779B97F4A7C15ull * (i + 1);
        atomic_init(&t->submitted, 0);
        atomic_init(&t->finished, 0);
        if (i < workers)
            ok = vxk_deque_init(&t->deque, 1024, a);
        if (ok && jobs->trace_capacity) {
            t->trace = vxk_jobs_mem_alloc(a, (size_t)jobs->trace_capacity * sizeof(vxk_trace_event),
                                          false);
            ok = t->trace != NULL;
        }
    }
    if (!ok || pthread_key_create(&jobs->exit_key, thread_exit) != 0) {
        free_jobs(jobs);
        return VXK_JOBS_ERR_OUT_OF_MEMORY;
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
            pthread_key_delete(jobs->exit_key);
            free_jobs(jobs);
            return VXK_JOBS_ERR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_lock(&g_live_lock);
    jobs->next_live = g_live;
    g_live = jobs;
    pthread_mutex_unlock(&g_live_lock);
    *out = jobs;
    return VXK_JOBS_OK;
}

void vxk_jobs_destroy(vxk_jobs* jobs)
{
    if (!jobs)
        return;
    bool shared;
    vxk_jobs_thread* self = enter(jobs, &shared);
    wait_target t = {all_done, NULL, NULL, NULL};
    wait_until(jobs, self, &t);
    leave(jobs, shared);
    atomic_store_explicit(&jobs->stop, true, memory_order_seq_cst);
    atomic_fetch_add_explicit(&jobs->work_epoch, 1, memory_order_seq_cst);
    futex_wake(&jobs->work_epoch, INT_MAX);
    for (uint32_t i = 1; i < jobs->worker_count; ++i)
        pthread_join(jobs->threads[i].handle, NULL);
    // After this no thread-exit destructor can reach the scheduler.
    pthread_mutex_lock(&g_live_lock);
    for (vxk_jobs** p = &g_live; *p; p = &(*p)->next_live) {
        if (*p == jobs) {
            *p = jobs->next_live;
            break;
        }
    }
    pthread_mutex_unlock(&g_live_lock);
    pthread_key_delete(jobs->exit_key);
    if (tls_uid == jobs->uid)
        tls_uid = 0;
    free_jobs(jobs);
}

// ---- submit -------------------------------------------------------------------------------

// Adds `waiter` to the continuation list of `dep` and dep to the waiter's dependency list
// (*list); false when dep has finished already.
static bool attach(vxk_jobs* jobs, vxk_jobs_thread* self, vxk_job dep, uint32_t waiter,
                   uint32_t* list)
{
    if (dep.generation == 0 || dep.index >= jobs->slot_pool.capacity)
        return false;
    vxk_job_slot* slot = &jobs->slots[dep.index];
    uint64_t state = atomic_load_explicit(&slot->state, memory_order_acquire);
    if ((uint32_t)(state >> 32) != dep.generation)
        return false;
    uint32_t node = pool_alloc(&jobs->node_pool, &self->node_cache);
    uint32_t link = pool_alloc(&jobs->link_pool, &self->link_cache);
    if (node == VXK_JOBS_NIL || link == VXK_JOBS_NIL) {
        if (node != VXK_JOBS_NIL)
            pool_release(&jobs->node_pool, &self->node_cache, node);
        if (link != VXK_JOBS_NIL)
            pool_release(&jobs->link_pool, &self->link_cache, link);
        // No node left: let the dependency finish before going on.
        wait_target t = {job_is_done, &dep, &dep, NULL};
        wait_until(jobs, self, &t);
        return false;
    }
    jobs->nodes[node].job = waiter;
    do {
        if ((uint32_t)(state >> 32) != dep.generation) {
            pool_release(&jobs->node_pool, &self->node_cache, node);
            pool_release(&jobs->link_pool, &self->link_cache, link);
            return false;
        }
        jobs->nodes[node].next = (uint32_t)state;
    } while (!atomic_compare_exchange_weak_explicit(&slot->state, &state,
                                                    (state & 0xFFFFFFFF00000000ull) | node,
                                                    memory_order_release, memory_order_acquire));
    // Release stores: a walker still reading this link for its previous owner re-checks that
    // owner's generation after an acquire fence, which synchronises with these stores.
    vxk_job_link* l = &jobs->links[link];
    atomic_store_explicit(&l->index, dep.index, memory_order_release);
    atomic_store_explicit(&l->generation, dep.generation, memory_order_release);
    atomic_store_explicit(&l->next, *list, memory_order_release);
    *list = link;
    return true;
}

static vxk_job submit(vxk_jobs* jobs, vxk_jobs_thread* self, const vxk_job_desc* desc)
{
    vxk_job handle = {0, 0};
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
    atomic_store_explicit(&slot->group, desc->group, memory_order_relaxed);
    atomic_store_explicit(&slot->deps, VXK_JOBS_NIL, memory_order_relaxed);
    atomic_store_explicit(&slot->state, (uint64_t)generation << 32 | VXK_JOBS_NIL,
                          memory_order_relaxed);
    atomic_store_explicit(&self->submitted,
                          atomic_load_explicit(&self->submitted, memory_order_relaxed) + 1,
                          memory_order_release);
    handle.index = index;
    handle.generation = generation;
    if (desc->dep_count == 0) {
        atomic_store_explicit(&slot->pending, 0, memory_order_relaxed);
        if (desc->group)
            group_join(jobs, desc->group, index, false);
        make_ready(jobs, self, index, generation);
        return handle;
    }
    // One extra count held while attaching, so the job cannot start before all deps are seen.
    atomic_store_explicit(&slot->pending, desc->dep_count + 1, memory_order_relaxed);
    uint32_t unattached = 1;
    uint32_t list = VXK_JOBS_NIL;
    for (uint32_t i = 0; i < desc->dep_count; ++i)
        unattached += attach(jobs, self, desc->deps[i], index, &list) ? 0 : 1;
    atomic_store_explicit(&slot->deps, list, memory_order_release);
    // Joined once its list is complete: a wait on the group walks what it finds there.
    if (desc->group)
        group_join(jobs, desc->group, index, list != VXK_JOBS_NIL);
    if (atomic_fetch_sub_explicit(&slot->pending, unattached, memory_order_acq_rel) == unattached)
        make_ready(jobs, self, index, generation);
    return handle;
}

vxk_job vxk_jobs_submit(vxk_jobs* jobs, const vxk_job_desc* desc)
{
    if (!jobs || !desc || !desc->fn || (desc->dep_count && !desc->deps))
        return (vxk_job){0, 0};
    bool shared;
    vxk_jobs_thread* self = enter(jobs, &shared);
    vxk_job handle = submit(jobs, self, desc);
    leave(jobs, shared);
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

static void parallel_for_inline(vxk_jobs* jobs, vxk_jobs_thread* self, const char* name,
                                uint32_t count, uint32_t grain, vxk_range_fn* fn, void* ctx)
{
    uint64_t start = jobs->trace_capacity ? vxk_jobs_now_ns() : 0;
    for (uint64_t begin = 0; begin < count; begin += grain)
        fn(ctx, (uint32_t)begin, (uint32_t)(begin + grain < count ? begin + grain : count),
           self->index);
    if (start)
        vxk_jobs_trace_record(jobs, self, name, start, vxk_jobs_now_ns());
}

void vxk_jobs_trace_span(vxk_jobs* jobs, const char* name, uint64_t begin_ns, uint64_t end_ns)
{
    if (!jobs || !jobs->trace_capacity)
        return;
    bool shared;
    vxk_jobs_thread* self = enter(jobs, &shared);
    vxk_jobs_trace_record(jobs, self, name, begin_ns, end_ns);
    leave(jobs, shared);
}

void vxk_parallel_for(vxk_jobs* jobs, const char* name, uint32_t count, uint32_t grain,
                      vxk_range_fn* fn, void* ctx)
{
    if (!jobs || !fn || count == 0)
        return;
    grain = grain ? grain : 1;
    uint32_t pieces = vxk_parallel_for_pieces(count, grain);
    bool shared;
    vxk_jobs_thread* self = enter(jobs, &shared);
    // At the nesting cap the caller runs every piece itself: no helper to wait for.
    if (jobs->worker_count == 1 || pieces == 1 || self->stack_depth >= VXK_JOBS_MAX_STACK_NEST) {
        parallel_for_inline(jobs, self, name, count, grain, fn, ctx);
        leave(jobs, shared);
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
    // Helpers are awaited by handle: inside a job that wait may run the helpers themselves
    // (each finds no piece left once the caller is through), never unrelated jobs.
    vxk_job helpers[VXK_PFOR_MAX_PARTS];
    uint32_t helper_count = 0;
    vxk_job_desc desc = {name, parallel_for_job, &p, NULL, 0, NULL};
    for (uint32_t i = 1; i < parts; ++i) {
        helpers[helper_count] = submit(jobs, self, &desc);
        if (helpers[helper_count].generation == 0)
            break; // pool full: the remaining blocks are claimed by the running participants
        ++helper_count;
    }
    uint64_t start = jobs->trace_capacity ? vxk_jobs_now_ns() : 0;
    parallel_for_run(&p, 0, self->index);
    if (start)
        vxk_jobs_trace_record(jobs, self, name, start, vxk_jobs_now_ns());
    // Below the cap (checked above) these waits never need a new stack.
    for (uint32_t i = 0; i < helper_count; ++i) {
        wait_target t = {job_is_done, &helpers[i], &helpers[i], NULL};
        wait_until(jobs, self, &t);
    }
    leave(jobs, shared);
}
