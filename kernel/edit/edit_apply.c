// edit_apply.c: the edits of vxk/edit.h applied to voxels. Spheres are walked row by row: a row's
// span comes from a square root and is then settled by the exact containment test of vxk/edit.h at
// its ends (the test is monotone along a row, so the span is exactly the voxels it accepts).
#include "edit_apply.h"

#include <math.h>

vxk_edit vxk_edit_set_voxel(vxk_int3 voxel, uint8_t material)
{
    vxk_edit e;
    memset(&e, 0, sizeof(e));
    e.kind = VXK_EDIT_SET_VOXEL;
    e.material = material;
    e.box = (vxk_int_box){voxel, voxel};
    return e;
}

vxk_edit vxk_edit_fill_box(vxk_int_box box, uint8_t material)
{
    vxk_edit e = vxk_edit_set_voxel(box.min, material);
    e.kind = VXK_EDIT_FILL_BOX;
    e.box = box;
    return e;
}

vxk_edit vxk_edit_fill_sphere(vxk_vec3 centre, float radius, uint8_t material)
{
    vxk_edit e = vxk_edit_set_voxel((vxk_int3){0, 0, 0}, material);
    e.kind = VXK_EDIT_FILL_SPHERE;
    e.centre = centre;
    e.radius = radius;
    return e;
}

vxk_edit vxk_edit_carve_sphere(vxk_vec3 centre, float radius)
{
    return vxk_edit_fill_sphere(centre, radius, VXK_MAT_AIR);
}

vxk_edit vxk_edit_paint_box(vxk_int_box box, uint8_t material)
{
    vxk_edit e = vxk_edit_fill_box(box, material);
    e.kind = VXK_EDIT_PAINT_BOX;
    return e;
}

vxk_edit vxk_edit_paint_sphere(vxk_vec3 centre, float radius, uint8_t material)
{
    vxk_edit e = vxk_edit_fill_sphere(centre, radius, material);
    e.kind = VXK_EDIT_PAINT_SPHERE;
    return e;
}

static bool is_sphere(const vxk_edit* e)
{
    return e->kind == VXK_EDIT_FILL_SPHERE || e->kind == VXK_EDIT_PAINT_SPHERE;
}

static bool is_paint(const vxk_edit* e)
{
    return e->kind == VXK_EDIT_PAINT_BOX || e->kind == VXK_EDIT_PAINT_SPHERE;
}

vxk_status vxk_edit_check(const vxk_edit* e, const vxk_material_table* materials,
                          vxk_int_box* bounds)
{
    if (e->kind < VXK_EDIT_SET_VOXEL || e->kind > VXK_EDIT_PAINT_SPHERE)
        return VXK_ERR_INVALID_ARGUMENT;
    if (is_sphere(e)) {
        if (!vxk_vec3_is_finite(e->centre) || !vxk_is_finite(e->radius))
            return VXK_ERR_NOT_FINITE;
        if (!(e->radius > 0.0f) || e->radius > VXK_EDIT_MAX_RADIUS)
            return VXK_ERR_OUT_OF_RANGE;
        const double c[3] = {e->centre.x, e->centre.y, e->centre.z};
        double lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = floor(c[a] - (double)e->radius - 0.5) - 1.0;
            hi[a] = floor(c[a] + (double)e->radius - 0.5) + 1.0;
            if (lo[a] < (double)INT32_MIN || hi[a] > (double)INT32_MAX)
                return VXK_ERR_OUT_OF_RANGE;
        }
        *bounds = (vxk_int_box){{(int32_t)lo[0], (int32_t)lo[1], (int32_t)lo[2]},
                                {(int32_t)hi[0], (int32_t)hi[1], (int32_t)hi[2]}};
    } else {
        vxk_int_box b = e->box;
        if (e->kind == VXK_EDIT_SET_VOXEL)
            b.max = b.min;
        if (b.max.x < b.min.x || b.max.y < b.min.y || b.max.z < b.min.z)
            return VXK_ERR_INVALID_ARGUMENT;
        if ((int64_t)b.max.x - b.min.x >= VXK_EDIT_MAX_EXTENT ||
            (int64_t)b.max.y - b.min.y >= VXK_EDIT_MAX_EXTENT ||
            (int64_t)b.max.z - b.min.z >= VXK_EDIT_MAX_EXTENT)
            return VXK_ERR_OUT_OF_RANGE;
        *bounds = b;
    }
    bool defined = e->material == VXK_MAT_AIR || materials->materials[e->material].defined;
    if (!defined || (is_paint(e) && e->material == VXK_MAT_AIR))
        return VXK_ERR_BAD_MATERIAL;
    return VXK_OK;
}

static bool box_intersect(vxk_int_box a, vxk_int_box b, vxk_int_box* out)
{
    out->min =
        (vxk_int3){VXK_MAX(a.min.x, b.min.x), VXK_MAX(a.min.y, b.min.y), VXK_MAX(a.min.z, b.min.z)};
    out->max =
        (vxk_int3){VXK_MIN(a.max.x, b.max.x), VXK_MIN(a.max.y, b.max.y), VXK_MIN(a.max.z, b.max.z)};
    return out->min.x <= out->max.x && out->min.y <= out->max.y && out->min.z <= out->max.z;
}

vxk_status vxk_edit_clip_to_grid(const vxk_edit* e, vxk_int_box bounds, vxk_int3 size,
                                 vxk_int_box* clipped)
{
    vxk_int_box grid = {{0, 0, 0}, {size.x - 1, size.y - 1, size.z - 1}};
    if (!box_intersect(bounds, grid, clipped))
        return VXK_ERR_OUT_OF_RANGE;
    if (!is_sphere(e) && (clipped->min.x != bounds.min.x || clipped->min.y != bounds.min.y ||
                          clipped->min.z != bounds.min.z || clipped->max.x != bounds.max.x ||
                          clipped->max.y != bounds.max.y || clipped->max.z != bounds.max.z))
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

// Writes a run of voxels: all of them (fill) or the non-air ones (paint).
static inline void write_run(uint8_t* row, int64_t count, uint8_t material, bool paint)
{
    if (!paint) {
        memset(row, material, (size_t)count);
        return;
    }
    for (int64_t i = 0; i < count; ++i)
        if (row[i] != VXK_MAT_AIR)
            row[i] = material;
}

typedef struct sphere {
    double cx, cy, cz, r2;
} sphere;

// The exact containment test of vxk/edit.h, the row's (dy^2) term given.
static inline bool sphere_holds(const sphere* s, int64_t x, double dy2, double dz2)
{
    double dx = ((double)x + 0.5) - s->cx;
    return (dx * dx + dy2) + dz2 <= s->r2;
}

// The voxels of a row inside the sphere: false when none.
static bool sphere_row(const sphere* s, double dy2, double dz2, int64_t* x0, int64_t* x1)
{
    int64_t near = (int64_t)floor(s->cx); // its centre is the row's nearest to the sphere's
    if (!sphere_holds(s, near, dy2, dz2))
        return false;
    double rest = s->r2 - dy2 - dz2;
    double half = rest > 0.0 ? sqrt(rest) : 0.0;
    int64_t lo = VXK_MIN((int64_t)floor(s->cx - half - 0.5), near);
    int64_t hi = VXK_MAX((int64_t)floor(s->cx + half - 0.5), near);
    while (sphere_holds(s, lo - 1, dy2, dz2))
        --lo;
    while (!sphere_holds(s, lo, dy2, dz2))
        ++lo;
    while (sphere_holds(s, hi + 1, dy2, dz2))
        ++hi;
    while (!sphere_holds(s, hi, dy2, dz2))
        --hi;
    *x0 = lo;
    *x1 = hi;
    return true;
}

bool vxk_edit_apply_dense(const vxk_edit* e, uint8_t* voxels, vxk_int_box box)
{
    const int64_t sx = (int64_t)box.max.x - box.min.x + 1, sz = (int64_t)box.max.z - box.min.z + 1;
    const bool paint = is_paint(e);
    if (!is_sphere(e)) {
        vxk_int_box b = e->box, part;
        if (e->kind == VXK_EDIT_SET_VOXEL)
            b.max = b.min;
        if (!box_intersect(b, box, &part))
            return false;
        int64_t width = (int64_t)part.max.x - part.min.x + 1;
        for (int64_t y = part.min.y; y <= part.max.y; ++y)
            for (int64_t z = part.min.z; z <= part.max.z; ++z) {
                uint8_t* row = voxels + (part.min.x - box.min.x) +
                               sx * ((z - box.min.z) + sz * (y - box.min.y));
                write_run(row, width, e->material, paint);
            }
        return true;
    }
    sphere s = {e->centre.x, e->centre.y, e->centre.z, (double)e->radius * (double)e->radius};
    // The rows within the sphere's bounds (one voxel wider, as vxk_edit_check's).
    double r = e->radius;
    int64_t y0 = VXK_MAX((int64_t)box.min.y, (int64_t)floor(s.cy - r - 0.5) - 1);
    int64_t y1 = VXK_MIN((int64_t)box.max.y, (int64_t)floor(s.cy + r - 0.5) + 1);
    int64_t z0 = VXK_MAX((int64_t)box.min.z, (int64_t)floor(s.cz - r - 0.5) - 1);
    int64_t z1 = VXK_MIN((int64_t)box.max.z, (int64_t)floor(s.cz + r - 0.5) + 1);
    bool touched = false;
    for (int64_t y = y0; y <= y1; ++y) {
        double dy = ((double)y + 0.5) - s.cy;
        double dy2 = dy * dy;
        if (dy2 > s.r2)
            continue;
        for (int64_t z = z0; z <= z1; ++z) {
            double dz = ((double)z + 0.5) - s.cz;
            int64_t x0, x1;
            if (!sphere_row(&s, dy2, dz * dz, &x0, &x1))
                continue;
            x0 = VXK_MAX(x0, (int64_t)box.min.x);
            x1 = VXK_MIN(x1, (int64_t)box.max.x);
            if (x0 > x1)
                continue;
            touched = true;
            uint8_t* row =
                voxels + (x0 - box.min.x) + sx * ((z - box.min.z) + sz * (y - box.min.y));
            write_run(row, x1 - x0 + 1, e->material, paint);
        }
    }
    return touched;
}

vxk_int_box vxk_edit_chunk_box(vxk_int_box v)
{
    return (vxk_int_box){
        {vxk_floor_div8(v.min.x), vxk_floor_div8(v.min.y), vxk_floor_div8(v.min.z)},
        {vxk_floor_div8(v.max.x), vxk_floor_div8(v.max.y), vxk_floor_div8(v.max.z)}};
}

static bool edit_chunk(void* ctx, vxk_int3 chunk, uint8_t* voxels)
{
    const vxk_edit* e = (const vxk_edit*)ctx;
    vxk_int3 o = {chunk.x * 8, chunk.y * 8, chunk.z * 8};
    vxk_int_box box = {o, {o.x + 7, o.y + 7, o.z + 7}};
    return vxk_edit_apply_dense(e, voxels, box);
}

vxk_status vxk_edit_apply_terrain(const vxk_edit* e, vxk_terrain* terrain, vxk_int_box bounds)
{
    if (e->kind == VXK_EDIT_SET_VOXEL || e->kind == VXK_EDIT_FILL_BOX)
        return vxk_terrain_fill(terrain, bounds, e->material);
    return vxk_terrain_edit_chunks(terrain, vxk_edit_chunk_box(bounds), edit_chunk, (void*)e);
}
