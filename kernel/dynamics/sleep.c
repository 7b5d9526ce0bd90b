// sleep.c: the sleeping bodies' rings and the wake rules of sleep.h. Which islands fall asleep is
// decided by the solver at the end of each island's step (solver.c), from the bodies' sleep
// times kept here.
#include "sleep.h"

void vxk_dynamics_wake(vxk_dynamics* dyn, uint32_t index)
{
    vxk_body* b = &dyn->bodies[index];
    if (b->awake || !b->live)
        return;
    uint32_t i = index;
    do {
        vxk_body* m = &dyn->bodies[i];
        uint32_t next = m->sleep_next;
        m->awake = true;
        m->sleep_time = 0.0f;
        m->sleep_next = i;
        i = next;
    } while (i != index);
}

void vxk_dynamics_sleep(vxk_dynamics* dyn, const uint32_t* bodies, uint32_t count)
{
    for (uint32_t k = 0; k < count; ++k) {
        vxk_body* b = &dyn->bodies[bodies[k]];
        b->awake = false;
        b->v = b->w = b->force = b->torque = vxk_v3(0, 0, 0);
        b->sleep_next = bodies[k + 1 < count ? k + 1 : 0];
    }
}

// Whether the sorted chunk list holds c ((y, z, x) order).
static bool chunk_listed(const vxk_int3* chunks, uint32_t count, vxk_int3 c)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        vxk_int3 m = chunks[mid];
        bool less = m.y != c.y ? m.y < c.y : m.z != c.z ? m.z < c.z : m.x < c.x;
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && chunks[lo].x == c.x && chunks[lo].y == c.y && chunks[lo].z == c.z;
}

static int32_t chunk_of(float x, float inv_chunk)
{
    double c = floor((double)x * (double)inv_chunk);
    return c < -2147483647.0 ? -2147483647 : c > 2147483646.0 ? 2147483646 : (int32_t)c;
}

void vxk_dynamics_wake_chunks(vxk_dynamics* dyn, const vxk_int3* chunks, uint32_t count,
                              float voxel_size)
{
    if (!count)
        return;
    const float inv_chunk = 1.0f / (8.0f * voxel_size);
    for (uint32_t i = 0; i < dyn->ids.count; ++i) {
        const vxk_body* b = &dyn->bodies[i];
        if (!b->live || b->awake || b->type != VXK_BODY_DYNAMIC)
            continue;
        vxk_aabb box = b->aabb;
        vxk_int3 lo = {chunk_of(box.min.x - voxel_size, inv_chunk),
                       chunk_of(box.min.y - voxel_size, inv_chunk),
                       chunk_of(box.min.z - voxel_size, inv_chunk)};
        vxk_int3 hi = {chunk_of(box.max.x + voxel_size, inv_chunk),
                       chunk_of(box.max.y + voxel_size, inv_chunk),
                       chunk_of(box.max.z + voxel_size, inv_chunk)};
        bool hit = false;
        double span =
            ((double)hi.x - lo.x + 1) * ((double)hi.y - lo.y + 1) * ((double)hi.z - lo.z + 1);
        if (span > (double)count) { // a body larger than the list: test the list against it
            for (uint32_t k = 0; k < count && !hit; ++k)
                hit = chunks[k].x >= lo.x && chunks[k].x <= hi.x && chunks[k].y >= lo.y &&
                      chunks[k].y <= hi.y && chunks[k].z >= lo.z && chunks[k].z <= hi.z;
        }
        for (int32_t y = lo.y; y <= hi.y && !hit && span <= (double)count; ++y)
            for (int32_t z = lo.z; z <= hi.z && !hit; ++z)
                for (int32_t x = lo.x; x <= hi.x && !hit; ++x)
                    hit = chunk_listed(chunks, count, (vxk_int3){x, y, z});
        if (hit)
            vxk_dynamics_wake(dyn, i);
    }
}

float vxk_body_sleep_velocity(const vxk_body* b)
{
    return vxk_v3_length(b->v) + vxk_v3_length(b->w) * b->bound_radius;
}
