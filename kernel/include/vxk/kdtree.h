// vxk/kdtree.h: the loose kD tree of a chunk mesh (seed 000, Roblox terrain physics): two split
// planes per node, 12-byte nodes, at most two primitives per leaf, stackless AABB and ray queries
// with front-to-back early exit. Primitives are triangles or planar quads (parallelograms); a
// 16-bit quantized variant with 6-byte nodes and wider leaves, quads stored in leaf order.
#ifndef VXK_KDTREE_H
#define VXK_KDTREE_H

#include <vxk/base.h>
#include <vxk/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

// Deepest tree the builder makes (the 25% balance rule bounds depth by log4/3(n/2) + 1, so this
// holds for any primitive count the 30-bit child index allows). Query stacks never exceed
// depth + 1 entries.
#define VXK_KD_MAX_DEPTH 96
#define VXK_KD_MAX_PRIMITIVES (1u << 28)
#define VXK_KD_LEAF 3u // the axis tag of a leaf
#define VXK_KD_NO_PRIMITIVE 0xFFFFFFFFu

// One node, 12 bytes. info: bits 0-1 axis (0 = x, 1 = y, 2 = z, 3 = leaf), bits 2-31 the index
// of the first child (branch; children at child + 0 and child + 1) or the primitive count (leaf).
// Branch: splits[0] bounds the left subtree from above (every left primitive lies at
// axis <= splits[0]), splits[1] bounds the right one from below (axis >= splits[1]).
// Leaf: primitives[0 .. count) are primitive indices of the mesh.
typedef struct vxk_kdtree_node {
    union {
        float splits[2];
        uint32_t primitives[2];
    };
    uint32_t info;
} vxk_kdtree_node;

// A tree over a mesh it does not own: the mesh arrays must stay alive and unchanged while the tree
// is used. All fields are read-only for users.
typedef struct vxk_kdtree {
    vxk_kdtree_node* nodes; // node_count nodes, root at 0 (allocated through vxk_alloc)
    uint32_t node_count;
    uint32_t depth;           // edges on the longest root-to-leaf path (0 for a lone leaf)
    vxk_aabb bounds;          // tight bounds of all primitives (empty mesh: min > max)
    const vxk_vec3* vertices; // the mesh's arrays
    const uint32_t* indices;
    uint32_t vertex_count;
    uint32_t primitive_count;
    uint32_t corners; // 3 or 4
    bool owns_nodes;  // nodes were allocated by vxk_kdtree_build (not vxk_kdtree_build_in)
} vxk_kdtree;

// A ray segment: points origin + t * dir for t in [0, tmax]. dir need not be normalised; t is in
// units of dir.
typedef struct vxk_kdtree_ray {
    vxk_vec3 origin;
    vxk_vec3 dir;
    float tmax;
} vxk_kdtree_ray;

// The closest hit: primitive is VXK_KD_NO_PRIMITIVE on a miss. (u, v) are the barycentric
// coordinates of the hit on (v1 - v0, v2 - v0) for a triangle, or the parallelogram coordinates
// on (v1 - v0, v3 - v0) for a quad.
typedef struct vxk_kdtree_hit {
    float t, u, v;
    uint32_t primitive;
} vxk_kdtree_hit;

// Bytes of builder scratch for vxk_kdtree_build over primitive_count primitives (work arrays of
// indices, centroids and bounds). Cost O(1).
size_t vxk_kdtree_build_scratch_size(uint32_t primitive_count);

// Builds the tree of a triangle (corners 3) or quad (corners 4) mesh: longest axis, split at the
// mean centroid, both planes refitted from all vertices, median split when one side would hold
// under 25%, leaves of at most 2 primitives. scratch: at least
// vxk_kdtree_build_scratch_size(mesh->primitive_count) bytes aligned to 8, or NULL to allocate it
// through vxk_alloc for the duration of the call. Validates the mesh and leaves *tree untouched on
// error: NULL tree or mesh, corners other than 3 and 4, NULL arrays with nonzero counts ->
// VXK_ERR_INVALID_ARGUMENT; more than VXK_KD_MAX_PRIMITIVES primitives or an index >=
// vertex_count -> VXK_ERR_OUT_OF_RANGE; a NaN or infinite vertex coordinate ->
// VXK_ERR_NOT_FINITE; caller scratch smaller than needed or not aligned to 8 ->
// VXK_ERR_CAPACITY; VXK_ERR_OUT_OF_MEMORY. Empty meshes give a single empty leaf. Cost O(n log n);
// thread-safe for distinct trees.
vxk_status vxk_kdtree_build(vxk_kdtree* tree, const vxk_mesh* mesh, void* scratch,
                            size_t scratch_size);

// Nodes a tree over primitive_count primitives can need: max(1, 2 * primitive_count - 1).
uint32_t vxk_kdtree_max_nodes(uint32_t primitive_count);

// As vxk_kdtree_build, but builds the nodes straight into caller memory (an arena, a chunk's own
// block): storage holds capacity >= vxk_kdtree_max_nodes(mesh->primitive_count) nodes, of which
// the first tree->node_count are used afterwards (the caller may reuse the rest). With caller
// scratch it allocates nothing. The tree does not own the nodes: vxk_kdtree_free only zeroes it,
// and storage must outlive the tree. The errors of vxk_kdtree_build, plus VXK_ERR_INVALID_ARGUMENT
// for NULL storage and VXK_ERR_CAPACITY when capacity is short; *tree untouched on error.
vxk_status vxk_kdtree_build_in(vxk_kdtree* tree, const vxk_mesh* mesh, vxk_kdtree_node* storage,
                               uint32_t capacity, void* scratch, size_t scratch_size);

// Releases the nodes (when the tree owns them) and zeroes the tree (the mesh is untouched).
// NULL-safe.
void vxk_kdtree_free(vxk_kdtree* tree);

// Bytes of the node array (the tree alone).
size_t vxk_kdtree_bytes(const vxk_kdtree* tree);

// Bytes of query scratch a query on this tree needs: (depth + 1) stack entries. Queries accept
// NULL scratch and then use a stack array of VXK_KD_MAX_DEPTH + 1 entries.
size_t vxk_kdtree_query_scratch_size(const vxk_kdtree* tree);

// Reports in out[0 .. min(count, capacity)) the indices of every primitive whose bounding box
// overlaps box (touching counts), in traversal order, and returns count (which may exceed
// capacity; nothing past capacity is written; out may be NULL when capacity is 0). A box with
// NaN or min > max yields 0. scratch: see vxk_kdtree_query_scratch_size. Thread-safe (read-only
// on the tree).
uint32_t vxk_kdtree_query_aabb(const vxk_kdtree* tree, uint32_t* out, uint32_t capacity,
                               const vxk_aabb* box, void* scratch);

// Closest hit of the ray segment; returns true on a hit and fills *hit (on a miss *hit has
// primitive VXK_KD_NO_PRIMITIVE and t = ray->tmax). Ties in t go to the lower primitive index, so
// the result equals a brute-force scan with vxk_kdtree_intersect. A ray with NaN/Inf components,
// tmax < 0 or a zero direction misses. Thread-safe.
bool vxk_kdtree_raycast(const vxk_kdtree* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                        void* scratch);

// Whether the ray segment hits any primitive (shadow ray): stops at the first hit found.
bool vxk_kdtree_raycast_any(const vxk_kdtree* tree, const vxk_kdtree_ray* ray, void* scratch);

// A frame shared by the queries of one ray against several trees whose coordinates are offsets
// from different places (the chunks of a world): the primitive tests take the ray from `origin`
// and every tree coordinate c as fl32(c + shift) (the exact sum, rounded once), while ray->origin
// (origin - shift rounded, the tree's own frame) still drives the traversal. A face shared by two
// trees then has the same coordinates in both tests, and the rectangle test's decisions on it
// agree (watertight across trees). shift: whole numbers, |shift| < 2^52.
typedef struct vxk_kdtree_frame {
    vxk_vec3 origin;
    double shift[3];
} vxk_kdtree_frame;

// vxk_kdtree_raycast (any = false) or vxk_kdtree_raycast_any (any = true) with the primitive
// tests in *frame (NULL: the ray's own, exactly vxk_kdtree_raycast). A hit in a frame reports t
// and the primitive, with u = v = 0 (a zero shift and frame->origin == ray->origin give
// vxk_kdtree_raycast's t and primitive). Returns whether the ray hits; hit may be NULL.
// Thread-safe.
bool vxk_kdtree_raycast_framed(const vxk_kdtree* tree, vxk_kdtree_hit* hit,
                               const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any,
                               void* scratch);

// Checks the tree's invariants: node indices in range, every primitive in exactly one leaf, leaf
// counts <= 2, every primitive of a left (right) subtree at or below splits[0] (at or above
// splits[1]) on the node's axis, the stored depth and bounds. VXK_OK or VXK_ERR_MALFORMED; a NULL
// tree or one without nodes -> VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY. Allocates
// primitive_count + node_count bytes. Cost O(n depth).
vxk_status vxk_kdtree_validate(const vxk_kdtree* tree);

// The primitive tests the queries use. Triangles: Moller-Trumbore. Quads, taken as the
// parallelogram v0, v1 - v0, v3 - v0 with u, v in [0, 1]: an axis-aligned rectangle (each edge
// along one axis, the two on different axes: voxel faces) takes the watertight rectangle test of
// vxk/simd_kernels.h (crossings of the axis planes of its coordinates, which rectangles sharing an
// edge or a corner share, so a ray through a shared edge or corner is never rejected by all of
// them); any other quad takes Moller-Trumbore. Returns true and fills *t, *u, *v when
// 0 <= t <= tmax. Corners are the primitive's vertices in order. Two-sided.
bool vxk_kdtree_intersect_triangle(const vxk_kdtree_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v2,
                                   float tmax, float* t, float* u, float* v);
bool vxk_kdtree_intersect_quad(const vxk_kdtree_ray* ray, vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v3,
                               float tmax, float* t, float* u, float* v);

#ifdef __cplusplus
}
#endif
#endif
