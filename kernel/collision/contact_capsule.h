// contact_capsule.h: the capsule's geometry: closest points of segments, and contact manifolds of
// a capsule (a segment swept by a radius) with a sphere, a capsule, an oriented box and a terrain
// face, in the conventions of contact_geometry.h (normal from A to B, points on A's surface,
// separation along the normal, points within margin). And the capsule's exact separation for time
// of impact (toi.h's custom pieces). World-free and allocation-free.
//
// Closest points of a segment and a box (or a face's rectangle) are exact: the squared distance of
// p(t) to the box is a piecewise quadratic in t whose pieces end where p(t) crosses one of the
// box's slab planes, so each piece's minimum is found in closed form.
#ifndef VXK_CONTACT_CAPSULE_H
#define VXK_CONTACT_CAPSULE_H

#include "contact_geometry.h"
#include "toi.h"

// A capsule in world coordinates: the segment between its cap centres, and its radius.
typedef struct vxk_capsule {
    vxk_vec3 p0, p1;
    float radius;
} vxk_capsule;

// The parameter t in [0, 1] of the point of segment [a0, a1] closest to p.
float vxk_segment_closest(vxk_vec3 a0, vxk_vec3 a1, vxk_vec3 p);
// The parameters of the closest points of segments [p0, p1] (*s) and [q0, q1] (*t), each in
// [0, 1] (for parallel segments: the start of their overlap).
void vxk_segments_closest(float* s, float* t, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 q0, vxk_vec3 q1);
// The parameter in [0, 1] of the point of segment [p0, p1] closest to the axis-aligned box
// [lo, hi] (lo <= hi; a face's rectangle has lo = hi on its axis), the first of equals; *closest
// the box's point nearest to it. Exact (see the header comment).
float vxk_segment_box_closest(vxk_vec3* closest, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 lo,
                              vxk_vec3 hi);

// All collide functions return out->point_count (0: farther apart than margin).

// Capsule A and sphere B (centre cb, radius rb). 1 point.
uint32_t vxk_collide_capsule_sphere(vxk_manifold* out, const vxk_capsule* a, vxk_vec3 cb, float rb,
                                    float margin);
// Capsule A and capsule B. Nearly parallel segments (within about 2.9 degrees) that overlap along
// A give 2 points at the ends of the overlap; otherwise 1 at the closest points.
uint32_t vxk_collide_capsules(vxk_manifold* out, const vxk_capsule* a, const vxk_capsule* b,
                              float margin);
// Box A and capsule B. Apart: the closest points of the segment and the box decide; when the
// nearest box point lies inside a face (the segment above a face), the segment clipped to that
// face's rectangle gives up to 2 points under the face normal. Overlapping: the separating-axis
// test over the box's 3 face axes and the 3 crosses of the segment with them picks the axis of
// least penetration; a face axis clips as above, an edge axis gives the closest points of the
// segment and that box edge. At most 2 points.
uint32_t vxk_collide_box_capsule(vxk_manifold* out, const vxk_obb* a, const vxk_capsule* b,
                                 float margin);
// Face A and capsule B: the segment clipped to the face's rectangle and to the half-space in front
// of it gives the cap centres of up to 2 points, each as vxk_collide_face_sphere sees a sphere of
// the capsule's radius there (edge classes and all); a segment whose projection misses the
// rectangle gives 1 point, at the segment's point closest to it. Writes up to 2 manifolds (points
// of different normals apart) and returns how many hold points.
uint32_t vxk_collide_face_capsule(vxk_manifold out[2], const vxk_face* a, const vxk_capsule* b,
                                  float margin);

// Time of impact: a capsule piece (toi.h VXK_TOI_CUSTOM: centre, half = (0, half height, 0) along
// the body's y axis, radius). Its separation from a sphere, a box or face, or another capsule
// piece is exact while apart (closest points); overlapping a box it is minus the least
// penetration of the separating-axis test above.
extern const vxk_toi_custom vxk_capsule_toi;
vxk_toi_piece vxk_capsule_piece(vxk_vec3 center, float half_height, float radius);

#endif
