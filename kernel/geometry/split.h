// split.h: connectivity splitting of voxels after an edit (seed 004, Voxtric "Integrity
// Splitting"): which parts of a box of voxels are no longer connected (6-connectivity, through
// solid voxels) to an anchor, found by finders seeded around the removed voxels that grow
// breadth-first, the smallest first, and merge when they meet; and the plain connected components
// of a box (a voxel body's grid). World-free: plain bit rows in, voxel rows out.
//
// Grid. A box of size.x * size.y * size.z voxels, held as bit rows along x: W = (size.x + 63) /
// 64 words per (y, z) row, row (y, z) at word (y * size.z + z) * W, voxel x at bit x & 63 of word
// x >> 6 (the layout of a voxel body's collision view, contact_voxel.h, and of
// vxk_flood_gather_chunks, which builds it from terrain chunks). Bits at x >= size.x are ignored.
// Rows along x rather than 8^3 bricks: a whole x-run of solid voxels is claimed in one word
// operation (an add carries a seed up its run, a 6-step shift fill carries it down), and the
// y and z neighbours of a word are other words at fixed strides.
//
// Anchors. A voxel connected to an anchor stays; a component with none is free. Anchors are the
// solid voxels set in grid.anchor (bedrock, anchored materials, a world floor: the caller's
// rule), and with VXK_SPLIT_BOUNDARY_ANCHORS every solid voxel on the box's faces (the terrain
// outside a searched region is unknown, so reaching the region's edge counts as attached).
//
// The search (vxk_split_begin, vxk_split_run, vxk_split_result_get). Seeds are the solid
// face-neighbours (inside the box) of the removed voxels, in the order of the removed list and of
// the directions -x, +x, -y, +y, -z, +z; a seed already claimed by an earlier finder makes none.
// Each finder claims its seed's x-run and then grows by rounds: a round expands the finder's last
// claims to their y and z neighbour words (x neighbours are settled when a run is claimed) and
// claims every solid unvisited voxel there, each with its whole x-run. The finder with the fewest
// voxels grows next (ties: the lower id), so a small part cut loose is exhausted before a large
// one has grown much. A finder that touches another's voxels merges with it (the lower id names
// the group); a group that claims an anchor, or meets an anchored group, is anchored and stops.
// A group whose round claims nothing and that merged with nothing is exhausted: it is a whole
// component without an anchor, a free component. The search ends when no group grows; with
// VXK_SPLIT_KEEP_LAST it also ends when exactly one group grows and none is anchored: that group
// is kept, not reported. This is Voxtric's "until only one finder is left" and is exact when every
// seed's component before the edit was connected to an anchor that the edit did not remove (the
// terrain's invariant once every edit is split; always true for a voxel body, which has no
// anchors: the kept group is then the part that keeps the body, and it is at least as large as
// every part reported, because each reported part was exhausted while it was the smallest).
// Results depend only on the grid, the removed list and the flags: not on how the work was cut
// into vxk_split_run calls, nor on anything else.
//
// Components (vxk_split_components): every 6-connected component of the grid's solid voxels,
// found by a scan for the first unvisited solid voxel and a flood from it.
//
// Results list components ordered by their smallest voxel in (y, z, x) order, each with its rows
// (sorted by (y, z, word), one per word holding any of its voxels), voxel count, smallest voxel
// and bounds, in grid coordinates.
//
// Thread-safety: a vxk_split and a vxk_split_result are used by one thread at a time; distinct
// ones run concurrently, on shared grids too (grids are only read).
#ifndef VXK_SPLIT_H
#define VXK_SPLIT_H

#include <vxk/base.h>

#include <stdbool.h>
#include <stdint.h>

// The largest side of a grid (row positions pack y and z in 10 bits each, the word in 4).
#define VXK_SPLIT_MAX_SIZE 1024

// Flags of vxk_split_begin.
#define VXK_SPLIT_BOUNDARY_ANCHORS 1u // solid voxels on the box's faces are anchors
#define VXK_SPLIT_KEEP_LAST 2u        // end when one group grows and none is anchored (above)
#define VXK_SPLIT_FLAGS_ALL 3u

typedef struct vxk_split_grid {
    vxk_int3 size;          // voxels per axis, 1..VXK_SPLIT_MAX_SIZE
    const uint64_t* solid;  // (size.y * size.z) rows of W words (layout above)
    const uint64_t* anchor; // anchored voxels in the same layout, or NULL for none
} vxk_split_grid;

// One row of a component: the voxels of word `word` of row (y, z) that belong to it.
typedef struct vxk_split_row {
    uint16_t y, z, word, pad;
    uint64_t bits; // voxel x = 64 * word + bit
} vxk_split_row;   // 16 bytes
_Static_assert(sizeof(vxk_split_row) == 16, "vxk_split_row is 16 bytes");

typedef struct vxk_split_component {
    uint32_t first_row; // rows [first_row, first_row + row_count) of the result
    uint32_t row_count;
    uint32_t voxel_count;
    vxk_int3 min_voxel; // smallest voxel in (y, z, x) order
    vxk_int_box bounds; // inclusive
} vxk_split_component;  // 48 bytes

// A result owned by the caller: zero-initialise it, reuse it (its storage only grows), release it
// with vxk_split_result_free.
typedef struct vxk_split_result {
    vxk_split_component* components;
    vxk_split_row* rows;
    uint32_t component_count, row_count;
    uint32_t component_capacity, row_capacity;
} vxk_split_result;

void vxk_split_result_free(vxk_split_result* result);

// What a search did (vxk_split_stats_get), and what vxk_split_components did.
typedef struct vxk_split_stats {
    uint32_t finders;         // seeds that started a finder
    uint32_t merges;          // finders or groups merged into an active group
    uint32_t rounds;          // rounds run
    uint32_t free_groups;     // exhausted groups (the free components)
    uint32_t anchored_groups; // groups anchored when the search ended
    uint32_t kept_groups;     // 1 when VXK_SPLIT_KEEP_LAST ended the search, else 0
    uint64_t voxels_visited;  // voxels claimed
    uint64_t voxels_expanded; // claimed voxels whose y/z neighbours were examined
    uint64_t entries;         // word claims (one word's run fill each)
    uint32_t shared_words;    // words claimed by more than one unmerged group
    uint32_t calls;           // vxk_split_run calls since begin
} vxk_split_stats;

// ---- internals (split.c) --------------------------------------------------------------------

typedef struct vxk_split_entry {
    uint32_t pos;   // (y << 14) | (z << 4) | word
    uint32_t index; // the word's index in the grid
    uint64_t bits;
} vxk_split_entry; // 16 bytes

typedef struct vxk_split_share {
    uint32_t finder, next;
    uint64_t bits;
} vxk_split_share;

typedef struct vxk_split_range {
    uint32_t start, end, next; // entries [start, end); next range of the list (0: none)
    uint32_t group;            // a finder of the group that claimed them
} vxk_split_range;             // 16 bytes

typedef struct vxk_split_finder {
    uint32_t parent;                     // union-find; a root names its group
    uint32_t state;                      // split.c's group states
    uint64_t count;                      // voxels of the group (roots)
    uint32_t pending_head, pending_tail; // ranges of claims not yet expanded (0: none)
    uint32_t in_heap;
    uint32_t bucket; // results: the free group's component + 1 (roots), 0: none
} vxk_split_finder;

// The splitter: a search in progress and the scratch both operations reuse. Initialise with
// vxk_split_init, release with vxk_split_destroy; the fields are split.c's.
typedef struct vxk_split {
    vxk_split_grid grid;
    uint32_t words_per_row, flags;
    uint64_t last_word_mask; // valid bits of a row's last word
    bool active, done;

    uint64_t* visited; // one bit per claimed voxel; all zero between operations
    // Per word while visited != 0: the first group that claimed bits of it (low 32 bits) and the
    // head of its list of other groups' bits (high 32 bits, 0: none). Results reuse it.
    uint64_t* owners;
    uint64_t* marks; // one bit per word, for ordering results; all zero between operations
    size_t word_capacity;

    vxk_split_entry* entries;
    uint32_t entry_count, entry_capacity;
    vxk_split_share* shares; // index 0 unused
    uint32_t share_count, share_capacity;
    vxk_split_range* ranges; // index 0 unused
    uint32_t range_count, range_capacity;
    vxk_split_finder* finders;
    uint32_t finder_count, finder_capacity;
    uint64_t* heap; // keys count << 32 | finder (a count is at most 2^30 voxels)
    uint32_t heap_count;
    uint32_t* free_roots; // exhausted groups in the order they were found
    uint32_t free_count;
    uint64_t* sort_scratch;
    uint32_t sort_capacity;

    // The round in progress: its group, the ranges it expands and where it is in them, the first
    // entry it claimed. carry: the group of the round just closed, to grow again at once while it
    // is still the smallest (UINT32_MAX: none).
    uint32_t round_group, round_range, round_index, round_start;
    uint32_t carry;
    bool in_round;
    uint32_t active_groups, anchored_groups;
    vxk_split_stats stats;
} vxk_split;

// ---- API --------------------------------------------------------------------------------------

// An idle splitter holding nothing. Cannot fail.
void vxk_split_init(vxk_split* split);
// Releases everything the splitter holds (a search in progress is dropped). NULL is ignored.
void vxk_split_destroy(vxk_split* split);

// Starts a search on grid, seeded around `removed` (count voxels that the edit removed, in grid
// coordinates), replacing any search in progress. The grid's buffers are read until the search
// ends (vxk_split_result_get) or is replaced, and must not change meanwhile. The seeds' first
// claims happen here (at most 6 * count word claims); vxk_split_run does the rest.
// Errors (nothing changed, a search in progress continues): NULL split or grid, NULL
// grid->solid, NULL removed with count > 0, flags outside VXK_SPLIT_FLAGS_ALL, a removed voxel
// that is solid -> VXK_ERR_INVALID_ARGUMENT; a size < 1 or > VXK_SPLIT_MAX_SIZE, a removed voxel
// outside the box -> VXK_ERR_OUT_OF_RANGE. VXK_ERR_OUT_OF_MEMORY leaves the splitter idle.
// Cost: O(count) plus the seeds' claims; memory grows to 16 bytes and a bit per grid word (kept for
// reuse) and 16 bytes per claimed word.
vxk_status vxk_split_begin(vxk_split* split, const vxk_split_grid* grid, const vxk_int3* removed,
                           uint32_t count, uint32_t flags);

// Continues the search until it ends or until max_voxels voxels have been expanded in this call
// (0: no bound; the call may pass the bound by one word's voxels, at most 64). *done tells whether
// it ended. The same search gives the same result and statistics however its work is cut.
// Errors (nothing changed): NULL split or done, no search begun -> VXK_ERR_INVALID_ARGUMENT;
// VXK_ERR_OUT_OF_MEMORY stops the call where it was: calling again continues correctly.
// Cost: per expanded word about 250 instructions (its 4 y/z neighbour words tested; a run fill
// and a claim record per word with fresh voxels; a union-find lookup only where another group's
// voxels are met), about 18 ns on a 2020s x86 core: a 32^3 region's search that frees ~1,200
// voxels takes ~3.5 us, begin and result included (perf/bench_split).
vxk_status vxk_split_run(vxk_split* split, uint64_t max_voxels, bool* done);

// The free components of a search that ended, replacing result's contents, ordered by smallest
// voxel. The splitter becomes idle (its scratch cleared and kept).
// Errors (nothing changed): NULL split or result, no search or one not ended ->
// VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY leaves result empty and the search ended (call
// again). Cost: O(claims) plus, for a component spread thinly over a large grid, a sort of its
// claims.
vxk_status vxk_split_result_get(vxk_split* split, vxk_split_result* result);

// The statistics of the search in progress or last ended (zeros before any).
void vxk_split_stats_get(const vxk_split* split, vxk_split_stats* stats);

// Every 6-connected component of grid's solid voxels (anchors ignored), replacing result's
// contents, ordered by smallest voxel. Uses split's scratch; a search in progress is dropped.
// Errors (nothing changed): NULL split, result or grid, NULL grid->solid ->
// VXK_ERR_INVALID_ARGUMENT; a size < 1 or > VXK_SPLIT_MAX_SIZE -> VXK_ERR_OUT_OF_RANGE.
// VXK_ERR_OUT_OF_MEMORY leaves result empty and split idle. Cost: one scan of the grid's words
// plus the flood of every solid voxel (as vxk_split_run per claimed word; a 32^3 terrain region
// of ~7,600 solid voxels in ~7 us); memory 16 bytes per claimed word.
vxk_status vxk_split_components(vxk_split* split, vxk_split_result* result,
                                const vxk_split_grid* grid);

// Words in a grid of this size ((size.x + 63) / 64 * size.y * size.z); 0 for sizes out of range.
size_t vxk_split_grid_words(vxk_int3 size);

#endif
