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

// One direction (normal or tangent) of a point in 8 lanes: the lever arms crossed with it
// (ra x d, rb x d), those mapped by the world inverse inertias, and the effective mass.
typedef struct vxk_wide_axis {
    float ca[3][VXK_WIDE_LANES], cb[3][VXK_WIDE_LANES];
    float ia[3][VXK_WIDE_LANES], ib[3][VXK_WIDE_LANES];
    float mass[VXK_WIDE_LANES];
} vxk_wide_axis; // 416 bytes

typedef struct vxk_wide_point {
    float ra[3][VXK_WIDE_LANES], rb[3][VXK_WIDE_LANES]; // anchors from the centres of mass
    vxk_wide_axis n, t1, t2;
    float separation[VXK_WIDE_LANES]; // at the step's start
    float normal_impulse[VXK_WIDE_LANES];
    float tangent_impulse[2][VXK_WIDE_LANES];
    float max_normal_impulse[VXK_WIDE_LANES];
    float relative_velocity[VXK_WIDE_LANES];
} vxk_wide_point; // 1632 bytes

// Eight manifolds of one colour, one per lane (no two share a dynamic body); a lane's points
// past its point count, and lanes past lane_count, are zeros on the static slot, and their
// impulses stay zero.
typedef struct vxk_wide_constraint {
    uint32_t a[VXK_WIDE_LANES], b[VXK_WIDE_LANES]; // body state slots
    uint32_t write_a, write_b; // bit per lane: the body is dynamic, its velocities are stored
    uint32_t point_count;      // the most points of any lane
    uint32_t lane_count;
    uint32_t
        has_restitution; // some point may bounce (restitution != 0, closing past the threshold)
    uint32_t point_lanes[VXK_MANIFOLD_POINTS]; // point p: bit per lane that has it
    uint32_t pad[3];
    float inv_mass_a[VXK_WIDE_LANES], inv_mass_b[VXK_WIDE_LANES];
    float normal[3][VXK_WIDE_LANES], t1[3][VXK_WIDE_LANES], t2[3][VXK_WIDE_LANES];
    float friction[VXK_WIDE_LANES], restitution[VXK_WIDE_LANES];
    float bias_rate[VXK_WIDE_LANES], mass_scale[VXK_WIDE_LANES], impulse_scale[VXK_WIDE_LANES];
    vxk_wide_point points[VXK_MANIFOLD_POINTS];
} vxk_wide_constraint;

// The per-substep parameters of the solve.
typedef struct vxk_wide_params {
    float inv_h;      // 1 / substep
    float push_speed; // the soft push's speed limit
    float restitution_threshold;
    bool use_bias; // solve (true) or relax (false)
    bool reverse;  // walk the points last to first
} vxk_wide_params;

// The kernels over one batch: warm start (apply the accumulated impulses), the soft solve or
// relax (normal points in order, then friction per point within the Coulomb cone), and one
// restitution pass. They read the lanes' bodies from states and write back the dynamic ones.
// Pure functions of their inputs; a call touches only its lanes' bodies. The _scalar twins do the
// same per-lane operations one lane at a time and give the same bits.
// Prepare: from the lanes' bodies, inverse masses, directions and anchors (ra, rb) and
// point_lanes, the points' axes (lever arms crossed with the directions, those mapped by the
// world inverse inertias inv_i[slot], effective masses; zeros where a lane has no point) and
// relative normal velocities.
void vxk_wide_prepare(vxk_wide_constraint* c, const vxk_solver_state* states,
                      const vxk_mat3* inv_i);
void vxk_wide_prepare_scalar(vxk_wide_constraint* c, const vxk_solver_state* states,
                             const vxk_mat3* inv_i);
void vxk_wide_warm_start(vxk_solver_state* states, const vxk_wide_constraint* c);
void vxk_wide_solve(vxk_solver_state* states, vxk_wide_constraint* c, const vxk_wide_params* p);
void vxk_wide_restitution(vxk_solver_state* states, vxk_wide_constraint* c,
                          const vxk_wide_params* p);
void vxk_wide_warm_start_scalar(vxk_solver_state* states, const vxk_wide_constraint* c);
void vxk_wide_solve_scalar(vxk_solver_state* states, vxk_wide_constraint* c,
                           const vxk_wide_params* p);
void vxk_wide_restitution_scalar(vxk_solver_state* states, vxk_wide_constraint* c,
                                 const vxk_wide_params* p);

#endif
