// body.c: the public body API (vxk/body.h): defs, validation, shapes and their mass, the body
// array by id index, getters and setters, iteration, memory and the world hash.
#include "dynamics.h"
#include "shape.h"
#include "sleep.h"

#include <vxk/boxes.h>
#include <vxk/mass.h>
#include <vxk/voxel_types.h>

#include <float.h>

#define VXK_BODY_DEF_COOKIE 0x564B4244u // "VKBD"

vxk_body_def vxk_default_body_def(void)
{
    vxk_body_def d;
    memset(&d, 0, sizeof(d));
    d.cookie = VXK_BODY_DEF_COOKIE;
    d.type = VXK_BODY_DYNAMIC;
    d.rotation = vxk_quat_identity();
    d.gravity_scale = 1.0f;
    d.friction = -1.0f;
    d.restitution = -1.0f;
    d.awake = true;
    d.shape = vxk_sphere_shape(0.5f, VXK_MAT_STONE);
    return d;
}

// ---- the subsystem ---------------------------------------------------------------------------

static void voxel_shape_free(vxk_voxel_data* vs)
{
    if (!vs)
        return;
    size_t n = (size_t)vs->grid.size.x * (size_t)vs->grid.size.y * (size_t)vs->grid.size.z;
    vxk_free(vs->grid.voxels, n);
    vxk_free(vs->types, n);
    vxk_free(vs->box_center, sizeof(vxk_vec3) * vs->box_capacity);
    vxk_free(vs->box_half, sizeof(vxk_vec3) * vs->box_capacity);
    vxk_voxel_view_destroy(&vs->view);
    vxk_free(vs->region_storage, vs->region_bytes);
    vxk_free(vs, sizeof(*vs));
}

static void dynamics_destroy(void* self)
{
    vxk_dynamics* dyn = (vxk_dynamics*)self;
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        if (dyn->bodies[i].live)
            voxel_shape_free(dyn->bodies[i].voxels);
    vxk_free(dyn->bodies, sizeof(vxk_body) * dyn->capacity);
    vxk_id_pool_destroy(&dyn->ids);
    vxk_bvh_tracker_free(&dyn->pairs);
    vxk_free(dyn->contacts, sizeof(vxk_contact) * dyn->contact_capacity);
    vxk_free(dyn->next_contacts, sizeof(vxk_contact) * dyn->next_capacity);
    for (uint32_t i = 0; i < dyn->piece_capacity; ++i)
        vxk_free(dyn->pieces[i].items, sizeof(vxk_contact) * dyn->pieces[i].capacity);
    vxk_free(dyn->pieces, sizeof(vxk_contact_piece) * dyn->piece_capacity);
    vxk_free(dyn->begin_events, sizeof(vxk_contact_event) * dyn->begin_capacity);
    vxk_free(dyn->end_events, sizeof(vxk_contact_event) * dyn->end_capacity);
    for (int i = 0; i < 8; ++i)
        vxk_free(dyn->scratch[i], dyn->scratch_bytes[i]);
    for (uint32_t i = 0; i < dyn->thread_capacity; ++i)
        vxk_free(dyn->threads[i].region, dyn->threads[i].region_bytes);
    vxk_free(dyn->threads, sizeof(vxk_thread_scratch) * dyn->thread_capacity);
    vxk_spawn_scratch_free(&dyn->spawn);
    vxk_free(dyn, sizeof(*dyn));
}

static size_t voxel_shape_bytes(const vxk_voxel_data* vs)
{
    size_t n = (size_t)vs->grid.size.x * (size_t)vs->grid.size.y * (size_t)vs->grid.size.z;
    return sizeof(*vs) + 2 * n + 2 * sizeof(vxk_vec3) * vs->box_capacity + vs->view.storage_bytes +
           vs->region_bytes;
}

static void dynamics_memory(const void* self, vxk_world_memory_stats* stats)
{
    const vxk_dynamics* dyn = (const vxk_dynamics*)self;
    uint64_t shapes = 0;
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        if (dyn->bodies[i].live && dyn->bodies[i].voxels)
            shapes += voxel_shape_bytes(dyn->bodies[i].voxels);
    stats->body_count = dyn->ids.live;
    stats->body_bytes = sizeof(*dyn) + sizeof(vxk_body) * (uint64_t)dyn->capacity +
                        vxk_id_pool_bytes(&dyn->ids) + shapes + vxk_bvh_tracker_bytes(&dyn->pairs) +
                        vxk_spawn_scratch_bytes(&dyn->spawn);
    uint64_t contacts =
        sizeof(vxk_contact) * ((uint64_t)dyn->contact_capacity + dyn->next_capacity) +
        sizeof(vxk_contact_event) * ((uint64_t)dyn->begin_capacity + dyn->end_capacity);
    for (int i = 0; i < 8; ++i)
        contacts += dyn->scratch_bytes[i];
    contacts += sizeof(vxk_contact_piece) * (uint64_t)dyn->piece_capacity;
    for (uint32_t i = 0; i < dyn->piece_capacity; ++i)
        contacts += sizeof(vxk_contact) * (uint64_t)dyn->pieces[i].capacity;
    stats->contact_bytes = contacts;
}

vxk_status vxk_dynamics_validate_def(const vxk_world_def* def)
{
    float f[6] = {def->gravity.x,
                  def->gravity.y,
                  def->gravity.z,
                  def->contact_hertz,
                  def->contact_damping_ratio,
                  def->contact_push_speed};
    for (int i = 0; i < 6; ++i)
        if (!vxk_is_finite(f[i]))
            return VXK_ERR_NOT_FINITE;
    if (!vxk_is_finite(def->restitution_threshold) || !vxk_is_finite(def->linear_slop) ||
        !vxk_is_finite(def->sleep_threshold) || !vxk_is_finite(def->time_to_sleep))
        return VXK_ERR_NOT_FINITE;
    if (def->substeps < 1 || def->substeps > 64 || vxk_v3_longer(def->gravity, VXK_MAX_GRAVITY) ||
        !(def->contact_hertz >= 0.0f && def->contact_hertz <= 1e4f) ||
        !(def->contact_damping_ratio >= 0.0f && def->contact_damping_ratio <= 1000.0f) ||
        !(def->contact_push_speed >= 0.0f && def->contact_push_speed <= VXK_MAX_LINEAR_SPEED) ||
        !(def->restitution_threshold >= 0.0f &&
          def->restitution_threshold <= VXK_MAX_LINEAR_SPEED) ||
        !(def->linear_slop >= 0.0f && def->linear_slop <= 1.0f) ||
        !(def->sleep_threshold >= 0.0f && def->sleep_threshold <= VXK_MAX_LINEAR_SPEED) ||
        def->time_to_sleep < 0.0f)
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

vxk_status vxk_dynamics_attach(vxk_world* world, const vxk_world_def* def)
{
    vxk_dynamics* dyn = (vxk_dynamics*)vxk_calloc(sizeof(vxk_dynamics));
    if (!dyn)
        return VXK_ERR_OUT_OF_MEMORY;
    dyn->world = world;
    vxk_split_init(&dyn->spawn.split);
    vxk_shapes_register();
    dyn->settings = (vxk_dynamics_settings){def->gravity,
                                            def->substeps,
                                            def->contact_hertz,
                                            def->contact_damping_ratio,
                                            def->contact_push_speed,
                                            def->restitution_threshold,
                                            def->linear_slop,
                                            def->contact_recycling,
                                            VXK_SOLVER_BUNDLE_MANIFOLDS,
                                            VXK_SOLVER_LARGE_ISLAND,
                                            def->enable_sleep,
                                            def->sleep_threshold,
                                            def->time_to_sleep};
    vxk_id_pool_init(&dyn->ids);
    world->dynamics = (vxk_subsystem){dyn, dynamics_destroy, dynamics_memory};
    return VXK_OK;
}

vxk_status vxk_dynamics_reserve(void** buffer, size_t* capacity_bytes, size_t bytes)
{
    if (bytes <= *capacity_bytes)
        return VXK_OK;
    size_t grown = *capacity_bytes + *capacity_bytes / 2;
    if (grown < bytes)
        grown = bytes;
    void* p = vxk_alloc(grown);
    if (!p)
        return VXK_ERR_OUT_OF_MEMORY;
    if (*buffer) {
        memcpy(p, *buffer, *capacity_bytes);
        vxk_free(*buffer, *capacity_bytes);
    }
    *buffer = p;
    *capacity_bytes = grown;
    return VXK_OK;
}

// ---- shapes ----------------------------------------------------------------------------------

static bool quat_near_unit(vxk_quat q)
{
    float l2 = vxk_quat_length_sq(q);
    return fabsf(sqrtf(l2) - 1.0f) <= 1e-3f;
}

static bool quat_finite(vxk_quat q)
{
    return vxk_is_finite(q.x) && vxk_is_finite(q.y) && vxk_is_finite(q.z) && vxk_is_finite(q.w);
}

static bool material_usable(const vxk_world* world, uint8_t m)
{
    const vxk_material* mat = &world->materials.materials[m];
    return m != 0 && mat->defined && mat->kind != VXK_MATERIAL_AIR;
}

// The voxel shape of a grid (copy, types, compound, mass) and its float mass properties in the
// grid frame. Nothing is kept on failure.
static vxk_status voxel_shape_create(const vxk_world* world, const vxk_voxel_grid* grid,
                                     float voxel_size, bool need_mass, vxk_voxel_data** out,
                                     vxk_mass_properties* mass)
{
    size_t n = (size_t)grid->size.x * (size_t)grid->size.y * (size_t)grid->size.z;
    uint8_t solid[256];
    float density[256];
    uint32_t counts[256] = {0};
    for (int m = 0; m < 256; ++m) {
        solid[m] = m != 0;
        density[m] = world->materials.materials[m].density;
    }
    for (size_t i = 0; i < n; ++i)
        counts[grid->voxels[i]]++;
    uint32_t solid_count = 0, best = 0;
    uint8_t common = 0;
    for (int m = 1; m < 256; ++m) {
        if (!counts[m])
            continue;
        if (!world->materials.materials[m].defined)
            return VXK_ERR_BAD_MATERIAL;
        solid_count += counts[m];
        if (counts[m] > best)
            best = counts[m], common = (uint8_t)m;
    }
    if (!solid_count)
        return VXK_ERR_OUT_OF_RANGE;
    vxk_status status = vxk_mass_from_grid(mass, grid, density, voxel_size);
    if (status == VXK_ERR_OUT_OF_RANGE && !need_mass) {
        // A static or kinematic body of massless materials: its frame is the centroid.
        for (int m = 1; m < 256; ++m)
            density[m] = 1.0f;
        status = vxk_mass_from_grid(mass, grid, density, voxel_size);
    }
    if (status != VXK_OK)
        return status;
    vxk_voxel_data* vs = (vxk_voxel_data*)vxk_calloc(sizeof(*vs));
    uint8_t* voxels = (uint8_t*)vxk_alloc(n);
    uint8_t* types = (uint8_t*)vxk_alloc(n);
    vxk_box_list list = {0};
    status = VXK_ERR_OUT_OF_MEMORY;
    if (vs && voxels && types) {
        memcpy(voxels, grid->voxels, n);
        vs->grid = (vxk_voxel_grid){grid->size, voxels};
        status = vxk_voxel_types_compute(types, &vs->grid, solid);
        if (status == VXK_OK)
            status = vxk_boxes_grid(&list, &vs->grid, solid, VXK_BOXES_ANY_SOLID);
    }
    if (status == VXK_OK) {
        vs->box_capacity = list.count;
        vs->box_center = (vxk_vec3*)vxk_alloc(sizeof(vxk_vec3) * list.count);
        vs->box_half = (vxk_vec3*)vxk_alloc(sizeof(vxk_vec3) * list.count);
        if (!vs->box_center || !vs->box_half)
            status = VXK_ERR_OUT_OF_MEMORY;
    }
    if (status != VXK_OK) {
        vxk_box_list_free(&list);
        if (vs) {
            vxk_free(vs->box_center, sizeof(vxk_vec3) * vs->box_capacity);
            vxk_free(vs->box_half, sizeof(vxk_vec3) * vs->box_capacity);
            vxk_free(vs, sizeof(*vs));
        }
        vxk_free(voxels, n);
        vxk_free(types, n);
        return status;
    }
    vs->types = types;
    vs->voxel_size = voxel_size;
    vs->solid_voxels = solid_count;
    vs->material = common;
    vs->origin = vxk_v3(-(float)mass->center[0], -(float)mass->center[1], -(float)mass->center[2]);
    vs->box_count = list.count;
    vxk_vec3 lo = {FLT_MAX, FLT_MAX, FLT_MAX}, hi = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t i = 0; i < list.count; ++i) {
        const vxk_voxel_box* b = &list.boxes[i];
        vxk_vec3 half = vxk_v3(0.5f * voxel_size * b->size_x, 0.5f * voxel_size * b->size_y,
                               0.5f * voxel_size * b->size_z);
        // Centre in the body frame: grid corner + (min + size / 2) voxels, computed in double so
        // the centre of mass cancels exactly where it can.
        vxk_vec3 c = vxk_v3((float)((b->x + 0.5 * b->size_x) * voxel_size - mass->center[0]),
                            (float)((b->y + 0.5 * b->size_y) * voxel_size - mass->center[1]),
                            (float)((b->z + 0.5 * b->size_z) * voxel_size - mass->center[2]));
        vs->box_center[i] = c;
        vs->box_half[i] = half;
        lo = vxk_v3_min(lo, vxk_v3_sub(c, half));
        hi = vxk_v3_max(hi, vxk_v3_add(c, half));
    }
    vxk_box_list_free(&list);
    vs->local_mid = vxk_v3_scale(vxk_v3_add(lo, hi), 0.5f);
    vs->local_half = vxk_v3_scale(vxk_v3_sub(hi, lo), 0.5f);
    status = vxk_voxel_view_create(&vs->view, &vs->grid, solid, vs->types, voxel_size, vs->origin);
    if (status != VXK_OK) {
        voxel_shape_free(vs);
        return status;
    }
    *out = vs;
    return VXK_OK;
}

static vxk_mat3 mat3_from_double(const double m[3][3])
{
    return (vxk_mat3){{(float)m[0][0], (float)m[1][0], (float)m[2][0]},
                      {(float)m[0][1], (float)m[1][1], (float)m[2][1]},
                      {(float)m[0][2], (float)m[1][2], (float)m[2][2]}};
}

// Inverse of a symmetric positive definite tensor, in double.
static vxk_mat3 inverse_from_double(const double m[3][3])
{
    double a = m[0][0], b = m[0][1], c = m[0][2], d = m[1][1], e = m[1][2], f = m[2][2];
    double A = d * f - e * e, B = c * e - b * f, C = b * e - c * d;
    double det = a * A + b * B + c * C;
    double inv = det != 0.0 ? 1.0 / det : 0.0;
    double D = a * f - c * c, E = b * c - a * e, F = a * d - b * b;
    double r[3][3] = {
        {A * inv, B * inv, C * inv}, {B * inv, D * inv, E * inv}, {C * inv, E * inv, F * inv}};
    return mat3_from_double(r);
}

static void body_set_mass(vxk_body* body, const vxk_mass_properties* mp)
{
    if (body->type == VXK_BODY_DYNAMIC) {
        body->mass = (float)mp->mass;
        body->inv_mass = 1.0f / body->mass;
        body->inertia = mat3_from_double(mp->inertia);
        body->inv_inertia = inverse_from_double(mp->inertia);
    } else {
        body->mass = body->inv_mass = 0.0f;
        memset(&body->inertia, 0, sizeof(body->inertia));
        memset(&body->inv_inertia, 0, sizeof(body->inv_inertia));
    }
}

vxk_aabb vxk_body_compute_aabb(const vxk_body* body)
{
    return vxk_body_class(body)->aabb(body);
}

vxk_obb vxk_body_obb(const vxk_body* body, const vxk_mat3* rot, uint32_t box)
{
    vxk_obb o;
    o.axes = *rot;
    if (body->voxels) {
        o.center = vxk_v3_add(body->pose.p, vxk_mat3_mul_v(rot, body->voxels->box_center[box]));
        o.half = body->voxels->box_half[box];
    } else {
        o.center = body->pose.p;
        o.half = body->half;
    }
    return o;
}

// ---- create / destroy ------------------------------------------------------------------------

static bool vec3_is_zero(vxk_vec3 v)
{
    // Components, not a squared length, which underflows to 0 for 1e-45.
    return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f;
}

// Velocities within the maximum speeds; a static body's zero.
static bool velocities_in_range(vxk_body_type type, vxk_vec3 linear, vxk_vec3 angular)
{
    if (type == VXK_BODY_STATIC)
        return vec3_is_zero(linear) && vec3_is_zero(angular);
    return !vxk_v3_longer(linear, VXK_MAX_LINEAR_SPEED) &&
           !vxk_v3_longer(angular, VXK_MAX_ANGULAR_SPEED);
}

static vxk_status validate_def(const vxk_world* world, const vxk_body_def* def)
{
    if (def->cookie != VXK_BODY_DEF_COOKIE)
        return VXK_ERR_BAD_DEF;
    if ((unsigned)def->type > VXK_BODY_DYNAMIC)
        return VXK_ERR_INVALID_ARGUMENT;
    const vxk_shape_def* s = &def->shape;
    const vxk_shape_class* cls = vxk_shape_class_of((uint32_t)s->type);
    if (!cls)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!vxk_vec3_is_finite(def->position) || !quat_finite(def->rotation) ||
        !vxk_vec3_is_finite(def->linear_velocity) || !vxk_vec3_is_finite(def->angular_velocity) ||
        !vxk_is_finite(def->linear_damping) || !vxk_is_finite(def->angular_damping) ||
        !vxk_is_finite(def->gravity_scale) || !vxk_is_finite(def->friction) ||
        !vxk_is_finite(def->restitution) || !vxk_is_finite(s->radius) ||
        !vxk_vec3_is_finite(s->half_extents) || !vxk_is_finite(s->voxel_size))
        return VXK_ERR_NOT_FINITE;
    if (!quat_near_unit(def->rotation) ||
        !vxk_position_in_range(def->position, world->inv_voxel_size) ||
        !velocities_in_range(def->type, def->linear_velocity, def->angular_velocity) ||
        !(def->linear_damping >= 0.0f && def->linear_damping <= VXK_MAX_DAMPING) ||
        !(def->angular_damping >= 0.0f && def->angular_damping <= VXK_MAX_DAMPING) ||
        !(fabsf(def->gravity_scale) <= VXK_MAX_GRAVITY_SCALE) || def->friction > VXK_MAX_FRICTION ||
        def->restitution > 1.0f)
        return VXK_ERR_OUT_OF_RANGE;
    vxk_status status = cls->validate(s);
    if (status != VXK_OK || !cls->mass) // a grid's materials are checked while it is built
        return status;
    if (!material_usable(world, s->material))
        return VXK_ERR_BAD_MATERIAL;
    return VXK_OK;
}

vxk_status vxk_body_create(vxk_world* world, const vxk_body_def* def, vxk_body_id* out)
{
    if (!world || !def || !out)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = validate_def(world, def);
    if (status != VXK_OK)
        return status;
    vxk_dynamics* dyn = vxk_dynamics_get(world);
    const vxk_shape_def* s = &def->shape;
    vxk_mass_properties mp;
    vxk_voxel_data* vs = NULL;
    uint8_t material = s->material;
    const vxk_shape_class* cls = vxk_shape_class_of((uint32_t)s->type);
    if (!cls->mass) {
        float vsize = s->voxel_size > 0.0f ? s->voxel_size : world->voxel_size;
        status = voxel_shape_create(world, s->grid, vsize, def->type == VXK_BODY_DYNAMIC, &vs, &mp);
        if (status != VXK_OK)
            return status;
        material = vs->material;
    } else {
        float density = world->materials.materials[material].density;
        if (def->type == VXK_BODY_DYNAMIC && !(density > 0.0f))
            return VXK_ERR_OUT_OF_RANGE;
        status = cls->mass(&mp, s, density > 0.0f ? density : 1.0f);
        if (status != VXK_OK)
            return status;
    }
    if (def->type == VXK_BODY_DYNAMIC && (!(mp.mass > 0.0) || !((float)mp.mass > 0.0f))) {
        voxel_shape_free(vs);
        return VXK_ERR_OUT_OF_RANGE;
    }
    uint32_t index, generation;
    // Grow the body array first so that a failure leaves the id pool untouched.
    uint64_t slots = dyn->ids.free_count ? dyn->ids.count : (uint64_t)dyn->ids.count + 1;
    status = vxk_grow_items_zeroed((void**)&dyn->bodies, &dyn->capacity, slots, sizeof(vxk_body))
                 ? VXK_OK
                 : VXK_ERR_OUT_OF_MEMORY;
    if (status == VXK_OK)
        status = vxk_id_pool_alloc(&dyn->ids, &index, &generation);
    if (status != VXK_OK) {
        voxel_shape_free(vs);
        return status;
    }
    vxk_body* b = &dyn->bodies[index];
    memset(b, 0, sizeof(*b));
    b->live = true;
    b->type = (uint8_t)def->type;
    b->shape = (uint8_t)s->type;
    b->material = material;
    b->pose.p = def->position;
    b->pose.q = vxk_quat_normalize(def->rotation);
    if (def->type != VXK_BODY_STATIC) {
        b->v = def->linear_velocity;
        b->w = def->angular_velocity;
    }
    b->linear_damping = def->linear_damping;
    b->angular_damping = def->angular_damping;
    b->gravity_scale = def->gravity_scale;
    const vxk_material* mat = &world->materials.materials[material];
    b->friction = def->friction >= 0.0f ? def->friction : mat->friction;
    b->restitution = def->restitution >= 0.0f ? def->restitution : mat->restitution;
    b->user_data = def->user_data;
    b->is_bullet = def->is_bullet;
    b->awake = def->awake || def->type == VXK_BODY_STATIC;
    b->sleep_next = index;
    b->radius = s->radius;
    b->half = s->half_extents;
    b->voxels = vs;
    body_set_mass(b, &mp);
    cls->init(b, s);
    b->aabb = vxk_body_compute_aabb(b);
    dyn->bodies_changed = true;
    *out = (vxk_body_id){index, generation};
    return VXK_OK;
}

static vxk_body* body_get(const vxk_world* world, vxk_body_id id)
{
    if (!world)
        return NULL;
    vxk_dynamics* dyn = vxk_dynamics_get(world);
    if (!vxk_id_pool_valid(&dyn->ids, id.index, id.generation))
        return NULL;
    return &dyn->bodies[id.index];
}

// The live body of a call: VXK_ERR_INVALID_ARGUMENT for a NULL world or a refused output
// (outputs_ok false), then VXK_ERR_STALE_ID; the order every body call reports them in.
static vxk_status body_lookup(const vxk_world* world, vxk_body_id id, bool outputs_ok,
                              vxk_body** out)
{
    if (!world || !outputs_ok)
        return VXK_ERR_INVALID_ARGUMENT;
    *out = body_get(world, id);
    return *out ? VXK_OK : VXK_ERR_STALE_ID;
}

// A push or a set through the API wakes the body and the island it fell asleep with.
static void body_wake(vxk_world* world, vxk_body* b)
{
    vxk_dynamics* dyn = vxk_dynamics_get(world);
    vxk_dynamics_wake(dyn, (uint32_t)(b - dyn->bodies));
}

bool vxk_body_is_valid(const vxk_world* world, vxk_body_id id)
{
    return body_get(world, id) != NULL;
}

vxk_status vxk_body_destroy(vxk_world* world, vxk_body_id id)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status != VXK_OK)
        return status;
    vxk_dynamics* dyn = vxk_dynamics_get(world);
    // The island it slept with wakes; so do the sleeping bodies resting on a static or kinematic
    // body (they are in no island with it).
    vxk_dynamics_wake(dyn, id.index);
    if (b->type != VXK_BODY_DYNAMIC)
        for (uint32_t i = 0; i < dyn->contact_count; ++i) {
            const vxk_contact* c = &dyn->contacts[i];
            if (!c->terrain && (c->a == id.index || c->b == id.index))
                vxk_dynamics_wake(dyn, c->a == id.index ? c->b : c->a);
        }
    // Its contacts stay in the last step's list: the next step finds no contact for the pair
    // (or one of a new body at the same index, another generation) and reports the end.
    voxel_shape_free(b->voxels);
    memset(b, 0, sizeof(*b));
    dyn->bodies_changed = true;
    return vxk_id_pool_free(&dyn->ids, id.index, id.generation);
}

// ---- getters and setters ---------------------------------------------------------------------

vxk_status vxk_body_get_transform(const vxk_world* world, vxk_body_id id, vxk_transform* out)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, !(!out), &b);
    if (status != VXK_OK)
        return status;
    *out = b->pose;
    return VXK_OK;
}

vxk_status vxk_body_get_velocity(const vxk_world* world, vxk_body_id id, vxk_vec3* linear,
                                 vxk_vec3* angular)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, !(!linear || !angular), &b);
    if (status != VXK_OK)
        return status;
    *linear = b->v;
    *angular = b->w;
    return VXK_OK;
}

vxk_status vxk_body_get_user_data(const vxk_world* world, vxk_body_id id, void** out)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, !(!out), &b);
    if (status != VXK_OK)
        return status;
    *out = b->user_data;
    return VXK_OK;
}

vxk_status vxk_body_get_aabb(const vxk_world* world, vxk_body_id id, vxk_aabb* out)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, !(!out), &b);
    if (status != VXK_OK)
        return status;
    *out = vxk_body_compute_aabb(b);
    return VXK_OK;
}

vxk_status vxk_body_get_info(const vxk_world* world, vxk_body_id id, vxk_body_info* out)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, !(!out), &b);
    if (status != VXK_OK)
        return status;
    memset(out, 0, sizeof(*out));
    out->type = (vxk_body_type)b->type;
    out->shape = (vxk_shape_type)b->shape;
    out->mass = b->mass;
    for (int c = 0; c < 3; ++c) {
        vxk_vec3 col = vxk_mat3_col(&b->inertia, (uint32_t)c);
        out->inertia[0][c] = col.x;
        out->inertia[1][c] = col.y;
        out->inertia[2][c] = col.z;
    }
    out->friction = b->friction;
    out->restitution = b->restitution;
    out->linear_damping = b->linear_damping;
    out->angular_damping = b->angular_damping;
    out->gravity_scale = b->gravity_scale;
    out->awake = b->awake;
    out->is_bullet = b->is_bullet;
    if (b->voxels) {
        out->grid_size = b->voxels->grid.size;
        out->voxel_size = b->voxels->voxel_size;
        out->grid_origin = b->voxels->origin;
        out->solid_voxels = b->voxels->solid_voxels;
        out->compound_boxes = b->voxels->box_count;
    }
    return VXK_OK;
}

vxk_status vxk_body_set_transform(vxk_world* world, vxk_body_id id, vxk_vec3 position,
                                  vxk_quat rotation)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status != VXK_OK)
        return status;
    if (!vxk_vec3_is_finite(position) || !quat_finite(rotation))
        return VXK_ERR_NOT_FINITE;
    if (!quat_near_unit(rotation) || !vxk_position_in_range(position, world->inv_voxel_size))
        return VXK_ERR_OUT_OF_RANGE;
    b->pose = (vxk_transform){position, vxk_quat_normalize(rotation)};
    b->aabb = vxk_body_compute_aabb(b);
    body_wake(world, b);
    return VXK_OK;
}

vxk_status vxk_body_set_velocity(vxk_world* world, vxk_body_id id, vxk_vec3 linear,
                                 vxk_vec3 angular)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status != VXK_OK)
        return status;
    if (!vxk_vec3_is_finite(linear) || !vxk_vec3_is_finite(angular))
        return VXK_ERR_NOT_FINITE;
    if (!velocities_in_range((vxk_body_type)b->type, linear, angular))
        return VXK_ERR_OUT_OF_RANGE;
    b->v = linear;
    b->w = angular;
    body_wake(world, b);
    return VXK_OK;
}

void vxk_dynamics_place(vxk_world* world, vxk_body_id id, vxk_transform pose, vxk_vec3 v,
                        vxk_vec3 w)
{
    vxk_body* b = body_get(world, id);
    VXK_ASSERT(b && vxk_vec3_is_finite(pose.p));
    b->pose = (vxk_transform){pose.p, vxk_quat_normalize(pose.q)};
    b->aabb = vxk_body_compute_aabb(b);
    if (b->type != VXK_BODY_STATIC) {
        b->v = vxk_v3_clamp_length(v, VXK_MAX_LINEAR_SPEED);
        b->w = vxk_v3_clamp_length(w, VXK_MAX_ANGULAR_SPEED);
    }
    body_wake(world, b);
}

vxk_status vxk_body_set_awake(vxk_world* world, vxk_body_id id, bool awake)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status != VXK_OK || b->type == VXK_BODY_STATIC)
        return status;
    if (awake) {
        body_wake(world, b);
    } else if (b->awake) {
        uint32_t index = id.index;
        vxk_dynamics_sleep(vxk_dynamics_get(world), &index, 1);
    }
    return VXK_OK;
}

vxk_status vxk_body_set_user_data(vxk_world* world, vxk_body_id id, void* user_data)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status != VXK_OK)
        return status;
    b->user_data = user_data;
    return VXK_OK;
}

// The world inverse inertia r I^-1 r^T applied to v.
static vxk_vec3 apply_inv_inertia(const vxk_body* b, vxk_vec3 v)
{
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    vxk_vec3 local = vxk_mat3_tmul_v(&r, v);
    local = vxk_mat3_mul_v(&b->inv_inertia, local);
    return vxk_mat3_mul_v(&r, local);
}

// w + r I^-1 r^T v, clamped to VXK_MAX_ANGULAR_SPEED. In float as the solver's, and again in
// double when float overflows (a large angular impulse on a small body).
static vxk_vec3 spin_after(const vxk_body* b, vxk_vec3 v)
{
    vxk_vec3 w = vxk_v3_add(b->w, apply_inv_inertia(b, v));
    if (vxk_vec3_is_finite(w))
        return vxk_v3_clamp_length(w, VXK_MAX_ANGULAR_SPEED);
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    const vxk_vec3 cols[3] = {r.cx, r.cy, r.cz};
    const vxk_vec3 inv[3] = {b->inv_inertia.cx, b->inv_inertia.cy, b->inv_inertia.cz};
    double local[3], turned[3], out[3];
    for (int i = 0; i < 3; ++i) // r^T v
        local[i] = (double)cols[i].x * v.x + (double)cols[i].y * v.y + (double)cols[i].z * v.z;
    for (int i = 0; i < 3; ++i) // I^-1 local (columns)
        turned[i] = (double)vxk_v3_get(inv[0], (uint32_t)i) * local[0] +
                    (double)vxk_v3_get(inv[1], (uint32_t)i) * local[1] +
                    (double)vxk_v3_get(inv[2], (uint32_t)i) * local[2];
    for (int i = 0; i < 3; ++i) // r turned
        out[i] = (double)vxk_v3_get(b->w, (uint32_t)i) +
                 (double)vxk_v3_get(cols[0], (uint32_t)i) * turned[0] +
                 (double)vxk_v3_get(cols[1], (uint32_t)i) * turned[1] +
                 (double)vxk_v3_get(cols[2], (uint32_t)i) * turned[2];
    return vxk_clamp_length_d(out[0], out[1], out[2], VXK_MAX_ANGULAR_SPEED);
}

// The body of a push, then its vector's and point's checks: NaN or infinity, then a vector
// longer than max or a point (when given) outside the position range.
static vxk_status body_for_push(vxk_world* world, vxk_body_id id, vxk_body** out, vxk_vec3 a,
                                float max, const vxk_vec3* point)
{
    vxk_status status = body_lookup(world, id, true, out);
    if (status != VXK_OK)
        return status;
    if (!vxk_vec3_is_finite(a) || (point && !vxk_vec3_is_finite(*point)))
        return VXK_ERR_NOT_FINITE;
    if (vxk_v3_longer(a, max) || (point && !vxk_position_in_range(*point, world->inv_voxel_size)))
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

// The accumulators stay within the limits: each addend is (a lever arm of the position range
// times VXK_MAX_FORCE fits a float), so the sums never overflow.
static void add_force(vxk_body* b, vxk_vec3 force)
{
    b->force = vxk_v3_clamp_length(vxk_v3_add(b->force, force), VXK_MAX_FORCE);
}

static void add_torque(vxk_body* b, vxk_vec3 torque)
{
    b->torque = vxk_v3_clamp_length(vxk_v3_add(b->torque, torque), VXK_MAX_TORQUE);
}

vxk_status vxk_body_apply_force(vxk_world* world, vxk_body_id id, vxk_vec3 force, vxk_vec3 point)
{
    vxk_body* b;
    vxk_status status = body_for_push(world, id, &b, force, VXK_MAX_FORCE, &point);
    if (status != VXK_OK || b->type != VXK_BODY_DYNAMIC)
        return status;
    add_force(b, force);
    add_torque(b, vxk_v3_cross(vxk_v3_sub(point, b->pose.p), force));
    body_wake(world, b);
    return VXK_OK;
}

vxk_status vxk_body_apply_force_to_center(vxk_world* world, vxk_body_id id, vxk_vec3 force)
{
    vxk_body* b;
    vxk_status status = body_for_push(world, id, &b, force, VXK_MAX_FORCE, NULL);
    if (status != VXK_OK || b->type != VXK_BODY_DYNAMIC)
        return status;
    add_force(b, force);
    body_wake(world, b);
    return VXK_OK;
}

vxk_status vxk_body_apply_torque(vxk_world* world, vxk_body_id id, vxk_vec3 torque)
{
    vxk_body* b;
    vxk_status status = body_for_push(world, id, &b, torque, VXK_MAX_TORQUE, NULL);
    if (status != VXK_OK || b->type != VXK_BODY_DYNAMIC)
        return status;
    add_torque(b, torque);
    body_wake(world, b);
    return VXK_OK;
}

vxk_status vxk_body_apply_impulse(vxk_world* world, vxk_body_id id, vxk_vec3 impulse,
                                  vxk_vec3 point)
{
    vxk_body* b;
    vxk_status status = body_for_push(world, id, &b, impulse, VXK_MAX_FORCE, &point);
    if (status != VXK_OK || b->type != VXK_BODY_DYNAMIC)
        return status;
    // Within the limits every product here is a finite float (inverse mass and lever arm times
    // VXK_MAX_FORCE) but the inverse inertia's, which spin_after takes care of.
    b->v = vxk_v3_clamp_length(vxk_v3_mul_add(b->v, b->inv_mass, impulse), VXK_MAX_LINEAR_SPEED);
    b->w = spin_after(b, vxk_v3_cross(vxk_v3_sub(point, b->pose.p), impulse));
    body_wake(world, b);
    return VXK_OK;
}

vxk_status vxk_body_apply_angular_impulse(vxk_world* world, vxk_body_id id, vxk_vec3 impulse)
{
    vxk_body* b;
    vxk_status status = body_for_push(world, id, &b, impulse, VXK_MAX_TORQUE, NULL);
    if (status != VXK_OK || b->type != VXK_BODY_DYNAMIC)
        return status;
    b->w = spin_after(b, impulse);
    body_wake(world, b);
    return VXK_OK;
}

// ---- voxels ----------------------------------------------------------------------------------

static vxk_status voxel_box_check(const vxk_body* b, const void* buffer, vxk_int_box box)
{
    if (!b->voxels || !buffer || box.max.x < box.min.x || box.max.y < box.min.y ||
        box.max.z < box.min.z)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_int3 s = b->voxels->grid.size;
    if (box.min.x < 0 || box.min.y < 0 || box.min.z < 0 || box.max.x >= s.x || box.max.y >= s.y ||
        box.max.z >= s.z)
        return VXK_ERR_OUT_OF_RANGE;
    return VXK_OK;
}

// Copies between a grid-sized array and a dense box buffer (to_box: grid -> box).
static void copy_box(uint8_t* grid, vxk_int3 size, uint8_t* buffer, vxk_int_box box, bool to_box)
{
    int32_t dx = box.max.x - box.min.x + 1, dz = box.max.z - box.min.z + 1;
    for (int32_t y = box.min.y; y <= box.max.y; ++y)
        for (int32_t z = box.min.z; z <= box.max.z; ++z) {
            uint8_t* row =
                grid + (size_t)box.min.x + (size_t)size.x * ((size_t)z + (size_t)size.z * y);
            uint8_t* dense = buffer + (size_t)dx * ((size_t)(z - box.min.z) +
                                                    (size_t)dz * (size_t)(y - box.min.y));
            if (to_box)
                memcpy(dense, row, (size_t)dx);
            else
                memcpy(row, dense, (size_t)dx);
        }
}

// A box of a voxel body's grid (voxels) or of its type bytes.
static vxk_status read_grid_box(const vxk_world* world, vxk_body_id id, uint8_t* out,
                                vxk_int_box box, bool types)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status == VXK_OK)
        status = voxel_box_check(b, out, box);
    if (status == VXK_OK)
        copy_box(types ? b->voxels->types : b->voxels->grid.voxels, b->voxels->grid.size, out, box,
                 true);
    return status;
}

vxk_status vxk_body_read_voxels(const vxk_world* world, vxk_body_id id, uint8_t* out,
                                vxk_int_box box)
{
    return read_grid_box(world, id, out, box, false);
}

vxk_status vxk_body_read_voxel_types(const vxk_world* world, vxk_body_id id, uint8_t* out,
                                     vxk_int_box box)
{
    return read_grid_box(world, id, out, box, true);
}

vxk_status vxk_body_set_voxels(vxk_world* world, vxk_body_id id, vxk_int_box box,
                               const uint8_t* ids)
{
    vxk_body* b;
    vxk_status status = body_lookup(world, id, true, &b);
    if (status != VXK_OK)
        return status;
    status = voxel_box_check(b, ids, box);
    if (status != VXK_OK)
        return status;
    size_t count = (size_t)(box.max.x - box.min.x + 1) * (size_t)(box.max.y - box.min.y + 1) *
                   (size_t)(box.max.z - box.min.z + 1);
    for (size_t i = 0; i < count; ++i)
        if (ids[i] && !world->materials.materials[ids[i]].defined)
            return VXK_ERR_BAD_MATERIAL;
    // Build the edited grid as a new shape (all or nothing), carrying the old types forward
    // through the incremental update.
    vxk_voxel_data* old = b->voxels;
    vxk_int3 size = old->grid.size;
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    uint8_t* edited = (uint8_t*)vxk_alloc(n);
    if (!edited)
        return VXK_ERR_OUT_OF_MEMORY;
    memcpy(edited, old->grid.voxels, n);
    copy_box(edited, size, (uint8_t*)ids, box, false);
    vxk_voxel_grid grid = {size, edited};
    vxk_voxel_data* vs = NULL;
    vxk_mass_properties mp;
    status =
        voxel_shape_create(world, &grid, old->voxel_size, b->type == VXK_BODY_DYNAMIC, &vs, &mp);
    vxk_free(edited, n);
    if (status == VXK_OK && b->type == VXK_BODY_DYNAMIC && !((float)mp.mass > 0.0f))
        status = VXK_ERR_OUT_OF_RANGE;
    if (status != VXK_OK) {
        voxel_shape_free(vs);
        return status;
    }
    // Keep the grid's world pose: the grid corner sits at p + R origin before and after.
    vxk_mat3 r = vxk_mat3_from_quat(b->pose.q);
    vxk_vec3 corner = vxk_v3_add(b->pose.p, vxk_mat3_mul_v(&r, old->origin));
    vxk_vec3 p = vxk_v3_sub(corner, vxk_mat3_mul_v(&r, vs->origin));
    b->v = vxk_v3_clamp_length(vxk_v3_add(b->v, vxk_v3_cross(b->w, vxk_v3_sub(p, b->pose.p))),
                               VXK_MAX_LINEAR_SPEED);
    b->pose.p = p;
    voxel_shape_free(old);
    b->voxels = vs;
    b->material = vs->material;
    b->shape_serial++;
    body_set_mass(b, &mp);
    vxk_voxel_shape_bound(b);
    b->aabb = vxk_body_compute_aabb(b);
    body_wake(world, b);
    return VXK_OK;
}

// ---- iteration and hash ----------------------------------------------------------------------

uint32_t vxk_world_get_bodies(const vxk_world* world, vxk_body_id* out, uint32_t capacity)
{
    if (!world)
        return 0;
    const vxk_dynamics* dyn = vxk_dynamics_get(world);
    uint32_t n = 0;
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        if (dyn->bodies[i].live) {
            if (n < capacity && out)
                out[n] = (vxk_body_id){i, dyn->ids.generations[i]};
            n++;
        }
    return n;
}

uint32_t vxk_world_body_count(const vxk_world* world)
{
    return world ? vxk_dynamics_get(world)->ids.live : 0;
}

uint64_t vxk_world_hash(const vxk_world* world)
{
    if (!world)
        return 0;
    const vxk_dynamics* dyn = vxk_dynamics_get(world);
    uint64_t h = vxk_terrain_hash(&world->terrain) ^ VXK_HASH_SEED;
    for (uint32_t i = 0; i < dyn->ids.count; ++i) {
        const vxk_body* b = &dyn->bodies[i];
        if (!b->live)
            continue;
        // The unsalted generation: worlds built alike hash alike, whatever their salts.
        uint32_t head[4] = {i, vxk_id_pool_unsalt(&dyn->ids, dyn->ids.generations[i]), b->type,
                            b->shape | (uint32_t)b->awake << 8};
        h = vxk_hash_bytes(h, head, sizeof(head));
        h = vxk_hash_bytes(h, &b->pose, sizeof(b->pose));
        h = vxk_hash_bytes(h, &b->v, sizeof(b->v));
        h = vxk_hash_bytes(h, &b->w, sizeof(b->w));
        if (b->voxels) {
            const vxk_voxel_data* vs = b->voxels;
            size_t n = (size_t)vs->grid.size.x * (size_t)vs->grid.size.y * (size_t)vs->grid.size.z;
            h = vxk_hash_bytes(h, vs->grid.voxels, n);
        }
    }
    return h;
}
