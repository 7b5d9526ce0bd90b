// raycast_chunk.c: what a world ray does at one chunk (seed 000, Roblox terrain physics, "Loose
// kD tree: queries"): the mask test of its span, the chunk's cached quads and kD tree pinned for
// the call, the packet's slab test, then the tree query front to back with early exit.
//
// Cache: a chunk's quads and its 16-bit quantized quad kD tree (vxk_kdtree16; chunk-local voxel
// corners quantize exactly, so hits equal those of the float tree over the same quads; a chunk
// past the quantized tree's limits gets the float tree) are looked up once per call
// (vxk_raycast) or once per batch piece (vxk_raycast_batch, which keeps what a piece met pinned, a
// number bounded by the cache budget); an entry confirmed current at the terrain's write epoch is
// reused without revalidation until the next terrain write. A lookup first reads the chunk's slot
// in the ray grid, which remembers the entry last found for the chunk: a hit there pins it with
// one atomic increment, without a lock (otherwise one shard lock, and the slot is updated).
#include "raycast_internal.h"

#include <math.h>

// The packet's slab-test box thickening per unit of local coordinate magnitude, float arithmetic
// (about 1700 ulps), and the least magnitude it assumes: twice the box's own coordinates (<= 8).
#define RAY_PACKET_MARGIN_REL 1e-4f
#define RAY_PACKET_MARGIN_MIN_MAG 16.0f
// Up to RAY_MEMO_LINEAR slots are kept dense and scanned (nothing to clear per call); larger memos
// are open-addressing tables.
#define RAY_MEMO_LINEAR 16

void vxk_ray_memo_init(ray_memo* m, memo_slot* slots, uint32_t capacity, uint32_t limit)
{
    if (capacity > RAY_MEMO_LINEAR)
        memset(slots, 0, (size_t)capacity * sizeof(memo_slot));
    m->slots = slots;
    m->mask = capacity - 1;
    m->count = 0;
    m->limit = limit;
    m->owned = 0;
}

// ---- chunks at the edge of the range ----------------------------------------------------------

// The outermost chunk layer of the int32 voxel range: the mesher's 10^3 box around such a chunk
// leaves int32 (vxk_chunk_mesh refuses it), so the cache cannot build its data. A ray builds
// it itself (the voxels past the range are air) and keeps it for the call or batch piece, in the
// memo slot that would have held the pin.
static bool edge_chunk(vxk_int3 chunk)
{
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    bool edge = false;
    for (int a = 0; a < 3; ++a)
        edge |= c[a] == (INT32_MAX >> 3) || c[a] == (INT32_MIN >> 3);
    return edge;
}

static void edge_chunk_free(vxk_narrow_chunk* data)
{
    if (!data)
        return;
    vxk_narrow_free_chunk(data);
    vxk_free(data, sizeof(*data));
}

// The data of an edge chunk: NULL (and VXK_OK) when it has no terrain entry.
static vxk_status edge_chunk_build(const vxk_terrain* terrain, const vxk_material_table* materials,
                                   vxk_narrow_chunk** out, vxk_int3 chunk)
{
    *out = NULL;
    if (!vxk_terrain_find(terrain, chunk))
        return VXK_OK;
    vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint8_t box[VXK_MESHER_BOX_VOXELS], solid_kind[256];
    const int32_t c[3] = {chunk.x, chunk.y, chunk.z};
    for (int y = 0; y < VXK_MESHER_BOX; ++y)
        for (int z = 0; z < VXK_MESHER_BOX; ++z)
            for (int x = 0; x < VXK_MESHER_BOX; ++x) {
                const int64_t v[3] = {8 * (int64_t)c[0] - 1 + x, 8 * (int64_t)c[1] - 1 + y,
                                      8 * (int64_t)c[2] - 1 + z};
                bool inside = true;
                for (int a = 0; a < 3; ++a)
                    inside &= v[a] >= INT32_MIN && v[a] <= INT32_MAX;
                box[x + VXK_MESHER_BOX * (z + VXK_MESHER_BOX * y)] =
                    inside ? vxk_terrain_get_voxel(
                                 terrain, (vxk_int3){(int32_t)v[0], (int32_t)v[1], (int32_t)v[2]})
                           : 0;
            }
    vxk_chunk_solid_table(solid_kind, materials);
    uint32_t count = 0;
    vxk_status status = vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, box, solid_kind);
    vxk_narrow_chunk* data = (vxk_narrow_chunk*)vxk_calloc(sizeof(vxk_narrow_chunk));
    if (status != VXK_OK || !data) {
        vxk_free(data, sizeof(*data));
        return status != VXK_OK ? status : VXK_ERR_OUT_OF_MEMORY;
    }
    data->coord = chunk;
    uint64_t water[8];
    vxk_terrain_chunk_bits(terrain, chunk, data->solid, water);
    vxk_mesh mesh = {0};
    if (count) {
        data->quads = (vxk_quad*)vxk_alloc((size_t)count * sizeof(vxk_quad));
        status = data->quads ? VXK_OK : VXK_ERR_OUT_OF_MEMORY;
        if (status == VXK_OK) {
            memcpy(data->quads, quads, (size_t)count * sizeof(vxk_quad));
            data->quad_count = count;
            status = vxk_quad_to_mesh(&mesh, quads, count, 4, (vxk_vec3){0.0f, 0.0f, 0.0f}, 1.0f);
        }
        if (status == VXK_OK)
            status = vxk_kdtree16_build(&data->tree16, &mesh, NULL, 0);
        data->quantized = status == VXK_OK;
        vxk_mesh_free(&mesh);
    }
    if (status != VXK_OK) {
        edge_chunk_free(data);
        return status;
    }
    *out = data;
    return VXK_OK;
}

// The data a memo built outside the cache (rare: edge chunks), freed.
static __attribute__((noinline)) void memo_free_owned(ray_memo* m)
{
    uint32_t n = m->mask < RAY_MEMO_LINEAR ? m->count : m->mask + 1;
    for (uint32_t i = 0; i < n; ++i) {
        edge_chunk_free(m->slots[i].owned);
        m->slots[i].owned = NULL;
    }
    m->owned = 0;
}

void vxk_ray_memo_release(ray_memo* m)
{
    if (!m->count)
        return;
    if (__builtin_expect(m->owned != 0, 0))
        memo_free_owned(m);
    if (m->mask < RAY_MEMO_LINEAR) {
        for (uint32_t i = 0; i < m->count; ++i)
            vxk_narrow_release(&m->slots[i].ref);
    } else {
        for (uint32_t i = 0; i <= m->mask; ++i)
            if (m->slots[i].used) {
                vxk_narrow_release(&m->slots[i].ref);
                m->slots[i].used = 0;
            }
    }
    m->count = 0;
}

vxk_status vxk_ray_memo_get(ray_context* ctx, int32_t cx, int32_t cy, int32_t cz,
                            const vxk_narrow_chunk** out)
{
    ray_memo* m = &ctx->memo;
    bool linear = m->mask < RAY_MEMO_LINEAR;
    uint32_t h =
        ((uint32_t)cx * 0x9E3779B1u) ^ ((uint32_t)cy * 0x85EBCA77u) ^ ((uint32_t)cz * 0xC2B2AE3Du);
    h ^= h >> 15;
    if (linear) {
        for (uint32_t i = 0; i < m->count; ++i) {
            const memo_slot* slot = &m->slots[i];
            if (slot->x == cx && slot->y == cy && slot->z == cz) {
                *out = slot->data;
                return VXK_OK;
            }
        }
    } else {
        for (uint32_t i = h & m->mask;; i = (i + 1) & m->mask) {
            const memo_slot* slot = &m->slots[i];
            if (!slot->used)
                break;
            if (slot->x == cx && slot->y == cy && slot->z == cz) {
                *out = slot->data;
                return VXK_OK;
            }
        }
    }
    const vxk_narrow_chunk* data = NULL;
    vxk_narrow_ref ref = {0};
    vxk_narrow_chunk* owned = NULL;
    // The grid's slot first (no lock); on a miss the cache, whose answer the slot then keeps.
    uint64_t cell = 0;
    bool in_grid = ctx->grid && vxk_ray_grid_cell(ctx->grid, (vxk_int3){cx, cy, cz}, &cell);
    if (__builtin_expect(ctx->near_edge, 0) && edge_chunk((vxk_int3){cx, cy, cz})) {
        vxk_status status = edge_chunk_build(&ctx->world->terrain, &ctx->world->materials, &owned,
                                             (vxk_int3){cx, cy, cz});
        if (status != VXK_OK)
            return status;
        data = owned;
    } else if (in_grid &&
               vxk_narrow_acquire_slot(ctx->cache, ctx->grid, cell, ctx->epoch, &data, &ref)) {
        ++ctx->slot_hits;
    } else {
        vxk_status status =
            vxk_narrow_acquire_current(ctx->cache, ctx->world, &data, &ref, (vxk_int3){cx, cy, cz});
        if (status != VXK_OK)
            return status;
        if (in_grid)
            vxk_narrow_publish(ctx->grid, cell, ctx->epoch, &ref);
    }
    if (m->count >= m->limit) {
        vxk_ray_memo_release(m);
        if (ctx->packet)
            ctx->packet->count = 0; // its chunk data was pinned by the memo
    }
    uint32_t i = m->count;
    if (!linear)
        for (i = h & m->mask; m->slots[i].used; i = (i + 1) & m->mask) {
        }
    m->slots[i] = (memo_slot){cx, cy, cz, 1u, data, ref, owned};
    ++m->count;
    m->owned += owned != NULL;
    *out = data;
    return VXK_OK;
}

// Bits x0..x1 of every row (row masks of the article: masks for a cell range along x or z).
static inline uint64_t row_mask_x(int x0, int x1)
{
    uint64_t row = ((2ull << x1) - 1) & ~((1ull << x0) - 1);
    return row * 0x0101010101010101ull;
}
static inline uint64_t row_mask_z(int z0, int z1)
{
    // 2 << 63 wraps to 0, so z1 = 7 gives all bits from row z0 up.
    return ((2ull << (8 * z1 + 7)) - 1) & ~((1ull << (8 * z0)) - 1);
}

// The voxel box of a span in a chunk: Y slices y0..y1 and the X/Z rows mask of each slice.
typedef struct span_box {
    int y0, y1;
    uint64_t xz;
} span_box;

// The box of the ray over t in [ta, tb] (world units), thickened by ev voxels, in the chunk whose
// corner is local_o's origin; false when it misses the chunk.
static bool span_box_of(const ray_setup* r, const float local_o[3], double ta, double tb, double ev,
                        span_box* box)
{
    int c0[3], c1[3];
    for (int a = 0; a < 3; ++a) {
        double p0 = local_o[a] + ta * (double)r->dv[a];
        double p1 = local_o[a] + tb * (double)r->dv[a];
        double lo = dmin(p0, p1) - ev, hi = dmax(p0, p1) + ev;
        if (hi < 0.0 || lo > 8.0)
            return false;
        double f0 = floor(lo), f1 = floor(hi);
        c0[a] = f0 < 0.0 ? 0 : (f0 > 7.0 ? 7 : (int)f0);
        c1[a] = f1 < 0.0 ? 0 : (f1 > 7.0 ? 7 : (int)f1);
    }
    box->y0 = c0[1];
    box->y1 = c1[1];
    box->xz = row_mask_x(c0[0], c1[0]) & row_mask_z(c0[2], c1[2]);
    return true;
}

// Does a set bit of the chunk's mask lie in the box (one AND per Y slice, the article's row
// masks)? Finer cuts of a long diagonal span were measured to cost more than the tree queries
// they save; the kD tree's own bounds reject the rest.
static bool span_touches(const span_box* box, const uint64_t solid[8])
{
    uint64_t any = 0;
    for (int y = box->y0; y <= box->y1; ++y)
        any |= solid[y] & box->xz;
    return any != 0;
}

// The lanes of the packet whose rays meet chunk c's solid voxel box, thickened by a margin far
// above float error at the box's distance (so a lane that misses cannot hit a face there).
static uint32_t packet_lanes(const ray_packet* p, const vxk_narrow_chunk* data, int32_t cx,
                             int32_t cy, int32_t cz)
{
    if (!data || data->quad_count == 0)
        return 0;
    uint64_t rows = 0;
    int y0 = 8, y1 = -1;
    for (int y = 0; y < 8; ++y)
        if (data->solid[y]) {
            rows |= data->solid[y];
            y0 = y < y0 ? y : y0;
            y1 = y;
        }
    if (!rows)
        return 0xFFu; // faces without solid bits cannot occur; test every lane then
    uint64_t xs = rows | rows >> 32;
    xs |= xs >> 16;
    xs |= xs >> 8;
    xs &= 0xFFu;
    uint32_t zs = 0;
    for (int z = 0; z < 8; ++z)
        zs |= ((rows >> (8 * z)) & 0xFFu) ? 1u << z : 0u;
    vxk_ray8 local = p->rays;
    float mag = 0.0f;
    for (int i = 0; i < 8; ++i) {
        local.ox[i] -= 8.0f * (float)cx;
        local.oy[i] -= 8.0f * (float)cy;
        local.oz[i] -= 8.0f * (float)cz;
        float m = fabsf(local.ox[i]) + fabsf(local.oy[i]) + fabsf(local.oz[i]);
        mag = m > mag ? m : mag;
    }
    float e = RAY_PACKET_MARGIN_REL * (RAY_PACKET_MARGIN_MIN_MAG + mag);
    float lo[3] = {(float)__builtin_ctzll(xs) - e, (float)y0 - e, (float)__builtin_ctz(zs) - e};
    float hi[3] = {(float)(64 - __builtin_clzll(xs)) + e, (float)(y1 + 1) + e,
                   (float)(32 - __builtin_clz(zs)) + e};
    float t_enter[8];
    return vxk_ray8_aabb(&local, lo, hi, t_enter);
}

// Chunk c's data for a ray: through the packet's chunks when there is a packet (*skip: the lane's
// slab test missed the chunk), else through the memo.
static vxk_status chunk_data(ray_context* ctx, int32_t cx, int32_t cy, int32_t cz,
                             const vxk_narrow_chunk** out, bool* skip)
{
    *skip = false;
    ray_packet* p = ctx->packet;
    if (!p)
        return vxk_ray_memo_get(ctx, cx, cy, cz, out);
    for (uint32_t i = 0; i < p->count; ++i) {
        const packet_chunk* pc = &p->chunks[i];
        if (pc->x == cx && pc->y == cy && pc->z == cz) {
            *out = pc->data;
            *skip = !((pc->lanes >> p->lane) & 1u);
            return VXK_OK;
        }
    }
    vxk_status status = vxk_ray_memo_get(ctx, cx, cy, cz, out);
    if (status != VXK_OK || p->count == RAY_PACKET_CHUNKS)
        return status;
    uint32_t lanes = packet_lanes(p, *out, cx, cy, cz);
    packet_chunk* pc = &p->chunks[p->count++];
    *pc = (packet_chunk){.x = cx, .y = cy, .z = cz, .lanes = lanes, .data = *out};
    *skip = !((lanes >> p->lane) & 1u);
    return VXK_OK;
}

// The chunk's tree query in the ray's frame (vxk_narrow_raycast with a frame).
static inline bool chunk_raycast(const vxk_narrow_chunk* data, vxk_kdtree_hit* hit,
                                 const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any)
{
    return data->quantized ? vxk_kdtree16_raycast_framed(&data->tree16, hit, ray, frame, any, NULL)
                           : vxk_kdtree_raycast_framed(&data->tree, hit, ray, frame, any, NULL);
}

vxk_status vxk_ray_visit_chunk(ray_context* ctx, const ray_setup* r, int32_t cx, int32_t cy,
                               int32_t cz, double ta, double tb, double ev, bool any,
                               const uint64_t* solid, ray_result* best, bool* queried)
{
    *queried = false;
    // No entry: all air around; full solid: no faces (the mesher needs a non-solid neighbour).
    if (!solid && chunk_peek(ctx, ctx->grid, cx, cy, cz, &solid) != VXK_BROADPHASE_MASK)
        return VXK_OK;
    const int32_t c[3] = {cx, cy, cz};
    float local_o[3];
    for (int a = 0; a < 3; ++a)
        local_o[a] = (float)((double)r->o[a] - 8.0 * (double)c[a]);
    span_box box;
    if (!span_box_of(r, local_o, ta, tb, ev, &box) || !span_touches(&box, solid))
        return VXK_OK;
    const vxk_narrow_chunk* data = NULL;
    bool skip = false;
    vxk_status status = chunk_data(ctx, cx, cy, cz, &data, &skip);
    if (status != VXK_OK)
        return status;
    // Every face of the chunk bounds one of its solid voxels: the same test on the exact solid
    // bits (the broadphase mask is dilated) spares the query of a span that only passes the
    // dilation. Later spans test the chunk again.
    if (data && !skip && !span_touches(&box, data->solid))
        return VXK_OK;
    *queried = true;
    if (skip || !data || data->quad_count == 0)
        return VXK_OK;
    vxk_kdtree_ray kr = {{local_o[0], local_o[1], local_o[2]},
                         {r->dv[0], r->dv[1], r->dv[2]},
                         best->found ? best->t : r->tmax};
    // The quads are tested in the ray's frame (every chunk's faces on one grid around the
    // origin's chunk, so faces that meet across a chunk border meet exactly); the chunk's own
    // frame, local_o, drives the tree's traversal.
    if (!ctx->framed) {
        for (int a = 0; a < 3; ++a) {
            ctx->c_ref[a] = trunc((double)r->o[a] * 0.125);
            ctx->o_ref[a] = (float)((double)r->o[a] - 8.0 * ctx->c_ref[a]);
        }
        ctx->framed = true;
    }
    vxk_kdtree_frame frame = {{ctx->o_ref[0], ctx->o_ref[1], ctx->o_ref[2]},
                              {8.0 * ((double)cx - ctx->c_ref[0]),
                               8.0 * ((double)cy - ctx->c_ref[1]),
                               8.0 * ((double)cz - ctx->c_ref[2])}};
    if (any) {
        best->found |= chunk_raycast(data, NULL, &kr, &frame, true);
        return VXK_OK;
    }
    // A closest hit copies its quad out of the quad array, a separate allocation the tree query
    // never reads: its first lines are requested now, so that their miss overlaps the query.
    vxk_prefetch_span(data->quads, (size_t)data->quad_count * sizeof(vxk_quad), 256);
    vxk_kdtree_hit hit;
    if (chunk_raycast(data, &hit, &kr, &frame, false) && (!best->found || hit.t < best->t)) {
        best->t = hit.t;
        best->found = true;
        best->quad = data->quads[hit.primitive];
        best->chunk = data->coord;
    }
    return VXK_OK;
}
