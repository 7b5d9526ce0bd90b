// test_vox.c: .vox import against references written here: a .vox writer for random models,
// palettes and scene graphs (all 48 signed-permutation rotations, of which 24 proper), a
// brute-force placer, an independent reader for the sample files, the hostile-file corpus in
// tests/data/vox, and seeded random mutations that must fail cleanly without leaking. Edge tests
// (harness.h): bad options and mappings, every truncation, flatten and world loads that change
// nothing; parse, flatten and world load out of memory.
#include <vxk/vox.h>
#include <vxk/world.h>

#include <dirent.h>
#include <math.h>
#include <string.h>

#include "test.h"
#include "status_lists.h"
#include "harness.h"
#include "scenes.h"

#define VXK_MAX(a, b) ((a) > (b) ? (a) : (b))

#define CHECK_OK(expr)                                              \
    do {                                                            \
        vxk_status st_ = (expr);                                    \
        VXK_CHECK_MSG(st_ == VXK_OK, "%s", vxk_status_string(st_)); \
    } while (0)

// ---- a .vox writer -------------------------------------------------------------------------

typedef struct wbuf {
    uint8_t* p;
    size_t n, cap;
} wbuf;

static void w_bytes(wbuf* b, const void* data, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (uint8_t*)realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}
static void w_i32(wbuf* b, int32_t v)
{
    uint8_t q[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    w_bytes(b, q, 4);
}
static void put_i32(uint8_t* p, int32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static int32_t get_i32(const uint8_t* p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}
static size_t w_chunk(wbuf* b, const char* id)
{
    size_t at = b->n;
    w_bytes(b, id, 4);
    w_i32(b, 0);
    w_i32(b, 0);
    return at;
}
static void w_chunk_end(wbuf* b, size_t at)
{
    put_i32(b->p + at + 4, (int32_t)(b->n - at - 12));
}
static void w_string(wbuf* b, const char* s)
{
    w_i32(b, (int32_t)strlen(s));
    w_bytes(b, s, strlen(s));
}

// ---- scenes described by the test (vox axes) -----------------------------------------------

enum { T_TRN = 1, T_GRP = 2, T_SHP = 3 };

typedef struct tmodel {
    int size[3];
    int count;
    uint8_t* xyzi;
} tmodel;

typedef struct tnode {
    int id, kind;
    int rot[9];
    int has_r, has_t;
    int t[3];
    int count;
    int refs[128]; // child ids (TRN: 1, GRP: count) or model ids (SHP)
} tnode;

#define MAX_TNODES 160
#define MAX_TMODELS 48
typedef struct tscene {
    int version;
    int model_count;
    tmodel models[MAX_TMODELS];
    int node_count;
    tnode nodes[MAX_TNODES];
    int has_rgba;
    uint8_t rgba[256][4]; // as in the RGBA chunk: entry i = colour index i + 1
} tscene;

static void tscene_free(tscene* s)
{
    for (int i = 0; i < s->model_count; ++i)
        free(s->models[i].xyzi);
    s->model_count = 0;
}

// The 48 signed permutations; encode as the .vox rotation byte from the matrix itself.
static void rotation_from_index(int index, int m[9])
{
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int* p = perms[index / 8];
    memset(m, 0, 9 * sizeof(int));
    for (int row = 0; row < 3; ++row)
        m[row * 3 + p[row]] = ((index >> row) & 1) ? -1 : 1;
}
static int rotation_byte(const int m[9])
{
    int col[3] = {0, 0, 0}, neg[3] = {0, 0, 0};
    for (int row = 0; row < 3; ++row)
        for (int c = 0; c < 3; ++c)
            if (m[row * 3 + c]) {
                col[row] = c;
                neg[row] = m[row * 3 + c] < 0;
            }
    return col[0] | col[1] << 2 | neg[0] << 4 | neg[1] << 5 | neg[2] << 6;
}
static int determinant(const int m[9])
{
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

static void w_node_dict(wbuf* b, const tnode* n)
{
    char t[64], r[16];
    w_i32(b, n->has_t + n->has_r);
    if (n->has_r) {
        snprintf(r, sizeof(r), "%d", rotation_byte(n->rot));
        w_string(b, "_r");
        w_string(b, r);
    }
    if (n->has_t) {
        snprintf(t, sizeof(t), "%d %d %d", n->t[0], n->t[1], n->t[2]);
        w_string(b, "_t");
        w_string(b, t);
    }
}

static void write_node(wbuf* b, const tnode* n)
{
    size_t at;
    if (n->kind == T_TRN) {
        at = w_chunk(b, "nTRN");
        w_i32(b, n->id);
        w_i32(b, 1);
        w_string(b, "_name");
        w_string(b, "n");
        w_i32(b, n->refs[0]);
        w_i32(b, -1);
        w_i32(b, 0);
        w_i32(b, 1);
        w_node_dict(b, n);
    } else if (n->kind == T_GRP) {
        at = w_chunk(b, "nGRP");
        w_i32(b, n->id);
        w_i32(b, 0);
        w_i32(b, n->count);
        for (int i = 0; i < n->count; ++i)
            w_i32(b, n->refs[i]);
    } else {
        at = w_chunk(b, "nSHP");
        w_i32(b, n->id);
        w_i32(b, 0);
        w_i32(b, n->count);
        for (int i = 0; i < n->count; ++i) {
            w_i32(b, n->refs[i]);
            w_i32(b, 0);
        }
    }
    w_chunk_end(b, at);
}

// Writes the scene; node chunks in the order given by `order` (NULL = as stored).
static void write_vox(const tscene* s, wbuf* b, const int* order, uint64_t* rng)
{
    b->n = 0;
    w_bytes(b, "VOX ", 4);
    w_i32(b, s->version);
    size_t main_at = w_chunk(b, "MAIN");
    if (s->model_count > 1 && rng && vxk_test_rand(rng) % 2) {
        size_t at = w_chunk(b, "PACK");
        w_i32(b, s->model_count);
        w_chunk_end(b, at);
    }
    for (int i = 0; i < s->model_count; ++i) {
        const tmodel* m = &s->models[i];
        size_t at = w_chunk(b, "SIZE");
        for (int k = 0; k < 3; ++k)
            w_i32(b, m->size[k]);
        w_chunk_end(b, at);
        at = w_chunk(b, "XYZI");
        w_i32(b, m->count);
        w_bytes(b, m->xyzi, 4 * (size_t)m->count);
        w_chunk_end(b, at);
    }
    for (int i = 0; i < s->node_count; ++i)
        write_node(b, &s->nodes[order ? order[i] : i]);
    if (rng && vxk_test_rand(rng) % 2) {
        size_t at = w_chunk(b, "LAYR");
        w_i32(b, 0);
        w_i32(b, 1);
        w_string(b, "_name");
        w_string(b, "layer");
        w_i32(b, -1);
        w_chunk_end(b, at);
    }
    if (s->has_rgba) {
        size_t at = w_chunk(b, "RGBA");
        w_bytes(b, s->rgba, 1024);
        w_chunk_end(b, at);
    }
    if (rng && vxk_test_rand(rng) % 2) {
        size_t at = w_chunk(b, "MATL");
        w_i32(b, 1);
        w_i32(b, 1);
        w_string(b, "_type");
        w_string(b, "_diffuse");
        w_chunk_end(b, at);
    }
    put_i32(b->p + main_at + 8, (int32_t)(b->n - main_at - 12));
}

// ---- the independent reader (valid files only) ---------------------------------------------

static int read_dict_tr(const uint8_t** p, tnode* n)
{
    int pairs = get_i32(*p);
    *p += 4;
    for (int i = 0; i < pairs; ++i) {
        char key[64] = {0}, value[64] = {0};
        int kl = get_i32(*p);
        memcpy(key, *p + 4, (size_t)(kl < 63 ? kl : 63));
        *p += 4 + kl;
        int vl = get_i32(*p);
        memcpy(value, *p + 4, (size_t)(vl < 63 ? vl : 63));
        *p += 4 + vl;
        if (!n)
            continue;
        if (strcmp(key, "_t") == 0) {
            if (sscanf(value, "%d %d %d", &n->t[0], &n->t[1], &n->t[2]) != 3)
                return 1;
            n->has_t = 1;
        } else if (strcmp(key, "_r") == 0) {
            int r = atoi(value), found = 0;
            for (int k = 0; k < 48 && !found; ++k) {
                int m[9];
                rotation_from_index(k, m);
                if (rotation_byte(m) == r) {
                    memcpy(n->rot, m, sizeof(m));
                    found = 1;
                }
            }
            if (!found)
                return 1;
            n->has_r = 1;
        }
    }
    return 0;
}

static int read_vox_reference(const uint8_t* data, size_t size, tscene* s)
{
    memset(s, 0, sizeof(*s));
    if (size < 20 || memcmp(data, "VOX ", 4) != 0 || memcmp(data + 8, "MAIN", 4) != 0)
        return 1;
    s->version = get_i32(data + 4);
    size_t o = 20 + (size_t)get_i32(data + 12);
    int pending[3] = {0, 0, 0};
    while (o + 12 <= size) {
        const uint8_t* c = data + o + 12;
        const uint8_t* p = c;
        size_t len = (size_t)get_i32(data + o + 4);
        if (memcmp(data + o, "SIZE", 4) == 0) {
            for (int k = 0; k < 3; ++k)
                pending[k] = get_i32(c + 4 * k);
        } else if (memcmp(data + o, "XYZI", 4) == 0) {
            if (s->model_count >= MAX_TMODELS)
                return 1;
            tmodel* m = &s->models[s->model_count++];
            memcpy(m->size, pending, sizeof(pending));
            m->count = get_i32(c);
            m->xyzi = (uint8_t*)malloc(4 * (size_t)m->count + 1);
            memcpy(m->xyzi, c + 4, 4 * (size_t)m->count);
        } else if (memcmp(data + o, "RGBA", 4) == 0) {
            memcpy(s->rgba, c, 1024);
            s->has_rgba = 1;
        } else if (memcmp(data + o, "nTRN", 4) == 0 || memcmp(data + o, "nGRP", 4) == 0 ||
                   memcmp(data + o, "nSHP", 4) == 0) {
            if (s->node_count >= MAX_TNODES)
                return 1;
            tnode* n = &s->nodes[s->node_count++];
            memset(n, 0, sizeof(*n));
            n->rot[0] = n->rot[4] = n->rot[8] = 1;
            n->id = get_i32(p);
            p += 4;
            read_dict_tr(&p, NULL);
            if (data[o + 1] == 'T') {
                n->kind = T_TRN;
                n->refs[0] = get_i32(p);
                n->count = 1;
                int frames = get_i32(p + 12);
                p += 16;
                for (int f = 0; f < frames; ++f)
                    if (read_dict_tr(&p, f == 0 ? n : NULL))
                        return 1;
            } else if (data[o + 1] == 'G') {
                n->kind = T_GRP;
                n->count = get_i32(p);
                if (n->count > 128)
                    return 1;
                for (int i = 0; i < n->count; ++i)
                    n->refs[i] = get_i32(p + 4 + 4 * i);
            } else {
                n->kind = T_SHP;
                n->count = get_i32(p);
                p += 4;
                for (int i = 0; i < n->count; ++i) {
                    n->refs[i] = get_i32(p);
                    p += 4;
                    read_dict_tr(&p, NULL);
                }
            }
        }
        o += 12 + len + (size_t)get_i32(data + o + 8);
    }
    return 0;
}

// ---- the brute-force placer ----------------------------------------------------------------

typedef struct placed {
    int w[3]; // vxk axes
    uint8_t material;
} placed;

typedef struct placement {
    placed* voxels;
    int count, cap;
    int lo[3], hi[3]; // vxk box of the instances' model boxes
    int instances;
} placement;

static const tnode* tfind(const tscene* s, int id)
{
    for (int i = 0; i < s->node_count; ++i)
        if (s->nodes[i].id == id)
            return &s->nodes[i];
    return NULL;
}

// The voxel whose centre is v + 0.5 in model coordinates: rotate its centre about the model box
// centre (size / 2), translate, and take the cell containing the result (exact in double).
static void place_voxel(const int r[9], const int t[3], const int size[3], const int v[3], int w[3])
{
    for (int i = 0; i < 3; ++i) {
        double c = 0.0;
        for (int j = 0; j < 3; ++j)
            c += r[i * 3 + j] * (v[j] + 0.5 - size[j] / 2.0);
        w[i] = t[i] + (int)floor(c);
    }
}

static void place_model(const tscene* s, const uint8_t map[256], const int r[9], const int t[3],
                        int model, placement* out)
{
    const tmodel* m = &s->models[model];
    // Box: place all 8 corner voxels.
    for (int corner = 0; corner < 8; ++corner) {
        int v[3], w[3];
        for (int k = 0; k < 3; ++k)
            v[k] = ((corner >> k) & 1) ? m->size[k] - 1 : 0;
        place_voxel(r, t, m->size, v, w);
        int g[3] = {w[0], w[2], w[1]};
        for (int k = 0; k < 3; ++k) {
            if (g[k] < out->lo[k])
                out->lo[k] = g[k];
            if (g[k] > out->hi[k])
                out->hi[k] = g[k];
        }
    }
    out->instances++;
    for (int v = 0; v < m->count; ++v) {
        const uint8_t* e = m->xyzi + 4 * v;
        if (e[3] == 0 || map[e[3]] == 0)
            continue;
        int v3[3] = {e[0], e[1], e[2]}, w[3];
        place_voxel(r, t, m->size, v3, w);
        if (out->count == out->cap) {
            out->cap = out->cap * 2 + 256;
            out->voxels = (placed*)realloc(out->voxels, (size_t)out->cap * sizeof(placed));
        }
        out->voxels[out->count++] = (placed){{w[0], w[2], w[1]}, map[e[3]]};
    }
}

static void place_walk(const tscene* s, const uint8_t map[256], const tnode* n, const int r[9],
                       const int t[3], placement* out)
{
    if (n->kind == T_TRN) {
        int r2[9], t2[3];
        for (int i = 0; i < 3; ++i) {
            t2[i] = t[i];
            for (int j = 0; j < 3; ++j) {
                r2[i * 3 + j] = 0;
                for (int k = 0; k < 3; ++k)
                    r2[i * 3 + j] += r[i * 3 + k] * n->rot[k * 3 + j];
                t2[i] += r[i * 3 + j] * n->t[j];
            }
        }
        place_walk(s, map, tfind(s, n->refs[0]), r2, t2, out);
    } else if (n->kind == T_GRP) {
        for (int i = 0; i < n->count; ++i)
            place_walk(s, map, tfind(s, n->refs[i]), r, t, out);
    } else {
        for (int i = 0; i < n->count; ++i)
            place_model(s, map, r, t, n->refs[i], out);
    }
}

static void place_scene(const tscene* s, const uint8_t map[256], placement* out)
{
    memset(out, 0, sizeof(*out));
    for (int k = 0; k < 3; ++k) {
        out->lo[k] = 1 << 30;
        out->hi[k] = -(1 << 30);
    }
    int r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (s->node_count == 0) {
        int x = 0;
        for (int m = 0; m < s->model_count; ++m) {
            int t[3] = {x + s->models[m].size[0] / 2, s->models[m].size[1] / 2,
                        s->models[m].size[2] / 2};
            place_model(s, map, r, t, m, out);
            x += s->models[m].size[0];
        }
        return;
    }
    int t[3] = {0, 0, 0};
    place_walk(s, map, tfind(s, 0), r, t, out);
}

// Nearest defined solid material by squared RGB distance, ties to the lowest id.
static void reference_map(const tscene* s, const vxk_material_table* table, uint8_t map[256])
{
    uint8_t pal[256][4];
    if (s->has_rgba) {
        memset(pal, 0, sizeof(pal));
        for (int c = 1; c < 256; ++c)
            memcpy(pal[c], s->rgba[c - 1], 4);
    } else {
        vxk_vox_default_palette(pal);
    }
    map[0] = 0;
    for (int c = 1; c < 256; ++c) {
        long best = -1;
        int best_id = 0;
        for (int id = 255; id >= 1; --id) {
            const vxk_material* m = &table->materials[id];
            if (!m->defined || m->kind != VXK_MATERIAL_SOLID)
                continue;
            long d = 0;
            for (int k = 0; k < 3; ++k)
                d += (long)(pal[c][k] - m->color[k]) * (pal[c][k] - m->color[k]);
            if (best < 0 || d <= best) {
                best = d;
                best_id = id;
            }
        }
        map[c] = (uint8_t)best_id;
    }
}

// Compares a flattened grid with the brute-force placement (later voxels win).
static int compare_flat_count(const placement* pl, const vxk_voxel_grid* g, vxk_int3 origin,
                              int* overlaps)
{
    int size[3] = {pl->hi[0] - pl->lo[0] + 1, pl->hi[1] - pl->lo[1] + 1, pl->hi[2] - pl->lo[2] + 1};
    VXK_CHECK_EQ_INT(g->size.x, size[0]);
    VXK_CHECK_EQ_INT(g->size.y, size[1]);
    VXK_CHECK_EQ_INT(g->size.z, size[2]);
    VXK_CHECK_EQ_INT(origin.x, pl->lo[0]);
    VXK_CHECK_EQ_INT(origin.y, pl->lo[1]);
    VXK_CHECK_EQ_INT(origin.z, pl->lo[2]);
    size_t total = (size_t)size[0] * size[1] * size[2];
    uint8_t* expect = (uint8_t*)calloc(total, 1);
    for (int i = 0; i < pl->count; ++i) {
        const placed* p = &pl->voxels[i];
        int x = p->w[0] - pl->lo[0], y = p->w[1] - pl->lo[1], z = p->w[2] - pl->lo[2];
        if (x < 0 || y < 0 || z < 0 || x >= size[0] || y >= size[1] || z >= size[2]) {
            free(expect);
            VXK_CHECK_MSG(0, "reference voxel outside its box");
        }
        uint8_t* slot = &expect[(size_t)x + (size_t)size[0] * ((size_t)z + (size_t)size[2] * y)];
        if (*slot && overlaps)
            ++*overlaps;
        *slot = p->material;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < total; ++i)
        if (expect[i] != g->voxels[i] && bad++ == 0)
            first = i;
    uint8_t e = bad ? expect[first] : 0;
    free(expect);
    VXK_CHECK_MSG(bad == 0, "%zu voxels differ, first at index %zu: expected %u got %u", bad, first,
                  e, g->voxels[first]);
    return 0;
}

static int compare_flat(const placement* pl, const vxk_voxel_grid* g, vxk_int3 origin)
{
    return compare_flat_count(pl, g, origin, NULL);
}

// ---- random scenes -------------------------------------------------------------------------

static void random_model(uint64_t* rng, tmodel* m, int max_size)
{
    int volume = 1;
    for (int k = 0; k < 3; ++k) {
        m->size[k] = 1 + (int)(vxk_test_rand(rng) % (uint64_t)max_size);
        volume *= m->size[k];
    }
    m->count = (int)(vxk_test_rand(rng) % (uint64_t)(volume + 1));
    m->xyzi = (uint8_t*)malloc(4 * (size_t)m->count + 1);
    for (int v = 0; v < m->count; ++v) {
        for (int k = 0; k < 3; ++k)
            m->xyzi[4 * v + k] = (uint8_t)(vxk_test_rand(rng) % (uint64_t)m->size[k]);
        // Colour 0 (empty) now and then.
        m->xyzi[4 * v + 3] = (uint8_t)(vxk_test_rand(rng) % 64 ? 1 + vxk_test_rand(rng) % 255 : 0);
    }
}

// Adds a random subtree under a new node; returns its id.
static int random_subtree(uint64_t* rng, tscene* s, int depth, int* shapes, int* shape_count)
{
    tnode* trn = &s->nodes[s->node_count];
    memset(trn, 0, sizeof(*trn));
    trn->id = s->node_count++;
    trn->kind = T_TRN;
    trn->count = 1;
    trn->has_r = (int)(vxk_test_rand(rng) % 4 != 0);
    rotation_from_index(trn->has_r ? (int)(vxk_test_rand(rng) % 48) : 0, trn->rot);
    trn->has_t = (int)(vxk_test_rand(rng) % 5 != 0);
    for (int k = 0; k < 3 && trn->has_t; ++k)
        trn->t[k] = (int)(vxk_test_rand(rng) % 61) - 30;
    int roll = (int)(vxk_test_rand(rng) % 10);
    if (depth < 3 && roll < 3 && s->node_count + 8 < MAX_TNODES) {
        tnode* grp = &s->nodes[s->node_count];
        memset(grp, 0, sizeof(*grp));
        grp->id = s->node_count++;
        grp->kind = T_GRP;
        trn->refs[0] = grp->id;
        int children = (int)(vxk_test_rand(rng) % 4);
        for (int i = 0; i < children && s->node_count + 6 < MAX_TNODES; ++i)
            grp->refs[grp->count++] = random_subtree(rng, s, depth + 1, shapes, shape_count);
    } else if (*shape_count > 0 && roll < 5) {
        trn->refs[0] = shapes[vxk_test_rand(rng) % (uint64_t)*shape_count]; // shared shape
    } else {
        tnode* shp = &s->nodes[s->node_count];
        memset(shp, 0, sizeof(*shp));
        shp->id = s->node_count++;
        shp->kind = T_SHP;
        shp->count = 1;
        shp->refs[0] = (int)(vxk_test_rand(rng) % (uint64_t)s->model_count);
        shapes[(*shape_count)++] = shp->id;
        trn->refs[0] = shp->id;
    }
    return trn->id;
}

static void random_scene(uint64_t* rng, tscene* s, int with_graph)
{
    memset(s, 0, sizeof(*s));
    s->version = vxk_test_rand(rng) % 2 ? 150 : 200;
    s->model_count = 1 + (int)(vxk_test_rand(rng) % 4);
    for (int i = 0; i < s->model_count; ++i)
        random_model(rng, &s->models[i], 1 + (int)(vxk_test_rand(rng) % 12));
    s->has_rgba = (int)(vxk_test_rand(rng) % 5 != 0);
    for (int c = 0; c < 256; ++c)
        for (int k = 0; k < 4; ++k)
            s->rgba[c][k] = (uint8_t)vxk_test_rand(rng);
    if (!with_graph)
        return;
    int shapes[MAX_TNODES], shape_count = 0;
    tnode* root = &s->nodes[0];
    memset(root, 0, sizeof(*root));
    root->kind = T_TRN;
    root->count = 1;
    rotation_from_index(0, root->rot);
    tnode* grp = &s->nodes[1];
    memset(grp, 0, sizeof(*grp));
    grp->id = 1;
    grp->kind = T_GRP;
    root->refs[0] = 1;
    s->node_count = 2;
    int children = 1 + (int)(vxk_test_rand(rng) % 6);
    for (int i = 0; i < children; ++i)
        grp->refs[grp->count++] = random_subtree(rng, s, 0, shapes, &shape_count);
}

static void shuffled_order(uint64_t* rng, int n, int* order)
{
    for (int i = 0; i < n; ++i)
        order[i] = i;
    for (int i = n - 1; i > 0; --i) {
        int j = (int)(vxk_test_rand(rng) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static void random_mapping(uint64_t* rng, vxk_vox_options* o)
{
    o->use_palette_to_material = true;
    for (int c = 0; c < 256; ++c) // 0 drops the colour; ids 1..11 are defined by default
        o->palette_to_material[c] = (uint8_t)(vxk_test_rand(rng) % 12);
}

// ---- tests ---------------------------------------------------------------------------------

// A hand-computed case: a 3x1x1 model turned 90 degrees about vox z (_r = 17: row 0 = -y,
// row 1 = +x). Pivot (1,0,0): vox voxel x=0 -> (0,-1,0), x=2 -> (0,1,0); vxk swaps y and z.
static int test_rotation_by_hand(void)
{
    tscene s;
    memset(&s, 0, sizeof(s));
    s.version = 150;
    s.model_count = 1;
    s.models[0] = (tmodel){{3, 1, 1}, 2, (uint8_t*)malloc(8)};
    const uint8_t v[8] = {0, 0, 0, 1, 2, 0, 0, 2};
    memcpy(s.models[0].xyzi, v, 8);
    s.node_count = 2;
    s.nodes[0] = (tnode){.id = 0,
                         .kind = T_TRN,
                         .has_r = 1,
                         .count = 1,
                         .refs = {1},
                         .rot = {0, -1, 0, 1, 0, 0, 0, 0, 1}};
    s.nodes[1] = (tnode){.id = 1, .kind = T_SHP, .count = 1, .refs = {0}};
    VXK_CHECK_EQ_INT(rotation_byte(s.nodes[0].rot), 17);
    wbuf b = {0};
    write_vox(&s, &b, NULL, NULL);
    vxk_vox_options o = vxk_default_vox_options();
    o.use_palette_to_material = true;
    o.palette_to_material[1] = VXK_MAT_STONE;
    o.palette_to_material[2] = VXK_MAT_WOOD;
    vxk_voxel_grid g;
    vxk_int3 origin;
    vxk_status st = vxk_vox_load_flat(b.p, b.n, &o, &g, &origin);
    free(b.p);
    tscene_free(&s);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    VXK_CHECK_EQ_INT(g.size.x, 1);
    VXK_CHECK_EQ_INT(g.size.y, 1);
    VXK_CHECK_EQ_INT(g.size.z, 3);
    VXK_CHECK_EQ_INT(origin.x, 0);
    VXK_CHECK_EQ_INT(origin.y, 0);
    VXK_CHECK_EQ_INT(origin.z, -1);
    VXK_CHECK_EQ_INT(vxk_voxel_grid_get(&g, (vxk_int3){0, 0, 0}), VXK_MAT_STONE); // vxk z = -1
    VXK_CHECK_EQ_INT(vxk_voxel_grid_get(&g, (vxk_int3){0, 0, 1}), 0);
    VXK_CHECK_EQ_INT(vxk_voxel_grid_get(&g, (vxk_int3){0, 0, 2}), VXK_MAT_WOOD); // vxk z = +1
    vxk_voxel_grid_free(&g);

    // An even size turned 180 degrees about vox z (_r = 52) keeps its box [-1, 0] on x: voxel
    // x=0 (centre -0.5) goes to 0, voxel x=1 (centre 0.5) to -1.
    memset(&s, 0, sizeof(s));
    s.version = 150;
    s.model_count = 1;
    s.models[0] = (tmodel){{2, 1, 1}, 2, (uint8_t*)malloc(8)};
    const uint8_t v2[8] = {0, 0, 0, 1, 1, 0, 0, 2};
    memcpy(s.models[0].xyzi, v2, 8);
    s.node_count = 2;
    s.nodes[0] = (tnode){.id = 0,
                         .kind = T_TRN,
                         .has_r = 1,
                         .count = 1,
                         .refs = {1},
                         .rot = {-1, 0, 0, 0, -1, 0, 0, 0, 1}};
    s.nodes[1] = (tnode){.id = 1, .kind = T_SHP, .count = 1, .refs = {0}};
    VXK_CHECK_EQ_INT(rotation_byte(s.nodes[0].rot), 52);
    b = (wbuf){0};
    write_vox(&s, &b, NULL, NULL);
    st = vxk_vox_load_flat(b.p, b.n, &o, &g, &origin);
    free(b.p);
    tscene_free(&s);
    VXK_CHECK_EQ_INT(st, VXK_OK);
    VXK_CHECK_EQ_INT(g.size.x, 2);
    VXK_CHECK_EQ_INT(origin.x, -1);
    VXK_CHECK_EQ_INT(vxk_voxel_grid_get(&g, (vxk_int3){0, 0, 0}), VXK_MAT_WOOD);  // x = -1
    VXK_CHECK_EQ_INT(vxk_voxel_grid_get(&g, (vxk_int3){1, 0, 0}), VXK_MAT_STONE); // x = 0
    vxk_voxel_grid_free(&g);
    return 0;
}

static int test_default_palette(void)
{
    uint8_t p[256][4];
    vxk_vox_default_palette(p);
    const uint8_t expect[][5] = {{1, 255, 255, 255, 255}, {2, 255, 255, 204, 255},
                                 {7, 255, 204, 255, 255}, {215, 0, 0, 51, 255},
                                 {216, 238, 0, 0, 255},   {226, 0, 238, 0, 255},
                                 {236, 0, 0, 238, 255},   {246, 238, 238, 238, 255},
                                 {255, 17, 17, 17, 255},  {0, 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); ++i)
        for (int k = 0; k < 4; ++k)
            VXK_CHECK_EQ_INT(p[expect[i][0]][k], expect[i][1 + k]);
    return 0;
}

// Random scenes with graphs (and without), random palettes and mappings: the flattened grid
// equals the brute-force placement; model grids hold every XYZI voxel with its material.
static int test_round_trip(void)
{
    uint64_t rng = 0x766f7831;
    int iterations = VXK_TEST_SLOW ? 300 : 2000;
    int rotations_seen[48] = {0};
    vxk_material_table table;
    vxk_default_material_table(&table);
    wbuf b = {0};
    for (int it = 0; it < iterations; ++it) {
        tscene s;
        random_scene(&rng, &s, it % 8 != 0);
        for (int i = 0; i < s.node_count; ++i)
            if (s.nodes[i].kind == T_TRN && s.nodes[i].has_r) {
                int m[9];
                for (int k = 0; k < 48; ++k) {
                    rotation_from_index(k, m);
                    if (memcmp(m, s.nodes[i].rot, sizeof(m)) == 0)
                        rotations_seen[k] = 1;
                }
            }
        int order[MAX_TNODES];
        shuffled_order(&rng, s.node_count, order);
        write_vox(&s, &b, order, &rng);
        vxk_vox_options o = vxk_default_vox_options();
        uint8_t map[256];
        if (it % 3 == 0) {
            random_mapping(&rng, &o);
            memcpy(map, o.palette_to_material, 256);
            map[0] = 0;
        } else {
            reference_map(&s, &table, map);
        }
        size_t before = vxk_allocated_bytes();
        vxk_vox_scene scene;
        CHECK_OK(vxk_vox_load_grids(b.p, b.n, &o, &scene));
        VXK_CHECK_EQ_INT(scene.model_count, s.model_count);
        VXK_CHECK_EQ_INT(scene.version, s.version);
        VXK_CHECK_EQ_INT(scene.has_scene_graph, s.node_count > 0);
        for (int c = 0; c < 256; ++c)
            VXK_CHECK_EQ_INT(scene.palette_to_material[c], map[c]);
        for (int i = 0; i < s.model_count; ++i) {
            const tmodel* m = &s.models[i];
            const vxk_voxel_grid* g = &scene.models[i];
            VXK_CHECK_EQ_INT(g->size.x, m->size[0]);
            VXK_CHECK_EQ_INT(g->size.y, m->size[2]);
            VXK_CHECK_EQ_INT(g->size.z, m->size[1]);
            uint8_t* expect = (uint8_t*)calloc((size_t)m->size[0] * m->size[1] * m->size[2], 1);
            for (int v = 0; v < m->count; ++v) {
                const uint8_t* e = m->xyzi + 4 * v;
                if (e[3] && map[e[3]])
                    expect[e[0] + m->size[0] * (e[1] + m->size[1] * e[2])] = map[e[3]];
            }
            int bad = 0;
            for (int y = 0; y < g->size.y; ++y)
                for (int z = 0; z < g->size.z; ++z)
                    for (int x = 0; x < g->size.x; ++x)
                        bad += vxk_voxel_grid_get(g, (vxk_int3){x, y, z}) !=
                               expect[x + m->size[0] * (z + m->size[1] * y)];
            free(expect);
            VXK_CHECK_EQ_INT(bad, 0);
        }
        placement pl;
        place_scene(&s, map, &pl);
        VXK_CHECK_EQ_INT(scene.instance_count, pl.instances);
        vxk_voxel_grid flat;
        vxk_int3 origin;
        vxk_status st = vxk_vox_scene_flatten(&scene, &flat, &origin);
        if (pl.instances == 0) {
            VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
        } else {
            CHECK_OK(st);
            int r = compare_flat(&pl, &flat, origin);
            vxk_voxel_grid_free(&flat);
            if (r) {
                fprintf(stderr, "iteration %d\n", it);
                return 1;
            }
        }
        free(pl.voxels);
        vxk_vox_scene_free(&scene);
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        tscene_free(&s);
    }
    free(b.p);
    int seen = 0, proper = 0;
    for (int k = 0; k < 48; ++k) {
        int m[9];
        rotation_from_index(k, m);
        seen += rotations_seen[k];
        proper += rotations_seen[k] && determinant(m) == 1;
    }
    VXK_CHECK_EQ_INT(seen, 48);
    VXK_CHECK_EQ_INT(proper, 24);
    return 0;
}

// Every one of the 48 rotation codes on a model with distinct voxels, odd and even sizes.
static int test_every_rotation(void)
{
    uint64_t rng = vxk_test_seed(48);
    wbuf b = {0};
    vxk_material_table table;
    vxk_default_material_table(&table);
    for (int k = 0; k < 48; ++k)
        for (int sizes = 0; sizes < 2; ++sizes) {
            tscene s;
            memset(&s, 0, sizeof(s));
            s.version = 150;
            s.model_count = 1;
            tmodel* m = &s.models[0];
            m->size[0] = 4 + sizes, m->size[1] = 3, m->size[2] = 2 + 3 * sizes;
            m->count = m->size[0] * m->size[1] * m->size[2];
            m->xyzi = (uint8_t*)malloc(4 * (size_t)m->count);
            int v = 0;
            for (int z = 0; z < m->size[2]; ++z)
                for (int y = 0; y < m->size[1]; ++y)
                    for (int x = 0; x < m->size[0]; ++x, ++v) {
                        uint8_t e[4] = {(uint8_t)x, (uint8_t)y, (uint8_t)z, (uint8_t)(1 + v)};
                        memcpy(m->xyzi + 4 * v, e, 4);
                    }
            s.node_count = 2;
            s.nodes[0] = (tnode){.id = 0,
                                 .kind = T_TRN,
                                 .has_r = 1,
                                 .has_t = 1,
                                 .count = 1,
                                 .refs = {1},
                                 .t = {7, -3, 11}};
            rotation_from_index(k, s.nodes[0].rot);
            s.nodes[1] = (tnode){.id = 1, .kind = T_SHP, .count = 1, .refs = {0}};
            write_vox(&s, &b, NULL, &rng);
            vxk_vox_options o = vxk_default_vox_options();
            o.use_palette_to_material = true;
            for (int c = 0; c < 256; ++c)
                o.palette_to_material[c] = (uint8_t)(1 + c % 11);
            placement pl;
            place_scene(&s, o.palette_to_material, &pl);
            vxk_voxel_grid g;
            vxk_int3 origin;
            CHECK_OK(vxk_vox_load_flat(b.p, b.n, &o, &g, &origin));
            int r = compare_flat(&pl, &g, origin);
            vxk_voxel_grid_free(&g);
            free(pl.voxels);
            tscene_free(&s);
            VXK_CHECK_MSG(r == 0, "rotation %d", k);
        }
    free(b.p);
    return 0;
}

static const char* const g_samples[] = {"floooh_cassette.vox", "floooh_scene.vox",
                                        "ogt_test_multiple_model_scene.vox", "dotvox_axes.vox"};

// Facts from shared/data/vox/LICENSE-or-SOURCE.txt: model sizes (vox axes) and voxel counts.
typedef struct sample_fact {
    int models, voxels;
    int first_size[3];
} sample_fact;
static const sample_fact g_facts[] = {
    {1, 54, {9, 6, 1}}, {1, 45220, {96, 80, 50}}, {41, 6053, {8, 8, 8}}, {4, 4372, {40, 40, 40}}};

static void sample_path(char* path, size_t size, int i)
{
    char relative[256];
    snprintf(relative, sizeof(relative), "vox/%s", g_samples[i]);
    vxk_test_data_path(path, size, relative);
}

// A sample file's bytes; NULL, with a message naming the path, when it cannot be read (the
// caller fails: the samples are part of the test, not optional).
static uint8_t* load_sample(int i, size_t* size)
{
    char path[1024];
    sample_path(path, sizeof(path), i);
    uint8_t* data = vxk_test_read_file(path, size);
    if (!data)
        fprintf(stderr, "cannot read %s\n", path);
    return data;
}

// The sample files: facts, model grids, and the flattened scene against the placer.
static int test_samples(void)
{
    vxk_material_table table;
    vxk_default_material_table(&table);
    for (int i = 0; i < 4; ++i) {
        size_t size;
        uint8_t* data = load_sample(i, &size);
        VXK_CHECK(data != NULL);
        tscene s;
        int rr = read_vox_reference(data, size, &s);
        VXK_CHECK_MSG(rr == 0, "the test's reader cannot read %s", g_samples[i]);
        vxk_vox_scene scene;
        CHECK_OK(vxk_vox_load_grids(data, size, NULL, &scene));
        VXK_CHECK_EQ_INT(scene.model_count, g_facts[i].models);
        VXK_CHECK_EQ_INT(scene.models[0].size.x, g_facts[i].first_size[0]);
        VXK_CHECK_EQ_INT(scene.models[0].size.z, g_facts[i].first_size[1]);
        VXK_CHECK_EQ_INT(scene.models[0].size.y, g_facts[i].first_size[2]);
        long solid = 0;
        for (uint32_t m = 0; m < scene.model_count; ++m) {
            const vxk_voxel_grid* g = &scene.models[m];
            size_t n = (size_t)g->size.x * g->size.y * g->size.z;
            for (size_t v = 0; v < n; ++v)
                solid += g->voxels[v] != 0;
        }
        VXK_CHECK_EQ_INT(solid, g_facts[i].voxels);
        if (rr == 0) {
            uint8_t map[256];
            reference_map(&s, &table, map);
            VXK_CHECK_EQ_INT(scene.model_count, s.model_count);
            for (uint32_t m = 0; m < scene.model_count; ++m)
                for (int v = 0; v < s.models[m].count; ++v) {
                    const uint8_t* e = s.models[m].xyzi + 4 * v;
                    VXK_CHECK_EQ_INT(
                        vxk_voxel_grid_get(&scene.models[m], (vxk_int3){e[0], e[2], e[1]}),
                        map[e[3]]);
                }
            placement pl;
            place_scene(&s, map, &pl);
            VXK_CHECK_EQ_INT(scene.instance_count, pl.instances);
            vxk_voxel_grid flat;
            vxk_int3 origin;
            CHECK_OK(vxk_vox_scene_flatten(&scene, &flat, &origin));
            int overlaps = 0;
            int r = compare_flat_count(&pl, &flat, origin, &overlaps);
            // Without overlaps, the solid count equals the placed XYZI voxels.
            long flat_solid = 0;
            size_t n = (size_t)flat.size.x * flat.size.y * flat.size.z;
            for (size_t v = 0; v < n; ++v)
                flat_solid += flat.voxels[v] != 0;
            vxk_voxel_grid_free(&flat);
            free(pl.voxels);
            VXK_CHECK_MSG(r == 0, "%s", g_samples[i]);
            VXK_CHECK_MSG(flat_solid <= pl.count, "%ld > %d", flat_solid, pl.count);
            // The samples are tidy scenes: no two placed voxels share a cell.
            VXK_CHECK_EQ_INT(overlaps, 0);
            VXK_CHECK_EQ_INT(flat_solid, pl.count);
            if (i < 2)
                VXK_CHECK_EQ_INT(flat_solid, g_facts[i].voxels);
            fprintf(stderr, "  %s: %u models, %u instances, %d placed voxels, %d overlaps\n",
                    g_samples[i], scene.model_count, scene.instance_count, pl.count, overlaps);
        }
        tscene_free(&s);
        vxk_vox_scene_free(&scene);
        free(data);
    }
    return 0;
}

// Truncating a sample at every chunk boundary (and inside every chunk header) is TRUNCATED.
static int test_sample_truncations(void)
{
    for (int i = 0; i < 4; ++i) {
        size_t size;
        uint8_t* data = load_sample(i, &size);
        VXK_CHECK(data != NULL);
        size_t before = vxk_allocated_bytes();
        int cuts = 0;
        for (size_t o = 20; o < size;
             o += 12 + (size_t)get_i32(data + o + 4) + (size_t)get_i32(data + o + 8)) {
            for (size_t d = 0; d < 13; d += 4) {
                vxk_vox_scene scene;
                vxk_status st = vxk_vox_load_grids(data, o + d, NULL, &scene);
                VXK_CHECK_MSG(st == VXK_ERR_TRUNCATED, "%s cut at %zu: %s", g_samples[i], o + d,
                              vxk_status_string(st));
                ++cuts;
            }
        }
        for (size_t o = 0; o < 20; ++o) {
            vxk_vox_scene scene;
            VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, o, NULL, &scene), VXK_ERR_TRUNCATED);
        }
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        VXK_CHECK(cuts > 8);
        free(data);
    }
    return 0;
}

// Loading into a world at an offset writes exactly the flattened grid.
static int check_world_load(const uint8_t* data, size_t size, const vxk_vox_options* o,
                            vxk_int3 offset)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    vxk_vox_options local = o ? *o : vxk_default_vox_options();
    local.materials = vxk_world_materials(world);
    vxk_voxel_grid g;
    CHECK_OK(vxk_vox_load_flat(data, size, &local, &g, NULL));
    CHECK_OK(vxk_vox_load_into_world(world, data, size, offset, o));
    int bad = 0;
    for (int y = -2; y < g.size.y + 2; ++y)
        for (int z = -2; z < g.size.z + 2; ++z)
            for (int x = -2; x < g.size.x + 2; ++x) {
                int inside =
                    x >= 0 && y >= 0 && z >= 0 && x < g.size.x && y < g.size.y && z < g.size.z;
                uint8_t expect = inside ? vxk_voxel_grid_get(&g, (vxk_int3){x, y, z}) : 0;
                bad += vxk_world_get_voxel(
                           world, (vxk_int3){offset.x + x, offset.y + y, offset.z + z}) != expect;
            }
    // A load that cannot fit changes nothing.
    // (Along an axis where the grid is wider than one voxel; a 1x1x1 grid always fits.)
    uint64_t hash = vxk_world_terrain_hash(world);
    vxk_int3 far = {g.size.x > 1 ? INT32_MAX : 0, g.size.y > 1 ? INT32_MAX : 0,
                    g.size.z > 1 ? INT32_MAX : 0};
    int fits = g.size.x == 1 && g.size.y == 1 && g.size.z == 1;
    vxk_status st =
        fits ? VXK_ERR_OUT_OF_RANGE : vxk_vox_load_into_world(world, data, size, far, o);
    uint64_t hash_after = vxk_world_terrain_hash(world);
    vxk_voxel_grid_free(&g);
    vxk_world_destroy(world);
    VXK_CHECK_EQ_INT(bad, 0);
    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_U64(hash_after, hash);
    return 0;
}

static int test_world(void)
{
    uint64_t rng = 0x3141;
    wbuf b = {0};
    int iterations = VXK_TEST_SLOW ? 15 : 60;
    for (int it = 0; it < iterations; ++it) {
        tscene s;
        random_scene(&rng, &s, 1);
        write_vox(&s, &b, NULL, &rng);
        vxk_vox_options o = vxk_default_vox_options();
        if (it % 2)
            random_mapping(&rng, &o);
        vxk_int3 offset = {(int32_t)(vxk_test_rand(&rng) % 2001) - 1000,
                           (int32_t)(vxk_test_rand(&rng) % 201) - 100,
                           (int32_t)(vxk_test_rand(&rng) % 2001) - 1000};
        placement pl;
        uint8_t dummy[256] = {0};
        place_scene(&s, dummy, &pl);
        free(pl.voxels);
        int r = pl.instances ? check_world_load(b.p, b.n, it % 2 ? &o : NULL, offset) : 0;
        tscene_free(&s);
        VXK_CHECK_MSG(r == 0, "iteration %d", it);
    }
    free(b.p);
    for (int i = 0; i < 4; ++i) {
        size_t size;
        uint8_t* data = load_sample(i, &size);
        VXK_CHECK(data != NULL);
        int r = check_world_load(data, size, NULL, (vxk_int3){-37, 5, 1000 + 3 * i});
        free(data);
        VXK_CHECK_MSG(r == 0, "%s", g_samples[i]);
    }
    // The file variant and the world's own table.
    char path[1024];
    sample_path(path, sizeof(path), 0);
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world != NULL);
    vxk_status st = vxk_vox_load_into_world_file(world, path, (vxk_int3){0, 0, 0}, NULL);
    VXK_CHECK_MSG(st == VXK_OK, "%s: %s", path, vxk_status_string(st));
    VXK_CHECK_EQ_INT(
        vxk_vox_load_into_world_file(world, "/nonexistent/x.vox", (vxk_int3){0, 0, 0}, NULL),
        VXK_ERR_IO);
    vxk_world_destroy(world);
    return 0;
}

static vxk_status status_from_name(const char* name)
{
    static const struct {
        const char* name;
        vxk_status status;
    } names[] = {{"OK", VXK_OK},
                 {"MALFORMED", VXK_ERR_MALFORMED},
                 {"TRUNCATED", VXK_ERR_TRUNCATED},
                 {"OUT_OF_RANGE", VXK_ERR_OUT_OF_RANGE},
                 {"UNSUPPORTED", VXK_ERR_UNSUPPORTED}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
        if (strcmp(name, names[i].name) == 0)
            return names[i].status;
    return VXK_STATUS_COUNT;
}

// The committed hostile corpus: every file listed with its status, every listed file present.
static int test_corpus(void)
{
    const char* dir = VXK_SOURCE_DIR "/tests/data/vox";
    char path[1024];
    snprintf(path, sizeof(path), "%s/corpus.txt", dir);
    FILE* f = fopen(path, "r");
    VXK_CHECK_MSG(f != NULL, "cannot open %s", path);
    char names[256][96];
    int count = 0;
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        char name[96], expect[32];
        if (line[0] == '#' || sscanf(line, "%95s %31s", name, expect) != 2)
            continue;
        vxk_status want = status_from_name(expect);
        VXK_CHECK_MSG(want != VXK_STATUS_COUNT, "bad status %s", expect);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        size_t before = vxk_allocated_bytes();
        vxk_vox_scene scene;
        vxk_status st = vxk_vox_load_grids_file(path, NULL, &scene);
        if (st == VXK_OK) {
            vxk_voxel_grid g;
            st = vxk_vox_scene_flatten(&scene, &g, NULL);
            vxk_voxel_grid_free(&g);
        }
        vxk_vox_scene_free(&scene);
        VXK_CHECK_MSG(st == want, "%s: expected %s, got %s", name, expect, vxk_status_string(st));
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        VXK_CHECK(count < 256);
        snprintf(names[count++], sizeof(names[0]), "%s", name);
    }
    fclose(f);
    VXK_CHECK_MSG(count >= 30, "only %d corpus files", count);
    DIR* d = opendir(dir);
    VXK_CHECK(d != NULL);
    struct dirent* e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".vox") != 0)
            continue;
        int listed = 0;
        for (int i = 0; i < count; ++i)
            listed |= strcmp(names[i], e->d_name) == 0;
        ++files;
        if (!listed) {
            closedir(d);
            VXK_CHECK_MSG(0, "%s is not listed in corpus.txt", e->d_name);
        }
    }
    closedir(d);
    VXK_CHECK_EQ_INT(files, count);
    return 0;
}

// Options and arguments.
static int test_arguments(void)
{
    uint64_t rng = vxk_test_seed(5);
    tscene s;
    random_scene(&rng, &s, 1);
    wbuf b = {0};
    write_vox(&s, &b, NULL, NULL);
    tscene_free(&s);
    vxk_vox_scene scene;
    vxk_vox_options o = vxk_default_vox_options();
    o.cookie = 0;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(b.p, b.n, &o, &scene), VXK_ERR_BAD_DEF);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(NULL, 10, NULL, &scene), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(b.p, b.n, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(NULL, 0, NULL, &scene), VXK_ERR_TRUNCATED);
    o = vxk_default_vox_options();
    o.use_palette_to_material = true;
    o.palette_to_material[200] = 77; // not defined in the default table
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(b.p, b.n, &o, &scene), VXK_ERR_BAD_MATERIAL);
    // A table without solid materials cannot map colours.
    vxk_material_table table;
    vxk_default_material_table(&table);
    for (int i = 1; i < 256; ++i)
        if (table.materials[i].kind == VXK_MATERIAL_SOLID)
            table.materials[i].defined = 0;
    o = vxk_default_vox_options();
    o.materials = &table;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(b.p, b.n, &o, &scene), VXK_ERR_BAD_MATERIAL);
    o = vxk_default_vox_options();
    o.max_scene_extent = 0;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(b.p, b.n, &o, &scene), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file("/nonexistent/x.vox", NULL, &scene), VXK_ERR_IO);
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(NULL, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    // A scene extent limit one below the flattened grid's largest side refuses the grid, not
    // the models; at that side it is accepted. (A scene whose grid is one voxel wide has no
    // tighter limit to try.)
    vxk_voxel_grid g;
    CHECK_OK(vxk_vox_load_grids(b.p, b.n, NULL, &scene));
    CHECK_OK(vxk_vox_scene_flatten(&scene, &g, NULL));
    int32_t extent = VXK_MAX(g.size.x, VXK_MAX(g.size.y, g.size.z));
    vxk_voxel_grid_free(&g);
    vxk_vox_scene_free(&scene);
    o = vxk_default_vox_options();
    o.max_scene_extent = extent;
    CHECK_OK(vxk_vox_load_grids(b.p, b.n, &o, &scene));
    CHECK_OK(vxk_vox_scene_flatten(&scene, &g, NULL));
    vxk_voxel_grid_free(&g);
    vxk_vox_scene_free(&scene);
    if (extent > 1) {
        o.max_scene_extent = extent - 1;
        CHECK_OK(vxk_vox_load_grids(b.p, b.n, &o, &scene));
        VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(&scene, &g, NULL), VXK_ERR_OUT_OF_RANGE);
        vxk_vox_scene_free(&scene);
    }
    vxk_vox_scene_free(&scene); // freeing a zeroed scene is allowed
    free(b.p);
    return 0;
}

// Seeded mutations (bit flips, truncations, insertions, deletions, field overwrites) of the
// samples and of synthetic files: a clean status, no crash, nothing leaked.
static int test_mutations(void)
{
    uint8_t* inputs[8];
    size_t sizes[8];
    int count = 0;
    for (int i = 0; i < 4; ++i) {
        inputs[count] = load_sample(i, &sizes[count]);
        VXK_CHECK(inputs[count] != NULL);
        ++count;
    }
    uint64_t rng = 0xfeed;
    wbuf b = {0};
    while (count < 8) {
        tscene s;
        random_scene(&rng, &s, 1);
        write_vox(&s, &b, NULL, &rng);
        tscene_free(&s);
        inputs[count] = (uint8_t*)malloc(b.n);
        memcpy(inputs[count], b.p, b.n);
        sizes[count++] = b.n;
    }
    free(b.p);
    vxk_vox_options o = vxk_default_vox_options();
    o.max_bytes = 32u << 20;
    int iterations = VXK_TEST_SLOW ? 4000 : 20000;
    int outcomes[VXK_STATUS_COUNT] = {0};
    static const int32_t extremes[] = {0,         -1,        1,       255, 256,    257,
                                       INT32_MAX, INT32_MIN, 0x10000, -48, 1 << 24};
    for (int it = 0; it < iterations; ++it) {
        int which = it % count;
        size_t n = sizes[which];
        uint8_t* m = (uint8_t*)malloc(n + 64);
        memcpy(m, inputs[which], n);
        int edits = 1 + (int)(vxk_test_rand(&rng) % 4);
        for (int e = 0; e < edits && n > 0; ++e) {
            size_t at = (size_t)(vxk_test_rand(&rng) % n);
            switch (vxk_test_rand(&rng) % 6) {
            case 0: m[at] ^= (uint8_t)(1u << (vxk_test_rand(&rng) % 8)); break;
            case 1: n = at; break;
            case 2: {
                size_t k = 1 + (size_t)(vxk_test_rand(&rng) % 16);
                if (n + k > sizes[which] + 64)
                    break;
                memmove(m + at + k, m + at, n - at);
                for (size_t i = 0; i < k; ++i)
                    m[at + i] = (uint8_t)vxk_test_rand(&rng);
                n += k;
                break;
            }
            case 3: {
                size_t k = 1 + (size_t)(vxk_test_rand(&rng) % 16);
                if (at + k > n)
                    k = n - at;
                memmove(m + at, m + at + k, n - at - k);
                n -= k;
                break;
            }
            default:
                if (at + 4 <= n)
                    put_i32(m + (at & ~(size_t)3),
                            extremes[vxk_test_rand(&rng) % (sizeof(extremes) / 4)]);
                break;
            }
        }
        // Half the time MAIN's children size is made to match, so that the edits reach the
        // chunks instead of stopping at MAIN.
        if (n >= 20 && vxk_test_rand(&rng) % 2) {
            size_t content = (size_t)VXK_MAX(0, get_i32(m + 12));
            put_i32(m + 16, (int32_t)(n - 20 - (content < n - 20 ? content : n - 20)));
        }
        size_t before = vxk_allocated_bytes();
        vxk_vox_scene scene;
        vxk_status st = vxk_vox_load_grids(m, n, &o, &scene);
        if (st == VXK_OK) {
            vxk_voxel_grid g;
            st = vxk_vox_scene_flatten(&scene, &g, NULL);
            vxk_voxel_grid_free(&g);
        }
        vxk_vox_scene_free(&scene);
        free(m);
        VXK_CHECK(st >= VXK_OK && st < VXK_STATUS_COUNT);
        VXK_CHECK_MSG(st == VXK_OK || st == VXK_ERR_MALFORMED || st == VXK_ERR_TRUNCATED ||
                          st == VXK_ERR_OUT_OF_RANGE || st == VXK_ERR_UNSUPPORTED,
                      "iteration %d: %s", it, vxk_status_string(st));
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
        outcomes[st]++;
    }
    fprintf(stderr,
            "  %d mutations: ok %d, malformed %d, truncated %d, out of range %d, "
            "unsupported %d\n",
            iterations, outcomes[VXK_OK], outcomes[VXK_ERR_MALFORMED], outcomes[VXK_ERR_TRUNCATED],
            outcomes[VXK_ERR_OUT_OF_RANGE], outcomes[VXK_ERR_UNSUPPORTED]);
    for (int i = 0; i < count; ++i)
        free(inputs[i]);
    return 0;
}

// ---- bad input and out of memory ----------------------------------------------------------------

static bool scene_zeroed(const vxk_vox_scene* s)
{
    static const vxk_vox_scene zero;
    return memcmp(s, &zero, sizeof(zero)) == 0;
}

static int test_vox_edges(void)
{
    size_t before = vxk_allocated_bytes();
    size_t size = 0;
    uint8_t* data = vxk_test_read_file(VXK_SOURCE_DIR "/tests/data/vox/ok_base.vox", &size);
    VXK_CHECK(data != NULL && size > 8);
    vxk_vox_scene scene;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, &scene), VXK_OK);
    vxk_vox_scene_free(&scene);
    VXK_CHECK(scene_zeroed(&scene));

    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    memset(&scene, CANARY, sizeof(scene));
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(NULL, size, NULL, &scene), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(scene_zeroed(&scene));
    memset(&scene, CANARY, sizeof(scene));
    VXK_CHECK(vxk_vox_load_grids(NULL, 0, NULL, &scene) != VXK_OK);
    VXK_CHECK(scene_zeroed(&scene));
    vxk_vox_options zero_opts;
    memset(&zero_opts, 0, sizeof(zero_opts));
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &zero_opts, &scene), VXK_ERR_BAD_DEF);
    vxk_vox_options opts = vxk_default_vox_options();
    opts.cookie ^= 0x100u;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &opts, &scene), VXK_ERR_BAD_DEF);
    VXK_CHECK(scene_zeroed(&scene));
    opts = vxk_default_vox_options();
    opts.max_scene_extent = 0;
    VXK_CHECK(vxk_vox_load_grids(data, size, &opts, &scene) != VXK_OK);
    opts = vxk_default_vox_options();
    opts.max_bytes = 0;
    VXK_CHECK(vxk_vox_load_grids(data, size, &opts, &scene) != VXK_OK);
    // Mapping to an undefined material; a table with no solid material for the default mapping.
    opts = vxk_default_vox_options();
    opts.use_palette_to_material = true;
    for (int c = 0; c < 256; ++c)
        opts.palette_to_material[c] = VXK_MAT_STONE;
    opts.palette_to_material[1] = 201;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &opts, &scene), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK(scene_zeroed(&scene));
    static vxk_material_table water_only;
    vxk_default_material_table(&water_only);
    for (int id = 1; id < VXK_MAT_DEFAULT_COUNT; ++id)
        if (id != VXK_MAT_WATER)
            water_only.materials[id].defined = 0;
    opts = vxk_default_vox_options();
    opts.materials = &water_only;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, &opts, &scene), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK(scene_zeroed(&scene));
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);

    // Every truncation fails cleanly, zeroes the scene and leaks nothing.
    for (size_t n = 0; n < size; ++n) {
        uint8_t* cut = (uint8_t*)malloc(n ? n : 1);
        memcpy(cut, data, n);
        memset(&scene, CANARY, sizeof(scene));
        vxk_status st = vxk_vox_load_grids(cut, n, NULL, &scene);
        free(cut);
        VXK_CHECK_MSG(st != VXK_OK, "truncated at %zu accepted", n);
        VXK_CHECK(scene_zeroed(&scene));
        VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    }

    // Files.
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file(NULL, NULL, &scene), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file("x.vox", NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids_file("/nonexistent-dir/x.vox", NULL, &scene), VXK_ERR_IO);
    VXK_CHECK(scene_zeroed(&scene));

    // Flatten.
    vxk_voxel_grid grid;
    vxk_int3 origin = {7, 7, 7};
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(&scene, NULL, &origin), VXK_ERR_INVALID_ARGUMENT);
    memset(&grid, CANARY, sizeof(grid));
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(NULL, &grid, &origin), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(grid.voxels == NULL && grid.size.x == 0);
    memset(&scene, 0, sizeof(scene));
    VXK_CHECK_EQ_INT(vxk_vox_scene_flatten(&scene, &grid, &origin), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(origin.x == 7 && origin.y == 7 && origin.z == 7);
    vxk_vox_scene_free(NULL);
    vxk_vox_scene_free(&scene);
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, size, NULL, NULL, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, size, NULL, &grid, NULL), VXK_OK);
    vxk_voxel_grid_free(&grid);
    memset(&grid, CANARY, sizeof(grid));
    VXK_CHECK_EQ_INT(vxk_vox_load_flat(data, 20, NULL, &grid, &origin), VXK_ERR_TRUNCATED);
    VXK_CHECK(grid.voxels == NULL);

    // Into a world: the world is unchanged on any error.
    vxk_world* w = vxk_scene_edge_world();
    VXK_CHECK(w != NULL);
    snapshot s0 = snap(w);
    const vxk_int3 at = {-3, 1, 2};
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world(NULL, data, size, at, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world(w, data, size, at, &zero_opts), VXK_ERR_BAD_DEF);
    VXK_CHECK(vxk_vox_load_into_world(w, NULL, size, at, NULL) != VXK_OK);
    VXK_CHECK(vxk_vox_load_into_world(w, data, size - 1, at, NULL) != VXK_OK);
    const vxk_int3 far[] = {{INT32_MAX, 0, 0}, {0, INT32_MAX, 0}, {0, 0, INT32_MAX - 1}};
    for (int i = 0; i < 3; ++i)
        VXK_CHECK_EQ_INT(vxk_vox_load_into_world(w, data, size, far[i], NULL),
                         VXK_ERR_OUT_OF_RANGE);
    opts = vxk_default_vox_options();
    opts.use_palette_to_material = true;
    memset(opts.palette_to_material, VXK_MAT_STONE, sizeof(opts.palette_to_material));
    opts.palette_to_material[9] = 180;
    opts.palette_to_material[200] = 180;
    opts.palette_to_material[255] = 180;
    VXK_CHECK(vxk_vox_load_into_world(w, data, size, at, &opts) != VXK_OK);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world_file(NULL, "x.vox", at, NULL),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world_file(w, NULL, at, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world_file(w, "/nonexistent-dir/x.vox", at, NULL),
                     VXK_ERR_IO);
    CHECK_UNCHANGED(w, s0);
    // The lowest corner of int32 is a valid place.
    VXK_CHECK_EQ_INT(
        vxk_vox_load_into_world(w, data, size, (vxk_int3){INT32_MIN, INT32_MIN, INT32_MIN}, NULL),
        VXK_OK);
    vxk_world_destroy(w);
    free(data);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

static int test_oom_vox(void)
{
    size_t base = vxk_allocated_bytes();
    size_t size = 0;
    uint8_t* data = vxk_test_read_file(VXK_SOURCE_DIR "/tests/data/vox/ok_base.vox", &size);
    VXK_CHECK(data != NULL);
    vxk_vox_scene scene;
    OOM_SWEEP(
        memset(&scene, CANARY, sizeof(scene)), vxk_vox_load_grids(data, size, NULL, &scene),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(scene_zeroed(&scene));
            }
        },
        {
            vxk_vox_scene_free(&scene);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_voxel_grid grid;
    OOM_SWEEP(
        memset(&grid, CANARY, sizeof(grid)), vxk_vox_load_flat(data, size, NULL, &grid, NULL),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(grid.voxels == NULL);
            }
        },
        {
            if (st == VXK_OK)
                vxk_voxel_grid_free(&grid);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    vxk_world* ref = vxk_scene_edge_world();
    VXK_CHECK(ref != NULL);
    const vxk_int3 at = {-3, 1, 2};
    VXK_CHECK_EQ_INT(vxk_vox_load_into_world(ref, data, size, at, NULL), VXK_OK);
    uint64_t expected = vxk_world_terrain_hash(ref);
    vxk_world_destroy(ref);
    vxk_world* w = NULL;
    snapshot s0;
    OOM_SWEEP(
        {
            w = vxk_scene_edge_world();
            VXK_CHECK(w != NULL);
            s0 = snap(w);
        },
        vxk_vox_load_into_world(w, data, size, at, NULL),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                CHECK_UNCHANGED(w, s0);
            } else {
                VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), expected);
            }
        },
        {
            vxk_world_destroy(w);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    free(data);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// A file of the committed .vox corpus (tests/data/vox), NULL-terminated path in *path.
static uint8_t* read_corpus(const char* name, char* path, size_t path_size, size_t* size)
{
    snprintf(path, path_size, "%s/tests/data/vox/%s", VXK_SOURCE_DIR, name);
    uint8_t* data = vxk_test_read_file(path, size);
    if (!data)
        fprintf(stderr, "cannot read %s\n", path);
    return data;
}

typedef enum vox_entry {
    VOX_GRIDS,
    VOX_GRIDS_FILE,
    VOX_FLAT,
    VOX_INTO_WORLD,
    VOX_INTO_WORLD_FILE,
    VOX_ENTRY_COUNT
} vox_entry;

static const char* const g_vox_entry_names[VOX_ENTRY_COUNT] = {
    "vxk_vox_load_grids", "vxk_vox_load_grids_file", "vxk_vox_load_flat", "vxk_vox_load_into_world",
    "vxk_vox_load_into_world_file"};

// One loader entry point on a buffer (and its file), releasing what it made.
static vxk_status vox_load(vox_entry entry, vxk_world* world, const uint8_t* data, size_t size,
                           const char* path, const vxk_vox_options* opts)
{
    vxk_vox_scene scene;
    vxk_voxel_grid grid;
    vxk_status st = VXK_OK;
    switch (entry) {
    case VOX_GRIDS: st = vxk_vox_load_grids(data, size, opts, &scene); break;
    case VOX_GRIDS_FILE: st = vxk_vox_load_grids_file(path, opts, &scene); break;
    case VOX_FLAT: st = vxk_vox_load_flat(data, size, opts, &grid, NULL); break;
    case VOX_INTO_WORLD:
        st = vxk_vox_load_into_world(world, data, size, (vxk_int3){0, 0, 0}, opts);
        break;
    default: st = vxk_vox_load_into_world_file(world, path, (vxk_int3){0, 0, 0}, opts); break;
    }
    if (st == VXK_OK && (entry == VOX_GRIDS || entry == VOX_GRIDS_FILE))
        vxk_vox_scene_free(&scene);
    if (st == VXK_OK && entry == VOX_FLAT)
        vxk_voxel_grid_free(&grid);
    return st;
}

// Every loader of vxk/vox.h on files of the corpus and on inputs built for each other status
// it lists, and flattening a loaded scene.
static int test_statuses_vox(void)
{
    vxk_status_group start = vxk_status_group_begin();
    // Files of the corpus and what every loader makes of them (the scene of graph_empty_group
    // loads, then has no instance to flatten).
    static const struct {
        const char* file;
        vxk_status grids, placed;
    } corpus[] = {
        {"ok_base.vox", VXK_OK, VXK_OK},
        {"empty.vox", VXK_ERR_TRUNCATED, VXK_ERR_TRUNCATED},
        {"bad_magic.vox", VXK_ERR_MALFORMED, VXK_ERR_MALFORMED},
        {"size_257.vox", VXK_ERR_OUT_OF_RANGE, VXK_ERR_OUT_OF_RANGE},
        {"chunk_nesting_too_deep.vox", VXK_ERR_UNSUPPORTED, VXK_ERR_UNSUPPORTED},
        {"graph_empty_group.vox", VXK_OK, VXK_ERR_OUT_OF_RANGE},
    };
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    vxk_vox_options opts = vxk_default_vox_options(), forged = opts, no_limit = opts;
    vxk_vox_options unmapped = opts, small_files = opts;
    forged.cookie = 0;
    no_limit.max_bytes = 0;
    unmapped.use_palette_to_material = true;
    memset(unmapped.palette_to_material, 200, sizeof(unmapped.palette_to_material));
    small_files.max_file_bytes = 16;
    char path[1024], dir[1024];
    snprintf(dir, sizeof(dir), "%s/tests/data/vox", VXK_SOURCE_DIR);
    for (int e = 0; e < VOX_ENTRY_COUNT; ++e) {
        const char* fn = g_vox_entry_names[e];
        bool file = e == VOX_GRIDS_FILE || e == VOX_INTO_WORLD_FILE;
        for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); ++i) {
            size_t size = 0;
            uint8_t* data = read_corpus(corpus[i].file, path, sizeof(path), &size);
            VXK_CHECK(data != NULL);
            vxk_status want = e <= VOX_GRIDS_FILE ? corpus[i].grids : corpus[i].placed;
            EXPECT_STATUS_OF(fn, want, vox_load(e, w, data, size, path, NULL), corpus[i].file);
            if (i == 0) {
                EXPECT_STATUS_OF(fn, VXK_ERR_BAD_DEF, vox_load(e, w, data, size, path, &forged),
                                 "forged options");
                EXPECT_STATUS_OF(fn, VXK_ERR_INVALID_ARGUMENT,
                                 vox_load(e, w, data, size, path, &no_limit), "max_bytes 0");
                EXPECT_STATUS_OF(fn, VXK_ERR_BAD_MATERIAL,
                                 vox_load(e, w, data, size, path, &unmapped), "undefined mapping");
                vxk_test_refuse_allocations();
                vxk_status st = vox_load(e, w, data, size, path, NULL);
                vxk_set_allocator(NULL);
                EXPECT_STATUS_OF(fn, VXK_ERR_OUT_OF_MEMORY, st, "no memory");
                if (e == VOX_INTO_WORLD || e == VOX_INTO_WORLD_FILE)
                    EXPECT_STATUS_OF(fn, VXK_ERR_OUT_OF_RANGE,
                                     e == VOX_INTO_WORLD
                                         ? vxk_vox_load_into_world(
                                               w, data, size, (vxk_int3){INT32_MAX, 0, 0}, NULL)
                                         : vxk_vox_load_into_world_file(
                                               w, path, (vxk_int3){INT32_MAX, 0, 0}, NULL),
                                     "box beyond int32");
                if (file) {
                    EXPECT_STATUS_OF(fn, VXK_ERR_OUT_OF_RANGE,
                                     vox_load(e, w, data, size, path, &small_files),
                                     "file beyond max_file_bytes");
                    EXPECT_STATUS_OF(fn, VXK_ERR_IO,
                                     vox_load(e, w, data, size, "/nonexistent/x.vox", NULL),
                                     "missing file");
                    EXPECT_STATUS_OF(fn, VXK_ERR_IO, vox_load(e, w, data, size, dir, NULL),
                                     "a directory");
                    EXPECT_STATUS_OF(fn, VXK_ERR_INVALID_ARGUMENT,
                                     vox_load(e, w, data, size, NULL, NULL), "NULL path");
                } else if (e == VOX_GRIDS) {
                    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT,
                                  vxk_vox_load_grids(data, size, NULL, NULL));
                } else if (e == VOX_FLAT) {
                    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT,
                                  vxk_vox_load_flat(data, size, NULL, NULL, NULL));
                } else {
                    EXPECT_STATUS(
                        VXK_ERR_INVALID_ARGUMENT,
                        vxk_vox_load_into_world(NULL, data, size, (vxk_int3){0, 0, 0}, NULL));
                }
            }
            free(data);
        }
    }
    // Flattening a loaded scene.
    size_t size = 0;
    uint8_t* data = read_corpus("ok_base.vox", path, sizeof(path), &size);
    VXK_CHECK(data != NULL);
    vxk_vox_scene scene;
    vxk_voxel_grid grid;
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, &scene), VXK_OK);
    free(data);
    EXPECT_STATUS(VXK_OK, vxk_vox_scene_flatten(&scene, &grid, NULL));
    vxk_voxel_grid_free(&grid);
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_vox_scene_flatten(NULL, &grid, NULL));
    EXPECT_NO_MEMORY(vxk_vox_scene_flatten(&scene, &grid, NULL));
    vxk_vox_scene_free(&scene);
    data = read_corpus("graph_empty_group.vox", path, sizeof(path), &size);
    VXK_CHECK(data != NULL);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, &scene), VXK_OK);
    free(data);
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_vox_scene_flatten(&scene, &grid, NULL));
    vxk_vox_scene_free(&scene);
    vxk_world_destroy(w);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_default_palette);
    VXK_RUN(test_rotation_by_hand);
    VXK_RUN(test_every_rotation);
    VXK_RUN(test_round_trip);
    VXK_RUN(test_samples);
    VXK_RUN(test_sample_truncations);
    VXK_RUN(test_world);
    VXK_RUN(test_corpus);
    VXK_RUN(test_arguments);
    VXK_RUN(test_mutations);
    vxk_edge_tests_begin();
    VXK_RUN(test_vox_edges);
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_oom_vox);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_vox);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
