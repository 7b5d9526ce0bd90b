// contact_voxel.c: voxel against voxel contacts after seed 003 (the voxel-physics article; the
// views are contact_voxel_view.c's, the manifolds contact_voxel_manifold.c's): a box
// separating-axis early out, the overlap region of one shape in the other's voxel space, each
// candidate voxel mapped into the other grid and tested against its neighbourhood, the voxel-type
// rules, lookup-normal correction, Inside voxels one voxel deep; voxels touch as cubes.
//
// Beyond the article:
// - Tests are driven by the voxels the type rule needs, as bit rows: A's Corners against B's solid
//   voxels, A's other solid voxels against B's Corners, A's Edges against B's Edges. Face and
//   Inside voxels never drive a test, and empty words of candidate rows are skipped 64 voxels at a
//   time, so two boxes resting face on face cost their rims, not their faces.
// - Each test is driven by the cheaper side (a small voxel looks up at most 2 cells per axis of a
//   grid of larger voxels; a large one many of a grid of smaller ones), but every pair is
//   evaluated in the caller's order from the same world centres, so the driving side changes
//   nothing, bit for bit.
// - The neighbourhood is the box of cells within the margin of the driving voxel's cube along the
//   other grid's axes (the article's 3x3x3 for equal aligned voxels). Every pair in it is first
//   culled by the 6 face axes of the two cubes and by what any face or deep pair needs (the
//   support region over some face along the face's axes, or overlap across two axes), so aligned
//   grids evaluate the article's face neighbours only.
// - Before any test, each side's region is cut to the bounding box of its solid voxels that can
//   reach the other's (one side, then the other), and each test runs over the bounding boxes of
//   its two kinds that can reach each other: shapes whose boxes overlap but whose voxels do not
//   come near cost a few row scans. Driving voxels are taken in runs of up to 8 along a row, and a
//   run whose joint lookup finds none of the other side's kind is skipped whole. A pair that
//   passes the 6 axes is next culled by where along each shape's axes a face test can pass at all,
//   then by the exposed faces alone (from a byte per voxel): only then is it evaluated.
// - The side that drives a test is chosen by a cost model (a driving voxel's setup, the bit rows
//   it reads, a pair per set bit at the other side's density): with unequal voxels the small
//   voxels drive unless the large ones are far fewer.
// - Voxels are cubes, not the article's spheres: with unequal voxel sizes a sphere rule pairs a
//   small voxel on a large face only near the face's centre line, and with equal sizes it lets
//   voxels that straddle two voxels of a misaligned grid sink by up to 29 % of a voxel before
//   they pair. The rules (the header) measure each pair along its face normal and admit it where
//   the cubes' projections onto the face overlap. The per-call constants (the other voxel's
//   extent and support region for each face axis) are computed once: the grids are rigid.
#include "contact_voxel_internal.h"

#include <float.h>

// Neighbourhood and region bounds are grown by this many voxels so that float rounding of the
// mapping never drops a cell whose centre is within reach; the pair test decides exactly.
#define RANGE_SLACK 2e-3f
// Overlaps of projections are decided to this fraction of the smaller voxel: an area must overlap
// by more (equal aligned grids: a voxel pairs with the one it faces, not with that one's
// neighbours, whose faces only touch it along an edge), a point or a line may miss by as much.
#define OVERLAP_TOL 1e-3f
// A voxel's support region towards a face: the part of its cube within this fraction of the
// smaller voxel of its lowest point (a face when level, shrinking to an edge or a vertex as it
// tilts, continuously).
#define SUPPORT_BAND 0.1f
// The driving side's cost model (instructions, roughly): a driving voxel's setup, a bit row it
// reads, a candidate pair it tests.
#define DRIVE_COST 100.0f
#define ROW_COST 30.0f
#define PAIR_COST 200.0f
// Faces within 60 degrees of the article's face choice compete by separation.
#define GROUP_COS 0.5f
// Face separations closer than this fraction of the voxel sizes' sum are a tie.
#define GAP_TIE 1e-5f
// Face-normal scores closer than this are a tie (they are sums of products of unit vectors).
#define FACE_TIE 1e-5f

enum { MASK_SOLID, MASK_CORNER, MASK_EDGE, MASK_SOLID_NOT_CORNER };

// ---- voxel against voxel ---------------------------------------------------------------------

// What the cube rules of a call need about one face of one shape's voxels (its axis k, either
// sign): the other shape's voxel's support region towards that face, as a centre offset and
// half widths in the face's plane. Every voxel pair of a call shares it: the grids are rigid.
typedef struct face_rule {
    vxk_vec3 normal[2]; // in-plane normals of the support's edges
    // The other voxel's support centre is its centre - sign * the support offset (sign: +1 for
    // the face along +axis k, -1 along -axis k): the offset along tangent axes k+1, k+2, normal
    // 0, 1.
    float shift[4];
    float edge[2];  // a support that is a segment (centre +- edge): edge along k+1, k+2
    float reach[4]; // the support's half widths along tangent axes k+1, k+2, normal 0, 1
    float face[2];  // the face's half widths along normal 0, 1
    float need[4];  // the overlap each of those axes needs
    uint32_t normals;
} face_rule;

// The tangent axes of face axis k: k + 1 and k + 2 (mod 3).
static const uint8_t k_tangent[3][2] = {{1, 2}, {2, 0}, {0, 1}};

static inline float min_f(float a, float b)
{
    return a < b ? a : b;
}

static inline float max_f(float a, float b)
{
    return a > b ? a : b;
}

typedef struct cube_rules {
    vxk_vec3 axis[2][3];     // world axes of A's (0) and B's (1) voxels
    float half[2];           // half voxel sizes
    float extent[2][3];      // [o][k]: half extent of the other shape's voxel along o's axis k
    float cells[2], rows[2]; // cells and bit rows a driving voxel of the other shape reads in o
    float range[2][3];       // [o][k]: that lookup's half width along o's axis k, in o's voxels
    float tol;               // OVERLAP_TOL of the smaller voxel
    face_rule face[2][3];    // [o][k]
    // [o][j]: the values of d . o's axis j for which some face of o with j as a tangent axis
    // may pass face_tangents along j (a little wider: it only culls).
    float along_lo[2][3], along_hi[2][3];
} cube_rules;

static inline float sign_of(float x)
{
    return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
}

static void cube_rules_init(cube_rules* c, const frame* fa, const frame* fb, float margin)
{
    const frame* f[2] = {fa, fb};
    for (uint32_t o = 0; o < 2; ++o) {
        c->axis[o][0] = f[o]->r.cx;
        c->axis[o][1] = f[o]->r.cy;
        c->axis[o][2] = f[o]->r.cz;
        c->half[o] = 0.5f * f[o]->s;
    }
    const float smaller = min_f(fa->s, fb->s);
    c->tol = OVERLAP_TOL * smaller;
    const float band = SUPPORT_BAND * smaller;
    for (uint32_t o = 0; o < 2; ++o) {
        const uint32_t t = 1 - o;
        c->cells[o] = 1.0f;
        c->rows[o] = 1.0f;
        for (uint32_t k = 0; k < 3; ++k) {
            float m[3], keep[3];
            vxk_vec3 support = {0, 0, 0};
            for (uint32_t i = 0; i < 3; ++i) {
                m[i] = vxk_v3_dot(c->axis[o][k], c->axis[t][i]);
                // Axes of the other voxel nearly in the face's plane keep part of their length in
                // the support: all of it when level, none once one end is `band` above the other.
                float w = min_f(1.0f, f[t]->s * fabsf(m[i]) / band);
                keep[i] = 1.0f - w;
                support = vxk_v3_mul_add(support, c->half[t] * w * sign_of(m[i]), c->axis[t][i]);
            }
            c->extent[o][k] = c->half[t] * (fabsf(m[0]) + fabsf(m[1]) + fabsf(m[2]));
            c->range[o][k] = (c->half[o] + c->extent[o][k] + margin) * f[o]->inv_s + RANGE_SLACK;
            c->cells[o] *= 2.0f * c->range[o][k] + 1.0f;
            c->rows[o] *= k ? 2.0f * c->range[o][k] + 1.0f : 1.0f;
            face_rule* r = &c->face[o][k];
            const vxk_vec3 tangent[2] = {c->axis[o][k_tangent[k][0]], c->axis[o][k_tangent[k][1]]};
            for (uint32_t j = 0; j < 2; ++j) {
                float reach = 0.0f;
                for (uint32_t i = 0; i < 3; ++i)
                    reach += keep[i] * fabsf(vxk_v3_dot(c->axis[t][i], tangent[j]));
                r->reach[j] = c->half[t] * reach;
            }
            r->normals = 0;
            r->edge[0] = r->edge[1] = 0.0f;
            r->shift[0] = vxk_v3_dot(support, tangent[0]);
            r->shift[1] = vxk_v3_dot(support, tangent[1]);
            for (uint32_t i = 0; i < 3; ++i) {
                if (!(keep[i] > 0.0f))
                    continue;
                vxk_vec3 n = vxk_v3_cross(c->axis[o][k], c->axis[t][i]);
                float length = vxk_v3_length(n);
                // (An axis that keeps length is within 0.1 of the plane: at most two do, and
                // their normals are well defined. One parallel to a face axis repeats that
                // axis's test.)
                VXK_ASSERT(r->normals < 2 && length > 0.9f);
                n = vxk_v3_scale(n, 1.0f / length);
                float along[2] = {fabsf(vxk_v3_dot(n, tangent[0])),
                                  fabsf(vxk_v3_dot(n, tangent[1]))};
                float reach = 0.0f;
                for (uint32_t h = 0; h < 3; ++h)
                    reach += keep[h] * fabsf(vxk_v3_dot(c->axis[t][h], n));
                r->normal[r->normals] = n;
                r->shift[2 + r->normals] = vxk_v3_dot(support, n);
                for (uint32_t j = 0; j < 2; ++j)
                    r->edge[j] = keep[i] * c->half[t] * vxk_v3_dot(c->axis[t][i], tangent[j]);
                r->reach[2 + r->normals] = c->half[t] * reach;
                r->face[r->normals] = c->half[o] * (along[0] + along[1]);
                r->normals++;
            }
            for (uint32_t j = 0; j < 4; ++j)
                r->need[j] =
                    j < 2 + r->normals ? min_f(2.0f * r->reach[j], 2.0f * c->tol) - c->tol : 0.0f;
        }
    }
    // face_tangents passes along j when |centre| <= half + reach - need, centre = +-along -
    // sign * shift: the union over the faces (k, sign) that have j as a tangent axis.
    for (uint32_t o = 0; o < 2; ++o) {
        for (uint32_t j = 0; j < 3; ++j) {
            c->along_lo[o][j] = FLT_MAX;
            c->along_hi[o][j] = -FLT_MAX;
        }
        for (uint32_t k = 0; k < 3; ++k) {
            const face_rule* r = &c->face[o][k];
            for (uint32_t t = 0; t < 2; ++t) {
                const uint32_t j = k_tangent[k][t];
                const float reach = c->half[o] + r->reach[t];
                const float limit = reach - r->need[t] + 1e-4f * reach;
                for (uint32_t side = 0; side < 2; ++side) {
                    const float sign = side ? -1.0f : 1.0f;
                    const float mid = (o ? -1.0f : 1.0f) * sign * r->shift[t];
                    c->along_lo[o][j] = min_f(c->along_lo[o][j], mid - limit);
                    c->along_hi[o][j] = max_f(c->along_hi[o][j], mid + limit);
                }
            }
        }
    }
}

typedef struct pair_ctx {
    frame fa, fb;
    cube_rules cube;
    float margin;
    // Output: raw points (pairs != NULL or counting) or clusters.
    vxk_voxel_pair* pairs;
    uint32_t capacity, count;
    vxk_voxel_contact_scratch* scratch;
} pair_ctx;

// The support's centre along face (o, k)'s tangent axes (the face along sign * axis k), from the
// pair's offset d = pb - pa along o's axes (proj): whether it overlaps the face there by what the
// face needs, and the middles of the overlaps.
static inline bool face_tangents(const cube_rules* c, uint32_t o, uint32_t k, float sign,
                                 const float proj[2][3], float centre[2], float mid[2])
{
    const face_rule* r = &c->face[o][k];
    const float half = c->half[o];
    for (uint32_t j = 0; j < 2; ++j) {
        float along = proj[o][k_tangent[k][j]];
        centre[j] = (o ? -along : along) - sign * r->shift[j];
        float lo = max_f(centre[j] - r->reach[j], -half), hi = min_f(centre[j] + r->reach[j], half);
        if (!(hi - lo >= r->need[j]))
            return false;
        mid[j] = 0.5f * (lo + hi);
    }
    return true;
}

// Whether face i (0-5) of o's voxel (centre co) meets the other voxel's support region: their
// projections onto the face's plane overlap by each axis's need (the face's axes, then the
// support's edge normals). If so, *point is on the face, at the middle of the overlap of the
// support's bounds along the face's axes (of a segment: the middle of its part over the face).
static bool cube_face_meets(const cube_rules* c, uint32_t o, uint32_t i, vxk_vec3 co, vxk_vec3 d,
                            const float proj[2][3], vxk_vec3* point)
{
    const uint32_t k = i < 3 ? i : i - 3;
    const float sign = i < 3 ? 1.0f : -1.0f;
    const face_rule* r = &c->face[o][k];
    const float half = c->half[o];
    float centre[2], mid[2];
    if (!face_tangents(c, o, k, sign, proj, centre, mid))
        return false;
    for (uint32_t j = 0; j < r->normals; ++j) {
        float along = vxk_v3_dot(d, r->normal[j]);
        float cn = (o ? -along : along) - sign * r->shift[2 + j];
        float lo = max_f(cn - r->reach[2 + j], -r->face[j]);
        float hi = min_f(cn + r->reach[2 + j], r->face[j]);
        if (!(hi - lo >= r->need[2 + j]))
            return false;
    }
    if (r->normals == 1) {
        // A segment centre + t edge, t in [-1, 1]: the middle of its part over the face.
        float lo = -1.0f, hi = 1.0f;
        for (uint32_t j = 0; j < 2; ++j) {
            if (!(fabsf(r->edge[j]) > 1e-6f * half))
                continue;
            float t0 = (-half - centre[j]) / r->edge[j], t1 = (half - centre[j]) / r->edge[j];
            lo = max_f(lo, min_f(t0, t1));
            hi = min_f(hi, max_f(t0, t1));
        }
        float t = min_f(1.0f, max_f(-1.0f, 0.5f * (lo + hi)));
        for (uint32_t j = 0; j < 2; ++j)
            mid[j] = centre[j] + t * r->edge[j];
    }
    vxk_vec3 p = vxk_v3_mul_add(co, sign * half, c->axis[o][k]);
    p = vxk_v3_mul_add(p, mid[0], c->axis[o][k_tangent[k][0]]);
    *point = vxk_v3_mul_add(p, mid[1], c->axis[o][k_tangent[k][1]]);
    return true;
}

// Separation of the pair along face i of o's voxel (outward): d . axis projected (proj, with d =
// pb - pa), less both voxels' half extents along it.
static inline float face_separation(const cube_rules* c, uint32_t o, uint32_t i,
                                    const float proj[2][3])
{
    const uint32_t k = i < 3 ? i : i - 3;
    float along = (i < 3) == (o == 0) ? proj[o][k] : -proj[o][k];
    return along - c->half[o] - c->extent[o][k];
}

// Pair (a, b) in the caller's order (the rules of the header); proj and gap are the centre
// offset d = pb - pa along each shape's axes and the separating-axis gaps there.
// ta, tb are the voxels' type bytes, ea, eb their exposures (exposure_of).
static void evaluate_pair(pair_ctx* ctx, int32_t ax, int32_t ay, int32_t az, int32_t bx, int32_t by,
                          int32_t bz, vxk_vec3 pa, vxk_vec3 pb, const float proj[2][3],
                          const float gap[2][3], uint8_t ta, uint8_t tb, uint32_t ea, uint32_t eb)
{
    frame* fa = &ctx->fa;
    frame* fb = &ctx->fb;
    const cube_rules* cube = &ctx->cube;
    const vxk_voxel_view* va = fa->v;
    const vxk_voxel_view* vb = fb->v;
    bool inside_a = vxk_voxel_type_of(ta) == VXK_VOXEL_INSIDE;
    bool inside_b = vxk_voxel_type_of(tb) == VXK_VOXEL_INSIDE;
    uint32_t ka = vxk_voxel_lookup_index(va, ta, (vxk_int3){ax, ay, az}),
             kb = vxk_voxel_lookup_index(vb, tb, (vxk_int3){bx, by, bz});
    vxk_vec3 zero = {0, 0, 0};
    vxk_vec3 la = ka < VXK_VOXEL_NORMAL_COUNT ? frame_dir(fa, ka) : zero;
    vxk_vec3 lb = kb < VXK_VOXEL_NORMAL_COUNT ? frame_dir(fb, kb) : zero;
    vxk_vec3 c = vxk_v3_sub(la, lb);
    // Equal lookup normals (to rounding) give no direction: the sign of a rounding error would.
    if (vxk_v3_length_sq(c) < 1e-8f)
        c = zero;
    vxk_vec3 d = vxk_v3_sub(pb, pa);
    float dist2 = vxk_v3_dot(d, d), dist = sqrtf(dist2);
    float half_sum = 0.5f * (fa->s + fb->s);
    // The article's normal: the line of centres, turned towards what the voxels say.
    vxk_vec3 n;
    if (dist > 1e-6f * half_sum) {
        n = vxk_v3_scale(d, 1.0f / dist);
        if (vxk_v3_dot(d, c) < 0.0f)
            n = vxk_v3_neg(n);
    } else {
        // Coincident centres: what the voxels say, else the line between the bodies' frames
        // (both flip with the order), else +y.
        n = vxk_v3_normalize(c);
        if (vxk_v3_length_sq(n) == 0.0f)
            n = vxk_v3_normalize(vxk_v3_sub(fb->pos, fa->pos));
        if (vxk_v3_length_sq(n) == 0.0f)
            n = vxk_v3(0, 1, 0);
    }
    bool deep =
        (inside_a && ka < VXK_VOXEL_NORMAL_COUNT) || (inside_b && kb < VXK_VOXEL_NORMAL_COUNT);
    vxk_vec3 f;
    float separation;
    vxk_vec3 point;
    uint32_t cluster;
    if (deep) {
        // The Corner must be in the Inside voxel, or on one of its faces: overlapping it across
        // two of its axes.
        uint32_t o = inside_a ? 0u : 1u;
        uint32_t across = (uint32_t)(gap[o][0] < -cube->tol) + (uint32_t)(gap[o][1] < -cube->tol) +
                          (uint32_t)(gap[o][2] < -cube->tol);
        if (across < 2)
            return;
        n = inside_a ? la : vxk_v3_neg(lb);
        f = n;
        separation = -(inside_a ? fa->s : fb->s);
        point = vxk_v3_mul_add(inside_a ? pa : pb, -0.5f * separation, n);
        cluster = inside_a ? 12u + ka : 38u + kb;
    } else {
        // The article's face choice: the exposed face direction (A's, or B's negated) that best
        // matches what the lookup normals say.
        vxk_vec3 candidate[12];
        float score[12], best = -FLT_MAX;
        uint32_t which[12], count = 0;
        for (uint32_t open = ea | eb << 6; open; open &= open - 1) {
            uint32_t i = (uint32_t)__builtin_ctz(open);
            candidate[count] = i < 6 ? frame_dir(fa, i) : vxk_v3_neg(frame_dir(fb, i - 6));
            score[count] = vxk_v3_dot(candidate[count], c);
            best = score[count] > best ? score[count] : best;
            which[count++] = i;
        }
        VXK_ASSERT(count > 0);
        // Scores within FACE_TIE are equal (a face normal on each side scores 1 - la . lb both
        // ways); the raw normal decides between them, then the line from A's frame to B's (both
        // flip with the order, so the choice does too).
        vxk_vec3 apart = vxk_v3_sub(fb->pos, fa->pos);
        float best_along = -FLT_MAX, best_apart = -FLT_MAX;
        uint32_t chosen = 0;
        for (uint32_t j = 0; j < count; ++j) {
            if (!(score[j] >= best - FACE_TIE))
                continue;
            float along = vxk_v3_dot(candidate[j], n), away = vxk_v3_dot(candidate[j], apart);
            if (along > best_along + FACE_TIE ||
                (along >= best_along - FACE_TIE && away > best_apart)) {
                best_along = along > best_along ? along : best_along;
                best_apart = away;
                chosen = j;
            }
        }
        // Cubes: among the faces within 60 degrees of that direction that the other voxel's
        // support region meets, the one the voxels are most apart along (a separating axis: the
        // face that is touched); ties keep the earlier, the article's choice first.
        const uint32_t first = chosen;
        const float tie = GAP_TIE * (fa->s + fb->s);
        bool met = false;
        vxk_vec3 on_face = {0, 0, 0};
        separation = 0.0f;
        for (uint32_t step = 0; step <= count; ++step) {
            uint32_t j = step ? step - 1 : first;
            if (step && (j == first || !(vxk_v3_dot(candidate[j], candidate[first]) >= GROUP_COS)))
                continue;
            const uint32_t o = which[j] / 6, i = which[j] % 6;
            float s = face_separation(cube, o, i, proj);
            vxk_vec3 at;
            if ((met && !(s > separation + tie)) ||
                !cube_face_meets(cube, o, i, o ? pb : pa, d, proj, &at))
                continue;
            met = true;
            separation = s;
            chosen = j;
            on_face = at;
        }
        if (!met)
            return;
        f = candidate[chosen];
        cluster = which[chosen];
        // On A's side: the face's point when the face is A's, else B's face point moved back.
        point = which[chosen] >= 6 ? vxk_v3_mul_add(on_face, -separation, f) : on_face;
    }
    if (ctx->scratch) {
        // (The feature id is hashed from the key for the points kept: vxk_voxel_finish_manifolds.)
        vxk_voxel_candidate p = {point, separation,
                                 pack_voxel(ax, ay, az) << 24 | pack_voxel(bx, by, bz), 0, 0};
        vxk_voxel_keyed_add(ctx->scratch, cluster, f, &p);
        return;
    }
    vxk_int3 abs_a = {ax + va->base.x, ay + va->base.y, az + va->base.z};
    vxk_int3 abs_b = {bx + vb->base.x, by + vb->base.y, bz + vb->base.z};
    uint32_t feature = voxel_feature(abs_a, &abs_b, sizeof(abs_b));
    if (ctx->count < ctx->capacity)
        ctx->pairs[ctx->count] =
            (vxk_voxel_pair){{ax, ay, az}, {bx, by, bz}, n, f, separation, point, cluster, feature};
    ctx->count++;
}

static inline uint64_t mask_word(const vxk_voxel_view* v, uint32_t kind, size_t at)
{
    switch (kind) {
    case MASK_CORNER: return v->corner[at];
    case MASK_EDGE: return v->edge[at];
    case MASK_SOLID_NOT_CORNER: return v->solid[at] & ~v->corner[at];
    default: return v->solid[at];
    }
}

// The rows of one kind, read without a switch: word at = rows[at] & ~(minus[at] & minus_mask).
typedef struct kind_rows {
    const uint64_t* rows;
    const uint64_t* minus;
    uint64_t minus_mask;
} kind_rows;

static inline kind_rows rows_of(const vxk_voxel_view* v, uint32_t kind)
{
    switch (kind) {
    case MASK_CORNER: return (kind_rows){v->corner, v->corner, 0};
    case MASK_EDGE: return (kind_rows){v->edge, v->edge, 0};
    case MASK_SOLID_NOT_CORNER: return (kind_rows){v->solid, v->corner, ~0ull};
    default: return (kind_rows){v->solid, v->solid, 0};
    }
}

static inline uint64_t kind_word(const kind_rows* k, size_t at)
{
    return k->rows[at] & ~(k->minus[at] & k->minus_mask);
}

// What a search needs of one shape's voxels in its region: per kind (MASK_*), how many and
// their bounding box (empty: max < min).
typedef struct kind_boxes {
    uint64_t count[4];
    vxk_int_box box[4];
} kind_boxes;

static void scan_kinds(const vxk_voxel_view* v, vxk_int_box region, kind_boxes* out)
{
    for (uint32_t k = 0; k < 4; ++k) {
        out->count[k] = 0;
        out->box[k] =
            (vxk_int_box){{INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}};
    }
    if (box_empty(region))
        return;
    // Per kind: the words of each column OR-ed (x bounds at the end), the rows with any (y and z
    // bounds as they come).
    const uint32_t w0 = (uint32_t)region.min.x >> 6, w1 = (uint32_t)region.max.x >> 6;
    uint64_t columns[4][VXK_VOXEL_VIEW_MAX_SIZE / 64] = {{0}};
    uint64_t count_solid = 0, count_corner = 0, count_edge = 0;
    uint64_t span[VXK_VOXEL_VIEW_MAX_SIZE / 64];
    span_masks(span, region.min.x, region.max.x);
    for (int32_t y = region.min.y; y <= region.max.y; ++y)
        for (int32_t z = region.min.z; z <= region.max.z; ++z) {
            const size_t row = row_at(v, y, z);
            uint64_t any[4] = {0, 0, 0, 0};
            for (uint32_t w = w0; w <= w1; ++w) {
                const uint64_t solid = v->solid[row + w] & span[w - w0];
                if (!solid)
                    continue;
                const uint64_t corner = v->corner[row + w] & solid;
                const uint64_t edge = v->edge[row + w] & solid;
                count_solid += (uint64_t)__builtin_popcountll(solid);
                count_corner += (uint64_t)__builtin_popcountll(corner);
                count_edge += (uint64_t)__builtin_popcountll(edge);
                columns[MASK_SOLID][w] |= solid;
                columns[MASK_CORNER][w] |= corner;
                columns[MASK_EDGE][w] |= edge;
                columns[MASK_SOLID_NOT_CORNER][w] |= solid & ~corner;
                any[MASK_SOLID] |= solid;
                any[MASK_CORNER] |= corner;
                any[MASK_EDGE] |= edge;
                any[MASK_SOLID_NOT_CORNER] |= solid & ~corner;
            }
            for (uint32_t k = 0; k < 4; ++k) {
                if (!any[k])
                    continue;
                vxk_int_box* b = &out->box[k];
                b->min.y = VXK_MIN(b->min.y, y);
                b->max.y = VXK_MAX(b->max.y, y);
                b->min.z = VXK_MIN(b->min.z, z);
                b->max.z = VXK_MAX(b->max.z, z);
            }
        }
    out->count[MASK_SOLID] = count_solid;
    out->count[MASK_CORNER] = count_corner;
    out->count[MASK_EDGE] = count_edge;
    out->count[MASK_SOLID_NOT_CORNER] = count_solid - count_corner;
    for (uint32_t k = 0; k < 4; ++k)
        for (uint32_t w = w0; w <= w1; ++w) {
            const uint64_t bits = columns[k][w];
            if (!bits)
                continue;
            vxk_int_box* b = &out->box[k];
            b->min.x = VXK_MIN(b->min.x, (int32_t)(w * 64) + __builtin_ctzll(bits));
            b->max.x = VXK_MAX(b->max.x, (int32_t)(w * 64) + 63 - __builtin_clzll(bits));
        }
}

// The bounding box of v's solid voxels in region (empty: none).
static vxk_int_box solid_box(const vxk_voxel_view* v, vxk_int_box region)
{
    vxk_int_box box = {{INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}};
    if (box_empty(region))
        return box;
    const uint32_t w0 = (uint32_t)region.min.x >> 6, w1 = (uint32_t)region.max.x >> 6;
    uint64_t columns[VXK_VOXEL_VIEW_MAX_SIZE / 64] = {0};
    uint64_t span[VXK_VOXEL_VIEW_MAX_SIZE / 64];
    span_masks(span, region.min.x, region.max.x);
    for (int32_t y = region.min.y; y <= region.max.y; ++y) {
        size_t row = row_at(v, y, region.min.z);
        for (int32_t z = region.min.z; z <= region.max.z; ++z, row += v->words) {
            uint64_t any = 0;
            for (uint32_t w = w0; w <= w1; ++w) {
                const uint64_t bits = v->solid[row + w] & span[w - w0];
                columns[w] |= bits;
                any |= bits;
            }
            if (any) {
                box.min.y = VXK_MIN(box.min.y, y);
                box.max.y = y;
                box.min.z = VXK_MIN(box.min.z, z);
                box.max.z = VXK_MAX(box.max.z, z);
            }
        }
    }
    for (uint32_t w = w0; w <= w1; ++w)
        if (columns[w]) {
            box.min.x = VXK_MIN(box.min.x, (int32_t)(w * 64) + __builtin_ctzll(columns[w]));
            box.max.x = VXK_MAX(box.max.x, (int32_t)(w * 64) + 63 - __builtin_clzll(columns[w]));
        }
    return box;
}

static inline vxk_int_box box_intersect(vxk_int_box a, vxk_int_box b)
{
    return (vxk_int_box){
        {VXK_MAX(a.min.x, b.min.x), VXK_MAX(a.min.y, b.min.y), VXK_MAX(a.min.z, b.min.z)},
        {VXK_MIN(a.max.x, b.max.x), VXK_MIN(a.max.y, b.max.y), VXK_MIN(a.max.z, b.max.z)}};
}

// The voxels of f whose centres lie in [lo, hi] (continuous voxel coordinates), within f's
// active box.
static vxk_int_box centres_within(const frame* f, vxk_vec3 lo, vxk_vec3 hi)
{
    vxk_int_box a = f->v->active;
    return (vxk_int_box){
        {VXK_MAX(a.min.x, clamp_ceil(lo.x - 0.5f)), VXK_MAX(a.min.y, clamp_ceil(lo.y - 0.5f)),
         VXK_MAX(a.min.z, clamp_ceil(lo.z - 0.5f))},
        {VXK_MIN(a.max.x, clamp_floor(hi.x - 0.5f)), VXK_MIN(a.max.y, clamp_floor(hi.y - 0.5f)),
         VXK_MIN(a.max.z, clamp_floor(hi.z - 0.5f))}};
}

// The voxels of p that may come within the margin of q's voxels in box: the box in p's voxel
// space (its centre mapped, its half extents through the absolute rotation between the grids),
// grown by half a voxel and the margin (a gap along p's axes is measured from p's voxel faces).
static vxk_int_box box_in(const frame* p, const frame* q, vxk_int_box box, float margin)
{
    vxk_vec3 lo = {q->origin.x + (float)box.min.x * q->s, q->origin.y + (float)box.min.y * q->s,
                   q->origin.z + (float)box.min.z * q->s};
    vxk_vec3 hi = {q->origin.x + (float)(box.max.x + 1) * q->s,
                   q->origin.y + (float)(box.max.y + 1) * q->s,
                   q->origin.z + (float)(box.max.z + 1) * q->s};
    vxk_vec3 centre = vxk_v3_scale(vxk_v3_add(lo, hi), 0.5f);
    vxk_vec3 half = vxk_v3_scale(vxk_v3_sub(hi, lo), 0.5f * p->inv_s);
    vxk_vec3 m = to_voxel(p, vxk_v3_add(q->pos, vxk_mat3_mul_v(&q->r, centre)));
    const vxk_vec3 qa[3] = {q->r.cx, q->r.cy, q->r.cz};
    const vxk_vec3 pa[3] = {p->r.cx, p->r.cy, p->r.cz};
    float reach[3];
    for (uint32_t i = 0; i < 3; ++i)
        reach[i] = fabsf(vxk_v3_dot(pa[i], qa[0])) * half.x +
                   fabsf(vxk_v3_dot(pa[i], qa[1])) * half.y +
                   fabsf(vxk_v3_dot(pa[i], qa[2])) * half.z;
    // (Rounding: RANGE_SLACK, and a part in 10^5 of the coordinates.)
    float grow = 0.5f + margin * p->inv_s + RANGE_SLACK +
                 1e-5f * (fabsf(m.x) + fabsf(m.y) + fabsf(m.z) + reach[0] + reach[1] + reach[2]);
    return centres_within(
        p, vxk_v3(m.x - reach[0] - grow, m.y - reach[1] - grow, m.z - reach[2] - grow),
        vxk_v3(m.x + reach[0] + grow, m.y + reach[1] + grow, m.z + reach[2] + grow));
}

// Voxel pair (a, b) with world centres pa, pb: the cubes within the margin along the 6 face axes,
// and the other's support region over some face of one of them along the face's axes (what a face
// pair needs) or across two axes of one (what a deep pair needs), go to the pair rules.
// Everything is computed from the pair in the caller's order, so the driving side changes no bit.
static inline void consider(pair_ctx* ctx, int32_t ax, int32_t ay, int32_t az, int32_t bx,
                            int32_t by, int32_t bz, vxk_vec3 pa, vxk_vec3 pb)
{
    const cube_rules* cube = &ctx->cube;
    vxk_vec3 d = vxk_v3_sub(pb, pa);
    float proj[2][3], gap[2][3];
    bool apart = false;
    uint32_t across[2] = {0, 0};
    for (uint32_t o = 0; o < 2; ++o)
        for (uint32_t k = 0; k < 3; ++k) {
            proj[o][k] = vxk_v3_dot(d, cube->axis[o][k]);
            gap[o][k] = fabsf(proj[o][k]) - cube->half[o] - cube->extent[o][k];
            apart |= !(gap[o][k] <= ctx->margin);
            across[o] += gap[o][k] < -cube->tol;
        }
    if (apart)
        return;
    // A face of o passes face_tangents only along both of its tangent axes.
    uint32_t along[2] = {0, 0};
    for (uint32_t o = 0; o < 2; ++o)
        for (uint32_t k = 0; k < 3; ++k)
            along[o] += proj[o][k] >= cube->along_lo[o][k] && proj[o][k] <= cube->along_hi[o][k];
    if (along[0] < 2 && along[1] < 2 && across[0] < 2 && across[1] < 2)
        return;
    // A deep pair needs overlap across two axes of its Inside voxel; a face pair, one of the
    // voxels' exposed faces that the other's support region may meet.
    const vxk_voxel_view* va = ctx->fa.v;
    const vxk_voxel_view* vb = ctx->fb.v;
    uint8_t ta = va->types[voxel_index(va, ax, ay, az)];
    uint8_t tb = vb->types[voxel_index(vb, bx, by, bz)];
    bool possible = (vxk_voxel_type_of(ta) == VXK_VOXEL_INSIDE && across[0] >= 2) ||
                    (vxk_voxel_type_of(tb) == VXK_VOXEL_INSIDE && across[1] >= 2);
    uint32_t ea = exposure_of(va, ax, ay, az), eb = exposure_of(vb, bx, by, bz);
    for (uint32_t open = ea | eb << 6; open && !possible; open &= open - 1) {
        uint32_t f = (uint32_t)__builtin_ctz(open), i = f % 6;
        float centre[2], mid[2];
        possible = face_tangents(cube, f / 6, i % 3, i < 3 ? 1.0f : -1.0f, proj, centre, mid);
    }
    if (possible)
        evaluate_pair(ctx, ax, ay, az, bx, by, bz, pa, pb, proj, gap, ta, tb, ea, eb);
}

// Whether q has voxels of kind in box.
static bool any_in(const vxk_voxel_view* q, const kind_rows* kind, vxk_int_box box)
{
    if (box_empty(box))
        return false;
    const uint32_t w0 = (uint32_t)box.min.x >> 6, w1 = (uint32_t)box.max.x >> 6;
    uint64_t span[VXK_VOXEL_VIEW_MAX_SIZE / 64];
    span_masks(span, box.min.x, box.max.x);
    for (int32_t y = box.min.y; y <= box.max.y; ++y) {
        size_t row = row_at(q, y, box.min.z);
        for (int32_t z = box.min.z; z <= box.max.z; ++z, row += q->words)
            for (uint32_t w = w0; w <= w1; ++w)
                if (kind_word(kind, row + w) & span[w - w0])
                    return true;
    }
    return false;
}

// The cells of q (within clip) whose centres are within range of the continuous voxel
// coordinates m (lo..hi when a span), along q's axes.
static inline vxk_int_box lookup_box(vxk_vec3 lo, vxk_vec3 hi, const float range[3],
                                     vxk_int_box clip)
{
    return (vxk_int_box){{VXK_MAX(clip.min.x, clamp_ceil(lo.x - 0.5f - range[0])),
                          VXK_MAX(clip.min.y, clamp_ceil(lo.y - 0.5f - range[1])),
                          VXK_MAX(clip.min.z, clamp_ceil(lo.z - 0.5f - range[2]))},
                         {VXK_MIN(clip.max.x, clamp_floor(hi.x - 0.5f + range[0])),
                          VXK_MIN(clip.max.y, clamp_floor(hi.y - 0.5f + range[1])),
                          VXK_MIN(clip.max.z, clamp_floor(hi.z - 0.5f + range[2]))}};
}

// Driving voxels are taken in runs of up to this many along a row: a run whose lookups, together,
// find none of the other side's voxels is skipped whole.
#define RUN_VOXELS 8
// The run's lookup is grown by this many voxels over its ends' (the mapping is affine; this
// covers its rounding).
#define RUN_SLACK 1e-3f

// One test of the type rule: p's voxels of kind_p in region drive, each looking up q's voxels of
// kind_q (within q_box) whose cubes are within the margin along q's axes. p_is_a: p is the
// caller's A.
static void run_test(pair_ctx* ctx, bool p_is_a, uint32_t kind_p, uint32_t kind_q,
                     vxk_int_box region, vxk_int_box q_box)
{
    const frame* p = p_is_a ? &ctx->fa : &ctx->fb;
    const frame* q = p_is_a ? &ctx->fb : &ctx->fa;
    const vxk_voxel_view* pv = p->v;
    const vxk_voxel_view* qv = q->v;
    const kind_rows p_rows = rows_of(pv, kind_p), q_rows = rows_of(qv, kind_q);
    const float* range = ctx->cube.range[p_is_a ? 1 : 0];
    const float run_range[3] = {range[0] + RUN_SLACK, range[1] + RUN_SLACK, range[2] + RUN_SLACK};
    const uint32_t w0 = (uint32_t)region.min.x >> 6, w1 = (uint32_t)region.max.x >> 6;
    uint64_t span[VXK_VOXEL_VIEW_MAX_SIZE / 64], q_span[VXK_VOXEL_VIEW_MAX_SIZE / 64];
    span_masks(span, region.min.x, region.max.x);
    for (int32_t y = region.min.y; y <= region.max.y; ++y) {
        for (int32_t z = region.min.z; z <= region.max.z; ++z) {
            size_t row = row_at(pv, y, z);
            for (uint32_t w = w0; w <= w1; ++w) {
                uint64_t bits = kind_word(&p_rows, row + w) & span[w - w0];
                while (bits) {
                    // A run: the set bits within RUN_VOXELS of the first.
                    uint32_t first = (uint32_t)__builtin_ctzll(bits);
                    uint64_t run = first + RUN_VOXELS >= 64
                                       ? bits
                                       : bits & (((1ull << RUN_VOXELS) - 1) << first);
                    bits &= ~run;
                    uint32_t last = 63u - (uint32_t)__builtin_clzll(run);
                    if (run & (run - 1)) {
                        vxk_vec3 m0 = to_voxel(q, voxel_centre(p, (int32_t)(w * 64 + first), y, z));
                        vxk_vec3 m1 = to_voxel(q, voxel_centre(p, (int32_t)(w * 64 + last), y, z));
                        if (!any_in(qv, &q_rows,
                                    lookup_box(vxk_v3_min(m0, m1), vxk_v3_max(m0, m1), run_range,
                                               q_box)))
                            continue;
                    }
                    for (; run; run &= run - 1) {
                        int32_t x = (int32_t)(w * 64) + __builtin_ctzll(run);
                        vxk_vec3 pw = voxel_centre(p, x, y, z);
                        vxk_vec3 m = to_voxel(q, pw);
                        vxk_int_box look = lookup_box(m, m, range, q_box);
                        if (box_empty(look))
                            continue;
                        const uint32_t qw0 = (uint32_t)look.min.x >> 6;
                        const uint32_t qw1 = (uint32_t)look.max.x >> 6;
                        span_masks(q_span, look.min.x, look.max.x);
                        for (int32_t qy = look.min.y; qy <= look.max.y; ++qy) {
                            size_t qrow = row_at(qv, qy, look.min.z);
                            for (int32_t qz = look.min.z; qz <= look.max.z;
                                 ++qz, qrow += qv->words) {
                                for (uint32_t qw = qw0; qw <= qw1; ++qw) {
                                    uint64_t qbits =
                                        kind_word(&q_rows, qrow + qw) & q_span[qw - qw0];
                                    for (; qbits; qbits &= qbits - 1) {
                                        int32_t qx = (int32_t)(qw * 64) + __builtin_ctzll(qbits);
                                        vxk_vec3 qc = voxel_centre(q, qx, qy, qz);
                                        if (p_is_a)
                                            consider(ctx, x, y, z, qx, qy, qz, pw, qc);
                                        else
                                            consider(ctx, qx, qy, qz, x, y, z, qc, pw);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

// Every active voxel of A of kind_a against every active voxel of B of kind_b (the search's
// check and benchmark).
static void run_all_pairs(pair_ctx* ctx, uint32_t kind_a, uint32_t kind_b)
{
    const vxk_voxel_view* va = ctx->fa.v;
    const vxk_voxel_view* vb = ctx->fb.v;
    const vxk_int_box ra = va->active, rb = vb->active;
    for (int32_t ay = ra.min.y; ay <= ra.max.y; ++ay)
        for (int32_t az = ra.min.z; az <= ra.max.z; ++az)
            for (int32_t ax = ra.min.x; ax <= ra.max.x; ++ax) {
                if (!((mask_word(va, kind_a, row_at(va, ay, az) + ((uint32_t)ax >> 6)) >>
                       (ax & 63)) &
                      1u))
                    continue;
                vxk_vec3 pa = voxel_centre(&ctx->fa, ax, ay, az);
                for (int32_t by = rb.min.y; by <= rb.max.y; ++by)
                    for (int32_t bz = rb.min.z; bz <= rb.max.z; ++bz)
                        for (int32_t bx = rb.min.x; bx <= rb.max.x; ++bx)
                            if ((mask_word(vb, kind_b, row_at(vb, by, bz) + ((uint32_t)bx >> 6)) >>
                                 (bx & 63)) &
                                1u)
                                consider(ctx, ax, ay, az, bx, by, bz, pa,
                                         voxel_centre(&ctx->fb, bx, by, bz));
            }
}

// Separating-axis test of the two active boxes on their 6 face axes: true when one separates them
// by more than margin. (The pair rule's own test is on the voxels' face axes, and a box holds its
// voxels, so no admitted pair is ever culled here; the edge axes would cull pairs the rule admits.)
static bool boxes_separated(const frame* a, const frame* b, float margin)
{
    vxk_vec3 ca[2], ha[2];
    const frame* f[2] = {a, b};
    vxk_vec3 axes[2][3];
    for (int i = 0; i < 2; ++i) {
        vxk_int_box box = f[i]->v->active;
        vxk_vec3 lo = {f[i]->origin.x + (float)box.min.x * f[i]->s,
                       f[i]->origin.y + (float)box.min.y * f[i]->s,
                       f[i]->origin.z + (float)box.min.z * f[i]->s};
        vxk_vec3 hi = {f[i]->origin.x + (float)(box.max.x + 1) * f[i]->s,
                       f[i]->origin.y + (float)(box.max.y + 1) * f[i]->s,
                       f[i]->origin.z + (float)(box.max.z + 1) * f[i]->s};
        ca[i] =
            vxk_v3_add(f[i]->pos, vxk_mat3_mul_v(&f[i]->r, vxk_v3_scale(vxk_v3_add(lo, hi), 0.5f)));
        ha[i] = vxk_v3_scale(vxk_v3_sub(hi, lo), 0.5f);
        axes[i][0] = f[i]->r.cx;
        axes[i][1] = f[i]->r.cy;
        axes[i][2] = f[i]->r.cz;
    }
    vxk_vec3 d = vxk_v3_sub(ca[1], ca[0]);
    // A little slack: the test only culls, the pairs decide.
    float slack = margin + 1e-4f * (a->s + b->s);
    for (uint32_t k = 0; k < 6; ++k) {
        vxk_vec3 axis = axes[k / 3][k % 3];
        float ra = 0.0f, rb = 0.0f;
        for (int i = 0; i < 3; ++i) {
            ra += fabsf(vxk_v3_dot(axes[0][i], axis)) * vxk_v3_get(ha[0], (uint32_t)i);
            rb += fabsf(vxk_v3_dot(axes[1][i], axis)) * vxk_v3_get(ha[1], (uint32_t)i);
        }
        if (fabsf(vxk_v3_dot(d, axis)) - ra - rb > slack)
            return true;
    }
    return false;
}

static float box_volume(vxk_int_box b)
{
    return (float)(b.max.x - b.min.x + 1) * (float)(b.max.y - b.min.y + 1) *
           (float)(b.max.z - b.min.z + 1);
}

// The three tests of the type rule, each driven by the cheaper side (or the forced one), each
// over the voxels of its kinds that may reach the other's.
static void collide_views(pair_ctx* ctx, uint32_t flags)
{
    if (box_empty(ctx->fa.v->active) || box_empty(ctx->fb.v->active))
        return;
    static const uint32_t tests[3][2] = {
        {MASK_CORNER, MASK_SOLID}, {MASK_SOLID_NOT_CORNER, MASK_CORNER}, {MASK_EDGE, MASK_EDGE}};
    if (flags & VXK_VOXEL_ALL_PAIRS) {
        cube_rules_init(&ctx->cube, &ctx->fa, &ctx->fb, ctx->margin);
        for (uint32_t t = 0; t < 3; ++t)
            run_all_pairs(ctx, tests[t][0], tests[t][1]);
        return;
    }
    if (boxes_separated(&ctx->fa, &ctx->fb, ctx->margin))
        return;
    const float margin = ctx->margin;
    vxk_int_box region_a = box_in(&ctx->fa, &ctx->fb, ctx->fb.v->active, margin);
    vxk_int_box region_b = box_in(&ctx->fb, &ctx->fa, ctx->fa.v->active, margin);
    // Each side's voxels in its region bound the other's region, in turn: shapes whose boxes
    // overlap but whose voxels do not come near stop here.
    kind_boxes ka, kb;
    region_a = solid_box(ctx->fa.v, region_a);
    if (box_empty(region_a))
        return;
    scan_kinds(ctx->fb.v, box_intersect(region_b, box_in(&ctx->fb, &ctx->fa, region_a, margin)),
               &kb);
    region_b = kb.box[MASK_SOLID];
    if (box_empty(region_b))
        return;
    scan_kinds(ctx->fa.v, box_intersect(region_a, box_in(&ctx->fa, &ctx->fb, region_b, margin)),
               &ka);
    region_a = ka.box[MASK_SOLID];
    if (box_empty(region_a))
        return;
    cube_rules_init(&ctx->cube, &ctx->fa, &ctx->fb, ctx->margin);
    // Cells a driving voxel reads in the other grid: many when the other's voxels are smaller.
    const cube_rules* cube = &ctx->cube;
    const float volume_a = box_volume(region_a), volume_b = box_volume(region_b);
    for (uint32_t t = 0; t < 3; ++t) {
        const uint32_t kind_a = tests[t][0], kind_b = tests[t][1];
        uint64_t na = ka.count[kind_a], nb = kb.count[kind_b];
        if (!na || !nb)
            continue;
        // Each side's voxels of its kind that may reach the other side's.
        vxk_int_box sub_a =
            box_intersect(ka.box[kind_a], box_in(&ctx->fa, &ctx->fb, kb.box[kind_b], margin));
        vxk_int_box sub_b =
            box_intersect(kb.box[kind_b], box_in(&ctx->fb, &ctx->fa, ka.box[kind_a], margin));
        if (box_empty(sub_a) || box_empty(sub_b))
            continue;
        bool from_a;
        if (flags & VXK_VOXEL_ITERATE_A) {
            from_a = true;
        } else if (flags & VXK_VOXEL_ITERATE_B) {
            from_a = false;
        } else {
            // Instructions per driving voxel, roughly: its setup, the rows it reads, and a
            // candidate pair per set bit (the other side's density in its region).
            float per_a = DRIVE_COST + ROW_COST * cube->rows[1] +
                          PAIR_COST * cube->cells[1] * (float)nb / volume_b;
            float per_b = DRIVE_COST + ROW_COST * cube->rows[0] +
                          PAIR_COST * cube->cells[0] * (float)na / volume_a;
            from_a = (float)na * per_a <= (float)nb * per_b;
        }
        if (from_a)
            run_test(ctx, true, kind_a, kind_b, sub_a, sub_b);
        else
            run_test(ctx, false, kind_b, kind_a, sub_b, sub_a);
    }
}

static bool pair_setup(pair_ctx* ctx, const vxk_voxel_view* a, const vxk_voxel_view* b,
                       float margin)
{
    if (!vxk_voxel_view_usable(a) || !vxk_voxel_view_usable(b) || !vxk_is_finite(margin))
        return false;
    ctx->margin = margin > 0.0f ? margin : 0.0f;
    vxk_voxel_frame_init(&ctx->fa, a);
    vxk_voxel_frame_init(&ctx->fb, b);
    return true;
}

uint32_t vxk_collide_voxels(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* scratch,
                            const vxk_voxel_view* a, const vxk_voxel_view* b, float margin,
                            uint32_t flags)
{
    if (!out)
        return 0;
    out->count = 0;
    pair_ctx ctx;
    if (!scratch || !pair_setup(&ctx, a, b, margin))
        return 0;
    ctx.pairs = NULL;
    ctx.capacity = ctx.count = 0;
    ctx.scratch = scratch;
    scratch_reset(scratch);
    collide_views(&ctx, flags);
    return vxk_voxel_finish_manifolds(out, scratch, a, b);
}

uint32_t vxk_voxel_pairs(vxk_voxel_pair* out, uint32_t capacity, const vxk_voxel_view* a,
                         const vxk_voxel_view* b, float margin, uint32_t flags)
{
    pair_ctx ctx;
    if (!pair_setup(&ctx, a, b, margin))
        return 0;
    ctx.pairs = out;
    ctx.capacity = out ? capacity : 0;
    ctx.count = 0;
    ctx.scratch = NULL;
    collide_views(&ctx, flags);
    return ctx.count;
}
