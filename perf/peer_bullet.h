// peer_bullet.h: a C-callable wrapper around Bullet's btBvhTriangleMeshShape (the BVH that seed
// 000's loose kD tree replaced), for side-by-side build, memory and raycast figures.
// Built only when Bullet is found (VXK_HAVE_BULLET).
#ifndef VXK_PEER_BULLET_H
#define VXK_PEER_BULLET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_bullet_mesh vxk_bullet_mesh;

// Builds btTriangleIndexVertexArray + btBvhTriangleMeshShape (useQuantizedAabbCompression =
// quantized) over float xyz vertices and uint32 triangle indices, which must outlive the shape.
// NULL on failure.
vxk_bullet_mesh* vxk_bullet_build(const float* vertices, uint32_t vertex_count,
                                  const uint32_t* indices, uint32_t triangle_count, int quantized);
// Bytes of the optimized BVH's nodes (node count times node size: 16 quantized, 64 otherwise).
size_t vxk_bullet_node_bytes(const vxk_bullet_mesh* mesh);
// Closest hit of the segment from -> to with btBvhTriangleMeshShape::performRaycast and a
// btTriangleRaycastCallback; returns 1 and the hit fraction in [0, 1] on a hit.
int vxk_bullet_raycast(const vxk_bullet_mesh* mesh, const float from[3], const float to[3],
                       float* fraction);
void vxk_bullet_destroy(vxk_bullet_mesh* mesh);

#ifdef __cplusplus
}
#endif
#endif
