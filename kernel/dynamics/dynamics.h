// dynamics.h: the world's bodies and contacts (kernel-internal), shared by body.c (the public
// body API), contacts.c (candidates, narrowphase, persistent manifolds, events) and solver.c (the
// soft step). The dynamics is a world subsystem (world_internal.h), attached at world creation.
//
// Data. Bodies live in one array indexed by id index (holes where ids are free), so an id is an
// O(1) lookup and the index order is the one stable order every parallel output is merged by.
// Per step, the solver packs what it touches (vxk_solver_body: velocity, pose delta, inverse
// mass and world inverse inertia) densely for the moving bodies in index order.
#ifndef VXK_DYNAMICS_H
#define VXK_DYNAMICS_H

#include <vxk/body.h>
#include <vxk/broadphase.h>

#include "body_bvh.h"
#include "body_limits.h"
#include "contact_geometry.h"
#include "contact_voxel.h"
#include "id_pool.h"
#include "math3.h"
#include "spawn.h"
#include "split.h"
#include "world_internal.h"

// A voxel body's shape: its own grid copy, its type-and-normal bytes, the box compound in the
// body frame (boxes of voxels: the mass, Bullet's peer shape, the bounds) and the voxel view
// its contacts are made from.
typedef struct vxk_voxel_data {
    vxk_voxel_grid grid; // owned copy
    uint8_t* types;      // one byte per voxel (vxk/voxel_types.h)
    float voxel_size;
    vxk_vec3 origin; // voxel (0,0,0)'s lowest corner in the body frame
    uint32_t box_count;
    uint32_t box_capacity;
    vxk_vec3* box_center; // body frame
    vxk_vec3* box_half;
    vxk_vec3 local_half; // half extents of the body-frame bounds of the boxes, around local_mid
    vxk_vec3 local_mid;
    uint32_t solid_voxels;
    uint8_t material; // the most common material
    // The grid as the voxel contacts see it (collision/contact_voxel.h): bit rows, types, Corner
    // and Edge rows; its pose is set from the body's before each narrowphase.
    vxk_voxel_view view;
    // The terrain region last gathered around the body (contacts.c: written by the body's
    // terrain task alone), valid for its box (region.base, region.size) while the terrain's
    // epoch is region_epoch.
    vxk_voxel_view region;
    void* region_storage;
    size_t region_bytes;
    uint32_t region_epoch;
    bool region_valid;
} vxk_voxel_data;

typedef struct vxk_body {
    vxk_transform pose; // p: the centre of mass
    vxk_vec3 v, w;      // linear, angular (world)
    vxk_vec3 force, torque;
    float mass, inv_mass;
    vxk_mat3 inertia;     // body frame (dynamic only)
    vxk_mat3 inv_inertia; // body frame
    float linear_damping, angular_damping, gravity_scale;
    float friction, restitution;
    void* user_data;
    uint8_t type;  // vxk_body_type
    uint8_t shape; // vxk_shape_type
    uint8_t material;
    bool awake, is_bullet, live;
    float sleep_time;      // seconds it has moved slower than the sleep threshold
    uint32_t sleep_next;   // asleep: the next body of the island it slept with (a ring)
    uint32_t shape_serial; // changes with the shape (vxk_body_set_voxels): the contact cache
    // The shape's sizes as its class keeps them (shape_*.c): radius (sphere, capsule: the
    // rounding radius the solver keeps contact points on; 0 for other shapes), half (box: half
    // extents; capsule: (0, half height, 0)).
    float radius;
    vxk_vec3 half;
    float bound_radius; // of the shape around the centre of mass
    vxk_voxel_data* voxels;
    vxk_aabb aabb; // of the shape at the pose (refreshed each step and on set)
} vxk_body;

// A persistent manifold: a pair, its points and their accumulated impulses.
typedef struct vxk_contact_point_state {
    vxk_vec3 point;
    float separation;
    uint32_t feature;
    float normal_impulse;
    float max_normal_impulse;
    float relative_velocity;  // normal velocity before the solve (negative = closing)
    uint32_t feature_matched; // warm started by feature id (contacts.c)
    // Where the point sits on each body, as world offsets from the centres of mass when the
    // manifold was collided: on A's surface and on B's surface (point + separation x normal). The
    // solver's lever arms; recycling (contacts.c) keeps them and measures the separation anew
    // between them rotated with the bodies.
    vxk_vec3 anchor_a, anchor_b;
} vxk_contact_point_state;

typedef struct vxk_contact {
    // Pair key (contacts.c): terrain contacts (a unused) sort before body pairs, a terrain
    // contact by (b, chunk y, z, x, sub), a pair by (a, b, sub).
    uint32_t a, b;         // body indices, a < b (a unused for terrain)
    uint32_t a_gen, b_gen; // generations at creation (ids in events)
    vxk_int3 chunk;        // terrain chunk
    uint32_t sub;          // index among the manifolds of one (body, chunk) or pair
    uint8_t terrain;       // 1: terrain contact
    uint8_t touching;
    uint8_t material; // terrain: the touched face's material
    uint8_t pad;
    vxk_vec3 normal;
    float friction, restitution;
    uint32_t point_count;
    // Friction is per manifold (solver_wide.h): the accumulated impulse at the friction centre
    // (world) and about the normal.
    vxk_vec3 friction_impulse;
    float twist_impulse;
    // Recycling (contacts.c, Box3D's contact recycling): what the manifold was collided at. B's
    // pose relative to A's (terrain: B's world pose), both rotations, the margin, the shapes'
    // serials and the terrain epoch. A step whose pair moved less than the recycling bounds since
    // then keeps the manifold (normal and anchors) and updates its separations instead of
    // colliding the shapes again.
    vxk_transform rel;
    vxk_quat q_a, q_b;
    float margin;
    uint32_t shape_a, shape_b, epoch;
    vxk_contact_point_state points[VXK_MANIFOLD_POINTS];
} vxk_contact;

// What the voxel bodies' terrain regions cost in a narrowphase (narrowphase.c): region tiles
// that met a body's cube or path, terrain chunks read, voxels typed (regions finished).
typedef struct vxk_region_work {
    uint64_t tiles, chunks, voxels;
} vxk_region_work;

// What one thread of the narrowphase works in: the voxel contacts' scratch and the storage of
// the terrain regions it gathers (grown by its thread alone, kept across steps), and what its
// regions cost in the last narrowphase.
typedef struct vxk_thread_scratch {
    vxk_voxel_contact_scratch voxel;
    void* region;
    size_t region_bytes;
    vxk_region_work work;
} vxk_thread_scratch;

// The manifolds one narrowphase piece wrote, in task order (kept across steps, grown).
typedef struct vxk_contact_piece {
    vxk_contact* items;
    uint32_t count, capacity;
    uint32_t recycled, carried; // manifolds kept from the last step (recycled, or asleep)
    uint32_t offset;            // where its manifolds go in the step's list (contacts.c)
} vxk_contact_piece;

#define VXK_SOLVER_BUNDLE_MANIFOLDS 64
#define VXK_SOLVER_LARGE_ISLAND 1024

typedef struct vxk_dynamics_settings {
    vxk_vec3 gravity;
    uint32_t substeps;
    float contact_hertz, contact_damping_ratio, contact_push_speed;
    float restitution_threshold, linear_slop;
    bool contact_recycling;
    // How the solver packs islands into jobs (solver.c; results do not depend on them, which
    // tests check by setting extremes): a bundle of small islands closes at this many manifolds,
    // and an island with more than large_island manifolds is spread over the workers by colour.
    uint32_t bundle_manifolds, large_island;
    bool enable_sleep;
    float sleep_threshold, time_to_sleep;
} vxk_dynamics_settings;

// The spawn stage's buffers for body splits (spawn.c; kept across steps, grown).
typedef struct vxk_spawn_scratch {
    vxk_split split;
    vxk_split_result result;
    uint64_t* rows;
    size_t row_bytes;
    vxk_int3* removed;
    uint32_t removed_capacity;
} vxk_spawn_scratch;

typedef struct vxk_dynamics {
    vxk_world* world;
    vxk_dynamics_settings settings;
    vxk_id_pool ids;
    vxk_body* bodies; // by id index
    uint32_t capacity;
    // Body pairs: an incremental tracker over the bodies' swept boxes (object id = position in
    // the step's live list, so a body created or destroyed remaps ids: bodies_changed resets it).
    vxk_bvh_tracker pairs;
    bool bodies_changed;
    // Contacts of the last step (sorted by pair key) and the buffer the next step fills.
    vxk_contact* contacts;
    uint32_t contact_count, contact_capacity;
    vxk_contact* next_contacts;
    uint32_t next_capacity;
    // The narrowphase pieces' outputs, concatenated in piece order into next_contacts.
    vxk_contact_piece* pieces;
    uint32_t piece_capacity;
    // Events of the last step.
    vxk_contact_event* begin_events;
    uint32_t begin_count, begin_capacity;
    vxk_contact_event* end_events;
    uint32_t end_count, end_capacity;
    // Per-thread narrowphase scratch, one per scheduler thread.
    vxk_thread_scratch* threads;
    uint32_t thread_capacity;
    vxk_spawn_scratch spawn;
    // Persistent per-step buffers (grown, never shrunk: a steady run stops allocating).
    void* scratch[8];
    size_t scratch_bytes[8];
} vxk_dynamics;

static inline vxk_dynamics* vxk_dynamics_get(const vxk_world* world)
{
    return (vxk_dynamics*)world->dynamics.self;
}

// The world box of a body's shape at its pose (body.c).
vxk_aabb vxk_body_compute_aabb(const vxk_body* body);
// A box of the compound (or the box shape) as an oriented box in world (body.c).
vxk_obb vxk_body_obb(const vxk_body* body, const vxk_mat3* rot, uint32_t box);

// Grows a persistent buffer of the dynamics to at least bytes (contents kept up to old bytes).
// VXK_ERR_OUT_OF_MEMORY leaves it as it was.
vxk_status vxk_dynamics_reserve(void** buffer, size_t* capacity_bytes, size_t bytes);

// ---- the dynamics stages of a step ---------------------------------------------------------
// vxk_world_step (step.c) runs them in order over one vxk_dynamics_frame: predict, candidates
// (candidates.c), narrowphase (narrowphase.c), islands, solve, sleep (solver.c), continuous
// (continuous.c) and events (contacts.c). Each fills the frame for the ones after it and its
// figures in the step's stats. A stage that fails with VXK_ERR_OUT_OF_MEMORY before the solve has
// moved nothing.

// The motion over a step (terrain voxels) past which a body is fast: its terrain chunks are
// those along its path (its box swept along the motion and grown by this many voxels more), not
// those of its box grown by its reach on every side (candidates.c, continuous.c), and a voxel
// body's terrain region covers only what its contacts reach (narrowphase.c).
#define VXK_FAST_MOTION_VOXELS 8
// Manifolds a narrowphase task may produce (one per normal cluster).
#define VXK_TASK_MANIFOLDS 4
// Tasks per narrowphase piece.
#define VXK_NARROW_GRAIN 16
// A manifold whose touching is not yet decided this step (the solver decides it for those it
// solves; vxk_contact.touching is 0 or 1 once the step ends).
#define VXK_TOUCHING_UNKNOWN 2
// Normals within this cosine share a manifold.
#define VXK_CLUSTER_COS 0.999f

// One narrowphase task: a body against the terrain, or a pair of bodies. Tasks are numbered in
// key order before they run (terrain tasks by body index, pairs by (a, b)).
typedef struct vxk_narrow_task {
    uint32_t a, b;               // pair: body indices; terrain: a = UINT32_MAX, b the body
    uint32_t hit_begin, hit_end; // terrain: the body's chunks in the broadphase hits
    float margin;
    uint32_t prev_begin, prev_end; // the pair's contacts of the last step (the cache), or empty
    uint32_t
        carry; // nothing of it moves (sleeping bodies): its last manifolds are kept as they are
} vxk_narrow_task;

struct vxk_solve_state; // solver.c

// What the dynamics stages of one step share (arena memory or the dynamics' persistent buffers).
typedef struct vxk_dynamics_frame {
    float dt;
    vxk_arena* arena;
    uint32_t cap; // body slots (ids.count) at the step's start
    // predict: live bodies in index order, the awake dynamic ones and the sleeping dynamic ones;
    // per body index its velocity after this step's gravity and forces, the reach of its surface
    // by rotation and the whole reach of its motion; the live bodies' boxes grown by their reach
    // (by position in live) and the awake dynamic bodies' (by position in dynamic).
    uint32_t *live, *dynamic, *asleep;
    uint32_t live_count, dynamic_count, asleep_count;
    vxk_vec3* vel;
    float *spin, *reach;
    vxk_aabb *fat, *dyn_boxes;
    // candidates: the terrain chunks near each awake dynamic body (hits[offsets[d] ..
    // offsets[d + 1])) and the narrowphase tasks in key order.
    const vxk_broadphase_hit* hits;
    uint32_t* offsets;
    vxk_narrow_task* tasks;
    uint32_t task_count;
    // narrowphase: the step's manifolds in key order; then the bodies that move this step (body
    // indices, ascending).
    vxk_contact* now;
    uint32_t now_count;
    uint32_t* moving;
    uint32_t moving_count;
    // islands and solve (solver.c); the poses at the solve's start, by body index (continuous).
    struct vxk_solve_state* solve;
    vxk_transform* start;
} vxk_dynamics_frame;

// The published body edits and debris of the edit system become bodies and body grids (spawn.c,
// spawn.h), in batch order; what came of each is written into the list.
void vxk_dynamics_spawn(vxk_dynamics* dyn, vxk_spawn_list* list);
// Places a live body the spawn made (body.c): its pose where its voxels were, without the
// position range (a part of the terrain's last voxels, or of a body that moved out of the range,
// lies where it lies), its velocities clamped to the maximum speeds (a part far from a spinning
// body's centre); static bodies keep zero velocities. Wakes it.
void vxk_dynamics_place(vxk_world* world, vxk_body_id id, vxk_transform pose, vxk_vec3 v,
                        vxk_vec3 w);
void vxk_spawn_scratch_free(vxk_spawn_scratch* scratch); // freed and made empty
uint64_t vxk_spawn_scratch_bytes(const vxk_spawn_scratch* scratch);

// Bodies: their boxes at their poses, the motion the margins must cover, the candidate boxes.
vxk_status vxk_dynamics_predict(vxk_dynamics* dyn, vxk_dynamics_frame* f);
// Pairs from the body BVH, terrain chunks from the bit broadphase, the tasks in key order and
// each task's contacts of the last step.
vxk_status vxk_dynamics_candidates(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                                   vxk_world_step_stats* stats);
// Manifolds of every task as jobs, warm started, in key order; the sleeping bodies a moving one
// touches woken; the moving bodies listed.
vxk_status vxk_dynamics_narrowphase(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                                    vxk_world_step_stats* stats);
// What the voxel bodies' terrain regions cost in the last narrowphase, over all threads (what
// tests bound: it grows with a body's path, not with the cube of its speed).
void vxk_dynamics_region_work(const vxk_dynamics* dyn, vxk_region_work* out);
// Islands of the moving dynamic bodies over the manifolds, packed into the solver's bundles.
vxk_status vxk_dynamics_islands(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                                vxk_world_step_stats* stats);
// The soft-step solve of the bundles (velocities, positions, impulses), kinematic bodies moved.
vxk_status vxk_dynamics_solve(vxk_dynamics* dyn, vxk_dynamics_frame* f);
// The islands that came to rest fall asleep (before the continuous stage: they are not swept).
void vxk_dynamics_sleep_islands(vxk_dynamics* dyn, vxk_dynamics_frame* f);
// Contact begin/end events; the step's manifolds become the persistent ones; forces cleared.
// VXK_ERR_OUT_OF_MEMORY: events are missing, the motion is kept.
vxk_status vxk_dynamics_events(vxk_dynamics* dyn, vxk_dynamics_frame* f,
                               vxk_world_step_stats* stats);

// Whether a body moves this step and wakes the sleeping bodies it touches: an awake dynamic body,
// or an awake kinematic one with a velocity.
static inline bool vxk_body_active(const vxk_body* b)
{
    if (!b->awake || b->type == VXK_BODY_STATIC)
        return false;
    return b->type == VXK_BODY_DYNAMIC || vxk_v3_length_sq(b->v) > 0.0f ||
           vxk_v3_length_sq(b->w) > 0.0f;
}

// Contact persistence (contacts.c). Group order: terrain contacts first, by body; then pairs by
// (a, b).
int vxk_contact_group_compare(const vxk_contact* x, const vxk_contact* y);
// Carries the accumulated impulses of matching points from the previous step's group prev[pb,
// pe) to now[nb, ne).
void vxk_contact_warm_start(vxk_contact* now, uint32_t nb, uint32_t ne, const vxk_contact* prev,
                            uint32_t pb, uint32_t pe);

#endif
