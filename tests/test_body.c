// test_body.c: the rigid-body API of vxk/body.h at its edges. Defaults of the defs; create,
// destroy and validity; poses, velocities and user data; impulses against the body's mass and
// inertia tensor (dv = J / m, dw = I_world^-1 (r x J)) and forces over a step; iteration in id
// order; ids stale for ever, index reuse included. Voxel bodies against vxk/mass.h and
// vxk/voxel_types.h on the same grid, and vxk_body_set_voxels keeping the grid's world pose.
// Edge tests (harness.h): every bad input and stale id returns its documented status and changes
// nothing (world hash, byte counter, outputs); creation, voxel writes and steps out of memory
// change nothing; a warm world steps without allocating.
#include "harness.h"
#include "scenes.h"
#include "test.h"
#include "status_lists.h"

#include <vxk/body.h>
#include <vxk/mass.h>
#include <vxk/vox.h>
#include <vxk/voxel_types.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- helpers ------------------------------------------------------------------------------------

#define STEP_DT (1.0f / 60.0f)
#define MAT_VOID 20  // solid, density 0: a dynamic body of it has no mass
#define MAT_LIGHT 21 // solid, density 0.5

static const vxk_quat k_identity = {0.0f, 0.0f, 0.0f, 1.0f};

// The default table plus MAT_VOID and MAT_LIGHT.
static const vxk_material_table* test_materials(void)
{
    static vxk_material_table table;
    static bool made;
    if (!made) {
        vxk_default_material_table(&table);
        vxk_material* m = &table.materials[MAT_VOID];
        m->kind = VXK_MATERIAL_SOLID;
        m->defined = 1;
        m->density = 0.0f;
        m->friction = 0.5f;
        m->restitution = 0.0f;
        strcpy(m->name, "void");
        m = &table.materials[MAT_LIGHT];
        *m = table.materials[MAT_VOID];
        m->density = 0.5f;
        strcpy(m->name, "light");
        made = true;
    }
    return &table;
}

static vxk_world* make_world(vxk_jobs* jobs)
{
    vxk_world_def def = vxk_default_world_def();
    def.materials = test_materials();
    def.jobs = jobs;
    vxk_world* world = NULL;
    return vxk_world_create(&def, &world) == VXK_OK ? world : NULL;
}

// Stone with its top surface at y = 0 over voxels x0..x1, z0..z1.
static vxk_status flat_floor(vxk_world* w, int32_t x0, int32_t x1, int32_t z0, int32_t z1)
{
    return vxk_world_fill_box(w, (vxk_int_box){{x0, -8, z0}, {x1, -1, z1}}, VXK_MAT_STONE);
}

static vxk_body_def sphere_def(vxk_vec3 p, float radius)
{
    vxk_body_def def = vxk_default_body_def();
    def.position = p;
    def.shape = vxk_sphere_shape(radius, VXK_MAT_STONE);
    return def;
}

static vxk_body_def box_def(vxk_vec3 p, vxk_vec3 half)
{
    vxk_body_def def = vxk_default_body_def();
    def.position = p;
    def.shape = vxk_box_shape(half, VXK_MAT_WOOD);
    return def;
}

static vxk_body_id create_ok(vxk_world* w, const vxk_body_def* def)
{
    vxk_body_id id = {0, 0};
    if (vxk_body_create(w, def, &id) != VXK_OK)
        return (vxk_body_id){0, 0};
    return id;
}

// A grid of size (5, 4, 3): an L of stone with a wood corner and a hole, off-diagonal inertia.
static void make_l_grid(vxk_voxel_grid* g, uint8_t* voxels)
{
    g->size = (vxk_int3){5, 4, 3};
    g->voxels = voxels;
    memset(voxels, 0, 60);
    for (int y = 0; y < 4; ++y)
        for (int z = 0; z < 3; ++z)
            for (int x = 0; x < 5; ++x) {
                bool solid = y == 0 || x == 0 || (y == 1 && z == 0);
                uint8_t id = x >= 3 && y == 0 ? VXK_MAT_WOOD : VXK_MAT_STONE;
                voxels[x + 5 * (z + 3 * y)] = solid ? id : 0;
            }
    voxels[2 + 5 * (1 + 3 * 0)] = 0; // a hole in the foot
}

static vxk_body_def voxel_def(vxk_vec3 p, const vxk_voxel_grid* grid, float voxel_size)
{
    vxk_body_def def = vxk_default_body_def();
    def.position = p;
    def.shape = vxk_voxel_shape(grid, voxel_size);
    return def;
}

// Everything a failed call must leave as it was.
typedef struct body_snapshot {
    uint64_t hash;
    size_t bytes;
    uint32_t count;
} body_snapshot;

static body_snapshot body_snap(const vxk_world* w)
{
    body_snapshot s;
    s.hash = vxk_world_hash(w);
    s.count = vxk_world_body_count(w);
    s.bytes = vxk_allocated_bytes();
    return s;
}

#define CHECK_BODIES_UNCHANGED(w, before)                                                  \
    do {                                                                                   \
        body_snapshot after_ = body_snap(w);                                               \
        VXK_CHECK_MSG(after_.hash == (before).hash, "world hash %016llx -> %016llx",       \
                      (unsigned long long)(before).hash, (unsigned long long)after_.hash); \
        VXK_CHECK_MSG(after_.bytes == (before).bytes, "allocated bytes %zu -> %zu",        \
                      (before).bytes, after_.bytes);                                       \
        VXK_CHECK_EQ_U64(after_.count, (before).count);                                    \
    } while (0)

static bool vec_close(vxk_vec3 a, vxk_vec3 b, double tolerance)
{
    return fabs((double)a.x - b.x) <= tolerance && fabs((double)a.y - b.y) <= tolerance &&
           fabs((double)a.z - b.z) <= tolerance;
}

#define CHECK_VEC(a, b, tol)                                                                      \
    do {                                                                                          \
        vxk_vec3 va_ = (a), vb_ = (b);                                                            \
        VXK_CHECK_MSG(vec_close(va_, vb_, (tol)),                                                 \
                      "%s = (%.9g, %.9g, %.9g), want (%.9g, %.9g, %.9g)", #a, (double)va_.x,      \
                      (double)va_.y, (double)va_.z, (double)vb_.x, (double)vb_.y, (double)vb_.z); \
    } while (0)

// Rotation matrix (row-major, double) of a quaternion.
static void quat_matrix(double r[3][3], vxk_quat q)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    r[0][0] = 1 - 2 * (y * y + z * z);
    r[0][1] = 2 * (x * y - z * w);
    r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w);
    r[1][1] = 1 - 2 * (x * x + z * z);
    r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w);
    r[2][1] = 2 * (y * z + x * w);
    r[2][2] = 1 - 2 * (x * x + y * y);
}

static void mat_vec(double out[3], double m[3][3], const double v[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}

static bool mat_inverse(double inv[3][3], double a[3][3])
{
    double c00 = a[1][1] * a[2][2] - a[1][2] * a[2][1];
    double c01 = a[1][2] * a[2][0] - a[1][0] * a[2][2];
    double c02 = a[1][0] * a[2][1] - a[1][1] * a[2][0];
    double det = a[0][0] * c00 + a[0][1] * c01 + a[0][2] * c02;
    if (det == 0.0)
        return false;
    double d = 1.0 / det;
    inv[0][0] = c00 * d;
    inv[1][0] = c01 * d;
    inv[2][0] = c02 * d;
    inv[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * d;
    inv[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * d;
    inv[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * d;
    inv[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * d;
    inv[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * d;
    inv[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * d;
    return true;
}

// The world inverse inertia R I^-1 R^T of a body.
static bool world_inverse_inertia(double out[3][3], const vxk_body_info* info, vxk_quat q)
{
    double body[3][3], inv[3][3], r[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            body[i][j] = info->inertia[i][j];
    if (!mat_inverse(inv, body))
        return false;
    quat_matrix(r, q);
    double tmp[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            tmp[i][j] = 0.0;
            for (int k = 0; k < 3; ++k)
                tmp[i][j] += r[i][k] * inv[k][j];
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            out[i][j] = 0.0;
            for (int k = 0; k < 3; ++k)
                out[i][j] += tmp[i][k] * r[j][k];
        }
    return true;
}

static vxk_quat quat_axis_angle(double ax, double ay, double az, double angle)
{
    double n = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / n;
    return (vxk_quat){(float)(ax * s), (float)(ay * s), (float)(az * s), (float)cos(angle / 2)};
}

// The world position of the centre of voxel v of a voxel body.
static vxk_vec3 voxel_world_center(const vxk_transform* t, const vxk_body_info* info, vxk_int3 v)
{
    double local[3] = {info->grid_origin.x + (v.x + 0.5) * info->voxel_size,
                       info->grid_origin.y + (v.y + 0.5) * info->voxel_size,
                       info->grid_origin.z + (v.z + 0.5) * info->voxel_size};
    double r[3][3], world[3];
    quat_matrix(r, t->q);
    mat_vec(world, r, local);
    return (vxk_vec3){(float)(t->p.x + world[0]), (float)(t->p.y + world[1]),
                      (float)(t->p.z + world[2])};
}

static void solid_table(uint8_t solid[256], const vxk_material_table* table)
{
    for (int i = 0; i < 256; ++i)
        solid[i] = table->materials[i].defined && table->materials[i].kind == VXK_MATERIAL_SOLID;
}

static void density_table(float density[256], const vxk_material_table* table)
{
    for (int i = 0; i < 256; ++i)
        density[i] = table->materials[i].density;
}

// ---- defaults -----------------------------------------------------------------------------------

static int test_defaults(void)
{
    vxk_body_def d = vxk_default_body_def();
    VXK_CHECK(d.cookie != 0);
    VXK_CHECK_EQ_INT(d.type, VXK_BODY_DYNAMIC);
    CHECK_VEC(d.position, ((vxk_vec3){0, 0, 0}), 0.0);
    VXK_CHECK(d.rotation.x == 0.0f && d.rotation.y == 0.0f && d.rotation.z == 0.0f &&
              d.rotation.w == 1.0f);
    CHECK_VEC(d.linear_velocity, ((vxk_vec3){0, 0, 0}), 0.0);
    CHECK_VEC(d.angular_velocity, ((vxk_vec3){0, 0, 0}), 0.0);
    VXK_CHECK(d.linear_damping == 0.0f && d.angular_damping == 0.0f);
    VXK_CHECK(d.gravity_scale == 1.0f);
    VXK_CHECK(d.friction < 0.0f);
    VXK_CHECK(d.restitution < 0.0f);
    VXK_CHECK(d.user_data == NULL);
    VXK_CHECK(!d.is_bullet);
    VXK_CHECK(d.awake);
    VXK_CHECK_EQ_INT(d.shape.type, VXK_SHAPE_SPHERE);
    VXK_CHECK(d.shape.radius == 0.5f);
    VXK_CHECK_EQ_INT(d.shape.material, VXK_MAT_STONE);

    vxk_shape_def s = vxk_sphere_shape(0.25f, VXK_MAT_METAL);
    VXK_CHECK_EQ_INT(s.type, VXK_SHAPE_SPHERE);
    VXK_CHECK(s.radius == 0.25f);
    VXK_CHECK_EQ_INT(s.material, VXK_MAT_METAL);
    s = vxk_box_shape((vxk_vec3){1, 2, 3}, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(s.type, VXK_SHAPE_BOX);
    CHECK_VEC(s.half_extents, ((vxk_vec3){1, 2, 3}), 0.0);
    VXK_CHECK_EQ_INT(s.material, VXK_MAT_WOOD);
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    s = vxk_voxel_shape(&grid, 0.5f);
    VXK_CHECK_EQ_INT(s.type, VXK_SHAPE_VOXELS);
    VXK_CHECK(s.grid == &grid);
    VXK_CHECK(s.voxel_size == 0.5f);

    vxk_world_def w = vxk_default_world_def();
    CHECK_VEC(w.gravity, ((vxk_vec3){0.0f, -9.81f, 0.0f}), 0.0);
    VXK_CHECK_EQ_INT(w.substeps, 4);
    VXK_CHECK(w.contact_hertz == 30.0f);
    VXK_CHECK(w.contact_damping_ratio == 10.0f);
    VXK_CHECK(w.contact_push_speed == 3.0f);
    VXK_CHECK(w.restitution_threshold == 1.0f);
    VXK_CHECK(w.linear_slop == 0.005f);
    return 0;
}

// The world def's dynamics fields: non-finite -> NOT_FINITE, out of range -> OUT_OF_RANGE.
static int test_world_def_dynamics(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_world* const canary = (vxk_world*)(uintptr_t)0xA5A5A5A0u;
    vxk_world* out = canary;
    const vxk_world_def base = vxk_default_world_def();
    for (int field = 0; field < 8; ++field)
        for (int k = 0; k < 3; ++k) {
            vxk_world_def d = base;
            float* f = field == 0   ? &d.gravity.x
                       : field == 1 ? &d.gravity.y
                       : field == 2 ? &d.gravity.z
                       : field == 3 ? &d.contact_hertz
                       : field == 4 ? &d.contact_damping_ratio
                       : field == 5 ? &d.contact_push_speed
                       : field == 6 ? &d.restitution_threshold
                                    : &d.linear_slop;
            *f = special_float(k);
            VXK_CHECK_EQ_INT(vxk_world_create(&d, &out), VXK_ERR_NOT_FINITE);
            VXK_CHECK(out == canary);
            if (field >= 3) {
                *f = -0.001f;
                VXK_CHECK_MSG(vxk_world_create(&d, &out) == VXK_ERR_OUT_OF_RANGE,
                              "negative dynamics field %d", field);
                VXK_CHECK(out == canary);
            }
        }
    const uint32_t bad_substeps[] = {0, 65, 1000, UINT32_MAX};
    for (int i = 0; i < 4; ++i) {
        vxk_world_def d = base;
        d.substeps = bad_substeps[i];
        VXK_CHECK_EQ_INT(vxk_world_create(&d, &out), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK(out == canary);
    }
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    const uint32_t good_substeps[] = {1, 64};
    for (int i = 0; i < 2; ++i) {
        vxk_world_def d = base;
        d.substeps = good_substeps[i];
        d.contact_hertz = 0.0f; // zeros are in range
        d.linear_slop = 0.0f;
        d.gravity = (vxk_vec3){1.0f, 2.0f, -3.0f};
        vxk_world* w = NULL;
        VXK_CHECK_EQ_INT(vxk_world_create(&d, &w), VXK_OK);
        vxk_world_destroy(w);
    }
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- create, destroy, getters, setters
// ------------------------------------------------------------

static int test_create_destroy(void)
{
    size_t base = vxk_allocated_bytes();
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_U64(vxk_world_body_count(w), 0);
    VXK_CHECK_EQ_U64(vxk_world_get_bodies(w, NULL, 0), 0);
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    vxk_body_def defs[3] = {sphere_def((vxk_vec3){1, 2, 3}, 0.5f),
                            box_def((vxk_vec3){-4, 5, 6}, (vxk_vec3){0.5f, 0.25f, 1.0f}),
                            voxel_def((vxk_vec3){7, 8, -9}, &grid, 0.0f)};
    const vxk_shape_type shapes[3] = {VXK_SHAPE_SPHERE, VXK_SHAPE_BOX, VXK_SHAPE_VOXELS};
    vxk_body_id ids[3];
    for (int i = 0; i < 3; ++i) {
        ids[i] = (vxk_body_id){0, 0};
        VXK_CHECK_EQ_INT(vxk_body_create(w, &defs[i], &ids[i]), VXK_OK);
        VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
        VXK_CHECK(vxk_body_is_valid(w, ids[i]));
        vxk_body_info info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, ids[i], &info), VXK_OK);
        VXK_CHECK_EQ_INT(info.shape, shapes[i]);
        VXK_CHECK_EQ_INT(info.type, VXK_BODY_DYNAMIC);
        VXK_CHECK(info.mass > 0.0f);
        VXK_CHECK(info.awake);
        VXK_CHECK(!info.is_bullet);
        vxk_transform t;
        VXK_CHECK_EQ_INT(vxk_body_get_transform(w, ids[i], &t), VXK_OK);
        CHECK_VEC(t.p, defs[i].position, 0.0);
        VXK_CHECK(t.q.x == 0.0f && t.q.y == 0.0f && t.q.z == 0.0f && t.q.w == 1.0f);
        VXK_CHECK_EQ_U64(vxk_world_body_count(w), i + 1);
    }
    // Shape details: sphere and box masses are analytic; materials give friction/restitution.
    const vxk_material_table* mt = test_materials();
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, ids[0], &info), VXK_OK);
    vxk_mass_properties mp;
    VXK_CHECK_EQ_INT(vxk_mass_sphere(&mp, 0.5f, mt->materials[VXK_MAT_STONE].density), VXK_OK);
    VXK_CHECK_MSG(fabs(info.mass - mp.mass) <= 1e-5 * mp.mass, "sphere mass %.9g want %.9g",
                  (double)info.mass, mp.mass);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            VXK_CHECK(fabs(info.inertia[i][j] - mp.inertia[i][j]) <= 1e-5 * mp.inertia[0][0]);
    VXK_CHECK(info.friction == mt->materials[VXK_MAT_STONE].friction);
    VXK_CHECK(info.restitution == mt->materials[VXK_MAT_STONE].restitution);
    VXK_CHECK_EQ_INT(info.grid_size.x, 0);
    VXK_CHECK(info.voxel_size == 0.0f);
    VXK_CHECK_EQ_INT(info.solid_voxels, 0);
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, ids[1], &info), VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_mass_box(&mp, (vxk_vec3){0.5f, 0.25f, 1.0f}, mt->materials[VXK_MAT_WOOD].density),
        VXK_OK);
    VXK_CHECK(fabs(info.mass - mp.mass) <= 1e-5 * mp.mass);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            VXK_CHECK_MSG(fabs(info.inertia[i][j] - mp.inertia[i][j]) <= 1e-5 * mp.inertia[0][0],
                          "box inertia[%d][%d] %.9g want %.9g", i, j, (double)info.inertia[i][j],
                          mp.inertia[i][j]);
    VXK_CHECK(info.friction == mt->materials[VXK_MAT_WOOD].friction);
    // The def's friction and restitution win when not negative.
    vxk_body_def own = sphere_def((vxk_vec3){0, 20, 0}, 0.3f);
    own.friction = 0.125f;
    own.restitution = 0.75f;
    own.is_bullet = true;
    own.awake = false;
    vxk_body_id own_id = create_ok(w, &own);
    VXK_CHECK(!VXK_ID_IS_NULL(own_id));
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, own_id, &info), VXK_OK);
    VXK_CHECK(info.friction == 0.125f && info.restitution == 0.75f);
    VXK_CHECK(info.is_bullet);
    VXK_CHECK(!info.awake);
    // Static and kinematic bodies: zero mass and inertia.
    for (int type = VXK_BODY_STATIC; type <= VXK_BODY_KINEMATIC; ++type) {
        vxk_body_def d = box_def((vxk_vec3){0, -20, 0}, (vxk_vec3){1, 1, 1});
        d.type = (vxk_body_type)type;
        vxk_body_id id = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
        VXK_CHECK_EQ_INT(info.type, type);
        VXK_CHECK(info.mass == 0.0f);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                VXK_CHECK(info.inertia[i][j] == 0.0f);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
    }

    // Destroy: invalid afterwards, a second destroy is stale.
    uint32_t count = vxk_world_body_count(w);
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, ids[1]), VXK_OK);
    VXK_CHECK(!vxk_body_is_valid(w, ids[1]));
    VXK_CHECK(vxk_body_is_valid(w, ids[0]) && vxk_body_is_valid(w, ids[2]));
    VXK_CHECK_EQ_U64(vxk_world_body_count(w), count - 1);
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, ids[1]), VXK_ERR_STALE_ID);
    VXK_CHECK_EQ_INT(vxk_body_destroy(NULL, ids[0]), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, (vxk_body_id){0, 0}), VXK_ERR_STALE_ID);
    VXK_CHECK(!vxk_body_is_valid(w, (vxk_body_id){0, 0}));
    VXK_CHECK(!vxk_body_is_valid(NULL, ids[0]));
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, ids[0]), VXK_OK);
    size_t before = vxk_allocated_bytes();
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, ids[2]), VXK_OK);
    VXK_CHECK_MSG(vxk_allocated_bytes() < before, "destroying a voxel body freed nothing");
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, own_id), VXK_OK);
    VXK_CHECK_EQ_U64(vxk_world_body_count(w), 0);
    vxk_world_destroy(w);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    return 0;
}

static int test_transform_velocity_user_data(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    vxk_body_def d = box_def((vxk_vec3){1, 2, 3}, (vxk_vec3){0.5f, 0.5f, 0.5f});
    d.rotation = quat_axis_angle(1, 2, 3, 0.7);
    d.linear_velocity = (vxk_vec3){1.5f, -2.0f, 0.25f};
    d.angular_velocity = (vxk_vec3){-0.5f, 3.0f, 1.0f};
    int tag = 42;
    d.user_data = &tag;
    vxk_body_id id = create_ok(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    vxk_transform t;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    CHECK_VEC(t.p, d.position, 0.0);
    VXK_CHECK(fabs((double)t.q.x - d.rotation.x) <= 1e-6 &&
              fabs((double)t.q.w - d.rotation.w) <= 1e-6);
    vxk_vec3 v, av;
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    CHECK_VEC(v, d.linear_velocity, 0.0);
    CHECK_VEC(av, d.angular_velocity, 0.0);
    void* user = NULL;
    VXK_CHECK_EQ_INT(vxk_body_get_user_data(w, id, &user), VXK_OK);
    VXK_CHECK(user == &tag);

    // Setters.
    vxk_quat q = quat_axis_angle(0, 1, 0, 1.25);
    VXK_CHECK_EQ_INT(vxk_body_set_transform(w, id, (vxk_vec3){-7, 8.5f, 9}, q), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    CHECK_VEC(t.p, ((vxk_vec3){-7, 8.5f, 9}), 0.0);
    VXK_CHECK(fabs((double)t.q.y - q.y) <= 1e-6 && fabs((double)t.q.w - q.w) <= 1e-6);
    // A rotation off unit by less than 1e-3 is accepted and renormalized.
    vxk_quat nearly = {0.0f, 0.0f, 0.0f, 1.0004f};
    VXK_CHECK_EQ_INT(vxk_body_set_transform(w, id, (vxk_vec3){0, 0, 0}, nearly), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    double len = sqrt((double)t.q.x * t.q.x + (double)t.q.y * t.q.y + (double)t.q.z * t.q.z +
                      (double)t.q.w * t.q.w);
    VXK_CHECK_MSG(fabs(len - 1.0) <= 1e-6, "rotation not renormalized: |q| = %.9g", len);
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, id, (vxk_vec3){4, 5, 6}, (vxk_vec3){-1, -2, -3}),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    CHECK_VEC(v, ((vxk_vec3){4, 5, 6}), 0.0);
    CHECK_VEC(av, ((vxk_vec3){-1, -2, -3}), 0.0);
    VXK_CHECK_EQ_INT(vxk_body_set_user_data(w, id, NULL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_user_data(w, id, &user), VXK_OK);
    VXK_CHECK(user == NULL);

    // Static bodies: zero velocity only.
    vxk_body_def sd = box_def((vxk_vec3){0, -10, 0}, (vxk_vec3){2, 1, 2});
    sd.type = VXK_BODY_STATIC;
    vxk_body_id sid = create_ok(w, &sd);
    VXK_CHECK(!VXK_ID_IS_NULL(sid));
    body_snapshot s0 = body_snap(w);
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, sid, (vxk_vec3){0, 1, 0}, (vxk_vec3){0, 0, 0}),
                     VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, sid, (vxk_vec3){0, 0, 0}, (vxk_vec3){0, 0, 1e-3f}),
                     VXK_ERR_OUT_OF_RANGE);
    CHECK_BODIES_UNCHANGED(w, s0);
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, sid, (vxk_vec3){0, 0, 0}, (vxk_vec3){0, 0, 0}),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, sid, &v, &av), VXK_OK);
    CHECK_VEC(v, ((vxk_vec3){0, 0, 0}), 0.0);
    // The pose and velocity setters wake the body; user data does not (it changes no physics).
    vxk_body_def sleeping = sphere_def((vxk_vec3){0, 30, 0}, 0.5f);
    sleeping.awake = false;
    bool woke[3];
    for (int setter = 0; setter < 3; ++setter) {
        vxk_body_id s = create_ok(w, &sleeping);
        VXK_CHECK(!VXK_ID_IS_NULL(s));
        vxk_body_info info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, s, &info), VXK_OK);
        VXK_CHECK(!info.awake);
        vxk_status st = setter == 0 ? vxk_body_set_transform(w, s, (vxk_vec3){0, 31, 0}, k_identity)
                        : setter == 1
                            ? vxk_body_set_velocity(w, s, (vxk_vec3){0, 1, 0}, (vxk_vec3){0, 0, 0})
                            : vxk_body_set_user_data(w, s, &tag);
        VXK_CHECK_EQ_INT(st, VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, s, &info), VXK_OK);
        woke[setter] = info.awake;
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, s), VXK_OK);
    }
    vxk_world_destroy(w);
    const char* setters[3] = {"set_transform", "set_velocity", "set_user_data"};
    for (int setter = 0; setter < 3; ++setter)
        VXK_CHECK_MSG(woke[setter] == (setter < 2), "vxk_body_%s: awake %d after the call",
                      setters[setter], (int)woke[setter]);
    return 0;
}

static int test_aabb(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    vxk_body_def sd = sphere_def((vxk_vec3){1, 2, 3}, 0.75f);
    vxk_body_id s = create_ok(w, &sd);
    vxk_aabb box;
    VXK_CHECK_EQ_INT(vxk_body_get_aabb(w, s, &box), VXK_OK);
    CHECK_VEC(box.min, ((vxk_vec3){0.25f, 1.25f, 2.25f}), 1e-5);
    CHECK_VEC(box.max, ((vxk_vec3){1.75f, 2.75f, 3.75f}), 1e-5);
    // A box rotated 45 degrees about y: x and z extents (hx + hz) / sqrt 2.
    vxk_body_def bd = box_def((vxk_vec3){-2, 0, 5}, (vxk_vec3){1.0f, 0.5f, 0.25f});
    bd.rotation = quat_axis_angle(0, 1, 0, 0.78539816339744831);
    vxk_body_id b = create_ok(w, &bd);
    VXK_CHECK_EQ_INT(vxk_body_get_aabb(w, b, &box), VXK_OK);
    float e = (float)((1.0 + 0.25) / sqrt(2.0));
    CHECK_VEC(box.min, ((vxk_vec3){-2 - e, -0.5f, 5 - e}), 1e-4);
    CHECK_VEC(box.max, ((vxk_vec3){-2 + e, 0.5f, 5 + e}), 1e-4);
    // A voxel body: the box of its grid's corners.
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    vxk_body_def vd = voxel_def((vxk_vec3){10, 10, 10}, &grid, 0.5f);
    vxk_body_id v = create_ok(w, &vd);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, v, &info), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_aabb(w, v, &box), VXK_OK);
    // The grid's solid voxels all lie inside; the box is no larger than the grid's box.
    vxk_vec3 lo = {10 + info.grid_origin.x, 10 + info.grid_origin.y, 10 + info.grid_origin.z};
    vxk_vec3 hi = {lo.x + 2.5f, lo.y + 2.0f, lo.z + 1.5f};
    VXK_CHECK(box.min.x >= lo.x - 1e-4f && box.min.y >= lo.y - 1e-4f && box.min.z >= lo.z - 1e-4f);
    VXK_CHECK(box.max.x <= hi.x + 1e-4f && box.max.y <= hi.y + 1e-4f && box.max.z <= hi.z + 1e-4f);
    VXK_CHECK(box.min.x <= lo.x + 1e-4f && box.max.y >= hi.y - 1e-4f); // the L spans its grid
    vxk_world_destroy(w);
    return 0;
}

// ---- impulses and forces
// ----------------------------------------------------------------------------

// dv = J / m and dw = I_world^-1 (r x J), checked against the body's own mass and tensor.
static int check_impulse(vxk_world* w, vxk_body_id id, vxk_vec3 impulse, vxk_vec3 point,
                         const char* what)
{
    vxk_body_info info;
    vxk_transform t;
    vxk_vec3 v0, w0, v1, w1;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v0, &w0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_apply_impulse(w, id, impulse, point), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v1, &w1), VXK_OK);
    double inv[3][3];
    VXK_CHECK(world_inverse_inertia(inv, &info, t.q));
    double r[3] = {(double)point.x - t.p.x, (double)point.y - t.p.y, (double)point.z - t.p.z};
    double j[3] = {impulse.x, impulse.y, impulse.z};
    double torque[3] = {r[1] * j[2] - r[2] * j[1], r[2] * j[0] - r[0] * j[2],
                        r[0] * j[1] - r[1] * j[0]};
    double dw[3];
    mat_vec(dw, inv, torque);
    double dv[3] = {j[0] / info.mass, j[1] / info.mass, j[2] / info.mass};
    double got_v[3] = {(double)v1.x - v0.x, (double)v1.y - v0.y, (double)v1.z - v0.z};
    double got_w[3] = {(double)w1.x - w0.x, (double)w1.y - w0.y, (double)w1.z - w0.z};
    double vs = fabs(dv[0]) + fabs(dv[1]) + fabs(dv[2]);
    double ws = fabs(dw[0]) + fabs(dw[1]) + fabs(dw[2]);
    for (int a = 0; a < 3; ++a) {
        VXK_CHECK_MSG(fabs(got_v[a] - dv[a]) <= 1e-5 * vs + 1e-6, "%s: dv[%d] %.9g want %.9g", what,
                      a, got_v[a], dv[a]);
        VXK_CHECK_MSG(fabs(got_w[a] - dw[a]) <= 1e-4 * ws + 1e-6, "%s: dw[%d] %.9g want %.9g", what,
                      a, got_w[a], dw[a]);
    }
    // The angular impulse alone: dw = I_world^-1 L.
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v0, &w0), VXK_OK);
    vxk_vec3 l = {(float)torque[0], (float)torque[1], (float)torque[2]};
    VXK_CHECK_EQ_INT(vxk_body_apply_angular_impulse(w, id, l), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v1, &w1), VXK_OK);
    CHECK_VEC(v1, v0, 0.0);
    double got_l[3] = {(double)w1.x - w0.x, (double)w1.y - w0.y, (double)w1.z - w0.z};
    for (int a = 0; a < 3; ++a)
        VXK_CHECK_MSG(fabs(got_l[a] - dw[a]) <= 1e-4 * ws + 1e-6,
                      "%s: angular impulse dw[%d] %.9g want %.9g", what, a, got_l[a], dw[a]);
    return 0;
}

static int test_impulses(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    uint64_t rng = vxk_test_seed(0x1A9);
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    for (int iter = 0; iter < 30; ++iter) {
        vxk_vec3 p = {vxk_test_randf(&rng, -20, 20), vxk_test_randf(&rng, -20, 20),
                      vxk_test_randf(&rng, -20, 20)};
        vxk_body_def d = iter % 3 == 0   ? sphere_def(p, vxk_test_randf(&rng, 0.1f, 2.0f))
                         : iter % 3 == 1 ? box_def(p, (vxk_vec3){vxk_test_randf(&rng, 0.1f, 2.0f),
                                                                 vxk_test_randf(&rng, 0.1f, 2.0f),
                                                                 vxk_test_randf(&rng, 0.1f, 2.0f)})
                                         : voxel_def(p, &grid, vxk_test_randf(&rng, 0.1f, 1.0f));
        d.rotation = quat_axis_angle(vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, -1, 1),
                                     vxk_test_randf(&rng, 0.1f, 1), vxk_test_randf(&rng, 0, 3));
        d.linear_velocity = (vxk_vec3){vxk_test_randf(&rng, -3, 3), 0.5f, 1.0f};
        d.angular_velocity = (vxk_vec3){0.25f, vxk_test_randf(&rng, -3, 3), -1.0f};
        vxk_body_id id = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        vxk_body_info info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
        float m = info.mass;
        vxk_vec3 j = {vxk_test_randf(&rng, -1, 1) * m, vxk_test_randf(&rng, -1, 1) * m,
                      vxk_test_randf(&rng, -1, 1) * m};
        vxk_vec3 point = {p.x + vxk_test_randf(&rng, -1, 1), p.y + vxk_test_randf(&rng, -1, 1),
                          p.z + vxk_test_randf(&rng, -1, 1)};
        char what[32];
        snprintf(what, sizeof(what), "body %d shape %d", iter, (int)d.shape.type);
        if (check_impulse(w, id, j, point, what))
            return 1;
        // At the centre: no spin.
        vxk_vec3 v0, w0, v1, w1;
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v0, &w0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_impulse(w, id, j, p), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v1, &w1), VXK_OK);
        CHECK_VEC(w1, w0, 1e-6);
    }
    // Static and kinematic bodies ignore forces, torques and impulses (VXK_OK).
    for (int type = VXK_BODY_STATIC; type <= VXK_BODY_KINEMATIC; ++type) {
        vxk_body_def d = box_def((vxk_vec3){0, -30, 0}, (vxk_vec3){1, 1, 1});
        d.type = (vxk_body_type)type;
        if (type == VXK_BODY_KINEMATIC) {
            d.linear_velocity = (vxk_vec3){1, 0, 0};
            d.angular_velocity = (vxk_vec3){0, 0.5f, 0};
        }
        vxk_body_id id = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        vxk_vec3 f = {10, 20, 30}, pt = {0.5f, -29.0f, 0.25f};
        VXK_CHECK_EQ_INT(vxk_body_apply_force(w, id, f, pt), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_force_to_center(w, id, f), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_torque(w, id, f), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_impulse(w, id, f, pt), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_angular_impulse(w, id, f), VXK_OK);
        vxk_vec3 v, av;
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
        CHECK_VEC(v, d.linear_velocity, 0.0);
        CHECK_VEC(av, d.angular_velocity, 0.0);
    }
    vxk_world_destroy(w);
    return 0;
}

// Forces and torques act over the next step (dv = dt F / m, dw = dt I^-1 tau for a sphere) and
// are cleared by it.
static int test_forces(void)
{
    vxk_world_def wd = vxk_default_world_def();
    wd.gravity = (vxk_vec3){0, 0, 0};
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    vxk_body_def d = sphere_def((vxk_vec3){0, 0, 0}, 0.5f);
    vxk_body_id id = create_ok(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    const vxk_vec3 force = {3.0f * info.mass, -1.0f * info.mass, 0.5f * info.mass};
    const vxk_vec3 torque = {0.0f, 2.0f * info.inertia[1][1], -info.inertia[2][2]};
    VXK_CHECK_EQ_INT(vxk_body_apply_force_to_center(w, id, force), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_apply_torque(w, id, torque), VXK_OK);
    // Forces accumulate: a second half force at the centre.
    vxk_vec3 half = {force.x / 2, force.y / 2, force.z / 2};
    VXK_CHECK_EQ_INT(vxk_body_apply_force_to_center(w, id, half), VXK_OK);
    vxk_vec3 v, av;
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    CHECK_VEC(v, ((vxk_vec3){0, 0, 0}), 0.0); // nothing before the step
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    const double dt = STEP_DT;
    CHECK_VEC(v, ((vxk_vec3){(float)(4.5 * dt), (float)(-1.5 * dt), (float)(0.75 * dt)}), 1e-6);
    CHECK_VEC(av, ((vxk_vec3){0.0f, (float)(2.0 * dt), (float)(-dt)}), 1e-6);
    // Position: x = h^2 a n (n + 1) / 2 over n substeps.
    vxk_transform t;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    double h = dt / wd.substeps, n = wd.substeps;
    CHECK_VEC(
        t.p,
        ((vxk_vec3){(float)(h * h * 4.5 * n * (n + 1) / 2), (float)(h * h * -1.5 * n * (n + 1) / 2),
                    (float)(h * h * 0.75 * n * (n + 1) / 2)}),
        1e-6);
    // Cleared: the next step changes nothing.
    vxk_vec3 v2, av2;
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v2, &av2), VXK_OK);
    CHECK_VEC(v2, v, 0.0);
    CHECK_VEC(av2, av, 0.0);
    // A force off the centre adds its torque r x F.
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, id, (vxk_vec3){0, 0, 0}, (vxk_vec3){0, 0, 0}),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    vxk_vec3 f = {0.0f, info.mass, 0.0f}, at = {t.p.x + 0.5f, t.p.y, t.p.z}; // r = (0.5, 0, 0)
    VXK_CHECK_EQ_INT(vxk_body_apply_force(w, id, f, at), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    CHECK_VEC(v, ((vxk_vec3){0.0f, (float)dt, 0.0f}), 1e-6);
    CHECK_VEC(av, ((vxk_vec3){0.0f, 0.0f, (float)(0.5 * info.mass * dt / info.inertia[2][2])}),
              1e-5);
    vxk_world_destroy(w);
    return 0;
}

// ---- iteration and ids
// ------------------------------------------------------------------------------

static int test_iteration(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    enum { N = 60 };
    vxk_body_id ids[N + 20];
    bool live[N + 20];
    int n = 0;
    for (int i = 0; i < N; ++i) {
        vxk_body_def d = sphere_def((vxk_vec3){(float)i * 2, 0, 0}, 0.5f);
        ids[n] = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(ids[n]));
        live[n++] = true;
    }
    for (int i = 0; i < N; i += 3) {
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, ids[i]), VXK_OK);
        live[i] = false;
    }
    for (int i = 0; i < 20; ++i) { // reuse freed indices and grow
        vxk_body_def d = box_def((vxk_vec3){(float)i * 2, 5, 0}, (vxk_vec3){0.5f, 0.5f, 0.5f});
        ids[n] = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(ids[n]));
        live[n++] = true;
    }
    uint32_t expected = 0;
    for (int i = 0; i < n; ++i)
        expected += live[i];
    VXK_CHECK_EQ_U64(vxk_world_body_count(w), expected);
    VXK_CHECK_EQ_U64(vxk_world_get_bodies(w, NULL, 0), expected);
    vxk_body_id got[N + 21];
    memset(got, CANARY, sizeof(got));
    VXK_CHECK_EQ_U64(vxk_world_get_bodies(w, got, N + 21), expected);
    VXK_CHECK(all_canary(&got[expected], sizeof(got) - expected * sizeof(got[0])));
    for (uint32_t i = 0; i < expected; ++i) {
        VXK_CHECK(vxk_body_is_valid(w, got[i]));
        if (i > 0)
            VXK_CHECK_MSG(got[i].index > got[i - 1].index, "ids out of index order at %u", i);
        int found = 0;
        for (int k = 0; k < n; ++k)
            found += live[k] && VXK_ID_EQUAL(ids[k], got[i]);
        VXK_CHECK_EQ_INT(found, 1);
    }
    // A smaller capacity: the first ones, total returned, nothing past capacity written.
    vxk_body_id few[N + 21];
    memset(few, CANARY, sizeof(few));
    VXK_CHECK_EQ_U64(vxk_world_get_bodies(w, few, 7), expected);
    VXK_CHECK(memcmp(few, got, 7 * sizeof(got[0])) == 0);
    VXK_CHECK(all_canary(&few[7], sizeof(few) - 7 * sizeof(few[0])));
    vxk_world_destroy(w);
    return 0;
}

// Every call taking id must return VXK_ERR_STALE_ID, leave its outputs alone and change nothing.
static int check_stale_calls(vxk_world* w, vxk_body_id id)
{
    body_snapshot s0 = body_snap(w);
    VXK_CHECK(!vxk_body_is_valid(w, id));
    _Alignas(16) uint8_t out[256];
    memset(out, CANARY, sizeof(out));
    const vxk_vec3 one = {1, 1, 1};
    const vxk_int_box unit = {{0, 0, 0}, {0, 0, 0}};
    const uint8_t stone = VXK_MAT_STONE;
    vxk_status st[17];
    int k = 0;
    st[k++] = vxk_body_get_transform(w, id, (vxk_transform*)out);
    st[k++] = vxk_body_get_velocity(w, id, (vxk_vec3*)out, (vxk_vec3*)(out + 64));
    st[k++] = vxk_body_get_user_data(w, id, (void**)out);
    st[k++] = vxk_body_get_aabb(w, id, (vxk_aabb*)out);
    VXK_CHECK(sizeof(vxk_body_info) <= sizeof(out));
    st[k++] = vxk_body_get_info(w, id, (vxk_body_info*)out);
    st[k++] = vxk_body_read_voxels(w, id, out, unit);
    st[k++] = vxk_body_read_voxel_types(w, id, out, unit);
    VXK_CHECK(all_canary(out, sizeof(out)));
    st[k++] = vxk_body_set_transform(w, id, one, k_identity);
    st[k++] = vxk_body_set_velocity(w, id, one, one);
    st[k++] = vxk_body_set_user_data(w, id, out);
    st[k++] = vxk_body_apply_force(w, id, one, one);
    st[k++] = vxk_body_apply_force_to_center(w, id, one);
    st[k++] = vxk_body_apply_torque(w, id, one);
    st[k++] = vxk_body_apply_impulse(w, id, one, one);
    st[k++] = vxk_body_apply_angular_impulse(w, id, one);
    st[k++] = vxk_body_set_voxels(w, id, unit, &stone);
    st[k++] = vxk_body_destroy(w, id);
    for (int i = 0; i < k; ++i)
        VXK_CHECK_MSG(st[i] == VXK_ERR_STALE_ID, "call %d with id {%u, %u} returned %d", i,
                      id.index, id.generation, (int)st[i]);
    CHECK_BODIES_UNCHANGED(w, s0);
    return 0;
}

static int test_stale_ids(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -8, 7, -8, 7), VXK_OK);
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    // Some live bodies, stepped, so the world has contacts and state to disturb.
    vxk_body_id keep[6];
    for (int i = 0; i < 6; ++i) {
        vxk_body_def d =
            i % 3 == 0   ? sphere_def((vxk_vec3){(float)i - 3, 0.6f, 0}, 0.5f)
            : i % 3 == 1 ? box_def((vxk_vec3){(float)i - 3, 0.6f, 2}, (vxk_vec3){0.4f, 0.5f, 0.4f})
                         : voxel_def((vxk_vec3){(float)i - 3, 2, -3}, &grid, 0.25f);
        keep[i] = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(keep[i]));
    }
    for (int i = 0; i < 5; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    // One index destroyed and reused many times: every old id stays stale.
    enum { ROUNDS = 40 };
    vxk_body_id old[ROUNDS];
    vxk_body_def vd = voxel_def((vxk_vec3){0, 4, 0}, &grid, 0.0f);
    for (int r = 0; r < ROUNDS; ++r) {
        vxk_body_def d = r % 2 ? vd : sphere_def((vxk_vec3){0, 4, 0}, 0.5f);
        old[r] = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(old[r]));
        if (r > 0) {
            VXK_CHECK_MSG(old[r].index == old[r - 1].index, "index %u not reused (got %u)",
                          old[r - 1].index, old[r].index);
            VXK_CHECK(old[r].generation != old[r - 1].generation);
        }
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, old[r]), VXK_OK);
    }
    vxk_body_id reuser = create_ok(w, &vd); // live at the index of every old id
    VXK_CHECK(!VXK_ID_IS_NULL(reuser));
    VXK_CHECK_EQ_U64(reuser.index, old[0].index);
    for (int i = 0; i < 10; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    for (int r = 0; r < ROUNDS; ++r)
        if (check_stale_calls(w, old[r])) {
            fprintf(stderr, "  old id of round %d\n", r);
            return 1;
        }
    // Null, unknown indices, generations never handed out (even ones are never live).
    const vxk_body_id forged[] = {
        {0, 0},
        {keep[0].index, 0},
        {keep[0].index, keep[0].generation + 1},
        {keep[0].index, keep[0].generation + 2},
        {reuser.index, reuser.generation + 2},
        {5000, 1},
        {UINT32_MAX, 1},
        {UINT32_MAX, UINT32_MAX},
        {reuser.index + 1000, reuser.generation},
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); ++i)
        if (check_stale_calls(w, forged[i])) {
            fprintf(stderr, "  forged id %zu\n", i);
            return 1;
        }
    // An id of another world (an index this world never handed out).
    vxk_world* other = make_world(NULL);
    VXK_CHECK(other != NULL);
    vxk_body_id foreign = {0, 0};
    for (int i = 0; i < 40; ++i) {
        vxk_body_def d = sphere_def((vxk_vec3){(float)i, 0, 0}, 0.5f);
        foreign = create_ok(other, &d);
    }
    VXK_CHECK(check_stale_calls(w, foreign) == 0);
    vxk_world_destroy(other);
    // The live bodies are still there and fine.
    for (int i = 0; i < 6; ++i)
        VXK_CHECK(vxk_body_is_valid(w, keep[i]));
    VXK_CHECK(vxk_body_is_valid(w, reuser));
    vxk_world_destroy(w);
    return 0;
}

// Three bodies (a sphere, a voxel body, a box) over a floor, stepped. With reuse, index 1 is
// destroyed and made again (its counter moves on) and ids[3] keeps its old, stale id; else
// ids[3] = ids[1].
static vxk_world* make_three_body_world(vxk_body_id ids[4], bool reuse)
{
    vxk_world* w = make_world(NULL);
    if (!w)
        return NULL;
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    const vxk_body_def defs[3] = {
        sphere_def((vxk_vec3){-2, 0.6f, 0}, 0.5f),
        voxel_def((vxk_vec3){0, 1.5f, 0}, &grid, 0.25f),
        box_def((vxk_vec3){2, 0.6f, 0}, (vxk_vec3){0.4f, 0.5f, 0.4f}),
    };
    bool ok = flat_floor(w, -8, 7, -8, 7) == VXK_OK;
    for (int i = 0; i < 3; ++i)
        ids[i] = create_ok(w, &defs[i]);
    ids[3] = ids[1];
    if (reuse) {
        ok = ok && vxk_body_destroy(w, ids[1]) == VXK_OK;
        ids[1] = create_ok(w, &defs[1]);
    }
    for (int i = 0; i < 3 && ok; ++i)
        ok = vxk_world_step(w, STEP_DT) == VXK_OK;
    for (int i = 0; i < 3; ++i)
        ok = ok && vxk_body_is_valid(w, ids[i]);
    if (!ok) {
        vxk_world_destroy(w);
        return NULL;
    }
    return w;
}

// Ids of another world: two worlds with one body each hand out the same index, and every call of
// one given the other's id returns VXK_ERR_STALE_ID and changes nothing (vxk/id.h), both ways;
// then among several worlds of three bodies, with and without index reuse, stale ids included.
static int test_foreign_ids(void)
{
    vxk_world* a = make_world(NULL);
    vxk_world* b = make_world(NULL);
    VXK_CHECK(a != NULL && b != NULL);
    vxk_body_def d = sphere_def((vxk_vec3){0, 3, 0}, 0.5f);
    d.linear_velocity = (vxk_vec3){1, 0, 0};
    vxk_body_id ida = create_ok(a, &d), idb = create_ok(b, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(ida) && !VXK_ID_IS_NULL(idb));
    VXK_CHECK_EQ_U64(ida.index, idb.index);
    VXK_CHECK_MSG(!VXK_ID_EQUAL(ida, idb), "two worlds handed out the same id {%u, %u}", ida.index,
                  ida.generation);
    if (check_stale_calls(a, idb) || check_stale_calls(b, ida))
        return 1;
    vxk_transform tf;
    vxk_vec3 v, w;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(a, ida, &tf), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(a, ida, &v, &w), VXK_OK);
    CHECK_VEC(tf.p, d.position, 1e-6);
    CHECK_VEC(v, d.linear_velocity, 1e-6);
    CHECK_VEC(w, ((vxk_vec3){0, 0, 0}), 0.0);
    VXK_CHECK(vxk_body_is_valid(a, ida) && vxk_body_is_valid(b, idb));
    VXK_CHECK_EQ_U64(vxk_world_hash(a), vxk_world_hash(b));
    vxk_world_destroy(a);
    vxk_world_destroy(b);

    enum { WORLDS = 6 };
    vxk_world* worlds[WORLDS];
    vxk_body_id ids[WORLDS][4];
    for (int k = 0; k < WORLDS; ++k) {
        worlds[k] = make_three_body_world(ids[k], k % 2 == 1);
        VXK_CHECK(worlds[k] != NULL);
    }
    for (int p = 0; p < WORLDS; ++p)
        for (int q = 0; q < WORLDS; ++q)
            for (int i = 0; i < 4 && q != p; ++i)
                if (check_stale_calls(worlds[q], ids[p][i])) {
                    fprintf(stderr, "  id %d of world %d given to world %d\n", i, p, q);
                    return 1;
                }
    for (int k = 0; k < WORLDS; ++k) {
        for (int i = 0; i < 3; ++i)
            VXK_CHECK(vxk_body_is_valid(worlds[k], ids[k][i]));
        vxk_world_destroy(worlds[k]);
    }
    return 0;
}

// Worlds built alike in one process hand out different ids (their salts differ) but hash the
// same: vxk_world_hash does not depend on the salt, index reuse included.
static int test_identical_worlds_hash(void)
{
    vxk_body_id ia[4], ib[4];
    vxk_world* a = make_three_body_world(ia, true);
    vxk_world* b = make_three_body_world(ib, true);
    VXK_CHECK(a != NULL && b != NULL);
    for (int i = 0; i < 4; ++i) {
        VXK_CHECK_EQ_U64(ia[i].index, ib[i].index);
        VXK_CHECK(!VXK_ID_EQUAL(ia[i], ib[i]));
    }
    for (int step = 0; step < 30; ++step) {
        VXK_CHECK_MSG(vxk_world_hash(a) == vxk_world_hash(b),
                      "step %d: world hashes %016llx and %016llx", step,
                      (unsigned long long)vxk_world_hash(a), (unsigned long long)vxk_world_hash(b));
        VXK_CHECK_EQ_INT(vxk_world_step(a, STEP_DT), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(b, STEP_DT), VXK_OK);
    }
    vxk_world_destroy(a);
    vxk_world_destroy(b);
    return 0;
}

// ---- bad input
// --------------------------------------------------------------------------------------

static int expect_create(vxk_world* w, const vxk_body_def* def, vxk_status want, const char* what)
{
    body_snapshot s0 = body_snap(w);
    const vxk_body_id canary = {0xA5A5A5A5u, 0xA5A5A5A5u};
    vxk_body_id out = canary;
    vxk_status st = vxk_body_create(w, def, &out);
    VXK_CHECK_MSG(st == want, "%s: status %d (%s), want %d (%s)", what, (int)st,
                  vxk_status_string(st), (int)want, vxk_status_string(want));
    VXK_CHECK_MSG(VXK_ID_EQUAL(out, canary), "%s: out written", what);
    CHECK_BODIES_UNCHANGED(w, s0);
    return 0;
}

#define EXPECT_CREATE(w, def, want, ...)              \
    do {                                              \
        char what_[96];                               \
        snprintf(what_, sizeof(what_), __VA_ARGS__);  \
        if (expect_create((w), (def), (want), what_)) \
            return 1;                                 \
    } while (0)

// The float fields of a def, by number (NULL past the last).
static float* def_float(vxk_body_def* d, int field, const char** name)
{
    static const char* names[] = {"position.x",
                                  "position.y",
                                  "position.z",
                                  "rotation.x",
                                  "rotation.y",
                                  "rotation.z",
                                  "rotation.w",
                                  "linear_velocity.x",
                                  "linear_velocity.y",
                                  "linear_velocity.z",
                                  "angular_velocity.x",
                                  "angular_velocity.y",
                                  "angular_velocity.z",
                                  "linear_damping",
                                  "angular_damping",
                                  "gravity_scale",
                                  "friction",
                                  "restitution",
                                  "shape.radius",
                                  "shape.half_extents.x",
                                  "shape.half_extents.y",
                                  "shape.half_extents.z",
                                  "shape.voxel_size"};
    float* fields[] = {&d->position.x,
                       &d->position.y,
                       &d->position.z,
                       &d->rotation.x,
                       &d->rotation.y,
                       &d->rotation.z,
                       &d->rotation.w,
                       &d->linear_velocity.x,
                       &d->linear_velocity.y,
                       &d->linear_velocity.z,
                       &d->angular_velocity.x,
                       &d->angular_velocity.y,
                       &d->angular_velocity.z,
                       &d->linear_damping,
                       &d->angular_damping,
                       &d->gravity_scale,
                       &d->friction,
                       &d->restitution,
                       &d->shape.radius,
                       &d->shape.half_extents.x,
                       &d->shape.half_extents.y,
                       &d->shape.half_extents.z,
                       &d->shape.voxel_size};
    if (field < 0 || field >= (int)(sizeof(fields) / sizeof(fields[0])))
        return NULL;
    *name = names[field];
    return fields[field];
}

static int test_bad_defs(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -8, 7, -8, 7), VXK_OK);
    uint8_t voxels[60];
    vxk_voxel_grid grid;
    make_l_grid(&grid, voxels);
    vxk_body_def live = sphere_def((vxk_vec3){0, 3, 0}, 0.5f);
    VXK_CHECK(!VXK_ID_IS_NULL(create_ok(w, &live)));
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);

    const vxk_body_def shapes[3] = {sphere_def((vxk_vec3){1, 2, 3}, 0.5f),
                                    box_def((vxk_vec3){1, 2, 3}, (vxk_vec3){0.5f, 1, 2}),
                                    voxel_def((vxk_vec3){1, 2, 3}, &grid, 0.5f)};
    const char* shape_names[3] = {"sphere", "box", "voxels"};
    for (int s = 0; s < 3; ++s) {
        // Sanity: the def itself is fine.
        vxk_body_id ok = create_ok(w, &shapes[s]);
        VXK_CHECK_MSG(!VXK_ID_IS_NULL(ok), "%s def refused", shape_names[s]);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, ok), VXK_OK);
        // Non-finite values in every float of the def and of its shape.
        const char* name = NULL;
        for (int field = 0;; ++field) {
            vxk_body_def d = shapes[s];
            if (!def_float(&d, field, &name))
                break;
            for (int k = 0; k < 3; ++k) {
                d = shapes[s];
                *def_float(&d, field, &name) = special_float(k);
                EXPECT_CREATE(w, &d, VXK_ERR_NOT_FINITE, "%s %s = %g", shape_names[s], name,
                              (double)special_float(k));
            }
        }
        // A rotation off unit by more than 1e-3.
        const vxk_quat bad_q[] = {{0, 0, 0, 1.002f}, {0, 0, 0, 0.998f}, {0, 0, 0, 0},
                                  {1, 1, 0, 0},      {0, 0, 0, -1.01f}, {0.6f, 0.6f, 0.6f, 0.6f}};
        for (int i = 0; i < 6; ++i) {
            vxk_body_def d = shapes[s];
            d.rotation = bad_q[i];
            EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "%s rotation %d", shape_names[s], i);
        }
        vxk_body_def d = shapes[s];
        d.linear_damping = -0.01f;
        EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "%s linear damping < 0", shape_names[s]);
        d = shapes[s];
        d.angular_damping = -FLT_MIN;
        EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "%s angular damping < 0", shape_names[s]);
        d = shapes[s];
        d.restitution = 1.001f;
        EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "%s restitution > 1", shape_names[s]);
        // Bad type and shape type, bad cookie.
        d = shapes[s];
        d.type = (vxk_body_type)3;
        EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "%s type 3", shape_names[s]);
        d.type = (vxk_body_type)-1;
        EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "%s type -1", shape_names[s]);
        d = shapes[s];
        d.shape.type = (vxk_shape_type)0;
        EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "%s shape type 0", shape_names[s]);
        d.shape.type = (vxk_shape_type)5;
        EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "%s shape type 5", shape_names[s]);
        d.shape.type = (vxk_shape_type)1000;
        EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "%s shape type 1000", shape_names[s]);
        d = shapes[s];
        d.cookie ^= 1u;
        EXPECT_CREATE(w, &d, VXK_ERR_BAD_DEF, "%s cookie ^ 1", shape_names[s]);
        d.cookie = 0;
        EXPECT_CREATE(w, &d, VXK_ERR_BAD_DEF, "%s cookie 0", shape_names[s]);
    }
    vxk_body_def zero;
    memset(&zero, 0, sizeof(zero));
    EXPECT_CREATE(w, &zero, VXK_ERR_BAD_DEF, "zeroed def");
    // Sizes.
    const float bad_sizes[] = {0.0f, -0.0f, -1.0f, -FLT_MAX};
    for (int i = 0; i < 4; ++i) {
        vxk_body_def d = shapes[0];
        d.shape.radius = bad_sizes[i];
        EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "radius %g", (double)bad_sizes[i]);
        for (int a = 0; a < 3; ++a) {
            d = shapes[1];
            (&d.shape.half_extents.x)[a] = bad_sizes[i];
            EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "half extent %d = %g", a,
                          (double)bad_sizes[i]);
        }
        if (bad_sizes[i] < 0.0f) { // 0 (and -0) mean the world's voxel size
            d = shapes[2];
            d.shape.voxel_size = bad_sizes[i];
            EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "voxel size %g", (double)bad_sizes[i]);
        }
    }
    // Materials: air and undefined ids.
    const uint8_t bad_materials[] = {VXK_MAT_AIR, 12, 100, 255};
    for (int i = 0; i < 4; ++i)
        for (int s = 0; s < 2; ++s) {
            vxk_body_def d = shapes[s];
            d.shape.material = bad_materials[i];
            EXPECT_CREATE(w, &d, VXK_ERR_BAD_MATERIAL, "%s material %d", shape_names[s],
                          bad_materials[i]);
        }
    // Grids: NULL, NULL voxels, sizes outside 1..VXK_BODY_MAX_GRID, no solid voxel, an undefined
    // id.
    static uint8_t big[(VXK_BODY_MAX_GRID + 1) * 2];
    memset(big, VXK_MAT_STONE, sizeof(big));
    vxk_body_def d = shapes[2];
    d.shape.grid = NULL;
    EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "NULL grid");
    vxk_voxel_grid g = {{2, 1, 1}, NULL};
    d.shape.grid = &g;
    EXPECT_CREATE(w, &d, VXK_ERR_INVALID_ARGUMENT, "NULL grid voxels");
    const vxk_int3 bad_grid_sizes[] = {{0, 1, 1},
                                       {1, 0, 1},
                                       {1, 1, 0},
                                       {-1, 1, 1},
                                       {VXK_BODY_MAX_GRID + 1, 1, 1},
                                       {1, VXK_BODY_MAX_GRID + 1, 1},
                                       {1, 1, VXK_BODY_MAX_GRID + 1},
                                       {INT32_MIN, 1, 1}};
    for (int i = 0; i < 8; ++i) {
        g = (vxk_voxel_grid){bad_grid_sizes[i], big};
        EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "grid size (%d, %d, %d)", g.size.x, g.size.y,
                      g.size.z);
    }
    g = (vxk_voxel_grid){{VXK_BODY_MAX_GRID, 2, 1}, big}; // the largest size is fine
    vxk_body_id edge = create_ok(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(edge));
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, edge), VXK_OK);
    uint8_t empty[27] = {0};
    g = (vxk_voxel_grid){{3, 3, 3}, empty};
    EXPECT_CREATE(w, &d, VXK_ERR_OUT_OF_RANGE, "empty grid");
    uint8_t undefined_ids[27];
    memset(undefined_ids, VXK_MAT_STONE, sizeof(undefined_ids));
    g = (vxk_voxel_grid){{3, 3, 3}, undefined_ids};
    for (int pos = 0; pos < 27; pos += 5) {
        undefined_ids[pos] = 77;
        EXPECT_CREATE(w, &d, VXK_ERR_BAD_MATERIAL, "grid with id 77 at %d", pos);
        undefined_ids[pos] = VXK_MAT_STONE;
    }
    // NULL arguments.
    vxk_body_id out = {0, 0};
    body_snapshot s0 = body_snap(w);
    VXK_CHECK_EQ_INT(vxk_body_create(NULL, &shapes[0], &out), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_create(w, NULL, &out), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &shapes[0], NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(VXK_ID_IS_NULL(out));
    CHECK_BODIES_UNCHANGED(w, s0);
    vxk_world_destroy(w);
    return 0;
}

// A dynamic body needs mass: a zero-density material is refused for it, fine for static and
// kinematic bodies, and fine in a grid that has other mass.
static int test_zero_density(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    uint8_t voids[8];
    memset(voids, MAT_VOID, sizeof(voids));
    vxk_voxel_grid g = {{2, 2, 2}, voids};
    vxk_body_def defs[3] = {sphere_def((vxk_vec3){0, 0, 0}, 0.5f),
                            box_def((vxk_vec3){0, 0, 0}, (vxk_vec3){1, 1, 1}),
                            voxel_def((vxk_vec3){0, 0, 0}, &g, 0.0f)};
    defs[0].shape.material = MAT_VOID;
    defs[1].shape.material = MAT_VOID;
    for (int s = 0; s < 3; ++s)
        EXPECT_CREATE(w, &defs[s], VXK_ERR_OUT_OF_RANGE, "dynamic shape %d of density 0", s);
    // One voxel of mass among zero-density ones: a dynamic body of that voxel's mass.
    voids[3] = MAT_LIGHT;
    vxk_body_id id = create_ok(w, &defs[2]);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK(fabs(info.mass - 0.5) <= 1e-6);
    voids[3] = MAT_VOID;
    // Static and kinematic bodies have no mass: zero density is fine for every shape.
    vxk_status statuses[3][2];
    for (int s = 0; s < 3; ++s)
        for (int type = VXK_BODY_STATIC; type <= VXK_BODY_KINEMATIC; ++type) {
            vxk_body_def d = defs[s];
            d.type = (vxk_body_type)type;
            statuses[s][type] = vxk_body_create(w, &d, &id);
            if (statuses[s][type] == VXK_OK)
                VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
        }
    vxk_world_destroy(w);
    for (int s = 0; s < 3; ++s)
        for (int type = VXK_BODY_STATIC; type <= VXK_BODY_KINEMATIC; ++type)
            VXK_CHECK_MSG(statuses[s][type] == VXK_OK,
                          "%s body, shape %d, of density 0: status %d (%s)",
                          type == VXK_BODY_STATIC ? "static" : "kinematic", (int)defs[s].shape.type,
                          (int)statuses[s][type], vxk_status_string(statuses[s][type]));
    return 0;
}

// Setters, forces, impulses and getters with bad input: their status, nothing changed.
static int test_bad_calls(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -8, 7, -8, 7), VXK_OK);
    vxk_body_def d = box_def((vxk_vec3){0, 0.5f, 0}, (vxk_vec3){0.5f, 0.5f, 0.5f});
    d.linear_velocity = (vxk_vec3){1, 0, 0};
    vxk_body_id id = create_ok(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    for (int i = 0; i < 3; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    body_snapshot s0 = body_snap(w);
    const vxk_vec3 ok = {1, 2, 3};
    for (int k = 0; k < 3; ++k) {
        float bad = special_float(k);
        for (int c = 0; c < 7; ++c) {
            vxk_vec3 p = {0, 1, 0};
            vxk_quat q = k_identity;
            if (c < 3)
                (&p.x)[c] = bad;
            else
                (&q.x)[c - 3] = bad;
            VXK_CHECK_MSG(vxk_body_set_transform(w, id, p, q) == VXK_ERR_NOT_FINITE,
                          "set_transform component %d = %g", c, (double)bad);
        }
        for (int c = 0; c < 6; ++c) {
            vxk_vec3 a = ok, b = ok;
            if (c < 3)
                (&a.x)[c] = bad;
            else
                (&b.x)[c - 3] = bad;
            VXK_CHECK_MSG(vxk_body_set_velocity(w, id, a, b) == VXK_ERR_NOT_FINITE,
                          "set_velocity component %d = %g", c, (double)bad);
            VXK_CHECK_MSG(vxk_body_apply_force(w, id, a, b) == VXK_ERR_NOT_FINITE,
                          "apply_force component %d = %g", c, (double)bad);
            VXK_CHECK_MSG(vxk_body_apply_impulse(w, id, a, b) == VXK_ERR_NOT_FINITE,
                          "apply_impulse component %d = %g", c, (double)bad);
            if (c < 3) {
                VXK_CHECK_EQ_INT(vxk_body_apply_force_to_center(w, id, a), VXK_ERR_NOT_FINITE);
                VXK_CHECK_EQ_INT(vxk_body_apply_torque(w, id, a), VXK_ERR_NOT_FINITE);
                VXK_CHECK_EQ_INT(vxk_body_apply_angular_impulse(w, id, a), VXK_ERR_NOT_FINITE);
            }
        }
    }
    const vxk_quat bad_q[] = {{0, 0, 0, 1.002f}, {0, 0, 0, 0}, {0.5f, 0.5f, 0.5f, 0.51f}};
    for (int i = 0; i < 3; ++i)
        VXK_CHECK_EQ_INT(vxk_body_set_transform(w, id, ok, bad_q[i]), VXK_ERR_OUT_OF_RANGE);
    // NULL outputs.
    vxk_vec3 v;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, NULL, &v), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_get_user_data(w, id, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_get_aabb(w, id, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, NULL), VXK_ERR_INVALID_ARGUMENT);
    CHECK_BODIES_UNCHANGED(w, s0);
    // The pending forces were not touched either: the next step equals a fresh twin's.
    vxk_world* twin = make_world(NULL);
    VXK_CHECK(twin != NULL);
    VXK_CHECK_EQ_INT(flat_floor(twin, -8, 7, -8, 7), VXK_OK);
    VXK_CHECK(!VXK_ID_IS_NULL(create_ok(twin, &d)));
    for (int i = 0; i < 4; ++i) {
        VXK_CHECK_EQ_INT(vxk_world_step(twin, STEP_DT), VXK_OK);
        if (i == 3)
            VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    }
    VXK_CHECK_EQ_U64(vxk_world_hash(w), vxk_world_hash(twin));
    vxk_world_destroy(twin);
    vxk_world_destroy(w);
    return 0;
}

// ---- limits (vxk/world.h, "Limits")
// ---------------------------------------------------------------------------------

// Every body's pose and velocities finite, the speeds within the maxima (a float's rounding
// over).
static int check_bodies_sane(const vxk_world* w, const char* what)
{
    vxk_body_id ids[64];
    uint32_t n = vxk_world_get_bodies(w, ids, 64);
    VXK_CHECK(n <= 64);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_transform t;
        vxk_vec3 v, av;
        VXK_CHECK_EQ_INT(vxk_body_get_transform(w, ids[i], &t), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, ids[i], &v, &av), VXK_OK);
        const float f[13] = {t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w,
                             v.x,   v.y,   v.z,   av.x,  av.y,  av.z};
        for (int k = 0; k < 13; ++k)
            VXK_CHECK_MSG(isfinite(f[k]), "%s: body %u value %d is %g", what, ids[i].index, k,
                          (double)f[k]);
        double speed = sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
        double spin = sqrt((double)av.x * av.x + (double)av.y * av.y + (double)av.z * av.z);
        VXK_CHECK_MSG(speed <= 1000.0 * (1 + 1e-6) && spin <= 1000.0 * (1 + 1e-6),
                      "%s: body %u speed %.9g, spin %.9g", what, ids[i].index, speed, spin);
    }
    return 0;
}

// The steps after: each VXK_OK, the bodies sane after each.
static int steps_ok(vxk_world* w, int count, float dt, const char* what)
{
    for (int i = 0; i < count; ++i) {
        vxk_status st = vxk_world_step(w, dt);
        VXK_CHECK_MSG(st == VXK_OK, "%s: step %d (dt %g): %s", what, i, (double)dt,
                      vxk_status_string(st));
        if (check_bodies_sane(w, what))
            return 1;
    }
    return 0;
}

// A floor and a falling sphere, the world every limit case starts from.
static vxk_world* limits_world(vxk_body_id* mover)
{
    vxk_world* w = make_world(NULL);
    if (!w || flat_floor(w, -8, 7, -8, 7) != VXK_OK)
        return NULL;
    vxk_body_def d = sphere_def((vxk_vec3){0, 2, 0}, 0.5f);
    d.linear_velocity = (vxk_vec3){1, 0, 0};
    *mover = create_ok(w, &d);
    return VXK_ID_IS_NULL(*mover) || vxk_world_step(w, STEP_DT) != VXK_OK ? NULL : w;
}

// Issue 26, items 6, 7 and 11: finite defs past the limits were accepted and then stuck every
// step at VXK_ERR_NOT_FINITE, or turned the world to NaN (a sphere of radius 1e6), or were
// refused with the wrong status (voxel size FLT_MAX). Each is refused now, nothing changed, and the
// world steps on.
static int test_limits_create(void)
{
    vxk_body_id mover;
    vxk_world* w = limits_world(&mover);
    VXK_CHECK(w != NULL);
    static uint8_t cells[8];
    memset(cells, VXK_MAT_STONE, sizeof(cells));
    vxk_voxel_grid grid = {{2, 2, 2}, cells};
    const vxk_vec3 at = {2, 3, 2};
    const float tiny = FLT_TRUE_MIN;
    typedef struct def_case {
        const char* what;
        vxk_body_def def;
    } def_case;
    def_case cases[64];
    int n = 0;
// An edit of the def d after its shape: one statement (may hold commas).
#define CASE(text, shape_expr, ...)            \
    do {                                       \
        cases[n].what = text;                  \
        cases[n].def = vxk_default_body_def(); \
        cases[n].def.position = at;            \
        cases[n].def.shape = shape_expr;       \
        vxk_body_def* d = &cases[n].def;       \
        __VA_ARGS__;                           \
        (void)d;                               \
        n++;                                   \
    } while (0)
    const vxk_shape_def ball = vxk_sphere_shape(0.5f, VXK_MAT_STONE);
    CASE("linear_velocity.x 1e20", ball, d->linear_velocity.x = 1e20f);
    CASE("linear_velocity.y 1e30", ball, d->linear_velocity.y = 1e30f);
    CASE("linear_velocity.z FLT_MAX", ball, d->linear_velocity.z = FLT_MAX);
    CASE("linear_velocity (800, -800, 0)", ball, d->linear_velocity = (vxk_vec3){800, -800, 0});
    CASE("angular_velocity.x 1e30", ball, d->angular_velocity.x = 1e30f);
    CASE("angular_velocity.y -FLT_MAX", ball, d->angular_velocity.y = -FLT_MAX);
    CASE("angular_velocity 1000.1", ball, d->angular_velocity.z = 1000.1f);
    CASE("kinematic linear_velocity 1e30", ball,
         (d->type = VXK_BODY_KINEMATIC, d->linear_velocity.x = 1e30f));
    CASE("gravity_scale 1e30", ball, d->gravity_scale = 1e30f);
    CASE("gravity_scale FLT_MAX", ball, d->gravity_scale = FLT_MAX);
    CASE("gravity_scale -10.01", ball, d->gravity_scale = -10.01f);
    CASE("linear_damping FLT_MAX", ball, d->linear_damping = FLT_MAX);
    CASE("angular_damping 1e30", ball, d->angular_damping = 1e30f);
    CASE("friction FLT_MAX", ball, d->friction = FLT_MAX);
    CASE("position.x 1e30", ball, d->position.x = 1e30f);
    CASE("position.y -FLT_MAX", ball, d->position.y = -FLT_MAX);
    CASE("position.z 2^31 voxels + 256", ball, d->position.z = 2147483904.0f);
    CASE("position.x -2^31 voxels - 256", ball, d->position.x = -2147483904.0f);
    CASE("sphere radius 1e6", vxk_sphere_shape(1e6f, VXK_MAT_STONE), (void)0);
    CASE("sphere radius 1000.001", vxk_sphere_shape(1000.001f, VXK_MAT_STONE), (void)0);
    CASE("sphere radius subnormal", vxk_sphere_shape(tiny, VXK_MAT_STONE), (void)0);
    CASE("sphere radius 0.99e-3", vxk_sphere_shape(0.99e-3f, VXK_MAT_STONE), (void)0);
    CASE("box half extent x 1e30", vxk_box_shape((vxk_vec3){1e30f, 0.5f, 0.5f}, VXK_MAT_WOOD),
         (void)0);
    CASE("box half extent y FLT_MAX", vxk_box_shape((vxk_vec3){0.5f, FLT_MAX, 0.5f}, VXK_MAT_WOOD),
         (void)0);
    CASE("box half extent z subnormal", vxk_box_shape((vxk_vec3){0.5f, 0.5f, tiny}, VXK_MAT_WOOD),
         (void)0);
    CASE("box half extent x 1e-40", vxk_box_shape((vxk_vec3){1e-40f, 0.5f, 0.5f}, VXK_MAT_WOOD),
         (void)0);
    CASE("capsule radius 1e30", vxk_capsule_shape(0.5f, 1e30f, VXK_MAT_STONE), (void)0);
    CASE("capsule half height 1e30", vxk_capsule_shape(1e30f, 0.5f, VXK_MAT_STONE), (void)0);
    CASE("capsule half height subnormal", vxk_capsule_shape(tiny, 0.5f, VXK_MAT_STONE), (void)0);
    CASE("voxel size 1e30", vxk_voxel_shape(&grid, 1e30f), (void)0);
    CASE("voxel size FLT_MAX", vxk_voxel_shape(&grid, FLT_MAX), (void)0);
    CASE("voxel size subnormal", vxk_voxel_shape(&grid, tiny), (void)0);
    CASE("static linear_velocity.x 1e-45", ball,
         (d->type = VXK_BODY_STATIC, d->linear_velocity.x = tiny));
    CASE("static angular_velocity.z -1e-45", ball,
         (d->type = VXK_BODY_STATIC, d->angular_velocity.z = -tiny));
#undef CASE
    for (int i = 0; i < n; ++i) {
        EXPECT_CREATE(w, &cases[i].def, VXK_ERR_OUT_OF_RANGE, "%s", cases[i].what);
        if (steps_ok(w, 1, STEP_DT, cases[i].what))
            return 1;
    }
    vxk_world_destroy(w);
    return 0;
}

// Calls with finite values past the limits: refused with VXK_ERR_OUT_OF_RANGE, nothing changed,
// and the next steps fine. The impulse at (FLT_MAX, 2, 0.5) made the angular velocity NaN at once
// (issue 26, item 7); a static body's velocity of 1e-45 was accepted (its squared length underflows
// to 0, item 11).
static int test_limits_calls(void)
{
    vxk_body_id mover;
    vxk_world* w = limits_world(&mover);
    VXK_CHECK(w != NULL);
    vxk_body_def sd = box_def((vxk_vec3){-3, 0.5f, 0}, (vxk_vec3){0.5f, 0.5f, 0.5f});
    sd.type = VXK_BODY_STATIC;
    vxk_body_id fixed = create_ok(w, &sd);
    VXK_CHECK(!VXK_ID_IS_NULL(fixed));
    const vxk_vec3 zero = {0, 0, 0}, up = {0, 100, 0}, near = {0, 2, 0.5f};
    const vxk_quat unit = {0, 0, 0, 1};
    const float tiny = FLT_TRUE_MIN;
    const vxk_body_id both[2] = {mover, fixed};
    for (int k = 0; k < 2; ++k) {
        vxk_body_id id = both[k];
        const char* who = k == 0 ? "dynamic" : "static";
        body_snapshot s0 = body_snap(w);
        vxk_status got[20];
        int c = 0;
        got[c++] = vxk_body_set_velocity(w, id, (vxk_vec3){1e30f, 0, 0}, zero);
        got[c++] = vxk_body_set_velocity(w, id, zero, (vxk_vec3){0, -FLT_MAX, 0});
        got[c++] = vxk_body_set_velocity(w, id, (vxk_vec3){600, 600, 600}, zero);
        got[c++] = vxk_body_set_transform(w, id, (vxk_vec3){1e30f, 0, 0}, unit);
        got[c++] = vxk_body_set_transform(w, id, (vxk_vec3){0, 0, -FLT_MAX}, unit);
        got[c++] = vxk_body_set_transform(w, id, (vxk_vec3){0, 2147483904.0f, 0}, unit);
        got[c++] = vxk_body_apply_force(w, id, (vxk_vec3){FLT_MAX, 0, 0}, near);
        got[c++] = vxk_body_apply_force(w, id, up, (vxk_vec3){1e30f, 2, 0.5f});
        got[c++] = vxk_body_apply_force_to_center(w, id, (vxk_vec3){0, 0, 1e30f});
        got[c++] = vxk_body_apply_torque(w, id, (vxk_vec3){0, FLT_MAX, 0});
        got[c++] = vxk_body_apply_torque(w, id, (vxk_vec3){6e19f, 6e19f, 6e19f});
        got[c++] = vxk_body_apply_impulse(w, id, (vxk_vec3){-FLT_MAX, 0, 0}, near);
        got[c++] = vxk_body_apply_impulse(w, id, up, (vxk_vec3){FLT_MAX, 2, 0.5f});
        got[c++] = vxk_body_apply_angular_impulse(w, id, (vxk_vec3){1e30f, 0, 0});
        if (k == 1) {
            got[c++] = vxk_body_set_velocity(w, id, (vxk_vec3){tiny, 0, 0}, zero);
            got[c++] = vxk_body_set_velocity(w, id, zero, (vxk_vec3){0, 0, -tiny});
        }
        for (int i = 0; i < c; ++i)
            VXK_CHECK_MSG(got[i] == VXK_ERR_OUT_OF_RANGE, "%s body, call %d: %s", who, i,
                          vxk_status_string(got[i]));
        CHECK_BODIES_UNCHANGED(w, s0);
        if (steps_ok(w, 3, STEP_DT, who))
            return 1;
    }
    vxk_world_destroy(w);
    return 0;
}

// Calls at the limits are accepted and what they do stays within the maxima: impulses whose
// velocity would pass them leave it clamped (direction kept), forces and torques summed past them
// stay finite, the step clamps the motion they make.
static int test_limits_clamped(void)
{
    vxk_body_id mover;
    vxk_world* w = limits_world(&mover);
    VXK_CHECK(w != NULL);
    // A light, small body: a 1 mm sphere of density 0.5 (its inverse inertia times a torque of the
    // limits overflows float).
    vxk_body_def d = sphere_def((vxk_vec3){3, 1, 3}, 1e-3f);
    d.shape.material = MAT_LIGHT;
    vxk_body_id pebble = create_ok(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(pebble));
    const float edge = 2147483520.0f; // the last float below 2^31 (voxel size 1)
    const vxk_vec3 far = {edge, -edge, edge};
    vxk_vec3 v, av;
    VXK_CHECK_EQ_INT(vxk_body_apply_impulse(w, pebble, (vxk_vec3){1e20f, 0, 0}, far), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, pebble, &v, &av), VXK_OK);
    VXK_CHECK_MSG(fabs(v.x - 1000.0) <= 1e-3 && v.y == 0.0f && v.z == 0.0f,
                  "impulse 1e20: v (%g, %g, %g)", (double)v.x, (double)v.y, (double)v.z);
    double spin = sqrt((double)av.x * av.x + (double)av.y * av.y + (double)av.z * av.z);
    VXK_CHECK_MSG(spin <= 1000.0 && spin >= 999.0, "impulse 1e20 at the range's corner: spin %g",
                  spin);
    // The velocities read back are accepted when set again.
    VXK_CHECK_EQ_INT(vxk_body_set_velocity(w, pebble, v, av), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_apply_angular_impulse(w, pebble, (vxk_vec3){0, -1e20f, 0}), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, pebble, &v, &av), VXK_OK);
    spin = sqrt((double)av.x * av.x + (double)av.y * av.y + (double)av.z * av.z);
    VXK_CHECK_MSG(isfinite(spin) && spin <= 1000.0, "angular impulse 1e20: spin %g", spin);
    // Forces and torques at the limits, many times over, at the corners of the range.
    for (int i = 0; i < 1000; ++i) {
        vxk_vec3 point = {i & 1 ? edge : -edge, i & 2 ? edge : -edge, i & 4 ? edge : -edge};
        vxk_vec3 force = {i & 8 ? 1e20f : -1e20f, 0, 0};
        VXK_CHECK_EQ_INT(vxk_body_apply_force(w, pebble, force, point), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_force(w, mover, force, point), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_apply_torque(w, mover, (vxk_vec3){0, 0, 1e20f}), VXK_OK);
    }
    if (steps_ok(w, 1, STEP_DT, "forces at the limits") || steps_ok(w, 1, 1.0f, "dt 1 s") ||
        steps_ok(w, 3, 1e-6f, "dt 1e-6 s") || steps_ok(w, 30, STEP_DT, "after"))
        return 1;
    // The fastest a body may be set going, and a rolling ball's spin (radius 0.077 m at 50 m/s:
    // 650 rad/s) well within the spin limit.
    VXK_CHECK_EQ_INT(
        vxk_body_set_velocity(w, mover, (vxk_vec3){0, -1000, 0}, (vxk_vec3){1000, 0, 0}), VXK_OK);
    d = sphere_def((vxk_vec3){-3, 0.077f, -3}, 0.077f);
    d.shape.material = VXK_MAT_METAL;
    d.linear_velocity = (vxk_vec3){50, 0, 0};
    d.angular_velocity = (vxk_vec3){0, 0, -50.0f / 0.077f};
    VXK_CHECK(!VXK_ID_IS_NULL(create_ok(w, &d)));
    if (steps_ok(w, 30, STEP_DT, "at the maximum speeds"))
        return 1;
    vxk_world_destroy(w);
    return 0;
}

// One body of the extremes: moving at the maximum speed and spin into the floor, under the
// strongest gravity, pushed by the largest force at a lever of its size and the largest torque.
static vxk_body_id extreme_body(vxk_world* w, vxk_shape_def shape, float x, float size)
{
    vxk_body_def d = vxk_default_body_def();
    d.shape = shape;
    d.position = (vxk_vec3){x, 2.5f * size, 0};
    d.linear_velocity = (vxk_vec3){0, -1000, 0};
    d.angular_velocity = (vxk_vec3){0, 0, 1000};
    d.gravity_scale = 10.0f;
    vxk_body_id id = create_ok(w, &d);
    if (!VXK_ID_IS_NULL(id) &&
        (vxk_body_apply_force(w, id, (vxk_vec3){0, -1e20f, 0}, (vxk_vec3){x, 0, size}) != VXK_OK ||
         vxk_body_apply_torque(w, id, (vxk_vec3){1e20f, 0, 0}) != VXK_OK))
        return (vxk_body_id){0, 0};
    return id;
}

// The extremes of the contract work (a sphere of radius 1e6 is refused now; every size inside the
// limits must step): worlds of the least and the largest voxel size, each shape at the least and
// the largest size, extreme_body's motion, stepped at the longest and the shortest dt. Spheres,
// boxes and capsules fall onto terrain; voxel bodies onto a static box (a voxel body's terrain
// region grows with its margin in terrain voxels: its cost at these speeds is the region
// gathering's, not the limits').
static int test_limits_extremes(void)
{
    const float voxel_sizes[3] = {1e-3f, 1.0f, 1e3f};
    const float sizes[2] = {1e-3f, 1e3f};
    uint8_t cells[8];
    memset(cells, VXK_MAT_METAL, sizeof(cells));
    cells[0] = MAT_LIGHT;
    vxk_voxel_grid grid = {{2, 2, 2}, cells};
    for (int vi = 0; vi < 3; ++vi) {
        for (int voxels = 0; voxels < 2; ++voxels) {
            vxk_world_def wd = vxk_default_world_def();
            wd.materials = test_materials();
            wd.voxel_size = voxel_sizes[vi];
            wd.gravity = (vxk_vec3){0, -100, 0};
            vxk_world* w = NULL;
            VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
            if (voxels) {
                vxk_body_def floor = box_def((vxk_vec3){0, -1000, 0}, (vxk_vec3){1000, 1000, 1000});
                floor.type = VXK_BODY_STATIC;
                VXK_CHECK(!VXK_ID_IS_NULL(create_ok(w, &floor)));
            } else {
                VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
            }
            for (int si = 0; si < 2; ++si) {
                float s = sizes[si];
                const vxk_shape_def shapes[3] = {vxk_sphere_shape(s, VXK_MAT_METAL),
                                                 vxk_box_shape((vxk_vec3){s, s, s}, MAT_LIGHT),
                                                 vxk_capsule_shape(s, s, VXK_MAT_STONE)};
                for (int k = 0; k < (voxels ? 1 : 3); ++k) {
                    vxk_shape_def shape = voxels ? vxk_voxel_shape(&grid, s) : shapes[k];
                    vxk_body_id id = extreme_body(w, shape, (float)(k - 1) * 3.0f * s, s);
                    VXK_CHECK_MSG(!VXK_ID_IS_NULL(id), "world voxel %g: shape %d of size %g",
                                  (double)voxel_sizes[vi], (int)shape.type, (double)s);
                }
            }
            char what[64];
            snprintf(what, sizeof(what), "world voxel %g, %s", (double)voxel_sizes[vi],
                     voxels ? "voxel bodies" : "primitives");
            if (steps_ok(w, 2, 1.0f, what) || steps_ok(w, 2, 1e-6f, what) ||
                steps_ok(w, 10, STEP_DT, what))
                return 1;
            vxk_world_destroy(w);
        }
    }
    return 0;
}

// ---- voxel bodies
// -----------------------------------------------------------------------------------

// get_info of a voxel body against vxk_mass_from_grid on the same grid; grid_origin = -centre.
static int check_voxel_info(const vxk_world* w, vxk_body_id id, const vxk_voxel_grid* g, float s,
                            const char* what)
{
    float density[256];
    density_table(density, vxk_world_materials(w));
    vxk_mass_properties mp;
    VXK_CHECK_EQ_INT(vxk_mass_from_grid(&mp, g, density, s), VXK_OK);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK_EQ_INT(info.shape, VXK_SHAPE_VOXELS);
    VXK_CHECK_MSG(fabs(info.mass - mp.mass) <= 1e-6 * mp.mass, "%s: mass %.9g want %.9g", what,
                  (double)info.mass, mp.mass);
    double scale = fmax(mp.inertia[0][0], fmax(mp.inertia[1][1], mp.inertia[2][2]));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            VXK_CHECK_MSG(fabs(info.inertia[i][j] - mp.inertia[i][j]) <= 1e-6 * scale,
                          "%s: inertia[%d][%d] %.9g want %.9g", what, i, j,
                          (double)info.inertia[i][j], mp.inertia[i][j]);
    double extent = s * (g->size.x + g->size.y + g->size.z);
    for (int a = 0; a < 3; ++a)
        VXK_CHECK_MSG(fabs((&info.grid_origin.x)[a] + mp.center[a]) <= 1e-6 * extent,
                      "%s: grid_origin[%d] %.9g, centre %.9g", what, a,
                      (double)(&info.grid_origin.x)[a], mp.center[a]);
    VXK_CHECK_EQ_INT(info.grid_size.x, g->size.x);
    VXK_CHECK_EQ_INT(info.grid_size.y, g->size.y);
    VXK_CHECK_EQ_INT(info.grid_size.z, g->size.z);
    VXK_CHECK(info.voxel_size == s);
    uint32_t solid = 0;
    size_t n = (size_t)g->size.x * g->size.y * g->size.z;
    for (size_t i = 0; i < n; ++i)
        solid += g->voxels[i] != 0;
    VXK_CHECK_EQ_U64(info.solid_voxels, solid);
    VXK_CHECK(info.compound_boxes >= 1 && info.compound_boxes <= solid);
    // The grid and its types read back as the grid and vxk_voxel_types_compute give them.
    uint8_t *ids = malloc(n), *types = malloc(n), *want = malloc(n);
    VXK_CHECK(ids && types && want);
    vxk_int_box all = {{0, 0, 0}, {g->size.x - 1, g->size.y - 1, g->size.z - 1}};
    VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, id, ids, all), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_read_voxel_types(w, id, types, all), VXK_OK);
    uint8_t solid_flags[256];
    solid_table(solid_flags, vxk_world_materials(w));
    VXK_CHECK_EQ_INT(vxk_voxel_types_compute(want, g, solid_flags), VXK_OK);
    int grid_diff = memcmp(ids, g->voxels, n), types_diff = memcmp(types, want, n);
    free(ids);
    free(types);
    free(want);
    VXK_CHECK_MSG(grid_diff == 0, "%s: read_voxels differs from the grid", what);
    VXK_CHECK_MSG(types_diff == 0, "%s: read_voxel_types differs from vxk_voxel_types_compute",
                  what);
    return 0;
}

static void random_grid(vxk_voxel_grid* g, uint64_t* rng, vxk_int3 size, int percent)
{
    g->size = size;
    size_t n = (size_t)size.x * size.y * size.z;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = vxk_test_rand(rng) % 100;
        g->voxels[i] = (uint8_t)(r < (uint64_t)percent ? (r % 3 == 0   ? VXK_MAT_WOOD
                                                          : r % 3 == 1 ? VXK_MAT_METAL
                                                                       : VXK_MAT_STONE)
                                                       : 0);
    }
    g->voxels[n / 2] = VXK_MAT_STONE;
}

static int test_voxel_bodies(void)
{
    // A world whose voxel is 0.5 m: voxel_size 0 in the shape takes it.
    vxk_world_def wd = vxk_default_world_def();
    wd.voxel_size = 0.5f;
    wd.materials = test_materials();
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    uint8_t l_voxels[60];
    vxk_voxel_grid lg;
    make_l_grid(&lg, l_voxels);
    vxk_body_def d = voxel_def((vxk_vec3){1, 2, 3}, &lg, 0.0f);
    vxk_body_id id = create_ok(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    if (check_voxel_info(w, id, &lg, 0.5f, "L, world voxel size"))
        return 1;
    // The grid is copied at creation.
    l_voxels[0] = 0;
    make_l_grid(&lg, l_voxels);
    uint64_t rng = vxk_test_seed(0x70B);
    static uint8_t buf[24 * 24 * 24];
    vxk_voxel_grid g = {{1, 1, 1}, buf};
    for (int iter = 0; iter < 12; ++iter) {
        vxk_int3 size = {1 + (int)(vxk_test_rand(&rng) % 24), 1 + (int)(vxk_test_rand(&rng) % 24),
                         1 + (int)(vxk_test_rand(&rng) % 24)};
        random_grid(&g, &rng, size, (int)(vxk_test_rand(&rng) % 90) + 5);
        float s = vxk_test_randf(&rng, 0.05f, 2.0f);
        d = voxel_def((vxk_vec3){vxk_test_randf(&rng, -50, 50), 5, 0}, &g, s);
        d.rotation = quat_axis_angle(1, 1, 0, vxk_test_randf(&rng, 0, 3));
        id = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        char what[48];
        snprintf(what, sizeof(what), "random grid %d (%d, %d, %d)", iter, size.x, size.y, size.z);
        if (check_voxel_info(w, id, &g, s, what))
            return 1;
    }
    vxk_world_destroy(w);
    return 0;
}

// set_voxels: the grid keeps its world pose, the new centre moves with the old body's velocity
// field, and the body equals a fresh one made from the edited grid.
static int test_set_voxels(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    uint64_t rng = vxk_test_seed(0x5E7);
    static uint8_t buf[16 * 16 * 16], edit[16 * 16 * 16];
    const uint8_t solid_ids[3] = {VXK_MAT_STONE, VXK_MAT_WOOD, VXK_MAT_METAL};
    for (int iter = 0; iter < 20; ++iter) {
        vxk_voxel_grid g = {{1, 1, 1}, buf};
        vxk_int3 size = {2 + (int)(vxk_test_rand(&rng) % 14), 2 + (int)(vxk_test_rand(&rng) % 14),
                         2 + (int)(vxk_test_rand(&rng) % 14)};
        random_grid(&g, &rng, size, 70);
        float s = iter % 2 ? 0.0f : vxk_test_randf(&rng, 0.1f, 1.5f);
        float es = s == 0.0f ? 1.0f : s;
        vxk_body_def d = voxel_def((vxk_vec3){3, 4, 5}, &g, s);
        d.rotation = quat_axis_angle(vxk_test_randf(&rng, -1, 1), 1, vxk_test_randf(&rng, -1, 1),
                                     vxk_test_randf(&rng, -3, 3));
        d.linear_velocity = (vxk_vec3){1, -2, 0.5f};
        d.angular_velocity = (vxk_vec3){vxk_test_randf(&rng, -2, 2), 1.5f, -0.75f};
        vxk_body_id id = create_ok(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        // A box of the grid written with random ids (air among them); the grid keeps a voxel.
        vxk_int_box box;
        for (int a = 0; a < 3; ++a) {
            int32_t n = (&size.x)[a];
            int32_t lo = (int32_t)(vxk_test_rand(&rng) % (uint64_t)n);
            int32_t hi = lo + (int32_t)(vxk_test_rand(&rng) % (uint64_t)(n - lo));
            (&box.min.x)[a] = lo;
            (&box.max.x)[a] = hi;
        }
        vxk_int3 bd = {box.max.x - box.min.x + 1, box.max.y - box.min.y + 1,
                       box.max.z - box.min.z + 1};
        size_t count = (size_t)bd.x * bd.y * bd.z;
        for (size_t i = 0; i < count; ++i)
            edit[i] = vxk_test_rand(&rng) % 2 ? 0 : solid_ids[vxk_test_rand(&rng) % 3];
        // Edited grid; a voxel outside the box kept solid (or the box's first voxel forced solid).
        static uint8_t edited[16 * 16 * 16];
        memcpy(edited, buf, (size_t)size.x * size.y * size.z);
        for (int32_t y = 0; y < bd.y; ++y)
            for (int32_t z = 0; z < bd.z; ++z)
                for (int32_t x = 0; x < bd.x; ++x)
                    edited[(box.min.x + x) +
                           size.x * ((box.min.z + z) + size.z * (box.min.y + y))] =
                        edit[x + bd.x * (z + bd.z * y)];
        bool any = false;
        vxk_int3 kept = {0, 0, 0};
        for (int32_t y = 0; y < size.y && !any; ++y)
            for (int32_t z = 0; z < size.z && !any; ++z)
                for (int32_t x = 0; x < size.x && !any; ++x)
                    if (edited[x + size.x * (z + size.z * y)]) {
                        any = true;
                        kept = (vxk_int3){x, y, z};
                    }
        if (!any) {
            edit[0] = VXK_MAT_STONE;
            edited[box.min.x + size.x * (box.min.z + size.z * box.min.y)] = VXK_MAT_STONE;
            kept = box.min;
        }
        vxk_transform t0, t1;
        vxk_body_info i0, i1;
        vxk_vec3 v0, w0, v1, w1;
        VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &i0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v0, &w0), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, id, box, edit), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t1), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &i1), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v1, &w1), VXK_OK);
        // The same voxel at the same world place (every corner voxel of the grid too).
        double tol = 2e-5 * es * (size.x + size.y + size.z) + 1e-5;
        const vxk_int3 probes[3] = {kept, {0, 0, 0}, {size.x - 1, size.y - 1, size.z - 1}};
        for (int p = 0; p < 3; ++p) {
            vxk_vec3 before = voxel_world_center(&t0, &i0, probes[p]);
            vxk_vec3 after = voxel_world_center(&t1, &i1, probes[p]);
            VXK_CHECK_MSG(vec_close(before, after, tol),
                          "iter %d: voxel (%d, %d, %d) moved from (%.7g, %.7g, %.7g) to (%.7g, "
                          "%.7g, %.7g)",
                          iter, probes[p].x, probes[p].y, probes[p].z, (double)before.x,
                          (double)before.y, (double)before.z, (double)after.x, (double)after.y,
                          (double)after.z);
        }
        VXK_CHECK(fabs((double)t1.q.x - t0.q.x) <= 1e-6 && fabs((double)t1.q.y - t0.q.y) <= 1e-6 &&
                  fabs((double)t1.q.z - t0.q.z) <= 1e-6 && fabs((double)t1.q.w - t0.q.w) <= 1e-6);
        // v1 = v0 + w0 x (c1 - c0); w unchanged.
        double r[3] = {(double)t1.p.x - t0.p.x, (double)t1.p.y - t0.p.y, (double)t1.p.z - t0.p.z};
        vxk_vec3 want_v = {(float)(v0.x + w0.y * r[2] - w0.z * r[1]),
                           (float)(v0.y + w0.z * r[0] - w0.x * r[2]),
                           (float)(v0.z + w0.x * r[1] - w0.y * r[0])};
        CHECK_VEC(v1, want_v, 1e-4 * (1.0 + es * size.x));
        CHECK_VEC(w1, w0, 1e-6);
        // Against a fresh body of the edited grid (same voxel size and pose).
        vxk_voxel_grid eg = {size, edited};
        char what[48];
        snprintf(what, sizeof(what), "edited grid %d", iter);
        if (check_voxel_info(w, id, &eg, es, what))
            return 1;
        vxk_body_def fd = voxel_def(t1.p, &eg, s);
        fd.rotation = t1.q;
        vxk_body_id fresh = create_ok(w, &fd);
        VXK_CHECK(!VXK_ID_IS_NULL(fresh));
        vxk_body_info fi;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, fresh, &fi), VXK_OK);
        VXK_CHECK(fabs(fi.mass - i1.mass) <= 1e-6 * fi.mass);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                VXK_CHECK(fabs(fi.inertia[a][b] - i1.inertia[a][b]) <=
                          1e-6 * fmax(fi.inertia[0][0], fmax(fi.inertia[1][1], fi.inertia[2][2])));
        CHECK_VEC(fi.grid_origin, i1.grid_origin, 1e-6 * es * 48);
        VXK_CHECK_EQ_U64(fi.solid_voxels, i1.solid_voxels);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, fresh), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
    }
    vxk_world_destroy(w);
    return 0;
}

static int test_set_voxels_errors(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    uint8_t voxels[60];
    vxk_voxel_grid g;
    make_l_grid(&g, voxels);
    vxk_body_def vd = voxel_def((vxk_vec3){0, 5, 0}, &g, 0.0f);
    vxk_body_id id = create_ok(w, &vd);
    vxk_body_def sd = sphere_def((vxk_vec3){5, 5, 0}, 0.5f);
    vxk_body_id sphere = create_ok(w, &sd);
    VXK_CHECK(!VXK_ID_IS_NULL(id) && !VXK_ID_IS_NULL(sphere));
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    body_snapshot s0 = body_snap(w);
    uint8_t ids[60], out[64];
    memset(ids, VXK_MAT_STONE, sizeof(ids));
    const vxk_int_box all = {{0, 0, 0}, {4, 3, 2}}, one = {{1, 1, 1}, {1, 1, 1}};
    VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, sphere, one, ids), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, id, one, NULL), VXK_ERR_INVALID_ARGUMENT);
    const vxk_int_box inverted[] = {{{1, 1, 1}, {0, 1, 1}},
                                    {{1, 1, 1}, {1, 0, 1}},
                                    {{1, 1, 1}, {1, 1, 0}},
                                    {{4, 3, 2}, {0, 0, 0}}};
    const vxk_int_box outside[] = {{{0, 0, 0}, {5, 3, 2}},
                                   {{0, 0, 0}, {4, 4, 2}},
                                   {{0, 0, 0}, {4, 3, 3}},
                                   {{-1, 0, 0}, {0, 0, 0}},
                                   {{0, -1, 0}, {0, 0, 0}},
                                   {{0, 0, -1}, {0, 0, 0}},
                                   {{5, 0, 0}, {5, 0, 0}},
                                   {{INT32_MIN, 0, 0}, {INT32_MAX, 0, 0}},
                                   {{0, 0, INT32_MAX}, {0, 0, INT32_MAX}}};
    for (int i = 0; i < 4; ++i) {
        VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, id, inverted[i], ids), VXK_ERR_INVALID_ARGUMENT);
        memset(out, CANARY, sizeof(out));
        VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, id, out, inverted[i]), VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK_EQ_INT(vxk_body_read_voxel_types(w, id, out, inverted[i]),
                         VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK(all_canary(out, sizeof(out)));
    }
    for (int i = 0; i < 9; ++i) {
        VXK_CHECK_MSG(vxk_body_set_voxels(w, id, outside[i], ids) == VXK_ERR_OUT_OF_RANGE,
                      "box %d outside the grid", i);
        memset(out, CANARY, sizeof(out));
        VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, id, out, outside[i]), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_INT(vxk_body_read_voxel_types(w, id, out, outside[i]), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK(all_canary(out, sizeof(out)));
    }
    memset(out, CANARY, sizeof(out));
    VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, sphere, out, one), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_read_voxel_types(w, sphere, out, one), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, id, NULL, one), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_body_read_voxel_types(w, id, NULL, one), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(all_canary(out, sizeof(out)));
    // Undefined ids anywhere in the buffer.
    for (int pos = 0; pos < 60; pos += 11) {
        ids[pos] = 99;
        VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, id, all, ids), VXK_ERR_BAD_MATERIAL);
        ids[pos] = VXK_MAT_STONE;
    }
    // No solid voxel left; only zero-density voxels left on a dynamic body.
    memset(ids, 0, sizeof(ids));
    VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, id, all, ids), VXK_ERR_OUT_OF_RANGE);
    memset(ids, MAT_VOID, sizeof(ids));
    VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, id, all, ids), VXK_ERR_OUT_OF_RANGE);
    CHECK_BODIES_UNCHANGED(w, s0);
    uint8_t back[60];
    VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, id, back, all), VXK_OK);
    VXK_CHECK(memcmp(back, voxels, 60) == 0);
    // A static voxel body may hold only zero-density voxels.
    vd.type = VXK_BODY_STATIC;
    vxk_body_id st = create_ok(w, &vd);
    VXK_CHECK(!VXK_ID_IS_NULL(st));
    vxk_status void_write = vxk_body_set_voxels(w, st, all, ids);
    vxk_world_destroy(w);
    VXK_CHECK_MSG(void_write == VXK_OK,
                  "a static voxel body written all zero-density: status %d (%s)", (int)void_write,
                  vxk_status_string(void_write));
    return 0;
}

// ---- memory
// -------------------------------------------------------------------------------------------

static int test_memory_stats(void)
{
    vxk_world* w = make_world(NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -8, 400, -8, 7), VXK_OK);
    vxk_world_memory_stats m0, m1, m2;
    vxk_world_get_memory_stats(w, &m0);
    VXK_CHECK_EQ_U64(m0.body_count, 0);
    size_t b0 = vxk_allocated_bytes();
    uint8_t voxels[60];
    vxk_voxel_grid g;
    make_l_grid(&g, voxels);
    for (int i = 0; i < 300; ++i) {
        vxk_body_def d = i % 3 == 0 ? sphere_def((vxk_vec3){(float)i, 0.5f, 0}, 0.5f)
                         : i % 3 == 1
                             ? box_def((vxk_vec3){(float)i, 0.5f, 3}, (vxk_vec3){0.4f, 0.5f, 0.4f})
                             : voxel_def((vxk_vec3){(float)i, 3, -3}, &g, 0.25f);
        VXK_CHECK(!VXK_ID_IS_NULL(create_ok(w, &d)));
    }
    vxk_world_get_memory_stats(w, &m1);
    VXK_CHECK(vxk_allocated_bytes() > b0);
    VXK_CHECK_EQ_U64(m1.body_count, 300);
    VXK_CHECK_MSG(m1.body_bytes >= m0.body_bytes + 300 * 64,
                  "body_bytes %llu -> %llu with 300 bodies", (unsigned long long)m0.body_bytes,
                  (unsigned long long)m1.body_bytes);
    VXK_CHECK_MSG(m1.total_bytes >= m0.total_bytes + (m1.body_bytes - m0.body_bytes),
                  "total_bytes %llu -> %llu with 300 bodies", (unsigned long long)m0.total_bytes,
                  (unsigned long long)m1.total_bytes);
    // Stepping with contacts grows the contact storage (kept).
    for (int i = 0; i < 30; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_world_get_memory_stats(w, &m2);
    VXK_CHECK_MSG(m2.contact_bytes > m1.contact_bytes, "contact_bytes %llu -> %llu",
                  (unsigned long long)m1.contact_bytes, (unsigned long long)m2.contact_bytes);
    VXK_CHECK(m2.total_bytes >= m2.body_bytes + m2.contact_bytes);
    VXK_CHECK_EQ_U64(m2.body_count, 300);
    vxk_world_destroy(w);
    return 0;
}

// A scene of n mixed bodies resting just above flat terrain with a few raised platforms.
static vxk_status resting_scene(vxk_world* w, int n)
{
    vxk_status st = flat_floor(w, -40, 39, -40, 39);
    if (st != VXK_OK)
        return st;
    st = vxk_world_fill_box(w, (vxk_int_box){{-30, 0, -30}, {-21, 1, -21}}, VXK_MAT_DIRT);
    if (st != VXK_OK)
        return st;
    static uint8_t voxels[60];
    static vxk_voxel_grid g;
    make_l_grid(&g, voxels);
    for (int i = 0; i < n; ++i) {
        float x = -18.0f + 2.5f * (float)(i % 14), z = -18.0f + 2.5f * (float)(i / 14);
        vxk_body_def d;
        if (i % 10 == 9) {
            d = voxel_def((vxk_vec3){x, 2.0f, z}, &g, 0.25f);
        } else if (i % 2 == 0) {
            d = sphere_def((vxk_vec3){x, 0.51f, z}, 0.5f);
        } else {
            d = box_def((vxk_vec3){x, 0.41f, z}, (vxk_vec3){0.6f, 0.4f, 0.5f});
        }
        vxk_body_id id;
        st = vxk_body_create(w, &d, &id);
        if (st != VXK_OK)
            return st;
        if (i % 4 == 1) { // a box on this box
            vxk_body_def top = box_def((vxk_vec3){x, 1.21f, z}, (vxk_vec3){0.4f, 0.4f, 0.4f});
            st = vxk_body_create(w, &top, &id);
            if (st != VXK_OK)
                return st;
        }
    }
    return VXK_OK;
}

// No allocation after warm-up: a resting scene settles (60 steps with sleeping off, so every
// body stays in the narrowphase and the solve; 150 with it on, past the islands falling asleep),
// then 60 counted steps allocate nothing (the failing allocator counts every call while armed,
// failing none).
static int no_malloc_after_warmup(bool sleep, int warmup)
{
    vxk_world_def def = vxk_default_world_def();
    def.materials = test_materials();
    def.enable_sleep = sleep;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    VXK_CHECK_EQ_INT(resting_scene(w, 160), VXK_OK);
    VXK_CHECK(vxk_world_body_count(w) >= 190);
    for (int i = 0; i < warmup; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    size_t bytes = vxk_allocated_bytes();
    fa_arm(UINT64_MAX, false);
    vxk_status st = VXK_OK;
    int failed_step = -1;
    for (int i = 0; i < 60 && st == VXK_OK; ++i) {
        uint64_t before = g_fa.calls;
        st = vxk_world_step(w, STEP_DT);
        if (g_fa.calls != before && failed_step < 0)
            failed_step = i;
    }
    uint64_t calls = fa_disarm();
    size_t bytes_after = vxk_allocated_bytes();
    vxk_world_destroy(w);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    VXK_CHECK_MSG(calls == 0,
                  "sleep %d: %llu allocations in 60 steps after warm-up (first in step %d)",
                  (int)sleep, (unsigned long long)calls, failed_step);
    VXK_CHECK_EQ_U64(bytes_after, bytes);
    return 0;
}

static int test_no_malloc_after_warmup(void)
{
    return no_malloc_after_warmup(false, 60) || no_malloc_after_warmup(true, 150);
}

// ---- out of memory
// ------------------------------------------------------------------------------------

// A small world with terrain and a few bodies, stepped once.
static vxk_world* oom_world(void)
{
    vxk_world* w = make_world(NULL);
    if (!w)
        return NULL;
    if (flat_floor(w, -16, 15, -16, 15) != VXK_OK) {
        vxk_world_destroy(w);
        return NULL;
    }
    for (int i = 0; i < 4; ++i) {
        vxk_body_def d =
            i % 2 ? box_def((vxk_vec3){(float)i * 2, 0.5f, 0}, (vxk_vec3){0.5f, 0.5f, 0.5f})
                  : sphere_def((vxk_vec3){(float)i * 2, 0.5f, 0}, 0.5f);
        vxk_body_id id;
        if (vxk_body_create(w, &d, &id) != VXK_OK || vxk_world_step(w, STEP_DT) != VXK_OK) {
            vxk_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

static int test_oom_create(void)
{
    size_t base = vxk_allocated_bytes();
    static uint8_t voxels[12 * 10 * 8];
    uint64_t rng = vxk_test_seed(0x00B);
    vxk_voxel_grid g = {{12, 10, 8}, voxels};
    random_grid(&g, &rng, g.size, 60);
    const vxk_body_def defs[3] = {
        sphere_def((vxk_vec3){-5, 3, -5}, 0.75f),
        box_def((vxk_vec3){5, 3, 5}, (vxk_vec3){0.5f, 1.0f, 1.5f}),
        voxel_def((vxk_vec3){0, 6, -6}, &g, 0.25f),
    };
    for (int s = 0; s < 3; ++s) {
        // The reference: the same creation with a working allocator.
        vxk_world* ref = oom_world();
        VXK_CHECK(ref != NULL);
        vxk_body_id ref_id;
        VXK_CHECK_EQ_INT(vxk_body_create(ref, &defs[s], &ref_id), VXK_OK);
        uint64_t expected = vxk_world_hash(ref);
        vxk_world_destroy(ref);
        vxk_world* w = NULL;
        body_snapshot s0;
        const vxk_body_id canary = {0xA5A5A5A5u, 0xA5A5A5A5u};
        vxk_body_id out = canary;
        OOM_SWEEP(
            {
                w = oom_world();
                VXK_CHECK(w != NULL);
                (void)vxk_world_hash(w);
                s0 = body_snap(w);
                out = canary;
            },
            vxk_body_create(w, &defs[s], &out),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    VXK_CHECK(VXK_ID_EQUAL(out, canary));
                    CHECK_BODIES_UNCHANGED(w, s0);
                } else {
                    VXK_CHECK(vxk_body_is_valid(w, out));
                    VXK_CHECK_EQ_U64(vxk_world_hash(w), expected);
                }
            },
            {
                vxk_world_destroy(w);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    return 0;
}

static int test_oom_set_voxels(void)
{
    size_t base = vxk_allocated_bytes();
    static uint8_t voxels[12 * 10 * 8], edit[6 * 5 * 4], back[12 * 10 * 8];
    uint64_t rng = vxk_test_seed(0x5E7B);
    vxk_voxel_grid g = {{12, 10, 8}, voxels};
    random_grid(&g, &rng, g.size, 60);
    for (size_t i = 0; i < sizeof(edit); ++i)
        edit[i] = i % 3 ? VXK_MAT_METAL : 0;
    const vxk_int_box box = {{3, 2, 1}, {8, 6, 4}};
    const vxk_int_box all = {{0, 0, 0}, {11, 9, 7}};
    vxk_body_def d = voxel_def((vxk_vec3){0, 6, 0}, &g, 0.25f);
    d.angular_velocity = (vxk_vec3){0.5f, 1, 0};
    vxk_world* ref = oom_world();
    VXK_CHECK(ref != NULL);
    vxk_body_id ref_id;
    VXK_CHECK_EQ_INT(vxk_body_create(ref, &d, &ref_id), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_set_voxels(ref, ref_id, box, edit), VXK_OK);
    uint64_t expected = vxk_world_hash(ref);
    vxk_body_info expected_info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(ref, ref_id, &expected_info), VXK_OK);
    vxk_world_destroy(ref);
    vxk_world* w = NULL;
    vxk_body_id id = {0, 0};
    body_snapshot s0;
    vxk_body_info i0;
    OOM_SWEEP(
        {
            w = oom_world();
            VXK_CHECK(w != NULL);
            VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &id), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &i0), VXK_OK);
            (void)vxk_world_hash(w);
            s0 = body_snap(w);
        },
        vxk_body_set_voxels(w, id, box, edit),
        {
            vxk_body_info info;
            VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                CHECK_BODIES_UNCHANGED(w, s0);
                VXK_CHECK(memcmp(&info, &i0, sizeof(info)) == 0);
                VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, id, back, all), VXK_OK);
                VXK_CHECK(memcmp(back, voxels, sizeof(back)) == 0);
            } else {
                VXK_CHECK_EQ_U64(vxk_world_hash(w), expected);
                VXK_CHECK(memcmp(&info, &expected_info, sizeof(info)) == 0);
            }
        },
        {
            vxk_world_destroy(w);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    return 0;
}

// The world of a step sweep: variant 0 a resting scene never stepped (contacts, solver and step
// arena all new); variant 1 a larger one stepped 5 times, then 12 new bodies (the step grows its
// contact storage).
static vxk_world* oom_step_world(int variant)
{
    vxk_world* w = make_world(NULL);
    if (!w)
        return NULL;
    bool ok = resting_scene(w, variant ? 40 : 10) == VXK_OK;
    for (int i = 0; ok && variant && i < 5; ++i)
        ok = vxk_world_step(w, STEP_DT) == VXK_OK;
    for (int i = 0; ok && variant && i < 12; ++i) {
        vxk_body_def d = sphere_def((vxk_vec3){30.0f, 0.6f + 1.05f * (float)i, 30.0f}, 0.5f);
        vxk_body_id id;
        ok = vxk_body_create(w, &d, &id) == VXK_OK;
    }
    if (!ok) {
        vxk_world_destroy(w);
        return NULL;
    }
    return w;
}

// A step out of memory before the solve leaves the world unchanged (stepping it again gives the
// reference); one that failed only at the events keeps the reference's motion (vxk/world.h). As
// the terrain stages' sweeps do (test_broadphase.c), a failed step may keep storage it grew (the
// step arena), released with the world.
static int test_oom_step(void)
{
    size_t base = vxk_allocated_bytes();
    unsigned events_only = 0, retained = 0;
    for (int variant = 0; variant < 2; ++variant) {
        vxk_world* ref = oom_step_world(variant);
        VXK_CHECK(ref != NULL);
        uint64_t before_hash = vxk_world_hash(ref);
        VXK_CHECK_EQ_INT(vxk_world_step(ref, STEP_DT), VXK_OK);
        uint64_t expected = vxk_world_hash(ref);
        VXK_CHECK(expected != before_hash);
        vxk_world_destroy(ref);
        vxk_world* w = NULL;
        body_snapshot s0;
        OOM_SWEEP(
            {
                w = oom_step_world(variant);
                VXK_CHECK(w != NULL);
                (void)vxk_world_hash(w);
                s0 = body_snap(w);
            },
            vxk_world_step(w, STEP_DT),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    // Failed before the solve: nothing moved (and nothing grew), so a step now
                    // gives the reference. Failed at the events: the motion is the reference's.
                    if (vxk_world_hash(w) == s0.hash) {
                        VXK_CHECK_EQ_U64(vxk_world_body_count(w), s0.count);
                        VXK_CHECK(vxk_allocated_bytes() >= s0.bytes);
                        retained += vxk_allocated_bytes() > s0.bytes;
                        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
                    } else {
                        ++events_only;
                    }
                }
                VXK_CHECK_MSG(vxk_world_hash(w) == expected,
                              "variant %d: the step (after %s) differs from the reference", variant,
                              st != VXK_OK ? "an out-of-memory step" : "no failure");
            },
            {
                vxk_world_destroy(w);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    fprintf(stderr,
            "   failed steps that kept grown storage: %u; that kept the motion (events "
            "missing): %u\n",
            retained, events_only);
    return 0;
}

// A voxel body from a .vox model (the shared sample data): the grid vxk_vox_load_flat gives,
// with its solid voxel count and mass as vxk_mass_from_grid computes them from the world's
// densities; dropped onto flat stone it comes to rest on it (its box stays above the floor).
static int test_vox_body(void)
{
    char path[1024];
    vxk_test_data_path(path, sizeof(path), "vox/ogt_test_multiple_model_scene.vox");
    size_t size = 0;
    uint8_t* data = vxk_test_read_file(path, &size);
    VXK_CHECK_MSG(data != NULL, "cannot read %s", path);
    vxk_voxel_grid grid = {{0, 0, 0}, NULL};
    vxk_int3 origin;
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, size, NULL, &grid, &origin), VXK_OK);
    free(data);
    VXK_CHECK(grid.size.x <= VXK_BODY_MAX_GRID && grid.size.y <= VXK_BODY_MAX_GRID &&
              grid.size.z <= VXK_BODY_MAX_GRID);
    vxk_world_def wd = vxk_default_world_def();
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_world_fill_box(w, (vxk_int_box){{-64, -8, -64}, {63, -1, 63}}, VXK_MAT_STONE), VXK_OK);
    vxk_body_def def = vxk_default_body_def();
    def.shape = vxk_voxel_shape(&grid, 0.1f);
    def.position = (vxk_vec3){0.0f, 0.1f * (float)grid.size.y + 2.0f, 0.0f};
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &id), VXK_OK);
    size_t n = (size_t)grid.size.x * (size_t)grid.size.y * (size_t)grid.size.z;
    uint32_t solid = 0;
    for (size_t i = 0; i < n; ++i)
        solid += grid.voxels[i] != 0;
    float density[256];
    for (int m = 0; m < 256; ++m)
        density[m] = vxk_world_materials(w)->materials[m].density;
    vxk_mass_properties mp;
    VXK_CHECK_EQ_INT(vxk_mass_from_grid(&mp, &grid, density, 0.1f), VXK_OK);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK_EQ_U64(info.solid_voxels, solid);
    VXK_CHECK(fabs((double)info.mass - mp.mass) <= 1e-5 * mp.mass);
    for (int step = 0; step < 300; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    vxk_aabb box;
    vxk_vec3 v, av;
    VXK_CHECK_EQ_INT(vxk_body_get_aabb(w, id, &box), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    fprintf(stderr, "   %s: %dx%dx%d, %u solid voxels, %u boxes, rests at y %.4f\n", path,
            grid.size.x, grid.size.y, grid.size.z, solid, info.compound_boxes, (double)box.min.y);
    VXK_CHECK_MSG(box.min.y > -0.02f && box.min.y < 0.05f, "box bottom at %.4f", (double)box.min.y);
    VXK_CHECK(sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) < 0.05f);
    vxk_voxel_grid_free(&grid);
    vxk_world_destroy(w);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/body.h for each status it lists, with the world def's dynamics fields
// and steps of a world with bodies.
static int test_statuses_body(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_world_def wdef = vxk_default_world_def(), wd = wdef;
    vxk_world* w = NULL;
    wd.substeps = 0;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_create(&wd, &w));
    wd = wdef;
    wd.gravity.y = NAN;
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_world_create(&wd, &w));
    EXPECT_STATUS(VXK_OK, vxk_world_create(&wdef, &w));
    EXPECT_STATUS(VXK_OK,
                  vxk_world_fill_box(w, (vxk_int_box){{-8, -8, -8}, {7, -1, 7}}, VXK_MAT_STONE));

    vxk_body_def def = vxk_default_body_def(), d = def;
    vxk_body_id id, sphere_id, box_id, voxel_id, stat_id;
    def.position = (vxk_vec3){0, 0.4f, 0};
    EXPECT_STATUS(VXK_OK, vxk_body_create(w, &def, &sphere_id));
    id = sphere_id;
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_create(w, NULL, &id));
    d = def;
    d.cookie = 0;
    EXPECT_STATUS(VXK_ERR_BAD_DEF, vxk_body_create(w, &d, &id));
    d = def;
    d.linear_velocity.x = INFINITY;
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_create(w, &d, &id));
    d = def;
    d.rotation.w = 0.9f;
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_create(w, &d, &id));
    d = def;
    d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, 200);
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_body_create(w, &d, &id));
    d.shape.material = VXK_MAT_WOOD;
    d.position = (vxk_vec3){2, 0.5f, 0};
    EXPECT_STATUS(VXK_OK, vxk_body_create(w, &d, &box_id));
    d = def;
    d.type = VXK_BODY_STATIC;
    d.position = (vxk_vec3){-3, 1, 0};
    EXPECT_STATUS(VXK_OK, vxk_body_create(w, &d, &stat_id));
    static uint8_t cells[4 * 4 * 4];
    memset(cells, VXK_MAT_STONE, sizeof(cells));
    vxk_voxel_grid grid = {{4, 4, 4}, cells};
    d = def;
    d.position = (vxk_vec3){0, 5, 4};
    d.shape = vxk_voxel_shape(&grid, 0.25f);
    EXPECT_STATUS(VXK_OK, vxk_body_create(w, &d, &voxel_id));
    EXPECT_NO_MEMORY(vxk_body_create(w, &d, &id));
    // id is the sphere made first (index 0): the failed creates left it alone.
    id = sphere_id;
    VXK_CHECK_EQ_U64(id.index, 0);
    VXK_CHECK(vxk_body_is_valid(w, id));

    vxk_transform tf;
    vxk_vec3 v, av;
    void* user;
    vxk_aabb aabb;
    vxk_body_info info;
    const vxk_body_id stale = {id.index, id.generation + 2};
    EXPECT_STATUS(VXK_OK, vxk_body_get_transform(w, id, &tf));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_transform(w, id, NULL));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_get_transform(w, stale, &tf));
    EXPECT_STATUS(VXK_OK, vxk_body_get_velocity(w, id, &v, &av));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_velocity(w, id, &v, NULL));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_get_velocity(w, stale, &v, &av));
    EXPECT_STATUS(VXK_OK, vxk_body_get_user_data(w, id, &user));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_user_data(NULL, id, &user));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_get_user_data(w, stale, &user));
    EXPECT_STATUS(VXK_OK, vxk_body_get_aabb(w, id, &aabb));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_aabb(w, id, NULL));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_get_aabb(w, stale, &aabb));
    EXPECT_STATUS(VXK_OK, vxk_body_get_info(w, id, &info));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_info(w, id, NULL));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_get_info(w, stale, &info));

    const vxk_vec3 zero = {0, 0, 0}, one = {1, 0, 0}, bad = {0, NAN, 0}, huge = {0, 1e30f, 0};
    const vxk_quat unit = {0, 0, 0, 1}, off = {0, 0, 0, 1.1f}, nan_q = {0, 0, NAN, 1};
    EXPECT_STATUS(VXK_OK, vxk_body_set_transform(w, id, (vxk_vec3){0, 0.6f, 0}, unit));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_transform(NULL, id, zero, unit));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_set_transform(w, stale, zero, unit));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_set_transform(w, id, zero, nan_q));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_set_transform(w, id, zero, off));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_set_transform(w, id, huge, unit));
    EXPECT_STATUS(VXK_OK, vxk_body_set_velocity(w, id, one, zero));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_velocity(NULL, id, one, zero));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_set_velocity(w, stale, one, zero));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_set_velocity(w, id, bad, zero));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_set_velocity(w, stat_id, one, zero));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_set_velocity(w, id, huge, zero));
    EXPECT_STATUS(VXK_OK, vxk_body_set_awake(w, id, false));
    EXPECT_STATUS(VXK_OK, vxk_body_set_awake(w, id, true));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_awake(NULL, id, true));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_set_awake(w, stale, true));
    EXPECT_STATUS(VXK_OK, vxk_body_set_user_data(w, id, &info));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_user_data(NULL, id, &info));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_set_user_data(w, stale, &info));

    EXPECT_STATUS(VXK_OK, vxk_body_apply_force(w, id, one, zero));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_force(NULL, id, one, zero));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_apply_force(w, stale, one, zero));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_apply_force(w, id, one, bad));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_force(w, id, huge, zero));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_force(w, id, one, huge));
    EXPECT_STATUS(VXK_OK, vxk_body_apply_force_to_center(w, id, one));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_force_to_center(NULL, id, one));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_apply_force_to_center(w, stale, one));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_apply_force_to_center(w, id, bad));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_force_to_center(w, id, huge));
    EXPECT_STATUS(VXK_OK, vxk_body_apply_torque(w, id, one));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_torque(NULL, id, one));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_apply_torque(w, stale, one));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_apply_torque(w, id, bad));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_torque(w, id, huge));
    EXPECT_STATUS(VXK_OK, vxk_body_apply_impulse(w, id, one, zero));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_impulse(NULL, id, one, zero));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_apply_impulse(w, stale, one, zero));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_apply_impulse(w, id, bad, zero));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_impulse(w, id, huge, zero));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_impulse(w, id, one, huge));
    EXPECT_STATUS(VXK_OK, vxk_body_apply_angular_impulse(w, id, one));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_angular_impulse(NULL, id, one));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_apply_angular_impulse(w, stale, one));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_body_apply_angular_impulse(w, id, bad));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_apply_angular_impulse(w, id, huge));

    uint8_t ids[8], out[8];
    memset(ids, VXK_MAT_WOOD, sizeof(ids));
    const vxk_int_box corner = {{0, 0, 0}, {1, 1, 1}}, past = {{3, 3, 3}, {4, 4, 4}},
                      flipped = {{1, 0, 0}, {0, 1, 1}};
    EXPECT_STATUS(VXK_OK, vxk_body_set_voxels(w, voxel_id, corner, ids));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_set_voxels(w, stale, corner, ids));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_voxels(w, id, corner, ids)); // a sphere
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_voxels(w, voxel_id, flipped, ids));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_set_voxels(w, voxel_id, past, ids));
    ids[3] = 199;
    EXPECT_STATUS(VXK_ERR_BAD_MATERIAL, vxk_body_set_voxels(w, voxel_id, corner, ids));
    ids[3] = VXK_MAT_WOOD;
    EXPECT_NO_MEMORY(vxk_body_set_voxels(w, voxel_id, corner, ids));
    static uint8_t air[4 * 4 * 4];
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE,
                  vxk_body_set_voxels(w, voxel_id, (vxk_int_box){{0, 0, 0}, {3, 3, 3}}, air));
    EXPECT_STATUS(VXK_OK, vxk_body_read_voxels(w, voxel_id, out, corner));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_read_voxels(w, stale, out, corner));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_read_voxels(w, voxel_id, NULL, corner));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_read_voxels(w, voxel_id, out, past));
    EXPECT_STATUS(VXK_OK, vxk_body_read_voxel_types(w, voxel_id, out, corner));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_read_voxel_types(w, stale, out, corner));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_read_voxel_types(w, box_id, out, corner));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_body_read_voxel_types(w, voxel_id, out, past));

    EXPECT_STATUS(VXK_OK, vxk_world_step(w, 1.0f / 60.0f));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_step(NULL, 1.0f / 60.0f));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_world_step(w, NAN));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_step(w, -1.0f));
    EXPECT_NO_MEMORY(vxk_world_step(w, 1.0f / 60.0f));

    EXPECT_STATUS(VXK_OK, vxk_body_destroy(w, box_id));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_body_destroy(w, box_id));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_body_destroy(NULL, id));
    vxk_world_destroy(w);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_defaults);
    VXK_RUN(test_create_destroy);
    VXK_RUN(test_transform_velocity_user_data);
    VXK_RUN(test_aabb);
    VXK_RUN(test_impulses);
    VXK_RUN(test_forces);
    VXK_RUN(test_iteration);
    VXK_RUN(test_voxel_bodies);
    VXK_RUN(test_set_voxels);
    VXK_RUN(test_vox_body);
    VXK_RUN(test_memory_stats);
    vxk_edge_tests_begin();
    VXK_RUN(test_world_def_dynamics);
    VXK_RUN(test_stale_ids);
    VXK_RUN(test_foreign_ids);
    VXK_RUN(test_identical_worlds_hash);
    VXK_RUN(test_bad_defs);
    VXK_RUN(test_zero_density);
    VXK_RUN(test_bad_calls);
    VXK_RUN(test_limits_create);
    VXK_RUN(test_limits_calls);
    VXK_RUN(test_limits_clamped);
    VXK_RUN(test_limits_extremes);
    VXK_RUN(test_set_voxels_errors);
    vxk_oom_tests_begin();
    VXK_RUN(test_no_malloc_after_warmup);
    VXK_RUN_SWEEP(test_oom_create);
    VXK_RUN_SWEEP(test_oom_set_voxels);
    VXK_RUN_SWEEP(test_oom_step);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_body);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
