// world_internal.h: the world object and the terrain's internal view, shared by kernel files.
//
// Subsystems that derive data from terrain (broadphase masks, the lazy narrowphase cache) hang
// off the world as vxk_subsystem slots, created on first use by their own files and destroyed
// by vxk_world_destroy through the slot's destroy callback. This keeps world.c free of their
// internals and lets later subsystems (bodies, edit thread) plug in the same way.
#ifndef VXK_WORLD_INTERNAL_H
#define VXK_WORLD_INTERNAL_H

#include <vxk/world.h>

#include "core.h"

#define VXK_CHUNK_SIZE 8
#define VXK_CHUNK_VOXELS 512

// Voxel index inside a chunk; matches broadphase bit layout (bit x + 8*z of slice y).
static inline uint32_t vxk_voxel_index(uint32_t x, uint32_t y, uint32_t z)
{
    return x + 8u * z + 64u * y;
}

// One chunk entry (hot: 32 bytes). Mixed chunks own a payload block: 512 voxel bytes followed by
// occupancy bits solid[8], water[8] (bit x + 8*z of slice y), 640 bytes in all.
typedef struct vxk_chunk {
    int32_t cx, cy, cz;
    uint32_t version;         // bumped on every write
    uint8_t uniform_material; // meaningful when payload == NULL
    uint8_t flags;            // terrain.c bookkeeping (dirty-list membership)
    uint8_t pad[6];
    uint8_t* payload; // NULL for uniform chunks
} vxk_chunk;
_Static_assert(sizeof(vxk_chunk) == 32, "chunk entry is 32 bytes");

#define VXK_CHUNK_PAYLOAD_BYTES (VXK_CHUNK_VOXELS + 16 * sizeof(uint64_t))

static inline const uint64_t* vxk_chunk_solid_bits(const vxk_chunk* c)
{
    return (const uint64_t*)(c->payload + VXK_CHUNK_VOXELS);
}
static inline const uint64_t* vxk_chunk_water_bits(const vxk_chunk* c)
{
    return (const uint64_t*)(c->payload + VXK_CHUNK_VOXELS) + 8;
}

typedef struct vxk_subsystem {
    void* self;
    void (*destroy)(void* self);
    // Adds its bytes to the broadphase_* / narrow_bytes fields; world.c sums total_bytes.
    void (*memory)(const void* self, vxk_world_memory* stats);
} vxk_subsystem;

typedef struct vxk_terrain vxk_terrain; // chunk map + payload pool (terrain.c)

struct vxk_world {
    uint32_t cookie;
    float voxel_size;
    float inv_voxel_size;
    vxk_material_table materials;
    uint8_t material_kind[VXK_MATERIAL_COUNT]; // kind per id, for the write path
    vxk_jobs* jobs;
    vxk_jobs* owned_jobs; // the inline scheduler when the def gave none
    size_t narrow_cache_bytes;
    vxk_terrain* terrain;

    // Chunks written since the last vxk_world_take_dirty (sorted, unique on take).
    vxk_int3* dirty;
    uint32_t dirty_count, dirty_capacity;

    vxk_world_step_stats step_stats; // step.c

    vxk_subsystem broadphase; // broadphase.c
    vxk_subsystem narrow;     // narrow_cache.c
    vxk_subsystem rays;       // raycast.c (the sparse ray index, ray counters)
};

// The subsystems, created and attached by vxk_world_create (each in its own file); a reader never
// creates one. VXK_ERR_OUT_OF_MEMORY leaves the world's slot empty.
vxk_status vxk_broadphase_attach(vxk_world* world);   // collision/broadphase.c
vxk_status vxk_narrow_cache_attach(vxk_world* world); // collision/narrow_cache.c
vxk_status vxk_rays_attach(vxk_world* world);         // collision/raycast.c

// Finds a chunk entry; NULL if the chunk is all air (no entry). Thread-safe against other reads.
const vxk_chunk* vxk_terrain_find(const vxk_world* world, int32_t cx, int32_t cy, int32_t cz);

// The terrain's write epoch: changes with every write call that changes voxels (never 0 once
// written; 0 for a world never written). Derived caches compare it to skip revalidation.
uint32_t vxk_terrain_epoch(const vxk_world* world);

// Occupancy bits of any chunk: zeros for absent chunks, all ones in the matching mask for
// uniform solid/water chunks, the stored bits for mixed ones.
void vxk_terrain_chunk_bits(const vxk_world* world, int32_t cx, int32_t cy, int32_t cz,
                            uint64_t solid[8], uint64_t water[8]);

// All chunk entries, sorted by (cy, cz, cx); count is written. The array is owned by the world
// and valid until the next terrain write.
const vxk_chunk* const* vxk_terrain_sorted_chunks(const vxk_world* world, uint32_t* count);

// Hands over the chunks written since the last call (sorted by (cy, cz, cx), unique). The caller
// owns nothing: the array is valid until the next terrain write or take. Used by regeneration.
const vxk_int3* vxk_world_take_dirty(vxk_world* world, uint32_t* count);

// Puts back the list handed out by the last vxk_world_take_dirty, when the consumer failed
// (out of memory) and must see the same chunks again. No effect after a write since the take.
void vxk_world_untake_dirty(vxk_world* world);

// ---- Terrain internals for kernel writers (terrain.c) ----------------------------------------

// Used by world.c; inputs are validated by the public functions (inclusive boxes, int32 range,
// defined materials). The write functions return VXK_ERR_OUT_OF_MEMORY with nothing changed when
// an allocation fails.
vxk_terrain* vxk_terrain_create(void);
void vxk_terrain_destroy(vxk_terrain* terrain);
vxk_status vxk_terrain_fill(vxk_world* world, vxk_int3 lo, vxk_int3 hi, uint8_t material);
vxk_status vxk_terrain_write(vxk_world* world, vxk_int3 lo, vxk_int3 hi, const uint8_t* ids);
void vxk_terrain_read(const vxk_world* world, vxk_int3 lo, vxk_int3 hi, uint8_t* out);
void vxk_terrain_memory(const vxk_world* world, vxk_world_memory* stats); // terrain fields

// Recomputes the solid/water bits of a mixed payload from its 512 voxel bytes. Only reads the
// world's material kinds: safe to call from jobs on payloads the caller owns.
void vxk_terrain_payload_update_bits(const vxk_world* world, uint8_t* payload);
// Allocates one payload block (VXK_CHUNK_PAYLOAD_BYTES) for vxk_terrain_adopt_chunks; NULL when
// out of memory. Thread-safe. vxk_terrain_payload_free releases one not handed over.
uint8_t* vxk_terrain_payload_alloc(void);
void vxk_terrain_payload_free(uint8_t* payload);

// A chunk produced outside the map (by a generator): uniform material or a payload with its bits
// already computed (vxk_terrain_payload_update_bits).
typedef struct vxk_terrain_chunk_source {
    int32_t cx, cy, cz;
    uint8_t uniform_material; // used when payload == NULL; 0 removes the chunk
    uint8_t* payload;         // from vxk_terrain_payload_alloc, or NULL
} vxk_terrain_chunk_source;

// Sets the given chunks in array order (each replaces whatever the chunk held). Payloads whose
// 512 voxels turn out to be one material are collapsed. Each chunk counts as written (version,
// dirty list). On VXK_OK the terrain owns every payload; on an error (out of memory) nothing
// changed and the caller still owns them. Map layout depends only on the array and prior state.
// Needs exclusive access to the world.
vxk_status vxk_terrain_adopt_chunks(vxk_world* world, const vxk_terrain_chunk_source* chunks,
                                    uint32_t count);

#endif
