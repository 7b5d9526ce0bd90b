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

// Relative velocity of B against A along the axis d: (vB - vA) . d + wB . cb - wA . ca.
static inline WF WNAME(axis_velocity)(const WNAME(body) * A, const WNAME(body) * B,
                                      const vxk_wide_axis* r, WNAME(vec) d)
{
    return W(sub)(
        W(add)(WNAME(dot)(WNAME(sub3)(B->v, A->v), d), WNAME(dot)(B->w, WNAME(load3)(r->cb))),
        WNAME(dot)(A->w, WNAME(load3)(r->ca)));
}

static inline void WNAME(axis_apply)(WNAME(body) * A, WNAME(body) * B, WF inv_mass_a, WF inv_mass_b,
                                     const vxk_wide_axis* r, WNAME(vec) d, WF impulse)
{
    A->v = WNAME(mul_sub)(A->v, W(mul)(inv_mass_a, impulse), d);
    A->w = WNAME(mul_sub)(A->w, impulse, WNAME(load3)(r->ia));
    B->v = WNAME(mul_add)(B->v, W(mul)(inv_mass_b, impulse), d);
    B->w = WNAME(mul_add)(B->w, impulse, WNAME(load3)(r->ib));
}

static inline WNAME(vec) WNAME(cross)(WNAME(vec) a, WNAME(vec) b)
{
    return (WNAME(vec)){W(sub)(W(mul)(a.y, b.z), W(mul)(a.z, b.y)),
                        W(sub)(W(mul)(a.z, b.x), W(mul)(a.x, b.z)),
                        W(sub)(W(mul)(a.x, b.y), W(mul)(a.y, b.x))};
}

typedef struct WNAME(mat) {
    WNAME(vec) cx, cy, cz; // columns
} WNAME(mat);

static inline WNAME(mat) WNAME(gather_mat)(const vxk_mat3* m, const uint32_t* slot)
{
    float buf[9][VXK_WIDE_LANES];
    for (int i = 0; i < VXK_WIDE_LANES; ++i) {
        const vxk_mat3* s = &m[slot[i]];
        buf[0][i] = s->cx.x;
        buf[1][i] = s->cx.y;
        buf[2][i] = s->cx.z;
        buf[3][i] = s->cy.x;
        buf[4][i] = s->cy.y;
        buf[5][i] = s->cy.z;
        buf[6][i] = s->cz.x;
        buf[7][i] = s->cz.y;
        buf[8][i] = s->cz.z;
    }
    WNAME(mat) r;
    r.cx = WNAME(load3)((const float(*)[VXK_WIDE_LANES])buf);
    r.cy = WNAME(load3)((const float(*)[VXK_WIDE_LANES])(buf + 3));
    r.cz = WNAME(load3)((const float(*)[VXK_WIDE_LANES])(buf + 6));
    return r;
}

// m v = (cx v.x + cy v.y) + cz v.z, as vxk_mat3_mul_v.
static inline WNAME(vec) WNAME(mat_mul)(const WNAME(mat) * m, WNAME(vec) v)
{
    return WNAME(add3)(
        WNAME(add3)((WNAME(vec)){W(mul)(m->cx.x, v.x), W(mul)(m->cx.y, v.x), W(mul)(m->cx.z, v.x)},
                    (WNAME(vec)){W(mul)(m->cy.x, v.y), W(mul)(m->cy.y, v.y), W(mul)(m->cy.z, v.y)}),
        (WNAME(vec)){W(mul)(m->cz.x, v.z), W(mul)(m->cz.y, v.z), W(mul)(m->cz.z, v.z)});
}

// One axis of a point, as the scalar solver's make_row: k = ima + imb + ca . ia + cb . ib.
static inline void WNAME(prepare_axis)(vxk_wide_axis* out, const WNAME(mat) * IA,
                                       const WNAME(mat) * IB, WF ima_imb, WNAME(vec) ra,
                                       WNAME(vec) rb, WNAME(vec) d, WM valid)
{
    const WF zero = W(broadcast)(0.0f);
    WNAME(vec) ca = WNAME(cross)(ra, d), cb = WNAME(cross)(rb, d);
    WNAME(vec) ia = WNAME(mat_mul)(IA, ca), ib = WNAME(mat_mul)(IB, cb);
    WF k = W(add)(W(add)(ima_imb, WNAME(dot)(ca, ia)), WNAME(dot)(cb, ib));
    WF mass = W(select)(W(cmpgt)(k, zero), W(div)(W(broadcast)(1.0f), k), zero);
    WNAME(store3)(out->ca, ca);
    WNAME(store3)(out->cb, cb);
    WNAME(store3)(out->ia, ia);
    WNAME(store3)(out->ib, ib);
    W(store)(out->mass, W(select)(valid, mass, zero));
}

WATTR void WNAME(vxk_wide_prepare)(vxk_wide_constraint* c, const vxk_solver_state* states,
                                   const vxk_mat3* inv_i)
{
    WNAME(mat) IA = WNAME(gather_mat)(inv_i, c->a), IB = WNAME(gather_mat)(inv_i, c->b);
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(body) A = WNAME(gather_velocity)(states, c->a, &rows_a);
    WNAME(body) B = WNAME(gather_velocity)(states, c->b, &rows_b);
    WF ima_imb = W(add)(W(load)(c->inv_mass_a), W(load)(c->inv_mass_b));
    WNAME(vec) n = WNAME(load3)(c->normal), t1 = WNAME(load3)(c->t1), t2 = WNAME(load3)(c->t2);
    const WF zero = W(broadcast)(0.0f);
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_wide_point* wp = &c->points[p];
        WM valid = WMASK(from_bits)(c->point_lanes[p]);
        WNAME(vec) ra = WNAME(load3)(wp->ra), rb = WNAME(load3)(wp->rb);
        WNAME(prepare_axis)(&wp->n, &IA, &IB, ima_imb, ra, rb, n, valid);
        WNAME(prepare_axis)(&wp->t1, &IA, &IB, ima_imb, ra, rb, t1, valid);
        WNAME(prepare_axis)(&wp->t2, &IA, &IB, ima_imb, ra, rb, t2, valid);
        W(store)
        (wp->relative_velocity, W(select)(valid, WNAME(axis_velocity)(&A, &B, &wp->n, n), zero));
    }
}

WATTR void WNAME(vxk_wide_warm_start)(vxk_solver_state* states, const vxk_wide_constraint* c)
{
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(body) A = WNAME(gather_velocity)(states, c->a, &rows_a);
    WNAME(body) B = WNAME(gather_velocity)(states, c->b, &rows_b);
    WF ima = W(load)(c->inv_mass_a), imb = W(load)(c->inv_mass_b);
    WNAME(vec) n = WNAME(load3)(c->normal), t1 = WNAME(load3)(c->t1), t2 = WNAME(load3)(c->t2);
    for (uint32_t p = 0; p < c->point_count; ++p) {
        const vxk_wide_point* wp = &c->points[p];
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->n, n, W(load)(wp->normal_impulse));
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->t1, t1, W(load)(wp->tangent_impulse[0]));
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->t2, t2, W(load)(wp->tangent_impulse[1]));
    }
    WNAME(scatter_velocity)(states, c->a, c->write_a, A, &rows_a);
    WNAME(scatter_velocity)(states, c->b, c->write_b, B, &rows_b);
}

WATTR void WNAME(vxk_wide_solve)(vxk_solver_state* states, vxk_wide_constraint* c,
                                 const vxk_wide_params* prm)
{
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(body) A = WNAME(gather_velocity)(states, c->a, &rows_a);
    WNAME(body) B = WNAME(gather_velocity)(states, c->b, &rows_b);
    WNAME(pose) PA = WNAME(gather_pose)(states, c->a);
    WNAME(pose) PB = WNAME(gather_pose)(states, c->b);
    WF ima = W(load)(c->inv_mass_a), imb = W(load)(c->inv_mass_b);
    WNAME(vec) n = WNAME(load3)(c->normal);
    const WF zero = W(broadcast)(0.0f), one = W(broadcast)(1.0f);
    const WF inv_h = W(broadcast)(prm->inv_h), max_push = W(broadcast)(-prm->push_speed);
    WF bias_rate = W(load)(c->bias_rate);
    WF soft_mass = prm->use_bias ? W(load)(c->mass_scale) : one;
    WF soft_impulse = prm->use_bias ? W(load)(c->impulse_scale) : zero;
    // Passes alternate the direction of the walk over the points (prm->reverse): Gauss-Seidel in
    // one fixed order leaves a bias towards the points solved first, which a tall stack turns
    // into a lean.
    const uint32_t last = c->point_count - 1;
    for (uint32_t k = 0; k < c->point_count; ++k) {
        uint32_t p = prm->reverse ? last - k : k;
        vxk_wide_point* wp = &c->points[p];
        WF s = W(add)(WNAME(dot)(n, WNAME(sub3)(WNAME(anchor_delta)(&PB, WNAME(load3)(wp->rb)),
                                                WNAME(anchor_delta)(&PA, WNAME(load3)(wp->ra)))),
                      W(load)(wp->separation));
        // Speculative (s > 0): approach until the surfaces meet; else the soft push (solve) or
        // nothing (relax).
        WM speculative = W(cmpgt)(s, zero);
        WF soft_bias = prm->use_bias ? W(max)(W(mul)(bias_rate, s), max_push) : zero;
        WF bias = W(select)(speculative, W(mul)(s, inv_h), soft_bias);
        WF mass_scale = W(select)(speculative, one, soft_mass);
        WF impulse_scale = W(select)(speculative, zero, soft_impulse);
        WF vn = WNAME(axis_velocity)(&A, &B, &wp->n, n);
        WF old = W(load)(wp->normal_impulse);
        WF impulse =
            W(sub)(W(sub)(zero, W(mul)(W(mul)(W(load)(wp->n.mass), mass_scale), W(add)(vn, bias))),
                   W(mul)(impulse_scale, old));
        WF next = W(max)(W(add)(old, impulse), zero);
        impulse = W(sub)(next, old);
        W(store)(wp->normal_impulse, next);
        W(store)(wp->max_normal_impulse, W(max)(W(load)(wp->max_normal_impulse), impulse));
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->n, n, impulse);
    }
    WNAME(vec) t1 = WNAME(load3)(c->t1), t2 = WNAME(load3)(c->t2);
    WF friction = W(load)(c->friction);
    for (uint32_t k = 0; k < c->point_count; ++k) {
        uint32_t p = prm->reverse ? last - k : k;
        vxk_wide_point* wp = &c->points[p];
        WF old1 = W(load)(wp->tangent_impulse[0]), old2 = W(load)(wp->tangent_impulse[1]);
        WF l1 =
            W(sub)(old1, W(mul)(W(load)(wp->t1.mass), WNAME(axis_velocity)(&A, &B, &wp->t1, t1)));
        WF l2 =
            W(sub)(old2, W(mul)(W(load)(wp->t2.mass), WNAME(axis_velocity)(&A, &B, &wp->t2, t2)));
        // The Coulomb cone: the tangent impulse stays within friction * normal impulse.
        WF limit = W(mul)(friction, W(load)(wp->normal_impulse));
        WF len2 = W(add)(W(mul)(l1, l1), W(mul)(l2, l2));
        WM outside = W(cmpgt)(len2, W(mul)(limit, limit));
        // Most resting points sit inside the cone: the square root and division only when
        // some lane is outside (the same bits either way).
        if (WMASK(movemask)(outside)) {
            WF scale = W(select)(W(cmpgt)(len2, zero), W(div)(limit, WSQRT(len2)), zero);
            l1 = W(select)(outside, W(mul)(l1, scale), l1);
            l2 = W(select)(outside, W(mul)(l2, scale), l2);
        }
        W(store)(wp->tangent_impulse[0], l1);
        W(store)(wp->tangent_impulse[1], l2);
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->t1, t1, W(sub)(l1, old1));
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->t2, t2, W(sub)(l2, old2));
    }
    WNAME(scatter_velocity)(states, c->a, c->write_a, A, &rows_a);
    WNAME(scatter_velocity)(states, c->b, c->write_b, B, &rows_b);
}

WATTR void WNAME(vxk_wide_restitution)(vxk_solver_state* states, vxk_wide_constraint* c,
                                       const vxk_wide_params* prm)
{
    WNAME(velocity_rows) rows_a, rows_b;
    WNAME(body) A = WNAME(gather_velocity)(states, c->a, &rows_a);
    WNAME(body) B = WNAME(gather_velocity)(states, c->b, &rows_b);
    WF ima = W(load)(c->inv_mass_a), imb = W(load)(c->inv_mass_b);
    WNAME(vec) n = WNAME(load3)(c->normal);
    const WF zero = W(broadcast)(0.0f);
    const WF threshold = W(broadcast)(-prm->restitution_threshold);
    WF restitution = W(load)(c->restitution);
    WM has = W(cmpneq)(restitution, zero);
    for (uint32_t p = 0; p < c->point_count; ++p) {
        vxk_wide_point* wp = &c->points[p];
        WF rv = W(load)(wp->relative_velocity);
        // Points that closed faster than the threshold and pushed; NaN-safe as the scalar
        // solver's skip test (rv > -threshold || max_normal_impulse == 0).
        WM active = WMASK(andnot)(has, WMASK(or)(W(cmpgt)(rv, threshold),
                                                 W(cmpeq)(W(load)(wp->max_normal_impulse), zero)));
        WF vn = WNAME(axis_velocity)(&A, &B, &wp->n, n);
        WF old = W(load)(wp->normal_impulse);
        WF impulse = W(sub)(zero, W(mul)(W(load)(wp->n.mass), W(add)(vn, W(mul)(restitution, rv))));
        WF next = W(max)(W(add)(old, impulse), zero);
        impulse = W(select)(active, W(sub)(next, old), zero);
        W(store)(wp->normal_impulse, W(select)(active, next, old));
        WNAME(axis_apply)(&A, &B, ima, imb, &wp->n, n, impulse);
    }
    WNAME(scatter_velocity)(states, c->a, c->write_a, A, &rows_a);
    WNAME(scatter_velocity)(states, c->b, c->write_b, B, &rows_b);
}
