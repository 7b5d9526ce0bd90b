// test_mass.c: mass properties of voxel grids (vxk/mass.h) against analytic solids (boxes, L
// shapes and hollow shells composed here by the parallel-axis theorem) and against a brute-force
// sum over voxels, each a unit cube with its own inertia moved to the centre of mass, on seeded
// random grids; invariance under translation in the grid, voxel-size scaling, the primitives.
// Edge tests (harness.h): every error status with the output untouched, out of memory.
#include "harness.h"
#include "test.h"
#include "status_lists.h"

#include <vxk/mass.h>

#include <float.h>
#include <math.h>

static size_t voxel_index(const vxk_voxel_grid* g, int x, int y, int z)
{
    return (size_t)x + (size_t)g->size.x * ((size_t)z + (size_t)g->size.z * (size_t)y);
}

// Brute force: every voxel a cube of edge s, mass density * s^3, own inertia m s^2 / 6 on the
// diagonal, plus m (|d|^2 I - d d^T) about the centre of mass. Returns the total mass (0: none).
static double brute_force(vxk_mass_properties* out, const vxk_voxel_grid* g, const float* density,
                          double s)
{
    double total = 0.0, first[3] = {0.0, 0.0, 0.0};
    for (int y = 0; y < g->size.y; ++y)
        for (int z = 0; z < g->size.z; ++z)
            for (int x = 0; x < g->size.x; ++x) {
                uint8_t id = g->voxels[voxel_index(g, x, y, z)];
                if (id == 0 || density[id] == 0.0f)
                    continue;
                double m = (double)density[id] * s * s * s;
                total += m;
                first[0] += m * (x + 0.5) * s;
                first[1] += m * (y + 0.5) * s;
                first[2] += m * (z + 0.5) * s;
            }
    memset(out, 0, sizeof(*out));
    if (total == 0.0)
        return 0.0;
    out->mass = total;
    for (int a = 0; a < 3; ++a)
        out->center[a] = first[a] / total;
    for (int y = 0; y < g->size.y; ++y)
        for (int z = 0; z < g->size.z; ++z)
            for (int x = 0; x < g->size.x; ++x) {
                uint8_t id = g->voxels[voxel_index(g, x, y, z)];
                if (id == 0 || density[id] == 0.0f)
                    continue;
                double m = (double)density[id] * s * s * s;
                double d[3] = {(x + 0.5) * s - out->center[0], (y + 0.5) * s - out->center[1],
                               (z + 0.5) * s - out->center[2]};
                double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                for (int i = 0; i < 3; ++i) {
                    out->inertia[i][i] += m * s * s / 6.0 + m * (d2 - d[i] * d[i]);
                    for (int j = 0; j < 3; ++j)
                        if (j != i)
                            out->inertia[i][j] -= m * d[i] * d[j];
                }
            }
    return total;
}

// got against want: mass relative, centre relative to length, inertia relative to its largest
// diagonal entry (off-diagonal entries may be 0).
static int check_close(const vxk_mass_properties* got, const vxk_mass_properties* want,
                       double tolerance, double length, const char* what)
{
    VXK_CHECK_MSG(fabs(got->mass - want->mass) <= tolerance * want->mass, "%s: mass %.17g vs %.17g",
                  what, got->mass, want->mass);
    for (int a = 0; a < 3; ++a)
        VXK_CHECK_MSG(fabs(got->center[a] - want->center[a]) <= tolerance * length,
                      "%s: center[%d] %.17g vs %.17g", what, a, got->center[a], want->center[a]);
    double scale = fmax(want->inertia[0][0], fmax(want->inertia[1][1], want->inertia[2][2]));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            VXK_CHECK_MSG(fabs(got->inertia[i][j] - want->inertia[i][j]) <= tolerance * scale,
                          "%s: inertia[%d][%d] %.17g vs %.17g", what, i, j, got->inertia[i][j],
                          want->inertia[i][j]);
            VXK_CHECK_MSG(got->inertia[i][j] == got->inertia[j][i], "%s: not symmetric", what);
        }
    return 0;
}

// ---- analytic composition -----------------------------------------------------------------------

// A cuboid in metres; a negative density cuts a cavity out of an earlier one.
typedef struct solid_box {
    double min[3], size[3];
    double density;
} solid_box;

static void compose(vxk_mass_properties* out, const solid_box* boxes, int count)
{
    memset(out, 0, sizeof(*out));
    double first[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < count; ++k) {
        double m = boxes[k].density * boxes[k].size[0] * boxes[k].size[1] * boxes[k].size[2];
        out->mass += m;
        for (int a = 0; a < 3; ++a)
            first[a] += m * (boxes[k].min[a] + boxes[k].size[a] / 2.0);
    }
    for (int a = 0; a < 3; ++a)
        out->center[a] = first[a] / out->mass;
    for (int k = 0; k < count; ++k) {
        const double* e = boxes[k].size;
        double m = boxes[k].density * e[0] * e[1] * e[2];
        double d[3];
        for (int a = 0; a < 3; ++a)
            d[a] = boxes[k].min[a] + e[a] / 2.0 - out->center[a];
        for (int i = 0; i < 3; ++i) {
            int j = (i + 1) % 3, l = (i + 2) % 3;
            out->inertia[i][i] +=
                m / 12.0 * (e[j] * e[j] + e[l] * e[l]) + m * (d[j] * d[j] + d[l] * d[l]);
            out->inertia[i][j] -= m * d[i] * d[j];
            out->inertia[j][i] -= m * d[i] * d[j];
        }
    }
}

// The voxel box [lo, lo + size) as a cuboid in metres.
static solid_box voxel_solid(const int lo[3], const int size[3], double density, double s)
{
    solid_box box;
    for (int a = 0; a < 3; ++a) {
        box.min[a] = lo[a] * s;
        box.size[a] = size[a] * s;
    }
    box.density = density;
    return box;
}

// Writes material id over the voxel box [lo, lo + size).
static void fill_box(vxk_voxel_grid* g, const int lo[3], const int size[3], uint8_t id)
{
    for (int y = lo[1]; y < lo[1] + size[1]; ++y)
        for (int z = lo[2]; z < lo[2] + size[2]; ++z)
            for (int x = lo[0]; x < lo[0] + size[0]; ++x)
                g->voxels[voxel_index(g, x, y, z)] = id;
}

static int random_int(uint64_t* rng, int lo, int hi) // lo..hi inclusive
{
    return lo + (int)(vxk_test_rand(rng) % (uint64_t)(hi - lo + 1));
}

static float random_voxel_size(uint64_t* rng)
{
    return vxk_test_randf(rng, 0.01f, 3.0f);
}

static int test_solid_boxes(void)
{
    uint64_t rng = vxk_test_seed(0x3A55);
    float density[256];
    for (int i = 0; i < 256; ++i)
        density[i] = f_nan(); // only the ids present are read
    for (int iter = 0; iter < 200; ++iter) {
        vxk_int3 gs = {random_int(&rng, 1, 30), random_int(&rng, 1, 30), random_int(&rng, 1, 30)};
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, gs), VXK_OK);
        int g[3] = {gs.x, gs.y, gs.z}, lo[3], size[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = random_int(&rng, 0, g[a] - 1);
            size[a] = random_int(&rng, 1, g[a] - lo[a]);
        }
        uint8_t id = (uint8_t)random_int(&rng, 1, 255);
        density[id] = vxk_test_randf(&rng, 0.1f, 20.0f);
        fill_box(&grid, lo, size, id);
        float s = random_voxel_size(&rng);
        solid_box box = voxel_solid(lo, size, density[id], s);
        vxk_mass_properties want, got;
        compose(&want, &box, 1);
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&got, &grid, density, s), VXK_OK);
        if (check_close(&got, &want, 1e-12, 30.0 * s, "solid box"))
            return 1;
        // Its analytic inertia about the centre, the same as vxk_mass_box's.
        double m = density[id] * (double)size[0] * size[1] * size[2] * s * s * s;
        double e[3] = {size[0] * (double)s, size[1] * (double)s, size[2] * (double)s};
        VXK_CHECK(fabs(got.inertia[0][0] - m / 12.0 * (e[1] * e[1] + e[2] * e[2])) <=
                  1e-12 * got.inertia[0][0]);
        VXK_CHECK(got.inertia[0][1] == 0.0 && got.inertia[0][2] == 0.0 && got.inertia[1][2] == 0.0);
        vxk_mass_properties prim;
        vxk_vec3 half = {(float)(e[0] / 2), (float)(e[1] / 2), (float)(e[2] / 2)};
        VXK_CHECK_EQ_INT(vxk_mass_box(&prim, half, density[id]), VXK_OK);
        for (int i = 0; i < 3; ++i)
            VXK_CHECK(fabs(prim.inertia[i][i] - got.inertia[i][i]) <= 1e-6 * got.inertia[i][i]);
        density[id] = f_nan();
        vxk_voxel_grid_free(&grid);
    }
    return 0;
}

// L shapes of two materials: two boxes sharing a corner region, composed analytically.
static int test_l_shapes(void)
{
    uint64_t rng = vxk_test_seed(0x15A9);
    float density[256] = {0};
    for (int iter = 0; iter < 100; ++iter) {
        int arm = random_int(&rng, 2, 12), thick = random_int(&rng, 1, arm - 1);
        int depth = random_int(&rng, 1, 6);
        int off[3] = {random_int(&rng, 0, 5), random_int(&rng, 0, 5), random_int(&rng, 0, 5)};
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){20, 20, 20}), VXK_OK);
        density[1] = vxk_test_randf(&rng, 0.5f, 8.0f);
        density[2] = vxk_test_randf(&rng, 0.5f, 8.0f);
        // Foot along x (thick tall), leg along y above it; the axes permute per iteration.
        int axis = iter % 3, up = (axis + 1) % 3, side = (axis + 2) % 3;
        int foot_lo[3], foot_size[3], leg_lo[3], leg_size[3];
        for (int a = 0; a < 3; ++a)
            foot_lo[a] = leg_lo[a] = off[a];
        foot_size[axis] = arm;
        foot_size[up] = thick;
        foot_size[side] = depth;
        leg_size[axis] = thick;
        leg_size[up] = arm - thick;
        leg_size[side] = depth;
        leg_lo[up] += thick;
        fill_box(&grid, foot_lo, foot_size, 1);
        fill_box(&grid, leg_lo, leg_size, 2);
        float s = random_voxel_size(&rng);
        solid_box parts[2] = {voxel_solid(foot_lo, foot_size, density[1], s),
                              voxel_solid(leg_lo, leg_size, density[2], s)};
        vxk_mass_properties want, got;
        compose(&want, parts, 2);
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&got, &grid, density, s), VXK_OK);
        if (check_close(&got, &want, 1e-12, 20.0 * s, "L shape"))
            return 1;
        VXK_CHECK(got.inertia[axis][up] != 0.0); // an L has a product of inertia
        vxk_voxel_grid_free(&grid);
    }
    return 0;
}

// Hollow shells: an outer box minus an off-centre cavity (walls of different thickness).
static int test_hollow_shells(void)
{
    uint64_t rng = vxk_test_seed(0x5E11);
    float density[256] = {0};
    for (int iter = 0; iter < 100; ++iter) {
        int outer[3], wall_lo[3], wall_hi[3], cavity_lo[3], cavity_size[3];
        for (int a = 0; a < 3; ++a) {
            wall_lo[a] = random_int(&rng, 1, 3);
            wall_hi[a] = random_int(&rng, 1, 3);
            outer[a] = wall_lo[a] + wall_hi[a] + random_int(&rng, 1, 14);
            cavity_lo[a] = wall_lo[a];
            cavity_size[a] = outer[a] - wall_lo[a] - wall_hi[a];
        }
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){outer[0], outer[1], outer[2]}),
                         VXK_OK);
        uint8_t id = (uint8_t)random_int(&rng, 1, 255);
        density[id] = vxk_test_randf(&rng, 0.5f, 8.0f);
        const int zero[3] = {0, 0, 0};
        fill_box(&grid, zero, outer, id);
        fill_box(&grid, cavity_lo, cavity_size, 0);
        float s = random_voxel_size(&rng);
        solid_box parts[2] = {voxel_solid(zero, outer, density[id], s),
                              voxel_solid(cavity_lo, cavity_size, -(double)density[id], s)};
        vxk_mass_properties want, got;
        compose(&want, parts, 2);
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&got, &grid, density, s), VXK_OK);
        if (check_close(&got, &want, 1e-11, 20.0 * s, "hollow shell"))
            return 1;
        density[id] = 0.0f;
        vxk_voxel_grid_free(&grid);
    }
    return 0;
}

// Voxelized spheres (voxel centres within r of the grid centre) against the brute force, and
// large ones close to the analytic sphere.
static int test_voxel_spheres(void)
{
    uint64_t rng = vxk_test_seed(0x5F4E);
    float density[256] = {0};
    for (int r = 1; r <= 20; ++r) {
        int n = 2 * r + 2;
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){n, n, n}), VXK_OK);
        double c = n / 2.0;
        for (int y = 0; y < n; ++y)
            for (int z = 0; z < n; ++z)
                for (int x = 0; x < n; ++x) {
                    double dx = x + 0.5 - c, dy = y + 0.5 - c, dz = z + 0.5 - c;
                    if (dx * dx + dy * dy + dz * dz <= (double)r * r)
                        grid.voxels[voxel_index(&grid, x, y, z)] = (uint8_t)(1 + (x + y + z) % 3);
                }
        density[1] = density[2] = density[3] = vxk_test_randf(&rng, 0.5f, 8.0f);
        float s = random_voxel_size(&rng);
        vxk_mass_properties want, got;
        VXK_CHECK(brute_force(&want, &grid, density, s) > 0.0);
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&got, &grid, density, s), VXK_OK);
        if (check_close(&got, &want, 1e-9, n * (double)s, "voxel sphere"))
            return 1;
        for (int a = 0; a < 3; ++a)
            VXK_CHECK(fabs(got.center[a] - c * s) <= 1e-12 * n * s);
        if (r >= 12) {
            vxk_mass_properties ball;
            VXK_CHECK_EQ_INT(vxk_mass_sphere(&ball, (float)(r * (double)s), density[1]), VXK_OK);
            VXK_CHECK_MSG(fabs(got.mass / ball.mass - 1.0) < 0.03, "r %d: mass %g vs %g", r,
                          got.mass, ball.mass);
            for (int i = 0; i < 3; ++i)
                VXK_CHECK_MSG(fabs(got.inertia[i][i] / ball.inertia[i][i] - 1.0) < 0.05,
                              "r %d: inertia %g vs %g", r, got.inertia[i][i], ball.inertia[i][i]);
        }
        vxk_voxel_grid_free(&grid);
    }
    return 0;
}

// Random content: noise or overlapping boxes of a few ids (0 among them).
static void fill_random(vxk_voxel_grid* g, const uint8_t* palette, int palette_size, uint64_t* rng)
{
    size_t n = (size_t)g->size.x * g->size.y * g->size.z;
    memset(g->voxels, 0, n);
    int percent = random_int(rng, 0, 100);
    if (vxk_test_rand(rng) & 1) {
        for (size_t i = 0; i < n; ++i)
            if (random_int(rng, 0, 99) < percent)
                g->voxels[i] = palette[random_int(rng, 0, palette_size - 1)];
        return;
    }
    int boxes = random_int(rng, 1, 8), size[3] = {g->size.x, g->size.y, g->size.z};
    for (int b = 0; b < boxes; ++b) {
        int lo[3], extent[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = random_int(rng, 0, size[a] - 1);
            extent[a] = random_int(rng, 1, size[a] - lo[a]);
        }
        uint8_t id =
            (vxk_test_rand(rng) & 3) == 0 ? 0 : palette[random_int(rng, 0, palette_size - 1)];
        fill_box(g, lo, extent, id);
    }
}

// A random palette with random densities (some zero); every other id NaN: it must not be read.
static int random_palette(uint8_t* palette, float* density, uint64_t* rng)
{
    for (int i = 0; i < 256; ++i)
        density[i] = f_nan();
    int count = random_int(rng, 1, 5);
    for (int i = 0; i < count; ++i) {
        palette[i] = (uint8_t)random_int(rng, 1, 255);
        density[palette[i]] = random_int(rng, 0, 9) == 0 ? 0.0f : vxk_test_randf(rng, 0.01f, 50.0f);
    }
    return count;
}

// A random body that is never massless: voxel 0 holds the first palette id, of positive density.
static vxk_status random_body(vxk_voxel_grid* grid, vxk_int3 size, float* density, uint64_t* rng)
{
    vxk_status status = vxk_voxel_grid_create(grid, size);
    if (status != VXK_OK)
        return status;
    uint8_t palette[8];
    int count = random_palette(palette, density, rng);
    density[palette[0]] = vxk_test_randf(rng, 0.5f, 4.0f);
    fill_random(grid, palette, count, rng);
    grid->voxels[0] = palette[0];
    return VXK_OK;
}

static int test_random_grids(void)
{
    uint64_t rng = vxk_test_seed(0x6A55);
    uint8_t palette[8];
    float density[256];
    int empty = 0;
    for (int iter = 0; iter < 300; ++iter) {
        vxk_int3 size = {random_int(&rng, 1, 24), random_int(&rng, 1, 24), random_int(&rng, 1, 24)};
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, size), VXK_OK);
        int count = random_palette(palette, density, &rng);
        fill_random(&grid, palette, count, &rng);
        float s = random_voxel_size(&rng);
        vxk_mass_properties want, got;
        memset(&got, CANARY, sizeof(got));
        vxk_status status = vxk_mass_from_grid(&got, &grid, density, s);
        if (brute_force(&want, &grid, density, s) == 0.0) {
            VXK_CHECK_EQ_INT(status, VXK_ERR_OUT_OF_RANGE);
            VXK_CHECK(all_canary(&got, sizeof(got)));
            ++empty;
        } else {
            VXK_CHECK_EQ_INT(status, VXK_OK);
            char what[64];
            snprintf(what, sizeof(what), "grid %d (%dx%dx%d)", iter, size.x, size.y, size.z);
            if (check_close(&got, &want, 1e-9, 24.0 * s, what))
                return 1;
        }
        vxk_voxel_grid_free(&grid);
    }
    VXK_CHECK(empty < 100);
    return 0;
}

// The same content moved inside a bigger grid: same mass and inertia (bit for bit: the boxes are
// the same), centre moved by the offset.
static int test_translation(void)
{
    uint64_t rng = vxk_test_seed(0x7A45);
    float density[256];
    for (int iter = 0; iter < 100; ++iter) {
        vxk_int3 size = {random_int(&rng, 1, 12), random_int(&rng, 1, 12), random_int(&rng, 1, 12)};
        vxk_voxel_grid small, big;
        VXK_CHECK_EQ_INT(random_body(&small, size, density, &rng), VXK_OK);
        int off[3] = {random_int(&rng, 0, 60), random_int(&rng, 0, 60), random_int(&rng, 0, 60)};
        vxk_int3 big_size = {size.x + off[0] + random_int(&rng, 0, 60),
                             size.y + off[1] + random_int(&rng, 0, 60),
                             size.z + off[2] + random_int(&rng, 0, 60)};
        VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&big, big_size), VXK_OK);
        for (int y = 0; y < size.y; ++y)
            for (int z = 0; z < size.z; ++z)
                for (int x = 0; x < size.x; ++x)
                    big.voxels[voxel_index(&big, x + off[0], y + off[1], z + off[2])] =
                        small.voxels[voxel_index(&small, x, y, z)];
        float s = random_voxel_size(&rng);
        vxk_mass_properties a, b;
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&a, &small, density, s), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&b, &big, density, s), VXK_OK);
        VXK_CHECK(a.mass == b.mass);
        VXK_CHECK_MSG(memcmp(a.inertia, b.inertia, sizeof(a.inertia)) == 0,
                      "iter %d: inertia differs after translation", iter);
        for (int i = 0; i < 3; ++i)
            VXK_CHECK_MSG(fabs(b.center[i] - (a.center[i] + off[i] * (double)s)) <=
                              1e-13 * 256.0 * s,
                          "iter %d: center[%d] %.17g vs %.17g + %d s", iter, i, b.center[i],
                          a.center[i], off[i]);
        vxk_voxel_grid_free(&small);
        vxk_voxel_grid_free(&big);
    }
    return 0;
}

// Mass ~ s^3, centre ~ s, inertia ~ s^5; exactly so for powers of two.
static int test_voxel_size_scaling(void)
{
    uint64_t rng = vxk_test_seed(0x5CA1);
    float density[256];
    for (int iter = 0; iter < 100; ++iter) {
        vxk_int3 size = {random_int(&rng, 1, 16), random_int(&rng, 1, 16), random_int(&rng, 1, 16)};
        vxk_voxel_grid grid;
        VXK_CHECK_EQ_INT(random_body(&grid, size, density, &rng), VXK_OK);
        vxk_mass_properties unit, scaled, want;
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&unit, &grid, density, 1.0f), VXK_OK);
        float s = random_voxel_size(&rng);
        double sd = s;
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&scaled, &grid, density, s), VXK_OK);
        want = unit;
        want.mass *= sd * sd * sd;
        for (int i = 0; i < 3; ++i) {
            want.center[i] *= sd;
            for (int j = 0; j < 3; ++j)
                want.inertia[i][j] *= sd * sd * sd * sd * sd;
        }
        if (check_close(&scaled, &want, 1e-13, 16.0 * sd, "scaled"))
            return 1;
        int k = random_int(&rng, -6, 6);
        VXK_CHECK_EQ_INT(vxk_mass_from_grid(&scaled, &grid, density, ldexpf(1.0f, k)), VXK_OK);
        VXK_CHECK(scaled.mass == ldexp(unit.mass, 3 * k));
        for (int i = 0; i < 3; ++i) {
            VXK_CHECK(scaled.center[i] == ldexp(unit.center[i], k));
            for (int j = 0; j < 3; ++j)
                VXK_CHECK(scaled.inertia[i][j] == ldexp(unit.inertia[i][j], 5 * k));
        }
        vxk_voxel_grid_free(&grid);
    }
    return 0;
}

static int test_primitives(void)
{
    vxk_mass_properties p;
    VXK_CHECK_EQ_INT(vxk_mass_box(&p, (vxk_vec3){1.0f, 2.0f, 0.5f}, 3.0f), VXK_OK);
    VXK_CHECK(p.mass == 24.0); // 2 * 4 * 1 * 3
    VXK_CHECK(fabs(p.inertia[0][0] - 24.0 / 12.0 * (16.0 + 1.0)) <= 1e-14 * p.mass * 17.0);
    VXK_CHECK(fabs(p.inertia[1][1] - 24.0 / 12.0 * (4.0 + 1.0)) <= 1e-14 * p.mass * 17.0);
    VXK_CHECK(fabs(p.inertia[2][2] - 24.0 / 12.0 * (4.0 + 16.0)) <= 1e-14 * p.mass * 17.0);
    VXK_CHECK(p.center[0] == 0.0 && p.center[1] == 0.0 && p.center[2] == 0.0);
    VXK_CHECK(p.inertia[0][1] == 0.0 && p.inertia[1][0] == 0.0 && p.inertia[1][2] == 0.0);
    VXK_CHECK_EQ_INT(vxk_mass_sphere(&p, 2.0f, 0.5f), VXK_OK);
    double m = 4.0 / 3.0 * 3.14159265358979323846 * 8.0 * 0.5;
    VXK_CHECK(fabs(p.mass - m) <= 1e-14 * m);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            VXK_CHECK(i == j ? fabs(p.inertia[i][j] - 0.4 * m * 4.0) <= 1e-14 * m
                             : p.inertia[i][j] == 0.0);
    vxk_mass_float f = vxk_mass_to_float(&p);
    VXK_CHECK(f.mass == (float)p.mass && f.inertia[2][2] == (float)p.inertia[2][2] &&
              f.center.x == 0.0f);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

// One call's status, and *out untouched (canary) unless it succeeded with a finite result.
#define CHECK_MASS_CALL(expected, call)                                                  \
    do {                                                                                 \
        memset(&out, CANARY, sizeof(out));                                               \
        VXK_CHECK_EQ_INT((call), (expected));                                            \
        if ((expected) == VXK_OK)                                                        \
            VXK_CHECK(isfinite(out.mass) && out.mass > 0.0 && isfinite(out.center[0]) && \
                      isfinite(out.inertia[0][0]) && out.inertia[0][0] > 0.0);           \
        else                                                                             \
            VXK_CHECK(all_canary(&out, sizeof(out)));                                    \
    } while (0)

static int test_errors(void)
{
    size_t before = vxk_allocated_bytes();
    vxk_mass_properties out;
    float density[256];
    for (int i = 0; i < 256; ++i)
        density[i] = f_nan();
    density[7] = 2.0f;
    density[9] = 0.5f;
    uint8_t voxels[4 * 3 * 2] = {0};
    voxels[5] = 7;
    voxels[11] = 9;
    vxk_voxel_grid grid = {{4, 3, 2}, voxels};
    CHECK_MASS_CALL(VXK_OK, vxk_mass_from_grid(&out, &grid, density, 1.0f));
    CHECK_MASS_CALL(VXK_ERR_INVALID_ARGUMENT, vxk_mass_from_grid(NULL, &grid, density, 1.0f));
    CHECK_MASS_CALL(VXK_ERR_INVALID_ARGUMENT, vxk_mass_from_grid(&out, NULL, density, 1.0f));
    CHECK_MASS_CALL(VXK_ERR_INVALID_ARGUMENT, vxk_mass_from_grid(&out, &grid, NULL, 1.0f));
    vxk_voxel_grid forged = {{4, 3, 2}, NULL};
    CHECK_MASS_CALL(VXK_ERR_INVALID_ARGUMENT, vxk_mass_from_grid(&out, &forged, density, 1.0f));

    // The voxel size: the first three special floats are not finite; -0 and -FLT_MAX are not
    // positive; FLT_TRUE_MIN and FLT_MAX give finite results (doubles).
    const vxk_status size_status[SPECIAL_FLOATS] = {VXK_ERR_NOT_FINITE,
                                                    VXK_ERR_NOT_FINITE,
                                                    VXK_ERR_NOT_FINITE,
                                                    VXK_ERR_OUT_OF_RANGE,
                                                    VXK_OK,
                                                    VXK_OK,
                                                    VXK_ERR_OUT_OF_RANGE};
    for (int k = 0; k < SPECIAL_FLOATS; ++k)
        CHECK_MASS_CALL(size_status[k], vxk_mass_from_grid(&out, &grid, density, special_float(k)));
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&out, &grid, density, 0.0f));
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&out, &grid, density, -1.0f));
    // The voxel size is checked before the grid's sizes.
    forged = grid;
    forged.size.x = 0;
    CHECK_MASS_CALL(VXK_ERR_NOT_FINITE, vxk_mass_from_grid(&out, &forged, density, f_nan()));

    // Grid sizes: checked before any voxel is read.
    const int32_t bad_size[] = {0, -1, INT32_MIN, VXK_MASS_GRID_MAX + 1, INT32_MAX};
    for (int a = 0; a < 3; ++a)
        for (size_t i = 0; i < sizeof(bad_size) / sizeof(bad_size[0]); ++i) {
            forged = grid;
            (&forged.size.x)[a] = bad_size[i];
            CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&out, &forged, density, 1.0f));
        }
    vxk_voxel_grid line;
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&line, (vxk_int3){VXK_MASS_GRID_MAX, 1, 1}), VXK_OK);
    line.voxels[VXK_MASS_GRID_MAX - 1] = 7;
    CHECK_MASS_CALL(VXK_OK, vxk_mass_from_grid(&out, &line, density, 1.0f));
    VXK_CHECK(out.center[0] == VXK_MASS_GRID_MAX - 0.5);
    vxk_voxel_grid_free(&line);

    // The density of a used id.
    const vxk_status density_status[SPECIAL_FLOATS] = {
        VXK_ERR_NOT_FINITE,  VXK_ERR_NOT_FINITE, VXK_ERR_NOT_FINITE, VXK_OK, VXK_OK, VXK_OK,
        VXK_ERR_OUT_OF_RANGE};
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        density[7] = special_float(k);
        CHECK_MASS_CALL(density_status[k], vxk_mass_from_grid(&out, &grid, density, 1.0f));
    }
    density[7] = -1.0f;
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&out, &grid, density, 1.0f));
    density[9] = f_nan(); // not finite is reported before negative, whatever the ids' order
    CHECK_MASS_CALL(VXK_ERR_NOT_FINITE, vxk_mass_from_grid(&out, &grid, density, 1.0f));
    // Zero total mass: only zero densities (-0 included), or an empty grid.
    density[7] = 0.0f;
    density[9] = -0.0f;
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&out, &grid, density, 1.0f));
    density[9] = FLT_TRUE_MIN; // the smallest positive mass is still a mass
    CHECK_MASS_CALL(VXK_OK, vxk_mass_from_grid(&out, &grid, density, FLT_TRUE_MIN));
    memset(voxels, 0, sizeof(voxels));
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&out, &grid, density, 1.0f));

    // Primitives.
    const vxk_vec3 half = {1.0f, 2.0f, 3.0f};
    CHECK_MASS_CALL(VXK_ERR_INVALID_ARGUMENT, vxk_mass_box(NULL, half, 1.0f));
    CHECK_MASS_CALL(VXK_ERR_INVALID_ARGUMENT, vxk_mass_sphere(NULL, 1.0f, 1.0f));
    const vxk_status positive_status[SPECIAL_FLOATS] = {VXK_ERR_NOT_FINITE,
                                                        VXK_ERR_NOT_FINITE,
                                                        VXK_ERR_NOT_FINITE,
                                                        VXK_ERR_OUT_OF_RANGE,
                                                        VXK_OK,
                                                        VXK_OK,
                                                        VXK_ERR_OUT_OF_RANGE};
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float v = special_float(k);
        for (int a = 0; a < 3; ++a) {
            vxk_vec3 h = half;
            (&h.x)[a] = v;
            CHECK_MASS_CALL(positive_status[k], vxk_mass_box(&out, h, 1.0f));
        }
        CHECK_MASS_CALL(positive_status[k], vxk_mass_box(&out, half, v));
        CHECK_MASS_CALL(positive_status[k], vxk_mass_sphere(&out, v, 1.0f));
        CHECK_MASS_CALL(positive_status[k], vxk_mass_sphere(&out, 1.0f, v));
    }
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_box(&out, (vxk_vec3){1, 0, 1}, 1.0f));
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_box(&out, half, 0.0f));
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_sphere(&out, 0.0f, 1.0f));
    CHECK_MASS_CALL(VXK_ERR_OUT_OF_RANGE, vxk_mass_sphere(&out, 1.0f, 0.0f));
    // Extreme finite inputs stay finite in double.
    CHECK_MASS_CALL(VXK_OK, vxk_mass_box(&out, (vxk_vec3){FLT_MAX, FLT_MAX, FLT_MAX}, FLT_MAX));
    CHECK_MASS_CALL(VXK_OK, vxk_mass_sphere(&out, FLT_TRUE_MIN, FLT_TRUE_MIN));
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

static int test_oom(void)
{
    vxk_voxel_grid grid;
    VXK_CHECK_EQ_INT(vxk_voxel_grid_create(&grid, (vxk_int3){70, 9, 11}), VXK_OK);
    uint64_t rng = vxk_test_seed(0x00A5);
    for (size_t i = 0; i < 70 * 9 * 11; ++i)
        grid.voxels[i] = (uint8_t)(random_int(&rng, 0, 4) == 0 ? 0 : random_int(&rng, 1, 3));
    float density[256] = {0};
    density[1] = 1.0f;
    density[2] = 2.5f;
    density[3] = 0.25f;
    vxk_mass_properties ref, out;
    VXK_CHECK_EQ_INT(vxk_mass_from_grid(&ref, &grid, density, 0.1f), VXK_OK);
    size_t base = vxk_allocated_bytes();
    OOM_SWEEP(
        memset(&out, CANARY, sizeof(out)), vxk_mass_from_grid(&out, &grid, density, 0.1f),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(all_canary(&out, sizeof(out)));
            } else {
                VXK_CHECK(memcmp(&out, &ref, sizeof(out)) == 0);
            }
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        },
        (void)0);
    vxk_voxel_grid_free(&grid);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/mass.h for each status it lists.
static int test_statuses_mass(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_mass_properties p;
    float density[256] = {0};
    density[VXK_MAT_STONE] = 2.5f;
    uint8_t voxels[8] = {VXK_MAT_STONE};
    vxk_voxel_grid grid = {{2, 2, 2}, voxels}, wide = {{257, 1, 1}, voxels};
    EXPECT_STATUS(VXK_OK, vxk_mass_from_grid(&p, &grid, density, 0.5f));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_mass_from_grid(&p, &grid, NULL, 0.5f));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_mass_from_grid(&p, &grid, density, INFINITY));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&p, &grid, density, 0.0f));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&p, &wide, density, 0.5f));
    EXPECT_NO_MEMORY(vxk_mass_from_grid(&p, &grid, density, 0.5f));
    density[VXK_MAT_STONE] = nanf("");
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_mass_from_grid(&p, &grid, density, 0.5f));
    density[VXK_MAT_STONE] = 0.0f; // zero total mass
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&p, &grid, density, 0.5f));
    const vxk_vec3 half = {1, 2, 3}, flat = {1, 0, 3}, bad = {1, INFINITY, 3};
    EXPECT_STATUS(VXK_OK, vxk_mass_box(&p, half, 1.0f));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_mass_box(NULL, half, 1.0f));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_mass_box(&p, bad, 1.0f));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_mass_box(&p, flat, 1.0f));
    EXPECT_STATUS(VXK_OK, vxk_mass_sphere(&p, 2.0f, 1.0f));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_mass_sphere(NULL, 2.0f, 1.0f));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_mass_sphere(&p, 2.0f, nanf("")));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_mass_sphere(&p, 2.0f, -1.0f));
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_primitives);
    VXK_RUN(test_solid_boxes);
    VXK_RUN(test_l_shapes);
    VXK_RUN(test_hollow_shells);
    VXK_RUN(test_voxel_spheres);
    VXK_RUN(test_random_grids);
    VXK_RUN(test_translation);
    VXK_RUN(test_voxel_size_scaling);
    vxk_edge_tests_begin();
    VXK_RUN(test_errors);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_mass);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
