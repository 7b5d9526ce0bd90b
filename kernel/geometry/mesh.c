// mesh.c: the shared indexed mesh and voxel grid containers.
#include <vxk/mesh.h>
#include <vxk/voxel_grid.h>

#include "core.h"

void vxk_mesh_free(vxk_mesh* mesh)
{
    if (!mesh)
        return;
    vxk_free(mesh->vertices, (size_t)mesh->vertex_count * sizeof(vxk_vec3));
    vxk_free(mesh->indices, (size_t)mesh->primitive_count * mesh->corners * sizeof(uint32_t));
    vxk_free(mesh->materials, mesh->primitive_count);
    memset(mesh, 0, sizeof(*mesh));
}

vxk_status vxk_voxel_grid_create(vxk_voxel_grid* grid, int32_t size_x, int32_t size_y,
                                 int32_t size_z)
{
    if (!grid)
        return VXK_ERR_INVALID_ARGUMENT;
    if (size_x <= 0 || size_y <= 0 || size_z <= 0 || size_x > 4096 || size_y > 4096 ||
        size_z > 4096)
        return VXK_ERR_OUT_OF_RANGE;
    size_t bytes = (size_t)size_x * (size_t)size_y * (size_t)size_z;
    uint8_t* voxels = (uint8_t*)vxk_calloc(bytes);
    if (!voxels)
        return VXK_ERR_OUT_OF_MEMORY;
    grid->size_x = size_x;
    grid->size_y = size_y;
    grid->size_z = size_z;
    grid->voxels = voxels;
    return VXK_OK;
}

void vxk_voxel_grid_free(vxk_voxel_grid* grid)
{
    if (!grid || !grid->voxels)
        return;
    vxk_free(grid->voxels, (size_t)grid->size_x * (size_t)grid->size_y * (size_t)grid->size_z);
    memset(grid, 0, sizeof(*grid));
}
