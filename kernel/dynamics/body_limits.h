// body_limits.h: the dynamics' limits (vxk/world.h, "Limits") as the body calls and the step apply
// them: lengths measured in double, so that no finite vector overflows on the way, and clamps that
// keep a vector's direction and leave a vector within its limit bit for bit unchanged.
#ifndef VXK_BODY_LIMITS_H
#define VXK_BODY_LIMITS_H

#include <vxk/world.h>

#include <math.h>
#include <stdbool.h>

static inline double vxk_v3_length_d(vxk_vec3 a)
{
    double x = a.x, y = a.y, z = a.z;
    return sqrt(x * x + y * y + z * z);
}

// Whether |a| > max (a finite): squares in double, which no float overflows.
static inline bool vxk_v3_longer(vxk_vec3 a, float max)
{
    double x = a.x, y = a.y, z = a.z, m = max;
    return x * x + y * y + z * z > m * m;
}

// A double vector scaled to length at most max; the float result's length never exceeds max, so
// a clamped velocity is accepted when it is set back.
static inline vxk_vec3 vxk_clamp_length_d(double x, double y, double z, float max)
{
    double length = sqrt(x * x + y * y + z * z);
    if (!(length > (double)max))
        return (vxk_vec3){(float)x, (float)y, (float)z};
    double scale = (double)max / length;
    vxk_vec3 r = {(float)(x * scale), (float)(y * scale), (float)(z * scale)};
    if (vxk_v3_longer(r, max)) {
        scale *= 1.0 - 1.0 / 1048576.0;
        r = (vxk_vec3){(float)(x * scale), (float)(y * scale), (float)(z * scale)};
    }
    return r;
}

// a, or a scaled to length max when longer.
static inline vxk_vec3 vxk_v3_clamp_length(vxk_vec3 a, float max)
{
    return vxk_v3_longer(a, max) ? vxk_clamp_length_d(a.x, a.y, a.z, max) : a;
}

// Whether a world position lies in the position range: p / voxel size in [-VXK_POSITION_VOXELS,
// VXK_POSITION_VOXELS] on each axis (the end of the last voxel included), computed as a ray's
// origin is (p * (1 / voxel size), float).
static inline bool vxk_position_in_range(vxk_vec3 p, float inv_voxel_size)
{
    const float q[3] = {p.x * inv_voxel_size, p.y * inv_voxel_size, p.z * inv_voxel_size};
    for (int i = 0; i < 3; ++i)
        if (!(q[i] >= -VXK_POSITION_VOXELS && q[i] <= VXK_POSITION_VOXELS))
            return false;
    return true;
}

// Whether a size (radius, half extent, voxel size) lies in [VXK_MIN_SIZE, VXK_MAX_SIZE].
static inline bool vxk_size_in_range(float size)
{
    return size >= VXK_MIN_SIZE && size <= VXK_MAX_SIZE;
}

#endif
