// ray_grid.c: the broadphase entries copied into a dense bricked array over the box of their chunk
// coordinates, with a bitmap of blocks that hold nothing for a ray, rebuilt after each broadphase
// build or update (seed 000, Roblox terrain physics: the bit broadphase, read along a ray).
//
// Mechanisms (retuned over time; the header states only the contract):
// Cells are stored in bricks of 4^3 (bricks x fastest, then z, then y; cells in a brick the same
// way), so that a DDA's steps along any axis stay within a few cache lines and pages. The busy
// bitmap has one bit per block of VXK_RAY_BLOCK^3 = 2^3 cells (same order), set when a cell with
// mask bits lies in the block or within one cell of it: a ray visits cells within one cell of the
// one it crosses, so inside a clear block it has nothing to visit and steps on without reading
// cells. A grid is built only when its box holds at most GRID_MAX_CELLS cells (32 MiB of cells; a
// 2048 x 256 x 2048-voxel world has 2^21 chunks) and at most GRID_CELLS_PER_ENTRY cells per
// entry; sparser worlds read the broadphase map. Cells, bitmap and slots are one zeroed
// allocation.
#include "ray_grid.h"

#include "core.h"

#include <vxk/broadphase.h>

#define GRID_MAX_CELLS (1u << VXK_RAY_GRID_CELL_BITS)
#define GRID_CELLS_PER_ENTRY 64u

typedef struct grid_fill {
    uint32_t count;
    int32_t lo[3], hi[3];
    uint64_t size[3], bricks[3];
    uintptr_t* cells; // NULL during the bounds pass
} grid_fill;

static void grid_visit(void* user, vxk_int3 chunk, uint8_t tag, const uint64_t* solid)
{
    grid_fill* f = (grid_fill*)user;
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    if (!f->cells) {
        ++f->count;
        for (int a = 0; a < 3; ++a) {
            f->lo[a] = VXK_MIN(f->lo[a], c[a]);
            f->hi[a] = VXK_MAX(f->hi[a], c[a]);
        }
        return;
    }
    VXK_ASSERT(tag != VXK_BROADPHASE_NONE && ((uintptr_t)solid & 3) == 0);
    uint64_t x = (uint64_t)((int64_t)c[0] - f->lo[0]);
    uint64_t y = (uint64_t)((int64_t)c[1] - f->lo[1]);
    uint64_t z = (uint64_t)((int64_t)c[2] - f->lo[2]);
    f->cells[vxk_ray_grid_index(x, y, z, f->bricks[0], f->bricks[2])] = (uintptr_t)solid | tag;
}

static void grid_free(vxk_ray_grid* grid)
{
    if (!grid)
        return;
    vxk_free((void*)grid->cells, grid->bytes - sizeof(*grid));
    vxk_free(grid, sizeof(*grid));
}

// Two passes over the broadphase map: the box of the entries, then the cells.
static vxk_ray_grid* grid_build(const vxk_world* world)
{
    grid_fill f = {
        0, {INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}, {0}, {0}, NULL};
    vxk_broadphase_for_each(world, grid_visit, &f);
    if (f.count == 0)
        return NULL;
    uint64_t cells = 1;
    for (int a = 0; a < 3; ++a) {
        f.size[a] = (uint64_t)((int64_t)f.hi[a] - f.lo[a] + 1);
        // Saturate: three spans of up to 2^29 chunks would wrap the product.
        cells = f.size[a] > GRID_MAX_CELLS ? (uint64_t)GRID_MAX_CELLS + 1 : cells * f.size[a];
    }
    if (cells > GRID_MAX_CELLS || cells > (uint64_t)f.count * GRID_CELLS_PER_ENTRY)
        return NULL;
    cells = 64; // the bricked array's cells
    for (int a = 0; a < 3; ++a) {
        f.bricks[a] = (f.size[a] + 3) / 4;
        cells *= f.bricks[a];
    }
    if (cells > GRID_MAX_CELLS)
        return NULL;
    uint64_t blocks[3], block_count = 1;
    for (int a = 0; a < 3; ++a) {
        blocks[a] = (f.size[a] + VXK_RAY_BLOCK - 1) >> VXK_RAY_BLOCK_SHIFT;
        block_count *= blocks[a];
    }
    size_t words = (size_t)((block_count + 63) / 64);
    size_t payload = (size_t)cells * sizeof(uintptr_t) + words * sizeof(uint64_t) +
                     (size_t)cells * sizeof(uint64_t);
    vxk_ray_grid* grid = (vxk_ray_grid*)vxk_alloc(sizeof(vxk_ray_grid));
    f.cells = grid ? (uintptr_t*)vxk_calloc(payload) : NULL;
    if (!f.cells) {
        vxk_free(grid, sizeof(*grid));
        return NULL;
    }
    vxk_broadphase_for_each(world, grid_visit, &f);
    uint64_t* busy = (uint64_t*)(f.cells + cells);
    grid->slots = (_Atomic uint64_t*)(busy + words); // zeroed: nothing published
    // Every cell with mask bits marks the blocks of the cells around it.
    for (uint64_t y = 0; y < f.size[1]; ++y)
        for (uint64_t z = 0; z < f.size[2]; ++z)
            for (uint64_t x = 0; x < f.size[0]; ++x) {
                uint64_t i = vxk_ray_grid_index(x, y, z, f.bricks[0], f.bricks[2]);
                if ((f.cells[i] & 3) != VXK_BROADPHASE_MASK)
                    continue;
                const uint64_t c[3] = {x, y, z};
                uint64_t lo[3], hi[3];
                for (int a = 0; a < 3; ++a) {
                    lo[a] = (c[a] > 0 ? c[a] - 1 : 0) >> VXK_RAY_BLOCK_SHIFT;
                    hi[a] = VXK_MIN(c[a] + 1, f.size[a] - 1) >> VXK_RAY_BLOCK_SHIFT;
                }
                for (uint64_t by = lo[1]; by <= hi[1]; ++by)
                    for (uint64_t bz = lo[2]; bz <= hi[2]; ++bz)
                        for (uint64_t bx = lo[0]; bx <= hi[0]; ++bx) {
                            uint64_t b = (by * blocks[2] + bz) * blocks[0] + bx;
                            busy[b >> 6] |= 1ull << (b & 63);
                        }
            }
    for (int a = 0; a < 3; ++a) {
        grid->min[a] = f.lo[a];
        grid->size[a] = (uint32_t)f.size[a];
        grid->blocks[a] = (uint32_t)blocks[a];
        grid->bricks[a] = (uint32_t)f.bricks[a];
    }
    grid->cells = f.cells;
    grid->busy = busy;
    grid->bytes = sizeof(*grid) + payload;
    return grid;
}

void vxk_ray_grid_holder_init(vxk_ray_grid_holder* holder)
{
    pthread_mutex_init(&holder->lock, NULL);
    atomic_store_explicit(&holder->generation, 0, memory_order_relaxed);
    atomic_store_explicit(&holder->grid, NULL, memory_order_relaxed);
}

void vxk_ray_grid_holder_destroy(vxk_ray_grid_holder* holder)
{
    grid_free(atomic_load(&holder->grid));
    atomic_store_explicit(&holder->grid, NULL, memory_order_relaxed);
    pthread_mutex_destroy(&holder->lock);
}

const vxk_ray_grid* vxk_ray_grid_holder_get(vxk_ray_grid_holder* holder, const vxk_world* world)
{
    uint64_t want = vxk_broadphase_generation(world) + 1;
    if (atomic_load_explicit(&holder->generation, memory_order_acquire) == want)
        return atomic_load_explicit(&holder->grid, memory_order_relaxed);
    // A new broadphase: nobody reads the old grid any more (builds and updates do not overlap
    // reads, and a reader only uses a grid whose generation it saw current).
    pthread_mutex_lock(&holder->lock);
    if (atomic_load_explicit(&holder->generation, memory_order_relaxed) != want) {
        vxk_ray_grid* old = atomic_load_explicit(&holder->grid, memory_order_relaxed);
        vxk_ray_grid* fresh = grid_build(world);
        if (fresh)
            fresh->generation = want;
        atomic_store_explicit(&holder->grid, fresh, memory_order_relaxed);
        atomic_store_explicit(&holder->generation, want, memory_order_release);
        grid_free(old);
    }
    vxk_ray_grid* grid = atomic_load_explicit(&holder->grid, memory_order_relaxed);
    pthread_mutex_unlock(&holder->lock);
    return grid;
}

size_t vxk_ray_grid_holder_bytes(vxk_ray_grid_holder* holder)
{
    const vxk_ray_grid* grid = atomic_load(&holder->grid);
    return grid ? grid->bytes : 0;
}
