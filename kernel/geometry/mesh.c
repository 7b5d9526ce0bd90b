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

vxk_status vxk_voxel_grid_create(vxk_voxel_grid* grid, vxk_int3 size)
{
    if (!grid)
        return VXK_ERR_INVALID_ARGUMENT;
    if (size.x <= 0 || size.y <= 0 || size.z <= 0 || size.x > 4096 || size.y > 4096 ||
        size.z > 4096)
        return VXK_ERR_OUT_OF_RANGE;
    size_t bytes = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    uint8_t* voxels = (uint8_t*)vxk_calloc(bytes);
    if (!voxels)
        return VXK_ERR_OUT_OF_MEMORY;
    grid->size = size;
    grid->voxels = voxels;
    return VXK_OK;
}

void vxk_voxel_grid_free(vxk_voxel_grid* grid)
{
    if (!grid || !grid->voxels)
        return;
    vxk_free(grid->voxels, (size_t)grid->size.x * (size_t)grid->size.y * (size_t)grid->size.z);
    memset(grid, 0, sizeof(*grid));
}
