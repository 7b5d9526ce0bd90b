// voxel_types.c: per-voxel type and 26-direction normal of a voxel grid (seed 003, the
// voxel-physics article: "Voxel Data", "Normal lookup", "Voxel types"). Solid voxels become one
// bit row of 64-bit words per (y, z); the six face-neighbour masks of a word come from shifts and
// the neighbouring rows, and a 64-entry table maps a voxel's empty-neighbour pattern to its byte.
// Inside normals: along each of the 26 directions every line of the grid is walked once, and the
// solid runs on it give each voxel its exit distance in that direction. An update re-walks only
// the Inside voxels on the 26 lines through the changed box, unless those cover much of the grid.
#include <vxk/voxel_types.h>

#include "core.h"

static const int8_t k_normal_offsets[VXK_VOXEL_NORMAL_COUNT][3] = {
    {1, 0, 0},   {0, 1, 0},   {0, 0, 1},   {-1, 0, 0},  {0, -1, 0},  {0, 0, -1}, {1, 1, 0},
    {1, 0, 1},   {0, 1, 1},   {-1, 1, 0},  {-1, 0, 1},  {0, -1, 1},  {1, -1, 0}, {1, 0, -1},
    {0, 1, -1},  {-1, -1, 0}, {-1, 0, -1}, {0, -1, -1}, {1, 1, 1},   {1, 1, -1}, {1, -1, 1},
    {1, -1, -1}, {-1, 1, 1},  {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}};

vxk_int3 vxk_voxel_normal_offset(uint32_t normal_index)
{
    if (normal_index >= VXK_VOXEL_NORMAL_COUNT)
        return (vxk_int3){0, 0, 0};
    const int8_t* o = k_normal_offsets[normal_index];
    return (vxk_int3){o[0], o[1], o[2]};
}

vxk_vec3 vxk_voxel_normal_dir(uint32_t normal_index)
{
    if (normal_index >= VXK_VOXEL_NORMAL_COUNT)
        return (vxk_vec3){0.0f, 0.0f, 0.0f};
    const int8_t* o = k_normal_offsets[normal_index];
    int length_squared = o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
    float inverse_length = length_squared == 1   ? 1.0f
                           : length_squared == 2 ? 0.70710678118654752f
                                                 : 0.57735026918962576f;
    return (vxk_vec3){o[0] * inverse_length, o[1] * inverse_length, o[2] * inverse_length};
}

static uint32_t normal_index_of(int x, int y, int z)
{
    for (uint32_t k = 0; k < VXK_VOXEL_NORMAL_COUNT; ++k)
        if (k_normal_offsets[k][0] == x && k_normal_offsets[k][1] == y &&
            k_normal_offsets[k][2] == z)
            return k;
    return VXK_VOXEL_NORMAL_NONE;
}

// Byte of a solid voxel by its empty face neighbours: bit i set when neighbour i (normal index
// i, the six cardinals) is empty. Inside voxels get their normal later.
static void build_pattern_table(uint8_t table[64])
{
    static const vxk_voxel_type by_count[7] = {VXK_VOXEL_INSIDE, VXK_VOXEL_FACE,   VXK_VOXEL_EDGE,
                                               VXK_VOXEL_CORNER, VXK_VOXEL_CORNER, VXK_VOXEL_CORNER,
                                               VXK_VOXEL_CORNER};
    for (uint32_t pattern = 0; pattern < 64; ++pattern) {
        int sum[3] = {0, 0, 0};
        for (uint32_t i = 0; i < 6; ++i)
            if (pattern & (1u << i))
                for (int a = 0; a < 3; ++a)
                    sum[a] += k_normal_offsets[i][a];
        uint32_t normal = pattern ? normal_index_of(sum[0], sum[1], sum[2]) : VXK_VOXEL_NORMAL_NONE;
        table[pattern] = vxk_voxel_byte(by_count[__builtin_popcount(pattern)], normal);
    }
}

typedef struct types_grid {
    int32_t sx, sy, sz;
    uint32_t words; // per row
    uint64_t* rows; // (y * sz + z) * words + w
    size_t rows_bytes;
} types_grid;

static inline const uint64_t* row_at(const types_grid* g, int32_t y, int32_t z)
{
    return g->rows + ((size_t)y * (size_t)g->sz + (size_t)z) * g->words;
}

static inline bool solid_at(const types_grid* g, int32_t x, int32_t y, int32_t z)
{
    return (row_at(g, y, z)[x >> 6] >> (x & 63)) & 1u;
}

static void build_rows(types_grid* g, const vxk_voxel_grid* grid, const uint8_t* solid)
{
    for (int32_t y = 0; y < g->sy; ++y) {
        for (int32_t z = 0; z < g->sz; ++z) {
            uint64_t* row = (uint64_t*)row_at(g, y, z);
            const uint8_t* voxels =
                grid->voxels + (size_t)g->sx * ((size_t)z + (size_t)g->sz * (size_t)y);
            for (uint32_t w = 0; w < g->words; ++w)
                row[w] = 0;
            for (int32_t x = 0; x < g->sx; ++x)
                row[x >> 6] |= (uint64_t)(solid[voxels[x]] != 0) << (x & 63);
        }
    }
}

// The six face-neighbour solid masks of word w of row (y, z), in normal-index order; cells
// outside the grid read as not solid.
static void neighbour_masks(const types_grid* g, int32_t y, int32_t z, uint32_t w,
                            uint64_t solid_next[6])
{
    const uint64_t* row = row_at(g, y, z);
    solid_next[0] = (row[w] >> 1) | (w + 1 < g->words ? row[w + 1] << 63 : 0);
    solid_next[3] = (row[w] << 1) | (w > 0 ? row[w - 1] >> 63 : 0);
    solid_next[1] = y + 1 < g->sy ? row_at(g, y + 1, z)[w] : 0;
    solid_next[4] = y > 0 ? row_at(g, y - 1, z)[w] : 0;
    solid_next[2] = z + 1 < g->sz ? row_at(g, y, z + 1)[w] : 0;
    solid_next[5] = z > 0 ? row_at(g, y, z - 1)[w] : 0;
}

static bool has_inside(const types_grid* g)
{
    for (int32_t y = 0; y < g->sy; ++y) {
        for (int32_t z = 0; z < g->sz; ++z) {
            for (uint32_t w = 0; w < g->words; ++w) {
                uint64_t next[6];
                neighbour_masks(g, y, z, w, next);
                uint64_t inside = row_at(g, y, z)[w];
                for (int i = 0; i < 6; ++i)
                    inside &= next[i];
                if (inside)
                    return true;
            }
        }
    }
    return false;
}

// Types and surface normals of the voxels in box (inside the grid).
static void type_box(const types_grid* g, uint8_t* out, vxk_int_box box)
{
    uint8_t table[64];
    build_pattern_table(table);
    for (int32_t y = box.min.y; y <= box.max.y; ++y) {
        for (int32_t z = box.min.z; z <= box.max.z; ++z) {
            const uint64_t* row = row_at(g, y, z);
            uint8_t* out_row = out + (size_t)g->sx * ((size_t)z + (size_t)g->sz * (size_t)y);
            for (uint32_t w = (uint32_t)box.min.x >> 6; w <= (uint32_t)box.max.x >> 6; ++w) {
                int32_t x_begin = box.min.x > (int32_t)(w * 64) ? box.min.x : (int32_t)(w * 64);
                int32_t x_end =
                    box.max.x < (int32_t)(w * 64 + 63) ? box.max.x : (int32_t)(w * 64 + 63);
                uint64_t solid_word = row[w];
                if (!solid_word) {
                    for (int32_t x = x_begin; x <= x_end; ++x)
                        out_row[x] = VXK_VOXEL_BYTE_EMPTY;
                    continue;
                }
                uint64_t next[6];
                neighbour_masks(g, y, z, w, next);
                for (int32_t x = x_begin; x <= x_end; ++x) {
                    uint32_t bit = (uint32_t)x & 63;
                    if (!((solid_word >> bit) & 1u)) {
                        out_row[x] = VXK_VOXEL_BYTE_EMPTY;
                        continue;
                    }
                    uint32_t pattern = 0;
                    for (uint32_t i = 0; i < 6; ++i)
                        pattern |= (uint32_t)(~(next[i] >> bit) & 1u) << i;
                    out_row[x] = table[pattern];
                }
            }
        }
    }
}

static inline bool in_grid(const types_grid* g, int32_t x, int32_t y, int32_t z)
{
    return x >= 0 && y >= 0 && z >= 0 && x < g->sx && y < g->sy && z < g->sz;
}

// A solid run of length run_length starting at (x, y, z) along direction k: each Inside voxel
// on it exits after (run_length - j) steps.
static void offer_run(const types_grid* g, uint8_t* out, uint32_t* best, uint32_t k,
                      const int32_t start[3], uint32_t run_length)
{
    const int8_t* d = k_normal_offsets[k];
    uint32_t length_squared = (uint32_t)(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    int32_t x = start[0], y = start[1], z = start[2];
    for (uint32_t j = 0; j < run_length; ++j, x += d[0], y += d[1], z += d[2]) {
        size_t index = (size_t)x + (size_t)g->sx * ((size_t)z + (size_t)g->sz * (size_t)y);
        if (vxk_voxel_type_of(out[index]) != VXK_VOXEL_INSIDE)
            continue;
        uint32_t steps = run_length - j;
        uint32_t distance_squared = steps * steps * length_squared;
        if (distance_squared <
            best[index]) { // directions come in index order: ties keep the lowest
            best[index] = distance_squared;
            out[index] = vxk_voxel_byte(VXK_VOXEL_INSIDE, k);
        }
    }
}

// The normal of every Inside voxel of out (types already final). best: one uint32 per voxel.
static void inside_normals(const types_grid* g, uint8_t* out, uint32_t* best)
{
    size_t count = (size_t)g->sx * (size_t)g->sy * (size_t)g->sz;
    for (size_t i = 0; i < count; ++i)
        best[i] = UINT32_MAX;
    for (uint32_t k = 0; k < VXK_VOXEL_NORMAL_COUNT; ++k) {
        const int8_t* d = k_normal_offsets[k];
        for (int32_t y = 0; y < g->sy; ++y) {
            for (int32_t z = 0; z < g->sz; ++z) {
                for (int32_t x = 0; x < g->sx; ++x) {
                    if (in_grid(g, x - d[0], y - d[1], z - d[2]))
                        continue; // not the first cell of its line
                    int32_t p[3] = {x, y, z}, run_start[3] = {0, 0, 0};
                    uint32_t run_length = 0;
                    while (in_grid(g, p[0], p[1], p[2])) {
                        if (solid_at(g, p[0], p[1], p[2])) {
                            if (run_length++ == 0)
                                for (int a = 0; a < 3; ++a)
                                    run_start[a] = p[a];
                        } else if (run_length) {
                            offer_run(g, out, best, k, run_start, run_length);
                            run_length = 0;
                        }
                        for (int a = 0; a < 3; ++a)
                            p[a] += d[a];
                    }
                    if (run_length)
                        offer_run(g, out, best, k, run_start, run_length);
                }
            }
        }
    }
}

static vxk_status check_grid(const void* out, const vxk_voxel_grid* grid, const uint8_t* solid)
{
    if (!out || !grid || !grid->voxels || !solid)
        return VXK_ERR_INVALID_ARGUMENT;
    const vxk_int3 s = grid->size;
    if (s.x <= 0 || s.y <= 0 || s.z <= 0 || s.x > VXK_VOXEL_TYPES_MAX_SIZE ||
        s.y > VXK_VOXEL_TYPES_MAX_SIZE || s.z > VXK_VOXEL_TYPES_MAX_SIZE)
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

static inline size_t voxel_index(const types_grid* g, int32_t x, int32_t y, int32_t z)
{
    return (size_t)x + (size_t)g->sx * ((size_t)z + (size_t)g->sz * (size_t)y);
}

static inline bool in_box(vxk_int_box b, int32_t x, int32_t y, int32_t z)
{
    return x >= b.min.x && y >= b.min.y && z >= b.min.z && x <= b.max.x && y <= b.max.y &&
           z <= b.max.z;
}

// Marks every voxel v with v + t*d in changed for some t >= 0 and some direction d: the voxels
// whose walks along the 26 directions can cross the change. Returns how many were marked.
static size_t mark_lines_into(const types_grid* g, uint64_t* marks, vxk_int_box changed)
{
    size_t marked = 0;
    for (uint32_t k = 0; k < VXK_VOXEL_NORMAL_COUNT; ++k) {
        const int8_t* d = k_normal_offsets[k];
        for (int32_t y = changed.min.y; y <= changed.max.y; ++y) {
            for (int32_t z = changed.min.z; z <= changed.max.z; ++z) {
                for (int32_t x = changed.min.x; x <= changed.max.x; ++x) {
                    if (in_box(changed, x + d[0], y + d[1], z + d[2]))
                        continue; // on the walk of the cell after it
                    for (int32_t px = x, py = y, pz = z; in_grid(g, px, py, pz);
                         px -= d[0], py -= d[1], pz -= d[2]) {
                        size_t i = voxel_index(g, px, py, pz);
                        uint64_t bit = 1ull << (i & 63);
                        marked += (marks[i >> 6] & bit) == 0;
                        marks[i >> 6] |= bit;
                    }
                }
            }
        }
    }
    return marked;
}

// The normal index of an Inside voxel by walking the 26 directions, each only as far as it could
// still beat the best exit so far.
static uint32_t walk_inside_normal(const types_grid* g, int32_t x, int32_t y, int32_t z)
{
    uint32_t best = UINT32_MAX, best_k = 0;
    for (uint32_t k = 0; k < VXK_VOXEL_NORMAL_COUNT; ++k) {
        const int8_t* d = k_normal_offsets[k];
        uint32_t length_squared = (uint32_t)(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int32_t n = 1; (uint32_t)(n * n) * length_squared < best; ++n) {
            int32_t px = x + n * d[0], py = y + n * d[1], pz = z + n * d[2];
            if (!in_grid(g, px, py, pz) || !solid_at(g, px, py, pz)) {
                best = (uint32_t)(n * n) * length_squared;
                best_k = k;
                break;
            }
        }
    }
    return best_k;
}

// Types in box and the Inside normals a change in changed can move: all of them when whole (or
// when the lines through changed cover much of the grid: one pass per direction is then cheaper),
// else those of the marked voxels, walked one by one. Every allocation happens before out is
// written.
static vxk_status recompute(uint8_t* out, const vxk_voxel_grid* grid, const uint8_t* solid,
                            vxk_int_box box, vxk_int_box changed, bool whole)
{
    types_grid g = {
        grid->size.x, grid->size.y, grid->size.z, ((uint32_t)grid->size.x + 63) / 64, NULL, 0};
    g.rows_bytes = (size_t)g.sy * (size_t)g.sz * g.words * sizeof(uint64_t);
    g.rows = (uint64_t*)vxk_alloc(g.rows_bytes);
    if (!g.rows)
        return VXK_ERR_OUT_OF_MEMORY;
    build_rows(&g, grid, solid);
    const size_t count = (size_t)g.sx * (size_t)g.sy * (size_t)g.sz;
    const size_t marks_bytes = (count + 63) / 64 * sizeof(uint64_t);
    uint64_t* marks = NULL;
    size_t changed_count = (size_t)(changed.max.x - changed.min.x + 1) *
                           (size_t)(changed.max.y - changed.min.y + 1) *
                           (size_t)(changed.max.z - changed.min.z + 1);
    bool sweep = whole || changed_count * 8 > count;
    if (!sweep) {
        marks = (uint64_t*)vxk_calloc(marks_bytes);
        if (!marks) {
            vxk_free(g.rows, g.rows_bytes);
            return VXK_ERR_OUT_OF_MEMORY;
        }
        if (mark_lines_into(&g, marks, changed) > count / 8) {
            vxk_free(marks, marks_bytes);
            marks = NULL;
            sweep = true;
        }
    }
    uint32_t* best = NULL;
    const size_t best_bytes = count * sizeof(uint32_t);
    if (sweep && has_inside(&g)) {
        best = (uint32_t*)vxk_alloc(best_bytes);
        if (!best) {
            vxk_free(g.rows, g.rows_bytes);
            return VXK_ERR_OUT_OF_MEMORY;
        }
    }
    type_box(&g, out, box);
    if (best) {
        inside_normals(&g, out, best);
        vxk_free(best, best_bytes);
    }
    if (marks) {
        for (size_t w = 0; w < marks_bytes / sizeof(uint64_t); ++w) {
            for (uint64_t bits = marks[w]; bits; bits &= bits - 1) {
                size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
                if (vxk_voxel_type_of(out[i]) != VXK_VOXEL_INSIDE)
                    continue;
                int32_t x = (int32_t)(i % (size_t)g.sx);
                int32_t z = (int32_t)(i / (size_t)g.sx % (size_t)g.sz);
                int32_t y = (int32_t)(i / (size_t)g.sx / (size_t)g.sz);
                out[i] = vxk_voxel_byte(VXK_VOXEL_INSIDE, walk_inside_normal(&g, x, y, z));
            }
        }
        vxk_free(marks, marks_bytes);
    }
    vxk_free(g.rows, g.rows_bytes);
    return VXK_OK;
}

vxk_status vxk_voxel_types_compute(uint8_t* out, const vxk_voxel_grid* grid,
                                   const uint8_t solid[256])
{
    vxk_status status = check_grid(out, grid, solid);
    if (status != VXK_OK)
        return status;
    const vxk_int3 s = grid->size;
    const vxk_int_box whole = {{0, 0, 0}, {s.x - 1, s.y - 1, s.z - 1}};
    return recompute(out, grid, solid, whole, whole, true);
}

vxk_status vxk_voxel_types_update(uint8_t* types, const vxk_voxel_grid* grid,
                                  const uint8_t solid[256], vxk_int_box changed)
{
    vxk_status status = check_grid(types, grid, solid);
    if (status != VXK_OK)
        return status;
    if (changed.max.x < changed.min.x || changed.max.y < changed.min.y ||
        changed.max.z < changed.min.z)
        return VXK_ERR_INVALID_ARGUMENT;
    const vxk_int3 s = grid->size;
    if (changed.min.x < 0 || changed.min.y < 0 || changed.min.z < 0 || changed.max.x >= s.x ||
        changed.max.y >= s.y || changed.max.z >= s.z)
        return VXK_ERR_OUT_OF_RANGE;
    vxk_int_box grown = {{changed.min.x > 0 ? changed.min.x - 1 : 0,
                          changed.min.y > 0 ? changed.min.y - 1 : 0,
                          changed.min.z > 0 ? changed.min.z - 1 : 0},
                         {changed.max.x + 1 < s.x ? changed.max.x + 1 : s.x - 1,
                          changed.max.y + 1 < s.y ? changed.max.y + 1 : s.y - 1,
                          changed.max.z + 1 < s.z ? changed.max.z + 1 : s.z - 1}};
    return recompute(types, grid, solid, grown, changed, false);
}
