// broadphase_sweep.h: the bit broadphase's (vxk/broadphase.h, collision/broadphase.c) queries of
// moving boxes, for the step: which chunks a body's box may touch along its motion over a step,
// at a cost that grows with the length of the motion, where the bounding box of a fast diagonal
// motion grows with its cube.
#ifndef VXK_BROADPHASE_SWEEP_H
#define VXK_BROADPHASE_SWEEP_H

#include <vxk/broadphase.h>

// A box moving along a straight motion (world units): it covers box + u motion, u in [0, 1].
typedef struct vxk_broadphase_sweep {
    vxk_aabb box;
    vxk_vec3 motion;
} vxk_broadphase_sweep;

// vxk_broadphase_query_batch over moving boxes. Each box is expanded by one voxel as there and
// moved along its motion; a chunk is a hit when the moving box overlaps its cells with positive
// volume, with the flags of its mask bits in the cells the moving box covers while it meets the
// chunk (a superset of those it covers at any one u). A sweep without motion gives exactly
// vxk_broadphase_query_aabb's hits. Parts of a sweep past the int32 voxel space hold no terrain:
// they give no hits, where a box query refuses them. Hits in (cy, cz, cx) order per sweep,
// identical for any worker count.
// Errors (nothing written): NULL world or offsets, NULL sweeps with count > 0 or NULL results
// with capacity > 0 -> VXK_ERR_INVALID_ARGUMENT; a box or motion not finite -> VXK_ERR_NOT_FINITE;
// min > max on an axis -> VXK_ERR_INVALID_ARGUMENT; VXK_ERR_OUT_OF_MEMORY. More hits than
// capacity: VXK_ERR_CAPACITY as vxk_broadphase_query_batch.
// Cost: a map lookup per chunk the moving box meets and a step per chunk row and column it
// crosses (its length times its cross-section, in chunks); a sweep over more chunks than a few
// times the entry count scans the entries. Thread-safe against other reads.
vxk_status vxk_broadphase_query_sweep_batch(const vxk_world* world, vxk_broadphase_hit* results,
                                            uint32_t capacity, uint32_t* offsets,
                                            const vxk_broadphase_sweep* sweeps, uint32_t count);

#endif
