// mass.c: mass, centre of mass and inertia tensor of voxel grids, exact for unit cubes: the grid's
// per-material box compound (boxes.c, seed 004), each box a solid cuboid moved to the common
// centre of mass by the parallel-axis theorem (seed 003 sums point masses instead).
//
// Sums run in voxel units relative to the first box's corner, so their magnitudes follow the
// body, not its place in the grid (a body translated in the grid gets the same inertia bits), and
// the voxel size is applied once at the end (mass s^3, centre s, inertia s^5).
#include <vxk/boxes.h>
#include <vxk/mass.h>

#include "core.h"

vxk_status vxk_mass_from_grid(vxk_mass_properties* out, const vxk_voxel_grid* grid,
                              const float density[256], float voxel_size)
{
    if (!out || !grid || !grid->voxels || !density)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_is_finite(voxel_size))
        return VXK_ERR_NOT_FINITE;
    if (!(voxel_size > 0.0f))
        return VXK_ERR_OUT_OF_RANGE;
    vxk_int3 size = grid->size;
    if (size.x <= 0 || size.y <= 0 || size.z <= 0 || size.x > VXK_MASS_GRID_MAX ||
        size.y > VXK_MASS_GRID_MAX || size.z > VXK_MASS_GRID_MAX)
        return VXK_ERR_OUT_OF_RANGE;

    bool used[256] = {false};
    size_t voxel_count = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    for (size_t i = 0; i < voxel_count; ++i)
        used[grid->voxels[i]] = true;
    uint8_t has_mass[256] = {0};
    vxk_status density_status = VXK_OK;
    for (int id = 1; id < 256; ++id) {
        if (!used[id])
            continue;
        if (!vxk_is_finite(density[id]))
            return VXK_ERR_NOT_FINITE;
        if (density[id] < 0.0f)
            density_status = VXK_ERR_OUT_OF_RANGE; // a later id may still be NaN
        has_mass[id] = density[id] > 0.0f;
    }
    if (density_status != VXK_OK)
        return density_status;

    // Ids of zero density are air to the decomposition: fewer boxes, same sums.
    vxk_box_list list = {0};
    vxk_status status = vxk_boxes_grid(&list, grid, has_mass, VXK_BOXES_PER_MATERIAL);
    if (status != VXK_OK) {
        vxk_box_list_free(&list);
        VXK_ASSERT(status == VXK_ERR_OUT_OF_MEMORY); // sizes were checked, boxes <= voxels
        return status;
    }
    if (list.count == 0) {
        vxk_box_list_free(&list);
        return VXK_ERR_OUT_OF_RANGE;
    }

    // Pass 1: mass and first moment about the reference corner.
    const vxk_voxel_box* boxes = list.boxes;
    const double ref[3] = {boxes[0].x, boxes[0].y, boxes[0].z};
    double mass = 0.0, moment[3] = {0.0, 0.0, 0.0};
    for (uint32_t k = 0; k < list.count; ++k) {
        const vxk_voxel_box* b = &boxes[k];
        double m = (double)density[b->material] * ((double)b->size_x * b->size_y * b->size_z);
        mass += m;
        moment[0] += m * ((double)b->x - ref[0] + 0.5 * b->size_x);
        moment[1] += m * ((double)b->y - ref[1] + 0.5 * b->size_y);
        moment[2] += m * ((double)b->z - ref[2] + 0.5 * b->size_z);
    }
    VXK_ASSERT(mass > 0.0);
    const double com[3] = {moment[0] / mass, moment[1] / mass, moment[2] / mass};

    // Pass 2: each box's own inertia plus the parallel-axis term about the centre of mass.
    double ixx = 0.0, iyy = 0.0, izz = 0.0, ixy = 0.0, ixz = 0.0, iyz = 0.0;
    for (uint32_t k = 0; k < list.count; ++k) {
        const vxk_voxel_box* b = &boxes[k];
        double a = b->size_x, bb = b->size_y, c = b->size_z;
        double m = (double)density[b->material] * (a * bb * c);
        double dx = (double)b->x - ref[0] + 0.5 * a - com[0];
        double dy = (double)b->y - ref[1] + 0.5 * bb - com[1];
        double dz = (double)b->z - ref[2] + 0.5 * c - com[2];
        double own = m / 12.0;
        ixx += own * (bb * bb + c * c) + m * (dy * dy + dz * dz);
        iyy += own * (a * a + c * c) + m * (dx * dx + dz * dz);
        izz += own * (a * a + bb * bb) + m * (dx * dx + dy * dy);
        ixy -= m * dx * dy;
        ixz -= m * dx * dz;
        iyz -= m * dy * dz;
    }
    vxk_box_list_free(&list);

    double s = voxel_size, s3 = s * s * s, s5 = s3 * s * s;
    out->mass = mass * s3;
    for (int i = 0; i < 3; ++i)
        out->center[i] = (ref[i] + com[i]) * s;
    out->inertia[0][0] = ixx * s5;
    out->inertia[1][1] = iyy * s5;
    out->inertia[2][2] = izz * s5;
    out->inertia[0][1] = out->inertia[1][0] = ixy * s5;
    out->inertia[0][2] = out->inertia[2][0] = ixz * s5;
    out->inertia[1][2] = out->inertia[2][1] = iyz * s5;
    return VXK_OK;
}

vxk_status vxk_mass_box(vxk_mass_properties* out, vxk_vec3 half_extents, float density)
{
    if (!out)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_vec3_is_finite(half_extents) || !vxk_is_finite(density))
        return VXK_ERR_NOT_FINITE;
    if (!(half_extents.x > 0.0f && half_extents.y > 0.0f && half_extents.z > 0.0f) ||
        !(density > 0.0f))
        return VXK_ERR_OUT_OF_RANGE;
    double hx = half_extents.x, hy = half_extents.y, hz = half_extents.z;
    double mass = 8.0 * hx * hy * hz * (double)density;
    vxk_mass_properties p;
    memset(&p, 0, sizeof(p));
    p.mass = mass;
    p.inertia[0][0] = mass / 3.0 * (hy * hy + hz * hz);
    p.inertia[1][1] = mass / 3.0 * (hx * hx + hz * hz);
    p.inertia[2][2] = mass / 3.0 * (hx * hx + hy * hy);
    *out = p;
    return VXK_OK;
}

vxk_status vxk_mass_sphere(vxk_mass_properties* out, float radius, float density)
{
    if (!out)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_is_finite(radius) || !vxk_is_finite(density))
        return VXK_ERR_NOT_FINITE;
    if (!(radius > 0.0f) || !(density > 0.0f))
        return VXK_ERR_OUT_OF_RANGE;
    double r = radius;
    double mass = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r * (double)density;
    vxk_mass_properties p;
    memset(&p, 0, sizeof(p));
    p.mass = mass;
    p.inertia[0][0] = p.inertia[1][1] = p.inertia[2][2] = 0.4 * mass * r * r;
    *out = p;
    return VXK_OK;
}
