// chunk_map.c: open-addressing (linear probing) hash map from int32 chunk coordinates to uint32
// values, with backward-shift deletion. The sparse chunk storage of seed 000 (Roblox terrain).
#include "chunk_map.h"

#include "core.h"

#define CHUNK_MAP_MAX_CAPACITY (1u << 31)

static inline uint32_t slot_home(const vxk_chunk_map* map, vxk_int3 key)
{
    return (uint32_t)vxk_chunk_map_hash(key) & (map->capacity - 1);
}

static inline bool key_equal(vxk_int3 a, vxk_int3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

void vxk_chunk_map_init(vxk_chunk_map* map)
{
    map->slots = NULL;
    map->capacity = 0;
    map->count = 0;
}

void vxk_chunk_map_free(vxk_chunk_map* map)
{
    vxk_free(map->slots, vxk_chunk_map_bytes(map));
    vxk_chunk_map_init(map);
}

static void clear_slots(vxk_chunk_map_slot* slots, uint32_t capacity)
{
    for (uint32_t i = 0; i < capacity; ++i) {
        slots[i].key = (vxk_int3){0, 0, 0};
        slots[i].value = VXK_CHUNK_MAP_EMPTY;
    }
}

void vxk_chunk_map_clear(vxk_chunk_map* map)
{
    clear_slots(map->slots, map->capacity);
    map->count = 0;
}

// Places an entry known to be absent into a map with room for it.
static void place_new(vxk_chunk_map* map, vxk_int3 key, uint32_t value)
{
    uint32_t mask = map->capacity - 1;
    uint32_t i = slot_home(map, key);
    while (map->slots[i].value != VXK_CHUNK_MAP_EMPTY)
        i = (i + 1) & mask;
    map->slots[i] = (vxk_chunk_map_slot){key, value};
    map->count++;
}

static bool rehash(vxk_chunk_map* map, uint32_t new_capacity)
{
    vxk_chunk_map_slot* slots =
        (vxk_chunk_map_slot*)vxk_alloc((size_t)new_capacity * sizeof(vxk_chunk_map_slot));
    if (!slots)
        return false;
    clear_slots(slots, new_capacity);
    vxk_chunk_map old = *map;
    map->slots = slots;
    map->capacity = new_capacity;
    map->count = 0;
    // Re-placing in old slot order keeps the resulting layout a function of the operations only.
    for (uint32_t i = 0; i < old.capacity; ++i) {
        const vxk_chunk_map_slot* s = &old.slots[i];
        if (s->value != VXK_CHUNK_MAP_EMPTY)
            place_new(map, s->key, s->value);
    }
    vxk_free(old.slots, vxk_chunk_map_bytes(&old));
    return true;
}

bool vxk_chunk_map_reserve(vxk_chunk_map* map, uint32_t count)
{
    if (count > (1u << 30))
        return false;
    if ((uint64_t)count * 4 <= (uint64_t)map->capacity * 3)
        return true;
    uint64_t capacity = map->capacity ? map->capacity : 16;
    while (capacity * 3 < (uint64_t)count * 4)
        capacity *= 2;
    VXK_ASSERT(capacity <= CHUNK_MAP_MAX_CAPACITY);
    return rehash(map, (uint32_t)capacity);
}

bool vxk_chunk_map_insert(vxk_chunk_map* map, vxk_int3 key, uint32_t value)
{
    VXK_ASSERT(value != VXK_CHUNK_MAP_EMPTY);
    if (map->capacity) {
        uint32_t mask = map->capacity - 1;
        uint32_t i = slot_home(map, key);
        for (;;) {
            vxk_chunk_map_slot* s = &map->slots[i];
            if (s->value == VXK_CHUNK_MAP_EMPTY)
                break;
            if (key_equal(s->key, key)) {
                s->value = value;
                return true;
            }
            i = (i + 1) & mask;
        }
    }
    if (!vxk_chunk_map_reserve(map, map->count + 1))
        return false;
    place_new(map, key, value);
    return true;
}

bool vxk_chunk_map_remove(vxk_chunk_map* map, vxk_int3 key, uint32_t* old_value)
{
    if (map->count == 0)
        return false;
    uint32_t mask = map->capacity - 1;
    uint32_t i = slot_home(map, key);
    for (;;) {
        vxk_chunk_map_slot* s = &map->slots[i];
        if (s->value == VXK_CHUNK_MAP_EMPTY)
            return false;
        if (key_equal(s->key, key))
            break;
        i = (i + 1) & mask;
    }
    if (old_value)
        *old_value = map->slots[i].value;
    // Backward shift: pull later entries of the run into the hole unless that would move one
    // before its home slot (cyclically).
    uint32_t hole = i;
    uint32_t j = (i + 1) & mask;
    for (;;) {
        vxk_chunk_map_slot* s = &map->slots[j];
        if (s->value == VXK_CHUNK_MAP_EMPTY)
            break;
        uint32_t home = slot_home(map, s->key);
        // The entry at j may move to hole when home is not in the cyclic range (hole, j].
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            map->slots[hole] = *s;
            hole = j;
        }
        j = (j + 1) & mask;
    }
    map->slots[hole].key = (vxk_int3){0, 0, 0};
    map->slots[hole].value = VXK_CHUNK_MAP_EMPTY;
    map->count--;
    return true;
}
