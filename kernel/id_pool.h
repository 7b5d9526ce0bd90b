// id_pool.h: hands out {index, generation} ids (vxk/id.h) over a dense array: freed indices are
// reused lowest-first-freed-last (a stack), each reuse with the next generation; an index whose
// generation would wrap to 0 is retired, never reused, so no id can become valid again.
#ifndef VXK_ID_POOL_H
#define VXK_ID_POOL_H

#include "core.h"

typedef struct vxk_id_pool {
    uint32_t* generations; // per index: its current generation; even = free, odd = live
    uint32_t* free_stack;  // free indices, the most recently freed on top
    uint32_t capacity;
    uint32_t count;      // indices handed out so far (live or free or retired)
    uint32_t free_count; // entries of free_stack
    uint32_t live;       // live ids
} vxk_id_pool;

void vxk_id_pool_init(vxk_id_pool* pool);
void vxk_id_pool_destroy(vxk_id_pool* pool);
// A new live id: *index and *generation (odd, never 0). VXK_ERR_OUT_OF_MEMORY when the arrays
// cannot grow, VXK_ERR_CAPACITY past 2^31 indices; nothing changes then.
vxk_status vxk_id_pool_alloc(vxk_id_pool* pool, uint32_t* index, uint32_t* generation);
// Whether {index, generation} is live.
static inline bool vxk_id_pool_valid(const vxk_id_pool* pool, uint32_t index, uint32_t generation)
{
    return (generation & 1u) && index < pool->count && pool->generations[index] == generation;
}
// Frees a live id (VXK_ERR_STALE_ID, nothing changed, when it is not live).
vxk_status vxk_id_pool_free(vxk_id_pool* pool, uint32_t index, uint32_t generation);
size_t vxk_id_pool_bytes(const vxk_id_pool* pool);

#endif
