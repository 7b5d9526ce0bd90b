// arena.c: the per-step bump allocator (arena.h): a chain of blocks, the newest first.
#include "arena.h"

#define ARENA_ALIGN 16
#define ARENA_MIN_BLOCK ((size_t)64 << 10)

struct vxk_arena_block {
    vxk_arena_block* next;
    size_t size;   // payload bytes after the header
    size_t pad[2]; // keeps the payload 16-byte aligned
};
_Static_assert(sizeof(vxk_arena_block) % ARENA_ALIGN == 0, "arena payload stays aligned");

static inline uint8_t* block_data(vxk_arena_block* block)
{
    return (uint8_t*)(block + 1);
}

void vxk_arena_init(vxk_arena* arena)
{
    memset(arena, 0, sizeof(*arena));
}

static void free_chain(vxk_arena_block* block)
{
    while (block) {
        vxk_arena_block* next = block->next;
        vxk_free(block, sizeof(*block) + block->size);
        block = next;
    }
}

void vxk_arena_destroy(vxk_arena* arena)
{
    free_chain(arena->head);
    vxk_arena_init(arena);
}

void* vxk_arena_alloc(vxk_arena* arena, size_t bytes)
{
    if (bytes == 0 || bytes > SIZE_MAX / 2)
        return NULL;
    size_t rounded = (bytes + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    vxk_arena_block* head = arena->head;
    if (!head || head->size - arena->used < rounded) {
        size_t size = VXK_MAX(rounded, ARENA_MIN_BLOCK);
        if (head)
            size = VXK_MAX(size, head->size * 2);
        vxk_arena_block* block = (vxk_arena_block*)vxk_alloc(sizeof(*block) + size);
        if (!block)
            return NULL;
        block->next = head;
        block->size = size;
        block->pad[0] = block->pad[1] = 0;
        arena->head = block;
        arena->held += sizeof(*block) + size;
        arena->used = 0;
        head = block;
    }
    void* p = block_data(head) + arena->used;
    arena->used += rounded;
    arena->total += rounded;
    arena->peak = VXK_MAX(arena->peak, arena->total);
    return p;
}

void vxk_arena_reset(vxk_arena* arena)
{
    vxk_arena_block* head = arena->head;
    if (head && head->next) {
        // Several blocks: one block of the peak use replaces them (the largest stays on failure).
        vxk_arena_block* merged = (vxk_arena_block*)vxk_alloc(sizeof(*merged) + arena->peak);
        if (merged) {
            free_chain(head);
            merged->next = NULL;
            merged->size = arena->peak;
            merged->pad[0] = merged->pad[1] = 0;
            arena->head = merged;
            arena->held = sizeof(*merged) + arena->peak;
        } else {
            free_chain(head->next);
            head->next = NULL;
            arena->held = sizeof(*head) + head->size;
        }
    }
    arena->used = 0;
    arena->total = 0;
    arena->peak = 0;
}
