// contact_voxel_view.c: the voxel views of contact_voxel.h, typed by the rules of seed 003 (the
// voxel-physics article: "Voxel types"): a body's view made once from its grid, a terrain
// region's gathered from chunk bits and typed by a table of its face patterns, the Corner, Edge,
// Face and Inside rows, and the frame that places a view in the world for one call.
#include "contact_voxel_internal.h"

#include <string.h>

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

// A region's inner voxels: all but its border layer, which a side at the end of the int32 voxel
// range does not have (nothing lies past it, so its voxels are typed there).
static vxk_int_box region_inner(vxk_int3 base, vxk_int3 size)
{
    const int32_t b[3] = {base.x, base.y, base.z}, n[3] = {size.x, size.y, size.z};
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = b[k] == INT32_MIN ? 0 : 1;
        hi[k] = (int64_t)b[k] + n[k] - 1 == INT32_MAX ? n[k] - 1 : n[k] - 2;
    }
    return (vxk_int_box){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

vxk_status vxk_voxel_view_region_begin(vxk_voxel_view* view, void* storage, size_t storage_bytes,
                                       vxk_int3 region_min, vxk_int3 size, float voxel_size)
{
    if (!view || !storage)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!size_ok(size, 1) || (int64_t)region_min.x + size.x - 1 > INT32_MAX ||
        (int64_t)region_min.y + size.y - 1 > INT32_MAX ||
        (int64_t)region_min.z + size.z - 1 > INT32_MAX || box_empty(region_inner(region_min, size)))
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
    // Past the end of the int32 range (a side without border) every cell is empty.
    static const uint64_t empty_row[VXK_VOXEL_VIEW_MAX_SIZE / 64] = {0};
    const vxk_int_box inner = region_inner(view->base, s);
    for (int32_t y = inner.min.y; y <= inner.max.y; ++y) {
        for (int32_t z = inner.min.z; z <= inner.max.z; ++z) {
            const uint64_t* row = view->solid + row_at(view, y, z);
            const uint64_t* near[4] = {
                y + 1 < s.y ? view->solid + row_at(view, y + 1, z) : empty_row,
                z + 1 < s.z ? view->solid + row_at(view, y, z + 1) : empty_row,
                y > 0 ? view->solid + row_at(view, y - 1, z) : empty_row,
                z > 0 ? view->solid + row_at(view, y, z - 1) : empty_row};
            for (uint32_t w = 0; w < view->words; ++w) {
                uint64_t bits = row[w];
                if (w == 0 && inner.min.x > 0)
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

bool vxk_voxel_view_usable(const vxk_voxel_view* v)
{
    return v && v->solid && v->types && size_ok(v->size, 1) && vxk_is_finite(v->voxel_size) &&
           v->voxel_size > 0.0f && vxk_vec3_is_finite(v->origin) && vxk_vec3_is_finite(v->pose.p) &&
           vxk_is_finite(v->pose.q.x) && vxk_is_finite(v->pose.q.y) && vxk_is_finite(v->pose.q.z) &&
           vxk_is_finite(v->pose.q.w) && vxk_quat_length_sq(v->pose.q) > 1e-12f;
}

void vxk_voxel_frame_init(frame* f, const vxk_voxel_view* v)
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
            if (!solid_at(v, px, py, pz)) {
                best = (uint32_t)(n * n) * length_squared;
                best_k = k;
                break;
            }
            if (!inside_grid(v, px, py, pz))
                break;
        }
    }
    return best_k;
}

uint32_t vxk_voxel_lookup_index(const vxk_voxel_view* v, uint8_t byte, vxk_int3 voxel)
{
    uint32_t k = vxk_voxel_normal_of(byte);
    if (k == VXK_VOXEL_NORMAL_NONE && v->region && vxk_voxel_type_of(byte) == VXK_VOXEL_INSIDE)
        k = region_exit(v, voxel.x, voxel.y, voxel.z);
    return k;
}
