// contact_voxel_manifold.c: the manifolds of contact_voxel.h after seed 003 (the voxel-physics
// article: "Contact generation"): points join clusters by normal, clusters whose normals agree
// merge, and the deepest groups are reduced to 4 points each (vxk_manifold_reduce).
//
// Beyond the article:
// - Clusters keep, instead of a list, the deepest point and the extreme points along 8 tangent
//   directions (ties by the pair's key): a commutative choice, so the result does not depend on
//   the order pairs are found in, memory is fixed and no intermediate reduction loses a corner.
//   The tangent directions are turned pi / 8 from the cluster's axes so that the extremes of an
//   axis-aligned rectangle are its corners, not whole edges of equal value.
#include "contact_voxel_internal.h"

// Normals within this cosine share a manifold (as the narrowphase's clusters).
#define CLUSTER_COS 0.999f
// The tangent directions of the extremes are turned pi / 8 from the cluster's axes: no direction
// is perpendicular to an axis-aligned edge, and the set of 8 is the same for n and -n (the
// tangent basis of -n is mirrored), so a flipped pair of shapes keeps the same extremes.
#define TANGENT_TURN 0.39269908f

static void cluster_start(vxk_voxel_cluster* c, vxk_vec3 normal, const vxk_voxel_candidate* p)
{
    c->normal = normal;
    // Tangent basis: the world axis least aligned with the normal (lowest index on ties), crossed.
    vxk_vec3 a = vxk_v3_abs(normal);
    vxk_vec3 e = a.x <= a.y && a.x <= a.z ? vxk_v3(1, 0, 0)
                 : a.y <= a.z             ? vxk_v3(0, 1, 0)
                                          : vxk_v3(0, 0, 1);
    vxk_vec3 t1 = vxk_v3_normalize(vxk_v3_cross(normal, e));
    vxk_vec3 t2 = vxk_v3_cross(normal, t1);
    for (uint32_t k = 0; k < 4; ++k) {
        float angle = TANGENT_TURN + 0.78539816f * (float)k;
        c->tangent[k] = vxk_v3_add(vxk_v3_scale(t1, cosf(angle)), vxk_v3_scale(t2, sinf(angle)));
        float v = vxk_v3_dot(p->point, c->tangent[k]);
        c->extreme[2 * k] = v;
        c->extreme[2 * k + 1] = v;
    }
    for (uint32_t k = 0; k < 9; ++k)
        c->keep[k] = *p;
}

static inline bool deeper(const vxk_voxel_candidate* p, const vxk_voxel_candidate* q)
{
    return p->separation < q->separation || (p->separation == q->separation && p->key < q->key);
}

static void cluster_add(vxk_voxel_cluster* c, const vxk_voxel_candidate* p)
{
    if (deeper(p, &c->keep[0]))
        c->keep[0] = *p;
    for (uint32_t k = 0; k < 4; ++k) {
        float v = vxk_v3_dot(p->point, c->tangent[k]);
        vxk_voxel_candidate* hi = &c->keep[1 + 2 * k];
        vxk_voxel_candidate* lo = &c->keep[2 + 2 * k];
        if (v > c->extreme[2 * k] || (v == c->extreme[2 * k] && deeper(p, hi))) {
            c->extreme[2 * k] = v;
            *hi = *p;
        }
        if (v < c->extreme[2 * k + 1] || (v == c->extreme[2 * k + 1] && deeper(p, lo))) {
            c->extreme[2 * k + 1] = v;
            *lo = *p;
        }
    }
}

void vxk_voxel_keyed_add(vxk_voxel_contact_scratch* s, uint32_t slot, vxk_vec3 normal,
                         const vxk_voxel_candidate* p)
{
    uint64_t bit = 1ull << slot;
    if (s->used & bit) {
        cluster_add(&s->clusters[slot], p);
    } else {
        s->used |= bit;
        cluster_start(&s->clusters[slot], normal, p);
    }
}

void vxk_voxel_greedy_add(vxk_voxel_contact_scratch* s, vxk_vec3 normal,
                          const vxk_voxel_candidate* p)
{
    for (uint32_t i = 0; i < s->slots; ++i)
        if (vxk_v3_dot(s->clusters[i].normal, normal) >= CLUSTER_COS) {
            cluster_add(&s->clusters[i], p);
            return;
        }
    uint32_t slot = s->slots;
    if (slot == VXK_VOXEL_CLUSTERS) {
        slot = 0;
        for (uint32_t i = 1; i < s->slots; ++i)
            if (deeper(&s->clusters[slot].keep[0], &s->clusters[i].keep[0]))
                slot = i;
        if (!deeper(p, &s->clusters[slot].keep[0]))
            return;
    } else {
        s->slots++;
        s->used |= 1ull << slot;
    }
    cluster_start(&s->clusters[slot], normal, p);
}

uint32_t vxk_voxel_finish_manifolds(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* s,
                                    const vxk_voxel_view* a, const vxk_voxel_view* b)
{
    uint32_t group_of[VXK_VOXEL_CLUSTERS], leader[VXK_VOXEL_CLUSTERS], groups = 0;
    const vxk_voxel_candidate* group_deepest[VXK_VOXEL_CLUSTERS];
    for (uint64_t used = s->used; used; used &= used - 1) {
        uint32_t slot = (uint32_t)__builtin_ctzll(used);
        const vxk_voxel_cluster* c = &s->clusters[slot];
        uint32_t g = 0;
        while (g < groups && vxk_v3_dot(s->clusters[leader[g]].normal, c->normal) < CLUSTER_COS)
            ++g;
        if (g == groups) {
            leader[groups] = slot;
            group_deepest[groups++] = &c->keep[0];
        } else if (deeper(&c->keep[0], group_deepest[g])) {
            group_deepest[g] = &c->keep[0];
        }
        group_of[slot] = g;
    }
    // The 4 deepest groups, deepest first (ties to the lower group).
    uint32_t order[VXK_VOXEL_CLUSTERS];
    for (uint32_t g = 0; g < groups; ++g) {
        uint32_t j = g;
        for (; j > 0 && deeper(group_deepest[g], group_deepest[order[j - 1]]); --j)
            order[j] = order[j - 1];
        order[j] = g;
    }
    const float same = 1e-5f * a->voxel_size, same2 = same * same;
    out->count = 0;
    for (uint32_t k = 0; k < groups && k < VXK_VOXEL_MANIFOLDS; ++k) {
        uint32_t g = order[k];
        vxk_manifold_point* pts = s->reduce;
        uint64_t* keys = s->reduce_key;
        uint32_t n = 0;
        // Extremes first, the deepest points last: the reduction starts from the first point
        // within its tolerance of the deepest, so a flat contact starts from a corner of its hull
        // (then keeps hull corners only) and a deeper point still comes first. The extremes are
        // the group's, along its leader's directions: the pairs of a flat contact may split
        // between A's and B's face clusters, and a small cluster's extremes lie inside the hull.
        const vxk_voxel_cluster* lead = &s->clusters[leader[g]];
        const vxk_voxel_candidate* extreme[8] = {NULL};
        float value[8] = {0};
        for (uint64_t used = s->used; used; used &= used - 1) {
            uint32_t slot = (uint32_t)__builtin_ctzll(used);
            if (group_of[slot] != g)
                continue;
            for (uint32_t i = 0; i < 9; ++i) {
                const vxk_voxel_candidate* p = &s->clusters[slot].keep[i];
                for (uint32_t t = 0; t < 8; ++t) {
                    float v = vxk_v3_dot(p->point, lead->tangent[t / 2]);
                    v = t & 1 ? -v : v;
                    if (!extreme[t] || v > value[t] || (v == value[t] && deeper(p, extreme[t]))) {
                        extreme[t] = p;
                        value[t] = v;
                    }
                }
            }
        }
        for (uint32_t pass = 0; pass < 2; ++pass) {
            for (uint64_t used = s->used; used; used &= used - 1) {
                uint32_t slot = (uint32_t)__builtin_ctzll(used);
                if (group_of[slot] != g || (!pass && slot != leader[g]))
                    continue;
                for (uint32_t i = 0; i < (pass ? 1u : 8u); ++i) {
                    const vxk_voxel_candidate* p = pass ? &s->clusters[slot].keep[0] : extreme[i];
                    // One point per place: neighbouring faces under a sphere give the same one.
                    uint32_t j = 0;
                    while (j < n && keys[j] != p->key &&
                           !(vxk_v3_length_sq(vxk_v3_sub(pts[j].point, p->point)) <= same2 &&
                             fabsf(pts[j].separation - p->separation) <= same))
                        ++j;
                    if (j < n)
                        continue;
                    pts[n] = (vxk_manifold_point){p->point, p->separation, p->feature};
                    keys[n++] = p->key;
                }
            }
        }
        // Reduce with indices in the feature slot, so the kept points find their keys again.
        uint32_t* features = s->reduce_feature;
        for (uint32_t i = 0; i < n; ++i) {
            features[i] = pts[i].feature;
            pts[i].feature = i;
        }
        vxk_vec3 normal = s->clusters[leader[g]].normal;
        uint32_t kept = vxk_manifold_reduce(pts, n, normal);
        vxk_manifold* m = &out->manifolds[out->count];
        m->normal = normal;
        m->point_count = kept;
        for (uint32_t i = 0; i < kept; ++i) {
            uint32_t index = pts[i].feature;
            uint64_t key = keys[index];
            vxk_int3 va = {(int32_t)(key >> 24 & 0xFF) + a->base.x,
                           (int32_t)(key >> 32 & 0xFF) + a->base.y,
                           (int32_t)(key >> 40 & 0xFF) + a->base.z};
            vxk_int3 vb = {0, 0, 0};
            if (b)
                vb = (vxk_int3){(int32_t)(key & 0xFF) + b->base.x,
                                (int32_t)(key >> 8 & 0xFF) + b->base.y,
                                (int32_t)(key >> 16 & 0xFF) + b->base.z};
            m->points[i] = pts[i];
            // A voxel pair's id: its two voxels (hashed here, for the points kept only).
            m->points[i].feature = b ? voxel_feature(va, &vb, sizeof(vb)) : features[index];
            if (i == 0) {
                out->voxel_a[out->count] = va;
                out->voxel_b[out->count] = vb;
            }
        }
        out->count++;
    }
    return out->count;
}
