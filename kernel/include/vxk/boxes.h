// vxk/boxes.h: greedy box decomposition of voxels into a compound of disjoint axis-aligned boxes
// (seed 004, Voxtric's box meshing), for a chunk and for any vxk_voxel_grid. Used for exact mass
// properties of voxel bodies and for export.
//
// The algorithm is the article's: voxels are visited in linear order (index x + sx*(z + sz*y));
// each solid voxel not yet in a box seeds a box of size 1 that then grows by one layer at a time
// in the order +X, +Y, +Z, repeated while any axis can still grow. A layer can be added when all
// its voxels lie inside the grid, are solid (and, per material, of the seed's material) and are
// in no box yet; an axis that failed once is not tried again (its layer only gets larger).
// The implementation tests whole layers with bit rows instead of voxel by voxel; the boxes and
// their order are exactly those of the voxel-by-voxel loop.
#ifndef VXK_BOXES_H
#define VXK_BOXES_H

#include <assert.h> // static_assert, in C as in C++
#include <vxk/base.h>
#include <vxk/voxel_grid.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_voxel_box {
    uint16_t x, y, z;                // min voxel
    uint16_t size_x, size_y, size_z; // >= 1
    uint8_t material;                // VXK_BOXES_PER_MATERIAL: the id of every voxel; else 0
    uint8_t pad[3];
} vxk_voxel_box; // 16 bytes
static_assert(sizeof(vxk_voxel_box) == 16, "vxk_voxel_box is 16 bytes");

typedef enum vxk_boxes_mode {
    VXK_BOXES_ANY_SOLID = 0,    // a box may mix solid materials
    VXK_BOXES_PER_MATERIAL = 1, // every box holds one material id
    VXK_BOXES_MODE_COUNT
} vxk_boxes_mode;

// A chunk never yields more boxes than voxels.
#define VXK_BOXES_CHUNK_MAX 512

// Boxes of one chunk. voxels: 512 ids, index x + 8*z + 64*y (the chunk payload layout).
// solid: 256 flags (nonzero = solid) or NULL for "every nonzero id is solid".
// Writes out[0..*count) in seed order. capacity >= VXK_BOXES_CHUNK_MAX never overflows.
// Errors (nothing written): NULL out/count/voxels, bad mode -> VXK_ERR_INVALID_ARGUMENT; more
// boxes than capacity -> VXK_ERR_CAPACITY. Thread-safe, allocates nothing. Cost: a 512-byte scan
// plus a few bit operations per layer test.
vxk_status vxk_boxes_chunk(vxk_voxel_box* out, uint32_t capacity, uint32_t* count,
                           const uint8_t voxels[512], const uint8_t* solid, vxk_boxes_mode mode);

// A growable box list owned by the caller; zero-initialise it, reuse it across calls (its
// storage only grows), release it with vxk_box_list_free.
typedef struct vxk_box_list {
    vxk_voxel_box* boxes;
    uint32_t count;
    uint32_t capacity;
} vxk_box_list;
void vxk_box_list_free(vxk_box_list* list);

// Boxes of a voxel grid of any size, replacing list's contents. solid as for vxk_boxes_chunk.
// Allocates a bit row per (y, z) (size_x/8 bytes rounded up to 8) for the duration of the call,
// and grows list when needed. Errors (list unchanged): NULL list/grid/voxels, sizes <= 0, bad
// mode -> VXK_ERR_INVALID_ARGUMENT; a size above 65535 -> VXK_ERR_OUT_OF_RANGE. During the run:
// more than 2^32-1 boxes -> VXK_ERR_OUT_OF_RANGE, VXK_ERR_OUT_OF_MEMORY; both leave list empty
// (count 0, storage kept). Thread-safe for distinct lists. Cost: one pass over the voxels, then
// per box its layer tests (bit words; per material also the layer's bytes).
vxk_status vxk_boxes_grid(vxk_box_list* list, const vxk_voxel_grid* grid, const uint8_t* solid,
                          vxk_boxes_mode mode);

#ifdef __cplusplus
}
#endif
#endif
