// vxk/kdtree16.h: the 16-bit quantized variant of the loose kD tree (vxk/kdtree.h): the same
// queries over uint16 coordinates and 6-byte nodes, with leaves of up to 16 quads tested 8 at a
// time.
#ifndef VXK_KDTREE16_H
#define VXK_KDTREE16_H

#include <vxk/kdtree.h>

#ifdef __cplusplus
extern "C" {
#endif

// Coordinates are stored as uint16 on a per-axis grid origin + q * step with step a power of two
// (integer voxel coordinates are exact when the chunk spans <= 65535 / 2^k voxels for k chosen as
// large as fits), nodes as 6 bytes. The tree is built by the float builder's rules (longest axis,
// mean centroid, 25% median fallback, tight planes) over the dequantized mesh, with wider leaves,
// and its split planes rounded outward to the grid, so its query results equal those of
// vxk_kdtree over vxk_kdtree16_dequantize's mesh exactly (AABB results as a set, in traversal
// order).
//   Triangles: welded uint16 vertices, 3 uint16 indices per triangle in the mesh's order; the
//   triangle indices are packed into the leaf node: up to 4 of 11 bits for 1..2048 triangles,
//   up to 3 of 14 bits for more.
//   Quads: the parallelogram corners v0, v1, v3 of every quad (v2 = v1 + (v3 - v0)) as 9 uint16 per
//   quad in leaf order ("slots"), plus the quad index of each slot; leaves are slot ranges of up
//   to VXK_KD16_QUAD_LEAF_MAX quads. No index array. A leaf of w quads from slot f keeps its
//   9 w coordinates at vertices + 9 f as 9 rows of w (v0.x of each quad, then v0.y, ... v3.z), so
//   a ray tests the leaf 8 quads at a time with an 8-lane kernel (vxk_ray_qquad8) fed by one load
//   per row; 16 bytes of padding after the slot ids keep those loads inside the block.
// Nodes, vertices and indices or slot quad indices live in one block (nodes first).

#define VXK_KD16_MAX_PRIMITIVES 16384u
#define VXK_KD16_MAX_VERTICES 65535u
// Up to 16 quads per leaf (two 8-lane tests): a terrain chunk's tree is then a few nodes deep,
// and a ray takes fewer of the traversal's hard-to-predict branches (measured against 6, 8, 12,
// 24 and 32 on world rays: docs/benchmarks.md at commit c502146).
#define VXK_KD16_QUAD_LEAF_MAX 16u

// One node, 6 bytes. info: bits 0-1 axis (3 = leaf). Branch: info bits 2-15 pair index p, the
// children are nodes 2p + 1 and 2p + 2; a, b: quantized splits[0] and splits[1]. Triangle leaf:
// in the 46-bit value L = a | b << 16 | (info >> 2) << 32, bits 0-1 hold the count (minus 1 in
// the 11-bit format) and primitive k sits at bit 2 + w k (w = 11 or 14). Quad leaf: info bits
// 2-15 count, a the first slot, b 1 when every quad of the leaf is an axis-aligned rectangle (the
// leaf then takes the rectangle kernel vxk_ray_qrect8), else 0.
typedef struct vxk_kdtree16_node {
    uint16_t a, b;
    uint16_t info;
} vxk_kdtree16_node;

typedef struct vxk_kdtree16 {
    vxk_kdtree16_node* nodes;
    uint32_t node_count;
    uint32_t depth;
    uint16_t* vertices; // 3 * vertex_count: x, y, z per vertex (quads: 3 per slot)
    uint16_t* indices;  // triangles: 3 * primitive_count; quads: NULL
    uint16_t* ids;      // quads: the quad index of each slot; triangles: NULL
    uint32_t vertex_count;
    uint32_t primitive_count;
    uint32_t corners;
    vxk_vec3 origin; // dequantized coordinate = origin + q * step (per axis)
    vxk_vec3 step;   // powers of two
    vxk_aabb bounds; // bounds of the dequantized primitives
} vxk_kdtree16;

// Quantizes the mesh and builds its tree; owns all its arrays. Errors as vxk_kdtree_build, plus
// VXK_ERR_UNSUPPORTED past VXK_KD16_MAX_PRIMITIVES primitives or (triangles only)
// VXK_KD16_MAX_VERTICES vertices.
// A quad mesh is taken as parallelograms (v0, v1, v3); its v2 is not stored. scratch:
// vxk_kdtree_build_scratch_size(mesh->primitive_count) bytes aligned to 8, or NULL. Cost
// O(n log n) plus the weld sort. Thread-safe for distinct trees.
vxk_status vxk_kdtree16_build(vxk_kdtree16* tree, const vxk_mesh* mesh, void* scratch,
                              size_t scratch_size);
void vxk_kdtree16_free(vxk_kdtree16* tree);
// Bytes of the nodes alone, and of everything the tree owns (nodes + quantized vertices + indices
// + slot quad indices and padding).
size_t vxk_kdtree16_bytes(const vxk_kdtree16* tree);
size_t vxk_kdtree16_total_bytes(const vxk_kdtree16* tree);
// Writes the dequantized mesh into *out (arrays allocated through vxk_alloc; free with
// vxk_mesh_free). Materials are NULL. Quads come out as 4 unshared vertices each, in quad order.
// Errors (*out untouched): a NULL tree, one without nodes or a NULL out ->
// VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY.
vxk_status vxk_kdtree16_dequantize(const vxk_kdtree16* tree, vxk_mesh* out);
size_t vxk_kdtree16_query_scratch_size(const vxk_kdtree16* tree);
// As the float queries (same contracts, same results on the dequantized mesh).
uint32_t vxk_kdtree16_query_aabb(const vxk_kdtree16* tree, uint32_t* out, uint32_t capacity,
                                 const vxk_aabb* box, void* scratch);
bool vxk_kdtree16_raycast(const vxk_kdtree16* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                          void* scratch);
bool vxk_kdtree16_raycast_any(const vxk_kdtree16* tree, const vxk_kdtree_ray* ray, void* scratch);
// As vxk_kdtree_raycast_framed. When origin + shift is exact in float on every axis, the leaves'
// 8-quad kernels dequantize with it (one rounding of the exact coordinate, as the frame says);
// otherwise the tree's quads are tested one by one.
bool vxk_kdtree16_raycast_framed(const vxk_kdtree16* tree, vxk_kdtree_hit* hit,
                                 const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any,
                                 void* scratch);
// Invariants of the quantized tree against its dequantized geometry, with the errors of
// vxk_kdtree_validate.
vxk_status vxk_kdtree16_validate(const vxk_kdtree16* tree);

#ifdef __cplusplus
}
#endif
#endif
