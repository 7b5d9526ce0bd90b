// test_splitting.c: connectivity splitting through the edit system (vxk/edit.h, "Splitting").
//   - random terrain and random carves against a reference: after every publish no solid terrain
//     voxel is cut off from an anchor (a plain BFS over the dense box), and terrain plus the new
//     bodies' voxels (placed in the world) equal a replay of the edits voxel for voxel;
//   - a bridge held at one end and cut in the middle drops its free part as one body with the
//     reference's voxels and mass, a bridge held at both ends drops nothing; a tower cut at its
//     base falls whole; a terrain shell on a stalk, cut through, gives two bodies;
//   - a search over its budget goes on with the next batch and ends as an unbounded one;
//   - voxel bodies: a hollow shell cut in two gives two bodies (the larger keeps the id); a
//     spinning body split conserves linear and angular momentum (reference: voxel point sums);
//   - determinism: explosions while bodies fall give one world hash for 1, 2 and 8 workers, with
//     and without the writer thread.
#include "harness.h"
#include "scenes.h"
#include "test.h"

#include <vxk/edit.h>
#include <vxk/vxk.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- references --------------------------------------------------------------------------------

typedef struct dense {
    vxk_int3 min, size;
    uint8_t* v; // x + size.x * (z + size.z * y)
} dense;

static size_t dense_count(const dense* d)
{
    return (size_t)d->size.x * (size_t)d->size.y * (size_t)d->size.z;
}

static vxk_int_box dense_box(const dense* d)
{
    return (vxk_int_box){
        d->min, {d->min.x + d->size.x - 1, d->min.y + d->size.y - 1, d->min.z + d->size.z - 1}};
}

static long dense_index(const dense* d, int x, int y, int z)
{
    x -= d->min.x;
    y -= d->min.y;
    z -= d->min.z;
    if (x < 0 || y < 0 || z < 0 || x >= d->size.x || y >= d->size.y || z >= d->size.z)
        return -1;
    return x + (long)d->size.x * (z + (long)d->size.z * y);
}

// Solid voxels of the box not reached from an anchor (bedrock, or y <= floor) by a plain BFS
// through face neighbours: marked 1 in out.
static uint32_t reference_floating(const dense* d, int floor_y, uint8_t* out)
{
    size_t n = dense_count(d);
    int* queue = malloc(n * sizeof(int));
    uint8_t* seen = calloc(n, 1);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; ++i) {
        int y = d->min.y + (int)(i / ((size_t)d->size.x * (size_t)d->size.z));
        if (d->v[i] && (d->v[i] == VXK_MAT_BEDROCK || y <= floor_y)) {
            seen[i] = 1;
            queue[tail++] = (int)i;
        }
    }
    while (head < tail) {
        int i = queue[head++];
        int x = i % d->size.x, z = (i / d->size.x) % d->size.z, y = i / (d->size.x * d->size.z);
        const int dir[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        for (int k = 0; k < 6; ++k) {
            int nx = x + dir[k][0], ny = y + dir[k][1], nz = z + dir[k][2];
            if (nx < 0 || ny < 0 || nz < 0 || nx >= d->size.x || ny >= d->size.y || nz >= d->size.z)
                continue;
            int j = nx + d->size.x * (nz + d->size.z * ny);
            if (d->v[j] && !seen[j]) {
                seen[j] = 1;
                queue[tail++] = j;
            }
        }
    }
    uint32_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        out[i] = d->v[i] && !seen[i];
        count += out[i];
    }
    free(queue);
    free(seen);
    return count;
}

// Places every voxel of a body with identity rotation into d (the world voxel it occupies); counts
// voxels that land outside d or on an occupied voxel in *clash.
static int place_body(const vxk_world* w, vxk_body_id id, dense* d, uint32_t* voxels,
                      uint32_t* clash)
{
    vxk_body_info info;
    vxk_transform t;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    VXK_CHECK(info.shape == VXK_SHAPE_VOXELS);
    VXK_CHECK(fabsf(t.q.w) > 0.999999f);
    float vs = info.voxel_size;
    int ox = (int)lroundf((t.p.x + info.grid_origin.x) / vs),
        oy = (int)lroundf((t.p.y + info.grid_origin.y) / vs),
        oz = (int)lroundf((t.p.z + info.grid_origin.z) / vs);
    VXK_CHECK(fabsf(t.p.x + info.grid_origin.x - (float)ox * vs) < 1e-3f * vs);
    VXK_CHECK(fabsf(t.p.y + info.grid_origin.y - (float)oy * vs) < 1e-3f * vs);
    vxk_int3 s = info.grid_size;
    uint8_t* g = malloc((size_t)s.x * s.y * s.z);
    VXK_CHECK_EQ_INT(
        vxk_body_read_voxels(w, id, g, (vxk_int_box){{0, 0, 0}, {s.x - 1, s.y - 1, s.z - 1}}),
        VXK_OK);
    for (int y = 0; y < s.y; ++y)
        for (int z = 0; z < s.z; ++z)
            for (int x = 0; x < s.x; ++x) {
                uint8_t m = g[x + s.x * (z + s.z * y)];
                if (!m)
                    continue;
                ++*voxels;
                long i = dense_index(d, ox + x, oy + y, oz + z);
                if (i < 0 || d->v[i])
                    ++*clash;
                else
                    d->v[i] = m;
            }
    free(g);
    return 0;
}

static vxk_world* make_world(vxk_jobs* jobs, const dense* d)
{
    vxk_world* w = vxk_scene_world_with(jobs, 0.0f);
    if (w && vxk_world_write_box(w, dense_box(d), d->v) != VXK_OK) {
        vxk_world_destroy(w);
        return NULL;
    }
    return w;
}

static vxk_status enable(vxk_world* w, uint32_t margin, uint32_t budget)
{
    vxk_edit_def def = vxk_default_edit_def();
    def.split_margin = margin;
    if (budget)
        def.split_budget = budget;
    return vxk_edit_enable(w, &def);
}

// Steps (dt 0: nothing moves) until the edits submitted so far are published.
static int publish(vxk_world* w)
{
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
    return 0;
}

static void fill(dense* d, vxk_int_box b, uint8_t m)
{
    for (int y = b.min.y; y <= b.max.y; ++y)
        for (int z = b.min.z; z <= b.max.z; ++z)
            for (int x = b.min.x; x <= b.max.x; ++x) {
                long i = dense_index(d, x, y, z);
                if (i >= 0)
                    d->v[i] = m;
            }
}

static vxk_int_box ibox(int x0, int y0, int z0, int x1, int y1, int z1)
{
    return (vxk_int_box){{x0, y0, z0}, {x1, y1, z1}};
}

// Submits a terrain edit and applies it to the replay.
static int submit(vxk_world* w, dense* replay, vxk_edit e)
{
    uint64_t t;
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, VXK_EDIT_WAIT_FOREVER), VXK_OK);
    if (e.kind == VXK_EDIT_FILL_BOX) {
        fill(replay, e.box, e.material);
        return 0;
    }
    VXK_CHECK(e.kind == VXK_EDIT_FILL_SPHERE);
    double r2 = (double)e.radius * (double)e.radius;
    for (int y = 0; y < replay->size.y; ++y)
        for (int z = 0; z < replay->size.z; ++z)
            for (int x = 0; x < replay->size.x; ++x) {
                double dx = (double)(replay->min.x + x) + 0.5 - (double)e.centre.x;
                double dy = (double)(replay->min.y + y) + 0.5 - (double)e.centre.y;
                double dz = (double)(replay->min.z + z) + 0.5 - (double)e.centre.z;
                if ((dx * dx + dy * dy) + dz * dz <= r2)
                    replay->v[x + replay->size.x * (z + replay->size.z * y)] = e.material;
            }
    return 0;
}

// After a publish: the terrain has no floating voxel; the terrain plus every body that splitting
// made (all bodies: the scenes make none other) equals the replay. With `fallen`, the terrain
// alone equals the replay and the bodies alone equal fallen.
static int check_world(const vxk_world* w, const dense* replay, const dense* fallen,
                       uint32_t* bodies_out)
{
    dense got = {replay->min, replay->size, malloc(dense_count(replay))};
    VXK_CHECK_EQ_INT(vxk_world_read_box(w, got.v, dense_box(&got)), VXK_OK);
    uint8_t* floating = malloc(dense_count(replay));
    uint32_t f = reference_floating(&got, 0, floating);
    VXK_CHECK_MSG(f == 0, "%u terrain voxels float after the publish", f);
    if (fallen) {
        for (size_t i = 0; i < dense_count(replay); ++i)
            VXK_CHECK_MSG(got.v[i] == replay->v[i], "voxel %zu: terrain %u, replay %u", i, got.v[i],
                          replay->v[i]);
        memset(got.v, 0, dense_count(replay));
        replay = fallen;
    }
    uint32_t n = vxk_world_body_count(w);
    vxk_body_id* ids = malloc((n + 1) * sizeof(*ids));
    vxk_world_get_bodies(w, ids, n);
    uint32_t voxels = 0, clash = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (place_body(w, ids[i], &got, &voxels, &clash))
            return 1;
    VXK_CHECK_MSG(clash == 0, "%u body voxels overlap the terrain or each other", clash);
    for (size_t i = 0; i < dense_count(replay); ++i)
        VXK_CHECK_MSG(got.v[i] == replay->v[i], "voxel %zu: bodies (and terrain) %u, expected %u",
                      i, got.v[i], replay->v[i]);
    *bodies_out = n;
    free(ids);
    free(floating);
    free(got.v);
    return 0;
}

// ---- terrain against the reference
// ---------------------------------------------------------------

// Random structures on a floor: pillars, slabs between them, hanging blocks; random carves. The
// margin covers the whole box, so every free part is found: the reference BFS says which.
static int test_split_random_terrain(void)
{
    uint64_t rng = vxk_test_seed(0x5B1E);
    const int trials = VXK_TEST_SLOW ? 12 : 60;
    uint64_t total_floating = 0;
    for (int trial = 0; trial < trials; ++trial) {
        dense d = {{-8, 0, -8}, {40, 32, 40}, calloc(40 * 32 * 40, 1)};
        fill(&d, ibox(-8, 0, -8, 31, 2, 31), VXK_MAT_STONE);
        int pillars = 2 + (int)(vxk_test_rand(&rng) % 5);
        for (int p = 0; p < pillars; ++p) {
            int x = -6 + (int)(vxk_test_rand(&rng) % 32), z = -6 + (int)(vxk_test_rand(&rng) % 32);
            int h = 6 + (int)(vxk_test_rand(&rng) % 20), s = 1 + (int)(vxk_test_rand(&rng) % 3);
            fill(&d, ibox(x, 3, z, x + s, 3 + h, z + s), VXK_MAT_DIRT);
        }
        for (int k = 0; k < 6; ++k) { // slabs, some resting on pillars, some floating (removed)
            int x = -8 + (int)(vxk_test_rand(&rng) % 34), z = -8 + (int)(vxk_test_rand(&rng) % 34);
            int y = 6 + (int)(vxk_test_rand(&rng) % 20);
            fill(&d,
                 ibox(x, y, z, x + 2 + (int)(vxk_test_rand(&rng) % 12), y + 1,
                      z + 1 + (int)(vxk_test_rand(&rng) % 6)),
                 k % 2 ? VXK_MAT_WOOD : VXK_MAT_CLAY);
        }
        // The terrain starts held: what floats before any edit is removed (the search assumes it).
        uint8_t* floating = malloc(dense_count(&d));
        reference_floating(&d, 0, floating);
        for (size_t i = 0; i < dense_count(&d); ++i)
            if (floating[i])
                d.v[i] = 0;
        vxk_world* w = make_world(NULL, &d);
        VXK_CHECK(w != NULL);
        VXK_CHECK_EQ_INT(enable(w, 64, 0), VXK_OK);
        dense fallen = {d.min, d.size, calloc(dense_count(&d), 1)};
        for (int round = 0; round < 3; ++round) {
            int carves = 1 + (int)(vxk_test_rand(&rng) % 3);
            for (int c = 0; c < carves; ++c) {
                vxk_vec3 at = {vxk_test_randf(&rng, -6.0f, 30.0f),
                               vxk_test_randf(&rng, 3.0f, 28.0f),
                               vxk_test_randf(&rng, -6.0f, 30.0f)};
                if (submit(w, &d, vxk_edit_carve_sphere(at, vxk_test_randf(&rng, 1.0f, 5.0f))))
                    return 1;
            }
            if (vxk_test_rand(&rng) % 2) { // a cut through a whole layer band
                int y = 4 + (int)(vxk_test_rand(&rng) % 20);
                if (submit(w, &d, vxk_edit_fill_box(ibox(-8, y, -8, 31, y, 31), VXK_MAT_AIR)))
                    return 1;
            }
            if (publish(w))
                return 1;
            // The replay's floating voxels fell: they are the bodies' now (dt 0: still in place).
            total_floating += reference_floating(&d, 0, floating);
            for (size_t i = 0; i < dense_count(&d); ++i)
                if (floating[i]) {
                    fallen.v[i] = d.v[i];
                    d.v[i] = 0;
                }
            uint32_t bodies = 0;
            if (check_world(w, &d, &fallen, &bodies))
                return 1;
        }
        free(fallen.v);
        vxk_edit_stats st;
        vxk_edit_get_stats(w, &st);
        VXK_CHECK_EQ_U64(st.split_bodies, vxk_world_body_count(w));
        VXK_CHECK_EQ_U64(st.split_pending, 0);
        vxk_world_destroy(w);
        free(floating);
        free(d.v);
    }
    VXK_CHECK_MSG(total_floating > 0, "the random scenes never cut anything loose");
    printf("  %llu voxels cut loose in %d scenes\n", (unsigned long long)total_floating, trials);
    return 0;
}

// ---- canonical terrain cases -------------------------------------------------------------------

static int count_split_events(const vxk_world* w, vxk_edit_split_event* ev, uint32_t cap)
{
    return (int)vxk_edit_get_split_events(w, ev, cap);
}

static int test_split_bridge(void)
{
    for (int held_both = 0; held_both < 2; ++held_both) {
        dense d = {{0, 0, 0}, {48, 24, 16}, calloc(48 * 24 * 16, 1)};
        fill(&d, ibox(0, 0, 0, 47, 1, 15), VXK_MAT_BEDROCK);
        fill(&d, ibox(0, 2, 4, 3, 15, 7), VXK_MAT_STONE); // the pillar at x = 0
        if (held_both)
            fill(&d, ibox(40, 2, 4, 43, 15, 7), VXK_MAT_STONE);
        fill(&d, ibox(0, 16, 4, 43, 17, 7), VXK_MAT_WOOD); // the deck
        vxk_world* w = make_world(NULL, &d);
        VXK_CHECK(w != NULL);
        VXK_CHECK_EQ_INT(enable(w, 32, 0), VXK_OK);
        if (submit(w, &d, vxk_edit_fill_box(ibox(20, 16, 4, 21, 17, 7), VXK_MAT_AIR)) || publish(w))
            return 1;
        vxk_edit_split_event ev[4];
        int n = count_split_events(w, ev, 4);
        if (held_both) {
            VXK_CHECK_EQ_INT(n, 0);
            VXK_CHECK_EQ_U64(vxk_world_body_count(w), 0);
        } else {
            VXK_CHECK_EQ_INT(n, 1);
            VXK_CHECK(VXK_ID_IS_NULL(ev[0].source));
            VXK_CHECK_EQ_U64(ev[0].voxel_count, 22 * 2 * 4); // x 22..43, y 16..17, z 4..7
            vxk_body_info info;
            VXK_CHECK_EQ_INT(vxk_body_get_info(w, ev[0].body, &info), VXK_OK);
            VXK_CHECK(info.type == VXK_BODY_DYNAMIC);
            const vxk_material_table* mt = vxk_world_materials(w);
            double mass = 22.0 * 2 * 4 * mt->materials[VXK_MAT_WOOD].density;
            VXK_CHECK_MSG(fabs(info.mass - mass) <= 1e-5 * mass, "mass %g, expected %g", info.mass,
                          mass);
            // The falling part falls.
            vxk_transform t0, t1;
            VXK_CHECK_EQ_INT(vxk_body_get_transform(w, ev[0].body, &t0), VXK_OK);
            for (int s = 0; s < 20; ++s)
                VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_body_get_transform(w, ev[0].body, &t1), VXK_OK);
            VXK_CHECK(t1.p.y < t0.p.y - 0.5f);
        }
        uint32_t bodies;
        if (!held_both)
            VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
        if (held_both && check_world(w, &d, NULL, &bodies))
            return 1;
        vxk_world_destroy(w);
        free(d.v);
    }
    return 0;
}

static int test_split_tower_and_shell(void)
{
    dense d = {{0, 0, 0}, {40, 48, 40}, calloc(40 * 48 * 40, 1)};
    fill(&d, ibox(0, 0, 0, 39, 1, 39), VXK_MAT_STONE);
    fill(&d, ibox(4, 2, 4, 7, 33, 7), VXK_MAT_CLAY); // the tower
    // A hollow terrain shell (12^3, walls 1) on a stalk.
    fill(&d, ibox(24, 2, 24, 25, 19, 25), VXK_MAT_DIRT);
    fill(&d, ibox(19, 20, 19, 30, 31, 30), VXK_MAT_STONE);
    fill(&d, ibox(20, 21, 20, 29, 30, 29), VXK_MAT_AIR);
    vxk_world* w = make_world(NULL, &d);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(enable(w, 40, 0), VXK_OK);
    // The tower cut at its base: one body, the whole rest of the tower.
    if (submit(w, &d, vxk_edit_fill_box(ibox(4, 5, 4, 7, 5, 7), VXK_MAT_AIR)) || publish(w))
        return 1;
    vxk_edit_split_event ev[4];
    VXK_CHECK_EQ_INT(count_split_events(w, ev, 4), 1);
    VXK_CHECK_EQ_U64(ev[0].voxel_count, 4 * 4 * 28);
    uint32_t bodies;
    if (check_world(w, &d, NULL, &bodies))
        return 1;
    // The shell cut off its stalk and through its middle (a slab at x = 24..25): two bodies.
    if (submit(w, &d, vxk_edit_fill_box(ibox(24, 10, 24, 25, 10, 25), VXK_MAT_AIR)) ||
        submit(w, &d, vxk_edit_fill_box(ibox(24, 19, 18, 25, 32, 31), VXK_MAT_AIR)) || publish(w))
        return 1;
    // Three parts: the stalk between its cuts (y 11..18) and the shell's two halves (x 19..23
    // and 26..30: each 2 faces of 12 x 12... its voxels counted as the shell less the slab).
    VXK_CHECK_EQ_INT(count_split_events(w, ev, 4), 3);
    VXK_CHECK_EQ_U64(ev[0].voxel_count + ev[1].voxel_count + ev[2].voxel_count,
                     (uint64_t)(12 * 12 * 12 - 10 * 10 * 10) - 2 * (12 * 12 - 10 * 10) + 8 * 2 * 2);
    VXK_CHECK_EQ_U64(vxk_world_body_count(w), 4);
    if (check_world(w, &d, NULL, &bodies))
        return 1;
    vxk_world_destroy(w);
    free(d.v);
    return 0;
}

// A search over its budget goes on with the next batch, and its result is the unbounded one's.
static int test_split_budget(void)
{
    uint32_t counts[3] = {0, 0, 0};
    uint64_t pendings[3] = {0, 0, 0};
    // 0: unbounded; 1: 4096 voxels a batch, stepped to the end; 2: the same, disabled while the
    // search is under way (the disable runs it to its end and publishes the part).
    for (int bounded = 0; bounded < 3; ++bounded) {
        dense d = {{0, 0, 0}, {64, 40, 64}, calloc(64 * 40 * 64, 1)};
        fill(&d, ibox(0, 0, 0, 63, 1, 63), VXK_MAT_STONE);
        fill(&d, ibox(30, 2, 30, 33, 9, 33), VXK_MAT_STONE);
        fill(&d, ibox(8, 10, 8, 55, 30, 55), VXK_MAT_DIRT); // a big block on a pillar
        vxk_world* w = make_world(NULL, &d);
        VXK_CHECK(w != NULL);
        VXK_CHECK_EQ_INT(enable(w, 64, bounded ? 4096 : 0), VXK_OK);
        if (submit(w, &d, vxk_edit_fill_box(ibox(30, 5, 30, 33, 5, 33), VXK_MAT_AIR)) || publish(w))
            return 1;
        if (bounded == 2) {
            vxk_edit_stats st;
            vxk_edit_get_stats(w, &st);
            pendings[bounded] = st.split_pending;
            VXK_CHECK_EQ_U64(vxk_world_body_count(w), 0);
            VXK_CHECK_EQ_INT(vxk_edit_disable(w), VXK_OK);
        }
        int steps = 0;
        while (vxk_world_body_count(w) == 0 && steps < 100) {
            vxk_edit_stats st;
            vxk_edit_get_stats(w, &st);
            pendings[bounded] += st.split_pending;
            VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
            ++steps;
        }
        VXK_CHECK_EQ_U64(vxk_world_body_count(w), 1);
        vxk_body_id id;
        vxk_world_get_bodies(w, &id, 1);
        vxk_body_info info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
        counts[bounded] = info.solid_voxels;
        uint32_t bodies;
        if (check_world(w, &d, NULL, &bodies))
            return 1;
        vxk_world_destroy(w);
        free(d.v);
    }
    VXK_CHECK_EQ_U64(counts[0], counts[1]);
    VXK_CHECK_EQ_U64(counts[0], counts[2]);
    VXK_CHECK_EQ_U64(counts[0], 48 * 21 * 48 + 4 * 4 * 4);
    VXK_CHECK_EQ_U64(pendings[0], 0);
    VXK_CHECK_MSG(pendings[1] > 0, "a search of 4096 voxels a batch never went on");
    VXK_CHECK_MSG(pendings[2] > 0, "no search was under way at the disable");
    return 0;
}

// A cut high above the floor, in a region that holds no anchor at all (the pillar is held by the
// region's bottom face): the part still falls.
static int test_split_high(void)
{
    dense d = {{0, 0, 0}, {24, 56, 24}, calloc(24 * 56 * 24, 1)};
    fill(&d, ibox(0, 0, 0, 23, 1, 23), VXK_MAT_BEDROCK);
    fill(&d, ibox(2, 2, 2, 5, 45, 5), VXK_MAT_STONE);
    fill(&d, ibox(6, 44, 2, 17, 45, 5), VXK_MAT_WOOD); // a cantilever off the pillar's top
    vxk_world* w = make_world(NULL, &d);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(enable(w, 12, 0), VXK_OK);
    if (submit(w, &d, vxk_edit_fill_box(ibox(9, 44, 2, 9, 45, 5), VXK_MAT_AIR)) || publish(w))
        return 1;
    vxk_edit_split_event ev[2];
    VXK_CHECK_EQ_INT(count_split_events(w, ev, 2), 1);
    VXK_CHECK_EQ_U64(ev[0].voxel_count, 8 * 2 * 4); // x 10..17
    uint32_t bodies;
    if (check_world(w, &d, NULL, &bodies))
        return 1;
    vxk_world_destroy(w);
    free(d.v);
    return 0;
}

// Cuts near the ends of int32: the regions reach past them and are clamped (no overflow; UBSan
// checks), the parts fall. (A part touching the very last voxel of int32 lies on its region's
// face and counts as held, as any part reaching a region's face does.)
static int test_split_int32_ends(void)
{
    const int32_t ends[2][3] = {{INT32_MAX - 20, 0, INT32_MAX - 20},
                                {INT32_MIN + 16, 0, INT32_MIN + 16}};
    for (int e = 0; e < 2; ++e) {
        vxk_world* w = vxk_scene_world_with(NULL, 0.0f);
        VXK_CHECK(w != NULL);
        int32_t x = ends[e][0], z = ends[e][2];
        VXK_CHECK_EQ_INT(
            vxk_world_fill_box(w, (vxk_int_box){{x, 0, z}, {x + 3, 12, z + 3}}, VXK_MAT_STONE),
            VXK_OK);
        VXK_CHECK_EQ_INT(enable(w, 256, 0), VXK_OK);
        vxk_edit cut = vxk_edit_fill_box((vxk_int_box){{x, 4, z}, {x + 3, 4, z + 3}}, VXK_MAT_AIR);
        uint64_t t;
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &cut, 0), VXK_OK);
        if (publish(w))
            return 1;
        vxk_edit_split_event ev[2];
        VXK_CHECK_EQ_INT(count_split_events(w, ev, 2), 1);
        VXK_CHECK_EQ_U64(ev[0].voxel_count, 4 * 8 * 4);
        uint8_t above = 1;
        VXK_CHECK_EQ_INT(vxk_world_read_box(w, &above, (vxk_int_box){{x, 8, z}, {x, 8, z}}),
                         VXK_OK);
        VXK_CHECK_EQ_INT(above, VXK_MAT_AIR);
        vxk_world_destroy(w);
    }
    return 0;
}

// ---- voxel bodies ------------------------------------------------------------------------------

// Momenta of a set of voxels (unit cubes of edge s, density per material) moving rigidly with
// (v, w) about point c, each voxel centre given: the reference.
typedef struct momenta {
    double p[3], l[3]; // linear, angular about the world origin
} momenta;

static void voxel_momenta(momenta* m, const double x[3], double mass, double s, const double v[3],
                          const double w[3], const double c[3])
{
    double r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    double u[3] = {v[0] + w[1] * r[2] - w[2] * r[1], v[1] + w[2] * r[0] - w[0] * r[2],
                   v[2] + w[0] * r[1] - w[1] * r[0]};
    double spin = mass * s * s / 6.0; // a cube's inertia about its centre
    for (int a = 0; a < 3; ++a)
        m->p[a] += mass * u[a];
    m->l[0] += mass * (x[1] * u[2] - x[2] * u[1]) + spin * w[0];
    m->l[1] += mass * (x[2] * u[0] - x[0] * u[2]) + spin * w[1];
    m->l[2] += mass * (x[0] * u[1] - x[1] * u[0]) + spin * w[2];
}

static void rotate(const vxk_quat q, const double v[3], double out[3])
{
    double qx = q.x, qy = q.y, qz = q.z, qw = q.w;
    double t[3] = {2 * (qy * v[2] - qz * v[1]), 2 * (qz * v[0] - qx * v[2]),
                   2 * (qx * v[1] - qy * v[0])};
    out[0] = v[0] + qw * t[0] + (qy * t[2] - qz * t[1]);
    out[1] = v[1] + qw * t[1] + (qz * t[0] - qx * t[2]);
    out[2] = v[2] + qw * t[2] + (qx * t[1] - qy * t[0]);
}

// The momenta of a body as the library holds it: m v and I w + c x m v from its mass properties.
static int body_momenta(const vxk_world* w, vxk_body_id id, momenta* m)
{
    vxk_body_info info;
    vxk_transform t;
    vxk_vec3 v, av;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    double wv[3] = {av.x, av.y, av.z}, local[3], iw[3], wl[3];
    vxk_quat inv = {-t.q.x, -t.q.y, -t.q.z, t.q.w};
    rotate(inv, wv, local);
    for (int a = 0; a < 3; ++a)
        iw[a] = info.inertia[a][0] * local[0] + info.inertia[a][1] * local[1] +
                info.inertia[a][2] * local[2];
    rotate(t.q, iw, wl);
    double p[3] = {info.mass * (double)v.x, info.mass * (double)v.y, info.mass * (double)v.z};
    double c[3] = {t.p.x, t.p.y, t.p.z};
    for (int a = 0; a < 3; ++a)
        m->p[a] += p[a];
    m->l[0] += wl[0] + c[1] * p[2] - c[2] * p[1];
    m->l[1] += wl[1] + c[2] * p[0] - c[0] * p[2];
    m->l[2] += wl[2] + c[0] * p[1] - c[1] * p[0];
    return 0;
}

static int test_split_body_momentum(void)
{
    uint64_t rng = vxk_test_seed(0x5B0D);
    const int trials = VXK_TEST_SLOW ? 8 : 40;
    for (int trial = 0; trial < trials; ++trial) {
        vxk_world* w = vxk_scene_world_with(NULL, 0.0f);
        VXK_CHECK(w != NULL);
        // A dumbbell: two random blobs joined by a bar, the bar cut in the middle.
        vxk_int3 size = {24, 10, 10};
        uint8_t* g = calloc(24 * 10 * 10, 1);
        for (int k = 0; k < 2; ++k)
            for (int i = 0; i < 300; ++i) {
                int x = (k ? 14 : 0) + (int)(vxk_test_rand(&rng) % 10),
                    y = (int)(vxk_test_rand(&rng) % 10), z = (int)(vxk_test_rand(&rng) % 10);
                g[x + 24 * (z + 10 * y)] = i % 3 ? VXK_MAT_STONE : VXK_MAT_WOOD;
            }
        for (int x = 0; x < 24; ++x)
            for (int y = 4; y <= 5; ++y)
                for (int z = 4; z <= 5; ++z)
                    g[x + 24 * (z + 10 * y)] = VXK_MAT_METAL;
        vxk_voxel_grid grid = {size, g};
        vxk_body_def bd = vxk_default_body_def();
        bd.shape = vxk_voxel_shape(&grid, vxk_test_randf(&rng, 0.1f, 0.5f));
        bd.position = (vxk_vec3){vxk_test_randf(&rng, -20, 20), vxk_test_randf(&rng, 30, 60),
                                 vxk_test_randf(&rng, -20, 20)};
        float ax = vxk_test_randf(&rng, -1, 1), ay = vxk_test_randf(&rng, -1, 1),
              az = vxk_test_randf(&rng, -1, 1), an = vxk_test_randf(&rng, 0, 3.0f);
        float len = sqrtf(ax * ax + ay * ay + az * az) + 1e-6f;
        bd.rotation = (vxk_quat){ax / len * sinf(an / 2), ay / len * sinf(an / 2),
                                 az / len * sinf(an / 2), cosf(an / 2)};
        bd.linear_velocity = (vxk_vec3){vxk_test_randf(&rng, -5, 5), vxk_test_randf(&rng, -5, 5),
                                        vxk_test_randf(&rng, -5, 5)};
        bd.angular_velocity = (vxk_vec3){vxk_test_randf(&rng, -4, 4), vxk_test_randf(&rng, -4, 4),
                                         vxk_test_randf(&rng, -4, 4)};
        bd.gravity_scale = 0.0f;
        vxk_body_id id;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
        VXK_CHECK_EQ_INT(enable(w, 32, 0), VXK_OK);

        // The reference: the voxels that remain after the cut (x = 11..12 of the bar), moving with
        // the body's velocity field, summed voxel by voxel.
        vxk_body_info info;
        vxk_transform t;
        vxk_vec3 v, av;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
        const vxk_material_table* mt = vxk_world_materials(w);
        double s = info.voxel_size, vv[3] = {v.x, v.y, v.z}, ww[3] = {av.x, av.y, av.z},
               c[3] = {t.p.x, t.p.y, t.p.z};
        momenta ref = {{0}, {0}};
        double scale_p = 0.0, scale_l = 0.0;
        for (int y = 0; y < 10; ++y)
            for (int z = 0; z < 10; ++z)
                for (int x = 0; x < 24; ++x) {
                    uint8_t m = g[x + 24 * (z + 10 * y)];
                    if (!m || (x >= 11 && x <= 12 && y >= 4 && y <= 5 && z >= 4 && z <= 5))
                        continue;
                    double local[3] = {info.grid_origin.x + (x + 0.5) * s,
                                       info.grid_origin.y + (y + 0.5) * s,
                                       info.grid_origin.z + (z + 0.5) * s},
                           r[3], xw[3];
                    rotate(t.q, local, r);
                    for (int a = 0; a < 3; ++a)
                        xw[a] = c[a] + r[a];
                    double mass = mt->materials[m].density * s * s * s;
                    voxel_momenta(&ref, xw, mass, s, vv, ww, c);
                    double speed = sqrt(vv[0] * vv[0] + vv[1] * vv[1] + vv[2] * vv[2]) +
                                   sqrt(ww[0] * ww[0] + ww[1] * ww[1] + ww[2] * ww[2]) *
                                       (sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) + s);
                    scale_p += mass * speed;
                    scale_l +=
                        mass * speed * (sqrt(xw[0] * xw[0] + xw[1] * xw[1] + xw[2] * xw[2]) + s);
                }
        vxk_edit cut = vxk_edit_fill_box(ibox(11, 4, 4, 12, 5, 5), VXK_MAT_AIR);
        cut.body = id;
        uint64_t ticket;
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &ticket, &cut, 0), VXK_OK);
        if (publish(w))
            return 1;
        vxk_edit_split_event ev[4];
        VXK_CHECK_EQ_INT(count_split_events(w, ev, 4), 1);
        VXK_CHECK(VXK_ID_EQUAL(ev[0].source, id));
        VXK_CHECK_EQ_U64(vxk_world_body_count(w), 2);
        momenta got = {{0}, {0}};
        if (body_momenta(w, id, &got) || body_momenta(w, ev[0].body, &got))
            return 1;
        for (int a = 0; a < 3; ++a) {
            VXK_CHECK_MSG(fabs(got.p[a] - ref.p[a]) <= 1e-4 * scale_p,
                          "trial %d: linear momentum %d: %.9g, reference %.9g", trial, a, got.p[a],
                          ref.p[a]);
            VXK_CHECK_MSG(fabs(got.l[a] - ref.l[a]) <= 1e-4 * scale_l,
                          "trial %d: angular momentum %d: %.9g, reference %.9g", trial, a, got.l[a],
                          ref.l[a]);
        }
        // The larger part kept the id.
        vxk_body_info a_info, b_info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &a_info), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, ev[0].body, &b_info), VXK_OK);
        VXK_CHECK(a_info.solid_voxels >= b_info.solid_voxels);
        VXK_CHECK_EQ_U64(b_info.solid_voxels, ev[0].voxel_count);
        vxk_world_destroy(w);
        free(g);
    }
    return 0;
}

// A hollow voxel shell cut in two: two bodies, each one half, the voxels where they were.
static int test_split_body_shell(void)
{
    vxk_world* w = vxk_scene_world_with(NULL, 0.0f);
    VXK_CHECK(w != NULL);
    const int n = 14;
    uint8_t* g = calloc((size_t)n * n * n, 1);
    for (int y = 0; y < n; ++y)
        for (int z = 0; z < n; ++z)
            for (int x = 0; x < n; ++x)
                if (x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1)
                    g[x + n * (z + n * y)] = VXK_MAT_STONE;
    vxk_voxel_grid grid = {{n, n, n}, g};
    vxk_body_def bd = vxk_default_body_def();
    bd.shape = vxk_voxel_shape(&grid, 0.0f);
    bd.position = (vxk_vec3){0.0f, 40.0f, 0.0f};
    bd.gravity_scale = 0.0f;
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    VXK_CHECK_EQ_INT(enable(w, 32, 0), VXK_OK);
    vxk_edit cut = vxk_edit_fill_box(ibox(0, 5, 0, n - 1, 5, n - 1), VXK_MAT_AIR); // y = 5
    cut.body = id;
    uint64_t ticket;
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &ticket, &cut, 0), VXK_OK);
    if (publish(w))
        return 1;
    vxk_edit_split_event ev[4];
    VXK_CHECK_EQ_INT(count_split_events(w, ev, 4), 1);
    vxk_body_info a, b;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &a), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, ev[0].body, &b), VXK_OK);
    // Below the cut: the floor (n^2) and 5 rings... y = 0..4: n^2 + 4 rings; above: y = 6..13.
    uint32_t ring = (uint32_t)(4 * (n - 1));
    uint32_t lower = (uint32_t)(n * n) + 4 * ring, upper = (uint32_t)(n * n) + 7 * ring;
    VXK_CHECK_EQ_U64(a.solid_voxels, upper);
    VXK_CHECK_EQ_U64(b.solid_voxels, lower);
    dense world = {{-20, 20, -20}, {40, 40, 40}, calloc(40 * 40 * 40, 1)};
    uint32_t voxels = 0, clash = 0;
    if (place_body(w, id, &world, &voxels, &clash) ||
        place_body(w, ev[0].body, &world, &voxels, &clash))
        return 1;
    VXK_CHECK_EQ_U64(clash, 0);
    VXK_CHECK_EQ_U64(voxels, lower + upper);
    // The body's voxels where the shell's were: the lowest corner of the two bodies' union is
    // the original grid's.
    vxk_world_destroy(w);
    free(world.v);
    free(g);
    return 0;
}

// ---- determinism
// ---------------------------------------------------------------------------------

static int determinism_run(uint32_t workers, bool thread, uint64_t* hash, uint64_t* made)
{
    vxk_jobs* jobs = NULL;
    if (workers) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
    }
    dense d = {{0, 0, 0}, {96, 32, 96}, calloc(96 * 32 * 96, 1)};
    fill(&d, ibox(0, 0, 0, 95, 3, 95), VXK_MAT_BEDROCK);
    for (int k = 0; k < 6; ++k) { // pillars holding decks (every other one at both ends)
        int x = 8 + 14 * k;
        fill(&d, ibox(x, 4, 10, x + 2, 16, 12), VXK_MAT_STONE);
        if (k % 2)
            fill(&d, ibox(x, 4, 70, x + 2, 16, 72), VXK_MAT_STONE);
        fill(&d, ibox(x, 17, 10, x + 2, 18, 72), VXK_MAT_WOOD);
    }
    vxk_world* w = make_world(jobs, &d);
    VXK_CHECK(w != NULL);
    vxk_body_def bd = vxk_default_body_def();
    for (int i = 0; i < 12; ++i) {
        bd.position = (vxk_vec3){10.0f + 6.0f * (float)i, 24.0f, 40.0f};
        bd.shape = i % 2 ? vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD)
                         : vxk_sphere_shape(0.5f, VXK_MAT_STONE);
        vxk_body_id id;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    }
    VXK_CHECK_EQ_INT(enable(w, 32, 8192), VXK_OK);
    if (thread)
        VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
    uint64_t rng = vxk_test_seed(0x5BDE);
    const int steps = VXK_TEST_SLOW ? 60 : 150;
    for (int s = 0; s < steps; ++s) {
        if (s % 15 == 2) {
            int deck = (int)(vxk_test_rand(&rng) % 6);
            vxk_vec3 at = {9.5f + 14.0f * (float)deck, vxk_test_randf(&rng, 16, 19),
                           vxk_test_randf(&rng, 16, 66)};
            vxk_edit e = vxk_edit_carve_sphere(at, vxk_test_randf(&rng, 3.0f, 4.5f));
            uint64_t t;
            VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, VXK_EDIT_WAIT_FOREVER), VXK_OK);
        }
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    }
    vxk_edit_stats st;
    vxk_edit_get_stats(w, &st);
    *made = st.split_bodies;
    *hash = vxk_world_hash(w);
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    free(d.v);
    return 0;
}

static int test_split_determinism(void)
{
    uint64_t first = 0, made = 0;
    if (determinism_run(0, false, &first, &made))
        return 1;
    VXK_CHECK_MSG(made > 0, "the explosions cut nothing loose");
    printf("  %llu bodies made by splitting, hash %016llx\n", (unsigned long long)made,
           (unsigned long long)first);
    const uint32_t workers[] = {1, 2, 8};
    for (int thread = 0; thread < 2; ++thread)
        for (int k = 0; k < 3; ++k) {
            uint64_t hash = 0, m = 0;
            if (determinism_run(workers[k], thread != 0, &hash, &m))
                return 1;
            VXK_CHECK_MSG(hash == first && m == made,
                          "%u workers, thread %d: hash %016llx (first %016llx), %llu bodies made "
                          "(first %llu)",
                          workers[k], thread, (unsigned long long)hash, (unsigned long long)first,
                          (unsigned long long)m, (unsigned long long)made);
        }
    return 0;
}

// Every test gives back what it took: the splitter's buffers are freed with the sizes they were
// allocated with (the allocator hook's counter returns to where it was).
static size_t g_bytes_before;

static int check_bytes_returned(void)
{
    VXK_CHECK_MSG(vxk_allocated_bytes() == g_bytes_before,
                  "%zu bytes held after the test, %zu before", vxk_allocated_bytes(),
                  g_bytes_before);
    return 0;
}

#define RUN_RETURNING(fn)                       \
    do {                                        \
        g_bytes_before = vxk_allocated_bytes(); \
        VXK_RUN(fn);                            \
        VXK_RUN(check_bytes_returned);          \
    } while (0)

int main(void)
{
    RUN_RETURNING(test_split_bridge);
    RUN_RETURNING(test_split_tower_and_shell);
    RUN_RETURNING(test_split_budget);
    RUN_RETURNING(test_split_high);
    RUN_RETURNING(test_split_int32_ends);
    RUN_RETURNING(test_split_body_shell);
    RUN_RETURNING(test_split_body_momentum);
    RUN_RETURNING(test_split_random_terrain);
    RUN_RETURNING(test_split_determinism);
    return vxk_test_finish();
}
