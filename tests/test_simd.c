// test_simd.c: the SIMD layer against its scalar twins, bit for bit, on 100,000 seeded random
// inputs per operation and kernel (special floats, zero direction components, rays on box
// planes, grazing hits, degenerate triangles, rectangle leaves), the ray kernels against
// independent double-precision references so that the twins are not just equally wrong, and the
// rectangle kernels' watertightness at shared edges and corners.
#include "test.h"

#include <vxk/simd.h>
#include <vxk/simd4.h>
#include <vxk/simd_kernels.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define ITERATIONS 100000

// ---- random inputs --------------------------------------------------------------------------

static uint32_t rand_u32(uint64_t* s)
{
    return (uint32_t)(vxk_test_rand(s) >> 32);
}

static uint32_t rand_below(uint64_t* s, uint32_t n)
{
    return (uint32_t)(((vxk_test_rand(s) >> 32) * (uint64_t)n) >> 32);
}

static const uint32_t special_bits[] = {
    0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
    0x7F800001u, 0x3F800000u, 0xBF800000u, 0x00800000u, 0x00000001u, 0x807FFFFFu,
    0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F000000u, 0x4B000000u,
};

// Ordinary values, special values (zeros, infinities, NaNs, denormals, extremes), raw bits.
static float rand_any_f32(uint64_t* s)
{
    uint32_t kind = rand_below(s, 10);
    if (kind < 6)
        return vxk_test_randf(s, -100.0f, 100.0f);
    if (kind < 8)
        return vxk_f32_from_bits(special_bits[rand_below(s, 16)]);
    return vxk_f32_from_bits(rand_u32(s));
}

static uint64_t rand_bits64(uint64_t* s)
{
    switch (rand_below(s, 6)) {
    case 0: return 0;
    case 1: return ~0ull;
    case 2: return 1ull << rand_below(s, 64);
    case 3: return vxk_test_rand(s) & vxk_test_rand(s) & vxk_test_rand(s);
    default: return vxk_test_rand(s);
    }
}

// Arithmetic results must match bit for bit, except that NaN payloads are not part of the
// contract (compilers may commute the operands of a scalar a + b).
static bool same_arith_f32(float a, float b)
{
    return vxk_f32_bits(a) == vxk_f32_bits(b) || (isnan(a) && isnan(b));
}

static vxk_f32x8_lanes lanes_of_f32(vxk_f32x8 v)
{
    vxk_f32x8_lanes r;
    vxk_f32x8_store(r.lane, v);
    return r;
}

static vxk_mask8_lanes lanes_of_mask(vxk_mask8 m)
{
    vxk_mask8_lanes r;
    memcpy(&r, &m, sizeof(r));
    return r;
}

static vxk_mask8 mask_of_lanes(vxk_mask8_lanes l)
{
    vxk_mask8 m;
    memcpy(&m, &l, sizeof(m));
    return m;
}

static vxk_u64x4_lanes lanes_of_u64(vxk_u64x4 v)
{
    vxk_u64x4_lanes r;
    vxk_u64x4_store(r.lane, v);
    return r;
}

static vxk_f32x4_lanes lanes_of_f32x4(vxk_f32x4 v)
{
    vxk_f32x4_lanes r;
    vxk_f32x4_store(r.lane, v);
    return r;
}

static vxk_mask4_lanes lanes_of_mask4(vxk_mask4 m)
{
    vxk_mask4_lanes r;
    memcpy(&r, &m, sizeof(r));
    return r;
}

static vxk_mask4 mask4_of_lanes(vxk_mask4_lanes l)
{
    vxk_mask4 m;
    memcpy(&m, &l, sizeof(m));
    return m;
}

// ---- wide operations ------------------------------------------------------------------------

static int check_arith(const char* name, vxk_f32x8_lanes got, vxk_f32x8_lanes want,
                       vxk_f32x8_lanes a, vxk_f32x8_lanes b)
{
    for (int i = 0; i < 8; ++i) {
        VXK_CHECK_MSG(same_arith_f32(got.lane[i], want.lane[i]),
                      "%s lane %d: %a op %a = %a (simd) vs %a (scalar)", name, i, a.lane[i],
                      b.lane[i], got.lane[i], want.lane[i]);
    }
    return 0;
}

static int check_exact(const char* name, const void* got, const void* want, size_t size)
{
    VXK_CHECK_MSG(memcmp(got, want, size) == 0, "%s differs from its scalar twin", name);
    return 0;
}

static int test_f32x8_ops(void)
{
    uint64_t s = vxk_test_seed(11);
    for (int it = 0; it < ITERATIONS; ++it) {
        vxk_f32x8_lanes a, b;
        for (int i = 0; i < 8; ++i) {
            a.lane[i] = rand_any_f32(&s);
            uint32_t tie = rand_below(&s, 16);
            b.lane[i] = tie == 0 ? a.lane[i] : tie == 1 ? -a.lane[i] : rand_any_f32(&s);
        }
        vxk_f32x8 va = vxk_f32x8_load(a.lane), vb = vxk_f32x8_load(b.lane);
        vxk_f32x8_lanes got;

        VXK_CHECK(check_exact("load/store", lanes_of_f32(va).lane, a.lane, 32) == 0);
        got = lanes_of_f32(vxk_f32x8_broadcast(a.lane[3]));
        vxk_f32x8_lanes want = vxk_f32x8_broadcast_scalar(a.lane[3]);
        VXK_CHECK(check_exact("broadcast", &got, &want, 32) == 0);

        VXK_CHECK(check_arith("add", lanes_of_f32(vxk_f32x8_add(va, vb)),
                              vxk_f32x8_add_scalar(a, b), a, b) == 0);
        VXK_CHECK(check_arith("sub", lanes_of_f32(vxk_f32x8_sub(va, vb)),
                              vxk_f32x8_sub_scalar(a, b), a, b) == 0);
        VXK_CHECK(check_arith("mul", lanes_of_f32(vxk_f32x8_mul(va, vb)),
                              vxk_f32x8_mul_scalar(a, b), a, b) == 0);
        VXK_CHECK(check_arith("div", lanes_of_f32(vxk_f32x8_div(va, vb)),
                              vxk_f32x8_div_scalar(a, b), a, b) == 0);

        // min/max/and/or/select return input bits: exact, NaNs included.
        got = lanes_of_f32(vxk_f32x8_min(va, vb));
        want = vxk_f32x8_min_scalar(a, b);
        VXK_CHECK(check_exact("min", &got, &want, 32) == 0);
        got = lanes_of_f32(vxk_f32x8_max(va, vb));
        want = vxk_f32x8_max_scalar(a, b);
        VXK_CHECK(check_exact("max", &got, &want, 32) == 0);
        got = lanes_of_f32(vxk_f32x8_and(va, vb));
        want = vxk_f32x8_and_scalar(a, b);
        VXK_CHECK(check_exact("and", &got, &want, 32) == 0);
        got = lanes_of_f32(vxk_f32x8_or(va, vb));
        want = vxk_f32x8_or_scalar(a, b);
        VXK_CHECK(check_exact("or", &got, &want, 32) == 0);

        vxk_mask8_lanes mg, mw;
#define CHECK_CMP(op)                           \
    mg = lanes_of_mask(vxk_f32x8_##op(va, vb)); \
    mw = vxk_f32x8_##op##_scalar(a, b);         \
    VXK_CHECK(check_exact(#op, &mg, &mw, 32) == 0);
        CHECK_CMP(cmplt)
        CHECK_CMP(cmple)
        CHECK_CMP(cmpgt)
        CHECK_CMP(cmpge)
        CHECK_CMP(cmpeq)
        CHECK_CMP(cmpneq)
#undef CHECK_CMP
        mg = lanes_of_mask(vxk_f32x8_cmpord(va));
        mw = vxk_f32x8_cmpord_scalar(a);
        VXK_CHECK(check_exact("cmpord", &mg, &mw, 32) == 0);

        // Masks: comparison masks, sign masks, bit masks and arbitrary bits (select and
        // movemask read only the sign bit).
        vxk_mask8_lanes m1 = vxk_f32x8_cmplt_scalar(a, b), m2 = vxk_mask8_from_sign_scalar(b);
        vxk_mask8_lanes m3;
        for (int i = 0; i < 8; ++i)
            m3.lane[i] = rand_u32(&s);
        uint32_t bits = rand_u32(&s);
        mg = lanes_of_mask(vxk_mask8_from_sign(vb));
        VXK_CHECK(check_exact("from_sign", &mg, &m2, 32) == 0);
        mg = lanes_of_mask(vxk_mask8_from_bits(bits));
        mw = vxk_mask8_from_bits_scalar(bits);
        VXK_CHECK(check_exact("from_bits", &mg, &mw, 32) == 0);
        VXK_CHECK_EQ_U64(vxk_mask8_movemask(vxk_mask8_from_bits(bits)), bits & 0xFFu);
        vxk_mask8 vm1 = mask_of_lanes(m1), vm2 = mask_of_lanes(m2), vm3 = mask_of_lanes(m3);
        mg = lanes_of_mask(vxk_mask8_and(vm1, vm2));
        mw = vxk_mask8_and_scalar(m1, m2);
        VXK_CHECK(check_exact("mask and", &mg, &mw, 32) == 0);
        mg = lanes_of_mask(vxk_mask8_or(vm1, vm3));
        mw = vxk_mask8_or_scalar(m1, m3);
        VXK_CHECK(check_exact("mask or", &mg, &mw, 32) == 0);
        mg = lanes_of_mask(vxk_mask8_andnot(vm3, vm2));
        mw = vxk_mask8_andnot_scalar(m3, m2);
        VXK_CHECK(check_exact("mask andnot", &mg, &mw, 32) == 0);
        VXK_CHECK_EQ_U64(vxk_mask8_movemask(vm3), vxk_mask8_movemask_scalar(m3));
        VXK_CHECK_EQ_U64(vxk_mask8_movemask(vm1), vxk_mask8_movemask_scalar(m1));
        got = lanes_of_f32(vxk_f32x8_select(vm3, va, vb));
        want = vxk_f32x8_select_scalar(m3, a, b);
        VXK_CHECK(check_exact("select", &got, &want, 32) == 0);
        got = lanes_of_f32(vxk_f32x8_select(vm1, vb, va));
        want = vxk_f32x8_select_scalar(m1, b, a);
        VXK_CHECK(check_exact("select cmp", &got, &want, 32) == 0);

        float out[8];
        vxk_f32x8_store(out, va);
        vxk_f32x8_lanes back = vxk_f32x8_load_scalar(out);
        VXK_CHECK(check_exact("store", &back, &a, 32) == 0);
    }
    return 0;
}

static int check_arith4(const char* name, vxk_f32x4_lanes got, vxk_f32x4_lanes want,
                        vxk_f32x4_lanes a, vxk_f32x4_lanes b)
{
    for (int i = 0; i < 4; ++i) {
        VXK_CHECK_MSG(same_arith_f32(got.lane[i], want.lane[i]),
                      "%s lane %d: %a op %a = %a (simd) vs %a (scalar)", name, i, a.lane[i],
                      b.lane[i], got.lane[i], want.lane[i]);
    }
    return 0;
}

static int test_f32x4_ops(void)
{
    uint64_t s = vxk_test_seed(13);
    // load3 reads exactly 12 bytes: a heap block of 3 floats lets ASan catch a wider read
    float* triple = (float*)malloc(3 * sizeof(float));
    VXK_CHECK(triple != NULL);
    for (int it = 0; it < ITERATIONS; ++it) {
        vxk_f32x4_lanes a, b;
        for (int i = 0; i < 4; ++i) {
            a.lane[i] = rand_any_f32(&s);
            uint32_t tie = rand_below(&s, 16);
            b.lane[i] = tie == 0 ? a.lane[i] : tie == 1 ? -a.lane[i] : rand_any_f32(&s);
        }
        vxk_f32x4 va = vxk_f32x4_load(a.lane), vb = vxk_f32x4_load(b.lane);
        vxk_f32x4_lanes got, want;
#define CHECK_EXACT4(name, simd, twin) \
    got = lanes_of_f32x4(simd);        \
    want = twin;                       \
    VXK_CHECK(check_exact(name, &got, &want, 16) == 0);

        VXK_CHECK(check_exact("load/store", lanes_of_f32x4(va).lane, a.lane, 16) == 0);
        CHECK_EXACT4("load", va, vxk_f32x4_load_scalar(a.lane))
        memcpy(triple, b.lane, 3 * sizeof(float));
        CHECK_EXACT4("load3", vxk_f32x4_load3(triple), vxk_f32x4_load3_scalar(triple))
        CHECK_EXACT4("set", vxk_f32x4_set(a.lane[0], b.lane[1], a.lane[2], b.lane[3]),
                     vxk_f32x4_set_scalar(a.lane[0], b.lane[1], a.lane[2], b.lane[3]))
        CHECK_EXACT4("broadcast", vxk_f32x4_broadcast(b.lane[2]),
                     vxk_f32x4_broadcast_scalar(b.lane[2]))
        CHECK_EXACT4("zero", vxk_f32x4_zero(), vxk_f32x4_zero_scalar())

        VXK_CHECK(check_arith4("add", lanes_of_f32x4(vxk_f32x4_add(va, vb)),
                               vxk_f32x4_add_scalar(a, b), a, b) == 0);
        VXK_CHECK(check_arith4("sub", lanes_of_f32x4(vxk_f32x4_sub(va, vb)),
                               vxk_f32x4_sub_scalar(a, b), a, b) == 0);
        VXK_CHECK(check_arith4("mul", lanes_of_f32x4(vxk_f32x4_mul(va, vb)),
                               vxk_f32x4_mul_scalar(a, b), a, b) == 0);
        VXK_CHECK(check_arith4("div", lanes_of_f32x4(vxk_f32x4_div(va, vb)),
                               vxk_f32x4_div_scalar(a, b), a, b) == 0);

        // min/max/bitwise/abs/shuffles return input bits: exact, NaNs included.
        CHECK_EXACT4("min", vxk_f32x4_min(va, vb), vxk_f32x4_min_scalar(a, b))
        CHECK_EXACT4("max", vxk_f32x4_max(va, vb), vxk_f32x4_max_scalar(a, b))
        CHECK_EXACT4("and", vxk_f32x4_and(va, vb), vxk_f32x4_and_scalar(a, b))
        CHECK_EXACT4("or", vxk_f32x4_or(va, vb), vxk_f32x4_or_scalar(a, b))
        CHECK_EXACT4("andnot", vxk_f32x4_andnot(va, vb), vxk_f32x4_andnot_scalar(a, b))
        CHECK_EXACT4("abs", vxk_f32x4_abs(vb), vxk_f32x4_abs_scalar(b))
        CHECK_EXACT4("interleave_lo", vxk_f32x4_interleave_lo(va, vb),
                     vxk_f32x4_interleave_lo_scalar(a, b))
        CHECK_EXACT4("interleave_hi", vxk_f32x4_interleave_hi(va, vb),
                     vxk_f32x4_interleave_hi_scalar(a, b))
        CHECK_EXACT4("dup_high", vxk_f32x4_dup_high(va), vxk_f32x4_dup_high_scalar(a))

        vxk_mask4_lanes mg, mw;
#define CHECK_CMP4(op)                           \
    mg = lanes_of_mask4(vxk_f32x4_##op(va, vb)); \
    mw = vxk_f32x4_##op##_scalar(a, b);          \
    VXK_CHECK(check_exact(#op, &mg, &mw, 16) == 0);
        CHECK_CMP4(cmplt)
        CHECK_CMP4(cmple)
        CHECK_CMP4(cmpgt)
        CHECK_CMP4(cmpge)
        CHECK_CMP4(cmpeq)
#undef CHECK_CMP4

        // Masks: comparison masks and arbitrary bits (movemask and store_sign read only the
        // sign bit); masks applied to floats by the bitwise float operations.
        vxk_mask4_lanes m1 = vxk_f32x4_cmple_scalar(a, b), m2;
        for (int i = 0; i < 4; ++i)
            m2.lane[i] = rand_u32(&s);
        vxk_mask4 vm1 = mask4_of_lanes(m1), vm2 = mask4_of_lanes(m2);
        mg = lanes_of_mask4(vxk_mask4_zeros());
        mw = vxk_mask4_zeros_scalar();
        VXK_CHECK(check_exact("mask zeros", &mg, &mw, 16) == 0);
        mg = lanes_of_mask4(vxk_mask4_ones());
        mw = vxk_mask4_ones_scalar();
        VXK_CHECK(check_exact("mask ones", &mg, &mw, 16) == 0);
        mg = lanes_of_mask4(vxk_mask4_and(vm1, vm2));
        mw = vxk_mask4_and_scalar(m1, m2);
        VXK_CHECK(check_exact("mask and", &mg, &mw, 16) == 0);
        mg = lanes_of_mask4(vxk_mask4_or(vm1, vm2));
        mw = vxk_mask4_or_scalar(m1, m2);
        VXK_CHECK(check_exact("mask or", &mg, &mw, 16) == 0);
        mg = lanes_of_mask4(vxk_mask4_andnot(vm2, vm1));
        mw = vxk_mask4_andnot_scalar(m2, m1);
        VXK_CHECK(check_exact("mask andnot", &mg, &mw, 16) == 0);
        VXK_CHECK_EQ_U64(vxk_mask4_movemask(vm1), vxk_mask4_movemask_scalar(m1));
        VXK_CHECK_EQ_U64(vxk_mask4_movemask(vm2), vxk_mask4_movemask_scalar(m2));
        uint32_t stored[4], stored_twin[4];
        vxk_mask4_store(stored, vm2);
        vxk_mask4_store_scalar(stored_twin, m2);
        VXK_CHECK(check_exact("mask store", stored, stored_twin, 16) == 0);
        vxk_mask4_store_sign(stored, vm2);
        vxk_mask4_store_sign_scalar(stored_twin, m2);
        VXK_CHECK(check_exact("mask store_sign", stored, stored_twin, 16) == 0);
        vxk_mask4_store_sign(stored, vm1);
        vxk_mask4_store_sign_scalar(stored_twin, m1);
        VXK_CHECK(check_exact("mask store_sign cmp", stored, stored_twin, 16) == 0);
        vxk_f32x4_lanes fm1;
        memcpy(&fm1, &m1, sizeof(fm1));
        CHECK_EXACT4("and mask", vxk_f32x4_and(vm1, va), vxk_f32x4_and_scalar(fm1, a))
        CHECK_EXACT4("andnot mask", vxk_f32x4_andnot(vb, vm1), vxk_f32x4_andnot_scalar(b, fm1))
#undef CHECK_EXACT4

        float out[4];
        vxk_f32x4_store(out, vb);
        vxk_f32x4_lanes back;
        memcpy(back.lane, out, sizeof(out));
        VXK_CHECK(check_exact("store", &back, &b, 16) == 0);
        vxk_f32x4_store_scalar(out, a);
        VXK_CHECK(check_exact("store twin", out, a.lane, 16) == 0);
    }
    free(triple);
    return 0;
}

static int test_u64x4_ops(void)
{
    uint64_t s = vxk_test_seed(12);
    for (int it = 0; it < ITERATIONS; ++it) {
        vxk_u64x4_lanes a, b, counts;
        for (int i = 0; i < 4; ++i) {
            a.lane[i] = rand_bits64(&s);
            b.lane[i] = rand_bits64(&s);
            uint32_t kind = rand_below(&s, 8);
            counts.lane[i] = kind == 0   ? vxk_test_rand(&s)
                             : kind == 1 ? 64 + rand_below(&s, 8)
                                         : rand_below(&s, 64);
        }
        uint32_t n = rand_below(&s, 4) == 0 ? rand_u32(&s) % 80 : rand_below(&s, 64);
        vxk_u64x4 va = vxk_u64x4_load(a.lane), vb = vxk_u64x4_load(b.lane);
        vxk_u64x4 vc = vxk_u64x4_load(counts.lane);
        vxk_u64x4_lanes got, want;
#define CHECK_OP(name, simd, twin) \
    got = lanes_of_u64(simd);      \
    want = twin;                   \
    VXK_CHECK(check_exact(name, &got, &want, 32) == 0);
        CHECK_OP("load", va, a)
        CHECK_OP("broadcast", vxk_u64x4_broadcast(a.lane[1]), vxk_u64x4_broadcast_scalar(a.lane[1]))
        CHECK_OP("and", vxk_u64x4_and(va, vb), vxk_u64x4_and_scalar(a, b))
        CHECK_OP("or", vxk_u64x4_or(va, vb), vxk_u64x4_or_scalar(a, b))
        CHECK_OP("xor", vxk_u64x4_xor(va, vb), vxk_u64x4_xor_scalar(a, b))
        CHECK_OP("andnot", vxk_u64x4_andnot(va, vb), vxk_u64x4_andnot_scalar(a, b))
        CHECK_OP("shl", vxk_u64x4_shl(va, n), vxk_u64x4_shl_scalar(a, n))
        CHECK_OP("shr", vxk_u64x4_shr(va, n), vxk_u64x4_shr_scalar(a, n))
        CHECK_OP("shlv", vxk_u64x4_shlv(va, vc), vxk_u64x4_shlv_scalar(a, counts))
        CHECK_OP("shrv", vxk_u64x4_shrv(va, vc), vxk_u64x4_shrv_scalar(a, counts))
        CHECK_OP("shli 0", VXK_U64X4_SHLI(va, 0), vxk_u64x4_shl_scalar(a, 0))
        CHECK_OP("shli 1", VXK_U64X4_SHLI(va, 1), vxk_u64x4_shl_scalar(a, 1))
        CHECK_OP("shli 8", VXK_U64X4_SHLI(va, 8), vxk_u64x4_shl_scalar(a, 8))
        CHECK_OP("shli 63", VXK_U64X4_SHLI(va, 63), vxk_u64x4_shl_scalar(a, 63))
        CHECK_OP("shri 0", VXK_U64X4_SHRI(va, 0), vxk_u64x4_shr_scalar(a, 0))
        CHECK_OP("shri 1", VXK_U64X4_SHRI(va, 1), vxk_u64x4_shr_scalar(a, 1))
        CHECK_OP("shri 8", VXK_U64X4_SHRI(va, 8), vxk_u64x4_shr_scalar(a, 8))
        CHECK_OP("shri 63", VXK_U64X4_SHRI(va, 63), vxk_u64x4_shr_scalar(a, 63))
#undef CHECK_OP
        VXK_CHECK_EQ_INT(vxk_u64x4_any(va), vxk_u64x4_any_scalar(a));
        VXK_CHECK_EQ_INT(vxk_u64x4_any(vxk_u64x4_and(va, vb)),
                         vxk_u64x4_any_scalar(vxk_u64x4_and_scalar(a, b)));
        uint64_t out[4];
        vxk_u64x4_store(out, vb);
        vxk_u64x4_lanes back = vxk_u64x4_load_scalar(out);
        VXK_CHECK(check_exact("store", &back, &b, 32) == 0);
    }
    return 0;
}

// ---- bit-row kernels ------------------------------------------------------------------------

#define ROWS_MAX 160
#define ROWS_PAD 8 // canary rows after the end, and the misalignment room before the start

typedef void bits_binary_fn(uint64_t*, const uint64_t*, const uint64_t*, size_t);
typedef void bits_shift_fn(uint64_t*, const uint64_t*, size_t, uint32_t);

static int test_bits_kernels(void)
{
    static const struct {
        const char* name;
        bits_binary_fn *simd, *twin;
    } binary[] = {
        {"or", vxk_bits_or, vxk_bits_or_scalar},
        {"and", vxk_bits_and, vxk_bits_and_scalar},
        {"andnot", vxk_bits_andnot, vxk_bits_andnot_scalar},
        {"xor", vxk_bits_xor, vxk_bits_xor_scalar},
    };
    uint64_t a[ROWS_MAX + 2 * ROWS_PAD], b[ROWS_MAX + 2 * ROWS_PAD];
    uint64_t d1[ROWS_MAX + 2 * ROWS_PAD], d2[ROWS_MAX + 2 * ROWS_PAD];
    uint64_t s = vxk_test_seed(13);
    uint64_t checked_rows = 0;
    for (int it = 0; it < ITERATIONS; ++it) {
        size_t n = rand_below(&s, 8) == 0 ? rand_below(&s, ROWS_MAX + 1) : rand_below(&s, 40);
        size_t off = rand_below(&s, 4); // misaligns the arrays by whole rows
        for (size_t i = 0; i < ROWS_MAX + 2 * ROWS_PAD; ++i) {
            a[i] = rand_bits64(&s);
            b[i] = rand_bits64(&s);
        }
        const uint64_t canary = vxk_test_rand(&s);
        uint64_t *pa = a + off, *pb = b + off, *p1 = d1 + off, *p2 = d2 + off;
        for (size_t k = 0; k < sizeof(binary) / sizeof(binary[0]); ++k) {
            for (size_t i = 0; i < ROWS_MAX + 2 * ROWS_PAD; ++i)
                d1[i] = d2[i] = canary;
            binary[k].simd(p1, pa, pb, n);
            binary[k].twin(p2, pa, pb, n);
            VXK_CHECK_MSG(memcmp(d1, d2, sizeof(d1)) == 0, "bits_%s n=%zu off=%zu", binary[k].name,
                          n, off);
            for (size_t i = 0; i < n; ++i) {
                uint64_t x = pa[i], y = pb[i];
                uint64_t want = k == 0 ? (x | y) : k == 1 ? (x & y) : k == 2 ? (x & ~y) : (x ^ y);
                VXK_CHECK_EQ_U64(p2[i], want);
            }
            VXK_CHECK_EQ_U64(p1[n], canary);
            VXK_CHECK_EQ_U64(d1[off > 0 ? off - 1 : off + n], canary);
            // In place: dst is the first input.
            memcpy(d1, a, sizeof(d1));
            binary[k].simd(p1, p1, pb, n);
            VXK_CHECK_MSG(memcmp(p1, p2, n * sizeof(uint64_t)) == 0, "bits_%s in place",
                          binary[k].name);
        }

        uint32_t shift = rand_below(&s, 5) == 0 ? rand_below(&s, 80) : rand_below(&s, 64);
        static bits_shift_fn* const shift_simd[2] = {vxk_bits_shl, vxk_bits_shr};
        static bits_shift_fn* const shift_twin[2] = {vxk_bits_shl_scalar, vxk_bits_shr_scalar};
        for (int k = 0; k < 2; ++k) {
            for (size_t i = 0; i < ROWS_MAX + 2 * ROWS_PAD; ++i)
                d1[i] = d2[i] = canary;
            shift_simd[k](p1, pa, n, shift);
            shift_twin[k](p2, pa, n, shift);
            VXK_CHECK_MSG(memcmp(d1, d2, sizeof(d1)) == 0, "bits_sh%c n=%zu shift=%u",
                          k ? 'r' : 'l', n, shift);
            for (size_t i = 0; i < n; ++i) {
                uint64_t want = shift > 63 ? 0 : k ? pa[i] >> shift : pa[i] << shift;
                VXK_CHECK_EQ_U64(p2[i], want);
            }
        }

        for (size_t i = 0; i < ROWS_MAX + 2 * ROWS_PAD; ++i)
            d1[i] = d2[i] = canary;
        vxk_bits_dilate3(p1, pa, n);
        vxk_bits_dilate3_scalar(p2, pa, n);
        VXK_CHECK_MSG(memcmp(d1, d2, sizeof(d1)) == 0, "bits_dilate3 n=%zu", n);
        for (size_t i = 0; i < n; ++i) {
            // Bit j of the dilation is set when bit j-1, j or j+1 of the source is.
            uint64_t x = pa[i], want = 0;
            for (int j = 0; j < 64; ++j) {
                bool set = (x >> j) & 1;
                set = set || (j > 0 && ((x >> (j - 1)) & 1));
                set = set || (j < 63 && ((x >> (j + 1)) & 1));
                want |= (uint64_t)set << j;
            }
            VXK_CHECK_EQ_U64(p2[i], want);
        }
        memcpy(d1, a, sizeof(d1));
        vxk_bits_dilate3(p1, p1, n);
        VXK_CHECK_MSG(memcmp(p1, p2, n * sizeof(uint64_t)) == 0, "bits_dilate3 in place");

        // any: mostly-zero arrays with at most one set row.
        memset(d1, 0, sizeof(d1));
        bool expect = false;
        if (n > 0 && rand_below(&s, 2)) {
            d1[off + rand_below(&s, (uint32_t)n)] = 1ull << rand_below(&s, 64);
            expect = true;
        }
        d1[off + n] = rand_below(&s, 2) ? ~0ull : 0; // a set row just past the end is ignored
        VXK_CHECK_EQ_INT(vxk_bits_any(p1, n), expect);
        VXK_CHECK_EQ_INT(vxk_bits_any_scalar(p1, n), expect);
        VXK_CHECK_EQ_INT(vxk_bits_any(pa, n), vxk_bits_any_scalar(pa, n));
        checked_rows += n;
    }
    VXK_CHECK(checked_rows > (uint64_t)ITERATIONS * 10);
    // NULL arrays are allowed with n == 0.
    vxk_bits_or(NULL, NULL, NULL, 0);
    vxk_bits_shl(NULL, NULL, 0, 3);
    VXK_CHECK(!vxk_bits_any(NULL, 0));
    return 0;
}

// ---- 8 rays vs box --------------------------------------------------------------------------

typedef struct box3 {
    float min[3], max[3];
} box3;

static box3 rand_box(uint64_t* s)
{
    box3 b;
    for (int k = 0; k < 3; ++k) {
        b.min[k] = vxk_test_randf(s, -10.0f, 10.0f);
        float size = rand_below(s, 10) == 0 ? 0.0f : vxk_test_randf(s, 0.0f, 5.0f);
        b.max[k] = b.min[k] + size;
    }
    return b;
}

static float rand_signed_zero(uint64_t* s)
{
    return rand_below(s, 2) ? 0.0f : -0.0f;
}

// A ray toward the box in one of several edge-case modes; writes origin and direction.
static void rand_box_ray(uint64_t* s, const box3* b, float o[3], float d[3])
{
    uint32_t mode = rand_below(s, 7);
    float target[3];
    for (int k = 0; k < 3; ++k) {
        float ext = b->max[k] - b->min[k];
        target[k] = vxk_test_randf(s, b->min[k] - 0.5f * ext - 0.5f, b->max[k] + 0.5f * ext + 0.5f);
        o[k] = vxk_test_randf(s, -25.0f, 25.0f);
    }
    switch (mode) {
    case 0: // general
        break;
    case 1: // starts inside
        for (int k = 0; k < 3; ++k)
            o[k] = vxk_test_randf(s, b->min[k], b->max[k]);
        break;
    case 2: // aimed at a corner or an edge point: grazing
        for (int k = 0; k < 3; ++k) {
            uint32_t c = rand_below(s, 3);
            target[k] = c == 0 ? b->min[k] : c == 1 ? b->max[k] : 0.5f * (b->min[k] + b->max[k]);
        }
        break;
    default: break;
    }
    for (int k = 0; k < 3; ++k)
        d[k] = target[k] - o[k];
    if (mode == 3 || mode == 4) {
        // Axis-aligned (mode 3) or some zero components (mode 4), origins on box planes.
        uint32_t axis = rand_below(s, 3);
        for (int k = 0; k < 3; ++k) {
            bool zero = mode == 3 ? k != (int)axis : rand_below(s, 2) == 0;
            if (zero) {
                d[k] = rand_signed_zero(s);
                uint32_t c = rand_below(s, 4);
                if (c == 0)
                    o[k] = b->min[k];
                else if (c == 1)
                    o[k] = b->max[k];
                else if (c == 2)
                    o[k] = vxk_test_randf(s, b->min[k], b->max[k]);
            } else if (mode == 3) {
                d[k] = rand_below(s, 2) ? 1.0f : -1.0f;
            }
        }
    }
    if (mode == 5) { // all-zero direction: a point query
        for (int k = 0; k < 3; ++k) {
            d[k] = rand_signed_zero(s);
            if (rand_below(s, 2))
                o[k] = vxk_test_randf(s, b->min[k], b->max[k]);
        }
    }
}

static void rand_interval(uint64_t* s, float* tmin, float* tmax)
{
    uint32_t k = rand_below(s, 4);
    *tmin = k == 0 ? vxk_test_randf(s, -1.0f, 1.0f) : 0.0f;
    *tmax = k == 1   ? vxk_test_randf(s, 0.0f, 2.0f)
            : k == 2 ? INFINITY
                     : vxk_test_randf(s, 0.0f, 50.0f);
}

static int test_ray8_aabb_twins(void)
{
    uint64_t s = vxk_test_seed(14);
    uint32_t hits = 0;
    for (int it = 0; it < ITERATIONS; ++it) {
        box3 b = rand_box(&s);
        vxk_ray8 rays;
        for (uint32_t lane = 0; lane < 8; ++lane) {
            float o[3], d[3], tmin, tmax;
            rand_box_ray(&s, &b, o, d);
            rand_interval(&s, &tmin, &tmax);
            vxk_ray8_set(&rays, lane, o, d, tmin, tmax);
        }
        float t1[8], t2[8];
        uint32_t m1 = vxk_ray8_aabb(&rays, b.min, b.max, t1);
        uint32_t m2 = vxk_ray8_aabb_scalar(&rays, b.min, b.max, t2);
        VXK_CHECK_EQ_U64(m1, m2);
        VXK_CHECK_MSG(memcmp(t1, t2, sizeof(t1)) == 0, "ray8_aabb t_enter differs (it %d)", it);
        VXK_CHECK(m1 <= 0xFFu);
        hits += (uint32_t)__builtin_popcount(m1);
    }
    // Both outcomes occur in quantity: the comparison is not between two trivial answers.
    VXK_CHECK(hits > ITERATIONS * 8 / 10 && hits < ITERATIONS * 8 * 9 / 10);
    return 0;
}

// Double-precision slab test with explicit parallel handling (the closed box). Returns false
// for a ray parallel to a slab and outside it (an exact miss); otherwise the entry and exit t,
// and the ray hits when enter <= exit.
static bool ref_ray_box(const double o[3], const double d[3], double tmin, double tmax,
                        const box3* b, double* enter, double* exit)
{
    double t0 = tmin, t1 = tmax;
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0) {
            if (o[k] < b->min[k] || o[k] > b->max[k])
                return false;
            continue;
        }
        double a = (b->min[k] - o[k]) / d[k], c = (b->max[k] - o[k]) / d[k];
        t0 = fmax(t0, fmin(a, c));
        t1 = fmin(t1, fmax(a, c));
    }
    *enter = t0;
    *exit = t1;
    return true;
}

static int test_ray8_aabb_reference(void)
{
    uint64_t s = vxk_test_seed(15);
    uint32_t checked_hits = 0, checked_misses = 0;
    for (int it = 0; it < ITERATIONS; ++it) {
        box3 b = rand_box(&s);
        vxk_ray8 rays;
        double od[8][3], dd[8][3], tmin[8], tmax[8];
        for (uint32_t lane = 0; lane < 8; ++lane) {
            float o[3], d[3], t0, t1;
            rand_box_ray(&s, &b, o, d);
            rand_interval(&s, &t0, &t1);
            vxk_ray8_set(&rays, lane, o, d, t0, t1);
            for (int k = 0; k < 3; ++k) {
                od[lane][k] = o[k];
                dd[lane][k] = d[k];
            }
            tmin[lane] = t0;
            tmax[lane] = t1;
        }
        float t_enter[8];
        uint32_t mask = vxk_ray8_aabb_scalar(&rays, b.min, b.max, t_enter);
        for (int lane = 0; lane < 8; ++lane) {
            double enter = 0, exit = 0;
            bool hit = (mask >> lane) & 1;
            if (!ref_ray_box(od[lane], dd[lane], tmin[lane], tmax[lane], &b, &enter, &exit)) {
                VXK_CHECK_MSG(!hit, "lane %d hits, but is parallel to a slab outside it", lane);
                ++checked_misses;
                continue;
            }
            // Rounding (float 1/d against double division) may flip near-grazing cases.
            double scale = 1.0 + fabs(enter) + (isinf(exit) ? 0.0 : fabs(exit));
            double margin = exit - enter;
            if (margin > 1e-4 * scale) {
                VXK_CHECK_MSG(hit, "lane %d misses, reference enters at %g exits at %g", lane,
                              enter, exit);
                VXK_CHECK_MSG(fabs(t_enter[lane] - enter) <= 1e-4 * (1.0 + fabs(enter)),
                              "lane %d enters at %g, reference %g", lane, t_enter[lane], enter);
                ++checked_hits;
            } else if (margin < -1e-4 * scale) {
                VXK_CHECK_MSG(!hit, "lane %d hits, reference enters at %g exits at %g", lane, enter,
                              exit);
                ++checked_misses;
            }
        }
    }
    VXK_CHECK_MSG(checked_hits > ITERATIONS && checked_misses > ITERATIONS,
                  "%u hits, %u misses checked", checked_hits, checked_misses);
    return 0;
}

// Documented behaviour on exact cases (box [0,1]^3).
static int test_ray8_aabb_cases(void)
{
    static const struct {
        float o[3], d[3], tmin, tmax;
        bool hit;
        float t;
    } cases[] = {
        {{0.5f, 0.5f, -1.0f}, {0.0f, 0.0f, 1.0f}, 0.0f, INFINITY, true, 1.0f},
        {{1.5f, 0.5f, -1.0f}, {0.0f, 0.0f, 1.0f}, 0.0f, INFINITY, false, 0.0f},
        {{1.0f, 0.5f, -1.0f}, {0.0f, 0.0f, 1.0f}, 0.0f, INFINITY, true, 1.0f},   // on x plane
        {{1.0f, 0.5f, -1.0f}, {-0.0f, 0.0f, 1.0f}, 0.0f, INFINITY, true, 1.0f},  // -0 direction
        {{0.0f, 1.0f, -1.0f}, {-0.0f, -0.0f, 1.0f}, 0.0f, INFINITY, true, 1.0f}, // on an edge
        {{0.5f, 0.5f, 0.5f}, {0.3f, -0.2f, 0.1f}, 0.0f, INFINITY, true, 0.0f},   // starts inside
        {{0.5f, 0.5f, 0.5f}, {0.0f, 0.0f, 0.0f}, 0.25f, 1.0f, true, 0.25f},      // point inside
        {{1.5f, 0.5f, 0.5f}, {0.0f, 0.0f, 0.0f}, 0.0f, 1.0f, false, 0.0f},       // point outside
        {{-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}, 0.0f, INFINITY, true, 1.0f}, // corner
        {{0.0f, 0.5f, -1.0f}, {1.0f, 0.0f, 1.0f}, 0.0f, INFINITY, true, 1.0f},   // grazes an edge
        {{0.0f, 0.5f, -1.0f}, {1.0f, 0.0f, 1.0f}, 0.0f, 0.5f, false, 0.0f},      // tmax too short
        {{0.5f, 0.5f, -1.0f}, {0.0f, 0.0f, -1.0f}, 0.0f, INFINITY, false, 0.0f}, // points away
        {{0.5f, 0.5f, 3.0f}, {0.0f, 0.0f, -1.0f}, 0.0f, INFINITY, true, 2.0f},
    };
    const size_t count = sizeof(cases) / sizeof(cases[0]);
    const float bmin[3] = {0, 0, 0}, bmax[3] = {1, 1, 1};
    for (size_t first = 0; first < count; first += 8) {
        vxk_ray8 rays;
        for (uint32_t lane = 0; lane < 8; ++lane) {
            size_t c = first + lane < count ? first + lane : first;
            vxk_ray8_set(&rays, lane, cases[c].o, cases[c].d, cases[c].tmin, cases[c].tmax);
        }
        float t1[8], t2[8];
        uint32_t m1 = vxk_ray8_aabb(&rays, bmin, bmax, t1);
        uint32_t m2 = vxk_ray8_aabb_scalar(&rays, bmin, bmax, t2);
        VXK_CHECK_EQ_U64(m1, m2);
        VXK_CHECK(memcmp(t1, t2, sizeof(t1)) == 0);
        for (uint32_t lane = 0; lane < 8; ++lane) {
            size_t c = first + lane < count ? first + lane : first;
            VXK_CHECK_MSG(((m1 >> lane) & 1) == cases[c].hit, "case %zu", c);
            if (cases[c].hit)
                VXK_CHECK_MSG(t1[lane] == cases[c].t, "case %zu: t %g", c, t1[lane]);
            else
                VXK_CHECK(t1[lane] == INFINITY);
        }
    }
    return 0;
}

// ---- ray vs 8 triangles / quads -------------------------------------------------------------

static void tri8_set(vxk_tri8* t, int lane, const float v0[3], const float e1[3], const float e2[3])
{
    t->v0x[lane] = v0[0], t->v0y[lane] = v0[1], t->v0z[lane] = v0[2];
    t->e1x[lane] = e1[0], t->e1y[lane] = e1[1], t->e1z[lane] = e1[2];
    t->e2x[lane] = e2[0], t->e2y[lane] = e2[1], t->e2z[lane] = e2[2];
}

// A triangle in one of several modes: general, degenerate, voxel-face-like, tiny, huge.
static void rand_tri(uint64_t* s, float v0[3], float e1[3], float e2[3])
{
    uint32_t mode = rand_below(s, 8);
    for (int k = 0; k < 3; ++k) {
        v0[k] = vxk_test_randf(s, -10.0f, 10.0f);
        e1[k] = vxk_test_randf(s, -5.0f, 5.0f);
        e2[k] = vxk_test_randf(s, -5.0f, 5.0f);
    }
    switch (mode) {
    case 0: // e1 = 0
        e1[0] = e1[1] = e1[2] = 0.0f;
        break;
    case 1: { // collinear edges
        float k2 = vxk_test_randf(s, -2.0f, 2.0f);
        for (int k = 0; k < 3; ++k)
            e2[k] = e1[k] * k2;
        break;
    }
    case 2: // a point
        e1[0] = e1[1] = e1[2] = e2[0] = e2[1] = e2[2] = 0.0f;
        break;
    case 3:
    case 4: { // voxel face: integer corner, axis edges of length 1..3, either orientation
        uint32_t a = rand_below(s, 3), b = (a + 1 + rand_below(s, 2)) % 3;
        for (int k = 0; k < 3; ++k) {
            v0[k] = (float)((int)rand_below(s, 9) - 4);
            e1[k] = e2[k] = 0.0f;
        }
        e1[a] = (float)(1 + rand_below(s, 3)) * (rand_below(s, 2) ? 1.0f : -1.0f);
        e2[b] = (float)(1 + rand_below(s, 3)) * (rand_below(s, 2) ? 1.0f : -1.0f);
        break;
    }
    case 5: // tiny
        for (int k = 0; k < 3; ++k) {
            e1[k] *= 1e-4f;
            e2[k] *= 1e-4f;
        }
        break;
    default: break;
    }
}

// A ray aimed at lane `aim` of tris in one of several modes (inside, edges, vertices,
// axis-aligned, in the plane, random).
static vxk_simd_ray rand_tri_ray(uint64_t* s, const vxk_tri8* t, int aim)
{
    vxk_simd_ray r;
    float v0[3] = {t->v0x[aim], t->v0y[aim], t->v0z[aim]};
    float e1[3] = {t->e1x[aim], t->e1y[aim], t->e1z[aim]};
    float e2[3] = {t->e2x[aim], t->e2y[aim], t->e2z[aim]};
    float a = vxk_test_randf(s, -0.3f, 1.3f), b = vxk_test_randf(s, -0.3f, 1.3f);
    uint32_t mode = rand_below(s, 8);
    if (mode == 1) { // an edge or a vertex
        static const float ab[][2] = {{0, 0},    {1, 0},    {0, 1},       {1, 1},
                                      {0.5f, 0}, {0, 0.5f}, {0.5f, 0.5f}, {0.25f, 0.75f}};
        uint32_t k = rand_below(s, 8);
        a = ab[k][0];
        b = ab[k][1];
    }
    float target[3];
    for (int k = 0; k < 3; ++k) {
        target[k] = v0[k] + a * e1[k] + b * e2[k];
        r.o[k] = vxk_test_randf(s, -20.0f, 20.0f);
    }
    for (int k = 0; k < 3; ++k)
        r.d[k] = target[k] - r.o[k];
    if (mode == 2 || mode == 3) { // axis-aligned, from a voxel centre or a voxel corner
        uint32_t axis = rand_below(s, 3);
        for (int k = 0; k < 3; ++k) {
            float base = (float)((int)rand_below(s, 9) - 4);
            r.o[k] = mode == 2 ? base + 0.5f : base;
            r.d[k] = rand_signed_zero(s);
        }
        r.o[axis] = (float)((int)rand_below(s, 20) - 10) + 0.25f;
        r.d[axis] = rand_below(s, 2) ? 1.0f : -1.0f;
    }
    if (mode == 4) { // in the triangle's plane
        for (int k = 0; k < 3; ++k) {
            r.o[k] = v0[k] - 0.5f * e1[k];
            r.d[k] = e1[k] + e2[k];
        }
    }
    if (mode == 5) { // from the triangle's plane (starts on the surface)
        for (int k = 0; k < 3; ++k)
            r.o[k] = target[k];
        for (int k = 0; k < 3; ++k)
            r.d[k] = vxk_test_randf(s, -1.0f, 1.0f);
    }
    rand_interval(s, &r.tmin, &r.tmax);
    if (rand_below(s, 3) == 0)
        r.tmin = 0.0f;
    return r;
}

static int test_ray_tri8_twins(void)
{
    uint64_t s = vxk_test_seed(16);
    uint32_t tri_hits = 0, quad_hits = 0;
    for (int it = 0; it < ITERATIONS; ++it) {
        vxk_tri8 tris;
        for (int lane = 0; lane < 8; ++lane) {
            float v0[3], e1[3], e2[3];
            rand_tri(&s, v0, e1, e2);
            tri8_set(&tris, lane, v0, e1, e2);
        }
        if (rand_below(&s, 4) == 0) { // lanes sharing a vertex and edges (a fan)
            for (int lane = 1; lane < 8; ++lane) {
                tris.v0x[lane] = tris.v0x[0], tris.v0y[lane] = tris.v0y[0];
                tris.v0z[lane] = tris.v0z[0];
            }
        }
        vxk_simd_ray ray = rand_tri_ray(&s, &tris, (int)rand_below(&s, 8));
        vxk_hit8 h1, h2;
        memset(&h1, 0xA5, sizeof(h1));
        memset(&h2, 0x5A, sizeof(h2));
        uint32_t m1 = vxk_ray_tri8(&ray, &tris, &h1);
        uint32_t m2 = vxk_ray_tri8_scalar(&ray, &tris, &h2);
        VXK_CHECK_EQ_U64(m1, m2);
        VXK_CHECK_MSG(memcmp(&h1, &h2, sizeof(h1)) == 0, "ray_tri8 hits differ (it %d)", it);
        tri_hits += (uint32_t)__builtin_popcount(m1);
        memset(&h1, 0xA5, sizeof(h1));
        memset(&h2, 0x5A, sizeof(h2));
        m1 = vxk_ray_quad8(&ray, &tris, &h1);
        m2 = vxk_ray_quad8_scalar(&ray, &tris, &h2);
        VXK_CHECK_EQ_U64(m1, m2);
        VXK_CHECK_MSG(memcmp(&h1, &h2, sizeof(h1)) == 0, "ray_quad8 hits differ (it %d)", it);
        quad_hits += (uint32_t)__builtin_popcount(m1);
        VXK_CHECK_EQ_INT(vxk_hit8_closest(m1, &h1), vxk_hit8_closest_scalar(m1, &h1));
    }
    VXK_CHECK(tri_hits > ITERATIONS / 10 && quad_hits > tri_hits);
    return 0;
}

// One ray against 8-quad blocks of quantized quad leaves (9 rows of stride uint16, the block at
// column base of each row, count quads from there): the vector kernel equals its twin bit for bit,
// and both equal vxk_ray_quad8's twin on the dequantized corners (the test the quantized kD tree's
// leaves stand for); lanes from count on miss. Leaves up to 16 wide: the tree tests a wide leaf
// 8 quads at a time.
// A random quantized leaf block: rows of stride uint16 (all holds 9 * 16 + 8: the kernels read 8
// uint16 from each row start), the block at column base, count quads from there, random grid.
typedef struct qleaf {
    uint16_t all[9 * 16 + 8];
    uint16_t* rows;
    uint32_t stride, count;
    float origin[3], step[3];
} qleaf;

static void qleaf_random(uint64_t* s, qleaf* q)
{
    q->stride = 1 + (uint32_t)rand_below(s, 16);
    uint32_t base = q->stride > 8 && rand_below(s, 2) ? 8u : 0u;
    uint32_t span = q->stride - base < 8u ? q->stride - base : 8u;
    q->count = 1 + (uint32_t)rand_below(s, span);
    q->rows = q->all + base;
    for (int a = 0; a < 3; ++a) {
        q->origin[a] = vxk_test_randf(s, -100.0f, 100.0f);
        q->step[a] = rand_below(s, 2) ? 1.0f : 0.0625f;
    }
    for (size_t i = 0; i < sizeof(q->all) / sizeof(q->all[0]); ++i)
        q->all[i] = (uint16_t)rand_below(s, 20u);
}

// Makes quad k axis-aligned (v1 and v3 share v0's normal coordinate, e1 along one other axis, e2
// along the third); proper: either edge along either axis, both of nonzero length (a rectangle).
static void qleaf_rect(uint64_t* s, qleaf* q, uint32_t k, bool proper)
{
    uint32_t axis = (uint32_t)rand_below(s, 3), u = (axis + 1) % 3, v = (axis + 2) % 3;
    if (proper && rand_below(s, 2)) {
        uint32_t x = u;
        u = v;
        v = x;
    }
    uint16_t* r = q->rows;
    uint32_t w = q->stride;
    r[(3 + axis) * w + k] = r[(6 + axis) * w + k] = r[axis * w + k];
    r[(3 + v) * w + k] = r[v * w + k];
    r[(6 + u) * w + k] = r[u * w + k];
    if (proper) {
        uint16_t q0u = r[u * w + k], q0v = r[v * w + k];
        r[(3 + u) * w + k] = (uint16_t)(q0u + 1 + rand_below(s, 5));
        r[(6 + v) * w + k] =
            q0v > 0 && rand_below(s, 2) ? (uint16_t)(q0v - 1) : (uint16_t)(q0v + 3);
    }
}

// The leaf's count quads dequantized into lanes: v0, e1 = v1 - v0, e2 = v3 - v0.
static void qleaf_quads(const qleaf* q, vxk_tri8* quads)
{
    memset(quads, 0, sizeof(*quads));
    for (uint32_t k = 0; k < q->count; ++k) {
        float p[3][3];
        for (int c = 0; c < 3; ++c)
            for (int a = 0; a < 3; ++a)
                p[c][a] =
                    q->origin[a] + (float)q->rows[(size_t)(3 * c + a) * q->stride + k] * q->step[a];
        float e1[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
        float e2[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
        tri8_set(quads, (int)k, p[0], e1, e2);
    }
}

static int test_ray_qquad8(void)
{
    uint64_t s = vxk_test_seed(29);
    uint32_t hits = 0;
    for (int it = 0; it < ITERATIONS; ++it) {
        qleaf leaf;
        qleaf_random(&s, &leaf);
        // most quads axis-aligned rectangles (voxel faces): v1 and v3 share v0's normal coordinate
        for (uint32_t k = 0; k < leaf.count; ++k)
            if (rand_below(&s, 4) != 0)
                qleaf_rect(&s, &leaf, k, false);
        vxk_tri8 quads;
        qleaf_quads(&leaf, &quads);
        vxk_simd_ray ray = rand_tri_ray(&s, &quads, (int)rand_below(&s, leaf.count));
        vxk_hit8 h1, h2, ref;
        memset(&h1, 0xA5, sizeof(h1));
        memset(&h2, 0x5A, sizeof(h2));
        uint32_t m1 =
            vxk_ray_qquad8(&ray, leaf.rows, leaf.stride, leaf.count, leaf.origin, leaf.step, &h1);
        uint32_t m2 = vxk_ray_qquad8_scalar(&ray, leaf.rows, leaf.stride, leaf.count, leaf.origin,
                                            leaf.step, &h2);
        VXK_CHECK_EQ_U64(m1, m2);
        VXK_CHECK_MSG(memcmp(&h1, &h2, sizeof(h1)) == 0, "ray_qquad8 hits differ (it %d)", it);
        uint32_t mr = vxk_ray_quad8_scalar(&ray, &quads, &ref) & ((1u << leaf.count) - 1u);
        VXK_CHECK_EQ_U64(m1, mr);
        for (uint32_t k = 0; k < 8; ++k) {
            if (k < leaf.count) {
                VXK_CHECK(memcmp(&h1.t[k], &ref.t[k], sizeof(float)) == 0);
                VXK_CHECK(memcmp(&h1.u[k], &ref.u[k], sizeof(float)) == 0);
                VXK_CHECK(memcmp(&h1.v[k], &ref.v[k], sizeof(float)) == 0);
            } else {
                VXK_CHECK(h1.t[k] == INFINITY && h1.u[k] == 0.0f && h1.v[k] == 0.0f);
            }
        }
        hits += (uint32_t)__builtin_popcount(m1);
        vxk_f32x8_lanes a = vxk_f32x8_load_u16_scalar(leaf.rows + it % 8), b;
        vxk_f32x8_store(b.lane, vxk_f32x8_load_u16(leaf.rows + it % 8));
        VXK_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    }
    VXK_CHECK(hits > ITERATIONS / 8);
    return 0;
}

// Rectangle leaves: every quad an axis-aligned rectangle (nonzero edges on two different axes).
// vxk_ray_qrect8 equals its twin bit for bit, and vxk_ray_qquad8 on the same rows (whose
// rectangle lanes take the same test) in its mask and t, its u and v being vxk_ray_rect1_uv's;
// lanes from count on miss.
static int test_ray_qrect8(void)
{
    uint64_t s = vxk_test_seed(31);
    uint32_t hits = 0;
    for (int it = 0; it < ITERATIONS; ++it) {
        qleaf leaf;
        qleaf_random(&s, &leaf);
        for (uint32_t k = 0; k < leaf.count; ++k)
            qleaf_rect(&s, &leaf, k, true);
        vxk_tri8 quads;
        qleaf_quads(&leaf, &quads);
        vxk_simd_ray ray = rand_tri_ray(&s, &quads, (int)rand_below(&s, leaf.count));
        vxk_rect_ray rr;
        vxk_rect_ray_set(&rr, ray.o, ray.d, ray.tmin, ray.tmax);
        vxk_hit8 h1, h2, h3;
        memset(&h1, 0xA5, sizeof(h1));
        memset(&h2, 0x5A, sizeof(h2));
        uint32_t m1 =
            vxk_ray_qrect8(&rr, leaf.rows, leaf.stride, leaf.count, leaf.origin, leaf.step, &h1);
        uint32_t m2 = vxk_ray_qrect8_scalar(&rr, leaf.rows, leaf.stride, leaf.count, leaf.origin,
                                            leaf.step, &h2);
        VXK_CHECK_EQ_U64(m1, m2);
        VXK_CHECK_MSG(memcmp(&h1, &h2, sizeof(h1)) == 0, "ray_qrect8 hits differ (it %d)", it);
        uint32_t m3 =
            vxk_ray_qquad8(&ray, leaf.rows, leaf.stride, leaf.count, leaf.origin, leaf.step, &h3);
        VXK_CHECK_EQ_U64(m1, m3);
        VXK_CHECK_MSG(memcmp(h1.t, h3.t, sizeof(h1.t)) == 0,
                      "ray_qrect8 and ray_qquad8 differ (it %d)", it);
        for (int k = 0; k < 8; ++k) {
            VXK_CHECK(h1.u[k] == 0.0f && h1.v[k] == 0.0f);
            if ((m1 >> k) & 1u) { // u and v of a hit: vxk_ray_rect1_uv gives the kernel's
                const float v0[3] = {quads.v0x[k], quads.v0y[k], quads.v0z[k]};
                const float e1[3] = {quads.e1x[k], quads.e1y[k], quads.e1z[k]};
                const float e2[3] = {quads.e2x[k], quads.e2y[k], quads.e2z[k]};
                float u, v;
                vxk_ray_rect1_uv(&rr, h1.t[k], v0, e1, e2, &u, &v);
                VXK_CHECK(memcmp(&u, &h3.u[k], sizeof(u)) == 0 &&
                          memcmp(&v, &h3.v[k], sizeof(v)) == 0);
            }
        }
        hits += (uint32_t)__builtin_popcount(m1);
    }
    VXK_CHECK(hits > ITERATIONS / 8);
    return 0;
}

// Watertight rectangles: a 4 x 2 grid of unit squares in one plane (8 lanes sharing edges and
// corners) and the three faces of a unit cube meeting at its corner. Rays aimed exactly at the
// shared edges and corners (the direction taken from the rounded origin, so the float ray passes
// within an ulp or so of the point) are hit by at least one lane at t = 1 (to rounding), by the
// vector kernels and their twins alike. (Moller-Trumbore lets some through: its u = 1 on one quad
// and u = 0 on the next are different roundings.)
static int test_ray_rect_watertight(void)
{
    uint64_t s = vxk_test_seed(37);
    uint32_t rays = 0;
    for (int it = 0; it < ITERATIONS / 4; ++it) {
        bool cube = it % 3 == 2;
        int k = (int)rand_below(&s, 3), a = (k + 1) % 3, b = (k + 2) % 3;
        float plane = (float)((int)rand_below(&s, 17) - 8), corner[3];
        for (int c = 0; c < 3; ++c)
            corner[c] = (float)((int)rand_below(&s, 17) - 8);
        vxk_tri8 quads;
        memset(&quads, 0, sizeof(quads));
        uint16_t rows[9 * 8 + 8];
        memset(rows, 0, sizeof(rows));
        const float origin[3] = {-64.0f, -64.0f, -64.0f}, step[3] = {1.0f, 1.0f, 1.0f};
        double aim[3];
        for (int lane = 0; lane < 8; ++lane) {
            float v0[3] = {0, 0, 0}, e1[3] = {0, 0, 0}, e2[3] = {0, 0, 0};
            if (!cube) { // square (lane % 4, lane / 4) of the grid in plane k
                v0[k] = plane;
                v0[a] = corner[a] + (float)(lane % 4);
                v0[b] = corner[b] + (float)(lane / 4);
                e1[a] = 1.0f;
                e2[b] = 1.0f;
            } else { // faces x, y, z = corner + 1 of the cube at corner (lanes 3..7 repeat them)
                int f = lane % 3, fa = (f + 1) % 3, fb = (f + 2) % 3;
                for (int c = 0; c < 3; ++c)
                    v0[c] = corner[c];
                v0[f] += 1.0f;
                e1[fa] = 1.0f;
                e2[fb] = 1.0f;
            }
            tri8_set(&quads, lane, v0, e1, e2);
            for (int c = 0; c < 3; ++c) {
                rows[(size_t)c * 8 + (size_t)lane] = (uint16_t)(v0[c] + 64.0f);
                rows[(size_t)(3 + c) * 8 + (size_t)lane] = (uint16_t)(v0[c] + e1[c] + 64.0f);
                rows[(size_t)(6 + c) * 8 + (size_t)lane] = (uint16_t)(v0[c] + e2[c] + 64.0f);
            }
        }
        double from[3];
        if (!cube) { // an inner grid point or a point on an inner grid line, from either side
            aim[k] = plane;
            aim[a] = corner[a] + 1.0 + (double)rand_below(&s, 3);
            aim[b] = corner[b] + 1.0;
            uint32_t along = (uint32_t)rand_below(&s, 3);
            if (along == 1) // on the line b = 1
                aim[a] = corner[a] + (double)rand_below(&s, 4) + vxk_test_randf(&s, 0, 1);
            if (along == 2) // on a line a = 1, 2, 3
                aim[b] = corner[b] + (double)rand_below(&s, 2) + vxk_test_randf(&s, 0, 1);
            for (int c = 0; c < 3; ++c)
                from[c] = aim[c] + vxk_test_randf(&s, -10, 10);
            from[k] = aim[k] + (rand_below(&s, 2) ? 1 : -1) * vxk_test_randf(&s, 2, 10);
        } else { // the cube's corner, or a point of one of its three edges there, from outside
            for (int c = 0; c < 3; ++c)
                aim[c] = corner[c] + 1.0;
            if (rand_below(&s, 2))
                aim[rand_below(&s, 3)] -= vxk_test_randf(&s, 0, 1);
            // on the line from a point inside the cube through the aim, beyond it
            double scale = vxk_test_randf(&s, 2, 10);
            for (int c = 0; c < 3; ++c)
                from[c] = aim[c] + scale * (aim[c] - (corner[c] + vxk_test_randf(&s, 0.2f, 0.8f)));
        }
        vxk_simd_ray ray;
        for (int c = 0; c < 3; ++c)
            ray.o[c] = (float)from[c];
        for (int c = 0; c < 3; ++c)
            ray.d[c] = (float)(aim[c] - ray.o[c]);
        ray.tmin = 0.0f;
        ray.tmax = 2.0f;
        vxk_rect_ray rr;
        vxk_rect_ray_set(&rr, ray.o, ray.d, ray.tmin, ray.tmax);
        vxk_hit8 h[4];
        uint32_t m[4] = {vxk_ray_quad8(&ray, &quads, &h[0]),
                         vxk_ray_quad8_scalar(&ray, &quads, &h[1]),
                         vxk_ray_qrect8(&rr, rows, 8, 8, origin, step, &h[2]),
                         vxk_ray_qrect8_scalar(&rr, rows, 8, 8, origin, step, &h[3])};
        for (int j = 0; j < 4; ++j) {
            int lane = vxk_hit8_closest(m[j], &h[j]);
            VXK_CHECK_MSG(lane >= 0 && fabsf(h[j].t[lane] - 1.0f) < 1e-5f,
                          "it %d kernel %d: %s aimed at (%g %g %g): mask %x", it, j,
                          cube ? "cube corner" : "grid", aim[0], aim[1], aim[2], m[j]);
        }
        ++rays;
    }
    VXK_CHECK(rays > 0);
    return 0;
}

static double dot3d(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3d(const double a[3], const double b[3], double r[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

// det of the 3x3 matrix with columns a, b, c.
static double det3d(const double a[3], const double b[3], const double c[3])
{
    double bc[3];
    cross3d(b, c, bc);
    return dot3d(a, bc);
}

// Solves o + t*d = v0 + u*e1 + v*e2 by Cramer's rule in double precision.
static bool ref_solve(const double o[3], const double d[3], const double v0[3], const double e1[3],
                      const double e2[3], double* t, double* u, double* v, double* rel_det)
{
    double nd[3] = {-d[0], -d[1], -d[2]};
    double rhs[3] = {o[0] - v0[0], o[1] - v0[1], o[2] - v0[2]};
    double det = det3d(e1, e2, nd);
    double norm = sqrt(dot3d(e1, e1) * dot3d(e2, e2) * dot3d(d, d));
    *rel_det = norm > 0 ? fabs(det) / norm : 0.0;
    if (det == 0.0)
        return false;
    *u = det3d(rhs, e2, nd) / det;
    *v = det3d(e1, rhs, nd) / det;
    *t = det3d(e1, e2, rhs) / det;
    return true;
}

static int test_ray_tri8_reference(void)
{
    uint64_t s = vxk_test_seed(17);
    uint32_t checked_hits[2] = {0, 0}, checked_misses[2] = {0, 0};
    for (int it = 0; it < ITERATIONS; ++it) {
        vxk_tri8 tris;
        for (int lane = 0; lane < 8; ++lane) {
            float v0[3], e1[3], e2[3];
            for (int k = 0; k < 3; ++k) {
                v0[k] = vxk_test_randf(&s, -10.0f, 10.0f);
                e1[k] = vxk_test_randf(&s, -5.0f, 5.0f);
                e2[k] = vxk_test_randf(&s, -5.0f, 5.0f);
            }
            tri8_set(&tris, lane, v0, e1, e2);
        }
        vxk_simd_ray ray;
        int aim = (int)rand_below(&s, 8);
        float a = vxk_test_randf(&s, -0.15f, 1.05f), b = vxk_test_randf(&s, -0.15f, 1.05f);
        float target[3] = {tris.v0x[aim] + a * tris.e1x[aim] + b * tris.e2x[aim],
                           tris.v0y[aim] + a * tris.e1y[aim] + b * tris.e2y[aim],
                           tris.v0z[aim] + a * tris.e1z[aim] + b * tris.e2z[aim]};
        for (int k = 0; k < 3; ++k) {
            ray.o[k] = vxk_test_randf(&s, -20.0f, 20.0f);
            ray.d[k] = target[k] - ray.o[k];
        }
        ray.tmin = rand_below(&s, 4) == 0 ? vxk_test_randf(&s, 0.0f, 1.0f) : 0.0f;
        ray.tmax = rand_below(&s, 3) == 0 ? vxk_test_randf(&s, 0.5f, 1.5f) : INFINITY;

        double o[3] = {ray.o[0], ray.o[1], ray.o[2]}, d[3] = {ray.d[0], ray.d[1], ray.d[2]};
        for (int quad = 0; quad < 2; ++quad) {
            vxk_hit8 h;
            uint32_t mask =
                quad ? vxk_ray_quad8_scalar(&ray, &tris, &h) : vxk_ray_tri8_scalar(&ray, &tris, &h);
            for (int lane = 0; lane < 8; ++lane) {
                double v0[3] = {tris.v0x[lane], tris.v0y[lane], tris.v0z[lane]};
                double e1[3] = {tris.e1x[lane], tris.e1y[lane], tris.e1z[lane]};
                double e2[3] = {tris.e2x[lane], tris.e2y[lane], tris.e2z[lane]};
                double t, u, v, rel_det;
                if (!ref_solve(o, d, v0, e1, e2, &t, &u, &v, &rel_det) || rel_det < 0.05)
                    continue; // ill-conditioned: float and double may round either way
                double w = quad ? fmin(1.0 - u, 1.0 - v) : 1.0 - u - v;
                double margin = fmin(fmin(u, v), w);
                double t_margin = fmin(t - ray.tmin, (double)ray.tmax - t);
                if (fabs(margin) < 1e-3 || fabs(t_margin) < 1e-3 * (1.0 + fabs(t)))
                    continue;
                bool ref_hit = margin > 0 && t_margin > 0;
                bool hit = (mask >> lane) & 1;
                VXK_CHECK_MSG(hit == ref_hit, "%s lane %d: hit %d, reference %d (u %g v %g t %g)",
                              quad ? "quad" : "tri", lane, hit, ref_hit, u, v, t);
                if (hit) {
                    VXK_CHECK_MSG(fabs(h.t[lane] - t) <= 1e-3 * (1.0 + fabs(t)), "t %g vs %g",
                                  h.t[lane], t);
                    VXK_CHECK_MSG(fabs(h.u[lane] - u) <= 1e-3, "u %g vs %g", h.u[lane], u);
                    VXK_CHECK_MSG(fabs(h.v[lane] - v) <= 1e-3, "v %g vs %g", h.v[lane], v);
                    ++checked_hits[quad];
                } else {
                    ++checked_misses[quad];
                }
            }
        }
    }
    for (int q = 0; q < 2; ++q) {
        VXK_CHECK_MSG(checked_hits[q] > ITERATIONS / 4 && checked_misses[q] > ITERATIONS,
                      "%s: %u hits, %u misses checked", q ? "quad" : "tri", checked_hits[q],
                      checked_misses[q]);
    }
    return 0;
}

// Exact cases on a unit voxel face (z = 0, x and y in [0, 1]) as a triangle and a quad.
static int test_ray_tri8_cases(void)
{
    vxk_tri8 tris;
    const float v0[3] = {0, 0, 0}, e1[3] = {1, 0, 0}, e2[3] = {0, 1, 0};
    for (int lane = 0; lane < 8; ++lane)
        tri8_set(&tris, lane, v0, e1, e2);
    const float zero[3] = {0, 0, 0};
    tri8_set(&tris, 7, v0, zero, e2); // degenerate lane
    static const struct {
        float o[3], d[3];
        bool tri_hit, quad_hit;
        float t;
    } cases[] = {
        {{0.25f, 0.25f, 1.0f}, {0.0f, 0.0f, -1.0f}, true, true, 1.0f},
        {{0.75f, 0.75f, 1.0f}, {0.0f, 0.0f, -1.0f}, false, true, 1.0f}, // quad only
        {{0.5f, 0.5f, 1.0f}, {0.0f, 0.0f, -1.0f}, true, true, 1.0f},    // on the diagonal
        {{0.0f, 0.0f, -2.0f}, {0.0f, 0.0f, 1.0f}, true, true, 2.0f},    // a vertex, from below
        {{1.0f, 1.0f, 1.0f}, {-0.0f, 0.0f, -1.0f}, false, true, 1.0f},  // the quad's far corner
        {{1.5f, 0.5f, 1.0f}, {0.0f, 0.0f, -1.0f}, false, false, 0.0f},  // outside
        {{0.25f, 0.25f, 1.0f}, {1.0f, 0.0f, 0.0f}, false, false, 0.0f}, // parallel
        {{0.25f, 0.25f, 1.0f}, {0.0f, 0.0f, 1.0f}, false, false, 0.0f}, // pointing away
    };
    for (int c = 0; c < 8; ++c) {
        vxk_simd_ray ray = {{cases[c].o[0], cases[c].o[1], cases[c].o[2]},
                            {cases[c].d[0], cases[c].d[1], cases[c].d[2]},
                            0.0f,
                            INFINITY};
        for (int quad = 0; quad < 2; ++quad) {
            vxk_hit8 h1, h2;
            uint32_t m1 = quad ? vxk_ray_quad8(&ray, &tris, &h1) : vxk_ray_tri8(&ray, &tris, &h1);
            uint32_t m2 = quad ? vxk_ray_quad8_scalar(&ray, &tris, &h2)
                               : vxk_ray_tri8_scalar(&ray, &tris, &h2);
            VXK_CHECK_EQ_U64(m1, m2);
            VXK_CHECK(memcmp(&h1, &h2, sizeof(h1)) == 0);
            bool want = quad ? cases[c].quad_hit : cases[c].tri_hit;
            VXK_CHECK_MSG(m1 == (want ? 0x7Fu : 0u), "case %d quad %d: mask %x", c, quad, m1);
            VXK_CHECK_EQ_INT(vxk_hit8_closest(m1, &h1), want ? 0 : -1);
            if (want)
                VXK_CHECK_MSG(h1.t[0] == cases[c].t, "case %d: t %g", c, h1.t[0]);
            VXK_CHECK(h1.t[7] == INFINITY && h1.u[7] == 0.0f && h1.v[7] == 0.0f);
        }
    }
    return 0;
}

static int test_hit8_closest(void)
{
    uint64_t s = vxk_test_seed(18);
    const float pool[] = {1.0f, 2.0f, 0.0f, -0.0f, INFINITY, NAN, 0.5f, -3.0f};
    for (int it = 0; it < ITERATIONS; ++it) {
        vxk_hit8 h;
        memset(&h, 0, sizeof(h));
        for (int i = 0; i < 8; ++i) {
            h.t[i] = rand_below(&s, 2) ? pool[rand_below(&s, 8)] : rand_any_f32(&s);
        }
        uint32_t mask = rand_u32(&s);
        if (rand_below(&s, 2))
            mask &= 0xFFu;
        int got = vxk_hit8_closest(mask, &h);
        VXK_CHECK_EQ_INT(got, vxk_hit8_closest_scalar(mask, &h));
        // Independent check of the definition.
        bool any = false;
        for (int i = 0; i < 8; ++i)
            any = any || (((mask >> i) & 1) && !isnan(h.t[i]));
        if (!any) {
            VXK_CHECK_EQ_INT(got, -1);
            continue;
        }
        VXK_CHECK(got >= 0 && got < 8 && ((mask >> got) & 1) && !isnan(h.t[got]));
        for (int i = 0; i < 8; ++i) {
            if (!((mask >> i) & 1) || isnan(h.t[i]))
                continue;
            VXK_CHECK(h.t[got] <= h.t[i]);
            if (i < got)
                VXK_CHECK(h.t[i] != h.t[got]);
        }
    }
    return 0;
}

int main(void)
{
    fprintf(stderr, "SIMDe backend: %s\n", VXK_SIMD_NATIVE ? "native AVX2" : "portable");
    VXK_RUN(test_f32x8_ops);
    VXK_RUN(test_f32x4_ops);
    VXK_RUN(test_u64x4_ops);
    VXK_RUN(test_bits_kernels);
    VXK_RUN(test_ray8_aabb_twins);
    VXK_RUN(test_ray8_aabb_reference);
    VXK_RUN(test_ray8_aabb_cases);
    VXK_RUN(test_ray_tri8_twins);
    VXK_RUN(test_ray_tri8_reference);
    VXK_RUN(test_ray_tri8_cases);
    VXK_RUN(test_ray_qquad8);
    VXK_RUN(test_ray_qrect8);
    VXK_RUN(test_ray_rect_watertight);
    VXK_RUN(test_hit8_closest);
    return vxk_test_finish();
}
