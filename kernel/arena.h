// arena.h: a per-step bump allocator. The step context hands one to its stages for what lives
// one step (the neighbourhood of the written chunks today; pair lists, islands and solver rows
// later): allocation is a pointer bump, nothing is freed one by one, and vxk_arena_reset at the
// start of the next step keeps one block as large as the last step needed, so a steady
// simulation stops allocating after its first steps.
#ifndef VXK_ARENA_H
#define VXK_ARENA_H

#include "core.h"

typedef struct vxk_arena_block vxk_arena_block;

typedef struct vxk_arena {
    vxk_arena_block* head; // the block being filled; older blocks follow through their links
    size_t used;           // bytes of head in use
    size_t peak;           // most bytes in use since the last reset (all blocks)
    size_t total;          // bytes in use (all blocks)
    size_t held;           // bytes the blocks hold from the allocator
} vxk_arena;

void vxk_arena_init(vxk_arena* arena);
// Releases every block.
void vxk_arena_destroy(vxk_arena* arena);
// 16-byte aligned memory for bytes (> 0), valid until the next reset; NULL when out of memory
// (the arena is unchanged). Not thread-safe: the step allocates from its own thread.
void* vxk_arena_alloc(vxk_arena* arena, size_t bytes);
// Forgets every allocation. Keeps one block of at least the peak use since the last reset
// (merging the blocks into one when there were several; on out of memory it keeps the largest).
void vxk_arena_reset(vxk_arena* arena);

#endif
