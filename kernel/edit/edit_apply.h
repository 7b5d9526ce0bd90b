// edit_apply.h: what one edit of vxk/edit.h does to voxels: its checks, the voxels it may reach,
// and its application to a dense box of voxels (a terrain chunk, a body grid) or to a terrain.
// World-free apart from the terrain object: the edit system (edit_thread.c) and the tests' callers
// share these, the tests' reference does not.
#ifndef VXK_EDIT_APPLY_H
#define VXK_EDIT_APPLY_H

#include <vxk/edit.h>

#include "terrain.h"

// Checks an edit's shape and material against a material table and writes the box of voxels it
// may change (spheres: a box one voxel larger than centre +- radius). Returns VXK_OK or the
// rejection status of vxk_edit_outcome (INVALID_ARGUMENT, NOT_FINITE, OUT_OF_RANGE,
// BAD_MATERIAL). Body edits are checked against their grid by vxk_edit_clip_to_grid.
vxk_status vxk_edit_check(const vxk_edit* edit, const vxk_material_table* materials,
                          vxk_int_box* bounds);

// The part of a checked body edit's bounds inside a grid of `size`: box kinds must lie inside it,
// spheres are clipped and must reach it. VXK_ERR_OUT_OF_RANGE otherwise.
vxk_status vxk_edit_clip_to_grid(const vxk_edit* edit, vxk_int_box bounds, vxk_int3 size,
                                 vxk_int_box* clipped);

// Applies a checked edit to the voxels of `box` held densely in the layout of vxk_world_read_box
// (x fastest, then z, then y; a chunk's 8^3 voxels are that layout). Returns whether the shape
// reaches any voxel of the box (false: nothing was looked at).
bool vxk_edit_apply_dense(const vxk_edit* edit, uint8_t* voxels, vxk_int_box box);

// Applies a checked terrain edit with its bounds to a terrain (the writer's fork): boxes and
// single voxels through vxk_terrain_fill, the rest chunk by chunk through
// vxk_terrain_edit_chunks. All or nothing: VXK_ERR_OUT_OF_MEMORY changes nothing.
vxk_status vxk_edit_apply_terrain(const vxk_edit* edit, vxk_terrain* terrain, vxk_int_box bounds);

// The chunks a box of voxels touches.
vxk_int_box vxk_edit_chunk_box(vxk_int_box voxels);

#endif
