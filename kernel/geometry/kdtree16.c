// kdtree16.c: the 16-bit quantized variant of the loose kD tree (seed 000, "Loose kD tree"; layout
// in vxk/kdtree16.h): grid quantization and welding, the build through the float builder's rules,
// leaves of up to 16 quads tested 8 at a time, and validation.
#include "kdtree_internal.h"

_Static_assert(sizeof(vxk_kdtree16_node) == 6, "the quantized kD node is 6 bytes");

// ---- quantized leaves ---------------------------------------------------------------------------

// Candidate k of a leaf's test (the leaf's k-th quad, primitive prim): taken by the tie rule,
// after the degeneracy test for a quad that is not a rectangle. A leaf of rectangles (whose
// kernel reports t alone) gets u and v of a taken hit here, from the quad's corners in the frame.
// True when `any` and it was taken (the search stops).
static inline __attribute__((always_inline)) bool
take_quad(const kd_view* view, const kd_tests* tests, const kd_decoded* leaf, uint32_t k,
          const vxk_kdtree_hit* cand, bool any, vxk_kdtree_hit* best)
{
    if (leaf->p[1]) {
        if (!any && !kd_better(cand->t, cand->primitive, best))
            return false;
        *best = *cand;
        if (tests->uv) {
            vxk_vec3 p0 = kd_shift_corner(tests, kd_fetch_vertex(view, true, leaf, k, 0));
            vxk_vec3 p1 = kd_shift_corner(tests, kd_fetch_vertex(view, true, leaf, k, 1));
            vxk_vec3 p3 = kd_shift_corner(tests, kd_fetch_vertex(view, true, leaf, k, 3));
            const float v0[3] = {p0.x, p0.y, p0.z};
            const float e1[3] = {p1.x - p0.x, p1.y - p0.y, p1.z - p0.z};
            const float e2[3] = {p3.x - p0.x, p3.y - p0.y, p3.z - p0.z};
            vxk_ray_rect1_uv(&tests->rect, best->t, v0, e1, e2, &best->u, &best->v);
        }
        return any;
    }
    {
        vxk_vec3 p0 = kd_fetch_vertex(view, true, leaf, k, 0);
        vxk_vec3 e1 = kd_v3_sub(kd_fetch_vertex(view, true, leaf, k, 1), p0);
        vxk_vec3 e2 = kd_v3_sub(kd_fetch_vertex(view, true, leaf, k, 3), p0);
        const float f1[3] = {e1.x, e1.y, e1.z}, f2[3] = {e2.x, e2.y, e2.z};
        if (!vxk_quad_is_rect(f1, f2))
            return kd_take_candidate(tests, e1, e2, cand, any, best);
    }
    if (any || kd_better(cand->t, cand->primitive, best))
        *best = *cand;
    return any;
}

// The quads of a kd_slotted leaf against the ray, 8 at a time: a leaf of rectangles by
// vxk_ray_qrect8, any other by vxk_ray_qquad8 (both the tests' operations on the leaf's rows,
// dequantized with the frame's origin, so they find the same hits as kd_quad_test), bounded by the
// best hit so far; the candidates then take the degeneracy test (quads that are not rectangles)
// and the tie rule in slot order, as the scalar loop would. When the frame's origin is not exact
// in float, the quads go one by one through kd_quad_test. True when `any` and a quad was hit.
static inline __attribute__((always_inline)) bool leaf_quads8(const kd_view* view,
                                                              const kd_tests* tests,
                                                              const kd_decoded* leaf, bool any,
                                                              vxk_kdtree_hit* best)
{
    uint32_t first = leaf->p[0], w = leaf->child;
    if (__builtin_expect(tests->one_by_one, 0)) {
        for (uint32_t k = 0; k < w; ++k) {
            float t, u, v;
            if (!kd_test_prim(view, true, tests, leaf, k, best->t, &t, &u, &v))
                continue;
            vxk_kdtree_hit cand = {t, u, v, view->qids[first + k]};
            if (any || kd_better(t, cand.primitive, best))
                *best = cand;
            if (any)
                return true;
        }
        return false;
    }
    const uint16_t* rows = view->qvertices + 9 * (size_t)first;
    vxk_rect_ray rect = tests->rect;
    for (uint32_t base = 0; base < w; base += 8) {
        // a hit in the block before bounds this one
        rect.tmax = best->t;
        vxk_hit8 h;
        uint32_t n = VXK_MIN(w - base, 8u), found;
        if (leaf->p[1]) {
            found = vxk_ray_qrect8(&rect, rows + base, w, n, tests->qorigin, view->step, &h);
        } else {
            vxk_simd_ray r = {{rect.o[0], rect.o[1], rect.o[2]},
                              {rect.d[0], rect.d[1], rect.d[2]},
                              0.0f,
                              best->t};
            found = vxk_ray_qquad8(&r, rows + base, w, n, tests->qorigin, view->step, &h);
        }
        for (; found; found &= found - 1) {
            uint32_t j = (uint32_t)__builtin_ctz(found), k = base + j;
            vxk_kdtree_hit cand = {h.t[j], h.u[j], h.v[j], view->qids[first + k]};
            if (take_quad(view, tests, leaf, k, &cand, any, best))
                return true;
        }
    }
    return false;
}

static inline __attribute__((always_inline)) int kd_ray_leaf(const kd_view* view,
                                                             const kd_tests* tests,
                                                             const kd_decoded* leaf, bool any,
                                                             vxk_kdtree_hit* best)
{
    if (!kd_slotted(view, true))
        return -1;
    return leaf_quads8(view, tests, leaf, any, best) ? 1 : 0;
}

// ---- quantization and build ---------------------------------------------------------------------

// Triangle leaves pack a 2-bit count and the primitive indices into 46 bits: 4 indices of 11 bits
// (count - 1 stored) for 1..2048 triangles, else 3 of 14 bits (count stored).
static void tri_leaf_format(uint32_t n, uint32_t* id_bits, uint32_t* count_bias)
{
    bool narrow = n > 0 && n <= 2048;
    *id_bits = narrow ? 11u : 14u;
    *count_bias = narrow ? 1u : 0u;
}

static kd_view view_of16(const vxk_kdtree16* tree)
{
    // every field set one by one: a memset of the view costs more than a whole ray test
    kd_view v;
    v.nodes = NULL;
    v.vertices = NULL;
    v.indices = NULL;
    v.nodes16 = tree->nodes;
    v.qvertices = tree->vertices;
    v.qindices = tree->indices;
    v.qids = tree->ids;
    tri_leaf_format(tree->primitive_count, &v.id_bits, &v.count_bias);
    v.corners = tree->corners;
    v.depth = tree->depth;
    v.primitive_count = tree->primitive_count;
    v.origin[0] = tree->origin.x;
    v.origin[1] = tree->origin.y;
    v.origin[2] = tree->origin.z;
    v.step[0] = tree->step.x;
    v.step[1] = tree->step.y;
    v.step[2] = tree->step.z;
    v.bounds = tree->bounds;
    return v;
}

static inline float dequantize(float origin, float step, uint32_t q)
{
    return origin + (float)q * step;
}

static void sort_u64(uint64_t* a, uint32_t n)
{
    // shell sort (Ciura gaps): no recursion, no allocation, fast for chunk-sized inputs
    static const uint32_t gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); ++g) {
        uint32_t gap = gaps[g];
        for (uint32_t i = gap; i < n; ++i) {
            uint64_t v = a[i];
            uint32_t j = i;
            while (j >= gap && a[j - gap] > v) {
                a[j] = a[j - gap];
                j -= gap;
            }
            a[j] = v;
        }
    }
}

// The finest power-of-two step that spans [origin, hi] in 65535 steps.
static float pick_step(float origin, float hi)
{
    double extent = (double)hi - (double)origin;
    int k = 16;
    while (k > -140 && extent > 65535.0 * ldexp(1.0, -k))
        --k;
    return (float)ldexp(1.0, -k);
}

static size_t block(size_t bytes)
{
    return bytes ? bytes : 1;
}

static size_t ids_bytes(const vxk_kdtree16* tree)
{
    return tree->ids ? (size_t)tree->primitive_count * sizeof(uint16_t) : 0;
}

static size_t qindex_bytes(const vxk_kdtree16* tree)
{
    return tree->indices ? (size_t)tree->primitive_count * tree->corners * sizeof(uint16_t) : 0;
}

// Bytes after a quad tree's slot ids: the leaf test's vector loads read 16 bytes from each
// coordinate row, up to 14 bytes past the geometry.
#define KD16_PAD 16u

// Everything a quantized tree owns lives in one block: nodes, vertices, indices or slot ids (and
// the quad tree's padding).
static size_t block16_bytes(const vxk_kdtree16* t)
{
    return (size_t)t->node_count * sizeof(vxk_kdtree16_node) +
           (size_t)t->vertex_count * 3 * sizeof(uint16_t) + qindex_bytes(t) + ids_bytes(t) +
           (t->ids ? KD16_PAD : 0);
}

static void free16(vxk_kdtree16* t)
{
    if (t->nodes)
        vxk_free(t->nodes, block(block16_bytes(t)));
    memset(t, 0, sizeof(*t));
}

static uint16_t quantize(float x, float origin, float step)
{
    double q = floor(((double)x - (double)origin) / (double)step + 0.5);
    q = q < 0.0 ? 0.0 : (q > 65535.0 ? 65535.0 : q);
    return (uint16_t)q;
}

// Triangles: welded uint16 vertices into qv (3 * mesh->vertex_count capacity; *unique_out used)
// and uint16 indices in the mesh's order into qi. Fills deq (the dequantized welded vertices) and
// windices (the welded indices as uint32) for the builder.
static vxk_status quantize_triangles(uint16_t* qv, uint16_t* qi, uint32_t* unique_out,
                                     const vxk_mesh* mesh, const float* origin, const float* step,
                                     vxk_vec3* deq, uint32_t* windices)
{
    uint32_t nv = mesh->vertex_count;
    size_t index_count = (size_t)mesh->primitive_count * 3;
    size_t nv1 = nv ? nv : 1;
    uint32_t* remap = (uint32_t*)vxk_alloc(nv1 * sizeof(uint32_t));
    uint64_t* keys = (uint64_t*)vxk_alloc(nv1 * sizeof(uint64_t));
    if (!remap || !keys) {
        vxk_free(remap, nv1 * sizeof(uint32_t));
        vxk_free(keys, nv1 * sizeof(uint64_t));
        return VXK_ERR_OUT_OF_MEMORY;
    }
    // weld vertices that quantize to the same grid point (meshers emit four corners per quad):
    // sort (position, id) keys; each run of equal positions becomes one vertex
    for (uint32_t i = 0; i < nv; ++i) {
        vxk_vec3 p = mesh->vertices[i];
        uint64_t qx = quantize(p.x, origin[0], step[0]), qy = quantize(p.y, origin[1], step[1]);
        uint64_t qz = quantize(p.z, origin[2], step[2]);
        keys[i] = (qz << 48) | (qy << 32) | (qx << 16) | i;
    }
    sort_u64(keys, nv);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < nv; ++k) {
        if (k == 0 || (keys[k] >> 16) != (keys[k - 1] >> 16)) {
            uint64_t pos = keys[k] >> 16;
            uint16_t* q = qv + 3 * (size_t)unique;
            q[0] = (uint16_t)pos;
            q[1] = (uint16_t)(pos >> 16);
            q[2] = (uint16_t)(pos >> 32);
            deq[unique] = (vxk_vec3){dequantize(origin[0], step[0], q[0]),
                                     dequantize(origin[1], step[1], q[1]),
                                     dequantize(origin[2], step[2], q[2])};
            ++unique;
        }
        remap[keys[k] & 0xFFFFu] = unique - 1;
    }
    vxk_free(keys, nv1 * sizeof(uint64_t));
    for (size_t i = 0; i < index_count; ++i) {
        qi[i] = (uint16_t)remap[mesh->indices[i]];
        windices[i] = qi[i];
    }
    vxk_free(remap, nv1 * sizeof(uint32_t));
    *unique_out = unique;
    return VXK_OK;
}

// Quads: the parallelogram corners v0, v1, v3 of each quad quantized into g (9 per primitive, in
// the mesh's order); deq gets all four dequantized corners (v2 = v1 + (v3 - v0)) and windices the
// identity, for the builder.
static void quantize_quads(uint16_t* g, const vxk_mesh* mesh, const float* origin,
                           const float* step, vxk_vec3* deq, uint32_t* windices)
{
    static const uint32_t stored[3] = {0, 1, 3};
    for (uint32_t p = 0; p < mesh->primitive_count; ++p) {
        vxk_vec3 w[3];
        for (int c = 0; c < 3; ++c) {
            vxk_vec3 v = mesh->vertices[mesh->indices[4 * (size_t)p + stored[c]]];
            uint16_t* q = g + 9 * (size_t)p + 3 * c;
            q[0] = quantize(v.x, origin[0], step[0]);
            q[1] = quantize(v.y, origin[1], step[1]);
            q[2] = quantize(v.z, origin[2], step[2]);
            w[c] = (vxk_vec3){dequantize(origin[0], step[0], q[0]),
                              dequantize(origin[1], step[1], q[1]),
                              dequantize(origin[2], step[2], q[2])};
        }
        vxk_vec3* d = deq + 4 * (size_t)p;
        d[0] = w[0];
        d[1] = w[1];
        d[2] = kd_quad_corner2(w[0], w[1], w[2]);
        d[3] = w[2];
        for (uint32_t c = 0; c < 4; ++c)
            windices[4 * (size_t)p + c] = 4 * p + c;
    }
}

// The quantized node of a built float node; leaves come as slot ranges of `order`.
static vxk_kdtree16_node to_node16(vxk_kdtree_node src, const uint32_t* order, bool quads,
                                   uint32_t id_bits, uint32_t count_bias, const float* origin,
                                   const float* step)
{
    vxk_kdtree16_node dst;
    uint32_t axis = src.info & KD_AXIS_MASK;
    if (axis == VXK_KD_LEAF) {
        uint32_t count = src.info >> KD_SHIFT, first = src.primitives[0];
        if (quads) {
            dst.a = (uint16_t)first;
            dst.b = 0;
            dst.info = (uint16_t)(VXK_KD_LEAF | (count << KD_SHIFT));
            return dst;
        }
        VXK_ASSERT(count >= count_bias && count - count_bias <= 3);
        uint64_t bits = count - count_bias;
        for (uint32_t k = 0; k < count; ++k)
            bits |= (uint64_t)order[first + k] << (2 + id_bits * k);
        dst.a = (uint16_t)bits;
        dst.b = (uint16_t)(bits >> 16);
        dst.info = (uint16_t)(VXK_KD_LEAF | ((bits >> 32) << KD_SHIFT));
        return dst;
    }
    uint32_t child = src.info >> KD_SHIFT;
    VXK_ASSERT(child % 2 == 1 && (child - 1) / 2 < (1u << 14));
    float o = origin[axis], s = step[axis];
    // round outward: the left plane up, the right plane down, so the tree stays loose-correct
    double q0 = ceil(((double)src.splits[0] - o) / s);
    double q1 = floor(((double)src.splits[1] - o) / s);
    q0 = q0 < 0.0 ? 0.0 : (q0 > 65535.0 ? 65535.0 : q0);
    q1 = q1 < 0.0 ? 0.0 : (q1 > 65535.0 ? 65535.0 : q1);
    uint32_t a0 = (uint32_t)q0, a1 = (uint32_t)q1;
    while (a0 < 65535 && dequantize(o, s, a0) < src.splits[0])
        ++a0;
    while (a1 > 0 && dequantize(o, s, a1) > src.splits[1])
        --a1;
    dst.a = (uint16_t)a0;
    dst.b = (uint16_t)a1;
    dst.info = (uint16_t)(axis | (((child - 1) / 2) << KD_SHIFT));
    return dst;
}

vxk_status vxk_kdtree16_build(vxk_kdtree16* tree, const vxk_mesh* mesh, void* scratch,
                              size_t scratch_size)
{
    if (!tree)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = vxk_kd_check_mesh(mesh);
    if (status != VXK_OK)
        return status;
    // quads keep copies of their corners, so only triangles index vertices with uint16
    if (mesh->primitive_count > VXK_KD16_MAX_PRIMITIVES ||
        (mesh->corners == 3 && mesh->vertex_count > VXK_KD16_MAX_VERTICES))
        return VXK_ERR_UNSUPPORTED;
    uint32_t n = mesh->primitive_count, corners = mesh->corners;
    bool quads = corners == 4;
    uint32_t id_bits, count_bias;
    tri_leaf_format(n, &id_bits, &count_bias);
    size_t need = vxk_kdtree_build_scratch_size(n);
    if (scratch && (scratch_size < need || ((uintptr_t)scratch & 7u)))
        return VXK_ERR_CAPACITY;
    vxk_kdtree16 built;
    memset(&built, 0, sizeof(built));
    built.primitive_count = n;
    built.corners = corners;

    // grid: per-axis integer origin below the stored corners, power-of-two step
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    bool any = false;
    for (size_t i = 0; i < (size_t)n * corners; ++i) {
        if (quads && i % 4 == 2) // v2 is derived, not stored
            continue;
        vxk_vec3 p = mesh->vertices[mesh->indices[i]];
        float pa[3] = {p.x, p.y, p.z};
        for (int a = 0; a < 3; ++a) {
            lo[a] = !any || pa[a] < lo[a] ? pa[a] : lo[a];
            hi[a] = !any || pa[a] > hi[a] ? pa[a] : hi[a];
        }
        any = true;
    }
    float origin[3], step[3];
    for (int a = 0; a < 3; ++a) {
        origin[a] = floorf(lo[a]);
        step[a] = pick_step(origin[a], hi[a]);
    }
    built.origin = (vxk_vec3){origin[0], origin[1], origin[2]};
    built.step = (vxk_vec3){step[0], step[1], step[2]};

    // builder inputs: dequantized corners and uint32 indices into them
    size_t deq_count = quads ? 4 * (size_t)n : mesh->vertex_count;
    size_t deq_bytes = block(deq_count * sizeof(vxk_vec3));
    size_t win_bytes = block((size_t)n * corners * sizeof(uint32_t));
    size_t geo_bytes = block(9 * (size_t)n * sizeof(uint16_t));
    vxk_vec3* deq = (vxk_vec3*)vxk_alloc(deq_bytes);
    uint32_t* windices = (uint32_t*)vxk_alloc(win_bytes);
    // quads: 9 coordinates per quad; triangles: the vertices, then the indices
    size_t tv_count = quads ? 0 : 3 * (size_t)mesh->vertex_count;
    if (!quads)
        geo_bytes = block((tv_count + 3 * (size_t)n) * sizeof(uint16_t));
    uint16_t* geo = (uint16_t*)vxk_alloc(geo_bytes);
    void* owned = scratch ? NULL : vxk_alloc(block(need));
    vxk_kdtree_node* work = (vxk_kdtree_node*)(scratch ? scratch : owned);
    status = deq && windices && geo && work ? VXK_OK : VXK_ERR_OUT_OF_MEMORY;
    uint32_t unique = 0;
    if (status == VXK_OK) {
        if (quads)
            quantize_quads(geo, mesh, origin, step, deq, windices);
        else
            status =
                quantize_triangles(geo, geo + tv_count, &unique, mesh, origin, step, deq, windices);
    }
    uint32_t capacity = n > 1 ? 2 * n - 1 : 1;
    uint32_t* order = (uint32_t*)(work + capacity);
    uint32_t node_count = 0;
    if (status == VXK_OK) {
        node_count = vxk_kd_build_nodes(work, deq, windices, n, corners, order,
                                        quads ? VXK_KD16_QUAD_LEAF_MAX : 3u + count_bias, true,
                                        &built.depth, &built.bounds);
        // one block (nodes, then geometry), so a ray reads one contiguous stretch of memory
        size_t nb = (size_t)node_count * sizeof(vxk_kdtree16_node);
        size_t vb = (size_t)(quads ? 3 * n : unique) * 3 * sizeof(uint16_t);
        size_t rest = (size_t)n * (quads ? 1 : 3) * sizeof(uint16_t);
        uint8_t* mem = (uint8_t*)vxk_alloc(block(nb + vb + rest + (quads ? KD16_PAD : 0)));
        if (!mem) {
            status = VXK_ERR_OUT_OF_MEMORY;
        } else {
            built.nodes = (vxk_kdtree16_node*)mem;
            built.node_count = node_count;
            built.vertices = (uint16_t*)(mem + nb);
            built.vertex_count = quads ? 3 * n : unique;
            for (uint32_t i = 0; i < node_count; ++i)
                built.nodes[i] =
                    to_node16(work[i], order, quads, id_bits, count_bias, origin, step);
            if (quads) { // geometry and quad index in leaf order: a leaf is contiguous
                built.ids = (uint16_t*)(mem + nb + vb);
                for (uint32_t slot = 0; slot < n; ++slot)
                    built.ids[slot] = (uint16_t)order[slot];
                // each leaf's 9 coordinate rows (see kd_fetch_vertex)
                for (uint32_t i = 0; i < node_count; ++i) {
                    if ((work[i].info & KD_AXIS_MASK) != VXK_KD_LEAF)
                        continue;
                    uint32_t first = work[i].primitives[0], w = work[i].info >> KD_SHIFT;
                    uint16_t* rows = built.vertices + 9 * (size_t)first;
                    bool rects = true;
                    for (uint32_t k = 0; k < w; ++k) {
                        for (uint32_t j = 0; j < 9; ++j)
                            rows[j * w + k] = geo[9 * (size_t)order[first + k] + j];
                        rects &= kd_quad_rect(deq + 4 * (size_t)order[first + k]);
                    }
                    built.nodes[i].b = rects ? 1u : 0u;
                }
                memset(mem + nb + vb + rest, 0, KD16_PAD);
            } else {
                built.indices = (uint16_t*)(mem + nb + vb);
                memcpy(built.vertices, geo, vb);
                memcpy(built.indices, geo + tv_count, rest);
            }
            VXK_ASSERT(block16_bytes(&built) == nb + vb + rest + (quads ? KD16_PAD : 0));
        }
    }
    vxk_free(deq, deq_bytes);
    vxk_free(windices, win_bytes);
    vxk_free(geo, geo_bytes);
    if (owned)
        vxk_free(owned, block(need));
    if (status != VXK_OK)
        return status;
    *tree = built;
    return VXK_OK;
}

void vxk_kdtree16_free(vxk_kdtree16* tree)
{
    if (tree)
        free16(tree);
}

size_t vxk_kdtree16_bytes(const vxk_kdtree16* tree)
{
    return tree ? (size_t)tree->node_count * sizeof(vxk_kdtree16_node) : 0;
}

size_t vxk_kdtree16_total_bytes(const vxk_kdtree16* tree)
{
    if (!tree)
        return 0;
    return block16_bytes(tree);
}

vxk_status vxk_kdtree16_dequantize(const vxk_kdtree16* tree, vxk_mesh* out)
{
    if (!tree || !out || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    bool quads = tree->corners == 4;
    size_t index_count = (size_t)tree->primitive_count * tree->corners;
    vxk_mesh m;
    memset(&m, 0, sizeof(m));
    m.vertex_count = quads ? (uint32_t)index_count : tree->vertex_count;
    m.primitive_count = tree->primitive_count;
    m.corners = tree->corners;
    m.vertices = (vxk_vec3*)vxk_alloc((size_t)m.vertex_count * sizeof(vxk_vec3));
    m.indices = (uint32_t*)vxk_alloc(index_count * sizeof(uint32_t));
    if ((m.vertex_count && !m.vertices) || (index_count && !m.indices)) {
        vxk_mesh_free(&m);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    if (quads) { // four corners per quad in primitive order, leaf after leaf
        kd_view view = view_of16(tree);
        for (uint32_t i = 0; i < tree->node_count; ++i) {
            kd_decoded d = kd_decode(&view, true, i);
            if (d.axis != VXK_KD_LEAF)
                continue;
            for (uint32_t k = 0; k < d.child; ++k) {
                uint32_t p = tree->ids[d.p[0] + k];
                for (uint32_t c = 0; c < 4; ++c) {
                    m.vertices[4 * (size_t)p + c] = kd_fetch_vertex(&view, true, &d, k, c);
                    m.indices[4 * (size_t)p + c] = 4 * p + c;
                }
            }
        }
        *out = m;
        return VXK_OK;
    }
    for (uint32_t i = 0; i < tree->vertex_count; ++i) {
        const uint16_t* q = tree->vertices + 3 * (size_t)i;
        m.vertices[i] = (vxk_vec3){dequantize(tree->origin.x, tree->step.x, q[0]),
                                   dequantize(tree->origin.y, tree->step.y, q[1]),
                                   dequantize(tree->origin.z, tree->step.z, q[2])};
    }
    for (size_t i = 0; i < index_count; ++i)
        m.indices[i] = tree->indices[i];
    *out = m;
    return VXK_OK;
}

VXK_PREFETCH_INLINE void prefetch16(const vxk_kdtree16* t)
{
    vxk_prefetch_span(t->nodes, block16_bytes(t), KD_PREFETCH_BYTES);
}

size_t vxk_kdtree16_query_scratch_size(const vxk_kdtree16* tree)
{
    return tree ? ((size_t)tree->depth + 1) * sizeof(kd_ray_entry) : 0;
}

uint32_t vxk_kdtree16_query_aabb(const vxk_kdtree16* tree, uint32_t* out, uint32_t capacity,
                                 const vxk_aabb* box, void* scratch)
{
    if (!tree || !tree->nodes || (!out && capacity))
        return 0;
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, kd_query_aabb(&view, true, out, capacity, box, scratch));
}

// The quantized tree's queries, as float_raycast and float_raycast_any.
static bool q16_raycast(const vxk_kdtree16* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                        const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return kd_no_tree(hit, ray);
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, kd_raycast(&view, true, hit, ray, frame, false, scratch));
}

static bool q16_raycast_any(const vxk_kdtree16* tree, const vxk_kdtree_ray* ray,
                            const vxk_kdtree_frame* frame, void* scratch)
{
    if (!tree || !tree->nodes)
        return false;
    prefetch16(tree);
    kd_view view = view_of16(tree);
    return KD_BY_CORNERS(view, kd_raycast(&view, true, NULL, ray, frame, true, scratch));
}

bool vxk_kdtree16_raycast_framed(const vxk_kdtree16* tree, vxk_kdtree_hit* hit,
                                 const vxk_kdtree_ray* ray, const vxk_kdtree_frame* frame, bool any,
                                 void* scratch)
{
    return any ? q16_raycast_any(tree, ray, frame, scratch)
               : q16_raycast(tree, hit, ray, frame, scratch);
}

bool vxk_kdtree16_raycast(const vxk_kdtree16* tree, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
                          void* scratch)
{
    return q16_raycast(tree, hit, ray, NULL, scratch);
}

bool vxk_kdtree16_raycast_any(const vxk_kdtree16* tree, const vxk_kdtree_ray* ray, void* scratch)
{
    return q16_raycast_any(tree, ray, NULL, scratch);
}

vxk_status vxk_kdtree16_validate(const vxk_kdtree16* tree)
{
    if (!tree || !tree->nodes)
        return VXK_ERR_INVALID_ARGUMENT;
    kd_view view = view_of16(tree);
    return vxk_kd_validate_view(&view, true, tree->node_count, tree->depth);
}
