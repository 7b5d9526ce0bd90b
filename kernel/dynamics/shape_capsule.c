// shape_capsule.c: the capsule (shape.h): the segment from (0, -half height, 0) to (0, half
// height, 0) of the body frame swept by a radius, centred at the centre of mass. The body keeps
// radius and half = (0, half height, 0). Contacts and time of impact: collision/contact_capsule.h;
// against a voxel body, its box compound (the boxes cover its voxels exactly).
#include "contact_capsule.h"
#include "shape.h"

vxk_shape_def vxk_capsule_shape(float half_height, float radius, uint8_t material)
{
    vxk_shape_def s;
    memset(&s, 0, sizeof(s));
    s.type = VXK_SHAPE_CAPSULE;
    s.half_height = half_height;
    s.radius = radius;
    s.material = material;
    return s;
}

static vxk_status capsule_validate(const vxk_shape_def* s)
{
    if (!vxk_is_finite(s->half_height))
        return VXK_ERR_NOT_FINITE;
    return vxk_size_in_range(s->radius) && vxk_size_in_range(s->half_height) ? VXK_OK
                                                                             : VXK_ERR_OUT_OF_RANGE;
}

// A cylinder of length 2h and two hemispheres of radius r; each hemisphere's inertia about the
// capsule's centre by the parallel-axis theorem from its own centroid, 3r/8 from its base.
static vxk_status capsule_mass(vxk_mass_properties* out, const vxk_shape_def* s, float density)
{
    const double pi = 3.14159265358979323846;
    double r = s->radius, h = s->half_height, rho = density;
    double cylinder = rho * pi * r * r * 2.0 * h, caps = rho * 4.0 / 3.0 * pi * r * r * r;
    double mass = cylinder + caps;
    if (!(mass > 0.0) || !vxk_is_finite((float)mass))
        return VXK_ERR_OUT_OF_RANGE;
    double axial = cylinder * r * r / 2.0 + caps * 2.0 * r * r / 5.0;
    double across = cylinder * (r * r / 4.0 + h * h / 3.0) +
                    caps * (2.0 * r * r / 5.0 + h * h + 3.0 * h * r / 4.0);
    memset(out, 0, sizeof(*out));
    out->mass = mass;
    out->inertia[0][0] = across;
    out->inertia[1][1] = axial;
    out->inertia[2][2] = across;
    return VXK_OK;
}

static void capsule_init(vxk_body* b, const vxk_shape_def* s)
{
    b->half = vxk_v3(0.0f, s->half_height, 0.0f);
    b->bound_radius = s->half_height + s->radius;
}

// The capsule of a body at its pose, in world.
static vxk_capsule body_capsule(const vxk_body* b)
{
    vxk_vec3 axis = vxk_quat_rotate(b->pose.q, b->half);
    return (vxk_capsule){vxk_v3_sub(b->pose.p, axis), vxk_v3_add(b->pose.p, axis), b->radius};
}

static vxk_aabb capsule_aabb(const vxk_body* b)
{
    vxk_vec3 axis = vxk_v3_abs(vxk_quat_rotate(b->pose.q, b->half));
    vxk_vec3 e = vxk_v3_add(axis, vxk_v3(b->radius, b->radius, b->radius));
    return (vxk_aabb){vxk_v3_sub(b->pose.p, e), vxk_v3_add(b->pose.p, e)};
}

static vxk_vec3 capsule_extent(const vxk_body* b)
{
    return vxk_v3(b->radius, b->half.y + b->radius, b->radius);
}

static float capsule_min_extent(const vxk_body* b)
{
    return b->radius;
}

static vxk_toi_piece capsule_piece(const vxk_body* b, uint32_t i)
{
    (void)i;
    return vxk_capsule_piece(vxk_v3(0, 0, 0), b->half.y, b->radius);
}

// The exact ray test in the body frame (double): the cylinder's side between the caps, then the
// two end spheres on their outer halves.
static void capsule_ray(const vxk_body_ray* r, const vxk_body* b, uint32_t index,
                        vxk_body_hit* best)
{
    vxk_ray_rot3 rot = vxk_ray_rotation(b->pose.q);
    vxk_body_ray l = vxk_ray_to_local(r, b, &rot);
    const double h = b->half.y, rad = b->radius;
    const double* o = l.o;
    const double* d = l.d;
    double cy = o[1] < -h ? -h : (o[1] > h ? h : o[1]);
    if (o[0] * o[0] + (o[1] - cy) * (o[1] - cy) + o[2] * o[2] <= rad * rad) {
        if (vxk_ray_takes(best, 0.0, index)) {
            vxk_ray_hit_inside(r, best, index);
            best->material = b->material;
            best->voxel = (vxk_int3){0, 0, 0};
        }
        return;
    }
    double t_hit = INFINITY, n[3] = {0.0, 0.0, 0.0};
    double a = d[0] * d[0] + d[2] * d[2];
    if (a > 1e-18) {
        double bq = o[0] * d[0] + o[2] * d[2];
        double c = o[0] * o[0] + o[2] * o[2] - rad * rad;
        double disc = bq * bq - a * c;
        if (disc >= 0.0) {
            double t = (-bq - sqrt(disc)) / a;
            double y = o[1] + t * d[1];
            if (t >= 0.0 && y >= -h && y <= h) {
                t_hit = t;
                n[0] = (o[0] + t * d[0]) / rad;
                n[2] = (o[2] + t * d[2]) / rad;
            }
        }
    }
    for (int k = 0; k < 2; ++k) {
        double cap = k ? h : -h;
        double oc[3] = {o[0], o[1] - cap, o[2]};
        double bq = oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2];
        double c = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - rad * rad;
        double disc = bq * bq - c;
        if (c <= 0.0 || bq >= 0.0 || disc < 0.0)
            continue;
        double t = c / (-bq + sqrt(disc)); // the nearer root, without cancellation
        double y = oc[1] + t * d[1];
        if ((k ? y < 0.0 : y > 0.0) || t >= t_hit)
            continue;
        t_hit = t;
        for (int j = 0; j < 3; ++j)
            n[j] = (oc[j] + t * d[j]) / rad;
    }
    // No hit leaves t_hit infinite, which an unlimited ray's tmax would let through.
    if (t_hit == INFINITY || !(t_hit <= r->tmax) || !vxk_ray_takes(best, t_hit, index))
        return;
    best->t = t_hit;
    best->index = index;
    for (int k = 0; k < 3; ++k)
        best->n[k] = rot.m[0][k] * n[0] + rot.m[1][k] * n[1] + rot.m[2][k] * n[2];
    best->material = b->material;
    best->voxel = (vxk_int3){0, 0, 0};
}

static void capsule_face(vxk_contact_sink* sink, const vxk_body* b, const vxk_mat3* rot,
                         const vxk_face* f, uint32_t key, float margin)
{
    (void)rot;
    vxk_capsule c = body_capsule(b);
    vxk_manifold m[2];
    uint32_t n = vxk_collide_face_capsule(m, f, &c, margin);
    for (uint32_t i = 0; i < n; ++i)
        sink->add(sink, &m[i], key * 0x01000193u + i, f->material);
}

const vxk_shape_class vxk_capsule_class = {
    capsule_validate,   capsule_mass, capsule_init,        capsule_aabb,  capsule_extent,
    capsule_min_extent, capsule_ray,  vxk_shape_one_piece, capsule_piece, capsule_face,
};

static void capsule_sphere(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b,
                           float margin, vxk_voxel_contact_scratch* scratch)
{
    (void)scratch;
    vxk_capsule c = body_capsule(a);
    vxk_manifold m;
    vxk_collide_capsule_sphere(&m, &c, b->pose.p, b->radius, margin);
    sink->add(sink, &m, 0, 0);
}

static void capsule_capsule(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b,
                            float margin, vxk_voxel_contact_scratch* scratch)
{
    (void)scratch;
    vxk_capsule ca = body_capsule(a), cb = body_capsule(b);
    vxk_manifold m;
    vxk_collide_capsules(&m, &ca, &cb, margin);
    sink->add(sink, &m, 0, 0);
}

// A box or a voxel body's compound boxes (bounding-sphere culled) against a capsule.
static void boxes_capsule(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b,
                          float margin, vxk_voxel_contact_scratch* scratch)
{
    (void)scratch;
    vxk_capsule c = body_capsule(b);
    vxk_mat3 r = vxk_mat3_from_quat(a->pose.q);
    uint32_t boxes = a->voxels ? a->voxels->box_count : 1;
    for (uint32_t i = 0; i < boxes; ++i) {
        vxk_obb o = vxk_body_obb(a, &r, i);
        if (boxes > 1) {
            float reach = vxk_v3_length(o.half) + b->bound_radius + margin;
            if (vxk_v3_length_sq(vxk_v3_sub(o.center, b->pose.p)) > reach * reach)
                continue;
        }
        vxk_manifold m;
        vxk_collide_box_capsule(&m, &o, &c, margin);
        sink->add(sink, &m, i, 0);
    }
}

void vxk_capsule_register(void)
{
    vxk_shapes_add_pair(VXK_SHAPE_CAPSULE, VXK_SHAPE_SPHERE, capsule_sphere);
    vxk_shapes_add_pair(VXK_SHAPE_CAPSULE, VXK_SHAPE_CAPSULE, capsule_capsule);
    vxk_shapes_add_pair(VXK_SHAPE_BOX, VXK_SHAPE_CAPSULE, boxes_capsule);
    vxk_shapes_add_pair(VXK_SHAPE_VOXELS, VXK_SHAPE_CAPSULE, boxes_capsule);
}
