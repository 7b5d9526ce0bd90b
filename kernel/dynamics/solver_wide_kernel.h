// solver_wide_kernel.h: the body of the wide contact kernels, written once over a lane type and
// included twice by solver_wide.c: with vxk_f32x8 (SIMD) and with vxk_f32x8_lanes (the scalar
// twin). The includer defines WF (the float type), WM (the mask type), W(op) (the float
// operations), WMASK(op) (mask operations), WSQRT, WNAME(name) (the suffixed name) and WATTR.
// No include guard on purpose.

typedef struct WNAME(vec) {
    WF x, y, z;
} WNAME(vec);

typedef struct WNAME(body) {
    WNAME(vec) v, w;
} WNAME(body);

typedef struct WNAME(pose) {
    WNAME(vec) dp, cx, cy, cz; // position delta and the rotation delta's columns
} WNAME(pose);

static inline WNAME(vec) WNAME(load3)(const float (*p)[VXK_WIDE_LANES])
{
    return (WNAME(vec)){W(load)(p[0]), W(load)(p[1]), W(load)(p[2])};
}
static inline void WNAME(store3)(float (*p)[VXK_WIDE_LANES], WNAME(vec) a)
{
    W(store)(p[0], a.x);
    W(store)(p[1], a.y);
    W(store)(p[2], a.z);
}
static inline WF WNAME(dot)(WNAME(vec) a, WNAME(vec) b)
{
    return W(add)(W(add)(W(mul)(a.x, b.x), W(mul)(a.y, b.y)), W(mul)(a.z, b.z));
}
static inline WNAME(vec) WNAME(add3)(WNAME(vec) a, WNAME(vec) b)
{
    return (WNAME(vec)){W(add)(a.x, b.x), W(add)(a.y, b.y), W(add)(a.z, b.z)};
}
static inline WNAME(vec) WNAME(sub3)(WNAME(vec) a, WNAME(vec) b)
{
    return (WNAME(vec)){W(sub)(a.x, b.x), W(sub)(a.y, b.y), W(sub)(a.z, b.z)};
}
// a + s b
static inline WNAME(vec) WNAME(mul_add)(WNAME(vec) a, WF s, WNAME(vec) b)
{
    return (WNAME(vec)){W(add)(a.x, W(mul)(s, b.x)), W(add)(a.y, W(mul)(s, b.y)),
                        W(add)(a.z, W(mul)(s, b.z))};
}
// a - s b (= a + (-s) b, bit for bit)
static inline WNAME(vec) WNAME(mul_sub)(WNAME(vec) a, WF s, WNAME(vec) b)
{
    return (WNAME(vec)){W(sub)(a.x, W(mul)(s, b.x)), W(sub)(a.y, W(mul)(s, b.y)),
                        W(sub)(a.z, W(mul)(s, b.z))};
}

// The lanes' velocities (body slot[i] in lane i), and the rest of their row (kept for the
// scatter, which writes whole rows).
typedef struct WNAME(velocity_rows) {
    WF row[8]; // v.x v.y v.z w.x w.y w.z pad pad
} WNAME(velocity_rows);

static inline WNAME(body) WNAME(gather_velocity)(const vxk_solver_state* states,
                                                 const uint32_t* slot, WNAME(velocity_rows) * rows)
{
    WGATHER8(states, slot, 0, rows->row);
    WNAME(body) b;
    b.v = (WNAME(vec)){rows->row[0], rows->row[1], rows->row[2]};
    b.w = (WNAME(vec)){rows->row[3], rows->row[4], rows->row[5]};
    return b;
}

static inline WNAME(pose) WNAME(gather_pose)(const vxk_solver_state* states, const uint32_t* slot)
{
    WF r0[8], r1[8];
    WGATHER8(states, slot, 8, r0);  // dp, dr.cx, dr.cy.x, dr.cy.y
    WGATHER8(states, slot, 16, r1); // dr.cy.z, dr.cz, pad
    WNAME(pose) p;
    p.dp = (WNAME(vec)){r0[0], r0[1], r0[2]};
    p.cx = (WNAME(vec)){r0[3], r0[4], r0[5]};
    p.cy = (WNAME(vec)){r0[6], r0[7], r1[0]};
    p.cz = (WNAME(vec)){r1[1], r1[2], r1[3]};
    return p;
}

// Stores the velocity rows of the lanes whose bit is set in write (the dynamic bodies; within a
// colour no two lanes share one).
static inline void WNAME(scatter_velocity)(vxk_solver_state* states, const uint32_t* slot,
                                           uint32_t write, WNAME(body) b,
                                           WNAME(velocity_rows) * rows)
{
    rows->row[0] = b.v.x;
    rows->row[1] = b.v.y;
    rows->row[2] = b.v.z;
    rows->row[3] = b.w.x;
    rows->row[4] = b.w.y;
    rows->row[5] = b.w.z;
    WSCATTER8(states, slot, write, rows->row);
}

// Where a body-fixed anchor r is now, minus where it was: dp + (dr r - r).
static inline WNAME(vec) WNAME(anchor_delta)(const WNAME(pose) * s, WNAME(vec) r)
{
    WNAME(vec)
    rr = WNAME(add3)(
        WNAME(add3)((WNAME(vec)){W(mul)(s->cx.x, r.x), W(mul)(s->cx.y, r.x), W(mul)(s->cx.z, r.x)},
                    (WNAME(vec)){W(mul)(s->cy.x, r.y), W(mul)(s->cy.y, r.y), W(mul)(s->cy.z, r.y)}),
        (WNAME(vec)){W(mul)(s->cz.x, r.z), W(mul)(s->cz.y, r.z), W(mul)(s->cz.z, r.z)});
    return WNAME(add3)(s->dp, WNAME(sub3)(rr, r));
}

static inline WNAME(vec) WNAME(cross)(WNAME(vec) a, WNAME(vec) b)
{
    return (WNAME(vec)){W(sub)(W(mul)(a.y, b.z), W(mul)(a.z, b.y)),
                        W(sub)(W(mul)(a.z, b.x), W(mul)(a.x, b.z)),
                        W(sub)(W(mul)(a.x, b.y), W(mul)(a.y, b.x))};
}

// A symmetric 3x3 matrix per lane: xx, xy, xz, yy, yz, zz.
typedef struct WNAME(sym) {
    WF xx, xy, xz, yy, yz, zz;
} WNAME(sym);

static inline WNAME(sym) WNAME(load_sym)(const float (*p)[VXK_WIDE_LANES])
{
    return (WNAME(sym)){W(load)(p[0]), W(load)(p[1]), W(load)(p[2]),
                        W(load)(p[3]), W(load)(p[4]), W(load)(p[5])};
}

static inline WNAME(vec) WNAME(sym_mul)(const WNAME(sym) * m, WNAME(vec) v)
{
    return (WNAME(vec)){W(add)(W(add)(W(mul)(m->xx, v.x), W(mul)(m->xy, v.y)), W(mul)(m->xz, v.z)),
                        W(add)(W(add)(W(mul)(m->xy, v.x), W(mul)(m->yy, v.y)), W(mul)(m->yz, v.z)),
                        W(add)(W(add)(W(mul)(m->xz, v.x), W(mul)(m->yz, v.y)), W(mul)(m->zz, v.z))};
}

// What a batch's kernels share: the lanes' bodies, inverse masses and inverse inertias.
typedef struct WNAME(pair) {
    WNAME(body) A, B;
    WF ima, imb;
    WNAME(sym) IA, IB;
} WNAME(pair);

// The normal velocity of B against A at anchors ra, rb: (vB - vA) . n + wB . (rb x n) - wA .
// (ra x n); ca and cb receive the crosses.
static inline WF WNAME(normal_velocity)(const WNAME(pair) * q, WNAME(vec) n, WNAME(vec) ra,
                                        WNAME(vec) rb, WNAME(vec) * ca, WNAME(vec) * cb)
{
    *ca = WNAME(cross)(ra, n);
    *cb = WNAME(cross)(rb, n);
    return W(sub)(W(add)(WNAME(dot)(WNAME(sub3)(q->B.v, q->A.v), n), WNAME(dot)(q->B.w, *cb)),
                  WNAME(dot)(q->A.w, *ca));
}

// Applies impulse along n at the anchors whose crosses with n are ca, cb.
static inline void WNAME(normal_apply)(WNAME(pair) * q, WNAME(vec) n, WNAME(vec) ca, WNAME(vec) cb,
                                       WF impulse)
{
    q->A.v = WNAME(mul_sub)(q->A.v, W(mul)(q->ima, impulse), n);
    q->A.w = WNAME(mul_sub)(q->A.w, impulse, WNAME(sym_mul)(&q->IA, ca));
    q->B.v = WNAME(mul_add)(q->B.v, W(mul)(q->imb, impulse), n);
    q->B.w = WNAME(mul_add)(q->B.w, impulse, WNAME(sym_mul)(&q->IB, cb));
}

// Applies the linear impulse P at anchors ra (on A, negated) and rb (on B).
static inline void WNAME(linear_apply)(WNAME(pair) * q, WNAME(vec) ra, WNAME(vec) rb, WNAME(vec) P)
{
    const WF one = W(broadcast)(1.0f);
    q->A.v = WNAME(mul_sub)(q->A.v, q->ima, P);
    q->A.w = WNAME(mul_sub)(q->A.w, one, WNAME(sym_mul)(&q->IA, WNAME(cross)(ra, P)));
    q->B.v = WNAME(mul_add)(q->B.v, q->imb, P);
    q->B.w = WNAME(mul_add)(q->B.w, one, WNAME(sym_mul)(&q->IB, WNAME(cross)(rb, P)));
}

// Applies the angular impulse L (on A negated).
static inline void WNAME(angular_apply)(WNAME(pair) * q, WNAME(vec) L)
{
    const WF one = W(broadcast)(1.0f);
    q->A.w = WNAME(mul_sub)(q->A.w, one, WNAME(sym_mul)(&q->IA, L));
    q->B.w = WNAME(mul_add)(q->B.w, one, WNAME(sym_mul)(&q->IB, L));
}

static inline WNAME(pair)
    WNAME(gather_pair)(const vxk_solver_state* states, const vxk_wide_constraint* c,
                       WNAME(velocity_rows) * rows_a, WNAME(velocity_rows) * rows_b)
{
    WNAME(pair) q;
    q.A = WNAME(gather_velocity)(states, c->a, rows_a);
    q.B = WNAME(gather_velocity)(states, c->b, rows_b);
    q.ima = W(load)(c->inv_mass_a);
    q.imb = W(load)(c->inv_mass_b);
    q.IA = WNAME(load_sym)(c->inv_i_a);
    q.IB = WNAME(load_sym)(c->inv_i_b);
    return q;
}

static inline void WNAME(scatter_pair)(vxk_solver_state* states, const vxk_wide_constraint* c,
                                       const WNAME(pair) * q, WNAME(velocity_rows) * rows_a,
                                       WNAME(velocity_rows) * rows_b)
{
    WNAME(scatter_velocity)(states, c->a, c->write_a, q->A, rows_a);
    WNAME(scatter_velocity)(states, c->b, c->write_b, q->B, rows_b);
}

// The world inverse inertias of the lanes' bodies as symmetric rows (the upper triangle).
static inline void WNAME(gather_sym)(float (*out)[VXK_WIDE_LANES], const vxk_mat3* m,
                                     const uint32_t* slot)
{
    for (int i = 0; i < VXK_WIDE_LANES; ++i) {
        const vxk_mat3* s = &m[slot[i]];
        out[0][i] = s->cx.x;
        out[1][i] = s->cy.x;
        out[2][i] = s->cz.x;
        out[3][i] = s->cy.y;
        out[4][i] = s->cz.y;
        out[5][i] = s->cz.z;
    }
}

WATTR void WNAME(vxk_wide_prepare)(vxk_wide_constraint* c, const vxk_solver_state* states,
                                   const vxk_mat3* inv_i, float speculative_distance)
{
    WNAME(gather_sym)(c->inv_i_a, inv_i, c->a);
    WNAME(gather_sym)(c->inv_i_b, inv_i, c->b);
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(pair) q = WNAME(gather_pair)(states, c, &rows_a, &rows_b);
    WF ima_imb = W(add)(q.ima, q.imb);
    WNAME(vec) n = WNAME(load3)(c->normal), t1 = WNAME(load3)(c->t1), t2 = WNAME(load3)(c->t2);
    const WF zero = W(broadcast)(0.0f), one = W(broadcast)(1.0f), two = W(broadcast)(2.0f);
    const WF min_weight = W(broadcast)(1e-10f);
    const WF inv_tau = W(broadcast)(1.0f / speculative_distance);
    WNAME(vec) center_a = {zero, zero, zero}, center_b = {zero, zero, zero};
    WF total_weight = zero;
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_wide_point* wp = &c->points[p];
        WM valid = WMASK(from_bits)(c->point_lanes[p]);
        WNAME(vec) ra = WNAME(load3)(wp->ra), rb = WNAME(load3)(wp->rb);
        WNAME(vec) ca, cb;
        WF vn = WNAME(normal_velocity)(&q, n, ra, rb, &ca, &cb);
        WF k = W(add)(W(add)(ima_imb, WNAME(dot)(ca, WNAME(sym_mul)(&q.IA, ca))),
                      WNAME(dot)(cb, WNAME(sym_mul)(&q.IB, cb)));
        WF mass = W(select)(W(cmpgt)(k, zero), W(div)(one, k), zero);
        W(store)(wp->normal_mass, W(select)(valid, mass, zero));
        W(store)(wp->relative_velocity, W(select)(valid, vn, zero));
        // Speculative points barely move the friction centre: touching ones hold the body.
        WF s = W(load)(wp->separation);
        WF weight = W(min)(W(max)(W(sub)(two, W(mul)(s, inv_tau)), min_weight), one);
        weight = W(select)(valid, weight, zero);
        center_a = WNAME(mul_add)(center_a, weight, ra);
        center_b = WNAME(mul_add)(center_b, weight, rb);
        total_weight = W(add)(total_weight, weight);
    }
    WM has_points = W(cmpgt)(total_weight, zero);
    WF inv_weight = W(select)(has_points, W(div)(one, total_weight), zero);
    center_a = (WNAME(vec)){W(mul)(center_a.x, inv_weight), W(mul)(center_a.y, inv_weight),
                            W(mul)(center_a.z, inv_weight)};
    center_b = (WNAME(vec)){W(mul)(center_b.x, inv_weight), W(mul)(center_b.y, inv_weight),
                            W(mul)(center_b.z, inv_weight)};
    WNAME(store3)(c->center_a, center_a);
    WNAME(store3)(c->center_b, center_b);
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_wide_point* wp = &c->points[p];
        WM valid = WMASK(from_bits)(c->point_lanes[p]);
        WNAME(vec) d = WNAME(sub3)(WNAME(load3)(wp->ra), center_a);
        W(store)(wp->lever_arm, W(select)(valid, WSQRT(WNAME(dot)(d, d)), zero));
    }
    // The 2x2 mass of the tangent directions at the centre, inverted.
    WNAME(vec) a1 = WNAME(cross)(center_a, t1), a2 = WNAME(cross)(center_a, t2);
    WNAME(vec) b1 = WNAME(cross)(center_b, t1), b2 = WNAME(cross)(center_b, t2);
    WNAME(vec) ia1 = WNAME(sym_mul)(&q.IA, a1), ib1 = WNAME(sym_mul)(&q.IB, b1);
    WNAME(vec) ia2 = WNAME(sym_mul)(&q.IA, a2), ib2 = WNAME(sym_mul)(&q.IB, b2);
    WF k11 = W(add)(W(add)(ima_imb, WNAME(dot)(a1, ia1)), WNAME(dot)(b1, ib1));
    WF k22 = W(add)(W(add)(ima_imb, WNAME(dot)(a2, ia2)), WNAME(dot)(b2, ib2));
    WF k12 = W(add)(WNAME(dot)(a1, ia2), WNAME(dot)(b1, ib2));
    WF det = W(sub)(W(mul)(k11, k22), W(mul)(k12, k12));
    // The 2x2 mass is positive definite; where rounding leaves it nearly singular or not
    // definite (a long thin body spinning fast: k12^2 ~ k11 k22), its diagonal alone, so that
    // friction never gets a negative mass and grows without bound.
    WM definite = W(cmpgt)(det, W(mul)(W(broadcast)(1e-6f), W(mul)(k11, k22)));
    WF inv_det = W(select)(definite, W(div)(one, det), zero);
    inv_det = W(select)(has_points, inv_det, zero);
    WF diag11 = W(select)(W(cmpgt)(k11, zero), W(div)(one, k11), zero);
    WF diag22 = W(select)(W(cmpgt)(k22, zero), W(div)(one, k22), zero);
    WM fallback = WMASK(andnot)(has_points, definite);
    W(store)(c->tangent_mass[0], W(select)(fallback, diag11, W(mul)(inv_det, k22)));
    W(store)(c->tangent_mass[1], W(select)(fallback, zero, W(sub)(zero, W(mul)(inv_det, k12))));
    W(store)(c->tangent_mass[2], W(select)(fallback, diag22, W(mul)(inv_det, k11)));
    WF kt =
        W(add)(WNAME(dot)(n, WNAME(sym_mul)(&q.IA, n)), WNAME(dot)(n, WNAME(sym_mul)(&q.IB, n)));
    WF twist = W(select)(W(cmpgt)(kt, zero), W(div)(one, kt), zero);
    W(store)(c->twist_mass, W(select)(has_points, twist, zero));
}

// Adds to the point's step work what an impulse just applied did to the pair's kinetic energy:
// impulse x the mean of the normal velocities before and after (exact for one impulse).
static inline void WNAME(add_work)(vxk_wide_point* wp, const WNAME(pair) * q, WNAME(vec) n,
                                   WF impulse, WF before)
{
    WNAME(vec) ca, cb;
    WF after = WNAME(normal_velocity)(q, n, WNAME(load3)(wp->ra), WNAME(load3)(wp->rb), &ca, &cb);
    WF half = W(broadcast)(0.5f);
    W(store)
    (wp->step_work,
     W(add)(W(load)(wp->step_work), W(mul)(W(mul)(impulse, W(add)(before, after)), half)));
}

WATTR void WNAME(vxk_wide_warm_start)(vxk_solver_state* states, vxk_wide_constraint* c)
{
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(pair) q = WNAME(gather_pair)(states, c, &rows_a, &rows_b);
    WNAME(vec) n = WNAME(load3)(c->normal), t1 = WNAME(load3)(c->t1), t2 = WNAME(load3)(c->t2);
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_wide_point* wp = &c->points[p];
        WNAME(vec) ra = WNAME(load3)(wp->ra), rb = WNAME(load3)(wp->rb), ca, cb;
        WF applied = W(load)(wp->normal_impulse), before = W(broadcast)(0.0f);
        if (c->has_restitution) { // the work is counted where a bounce may spend it
            before = WNAME(normal_velocity)(&q, n, ra, rb, &ca, &cb);
        } else {
            ca = WNAME(cross)(ra, n);
            cb = WNAME(cross)(rb, n);
        }
        WNAME(normal_apply)(&q, n, ca, cb, applied);
        if (c->has_restitution)
            WNAME(add_work)(wp, &q, n, applied, before);
    }
    WF f1 = W(load)(c->friction_impulse[0]), f2 = W(load)(c->friction_impulse[1]);
    WNAME(vec)
    P = WNAME(add3)((WNAME(vec)){W(mul)(f1, t1.x), W(mul)(f1, t1.y), W(mul)(f1, t1.z)},
                    (WNAME(vec)){W(mul)(f2, t2.x), W(mul)(f2, t2.y), W(mul)(f2, t2.z)});
    WNAME(linear_apply)(&q, WNAME(load3)(c->center_a), WNAME(load3)(c->center_b), P);
    WF tw = W(load)(c->twist_impulse);
    WNAME(angular_apply)(&q, (WNAME(vec)){W(mul)(tw, n.x), W(mul)(tw, n.y), W(mul)(tw, n.z)});
    WNAME(scatter_pair)(states, c, &q, &rows_a, &rows_b);
}

WATTR void WNAME(vxk_wide_solve)(vxk_solver_state* states, vxk_wide_constraint* c,
                                 const vxk_wide_params* prm)
{
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(pair) q = WNAME(gather_pair)(states, c, &rows_a, &rows_b);
    WNAME(pose) PA = WNAME(gather_pose)(states, c->a);
    WNAME(pose) PB = WNAME(gather_pose)(states, c->b);
    WNAME(vec) n = WNAME(load3)(c->normal);
    const WF zero = W(broadcast)(0.0f), one = W(broadcast)(1.0f);
    const WF inv_h = W(broadcast)(prm->inv_h), max_push = W(broadcast)(-prm->push_speed);
    WF bias_rate = W(load)(c->bias_rate);
    const WF radius_a = W(load)(c->radius_a), radius_b = W(load)(c->radius_b);
    WF soft_mass = prm->use_bias ? W(load)(c->mass_scale) : one;
    WF soft_impulse = prm->use_bias ? W(load)(c->impulse_scale) : zero;
    WF total_normal = zero, twist_limit = zero;
    // Passes alternate the direction of the walk over the points (prm->reverse): Gauss-Seidel in
    // one fixed order leaves a bias towards the points solved first, which a tall stack turns
    // into a lean.
    const uint32_t last = c->point_count - 1;
    for (uint32_t k = 0; k < c->point_count; ++k) {
        uint32_t p = prm->reverse ? last - k : k;
        vxk_wide_point* wp = &c->points[p];
        WNAME(vec) ra = WNAME(load3)(wp->ra), rb = WNAME(load3)(wp->rb);
        // The anchors' cores turn with their bodies; a round surface's point stays on the normal
        // (batches of boxes and voxels skip the arithmetic).
        WNAME(vec) core_a = ra, core_b = rb;
        if (c->has_round) {
            core_a = WNAME(mul_sub)(ra, radius_a, n);
            core_b = WNAME(mul_add)(rb, radius_b, n);
        }
        WF s = W(add)(WNAME(dot)(n, WNAME(sub3)(WNAME(anchor_delta)(&PB, core_b),
                                                WNAME(anchor_delta)(&PA, core_a))),
                      W(load)(wp->separation));
        // Speculative (s > 0): approach until the surfaces meet; else the soft push (solve) or
        // nothing (relax).
        WM speculative = W(cmpgt)(s, zero);
        WF soft_bias = prm->use_bias ? W(max)(W(mul)(bias_rate, s), max_push) : zero;
        WF bias = W(select)(speculative, W(mul)(s, inv_h), soft_bias);
        WF mass_scale = W(select)(speculative, one, soft_mass);
        WF impulse_scale = W(select)(speculative, zero, soft_impulse);
        WNAME(vec) ca, cb;
        WF vn = WNAME(normal_velocity)(&q, n, ra, rb, &ca, &cb);
        WF old = W(load)(wp->normal_impulse);
        WF impulse = W(sub)(
            W(sub)(zero, W(mul)(W(mul)(W(load)(wp->normal_mass), mass_scale), W(add)(vn, bias))),
            W(mul)(impulse_scale, old));
        WF next = W(max)(W(add)(old, impulse), zero);
        impulse = W(sub)(next, old);
        W(store)(wp->normal_impulse, next);
        W(store)(wp->max_normal_impulse, W(max)(W(load)(wp->max_normal_impulse), impulse));
        total_normal = W(add)(total_normal, next);
        twist_limit = W(add)(twist_limit, W(mul)(W(load)(wp->lever_arm), next));
        WNAME(normal_apply)(&q, n, ca, cb, impulse);
        if (c->has_restitution)
            WNAME(add_work)(wp, &q, n, impulse, vn);
    }
    // Friction in the relax pass only (Box3D's order): the soft push does not fight it, and the
    // relaxed normal impulses set its limits.
    if (!prm->use_bias) {
        WF friction = W(load)(c->friction);
        // Twist about the normal, within friction x the normal impulses' moment about the centre.
        WF twist_speed = WNAME(dot)(n, WNAME(sub3)(q.B.w, q.A.w));
        WF old_twist = W(load)(c->twist_impulse);
        WF limit = W(mul)(friction, twist_limit);
        WF twist = W(sub)(old_twist, W(mul)(W(load)(c->twist_mass), twist_speed));
        twist = W(max)(W(min)(twist, limit), W(sub)(zero, limit));
        W(store)(c->twist_impulse, twist);
        WF dt = W(sub)(twist, old_twist);
        WNAME(angular_apply)(&q, (WNAME(vec)){W(mul)(dt, n.x), W(mul)(dt, n.y), W(mul)(dt, n.z)});
        // Central friction: one 2D impulse at the friction centre, within the Coulomb disc of
        // the total normal impulse.
        WNAME(vec) t1 = WNAME(load3)(c->t1), t2 = WNAME(load3)(c->t2);
        WNAME(vec) ra = WNAME(load3)(c->center_a), rb = WNAME(load3)(c->center_b);
        WNAME(vec)
        vr = WNAME(sub3)(WNAME(add3)(q.B.v, WNAME(cross)(q.B.w, rb)),
                         WNAME(add3)(q.A.v, WNAME(cross)(q.A.w, ra)));
        WF v1 = WNAME(dot)(vr, t1), v2 = WNAME(dot)(vr, t2);
        WF m11 = W(load)(c->tangent_mass[0]), m12 = W(load)(c->tangent_mass[1]),
           m22 = W(load)(c->tangent_mass[2]);
        WF old1 = W(load)(c->friction_impulse[0]), old2 = W(load)(c->friction_impulse[1]);
        WF l1 = W(sub)(old1, W(add)(W(mul)(m11, v1), W(mul)(m12, v2)));
        WF l2 = W(sub)(old2, W(add)(W(mul)(m12, v1), W(mul)(m22, v2)));
        WF max_friction = W(mul)(friction, total_normal);
        WF len2 = W(add)(W(mul)(l1, l1), W(mul)(l2, l2));
        WM outside = W(cmpgt)(len2, W(mul)(max_friction, max_friction));
        // Most resting manifolds sit inside the disc: the square root and division only when
        // some lane is outside (the same bits either way).
        if (WMASK(movemask)(outside)) {
            WF scale = W(select)(W(cmpgt)(len2, zero), W(div)(max_friction, WSQRT(len2)), zero);
            l1 = W(select)(outside, W(mul)(l1, scale), l1);
            l2 = W(select)(outside, W(mul)(l2, scale), l2);
        }
        W(store)(c->friction_impulse[0], l1);
        W(store)(c->friction_impulse[1], l2);
        WF d1 = W(sub)(l1, old1), d2 = W(sub)(l2, old2);
        WNAME(vec)
        P = WNAME(add3)((WNAME(vec)){W(mul)(d1, t1.x), W(mul)(d1, t1.y), W(mul)(d1, t1.z)},
                        (WNAME(vec)){W(mul)(d2, t2.x), W(mul)(d2, t2.y), W(mul)(d2, t2.z)});
        WNAME(linear_apply)(&q, ra, rb, P);
    }
    WNAME(scatter_pair)(states, c, &q, &rows_a, &rows_b);
}

// Restitution (Newton's rule, as Box2D): a point that closed faster than the threshold and
// pushed is driven to -e times its approach speed at the step's start. That speed is stale for a
// corner of a spinning body (it closes at another speed by the time it meets), and reversing it
// can put energy in (up to 8 % per contact between spinning boxes). So each manifold's bounce is
// held to e^2 of the kinetic energy its own impulses took from the pair this step (their work,
// exact for sequential impulses): an impulse that would pass it is cut to the one that meets it.
WATTR void WNAME(vxk_wide_restitution)(vxk_solver_state* states, vxk_wide_constraint* c,
                                       const vxk_wide_params* prm)
{
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(pair) q = WNAME(gather_pair)(states, c, &rows_a, &rows_b);
    WNAME(vec) n = WNAME(load3)(c->normal);
    const WF zero = W(broadcast)(0.0f), two = W(broadcast)(2.0f), half = W(broadcast)(0.5f);
    const WF threshold = W(broadcast)(-prm->restitution_threshold);
    WF restitution = W(load)(c->restitution);
    WM has = W(cmpneq)(restitution, zero);
    // What the bounce may still give: e^2 x the energy the manifold took, less what it gave.
    WF taken = zero;
    for (uint32_t p = 0; p < c->point_count; ++p)
        taken = W(sub)(taken, W(load)(c->points[p].step_work));
    WF budget = W(sub)(W(mul)(W(mul)(restitution, restitution), taken), W(load)(c->bounce_work));
    WF spent = zero;
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_wide_point* wp = &c->points[p];
        WF rv = W(load)(wp->relative_velocity);
        // Points that closed faster than the threshold and pushed; NaN-safe as the scalar
        // solver's skip test (rv > -threshold || max_normal_impulse == 0).
        WM active = WMASK(andnot)(has, WMASK(or)(W(cmpgt)(rv, threshold),
                                                 W(cmpeq)(W(load)(wp->max_normal_impulse), zero)));
        WNAME(vec) ca, cb;
        WF vn = WNAME(normal_velocity)(&q, n, WNAME(load3)(wp->ra), WNAME(load3)(wp->rb), &ca, &cb);
        WF old = W(load)(wp->normal_impulse);
        WF mass = W(load)(wp->normal_mass);
        WF impulse = W(sub)(zero, W(mul)(mass, W(add)(vn, W(mul)(restitution, rv))));
        WF next = W(max)(W(add)(old, impulse), zero);
        impulse = W(sub)(next, old);
        // The work of this impulse, vn dl + dl^2 / (2 mass); within the budget left, the largest
        // dl >= 0 of at most that work is mass (-vn + sqrt(vn^2 + 2 left / mass)).
        WF inv_mass = W(select)(W(cmpgt)(mass, zero), W(div)(W(broadcast)(1.0f), mass), zero);
        WF work =
            W(add)(W(mul)(vn, impulse), W(mul)(W(mul)(half, inv_mass), W(mul)(impulse, impulse)));
        WF left = W(max)(W(sub)(budget, spent), zero);
        WM over = WMASK(and)(W(cmpgt)(work, left), W(cmpgt)(impulse, zero));
        if (WMASK(movemask)(WMASK(and)(over, active))) {
            WF root =
                WSQRT(W(max)(W(add)(W(mul)(vn, vn), W(mul)(W(mul)(two, left), inv_mass)), zero));
            WF capped = W(max)(W(mul)(mass, W(sub)(root, vn)), zero);
            impulse = W(select)(over, W(min)(impulse, capped), impulse);
            work = W(select)(over,
                             W(add)(W(mul)(vn, impulse),
                                    W(mul)(W(mul)(half, inv_mass), W(mul)(impulse, impulse))),
                             work);
        }
        impulse = W(select)(active, impulse, zero);
        spent = W(add)(spent, W(select)(active, work, zero));
        W(store)(wp->normal_impulse, W(add)(old, impulse));
        WNAME(normal_apply)(&q, n, ca, cb, impulse);
    }
    W(store)(c->bounce_work, W(add)(W(load)(c->bounce_work), spent));
    WNAME(scatter_pair)(states, c, &q, &rows_a, &rows_b);
}
