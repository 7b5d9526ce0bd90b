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
#include "spawn.h"
#include "terrain.h"

#include <vxk/jobs.h>

// A terrain part cut loose, removed from the writer's terrain and waiting for its batch's publish
// to become a body (spawn.h).
typedef vxk_spawn_debris vxk_edit_debris;

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

// The publish's part (the step's thread). Begin: the spawn list's split settings and the
// splitter's list of bodies made (cleared: it holds the bodies made by the last publish) for the
// spawn stage to fill. End: the spawn's figures added to the splitter's. Both accept a NULL
// splitter (splitting off: nothing is split).
void vxk_edit_split_publish_begin(vxk_edit_splitter* splitter, vxk_spawn_list* list);
void vxk_edit_split_publish_end(vxk_edit_splitter* splitter, const vxk_spawn_list* list);

// Figures for vxk_edit_stats (read under the edit system's locks).
void vxk_edit_split_stats(const vxk_edit_splitter* splitter, vxk_edit_stats* out);

// The bodies made by the last publish's splitting (vxk_edit_get_split_events).
uint32_t vxk_edit_split_events(const vxk_edit_splitter* splitter, vxk_edit_split_event* out,
                               uint32_t capacity);

uint64_t vxk_edit_splitter_bytes(const vxk_edit_splitter* splitter);

#endif
