// edit_queue.h: the edit system's queue and outcomes. The queue is a bounded multi-producer,
// single-consumer ring after Vyukov's bounded MPMC queue: a producer claims the next position
// with one compare-and-swap and publishes its cell by the cell's sequence word, so the position is
// the edit's ticket (ticket = position + 1) and the consumer takes edits in ticket order. The
// outcome ring keeps one 16-byte slot per ticket (position modulo its size), written under a
// per-slot busy bit and read as a seqlock, so readers never take a lock.
//
// Thread-safety: push and push_wait from any thread; ready, take and the outcome writes from the
// one writer of the edit system at a time (edit_thread.c serialises them); outcome reads and the
// counters from any thread.
#ifndef VXK_EDIT_QUEUE_H
#define VXK_EDIT_QUEUE_H

#include <vxk/edit.h>

#include "core.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct vxk_edit_cell {
    _Atomic uint64_t sequence; // position + 1 when the cell holds position's edit
    vxk_edit edit;
} vxk_edit_cell; // 64 bytes: one cache line
_Static_assert(sizeof(vxk_edit_cell) == 64, "an edit cell is one cache line");

typedef struct vxk_edit_outcome_slot {
    _Atomic uint64_t tag;  // (position + 1) << 1 | busy; 0 for a slot never written
    _Atomic uint64_t info; // state | status << 2 | step << 8
} vxk_edit_outcome_slot;   // 16 bytes
_Static_assert(sizeof(vxk_edit_outcome_slot) == 16, "an outcome slot is 16 bytes");

typedef struct vxk_edit_queue {
    vxk_edit_cell* cells;
    uint64_t mask; // capacity - 1
    vxk_edit_outcome_slot* outcomes;
    uint64_t outcome_mask;
    uint8_t pad0[32];
    _Atomic uint64_t enqueue; // positions claimed: tickets issued
    uint8_t pad1[56];
    _Atomic uint64_t dequeue; // positions taken by the consumer
    uint8_t pad2[56];
    // Producers waiting for room, woken by the consumer.
    pthread_mutex_t lock;
    pthread_cond_t room;
    _Atomic uint32_t waiters;
    _Atomic uint64_t refusals; // pushes that returned VXK_ERR_CAPACITY
} vxk_edit_queue;

// Capacities are powers of two (checked by the caller). VXK_ERR_OUT_OF_MEMORY leaves nothing to
// destroy.
vxk_status vxk_edit_queue_init(vxk_edit_queue* queue, uint32_t capacity, uint32_t outcomes);
void vxk_edit_queue_destroy(vxk_edit_queue* queue);
uint64_t vxk_edit_queue_bytes(const vxk_edit_queue* queue);

// Queues a copy of edit and writes its position; VXK_ERR_CAPACITY when the ring is still full
// after timeout_us microseconds (VXK_EDIT_WAIT_FOREVER: no limit). Lock-free unless it waits.
vxk_status vxk_edit_queue_push(vxk_edit_queue* queue, const vxk_edit* edit, uint64_t* position,
                               uint32_t timeout_us);

// The consumer: whether the edit at `position` (the next to take) has been written, and taking
// it (copied out, its cell freed for a producer, waiting producers woken).
bool vxk_edit_queue_ready(const vxk_edit_queue* queue, uint64_t position);
void vxk_edit_queue_take(vxk_edit_queue* queue, uint64_t position, vxk_edit* out);

// Positions claimed so far (acquire: every edit below was claimed before).
static inline uint64_t vxk_edit_queue_issued(const vxk_edit_queue* queue)
{
    return atomic_load_explicit(&queue->enqueue, memory_order_seq_cst);
}

// Outcome info words.
static inline uint64_t vxk_edit_outcome_info(vxk_edit_state state, vxk_status status, uint64_t step)
{
    return (uint64_t)state | (uint64_t)status << 2 | step << 8;
}

// Writes the outcome of `position`. With only_same, only over the slot's own earlier outcome
// (false when a newer position took the slot: the outcome has expired).
bool vxk_edit_outcome_write(vxk_edit_queue* queue, uint64_t position, uint64_t info,
                            bool only_same);

// Reads the outcome of `position`: 1 with *info, 0 when the slot holds an older position (not
// yet written), -1 when a newer one took it.
int vxk_edit_outcome_read(const vxk_edit_queue* queue, uint64_t position, uint64_t* info);

#endif
