// contact_voxel.c: voxel contacts after seed 003 (the voxel-physics article): a box
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
// - Clusters keep, instead of a list, the deepest point and the extreme points along 8 tangent
//   directions (ties by the pair's key): a commutative choice, so the result does not depend on
//   the order pairs are found in, memory is fixed and no intermediate reduction loses a corner.
//   The tangent directions are turned pi / 8 from the cluster's axes so that the extremes of an
//   axis-aligned rectangle are its corners, not whole edges of equal value.
// - Primitives walk the bit rows, skipping Face voxels off the lines through the points that
//   matter (the sphere's centre, the box's vertices: a Face voxel's face claims only points over
//   it) and Inside voxels that hold none; a face is first culled by the face test's own first
//   rejections (its plane, a sphere's distance, a box's face axes; with slack, so they never decide
//   a case the test would not), and its edge classes are read only as far as the claim needs.
//   VXK_VOXEL_ALL_FACES turns all of it off, for the tests' bit-for-bit check.
#include "contact_voxel.h"

#include "core.h"

#include <float.h>
#include <string.h>

// Normals within this cosine share a manifold (as the narrowphase's clusters).
#define CLUSTER_COS 0.999f
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
// The tangent directions of the extremes are turned pi / 8 from the cluster's axes: no direction
// is perpendicular to an axis-aligned edge, and the set of 8 is the same for n and -n (the
// tangent basis of -n is mirrored), so a flipped pair of shapes keeps the same extremes.
#define TANGENT_TURN 0.39269908f

enum { MASK_SOLID, MASK_CORNER, MASK_EDGE, MASK_SOLID_NOT_CORNER };

static const int8_t k_face_offset[6][3] = {{1, 0, 0},  {0, 1, 0},  {0, 0, 1},
                                           {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};

// ---- views -----------------------------------------------------------------------------------

static bool size_ok(vxk_int3 s, int32_t least)
{
    return s.x >= least && s.y >= least && s.z >= least && s.x <= VXK_VOXEL_VIEW_MAX_SIZE &&
           s.y <= VXK_VOXEL_VIEW_MAX_SIZE && s.z <= VXK_VOXEL_VIEW_MAX_SIZE;
}

static size_t row_count(vxk_int3 s)
{
    return (size_t)s.y * (size_t)s.z * (((size_t)s.x + 63) / 64);
}

size_t vxk_voxel_view_storage_bytes(vxk_int3 size)
{
    if (!size_ok(size, 1))
        return 0;
    size_t voxels = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    return 5 * row_count(size) * sizeof(uint64_t) + 2 * ((voxels + 7) / 8 * 8);
}

static void view_layout(vxk_voxel_view* v, void* storage, vxk_int3 size)
{
    size_t rows = row_count(size);
    v->size = size;
    v->words = ((uint32_t)size.x + 63) / 64;
    v->solid = (uint64_t*)storage;
    v->corner = v->solid + rows;
    v->edge = v->corner + rows;
    v->face = v->edge + rows;
    v->inside = v->face + rows;
    v->types = (uint8_t*)(v->inside + rows);
    v->open = v->types + ((size_t)size.x * (size_t)size.y * (size_t)size.z + 7) / 8 * 8;
}

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

// Occupancy of any cell: outside the grid a body is empty; a region is solid (only the Inside
// exits read there).
static inline bool solid_at(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    if (!inside_grid(v, x, y, z))
        return v->region;
    return (v->solid[row_at(v, y, z) + ((uint32_t)x >> 6)] >> (x & 63)) & 1u;
}

// Bit i set when the face neighbour in normal-index direction i (0..5) is empty.
static uint32_t exposure(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    uint32_t pattern = 0;
    for (uint32_t i = 0; i < 6; ++i)
        pattern |= (uint32_t)!solid_at(v, x + k_face_offset[i][0], y + k_face_offset[i][1],
                                       z + k_face_offset[i][2])
                   << i;
    return pattern;
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

// Corner and Edge rows from the types of the voxels in box, and the active box: the solid voxels
// of box (none: max < min).
static void classify(vxk_voxel_view* v, vxk_int_box box)
{
    size_t rows = row_count(v->size);
    memset(v->corner, 0, 4 * rows * sizeof(uint64_t));
    vxk_int_box active = {{INT32_MAX, INT32_MAX, INT32_MAX}, {INT32_MIN, INT32_MIN, INT32_MIN}};
    uint64_t span[VXK_VOXEL_VIEW_MAX_SIZE / 64];
    const uint32_t w0 = (uint32_t)box.min.x >> 6;
    span_masks(span, box.min.x, box.max.x);
    for (int32_t y = box.min.y; y <= box.max.y; ++y) {
        for (int32_t z = box.min.z; z <= box.max.z; ++z) {
            size_t row = row_at(v, y, z);
            for (uint32_t w = w0; w <= (uint32_t)box.max.x >> 6; ++w) {
                uint64_t bits = v->solid[row + w] & span[w - w0];
                if (!bits)
                    continue;
                int32_t first = (int32_t)(w * 64) + __builtin_ctzll(bits);
                int32_t last = (int32_t)(w * 64) + 63 - __builtin_clzll(bits);
                active.min = (vxk_int3){VXK_MIN(active.min.x, first), VXK_MIN(active.min.y, y),
                                        VXK_MIN(active.min.z, z)};
                active.max = (vxk_int3){VXK_MAX(active.max.x, last), VXK_MAX(active.max.y, y),
                                        VXK_MAX(active.max.z, z)};
                for (; bits; bits &= bits - 1) {
                    int32_t x = (int32_t)(w * 64) + __builtin_ctzll(bits);
                    uint64_t bit = 1ull << (x & 63);
                    vxk_voxel_type t = vxk_voxel_type_of(v->types[voxel_index(v, x, y, z)]);
                    if (t == VXK_VOXEL_CORNER)
                        v->corner[row + w] |= bit;
                    else if (t == VXK_VOXEL_EDGE)
                        v->edge[row + w] |= bit;
                    else if (t == VXK_VOXEL_INSIDE)
                        v->inside[row + w] |= bit;
                    // (A region's types are its exposure's; a body's are checked.)
                    else if (t == VXK_VOXEL_FACE &&
                             (v->region || __builtin_popcount(exposure_of(v, x, y, z)) == 1))
                        v->face[row + w] |= bit;
                }
            }
        }
    }
    v->active = active;
}

vxk_status vxk_voxel_view_create(vxk_voxel_view* view, const vxk_voxel_grid* grid,
                                 const uint8_t solid[256], const uint8_t* types, float voxel_size,
                                 vxk_vec3 origin)
{
    if (!view || !grid || !grid->voxels || !solid)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!size_ok(grid->size, 1))
        return VXK_ERR_OUT_OF_RANGE;
    if (!vxk_is_finite(voxel_size) || !(voxel_size > 0.0f) || !vxk_vec3_is_finite(origin))
        return VXK_ERR_NOT_FINITE;
    size_t bytes = vxk_voxel_view_storage_bytes(grid->size);
    void* storage = vxk_calloc(bytes);
    if (!storage)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_voxel_view v;
    memset(&v, 0, sizeof(v));
    view_layout(&v, storage, grid->size);
    size_t n = (size_t)grid->size.x * (size_t)grid->size.y * (size_t)grid->size.z;
    if (types) {
        memcpy(v.types, types, n);
    } else {
        vxk_status status = vxk_voxel_types_compute(v.types, grid, solid);
        if (status != VXK_OK) {
            vxk_free(storage, bytes);
            return status;
        }
    }
    for (int32_t y = 0; y < v.size.y; ++y)
        for (int32_t z = 0; z < v.size.z; ++z) {
            uint64_t* row = v.solid + row_at(&v, y, z);
            const uint8_t* ids = grid->voxels + voxel_index(&v, 0, y, z);
            for (int32_t x = 0; x < v.size.x; ++x)
                row[x >> 6] |= (uint64_t)(solid[ids[x]] != 0) << (x & 63);
        }
    for (int32_t y = 0; y < v.size.y; ++y)
        for (int32_t z = 0; z < v.size.z; ++z)
            for (int32_t x = 0; x < v.size.x; ++x)
                if (solid_at(&v, x, y, z))
                    v.open[voxel_index(&v, x, y, z)] = (uint8_t)exposure(&v, x, y, z);
    classify(&v, (vxk_int_box){{0, 0, 0}, {v.size.x - 1, v.size.y - 1, v.size.z - 1}});
    v.voxel_size = voxel_size;
    v.origin = origin;
    v.pose = (vxk_transform){{0, 0, 0}, {0, 0, 0, 1}};
    v.storage = storage;
    v.storage_bytes = bytes;
    *view = v;
    return VXK_OK;
}

void vxk_voxel_view_destroy(vxk_voxel_view* view)
{
    if (!view)
        return;
    if (view->storage)
        vxk_free(view->storage, view->storage_bytes);
    memset(view, 0, sizeof(*view));
}

vxk_status vxk_voxel_view_region_begin(vxk_voxel_view* view, void* storage, size_t storage_bytes,
                                       vxk_int3 region_min, vxk_int3 size, float voxel_size)
{
    if (!view || !storage)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!size_ok(size, 3))
        return VXK_ERR_OUT_OF_RANGE;
    if (!vxk_is_finite(voxel_size) || !(voxel_size > 0.0f))
        return VXK_ERR_NOT_FINITE;
    if (storage_bytes < vxk_voxel_view_storage_bytes(size))
        return VXK_ERR_CAPACITY;
    vxk_voxel_view v;
    memset(&v, 0, sizeof(v));
    view_layout(&v, storage, size);
    memset(v.solid, 0, row_count(size) * sizeof(uint64_t));
    v.active = (vxk_int_box){{0, 0, 0}, {-1, -1, -1}};
    v.base = region_min;
    v.voxel_size = voxel_size;
    v.origin = vxk_v3((float)((double)region_min.x * voxel_size),
                      (float)((double)region_min.y * voxel_size),
                      (float)((double)region_min.z * voxel_size));
    v.pose = (vxk_transform){{0, 0, 0}, {0, 0, 0, 1}};
    v.region = true;
    *view = v;
    return VXK_OK;
}

void vxk_voxel_view_region_add_chunk(vxk_voxel_view* view, vxk_int3 chunk, const uint64_t solid[8])
{
    if (!view || !view->region || !view->solid || !solid)
        return;
    int64_t x0 = 8 * (int64_t)chunk.x - view->base.x;
    int64_t y0 = 8 * (int64_t)chunk.y - view->base.y;
    int64_t z0 = 8 * (int64_t)chunk.z - view->base.z;
    if (x0 <= -8 || x0 >= view->size.x)
        return;
    for (int64_t ly = 0; ly < 8; ++ly) {
        int64_t y = y0 + ly;
        if (y < 0 || y >= view->size.y)
            continue;
        for (int64_t lz = 0; lz < 8; ++lz) {
            int64_t z = z0 + lz;
            if (z < 0 || z >= view->size.z)
                continue;
            uint64_t bits = (solid[ly] >> (8 * lz)) & 0xFFu;
            int64_t x = x0;
            if (x < 0) {
                bits >>= -x;
                x = 0;
            }
            int64_t room = view->size.x - x;
            if (room < 8)
                bits &= (1ull << room) - 1;
            if (!bits)
                continue;
            uint64_t* row = view->solid + row_at(view, (int32_t)y, (int32_t)z);
            uint32_t w = (uint32_t)x >> 6, shift = (uint32_t)x & 63;
            row[w] |= bits << shift;
            if (shift > 56)
                row[w + 1] |= bits >> (64 - shift);
        }
    }
}

// Type byte of a solid voxel by its open face directions (bit i: direction i of k_face_offset),
// the rules of vxk/voxel_types.h: the type by how many are open (0 Inside, 1 Face, 2 Edge, more
// Corner); the normal the sum of the open directions' offsets (opposite ones cancel), NONE when
// it is zero; Inside voxels get NONE too (a region walks their exits when a contact needs them).
// A table, not a loop per region: the test's reference typing checks every region's bytes.
static const uint8_t k_pattern_byte[64] = {
    0xFC, 0x03, 0x0B, 0x32, 0x13, 0x3A, 0x42, 0x91, 0x1B, 0xFA, 0x4A, 0x09, 0x52, 0x11, 0xB1, 0x41,
    0x23, 0x62, 0xFA, 0x01, 0x5A, 0xA1, 0x11, 0x39, 0x7A, 0x21, 0x19, 0xF9, 0xC1, 0x59, 0x51, 0x11,
    0x2B, 0x6A, 0x72, 0x99, 0xFA, 0x01, 0x09, 0x31, 0x82, 0x29, 0xB9, 0x71, 0x19, 0xF9, 0x49, 0x09,
    0x8A, 0xA9, 0x29, 0x69, 0x21, 0x61, 0xF9, 0x01, 0xC9, 0x89, 0x81, 0x29, 0x79, 0x21, 0x19, 0xF9};

vxk_status vxk_voxel_view_region_finish(vxk_voxel_view* view)
{
    if (!view || !view->region || !view->solid)
        return VXK_ERR_INVALID_ARGUMENT;
    const vxk_int3 s = view->size;
    memset(view->types, VXK_VOXEL_BYTE_EMPTY, (size_t)s.x * (size_t)s.y * (size_t)s.z);
    memset(view->open, 0, (size_t)s.x * (size_t)s.y * (size_t)s.z);
    const vxk_int_box inner = {{1, 1, 1}, {s.x - 2, s.y - 2, s.z - 2}};
    for (int32_t y = inner.min.y; y <= inner.max.y; ++y) {
        for (int32_t z = inner.min.z; z <= inner.max.z; ++z) {
            const uint64_t* row = view->solid + row_at(view, y, z);
            const uint64_t* near[4] = {
                view->solid + row_at(view, y + 1, z), view->solid + row_at(view, y, z + 1),
                view->solid + row_at(view, y - 1, z), view->solid + row_at(view, y, z - 1)};
            for (uint32_t w = 0; w < view->words; ++w) {
                uint64_t bits = row[w];
                if (w == 0)
                    bits &= ~1ull; // x = 0 is border
                if (!bits)
                    continue;
                // Solid masks of the six neighbours, in normal-index order.
                uint64_t next[6];
                next[0] = (row[w] >> 1) | (w + 1 < view->words ? row[w + 1] << 63 : 0);
                next[3] = (row[w] << 1) | (w > 0 ? row[w - 1] >> 63 : 0);
                next[1] = near[0][w];
                next[2] = near[1][w];
                next[4] = near[2][w];
                next[5] = near[3][w];
                for (; bits; bits &= bits - 1) {
                    uint32_t bit = (uint32_t)__builtin_ctzll(bits);
                    int32_t x = (int32_t)(w * 64 + bit);
                    if (x > inner.max.x)
                        break;
                    uint32_t pattern = 0;
                    for (uint32_t i = 0; i < 6; ++i)
                        pattern |= (uint32_t)(~(next[i] >> bit) & 1u) << i;
                    view->types[voxel_index(view, x, y, z)] = k_pattern_byte[pattern];
                    view->open[voxel_index(view, x, y, z)] = (uint8_t)pattern;
                }
            }
        }
    }
    classify(view, inner);
    return VXK_OK;
}

vxk_status vxk_voxel_view_region_dense(vxk_voxel_view* view, void* storage, size_t storage_bytes,
                                       vxk_int3 region_min, vxk_int3 size, float voxel_size,
                                       const uint8_t* occupancy)
{
    if (!occupancy)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_voxel_view v;
    vxk_status status =
        vxk_voxel_view_region_begin(&v, storage, storage_bytes, region_min, size, voxel_size);
    if (status != VXK_OK)
        return status;
    for (int32_t y = 0; y < size.y; ++y)
        for (int32_t z = 0; z < size.z; ++z) {
            uint64_t* row = v.solid + row_at(&v, y, z);
            const uint8_t* cells = occupancy + voxel_index(&v, 0, y, z);
            for (int32_t x = 0; x < size.x; ++x)
                row[x >> 6] |= (uint64_t)(cells[x] != 0) << (x & 63);
        }
    status = vxk_voxel_view_region_finish(&v);
    if (status == VXK_OK)
        *view = v;
    return status;
}

// ---- frames ----------------------------------------------------------------------------------

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

static bool view_usable(const vxk_voxel_view* v)
{
    return v && v->solid && v->types && size_ok(v->size, 1) && vxk_is_finite(v->voxel_size) &&
           v->voxel_size > 0.0f && vxk_vec3_is_finite(v->origin) && vxk_vec3_is_finite(v->pose.p) &&
           vxk_is_finite(v->pose.q.x) && vxk_is_finite(v->pose.q.y) && vxk_is_finite(v->pose.q.z) &&
           vxk_is_finite(v->pose.q.w) && vxk_quat_length_sq(v->pose.q) > 1e-12f;
}

static void frame_init(frame* f, const vxk_voxel_view* v)
{
    f->v = v;
    f->r = vxk_mat3_from_quat(vxk_quat_normalize(v->pose.q));
    f->pos = v->pose.p;
    f->origin = v->origin;
    f->s = v->voxel_size;
    f->inv_s = 1.0f / v->voxel_size;
    f->dir_known = 0;
    float half = 0.5f * f->s;
    f->centre0 =
        vxk_v3_add(f->pos, vxk_mat3_mul_v(&f->r, vxk_v3_add(f->origin, vxk_v3(half, half, half))));
    f->step[0] = vxk_v3_scale(f->r.cx, f->s);
    f->step[1] = vxk_v3_scale(f->r.cy, f->s);
    f->step[2] = vxk_v3_scale(f->r.cz, f->s);
}

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

// The exit direction of an Inside voxel of a region: the nearest non-solid cell along the 26
// directions (cells outside the grid solid), ties to the lowest index; NONE without one.
static uint32_t region_exit(const vxk_voxel_view* v, int32_t x, int32_t y, int32_t z)
{
    uint32_t best = UINT32_MAX, best_k = VXK_VOXEL_NORMAL_NONE;
    for (uint32_t k = 0; k < VXK_VOXEL_NORMAL_COUNT; ++k) {
        vxk_int3 d = vxk_voxel_normal_offset(k);
        uint32_t length_squared = (uint32_t)(d.x * d.x + d.y * d.y + d.z * d.z);
        for (int32_t n = 1; (uint32_t)(n * n) * length_squared < best; ++n) {
            int32_t px = x + n * d.x, py = y + n * d.y, pz = z + n * d.z;
            if (!inside_grid(v, px, py, pz))
                break;
            if (!solid_at(v, px, py, pz)) {
                best = (uint32_t)(n * n) * length_squared;
                best_k = k;
                break;
            }
        }
    }
    return best_k;
}

// A voxel's lookup normal index: its byte's, or for a region's Inside voxel its walked exit.
static uint32_t lookup_index(const vxk_voxel_view* v, uint8_t byte, int32_t x, int32_t y, int32_t z)
{
    uint32_t k = vxk_voxel_normal_of(byte);
    if (k == VXK_VOXEL_NORMAL_NONE && v->region && vxk_voxel_type_of(byte) == VXK_VOXEL_INSIDE)
        k = region_exit(v, x, y, z);
    return k;
}

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

// ---- clusters --------------------------------------------------------------------------------

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

// Adds a point to the slot of its key (voxel pairs: the normal's identity).
static void keyed_add(vxk_voxel_contact_scratch* s, uint32_t slot, vxk_vec3 normal,
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

// Adds a point to the first slot whose normal is within CLUSTER_COS (primitives: normals are not
// from a fixed set); a new slot otherwise, or, with every slot taken, the shallowest one when this
// point is deeper.
static void greedy_add(vxk_voxel_contact_scratch* s, vxk_vec3 normal, const vxk_voxel_candidate* p)
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

// Merges the used slots (in slot order) by normal, keeps the 4 deepest groups and reduces each to
// 4 points. A candidate's key names A's voxel in bits 24-47 and B's (voxel pairs) in bits 0-23.
static uint32_t finish_manifolds(vxk_voxel_manifolds* out, vxk_voxel_contact_scratch* s,
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

static void scratch_reset(vxk_voxel_contact_scratch* s)
{
    s->used = 0;
    s->slots = 0;
}

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
    uint32_t ka = lookup_index(va, ta, ax, ay, az), kb = lookup_index(vb, tb, bx, by, bz);
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
        // (The feature id is hashed from the key for the points kept: finish_manifolds.)
        vxk_voxel_candidate p = {point, separation,
                                 pack_voxel(ax, ay, az) << 24 | pack_voxel(bx, by, bz), 0, 0};
        keyed_add(ctx->scratch, cluster, f, &p);
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
    if (!view_usable(a) || !view_usable(b) || !vxk_is_finite(margin))
        return false;
    ctx->margin = margin > 0.0f ? margin : 0.0f;
    frame_init(&ctx->fa, a);
    frame_init(&ctx->fb, b);
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
    return finish_manifolds(out, scratch, a, b);
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

// ---- primitives ------------------------------------------------------------------------------

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
        greedy_add(ctx->scratch, normal, &p);
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
    greedy_add(ctx->scratch, n, &p);
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
            uint32_t exit = lookup_index(v, byte, x, y, z);
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
    if (!scratch || !view_usable(a) || !vxk_is_finite(margin) || box_empty(a->active))
        return false;
    frame_init(&ctx->f, a);
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
    return finish_manifolds(out, scratch, a, NULL);
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
    return finish_manifolds(out, scratch, a, NULL);
}
