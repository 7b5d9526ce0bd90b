// vxk/voxel_grid.h: a standalone dense grid of material ids (a voxel body's shape, an imported
// .vox model). Voxel v is at index v.x + size.x * (v.z + size.z * v.y), y up.
#ifndef VXK_VOXEL_GRID_H
#define VXK_VOXEL_GRID_H

#include <vxk/base.h>

#ifdef __cplusplus
extern "C" {
#endif

// The largest voxel body grid per axis (vxk/body.h).
#define VXK_BODY_MAX_GRID 256

typedef struct vxk_voxel_grid {
    vxk_int3 size;
    uint8_t* voxels; // size.x * size.y * size.z material ids, 0 = air
} vxk_voxel_grid;

// Allocates a zeroed grid. Errors (*grid untouched): NULL grid -> VXK_ERR_INVALID_ARGUMENT; a size
// <= 0 or over 4096 per axis -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
vxk_status vxk_voxel_grid_create(vxk_voxel_grid* grid, vxk_int3 size);
void vxk_voxel_grid_free(vxk_voxel_grid* grid);

// The material id of voxel v (0 <= v < size on each axis).
static inline uint8_t vxk_voxel_grid_get(const vxk_voxel_grid* g, vxk_int3 v)
{
    return g
        ->voxels[(size_t)v.x + (size_t)g->size.x * ((size_t)v.z + (size_t)g->size.z * (size_t)v.y)];
}

#ifdef __cplusplus
}
#endif
#endif
