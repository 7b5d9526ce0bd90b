// vxk/mass.h: mass, centre of mass and inertia tensor of a voxel body (a vxk_voxel_grid with a
// density per material id) and of the analytic primitives (box, sphere). Voxels are solid unit
// cubes: the result is exact up to double rounding, not the point-mass approximation of seed 003.
//
// Conventions shared by every function of this header:
//   - Units: lengths in metres, density in mass per cubic metre; mass = density * volume.
//   - The inertia tensor is about the centre of mass, in the body's axes, symmetric:
//     inertia[0][0] = integral of (y^2 + z^2) dm, inertia[0][1] = -integral of x*y dm, etc.
//     (the matrix with L = I * omega).
//   - Results are in double; the inputs are floats, so every result is finite (no overflow or
//     underflow to zero is possible from finite float inputs).
//   - On any status other than VXK_OK *out is untouched.
#ifndef VXK_MASS_H
#define VXK_MASS_H

#include <vxk/base.h>
#include <vxk/voxel_grid.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_mass_properties {
    double mass;          // > 0
    double center[3];     // centre of mass, metres, in the input's frame
    double inertia[3][3]; // about the centre of mass, symmetric, positive definite
} vxk_mass_properties;    // 104 bytes

// The largest grid size per axis vxk_mass_from_grid accepts.
#define VXK_MASS_GRID_MAX 256

// Mass properties of a voxel grid body. Voxel v (index as in vxk/voxel_grid.h) occupies the cube
// [v.x, v.x + 1) * voxel_size by [v.y, v.y + 1) * voxel_size by [v.z, v.z + 1) * voxel_size, so
// the centre is in the grid's frame with its origin at the corner of voxel (0, 0, 0). A voxel of
// id m != 0 has density density[m]; id 0 is air (density[0] is never read), and an id whose
// density is 0 adds nothing. The grid is split into boxes of one material (vxk_boxes_grid,
// VXK_BOXES_PER_MATERIAL); each box adds its solid-box inertia moved to the common centre of mass
// by the parallel-axis theorem, accumulated in double.
// density: 256 entries; only the ids present in the grid are checked and read.
// Errors, checked in this order (*out untouched): NULL out, grid, grid->voxels or density ->
// VXK_ERR_INVALID_ARGUMENT; voxel_size NaN or infinite -> VXK_ERR_NOT_FINITE; voxel_size <= 0 or
// a grid size <= 0 or > VXK_MASS_GRID_MAX on any axis -> VXK_ERR_OUT_OF_RANGE; the density of an
// id present in the grid NaN or infinite -> VXK_ERR_NOT_FINITE, negative ->
// VXK_ERR_OUT_OF_RANGE; zero total mass (no voxel of positive density: an empty grid or only
// zero densities) -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
// Pure and thread-safe (allocates through the hook for the duration of the call: the box list and
// vxk_boxes_grid's bit rows). Cost: two passes over the voxels plus the box decomposition, then
// O(1) per box.
vxk_status vxk_mass_from_grid(vxk_mass_properties* out, const vxk_voxel_grid* grid,
                              const float density[256], float voxel_size);

// Mass properties of a solid box of half extents h centred at the origin, axis-aligned:
// mass = 8 h.x h.y h.z density, inertia[0][0] = mass / 3 * (h.y^2 + h.z^2) and so on, centre 0.
// Errors (*out untouched): NULL out -> VXK_ERR_INVALID_ARGUMENT; a half extent or density NaN or
// infinite -> VXK_ERR_NOT_FINITE; a half extent <= 0, or density <= 0 (zero mass) ->
// VXK_ERR_OUT_OF_RANGE. Pure, thread-safe, allocates nothing. Cost O(1).
vxk_status vxk_mass_box(vxk_mass_properties* out, vxk_vec3 half_extents, float density);

// Mass properties of a solid sphere of radius r centred at the origin: mass = 4/3 pi r^3
// density, inertia = 2/5 mass r^2 on the diagonal, centre 0.
// Errors (*out untouched): NULL out -> VXK_ERR_INVALID_ARGUMENT; radius or density NaN or
// infinite -> VXK_ERR_NOT_FINITE; radius <= 0, or density <= 0 (zero mass) ->
// VXK_ERR_OUT_OF_RANGE. Pure, thread-safe, allocates nothing. Cost O(1).
vxk_status vxk_mass_sphere(vxk_mass_properties* out, float radius, float density);

// A float view for the solver: values rounded to float (a value beyond FLT_MAX becomes infinite,
// one below the float range becomes 0; the caller checks when its inputs are extreme).
typedef struct vxk_mass_float {
    float mass;
    vxk_vec3 center;
    float inertia[3][3];
} vxk_mass_float; // 52 bytes

static inline vxk_mass_float vxk_mass_to_float(const vxk_mass_properties* p)
{
    vxk_mass_float f;
    f.mass = (float)p->mass;
    f.center.x = (float)p->center[0];
    f.center.y = (float)p->center[1];
    f.center.z = (float)p->center[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            f.inertia[i][j] = (float)p->inertia[i][j];
    return f;
}

#ifdef __cplusplus
}
#endif
#endif
