// status_lists.c: reads the status lists of the public headers (the rules are in status_lists.h)
// and keeps, per status function, the statuses the calls of this program produced.
#include "status_lists.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATUS_BIT(s) (1u << (unsigned)(s))
#define MAX_FUNCTIONS 128
#define MAX_REFERENCES 4
#define NAME_SIZE 64

// The test program that checks that a function produced every status its header lists: the
// function's own row, else its header's. A status function no row names is a header problem.
typedef struct status_owner {
    const char* name; // a header ("world.h") or a function
    const char* program;
} status_owner;

static const status_owner k_owners[] = {
    {"world.h", "test_world"},
    {"vxk_world_step", "test_step"},
    {"body.h", "test_body"},
    {"worldgen.h", "test_worldgen"},
    {"voxel_grid.h", "test_boxes"},
    {"vox.h", "test_vox"},
    {"broadphase.h", "test_broadphase"},
    {"mesher.h", "test_mesher"},
    {"boxes.h", "test_boxes"},
    {"voxel_types.h", "test_voxel_types"},
    {"mass.h", "test_mass"},
    {"chunk_geometry.h", "test_mesher"},
    {"vxk_chunk_boxes", "test_boxes"},
    {"kdtree.h", "test_kdtree_edge"},
    {"kdtree16.h", "test_kdtree_edge"},
    {"obj.h", "test_obj"},
    {"raycast.h", "test_raycast"},
    {"edit.h", "test_edit"},
};
enum { OWNER_COUNT = sizeof(k_owners) / sizeof(k_owners[0]) };

static const char* const k_status_names[VXK_STATUS_COUNT] = {
    [VXK_OK] = "VXK_OK",
    [VXK_ERR_INVALID_ARGUMENT] = "VXK_ERR_INVALID_ARGUMENT",
    [VXK_ERR_BAD_DEF] = "VXK_ERR_BAD_DEF",
    [VXK_ERR_NOT_FINITE] = "VXK_ERR_NOT_FINITE",
    [VXK_ERR_OUT_OF_RANGE] = "VXK_ERR_OUT_OF_RANGE",
    [VXK_ERR_BAD_MATERIAL] = "VXK_ERR_BAD_MATERIAL",
    [VXK_ERR_STALE_ID] = "VXK_ERR_STALE_ID",
    [VXK_ERR_OUT_OF_MEMORY] = "VXK_ERR_OUT_OF_MEMORY",
    [VXK_ERR_IO] = "VXK_ERR_IO",
    [VXK_ERR_MALFORMED] = "VXK_ERR_MALFORMED",
    [VXK_ERR_TRUNCATED] = "VXK_ERR_TRUNCATED",
    [VXK_ERR_UNSUPPORTED] = "VXK_ERR_UNSUPPORTED",
    [VXK_ERR_CAPACITY] = "VXK_ERR_CAPACITY",
    [VXK_ERR_NESTING] = "VXK_ERR_NESTING",
};

const char* vxk_test_status_name(vxk_status status)
{
    return (unsigned)status < VXK_STATUS_COUNT ? k_status_names[status] : "(not a status)";
}

typedef struct api_function {
    char name[NAME_SIZE];
    char header[NAME_SIZE];
    const char* owner;                          // test program, NULL when no row names it
    uint32_t own;                               // statuses its comment names, VXK_OK included
    char references[MAX_REFERENCES][NAME_SIZE]; // functions whose errors it takes
    int reference_count;
    uint32_t documented; // own and the references', resolved
    uint32_t produced;   // statuses the calls of this program got as expected
} api_function;

static api_function g_api[MAX_FUNCTIONS];
static int g_api_count;
static bool g_read;
static int g_problems;   // in the headers and the owner table
static int g_mismatches; // calls whose status was wrong or undocumented

static api_function* find_function(const char* name)
{
    for (int i = 0; i < g_api_count; ++i)
        if (strcmp(g_api[i].name, name) == 0)
            return &g_api[i];
    return NULL;
}

static bool is_name_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The statuses named in text (VXK_ERR_*); an unknown name is a header problem.
static uint32_t statuses_in(const char* text, const char* where)
{
    uint32_t set = 0;
    for (const char* p = strstr(text, "VXK_ERR_"); p; p = strstr(p + 1, "VXK_ERR_")) {
        size_t n = 0;
        while (is_name_char(p[n]))
            ++n;
        bool known = false;
        for (int s = 1; s < VXK_STATUS_COUNT; ++s) {
            if (strlen(k_status_names[s]) == n && strncmp(k_status_names[s], p, n) == 0) {
                set |= STATUS_BIT(s);
                known = true;
            }
        }
        if (!known) {
            fprintf(stderr, "%s names an unknown status %.*s\n", where, (int)n, p);
            ++g_problems;
        }
    }
    return set;
}

// Case-insensitive strstr for the reference phrases.
static const char* find_phrase(const char* text, const char* phrase)
{
    size_t n = strlen(phrase);
    for (const char* p = text; *p; ++p) {
        size_t i = 0;
        while (i < n && p[i] && (p[i] | 0x20) == (phrase[i] | 0x20))
            ++i;
        if (i == n)
            return p;
    }
    return NULL;
}

// The vxk_ names after "errors of" / "errors as" / "errors: those of", to the end of the sentence.
static void collect_references(api_function* f, const char* block)
{
    static const char* const phrases[] = {"errors of ", "errors as ", "errors: those of "};
    for (size_t k = 0; k < sizeof(phrases) / sizeof(phrases[0]); ++k) {
        for (const char* p = find_phrase(block, phrases[k]); p;
             p = find_phrase(p + 1, phrases[k])) {
            for (const char* q = p; *q && *q != '.' && *q != ';'; ++q) {
                if (strncmp(q, "vxk_", 4) != 0 || (q > block && is_name_char(q[-1])))
                    continue;
                size_t n = 0;
                while (is_name_char(q[n]))
                    ++n;
                if (f->reference_count < MAX_REFERENCES && n < NAME_SIZE) {
                    memcpy(f->references[f->reference_count], q, n);
                    f->references[f->reference_count++][n] = 0;
                }
                q += n - 1;
            }
        }
    }
}

// Appends the text of a comment line (without its slashes) to a block.
static void append_comment(char* block, size_t size, const char* line, size_t length)
{
    size_t used = strlen(block);
    if (used + length + 2 < size) {
        memcpy(block + used, line, length);
        block[used + length] = ' ';
        block[used + length + 1] = 0;
    }
}

// Reads one header: its opening comment, then each comment block and the declaration below it.
static void parse_header(const char* file)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/kernel/include/vxk/%s", VXK_SOURCE_DIR, file);
    size_t size = 0;
    char* text = (char*)vxk_test_read_file(path, &size);
    if (!text)
        return; // a header of another library (vxk/jobs.h lives in jobs/include)
    text[size] = 0;
    static char opening[16384], block[16384];
    opening[0] = block[0] = 0;
    bool in_opening = true;
    for (char* line = text; *line;) {
        char* end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        const char* s = line;
        while (*s == ' ')
            ++s;
        if (s[0] == '/' && s[1] == '/') {
            size_t skip = (size_t)(s + 2 - line);
            append_comment(block, sizeof(block), s + 2, length - skip);
            if (in_opening)
                append_comment(opening, sizeof(opening), s + 2, length - skip);
        } else if (strncmp(line, "vxk_status vxk_", 15) == 0) {
            if (g_api_count == MAX_FUNCTIONS) {
                fprintf(stderr, "more than %d status functions\n", MAX_FUNCTIONS);
                ++g_problems;
                break;
            }
            api_function* f = &g_api[g_api_count++];
            memset(f, 0, sizeof(*f));
            size_t n = 0;
            while (is_name_char(line[11 + n]) && n + 1 < NAME_SIZE)
                ++n;
            memcpy(f->name, line + 11, n);
            snprintf(f->header, sizeof(f->header), "%s", file);
            if (!block[0]) {
                fprintf(stderr, "%s: %s has no comment above it\n", file, f->name);
                ++g_problems;
            }
            f->own = STATUS_BIT(VXK_OK) | statuses_in(block, f->name);
            if (find_phrase(block, "top of this file"))
                f->own |= statuses_in(opening, file);
            collect_references(f, block);
            block[0] = 0;
            in_opening = false;
        } else {
            block[0] = 0;
            in_opening = false;
        }
        line += length + (end ? 1 : 0);
    }
    free(text);
}

// Each function's owner; a row that names no header or status function is a problem, and so is
// an owner without a source file.
static void assign_owners(void)
{
    for (int r = 0; r < OWNER_COUNT; ++r) {
        bool used = false;
        for (int i = 0; i < g_api_count; ++i) {
            api_function* f = &g_api[i];
            if (strcmp(f->name, k_owners[r].name) == 0) {
                f->owner = k_owners[r].program; // a function's row wins over its header's
                used = true;
            } else if (strcmp(f->header, k_owners[r].name) == 0) {
                used = true;
                bool own_row = false;
                for (int o = 0; o < OWNER_COUNT; ++o)
                    own_row |= strcmp(k_owners[o].name, f->name) == 0;
                if (!own_row)
                    f->owner = k_owners[r].program;
            }
        }
        char path[1024];
        snprintf(path, sizeof(path), "%s/tests/%s.c", VXK_SOURCE_DIR, k_owners[r].program);
        FILE* source = fopen(path, "rb");
        if (source)
            fclose(source);
        if (!used || !source) {
            fprintf(stderr, "owner row {%s, %s}: %s\n", k_owners[r].name, k_owners[r].program,
                    !used ? "names no header or status function" : "no such test source");
            ++g_problems;
        }
    }
    for (int i = 0; i < g_api_count; ++i) {
        if (!g_api[i].owner) {
            fprintf(stderr, "%s (vxk/%s): no test program owns its statuses (status_lists.c)\n",
                    g_api[i].name, g_api[i].header);
            ++g_problems;
        }
    }
}

// The headers vxk.h includes, parsed, the references resolved and the owners assigned.
static void read_headers(void)
{
    g_read = true;
    char path[1024];
    snprintf(path, sizeof(path), "%s/kernel/include/vxk/vxk.h", VXK_SOURCE_DIR);
    size_t size = 0;
    char* text = (char*)vxk_test_read_file(path, &size);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        ++g_problems;
        return;
    }
    text[size] = 0;
    for (const char* p = strstr(text, "#include <vxk/"); p; p = strstr(p + 1, "#include <vxk/")) {
        char file[NAME_SIZE];
        size_t n = 0;
        p += strlen("#include <vxk/");
        while (p[n] && p[n] != '>' && n + 1 < sizeof(file)) {
            file[n] = p[n];
            ++n;
        }
        file[n] = 0;
        if (strcmp(file, "vxk.h") != 0)
            parse_header(file);
    }
    free(text);
    if (g_api_count < 40) {
        fprintf(stderr, "only %d status functions found in the headers\n", g_api_count);
        ++g_problems;
    }
    for (int i = 0; i < g_api_count; ++i) {
        g_api[i].documented = g_api[i].own;
        for (int r = 0; r < g_api[i].reference_count; ++r) {
            if (!find_function(g_api[i].references[r])) {
                fprintf(stderr, "%s refers to the errors of %s, not a status function\n",
                        g_api[i].name, g_api[i].references[r]);
                ++g_problems;
            }
        }
    }
    for (int round = 0; round < MAX_FUNCTIONS; ++round) {
        bool changed = false;
        for (int i = 0; i < g_api_count; ++i) {
            for (int r = 0; r < g_api[i].reference_count; ++r) {
                const api_function* g = find_function(g_api[i].references[r]);
                uint32_t next = g_api[i].documented | (g ? g->documented : 0);
                changed |= next != g_api[i].documented;
                g_api[i].documented = next;
            }
        }
        if (!changed)
            break;
    }
    assign_owners();
}

int vxk_test_status_lists_problems(void)
{
    if (!g_read)
        read_headers();
    return g_problems;
}

void vxk_test_status_expect(const char* function, vxk_status expected, vxk_status got,
                            const char* what, const char* file, int line)
{
    vxk_test_status_lists_problems();
    api_function* f = find_function(function);
    if (!f) {
        fprintf(stderr, "%s:%d: %s is not a status function of the headers\n", file, line,
                function);
        ++g_mismatches;
    } else if (!(f->documented & STATUS_BIT(got))) {
        fprintf(stderr, "%s:%d: %s (%s) returned %s, which vxk/%s does not list (expected %s)\n",
                file, line, function, what, vxk_test_status_name(got), f->header,
                vxk_test_status_name(expected));
        ++g_mismatches;
    } else if (got != expected) {
        fprintf(stderr, "%s:%d: %s (%s) returned %s, expected %s\n", file, line, function, what,
                vxk_test_status_name(got), vxk_test_status_name(expected));
        ++g_mismatches;
    } else {
        f->produced |= STATUS_BIT(got);
    }
}

void vxk_test_status_expect_call(vxk_status expected, vxk_status got, const char* call,
                                 const char* file, int line)
{
    char name[NAME_SIZE];
    size_t n = 0;
    while (is_name_char(call[n]) && n + 1 < sizeof(name)) {
        name[n] = call[n];
        ++n;
    }
    name[n] = 0;
    vxk_test_status_expect(name, expected, got, call, file, line);
}

bool vxk_test_status_documented(const char* function, vxk_status status)
{
    vxk_test_status_lists_problems();
    const api_function* f = find_function(function);
    return f && (unsigned)status < VXK_STATUS_COUNT && (f->documented & STATUS_BIT(status));
}

int vxk_test_status_mismatches(void)
{
    return g_mismatches;
}

int vxk_test_statuses_all_produced(const char* test_file)
{
    vxk_test_status_lists_problems();
    const char* base = strrchr(test_file, '/');
    base = base ? base + 1 : test_file;
    size_t length = strlen(base);
    if (length > 2 && strcmp(base + length - 2, ".c") == 0)
        length -= 2;
    int owned = 0, missing = 0;
    for (int i = 0; i < g_api_count; ++i) {
        const api_function* f = &g_api[i];
        if (!f->owner || strlen(f->owner) != length || strncmp(f->owner, base, length) != 0)
            continue;
        ++owned;
        uint32_t left = f->documented & ~f->produced;
        for (int s = 0; s < VXK_STATUS_COUNT; ++s) {
            if (left & STATUS_BIT(s)) {
                fprintf(stderr, "%s (vxk/%s): no input produced %s\n", f->name, f->header,
                        vxk_test_status_name((vxk_status)s));
                ++missing;
            }
        }
    }
    if (owned == 0)
        fprintf(stderr, "%.*s owns no status function (status_lists.c)\n", (int)length, base);
    return owned == 0 || missing != 0;
}
