// narrow_cache.c: lazily built per-chunk quads + quantized loose kD tree, cached under a byte
// budget with LRU eviction, single-flight builds and pinning (seed 000: "lazy generation of
// collision objects ... a cache of the resulting objects so that the memory overhead remained
// manageable").
//
// Mechanisms (retuned over time; the header states only the contract):
// 64 shards, each a mutex over a chained hash table. A miss inserts a BUILDING entry and builds
// without any lock; waiters spin on the entry's atomic state, then yield. Eviction removes the
// least recently used unpinned entries until the bytes fall to 7/8 of the budget (a scan per
// batch, amortised). For the rays' lock-free hits, entry memory is never freed while the cache
// lives: a dead entry is recycled for a later build, and a pin taken through a stale slot pointer
// is refused (dead) or checked against the slot's key and dropped. A ray grid slot holds 0, an
// entry, or (epoch << 1 | 1) for "no terrain chunk at that terrain epoch"; the cache holds the
// grid (a vxk_ray_grid_holder, by value) so that the slots never outlive the entries they name.
#include "narrow_cache.h"

#include "chunk_map.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define NARROW_SHARDS 64
// pins: a count, PIN_DETACHED once out of the table, PIN_DEAD once its data is freed and the
// entry is recycled (never set while the count is nonzero).
#define PIN_DETACHED 0x80000000u
#define PIN_DEAD 0x40000000u
#define PIN_COUNT 0x3FFFFFFFu

enum { ENTRY_BUILDING = 0, ENTRY_READY = 1, ENTRY_FAILED = 2 };

// The fields a ray's lock-free hit reads come first, then the data (solid bits and tree header in
// the next lines): a ray's visit touches the entry's first lines only.
typedef struct narrow_entry {
    _Atomic uint32_t pins; // pin count | PIN_DETACHED | PIN_DEAD
    _Atomic uint32_t state;
    _Atomic uint64_t ray_key; // vxk_ray_grid_slot_key of the slot it is published in (0: none)
    _Atomic uint64_t last_use;
    _Atomic uint32_t checked_epoch; // terrain epoch at which the stamp was last confirmed (0: none)
    vxk_status build_status;
    vxk_narrow_chunk data; // the public view
    struct narrow_entry* next;
    struct vxk_narrow_cache* cache;
    pthread_t builder;
} narrow_entry;

typedef struct narrow_shard {
    pthread_mutex_t lock;
    narrow_entry** buckets; // bucket_count heads
    uint32_t bucket_count;  // power of two
    uint32_t count;
    uint64_t hits; // under the lock: no shared counter is written on the hot path
    char pad[64];
} narrow_shard;

struct vxk_narrow_cache {
    narrow_shard shards[NARROW_SHARDS];
    pthread_mutex_t evict_lock;
    // Dead entries for reuse: entry memory is never freed while the cache lives, so that a ray
    // holding a pointer read from a grid slot can always try (and be refused) a pin.
    pthread_mutex_t free_lock;
    narrow_entry* free_entries;
    uint64_t free_count;
    _Atomic uint64_t slot_hits;
    _Atomic uint64_t packets;
    _Atomic uint64_t tick;
    _Atomic uint64_t bytes;
    _Atomic uint64_t budget;
    _Atomic uint64_t entries;
    _Atomic uint64_t misses, builds, waits, evictions, stale, serial;
    vxk_ray_grid_holder grid; // its slots point at entries
};

// ---- building ---------------------------------------------------------------------------------

// Builder scratch on the stack when it fits (the common case: a chunk of up to a few hundred
// quads), else one allocation for the call.
#define BUILD_STACK_BYTES (64 * 1024)

// The float quad mesh of the quads (4 unshared corners each, as vxk_quad_to_mesh places them)
// into caller arrays.
static void fill_quad_mesh(vxk_mesh* mesh, vxk_vec3* vertices, uint32_t* indices,
                           const vxk_quad* quads, uint32_t count)
{
    for (uint32_t i = 0; i < count; ++i) {
        vxk_quad_corners(&vertices[4 * (size_t)i], quads[i], (vxk_vec3){0, 0, 0}, 1.0f);
        for (uint32_t c = 0; c < 4; ++c)
            indices[4 * (size_t)i + c] = 4 * i + c;
    }
    *mesh = (vxk_mesh){vertices, 4 * count, indices, NULL, count, 4};
}

static size_t align8(size_t bytes)
{
    return (bytes + 7) & ~(size_t)7;
}

// The quantized quad tree over the quads: the float mesh it quantizes and the builder scratch
// live only for the call. VXK_ERR_UNSUPPORTED past the tree's limits.
static vxk_status build_quantized(vxk_narrow_chunk* out, const vxk_quad* quads, uint32_t count)
{
    size_t vb = align8((size_t)count * 4 * sizeof(vxk_vec3));
    size_t ib = align8((size_t)count * 4 * sizeof(uint32_t));
    size_t sb = vxk_kdtree_build_scratch_size(count);
    size_t need = vb + ib + sb;
    _Alignas(8) uint8_t stack[BUILD_STACK_BYTES];
    uint8_t* mem = need <= sizeof(stack) ? stack : (uint8_t*)vxk_alloc(need);
    if (!mem)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_mesh mesh;
    fill_quad_mesh(&mesh, (vxk_vec3*)mem, (uint32_t*)(mem + vb), quads, count);
    vxk_status status = vxk_kdtree16_build(&out->tree16, &mesh, mem + vb + ib, sb);
    if (mem != stack)
        vxk_free(mem, need);
    if (status == VXK_OK)
        out->quantized = true;
    return status;
}

// The float fallback: mesh and nodes in one block, the tree built into it.
static vxk_status build_float(vxk_narrow_chunk* out, const vxk_quad* quads, uint32_t count)
{
    uint32_t max_nodes = vxk_kdtree_max_nodes(count);
    size_t nb = align8((size_t)max_nodes * sizeof(vxk_kdtree_node));
    size_t vb = align8((size_t)count * 4 * sizeof(vxk_vec3));
    size_t ib = (size_t)count * 4 * sizeof(uint32_t);
    size_t block_bytes = nb + vb + ib;
    uint8_t* block = (uint8_t*)vxk_alloc(block_bytes);
    if (!block)
        return VXK_ERR_OUT_OF_MEMORY;
    fill_quad_mesh(&out->mesh, (vxk_vec3*)(block + nb), (uint32_t*)(block + nb + vb), quads, count);
    size_t sb = vxk_kdtree_build_scratch_size(count);
    _Alignas(8) uint8_t stack[BUILD_STACK_BYTES];
    bool fits = sb <= sizeof(stack);
    vxk_status status = vxk_kdtree_build_in(&out->tree, &out->mesh, (vxk_kdtree_node*)block,
                                            max_nodes, fits ? stack : NULL, fits ? sb : 0);
    if (status != VXK_OK) {
        vxk_free(block, block_bytes);
        memset(&out->mesh, 0, sizeof(out->mesh));
        return status;
    }
    out->block = block;
    out->block_bytes = block_bytes;
    return VXK_OK;
}

// The chunk's quads, as vxk_terrain_chunk_mesh makes them, but for a chunk at the end of the
// int32 voxel range too: its border's cells past the range are empty (no terrain lies there),
// where vxk_chunk_mesh refuses the box.
static vxk_status chunk_quads(const vxk_world* world, vxk_int3 chunk, vxk_quad* quads,
                              uint32_t* count)
{
    const int64_t first[3] = {8 * (int64_t)chunk.x - 1, 8 * (int64_t)chunk.y - 1,
                              8 * (int64_t)chunk.z - 1};
    int64_t lo[3], hi[3];
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
        lo[k] = first[k] < INT32_MIN ? INT32_MIN : first[k];
        hi[k] =
            first[k] + VXK_MESHER_BOX - 1 > INT32_MAX ? INT32_MAX : first[k] + VXK_MESHER_BOX - 1;
        inside &= lo[k] == first[k] && hi[k] == first[k] + VXK_MESHER_BOX - 1;
    }
    if (inside)
        return vxk_terrain_chunk_mesh(&world->terrain, quads, VXK_MESHER_MAX_QUADS, count,
                                      &world->materials, chunk);
    uint8_t box[VXK_MESHER_BOX_VOXELS] = {0}, part[VXK_MESHER_BOX_VOXELS];
    int64_t n[3];
    for (int k = 0; k < 3; ++k) {
        n[k] = hi[k] - lo[k] + 1;
        if (n[k] <= 0) { // a chunk past the range: all air
            *count = 0;
            return VXK_OK;
        }
    }
    vxk_terrain_read(&world->terrain, part,
                     (vxk_int_box){{(int32_t)lo[0], (int32_t)lo[1], (int32_t)lo[2]},
                                   {(int32_t)hi[0], (int32_t)hi[1], (int32_t)hi[2]}});
    for (int64_t y = 0; y < n[1]; ++y)
        for (int64_t z = 0; z < n[2]; ++z)
            for (int64_t x = 0; x < n[0]; ++x) {
                int64_t bx = lo[0] - first[0] + x, by = lo[1] - first[1] + y;
                int64_t bz = lo[2] - first[2] + z;
                box[bx + VXK_MESHER_BOX * (bz + VXK_MESHER_BOX * by)] =
                    part[x + n[0] * (z + n[2] * y)];
            }
    uint8_t solid[256];
    vxk_status status = vxk_chunk_solid_table(solid, &world->materials);
    return status != VXK_OK ? status
                            : vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, count, box, solid);
}

static vxk_status build_chunk(const vxk_world* world, vxk_int3 chunk, bool allow_quantized,
                              vxk_narrow_chunk* out)
{
    memset(out, 0, sizeof(*out));
    out->coord = chunk;
    out->stamp = vxk_narrow_stamp(world, chunk);
    uint64_t water[8];
    vxk_terrain_chunk_bits(&world->terrain, chunk, out->solid, water);
    vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    vxk_status status = chunk_quads(world, chunk, quads, &count);
    if (status != VXK_OK)
        return status;
    if (count) {
        out->quads = (vxk_quad*)vxk_alloc((size_t)count * sizeof(vxk_quad));
        if (!out->quads)
            return VXK_ERR_OUT_OF_MEMORY;
        memcpy(out->quads, quads, (size_t)count * sizeof(vxk_quad));
        out->quad_count = count;
        // Voxel-unit corners are exact on the quantized grid: same hits, a third of the bytes.
        status = allow_quantized ? build_quantized(out, quads, count) : VXK_ERR_UNSUPPORTED;
        if (status == VXK_ERR_UNSUPPORTED)
            status = build_float(out, quads, count);
    }
    if (status != VXK_OK) {
        vxk_free(out->quads, (size_t)out->quad_count * sizeof(vxk_quad));
        out->quads = NULL;
        out->quad_count = 0;
        return status;
    }
    out->bytes = (size_t)count * sizeof(vxk_quad) + vxk_kdtree16_total_bytes(&out->tree16) +
                 out->block_bytes + sizeof(narrow_entry);
    return VXK_OK;
}

vxk_status vxk_narrow_build_chunk(const vxk_world* world, vxk_narrow_chunk* out, vxk_int3 chunk)
{
    return build_chunk(world, chunk, true, out);
}

vxk_status vxk_narrow_build_chunk_float(const vxk_world* world, vxk_narrow_chunk* out,
                                        vxk_int3 chunk)
{
    return build_chunk(world, chunk, false, out);
}

void vxk_narrow_free_chunk(vxk_narrow_chunk* chunk)
{
    vxk_kdtree16_free(&chunk->tree16);
    vxk_kdtree_free(&chunk->tree);
    vxk_free(chunk->block, chunk->block_bytes);
    vxk_free(chunk->quads, (size_t)chunk->quad_count * sizeof(vxk_quad));
    chunk->block = NULL;
    chunk->block_bytes = 0;
    memset(&chunk->mesh, 0, sizeof(chunk->mesh));
    chunk->quantized = false;
    chunk->quads = NULL;
    chunk->quad_count = 0;
}

// ---- stamps -----------------------------------------------------------------------------------

uint64_t vxk_narrow_stamp(const vxk_world* world, vxk_int3 chunk)
{
    const vxk_chunk* self = vxk_terrain_find(&world->terrain, chunk);
    if (!self)
        return 0;
    // Face and edge neighbours (offsets with one or two nonzero components); an absent one
    // contributes 0, a present one its version tagged as present.
    uint64_t h = 0x9E3779B97F4A7C15ull ^ self->version;
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx) {
                int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                if (nonzero == 0 || nonzero == 3)
                    continue;
                const vxk_chunk* n = vxk_terrain_find(
                    &world->terrain, (vxk_int3){chunk.x + dx, chunk.y + dy, chunk.z + dz});
                uint64_t v = n ? ((uint64_t)n->version << 1 | 1u) : 0u;
                h = (h ^ v) * 0x94D049BB133111EBull;
                h ^= h >> 29;
            }
    return h ? h : 1;
}

// ---- the cache object ---------------------------------------------------------------------------

static void cache_destroy(void* self);
static void cache_memory(const void* self, vxk_world_memory_stats* stats);

static vxk_narrow_cache* cache_create(size_t budget)
{
    vxk_narrow_cache* cache = (vxk_narrow_cache*)vxk_alloc_aligned64(sizeof(vxk_narrow_cache));
    if (!cache)
        return NULL;
    memset(cache, 0, sizeof(*cache));
    for (int i = 0; i < NARROW_SHARDS; ++i)
        pthread_mutex_init(&cache->shards[i].lock, NULL);
    pthread_mutex_init(&cache->evict_lock, NULL);
    pthread_mutex_init(&cache->free_lock, NULL);
    vxk_ray_grid_holder_init(&cache->grid);
    atomic_store(&cache->budget, budget);
    return cache;
}

// A zeroed entry of the cache: a recycled one or a new allocation. Its pins stay PIN_DEAD (a
// recycled one) until the caller sets them, so a stale pin attempt on it is refused until then.
static narrow_entry* entry_new(vxk_narrow_cache* cache)
{
    pthread_mutex_lock(&cache->free_lock);
    narrow_entry* e = cache->free_entries;
    if (e) {
        cache->free_entries = e->next;
        --cache->free_count;
    }
    pthread_mutex_unlock(&cache->free_lock);
    if (!e) {
        e = (narrow_entry*)vxk_calloc(sizeof(narrow_entry));
        if (!e)
            return NULL;
        atomic_store_explicit(&e->pins, PIN_DEAD, memory_order_relaxed);
        e->cache = cache; // never rewritten: a stale pin's release reads it
    }
    // Stale readers touch only the atomics (and nothing else before a pin is granted), so the
    // plain fields are reset with plain stores and the atomics with atomic ones.
    memset(&e->data, 0, sizeof(e->data));
    e->next = NULL;
    e->build_status = VXK_OK;
    atomic_store_explicit(&e->state, ENTRY_BUILDING, memory_order_relaxed);
    atomic_store_explicit(&e->ray_key, 0, memory_order_relaxed);
    atomic_store_explicit(&e->last_use, 0, memory_order_relaxed);
    atomic_store_explicit(&e->checked_epoch, 0, memory_order_relaxed);
    return e;
}

// Frees the entry's data and keeps the entry for reuse. The caller owns it: it is out of the
// table and dead (or was never visible to anyone).
static void entry_free(narrow_entry* e)
{
    vxk_narrow_cache* cache = e->cache;
    atomic_fetch_sub_explicit(&cache->bytes, e->data.bytes, memory_order_relaxed);
    vxk_narrow_free_chunk(&e->data);
    e->data.bytes = 0;
    atomic_store_explicit(&e->ray_key, 0, memory_order_relaxed);
    atomic_store_explicit(&e->pins, PIN_DEAD, memory_order_release);
    pthread_mutex_lock(&cache->free_lock);
    e->next = cache->free_entries;
    cache->free_entries = e;
    ++cache->free_count;
    pthread_mutex_unlock(&cache->free_lock);
}

// A detached entry whose count reached zero becomes dead, once: false when a pin came in
// meanwhile (its holder's release retries).
static bool entry_kill(narrow_entry* e)
{
    uint32_t expected = PIN_DETACHED;
    return atomic_compare_exchange_strong_explicit(&e->pins, &expected, PIN_DETACHED | PIN_DEAD,
                                                   memory_order_acq_rel, memory_order_relaxed);
}

static void cache_destroy(void* self)
{
    vxk_narrow_cache* cache = (vxk_narrow_cache*)self;
    for (int s = 0; s < NARROW_SHARDS; ++s) {
        narrow_shard* shard = &cache->shards[s];
        for (uint32_t b = 0; b < shard->bucket_count; ++b) {
            narrow_entry* e = shard->buckets[b];
            while (e) {
                narrow_entry* next = e->next;
                VXK_ASSERT(atomic_load(&e->pins) == 0);
                entry_free(e); // onto the free list, released below
                e = next;
            }
        }
        vxk_free(shard->buckets, (size_t)shard->bucket_count * sizeof(narrow_entry*));
        pthread_mutex_destroy(&shard->lock);
    }
    while (cache->free_entries) {
        narrow_entry* e = cache->free_entries;
        cache->free_entries = e->next;
        vxk_free(e, sizeof(*e));
    }
    pthread_mutex_destroy(&cache->free_lock);
    pthread_mutex_destroy(&cache->evict_lock);
    vxk_ray_grid_holder_destroy(&cache->grid);
    vxk_free_aligned64(cache, sizeof(*cache));
}

static void cache_memory(const void* self, vxk_world_memory_stats* stats)
{
    const vxk_narrow_cache* cache = (const vxk_narrow_cache*)self;
    uint64_t bytes =
        atomic_load_explicit(&((vxk_narrow_cache*)cache)->bytes, memory_order_relaxed) +
        sizeof(*cache);
    for (int s = 0; s < NARROW_SHARDS; ++s)
        bytes += (uint64_t)cache->shards[s].bucket_count * sizeof(narrow_entry*);
    pthread_mutex_lock(&((vxk_narrow_cache*)cache)->free_lock);
    bytes += cache->free_count * sizeof(narrow_entry);
    pthread_mutex_unlock(&((vxk_narrow_cache*)cache)->free_lock);
    bytes += vxk_ray_grid_holder_bytes(&((vxk_narrow_cache*)cache)->grid);
    stats->narrow_bytes += bytes;
}

vxk_status vxk_narrow_cache_attach(vxk_world* world)
{
    vxk_narrow_cache* cache = cache_create(world->narrow_cache_bytes);
    if (!cache)
        return VXK_ERR_OUT_OF_MEMORY;
    world->narrow.self = cache;
    world->narrow.destroy = cache_destroy;
    world->narrow.memory = cache_memory;
    return VXK_OK;
}

vxk_narrow_cache* vxk_narrow_cache_get(const vxk_world* world)
{
    return (vxk_narrow_cache*)world->narrow.self; // the cache, not the world, is mutable
}

// ---- table --------------------------------------------------------------------------------------

static narrow_shard* shard_of(vxk_narrow_cache* cache, uint64_t h)
{
    return &cache->shards[h & (NARROW_SHARDS - 1)];
}

static narrow_entry** bucket_of(narrow_shard* shard, uint64_t h)
{
    return &shard->buckets[(h >> 6) & (shard->bucket_count - 1)];
}

static narrow_entry* shard_find(narrow_shard* shard, uint64_t h, vxk_int3 chunk)
{
    if (!shard->bucket_count)
        return NULL;
    for (narrow_entry* e = *bucket_of(shard, h); e; e = e->next)
        if (e->data.coord.x == chunk.x && e->data.coord.y == chunk.y && e->data.coord.z == chunk.z)
            return e;
    return NULL;
}

static void shard_unlink(narrow_shard* shard, narrow_entry* entry)
{
    uint64_t h = vxk_chunk_map_hash(entry->data.coord);
    narrow_entry** link = bucket_of(shard, h);
    while (*link != entry)
        link = &(*link)->next;
    *link = entry->next;
    entry->next = NULL;
    --shard->count;
    atomic_fetch_sub_explicit(&entry->cache->entries, 1, memory_order_relaxed);
}

static bool shard_insert(narrow_shard* shard, uint64_t h, narrow_entry* entry)
{
    if (shard->count + 1 > shard->bucket_count) {
        uint32_t count = shard->bucket_count ? shard->bucket_count * 2 : 16;
        narrow_entry** buckets = (narrow_entry**)vxk_calloc((size_t)count * sizeof(*buckets));
        if (!buckets)
            return false;
        for (uint32_t b = 0; b < shard->bucket_count; ++b) {
            narrow_entry* e = shard->buckets[b];
            while (e) {
                narrow_entry* next = e->next;
                uint64_t eh = vxk_chunk_map_hash(e->data.coord);
                narrow_entry** head = &buckets[(eh >> 6) & (count - 1)];
                e->next = *head;
                *head = e;
                e = next;
            }
        }
        vxk_free(shard->buckets, (size_t)shard->bucket_count * sizeof(narrow_entry*));
        shard->buckets = buckets;
        shard->bucket_count = count;
    }
    narrow_entry** head = bucket_of(shard, h);
    entry->next = *head;
    *head = entry;
    ++shard->count;
    atomic_fetch_add_explicit(&entry->cache->entries, 1, memory_order_relaxed);
    return true;
}

// Takes an entry out of the table (shard lock held). Whoever drops the last pin frees it; returns
// true when the caller must free it now (no pins were held).
static bool entry_detach(narrow_shard* shard, narrow_entry* entry)
{
    shard_unlink(shard, entry);
    atomic_store_explicit(&entry->ray_key, 0, memory_order_relaxed);
    uint32_t old = atomic_fetch_or_explicit(&entry->pins, PIN_DETACHED, memory_order_acq_rel);
    return (old & PIN_COUNT) == 0 && entry_kill(entry);
}

static void cache_evict(vxk_narrow_cache* cache, uint64_t target, bool count_as_eviction);

void vxk_narrow_release(vxk_narrow_ref* ref)
{
    narrow_entry* e = (narrow_entry*)ref->entry;
    ref->entry = NULL;
    if (!e)
        return;
    vxk_narrow_cache* cache = e->cache; // read before the pin drops: e may go right after
    uint32_t old = atomic_fetch_sub_explicit(&e->pins, 1, memory_order_acq_rel);
    VXK_ASSERT((old & PIN_COUNT) > 0 && !(old & PIN_DEAD));
    if (old == (PIN_DETACHED | 1u)) {
        if (entry_kill(e))
            entry_free(e);
        return;
    }
    // Entries pinned during the last eviction may have left the cache over budget.
    uint64_t budget = atomic_load_explicit(&cache->budget, memory_order_relaxed);
    if (old == 1u && atomic_load_explicit(&cache->bytes, memory_order_relaxed) > budget)
        cache_evict(cache, budget - budget / 8, true);
}

// ---- eviction -----------------------------------------------------------------------------------

typedef struct evict_candidate {
    uint64_t last_use;
    narrow_entry* entry;
} evict_candidate;

static int compare_candidates(const void* a, const void* b)
{
    const evict_candidate* x = (const evict_candidate*)a;
    const evict_candidate* y = (const evict_candidate*)b;
    return (x->last_use > y->last_use) - (x->last_use < y->last_use);
}

// Evicts least recently used unpinned entries until bytes <= target. A ray may pin an entry
// without the lock (vxk_narrow_acquire_slot) while it is detached: then its release frees it.
static void cache_evict(vxk_narrow_cache* cache, uint64_t target, bool count_as_eviction)
{
    pthread_mutex_lock(&cache->evict_lock);
    if (atomic_load(&cache->bytes) <= target) {
        pthread_mutex_unlock(&cache->evict_lock);
        return;
    }
    size_t capacity = (size_t)atomic_load(&cache->entries) + 16;
    evict_candidate* candidates = (evict_candidate*)vxk_alloc(capacity * sizeof(*candidates));
    size_t count = 0;
    if (candidates) {
        for (int s = 0; s < NARROW_SHARDS; ++s) {
            narrow_shard* shard = &cache->shards[s];
            pthread_mutex_lock(&shard->lock);
            for (uint32_t b = 0; b < shard->bucket_count && count < capacity; ++b)
                for (narrow_entry* e = shard->buckets[b]; e && count < capacity; e = e->next)
                    if (atomic_load_explicit(&e->pins, memory_order_relaxed) == 0 &&
                        atomic_load_explicit(&e->state, memory_order_acquire) == ENTRY_READY)
                        candidates[count++] = (evict_candidate){
                            atomic_load_explicit(&e->last_use, memory_order_relaxed), e};
            pthread_mutex_unlock(&shard->lock);
        }
        qsort(candidates, count, sizeof(*candidates), compare_candidates);
    }
    for (size_t i = 0; i < count && atomic_load(&cache->bytes) > target; ++i) {
        narrow_entry* e = candidates[i].entry;
        uint64_t h = vxk_chunk_map_hash(e->data.coord);
        narrow_shard* shard = shard_of(cache, h);
        pthread_mutex_lock(&shard->lock);
        // The entry may have been pinned, touched or dropped since the scan: recheck it is still
        // in the table, unpinned and untouched.
        bool present = shard_find(shard, h, e->data.coord) == e;
        bool evict = present && atomic_load(&e->pins) == 0 &&
                     atomic_load(&e->last_use) == candidates[i].last_use;
        bool free_now = evict && entry_detach(shard, e);
        pthread_mutex_unlock(&shard->lock);
        if (evict && count_as_eviction)
            atomic_fetch_add_explicit(&cache->evictions, 1, memory_order_relaxed);
        if (free_now)
            entry_free(e);
    }
    vxk_free(candidates, capacity * sizeof(*candidates));
    pthread_mutex_unlock(&cache->evict_lock);
}

void vxk_narrow_cache_set_budget(vxk_narrow_cache* cache, size_t bytes)
{
    atomic_store(&cache->budget, bytes);
    cache_evict(cache, bytes, true);
}

uint64_t vxk_narrow_cache_invalidate(vxk_narrow_cache* cache, const vxk_int3* chunks,
                                     uint32_t count)
{
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t h = vxk_chunk_map_hash(chunks[i]);
        narrow_shard* shard = shard_of(cache, h);
        pthread_mutex_lock(&shard->lock);
        narrow_entry* e = shard_find(shard, h, chunks[i]);
        // A pinned entry (a ray in flight, or a build) is detached: its last user frees it.
        bool free_now = e && entry_detach(shard, e);
        pthread_mutex_unlock(&shard->lock);
        dropped += e != NULL;
        if (free_now)
            entry_free(e);
    }
    atomic_fetch_add_explicit(&cache->stale, dropped, memory_order_relaxed);
    return dropped;
}

void vxk_narrow_cache_clear(vxk_narrow_cache* cache)
{
    cache_evict(cache, 0, false);
}

void vxk_narrow_cache_stats(const vxk_narrow_cache* ccache, vxk_narrow_stats* out)
{
    vxk_narrow_cache* cache = (vxk_narrow_cache*)ccache;
    out->hits = atomic_load(&cache->slot_hits);
    for (int i = 0; i < NARROW_SHARDS; ++i) {
        pthread_mutex_lock(&cache->shards[i].lock);
        out->hits += cache->shards[i].hits;
        pthread_mutex_unlock(&cache->shards[i].lock);
    }
    out->misses = atomic_load(&cache->misses);
    out->builds = atomic_load(&cache->builds);
    out->waits = atomic_load(&cache->waits);
    out->evictions = atomic_load(&cache->evictions);
    out->stale = atomic_load(&cache->stale);
    out->entries = atomic_load(&cache->entries);
    out->bytes = atomic_load(&cache->bytes);
    out->budget = atomic_load(&cache->budget);
    out->packets = atomic_load(&cache->packets);
}

bool vxk_narrow_cache_contains(vxk_narrow_cache* cache, vxk_int3 chunk, uint64_t stamp)
{
    uint64_t h = vxk_chunk_map_hash(chunk);
    narrow_shard* shard = shard_of(cache, h);
    pthread_mutex_lock(&shard->lock);
    narrow_entry* e = shard_find(shard, h, chunk);
    bool found = e && e->data.stamp == stamp && atomic_load(&e->state) == ENTRY_READY;
    pthread_mutex_unlock(&shard->lock);
    return found;
}

// ---- acquire ------------------------------------------------------------------------------------

static vxk_status wait_ready(vxk_narrow_cache* cache, narrow_entry* e)
{
    uint32_t state = atomic_load_explicit(&e->state, memory_order_acquire);
    if (state == ENTRY_BUILDING) {
        atomic_fetch_add_explicit(&cache->waits, 1, memory_order_relaxed);
        // The builder holds no lock and waits on nothing, so it always finishes.
        for (uint32_t spin = 0; state == ENTRY_BUILDING; ++spin) {
            if (spin >= 64)
                sched_yield();
            state = atomic_load_explicit(&e->state, memory_order_acquire);
        }
    }
    return state == ENTRY_READY ? VXK_OK : e->build_status;
}

// A build for a thread that would otherwise wait on its own unfinished build further up its
// stack (a job run while the builder waited): private, never in the table.
static vxk_status build_private(vxk_narrow_cache* cache, const vxk_world* world, vxk_int3 chunk,
                                const vxk_narrow_chunk** out, vxk_narrow_ref* ref)
{
    narrow_entry* e = entry_new(cache);
    if (!e)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_status status = vxk_narrow_build_chunk(world, &e->data, chunk);
    if (status != VXK_OK) {
        entry_free(e);
        return status;
    }
    atomic_fetch_add_explicit(&cache->bytes, e->data.bytes, memory_order_relaxed);
    atomic_store(&e->state, ENTRY_READY);
    atomic_store(&e->pins, PIN_DETACHED | 1u);
    *out = &e->data;
    ref->entry = e;
    return VXK_OK;
}

// A resident entry found under its shard lock (held on entry, released here): pin it, wait for
// its build, hand it out.
static vxk_status acquire_hit(vxk_narrow_cache* cache, narrow_shard* shard, narrow_entry* e,
                              uint64_t now, uint32_t epoch, const vxk_world* world,
                              const vxk_narrow_chunk** out, vxk_narrow_ref* ref)
{
    atomic_fetch_add_explicit(&e->pins, 1, memory_order_relaxed);
    // Stores only when the value changes: hot entries read by several threads stay shared.
    if (atomic_load_explicit(&e->last_use, memory_order_relaxed) != now)
        atomic_store_explicit(&e->last_use, now, memory_order_relaxed);
    if (epoch && atomic_load_explicit(&e->checked_epoch, memory_order_relaxed) != epoch)
        atomic_store_explicit(&e->checked_epoch, epoch, memory_order_relaxed);
    ++shard->hits;
    bool own_build = atomic_load_explicit(&e->state, memory_order_acquire) == ENTRY_BUILDING &&
                     pthread_equal(e->builder, pthread_self());
    vxk_int3 chunk = e->data.coord;
    pthread_mutex_unlock(&shard->lock);
    if (own_build) {
        vxk_narrow_ref pin = {e};
        vxk_narrow_release(&pin);
        return build_private(cache, world, chunk, out, ref);
    }
    vxk_status status = wait_ready(cache, e);
    if (status != VXK_OK) {
        vxk_narrow_ref pin = {e};
        vxk_narrow_release(&pin);
        return status;
    }
    *out = &e->data;
    ref->entry = e;
    return VXK_OK;
}

// epoch: the terrain epoch the caller computed stamp at (0: unknown); recorded on the entry so
// that later acquires at the same epoch skip the stamp.
static vxk_status acquire_stamped(vxk_narrow_cache* cache, const vxk_world* world, vxk_int3 chunk,
                                  uint64_t stamp, uint32_t epoch, const vxk_narrow_chunk** out,
                                  vxk_narrow_ref* ref)
{
    VXK_ASSERT(stamp != 0);
    uint64_t h = vxk_chunk_map_hash(chunk);
    narrow_shard* shard = shard_of(cache, h);
    uint64_t now = atomic_fetch_add_explicit(&cache->tick, 1, memory_order_relaxed) + 1;
    narrow_entry* stale = NULL;

    pthread_mutex_lock(&shard->lock);
    narrow_entry* e = shard_find(shard, h, chunk);
    if (e && e->data.stamp == stamp)
        return acquire_hit(cache, shard, e, now, epoch, world, out, ref);
    if (e) {
        // The chunk changed: drop the old data (freed now, or by its last pin holder).
        if (entry_detach(shard, e))
            stale = e;
        atomic_fetch_add_explicit(&cache->stale, 1, memory_order_relaxed);
    }
    narrow_entry* fresh = entry_new(cache);
    if (fresh)
        fresh->data.coord = chunk;
    if (!fresh || !shard_insert(shard, h, fresh)) {
        pthread_mutex_unlock(&shard->lock);
        if (fresh)
            entry_free(fresh);
        if (stale)
            entry_free(stale);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    fresh->data.stamp = stamp;
    fresh->builder = pthread_self();
    atomic_store_explicit(&fresh->checked_epoch, epoch, memory_order_relaxed);
    // This store makes a recycled entry pinnable again. A reader still holding its old address
    // (a ray grid slot) pins it with the acquire fetch_add in vxk_narrow_acquire_slot, then
    // trusts ray_key, state and checked_epoch. Those were reset (relaxed) in entry_new and above;
    // only a release here orders the resets before the pin can succeed: the reader's acquire
    // reads this value (or a later one in its release sequence, the readers' own RMWs), so it
    // sees the reset fields, not the ones of the entry's former life. With a relaxed store a
    // weakly ordered CPU may let the pin succeed and still show the old key, READY and the old
    // epoch, and the ray would read an entry being rebuilt. (TSan does not flag this: the
    // fields are atomics, each access alone is race-free.)
    atomic_store_explicit(&fresh->pins, 1, memory_order_release);
    atomic_store_explicit(&fresh->last_use, now, memory_order_relaxed);
    atomic_store_explicit(&fresh->state, ENTRY_BUILDING, memory_order_relaxed);
    pthread_mutex_unlock(&shard->lock);
    if (stale)
        entry_free(stale);
    atomic_fetch_add_explicit(&cache->misses, 1, memory_order_relaxed);

    // Build without any lock held; waiters spin on fresh->state.
    vxk_narrow_chunk built;
    vxk_status status = vxk_narrow_build_chunk(world, &built, chunk);
    VXK_ASSERT(status != VXK_OK || built.stamp == stamp);
    uint64_t serial = atomic_fetch_add_explicit(&cache->serial, 1, memory_order_relaxed) + 1;
    atomic_fetch_add_explicit(&cache->builds, 1, memory_order_relaxed);
    if (status != VXK_OK) {
        fresh->build_status = status;
        pthread_mutex_lock(&shard->lock);
        bool in_table = !(atomic_load(&fresh->pins) & PIN_DETACHED);
        if (in_table)
            entry_detach(shard, fresh);
        pthread_mutex_unlock(&shard->lock);
        atomic_store_explicit(&fresh->state, ENTRY_FAILED, memory_order_release);
        vxk_narrow_ref pin = {fresh};
        vxk_narrow_release(&pin);
        return status;
    }
    // Key fields (coord, stamp) are read under the shard lock by others: leave them alone.
    fresh->data.quads = built.quads;
    fresh->data.quad_count = built.quad_count;
    memcpy(fresh->data.solid, built.solid, sizeof(built.solid));
    fresh->data.quantized = built.quantized;
    fresh->data.tree16 = built.tree16;
    fresh->data.mesh = built.mesh;
    fresh->data.tree = built.tree;
    fresh->data.block = built.block;
    fresh->data.block_bytes = built.block_bytes;
    fresh->data.bytes = built.bytes;
    fresh->data.build_serial = serial;
    atomic_fetch_add_explicit(&cache->bytes, built.bytes, memory_order_relaxed);
    atomic_store_explicit(&fresh->state, ENTRY_READY, memory_order_release);

    uint64_t budget = atomic_load_explicit(&cache->budget, memory_order_relaxed);
    if (atomic_load_explicit(&cache->bytes, memory_order_relaxed) > budget)
        cache_evict(cache, budget - budget / 8, true);
    *out = &fresh->data;
    ref->entry = fresh;
    return VXK_OK;
}

vxk_status vxk_narrow_acquire_stamped(vxk_narrow_cache* cache, const vxk_world* world,
                                      const vxk_narrow_chunk** out, vxk_narrow_ref* ref,
                                      vxk_int3 chunk, uint64_t stamp)
{
    return acquire_stamped(cache, world, chunk, stamp, 0, out, ref);
}

vxk_status vxk_narrow_acquire_current(vxk_narrow_cache* cache, const vxk_world* world,
                                      const vxk_narrow_chunk** out, vxk_narrow_ref* ref,
                                      vxk_int3 chunk)
{
    *out = NULL;
    ref->entry = NULL;
    uint32_t epoch = vxk_terrain_epoch(&world->terrain);
    uint64_t h = vxk_chunk_map_hash(chunk);
    narrow_shard* shard = shard_of(cache, h);
    pthread_mutex_lock(&shard->lock);
    narrow_entry* e = shard_find(shard, h, chunk);
    if (e && atomic_load_explicit(&e->checked_epoch, memory_order_relaxed) == epoch) {
        // No terrain write since the stamp was confirmed: the data is current.
        uint64_t now = atomic_fetch_add_explicit(&cache->tick, 1, memory_order_relaxed) + 1;
        return acquire_hit(cache, shard, e, now, 0, world, out, ref);
    }
    pthread_mutex_unlock(&shard->lock);
    uint64_t stamp = vxk_narrow_stamp(world, chunk);
    if (!stamp)
        return VXK_OK;
    return acquire_stamped(cache, world, chunk, stamp, epoch, out, ref);
}

vxk_status vxk_narrow_acquire(const vxk_world* world, const vxk_narrow_chunk** out,
                              vxk_narrow_ref* ref, vxk_int3 chunk)
{
    *out = NULL;
    ref->entry = NULL;
    uint64_t stamp = vxk_narrow_stamp(world, chunk);
    if (!stamp)
        return VXK_OK;
    return acquire_stamped(vxk_narrow_cache_get(world), world, chunk, stamp,
                           vxk_terrain_epoch(&world->terrain), out, ref);
}

// ---- lock-free hits for rays --------------------------------------------------------------------

const vxk_ray_grid* vxk_narrow_ray_grid(vxk_narrow_cache* cache, const vxk_world* world)
{
    return vxk_ray_grid_holder_get(&cache->grid, world);
}

bool vxk_narrow_acquire_slot(vxk_narrow_cache* cache, const vxk_ray_grid* grid, uint64_t cell,
                             uint32_t epoch, const vxk_narrow_chunk** out, vxk_narrow_ref* ref)
{
    uint64_t v = atomic_load_explicit(&grid->slots[cell], memory_order_acquire);
    if (!v)
        return false;
    if (v & 1u) { // no terrain chunk here, as of epoch v >> 1
        if ((uint32_t)(v >> 1) != epoch)
            return false;
        *out = NULL;
        ref->entry = NULL;
        return true;
    }
    narrow_entry* e = (narrow_entry*)(uintptr_t)v;
    uint32_t old = atomic_fetch_add_explicit(&e->pins, 1, memory_order_acquire);
    if (old & PIN_DEAD)
        return false; // recycled: its pins are reset when it is reused, nothing to undo
    vxk_narrow_ref pin = {e};
    // Pinned: the entry cannot die now. It is ours if it is still in the table, published for
    // this cell of this grid, built, and confirmed current at this epoch.
    if ((old & PIN_DETACHED) ||
        atomic_load_explicit(&e->ray_key, memory_order_acquire) !=
            vxk_ray_grid_slot_key(grid, cell) ||
        atomic_load_explicit(&e->state, memory_order_acquire) != ENTRY_READY ||
        atomic_load_explicit(&e->checked_epoch, memory_order_relaxed) != epoch) {
        vxk_narrow_release(&pin);
        return false;
    }
    // The LRU clock without a shared increment: entries touched here share the current tick.
    uint64_t now = atomic_load_explicit(&cache->tick, memory_order_relaxed);
    if (atomic_load_explicit(&e->last_use, memory_order_relaxed) < now)
        atomic_store_explicit(&e->last_use, now, memory_order_relaxed);
    *out = &e->data;
    *ref = pin;
    return true;
}

void vxk_narrow_publish(const vxk_ray_grid* grid, uint64_t cell, uint32_t epoch,
                        const vxk_narrow_ref* ref)
{
    narrow_entry* e = (narrow_entry*)ref->entry;
    if (!e) {
        atomic_store_explicit(&grid->slots[cell], (uint64_t)epoch << 1 | 1u, memory_order_release);
        return;
    }
    if (atomic_load_explicit(&e->state, memory_order_acquire) != ENTRY_READY)
        return;
    atomic_store_explicit(&e->ray_key, vxk_ray_grid_slot_key(grid, cell), memory_order_release);
    atomic_store_explicit(&grid->slots[cell], (uint64_t)(uintptr_t)e, memory_order_release);
}

void vxk_narrow_count_rays(vxk_narrow_cache* cache, uint64_t hits, uint64_t packets)
{
    if (hits)
        atomic_fetch_add_explicit(&cache->slot_hits, hits, memory_order_relaxed);
    if (packets)
        atomic_fetch_add_explicit(&cache->packets, packets, memory_order_relaxed);
}
