// chunk_geometry.c: the terrain-side adapter of the geometry algorithms: reads a chunk's voxels
// (its 10^3 box for the mesher, its 8^3 voxels for the box builder) and the world's material
// kinds into plain buffers through the public world API, so that geometry/ never includes a
// world or terrain header and this file needs no world internals.
#include "core.h"

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
// and the world's solid table. OUT_OF_RANGE when the box leaves the int32 voxel range.
static vxk_status read_chunk(const vxk_world* world, vxk_int3 chunk, int32_t border, int32_t size,
                             uint8_t* voxels, uint8_t solid[256])
{
    int64_t min[3] = {(int64_t)chunk.x * 8 - border, (int64_t)chunk.y * 8 - border,
                      (int64_t)chunk.z * 8 - border};
    for (int i = 0; i < 3; ++i)
        if (min[i] < INT32_MIN || min[i] + size - 1 > INT32_MAX)
            return VXK_ERR_OUT_OF_RANGE;
    vxk_int_box box = {
        {(int32_t)min[0], (int32_t)min[1], (int32_t)min[2]},
        {(int32_t)(min[0] + size - 1), (int32_t)(min[1] + size - 1), (int32_t)(min[2] + size - 1)}};
    vxk_status status = vxk_world_read_box(world, voxels, box);
    if (status != VXK_OK)
        return status;
    // Ids stored in terrain are defined, so the table's kinds alone decide.
    return vxk_chunk_solid_table(solid, vxk_world_materials(world));
}

vxk_status vxk_chunk_mesh(const vxk_world* world, vxk_quad* out, uint32_t capacity, uint32_t* count,
                          vxk_int3 chunk)
{
    if (!world || !out || !count)
        return VXK_ERR_INVALID_ARGUMENT;
    uint8_t box[VXK_MESHER_BOX_VOXELS];
    uint8_t solid[256];
    vxk_status status = read_chunk(world, chunk, 1, VXK_MESHER_BOX, box, solid);
    return status != VXK_OK ? status : vxk_quad_mesh_chunk(out, capacity, count, box, solid);
}

vxk_status vxk_chunk_boxes(const vxk_world* world, vxk_voxel_box* out, uint32_t capacity,
                           uint32_t* count, vxk_int3 chunk, vxk_boxes_mode mode)
{
    if (!world || !out || !count || (unsigned)mode >= VXK_BOXES_MODE_COUNT)
        return VXK_ERR_INVALID_ARGUMENT;
    uint8_t voxels[512];
    uint8_t solid[256];
    vxk_status status = read_chunk(world, chunk, 0, 8, voxels, solid);
    return status != VXK_OK ? status : vxk_boxes_chunk(out, capacity, count, voxels, solid, mode);
}
