// id_pool.c: generation-checked ids over a dense array (the scheme of Box2D v3's id pool, with
// odd generations for live ids so that a stale id is told from a live one by one compare), salted
// per pool so that ids of one world are refused by another: a stored generation is salt XOR the
// index's counter. The salt is even, so XOR keeps the counter's parity (odd = live) and a live
// generation is never 0. Salts come from a process-wide serial through a bijective mixer on 31
// bits (xorshift-multiply rounds, the lowbias32 shape of Chris Wellons' hash prospector), so
// 2^31 pools in a row have distinct salts and any two differ in about half their bits.
#include "id_pool.h"

#include <stdatomic.h>

#define ID_POOL_MAX (1u << 31)
#define SALT_BITS 0x7FFFFFFFu

static _Atomic uint32_t next_serial;

uint32_t vxk_id_salt(uint32_t serial)
{
    // Each step is a bijection of [0, 2^31): an offset (so serial 0 does not map to salt 0),
    // x ^ x >> k, and products by odd constants modulo 2^31.
    uint32_t x = (serial + 0x6A09E667u) & SALT_BITS;
    x ^= x >> 16;
    x = (x * 0x7FEB352Du) & SALT_BITS;
    x ^= x >> 15;
    x = (x * 0x846CA68Bu) & SALT_BITS;
    x ^= x >> 16;
    return x << 1;
}

uint32_t vxk_id_pool_next_salt(void)
{
    return vxk_id_salt(atomic_fetch_add_explicit(&next_serial, 1u, memory_order_relaxed));
}

void vxk_id_pool_init(vxk_id_pool* pool)
{
    vxk_id_pool_init_salted(pool, vxk_id_pool_next_salt());
}

void vxk_id_pool_init_salted(vxk_id_pool* pool, uint32_t salt)
{
    VXK_ASSERT((salt & 1u) == 0);
    memset(pool, 0, sizeof(*pool));
    pool->salt = salt;
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
        // Counter even (free) -> odd (live).
        uint32_t counter = (pool->generations[i] ^ pool->salt) + 1u;
        *generation = pool->generations[i] = counter ^ pool->salt;
        ++pool->live;
        return VXK_OK;
    }
    if (pool->count == ID_POOL_MAX)
        return VXK_ERR_CAPACITY;
    if (pool->count == pool->capacity && !grow(pool))
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t i = pool->count++;
    pool->generations[i] = pool->salt ^ 1u;
    *index = i;
    *generation = pool->salt ^ 1u;
    ++pool->live;
    return VXK_OK;
}

vxk_status vxk_id_pool_free(vxk_id_pool* pool, uint32_t index, uint32_t generation)
{
    if (!vxk_id_pool_valid(pool, index, generation))
        return VXK_ERR_STALE_ID;
    // Counter odd -> even. After live counter UINT32_MAX it wraps to 0, whose generation (the
    // salt, even) no live id carries: that index is retired, never handed out again.
    uint32_t next = (generation ^ pool->salt) + 1u;
    pool->generations[index] = next ^ pool->salt;
    --pool->live;
    if (next != 0)
        pool->free_stack[pool->free_count++] = index;
    return VXK_OK;
}

size_t vxk_id_pool_bytes(const vxk_id_pool* pool)
{
    return 2 * (size_t)pool->capacity * sizeof(uint32_t);
}
