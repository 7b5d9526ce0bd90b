// toi.h: time of impact of a moving convex piece of a body (a sphere or a box of its shape)
// against a static convex obstacle (a sphere, an oriented box, or a terrain face: an axis-aligned
// rectangle) over one step, for the continuous collision of fast bodies. World-free and
// allocation-free; every function is pure and thread-safe.
//
// Motion (vxk_sweep). A body moves over the step from pose (p0, q0) to (p1, q1), t in [0, 1]: its
// centre of mass along the segment p(t) = p0 + t (p1 - p0), its rotation by normalized linear
// interpolation q(t) = ((1 - t) q0 + t q1) / |...| with q1 taken on q0's hemisphere. That is a
// rotation about one fixed world axis (the axis of q1 q0^-1) whose rate never exceeds
// 4 tan(angle / 4) radians per unit t, the angle being that of q1 q0^-1 (its rate peaks at t = 1/2;
// for small angles the bound is the angle itself). So a point at distance r from the centre moves
// along a unit direction n at most |n . (p1 - p0)| + 4 tan(angle / 4) |n x axis| r per unit t.
//
// Method: conservative advancement (Mirtich 1996) on an exact separation. At time t the separation
// of the piece and the obstacle and a unit axis n realizing it are computed in closed form; along
// n the whole obstacle lies on one side of a plane and the whole piece at least that separation
// beyond it. Nothing on the piece can close that gap faster than the motion bound along n, so t
// advances by (separation - target) / bound and no contact closer than target is skipped. It
// stops when the separation is within [target, target + tolerance] (a hit), or when the bound says
// the gap can no longer close before t_max (no hit). The separation is exact for disjoint shapes:
// sphere pairs by closest points; box pairs by the maximum of the 15 separating axes (face normals
// and edge crosses) and the directions from each box's nearest vertex to the other box, which
// covers every closest-feature pair (face, interior edge-edge, or a vertex on either side).
#ifndef VXK_TOI_H
#define VXK_TOI_H

#include "contact_geometry.h"
#include "math3.h"

// At most this many advancement steps; a sweep that needs more stops at a time where nothing
// touched yet (state VXK_TOI_STALLED: conservative, earlier than the contact).
#define VXK_TOI_MAX_ITERATIONS 64

// The motion of a body over one step (see the header comment).
typedef struct vxk_sweep {
    vxk_vec3 p0, delta; // centre at t = 0 and its motion up to t = 1
    vxk_quat q0, q1;    // rotations at t = 0 and t = 1 (q1 on q0's hemisphere)
    vxk_vec3 spin_axis; // unit world axis of q1 q0^-1 (zero without rotation)
    float spin_rate;    // bound on the angular speed per unit t: 4 tan(angle / 4), rounded up
    float spin_chord;   // 2 sin(angle / 2): how far a point at unit distance moves by rotation
} vxk_sweep;

// The sweep from (p0, q0) to (p1, q1); q0 and q1 unit within float rounding.
void vxk_sweep_init(vxk_sweep* out, vxk_vec3 p0, vxk_quat q0, vxk_vec3 p1, vxk_quat q1);
// The pose at t: centre p0 + t delta, rotation nlerp(q0, q1, t) (unit).
vxk_transform vxk_sweep_pose(const vxk_sweep* sweep, float t);

typedef enum vxk_toi_shape {
    VXK_TOI_SPHERE = 0,
    VXK_TOI_BOX = 1,
    VXK_TOI_CUSTOM = 2, // a shape of the piece's `custom` functions
} vxk_toi_shape;

typedef struct vxk_toi_custom vxk_toi_custom;

// A convex piece of a moving body in its body frame: a sphere (centre, radius), a box (centre,
// half extents, axes those of the body), or a custom shape (centre, half and radius as its
// functions read them).
typedef struct vxk_toi_piece {
    vxk_vec3 center;
    vxk_vec3 half; // box
    float radius;  // sphere
    uint8_t shape; // vxk_toi_shape
    const vxk_toi_custom* custom;
} vxk_toi_piece;

// A static obstacle in world coordinates: a sphere (box.center, radius), an oriented box (a
// terrain face is a box of zero thickness along its normal) or a custom piece (`piece` at `pose`;
// box.center and box.axes the same pose). A face is one-sided for vxk_toi_guarded: normal points
// out of the solid, plane = normal . (any point of the face).
typedef struct vxk_toi_obstacle {
    vxk_obb box;
    float radius;
    uint8_t shape;     // vxk_toi_shape
    uint8_t one_sided; // 1: a terrain face
    vxk_vec3 normal;   // one-sided: outward unit normal
    float plane;
    vxk_toi_piece piece; // custom: about its own centre
    vxk_transform pose;  // custom: the piece's centre and rotation
} vxk_toi_obstacle;

// A shape of its own for time of impact (a shape file's, e.g. the capsule's): what vxk_toi needs
// of its pieces.
struct vxk_toi_custom {
    // The exact separation of the piece at pose and an obstacle that is a sphere, a box or a piece
    // of the same custom shape, as vxk_toi_separation (normal from the obstacle to the piece).
    float (*separation)(vxk_vec3* normal, const vxk_toi_piece* piece, vxk_transform pose,
                        const vxk_toi_obstacle* obstacle);
    // The largest distance from the body's centre of a point whose motion moves the piece's
    // surface (what rotation moves), its core sphere's radius, and the radius about its centre
    // that bounds it.
    float (*reach)(const vxk_toi_piece* piece);
    float (*core_radius)(const vxk_toi_piece* piece);
    float (*bound_radius)(const vxk_toi_piece* piece);
    // Half the extents of its world box at rotation rot.
    vxk_vec3 (*extent)(const vxk_toi_piece* piece, const vxk_mat3* rot);
};

vxk_toi_obstacle vxk_toi_sphere_obstacle(vxk_vec3 center, float radius);
vxk_toi_obstacle vxk_toi_box_obstacle(const vxk_obb* box);
// The face's rectangle, shifted by -origin (the frame a sweep is expressed in), one-sided.
vxk_toi_obstacle vxk_toi_face_obstacle(const vxk_face* face, vxk_vec3 origin);
// A piece of a static body at pose as an obstacle, shifted by -origin; *world its world box and
// *local that box in the shifted frame.
vxk_toi_obstacle vxk_toi_piece_obstacle(const vxk_toi_piece* piece, vxk_transform pose,
                                        vxk_vec3 origin, vxk_aabb* world, vxk_aabb* local);

typedef enum vxk_toi_state {
    VXK_TOI_SEPARATED = 0, // the separation stays above target up to t_max (t = t_max)
    VXK_TOI_HIT = 1,       // at t the separation is in [target, target + tolerance], or already
                           // below target + tolerance at t = 0 (then t = 0)
    VXK_TOI_STALLED = 2,   // VXK_TOI_MAX_ITERATIONS reached: above target up to t
} vxk_toi_state;

typedef struct vxk_toi_output {
    float t;
    float separation; // the last one computed (at t unless stalled)
    vxk_vec3 normal;  // its axis, from the obstacle to the piece
    uint32_t iterations;
    uint8_t state; // vxk_toi_state
    uint8_t core;  // vxk_toi_guarded: the hit is the core sphere's
} vxk_toi_output;

// The exact separation of the piece at pose and the obstacle (negative when they overlap: then
// minus a penetration depth along *normal, not necessarily the smallest for boxes), and a unit
// axis from the obstacle towards the piece along which it is realized. Cost: closed form;
// box-box about 500 flops.
float vxk_toi_separation(vxk_vec3* normal, const vxk_toi_piece* piece, vxk_transform pose,
                         const vxk_toi_obstacle* obstacle);

// The first time in [0, t_max] (t_max <= 1) at which the piece's separation from the obstacle
// reaches target, within tolerance (target >= 0, tolerance > 0), by conservative advancement.
// Never later than the first contact: while it advances the separation provably stays at least
// target. Cost: one separation per iteration, at most VXK_TOI_MAX_ITERATIONS.
void vxk_toi(vxk_toi_output* out, const vxk_sweep* sweep, const vxk_toi_piece* piece,
             const vxk_toi_obstacle* obstacle, float target, float tolerance, float t_max);

// The radius of the piece's core sphere (half its smallest extent), which vxk_toi_guarded sweeps
// when the whole piece starts within reach of an obstacle.
float vxk_toi_core_radius(const vxk_toi_piece* piece);

// The time of impact the continuous stage uses (after Box3D's bullet and mesh sweeps), so that a
// fast piece never passes through an obstacle yet slides along what it touches:
// - a one-sided face is skipped when the piece's centre starts behind its plane, or approaches the
//   plane by less than the core radius over the sweep and ends more than the core radius in
//   front (motion along the surface: no pause at the seams between faces);
// - otherwise the piece is swept (vxk_toi); a hit at t > 0 (or a stall) is the answer;
// - a hit at t = 0 (the piece starts within target + tolerance: touching) sweeps the core sphere
//   instead, shrunk to half the centre's clearance from the obstacle when that is less, with
//   target and tolerance each at most a quarter of what then separates it: its hit (t > 0) is
//   the answer (core set); a centre already on or inside the obstacle gets none.
// So a piece's centre never crosses a face it starts in front of, nor enters an obstacle it starts
// outside (touching, it closes at most half its clearance per sweep); what overlap remains is the
// solver's (speculative contacts). out->state is VXK_TOI_SEPARATED for no answer (t = t_max).
void vxk_toi_guarded(vxk_toi_output* out, const vxk_sweep* sweep, const vxk_toi_piece* piece,
                     const vxk_toi_obstacle* obstacle, float target, float tolerance, float t_max);

// Whether the piece may come within reach of the box [lo, hi] during the sweep: its centre's
// segment (with the rotation's displacement bound) passes within the piece's radius plus reach of
// the box. False means vxk_toi cannot hit an obstacle inside the box with target + tolerance <=
// reach. Cost: a slab test.
bool vxk_toi_may_reach(const vxk_sweep* sweep, const vxk_toi_piece* piece, vxk_vec3 lo, vxk_vec3 hi,
                       float reach);

#endif
