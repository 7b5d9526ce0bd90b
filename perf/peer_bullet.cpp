// peer_bullet.cpp: Bullet's btBvhTriangleMeshShape behind a C interface (see peer_bullet.h), the
// peer of the loose kD tree of seed 000.
#include "peer_bullet.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btRaycastCallback.h>

#include <new>

struct vxk_bullet_mesh {
    btTriangleIndexVertexArray* arrays;
    btBvhTriangleMeshShape* shape;
};

namespace
{

// Reaches the protected node count through a pointer to member (legal through a derived class).
struct bvh_access : btQuantizedBvh {
    static int node_count(const btQuantizedBvh* bvh)
    {
        int btQuantizedBvh::*member = &bvh_access::m_curNodeIndex;
        return bvh->*member;
    }
};

struct closest_callback : btTriangleRaycastCallback {
    bool hit = false;
    closest_callback(const btVector3& from, const btVector3& to)
        : btTriangleRaycastCallback(from, to, 0)
    {
    }
    btScalar reportHit(const btVector3&, btScalar fraction, int, int) override
    {
        hit = true;
        return fraction; // the callback only reports hits nearer than m_hitFraction
    }
};

} // namespace

extern "C" vxk_bullet_mesh* vxk_bullet_build(const float* vertices, uint32_t vertex_count,
                                             const uint32_t* indices, uint32_t triangle_count,
                                             int quantized)
{
    if (!vertices || !indices || triangle_count == 0)
        return nullptr;
    vxk_bullet_mesh* mesh = new (std::nothrow) vxk_bullet_mesh();
    if (!mesh)
        return nullptr;
    btIndexedMesh part;
    part.m_numTriangles = (int)triangle_count;
    part.m_triangleIndexBase = reinterpret_cast<const unsigned char*>(indices);
    part.m_triangleIndexStride = 3 * sizeof(uint32_t);
    part.m_numVertices = (int)vertex_count;
    part.m_vertexBase = reinterpret_cast<const unsigned char*>(vertices);
    part.m_vertexStride = 3 * sizeof(float);
    part.m_indexType = PHY_INTEGER;
    part.m_vertexType = PHY_FLOAT;
    mesh->arrays = new btTriangleIndexVertexArray();
    mesh->arrays->addIndexedMesh(part, PHY_INTEGER);
    mesh->shape = new btBvhTriangleMeshShape(mesh->arrays, quantized != 0, true);
    return mesh;
}

extern "C" size_t vxk_bullet_node_bytes(const vxk_bullet_mesh* mesh)
{
    const btOptimizedBvh* bvh = mesh->shape->getOptimizedBvh();
    if (!bvh)
        return 0;
    bool quantized = const_cast<btOptimizedBvh*>(bvh)->isQuantized();
    size_t node_size = quantized ? sizeof(btQuantizedBvhNode) : sizeof(btOptimizedBvhNode);
    return (size_t)bvh_access::node_count(bvh) * node_size;
}

extern "C" int vxk_bullet_raycast(const vxk_bullet_mesh* mesh, const float from[3],
                                  const float to[3], float* fraction)
{
    btVector3 a(from[0], from[1], from[2]), b(to[0], to[1], to[2]);
    closest_callback callback(a, b);
    mesh->shape->performRaycast(&callback, a, b);
    if (!callback.hit)
        return 0;
    *fraction = (float)callback.m_hitFraction;
    return 1;
}

extern "C" void vxk_bullet_destroy(vxk_bullet_mesh* mesh)
{
    if (!mesh)
        return;
    delete mesh->shape;
    delete mesh->arrays;
    delete mesh;
}
