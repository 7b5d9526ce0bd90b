// contact_voxel.h: contacts of voxel shapes, as seed 003 (the voxel-physics article: "Collision
// detection", "Contact generation", "Voxel types") builds them: the voxel types decide which
// pairs are tested, lookup normals choose the normals, Inside voxels push out one voxel deep;
// voxels touch as the cubes they are, of any two sizes. World-free and allocation-free per pair;
// the narrowphase (dynamics/contacts.c) calls it for voxel bodies, terrain regions, spheres and
// boxes.
//
// A voxel shape is a vxk_voxel_view: a grid of up to 256^3 voxels placed in the world by a pose.
// The view holds occupancy as bit rows, the type byte of every voxel (vxk/voxel_types.h), the
// Corner, Edge, Face and Inside voxels again as bit rows, and each solid voxel's empty face
// neighbours as a byte. Body views are made once per shape
// (vxk_voxel_view_create) and kept; terrain views are regions gathered from chunk bits with a
// one-voxel border (vxk_voxel_view_region_*), axis-aligned. Only the view's `active` voxels make
// contacts: a body's occupied voxels, a region's voxels inside its border.
//
// Voxel against voxel (vxk_collide_voxels, vxk_voxel_pairs). Voxel a of A (size s_a, centre pa,
// half h_a = s_a / 2) and voxel b of B are cubes; d = pb - pa. They are tested when the type rule
// admits them: a is a Corner, or b is a Corner, or both are Edges. (The article lets A's Corners
// test everything and A's Edges test B's Edges; that is asymmetric: B's corner on A's face would
// be missed, so the rule here is its symmetric closure. With unequal sizes a large voxel's face
// covers many small voxels, and its type says nothing about them: a large Face voxel under a small
// body's corner still pairs with the Corner; a small body lying flat on it rests on its Corners
// and Edge rims as on equal voxels, and its Face voxels, which the rule never tests against a
// Face, lie in between.) A tested pair makes one point when all of these hold:
//   - the cubes are within the margin along the 6 face axes (the extent of a cube of size s along
//     a unit u is s/2 (|r1.u| + |r2.u| + |r3.u|) over its axes r);
//   - a deep pair (one voxel Inside with a lookup normal, its exit; only a Corner pairs with an
//     Inside voxel): the other voxel overlaps the Inside one by more than the overlap tolerance
//     (1e-3 of the smaller voxel) along at least two of the Inside voxel's axes. The normal f is
//     the exit (l_a if a is Inside, -l_b if b is), the separation -s_inside ("at least one voxel
//     deep"), the point the Inside voxel's centre moved half a voxel along the exit (towards the
//     exit if a is Inside, away from it if b is). (An Inside voxel of a region with no exit
//     inside the region has no normal and follows the face rule.);
//   - a face pair (every other one): the face normal f comes first from the article's lookup
//     correction: among the exposed face directions of a (A's axes towards a's empty face
//     neighbours) and the negated exposed directions of b, the one with the largest dot product
//     with l_a - l_b (l_a, l_b the voxels' unit lookup normals in world, zero for NONE; the
//     difference counts as zero when shorter than 1e-4). Scores within 1e-5 tie; ties go to the
//     larger dot product with the article's normal (d / |d| flipped when d . (l_a - l_b) < 0;
//     coincident centres take (l_a - l_b) normalised, else the line from A's pose to B's, else
//     +y), then (within 1e-5) to the larger one with the line from A's pose to B's, then to A's
//     directions before B's, each in normal-index order. Then, as cubes, among the candidates
//     within 60 degrees of it whose face meets the other voxel (below), the one with the largest
//     separation along it is f (a separating axis: the face that is touched; ties within 1e-5
//     of s_a + s_b keep the earlier, the article's choice first); none: no point. The
//     separation along a candidate is d . f - e_a(f) - e_b(f): the face's owner o (a when f is
//     A's direction, b when it is B's) extends s_o / 2 along its own axis, the other voxel t
//     its cube extent. The face meets t when t's support region towards the face meets the face
//     in the face's plane: the part of t's cube within 1/10 of the smaller voxel of its lowest
//     point along the face's outward direction (per axis of t: all of its length when the axis
//     lies in the plane, none once its ends differ by that band along the normal, linearly in
//     between: t's whole face when level, shrinking to an edge or a vertex as it tilts, without
//     jumps), projected onto the plane, must overlap o's square face along the face's two axes
//     and along the in-plane normals of the region's edges (a 2D separating-axis test) by more
//     than the overlap tolerance where the region has width there, and may miss it by as much
//     where it has none (an edge or a vertex). So a 0.1 m voxel anywhere over a 1 m voxel's top
//     face pairs with it at its gap, and a voxel that straddles two faces pairs with both. The
//     point is on the face, at the middle of the overlap of the region's bounds along the face's
//     axes with the face (a small voxel level on a large face: the middle of its own face; a
//     region that is an edge: the middle of the edge's part over the face), moved back along f
//     by the separation when the face is B's: on A's side, and point + separation f is on B's
//     side.
// For two equal voxels of aligned grids these are the article's pairs (a voxel and the one it
// faces; the article's spheres also pair diagonal neighbours once the margin passes 0.41 of a
// voxel) with its separation (the gap), normal and point (the middle of the touching faces).
// Voxels of a turned shape rest on their cube corners and edges, not on inscribed spheres. Points
// within the margin are reported (separation up to about margin: speculative points).
//
// Manifolds. Pairs are clustered by f's identity (one of 6 + 6 face directions or 26 + 26 exit
// directions: 64 clusters); clusters whose normals are within CLUSTER_COS (0.999) of a lower
// cluster's merge into it (the lower one's normal is the manifold's); the 4 groups with the
// deepest points keep, each reduced to at most 4 points by vxk_manifold_reduce over its clusters'
// kept candidates (contact_voxel_manifold.c: each cluster keeps its deepest point and its extremes
// along 8 tangent directions, so the result does not depend on the order pairs are found in; a
// group offers the reduction its extremes along its leader's directions among all its clusters'
// kept points, then each cluster's deepest). A face-on-face contact of two aligned shapes thus gets
// one normal, the face normal, whether its pairs chose A's face or B's. Contacts whose support
// has more than 4 corners lose some, as any 4-point manifold.
//
// Feature ids hash the voxel coordinates of both voxels (plus each view's `base`, so a terrain
// voxel keeps its id when the gathered region moves), so a point keeps its id while the same
// voxels touch.
//
// Primitives (vxk_collide_voxel_sphere, vxk_collide_voxel_box): the primitive against the exposed
// faces of the voxels in its bounds, each face a unit vxk_face with the mesher's edge classes
// (vxk_collide_face_sphere / vxk_collide_face_box: interior edges never tilt a normal). A is the
// voxel shape, B the primitive. Which faces test, by the type rule's reasoning:
//   - a sphere: a face whose plane holds the projection of the centre, or holds it past convex
//     edges only (past a flat edge the neighbouring face answers with the same plane, past a
//     concave one the wall does);
//   - a box: a Face voxel's face (a flat stretch: all its edges flat or concave) when a vertex
//     projects onto it, since the extremes of a box on a flat stretch are its vertices; a face
//     with a convex edge when the box's bounds project onto it or past its convex edges (a box
//     edge may cross it between vertices);
//   - an Inside voxel: when the sphere's centre (a box's vertex) lies in it: one point with the
//     exit normal and a penetration of one voxel (B's point, pushed one voxel along the exit).
//
// Thread-safety: views are read-only in every collide call, so calls on different outputs and
// scratch run concurrently, on shared views too. Results depend only on the inputs (voxel pairs:
// bit for bit whichever shape drives a test).
#ifndef VXK_CONTACT_VOXEL_H
#define VXK_CONTACT_VOXEL_H

#include "contact_geometry.h"

#include <vxk/voxel_grid.h>
#include <vxk/voxel_types.h>

// The largest side of a view (feature ids and sort keys hold 8 bits per coordinate).
#define VXK_VOXEL_VIEW_MAX_SIZE 256
// Manifolds per collide call.
#define VXK_VOXEL_MANIFOLDS 4
// Cluster slots: 6 + 6 face directions and 26 + 26 exit directions of a voxel pair.
#define VXK_VOXEL_CLUSTERS 64

typedef struct vxk_voxel_view {
    vxk_int3 size;  // voxels per axis, 1..256 (a region: 3..256 with its borders)
    uint32_t words; // 64-bit words per row: (size.x + 63) / 64
    // Bit rows: row (y, z) starts at word (y * size.z + z) * words; voxel x is bit x & 63 of
    // word x >> 6. solid: occupancy; corner, edge, inside: the voxels typed Corner, Edge, Inside;
    // face: the voxels typed Face with exactly one empty face neighbour.
    uint64_t* solid;
    uint64_t* corner;
    uint64_t* edge;
    uint64_t* face;
    uint64_t* inside;
    uint8_t* types; // one byte per voxel (vxk/voxel_types.h), index x + size.x * (z + size.z * y)
    uint8_t* open;  // per voxel (same index): bit i set when solid voxel's face neighbour in
                    // normal-index direction i (0..5) is empty (a region: its inner voxels)
    vxk_int_box active; // the voxels that make contacts (max < min on an axis: none)
    vxk_int3 base;      // added to voxel coordinates in feature ids (a region: its world voxel min)
    float voxel_size;
    vxk_vec3 origin;    // voxel (0,0,0)'s lowest corner in the body frame
    vxk_transform pose; // the body frame in world; the caller sets it before colliding
    // A region view: cells outside the grid count as solid for Inside exits (but those past the
    // end of the int32 voxel range: empty), and the exits of its Inside voxels are walked when a
    // contact needs them (their type bytes say NONE).
    bool region;
    void* storage; // owned by a view from vxk_voxel_view_create, else NULL
    size_t storage_bytes;
} vxk_voxel_view;

// One point of a voxel pair (the rules at the top of this file), in the caller's order.
typedef struct vxk_voxel_pair {
    vxk_int3 voxel_a, voxel_b; // grid coordinates in each view
    vxk_vec3 normal;           // the article's normal (the line of centres, lookup-corrected)
    vxk_vec3 face_normal;      // f, the pair's manifold normal, from A to B
    float face_separation;     // along face_normal
    vxk_vec3 face_point;       // on A's side
    uint32_t cluster; // 0-5 A's face i, 6-11 B's face i - 6, 12-37 A's exit, 38-63 B's exit
    uint32_t feature; // the feature id its manifold point would carry
} vxk_voxel_pair;

// Up to 4 manifolds (normal from A to B, points on A's side), deepest first. voxel_a and voxel_b
// name the voxels (grid coordinates plus base) of each manifold's first point, its deepest (to
// the reduction's tolerance): a terrain material, say. A primitive has no voxel: voxel_b is zero.
typedef struct vxk_voxel_manifolds {
    uint32_t count;
    vxk_manifold manifolds[VXK_VOXEL_MANIFOLDS];
    vxk_int3 voxel_a[VXK_VOXEL_MANIFOLDS];
    vxk_int3 voxel_b[VXK_VOXEL_MANIFOLDS];
} vxk_voxel_manifolds;

// A candidate kept by a cluster (contact_voxel_manifold.c).
typedef struct vxk_voxel_candidate {
    vxk_vec3 point;
    float separation;
    uint64_t key; // unique per pair within a call; orders ties
    uint32_t feature;
    uint32_t pad;
} vxk_voxel_candidate;

typedef struct vxk_voxel_cluster {
    vxk_vec3 normal;
    vxk_vec3 tangent[4];         // the directions whose extremes are kept
    float extreme[8];            // max, min of each tangent
    vxk_voxel_candidate keep[9]; // the deepest, then the extremes
} vxk_voxel_cluster;

// Working memory of one collide call (43,024 bytes, fixed: the bound of a call's memory whatever
// the shapes): the caller keeps one per thread, or puts it on the stack. Nothing in it outlives
// the call.
typedef struct vxk_voxel_contact_scratch {
    uint64_t used; // cluster slots in use
    uint32_t slots;
    vxk_voxel_cluster clusters[VXK_VOXEL_CLUSTERS];
    vxk_manifold_point reduce[VXK_VOXEL_CLUSTERS * 9];
    uint64_t reduce_key[VXK_VOXEL_CLUSTERS * 9];
    uint32_t reduce_feature[VXK_VOXEL_CLUSTERS * 9];
} vxk_voxel_contact_scratch;
_Static_assert(sizeof(vxk_voxel_cluster) == 384, "a cluster is 384 bytes");

// Flags of vxk_collide_voxels and vxk_voxel_pairs: which shape's voxels drive each test (the
// result is the same either way, bit for bit). 0: the cheaper side, by voxel counts. ALL_PAIRS:
// no search at all, every active voxel of A against every active voxel of B through the same
// rules (the same result again; for tests and benchmarks: O(voxels of A x voxels of B)).
enum {
    VXK_VOXEL_ITERATE_A = 1,
    VXK_VOXEL_ITERATE_B = 2,
    VXK_VOXEL_ALL_PAIRS = 4,
};

// Flag of vxk_collide_voxel_sphere and vxk_collide_voxel_box. ALL_FACES: every solid voxel in the
// primitive's bounds and each of its exposed faces through the rules, none of the culls that
// stand in for the face tests' own rejections (the same result, bit for bit; for tests and
// benchmarks).
enum {
    VXK_VOXEL_ALL_FACES = 8,
};

// ---- views -----------------------------------------------------------------------------------

// Bytes of a view's bit rows and types for size (what a region's storage must hold): 0 when a
// side is outside 1..256. O(1).
size_t vxk_voxel_view_storage_bytes(vxk_int3 size);

// A body view of grid: voxel m is solid when solid[m] is nonzero; types are copied from `types`
// (vxk_voxel_types_compute of the same grid and table) or, when it is NULL, computed. The pose
// is the identity and base zero. Errors (*view untouched): NULL view, grid, grid->voxels or
// solid -> VXK_ERR_INVALID_ARGUMENT; a side outside 1..256 -> VXK_ERR_OUT_OF_RANGE; a voxel size
// not finite and positive, or an origin not finite -> VXK_ERR_NOT_FINITE; VXK_ERR_OUT_OF_MEMORY.
// An all-empty grid is a valid view that touches nothing. Allocates one block (5 bits and two
// bytes per voxel), plus the typing's own when types is NULL. Thread-safe for distinct views.
// Cost: one pass over the voxels (and a type computation).
vxk_status vxk_voxel_view_create(vxk_voxel_view* view, const vxk_voxel_grid* grid,
                                 const uint8_t solid[256], const uint8_t* types, float voxel_size,
                                 vxk_vec3 origin);

// Frees a view's storage (a created view; a region view's storage is the caller's) and zeroes it.
// NULL or a zeroed view: nothing.
void vxk_voxel_view_destroy(vxk_voxel_view* view);

// A terrain region, step 1: the world voxels [region_min, region_min + size) in storage (at
// least vxk_voxel_view_storage_bytes(size) bytes, 8-byte aligned), all empty. The outermost
// layer is the border: it types its neighbours and makes no contacts, so gather the voxels
// that may touch grown by one. A side at the end of the int32 voxel range (region_min at
// INT32_MIN, or region_min + size - 1 at INT32_MAX) has no border: past it no terrain can be, so
// its cells are empty and the voxels on that side are typed and make contacts. The pose is the
// identity, origin region_min * voxel_size, base region_min. Errors (*view untouched): NULL view
// or storage -> VXK_ERR_INVALID_ARGUMENT; a side over 256, a side without a voxel inside its
// borders (under 3 with both, 2 with one), or a region past INT32_MAX -> VXK_ERR_OUT_OF_RANGE;
// storage too small -> VXK_ERR_CAPACITY; voxel_size not finite and positive ->
// VXK_ERR_NOT_FINITE. O(storage) to clear the rows.
vxk_status vxk_voxel_view_region_begin(vxk_voxel_view* view, void* storage, size_t storage_bytes,
                                       vxk_int3 region_min, vxk_int3 size, float voxel_size);

// Step 2: ORs one terrain chunk's occupancy into the region: chunk covers world voxels
// [8 chunk, 8 chunk + 8), solid[y] holds bit x + 8 z of its slice y (vxk_terrain_chunk_bits).
// Voxels outside the region are ignored. O(64).
void vxk_voxel_view_region_add_chunk(vxk_voxel_view* view, vxk_int3 chunk, const uint64_t solid[8]);

// Step 3: types the voxels inside the border (as vxk_voxel_types: Empty..Inside by empty face
// neighbours; the Inside exits are walked when a contact needs one, with cells outside the region
// solid but past the int32 range, NONE when no exit lies inside it) and records their empty face
// neighbours, builds the Corner, Edge, Face and Inside rows and the active box.
// Errors: NULL view or a view that is not a region -> VXK_ERR_INVALID_ARGUMENT. O(voxels).
vxk_status vxk_voxel_view_region_finish(vxk_voxel_view* view);

// Steps 1 to 3 from a dense occupancy array of the region, border included (one byte per voxel,
// nonzero = solid, index x + size.x * (z + size.z * y)). Errors: those of region_begin, and
// NULL occupancy -> VXK_ERR_INVALID_ARGUMENT (*view untouched).
vxk_status vxk_voxel_view_region_dense(vxk_voxel_view* view, void* storage, size_t storage_bytes,
                                       vxk_int3 region_min, vxk_int3 size, float voxel_size,
                                       const uint8_t* occupancy);

// ---- contacts --------------------------------------------------------------------------------

// Voxel shape A against voxel shape B: up to 4 manifolds in out (the rules at the top of this
// file); returns out->count. Separating-axis early out on the active boxes (6 face axes). Invalid
// views (NULL, no storage, a pose or voxel size not finite), a NULL out or scratch, a margin that
// is NaN or infinite, or no active voxels give 0 (a negative margin counts as 0). flags:
// VXK_VOXEL_ITERATE_* (0 in the step). No allocation; scratch is the only memory written besides
// out. Cost: the rows of each shape within reach of the other's voxels, read once or twice to
// bound each side's voxels of each kind that can reach the other's (shapes whose boxes overlap
// but whose voxels do not come near stop there); then per test (A's Corners x B's solid voxels,
// A's other solid voxels x B's Corners, A's Edges x B's Edges) the driving side's candidate voxels
// within those bounds, found a 64-bit word at a time and skipped in runs of up to 8 along a row
// when the other side has none of its kind within their reach, each looking up the cells of the
// other grid within the margin of its cube along that grid's axes, read as bit rows: 27 for equal
// aligned voxels, at most 8 in a grid of larger voxels, about (s_p / s_q + 1)^3 in a grid of
// smaller ones (each test is driven by the side whose candidates times cells are fewer, so a large
// voxel drives only when the small side has many more candidates). A candidate pair costs a few
// dot products unless the cubes are within the margin along the 6 face axes and some exposed face
// of one may lie under the other (a deep pair: overlap across two axes of the Inside one).
uint32_t vxk_collide_voxels(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                            const vxk_voxel_view* a, const vxk_voxel_view* b, float margin,
                            uint32_t flags);

// The raw points of the same pairs before clustering, in an unspecified order: writes up to
// capacity of them to out (which may be NULL with capacity 0) and returns how many there are.
// Same inputs, errors and cost as vxk_collide_voxels.
uint32_t vxk_voxel_pairs(vxk_voxel_pair* out, uint32_t capacity, const vxk_voxel_view* a,
                         const vxk_voxel_view* b, float margin, uint32_t flags);

// Voxel shape A against the sphere B (centre, radius): up to 4 manifolds. Invalid views or
// arguments (a radius or centre not finite, a negative radius) give 0. flags: 0 or
// VXK_VOXEL_ALL_FACES. No allocation. Cost: the bit rows of A in the sphere's box grown by margin
// (rows beyond its reach skipped), the voxels there other than Face voxels off the lines through
// the centre's voxel and Inside voxels not holding it, each exposed face O(1) (its plane and its
// distance first, its edge classes only as the claim needs them).
uint32_t vxk_collide_voxel_sphere(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                                  const vxk_voxel_view* a, vxk_vec3 center, float radius,
                                  float margin, uint32_t flags);

// Voxel shape A against the oriented box B: up to 4 manifolds. Invalid views or a box not finite
// (or with a negative half extent) give 0. flags: 0 or VXK_VOXEL_ALL_FACES. No allocation. Cost:
// the bit rows of A in the box's bounds grown by margin, the voxels there other than Face voxels
// off the lines through the vertices' voxels and Inside voxels holding no vertex, each exposed face
// first culled by the face-box test's 6 face axes (with slack), then a box-face test (separating
// axes and clipping).
uint32_t vxk_collide_voxel_box(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                               const vxk_voxel_view* a, const vxk_obb* b, float margin,
                               uint32_t flags);

#endif
