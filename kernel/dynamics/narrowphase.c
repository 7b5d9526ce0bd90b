// narrowphase.c: the narrowphase stage of a step: the manifolds of every candidate task as jobs
// (terrain quads against spheres and boxes, seed 003's voxel contacts for voxel bodies, the
// body-pair primitives), clustered by normal and reduced to four points each; contact recycling
// (Box3D's) for pairs that barely moved; warm starting from the last step's manifolds.
//
// Order. Every output is placed by a stable key, never by which thread made it: tasks are
// numbered before they run (candidates.c), each piece of tasks appends to its own buffer in task
// order, and the buffers are concatenated in piece order. So the contact list, the solve and
// every event are bit-identical for any worker count.
#include "dynamics.h"
#include "narrow_cache.h"
#include "shape.h"
#include "sleep.h"

#include <vxk/broadphase.h>
#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>

#include <float.h>

// Candidate points a cluster gathers before it is reduced to 4.
#define CLUSTER_POINTS 32
// Contact recycling (Box3D's): a pair whose relative pose moved less than RECYCLE_SLOPS linear
// slops (the motion of the surfaces by rotation included; for pairs that were not touching, at
// most SPECULATIVE_SLOPS) since its manifolds were collided, neither body turning by more than 10
// degrees, with the same shapes, terrain and a margin no larger, keeps the manifolds and
// measures their separations anew.
#define RECYCLE_SLOPS 10.0f
#define SPECULATIVE_SLOPS 4.0f
#define RECYCLE_HALF_ANGLE_COS2 0.99240388f // cos^2(5 degrees)
// Points are collided within the margin plus this many slops, so that the jitter of a resting
// pair's margin does not defeat recycling.
#define MARGIN_HEADROOM_SLOPS 0.5f
// The step's manifold list is copied from the pieces by jobs past this many manifolds, this many
// pieces a job.
#define GATHER_PARALLEL_MANIFOLDS 4096
#define GATHER_GRAIN 64

// Where a task writes its manifolds: the end of its piece's buffer (room for VXK_TASK_MANIFOLDS).
typedef struct task_out {
    uint32_t count;
    vxk_contact* manifolds;
} task_out;

// ---- clustering ------------------------------------------------------------------------------

typedef struct cluster {
    vxk_vec3 normal;
    uint32_t count;
    uint8_t material;
    vxk_manifold_point points[CLUSTER_POINTS];
} cluster;

typedef struct gatherer {
    uint32_t count;
    cluster clusters[VXK_TASK_MANIFOLDS];
} gatherer;

// The deepest separation of n points (FLT_MAX for none).
static float deepest_of(const vxk_manifold_point* points, uint32_t n)
{
    float s = FLT_MAX;
    for (uint32_t i = 0; i < n; ++i)
        s = fminf(s, points[i].separation);
    return s;
}

// Adds a manifold's points to the cluster of its normal (a new one, or replacing the shallowest
// cluster when all are taken and this one is deeper). Feature ids are mixed with `key` (which
// face or box made them) so that they stay unique across the task.
static void gather(gatherer* g, const vxk_manifold* m, uint32_t key, uint8_t material)
{
    if (!m->point_count)
        return;
    cluster* c = NULL;
    for (uint32_t i = 0; i < g->count; ++i)
        if (vxk_v3_dot(g->clusters[i].normal, m->normal) >= VXK_CLUSTER_COS) {
            c = &g->clusters[i];
            break;
        }
    if (!c) {
        if (g->count < VXK_TASK_MANIFOLDS) {
            c = &g->clusters[g->count++];
        } else {
            float deepest = deepest_of(m->points, m->point_count);
            uint32_t worst = 0;
            float worst_s = -FLT_MAX;
            for (uint32_t i = 0; i < g->count; ++i) {
                float s = deepest_of(g->clusters[i].points, g->clusters[i].count);
                if (s > worst_s)
                    worst_s = s, worst = i;
            }
            if (deepest >= worst_s)
                return;
            c = &g->clusters[worst];
        }
        c->normal = m->normal;
        c->count = 0;
        c->material = material;
    }
    for (uint32_t i = 0; i < m->point_count; ++i) {
        if (c->count == CLUSTER_POINTS)
            c->count = vxk_manifold_reduce(c->points, c->count, c->normal);
        vxk_manifold_point p = m->points[i];
        p.feature = (p.feature * 0x9E3779B1u) ^ (key * 0x85EBCA77u + 0x165667B1u);
        c->points[c->count++] = p;
    }
}

// ---- narrowphase -----------------------------------------------------------------------------

typedef struct narrow_ctx {
    vxk_dynamics* dyn;
    vxk_thread_scratch* threads; // by thread index
    vxk_narrow_cache* cache;
    const vxk_narrow_task* tasks;
    const vxk_broadphase_hit* hits;
    const vxk_contact* prev;
    uint32_t epoch;
    vxk_contact_piece* pieces;
    float voxel_size;
    const vxk_vec3* vel; // by body index: the motion the margins cover (the frame's)
    float dt;
    vxk_status status; // first failure (set under no lock: any failure sets OUT_OF_MEMORY)
} narrow_ctx;

// The sink a task's shape functions write into: the task's gatherer, and the deepest separation
// seen (FLT_MAX for none), which names the chunk of a terrain task's manifolds.
typedef struct gather_sink {
    vxk_contact_sink base;
    gatherer* g;
    float deepest;
    const vxk_vec3* shift; // added to the points (a far body's frame: body_frame), or NULL
} gather_sink;

static void gather_add(vxk_contact_sink* sink, const vxk_manifold* m, uint32_t key,
                       uint8_t material)
{
    gather_sink* s = (gather_sink*)sink;
    vxk_manifold moved;
    if (s->shift) {
        moved = *m;
        for (uint32_t i = 0; i < moved.point_count; ++i)
            moved.points[i].point = vxk_v3_add(moved.points[i].point, *s->shift);
        m = &moved;
    }
    gather(s->g, m, key, material);
    s->deepest = fminf(s->deepest, deepest_of(m->points, m->point_count));
}

// Coordinates (voxels) past which a body collides with the terrain in a frame at its position:
// there a float world coordinate keeps less than a five-hundredth of a voxel (at the ends of the
// int32 range, 128 voxels), too little for the faces' corners and the voxels' centres.
#define FAR_VOXELS 16384.0f

// The body a terrain task collides: the body itself, or far from the origin a copy of it at the
// origin, with the terrain moved by -shift and the points moved back by +shift. (The points are
// world points as everywhere: there they keep the float's spacing, but the faces, voxels and
// depths they come from were exact.)
typedef struct body_frame {
    const vxk_body* body;
    vxk_body near;
    vxk_vec3 shift;
    bool far;
} body_frame;

static void body_frame_init(body_frame* f, const narrow_ctx* ctx, const vxk_body* body)
{
    const vxk_vec3 p = body->pose.p;
    const float far = FAR_VOXELS * ctx->voxel_size;
    f->far = fabsf(p.x) >= far || fabsf(p.y) >= far || fabsf(p.z) >= far;
    f->body = body;
    f->shift = vxk_v3(0, 0, 0);
    if (!f->far)
        return;
    f->near = *body;
    f->near.pose.p = vxk_v3(0, 0, 0);
    f->near.aabb = vxk_body_compute_aabb(&f->near);
    f->body = &f->near;
    f->shift = p;
}

// A world box of the frame's body grown by margin, in voxel units of the world (exact in double
// for a far body, whose float box has lost the voxel's fraction).
static void frame_box(const body_frame* f, float margin, float s, double lo[3], double hi[3])
{
    const vxk_aabb* b = &f->body->aabb;
    const double shift[3] = {f->shift.x, f->shift.y, f->shift.z};
    const double bmin[3] = {b->min.x, b->min.y, b->min.z}, bmax[3] = {b->max.x, b->max.y, b->max.z};
    for (int k = 0; k < 3; ++k) {
        lo[k] = (bmin[k] - (double)margin + shift[k]) / (double)s;
        hi[k] = (bmax[k] + (double)margin + shift[k]) / (double)s;
    }
}

static void terrain_chunk(narrow_ctx* ctx, const vxk_narrow_task* t, const body_frame* frame,
                          vxk_int3 coord, gatherer* g, vxk_int3* deepest_chunk, float* deepest)
{
    const vxk_body* body = frame->body;
    const vxk_narrow_chunk* chunk = NULL;
    vxk_narrow_ref ref = {0};
    if (vxk_narrow_acquire_current(ctx->cache, ctx->dyn->world, &chunk, &ref, coord) != VXK_OK) {
        ctx->status = VXK_ERR_OUT_OF_MEMORY;
        return;
    }
    if (!chunk)
        return;
    // The body's box grown by the margin, in chunk-local voxel units.
    float inv = 1.0f / ctx->voxel_size;
    vxk_vec3 origin = vxk_v3(8.0f * (float)coord.x, 8.0f * (float)coord.y, 8.0f * (float)coord.z);
    vxk_vec3 grow = vxk_v3(t->margin, t->margin, t->margin);
    vxk_aabb box = {vxk_v3_sub(vxk_v3_scale(vxk_v3_sub(body->aabb.min, grow), inv), origin),
                    vxk_v3_sub(vxk_v3_scale(vxk_v3_add(body->aabb.max, grow), inv), origin)};
    if (frame->far) {
        double lo[3], hi[3];
        frame_box(frame, t->margin, ctx->voxel_size, lo, hi);
        const double corner[3] = {8.0 * coord.x, 8.0 * coord.y, 8.0 * coord.z};
        box = (vxk_aabb){
            {(float)(lo[0] - corner[0]), (float)(lo[1] - corner[1]), (float)(lo[2] - corner[2])},
            {(float)(hi[0] - corner[0]), (float)(hi[1] - corner[1]), (float)(hi[2] - corner[2])}};
    }
    uint32_t hits[VXK_MESHER_MAX_QUADS];
    uint32_t n = vxk_narrow_chunk_query(chunk, hits, &box);
    // Quad order, so that the points gathered do not depend on the tree (quantized or float).
    for (uint32_t i = 1; i < n; ++i) {
        uint32_t x = hits[i], j = i;
        for (; j > 0 && hits[j - 1] > x; --j)
            hits[j] = hits[j - 1];
        hits[j] = x;
    }
    vxk_mat3 rot = vxk_mat3_from_quat(body->pose.q);
    const vxk_shape_class* cls = vxk_body_class(body);
    // Feature keys name the face by chunk and quad origin and normal, so they stay unique across
    // the body's chunks and stable while the chunk is unchanged.
    uint32_t chunk_key = (uint32_t)coord.x * 0x9E3779B1u ^ (uint32_t)coord.y * 0x85EBCA77u ^
                         (uint32_t)coord.z * 0xC2B2AE3Du;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_quad q = chunk->quads[hits[i]];
        vxk_face f;
        vxk_face_from_quad(&f, q, coord, ctx->voxel_size);
        if (frame->far) { // the face's corner in the body's frame
            const double s = (double)ctx->voxel_size;
            int64_t c[3] = {8 * (int64_t)coord.x + q.x, 8 * (int64_t)coord.y + q.y,
                            8 * (int64_t)coord.z + q.z};
            c[vxk_quad_axis(q)] += vxk_quad_positive(q) ? 1 : 0;
            f.min = vxk_v3((float)((double)c[0] * s - (double)frame->shift.x),
                           (float)((double)c[1] * s - (double)frame->shift.y),
                           (float)((double)c[2] * s - (double)frame->shift.z));
        }
        uint32_t key = chunk_key ^ ((uint32_t)q.x | (uint32_t)q.y << 3 | (uint32_t)q.z << 6 |
                                    (uint32_t)q.normal << 9);
        gather_sink sink = {{gather_add}, g, FLT_MAX, frame->far ? &frame->shift : NULL};
        cls->collide_face(&sink.base, body, &rot, &f, key, t->margin);
        float d = sink.deepest;
        if (d < *deepest) {
            *deepest = d;
            *deepest_chunk = coord;
        }
    }
    vxk_narrow_release(&ref);
}

// ---- voxel bodies against the terrain ----------------------------------------------------------
//
// A voxel body collides with the terrain around it as seed 003 sees it: the terrain's voxels
// gathered from chunk bits into region views (tiles of at most REGION_TILE voxels a side inside
// a one-voxel border) and collided voxel against voxel. A region of one tile is kept with the
// body and gathered again only when its box or the terrain's epoch changes (the same box of the
// same terrain is the same region, so results do not depend on it).
//
// Contacts reach at most a terrain voxel past the body (the margin is capped there): the voxel
// rules pair voxels that nearly touch, and past a voxel they pair a body voxel with terrain
// voxels buried under others as if it were inside them (a body 4 voxels over a slab, its margin
// 7 voxels, got the slab's inner voxels as one voxel deep and was thrown off upwards). A body
// that moves further in a step is stopped at its first impact by the continuous stage.
//
// The region is the body's box grown by the margin and a voxel. Past VXK_FAST_MOTION_VOXELS of
// motion in the step it is grown only by what the contacts reach, so that its voxels do not grow
// with the cube of the speed; within it, the region stays the margin's (its extent bounds the
// walks of its Inside voxels' exits: the results of those bodies are what they were).
//
// Voxels past the int32 range are not terrain: a region at its end has no border there
// (vxk_voxel_view_region_begin).

// Region tiles hold at most this many voxels per side inside their one-voxel border.
#define REGION_TILE (VXK_VOXEL_VIEW_MAX_SIZE - 2)

// floor(x), held just past the int32 range so that a box beyond it stays beyond it (NaN reads as
// below).
static int64_t voxel_floor(double x)
{
    double f = floor(x);
    const double lo = (double)INT32_MIN - 2.0, hi = (double)INT32_MAX + 2.0;
    return f >= hi ? (int64_t)hi : f >= lo ? (int64_t)f : (int64_t)lo;
}

// floor(x / s) as voxel_floor.
static int64_t floor_div(float x, float s)
{
    return voxel_floor((double)x / (double)s);
}

// Grows a region's storage to at least bytes, doubling: regions vary with the bodies' motion,
// and a steady run must stop allocating.
static bool region_reserve(void** storage, size_t* capacity, size_t bytes)
{
    if (bytes <= *capacity)
        return true;
    size_t want = *capacity ? *capacity : bytes;
    while (want < bytes)
        want *= 2;
    void* grown = vxk_realloc(*storage, *capacity, want);
    if (!grown)
        return false;
    *storage = grown;
    *capacity = want;
    return true;
}

// The terrain's voxels [rmin, rmin + rsize) gathered from chunk bits into a region view (the
// chunks without solid voxels left alone), counted in work.
static bool region_gather(const vxk_terrain* terrain, vxk_voxel_view* region, void* storage,
                          size_t bytes, vxk_int3 rmin, vxk_int3 rsize, float s,
                          vxk_region_work* work)
{
    if (vxk_voxel_view_region_begin(region, storage, bytes, rmin, rsize, s) != VXK_OK)
        return false;
    const int32_t m[3] = {rmin.x, rmin.y, rmin.z}, size[3] = {rsize.x, rsize.y, rsize.z};
    int32_t c0[3], c1[3];
    for (int k = 0; k < 3; ++k) {
        c0[k] = vxk_floor_div8(m[k]);
        c1[k] = vxk_floor_div8((int32_t)((int64_t)m[k] + size[k] - 1));
    }
    for (int32_t cy = c0[1]; cy <= c1[1]; ++cy)
        for (int32_t cz = c0[2]; cz <= c1[2]; ++cz)
            for (int32_t cx = c0[0]; cx <= c1[0]; ++cx) {
                uint64_t solid[8], water[8], bits = 0;
                vxk_int3 c = {cx, cy, cz};
                vxk_terrain_chunk_bits(terrain, c, solid, water);
                work->chunks++;
                for (int y = 0; y < 8; ++y)
                    bits |= solid[y];
                if (bits)
                    vxk_voxel_view_region_add_chunk(region, c, solid);
            }
    work->voxels += (uint64_t)size[0] * (uint64_t)size[1] * (uint64_t)size[2];
    return vxk_voxel_view_region_finish(region) == VXK_OK;
}

// The region around the inner voxels [t0, t1] (their border, but past the int32 range).
static void tile_region(const int64_t t0[3], const int64_t t1[3], vxk_int3* rmin, vxk_int3* rsize)
{
    int32_t lo[3], n[3];
    for (int k = 0; k < 3; ++k) {
        int64_t a = t0[k] - 1 < INT32_MIN ? INT32_MIN : t0[k] - 1;
        int64_t b = t1[k] + 1 > INT32_MAX ? INT32_MAX : t1[k] + 1;
        lo[k] = (int32_t)a;
        n[k] = (int32_t)(b - a + 1);
    }
    *rmin = (vxk_int3){lo[0], lo[1], lo[2]};
    *rsize = (vxk_int3){n[0], n[1], n[2]};
}

// The body against one gathered region: its manifolds into g, the chunk of the deepest. A far
// body's views are collided in its frame (the region's origin and the body's pose moved by
// -shift), the points moved back.
static void collide_region(narrow_ctx* ctx, const vxk_narrow_task* t, const body_frame* frame,
                           gatherer* g, vxk_int3* chunk, vxk_thread_scratch* ts,
                           const vxk_voxel_view* region, float* deepest)
{
    const vxk_terrain* terrain = &ctx->dyn->world->terrain;
    const vxk_voxel_view* a = region;
    const vxk_voxel_view* b = &frame->body->voxels->view;
    const vxk_vec3 shift = frame->shift;
    vxk_voxel_view near_a, near_b;
    if (frame->far) {
        const double s = (double)ctx->voxel_size;
        near_a = *region;
        near_a.origin = vxk_v3((float)((double)region->base.x * s - (double)shift.x),
                               (float)((double)region->base.y * s - (double)shift.y),
                               (float)((double)region->base.z * s - (double)shift.z));
        near_b = *b;
        near_b.pose.p = vxk_v3(0, 0, 0);
        a = &near_a;
        b = &near_b;
    }
    vxk_voxel_manifolds vm;
    vxk_collide_voxels(&vm, &ts->voxel, a, b, fminf(t->margin, ctx->voxel_size), 0);
    for (uint32_t k = 0; k < vm.count; ++k) {
        for (uint32_t i = 0; frame->far && i < vm.manifolds[k].point_count; ++i)
            vm.manifolds[k].points[i].point = vxk_v3_add(vm.manifolds[k].points[i].point, shift);
        vxk_int3 v = vm.voxel_a[k];
        uint8_t material;
        vxk_terrain_read(terrain, &material, (vxk_int_box){v, v});
        gather(g, &vm.manifolds[k], 0, material);
        float d = deepest_of(vm.manifolds[k].points, vm.manifolds[k].point_count);
        if (d < *deepest) {
            *deepest = d;
            *chunk = (vxk_int3){v.x >> 3, v.y >> 3, v.z >> 3};
        }
    }
}

static void voxel_terrain_task(narrow_ctx* ctx, const vxk_narrow_task* t, const body_frame* frame,
                               gatherer* g, vxk_int3* chunk, vxk_thread_scratch* ts)
{
    const float s = ctx->voxel_size;
    // A fast body's region reaches only what its contacts reach.
    const vxk_vec3 v = ctx->vel[t->b];
    const double motion = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z) *
                          (double)ctx->dt / (double)s;
    const float reach = motion > VXK_FAST_MOTION_VOXELS ? fminf(t->margin, s) : t->margin;
    const vxk_aabb* box = &frame->body->aabb;
    int64_t lo[3] = {floor_div(box->min.x - reach, s) - 1, floor_div(box->min.y - reach, s) - 1,
                     floor_div(box->min.z - reach, s) - 1};
    int64_t hi[3] = {floor_div(box->max.x + reach, s) + 1, floor_div(box->max.y + reach, s) + 1,
                     floor_div(box->max.z + reach, s) + 1};
    if (frame->far) { // its box in voxels exact, where the float box is not
        double grown_lo[3], grown_hi[3];
        frame_box(frame, reach, s, grown_lo, grown_hi);
        for (int k = 0; k < 3; ++k) {
            lo[k] = voxel_floor(grown_lo[k]) - 1;
            hi[k] = voxel_floor(grown_hi[k]) + 1;
        }
    }
    for (int k = 0; k < 3; ++k) {
        lo[k] = lo[k] < INT32_MIN ? INT32_MIN : lo[k];
        hi[k] = hi[k] > INT32_MAX ? INT32_MAX : hi[k];
        if (lo[k] > hi[k])
            return; // past the int32 range: no terrain
    }
    const bool one_tile =
        hi[0] - lo[0] < REGION_TILE && hi[1] - lo[1] < REGION_TILE && hi[2] - lo[2] < REGION_TILE;
    vxk_voxel_data* kept = ctx->dyn->bodies[t->b].voxels;
    const vxk_terrain* terrain = &ctx->dyn->world->terrain;
    float deepest = FLT_MAX;
    for (int64_t ty = lo[1]; ty <= hi[1]; ty += REGION_TILE)
        for (int64_t tz = lo[2]; tz <= hi[2]; tz += REGION_TILE)
            for (int64_t tx = lo[0]; tx <= hi[0]; tx += REGION_TILE) {
                const int64_t t0[3] = {tx, ty, tz};
                int64_t t1[3];
                for (int k = 0; k < 3; ++k)
                    t1[k] = t0[k] + REGION_TILE - 1 < hi[k] ? t0[k] + REGION_TILE - 1 : hi[k];
                vxk_int3 rmin, rsize;
                tile_region(t0, t1, &rmin, &rsize);
                ts->work.tiles++;
                size_t bytes = vxk_voxel_view_storage_bytes(rsize);
                const vxk_voxel_view* region;
                vxk_voxel_view tile;
                if (one_tile) {
                    const vxk_voxel_view* r = &kept->region;
                    if (!kept->region_valid || kept->region_epoch != ctx->epoch ||
                        r->base.x != rmin.x || r->base.y != rmin.y || r->base.z != rmin.z ||
                        r->size.x != rsize.x || r->size.y != rsize.y || r->size.z != rsize.z) {
                        kept->region_valid = false;
                        if (!region_reserve(&kept->region_storage, &kept->region_bytes, bytes)) {
                            ctx->status = VXK_ERR_OUT_OF_MEMORY;
                            return;
                        }
                        if (!region_gather(terrain, &kept->region, kept->region_storage,
                                           kept->region_bytes, rmin, rsize, s, &ts->work))
                            continue;
                        kept->region_epoch = ctx->epoch;
                        kept->region_valid = true;
                    }
                    region = &kept->region;
                } else {
                    if (!region_reserve(&ts->region, &ts->region_bytes, bytes)) {
                        ctx->status = VXK_ERR_OUT_OF_MEMORY;
                        return;
                    }
                    if (!region_gather(terrain, &tile, ts->region, ts->region_bytes, rmin, rsize, s,
                                       &ts->work))
                        continue;
                    region = &tile;
                }
                collide_region(ctx, t, frame, g, chunk, ts, region, &deepest);
            }
}

static void terrain_task(narrow_ctx* ctx, const vxk_narrow_task* t, gatherer* g, vxk_int3* chunk,
                         vxk_thread_scratch* ts)
{
    body_frame frame;
    body_frame_init(&frame, ctx, &ctx->dyn->bodies[t->b]);
    if (!vxk_body_class(frame.body)->collide_face) {
        voxel_terrain_task(ctx, t, &frame, g, chunk, ts);
        return;
    }
    float deepest = FLT_MAX;
    for (uint32_t h = t->hit_begin; h < t->hit_end; ++h)
        if (ctx->hits[h].flags & VXK_BROADPHASE_HIT_SOLID)
            terrain_chunk(ctx, t, &frame, ctx->hits[h].chunk, g, chunk, &deepest);
}

static void pair_task(narrow_ctx* ctx, const vxk_narrow_task* t, gatherer* g,
                      vxk_thread_scratch* ts)
{
    gather_sink sink = {{gather_add}, g, FLT_MAX, NULL};
    vxk_collide_bodies(&sink.base, &ctx->dyn->bodies[t->a], &ctx->dyn->bodies[t->b], t->margin,
                       &ts->voxel);
}

static void mix_material(const vxk_dynamics* dyn, vxk_contact* c, uint8_t face_material)
{
    const vxk_body* b = &dyn->bodies[c->b];
    float fa, ea;
    if (c->terrain) {
        const vxk_material* m = &dyn->world->materials.materials[face_material];
        fa = m->friction;
        ea = m->restitution;
    } else {
        fa = dyn->bodies[c->a].friction;
        ea = dyn->bodies[c->a].restitution;
    }
    c->friction = sqrtf(fa * b->friction);
    c->restitution = fmaxf(ea, b->restitution);
}

// B's pose relative to A's (terrain: B's world pose).
static vxk_transform relative_pose(const vxk_body* a, const vxk_body* b)
{
    if (!a)
        return b->pose;
    vxk_quat ia = vxk_quat_conj(a->pose.q);
    return (vxk_transform){vxk_quat_rotate(ia, vxk_v3_sub(b->pose.p, a->pose.p)),
                           vxk_quat_mul(ia, b->pose.q)};
}

static float quat_dot(vxk_quat a, vxk_quat b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// Whether the pair's manifolds of the last step may be recycled instead of collided again.
static bool recycle_usable(const narrow_ctx* ctx, const vxk_narrow_task* t, const vxk_body* a,
                           const vxk_body* b, vxk_transform rel)
{
    if (t->prev_begin == t->prev_end || !ctx->dyn->settings.contact_recycling)
        return false;
    const vxk_contact* c = &ctx->prev[t->prev_begin];
    if (c->b_gen != ctx->dyn->ids.generations[t->b] || c->shape_b != b->shape_serial ||
        t->margin > c->margin)
        return false;
    if (a ? (c->a_gen != ctx->dyn->ids.generations[t->a] || c->shape_a != a->shape_serial)
          : c->epoch != ctx->epoch)
        return false;
    const float slop = ctx->dyn->settings.linear_slop;
    vxk_vec3 extent = vxk_body_class(b)->extent(b);
    if (a) {
        extent = vxk_v3_max(extent, vxk_body_class(a)->extent(a));
    } else {
        // A fast body against the terrain meets new faces: collide (Box3D recycles fast bodies
        // against convex shapes only).
        float min_extent = fminf(fminf(extent.x, extent.y), extent.z);
        if (t->margin - slop > 0.5f * min_extent)
            return false;
    }
    // Neither body turned by more than 10 degrees since the collision.
    float da = a ? quat_dot(a->pose.q, c->q_a) : 1.0f, db = quat_dot(b->pose.q, c->q_b);
    if (fminf(da * da, db * db) < RECYCLE_HALF_ANGLE_COS2)
        return false;
    bool touching = false;
    for (uint32_t j = t->prev_begin; j < t->prev_end; ++j)
        touching |= ctx->prev[j].touching != 0;
    float tolerance = (touching ? RECYCLE_SLOPS : SPECULATIVE_SLOPS) * slop;
    float d2 = vxk_v3_length_sq(vxk_v3_sub(c->rel.p, rel.p));
    if (d2 >= tolerance * tolerance)
        return false;
    // The relative rotation moves the surfaces by at most 2 |sin(angle / 2)| x their extent,
    // bounded per axis (Box3D's modified cross product of |q.v| with the extents).
    float slack = tolerance - sqrtf(d2);
    vxk_quat qr = vxk_quat_mul(vxk_quat_conj(c->rel.q), rel.q);
    vxk_vec3 v = vxk_v3_abs(vxk_v3(qr.x, qr.y, qr.z));
    vxk_vec3 arc = vxk_v3(v.y * extent.z + v.z * extent.y, v.z * extent.x + v.x * extent.z,
                          v.x * extent.y + v.y * extent.x);
    return 4.0f * vxk_v3_length_sq(arc) < slack * slack;
}

// The last step's manifolds kept: the normal (world) and the anchors stay as they were collided,
// and each point's separation is measured anew between its anchors rotated with their bodies, as
// the solver's substeps do. Freezing the normal and the lever arms while a pair barely moves is
// what lets tall stacks stand: recollided every step, a normal that turns with the lower body
// feeds a lean back into itself (a 30-box column leans and falls within 10 s).
static void recycle(const narrow_ctx* ctx, const vxk_narrow_task* t, const vxk_body* a,
                    const vxk_body* b, task_out* o)
{
    vxk_vec3 ca = a ? a->pose.p : vxk_v3(0, 0, 0);
    const float radius_a = a ? a->radius : 0.0f, radius_b = b->radius;
    o->count = 0;
    for (uint32_t j = t->prev_begin; j < t->prev_end && o->count < VXK_TASK_MANIFOLDS; ++j) {
        vxk_contact* c = &o->manifolds[o->count];
        *c = ctx->prev[j];
        c->sub = o->count++;
        c->touching = VXK_TOUCHING_UNKNOWN;
        c->friction_impulse = vxk_v3(0, 0, 0);
        c->twist_impulse = 0.0f;
        vxk_mat3 ra = vxk_mat3_from_quat(a ? vxk_quat_mul(a->pose.q, vxk_quat_conj(c->q_a))
                                           : vxk_quat_identity());
        vxk_mat3 rb = vxk_mat3_from_quat(vxk_quat_mul(b->pose.q, vxk_quat_conj(c->q_b)));
        for (uint32_t p = 0; p < c->point_count; ++p) {
            vxk_contact_point_state* cp = &c->points[p];
            // A round surface's point stays on the normal: only its core turns (solver_wide.h).
            vxk_vec3 core_a = vxk_v3_mul_add(cp->anchor_a, -radius_a, c->normal);
            vxk_vec3 core_b = vxk_v3_mul_add(cp->anchor_b, radius_b, c->normal);
            vxk_vec3 pa =
                vxk_v3_mul_add(vxk_v3_add(ca, vxk_mat3_mul_v(&ra, core_a)), radius_a, c->normal);
            vxk_vec3 pb = vxk_v3_mul_add(vxk_v3_add(b->pose.p, vxk_mat3_mul_v(&rb, core_b)),
                                         -radius_b, c->normal);
            cp->point = pa;
            cp->separation = vxk_v3_dot(c->normal, vxk_v3_sub(pb, pa));
            cp->normal_impulse = 0.0f;
        }
    }
}

// A task of sleeping bodies: its manifolds of the last step, impulses and all (its bodies have
// not moved), when they are of the same bodies.
static void carry(const narrow_ctx* ctx, const vxk_narrow_task* t, task_out* o)
{
    o->count = 0;
    if (t->prev_begin == t->prev_end)
        return;
    const vxk_contact* c = &ctx->prev[t->prev_begin];
    const uint32_t* gen = ctx->dyn->ids.generations;
    if (c->b_gen != gen[t->b] || (t->a != UINT32_MAX && c->a_gen != gen[t->a]))
        return;
    for (uint32_t j = t->prev_begin; j < t->prev_end && o->count < VXK_TASK_MANIFOLDS; ++j)
        o->manifolds[o->count++] = ctx->prev[j];
}

// The task's new manifolds take the accumulated impulses of its manifolds of the last step when
// they are of the same bodies (not of bodies destroyed since whose ids were reused).
static void task_warm_start(const narrow_ctx* ctx, const vxk_narrow_task* t, task_out* o)
{
    if (t->prev_begin == t->prev_end || !o->count)
        return;
    const vxk_contact* c = &ctx->prev[t->prev_begin];
    const uint32_t* gen = ctx->dyn->ids.generations;
    if (c->b_gen != gen[t->b] || (t->a != UINT32_MAX && c->a_gen != gen[t->a]))
        return;
    vxk_contact_warm_start(o->manifolds, 0, o->count, ctx->prev, t->prev_begin, t->prev_end);
}

static void narrow_range(void* vctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    narrow_ctx* ctx = (narrow_ctx*)vctx;
    // This piece's buffer: each task appends its manifolds, so the pieces concatenated in piece
    // order are the task order.
    vxk_contact_piece* piece = &ctx->pieces[begin / VXK_NARROW_GRAIN];
    piece->count = piece->recycled = piece->carried = 0;
    for (uint32_t i = begin; i < end; ++i) {
        const vxk_narrow_task* t = &ctx->tasks[i];
        // The bodies and last manifolds of a task a few ahead, read at random: ask early.
        if (i + 2 < end) {
            const vxk_narrow_task* n = &ctx->tasks[i + 2];
            __builtin_prefetch(&ctx->dyn->bodies[n->b]);
            if (n->a != UINT32_MAX)
                __builtin_prefetch(&ctx->dyn->bodies[n->a]);
            if (n->prev_begin != n->prev_end)
                __builtin_prefetch(&ctx->prev[n->prev_begin]);
        }
        bool terrain = t->a == UINT32_MAX;
        const vxk_body* a = terrain ? NULL : &ctx->dyn->bodies[t->a];
        const vxk_body* b = &ctx->dyn->bodies[t->b];
        vxk_transform rel = relative_pose(a, b);
        if (piece->count + VXK_TASK_MANIFOLDS > piece->capacity) {
            // Straight to the most a piece can write: a piece's tasks change with the scene, and
            // growing by steps allocated again whenever one piece met a busier stretch. The pages
            // a piece never fills are never touched.
            uint32_t grown = VXK_NARROW_GRAIN * VXK_TASK_MANIFOLDS;
            vxk_contact* items = (vxk_contact*)vxk_realloc(
                piece->items, sizeof(vxk_contact) * piece->capacity, sizeof(vxk_contact) * grown);
            if (!items) {
                ctx->status = VXK_ERR_OUT_OF_MEMORY;
                return;
            }
            piece->items = items;
            piece->capacity = grown;
        }
        task_out out_storage = {0, piece->items + piece->count};
        task_out* o = &out_storage;
        if (t->carry) {
            carry(ctx, t, o);
            piece->count += o->count;
            piece->carried += o->count;
            continue;
        }
        if (recycle_usable(ctx, t, a, b, rel)) {
            recycle(ctx, t, a, b, o);
            task_warm_start(ctx, t, o);
            piece->count += o->count;
            piece->recycled += o->count;
            continue;
        }
        gatherer g;
        g.count = 0;
        vxk_int3 chunk = {0, 0, 0};
        vxk_narrow_task grown = *t;
        grown.margin += MARGIN_HEADROOM_SLOPS * ctx->dyn->settings.linear_slop;
        vxk_thread_scratch* ts = &ctx->threads[thread];
        if (terrain)
            terrain_task(ctx, &grown, &g, &chunk, ts);
        else
            pair_task(ctx, &grown, &g, ts);
        o->count = 0;
        vxk_vec3 ca = a ? a->pose.p : vxk_v3(0, 0, 0);
        for (uint32_t k = 0; k < g.count; ++k) {
            cluster* cl = &g.clusters[k];
            uint32_t n = vxk_manifold_reduce(cl->points, cl->count, cl->normal);
            if (!n)
                continue;
            vxk_contact* c = &o->manifolds[o->count];
            memset(c, 0, sizeof(*c));
            c->terrain = terrain;
            c->a = terrain ? 0 : t->a;
            c->b = t->b;
            c->a_gen = terrain ? 0 : ctx->dyn->ids.generations[t->a];
            c->b_gen = ctx->dyn->ids.generations[t->b];
            c->chunk = chunk;
            c->sub = o->count;
            c->normal = cl->normal;
            c->material = cl->material;
            c->point_count = n;
            c->rel = rel;
            c->q_a = a ? a->pose.q : vxk_quat_identity();
            c->q_b = b->pose.q;
            c->margin = grown.margin;
            c->shape_a = a ? a->shape_serial : 0;
            c->shape_b = b->shape_serial;
            c->epoch = ctx->epoch;
            c->touching = VXK_TOUCHING_UNKNOWN;
            for (uint32_t p = 0; p < n; ++p) {
                vxk_contact_point_state* cp = &c->points[p];
                cp->point = cl->points[p].point;
                cp->separation = cl->points[p].separation;
                cp->feature = cl->points[p].feature;
                cp->anchor_a = vxk_v3_sub(cp->point, ca);
                cp->anchor_b =
                    vxk_v3_sub(vxk_v3_mul_add(cp->point, cp->separation, cl->normal), b->pose.p);
            }
            mix_material(ctx->dyn, c, cl->material);
            o->count++;
        }
        task_warm_start(ctx, t, o);
        piece->count += o->count;
    }
}

// Copies pieces [begin, end) to their places in the step's manifold list.
typedef struct gather_ctx {
    const vxk_contact_piece* pieces;
    vxk_contact* now;
} gather_ctx;

static void gather_range(void* vctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const gather_ctx* g = (const gather_ctx*)vctx;
    for (uint32_t k = begin; k < end; ++k)
        if (g->pieces[k].count)
            memcpy(g->now + g->pieces[k].offset, g->pieces[k].items,
                   sizeof(vxk_contact) * g->pieces[k].count);
}

vxk_status vxk_dynamics_narrowphase(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                                    vxk_world_step_stats* stats)
{
    vxk_world* world = dyn->world;
    const uint32_t cap = f->cap, task_count = f->task_count;
    uint32_t threads = world->jobs ? vxk_jobs_thread_count(world->jobs) : 1;
    if (threads > dyn->thread_capacity) {
        vxk_thread_scratch* grown =
            (vxk_thread_scratch*)vxk_calloc(sizeof(vxk_thread_scratch) * threads);
        if (!grown)
            return VXK_ERR_OUT_OF_MEMORY;
        if (dyn->threads)
            memcpy(grown, dyn->threads, sizeof(vxk_thread_scratch) * dyn->thread_capacity);
        vxk_free(dyn->threads, sizeof(vxk_thread_scratch) * dyn->thread_capacity);
        dyn->threads = grown;
        dyn->thread_capacity = threads;
    }
    // The voxel views at the bodies' poses, set here once: the tasks only read them.
    for (uint32_t i = 0; i < cap; ++i)
        if (dyn->bodies[i].live && dyn->bodies[i].voxels)
            dyn->bodies[i].voxels->view.pose = dyn->bodies[i].pose;
    for (uint32_t i = 0; i < dyn->thread_capacity; ++i)
        dyn->threads[i].work = (vxk_region_work){0, 0, 0};
    narrow_ctx nctx = {dyn,
                       dyn->threads,
                       vxk_narrow_cache_get(world),
                       f->tasks,
                       f->hits,
                       dyn->contacts,
                       vxk_terrain_epoch(&world->terrain),
                       dyn->pieces,
                       world->voxel_size,
                       f->vel,
                       f->dt,
                       VXK_OK};
    vxk_parallel_for(world->jobs, "narrowphase", task_count, VXK_NARROW_GRAIN, narrow_range, &nctx);
    if (nctx.status != VXK_OK)
        return nctx.status;
    uint32_t piece_count = vxk_parallel_for_pieces(task_count, VXK_NARROW_GRAIN);
    uint32_t manifolds = 0;
    for (uint32_t k = 0; k < piece_count; ++k)
        manifolds += dyn->pieces[k].count;
    if (manifolds > dyn->next_capacity) {
        void* p = dyn->next_contacts;
        if (!vxk_grow_items(&p, &dyn->next_capacity, manifolds, sizeof(vxk_contact)))
            return VXK_ERR_OUT_OF_MEMORY;
        dyn->next_contacts = (vxk_contact*)p;
    }
    vxk_contact* now = dyn->next_contacts;
    uint32_t now_count = 0;
    stats->recycled_manifolds = stats->carried_manifolds = 0;
    for (uint32_t k = 0; k < piece_count; ++k) {
        stats->recycled_manifolds += dyn->pieces[k].recycled;
        stats->carried_manifolds += dyn->pieces[k].carried;
        dyn->pieces[k].offset = now_count;
        now_count += dyn->pieces[k].count;
    }
    // The pieces concatenated in piece order: a copy of every manifold (392 bytes each, 46 MB for
    // a pile of 10,000 boxes), spread over the workers when it is large.
    gather_ctx gctx = {dyn->pieces, now};
    if (world->jobs && now_count > GATHER_PARALLEL_MANIFOLDS)
        vxk_parallel_for(world->jobs, "gather_manifolds", piece_count, GATHER_GRAIN, gather_range,
                         &gctx);
    else
        gather_range(&gctx, 0, piece_count, 0);
    // A sleeping body touched by a moving one wakes with its island (in list order, so a wake
    // that reaches further sleeping bodies is the same in every run), then the bodies that move
    // this step are the awake ones.
    for (uint32_t i = 0; i < now_count && f->asleep_count; ++i) {
        const vxk_contact* c = &now[i];
        if (c->terrain)
            continue;
        const vxk_body* a = &dyn->bodies[c->a];
        const vxk_body* b = &dyn->bodies[c->b];
        if (!b->awake && vxk_body_active(a))
            vxk_dynamics_wake(dyn, c->b);
        else if (!a->awake && vxk_body_active(b))
            vxk_dynamics_wake(dyn, c->a);
    }
    uint32_t moving_count = 0;
    for (uint32_t i = 0; i < cap; ++i) {
        const vxk_body* b = &dyn->bodies[i];
        if (b->live && b->awake && b->type != VXK_BODY_STATIC)
            f->moving[moving_count++] = i;
    }
    f->moving_count = moving_count;
    f->now = now;
    f->now_count = now_count;
    stats->contacts = now_count;
    return VXK_OK;
}

void vxk_dynamics_region_work(const vxk_dynamics* dyn, vxk_region_work* out)
{
    *out = (vxk_region_work){0, 0, 0};
    for (uint32_t i = 0; i < dyn->thread_capacity; ++i) {
        out->tiles += dyn->threads[i].work.tiles;
        out->chunks += dyn->threads[i].work.chunks;
        out->voxels += dyn->threads[i].work.voxels;
    }
}
