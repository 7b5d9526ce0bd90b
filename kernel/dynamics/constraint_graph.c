// constraint_graph.c: greedy graph colouring of contact constraints in list order, one bit set
// of dynamic bodies per colour (Box2D v3, constraint_graph.c: the same rule, rebuilt per step
// here rather than kept incrementally, so the colours depend only on this step's list).
#include "constraint_graph.h"

#include <string.h>

static inline bool bit_test(const uint64_t* set, uint32_t i)
{
    return (set[i >> 6] >> (i & 63)) & 1u;
}
static inline void bit_set(uint64_t* set, uint32_t i)
{
    set[i >> 6] |= (uint64_t)1 << (i & 63);
}

size_t vxk_graph_set_words(uint32_t body_count)
{
    return (((size_t)body_count + 63) / 64 + 1) * VXK_GRAPH_COLORS;
}

vxk_status vxk_graph_color(vxk_graph_coloring* out, const uint32_t* a, const uint32_t* b,
                           uint32_t count, uint32_t body_count, vxk_arena* arena)
{
    uint64_t* sets =
        (uint64_t*)vxk_arena_alloc(arena, sizeof(uint64_t) * vxk_graph_set_words(body_count));
    uint32_t* order = (uint32_t*)vxk_arena_alloc(arena, sizeof(uint32_t) * ((size_t)count + 1));
    uint8_t* color = (uint8_t*)vxk_arena_alloc(arena, (size_t)count + 1);
    if (!sets || !order || !color)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_graph_color_into(out, a, b, count, body_count, sets, order, color);
    return VXK_OK;
}

void vxk_graph_color_into(vxk_graph_coloring* out, const uint32_t* a, const uint32_t* b,
                          uint32_t count, uint32_t body_count, uint64_t* sets, uint32_t* order,
                          uint8_t* color)
{
    size_t words = ((size_t)body_count + 63) / 64 + 1;
    out->order = order;
    out->color = color;
    memset(sets, 0, sizeof(uint64_t) * words * VXK_GRAPH_COLORS);
    uint32_t counts[VXK_GRAPH_COLORS + 1] = {0};
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t ba = a[i], bb = b[i];
        bool da = ba != VXK_GRAPH_NO_BODY, db = bb != VXK_GRAPH_NO_BODY;
        uint32_t color = VXK_GRAPH_OVERFLOW;
        if (!da && !db) {
            color = 0; // touches no dynamic body: shares nothing with anyone
        } else {
            for (uint32_t c = (da && db) ? 0 : 1; c < VXK_GRAPH_COLORS; ++c) {
                uint64_t* set = sets + words * c;
                if ((da && bit_test(set, ba)) || (db && bit_test(set, bb)))
                    continue;
                if (da)
                    bit_set(set, ba);
                if (db)
                    bit_set(set, bb);
                color = c;
                break;
            }
        }
        out->color[i] = (uint8_t)color;
        counts[color]++;
    }
    uint32_t fill[VXK_GRAPH_COLORS + 1];
    out->start[0] = 0;
    for (uint32_t c = 0; c <= VXK_GRAPH_COLORS; ++c) {
        fill[c] = out->start[c];
        out->start[c + 1] = out->start[c] + counts[c];
    }
    for (uint32_t i = 0; i < count; ++i)
        out->order[fill[out->color[i]]++] = i;
}
