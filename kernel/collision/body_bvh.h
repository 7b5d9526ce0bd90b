// body_bvh.h: a bounding volume hierarchy over plain arrays of boxes (internal for now; the
// bodies that will own it come later). Object ids are the indices into the caller's box array.
//
// Overlap rule, used by every query here and by the tests' brute force: two boxes overlap when
// their closed intervals meet on all three axes (a.min <= b.max && b.min <= a.max per axis), so
// boxes that only touch overlap, and a zero-size box overlaps a box containing its point.
//
// Thread-safety: build, refit, update and free change the tree and need exclusive access; cost,
// query and pairs only read it and may run concurrently with each other. A pair tracker
// (vxk_bvh_tracker, below) is used by one thread at a time.
#ifndef VXK_BODY_BVH_H
#define VXK_BODY_BVH_H

#include <vxk/base.h>
#include <vxk/jobs.h>

// One node, two per 64-byte line (the pool is 64-byte aligned; siblings share a line).
// Inner node: count == 0, children at left_first and left_first + 1.
// Leaf: count > 0 objects, at object_ids[left_first .. left_first + count).
typedef struct vxk_bvh_node {
    vxk_aabb box;        // 24 bytes
    uint32_t left_first; // left child (inner) or first object slot (leaf)
    uint32_t count;      // objects in the leaf; 0 for inner nodes
} vxk_bvh_node;          // 32 bytes
_Static_assert(sizeof(vxk_bvh_node) == 32, "two BVH nodes per 64-byte line");

typedef enum vxk_bvh_build_kind {
    VXK_BVH_BUILD_SAH = 0,      // binned surface area heuristic over centroid bounds (default)
    VXK_BVH_BUILD_MIDPOINT = 1, // the article's split: the middle of the longest axis (of the
                                // centroid bounds, so both sides get objects), for comparison
    VXK_BVH_BUILD_KIND_COUNT
} vxk_bvh_build_kind;

// Zero it before the first build ({0} is an empty tree). The fields are read-only to callers.
typedef struct vxk_bvh {
    vxk_bvh_node* nodes;   // 64-byte aligned pool of node_capacity = 2 * capacity nodes
    uint32_t* object_ids;  // leaf slots -> object id
    vxk_aabb* boxes;       // copy of the boxes, by object id
    uint32_t object_count; // objects in the tree (ids 0 .. object_count - 1)
    uint32_t capacity;     // objects the allocations hold
    uint32_t node_count;   // nodes in use; node 1 is left empty so siblings share a line
    uint32_t depth;        // levels below the root (a leaf root has depth 0)
    vxk_bvh_build_kind kind;
    double build_cost; // vxk_bvh_cost right after the last build
    void* scratch;     // build scratch, kept for the next build
    size_t scratch_bytes;
} vxk_bvh;

typedef struct vxk_bvh_pair {
    uint32_t a, b; // object ids, a < b
} vxk_bvh_pair;

// The box swept over a step and fattened: the union of box and box moved by velocity * dt, grown
// by margin on every side. Pure; non-finite inputs give non-finite boxes, which build and refit
// reject. Cost O(1).
vxk_aabb vxk_bvh_swept_box(vxk_aabb box, vxk_vec3 velocity, float dt, float margin);

// Builds the tree over boxes[0 .. count) (object id = index); count 0 gives an empty tree.
// Single-threaded and deterministic: the tree depends only on the boxes and kind. Reuses the
// tree's allocations when they are large enough.
// Errors (nothing changed, the old tree stays usable): NULL bvh, NULL boxes with count > 0, a
// bad kind, count above 2^30, min > max on an axis -> VXK_ERR_INVALID_ARGUMENT; NaN or infinity
// in a box -> VXK_ERR_NOT_FINITE; VXK_ERR_OUT_OF_MEMORY.
// Cost O(count log count) time (bins: 12 per axis), about 100 bytes per object of memory.
vxk_status vxk_bvh_build(vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t count,
                         vxk_bvh_build_kind kind);

// Updates every node's box bottom-up after the objects moved: boxes[0 .. object_count) are the
// new boxes by id (same count as the last build). The structure stays; its cost may grow.
// Errors (nothing changed): NULL bvh or boxes (boxes may be NULL when the tree is empty), min >
// max -> VXK_ERR_INVALID_ARGUMENT; NaN or infinity -> VXK_ERR_NOT_FINITE. Cost O(nodes), no
// allocation.
vxk_status vxk_bvh_refit(vxk_bvh* bvh, const vxk_aabb* boxes);

// The tree's SAH cost: sum over inner nodes of area(node) plus sum over leaves of area(leaf) *
// count, divided by area(root) (traversal and box-test costs 1). Areas are surface areas in
// double; a root of zero area counts as area 1. 0 for an empty tree. Cost O(nodes).
double vxk_bvh_cost(const vxk_bvh* bvh);

// Refits to boxes[0 .. count), then rebuilds (same kind) when the refitted cost exceeds
// max_cost_ratio * build_cost; a different count rebuilds at once. *rebuilt (may be NULL) says
// whether it rebuilt. Errors: those of vxk_bvh_build, and max_cost_ratio not finite or < 1 ->
// VXK_ERR_INVALID_ARGUMENT; all leave the tree unchanged except VXK_ERR_OUT_OF_MEMORY during the
// rebuild, which leaves the tree refitted (valid for boxes, only slower to query).
vxk_status vxk_bvh_update(vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t count,
                          double max_cost_ratio, bool* rebuilt);

// Every pair of objects whose boxes overlap, a < b, sorted by (a, b), in *out (allocated through
// the hook; free with vxk_bvh_pairs_free(*out, *count); NULL when *count is 0). The work runs as
// vxk_parallel_for pieces over object ids (each object descends the tree for higher ids); jobs
// NULL runs them on the calling thread. The output is identical for any worker count.
// Errors (*out NULL, *count 0): NULL bvh, out or count -> VXK_ERR_INVALID_ARGUMENT; more than
// max_pairs pairs -> VXK_ERR_CAPACITY; VXK_ERR_OUT_OF_MEMORY (also for a list past 2^31 - 1
// pairs, a piece's or the whole).
// Cost O(n log n + pairs) for well-spread boxes, up to O(n^2); memory 8 bytes per pair plus
// per-piece buffers of the same total (each up to twice its pairs: the lists grow by doubling).
vxk_status vxk_bvh_pairs(const vxk_bvh* bvh, vxk_jobs* jobs, vxk_bvh_pair** out, uint32_t* count,
                         uint32_t max_pairs);
void vxk_bvh_pairs_free(vxk_bvh_pair* pairs, uint32_t count);

// Buffers of vxk_bvh_pairs_pooled kept across calls (zero-initialise; release with
// vxk_bvh_pair_pool_free): the per-piece pair lists and the merged list only grow, so a steady
// run stops allocating.
typedef struct vxk_bvh_pair_pool {
    void* pieces;
    uint32_t piece_capacity;
    vxk_bvh_pair* merged;
    uint32_t merged_capacity;
} vxk_bvh_pair_pool;
// As vxk_bvh_pairs, with the output in the pool (*out valid until the pool's next use).
vxk_status vxk_bvh_pairs_pooled(const vxk_bvh* bvh, vxk_jobs* jobs, vxk_bvh_pair_pool* pool,
                                const vxk_bvh_pair** out, uint32_t* count, uint32_t max_pairs);
size_t vxk_bvh_pair_pool_bytes(const vxk_bvh_pair_pool* pool);
void vxk_bvh_pair_pool_free(vxk_bvh_pair_pool* pool);

// The ids of the objects whose boxes overlap box, ascending, in ids[0 .. *count). When more than
// capacity overlap, *count is the number that overlap, ids holds an unspecified part of them and
// the status is VXK_ERR_CAPACITY. Errors (*count 0 otherwise): NULL bvh or count, NULL ids with
// capacity > 0, min > max -> VXK_ERR_INVALID_ARGUMENT; NaN or infinity in box ->
// VXK_ERR_NOT_FINITE; VXK_ERR_OUT_OF_MEMORY (only for trees deeper than 64 levels).
// Thread-safe against other readers. Cost O(log n + hits) for well-spread boxes.
vxk_status vxk_bvh_query(const vxk_bvh* bvh, uint32_t* ids, uint32_t capacity, uint32_t* count,
                         vxk_aabb box);

// Frees the tree's memory and zeroes it. NULL is allowed.
void vxk_bvh_free(vxk_bvh* bvh);
// Bytes the tree holds (nodes, slots, box copies).
size_t vxk_bvh_bytes(const vxk_bvh* bvh);

// ---- incremental pair tracking -----------------------------------------------------------------
//
// vxk_bvh_tracker finds, frame after frame, exactly the pairs that vxk_bvh_pairs finds, but keeps
// its work between frames: each object has a padded box (its box grown by pad, and stretched
// along its recent motion) that the tracker's tree holds; a frame only re-inserts the objects
// whose boxes left their padded boxes ("escaped"), and only they search the tree for new
// partners. A persistent sorted list holds the candidate pairs (padded boxes overlap); the
// output is that list filtered by the exact boxes. See body_bvh.c for the mechanism.

typedef struct vxk_bvh_tracker_stats {
    uint32_t escaped;       // objects re-padded by the last update
    uint32_t candidates;    // candidate pairs after the last update (padded boxes overlap)
    uint32_t pairs;         // pairs output by the last update
    uint32_t restarts;      // updates that started over (first, count or pad change, reset)
    uint32_t tree_rebuilds; // SAH rebuilds of the padded tree after its cost grew
    uint32_t frames;        // successful updates
} vxk_bvh_tracker_stats;

// Zero it before the first update ({0} is a tracker with nothing tracked). Fields are private.
typedef struct vxk_bvh_tracker {
    vxk_bvh tree;           // over the padded boxes
    vxk_aabb* padded;       // by object id
    vxk_vec3* anchor;       // by object id: its box's centre when it was last padded
    uint32_t* anchor_frame; // by object id: the frame of that
    uint32_t* leaf_of;      // by object id: its leaf in tree
    uint8_t* escaped_flag;  // by object id, all 0 between updates
    uint32_t* escaped;      // this frame's escaped ids
    uint32_t* parent;       // by node
    uint32_t* stack;        // traversal stack, tree depth + 1 entries
    uint32_t object_capacity, node_capacity, stack_capacity;
    vxk_bvh_pair* candidates; // sorted by (a, b)
    vxk_bvh_pair* next;       // the merge's target, swapped with candidates
    vxk_bvh_pair* fresh;      // the escaped objects' candidate pairs
    vxk_bvh_pair* sort_tmp;   // radix sort scratch for fresh
    vxk_bvh_pair* out;        // the output pairs
    uint32_t candidate_count, fresh_count;
    uint32_t candidate_capacity, next_capacity, fresh_capacity, sort_capacity, out_capacity;
    vxk_bvh_pair_pool pool; // full pair finding when starting over
    uint32_t count;         // objects tracked
    uint32_t frame;
    float pad;
    bool valid;      // false: the next update starts over
    double cost_sum; // the tree's unnormalised SAH sum, kept up to date by the path refits
    vxk_bvh_tracker_stats stats;
} vxk_bvh_tracker;

// One frame: boxes[0 .. count) are the objects' boxes (object id = index). Sets *out to every pair
// (a < b) whose boxes overlap (closed intervals, as vxk_bvh_pairs), sorted by (a, b), *out_count
// pairs; *out stays valid until the tracker's next update, reset or free. pad (>= 0) is how far
// each padded box reaches beyond its box: larger pads make objects escape less often and give more
// candidates to filter; it changes nothing in the output. The tracker starts over (builds its tree
// and finds all candidate pairs, as vxk_bvh_pairs, on jobs) on its first update, when count or pad
// differs from the last update's, and after vxk_bvh_tracker_reset or a failed update; otherwise
// it works incrementally on the calling thread. The output is identical for any worker count and
// equals vxk_bvh_pairs over the same boxes.
// Errors (*out NULL, *out_count 0): NULL t, out or out_count, NULL boxes with count > 0, count
// above 2^30, pad negative or not finite, min > max in a box -> VXK_ERR_INVALID_ARGUMENT; NaN or
// infinity in a box -> VXK_ERR_NOT_FINITE (these change nothing); more than 2^32 - 1 candidate
// pairs -> VXK_ERR_CAPACITY; VXK_ERR_OUT_OF_MEMORY (also for more than 2^31 - 1 candidate pairs,
// past which the pair lists do not grow). After VXK_ERR_CAPACITY or VXK_ERR_OUT_OF_MEMORY the
// next update starts over.
// Not thread-safe on one tracker. Cost: O(count) for the containment test plus O(candidates) for
// the filter, plus O(log count + partners) per escaped object; starting over costs a build and a
// vxk_bvh_pairs. Memory about 200 bytes per object plus 24 to 48 per candidate pair (three pair
// lists, grown by doubling); once the buffers have grown to a scene's needs, updates allocate
// nothing.
vxk_status vxk_bvh_tracker_update(vxk_bvh_tracker* t, vxk_jobs* jobs, const vxk_bvh_pair** out,
                                  uint32_t* out_count, const vxk_aabb* boxes, uint32_t count,
                                  float pad);
// Makes the next update start over, keeping the buffers: call it when object ids were remapped
// (the same count with other meanings). NULL is allowed. Cost O(1).
void vxk_bvh_tracker_reset(vxk_bvh_tracker* t);
// Fills *stats with the tracker's counters (zeros for NULL t).
void vxk_bvh_tracker_get_stats(const vxk_bvh_tracker* t, vxk_bvh_tracker_stats* stats);
// Bytes the tracker holds.
size_t vxk_bvh_tracker_bytes(const vxk_bvh_tracker* t);
// Frees the tracker's memory and zeroes it. NULL is allowed.
void vxk_bvh_tracker_free(vxk_bvh_tracker* t);

#endif
