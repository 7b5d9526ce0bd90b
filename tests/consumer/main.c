// A program outside the vxk tree, built against an installed vxk with find_package(vxk): the
// walk-through of docs/api.md. Generates a small world, builds the broadphase, asks which chunks
// a box touches, casts a ray down, and reports bad input.
#include <vxk/vxk.h>

#include <math.h>
#include <stdio.h>

#define CHECK(call)                                                    \
    do {                                                               \
        vxk_status s_ = (call);                                        \
        if (s_ != VXK_OK) {                                            \
            fprintf(stderr, "%s: %s\n", #call, vxk_status_string(s_)); \
            return 1;                                                  \
        }                                                              \
    } while (0)

int main(void)
{
    // A scheduler with two threads (0 would use all cores); the world runs its jobs on it.
    vxk_jobs_def jobs_def = vxk_default_jobs_def();
    jobs_def.worker_count = 2;
    vxk_jobs* jobs = NULL;
    if (vxk_jobs_create(&jobs_def, &jobs) != 0)
        return 1;

    vxk_world_def world_def = vxk_default_world_def();
    world_def.voxel_size = 0.5f;
    world_def.jobs = jobs;
    vxk_world* world = NULL;
    CHECK(vxk_world_create(&world_def, &world));

    vxk_worldgen_def gen = vxk_default_worldgen_def();
    gen.size_x = 64;
    gen.size_y = 64;
    gen.size_z = 64;
    gen.seed = 7;
    CHECK(vxk_worldgen_run(world, &gen));
    CHECK(vxk_broadphase_build(world));

    // Which chunks may a 1 m box at the centre of the world touch?
    vxk_aabb box = {{15.5f, 0.0f, 15.5f}, {16.5f, 32.0f, 16.5f}};
    vxk_broadphase_hit hits[64];
    uint32_t hit_count = 0;
    CHECK(vxk_broadphase_query_aabb(world, hits, 64, &hit_count, box));

    // A ray straight down from above the terrain must land on it.
    vxk_ray ray = {{16.0f, 40.0f, 16.0f}, {0.0f, -1.0f, 0.0f}, INFINITY};
    vxk_ray_hit hit;
    CHECK(vxk_raycast(world, &hit, &ray));
    if (!hit.hit || hit.normal.y != 1.0f)
        return 1;

    // Bad input is reported, nothing changes.
    vxk_ray bad = {{NAN, 0.0f, 0.0f}, {0.0f, -1.0f, 0.0f}, 10.0f};
    vxk_status s = vxk_raycast(world, &hit, &bad);
    printf("consumer: vxk %s, %u chunks touched, ground at y = %.2f m (%s), NaN ray: %s\n",
           vxk_version_string(), hit_count, hit.point.y,
           vxk_world_materials(world)->materials[hit.material].name, vxk_status_string(s));
    int ok = hit_count > 0 && s == VXK_ERR_NOT_FINITE;

    // A box dropped above the ray's hit comes to rest on the ground there.
    vxk_body_def body = vxk_default_body_def();
    body.position = (vxk_vec3){16.0f, hit.point.y + 5.0f, 16.0f};
    body.shape = vxk_box_shape((vxk_vec3){0.25f, 0.25f, 0.25f}, VXK_MAT_WOOD);
    vxk_body_id id;
    CHECK(vxk_body_create(world, &body, &id));
    for (int i = 0; i < 180; ++i)
        CHECK(vxk_world_step(world, 1.0f / 60.0f));
    vxk_transform pose;
    CHECK(vxk_body_get_transform(world, id, &pose));
    printf("consumer: a box dropped from 5 m rests at y = %.3f m\n", pose.p.y);
    ok = ok && pose.p.y > hit.point.y && pose.p.y < hit.point.y + 1.0f;

    vxk_world_destroy(world);
    vxk_jobs_destroy(jobs);
    return ok ? 0 : 1;
}
