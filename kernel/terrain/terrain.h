// terrain.h: the voxel terrain object: chunk entries and their payload layout, the chunk map and
// entry pool, the material kinds of the write path, the write epoch and the list of chunks
// written since it was last taken. The world owns one by value (world.c); derived data
// (broadphase masks, narrowphase caches, the step) reads it through these functions and never
// through the world. Depends on core and the geometry's plain-buffer types (mesher, boxes) only:
// no world or collision header is included here.
//
// Thread-safety: reads (find, get_voxel, chunk_bits, sorted_chunks, read, chunk_mesh,
// chunk_boxes, epoch) may run concurrently with each other; writes (fill, write, adopt_chunks,
// take/untake_dirty) need exclusive access.
//
// Versions. Payload blocks are reference counted and immutable while shared: a terrain writes a
// payload in place only when it holds the only reference, and otherwise writes a copy (copy on
// write). vxk_terrain_fork makes a second terrain (the edit thread's, kernel/edit/) that shares
// every payload with the first; each then changes only its own entries and copies, so one thread
// can write the copy while others read the original without a lock. The copy's chunk states are
// handed back by reference (vxk_terrain_install), and a version lives until its last holder
// releases it.
#ifndef VXK_TERRAIN_H
#define VXK_TERRAIN_H

#include <vxk/boxes.h>
#include <vxk/mesher.h>
#include <vxk/world.h>

#include "chunk_map.h"
#include "core.h"

#include <pthread.h>
#include <stdatomic.h>

#define VXK_CHUNK_SIZE 8
#define VXK_CHUNK_VOXELS 512

// Voxel index inside a chunk; matches the broadphase bit layout (bit x + 8*z of slice y).
static inline uint32_t vxk_voxel_index(uint32_t x, uint32_t y, uint32_t z)
{
    return x + 8u * z + 64u * y;
}

// One chunk entry (hot: 32 bytes). Mixed chunks own a payload block: 512 voxel bytes followed by
// occupancy bits solid[8], water[8] (bit x + 8*z of slice y), 640 bytes in all.
typedef struct vxk_chunk {
    vxk_int3 coord;
    uint32_t version;         // the terrain epoch of the last write call that changed it
    uint8_t uniform_material; // meaningful when payload == NULL
    uint8_t flags;            // terrain.c bookkeeping (dirty-list membership)
    uint8_t pad[6];
    uint8_t* payload; // NULL for uniform chunks
} vxk_chunk;
_Static_assert(sizeof(vxk_chunk) == 32, "chunk entry is 32 bytes");

#define VXK_CHUNK_PAYLOAD_BYTES (VXK_CHUNK_VOXELS + 16 * sizeof(uint64_t))
// A payload block as allocated: the 640 bytes, then its reference count (16 bytes, keeping
// blocks 16-byte multiples).
#define VXK_CHUNK_PAYLOAD_ALLOC (VXK_CHUNK_PAYLOAD_BYTES + 16)

static inline const uint64_t* vxk_chunk_solid_bits(const vxk_chunk* c)
{
    return (const uint64_t*)(c->payload + VXK_CHUNK_VOXELS);
}
static inline const uint64_t* vxk_chunk_water_bits(const vxk_chunk* c)
{
    return (const uint64_t*)(c->payload + VXK_CHUNK_VOXELS) + 8;
}

// The sorted chunk view: a cache that readers rebuild under its own lock after a write changed
// the chunk set; reached through a pointer because readers hold a const terrain.
typedef struct vxk_terrain_view {
    pthread_mutex_t lock;
    atomic_int valid;
    const vxk_chunk** sorted;
    uint32_t count, capacity;
    uint64_t* keys; // radix sort scratch (2 x 2 words per chunk while building)
    uint32_t key_capacity;
} vxk_terrain_view;

typedef struct vxk_terrain {
    vxk_chunk_map map;       // chunk coordinate -> index into chunks
    vxk_chunk* chunks;       // pool of entries (32 bytes each)
    uint32_t chunk_capacity; // entries allocated
    uint32_t chunk_used;     // high-water mark of used pool indices
    uint32_t* free_slots;    // pool indices free below chunk_used (capacity chunk_capacity)
    uint32_t free_count;
    uint32_t mixed_count;
    uint32_t epoch; // write-call counter; chunks written by a call take it as version

    uint8_t material_kind[VXK_MATERIAL_COUNT]; // vxk_material_kind per id (undefined: air)

    // Chunks written since the last take (sorted, unique on take). After a take the list is
    // handed out until the next write starts a new one.
    vxk_int3* dirty;
    uint32_t dirty_count, dirty_capacity;
    bool dirty_taken;

    // The sorted chunk view, rebuilt by the first reader after a change of the chunk set.
    struct vxk_terrain_view* view;

    // Direct writes (fill, write, adopt_chunks) are refused with VXK_ERR_UNSUPPORTED while set:
    // the edit system owns the writes (vxk/edit.h); its publish installs through
    // vxk_terrain_install.
    bool writes_frozen;
    bool is_fork; // made by vxk_terrain_fork: no sorted view is reserved for it (never read)
    // vxk_terrain_edit_chunks' working memory (512 voxel bytes and 4 state bytes per chunk),
    // kept for the next call.
    uint8_t* edit_scratch;
    size_t edit_scratch_bytes;
} vxk_terrain;

// Makes an empty terrain whose write path classifies ids by the table's kinds (a validated
// table). VXK_ERR_OUT_OF_MEMORY leaves nothing to destroy; after VXK_OK, vxk_terrain_destroy
// releases everything the terrain holds.
vxk_status vxk_terrain_init(vxk_terrain* terrain, const vxk_material_table* materials);
void vxk_terrain_destroy(vxk_terrain* terrain);

// The kind (vxk_material_kind) of a material id.
static inline uint8_t vxk_terrain_kind(const vxk_terrain* terrain, uint8_t material)
{
    return terrain->material_kind[material];
}

// Finds a chunk entry; NULL if the chunk is all air (no entry). Expected O(1). Inline: the
// broadphase gathers 27 neighbours per chunk through it.
static inline const vxk_chunk* vxk_terrain_find(const vxk_terrain* terrain, vxk_int3 chunk)
{
    uint32_t index = vxk_chunk_map_find(&terrain->map, chunk);
    return index == VXK_CHUNK_MAP_EMPTY ? NULL : &terrain->chunks[index];
}

// The material id of one voxel (air where the chunk has no entry): vxk_world_get_voxel's read.
static inline uint8_t vxk_terrain_get_voxel(const vxk_terrain* terrain, vxk_int3 voxel)
{
    vxk_int3 chunk = {vxk_floor_div8(voxel.x), vxk_floor_div8(voxel.y), vxk_floor_div8(voxel.z)};
    const vxk_chunk* c = vxk_terrain_find(terrain, chunk);
    if (!c)
        return VXK_MAT_AIR;
    if (!c->payload)
        return c->uniform_material;
    return c->payload[vxk_voxel_index((uint32_t)vxk_mod8(voxel.x), (uint32_t)vxk_mod8(voxel.y),
                                      (uint32_t)vxk_mod8(voxel.z))];
}

// The write epoch: changes with every write call that changes voxels (never 0 once written; 0
// for a terrain never written). Derived caches compare it to skip revalidation.
static inline uint32_t vxk_terrain_epoch(const vxk_terrain* terrain)
{
    return terrain->epoch;
}

// Occupancy bits of any chunk: zeros for absent chunks, all ones in the matching mask for
// uniform solid/water chunks, the stored bits for mixed ones.
void vxk_terrain_chunk_bits(const vxk_terrain* terrain, vxk_int3 chunk, uint64_t solid[8],
                            uint64_t water[8]);

// All chunk entries, sorted by (y, z, x); count is written. The array is owned by the terrain
// and valid until the next write.
const vxk_chunk* const* vxk_terrain_sorted_chunks(const vxk_terrain* terrain, uint32_t* count);

// Hands over the chunks written since the last take (sorted by (y, z, x), unique). The caller
// owns nothing: the array is valid until the next write or take. The step takes it once and
// hands it to every stage that derives data from terrain.
const vxk_int3* vxk_terrain_take_dirty(vxk_terrain* terrain, uint32_t* count);

// Chunks written since the last take (counted once each; an upper bound of the next take's count).
static inline uint32_t vxk_terrain_dirty_count(const vxk_terrain* terrain)
{
    return terrain->dirty_taken ? 0 : terrain->dirty_count;
}

// Puts back the list handed out by the last take, when its consumer failed (out of memory) and
// must see the same chunks again. No effect after a write since the take.
void vxk_terrain_untake_dirty(vxk_terrain* terrain);

// Writes, for world.c, whose public functions validate the input (boxes not inverted, defined
// materials). They return VXK_ERR_OUT_OF_MEMORY with nothing changed when an allocation fails
// (or the terrain would pass 2^30 chunks), VXK_ERR_UNSUPPORTED when the terrain is frozen.
vxk_status vxk_terrain_fill(vxk_terrain* terrain, vxk_int_box box, uint8_t material);
vxk_status vxk_terrain_write(vxk_terrain* terrain, vxk_int_box box, const uint8_t* ids);
// Reads a box in the dense layout of vxk_world_read_box.
void vxk_terrain_read(const vxk_terrain* terrain, uint8_t* out, vxk_int_box box);
// A chunk's geometry (chunk_geometry.c, for world.c's vxk_chunk_mesh and vxk_chunk_boxes and the
// narrowphase cache): reads the chunk's voxels (its 10^3 box for the mesher, its 8^3 voxels for
// the box builder) and solid = kind VXK_MATERIAL_SOLID in `materials`, then calls
// vxk_quad_mesh_chunk or vxk_boxes_chunk (their outputs and errors), or returns
// VXK_ERR_OUT_OF_RANGE for a chunk whose box leaves the int32 voxel range. Pointers must not be
// NULL, mode must be valid. Allocates nothing; safe alongside other reads.
vxk_status vxk_terrain_chunk_mesh(const vxk_terrain* terrain, vxk_quad* out, uint32_t capacity,
                                  uint32_t* count, const vxk_material_table* materials,
                                  vxk_int3 chunk);
vxk_status vxk_terrain_chunk_boxes(const vxk_terrain* terrain, vxk_voxel_box* out,
                                   uint32_t capacity, uint32_t* count,
                                   const vxk_material_table* materials, vxk_int3 chunk,
                                   vxk_boxes_mode mode);
// Fills the terrain fields of stats (chunk counts, map, entries, voxels, occupancy, other).
void vxk_terrain_memory(const vxk_terrain* terrain, vxk_world_memory_stats* stats);

// Recomputes the solid/water bits of a mixed payload from its 512 voxel bytes. Only reads the
// material kinds: safe to call from jobs on payloads the caller owns.
void vxk_terrain_payload_update_bits(const vxk_terrain* terrain, uint8_t* payload);
// Allocates one payload block (VXK_CHUNK_PAYLOAD_BYTES) for vxk_terrain_adopt_chunks, holding one
// reference; NULL when out of memory. Thread-safe. vxk_terrain_payload_free drops one reference
// (the block is freed with the last; NULL is ignored); _retain adds one. Both are atomic: holders
// on different threads may drop theirs concurrently.
uint8_t* vxk_terrain_payload_alloc(void);
void vxk_terrain_payload_free(uint8_t* payload);
void vxk_terrain_payload_retain(uint8_t* payload);

// A chunk produced outside the map (by a generator): uniform material or a payload with its bits
// already computed (vxk_terrain_payload_update_bits).
typedef struct vxk_terrain_chunk_source {
    vxk_int3 coord;
    uint8_t uniform_material; // used when payload == NULL; 0 removes the chunk
    uint8_t* payload;         // from vxk_terrain_payload_alloc, or NULL
} vxk_terrain_chunk_source;

// Sets the given chunks in array order (each replaces whatever the chunk held). Payloads whose
// 512 voxels turn out to be one material are collapsed. Each chunk counts as written (version,
// dirty list). On VXK_OK the terrain owns every payload; on an error (out of memory; a frozen
// terrain: VXK_ERR_UNSUPPORTED) nothing changed and the caller still owns them. Map layout depends
// only on the array and prior state.
vxk_status vxk_terrain_adopt_chunks(vxk_terrain* terrain, const vxk_terrain_chunk_source* chunks,
                                    uint32_t count);

// ---- versions (the edit system) ---------------------------------------------------------------

// Makes `copy` a second terrain with the same chunks, sharing every payload (one reference more
// each) and with an empty dirty list; the copy keeps no sorted view. VXK_ERR_OUT_OF_MEMORY leaves
// nothing to destroy. Cost: O(chunk capacity + map slots). The original must not be written
// meanwhile; afterwards the two are independent objects (each written by one thread at a time).
vxk_status vxk_terrain_fork(vxk_terrain* copy, const vxk_terrain* terrain);

// Publishing chunk states made elsewhere (a fork's): reserve room for `count` of them (every
// allocation install could need), then install them. Install is adopt_chunks without its
// failure and without the frozen check: each state replaces the chunk (a payload reference is
// taken over, payloads must already be collapsed), every chunk counts as written with one new
// version, and nothing is allocated. Several installs may follow one reserve of their total.
vxk_status vxk_terrain_reserve_install(vxk_terrain* terrain, uint64_t count);
void vxk_terrain_install(vxk_terrain* terrain, const vxk_terrain_chunk_source* states,
                         uint32_t count);

// Changes a box of chunks through a callback: for each chunk of `chunks` (chunk coordinates,
// visited in (y, z, x) order) `fn` gets its 512 voxels (index vxk_voxel_index) and changes them
// in place, returning false when it left them untouched. Then every changed chunk is stored as
// the writes store it (collapsed when uniform, removed when air, copied first when its payload
// is shared). All or nothing: VXK_ERR_OUT_OF_MEMORY changes nothing; VXK_ERR_OUT_OF_RANGE for a
// box of more than VXK_TERRAIN_EDIT_MAX_CHUNKS positions. Not frozen-checked (the fork's writer
// path). Cost: 512 bytes copied twice and compared once per chunk, plus the callback.
#define VXK_TERRAIN_EDIT_MAX_CHUNKS (1u << 18)
typedef bool vxk_terrain_chunk_fn(void* ctx, vxk_int3 chunk, uint8_t* voxels);
vxk_status vxk_terrain_edit_chunks(vxk_terrain* terrain, vxk_int_box chunks,
                                   vxk_terrain_chunk_fn* fn, void* ctx);

// Bytes of the terrain's own bookkeeping (map slots, chunk entries, free slots, dirty list,
// sorted view, edit scratch); payloads are not included.
uint64_t vxk_terrain_index_bytes(const vxk_terrain* terrain);

// The digest of vxk_world_terrain_hash (vxk/world.h): every chunk in (y, z, x) order, its header
// and the voxel bytes of mixed chunks.
uint64_t vxk_terrain_hash(const vxk_terrain* terrain);

#endif
