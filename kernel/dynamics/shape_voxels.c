// shape_voxels.c: the voxel shape (shape.h): a grid of materials in the body frame, its box
// compound (the pieces of its time of impact) and the voxel view its contacts are made from (seed
// 003's voxel contacts, collision/contact_voxel.h). Its grid data is built by body.c.
#include "shape.h"

vxk_shape_def vxk_voxel_shape(const vxk_voxel_grid* grid, float voxel_size)
{
    vxk_shape_def s;
    memset(&s, 0, sizeof(s));
    s.type = VXK_SHAPE_VOXELS;
    s.grid = grid;
    s.voxel_size = voxel_size;
    return s;
}

static vxk_status voxel_validate(const vxk_shape_def* s)
{
    if (!s->grid || !s->grid->voxels)
        return VXK_ERR_INVALID_ARGUMENT;
    // 0: the world's voxel size.
    if ((s->voxel_size != 0.0f && !vxk_size_in_range(s->voxel_size)) || s->grid->size.x < 1 ||
        s->grid->size.y < 1 || s->grid->size.z < 1 || s->grid->size.x > VXK_BODY_MAX_GRID ||
        s->grid->size.y > VXK_BODY_MAX_GRID || s->grid->size.z > VXK_BODY_MAX_GRID)
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK; // materials are checked while the shape is built
}

void vxk_voxel_shape_bound(vxk_body* b)
{
    const vxk_voxel_data* vs = b->voxels;
    float r2 = 0.0f;
    for (uint32_t i = 0; i < vs->box_count; ++i) {
        vxk_vec3 far = vxk_v3_add(vxk_v3_abs(vs->box_center[i]), vs->box_half[i]);
        r2 = fmaxf(r2, vxk_v3_length_sq(far));
    }
    b->bound_radius = sqrtf(r2);
}

static void voxel_init(vxk_body* b, const vxk_shape_def* s)
{
    (void)s;
    b->radius = 0.0f; // not round
    vxk_voxel_shape_bound(b);
}

static vxk_aabb voxel_aabb(const vxk_body* b)
{
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    vxk_vec3 c = vxk_v3_add(b->pose.p, vxk_mat3_mul_v(&r, b->voxels->local_mid));
    vxk_mat3 a = {vxk_v3_abs(r.cx), vxk_v3_abs(r.cy), vxk_v3_abs(r.cz)};
    vxk_vec3 e = vxk_mat3_mul_v(&a, b->voxels->local_half);
    return (vxk_aabb){vxk_v3_sub(c, e), vxk_v3_add(c, e)};
}

static vxk_vec3 voxel_extent(const vxk_body* b)
{
    return vxk_v3_add(vxk_v3_abs(b->voxels->local_mid), b->voxels->local_half);
}

static float voxel_min_extent(const vxk_body* b)
{
    vxk_vec3 h = b->voxels->local_half;
    return fminf(fminf(h.x, h.y), h.z);
}

static uint32_t voxel_piece_count(const vxk_body* b)
{
    return b->voxels->box_count;
}

static vxk_toi_piece voxel_piece(const vxk_body* b, uint32_t i)
{
    vxk_toi_piece p;
    memset(&p, 0, sizeof(p));
    p.center = b->voxels->box_center[i];
    p.half = b->voxels->box_half[i];
    p.shape = VXK_TOI_BOX;
    return p;
}

const vxk_shape_class vxk_voxel_class = {
    voxel_validate, NULL,
    voxel_init,     voxel_aabb,
    voxel_extent,   voxel_min_extent,
    vxk_ray_voxels, voxel_piece_count,
    voxel_piece,
    NULL, // the terrain voxel against voxel (narrowphase.c)
};

static void voxel_voxel(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                        vxk_voxel_contact_scratch* scratch)
{
    vxk_voxel_manifolds vm;
    vxk_collide_voxels(&vm, scratch, &a->voxels->view, &b->voxels->view, margin, 0);
    for (uint32_t k = 0; k < vm.count; ++k)
        sink->add(sink, &vm.manifolds[k], 0, 0);
}

static void voxel_sphere(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                         vxk_voxel_contact_scratch* scratch)
{
    vxk_voxel_manifolds vm;
    vxk_collide_voxel_sphere(&vm, scratch, &a->voxels->view, b->pose.p, b->radius, margin, 0);
    for (uint32_t k = 0; k < vm.count; ++k)
        sink->add(sink, &vm.manifolds[k], 0, 0);
}

static void voxel_box(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                      vxk_voxel_contact_scratch* scratch)
{
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    vxk_obb box = vxk_body_obb(b, &r, 0);
    vxk_voxel_manifolds vm;
    vxk_collide_voxel_box(&vm, scratch, &a->voxels->view, &box, margin, 0);
    for (uint32_t k = 0; k < vm.count; ++k)
        sink->add(sink, &vm.manifolds[k], 0, 0);
}

void vxk_voxel_register(void)
{
    vxk_shapes_add_pair(VXK_SHAPE_VOXELS, VXK_SHAPE_VOXELS, voxel_voxel);
    vxk_shapes_add_pair(VXK_SHAPE_VOXELS, VXK_SHAPE_SPHERE, voxel_sphere);
    vxk_shapes_add_pair(VXK_SHAPE_VOXELS, VXK_SHAPE_BOX, voxel_box);
}
