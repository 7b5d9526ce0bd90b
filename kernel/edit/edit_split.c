// edit_split.c: connectivity splitting wired to the edit system (edit_split.h, vxk/edit.h).
//
// Terrain. A batch's removed voxels are clustered (their chunk boxes merged while the boxes grown
// by the margin overlap, up to REGION_MAX_REMOVED voxels a side); each cluster is searched in its
// own region (the removed box grown by the margin, aligned to chunks, not below the floor's
// chunk), gathered from the writer's chunk bits into flood rows (vxk_flood_gather_chunks) with
// the anchors beside them. The searches run as jobs (one per search, each with its own splitter,
// so results never depend on which thread ran what) and their results are applied afterwards on
// the writer's thread in search order, then component order: fixed by the batch alone.
#include "edit_split.h"

#include "math3.h"
#include "split.h"
#include "world_internal.h"

#include <vxk/voxel_grid.h>
#include <vxk/simd_flood.h>

#include <stdatomic.h>

#define REGION_MAX_REMOVED 256 // the largest side of a cluster's box of removed voxels
#define MIN_SHARE 4096         // the least budget a search gets per batch

typedef struct split_search {
    vxk_int_box region; // world voxels, chunk-aligned
    vxk_int3 size;
    uint64_t* solid; // flood rows of the region (split.h layout), then its anchors
    uint64_t* anchor;
    size_t words;
    vxk_split split;
    vxk_split_result result;
    uint64_t share;    // this batch's budget
    uint64_t expanded; // voxels expanded by the last run
    vxk_status status;
    bool started, done;
} split_search;

struct vxk_edit_splitter {
    int32_t floor_y;
    uint32_t margin;
    uint64_t budget;

    // The writer's: searches in progress, in the order they began.
    split_search** searches;
    uint32_t search_count, search_capacity;
    vxk_int_box* clusters; // removed boxes (world voxels)
    uint32_t cluster_count, cluster_capacity;
    // The batch being split, read by the search jobs.
    const vxk_terrain* terrain;
    const vxk_material_table* materials;
    const vxk_edit_removed* removed;
    uint32_t removed_count;
    bool finish;

    // The publish's: the list of bodies made (filled by the spawn stage).
    vxk_edit_split_event* events;
    uint32_t event_count, event_capacity;

    _Atomic uint64_t searches_total, voxels_total, bodies_total, left_total, lost_total;
    _Atomic uint64_t publish_bytes; // the publish's buffers (vxk_edit_splitter_bytes)
    _Atomic uint32_t pending;
};

void vxk_edit_debris_list_free(vxk_edit_debris_list* list)
{
    for (uint32_t i = 0; i < list->count; ++i)
        vxk_voxel_grid_free(&list->items[i].grid);
    vxk_free(list->items, (size_t)list->capacity * sizeof(*list->items));
    *list = (vxk_edit_debris_list){0};
}

uint64_t vxk_edit_debris_list_bytes(const vxk_edit_debris_list* list)
{
    uint64_t bytes = (uint64_t)list->capacity * sizeof(*list->items);
    for (uint32_t i = 0; i < list->count; ++i) {
        vxk_int3 s = list->items[i].grid.size;
        bytes += (uint64_t)s.x * (uint64_t)s.y * (uint64_t)s.z;
    }
    return bytes;
}

vxk_edit_splitter* vxk_edit_splitter_create(const vxk_edit_def* def)
{
    vxk_edit_splitter* sp = (vxk_edit_splitter*)vxk_calloc(sizeof(*sp));
    if (!sp)
        return NULL;
    sp->floor_y = def->floor_y;
    sp->margin = def->split_margin;
    sp->budget = def->split_budget;
    return sp;
}

static void search_free(split_search* s)
{
    vxk_split_destroy(&s->split);
    vxk_split_result_free(&s->result);
    vxk_free(s->solid, 2 * s->words * sizeof(uint64_t)); // the rows and the anchors' room
    vxk_free(s, sizeof(*s));
}

void vxk_edit_splitter_destroy(vxk_edit_splitter* sp)
{
    if (!sp)
        return;
    for (uint32_t i = 0; i < sp->search_count; ++i)
        search_free(sp->searches[i]);
    vxk_free(sp->searches, (size_t)sp->search_capacity * sizeof(*sp->searches));
    vxk_free(sp->clusters, (size_t)sp->cluster_capacity * sizeof(*sp->clusters));
    vxk_free(sp->events, (size_t)sp->event_capacity * sizeof(*sp->events));
    vxk_free(sp, sizeof(*sp));
}

bool vxk_edit_splitter_pending(const vxk_edit_splitter* sp)
{
    return sp && sp->search_count > 0;
}

uint64_t vxk_edit_splitter_bytes(const vxk_edit_splitter* sp)
{
    if (!sp)
        return 0;
    // The writer's part (the caller holds the writer's lock); the publish's part as it last left
    // it (an atomic: the step may be growing it now).
    uint64_t bytes = sizeof(*sp) + (uint64_t)sp->search_capacity * sizeof(*sp->searches) +
                     (uint64_t)sp->cluster_capacity * sizeof(*sp->clusters) +
                     atomic_load_explicit(&sp->publish_bytes, memory_order_relaxed);
    for (uint32_t i = 0; i < sp->search_count; ++i)
        bytes += sizeof(split_search) + 2 * sp->searches[i]->words * sizeof(uint64_t);
    return bytes;
}

// ---- terrain: regions -------------------------------------------------------------------------

// Grown by `by` on each side, kept within int32 (edits reach its ends).
static int32_t clamp32(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : (int32_t)v);
}

static vxk_int_box box_grow(vxk_int_box b, int32_t by)
{
    return (vxk_int_box){{clamp32((int64_t)b.min.x - by), clamp32((int64_t)b.min.y - by),
                          clamp32((int64_t)b.min.z - by)},
                         {clamp32((int64_t)b.max.x + by), clamp32((int64_t)b.max.y + by),
                          clamp32((int64_t)b.max.z + by)}};
}

static bool boxes_overlap(vxk_int_box a, vxk_int_box b)
{
    return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y &&
           a.min.z <= b.max.z && b.min.z <= a.max.z;
}

static vxk_int_box box_union(vxk_int_box a, vxk_int_box b)
{
    return (vxk_int_box){
        {VXK_MIN(a.min.x, b.min.x), VXK_MIN(a.min.y, b.min.y), VXK_MIN(a.min.z, b.min.z)},
        {VXK_MAX(a.max.x, b.max.x), VXK_MAX(a.max.y, b.max.y), VXK_MAX(a.max.z, b.max.z)}};
}

static bool box_fits(vxk_int_box b, int64_t side)
{
    return (int64_t)b.max.x - b.min.x < side && (int64_t)b.max.y - b.min.y < side &&
           (int64_t)b.max.z - b.min.z < side;
}

// The box of a removed chunk's voxels (world coordinates).
static vxk_int_box removed_box(const vxk_edit_removed* r)
{
    uint64_t any = 0;
    int32_t y0 = 8, y1 = -1;
    for (int y = 0; y < 8; ++y)
        if (r->solid[y]) {
            any |= r->solid[y];
            y0 = VXK_MIN(y0, y);
            y1 = y;
        }
    int32_t x0 = 8, x1 = -1, z0 = 8, z1 = -1;
    for (int z = 0; z < 8; ++z) {
        uint32_t row = (uint32_t)(any >> (8 * z)) & 0xFFu;
        if (!row)
            continue;
        z0 = VXK_MIN(z0, z);
        z1 = z;
        x0 = VXK_MIN(x0, __builtin_ctz(row));
        x1 = VXK_MAX(x1, 31 - __builtin_clz(row));
    }
    vxk_int3 base = {r->chunk.x * 8, r->chunk.y * 8, r->chunk.z * 8};
    return (vxk_int_box){{base.x + x0, base.y + y0, base.z + z0},
                         {base.x + x1, base.y + y1, base.z + z1}};
}

// Clusters of removed voxels: a chunk's box joins the first cluster it comes near (within twice
// the margin) while the cluster stays small enough, then clusters that came near merge, until
// none does. The list order is fixed by the removed list's order.
static vxk_status make_clusters(vxk_edit_splitter* sp, const vxk_edit_removed* removed,
                                uint32_t count)
{
    sp->cluster_count = 0;
    int32_t reach = 2 * (int32_t)sp->margin;
    for (uint32_t i = 0; i < count; ++i) {
        vxk_int_box b = removed_box(&removed[i]);
        bool joined = false;
        for (uint32_t c = 0; c < sp->cluster_count && !joined; ++c) {
            vxk_int_box u = box_union(sp->clusters[c], b);
            if (boxes_overlap(box_grow(sp->clusters[c], reach), b) &&
                box_fits(u, REGION_MAX_REMOVED)) {
                sp->clusters[c] = u;
                joined = true;
            }
        }
        if (joined)
            continue;
        if (!vxk_grow_items((void**)&sp->clusters, &sp->cluster_capacity,
                            (uint64_t)sp->cluster_count + 1, sizeof(*sp->clusters)))
            return VXK_ERR_OUT_OF_MEMORY;
        sp->clusters[sp->cluster_count++] = b;
    }
    for (bool merged = true; merged;) {
        merged = false;
        for (uint32_t a = 0; a < sp->cluster_count; ++a)
            for (uint32_t b = a + 1; b < sp->cluster_count; ++b) {
                vxk_int_box u = box_union(sp->clusters[a], sp->clusters[b]);
                if (!boxes_overlap(box_grow(sp->clusters[a], reach), sp->clusters[b]) ||
                    !box_fits(u, REGION_MAX_REMOVED))
                    continue;
                sp->clusters[a] = u;
                sp->clusters[b] = sp->clusters[--sp->cluster_count];
                merged = true;
                --b;
            }
    }
    return VXK_OK;
}

// The region searched around a cluster: grown by the margin, aligned to chunks, its bottom not
// below the chunk of the floor (everything lower is anchored through the floor).
static vxk_int_box cluster_region(const vxk_edit_splitter* sp, vxk_int_box cluster)
{
    vxk_int_box r = box_grow(cluster, (int32_t)sp->margin);
    int32_t floor_chunk = (sp->floor_y >> 3) * 8;
    if (r.min.y < floor_chunk)
        r.min.y = VXK_MIN(floor_chunk, cluster.min.y & ~7);
    r.min.x &= ~7;
    r.min.y &= ~7;
    r.min.z &= ~7;
    r.max.x |= 7;
    r.max.y |= 7;
    r.max.z |= 7;
    return r;
}

// ---- terrain: one search (a job) --------------------------------------------------------------

static bool chunk_in(vxk_int3 ch, vxk_int3 c0, uint32_t cx, uint32_t cy, uint32_t cz)
{
    return ch.x >= c0.x && ch.y >= c0.y && ch.z >= c0.z && ch.x < c0.x + (int32_t)cx &&
           ch.y < c0.y + (int32_t)cy && ch.z < c0.z + (int32_t)cz;
}

static const uint64_t all_ones[8] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull};

// Gathers the region's solid rows and anchors and begins the search from the removed voxels in
// it.
static vxk_status search_start(vxk_edit_splitter* sp, split_search* s)
{
    vxk_int3 c0 = {s->region.min.x >> 3, s->region.min.y >> 3, s->region.min.z >> 3};
    uint32_t cx = (uint32_t)(s->size.x / 8), cy = (uint32_t)(s->size.y / 8),
             cz = (uint32_t)(s->size.z / 8);
    size_t chunks = (size_t)cx * cy * cz;
    s->words = vxk_split_grid_words(s->size);
    const uint64_t** ptrs = (const uint64_t**)vxk_alloc(2 * chunks * sizeof(*ptrs));
    uint64_t* anchor_bits = (uint64_t*)vxk_alloc(chunks * 8 * sizeof(uint64_t));
    s->solid = (uint64_t*)vxk_alloc(2 * s->words * sizeof(uint64_t));
    vxk_status status = VXK_OK;
    if (!ptrs || !anchor_bits || !s->solid) {
        status = VXK_ERR_OUT_OF_MEMORY;
        goto out;
    }
    const uint64_t** anchor_ptrs = ptrs + chunks;
    bool any_anchor = false;
    const vxk_material* mats = sp->materials->materials;
    for (uint32_t y = 0; y < cy; ++y)
        for (uint32_t z = 0; z < cz; ++z)
            for (uint32_t x = 0; x < cx; ++x) {
                size_t i = x + (size_t)cx * (z + (size_t)cz * y);
                vxk_int3 cc = {c0.x + (int32_t)x, c0.y + (int32_t)y, c0.z + (int32_t)z};
                const vxk_chunk* c = vxk_terrain_find(sp->terrain, cc);
                uint64_t* a = anchor_bits + 8 * i;
                memset(a, 0, 8 * sizeof(uint64_t));
                ptrs[i] = NULL;
                if (c && c->payload) {
                    const uint64_t* solid = vxk_chunk_solid_bits(c);
                    ptrs[i] = solid;
                    for (uint32_t v = 0; v < VXK_CHUNK_VOXELS; ++v)
                        if (mats[c->payload[v]].anchored)
                            a[v >> 6] |= 1ull << (v & 63);
                    for (int w = 0; w < 8; ++w)
                        a[w] &= solid[w];
                } else if (c && mats[c->uniform_material].kind == VXK_MATERIAL_SOLID) {
                    ptrs[i] = all_ones;
                    if (mats[c->uniform_material].anchored)
                        memset(a, 0xFF, 8 * sizeof(uint64_t));
                }
                if (ptrs[i]) // the floor
                    for (int w = 0; w < 8; ++w)
                        if ((int64_t)cc.y * 8 + w <= sp->floor_y)
                            a[w] |= ptrs[i][w];
                bool has = false;
                for (int w = 0; w < 8; ++w)
                    has |= a[w] != 0;
                anchor_ptrs[i] = has ? a : NULL;
                any_anchor |= has;
            }
    vxk_flood_gather_chunks(s->solid, ptrs, cx, cy, cz);
    s->anchor = NULL;
    if (any_anchor) {
        s->anchor = s->solid + s->words;
        vxk_flood_gather_chunks(s->anchor, anchor_ptrs, cx, cy, cz);
    }

    // Seeds: the removed voxels in the region, in the removed list's order.
    uint32_t seed_count = 0;
    for (uint32_t r = 0; r < sp->removed_count; ++r) {
        vxk_int3 ch = sp->removed[r].chunk;
        if (!chunk_in(ch, c0, cx, cy, cz))
            continue;
        for (int w = 0; w < 8; ++w)
            seed_count += (uint32_t)__builtin_popcountll(sp->removed[r].solid[w]);
    }
    vxk_int3* seeds = (vxk_int3*)vxk_alloc((size_t)VXK_MAX(seed_count, 1u) * sizeof(*seeds));
    if (!seeds) {
        status = VXK_ERR_OUT_OF_MEMORY;
        goto out;
    }
    uint32_t n = 0;
    for (uint32_t r = 0; r < sp->removed_count; ++r) {
        vxk_int3 ch = sp->removed[r].chunk;
        if (!chunk_in(ch, c0, cx, cy, cz))
            continue;
        for (int w = 0; w < 8; ++w)
            for (uint64_t bits = sp->removed[r].solid[w]; bits; bits &= bits - 1) {
                int b = __builtin_ctzll(bits);
                seeds[n++] = (vxk_int3){(ch.x - c0.x) * 8 + (b & 7), (ch.y - c0.y) * 8 + w,
                                        (ch.z - c0.z) * 8 + (b >> 3)};
            }
    }
    vxk_split_grid grid = {s->size, s->solid, s->anchor};
    status = vxk_split_begin(&s->split, &grid, seeds, n,
                             VXK_SPLIT_BOUNDARY_ANCHORS | VXK_SPLIT_KEEP_LAST);
    vxk_free(seeds, (size_t)VXK_MAX(seed_count, 1u) * sizeof(*seeds));
out:
    vxk_free(ptrs, 2 * chunks * sizeof(*ptrs));
    vxk_free(anchor_bits, chunks * 8 * sizeof(uint64_t));
    if (status != VXK_OK) {
        vxk_free(s->solid, 2 * s->words * sizeof(uint64_t));
        s->solid = s->anchor = NULL;
    }
    return status;
}

static void search_job(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    vxk_edit_splitter* sp = (vxk_edit_splitter*)ctx;
    for (uint32_t i = begin; i < end; ++i) {
        split_search* s = sp->searches[i];
        s->status = VXK_OK;
        s->expanded = 0;
        if (!s->started) {
            s->status = search_start(sp, s);
            if (s->status != VXK_OK)
                continue;
            s->started = true;
        }
        vxk_split_stats before, after;
        vxk_split_stats_get(&s->split, &before);
        bool done = false;
        s->status = vxk_split_run(&s->split, sp->finish ? 0 : s->share, &done);
        vxk_split_stats_get(&s->split, &after);
        s->expanded = after.voxels_expanded - before.voxels_expanded;
        if (s->status == VXK_OK && done) {
            s->status = vxk_split_result_get(&s->split, &s->result);
            s->done = s->status == VXK_OK;
        }
    }
}

// ---- terrain: results -------------------------------------------------------------------------

// Removes one free part from the terrain (its voxels still solid) and stages it as debris.
static vxk_status take_part(vxk_edit_splitter* sp, vxk_terrain* terrain, const split_search* s,
                            const vxk_split_component* c, vxk_edit_debris_list* debris)
{
    vxk_int3 size = {c->bounds.max.x - c->bounds.min.x + 1, c->bounds.max.y - c->bounds.min.y + 1,
                     c->bounds.max.z - c->bounds.min.z + 1};
    if (size.x > VXK_BODY_MAX_GRID || size.y > VXK_BODY_MAX_GRID || size.z > VXK_BODY_MAX_GRID) {
        atomic_fetch_add_explicit(&sp->left_total, 1, memory_order_relaxed);
        return VXK_OK;
    }
    vxk_int_box box = {{s->region.min.x + c->bounds.min.x, s->region.min.y + c->bounds.min.y,
                        s->region.min.z + c->bounds.min.z},
                       {s->region.min.x + c->bounds.max.x, s->region.min.y + c->bounds.max.y,
                        s->region.min.z + c->bounds.max.z}};
    if (!vxk_grow_items((void**)&debris->items, &debris->capacity, (uint64_t)debris->count + 1,
                        sizeof(*debris->items)))
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_voxel_grid grid;
    if (vxk_voxel_grid_create(&grid, size) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    uint8_t* dense = (uint8_t*)vxk_alloc(n);
    if (!dense) {
        vxk_voxel_grid_free(&grid);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    vxk_terrain_read(terrain, dense, box);
    const vxk_material* mats = sp->materials->materials;
    uint32_t count = 0;
    double mass = 0.0;
    for (uint32_t r = 0; r < c->row_count; ++r) {
        const vxk_split_row* row = &s->result.rows[c->first_row + r];
        for (uint64_t bits = row->bits; bits; bits &= bits - 1) {
            int32_t x = 64 * row->word + __builtin_ctzll(bits) - c->bounds.min.x;
            size_t i =
                (size_t)x + (size_t)size.x * ((size_t)(row->z - c->bounds.min.z) +
                                              (size_t)size.z * (size_t)(row->y - c->bounds.min.y));
            uint8_t m = dense[i];
            if (mats[m].kind != VXK_MATERIAL_SOLID)
                continue; // changed since the search saw it
            grid.voxels[i] = m;
            dense[i] = VXK_MAT_AIR;
            ++count;
            mass += mats[m].density;
        }
    }
    vxk_status status = VXK_OK;
    if (count == 0 || mass <= 0.0) {
        if (count)
            atomic_fetch_add_explicit(&sp->left_total, 1, memory_order_relaxed);
        vxk_voxel_grid_free(&grid);
    } else {
        status = vxk_terrain_write(terrain, box, dense);
        if (status == VXK_OK)
            debris->items[debris->count++] = (vxk_edit_debris){box.min, count, grid};
        else
            vxk_voxel_grid_free(&grid);
    }
    vxk_free(dense, n);
    return status;
}

vxk_status vxk_edit_split_terrain(vxk_edit_splitter* sp, vxk_jobs* jobs, vxk_terrain* terrain,
                                  const vxk_material_table* materials,
                                  const vxk_edit_removed* removed, uint32_t removed_count,
                                  bool finish, vxk_edit_debris_list* debris)
{
    // New searches after those in progress.
    vxk_status status = make_clusters(sp, removed, removed_count);
    if (status != VXK_OK)
        return status;
    if (!vxk_grow_items((void**)&sp->searches, &sp->search_capacity,
                        (uint64_t)sp->search_count + sp->cluster_count, sizeof(*sp->searches)))
        return VXK_ERR_OUT_OF_MEMORY;
    for (uint32_t c = 0; c < sp->cluster_count; ++c) {
        split_search* s = (split_search*)vxk_calloc(sizeof(*s));
        if (!s)
            return VXK_ERR_OUT_OF_MEMORY; // the clusters already added go on; these are lost
        vxk_split_init(&s->split);
        s->region = cluster_region(sp, sp->clusters[c]);
        s->size =
            (vxk_int3){s->region.max.x - s->region.min.x + 1, s->region.max.y - s->region.min.y + 1,
                       s->region.max.z - s->region.min.z + 1};
        sp->searches[sp->search_count++] = s;
        atomic_fetch_add_explicit(&sp->searches_total, 1, memory_order_relaxed);
    }
    if (sp->search_count == 0)
        return VXK_OK;
    uint64_t share = VXK_MAX(sp->budget / sp->search_count, (uint64_t)MIN_SHARE);
    for (uint32_t i = 0; i < sp->search_count; ++i)
        sp->searches[i]->share = share;
    sp->terrain = terrain;
    sp->materials = materials;
    sp->removed = removed;
    sp->removed_count = removed_count;
    sp->finish = finish;
    if (jobs && sp->search_count > 1)
        vxk_parallel_for(jobs, "split_terrain", sp->search_count, 1, search_job, sp);
    else
        search_job(sp, 0, sp->search_count, 0);

    // Results in search order; finished searches leave the list.
    uint32_t kept = 0;
    for (uint32_t i = 0; i < sp->search_count; ++i) {
        split_search* s = sp->searches[i];
        atomic_fetch_add_explicit(&sp->voxels_total, s->expanded, memory_order_relaxed);
        if (!s->started && s->status != VXK_OK) { // could not start: dropped (out of memory)
            status = s->status;
            search_free(s);
            continue;
        }
        if (s->done && status == VXK_OK) {
            for (uint32_t c = 0; c < s->result.component_count && status == VXK_OK; ++c)
                status = take_part(sp, terrain, s, &s->result.components[c], debris);
            search_free(s);
            continue;
        }
        if (s->done) { // out of memory earlier: the part stays in the terrain
            search_free(s);
            continue;
        }
        if (s->status != VXK_OK)
            status = s->status; // the search goes on next batch
        sp->searches[kept++] = s;
    }
    sp->search_count = kept;
    atomic_store_explicit(&sp->pending, kept, memory_order_relaxed);
    sp->terrain = NULL;
    sp->removed = NULL;
    return status;
}

// ---- the publish ------------------------------------------------------------------------------

void vxk_edit_split_publish_begin(vxk_edit_splitter* sp, vxk_spawn_list* list)
{
    list->split = sp != NULL;
    if (!sp)
        return;
    sp->event_count = 0;
    list->events = &sp->events;
    list->event_count = &sp->event_count;
    list->event_capacity = &sp->event_capacity;
}

void vxk_edit_split_publish_end(vxk_edit_splitter* sp, const vxk_spawn_list* list)
{
    if (!sp)
        return;
    atomic_fetch_add_explicit(&sp->bodies_total, sp->event_count, memory_order_relaxed);
    atomic_fetch_add_explicit(&sp->voxels_total, list->split_voxels, memory_order_relaxed);
    atomic_fetch_add_explicit(&sp->lost_total, list->lost, memory_order_relaxed);
    atomic_store_explicit(&sp->publish_bytes, (uint64_t)sp->event_capacity * sizeof(*sp->events),
                          memory_order_relaxed);
}

void vxk_edit_split_stats(const vxk_edit_splitter* sp, vxk_edit_stats* out)
{
    if (!sp)
        return;
    vxk_edit_splitter* m = (vxk_edit_splitter*)sp; // atomics only
    out->split_searches = atomic_load_explicit(&m->searches_total, memory_order_relaxed);
    out->split_pending = atomic_load_explicit(&m->pending, memory_order_relaxed);
    out->split_voxels = atomic_load_explicit(&m->voxels_total, memory_order_relaxed);
    out->split_bodies = atomic_load_explicit(&m->bodies_total, memory_order_relaxed);
    out->split_left = atomic_load_explicit(&m->left_total, memory_order_relaxed);
    out->split_lost = atomic_load_explicit(&m->lost_total, memory_order_relaxed);
}

uint32_t vxk_edit_split_events(const vxk_edit_splitter* sp, vxk_edit_split_event* out,
                               uint32_t capacity)
{
    if (!sp)
        return 0;
    if (out)
        for (uint32_t i = 0; i < sp->event_count && i < capacity; ++i)
            out[i] = sp->events[i];
    return sp->event_count;
}
