// vxk/body.h: rigid bodies. A body has one shape (sphere, box or voxel grid), a type (static,
// kinematic, dynamic) and a pose whose origin is its centre of mass: the body frame is the
// centre-of-mass frame, its axes those of the shape (a box's edges, a grid's x, y, z).
//
// Ids: vxk_body_id (vxk/id.h). A destroyed body's id is stale for ever; every call that takes a
// stale (or null, or another world's: vxk/id.h says what is guaranteed) id returns
// VXK_ERR_STALE_ID and changes nothing.
//
// Mass: from the shape's volume and its material densities (the world's material table),
// exact for boxes of unit voxels (vxk/mass.h). A static or kinematic body needs no mass: its
// frame is then its geometric centroid (a voxel body whose materials all have density 0). Friction
// and restitution: the def's, or the material's when the def leaves them negative (a voxel body
// takes the material of its most common voxel). A pair mixes friction as sqrt(fa * fb) and
// restitution as max(ea, eb); terrain contacts take the touched quad's material.
//
// Integration (vxk_world_step, h = dt / substeps, per substep, in this order): a dynamic body's
// velocity v += h * (gravity_scale * gravity + force / mass), then v *= 1 / (1 + h *
// linear_damping) (angular likewise with the world inverse inertia and the torque); contacts
// are solved; then position x += h * v and the rotation q += 0.5 h (w, 0) q, renormalized
// (semi-implicit Euler). A body in free fall from rest after k substeps: v = k h g,
// x = x0 + h^2 g k (k + 1) / 2. Kinematic bodies move by their velocity; static ones never.
//
// Sleeping (vxk_world_def.enable_sleep): the dynamic bodies linked by contacts form islands; an
// island whose bodies all move slower than the world's sleep threshold for its time to sleep
// falls asleep as one: its bodies stop (velocities zero, not integrated, no narrowphase among
// them, their contacts kept). A sleeping body wakes, with the island it fell asleep with, on
// contact with an awake dynamic (or moving kinematic) body, on any force, impulse, velocity,
// transform or voxels set through the API, on vxk_body_set_awake, when the terrain near it is
// written, and when a body of its island, or a static or kinematic body it rests on, is
// destroyed. A body created with awake false sleeps alone until then.
//
// Limits (vxk/world.h, docs/api.md): sizes within [VXK_MIN_SIZE, VXK_MAX_SIZE], speeds up to
// VXK_MAX_LINEAR_SPEED and VXK_MAX_ANGULAR_SPEED, positions within the position range, forces,
// torques and impulses up to VXK_MAX_FORCE and VXK_MAX_TORQUE; a finite value outside them is
// refused (VXK_ERR_OUT_OF_RANGE, nothing changed). An impulse, or a voxel edit, whose result would
// be faster than the maxima leaves the velocity scaled to them (direction kept).
//
// Thread-safety: as the terrain writes (vxk/world.h): calls that change bodies must not run
// concurrently with any other call on the same world; getters may run concurrently with each
// other.
#ifndef VXK_BODY_H
#define VXK_BODY_H

#include <vxk/base.h>
#include <vxk/id.h>
#include <vxk/voxel_grid.h>
#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vxk_body_type {
    VXK_BODY_STATIC = 0,    // never moves (infinite mass, zero velocity)
    VXK_BODY_KINEMATIC = 1, // moves by its velocity, pushes dynamic bodies, is not pushed
    VXK_BODY_DYNAMIC = 2,   // moved by forces and contacts (positive mass)
} vxk_body_type;

typedef enum vxk_shape_type {
    VXK_SHAPE_SPHERE = 1,
    VXK_SHAPE_BOX = 2,
    VXK_SHAPE_VOXELS = 3,
    VXK_SHAPE_CAPSULE = 4,
} vxk_shape_type;

// A shape, made with vxk_sphere_shape, vxk_box_shape, vxk_capsule_shape or vxk_voxel_shape.
typedef struct vxk_shape_def {
    vxk_shape_type type;
    float radius;          // sphere, capsule: radius in metres, VXK_MIN_SIZE..VXK_MAX_SIZE
    vxk_vec3 half_extents; // box: half edge lengths in metres, VXK_MIN_SIZE..VXK_MAX_SIZE each
    uint8_t material;      // sphere, box, capsule: a defined, non-air material of the world's table
    // Voxels: a grid of material ids (0 = empty, every other id defined in the world's table),
    // size 1..VXK_BODY_MAX_GRID per axis, at least one solid voxel; copied at creation. An array
    // of ids is a grid too: {size, pointer}, layout of vxk/voxel_grid.h. A .vox model loads into a
    // grid with vxk_vox_load_flat (vxk/vox.h).
    const vxk_voxel_grid* grid;
    float voxel_size; // voxels: edge in metres, VXK_MIN_SIZE..VXK_MAX_SIZE (0 = the world's)
    // Capsule: half the length of its segment (VXK_MIN_SIZE..VXK_MAX_SIZE), which runs along the
    // body's y axis through
    // the centre of mass from (0, -half_height, 0) to (0, half_height, 0); the capsule is that
    // segment swept by radius.
    float half_height;
} vxk_shape_def;

vxk_shape_def vxk_sphere_shape(float radius, uint8_t material);
vxk_shape_def vxk_box_shape(vxk_vec3 half_extents, uint8_t material);
vxk_shape_def vxk_voxel_shape(const vxk_voxel_grid* grid, float voxel_size);
// A capsule of the given half height (half its segment's length, along the body's y axis) and
// radius: mass and inertia in closed form (a cylinder and two hemispheres).
vxk_shape_def vxk_capsule_shape(float half_height, float radius, uint8_t material);

typedef struct vxk_body_def {
    uint32_t cookie;           // set by vxk_default_body_def
    vxk_body_type type;        // default dynamic
    vxk_vec3 position;         // of the centre of mass, world, in the position range (default 0)
    vxk_quat rotation;         // unit within 1e-3 (renormalized); default identity
    vxk_vec3 linear_velocity;  // m/s, world, length <= VXK_MAX_LINEAR_SPEED (default 0)
    vxk_vec3 angular_velocity; // rad/s, world, length <= VXK_MAX_ANGULAR_SPEED (default 0)
    float linear_damping;      // 1/s, 0..VXK_MAX_DAMPING (default 0): v *= 1 / (1 + h * damping)
                               // per substep
    float angular_damping;     // 1/s, 0..VXK_MAX_DAMPING (default 0), likewise for w
    float gravity_scale;       // -VXK_MAX_GRAVITY_SCALE..VXK_MAX_GRAVITY_SCALE (default 1)
    float friction;            // 0..VXK_MAX_FRICTION; negative (default) = the material's
    float restitution;         // 0..1; negative (default) = the material's
    void* user_data;           // default NULL
    bool is_bullet;            // swept every step to its first time of impact with the terrain
                               // and static bodies (default false: a body is swept only in the
                               // steps it moves more than half its smallest extent)
    bool awake;                // default true
    vxk_shape_def shape;       // default: a sphere of radius 0.5 of stone
} vxk_body_def;

vxk_body_def vxk_default_body_def(void);

// Creates a body. Errors (*out untouched, nothing changed): NULL world, def or out, a bad type or
// shape type -> VXK_ERR_INVALID_ARGUMENT; a def not made by vxk_default_body_def ->
// VXK_ERR_BAD_DEF; NaN or infinity in any float of the def or shape -> VXK_ERR_NOT_FINITE; a
// rotation off unit by more than 1e-3, a position, velocity, damping, gravity scale, friction,
// radius, half extent, half height or voxel size (other than 0) outside its range (the fields
// above), a restitution over 1, a nonzero velocity component of a static body, a grid size outside
// 1..VXK_BODY_MAX_GRID, a grid without solid voxels, a dynamic body of zero mass (zero density) ->
// VXK_ERR_OUT_OF_RANGE; an undefined or
// air material (grid voxels: undefined) -> VXK_ERR_BAD_MATERIAL; a NULL grid or grid voxels ->
// VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY.
// Cost: O(1) for spheres and boxes; a voxel body O(grid) (types, box compound, mass).
vxk_status vxk_body_create(vxk_world* world, const vxk_body_def* def, vxk_body_id* out);
// Destroys a body. Its contacts of the last step stay readable until the next step, which
// reports an end event for each that touched. Errors: VXK_ERR_INVALID_ARGUMENT (NULL world),
// VXK_ERR_STALE_ID.
vxk_status vxk_body_destroy(vxk_world* world, vxk_body_id id);
// Whether id names a live body of this world.
bool vxk_body_is_valid(const vxk_world* world, vxk_body_id id);

// The pose: p the centre of mass, q the rotation. Errors: VXK_ERR_INVALID_ARGUMENT (NULL world or
// out), VXK_ERR_STALE_ID.
vxk_status vxk_body_get_transform(const vxk_world* world, vxk_body_id id, vxk_transform* out);
// The linear velocity of the centre of mass and the angular velocity, world frame. Errors:
// VXK_ERR_INVALID_ARGUMENT (NULL world, linear or angular), VXK_ERR_STALE_ID.
vxk_status vxk_body_get_velocity(const vxk_world* world, vxk_body_id id, vxk_vec3* linear,
                                 vxk_vec3* angular);
// The user data of the def or of the last vxk_body_set_user_data. Errors:
// VXK_ERR_INVALID_ARGUMENT (NULL world or out), VXK_ERR_STALE_ID.
vxk_status vxk_body_get_user_data(const vxk_world* world, vxk_body_id id, void** out);
// The world box of the body's shape at its current pose. Errors: VXK_ERR_INVALID_ARGUMENT (NULL
// world or out), VXK_ERR_STALE_ID.
vxk_status vxk_body_get_aabb(const vxk_world* world, vxk_body_id id, vxk_aabb* out);

typedef struct vxk_body_info {
    vxk_body_type type;
    vxk_shape_type shape;
    float mass;          // kg (0 for static and kinematic bodies)
    float inertia[3][3]; // the full tensor in the body frame (kg m^2; 0 unless dynamic)
    float friction, restitution;
    float linear_damping, angular_damping, gravity_scale; // as set by the def
    bool awake, is_bullet;
    // Voxel bodies: the grid's size, its voxel edge and where voxel (0, 0, 0)'s lowest corner sits
    // in the body frame (minus the centre of mass in grid metres). Zero for other shapes.
    vxk_int3 grid_size;
    float voxel_size;
    vxk_vec3 grid_origin;
    uint32_t solid_voxels;   // voxel bodies: solid voxels
    uint32_t compound_boxes; // voxel bodies: boxes of the box compound (the collision shape)
} vxk_body_info;
// The body's type, shape, mass properties and materials. Errors: VXK_ERR_INVALID_ARGUMENT (NULL
// world or out), VXK_ERR_STALE_ID.
vxk_status vxk_body_get_info(const vxk_world* world, vxk_body_id id, vxk_body_info* out);

// Teleports the body (its contacts are found anew at the next step) and wakes it. Errors
// (nothing changed): VXK_ERR_INVALID_ARGUMENT (NULL world), VXK_ERR_STALE_ID; NaN or infinity ->
// VXK_ERR_NOT_FINITE; a position outside the position range (vxk/world.h, VXK_POSITION_VOXELS),
// a rotation off unit by more than 1e-3 -> VXK_ERR_OUT_OF_RANGE.
vxk_status vxk_body_set_transform(vxk_world* world, vxk_body_id id, vxk_vec3 position,
                                  vxk_quat rotation);
// Sets the velocities and wakes the body. Errors (nothing changed): VXK_ERR_INVALID_ARGUMENT
// (NULL world), VXK_ERR_STALE_ID; NaN or infinity -> VXK_ERR_NOT_FINITE; a velocity longer than
// VXK_MAX_LINEAR_SPEED, an angular velocity longer than VXK_MAX_ANGULAR_SPEED, a nonzero component
// (however small) of either for a static body -> VXK_ERR_OUT_OF_RANGE.
vxk_status vxk_body_set_velocity(vxk_world* world, vxk_body_id id, vxk_vec3 linear,
                                 vxk_vec3 angular);
// Wakes the body and the island it fell asleep with (awake true), or puts it to sleep alone
// (false: velocities zeroed; a contact with an awake body wakes it again). Static bodies are
// always awake (VXK_OK, nothing changed). Errors (nothing changed): VXK_ERR_INVALID_ARGUMENT (NULL
// world), VXK_ERR_STALE_ID.
vxk_status vxk_body_set_awake(vxk_world* world, vxk_body_id id, bool awake);
// Sets the user data (does not wake the body). Errors: VXK_ERR_INVALID_ARGUMENT (NULL world),
// VXK_ERR_STALE_ID.
vxk_status vxk_body_set_user_data(vxk_world* world, vxk_body_id id, void* user_data);

// Forces and torques accumulate until the next vxk_world_step, which applies them over its dt
// and clears them; impulses change the velocity at once. A point is in world coordinates, in the
// position range. Non-dynamic bodies ignore them (VXK_OK). Each wakes a dynamic body.
// Limits: a force or impulse longer than VXK_MAX_FORCE, a torque or angular impulse longer than
// VXK_MAX_TORQUE, a point outside the position range are refused (VXK_ERR_OUT_OF_RANGE, nothing
// changed). The accumulated force and torque are kept within VXK_MAX_FORCE and VXK_MAX_TORQUE
// (scaled down, direction kept); the step limits what they do (vxk_world_step). An impulse whose
// velocity (or angular velocity) would exceed VXK_MAX_LINEAR_SPEED (VXK_MAX_ANGULAR_SPEED) leaves
// it scaled to that maximum.

// A force at a world point (a torque about the centre of mass too). Errors (nothing changed):
// VXK_ERR_INVALID_ARGUMENT (NULL world), VXK_ERR_STALE_ID, VXK_ERR_NOT_FINITE,
// VXK_ERR_OUT_OF_RANGE (the limits above).
vxk_status vxk_body_apply_force(vxk_world* world, vxk_body_id id, vxk_vec3 force, vxk_vec3 point);
// A force at the centre of mass. Errors (nothing changed): VXK_ERR_INVALID_ARGUMENT (NULL world),
// VXK_ERR_STALE_ID, VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE (the limits above).
vxk_status vxk_body_apply_force_to_center(vxk_world* world, vxk_body_id id, vxk_vec3 force);
// A torque (world frame). Errors (nothing changed): VXK_ERR_INVALID_ARGUMENT (NULL world),
// VXK_ERR_STALE_ID, VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE (the limits above).
vxk_status vxk_body_apply_torque(vxk_world* world, vxk_body_id id, vxk_vec3 torque);
// An impulse at a world point: v += J / m, w += I^-1 ((point - centre) x J), each clamped to its
// maximum speed. Errors (nothing changed): VXK_ERR_INVALID_ARGUMENT (NULL world),
// VXK_ERR_STALE_ID, VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE (the limits above).
vxk_status vxk_body_apply_impulse(vxk_world* world, vxk_body_id id, vxk_vec3 impulse,
                                  vxk_vec3 point);
// An angular impulse: w += I^-1 L (world inverse inertia), clamped to VXK_MAX_ANGULAR_SPEED.
// Errors (nothing changed): VXK_ERR_INVALID_ARGUMENT (NULL world), VXK_ERR_STALE_ID,
// VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE (the limits above).
vxk_status vxk_body_apply_angular_impulse(vxk_world* world, vxk_body_id id, vxk_vec3 impulse);

// Voxel bodies: writes a box of the grid (ids dense in the layout of vxk_world_read_box, box in
// grid coordinates, inside the grid). Recomputes the voxel types and normals, the box compound
// and the mass; the body frame moves to the new centre of mass with the world pose of the grid
// kept, and the linear velocity of the new centre of mass is the old body's velocity at that
// point (clamped to VXK_MAX_LINEAR_SPEED). Errors (nothing changed): VXK_ERR_STALE_ID; NULL world
// or ids, not a voxel body, an inverted box -> VXK_ERR_INVALID_ARGUMENT; a box outside the grid, a
// write that leaves no solid voxel -> VXK_ERR_OUT_OF_RANGE; an undefined id ->
// VXK_ERR_BAD_MATERIAL; VXK_ERR_OUT_OF_MEMORY. Cost: O(grid) (the shape is rebuilt).
vxk_status vxk_body_set_voxels(vxk_world* world, vxk_body_id id, vxk_int_box box,
                               const uint8_t* ids);
// Reads a box of a voxel body's grid (layout of vxk_world_read_box). Errors: VXK_ERR_STALE_ID;
// NULL world or out, not a voxel body, an inverted box -> VXK_ERR_INVALID_ARGUMENT; a box outside
// the grid -> VXK_ERR_OUT_OF_RANGE.
vxk_status vxk_body_read_voxels(const vxk_world* world, vxk_body_id id, uint8_t* out,
                                vxk_int_box box);
// A voxel body's type-and-normal bytes (vxk/voxel_types.h) of a box, same layout. Errors:
// VXK_ERR_STALE_ID; NULL world or out, not a voxel body, an inverted box ->
// VXK_ERR_INVALID_ARGUMENT; a box outside the grid -> VXK_ERR_OUT_OF_RANGE.
vxk_status vxk_body_read_voxel_types(const vxk_world* world, vxk_body_id id, uint8_t* out,
                                     vxk_int_box box);

// The world's bodies, their contacts and events, and vxk_world_hash: vxk/world.h.

#ifdef __cplusplus
}
#endif
#endif
