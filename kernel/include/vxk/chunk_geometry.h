// vxk/chunk_geometry.h: a world's chunks handed to the world-free geometry algorithms: the
// terrain-side adapter that reads a chunk's voxels (and the material kinds) and calls the mesher
// (vxk/mesher.h) or the box builder (vxk/boxes.h) over plain buffers.
#ifndef VXK_CHUNK_GEOMETRY_H
#define VXK_CHUNK_GEOMETRY_H

#include <vxk/base.h>
#include <vxk/boxes.h>
#include <vxk/mesher.h>
#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

// Fills solid[id] = 1 for ids whose kind is VXK_MATERIAL_SOLID, else 0. Errors: NULL solid or
// table -> VXK_ERR_INVALID_ARGUMENT.
vxk_status vxk_chunk_solid_table(uint8_t solid[256], const vxk_material_table* table);

// Reads the 10^3 box around `chunk` with vxk_world_read_box and meshes it with the world's
// material kinds (solid = VXK_MATERIAL_SOLID). Same output contract as vxk_quad_mesh_chunk.
// Errors: NULL pointers -> VXK_ERR_INVALID_ARGUMENT; a chunk whose box leaves the int32 voxel
// range -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_CAPACITY as above.
// Thread-safe against other world reads (not against terrain writes). Allocates nothing.
vxk_status vxk_chunk_mesh(const vxk_world* world, vxk_quad* out, uint32_t capacity, uint32_t* count,
                          vxk_int3 chunk);

// Boxes of `chunk` of a world, reading its voxels with vxk_world_read_box; solid means kind
// VXK_MATERIAL_SOLID in the world's table. Same contract and errors as vxk_boxes_chunk (a NULL
// world too is VXK_ERR_INVALID_ARGUMENT), plus VXK_ERR_OUT_OF_RANGE for a chunk outside the
// int32 voxel range. Thread-safe against reads.
vxk_status vxk_chunk_boxes(const vxk_world* world, vxk_voxel_box* out, uint32_t capacity,
                           uint32_t* count, vxk_int3 chunk, vxk_boxes_mode mode);

#ifdef __cplusplus
}
#endif
#endif
