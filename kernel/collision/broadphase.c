// broadphase.c: the terrain's bit broadphase (seed 000, Roblox terrain physics, "Bit broadphase"):
// dilated solid/water masks per chunk in a chunk map, built and regenerated as parallel jobs with
// a merge in candidate order, and AABB overlap queries with per-slice mask tests.
#include <vxk/broadphase.h>
#include <vxk/simd_dilate.h>

#include "broadphase_sweep.h"
#include "chunk_map.h"
#include "world_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#define BP_CHUNK_MIN (-(1 << 28))
#define BP_CHUNK_MAX ((1 << 28) - 1)
#define BP_TAG_SHIFT 30
#define BP_INDEX_MASK ((1u << BP_TAG_SHIFT) - 1u)
#define BP_BUILD_GRAIN 256u // candidates per parallel piece
#define BP_DILATE_BATCH 32  // neighbourhoods gathered before one kernel call
#define BP_QUERY_GRAIN 64u  // boxes per piece of a batch query

_Static_assert((int)VXK_BROADPHASE_MASK == (int)VXK_DILATE_MASK, "tags mirror the dilation kinds");
_Static_assert((int)VXK_BROADPHASE_FULL_SOLID == (int)VXK_DILATE_FULL_SOLID, "tags mirror kinds");
_Static_assert((int)VXK_BROADPHASE_FULL_WATER == (int)VXK_DILATE_FULL_WATER, "tags mirror kinds");

// Map value: tag << 30 | mask index (index meaningful for MASK only). Never VXK_CHUNK_MAP_EMPTY.
typedef struct vxk_broadphase {
    vxk_chunk_map map;
    vxk_dilate_mask* masks; // mask_count slots in use or on the free list
    uint32_t mask_count, mask_capacity;
    uint32_t* free_slots; // mask slots released by updates, reused last-in first-out
    uint32_t free_count, free_capacity;
    uint32_t full_count;
    uint64_t generation; // bumped by every build and update (derived views compare it)
    bool built;          // a build succeeded once (until then updates build in full)
    // Per-thread hit buffers kept between batch queries (fresh pages cost more than the queries);
    // taken by one batch at a time, a concurrent batch allocates its own.
    atomic_bool batch_scratch_busy;
    struct hit_sink* batch_scratch;
    uint32_t batch_scratch_count;
    void* batch_records; // piece records of the batches that use the kept scratch
    uint32_t batch_record_count;
    size_t batch_record_bytes;
} vxk_broadphase;

static const uint64_t g_zero_bits[8] = {0, 0, 0, 0, 0, 0, 0, 0};
static const uint64_t g_full_bits[8] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull};

// ---- the subsystem slot ----------------------------------------------------------------------

static void batch_scratch_free(struct hit_sink* sinks, uint32_t count);

static void broadphase_release(vxk_broadphase* bp)
{
    batch_scratch_free(bp->batch_scratch, bp->batch_scratch_count);
    vxk_free(bp->batch_records, bp->batch_record_bytes);
    bp->batch_records = NULL;
    bp->batch_record_count = 0;
    bp->batch_record_bytes = 0;
    vxk_chunk_map_free(&bp->map);
    vxk_free(bp->masks, (size_t)bp->mask_capacity * sizeof(vxk_dilate_mask));
    vxk_free(bp->free_slots, (size_t)bp->free_capacity * sizeof(uint32_t));
    memset(bp, 0, sizeof(*bp));
}

static void broadphase_destroy(void* self)
{
    vxk_broadphase* bp = (vxk_broadphase*)self;
    broadphase_release(bp);
    vxk_free(bp, sizeof(*bp));
}

static uint64_t batch_scratch_bytes(const vxk_broadphase* bp);

static uint64_t broadphase_bytes(const vxk_broadphase* bp)
{
    return sizeof(*bp) + vxk_chunk_map_bytes(&bp->map) +
           (uint64_t)bp->mask_capacity * sizeof(vxk_dilate_mask) +
           (uint64_t)bp->free_capacity * sizeof(uint32_t) + batch_scratch_bytes(bp);
}

static void broadphase_memory(const void* self, vxk_world_memory_stats* stats)
{
    const vxk_broadphase* bp = (const vxk_broadphase*)self;
    stats->broadphase_entries += bp->map.count;
    stats->broadphase_full += bp->full_count;
    stats->broadphase_bytes += broadphase_bytes(bp);
}

vxk_status vxk_broadphase_attach(vxk_world* world)
{
    vxk_broadphase* bp = (vxk_broadphase*)vxk_calloc(sizeof(vxk_broadphase));
    if (!bp)
        return VXK_ERR_OUT_OF_MEMORY;
    world->broadphase.self = bp;
    world->broadphase.destroy = broadphase_destroy;
    world->broadphase.memory = broadphase_memory;
    return VXK_OK;
}

static const vxk_broadphase* broadphase_of(const vxk_world* world)
{
    return (const vxk_broadphase*)world->broadphase.self;
}

// ---- candidates ------------------------------------------------------------------------------

static inline int compare_yzx(vxk_int3 a, vxk_int3 b)
{
    if (a.y != b.y)
        return a.y < b.y ? -1 : 1;
    if (a.z != b.z)
        return a.z < b.z ? -1 : 1;
    if (a.x != b.x)
        return a.x < b.x ? -1 : 1;
    return 0;
}

static int compare_yzx_qsort(const void* a, const void* b)
{
    return compare_yzx(*(const vxk_int3*)a, *(const vxk_int3*)b);
}

static inline bool chunk_in_range(vxk_int3 c)
{
    return c.x >= BP_CHUNK_MIN && c.x <= BP_CHUNK_MAX && c.y >= BP_CHUNK_MIN &&
           c.y <= BP_CHUNK_MAX && c.z >= BP_CHUNK_MIN && c.z <= BP_CHUNK_MAX;
}

static inline vxk_int3 shifted(vxk_int3 c, int axis, int d)
{
    if (axis == 0)
        c.x += d;
    else if (axis == 1)
        c.y += d;
    else
        c.z += d;
    return c;
}

// out = in shifted by -1, 0, +1 along axis, sorted by (y, z, x) and unique. A constant shift keeps
// the order of a sorted list, so this is a 3-way merge. out holds 3 * n. Returns the count.
static uint32_t dilate_candidates(vxk_int3* out, const vxk_int3* in, uint32_t n, int axis)
{
    uint32_t head[3] = {0, 0, 0}, count = 0;
    for (;;) {
        int best = -1;
        vxk_int3 best_c = {0, 0, 0};
        for (int s = 0; s < 3; ++s) {
            while (head[s] < n) {
                vxk_int3 c = shifted(in[head[s]], axis, s - 1);
                if (chunk_in_range(c)) {
                    if (best < 0 || compare_yzx(c, best_c) < 0) {
                        best = s;
                        best_c = c;
                    }
                    break;
                }
                ++head[s];
            }
        }
        if (best < 0)
            return count;
        ++head[best];
        if (count == 0 || compare_yzx(out[count - 1], best_c) != 0)
            out[count++] = best_c;
    }
}

// Expands a sorted unique chunk list to the chunks and their 26 neighbours (sorted, unique).
// Returns a vxk_alloc'd array (capacity in *capacity) or NULL when out of memory.
static vxk_int3* expand_candidates(const vxk_int3* chunks, uint32_t n, uint32_t* out_count,
                                   size_t* capacity)
{
    *out_count = 0;
    *capacity = 0;
    if (n == 0)
        return NULL;
    size_t cap1 = (size_t)n * 3, cap2 = 0, cap3 = 0;
    vxk_int3* a = (vxk_int3*)vxk_alloc(cap1 * sizeof(vxk_int3));
    if (!a)
        return NULL;
    uint32_t na = dilate_candidates(a, chunks, n, 0);
    cap2 = (size_t)na * 3;
    vxk_int3* b = (vxk_int3*)vxk_alloc(cap2 * sizeof(vxk_int3));
    if (!b) {
        vxk_free(a, cap1 * sizeof(vxk_int3));
        return NULL;
    }
    uint32_t nb = dilate_candidates(b, a, na, 2);
    vxk_free(a, cap1 * sizeof(vxk_int3));
    cap3 = (size_t)nb * 3;
    vxk_int3* c = (vxk_int3*)vxk_alloc(cap3 * sizeof(vxk_int3));
    if (!c) {
        vxk_free(b, cap2 * sizeof(vxk_int3));
        return NULL;
    }
    uint32_t nc = dilate_candidates(c, b, nb, 1);
    vxk_free(b, cap2 * sizeof(vxk_int3));
    *out_count = nc;
    *capacity = cap3;
    return c;
}

// ---- gather + dilate as jobs -----------------------------------------------------------------

static inline void chunk_bits(const vxk_terrain* terrain, vxk_int3 c, const uint64_t** solid,
                              const uint64_t** water)
{
    *solid = g_zero_bits;
    *water = g_zero_bits;
    if (!chunk_in_range(c))
        return;
    const vxk_chunk* chunk = vxk_terrain_find(terrain, c);
    if (!chunk)
        return;
    if (chunk->payload) {
        *solid = vxk_chunk_solid_bits(chunk);
        *water = vxk_chunk_water_bits(chunk);
    } else {
        uint8_t kind = vxk_terrain_kind(terrain, chunk->uniform_material);
        if (kind == VXK_MATERIAL_SOLID)
            *solid = g_full_bits;
        else if (kind == VXK_MATERIAL_WATER)
            *water = g_full_bits;
    }
}

// The 27 chunks around a candidate. Walking along +x reuses 18 of them (9 lookups, not 27).
typedef struct neighbourhood {
    vxk_int3 at;
    bool valid;
    const uint64_t* solid[27]; // index (dx+1) + 3*(dz+1) + 9*(dy+1), as vxk_dilate_gather
    const uint64_t* water[27];
} neighbourhood;

static void neighbourhood_move(const vxk_terrain* terrain, neighbourhood* nb, vxk_int3 c)
{
    bool slide = nb->valid && c.x == nb->at.x + 1 && c.y == nb->at.y && c.z == nb->at.z;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dz = -1; dz <= 1; ++dz) {
            int row = 3 * (dz + 1) + 9 * (dy + 1);
            if (slide) {
                nb->solid[row] = nb->solid[row + 1];
                nb->water[row] = nb->water[row + 1];
                nb->solid[row + 1] = nb->solid[row + 2];
                nb->water[row + 1] = nb->water[row + 2];
                chunk_bits(terrain, (vxk_int3){c.x + 1, c.y + dy, c.z + dz}, &nb->solid[row + 2],
                           &nb->water[row + 2]);
            } else {
                for (int dx = -1; dx <= 1; ++dx)
                    chunk_bits(terrain, (vxk_int3){c.x + dx, c.y + dy, c.z + dz},
                               &nb->solid[row + dx + 1], &nb->water[row + dx + 1]);
            }
        }
    }
    nb->at = c;
    nb->valid = true;
}

// Neighbourhoods made only of absent or uniform chunks classify without a gather.
static int neighbourhood_uniform_kind(const neighbourhood* nb)
{
    const uint64_t* s = nb->solid[0];
    const uint64_t* w = nb->water[0];
    for (int i = 1; i < 27; ++i)
        if (nb->solid[i] != s || nb->water[i] != w)
            return -1;
    if (s == g_zero_bits && w == g_zero_bits)
        return VXK_DILATE_EMPTY;
    if (s == g_full_bits && w == g_zero_bits)
        return VXK_DILATE_FULL_SOLID;
    if (s == g_zero_bits && w == g_full_bits)
        return VXK_DILATE_FULL_WATER;
    return -1;
}

typedef struct piece_masks {
    vxk_dilate_mask* masks; // masks of this piece's MASK candidates, in candidate order
    uint32_t count, capacity;
    bool failed;
} piece_masks;

typedef struct build_job {
    const vxk_terrain* terrain;
    const vxk_int3* candidates;
    uint8_t* kinds; // one per candidate
    piece_masks* pieces;
} build_job;

static bool piece_push(piece_masks* p, const vxk_dilate_mask* m)
{
    if (!vxk_grow_items((void**)&p->masks, &p->capacity, (uint64_t)p->count + 1, sizeof(*m)))
        return false;
    p->masks[p->count++] = *m;
    return true;
}

static void flush_batch(build_job* job, piece_masks* piece, const vxk_dilate_rows* rows,
                        const uint32_t* index, uint32_t n)
{
    vxk_dilate_mask masks[BP_DILATE_BATCH];
    uint8_t kinds[BP_DILATE_BATCH];
    vxk_dilate_chunks(masks, kinds, rows, n);
    for (uint32_t j = 0; j < n; ++j) {
        job->kinds[index[j]] = kinds[j];
        if (kinds[j] == VXK_DILATE_MASK && !piece_push(piece, &masks[j]))
            piece->failed = true;
    }
}

static void build_piece(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    build_job* job = (build_job*)ctx;
    piece_masks* piece = &job->pieces[begin / BP_BUILD_GRAIN];
    neighbourhood nb;
    nb.valid = false;
    vxk_dilate_rows rows[BP_DILATE_BATCH];
    uint32_t index[BP_DILATE_BATCH];
    uint32_t pending = 0;
    for (uint32_t i = begin; i < end; ++i) {
        neighbourhood_move(job->terrain, &nb, job->candidates[i]);
        int kind = neighbourhood_uniform_kind(&nb);
        if (kind >= 0) {
            // Keep candidate order of the masks: flush what is pending first.
            if (pending) {
                flush_batch(job, piece, rows, index, pending);
                pending = 0;
            }
            job->kinds[i] = (uint8_t)kind;
            continue;
        }
        vxk_dilate_gather(&rows[pending], nb.solid, nb.water);
        index[pending++] = i;
        if (pending == BP_DILATE_BATCH) {
            flush_batch(job, piece, rows, index, pending);
            pending = 0;
        }
    }
    if (pending)
        flush_batch(job, piece, rows, index, pending);
}

// Runs the gather + dilation of all candidates. On success *pieces_out holds per-piece masks
// (free with free_pieces) and kinds[] the kind of every candidate.
static vxk_status compute_candidates(const vxk_terrain* terrain, vxk_jobs* jobs,
                                     const vxk_int3* candidates, uint32_t count, uint8_t* kinds,
                                     piece_masks** pieces_out, uint32_t* piece_count_out)
{
    uint32_t piece_count = vxk_parallel_for_pieces(count, BP_BUILD_GRAIN);
    piece_masks* pieces =
        (piece_masks*)vxk_calloc((size_t)(piece_count ? piece_count : 1) * sizeof(piece_masks));
    if (!pieces)
        return VXK_ERR_OUT_OF_MEMORY;
    build_job job = {terrain, candidates, kinds, pieces};
    vxk_parallel_for(jobs, "broadphase_dilate", count, BP_BUILD_GRAIN, build_piece, &job);
    *pieces_out = pieces;
    *piece_count_out = piece_count;
    for (uint32_t p = 0; p < piece_count; ++p)
        if (pieces[p].failed)
            return VXK_ERR_OUT_OF_MEMORY;
    return VXK_OK;
}

static void free_pieces(piece_masks* pieces, uint32_t piece_count)
{
    if (!pieces)
        return;
    for (uint32_t p = 0; p < piece_count; ++p)
        vxk_free(pieces[p].masks, (size_t)pieces[p].capacity * sizeof(vxk_dilate_mask));
    vxk_free(pieces, (size_t)(piece_count ? piece_count : 1) * sizeof(piece_masks));
}

vxk_status vxk_broadphase_compute(const vxk_world* world, vxk_broadphase_entry* out,
                                  const vxk_int3* chunks, uint32_t count)
{
    if (!world || ((!out || !chunks) && count > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; ++i)
        if (!chunk_in_range(chunks[i]))
            return VXK_ERR_OUT_OF_RANGE;
    neighbourhood nb;
    nb.valid = false;
    vxk_dilate_rows rows[BP_DILATE_BATCH];
    vxk_dilate_mask masks[BP_DILATE_BATCH];
    uint8_t kinds[BP_DILATE_BATCH];
    for (uint32_t begin = 0; begin < count; begin += BP_DILATE_BATCH) {
        uint32_t n = VXK_MIN(count - begin, (uint32_t)BP_DILATE_BATCH);
        for (uint32_t j = 0; j < n; ++j) {
            neighbourhood_move(&world->terrain, &nb, chunks[begin + j]);
            vxk_dilate_gather(&rows[j], nb.solid, nb.water);
        }
        vxk_dilate_chunks(masks, kinds, rows, n);
        for (uint32_t j = 0; j < n; ++j) {
            vxk_broadphase_entry* e = &out[begin + j];
            memset(e, 0, sizeof(*e));
            e->tag = kinds[j];
            memcpy(e->solid, masks[j].solid, sizeof(e->solid));
            memcpy(e->water, masks[j].water, sizeof(e->water));
        }
    }
    return VXK_OK;
}

static inline uint32_t entry_value(uint8_t kind, uint32_t mask_index)
{
    return ((uint32_t)kind << BP_TAG_SHIFT) | (kind == VXK_DILATE_MASK ? mask_index : 0u);
}

// ---- build -----------------------------------------------------------------------------------

static vxk_status build_from_candidates(vxk_world* world, vxk_broadphase* bp,
                                        const vxk_int3* candidates, uint32_t count)
{
    uint8_t* kinds = (uint8_t*)vxk_alloc(count ? count : 1);
    if (!kinds)
        return VXK_ERR_OUT_OF_MEMORY;
    piece_masks* pieces = NULL;
    uint32_t piece_count = 0;
    vxk_status status = compute_candidates(&world->terrain, world->jobs, candidates, count, kinds,
                                           &pieces, &piece_count);
    vxk_broadphase next;
    memset(&next, 0, sizeof(next));
    if (status == VXK_OK) {
        uint32_t entries = 0, masks = 0;
        for (uint32_t i = 0; i < count; ++i)
            entries += kinds[i] != VXK_DILATE_EMPTY;
        for (uint32_t p = 0; p < piece_count; ++p)
            masks += pieces[p].count;
        next.mask_capacity = masks;
        next.masks =
            masks ? (vxk_dilate_mask*)vxk_alloc((size_t)masks * sizeof(vxk_dilate_mask)) : NULL;
        if ((masks && !next.masks) || !vxk_chunk_map_reserve(&next.map, entries))
            status = VXK_ERR_OUT_OF_MEMORY;
    }
    if (status == VXK_OK) {
        for (uint32_t p = 0; p < piece_count; ++p) {
            if (pieces[p].count)
                memcpy(next.masks + next.mask_count, pieces[p].masks,
                       (size_t)pieces[p].count * sizeof(vxk_dilate_mask));
            next.mask_count += pieces[p].count;
        }
        // Sequential inserts in candidate order: the map layout is independent of threads.
        uint32_t mask_index = 0;
        for (uint32_t i = 0; i < count; ++i) {
            uint8_t kind = kinds[i];
            if (kind == VXK_DILATE_EMPTY)
                continue;
            bool ok = vxk_chunk_map_insert(&next.map, candidates[i], entry_value(kind, mask_index));
            VXK_ASSERT(ok); // reserved above
            (void)ok;
            if (kind == VXK_DILATE_MASK)
                ++mask_index;
            else
                ++next.full_count;
        }
        VXK_ASSERT(mask_index == next.mask_count);
        next.generation = bp->generation + 1;
        broadphase_release(bp);
        *bp = next;
    } else {
        broadphase_release(&next);
    }
    free_pieces(pieces, piece_count);
    vxk_free(kinds, count ? count : 1);
    return status;
}

vxk_status vxk_broadphase_build(vxk_world* world)
{
    if (!world)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_broadphase* bp = (vxk_broadphase*)world->broadphase.self;
    uint32_t chunk_count = 0;
    const vxk_chunk* const* chunks = vxk_terrain_sorted_chunks(&world->terrain, &chunk_count);
    vxk_int3* coords =
        (vxk_int3*)vxk_alloc((size_t)(chunk_count ? chunk_count : 1) * sizeof(vxk_int3));
    if (!coords)
        return VXK_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < chunk_count; ++i)
        coords[i] = chunks[i]->coord;
    uint32_t count = 0;
    size_t capacity = 0;
    vxk_int3* candidates = expand_candidates(coords, chunk_count, &count, &capacity);
    vxk_free(coords, (size_t)(chunk_count ? chunk_count : 1) * sizeof(vxk_int3));
    if (chunk_count && !candidates)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_status status = build_from_candidates(world, bp, candidates, count);
    vxk_free(candidates, capacity * sizeof(vxk_int3));
    bp->built |= status == VXK_OK;
    return status;
}

// ---- update ----------------------------------------------------------------------------------

static void release_mask(vxk_broadphase* bp, uint32_t value)
{
    uint32_t tag = value >> BP_TAG_SHIFT;
    if (tag == VXK_DILATE_MASK)
        bp->free_slots[bp->free_count++] = value & BP_INDEX_MASK;
    else
        --bp->full_count;
}

static vxk_status update_candidates(vxk_world* world, vxk_broadphase* bp,
                                    const vxk_int3* candidates, uint32_t count)
{
    uint8_t* kinds = (uint8_t*)vxk_alloc(count);
    if (!kinds)
        return VXK_ERR_OUT_OF_MEMORY;
    piece_masks* pieces = NULL;
    uint32_t piece_count = 0;
    vxk_status status = compute_candidates(&world->terrain, world->jobs, candidates, count, kinds,
                                           &pieces, &piece_count);
    if (status == VXK_OK) {
        // Reserve everything first so that applying cannot fail half-way.
        uint32_t new_masks = 0, new_entries = 0;
        for (uint32_t p = 0; p < piece_count; ++p)
            new_masks += pieces[p].count;
        for (uint32_t i = 0; i < count; ++i)
            new_entries += kinds[i] != VXK_DILATE_EMPTY;
        uint64_t mask_need = (uint64_t)bp->mask_count + new_masks;
        uint64_t free_need = (uint64_t)bp->free_count + count;
        if (mask_need > BP_INDEX_MASK || free_need > BP_INDEX_MASK ||
            !vxk_grow_items((void**)&bp->masks, &bp->mask_capacity, mask_need,
                            sizeof(vxk_dilate_mask)) ||
            !vxk_grow_items((void**)&bp->free_slots, &bp->free_capacity, free_need,
                            sizeof(uint32_t)) ||
            !vxk_chunk_map_reserve(&bp->map, bp->map.count + new_entries))
            status = VXK_ERR_OUT_OF_MEMORY;
    }
    if (status == VXK_OK) {
        ++bp->generation;
        uint32_t piece = 0, in_piece = 0;
        for (uint32_t i = 0; i < count; ++i) {
            vxk_int3 c = candidates[i];
            uint8_t kind = kinds[i];
            uint32_t old = vxk_chunk_map_find(&bp->map, c);
            const vxk_dilate_mask* mask = NULL;
            if (kind == VXK_DILATE_MASK) {
                while (in_piece == pieces[piece].count) {
                    ++piece;
                    in_piece = 0;
                }
                mask = &pieces[piece].masks[in_piece++];
            }
            if (kind == VXK_DILATE_EMPTY) {
                if (old != VXK_CHUNK_MAP_EMPTY) {
                    release_mask(bp, old);
                    vxk_chunk_map_remove(&bp->map, c, NULL);
                }
                continue;
            }
            uint32_t slot = 0;
            if (kind == VXK_DILATE_MASK) {
                if (old != VXK_CHUNK_MAP_EMPTY && (old >> BP_TAG_SHIFT) == VXK_DILATE_MASK)
                    slot = old & BP_INDEX_MASK;
                else {
                    if (old != VXK_CHUNK_MAP_EMPTY)
                        release_mask(bp, old); // a full tag: nothing to free but the count
                    slot = bp->free_count ? bp->free_slots[--bp->free_count] : bp->mask_count++;
                }
                bp->masks[slot] = *mask;
            } else {
                if (old != VXK_CHUNK_MAP_EMPTY)
                    release_mask(bp, old);
                ++bp->full_count;
            }
            bool ok = vxk_chunk_map_insert(&bp->map, c, entry_value(kind, slot));
            VXK_ASSERT(ok); // reserved above
            (void)ok;
        }
    }
    free_pieces(pieces, piece_count);
    vxk_free(kinds, count);
    return status;
}

vxk_status vxk_chunk_neighbourhood(vxk_arena* arena, const vxk_int3** out, uint32_t* out_count,
                                   const vxk_int3* chunks, uint32_t count)
{
    *out = NULL;
    *out_count = 0;
    if (count == 0)
        return VXK_OK;
    // Three separable passes, each at most triples its input (x, then z, then y is the order of
    // dilate_candidates' axes 0, 2, 1: every pass keeps (y, z, x) order).
    vxk_int3* a = (vxk_int3*)vxk_arena_alloc(arena, (size_t)count * 3 * sizeof(vxk_int3));
    if (!a)
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t na = dilate_candidates(a, chunks, count, 0);
    vxk_int3* b = (vxk_int3*)vxk_arena_alloc(arena, (size_t)na * 3 * sizeof(vxk_int3));
    if (!b)
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t nb = dilate_candidates(b, a, na, 2);
    vxk_int3* c = (vxk_int3*)vxk_arena_alloc(arena, (size_t)nb * 3 * sizeof(vxk_int3));
    if (!c)
        return VXK_ERR_OUT_OF_MEMORY;
    *out_count = dilate_candidates(c, b, nb, 1);
    *out = c;
    return VXK_OK;
}

vxk_status vxk_broadphase_update_neighbourhood(vxk_world* world, const vxk_int3* candidates,
                                               uint32_t count)
{
    vxk_broadphase* bp = (vxk_broadphase*)world->broadphase.self;
    if (!bp->built)
        return vxk_broadphase_build(world);
    return count ? update_candidates(world, bp, candidates, count) : VXK_OK;
}

vxk_status vxk_broadphase_update(vxk_world* world, const vxk_int3* dirty_chunks, uint32_t count)
{
    if (!world || (!dirty_chunks && count > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; ++i)
        if (!chunk_in_range(dirty_chunks[i]))
            return VXK_ERR_OUT_OF_RANGE;
    vxk_broadphase* bp = (vxk_broadphase*)world->broadphase.self;
    if (!bp->built)
        return vxk_broadphase_build(world);
    if (count == 0)
        return VXK_OK;
    vxk_int3* sorted = (vxk_int3*)vxk_alloc((size_t)count * sizeof(vxk_int3));
    if (!sorted)
        return VXK_ERR_OUT_OF_MEMORY;
    memcpy(sorted, dirty_chunks, (size_t)count * sizeof(vxk_int3));
    qsort(sorted, count, sizeof(vxk_int3), compare_yzx_qsort);
    uint32_t unique = 1;
    for (uint32_t i = 1; i < count; ++i)
        if (compare_yzx(sorted[i], sorted[unique - 1]) != 0)
            sorted[unique++] = sorted[i];
    uint32_t candidate_count = 0;
    size_t capacity = 0;
    vxk_int3* candidates = expand_candidates(sorted, unique, &candidate_count, &capacity);
    vxk_free(sorted, (size_t)count * sizeof(vxk_int3));
    if (!candidates)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_status status = update_candidates(world, bp, candidates, candidate_count);
    vxk_free(candidates, capacity * sizeof(vxk_int3));
    return status;
}

// ---- reading ---------------------------------------------------------------------------------

static void entry_from_value(const vxk_broadphase* bp, uint32_t value, vxk_broadphase_entry* out)
{
    memset(out, 0, sizeof(*out));
    if (value == VXK_CHUNK_MAP_EMPTY)
        return;
    out->tag = (uint8_t)(value >> BP_TAG_SHIFT);
    if (out->tag == VXK_BROADPHASE_MASK) {
        const vxk_dilate_mask* m = &bp->masks[value & BP_INDEX_MASK];
        memcpy(out->solid, m->solid, sizeof(out->solid));
        memcpy(out->water, m->water, sizeof(out->water));
    } else if (out->tag == VXK_BROADPHASE_FULL_SOLID) {
        memcpy(out->solid, g_full_bits, sizeof(out->solid));
    } else {
        memcpy(out->water, g_full_bits, sizeof(out->water));
    }
}

vxk_status vxk_broadphase_get(const vxk_world* world, vxk_broadphase_entry* out, vxk_int3 chunk)
{
    if (!world || !out)
        return VXK_ERR_INVALID_ARGUMENT;
    const vxk_broadphase* bp = broadphase_of(world);
    uint32_t value = bp ? vxk_chunk_map_find(&bp->map, chunk) : VXK_CHUNK_MAP_EMPTY;
    if (bp)
        entry_from_value(bp, value, out);
    else
        memset(out, 0, sizeof(*out));
    return VXK_OK;
}

void vxk_broadphase_for_each(const vxk_world* world, vxk_broadphase_visit_fn* fn, void* user)
{
    const vxk_broadphase* bp = world ? broadphase_of(world) : NULL;
    if (!bp || !fn)
        return;
    uint32_t cursor = 0;
    for (const vxk_chunk_map_slot* slot; (slot = vxk_chunk_map_next(&bp->map, &cursor));) {
        uint8_t tag = (uint8_t)(slot->value >> BP_TAG_SHIFT);
        const uint64_t* solid =
            tag == VXK_BROADPHASE_MASK
                ? bp->masks[slot->value & BP_INDEX_MASK].solid
                : (tag == VXK_BROADPHASE_FULL_SOLID ? g_full_bits : g_zero_bits);
        fn(user, slot->key, tag, solid);
    }
}

uint64_t vxk_broadphase_generation(const vxk_world* world)
{
    const vxk_broadphase* bp = world ? broadphase_of(world) : NULL;
    return bp ? bp->generation : 0;
}

uint8_t vxk_broadphase_peek(const vxk_world* world, const uint64_t** solid, vxk_int3 chunk)
{
    if (!solid)
        return VXK_BROADPHASE_NONE;
    const vxk_broadphase* bp = world ? broadphase_of(world) : NULL;
    uint32_t value = bp ? vxk_chunk_map_find(&bp->map, chunk) : VXK_CHUNK_MAP_EMPTY;
    if (value == VXK_CHUNK_MAP_EMPTY) {
        *solid = g_zero_bits;
        return VXK_BROADPHASE_NONE;
    }
    uint8_t tag = (uint8_t)(value >> BP_TAG_SHIFT);
    *solid = tag == VXK_BROADPHASE_MASK
                 ? bp->masks[value & BP_INDEX_MASK].solid
                 : (tag == VXK_BROADPHASE_FULL_SOLID ? g_full_bits : g_zero_bits);
    return tag;
}

// Restores the max-heap order (by compare_yzx) of heap[0 .. n) below slot i.
static void chunk_heap_sift_down(vxk_int3* heap, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t largest = i, left = 2 * i + 1, right = left + 1;
        if (left < n && compare_yzx(heap[left], heap[largest]) > 0)
            largest = left;
        if (right < n && compare_yzx(heap[right], heap[largest]) > 0)
            largest = right;
        if (largest == i)
            return;
        vxk_int3 swap = heap[i];
        heap[i] = heap[largest];
        heap[largest] = swap;
        i = largest;
    }
}

// Without a buffer of its own: all entries fit, so they are sorted in out; or out keeps the
// capacity smallest seen so far as a max-heap, whose top a smaller key replaces.
uint32_t vxk_broadphase_get_chunks(const vxk_world* world, vxk_int3* out, uint32_t capacity)
{
    const vxk_broadphase* bp = world ? broadphase_of(world) : NULL;
    uint32_t n = bp ? bp->map.count : 0;
    if (!out || capacity == 0 || n == 0)
        return n;
    uint32_t kept = 0, cursor = 0;
    const vxk_chunk_map_slot* slot;
    if (capacity >= n) {
        while ((slot = vxk_chunk_map_next(&bp->map, &cursor)) != NULL)
            out[kept++] = slot->key;
    } else {
        while ((slot = vxk_chunk_map_next(&bp->map, &cursor)) != NULL) {
            if (kept < capacity) {
                out[kept++] = slot->key;
                if (kept == capacity)
                    for (uint32_t i = capacity / 2; i-- > 0;)
                        chunk_heap_sift_down(out, capacity, i);
            } else if (compare_yzx(slot->key, out[0]) < 0) {
                out[0] = slot->key;
                chunk_heap_sift_down(out, capacity, 0);
            }
        }
    }
    VXK_ASSERT(kept == VXK_MIN(n, capacity));
    qsort(out, kept, sizeof(vxk_int3), compare_yzx_qsort);
    return n;
}

void vxk_broadphase_get_stats(const vxk_world* world, vxk_broadphase_stats* out)
{
    if (!out)
        return;
    const vxk_broadphase* bp = world ? broadphase_of(world) : NULL;
    out->entries = bp ? bp->map.count : 0;
    out->full = bp ? bp->full_count : 0;
    out->bytes = bp ? broadphase_bytes(bp) : 0;
}

uint64_t vxk_broadphase_hash(const vxk_world* world)
{
    uint64_t hash = VXK_HASH_SEED;
    uint32_t n = vxk_broadphase_get_chunks(world, NULL, 0);
    if (n == 0)
        return hash;
    const vxk_broadphase* bp = broadphase_of(world);
    vxk_int3* coords = (vxk_int3*)vxk_alloc((size_t)n * sizeof(vxk_int3));
    VXK_ASSERT(coords && "out of memory hashing the broadphase");
    if (!coords)
        return hash;
    vxk_broadphase_get_chunks(world, coords, n);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t value = vxk_chunk_map_find(&bp->map, coords[i]);
        uint8_t tag = (uint8_t)(value >> BP_TAG_SHIFT);
        hash = vxk_hash_bytes(hash, &coords[i], sizeof(coords[i]));
        hash = vxk_hash_bytes(hash, &tag, 1);
        if (tag == VXK_BROADPHASE_MASK)
            hash = vxk_hash_bytes(hash, &bp->masks[value & BP_INDEX_MASK], sizeof(vxk_dilate_mask));
    }
    vxk_free(coords, (size_t)n * sizeof(vxk_int3));
    return hash;
}

// ---- overlap queries -------------------------------------------------------------------------

// XZ masks of a voxel range inside a chunk: masks_x[a][b] has bits x in [a, b] of every row,
// masks_z[a][b] has rows z in [a, b]. Entries with a > b are unused.
#define BP_MX(a, b) \
    ((uint64_t)((0xFFu >> (7 - (b))) & (0xFFu << (a)) & 0xFFu) * 0x0101010101010101ull)
#define BP_MZ(a, b) ((~0ull >> (8 * (7 - (b)))) & (~0ull << (8 * (a))))
#define BP_ROW(M, a)                                                           \
    {                                                                          \
        M(a, 0), M(a, 1), M(a, 2), M(a, 3), M(a, 4), M(a, 5), M(a, 6), M(a, 7) \
    }
#define BP_TABLE(M)                                                                         \
    {                                                                                       \
        BP_ROW(M, 0), BP_ROW(M, 1), BP_ROW(M, 2), BP_ROW(M, 3), BP_ROW(M, 4), BP_ROW(M, 5), \
            BP_ROW(M, 6), BP_ROW(M, 7)                                                      \
    }
static const uint64_t g_masks_x[8][8] = BP_TABLE(BP_MX);
static const uint64_t g_masks_z[8][8] = BP_TABLE(BP_MZ);

typedef struct voxel_range {
    int32_t lo[3], hi[3]; // inclusive voxel range, x y z
} voxel_range;

static vxk_status query_range(const vxk_world* world, vxk_aabb box, voxel_range* out)
{
    if (!vxk_vec3_is_finite(box.min) || !vxk_vec3_is_finite(box.max))
        return VXK_ERR_NOT_FINITE;
    const float mins[3] = {box.min.x, box.min.y, box.min.z};
    const float maxs[3] = {box.max.x, box.max.y, box.max.z};
    const double voxel = (double)world->voxel_size;
    for (int a = 0; a < 3; ++a) {
        if (mins[a] > maxs[a])
            return VXK_ERR_INVALID_ARGUMENT;
        double lo = floor((double)mins[a] / voxel);
        double hi = ceil((double)maxs[a] / voxel);
        if (!(lo >= -2147483648.0) || !(hi <= 2147483648.0))
            return VXK_ERR_OUT_OF_RANGE;
        // The one-voxel expansion: cells [floor(min) - 1, ceil(max) + 1), clamped to int32.
        double elo = lo - 1.0, ehi = hi;
        out->lo[a] = elo < -2147483648.0 ? INT32_MIN : (int32_t)elo;
        out->hi[a] = ehi > 2147483647.0 ? INT32_MAX : (int32_t)ehi;
    }
    return VXK_OK;
}

// Flags of one chunk entry against the voxel range (the chunk overlaps the range).
static inline uint32_t chunk_hit_flags(const vxk_broadphase* bp, uint32_t value,
                                       const voxel_range* r, vxk_int3 chunk)
{
    uint32_t tag = value >> BP_TAG_SHIFT;
    if (tag == VXK_BROADPHASE_FULL_SOLID)
        return VXK_BROADPHASE_HIT_SOLID;
    if (tag == VXK_BROADPHASE_FULL_WATER)
        return VXK_BROADPHASE_HIT_WATER;
    int64_t bx = (int64_t)chunk.x * 8, by = (int64_t)chunk.y * 8, bz = (int64_t)chunk.z * 8;
    int x0 = (int)VXK_MAX((int64_t)r->lo[0] - bx, 0), x1 = (int)VXK_MIN((int64_t)r->hi[0] - bx, 7);
    int y0 = (int)VXK_MAX((int64_t)r->lo[1] - by, 0), y1 = (int)VXK_MIN((int64_t)r->hi[1] - by, 7);
    int z0 = (int)VXK_MAX((int64_t)r->lo[2] - bz, 0), z1 = (int)VXK_MIN((int64_t)r->hi[2] - bz, 7);
    uint64_t mask = g_masks_x[x0][x1] & g_masks_z[z0][z1];
    const vxk_dilate_mask* m = &bp->masks[value & BP_INDEX_MASK];
    uint64_t solid = 0, water = 0;
    for (int y = y0; y <= y1; ++y) {
        solid |= m->solid[y] & mask;
        water |= m->water[y] & mask;
    }
    return (solid ? VXK_BROADPHASE_HIT_SOLID : 0u) | (water ? VXK_BROADPHASE_HIT_WATER : 0u);
}

// Where hits go: a fixed buffer that counts past its capacity, or a growable one.
struct hit_sink {
    vxk_broadphase_hit* hits;
    uint64_t count;
    uint32_t capacity;
    bool growable;
    bool failed;
};
typedef struct hit_sink hit_sink;

static void sink_push(hit_sink* s, vxk_broadphase_hit hit)
{
    // A growable sink's count stays at its capacity until it fails, then it only counts.
    if (s->count >= s->capacity && s->growable && !s->failed &&
        !vxk_grow_items((void**)&s->hits, &s->capacity, s->count + 1, sizeof(hit)))
        s->failed = true;
    if (s->count < s->capacity)
        s->hits[s->count] = hit;
    ++s->count;
}

static void sink_free(hit_sink* s)
{
    vxk_free(s->hits, (size_t)s->capacity * sizeof(vxk_broadphase_hit));
    s->hits = NULL;
    s->capacity = 0;
}

static int compare_hits(const void* a, const void* b)
{
    const vxk_broadphase_hit* ha = (const vxk_broadphase_hit*)a;
    const vxk_broadphase_hit* hb = (const vxk_broadphase_hit*)b;
    return compare_yzx(ha->chunk, hb->chunk);
}

// Appends the hits of one range to the sink in (cy, cz, cx) order. Returns false when out of
// memory (the entry-scan path of huge boxes allocates).
static bool query_core(const vxk_broadphase* bp, const voxel_range* r, hit_sink* sink)
{
    if (!bp || bp->map.count == 0)
        return true;
    int32_t c0[3], c1[3];
    double volume = 1.0;
    for (int a = 0; a < 3; ++a) {
        c0[a] = vxk_floor_div8(r->lo[a]);
        c1[a] = vxk_floor_div8(r->hi[a]);
        volume *= (double)c1[a] - (double)c0[a] + 1.0;
    }
    if (volume <= 4.0 * (double)bp->map.count + 64.0) {
        for (int32_t cy = c0[1]; cy <= c1[1]; ++cy)
            for (int32_t cz = c0[2]; cz <= c1[2]; ++cz)
                for (int32_t cx = c0[0]; cx <= c1[0]; ++cx) {
                    vxk_int3 c = {cx, cy, cz};
                    uint32_t value = vxk_chunk_map_find(&bp->map, c);
                    if (value == VXK_CHUNK_MAP_EMPTY)
                        continue;
                    uint32_t flags = chunk_hit_flags(bp, value, r, c);
                    if (flags)
                        sink_push(sink, (vxk_broadphase_hit){c, flags});
                }
        return true;
    }
    // More chunks in range than entries: scan the entries, then sort the hits.
    hit_sink scan = {NULL, 0, 0, true, false};
    uint32_t cursor = 0;
    const vxk_chunk_map_slot* slot;
    while ((slot = vxk_chunk_map_next(&bp->map, &cursor)) != NULL) {
        vxk_int3 c = slot->key;
        if (c.x < c0[0] || c.x > c1[0] || c.y < c0[1] || c.y > c1[1] || c.z < c0[2] || c.z > c1[2])
            continue;
        uint32_t flags = chunk_hit_flags(bp, slot->value, r, c);
        if (flags)
            sink_push(&scan, (vxk_broadphase_hit){c, flags});
    }
    if (scan.failed) {
        sink_free(&scan);
        return false;
    }
    if (scan.count) // qsort's array may not be NULL, even for no element
        qsort(scan.hits, (size_t)scan.count, sizeof(vxk_broadphase_hit), compare_hits);
    for (uint64_t i = 0; i < scan.count; ++i)
        sink_push(sink, scan.hits[i]);
    sink_free(&scan);
    return !sink->failed;
}

// ---- swept queries ---------------------------------------------------------------------------

// A sweep in voxel units: the query's expanded box e (continuous coordinates: cells
// [floor(min) - 1, ceil(max)] span [floor(min) - 1, ceil(max) + 1]) moved by m, u in [0, 1], and
// the cells of its bounding box within the int32 range.
typedef struct sweep_range {
    double lo[3], hi[3], m[3];
    voxel_range cells;
} sweep_range;

// The sweep in voxel units; false when none of it lies within the int32 voxel range.
static bool sweep_range_of(const vxk_world* world, const vxk_broadphase_sweep* sweep,
                           sweep_range* out)
{
    const float mins[3] = {sweep->box.min.x, sweep->box.min.y, sweep->box.min.z};
    const float maxs[3] = {sweep->box.max.x, sweep->box.max.y, sweep->box.max.z};
    const float motion[3] = {sweep->motion.x, sweep->motion.y, sweep->motion.z};
    const double voxel = (double)world->voxel_size;
    for (int a = 0; a < 3; ++a) {
        double m = (double)motion[a] / voxel;
        out->lo[a] = floor((double)mins[a] / voxel) - 1.0;
        out->hi[a] = ceil((double)maxs[a] / voxel) + 1.0;
        out->m[a] = m;
        // The cells of the bounding box, as query_range's for a box without motion.
        double lo = out->lo[a] + fmin(m, 0.0), hi = out->hi[a] - 1.0 + fmax(m, 0.0);
        if (m != 0.0) {
            lo = floor(lo);
            hi = ceil(hi);
        }
        if (hi < -2147483648.0 || lo > 2147483647.0)
            return false;
        out->cells.lo[a] = lo < -2147483648.0 ? INT32_MIN : (int32_t)lo;
        out->cells.hi[a] = hi > 2147483647.0 ? INT32_MAX : (int32_t)hi;
    }
    return true;
}

// Narrows [u0, u1] to where the moving box meets cells [a, b] along axis k (closed): false when
// it never does.
static bool sweep_span(const sweep_range* r, int k, int64_t a, int64_t b, double* u0, double* u1)
{
    double lo = (double)a - r->hi[k], hi = (double)b + 1.0 - r->lo[k];
    if (r->m[k] == 0.0)
        return lo <= 0.0 && 0.0 <= hi && *u0 <= *u1;
    double ua = lo / r->m[k], ub = hi / r->m[k];
    *u0 = fmax(*u0, fmin(ua, ub));
    *u1 = fmin(*u1, fmax(ua, ub));
    return *u0 <= *u1;
}

// The cells along axis k that the moving box covers for u in [u0, u1], within the sweep's cells.
static void sweep_cells(const sweep_range* r, int k, double u0, double u1, int32_t* lo, int32_t* hi)
{
    double a = r->lo[k] + fmin(r->m[k] * u0, r->m[k] * u1);
    double b = r->hi[k] - 1.0 + fmax(r->m[k] * u0, r->m[k] * u1);
    a = floor(a);
    b = ceil(b);
    *lo = a <= (double)r->cells.lo[k] ? r->cells.lo[k] : (int32_t)a;
    *hi = b >= (double)r->cells.hi[k] ? r->cells.hi[k] : (int32_t)b;
}

// sweep_span over the cells of chunk coordinate c along axis k within the sweep's.
static bool sweep_chunk_span(const sweep_range* r, int k, int32_t c, double* u0, double* u1)
{
    int64_t lo = VXK_MAX((int64_t)c * 8, (int64_t)r->cells.lo[k]);
    int64_t hi = VXK_MIN((int64_t)c * 8 + 7, (int64_t)r->cells.hi[k]);
    return lo <= hi && sweep_span(r, k, lo, hi, u0, u1);
}

// The chunk's span of the sweep: [u0, u1] where the moving box meets its cells within the
// sweep's along every axis, and the cells it covers then. False when it never does.
static bool sweep_chunk(const sweep_range* r, vxk_int3 chunk, voxel_range* cells)
{
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    double u0 = 0.0, u1 = 1.0;
    for (int k = 1; k < 4; ++k) // y, z, x: the order the nested walk narrows in
        if (!sweep_chunk_span(r, k % 3, c[k % 3], &u0, &u1))
            return false;
    for (int a = 0; a < 3; ++a)
        sweep_cells(r, a, u0, u1, &cells->lo[a], &cells->hi[a]);
    return true;
}

// The chunks along axis k whose cells the moving box meets, boundary included, for u in
// [u0, u1] (a superset of those sweep_chunk accepts), within the sweep's cells.
static void sweep_walk(const sweep_range* r, int k, double u0, double u1, int32_t* c0, int32_t* c1)
{
    double a = floor(r->lo[k] + fmin(r->m[k] * u0, r->m[k] * u1)) - 1.0;
    double b = floor(r->hi[k] + fmax(r->m[k] * u0, r->m[k] * u1));
    int32_t lo = a <= (double)r->cells.lo[k] ? r->cells.lo[k] : (int32_t)a;
    int32_t hi = b >= (double)r->cells.hi[k] ? r->cells.hi[k] : (int32_t)b;
    *c0 = vxk_floor_div8(lo);
    *c1 = vxk_floor_div8(hi);
}

static void sweep_push(const vxk_broadphase* bp, const sweep_range* r, uint32_t value, vxk_int3 c,
                       hit_sink* sink)
{
    voxel_range cells;
    if (!sweep_chunk(r, c, &cells))
        return;
    // Only the chunks whose cells the box overlaps with positive volume, as the box queries.
    const int32_t base[3] = {c.x, c.y, c.z};
    for (int a = 0; a < 3; ++a)
        if (cells.hi[a] < base[a] * 8 || cells.lo[a] > base[a] * 8 + 7 || cells.lo[a] > cells.hi[a])
            return;
    uint32_t flags = chunk_hit_flags(bp, value, &cells, c);
    if (flags)
        sink_push(sink, (vxk_broadphase_hit){c, flags});
}

// Appends the hits of one sweep to the sink in (cy, cz, cx) order: the chunk rows and columns the
// moving box crosses, walked by narrowing its span along y, then z, then x; a sweep over more
// chunks than a few times the entries scans the entries. False when out of memory.
static bool sweep_core(const vxk_broadphase* bp, const sweep_range* r, hit_sink* sink)
{
    if (!bp || bp->map.count == 0)
        return true;
    if (r->m[0] == 0.0 && r->m[1] == 0.0 && r->m[2] == 0.0)
        return query_core(bp, &r->cells, sink);
    // Chunks the walk visits, at most: the box's chunks and those its faces cross.
    double extent[3], volume = 1.0, swept = 0.0;
    for (int a = 0; a < 3; ++a) {
        extent[a] = (r->hi[a] - r->lo[a]) / 8.0 + 2.0;
        volume *= extent[a];
    }
    for (int a = 0; a < 3; ++a)
        swept += fabs(r->m[a]) / 8.0 * volume / extent[a];
    int32_t c0[3], c1[3];
    for (int a = 0; a < 3; ++a) {
        c0[a] = vxk_floor_div8(r->cells.lo[a]);
        c1[a] = vxk_floor_div8(r->cells.hi[a]);
    }
    if (volume + swept <= 4.0 * (double)bp->map.count + 64.0) {
        for (int32_t cy = c0[1]; cy <= c1[1]; ++cy) {
            double y0 = 0.0, y1 = 1.0;
            if (!sweep_chunk_span(r, 1, cy, &y0, &y1))
                continue;
            int32_t cz0, cz1;
            sweep_walk(r, 2, y0, y1, &cz0, &cz1);
            for (int32_t cz = cz0; cz <= cz1; ++cz) {
                double z0 = y0, z1 = y1;
                if (!sweep_chunk_span(r, 2, cz, &z0, &z1))
                    continue;
                int32_t cx0, cx1;
                sweep_walk(r, 0, z0, z1, &cx0, &cx1);
                for (int32_t cx = cx0; cx <= cx1; ++cx) {
                    vxk_int3 c = {cx, cy, cz};
                    uint32_t value = vxk_chunk_map_find(&bp->map, c);
                    if (value != VXK_CHUNK_MAP_EMPTY)
                        sweep_push(bp, r, value, c, sink);
                }
            }
        }
        return !sink->failed;
    }
    hit_sink scan = {NULL, 0, 0, true, false};
    uint32_t cursor = 0;
    const vxk_chunk_map_slot* slot;
    while ((slot = vxk_chunk_map_next(&bp->map, &cursor)) != NULL)
        sweep_push(bp, r, slot->value, slot->key, &scan);
    if (scan.failed) {
        sink_free(&scan);
        return false;
    }
    if (scan.count)
        qsort(scan.hits, (size_t)scan.count, sizeof(vxk_broadphase_hit), compare_hits);
    for (uint64_t i = 0; i < scan.count; ++i)
        sink_push(sink, scan.hits[i]);
    sink_free(&scan);
    return !sink->failed;
}

vxk_status vxk_broadphase_query_aabb(const vxk_world* world, vxk_broadphase_hit* results,
                                     uint32_t capacity, uint32_t* count, vxk_aabb box)
{
    if (count)
        *count = 0;
    if (!world || !count || (!results && capacity > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    voxel_range range;
    vxk_status status = query_range(world, box, &range);
    if (status != VXK_OK)
        return status;
    hit_sink sink = {results, 0, capacity, false, false};
    if (!query_core(broadphase_of(world), &range, &sink))
        return VXK_ERR_OUT_OF_MEMORY;
    if (sink.count > UINT32_MAX)
        return VXK_ERR_CAPACITY;
    *count = (uint32_t)sink.count;
    return sink.count > capacity ? VXK_ERR_CAPACITY : VXK_OK;
}

// Hits go to one growable buffer per thread (reused by all the pieces that thread runs, so a
// batch allocates a handful of times, not once per piece); each piece records where its hits
// landed, and the merge copies them in piece order.
typedef struct batch_piece_record {
    uint32_t thread;
    uint64_t start, count;
} batch_piece_record;

typedef struct batch_job {
    const vxk_world* world;
    const vxk_broadphase* bp;
    const vxk_aabb* boxes;              // or
    const vxk_broadphase_sweep* sweeps; // the queries
    uint32_t* offsets;                  // offsets[i + 1] receives box i's hit count
    hit_sink* thread_sinks;             // one per thread index
    batch_piece_record* records;        // one per piece
} batch_job;

static void batch_piece(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    batch_job* job = (batch_job*)ctx;
    hit_sink* sink = &job->thread_sinks[thread];
    batch_piece_record* record = &job->records[begin / BP_QUERY_GRAIN];
    record->thread = thread;
    record->start = sink->count;
    for (uint32_t i = begin; i < end; ++i) {
        uint64_t before = sink->count;
        if (job->sweeps) {
            sweep_range range;
            if (sweep_range_of(job->world, &job->sweeps[i], &range) &&
                !sweep_core(job->bp, &range, sink))
                sink->failed = true;
        } else {
            voxel_range range;
            vxk_status status = query_range(job->world, job->boxes[i], &range);
            VXK_ASSERT(status == VXK_OK); // validated before the jobs
            (void)status;
            if (!query_core(job->bp, &range, sink))
                sink->failed = true;
        }
        uint64_t hits = sink->count - before;
        job->offsets[i + 1] = hits > UINT32_MAX ? UINT32_MAX : (uint32_t)hits;
    }
    record->count = sink->count - record->start;
}

// A batch of boxes or of sweeps (validated), as vxk_broadphase_query_batch runs it.
static vxk_status run_batch(const vxk_world* world, vxk_broadphase_hit* results, uint32_t capacity,
                            uint32_t* offsets, const vxk_aabb* boxes,
                            const vxk_broadphase_sweep* sweeps, uint32_t count);

vxk_status vxk_broadphase_query_batch(const vxk_world* world, vxk_broadphase_hit* results,
                                      uint32_t capacity, uint32_t* offsets, const vxk_aabb* boxes,
                                      uint32_t count)
{
    if (!world || !offsets || (!boxes && count > 0) || (!results && capacity > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; ++i) {
        voxel_range range;
        vxk_status status = query_range(world, boxes[i], &range);
        if (status != VXK_OK)
            return status;
    }
    return run_batch(world, results, capacity, offsets, boxes, NULL, count);
}

vxk_status vxk_broadphase_query_sweep_batch(const vxk_world* world, vxk_broadphase_hit* results,
                                            uint32_t capacity, uint32_t* offsets,
                                            const vxk_broadphase_sweep* sweeps, uint32_t count)
{
    if (!world || !offsets || (!sweeps && count > 0) || (!results && capacity > 0))
        return VXK_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; ++i) {
        const vxk_broadphase_sweep* w = &sweeps[i];
        if (!vxk_vec3_is_finite(w->box.min) || !vxk_vec3_is_finite(w->box.max) ||
            !vxk_vec3_is_finite(w->motion))
            return VXK_ERR_NOT_FINITE;
        if (w->box.min.x > w->box.max.x || w->box.min.y > w->box.max.y ||
            w->box.min.z > w->box.max.z)
            return VXK_ERR_INVALID_ARGUMENT;
    }
    return run_batch(world, results, capacity, offsets, NULL, sweeps, count);
}

static vxk_status run_batch(const vxk_world* world, vxk_broadphase_hit* results, uint32_t capacity,
                            uint32_t* offsets, const vxk_aabb* boxes,
                            const vxk_broadphase_sweep* sweeps, uint32_t count)
{
    offsets[0] = 0;
    if (count == 0)
        return VXK_OK;
    vxk_jobs* jobs = world->jobs;
    uint32_t thread_count = vxk_jobs_thread_count(jobs);
    uint32_t piece_count = vxk_parallel_for_pieces(count, BP_QUERY_GRAIN);
    // The broadphase object is never const itself; only its scratch changes here.
    vxk_broadphase* bp = (vxk_broadphase*)broadphase_of(world);
    bool cached = bp && !atomic_exchange(&bp->batch_scratch_busy, true);
    if (cached && bp->batch_scratch_count < thread_count) {
        batch_scratch_free(bp->batch_scratch, bp->batch_scratch_count);
        bp->batch_scratch = (hit_sink*)vxk_calloc((size_t)thread_count * sizeof(hit_sink));
        bp->batch_scratch_count = bp->batch_scratch ? thread_count : 0;
    }
    hit_sink* sinks =
        cached ? bp->batch_scratch : (hit_sink*)vxk_calloc((size_t)thread_count * sizeof(hit_sink));
    for (uint32_t t = 0; sinks && t < thread_count; ++t) {
        sinks[t].count = 0;
        sinks[t].failed = false;
    }
    // The piece records are kept with the scratch too, so that a steady caller (the step's
    // terrain candidates) stops allocating.
    if (cached && bp->batch_record_count < piece_count) {
        vxk_free(bp->batch_records, bp->batch_record_bytes);
        bp->batch_records = vxk_calloc((size_t)piece_count * sizeof(batch_piece_record));
        bp->batch_record_count = bp->batch_records ? piece_count : 0;
        bp->batch_record_bytes = (size_t)bp->batch_record_count * sizeof(batch_piece_record);
    }
    batch_piece_record* records =
        cached ? (batch_piece_record*)bp->batch_records
               : (batch_piece_record*)vxk_calloc((size_t)piece_count * sizeof(batch_piece_record));
    if (records)
        memset(records, 0, (size_t)piece_count * sizeof(batch_piece_record));
    vxk_status status = VXK_OK;
    if (!sinks || !records)
        status = VXK_ERR_OUT_OF_MEMORY;
    if (status == VXK_OK) {
        for (uint32_t t = 0; t < thread_count; ++t)
            sinks[t].growable = true;
        batch_job job = {world, broadphase_of(world), boxes, sweeps, offsets, sinks, records};
        vxk_parallel_for(jobs, "broadphase_query", count, BP_QUERY_GRAIN, batch_piece, &job);
        uint64_t total = 0;
        for (uint32_t t = 0; t < thread_count; ++t) {
            if (sinks[t].failed)
                status = VXK_ERR_OUT_OF_MEMORY;
            total += sinks[t].count;
        }
        if (status == VXK_OK && total > UINT32_MAX)
            status = VXK_ERR_CAPACITY;
        if (status == VXK_OK) {
            for (uint32_t i = 0; i < count; ++i)
                offsets[i + 1] += offsets[i];
            if (total > capacity)
                status = VXK_ERR_CAPACITY;
            else
                for (uint32_t p = 0; p < piece_count; ++p)
                    if (records[p].count)
                        memcpy(results + offsets[p * BP_QUERY_GRAIN],
                               sinks[records[p].thread].hits + records[p].start,
                               (size_t)records[p].count * sizeof(vxk_broadphase_hit));
        }
    }
    if (cached)
        atomic_store(&bp->batch_scratch_busy, false);
    else
        batch_scratch_free(sinks, thread_count);
    if (!cached)
        vxk_free(records, (size_t)piece_count * sizeof(batch_piece_record));
    return status;
}

static void batch_scratch_free(hit_sink* sinks, uint32_t count)
{
    if (!sinks)
        return;
    for (uint32_t t = 0; t < count; ++t)
        sink_free(&sinks[t]);
    vxk_free(sinks, (size_t)count * sizeof(hit_sink));
}

static uint64_t batch_scratch_bytes(const vxk_broadphase* bp)
{
    uint64_t bytes = (uint64_t)bp->batch_scratch_count * sizeof(hit_sink) + bp->batch_record_bytes;
    for (uint32_t t = 0; t < bp->batch_scratch_count; ++t)
        bytes += (uint64_t)bp->batch_scratch[t].capacity * sizeof(vxk_broadphase_hit);
    return bytes;
}
