// vxk/world.h: the world object, its material table, its voxel terrain, the step, and what the
// world reports of its bodies (made and moved through vxk/body.h): the live ids, the contacts of
// the last step and their begin/end events, the world hash.
//
// Terrain is a sparse, unbounded grid of 8x8x8-voxel chunks in an open-addressing hash map keyed
// by int32 chunk coordinates. A chunk is uniform (one material, no payload) or mixed (512 bytes,
// index x + 8*z + 64*y). An all-air chunk has no entry. Each chunk keeps occupancy bits for solid
// and water (bit x + 8*z of slice y), maintained on every write, so derived data reads bits.
//
// Thread-safety: functions that write terrain (fill, load) must not run concurrently with any
// other call on the same world. Read functions (the body, contact and event getters included) may
// run concurrently with each other.
#ifndef VXK_WORLD_H
#define VXK_WORLD_H

#include <vxk/base.h>
#include <vxk/id.h>
#include <vxk/jobs.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- Limits ----------------------------------------------------------------------------------
//
// The ranges of what the dynamics take (docs/api.md, "Limits"). A call given a finite value
// outside its range refuses it with VXK_ERR_OUT_OF_RANGE and changes nothing (NaN and infinity
// stay VXK_ERR_NOT_FINITE), and the step clamps the speeds it makes to the maxima, so no sequence
// of calls that each returned VXK_OK makes a later vxk_world_step fail on a value, and after every
// VXK_OK each body's pose and velocities are finite. Magnitudes are Euclidean lengths.
#define VXK_MIN_SIZE \
    1e-3f                 // m: the least voxel size (world, body), radius, half height, half extent
#define VXK_MAX_SIZE 1e3f // m: the largest
#define VXK_MAX_LINEAR_SPEED 1000.0f  // m/s: a body's speed
#define VXK_MAX_ANGULAR_SPEED 1000.0f // rad/s: a body's spin
// A position (a body's, a point of a force or impulse) divided by the world's voxel size lies in
// [-VXK_POSITION_VOXELS, VXK_POSITION_VOXELS] on each axis: the terrain's int32 voxel range, the
// end of its last voxel included (a body may sit on the last voxel).
#define VXK_POSITION_VOXELS 2147483648.0f
#define VXK_MAX_GRAVITY 100.0f      // m/s^2: a world's gravity
#define VXK_MAX_GRAVITY_SCALE 10.0f // a body's |gravity_scale|
#define VXK_MAX_DAMPING 1000.0f     // 1/s: a body's linear and angular damping
#define VXK_MAX_FORCE 1e20f         // N, N s: a force, an impulse
#define VXK_MAX_TORQUE 1e20f        // N m, N m s: a torque, an angular impulse
#define VXK_MIN_DT 1e-6f            // s: the shortest step that moves bodies (dt 0 moves none)
#define VXK_MAX_DT 1.0f             // s: the longest step
#define VXK_MIN_DENSITY 1e-3f       // kg/m^3: a material's least nonzero density
#define VXK_MAX_DENSITY 1e5f        // kg/m^3
#define VXK_MAX_FRICTION 100.0f     // a material's or a body's friction coefficient

// ---- Materials -------------------------------------------------------------------------------

typedef enum vxk_material_kind {
    VXK_MATERIAL_AIR = 0,
    VXK_MATERIAL_SOLID = 1,
    VXK_MATERIAL_WATER = 2,
} vxk_material_kind;

typedef struct vxk_material {
    uint8_t kind;      // vxk_material_kind
    uint8_t defined;   // 1 if the id may be used
    uint8_t color[3];  // sRGB, for export and .vox mapping
    uint8_t anchored;  // 0 or 1: terrain voxels of it hold up what touches them (connectivity
                       // splitting, vxk/edit.h); default 1 for bedrock only
    float density;     // kg/m^3: 0 (no mass) or VXK_MIN_DENSITY..VXK_MAX_DENSITY
    float friction;    // Coulomb coefficient, 0..VXK_MAX_FRICTION
    float restitution; // 0..1
    char name[24];
} vxk_material;

#define VXK_MATERIAL_COUNT 256
// Default ids in vxk_default_material_table().
enum {
    VXK_MAT_AIR = 0,
    VXK_MAT_BEDROCK = 1,
    VXK_MAT_STONE = 2,
    VXK_MAT_DIRT = 3,
    VXK_MAT_GRASS = 4,
    VXK_MAT_SAND = 5,
    VXK_MAT_GRAVEL = 6,
    VXK_MAT_CLAY = 7,
    VXK_MAT_ICE = 8,
    VXK_MAT_WOOD = 9,
    VXK_MAT_METAL = 10,
    VXK_MAT_WATER = 11,
    VXK_MAT_DEFAULT_COUNT = 12
};

typedef struct vxk_material_table {
    vxk_material materials[VXK_MATERIAL_COUNT];
} vxk_material_table;

// The default table: ids above, every other id undefined (id 0 is always air).
void vxk_default_material_table(vxk_material_table* table);
// Checks a table: id 0 is air, density 0 or in [VXK_MIN_DENSITY, VXK_MAX_DENSITY], friction in
// [0, VXK_MAX_FRICTION], restitution in [0,1]. Also: no defined id other than 0 has kind air,
// names are NUL-terminated. Returns VXK_OK, or VXK_ERR_INVALID_ARGUMENT (NULL);
// VXK_ERR_BAD_MATERIAL (id 0 not a defined air material, a defined flag other than 0 and 1, a
// kind past water, kind air on another id); VXK_ERR_NOT_FINITE (a NaN or infinite density,
// friction or restitution); VXK_ERR_OUT_OF_RANGE (a density, friction or restitution outside its
// range); VXK_ERR_MALFORMED (a name without its NUL). Ids are checked in order; the first entry
// that breaks a rule decides.
vxk_status vxk_material_table_validate(const vxk_material_table* table);

// ---- World -----------------------------------------------------------------------------------

typedef struct vxk_world vxk_world;

typedef struct vxk_world_def {
    uint32_t cookie;                     // set by vxk_default_world_def
    float voxel_size;                    // metres per voxel edge, VXK_MIN_SIZE..VXK_MAX_SIZE
                                         // (default 1)
    const vxk_material_table* materials; // copied; NULL = vxk_default_material_table
    vxk_jobs* jobs;                      // NULL = run everything inline on the caller
    size_t narrow_cache_bytes;           // budget of the lazy mesh/kD cache (default 64 MiB)
    // Dynamics (vxk/body.h). The solver is Box2D v3's soft step: each step runs `substeps`
    // substeps of velocity integration, a soft contact solve, position integration and a relax
    // solve, then restitution.
    vxk_vec3 gravity;            // m/s^2, |gravity| <= VXK_MAX_GRAVITY (default 0, -9.81, 0)
    uint32_t substeps;           // 1..64 (default 4)
    float contact_hertz;         // contact stiffness, 0..1e4 Hz (default 30; capped at a quarter
                                 // of the substep rate)
    float contact_damping_ratio; // 0..1000 (default 10)
    // The most speed at which one contact pushes an overlap apart within a substep,
    // 0..VXK_MAX_LINEAR_SPEED (default 3 m/s). The push moves the bodies and the relax pass takes
    // the velocity back, so two overlapping bodies part with little speed (under 0.5 m/s for
    // boxes); a body in many overlapping contacts at once keeps some of each: 10 boxes created at
    // one point leave at up to about 8 m/s, 100 at up to about 55 m/s (docs/api.md, "Overlap").
    float contact_push_speed;
    float restitution_threshold; // closing speeds below it do not bounce, 0..VXK_MAX_LINEAR_SPEED
                                 // (default 1 m/s)
    float linear_slop;           // overlap allowed at rest and the speculative base, 0..1 m
                                 // (default 0.005 m)
    bool contact_recycling;      // Box3D's contact recycling: a pair whose relative pose moved
                                 // less than 10 slops (5 cm by default; 4 slops if it was not
                                 // touching), neither body turning more than 10 degrees, keeps
                                 // its manifolds (normal and lever arms) and only measures their
                                 // separations anew. Faster, and what lets tall stacks stand.
                                 // (default true; false collides every pair every step)
    // Sleeping: an island whose bodies all move slower than sleep_threshold (m/s: speed plus spin
    // times the bounding radius) for time_to_sleep seconds falls asleep as one (vxk/body.h).
    bool enable_sleep;     // default true
    float sleep_threshold; // 0..VXK_MAX_LINEAR_SPEED (default 0.05 m/s)
    float time_to_sleep;   // >= 0 (default 0.5 s)
} vxk_world_def;

vxk_world_def vxk_default_world_def(void);
// Creates an empty world. Errors (*out untouched): NULL def or out -> VXK_ERR_INVALID_ARGUMENT;
// a def not made by vxk_default_world_def -> VXK_ERR_BAD_DEF; a NaN/Inf voxel size ->
// VXK_ERR_NOT_FINITE; a voxel size outside [VXK_MIN_SIZE, VXK_MAX_SIZE] -> VXK_ERR_OUT_OF_RANGE;
// NaN or infinity in a dynamics field -> VXK_ERR_NOT_FINITE; substeps outside 1..64, a gravity,
// hertz, damping ratio, push speed, threshold, slop or time to sleep outside the range its field
// gives -> VXK_ERR_OUT_OF_RANGE; a material table that fails validation -> the errors of
// vxk_material_table_validate; VXK_ERR_OUT_OF_MEMORY.
vxk_status vxk_world_create(const vxk_world_def* def, vxk_world** out);
void vxk_world_destroy(vxk_world* world);

float vxk_world_voxel_size(const vxk_world* world);
const vxk_material_table* vxk_world_materials(const vxk_world* world);
vxk_jobs* vxk_world_jobs(const vxk_world* world); // never NULL (an inline scheduler if none given)

// Voxel coordinates are int32; chunk coordinates are voxel >> 3 (floor). The int32 range is the
// world's one coordinate range: terrain writes outside it cannot be asked for, and rays
// (vxk/raycast.h) start inside it, are followed to its edge and can hit any voxel of it.

// Boxes of voxels are vxk_int_box (vxk/base.h): inclusive min and max, so any box of the int32
// range, the whole range included, can be named; a box with max < min on some axis is refused
// (VXK_ERR_INVALID_ARGUMENT).

// Reads one voxel's material id (0 = air). Never fails.
uint8_t vxk_world_get_voxel(const vxk_world* world, vxk_int3 voxel);

// Reads the material ids of a box into out, dense: with d = max - min + 1 on each axis, out holds
// d.x*d.y*d.z bytes and voxel v is at (v.x - min.x) + d.x*((v.z - min.z) + d.z*(v.y - min.y)).
// Errors (out untouched): NULL world or out, an inverted box -> VXK_ERR_INVALID_ARGUMENT; a byte
// count that overflows size_t -> VXK_ERR_OUT_OF_RANGE. Cost: one map lookup per chunk touched.
vxk_status vxk_world_read_box(const vxk_world* world, uint8_t* out, vxk_int_box box);

// Fills a box with one material. Bulk path: whole chunks become uniform without a payload,
// chunks that become all air are removed, mixed chunks that become uniform are collapsed.
// Errors (nothing changed): NULL world or an inverted box -> VXK_ERR_INVALID_ARGUMENT; an
// undefined material -> VXK_ERR_BAD_MATERIAL; a fill whose chunks cannot be stored (allocation
// failure, or more than 2^30 chunks) -> VXK_ERR_OUT_OF_MEMORY; while the edit system is enabled
// (vxk/edit.h: its thread is the only writer) -> VXK_ERR_UNSUPPORTED. A failed call may keep
// storage it grew (released with the world).
vxk_status vxk_world_fill_box(vxk_world* world, vxk_int_box box, uint8_t material);

// Writes a dense box of material ids (the layout of vxk_world_read_box); id 0 writes air. (The
// loaders' path.) Errors (nothing changed): NULL world or ids, an inverted box ->
// VXK_ERR_INVALID_ARGUMENT; a byte count that overflows size_t -> VXK_ERR_OUT_OF_RANGE; an
// undefined id anywhere in the buffer -> VXK_ERR_BAD_MATERIAL (every id is checked before
// anything is written); VXK_ERR_OUT_OF_MEMORY and VXK_ERR_UNSUPPORTED as for vxk_world_fill_box.
vxk_status vxk_world_write_box(vxk_world* world, vxk_int_box box, const uint8_t* ids);

// Chunk iteration in a deterministic order: sorted by (cy, cz, cx). info is valid during the call.
typedef struct vxk_chunk_info {
    vxk_int3 coord;           // chunk coordinate
    uint8_t uniform_material; // the material if uniform, else 0
    uint8_t is_mixed;
    uint32_t version;      // bumped on every write to the chunk (a write call that changes
                           // a chunk gives it a new, larger value; no-op writes keep it)
    const uint8_t* voxels; // 512 bytes if mixed, else NULL
} vxk_chunk_info;
typedef void vxk_chunk_visit_fn(void* ctx, const vxk_chunk_info* info);
void vxk_world_for_each_chunk(const vxk_world* world, vxk_chunk_visit_fn* fn, void* ctx);

typedef struct vxk_world_memory_stats {
    uint64_t chunk_count; // chunks with an entry
    uint64_t uniform_chunks;
    uint64_t mixed_chunks;
    uint64_t map_bytes;           // hash map slots
    uint64_t chunk_entry_bytes;   // chunk entry pool (32 bytes + a free-list index per entry)
    uint64_t voxel_bytes;         // mixed payloads
    uint64_t occupancy_bytes;     // per-chunk solid/water bits
    uint64_t terrain_other_bytes; // sorted chunk view, dirty list, bookkeeping
    uint64_t broadphase_entries;  // chunks with broadphase data
    uint64_t broadphase_full;     // of which tagged full (no mask)
    uint64_t broadphase_bytes;    // masks and their map
    uint64_t narrow_bytes;        // lazy mesh/kD cache in use
    uint64_t step_bytes;          // the step's arena (one step's working memory, kept)
    uint64_t body_count;          // live bodies (vxk/body.h)
    uint64_t body_bytes;          // body array, ids, voxel shapes, the body BVH
    uint64_t contact_bytes;       // contacts, events and the dynamics' per-step buffers (kept)
    uint64_t total_bytes;         // everything the world holds
} vxk_world_memory_stats;
// Fills *out with what the world holds now (zeros for a NULL world; nothing for a NULL out).
void vxk_world_get_memory_stats(const vxk_world* world, vxk_world_memory_stats* out);

// Digest of the terrain (chunk coordinates, materials, payloads) in chunk order: identical
// worlds give identical hashes.
uint64_t vxk_world_terrain_hash(const vxk_world* world);

// ---- the step ------------------------------------------------------------------------------

// The stages of vxk_world_step, in order (docs/architecture.md, "One step").
typedef enum vxk_step_stage {
    VXK_STEP_PUBLISH = 0,     // the edit system's batches installed (vxk/edit.h): terrain chunk
                              // versions by reference, the lists of bodies to spawn and edit
    VXK_STEP_SPAWN = 1,       // the published body edits applied and split, terrain debris made
                              // into bodies, the edits' outcomes final
    VXK_STEP_MASKS = 2,       // the chunks written since the last step, taken once, and the
                              // broadphase masks of them and their neighbours (jobs)
    VXK_STEP_CACHES = 3,      // narrowphase cache entries those writes made stale, dropped; the
                              // sleeping bodies near them woken
    VXK_STEP_PREDICT = 4,     // each body's box at its pose and the motion of the step to come
                              // (velocity after gravity and forces, reach of its spin)
    VXK_STEP_CANDIDATES = 5,  // the body BVH's pairs over the swept boxes (jobs) and the terrain
                              // chunks near each dynamic body (bit broadphase, jobs)
    VXK_STEP_NARROWPHASE = 6, // contact manifolds of every candidate (jobs), warm started
    VXK_STEP_ISLANDS = 7,     // islands of the moving dynamic bodies, packed for the solver
    VXK_STEP_SOLVE = 8,       // the soft step: substeps of velocity integration, contact solve,
                              // position integration and relax; restitution (jobs)
    VXK_STEP_SLEEP = 9,       // the islands that came to rest fall asleep
    VXK_STEP_CONTINUOUS = 10, // fast bodies swept to their first time of impact against the
                              // terrain and static bodies (jobs)
    VXK_STEP_EVENTS = 11,     // contact begin/end events; the contacts kept for the next step
    VXK_STEP_STAGE_COUNT
} vxk_step_stage;

// The stage's name ("publish", "masks", ..., "events"); "unknown" past VXK_STEP_STAGE_COUNT.
const char* vxk_step_stage_name(vxk_step_stage stage);

typedef struct vxk_world_step_stats {
    uint64_t steps;                             // steps run so far
    uint32_t dirty_chunks;                      // chunks the last step handed to its stages
    uint32_t near_chunks;                       // the written chunks and their neighbours
    uint64_t cache_entries_dropped;             // by the last step
    uint64_t arena_bytes;                       // the step arena's use in the last step
    uint32_t body_pairs;                        // body pairs whose swept boxes overlap
    uint32_t terrain_tasks;                     // (dynamic body, terrain chunk) candidates
    uint32_t contacts;                          // manifolds of the last step
    uint32_t islands;                           // islands of awake dynamic bodies solved
    uint32_t awake_bodies;                      // dynamic bodies awake after the last step
    uint32_t sleeping_bodies;                   // dynamic bodies asleep after the last step
    uint32_t recycled_manifolds;                // manifolds recycled from the step before
    uint32_t carried_manifolds;                 // manifolds of sleeping bodies, kept as they were
    double stage_seconds[VXK_STEP_STAGE_COUNT]; // of the last step
    double total_seconds;                       // of the last step
} vxk_world_step_stats;

// Advances the world by dt seconds: first publishes the edits of the edit system (vxk/edit.h:
// exactly those submitted before the previous step began), then takes the chunks written since
// the last step once and hands
// them to every stage that derives data from terrain (masks, caches; the broadphase is built in
// full on the first step if it never was), then moves the bodies (vxk/body.h): candidates,
// narrowphase, the soft-step solve and events. dt 0 only brings derived data up to date; a dt
// that moves bodies lies in [VXK_MIN_DT, VXK_MAX_DT].
// Clamps (the Limits above): where the step begins (the predict stage) and where it ends (the
// events stage) a body's velocity longer than VXK_MAX_LINEAR_SPEED is scaled to it, and its
// angular velocity to VXK_MAX_ANGULAR_SPEED; a body's accumulated force is scaled down so that it
// changes the velocity by at most 2 VXK_MAX_LINEAR_SPEED over the step, its torque likewise by at
// most 2 VXK_MAX_ANGULAR_SPEED. A body whose motion comes out of the solve not finite (a float
// overflow in a contact of extreme lever arms, aspect or mass ratios) is put back at its pose of
// the step's start, at rest, and its contacts start the next step cold. A body may leave the
// position range by its motion (it meets no terrain there; vxk_body_set_transform brings it
// back).
// Errors (nothing changed; the written chunks stay listed for the next step): NULL world ->
// VXK_ERR_INVALID_ARGUMENT; a NaN or infinite dt -> VXK_ERR_NOT_FINITE; dt < 0, 0 < dt <
// VXK_MIN_DT or dt > VXK_MAX_DT -> VXK_ERR_OUT_OF_RANGE; VXK_ERR_OUT_OF_MEMORY (before the
// solve: nothing moved; when only the events could not be recorded: the motion is kept and events
// are missing). An error after the publish leaves the publish done. No other error: bodies and
// settings that their calls accepted never make a step fail.
// Thread-safety: a terrain write (no other call on the world meanwhile, but vxk/edit.h's calls,
// which may run alongside a step). Cost: the stages'.
vxk_status vxk_world_step(vxk_world* world, float dt);

// Fills *out with the figures of the steps so far (zeros before the first). Nothing happens for a
// NULL world or out.
void vxk_world_get_step_stats(const vxk_world* world, vxk_world_step_stats* out);

// ---- bodies, contacts and events ----------------------------------------------------------------
//
// The world's bodies as a whole; vxk/body.h makes, moves and reads them one by one. The lists
// fill a caller's buffer: they write up to capacity items to out (out may be NULL when capacity
// is 0) and return how many there are, so a call with capacity 0 sizes the buffer. Getters, as
// vxk/body.h's: they may run concurrently with each other and with world reads.
//
// A contact is a pair of shapes whose boxes, swept by their motion over the step and grown by
// the speculative margin, overlap: two bodies (a, b with a the lower id index), or a body and a
// terrain chunk (a null, b the body). Its manifold holds up to 4 points with one normal from a to
// b (from the terrain up into the body). Points include speculative ones (separation > 0).
// A contact touches when some point's separation at the step's start is below the world's
// linear slop, or when the solve pushed at some point (a fast body stopped by a speculative point
// touches in the step it meets the surface).

// The live bodies' ids, in id index order; returns the number of live bodies.
uint32_t vxk_world_get_bodies(const vxk_world* world, vxk_body_id* out, uint32_t capacity);
// The number of live bodies (0 for a NULL world).
uint32_t vxk_world_body_count(const vxk_world* world);

typedef struct vxk_contact_point {
    vxk_vec3 point;       // world, on the surface of a
    float separation;     // along the normal; negative = overlap
    float normal_impulse; // accumulated in the last step (N s)
    uint32_t feature;     // stable while the same features touch (warm starting)
} vxk_contact_point;

typedef struct vxk_contact_data {
    vxk_body_id a, b; // a null: terrain
    vxk_int3 chunk;   // the terrain chunk of the deepest point when a is null
    vxk_vec3 normal;  // unit, from a to b
    float friction, restitution;
    uint32_t point_count;
    // Friction acts on the manifold as a whole: one impulse in the contact plane at the friction
    // centre (the points' centre, weighted towards the touching ones) and one about the normal,
    // accumulated in the last step (world; N s and N m s).
    vxk_vec3 friction_impulse;
    float twist_impulse;
    vxk_contact_point points[4];
} vxk_contact_data;

// The contacts of the last step in pair-key order (terrain contacts first, by body, then body
// pairs by (a, b)); returns how many there are. A body may have several manifolds with the
// terrain or with another body, one per distinct normal (at most 4); a terrain manifold gathers
// the faces of every chunk the body touches (chunk: that of its deepest point). Ids in them may
// name bodies destroyed since the step.
uint32_t vxk_world_get_contacts(const vxk_world* world, vxk_contact_data* out, uint32_t capacity);

// Begin: a contact touches now and did not at the previous step. End: it touched at the previous
// step and does not now (or a body of it was destroyed).
typedef struct vxk_contact_event {
    vxk_body_id a, b;     // a null: terrain
    vxk_int3 chunk;       // the terrain chunk when a is null
    vxk_vec3 point;       // begin: the deepest point; end: the last one
    vxk_vec3 normal;      // from a to b
    float normal_impulse; // begin: total normal impulse of the step; end: of the last step touched
    float approach_speed; // begin: closing speed along the normal before the solve (m/s, >= 0)
} vxk_contact_event;

// The begin events of the last step, in pair-key order; returns how many there are.
uint32_t vxk_world_get_contact_begin_events(const vxk_world* world, vxk_contact_event* out,
                                            uint32_t capacity);
// The end events of the last step, in pair-key order; returns how many there are.
uint32_t vxk_world_get_contact_end_events(const vxk_world* world, vxk_contact_event* out,
                                          uint32_t capacity);

// Digest of every body (id, type, shape, pose, velocities, awake bit, bit for bit) and of the
// terrain (vxk_world_terrain_hash): identical worlds stepped identically give identical hashes.
// An id enters as its index and its generation without the world's salt (vxk/id.h), so two
// worlds built alike hash alike though their ids differ.
uint64_t vxk_world_hash(const vxk_world* world);

#ifdef __cplusplus
}
#endif
#endif
