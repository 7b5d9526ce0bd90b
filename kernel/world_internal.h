// world_internal.h: the world object, shared by the kernel files above terrain/.
//
// The world owns its terrain by value and every subsystem that derives data from it (broadphase
// masks, the narrowphase cache, the ray state) as a vxk_subsystem slot, attached by
// vxk_world_create through each file's attach function and destroyed by vxk_world_destroy through
// the slot's destroy callback. This keeps world.c free of their internals and lets later
// subsystems (bodies, the edit thread) plug in the same way.
#ifndef VXK_WORLD_INTERNAL_H
#define VXK_WORLD_INTERNAL_H

#include <vxk/world.h>

#include "arena.h"
#include "core.h"
#include "terrain.h"

typedef struct vxk_subsystem {
    void* self;
    void (*destroy)(void* self);
    // Adds its bytes to the broadphase_* / narrow_bytes fields; world.c sums total_bytes.
    void (*memory)(const void* self, vxk_world_memory_stats* stats);
} vxk_subsystem;

struct vxk_world {
    uint32_t cookie;
    float voxel_size;
    float inv_voxel_size;
    vxk_material_table materials;
    vxk_jobs* jobs;
    vxk_jobs* owned_jobs; // the inline scheduler when the def gave none
    size_t narrow_cache_bytes;
    vxk_terrain terrain; // terrain/terrain.c

    vxk_world_step_stats step_stats; // step.c
    vxk_arena step_arena;            // step.c: memory of one step, reset at the next

    vxk_subsystem broadphase; // broadphase.c
    vxk_subsystem narrow;     // narrow_cache.c
    vxk_subsystem rays;       // raycast_index.c (the sparse ray index, ray counters)
    vxk_subsystem dynamics;   // dynamics/body.c (bodies, contacts, the solver's buffers)
    vxk_subsystem edit;       // edit/edit_thread.c (the edit queue, writer and versions)
};

// Seconds since *mark (vxk_jobs_now_ns), and *mark moved to now: the stage timer of the step.
static inline double vxk_seconds_since(uint64_t* mark)
{
    uint64_t now = vxk_jobs_now_ns();
    double s = (double)(now - *mark) * 1e-9;
    *mark = now;
    return s;
}

// The subsystems, created and attached by vxk_world_create (each in its own file); a reader never
// creates one. VXK_ERR_OUT_OF_MEMORY leaves the world's slot empty.
vxk_status vxk_broadphase_attach(vxk_world* world);   // collision/broadphase.c
vxk_status vxk_narrow_cache_attach(vxk_world* world); // collision/narrow_cache.c
vxk_status vxk_rays_attach(vxk_world* world);         // collision/raycast_index.c
// dynamics/body.c: the dynamics fields of a def (before anything is created), then the subsystem.
vxk_status vxk_dynamics_validate_def(const vxk_world_def* def);
vxk_status vxk_dynamics_attach(vxk_world* world, const vxk_world_def* def);

// For the step (collision/broadphase.c). The chunks within one chunk of the given ones (sorted
// by (y, z, x) and unique, as the terrain hands out its written chunks), sorted and unique, in
// arena memory; chunks past the int32 range are left out. VXK_ERR_OUT_OF_MEMORY.
vxk_status vxk_chunk_neighbourhood(vxk_arena* arena, const vxk_int3** out, uint32_t* count,
                                   const vxk_int3* chunks, uint32_t chunk_count);
// Regenerates the masks of a neighbourhood from vxk_chunk_neighbourhood (vxk_broadphase_update
// without the expansion; the full build when the broadphase was never built). All or nothing.
vxk_status vxk_broadphase_update_neighbourhood(vxk_world* world, const vxk_int3* candidates,
                                               uint32_t count);

#endif
