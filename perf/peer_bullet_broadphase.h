// peer_bullet_broadphase.h: a C-callable wrapper around Bullet's btDbvtBroadphase (two dynamic
// AABB trees and the btHashedOverlappingPairCache it owns), the peer of the body BVH's pair
// finding. Built only when Bullet is found (VXK_HAVE_BULLET).
//
// Boxes are passed as 6 floats each (min x, y, z, max x, y, z), the layout of vxk_aabb.
//
// btDbvtBroadphase is incremental: its pair cache lives across frames, pairs are added when a
// proxy's fattened leaf (the box grown by a 0.05 margin, reinserted only when the box leaves it)
// meets another leaf, and pairs whose leaves no longer meet are removed lazily (10 % of the cache
// is checked per frame). The cache therefore holds every truly overlapping pair plus some that
// only overlapped recently or whose fat leaves meet; vxk_bullet_broadphase_pairs filters it by
// the proxies' exact boxes (closed intervals, as TestAabbAgainstAabb2) to compare with ours.
#ifndef VXK_PEER_BULLET_BROADPHASE_H
#define VXK_PEER_BULLET_BROADPHASE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_bullet_broadphase vxk_bullet_broadphase;

// Creates a btDbvtBroadphase (default settings, its own hashed pair cache) and a
// btCollisionDispatcher over a btDefaultCollisionConfiguration, adds count proxies
// (createProxy, default filter group and mask; proxy i has client object i) with boxes[0 ..
// 6 * count), then runs calculateOverlappingPairs once. NULL on failure.
vxk_bullet_broadphase* vxk_bullet_broadphase_create(const float* boxes, uint32_t count);
// One frame as a user runs it: setAabb for every proxy with boxes[0 .. 6 * count), then
// calculateOverlappingPairs(dispatcher).
void vxk_bullet_broadphase_set_boxes(vxk_bullet_broadphase* bp, const float* boxes);
void vxk_bullet_broadphase_calculate(vxk_bullet_broadphase* bp);
// Of the last set_boxes: the fraction of its setAabb calls that reinserted the proxy's leaf (the
// box left its fattened leaf) and searched both trees for new pairs; the others cost a
// containment test.
double vxk_bullet_broadphase_reinserted(const vxk_bullet_broadphase* bp);
// getOverlappingPairCache()->getNumOverlappingPairs(): the raw cache size, lazy pairs included.
uint32_t vxk_bullet_broadphase_cache_pairs(const vxk_bullet_broadphase* bp);
// The cached pairs whose proxies' current boxes overlap (closed intervals): their number, and
// when pairs is not NULL, the first capacity of them as (a, b) client indices with a < b in
// pairs[0 .. 2 * min(count, capacity)), in cache order. Cost O(cache pairs).
uint32_t vxk_bullet_broadphase_pairs(const vxk_bullet_broadphase* bp, uint32_t* pairs,
                                     uint32_t capacity);
void vxk_bullet_broadphase_destroy(vxk_bullet_broadphase* bp);

#ifdef __cplusplus
}
#endif
#endif
