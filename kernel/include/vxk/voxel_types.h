// vxk/voxel_types.h: one byte per voxel of a voxel body: its geometry type (Empty, Corner, Edge,
// Face, Inside) and a 26-direction normal index, as in seed 003 (the voxel-physics article,
// sections "Voxel Data", "Normal lookup" and "Voxel types").
//
// Byte layout (the article's `struct Voxel { VoxelType type : 3; uint8_t normal_index : 5; }`):
// bits 0..2 hold the type (vxk_voxel_type), bits 3..7 the normal index: 0..25 into the table
// below, or VXK_VOXEL_NORMAL_NONE (31) for a voxel without a normal. An Empty voxel's byte is
// VXK_VOXEL_BYTE_EMPTY (type Empty, normal NONE).
//
// Rules (the article: "check how many voxels are neighbouring in all cardinal directions"; a voxel
// outside the grid counts as empty, "not solid or outside of the range"):
// - a non-solid voxel is Empty;
// - a solid voxel is typed by the number of its 6 face neighbours that are empty: 0 -> Inside,
//   1 -> Face, 2 -> Edge, 3 to 6 -> Corner (a lone voxel is a Corner). Only the count decides;
//   two opposite empty neighbours (a plate one voxel thick) make an Edge like two adjacent ones;
// - a surface voxel's normal (Corner, Edge, Face): "any empty direction gets added to the normal
//   in that direction", the sum of the unit offsets of its empty face neighbours. Each component
//   of the sum is -1, 0 or 1, so the sum is one of the 26 table entries, exactly, or zero; a zero
//   sum (opposite empty neighbours only, e.g. a lone voxel or a rod one voxel thick) is the
//   article's "some voxels can't have a lookup normal": VXK_VOXEL_NORMAL_NONE;
// - an Inside voxel gets the normal of its "closest point of exit", made exact here: along each
//   of the 26 directions d the exit is the first non-solid cell (or cell outside the grid)
//   v + n*d, n >= 1; its squared distance is n*n*|d|^2 (|d|^2 = 1, 2 or 3). The normal is the
//   direction of the smallest squared distance, ties to the lowest index (cardinals first).
//
// Normal table (the article's normal_lut, same order; index: offset):
//   cardinal  0:(1,0,0)   1:(0,1,0)   2:(0,0,1)   3:(-1,0,0)  4:(0,-1,0)  5:(0,0,-1)
//   edge      6:(1,1,0)   7:(1,0,1)   8:(0,1,1)   9:(-1,1,0) 10:(-1,0,1) 11:(0,-1,1)
//            12:(1,-1,0) 13:(1,0,-1) 14:(0,1,-1) 15:(-1,-1,0) 16:(-1,0,-1) 17:(0,-1,-1)
//   corner   18:(1,1,1)  19:(1,1,-1) 20:(1,-1,1) 21:(1,-1,-1) 22:(-1,1,1) 23:(-1,1,-1)
//            24:(-1,-1,1) 25:(-1,-1,-1)
// The offsets are in the grid's voxel axes (local space): a body rotates them.
#ifndef VXK_VOXEL_TYPES_H
#define VXK_VOXEL_TYPES_H

#include <vxk/base.h>
#include <vxk/voxel_grid.h>

#ifdef __cplusplus
extern "C" {
#endif

// The article's VoxelType, same values.
typedef enum vxk_voxel_type {
    VXK_VOXEL_EMPTY = 0,
    VXK_VOXEL_CORNER = 1,
    VXK_VOXEL_EDGE = 2,
    VXK_VOXEL_FACE = 3,
    VXK_VOXEL_INSIDE = 4,
    VXK_VOXEL_TYPE_COUNT
} vxk_voxel_type;

#define VXK_VOXEL_NORMAL_COUNT 26
#define VXK_VOXEL_NORMAL_NONE 31u
#define VXK_VOXEL_BYTE_EMPTY ((uint8_t)(VXK_VOXEL_NORMAL_NONE << 3))
// The largest grid side the functions below accept.
#define VXK_VOXEL_TYPES_MAX_SIZE 256

static inline vxk_voxel_type vxk_voxel_type_of(uint8_t voxel_byte)
{
    return (vxk_voxel_type)(voxel_byte & 7u);
}

// 0..25, or VXK_VOXEL_NORMAL_NONE.
static inline uint32_t vxk_voxel_normal_of(uint8_t voxel_byte)
{
    return (uint32_t)voxel_byte >> 3;
}

static inline uint8_t vxk_voxel_byte(vxk_voxel_type type, uint32_t normal_index)
{
    return (uint8_t)((uint32_t)type | (normal_index << 3));
}

// The table's integer offset of normal index (components -1, 0, 1); {0,0,0} for an index >= 26.
// Thread-safe, O(1).
vxk_int3 vxk_voxel_normal_offset(uint32_t normal_index);

// The table's direction of normal index as a unit vector (the offset divided by its length);
// {0,0,0} for an index >= 26 (VXK_VOXEL_NORMAL_NONE included). Thread-safe, O(1).
vxk_vec3 vxk_voxel_normal_dir(uint32_t normal_index);

// Types and normals of every voxel of grid (rules at the top of this file). out: one byte per
// voxel, size.x * size.y * size.z bytes, in the grid's index order (x + size.x * (z + size.z *
// y)). solid: 256 flags by material id, nonzero = solid (so solid[0] decides air too).
// Errors (out untouched): NULL out, grid, grid->voxels or solid -> VXK_ERR_INVALID_ARGUMENT; a
// size <= 0 or above VXK_VOXEL_TYPES_MAX_SIZE -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
// Allocates for the call: one bit per voxel (rows of 64-bit words) and, when the grid has Inside
// voxels, 4 bytes per voxel. Thread-safe for distinct out buffers. Cost: one pass over the
// voxels to build the bit rows, then the face-neighbour tests a 64-voxel word at a time and a
// table lookup per solid voxel; with Inside voxels, 26 passes along the grid's lines (O(26 N)).
vxk_status vxk_voxel_types_compute(uint8_t* out, const vxk_voxel_grid* grid,
                                   const uint8_t solid[256]);

// Brings types up to date after the voxels of grid inside the box changed (and only those):
// types must hold the bytes vxk_voxel_types_compute gave for the grid before the change; after
// the call they equal what it gives now. changed: inclusive voxel box inside the grid.
// What is recomputed: types and surface normals in changed grown by 1 on each side (clamped to
// the grid), the reach of the face-neighbour rule. An Inside normal depends on the cells along
// its 26 walks, which reach up to 256 voxels away, so the bound for it is lines, not a box: the
// Inside voxels v with v + t*d in changed (t >= 0, d one of the 26 directions) are re-walked, each
// walk stopping once it cannot beat the best exit found. When changed holds more than 1/8 of the
// grid's voxels, or those lines cover more than 1/8 of them, every Inside normal is recomputed
// instead, as vxk_voxel_types_compute does. Either way the result equals a full compute.
// Errors (types untouched): NULL types, grid, grid->voxels or solid ->
// VXK_ERR_INVALID_ARGUMENT; a size <= 0 or above VXK_VOXEL_TYPES_MAX_SIZE ->
// VXK_ERR_OUT_OF_RANGE; changed with max < min on an axis -> VXK_ERR_INVALID_ARGUMENT; changed
// not inside the grid -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY.
// Allocates for the call: the bit rows, one bit per voxel for the lines and, on the full path, 4
// bytes per voxel. Thread-safe for distinct types buffers. Cost: the bit rows of the whole grid,
// the grown box's neighbour tests, marking the 26 lines through changed's boundary cells (at most
// 256 voxels each), and per marked Inside voxel 26 walks no longer than its exit distance; or
// the full path's 26 line passes.
vxk_status vxk_voxel_types_update(uint8_t* types, const vxk_voxel_grid* grid,
                                  const uint8_t solid[256], vxk_int_box changed);

#ifdef __cplusplus
}
#endif
#endif
