// vxk/mesher.h: the chunk surface as greedy-merged axis-aligned quads with material and exact
// interior-edge flags (the narrowphase data of seed 000, Roblox terrain physics by zeux), built
// with 64-bit slice masks (bitmask greedy meshing), plus conversion to indexed meshes.
#ifndef VXK_MESHER_H
#define VXK_MESHER_H

#include <assert.h> // static_assert, in C as in C++
#include <vxk/base.h>
#include <vxk/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- Input -----------------------------------------------------------------------------------
//
// The mesher reads a 10x10x10 box of material ids: the chunk's 8^3 voxels plus a one-voxel
// border, index x + 10*(z + 10*y), y up; chunk voxel (x, y, z) sits at box (x+1, y+1, z+1).
// vxk_world_read_box of the box from chunk origin - 1 to chunk origin + 8 produces this layout.
// A per-material flag table solid[256] (nonzero = solid) says which ids form the surface.
#define VXK_MESHER_BOX 10
#define VXK_MESHER_BOX_VOXELS 1000

// ---- Output: quads ---------------------------------------------------------------------------
//
// A face is the unit square between a solid voxel of the chunk's interior and a non-solid voxel
// (inside the chunk or in the border); it belongs to the chunk of its solid voxel, has that
// voxel's material, and faces away from it. Faces are merged per slice, per normal (axis and
// sign) and per material into rectangles.
//
// Quad frame. For normal axis a the two in-plane axes (u, v) are:
//   a = X (0): u = Z, v = Y        a = Y (1): u = X, v = Z        a = Z (2): u = X, v = Y
// The quad covers the voxels origin + i*U + j*V, 0 <= i < width, 0 <= j < height (U, V the unit
// vectors of u and v); its plane is origin[a] + (sign ? 1 : 0) along a, in chunk voxel units.
//
// Edge flags. Each of the four edges (-u, +u, -v, +v) of a quad has one class. For a unit face
// of solid voxel p with outward normal n, and an in-plane direction t, the edge towards t is
//   CONCAVE if voxel p + t + n is solid (the surface turns towards the normal: a wall rises),
//   FLAT    else if voxel p + t is solid (the surface continues in the same plane: the
//           neighbouring face exists, whatever its material or whichever quad holds it),
//   CONVEX  otherwise (the surface turns away: p itself has a face towards t).
// These are the only three cases, and every voxel they read lies inside the 10^3 box. The mesher
// splits merging so that every unit edge along one quad edge has the same class: a quad's edge
// flag is exact, never a summary. Edges between unit faces inside one quad are FLAT.
enum {
    VXK_EDGE_FLAT = 0,
    VXK_EDGE_CONVEX = 1,
    VXK_EDGE_CONCAVE = 2,
};
// Edge slots in vxk_quad.edges: two bits each.
enum {
    VXK_EDGE_MINUS_U = 0,
    VXK_EDGE_PLUS_U = 1,
    VXK_EDGE_MINUS_V = 2,
    VXK_EDGE_PLUS_V = 3,
};

typedef struct vxk_quad {
    uint8_t x, y, z; // origin voxel in the chunk, 0..7 each
    uint8_t width;   // 1..8 along u
    uint8_t height;  // 1..8 along v
    uint8_t normal;  // bits 0-1: axis (0 X, 1 Y, 2 Z); bit 2: sign (1 = +axis)
    uint8_t material;
    uint8_t edges; // class of edge slot s in bits 2s..2s+1
} vxk_quad;        // 8 bytes
static_assert(sizeof(vxk_quad) == 8, "vxk_quad is 8 bytes");

static inline uint32_t vxk_quad_axis(vxk_quad q)
{
    return q.normal & 3u;
}
static inline bool vxk_quad_positive(vxk_quad q)
{
    return (q.normal >> 2) & 1u;
}
static inline uint32_t vxk_quad_edge(vxk_quad q, uint32_t slot)
{
    return (q.edges >> (2u * slot)) & 3u;
}

// The largest number of quads (and of unit faces) one chunk can produce: along any axis a row of
// 8 interior voxels holds at most 8 faces of that axis (9 solid/non-solid transitions would need
// 10 alternating voxels, 5 of them solid, one in the border), so 3 axes * 64 rows * 8 = 1536,
// reached by a 3D checkerboard. A buffer of this many quads (12 KiB) never overflows.
#define VXK_MESHER_MAX_QUADS 1536

// Meshes one chunk from its 10^3 box. Writes the quads to out[0..*count), ordered by normal
// (axis X, Y, Z; negative sign first), then slice, then by each quad's first voxel in the
// slice's (v, u) order: the order depends on the input alone.
// capacity: out's length; with capacity >= VXK_MESHER_MAX_QUADS the quads are written in place,
// otherwise through a 12 KiB stack buffer and copied when they fit.
// Errors (nothing written, *count untouched): NULL pointer -> VXK_ERR_INVALID_ARGUMENT; more
// quads than capacity -> VXK_ERR_CAPACITY.
// Thread-safe (no shared state), allocates nothing. Cost: ~1000 table lookups to build bit
// planes, then bit operations per slice and per quad.
vxk_status vxk_quad_mesh_chunk(vxk_quad* out, uint32_t capacity, uint32_t* count,
                               const uint8_t box[VXK_MESHER_BOX_VOXELS], const uint8_t solid[256]);

// The four corners of a quad, counter-clockwise seen from the side its normal points to:
// corner = origin + scale * (chunk-local position). Use origin = chunk voxel origin times the
// voxel size and scale = the voxel size for world space; origin 0, scale 1 for chunk voxel units.
void vxk_quad_corners(vxk_vec3 corners[4], vxk_quad quad, vxk_vec3 origin, float scale);

// Builds an indexed mesh from quads: corners = 4 (one quad primitive per quad) or 3 (two
// triangles per quad, (0,1,2) and (0,2,3) of the quad's corners). Four vertices per quad, placed
// by vxk_quad_corners; materials per primitive. The arrays are allocated through the vxk
// allocator (release with vxk_mesh_free); count 0 gives an empty mesh with NULL arrays.
// Errors (mesh untouched): NULL mesh, NULL quads with count > 0, corners not 3 or 4 ->
// VXK_ERR_INVALID_ARGUMENT; non-finite origin or scale, or scale <= 0 -> VXK_ERR_NOT_FINITE /
// VXK_ERR_OUT_OF_RANGE; count above 2^28 -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
// Thread-safe. Cost: linear in count.
vxk_status vxk_quad_to_mesh(vxk_mesh* mesh, const vxk_quad* quads, uint32_t count, uint32_t corners,
                            vxk_vec3 origin, float scale);

#ifdef __cplusplus
}
#endif
#endif
