// vxk/broadphase.h: the bit broadphase of the terrain (seed 000, Roblox terrain physics, "Bit
// broadphase"): per chunk a dilated solid mask and water mask (bit x + 8*z of slice y), built in
// parallel as jobs, regenerated around edited chunks, and AABB overlap queries that test whole
// XZ slices with one AND.
//
// Entries: a chunk whose 10^3 neighbourhood (the chunk and a one-voxel border) is all air has no
// entry; one that is all solid or all water is tagged full and stores no mask; any other chunk
// stores uint64_t solid[8], water[8] where a bit is set when any voxel of the 3x3x3 neighbourhood
// of that voxel is solid (water). Storage: a chunk map entry (16 bytes) per entry plus 128 bytes
// per masked chunk.
//
// Thread-safety: build and update write the broadphase and need exclusive access to the world
// (no concurrent terrain writes or queries); they run their parallel part on the world's jobs.
// Queries, get, peek, the chunk list, statistics and hash only read and may run concurrently with
// each other.
#ifndef VXK_BROADPHASE_H
#define VXK_BROADPHASE_H

#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vxk_broadphase_tag {
    VXK_BROADPHASE_NONE = 0,       // no entry: the 10^3 box is all air
    VXK_BROADPHASE_MASK = 1,       // masks stored
    VXK_BROADPHASE_FULL_SOLID = 2, // the 10^3 box is all solid, no mask stored
    VXK_BROADPHASE_FULL_WATER = 3, // the 10^3 box is all water, no mask stored
} vxk_broadphase_tag;

typedef struct vxk_broadphase_entry {
    uint8_t tag; // vxk_broadphase_tag
    // For MASK the stored masks; for FULL_SOLID solid is all ones and water zero (FULL_WATER the
    // reverse); for NONE both zero. So the masks always equal the dilation of the 10^3 box.
    uint64_t solid[8];
    uint64_t water[8];
} vxk_broadphase_entry;

// Builds the masks of the whole world from scratch: candidates are every terrain chunk and its 26
// neighbours, deduplicated and sorted by (cy, cz, cx); the gather + dilation runs as
// vxk_parallel_for pieces on the world's jobs; entries are inserted in candidate order, so the
// content and the map layout are identical for any worker count. Errors: NULL world ->
// VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY (the previous broadphase is kept then). Cost:
// linear in the candidates; per candidate up to 27 chunk lookups (9 when walking along x), a gather
// and a dilation.
vxk_status vxk_broadphase_build(vxk_world* world);

// Regenerates the given chunks and their 26 neighbours (an edit changes the neighbours' borders):
// the list is copied, sorted and deduplicated, so any order and duplicates are fine. When the
// broadphase was never built, builds it in full instead. Entries appear, change or disappear as
// the terrain now dictates; the result equals a full rebuild. Errors (nothing changed):
// dirty_chunks NULL with count > 0 -> VXK_ERR_INVALID_ARGUMENT; a coordinate outside the chunk
// range of int32 voxels ([-2^28, 2^28 - 1]) -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
// Cost: about 27 * count candidates (fewer when dirty chunks are adjacent).
vxk_status vxk_broadphase_update(vxk_world* world, const vxk_int3* dirty_chunks, uint32_t count);

// Computes the entries of the given chunks from the terrain now, on the calling thread, without
// storing anything (the build's own per-chunk path: neighbour lookups, gather, dilation,
// classification; consecutive chunks along +x share lookups, so pass them sorted by (cy, cz, cx)
// when you can). out holds count entries, out[i] that of chunks[i]. Errors (nothing written):
// NULL world, or NULL out/chunks with count > 0 -> VXK_ERR_INVALID_ARGUMENT; a coordinate
// outside [-2^28, 2^28 - 1] -> VXK_ERR_OUT_OF_RANGE. Thread-safe against other reads. Cost: as
// the build, per chunk.
vxk_status vxk_broadphase_compute(const vxk_world* world, vxk_broadphase_entry* out,
                                  const vxk_int3* chunks, uint32_t count);

// Reads the entry of one chunk into *out (tag NONE when there is none, also before any build).
// Errors: NULL world/out -> VXK_ERR_INVALID_ARGUMENT. Cost: one map lookup.
vxk_status vxk_broadphase_get(const vxk_world* world, vxk_broadphase_entry* out, vxk_int3 chunk);

// The tag of one chunk's entry and its solid mask by pointer, without copying (the ray path reads
// it once per chunk crossed): *solid points at 8 words equal to vxk_broadphase_get's solid (the
// stored mask, or shared all-ones / all-zero words for full and absent entries). The pointer stays
// valid until the next build or update. A NULL world reads as no broadphase (NONE, zero words);
// a NULL solid returns NONE and writes nothing. Thread-safe against other reads. Cost: one map
// lookup.
uint8_t vxk_broadphase_peek(const vxk_world* world, const uint64_t** solid, vxk_int3 chunk);

// A counter that changes with every successful build and update (0 before the first build): views
// derived from the entries (and pointers from vxk_broadphase_peek) are current while it is
// unchanged. A NULL world gives 0. Thread-safe against other reads. Cost O(1).
uint64_t vxk_broadphase_generation(const vxk_world* world);

// Calls fn(user, chunk, tag, solid) once per entry, in the map's slot order (fixed by the history
// of builds and updates, not sorted); solid as vxk_broadphase_peek. fn must not change the
// broadphase. A NULL world or fn does nothing. Thread-safe against other reads. Cost O(map
// capacity), no allocation.
typedef void vxk_broadphase_visit_fn(void* user, vxk_int3 chunk, uint8_t tag,
                                     const uint64_t* solid);
void vxk_broadphase_for_each(const vxk_world* world, vxk_broadphase_visit_fn* fn, void* user);

// The coordinates of the chunks with an entry, sorted by (cy, cz, cx): writes the first
// min(n, capacity) of them to out (out may be NULL when capacity is 0; nothing is written then)
// and returns n, the number of entries (so a call with capacity 0 sizes the buffer). A NULL world
// gives 0. Allocates nothing, so it cannot run out of memory: when capacity < n, the first
// capacity are selected in out itself. Thread-safe against other reads. Cost O(n log n)
// (O(n log capacity) when short) plus O(map capacity) for the scan.
uint32_t vxk_broadphase_get_chunks(const vxk_world* world, vxk_int3* out, uint32_t capacity);

typedef struct vxk_broadphase_stats {
    uint64_t entries; // chunks with an entry
    uint64_t full;    // of which tagged full (no mask stored)
    uint64_t bytes;   // held: map + masks (also in vxk_world_memory_stats)
} vxk_broadphase_stats;

// Fills *out: entries and full are zero before any build; all three are zero for a NULL world.
// Nothing happens for a NULL out.
// Thread-safe against reads. Cost: O(1).
void vxk_broadphase_get_stats(const vxk_world* world, vxk_broadphase_stats* out);

// Digest of the content in (cy, cz, cx) order: coordinate, tag and (for MASK) the masks.
// Equal content gives equal hashes regardless of how it was built. Cost: O(n log n); allocates a
// sort buffer of 12 bytes per entry (asserts when it cannot).
uint64_t vxk_broadphase_hash(const vxk_world* world);

// ---- Overlap queries -------------------------------------------------------------------------

#define VXK_BROADPHASE_HIT_SOLID 1u
#define VXK_BROADPHASE_HIT_WATER 2u

typedef struct vxk_broadphase_hit {
    vxk_int3 chunk; // chunk coordinate
    uint32_t flags; // VXK_BROADPHASE_HIT_SOLID | VXK_BROADPHASE_HIT_WATER, never 0
} vxk_broadphase_hit;

// Which chunks' terrain an AABB (world units) may touch. As the article: the box is divided by
// the voxel size and expanded by one voxel; the voxels whose cells overlap the expanded box with
// positive volume, [floor(min) - 1, ceil(max) + 1) per axis, give the chunk range; per chunk and
// Y slice, solid[y] & (masks_x[x0][x1] & masks_z[z0][z1]) tells whether a set mask bit lies in
// the range (full chunks answer without a mask). Reports every chunk with a solid and/or water
// hit, sorted by (cy, cz, cx). Writes min(n, capacity) hits to results and n to *count.
// Range: the box (before expansion) must lie within the int32 voxel space [-2^31, 2^31] in
// voxel units; the one-voxel expansion is clamped to it. Very large boxes (more chunks than a few
// times the entry count) scan the entries instead of the range.
// Errors (nothing written but *count = 0): NULL world/count, results NULL with capacity > 0 ->
// VXK_ERR_INVALID_ARGUMENT; NaN/Inf -> VXK_ERR_NOT_FINITE; min > max on an axis ->
// VXK_ERR_INVALID_ARGUMENT; outside the voxel space -> VXK_ERR_OUT_OF_RANGE. More hits than
// capacity -> VXK_ERR_CAPACITY with the first capacity hits written and *count = n. A box scanned
// through the entries allocates its hit list: VXK_ERR_OUT_OF_MEMORY when it cannot.
// Before any build there are no entries (no hits). Thread-safe against other reads.
// Cost: one map lookup per chunk in range plus one AND per (chunk, slice).
vxk_status vxk_broadphase_query_aabb(const vxk_world* world, vxk_broadphase_hit* results,
                                     uint32_t capacity, uint32_t* count, vxk_aabb box);

// Many queries at once over the world's jobs. Hits of boxes[i] are results[offsets[i] ..
// offsets[i + 1]), each run as vxk_broadphase_query_aabb would write it; offsets holds count + 1
// entries. Errors: NULL world or offsets, NULL boxes with count > 0 or NULL results with capacity
// > 0 -> VXK_ERR_INVALID_ARGUMENT; every box is validated before any work, and the first bad one
// gives its status (VXK_ERR_NOT_FINITE, VXK_ERR_INVALID_ARGUMENT, VXK_ERR_OUT_OF_RANGE, as
// vxk_broadphase_query_aabb) with nothing written; VXK_ERR_OUT_OF_MEMORY. When the hits exceed
// capacity: VXK_ERR_CAPACITY, offsets still filled (offsets[count] is the capacity needed) and
// results left unspecified. Identical output for any worker count.
// Cost: as the single queries, spread in pieces of 64 boxes. Hits pass through per-thread
// buffers that the broadphase keeps for the next batch (counted in its bytes; released by the
// next build and at world destruction); a batch running while another holds them allocates its
// own. Thread-safe against other reads, other batches included.
vxk_status vxk_broadphase_query_batch(const vxk_world* world, vxk_broadphase_hit* results,
                                      uint32_t capacity, uint32_t* offsets, const vxk_aabb* boxes,
                                      uint32_t count);

#ifdef __cplusplus
}
#endif
#endif
