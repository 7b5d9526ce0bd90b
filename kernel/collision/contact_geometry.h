// contact_geometry.h: contact manifolds between the primitive shapes (spheres, oriented boxes)
// and between a primitive and one terrain face (an axis-aligned mesher quad with its edge
// classes). World-free and allocation-free: each function fills one manifold.
//
// A manifold holds up to 4 points with one unit normal from A to B (for faces: from the face
// into the primitive, the face being A). A point lies on the surface of A (the deepest point of
// A's surface towards B) and carries its separation along the normal: negative = overlap.
// Points are reported while their separation is at most `margin` (the speculative distance), so
// separated shapes within margin give speculative points. Feature ids name the pair of features
// that made a point (face/edge/vertex indices of both shapes) and are stable while the same
// features touch, so the solver can carry accumulated impulses across steps.
//
// Box feature numbering (used in feature ids): faces 0..5 = -x, +x, -y, +y, -z, +z of the box
// frame; vertices 0..7 with bit 0 = +x, bit 1 = +y, bit 2 = +z; edges 0..11 = 4 along x (index =
// the vertex bits of y and z), then 4 along y, then 4 along z.
#ifndef VXK_CONTACT_GEOMETRY_H
#define VXK_CONTACT_GEOMETRY_H

#include "math3.h"

#include <vxk/mesher.h>

#define VXK_MANIFOLD_POINTS 4

typedef struct vxk_manifold_point {
    vxk_vec3 point;   // world, on A's surface
    float separation; // along normal; negative = overlap
    uint32_t feature; // feature pair id
} vxk_manifold_point;

typedef struct vxk_manifold {
    vxk_vec3 normal; // unit, from A to B
    uint32_t point_count;
    vxk_manifold_point points[VXK_MANIFOLD_POINTS];
} vxk_manifold;

// One terrain face in world coordinates: the quad of vxk/mesher.h with its frame. min is the
// corner with the smallest coordinates (the quad's plane is min[axis]); it spans size_u along
// the frame's u axis and size_v along v (mesher.h: X -> u Z, v Y; Y -> u X, v Z; Z -> u X, v Y).
// The normal is +axis when positive, else -axis. edges: the quad's edge classes (slots -u, +u,
// -v, +v; VXK_EDGE_FLAT / CONVEX / CONCAVE).
typedef struct vxk_face {
    vxk_vec3 min;
    float size_u, size_v;
    uint8_t axis;     // 0 X, 1 Y, 2 Z
    uint8_t positive; // 1: normal +axis
    uint8_t edges;
    uint8_t material;
} vxk_face;

// The face of mesher quad q of chunk `chunk` (world = (8 * chunk + local) * voxel_size).
void vxk_face_from_quad(vxk_face* out, vxk_quad q, vxk_int3 chunk, float voxel_size);

// All functions return out->point_count (0: farther apart than margin, out->point_count = 0).

// Sphere A (centre ca, radius ra) and sphere B. Coincident centres give normal +y. 1 point.
uint32_t vxk_collide_spheres(vxk_manifold* out, vxk_vec3 ca, float ra, vxk_vec3 cb, float rb,
                             float margin);
// Box A and sphere B (centre cb, radius rb). A centre inside the box gives the normal of the
// nearest face. 1 point.
uint32_t vxk_collide_box_sphere(vxk_manifold* out, const vxk_obb* a, vxk_vec3 cb, float rb,
                                float margin);
// Box A and box B: separating-axis test over the 3 + 3 face axes and the 9 edge-edge axes, then
// reference-face clipping (Sutherland-Hodgman of the incident face against the reference face's
// side planes) for a face axis, or the closest points of the two edges for an edge axis; face
// axes win over edge axes unless an edge axis separates clearly less (a small relative
// tolerance, so resting stacks keep face contacts). At most 4 points: the clipped polygon
// reduced by vxk_manifold_reduce.
uint32_t vxk_collide_boxes(vxk_manifold* out, const vxk_obb* a, const vxk_obb* b, float margin);

// Face A and sphere B. The closest point of the face's rectangle to the centre decides: inside
// the rectangle, or on an edge (or corner) whose classes are all FLAT or CONCAVE, the normal is
// the face normal and the separation the plane distance minus the radius (an interior edge
// never tilts the normal, so a sphere rolling over seams sees a flat floor); on a CONVEX edge or
// a corner with a convex edge, the normal is from the closest point to the centre. A centre
// behind the face's plane gives no point. 1 point.
uint32_t vxk_collide_face_sphere(vxk_manifold* out, const vxk_face* a, vxk_vec3 cb, float rb,
                                 float margin);
// Face A and box B: separating-axis test over the face normal, the box's 3 face axes and the
// edge-edge axes of the face's 4 edges with the box's edges; an axis other than the face normal
// is used only when every face edge it would lean on is CONVEX (interior edges never tilt the
// normal: a box sliding across seams sees a flat floor), else the face normal. Face-normal
// contacts clip the box's incident face against the rectangle; at most 4 points (reduced).
uint32_t vxk_collide_face_box(vxk_manifold* out, const vxk_face* a, const vxk_obb* b, float margin);

// Reduces n candidate points (any n) sharing one normal to at most 4 in place: the deepest
// first, then the point farthest from it, then the one giving the largest triangle, then the
// one giving the largest quadrilateral (areas measured in the plane of the normal). Ties go to
// the lower index, so the result depends on the input order alone. Returns the count kept.
uint32_t vxk_manifold_reduce(vxk_manifold_point* points, uint32_t n, vxk_vec3 normal);

// Swaps A and B: negates the normal and moves each point along the normal by its separation
// (onto the other surface). Feature ids are kept.
void vxk_manifold_flip(vxk_manifold* m);

#endif
