// step_common.c: what the step benchmarks share (step_common.h).
#include "step_common.h"

#include <vxk/chunk_geometry.h>
#include <vxk/mesh.h>
#include <vxk/mesher.h>

#include <math.h>
#include <stdlib.h>

uint64_t vxk_step_random(uint64_t* state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double vxk_step_unit_random(uint64_t* state)
{
    return (double)(vxk_step_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

vxk_quat vxk_step_random_rotation(uint64_t* state)
{
    double u1 = vxk_step_unit_random(state), u2 = vxk_step_unit_random(state),
           u3 = vxk_step_unit_random(state);
    double a = sqrt(1.0 - u1), b = sqrt(u1), tau = 6.283185307179586;
    return (vxk_quat){(float)(a * sin(tau * u2)), (float)(a * cos(tau * u2)),
                      (float)(b * sin(tau * u3)), (float)(b * cos(tau * u3))};
}

#ifdef VXK_HAVE_BULLET
typedef struct bullet_terrain {
    vxk_bullet_step_world* bw;
    const vxk_world* world;
    vxk_quad* quads;
    uint32_t triangles, meshes;
    bool failed;
} bullet_terrain;

static void add_chunk_mesh(void* ctx, const vxk_chunk_info* info)
{
    bullet_terrain* t = (bullet_terrain*)ctx;
    uint32_t count = 0;
    if (t->failed ||
        vxk_chunk_mesh(t->world, t->quads, VXK_MESHER_MAX_QUADS, &count, info->coord) != VXK_OK ||
        count == 0)
        return;
    uint32_t histogram[256] = {0};
    uint8_t common = 0;
    for (uint32_t i = 0; i < count; ++i)
        if (++histogram[t->quads[i].material] > histogram[common])
            common = t->quads[i].material;
    float voxel = vxk_world_voxel_size(t->world);
    vxk_vec3 origin = {(float)info->coord.x * 8 * voxel, (float)info->coord.y * 8 * voxel,
                       (float)info->coord.z * 8 * voxel};
    vxk_mesh mesh;
    if (vxk_quad_to_mesh(&mesh, t->quads, count, 3, origin, voxel) != VXK_OK) {
        t->failed = true;
        return;
    }
    float friction = sqrtf(vxk_world_materials(t->world)->materials[common].friction);
    if (vxk_bullet_step_add_mesh(t->bw, &mesh.vertices[0].x, mesh.vertex_count, mesh.indices,
                                 mesh.primitive_count, friction, 1.0f) != 0)
        t->failed = true;
    t->triangles += mesh.primitive_count;
    t->meshes++;
    vxk_mesh_free(&mesh);
}

bool vxk_bullet_step_add_terrain(vxk_bullet_step_world* bw, const vxk_world* world,
                                 uint32_t* triangles, uint32_t* meshes)
{
    bullet_terrain t = {bw, world, (vxk_quad*)malloc(sizeof(vxk_quad) * VXK_MESHER_MAX_QUADS),
                        0,  0,     false};
    t.failed = !t.quads;
    if (!t.failed)
        vxk_world_for_each_chunk(world, add_chunk_mesh, &t);
    free(t.quads);
    if (triangles)
        *triangles += t.triangles;
    if (meshes)
        *meshes += t.meshes;
    return !t.failed;
}
#endif
