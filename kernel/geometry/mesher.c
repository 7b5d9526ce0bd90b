// mesher.c: greedy quad meshing of one chunk's surface with exact interior-edge flags, the
// narrowphase input of seed 000 (zeux, Roblox terrain physics). Slices are 8x8 face masks in one
// uint64_t (bit u + 8*v); runs grow along u with bit tricks, then rectangles grow along v.
#include <vxk/mesher.h>

#include "core.h"

enum { DIR_MINUS_U = 0, DIR_PLUS_U = 1, DIR_MINUS_V = 2, DIR_PLUS_V = 3 };

// Bit planes of the 10^3 box, per normal axis: plane[c][v] is a row of 10 bits over u (bit u),
// c the box coordinate along the axis, v the box coordinate along the frame's v axis.
typedef struct mesher_planes {
    uint16_t plane[3][VXK_MESHER_BOX][VXK_MESHER_BOX];
} mesher_planes;

// Interior 8x8 views of one plane, shifted by one voxel in each in-plane direction:
// shifted[0] is the plane itself, shifted[1 + d] looks one voxel towards direction d.
typedef struct mesher_packed {
    uint64_t shifted[5];
} mesher_packed;

// Box strides of the frame axes (a, u, v) per normal axis; see the frame table in mesher.h.
static const uint32_t k_stride_a[3] = {1, 100, 10};
static const uint32_t k_stride_u[3] = {10, 1, 1};
static const uint32_t k_stride_v[3] = {100, 10, 100};

static void build_planes(mesher_planes* p, const uint8_t* box, const uint8_t* solid)
{
    uint8_t flags[256];
    for (int i = 0; i < 256; ++i)
        flags[i] = solid[i] != 0;
    memset(p->plane[0], 0, sizeof(p->plane[0]));
    for (int y = 0; y < VXK_MESHER_BOX; ++y) {
        for (int z = 0; z < VXK_MESHER_BOX; ++z) {
            const uint8_t* row = box + 10 * (z + 10 * y);
            uint32_t bits = 0;
            for (int x = 0; x < VXK_MESHER_BOX; ++x)
                bits |= (uint32_t)flags[row[x]] << x;
            p->plane[1][y][z] = (uint16_t)bits;      // axis Y: u = x, v = z
            p->plane[2][z][y] = (uint16_t)bits;      // axis Z: u = x, v = y
            for (int x = 0; x < VXK_MESHER_BOX; ++x) // axis X: u = z, v = y
                p->plane[0][x][y] |= (uint16_t)(((bits >> x) & 1u) << z);
        }
    }
}

// Packs rows first..first+7 of a plane, bits shift..shift+7 of each, into bit u + 8*v.
static inline uint64_t pack_rows(const uint16_t* rows, int first, int shift)
{
    uint64_t out = 0;
    for (int v = 0; v < 8; ++v)
        out |= (uint64_t)((rows[first + v] >> shift) & 0xFFu) << (8 * v);
    return out;
}

static void pack_plane(mesher_packed* out, const uint16_t* rows)
{
    out->shifted[0] = pack_rows(rows, 1, 1);
    out->shifted[1 + DIR_MINUS_U] = pack_rows(rows, 1, 0);
    out->shifted[1 + DIR_PLUS_U] = pack_rows(rows, 1, 2);
    out->shifted[1 + DIR_MINUS_V] = pack_rows(rows, 0, 1);
    out->shifted[1 + DIR_PLUS_V] = pack_rows(rows, 2, 1);
}

// Per-slice face data: face bits, and per edge direction the concave and flat bits.
typedef struct slice_faces {
    uint64_t face;
    uint64_t concave[4];
    uint64_t flat[4];
} slice_faces;

static inline uint32_t edge_class(const slice_faces* s, uint32_t dir, uint32_t bit)
{
    if ((s->concave[dir] >> bit) & 1u)
        return VXK_EDGE_CONCAVE;
    return ((s->flat[dir] >> bit) & 1u) ? VXK_EDGE_FLAT : VXK_EDGE_CONVEX;
}

// Bits of the faces whose edge towards dir has class cls.
static inline uint64_t class_mask(const slice_faces* s, uint32_t dir, uint32_t cls)
{
    if (cls == VXK_EDGE_CONCAVE)
        return s->concave[dir];
    if (cls == VXK_EDGE_FLAT)
        return s->flat[dir];
    return s->face & ~s->concave[dir] & ~s->flat[dir];
}

static inline bool uniform_in(uint64_t bits, uint64_t span)
{
    bits &= span;
    return bits == 0 || bits == span;
}

static inline uint32_t ctz64(uint64_t v)
{
    return (uint32_t)__builtin_ctzll(v);
}

// Greedy merge of one slice. Groups faces by material, then repeatedly takes the lowest
// remaining face: a run along u of faces of its material whose -v and +v edge classes match
// its own, grown along v while the next row holds the whole span, its -u/+u end classes match
// and its +v classes are uniform (so whichever row ends the quad has a uniform +v edge).
static uint32_t merge_slice(vxk_quad* out, const slice_faces* s, const uint8_t* materials,
                            uint32_t axis, uint32_t positive, uint32_t slice)
{
    uint64_t group_mask[64];
    uint8_t group_material[64];
    uint32_t group_count = 0;
    for (uint64_t bits = s->face; bits; bits &= bits - 1) {
        uint32_t bit = ctz64(bits);
        uint8_t m = materials[bit];
        uint32_t g = 0;
        while (g < group_count && group_material[g] != m)
            ++g;
        if (g == group_count) {
            group_material[g] = m;
            group_mask[g] = 0;
            ++group_count;
        }
        group_mask[g] |= 1ull << bit;
    }

    uint32_t count = 0;
    uint64_t remaining = s->face;
    while (remaining) {
        uint32_t b = ctz64(remaining);
        uint32_t u0 = b & 7u, v0 = b >> 3;
        uint32_t g = 0;
        while (!((group_mask[g] >> b) & 1u))
            ++g;
        uint64_t same = group_mask[g] & remaining;

        uint32_t minus_v = edge_class(s, DIR_MINUS_V, b);
        uint32_t plus_v = edge_class(s, DIR_PLUS_V, b);
        uint64_t run_ok =
            same & class_mask(s, DIR_MINUS_V, minus_v) & class_mask(s, DIR_PLUS_V, plus_v);
        uint32_t run = (uint32_t)((run_ok >> b) & (0xFFu >> u0));
        uint32_t width = (uint32_t)__builtin_ctz(~run);
        uint64_t span = (((uint64_t)1 << width) - 1) << u0; // row bits, shifted per row below
        uint32_t minus_u = edge_class(s, DIR_MINUS_U, b);
        uint32_t plus_u = edge_class(s, DIR_PLUS_U, b + width - 1);

        uint32_t height = 1;
        for (uint32_t v = v0 + 1; v < 8; ++v) {
            uint64_t row_span = span << (8 * v);
            if ((same & row_span) != row_span)
                break;
            uint32_t first = u0 + 8 * v;
            if (edge_class(s, DIR_MINUS_U, first) != minus_u ||
                edge_class(s, DIR_PLUS_U, first + width - 1) != plus_u)
                break;
            if (!uniform_in(s->concave[DIR_PLUS_V], row_span) ||
                !uniform_in(s->flat[DIR_PLUS_V], row_span))
                break;
            ++height;
        }
        uint32_t last_row_first = u0 + 8 * (v0 + height - 1);
        plus_v = edge_class(s, DIR_PLUS_V, last_row_first);
        for (uint32_t v = v0; v < v0 + height; ++v)
            remaining &= ~(span << (8 * v));

        vxk_quad q;
        uint32_t coord[3];
        coord[axis] = slice;
        coord[axis == 0 ? 2 : 0] = u0;
        coord[axis == 1 ? 2 : 1] = v0;
        q.x = (uint8_t)coord[0];
        q.y = (uint8_t)coord[1];
        q.z = (uint8_t)coord[2];
        q.width = (uint8_t)width;
        q.height = (uint8_t)height;
        q.normal = (uint8_t)(axis | (positive << 2));
        q.material = group_material[g];
        q.edges = (uint8_t)(minus_u | (plus_u << 2) | (minus_v << 4) | (plus_v << 6));
        out[count++] = q;
    }
    return count;
}

static uint32_t mesh_box(vxk_quad* out, const uint8_t* box, const uint8_t* solid)
{
    mesher_planes planes;
    build_planes(&planes, box, solid);
    uint32_t count = 0;
    for (uint32_t axis = 0; axis < 3; ++axis) {
        mesher_packed packed[VXK_MESHER_BOX];
        for (int c = 0; c < VXK_MESHER_BOX; ++c)
            pack_plane(&packed[c], planes.plane[axis][c]);
        for (uint32_t positive = 0; positive < 2; ++positive) {
            for (uint32_t slice = 0; slice < 8; ++slice) {
                const mesher_packed* behind = &packed[slice + 1];
                const mesher_packed* front = &packed[positive ? slice + 2 : slice];
                slice_faces s;
                s.face = behind->shifted[0] & ~front->shifted[0];
                if (!s.face)
                    continue;
                for (uint32_t d = 0; d < 4; ++d) {
                    s.concave[d] = s.face & front->shifted[1 + d];
                    s.flat[d] = s.face & ~front->shifted[1 + d] & behind->shifted[1 + d];
                }
                uint8_t materials[64];
                const uint8_t* base = box + 111 + slice * k_stride_a[axis];
                for (uint64_t bits = s.face; bits; bits &= bits - 1) {
                    uint32_t bit = ctz64(bits);
                    materials[bit] =
                        base[(bit & 7u) * k_stride_u[axis] + (bit >> 3) * k_stride_v[axis]];
                }
                count += merge_slice(out + count, &s, materials, axis, positive, slice);
                VXK_ASSERT(count <= VXK_MESHER_MAX_QUADS);
            }
        }
    }
    return count;
}

vxk_status vxk_quad_mesh_chunk(vxk_quad* out, uint32_t capacity, uint32_t* count,
                               const uint8_t box[VXK_MESHER_BOX_VOXELS], const uint8_t solid[256])
{
    if (!out || !count || !box || !solid)
        return VXK_ERR_INVALID_ARGUMENT;
    if (capacity >= VXK_MESHER_MAX_QUADS) {
        *count = mesh_box(out, box, solid);
        return VXK_OK;
    }
    vxk_quad local[VXK_MESHER_MAX_QUADS];
    uint32_t n = mesh_box(local, box, solid);
    if (n > capacity)
        return VXK_ERR_CAPACITY;
    memcpy(out, local, (size_t)n * sizeof(vxk_quad));
    *count = n;
    return VXK_OK;
}

void vxk_quad_corners(vxk_vec3 corners[4], vxk_quad quad, vxk_vec3 origin, float scale)
{
    uint32_t axis = vxk_quad_axis(quad);
    uint32_t axis_u = axis == 0 ? 2 : 0;
    uint32_t axis_v = axis == 1 ? 2 : 1;
    bool positive = vxk_quad_positive(quad);
    int32_t base[3] = {quad.x, quad.y, quad.z};
    base[axis] += positive ? 1 : 0;
    // (U x V) points along +axis only for Z; flip the walk when it opposes the normal.
    bool uv_along_normal = (axis == 2) == positive;
    static const int32_t walk_u[4] = {0, 1, 1, 0};
    static const int32_t walk_v[4] = {0, 0, 1, 1};
    for (int k = 0; k < 4; ++k) {
        int32_t i = uv_along_normal ? walk_u[k] : walk_v[k];
        int32_t j = uv_along_normal ? walk_v[k] : walk_u[k];
        int32_t p[3] = {base[0], base[1], base[2]};
        p[axis_u] += i * quad.width;
        p[axis_v] += j * quad.height;
        corners[k].x = origin.x + scale * (float)p[0];
        corners[k].y = origin.y + scale * (float)p[1];
        corners[k].z = origin.z + scale * (float)p[2];
    }
}

vxk_status vxk_quad_to_mesh(vxk_mesh* mesh, const vxk_quad* quads, uint32_t count, uint32_t corners,
                            vxk_vec3 origin, float scale)
{
    if (!mesh || (!quads && count > 0) || (corners != 3 && corners != 4))
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_vec3_is_finite(origin) || !vxk_is_finite(scale))
        return VXK_ERR_NOT_FINITE;
    if (!(scale > 0.0f) || count > (1u << 28))
        return VXK_ERR_OUT_OF_RANGE;
    vxk_mesh result = {0};
    result.corners = corners;
    if (count == 0) {
        *mesh = result;
        return VXK_OK;
    }
    uint32_t per_quad = corners == 4 ? 1u : 2u;
    result.vertex_count = 4 * count;
    result.primitive_count = per_quad * count;
    result.vertices = (vxk_vec3*)vxk_alloc((size_t)result.vertex_count * sizeof(vxk_vec3));
    result.indices =
        (uint32_t*)vxk_alloc((size_t)result.primitive_count * corners * sizeof(uint32_t));
    result.materials = (uint8_t*)vxk_alloc(result.primitive_count);
    if (!result.vertices || !result.indices || !result.materials) {
        vxk_mesh_free(&result);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < count; ++i) {
        vxk_quad_corners(result.vertices + 4 * i, quads[i], origin, scale);
        uint32_t first = 4 * i;
        if (corners == 4) {
            uint32_t* idx = result.indices + 4 * i;
            idx[0] = first;
            idx[1] = first + 1;
            idx[2] = first + 2;
            idx[3] = first + 3;
            result.materials[i] = quads[i].material;
        } else {
            uint32_t* idx = result.indices + 6 * i;
            idx[0] = first;
            idx[1] = first + 1;
            idx[2] = first + 2;
            idx[3] = first;
            idx[4] = first + 2;
            idx[5] = first + 3;
            result.materials[2 * i] = quads[i].material;
            result.materials[2 * i + 1] = quads[i].material;
        }
    }
    *mesh = result;
    return VXK_OK;
}
