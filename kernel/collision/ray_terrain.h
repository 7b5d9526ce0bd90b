// ray_terrain.h: the terrain half of the filtered ray queries of vxk/raycast.h
// (vxk_raycast_query, vxk_raycast_query_batch), which dynamics/ray_body.c puts together with the
// bodies: collision/ knows no bodies, so the public entry points live in the dynamics wing and
// call these (collision/raycast.c). Results equal vxk_raycast's byte for byte, with the solid
// voxel of each hit besides.
#ifndef VXK_RAY_TERRAIN_H
#define VXK_RAY_TERRAIN_H

#include <vxk/raycast.h>

// The checks vxk_raycast makes of a ray, in its order, with its statuses (VXK_OK, or
// VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE). world and ray must not be NULL.
vxk_status vxk_ray_check(const vxk_world* world, const vxk_ray* ray);

// vxk_raycast, and *voxel = the solid voxel whose face was hit (the voxel containing the origin
// for a ray that starts inside solid; zero on a miss). world, hit, voxel and ray must not be
// NULL. Errors as vxk_raycast's, *hit and *voxel untouched.
vxk_status vxk_raycast_terrain(const vxk_world* world, vxk_ray_hit* hit, vxk_int3* voxel,
                               const vxk_ray* ray);

// vxk_raycast_batch, and voxels[i] as above for rays[i] (voxels may be NULL). world must not be
// NULL, nor hits and rays when count > 0.
vxk_status vxk_raycast_terrain_batch(const vxk_world* world, vxk_ray_hit* hits, vxk_int3* voxels,
                                     const vxk_ray* rays, uint32_t count);

#endif
