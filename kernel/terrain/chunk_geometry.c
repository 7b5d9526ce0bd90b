// chunk_geometry.c: the terrain-side adapter of the geometry algorithms: reads a chunk's voxels
// from the terrain object (its 10^3 box for the mesher, its 8^3 voxels for the box builder) and
// the material kinds of a table into plain buffers, so that geometry/ never includes a world or
// terrain header and this file needs no world internals (world.c adapts the public calls, which
// take a world, onto these).
#include "core.h"
#include "terrain.h"

#include <vxk/chunk_geometry.h>

vxk_status vxk_chunk_solid_table(uint8_t solid[256], const vxk_material_table* table)
{
    if (!solid || !table)
        return VXK_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < 256; ++i)
        solid[i] = table->materials[i].kind == VXK_MATERIAL_SOLID;
    return VXK_OK;
}

// Reads the box of `size` voxels per axis starting `border` voxels before the chunk's first,
// and the table's solid kinds. OUT_OF_RANGE when the box leaves the int32 voxel range.
static vxk_status read_chunk(const vxk_terrain* terrain, const vxk_material_table* materials,
                             vxk_int3 chunk, int32_t border, int32_t size, uint8_t* voxels,
                             uint8_t solid[256])
{
    int64_t min[3] = {(int64_t)chunk.x * 8 - border, (int64_t)chunk.y * 8 - border,
                      (int64_t)chunk.z * 8 - border};
    for (int i = 0; i < 3; ++i)
        if (min[i] < INT32_MIN || min[i] + size - 1 > INT32_MAX)
            return VXK_ERR_OUT_OF_RANGE;
    vxk_int_box box = {
        {(int32_t)min[0], (int32_t)min[1], (int32_t)min[2]},
        {(int32_t)(min[0] + size - 1), (int32_t)(min[1] + size - 1), (int32_t)(min[2] + size - 1)}};
    vxk_terrain_read(terrain, voxels, box);
    // Ids stored in terrain are defined, so the table's kinds alone decide.
    return vxk_chunk_solid_table(solid, materials);
}

vxk_status vxk_terrain_chunk_mesh(const vxk_terrain* terrain, vxk_quad* out, uint32_t capacity,
                                  uint32_t* count, const vxk_material_table* materials,
                                  vxk_int3 chunk)
{
    uint8_t box[VXK_MESHER_BOX_VOXELS];
    uint8_t solid[256];
    vxk_status status = read_chunk(terrain, materials, chunk, 1, VXK_MESHER_BOX, box, solid);
    return status != VXK_OK ? status : vxk_quad_mesh_chunk(out, capacity, count, box, solid);
}

vxk_status vxk_terrain_chunk_boxes(const vxk_terrain* terrain, vxk_voxel_box* out,
                                   uint32_t capacity, uint32_t* count,
                                   const vxk_material_table* materials, vxk_int3 chunk,
                                   vxk_boxes_mode mode)
{
    uint8_t voxels[512];
    uint8_t solid[256];
    vxk_status status = read_chunk(terrain, materials, chunk, 0, 8, voxels, solid);
    return status != VXK_OK ? status : vxk_boxes_chunk(out, capacity, count, voxels, solid, mode);
}
