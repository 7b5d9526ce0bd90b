// split.c: connectivity splitting on bit rows (split.h), after seed 004 (Voxtric, "Integrity
// Splitting": finders seeded around the removed blocks search breadth-first, the one with the
// fewest positions first, and merge when they meet).
//
// Done a word at a time: a claim takes a word's candidate voxels and fills them along their x-runs
// of solid unvisited voxels (an add carries each run's lowest candidate to the top of the run, a
// 6-step shift fill carries the result down to its bottom when a run reaches below its
// candidates), continues into the next word when a run crosses a word boundary, and appends the
// word and its bits to one pool of claims. A finder's round expands its last claims to their y
// and z neighbour words, the four tested before any is claimed and only words with fresh voxels
// claimed; a claim in a row two or more rows inside the box skips the box-edge checks. The claim
// loop runs on a cursor, a local copy of the splitter's hot fields, in two variants: rows of one
// word (size.x <= 64, the terrain's regions) and longer rows. Visited voxels live in one bit array;
// each word records the group that claimed it first and, in a short list, the bits of any other
// group that claimed bits of it before the two met (distinct runs of one row), so that a candidate
// found visited is resolved to its group by union-find. A round works through ranges of the pool:
// the claims a group has not expanded yet are a list of ranges, a round's own claims form one
// more range, and merging two groups joins their lists. A group that is still the smallest after
// its round grows again without going through the heap (the order is the heap's). Every bound on
// the work falls between two claims' expansions, so a search cut into calls runs the same steps.
//
// Results: a component's claims are found through the ranges (each records the group that made
// it) and become rows ordered by (y, z, word): word indices grow in that order, so the claims'
// words are marked in a bit per grid word and read back in order when their span is small (at
// most twice the claims plus 16 mark words), else the claims are sorted by position.
#include "split.h"

#include "core.h"

// The claim path is a handful of small functions that GCC otherwise leaves as calls.
#define SPLIT_INLINE static inline __attribute__((always_inline))

enum {
    GROUP_ACTIVE = 0,
    GROUP_ANCHORED = 1,
    GROUP_FREE = 2,
};

#define NONE UINT32_MAX
#define POS_Y_SHIFT 14
#define POS_Z_SHIFT 4
#define POS_WORD_MASK 15u
#define POS_COORD_MASK 1023u

static inline uint32_t pos_pack(uint32_t y, uint32_t z, uint32_t word)
{
    return (y << POS_Y_SHIFT) | (z << POS_Z_SHIFT) | word;
}
static inline uint32_t pos_y(uint32_t pos)
{
    return pos >> POS_Y_SHIFT;
}
static inline uint32_t pos_z(uint32_t pos)
{
    return (pos >> POS_Z_SHIFT) & POS_COORD_MASK;
}
static inline uint32_t pos_word(uint32_t pos)
{
    return pos & POS_WORD_MASK;
}

static inline uint32_t grid_words_per_row(vxk_int3 size)
{
    return (uint32_t)(size.x + 63) / 64;
}

size_t vxk_split_grid_words(vxk_int3 size)
{
    if (size.x < 1 || size.y < 1 || size.z < 1 || size.x > VXK_SPLIT_MAX_SIZE ||
        size.y > VXK_SPLIT_MAX_SIZE || size.z > VXK_SPLIT_MAX_SIZE)
        return 0;
    return (size_t)grid_words_per_row(size) * (size_t)size.y * (size_t)size.z;
}

// The voxels of `mask` connected along x to a voxel of `seed` (seed within mask): the add carries
// each run's lowest seed to its top, the occluded shift fill carries the result down to the run's
// bottom.
static inline uint64_t fill_run(uint64_t seed, uint64_t mask)
{
    uint64_t g = (mask & ~(mask + seed)) | seed;
    if (__builtin_expect(!((g >> 1) & mask & ~g), 1))
        return g;
    uint64_t p = mask;
    g |= p & (g >> 1);
    p &= p >> 1;
    g |= p & (g >> 2);
    p &= p >> 2;
    g |= p & (g >> 4);
    p &= p >> 4;
    g |= p & (g >> 8);
    p &= p >> 8;
    g |= p & (g >> 16);
    p &= p >> 16;
    g |= p & (g >> 32);
    return g;
}

// ---- storage --------------------------------------------------------------------------------

static bool reserve_claims_slow(vxk_split* s, uint32_t extra)
{
    return vxk_grow_items((void**)&s->entries, &s->entry_capacity, (uint64_t)s->entry_count + extra,
                          sizeof(vxk_split_entry)) &&
           vxk_grow_items((void**)&s->shares, &s->share_capacity, (uint64_t)s->share_count + extra,
                          sizeof(vxk_split_share));
}

// Room for `extra` more claims and as many shared-word records.
static inline bool reserve_claims(vxk_split* s, uint32_t extra)
{
    if ((uint64_t)s->entry_count + extra <= s->entry_capacity &&
        (uint64_t)s->share_count + extra <= s->share_capacity)
        return true;
    return reserve_claims_slow(s, extra);
}

static inline size_t mark_words(size_t words)
{
    return words / 64 + 1;
}

// Visited bits, owner records and marks for `words` words, zeroed; existing contents are kept.
static bool reserve_words(vxk_split* s, size_t words)
{
    if (words <= s->word_capacity)
        return true;
    size_t old_marks = s->word_capacity ? mark_words(s->word_capacity) : 0;
    uint64_t* visited = (uint64_t*)vxk_calloc(words * sizeof(uint64_t));
    uint64_t* owners = (uint64_t*)vxk_calloc(words * sizeof(uint64_t));
    uint64_t* marks = (uint64_t*)vxk_calloc(mark_words(words) * sizeof(uint64_t));
    if (!visited || !owners || !marks) {
        vxk_free(visited, visited ? words * sizeof(uint64_t) : 0);
        vxk_free(owners, owners ? words * sizeof(uint64_t) : 0);
        vxk_free(marks, marks ? mark_words(words) * sizeof(uint64_t) : 0);
        return false;
    }
    if (s->visited) {
        memcpy(visited, s->visited, s->word_capacity * sizeof(uint64_t));
        memcpy(owners, s->owners, s->word_capacity * sizeof(uint64_t));
        memcpy(marks, s->marks, old_marks * sizeof(uint64_t));
    }
    vxk_free(s->visited, s->word_capacity * sizeof(uint64_t));
    vxk_free(s->owners, s->word_capacity * sizeof(uint64_t));
    vxk_free(s->marks, old_marks * sizeof(uint64_t));
    s->visited = visited;
    s->owners = owners;
    s->marks = marks;
    s->word_capacity = words;
    return true;
}

// Room for n finders (with their heap slots and free list), contents kept.
static bool reserve_finders(vxk_split* s, uint32_t n)
{
    if (n <= s->finder_capacity)
        return true;
    uint64_t next = VXK_MAX((uint64_t)n, 2 * (uint64_t)s->finder_capacity);
    next = VXK_MIN(VXK_MAX(next, 16), (uint64_t)UINT32_MAX);
    size_t old = s->finder_capacity, cap = (size_t)next;
    vxk_split_finder* finders = (vxk_split_finder*)vxk_alloc(cap * sizeof(vxk_split_finder));
    uint64_t* heap = (uint64_t*)vxk_alloc(cap * sizeof(uint64_t));
    uint32_t* free_roots = (uint32_t*)vxk_alloc(cap * sizeof(uint32_t));
    if (!finders || !heap || !free_roots) {
        vxk_free(finders, finders ? cap * sizeof(vxk_split_finder) : 0);
        vxk_free(heap, heap ? cap * sizeof(uint64_t) : 0);
        vxk_free(free_roots, free_roots ? cap * sizeof(uint32_t) : 0);
        return false;
    }
    if (old) {
        memcpy(finders, s->finders, old * sizeof(vxk_split_finder));
        memcpy(heap, s->heap, old * sizeof(uint64_t));
        memcpy(free_roots, s->free_roots, old * sizeof(uint32_t));
    }
    vxk_free(s->finders, old * sizeof(vxk_split_finder));
    vxk_free(s->heap, old * sizeof(uint64_t));
    vxk_free(s->free_roots, old * sizeof(uint32_t));
    s->finders = finders;
    s->heap = heap;
    s->free_roots = free_roots;
    s->finder_capacity = (uint32_t)cap;
    return true;
}

// Clears the visited bits of every claim and forgets the claims: the splitter becomes idle.
static void reset(vxk_split* s)
{
    for (uint32_t i = 0; i < s->entry_count; ++i)
        s->visited[s->entries[i].index] = 0;
    s->entry_count = 0;
    s->share_count = 1;
    s->range_count = 1;
    s->finder_count = 0;
    s->heap_count = 0;
    s->free_count = 0;
    s->carry = NONE;
    s->in_round = false;
    s->active = false;
    s->done = false;
}

static void set_grid(vxk_split* s, const vxk_split_grid* grid)
{
    s->grid = *grid;
    s->words_per_row = grid_words_per_row(grid->size);
    uint32_t tail = (uint32_t)grid->size.x & 63u;
    s->last_word_mask = tail ? (1ull << tail) - 1 : ~0ull;
}

void vxk_split_init(vxk_split* split)
{
    memset(split, 0, sizeof(*split));
    split->share_count = 1;
    split->range_count = 1;
    split->carry = NONE;
}

void vxk_split_destroy(vxk_split* split)
{
    if (!split)
        return;
    vxk_free(split->visited, split->word_capacity * sizeof(uint64_t));
    vxk_free(split->owners, split->word_capacity * sizeof(uint64_t));
    vxk_free(split->marks, split->word_capacity ? mark_words(split->word_capacity) * 8 : 0);
    vxk_free(split->entries, (size_t)split->entry_capacity * sizeof(vxk_split_entry));
    vxk_free(split->shares, (size_t)split->share_capacity * sizeof(vxk_split_share));
    vxk_free(split->ranges, (size_t)split->range_capacity * sizeof(vxk_split_range));
    vxk_free(split->finders, (size_t)split->finder_capacity * sizeof(vxk_split_finder));
    vxk_free(split->heap, (size_t)split->finder_capacity * sizeof(uint64_t));
    vxk_free(split->free_roots, (size_t)split->finder_capacity * sizeof(uint32_t));
    vxk_free(split->sort_scratch, (size_t)split->sort_capacity * sizeof(uint64_t));
    vxk_split_init(split);
}

void vxk_split_result_free(vxk_split_result* result)
{
    if (!result)
        return;
    vxk_free(result->components, (size_t)result->component_capacity * sizeof(vxk_split_component));
    vxk_free(result->rows, (size_t)result->row_capacity * sizeof(vxk_split_row));
    memset(result, 0, sizeof(*result));
}

// ---- groups ---------------------------------------------------------------------------------

static inline uint32_t find(vxk_split* s, uint32_t x)
{
    vxk_split_finder* f = s->finders;
    while (f[x].parent != x) {
        f[x].parent = f[f[x].parent].parent; // path halving
        x = f[x].parent;
    }
    return x;
}

// A group's heap key: the fewest voxels first, ties the lower id.
_Static_assert((uint64_t)VXK_SPLIT_MAX_SIZE* VXK_SPLIT_MAX_SIZE* VXK_SPLIT_MAX_SIZE <= 1ull << 32,
               "a group's voxel count fits the heap key's upper half");
static inline uint64_t heap_key(const vxk_split* s, uint32_t finder)
{
    return s->finders[finder].count << 32 | finder;
}

static void heap_push(vxk_split* s, uint32_t finder)
{
    uint64_t key = heap_key(s, finder);
    uint64_t* heap = s->heap;
    uint32_t i = s->heap_count++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (key >= heap[parent])
            break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = key;
    s->finders[finder].in_heap = 1;
}

// Removes the smallest key and returns it; with `replace` (a finder not in the heap) the removed
// key's place is taken by that finder's, in one pass.
static uint64_t heap_pop(vxk_split* s, uint32_t replace)
{
    uint64_t* heap = s->heap;
    uint64_t top = heap[0], last;
    if (replace != NONE) {
        last = heap_key(s, replace);
        s->finders[replace].in_heap = 1;
    } else {
        last = heap[--s->heap_count];
    }
    uint32_t i = 0, n = s->heap_count;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= n)
            break;
        child += child + 1 < n && heap[child + 1] < heap[child];
        if (heap[child] >= last)
            break;
        heap[i] = heap[child];
        i = child;
    }
    if (n > 0)
        heap[i] = last;
    s->finders[(uint32_t)top].in_heap = 0;
    return top;
}

// Appends finder b's list of pending ranges to finder a's.
static void pending_join(vxk_split* s, uint32_t a, uint32_t b)
{
    vxk_split_finder* fa = &s->finders[a];
    vxk_split_finder* fb = &s->finders[b];
    if (!fb->pending_head)
        return;
    if (fa->pending_head)
        s->ranges[fa->pending_tail].next = fb->pending_head;
    else
        fa->pending_head = fb->pending_head;
    fa->pending_tail = fb->pending_tail;
    fb->pending_head = fb->pending_tail = 0;
}

// The round's group meets group h (a root). Returns false when the round's group is now anchored
// (the round stops).
static bool meet(vxk_split* s, uint32_t h)
{
    uint32_t g = s->round_group;
    if (h == g)
        return true;
    vxk_split_finder* f = s->finders;
    VXK_ASSERT(f[h].state != GROUP_FREE);
    uint32_t root = VXK_MIN(g, h), other = VXK_MAX(g, h);
    f[other].parent = root;
    f[root].count = f[g].count + f[h].count;
    s->round_group = root;
    --s->active_groups;
    if (f[h].state == GROUP_ANCHORED) {
        f[root].state = GROUP_ANCHORED;
        f[g].pending_head = f[g].pending_tail = 0;
        return false;
    }
    // The root's list first, then the other's (a fixed order, whichever is the round's).
    pending_join(s, root, other);
    ++s->stats.merges;
    return true;
}

static inline uint32_t owner_first(uint64_t owner)
{
    return (uint32_t)owner;
}
static inline uint32_t owner_shared(uint64_t owner)
{
    return (uint32_t)(owner >> 32);
}

// Resolves the visited candidate bits of word t to their groups and meets each.
static bool meet_bits(vxk_split* s, uint32_t t, uint64_t bits)
{
    uint64_t owner = s->owners[t];
    if (!owner_shared(owner)) {
        uint32_t r = find(s, owner_first(owner));
        s->owners[t] = r; // later tests of this word skip the lookup
        return meet(s, r);
    }
    for (uint32_t i = owner_shared(owner); i && bits; i = s->shares[i].next) {
        uint64_t b = s->shares[i].bits & bits;
        if (b) {
            bits &= ~b;
            if (!meet(s, find(s, s->shares[i].finder)))
                return false;
        }
    }
    return !bits || meet(s, find(s, owner_first(owner)));
}

// Records that the round's group claimed `bits` of word t, which other claims had visited.
static void own_shared_word(vxk_split* s, uint32_t t, uint64_t bits)
{
    uint32_t g = s->round_group;
    uint64_t owner = s->owners[t];
    if (find(s, owner_first(owner)) == g)
        return;
    for (uint32_t i = owner_shared(owner); i; i = s->shares[i].next) {
        if (find(s, s->shares[i].finder) == g) {
            s->shares[i].bits |= bits;
            return;
        }
    }
    uint32_t i = s->share_count++;
    s->shares[i] = (vxk_split_share){g, owner_shared(owner), bits};
    s->owners[t] = owner_first(owner) | (uint64_t)i << 32;
    ++s->stats.shared_words;
}

// ---- claims ---------------------------------------------------------------------------------
// The claim loop keeps its state in a cursor, a local copy of the splitter's hot fields written
// back before anything else reads them: stores into the claim pool then cannot alias the
// splitter's fields, and the compiler keeps the cursor in registers. `search` and `one_word` are
// constants at every call: the search tracks owners, anchors and meetings, the component
// labelling only claims; one_word is the common one-word row (size.x <= 64), which never
// continues a run into another word.

typedef struct cursor {
    vxk_split* s;
    const uint64_t* solid;
    const uint64_t* anchor;
    uint64_t* visited;
    uint64_t* owners;
    vxk_split_entry* entries;
    vxk_split_finder* finders;
    uint64_t last_word_mask;
    uint64_t edge_bits;     // boundary anchors: the x faces' bits of a one-word row, else 0
    uint64_t face_bits;     // boundary anchors: all ones, else 0
    uint64_t voxels;        // voxels claimed since the cursor was loaded
    uint32_t entry_count;   // the splitter's, while the cursor is live
    uint32_t group;         // the round's group (mirrors split->round_group)
    uint32_t W, sy, sz, dy; // dy: words from one y to the next
    // Rows deep inside the box, with all four neighbour rows and (with boundary anchors) none of
    // them on a face: pos - inner_y0 < inner_ys and (pos & z bits) - inner_z0 < inner_zs.
    uint32_t inner_y0, inner_ys, inner_z0, inner_zs;
    bool boundary;
} cursor;

static inline void cursor_load(cursor* c, vxk_split* s)
{
    c->s = s;
    c->solid = s->grid.solid;
    c->anchor = s->grid.anchor;
    c->visited = s->visited;
    c->owners = s->owners;
    c->entries = s->entries;
    c->finders = s->finders;
    c->last_word_mask = s->last_word_mask;
    bool boundary = (s->flags & VXK_SPLIT_BOUNDARY_ANCHORS) != 0;
    c->edge_bits = boundary ? 1 | ((s->last_word_mask >> 1) + 1) : 0;
    c->face_bits = boundary ? ~0ull : 0;
    c->voxels = 0;
    c->entry_count = s->entry_count;
    c->group = s->round_group;
    c->W = s->words_per_row;
    c->sy = (uint32_t)s->grid.size.y;
    c->sz = (uint32_t)s->grid.size.z;
    c->dy = c->sz * c->W;
    c->boundary = boundary;
    uint32_t lo = boundary ? 2 : 1; // rows lo .. size - 1 - lo
    c->inner_y0 = lo << POS_Y_SHIFT;
    c->inner_ys = (c->sy > 2 * lo ? c->sy - 2 * lo : 0) << POS_Y_SHIFT;
    c->inner_z0 = lo << POS_Z_SHIFT;
    c->inner_zs = (c->sz > 2 * lo ? c->sz - 2 * lo : 0) << POS_Z_SHIFT;
}

static inline void cursor_store(cursor* c)
{
    c->s->entry_count = c->entry_count;
    c->s->stats.voxels_visited += c->voxels;
    c->voxels = 0;
}

// Whether coordinate v of an axis of n voxels is on a face (unsigned wrap: true for 0 and n - 1,
// and for every coordinate when n <= 2).
static inline bool on_face(uint32_t v, uint32_t n)
{
    return v - 1 >= n - 2;
}

// The voxels of word t (at pos) that anchor a group: anchors, and with boundary anchors the box's
// faces (face: the row (y, z) is on one).
SPLIT_INLINE uint64_t anchor_bits(const cursor* c, uint32_t pos, uint32_t t, bool face,
                                  bool one_word)
{
    uint64_t bits = c->anchor ? c->anchor[t] : 0;
    uint64_t edges = c->edge_bits;
    if (!one_word && c->boundary) {
        uint32_t word = pos_word(pos);
        edges = (word == 0 ? 1ull : 0) | (word + 1 == c->W ? (c->last_word_mask >> 1) + 1 : 0);
    }
    return bits | (face ? c->face_bits : edges);
}

// The round's group claimed an anchor: it stops.
static void anchor_group(vxk_split* s, uint32_t g)
{
    s->finders[g].state = GROUP_ANCHORED;
    s->finders[g].pending_head = s->finders[g].pending_tail = 0;
    --s->active_groups;
    ++s->anchored_groups;
}

// meet_bits for a cursor: the round's group may change.
static inline bool cursor_meet(cursor* c, uint32_t t, uint64_t bits)
{
    bool go_on = meet_bits(c->s, t, bits);
    c->group = c->s->round_group;
    return go_on;
}

typedef struct claim_out {
    uint64_t fill;
    bool stop; // the round's group became anchored
} claim_out;

// Claims the runs of `seed` in word t (at pos; face: its row is on a face of the box).
SPLIT_INLINE claim_out claim_word(cursor* c, uint32_t pos, uint32_t t, bool face, uint64_t seed,
                                  bool search, bool one_word)
{
    uint64_t mask = one_word || pos_word(pos) + 1 == c->W ? c->last_word_mask : ~0ull;
    uint64_t solid = c->solid[t] & mask;
    uint64_t before = c->visited[t];
    uint64_t fill = fill_run(seed, solid & ~before);
    c->visited[t] = before | fill;
    c->entries[c->entry_count++] = (vxk_split_entry){pos, t, fill};
    claim_out out = {fill, false};
    if (!search)
        return out;
    uint32_t g = c->group;
    if (before)
        own_shared_word(c->s, t, fill);
    else
        c->owners[t] = g;
    uint32_t n = (uint32_t)__builtin_popcountll(fill);
    c->finders[g].count += n;
    c->voxels += n;
    if (__builtin_expect((anchor_bits(c, pos, t, face, one_word) & fill) != 0, 0)) {
        anchor_group(c->s, g);
        out.stop = true;
        return out;
    }
    uint64_t beside = ((fill << 1) | (fill >> 1)) & solid & before;
    if (beside && c->owners[t] != g && !cursor_meet(c, t, beside))
        out.stop = true;
    return out;
}

// Continues the runs of a claim (first) that reach its word's ends into the neighbouring words
// of the row. Returns false when the round's group became anchored.
SPLIT_INLINE bool claim_across(cursor* c, uint32_t pos, uint32_t t, bool face, uint64_t first,
                               bool search)
{
    uint32_t last_word = c->W - 1;
    // Rightwards: a run reaching bit 63 continues at bit 0 of the next word.
    uint64_t fill = first;
    for (uint32_t p = pos, w = t; (fill >> 63) && pos_word(p) < last_word;) {
        ++p;
        ++w;
        uint64_t mask = pos_word(p) == last_word ? c->last_word_mask : ~0ull;
        if (!(c->solid[w] & mask & 1))
            break;
        if (c->visited[w] & 1) {
            if (search && c->owners[w] != c->group && !cursor_meet(c, w, 1))
                return false;
            break;
        }
        claim_out next = claim_word(c, p, w, face, 1, search, false);
        if (next.stop)
            return false;
        fill = next.fill;
    }
    // Leftwards: a run reaching bit 0 continues at bit 63 of the previous word.
    fill = first;
    for (uint32_t p = pos, w = t; (fill & 1) && pos_word(p) > 0;) {
        --p;
        --w;
        if (!(c->solid[w] >> 63))
            break;
        if (c->visited[w] >> 63) {
            if (search && c->owners[w] != c->group && !cursor_meet(c, w, 1ull << 63))
                return false;
            break;
        }
        claim_out next = claim_word(c, p, w, face, 1ull << 63, search, false);
        if (next.stop)
            return false;
        fill = next.fill;
    }
    return true;
}

// Claims the runs of `seed` in word t and their continuations along the row. Returns false when
// the round's group became anchored.
SPLIT_INLINE bool claim_runs(cursor* c, uint32_t pos, uint32_t t, bool face, uint64_t seed,
                             bool search, bool one_word)
{
    claim_out first = claim_word(c, pos, t, face, seed, search, one_word);
    if (first.stop)
        return false;
    if (one_word || !((first.fill & 1) | (first.fill >> 63)))
        return true;
    return claim_across(c, pos, t, face, first.fill, search);
}

// Tests the four neighbour words of claim e (z - 1, z + 1, y - 1, y + 1 at target[]; valid
// lanes and lanes on a face of the box as bit masks), meets the groups found there, then claims
// the fresh voxels lane by lane (scalar loads: on x86 four-lane vector inserts cost more than
// they save here). Returns false when the round's
// group became anchored.
SPLIT_INLINE bool expand_lanes(cursor* c, vxk_split_entry e, const uint32_t target[4],
                               uint32_t valid, uint32_t faces, bool search, bool one_word)
{
    uint64_t fresh[4], seen[4];
    uint64_t foreign = 0; // seen voxels in words whose owner record is not the round's group
    const uint64_t *solid = c->solid + e.index, *visited = c->visited + e.index;
    const uint64_t* owners = c->owners + e.index;
    for (int i = 0; i < 4; ++i) {
        int32_t off = (int32_t)(target[i] - e.index);
        uint64_t cand = (valid >> i) & 1 ? e.bits & solid[off] : 0;
        uint64_t v = visited[off];
        fresh[i] = cand & ~v;
        seen[i] = cand & v;
        if (search)
            foreign |= owners[off] != c->group ? seen[i] : 0;
    }
    if (search && __builtin_expect(foreign != 0, 0)) {
        for (int i = 0; i < 4; ++i) {
            if (seen[i] && c->owners[target[i]] != c->group && !cursor_meet(c, target[i], seen[i]))
                return false;
        }
    }
    // The lanes in order, each with its constants: no lane arrays read back through memory.
#define SPLIT_LANE(i, step)                                                               \
    if (fresh[i]) {                                                                       \
        if (!claim_runs(c, e.pos + (step), target[i], (faces >> i) & 1, fresh[i], search, \
                        one_word))                                                        \
            return false;                                                                 \
    }
    SPLIT_LANE(0, 0u - (1u << POS_Z_SHIFT))
    SPLIT_LANE(1, 1u << POS_Z_SHIFT)
    SPLIT_LANE(2, 0u - (1u << POS_Y_SHIFT))
    SPLIT_LANE(3, 1u << POS_Y_SHIFT)
#undef SPLIT_LANE
    return true;
}

// Expands one claim to its y and z neighbour words. Returns false when the round's group became
// anchored. Most claims lie deep inside the box (inner_*), where every neighbour exists
// and none is on a face: their lanes need no checks.
SPLIT_INLINE bool expand(cursor* c, vxk_split_entry e, bool search, bool one_word)
{
    uint32_t y = pos_y(e.pos), z = pos_z(e.pos);
    uint32_t W = one_word ? 1 : c->W, t = e.index, dy = c->dy;
    uint32_t target[4] = {t - W, t + W, t - dy, t + dy};
    // (The bits below a field only add less than one unit of it.)
    if (__builtin_expect(e.pos - c->inner_y0 < c->inner_ys &&
                             (e.pos & POS_COORD_MASK << POS_Z_SHIFT) - c->inner_z0 < c->inner_zs,
                         1))
        return expand_lanes(c, e, target, 15, 0, search, one_word);
    // A neighbour outside the box reads word t, as an invalid lane.
    uint32_t valid = (uint32_t)(z > 0) | (uint32_t)(z + 1 < c->sz) << 1 | (uint32_t)(y > 0) << 2 |
                     (uint32_t)(y + 1 < c->sy) << 3;
    for (uint32_t i = 0; i < 4; ++i)
        target[i] = (valid >> i) & 1 ? target[i] : t;
    bool y_face = on_face(y, c->sy), z_face = on_face(z, c->sz);
    uint32_t faces = (uint32_t)(y_face || on_face(z - 1, c->sz)) |
                     (uint32_t)(y_face || on_face(z + 1, c->sz)) << 1 |
                     (uint32_t)(z_face || on_face(y - 1, c->sy)) << 2 |
                     (uint32_t)(z_face || on_face(y + 1, c->sy)) << 3;
    return expand_lanes(c, e, target, valid, faces, search, one_word);
}

// The most claims one expansion (or one seed) can append: each of 4 targets fills its word and
// runs on through the rest of the row.
static inline uint32_t claims_per_expansion(const vxk_split* s)
{
    return 4 * s->words_per_row + 4;
}

// ---- the search ---------------------------------------------------------------------------

static vxk_status check_grid(const vxk_split_grid* grid)
{
    if (!grid || !grid->solid)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_split_grid_words(grid->size))
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

static inline bool in_box(vxk_int3 size, vxk_int3 v)
{
    return v.x >= 0 && v.y >= 0 && v.z >= 0 && v.x < size.x && v.y < size.y && v.z < size.z;
}

// Closes the round: its claims become the group's pending range; a group left with nothing to
// expand is exhausted; one that is still active becomes the carry (unless the heap holds it).
static void close_round(vxk_split* s)
{
    uint32_t r = find(s, s->round_group);
    vxk_split_finder* f = &s->finders[r];
    s->in_round = false;
    if (f->state != GROUP_ACTIVE)
        return;
    if (s->entry_count > s->round_start) {
        uint32_t i = s->range_count++;
        s->ranges[i] = (vxk_split_range){s->round_start, s->entry_count, 0, r};
        if (f->pending_head)
            s->ranges[f->pending_tail].next = i;
        else
            f->pending_head = i;
        f->pending_tail = i;
    }
    if (!f->pending_head) {
        f->state = GROUP_FREE;
        --s->active_groups;
        s->free_roots[s->free_count++] = r;
    } else if (!f->in_heap) {
        s->carry = r;
    }
}

static bool reserve_seed(vxk_split* s)
{
    return reserve_claims(s, claims_per_expansion(s)) && reserve_finders(s, s->finder_count + 1) &&
           vxk_grow_items((void**)&s->ranges, &s->range_capacity, (uint64_t)s->range_count + 1,
                          sizeof(vxk_split_range));
}

// Starts a finder at the seed bit b of word t (at pos) and claims its runs; the cursor's entry
// count is the splitter's before and after.
SPLIT_INLINE void start_finder(cursor* c, uint32_t pos, uint32_t t, uint64_t b)
{
    vxk_split* s = c->s;
    c->entries = s->entries; // reserve_seed may have moved them
    c->finders = s->finders;
    uint32_t f = s->finder_count++;
    c->finders[f] = (vxk_split_finder){f, GROUP_ACTIVE, 0, 0, 0, 0, 0};
    ++s->active_groups;
    s->round_group = c->group = f;
    s->round_start = c->entry_count;
    bool face = on_face(pos_y(pos), c->sy) || on_face(pos_z(pos), c->sz);
    if (c->W == 1)
        claim_runs(c, pos, t, face, b, true, true);
    else
        claim_runs(c, pos, t, face, b, true, false);
    s->entry_count = c->entry_count;
    close_round(s);
    s->carry = NONE; // seeds go through the heap
}

vxk_status vxk_split_begin(vxk_split* split, const vxk_split_grid* grid, const vxk_int3* removed,
                           uint32_t count, uint32_t flags)
{
    if (!split || (count > 0 && !removed) || (flags & ~VXK_SPLIT_FLAGS_ALL))
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status st = check_grid(grid);
    if (st != VXK_OK)
        return st;
    vxk_split* s = split;
    uint32_t W = grid_words_per_row(grid->size), sz = (uint32_t)grid->size.z;
    for (uint32_t i = 0; i < count; ++i) {
        vxk_int3 v = removed[i];
        if (!in_box(grid->size, v))
            return VXK_ERR_OUT_OF_RANGE;
        uint32_t t = ((uint32_t)v.y * sz + (uint32_t)v.z) * W + (uint32_t)v.x / 64;
        if ((grid->solid[t] >> ((uint32_t)v.x & 63)) & 1)
            return VXK_ERR_INVALID_ARGUMENT;
    }

    // From here on the previous search is dropped, whatever happens.
    reset(s);
    memset(&s->stats, 0, sizeof(s->stats));
    if (!reserve_words(s, vxk_split_grid_words(grid->size)))
        return VXK_ERR_OUT_OF_MEMORY;
    set_grid(s, grid);
    s->flags = flags;
    s->active_groups = 0;
    s->anchored_groups = 0;
    s->active = true;

    // A finder per seed not yet claimed: removed voxels in order, directions -x +x -y +y -z +z.
    // The unclaimed solid neighbours are found first (a missing neighbour reads the voxel's own
    // word, which the voxel, not solid, leaves clear at its bit), then taken in order while still
    // unclaimed (a finder started for one may claim the next).
    const uint64_t* solid = grid->solid;
    const uint64_t* visited = s->visited;
    uint32_t sx = (uint32_t)grid->size.x, sy = (uint32_t)grid->size.y, dy = sz * W;
    cursor c;
    cursor_load(&c, s);
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t x = (uint32_t)removed[i].x, y = (uint32_t)removed[i].y, z = (uint32_t)removed[i].z;
        uint32_t word = x / 64, bit = x & 63, t = (y * sz + z) * W + word;
        uint32_t pos = pos_pack(y, z, word);
        const bool has[6] = {x > 0, x + 1 < sx, y > 0, y + 1 < sy, z > 0, z + 1 < sz};
        const uint32_t step[6] = {bit ? 0 : 1, bit < 63 ? 0 : 1, dy, dy, W, W};
        const uint32_t pos_step[6] = {bit ? 0 : 1,       bit < 63 ? 0 : 1,  1u << POS_Y_SHIFT,
                                      1u << POS_Y_SHIFT, 1u << POS_Z_SHIFT, 1u << POS_Z_SHIFT};
        const uint32_t at_bit[6] = {(bit - 1) & 63, (bit + 1) & 63, bit, bit, bit, bit};
        uint32_t at[6], seeds = 0;
        for (int d = 0; d < 6; ++d) {
            uint32_t delta = has[d] ? step[d] : 0;
            at[d] = d & 1 ? t + delta : t - delta;
            uint32_t b = has[d] ? at_bit[d] : bit;
            seeds |= (uint32_t)(((solid[at[d]] & ~visited[at[d]]) >> b) & 1) << d;
        }
        for (; seeds; seeds &= seeds - 1) {
            int d = __builtin_ctz(seeds);
            uint64_t b = 1ull << at_bit[d];
            if (s->visited[at[d]] & b)
                continue;
            if (!reserve_seed(s)) {
                cursor_store(&c);
                reset(s);
                return VXK_ERR_OUT_OF_MEMORY;
            }
            start_finder(&c, d & 1 ? pos + pos_step[d] : pos - pos_step[d], at[d], b);
        }
    }
    cursor_store(&c);
    s->stats.finders = s->finder_count;
    for (uint32_t f = 0; f < s->finder_count; ++f)
        if (s->finders[f].parent == f && s->finders[f].state == GROUP_ACTIVE)
            heap_push(s, f);
    return VXK_OK;
}

// The next group to grow: the active root with the fewest voxels (ties: the lower id). The carry
// goes on when the heap holds nothing smaller; heap entries of merged or resolved groups are
// dropped, stale counts pushed again.
static uint32_t next_group(vxk_split* s)
{
    uint32_t replace = NONE;
    if (s->carry != NONE) {
        uint32_t c = s->carry;
        s->carry = NONE;
        if (s->heap_count == 0 || heap_key(s, c) < s->heap[0])
            return c;
        replace = c; // the first pop puts it in the heap
    }
    for (;; replace = NONE) {
        VXK_ASSERT(s->heap_count > 0);
        uint64_t key = heap_pop(s, replace);
        uint32_t g = (uint32_t)key;
        const vxk_split_finder* f = &s->finders[g];
        if (f->parent != g || f->state != GROUP_ACTIVE)
            continue;
        if (heap_key(s, g) != key) {
            heap_push(s, g);
            continue;
        }
        return g;
    }
}

enum { RUN_ENDED, RUN_BOUND, RUN_NO_MEMORY };

// Runs rounds until the search ends, `*expanded` reaches bound, or memory runs short. One cursor
// serves every round: the splitter's entry count and round group are synchronised around the
// group bookkeeping between rounds.
SPLIT_INLINE int run_rounds(vxk_split* s, uint64_t* expanded, uint64_t bound, bool one_word)
{
    cursor c;
    cursor_load(&c, s);
    uint32_t need = claims_per_expansion(s);
    uint64_t done = *expanded, start = done;
    int outcome = RUN_ENDED;
    while (!s->done) {
        if (!s->in_round) {
            if (s->active_groups == 0) {
                s->done = true;
                break;
            }
            if ((s->flags & VXK_SPLIT_KEEP_LAST) && s->active_groups == 1 &&
                s->anchored_groups == 0) {
                s->stats.kept_groups = 1;
                s->done = true;
                break;
            }
            if (!vxk_grow_items((void**)&s->ranges, &s->range_capacity,
                                (uint64_t)s->range_count + 1, sizeof(vxk_split_range))) {
                outcome = RUN_NO_MEMORY;
                break;
            }
            uint32_t g = next_group(s);
            vxk_split_finder* f = &s->finders[g];
            s->round_group = c.group = g;
            s->round_range = f->pending_head;
            s->round_index = s->ranges[f->pending_head].start;
            f->pending_head = f->pending_tail = 0;
            s->round_start = c.entry_count;
            s->in_round = true;
            ++s->stats.rounds;
        }
        uint32_t r = s->round_range, i = s->round_index;
        uint32_t end = s->ranges[r].end, next = s->ranges[r].next;
        for (;;) {
            if (i == end) {
                r = next;
                if (!r)
                    break;
                i = s->ranges[r].start;
                end = s->ranges[r].end;
                next = s->ranges[r].next;
            }
            if (done >= bound) {
                outcome = RUN_BOUND;
                break;
            }
            if ((uint64_t)c.entry_count + need > s->entry_capacity ||
                (uint64_t)s->share_count + need > s->share_capacity) {
                s->entry_count = c.entry_count;
                if (!reserve_claims_slow(s, need)) {
                    outcome = RUN_NO_MEMORY;
                    break;
                }
                c.entries = s->entries;
            }
            vxk_split_entry e = c.entries[i++];
            done += (uint32_t)__builtin_popcountll(e.bits);
            if (!expand(&c, e, true, one_word))
                break; // anchored: the round ends
        }
        s->round_range = r;
        s->round_index = i;
        if (outcome != RUN_ENDED)
            break;
        s->entry_count = c.entry_count;
        close_round(s);
    }
    cursor_store(&c);
    s->stats.voxels_expanded += done - start;
    *expanded = done;
    return outcome;
}

vxk_status vxk_split_run(vxk_split* split, uint64_t max_voxels, bool* done)
{
    if (!split || !done || !split->active)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_split* s = split;
    ++s->stats.calls;
    uint64_t expanded = 0;
    uint64_t bound = max_voxels ? max_voxels : UINT64_MAX;
    int outcome = s->words_per_row == 1 ? run_rounds(s, &expanded, bound, true)
                                        : run_rounds(s, &expanded, bound, false);
    if (outcome == RUN_BOUND) {
        *done = false;
        return VXK_OK;
    }
    if (outcome == RUN_NO_MEMORY)
        return VXK_ERR_OUT_OF_MEMORY;
    s->stats.anchored_groups = 0;
    s->stats.free_groups = s->free_count;
    for (uint32_t f = 0; f < s->finder_count; ++f)
        s->stats.anchored_groups +=
            s->finders[f].parent == f && s->finders[f].state == GROUP_ANCHORED;
    s->stats.entries = s->entry_count;
    *done = true;
    return VXK_OK;
}

void vxk_split_stats_get(const vxk_split* split, vxk_split_stats* stats)
{
    if (!stats)
        return;
    if (!split) {
        memset(stats, 0, sizeof(*stats));
        return;
    }
    *stats = split->stats;
    if (split->active)
        stats->entries = split->entry_count;
}

// ---- results ------------------------------------------------------------------------------

// Sorts records (key << 32 | payload) by key, keeping equal keys in input order.
static void sort_records(uint64_t* records, uint64_t* scratch, uint32_t n)
{
    if (n <= 32) {
        for (uint32_t i = 1; i < n; ++i) {
            uint64_t r = records[i];
            uint32_t j = i;
            for (; j > 0 && (records[j - 1] >> 32) > (r >> 32); --j)
                records[j] = records[j - 1];
            records[j] = r;
        }
        return;
    }
    vxk_radix_sort_records(records, scratch, n, 1);
}

// A component's rows in the making: its bounds in x and z (y comes from the first and last rows).
typedef struct row_bounds {
    uint64_t voxels;
    int32_t min_z, max_z;
    uint64_t columns[16]; // per x-word, the OR of the rows' bits (x bounds at the end)
} row_bounds;
_Static_assert(VXK_SPLIT_MAX_SIZE / 64 <= 16, "a row has at most 16 words");

static inline void emit_row(vxk_split_result* result, row_bounds* b, uint32_t pos, uint64_t bits)
{
    uint32_t z = pos_z(pos), word = pos_word(pos);
    result->rows[result->row_count++] =
        (vxk_split_row){(uint16_t)pos_y(pos), (uint16_t)z, (uint16_t)word, 0, bits};
    b->voxels += (uint64_t)__builtin_popcountll(bits);
    b->columns[word] |= bits;
    b->min_z = VXK_MIN(b->min_z, (int32_t)z);
    b->max_z = VXK_MAX(b->max_z, (int32_t)z);
}

// Appends one component's rows (one per word, ordered by (y, z, word)) from its claims: the
// ranges of the list from `head` (n claims, n >= 1). records and scratch hold n words each.
// Word indices grow with (y, z, word), so when the claims' words span few mark words the claims
// are merged into owners[] (the search is over), their positions noted in visited[] (cleared by
// the reset that follows) and read back in order of their marks; otherwise they are sorted.
static void build_component(vxk_split* s, vxk_split_result* result, uint32_t head, uint32_t n,
                            uint64_t* records, uint64_t* scratch)
{
    vxk_split_component* c = &result->components[result->component_count++];
    c->first_row = result->row_count;
    const vxk_split_entry* entries = s->entries;
    const vxk_split_range* ranges = s->ranges;
    row_bounds b = {0, INT32_MAX, INT32_MIN, {0}};
    // The span of mark words to scan: the whole grid's when that is small, else the claims'.
    uint32_t lo = 0, hi = (uint32_t)vxk_split_grid_words(s->grid.size) - 1;
    if ((hi >> 6) > 2 * (uint64_t)n + 16) {
        lo = UINT32_MAX;
        hi = 0;
        for (uint32_t r = head; r; r = ranges[r].next)
            for (uint32_t i = ranges[r].start, end = ranges[r].end; i < end; ++i) {
                lo = VXK_MIN(lo, entries[i].index);
                hi = VXK_MAX(hi, entries[i].index);
            }
    }
    if ((hi >> 6) - (lo >> 6) <= 2 * (uint64_t)n + 16) {
        uint64_t *marks = s->marks, *bits = s->owners, *positions = s->visited;
        for (uint32_t r = head; r; r = ranges[r].next)
            for (uint32_t i = ranges[r].start, end = ranges[r].end; i < end; ++i) {
                uint32_t t = entries[i].index;
                uint64_t m = 1ull << (t & 63), seen = marks[t >> 6] & m;
                marks[t >> 6] |= m;
                bits[t] = (seen ? bits[t] : 0) | entries[i].bits;
                positions[t] = entries[i].pos;
            }
        for (uint32_t k = lo >> 6; k <= hi >> 6; ++k) {
            uint64_t m = marks[k];
            if (!m)
                continue;
            marks[k] = 0;
            for (; m; m &= m - 1) {
                uint32_t t = (k << 6) | (uint32_t)__builtin_ctzll(m);
                emit_row(result, &b, (uint32_t)positions[t], bits[t]);
            }
        }
    } else {
        uint32_t k = 0;
        for (uint32_t r = head; r; r = ranges[r].next)
            for (uint32_t i = ranges[r].start; i < ranges[r].end; ++i)
                records[k++] = ((uint64_t)entries[i].pos << 32) | i;
        sort_records(records, scratch, n);
        for (uint32_t i = 0; i < n;) {
            uint32_t pos = (uint32_t)(records[i] >> 32);
            uint64_t bits = 0;
            for (; i < n && (uint32_t)(records[i] >> 32) == pos; ++i)
                bits |= entries[(uint32_t)records[i]].bits;
            emit_row(result, &b, pos, bits);
        }
    }
    c->row_count = result->row_count - c->first_row;
    c->voxel_count = (uint32_t)b.voxels;
    const vxk_split_row* first = &result->rows[c->first_row];
    const vxk_split_row* last = &result->rows[result->row_count - 1];
    c->min_voxel = (vxk_int3){64 * first->word + __builtin_ctzll(first->bits), first->y, first->z};
    uint32_t lo_word = 0, hi_word = s->words_per_row - 1;
    while (!b.columns[lo_word])
        ++lo_word;
    while (!b.columns[hi_word])
        --hi_word;
    int32_t min_x = 64 * (int32_t)lo_word + __builtin_ctzll(b.columns[lo_word]);
    int32_t max_x = 64 * (int32_t)hi_word + 63 - __builtin_clzll(b.columns[hi_word]);
    c->bounds =
        (vxk_int_box){{min_x, (int32_t)first->y, b.min_z}, {max_x, (int32_t)last->y, b.max_z}};
}

static bool reserve_result(vxk_split_result* result, uint32_t components, uint32_t rows)
{
    return vxk_grow_items((void**)&result->components, &result->component_capacity, components,
                          sizeof(vxk_split_component)) &&
           vxk_grow_items((void**)&result->rows, &result->row_capacity, rows,
                          sizeof(vxk_split_row));
}

// The sort scratch: a word per group (its list of ranges and claims), a record per claim, as much
// radix scratch, a copy of the components (6 words each).
#define COMPONENT_WORDS (sizeof(vxk_split_component) / sizeof(uint64_t))
_Static_assert(sizeof(vxk_split_component) % sizeof(uint64_t) == 0, "components copy as words");

static bool reserve_sort(vxk_split* s, uint32_t claims, uint32_t groups)
{
    uint64_t words = (uint64_t)groups * (1 + COMPONENT_WORDS) + 2 * (uint64_t)claims + 1;
    return vxk_grow_items((void**)&s->sort_scratch, &s->sort_capacity, words, sizeof(uint64_t));
}

// Orders the components by smallest voxel (each one's rows stay where they are). keys and scratch
// hold a word per component, copy 6.
static void order_components(vxk_split_result* result, uint64_t* keys, uint64_t* scratch,
                             uint64_t* copy)
{
    uint32_t n = result->component_count;
    if (n < 2)
        return;
    for (uint32_t i = 0; i < n; ++i) {
        const vxk_split_row* r = &result->rows[result->components[i].first_row];
        uint64_t key =
            ((uint64_t)pos_pack(r->y, r->z, r->word) << 6) | (uint64_t)__builtin_ctzll(r->bits);
        keys[i] = (key << 32) | i;
    }
    sort_records(keys, scratch, n);
    vxk_split_component* sorted = (vxk_split_component*)copy;
    for (uint32_t i = 0; i < n; ++i)
        sorted[i] = result->components[(uint32_t)keys[i]];
    memcpy(result->components, sorted, (size_t)n * sizeof(vxk_split_component));
}

vxk_status vxk_split_result_get(vxk_split* split, vxk_split_result* result)
{
    if (!split || !result || !split->active || !split->done)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_split* s = split;
    result->component_count = 0;
    result->row_count = 0;
    uint32_t groups = s->free_count, entries = s->entry_count;
    if (!reserve_sort(s, entries, groups))
        return VXK_ERR_OUT_OF_MEMORY;
    // Every claim lies in a range closed while its group was active, and a free group's ranges
    // are all its claims: list each free group's ranges (relinking them, the pending lists are
    // done with) and count its claims. lists[k]: head | claims << 32.
    uint64_t* lists = s->sort_scratch;
    uint64_t* records = lists + groups;
    uint64_t* scratch = records + entries;
    uint64_t* copy = scratch + entries + 1;
    for (uint32_t k = 0; k < groups; ++k) {
        s->finders[s->free_roots[k]].bucket = k + 1;
        lists[k] = 0;
    }
    uint32_t claims = 0;
    for (uint32_t r = 1; groups && r < s->range_count; ++r) {
        vxk_split_range* range = &s->ranges[r];
        const vxk_split_finder* root = &s->finders[find(s, range->group)];
        if (root->state != GROUP_FREE)
            continue;
        uint64_t* list = &lists[root->bucket - 1];
        uint32_t n = range->end - range->start;
        range->next = (uint32_t)*list;
        *list = r | ((*list >> 32) + n) << 32;
        claims += n;
    }
    if (!reserve_result(result, groups, claims))
        return VXK_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < groups; ++k)
        build_component(s, result, (uint32_t)lists[k], (uint32_t)(lists[k] >> 32), records,
                        scratch);
    order_components(result, records, scratch, copy);
    s->stats.entries = entries;
    reset(s);
    return VXK_OK;
}

// ---- components ---------------------------------------------------------------------------

// Floods the component of the seed bit of word t (at pos); its claims are appended to the pool.
// Returns false when claims cannot be reserved.
SPLIT_INLINE bool label_flood(vxk_split* s, uint32_t pos, uint32_t t, uint64_t seed, bool one_word)
{
    uint32_t need = claims_per_expansion(s);
    cursor c;
    cursor_load(&c, s);
    uint32_t i = c.entry_count;
    claim_runs(&c, pos, t, false, seed, false, one_word);
    bool ok = true;
    for (; i < c.entry_count; ++i) {
        if ((uint64_t)c.entry_count + need > s->entry_capacity ||
            (uint64_t)s->share_count + need > s->share_capacity) {
            cursor_store(&c);
            ok = reserve_claims_slow(s, need);
            cursor_load(&c, s);
            if (!ok)
                break;
        }
        expand(&c, c.entries[i], false, one_word);
    }
    cursor_store(&c);
    return ok;
}

vxk_status vxk_split_components(vxk_split* split, vxk_split_result* result,
                                const vxk_split_grid* grid)
{
    if (!split || !result)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status st = check_grid(grid);
    if (st != VXK_OK)
        return st;
    vxk_split* s = split;
    reset(s);
    memset(&s->stats, 0, sizeof(s->stats));
    result->component_count = 0;
    result->row_count = 0;
    size_t words = vxk_split_grid_words(grid->size);
    if (!reserve_words(s, words))
        return VXK_ERR_OUT_OF_MEMORY;
    set_grid(s, grid);
    s->flags = 0;
    // Component c's claims are entries ranges[c + 1]; the scan's first unvisited solid voxel
    // starts the next component, so they come in smallest-voxel order.
    uint32_t W = s->words_per_row;
    for (uint32_t t = 0, word = 0; t < (uint32_t)words; ++t, word = word + 1 == W ? 0 : word + 1) {
        uint64_t mask = word + 1 == W ? s->last_word_mask : ~0ull;
        uint64_t open = s->grid.solid[t] & mask & ~s->visited[t];
        if (!open)
            continue;
        uint32_t row = t / W, y = row / (uint32_t)grid->size.z, z = row % (uint32_t)grid->size.z;
        for (; open; open = s->grid.solid[t] & mask & ~s->visited[t]) {
            uint32_t start = s->entry_count;
            if (!vxk_grow_items((void**)&s->ranges, &s->range_capacity,
                                (uint64_t)s->range_count + 1, sizeof(vxk_split_range)) ||
                !reserve_claims(s, claims_per_expansion(s)))
                goto out_of_memory;
            uint32_t pos = pos_pack(y, z, word);
            uint64_t seed = open & (~open + 1);
            if (!(W == 1 ? label_flood(s, pos, t, seed, true)
                         : label_flood(s, pos, t, seed, false)))
                goto out_of_memory;
            s->ranges[s->range_count++] = (vxk_split_range){start, s->entry_count, 0, 0};
        }
    }
    uint32_t groups = s->range_count - 1, entries = s->entry_count;
    if (!reserve_sort(s, entries, groups) || !reserve_result(result, groups, entries))
        goto out_of_memory;
    uint64_t* records = s->sort_scratch;
    uint64_t* scratch = records + entries;
    for (uint32_t c = 1; c <= groups; ++c) {
        vxk_split_range r = s->ranges[c];
        build_component(s, result, c, r.end - r.start, records, scratch);
        s->stats.voxels_visited += result->components[c - 1].voxel_count;
    }
    s->stats.free_groups = groups;
    s->stats.entries = entries;
    reset(s);
    return VXK_OK;
out_of_memory:
    reset(s);
    result->component_count = 0;
    result->row_count = 0;
    return VXK_ERR_OUT_OF_MEMORY;
}
