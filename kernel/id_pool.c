// id_pool.c: generation-checked ids over a dense array (the scheme of Box2D v3's id pool, with
// odd generations for live ids so that a stale id is told from a live one by one compare).
#include "id_pool.h"

#define ID_POOL_MAX (1u << 31)

void vxk_id_pool_init(vxk_id_pool* pool)
{
    memset(pool, 0, sizeof(*pool));
}

void vxk_id_pool_destroy(vxk_id_pool* pool)
{
    vxk_free(pool->generations, (size_t)pool->capacity * sizeof(uint32_t));
    vxk_free(pool->free_stack, (size_t)pool->capacity * sizeof(uint32_t));
    memset(pool, 0, sizeof(*pool));
}

static bool grow(vxk_id_pool* pool)
{
    uint32_t capacity = pool->capacity ? pool->capacity * 2 : 64;
    uint32_t* generations = vxk_alloc((size_t)capacity * sizeof(uint32_t));
    uint32_t* free_stack = vxk_alloc((size_t)capacity * sizeof(uint32_t));
    if (!generations || !free_stack) {
        vxk_free(generations, (size_t)capacity * sizeof(uint32_t));
        vxk_free(free_stack, (size_t)capacity * sizeof(uint32_t));
        return false;
    }
    if (pool->count) {
        memcpy(generations, pool->generations, (size_t)pool->count * sizeof(uint32_t));
        memcpy(free_stack, pool->free_stack, (size_t)pool->free_count * sizeof(uint32_t));
    }
    vxk_free(pool->generations, (size_t)pool->capacity * sizeof(uint32_t));
    vxk_free(pool->free_stack, (size_t)pool->capacity * sizeof(uint32_t));
    pool->generations = generations;
    pool->free_stack = free_stack;
    pool->capacity = capacity;
    return true;
}

vxk_status vxk_id_pool_alloc(vxk_id_pool* pool, uint32_t* index, uint32_t* generation)
{
    if (pool->free_count) {
        uint32_t i = pool->free_stack[--pool->free_count];
        *index = i;
        *generation = ++pool->generations[i]; // even (free) -> odd (live)
        ++pool->live;
        return VXK_OK;
    }
    if (pool->count == ID_POOL_MAX)
        return VXK_ERR_CAPACITY;
    if (pool->count == pool->capacity && !grow(pool))
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t i = pool->count++;
    pool->generations[i] = 1;
    *index = i;
    *generation = 1;
    ++pool->live;
    return VXK_OK;
}

vxk_status vxk_id_pool_free(vxk_id_pool* pool, uint32_t index, uint32_t generation)
{
    if (!vxk_id_pool_valid(pool, index, generation))
        return VXK_ERR_STALE_ID;
    // Odd -> even. After live generation UINT32_MAX the count wraps to 0, which no id carries:
    // that index is retired, never handed out again.
    uint32_t next = ++pool->generations[index];
    --pool->live;
    if (next != 0)
        pool->free_stack[pool->free_count++] = index;
    return VXK_OK;
}

size_t vxk_id_pool_bytes(const vxk_id_pool* pool)
{
    return 2 * (size_t)pool->capacity * sizeof(uint32_t);
}
