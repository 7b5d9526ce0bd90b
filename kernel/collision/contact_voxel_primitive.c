// contact_voxel_primitive.c: voxel shapes against spheres and boxes after seed 003 (the
// voxel-physics article: "Contact generation"): each exposed face of the voxels near the
// primitive is a face of the mesher's rules, tested by contact_geometry.h's face tests; a point
// inside an Inside voxel is pushed out one voxel deep along the voxel's exit.
//
// Beyond the article:
// - Primitives walk the bit rows, skipping Face voxels off the lines through the points that
//   matter (the sphere's centre, the box's vertices: a Face voxel's face claims only points over
//   it) and Inside voxels that hold none; a face is first culled by the face test's own first
//   rejections (its plane, a sphere's distance, a box's face axes; with slack, so they never decide
//   a case the test would not), and its edge classes are read only as far as the claim needs.
//   VXK_VOXEL_ALL_FACES turns all of it off, for the tests' bit-for-bit check.
#include "contact_voxel_internal.h"

// Edge class of the face of voxel v towards normal direction `normal` (0..5), on its edge
// towards in-plane direction `toward` (0..5): the mesher's rule.
static uint32_t edge_class(const vxk_voxel_view* view, int32_t x, int32_t y, int32_t z,
                           uint32_t normal, uint32_t toward)
{
    const int8_t* t = k_face_offset[toward];
    const int8_t* n = k_face_offset[normal];
    if (solid_at(view, x + t[0] + n[0], y + t[1] + n[1], z + t[2] + n[2]))
        return VXK_EDGE_CONCAVE;
    return solid_at(view, x + t[0], y + t[1], z + t[2]) ? VXK_EDGE_FLAT : VXK_EDGE_CONVEX;
}

// The unit face of voxel (x, y, z) towards direction i (0..5), in the grid's frame (metres from
// voxel (0,0,0)'s lowest corner); its edge classes are filled in as they are asked for
// (face_edge), so a face that claims nothing reads only the neighbours its answer needs.
typedef struct lazy_face {
    vxk_face f;
    const vxk_voxel_view* view;
    int32_t x, y, z;
    uint32_t i;
    uint32_t known; // bit per edge slot whose class is in f.edges
} lazy_face;

static void lazy_face_init(lazy_face* l, const vxk_voxel_view* view, int32_t x, int32_t y,
                           int32_t z, uint32_t i)
{
    uint32_t axis = i % 3;
    float s = view->voxel_size;
    vxk_face* f = &l->f;
    f->min = vxk_v3((float)x * s, (float)y * s, (float)z * s);
    if (i < 3)
        vxk_v3_set(&f->min, axis, vxk_v3_get(f->min, axis) + s);
    f->size_u = s;
    f->size_v = s;
    f->axis = (uint8_t)axis;
    f->positive = i < 3;
    f->material = 0;
    f->edges = 0;
    l->view = view;
    l->x = x;
    l->y = y;
    l->z = z;
    l->i = i;
    l->known = 0;
}

// The class of the face's edge in slot (VXK_EDGE_MINUS_U..PLUS_V).
static uint32_t face_edge(lazy_face* l, uint32_t slot)
{
    if (!(l->known >> slot & 1u)) {
        uint32_t axis = l->i % 3, u = axis == 0 ? 2u : 0u, v = axis == 1 ? 2u : 1u;
        static const uint8_t plus[4] = {0, 1, 0, 1};
        uint32_t toward = (slot < 2 ? u : v) + (plus[slot] ? 0u : 3u);
        l->f.edges = (uint8_t)(l->f.edges | edge_class(l->view, l->x, l->y, l->z, l->i, toward)
                                                << (2 * slot));
        l->known |= 1u << slot;
    }
    return (l->f.edges >> (2u * slot)) & 3u;
}

static const vxk_face* face_complete(lazy_face* l)
{
    for (uint32_t slot = 0; slot < 4; ++slot)
        face_edge(l, slot);
    return &l->f;
}

// Whether the face answers for point p (grid frame): p projects onto the closed face, or past
// it only across convex edges. Past a flat edge the neighbouring face answers, past a concave
// one the wall does (the face-sphere test would continue the plane under it).
static bool face_claims(lazy_face* l, vxk_vec3 p)
{
    const vxk_face* f = &l->f;
    uint32_t u = f->axis == 0 ? 2u : 0u, v = f->axis == 1 ? 2u : 1u;
    float cu = vxk_v3_get(p, u) - vxk_v3_get(f->min, u);
    float cv = vxk_v3_get(p, v) - vxk_v3_get(f->min, v);
    uint32_t slot_u = cu < 0.0f ? VXK_EDGE_MINUS_U : (cu > f->size_u ? VXK_EDGE_PLUS_U : 4u);
    uint32_t slot_v = cv < 0.0f ? VXK_EDGE_MINUS_V : (cv > f->size_v ? VXK_EDGE_PLUS_V : 4u);
    if (slot_u < 4u && face_edge(l, slot_u) != VXK_EDGE_CONVEX)
        return false;
    if (slot_v < 4u && face_edge(l, slot_v) != VXK_EDGE_CONVEX)
        return false;
    return true;
}

// Whether the grid-frame box [lo, hi] projects onto the face, or past it only across convex
// edges.
static bool face_meets(lazy_face* l, vxk_vec3 lo, vxk_vec3 hi)
{
    const vxk_face* f = &l->f;
    uint32_t u = f->axis == 0 ? 2u : 0u, v = f->axis == 1 ? 2u : 1u;
    const uint32_t axes[2] = {u, v};
    const float sizes[2] = {f->size_u, f->size_v};
    for (uint32_t k = 0; k < 2; ++k) {
        float base = vxk_v3_get(f->min, axes[k]);
        uint32_t minus = k ? VXK_EDGE_MINUS_V : VXK_EDGE_MINUS_U;
        if (vxk_v3_get(hi, axes[k]) < base && face_edge(l, minus) != VXK_EDGE_CONVEX)
            return false;
        if (vxk_v3_get(lo, axes[k]) > base + sizes[k] && face_edge(l, minus + 1) != VXK_EDGE_CONVEX)
            return false;
    }
    return true;
}

static inline bool inside_cube(vxk_vec3 p, int32_t x, int32_t y, int32_t z, float s)
{
    return p.x >= (float)x * s && p.x < (float)(x + 1) * s && p.y >= (float)y * s &&
           p.y < (float)(y + 1) * s && p.z >= (float)z * s && p.z < (float)(z + 1) * s;
}

typedef struct prim_ctx {
    frame f;
    bool all_faces; // VXK_VOXEL_ALL_FACES: no culls
    vxk_voxel_contact_scratch* scratch;
    float margin;
    bool is_box;
    vxk_vec3 center; // grid frame
    float radius;
    vxk_obb box;        // grid frame
    vxk_vec3 vertex[8]; // grid frame
    vxk_vec3 world_vertex[8];
    vxk_vec3 world_center;
    vxk_vec3 lo, hi; // the box's bounds (grid frame)
    vxk_vec3 extent; // the box's half extents along the grid's axes
    float slack;     // rounding room of the culls that stand in for the face tests' rejections
    // The voxels that hold the centre or the box's vertices (floor of their voxel coordinates).
    uint32_t points;
    vxk_int3 point_voxel[8];
} prim_ctx;

// Grid frame (metres from voxel (0,0,0)'s lowest corner) to world.
static inline vxk_vec3 grid_to_world(const frame* f, vxk_vec3 g)
{
    return vxk_v3_add(f->pos, vxk_mat3_mul_v(&f->r, vxk_v3_add(g, f->origin)));
}

static void prim_gather(prim_ctx* ctx, const vxk_manifold* m, int32_t x, int32_t y, int32_t z,
                        uint32_t face)
{
    vxk_int3 abs = {x + ctx->f.v->base.x, y + ctx->f.v->base.y, z + ctx->f.v->base.z};
    vxk_vec3 normal = vxk_mat3_mul_v(&ctx->f.r, m->normal);
    for (uint32_t i = 0; i < m->point_count; ++i) {
        uint32_t touched[2] = {face, m->points[i].feature};
        vxk_voxel_candidate p = {grid_to_world(&ctx->f, m->points[i].point),
                                 m->points[i].separation,
                                 pack_voxel(x, y, z) << 24 | (uint64_t)face << 8 | i,
                                 voxel_feature(abs, touched, sizeof(touched)), 0};
        vxk_voxel_greedy_add(ctx->scratch, normal, &p);
    }
}

// A deep point: B's point `world_b` inside an Inside voxel, pushed out along the voxel's exit by
// one voxel.
static void prim_deep(prim_ctx* ctx, int32_t x, int32_t y, int32_t z, uint32_t exit,
                      vxk_vec3 world_b, uint32_t which)
{
    vxk_vec3 n = frame_dir(&ctx->f, exit);
    float separation = -ctx->f.s;
    vxk_int3 abs = {x + ctx->f.v->base.x, y + ctx->f.v->base.y, z + ctx->f.v->base.z};
    uint32_t touched[2] = {6, which}; // face 6: inside
    vxk_voxel_candidate p = {vxk_v3_mul_add(world_b, -separation, n), separation,
                             pack_voxel(x, y, z) << 24 | 6ull << 8 | which,
                             voxel_feature(abs, touched, sizeof(touched)), 0};
    vxk_voxel_greedy_add(ctx->scratch, n, &p);
}

static void prim_voxel(prim_ctx* ctx, int32_t x, int32_t y, int32_t z)
{
    const vxk_voxel_view* v = ctx->f.v;
    const float s = ctx->f.s;
    uint8_t byte = v->types[voxel_index(v, x, y, z)];
    vxk_voxel_type type = vxk_voxel_type_of(byte);
    if (type == VXK_VOXEL_INSIDE) {
        uint32_t which_count = ctx->is_box ? 8u : 1u;
        for (uint32_t k = 0; k < which_count; ++k) {
            vxk_vec3 p = ctx->is_box ? ctx->vertex[k] : ctx->center;
            if (!inside_cube(p, x, y, z, s))
                continue;
            uint32_t exit = vxk_voxel_lookup_index(v, byte, (vxk_int3){x, y, z});
            if (exit >= VXK_VOXEL_NORMAL_COUNT)
                return;
            vxk_vec3 world_b = ctx->is_box ? ctx->world_vertex[k]
                                           : vxk_v3_mul_add(ctx->world_center, -ctx->radius,
                                                            frame_dir(&ctx->f, exit));
            prim_deep(ctx, x, y, z, exit, world_b, k);
        }
        return;
    }
    uint32_t pattern = exposure_of(v, x, y, z);
    const int32_t coord[3] = {x, y, z};
    for (uint32_t i = 0; i < 6; ++i) {
        if (!(pattern & (1u << i)))
            continue;
        // The face's plane, as unit_face places it: a primitive behind it, or beyond the margin
        // in front of it, makes no point (the face tests' own first rejections; a little slack
        // keeps this one from deciding a case they would not).
        const uint32_t axis = i % 3;
        const float sign = i < 3 ? 1.0f : -1.0f;
        float plane = (float)coord[axis] * s;
        if (i < 3)
            plane = plane + s;
        const float slack = ctx->slack;
        if (ctx->all_faces) {
        } else if (ctx->is_box) {
            float height = sign * (vxk_v3_get(ctx->box.center, axis) - plane);
            if (!(height >= 0.0f) || height - vxk_v3_get(ctx->extent, axis) - ctx->margin > slack)
                continue;
            // The face-box test's other face axes: the face's two in-plane axes and the box's.
            const uint32_t u = axis == 0 ? 2u : 0u, w = axis == 1 ? 2u : 1u;
            const float half = 0.5f * s;
            vxk_vec3 d = ctx->box.center;
            vxk_v3_set(&d, axis, vxk_v3_get(d, axis) - plane);
            vxk_v3_set(&d, u, vxk_v3_get(d, u) - ((float)coord[u] * s + half));
            vxk_v3_set(&d, w, vxk_v3_get(d, w) - ((float)coord[w] * s + half));
            if (fabsf(vxk_v3_get(d, u)) - half - vxk_v3_get(ctx->extent, u) - ctx->margin > slack ||
                fabsf(vxk_v3_get(d, w)) - half - vxk_v3_get(ctx->extent, w) - ctx->margin > slack)
                continue;
            bool apart = false;
            for (uint32_t j = 0; j < 3 && !apart; ++j) {
                const vxk_vec3 b = vxk_mat3_col(&ctx->box.axes, j);
                float reach = half * (fabsf(vxk_v3_get(b, u)) + fabsf(vxk_v3_get(b, w)));
                apart =
                    fabsf(vxk_v3_dot(d, b)) - vxk_v3_get(ctx->box.half, j) - reach - ctx->margin >
                    slack;
            }
            if (apart)
                continue;
        } else {
            float height = sign * (vxk_v3_get(ctx->center, axis) - plane);
            if (!(height >= 0.0f) || height - ctx->radius - ctx->margin > slack)
                continue;
            // The distance from the centre to the face (the face-sphere test's own rejection).
            const uint32_t u = axis == 0 ? 2u : 0u, w = axis == 1 ? 2u : 1u;
            float du = vxk_v3_get(ctx->center, u) - (float)coord[u] * s;
            float dw = vxk_v3_get(ctx->center, w) - (float)coord[w] * s;
            du = du < 0.0f ? -du : (du > s ? du - s : 0.0f);
            dw = dw < 0.0f ? -dw : (dw > s ? dw - s : 0.0f);
            const float reach = ctx->radius + ctx->margin + slack;
            if (du * du + dw * dw + height * height > reach * reach)
                continue;
        }
        lazy_face lf;
        lazy_face_init(&lf, v, x, y, z, i);
        bool over = false;
        if (!ctx->is_box) {
            over = face_claims(&lf, ctx->center);
        } else if (type == VXK_VOXEL_FACE) {
            // A flat stretch: the box's extreme points over it are its vertices (an edge or face
            // of the box across it ends over the neighbouring faces, which answer for them).
            for (uint32_t k = 0; k < 8 && !over; ++k)
                over = face_claims(&lf, ctx->vertex[k]);
        } else {
            // A face with a convex edge: a box edge may cross it between vertices.
            over = face_meets(&lf, ctx->lo, ctx->hi);
        }
        if (!over)
            continue;
        const vxk_face* f = face_complete(&lf);
        vxk_manifold m;
        if (ctx->is_box)
            vxk_collide_face_box(&m, f, &ctx->box, ctx->margin);
        else
            vxk_collide_face_sphere(&m, f, ctx->center, ctx->radius, ctx->margin);
        prim_gather(ctx, &m, x, y, z, i);
    }
}

// The solid voxels of A whose cubes meet the grid-frame box [lo, hi].
static void prim_walk(prim_ctx* ctx, vxk_vec3 lo, vxk_vec3 hi)
{
    const vxk_voxel_view* v = ctx->f.v;
    vxk_int_box a = v->active;
    float inv = ctx->f.inv_s;
    vxk_int_box r = {
        {VXK_MAX(a.min.x, clamp_floor(lo.x * inv)), VXK_MAX(a.min.y, clamp_floor(lo.y * inv)),
         VXK_MAX(a.min.z, clamp_floor(lo.z * inv))},
        {VXK_MIN(a.max.x, clamp_floor(hi.x * inv)), VXK_MIN(a.max.y, clamp_floor(hi.y * inv)),
         VXK_MIN(a.max.z, clamp_floor(hi.z * inv))}};
    if (box_empty(r))
        return;
    // Face voxels answer only under a point (the centre, a vertex): their edges are flat or
    // concave, so a face claims only the points that project onto it. They are those of the
    // lines through the points' voxels along the three axes (a voxel either side: rounding).
    // Inside voxels answer only when they hold a point. The rest all test, in the same order.
    uint32_t near_y[VXK_VOXEL_VIEW_MAX_SIZE],
        near_z[VXK_VOXEL_VIEW_MAX_SIZE]; // points within a voxel
    uint64_t near_x[8][VXK_VOXEL_VIEW_MAX_SIZE / 64];
    for (int32_t y = r.min.y; y <= r.max.y; ++y)
        near_y[y] = 0;
    for (int32_t z = r.min.z; z <= r.max.z; ++z)
        near_z[z] = 0;
    for (uint32_t k = 0; k < ctx->points; ++k) {
        const vxk_int3 pv = ctx->point_voxel[k];
        for (int32_t y = VXK_MAX(r.min.y, pv.y - 1); y <= VXK_MIN(r.max.y, pv.y + 1); ++y)
            near_y[y] |= 1u << k;
        for (int32_t z = VXK_MAX(r.min.z, pv.z - 1); z <= VXK_MIN(r.max.z, pv.z + 1); ++z)
            near_z[z] |= 1u << k;
        for (uint32_t w = (uint32_t)r.min.x >> 6; w <= (uint32_t)r.max.x >> 6; ++w)
            near_x[k][w] = pv.x + 1 < (int32_t)(w * 64) || pv.x - 1 > (int32_t)(w * 64 + 63)
                               ? 0
                               : span_bits(pv.x - 1, pv.x + 1, w);
    }
    for (int32_t y = r.min.y; y <= r.max.y; ++y)
        for (int32_t z = r.min.z; z <= r.max.z; ++z) {
            int32_t x0 = r.min.x, x1 = r.max.x;
            if (!ctx->is_box && !ctx->all_faces) {
                // A sphere: the row's voxels whose cubes are within its reach (nothing farther
                // makes a point), a voxel either side for rounding.
                const float s = ctx->f.s, reach = ctx->radius + ctx->margin + ctx->slack;
                float dy = fabsf(ctx->center.y - ((float)y + 0.5f) * s) - 0.5f * s;
                float dz = fabsf(ctx->center.z - ((float)z + 0.5f) * s) - 0.5f * s;
                dy = dy > 0.0f ? dy : 0.0f;
                dz = dz > 0.0f ? dz : 0.0f;
                float left = reach * reach - dy * dy - dz * dz;
                if (left < 0.0f)
                    continue;
                float along = sqrtf(left);
                x0 = VXK_MAX(x0, clamp_floor((ctx->center.x - along) * inv) - 1);
                x1 = VXK_MIN(x1, clamp_floor((ctx->center.x + along) * inv) + 1);
                if (x0 > x1)
                    continue;
            }
            const uint32_t line = near_y[y] | near_z[z], hold = near_y[y] & near_z[z];
            size_t row = row_at(v, y, z);
            for (uint32_t w = (uint32_t)x0 >> 6; w <= (uint32_t)x1 >> 6; ++w) {
                uint64_t face = v->face[row + w], inside = v->inside[row + w];
                uint64_t walk = v->solid[row + w] & ~face & ~inside;
                if (ctx->all_faces) {
                    walk = v->solid[row + w];
                } else if (line) {
                    uint64_t lines = hold ? ~0ull : 0, holds = 0;
                    for (uint32_t m = line; m; m &= m - 1) {
                        uint32_t k = (uint32_t)__builtin_ctz(m);
                        lines |= near_x[k][w];
                        holds |= hold >> k & 1u ? near_x[k][w] : 0;
                    }
                    walk |= (face & lines) | (inside & holds);
                }
                for (uint64_t bits = walk & span_bits(x0, x1, w); bits; bits &= bits - 1)
                    prim_voxel(ctx, (int32_t)(w * 64) + __builtin_ctzll(bits), y, z);
            }
        }
}

// The voxel that holds grid-frame point p, to within rounding.
static inline vxk_int3 point_voxel(const frame* f, vxk_vec3 p)
{
    return (vxk_int3){clamp_floor(p.x * f->inv_s), clamp_floor(p.y * f->inv_s),
                      clamp_floor(p.z * f->inv_s)};
}

static bool prim_setup(prim_ctx* ctx, vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                       const vxk_voxel_view* a, float margin, uint32_t flags)
{
    ctx->all_faces = (flags & VXK_VOXEL_ALL_FACES) != 0;
    if (!out)
        return false;
    out->count = 0;
    if (!scratch || !vxk_voxel_view_usable(a) || !vxk_is_finite(margin) || box_empty(a->active))
        return false;
    vxk_voxel_frame_init(&ctx->f, a);
    ctx->scratch = scratch;
    ctx->margin = margin > 0.0f ? margin : 0.0f;
    scratch_reset(scratch);
    return true;
}

// World point to the grid frame.
static inline vxk_vec3 world_to_grid(const frame* f, vxk_vec3 w)
{
    return vxk_v3_sub(vxk_mat3_tmul_v(&f->r, vxk_v3_sub(w, f->pos)), f->origin);
}

uint32_t vxk_collide_voxel_sphere(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                                  const vxk_voxel_view* a, vxk_vec3 center, float radius,
                                  float margin, uint32_t flags)
{
    prim_ctx ctx;
    if (!prim_setup(&ctx, out, scratch, a, margin, flags) || !vxk_vec3_is_finite(center) ||
        !vxk_is_finite(radius) || !(radius >= 0.0f))
        return 0;
    ctx.is_box = false;
    ctx.world_center = center;
    ctx.center = world_to_grid(&ctx.f, center);
    ctx.radius = radius;
    ctx.slack = 1e-3f * ctx.f.s + 1e-5f * (fabsf(ctx.center.x) + fabsf(ctx.center.y) +
                                           fabsf(ctx.center.z) + radius + ctx.margin);
    ctx.points = 1;
    ctx.point_voxel[0] = point_voxel(&ctx.f, ctx.center);
    float reach = radius + ctx.margin;
    prim_walk(&ctx, vxk_v3_sub(ctx.center, vxk_v3(reach, reach, reach)),
              vxk_v3_add(ctx.center, vxk_v3(reach, reach, reach)));
    return vxk_voxel_finish_manifolds(out, scratch, a, NULL);
}

uint32_t vxk_collide_voxel_box(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                               const vxk_voxel_view* a, const vxk_obb* b, float margin,
                               uint32_t flags)
{
    prim_ctx ctx;
    if (!prim_setup(&ctx, out, scratch, a, margin, flags) || !b || !vxk_vec3_is_finite(b->center) ||
        !vxk_vec3_is_finite(b->half) || !vxk_vec3_is_finite(b->axes.cx) ||
        !vxk_vec3_is_finite(b->axes.cy) || !vxk_vec3_is_finite(b->axes.cz) ||
        !(b->half.x >= 0.0f && b->half.y >= 0.0f && b->half.z >= 0.0f))
        return 0;
    ctx.is_box = true;
    ctx.box.center = world_to_grid(&ctx.f, b->center);
    ctx.box.axes =
        (vxk_mat3){vxk_mat3_tmul_v(&ctx.f.r, b->axes.cx), vxk_mat3_tmul_v(&ctx.f.r, b->axes.cy),
                   vxk_mat3_tmul_v(&ctx.f.r, b->axes.cz)};
    ctx.box.half = b->half;
    vxk_vec3 extent = {0, 0, 0};
    for (uint32_t k = 0; k < 3; ++k)
        extent = vxk_v3_add(extent, vxk_v3_scale(vxk_v3_abs(vxk_mat3_col(&ctx.box.axes, k)),
                                                 vxk_v3_get(b->half, k)));
    for (uint32_t k = 0; k < 8; ++k) {
        vxk_vec3 local = {k & 1 ? b->half.x : -b->half.x, k & 2 ? b->half.y : -b->half.y,
                          k & 4 ? b->half.z : -b->half.z};
        ctx.world_vertex[k] = vxk_v3_add(b->center, vxk_mat3_mul_v(&b->axes, local));
        ctx.vertex[k] = world_to_grid(&ctx.f, ctx.world_vertex[k]);
        ctx.point_voxel[k] = point_voxel(&ctx.f, ctx.vertex[k]);
    }
    ctx.points = 8;
    ctx.extent = extent;
    ctx.slack = 1e-3f * ctx.f.s +
                1e-5f * (fabsf(ctx.box.center.x) + fabsf(ctx.box.center.y) +
                         fabsf(ctx.box.center.z) + extent.x + extent.y + extent.z + ctx.margin);
    ctx.lo = vxk_v3_sub(ctx.box.center, extent);
    ctx.hi = vxk_v3_add(ctx.box.center, extent);
    vxk_vec3 grow = vxk_v3_add(extent, vxk_v3(ctx.margin, ctx.margin, ctx.margin));
    prim_walk(&ctx, vxk_v3_sub(ctx.box.center, grow), vxk_v3_add(ctx.box.center, grow));
    return vxk_voxel_finish_manifolds(out, scratch, a, NULL);
}
