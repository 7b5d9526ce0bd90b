// ray_body.h: the exact ray tests of body shapes (ray_body.c), shared with the shapes' own files
// (shape_*.c): a ray in double in the world and in a body's frame, the best hit so far, and the
// tests of the built-in shapes. Body maths runs in double from the float pose, so a body far from
// the origin keeps its hits within float rounding of the exact ones.
#ifndef VXK_RAY_BODY_H
#define VXK_RAY_BODY_H

#include <vxk/raycast.h>

#include "dynamics.h"

#define VXK_RAY_NO_BODY UINT32_MAX

// A ray in double: origin, unit direction and its reciprocals (infinite on flat axes).
typedef struct vxk_body_ray {
    double o[3], d[3], inv[3];
    double tmax; // max_distance; INFINITY for no limit
    vxk_ray_filter filter;
} vxk_body_ray;

// The best body hit so far. A hit at t is taken when t < t_best, or at t == t_best when the
// best is a body of higher index (or, before any body, when the limit itself may be hit).
typedef struct vxk_body_hit {
    double t;
    uint32_t index; // VXK_RAY_NO_BODY: none yet
    bool inclusive; // with index VXK_RAY_NO_BODY: t itself is allowed (max_distance, not terrain)
    double n[3];    // world normal
    uint8_t material;
    vxk_int3 voxel;
} vxk_body_hit;

// The body's rotation as a double matrix, column c = the body's axis c in world.
typedef struct vxk_ray_rot3 {
    double m[3][3]; // m[c][row]
} vxk_ray_rot3;

static inline bool vxk_ray_takes(const vxk_body_hit* best, double t, uint32_t index)
{
    if (t != best->t)
        return t < best->t;
    return best->index == VXK_RAY_NO_BODY ? best->inclusive : index < best->index;
}

vxk_ray_rot3 vxk_ray_rotation(vxk_quat q);
// The ray in the body's frame (origin relative to the centre of mass, direction rotated back).
vxk_body_ray vxk_ray_to_local(const vxk_body_ray* r, const vxk_body* b, const vxk_ray_rot3* rot);
// A local axis direction (sign along axis) in world.
void vxk_ray_world_axis(const vxk_ray_rot3* rot, int axis, double sign, double out[3]);
// A hit at t = 0 (the origin inside the shape): the normal faces the ray.
void vxk_ray_hit_inside(const vxk_body_ray* r, vxk_body_hit* h, uint32_t index);
// The slab test of the box [lo, hi] within limit: the entry time and the axis entered through (-1
// when the origin is inside).
bool vxk_ray_slab_box(const vxk_body_ray* r, const double lo[3], const double hi[3], double limit,
                      double* t_enter, int* axis);

// The built-in shapes' exact tests: body `index` hit by r, taken into *best when nearer.
void vxk_ray_sphere(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best);
void vxk_ray_box(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best);
// Voxel bodies by a 3D DDA over the grid in the body's frame (Amanatides & Woo 1987).
void vxk_ray_voxels(const vxk_body_ray* r, const vxk_body* b, uint32_t index, vxk_body_hit* best);

#endif
