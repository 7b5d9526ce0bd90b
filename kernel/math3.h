// math3.h: kernel-internal 3D vector, quaternion and 3x3 matrix helpers (float), all static
// inline. Quaternions are unit (x, y, z, w) with w the scalar part; matrices are stored by
// columns (c.x, c.y, c.z), so a rotation matrix's columns are the rotated unit axes.
#ifndef VXK_MATH3_H
#define VXK_MATH3_H

#include <vxk/base.h>

#include <math.h>

typedef struct vxk_mat3 {
    vxk_vec3 cx, cy, cz; // columns
} vxk_mat3;

static inline vxk_vec3 vxk_v3(float x, float y, float z)
{
    return (vxk_vec3){x, y, z};
}
static inline vxk_vec3 vxk_v3_add(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline vxk_vec3 vxk_v3_sub(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline vxk_vec3 vxk_v3_scale(vxk_vec3 a, float s)
{
    return (vxk_vec3){a.x * s, a.y * s, a.z * s};
}
// a + s * b
static inline vxk_vec3 vxk_v3_mul_add(vxk_vec3 a, float s, vxk_vec3 b)
{
    return (vxk_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}
static inline vxk_vec3 vxk_v3_neg(vxk_vec3 a)
{
    return (vxk_vec3){-a.x, -a.y, -a.z};
}
static inline vxk_vec3 vxk_v3_mul(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.x * b.x, a.y * b.y, a.z * b.z};
}
static inline float vxk_v3_dot(vxk_vec3 a, vxk_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline vxk_vec3 vxk_v3_cross(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline float vxk_v3_length_sq(vxk_vec3 a)
{
    return vxk_v3_dot(a, a);
}
static inline float vxk_v3_length(vxk_vec3 a)
{
    return sqrtf(vxk_v3_dot(a, a));
}
static inline vxk_vec3 vxk_v3_min(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)};
}
static inline vxk_vec3 vxk_v3_max(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)};
}
static inline vxk_vec3 vxk_v3_abs(vxk_vec3 a)
{
    return (vxk_vec3){fabsf(a.x), fabsf(a.y), fabsf(a.z)};
}
// a / |a|, or the zero vector when |a| is below 1e-20 (no NaN).
static inline vxk_vec3 vxk_v3_normalize(vxk_vec3 a)
{
    float l2 = vxk_v3_dot(a, a);
    if (!(l2 > 1e-20f))
        return (vxk_vec3){0, 0, 0};
    return vxk_v3_scale(a, 1.0f / sqrtf(l2));
}
// Component i (0 x, 1 y, 2 z).
static inline float vxk_v3_get(vxk_vec3 a, uint32_t i)
{
    return i == 0 ? a.x : i == 1 ? a.y : a.z;
}
static inline void vxk_v3_set(vxk_vec3* a, uint32_t i, float value)
{
    if (i == 0)
        a->x = value;
    else if (i == 1)
        a->y = value;
    else
        a->z = value;
}

// ---- quaternions -----------------------------------------------------------------------------

static inline vxk_quat vxk_quat_identity(void)
{
    return (vxk_quat){0, 0, 0, 1};
}
static inline vxk_quat vxk_quat_mul(vxk_quat a, vxk_quat b)
{
    return (vxk_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static inline vxk_quat vxk_quat_conj(vxk_quat q)
{
    return (vxk_quat){-q.x, -q.y, -q.z, q.w};
}
static inline float vxk_quat_length_sq(vxk_quat q)
{
    return q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
}
static inline vxk_quat vxk_quat_normalize(vxk_quat q)
{
    float l2 = vxk_quat_length_sq(q);
    if (!(l2 > 1e-30f))
        return vxk_quat_identity();
    float s = 1.0f / sqrtf(l2);
    return (vxk_quat){q.x * s, q.y * s, q.z * s, q.w * s};
}
// q v q*: v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z).
static inline vxk_vec3 vxk_quat_rotate(vxk_quat q, vxk_vec3 v)
{
    vxk_vec3 u = {q.x, q.y, q.z};
    vxk_vec3 t = vxk_v3_scale(vxk_v3_cross(u, v), 2.0f);
    return vxk_v3_add(vxk_v3_mul_add(v, q.w, t), vxk_v3_cross(u, t));
}
static inline vxk_vec3 vxk_quat_inv_rotate(vxk_quat q, vxk_vec3 v)
{
    return vxk_quat_rotate(vxk_quat_conj(q), v);
}
// The rotation of angle |axis| about axis (radians), unit.
static inline vxk_quat vxk_quat_from_axis_angle(vxk_vec3 axis, float angle)
{
    vxk_vec3 n = vxk_v3_normalize(axis);
    float s = sinf(0.5f * angle), c = cosf(0.5f * angle);
    return (vxk_quat){n.x * s, n.y * s, n.z * s, c};
}
// q advanced by angular velocity w over h: q + 0.5 h (w, 0) q, normalized (the first-order
// update; exact to O(h^2 |w|^2) per step, and unit).
static inline vxk_quat vxk_quat_integrate(vxk_quat q, vxk_vec3 w, float h)
{
    vxk_quat dq = vxk_quat_mul((vxk_quat){w.x, w.y, w.z, 0.0f}, q);
    float k = 0.5f * h;
    return vxk_quat_normalize(
        (vxk_quat){q.x + k * dq.x, q.y + k * dq.y, q.z + k * dq.z, q.w + k * dq.w});
}

// ---- 3x3 matrices ----------------------------------------------------------------------------

static inline vxk_mat3 vxk_mat3_from_quat(vxk_quat q)
{
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    vxk_mat3 m;
    m.cx = (vxk_vec3){1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy)};
    m.cy = (vxk_vec3){2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx)};
    m.cz = (vxk_vec3){2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy)};
    return m;
}
// m v
static inline vxk_vec3 vxk_mat3_mul_v(const vxk_mat3* m, vxk_vec3 v)
{
    return vxk_v3_add(vxk_v3_add(vxk_v3_scale(m->cx, v.x), vxk_v3_scale(m->cy, v.y)),
                      vxk_v3_scale(m->cz, v.z));
}
// m^T v
static inline vxk_vec3 vxk_mat3_tmul_v(const vxk_mat3* m, vxk_vec3 v)
{
    return (vxk_vec3){vxk_v3_dot(m->cx, v), vxk_v3_dot(m->cy, v), vxk_v3_dot(m->cz, v)};
}
// Column i.
static inline vxk_vec3 vxk_mat3_col(const vxk_mat3* m, uint32_t i)
{
    return i == 0 ? m->cx : i == 1 ? m->cy : m->cz;
}
// a b
static inline vxk_mat3 vxk_mat3_mul(const vxk_mat3* a, const vxk_mat3* b)
{
    return (vxk_mat3){vxk_mat3_mul_v(a, b->cx), vxk_mat3_mul_v(a, b->cy), vxk_mat3_mul_v(a, b->cz)};
}
static inline vxk_mat3 vxk_mat3_transpose(const vxk_mat3* m)
{
    return (vxk_mat3){
        {m->cx.x, m->cy.x, m->cz.x}, {m->cx.y, m->cy.y, m->cz.y}, {m->cx.z, m->cy.z, m->cz.z}};
}
// r diag(d) r^T: a body-frame diagonal tensor in world axes.
static inline vxk_mat3 vxk_mat3_rotate_diag(const vxk_mat3* r, vxk_vec3 d)
{
    vxk_mat3 rd = {vxk_v3_scale(r->cx, d.x), vxk_v3_scale(r->cy, d.y), vxk_v3_scale(r->cz, d.z)};
    vxk_mat3 rt = vxk_mat3_transpose(r);
    return vxk_mat3_mul(&rd, &rt);
}

// An oriented box: centre, rotation (columns = the box's axes in world) and half extents.
typedef struct vxk_obb {
    vxk_vec3 center;
    vxk_mat3 axes;
    vxk_vec3 half;
} vxk_obb;

#endif
