// test_contact_voxel.c: voxel contacts (contact_voxel.h) against a brute-force reference written
// here in double precision and sharing no code with the kernel: its own voxel typing (counting
// empty face neighbours, walking the 26 directions for Inside exits), its own transforms, every
// voxel pair of A x B with the cube rules of the header (separating axes, the face choice, the
// support region's 2D overlap with the face; no overlap region, no neighbourhood, no bit rows).
// On 1,000 seeded random configurations (grids with holes, random poses and rotations, terrain
// regions with a border; equal voxels and the ratios 1:2, 1:4, 1:10 either way; deep, touching,
// just separated and far; turned, stacked axis-aligned on exact and arbitrary offsets, resting
// level or slightly tilted on flat regions) the pairs must equal the reference's, the search
// must find exactly what all pairs find (bit for bit, each driving side), and the manifolds must
// cover every touching area the reference finds and invent none. Canonical cases check the
// hand-computed contacts of every pair type with equal and unequal voxels; others check
// feature-id stability, flipping and bad input.
#include "test.h"

#include "contact_voxel.h"
#include "contact_voxel_internal.h"
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

// One pair of the reference. A decision that rounding could tip (a gap at the margin, an overlap
// at its need, near-equal face choices) makes the pair optional or lists every outcome.
#define MAX_ALT 12
typedef struct rpair {
    int a, b;         // voxel indices
    int va[3], vb[3]; // coordinates
    int optional;     // the kernel may or may not report it
    // The article's normal (the line of centres, lookup-corrected): 1 or 2 (sign ambiguous), or
    // any unit vector when the centres are closer than rounding.
    int normals, free_normal;
    double normal[2][3];
    double dist, noise;  // centre distance; rounding of the kernel's centres
    double side, lookup; // d . (l_a - l_b) and |l_a - l_b|: the article's sign and its certainty
    // The admitted outcomes of the face choice: normal, separation, point on A's side.
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

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

// A shape's voxel axes in world: axis[k] is column k of the rotation.
static void r_axes(const rshape* r, double axis[3][3])
{
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            axis[k][i] = r->rot[i][k];
}

// Half extent of a cube (half size h, axes ax) along unit u.
static double cube_extent(const double ax[3][3], double h, const double u[3])
{
    return h * (fabs(dot3(ax[0], u)) + fabs(dot3(ax[1], u)) + fabs(dot3(ax[2], u)));
}

enum { R_NO, R_YES, R_MAYBE };

// The header's face rule, for the face of cube o (centre co, axes ao, half ho) along sign * ao[k]
// against cube t (centre ct, axes at, half ht): t's support region (the part of its cube within
// `band` of its lowest point along the face's outward direction u: per axis of t the length
// that stays within the band, linearly) projected onto the face's plane against the face, by a
// 2D separating-axis test on the face's axes and the region's edge normals. The point: the middle
// of the clipped bounds along the face's axes, on the face.
static int r_face_meets(const double ao[3][3], double ho, int k, double sign, const double co[3],
                        const double at[3][3], double ht, const double ct[3], double band,
                        double tol, double eps, double point[3])
{
    double u[3] = {sign * ao[k][0], sign * ao[k][1], sign * ao[k][2]};
    double centre[3] = {ct[0] - co[0], ct[1] - co[1], ct[2] - co[2]};
    double gen[3][3];
    int gens = 0;
    for (int i = 0; i < 3; ++i) {
        double c = dot3(at[i], u);
        double rise = 2.0 * ht * fabs(c); // how far the axis's ends differ along u
        double w = rise >= band ? 1.0 : rise / band;
        double toward = c > 0 ? -1.0 : (c < 0 ? 1.0 : 0.0); // lowest end
        for (int j = 0; j < 3; ++j)
            centre[j] += toward * w * ht * at[i][j];
        if (w < 1.0) {
            for (int j = 0; j < 3; ++j)
                gen[gens][j] = (1.0 - w) * ht * at[i][j];
            gens++;
        }
    }
    double axes[5][3];
    int count = 0;
    set3(axes[count++], ao[(k + 1) % 3]);
    set3(axes[count++], ao[(k + 2) % 3]);
    for (int g = 0; g < gens; ++g) {
        double n[3];
        cross3(u, gen[g], n);
        double l = sqrt(dot3(n, n));
        for (int j = 0; j < 3; ++j)
            n[j] /= l;
        set3(axes[count++], n);
    }
    int maybe = 0;
    double mid[2] = {0, 0};
    // (The middle of the overlap of the region's bounds along the face's axes with the face; of
    // an edge, the middle of its part over the face: below.)
    for (int x = 0; x < count; ++x) {
        double cp = dot3(centre, axes[x]), rp = 0.0;
        for (int g = 0; g < gens; ++g)
            rp += fabs(dot3(gen[g], axes[x]));
        double rq =
            ho * (fabs(dot3(ao[(k + 1) % 3], axes[x])) + fabs(dot3(ao[(k + 2) % 3], axes[x])));
        double lo = fmax(cp - rp, -rq), hi = fmin(cp + rp, rq);
        // An area must overlap by the tolerance, an edge or a vertex may miss by as much.
        double need = fmin(2.0 * rp, 2.0 * tol) - tol;
        if (hi - lo < need - eps)
            return R_NO;
        maybe |= hi - lo < need + eps;
        if (x < 2)
            mid[x] = 0.5 * (lo + hi);
    }
    if (gens == 1) {
        // Points of the edge centre + t gen, t in [-1, 1], over the face: each face axis bounds t.
        double lo = -1.0, hi = 1.0;
        for (int x = 0; x < 2; ++x) {
            double g = dot3(gen[0], ao[(k + 1 + x) % 3]), c0 = dot3(centre, ao[(k + 1 + x) % 3]);
            if (fabs(g) <= 1e-6 * ho)
                continue;
            double t0 = (-ho - c0) / g, t1 = (ho - c0) / g;
            lo = fmax(lo, fmin(t0, t1));
            hi = fmin(hi, fmax(t0, t1));
        }
        double t = fmin(1.0, fmax(-1.0, 0.5 * (lo + hi)));
        for (int x = 0; x < 2; ++x)
            mid[x] = dot3(centre, ao[(k + 1 + x) % 3]) + t * dot3(gen[0], ao[(k + 1 + x) % 3]);
    }
    for (int j = 0; j < 3; ++j)
        point[j] = co[j] + ho * u[j] + mid[0] * ao[(k + 1) % 3][j] + mid[1] * ao[(k + 2) % 3][j];
    return maybe ? R_MAYBE : R_YES;
}

// Every pair of A x B with the header's rules.
static void r_pairs(rpairs* out, const rshape* A, const rshape* B, double margin)
{
    out->count = 0;
    double axa[3][3], axb[3][3];
    r_axes(A, axa);
    r_axes(B, axb);
    const double ha = 0.5 * A->s, hb = 0.5 * B->s, half_sum = ha + hb;
    const double smaller = fmin(A->s, B->s);
    const double tol = 1e-3 * smaller, band = 0.1 * smaller;
    // Each cube's extent along the other's axes: the same for every pair.
    double ext_on_a[3], ext_on_b[3];
    for (int k = 0; k < 3; ++k) {
        ext_on_a[k] = cube_extent(axb, hb, axa[k]);
        ext_on_b[k] = cube_extent(axa, ha, axb[k]);
    }
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
                            double scale = 1.0 + fabs(pa[0]) + fabs(pa[1]) + fabs(pa[2]);
                            double eps = 1e-5 * scale;
                            // The 6 face axes: gaps of the two cubes.
                            double gap_a[3], gap_b[3];
                            int apart = 0, near = 0;
                            for (int k = 0; k < 3; ++k) {
                                gap_a[k] = fabs(dot3(d, axa[k])) - ha - ext_on_a[k];
                                gap_b[k] = fabs(dot3(d, axb[k])) - hb - ext_on_b[k];
                                apart |= gap_a[k] > margin + eps || gap_b[k] > margin + eps;
                                near |= fabs(gap_a[k] - margin) <= eps ||
                                        fabs(gap_b[k] - margin) <= eps;
                            }
                            if (apart)
                                continue;
                            rpair p;
                            memset(&p, 0, sizeof(p));
                            p.a = ia, p.b = ib;
                            p.va[0] = ax, p.va[1] = ay, p.va[2] = az;
                            p.vb[0] = bx, p.vb[1] = by, p.vb[2] = bz;
                            p.optional = near;
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
                            if (deep) {
                                // The Corner across two axes of the Inside voxel.
                                const double* gap = ta == R_INSIDE ? gap_a : gap_b;
                                int sure = 0, maybe = 0;
                                for (int k = 0; k < 3; ++k) {
                                    sure += gap[k] < -tol - eps;
                                    maybe += gap[k] < -tol + eps;
                                }
                                if (maybe < 2)
                                    continue;
                                p.optional |= sure < 2;
                                double n[3], sep = -(ta == R_INSIDE ? A->s : B->s);
                                const double* centre = ta == R_INSIDE ? pa : pb;
                                for (int i = 0; i < 3; ++i)
                                    n[i] = ta == R_INSIDE ? la[i] : -lb[i];
                                p.normals = 1;
                                set3(p.normal[0], n);
                                p.faces = 1;
                                set3(p.face[0], n);
                                p.face_separation[0] = sep;
                                for (int i = 0; i < 3; ++i)
                                    p.face_point[0][i] = centre[i] - 0.5 * sep * n[i];
                                push_pair(out, &p);
                                continue;
                            }
                            // The article's normal with the symmetric lookup correction.
                            double dist = sqrt(dot3(d, d)), u[3];
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
                            p.side = side;
                            p.lookup = cl;
                            p.dist = dist;
                            p.noise = 3e-7 * scale;
                            p.free_normal = dist <= 1e-5 * scale;
                            // (The kernel's d carries the centres' rounding, about 1e-7 of
                            // the coordinates, whatever |d|.)
                            int ambiguous = dist > 1e-6 * half_sum && cl > 0 &&
                                            fabs(side) <= (1e-5 * dist + 4.0 * p.noise) * cl;
                            p.normals = ambiguous ? 2 : 1;
                            for (int k = 0; k < p.normals; ++k) {
                                double sign = 1.0;
                                if (ambiguous)
                                    sign = k == 0 ? 1.0 : -1.0;
                                else if (dist > 1e-6 * half_sum && side < 0)
                                    sign = -1.0;
                                for (int i = 0; i < 3; ++i)
                                    p.normal[k][i] = sign * u[i];
                            }
                            // Face candidates: A's open directions, B's negated; each with its
                            // owner (0: a, 1: b), axis and sign along it.
                            double cand[12][3], score[12], with_n[12], sep[12];
                            int owner[12], axis[12];
                            double sgn[12];
                            int m = 0;
                            for (int side_b = 0; side_b < 2; ++side_b) {
                                const rshape* S = side_b ? B : A;
                                int open = side_b ? B->open[ib] : A->open[ia];
                                for (int f = 0; f < 6; ++f) {
                                    if (!(open & (1 << f)))
                                        continue;
                                    r_dir(S, k_faces[f], cand[m]);
                                    owner[m] = side_b;
                                    axis[m] = f % 3;
                                    sgn[m] = f < 3 ? 1.0 : -1.0;
                                    if (side_b)
                                        for (int i = 0; i < 3; ++i)
                                            cand[m][i] = -cand[m][i];
                                    // Along f (A to B): d . f less the owner's half along its
                                    // own axis and the other cube's extent along it.
                                    sep[m] = dot3(d, cand[m]) -
                                             (side_b ? hb + ext_on_b[f % 3] : ha + ext_on_a[f % 3]);
                                    m++;
                                }
                            }
                            for (int j = 0; j < m; ++j) {
                                score[j] = dot3(cand[j], c);
                                with_n[j] = dot3(cand[j], p.normal[0]);
                            }
                            // The article's choice: the best score, then among scores within
                            // 1e-5 of it the best dot with the normal (then the pose line,
                            // which the reference leaves open); rounding may move a score
                            // across either line.
                            double best = -DBL_MAX, best_along = -DBL_MAX;
                            for (int j = 0; j < m; ++j)
                                best = fmax(best, score[j]);
                            for (int j = 0; j < m; ++j)
                                if (score[j] >= best - 0.5e-5)
                                    best_along = fmax(best_along, with_n[j]);
                            int admitted = 0, refused = 0;
                            for (int j0 = 0; j0 < m; ++j0) {
                                int possible =
                                    score[j0] >= best - 2e-5 && (with_n[j0] >= best_along - 2e-5 ||
                                                                 p.normals == 2 || p.free_normal);
                                if (!possible)
                                    continue;
                                // Then as cubes: the faces within 60 degrees whose face the
                                // other's support region meets compete by separation, the
                                // first choice keeping ties of 1e-5 (s_a + s_b). A winner is
                                // within the tie (and rounding) of every face surely met.
                                double tie = 1e-5 * (A->s + B->s);
                                int meets[12];
                                double at[12][3];
                                double top = -DBL_MAX;
                                for (int j = 0; j < m; ++j) {
                                    meets[j] = R_NO;
                                    if (dot3(cand[j], cand[j0]) < 0.5 - 1e-9)
                                        continue;
                                    int o = owner[j];
                                    meets[j] = o ? r_face_meets(axb, hb, axis[j], sgn[j], pb, axa,
                                                                ha, pa, band, tol, eps, at[j])
                                                 : r_face_meets(axa, ha, axis[j], sgn[j], pa, axb,
                                                                hb, pb, band, tol, eps, at[j]);
                                    if (meets[j] == R_YES)
                                        top = fmax(top, sep[j]);
                                }
                                // No face surely met: the kernel may find none.
                                refused |= top == -DBL_MAX;
                                for (int j = 0; j < m; ++j) {
                                    if (meets[j] == R_NO || sep[j] < top - tie - eps)
                                        continue;
                                    admitted = 1;
                                    double point[3];
                                    set3(point, at[j]);
                                    // On A's side: B's face point moved back by the separation.
                                    if (owner[j])
                                        for (int i = 0; i < 3; ++i)
                                            point[i] -= sep[j] * cand[j][i];
                                    int seen = 0;
                                    for (int k = 0; k < p.faces; ++k) {
                                        double e[3] = {p.face[k][0] - cand[j][0],
                                                       p.face[k][1] - cand[j][1],
                                                       p.face[k][2] - cand[j][2]};
                                        double q[3] = {p.face_point[k][0] - point[0],
                                                       p.face_point[k][1] - point[1],
                                                       p.face_point[k][2] - point[2]};
                                        seen |= dot3(e, e) < 1e-12 && dot3(q, q) < 1e-12 &&
                                                fabs(p.face_separation[k] - sep[j]) < 1e-9;
                                    }
                                    if (seen || p.faces == MAX_ALT)
                                        continue;
                                    int k = p.faces++;
                                    set3(p.face[k], cand[j]);
                                    p.face_separation[k] = sep[j];
                                    set3(p.face_point[k], point);
                                }
                            }
                            if (!admitted)
                                continue;
                            p.optional |= refused;
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

static int view_bit(const vxk_voxel_view* v, const uint64_t* rows, int x, int y, int z)
{
    return (int)((rows[((size_t)y * (size_t)v->size.z + (size_t)z) * v->words + (size_t)(x >> 6)] >>
                  (x & 63)) &
                 1u);
}

// The view's rows and exposure bytes against the reference's typing, over the voxels that may
// touch: occupancy, the Corner, Edge, Face and Inside rows, and each solid voxel's empty face
// neighbours.
static int check_view_rows(const vxk_voxel_view* v, const rshape* r)
{
    for (int y = r->lo[1]; y <= r->hi[1]; ++y)
        for (int z = r->lo[2]; z <= r->hi[2]; ++z)
            for (int x = r->lo[0]; x <= r->hi[0]; ++x) {
                int i = r_index(r, x, y, z), t = r->occ[i] ? r->type[i] : -1;
                VXK_CHECK_EQ_INT(view_bit(v, v->solid, x, y, z), r->occ[i] != 0);
                VXK_CHECK_EQ_INT(view_bit(v, v->corner, x, y, z), t == R_CORNER);
                VXK_CHECK_EQ_INT(view_bit(v, v->edge, x, y, z), t == R_EDGE);
                VXK_CHECK_EQ_INT(view_bit(v, v->face, x, y, z), t == R_FACE);
                VXK_CHECK_EQ_INT(view_bit(v, v->inside, x, y, z), t == R_INSIDE);
                if (r->occ[i])
                    VXK_CHECK_EQ_INT(v->open[i], r->open[i]);
            }
    return 0;
}

// Finishes a shape whose ref.occ, sizes, s, origin and pose are set: reference typing and the
// kernel's view (a body view from a grid, or a region view from dense occupancy), whose rows are
// checked against the typing.
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
    VXK_CHECK_EQ_INT(check_view_rows(&sh->view, r), 0);
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
        // The article's normal: 1e-4, or what float centres allow when they are close (the
        // direction of d carries the centres' rounding, about 1e-7 of the coordinates, over |d|).
        int normal_ok = p->free_normal && fabs(vxk_v3_length(q->normal) - 1.0f) < 1e-5;
        double normal_tol = p->dist > 0 ? fmax(1e-4, 4.0 * p->noise / p->dist) : 1e-4;
        for (int k = 0; k < p->normals; ++k)
            normal_ok |= dist3(p->normal[k], q->normal) <= normal_tol;
        VXK_CHECK_MSG(normal_ok,
                      "pair (%d %d %d)-(%d %d %d): normal (%g %g %g), reference (%g %g %g) (%d "
                      "choices; d . (la - lb) %g, |la - lb| %g, |d| %g)",
                      q->voxel_a.x, q->voxel_a.y, q->voxel_a.z, q->voxel_b.x, q->voxel_b.y,
                      q->voxel_b.z, q->normal.x, q->normal.y, q->normal.z, p->normal[0][0],
                      p->normal[0][1], p->normal[0][2], p->normals, p->side, p->lookup, p->dist);
        int face_ok = 0;
        for (int k = 0; k < p->faces; ++k)
            if (dist3(p->face[k], q->face_normal) <= 1e-5 &&
                fabs(p->face_separation[k] - q->face_separation) <= tol &&
                dist3(p->face_point[k], q->face_point) <= tol)
                face_ok = 1;
        VXK_CHECK_MSG(face_ok,
                      "pair (%d %d %d)-(%d %d %d): face (%g %g %g) sep %g point (%g %g %g), "
                      "reference (%g %g %g) sep %g point (%g %g %g) (%d choices)",
                      q->voxel_a.x, q->voxel_a.y, q->voxel_a.z, q->voxel_b.x, q->voxel_b.y,
                      q->voxel_b.z, q->face_normal.x, q->face_normal.y, q->face_normal.z,
                      q->face_separation, q->face_point.x, q->face_point.y, q->face_point.z,
                      p->face[0][0], p->face[0][1], p->face[0][2], p->face_separation[0],
                      p->face_point[0][0], p->face_point[0][1], p->face_point[0][2], p->faces);
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

// A terrain region: a height field with caves (or flat with a few bumps and dips), a one-voxel
// border included.
static void region_params(rshape* r, uint64_t* rng, float s, int flat)
{
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < 3; ++i)
        r->n[i] = 4 + (int)(vxk_test_rand(rng) % 6);
    int count = r->n[0] * r->n[1] * r->n[2];
    r->occ = (uint8_t*)calloc((size_t)count, 1);
    float hole = flat ? 0.0f : vxk_test_randf(rng, 0.0f, 0.3f);
    int level = 1 + r->n[1] / 2;
    for (int z = 0; z < r->n[2]; ++z)
        for (int x = 0; x < r->n[0]; ++x) {
            int h = 1 + (int)(vxk_test_rand(rng) % (uint64_t)r->n[1]);
            if (flat)
                h = level + (vxk_test_rand(rng) % 6 == 0 ? (int)(vxk_test_rand(rng) % 3) - 1 : 0);
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

enum {
    KIND_TURNED,  // random rotations, deep to touching to separated
    KIND_STACKED, // axis-aligned, B on a face of A
    KIND_TERRAIN, // a turned body over a terrain region
    KIND_FAR,     // random rotations, apart
    KIND_RESTING, // a body level or slightly tilted on a flat region's top, about touching
    KIND_COUNT
};

// Voxel sizes: equal, or in the ratios 1:2, 1:4, 1:10 either way, or any in between.
static void voxel_sizes(uint64_t* rng, float* sa, float* sb)
{
    static const float ratios[6] = {2.0f, 4.0f, 10.0f, 0.5f, 0.25f, 0.1f};
    uint64_t pick = vxk_test_rand(rng) % 10;
    float ratio = pick < 3 ? 1.0f : pick < 9 ? ratios[pick - 3] : vxk_test_randf(rng, 0.5f, 2.0f);
    float smaller = vxk_test_randf(rng, 0.04f, 0.2f);
    *sa = ratio >= 1.0f ? smaller : smaller / ratio;
    *sb = ratio >= 1.0f ? smaller * ratio : smaller;
}

// A small rotation (up to `angle` radians about a random axis) after an axis-keeping one.
static vxk_quat tilted_quat(uint64_t* rng, float angle)
{
    vxk_vec3 axis = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                     vxk_test_randf(rng, -1, 1)};
    if (vxk_v3_length(axis) < 1e-3f)
        axis = vxk_v3(1, 0, 0);
    return vxk_quat_mul(vxk_quat_from_axis_angle(axis, vxk_test_randf(rng, 0.0f, angle)),
                        aligned_quat(rng));
}

static int make_config(config* c, uint64_t* rng, int kind)
{
    c->kind = kind;
    float sa, sb;
    voxel_sizes(rng, &sa, &sb);
    const float smaller = fminf(sa, sb);
    int max_side = vxk_test_rand(rng) % 8 == 0 ? 9 : 6;
    body_params(&c->a.ref, rng, sa, max_side);
    vxk_quat qa = kind == KIND_STACKED ? aligned_quat(rng)
                  : kind == KIND_RESTING
                      ? (vxk_test_rand(rng) % 2 ? aligned_quat(rng) : tilted_quat(rng, 0.2f))
                      : random_quat(rng);
    vxk_vec3 pa = {vxk_test_randf(rng, -2, 2), vxk_test_randf(rng, -2, 2),
                   vxk_test_randf(rng, -2, 2)};
    vxk_quat qb;
    vxk_vec3 pb;
    if (kind == KIND_TERRAIN || kind == KIND_RESTING) {
        // A body over a terrain region (B axis-aligned at its base).
        region_params(&c->b.ref, rng, sb, kind == KIND_RESTING);
        c->margin = vxk_test_randf(rng, 0.0f, 0.5f) * smaller;
        qb = (vxk_quat){0, 0, 0, 1};
        pb = (vxk_vec3){0, 0, 0};
        rshape* rr = &c->b.ref;
        for (int i = 0; i < 3; ++i)
            rr->origin[i] = (double)(float)((double)rr->base[i] * sb);
        if (kind == KIND_TERRAIN) {
            double centre[3], ra, rb;
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
        } else {
            // The body's lowest point at the region's level (its top at y = level), anywhere
            // over the region, touching, a little above or a little sunk.
            int level = 1 + rr->n[1] / 2;
            double top = rr->origin[1] + level * (double)sb;
            double alo[3], ahi[3];
            vxk_vec3 zero = {0, 0, 0};
            grid_box(&c->a.ref, qa, zero, alo, ahi);
            double x = rr->origin[0] + vxk_test_randf(rng, 0.2f, 0.8f) * rr->n[0] * sb;
            double z = rr->origin[2] + vxk_test_randf(rng, 0.2f, 0.8f) * rr->n[2] * sb;
            static const float gaps[4] = {0.0f, 0.5f, -0.5f, 2.0f};
            double gap = gaps[vxk_test_rand(rng) % 4] * (c->margin + 0.01f * smaller);
            pa = (vxk_vec3){(float)(x - 0.5 * (alo[0] + ahi[0])), (float)(top + gap - alo[1]),
                            (float)(z - 0.5 * (alo[2] + ahi[2]))};
        }
    } else if (kind == KIND_STACKED) {
        // Axis-aligned, B stacked on a face of A: touching, speculative, just beyond the margin,
        // or sunk; shifted by whole smaller voxels (faces and edges meet exactly) or anywhere.
        body_params(&c->b.ref, rng, sb, max_side);
        for (int i = 0; i < 3; ++i)
            c->b.ref.origin[i] = (float)(-0.5 * c->b.ref.n[i] * sb);
        for (int i = 0; i < 3; ++i)
            c->a.ref.origin[i] = (float)(-0.5 * c->a.ref.n[i] * sa);
        c->margin = vxk_test_randf(rng, 0.05f, 0.3f) * smaller;
        qb = aligned_quat(rng);
        double alo[3], ahi[3], blo[3], bhi[3];
        grid_box(&c->a.ref, qa, pa, alo, ahi);
        vxk_vec3 zero = {0, 0, 0};
        grid_box(&c->b.ref, qb, zero, blo, bhi);
        static const float gaps[5] = {0.0f, 0.5f, 2.0f, -0.5f, -1.0f};
        uint64_t g = vxk_test_rand(rng) % 5;
        float gap = g < 3 ? gaps[g] * c->margin : gaps[g] * smaller;
        int exact = vxk_test_rand(rng) % 2;
        double target[3];
        for (int i = 0; i < 3; ++i) {
            int shift = (int)(vxk_test_rand(rng) % 7) - 3;
            target[i] = alo[i] + shift * (double)fmaxf(sa, sb) * (exact ? 1.0 : 0.5) +
                        (exact ? 0.0 : vxk_test_randf(rng, 0.0f, 1.0f) * smaller);
        }
        target[1] = ahi[1] + gap;
        pb = (vxk_vec3){(float)(target[0] - blo[0]), (float)(target[1] - blo[1]),
                        (float)(target[2] - blo[2])};
    } else {
        // Random rotations: deep to touching to separated, or far apart.
        body_params(&c->b.ref, rng, sb, max_side);
        c->margin = vxk_test_randf(rng, 0.0f, 0.5f) * smaller;
        qb = random_quat(rng);
        double ca[3], cb[3], ra, rb;
        grid_sphere(&c->a.ref, qa, pa, ca, &ra);
        vxk_vec3 zero = {0, 0, 0};
        grid_sphere(&c->b.ref, qb, zero, cb, &rb);
        double dir[3] = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                         vxk_test_randf(rng, -1, 1)};
        double l = sqrt(dot3(dir, dir)) + 1e-9;
        double t =
            kind == KIND_FAR ? vxk_test_randf(rng, 1.05f, 3.0f) : vxk_test_randf(rng, 0.0f, 1.0f);
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
static int compare_pairs(const void* x, const void* y)
{
    const vxk_voxel_pair* p = (const vxk_voxel_pair*)x;
    const vxk_voxel_pair* q = (const vxk_voxel_pair*)y;
    return memcmp(&p->voxel_a, &q->voxel_a, 2 * sizeof(vxk_int3));
}

// The search (each driving side) finds exactly the pairs of all pairs, bit for bit.
static int same_as_all_pairs(const shape* A, const shape* B, float margin)
{
    uint32_t n = vxk_voxel_pairs(NULL, 0, &A->view, &B->view, margin, VXK_VOXEL_ALL_PAIRS);
    vxk_voxel_pair* all = (vxk_voxel_pair*)calloc((size_t)n + 1, sizeof(vxk_voxel_pair));
    vxk_voxel_pair* found = (vxk_voxel_pair*)calloc((size_t)n + 1, sizeof(vxk_voxel_pair));
    vxk_voxel_pairs(all, n, &A->view, &B->view, margin, VXK_VOXEL_ALL_PAIRS);
    qsort(all, n, sizeof(vxk_voxel_pair), compare_pairs);
    int failed = 0;
    static const uint32_t flags[3] = {0, VXK_VOXEL_ITERATE_A, VXK_VOXEL_ITERATE_B};
    for (int f = 0; f < 3 && !failed; ++f) {
        uint32_t m = vxk_voxel_pairs(found, n, &A->view, &B->view, margin, flags[f]);
        qsort(found, m < n ? m : n, sizeof(vxk_voxel_pair), compare_pairs);
        failed = m != n || memcmp(found, all, sizeof(vxk_voxel_pair) * n) != 0;
        if (failed)
            fprintf(stderr, "flags %u: %u pairs, all pairs %u (or different bits)\n", flags[f], m,
                    n);
    }
    free(all);
    free(found);
    return failed;
}

// One order of a configuration: raw points against the reference (each driving side) and against
// all pairs, the manifolds' coverage, and the manifolds of every driving side and of all pairs
// identical.
static int check_order(const shape* A, const shape* B, float margin, rpairs* ref, int* map,
                       vxk_voxel_pair** pairs, uint32_t* pair_cap,
                       vxk_voxel_contact_scratch* scratch, cover_stats* stats)
{
    r_pairs(ref, &A->ref, &B->ref, margin);
    static const uint32_t flags[4] = {0, VXK_VOXEL_ITERATE_A, VXK_VOXEL_ITERATE_B,
                                      VXK_VOXEL_ALL_PAIRS};
    vxk_voxel_manifolds out[4];
    for (int f = 0; f < 4; ++f) {
        if (f < 3 && check_raw(ref, A, B, margin, flags[f], map, pairs, pair_cap))
            return 1;
        vxk_collide_voxels(&out[f], scratch, &A->view, &B->view, margin, flags[f]);
    }
    if (same_manifolds(&out[0], &out[1]) || same_manifolds(&out[0], &out[2]) ||
        same_manifolds(&out[0], &out[3]))
        return 1;
    VXK_CHECK(same_as_all_pairs(A, B, margin) == 0);
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
    // Configurations with pairs by kind, and with unequal voxels by ratio (larger / smaller:
    // 2, 4, 10, other).
    int kinds[KIND_COUNT] = {0}, touching[KIND_COUNT] = {0}, unequal[4] = {0};
    static const int kind_of[20] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 4};
    for (int i = 0; i < configs; ++i) {
        config c;
        int kind = kind_of[vxk_test_rand(&rng) % 20];
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
            if (!order && ref.count > 0) {
                with_pairs++;
                total_pairs += ref.count;
                touching[kind]++;
                double ratio = fmax(c.a.ref.s, c.b.ref.s) / fmin(c.a.ref.s, c.b.ref.s);
                if (ratio > 1.0 + 1e-6)
                    unequal[fabs(ratio - 2) < 1e-3    ? 0
                            : fabs(ratio - 4) < 1e-3  ? 1
                            : fabs(ratio - 10) < 1e-3 ? 2
                                                      : 3]++;
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
    fprintf(
        stderr,
        "  %d configurations (turned, stacked, terrain, far, resting: %d %d %d %d %d; with pairs "
        "%d %d %d %d %d), %ld with pairs, %ld pairs; unequal voxels with pairs: 1:2 %d, 1:4 "
        "%d, 1:10 %d, other %d; %ld areas: %ld by a point, %ld under a support polygon, %ld "
        "left for depth, %ld for room\n",
        configs, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], touching[0], touching[1],
        touching[2], touching[3], touching[4], with_pairs, total_pairs, unequal[0], unequal[1],
        unequal[2], unequal[3], stats.regions, stats.by_point, stats.by_hull, stats.by_depth,
        stats.by_room);
    // The generator must reach every case, or the test would check little.
    VXK_CHECK(with_pairs > configs / 3 && with_pairs < configs);
    VXK_CHECK(stats.regions > configs / 3);
    VXK_CHECK(touching[KIND_STACKED] > configs / 20 && touching[KIND_RESTING] > configs / 20);
    for (int r = 0; r < 4; ++r)
        VXK_CHECK_MSG(unequal[r] > configs / 40, "ratio class %d: %d configurations", r,
                      unequal[r]);
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
// edge's two end voxels are Corners, touching the Face voxels below them with their cubes' bottom
// edges (the Edge voxels between them do not test Face voxels): 2 points, normal +y, separation 0,
// each at the middle of its voxel's bottom edge. Turned about y as well, the edge runs across the
// slab's voxels: its points stay on the edge.
static int test_voxels_edge_on(void)
{
    vxk_voxel_view a, b;
    const float r2 = 1.41421356f;
    if (box_view(&a, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 4, 2, 2, 1.0f, vxk_v3(0, -1, -1), at(1, 2.0f + r2, 2.5f)))
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
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 2, ends, raised, 1e-4f))
        return 1;
    b.pose.p.y += 0.15f;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &a, &b, 0.1f, 0), 0);
    // Turned -0.4 rad about y too: each end voxel's bottom edge crosses two or three slab voxels,
    // a pair each; every point lies on the edge line, within its voxel's end of it.
    b.pose.p = vxk_v3(1.2f, 2.0f + r2, 1.3f);
    b.pose.q = vxk_quat_mul(vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), -0.4f),
                            vxk_quat_from_axis_angle(vxk_v3(1, 0, 0), 0.78539816f));
    vxk_voxel_pair pairs[16];
    uint32_t n = vxk_voxel_pairs(pairs, 16, &a, &b, 0.1f, 0);
    VXK_CHECK_MSG(n >= 4 && n <= 6, "%u pairs", n);
    vxk_vec3 dir = vxk_quat_rotate(b.pose.q, vxk_v3(1, 0, 0));
    for (uint32_t i = 0; i < n; ++i) {
        const vxk_voxel_pair* p = &pairs[i];
        VXK_CHECK(vxk_v3_length(vxk_v3_sub(p->face_normal, vxk_v3(0, 1, 0))) < 1e-5f);
        VXK_CHECK(fabsf(p->face_separation) < 1e-4f);
        // Along the edge from the box's origin corner: within the end voxel's unit.
        vxk_vec3 rel = vxk_v3_sub(p->face_point, vxk_v3(b.pose.p.x, 2.0f, b.pose.p.z));
        float t = vxk_v3_dot(rel, dir);
        vxk_vec3 off = vxk_v3_mul_add(rel, -t, dir);
        VXK_CHECK_MSG(vxk_v3_length(off) < 1e-4f, "point %g off the edge", vxk_v3_length(off));
        float unit = p->voxel_b.x == 0 ? t : t - 3.0f;
        VXK_CHECK(unit >= -1e-4f && unit <= 1.0f + 1e-4f);
    }
    vxk_voxel_view_destroy(&a);
    vxk_voxel_view_destroy(&b);
    return 0;
}

// A 3x3x3 cube turned so that its (-1,-1,-1) corner points down rests on that corner voxel's
// vertex: one point, normal +y (the slab's face), separation 0.
static int test_voxels_corner_on(void)
{
    vxk_voxel_view a, b;
    const float r3 = 1.7320508f;
    if (box_view(&a, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 3, 3, 3, 1.0f, vxk_v3(-1.5f, -1.5f, -1.5f), at(2.5f, 2.0f + 1.5f * r3, 2.5f)))
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

// Unequal voxels. An 8x2x8 box of 0.1 m voxels rests on a 6x2x6 slab of 1 m voxels, its corners
// over the slab's voxels away from their centres: one manifold, normal +y, its 4 points at the
// middles of the corner voxels' bottom faces, separation the gap (0, within the margin, none
// beyond). Spheres of 0.05 m would pair none of them until sunk 0.4 m. A corner voxel over the
// line between two slab voxels pairs with both, each point at the middle of its part. Then the
// shapes swapped in size: a 2x1x2 box of 1 m voxels on a 40x2x40 slab of 0.1 m voxels rests on the
// small voxels under its corner voxels, the outermost at its footprint's corners inset by 0.05.
static int test_voxels_unequal(void)
{
    vxk_voxel_view slab, body;
    const float margin = 0.01f;
    if (box_view(&slab, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&body, 8, 2, 8, 0.1f, vxk_v3(0, 0, 0), at(1.33f, 2.0f, 2.11f)))
        return 1;
    const float gaps[3] = {0.0f, 0.5f * margin, 2.0f * margin};
    const vxk_vec3 corners[4] = {
        {1.38f, 2.0f, 2.16f}, {2.08f, 2.0f, 2.16f}, {1.38f, 2.0f, 2.86f}, {2.08f, 2.0f, 2.86f}};
    for (int g = 0; g < 3; ++g) {
        body.pose.p.y = 2.0f + gaps[g];
        vxk_voxel_manifolds out;
        uint32_t count = vxk_collide_voxels(&out, &g_scratch, &slab, &body, margin, 0);
        if (g == 2) {
            VXK_CHECK_EQ_U64(count, 0);
            continue;
        }
        VXK_CHECK_EQ_U64(count, 1);
        const float seps[4] = {gaps[g], gaps[g], gaps[g], gaps[g]};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, corners, seps, 1e-5f))
            return 1;
        // Both orders: B's face points moved onto the body's bottom.
        VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &body, &slab, margin, 0), 1);
        vxk_vec3 up[4];
        for (int i = 0; i < 4; ++i)
            up[i] = vxk_v3(corners[i].x, 2.0f + gaps[g], corners[i].z);
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, -1, 0), 4, up, seps, 1e-5f))
            return 1;
    }
    // The body moved so that its x = 0 corners straddle x = 2 (from 1.97 to 2.07): 2 pairs each.
    body.pose.p = vxk_v3(1.97f, 2.003f, 2.11f);
    vxk_voxel_pair pairs[16];
    uint32_t n = vxk_voxel_pairs(pairs, 16, &slab, &body, margin, 0);
    VXK_CHECK_EQ_U64(n, 6);
    int straddling = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const vxk_voxel_pair* p = &pairs[i];
        VXK_CHECK(fabsf(p->face_separation - 0.003f) < 1e-5f);
        VXK_CHECK(fabsf(p->face_point.y - 2.0f) < 1e-5f);
        if (p->voxel_b.x != 0)
            continue;
        straddling++;
        float expect = p->voxel_a.x == 1 ? 1.985f : 2.035f;
        VXK_CHECK_MSG(fabsf(p->face_point.x - expect) < 1e-5f, "point x %g, expected %g",
                      p->face_point.x, expect);
    }
    VXK_CHECK_EQ_INT(straddling, 4);
    vxk_voxel_view_destroy(&slab);
    vxk_voxel_view_destroy(&body);
    // A large-voxel box on small voxels.
    vxk_voxel_view fine, crate;
    if (box_view(&fine, 40, 2, 40, 0.1f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&crate, 2, 1, 2, 1.0f, vxk_v3(0, 0, 0), at(1.0f, 0.2f, 1.5f)))
        return 1;
    const vxk_vec3 footprint[4] = {
        {1.05f, 0.2f, 1.55f}, {2.95f, 0.2f, 1.55f}, {1.05f, 0.2f, 3.45f}, {2.95f, 0.2f, 3.45f}};
    const float zeros[4] = {0, 0, 0, 0};
    vxk_voxel_manifolds out;
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &fine, &crate, margin, 0), 1);
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, footprint, zeros, 1e-5f))
        return 1;
    // Every small voxel under the crate pairs with the crate voxel above it (Corners, all four).
    VXK_CHECK_EQ_U64(vxk_voxel_pairs(NULL, 0, &fine, &crate, margin, 0), 400);
    vxk_voxel_view_destroy(&fine);
    vxk_voxel_view_destroy(&crate);
    return 0;
}

// A 0.1 m voxel turned 0.5 rad about z over a 1 m slab: its lowest edge (along z) is its support;
// touching the slab at x = 2.3, it makes one point there, on the edge's middle.
static int test_voxels_tilted_small(void)
{
    vxk_voxel_view slab, bit;
    if (box_view(&slab, 6, 2, 6, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&bit, 1, 1, 1, 0.1f, vxk_v3(-0.05f, -0.05f, -0.05f), at(0, 0, 0)))
        return 1;
    const float angle = 0.5f, c = cosf(angle), s = sinf(angle);
    // The lowest edge is at the centre - 0.05 (x' + y') with x' = (c, s, 0), y' = (-s, c, 0).
    vxk_vec3 below = {-0.05f * (c - s), -0.05f * (s + c), 0.0f};
    bit.pose.q = vxk_quat_from_axis_angle(vxk_v3(0, 0, 1), angle);
    for (int g = 0; g < 2; ++g) {
        float gap = g ? 0.004f : 0.0f;
        bit.pose.p = vxk_v3(2.3f - below.x, 2.0f + gap - below.y, 1.5f);
        vxk_voxel_manifolds out;
        VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &slab, &bit, 0.01f, 0), 1);
        const vxk_vec3 p = {2.3f, 2.0f, 1.5f};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &p, &gap, 1e-5f))
            return 1;
    }
    vxk_voxel_view_destroy(&slab);
    vxk_voxel_view_destroy(&bit);
    return 0;
}

// A 0.5 m voxel sunk into a 7^3 cube of 1 m voxels, 0.3 m off the centre voxel's centre along
// x: it overlaps the centre voxel (Inside, exit +x: every cardinal exit is 4 away, the lowest
// index wins) and its +x neighbour (Inside, exit +x at 3), and no other (it lies inside one
// layer along y and z). Each pair is one voxel (1 m) deep: separation -1, normal +x, its point
// half a voxel out of the Inside voxel along the exit: x = 4 and x = 5. Both lie on one line along
// the normal, so the manifold keeps one of them (the lower voxel key: x = 4). A 1 m voxel there
// would also touch the faces of the Inside voxels around those two, and pair with them.
static int test_voxels_deep(void)
{
    vxk_voxel_view a, b;
    if (box_view(&a, 7, 7, 7, 1.0f, vxk_v3(0, 0, 0), at(0, 0, 0)) ||
        box_view(&b, 1, 1, 1, 0.5f, vxk_v3(-0.25f, -0.25f, -0.25f), at(3.8f, 3.5f, 3.5f)))
        return 1;
    vxk_voxel_pair pairs[4];
    VXK_CHECK_EQ_U64(vxk_voxel_pairs(pairs, 4, &a, &b, 0.0f, 0), 2);
    for (int i = 0; i < 2; ++i) {
        const vxk_voxel_pair* p = &pairs[i];
        VXK_CHECK(p->voxel_a.x == 3 || p->voxel_a.x == 4);
        VXK_CHECK(p->voxel_a.y == 3 && p->voxel_a.z == 3);
        VXK_CHECK(vxk_v3_length(vxk_v3_sub(p->normal, vxk_v3(1, 0, 0))) < 1e-6f);
        VXK_CHECK(vxk_v3_length(vxk_v3_sub(p->face_normal, vxk_v3(1, 0, 0))) < 1e-6f);
        VXK_CHECK(fabsf(p->face_separation + 1.0f) < 1e-6f);
        VXK_CHECK(fabsf(p->face_point.x - (float)p->voxel_a.x - 1.0f) < 1e-5f);
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
    // The 1 m voxel: the two, and the eight Inside voxels whose faces it touches (each pushing
    // out along its own exit).
    vxk_voxel_view_destroy(&b);
    if (box_view(&b, 1, 1, 1, 1.0f, vxk_v3(-0.5f, -0.5f, -0.5f), at(3.8f, 3.5f, 3.5f)))
        return 1;
    VXK_CHECK_EQ_U64(vxk_voxel_pairs(NULL, 0, &a, &b, 0.0f, 0), 10);
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
                                                  vxk_v3(1.7f, 2.5f + gaps[g], 1.3f), r, margin, 0),
                         1);
        const vxk_vec3 p = {1.7f, 2.0f, 1.3f};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &p, &gaps[g], 1e-5f))
            return 1;
    }
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(2.0f, 2.5f, 2.0f), r, margin, 0), 1);
    const vxk_vec3 seam = {2.0f, 2.0f, 2.0f};
    const float zero = 0.0f;
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &seam, &zero, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(1.7f, 2.7f, 1.3f), r, margin, 0), 0);
    const float h = 0.70710678f, t = 0.57735027f;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(4.3f, 2.3f, 1.5f), r, margin, 0), 1);
    const vxk_vec3 edge = {4.0f, 2.0f, 1.5f};
    const float edge_sep = 0.3f * 1.41421356f - r;
    if (expect_manifold(&out.manifolds[0], vxk_v3(h, h, 0), 1, &edge, &edge_sep, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &a, vxk_v3(4.3f, 2.3f, 4.3f), r, margin, 0), 1);
    const vxk_vec3 corner = {4.0f, 2.0f, 4.0f};
    const float corner_sep = 0.3f * 1.73205081f - r;
    if (expect_manifold(&out.manifolds[0], vxk_v3(t, t, t), 1, &corner, &corner_sep, 1e-5f))
        return 1;
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &cube, vxk_v3(3.6f, 3.5f, 3.5f), r, margin, 0),
        1);
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
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &flat, margin, 0), 1);
    const vxk_vec3 big[4] = {
        {1.8f, 2.0f, 1.8f}, {2.8f, 2.0f, 1.8f}, {1.8f, 2.0f, 2.8f}, {2.8f, 2.0f, 2.8f}};
    const float zeros[4] = {0, 0, 0, 0};
    if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, big, zeros, 1e-4f))
        return 1;
    const float gaps[2] = {0.0f, 0.05f};
    for (int g = 0; g < 2; ++g) {
        const float seps[4] = {gaps[g], gaps[g], gaps[g], gaps[g]};
        vxk_obb small = {{2.5f, 2.2f + gaps[g], 2.5f}, identity, {0.2f, 0.2f, 0.2f}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &small, margin, 0), 1);
        const vxk_vec3 little[4] = {
            {2.3f, 2.0f, 2.3f}, {2.7f, 2.0f, 2.3f}, {2.3f, 2.0f, 2.7f}, {2.7f, 2.0f, 2.7f}};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 4, little, seps, 1e-4f))
            return 1;
        vxk_obb edge = {{2.5f, 2.0f + 0.70710678f + gaps[g], 2.5f},
                        vxk_mat3_from_quat(vxk_quat_from_axis_angle(vxk_v3(1, 0, 0), 0.78539816f)),
                        {0.5f, 0.5f, 0.5f}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &edge, margin, 0), 1);
        const vxk_vec3 ends[2] = {{2.0f, 2.0f, 2.5f}, {3.0f, 2.0f, 2.5f}};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 2, ends, seps, 1e-4f))
            return 1;
        const float r3 = 1.7320508f;
        vxk_obb tip = {
            {2.5f, 2.0f + 0.5f * r3 + gaps[g], 2.5f},
            vxk_mat3_from_quat(vxk_quat_from_axis_angle(vxk_v3(-1, 0, 1), acosf(1.0f / r3))),
            {0.5f, 0.5f, 0.5f}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &tip, margin, 0), 1);
        const vxk_vec3 vertex = {2.5f, 2.0f, 2.5f};
        if (expect_manifold(&out.manifolds[0], vxk_v3(0, 1, 0), 1, &vertex, seps, 1e-4f))
            return 1;
    }
    vxk_obb above = {{2.3f, 2.7f, 2.3f}, identity, {0.5f, 0.5f, 0.5f}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &a, &above, margin, 0), 0);
    vxk_obb inside = {{3.5f, 3.5f, 3.5f}, identity, {0.2f, 0.2f, 0.2f}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &cube, &inside, margin, 0), 1);
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
        vxk_voxel_manifolds out, all;
        uint32_t n =
            vxk_collide_voxel_sphere(&out, &g_scratch, &body.view, centre, radius, margin, 0);
        // The culled walk finds what every exposed face in the sphere's box finds, bit for bit.
        vxk_collide_voxel_sphere(&all, &g_scratch, &body.view, centre, radius, margin,
                                 VXK_VOXEL_ALL_FACES);
        VXK_CHECK_MSG(same_manifolds(&out, &all) == 0, "round %d: culled walk differs", round);
        double local[3];
        r_to_grid(r, centre, local);
        double dist = r_union_distance(r, local);
        if (dist == 0.0) {
            shape_free(&body);
            continue;
        }
        double tol = 2e-5 * (1.0 + fabs(centre.x) + fabs(centre.y) + fabs(centre.z)) + 1e-5;
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
        vxk_voxel_manifolds out, all;
        uint32_t n = vxk_collide_voxel_box(&out, &g_scratch, &body.view, &box, margin, 0);
        // The culled walk finds what every exposed face in the box's bounds finds, bit for bit.
        vxk_collide_voxel_box(&all, &g_scratch, &body.view, &box, margin, VXK_VOXEL_ALL_FACES);
        VXK_CHECK_MSG(same_manifolds(&out, &all) == 0, "round %d: culled walk differs", round);
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
            vxk_collide_voxel_sphere(&out, &g_scratch, a, t.p, 0.5f * size, margin, 0);
        } else {
            vxk_obb box = {t.p, vxk_mat3_from_quat(t.q),
                           vxk_v3(0.5f * size, 0.5f * size, 0.5f * size)};
            vxk_collide_voxel_box(&out, &g_scratch, a, &box, margin, 0);
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
// exposure bytes, Corner, Edge, Face and Inside rows, active box (all checked against the
// reference's typing inside the border); regions placed at every offset from the chunk grid.
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
        VXK_CHECK(memcmp(chunks.face, flat.face, rows * 8) == 0);
        VXK_CHECK(memcmp(chunks.inside, flat.inside, rows * 8) == 0);
        VXK_CHECK(memcmp(chunks.types, flat.types, cells) == 0);
        VXK_CHECK(memcmp(chunks.open, flat.open, cells) == 0);
        VXK_CHECK(memcmp(&chunks.active, &flat.active, sizeof(vxk_int_box)) == 0);
        // The types inside the border against the reference's counting.
        rshape r;
        memset(&r, 0, sizeof(r));
        r.n[0] = size.x, r.n[1] = size.y, r.n[2] = size.z;
        r.occ = dense;
        r.region = 1;
        r_type(&r);
        for (int i = 0; i < 3; ++i) {
            r.lo[i] = 1;
            r.hi[i] = r.n[i] - 2;
        }
        VXK_CHECK_EQ_INT(check_view_rows(&flat, &r), 0);
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

// Regions at the ends of the int32 voxel range (a side at INT32_MIN or ending at INT32_MAX) have
// no border there: their voxels on that side are typed as if the cells past the range were
// empty, and make contacts. Against a reference region one cell larger on that side whose extra
// layer is empty (a plain border), over random content along each axis at each end: the same
// rows, types, open faces, Inside exits and active box, moved by the one cell.
static int test_region_int32_ends(void)
{
    uint64_t rng = vxk_test_seed(0x1E7D5);
    for (int round = 0; round < 24; ++round) {
        const int axis = round % 3, low = (round / 3) % 2;
        int32_t n[3] = {3 + (int)(vxk_test_rand(&rng) % 12), 3 + (int)(vxk_test_rand(&rng) % 12),
                        3 + (int)(vxk_test_rand(&rng) % 12)};
        int32_t m[3] = {(int)(vxk_test_rand(&rng) % 64) - 32, (int)(vxk_test_rand(&rng) % 64) - 32,
                        (int)(vxk_test_rand(&rng) % 64) - 32};
        m[axis] = low ? INT32_MIN : INT32_MAX - (n[axis] - 1);
        int32_t rn[3] = {n[0], n[1], n[2]}, rm[3] = {m[0], m[1], m[2]};
        rn[axis] += 1;
        rm[axis] = 100;                    // the reference, away from the ends
        const int32_t shift = low ? 1 : 0; // edge cell i is reference cell i + shift
        vxk_int3 size = {n[0], n[1], n[2]}, rsize = {rn[0], rn[1], rn[2]};
        size_t cells = (size_t)n[0] * n[1] * n[2], rcells = (size_t)rn[0] * rn[1] * rn[2];
        uint8_t* dense = (uint8_t*)calloc(cells, 1);
        uint8_t* rdense = (uint8_t*)calloc(rcells, 1);
        for (int32_t y = 0; y < n[1]; ++y)
            for (int32_t z = 0; z < n[2]; ++z)
                for (int32_t x = 0; x < n[0]; ++x) {
                    uint8_t v = vxk_test_rand(&rng) % 5 != 0;
                    int32_t r[3] = {x, y, z};
                    r[axis] += shift;
                    dense[x + n[0] * (z + n[2] * y)] = v;
                    rdense[r[0] + rn[0] * (r[2] + rn[2] * r[1])] = v;
                }
        size_t bytes = vxk_voxel_view_storage_bytes(size),
               rbytes = vxk_voxel_view_storage_bytes(rsize);
        void* s1 = malloc(bytes);
        void* s2 = malloc(rbytes);
        vxk_voxel_view edge, ref;
        VXK_CHECK_EQ_INT(vxk_voxel_view_region_dense(&edge, s1, bytes, (vxk_int3){m[0], m[1], m[2]},
                                                     size, 1.0f, dense),
                         VXK_OK);
        VXK_CHECK_EQ_INT(vxk_voxel_view_region_dense(&ref, s2, rbytes,
                                                     (vxk_int3){rm[0], rm[1], rm[2]}, rsize, 1.0f,
                                                     rdense),
                         VXK_OK);
        // The edge region's typed cells: its border's but on the end's side.
        int32_t lo[3] = {1, 1, 1}, hi[3] = {n[0] - 2, n[1] - 2, n[2] - 2};
        if (low)
            lo[axis] = 0;
        else
            hi[axis] = n[axis] - 1;
        uint32_t typed = 0;
        for (int32_t y = 0; y < n[1]; ++y)
            for (int32_t z = 0; z < n[2]; ++z)
                for (int32_t x = 0; x < n[0]; ++x) {
                    int32_t r[3] = {x, y, z};
                    r[axis] += shift;
                    size_t i = (size_t)x + n[0] * ((size_t)z + n[2] * y);
                    size_t j = (size_t)r[0] + rn[0] * ((size_t)r[2] + rn[2] * r[1]);
                    bool inner = x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] &&
                                 z >= lo[2] && z <= hi[2];
                    uint8_t want = inner ? ref.types[j] : VXK_VOXEL_BYTE_EMPTY;
                    VXK_CHECK_MSG(edge.types[i] == want &&
                                      edge.open[i] == (inner ? ref.open[j] : 0),
                                  "axis %d %s end, cell (%d, %d, %d): type %02x open %02x, "
                                  "reference %02x %02x",
                                  axis, low ? "low" : "high", x, y, z, edge.types[i], edge.open[i],
                                  want, inner ? ref.open[j] : 0);
                    typed += inner && dense[i];
                    const int kinds = 4;
                    const uint64_t* rows[2][4] = {{edge.corner, edge.edge, edge.face, edge.inside},
                                                  {ref.corner, ref.edge, ref.face, ref.inside}};
                    for (int k = 0; k < kinds; ++k) {
                        uint64_t a =
                            rows[0][k][((size_t)y * n[2] + z) * edge.words + (x >> 6)] >> (x & 63);
                        uint64_t b =
                            rows[1][k][((size_t)r[1] * rn[2] + r[2]) * ref.words + (r[0] >> 6)] >>
                            (r[0] & 63);
                        VXK_CHECK_EQ_INT((int)(a & 1u), inner ? (int)(b & 1u) : 0);
                    }
                    if (inner && dense[i] && vxk_voxel_type_of(edge.types[i]) == VXK_VOXEL_INSIDE)
                        VXK_CHECK_EQ_INT(
                            vxk_voxel_lookup_index(&edge, edge.types[i], (vxk_int3){x, y, z}),
                            vxk_voxel_lookup_index(&ref, ref.types[j],
                                                   (vxk_int3){r[0], r[1], r[2]}));
                }
        int32_t amin[3] = {edge.active.min.x, edge.active.min.y, edge.active.min.z};
        int32_t amax[3] = {edge.active.max.x, edge.active.max.y, edge.active.max.z};
        int32_t rmin[3] = {ref.active.min.x, ref.active.min.y, ref.active.min.z};
        int32_t rmax[3] = {ref.active.max.x, ref.active.max.y, ref.active.max.z};
        if (typed) {
            amin[axis] += shift;
            amax[axis] += shift;
            for (int k = 0; k < 3; ++k)
                VXK_CHECK(amin[k] == rmin[k] && amax[k] == rmax[k]);
        }
        free(dense);
        free(rdense);
        free(s1);
        free(s2);
    }
    // Sizes: one border needs 2 cells, none past the range.
    static uint64_t storage[64];
    vxk_voxel_view v;
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, sizeof(storage),
                                                 (vxk_int3){INT32_MIN, 0, 0}, (vxk_int3){2, 3, 3},
                                                 1.0f),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, sizeof(storage),
                                                 (vxk_int3){0, INT32_MAX - 1, 0},
                                                 (vxk_int3){3, 2, 3}, 1.0f),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, sizeof(storage),
                                                 (vxk_int3){INT32_MIN, 0, 0}, (vxk_int3){1, 3, 3},
                                                 1.0f),
                     VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_voxel_view_region_begin(&v, storage, sizeof(storage),
                                                 (vxk_int3){0, 0, INT32_MAX - 1},
                                                 (vxk_int3){3, 3, 3}, 1.0f),
                     VXK_ERR_OUT_OF_RANGE);
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
    VXK_CHECK_EQ_U64(vxk_collide_voxel_sphere(&out, &g_scratch, &e, zero, 1.0f, 1.0f, 0), 0);
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
        VXK_CHECK_EQ_U64(vxk_collide_voxel_sphere(&out, &g_scratch, &full,
                                                  vxk_v3(special_float(k), 0, 0), 1, 0, 0),
                         0);
        VXK_CHECK_EQ_U64(vxk_collide_voxel_sphere(&out, &g_scratch, &full, vxk_v3(1, 1, 1),
                                                  special_float(k), 0, 0),
                         0);
        vxk_obb box = {{3, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {1, special_float(k), 1}};
        VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &full, &box, 0.0f, 0), 0);
    }
    vxk_voxel_view zero_q = other;
    zero_q.pose.q = (vxk_quat){0, 0, 0, 0};
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &zero_q, 0.0f, 0), 0);
    // A negative margin counts as 0: the touching faces still touch.
    VXK_CHECK_EQ_U64(vxk_collide_voxels(&out, &g_scratch, &full, &other, -1.0f, 0), 1);
    VXK_CHECK_EQ_U64(
        vxk_collide_voxel_sphere(&out, &g_scratch, &full, vxk_v3(1, 1, 1), -1.0f, 0, 0), 0);
    vxk_obb negative = {{3, 1, 1}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {1, -1, 1}};
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &full, &negative, 0.0f, 0), 0);
    VXK_CHECK_EQ_U64(vxk_collide_voxel_box(&out, &g_scratch, &full, NULL, 0.0f, 0), 0);
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
    VXK_RUN(test_voxels_unequal);
    VXK_RUN(test_voxels_tilted_small);
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
    VXK_RUN(test_region_int32_ends);
    VXK_RUN(test_bad_input);
    vxk_edge_tests_end();
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_view_out_of_memory);
    vxk_oom_tests_end();
    return vxk_test_finish();
}
