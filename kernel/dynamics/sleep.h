// sleep.h: sleeping and waking (kernel-internal). An island whose bodies all stayed under the
// world's sleep threshold for its time to sleep falls asleep as one: its bodies stop (no
// integration, no narrowphase among them, their manifolds kept as they were) and are linked in a
// ring, so that waking any of them wakes the island it slept with. Bodies wake on contact with
// an awake body, on any force, impulse, velocity or transform set through the API, when the
// terrain they may touch is written, and when a body of their island is destroyed.
#ifndef VXK_SLEEP_H
#define VXK_SLEEP_H

#include "dynamics.h"

// Wakes body index `index` and every body it fell asleep with (nothing for an awake body).
void vxk_dynamics_wake(vxk_dynamics* dyn, uint32_t index);

// Puts the bodies bodies[0 .. count) (body indices: one island) to sleep: velocities zeroed,
// forces cleared, linked in one ring.
void vxk_dynamics_sleep(vxk_dynamics* dyn, const uint32_t* bodies, uint32_t count);

// Wakes the sleeping bodies whose boxes, grown by one voxel, reach into any of chunks[0 ..
// count), sorted by (y, z, x) as vxk_terrain_sorted_chunks orders them (the neighbourhood of
// the chunks a step's writes changed). Cost: O(sleeping bodies x chunks they span x log count).
void vxk_dynamics_wake_chunks(vxk_dynamics* dyn, const vxk_int3* chunks, uint32_t count,
                              float voxel_size);

// A body's sleep velocity: its speed plus its spin times its bounding radius (the fastest point
// of its surface).
float vxk_body_sleep_velocity(const vxk_body* b);

#endif
