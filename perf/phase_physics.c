// phase_physics.c: the physics stress run, what `vxk bench` runs by default (issue 17): a
// generated world (1024 x 128 x 1024 voxels at the full size), bodies dropped over its middle in
// waves (spheres, capsules, boxes, and voxel bodies made from the .vox samples of the shared data),
// a few hundred raycasts per step that hit terrain and bodies (vxk_raycast_query_batch with
// filters), 600 steps at 60 Hz. Figures: each stage's ms per step (median and 95th percentile, from
// vxk_world_get_step_stats), steps/s and body-steps/s, contacts, islands, sleeping bodies, the
// world's memory, ray hits, tunnelled bodies and the final vxk_world_hash.
//
// Peer (when built with Bullet): the same scene in Bullet's btDiscreteDynamicsWorld (Bullet
// 10 iterations, one internal step of 1/60 s, its default deactivation), stepped after ours in
// every frame: terrain as one btBvhTriangleMeshShape per chunk, spheres, capsules and boxes as
// Bullet primitives, voxel bodies as btCompoundShapes of btBoxShape from our box compounds
// (Voxtric's setup, seed 004). With one thread the figures get bullet_step_ratio (Bullet's median
// step / ours) and bullet_narrowphase_ratio: the narrowphase of the voxel-voxel pairs alone, timed
// on both sides over the same pairs at the same poses (see narrowphase_ratio below).
//
// Destruction (issue 18): before the drop, pillars carrying decks (some held at one end only) are
// built over the region; the edit system runs with its writer thread and connectivity splitting;
// every DESTRUCTION_EVERY steps a few explosions (carved spheres) cut pillars and decks and dig
// craters, and the parts they cut loose fall as new voxel bodies. Bullet's scene has neither
// (its terrain is static triangle meshes): ours carries the edits, the searches and the debris
// on top of the same drop.
//
// Everything is seeded (b->seed): the world, the bodies, the rays. The run's digest folds the
// final vxk_world_hash and every ray result, so `--threads 1` and `--threads 2` print the same
// hash when the simulation is deterministic.
#include "bench.h"
#include "math3.h"
#include "peer_bullet_step.h"
#include "scenes.h"
#include "step_common.h"

#include <vxk/body.h>
#include <vxk/boxes.h>
#include <vxk/chunk_geometry.h>
#include <vxk/edit.h>
#include <vxk/raycast.h>
#include <vxk/vox.h>
#include <vxk/world.h>
#include <vxk/worldgen.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PHYSICS_DT (1.0f / 60.0f)
// A .vox shape of a voxel body spans at most this many voxels per axis (larger models are cut
// into tiles of this size) and has at most this many compound boxes.
#define SHAPE_MAX_DIM 32
#define SHAPE_MAX_BOXES 160
#define SHAPE_MIN_SOLID 24
#define NARROW_REPEATS 31
#define DESTRUCTION_EVERY 30
#define STRUCTURE_SPAN 12 // voxels between a structure's pillars

typedef struct physics_config {
    int32_t size_x, size_y, size_z; // world, voxels (1 m)
    int32_t region;                 // side of the square the bodies are dropped over
    uint32_t waves, per_wave, wave_every, steps, rays;
} physics_config;

static physics_config config_of(const vxk_bench* b)
{
    physics_config c = b->quick ? (physics_config){192, 64, 192, 48, 3, 48, 30, 90, 64}
                                : (physics_config){1024, 128, 1024, 160, 10, 400, 50, 600, 256};
    double scale = b->scale > 0.0 ? b->scale : 1.0;
    int32_t xz = (int32_t)((double)c.size_x * scale + 0.5);
    xz = xz < 2 * c.region ? 2 * c.region : (xz > 16384 ? 16384 : xz);
    c.size_x = c.size_z = xz;
    return c;
}

// ---- voxel shapes from the .vox samples --------------------------------------------------------

typedef struct vox_shape {
    vxk_voxel_grid grid; // owned, cropped to its solid voxels
    vxk_box_list boxes;  // the box compound (any solid), as the body builds it
} vox_shape;

typedef struct shape_library {
    vox_shape* shapes;
    uint32_t count, capacity;
    bool from_samples;
    uint64_t boxes; // over all shapes
} shape_library;

static void library_free(shape_library* lib)
{
    for (uint32_t i = 0; i < lib->count; ++i) {
        vxk_voxel_grid_free(&lib->shapes[i].grid);
        vxk_box_list_free(&lib->shapes[i].boxes);
    }
    free(lib->shapes);
    memset(lib, 0, sizeof(*lib));
}

// Adds the solid voxels of box [lo, lo + size) of grid g, cropped to their bounds, when there are
// enough of them and their compound is small enough.
static void library_add(shape_library* lib, const vxk_voxel_grid* g, vxk_int3 lo, vxk_int3 size)
{
    int32_t mn[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, mx[3] = {-1, -1, -1};
    uint32_t solid = 0;
    for (int32_t y = lo.y; y < lo.y + size.y; ++y)
        for (int32_t z = lo.z; z < lo.z + size.z; ++z)
            for (int32_t x = lo.x; x < lo.x + size.x; ++x) {
                if (!vxk_voxel_grid_get(g, (vxk_int3){x, y, z}))
                    continue;
                int32_t v[3] = {x, y, z};
                for (int a = 0; a < 3; ++a) {
                    mn[a] = v[a] < mn[a] ? v[a] : mn[a];
                    mx[a] = v[a] > mx[a] ? v[a] : mx[a];
                }
                ++solid;
            }
    if (solid < SHAPE_MIN_SOLID)
        return;
    vox_shape s = {0};
    vxk_int3 n = {mx[0] - mn[0] + 1, mx[1] - mn[1] + 1, mx[2] - mn[2] + 1};
    if (vxk_voxel_grid_create(&s.grid, n) != VXK_OK)
        return;
    for (int32_t y = 0; y < n.y; ++y)
        for (int32_t z = 0; z < n.z; ++z)
            for (int32_t x = 0; x < n.x; ++x)
                s.grid.voxels[(size_t)x + (size_t)n.x * ((size_t)z + (size_t)n.z * (size_t)y)] =
                    vxk_voxel_grid_get(g, (vxk_int3){mn[0] + x, mn[1] + y, mn[2] + z});
    bool ok = vxk_boxes_grid(&s.boxes, &s.grid, NULL, VXK_BOXES_ANY_SOLID) == VXK_OK &&
              s.boxes.count <= SHAPE_MAX_BOXES;
    if (ok && lib->count == lib->capacity) {
        uint32_t capacity = 2 * lib->capacity + 16;
        vox_shape* grown = (vox_shape*)realloc(lib->shapes, sizeof(vox_shape) * capacity);
        ok = grown != NULL;
        if (ok) {
            lib->shapes = grown;
            lib->capacity = capacity;
        }
    }
    if (!ok) {
        vxk_voxel_grid_free(&s.grid);
        vxk_box_list_free(&s.boxes);
        return;
    }
    lib->boxes += s.boxes.count;
    lib->shapes[lib->count++] = s;
}

static const char* data_dir(void)
{
    const char* dir = getenv("VXK_DATA_DIR");
    return dir && *dir ? dir : VXK_PERF_DATA_DIR;
}

// Every model of the samples, in file order, cut into tiles of at most SHAPE_MAX_DIM per axis.
// Without samples (no shared data), blobs of random voxels stand in (said on stderr and in the
// figure physics_vox_samples = 0).
static void library_load(shape_library* lib, uint64_t seed)
{
    static const char* const files[] = {"vox/ogt_test_multiple_model_scene.vox",
                                        "vox/dotvox_axes.vox", "vox/floooh_scene.vox",
                                        "vox/floooh_cassette.vox"};
    memset(lib, 0, sizeof(*lib));
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); ++f) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", data_dir(), files[f]);
        vxk_vox_scene scene;
        if (vxk_vox_load_grids_file(path, NULL, &scene) != VXK_OK)
            continue;
        for (uint32_t m = 0; m < scene.model_count; ++m) {
            const vxk_voxel_grid* g = &scene.models[m];
            for (int32_t y = 0; y < g->size.y; y += SHAPE_MAX_DIM)
                for (int32_t z = 0; z < g->size.z; z += SHAPE_MAX_DIM)
                    for (int32_t x = 0; x < g->size.x; x += SHAPE_MAX_DIM) {
                        vxk_int3 lo = {x, y, z};
                        vxk_int3 size = {
                            g->size.x - x < SHAPE_MAX_DIM ? g->size.x - x : SHAPE_MAX_DIM,
                            g->size.y - y < SHAPE_MAX_DIM ? g->size.y - y : SHAPE_MAX_DIM,
                            g->size.z - z < SHAPE_MAX_DIM ? g->size.z - z : SHAPE_MAX_DIM};
                        library_add(lib, g, lo, size);
                    }
        }
        vxk_vox_scene_free(&scene);
    }
    lib->from_samples = lib->count > 0;
    if (lib->from_samples)
        return;
    fprintf(stderr, "phase physics: no .vox samples under %s: random voxel blobs instead\n",
            data_dir());
    uint64_t rng = seed ^ 0xB10Bull;
    for (int k = 0; k < 8; ++k) {
        vxk_voxel_grid g;
        vxk_int3 n = {6 + (int32_t)(vxk_step_random(&rng) % 7),
                      6 + (int32_t)(vxk_step_random(&rng) % 7),
                      6 + (int32_t)(vxk_step_random(&rng) % 7)};
        if (vxk_voxel_grid_create(&g, n) != VXK_OK)
            continue;
        for (size_t i = 0; i < (size_t)n.x * n.y * n.z; ++i)
            g.voxels[i] = vxk_step_random(&rng) % 10 < 6 ? VXK_MAT_WOOD : 0;
        library_add(lib, &g, (vxk_int3){0, 0, 0}, n);
        vxk_voxel_grid_free(&g);
    }
}

// ---- the scene ---------------------------------------------------------------------------------

enum { KIND_SPHERE, KIND_BOX, KIND_VOXELS, KIND_CAPSULE };

typedef struct body_spec {
    uint8_t kind;
    uint8_t material; // spheres and boxes
    uint32_t shape;   // voxel bodies: index into the library
    float voxel_size;
    float radius;
    vxk_vec3 half;
    vxk_transform pose;
    vxk_vec3 v, w;
} body_spec;

typedef struct physics_scene {
    physics_config cfg;
    vxk_world* world;
    shape_library lib;
    body_spec* specs; // waves * per_wave, in creation order
    uint32_t spec_count;
    vxk_body_id* ids; // of the bodies created so far (creation order)
    uint32_t created;
    int32_t x0, z0;      // the drop region's corner (voxels)
    int16_t* top;        // per region column (x + region * z): y above its highest solid voxel
    uint32_t structures; // pillars-and-deck structures built over the region
    vxk_int3* pillars;   // per structure: its first pillar's base (x, ground y, z)
    int32_t* deck_y;     // per structure: its deck's lowest layer
    float mean_top;      // over the region
    uint8_t solid[256];  // material kinds: solid
} physics_scene;

static int32_t column_top(const physics_scene* s, int32_t x, int32_t z)
{
    int32_t r = s->cfg.region;
    x -= s->x0;
    z -= s->z0;
    x = x < 0 ? 0 : (x >= r ? r - 1 : x);
    z = z < 0 ? 0 : (z >= r ? r - 1 : z);
    return s->top[x + r * z];
}

// Structures on a lattice over the region: two 3 x 3 pillars STRUCTURE_SPAN apart along x, 10-16
// voxels tall, a deck 3 wide and 2 thick over them running 8 voxels past the second pillar (every
// other structure: past the first one only, held at one end), in stone and wood.
static bool build_structures(physics_scene* s, uint64_t seed)
{
    int32_t r = s->cfg.region, cells = r / 40 > 1 ? r / 40 : 1;
    s->structures = (uint32_t)(cells * cells);
    s->pillars = (vxk_int3*)calloc(s->structures, sizeof(vxk_int3));
    s->deck_y = (int32_t*)calloc(s->structures, sizeof(int32_t));
    if (!s->pillars || !s->deck_y)
        return false;
    uint64_t rng = seed ^ 0x57C0C7u;
    for (uint32_t i = 0; i < s->structures; ++i) {
        int32_t cx = (int32_t)(i % (uint32_t)cells), cz = (int32_t)(i / (uint32_t)cells);
        int32_t x = s->x0 + cx * (r / cells) + 4, z = s->z0 + cz * (r / cells) + 4;
        int32_t ground = 0;
        for (int32_t dx = 0; dx < STRUCTURE_SPAN + 3; ++dx)
            for (int32_t dz = 0; dz < 3; ++dz) {
                int32_t t = column_top(s, x + dx, z + dz);
                ground = t > ground ? t : ground;
            }
        int32_t height = 10 + (int32_t)(vxk_step_unit_random(&rng) * 6.0);
        int32_t deck = ground + height;
        if (deck + 2 >= s->cfg.size_y)
            continue;
        bool one_end = i % 2 == 1;
        vxk_int_box p1 = {{x, 0, z}, {x + 2, deck - 1, z + 2}};
        vxk_int_box p2 = {{x + STRUCTURE_SPAN, 0, z}, {x + STRUCTURE_SPAN + 2, deck - 1, z + 2}};
        vxk_int_box d = {{x, deck, z}, {x + STRUCTURE_SPAN + 10, deck + 1, z + 2}};
        if (vxk_world_fill_box(s->world, p1, VXK_MAT_STONE) != VXK_OK ||
            (!one_end && vxk_world_fill_box(s->world, p2, VXK_MAT_STONE) != VXK_OK) ||
            vxk_world_fill_box(s->world, d, VXK_MAT_WOOD) != VXK_OK)
            return false;
        s->pillars[i] = (vxk_int3){x, ground, z};
        s->deck_y[i] = deck;
    }
    return true;
}

// The explosions of one round: the pillar of one structure cut near its base, the deck of
// another cut past its pillars, a crater somewhere in the region. Returns the edits submitted.
static uint32_t explode(physics_scene* s, uint64_t seed, uint32_t round)
{
    uint64_t rng = seed ^ (0xB00Bu + 7919u * round);
    uint32_t submitted = 0;
    vxk_edit e[3];
    uint32_t n = 0;
    if (s->structures) {
        uint32_t a = (uint32_t)(vxk_step_unit_random(&rng) * s->structures) % s->structures;
        uint32_t b = (a + 1 + round) % s->structures;
        if (s->deck_y[a]) {
            vxk_int3 p = s->pillars[a];
            e[n++] = vxk_edit_carve_sphere(
                (vxk_vec3){(float)p.x + 1.5f, (float)p.y + 3.5f, (float)p.z + 1.5f}, 2.6f);
        }
        if (s->deck_y[b]) {
            vxk_int3 p = s->pillars[b];
            float along = 5.0f + (float)(vxk_step_unit_random(&rng) * 14.0);
            e[n++] = vxk_edit_carve_sphere(
                (vxk_vec3){(float)p.x + along, (float)s->deck_y[b] + 1.0f, (float)p.z + 1.5f},
                2.8f);
        }
    }
    float cx = (float)s->x0 + (float)(vxk_step_unit_random(&rng) * s->cfg.region);
    float cz = (float)s->z0 + (float)(vxk_step_unit_random(&rng) * s->cfg.region);
    float top = (float)column_top(s, (int32_t)cx, (int32_t)cz);
    e[n++] = vxk_edit_carve_sphere((vxk_vec3){cx, top, cz},
                                   4.0f + (float)(vxk_step_unit_random(&rng) * 3.0));
    for (uint32_t k = 0; k < n; ++k) {
        uint64_t ticket;
        submitted += vxk_edit_submit(s->world, &ticket, &e[k], VXK_EDIT_WAIT_FOREVER) == VXK_OK;
    }
    return submitted;
}

static bool read_tops(physics_scene* s)
{
    int32_t r = s->cfg.region, h = s->cfg.size_y;
    size_t count = (size_t)r * (size_t)r * (size_t)h;
    uint8_t* ids = (uint8_t*)malloc(count);
    s->top = (int16_t*)calloc((size_t)r * (size_t)r, sizeof(int16_t));
    vxk_int_box box = {{s->x0, 0, s->z0}, {s->x0 + r - 1, h - 1, s->z0 + r - 1}};
    bool ok = ids && s->top && vxk_world_read_box(s->world, ids, box) == VXK_OK;
    double sum = 0.0;
    for (int32_t z = 0; ok && z < r; ++z)
        for (int32_t x = 0; x < r; ++x) {
            int32_t top = 0;
            for (int32_t y = h - 1; y >= 0 && !top; --y)
                if (s->solid[ids[(size_t)x + (size_t)r * ((size_t)z + (size_t)r * (size_t)y)]])
                    top = y + 1;
            s->top[x + r * z] = (int16_t)top;
            sum += top;
        }
    s->mean_top = (float)(sum / ((double)r * r));
    free(ids);
    return ok;
}

static float random_in(uint64_t* rng, float lo, float hi)
{
    return lo + (hi - lo) * (float)vxk_step_unit_random(rng);
}

// Every body of every wave, seeded: a wave covers the region with a jittered lattice, each body
// 6 to 10 m above the highest column around it, falling and turning.
static bool plan_bodies(physics_scene* s, uint64_t seed)
{
    const physics_config* c = &s->cfg;
    s->spec_count = c->waves * c->per_wave;
    s->specs = (body_spec*)calloc(s->spec_count, sizeof(body_spec));
    s->ids = (vxk_body_id*)calloc(s->spec_count, sizeof(vxk_body_id));
    if (!s->specs || !s->ids)
        return false;
    uint32_t side = (uint32_t)ceil(sqrt((double)c->per_wave));
    float spacing = (float)c->region / (float)side;
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + 17;
    static const uint8_t materials[3] = {VXK_MAT_STONE, VXK_MAT_WOOD, VXK_MAT_METAL};
    for (uint32_t i = 0; i < s->spec_count; ++i) {
        body_spec* b = &s->specs[i];
        uint32_t cell = i % c->per_wave;
        float x = (float)s->x0 + ((float)(cell % side) + 0.5f) * spacing +
                  random_in(&rng, -0.25f, 0.25f) * spacing;
        float z = (float)s->z0 + ((float)(cell / side) + 0.5f) * spacing +
                  random_in(&rng, -0.25f, 0.25f) * spacing;
        int32_t top = 0;
        for (int dz = -2; dz <= 2; ++dz)
            for (int dx = -2; dx <= 2; ++dx) {
                int32_t t = column_top(s, (int32_t)floorf(x) + dx, (int32_t)floorf(z) + dz);
                top = t > top ? t : top;
            }
        double kind = vxk_step_unit_random(&rng);
        b->kind = kind < 0.3                     ? KIND_SPHERE
                  : kind < 0.4                   ? KIND_CAPSULE
                  : kind < 0.75 || !s->lib.count ? KIND_BOX
                                                 : KIND_VOXELS;
        b->material = materials[vxk_step_random(&rng) % 3];
        b->radius = random_in(&rng, 0.3f, 0.8f);
        b->half = (vxk_vec3){random_in(&rng, 0.25f, 0.8f), random_in(&rng, 0.25f, 0.8f),
                             random_in(&rng, 0.25f, 0.8f)};
        if (s->lib.count) {
            b->shape = (uint32_t)(vxk_step_random(&rng) % s->lib.count);
            const vxk_int3 n = s->lib.shapes[b->shape].grid.size;
            int32_t dim = n.x > n.y ? n.x : n.y;
            dim = dim > n.z ? dim : n.z;
            b->voxel_size = random_in(&rng, 1.0f, 2.5f) / (float)dim;
        }
        b->pose.p = (vxk_vec3){x, (float)top + random_in(&rng, 6.0f, 10.0f), z};
        b->pose.q = vxk_step_random_rotation(&rng);
        b->v = (vxk_vec3){random_in(&rng, -1.5f, 1.5f), random_in(&rng, -2.0f, 0.0f),
                          random_in(&rng, -1.5f, 1.5f)};
        b->w = (vxk_vec3){random_in(&rng, -1.5f, 1.5f), random_in(&rng, -1.5f, 1.5f),
                          random_in(&rng, -1.5f, 1.5f)};
    }
    return true;
}

static vxk_shape_def shape_of(const physics_scene* s, const body_spec* b)
{
    if (b->kind == KIND_SPHERE)
        return vxk_sphere_shape(b->radius, b->material);
    if (b->kind == KIND_BOX)
        return vxk_box_shape(b->half, b->material);
    if (b->kind == KIND_CAPSULE) // radius 0.18..0.48 m, half height 0.25..0.8 m
        return vxk_capsule_shape(b->half.y, 0.6f * b->radius, b->material);
    return vxk_voxel_shape(&s->lib.shapes[b->shape].grid, b->voxel_size);
}

static vxk_status create_body(vxk_world* world, const physics_scene* s, const body_spec* b,
                              vxk_transform pose, vxk_vec3 v, vxk_vec3 w, vxk_body_id* out)
{
    vxk_body_def def = vxk_default_body_def();
    def.position = pose.p;
    def.rotation = pose.q;
    def.linear_velocity = v;
    def.angular_velocity = w;
    def.restitution = 0.0f;
    def.shape = shape_of(s, b);
    return vxk_body_create(world, &def, out);
}

static bool solid_at(const physics_scene* s, vxk_vec3 p)
{
    vxk_int3 v = {(int32_t)floorf(p.x), (int32_t)floorf(p.y), (int32_t)floorf(p.z)};
    return s->solid[vxk_world_get_voxel(s->world, v)] != 0;
}

// Tunnelled as in phase_step.c: a centre (of mass) inside a solid terrain voxel, or below the
// world's floor (y = 0) over its footprint; bodies past the footprint's sides are off the edge.
// Whether a body at `pose` went through the terrain: off the world's edge, under its floor, or
// inside solid voxels: a sphere or box with its centre in one; a voxel body with more than half
// of its voxels' centres in them. (A voxel body's centre of mass need not lie in its own
// material: a concave piece resting across a step can have it a few millimetres inside the
// ground, which is no tunnelling.) `info`: the body's, for a voxel body's grid corner and voxel.
static void judge(const physics_scene* s, const body_spec* spec, const vxk_body_info* info,
                  vxk_transform pose, uint32_t* tunnelled, uint32_t* off_edge)
{
    vxk_vec3 p = pose.p;
    if (p.x < 0.0f || p.z < 0.0f || p.x >= (float)s->cfg.size_x || p.z >= (float)s->cfg.size_z) {
        ++*off_edge;
        return;
    }
    if (p.y < 0.0f) {
        ++*tunnelled;
        return;
    }
    if (spec->kind != KIND_VOXELS) {
        *tunnelled += solid_at(s, p);
        return;
    }
    const vxk_voxel_grid* g = &s->lib.shapes[spec->shape].grid;
    uint32_t solid = 0, inside = 0;
    float vs = info->voxel_size;
    vxk_vec3 origin = info->grid_origin;
    for (int32_t y = 0; y < g->size.y; ++y)
        for (int32_t z = 0; z < g->size.z; ++z)
            for (int32_t x = 0; x < g->size.x; ++x) {
                if (!vxk_voxel_grid_get(g, (vxk_int3){x, y, z}))
                    continue;
                vxk_vec3 local = {origin.x + ((float)x + 0.5f) * vs,
                                  origin.y + ((float)y + 0.5f) * vs,
                                  origin.z + ((float)z + 0.5f) * vs};
                ++solid;
                vxk_vec3 r = vxk_quat_rotate(pose.q, local);
                inside += solid_at(s, (vxk_vec3){p.x + r.x, p.y + r.y, p.z + r.z});
            }
    *tunnelled += 2 * inside > solid;
}

// ---- rays --------------------------------------------------------------------------------------

typedef struct ray_tally {
    uint64_t rays, terrain_hits, body_hits;
    uint64_t digest; // FNV-1a over every result's target, body index, voxel and distance bits
} ray_tally;

// The body enters by its index alone: ids carry their world's salt (vxk/id.h), and the digest
// must be the same for worlds built alike.
static void tally_add(ray_tally* t, const vxk_ray_result* r)
{
    t->terrain_hits += r->target == VXK_RAY_TARGET_TERRAIN;
    t->body_hits += r->target == VXK_RAY_TARGET_BODY;
    uint32_t words[7] = {r->target,
                         r->body.index,
                         0,
                         (uint32_t)r->voxel.x,
                         (uint32_t)r->voxel.y,
                         (uint32_t)r->voxel.z,
                         0};
    memcpy(&words[6], &r->distance, sizeof(float));
    const unsigned char* p = (const unsigned char*)words;
    for (size_t i = 0; i < sizeof(words); ++i)
        t->digest = (t->digest ^ p[i]) * 0x100000001B3ull;
    ++t->rays;
}

// A step's rays, seeded by the step: 40 % straight down over the region (terrain and dynamic
// bodies), 30 % from a body's centre in a random direction (everything but that body), 30 %
// across the region a few metres above the ground (bodies only).
static void make_rays(const physics_scene* s, uint64_t seed, uint32_t step, vxk_ray_query* q,
                      uint32_t count)
{
    uint64_t rng = seed ^ ((uint64_t)step * 0x9E3779B97F4A7C15ull + 0x5EED);
    float r = (float)s->cfg.region;
    for (uint32_t i = 0; i < count; ++i) {
        vxk_ray_query* out = &q[i];
        memset(out, 0, sizeof(*out));
        out->filter = vxk_default_ray_filter();
        uint32_t kind = i % 10;
        if (kind < 4 || s->created == 0) {
            out->ray.origin =
                (vxk_vec3){(float)s->x0 + random_in(&rng, 0, r), (float)s->cfg.size_y + 20.0f,
                           (float)s->z0 + random_in(&rng, 0, r)};
            out->ray.direction =
                (vxk_vec3){random_in(&rng, -0.1f, 0.1f), -1.0f, random_in(&rng, -0.1f, 0.1f)};
            out->ray.max_distance = 400.0f;
            out->filter.hit = VXK_RAY_HIT_TERRAIN | VXK_RAY_HIT_DYNAMIC;
        } else if (kind < 7) {
            vxk_body_id id = s->ids[vxk_step_random(&rng) % s->created];
            vxk_transform pose = {{0, 0, 0}, {0, 0, 0, 1}};
            vxk_body_get_transform(s->world, id, &pose);
            out->ray.origin = pose.p;
            vxk_quat q = vxk_step_random_rotation(&rng); // its x axis: a uniform direction
            out->ray.direction =
                (vxk_vec3){1.0f - 2.0f * (q.y * q.y + q.z * q.z), 2.0f * (q.x * q.y + q.w * q.z),
                           2.0f * (q.x * q.z - q.w * q.y)};
            out->ray.max_distance = 40.0f;
            out->filter.exclude = id;
        } else {
            out->ray.origin =
                (vxk_vec3){(float)s->x0 - 5.0f, s->mean_top + random_in(&rng, 0.5f, 6),
                           (float)s->z0 + random_in(&rng, 0, r)};
            out->ray.direction =
                (vxk_vec3){1.0f, random_in(&rng, -0.05f, 0.05f), random_in(&rng, -0.3f, 0.3f)};
            out->ray.max_distance = r + 10.0f;
            out->filter.hit = VXK_RAY_HIT_BODIES;
        }
    }
}

// ---- Bullet ------------------------------------------------------------------------------------

#ifdef VXK_HAVE_BULLET
// Adds body id of ours (created from spec b) to the Bullet world at pose with its velocities:
// spheres and boxes as primitives of the same size and mass, voxel bodies as compounds of our
// box compound (each box's mass from the densities of its voxels). Friction sqrt(f) (Bullet
// multiplies frictions; the terrain's is sqrt too), restitution 0.1 against terrain restitution
// 1 (Bullet multiplies them: 0.1 on terrain as ours' grass and dirt; ours' bodies have 0).
static bool bullet_add(vxk_bullet_step_world* bw, const physics_scene* s, const vxk_world* world,
                       vxk_body_id id, const body_spec* b, vxk_transform pose, vxk_vec3 v,
                       vxk_vec3 w)
{
    vxk_body_info info;
    if (vxk_body_get_info(world, id, &info) != VXK_OK)
        return false;
    float friction = sqrtf(info.friction);
    int rc = 0;
    if (b->kind != KIND_VOXELS) {
        vxk_vec3 size = b->half;
        int shape = VXK_BULLET_STEP_BOX;
        if (b->kind == KIND_SPHERE) {
            size = (vxk_vec3){b->radius, b->radius, b->radius};
            shape = VXK_BULLET_STEP_SPHERE;
        } else if (b->kind == KIND_CAPSULE) {
            size = (vxk_vec3){0.6f * b->radius, b->half.y, 0.0f};
            shape = VXK_BULLET_STEP_CAPSULE;
        }
        rc = vxk_bullet_step_add_body(bw, shape, size, info.mass, pose, friction, 0.1f);
    } else {
        const vox_shape* shape = &s->lib.shapes[b->shape];
        const vxk_material_table* table = vxk_world_materials(world);
        uint32_t n = shape->boxes.count;
        vxk_vec3* centres = (vxk_vec3*)malloc(sizeof(vxk_vec3) * n);
        vxk_vec3* halves = (vxk_vec3*)malloc(sizeof(vxk_vec3) * n);
        float* masses = (float*)malloc(sizeof(float) * n);
        rc = centres && halves && masses ? 0 : -1;
        float vs = info.voxel_size, volume = vs * vs * vs;
        for (uint32_t i = 0; i < n && rc == 0; ++i) {
            const vxk_voxel_box* box = &shape->boxes.boxes[i];
            double mass = 0.0;
            for (int32_t y = box->y; y < box->y + box->size_y; ++y)
                for (int32_t z = box->z; z < box->z + box->size_z; ++z)
                    for (int32_t x = box->x; x < box->x + box->size_x; ++x)
                        mass +=
                            table->materials[vxk_voxel_grid_get(&shape->grid, (vxk_int3){x, y, z})]
                                .density;
            masses[i] = (float)(mass * volume);
            halves[i] = (vxk_vec3){0.5f * vs * box->size_x, 0.5f * vs * box->size_y,
                                   0.5f * vs * box->size_z};
            centres[i] = (vxk_vec3){info.grid_origin.x + vs * (box->x + 0.5f * box->size_x),
                                    info.grid_origin.y + vs * (box->y + 0.5f * box->size_y),
                                    info.grid_origin.z + vs * (box->z + 0.5f * box->size_z)};
        }
        if (rc == 0)
            rc = vxk_bullet_step_add_compound(bw, centres, halves, masses, n, pose, friction, 0.1f);
        free(centres);
        free(halves);
        free(masses);
    }
    if (rc == 0)
        vxk_bullet_step_set_velocity(bw, vxk_bullet_step_body_count(bw) - 1, v, w);
    return rc == 0;
}
#endif

// ---- the voxel-pair narrowphase against Bullet --------------------------------------------------

// The narrowphase of the voxel-voxel pairs alone, at the poses the run ended with: every pair of
// voxel bodies whose world boxes overlap, each body of those pairs recreated at its pose at rest
// in a world of its own (no terrain, no gravity, one thread), stepped NARROW_REPEATS + 1 times,
// each body teleported back to its pose before every step (so no contact is reused: every pair is
// collided anew), the median narrowphase stage of the last NARROW_REPEATS steps; Bullet: the
// same compounds at the same poses in a world of their own, the median of NARROW_REPEATS
// dispatches of the pairs whose boxes overlap after one untimed
// (vxk_bullet_step_time_narrowphase). Both sides collide the same box compounds over the same
// pairs (their counts are figures); both broadphases run outside the timing.
typedef struct narrow_result {
    double ours_ms, bullet_ms;
    uint32_t pairs, bodies, ours_pairs, ours_manifolds;
    uint32_t bullet_cached_pairs, bullet_pairs, bullet_manifolds;
    bool ok;
} narrow_result;

#ifdef VXK_HAVE_BULLET
static narrow_result narrowphase_ratio(const physics_scene* s)
{
    narrow_result out = {0};
    uint32_t* voxel = (uint32_t*)malloc(sizeof(uint32_t) * (s->created + 1));
    vxk_aabb* boxes = (vxk_aabb*)malloc(sizeof(vxk_aabb) * (s->created + 1));
    bool* used = (bool*)calloc(s->created + 1, sizeof(bool));
    uint32_t nv = 0;
    for (uint32_t i = 0; voxel && boxes && used && i < s->created; ++i)
        if (s->specs[i].kind == KIND_VOXELS &&
            vxk_body_get_aabb(s->world, s->ids[i], &boxes[nv]) == VXK_OK)
            voxel[nv++] = i;
    for (uint32_t a = 0; a < nv; ++a)
        for (uint32_t c = a + 1; c < nv; ++c) {
            const vxk_aabb *p = &boxes[a], *q = &boxes[c];
            if (p->min.x <= q->max.x && q->min.x <= p->max.x && p->min.y <= q->max.y &&
                q->min.y <= p->max.y && p->min.z <= q->max.z && q->min.z <= p->max.z) {
                used[a] = used[c] = true;
                ++out.pairs;
            }
        }
    vxk_world_def def = vxk_default_world_def();
    def.gravity = (vxk_vec3){0, 0, 0};
    vxk_world* world = NULL;
    vxk_bullet_step_world* bw = vxk_bullet_step_create(def.gravity, 0);
    bool ok = out.pairs > 0 && bw && vxk_world_create(&def, &world) == VXK_OK;
    vxk_body_id* ids = (vxk_body_id*)calloc(nv + 1, sizeof(vxk_body_id));
    vxk_transform* poses = (vxk_transform*)calloc(nv + 1, sizeof(vxk_transform));
    ok = ok && ids && poses;
    const vxk_vec3 rest = {0, 0, 0};
    for (uint32_t k = 0; ok && k < nv; ++k) {
        if (!used[k])
            continue;
        const body_spec* b = &s->specs[voxel[k]];
        ok = vxk_body_get_transform(s->world, s->ids[voxel[k]], &poses[k]) == VXK_OK &&
             create_body(world, s, b, poses[k], rest, rest, &ids[k]) == VXK_OK &&
             bullet_add(bw, s, world, ids[k], b, poses[k], rest, rest);
        out.bodies++;
    }
    double* times = (double*)malloc(sizeof(double) * NARROW_REPEATS);
    ok = ok && times;
    for (uint32_t r = 0; ok && r <= NARROW_REPEATS; ++r) {
        for (uint32_t k = 0; ok && k < nv; ++k)
            if (used[k])
                ok = vxk_body_set_transform(world, ids[k], poses[k].p, poses[k].q) == VXK_OK &&
                     vxk_body_set_velocity(world, ids[k], rest, rest) == VXK_OK;
        ok = ok && vxk_world_step(world, PHYSICS_DT) == VXK_OK;
        vxk_world_step_stats stats;
        vxk_world_get_step_stats(world, &stats);
        if (r > 0 && ok)
            times[r - 1] = 1e3 * stats.stage_seconds[VXK_STEP_NARROWPHASE];
        out.ours_pairs = stats.body_pairs;
        out.ours_manifolds = stats.contacts;
    }
    vxk_bullet_narrowphase bn = {0};
    ok = ok && vxk_bullet_step_time_narrowphase(bw, NARROW_REPEATS, &bn) == 0;
    if (ok) {
        out.ours_ms = vxk_bench_median(times, NARROW_REPEATS);
        out.bullet_ms = 1e3 * bn.median_s;
        out.bullet_pairs = bn.pairs;
        out.bullet_cached_pairs = bn.cached_pairs;
        out.bullet_manifolds = bn.manifolds;
        out.ok = out.ours_ms > 0.0;
    }
    free(times);
    free(ids);
    free(poses);
    vxk_world_destroy(world);
    vxk_bullet_step_destroy(bw);
    free(voxel);
    free(boxes);
    free(used);
    return out;
}
#endif

// ---- the run -----------------------------------------------------------------------------------

// Per-step times of the run, ms: each stage of ours, our whole step, the rays, Bullet's step.
typedef struct run_times {
    double* stage[VXK_STEP_STAGE_COUNT];
    double* step;
    double* rays;
    double* bullet;
    double step_s, rays_s, bullet_s, stage_s[VXK_STEP_STAGE_COUNT];
    double body_steps;
    uint32_t contacts_max, pairs_max, islands_max;
} run_times;

static bool times_alloc(run_times* t, uint32_t steps)
{
    memset(t, 0, sizeof(*t));
    bool ok = true;
    for (uint32_t k = 0; k < VXK_STEP_STAGE_COUNT; ++k)
        ok &= (t->stage[k] = (double*)calloc(steps, sizeof(double))) != NULL;
    ok &= (t->step = (double*)calloc(steps, sizeof(double))) != NULL;
    ok &= (t->rays = (double*)calloc(steps, sizeof(double))) != NULL;
    ok &= (t->bullet = (double*)calloc(steps, sizeof(double))) != NULL;
    return ok;
}

static void times_free(run_times* t)
{
    for (uint32_t k = 0; k < VXK_STEP_STAGE_COUNT; ++k)
        free(t->stage[k]);
    free(t->step);
    free(t->rays);
    free(t->bullet);
}

static void scene_free(physics_scene* s)
{
    vxk_world_destroy(s->world);
    library_free(&s->lib);
    free(s->specs);
    free(s->ids);
    free(s->top);
    free(s->pillars);
    free(s->deck_y);
}

static void add_stage(vxk_bench* b, const char* name, double* ms, uint32_t steps, double total_s,
                      double items)
{
    char key[48];
    snprintf(key, sizeof(key), "physics_%s", name);
    vxk_bench_phase_add(b, key, total_s, items);
    vxk_bench_stage_add(b, name, ms, steps);
}

void vxk_bench_physics(vxk_bench* b)
{
    physics_scene s;
    memset(&s, 0, sizeof(s));
    s.cfg = config_of(b);
    const physics_config* c = &s.cfg;
    s.x0 = (c->size_x - c->region) / 2;
    s.z0 = (c->size_z - c->region) / 2;
    s.world = vxk_scene_world_with(b->jobs, 0.0f);
    if (!s.world) {
        fprintf(stderr, "phase physics: cannot create the world\n");
        return;
    }
    vxk_chunk_solid_table(s.solid, vxk_world_materials(s.world));
    vxk_bench_progress(b, "physics: worldgen");
    vxk_worldgen_def gen =
        vxk_scene_worldgen_def((vxk_int3){c->size_x, c->size_y, c->size_z}, b->seed);
    double t0 = vxk_bench_now();
    vxk_status st = vxk_worldgen_run(s.world, &gen);
    if (st == VXK_OK)
        st = vxk_world_step(s.world, 0.0f); // derived terrain data, outside the step timings
    double gen_s = vxk_bench_now() - t0;
    library_load(&s.lib, b->seed);
    bool built = st == VXK_OK && read_tops(&s) && build_structures(&s, b->seed);
    if (built) { // the drop heights see the structures
        free(s.top);
        s.top = NULL;
        built = vxk_world_step(s.world, 0.0f) == VXK_OK && read_tops(&s);
    }
    vxk_edit_def edit_def = vxk_default_edit_def();
    if (built)
        built = vxk_edit_enable(s.world, &edit_def) == VXK_OK &&
                vxk_edit_thread_start(s.world) == VXK_OK;
    if (!built || !plan_bodies(&s, b->seed)) {
        fprintf(stderr, "phase physics: cannot build the scene: %s\n", vxk_status_string(st));
        scene_free(&s);
        return;
    }
    vxk_bench_phase_add(b, "physics_worldgen", gen_s,
                        (double)c->size_x * (double)c->size_y * (double)c->size_z);

    bool peer = false;
#ifdef VXK_HAVE_BULLET
    vxk_bullet_step_world* bw = NULL;
    double bullet_setup_s = 0.0;
    uint32_t bullet_tris = 0, bullet_meshes = 0;
    if (!b->skip_peers) {
        vxk_bench_progress(b, "physics: Bullet terrain");
        t0 = vxk_bench_now();
        bw = vxk_bullet_step_create(vxk_default_world_def().gravity, 1);
        if (bw)
            vxk_bullet_step_update_active_boxes_only(bw);
        peer = bw && vxk_bullet_step_add_terrain(bw, s.world, &bullet_tris, &bullet_meshes);
        bullet_setup_s = vxk_bench_now() - t0;
        if (!peer)
            fprintf(stderr, "phase physics: the Bullet terrain failed; no peer\n");
    }
#endif

    run_times t;
    uint32_t query_cap = c->rays;
    vxk_ray_query* queries = (vxk_ray_query*)malloc(sizeof(vxk_ray_query) * query_cap);
    vxk_ray_result* results = (vxk_ray_result*)malloc(sizeof(vxk_ray_result) * query_cap);
    bool ok = times_alloc(&t, c->steps) && queries && results;
    ray_tally rays = {0, 0, 0, 0xCBF29CE484222325ull};
    double create_s = 0.0;
    uint32_t edits = 0;
    for (uint32_t step = 0; ok && step < c->steps; ++step) {
        if (step > 0 && step % DESTRUCTION_EVERY == 0)
            edits += explode(&s, b->seed, step / DESTRUCTION_EVERY);
        if (step % c->wave_every == 0 && step / c->wave_every < c->waves) {
            double tc = vxk_bench_now();
            for (uint32_t k = 0; ok && k < c->per_wave; ++k) {
                const body_spec* spec = &s.specs[s.created];
                ok = create_body(s.world, &s, spec, spec->pose, spec->v, spec->w,
                                 &s.ids[s.created]) == VXK_OK;
#ifdef VXK_HAVE_BULLET
                if (ok && peer)
                    peer = bullet_add(bw, &s, s.world, s.ids[s.created], spec, spec->pose, spec->v,
                                      spec->w);
#endif
                s.created += ok;
            }
            create_s += vxk_bench_now() - tc;
            if (!ok)
                fprintf(stderr, "phase physics: cannot create the bodies of wave %u\n",
                        step / c->wave_every);
        }
        if (step % 30 == 0) {
            char what[64];
            snprintf(what, sizeof(what), "physics: step %u of %u, %u bodies", step, c->steps,
                     s.created);
            vxk_bench_progress(b, what);
        }
        t0 = vxk_bench_now();
        st = ok ? vxk_world_step(s.world, PHYSICS_DT) : VXK_OK;
        double step_s = vxk_bench_now() - t0;
        if (st != VXK_OK) {
            fprintf(stderr, "phase physics: step %u failed: %s\n", step, vxk_status_string(st));
            ok = false;
            break;
        }
        vxk_world_step_stats stats;
        vxk_world_get_step_stats(s.world, &stats);
        for (uint32_t k = 0; k < VXK_STEP_STAGE_COUNT; ++k) {
            t.stage[k][step] = 1e3 * stats.stage_seconds[k];
            t.stage_s[k] += stats.stage_seconds[k];
        }
        t.step[step] = 1e3 * step_s;
        t.step_s += step_s;
        t.body_steps += s.created;
        t.contacts_max = stats.contacts > t.contacts_max ? stats.contacts : t.contacts_max;
        t.pairs_max = stats.body_pairs > t.pairs_max ? stats.body_pairs : t.pairs_max;
        t.islands_max = stats.islands > t.islands_max ? stats.islands : t.islands_max;

        make_rays(&s, b->seed, step, queries, c->rays);
        t0 = vxk_bench_now();
        st = vxk_raycast_query_batch(s.world, results, queries, c->rays);
        double rays_s = vxk_bench_now() - t0;
        if (st != VXK_OK) {
            fprintf(stderr, "phase physics: rays of step %u failed: %s\n", step,
                    vxk_status_string(st));
            ok = false;
            break;
        }
        t.rays[step] = 1e3 * rays_s;
        t.rays_s += rays_s;
        for (uint32_t i = 0; i < c->rays; ++i)
            tally_add(&rays, &results[i]);
#ifdef VXK_HAVE_BULLET
        if (peer) {
            t0 = vxk_bench_now();
            vxk_bullet_step_step(bw, PHYSICS_DT);
            double bullet_s = vxk_bench_now() - t0;
            t.bullet[step] = 1e3 * bullet_s;
            t.bullet_s += bullet_s;
        }
#endif
    }
    free(queries);
    free(results);
    if (!ok) {
        fprintf(stderr, "phase physics: failed\n");
        times_free(&t);
#ifdef VXK_HAVE_BULLET
        vxk_bullet_step_destroy(bw);
#endif
        scene_free(&s);
        return;
    }

    // The end: tunnelled and sleeping bodies, contacts, memory, the hash.
    uint32_t tunnelled = 0, off_edge = 0, sleeping = 0, voxel_bodies = 0;
    for (uint32_t i = 0; i < s.created; ++i) {
        vxk_transform pose;
        vxk_body_info info;
        if (vxk_body_get_transform(s.world, s.ids[i], &pose) == VXK_OK &&
            vxk_body_get_info(s.world, s.ids[i], &info) == VXK_OK) {
            judge(&s, &s.specs[i], &info, pose, &tunnelled, &off_edge);
            sleeping += !info.awake;
        }
        voxel_bodies += s.specs[i].kind == KIND_VOXELS;
    }
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(s.world, &stats);
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(s.world, &mem);
    uint64_t hash = vxk_world_hash(s.world);
    vxk_edit_stats es;
    vxk_edit_get_stats(s.world, &es);

    for (uint32_t k = 0; k < VXK_STEP_STAGE_COUNT; ++k)
        add_stage(b, vxk_step_stage_name((vxk_step_stage)k), t.stage[k], c->steps, t.stage_s[k],
                  c->steps);
    add_stage(b, "step", t.step, c->steps, t.step_s, t.body_steps);
    add_stage(b, "rays", t.rays, c->steps, t.rays_s, (double)rays.rays);
    double ours_median = 0.0;
    for (int k = 0; k < b->stage_count; ++k)
        if (strcmp(b->stages[k].name, "step") == 0)
            ours_median = b->stages[k].median_ms;

    vxk_bench_figure_add(b, "physics_world_voxels",
                         (double)c->size_x * (double)c->size_y * (double)c->size_z);
    vxk_bench_figure_add(b, "physics_steps", c->steps);
    vxk_bench_figure_add(b, "physics_bodies", s.created);
    vxk_bench_figure_add(b, "physics_voxel_bodies", voxel_bodies);
    vxk_bench_figure_add(b, "physics_vox_samples", s.lib.from_samples);
    vxk_bench_figure_add(b, "physics_voxel_shapes", s.lib.count);
    vxk_bench_figure_add(b, "physics_voxel_shape_boxes_mean",
                         s.lib.count ? (double)s.lib.boxes / s.lib.count : 0.0);
    vxk_bench_figure_add(b, "physics_step_ms", ours_median);
    vxk_bench_figure_add(b, "physics_run_s", t.step_s);
    vxk_bench_figure_add(b, "physics_steps_per_s", t.step_s > 0 ? c->steps / t.step_s : 0.0);
    vxk_bench_figure_add(b, "physics_body_steps_per_s", t.step_s > 0 ? t.body_steps / t.step_s : 0);
    vxk_bench_figure_add(b, "physics_body_create_s", create_s);
    vxk_bench_figure_add(b, "physics_contacts", stats.contacts);
    vxk_bench_figure_add(b, "physics_contacts_max", t.contacts_max);
    vxk_bench_figure_add(b, "physics_body_pairs", stats.body_pairs);
    vxk_bench_figure_add(b, "physics_terrain_tasks", stats.terrain_tasks);
    vxk_bench_figure_add(b, "physics_recycled_manifolds", stats.recycled_manifolds);
    vxk_bench_figure_add(b, "physics_carried_manifolds", stats.carried_manifolds);
    // Islands of the last step (vxk_world_step_stats) and the most in one step; sleeping bodies
    // counted from vxk_body_info.awake.
    vxk_bench_figure_add(b, "physics_structures", s.structures);
    vxk_bench_figure_add(b, "physics_edits", edits);
    vxk_bench_figure_add(b, "physics_edits_applied", (double)es.applied);
    vxk_bench_figure_add(b, "physics_edit_stalls", (double)es.stalls);
    vxk_bench_figure_add(b, "physics_split_searches", (double)es.split_searches);
    vxk_bench_figure_add(b, "physics_split_voxels", (double)es.split_voxels);
    vxk_bench_figure_add(b, "physics_split_bodies", (double)es.split_bodies);
    vxk_bench_figure_add(b, "physics_split_left", (double)es.split_left);
    vxk_bench_figure_add(b, "physics_bodies_final", vxk_world_body_count(s.world));
    vxk_bench_figure_add(b, "physics_islands", stats.islands);
    vxk_bench_figure_add(b, "physics_islands_max", t.islands_max);
    vxk_bench_figure_add(b, "physics_sleeping", sleeping);
    vxk_bench_figure_add(b, "physics_memory_bytes", (double)mem.total_bytes);
    vxk_bench_figure_add(b, "physics_terrain_bytes",
                         (double)(mem.map_bytes + mem.chunk_entry_bytes + mem.voxel_bytes +
                                  mem.occupancy_bytes + mem.terrain_other_bytes));
    vxk_bench_figure_add(b, "physics_narrow_cache_bytes", (double)mem.narrow_bytes);
    vxk_bench_figure_add(b, "physics_body_bytes", (double)mem.body_bytes);
    vxk_bench_figure_add(b, "physics_contact_bytes", (double)mem.contact_bytes);
    vxk_bench_figure_add(b, "physics_step_arena_bytes", (double)mem.step_bytes);
    vxk_bench_figure_add(b, "physics_rays", (double)rays.rays);
    vxk_bench_figure_add(b, "physics_ray_terrain_hits", (double)rays.terrain_hits);
    vxk_bench_figure_add(b, "physics_ray_body_hits", (double)rays.body_hits);
    vxk_bench_figure_add(b, "ours_tunnelled", tunnelled);
    vxk_bench_figure_add(b, "ours_off_edge", off_edge);
    vxk_bench_figure_add(b, "physics_world_hash_low32", (double)(uint32_t)hash);
    vxk_bench_figure_add(b, "physics_ray_digest_low32", (double)(uint32_t)rays.digest);

#ifdef VXK_HAVE_BULLET
    if (peer) {
        double* bullet_ms = t.bullet;
        uint32_t bt = 0, bo = 0, awake = 0, manifolds = 0, points = 0;
        for (uint32_t i = 0; i < s.created; ++i) {
            vxk_transform pose;
            vxk_body_info info;
            vxk_bullet_step_get_pose(bw, i, &pose);
            vxk_body_get_info(s.world, s.ids[i], &info); // the same shape, frame and grid
            judge(&s, &s.specs[i], &info, pose, &bt, &bo);
            awake += (uint32_t)vxk_bullet_step_is_awake(bw, i);
        }
        vxk_bullet_step_contacts(bw, &manifolds, &points);
        add_stage(b, "bullet_step", bullet_ms, c->steps, t.bullet_s, t.body_steps);
        double bullet_median = b->stages[b->stage_count - 1].median_ms;
        vxk_bench_figure_add(b, "bullet_step_ms", bullet_median);
        vxk_bench_figure_add(b, "bullet_tunnelled", bt);
        vxk_bench_figure_add(b, "bullet_off_edge", bo);
        vxk_bench_figure_add(b, "bullet_sleeping", s.created - awake);
        vxk_bench_figure_add(b, "bullet_manifolds", manifolds);
        vxk_bench_figure_add(b, "bullet_terrain_tris", bullet_tris);
        vxk_bench_figure_add(b, "bullet_terrain_meshes", bullet_meshes);
        vxk_bench_figure_add(b, "bullet_setup_s", bullet_setup_s);
        // The ratios compare one thread with Bullet's one thread.
        if (b->threads == 1 && ours_median > 0.0) {
            vxk_bench_figure_add(b, "bullet_step_ratio", bullet_median / ours_median);
            vxk_bench_progress(b, "physics: voxel-pair narrowphase, both engines");
            narrow_result n = narrowphase_ratio(&s);
            vxk_bench_figure_add(b, "narrowphase_voxel_pairs", n.pairs);
            vxk_bench_figure_add(b, "narrowphase_voxel_bodies", n.bodies);
            if (n.ok) {
                vxk_bench_figure_add(b, "ours_narrowphase_ms", n.ours_ms);
                vxk_bench_figure_add(b, "bullet_narrowphase_ms", n.bullet_ms);
                vxk_bench_figure_add(b, "bullet_narrowphase_ratio", n.bullet_ms / n.ours_ms);
                vxk_bench_figure_add(b, "ours_narrowphase_pairs", n.ours_pairs);
                vxk_bench_figure_add(b, "ours_narrowphase_manifolds", n.ours_manifolds);
                vxk_bench_figure_add(b, "bullet_narrowphase_pairs", n.bullet_pairs);
                vxk_bench_figure_add(b, "bullet_narrowphase_cached_pairs", n.bullet_cached_pairs);
                vxk_bench_figure_add(b, "bullet_narrowphase_manifolds", n.bullet_manifolds);
            } else {
                fprintf(stderr, "phase physics: no voxel-voxel pair to time (%u pairs)\n", n.pairs);
            }
        }
    }
    vxk_bullet_step_destroy(bw);
#endif
    (void)peer;

    b->physics_ran = true;
    b->physics_steps = c->steps;
    b->physics_bodies = s.created;
    b->physics_world_hash = hash;
    vxk_bench_hash(b, &hash, sizeof(hash));
    vxk_bench_hash(b, &rays.digest, sizeof(rays.digest));
    times_free(&t);
    scene_free(&s);
}
