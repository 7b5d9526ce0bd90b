// phase_simd.c: throughput of the SIMD kernels of simd/ (bit rows, 8 rays vs a box, a ray vs
// 8 triangles or quads, a ray vs a quantized leaf of 6 quads) and their speedup over the scalar
// twins, which are compiled without auto-vectorization (VXK_SCALAR_TWIN), so the comparison is SIMD
// against one lane at a time.
//
// Single-threaded by design: these are per-core kernel figures, data sized to stay in L1.
#include "bench.h"

#include <core.h>
#include <vxk/simd.h>
#include <vxk/kdtree16.h>
#include <vxk/simd_kernels.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SIMD_BENCH_ROWS 1024  // 8 KiB per bit-row array: three arrays stay in L1
#define SIMD_BENCH_PACKETS 64 // ray packets (ray8) or single rays (tri8)
#define SIMD_BENCH_BOXES 64   // boxes, or triangle/quad packets
#define SIMD_BENCH_SAMPLES_MAX 7
#define SIMD_BENCH_LEAF 6 // quads per quantized leaf (VXK_KD16_QUAD_LEAF_MAX)

typedef struct simd_bench_data {
    uint64_t a[SIMD_BENCH_ROWS], b[SIMD_BENCH_ROWS], dst[SIMD_BENCH_ROWS];
    uint64_t zeros[SIMD_BENCH_ROWS];
    vxk_ray8 packets[SIMD_BENCH_PACKETS];
    float box_min[SIMD_BENCH_BOXES][3], box_max[SIMD_BENCH_BOXES][3];
    vxk_simd_ray rays[SIMD_BENCH_PACKETS];
    vxk_tri8 tris[SIMD_BENCH_BOXES];
    uint16_t qrows[SIMD_BENCH_BOXES][9 * SIMD_BENCH_LEAF + 8]; // 8 to spare for the row loads
} simd_bench_data;

typedef enum simd_kernel {
    K_OR,
    K_AND,
    K_ANDNOT,
    K_SHL,
    K_SHR,
    K_DILATE3,
    K_ANY,
    K_AABB8,
    K_TRI8,
    K_QUAD8,
    K_QQUAD8,
    K_COUNT
} simd_kernel;

static const char* const kernel_names[K_COUNT] = {
    "bits_or",  "bits_and",  "bits_andnot", "bits_shl",  "bits_shr",   "bits_dilate3",
    "bits_any", "ray_aabb8", "ray_tri8",    "ray_quad8", "ray_qquad8",
};

// Bytes touched per row (reads + writes) for the bit kernels.
static const double kernel_row_bytes[K_COUNT] = {24, 24, 24, 16, 16, 16, 8, 0, 0, 0, 0};

static float randf(uint64_t* s, float lo, float hi)
{
    return lo + (hi - lo) * (float)((vxk_splitmix64(s) >> 40) * (1.0 / 16777216.0));
}

static void fill(simd_bench_data* d, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < SIMD_BENCH_ROWS; ++i) {
        d->a[i] = vxk_splitmix64(&s);
        d->b[i] = vxk_splitmix64(&s);
        d->zeros[i] = 0;
    }
    for (int p = 0; p < SIMD_BENCH_PACKETS; ++p) {
        for (uint32_t lane = 0; lane < 8; ++lane) {
            float o[3], dir[3];
            for (int k = 0; k < 3; ++k) {
                o[k] = randf(&s, -20.0f, 20.0f);
                dir[k] = randf(&s, -20.0f, 20.0f) - o[k];
            }
            vxk_ray8_set(&d->packets[p], lane, o, dir, 0.0f, INFINITY);
        }
        for (int k = 0; k < 3; ++k) {
            d->rays[p].o[k] = randf(&s, -20.0f, 20.0f);
            d->rays[p].d[k] = randf(&s, -10.0f, 10.0f) - d->rays[p].o[k];
        }
        d->rays[p].tmin = 0.0f;
        d->rays[p].tmax = INFINITY;
    }
    for (int i = 0; i < SIMD_BENCH_BOXES; ++i) {
        for (int k = 0; k < 3; ++k) {
            d->box_min[i][k] = randf(&s, -10.0f, 8.0f);
            d->box_max[i][k] = d->box_min[i][k] + randf(&s, 0.5f, 6.0f);
        }
        vxk_tri8* t = &d->tris[i];
        for (int lane = 0; lane < 8; ++lane) {
            t->v0x[lane] = randf(&s, -10.0f, 10.0f);
            t->v0y[lane] = randf(&s, -10.0f, 10.0f);
            t->v0z[lane] = randf(&s, -10.0f, 10.0f);
            t->e1x[lane] = randf(&s, -8.0f, 8.0f);
            t->e1y[lane] = randf(&s, -8.0f, 8.0f);
            t->e1z[lane] = randf(&s, -8.0f, 8.0f);
            t->e2x[lane] = randf(&s, -8.0f, 8.0f);
            t->e2y[lane] = randf(&s, -8.0f, 8.0f);
            t->e2z[lane] = randf(&s, -8.0f, 8.0f);
        }
        // voxel faces on a 1/16 grid: v0, then v1 and v3 along the two axes of a random normal
        uint16_t* q = d->qrows[i];
        memset(q, 0, sizeof(d->qrows[i]));
        for (int k = 0; k < SIMD_BENCH_LEAF; ++k) {
            int axis = (int)(vxk_splitmix64(&s) % 3), u = (axis + 1) % 3, v = (axis + 2) % 3;
            uint16_t p0[3];
            for (int a = 0; a < 3; ++a)
                p0[a] = (uint16_t)(vxk_splitmix64(&s) % 256);
            for (int c = 0; c < 3; ++c)
                for (int a = 0; a < 3; ++a)
                    q[(3 * c + a) * SIMD_BENCH_LEAF + k] = p0[a];
            q[(3 + u) * SIMD_BENCH_LEAF + k] += (uint16_t)(16 + vxk_splitmix64(&s) % 64);
            q[(6 + v) * SIMD_BENCH_LEAF + k] += (uint16_t)(16 + vxk_splitmix64(&s) % 64);
        }
    }
}

// Runs kernel k (SIMD or twin) reps times; returns a digest of its results. Items per run:
// rows for bit kernels, rays (ray_aabb8) or ray-primitive tests (ray_tri8/quad8).
static uint64_t run_kernel(simd_bench_data* d, simd_kernel k, bool twin, int reps, double* items)
{
    uint64_t acc = 0;
    const size_t n = SIMD_BENCH_ROWS;
    for (int r = 0; r < reps; ++r) {
        switch (k) {
        case K_OR: (twin ? vxk_bits_or_scalar : vxk_bits_or)(d->dst, d->a, d->b, n); break;
        case K_AND: (twin ? vxk_bits_and_scalar : vxk_bits_and)(d->dst, d->a, d->b, n); break;
        case K_ANDNOT:
            (twin ? vxk_bits_andnot_scalar : vxk_bits_andnot)(d->dst, d->a, d->b, n);
            break;
        case K_SHL:
            (twin ? vxk_bits_shl_scalar : vxk_bits_shl)(d->dst, d->a, n, (uint32_t)(r & 63));
            break;
        case K_SHR:
            (twin ? vxk_bits_shr_scalar : vxk_bits_shr)(d->dst, d->a, n, (uint32_t)(r & 63));
            break;
        case K_DILATE3: (twin ? vxk_bits_dilate3_scalar : vxk_bits_dilate3)(d->dst, d->a, n); break;
        case K_ANY: // all zeros: the whole array is scanned
            acc += (twin ? vxk_bits_any_scalar : vxk_bits_any)(d->zeros, n);
            break;
        case K_AABB8:
            for (int p = 0; p < SIMD_BENCH_PACKETS; ++p) {
                for (int i = 0; i < SIMD_BENCH_BOXES; ++i) {
                    float t[8];
                    acc += (twin ? vxk_ray8_aabb_scalar
                                 : vxk_ray8_aabb)(&d->packets[p], d->box_min[i], d->box_max[i], t);
                }
            }
            break;
        case K_TRI8:
        case K_QUAD8:
            for (int p = 0; p < SIMD_BENCH_PACKETS; ++p) {
                for (int i = 0; i < SIMD_BENCH_BOXES; ++i) {
                    vxk_hit8 h;
                    uint32_t m;
                    if (k == K_TRI8)
                        m = (twin ? vxk_ray_tri8_scalar : vxk_ray_tri8)(&d->rays[p], &d->tris[i],
                                                                        &h);
                    else
                        m = (twin ? vxk_ray_quad8_scalar : vxk_ray_quad8)(&d->rays[p], &d->tris[i],
                                                                          &h);
                    acc += m;
                }
            }
            break;
        case K_QQUAD8: {
            const float origin[3] = {-8.0f, -8.0f, -8.0f}, step[3] = {0.0625f, 0.0625f, 0.0625f};
            for (int p = 0; p < SIMD_BENCH_PACKETS; ++p) {
                for (int i = 0; i < SIMD_BENCH_BOXES; ++i) {
                    vxk_hit8 h;
                    acc += (twin ? vxk_ray_qquad8_scalar
                                 : vxk_ray_qquad8)(&d->rays[p], d->qrows[i], SIMD_BENCH_LEAF,
                                                   SIMD_BENCH_LEAF, origin, step, &h);
                }
            }
            break;
        }
        default: break;
        }
        if (k <= K_DILATE3)
            acc += d->dst[(size_t)r % n];
    }
    double per_test = k == K_QQUAD8 ? SIMD_BENCH_LEAF : 8.0;
    *items =
        (double)reps * (k <= K_ANY ? (double)n : per_test * SIMD_BENCH_PACKETS * SIMD_BENCH_BOXES);
    return acc;
}

// Median seconds of `samples` runs of the SIMD kernel and of its twin, interleaved so that
// load from other processes falls on both alike; folds the results into the bench hash.
static void time_kernel(vxk_bench* b, simd_bench_data* d, simd_kernel k, int reps, int samples,
                        double* items, double* simd_s, double* twin_s)
{
    double simd_times[SIMD_BENCH_SAMPLES_MAX], twin_times[SIMD_BENCH_SAMPLES_MAX];
    uint64_t digest[2] = {0, 0};
    for (int i = 0; i < samples; ++i) {
        for (int twin = 0; twin < 2; ++twin) {
            double t0 = vxk_bench_now();
            digest[twin] = run_kernel(d, k, twin != 0, reps, items);
            (twin ? twin_times : simd_times)[i] = vxk_bench_now() - t0;
        }
    }
    vxk_bench_sink(digest[0] ^ digest[1]);
    vxk_bench_hash(b, digest, sizeof(digest));
    if (k <= K_DILATE3)
        vxk_bench_hash(b, d->dst, sizeof(d->dst));
    *simd_s = vxk_bench_median(simd_times, samples);
    *twin_s = vxk_bench_median(twin_times, samples);
}

void vxk_bench_simd(vxk_bench* b)
{
    simd_bench_data* d = (simd_bench_data*)vxk_alloc_aligned64(sizeof(simd_bench_data));
    if (!d) {
        fprintf(stderr, "simd bench: out of memory\n");
        return;
    }
    fill(d, b->seed ^ 0x51D0ull);
    const int samples = b->quick ? 3 : SIMD_BENCH_SAMPLES_MAX;
    const int bit_reps = b->quick ? 200 : 16000;
    const int ray_reps = b->quick ? 3 : 120;
    vxk_bench_figure_add(b, "simd_native", VXK_SIMD_NATIVE);
    for (int k = 0; k < K_COUNT; ++k) {
        vxk_bench_progress(b, kernel_names[k]);
        int reps = k <= K_ANY ? bit_reps : ray_reps;
        double items = 0, simd_s = 0, twin_s = 0;
        time_kernel(b, d, (simd_kernel)k, reps, samples, &items, &simd_s, &twin_s);
        char name[48];
        snprintf(name, sizeof(name), "simd_%s", kernel_names[k]);
        vxk_bench_phase_add(b, name, simd_s, items);
        double speedup = simd_s > 0 ? twin_s / simd_s : 0.0;
        if (k <= K_ANY) {
            double gbps = simd_s > 0 ? items * kernel_row_bytes[k] / simd_s * 1e-9 : 0.0;
            snprintf(name, sizeof(name), "%s_gbps", kernel_names[k]);
            vxk_bench_figure_add(b, name, gbps);
        } else {
            snprintf(name, sizeof(name), "%s_per_s", kernel_names[k]);
            vxk_bench_figure_add(b, name, simd_s > 0 ? items / simd_s : 0.0);
        }
        snprintf(name, sizeof(name), "%s_speedup", kernel_names[k]);
        vxk_bench_figure_add(b, name, speedup);
    }
    vxk_free_aligned64(d, sizeof(simd_bench_data));
}
