// terrain.c: sparse chunked voxel terrain: 8^3 chunks, uniform (no payload) or mixed (512 bytes +
// solid/water occupancy bits), in a chunk_map keyed by chunk coordinate; all-air chunks have no
// entry. Follows seed 000 (Roblox terrain physics: sparse chunks, bits derived on write).
// Payloads are reference counted and copied on write while shared, so a fork (the edit thread's
// terrain) and the original share every chunk version neither has written since.
#include "terrain.h"

#define TERRAIN_MAX_CHUNKS (1u << 30)
#define CHUNK_FLAG_DIRTY 1u

vxk_status vxk_terrain_init(vxk_terrain* t, const vxk_material_table* materials)
{
    memset(t, 0, sizeof(*t));
    t->view = (vxk_terrain_view*)vxk_calloc(sizeof(vxk_terrain_view));
    if (!t->view)
        return VXK_ERR_OUT_OF_MEMORY;
    for (int id = 0; id < VXK_MATERIAL_COUNT; ++id) {
        const vxk_material* m = &materials->materials[id];
        t->material_kind[id] = m->defined ? m->kind : VXK_MATERIAL_AIR;
    }
    vxk_chunk_map_init(&t->map);
    pthread_mutex_init(&t->view->lock, NULL);
    atomic_init(&t->view->valid, 0);
    return VXK_OK;
}

void vxk_terrain_destroy(vxk_terrain* t)
{
    for (uint32_t i = 0; i < t->chunk_used; ++i)
        if (t->chunks[i].payload)
            vxk_terrain_payload_free(t->chunks[i].payload);
    vxk_chunk_map_free(&t->map);
    vxk_free(t->chunks, (size_t)t->chunk_capacity * sizeof(vxk_chunk));
    vxk_free(t->free_slots, (size_t)t->chunk_capacity * sizeof(uint32_t));
    vxk_free(t->dirty, (size_t)t->dirty_capacity * sizeof(vxk_int3));
    vxk_free(t->edit_scratch, t->edit_scratch_bytes);
    vxk_terrain_view* v = t->view;
    vxk_free((void*)v->sorted, (size_t)v->capacity * sizeof(vxk_chunk*));
    vxk_free(v->keys, (size_t)v->key_capacity * 4 * sizeof(uint64_t));
    pthread_mutex_destroy(&v->lock);
    vxk_free(v, sizeof(*v));
    memset(t, 0, sizeof(*t));
}

static inline _Atomic uint32_t* payload_refs(const uint8_t* payload)
{
    return (_Atomic uint32_t*)(payload + VXK_CHUNK_PAYLOAD_BYTES);
}

uint8_t* vxk_terrain_payload_alloc(void)
{
    uint8_t* payload = (uint8_t*)vxk_alloc(VXK_CHUNK_PAYLOAD_ALLOC);
    if (payload)
        atomic_init(payload_refs(payload), 1);
    return payload;
}

void vxk_terrain_payload_retain(uint8_t* payload)
{
    atomic_fetch_add_explicit(payload_refs(payload), 1, memory_order_relaxed);
}

void vxk_terrain_payload_free(uint8_t* payload)
{
    if (!payload)
        return;
    // acq_rel: the last holder's free follows every other holder's reads of the block.
    if (atomic_fetch_sub_explicit(payload_refs(payload), 1, memory_order_acq_rel) == 1)
        vxk_free(payload, VXK_CHUNK_PAYLOAD_ALLOC);
}

// Whether another holder shares the block (then it is immutable and a write copies it). Acquire:
// seeing the last other holder gone orders our writes after its reads.
static inline bool payload_shared(const uint8_t* payload)
{
    return atomic_load_explicit(payload_refs(payload), memory_order_acquire) > 1;
}

void vxk_terrain_payload_update_bits(const vxk_terrain* t, uint8_t* payload)
{
    _Static_assert(VXK_MATERIAL_SOLID == 1 && VXK_MATERIAL_WATER == 2, "kind bits");
    const uint8_t* kind = t->material_kind;
    uint64_t solid[8], water[8];
    for (int y = 0; y < 8; ++y) {
        const uint8_t* slice = payload + 64 * y;
        uint64_t s = 0, w = 0;
        for (int g = 0; g < 8; ++g) {
            // Eight kinds (0 air, 1 solid, 2 water) as bytes; one multiply packs bit 0 (or 1) of
            // each byte into a byte of flags: byte i lands on bit i of the top byte.
            uint64_t kinds = 0;
            for (int i = 0; i < 8; ++i)
                kinds |= (uint64_t)kind[slice[8 * g + i]] << (8 * i);
            const uint64_t ones = 0x0101010101010101ull, pack = 0x0102040810204080ull;
            s |= (((kinds & ones) * pack) >> 56) << (8 * g);
            w |= ((((kinds >> 1) & ones) * pack) >> 56) << (8 * g);
        }
        solid[y] = s;
        water[y] = w;
    }
    memcpy(payload + VXK_CHUNK_VOXELS, solid, sizeof(solid));
    memcpy(payload + VXK_CHUNK_VOXELS + sizeof(solid), water, sizeof(water));
}

// True when all 512 voxels hold payload[0].
static bool payload_is_uniform(const uint8_t* payload)
{
    uint64_t pattern = 0x0101010101010101ull * payload[0];
    uint64_t diff = 0;
    for (int i = 0; i < VXK_CHUNK_VOXELS; i += 8) {
        uint64_t word;
        memcpy(&word, payload + i, 8);
        diff |= word ^ pattern;
    }
    return diff == 0;
}

// ---- Lookup ----------------------------------------------------------------------------------

static inline vxk_chunk* chunk_at(const vxk_terrain* t, vxk_int3 chunk)
{
    uint32_t index = vxk_chunk_map_find(&t->map, chunk);
    return index == VXK_CHUNK_MAP_EMPTY ? NULL : &t->chunks[index];
}

void vxk_terrain_chunk_bits(const vxk_terrain* t, vxk_int3 chunk, uint64_t solid[8],
                            uint64_t water[8])
{
    const vxk_chunk* c = chunk_at(t, chunk);
    if (c && c->payload) {
        memcpy(solid, vxk_chunk_solid_bits(c), 8 * sizeof(uint64_t));
        memcpy(water, vxk_chunk_water_bits(c), 8 * sizeof(uint64_t));
        return;
    }
    uint8_t kind = c ? t->material_kind[c->uniform_material] : VXK_MATERIAL_AIR;
    uint64_t s = kind == VXK_MATERIAL_SOLID ? ~0ull : 0;
    uint64_t w = kind == VXK_MATERIAL_WATER ? ~0ull : 0;
    for (int i = 0; i < 8; ++i) {
        solid[i] = s;
        water[i] = w;
    }
}

// ---- Sorted view ------------------------------------------------------------------------------

// Capacity of the sorted view and its sort scratch for n chunks. Writes reserve it up front, so
// that readers rebuilding the view after a write never allocate (and never fail).
static bool reserve_sorted(vxk_terrain_view* v, uint32_t n)
{
    if (n > v->capacity) {
        uint32_t capacity = VXK_MAX(n, v->capacity + v->capacity / 2);
        const vxk_chunk** sorted = (const vxk_chunk**)vxk_alloc((size_t)capacity * sizeof(void*));
        if (!sorted)
            return false;
        if (v->count)
            memcpy((void*)sorted, (const void*)v->sorted, (size_t)v->count * sizeof(void*));
        vxk_free((void*)v->sorted, (size_t)v->capacity * sizeof(vxk_chunk*));
        v->sorted = sorted;
        v->capacity = capacity;
    }
    if (n > v->key_capacity) {
        uint32_t capacity = VXK_MAX(n, v->key_capacity + v->key_capacity / 2);
        uint64_t* keys = (uint64_t*)vxk_alloc((size_t)capacity * 4 * sizeof(uint64_t));
        if (!keys)
            return false;
        vxk_free(v->keys, (size_t)v->key_capacity * 4 * sizeof(uint64_t));
        v->keys = keys;
        v->key_capacity = capacity;
    }
    return true;
}

static bool build_sorted(const vxk_terrain* t, vxk_terrain_view* v)
{
    uint32_t n = t->map.count;
    if (!reserve_sorted(v, n))
        return false;
    // Key (y, z, x) with the sign bit flipped so that unsigned order is signed order.
    uint64_t* keys = v->keys;
    uint32_t k = 0, cursor = 0;
    const vxk_chunk_map_slot* slot;
    while ((slot = vxk_chunk_map_next(&t->map, &cursor)) != NULL) {
        uint64_t cy = (uint32_t)slot->key.y ^ 0x80000000u, cz = (uint32_t)slot->key.z ^ 0x80000000u;
        uint64_t cx = (uint32_t)slot->key.x ^ 0x80000000u;
        keys[2 * k] = (cy << 32) | cz;
        keys[2 * k + 1] = (cx << 32) | slot->value;
        ++k;
    }
    VXK_ASSERT(k == n);
    if (n > 1)
        vxk_radix_sort_records(keys, keys + 2 * (size_t)n, n, 2);
    for (uint32_t i = 0; i < n; ++i)
        v->sorted[i] = &t->chunks[(uint32_t)keys[2 * i + 1]];
    v->count = n;
    return true;
}

const vxk_chunk* const* vxk_terrain_sorted_chunks(const vxk_terrain* t, uint32_t* count)
{
    vxk_terrain_view* v = t->view;
    if (!atomic_load_explicit(&v->valid, memory_order_acquire)) {
        pthread_mutex_lock(&v->lock);
        if (!atomic_load_explicit(&v->valid, memory_order_relaxed)) {
            bool ok = build_sorted(t, v);
            VXK_ASSERT(ok && "out of memory building the sorted chunk view");
            if (!ok) {
                pthread_mutex_unlock(&v->lock);
                *count = 0;
                return NULL;
            }
            atomic_store_explicit(&v->valid, 1, memory_order_release);
        }
        pthread_mutex_unlock(&v->lock);
    }
    *count = v->count;
    return v->sorted;
}

// ---- Write primitives -------------------------------------------------------------------------

// Makes room for `extra` new chunk entries and `dirty` new dirty records so that the write that
// follows cannot fail half-way.
static bool reserve_write(vxk_terrain* t, uint64_t extra, uint64_t dirty)
{
    uint64_t live = t->map.count;
    if (live + extra > TERRAIN_MAX_CHUNKS)
        return false;
    if (!vxk_chunk_map_reserve(&t->map, (uint32_t)(live + extra)))
        return false;
    if (!t->is_fork && !reserve_sorted(t->view, (uint32_t)(live + extra)))
        return false;
    uint64_t reuse = VXK_MIN((uint64_t)t->free_count, extra);
    uint64_t need = (uint64_t)t->chunk_used + (extra - reuse);
    if (need > t->chunk_capacity) {
        uint64_t capacity = VXK_MAX(need, (uint64_t)t->chunk_capacity * 2);
        capacity = VXK_MAX(capacity, 64);
        capacity = VXK_MIN(capacity, (uint64_t)TERRAIN_MAX_CHUNKS + 1);
        vxk_chunk* chunks = (vxk_chunk*)vxk_alloc((size_t)capacity * sizeof(vxk_chunk));
        uint32_t* free_slots = (uint32_t*)vxk_alloc((size_t)capacity * sizeof(uint32_t));
        if (!chunks || !free_slots) {
            vxk_free(chunks, (size_t)capacity * sizeof(vxk_chunk));
            vxk_free(free_slots, (size_t)capacity * sizeof(uint32_t));
            return false;
        }
        if (t->chunk_used)
            memcpy(chunks, t->chunks, (size_t)t->chunk_used * sizeof(vxk_chunk));
        if (t->free_count)
            memcpy(free_slots, t->free_slots, (size_t)t->free_count * sizeof(uint32_t));
        vxk_free(t->chunks, (size_t)t->chunk_capacity * sizeof(vxk_chunk));
        vxk_free(t->free_slots, (size_t)t->chunk_capacity * sizeof(uint32_t));
        t->chunks = chunks;
        t->free_slots = free_slots;
        t->chunk_capacity = (uint32_t)capacity;
        // Chunk addresses moved: the sorted view holds stale pointers.
        atomic_store_explicit(&t->view->valid, 0, memory_order_relaxed);
    }
    uint64_t dirty_base = t->dirty_taken ? 0 : t->dirty_count;
    return vxk_grow_items((void**)&t->dirty, &t->dirty_capacity, dirty_base + dirty,
                          sizeof(vxk_int3));
}

// Starts a write call that will change something: new epoch, fresh dirty list after a take.
static void begin_write(vxk_terrain* t)
{
    if (++t->epoch == 0)
        t->epoch = 1;
    if (t->dirty_taken) {
        t->dirty_count = 0;
        t->dirty_taken = false;
    }
}

static void mark_written(vxk_terrain* t, vxk_chunk* c)
{
    c->version = t->epoch;
    if (!(c->flags & CHUNK_FLAG_DIRTY)) {
        c->flags |= CHUNK_FLAG_DIRTY;
        VXK_ASSERT(t->dirty_count < t->dirty_capacity);
        t->dirty[t->dirty_count++] = c->coord;
    }
}

static vxk_chunk* chunk_create(vxk_terrain* t, vxk_int3 coord)
{
    uint32_t index = t->free_count ? t->free_slots[--t->free_count] : t->chunk_used++;
    VXK_ASSERT(index < t->chunk_capacity);
    vxk_chunk* c = &t->chunks[index];
    memset(c, 0, sizeof(*c));
    c->coord = coord;
    bool inserted = vxk_chunk_map_insert(&t->map, coord, index);
    VXK_ASSERT(inserted); // capacity was reserved
    (void)inserted;
    atomic_store_explicit(&t->view->valid, 0, memory_order_relaxed);
    return c;
}

static void chunk_remove(vxk_terrain* t, vxk_chunk* c)
{
    uint32_t index = 0;
    bool removed = vxk_chunk_map_remove(&t->map, c->coord, &index);
    VXK_ASSERT(removed && &t->chunks[index] == c);
    (void)removed;
    if (c->payload) {
        vxk_terrain_payload_free(c->payload);
        t->mixed_count--;
    }
    memset(c, 0, sizeof(*c));
    t->free_slots[t->free_count++] = index;
    atomic_store_explicit(&t->view->valid, 0, memory_order_relaxed);
}

// Makes a chunk uniform (removing it for air) and records the write.
static void chunk_set_uniform(vxk_terrain* t, vxk_chunk* c, uint8_t material)
{
    mark_written(t, c);
    if (material == VXK_MAT_AIR) {
        chunk_remove(t, c);
        return;
    }
    if (c->payload) {
        vxk_terrain_payload_free(c->payload);
        c->payload = NULL;
        t->mixed_count--;
    }
    c->uniform_material = material;
}

// Gives a chunk a payload block: its old block is released, or the chunk becomes mixed.
static void chunk_set_payload(vxk_terrain* t, vxk_chunk* c, uint8_t* payload)
{
    if (c->payload)
        vxk_terrain_payload_free(c->payload);
    else
        t->mixed_count++;
    c->payload = payload;
    c->uniform_material = 0;
}

// A mixed chunk's voxels changed: collapse it when it became uniform, else refresh its bits.
static void chunk_after_payload_write(vxk_terrain* t, vxk_chunk* c)
{
    if (payload_is_uniform(c->payload)) {
        chunk_set_uniform(t, c, c->payload[0]);
        return;
    }
    vxk_terrain_payload_update_bits(t, c->payload);
    mark_written(t, c);
}

// ---- Box writes -------------------------------------------------------------------------------

// The material source of a box write: one constant, or a dense array in read_box layout.
typedef struct box_source {
    const uint8_t* ids; // NULL for a constant fill
    uint8_t constant;
    int64_t min_x, min_y, min_z;
    int64_t size_x, size_z;
} box_source;

// The part of a chunk a box covers, in chunk-local coordinates (inclusive).
typedef struct chunk_region {
    vxk_int3 chunk;
    int lo[3], hi[3];
    bool full;
} chunk_region;

static inline const uint8_t* source_row(const box_source* s, int64_t x, int64_t y, int64_t z)
{
    return s->ids + (x - s->min_x) + s->size_x * ((z - s->min_z) + s->size_z * (y - s->min_y));
}

static bool region_uniform(const box_source* s, const chunk_region* r, uint8_t* value)
{
    if (!s->ids) {
        *value = s->constant;
        return true;
    }
    int64_t ox = (int64_t)r->chunk.x * 8, oy = (int64_t)r->chunk.y * 8,
            oz = (int64_t)r->chunk.z * 8;
    uint8_t first = *source_row(s, ox + r->lo[0], oy + r->lo[1], oz + r->lo[2]);
    int width = r->hi[0] - r->lo[0] + 1;
    for (int y = r->lo[1]; y <= r->hi[1]; ++y)
        for (int z = r->lo[2]; z <= r->hi[2]; ++z) {
            const uint8_t* row = source_row(s, ox + r->lo[0], oy + y, oz + z);
            for (int x = 0; x < width; ++x)
                if (row[x] != first)
                    return false;
        }
    *value = first;
    return true;
}

// Writes the region into a payload; returns whether any voxel changed.
static bool region_store(const box_source* s, const chunk_region* r, uint8_t* payload)
{
    int64_t ox = (int64_t)r->chunk.x * 8, oy = (int64_t)r->chunk.y * 8,
            oz = (int64_t)r->chunk.z * 8;
    int width = r->hi[0] - r->lo[0] + 1;
    bool changed = false;
    for (int y = r->lo[1]; y <= r->hi[1]; ++y)
        for (int z = r->lo[2]; z <= r->hi[2]; ++z) {
            uint8_t* dst = payload + vxk_voxel_index((uint32_t)r->lo[0], (uint32_t)y, (uint32_t)z);
            if (s->ids) {
                const uint8_t* src = source_row(s, ox + r->lo[0], oy + y, oz + z);
                if (memcmp(dst, src, (size_t)width) != 0) {
                    memcpy(dst, src, (size_t)width);
                    changed = true;
                }
            } else {
                for (int x = 0; x < width; ++x) {
                    changed |= dst[x] != s->constant;
                    dst[x] = s->constant;
                }
            }
        }
    return changed;
}

// Whether storing the region would change any voxel of a payload.
static bool region_changes(const box_source* s, const chunk_region* r, const uint8_t* payload)
{
    int64_t ox = (int64_t)r->chunk.x * 8, oy = (int64_t)r->chunk.y * 8,
            oz = (int64_t)r->chunk.z * 8;
    int width = r->hi[0] - r->lo[0] + 1;
    for (int y = r->lo[1]; y <= r->hi[1]; ++y)
        for (int z = r->lo[2]; z <= r->hi[2]; ++z) {
            const uint8_t* dst =
                payload + vxk_voxel_index((uint32_t)r->lo[0], (uint32_t)y, (uint32_t)z);
            if (s->ids) {
                if (memcmp(dst, source_row(s, ox + r->lo[0], oy + y, oz + z), (size_t)width))
                    return true;
            } else {
                for (int x = 0; x < width; ++x)
                    if (dst[x] != s->constant)
                        return true;
            }
        }
    return false;
}

// Whether applying the region needs a new payload block: the chunk is not mixed and will be, or
// its payload is shared and changes (copy on write).
static bool region_needs_payload(const vxk_terrain* t, const box_source* s, const chunk_region* r)
{
    const vxk_chunk* c = chunk_at(t, r->chunk);
    uint8_t value;
    bool uniform = region_uniform(s, r, &value);
    if (c && c->payload)
        return payload_shared(c->payload) && !(uniform && r->full) &&
               region_changes(s, r, c->payload);
    uint8_t old = c ? c->uniform_material : VXK_MAT_AIR;
    return !(uniform && (r->full || value == old));
}

static void region_apply(vxk_terrain* t, const box_source* s, const chunk_region* r,
                         uint8_t** stash, uint32_t* stash_used)
{
    vxk_chunk* c = chunk_at(t, r->chunk);
    uint8_t value;
    bool uniform = region_uniform(s, r, &value);
    if (!c || !c->payload) {
        uint8_t old = c ? c->uniform_material : VXK_MAT_AIR;
        if (uniform && value == old)
            return;
        if (uniform && r->full) {
            if (!c)
                c = chunk_create(t, r->chunk);
            chunk_set_uniform(t, c, value);
            return;
        }
        uint8_t* payload = stash[(*stash_used)++];
        memset(payload, old, VXK_CHUNK_VOXELS);
        if (!c)
            c = chunk_create(t, r->chunk);
        chunk_set_payload(t, c, payload);
        region_store(s, r, c->payload);
        chunk_after_payload_write(t, c);
        return;
    }
    if (uniform && r->full) {
        chunk_set_uniform(t, c, value);
        return;
    }
    if (payload_shared(c->payload)) {
        // Shared in the plan too: only this writer adds references, so a block can turn
        // exclusive between plan and apply but never shared.
        if (!region_changes(s, r, c->payload))
            return;
        uint8_t* copy = stash[(*stash_used)++];
        memcpy(copy, c->payload, VXK_CHUNK_PAYLOAD_BYTES);
        chunk_set_payload(t, c, copy);
    }
    if (region_store(s, r, c->payload))
        chunk_after_payload_write(t, c);
}

static uint64_t mul_saturate(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static void region_of(chunk_region* r, vxk_int_box box, vxk_int3 chunk)
{
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    const int32_t l[3] = {box.min.x, box.min.y, box.min.z};
    const int32_t h[3] = {box.max.x, box.max.y, box.max.z};
    r->chunk = chunk;
    r->full = true;
    for (int a = 0; a < 3; ++a) {
        int64_t origin = (int64_t)c[a] * 8;
        r->lo[a] = (int)VXK_MAX((int64_t)l[a] - origin, 0);
        r->hi[a] = (int)VXK_MIN((int64_t)h[a] - origin, 7);
        r->full &= r->lo[a] == 0 && r->hi[a] == 7;
    }
}

// Releases the payload blocks of a stash from `used` on (those a write did not take) and the
// stash itself.
static void stash_release(uint8_t** stash, uint32_t used, uint32_t count)
{
    if (!stash)
        return;
    for (uint32_t i = used; i < count; ++i)
        vxk_terrain_payload_free(stash[i]);
    vxk_free(stash, (size_t)count * sizeof(uint8_t*));
}

// Allocates the `count` payload blocks a write needs before it changes anything (*stash NULL for
// none). False, with nothing held, when out of memory.
static bool stash_alloc(uint8_t*** stash, uint32_t count)
{
    *stash = NULL;
    if (!count)
        return true;
    uint8_t** blocks = (uint8_t**)vxk_calloc((size_t)count * sizeof(uint8_t*));
    bool ok = blocks != NULL;
    for (uint32_t i = 0; ok && i < count; ++i)
        ok = (blocks[i] = vxk_terrain_payload_alloc()) != NULL;
    if (!ok) {
        stash_release(blocks, 0, count);
        return false;
    }
    *stash = blocks;
    return true;
}

// One pass of a box write over its chunks: the plan (returns the payload blocks the write
// needs), or with apply the apply (takes blocks from stash, counting them in *used). Chunks are
// visited in (y, z, x) order, or the existing ones in map slot order for a sparse air fill.
static uint32_t box_pass(vxk_terrain* t, vxk_int_box box, const box_source* s,
                         const vxk_int3* existing, uint32_t existing_count, bool sparse_air,
                         const int32_t c0[3], const int32_t c1[3], bool apply, uint8_t** stash,
                         uint32_t* used)
{
    uint32_t needed = 0;
    chunk_region r;
    if (sparse_air) {
        for (uint32_t i = 0; i < existing_count; ++i) {
            region_of(&r, box, existing[i]);
            if (apply)
                region_apply(t, s, &r, stash, used);
            else
                needed += region_needs_payload(t, s, &r);
        }
        return needed;
    }
    for (int32_t cy = c0[1];; ++cy) {
        for (int32_t cz = c0[2];; ++cz) {
            for (int32_t cx = c0[0];; ++cx) {
                region_of(&r, box, (vxk_int3){cx, cy, cz});
                if (apply)
                    region_apply(t, s, &r, stash, used);
                else
                    needed += region_needs_payload(t, s, &r);
                if (cx == c1[0])
                    break;
            }
            if (cz == c1[2])
                break;
        }
        if (cy == c1[1])
            break;
    }
    return needed;
}

// Applies a box write: plan (count payloads, reserve), allocate, then apply without failure.
// Chunks are visited in (cy, cz, cx) order, or, for an air fill over a box with more chunk
// positions than the terrain has chunks, the existing chunks inside it in map slot order.
static vxk_status box_write(vxk_terrain* t, vxk_int_box box, const box_source* s)
{
    const vxk_int3 lo = box.min, hi = box.max;
    int32_t c0[3] = {vxk_floor_div8(lo.x), vxk_floor_div8(lo.y), vxk_floor_div8(lo.z)};
    int32_t c1[3] = {vxk_floor_div8(hi.x), vxk_floor_div8(hi.y), vxk_floor_div8(hi.z)};
    uint64_t positions = 1;
    for (int a = 0; a < 3; ++a)
        positions = mul_saturate(positions, (uint64_t)((int64_t)c1[a] - c0[a] + 1));

    vxk_int3* existing = NULL;
    uint32_t existing_count = 0;
    bool sparse_air = !s->ids && s->constant == VXK_MAT_AIR && positions > t->map.count;
    if (sparse_air) {
        if (t->map.count) {
            existing = (vxk_int3*)vxk_alloc((size_t)t->map.count * sizeof(vxk_int3));
            if (!existing)
                return VXK_ERR_OUT_OF_MEMORY;
        }
        uint32_t cursor = 0;
        const vxk_chunk_map_slot* slot;
        while ((slot = vxk_chunk_map_next(&t->map, &cursor)) != NULL) {
            vxk_int3 k = slot->key;
            if (k.x >= c0[0] && k.x <= c1[0] && k.y >= c0[1] && k.y <= c1[1] && k.z >= c0[2] &&
                k.z <= c1[2])
                existing[existing_count++] = k;
        }
    } else if (positions > TERRAIN_MAX_CHUNKS) {
        return VXK_ERR_OUT_OF_MEMORY;
    }
    uint64_t touched = sparse_air ? existing_count : positions;
    uint64_t extra = s->ids || s->constant != VXK_MAT_AIR ? touched : 0;

    // Plan: count the payload blocks this write needs.
    uint32_t needed =
        box_pass(t, box, s, existing, existing_count, sparse_air, c0, c1, false, NULL, NULL);
    uint8_t** stash;
    if (!stash_alloc(&stash, needed)) {
        vxk_free(existing, (size_t)t->map.count * sizeof(vxk_int3));
        return VXK_ERR_OUT_OF_MEMORY;
    }
    size_t existing_bytes = (size_t)t->map.count * sizeof(vxk_int3);
    if (!reserve_write(t, extra, touched)) {
        stash_release(stash, 0, needed);
        vxk_free(existing, existing_bytes);
        return VXK_ERR_OUT_OF_MEMORY;
    }

    begin_write(t);
    uint32_t used = 0;
    box_pass(t, box, s, existing, existing_count, sparse_air, c0, c1, true, stash, &used);
    VXK_ASSERT(used <= needed); // fewer when a shared payload turned exclusive meanwhile
    stash_release(stash, used, needed);
    vxk_free(existing, existing_bytes);
    return VXK_OK;
}

vxk_status vxk_terrain_fill(vxk_terrain* t, vxk_int_box box, uint8_t material)
{
    if (t->writes_frozen)
        return VXK_ERR_UNSUPPORTED;
    box_source s = {NULL, material, box.min.x, box.min.y, box.min.z, 0, 0};
    return box_write(t, box, &s);
}

vxk_status vxk_terrain_write(vxk_terrain* t, vxk_int_box box, const uint8_t* ids)
{
    if (t->writes_frozen)
        return VXK_ERR_UNSUPPORTED;
    box_source s = {ids,
                    0,
                    box.min.x,
                    box.min.y,
                    box.min.z,
                    (int64_t)box.max.x - box.min.x + 1,
                    (int64_t)box.max.z - box.min.z + 1};
    return box_write(t, box, &s);
}

void vxk_terrain_read(const vxk_terrain* t, uint8_t* out, vxk_int_box box)
{
    const vxk_int3 lo = box.min, hi = box.max;
    int64_t size_x = (int64_t)hi.x - lo.x + 1, size_z = (int64_t)hi.z - lo.z + 1;
    int32_t c0[3] = {vxk_floor_div8(lo.x), vxk_floor_div8(lo.y), vxk_floor_div8(lo.z)};
    int32_t c1[3] = {vxk_floor_div8(hi.x), vxk_floor_div8(hi.y), vxk_floor_div8(hi.z)};
    chunk_region r;
    for (int32_t cy = c0[1];; ++cy) {
        for (int32_t cz = c0[2];; ++cz) {
            for (int32_t cx = c0[0];; ++cx) {
                region_of(&r, box, (vxk_int3){cx, cy, cz});
                const vxk_chunk* c = chunk_at(t, (vxk_int3){cx, cy, cz});
                int width = r.hi[0] - r.lo[0] + 1;
                for (int y = r.lo[1]; y <= r.hi[1]; ++y)
                    for (int z = r.lo[2]; z <= r.hi[2]; ++z) {
                        int64_t wx = (int64_t)cx * 8 + r.lo[0], wy = (int64_t)cy * 8 + y;
                        int64_t wz = (int64_t)cz * 8 + z;
                        uint8_t* dst =
                            out + (wx - lo.x) + size_x * ((wz - lo.z) + size_z * (wy - lo.y));
                        if (c && c->payload)
                            memcpy(dst,
                                   c->payload +
                                       vxk_voxel_index((uint32_t)r.lo[0], (uint32_t)y, (uint32_t)z),
                                   (size_t)width);
                        else
                            memset(dst, c ? c->uniform_material : 0, (size_t)width);
                    }
                if (cx == c1[0])
                    break;
            }
            if (cz == c1[2])
                break;
        }
        if (cy == c1[1])
            break;
    }
}

// Sets chunks in array order (the apply of adopt and install; capacity reserved).
static void set_chunks(vxk_terrain* t, const vxk_terrain_chunk_source* chunks, uint32_t count,
                       bool collapse)
{
    begin_write(t);
    for (uint32_t i = 0; i < count; ++i) {
        const vxk_terrain_chunk_source* src = &chunks[i];
        vxk_chunk* c = chunk_at(t, src->coord);
        uint8_t* payload = src->payload;
        uint8_t material = src->uniform_material;
        if (collapse && payload && payload_is_uniform(payload)) {
            material = payload[0];
            vxk_terrain_payload_free(payload);
            payload = NULL;
        }
        if (!payload) {
            if (!c && material == VXK_MAT_AIR)
                continue;
            if (!c)
                c = chunk_create(t, src->coord);
            chunk_set_uniform(t, c, material);
            continue;
        }
        if (!c)
            c = chunk_create(t, src->coord);
        chunk_set_payload(t, c, payload);
        VXK_VALIDATE_ONLY({
            uint8_t check[VXK_CHUNK_PAYLOAD_BYTES];
            memcpy(check, payload, sizeof(check));
            vxk_terrain_payload_update_bits(t, check);
            VXK_ASSERT(memcmp(check, payload, sizeof(check)) == 0);
        })
        mark_written(t, c);
    }
}

vxk_status vxk_terrain_adopt_chunks(vxk_terrain* t, const vxk_terrain_chunk_source* chunks,
                                    uint32_t count)
{
    if (t->writes_frozen)
        return VXK_ERR_UNSUPPORTED;
    if (count == 0)
        return VXK_OK;
    if (!chunks)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!reserve_write(t, count, count))
        return VXK_ERR_OUT_OF_MEMORY;
    set_chunks(t, chunks, count, true);
    return VXK_OK;
}

// ---- Versions ---------------------------------------------------------------------------------

vxk_status vxk_terrain_reserve_install(vxk_terrain* t, uint64_t count)
{
    return reserve_write(t, count, count) ? VXK_OK : VXK_ERR_OUT_OF_MEMORY;
}

void vxk_terrain_install(vxk_terrain* t, const vxk_terrain_chunk_source* states, uint32_t count)
{
    if (count)
        set_chunks(t, states, count, false);
}

vxk_status vxk_terrain_fork(vxk_terrain* copy, const vxk_terrain* t)
{
    memset(copy, 0, sizeof(*copy));
    copy->view = (vxk_terrain_view*)vxk_calloc(sizeof(vxk_terrain_view));
    size_t slot_bytes = (size_t)t->map.capacity * sizeof(vxk_chunk_map_slot);
    vxk_chunk_map_slot* slots = slot_bytes ? (vxk_chunk_map_slot*)vxk_alloc(slot_bytes) : NULL;
    vxk_chunk* chunks = t->chunk_capacity
                            ? (vxk_chunk*)vxk_alloc((size_t)t->chunk_capacity * sizeof(vxk_chunk))
                            : NULL;
    uint32_t* free_slots = t->chunk_capacity
                               ? (uint32_t*)vxk_alloc((size_t)t->chunk_capacity * sizeof(uint32_t))
                               : NULL;
    if (!copy->view || (slot_bytes && !slots) || (t->chunk_capacity && (!chunks || !free_slots))) {
        vxk_free(copy->view, sizeof(vxk_terrain_view));
        vxk_free(slots, slot_bytes);
        vxk_free(chunks, (size_t)t->chunk_capacity * sizeof(vxk_chunk));
        vxk_free(free_slots, (size_t)t->chunk_capacity * sizeof(uint32_t));
        memset(copy, 0, sizeof(*copy));
        return VXK_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&copy->view->lock, NULL);
    atomic_init(&copy->view->valid, 0);
    memcpy(copy->material_kind, t->material_kind, sizeof(t->material_kind));
    if (slot_bytes)
        memcpy(slots, t->map.slots, slot_bytes);
    copy->map = (vxk_chunk_map){slots, t->map.capacity, t->map.count};
    if (t->chunk_used)
        memcpy(chunks, t->chunks, (size_t)t->chunk_used * sizeof(vxk_chunk));
    if (t->free_count)
        memcpy(free_slots, t->free_slots, (size_t)t->free_count * sizeof(uint32_t));
    for (uint32_t i = 0; i < t->chunk_used; ++i) {
        chunks[i].flags = 0; // the copy's dirty list starts empty
        if (chunks[i].payload)
            vxk_terrain_payload_retain(chunks[i].payload);
    }
    copy->chunks = chunks;
    copy->free_slots = free_slots;
    copy->chunk_capacity = t->chunk_capacity;
    copy->chunk_used = t->chunk_used;
    copy->free_count = t->free_count;
    copy->mixed_count = t->mixed_count;
    copy->epoch = t->epoch;
    copy->is_fork = true;
    return VXK_OK;
}

// The state of one chunk in vxk_terrain_edit_chunks' plan.
enum { EDIT_KEEP = 0, EDIT_UNIFORM = 1, EDIT_MIXED = 2 };
typedef struct edit_plan {
    uint8_t action;    // EDIT_*
    uint8_t value;     // EDIT_UNIFORM: the material
    uint8_t new_block; // EDIT_MIXED: the chunk needs a payload block it does not own
    uint8_t pad;
} edit_plan;

vxk_status vxk_terrain_edit_chunks(vxk_terrain* t, vxk_int_box cb, vxk_terrain_chunk_fn* fn,
                                   void* ctx)
{
    uint64_t n = 1;
    const int64_t lo[3] = {cb.min.x, cb.min.y, cb.min.z}, hi[3] = {cb.max.x, cb.max.y, cb.max.z};
    for (int a = 0; a < 3; ++a) {
        if (hi[a] < lo[a])
            return VXK_ERR_INVALID_ARGUMENT;
        n = mul_saturate(n, (uint64_t)(hi[a] - lo[a] + 1));
    }
    if (n > VXK_TERRAIN_EDIT_MAX_CHUNKS)
        return VXK_ERR_OUT_OF_RANGE;
    size_t bytes = (size_t)n * (VXK_CHUNK_VOXELS + sizeof(edit_plan));
    if (bytes > t->edit_scratch_bytes) {
        uint8_t* scratch = (uint8_t*)vxk_alloc(bytes);
        if (!scratch)
            return VXK_ERR_OUT_OF_MEMORY;
        vxk_free(t->edit_scratch, t->edit_scratch_bytes);
        t->edit_scratch = scratch;
        t->edit_scratch_bytes = bytes;
    }
    uint8_t* voxels = t->edit_scratch;
    edit_plan* plan = (edit_plan*)(t->edit_scratch + (size_t)n * VXK_CHUNK_VOXELS);

    // Plan: every chunk's new voxels, what storing them takes.
    uint32_t i = 0, changed = 0, blocks = 0, created = 0;
    for (int64_t y = lo[1]; y <= hi[1]; ++y)
        for (int64_t z = lo[2]; z <= hi[2]; ++z)
            for (int64_t x = lo[0]; x <= hi[0]; ++x, ++i) {
                vxk_int3 coord = {(int32_t)x, (int32_t)y, (int32_t)z};
                const vxk_chunk* c = chunk_at(t, coord);
                uint8_t* v = voxels + (size_t)i * VXK_CHUNK_VOXELS;
                uint8_t old = c ? c->uniform_material : VXK_MAT_AIR;
                if (c && c->payload)
                    memcpy(v, c->payload, VXK_CHUNK_VOXELS);
                else
                    memset(v, old, VXK_CHUNK_VOXELS);
                plan[i] = (edit_plan){EDIT_KEEP, 0, 0, 0};
                if (!fn(ctx, coord, v))
                    continue;
                bool uniform = payload_is_uniform(v);
                if (c && c->payload) {
                    if (memcmp(v, c->payload, VXK_CHUNK_VOXELS) == 0)
                        continue;
                } else if (uniform && v[0] == old) {
                    continue;
                }
                ++changed;
                if (uniform) {
                    plan[i] = (edit_plan){EDIT_UNIFORM, v[0], 0, 0};
                    created += !c && v[0] != VXK_MAT_AIR;
                } else {
                    bool owned = c && c->payload && !payload_shared(c->payload);
                    plan[i] = (edit_plan){EDIT_MIXED, 0, !owned, 0};
                    blocks += !owned;
                    created += !c;
                }
            }
    if (changed == 0)
        return VXK_OK;

    // Allocate everything, then store without failure.
    uint8_t** stash;
    if (!stash_alloc(&stash, blocks))
        return VXK_ERR_OUT_OF_MEMORY;
    if (!reserve_write(t, created, changed)) {
        stash_release(stash, 0, blocks);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    begin_write(t);
    uint32_t used = 0;
    i = 0;
    for (int64_t y = lo[1]; y <= hi[1]; ++y)
        for (int64_t z = lo[2]; z <= hi[2]; ++z)
            for (int64_t x = lo[0]; x <= hi[0]; ++x, ++i) {
                if (plan[i].action == EDIT_KEEP)
                    continue;
                vxk_int3 coord = {(int32_t)x, (int32_t)y, (int32_t)z};
                vxk_chunk* c = chunk_at(t, coord);
                if (plan[i].action == EDIT_UNIFORM) {
                    if (!c)
                        c = chunk_create(t, coord);
                    chunk_set_uniform(t, c, plan[i].value);
                    continue;
                }
                if (!c)
                    c = chunk_create(t, coord);
                // Shared in the plan too (see region_apply): a block was counted for it.
                if (!c->payload || payload_shared(c->payload))
                    chunk_set_payload(t, c, stash[used++]);
                memcpy(c->payload, voxels + (size_t)i * VXK_CHUNK_VOXELS, VXK_CHUNK_VOXELS);
                vxk_terrain_payload_update_bits(t, c->payload);
                mark_written(t, c);
            }
    VXK_ASSERT(used <= blocks);
    stash_release(stash, used, blocks);
    return VXK_OK;
}

uint64_t vxk_terrain_index_bytes(const vxk_terrain* t)
{
    return vxk_chunk_map_bytes(&t->map) +
           (uint64_t)t->chunk_capacity * (sizeof(vxk_chunk) + sizeof(uint32_t)) +
           (uint64_t)t->dirty_capacity * sizeof(vxk_int3) + sizeof(*t->view) +
           (uint64_t)t->view->capacity * sizeof(void*) +
           (uint64_t)t->view->key_capacity * 4 * sizeof(uint64_t) + t->edit_scratch_bytes;
}

const vxk_int3* vxk_terrain_take_dirty(vxk_terrain* t, uint32_t* count)
{
    if (t->dirty_taken) {
        t->dirty_count = 0;
        t->dirty_taken = false;
    }
    vxk_int3* list = t->dirty;
    uint32_t n = t->dirty_count;
    // Sort by (cy, cz, cx) and drop duplicates (a chunk removed and re-created appears twice).
    if (n > 1) {
        uint64_t* keys = (uint64_t*)vxk_alloc((size_t)n * 4 * sizeof(uint64_t));
        if (keys) {
            for (uint32_t i = 0; i < n; ++i) {
                uint64_t cy = (uint32_t)list[i].y ^ 0x80000000u;
                uint64_t cz = (uint32_t)list[i].z ^ 0x80000000u;
                keys[2 * i] = (cy << 32) | cz;
                keys[2 * i + 1] = (uint64_t)((uint32_t)list[i].x ^ 0x80000000u) << 32;
            }
            vxk_radix_sort_records(keys, keys + 2 * (size_t)n, n, 2);
            for (uint32_t i = 0; i < n; ++i) {
                list[i].y = (int32_t)((uint32_t)(keys[2 * i] >> 32) ^ 0x80000000u);
                list[i].z = (int32_t)((uint32_t)keys[2 * i] ^ 0x80000000u);
                list[i].x = (int32_t)((uint32_t)(keys[2 * i + 1] >> 32) ^ 0x80000000u);
            }
            vxk_free(keys, (size_t)n * 4 * sizeof(uint64_t));
        } else {
            // Out of memory: an insertion sort keeps the contract at a higher cost.
            for (uint32_t i = 1; i < n; ++i) {
                vxk_int3 v = list[i];
                uint32_t j = i;
                while (j > 0 &&
                       (list[j - 1].y > v.y ||
                        (list[j - 1].y == v.y &&
                         (list[j - 1].z > v.z || (list[j - 1].z == v.z && list[j - 1].x > v.x))))) {
                    list[j] = list[j - 1];
                    --j;
                }
                list[j] = v;
            }
        }
        uint32_t unique = 1;
        for (uint32_t i = 1; i < n; ++i)
            if (list[i].x != list[unique - 1].x || list[i].y != list[unique - 1].y ||
                list[i].z != list[unique - 1].z)
                list[unique++] = list[i];
        n = unique;
    }
    for (uint32_t i = 0; i < n; ++i) {
        vxk_chunk* c = chunk_at(t, list[i]);
        if (c)
            c->flags &= (uint8_t)~CHUNK_FLAG_DIRTY;
    }
    t->dirty_count = n;
    t->dirty_taken = true;
    *count = n;
    return list;
}

void vxk_terrain_untake_dirty(vxk_terrain* t)
{
    if (!t->dirty_taken)
        return; // a write since the take already started a new list holding the old one's chunks
    for (uint32_t i = 0; i < t->dirty_count; ++i) {
        vxk_chunk* c = chunk_at(t, t->dirty[i]);
        if (c)
            c->flags |= (uint8_t)CHUNK_FLAG_DIRTY;
    }
    t->dirty_taken = false;
}

void vxk_terrain_memory(const vxk_terrain* t, vxk_world_memory_stats* stats)
{
    stats->chunk_count = t->map.count;
    stats->mixed_chunks = t->mixed_count;
    stats->uniform_chunks = t->map.count - t->mixed_count;
    stats->map_bytes = vxk_chunk_map_bytes(&t->map);
    stats->chunk_entry_bytes = (uint64_t)t->chunk_capacity * (sizeof(vxk_chunk) + sizeof(uint32_t));
    stats->voxel_bytes = (uint64_t)t->mixed_count * VXK_CHUNK_VOXELS;
    stats->occupancy_bytes =
        (uint64_t)t->mixed_count * (VXK_CHUNK_PAYLOAD_BYTES - VXK_CHUNK_VOXELS);
    // The terrain struct itself is part of the world's (by value).
    stats->terrain_other_bytes = sizeof(*t->view) + (uint64_t)t->view->capacity * sizeof(void*) +
                                 (uint64_t)t->view->key_capacity * 4 * sizeof(uint64_t) +
                                 (uint64_t)t->dirty_capacity * sizeof(vxk_int3) +
                                 t->edit_scratch_bytes;
}

// Digest over 8-byte little-endian words: chunk header, then the 512 voxel bytes of mixed chunks.
static inline uint64_t hash_word(uint64_t hash, uint64_t word)
{
    hash = (hash ^ word) * 0x9E3779B97F4A7C15ull;
    return hash ^ (hash >> 31);
}

uint64_t vxk_terrain_hash(const vxk_terrain* terrain)
{
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(terrain, &count);
    uint64_t hash = hash_word(VXK_HASH_SEED, count);
    for (uint32_t i = 0; i < count; ++i) {
        const vxk_chunk* c = chunks[i];
        hash = hash_word(hash, ((uint64_t)(uint32_t)c->coord.x << 32) | (uint32_t)c->coord.y);
        hash = hash_word(hash, ((uint64_t)(uint32_t)c->coord.z << 32) |
                                   ((uint64_t)(c->payload != NULL) << 8) |
                                   (c->payload ? 0 : c->uniform_material));
        if (c->payload) {
            for (int k = 0; k < VXK_CHUNK_VOXELS; k += 8) {
                uint64_t word;
                memcpy(&word, c->payload + k, 8);
                hash = hash_word(hash, word);
            }
        }
    }
    return hash;
}
