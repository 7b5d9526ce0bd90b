// shape_sphere.c: the sphere (shape.h): a radius about the centre of mass.
#include "shape.h"

vxk_shape_def vxk_sphere_shape(float radius, uint8_t material)
{
    vxk_shape_def s;
    memset(&s, 0, sizeof(s));
    s.type = VXK_SHAPE_SPHERE;
    s.radius = radius;
    s.material = material;
    return s;
}

static vxk_status sphere_validate(const vxk_shape_def* s)
{
    return vxk_size_in_range(s->radius) ? VXK_OK : VXK_ERR_OUT_OF_RANGE;
}

static vxk_status sphere_mass(vxk_mass_properties* out, const vxk_shape_def* s, float density)
{
    return vxk_mass_sphere(out, s->radius, density);
}

static void sphere_init(vxk_body* b, const vxk_shape_def* s)
{
    b->bound_radius = s->radius;
}

static vxk_aabb sphere_aabb(const vxk_body* b)
{
    vxk_vec3 e = vxk_v3(b->radius, b->radius, b->radius);
    return (vxk_aabb){vxk_v3_sub(b->pose.p, e), vxk_v3_add(b->pose.p, e)};
}

static vxk_vec3 sphere_extent(const vxk_body* b)
{
    return vxk_v3(b->radius, b->radius, b->radius);
}

static float sphere_min_extent(const vxk_body* b)
{
    return b->radius;
}

static vxk_toi_piece sphere_piece(const vxk_body* b, uint32_t i)
{
    (void)i;
    vxk_toi_piece p;
    memset(&p, 0, sizeof(p));
    p.radius = b->radius;
    p.shape = VXK_TOI_SPHERE;
    return p;
}

static void sphere_face(vxk_contact_sink* sink, const vxk_body* b, const vxk_mat3* rot,
                        const vxk_face* f, uint32_t key, float margin)
{
    (void)rot;
    vxk_manifold m;
    vxk_collide_face_sphere(&m, f, b->pose.p, b->radius, margin);
    sink->add(sink, &m, key, f->material);
}

const vxk_shape_class vxk_sphere_class = {
    sphere_validate,   sphere_mass,    sphere_init,         sphere_aabb,  sphere_extent,
    sphere_min_extent, vxk_ray_sphere, vxk_shape_one_piece, sphere_piece, sphere_face,
};

static void sphere_sphere(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b,
                          float margin, vxk_voxel_contact_scratch* scratch)
{
    (void)scratch;
    vxk_manifold m;
    vxk_collide_spheres(&m, a->pose.p, a->radius, b->pose.p, b->radius, margin);
    sink->add(sink, &m, 0, 0);
}

void vxk_sphere_register(void)
{
    vxk_shapes_add_pair(VXK_SHAPE_SPHERE, VXK_SHAPE_SPHERE, sphere_sphere);
}
