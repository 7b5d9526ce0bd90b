// spawn.h: what the publish hands the spawn stage of a step (step.c): the voxel body edits and the
// terrain parts (debris) of the published edit batches, as plain lists. The edit wing
// (edit/edit_thread.c) fills them without touching a body; the dynamics (dynamics/spawn.c) turns
// them into bodies and body grids and writes what came of each back into the list; the edit wing
// then makes the outcomes final (vxk_edit_publish_finish). So no call runs from edit/ up into the
// dynamics (docs/architecture.md, "Wings").
#ifndef VXK_SPAWN_H
#define VXK_SPAWN_H

#include <vxk/edit.h>
#include <vxk/voxel_grid.h>

// One voxel body edit, checked and staged by the edit system's writer.
typedef struct vxk_spawn_body_edit {
    vxk_edit edit;      // as submitted: edit.body names the body
    vxk_int_box bounds; // the voxels it may change (vxk_edit_check)
    uint64_t position;  // its queue position (the edit system's key for its outcome)
    vxk_status status;  // out: its outcome
    bool done;          // the spawn stage's working flag
} vxk_spawn_body_edit;

// Applies one staged edit to a copy of a voxel body's whole grid of `size` (layout of
// vxk_world_read_box), refusing one that would leave it empty (VXK_ERR_OUT_OF_RANGE); *solid is
// the grid's solid count, updated. Returns the edit's status. The edit system's
// (edit/edit_thread.c): the shapes of edits are its concept.
typedef vxk_status vxk_spawn_edit_fn(const vxk_spawn_body_edit* edit, uint8_t* grid, vxk_int3 size,
                                     uint64_t* solid);

// A terrain part cut loose, removed from the terrain when its batch was written: its voxels (air
// outside the part) and where its grid's voxel (0, 0, 0) lies.
typedef struct vxk_spawn_debris {
    vxk_int3 origin; // world voxel of grid voxel (0, 0, 0)
    uint32_t voxel_count;
    vxk_voxel_grid grid; // owned by the batch
} vxk_spawn_debris;

// One published batch: its body edits in ticket order, then its debris in search order.
typedef struct vxk_spawn_batch {
    vxk_spawn_body_edit* edits;
    uint32_t edit_count;
    const vxk_spawn_debris* debris;
    uint32_t debris_count;
} vxk_spawn_batch;

typedef struct vxk_spawn_list {
    vxk_spawn_batch* batches; // in batch order
    uint32_t batch_count;
    vxk_spawn_edit_fn* apply;
    bool split; // connectivity splitting is on: bodies the edits disconnect are split
    // The bodies made (split parts and debris), in order: a buffer the edit system owns and the
    // spawn stage grows (vxk_grow_items) and fills.
    vxk_edit_split_event** events;
    uint32_t* event_count;
    uint32_t* event_capacity;
    // Out: figures of the spawn.
    uint64_t split_voxels; // voxels the body splits expanded
    uint32_t lost;         // debris that could not become bodies (out of memory)
} vxk_spawn_list;

#endif
