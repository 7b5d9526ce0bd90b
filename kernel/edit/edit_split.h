// edit_split.h: connectivity splitting wired to the edit system (vxk/edit.h, "Splitting"): the
// terrain parts an edit batch cuts loose, found on the writer's thread and removed from the
// writer's terrain in the same batch, then created as dynamic voxel bodies when the batch is
// published; and the parts a body edit cuts off a voxel body, split at the publish. The search
// itself is geometry/split.h.
#ifndef VXK_EDIT_SPLIT_H
#define VXK_EDIT_SPLIT_H

#include <vxk/edit.h>
#include <vxk/voxel_grid.h>

#include "edit_thread.h"
#include "terrain.h"

#include <vxk/jobs.h>

// A terrain part cut loose, removed from the writer's terrain and waiting for its batch's publish
// to become a body: its voxels (air outside the part) and where its grid's voxel (0, 0, 0) lies.
typedef struct vxk_edit_debris {
    vxk_int3 origin; // world voxel of grid voxel (0, 0, 0)
    uint32_t voxel_count;
    vxk_voxel_grid grid; // owned
} vxk_edit_debris;

// The staged debris of one batch (owned by the batch).
typedef struct vxk_edit_debris_list {
    vxk_edit_debris* items;
    uint32_t count, capacity;
} vxk_edit_debris_list;

void vxk_edit_debris_list_free(vxk_edit_debris_list* list);
uint64_t vxk_edit_debris_list_bytes(const vxk_edit_debris_list* list);

typedef struct vxk_edit_splitter vxk_edit_splitter;

// A splitter for the def's settings (split must be on). NULL when out of memory.
vxk_edit_splitter* vxk_edit_splitter_create(const vxk_edit_def* def);
void vxk_edit_splitter_destroy(vxk_edit_splitter* splitter);

// Whether terrain searches are still running (continued by the next batch).
bool vxk_edit_splitter_pending(const vxk_edit_splitter* splitter);

// The writer's part, once per batch (its thread): starts a search for each region around the
// removed voxels, continues the searches earlier batches left, each within its share of the
// budget (all to the end when finish), as jobs; then, in the order of the searches, removes the
// free parts of those that ended from the terrain (the voxels still solid) and appends them to
// debris. A part wider than VXK_BODY_MAX_GRID on an axis, or without mass, stays in the terrain
// (counted). Out of memory: what was removed so far is in debris, the rest stays; the searches
// go on next batch.
vxk_status vxk_edit_split_terrain(vxk_edit_splitter* splitter, vxk_jobs* jobs, vxk_terrain* terrain,
                                  const vxk_material_table* materials,
                                  const vxk_edit_removed* removed, uint32_t removed_count,
                                  bool finish, vxk_edit_debris_list* debris);

// The publish's part (the step's thread). Clears the list of bodies made by splitting (at each
// publish's start).
void vxk_edit_split_events_clear(vxk_edit_splitter* splitter);

// Creates the bodies of a published batch's debris (dynamic, at rest, awake, the world's voxel
// size, their voxels where the terrain had them), in list order, recording each.
void vxk_edit_split_create_debris(vxk_edit_splitter* splitter, vxk_world* world,
                                  const vxk_edit_debris_list* debris);

// After body edits changed voxel body id from grid `before` to `now` (its voxels): splits off the
// parts the removed voxels disconnected. The largest part keeps the id; each other becomes a new
// body of the same type and settings, in the order of its smallest voxel (y, z, x), with the
// velocity the original had at its centre of mass. Out of memory: the body stays whole.
void vxk_edit_split_body(vxk_edit_splitter* splitter, vxk_world* world, vxk_body_id id,
                         const uint8_t* before, const uint8_t* now, vxk_int3 size);

// Figures for vxk_edit_stats (read under the edit system's locks).
void vxk_edit_split_stats(const vxk_edit_splitter* splitter, vxk_edit_stats* out);

// The bodies made by the last publish's splitting (vxk_edit_get_split_events).
uint32_t vxk_edit_split_events(const vxk_edit_splitter* splitter, vxk_edit_split_event* out,
                               uint32_t capacity);

uint64_t vxk_edit_splitter_bytes(const vxk_edit_splitter* splitter);

#endif
