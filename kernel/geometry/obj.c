// obj.c: Wavefront OBJ reading and writing of vxk_mesh (positions and faces), strict about
// numbers and indices so that hostile files give VXK_ERR_MALFORMED with a line, never a crash.
#include <vxk/obj.h>

#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

// Counts stay below 2^31: at most VXK_OBJ_MAX_ELEMENTS vertices and faces, and as many
// triangles, so under 3 * 2^26 face corners.
typedef struct obj_array {
    void* data;
    uint32_t count, capacity;
    size_t item;
} obj_array;

static bool array_push(obj_array* a, const void* item)
{
    if (!vxk_grow_items(&a->data, &a->capacity, (uint64_t)a->count + 1, a->item))
        return false;
    memcpy((char*)a->data + (size_t)a->count * a->item, item, a->item);
    ++a->count;
    return true;
}

static void array_free(obj_array* a)
{
    vxk_free(a->data, (size_t)a->capacity * a->item);
    memset(a, 0, sizeof(*a));
}

static inline bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// The next whitespace-separated token of [*p, end); false at the end of the line.
static bool next_token(const char** p, const char* end, const char** tok, size_t* len)
{
    const char* s = *p;
    while (s < end && is_space(*s))
        ++s;
    if (s == end)
        return false;
    const char* e = s;
    while (e < end && !is_space(*e))
        ++e;
    *tok = s;
    *len = (size_t)(e - s);
    *p = e;
    return true;
}

static bool parse_float(const char* tok, size_t len, float* out)
{
    char buf[72];
    if (len == 0 || len >= sizeof(buf))
        return false;
    memcpy(buf, tok, len);
    buf[len] = 0;
    for (size_t i = 0; i < len; ++i) {
        char c = buf[i];
        // decimal digits, sign, point and exponent only: no nan, inf or hex forms
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'))
            return false;
    }
    char* stop = NULL;
    errno = 0;
    float v = strtof(buf, &stop);
    if (stop != buf + len || !vxk_is_finite(v))
        return false;
    *out = v;
    return true;
}

// A signed decimal integer filling [tok, tok + len); at most 10 digits.
static bool parse_int(const char* tok, size_t len, int64_t* out)
{
    size_t i = 0;
    bool negative = false;
    if (i < len && (tok[i] == '-' || tok[i] == '+'))
        negative = tok[i++] == '-';
    if (i == len || len - i > 10)
        return false;
    int64_t v = 0;
    for (; i < len; ++i) {
        if (tok[i] < '0' || tok[i] > '9')
            return false;
        v = v * 10 + (tok[i] - '0');
    }
    *out = negative ? -v : v;
    return true;
}

// One face corner: v, v/vt, v//vn or v/vt/vn. Returns the 0-based vertex index or -1.
static int64_t parse_corner(const char* tok, size_t len, uint64_t vertex_count)
{
    const char* part[3] = {tok, NULL, NULL};
    size_t part_len[3] = {0, 0, 0};
    int parts = 1;
    for (size_t i = 0; i < len; ++i) {
        if (tok[i] == '/') {
            if (parts == 3)
                return -1;
            part[parts++] = tok + i + 1;
        } else {
            ++part_len[parts - 1];
        }
    }
    int64_t v;
    if (!parse_int(part[0], part_len[0], &v) || v == 0)
        return -1;
    // texture/normal indices: optional digits, not range-checked (they are ignored)
    for (int k = 1; k < parts; ++k) {
        int64_t ignored;
        if (part_len[k] && !parse_int(part[k], part_len[k], &ignored))
            return -1;
        if (!part_len[k] && (k == 2 || parts == 2))
            return -1; // "v/" and "v/vt/" are malformed; "v//vn" has an empty middle
    }
    int64_t index = v > 0 ? v - 1 : (int64_t)vertex_count + v;
    if (index < 0 || (uint64_t)index >= vertex_count)
        return -1;
    return index;
}

vxk_status vxk_obj_read(vxk_mesh* out, const char* text, size_t size, uint32_t corners,
                        uint32_t* error_line)
{
    if (error_line)
        *error_line = 0;
    if (!out || (!text && size) || (corners != 3 && corners != 4))
        return VXK_ERR_INVALID_ARGUMENT;
    obj_array vertices = {NULL, 0, 0, sizeof(vxk_vec3)};
    obj_array refs = {NULL, 0, 0, sizeof(uint32_t)};  // corners of all faces
    obj_array faces = {NULL, 0, 0, sizeof(uint32_t)}; // corner count of each face
    vxk_status status = VXK_OK;
    uint32_t line = 0, bad_line = 0;
    bool all_quads = true;
    uint64_t triangles = 0;
    const char* p = text;
    const char* text_end = text + size;
    while (p < text_end && status == VXK_OK) {
        ++line;
        const char* eol = memchr(p, '\n', (size_t)(text_end - p));
        const char* end = eol ? eol : text_end;
        const char* cur = p;
        p = eol ? eol + 1 : text_end;
        const char* tok;
        size_t len;
        if (!next_token(&cur, end, &tok, &len) || tok[0] == '#')
            continue;
        if (len == 1 && tok[0] == 'v') {
            float xyz[3];
            int n = 0;
            while (next_token(&cur, end, &tok, &len)) {
                float value;
                if (n >= 7 || !parse_float(tok, len, &value)) {
                    n = -1;
                    break;
                }
                if (n < 3)
                    xyz[n] = value;
                ++n;
            }
            if (n < 3 || vertices.count >= VXK_OBJ_MAX_ELEMENTS) {
                status = VXK_ERR_MALFORMED;
            } else {
                vxk_vec3 v = {xyz[0], xyz[1], xyz[2]};
                if (!array_push(&vertices, &v))
                    status = VXK_ERR_OUT_OF_MEMORY;
            }
        } else if (len == 1 && tok[0] == 'f') {
            uint32_t count = 0;
            while (next_token(&cur, end, &tok, &len)) {
                int64_t index = parse_corner(tok, len, vertices.count);
                if (index < 0 || count >= VXK_OBJ_MAX_FACE_CORNERS) {
                    status = VXK_ERR_MALFORMED;
                    break;
                }
                uint32_t value = (uint32_t)index;
                if (!array_push(&refs, &value)) {
                    status = VXK_ERR_OUT_OF_MEMORY;
                    break;
                }
                ++count;
            }
            if (status == VXK_OK && (count < 3 || faces.count >= VXK_OBJ_MAX_ELEMENTS))
                status = VXK_ERR_MALFORMED;
            if (status == VXK_OK && !array_push(&faces, &count))
                status = VXK_ERR_OUT_OF_MEMORY;
            all_quads = all_quads && count == 4;
            triangles += count - 2;
            if (status == VXK_OK && triangles > VXK_OBJ_MAX_ELEMENTS)
                status = VXK_ERR_MALFORMED;
        }
        if (status == VXK_ERR_MALFORMED)
            bad_line = line;
    }

    vxk_mesh mesh;
    memset(&mesh, 0, sizeof(mesh));
    if (status == VXK_OK) {
        bool quads = corners == 4 && all_quads && faces.count > 0;
        mesh.corners = quads ? 4 : 3;
        mesh.primitive_count = quads ? (uint32_t)faces.count : (uint32_t)triangles;
        mesh.vertex_count = (uint32_t)vertices.count;
        size_t index_count = (size_t)mesh.primitive_count * mesh.corners;
        mesh.vertices = (vxk_vec3*)vxk_alloc(mesh.vertex_count * sizeof(vxk_vec3));
        mesh.indices = (uint32_t*)vxk_alloc(index_count * sizeof(uint32_t));
        if ((mesh.vertex_count && !mesh.vertices) || (index_count && !mesh.indices)) {
            vxk_mesh_free(&mesh);
            status = VXK_ERR_OUT_OF_MEMORY;
        } else {
            if (mesh.vertex_count)
                memcpy(mesh.vertices, vertices.data, mesh.vertex_count * sizeof(vxk_vec3));
            const uint32_t* r = (const uint32_t*)refs.data;
            const uint32_t* f = (const uint32_t*)faces.data;
            size_t w = 0;
            for (size_t i = 0; i < faces.count; ++i) {
                if (quads) {
                    memcpy(mesh.indices + w, r, 4 * sizeof(uint32_t));
                    w += 4;
                } else {
                    for (uint32_t k = 1; k + 1 < f[i]; ++k) {
                        mesh.indices[w++] = r[0];
                        mesh.indices[w++] = r[k];
                        mesh.indices[w++] = r[k + 1];
                    }
                }
                r += f[i];
            }
            VXK_ASSERT(w == index_count);
        }
    }
    array_free(&vertices);
    array_free(&refs);
    array_free(&faces);
    if (status == VXK_ERR_MALFORMED && error_line)
        *error_line = bad_line;
    if (status == VXK_OK)
        *out = mesh;
    return status;
}

vxk_status vxk_obj_load(vxk_mesh* out, const char* path, uint32_t corners, uint32_t* error_line)
{
    if (error_line)
        *error_line = 0;
    if (!out || !path)
        return VXK_ERR_INVALID_ARGUMENT;
    FILE* file = fopen(path, "rb");
    if (!file)
        return VXK_ERR_IO;
    size_t capacity = 0, size = 0;
    char* data = NULL;
    vxk_status status = VXK_OK;
    for (;;) {
        if (size == capacity) {
            size_t grown = capacity ? 2 * capacity : 65536;
            char* more = (char*)vxk_realloc(data, capacity, grown);
            if (!more) {
                status = VXK_ERR_OUT_OF_MEMORY;
                break;
            }
            data = more;
            capacity = grown;
        }
        size_t got = fread(data + size, 1, capacity - size, file);
        size += got;
        if (got == 0) {
            if (ferror(file))
                status = VXK_ERR_IO;
            break;
        }
    }
    fclose(file);
    if (status == VXK_OK)
        status = vxk_obj_read(out, data, size, corners, error_line);
    vxk_free(data, capacity);
    return status;
}

static vxk_status check_mesh(const vxk_mesh* mesh)
{
    if (!mesh || (mesh->corners != 3 && mesh->corners != 4))
        return VXK_ERR_INVALID_ARGUMENT;
    if ((mesh->primitive_count && !mesh->indices) || (mesh->vertex_count && !mesh->vertices))
        return VXK_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < (size_t)mesh->primitive_count * mesh->corners; ++i)
        if (mesh->indices[i] >= mesh->vertex_count)
            return VXK_ERR_OUT_OF_RANGE;
    for (uint32_t i = 0; i < mesh->vertex_count; ++i)
        if (!vxk_vec3_is_finite(mesh->vertices[i]))
            return VXK_ERR_NOT_FINITE;
    return VXK_OK;
}

vxk_status vxk_obj_write(char** text, size_t* size, const vxk_mesh* mesh)
{
    if (!text || !size)
        return VXK_ERR_INVALID_ARGUMENT;
    vxk_status status = check_mesh(mesh);
    if (status != VXK_OK)
        return status;
    // upper bounds per line: "v" + 3 x (1 + 16) + "\n"; "f" + 4 x (1 + 10) + "\n"
    size_t capacity = 64 + (size_t)mesh->vertex_count * 56 + (size_t)mesh->primitive_count * 48;
    char* buf = (char*)vxk_alloc(capacity);
    if (!buf)
        return VXK_ERR_OUT_OF_MEMORY;
    size_t n =
        (size_t)snprintf(buf, capacity, "# vxk mesh: %u vertices, %u %s\n", mesh->vertex_count,
                         mesh->primitive_count, mesh->corners == 4 ? "quads" : "triangles");
    for (uint32_t i = 0; i < mesh->vertex_count; ++i) {
        vxk_vec3 v = mesh->vertices[i];
        n += (size_t)snprintf(buf + n, capacity - n, "v %.9g %.9g %.9g\n", (double)v.x, (double)v.y,
                              (double)v.z);
    }
    for (uint32_t i = 0; i < mesh->primitive_count; ++i) {
        const uint32_t* idx = mesh->indices + (size_t)i * mesh->corners;
        if (mesh->corners == 4)
            n += (size_t)snprintf(buf + n, capacity - n, "f %u %u %u %u\n", idx[0] + 1, idx[1] + 1,
                                  idx[2] + 1, idx[3] + 1);
        else
            n += (size_t)snprintf(buf + n, capacity - n, "f %u %u %u\n", idx[0] + 1, idx[1] + 1,
                                  idx[2] + 1);
    }
    VXK_ASSERT(n < capacity);
    // hand back exactly n + 1 bytes so vxk_obj_free_text can name the size
    char* exact = (char*)vxk_realloc(buf, capacity, n + 1);
    if (!exact) {
        vxk_free(buf, capacity);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    *text = exact;
    *size = n;
    return VXK_OK;
}

void vxk_obj_free_text(char* text, size_t size)
{
    if (text)
        vxk_free(text, size + 1);
}

vxk_status vxk_obj_save(const char* path, const vxk_mesh* mesh)
{
    if (!path)
        return VXK_ERR_INVALID_ARGUMENT;
    char* text = NULL;
    size_t size = 0;
    vxk_status status = vxk_obj_write(&text, &size, mesh);
    if (status != VXK_OK)
        return status;
    FILE* file = fopen(path, "wb");
    if (!file) {
        vxk_obj_free_text(text, size);
        return VXK_ERR_IO;
    }
    bool ok = fwrite(text, 1, size, file) == size;
    ok = fclose(file) == 0 && ok;
    vxk_obj_free_text(text, size);
    return ok ? VXK_OK : VXK_ERR_IO;
}
