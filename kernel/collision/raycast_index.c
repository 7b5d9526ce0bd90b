// raycast_index.c: the world's ray state (seed 000, Roblox terrain physics, "Loose kD tree:
// queries", for worlds too sparse for a dense ray grid): the sparse ray index over the broadphase
// entries, by which a ray skips empty space, and the ray counters.
//
// Worlds without a dense ray grid (sparse ones, vxk_narrow_ray_grid) would have a ray step
// through every empty chunk cell it crosses. The sparse ray index marks, per level l = 1 ..
// RAY_LEVELS, the cells of 4^l chunks per axis that hold a broadphase entry with mask bits (one
// open-addressing table of (level, cell) keys, built by the first ray after a broadphase build or
// update). A ray in a cell without mask bits looks up the 27 level-l cells around its own, level
// after level: where all are clear, no entry lies within 4^l chunks of the ray while it stays in
// that cell, and it jumps to the cell's exit in one step. A ray then steps through empty space in
// a number of steps that grows with the logarithm of the distances to the entries it passes.
#include "raycast_internal.h"

#define RAY_LEVELS 14 // 4^14 chunks: the whole int32 voxel range

typedef struct ray_index_slot {
    int32_t x, y, z;
    uint32_t level; // 0: empty slot
} ray_index_slot;

typedef struct ray_index {
    ray_index_slot* slots;
    uint64_t mask;  // slots - 1
    uint64_t count; // used slots
    size_t bytes;
} ray_index;

static inline uint64_t index_hash(uint32_t level, int64_t x, int64_t y, int64_t z)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)z * 0x165667B19E3779F9ull ^ (uint64_t)level * 0x27D4EB2F165667C5ull;
    return h ^ (h >> 29);
}

static bool index_has(const ray_index* index, uint32_t level, int64_t x, int64_t y, int64_t z)
{
    for (uint64_t i = index_hash(level, x, y, z) & index->mask;; i = (i + 1) & index->mask) {
        const ray_index_slot* slot = &index->slots[i];
        if (!slot->level)
            return false;
        if (slot->level == level && slot->x == x && slot->y == y && slot->z == z)
            return true;
    }
}

// Inserts (level, x, y, z) unless present; grows the table at half load. False when out of memory.
static bool index_add(ray_index* index, uint32_t level, int32_t x, int32_t y, int32_t z)
{
    if (2 * (index->count + 1) > index->mask + 1) {
        ray_index bigger = {0};
        bigger.mask = 2 * (index->mask + 1) - 1;
        bigger.bytes = (size_t)(bigger.mask + 1) * sizeof(ray_index_slot);
        bigger.slots = (ray_index_slot*)vxk_calloc(bigger.bytes);
        if (!bigger.slots)
            return false;
        for (uint64_t i = 0; i <= index->mask; ++i) {
            const ray_index_slot* slot = &index->slots[i];
            if (slot->level && !index_add(&bigger, slot->level, slot->x, slot->y, slot->z))
                return false; // cannot happen: bigger has room
        }
        vxk_free(index->slots, index->bytes);
        *index = bigger;
    }
    uint64_t i = index_hash(level, x, y, z) & index->mask;
    for (; index->slots[i].level; i = (i + 1) & index->mask) {
        const ray_index_slot* slot = &index->slots[i];
        if (slot->level == level && slot->x == x && slot->y == y && slot->z == z)
            return true;
    }
    index->slots[i] = (ray_index_slot){x, y, z, level};
    ++index->count;
    return true;
}

static void index_free(ray_index* index)
{
    if (!index)
        return;
    vxk_free(index->slots, index->bytes);
    vxk_free(index, sizeof(*index));
}

typedef struct index_fill {
    ray_index* index;
    bool ok;
} index_fill;

static void index_visit(void* user, vxk_int3 chunk, uint8_t tag, const uint64_t* solid)
{
    (void)solid;
    index_fill* f = (index_fill*)user;
    if (tag != VXK_BROADPHASE_MASK || !f->ok)
        return;
    for (uint32_t level = 1; level <= RAY_LEVELS && f->ok; ++level) {
        int shift = (int)(RAY_LEVEL_BITS * level);
        f->ok = index_add(f->index, level, chunk.x >> shift, chunk.y >> shift, chunk.z >> shift);
    }
}

static ray_index* index_build(const vxk_world* world)
{
    ray_index* index = (ray_index*)vxk_calloc(sizeof(ray_index));
    if (!index)
        return NULL;
    index->mask = 63;
    index->bytes = 64 * sizeof(ray_index_slot);
    index->slots = (ray_index_slot*)vxk_calloc(index->bytes);
    index_fill f = {index, index->slots != NULL};
    if (f.ok)
        vxk_broadphase_for_each(world, index_visit, &f);
    if (!f.ok) {
        index_free(index);
        return NULL;
    }
    return index;
}

static void state_destroy(void* self)
{
    ray_state* state = (ray_state*)self;
    index_free(atomic_load(&state->index));
    pthread_mutex_destroy(&state->lock);
    vxk_free(state, sizeof(*state));
}

static void state_memory(const void* self, vxk_world_memory_stats* stats)
{
    ray_state* state = (ray_state*)self;
    const ray_index* index = atomic_load(&state->index);
    stats->narrow_bytes += sizeof(*state) + (index ? sizeof(*index) + index->bytes : 0);
}

vxk_status vxk_rays_attach(vxk_world* world)
{
    ray_state* state = (ray_state*)vxk_calloc(sizeof(ray_state));
    if (!state)
        return VXK_ERR_OUT_OF_MEMORY;
    pthread_mutex_init(&state->lock, NULL);
    world->rays.self = state;
    world->rays.destroy = state_destroy;
    world->rays.memory = state_memory;
    return VXK_OK;
}
const ray_index* vxk_ray_index_get(ray_state* state, const vxk_world* world)
{
    uint64_t want = vxk_broadphase_generation(world) + 1;
    if (atomic_load_explicit(&state->index_generation, memory_order_acquire) == want)
        return atomic_load_explicit(&state->index, memory_order_relaxed);
    // A new broadphase: nobody reads the old index any more (builds and updates do not overlap
    // rays, and a ray only uses an index whose generation it saw current).
    pthread_mutex_lock(&state->lock);
    if (atomic_load_explicit(&state->index_generation, memory_order_relaxed) != want) {
        index_free(atomic_load_explicit(&state->index, memory_order_relaxed));
        atomic_store_explicit(&state->index, index_build(world), memory_order_relaxed);
        atomic_store_explicit(&state->index_generation, want, memory_order_release);
    }
    ray_index* index = atomic_load_explicit(&state->index, memory_order_relaxed);
    pthread_mutex_unlock(&state->lock);
    return index;
}

// Whether the 27 level-l cells around chunk c's are all clear (no broadphase entry with mask bits
// within 4^l chunks of c's level-l cell: farther than the one cell around its own that the DDA
// visits).
static bool level_clear(const ray_index* index, uint32_t level, const int32_t c[3])
{
    int shift = (int)(RAY_LEVEL_BITS * level);
    int64_t x = c[0] >> shift, y = c[1] >> shift, z = c[2] >> shift;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx)
                if (index_has(index, level, x + dx, y + dy, z + dz))
                    return false;
    return true;
}

// The highest clear level around chunk c, 0 when level 1 is busy. Clear levels run from 1 up to
// the first busy one (a level's 27 cells hold the 27 of every level below), so the search starts
// at the level the ray's last step found (hint; it changes by a level or two between steps) and
// walks up or down from there.
uint32_t vxk_ray_clear_level(const ray_index* index, const int32_t c[3], uint32_t hint)
{
    uint32_t level = hint < 1 ? 1 : (hint > RAY_LEVELS ? RAY_LEVELS : hint);
    if (!level_clear(index, level, c)) {
        while (--level >= 1 && !level_clear(index, level, c)) {
        }
        return level;
    }
    while (level < RAY_LEVELS && level_clear(index, level + 1, c))
        ++level;
    return level;
}
