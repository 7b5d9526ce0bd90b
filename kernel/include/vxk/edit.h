// vxk/edit.h: voxel edits from any thread, applied by one writer, published by the step.
//
// Any thread submits edits (set a voxel, fill a box, fill or carve a sphere, paint) on the terrain
// or on a voxel body; each gets a ticket. One writer (a thread the world owns, or whatever thread
// the embedder drives it from) is the only writer of voxel data while the edit system is enabled.
// It applies edits in ticket order into copy-on-write chunk versions that no step reads, and keeps
// applying while steps run. vxk_world_step publishes, at its start, exactly the edits submitted
// before the previous step began: one step of latency, fixed by tickets, never by how far the
// writer got (the step waits for the writer when it is behind, and counts the stall). The same
// submissions between the same steps therefore give the same simulation on any machine, with any
// worker count, with or without the writer's thread.
//
// Tickets and outcomes. vxk_edit_submit returns a ticket: 1, 2, 3, ... per world, in the order
// edits enter the queue, which is the order they are applied in (so each producer's edits apply
// in its own order). Every ticket ends in exactly one outcome: applied, or rejected with the
// status that says why (the edit then changed nothing). Outcomes are final from the step that
// publishes them and stay readable for the last `outcome_capacity` tickets.
//
// Coordinates. Terrain edits use voxel coordinates (vxk/world.h); voxel v is the unit cell
// [v, v + 1). Body edits use the body's grid coordinates (vxk/voxel_grid.h). A sphere holds the
// voxels whose centre lies within its radius: voxel v is inside when, in double precision,
// ((d.x * d.x + d.y * d.y) + d.z * d.z) <= r * r with d = (v + 0.5) - centre per axis and r the
// radius.
//
// Direct writes. While the edit system is enabled, vxk_world_fill_box, vxk_world_write_box,
// world generation and .vox loading into the terrain return VXK_ERR_UNSUPPORTED and change
// nothing (their writes would race the writer's versions and be overwritten at the next
// publish). vxk_body_set_voxels stays allowed: body edits of the queue are applied at the
// publish, on the step's thread, in ticket order among themselves.
//
// Thread-safety: vxk_edit_submit, vxk_edit_get_outcome, vxk_edit_get_stats and vxk_edit_run may
// be called from any thread at any time while the system is enabled, concurrently with each other
// and with vxk_world_step. vxk_edit_enable, _disable, _thread_start, _thread_stop are world calls
// (no other call on the world meanwhile, producers included for _disable).
#ifndef VXK_EDIT_H
#define VXK_EDIT_H

#include <vxk/base.h>
#include <vxk/id.h>
#include <vxk/world.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vxk_edit_kind {
    VXK_EDIT_SET_VOXEL = 1,    // the voxel box.min takes material (air removes it)
    VXK_EDIT_FILL_BOX = 2,     // every voxel of box takes material
    VXK_EDIT_FILL_SPHERE = 3,  // every voxel of the sphere takes material (air carves)
    VXK_EDIT_PAINT_BOX = 4,    // every non-air voxel of box takes material (not air)
    VXK_EDIT_PAINT_SPHERE = 5, // every non-air voxel of the sphere takes material (not air)
} vxk_edit_kind;

// The largest box edge (voxels) and sphere radius of one edit: larger changes are several edits,
// or direct writes with the edit system disabled.
#define VXK_EDIT_MAX_EXTENT 256
#define VXK_EDIT_MAX_RADIUS 64.0f

typedef struct vxk_edit {
    vxk_edit_kind kind;
    uint8_t material; // a defined id of the world's table
    vxk_body_id body; // null: the terrain; else a voxel body (coordinates in its grid)
    vxk_int_box box;  // SET_VOXEL: box.min; the BOX kinds: inclusive bounds
    vxk_vec3 centre;  // spheres: voxel units
    float radius;     // spheres: voxels, in (0, VXK_EDIT_MAX_RADIUS]
} vxk_edit;

// Edits on the terrain (set .body for a voxel body).
vxk_edit vxk_edit_set_voxel(vxk_int3 voxel, uint8_t material);
vxk_edit vxk_edit_fill_box(vxk_int_box box, uint8_t material);
vxk_edit vxk_edit_fill_sphere(vxk_vec3 centre, float radius, uint8_t material);
vxk_edit vxk_edit_carve_sphere(vxk_vec3 centre, float radius); // fill_sphere with air
vxk_edit vxk_edit_paint_box(vxk_int_box box, uint8_t material);
vxk_edit vxk_edit_paint_sphere(vxk_vec3 centre, float radius, uint8_t material);

typedef struct vxk_edit_def {
    uint32_t cookie;           // set by vxk_default_edit_def
    uint32_t queue_capacity;   // edits submitted and not yet taken by the writer: a power of two
                               // in [2, 2^24] (default 4096, 64 bytes each)
    uint32_t outcome_capacity; // outcomes kept readable: a power of two in
                               // [queue_capacity, 2^26] (default 65536, 16 bytes each)
    bool split;                // connectivity splitting (below; default true)
    int32_t floor_y;           // the world floor: terrain voxels at y <= floor_y are anchors
                               // (default 0)
    uint32_t split_margin;     // voxels searched around a batch's removed voxels, 1..256
                               // (default 32)
    uint32_t split_budget;     // voxels a batch's terrain searches may expand in all, >= 4096
                               // (default 2^20); the rest continues with the next batch
} vxk_edit_def;

vxk_edit_def vxk_default_edit_def(void);

// Connectivity splitting (def.split). After Voxtric's "Integrity Splitting" (seed 004), bitwise.
//
// Terrain. When a batch of edits removes solid terrain voxels, the writer finds the solid parts
// that no longer connect (6-connectivity, through solid voxels) to an anchor: a voxel of an
// anchored material (vxk_material.anchored: bedrock by default) or at y <= def.floor_y (the world
// floor). Each such part is removed from the terrain in the same batch and becomes a dynamic voxel
// body (the world's voxel size, at rest, awake; its voxels exactly where the terrain had them)
// when that batch is published: parts and bodies appear at the same step, and what a step sees
// still depends on the submissions alone. The search covers, per cluster of removed voxels, their
// box grown by split_margin voxels on each side (aligned to chunks, not below the floor): a part
// that reaches the box's edge counts as held (the search cannot see past it), so a part cut loose
// must lie within split_margin voxels of the cut to fall. Finders start at the solid
// face-neighbours of the removed voxels and grow breadth-first, the smallest first, merging when
// they meet; a search ends when every group is anchored or exhausted, or when one group is left
// growing (the terrain around an edit was held before it, so the last group is). The searches of
// a batch run as jobs and share split_budget voxels of expansion; a search that runs out goes on
// with the next batch (published one step later), so one huge edit never stalls a step. Its part
// is removed as the terrain then is (the voxels still solid). A free part wider than
// VXK_BODY_MAX_GRID on an axis, or without mass, stays in the terrain (vxk_edit_stats.split_left).
//
// Voxel bodies. When a batch's edits on a voxel body remove voxels, the body's parts that the
// removal disconnected (searched the same way, from the removed voxels' neighbours) become bodies:
// the largest part keeps the id, each other part gets a new body, in the order of its smallest
// voxel (y, z, x). A new body has the original's type, damping, gravity scale, friction,
// restitution, bullet flag and user data, its rotation and voxel size, its voxels where they
// were, and the velocity of the original's material at its centre of mass (v + w x r, the same
// w), so linear and angular momentum are conserved. vxk_body_set_voxels itself never splits.
typedef struct vxk_edit_split_event {
    vxk_body_id body;     // the new body
    vxk_body_id source;   // the voxel body it was cut from; null: the terrain
    uint32_t voxel_count; // its solid voxels
} vxk_edit_split_event;

// The bodies that the last step's publish made by splitting, in the order they were created:
// writes up to capacity to out (out may be NULL when capacity is 0) and returns how many there
// were (0 when the system is off). A world getter: not concurrently with vxk_world_step.
uint32_t vxk_edit_get_split_events(const vxk_world* world, vxk_edit_split_event* out,
                                   uint32_t capacity);

// Enables the edit system: allocates the queue and the outcomes and gives the writer its own
// version of the terrain (every chunk payload shared, copied when first written). From here
// direct terrain writes are refused (above) until vxk_edit_disable. No thread is started: edits
// are applied by vxk_edit_run, by a thread started with vxk_edit_thread_start, or by the step
// when it needs them. Errors (nothing changed): NULL world or def -> VXK_ERR_INVALID_ARGUMENT; a
// def not made by vxk_default_edit_def -> VXK_ERR_BAD_DEF; capacities, split_margin or split_budget
// outside their ranges -> VXK_ERR_OUT_OF_RANGE; already enabled -> VXK_ERR_UNSUPPORTED;
// VXK_ERR_OUT_OF_MEMORY. Cost: O(terrain chunks) (the writer's chunk index is a copy of the
// terrain's).
vxk_status vxk_edit_enable(vxk_world* world, const vxk_edit_def* def);

// Stops the thread if it runs, applies every edit submitted so far, publishes them all at once
// (as a step's publish would: outcomes final, visible from the next step, direct writes allowed
// again) and releases the system. Producers must have stopped submitting. Errors:
// NULL world -> VXK_ERR_INVALID_ARGUMENT; not enabled -> VXK_ERR_UNSUPPORTED;
// VXK_ERR_OUT_OF_MEMORY (the system stays enabled, nothing lost; call again). Outcomes cannot
// be read once it returned VXK_OK.
vxk_status vxk_edit_disable(vxk_world* world);

// Starts the world's writer thread. Errors: NULL world -> VXK_ERR_INVALID_ARGUMENT; not enabled
// or already running -> VXK_ERR_UNSUPPORTED; VXK_ERR_OUT_OF_MEMORY when its record cannot be
// allocated or the thread cannot be created.
vxk_status vxk_edit_thread_start(vxk_world* world);
// Stops the writer thread: it finishes the edit it is on; edits still queued wait for
// vxk_edit_run, a later start or the step. Errors: NULL world -> VXK_ERR_INVALID_ARGUMENT; not
// enabled or not running -> VXK_ERR_UNSUPPORTED.
vxk_status vxk_edit_thread_stop(vxk_world* world);

// The caller-driven writer, for embedders who own their threads: applies up to max_edits queued
// edits (0: all that are ready) on the calling thread and writes the number to *applied (may be
// NULL). One writer at a time: a call made while the thread or another caller is writing waits
// for its edit to end, then takes turns with it. An edit that runs out of memory is rejected
// (its outcome says so); a batch of edits that cannot be completed for lack of memory stops the
// call with VXK_ERR_OUT_OF_MEMORY, its edits kept (the next call, or the step, tries again).
// Errors: NULL world -> VXK_ERR_INVALID_ARGUMENT; not enabled -> VXK_ERR_UNSUPPORTED. Cost: the
// edits'.
vxk_status vxk_edit_run(vxk_world* world, uint32_t max_edits, uint32_t* applied);

// Waits for ever when full (vxk_edit_submit's timeout_us).
#define VXK_EDIT_WAIT_FOREVER UINT32_MAX

// Queues an edit and writes its ticket. The edit is copied; its content is checked by the writer
// and a bad edit gets a rejected outcome (below), so this call only fails when no ticket is
// issued. When the queue is full it waits up to timeout_us microseconds for the writer to make
// room (0: not at all). Never waits for a step. Errors (no ticket): NULL world, ticket or edit ->
// VXK_ERR_INVALID_ARGUMENT; not enabled -> VXK_ERR_UNSUPPORTED; the queue still full after
// the timeout -> VXK_ERR_CAPACITY (nothing queued: submit again). Cost: O(1), lock-free unless
// it waits.
vxk_status vxk_edit_submit(vxk_world* world, uint64_t* ticket, const vxk_edit* edit,
                           uint32_t timeout_us);

typedef enum vxk_edit_state {
    VXK_EDIT_PENDING = 0,  // not yet published
    VXK_EDIT_APPLIED = 1,  // visible from step `step` on
    VXK_EDIT_REJECTED = 2, // changed nothing; `status` says why
} vxk_edit_state;

typedef struct vxk_edit_outcome {
    vxk_edit_state state;
    vxk_status status; // VXK_OK when applied. Rejected: VXK_ERR_INVALID_ARGUMENT (a bad kind,
                       // an inverted box, a body that is not a voxel body), VXK_ERR_NOT_FINITE
                       // (a NaN or infinite centre or radius), VXK_ERR_OUT_OF_RANGE (a radius
                       // <= 0 or over the maximum, a box edge over the maximum, a shape reaching
                       // past the int32 range; body edits: a box outside the grid, a sphere
                       // missing it, an edit that would leave the body without solid voxels or
                       // a dynamic body without mass), VXK_ERR_BAD_MATERIAL (an undefined
                       // material, paint with air), VXK_ERR_STALE_ID (a destroyed body),
                       // VXK_ERR_OUT_OF_MEMORY.
    uint64_t step;     // applied or rejected: the step that published it, numbered as
                       // vxk_world_step_stats.steps counts steps (when no step failed; disable
                       // publishes as the next step)
} vxk_edit_outcome;

// The outcome of a ticket. Errors: NULL world or out -> VXK_ERR_INVALID_ARGUMENT; not enabled ->
// VXK_ERR_UNSUPPORTED; a ticket never issued -> VXK_ERR_OUT_OF_RANGE; an outcome no longer kept
// (more than outcome_capacity tickets newer were processed) -> VXK_ERR_STALE_ID. Cost: O(1),
// lock-free.
vxk_status vxk_edit_get_outcome(const vxk_world* world, vxk_edit_outcome* out, uint64_t ticket);

typedef struct vxk_edit_stats {
    bool enabled, thread_running;
    uint64_t submitted;         // tickets issued
    uint64_t processed;         // taken from the queue by the writer (published or not)
    uint64_t applied;           // published as applied
    uint64_t rejected;          // published as rejected
    uint32_t queue_depth;       // submitted, not yet taken by the writer
    uint32_t lag_steps;         // steps begun since the oldest edit not yet taken was submitted
    uint64_t capacity_refusals; // submits that returned VXK_ERR_CAPACITY
    uint64_t publishes;         // steps that published since the system was enabled
    uint64_t stalls;            // publishes that waited for the writer
    double stall_seconds;       // their waits, in all
    double publish_seconds;     // the last publish, its wait excluded
    uint32_t published_chunks;  // chunk versions the last publish installed
    uint32_t published_edits;   // tickets the last publish made final
    uint64_t split_searches;    // terrain regions searched for parts cut loose
    uint32_t split_pending;     // terrain searches continuing with the next batch
    uint64_t split_voxels;      // voxels the terrain and body searches expanded
    uint64_t split_bodies;      // bodies made by splitting (terrain and body parts)
    uint64_t split_left;        // free terrain parts left in the terrain (too wide, no mass)
    uint64_t split_lost;        // terrain parts whose body could not be created (out of memory
                                // at the publish: they had left the terrain; 0 otherwise)
    uint64_t bytes;             // queue, outcomes, the writer's chunk index and batches (chunk
                                // payloads are shared with the terrain and counted there); also
                                // in vxk_world_memory_stats.terrain_other_bytes
} vxk_edit_stats;

// Fills *out (zeros and enabled false when the system is off). Nothing for NULL world or out.
void vxk_edit_get_stats(const vxk_world* world, vxk_edit_stats* out);

#ifdef __cplusplus
}
#endif
#endif
