// peer_embree.h: the Embree 3 peer of the ray benchmark (perf/phase_ray.c): one static scene of
// world-space triangles, closest-hit rays with rtcIntersect1, behind a C interface.
#ifndef VXK_PEER_EMBREE_H
#define VXK_PEER_EMBREE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_peer_embree vxk_peer_embree;

// Builds a scene of tri_count triangles (indices 3 per triangle into vertices, xyz floats) on a
// device limited to one thread. NULL on failure.
vxk_peer_embree* vxk_peer_embree_create(const float* vertices, uint32_t vertex_count,
                                        const uint32_t* indices, uint32_t tri_count);
void vxk_peer_embree_destroy(vxk_peer_embree* peer);

// Closest hits of n rays (origins and unit directions, 3 floats each, tnear 0, tfar tmax[i]) one
// rtcIntersect1 at a time on the calling thread; t_out[i] = hit distance or -1 on a miss.
void vxk_peer_embree_trace(vxk_peer_embree* peer, const float* origins, const float* dirs,
                           const float* tmax, uint32_t n, float* t_out);

#ifdef __cplusplus
}
#endif
#endif
