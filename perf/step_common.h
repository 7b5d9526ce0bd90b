// step_common.h: what the step benchmarks (perf/phase_step.c, perf/phase_physics.c) share:
// seeded randomness, and the Bullet peer's copy of the terrain.
#ifndef VXK_STEP_COMMON_H
#define VXK_STEP_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <vxk/base.h>
#include <vxk/world.h>

#include "peer_bullet_step.h"

// SplitMix64: the next value of the sequence *state.
uint64_t vxk_step_random(uint64_t* state);
// A double in [0, 1) from the sequence.
double vxk_step_unit_random(uint64_t* state);
// Shoemake's uniform random rotation.
vxk_quat vxk_step_random_rotation(uint64_t* state);

#ifdef VXK_HAVE_BULLET
// The world's terrain as Bullet static geometry: one btBvhTriangleMeshShape per chunk that has
// mesher quads (two triangles per quad, the Roblox article's prototype), friction sqrt(f) of the
// chunk's most common quad material (Bullet multiplies the two frictions of a pair; bodies given
// sqrt(f) too get the sqrt(f_a f_b) of ours), restitution 1 (Bullet multiplies restitutions:
// the body's own decides). Adds the triangles and meshes made to *triangles and *meshes (either
// may be NULL). Returns false when a mesh could not be made or added.
bool vxk_bullet_step_add_terrain(vxk_bullet_step_world* bw, const vxk_world* world,
                                 uint32_t* triangles, uint32_t* meshes);
#endif

#endif
