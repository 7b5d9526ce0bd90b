// shape_box.c: the box (shape.h): half extents along the body's axes about the centre of mass.
#include "shape.h"

vxk_shape_def vxk_box_shape(vxk_vec3 half_extents, uint8_t material)
{
    vxk_shape_def s;
    memset(&s, 0, sizeof(s));
    s.type = VXK_SHAPE_BOX;
    s.half_extents = half_extents;
    s.material = material;
    return s;
}

static vxk_status box_validate(const vxk_shape_def* s)
{
    vxk_vec3 h = s->half_extents;
    return vxk_size_in_range(h.x) && vxk_size_in_range(h.y) && vxk_size_in_range(h.z)
               ? VXK_OK
               : VXK_ERR_OUT_OF_RANGE;
}

static vxk_status box_mass(vxk_mass_properties* out, const vxk_shape_def* s, float density)
{
    return vxk_mass_box(out, s->half_extents, density);
}

static void box_init(vxk_body* b, const vxk_shape_def* s)
{
    b->radius = 0.0f; // not round
    b->bound_radius = vxk_v3_length(s->half_extents);
}

static vxk_aabb box_aabb(const vxk_body* b)
{
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    vxk_mat3 a = {vxk_v3_abs(r.cx), vxk_v3_abs(r.cy), vxk_v3_abs(r.cz)};
    vxk_vec3 e = vxk_mat3_mul_v(&a, b->half);
    return (vxk_aabb){vxk_v3_sub(b->pose.p, e), vxk_v3_add(b->pose.p, e)};
}

static vxk_vec3 box_extent(const vxk_body* b)
{
    return b->half;
}

static float box_min_extent(const vxk_body* b)
{
    return fminf(fminf(b->half.x, b->half.y), b->half.z);
}

static vxk_toi_piece box_piece(const vxk_body* b, uint32_t i)
{
    (void)i;
    vxk_toi_piece p;
    memset(&p, 0, sizeof(p));
    p.half = b->half;
    p.shape = VXK_TOI_BOX;
    return p;
}

const vxk_shape_class vxk_box_class = {

    box_validate, box_mass,
    box_init,     box_aabb,
    box_extent,   box_min_extent,
    vxk_ray_box,  vxk_shape_one_piece,
    box_piece,    vxk_collide_face_boxes,
};

static void box_sphere(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                       vxk_voxel_contact_scratch* scratch)
{
    (void)scratch;
    vxk_mat3 r = vxk_mat3_from_quat(a->pose.q);
    vxk_obb o = vxk_body_obb(a, &r, 0);
    vxk_manifold m;
    vxk_collide_box_sphere(&m, &o, b->pose.p, b->radius, margin);
    sink->add(sink, &m, 0, 0);
}

static void box_box(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                    vxk_voxel_contact_scratch* scratch)
{
    (void)scratch;
    vxk_mat3 ra = vxk_mat3_from_quat(a->pose.q), rb = vxk_mat3_from_quat(b->pose.q);
    vxk_obb oa = vxk_body_obb(a, &ra, 0), ob = vxk_body_obb(b, &rb, 0);
    vxk_manifold m;
    vxk_collide_boxes(&m, &oa, &ob, margin);
    sink->add(sink, &m, 0, 0);
}

void vxk_box_register(void)
{
    vxk_shapes_add_pair(VXK_SHAPE_BOX, VXK_SHAPE_SPHERE, box_sphere);
    vxk_shapes_add_pair(VXK_SHAPE_BOX, VXK_SHAPE_BOX, box_box);
}
