// peer_bullet_broadphase.cpp: Bullet's btDbvtBroadphase behind a C interface (see
// peer_bullet_broadphase.h), the peer of the body BVH's pair finding.
#include "peer_bullet_broadphase.h"

#include <btBulletCollisionCommon.h>

#include <new>
#include <vector>

struct vxk_bullet_broadphase {
    btDefaultCollisionConfiguration* config;
    btCollisionDispatcher* dispatcher;
    btDbvtBroadphase* broadphase;
    std::vector<btBroadphaseProxy*> proxies;
    double reinserted; // of the last set_boxes: fraction of setAabb calls that moved a leaf
};

namespace
{

btVector3 corner(const float* box, int offset)
{
    return btVector3(box[offset], box[offset + 1], box[offset + 2]);
}

bool overlaps(const btBroadphaseProxy* a, const btBroadphaseProxy* b)
{
    return TestAabbAgainstAabb2(a->m_aabbMin, a->m_aabbMax, b->m_aabbMin, b->m_aabbMax);
}

uint32_t client_index(const btBroadphaseProxy* proxy)
{
    return (uint32_t)(uintptr_t)proxy->m_clientObject;
}

} // namespace

extern "C" vxk_bullet_broadphase* vxk_bullet_broadphase_create(const float* boxes, uint32_t count)
{
    if (!boxes && count > 0)
        return nullptr;
    vxk_bullet_broadphase* bp = new (std::nothrow) vxk_bullet_broadphase();
    if (!bp)
        return nullptr;
    bp->config = new btDefaultCollisionConfiguration();
    bp->dispatcher = new btCollisionDispatcher(bp->config);
    bp->broadphase = new btDbvtBroadphase();
    bp->proxies.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
        const float* box = boxes + 6 * (size_t)i;
        bp->proxies[i] = bp->broadphase->createProxy(
            corner(box, 0), corner(box, 3), BOX_SHAPE_PROXYTYPE, (void*)(uintptr_t)i,
            btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter, bp->dispatcher);
    }
    bp->broadphase->calculateOverlappingPairs(bp->dispatcher);
    return bp;
}

extern "C" void vxk_bullet_broadphase_set_boxes(vxk_bullet_broadphase* bp, const float* boxes)
{
    size_t count = bp->proxies.size();
    unsigned calls = bp->broadphase->m_updates_call, done = bp->broadphase->m_updates_done;
    for (size_t i = 0; i < count; ++i) {
        const float* box = boxes + 6 * i;
        bp->broadphase->setAabb(bp->proxies[i], corner(box, 0), corner(box, 3), bp->dispatcher);
    }
    calls = bp->broadphase->m_updates_call - calls;
    done = bp->broadphase->m_updates_done - done;
    bp->reinserted = calls ? (double)done / calls : 0.0;
}

extern "C" double vxk_bullet_broadphase_reinserted(const vxk_bullet_broadphase* bp)
{
    return bp->reinserted;
}

extern "C" void vxk_bullet_broadphase_calculate(vxk_bullet_broadphase* bp)
{
    bp->broadphase->calculateOverlappingPairs(bp->dispatcher);
}

extern "C" uint32_t vxk_bullet_broadphase_cache_pairs(const vxk_bullet_broadphase* bp)
{
    return (uint32_t)bp->broadphase->getOverlappingPairCache()->getNumOverlappingPairs();
}

extern "C" uint32_t vxk_bullet_broadphase_pairs(const vxk_bullet_broadphase* bp, uint32_t* pairs,
                                                uint32_t capacity)
{
    btOverlappingPairCache* cache = bp->broadphase->getOverlappingPairCache();
    const btBroadphasePairArray& array = cache->getOverlappingPairArray();
    uint32_t found = 0;
    for (int i = 0; i < array.size(); ++i) {
        const btBroadphasePair& pair = array[i];
        if (!overlaps(pair.m_pProxy0, pair.m_pProxy1))
            continue;
        if (pairs && found < capacity) {
            uint32_t a = client_index(pair.m_pProxy0), b = client_index(pair.m_pProxy1);
            pairs[2 * (size_t)found] = a < b ? a : b;
            pairs[2 * (size_t)found + 1] = a < b ? b : a;
        }
        ++found;
    }
    return found;
}

extern "C" void vxk_bullet_broadphase_destroy(vxk_bullet_broadphase* bp)
{
    if (!bp)
        return;
    // destroyProxy would remove each proxy's pairs from the hashed cache by a walk over the whole
    // cache (btHashedOverlappingPairCache::removeOverlappingPairsContainingProxy): quadratic, most
    // of this program's time at 100,000 boxes. The broadphase goes first (its trees and cache),
    // then the proxies, which createProxy allocated with btAlignedAlloc as destroyProxy frees them.
    delete bp->broadphase;
    for (btBroadphaseProxy* proxy : bp->proxies)
        btAlignedFree(proxy);
    delete bp->dispatcher;
    delete bp->config;
    delete bp;
}
