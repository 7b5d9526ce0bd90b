// id_pool.h: hands out {index, generation} ids (vxk/id.h) over a dense array: freed indices are
// reused lowest-first-freed-last (a stack), each reuse with the next counter; an index whose
// counter would wrap to 0 is retired, never reused, so no id can become valid again. Each pool
// has a salt, so that its ids are refused by other pools: generations are salt XOR counter.
#ifndef VXK_ID_POOL_H
#define VXK_ID_POOL_H

#include "core.h"

typedef struct vxk_id_pool {
    uint32_t* generations; // per index: salt ^ counter; counter odd = live, even = free or
                           // (0) retired
    uint32_t* free_stack;  // free indices, the most recently freed on top
    uint32_t capacity;
    uint32_t count;      // indices handed out so far (live or free or retired)
    uint32_t free_count; // entries of free_stack
    uint32_t live;       // live ids
    uint32_t salt;       // even, so a generation has its counter's parity; fixed at init
} vxk_id_pool;

// The salt of the pool made serial-th in the process: even, a bijection of serial modulo 2^31
// (so 2^31 pools in a row all get distinct salts), mixed so that any two differ like random
// 31-bit values (consecutive ones in 15.5 bits on average).
uint32_t vxk_id_salt(uint32_t serial);
// vxk_id_salt of the next serial of a process-wide atomic counter. Thread-safe.
uint32_t vxk_id_pool_next_salt(void);

// An empty pool with the next salt of the process (vxk_id_pool_next_salt). Thread-safe.
void vxk_id_pool_init(vxk_id_pool* pool);
// An empty pool with the given salt (even; tests and tools that need a fixed one).
void vxk_id_pool_init_salted(vxk_id_pool* pool, uint32_t salt);
void vxk_id_pool_destroy(vxk_id_pool* pool);
// A new live id: *index and *generation (odd, never 0). VXK_ERR_OUT_OF_MEMORY when the arrays
// cannot grow, VXK_ERR_CAPACITY past 2^31 indices; nothing changes then.
vxk_status vxk_id_pool_alloc(vxk_id_pool* pool, uint32_t* index, uint32_t* generation);
// Whether {index, generation} is live.
static inline bool vxk_id_pool_valid(const vxk_id_pool* pool, uint32_t index, uint32_t generation)
{
    return (generation & 1u) && index < pool->count && pool->generations[index] == generation;
}
// A generation of this pool without its salt: the index's counter when the id was handed out
// (1 for an index's first id, 3 for its second, ...), the same in every pool with the same
// history; 0 for 0. What results hash or digest, so that they do not depend on the salt.
static inline uint32_t vxk_id_pool_unsalt(const vxk_id_pool* pool, uint32_t generation)
{
    return generation ? generation ^ pool->salt : 0u;
}
// Frees a live id (VXK_ERR_STALE_ID, nothing changed, when it is not live).
vxk_status vxk_id_pool_free(vxk_id_pool* pool, uint32_t index, uint32_t generation);
size_t vxk_id_pool_bytes(const vxk_id_pool* pool);

#endif
