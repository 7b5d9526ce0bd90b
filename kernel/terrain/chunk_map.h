// chunk_map.h: an open-addressing hash map from an int32 chunk coordinate (vxk_int3) to a uint32
// value (typically an index into a pool), with linear probing and backward-shift deletion.
// The sparse chunk storage of seed 000 (Roblox terrain: chunks in a hash map, air has no entry).
//
// Layout: a power-of-two array of 16-byte slots {key, value}; value VXK_CHUNK_MAP_EMPTY marks
// an empty slot, so that value may not be stored. The load factor stays at or below 3/4.
// Deletion shifts later entries of the probe run back (no tombstones), so lookups never slow down
// after many removals. The slot layout depends only on the sequence of inserts and removes (and
// reserves), never on threads or addresses: the same operations give the same layout.
//
// Thread-safety: find, the iteration helpers and vxk_chunk_map_bytes only read and may run
// concurrently with each other; insert, remove, reserve, clear and free need exclusive access.
#ifndef VXK_CHUNK_MAP_H
#define VXK_CHUNK_MAP_H

#include <vxk/base.h>

#define VXK_CHUNK_MAP_EMPTY UINT32_MAX

typedef struct vxk_chunk_map_slot {
    vxk_int3 key;
    uint32_t value; // VXK_CHUNK_MAP_EMPTY when the slot is free
} vxk_chunk_map_slot;
_Static_assert(sizeof(vxk_chunk_map_slot) == 16, "chunk map slot is 16 bytes");

typedef struct vxk_chunk_map {
    vxk_chunk_map_slot* slots; // capacity slots (NULL while capacity is 0)
    uint32_t capacity;         // 0 or a power of two
    uint32_t count;            // occupied slots
} vxk_chunk_map;

// The 64-bit mix of a coordinate used for slot placement (exposed for tests and for callers that
// want a well-spread digest of a chunk coordinate).
static inline uint64_t vxk_chunk_map_hash(vxk_int3 key)
{
    uint64_t h = (uint64_t)(uint32_t)key.x * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uint32_t)key.y * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)key.z * 0x165667B19E3779F9ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h;
}

// Makes an empty map (no allocation). Equivalent to zeroing the struct.
void vxk_chunk_map_init(vxk_chunk_map* map);
// Releases the slots; the map is empty and may be reused. Cost O(1).
void vxk_chunk_map_free(vxk_chunk_map* map);
// Removes every entry, keeping the capacity. Cost O(capacity).
void vxk_chunk_map_clear(vxk_chunk_map* map);

// Grows the slot array so that `count` entries fit without further growth (load <= 3/4).
// Returns false when allocation fails or count exceeds 2^30 (the map is unchanged then).
// Cost O(capacity) when it grows (every entry is re-placed), O(1) otherwise.
bool vxk_chunk_map_reserve(vxk_chunk_map* map, uint32_t count);

// Returns the value stored for key, or VXK_CHUNK_MAP_EMPTY when absent. Expected O(1). Inline:
// queries call it per chunk, and a call would pass the 12-byte key packed in two registers.
static inline uint32_t vxk_chunk_map_find(const vxk_chunk_map* map, vxk_int3 key)
{
    if (map->count == 0)
        return VXK_CHUNK_MAP_EMPTY;
    uint32_t mask = map->capacity - 1;
    uint32_t i = (uint32_t)vxk_chunk_map_hash(key) & mask;
    for (;;) {
        const vxk_chunk_map_slot* s = &map->slots[i];
        if (s->value == VXK_CHUNK_MAP_EMPTY)
            return VXK_CHUNK_MAP_EMPTY;
        if (s->key.x == key.x && s->key.y == key.y && s->key.z == key.z)
            return s->value;
        i = (i + 1) & mask;
    }
}

// Inserts key -> value, or replaces the value when the key is present.
// Precondition: value != VXK_CHUNK_MAP_EMPTY. Grows (doubling) when the load would pass 3/4.
// Returns false on allocation failure (map unchanged). Expected O(1), amortised over growth.
bool vxk_chunk_map_insert(vxk_chunk_map* map, vxk_int3 key, uint32_t value);

// Removes key. Returns true and writes the old value to *old_value (if not NULL) when the
// key was present; false otherwise. Never shrinks. Expected O(1).
bool vxk_chunk_map_remove(vxk_chunk_map* map, vxk_int3 key, uint32_t* old_value);

// Iteration: visits occupied slots in slot order. Start with cursor 0; each call returns the
// slot at or after *cursor (and advances *cursor past it), or NULL when done. The map must not
// change during an iteration. Slot order is deterministic (see the layout note above) but not
// sorted; sort the results when a coordinate order is needed.
static inline const vxk_chunk_map_slot* vxk_chunk_map_next(const vxk_chunk_map* map,
                                                           uint32_t* cursor)
{
    for (uint32_t i = *cursor; i < map->capacity; ++i) {
        if (map->slots[i].value != VXK_CHUNK_MAP_EMPTY) {
            *cursor = i + 1;
            return &map->slots[i];
        }
    }
    *cursor = map->capacity;
    return NULL;
}

// Bytes held by the slot array.
static inline size_t vxk_chunk_map_bytes(const vxk_chunk_map* map)
{
    return (size_t)map->capacity * sizeof(vxk_chunk_map_slot);
}

#endif
