// ray_grid.h: a dense, read-only view of the bit broadphase for rays (seed 000, Roblox terrain
// physics, "Bit broadphase: overlap test", read along a ray): a ray crossing chunks reads one cell
// per chunk instead of a hash lookup, and skips blocks of cells with nothing to visit.
#ifndef VXK_RAY_GRID_H
#define VXK_RAY_GRID_H

#include <vxk/world.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// log2 of the cells per axis of a busy block (see busy below); the layout is in ray_grid.c.
#define VXK_RAY_BLOCK_SHIFT 1
#define VXK_RAY_BLOCK (1u << VXK_RAY_BLOCK_SHIFT)
// A grid holds fewer than 2^VXK_RAY_GRID_CELL_BITS cells (vxk_ray_grid_slot_key packs a cell
// index into that many bits).
#define VXK_RAY_GRID_CELL_BITS 22

// The broadphase entries over the box of their chunk coordinates (min, size). Immutable once
// built, but for the slots; read the arrays through the inline functions below.
typedef struct vxk_ray_grid {
    int32_t min[3];   // chunk coordinate of cell 0
    uint32_t size[3]; // cells per axis
    // Per cell: pointer to the entry's 8 solid words (vxk_broadphase_peek) | tag in the low 2
    // bits; 0 = no entry. Bricked (vxk_ray_grid_index).
    const uintptr_t* cells;
    uint32_t bricks[3]; // bricks per axis
    // One bit per block of VXK_RAY_BLOCK^3 cells: clear when no cell within one cell of the
    // block has mask bits (vxk_ray_grid_busy).
    const uint64_t* busy;
    uint32_t blocks[3]; // blocks per axis
    // One word per cell (same index as cells), zero when built, for the grid's user to remember
    // what it found for the cell (the narrowphase cache publishes its entries there); the grid
    // never reads them. Thread-safe through their atomics.
    _Atomic uint64_t* slots;
    uint64_t generation; // 1 + the broadphase generation the grid was built for
    size_t bytes;        // the grid's allocations
} vxk_ray_grid;

// Keeps the grid of the current broadphase: builds it on first need after each broadphase build
// or update and frees the previous one.
typedef struct vxk_ray_grid_holder {
    pthread_mutex_t lock;
    _Atomic uint64_t generation; // 1 + the broadphase generation of grid (0: none yet)
    vxk_ray_grid* _Atomic grid;  // NULL: no grid for that generation
} vxk_ray_grid_holder;

// An empty holder (no grid yet).
void vxk_ray_grid_holder_init(vxk_ray_grid_holder* holder);
// Frees the grid. Nothing may read it or call into the holder any more.
void vxk_ray_grid_holder_destroy(vxk_ray_grid_holder* holder);

// The grid of the current broadphase (vxk_broadphase_generation), built on first need after each
// build or update (two passes over the broadphase map and a zeroed array of the box's cells, under
// a lock; concurrent callers wait). Whether there is a grid depends on the entries alone. NULL when
// their box is too large or too sparse for a dense array (limits: ray_grid.c), or out of memory:
// use vxk_broadphase_peek then. Valid until the next broadphase build or update (which may not run
// concurrently with rays). Thread-safe. Cost once built: a generation check, no lock.
const vxk_ray_grid* vxk_ray_grid_holder_get(vxk_ray_grid_holder* holder, const vxk_world* world);

// The bytes of the grid held now (0 when none). It reads the grid, so like the grid's readers it
// may not overlap the call of vxk_ray_grid_holder_get that replaces it (the first after a
// broadphase build or update). Cost O(1).
size_t vxk_ray_grid_holder_bytes(vxk_ray_grid_holder* holder);

// Index of cell (x, y, z) (relative to the grid's min) in the bricked cell array.
static inline uint64_t vxk_ray_grid_index(uint64_t x, uint64_t y, uint64_t z, uint64_t bricks_x,
                                          uint64_t bricks_z)
{
    uint64_t brick = ((y >> 2) * bricks_z + (z >> 2)) * bricks_x + (x >> 2);
    return brick * 64 + ((y & 3) * 4 + (z & 3)) * 4 + (x & 3);
}

// Whether the block holding cell c may have something for a ray to visit (true outside the grid):
// a ray that only crosses cells of a clear block visits nothing there. Cost: one load.
static inline bool vxk_ray_grid_busy(const vxk_ray_grid* g, const int32_t c[3])
{
    uint64_t x = (uint64_t)((int64_t)c[0] - g->min[0]);
    uint64_t y = (uint64_t)((int64_t)c[1] - g->min[1]);
    uint64_t z = (uint64_t)((int64_t)c[2] - g->min[2]);
    if (x >= g->size[0] || y >= g->size[1] || z >= g->size[2])
        return true;
    uint64_t b =
        ((y >> VXK_RAY_BLOCK_SHIFT) * g->blocks[2] + (z >> VXK_RAY_BLOCK_SHIFT)) * g->blocks[0] +
        (x >> VXK_RAY_BLOCK_SHIFT);
    return (g->busy[b >> 6] >> (b & 63)) & 1u;
}

// The index of a chunk's cell in the grid's arrays; false outside the grid.
static inline bool vxk_ray_grid_cell(const vxk_ray_grid* g, vxk_int3 chunk, uint64_t* cell)
{
    uint64_t x = (uint64_t)((int64_t)chunk.x - g->min[0]);
    uint64_t y = (uint64_t)((int64_t)chunk.y - g->min[1]);
    uint64_t z = (uint64_t)((int64_t)chunk.z - g->min[2]);
    if (x >= g->size[0] || y >= g->size[1] || z >= g->size[2])
        return false;
    *cell = vxk_ray_grid_index(x, y, z, g->bricks[0], g->bricks[2]);
    return true;
}

// vxk_broadphase_peek through the grid. Cost: a bounds check and one load.
static inline uint8_t vxk_ray_grid_peek(const vxk_ray_grid* g, vxk_int3 chunk,
                                        const uint64_t** solid)
{
    uint64_t i;
    if (!vxk_ray_grid_cell(g, chunk, &i))
        return 0;
    uintptr_t cell = g->cells[i];
    *solid = (const uint64_t*)(cell & ~(uintptr_t)3);
    return (uint8_t)(cell & 3);
}

// A nonzero word naming cell `cell` of this grid, distinct from every other cell's and from those
// of the grids of other broadphase generations: a user that publishes into the slots records it
// to tell a publication into this cell from one into another cell or an older grid.
static inline uint64_t vxk_ray_grid_slot_key(const vxk_ray_grid* g, uint64_t cell)
{
    return g->generation << VXK_RAY_GRID_CELL_BITS | cell;
}

#endif
