// test_split.c: connectivity splitting (geometry/split.h) against a brute-force breadth-first
// search voxel by voxel over byte grids (sharing no code with split.c) on 10,000 seeded random
// grids and edits; built cases (a bridge, a tower, a hollow shell); searches cut into tiny calls;
// the chunk gather's SIMD kernel against its scalar twin and a voxel-by-voxel reference; bad
// input and out-of-memory statuses.
#include "harness.h"

#include "split.h"

#include <vxk/simd_flood.h>

#include <stdlib.h>
#include <string.h>

// ---- the reference: byte grids, a plain queue -----------------------------------------------

typedef struct ref_grid {
    int sx, sy, sz;
    uint8_t* solid;  // index x + sx * (z + sz * y): increasing index is (y, z, x) order
    uint8_t* anchor; // may be set on air (ignored), NULL: none
} ref_grid;

static size_t ref_index(const ref_grid* g, int x, int y, int z)
{
    return (size_t)x + (size_t)g->sx * ((size_t)z + (size_t)g->sz * (size_t)y);
}

typedef struct ref_component {
    int32_t label;
    uint32_t size;
    size_t min_index;
    int lo[3], hi[3];
    bool anchored;
} ref_component;

typedef struct ref_result {
    int32_t* label; // per voxel: component label, -1 unlabelled
    ref_component* components;
    uint32_t count;
} ref_result;

static void ref_free(ref_result* r)
{
    free(r->label);
    free(r->components);
    memset(r, 0, sizeof(*r));
}

// Labels the component of voxel `start` by breadth-first search.
static void ref_flood(const ref_grid* g, ref_result* r, size_t start, bool boundary_anchors,
                      uint32_t* queue)
{
    ref_component c = {(int32_t)r->count, 0, start, {g->sx, g->sy, g->sz}, {-1, -1, -1}, false};
    uint32_t head = 0, tail = 0;
    queue[tail++] = (uint32_t)start;
    r->label[start] = c.label;
    while (head < tail) {
        uint32_t i = queue[head++];
        int x = (int)(i % (uint32_t)g->sx);
        int z = (int)((i / (uint32_t)g->sx) % (uint32_t)g->sz);
        int y = (int)(i / ((uint32_t)g->sx * (uint32_t)g->sz));
        ++c.size;
        if (i < c.min_index)
            c.min_index = i;
        int v[3] = {x, y, z};
        for (int a = 0; a < 3; ++a) {
            if (v[a] < c.lo[a])
                c.lo[a] = v[a];
            if (v[a] > c.hi[a])
                c.hi[a] = v[a];
        }
        if (g->anchor && g->anchor[i])
            c.anchored = true;
        if (boundary_anchors &&
            (x == 0 || y == 0 || z == 0 || x == g->sx - 1 || y == g->sy - 1 || z == g->sz - 1))
            c.anchored = true;
        static const int d[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                    {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
        for (int k = 0; k < 6; ++k) {
            int nx = x + d[k][0], ny = y + d[k][1], nz = z + d[k][2];
            if (nx < 0 || ny < 0 || nz < 0 || nx >= g->sx || ny >= g->sy || nz >= g->sz)
                continue;
            size_t n = ref_index(g, nx, ny, nz);
            if (g->solid[n] && r->label[n] < 0) {
                r->label[n] = c.label;
                queue[tail++] = (uint32_t)n;
            }
        }
    }
    r->components[r->count++] = c;
}

// The components of the solid face-neighbours of the removed voxels (seeds == NULL: of every
// solid voxel), in the order they are met; flags the anchored ones.
static void ref_components(const ref_grid* g, ref_result* r, const vxk_int3* removed,
                           uint32_t count, bool all, bool boundary_anchors)
{
    size_t n = (size_t)g->sx * g->sy * g->sz;
    r->label = (int32_t*)malloc(n * sizeof(int32_t));
    r->components = (ref_component*)malloc((n + 1) * sizeof(ref_component));
    r->count = 0;
    uint32_t* queue = (uint32_t*)malloc(n * sizeof(uint32_t));
    for (size_t i = 0; i < n; ++i)
        r->label[i] = -1;
    if (all) {
        for (size_t i = 0; i < n; ++i)
            if (g->solid[i] && r->label[i] < 0)
                ref_flood(g, r, i, boundary_anchors, queue);
    } else {
        for (uint32_t i = 0; i < count; ++i) {
            for (int k = 0; k < 6; ++k) {
                int q[3] = {removed[i].x, removed[i].y, removed[i].z};
                q[k / 2] += (k & 1) ? 1 : -1;
                if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= g->sx || q[1] >= g->sy ||
                    q[2] >= g->sz)
                    continue;
                size_t s = ref_index(g, q[0], q[1], q[2]);
                if (g->solid[s] && r->label[s] < 0)
                    ref_flood(g, r, s, boundary_anchors, queue);
            }
        }
    }
    free(queue);
}

static int cmp_min_index(const void* a, const void* b)
{
    size_t x = ((const ref_component*)a)->min_index, y = ((const ref_component*)b)->min_index;
    return x < y ? -1 : x > y;
}

// ---- grids for split.h ----------------------------------------------------------------------

typedef struct bit_grid {
    vxk_int3 size;
    uint32_t words;
    uint64_t* solid;
    uint64_t* anchor;
} bit_grid;

// Rows from the byte grid; `junk` sets bits past size.x (which split.h ignores).
static void bit_grid_make(bit_grid* b, const ref_grid* g, bool junk, uint64_t* rng)
{
    b->size = (vxk_int3){g->sx, g->sy, g->sz};
    b->words = (uint32_t)(g->sx + 63) / 64;
    size_t n = (size_t)b->words * (size_t)g->sy * (size_t)g->sz;
    b->solid = (uint64_t*)calloc(n, sizeof(uint64_t));
    b->anchor = g->anchor ? (uint64_t*)calloc(n, sizeof(uint64_t)) : NULL;
    for (int y = 0; y < g->sy; ++y)
        for (int z = 0; z < g->sz; ++z) {
            uint64_t* row = b->solid + ((size_t)y * g->sz + z) * b->words;
            uint64_t* arow = b->anchor ? b->anchor + ((size_t)y * g->sz + z) * b->words : NULL;
            for (int x = 0; x < g->sx; ++x) {
                size_t i = ref_index(g, x, y, z);
                if (g->solid[i])
                    row[x / 64] |= 1ull << (x % 64);
                if (arow && g->anchor[i])
                    arow[x / 64] |= 1ull << (x % 64);
            }
            if (junk && (g->sx % 64)) {
                uint64_t pad = ~((1ull << (g->sx % 64)) - 1);
                row[b->words - 1] |= vxk_test_rand(rng) & pad;
                if (arow)
                    arow[b->words - 1] |= vxk_test_rand(rng) & pad;
            }
        }
}

static void bit_grid_free(bit_grid* b)
{
    free(b->solid);
    free(b->anchor);
}

static vxk_split_grid split_grid_of(const bit_grid* b)
{
    return (vxk_split_grid){b->size, b->solid, b->anchor};
}

// Checks that result component k is reference component c, voxel for voxel.
static int check_component(const vxk_split_result* res, uint32_t k, const ref_grid* g,
                           const ref_result* ref, const ref_component* c)
{
    const vxk_split_component* sc = &res->components[k];
    VXK_CHECK_EQ_U64(sc->voxel_count, c->size);
    int mx = (int)(c->min_index % (size_t)g->sx);
    int mz = (int)((c->min_index / (size_t)g->sx) % (size_t)g->sz);
    int my = (int)(c->min_index / ((size_t)g->sx * (size_t)g->sz));
    VXK_CHECK_MSG(sc->min_voxel.x == mx && sc->min_voxel.y == my && sc->min_voxel.z == mz,
                  "component %u min (%d %d %d), reference (%d %d %d)", k, sc->min_voxel.x,
                  sc->min_voxel.y, sc->min_voxel.z, mx, my, mz);
    VXK_CHECK(sc->bounds.min.x == c->lo[0] && sc->bounds.min.y == c->lo[1] &&
              sc->bounds.min.z == c->lo[2]);
    VXK_CHECK(sc->bounds.max.x == c->hi[0] && sc->bounds.max.y == c->hi[1] &&
              sc->bounds.max.z == c->hi[2]);
    uint64_t voxels = 0;
    uint32_t previous = 0;
    for (uint32_t i = 0; i < sc->row_count; ++i) {
        const vxk_split_row* row = &res->rows[sc->first_row + i];
        uint32_t key = ((uint32_t)row->y << 20) | ((uint32_t)row->z << 4) | row->word;
        VXK_CHECK_MSG(i == 0 || key > previous, "rows out of order in component %u", k);
        VXK_CHECK(row->bits != 0 && row->y < g->sy && row->z < g->sz);
        previous = key;
        for (int b = 0; b < 64; ++b) {
            if (!((row->bits >> b) & 1))
                continue;
            int x = 64 * row->word + b;
            VXK_CHECK_MSG(x < g->sx, "voxel x %d past the grid", x);
            int32_t label = ref->label[ref_index(g, x, row->y, row->z)];
            VXK_CHECK_MSG(label == c->label, "voxel (%d %d %d) labelled %d, component %d", x,
                          row->y, row->z, label, c->label);
            ++voxels;
        }
    }
    VXK_CHECK_EQ_U64(voxels, c->size);
    return 0;
}

// The search's free components against the reference. keep_last: the reference's free list
// loses one of its largest components when none of the seeds' components is anchored.
static int check_search(const vxk_split_result* res, const ref_grid* g, ref_result* ref,
                        bool keep_last)
{
    ref_component* frees = (ref_component*)malloc((ref->count + 1) * sizeof(ref_component));
    uint32_t nfree = 0, largest = 0;
    bool any_anchored = false;
    for (uint32_t i = 0; i < ref->count; ++i) {
        any_anchored |= ref->components[i].anchored;
        if (!ref->components[i].anchored) {
            frees[nfree++] = ref->components[i];
            if (ref->components[i].size > largest)
                largest = ref->components[i].size;
        }
    }
    qsort(frees, nfree, sizeof(ref_component), cmp_min_index);
    int fail = 0;
    uint32_t skipped = 0;
    if (keep_last && !any_anchored && nfree > 0) {
        // One of the largest is kept: the result is the list without one of them.
        if (res->component_count != nfree - 1) {
            fprintf(stderr, "keep-last: %u components, reference %u free\n", res->component_count,
                    nfree);
            fail = 1;
        }
        for (uint32_t k = 0, i = 0; !fail && k < res->component_count; ++k, ++i) {
            const vxk_split_component* sc = &res->components[k];
            int32_t label =
                ref->label[ref_index(g, sc->min_voxel.x, sc->min_voxel.y, sc->min_voxel.z)];
            while (i < nfree && frees[i].label != label) {
                if (frees[i].size != largest || skipped) {
                    fprintf(stderr, "keep-last dropped a component of %u voxels (largest %u)\n",
                            frees[i].size, largest);
                    fail = 1;
                }
                ++skipped;
                ++i;
            }
            if (!fail && (i == nfree || check_component(res, k, g, ref, &frees[i])))
                fail = 1;
        }
    } else {
        if (res->component_count != nfree) {
            fprintf(stderr, "%u components, reference %u free\n", res->component_count, nfree);
            fail = 1;
        }
        for (uint32_t k = 0; !fail && k < nfree; ++k)
            fail = check_component(res, k, g, ref, &frees[k]);
    }
    free(frees);
    return fail;
}

// ---- random grids and edits -------------------------------------------------------------------

static int rand_int(uint64_t* rng, int lo, int hi) // inclusive
{
    return lo + (int)(vxk_test_rand(rng) % (uint64_t)(hi - lo + 1));
}

static double rand_unit(uint64_t* rng)
{
    return (double)(vxk_test_rand(rng) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct random_case {
    ref_grid g;
    vxk_int3* removed;
    uint32_t removed_count;
    uint32_t flags;
} random_case;

static void random_case_free(random_case* c)
{
    free(c->g.solid);
    free(c->g.anchor);
    free(c->removed);
}

static void make_case(random_case* c, uint64_t* rng, uint32_t index)
{
    memset(c, 0, sizeof(*c));
    int sx, sy, sz;
    if (index % 2500 == 1249) {
        sx = sy = sz = 128;
    } else if (index % 500 == 3) {
        sx = sy = sz = 64;
    } else if (index % 10 == 7) { // rows of several words
        sx = rand_int(rng, 60, 200);
        sy = rand_int(rng, 1, 14);
        sz = rand_int(rng, 1, 14);
    } else {
        sx = rand_int(rng, 1, 40);
        sy = rand_int(rng, 1, 40);
        sz = rand_int(rng, 1, 40);
    }
    ref_grid* g = &c->g;
    g->sx = sx;
    g->sy = sy;
    g->sz = sz;
    size_t n = (size_t)sx * sy * sz;
    g->solid = (uint8_t*)calloc(n, 1);
    int fill = rand_int(rng, 0, 3);
    double p = 0.15 + 0.55 * rand_unit(rng); // around the site percolation threshold 0.3116
    int base = rand_int(rng, 0, sy), amplitude = rand_int(rng, 0, 6);
    double fx = 0.1 + 0.5 * rand_unit(rng), fz = 0.1 + 0.5 * rand_unit(rng);
    for (int y = 0; y < sy; ++y)
        for (int z = 0; z < sz; ++z)
            for (int x = 0; x < sx; ++x) {
                bool s;
                if (fill <= 1) {
                    s = rand_unit(rng) < p;
                } else if (fill == 2) { // terrain: a wavy surface with holes
                    double h =
                        base + amplitude * (0.5 * (1 + ((x * 7 + z * 3) % 11) / 11.0 * (fx + fz)));
                    s = y <= h && rand_unit(rng) >= p * 0.5;
                } else { // layers with gaps: long runs along x
                    s = ((y + z) % 3 != 0 || rand_unit(rng) < p) && rand_unit(rng) >= 0.05;
                }
                g->solid[ref_index(g, x, y, z)] = s;
            }
    // Edits: single voxels, a box, a sphere, a scatter; removed voxels become air.
    int kind = rand_int(rng, 0, 3);
    uint32_t cap = 64;
    c->removed = (vxk_int3*)malloc(cap * sizeof(vxk_int3));
    int cx = rand_int(rng, 0, sx - 1), cy = rand_int(rng, 0, sy - 1), cz = rand_int(rng, 0, sz - 1);
    int r = rand_int(rng, 0, 6);
    int count = kind == 0 ? rand_int(rng, 1, 5) : kind == 3 ? rand_int(rng, 1, 60) : 0;
    for (int y = 0; y < sy; ++y)
        for (int z = 0; z < sz; ++z)
            for (int x = 0; x < sx; ++x) {
                bool take = false;
                int dx = x - cx, dy = y - cy, dz = z - cz;
                if (kind == 1)
                    take = abs(dx) <= r && abs(dy) <= r / 2 && abs(dz) <= (r + 1) / 3 + 1;
                else if (kind == 2)
                    take = dx * dx + dy * dy + dz * dz <= r * r;
                if (!take)
                    continue;
                if (c->removed_count == cap) {
                    cap *= 2;
                    c->removed = (vxk_int3*)realloc(c->removed, cap * sizeof(vxk_int3));
                }
                c->removed[c->removed_count++] = (vxk_int3){x, y, z};
            }
    for (int i = 0; i < count; ++i) {
        if (c->removed_count == cap) {
            cap *= 2;
            c->removed = (vxk_int3*)realloc(c->removed, cap * sizeof(vxk_int3));
        }
        vxk_int3 v = {rand_int(rng, 0, sx - 1), rand_int(rng, 0, sy - 1), rand_int(rng, 0, sz - 1)};
        c->removed[c->removed_count++] = v;
        if (i > 0 && rand_int(rng, 0, 7) == 0) // a duplicate now and then
            c->removed[c->removed_count - 1] = c->removed[c->removed_count - 2];
    }
    for (uint32_t i = 0; i < c->removed_count; ++i) {
        vxk_int3 v = c->removed[i];
        g->solid[ref_index(g, v.x, v.y, v.z)] = 0;
    }
    // Anchors: none, the floor, a sparse random set (on air too, which does not count).
    int anchors = rand_int(rng, 0, 3);
    if (anchors) {
        g->anchor = (uint8_t*)calloc(n, 1);
        double q = 0.001 + 0.02 * rand_unit(rng);
        for (int y = 0; y < sy; ++y)
            for (int z = 0; z < sz; ++z)
                for (int x = 0; x < sx; ++x) {
                    bool a = anchors == 1 ? y == 0 : rand_unit(rng) < q;
                    if (anchors == 3 && y == 0 && rand_unit(rng) < 0.5)
                        a = true;
                    g->anchor[ref_index(g, x, y, z)] = a;
                }
    }
    c->flags = (uint32_t)rand_int(rng, 0, 3);
}

static void result_init(vxk_split_result* r)
{
    memset(r, 0, sizeof(*r));
}

static int results_equal(const vxk_split_result* a, const vxk_split_result* b)
{
    VXK_CHECK_EQ_U64(a->component_count, b->component_count);
    VXK_CHECK_EQ_U64(a->row_count, b->row_count);
    for (uint32_t i = 0; i < a->component_count; ++i)
        VXK_CHECK(memcmp(&a->components[i], &b->components[i], sizeof(vxk_split_component)) == 0);
    for (uint32_t i = 0; i < a->row_count; ++i)
        VXK_CHECK(memcmp(&a->rows[i], &b->rows[i], sizeof(vxk_split_row)) == 0);
    return 0;
}

static int stats_equal(vxk_split_stats a, vxk_split_stats b)
{
    a.calls = b.calls = 0;
    VXK_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    return 0;
}

// Runs a whole search; max_voxels 0: one unbounded call.
static vxk_status search(vxk_split* s, vxk_split_result* res, const vxk_split_grid* grid,
                         const random_case* c, uint64_t max_voxels, vxk_split_stats* stats)
{
    vxk_status st = vxk_split_begin(s, grid, c->removed, c->removed_count, c->flags);
    if (st != VXK_OK)
        return st;
    bool done = false;
    while (!done) {
        st = vxk_split_run(s, max_voxels, &done);
        if (st != VXK_OK)
            return st;
    }
    vxk_split_stats_get(s, stats);
    return vxk_split_result_get(s, res);
}

static int test_random_against_bfs(void)
{
    uint64_t rng = vxk_test_seed(0x5B117);
    uint32_t cases = VXK_TEST_SLOW ? 2500 : 10000;
    vxk_split s;
    vxk_split_init(&s);
    vxk_split_result res, cut;
    result_init(&res);
    result_init(&cut);
    uint64_t total_free = 0, total_merges = 0, total_shared = 0, keep_hits = 0;
    for (uint32_t index = 0; index < cases; ++index) {
        random_case c;
        make_case(&c, &rng, index);
        bit_grid b;
        bit_grid_make(&b, &c.g, index % 3 == 0, &rng);
        vxk_split_grid grid = split_grid_of(&b);
        vxk_split_stats stats, cut_stats;
        VXK_CHECK_EQ_INT(search(&s, &res, &grid, &c, 0, &stats), VXK_OK);
        ref_result ref;
        ref_components(&c.g, &ref, c.removed, c.removed_count, false,
                       (c.flags & VXK_SPLIT_BOUNDARY_ANCHORS) != 0);
        int fail = check_search(&res, &c.g, &ref, (c.flags & VXK_SPLIT_KEEP_LAST) != 0);
        if (fail)
            fprintf(stderr, "case %u: size %d %d %d, flags %u, %u removed\n", index, c.g.sx, c.g.sy,
                    c.g.sz, c.flags, c.removed_count);
        VXK_CHECK(!fail);
        total_free += res.component_count;
        total_merges += stats.merges;
        total_shared += stats.shared_words;
        keep_hits += stats.kept_groups;
        // The same search cut into small calls: the same result and statistics.
        if (index % 4 == 1) {
            uint64_t bound = (uint64_t)rand_int(&rng, 1, 300);
            VXK_CHECK_EQ_INT(search(&s, &cut, &grid, &c, bound, &cut_stats), VXK_OK);
            VXK_CHECK(!results_equal(&res, &cut));
            VXK_CHECK(!stats_equal(stats, cut_stats));
        }
        ref_free(&ref);
        bit_grid_free(&b);
        random_case_free(&c);
    }
    fprintf(stderr, "  %u cases: %llu free components, %llu merges, %llu shared words, %llu kept\n",
            cases, (unsigned long long)total_free, (unsigned long long)total_merges,
            (unsigned long long)total_shared, (unsigned long long)keep_hits);
    // The random cases must exercise what they are for.
    VXK_CHECK(total_free > cases / 4 && total_merges > cases && total_shared > 100 &&
              keep_hits > cases / 20);
    vxk_split_result_free(&res);
    vxk_split_result_free(&cut);
    vxk_split_destroy(&s);
    return 0;
}

static int test_components_against_bfs(void)
{
    uint64_t rng = vxk_test_seed(0xC0C0);
    uint32_t cases = VXK_TEST_SLOW ? 500 : 2000;
    vxk_split s;
    vxk_split_init(&s);
    vxk_split_result res;
    result_init(&res);
    uint64_t total = 0;
    for (uint32_t index = 0; index < cases; ++index) {
        random_case c;
        make_case(&c, &rng, index);
        bit_grid b;
        bit_grid_make(&b, &c.g, index % 2 == 0, &rng);
        vxk_split_grid grid = split_grid_of(&b);
        VXK_CHECK_EQ_INT(vxk_split_components(&s, &res, &grid), VXK_OK);
        ref_result ref;
        ref_components(&c.g, &ref, NULL, 0, true, false);
        VXK_CHECK_EQ_U64(res.component_count, ref.count); // found in min-index order already
        for (uint32_t k = 0; k < ref.count; ++k)
            VXK_CHECK(!check_component(&res, k, &c.g, &ref, &ref.components[k]));
        total += ref.count;
        ref_free(&ref);
        bit_grid_free(&b);
        random_case_free(&c);
    }
    VXK_CHECK(total > cases * 10);
    vxk_split_result_free(&res);
    vxk_split_destroy(&s);
    return 0;
}

// ---- built cases ------------------------------------------------------------------------------

typedef struct scene {
    ref_grid g;
    vxk_int3 removed[4096];
    uint32_t removed_count;
} scene;

static void scene_init(scene* sc, int sx, int sy, int sz, bool floor_anchors)
{
    memset(sc, 0, sizeof(*sc));
    sc->g.sx = sx;
    sc->g.sy = sy;
    sc->g.sz = sz;
    size_t n = (size_t)sx * sy * sz;
    sc->g.solid = (uint8_t*)calloc(n, 1);
    if (floor_anchors) {
        sc->g.anchor = (uint8_t*)calloc(n, 1);
        for (int z = 0; z < sz; ++z)
            for (int x = 0; x < sx; ++x)
                sc->g.anchor[ref_index(&sc->g, x, 0, z)] = 1;
    }
}

static void scene_box(scene* sc, int x0, int y0, int z0, int x1, int y1, int z1, uint8_t v)
{
    for (int y = y0; y <= y1; ++y)
        for (int z = z0; z <= z1; ++z)
            for (int x = x0; x <= x1; ++x)
                sc->g.solid[ref_index(&sc->g, x, y, z)] = v;
}

// Removes a box: its solid voxels go to the removed list.
static void scene_cut(scene* sc, int x0, int y0, int z0, int x1, int y1, int z1)
{
    for (int y = y0; y <= y1; ++y)
        for (int z = z0; z <= z1; ++z)
            for (int x = x0; x <= x1; ++x) {
                size_t i = ref_index(&sc->g, x, y, z);
                if (sc->g.solid[i]) {
                    sc->g.solid[i] = 0;
                    sc->removed[sc->removed_count++] = (vxk_int3){x, y, z};
                }
            }
}

static void scene_free(scene* sc)
{
    free(sc->g.solid);
    free(sc->g.anchor);
}

// Runs a search on the scene; the result in res.
static int scene_search(scene* sc, uint32_t flags, vxk_split_result* res, vxk_split_stats* stats)
{
    uint64_t rng = 1;
    bit_grid b;
    bit_grid_make(&b, &sc->g, false, &rng);
    vxk_split_grid grid = split_grid_of(&b);
    vxk_split s;
    vxk_split_init(&s);
    random_case c = {sc->g, sc->removed, sc->removed_count, flags};
    vxk_status st = search(&s, res, &grid, &c, 0, stats);
    vxk_split_destroy(&s);
    bit_grid_free(&b);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    return 0;
}

static int test_bridge(void)
{
    // A deck of 40 x 3 x 5 on two pillars standing on an anchored floor; cutting it at x = 14
    // and x = 25 drops the middle, (25 - 14 - 1) * 3 * 5 voxels, as one component.
    scene* sc = (scene*)malloc(sizeof(scene));
    scene_init(sc, 48, 20, 8, true);
    scene_box(sc, 0, 0, 0, 47, 0, 7, 1);   // floor
    scene_box(sc, 3, 1, 1, 6, 12, 6, 1);   // pillars
    scene_box(sc, 36, 1, 1, 39, 12, 6, 1); //
    scene_box(sc, 2, 13, 1, 41, 15, 5, 1); // deck
    scene_cut(sc, 14, 13, 1, 14, 15, 5);
    vxk_split_result res;
    result_init(&res);
    vxk_split_stats st;
    VXK_CHECK(!scene_search(sc, 0, &res, &st));
    VXK_CHECK_EQ_U64(res.component_count, 0); // one cut: both halves still stand
    scene_cut(sc, 25, 13, 1, 25, 15, 5);
    for (uint32_t flags = 0; flags < 4; ++flags) {
        VXK_CHECK(!scene_search(sc, flags, &res, &st));
        VXK_CHECK_EQ_U64(res.component_count, 1);
        VXK_CHECK_EQ_U64(res.components[0].voxel_count, 10 * 3 * 5);
        VXK_CHECK(res.components[0].min_voxel.x == 15 && res.components[0].min_voxel.y == 13 &&
                  res.components[0].min_voxel.z == 1);
        VXK_CHECK(res.components[0].bounds.max.x == 24 && res.components[0].bounds.max.y == 15);
    }
    // A cantilever cut near its pillar drops the rest of the deck.
    scene_free(sc);
    scene_init(sc, 48, 20, 8, true);
    scene_box(sc, 0, 0, 0, 47, 0, 7, 1);
    scene_box(sc, 3, 1, 1, 6, 12, 6, 1);
    scene_box(sc, 2, 13, 1, 41, 15, 5, 1);
    scene_cut(sc, 9, 13, 1, 9, 15, 5);
    VXK_CHECK(!scene_search(sc, VXK_SPLIT_KEEP_LAST, &res, &st));
    VXK_CHECK_EQ_U64(res.component_count, 1);
    VXK_CHECK_EQ_U64(res.components[0].voxel_count, (41 - 9) * 3 * 5);
    vxk_split_result_free(&res);
    scene_free(sc);
    free(sc);
    return 0;
}

// A 4 x 30 x 4 tower (y 3..32) on a floor 3 voxels deep, anchored at y = 0.
static void tower_scene(scene* sc)
{
    scene_init(sc, 64, 40, 64, true);
    scene_box(sc, 0, 0, 0, 63, 2, 63, 1);
    scene_box(sc, 30, 3, 30, 33, 32, 33, 1);
}

static int test_tower(void)
{
    // Removing the tower's lowest layer frees the other 29 layers whole, while the smallest-first
    // search expands the floor side only about as far as the tower.
    scene* sc = (scene*)malloc(sizeof(scene));
    tower_scene(sc);
    scene_cut(sc, 30, 3, 30, 33, 3, 33);
    vxk_split_result res;
    result_init(&res);
    vxk_split_stats st;
    for (uint32_t flags = 0; flags < 4; ++flags) {
        VXK_CHECK(!scene_search(sc, flags, &res, &st));
        VXK_CHECK_EQ_U64(res.component_count, 1);
        VXK_CHECK_EQ_U64(res.components[0].voxel_count, 4 * 29 * 4);
        VXK_CHECK(res.components[0].bounds.min.y == 4 && res.components[0].bounds.max.y == 32);
        VXK_CHECK_EQ_U64(st.free_groups, 1);
        VXK_CHECK_MSG(st.voxels_visited < 4 * 29 * 4 + 64 * 64, "visited %llu",
                      (unsigned long long)st.voxels_visited);
    }
    // Removing a voxel beside the tower's foot splits nothing, and with KEEP_LAST the four
    // seeds' finders meet and end the search at once.
    scene_free(sc);
    tower_scene(sc);
    scene_cut(sc, 20, 2, 20, 20, 2, 20);
    VXK_CHECK(!scene_search(sc, VXK_SPLIT_KEEP_LAST, &res, &st));
    VXK_CHECK_EQ_U64(res.component_count, 0);
    VXK_CHECK_EQ_U64(st.kept_groups, 1);
    VXK_CHECK_MSG(st.voxels_visited < 1000, "visited %llu", (unsigned long long)st.voxels_visited);
    vxk_split_result_free(&res);
    scene_free(sc);
    free(sc);
    return 0;
}

static int test_hollow_shell(void)
{
    // A hollow box (walls 2 thick, no anchors: a voxel body) cut by a slab at y 9..10 falls in
    // two: below 2 + ... the two parts' exact counts.
    scene* sc = (scene*)malloc(sizeof(scene));
    scene_init(sc, 30, 30, 30, false);
    scene_box(sc, 2, 2, 2, 27, 27, 27, 1);
    scene_box(sc, 4, 4, 4, 25, 25, 25, 0);
    uint32_t total = 26 * 26 * 26 - 22 * 22 * 22;
    scene_cut(sc, 0, 9, 0, 29, 10, 29);
    uint32_t slab = 2 * (26 * 26 - 22 * 22);
    // Below the cut: y 2..8: the floor (2 layers of 26^2) and 5 layers of ring.
    uint32_t lower = 2 * 26 * 26 + 5 * (26 * 26 - 22 * 22);
    uint32_t upper = total - slab - lower;
    vxk_split_result res;
    result_init(&res);
    vxk_split_stats st;
    VXK_CHECK(!scene_search(sc, 0, &res, &st));
    VXK_CHECK_EQ_U64(res.component_count, 2);
    VXK_CHECK_EQ_U64(res.components[0].voxel_count, lower);
    VXK_CHECK_EQ_U64(res.components[1].voxel_count, upper);
    VXK_CHECK(res.components[0].min_voxel.y == 2 && res.components[1].min_voxel.y == 11);
    // KEEP_LAST: the smaller part is reported, the larger keeps the body.
    VXK_CHECK(!scene_search(sc, VXK_SPLIT_KEEP_LAST, &res, &st));
    VXK_CHECK_EQ_U64(res.component_count, 1);
    VXK_CHECK_EQ_U64(res.components[0].voxel_count, lower < upper ? lower : upper);
    VXK_CHECK_EQ_U64(st.kept_groups, 1);
    // The component labelling sees the same two.
    uint64_t rng = 1;
    bit_grid b;
    bit_grid_make(&b, &sc->g, false, &rng);
    vxk_split_grid grid = split_grid_of(&b);
    vxk_split s;
    vxk_split_init(&s);
    VXK_CHECK_EQ_INT(vxk_split_components(&s, &res, &grid), VXK_OK);
    VXK_CHECK_EQ_U64(res.component_count, 2);
    VXK_CHECK_EQ_U64(res.components[0].voxel_count, lower);
    VXK_CHECK_EQ_U64(res.components[1].voxel_count, upper);
    vxk_split_destroy(&s);
    bit_grid_free(&b);
    vxk_split_result_free(&res);
    scene_free(sc);
    free(sc);
    return 0;
}

static int test_resumed_tiny_bounds(void)
{
    // Larger cases cut into calls of 1 voxel: the result, the statistics and the number of calls
    // (one per expanded claim, give or take the first and last).
    uint64_t rng = vxk_test_seed(0x7E57);
    vxk_split s;
    vxk_split_init(&s);
    vxk_split_result whole, cut;
    result_init(&whole);
    result_init(&cut);
    for (uint32_t index = 0; index < 60; ++index) {
        random_case c;
        make_case(&c, &rng, index % 2 ? 3 : 4); // 64^3 grids and small ones
        bit_grid b;
        bit_grid_make(&b, &c.g, false, &rng);
        vxk_split_grid grid = split_grid_of(&b);
        vxk_split_stats a, d;
        VXK_CHECK_EQ_INT(search(&s, &whole, &grid, &c, 0, &a), VXK_OK);
        VXK_CHECK_EQ_INT(search(&s, &cut, &grid, &c, 1, &d), VXK_OK);
        VXK_CHECK(!results_equal(&whole, &cut));
        VXK_CHECK(!stats_equal(a, d));
        VXK_CHECK(d.calls >= a.voxels_expanded / 64 + 1);
        bit_grid_free(&b);
        random_case_free(&c);
    }
    vxk_split_result_free(&whole);
    vxk_split_result_free(&cut);
    vxk_split_destroy(&s);
    return 0;
}

// ---- the chunk gather ---------------------------------------------------------------------------

static int test_gather_twins(void)
{
    uint64_t rng = vxk_test_seed(0x6A7E);
    for (int round = 0; round < 300; ++round) {
        uint32_t cx = (uint32_t)rand_int(&rng, 1, 20), cy = (uint32_t)rand_int(&rng, 1, 3),
                 cz = (uint32_t)rand_int(&rng, 1, 3);
        uint32_t n = cx * cy * cz;
        uint64_t* blocks = (uint64_t*)malloc((size_t)n * 8 * sizeof(uint64_t));
        const uint64_t** chunks = (const uint64_t**)malloc(n * sizeof(uint64_t*));
        for (uint32_t i = 0; i < n; ++i) {
            int kind = rand_int(&rng, 0, 3);
            for (int k = 0; k < 8; ++k)
                blocks[8 * i + k] = kind == 2 ? ~0ull : vxk_test_rand(&rng);
            chunks[i] = kind == 0 ? NULL : &blocks[8 * i];
        }
        uint32_t W = (8 * cx + 63) / 64;
        size_t words = (size_t)64 * cy * cz * W;
        uint64_t* a = (uint64_t*)malloc(words * sizeof(uint64_t));
        uint64_t* b = (uint64_t*)malloc(words * sizeof(uint64_t));
        memset(a, 0x5A, words * sizeof(uint64_t));
        memset(b, 0xA5, words * sizeof(uint64_t));
        vxk_flood_gather_chunks(a, chunks, cx, cy, cz);
        vxk_flood_gather_chunks_scalar(b, chunks, cx, cy, cz);
        VXK_CHECK(memcmp(a, b, words * sizeof(uint64_t)) == 0);
        // Voxel by voxel: bit x + 8z of slice y of the chunk.
        for (uint32_t y = 0; y < 8 * cy; ++y)
            for (uint32_t z = 0; z < 8 * cz; ++z)
                for (uint32_t x = 0; x < 64 * W; ++x) {
                    bool expect = false;
                    if (x < 8 * cx) {
                        const uint64_t* c = chunks[x / 8 + cx * (z / 8 + cz * (y / 8))];
                        expect = c && ((c[y % 8] >> ((x % 8) + 8 * (z % 8))) & 1);
                    }
                    bool got = (a[((size_t)y * 8 * cz + z) * W + x / 64] >> (x % 64)) & 1;
                    VXK_CHECK_MSG(expect == got, "voxel (%u %u %u) of %u x %u x %u chunks", x, y, z,
                                  cx, cy, cz);
                }
        free(a);
        free(b);
        free(chunks);
        free(blocks);
    }
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static int test_bad_input(void)
{
    uint64_t storage[4 * 4] = {0};
    for (int i = 0; i < 16; ++i)
        storage[i] = 0xF; // rows of 4 solid voxels in a 4 x 4 x 4 grid
    storage[5] = 0xD;     // voxel (1, 1, 1) removed
    vxk_split_grid grid = {{4, 4, 4}, storage, NULL};
    vxk_int3 removed = {1, 1, 1};
    vxk_split s;
    vxk_split_init(&s);
    bool done = true;
    vxk_split_result res;
    result_init(&res);
    VXK_CHECK_EQ_INT(vxk_split_run(&s, 0, &done), VXK_ERR_INVALID_ARGUMENT); // nothing begun
    VXK_CHECK_EQ_INT(vxk_split_result_get(&s, &res), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, &grid, &removed, 1, VXK_SPLIT_BOUNDARY_ANCHORS), VXK_OK);
    // Bad calls now leave the search as it is.
    VXK_CHECK_EQ_INT(vxk_split_begin(NULL, &grid, &removed, 1, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, NULL, &removed, 1, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, &grid, NULL, 1, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, &grid, &removed, 1, 4), VXK_ERR_INVALID_ARGUMENT);
    vxk_int3 solid_voxel = {2, 1, 1};
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, &grid, &solid_voxel, 1, 0), VXK_ERR_INVALID_ARGUMENT);
    const vxk_int3 outside[] = {{-1, 0, 0}, {4, 0, 0}, {0, 4, 0}, {0, 0, -1}, {0, 0, INT32_MAX}};
    for (int i = 0; i < 5; ++i)
        VXK_CHECK_EQ_INT(vxk_split_begin(&s, &grid, &outside[i], 1, 0), VXK_ERR_OUT_OF_RANGE);
    const vxk_int3 sizes[] = {{0, 4, 4}, {4, -1, 4}, {4, 4, 1025}, {INT32_MIN, 4, 4}};
    for (int i = 0; i < 4; ++i) {
        vxk_split_grid bad = {sizes[i], storage, NULL};
        VXK_CHECK_EQ_INT(vxk_split_begin(&s, &bad, NULL, 0, 0), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_INT(vxk_split_components(&s, &res, &bad), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_U64(vxk_split_grid_words(sizes[i]), 0);
    }
    vxk_split_grid no_rows = {{4, 4, 4}, NULL, NULL};
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, &no_rows, NULL, 0, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_run(&s, 0, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_run(NULL, 0, &done), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_result_get(&s, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_result_get(&s, &res), VXK_ERR_INVALID_ARGUMENT); // not ended
    // The search begun before the bad calls: every voxel touches the box's faces.
    VXK_CHECK_EQ_INT(vxk_split_run(&s, 0, &done), VXK_OK);
    VXK_CHECK(done);
    VXK_CHECK_EQ_INT(vxk_split_result_get(&s, &res), VXK_OK);
    VXK_CHECK_EQ_U64(res.component_count, 0);
    vxk_split_stats st;
    vxk_split_stats_get(&s, &st);
    VXK_CHECK_EQ_U64(st.finders, 6);         // (0 1 1) and (2 1 1) are separate runs of one row
    VXK_CHECK_EQ_U64(st.anchored_groups, 6); // each reached a face at once
    VXK_CHECK_EQ_INT(vxk_split_result_get(&s, &res), VXK_ERR_INVALID_ARGUMENT); // taken
    VXK_CHECK_EQ_INT(vxk_split_components(NULL, &res, &grid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_components(&s, NULL, &grid), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_components(&s, &res, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_split_components(&s, &res, &no_rows), VXK_ERR_INVALID_ARGUMENT);
    // No removed voxels: nothing to search, nothing free.
    VXK_CHECK_EQ_INT(vxk_split_begin(&s, &grid, NULL, 0, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_split_run(&s, 0, &done), VXK_OK);
    VXK_CHECK(done);
    VXK_CHECK_EQ_INT(vxk_split_result_get(&s, &res), VXK_OK);
    VXK_CHECK_EQ_U64(res.component_count, 0);
    vxk_split_result_free(&res);
    vxk_split_destroy(&s);
    vxk_split_destroy(NULL);
    vxk_split_result_free(NULL);
    return 0;
}

static int test_out_of_memory(void)
{
    uint64_t rng = vxk_test_seed(0x00A1);
    random_case c;
    make_case(&c, &rng, 3); // 64^3
    c.flags = 0;
    bit_grid b;
    bit_grid_make(&b, &c.g, false, &rng);
    vxk_split_grid grid = split_grid_of(&b);
    vxk_split s;
    vxk_split_init(&s);
    vxk_split_result expected, res, labels, expected_labels;
    result_init(&expected);
    result_init(&res);
    result_init(&labels);
    result_init(&expected_labels);
    vxk_split_stats stats;
    VXK_CHECK_EQ_INT(search(&s, &expected, &grid, &c, 0, &stats), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_split_components(&s, &expected_labels, &grid), VXK_OK);
    vxk_split_destroy(&s);
    // Every call failing at every allocation: each failure is a status, and calling again (the
    // allocator healthy) finishes with the same result.
    OOM_SWEEP(
        vxk_split_init(&s), search(&s, &res, &grid, &c, 97, &stats),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                bool done = false;
                vxk_status again = VXK_OK;
                if (s.active && !s.done)
                    while (again == VXK_OK && !done)
                        again = vxk_split_run(&s, 97, &done);
                if (s.active && s.done)
                    again = vxk_split_result_get(&s, &res);
                else if (!s.active)
                    again = search(&s, &res, &grid, &c, 97, &stats);
                VXK_CHECK_EQ_INT(again, VXK_OK);
            }
            VXK_CHECK(!results_equal(&expected, &res));
        },
        vxk_split_destroy(&s));
    OOM_SWEEP(
        vxk_split_init(&s), vxk_split_components(&s, &labels, &grid),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK_EQ_U64(labels.component_count, 0);
                VXK_CHECK_EQ_INT(vxk_split_components(&s, &labels, &grid), VXK_OK);
            }
            VXK_CHECK(!results_equal(&expected_labels, &labels));
        },
        vxk_split_destroy(&s));
    vxk_split_result_free(&expected);
    vxk_split_result_free(&res);
    vxk_split_result_free(&labels);
    vxk_split_result_free(&expected_labels);
    bit_grid_free(&b);
    random_case_free(&c);
    return 0;
}

int main(void)
{
    VXK_RUN(test_random_against_bfs);
    VXK_RUN(test_components_against_bfs);
    VXK_RUN(test_bridge);
    VXK_RUN(test_tower);
    VXK_RUN(test_hollow_shell);
    VXK_RUN(test_resumed_tiny_bounds);
    VXK_RUN(test_gather_twins);
    vxk_edge_tests_begin();
    VXK_RUN(test_bad_input);
    vxk_edge_tests_end();
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_out_of_memory);
    vxk_oom_tests_end();
    return vxk_test_finish();
}
