// continuous.h: the continuous collision stage of a step (kernel-internal). Bullets (awake
// dynamic bodies created with is_bullet), and the other awake dynamic bodies whose surface moved
// more than half their smallest extent this step (fast bodies, Box3D's rule), are swept from their
// pose at the step's start to the pose the solve ended at, against the terrain's faces and the
// static bodies (collision/toi.h); one that would come within the linear slop of one is moved back
// to the pose of its first time of impact, its velocity kept, so that the next step's speculative
// contacts meet the surface. Slower bodies rely on speculative contacts alone.
#ifndef VXK_CONTINUOUS_H
#define VXK_CONTINUOUS_H

#include "dynamics.h"

typedef struct vxk_continuous_stats {
    uint32_t bullets;        // bodies swept
    uint32_t hits;           // bodies moved back to a time of impact
    uint32_t core_hits;      // of which by a core sphere (the body started touching)
    uint32_t stalls;         // sweeps that ran out of iterations (stopped early, never late)
    uint32_t pairs;          // piece-obstacle sweeps run
    uint32_t max_iterations; // the most advancement steps of one sweep
} vxk_continuous_stats;

// The stage, after the solve has integrated positions: start_poses holds every body's pose at
// the step's start by body index (at least the bullets'). Sweeps run as vxk_parallel_for pieces
// over the bullets on the world's jobs, each writing its own result; the poses change afterwards
// in body index order, so the outcome is the same for any worker count. A bullet sweeps each piece
// of its shape (sphere, box, or the voxel body's box compound) against the faces of the terrain
// chunks its swept box reaches (bit broadphase, then each chunk's cached kD tree) and against the
// static bodies whose boxes overlap it, through vxk_toi_guarded with target linear_slop and
// tolerance linear_slop / 4, and keeps the earliest time. stats may be NULL.
// Errors: VXK_ERR_OUT_OF_MEMORY (arena, broadphase scratch or a chunk's cache entry): no body
// changed. Thread-safety: as vxk_world_step. Cost: per bullet, the swept chunks' quads times its
// pieces, each sweep a few closed-form separations.
vxk_status vxk_dynamics_continuous(vxk_dynamics* dyn, const vxk_transform* start_poses,
                                   vxk_arena* arena, float dt, vxk_continuous_stats* stats);

#endif
