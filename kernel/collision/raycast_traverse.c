// raycast_traverse.c: one world ray through the chunks (seed 000, Roblox terrain physics, "Loose
// kD tree: queries"): clipped to where chunks may hold something, then a chunk-level 3D DDA
// (Amanatides & Woo 1987) in voxel units visiting the chunks near the ray front to back
// (raycast_chunk.c), until the first hit no later chunk can beat.
//
// Mechanisms (retuned over time; the header states only the contract):
// Rays are clipped in O(1) to the box of the broadphase entries, read through a dense grid of
// them (ray_grid.c: built once per broadphase build or update by the first ray after it, with a
// bitmap of blocks through which the DDA steps without reading cells); a sparse world without a
// grid uses the broadphase map instead, clips infinite rays to the terrain's y range in O(1), and
// skips empty space by a sparse index of the entries with mask bits over coarser cells (4^l
// chunks per axis, l = 1..14; built by the first ray after each broadphase build or update,
// O(entries); raycast_index.c): a ray in a cell with no entry within 4^l chunks leaves that cell
// in one step, so its steps grow with the logarithm of the distances to the entries it passes
// near, not with its length (a ray across 2^26 voxels of empty space takes a few hundred steps).
#include "raycast_internal.h"

#include <math.h>

// Rays whose segment comes within two chunks of the range's bounds look for chunks of its
// outermost layer (edge_chunk, raycast_chunk.c), which the cache cannot build: a segment's
// coordinates are bounded by its magnitude, so a coordinate this large is the cheap test.
#define RAY_EDGE_VOXELS 16.0
#define RAY_NEAR_EDGE (RAY_VOXEL_LIMIT - RAY_EDGE_VOXELS)
// The ray's thickening (ev, voxels) per voxel of coordinate magnitude along its segment: about
// 170 float ulps, far above the rounding of positions and hits in float, far below a voxel.
#define RAY_MARGIN_REL 1e-5
// The least magnitude the thickening assumes (voxels), so that rays near the origin keep one.
#define RAY_MARGIN_MIN_MAG 1.0
// A ray clear of a cell boundary by this many thickenings stays clear of the neighbour beyond it
// (the DDA's crossing times carry far less rounding than one thickening).
#define RAY_CLEAR_MARGINS 2.0
// Voxels added around the boxes a segment is clipped to: more than the thickening, so a clip
// never cuts a span whose thickened ray could still reach a face in the box.
#define RAY_CLIP_PAD 1.0
#define RAY_SEEN 8

// The axis of the smallest of t[0..2], the lowest on ties; selects rather than branches (which
// way a diagonal ray steps next is a coin flip for the predictor).
static inline int min_axis(const double t[3])
{
    int a01 = t[1] < t[0];
    double t01 = a01 ? t[1] : t[0];
    return t[2] < t01 ? 2 : a01;
}

// ---- terrain bounds for long rays -------------------------------------------------------------

void vxk_ray_bounds_compute(const vxk_terrain* terrain, ray_bounds* b)
{
    uint32_t count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(terrain, &count);
    b->known = true;
    b->empty = count == 0 || !chunks;
    if (b->empty)
        return;
    for (int a = 0; a < 3; ++a) {
        b->min[a] = INT32_MAX;
        b->max[a] = INT32_MIN;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t c[3] = {chunks[i]->coord.x, chunks[i]->coord.y, chunks[i]->coord.z};
        for (int a = 0; a < 3; ++a) {
            b->min[a] = VXK_MIN(b->min[a], c[a]);
            b->max[a] = VXK_MAX(b->max[a], c[a]);
        }
    }
}

// Clips [*t0, *t1] (world units) to a box in voxel units; false when the segment misses it.
// inv: 1 / dv per axis (0 where dv is 0), computed once per ray.
static bool clip_box(const ray_setup* r, const double inv[3], const double lo[3],
                     const double hi[3], double* t0, double* t1)
{
    for (int a = 0; a < 3; ++a) {
        double o = r->o[a];
        if (r->dv[a] == 0.0f) {
            if (o < lo[a] || o > hi[a])
                return false;
            continue;
        }
        double ta = (lo[a] - o) * inv[a], tb = (hi[a] - o) * inv[a];
        if (ta > tb) {
            double x = ta;
            ta = tb;
            tb = x;
        }
        *t0 = ta > *t0 ? ta : *t0;
        *t1 = tb < *t1 ? tb : *t1;
    }
    return *t0 <= *t1;
}

// ---- the traversal ------------------------------------------------------------------------------

// The last RAY_SEEN chunks whose trees a ray searched (over its whole length, so they are done).
typedef struct seen_set {
    vxk_int3 at[RAY_SEEN];
    uint32_t count, next;
} seen_set;

// vxk_ray_visit_chunk for a chunk the ray has not searched yet. A chunk whose mask the span misses
// is tested again on a later span; one whose tree was searched is done for the whole ray.
static vxk_status visit_unseen(ray_context* ctx, const ray_setup* r, int32_t x, int32_t y,
                               int32_t z, double ta, double tb, double ev, bool any,
                               const uint64_t* solid, ray_result* best, seen_set* seen)
{
    bool dup = false;
    for (uint32_t i = 0; i < seen->count; ++i)
        dup |= seen->at[i].x == x && seen->at[i].y == y && seen->at[i].z == z;
    if (dup)
        return VXK_OK;
    bool queried = false;
    vxk_status status =
        vxk_ray_visit_chunk(ctx, r, x, y, z, ta, tb, ev, any, solid, best, &queried);
    if (queried) {
        seen->at[seen->next] = (vxk_int3){x, y, z};
        seen->next = (seen->next + 1) % RAY_SEEN;
        seen->count = VXK_MIN(seen->count + 1, RAY_SEEN);
    }
    return status;
}

// Whether the ray over [ta, tb] comes within ev voxels (per axis) of chunk cell (x, y, z): a slab
// test against the cell's box grown by ev.
static inline bool near_cell(const ray_setup* r, const double inv[3], int32_t x, int32_t y,
                             int32_t z, double ta, double tb, double ev)
{
    const int32_t c[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        double lo = 8.0 * (double)c[a] - ev, hi = 8.0 * (double)c[a] + 8.0 + ev;
        double o = (double)r->o[a];
        if (r->dv[a] == 0.0f) {
            if (o < lo || o > hi)
                return false;
            continue;
        }
        double t0 = (lo - o) * inv[a], t1 = (hi - o) * inv[a];
        ta = dmax(ta, dmin(t0, t1));
        tb = dmin(tb, dmax(t0, t1));
    }
    return ta <= tb;
}

static bool start_inside(ray_context* ctx, const ray_setup* r, vxk_ray_hit* hit, vxk_int3* voxel)
{
    int32_t v[3];
    for (int a = 0; a < 3; ++a)
        v[a] = (int32_t)floorf(r->o[a]);
    // The dilated mask covers every solid voxel: a clear bit (or no entry, or full water) settles
    // it without reading the voxel.
    const uint64_t* solid = NULL;
    vxk_int3 c = {vxk_floor_div8(v[0]), vxk_floor_div8(v[1]), vxk_floor_div8(v[2])};
    uint8_t tag = chunk_peek(ctx, ctx->grid, c.x, c.y, c.z, &solid);
    uint32_t bit = (uint32_t)vxk_mod8(v[0]) + 8u * (uint32_t)vxk_mod8(v[2]);
    if (tag == VXK_BROADPHASE_NONE || tag == VXK_BROADPHASE_FULL_WATER ||
        !((solid[vxk_mod8(v[1])] >> bit) & 1u))
        return false;
    if (tag == VXK_BROADPHASE_MASK) {
        // The chunk's cached data holds its exact solid bits: a clear bit settles it without a
        // terrain lookup, and the data pinned here serves the chunk's visit below. Should the
        // data be unavailable (out of memory), the voxel is read instead.
        const vxk_narrow_chunk* data = NULL;
        if (vxk_ray_memo_get(ctx, c.x, c.y, c.z, &data) == VXK_OK &&
            (!data || !((data->solid[vxk_mod8(v[1])] >> bit) & 1u)))
            return false;
    }
    uint8_t id = vxk_terrain_get_voxel(&ctx->world->terrain, (vxk_int3){v[0], v[1], v[2]});
    if (vxk_terrain_kind(&ctx->world->terrain, (uint8_t)id) != VXK_MATERIAL_SOLID)
        return false;
    if (hit) {
        memset(hit, 0, sizeof(*hit));
        hit->hit = 1;
        hit->point = r->origin;
        hit->normal = (vxk_vec3){-r->dn[0], -r->dn[1], -r->dn[2]};
        hit->distance = 0.0f;
        hit->material = id;
        hit->chunk = c;
    }
    if (voxel)
        *voxel = (vxk_int3){v[0], v[1], v[2]};
    return true;
}

// The DDA's next crossing time per axis for a ray in chunk cell c (INFINITY on a flat axis).
static inline void dda_seat(const ray_setup* r, const double inv[3], const int32_t c[3],
                            double t_next[3])
{
    for (int a = 0; a < 3; ++a) {
        double d = r->dv[a];
        if (d > 0)
            t_next[a] = (8.0 * ((double)c[a] + 1.0) - (double)r->o[a]) * inv[a];
        else if (d < 0)
            t_next[a] = (8.0 * (double)c[a] - (double)r->o[a]) * inv[a];
        else
            t_next[a] = INFINITY;
    }
}

// The part of a ray that can meet anything, in world units along it: [t0, t1].
typedef struct ray_segment {
    double t0, t1;
    double maxdv;  // the largest |dv| component: voxels per world unit along the dominant axis
    double inv[3]; // 1 / dv per axis (0 where dv is 0)
} ray_segment;

// Clips the ray to where chunks may have something to visit: the grid's box, the coordinate
// range and, for long rays, the terrain's bounds. False when nothing is left.
static inline __attribute__((always_inline)) bool ray_clip(ray_context* ctx, const ray_setup* r,
                                                           ray_segment* seg)
{
    seg->t0 = 0.0;
    seg->t1 = r->tmax;
    seg->maxdv = dmax(fabs(r->dv[0]), dmax(fabs(r->dv[1]), fabs(r->dv[2])));
    // Reciprocals once per ray: the slab clips and the DDA multiply. Their rounding moves chunk
    // boundaries by an ulp, far inside the ev/et thickening, and hits come from the kD queries.
    for (int a = 0; a < 3; ++a)
        seg->inv[a] = r->dv[a] != 0.0f ? 1.0 / (double)r->dv[a] : 0.0;
    // Every broadphase entry lies in the grid's box: outside it no chunk has anything to visit,
    // so the segment is clipped to the box (plus a voxel) in O(1), within the coordinate limits
    // (one clip against the intersection of the two boxes: the same times as two clips).
    double lo_box[3], hi_box[3];
    for (int a = 0; a < 3; ++a) {
        lo_box[a] = -RAY_VOXEL_LIMIT;
        hi_box[a] = RAY_VOXEL_LIMIT;
        if (ctx->grid) {
            lo_box[a] = dmax(lo_box[a], 8.0 * (double)ctx->grid->min[a] - RAY_CLIP_PAD);
            hi_box[a] =
                dmin(hi_box[a],
                     8.0 * ((double)ctx->grid->min[a] + (double)ctx->grid->size[a]) + RAY_CLIP_PAD);
        }
    }
    bool live = clip_box(r, seg->inv, lo_box, hi_box, &seg->t0, &seg->t1);
    if (live && (seg->t1 - seg->t0) * seg->maxdv > RAY_LONG_CHUNKS * 8.0) {
        // The sorted chunk view gives the y range in O(1) (first and last chunk): most long rays
        // end there; near-horizontal ones still need the x/z bounds (a scan of the chunks).
        uint32_t count = 0;
        const vxk_chunk* const* sorted = vxk_terrain_sorted_chunks(&ctx->world->terrain, &count);
        if (!sorted || count == 0) {
            live = false;
        } else {
            double lo[3] = {-RAY_VOXEL_LIMIT, 8.0 * (double)sorted[0]->coord.y - RAY_CLIP_PAD,
                            -RAY_VOXEL_LIMIT};
            double hi[3] = {RAY_VOXEL_LIMIT,
                            8.0 * ((double)sorted[count - 1]->coord.y + 1.0) + RAY_CLIP_PAD,
                            RAY_VOXEL_LIMIT};
            live = clip_box(r, seg->inv, lo, hi, &seg->t0, &seg->t1);
        }
    }
    // Sparse worlds with their index skip empty space in few steps: no scan for the bounds.
    if (live && !ctx->index && (seg->t1 - seg->t0) * seg->maxdv > RAY_LONG_CHUNKS * 8.0) {
        ray_bounds local = {0};
        ray_bounds* b = ctx->bounds ? ctx->bounds : &local;
        if (!b->known)
            vxk_ray_bounds_compute(&ctx->world->terrain, b);
        if (b->empty) {
            live = false;
        } else {
            double lo[3], hi[3];
            for (int a = 0; a < 3; ++a) {
                lo[a] = 8.0 * (double)b->min[a] - RAY_CLIP_PAD;
                hi[a] = 8.0 * ((double)b->max[a] + 1.0) + RAY_CLIP_PAD;
            }
            live = clip_box(r, seg->inv, lo, hi, &seg->t0, &seg->t1);
        }
    }
    return live;
}

// What a ray's DDA keeps besides its cell and that cell's crossing times (which live apart: the
// cell is passed by address to the sparse index, and whatever shares its storage stays in memory
// with it).
typedef struct ray_walk {
    int step[3];
    double t_delta[3];
    double ta;     // the span the ray is in runs from ta to its next crossing
    int prev_axis; // the axis the ray entered its cell through (-1: its first cell)
    double ev, et; // thickening in voxels, and in t along the dominant axis
    bool flat_near[3];
    double margin[3];
    // sparse worlds: the level-1 cell (4^3 chunks) last found busy, not looked up again
    int32_t busy_cell[3];
    uint32_t hint_level;
    uint64_t steps;
} ray_walk;

enum { SKIP_NONE, SKIP_JUMPED, SKIP_END };

// Sparse world: a cell c without mask bits may sit in a clear coarse cell, which the ray then
// leaves in one step (it keeps its cell in the directions it does not exit through, clamped to
// the coarse cell, and enters the next one). SKIP_END: the rest of the segment is empty.
static inline __attribute__((always_inline)) int
walk_skip_sparse(ray_context* ctx, const ray_setup* r, const ray_segment* seg,
                 const ray_index* sparse, ray_walk* w, int32_t c[3], double t_next[3])
{
    const int32_t cell1[3] = {c[0] >> RAY_LEVEL_BITS, c[1] >> RAY_LEVEL_BITS,
                              c[2] >> RAY_LEVEL_BITS};
    const uint64_t* solid = NULL;
    uint32_t level = 0;
    if ((cell1[0] != w->busy_cell[0] || cell1[1] != w->busy_cell[1] ||
         cell1[2] != w->busy_cell[2]) &&
        chunk_peek(ctx, NULL, c[0], c[1], c[2], &solid) != VXK_BROADPHASE_MASK) {
        level = vxk_ray_clear_level(sparse, c, w->hint_level);
        w->hint_level = level;
        if (!level)
            for (int a = 0; a < 3; ++a)
                w->busy_cell[a] = cell1[a];
    }
    if (!level)
        return SKIP_NONE;
    int shift = (int)(RAY_LEVEL_BITS * level);
    int64_t size = (int64_t)1 << shift, lo[3];
    double t_exit = INFINITY;
    int axis = 0;
    for (int a = 0; a < 3; ++a) {
        lo[a] = ((int64_t)c[a] >> shift) * size;
        if (!w->step[a])
            continue;
        double bound = 8.0 * (double)(w->step[a] > 0 ? lo[a] + size : lo[a]);
        double t = (bound - (double)r->o[a]) * seg->inv[a];
        axis = t < t_exit ? a : axis;
        t_exit = dmin(t, t_exit);
    }
    if (t_exit >= seg->t1)
        return SKIP_END;
    for (int a = 0; a < 3; ++a) {
        double p = (double)r->o[a] + t_exit * (double)r->dv[a];
        int64_t k = (int64_t)floor(p * 0.125);
        k = k < lo[a] ? lo[a] : (k > lo[a] + size - 1 ? lo[a] + size - 1 : k);
        if (a == axis)
            k = w->step[a] > 0 ? lo[a] + size : lo[a] - 1;
        c[a] = (int32_t)k;
    }
    dda_seat(r, seg->inv, c, t_next);
    w->ta = dmax(w->ta, t_exit);
    w->prev_axis = axis;
    return SKIP_JUMPED;
}

// Visits the chunks within ev of the ray over its span [ta, te] in cell c (tb: the next crossing,
// along next_axis; te = min(tb, t1)): usually the cell alone.
static inline __attribute__((always_inline)) vxk_status
walk_visit(ray_context* ctx, const ray_setup* r, const ray_segment* seg, const vxk_ray_grid* grid,
           const ray_walk* w, const int32_t c[3], const double t_next[3], double tb, double te,
           int next_axis, bool any, ray_result* best, seen_set* seen)
{
    const int* step = w->step;
    double ta = w->ta, t1 = seg->t1, ev = w->ev, et = w->et;
    int prev_axis = w->prev_axis;
    vxk_status status = VXK_OK;
    // The cell is alone for sure when the ray stays clear, by RAY_CLEAR_MARGINS thickenings, of
    // every boundary but the ones it enters and leaves through: the times it crosses them (t_next,
    // and t_next - t_delta behind) say so without positions. Otherwise the span's box gives the
    // candidates.
    bool alone = true;
    for (int a = 0; a < 3; ++a) {
        if (!step[a]) {
            alone &= !w->flat_near[a];
            continue;
        }
        double m = w->margin[a];
        if ((a != next_axis || tb >= t1) && t_next[a] - te <= m)
            alone = false;
        if (a != prev_axis && ta - (t_next[a] - w->t_delta[a]) <= m)
            alone = false;
    }
    // alone in a cell without mask bits: nothing to visit
    const uint64_t* solid = NULL;
    bool empty = alone && chunk_peek(ctx, grid, c[0], c[1], c[2], &solid) != VXK_BROADPHASE_MASK;
    int32_t lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
    if (alone) { // the cell alone, straight away (the loop below gets an empty range)
        if (!empty)
            status = visit_unseen(ctx, r, c[0], c[1], c[2], ta - et, te + et, ev, any, solid, best,
                                  seen);
        lo[0] = c[0] + 1;
    }
    for (int a = 0; a < 3 && !alone; ++a) {
        double p0 = (double)r->o[a] + (ta - et) * (double)r->dv[a];
        double p1 = (double)r->o[a] + (te + et) * (double)r->dv[a];
        double mn = dmin(p0, p1) - ev, mx = dmax(p0, p1) + ev;
        lo[a] = (int32_t)floor(mn * 0.125);
        hi[a] = (int32_t)floor(mx * 0.125);
        lo[a] = VXK_MAX(lo[a], c[a] - 1);
        hi[a] = VXK_MIN(hi[a], c[a] + 1);
    }
    for (int32_t y = lo[1]; y <= hi[1] && status == VXK_OK; ++y)
        for (int32_t z = lo[2]; z <= hi[2] && status == VXK_OK; ++z)
            for (int32_t x = lo[0]; x <= hi[0] && status == VXK_OK; ++x) {
                // The DDA's previous and next cells get their own full test.
                int32_t off[3] = {x - c[0], y - c[1], z - c[2]};
                int nonzero = (off[0] != 0) + (off[1] != 0) + (off[2] != 0);
                bool behind = false, ahead = false;
                for (int a = 0; a < 3; ++a) {
                    behind |= a == prev_axis && off[a] == -step[a];
                    ahead |= a == next_axis && off[a] == step[a];
                }
                if (nonzero == 1 && (behind || (ahead && tb < t1)))
                    continue;
                // A neighbour is visited only when the ray passes within ev of it over the span
                // (the range above is the span's box: a ray along a face crosses the corner cells
                // of that box far from them).
                if (nonzero && !near_cell(r, seg->inv, x, y, z, ta - et, te + et, ev))
                    continue;
                status = visit_unseen(ctx, r, x, y, z, ta - et, te + et, ev, any, NULL, best, seen);
            }
    return status;
}

// Walks the chunk cells of the clipped segment front to back (3D DDA), visiting the chunks near
// the ray, until the first hit that no later chunk can beat (any: the first hit).
static inline __attribute__((always_inline)) vxk_status ray_traverse(ray_context* ctx,
                                                                     const ray_setup* r,
                                                                     const ray_segment* seg,
                                                                     bool any, ray_result* best)
{
    vxk_status status = VXK_OK;
    // The grid's fields in a local (the DDA reads them every step; through ctx they would be
    // reloaded after every call)
    vxk_ray_grid grid_copy;
    const vxk_ray_grid* grid = NULL;
    if (ctx->grid) {
        grid_copy = *ctx->grid;
        grid = &grid_copy;
    }
    const double* inv = seg->inv;
    double t0 = seg->t0, t1 = seg->t1, maxdv = seg->maxdv;
    ray_walk w;
    // Thickness (voxel units) covering float error of positions and hits along the ray.
    double mag = dmax(fabs(r->o[0]), dmax(fabs(r->o[1]), fabs(r->o[2]))) + t1 * maxdv;
    double ev = RAY_MARGIN_REL * (RAY_MARGIN_MIN_MAG + mag);
    double et = ev / maxdv;
    w.ev = ev;
    w.et = et;
    ctx->near_edge |= mag >= RAY_NEAR_EDGE; // mag bounds every coordinate of the segment
    ctx->framed = false;
    int32_t c[3];
    double t_next[3];
    for (int a = 0; a < 3; ++a) {
        double p = (double)r->o[a] + t0 * (double)r->dv[a];
        c[a] = (int32_t)floor(p * 0.125);
        double d = r->dv[a];
        w.step[a] = d > 0 ? 1 : (d < 0 ? -1 : 0);
        w.t_delta[a] = d != 0 ? 8.0 * fabs(inv[a]) : INFINITY;
    }
    dda_seat(r, inv, c, t_next);
    for (int a = 0; a < 3; ++a)
        w.busy_cell[a] = INT32_MIN;
    w.hint_level = 1;
    const ray_index* sparse = grid ? NULL : ctx->index;
    w.steps = 0;
    // Axes the ray does not move along: whether its constant position lies within
    // RAY_CLEAR_MARGINS thickenings of a boundary of its cell (then neighbours on that axis may
    // matter).
    for (int a = 0; a < 3; ++a) {
        double below = (double)r->o[a] - 8.0 * (double)c[a];
        w.flat_near[a] = w.step[a] == 0 &&
                         (below <= RAY_CLEAR_MARGINS * ev || 8.0 - below <= RAY_CLEAR_MARGINS * ev);
    }
    // a boundary this close (in t) to the span's ends may put the ray near a neighbour
    for (int a = 0; a < 3; ++a)
        w.margin[a] = RAY_CLEAR_MARGINS * (et + ev * fabs(inv[a]));
    seen_set seen;
    seen.count = seen.next = 0;
    w.ta = t0;
    w.prev_axis = -1;
    for (;;) {
        double tb = dmin(t_next[0], dmin(t_next[1], t_next[2]));
        double te = dmin(tb, t1);
        int next_axis = min_axis(t_next);
        // No cell with mask bits within one cell of this block: every visit would find
        // nothing, so the DDA steps on without them.
        bool busy = true;
        if (grid) {
            busy = vxk_ray_grid_busy(grid, c);
        } else if (sparse) {
            ++w.steps;
            int skip = walk_skip_sparse(ctx, r, seg, sparse, &w, c, t_next);
            if (skip == SKIP_END)
                break;
            if (skip == SKIP_JUMPED)
                continue;
        }
        if (busy)
            status =
                walk_visit(ctx, r, seg, grid, &w, c, t_next, tb, te, next_axis, any, best, &seen);
        if (status != VXK_OK || (any && best->found))
            break;
        if (tb >= t1 || (best->found && tb - et > (double)best->t))
            break;
        int a = next_axis;
        w.prev_axis = a;
        // selects over constant indices: c and t_next stay in registers (an index computed
        // at run time would send them through memory on the loop's critical path)
        w.ta = tb;
        for (int k = 0; k < 3; ++k) {
            c[k] += k == a ? w.step[k] : 0;
            t_next[k] += k == a ? w.t_delta[k] : 0.0;
        }
    }
    ctx->steps += w.steps;
    return status;
}

// The solid voxel whose face the closest hit lies on (vxk_raycast_query): the quad's layer along
// its normal, and along u and v the voxel of the quad under the hit point (clamped to the quad, so
// a hit on an edge of the quad still names one of its own voxels).
static vxk_int3 hit_voxel(const ray_setup* r, const ray_result* best)
{
    static const uint8_t u_axis[3] = {2, 0, 0}, v_axis[3] = {1, 2, 1};
    vxk_quad q = best->quad;
    uint32_t axis = vxk_quad_axis(q);
    const int64_t chunk[3] = {best->chunk.x, best->chunk.y, best->chunk.z};
    const int64_t origin[3] = {q.x, q.y, q.z};
    int64_t out[3];
    out[axis] = 8 * chunk[axis] + origin[axis];
    const uint32_t in_plane[2] = {u_axis[axis], v_axis[axis]};
    const int64_t extent[2] = {q.width, q.height};
    for (int k = 0; k < 2; ++k) {
        uint32_t a = in_plane[k];
        int64_t base = 8 * chunk[a] + origin[a];
        double at = (double)r->o[a] + (double)best->t * (double)r->dv[a] - (double)base;
        int64_t i = at > 0.0 ? (int64_t)floor(at) : 0;
        out[a] = base + (i < extent[k] ? i : extent[k] - 1);
    }
    return (vxk_int3){(int32_t)out[0], (int32_t)out[1], (int32_t)out[2]};
}

// Writes the ray's result: *hit_any, and *hit (zeroed, then the closest hit if any).
static inline __attribute__((always_inline)) void
ray_write_hit(const ray_setup* r, const ray_result* best, vxk_ray_hit* hit, bool* hit_any)
{
    if (hit_any)
        *hit_any = best->found;
    if (!hit)
        return;
    memset(hit, 0, sizeof(*hit));
    if (!best->found)
        return;
    vxk_quad q = best->quad;
    uint32_t axis = vxk_quad_axis(q);
    // selects, not a store at a run-time index into an array read back whole (a store-forwarding
    // stall)
    float sign = vxk_quad_positive(q) ? 1.0f : -1.0f;
    float n[3] = {axis == 0 ? sign : 0.0f, axis == 1 ? sign : 0.0f, axis == 2 ? sign : 0.0f};
    hit->hit = 1;
    hit->distance = best->t;
    hit->point = (vxk_vec3){r->origin.x + best->t * r->dn[0], r->origin.y + best->t * r->dn[1],
                            r->origin.z + best->t * r->dn[2]};
    if (best->entry) // on the entry face: in double, as its distance
        hit->point = (vxk_vec3){(float)(r->origin.x + best->entry_t * r->dn[0]),
                                (float)(r->origin.y + best->entry_t * r->dn[1]),
                                (float)(r->origin.z + best->entry_t * r->dn[2])};
    hit->normal = (vxk_vec3){n[0], n[1], n[2]};
    hit->material = q.material;
    hit->chunk = best->chunk;
}

// The face the ray enters a voxel by, when the quad tests cannot tell it from the voxel's back
// face: two planes one voxel apart round to one float in the ray's frame once they lie 2^24 voxels
// or more from the origin's chunk, the ray then meets both at one t, and the tree may report the
// back face. When the closest hit is a face the ray meets from behind (it leaves the solid voxel
// there) and the voxel's other face on that axis rounds to the same plane, the hit becomes that
// other face, the one the ray enters by, at its distance computed in double.
static void hit_entry_face(const ray_context* ctx, const ray_setup* r, ray_result* best)
{
    if (!best->found || !ctx->framed)
        return;
    uint32_t a = vxk_quad_axis(best->quad);
    bool positive = vxk_quad_positive(best->quad);
    if (positive ? !(r->dv[a] > 0.0f) : !(r->dv[a] < 0.0f))
        return; // met from the front
    const int32_t corner[3] = {best->quad.x, best->quad.y, best->quad.z};
    const int32_t chunk[3] = {best->chunk.x, best->chunk.y, best->chunk.z};
    double layer = 8.0 * (double)chunk[a] + (double)corner[a]; // the solid voxel's coordinate
    double exit = positive ? layer + 1.0 : layer, entry = positive ? layer : layer + 1.0;
    double shift = 8.0 * ctx->c_ref[a];
    if ((float)(exit - shift) != (float)(entry - shift))
        return; // the frame tells the faces apart: the back face is a true hit (an edge touch)
    double t = (entry - (double)r->o[a]) / (double)r->dv[a];
    if (!(t >= 0.0) || !(t <= (double)best->t))
        return;
    best->quad.normal = (uint8_t)(best->quad.normal ^ 4u); // the voxel's other face on the axis
    best->t = (float)t;
    best->entry = true;
    best->entry_t = t;
}

vxk_status vxk_ray_trace(ray_context* ctx, const ray_setup* r, bool any, vxk_ray_hit* hit,
                         bool* hit_any, vxk_int3* voxel)
{
    // Chunks of the range's outermost layer are built by the ray (edge_chunk): only rays that
    // start or end near a range boundary look for them.
    ctx->near_edge = false;
    for (int a = 0; a < 3; ++a)
        ctx->near_edge |= fabs((double)r->o[a]) >= RAY_NEAR_EDGE;
    if (start_inside(ctx, r, hit, voxel)) {
        if (hit_any)
            *hit_any = true;
        return VXK_OK;
    }
    ray_segment seg;
    bool live = ray_clip(ctx, r, &seg);
    ray_result best = {0};
    if (live) {
        vxk_status status = ray_traverse(ctx, r, &seg, any, &best);
        if (status != VXK_OK)
            return status;
        if (!any)
            hit_entry_face(ctx, r, &best);
    }
    ray_write_hit(r, &best, hit, hit_any);
    if (voxel)
        *voxel = best.found ? hit_voxel(r, &best) : (vxk_int3){0, 0, 0};
    return VXK_OK;
}
