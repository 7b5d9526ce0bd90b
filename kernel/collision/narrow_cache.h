// narrow_cache.h: the lazy narrowphase data of terrain chunks (seed 000, "Narrowphase: analysis
// & plan"): a chunk's quads and loose kD tree are built on first need (a contact or a ray), kept in
// a thread-safe cache under a byte budget with LRU eviction, and rebuilt after an edit.
//
// Keys: a chunk coordinate plus a stamp of the voxel data the quads depend on: the versions of the
// chunk and of its 18 face and edge neighbours (face neighbours hide faces, edge neighbours decide
// the interior-edge flags; corner neighbours are never read by the mesher). Versions are terrain
// write epochs, so a removed and re-created neighbour changes the stamp too. A stale stamp is
// never returned. The stamp costs 19 map lookups, so an entry also records the terrain write
// epoch at which its stamp was last confirmed: vxk_narrow_acquire_current trusts it while the
// epoch is unchanged (no write since) and revalidates it once per epoch otherwise. Chunks without
// a terrain entry hold only air; the mesher emits faces for a chunk's own solid voxels, so such a
// chunk has no geometry and no cache entry (see vxk_narrow_acquire) even when neighbour geometry
// gives it broadphase bits: every face lies in the closed box of the chunk that owns the voxel,
// so a ray finds it in that chunk's segment.
//
// Concurrency: every function is thread-safe against the others (not against terrain writes). A
// hit takes one shard lock and allocates nothing; a miss builds without any lock, and every
// (chunk, stamp) is built once while resident (single flight: a second thread asking for it waits
// for the build). Entries handed out are pinned and never evicted while pinned. Rays have a
// lock-free hit path besides, through the slots of the ray grid the cache holds (ray_grid.h): a
// slot remembers the entry the cache last returned for its chunk (vxk_narrow_acquire_slot /
// vxk_narrow_publish), and a hit there is one atomic increment (the pin), no lock, no hash chain
// and no shared counter. Shards, eviction and entry recycling: narrow_cache.c.
#ifndef VXK_NARROW_CACHE_H
#define VXK_NARROW_CACHE_H

#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>
#include <vxk/mesh.h>
#include <vxk/chunk_geometry.h>
#include <vxk/mesher.h>

#include "ray_grid.h"
#include "world_internal.h"

#include <stdatomic.h>

// The narrowphase data of one chunk: immutable while pinned. quads are the mesher quads (with
// their edge flags, for contacts); quad i is primitive i of the ray structure. The ray structure
// is in chunk-local voxel units (corners are small exact integers; world = (8 * coord + local) *
// voxel_size): the 16-bit quantized quad tree (quantized, the normal case: integer corners in
// [0, 8] quantize exactly, so its hits equal those of the float tree bit for bit), or, when a
// mesh exceeds its limits, a float quad mesh (4 unshared corners per quad, no materials) with a
// float loose kD tree, both in one block.
typedef struct vxk_narrow_chunk {
    vxk_int3 coord;
    uint32_t quad_count;
    uint64_t stamp;        // version stamp the data was built from
    uint64_t build_serial; // 1 + index of the build in this cache (tests count builds)
    vxk_quad* quads;       // quad_count mesher quads
    uint64_t solid[8];     // the chunk's solid voxel bits (vxk_terrain_chunk_bits) at build
    bool quantized;        // tree16 is the ray structure (else mesh + tree)
    vxk_kdtree16 tree16;   // quantized quad tree (owns its block)
    vxk_mesh mesh;         // float fallback: corners 4, chunk-local voxel units
    vxk_kdtree tree;       // float fallback: loose kD tree over mesh, nodes in the block
    void* block;           // float fallback: vertices, indices and nodes in one allocation
    size_t block_bytes;
    size_t bytes; // what the entry holds (quads + ray structure + entry)
} vxk_narrow_chunk;

// The quads of an entry whose boxes overlap box (chunk-local voxel units), through whichever
// tree the entry holds: their indices in hits (VXK_MESHER_MAX_QUADS of room), in the tree's
// order; returns how many.
static inline uint32_t vxk_narrow_chunk_query(const vxk_narrow_chunk* chunk, uint32_t* hits,
                                              const vxk_aabb* box)
{
    uint32_t n =
        chunk->quantized
            ? vxk_kdtree16_query_aabb(&chunk->tree16, hits, VXK_MESHER_MAX_QUADS, box, NULL)
            : vxk_kdtree_query_aabb(&chunk->tree, hits, VXK_MESHER_MAX_QUADS, box, NULL);
    return n < VXK_MESHER_MAX_QUADS ? n : VXK_MESHER_MAX_QUADS;
}

typedef struct vxk_narrow_cache vxk_narrow_cache;

// A pin on an entry; release it with vxk_narrow_release. Zero-initialised = nothing pinned.
typedef struct vxk_narrow_ref {
    void* entry;
} vxk_narrow_ref;

typedef struct vxk_narrow_stats {
    uint64_t hits;      // acquires served by a resident entry (including waits on a build)
    uint64_t misses;    // acquires that started a build
    uint64_t builds;    // builds completed (successful or not)
    uint64_t waits;     // acquires that waited for another thread's build
    uint64_t evictions; // entries evicted for the budget
    uint64_t stale;     // entries dropped because the chunk changed
    uint64_t entries;   // resident entries now
    uint64_t bytes;     // bytes held now (resident + detached but pinned)
    uint64_t budget;    // byte budget
    uint64_t packets;   // ray packets traced (vxk_narrow_count_rays)
} vxk_narrow_stats;

// The world's cache, created on first use (thread-safe) and destroyed with the world. NULL only
// when out of memory.
vxk_narrow_cache* vxk_narrow_cache_get(const vxk_world* world);

// The version stamp of a chunk's narrowphase data: 0 when the chunk has no terrain entry (no
// geometry), else a nonzero digest of the versions of the chunk and its 18 face and edge
// neighbours (19 map lookups).
uint64_t vxk_narrow_stamp(const vxk_world* world, vxk_int3 chunk);

// Pins the current narrowphase data of a chunk, building it if needed. On VXK_OK,
// *out is the data (NULL when the chunk has no terrain entry: no geometry, nothing pinned) and
// *ref must be released. Errors: VXK_ERR_OUT_OF_MEMORY (nothing pinned). Thread-safe against
// other acquires/releases; the terrain must not be written meanwhile. Cost: one shard lock on a
// hit; a mesh + kD build on a miss.
vxk_status vxk_narrow_acquire(const vxk_world* world, const vxk_narrow_chunk** out,
                              vxk_narrow_ref* ref, vxk_int3 chunk);
// Same with a known stamp (vxk_narrow_stamp of the chunk, nonzero).
vxk_status vxk_narrow_acquire_stamped(vxk_narrow_cache* cache, const vxk_world* world,
                                      const vxk_narrow_chunk** out, vxk_narrow_ref* ref,
                                      vxk_int3 chunk, uint64_t stamp);
// Same as vxk_narrow_acquire, but an entry whose stamp was confirmed at the current terrain epoch
// (vxk_terrain_epoch; every write call changes it) is handed out without recomputing the stamp:
// one shard lock and no map lookups on a hit. Other entries are revalidated by stamp once per
// epoch. Same contract and errors as vxk_narrow_acquire.
vxk_status vxk_narrow_acquire_current(vxk_narrow_cache* cache, const vxk_world* world,
                                      const vxk_narrow_chunk** out, vxk_narrow_ref* ref,
                                      vxk_int3 chunk);
// Unpins; safe on a zeroed ref. Lock-free.
void vxk_narrow_release(vxk_narrow_ref* ref);

// ---- lock-free hits for rays through a ray grid ----------------------------------------------

// The ray grid of the current broadphase (vxk_ray_grid_holder_get on the grid the cache holds, so
// that its slots can point at the cache's entries): NULL when the world has none. Same contract.
const vxk_ray_grid* vxk_narrow_ray_grid(vxk_narrow_cache* cache, const vxk_world* world);

// Lock-free hit path for rays: pins the data of the chunk at grid cell `cell` when the cell's slot
// holds an entry that is still in the cache, built, published for this cell of this grid and
// confirmed current at terrain epoch `epoch` (or says the chunk has no terrain entry at that
// epoch: then *out is NULL and nothing is pinned). False otherwise, with nothing pinned: use
// vxk_narrow_acquire_current, then vxk_narrow_publish. Cost: one atomic increment on a hit.
// Entries are never returned to the allocator while the cache lives (evicted ones are recycled),
// so a slot read just before its entry was evicted still points to an entry: the pin on it is
// then refused (dead entry) or checked and dropped (recycled for another chunk).
bool vxk_narrow_acquire_slot(vxk_narrow_cache* cache, const vxk_ray_grid* grid, uint64_t cell,
                             uint32_t epoch, const vxk_narrow_chunk** out, vxk_narrow_ref* ref);
// Records in the cell's slot what vxk_narrow_acquire_current just returned for it at `epoch`: the
// pinned entry of ref, or "no terrain chunk" when ref pins nothing. Thread-safe.
void vxk_narrow_publish(const vxk_ray_grid* grid, uint64_t cell, uint32_t epoch,
                        const vxk_narrow_ref* ref);
// Adds what a ray call counted locally to the cache statistics, once per call (so that no shared
// counter is written per hit): hits served by vxk_narrow_acquire_slot and ray packets traced.
void vxk_narrow_count_rays(vxk_narrow_cache* cache, uint64_t hits, uint64_t packets);

// Builds a chunk's narrowphase data outside the cache (tests compare against it): the quantized
// tree, or the float one when the quads exceed the quantized tree's limits. Errors:
// VXK_ERR_OUT_OF_MEMORY (*out zeroed but for coord and stamp).
vxk_status vxk_narrow_build_chunk(const vxk_world* world, vxk_narrow_chunk* out, vxk_int3 chunk);
// Same, always with the float fallback (tests compare the two structures).
vxk_status vxk_narrow_build_chunk_float(const vxk_world* world, vxk_narrow_chunk* out,
                                        vxk_int3 chunk);
// The chunk's closest hit (vxk_kdtree_raycast / vxk_kdtree16_raycast contract; the ray in
// chunk-local voxel units) and any-hit query, through whichever structure it holds. A chunk
// without quads misses.
static inline bool vxk_narrow_raycast(const vxk_narrow_chunk* c, vxk_kdtree_hit* hit,
                                      const vxk_kdtree_ray* ray)
{
    return c->quantized ? vxk_kdtree16_raycast(&c->tree16, hit, ray, NULL)
                        : vxk_kdtree_raycast(&c->tree, hit, ray, NULL);
}
static inline bool vxk_narrow_raycast_any(const vxk_narrow_chunk* c, const vxk_kdtree_ray* ray)
{
    return c->quantized ? vxk_kdtree16_raycast_any(&c->tree16, ray, NULL)
                        : vxk_kdtree_raycast_any(&c->tree, ray, NULL);
}
void vxk_narrow_free_chunk(vxk_narrow_chunk* chunk);

// Changes the budget and evicts down to it (unpinned entries). Thread-safe.
void vxk_narrow_cache_set_budget(vxk_narrow_cache* cache, size_t bytes);
// Drops every unpinned entry (a cold cache for benchmarks). Thread-safe.
void vxk_narrow_cache_clear(vxk_narrow_cache* cache);
// Drops the entries of the given chunks: the step's cache stage (step.c) passes the
// neighbourhood of the written chunks (vxk_chunk_neighbourhood: a chunk's mesh reads its 10^3
// box, so a write reaches the entries of its 26 neighbours). Entries in use are detached and
// freed by their last user. Returns the entries dropped (also counted in stale). Thread-safe;
// cost: one shard lock and lookup per chunk.
uint64_t vxk_narrow_cache_invalidate(vxk_narrow_cache* cache, const vxk_int3* chunks,
                                     uint32_t count);
void vxk_narrow_cache_stats(const vxk_narrow_cache* cache, vxk_narrow_stats* out);
// Whether (chunk, stamp) is resident (tests: LRU order).
bool vxk_narrow_cache_contains(vxk_narrow_cache* cache, vxk_int3 chunk, uint64_t stamp);

#endif
