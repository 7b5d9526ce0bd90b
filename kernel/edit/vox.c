// vox.c: MagicaVoxel .vox import: a bounds-checked chunk reader, the nTRN/nGRP/nSHP scene graph
// walk (cycle, depth and reference checks), colour-to-material mapping, one flattened grid per
// scene and loading into terrain through vxk_world_write_box. Follows the public .vox format.
#include <vxk/vox.h>

#include <stdio.h>
#include <stdlib.h>

#include "core.h"

#define VOX_OPTIONS_COOKIE 0x564F5831u // "VOX1"

enum { NODE_TRN = 1, NODE_GRP = 2, NODE_SHP = 3 };

// A model as read from the file: vox-axis size and the raw XYZI entries (x, y, z, colour).
typedef struct vox_model {
    int32_t size[3];
    uint32_t count;
    uint8_t* xyzi; // 4 * count bytes
} vox_model;

// A scene graph node; child/model ids live in vox_parse.refs[first .. first + count).
typedef struct vox_node {
    int32_t id;
    uint8_t kind;
    int8_t rotation[9]; // nTRN frame 0, vox axes, row-major
    int32_t translation[3];
    uint32_t first, count;
} vox_node;

// What the scene keeps for flattening (vxk_vox_scene.internal).
typedef struct vox_internal {
    vox_model* models;
    uint32_t model_count;
    int32_t max_scene_extent;
    uint64_t max_bytes;
} vox_internal;

typedef struct vox_parse {
    const vxk_vox_options* opts;
    vox_model* models;
    uint32_t model_count, model_capacity;
    uint64_t model_bytes;
    bool pending_size;
    int32_t pending[3];
    vox_node* nodes;
    uint32_t node_count, node_capacity;
    int32_t* refs;
    uint32_t ref_count, ref_capacity;
    bool has_rgba;
    uint8_t rgba[256][4]; // shifted: rgba[c] is colour index c
    // scene graph walk
    uint8_t* on_path;
    uint64_t visits;
    vxk_vox_instance* instances;
    uint32_t instance_count, instance_capacity;
} vox_parse;

typedef struct vox_cursor {
    const uint8_t* p;
    size_t left;
} vox_cursor;

typedef struct vox_xform {
    int64_t r[9];
    int64_t t[3];
} vox_xform;

vxk_vox_options vxk_default_vox_options(void)
{
    vxk_vox_options o;
    memset(&o, 0, sizeof(o));
    o.cookie = VOX_OPTIONS_COOKIE;
    o.max_scene_extent = 2048;
    o.max_bytes = 256ull << 20;
    o.max_instances = 65536;
    o.max_models = 65536;
    o.max_nodes = 1u << 20;
    o.max_file_bytes = 1ull << 30;
    return o;
}

void vxk_vox_default_palette(uint8_t palette[256][4])
{
    static const uint8_t cube[6] = {0xff, 0xcc, 0x99, 0x66, 0x33, 0x00};
    static const uint8_t ramp[10] = {0xee, 0xdd, 0xbb, 0xaa, 0x88, 0x77, 0x55, 0x44, 0x22, 0x11};
    memset(palette, 0, 256 * 4);
    // Colour 1..215: the 6x6x6 cube without black, red slowest, blue fastest; then ramps of
    // red, green, blue and grey.
    int c = 1;
    for (int r = 0; r < 6; ++r)
        for (int g = 0; g < 6; ++g)
            for (int b = 0; b < 6 && c < 216; ++b, ++c) {
                palette[c][0] = cube[r];
                palette[c][1] = cube[g];
                palette[c][2] = cube[b];
                palette[c][3] = 0xff;
            }
    for (int channel = 0; channel < 4; ++channel)
        for (int i = 0; i < 10; ++i, ++c) {
            for (int k = 0; k < 3; ++k)
                palette[c][k] = (channel == 3 || channel == k) ? ramp[i] : 0;
            palette[c][3] = 0xff;
        }
    VXK_ASSERT(c == 256);
}

// ---- bounds-checked reading ------------------------------------------------------------------

static int32_t load_i32(const uint8_t* p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

static vxk_status read_i32(vox_cursor* c, int32_t* v)
{
    if (c->left < 4)
        return VXK_ERR_TRUNCATED;
    *v = load_i32(c->p);
    c->p += 4;
    c->left -= 4;
    return VXK_OK;
}

// A count or size that must not be negative.
static vxk_status read_count(vox_cursor* c, int32_t* v)
{
    vxk_status s = read_i32(c, v);
    if (s == VXK_OK && *v < 0)
        return VXK_ERR_MALFORMED;
    return s;
}

static vxk_status read_string(vox_cursor* c, const uint8_t** s, size_t* len)
{
    int32_t n;
    vxk_status st = read_count(c, &n);
    if (st != VXK_OK)
        return st;
    if ((size_t)n > c->left)
        return VXK_ERR_TRUNCATED;
    *s = c->p;
    *len = (size_t)n;
    c->p += n;
    c->left -= (size_t)n;
    return VXK_OK;
}

static bool string_is(const uint8_t* s, size_t len, const char* key)
{
    size_t k = strlen(key);
    return len == k && memcmp(s, key, k) == 0;
}

// Parses up to `want` integers separated by spaces; rejects anything else.
static vxk_status parse_ints(const uint8_t* s, size_t len, int64_t* out, int want, int64_t limit)
{
    size_t i = 0;
    for (int k = 0; k < want; ++k) {
        while (i < len && s[i] == ' ')
            ++i;
        bool negative = false;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            negative = s[i++] == '-';
        size_t digits = 0;
        int64_t v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i++] - '0');
            if (v > limit)
                return VXK_ERR_OUT_OF_RANGE;
            ++digits;
        }
        if (digits == 0)
            return VXK_ERR_MALFORMED;
        out[k] = negative ? -v : v;
    }
    while (i < len && s[i] == ' ')
        ++i;
    return i == len ? VXK_OK : VXK_ERR_MALFORMED;
}

// Rotation byte: bits 0-1 and 2-3 give the column of the nonzero entry of rows 0 and 1 (row 2
// takes the remaining column), bits 4-6 make rows 0, 1, 2 negative.
static vxk_status decode_rotation(int64_t r, int8_t m[9])
{
    if (r < 0 || r > 127)
        return VXK_ERR_MALFORMED;
    int c0 = (int)(r & 3), c1 = (int)((r >> 2) & 3);
    if (c0 > 2 || c1 > 2 || c0 == c1)
        return VXK_ERR_MALFORMED;
    int c2 = 3 - c0 - c1;
    int cols[3] = {c0, c1, c2};
    memset(m, 0, 9);
    for (int row = 0; row < 3; ++row)
        m[row * 3 + cols[row]] = (int8_t)(((r >> (4 + row)) & 1) ? -1 : 1);
    return VXK_OK;
}

// Reads a dict; when node is given, "_t" and "_r" set its transform.
static vxk_status read_dict(vox_cursor* c, vox_node* node)
{
    int32_t pairs;
    vxk_status st = read_count(c, &pairs);
    for (int32_t i = 0; st == VXK_OK && i < pairs; ++i) {
        const uint8_t *key, *value;
        size_t key_len, value_len;
        st = read_string(c, &key, &key_len);
        if (st == VXK_OK)
            st = read_string(c, &value, &value_len);
        if (st != VXK_OK || !node)
            continue;
        if (string_is(key, key_len, "_t")) {
            int64_t t[3];
            st = parse_ints(value, value_len, t, 3, VXK_VOX_MAX_TRANSLATION);
            for (int k = 0; st == VXK_OK && k < 3; ++k)
                node->translation[k] = (int32_t)t[k];
        } else if (string_is(key, key_len, "_r")) {
            int64_t r;
            st = parse_ints(value, value_len, &r, 1, 1000);
            if (st != VXK_OK)
                st = VXK_ERR_MALFORMED;
            else
                st = decode_rotation(r, node->rotation);
        }
    }
    return st;
}

static vxk_status push_ref(vox_parse* ps, int32_t id)
{
    if (!vxk_grow_items((void**)&ps->refs, &ps->ref_capacity, (uint64_t)ps->ref_count + 1,
                        sizeof(int32_t)))
        return VXK_ERR_OUT_OF_MEMORY;
    ps->refs[ps->ref_count++] = id;
    return VXK_OK;
}

// ---- chunks ------------------------------------------------------------------------------------

static vxk_status parse_size(vox_parse* ps, vox_cursor* c)
{
    if (ps->pending_size)
        return VXK_ERR_MALFORMED;
    int32_t s[3];
    for (int k = 0; k < 3; ++k) {
        vxk_status st = read_i32(c, &s[k]);
        if (st != VXK_OK)
            return st;
    }
    for (int k = 0; k < 3; ++k)
        if (s[k] <= 0 || s[k] > VXK_VOX_MAX_MODEL_SIZE)
            return VXK_ERR_OUT_OF_RANGE;
    if (ps->model_count >= ps->opts->max_models)
        return VXK_ERR_OUT_OF_RANGE;
    uint64_t bytes = (uint64_t)s[0] * (uint64_t)s[1] * (uint64_t)s[2];
    if (bytes > ps->opts->max_bytes - ps->model_bytes)
        return VXK_ERR_OUT_OF_RANGE;
    ps->model_bytes += bytes;
    memcpy(ps->pending, s, sizeof(s));
    ps->pending_size = true;
    return VXK_OK;
}

static vxk_status parse_xyzi(vox_parse* ps, vox_cursor* c)
{
    if (!ps->pending_size)
        return VXK_ERR_MALFORMED;
    int32_t count;
    vxk_status st = read_count(c, &count);
    if (st != VXK_OK)
        return st;
    if ((size_t)count > c->left / 4)
        return VXK_ERR_TRUNCATED;
    const uint8_t* entries = c->p;
    for (int32_t i = 0; i < count; ++i)
        for (int k = 0; k < 3; ++k)
            if (entries[4 * (size_t)i + (size_t)k] >= ps->pending[k])
                return VXK_ERR_OUT_OF_RANGE;
    if (!vxk_grow_items((void**)&ps->models, &ps->model_capacity, (uint64_t)ps->model_count + 1,
                        sizeof(vox_model)))
        return VXK_ERR_OUT_OF_MEMORY;
    vox_model* m = &ps->models[ps->model_count];
    memset(m, 0, sizeof(*m));
    m->xyzi = (uint8_t*)vxk_alloc(4 * (size_t)count);
    if (!m->xyzi)
        return VXK_ERR_OUT_OF_MEMORY;
    memcpy(m->xyzi, entries, 4 * (size_t)count);
    memcpy(m->size, ps->pending, sizeof(m->size));
    m->count = (uint32_t)count;
    ++ps->model_count;
    ps->pending_size = false;
    return VXK_OK;
}

static vxk_status parse_rgba(vox_parse* ps, vox_cursor* c)
{
    if (c->left < 1024)
        return VXK_ERR_TRUNCATED;
    // Entry i of the chunk is colour index i + 1; the last entry has no index.
    memset(ps->rgba, 0, sizeof(ps->rgba));
    memcpy(ps->rgba[1], c->p, 255 * 4);
    ps->has_rgba = true;
    return VXK_OK;
}

static vxk_status parse_node(vox_parse* ps, vox_cursor* c, uint8_t kind)
{
    if (ps->node_count >= ps->opts->max_nodes)
        return VXK_ERR_OUT_OF_RANGE;
    if (!vxk_grow_items((void**)&ps->nodes, &ps->node_capacity, (uint64_t)ps->node_count + 1,
                        sizeof(vox_node)))
        return VXK_ERR_OUT_OF_MEMORY;
    vox_node node;
    memset(&node, 0, sizeof(node));
    node.kind = kind;
    node.rotation[0] = node.rotation[4] = node.rotation[8] = 1;
    node.first = ps->ref_count;
    vxk_status st = read_count(c, &node.id);
    if (st == VXK_OK)
        st = read_dict(c, NULL);
    if (st != VXK_OK)
        return st;
    if (kind == NODE_TRN) {
        int32_t child, reserved, layer, frames;
        st = read_count(c, &child);
        if (st == VXK_OK)
            st = read_i32(c, &reserved);
        if (st == VXK_OK)
            st = read_i32(c, &layer);
        if (st == VXK_OK)
            st = read_count(c, &frames);
        // Frame 0 holds the static transform; later frames (animation) are read and ignored.
        for (int32_t f = 0; st == VXK_OK && f < frames; ++f)
            st = read_dict(c, f == 0 ? &node : NULL);
        if (st == VXK_OK)
            st = push_ref(ps, child);
        node.count = 1;
    } else if (kind == NODE_GRP) {
        int32_t count;
        st = read_count(c, &count);
        if (st == VXK_OK && (size_t)count > c->left / 4)
            st = VXK_ERR_TRUNCATED;
        for (int32_t i = 0; st == VXK_OK && i < count; ++i) {
            int32_t child;
            st = read_count(c, &child);
            if (st == VXK_OK)
                st = push_ref(ps, child);
        }
        node.count = (uint32_t)(st == VXK_OK ? count : 0);
    } else {
        int32_t count;
        st = read_count(c, &count);
        for (int32_t i = 0; st == VXK_OK && i < count; ++i) {
            int32_t model;
            st = read_count(c, &model);
            if (st == VXK_OK)
                st = read_dict(c, NULL);
            if (st == VXK_OK)
                st = push_ref(ps, model);
        }
        node.count = (uint32_t)(st == VXK_OK ? count : 0);
    }
    if (st == VXK_OK)
        ps->nodes[ps->node_count++] = node;
    return st;
}

static vxk_status parse_chunk(vox_parse* ps, const uint8_t id[4], vox_cursor* c)
{
    if (memcmp(id, "SIZE", 4) == 0)
        return parse_size(ps, c);
    if (memcmp(id, "XYZI", 4) == 0)
        return parse_xyzi(ps, c);
    if (memcmp(id, "RGBA", 4) == 0)
        return parse_rgba(ps, c);
    if (memcmp(id, "nTRN", 4) == 0)
        return parse_node(ps, c, NODE_TRN);
    if (memcmp(id, "nGRP", 4) == 0)
        return parse_node(ps, c, NODE_GRP);
    if (memcmp(id, "nSHP", 4) == 0)
        return parse_node(ps, c, NODE_SHP);
    // PACK, MATL, MATT, LAYR, rOBJ, rCAM, NOTE, IMAP and unknown chunks carry nothing we place.
    return VXK_OK;
}

static vxk_status parse_chunks(vox_parse* ps, const uint8_t* p, size_t n, int depth)
{
    while (n > 0) {
        if (n < 12)
            return VXK_ERR_TRUNCATED;
        int32_t content = load_i32(p + 4), children = load_i32(p + 8);
        if (content < 0 || children < 0)
            return VXK_ERR_MALFORMED;
        if ((size_t)content > n - 12 || (size_t)children > n - 12 - (size_t)content)
            return VXK_ERR_TRUNCATED;
        vox_cursor c = {p + 12, (size_t)content};
        vxk_status st = parse_chunk(ps, p, &c);
        if (st != VXK_OK)
            return st;
        if (children > 0) {
            if (depth + 1 >= VXK_VOX_MAX_CHUNK_DEPTH)
                return VXK_ERR_UNSUPPORTED;
            st = parse_chunks(ps, p + 12 + content, (size_t)children, depth + 1);
            if (st != VXK_OK)
                return st;
        }
        size_t used = 12 + (size_t)content + (size_t)children;
        p += used;
        n -= used;
    }
    return VXK_OK;
}

// ---- scene graph -------------------------------------------------------------------------------

static int compare_nodes(const void* a, const void* b)
{
    int32_t x = ((const vox_node*)a)->id, y = ((const vox_node*)b)->id;
    return (x > y) - (x < y);
}

static const vox_node* find_node(const vox_parse* ps, int32_t id)
{
    uint32_t lo = 0, hi = ps->node_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ps->nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ps->node_count && ps->nodes[lo].id == id ? &ps->nodes[lo] : NULL;
}

// vox axes -> vxk axes: swap y and z (rows and columns of the rotation).
static void to_vxk_instance(const vox_xform* x, uint32_t model, vxk_vox_instance* out)
{
    static const int axis[3] = {0, 2, 1};
    out->model = model;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out->rotation[i * 3 + j] = (int8_t)x->r[axis[i] * 3 + axis[j]];
    out->translation.x = (int32_t)x->t[0];
    out->translation.y = (int32_t)x->t[2];
    out->translation.z = (int32_t)x->t[1];
}

static vxk_status add_instance(vox_parse* ps, const vox_xform* x, uint32_t model)
{
    if (ps->instance_count >= ps->opts->max_instances)
        return VXK_ERR_OUT_OF_RANGE;
    if (!vxk_grow_items((void**)&ps->instances, &ps->instance_capacity,
                        (uint64_t)ps->instance_count + 1, sizeof(vxk_vox_instance)))
        return VXK_ERR_OUT_OF_MEMORY;
    to_vxk_instance(x, model, &ps->instances[ps->instance_count++]);
    return VXK_OK;
}

static vxk_status walk(vox_parse* ps, const vox_node* node, const vox_xform* parent, int depth)
{
    if (depth >= VXK_VOX_MAX_GRAPH_DEPTH)
        return VXK_ERR_UNSUPPORTED;
    if (++ps->visits > ps->opts->max_nodes)
        return VXK_ERR_OUT_OF_RANGE;
    size_t index = (size_t)(node - ps->nodes);
    if (ps->on_path[index])
        return VXK_ERR_MALFORMED; // a cycle
    ps->on_path[index] = 1;
    vxk_status st = VXK_OK;
    if (node->kind == NODE_TRN) {
        // world = Rp * (Rc * p + tc) + tp
        vox_xform x;
        for (int i = 0; i < 3; ++i) {
            int64_t t = parent->t[i];
            for (int j = 0; j < 3; ++j) {
                int64_t sum = 0;
                for (int k = 0; k < 3; ++k)
                    sum += parent->r[i * 3 + k] * node->rotation[k * 3 + j];
                x.r[i * 3 + j] = sum;
                t += parent->r[i * 3 + j] * node->translation[j];
            }
            x.t[i] = t;
        }
        const vox_node* child = find_node(ps, ps->refs[node->first]);
        st = child ? walk(ps, child, &x, depth + 1) : VXK_ERR_MALFORMED;
    } else if (node->kind == NODE_GRP) {
        for (uint32_t i = 0; st == VXK_OK && i < node->count; ++i) {
            const vox_node* child = find_node(ps, ps->refs[node->first + i]);
            st = child ? walk(ps, child, parent, depth + 1) : VXK_ERR_MALFORMED;
        }
    } else {
        for (uint32_t i = 0; st == VXK_OK && i < node->count; ++i) {
            int32_t model = ps->refs[node->first + i];
            if (model < 0 || (uint32_t)model >= ps->model_count)
                st = VXK_ERR_MALFORMED;
            else
                st = add_instance(ps, parent, (uint32_t)model);
        }
    }
    ps->on_path[index] = 0;
    return st;
}

static vxk_status build_instances(vox_parse* ps)
{
    vox_xform identity = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    if (ps->node_count == 0) {
        // No scene graph: side by side along x, min corners at x = sum of earlier widths.
        int64_t x = 0;
        for (uint32_t m = 0; m < ps->model_count; ++m) {
            vox_xform xf = identity;
            const int32_t* s = ps->models[m].size;
            if (x + s[0] > VXK_VOX_MAX_TRANSLATION)
                return VXK_ERR_OUT_OF_RANGE;
            xf.t[0] = x + s[0] / 2;
            xf.t[1] = s[1] / 2;
            xf.t[2] = s[2] / 2;
            x += s[0];
            vxk_status st = add_instance(ps, &xf, m);
            if (st != VXK_OK)
                return st;
        }
        return VXK_OK;
    }
    qsort(ps->nodes, ps->node_count, sizeof(vox_node), compare_nodes);
    for (uint32_t i = 1; i < ps->node_count; ++i)
        if (ps->nodes[i].id == ps->nodes[i - 1].id)
            return VXK_ERR_MALFORMED;
    const vox_node* root = find_node(ps, 0);
    if (!root || root->kind != NODE_TRN)
        return VXK_ERR_MALFORMED;
    ps->on_path = (uint8_t*)vxk_calloc(ps->node_count);
    if (!ps->on_path)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_status st = walk(ps, root, &identity, 0);
    vxk_free(ps->on_path, ps->node_count);
    ps->on_path = NULL;
    return st;
}

// ---- materials ---------------------------------------------------------------------------------

static vxk_status map_colours(const vxk_vox_options* opts, const vxk_material_table* table,
                              const uint8_t palette[256][4], uint8_t out[256])
{
    memset(out, 0, 256);
    if (opts->use_palette_to_material) {
        for (int c = 1; c < 256; ++c) {
            uint8_t m = opts->palette_to_material[c];
            if (m != 0 && !table->materials[m].defined)
                return VXK_ERR_BAD_MATERIAL;
            out[c] = m;
        }
        return VXK_OK;
    }
    for (int c = 1; c < 256; ++c) {
        int64_t best = INT64_MAX;
        int best_id = 0;
        for (int id = 1; id < VXK_MATERIAL_COUNT; ++id) {
            const vxk_material* m = &table->materials[id];
            if (!m->defined || m->kind != VXK_MATERIAL_SOLID)
                continue;
            int64_t d = 0;
            for (int k = 0; k < 3; ++k) {
                int64_t e = (int64_t)palette[c][k] - (int64_t)m->color[k];
                d += e * e;
            }
            if (d < best) {
                best = d;
                best_id = id;
            }
        }
        if (best_id == 0)
            return VXK_ERR_BAD_MATERIAL;
        out[c] = (uint8_t)best_id;
    }
    return VXK_OK;
}

// ---- loading -----------------------------------------------------------------------------------

static void free_models(vox_model* models, uint32_t count)
{
    for (uint32_t i = 0; i < count; ++i)
        vxk_free(models[i].xyzi, 4 * (size_t)models[i].count);
}

static void parse_free(vox_parse* ps)
{
    if (ps->models)
        free_models(ps->models, ps->model_count);
    vxk_free(ps->models, (size_t)ps->model_capacity * sizeof(vox_model));
    vxk_free(ps->nodes, (size_t)ps->node_capacity * sizeof(vox_node));
    vxk_free(ps->refs, (size_t)ps->ref_capacity * sizeof(int32_t));
    vxk_free(ps->instances, (size_t)ps->instance_capacity * sizeof(vxk_vox_instance));
}

void vxk_vox_scene_free(vxk_vox_scene* scene)
{
    if (!scene)
        return;
    if (scene->models)
        for (uint32_t i = 0; i < scene->model_count; ++i)
            vxk_voxel_grid_free(&scene->models[i]);
    vxk_free(scene->models, (size_t)scene->model_count * sizeof(vxk_voxel_grid));
    vxk_free(scene->instances, (size_t)scene->instance_count * sizeof(vxk_vox_instance));
    vox_internal* in = (vox_internal*)scene->internal;
    if (in) {
        free_models(in->models, in->model_count);
        vxk_free(in->models, (size_t)in->model_count * sizeof(vox_model));
        vxk_free(in, sizeof(vox_internal));
    }
    memset(scene, 0, sizeof(*scene));
}

static vxk_status check_options(const vxk_vox_options* opts)
{
    if (opts->cookie != VOX_OPTIONS_COOKIE)
        return VXK_ERR_BAD_DEF;
    if (opts->max_scene_extent <= 0 || opts->max_bytes == 0 || opts->max_instances == 0 ||
        opts->max_models == 0 || opts->max_nodes == 0)
        return VXK_ERR_INVALID_ARGUMENT;
    return VXK_OK;
}

// Moves the parsed models into the scene: material grids in vxk axes plus the raw lists.
static vxk_status build_scene(vox_parse* ps, vxk_vox_scene* out)
{
    out->models = (vxk_voxel_grid*)vxk_calloc((size_t)ps->model_count * sizeof(vxk_voxel_grid));
    if (!out->models)
        return VXK_ERR_OUT_OF_MEMORY;
    // Set at once: vxk_vox_scene_free releases the array with this count on any later failure.
    out->model_count = ps->model_count;
    vox_internal* in = (vox_internal*)vxk_calloc(sizeof(vox_internal));
    out->internal = in;
    if (!in)
        return VXK_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < ps->model_count; ++i) {
        const vox_model* m = &ps->models[i];
        vxk_voxel_grid* g = &out->models[i];
        vxk_status st = vxk_voxel_grid_create(g, (vxk_int3){m->size[0], m->size[2], m->size[1]});
        if (st != VXK_OK)
            return st;
        // Grid index x + sx*(z_vxk + sz_vxk*y_vxk) with z_vxk = vox y and y_vxk = vox z.
        for (uint32_t v = 0; v < m->count; ++v) {
            const uint8_t* e = m->xyzi + 4 * (size_t)v;
            uint8_t material = out->palette_to_material[e[3]];
            if (e[3] == 0 || material == 0)
                continue;
            size_t index =
                (size_t)e[0] + (size_t)m->size[0] * ((size_t)e[1] + (size_t)m->size[1] * e[2]);
            g->voxels[index] = material;
        }
    }
    // Hand the raw voxel lists over; parse_free then frees only the array that held them.
    in->models = (vox_model*)vxk_alloc((size_t)ps->model_count * sizeof(vox_model));
    if (!in->models)
        return VXK_ERR_OUT_OF_MEMORY;
    memcpy(in->models, ps->models, (size_t)ps->model_count * sizeof(vox_model));
    in->model_count = ps->model_count;
    ps->model_count = 0;
    in->max_scene_extent = ps->opts->max_scene_extent;
    in->max_bytes = ps->opts->max_bytes;
    // Instances: trim the array to its count so that free sizes match.
    if (ps->instance_count) {
        out->instances =
            (vxk_vox_instance*)vxk_alloc(ps->instance_count * sizeof(vxk_vox_instance));
        if (!out->instances)
            return VXK_ERR_OUT_OF_MEMORY;
        memcpy(out->instances, ps->instances, ps->instance_count * sizeof(vxk_vox_instance));
        out->instance_count = ps->instance_count;
    }
    return VXK_OK;
}

static vxk_status load_grids(const void* data, size_t size, const vxk_vox_options* opts,
                             const vxk_material_table* table, vxk_vox_scene* out)
{
    const uint8_t* p = (const uint8_t*)data;
    if (size < 8)
        return VXK_ERR_TRUNCATED;
    if (memcmp(p, "VOX ", 4) != 0)
        return VXK_ERR_MALFORMED;
    out->version = load_i32(p + 4);
    p += 8;
    size -= 8;
    if (size < 12)
        return VXK_ERR_TRUNCATED;
    if (memcmp(p, "MAIN", 4) != 0)
        return VXK_ERR_MALFORMED;
    int32_t content = load_i32(p + 4), children = load_i32(p + 8);
    if (content < 0 || children < 0)
        return VXK_ERR_MALFORMED;
    if ((size_t)content > size - 12 || (size_t)children > size - 12 - (size_t)content)
        return VXK_ERR_TRUNCATED;
    // Bytes after MAIN are ignored.

    vox_parse ps;
    memset(&ps, 0, sizeof(ps));
    ps.opts = opts;
    vxk_status st = parse_chunks(&ps, p + 12 + content, (size_t)children, 1);
    if (st == VXK_OK && (ps.pending_size || ps.model_count == 0))
        st = VXK_ERR_MALFORMED;
    if (st == VXK_OK)
        st = build_instances(&ps);
    if (st == VXK_OK) {
        out->has_scene_graph = ps.node_count > 0;
        if (ps.has_rgba)
            memcpy(out->palette, ps.rgba, sizeof(out->palette));
        else
            vxk_vox_default_palette(out->palette);
        st = map_colours(opts, table, (const uint8_t(*)[4])out->palette, out->palette_to_material);
    }
    if (st == VXK_OK)
        st = build_scene(&ps, out);
    parse_free(&ps);
    return st;
}

vxk_status vxk_vox_load_grids(const void* data, size_t size, const vxk_vox_options* opts,
                              vxk_vox_scene* out)
{
    if (!out)
        return VXK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!data && size)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_vox_options defaults = vxk_default_vox_options();
    if (!opts)
        opts = &defaults;
    vxk_status st = check_options(opts);
    if (st != VXK_OK)
        return st;
    vxk_material_table* owned = NULL;
    const vxk_material_table* table = opts->materials;
    if (!table) {
        owned = (vxk_material_table*)vxk_alloc(sizeof(vxk_material_table));
        if (!owned)
            return VXK_ERR_OUT_OF_MEMORY;
        vxk_default_material_table(owned);
        table = owned;
    }
    st = load_grids(data, size, opts, table, out);
    if (owned)
        vxk_free(owned, sizeof(vxk_material_table));
    if (st != VXK_OK)
        vxk_vox_scene_free(out);
    return st;
}

// Reads a whole file into memory.
static vxk_status read_file(const char* path, uint64_t limit, uint8_t** data, size_t* size)
{
    *data = NULL;
    *size = 0;
    FILE* f = fopen(path, "rb");
    if (!f)
        return VXK_ERR_IO;
    vxk_status st = VXK_OK;
    long length = -1;
    // A directory opens, and its length is what the file system makes of it (ext4 reports
    // LONG_MAX); reading a byte tells it from a file before the length is trusted.
    if (fgetc(f) == EOF && ferror(f))
        st = VXK_ERR_IO;
    else if (fseek(f, 0, SEEK_END) == 0)
        length = ftell(f);
    if (length < 0 || fseek(f, 0, SEEK_SET) != 0)
        st = VXK_ERR_IO;
    else if ((uint64_t)length > limit)
        st = VXK_ERR_OUT_OF_RANGE;
    uint8_t* buffer = NULL;
    if (st == VXK_OK) {
        buffer = (uint8_t*)vxk_alloc((size_t)length);
        if (!buffer)
            st = VXK_ERR_OUT_OF_MEMORY;
        else if (fread(buffer, 1, (size_t)length, f) != (size_t)length)
            st = VXK_ERR_IO;
    }
    fclose(f);
    if (st != VXK_OK) {
        if (buffer)
            vxk_free(buffer, (size_t)length);
        return st;
    }
    *data = buffer;
    *size = (size_t)length;
    return VXK_OK;
}

static uint64_t file_limit(const vxk_vox_options* opts)
{
    return opts && opts->cookie == VOX_OPTIONS_COOKIE ? opts->max_file_bytes : (1ull << 30);
}

vxk_status vxk_vox_load_grids_file(const char* path, const vxk_vox_options* opts,
                                   vxk_vox_scene* out)
{
    if (!out)
        return VXK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!path)
        return VXK_ERR_INVALID_ARGUMENT;
    uint8_t* data;
    size_t size;
    vxk_status st = read_file(path, file_limit(opts), &data, &size);
    if (st != VXK_OK)
        return st;
    st = vxk_vox_load_grids(data, size, opts, out);
    vxk_free(data, size);
    return st;
}

// ---- flattening --------------------------------------------------------------------------------

// floor(v / 2) for any sign.
static int64_t floor_half(int64_t v)
{
    return v >= 0 ? v / 2 : -((1 - v) / 2);
}

// Box of an instance in vxk scene coordinates (inclusive). Doubled offsets 2g + 1 - size span
// [1 - size, size - 1] on each axis, symmetric, so the box does not depend on the signs.
static void instance_box(const vxk_vox_instance* inst, const vxk_voxel_grid* g, int64_t lo[3],
                         int64_t hi[3])
{
    const int64_t size[3] = {g->size.x, g->size.y, g->size.z};
    const int64_t t[3] = {inst->translation.x, inst->translation.y, inst->translation.z};
    for (int i = 0; i < 3; ++i) {
        int64_t extent = 1;
        for (int j = 0; j < 3; ++j)
            if (inst->rotation[i * 3 + j])
                extent = size[j];
        lo[i] = t[i] + floor_half(1 - extent);
        hi[i] = t[i] + floor_half(extent - 1);
    }
}

vxk_status vxk_vox_scene_flatten(const vxk_vox_scene* scene, vxk_voxel_grid* out, vxk_int3* origin)
{
    if (!out)
        return VXK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    if (!scene || !scene->internal)
        return VXK_ERR_INVALID_ARGUMENT;
    const vox_internal* in = (const vox_internal*)scene->internal;
    if (scene->instance_count == 0)
        return VXK_ERR_OUT_OF_RANGE;
    int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
    uint64_t writes = 0;
    for (uint32_t i = 0; i < scene->instance_count; ++i) {
        const vxk_vox_instance* inst = &scene->instances[i];
        VXK_ASSERT(inst->model < scene->model_count);
        int64_t a[3], b[3];
        instance_box(inst, &scene->models[inst->model], a, b);
        for (int k = 0; k < 3; ++k) {
            lo[k] = VXK_MIN(lo[k], a[k]);
            hi[k] = VXK_MAX(hi[k], b[k]);
        }
        writes += in->models[inst->model].count;
    }
    int64_t extent[3];
    for (int k = 0; k < 3; ++k) {
        extent[k] = hi[k] - lo[k] + 1;
        if (extent[k] > in->max_scene_extent || extent[k] > 4096)
            return VXK_ERR_OUT_OF_RANGE;
    }
    uint64_t bytes = (uint64_t)extent[0] * (uint64_t)extent[1] * (uint64_t)extent[2];
    if (bytes > in->max_bytes || writes > in->max_bytes)
        return VXK_ERR_OUT_OF_RANGE;
    vxk_voxel_grid grid;
    vxk_status st = vxk_voxel_grid_create(
        &grid, (vxk_int3){(int32_t)extent[0], (int32_t)extent[1], (int32_t)extent[2]});
    if (st != VXK_OK)
        return st;
    for (uint32_t i = 0; i < scene->instance_count; ++i) {
        const vxk_vox_instance* inst = &scene->instances[i];
        const vox_model* m = &in->models[inst->model];
        const vxk_voxel_grid* g = &scene->models[inst->model];
        const int64_t size[3] = {g->size.x, g->size.y, g->size.z};
        const int64_t t[3] = {inst->translation.x - lo[0], inst->translation.y - lo[1],
                              inst->translation.z - lo[2]};
        for (uint32_t v = 0; v < m->count; ++v) {
            const uint8_t* e = m->xyzi + 4 * (size_t)v;
            uint8_t material = scene->palette_to_material[e[3]];
            if (e[3] == 0 || material == 0)
                continue;
            // Twice the offset of the voxel centre from the model box centre (vxk axes).
            const int64_t doubled[3] = {2 * (int64_t)e[0] + 1 - size[0],
                                        2 * (int64_t)e[2] + 1 - size[1],
                                        2 * (int64_t)e[1] + 1 - size[2]};
            int64_t w[3];
            for (int r = 0; r < 3; ++r)
                w[r] = t[r] + floor_half(inst->rotation[r * 3 + 0] * doubled[0] +
                                         inst->rotation[r * 3 + 1] * doubled[1] +
                                         inst->rotation[r * 3 + 2] * doubled[2]);
            VXK_ASSERT(w[0] >= 0 && w[0] < extent[0] && w[1] >= 0 && w[1] < extent[1] &&
                       w[2] >= 0 && w[2] < extent[2]);
            grid.voxels[(size_t)w[0] +
                        (size_t)extent[0] * ((size_t)w[2] + (size_t)extent[2] * (size_t)w[1])] =
                material;
        }
    }
    *out = grid;
    if (origin)
        *origin = (vxk_int3){(int32_t)lo[0], (int32_t)lo[1], (int32_t)lo[2]};
    return VXK_OK;
}

vxk_status vxk_vox_load_flat(const void* data, size_t size, const vxk_vox_options* opts,
                             vxk_voxel_grid* out, vxk_int3* origin)
{
    if (!out)
        return VXK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
    vxk_vox_scene scene;
    vxk_status st = vxk_vox_load_grids(data, size, opts, &scene);
    if (st == VXK_OK)
        st = vxk_vox_scene_flatten(&scene, out, origin);
    vxk_vox_scene_free(&scene);
    return st;
}
