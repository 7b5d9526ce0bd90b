// phase_step.c: the step benchmark against Bullet's btDiscreteDynamicsWorld. Both engines run
// the same seeded scenes at a fixed step of 1/60 s:
//   drop           bodies (spheres of radius 0.5 and boxes of half extent 0.5 of stone, half
//                  each, random rotations) on a lattice 3 m and more above a generated terrain
//                  of 128 x 64 x 128 voxels (voxel size 1, no caves, no water); Bullet's
//                  terrain is one static btBvhTriangleMeshShape per chunk, two triangles per
//                  mesher quad (the Roblox article's prototype).
//   pyramid        a wall-shaped pyramid of unit cubes, 20 at its base (210 boxes), as Box2D's
//   large_pyramid  large_pyramid sample (100 at its base: 5,050 boxes), on flat terrain (ours:
//                  a stone fill with its top at y = 0; Bullet: a static box of the same size).
//   block          10,000 unit cubes in a 25 x 25 x 16 block, face to face, on flat terrain:
//                  one island (the parallel solve's scene; only with --scene block).
// Ours: vxk_world_step(world, 1/60) at the world def's defaults (4 substeps); Bullet:
// stepSimulation(1/60, 0) (one internal step), 10 solver iterations, same gravity.
// Figures per scene: median, mean and largest ms per step of each engine, bullet_step_ratio
// (Bullet median / ours on one thread), bodies that tunnelled, awake bodies at the end, whether
// pyramids stood, vxk_world_hash. The `vxk bench` phase `step` runs the drop scene.
#include "bench.h"
#include "peer_bullet_step.h"
#include "step_common.h"

#include <vxk/body.h>
#include <vxk/chunk_geometry.h>
#include <vxk/mesher.h>
#include <vxk/world.h>
#include <vxk/worldgen.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP_DT (1.0f / 60.0f)
#define DROP_SIZE_XZ 128
#define DROP_SIZE_Y 64
#define DROP_MARGIN 16 // bodies start this far from the terrain's sides
#define DROP_LATTICE 2.0f
#define PYRAMID_GAP_X 0.01f // between neighbours of a row
#define PYRAMID_GAP_Y 0.001f
#define BODY_MATERIAL VXK_MAT_STONE

typedef struct step_body {
    int box; // 1: box of half extents half, 0: sphere of radius half
    float half;
    vxk_transform pose;
} step_body;

typedef struct step_scene {
    const char* name;
    bool pyramid;  // a stacked scene (pyramids, the block): judged by how far boxes moved
    bool block;    // the 10,000-box block (a wider floor)
    uint32_t base; // pyramid: boxes at the base
    uint32_t count;
    step_body* bodies;
    uint8_t* solid; // drop: solid flags of the terrain box, layout of vxk_world_read_box
    int16_t* top;   // drop: per column (x + SIZE * z) the y above its highest solid voxel
    uint64_t seed;
} step_scene;

// The end of a run of one engine.
typedef struct step_outcome {
    double median_ms, mean_ms, max_ms, total_s;
    double stage_ms[VXK_STEP_STAGE_COUNT]; // ours: median per stage
    uint32_t tunnelled, below_surface, off_edge, awake;
    double max_shift, top_drop; // pyramids
    bool stands;
    uint64_t hash;
} step_outcome;

// ---- scenes ----------------------------------------------------------------------------------

static vxk_status build_terrain(vxk_world* world, const step_scene* s)
{
    if (s->block)
        return vxk_world_fill_box(world, (vxk_int_box){{-40, -8, -40}, {39, -1, 39}},
                                  VXK_MAT_STONE);
    if (s->pyramid)
        return vxk_world_fill_box(world, (vxk_int_box){{-64, -8, -8}, {63, -1, 7}}, VXK_MAT_STONE);
    vxk_worldgen_def gen = vxk_default_worldgen_def();
    gen.size_x = DROP_SIZE_XZ;
    gen.size_y = DROP_SIZE_Y;
    gen.size_z = DROP_SIZE_XZ;
    gen.seed = s->seed;
    gen.cave_density = 0.0f;
    gen.water_level = -1;
    return vxk_worldgen_run(world, &gen);
}

static int column_top(const step_scene* s, int x, int z)
{
    if (x < 0 || z < 0 || x >= DROP_SIZE_XZ || z >= DROP_SIZE_XZ)
        return 0;
    return s->top[x + DROP_SIZE_XZ * z];
}

static bool solid_at(const step_scene* s, vxk_vec3 p)
{
    int x = (int)floorf(p.x), y = (int)floorf(p.y), z = (int)floorf(p.z);
    if (x < 0 || z < 0 || y < 0 || x >= DROP_SIZE_XZ || z >= DROP_SIZE_XZ || y >= DROP_SIZE_Y)
        return false;
    return s->solid[(size_t)x + DROP_SIZE_XZ * ((size_t)z + DROP_SIZE_XZ * (size_t)y)] != 0;
}

static bool make_drop(step_scene* s, const vxk_world* terrain, uint32_t n)
{
    size_t voxels = (size_t)DROP_SIZE_XZ * DROP_SIZE_Y * DROP_SIZE_XZ;
    s->solid = (uint8_t*)malloc(voxels);
    s->top = (int16_t*)calloc((size_t)DROP_SIZE_XZ * DROP_SIZE_XZ, sizeof(int16_t));
    s->bodies = (step_body*)malloc(sizeof(step_body) * n);
    if (!s->solid || !s->top || !s->bodies)
        return false;
    vxk_int_box box = {{0, 0, 0}, {DROP_SIZE_XZ - 1, DROP_SIZE_Y - 1, DROP_SIZE_XZ - 1}};
    if (vxk_world_read_box(terrain, s->solid, box) != VXK_OK)
        return false;
    uint8_t is_solid[256];
    vxk_chunk_solid_table(is_solid, vxk_world_materials(terrain));
    for (size_t i = 0; i < voxels; ++i)
        s->solid[i] = is_solid[s->solid[i]];
    for (int y = 0; y < DROP_SIZE_Y; ++y)
        for (int z = 0; z < DROP_SIZE_XZ; ++z)
            for (int x = 0; x < DROP_SIZE_XZ; ++x)
                if (s->solid[(size_t)x + DROP_SIZE_XZ * ((size_t)z + DROP_SIZE_XZ * (size_t)y)])
                    s->top[x + DROP_SIZE_XZ * z] = (int16_t)(y + 1);

    // Layers of a square lattice (spacing >= 2 m) over the interior, 2 m apart vertically.
    const uint32_t per_layer_max = (uint32_t)((DROP_SIZE_XZ - 2 * DROP_MARGIN) / DROP_LATTICE) *
                                   (uint32_t)((DROP_SIZE_XZ - 2 * DROP_MARGIN) / DROP_LATTICE);
    uint32_t layers = (n + per_layer_max - 1) / per_layer_max;
    uint32_t per_layer = (n + layers - 1) / layers;
    uint32_t side = (uint32_t)ceil(sqrt((double)per_layer));
    float spacing = (float)(DROP_SIZE_XZ - 2 * DROP_MARGIN) / (float)side;
    uint64_t rng = s->seed * 0x2545F4914F6CDD1Dull + 77;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t layer = k / per_layer, cell = k % per_layer;
        float jx = (float)(vxk_step_unit_random(&rng) - 0.5) * 0.2f;
        float jz = (float)(vxk_step_unit_random(&rng) - 0.5) * 0.2f;
        float x = DROP_MARGIN + ((float)(cell % side) + 0.5f) * spacing + jx;
        float z = DROP_MARGIN + ((float)(cell / side) + 0.5f) * spacing + jz;
        int top = 0;
        for (int dz = -1; dz <= 1; ++dz)
            for (int dx = -1; dx <= 1; ++dx) {
                int t = column_top(s, (int)floorf(x) + dx, (int)floorf(z) + dz);
                top = t > top ? t : top;
            }
        step_body* b = &s->bodies[k];
        b->box = (int)(vxk_step_random(&rng) & 1);
        b->half = 0.5f;
        b->pose.p = (vxk_vec3){x, (float)top + 3.0f + DROP_LATTICE * (float)layer, z};
        b->pose.q = vxk_step_random_rotation(&rng);
    }
    s->count = n;
    return true;
}

// The parallel solve's scene: 10,000 unit boxes in a 25 x 25 x 16 block, face to face, on flat
// stone: one island of about 118,000 manifolds (faces, edges and corners touch).
static bool make_block(step_scene* s)
{
    s->pyramid = s->block = true;
    s->count = 25 * 25 * 16;
    s->bodies = (step_body*)malloc(sizeof(step_body) * s->count);
    if (!s->bodies)
        return false;
    uint32_t k = 0;
    for (int y = 0; y < 16; ++y)
        for (int z = 0; z < 25; ++z)
            for (int x = 0; x < 25; ++x) {
                step_body* b = &s->bodies[k++];
                b->box = 1;
                b->half = 0.5f;
                b->pose.p = (vxk_vec3){(float)x - 12.0f, 0.5f + (float)y, (float)z - 12.0f};
                b->pose.q = (vxk_quat){0, 0, 0, 1};
            }
    return true;
}

static bool make_pyramid(step_scene* s, uint32_t base)
{
    s->pyramid = true;
    s->base = base;
    s->count = base * (base + 1) / 2;
    s->bodies = (step_body*)malloc(sizeof(step_body) * s->count);
    if (!s->bodies)
        return false;
    uint32_t k = 0;
    for (uint32_t row = 0; row < base; ++row) {
        uint32_t in_row = base - row;
        for (uint32_t j = 0; j < in_row; ++j) {
            step_body* b = &s->bodies[k++];
            b->box = 1;
            b->half = 0.5f;
            b->pose.p =
                (vxk_vec3){((float)j - 0.5f * (float)(in_row - 1)) * (1.0f + PYRAMID_GAP_X),
                           0.5f + PYRAMID_GAP_Y + (float)row * (1.0f + PYRAMID_GAP_Y), 0.0f};
            b->pose.q = (vxk_quat){0, 0, 0, 1};
        }
    }
    return true;
}

static void free_scene(step_scene* s)
{
    free(s->bodies);
    free(s->solid);
    free(s->top);
}

// ---- outcome ---------------------------------------------------------------------------------

static void judge(const step_scene* s, const vxk_transform* poses, step_outcome* out)
{
    out->tunnelled = out->below_surface = out->off_edge = 0;
    out->max_shift = 0;
    out->top_drop = 0;
    for (uint32_t i = 0; i < s->count; ++i) {
        vxk_vec3 p = poses[i].p;
        if (s->pyramid) {
            // through the ground: over it and below its plane by more than a box size (boxes
            // that slid off its sides count as off the edge)
            float fx = s->block ? 40.0f : 64.0f, fz = s->block ? 40.0f : 8.0f;
            if (p.x < -fx || p.x >= fx || p.z < -fz || p.z >= fz)
                out->off_edge++;
            else
                out->tunnelled += p.y < -1.0f;
            double dx = p.x - s->bodies[i].pose.p.x, dz = p.z - s->bodies[i].pose.p.z;
            double shift = sqrt(dx * dx + dz * dz);
            out->max_shift = shift > out->max_shift ? shift : out->max_shift;
            continue;
        }
        if (p.x < 0 || p.z < 0 || p.x >= DROP_SIZE_XZ || p.z >= DROP_SIZE_XZ) {
            out->off_edge++; // rolled off the terrain's sides: not tunnelling
            continue;
        }
        // inside a solid voxel, or under the terrain's floor (y = 0) within its footprint
        out->tunnelled += solid_at(s, p) || p.y < 0.0f;
        out->below_surface += p.y < (float)column_top(s, (int)floorf(p.x), (int)floorf(p.z));
    }
    if (s->pyramid) {
        uint32_t top = s->count - 1;
        out->top_drop = s->bodies[top].pose.p.y - poses[top].p.y;
        out->stands = out->max_shift <= 0.25 && out->top_drop < 1.0;
    }
}

static void time_figures(step_outcome* out, double* times, uint32_t steps)
{
    double total = 0, largest = 0;
    for (uint32_t i = 0; i < steps; ++i) {
        total += times[i];
        largest = times[i] > largest ? times[i] : largest;
    }
    out->total_s = total;
    out->mean_ms = 1e3 * total / steps;
    out->max_ms = 1e3 * largest;
    out->median_ms = 1e3 * vxk_bench_median(times, (int)steps);
}

// ---- ours ------------------------------------------------------------------------------------

static bool run_ours(const step_scene* s, vxk_jobs* jobs, uint32_t steps, step_outcome* out,
                     uint32_t* contacts, bool sleep)
{
    vxk_world_def def = vxk_default_world_def();
    def.jobs = jobs;
    def.enable_sleep = sleep;
    vxk_world* world = NULL;
    vxk_status st = vxk_world_create(&def, &world);
    if (st == VXK_OK)
        st = build_terrain(world, s);
    vxk_body_id* ids = (vxk_body_id*)malloc(sizeof(vxk_body_id) * s->count);
    vxk_transform* poses = (vxk_transform*)malloc(sizeof(vxk_transform) * s->count);
    double* times = (double*)malloc(sizeof(double) * steps);
    double* stages = (double*)malloc(sizeof(double) * steps * VXK_STEP_STAGE_COUNT);
    if (!ids || !poses || !times || !stages)
        st = VXK_ERR_OUT_OF_MEMORY;
    const vxk_material_table* table = world ? vxk_world_materials(world) : NULL;
    for (uint32_t i = 0; i < s->count && st == VXK_OK; ++i) {
        const step_body* b = &s->bodies[i];
        vxk_body_def bd = vxk_default_body_def();
        bd.position = b->pose.p;
        bd.rotation = b->pose.q;
        bd.friction = table->materials[BODY_MATERIAL].friction;
        bd.restitution = 0.0f;
        bd.shape = b->box ? vxk_box_shape((vxk_vec3){b->half, b->half, b->half}, BODY_MATERIAL)
                          : vxk_sphere_shape(b->half, BODY_MATERIAL);
        st = vxk_body_create(world, &bd, &ids[i]);
    }
    if (st == VXK_OK)
        st = vxk_world_step(world, 0.0f); // derived terrain data, outside the timing
    for (uint32_t i = 0; i < steps && st == VXK_OK; ++i) {
        double t0 = vxk_bench_now();
        st = vxk_world_step(world, STEP_DT);
        times[i] = vxk_bench_now() - t0;
        vxk_world_step_stats stats;
        vxk_world_get_step_stats(world, &stats);
        for (int k = 0; k < VXK_STEP_STAGE_COUNT; ++k)
            stages[(size_t)k * steps + i] = stats.stage_seconds[k];
    }
    if (st == VXK_OK) {
        for (int k = 0; k < VXK_STEP_STAGE_COUNT; ++k)
            out->stage_ms[k] = 1e3 * vxk_bench_median(stages + (size_t)k * steps, (int)steps);
        out->awake = 0;
        for (uint32_t i = 0; i < s->count && st == VXK_OK; ++i) {
            vxk_body_info info;
            st = vxk_body_get_transform(world, ids[i], &poses[i]);
            if (st == VXK_OK)
                st = vxk_body_get_info(world, ids[i], &info);
            out->awake += st == VXK_OK && info.awake;
        }
    }
    if (st == VXK_OK) {
        judge(s, poses, out);
        time_figures(out, times, steps);
        out->hash = vxk_world_hash(world);
        *contacts = vxk_world_get_contacts(world, NULL, 0);
    } else {
        fprintf(stderr, "bench step %s: ours failed: %s\n", s->name, vxk_status_string(st));
    }
    free(ids);
    free(poses);
    free(times);
    free(stages);
    vxk_world_destroy(world);
    return st == VXK_OK;
}

// ---- Bullet ----------------------------------------------------------------------------------

#ifdef VXK_HAVE_BULLET
// Bullet's mass of a body: the density of its material times its volume (ours computes the same).
static float body_mass(const step_body* body, const vxk_material_table* table)
{
    double density = table->materials[BODY_MATERIAL].density, h = body->half;
    return (float)(density *
                   (body->box ? 8.0 * h * h * h : 4.0 / 3.0 * 3.141592653589793 * h * h * h));
}

static bool run_bullet(const step_scene* s, uint32_t steps, int sleeping, step_outcome* out,
                       uint32_t* triangles, uint32_t* manifolds, uint32_t* points)
{
    vxk_world_def def = vxk_default_world_def();
    vxk_world* terrain = NULL;
    vxk_bullet_step_world* bw = vxk_bullet_step_create(def.gravity, sleeping);
    bool ok =
        bw && vxk_world_create(&def, &terrain) == VXK_OK && build_terrain(terrain, s) == VXK_OK;
    const vxk_material_table* table = terrain ? vxk_world_materials(terrain) : NULL;
    float friction = table ? sqrtf(table->materials[BODY_MATERIAL].friction) : 0;
    if (ok && s->pyramid) {
        ok = vxk_bullet_step_add_ground_box(
                 bw, (vxk_vec3){0, -4, 0}, s->block ? (vxk_vec3){40, 4, 40} : (vxk_vec3){64, 4, 8},
                 sqrtf(table->materials[VXK_MAT_STONE].friction), 0.0f) == 0;
        *triangles = 0;
    } else if (ok) {
        *triangles = 0;
        ok = vxk_bullet_step_add_terrain(bw, terrain, triangles, NULL);
    }
    // Bodies: restitution 0.1 against terrain restitution 1 (Bullet multiplies them): 0.1 on
    // terrain as ours' grass and dirt, 0.01 between bodies (ours: 0).
    for (uint32_t i = 0; i < s->count && ok; ++i) {
        const step_body* b = &s->bodies[i];
        ok = vxk_bullet_step_add_body(bw, b->box ? VXK_BULLET_STEP_BOX : VXK_BULLET_STEP_SPHERE,
                                      (vxk_vec3){b->half, b->half, b->half}, body_mass(b, table),
                                      b->pose, friction, s->pyramid ? 0.0f : 0.1f) == 0;
    }
    double* times = (double*)malloc(sizeof(double) * steps);
    vxk_transform* poses = (vxk_transform*)malloc(sizeof(vxk_transform) * s->count);
    ok = ok && times && poses;
    for (uint32_t i = 0; i < steps && ok; ++i) {
        double t0 = vxk_bench_now();
        vxk_bullet_step_step(bw, STEP_DT);
        times[i] = vxk_bench_now() - t0;
    }
    if (ok) {
        out->awake = 0;
        for (uint32_t i = 0; i < s->count; ++i) {
            vxk_bullet_step_get_pose(bw, i, &poses[i]);
            out->awake += (uint32_t)vxk_bullet_step_is_awake(bw, i);
        }
        judge(s, poses, out);
        time_figures(out, times, steps);
        vxk_bullet_step_contacts(bw, manifolds, points);
    } else {
        fprintf(stderr, "bench step %s: Bullet failed\n", s->name);
    }
    free(times);
    free(poses);
    vxk_bullet_step_destroy(bw);
    vxk_world_destroy(terrain);
    return ok;
}
#endif

// ---- the runner ------------------------------------------------------------------------------

static void figure(vxk_bench* b, const char* prefix, const char* key, double value)
{
    char name[48];
    snprintf(name, sizeof(name), "%s%s", prefix, key);
    vxk_bench_figure_add(b, name, value);
}

static void outcome_figures(vxk_bench* b, const char* prefix, const char* side, const step_scene* s,
                            const step_outcome* o)
{
    char key[48];
#define SIDE_FIGURE(name, value)                         \
    do {                                                 \
        snprintf(key, sizeof(key), "%s_%s", side, name); \
        figure(b, prefix, key, value);                   \
    } while (0)
    SIDE_FIGURE("ms", o->median_ms);
    SIDE_FIGURE("mean_ms", o->mean_ms);
    SIDE_FIGURE("max_ms", o->max_ms);
    SIDE_FIGURE("tunnelled", o->tunnelled);
    SIDE_FIGURE("awake", o->awake);
    if (s->pyramid) {
        SIDE_FIGURE("stands", o->stands);
        SIDE_FIGURE("max_shift", o->max_shift);
        SIDE_FIGURE("top_drop", o->top_drop);
    } else {
        SIDE_FIGURE("below_surface", o->below_surface);
    }
    SIDE_FIGURE("off_edge", o->off_edge);
#undef SIDE_FIGURE
}

bool vxk_step_scene_run(vxk_bench* b, const vxk_step_options* o, uint64_t* ours_hash)
{
    const char* prefix = o->prefix ? o->prefix : "";
    uint32_t steps = o->steps ? o->steps : 600;
    step_scene s = {0};
    s.name = o->scene;
    s.seed = o->seed;
    bool ok = true;
    if (strcmp(o->scene, "drop") == 0) {
        vxk_world* terrain = NULL;
        vxk_world_def def = vxk_default_world_def();
        def.jobs = o->jobs;
        ok = vxk_world_create(&def, &terrain) == VXK_OK && build_terrain(terrain, &s) == VXK_OK &&
             make_drop(&s, terrain, o->bodies ? o->bodies : 1000);
        vxk_world_destroy(terrain);
    } else if (strcmp(o->scene, "pyramid") == 0) {
        ok = make_pyramid(&s, 20);
    } else if (strcmp(o->scene, "large_pyramid") == 0) {
        ok = make_pyramid(&s, 100);
    } else if (strcmp(o->scene, "block") == 0) {
        ok = make_block(&s);
    } else {
        fprintf(stderr, "bench step: no scene %s\n", o->scene);
        return false;
    }
    if (!ok) {
        fprintf(stderr, "bench step %s: cannot build the scene\n", o->scene);
        free_scene(&s);
        return false;
    }
    figure(b, prefix, "bodies", s.count);
    figure(b, prefix, "steps", steps);

    step_outcome ours = {0}, bullet = {0}, nosleep = {0};
    bool have_ours = false, have_bullet = false, have_nosleep = false;
#ifdef VXK_HAVE_BULLET
    if (o->bullet) {
        uint32_t triangles = 0, manifolds = 0, points = 0;
        if (o->progress)
            vxk_bench_progress(b, "step: Bullet");
        have_bullet = run_bullet(&s, steps, 1, &bullet, &triangles, &manifolds, &points);
        ok = ok && have_bullet;
        if (have_bullet) {
            outcome_figures(b, prefix, "bullet", &s, &bullet);
            figure(b, prefix, "bullet_terrain_tris", triangles);
            figure(b, prefix, "bullet_manifolds", manifolds);
            figure(b, prefix, "bullet_contact_points", points);
            char name[48];
            snprintf(name, sizeof(name), "%sbullet_%s", prefix, s.name);
            vxk_bench_phase_add(b, name, bullet.total_s, (double)steps * s.count);
        }
        if (o->bullet_nosleep) {
            have_nosleep = run_bullet(&s, steps, 0, &nosleep, &triangles, &manifolds, &points);
            if (have_nosleep) {
                figure(b, prefix, "bullet_nosleep_ms", nosleep.median_ms);
                figure(b, prefix, "bullet_nosleep_mean_ms", nosleep.mean_ms);
                figure(b, prefix, "bullet_nosleep_tunnelled", nosleep.tunnelled);
                if (s.pyramid)
                    figure(b, prefix, "bullet_nosleep_stands", nosleep.stands);
            }
        }
    }
#endif
    if (o->ours) {
        uint32_t contacts = 0;
        if (o->progress)
            vxk_bench_progress(b, "step: ours");
        have_ours = run_ours(&s, NULL, steps, &ours, &contacts, true);
        ok = ok && have_ours;
        if (have_ours) {
            outcome_figures(b, prefix, "ours", &s, &ours);
            figure(b, prefix, "ours_contacts", contacts);
            // Where our step's time goes: the median of each stage (vxk_world_step_stats).
            for (int k = 0; k < VXK_STEP_STAGE_COUNT; ++k) {
                char key[48];
                snprintf(key, sizeof(key), "ours_%s_ms", vxk_step_stage_name((vxk_step_stage)k));
                figure(b, prefix, key, ours.stage_ms[k]);
            }
            char name[48];
            snprintf(name, sizeof(name), "%sours_%s", prefix, s.name);
            vxk_bench_phase_add(b, name, ours.total_s, (double)steps * s.count);
            *ours_hash = ours.hash;
        }
        uint32_t workers = o->jobs ? vxk_jobs_worker_count(o->jobs) : 1;
        if (have_ours && workers > 1) {
            step_outcome threaded = {0};
            if (run_ours(&s, o->jobs, steps, &threaded, &contacts, true)) {
                figure(b, prefix, "ours_threads", workers);
                figure(b, prefix, "ours_threaded_ms", threaded.median_ms);
                figure(b, prefix, "ours_threaded_speedup", ours.median_ms / threaded.median_ms);
                figure(b, prefix, "ours_hash_match_threads", threaded.hash == ours.hash);
                char name[48];
                snprintf(name, sizeof(name), "%sours_%s_%ut", prefix, s.name, workers);
                vxk_bench_phase_add(b, name, threaded.total_s, (double)steps * s.count);
                *ours_hash = threaded.hash;
            } else {
                ok = false;
            }
        }
    }
    if (have_ours && have_bullet)
        figure(b, prefix, "bullet_step_ratio", bullet.median_ms / ours.median_ms);
    // Equal work without sleeping: both engines with it off (one thread).
    if (have_ours && have_nosleep) {
        step_outcome ours_awake = {0};
        uint32_t contacts = 0;
        if (o->progress)
            vxk_bench_progress(b, "step: ours, sleeping off");
        if (run_ours(&s, NULL, steps, &ours_awake, &contacts, false)) {
            figure(b, prefix, "ours_nosleep_ms", ours_awake.median_ms);
            figure(b, prefix, "ours_nosleep_tunnelled", ours_awake.tunnelled);
            if (s.pyramid)
                figure(b, prefix, "ours_nosleep_stands", ours_awake.stands);
            figure(b, prefix, "bullet_nosleep_step_ratio",
                   nosleep.median_ms / ours_awake.median_ms);
        } else {
            ok = false;
        }
    }
    free_scene(&s);
    return ok;
}

// ---- the `vxk bench` phase -------------------------------------------------------------------

void vxk_bench_step(vxk_bench* b)
{
    vxk_step_options o = {0};
    o.scene = "drop";
    o.bodies = b->quick ? 1000 : 4000;
    o.steps = b->quick ? 120 : 600;
    o.jobs = b->jobs;
    o.seed = b->seed;
    o.bullet = true;
    o.bullet_nosleep = true;
    o.ours = true;
    o.prefix = "step_";
    o.progress = b->progress;
    uint64_t hash = 0;
    if (!vxk_step_scene_run(b, &o, &hash)) {
        fprintf(stderr, "phase step: failed\n");
        return;
    }
    vxk_bench_hash(b, &hash, sizeof(hash));
    vxk_bench_figure_add(b, "step_hash_low32", (double)(uint32_t)hash);
}
