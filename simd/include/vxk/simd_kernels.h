// vxk/simd_kernels.h: the first SIMD kernels of vxk, each a SIMD version and a scalar twin
// (suffix _scalar) that give bit-identical results: bit-row operations for the bit broadphase
// (seed 000, Roblox terrain physics), 8 rays against one box (slab test, Williams et al. 2005),
// and one ray against 8 triangles or 8 quads (Moller-Trumbore 1997; axis-aligned rectangles by a
// watertight slab test, after Woop, Benthin and Wald 2013).
//
// The twins do the same float operations in the same order (no FMA, no reciprocal estimates)
// and are compiled without auto-vectorization (VXK_SCALAR_TWIN), so they also serve as the
// honest baseline of perf/bench_simd.c. Every function here is pure and thread-safe.
#ifndef VXK_SIMD_KERNELS_H
#define VXK_SIMD_KERNELS_H

#include <assert.h> // static_assert, in C as in C++
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- bit rows --------------------------------------------------------------------------------
// Arrays of n uint64_t rows, each row independent (no bit moves from one element to another).
// Pointers may be NULL only when n == 0. dst may be the same array as an input (in place) but
// must not overlap one partially. Cost: n/4 vector operations plus at most 3 scalar ones.

// dst[i] = a[i] | b[i]
void vxk_bits_or(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
// dst[i] = a[i] & b[i]
void vxk_bits_and(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
// dst[i] = a[i] & ~b[i]
void vxk_bits_andnot(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
// dst[i] = a[i] ^ b[i]
void vxk_bits_xor(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
// dst[i] = src[i] << shift; a shift > 63 gives zeros.
void vxk_bits_shl(uint64_t* dst, const uint64_t* src, size_t n, uint32_t shift);
// dst[i] = src[i] >> shift (logical); a shift > 63 gives zeros.
void vxk_bits_shr(uint64_t* dst, const uint64_t* src, size_t n, uint32_t shift);
// The 3-tap dilation: dst[i] = src[i] | (src[i] << 1) | (src[i] >> 1).
void vxk_bits_dilate3(uint64_t* dst, const uint64_t* src, size_t n);
// True when any bit of a[0..n) is set. Stops early at the first nonzero block of 16 rows.
bool vxk_bits_any(const uint64_t* a, size_t n);

void vxk_bits_or_scalar(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
void vxk_bits_and_scalar(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
void vxk_bits_andnot_scalar(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
void vxk_bits_xor_scalar(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n);
void vxk_bits_shl_scalar(uint64_t* dst, const uint64_t* src, size_t n, uint32_t shift);
void vxk_bits_shr_scalar(uint64_t* dst, const uint64_t* src, size_t n, uint32_t shift);
void vxk_bits_dilate3_scalar(uint64_t* dst, const uint64_t* src, size_t n);
bool vxk_bits_any_scalar(const uint64_t* a, size_t n);

// ---- 8 rays against one box ------------------------------------------------------------------

// 8 rays in SoA form: lane i is ray i. inv_d = 1/d per component (vxk_ray8_set computes it; a
// zero component, of either sign, gives an infinity of that sign). A ray covers t in
// [tmin, tmax]. 256 bytes.
typedef struct vxk_ray8 {
    float ox[8], oy[8], oz[8];
    float inv_dx[8], inv_dy[8], inv_dz[8];
    float tmin[8], tmax[8];
} vxk_ray8;
static_assert(sizeof(vxk_ray8) == 256, "vxk_ray8 is 8 lanes of 8 floats");

// Writes ray `lane` (0..7) of rays: origin o, direction d (inverted here with one IEEE division
// per component), interval [tmin, tmax].
void vxk_ray8_set(vxk_ray8* rays, uint32_t lane, const float o[3], const float d[3], float tmin,
                  float tmax);

// Slab test of 8 rays against the closed box [box_min, box_max] (box_min <= box_max).
// Per axis the near plane is box_max when the sign bit of inv_d is set, else box_min (so
// -0.0 counts as negative); lo = (near - o) * inv_d, hi = (far - o) * inv_d, and
// t_enter = max(lo, t_enter), t_exit = min(hi, t_exit) with the vector max/min semantics,
// which keep the running value when lo or hi is NaN. A NaN arises only as 0 * inf, for a ray
// parallel to a slab whose origin lies exactly on one of its planes; it imposes no limit. So a
// ray parallel to a slab hits when its origin is inside the slab or on its boundary and misses
// when it is strictly outside. Lane i hits when t_enter <= t_exit and t_enter < +inf (t_enter
// starting at tmin, t_exit at tmax; the second test rejects a parallel ray behind a slab, whose
// entry is +inf, when tmax is +inf), so grazing an edge or a corner hits.
// Returns the 8-bit hit mask (bit i = ray i). t_enter[i] receives the entry t of a hit (tmin for
// a ray that starts inside) and +inf for a miss. Cost: about 30 vector operations.
uint32_t vxk_ray8_aabb(const vxk_ray8* rays, const float box_min[3], const float box_max[3],
                       float t_enter[8]);
uint32_t vxk_ray8_aabb_scalar(const vxk_ray8* rays, const float box_min[3], const float box_max[3],
                              float t_enter[8]);

// ---- one ray against 8 triangles or 8 quads --------------------------------------------------

// One ray: origin o, direction d (need not be normalised), interval [tmin, tmax]. 32 bytes.
typedef struct vxk_simd_ray {
    float o[3];
    float d[3];
    float tmin, tmax;
} vxk_simd_ray;

// 8 triangles in SoA form: lane i has vertices v0, v0 + e1, v0 + e2. The same layout holds
// 8 planar quads (parallelograms, rectangles for voxel faces): v0, v0 + e1, v0 + e1 + e2,
// v0 + e2. 288 bytes.
typedef struct vxk_tri8 {
    float v0x[8], v0y[8], v0z[8];
    float e1x[8], e1y[8], e1z[8];
    float e2x[8], e2y[8], e2z[8];
} vxk_tri8;
typedef vxk_tri8 vxk_quad8;
static_assert(sizeof(vxk_tri8) == 288, "vxk_tri8 is 9 components of 8 lanes");

// Per-lane hit: the hit point is o + t*d = v0 + u*e1 + v*e2.
typedef struct vxk_hit8 {
    float t[8], u[8], v[8];
} vxk_hit8;

// Moller-Trumbore, two-sided, per lane in this order (dot(a,b) = (ax*bx + ay*by) + az*bz,
// cross(a,b) = (ay*bz - az*by, az*bx - ax*bz, ax*by - ay*bx)):
//   p = cross(d, e2); det = dot(e1, p); inv_det = 1 / det; s = o - v0;
//   u = dot(s, p) * inv_det; q = cross(s, e1); v = dot(d, q) * inv_det; t = dot(e2, q) * inv_det.
// A lane hits when det != 0 (ordered: a NaN det misses), u >= 0, v >= 0, u + v <= 1 and
// tmin <= t <= tmax; degenerate triangles (det == 0) and rays in their plane miss. Edges and
// vertices count as inside. Returns the 8-bit hit mask; hit lanes of *hit get t, u, v, missed
// lanes get t = +inf, u = v = 0. Cost: about 45 vector operations.
uint32_t vxk_ray_tri8(const vxk_simd_ray* ray, const vxk_tri8* tris, vxk_hit8* hit);
uint32_t vxk_ray_tri8_scalar(const vxk_simd_ray* ray, const vxk_tri8* tris, vxk_hit8* hit);

// ---- watertight rectangles --------------------------------------------------------------------
//
// A quad whose edges e1 and e2 each have exactly one nonzero component, on different axes, is an
// axis-aligned rectangle (a voxel face). Rectangles are tested as flat boxes: per axis a, the ray
// crosses the planes of the rectangle's two coordinates lo[a] <= hi[a] at
// t = (lo[a] - o[a]) * inv[a] and (hi[a] - o[a]) * inv[a]; t_enter is the largest of the nearer
// crossings, t_exit the smallest of the farther ones, and the ray hits when t_enter <= t_exit,
// tmin <= t_enter <= tmax (then t_enter is the crossing of the rectangle's own plane). An axis
// along which the ray does not move (inv infinite: flat) only requires lo[a] <= o[a] <= hi[a]
// and lo[a] < hi[a] (a ray parallel to the rectangle's plane misses it). Every decision compares
// crossings of axis planes, and a plane's crossing depends on its coordinate and the ray alone,
// not on the rectangle: rectangles that share an edge or a corner (coplanar or not) compute the
// same crossings for it, so a ray through the shared edge or corner is never rejected by all of
// them (Woop, Benthin and Wald 2013 make triangles watertight the same way, by edge functions
// that neighbours share). Hits report u = ((t d - (v0 - o)) . e1) / (e1 . e1) and v likewise
// with e2, clamped to [0, 1].

// A ray prepared for the rectangle kernels: inv[a] = 1 / d[a] (one IEEE division; +-inf for a
// zero component), flat bit a when inv[a] is infinite. 48 bytes.
typedef struct vxk_rect_ray {
    float o[3], d[3], inv[3];
    uint32_t flat;
    float tmin, tmax;
} vxk_rect_ray;
static_assert(sizeof(vxk_rect_ray) == 48, "vxk_rect_ray is 12 floats");

void vxk_rect_ray_set(vxk_rect_ray* ray, const float o[3], const float d[3], float tmin,
                      float tmax);

// Whether a quad with edges e1 and e2 is an axis-aligned rectangle (the lane rule above).
bool vxk_quad_is_rect(const float e1[3], const float e2[3]);
// One rectangle with extents [lo[a], hi[a]] against the ray: the rectangle test of one lane of
// the kernels below (the same operations); true on a hit, with *t = t_enter.
bool vxk_ray_rect1(const vxk_rect_ray* ray, const float lo[3], const float hi[3], float* t);
// u and v of a rectangle hit at t, as the kernels below compute them (v0, e1, e2: the quad).
void vxk_ray_rect1_uv(const vxk_rect_ray* ray, float t, const float v0[3], const float e1[3],
                      const float e2[3], float* u, float* v);

// As vxk_ray_tri8 for quads: an axis-aligned rectangle lane takes the watertight rectangle test
// above (its corners v0 and v2 = (v0 + e1) + e2 give lo and hi), any other lane Moller-Trumbore
// with the inside test 0 <= u <= 1 and 0 <= v <= 1.
uint32_t vxk_ray_quad8(const vxk_simd_ray* ray, const vxk_quad8* quads, vxk_hit8* hit);
uint32_t vxk_ray_quad8_scalar(const vxk_simd_ray* ray, const vxk_quad8* quads, vxk_hit8* hit);

// One ray against `count` (1..8) quantized quads (parallelograms) stored as 9 rows, row j at
// rows + j * stride (stride >= count: a block of 8 inside a wider leaf starts at rows + 8), lane
// i in column i: v0.x, v0.y, v0.z, v1.x, v1.y, v1.z, v3.x, v3.y, v3.z. A coordinate on axis a
// dequantizes to origin[a] + (float)q * step[a] (one multiply, one add); then v0, e1 = v1 - v0,
// e2 = v3 - v0 take vxk_ray_quad8's test. Lanes from count on miss (t = +inf, u = v = 0). Reads
// 16 bytes from each row start: rows + 8 * stride + 8 uint16 must be readable (the quantized kD
// tree pads its block for it). Cost: about 130 vector operations.
uint32_t vxk_ray_qquad8(const vxk_simd_ray* ray, const uint16_t* rows, uint32_t stride,
                        uint32_t count, const float origin[3], const float step[3], vxk_hit8* hit);
uint32_t vxk_ray_qquad8_scalar(const vxk_simd_ray* ray, const uint16_t* rows, uint32_t stride,
                               uint32_t count, const float origin[3], const float step[3],
                               vxk_hit8* hit);

// As vxk_ray_qquad8 when every one of the count quads is an axis-aligned rectangle (the caller
// knows: the quantized kD tree flags such leaves): the rectangle test alone, lo and hi per axis
// the dequantized smallest and largest of the three stored coordinates (the same values as
// vxk_ray_qquad8's v0 and v2 for a rectangle, so the same hits and t), but hits report t alone:
// u = v = 0 in every lane (a caller that wants them takes vxk_ray_rect1_uv for the hit it keeps).
// Lanes from count on miss. Reads as vxk_ray_qquad8. Cost: about 100 vector operations.
uint32_t vxk_ray_qrect8(const vxk_rect_ray* ray, const uint16_t* rows, uint32_t stride,
                        uint32_t count, const float origin[3], const float step[3], vxk_hit8* hit);
uint32_t vxk_ray_qrect8_scalar(const vxk_rect_ray* ray, const uint16_t* rows, uint32_t stride,
                               uint32_t count, const float origin[3], const float step[3],
                               vxk_hit8* hit);

// The closest hit among the lanes set in mask whose t is not NaN: the lane with the smallest t,
// the lowest such lane on ties (-0 and +0 tie). Returns -1 when there is none.
int vxk_hit8_closest(uint32_t mask, const vxk_hit8* hit);
int vxk_hit8_closest_scalar(uint32_t mask, const vxk_hit8* hit);

#ifdef __cplusplus
}
#endif
#endif
