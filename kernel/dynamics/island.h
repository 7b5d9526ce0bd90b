// island.h: simulation islands (kernel-internal): the connected components of the dynamic bodies
// linked by contact manifolds, rebuilt each step by union-find (the target design's "Islands";
// Box2D v3 keeps them persistent, which pays off for joints that vxk does not have). Islands are
// what the solver hands to jobs and what falls asleep as one.
#ifndef VXK_ISLAND_H
#define VXK_ISLAND_H

#include <stdint.h>

#include "arena.h"
#include <vxk/base.h>

// An end of a manifold that links nothing: a static, kinematic or terrain side.
#define VXK_ISLAND_NO_BODY UINT32_MAX

typedef struct vxk_islands {
    uint32_t count;           // islands
    uint32_t* body_start;     // count + 1 entries
    uint32_t* bodies;         // island i's slots: bodies[body_start[i] .. body_start[i + 1])
    uint32_t* manifold_start; // count + 1 entries
    uint32_t* manifolds;      // island i's manifolds, ascending index
    uint32_t* island_of;      // per slot: its island (VXK_ISLAND_NO_BODY for non-dynamic slots)
} vxk_islands;

// Islands over slots 0 .. slot_count - 1, of which those with dynamic[s] != 0 take part:
// manifold i links slots a[i] and b[i] (each a dynamic slot or VXK_ISLAND_NO_BODY). Every dynamic
// slot is in exactly one island (alone if nothing links it); a manifold is in the island of its
// dynamic end(s), and one with no dynamic end in none. Islands are ordered by their smallest slot,
// their bodies and manifolds ascending, so the result is a function of the inputs alone. Memory
// from arena; VXK_ERR_OUT_OF_MEMORY when it runs out. Cost: O(slots + manifolds), near-linear
// union-find (union by smallest root, path halving).
vxk_status vxk_islands_build(vxk_islands* out, const uint8_t* dynamic, uint32_t slot_count,
                             const uint32_t* a, const uint32_t* b, uint32_t manifold_count,
                             vxk_arena* arena);

#endif
