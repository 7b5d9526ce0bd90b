// test_contact_voxel.c: voxel contacts (contact_voxel.h) against a brute-force reference written
// here in double precision and sharing no code with the kernel: its own voxel typing (counting
// empty face neighbours, walking the 26 directions for Inside exits), its own transforms, every
// voxel pair of A x B with the rules of the header (no overlap region, no neighbourhood, no bit
// rows). On seeded random shapes (grids with holes, random poses and rotations, unequal voxel
// sizes, terrain regions with a border; deep, touching, just separated and far) the raw points
// must equal the reference's pairs, and the manifolds must cover every touching area the
// reference finds and invent none. Canonical cases check the hand-computed contacts of every
// pair type; others check feature-id stability, the driving side, flipping and bad input.
#include "test.h"

#include "contact_voxel.h"
#include "harness.h"

#include <float.h>
#include <limits.h>
#include <math.h>

// ---- reference ---------------------------------------------------------------------------------

// The article's normal table, in its order.
static const int k_table[26][3] = {
    {1, 0, 0},   {0, 1, 0},   {0, 0, 1},   {-1, 0, 0},  {0, -1, 0},  {0, 0, -1}, {1, 1, 0},
    {1, 0, 1},   {0, 1, 1},   {-1, 1, 0},  {-1, 0, 1},  {0, -1, 1},  {1, -1, 0}, {1, 0, -1},
    {0, 1, -1},  {-1, -1, 0}, {-1, 0, -1}, {0, -1, -1}, {1, 1, 1},   {1, 1, -1}, {1, -1, 1},
    {1, -1, -1}, {-1, 1, 1},  {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}};
// Face directions in the header's order: +x, +y, +z, -x, -y, -z.
static const int k_faces[6][3] = {{1, 0, 0},  {0, 1, 0},  {0, 0, 1},
                                  {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};

enum { R_EMPTY, R_CORNER, R_EDGE, R_FACE, R_INSIDE };

typedef struct rshape {
    int n[3];
    uint8_t* occ; // x + n0 * (z + n2 * y)
    double s;
    double origin[3];
    double rot[3][3]; // row-major, world = pos + rot * local
    double pos[3];
    int base[3];
    int region;
    int lo[3], hi[3]; // the voxels that may touch
    // typing
    uint8_t* type;
    int8_t* normal; // table index or -1
    uint8_t* open;  // bit i: face direction i empty
} rshape;

static int r_index(const rshape* r, int x, int y, int z)
{
    return x + r->n[0] * (z + r->n[2] * y);
}

static int r_in(const rshape* r, int x, int y, int z)
{
    return x >= 0 && y >= 0 && z >= 0 && x < r->n[0] && y < r->n[1] && z < r->n[2];
}

static int r_solid(const rshape* r, int x, int y, int z)
{
    if (!r_in(r, x, y, z))
        return r->region; // a body is empty outside, a region solid
    return r->occ[r_index(r, x, y, z)] != 0;
}

static int table_index(int x, int y, int z)
{
    for (int k = 0; k < 26; ++k)
        if (k_table[k][0] == x && k_table[k][1] == y && k_table[k][2] == z)
            return k;
    return -1;
}

// Types by counting empty face neighbours; Inside exits by walking the 26 directions.
static void r_type(rshape* r)
{
    int count = r->n[0] * r->n[1] * r->n[2];
    r->type = (uint8_t*)calloc((size_t)count, 1);
    r->normal = (int8_t*)malloc((size_t)count);
    r->open = (uint8_t*)calloc((size_t)count, 1);
    for (int y = 0; y < r->n[1]; ++y)
        for (int z = 0; z < r->n[2]; ++z)
            for (int x = 0; x < r->n[0]; ++x) {
                int i = r_index(r, x, y, z);
                r->normal[i] = -1;
                if (!r->occ[i])
                    continue;
                int empties = 0, sum[3] = {0, 0, 0};
                for (int f = 0; f < 6; ++f) {
                    if (r_solid(r, x + k_faces[f][0], y + k_faces[f][1], z + k_faces[f][2]))
                        continue;
                    empties++;
                    r->open[i] |= (uint8_t)(1 << f);
                    for (int a = 0; a < 3; ++a)
                        sum[a] += k_faces[f][a];
                }
                r->type[i] = empties == 0   ? R_INSIDE
                             : empties == 1 ? R_FACE
                             : empties == 2 ? R_EDGE
                                            : R_CORNER;
                if (empties) {
                    r->normal[i] = (int8_t)table_index(sum[0], sum[1], sum[2]);
                    continue;
                }
                long best = LONG_MAX;
                for (int k = 0; k < 26; ++k) {
                    const int* d = k_table[k];
                    long len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                    for (int step = 1; step < 600; ++step) {
                        int px = x + step * d[0], py = y + step * d[1], pz = z + step * d[2];
                        if (!r_in(r, px, py, pz) && r->region)
                            break; // no exit inside a region in this direction
                        if (!r_solid(r, px, py, pz)) {
                            if ((long)step * step * len2 < best) {
                                best = (long)step * step * len2;
                                r->normal[i] = (int8_t)k;
                            }
                            break;
                        }
                    }
                }
            }
}

static void r_free(rshape* r)
{
    free(r->occ);
    free(r->type);
    free(r->normal);
    free(r->open);
}

static void r_rotation(rshape* r, vxk_quat q)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    double l = sqrt(x * x + y * y + z * z + w * w);
    x /= l, y /= l, z /= l, w /= l;
    double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(r->rot, m, sizeof(m));
}

static void r_world(const rshape* r, const double local[3], double out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] =
            r->pos[i] + r->rot[i][0] * local[0] + r->rot[i][1] * local[1] + r->rot[i][2] * local[2];
}

static void r_centre(const rshape* r, int x, int y, int z, double out[3])
{
    double local[3] = {r->origin[0] + (x + 0.5) * r->s, r->origin[1] + (y + 0.5) * r->s,
                       r->origin[2] + (z + 0.5) * r->s};
    r_world(r, local, out);
}

static void r_dir(const rshape* r, const int d[3], double out[3])
{
    double l = sqrt((double)(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    for (int i = 0; i < 3; ++i)
        out[i] = (r->rot[i][0] * d[0] + r->rot[i][1] * d[1] + r->rot[i][2] * d[2]) / l;
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// One admitted pair of the reference. A pair whose decision rounding could tip (the distance at
// the reach, the lookup correction's sign, near-equal face candidates) lists every outcome.
#define MAX_ALT 12
typedef struct rpair {
    int a, b;         // voxel indices
    int va[3], vb[3]; // coordinates
    int optional;     // within rounding of the reach: the kernel may or may not report it
    int normals;      // 1 or 2 (sign ambiguous)
    // Centres closer than rounding: the direction is noise, any unit normal n will do with the
    // separation d . n - (s_a + s_b) / 2 and the point mid + n (shift - separation / 2).
    int free_normal;
    double mid[3], shift, half_sum;
    double dist, noise; // centre distance; rounding of the kernel's centres
    double normal[2][3], separation[2], point[2][3];
    int faces;
    double face[MAX_ALT][3], face_separation[MAX_ALT], face_point[MAX_ALT][3];
    int region; // touching area (union-find root)
} rpair;

typedef struct rpairs {
    rpair* items;
    int count, capacity;
} rpairs;

static void push_pair(rpairs* list, const rpair* p)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 256;
        list->items = (rpair*)realloc(list->items, sizeof(rpair) * (size_t)list->capacity);
    }
    list->items[list->count++] = *p;
}

static void set3(double out[3], const double v[3])
{
    out[0] = v[0], out[1] = v[1], out[2] = v[2];
}

// The point on A's side for normal n, separation sep and contact centre c.
static void along(double out[3], const double c[3], const double n[3], double sep)
{
    for (int i = 0; i < 3; ++i)
        out[i] = c[i] - 0.5 * sep * n[i];
}

// Every pair of A x B with the header's rules.
static void r_pairs(rpairs* out, const rshape* A, const rshape* B, double margin)
{
    out->count = 0;
    double reach = 0.5 * (A->s + B->s) + margin;
    double half_sum = 0.5 * (A->s + B->s);
    for (int ay = A->lo[1]; ay <= A->hi[1]; ++ay)
        for (int az = A->lo[2]; az <= A->hi[2]; ++az)
            for (int ax = A->lo[0]; ax <= A->hi[0]; ++ax) {
                int ia = r_index(A, ax, ay, az);
                if (!A->occ[ia])
                    continue;
                double pa[3];
                r_centre(A, ax, ay, az, pa);
                for (int by = B->lo[1]; by <= B->hi[1]; ++by)
                    for (int bz = B->lo[2]; bz <= B->hi[2]; ++bz)
                        for (int bx = B->lo[0]; bx <= B->hi[0]; ++bx) {
                            int ib = r_index(B, bx, by, bz);
                            if (!B->occ[ib])
                                continue;
                            int ta = A->type[ia], tb = B->type[ib];
                            if (!(ta == R_CORNER || tb == R_CORNER ||
                                  (ta == R_EDGE && tb == R_EDGE)))
                                continue;
                            double pb[3], d[3];
                            r_centre(B, bx, by, bz, pb);
                            for (int i = 0; i < 3; ++i)
                                d[i] = pb[i] - pa[i];
                            double dist = sqrt(dot3(d, d));
                            double scale = 1.0 + fabs(pa[0]) + fabs(pa[1]) + fabs(pa[2]);
                            double band = 4e-6 * scale;
                            if (dist > reach + band)
                                continue;
                            rpair p;
                            memset(&p, 0, sizeof(p));
                            p.a = ia, p.b = ib;
                            p.va[0] = ax, p.va[1] = ay, p.va[2] = az;
                            p.vb[0] = bx, p.vb[1] = by, p.vb[2] = bz;
                            p.optional = fabs(dist - reach) <= band;
                            double la[3] = {0, 0, 0}, lb[3] = {0, 0, 0}, c[3];
                            if (A->normal[ia] >= 0)
                                r_dir(A, k_table[A->normal[ia]], la);
                            if (B->normal[ib] >= 0)
                                r_dir(B, k_table[B->normal[ib]], lb);
                            for (int i = 0; i < 3; ++i)
                                c[i] = la[i] - lb[i];
                            // Lookup normals that agree to rounding say nothing (the kernel
                            // drops a difference shorter than 1e-4).
                            if (dot3(c, c) < 1e-8)
                                c[0] = c[1] = c[2] = 0;
                            int deep = (ta == R_INSIDE && A->normal[ia] >= 0) ||
                                       (tb == R_INSIDE && B->normal[ib] >= 0);
                            double mid[3];
                            for (int i = 0; i < 3; ++i)
                                mid[i] = 0.5 * (pa[i] + pb[i]);
                            double shift = 0.25 * (A->s - B->s);
                            if (deep) {
                                double n[3], sep = -(ta == R_INSIDE ? A->s : B->s);
                                const double* centre = ta == R_INSIDE ? pa : pb;
                                for (int i = 0; i < 3; ++i)
                                    n[i] = ta == R_INSIDE ? la[i] : -lb[i];
                                p.normals = 1;
                                set3(p.normal[0], n);
                                p.separation[0] = sep;
                                along(p.point[0], centre, n, sep);
                                p.faces = 1;
                                set3(p.face[0], n);
                                p.face_separation[0] = sep;
                                set3(p.face_point[0], p.point[0]);
                                push_pair(out, &p);
                                continue;
                            }
                            // The article's normal with the symmetric lookup correction.
                            double u[3];
                            double cl = sqrt(dot3(c, c));
                            if (dist > 1e-6 * half_sum) {
                                for (int i = 0; i < 3; ++i)
                                    u[i] = d[i] / dist;
                            } else if (cl > 0) {
                                for (int i = 0; i < 3; ++i)
                                    u[i] = c[i] / cl;
                            } else {
                                u[0] = 0, u[1] = 1, u[2] = 0;
                            }
                            double side = dot3(d, c);
                            p.dist = dist;
                            p.noise = 3e-7 * scale;
                            p.free_normal = dist <= 1e-5 * scale;
                            set3(p.mid, mid);
                            p.shift = shift;
                            p.half_sum = half_sum;
                            int ambiguous =
                                dist > 1e-6 * half_sum && cl > 0 && fabs(side) <= 1e-5 * dist * cl;
                            p.normals = ambiguous ? 2 : 1;
                            for (int k = 0; k < p.normals; ++k) {
                                double sign = 1.0;
                                if (ambiguous)
                                    sign = k == 0 ? 1.0 : -1.0;
                                else if (dist > 1e-6 * half_sum && side < 0)
                                    sign = -1.0;
                                double n[3] = {sign * u[0], sign * u[1], sign * u[2]};
                                double sep = dot3(d, n) - half_sum, centre[3];
                                for (int i = 0; i < 3; ++i)
                                    centre[i] = mid[i] + shift * n[i];
                                set3(p.normal[k], n);
                                p.separation[k] = sep;
                                along(p.point[k], centre, n, sep);
                            }
                            // Face candidates: A's open directions, B's negated; the best dot
                            // with c, then with the (first) normal, under rounding.
                            double cand[12][3], score[12], with_n[12];
                            int m = 0;
                            for (int f = 0; f < 6; ++f)
                                if (A->open[ia] & (1 << f)) {
                                    r_dir(A, k_faces[f], cand[m]);
                                    m++;
                                }
                            for (int f = 0; f < 6; ++f)
                                if (B->open[ib] & (1 << f)) {
                                    r_dir(B, k_faces[f], cand[m]);
                                    for (int i = 0; i < 3; ++i)
                                        cand[m][i] = -cand[m][i];
                                    m++;
                                }
                            for (int j = 0; j < m; ++j) {
                                score[j] = dot3(cand[j], c);
                                with_n[j] = dot3(cand[j], p.normal[0]);
                            }
                            // The kernel takes the best score, then among the scores within
                            // 1e-5 of it the best dot with the normal; rounding may move a score
                            // across that line.
                            double best = -DBL_MAX, best_along = -DBL_MAX;
                            for (int j = 0; j < m; ++j)
                                best = fmax(best, score[j]);
                            for (int j = 0; j < m; ++j)
                                if (score[j] >= best - 0.5e-5)
                                    best_along = fmax(best_along, with_n[j]);
                            for (int j = 0; j < m && p.faces < MAX_ALT; ++j) {
                                int possible =
                                    score[j] >= best - 2e-5 && (with_n[j] >= best_along - 2e-5 ||
                                                                p.normals == 2 || p.free_normal);
                                if (!possible)
                                    continue;
                                int seen = 0;
                                for (int k = 0; k < p.faces; ++k) {
                                    double e[3] = {p.face[k][0] - cand[j][0],
                                                   p.face[k][1] - cand[j][1],
                                                   p.face[k][2] - cand[j][2]};
                                    seen |= dot3(e, e) < 1e-12;
                                }
                                if (seen)
                                    continue;
                                int k = p.faces++;
                                set3(p.face[k], cand[j]);
                                p.face_separation[k] = dot3(d, cand[j]) - half_sum;
                                double centre[3];
                                for (int i = 0; i < 3; ++i)
                                    centre[i] = mid[i] + shift * cand[j][i];
                                along(p.face_point[k], centre, cand[j], p.face_separation[k]);
                            }
                            push_pair(out, &p);
                        }
            }
}

// ---- shapes ------------------------------------------------------------------------------------

typedef struct shape {
    rshape ref;
    vxk_voxel_view view;
    void* region_storage;
} shape;

static vxk_quat random_quat(uint64_t* rng)
{
    for (;;) {
        float x = vxk_test_randf(rng, -1, 1), y = vxk_test_randf(rng, -1, 1);
        float z = vxk_test_randf(rng, -1, 1), w = vxk_test_randf(rng, -1, 1);
        float l2 = x * x + y * y + z * z + w * w;
        if (l2 > 0.05f && l2 < 1.0f) {
            float l = sqrtf(l2);
            return (vxk_quat){x / l, y / l, z / l, w / l};
        }
    }
}

// One of the 24 rotations that keep the axes (a quaternion of 90-degree turns).
static vxk_quat aligned_quat(uint64_t* rng)
{
    static const float h = 0.70710678f;
    static const vxk_quat turns[4][4] = {{{0, 0, 0, 1}, {h, 0, 0, h}, {1, 0, 0, 0}, {-h, 0, 0, h}},
                                         {{0, 0, 0, 1}, {0, h, 0, h}, {0, 1, 0, 0}, {0, -h, 0, h}},
                                         {{0, 0, 0, 1}, {0, 0, h, h}, {0, 0, 1, 0}, {0, 0, -h, h}},
                                         {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}};
    vxk_quat a = turns[0][vxk_test_rand(rng) % 4], b = turns[1][vxk_test_rand(rng) % 4];
    vxk_quat q = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                  a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return q;
}

// Finishes a shape whose ref.occ, sizes, s, origin and pose are set: reference typing and the
// kernel's view (a body view from a grid, or a region view from dense occupancy).
static int shape_build(shape* sh, vxk_quat q, vxk_vec3 p)
{
    rshape* r = &sh->ref;
    r_rotation(r, q);
    r->pos[0] = p.x, r->pos[1] = p.y, r->pos[2] = p.z;
    r_type(r);
    vxk_int3 size = {r->n[0], r->n[1], r->n[2]};
    for (int i = 0; i < 3; ++i) {
        r->lo[i] = r->region ? 1 : 0;
        r->hi[i] = r->region ? r->n[i] - 2 : r->n[i] - 1;
    }
    sh->region_storage = NULL;
    if (r->region) {
        size_t bytes = vxk_voxel_view_storage_bytes(size);
        sh->region_storage = malloc(bytes);
        vxk_int3 min = {r->base[0], r->base[1], r->base[2]};
        VXK_CHECK_EQ_INT(vxk_voxel_view_region_dense(&sh->view, sh->region_storage, bytes, min,
                                                     size, (float)r->s, r->occ),
                         VXK_OK);
        // The reference places a region at its base.
        for (int i = 0; i < 3; ++i)
            r->origin[i] = (double)(float)((double)r->base[i] * (float)r->s);
    } else {
        vxk_voxel_grid grid = {size, r->occ};
        uint8_t solid[256];
        for (int m = 0; m < 256; ++m)
            solid[m] = m != 0;
        vxk_vec3 origin = {(float)r->origin[0], (float)r->origin[1], (float)r->origin[2]};
        VXK_CHECK_EQ_INT(vxk_voxel_view_create(&sh->view, &grid, solid, NULL, (float)r->s, origin),
                         VXK_OK);
    }
    sh->view.pose = (vxk_transform){p, q};
    return 0;
}

static void shape_free(shape* sh)
{
    vxk_voxel_view_destroy(&sh->view);
    free(sh->region_storage);
    r_free(&sh->ref);
}

// A random grid with holes: a box with voxels dropped at random, or a blob.
static void random_occupancy(rshape* r, uint64_t* rng, int max_side)
{
    for (int i = 0; i < 3; ++i)
        r->n[i] = 1 + (int)(vxk_test_rand(rng) % (uint64_t)max_side);
    int count = r->n[0] * r->n[1] * r->n[2];
    r->occ = (uint8_t*)calloc((size_t)count, 1);
    uint64_t mode = vxk_test_rand(rng) % 3;
    float keep = mode == 0 ? 1.0f : vxk_test_randf(rng, 0.45f, 0.95f);
    int solid = 0;
    for (int i = 0; i < count; ++i) {
        r->occ[i] = vxk_test_randf(rng, 0, 1) < keep;
        solid += r->occ[i];
    }
    if (!solid)
        r->occ[vxk_test_rand(rng) % (uint64_t)count] = 1;
}

// ---- checks against the reference --------------------------------------------------------------

static double dist3(const double a[3], vxk_vec3 b)
{
    double d[3] = {a[0] - b.x, a[1] - b.y, a[2] - b.z};
    return sqrt(dot3(d, d));
}

static double dotv(const double a[3], vxk_vec3 b)
{
    return a[0] * b.x + a[1] * b.y + a[2] * b.z;
}

// Tolerance for positions and separations: float rounding of coordinates of this size.
static double position_tol(const rshape* a, const rshape* b)
{
    double m = 1.0;
    for (int i = 0; i < 3; ++i)
        m += fabs(a->pos[i]) + fabs(b->pos[i]) + fabs(a->origin[i]) + fabs(b->origin[i]);
    return 2e-5 * m + 1e-4 * (a->s + b->s);
}

// Whether manifold point q (normal n) is the face point of one alternative of pair p.
static int point_matches(const rpair* p, vxk_vec3 n, const vxk_manifold_point* q, double tol)
{
    for (int k = 0; k < p->faces; ++k)
        if (dotv(p->face[k], n) >= 0.998 && dist3(p->face_point[k], q->point) <= tol &&
            fabs(p->face_separation[k] - q->separation) <= tol)
            return 1;
    return 0;
}

// (a), (b): the raw points are the reference's pairs, with its normals, separations and points.
static int check_raw(const rpairs* ref, const shape* A, const shape* B, float margin,
                     uint32_t flags, int* map, vxk_voxel_pair** scratch, uint32_t* scratch_cap)
{
    uint32_t n = vxk_voxel_pairs(NULL, 0, &A->view, &B->view, margin, flags);
    if (n > *scratch_cap) {
        *scratch_cap = n + 64;
        *scratch = (vxk_voxel_pair*)realloc(*scratch, sizeof(vxk_voxel_pair) * *scratch_cap);
    }
    VXK_CHECK_EQ_U64(vxk_voxel_pairs(*scratch, *scratch_cap, &A->view, &B->view, margin, flags), n);
    const int nb = B->ref.n[0] * B->ref.n[1] * B->ref.n[2];
    for (int i = 0; i < ref->count; ++i)
        map[ref->items[i].a * nb + ref->items[i].b] = i;
    double tol = position_tol(&A->ref, &B->ref);
    int found = 0, failed = 0;
    for (uint32_t i = 0; i < n && !failed; ++i) {
        const vxk_voxel_pair* q = &(*scratch)[i];
        int ia = q->voxel_a.x + A->ref.n[0] * (q->voxel_a.z + A->ref.n[2] * q->voxel_a.y);
        int ib = q->voxel_b.x + B->ref.n[0] * (q->voxel_b.z + B->ref.n[2] * q->voxel_b.y);
        int r = map[ia * nb + ib];
        VXK_CHECK_MSG(r >= 0, "pair (%d %d %d)-(%d %d %d) not in the reference", q->voxel_a.x,
                      q->voxel_a.y, q->voxel_a.z, q->voxel_b.x, q->voxel_b.y, q->voxel_b.z);
        const rpair* p = &ref->items[r];
        map[ia * nb + ib] = -2 - r; // seen
        found++;
        int normal_ok = 0;
        if (p->free_normal) {
            double n[3] = {q->normal.x, q->normal.y, q->normal.z}, expect[3];
            for (int i = 0; i < 3; ++i)
                expect[i] = p->mid[i] + n[i] * (p->shift - 0.5 * q->separation);
            normal_ok = fabs(sqrt(dot3(n, n)) - 1.0) < 1e-5 &&
                        fabs(q->separation + p->half_sum) <= tol && dist3(expect, q->point) <= tol;
        }
        // 1e-4, or what float centres allow when they are close: the direction of d carries the
        // centres' rounding (about 1e-7 of the coordinates) divided by |d|.
        double normal_tol = fmax(1e-4, 4.0 * p->noise / p->dist);
        for (int k = 0; k < p->normals; ++k)
            if (dist3(p->normal[k], q->normal) <= normal_tol &&
                fabs(p->separation[k] - q->separation) <= tol &&
                dist3(p->point[k], q->point) <= tol)
                normal_ok = 1;
        VXK_CHECK_MSG(normal_ok,
                      "pair (%d %d %d)-(%d %d %d): normal (%g %g %g) sep %g point (%g %g %g), "
                      "reference (%g %g %g) sep %g point (%g %g %g) (%d choices)",
                      q->voxel_a.x, q->voxel_a.y, q->voxel_a.z, q->voxel_b.x, q->voxel_b.y,
                      q->voxel_b.z, q->normal.x, q->normal.y, q->normal.z, q->separation,
                      q->point.x, q->point.y, q->point.z, p->normal[0][0], p->normal[0][1],
                      p->normal[0][2], p->separation[0], p->point[0][0], p->point[0][1],
                      p->point[0][2], p->normals);
        int face_ok = 0;
        for (int k = 0; k < p->faces; ++k)
            if (dist3(p->face[k], q->face_normal) <= 1e-5 &&
                fabs(p->face_separation[k] - q->face_separation) <= tol &&
                dist3(p->face_point[k], q->face_point) <= tol)
                face_ok = 1;
        VXK_CHECK_MSG(face_ok,
                      "pair (%d %d %d)-(%d %d %d): face (%g %g %g) sep %g, reference (%g %g %g) "
                      "sep %g (%d choices)",
                      q->voxel_a.x, q->voxel_a.y, q->voxel_a.z, q->voxel_b.x, q->voxel_b.y,
                      q->voxel_b.z, q->face_normal.x, q->face_normal.y, q->face_normal.z,
                      q->face_separation, p->face[0][0], p->face[0][1], p->face[0][2],
                      p->face_separation[0], p->faces);
    }
    for (int i = 0; i < ref->count; ++i) {
        const rpair* p = &ref->items[i];
        int seen = map[p->a * nb + p->b] <= -2;
        VXK_CHECK_MSG(seen || p->optional, "reference pair (%d %d %d)-(%d %d %d) missing", p->va[0],
                      p->va[1], p->va[2], p->vb[0], p->vb[1], p->vb[2]);
        map[p->a * nb + p->b] = -1;
    }
    (void)found;
    return 0;
}

static void plane_basis(vxk_vec3 n, double t1[3], double t2[3])
{
    double nn[3] = {n.x, n.y, n.z};
    double e[3] = {fabs(n.x) < 0.6 ? 1.0 : 0.0, fabs(n.x) < 0.6 ? 0.0 : 1.0, 0.0};
    double c[3] = {nn[1] * e[2] - nn[2] * e[1], nn[2] * e[0] - nn[0] * e[2],
                   nn[0] * e[1] - nn[1] * e[0]};
    double l = sqrt(dot3(c, c));
    for (int i = 0; i < 3; ++i)
        t1[i] = c[i] / l;
    t2[0] = nn[1] * t1[2] - nn[2] * t1[1];
    t2[1] = nn[2] * t1[0] - nn[0] * t1[2];
    t2[2] = nn[0] * t1[1] - nn[1] * t1[0];
}

// Distance in the plane of n from point p to the convex hull of the manifold's points.
static double hull_distance(const vxk_manifold* m, const double p[3])
{
    double t1[3], t2[3];
    plane_basis(m->normal, t1, t2);
    double px = dot3(p, t1), py = dot3(p, t2);
    double x[4], y[4];
    int k = (int)m->point_count;
    for (int i = 0; i < k; ++i) {
        double q[3] = {m->points[i].point.x, m->points[i].point.y, m->points[i].point.z};
        x[i] = dot3(q, t1) - px;
        y[i] = dot3(q, t2) - py;
    }
    // Inside the hull when some triangle of the points holds the origin.
    for (int i = 0; i < k; ++i)
        for (int j = i + 1; j < k; ++j)
            for (int h = j + 1; h < k; ++h) {
                double d1 = x[i] * y[j] - x[j] * y[i], d2 = x[j] * y[h] - x[h] * y[j];
                double d3 = x[h] * y[i] - x[i] * y[h];
                if ((d1 >= 0 && d2 >= 0 && d3 >= 0) || (d1 <= 0 && d2 <= 0 && d3 <= 0))
                    return 0.0;
            }
    double best = DBL_MAX;
    for (int i = 0; i < k; ++i)
        for (int j = i; j < k; ++j) {
            double dx = x[j] - x[i], dy = y[j] - y[i], len2 = dx * dx + dy * dy;
            double t = len2 > 0 ? -(x[i] * dx + y[i] * dy) / len2 : 0.0;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            double cx = x[i] + t * dx, cy = y[i] + t * dy;
            best = fmin(best, sqrt(cx * cx + cy * cy));
        }
    return best;
}

static int compare_xy(const void* a, const void* b)
{
    const double* p = (const double*)a;
    const double* q = (const double*)b;
    if (p[0] != q[0])
        return p[0] < q[0] ? -1 : 1;
    return p[1] < q[1] ? -1 : (p[1] > q[1] ? 1 : 0);
}

static double turn(const double* o, const double* a, const double* b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

// Area of the convex hull of count points (x, y pairs; sorted in place): the monotone chain.
static double hull_area(double* xy, int count, double* chain)
{
    if (count < 3)
        return 0.0;
    qsort(xy, (size_t)count, 2 * sizeof(double), compare_xy);
    int k = 0;
    for (int pass = 0; pass < 2; ++pass) {
        int start = k;
        for (int j = 0; j < count; ++j) {
            const double* p = &xy[2 * (pass ? count - 1 - j : j)];
            while (k >= start + 2 && turn(&chain[2 * (k - 2)], &chain[2 * (k - 1)], p) <= 0)
                k--;
            chain[2 * k] = p[0];
            chain[2 * k + 1] = p[1];
            k++;
        }
        k--; // the last point starts the other chain
    }
    double area = 0.0;
    for (int i = 0; i < k; ++i) {
        const double* a = &chain[2 * i];
        const double* b = &chain[2 * ((i + 1) % k)];
        area += a[0] * b[1] - a[1] * b[0];
    }
    return 0.5 * fabs(area);
}

static int find_root(int* parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

// Touching areas: pairs whose A voxels, or whose B voxels, are equal or 26-neighbours.
static void r_regions(rpairs* ref, const rshape* A, const rshape* B, int* parent)
{
    for (int i = 0; i < ref->count; ++i)
        parent[i] = i;
    for (int i = 0; i < ref->count; ++i)
        for (int j = i + 1; j < ref->count; ++j) {
            const rpair* p = &ref->items[i];
            const rpair* q = &ref->items[j];
            int near_a = 1, near_b = 1;
            for (int k = 0; k < 3; ++k) {
                near_a &= abs(p->va[k] - q->va[k]) <= 1;
                near_b &= abs(p->vb[k] - q->vb[k]) <= 1;
            }
            if (near_a || near_b)
                parent[find_root(parent, i)] = find_root(parent, j);
        }
    for (int i = 0; i < ref->count; ++i)
        ref->items[i].region = find_root(parent, i);
    (void)A;
    (void)B;
}

typedef struct cover_stats {
    long regions, by_point, by_hull, by_depth, by_room;
} cover_stats;

// (c), (d): every manifold point is a reference pair's; every touching area is represented by a
// point, lies under a manifold's support polygon (grown by a voxel), was left out for depth (all
// 4 manifolds are deeper than all of it), or found no room: the manifold of its normal holds 4
// points whose polygon covers at least half the hull of every reference point of that normal (a
// contact whose hull has more than 4 corners loses some).
static int check_manifolds(rpairs* ref, const shape* A, const shape* B,
                           const vxk_voxel_manifolds* out, int* parent, cover_stats* stats)
{
    double tol = position_tol(&A->ref, &B->ref);
    for (uint32_t m = 0; m < out->count; ++m) {
        const vxk_manifold* mf = &out->manifolds[m];
        VXK_CHECK(mf->point_count >= 1 && mf->point_count <= 4);
        VXK_CHECK(fabs(vxk_v3_length(mf->normal) - 1.0f) < 1e-4f);
        for (uint32_t i = 0; i < mf->point_count; ++i) {
            int ok = 0;
            for (int r = 0; r < ref->count && !ok; ++r)
                ok = point_matches(&ref->items[r], mf->normal, &mf->points[i], tol);
            VXK_CHECK_MSG(ok, "manifold %u point %u (%g %g %g) sep %g normal (%g %g %g): no pair",
                          m, i, mf->points[i].point.x, mf->points[i].point.y, mf->points[i].point.z,
                          mf->points[i].separation, mf->normal.x, mf->normal.y, mf->normal.z);
        }
    }
    int required = 0;
    for (int i = 0; i < ref->count; ++i)
        required += !ref->items[i].optional;
    VXK_CHECK_MSG(required == 0 || out->count > 0, "%d reference pairs, no manifold", required);
    r_regions(ref, &A->ref, &B->ref, parent);
    double shallowest_kept = -DBL_MAX;
    for (uint32_t m = 0; m < out->count; ++m) {
        double deepest = DBL_MAX;
        for (uint32_t i = 0; i < out->manifolds[m].point_count; ++i)
            deepest = fmin(deepest, out->manifolds[m].points[i].separation);
        shallowest_kept = fmax(shallowest_kept, deepest);
    }
    double grow = fmax(A->ref.s, B->ref.s);
    // Each manifold's polygon area and the hull area of the reference's points of its normal.
    double kept_area[VXK_VOXEL_MANIFOLDS] = {0}, ref_area[VXK_VOXEL_MANIFOLDS] = {0};
    double* xy = (double*)malloc(sizeof(double) * 2 * ((size_t)ref->count + 4));
    double* chain = (double*)malloc(sizeof(double) * 4 * ((size_t)ref->count + 4));
    for (uint32_t m = 0; m < out->count; ++m) {
        const vxk_manifold* mf = &out->manifolds[m];
        double t1[3], t2[3];
        plane_basis(mf->normal, t1, t2);
        for (uint32_t j = 0; j < mf->point_count; ++j) {
            double q[3] = {mf->points[j].point.x, mf->points[j].point.y, mf->points[j].point.z};
            xy[2 * j] = dot3(q, t1);
            xy[2 * j + 1] = dot3(q, t2);
        }
        kept_area[m] = hull_area(xy, (int)mf->point_count, chain);
        int count = 0;
        for (int i = 0; i < ref->count; ++i)
            for (int k = 0; k < ref->items[i].faces; ++k)
                if (dotv(ref->items[i].face[k], mf->normal) >= 0.99) {
                    xy[2 * count] = dot3(ref->items[i].face_point[k], t1);
                    xy[2 * count + 1] = dot3(ref->items[i].face_point[k], t2);
                    count++;
                    break;
                }
        ref_area[m] = hull_area(xy, count, chain);
    }
    free(xy);
    free(chain);
    for (int root = 0; root < ref->count; ++root) {
        if (ref->items[root].region != root)
            continue;
        int any_required = 0, by_point = 0, by_hull = 0, by_room = 0;
        double region_deepest = DBL_MAX;
        for (int i = 0; i < ref->count; ++i) {
            const rpair* p = &ref->items[i];
            if (p->region != root)
                continue;
            any_required |= !p->optional;
            for (int k = 0; k < p->faces; ++k)
                region_deepest = fmin(region_deepest, p->face_separation[k]);
            for (uint32_t m = 0; m < out->count; ++m) {
                const vxk_manifold* mf = &out->manifolds[m];
                for (uint32_t j = 0; j < mf->point_count; ++j)
                    by_point |= point_matches(p, mf->normal, &mf->points[j], tol);
                for (int k = 0; k < p->faces; ++k) {
                    if (dotv(p->face[k], mf->normal) < 0.99)
                        continue;
                    by_hull |= hull_distance(mf, p->face_point[k]) <= grow;
                    by_room |= mf->point_count == 4 && kept_area[m] >= 0.5 * ref_area[m];
                }
            }
        }
        if (!any_required)
            continue;
        int by_depth = out->count == VXK_VOXEL_MANIFOLDS && region_deepest >= shallowest_kept - tol;
        stats->regions++;
        stats->by_point += by_point;
        stats->by_hull += !by_point && by_hull;
        stats->by_depth += !by_point && !by_hull && by_depth;
        stats->by_room += !by_point && !by_hull && !by_depth && by_room;
        VXK_CHECK_MSG(by_point || by_hull || by_depth || by_room,
                      "touching area at pair (%d %d %d)-(%d %d %d), deepest %g, not covered by "
                      "%u manifolds",
                      ref->items[root].va[0], ref->items[root].va[1], ref->items[root].va[2],
                      ref->items[root].vb[0], ref->items[root].vb[1], ref->items[root].vb[2],
                      region_deepest, out->count);
    }
    return 0;
}

static int same_manifolds(const vxk_voxel_manifolds* x, const vxk_voxel_manifolds* y)
{
    VXK_CHECK_EQ_U64(x->count, y->count);
    for (uint32_t m = 0; m < x->count; ++m) {
        const vxk_manifold* a = &x->manifolds[m];
        const vxk_manifold* b = &y->manifolds[m];
        VXK_CHECK(memcmp(&a->normal, &b->normal, sizeof(vxk_vec3)) == 0);
        VXK_CHECK_EQ_U64(a->point_count, b->point_count);
        VXK_CHECK(memcmp(a->points, b->points, sizeof(vxk_manifold_point) * a->point_count) == 0);
        VXK_CHECK(memcmp(&x->voxel_a[m], &y->voxel_a[m], sizeof(vxk_int3)) == 0);
        VXK_CHECK(memcmp(&x->voxel_b[m], &y->voxel_b[m], sizeof(vxk_int3)) == 0);
    }
    return 0;
}

// ---- random configurations ---------------------------------------------------------------------

// World centre and half diagonal of a shape's grid box.
static void grid_sphere(const rshape* r, vxk_quat q, vxk_vec3 p, double centre[3], double* radius)
{
    rshape t = *r;
    r_rotation(&t, q);
    t.pos[0] = p.x, t.pos[1] = p.y, t.pos[2] = p.z;
    double local[3] = {r->origin[0] + 0.5 * r->n[0] * r->s, r->origin[1] + 0.5 * r->n[1] * r->s,
                       r->origin[2] + 0.5 * r->n[2] * r->s};
    r_world(&t, local, centre);
    *radius =
        0.5 * r->s * sqrt((double)(r->n[0] * r->n[0] + r->n[1] * r->n[1] + r->n[2] * r->n[2]));
}

// World box of an axis-aligned placement (rotation q keeps the axes).
static void grid_box(const rshape* r, vxk_quat q, vxk_vec3 p, double lo[3], double hi[3])
{
    rshape t = *r;
    r_rotation(&t, q);
    t.pos[0] = p.x, t.pos[1] = p.y, t.pos[2] = p.z;
    for (int i = 0; i < 3; ++i)
        lo[i] = DBL_MAX, hi[i] = -DBL_MAX;
    for (int c = 0; c < 8; ++c) {
        double local[3], w[3];
        for (int i = 0; i < 3; ++i)
            local[i] = r->origin[i] + ((c >> i) & 1 ? r->n[i] * r->s : 0.0);
        r_world(&t, local, w);
        for (int i = 0; i < 3; ++i)
            lo[i] = fmin(lo[i], w[i]), hi[i] = fmax(hi[i], w[i]);
    }
}

static void body_params(rshape* r, uint64_t* rng, float s, int max_side)
{
    memset(r, 0, sizeof(*r));
    random_occupancy(r, rng, max_side);
    r->s = s;
    for (int i = 0; i < 3; ++i)
        r->origin[i] = (float)(-0.5 * r->n[i] * s + vxk_test_randf(rng, -0.3f, 0.3f) * s);
}

// A terrain region: a height field with caves, a one-voxel border included.
static void region_params(rshape* r, uint64_t* rng, float s)
{
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < 3; ++i)
        r->n[i] = 4 + (int)(vxk_test_rand(rng) % 6);
    int count = r->n[0] * r->n[1] * r->n[2];
    r->occ = (uint8_t*)calloc((size_t)count, 1);
    float hole = vxk_test_randf(rng, 0.0f, 0.3f);
    for (int z = 0; z < r->n[2]; ++z)
        for (int x = 0; x < r->n[0]; ++x) {
            int h = 1 + (int)(vxk_test_rand(rng) % (uint64_t)r->n[1]);
            for (int y = 0; y < h && y < r->n[1]; ++y)
                r->occ[x + r->n[0] * (z + r->n[2] * y)] = vxk_test_randf(rng, 0, 1) >= hole;
        }
    r->s = s;
    r->region = 1;
    for (int i = 0; i < 3; ++i)
        r->base[i] = (int)(vxk_test_rand(rng) % 41) - 20;
}

typedef struct config {
    shape a, b;
    float margin;
    int kind;
} config;

static int make_config(config* c, uint64_t* rng, int kind)
{
    c->kind = kind;
    float sa = vxk_test_randf(rng, 0.05f, 0.4f);
    float sb = vxk_test_rand(rng) % 5 < 3 ? sa : sa * vxk_test_randf(rng, 0.5f, 2.0f);
    int max_side = vxk_test_rand(rng) % 8 == 0 ? 9 : 6;
    body_params(&c->a.ref, rng, sa, max_side);
    vxk_quat qa = kind == 1 ? aligned_quat(rng) : random_quat(rng);
    vxk_vec3 pa = {vxk_test_randf(rng, -2, 2), vxk_test_randf(rng, -2, 2),
                   vxk_test_randf(rng, -2, 2)};
    vxk_quat qb;
    vxk_vec3 pb;
    if (kind == 2) {
        // A body over a terrain region (B axis-aligned at its base).
        region_params(&c->b.ref, rng, sb);
        c->margin = vxk_test_randf(rng, 0.0f, 0.5f) * fminf(sa, sb);
        qb = (vxk_quat){0, 0, 0, 1};
        pb = (vxk_vec3){0, 0, 0};
        double centre[3], ra, rb;
        rshape* rr = &c->b.ref;
        for (int i = 0; i < 3; ++i)
            rr->origin[i] = (double)(float)((double)rr->base[i] * sb);
        grid_sphere(rr, qb, pb, centre, &rb);
        double ca[3];
        grid_sphere(&c->a.ref, qa, pa, ca, &ra);
        double dir[3] = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -0.2f, 1),
                         vxk_test_randf(rng, -1, 1)};
        double l = sqrt(dot3(dir, dir)) + 1e-9, t = vxk_test_randf(rng, 0.0f, 0.9f);
        for (int i = 0; i < 3; ++i)
            centre[i] += dir[i] / l * t * (ra + rb);
        // Move A so that its grid centre lands there.
        pa = (vxk_vec3){(float)(pa.x + centre[0] - ca[0]), (float)(pa.y + centre[1] - ca[1]),
                        (float)(pa.z + centre[2] - ca[2])};
    } else if (kind == 1) {
        // Axis-aligned, equal voxels, B stacked on a face of A: touching, speculative, just
        // beyond the margin, or sunk.
        sb = sa;
        body_params(&c->b.ref, rng, sb, max_side);
        for (int i = 0; i < 3; ++i)
            c->b.ref.origin[i] = (float)(-0.5 * c->b.ref.n[i] * sb);
        for (int i = 0; i < 3; ++i)
            c->a.ref.origin[i] = (float)(-0.5 * c->a.ref.n[i] * sa);
        c->margin = vxk_test_randf(rng, 0.05f, 0.3f) * sa;
        qb = aligned_quat(rng);
        double alo[3], ahi[3], blo[3], bhi[3];
        grid_box(&c->a.ref, qa, pa, alo, ahi);
        vxk_vec3 zero = {0, 0, 0};
        grid_box(&c->b.ref, qb, zero, blo, bhi);
        static const float gaps[5] = {0.0f, 0.5f, 2.0f, -0.5f, -1.0f};
        uint64_t g = vxk_test_rand(rng) % 5;
        float gap = g < 3 ? gaps[g] * c->margin : gaps[g] * sa;
        double target[3];
        for (int i = 0; i < 3; ++i) {
            int shift = (int)(vxk_test_rand(rng) % 7) - 3;
            target[i] = alo[i] + shift * (double)sa;
        }
        target[1] = ahi[1] + gap;
        pb = (vxk_vec3){(float)(target[0] - blo[0]), (float)(target[1] - blo[1]),
                        (float)(target[2] - blo[2])};
    } else {
        // Random rotations: deep to touching to separated (kind 0), or far apart (kind 3).
        body_params(&c->b.ref, rng, sb, max_side);
        c->margin = vxk_test_randf(rng, 0.0f, 0.5f) * fminf(sa, sb);
        qb = random_quat(rng);
        double ca[3], cb[3], ra, rb;
        grid_sphere(&c->a.ref, qa, pa, ca, &ra);
        vxk_vec3 zero = {0, 0, 0};
        grid_sphere(&c->b.ref, qb, zero, cb, &rb);
        double dir[3] = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                         vxk_test_randf(rng, -1, 1)};
        double l = sqrt(dot3(dir, dir)) + 1e-9;
        double t = kind == 3 ? vxk_test_randf(rng, 1.05f, 3.0f) : vxk_test_randf(rng, 0.0f, 1.0f);
        pb = (vxk_vec3){(float)(ca[0] + dir[0] / l * t * (ra + rb) - cb[0]),
                        (float)(ca[1] + dir[1] / l * t * (ra + rb) - cb[1]),
                        (float)(ca[2] + dir[2] / l * t * (ra + rb) - cb[2])};
    }
    if (shape_build(&c->a, qa, pa) || shape_build(&c->b, qb, pb))
        return 1;
    return 0;
}

static void config_free(config* c)
{
    shape_free(&c->a);
    shape_free(&c->b);
}

// One order of a configuration: raw points against the reference (each driving side), the
// manifolds' coverage, and the manifolds of every driving side identical.
static int check_order(const shape* A, const shape* B, float margin, rpairs* ref, int* map,
                       vxk_voxel_pair** pairs, uint32_t* pair_cap,
                       vxk_voxel_contact_scratch* scratch, cover_stats* stats)
{
    r_pairs(ref, &A->ref, &B->ref, margin);
    static const uint32_t flags[3] = {0, VXK_VOXEL_ITERATE_A, VXK_VOXEL_ITERATE_B};
    vxk_voxel_manifolds out[3];
    for (int f = 0; f < 3; ++f) {
        if (check_raw(ref, A, B, margin, flags[f], map, pairs, pair_cap))
            return 1;
        vxk_collide_voxels(&out[f], scratch, &A->view, &B->view, margin, flags[f]);
    }
    if (same_manifolds(&out[0], &out[1]) || same_manifolds(&out[0], &out[2]))
        return 1;
    int* parent = (int*)malloc(sizeof(int) * ((size_t)ref->count + 1));
    int failed = check_manifolds(ref, A, B, &out[0], parent, stats);
    free(parent);
    return failed;
}

static int test_random_against_reference(void)
{
    uint64_t rng = vxk_test_seed(0xC0FFEE17);
    const int configs = VXK_TEST_SLOW ? 200 : 1000;
    rpairs ref = {0};
    vxk_voxel_pair* pairs = NULL;
    uint32_t pair_cap = 0;
    vxk_voxel_contact_scratch* scratch =
        (vxk_voxel_contact_scratch*)malloc(sizeof(vxk_voxel_contact_scratch));
    cover_stats stats = {0};
    long with_pairs = 0, total_pairs = 0;
    int kinds[4] = {0};
    for (int i = 0; i < configs; ++i) {
        config c;
        int kind = (int)(vxk_test_rand(&rng) % 10);
        kind = kind < 5 ? 0 : kind < 7 ? 1 : kind < 9 ? 2 : 3;
        if (make_config(&c, &rng, kind))
            return 1;
        kinds[kind]++;
        int na = c.a.ref.n[0] * c.a.ref.n[1] * c.a.ref.n[2];
        int nb = c.b.ref.n[0] * c.b.ref.n[1] * c.b.ref.n[2];
        int* map = (int*)malloc(sizeof(int) * (size_t)na * (size_t)nb);
        for (int k = 0; k < na * nb; ++k)
            map[k] = -1;
        int failed = 0;
        for (int order = 0; order < 2 && !failed; ++order) {
            const shape* A = order ? &c.b : &c.a;
            const shape* B = order ? &c.a : &c.b;
            if (order) {
                free(map);
                map = (int*)malloc(sizeof(int) * (size_t)na * (size_t)nb);
                for (int k = 0; k < na * nb; ++k)
                    map[k] = -1;
            }
            failed = check_order(A, B, c.margin, &ref, map, &pairs, &pair_cap, scratch, &stats);
            if (!order) {
                with_pairs += ref.count > 0;
                total_pairs += ref.count;
            }
        }
        if (failed)
            fprintf(stderr, "configuration %d (kind %d, margin %g, sizes %g %g)\n", i, kind,
                    c.margin, c.a.ref.s, c.b.ref.s);
        free(map);
        config_free(&c);
        if (failed)
            return 1;
    }
    fprintf(stderr,
            "  %d configurations (kinds %d %d %d %d), %ld with pairs, %ld pairs; %ld areas: "
            "%ld by a point, %ld under a support polygon, %ld left for depth, %ld for room\n",
            configs, kinds[0], kinds[1], kinds[2], kinds[3], with_pairs, total_pairs, stats.regions,
            stats.by_point, stats.by_hull, stats.by_depth, stats.by_room);
    // The generator must reach every case, or the test would check little.
    VXK_CHECK(with_pairs > configs / 3 && with_pairs < configs);
    VXK_CHECK(stats.regions > configs / 3);
    free(ref.items);
    free(pairs);
    free(scratch);
    return 0;
}

// ---- canonical cases ---------------------------------------------------------------------------

static vxk_voxel_contact_scratch g_scratch;

// A solid box of voxels as a body view.
static int box_view(vxk_voxel_view* v, int nx, int ny, int nz, float s, vxk_vec3 origin,
                    vxk_transform pose)
{
    vxk_voxel_grid grid = {{nx, ny, nz}, (uint8_t*)malloc((size_t)(nx * ny * nz))};
    memset(grid.voxels, 1, (size_t)(nx * ny * nz));
    uint8_t solid[256] = {0};
    solid[1] = 1;
    vxk_status status = vxk_voxel_view_create(v, &grid, solid, NULL, s, origin);
    free(grid.voxels);
    VXK_CHECK_EQ_INT(status, VXK_OK);
    v->pose = pose;
    return 0;
}

static vxk_transform at(float x, float y, float z)
{
    return (vxk_transform){{x, y, z}, {0, 0, 0, 1}};
}

// Manifold m has normal n, the expected points (any order) and separations, to tol.
static int expect_manifold(const vxk_manifold* m, vxk_vec3 n, uint32_t count,
                           const vxk_vec3* points, const float* separations, float tol)
{
    VXK_CHECK_MSG(vxk_v3_length(vxk_v3_sub(m->normal, n)) <= 1e-5f,
                  "normal (%g %g %g), expected (%g %g %g)", m->normal.x, m->normal.y, m->normal.z,
                  n.x, n.y, n.z);
    VXK_CHECK_EQ_U64(m->point_count, count);
    uint32_t used = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t j = 0;
        while (j < count &&
               ((used >> j) & 1u || vxk_v3_length(vxk_v3_sub(m->points[j].point, points[i])) > tol))
            ++j;
        VXK_CHECK_MSG(j < count, "expected point (%g %g %g) missing", points[i].x, points[i].y,
                      points[i].z);
        used |= 1u << j;
        VXK_CHECK_MSG(fabsf(m->points[j].separation - separations[i]) <= tol,
                      "point (%g %g %g): separation %g, expected %g", points[i].x, points[i].y,
                      points[i].z, m->points[j].separation, separations[i]);
    }
    return 0;
}

// Two 4x2x4 boxes of 0.1 m voxels, B on A: touching, speculative within the margin, nothing
// beyond it; then B moved 2 voxels along x and z (a 2x2 voxel overlap).
static int test_voxels_face_on_face(void)
{
    const float s = 0.1f, margin = 0.01f;
    vxk_voxel_view a, b;
    if (box_view(&a, 4, 2, 4, s, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 4, 2, 4, s, vxk_v3(0, 0, 0), at(0, 0.2f, 0)))
        return 1;
    const float gaps[3] = {0.0f, 0.5f * margin, 2.0f * margin};
    for (int g = 0; g < 3; ++g) {
        b.pose = at(0, 0.2f + gaps[g], 0);
        vxk_voxel_manifolds out;
        uint32_t count = vxk_collide_voxels(&out, &g_scratch, &a, &b, margin, 0);
        if (g == 2) {
            VXK_CHECK_EQ_U64(count, 0);
            continue;
        }
        VXK_CHECK_EQ_U64(count, 1);
        // Voxels are spheres: the points sit over the corner voxels' centres, on A's top face.
        const vxk_vec3 corners[4] = {
            {0.05f, 0.2f, 0.05f}, {0.35f, 0.2f, 0.05f}, {0.05f, 0.2f, 0.35f}, {0.35f, 0.2f, 0.35f}};
        const float seps[4] = {gaps[g], gaps[g], gaps[g], gaps[g]};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, corners, seps, 1e-5f))
            return 1;
        // The other order: normal down, points on B's bottom face.
        count = vxk_collide_voxels(&out, &g_scratch, &b, &a, margin, 0);
        VXK_CHECK_EQ_U64(count, 1);
        vxk_vec3 flipped[4];
        for (int i = 0; i < 4; ++i)
            flipped[i] = vxk_v3(corners[i].x, 0.2f + gaps[g], corners[i].z);
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, -1, 0), 4, flipped, seps, 1e-5f))
            return 1;
    }
    b.pose = at(0.2f, 0.2f, 0.2f);
    vxk_voxel_manifolds out;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, margin, 0), 1);
    const vxk_vec3 square[4] = {
        {0.25f, 0.2f, 0.25f}, {0.35f, 0.2f, 0.25f}, {0.25f, 0.2f, 0.35f}, {0.35f, 0.2f, 0.35f}};
    const float zeros[4] = {0, 0, 0, 0};
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, square, zeros, 1e-5f))
        return 1;
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&b);
    return 0;
}

// A 4x2x2 box turned 45 degrees about x rests on its long edge on a 6x2x6 slab (1 m voxels): the
// edge's two end voxels are Corners, touching the Face voxels below them (the Edge voxels between
// them do not test Face voxels). Centres 1 m apart: 2 points, normal +y, separation 0.
static int test_voxels_edge_on(void)
{
    vxk_voxel_view a, b;
    const float h = 0.70710678f;
    if (box_view(&a, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 4, 2, 2, 1.0f, vxk_v3(0, -1, -1), at(1, 2.5f + h, 2.5f)))
        return 1;
    b.pose.q = vxk_quat_from_axis_angle(vxk_v3(1, 0, 0), 0.78539816f);
    vxk_voxel_manifolds out;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.1f, 0), 1);
    const vxk_vec3 ends[2] = {{1.5f, 2.0f, 2.5f}, {4.5f, 2.0f, 2.5f}};
    const float zeros[2] = {0, 0};
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 2, ends, zeros, 1e-4f))
        return 1;
    // Raised by 0.05: speculative within a margin of 0.1; by 0.2: nothing.
    b.pose.p.y += 0.05f;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.1f, 0), 1);
    const float raised[2] = {0.05f, 0.05f};
    const vxk_vec3 ends_raised[2] = {{1.5f, 2.0f, 2.5f}, {4.5f, 2.0f, 2.5f}};
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 2, ends_raised, raised, 1e-4f))
        return 1;
    b.pose.p.y += 0.15f;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.1f, 0), 0);
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&b);
    return 0;
}

// A 3x3x3 cube turned so that its (-1,-1,-1) corner points down rests on that corner voxel: one
// point, normal +y (the slab's face), separation 0.
static int test_voxels_corner_on(void)
{
    vxk_voxel_view a, b;
    const float r3 = 1.7320508f;
    if (box_view(&a, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 3, 3, 3, 1.0f, vxk_v3(-1.5f, -1.5f, -1.5f), at(2.5f, 2.5f + r3, 2.5f)))
        return 1;
    // (1,1,1)/sqrt(3) to +y: about (-1,0,1), by acos(1/sqrt(3)).
    b.pose.q = vxk_quat_from_axis_angle(vxk_v3(-1, 0, 1), acosf(1.0f / r3));
    vxk_voxel_manifolds out;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.1f, 0), 1);
    const vxk_vec3 tip = {2.5f, 2.0f, 2.5f};
    const float zero = 0.0f;
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &tip, &zero, 1e-4f))
        return 1;
    b.pose.p.y += 0.2f;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.1f, 0), 0);
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&b);
    return 0;
}

// One voxel sunk into a 7^3 cube, 0.3 m off the centre voxel's centre along x: it pairs with the
// centre voxel (Inside, exit +x: every cardinal exit is 4 away, the lowest index wins) and with
// its +x neighbour (Inside, exit +x at 3). Each pair is one voxel deep: separation -1, normal +x,
// its point half a voxel out of the Inside voxel along the exit: x = 4 and x = 5. Both lie on one
// line along the normal, so the manifold keeps one of them (the lower voxel key: x = 4).
static int test_voxels_deep(void)
{
    vxk_voxel_view a, b;
    if (box_view(&a, 7, 7, 7, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 1, 1, 1, 1.0f, vxk_v3(-0.5f, -0.5f, -0.5f), at(3.8f, 3.5f, 3.5f)))
        return 1;
    vxk_voxel_pair pairs[4];
    VXK_CHECK_EQ_U64(vxk_voxel_pairs(pairs, 4, &a, &b, 0.0f, 0), 2);
    for (int i = 0; i < 2; ++i) {
        const vxk_voxel_pair* p = &pairs[i];
        VXK_CHECK(p->voxel_a.x == 3 || p->voxel_a.x == 4);
        VXK_CHECK(p->voxel_a.y == 3 && p->voxel_a.z == 3);
        VXK_CHECK(vxk_v3_length(vxk_v3_sub(p->normal, vxk_v3(1, 0, 0))) < 1e-6f);
        VXK_CHECK(fabsf(p->separation + 1.0f) < 1e-6f);
        VXK_CHECK(fabsf(p->point.x - (float)p->voxel_a.x - 1.0f) < 1e-5f);
        VXK_CHECK_EQ_U64(p->cluster, 12); // A's exit 0
    }
    vxk_voxel_manifolds out;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.0f, 0), 1);
    const vxk_vec3 point = {4.0f, 3.5f, 3.5f};
    const float deep = -1.0f;
    if (expect_manifold(&out.manifolds[0], vxk_v3(1, 0, 0), 1, &point, &deep, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &b, &a, 0.0f, 0), 1);
    const vxk_vec3 other = {3.0f, 3.5f, 3.5f};
    if (expect_manifold(&out.manifolds[0], vxk_v3(-1, 0, 0), 1, &other, &deep, 1e-5f))
        return 1;
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&b);
    return 0;
}

// Flat ground (world voxels y <= 3) gathered from chunk bits into a region around a 3x2x3 body
// resting on it: the body's 4 bottom Corners touch the ground's Face voxels (its bottom Edge and
// Face voxels do not test them): 4 points, normal +y from the terrain to the body. The same
// contacts, feature ids included, from a larger region placed elsewhere (ids use world voxels).
static int region_from_ground(vxk_voxel_view* v, void* storage, size_t bytes, vxk_int3 min,
                              vxk_int3 size)
{
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(v, storage, bytes, min, size, 1.0f), VXK_OK);
    for (int32_t cy = (min.y >> 3); cy <= ((min.y + size.y) >> 3); ++cy)
        for (int32_t cz = (min.z >> 3); cz <= ((min.z + size.z) >> 3); ++cz)
            for (int32_t cx = (min.x >> 3); cx <= ((min.x + size.x) >> 3); ++cx) {
                uint64_t bits[8];
                for (int ly = 0; ly < 8; ++ly)
                    bits[ly] = 8 * cy + ly <= 3 ? ~0ull : 0ull;
                vxk_voxel_view_region_add_chunk(v, (vxk_int3){cx, cy, cz}, bits);
            }
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_finish(v), VXK_OK);
    return 0;
}

static int test_terrain_region(void)
{
    vxk_voxel_view body;
    if (box_view(&body, 3, 2, 3, 1.0f, vxk_v3(-1.5f, -1.0f, -1.5f), at(11.5f, 5.0f, 21.5f)))
        return 1;
    vxk_voxel_view ground, wide;
    static uint64_t storage[2][4096];
    if (region_from_ground(&ground, storage[0], sizeof(storage[0]), (vxk_int3){8, 1, 18},
                           (vxk_int3){7, 7, 7}) ||
        region_from_ground(&wide, storage[1], sizeof(storage[1]), (vxk_int3){6, -2, 15},
                           (vxk_int3){12, 11, 12}))
        return 1;
    const float margin = 0.05f;
    const vxk_vec3 corners[4] = {
        {10.5f, 4.0f, 20.5f}, {12.5f, 4.0f, 20.5f}, {10.5f, 4.0f, 22.5f}, {12.5f, 4.0f, 22.5f}};
    const float gaps[3] = {0.0f, 0.5f * margin, 2.0f * margin};
    for (int g = 0; g < 3; ++g) {
        body.pose.p.y = 5.0f + gaps[g];
        vxk_voxel_manifolds out, out_wide;
        uint32_t count = vxk_collide_voxels(&out, &g_scratch, &ground, &body, margin, 0);
        VXK_CHECK_EQ_U64(vxk_collide_voxels(&out_wide, &g_scratch, &wide, &body, margin, 0), count);
        if (g == 2) {
            VXK_CHECK_EQ_U64(count, 0);
            continue;
        }
        VXK_CHECK_EQ_U64(count, 1);
        const float seps[4] = {gaps[g], gaps[g], gaps[g], gaps[g]};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, corners, seps, 1e-5f) ||
            same_manifolds(&out, &out_wide))
            return 1;
        // The deepest point's terrain voxel, in world voxels: the ground's top layer.
        VXK_CHECK_EQ_INT(out.voxel_a[0].y, 3);
    }
    // The ground region's types: its top layer is Face inside the border, nothing in the border.
    VXK_CHECK_EQ_INT(vxk_voxel_type_of(ground.types[3 + 7 * (3 + 7 * 2)]), VXK_VOXEL_FACE);
    VXK_CHECK_EQ_INT(vxk_voxel_type_of(ground.types[3 + 7 * (3 + 7 * 1)]), VXK_VOXEL_INSIDE);
    VXK_CHECK_EQ_INT(ground.active.min.y, 1);
    VXK_CHECK_EQ_INT(ground.active.max.y, 2);
    vxk_voxel_view_destroy(&body);
    return 0;
}

// A 4x2x4 slab (1 m voxels) and a sphere of radius 0.5: on the top face (a Face voxel: one
// point, the plane distance), over a seam of four faces (still one point), at a convex edge
// (normal from the edge), at a convex corner, sunk into a 7^3 cube (the Inside voxel's exit, one
// voxel deep), and above the margin (nothing).
static int test_sphere_voxels(void)
{
    vxk_voxel_view a, cube;
    if (box_view(&a, 4, 2, 4, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&cube, 7, 7, 7, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)))
        return 1;
    const float margin = 0.1f, r = 0.5f;
    vxk_voxel_manifolds out;
    const float gaps[2] = {0.0f, 0.05f};
    for (int g = 0; g < 2; ++g) {
        VXK_CHECK_EQ_U64(vxk_collide_voxel_sphere(&out, &g_scratch, &a,
                                                  vxk_v3(1.7f, 2.5f + gaps[g], 1.3f), r, margin),
                         1);
        const vxk_vec3 p = {1.7f, 2.0f, 1.3f};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &p, &gaps[g], 1e-5f))
            return 1;
    }
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(2.0f, 2.5f, 2.0f), r, margin), 1);
    const vxk_vec3 seam = {2.0f, 2.0f, 2.0f};
    const float zero = 0.0f;
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &seam, &zero, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(1.7f, 2.7f, 1.3f), r, margin), 0);
    const float h = 0.70710678f, t = 0.57735027f;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(4.3f, 2.3f, 1.5f), r, margin), 1);
    const vxk_vec3 edge = {4.0f, 2.0f, 1.5f};
    const float edge_sep = 0.3f * 1.41421356f - r;
    if (expect_manifold(&out.manifolds[0], vxk_v3(h, h, 0), 1, &edge, &edge_sep, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(4.3f, 2.3f, 4.3f), r, margin), 1);
    const vxk_vec3 corner = {4.0f, 2.0f, 4.0f};
    const float corner_sep = 0.3f * 1.73205081f - r;
    if (expect_manifold(&out.manifolds[0], vxk_v3(t, t, t), 1, &corner, &corner_sep, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &cube, vxk_v3(3.6f, 3.5f, 3.5f), r, margin), 1);
    const vxk_vec3 deep = {4.1f, 3.5f, 3.5f};
    const float one = -1.0f;
    if (expect_manifold(&out.manifolds[0], vxk_v3(1, 0, 0), 1, &deep, &one, 1e-5f))
        return 1;
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&cube);
    return 0;
}

// A 6x2x6 slab (1 m voxels) and boxes: a unit box flat across four voxel faces (its four bottom
// corners), one smaller than a voxel (four points on one face), one on its edge (two points), one
// on its corner (one point), above the margin (nothing), and a small box inside an Inside voxel
// of a 7^3 cube (its vertices, one voxel deep along the exit: one point per line along it).
static int test_box_voxels(void)
{
    vxk_voxel_view a, cube;
    if (box_view(&a, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&cube, 7, 7, 7, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)))
        return 1;
    const float margin = 0.1f;
    const vxk_mat3 identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    vxk_voxel_manifolds out;
    // (Touching only: hovering over a unit face that holds one of its corners, the box-face
    // test of contact_geometry.c takes an edge axis equal to the face normal for that face,
    // one point instead of the clipped corner.)
    vxk_obb flat = {{2.3f, 2.5f, 2.3f}, identity, {0.5f, 0.5f, 0.5f}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &flat, margin), 1);
    const vxk_vec3 big[4] = {
        {1.8f, 2.0f, 1.8f}, {2.8f, 2.0f, 1.8f}, {1.8f, 2.0f, 2.8f}, {2.8f, 2.0f, 2.8f}};
    const float zeros[4] = {0, 0, 0, 0};
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, big, zeros, 1e-4f))
        return 1;
    const float gaps[2] = {0.0f, 0.05f};
    for (int g = 0; g < 2; ++g) {
        const float seps[4] = {gaps[g], gaps[g], gaps[g], gaps[g]};
        vxk_obb small = {{2.5f, 2.2f + gaps[g], 2.5f}, identity, {0.2f, 0.2f, 0.2f}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &small, margin), 1);
        const vxk_vec3 little[4] = {
            {2.3f, 2.0f, 2.3f}, {2.7f, 2.0f, 2.3f}, {2.3f, 2.0f, 2.7f}, {2.7f, 2.0f, 2.7f}};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, little, seps, 1e-4f))
            return 1;
        vxk_obb edge = {{2.5f, 2.0f + 0.70710678f + gaps[g], 2.5f},
                        vxk_mat3_from_quat(vxk_quat_from_axis_angle(vxk_v3(1, 0, 0), 0.78539816f)),
                        {0.5f, 0.5f, 0.5f}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &edge, margin), 1);
        const vxk_vec3 ends[2] = {{2.0f, 2.0f, 2.5f}, {3.0f, 2.0f, 2.5f}};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 2, ends, seps, 1e-4f))
            return 1;
        const float r3 = 1.7320508f;
        vxk_obb tip = {
            {2.5f, 2.0f + 0.5f * r3 + gaps[g], 2.5f},
            vxk_mat3_from_quat(vxk_quat_from_axis_angle(vxk_v3(-1, 0, 1), acosf(1.0f / r3))),
            {0.5f, 0.5f, 0.5f}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &tip, margin), 1);
        const vxk_vec3 vertex = {2.5f, 2.0f, 2.5f};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &vertex, seps, 1e-4f))
            return 1;
    }
    vxk_obb above = {{2.3f, 2.7f, 2.3f}, identity, {0.5f, 0.5f, 0.5f}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &above, margin), 0);
    vxk_obb inside = {{3.5f, 3.5f, 3.5f}, identity, {0.2f, 0.2f, 0.2f}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &cube, &inside, margin), 1);
    const vxk_vec3 deep[4] = {
        {4.3f, 3.3f, 3.3f}, {4.3f, 3.7f, 3.3f}, {4.3f, 3.3f, 3.7f}, {4.3f, 3.7f, 3.7f}};
    const float ones[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
    if (expect_manifold(&out.manifolds[0], vxk_v3(1, 0, 0), 4, deep, ones, 1e-5f))
        return 1;
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&cube);
    return 0;
}

// ---- primitives against brute force -----------------------------------------------------------

// A random body view and its reference (solid voxels and pose in double).
static int random_body(shape* sh, uint64_t* rng)
{
    float s = vxk_test_randf(rng, 0.1f, 0.5f);
    body_params(&sh->ref, rng, s, 6);
    vxk_vec3 p = {vxk_test_randf(rng, -2, 2), vxk_test_randf(rng, -2, 2),
                  vxk_test_randf(rng, -2, 2)};
    return shape_build(sh, random_quat(rng), p);
}

// World point to the grid frame (metres from voxel (0,0,0)'s lowest corner), in double.
static void r_to_grid(const rshape* r, vxk_vec3 w, double out[3])
{
    double d[3] = {w.x - r->pos[0], w.y - r->pos[1], w.z - r->pos[2]};
    for (int i = 0; i < 3; ++i)
        out[i] = r->rot[0][i] * d[0] + r->rot[1][i] * d[1] + r->rot[2][i] * d[2] - r->origin[i];
}

// Distance from grid-frame point p to the union of the solid cubes (0 inside one).
static double r_union_distance(const rshape* r, const double p[3])
{
    double best = DBL_MAX;
    for (int y = 0; y < r->n[1]; ++y)
        for (int z = 0; z < r->n[2]; ++z)
            for (int x = 0; x < r->n[0]; ++x) {
                if (!r->occ[r_index(r, x, y, z)])
                    continue;
                int v[3] = {x, y, z};
                double d2 = 0;
                for (int i = 0; i < 3; ++i) {
                    double lo = v[i] * r->s, hi = lo + r->s;
                    double e = p[i] < lo ? lo - p[i] : (p[i] > hi ? p[i] - hi : 0.0);
                    d2 += e * e;
                }
                best = fmin(best, sqrt(d2));
            }
    return best;
}

// A point `reach` away from the centre of a random solid voxel, in a random direction.
static vxk_vec3 near_voxel(const rshape* r, uint64_t* rng, double reach)
{
    int count = r->n[0] * r->n[1] * r->n[2], pick = (int)(vxk_test_rand(rng) % (uint64_t)count);
    while (!r->occ[pick])
        pick = (pick + 1) % count;
    double target[3];
    r_centre(r, pick % r->n[0], pick / (r->n[0] * r->n[2]), (pick / r->n[0]) % r->n[2], target);
    double dir[3] = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                     vxk_test_randf(rng, -1, 1)};
    double l = sqrt(dot3(dir, dir)) + 1e-9;
    return (vxk_vec3){(float)(target[0] + dir[0] / l * reach),
                      (float)(target[1] + dir[1] / l * reach),
                      (float)(target[2] + dir[2] / l * reach)};
}

// Spheres around random bodies, centres outside the body: the deepest point is the exact distance
// to the union of cubes minus the radius, reported when within the margin and never otherwise;
// every point lies on the body's surface with the sphere's centre along its normal.
static int test_sphere_random(void)
{
    uint64_t rng = vxk_test_seed(0x5E7E12);
    const int rounds = VXK_TEST_SLOW ? 300 : 1500;
    int touching = 0, outside = 0;
    for (int round = 0; round < rounds; ++round) {
        shape body;
        if (random_body(&body, &rng))
            return 1;
        const rshape* r = &body.ref;
        float radius = vxk_test_randf(&rng, 0.2f, 3.0f) * (float)r->s;
        float margin = vxk_test_randf(&rng, 0.0f, 0.5f) * (float)r->s;
        vxk_vec3 centre =
            near_voxel(r, &rng, vxk_test_randf(&rng, 0.0f, 1.0f) * (radius + 2.0f * (float)r->s));
        double local[3];
        r_to_grid(r, centre, local);
        double dist = r_union_distance(r, local);
        if (dist == 0.0) {
            shape_free(&body);
            continue;
        }
        double tol = 2e-5 * (1.0 + fabs(centre.x) + fabs(centre.y) + fabs(centre.z)) + 1e-5;
        vxk_voxel_manifolds out;
        uint32_t n = vxk_collide_voxel_sphere(&out, &g_scratch, &body.view, centre, radius, margin);
        double truth = dist - radius;
        if (truth > margin + tol)
            VXK_CHECK_MSG(n == 0, "round %d: %u manifolds at separation %g, margin %g", round, n,
                          truth, margin);
        double deepest = DBL_MAX;
        for (uint32_t m = 0; m < n; ++m) {
            const vxk_manifold* mf = &out.manifolds[m];
            for (uint32_t i = 0; i < mf->point_count; ++i) {
                const vxk_manifold_point* q = &mf->points[i];
                deepest = fmin(deepest, q->separation);
                VXK_CHECK_MSG(q->separation >= truth - tol && q->separation <= margin + tol,
                              "round %d: separation %g, exact %g", round, q->separation, truth);
                double at[3];
                r_to_grid(r, q->point, at);
                VXK_CHECK_MSG(r_union_distance(r, at) <= tol, "round %d: point off the body",
                              round);
                vxk_vec3 back = vxk_v3_mul_add(q->point, q->separation + radius, mf->normal);
                // (The manifold's normal is its cluster's: within 0.999 of the point's own.)
                double slack = 10 * tol + 0.0448 * fabs(q->separation + radius);
                VXK_CHECK_MSG(vxk_v3_length(vxk_v3_sub(back, centre)) <= slack,
                              "round %d: centre not along the normal", round);
            }
        }
        if (truth <= margin - tol) {
            VXK_CHECK_MSG(n >= 1, "round %d: no manifold at separation %g", round, truth);
            VXK_CHECK_MSG(fabs(deepest - truth) <= tol, "round %d: deepest %g, exact %g", round,
                          deepest, truth);
            touching++;
        } else {
            outside++;
        }
        shape_free(&body);
    }
    VXK_CHECK(touching > rounds / 5 && outside > rounds / 10);
    return 0;
}

// Separating-axis gap between the grid-frame box (centre c, axes ax, half h) and a cube.
static double box_cube_gap(const double c[3], const double ax[3][3], const double h[3],
                           const double lo[3], double s)
{
    double cube_c[3] = {lo[0] + 0.5 * s, lo[1] + 0.5 * s, lo[2] + 0.5 * s};
    double d[3] = {c[0] - cube_c[0], c[1] - cube_c[1], c[2] - cube_c[2]};
    double axes[15][3];
    int count = 0;
    for (int i = 0; i < 3; ++i) {
        double e[3] = {i == 0, i == 1, i == 2};
        set3(axes[count++], e);
        set3(axes[count++], ax[i]);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double e[3] = {i == 0, i == 1, i == 2};
            double x[3] = {e[1] * ax[j][2] - e[2] * ax[j][1], e[2] * ax[j][0] - e[0] * ax[j][2],
                           e[0] * ax[j][1] - e[1] * ax[j][0]};
            double l = sqrt(dot3(x, x));
            if (l < 1e-6)
                continue;
            for (int k = 0; k < 3; ++k)
                x[k] /= l;
            set3(axes[count++], x);
        }
    double gap = -DBL_MAX;
    for (int k = 0; k < count; ++k) {
        double rb = 0.5 * s * (fabs(axes[k][0]) + fabs(axes[k][1]) + fabs(axes[k][2]));
        double ra = 0;
        for (int i = 0; i < 3; ++i)
            ra += h[i] * fabs(dot3(ax[i], axes[k]));
        gap = fmax(gap, fabs(dot3(d, axes[k])) - ra - rb);
    }
    return gap;
}

// Boxes around random bodies: nothing when every solid cube is separated from the box by more
// than the margin; something when the box dips into the body a little with its centre outside;
// every point on the body's surface, with the box's surface a separation away along the normal
// (points of Inside voxels, one voxel deep by rule, excepted).
static int test_box_random(void)
{
    uint64_t rng = vxk_test_seed(0xB0C5);
    const int rounds = VXK_TEST_SLOW ? 300 : 1500;
    int separated = 0, dipping = 0;
    for (int round = 0; round < rounds; ++round) {
        shape body;
        if (random_body(&body, &rng))
            return 1;
        const rshape* r = &body.ref;
        float s = (float)r->s, margin = vxk_test_randf(&rng, 0.0f, 0.5f) * s;
        vxk_obb box;
        box.half =
            vxk_v3(vxk_test_randf(&rng, 0.2f, 2.0f) * s, vxk_test_randf(&rng, 0.2f, 2.0f) * s,
                   vxk_test_randf(&rng, 0.2f, 2.0f) * s);
        box.axes = vxk_mat3_from_quat(random_quat(&rng));
        box.center =
            near_voxel(r, &rng, vxk_test_randf(&rng, 0.3f, 1.3f) * (vxk_v3_length(box.half) + s));
        // The box in the grid frame, in double.
        double c[3], ax[3][3], h[3] = {box.half.x, box.half.y, box.half.z};
        r_to_grid(r, box.center, c);
        for (int i = 0; i < 3; ++i) {
            vxk_vec3 a = vxk_mat3_col(&box.axes, (uint32_t)i);
            double w[3] = {a.x, a.y, a.z};
            for (int k = 0; k < 3; ++k)
                ax[i][k] = r->rot[0][k] * w[0] + r->rot[1][k] * w[1] + r->rot[2][k] * w[2];
        }
        double gap = DBL_MAX;
        for (int y = 0; y < r->n[1]; ++y)
            for (int z = 0; z < r->n[2]; ++z)
                for (int x = 0; x < r->n[0]; ++x)
                    if (r->occ[r_index(r, x, y, z)]) {
                        double lo[3] = {x * r->s, y * r->s, z * r->s};
                        gap = fmin(gap, box_cube_gap(c, ax, h, lo, r->s));
                    }
        double tol = 5e-5 * (1.0 + fabs(box.center.x) + fabs(box.center.y) + fabs(box.center.z));
        vxk_voxel_manifolds out;
        uint32_t n = vxk_collide_voxel_box(&out, &g_scratch, &body.view, &box, margin);
        if (gap > margin + tol) {
            VXK_CHECK_MSG(n == 0, "round %d: %u manifolds, every cube %g away", round, n, gap);
            separated++;
        }
        int centre_out = r_union_distance(r, c) > 0.0;
        if (gap < -tol && gap > -0.2 * s && centre_out) {
            VXK_CHECK_MSG(n >= 1, "round %d: box %g deep, no manifold", round, -gap);
            dipping++;
        }
        for (uint32_t m = 0; m < n; ++m) {
            const vxk_manifold* mf = &out.manifolds[m];
            for (uint32_t i = 0; i < mf->point_count; ++i) {
                const vxk_manifold_point* q = &mf->points[i];
                VXK_CHECK(q->separation <= margin + tol);
                if (fabsf(q->separation + s) <= 1e-6f * s)
                    continue; // an Inside voxel's point
                double at[3];
                r_to_grid(r, q->point, at);
                VXK_CHECK_MSG(r_union_distance(r, at) <= tol, "round %d: point off the body",
                              round);
                vxk_vec3 b = vxk_v3_mul_add(q->point, q->separation, mf->normal);
                vxk_vec3 rel = vxk_mat3_tmul_v(&box.axes, vxk_v3_sub(b, box.center));
                double out2 = 0.0, inside = -DBL_MAX;
                double e[3] = {fabs(rel.x) - box.half.x, fabs(rel.y) - box.half.y,
                               fabs(rel.z) - box.half.z};
                for (int k = 0; k < 3; ++k) {
                    out2 += e[k] > 0 ? e[k] * e[k] : 0.0;
                    inside = fmax(inside, e[k]);
                }
                double sdf = out2 > 0 ? sqrt(out2) : inside;
                // (The manifold's normal is its cluster's: within 0.999 of the point's own.)
                VXK_CHECK_MSG(fabs(sdf) <= 10 * tol + 0.0448 * fabs(q->separation),
                              "round %d: B's point %g off the box", round, sdf);
            }
        }
        shape_free(&body);
    }
    VXK_CHECK_MSG(separated > rounds / 10 && dipping > rounds / 50, "%d separated, %d dipping",
                  separated, dipping);
    return 0;
}

// ---- feature ids, wide grids, regions, bad input ------------------------------------------------

static int sorted_features(const vxk_voxel_manifolds* out, uint32_t* ids)
{
    int n = 0;
    for (uint32_t m = 0; m < out->count; ++m)
        for (uint32_t i = 0; i < out->manifolds[m].point_count; ++i)
            ids[n++] = out->manifolds[m].points[i].feature;
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && ids[j - 1] > ids[j]; --j) {
            uint32_t t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    return n;
}

// The pose nudged by up to `move` metres and `turn` radians.
static vxk_transform jitter(vxk_transform t, uint64_t* rng, float move, float turn)
{
    t.p = vxk_v3_add(t.p, vxk_v3(vxk_test_randf(rng, -move, move), vxk_test_randf(rng, -move, move),
                                 vxk_test_randf(rng, -move, move)));
    vxk_vec3 axis = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                     vxk_test_randf(rng, -1, 1)};
    t.q = vxk_quat_normalize(
        vxk_quat_mul(vxk_quat_from_axis_angle(axis, vxk_test_randf(rng, -turn, turn)), t.q));
    return t;
}

enum { STABLE_VOXELS, STABLE_SPHERE, STABLE_BOX };

// The feature ids of a resting contact do not change under small motions of the pose.
static int stable_under_jitter(const vxk_voxel_view* a, vxk_voxel_view* b, int kind,
                               vxk_transform pose, float size, float margin, uint64_t* rng)
{
    uint32_t base[16], now[16];
    vxk_voxel_manifolds out;
    int n0 = -1;
    for (int trial = 0; trial <= 100; ++trial) {
        vxk_transform t = trial ? jitter(pose, rng, 2e-4f * size, 2e-4f) : pose;
        if (kind == STABLE_VOXELS) {
            b->pose = t;
            vxk_collide_voxels(&out, &g_scratch, a, b, margin, 0);
        } else if (kind == STABLE_SPHERE) {
            vxk_collide_voxel_sphere(&out, &g_scratch, a, t.p, 0.5f * size, margin);
        } else {
            vxk_obb box = {t.p, vxk_mat3_from_quat(t.q),
                           vxk_v3(0.5f * size, 0.5f * size, 0.5f * size)};
            vxk_collide_voxel_box(&out, &g_scratch, a, &box, margin);
        }
        int n = sorted_features(&out, trial ? now : base);
        if (!trial) {
            VXK_CHECK(n > 0);
            n0 = n;
            continue;
        }
        VXK_CHECK_MSG(n == n0 && memcmp(base, now, sizeof(uint32_t) * (size_t)n) == 0,
                      "trial %d: feature ids changed (%d points, %d before)", trial, n, n0);
    }
    return 0;
}

static int test_feature_stability(void)
{
    uint64_t rng = vxk_test_seed(0xFEA7);
    vxk_voxel_view a, b, slab;
    if (box_view(&a, 4, 2, 4, 0.1f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 4, 2, 4, 0.1f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&slab, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)))
        return 1;
    // Stacked boxes: flush, shifted, turned about the normal.
    const float margin = 0.01f;
    if (stable_under_jitter(&a, &b, STABLE_VOXELS, at(0, 0.2f + 0.002f, 0), 0.1f, margin, &rng) ||
        stable_under_jitter(&a, &b, STABLE_VOXELS, at(0.13f, 0.2f, -0.07f), 0.1f, margin, &rng))
        return 1;
    vxk_transform turned = at(0.05f, 0.2f, 0.05f);
    turned.q = vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), 0.3f);
    if (stable_under_jitter(&a, &b, STABLE_VOXELS, turned, 0.1f, margin, &rng))
        return 1;
    // A body on terrain, its region gathered at two places.
    vxk_voxel_view body, ground;
    static uint64_t storage[4096];
    if (box_view(&body, 3, 2, 3, 1.0f, vxk_v3(-1.5f, -1.0f, -1.5f), at(0, 0, 0)) ||
        region_from_ground(&ground, storage, sizeof(storage), (vxk_int3){8, 1, 18},
                           (vxk_int3){7, 7, 7}) ||
        stable_under_jitter(&ground, &body, STABLE_VOXELS, at(11.5f, 5.01f, 21.5f), 1.0f, 0.05f,
                            &rng))
        return 1;
    // A sphere and a box on the slab.
    if (stable_under_jitter(&slab, NULL, STABLE_SPHERE, at(1.7f, 2.5f, 1.3f), 1.0f, 0.05f, &rng) ||
        stable_under_jitter(&slab, NULL, STABLE_BOX, at(2.3f, 2.5f, 2.3f), 1.0f, 0.05f, &rng))
        return 1;
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&b);
    vxk_voxel_view_destroy(&slab);
    vxk_voxel_view_destroy(&body);
    return 0;
}

// Grids wider than a 64-bit word (rows of 2 and 3 words) against the reference, both orders.
static int test_wide_grids(void)
{
    uint64_t rng = vxk_test_seed(0x3D1DE);
    const int configs = VXK_TEST_SLOW ? 10 : 40;
    rpairs ref = {0};
    vxk_voxel_pair* pairs = NULL;
    uint32_t pair_cap = 0;
    cover_stats stats = {0};
    long found = 0, beyond_word = 0;
    for (int i = 0; i < configs; ++i) {
        shape a, b;
        float s = vxk_test_randf(&rng, 0.05f, 0.2f);
        body_params(&a.ref, &rng, s, 3);
        body_params(&b.ref, &rng, s, 4);
        // Stretch A along x past one and two words.
        free(a.ref.occ);
        a.ref.n[0] = 70 + (int)(vxk_test_rand(&rng) % 70);
        int count = a.ref.n[0] * a.ref.n[1] * a.ref.n[2];
        a.ref.occ = (uint8_t*)malloc((size_t)count);
        for (int k = 0; k < count; ++k)
            a.ref.occ[k] = vxk_test_randf(&rng, 0, 1) < 0.8f;
        a.ref.origin[0] = (float)(-0.5 * a.ref.n[0] * s);
        vxk_quat qa = random_quat(&rng);
        if (shape_build(&a, qa, vxk_v3(0, 0, 0)))
            return 1;
        // B near a random solid voxel of A past the first word (x >= 64), or any.
        int pick = (int)(vxk_test_rand(&rng) % (uint64_t)count), tries = 0;
        while ((!a.ref.occ[pick] || (pick % a.ref.n[0] < 64 && tries < 4 * count)) && ++tries)
            pick = (pick + 1) % count;
        double target[3];
        r_centre(&a.ref, pick % a.ref.n[0], pick / (a.ref.n[0] * a.ref.n[2]),
                 (pick / a.ref.n[0]) % a.ref.n[2], target);
        vxk_vec3 pb = {(float)(target[0] + vxk_test_randf(&rng, -2, 2) * s),
                       (float)(target[1] + vxk_test_randf(&rng, -2, 2) * s),
                       (float)(target[2] + vxk_test_randf(&rng, -2, 2) * s)};
        if (shape_build(&b, random_quat(&rng), pb))
            return 1;
        float margin = vxk_test_randf(&rng, 0.0f, 0.3f) * s;
        int na = count, nb = b.ref.n[0] * b.ref.n[1] * b.ref.n[2];
        int* map = (int*)malloc(sizeof(int) * (size_t)na * (size_t)nb);
        for (int order = 0; order < 2; ++order) {
            for (int k = 0; k < na * nb; ++k)
                map[k] = -1;
            const shape* A = order ? &b : &a;
            const shape* B = order ? &a : &b;
            if (check_order(A, B, margin, &ref, map, &pairs, &pair_cap, &g_scratch, &stats)) {
                fprintf(stderr, "wide configuration %d, order %d\n", i, order);
                return 1;
            }
            found += ref.count;
            for (int k = 0; k < ref.count; ++k)
                beyond_word += (order ? ref.items[k].vb[0] : ref.items[k].va[0]) >= 64;
        }
        free(map);
        shape_free(&a);
        shape_free(&b);
    }
    // Pairs past the first word of the wide grid's rows, found from either side.
    VXK_CHECK(found > 0 && beyond_word > 0);
    free(ref.items);
    free(pairs);
    return 0;
}

// A region filled from chunk bits equals the same region from dense occupancy: rows, types,
// Corner and Edge rows, active box; regions placed at every offset from the chunk grid.
static int test_region_from_chunks(void)
{
    uint64_t rng = vxk_test_seed(0x2E610);
    for (int round = 0; round < 40; ++round) {
        vxk_int3 size = {3 + (int)(vxk_test_rand(&rng) % 140), 3 + (int)(vxk_test_rand(&rng) % 20),
                         3 + (int)(vxk_test_rand(&rng) % 20)};
        vxk_int3 min = {(int)(vxk_test_rand(&rng) % 64) - 32, (int)(vxk_test_rand(&rng) % 64) - 32,
                        (int)(vxk_test_rand(&rng) % 64) - 32};
        size_t bytes = vxk_voxel_view_storage_bytes(size);
        void* s1 = malloc(bytes);
        void* s2 = malloc(bytes);
        size_t cells = (size_t)size.x * (size_t)size.y * (size_t)size.z;
        uint8_t* dense = (uint8_t*)calloc(cells, 1);
        vxk_voxel_view chunks, flat;
        VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&chunks, s1, bytes, min, size, 0.5f), VXK_OK);
        // Chunks covering the region and one more around: random bits, some full.
        int32_t c0[3] = {(min.x >> 3) - 1, (min.y >> 3) - 1, (min.z >> 3) - 1};
        int32_t c1[3] = {((min.x + size.x) >> 3) + 1, ((min.y + size.y) >> 3) + 1,
                         ((min.z + size.z) >> 3) + 1};
        for (int32_t cy = c0[1]; cy <= c1[1]; ++cy)
            for (int32_t cz = c0[2]; cz <= c1[2]; ++cz)
                for (int32_t cx = c0[0]; cx <= c1[0]; ++cx) {
                    uint64_t bits[8];
                    int full = vxk_test_rand(&rng) % 4 == 0;
                    for (int ly = 0; ly < 8; ++ly)
                        bits[ly] = full ? ~0ull : vxk_test_rand(&rng) & vxk_test_rand(&rng);
                    vxk_voxel_view_region_add_chunk(&chunks, (vxk_int3){cx, cy, cz}, bits);
                    for (int ly = 0; ly < 8; ++ly)
                        for (int lz = 0; lz < 8; ++lz)
                            for (int lx = 0; lx < 8; ++lx) {
                                int x = 8 * cx + lx - min.x, y = 8 * cy + ly - min.y,
                                    z = 8 * cz + lz - min.z;
                                if (x < 0 || y < 0 || z < 0 || x >= size.x || y >= size.y ||
                                    z >= size.z)
                                    continue;
                                if ((bits[ly] >> (lx + 8 * lz)) & 1u)
                                    dense[x + size.x * (z + size.z * y)] = 1;
                            }
                }
        VXK_CHECK_EQ_INT(vxk_voxel_view_region_finish(&chunks), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_voxel_view_region_dense(&flat, s2, bytes, min, size, 0.5f, dense),
                         VXK_OK);
        size_t rows = (size_t)size.y * (size_t)size.z * chunks.words;
        VXK_CHECK(memcmp(chunks.solid, flat.solid, rows * 8) == 0);
        VXK_CHECK(memcmp(chunks.corner, flat.corner, rows * 8) == 0);
        VXK_CHECK(memcmp(chunks.edge, flat.edge, rows * 8) == 0);
        VXK_CHECK(memcmp(chunks.types, flat.types, cells) == 0);
        VXK_CHECK(memcmp(&chunks.active, &flat.active, sizeof(vxk_int_box)) == 0);
        // The types inside the border against the reference's counting.
        rshape r;
        memset(&r, 0, sizeof(r));
        r.n[0] = size.x, r.n[1] = size.y, r.n[2] = size.z;
        r.occ = dense;
        r.region = 1;
        r_type(&r);
        for (int y = 1; y < size.y - 1; ++y)
            for (int z = 1; z < size.z - 1; ++z)
                for (int x = 1; x < size.x - 1; ++x) {
                    int i = r_index(&r, x, y, z);
                    uint8_t t = flat.types[i];
                    VXK_CHECK_EQ_INT(vxk_voxel_type_of(t), r.type[i]);
                    if (r.type[i] != R_INSIDE && r.type[i] != R_EMPTY)
                        VXK_CHECK_EQ_INT(vxk_voxel_normal_of(t) == VXK_VOXEL_NORMAL_NONE
                                             ? -1
                                             : (int)vxk_voxel_normal_of(t),
                                         r.normal[i]);
                    uint64_t bit =
                        (flat.corner[(y * size.z + z) * flat.words + (x >> 6)] >> (x & 63)) & 1u;
                    VXK_CHECK_EQ_INT(bit, r.type[i] == R_CORNER);
                }
        r_free(&r); // frees dense too
        free(s1);
        free(s2);
    }
    return 0;
}

static int test_bad_input(void)
{
    vxk_voxel_view v, canary;
    memset(&canary, 0xA5, sizeof(canary));
    uint8_t voxels[8] = {1, 1, 1, 1, 1, 1, 1, 1}, solid[256] = {0};
    solid[1] = 1;
    vxk_voxel_grid grid = {{2, 2, 2}, voxels};
    const vxk_vec3 zero = {0, 0, 0};
#define UNTOUCHED() VXK_CHECK(memcmp(&v, &canary, sizeof(v)) == 0)
    v = canary;
    VXK_CHECK_EQ_INT(vxk_voxel_view_create(NULL, &grid, solid, NULL, 1, zero),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_view_create(&v, NULL, solid, NULL, 1, zero),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_view_create(&v, &grid, NULL, NULL, 1, zero),
                     VXK_ERR_INVALID_ARGUMENT);
    UNTOUCHED();
    const vxk_int3 bad_sizes[4] = {{0, 2, 2}, {2, -1, 2}, {2, 2, 257}, {300, 1, 1}};
    for (int i = 0; i < 4; ++i) {
        vxk_voxel_grid g = {bad_sizes[i], voxels};
        VXK_CHECK_EQ_INT(vxk_voxel_view_create(&v, &g, solid, NULL, 1, zero), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_U64(vxk_voxel_view_storage_bytes(bad_sizes[i]), 0);
    }
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float f = special_float(k);
        if (k < 3 || !(f > 0.0f))
            VXK_CHECK_EQ_INT(vxk_voxel_view_create(&v, &grid, solid, NULL, f, zero),
                             VXK_ERR_NOT_FINITE);
        if (k < 3)
            VXK_CHECK_EQ_INT(vxk_voxel_view_create(&v, &grid, solid, NULL, 1, vxk_v3(0, f, 0)),
                             VXK_ERR_NOT_FINITE);
    }
    VXK_CHECK_EQ_INT(vxk_voxel_view_create(&v, &grid, solid, NULL, 0.0f, zero), VXK_ERR_NOT_FINITE);
    UNTOUCHED();
    // Regions.
    static uint64_t storage[64];
    VXK_CHECK_EQ_INT(
        vxk_voxel_view_region_begin(&v, NULL, 0, (vxk_int3){0, 0, 0}, (vxk_int3){3, 3, 3}, 1.0f),
        VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, sizeof(storage), (vxk_int3){0, 0, 0},
                                                 (vxk_int3){2, 3, 3}, 1.0f),
                     VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, 16, (vxk_int3){0, 0, 0},
                                                 (vxk_int3){3, 3, 3}, 1.0f),
                     VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, sizeof(storage), (vxk_int3){0, 0, 0},
                                                 (vxk_int3){3, 3, 3}, f_nan()),
                     VXK_ERR_NOT_FINITE);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_dense(&v, storage, sizeof(storage), (vxk_int3){0, 0, 0},
                                                 (vxk_int3){3, 3, 3}, 1.0f, NULL),
                     VXK_ERR_INVALID_ARGUMENT);
    UNTOUCHED();
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_finish(NULL), VXK_ERR_INVALID_ARGUMENT);
#undef UNTOUCHED
    // An empty grid is a view that touches nothing; so is a region with no solid voxel inside.
    uint8_t air[8] = {0};
    vxk_voxel_grid empty = {{2, 2, 2}, air};
    vxk_voxel_view e, full, region;
    VXK_CHECK_EQ_INT(vxk_voxel_view_create(&e, &empty, solid, NULL, 1, zero), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_voxel_view_create(&full, &grid, solid, NULL, 1, zero), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&region, storage, sizeof(storage),
                                                 (vxk_int3){0, 0, 0}, (vxk_int3){3, 3, 3}, 1.0f),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_finish(&region), VXK_OK);
    vxk_voxel_manifolds out;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &e, &full, 1.0f, 0), 0);
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &region, 1.0f, 0), 0);
    VXK_CHECK_EQ_U64(vxk_collide_voxel_sphere(&out, &g_scratch, &e, zero, 1.0f, 1.0f), 0);
    VXK_CHECK_EQ_U64(vxk_voxel_pairs(NULL, 0, &e, &full, 1.0f, 0), 0);
    // A touching pair: bad calls around it give 0 and leave the output empty.
    vxk_voxel_view other = full;
    other.pose.p = vxk_v3(2.0f, 0, 0);
    VXK_CHECK(vxk_collide_voxels(&out, &g_scratch, &full, &other, 0.0f, 0) == 1);
    VXK_CHECK_EQ_U64(vxk_collide_voxels(NULL, &g_scratch, &full, &other, 0.0f, 0), 0);
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, NULL, &full, &other, 0.0f, 0), 0);
    VXK_CHECK_EQ_U64(out.count, 0);
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, NULL, &other, 0.0f, 0), 0);
    for (int k = 0; k < 3; ++k) {
        VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &other, special_float(k), 0),
                         0);
        vxk_voxel_view broken = other;
        broken.pose.p.y = special_float(k);
        VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &broken, 0.0f, 0), 0);
        broken = other;
        broken.pose.q.w = special_float(k);
        VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &broken, 0.0f, 0), 0);
        VXK_CHECK_EQ_U64(
            vxk_collide_voxel_sphere(&out, &g_scratch, &full, vxk_v3(special_float(k), 0, 0), 1, 0),
            0);
        VXK_CHECK_EQ_U64(
            vxk_collide_voxel_sphere(&out, &g_scratch, &full, vxk_v3(1, 1, 1), special_float(k), 0),
            0);
        vxk_obb box = {{3, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {1, special_float(k), 1}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &full, &box, 0.0f), 0);
    }
    vxk_voxel_view zero_q = other;
    zero_q.pose.q = (vxk_quat){0, 0, 0, 0};
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &zero_q, 0.0f, 0), 0);
    // A negative margin counts as 0: the touching faces still touch.
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &other, -1.0f, 0), 1);
    VXK_CHECK_EQ_U64(vxk_collide_voxel_sphere(&out, &g_scratch, &full, vxk_v3(1, 1, 1), -1.0f, 0),
                     0);
    vxk_obb negative = {{3, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {1, -1, 1}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &full, &negative, 0.0f), 0);
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &full, NULL, 0.0f), 0);
    // Raw points past the capacity are counted, not written.
    vxk_voxel_pair few[2];
    memset(few, 0xA5, sizeof(few));
    uint32_t total = vxk_voxel_pairs(few, 1, &full, &other, 0.0f, 0);
    VXK_CHECK(total > 1);
    VXK_CHECK(all_canary(&few[1], sizeof(few[1])));
    vxk_voxel_view_destroy(&e);
    vxk_voxel_view_destroy(&full);
    vxk_voxel_view_destroy(NULL);
    return 0;
}

// Out of memory in view creation (its own block and the typing's): the status, and nothing kept.
static int test_view_out_of_memory(void)
{
    uint8_t voxels[64], solid[256] = {0};
    for (int i = 0; i < 64; ++i)
        voxels[i] = (uint8_t)(i % 3 != 0);
    solid[1] = 1;
    vxk_voxel_grid grid = {{4, 4, 4}, voxels};
    vxk_voxel_view v, canary;
    memset(&canary, 0xA5, sizeof(canary));
    size_t before = vxk_allocated_bytes();
    OOM_SWEEP(
        v = canary, vxk_voxel_view_create(&v, &grid, solid, NULL, 0.5f, vxk_v3(0, 0, 0)),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(memcmp(&v, &canary, sizeof(v)) == 0);
            }
        },
        {
            if (st == VXK_OK)
                vxk_voxel_view_destroy(&v);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        });
    return 0;
}

int main(void)
{
    vxk_edge_tests_begin();
    VXK_RUN(test_voxels_face_on_face);
    VXK_RUN(test_voxels_edge_on);
    VXK_RUN(test_voxels_corner_on);
    VXK_RUN(test_voxels_deep);
    VXK_RUN(test_terrain_region);
    VXK_RUN(test_sphere_voxels);
    VXK_RUN(test_box_voxels);
    VXK_RUN(test_random_against_reference);
    VXK_RUN(test_sphere_random);
    VXK_RUN(test_box_random);
    VXK_RUN(test_feature_stability);
    VXK_RUN(test_wide_grids);
    VXK_RUN(test_region_from_chunks);
    VXK_RUN(test_bad_input);
    vxk_edge_tests_end();
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_view_out_of_memory);
    vxk_oom_tests_end();
    return vxk_test_finish();
}
