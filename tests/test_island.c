// test_island.c: islands by union-find (island.c) against a breadth-first labelling written
// here (shares nothing with island.c) on seeded random graphs: every dynamic slot in exactly one
// island, two slots in one island exactly when the manifolds connect them, islands ordered by
// their smallest slot, bodies and manifolds ascending, each manifold in its dynamic end's island.
#include "arena.h"
#include "island.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

// Labels the components of the dynamic slots by breadth-first search over an adjacency list;
// label = the smallest slot of the component (UINT32_MAX for non-dynamic slots).
static void reference_labels(uint32_t* label, const uint8_t* dynamic, uint32_t slots,
                             const uint32_t* a, const uint32_t* b, uint32_t edges)
{
    uint32_t* degree = calloc(slots + 1, sizeof(uint32_t));
    uint32_t* start = calloc(slots + 2, sizeof(uint32_t));
    uint32_t* adj = malloc(sizeof(uint32_t) * (2 * (size_t)edges + 1));
    uint32_t* queue = malloc(sizeof(uint32_t) * (slots + 1));
    for (uint32_t e = 0; e < edges; ++e)
        if (a[e] != VXK_ISLAND_NO_BODY && b[e] != VXK_ISLAND_NO_BODY) {
            degree[a[e]]++;
            degree[b[e]]++;
        }
    for (uint32_t s = 0; s < slots; ++s)
        start[s + 1] = start[s] + degree[s];
    memset(degree, 0, sizeof(uint32_t) * slots);
    for (uint32_t e = 0; e < edges; ++e)
        if (a[e] != VXK_ISLAND_NO_BODY && b[e] != VXK_ISLAND_NO_BODY) {
            adj[start[a[e]] + degree[a[e]]++] = b[e];
            adj[start[b[e]] + degree[b[e]]++] = a[e];
        }
    for (uint32_t s = 0; s < slots; ++s)
        label[s] = UINT32_MAX;
    for (uint32_t s = 0; s < slots; ++s) {
        if (!dynamic[s] || label[s] != UINT32_MAX)
            continue;
        // Slots ascend, so s is the smallest of its component.
        uint32_t head = 0, tail = 0;
        queue[tail++] = s;
        label[s] = s;
        while (head < tail) {
            uint32_t u = queue[head++];
            for (uint32_t k = start[u]; k < start[u + 1]; ++k)
                if (label[adj[k]] == UINT32_MAX) {
                    label[adj[k]] = s;
                    queue[tail++] = adj[k];
                }
        }
    }
    free(degree);
    free(start);
    free(adj);
    free(queue);
}

static int check_graph(uint64_t* seed, uint32_t slots, uint32_t edges, vxk_arena* arena)
{
    uint8_t* dynamic = malloc(slots + 1);
    uint32_t* a = malloc(sizeof(uint32_t) * (edges + 1));
    uint32_t* b = malloc(sizeof(uint32_t) * (edges + 1));
    uint32_t* label = malloc(sizeof(uint32_t) * (slots + 1));
    VXK_CHECK(dynamic && a && b && label);
    for (uint32_t s = 0; s < slots; ++s)
        dynamic[s] = vxk_test_rand(seed) % 5 != 0; // some kinematic slots
    // Clustered edges (local neighbours) and a few long ones, some with a non-dynamic end.
    for (uint32_t e = 0; e < edges; ++e) {
        uint32_t u = (uint32_t)(vxk_test_rand(seed) % slots);
        uint32_t v = vxk_test_rand(seed) % 8 == 0
                         ? (uint32_t)(vxk_test_rand(seed) % slots)
                         : (u + 1 + (uint32_t)(vxk_test_rand(seed) % 3)) % slots;
        a[e] = dynamic[u] ? u : VXK_ISLAND_NO_BODY;
        b[e] = dynamic[v] ? v : VXK_ISLAND_NO_BODY;
        if (vxk_test_rand(seed) % 6 == 0)
            a[e] = VXK_ISLAND_NO_BODY; // terrain or static
    }
    reference_labels(label, dynamic, slots, a, b, edges);
    vxk_islands is;
    VXK_CHECK_EQ_INT(vxk_islands_build(&is, dynamic, slots, a, b, edges, arena), VXK_OK);
    // Islands: one per distinct label, in order of the smallest slot.
    uint32_t expected = 0;
    for (uint32_t s = 0; s < slots; ++s)
        expected += dynamic[s] && label[s] == s;
    VXK_CHECK_EQ_INT(is.count, expected);
    uint32_t seen_bodies = 0;
    for (uint32_t i = 0; i < is.count; ++i) {
        VXK_CHECK(is.body_start[i] < is.body_start[i + 1]);
        uint32_t first = is.bodies[is.body_start[i]];
        VXK_CHECK_MSG(label[first] == first, "island %u starts at slot %u, not its smallest", i,
                      first);
        if (i > 0)
            VXK_CHECK_MSG(is.bodies[is.body_start[i - 1]] < first, "islands out of order at %u", i);
        for (uint32_t k = is.body_start[i]; k < is.body_start[i + 1]; ++k) {
            uint32_t s = is.bodies[k];
            VXK_CHECK_MSG(label[s] == first, "slot %u in island %u but connected to %u", s, i,
                          label[s]);
            VXK_CHECK_EQ_INT(is.island_of[s], i);
            if (k > is.body_start[i])
                VXK_CHECK(is.bodies[k - 1] < s);
            seen_bodies++;
        }
        for (uint32_t k = is.manifold_start[i]; k < is.manifold_start[i + 1]; ++k) {
            uint32_t e = is.manifolds[k];
            uint32_t s = a[e] != VXK_ISLAND_NO_BODY ? a[e] : b[e];
            VXK_CHECK(s != VXK_ISLAND_NO_BODY);
            VXK_CHECK_MSG(label[s] == first, "manifold %u in island %u of slot %u", e, i, first);
            if (k > is.manifold_start[i])
                VXK_CHECK(is.manifolds[k - 1] < e);
        }
    }
    uint32_t dynamic_count = 0, linked = 0;
    for (uint32_t s = 0; s < slots; ++s) {
        dynamic_count += dynamic[s] != 0;
        if (!dynamic[s])
            VXK_CHECK_EQ_U64(is.island_of[s], VXK_ISLAND_NO_BODY);
    }
    for (uint32_t e = 0; e < edges; ++e)
        linked += a[e] != VXK_ISLAND_NO_BODY || b[e] != VXK_ISLAND_NO_BODY;
    VXK_CHECK_EQ_INT(seen_bodies, dynamic_count);
    VXK_CHECK_EQ_INT(is.manifold_start[is.count], linked);
    free(dynamic);
    free(a);
    free(b);
    free(label);
    return 0;
}

static int test_islands_match_reference(void)
{
    uint64_t seed = vxk_test_seed(0x151A);
    vxk_arena arena;
    vxk_arena_init(&arena);
    for (int round = 0; round < 1000; ++round) {
        uint32_t slots = 1 + (uint32_t)(vxk_test_rand(&seed) % (round < 900 ? 64 : 5000));
        uint32_t edges = (uint32_t)(vxk_test_rand(&seed) % (2 * slots + 1));
        if (check_graph(&seed, slots, edges, &arena)) {
            fprintf(stderr, "round %d: %u slots, %u manifolds\n", round, slots, edges);
            return 1;
        }
        vxk_arena_reset(&arena);
    }
    // Empty inputs.
    vxk_islands is;
    VXK_CHECK_EQ_INT(vxk_islands_build(&is, NULL, 0, NULL, NULL, 0, &arena), VXK_OK);
    VXK_CHECK_EQ_INT(is.count, 0);
    vxk_arena_destroy(&arena);
    return 0;
}

int main(void)
{
    VXK_RUN(test_islands_match_reference);
    return vxk_test_finish();
}
