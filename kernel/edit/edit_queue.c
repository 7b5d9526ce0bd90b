// edit_queue.c: the bounded multi-producer edit queue (after Dmitry Vyukov's bounded MPMC queue,
// with one consumer) and the outcome ring (seqlock slots). See edit_queue.h.
#define _POSIX_C_SOURCE 200809L // clock_gettime, nanosleep, pthread_condattr_setclock

#include "edit_queue.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

vxk_status vxk_edit_queue_init(vxk_edit_queue* q, uint32_t capacity, uint32_t outcomes)
{
    memset(q, 0, sizeof(*q));
    q->cells = (vxk_edit_cell*)vxk_alloc_aligned64((size_t)capacity * sizeof(vxk_edit_cell));
    q->outcomes = (vxk_edit_outcome_slot*)vxk_calloc((size_t)outcomes * sizeof(*q->outcomes));
    if (!q->cells || !q->outcomes) {
        if (q->cells)
            vxk_free_aligned64(q->cells, (size_t)capacity * sizeof(vxk_edit_cell));
        vxk_free(q->outcomes, (size_t)outcomes * sizeof(*q->outcomes));
        memset(q, 0, sizeof(*q));
        return VXK_ERR_OUT_OF_MEMORY;
    }
    q->mask = capacity - 1;
    q->outcome_mask = outcomes - 1;
    for (uint64_t i = 0; i < capacity; ++i)
        atomic_init(&q->cells[i].sequence, i);
    for (uint64_t i = 0; i < outcomes; ++i) {
        atomic_init(&q->outcomes[i].tag, 0);
        atomic_init(&q->outcomes[i].info, 0);
    }
    atomic_init(&q->enqueue, 0);
    atomic_init(&q->dequeue, 0);
    atomic_init(&q->waiters, 0);
    atomic_init(&q->refusals, 0);
    pthread_mutex_init(&q->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&q->room, &attr);
    pthread_condattr_destroy(&attr);
    return VXK_OK;
}

void vxk_edit_queue_destroy(vxk_edit_queue* q)
{
    if (!q->cells)
        return;
    vxk_free_aligned64(q->cells, (size_t)(q->mask + 1) * sizeof(vxk_edit_cell));
    vxk_free(q->outcomes, (size_t)(q->outcome_mask + 1) * sizeof(*q->outcomes));
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->room);
    memset(q, 0, sizeof(*q));
}

uint64_t vxk_edit_queue_bytes(const vxk_edit_queue* q)
{
    if (!q->cells)
        return 0;
    return (q->mask + 1) * sizeof(vxk_edit_cell) + (q->outcome_mask + 1) * sizeof(*q->outcomes);
}

// One attempt: claims a free cell and fills it, or finds the ring full.
static bool try_push(vxk_edit_queue* q, const vxk_edit* edit, uint64_t* position)
{
    uint64_t pos = atomic_load_explicit(&q->enqueue, memory_order_relaxed);
    for (;;) {
        vxk_edit_cell* cell = &q->cells[pos & q->mask];
        uint64_t seq = atomic_load_explicit(&cell->sequence, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            // seq_cst: the claim and the writer's "sleeping" flag (edit_thread.c) are ordered as
            // in Dekker's protocol, so a sleeping writer is always woken.
            if (atomic_compare_exchange_weak_explicit(&q->enqueue, &pos, pos + 1,
                                                      memory_order_seq_cst, memory_order_relaxed))
                break;
        } else if (dif < 0) {
            return false; // the cell still holds the edit of pos - capacity
        } else {
            pos = atomic_load_explicit(&q->enqueue, memory_order_relaxed);
        }
    }
    vxk_edit_cell* cell = &q->cells[pos & q->mask];
    cell->edit = *edit;
    atomic_store_explicit(&cell->sequence, pos + 1, memory_order_release);
    *position = pos;
    return true;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

vxk_status vxk_edit_queue_push(vxk_edit_queue* q, const vxk_edit* edit, uint64_t* position,
                               uint32_t timeout_us)
{
    if (try_push(q, edit, position))
        return VXK_OK;
    if (timeout_us == 0) {
        atomic_fetch_add_explicit(&q->refusals, 1, memory_order_relaxed);
        return VXK_ERR_CAPACITY;
    }
    bool forever = timeout_us == VXK_EDIT_WAIT_FOREVER;
    uint64_t deadline = now_ns() + (uint64_t)timeout_us * 1000u;
    pthread_mutex_lock(&q->lock);
    atomic_fetch_add_explicit(&q->waiters, 1, memory_order_seq_cst);
    bool pushed;
    while (!(pushed = try_push(q, edit, position))) {
        uint64_t now = now_ns();
        if (!forever && now >= deadline)
            break;
        // Waits in slices of at most a millisecond: a wake-up that raced the check costs one.
        uint64_t until = now + 1000000u;
        if (!forever && deadline < until)
            until = deadline;
        struct timespec ts = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
        pthread_cond_timedwait(&q->room, &q->lock, &ts);
    }
    atomic_fetch_sub_explicit(&q->waiters, 1, memory_order_seq_cst);
    pthread_mutex_unlock(&q->lock);
    if (pushed)
        return VXK_OK;
    atomic_fetch_add_explicit(&q->refusals, 1, memory_order_relaxed);
    return VXK_ERR_CAPACITY;
}

bool vxk_edit_queue_ready(const vxk_edit_queue* q, uint64_t position)
{
    const vxk_edit_cell* cell = &q->cells[position & q->mask];
    return atomic_load_explicit(&cell->sequence, memory_order_acquire) == position + 1;
}

void vxk_edit_queue_take(vxk_edit_queue* q, uint64_t position, vxk_edit* out)
{
    vxk_edit_cell* cell = &q->cells[position & q->mask];
    VXK_ASSERT(atomic_load_explicit(&cell->sequence, memory_order_acquire) == position + 1);
    *out = cell->edit;
    atomic_store_explicit(&cell->sequence, position + q->mask + 1, memory_order_seq_cst);
    atomic_store_explicit(&q->dequeue, position + 1, memory_order_release);
    if (atomic_load_explicit(&q->waiters, memory_order_seq_cst)) {
        pthread_mutex_lock(&q->lock);
        pthread_cond_broadcast(&q->room);
        pthread_mutex_unlock(&q->lock);
    }
}

bool vxk_edit_outcome_write(vxk_edit_queue* q, uint64_t position, uint64_t info, bool only_same)
{
    vxk_edit_outcome_slot* slot = &q->outcomes[position & q->outcome_mask];
    uint64_t want = (position + 1) << 1;
    uint64_t old = atomic_load_explicit(&slot->tag, memory_order_relaxed);
    for (;;) {
        if (old & 1) { // the other writer is on this slot
            sched_yield();
            old = atomic_load_explicit(&slot->tag, memory_order_relaxed);
            continue;
        }
        if (only_same && old != want)
            return false;
        if (atomic_compare_exchange_weak_explicit(&slot->tag, &old, want | 1, memory_order_acq_rel,
                                                  memory_order_relaxed))
            break;
    }
    atomic_store_explicit(&slot->info, info, memory_order_relaxed);
    atomic_store_explicit(&slot->tag, want, memory_order_release);
    return true;
}

int vxk_edit_outcome_read(const vxk_edit_queue* q, uint64_t position, uint64_t* info)
{
    const vxk_edit_outcome_slot* slot = &q->outcomes[position & q->outcome_mask];
    uint64_t want = (position + 1) << 1;
    for (;;) {
        uint64_t t1 = atomic_load_explicit(&slot->tag, memory_order_acquire);
        if (t1 & 1) {
            sched_yield();
            continue;
        }
        uint64_t value = atomic_load_explicit(&slot->info, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        uint64_t t2 = atomic_load_explicit(&slot->tag, memory_order_relaxed);
        if (t1 != t2)
            continue;
        if (t1 < want)
            return 0;
        if (t1 > want)
            return -1;
        *info = value;
        return 1;
    }
}
