// vxk/worldgen.h: a seeded, deterministic terrain generator: fBm heightmap terrain, worm caves,
// overhangs, a water level, a bedrock floor and materials by depth, produced as parallel jobs.
//
// The result depends only on the def (and on what the world held outside the generated box),
// never on the number of workers: every chunk column is generated independently from integer-hash
// noise, and chunks enter the terrain in a fixed order (chunk columns by (cz, cx), bottom to top).
#ifndef VXK_WORLDGEN_H
#define VXK_WORLDGEN_H

#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

// water_level value meaning "30% of size_y".
#define VXK_WORLDGEN_WATER_AUTO INT32_MIN

typedef struct vxk_worldgen_def {
    uint32_t cookie;     // set by vxk_default_worldgen_def
    int32_t size_x;      // voxels along x, 1..65536 (default 256); any value, no rounding
    int32_t size_y;      // voxels along y, 8..4096 (default 128)
    int32_t size_z;      // voxels along z, 1..65536 (default 256)
    uint64_t seed;       // default 1
    float cave_density;  // 0 (no caves) .. 1 (many, wider tunnels); default 0.5
    int32_t water_level; // water fills air at y <= water_level above the terrain surface;
                         // default VXK_WORLDGEN_WATER_AUTO; a negative level means no water
} vxk_worldgen_def;

vxk_worldgen_def vxk_default_worldgen_def(void);

// Generates the voxel box [0, size_x) x [0, size_y) x [0, size_z) of the world, replacing what
// it held there (voxels outside the box are kept, also in chunks the box cuts).
//
// Content: surface heights from 6-octave value-noise fBm; a bedrock layer at y = 0..1; grass on
// top (sand where the surface is near or under water), dirt below, stone deeper with gravel and
// clay pockets; worm-like caves (thresholded ridged 3D noise, |n1| < t and |n2| < t, t from
// cave_density) at least 4 voxels under the surface; overhangs from 3D noise displacing the
// surface in cliff regions; water in the air above the surface up to water_level.
//
// Runs on vxk_world_jobs(world) (vxk_parallel_for over chunk columns). 3D noise is evaluated on
// a 4-voxel lattice and interpolated trilinearly; chunks that the lattice bounds prove to be one
// material are stored uniform without evaluating any voxel.
//
// Errors: NULL world or def -> VXK_ERR_INVALID_ARGUMENT; a def not made by
// vxk_default_worldgen_def -> VXK_ERR_BAD_DEF; sizes out of range -> VXK_ERR_OUT_OF_RANGE;
// cave_density NaN -> VXK_ERR_NOT_FINITE, outside [0, 1] -> VXK_ERR_OUT_OF_RANGE; a world whose
// material table lacks a default terrain id (bedrock..clay, water) -> VXK_ERR_BAD_MATERIAL.
// Nothing changes on these errors. VXK_ERR_OUT_OF_MEMORY may leave the box partly generated.
// Thread-safety: a terrain write (exclusive access to the world). Cost: about
// size_x * size_z * (chunks per column that are not provably uniform) * 512 voxel evaluations.
vxk_status vxk_worldgen_run(vxk_world* world, const vxk_worldgen_def* def);

#ifdef __cplusplus
}
#endif
#endif
