// boxes.c: greedy box decomposition (seed 004, Voxtric: seed a box at each free solid voxel in
// linear order, grow it in +X, +Y, +Z while any axis can grow). Layers are tested as bit masks:
// a chunk keeps one uint64_t per y slice (bit x + 8*z), a grid one bit row per (y, z).
#include <vxk/boxes.h>

#include "core.h"

// A box of the compound (16-bit fields; callers keep coordinates below 2^16).
static inline vxk_voxel_box make_box(uint32_t x0, uint32_t y0, uint32_t z0, uint32_t sx,
                                     uint32_t sy, uint32_t sz, vxk_boxes_mode mode,
                                     uint8_t material)
{
    vxk_voxel_box box = {0};
    box.x = (uint16_t)x0;
    box.y = (uint16_t)y0;
    box.z = (uint16_t)z0;
    box.size_x = (uint16_t)sx;
    box.size_y = (uint16_t)sy;
    box.size_z = (uint16_t)sz;
    box.material = mode == VXK_BOXES_PER_MATERIAL ? material : 0;
    return box;
}

static const uint64_t k_column_bits = 0x0101010101010101ull; // bit 8*z for every z

static inline uint32_t ctz64(uint64_t v)
{
    return (uint32_t)__builtin_ctzll(v);
}

static inline uint64_t low_bits(uint32_t n) // n in 0..64
{
    return n >= 64 ? ~0ull : ((1ull << n) - 1);
}

// ---- Chunk: one 64-bit mask per y slice ------------------------------------------------------

static uint64_t material_slice(const uint8_t* slice_voxels, uint8_t material)
{
    uint64_t bits = 0;
    for (uint32_t i = 0; i < 64; ++i)
        bits |= (uint64_t)(slice_voxels[i] == material) << i;
    return bits;
}

static uint32_t boxes_chunk(vxk_voxel_box* out, const uint8_t* voxels, const uint8_t* solid,
                            vxk_boxes_mode mode)
{
    uint64_t free_bits[8];
    for (uint32_t y = 0; y < 8; ++y) {
        uint64_t bits = 0;
        const uint8_t* slice = voxels + 64 * y;
        if (solid) {
            for (uint32_t i = 0; i < 64; ++i)
                bits |= (uint64_t)(solid[slice[i]] != 0) << i;
        } else {
            for (uint32_t i = 0; i < 64; ++i)
                bits |= (uint64_t)(slice[i] != 0) << i;
        }
        free_bits[y] = bits;
    }

    uint32_t count = 0;
    for (uint32_t y0 = 0; y0 < 8; ++y0) {
        while (free_bits[y0]) {
            uint32_t b = ctz64(free_bits[y0]);
            uint32_t x0 = b & 7u, z0 = b >> 3;
            uint8_t material = voxels[64 * y0 + b];
            // Voxels this box may take: free (and of the seed's material). The box's own voxels
            // never lie in a layer it tests, so the masks stay valid while it grows.
            uint64_t open[8] = {0};
            for (uint32_t y = y0; y < 8; ++y) {
                open[y] = free_bits[y];
                if (mode == VXK_BOXES_PER_MATERIAL && open[y])
                    open[y] &= material_slice(voxels + 64 * y, material);
            }
            uint32_t sx = 1, sy = 1, sz = 1;
            bool grow_x = true, grow_y = true, grow_z = true;
            while (grow_x || grow_y || grow_z) {
                uint64_t z_rows = low_bits(8 * sz) << (8 * z0);
                if (grow_x) {
                    uint32_t x1 = x0 + sx;
                    grow_x = x1 < 8;
                    uint64_t layer = (k_column_bits << (x1 & 7u)) & z_rows;
                    for (uint32_t y = y0; grow_x && y < y0 + sy; ++y)
                        grow_x = (open[y] & layer) == layer;
                    sx += grow_x;
                }
                uint64_t x_run = low_bits(sx) << x0;
                if (grow_y) {
                    uint32_t y1 = y0 + sy;
                    uint64_t layer = (x_run * k_column_bits) & z_rows;
                    grow_y = y1 < 8 && (open[y1 & 7u] & layer) == layer;
                    sy += grow_y;
                }
                if (grow_z) {
                    uint32_t z1 = z0 + sz;
                    grow_z = z1 < 8;
                    uint64_t layer = x_run << (8 * (z1 & 7u));
                    for (uint32_t y = y0; grow_z && y < y0 + sy; ++y)
                        grow_z = (open[y] & layer) == layer;
                    sz += grow_z;
                }
            }
            uint64_t box_bits =
                ((low_bits(sx) << x0) * k_column_bits) & (low_bits(8 * sz) << (8 * z0));
            for (uint32_t y = y0; y < y0 + sy; ++y)
                free_bits[y] &= ~box_bits;
            out[count++] = make_box(x0, y0, z0, sx, sy, sz, mode, material);
        }
    }
    return count;
}

vxk_status vxk_boxes_chunk(vxk_voxel_box* out, uint32_t capacity, uint32_t* count,
                           const uint8_t voxels[512], const uint8_t* solid, vxk_boxes_mode mode)
{
    if (!out || !count || !voxels || (unsigned)mode >= VXK_BOXES_MODE_COUNT)
        return VXK_ERR_INVALID_ARGUMENT;
    if (capacity >= VXK_BOXES_CHUNK_MAX) {
        *count = boxes_chunk(out, voxels, solid, mode);
        return VXK_OK;
    }
    vxk_voxel_box local[VXK_BOXES_CHUNK_MAX];
    uint32_t n = boxes_chunk(local, voxels, solid, mode);
    if (n > capacity)
        return VXK_ERR_CAPACITY;
    memcpy(out, local, (size_t)n * sizeof(vxk_voxel_box));
    *count = n;
    return VXK_OK;
}

// ---- Grid: one bit row per (y, z), words of 64 voxels along x --------------------------------

typedef struct grid_bits {
    uint64_t* rows; // row (z + size_z * y) at rows + row * words
    uint32_t words;
    const vxk_voxel_grid* grid;
    vxk_boxes_mode mode;
} grid_bits;

static inline const uint64_t* grid_row(const grid_bits* g, uint32_t y, uint32_t z)
{
    return g->rows + ((size_t)z + (size_t)g->grid->size.z * y) * g->words;
}

// True when bits [x0, x1) of row are all set.
static bool row_all(const uint64_t* row, uint32_t x0, uint32_t x1)
{
    uint32_t w0 = x0 >> 6, w1 = (x1 - 1) >> 6;
    uint64_t first = ~0ull << (x0 & 63u);
    uint64_t last = ~0ull >> (63u - ((x1 - 1) & 63u));
    if (w0 == w1)
        return (row[w0] & first & last) == (first & last);
    if ((row[w0] & first) != first || (row[w1] & last) != last)
        return false;
    for (uint32_t w = w0 + 1; w < w1; ++w)
        if (row[w] != ~0ull)
            return false;
    return true;
}

static void row_clear(uint64_t* row, uint32_t x0, uint32_t x1)
{
    uint32_t w0 = x0 >> 6, w1 = (x1 - 1) >> 6;
    uint64_t first = ~0ull << (x0 & 63u);
    uint64_t last = ~0ull >> (63u - ((x1 - 1) & 63u));
    if (w0 == w1) {
        row[w0] &= ~(first & last);
        return;
    }
    row[w0] &= ~first;
    for (uint32_t w = w0 + 1; w < w1; ++w)
        row[w] = 0;
    row[w1] &= ~last;
}

// True when voxels [x0, x1) of grid row (y, z) are free (and of the material, per material).
static bool layer_row_ok(const grid_bits* g, uint32_t y, uint32_t z, uint32_t x0, uint32_t x1,
                         uint8_t material)
{
    if (!row_all(grid_row(g, y, z), x0, x1))
        return false;
    if (g->mode != VXK_BOXES_PER_MATERIAL)
        return true;
    const uint8_t* voxels =
        g->grid->voxels + (size_t)g->grid->size.x * ((size_t)z + (size_t)g->grid->size.z * y);
    for (uint32_t x = x0; x < x1; ++x)
        if (voxels[x] != material)
            return false;
    return true;
}

static vxk_status list_push(vxk_box_list* list, vxk_voxel_box box)
{
    if (list->count == list->capacity) {
        if (list->capacity == UINT32_MAX)
            return VXK_ERR_OUT_OF_RANGE;
        uint64_t grown = list->capacity ? (uint64_t)list->capacity * 2 : 256;
        uint32_t capacity = grown > UINT32_MAX ? UINT32_MAX : (uint32_t)grown;
        vxk_voxel_box* boxes =
            (vxk_voxel_box*)vxk_realloc(list->boxes, (size_t)list->capacity * sizeof(vxk_voxel_box),
                                        (size_t)capacity * sizeof(vxk_voxel_box));
        if (!boxes)
            return VXK_ERR_OUT_OF_MEMORY;
        list->boxes = boxes;
        list->capacity = capacity;
    }
    list->boxes[list->count++] = box;
    return VXK_OK;
}

void vxk_box_list_free(vxk_box_list* list)
{
    if (!list)
        return;
    vxk_free(list->boxes, (size_t)list->capacity * sizeof(vxk_voxel_box));
    list->boxes = NULL;
    list->count = 0;
    list->capacity = 0;
}

vxk_status vxk_boxes_grid(vxk_box_list* list, const vxk_voxel_grid* grid, const uint8_t* solid,
                          vxk_boxes_mode mode)
{
    if (!list || !grid || !grid->voxels || grid->size.x <= 0 || grid->size.y <= 0 ||
        grid->size.z <= 0 || (unsigned)mode >= VXK_BOXES_MODE_COUNT)
        return VXK_ERR_INVALID_ARGUMENT;
    if (grid->size.x > 65535 || grid->size.y > 65535 || grid->size.z > 65535)
        return VXK_ERR_OUT_OF_RANGE; // box coordinates are 16-bit
    uint32_t size_x = (uint32_t)grid->size.x, size_y = (uint32_t)grid->size.y;
    uint32_t size_z = (uint32_t)grid->size.z;
    grid_bits g;
    g.words = (size_x + 63) / 64;
    g.grid = grid;
    g.mode = mode;
    size_t row_count = (size_t)size_y * size_z;
    size_t bytes = row_count * g.words * sizeof(uint64_t);
    g.rows = (uint64_t*)vxk_calloc(bytes);
    if (!g.rows)
        return VXK_ERR_OUT_OF_MEMORY;
    for (size_t r = 0; r < row_count; ++r) {
        const uint8_t* voxels = grid->voxels + r * size_x;
        uint64_t* row = g.rows + r * g.words;
        for (uint32_t x = 0; x < size_x; ++x) {
            bool is_solid = solid ? solid[voxels[x]] != 0 : voxels[x] != 0;
            row[x >> 6] |= (uint64_t)is_solid << (x & 63u);
        }
    }

    list->count = 0;
    vxk_status status = VXK_OK;
    // Seeds come in linear order and boxes only reach forward, so the scan never goes back.
    for (size_t r = 0; r < row_count && status == VXK_OK; ++r) {
        uint64_t* row = g.rows + r * g.words;
        for (uint32_t w = 0; w < g.words && status == VXK_OK; ++w) {
            while (row[w]) {
                uint32_t x0 = 64 * w + ctz64(row[w]);
                uint32_t y0 = (uint32_t)(r / size_z), z0 = (uint32_t)(r % size_z);
                uint8_t material = grid->voxels[r * size_x + x0];
                row[w] &= row[w] - 1; // the seed voxel
                uint32_t sx = 1, sy = 1, sz = 1;
                bool grow_x = true, grow_y = true, grow_z = true;
                while (grow_x || grow_y || grow_z) {
                    if (grow_x) {
                        uint32_t x1 = x0 + sx;
                        grow_x = x1 < size_x;
                        for (uint32_t y = y0; grow_x && y < y0 + sy; ++y)
                            for (uint32_t z = z0; grow_x && z < z0 + sz; ++z)
                                grow_x = layer_row_ok(&g, y, z, x1, x1 + 1, material);
                        sx += grow_x;
                    }
                    if (grow_y) {
                        uint32_t y1 = y0 + sy;
                        grow_y = y1 < size_y;
                        for (uint32_t z = z0; grow_y && z < z0 + sz; ++z)
                            grow_y = layer_row_ok(&g, y1, z, x0, x0 + sx, material);
                        sy += grow_y;
                    }
                    if (grow_z) {
                        uint32_t z1 = z0 + sz;
                        grow_z = z1 < size_z;
                        for (uint32_t y = y0; grow_z && y < y0 + sy; ++y)
                            grow_z = layer_row_ok(&g, y, z1, x0, x0 + sx, material);
                        sz += grow_z;
                    }
                }
                for (uint32_t y = y0; y < y0 + sy; ++y)
                    for (uint32_t z = z0; z < z0 + sz; ++z)
                        row_clear((uint64_t*)grid_row(&g, y, z), x0, x0 + sx);
                status = list_push(list, make_box(x0, y0, z0, sx, sy, sz, mode, material));
                if (status != VXK_OK)
                    break;
            }
        }
    }
    vxk_free(g.rows, bytes);
    if (status != VXK_OK)
        list->count = 0;
    return status;
}
