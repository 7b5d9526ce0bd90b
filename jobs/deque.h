// deque.h: the per-worker work-stealing deque of job indices (Chase and Lev, SPAA 2005), in the
// C11 formulation of Le, Pop, Cohen and Zappa Nardelli, "Correct and efficient work-stealing for
// weak memory models" (PPoPP 2013). The owner pushes and takes at the bottom; thieves steal at
// the top.
#ifndef VXK_JOBS_DEQUE_H
#define VXK_JOBS_DEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "memory.h"

#if defined(VXK_TSAN) || defined(__SANITIZE_THREAD__)
// ThreadSanitizer does not model fences (GCC rejects them under -fsanitize=thread). A seq_cst
// read-modify-write of one shared word orders the same store-then-load pairs and is understood.
extern _Atomic uint32_t vxk_jobs_fence_word;
#define VXK_FENCE_SEQ_CST() \
    ((void)atomic_fetch_add_explicit(&vxk_jobs_fence_word, 0, memory_order_seq_cst))
#define VXK_FENCE_RELEASE() ((void)0) // the release store that follows carries the order
#else
#define VXK_FENCE_SEQ_CST() atomic_thread_fence(memory_order_seq_cst)
#define VXK_FENCE_RELEASE() atomic_thread_fence(memory_order_release)
#endif

#define VXK_DEQUE_EMPTY UINT32_MAX
#define VXK_DEQUE_ABORT (UINT32_MAX - 1)

typedef struct vxk_deque_array {
    int64_t size;                    // a power of two
    struct vxk_deque_array* retired; // older arrays, freed with the deque (thieves may read them)
    _Atomic uint32_t items[];
} vxk_deque_array;

typedef struct vxk_deque {
    _Alignas(64) _Atomic int64_t top;
    _Alignas(64) _Atomic int64_t bottom;
    _Atomic(vxk_deque_array*) array;
    int64_t top_cache; // owner only: a past value of top (top never decreases)
    const vxk_jobs_allocator* allocator;
} vxk_deque;

// Returns false when out of memory. capacity is rounded up to a power of two. The allocator
// must outlive the deque.
bool vxk_deque_init(vxk_deque* deque, int64_t capacity, const vxk_jobs_allocator* allocator);
void vxk_deque_free(vxk_deque* deque);
// Owner only. Grows the array when full; returns false only when out of memory.
bool vxk_deque_push(vxk_deque* deque, uint32_t item);
// Owner only: the newest item, or VXK_DEQUE_EMPTY.
uint32_t vxk_deque_take(vxk_deque* deque);
// Any thread: the oldest item, VXK_DEQUE_EMPTY, or VXK_DEQUE_ABORT when another thread won the
// race for it.
uint32_t vxk_deque_steal(vxk_deque* deque);
// Any thread: the positions [*top, *bottom) held at some recent moment.
static inline void vxk_deque_range(vxk_deque* deque, int64_t* top, int64_t* bottom)
{
    *top = atomic_load_explicit(&deque->top, memory_order_acquire);
    *bottom = atomic_load_explicit(&deque->bottom, memory_order_acquire);
}
// Any thread: the item at position i, read without taking it. Racy by design: it may be taken,
// stale or overwritten by then; callers validate what they find.
static inline uint32_t vxk_deque_peek(vxk_deque* deque, int64_t i)
{
    vxk_deque_array* a = atomic_load_explicit(&deque->array, memory_order_acquire);
    return atomic_load_explicit(&a->items[i & (a->size - 1)], memory_order_relaxed);
}
// Any thread: a racy hint that the deque holds items (used before sleeping).
static inline bool vxk_deque_maybe_nonempty(vxk_deque* deque)
{
    int64_t t = atomic_load_explicit(&deque->top, memory_order_acquire);
    int64_t b = atomic_load_explicit(&deque->bottom, memory_order_acquire);
    return b > t;
}

#endif
