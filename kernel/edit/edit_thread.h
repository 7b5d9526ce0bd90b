// edit_thread.h: the edit system inside the kernel (vxk/edit.h is its public face): the world's
// subsystem slot, the publish at the step's start, and the batch hook where splitting plugs in.
#ifndef VXK_EDIT_THREAD_H
#define VXK_EDIT_THREAD_H

#include <vxk/edit.h>

#include "spawn.h"
#include "terrain.h"

// Attaches the (disabled) edit system to a new world (world.c). VXK_ERR_OUT_OF_MEMORY.
vxk_status vxk_edit_attach(vxk_world* world);

// Whether the edit system is enabled (direct terrain writes are then refused).
bool vxk_edit_enabled(const vxk_world* world);

// The step's first stage (step.c): publishes the batches of the edits submitted before the
// previous step began, waiting for the writer if it has not finished them (applying them on this
// thread when no writer thread runs). Installs their chunk versions into the world's terrain (its
// dirty list then holds them) and lists their body edits and debris in *out for the spawn stage
// (spawn.h); vxk_edit_publish_finish, after the spawn, makes their outcomes final.
// VXK_ERR_OUT_OF_MEMORY (nothing published; the next step tries again). VXK_OK with an empty list
// at once when the system is disabled.
vxk_status vxk_edit_publish(vxk_world* world, vxk_spawn_list* out);

// After the spawn stage: writes the outcomes of the published body edits (from the list's
// statuses), records the bodies made as split events and the figures, frees the batches.
void vxk_edit_publish_finish(vxk_world* world, const vxk_spawn_list* spawned);

// vxk_edit_disable in two halves around the spawn of its last batches (step.c): begin applies and
// installs everything submitted and lists its spawn (statuses of vxk_edit_disable); after the
// spawn and vxk_edit_publish_finish, end releases the enabled system.
vxk_status vxk_edit_disable_begin(vxk_world* world, vxk_spawn_list* out);
void vxk_edit_disable_end(vxk_world* world);

// ---- the batch hook (connectivity splitting plugs in here) ------------------------------------

// Solid voxels of one chunk that a batch removed: solid when the batch began, not solid after its
// last edit (bit x + 8 z of word y, as the terrain's occupancy bits).
typedef struct vxk_edit_removed {
    vxk_int3 chunk;
    uint32_t pad;
    uint64_t solid[8];
} vxk_edit_removed; // 80 bytes

// A batch the writer has just finished, before its chunk versions are taken: the writer's terrain
// after the batch's last edit, and what the batch removed. Writes into `terrain` (through the
// terrain's write functions) become part of this batch and are published with it, at the same
// step. Everything here depends on the batch's edits alone, never on timing.
typedef struct vxk_edit_batch_view {
    uint64_t batch;       // batch k: tickets of positions [first, end), published by step k + 2
    uint64_t first, end;  // queue positions (ticket - 1)
    vxk_terrain* terrain; // the writer's terrain (not the world's)
    const vxk_material_table* materials;
    const vxk_edit_removed* removed; // sorted by chunk (y, z, x); only chunks that lost voxels
    uint32_t removed_count;
} vxk_edit_batch_view;

// Runs on the writer's thread (the edit thread, vxk_edit_run's caller or the step's thread when
// it catches up), once per batch with edits. VXK_ERR_OUT_OF_MEMORY: the batch is completed
// without running the hook again (the hook must not have half-written).
typedef vxk_status vxk_edit_batch_fn(void* ctx, const vxk_edit_batch_view* view);

// Sets the hook (NULL: none). While one is set, the writer records, per batch, the solid bits of
// every chunk as the batch first touches it, to compute `removed`. A world call.
void vxk_edit_set_batch_hook(vxk_world* world, vxk_edit_batch_fn* fn, void* ctx);

// Tests: the writer sleeps this long before each edit (0: not at all), to make steps catch it up.
void vxk_edit_set_test_delay(vxk_world* world, uint32_t microseconds);

#endif
