// deque.c: Chase-Lev work-stealing deque with the memory orders of Le et al. (PPoPP 2013),
// "Correct and efficient work-stealing for weak memory models", figure 1. Indices are signed so
// that bottom - 1 on an empty deque stays comparable with top.
//
// Why these orders suffice (the argument of Lê et al., section 4, applied to this code):
// - push: the item is stored before bottom is raised, and the release fence (a release store
//   here) orders the two. A thief that reads the raised bottom with acquire then reads the item
//   written before it, never an older value of the cell.
// - take vs steal for the last item: the owner lowers bottom and then reads top; a thief reads
//   top and then bottom. Each pair is a store followed by a load of another location, which
//   only a seq_cst fence orders (acquire/release cannot: this is the store-buffering pattern).
//   With both fences, the owner and a thief cannot both miss each other's update: either the
//   thief sees the lowered bottom (and finds the deque empty or the item gone), or the owner
//   sees the advanced top, or both race through the CAS on top, which exactly one wins. So no
//   item is taken twice and none is lost.
// - steal's CAS on top is seq_cst so that it is part of that single order, and a failed CAS
//   returns ABORT without touching the item it read.
// - grow: a thief may read the old array after the owner published a new one; the owner copies
//   the live range first and publishes with release, thieves load the array with acquire
//   (consume in the paper), and old arrays stay allocated until the deque is freed.
// Under ThreadSanitizer the two seq_cst fences become seq_cst RMWs of one shared word (see
// deque.h), which orders more than the fences do; test_jobs_contracts stresses the fence build
// itself in the Release and ASan runs.
#include "deque.h"

#include <stdlib.h>

#if defined(VXK_TSAN) || defined(__SANITIZE_THREAD__)
_Atomic uint32_t vxk_jobs_fence_word;
#endif

static size_t array_bytes(int64_t size)
{
    return sizeof(vxk_deque_array) + (size_t)size * sizeof(_Atomic uint32_t);
}

static vxk_deque_array* array_new(const vxk_jobs_allocator* allocator, int64_t size)
{
    // Zeroed: vxk_deque_peek may read a cell no push wrote yet.
    vxk_deque_array* a = vxk_jobs_mem_alloc(allocator, array_bytes(size), true);
    if (!a)
        return NULL;
    a->size = size;
    a->retired = NULL;
    return a;
}

bool vxk_deque_init(vxk_deque* deque, int64_t capacity, const vxk_jobs_allocator* allocator)
{
    int64_t size = 16;
    while (size < capacity)
        size *= 2;
    deque->allocator = allocator;
    vxk_deque_array* a = array_new(allocator, size);
    if (!a)
        return false;
    atomic_init(&deque->top, 0);
    atomic_init(&deque->bottom, 0);
    atomic_init(&deque->array, a);
    deque->top_cache = 0;
    return true;
}

void vxk_deque_free(vxk_deque* deque)
{
    vxk_deque_array* a = atomic_load_explicit(&deque->array, memory_order_relaxed);
    while (a) {
        vxk_deque_array* older = a->retired;
        vxk_jobs_mem_free(deque->allocator, a, array_bytes(a->size));
        a = older;
    }
    atomic_store_explicit(&deque->array, NULL, memory_order_relaxed);
}

// Owner only. The old array stays alive (chained) because a thief may still read from it.
static vxk_deque_array* grow(vxk_deque* deque, vxk_deque_array* a, int64_t t, int64_t b)
{
    vxk_deque_array* bigger = array_new(deque->allocator, a->size * 2);
    if (!bigger)
        return NULL;
    for (int64_t i = t; i < b; ++i) {
        uint32_t v = atomic_load_explicit(&a->items[i & (a->size - 1)], memory_order_relaxed);
        atomic_store_explicit(&bigger->items[i & (bigger->size - 1)], v, memory_order_relaxed);
    }
    bigger->retired = a;
    atomic_store_explicit(&deque->array, bigger, memory_order_release);
    return bigger;
}

bool vxk_deque_push(vxk_deque* deque, uint32_t item)
{
    int64_t b = atomic_load_explicit(&deque->bottom, memory_order_relaxed);
    vxk_deque_array* a = atomic_load_explicit(&deque->array, memory_order_relaxed);
    // A stale top only underestimates the free room, so top is re-read only when the deque
    // looks full; this keeps the thieves' cache line out of the owner's push path.
    int64_t t = deque->top_cache;
    if (b - t > a->size - 1) {
        t = atomic_load_explicit(&deque->top, memory_order_acquire);
        deque->top_cache = t;
    }
    if (b - t > a->size - 1) {
        a = grow(deque, a, t, b);
        if (!a)
            return false;
    }
    atomic_store_explicit(&a->items[b & (a->size - 1)], item, memory_order_relaxed);
    VXK_FENCE_RELEASE();
    // The paper's store is relaxed after the release fence; a release store is equivalent here
    // and lets ThreadSanitizer (which does not model fences) see the publication of the job.
    atomic_store_explicit(&deque->bottom, b + 1, memory_order_release);
    return true;
}

uint32_t vxk_deque_take(vxk_deque* deque)
{
    int64_t b = atomic_load_explicit(&deque->bottom, memory_order_relaxed) - 1;
    vxk_deque_array* a = atomic_load_explicit(&deque->array, memory_order_relaxed);
    atomic_store_explicit(&deque->bottom, b, memory_order_relaxed);
    VXK_FENCE_SEQ_CST();
    int64_t t = atomic_load_explicit(&deque->top, memory_order_relaxed);
    uint32_t x;
    if (t <= b) {
        x = atomic_load_explicit(&a->items[b & (a->size - 1)], memory_order_relaxed);
        if (t == b) {
            // Last item: race the thieves for it through top.
            if (!atomic_compare_exchange_strong_explicit(
                    &deque->top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed))
                x = VXK_DEQUE_EMPTY;
            atomic_store_explicit(&deque->bottom, b + 1, memory_order_relaxed);
        }
    } else {
        x = VXK_DEQUE_EMPTY;
        atomic_store_explicit(&deque->bottom, b + 1, memory_order_relaxed);
    }
    return x;
}

uint32_t vxk_deque_steal(vxk_deque* deque)
{
    int64_t t = atomic_load_explicit(&deque->top, memory_order_acquire);
    VXK_FENCE_SEQ_CST();
    int64_t b = atomic_load_explicit(&deque->bottom, memory_order_acquire);
    if (t >= b)
        return VXK_DEQUE_EMPTY;
    // memory_order_consume in the paper; compilers promote it to acquire anyway.
    vxk_deque_array* a = atomic_load_explicit(&deque->array, memory_order_acquire);
    uint32_t x = atomic_load_explicit(&a->items[t & (a->size - 1)], memory_order_relaxed);
    if (!atomic_compare_exchange_strong_explicit(&deque->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return VXK_DEQUE_ABORT;
    return x;
}
