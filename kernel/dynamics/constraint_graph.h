// constraint_graph.h: graph colouring of the contact constraints for the wide solver (Box2D v3's
// constraint graph, rebuilt each step): a colour never holds two constraints that share a
// dynamic body, so the constraints of one colour can be solved at the same time (SIMD lanes,
// threads) with the result of a sequential solve.
#ifndef VXK_CONSTRAINT_GRAPH_H
#define VXK_CONSTRAINT_GRAPH_H

#include <stdint.h>

#include "arena.h"
#include <vxk/base.h>

// Colours; constraints that fit none go to the overflow (index VXK_GRAPH_COLORS), which the
// solver solves one at a time.
// 64 rather than Box2D's 24: a box packed among others touches up to 26 of them (faces, edges and
// corners), and each manifold past the colours costs a whole batch.
#define VXK_GRAPH_COLORS 64
#define VXK_GRAPH_OVERFLOW VXK_GRAPH_COLORS
// A body slot that does not count for colouring (static, kinematic, terrain).
#define VXK_GRAPH_NO_BODY UINT32_MAX

typedef struct vxk_graph_coloring {
    // Constraints of colour c are order[start[c] .. start[c + 1]), ascending constraint index;
    // c = VXK_GRAPH_OVERFLOW is the overflow.
    uint32_t start[VXK_GRAPH_COLORS + 2];
    uint32_t* order; // count entries (arena)
    uint8_t* color;  // per constraint: its colour (arena)
} vxk_graph_coloring;

// Colours constraints 0 .. count-1, each joining dynamic body slots a[i] and b[i] (in
// [0, body_count) or VXK_GRAPH_NO_BODY), in list order: each takes the first colour whose
// constraints touch neither of its dynamic bodies. Constraints with both bodies dynamic may take
// colour 0; the others start at colour 1 (as Box2D: they are cheaper to overflow, and colour 0
// stays for the pairs). Deterministic (a function of the inputs alone). Memory from arena;
// VXK_ERR_OUT_OF_MEMORY when it runs out. Cost: O(count * colours tried + colours * body_count /
// 64).
vxk_status vxk_graph_color(vxk_graph_coloring* out, const uint32_t* a, const uint32_t* b,
                           uint32_t count, uint32_t body_count, vxk_arena* arena);

// The same colouring into caller memory (for jobs, which own no arena): order and color hold
// count entries, sets vxk_graph_set_words(body_count) words.
size_t vxk_graph_set_words(uint32_t body_count);
void vxk_graph_color_into(vxk_graph_coloring* out, const uint32_t* a, const uint32_t* b,
                          uint32_t count, uint32_t body_count, uint64_t* sets, uint32_t* order,
                          uint8_t* color);

#endif
