// peer_bullet_step.h: the step benchmark's shared declarations. Bullet's rigid-body world
// (btDiscreteDynamicsWorld + btDbvtBroadphase + btSequentialImpulseConstraintSolver, the setup of
// the Roblox terrain-physics article's prototype) behind a C interface, built only when Bullet is
// found (VXK_HAVE_BULLET); and the scene runner of perf/phase_step.c that perf/bench_step.c calls
// (always built).
#ifndef VXK_PEER_BULLET_STEP_H
#define VXK_PEER_BULLET_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include <vxk/base.h>
#include <vxk/jobs.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- the Bullet peer (peer_bullet_step.cpp) ------------------------------------------------

typedef struct vxk_bullet_step_world vxk_bullet_step_world;

// An empty world with that gravity. sleeping = 0 keeps every body awake for ever
// (DISABLE_DEACTIVATION); 1 is Bullet's default (bodies at rest for 2 s deactivate). NULL on
// failure.
vxk_bullet_step_world* vxk_bullet_step_create(vxk_vec3 gravity, int sleeping);
void vxk_bullet_step_destroy(vxk_bullet_step_world* world);

// A static btBvhTriangleMeshShape (quantized BVH) over float xyz vertices and uint32 triangle
// indices, which the world copies, as a static rigid body (mass 0). Returns 0 on success.
int vxk_bullet_step_add_mesh(vxk_bullet_step_world* world, const float* vertices,
                             uint32_t vertex_count, const uint32_t* indices,
                             uint32_t triangle_count, float friction, float restitution);
// A static btBoxShape centred at centre. Returns 0 on success.
int vxk_bullet_step_add_ground_box(vxk_bullet_step_world* world, vxk_vec3 centre,
                                   vxk_vec3 half_extents, float friction, float restitution);

enum { VXK_BULLET_STEP_SPHERE = 0, VXK_BULLET_STEP_BOX = 1, VXK_BULLET_STEP_CAPSULE = 2 };
// A dynamic body: a sphere of radius size.x, a box of half extents size, or a capsule of radius
// size.x and half height size.y along its y axis (btCapsuleShape) (one shape object is
// shared by all bodies of the same shape and size), inertia from btCollisionShape's
// calculateLocalInertia. Bodies are numbered 0, 1, ... in the order of creation. Returns 0 on
// success.
int vxk_bullet_step_add_body(vxk_bullet_step_world* world, int shape, vxk_vec3 size, float mass,
                             vxk_transform pose, float friction, float restitution);

// A dynamic compound of boxes, as Voxtric builds voxel bodies in Bullet (seed 004): a
// btCompoundShape of one btBoxShape per box, box i centred at centres[i] with half extents
// halves[i] in the given body frame and of mass masses[i] (uniform). Bullet's body frame is the
// compound's principal frame (the boxes' centre of mass and principal axes of inertia,
// btCompoundShape::calculatePrincipalAxisTransform), placed so that the given frame is at pose;
// vxk_bullet_step_get_pose then reports that principal frame. A child's collision margin is
// Bullet's default 0.04, or a fifth of its smallest half extent when that is less (small voxels).
// Bodies of either kind share one numbering. Returns 0 on success.
int vxk_bullet_step_add_compound(vxk_bullet_step_world* world, const vxk_vec3* centres,
                                 const vxk_vec3* halves, const float* masses, uint32_t count,
                                 vxk_transform pose, float friction, float restitution);

// The narrowphase alone, over the bodies at their current poses: the broadphase is brought up to
// date (btCollisionWorld::updateAabbs, computeOverlappingPairs; not timed), then the pairs are
// dispatched to their collision algorithms (btCollisionDispatcher::dispatchAllCollisionPairs:
// compound-compound pairs walk both children trees and collide the box pairs that overlap,
// refreshing persistent manifolds) once untimed, then `repeats` times timed; nothing moves.
// Bullet's pair cache holds the pairs whose boxes grown by its contact breaking threshold and
// its broadphase margin overlap; only those whose shapes' boxes themselves overlap are collided
// (a near callback tests the two boxes, then runs Bullet's default one), the pairs a comparison
// over "boxes that overlap" asks for. Writes the median seconds of one dispatch, the cached and
// the collided pairs, and the manifolds and contact points after the last. Returns 0 on success.
typedef struct vxk_bullet_narrowphase {
    double median_s;
    uint32_t cached_pairs, pairs, manifolds, points;
} vxk_bullet_narrowphase;
int vxk_bullet_step_time_narrowphase(vxk_bullet_step_world* world, uint32_t repeats,
                                     vxk_bullet_narrowphase* out);

// stepSimulation(dt, 0): one internal step of exactly dt.
void vxk_bullet_step_step(vxk_bullet_step_world* world, float dt);

// Bullet recomputes every collision object's world box at every step by default
// (btCollisionWorld::setForceUpdateAllAabbs(true)), static ones included: with the tens of
// thousands of terrain meshes of a large world that is most of its step. This turns it off, so only
// active objects' boxes are updated (static ones never move): Bullet's own setting for
// static-heavy worlds, used by the physics stress run (bench_step keeps the default).
void vxk_bullet_step_update_active_boxes_only(vxk_bullet_step_world* world);

// The bodies added so far; sets body i's linear and angular velocity (world frame).
uint32_t vxk_bullet_step_body_count(const vxk_bullet_step_world* world);
void vxk_bullet_step_set_velocity(vxk_bullet_step_world* world, uint32_t i, vxk_vec3 linear,
                                  vxk_vec3 angular);

// The pose of body i (its centre of mass: the shapes are centred) and whether it is active.
void vxk_bullet_step_get_pose(const vxk_bullet_step_world* world, uint32_t i, vxk_transform* out);
int vxk_bullet_step_is_awake(const vxk_bullet_step_world* world, uint32_t i);

// Contact manifolds and contact points of the last step (the dispatcher's manifolds).
void vxk_bullet_step_contacts(const vxk_bullet_step_world* world, uint32_t* manifolds,
                              uint32_t* points);

// ---- the scene runner (phase_step.c) -------------------------------------------------------

struct vxk_bench;

typedef struct vxk_step_options {
    const char* scene;   // "drop", "pyramid" or "large_pyramid"
    uint32_t bodies;     // drop: the number of bodies (0: 1,000)
    uint32_t steps;      // steps measured (0: 600)
    vxk_jobs* jobs;      // the scheduler of the threaded run of ours (NULL or 1 worker: none)
    uint64_t seed;       // the drop scene's terrain and bodies
    bool bullet;         // run Bullet (when built with it)
    bool bullet_nosleep; // and again with deactivation off (bullet_nosleep_ms)
    bool ours;           // run vxk
    bool progress;       // progress lines (vxk_bench_progress)
    const char* prefix;  // put before every figure key (NULL: none)
} vxk_step_options;

// Builds the scene, steps it on each engine (ours on one thread, then on o->jobs when it has
// more than one worker, and Bullet), adds its figures and phases to b and writes the final
// vxk_world_hash of ours (of the threaded run when there is one) to *ours_hash. Returns false when
// a side failed (a message on stderr).
bool vxk_step_scene_run(struct vxk_bench* b, const vxk_step_options* o, uint64_t* ours_hash);

#ifdef __cplusplus
}
#endif
#endif
