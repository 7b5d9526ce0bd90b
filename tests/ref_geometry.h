// ref_geometry.h: double-precision references the contact tests share (test_contact_geometry.c,
// test_capsule.c): vectors, and the exact signed distance to an oriented box. They share no code
// with the kernel.
#ifndef VXK_REF_GEOMETRY_H
#define VXK_REF_GEOMETRY_H

#include <vxk/base.h>

#include <float.h>
#include <math.h>

#include "math3.h"

typedef struct dvec {
    double x, y, z;
} dvec;

static inline dvec dv(vxk_vec3 v)
{
    return (dvec){v.x, v.y, v.z};
}
static inline dvec d_sub(dvec a, dvec b)
{
    return (dvec){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline dvec d_add(dvec a, dvec b)
{
    return (dvec){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline dvec d_scale(dvec a, double s)
{
    return (dvec){a.x * s, a.y * s, a.z * s};
}
static inline double d_dot(dvec a, dvec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline dvec d_cross(dvec a, dvec b)
{
    return (dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double d_len(dvec a)
{
    return sqrt(d_dot(a, a));
}

// A box in double: centre, three unit axes, half extents.
typedef struct dbox {
    dvec c, ax[3];
    double h[3];
} dbox;

static inline dbox dbox_of(const vxk_obb* b)
{
    return (dbox){dv(b->center),
                  {dv(b->axes.cx), dv(b->axes.cy), dv(b->axes.cz)},
                  {b->half.x, b->half.y, b->half.z}};
}

// Exact signed distance from p to the box (negative inside).
static inline double box_sdf(const dbox* b, dvec p)
{
    dvec d = d_sub(p, b->c);
    double out2 = 0.0, inside = -DBL_MAX;
    for (int i = 0; i < 3; ++i) {
        double q = fabs(d_dot(d, b->ax[i])) - b->h[i];
        if (q > 0)
            out2 += q * q;
        if (q > inside)
            inside = q;
    }
    return out2 > 0 ? sqrt(out2) : inside;
}

#endif
