// scenes.h: the worlds that tests and perf/ build, in one place (as Box2D's shared/ serves its
// tests, benchmark and samples): a world made from the default def, the terrain the edge and
// out-of-memory tests share, the status tests' terrain, and the generator defs of test worlds and
// of the benchmark world.
// A scene is fixed by its arguments (seeds included) and never reads VXK_TEST_SEED: a test that
// wants its seed mixed passes vxk_test_seed(literal). Built as the static library vxk_scenes.
#ifndef VXK_SCENES_H
#define VXK_SCENES_H

#include <stdbool.h>
#include <stdint.h>

#include <vxk/body.h>
#include <vxk/mesher.h>
#include <vxk/world.h>
#include <vxk/worldgen.h>

// A world of vxk_default_world_def(), or NULL when it cannot be created (out of memory).
vxk_world* vxk_scene_world(void);

// As vxk_scene_world, on the scheduler jobs (NULL: the world runs inline) and with voxel_size
// metres per voxel (0: the default).
vxk_world* vxk_scene_world_with(vxk_jobs* jobs, float voxel_size);

// Terrain of every kind the edge tests probe, filled box by box: uniform and mixed chunks
// (stone from (-5, 0, -7) to (20, 3, 9), dirt over (0, 0, 0)..(15, 15, 15)), water
// ((-3, 4, -2)..(4, 6, 5)), one air voxel at (2, 9, 2) inside the dirt, metal in the last voxels
// of int32 ((INT32_MAX - 2, INT32_MAX - 1, INT32_MAX - 3)..INT32_MAX) and wood in the first
// ((INT32_MIN, INT32_MIN, INT32_MIN)..(INT32_MIN + 2, INT32_MIN + 1, INT32_MIN)). Returns the
// first failing fill's status.
vxk_status vxk_scene_edge_terrain(vxk_world* world);

// vxk_scene_edge_terrain without the voxels at the ends of int32 (stone, water, dirt, the hole).
vxk_status vxk_scene_edge_terrain_near(vxk_world* world);

// A world of vxk_scene_world holding vxk_scene_edge_terrain (or vxk_scene_edge_terrain_near), or
// NULL when either step fails.
vxk_world* vxk_scene_edge_world(void);
vxk_world* vxk_scene_edge_world_near(void);

// A world of vxk_scene_world holding the terrain the status tests call into: stone from
// (-12, 0, -9) to (20, 5, 14), dirt (0, 6, 0)..(5, 9, 5) and water (-4, 6, 8)..(3, 8, 12) on it;
// NULL when a step fails.
vxk_world* vxk_scene_status_world(void);

// The quads of chunk (0, 0, 0) of vxk_scene_edge_terrain (quads holds VXK_MESHER_MAX_QUADS), made
// in a world of its own: a mesher mesh for the mesh and kD tree tests.
vxk_status vxk_scene_edge_chunk_quads(vxk_quad* quads, uint32_t* count);

// vxk_default_worldgen_def() for the box [0, size) at the origin and seed; other fields default.
vxk_worldgen_def vxk_scene_worldgen_def(vxk_int3 size, uint64_t seed);

// The generator def of the benchmark world (`vxk bench`, perf/phase_world.c): 2048 x 256 x 2048
// voxels, quick 256 x 128 x 256, x and z multiplied by scale (<= 0: 1) and kept in 8..65536.
vxk_worldgen_def vxk_scene_bench_worldgen_def(bool quick, double scale, uint64_t seed);

// The terrain of the fast voxel bodies (tests/test_narrowphase.c, perf/phase_fast_body.c): a
// world of voxel_size metres per voxel and linear slop 0.02 voxel_size (so every length in voxels
// is the same at any voxel size), on jobs (NULL: inline), its stone 8 voxels thick with the top at
// y = 0: a square of side voxels centred on the origin, and a strip along +x from its edge,
// 8,192 voxels long and 32 wide (z in [-16, 15]). The broadphase built; NULL when a step fails.
vxk_world* vxk_scene_fast_body_world(vxk_jobs* jobs, float voxel_size, int32_t side);

// A 2 x 2 x 2 voxel body of stone voxels of voxel_size at position, moving at velocity: what
// vxk_body_create returns.
vxk_status vxk_scene_fast_body(vxk_world* world, float voxel_size, vxk_vec3 position,
                               vxk_vec3 velocity, vxk_body_id* out);

#endif
