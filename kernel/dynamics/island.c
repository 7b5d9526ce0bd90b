// island.c: islands by union-find over the step's manifolds (island.h). The root of a component
// is always its smallest slot (a union keeps the smaller root), so numbering the roots in slot
// order orders the islands by their smallest body without a sort.
#include "island.h"

#include <string.h>

static uint32_t find_root(uint32_t* parent, uint32_t s)
{
    while (parent[s] != s) {
        parent[s] = parent[parent[s]]; // path halving
        s = parent[s];
    }
    return s;
}

vxk_status vxk_islands_build(vxk_islands* out, const uint8_t* dynamic, uint32_t slot_count,
                             const uint32_t* a, const uint32_t* b, uint32_t manifold_count,
                             vxk_arena* arena)
{
    memset(out, 0, sizeof(*out));
    uint32_t* parent =
        (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)slot_count + 1));
    out->island_of = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)slot_count + 1));
    out->bodies = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)slot_count + 1));
    out->manifolds =
        (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)manifold_count + 1));
    if (!parent || !out->island_of || !out->bodies || !out->manifolds)
        return VXK_ERR_OUT_OF_MEMORY;
    for (uint32_t s = 0; s < slot_count; ++s)
        parent[s] = s;
    for (uint32_t i = 0; i < manifold_count; ++i) {
        if (a[i] == VXK_ISLAND_NO_BODY || b[i] == VXK_ISLAND_NO_BODY)
            continue;
        uint32_t ra = find_root(parent, a[i]), rb = find_root(parent, b[i]);
        if (ra < rb)
            parent[rb] = ra;
        else if (rb < ra)
            parent[ra] = rb;
    }
    uint32_t count = 0;
    for (uint32_t s = 0; s < slot_count; ++s) {
        out->island_of[s] = VXK_ISLAND_NO_BODY;
        if (!dynamic[s])
            continue;
        uint32_t r = find_root(parent, s);
        // The root is the component's smallest slot, so it is met first.
        out->island_of[s] = r == s ? count++ : out->island_of[r];
    }
    out->count = count;
    out->body_start = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)count + 2));
    out->manifold_start = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)count + 2));
    if (!out->body_start || !out->manifold_start)
        return VXK_ERR_OUT_OF_MEMORY;
    memset(out->body_start, 0, sizeof(uint32_t) * ((size_t)count + 2));
    memset(out->manifold_start, 0, sizeof(uint32_t) * ((size_t)count + 2));
    // Counting sort by island: counts at [i + 2], prefix sums at [i + 1], fill moves them to [i].
    for (uint32_t s = 0; s < slot_count; ++s)
        if (out->island_of[s] != VXK_ISLAND_NO_BODY)
            out->body_start[out->island_of[s] + 2]++;
    for (uint32_t i = 0; i < manifold_count; ++i) {
        uint32_t s = a[i] != VXK_ISLAND_NO_BODY ? a[i] : b[i];
        if (s != VXK_ISLAND_NO_BODY)
            out->manifold_start[out->island_of[s] + 2]++;
    }
    for (uint32_t i = 2; i < count + 2; ++i) {
        out->body_start[i] += out->body_start[i - 1];
        out->manifold_start[i] += out->manifold_start[i - 1];
    }
    for (uint32_t s = 0; s < slot_count; ++s)
        if (out->island_of[s] != VXK_ISLAND_NO_BODY)
            out->bodies[out->body_start[out->island_of[s] + 1]++] = s;
    for (uint32_t i = 0; i < manifold_count; ++i) {
        uint32_t s = a[i] != VXK_ISLAND_NO_BODY ? a[i] : b[i];
        if (s != VXK_ISLAND_NO_BODY)
            out->manifolds[out->manifold_start[out->island_of[s] + 1]++] = i;
    }
    return VXK_OK;
}
