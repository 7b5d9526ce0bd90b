// solver_wide.h: the 8-wide contact kernels of the soft step (solver_wide.c), shared by solver.c
// (which prepares, colours and packs the constraints) and tests/test_solver.c (which checks the
// SIMD kernels against their scalar twins bit for bit).
#ifndef VXK_SOLVER_WIDE_H
#define VXK_SOLVER_WIDE_H

#include "contact_geometry.h"
#include "math3.h"

#include <stddef.h>

#define VXK_WIDE_LANES 8

// What the contact kernels read and write of a body over a step, 96 bytes in three rows of 8
// floats (a lane's row is one unaligned load in the gathers' 8x8 transposes): velocities; the
// position change and the rotation since the step's start (the anchors' motion).
typedef struct vxk_solver_state {
    vxk_vec3 v, w;
    float pad0[2];
    vxk_vec3 dp; // position delta since the step's start
    vxk_mat3 dr; // rotation since the step's start
    float pad1[4];
} vxk_solver_state;
_Static_assert(sizeof(vxk_solver_state) == 96, "solver state is 96 bytes");
_Static_assert(offsetof(vxk_solver_state, dp) == 32 && offsetof(vxk_solver_state, dr) == 44,
               "velocity row, then the pose rows");

// One point of 8 manifolds (lane i: a point of lane i's manifold). The lever arms' crosses with
// the normal and their images under the inverse inertias are recomputed where they are used,
// not stored: a stored copy made the batch 4x larger, and large scenes are bound by the memory
// traffic of the batches, not by the arithmetic.
typedef struct vxk_wide_point {
    float ra[3][VXK_WIDE_LANES], rb[3][VXK_WIDE_LANES]; // anchors from the centres of mass
    float separation[VXK_WIDE_LANES];                   // at the step's start
    float normal_mass[VXK_WIDE_LANES];
    float normal_impulse[VXK_WIDE_LANES];
    float max_normal_impulse[VXK_WIDE_LANES];
    float relative_velocity[VXK_WIDE_LANES];
    float lever_arm[VXK_WIDE_LANES]; // distance from the friction centre (the twist limit)
    // The work the point's impulses did on the pair's kinetic energy over the step so far (warm
    // starts and solves; only in batches that may bounce): restitution may give back e^2 of what
    // the manifold took.
    float step_work[VXK_WIDE_LANES];
} vxk_wide_point;
_Static_assert(sizeof(vxk_wide_point) == 13 * 32, "a wide point is 13 rows of 8 floats");

// Eight manifolds of one colour, one per lane (no two share a dynamic body); a lane's points
// past its point count, and lanes past lane_count, are zeros on the scratch slot, and their
// impulses stay zero. Friction is per manifold (Box3D's): one 2D impulse at the friction centre
// (the points' centre weighted towards the touching ones) and one twist impulse about the
// normal, both clamped by the manifold's total normal impulse.
typedef struct vxk_wide_constraint {
    uint32_t a[VXK_WIDE_LANES], b[VXK_WIDE_LANES]; // body state slots
    uint32_t write_a, write_b; // bit per lane: the body is dynamic, its velocities are stored
    uint32_t point_count;      // the most points of any lane
    uint32_t lane_count;
    uint32_t
        has_restitution; // some point may bounce (restitution != 0, closing past the threshold)
    uint32_t point_lanes[VXK_MANIFOLD_POINTS]; // point p: bit per lane that has it
    uint32_t has_round; // some lane has a rounding radius (radius_a, radius_b below)
    uint32_t pad[6];
    float inv_mass_a[VXK_WIDE_LANES], inv_mass_b[VXK_WIDE_LANES];
    // World inverse inertias (symmetric: xx, xy, xz, yy, yz, zz), fixed over the step.
    float inv_i_a[6][VXK_WIDE_LANES], inv_i_b[6][VXK_WIDE_LANES];
    float normal[3][VXK_WIDE_LANES], t1[3][VXK_WIDE_LANES], t2[3][VXK_WIDE_LANES];
    float center_a[3][VXK_WIDE_LANES], center_b[3][VXK_WIDE_LANES]; // friction centre anchors
    float tangent_mass[3][VXK_WIDE_LANES];     // inverse of the 2x2 tangent mass: 11, 12, 22
    float friction_impulse[2][VXK_WIDE_LANES]; // along t1, t2
    float twist_mass[VXK_WIDE_LANES], twist_impulse[VXK_WIDE_LANES];
    float friction[VXK_WIDE_LANES], restitution[VXK_WIDE_LANES];
    float bias_rate[VXK_WIDE_LANES], mass_scale[VXK_WIDE_LANES], impulse_scale[VXK_WIDE_LANES];
    // The bodies' rounding radii (spheres and capsules; 0 for boxes, voxels and the terrain): a
    // point on a round surface does not turn with its body, so the separation update moves only
    // its core (the anchor less the radius along the normal) with the body's rotation.
    float radius_a[VXK_WIDE_LANES], radius_b[VXK_WIDE_LANES];
    float bounce_work[VXK_WIDE_LANES]; // the work of the restitution passes so far
    vxk_wide_point points[VXK_MANIFOLD_POINTS];
} vxk_wide_constraint;
_Static_assert(offsetof(vxk_wide_constraint, inv_mass_a) == 128, "header is two lines");

// The per-substep parameters of the solve.
typedef struct vxk_wide_params {
    float inv_h;      // 1 / substep
    float push_speed; // the soft push's speed limit
    float restitution_threshold;
    bool use_bias; // solve (true) or relax (false)
    bool reverse;  // walk the points last to first
} vxk_wide_params;

// The kernels over one batch: warm start (apply the accumulated impulses), the soft solve or
// relax (normal points in order; in relax, then the twist and the central friction within the
// Coulomb disc), and one restitution pass. They read the lanes' bodies from states and write
// back the dynamic ones. Pure functions of their inputs; a call touches only its lanes' bodies.
// The _scalar twins do the same per-lane operations one lane at a time and give the same bits.
// Prepare: from the lanes' bodies, inverse masses, world inverse inertias (inv_i[slot]),
// directions, anchors (ra, rb), separations and point_lanes: the inverse inertias, the points'
// normal masses and relative normal velocities, the friction centre (points weighted by
// clamp(2 - separation / speculative_distance, 1e-10, 1), so speculative points barely move it)
// with the lever arms, the tangent mass and the twist mass; zeros where a lane has no point.
void vxk_wide_prepare(vxk_wide_constraint* c, const vxk_solver_state* states, const vxk_mat3* inv_i,
                      float speculative_distance);
void vxk_wide_prepare_scalar(vxk_wide_constraint* c, const vxk_solver_state* states,
                             const vxk_mat3* inv_i, float speculative_distance);
void vxk_wide_warm_start(vxk_solver_state* states, vxk_wide_constraint* c);
void vxk_wide_solve(vxk_solver_state* states, vxk_wide_constraint* c, const vxk_wide_params* p);
void vxk_wide_restitution(vxk_solver_state* states, vxk_wide_constraint* c,
                          const vxk_wide_params* p);
void vxk_wide_warm_start_scalar(vxk_solver_state* states, vxk_wide_constraint* c);
void vxk_wide_solve_scalar(vxk_solver_state* states, vxk_wide_constraint* c,
                           const vxk_wide_params* p);
void vxk_wide_restitution_scalar(vxk_solver_state* states, vxk_wide_constraint* c,
                                 const vxk_wide_params* p);

#endif
