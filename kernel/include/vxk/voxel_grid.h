// vxk/voxel_grid.h: a standalone dense grid of material ids (a voxel body's shape, an imported
// .vox model). Index x + size_x * (z + size_z * y), y up.
#ifndef VXK_VOXEL_GRID_H
#define VXK_VOXEL_GRID_H

#include <vxk/base.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_voxel_grid {
    int32_t size_x, size_y, size_z;
    uint8_t* voxels; // size_x * size_y * size_z material ids, 0 = air
} vxk_voxel_grid;

// Allocates a zeroed grid. Errors (*grid untouched): NULL grid -> VXK_ERR_INVALID_ARGUMENT; a size
// <= 0 or over 4096 per axis -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
vxk_status vxk_voxel_grid_create(vxk_voxel_grid* grid, int32_t size_x, int32_t size_y,
                                 int32_t size_z);
void vxk_voxel_grid_free(vxk_voxel_grid* grid);

static inline uint8_t vxk_voxel_grid_get(const vxk_voxel_grid* g, int32_t x, int32_t y, int32_t z)
{
    return g->voxels[(size_t)x + (size_t)g->size_x * ((size_t)z + (size_t)g->size_z * (size_t)y)];
}

#ifdef __cplusplus
}
#endif
#endif
