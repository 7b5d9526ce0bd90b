// peer_embree.cpp: the Embree 3 peer of the ray benchmark: a static triangle scene and
// rtcIntersect1 closest-hit queries, wrapped for C (perf/peer_embree.h).
#include "peer_embree.h"

#include <embree3/rtcore.h>

#include <cmath>
#include <cstring>
#include <new>

struct vxk_peer_embree {
    RTCDevice device;
    RTCScene scene;
};

extern "C" vxk_peer_embree* vxk_peer_embree_create(const float* vertices, uint32_t vertex_count,
                                                   const uint32_t* indices, uint32_t tri_count)
{
    RTCDevice device = rtcNewDevice("threads=1");
    if (!device)
        return nullptr;
    RTCScene scene = rtcNewScene(device);
    rtcSetSceneBuildQuality(scene, RTC_BUILD_QUALITY_HIGH);
    RTCGeometry geom = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
    float* vb = static_cast<float*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), vertex_count));
    unsigned* ib = static_cast<unsigned*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), tri_count));
    if (!vb || !ib) {
        rtcReleaseGeometry(geom);
        rtcReleaseScene(scene);
        rtcReleaseDevice(device);
        return nullptr;
    }
    std::memcpy(vb, vertices, (size_t)vertex_count * 3 * sizeof(float));
    std::memcpy(ib, indices, (size_t)tri_count * 3 * sizeof(unsigned));
    rtcCommitGeometry(geom);
    rtcAttachGeometry(scene, geom);
    rtcReleaseGeometry(geom);
    rtcCommitScene(scene);
    vxk_peer_embree* peer = new (std::nothrow) vxk_peer_embree;
    if (!peer) {
        rtcReleaseScene(scene);
        rtcReleaseDevice(device);
        return nullptr;
    }
    peer->device = device;
    peer->scene = scene;
    return peer;
}

extern "C" void vxk_peer_embree_destroy(vxk_peer_embree* peer)
{
    if (!peer)
        return;
    rtcReleaseScene(peer->scene);
    rtcReleaseDevice(peer->device);
    delete peer;
}

extern "C" void vxk_peer_embree_trace(vxk_peer_embree* peer, const float* origins,
                                      const float* dirs, const float* tmax, uint32_t n,
                                      float* t_out)
{
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    for (uint32_t i = 0; i < n; ++i) {
        RTCRayHit rh;
        rh.ray.org_x = origins[3 * i + 0];
        rh.ray.org_y = origins[3 * i + 1];
        rh.ray.org_z = origins[3 * i + 2];
        rh.ray.dir_x = dirs[3 * i + 0];
        rh.ray.dir_y = dirs[3 * i + 1];
        rh.ray.dir_z = dirs[3 * i + 2];
        rh.ray.tnear = 0.0f;
        rh.ray.tfar = tmax[i];
        rh.ray.time = 0.0f;
        rh.ray.mask = 0xFFFFFFFFu;
        rh.ray.id = i;
        rh.ray.flags = 0;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(peer->scene, &context, &rh);
        t_out[i] = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID ? rh.ray.tfar : -1.0f;
    }
}
