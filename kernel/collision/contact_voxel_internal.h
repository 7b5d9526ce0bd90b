// contact_voxel_internal.h: what the voxel contact files share (contact_voxel_view.c,
// contact_voxel.c, contact_voxel_manifold.c, contact_voxel_primitive.c; the rules are
// contact_voxel.h's, after seed 003): a view's bit rows and bytes read in place, the frame that
// places a view in the world for one call, and the clusters that gather points into manifolds.
#ifndef VXK_CONTACT_VOXEL_INTERNAL_H
#define VXK_CONTACT_VOXEL_INTERNAL_H

#include "contact_voxel.h"
#include "core.h"

#include <math.h>

// Offsets of the 6 face directions, in normal-index order.
static const int8_t k_face_offset[6][3] = {{1, 0, 0},  {0, 1, 0},  {0, 0, 1},
                                           {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};

// ---- views (contact_voxel_view.c) ------------------------------------------------------------

static inline size_t row_at(const vxk_voxel_view* v, int32_t y, int32_t z)
{
    return ((size_t)y * (size_t)v->size.z + (size_t)z) * v->words;
}

static inline size_t voxel_index(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    return (size_t)x + (size_t)v->size.x * ((size_t)z + (size_t)v->size.z * (size_t)y);
}

static inline bool inside_grid(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    return x >= 0 && y >= 0 && z >= 0 && x < v->size.x && y < v->size.y && z < v->size.z;
}

// Whether a cell of a region lies past the end of the int32 voxel range, where no terrain is.
static inline bool beyond_voxel_range(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    const int64_t p[3] = {(int64_t)v->base.x + x, (int64_t)v->base.y + y, (int64_t)v->base.z + z};
    return p[0] < INT32_MIN || p[0] > INT32_MAX || p[1] < INT32_MIN || p[1] > INT32_MAX ||
           p[2] < INT32_MIN || p[2] > INT32_MAX;
}

// Occupancy of any cell: outside the grid a body is empty; a region is solid (only the Inside
// exits and edge classes read there), but past the end of the int32 voxel range.
static inline bool solid_at(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    if (!inside_grid(v, x, y, z))
        return v->region && !beyond_voxel_range(v, x, y, z);
    return (v->solid[row_at(v, y, z) + ((uint32_t)x >> 6)] >> (x & 63)) & 1u;
}

// The exposure of a solid voxel (of a region: an inner one), as its view keeps it.
static inline uint32_t exposure_of(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    return v->open[voxel_index(v, x, y, z)];
}

static inline bool box_empty(vxk_int_box b)
{
    return b.max.x < b.min.x || b.max.y < b.min.y || b.max.z < b.min.z;
}

// Bits of word w for x in [x0, x1].
static inline uint64_t span_bits(int32_t x0, int32_t x1, uint32_t w)
{
    int32_t lo = x0 - (int32_t)(w * 64), hi = x1 - (int32_t)(w * 64);
    uint64_t m = ~0ull;
    if (lo > 0)
        m &= ~0ull << lo;
    if (hi < 63)
        m &= ~0ull >> (63 - hi);
    return m;
}

// span_bits of each word w of [x0, x1] (x0 <= x1), at masks[w - (x0 >> 6)]: rows are read by
// the same words row after row.
static inline void span_masks(uint64_t masks[VXK_VOXEL_VIEW_MAX_SIZE / 64], int32_t x0, int32_t x1)
{
    for (uint32_t w = (uint32_t)x0 >> 6; w <= (uint32_t)x1 >> 6; ++w)
        masks[w - ((uint32_t)x0 >> 6)] = span_bits(x0, x1, w);
}

// Whether a view can take part in a call: storage, size, voxel size and pose usable.
bool vxk_voxel_view_usable(const vxk_voxel_view* v);

// ---- frames (contact_voxel_view.c) -----------------------------------------------------------

// A view placed in the world for one call.
typedef struct frame {
    const vxk_voxel_view* v;
    vxk_mat3 r;
    vxk_vec3 pos, origin;
    float s, inv_s;
    vxk_vec3 centre0;                     // world centre of voxel (0,0,0)
    vxk_vec3 step[3];                     // world offset of one voxel along x, y, z
    vxk_vec3 dir[VXK_VOXEL_NORMAL_COUNT]; // lookup directions in world, as they are asked for
    uint32_t dir_known;                   // bit k: dir[k] is set
} frame;

void vxk_voxel_frame_init(frame* f, const vxk_voxel_view* v);

// Lookup direction k (< VXK_VOXEL_NORMAL_COUNT) in world.
static inline vxk_vec3 frame_dir(frame* f, uint32_t k)
{
    if (!(f->dir_known >> k & 1u)) {
        f->dir[k] = vxk_mat3_mul_v(&f->r, vxk_voxel_normal_dir(k));
        f->dir_known |= 1u << k;
    }
    return f->dir[k];
}

// The world centre of voxel (x, y, z): the one formula every role uses, so a pair's centres do not
// depend on which side found it.
static inline vxk_vec3 voxel_centre(const frame* f, int32_t x, int32_t y, int32_t z)
{
    float fx = (float)x, fy = (float)y, fz = (float)z;
    return (vxk_vec3){f->centre0.x + fx * f->step[0].x + fy * f->step[1].x + fz * f->step[2].x,
                      f->centre0.y + fx * f->step[0].y + fy * f->step[1].y + fz * f->step[2].y,
                      f->centre0.z + fx * f->step[0].z + fy * f->step[1].z + fz * f->step[2].z};
}

// World point to continuous voxel coordinates of f (voxel i spans [i, i + 1)).
static inline vxk_vec3 to_voxel(const frame* f, vxk_vec3 w)
{
    vxk_vec3 l = vxk_mat3_tmul_v(&f->r, vxk_v3_sub(w, f->pos));
    return vxk_v3_scale(vxk_v3_sub(l, f->origin), f->inv_s);
}

// floor(x) as int32, saturated far outside any grid (and for NaN).
static inline int32_t clamp_floor(float x)
{
    if (!(x > -1e7f))
        return -10000000;
    if (!(x < 1e7f))
        return 10000000;
    return (int32_t)floorf(x);
}

static inline int32_t clamp_ceil(float x)
{
    return -clamp_floor(-x);
}

// A voxel's lookup normal index: its byte's, or for a region's Inside voxel its walked exit.
uint32_t vxk_voxel_lookup_index(const vxk_voxel_view* v, uint8_t byte, vxk_int3 voxel);

// Feature id of voxel v (absolute coordinates) and what it touches (the other voxel, or a
// primitive's face and point feature), hashed.
static inline uint32_t voxel_feature(vxk_int3 v, const void* other, size_t other_bytes)
{
    uint64_t h = vxk_hash_bytes(VXK_HASH_SEED, &v, sizeof(v));
    h = vxk_hash_bytes(h, other, other_bytes);
    return (uint32_t)(h ^ h >> 32);
}

static inline uint64_t pack_voxel(int32_t x, int32_t y, int32_t z)
{
    return (uint64_t)x | (uint64_t)y << 8 | (uint64_t)z << 16;
}

// ---- clusters (contact_voxel_manifold.c) -----------------------------------------------------

static inline void scratch_reset(vxk_voxel_contact_scratch* s)
{
    s->used = 0;
    s->slots = 0;
}

// Adds a point to the slot of its key (voxel pairs: the normal's identity).
void vxk_voxel_keyed_add(vxk_voxel_contact_scratch* s, uint32_t slot, vxk_vec3 normal,
                         const vxk_voxel_candidate* p);
// Adds a point to the first slot whose normal is within CLUSTER_COS (0.999; primitives: normals are
// not from a fixed set); a new slot otherwise, or, with every slot taken, the shallowest one when
// this point is deeper.
void vxk_voxel_greedy_add(vxk_voxel_contact_scratch* s, vxk_vec3 normal,
                          const vxk_voxel_candidate* p);
// Merges the used slots (in slot order) by normal, keeps the 4 deepest groups and reduces each to
// 4 points. A candidate's key names A's voxel in bits 24-47 and B's (voxel pairs) in bits 0-23.
// b: NULL for a primitive (the candidates' features are kept).
uint32_t vxk_voxel_finish_manifolds(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* s,
                                    const vxk_voxel_view* a, const vxk_voxel_view* b);

#endif
