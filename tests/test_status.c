// test_status.c: the statuses of the public API against its headers. Every function of
// kernel/include/vxk/*.h (the headers vxk.h includes) that returns a vxk_status documents its
// statuses in the comment right above its declaration: the VXK_ERR_* names the comment lists,
// those of the functions it names after "errors of", "errors as" or "errors: those of" (up to the
// end of that sentence), and those of the file's opening comment when it points at "the top of
// this file". This test reads those lists from the headers, then calls every function with an
// input built for each status its header lists and checks that the call returns exactly that
// status (a status the header does not list is reported as such), and that each function
// produced every status its header lists.
#include <float.h>
#include <math.h>
#include <string.h>

#include <vxk/vxk.h>

#include "scenes.h"
#include "test.h"

#define STATUS_BIT(s) (1u << (unsigned)(s))

static const char* const g_status_names[VXK_STATUS_COUNT] = {
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

static const char* status_name(vxk_status s)
{
    return (unsigned)s < VXK_STATUS_COUNT ? g_status_names[s] : "(not a status)";
}

// ---- the headers' lists -------------------------------------------------------------------------

#define MAX_FUNCTIONS 128
#define MAX_REFERENCES 4
#define NAME_SIZE 64

typedef struct api_function {
    char name[NAME_SIZE];
    char header[NAME_SIZE];
    uint32_t own;                               // statuses its comment names, VXK_OK included
    char references[MAX_REFERENCES][NAME_SIZE]; // functions whose errors it takes
    int reference_count;
    uint32_t documented; // own and the references', resolved
    uint32_t produced;   // statuses the calls below got as expected
} api_function;

static api_function g_api[MAX_FUNCTIONS];
static int g_api_count;
static int g_mismatches; // calls whose status was wrong or undocumented, and header problems

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
            if (strlen(g_status_names[s]) == n && strncmp(g_status_names[s], p, n) == 0) {
                set |= STATUS_BIT(s);
                known = true;
            }
        }
        if (!known) {
            fprintf(stderr, "%s names an unknown status %.*s\n", where, (int)n, p);
            ++g_mismatches;
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
static int parse_header(const char* file)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/kernel/include/vxk/%s", VXK_SOURCE_DIR, file);
    size_t size = 0;
    char* text = (char*)vxk_test_read_file(path, &size);
    if (!text)
        return 0; // a header of another library (vxk/jobs.h lives in jobs/include)
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
            VXK_CHECK_MSG(g_api_count < MAX_FUNCTIONS, "more than %d functions", MAX_FUNCTIONS);
            api_function* f = &g_api[g_api_count++];
            memset(f, 0, sizeof(*f));
            size_t n = 0;
            while (is_name_char(line[11 + n]) && n + 1 < NAME_SIZE)
                ++n;
            memcpy(f->name, line + 11, n);
            snprintf(f->header, sizeof(f->header), "%s", file);
            if (!block[0]) {
                fprintf(stderr, "%s: %s has no comment above it\n", file, f->name);
                ++g_mismatches;
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
    return 0;
}

// The headers vxk.h includes, parsed, and the references resolved.
static int read_headers(void)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/kernel/include/vxk/vxk.h", VXK_SOURCE_DIR);
    size_t size = 0;
    char* text = (char*)vxk_test_read_file(path, &size);
    VXK_CHECK_MSG(text != NULL, "cannot read %s", path);
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
        if (strcmp(file, "vxk.h") != 0 && parse_header(file)) {
            free(text);
            return 1;
        }
    }
    free(text);
    VXK_CHECK_MSG(g_api_count >= 40, "only %d status functions found in the headers", g_api_count);
    for (int i = 0; i < g_api_count; ++i) {
        g_api[i].documented = g_api[i].own;
        for (int r = 0; r < g_api[i].reference_count; ++r) {
            if (!find_function(g_api[i].references[r])) {
                fprintf(stderr, "%s refers to the errors of %s, not a status function\n",
                        g_api[i].name, g_api[i].references[r]);
                ++g_mismatches;
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
    return g_mismatches ? 1 : 0;
}

// ---- checking calls -----------------------------------------------------------------------------

// One call's status: listed in its function's header, and the one its input must produce. what
// names the input (the call itself for EXPECT).
static void expect_named(const char* function, vxk_status expected, vxk_status got,
                         const char* what, int line)
{
    api_function* f = find_function(function);
    if (!f) {
        fprintf(stderr, "line %d: %s is not a status function of the headers\n", line, function);
        ++g_mismatches;
    } else if (!(f->documented & STATUS_BIT(got))) {
        fprintf(stderr, "line %d: %s (%s) returned %s, which vxk/%s does not list (expected %s)\n",
                line, function, what, status_name(got), f->header, status_name(expected));
        ++g_mismatches;
    } else if (got != expected) {
        fprintf(stderr, "line %d: %s (%s) returned %s, expected %s\n", line, function, what,
                status_name(got), status_name(expected));
        ++g_mismatches;
    } else {
        f->produced |= STATUS_BIT(got);
    }
}

// The function is the call's first name.
static void expect_call(vxk_status expected, vxk_status got, const char* call, int line)
{
    char name[NAME_SIZE];
    size_t n = 0;
    while (is_name_char(call[n]) && n + 1 < sizeof(name)) {
        name[n] = call[n];
        ++n;
    }
    name[n] = 0;
    expect_named(name, expected, got, call, line);
}

#define EXPECT(expected, call) expect_call((expected), (call), #call, __LINE__)

// An allocator that refuses everything: the out-of-memory status of each function.
static void* refuse_alloc(size_t size, void* user)
{
    (void)size;
    (void)user;
    return NULL;
}

static void plain_free(void* pointer, size_t size, void* user)
{
    (void)size;
    (void)user;
    free(pointer);
}

static const vxk_allocator g_refuse = {refuse_alloc, plain_free, NULL};

#define EXPECT_NO_MEMORY(call)                                    \
    do {                                                          \
        vxk_set_allocator(&g_refuse);                             \
        vxk_status st_ = (call);                                  \
        vxk_set_allocator(NULL);                                  \
        expect_call(VXK_ERR_OUT_OF_MEMORY, st_, #call, __LINE__); \
    } while (0)

// A group of calls fails when one of its calls got a wrong status, or when it leaked.
typedef struct group_start {
    int mismatches;
    size_t bytes;
} group_start;

static group_start group_begin(void)
{
    return (group_start){g_mismatches, vxk_allocated_bytes()};
}

static int group_end(group_start start)
{
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), start.bytes);
    return g_mismatches != start.mismatches;
}

// ---- inputs -------------------------------------------------------------------------------------

// A world with the default materials, or with table.
static vxk_world* make_world_with(const vxk_material_table* table)
{
    vxk_world_def def = vxk_default_world_def();
    def.materials = table;
    vxk_world* world = NULL;
    return vxk_world_create(&def, &world) == VXK_OK ? world : NULL;
}

// A world with stone, dirt and water near the origin.
static vxk_world* make_terrain(void)
{
    vxk_world* world = vxk_scene_world();
    const vxk_int_box boxes[3] = {
        {{-12, 0, -9}, {20, 5, 14}}, {{0, 6, 0}, {5, 9, 5}}, {{-4, 6, 8}, {3, 8, 12}}};
    const uint8_t materials[3] = {VXK_MAT_STONE, VXK_MAT_DIRT, VXK_MAT_WATER};
    for (int i = 0; world && i < 3; ++i) {
        if (vxk_world_fill_box(world, boxes[i], materials[i]) != VXK_OK) {
            vxk_world_destroy(world);
            world = NULL;
        }
    }
    return world;
}

// A file of the committed .vox corpus (tests/data/vox), NULL-terminated path in *path.
static uint8_t* read_corpus(const char* name, char* path, size_t path_size, size_t* size)
{
    snprintf(path, path_size, "%s/tests/data/vox/%s", VXK_SOURCE_DIR, name);
    uint8_t* data = vxk_test_read_file(path, size);
    if (!data)
        fprintf(stderr, "cannot read %s\n", path);
    return data;
}

// ---- world.h ------------------------------------------------------------------------------------

static int test_world(void)
{
    group_start start = group_begin();
    static vxk_material_table base, t;
    vxk_default_material_table(&base);
    EXPECT(VXK_OK, vxk_material_table_validate(&base));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_material_table_validate(NULL));
    t = base;
    t.materials[0].kind = VXK_MATERIAL_SOLID;
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_material_table_validate(&t));
    t = base;
    t.materials[VXK_MAT_STONE].friction = nanf("");
    EXPECT(VXK_ERR_NOT_FINITE, vxk_material_table_validate(&t));
    t = base;
    t.materials[VXK_MAT_STONE].restitution = 1.5f;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_material_table_validate(&t));
    t = base;
    t.materials[VXK_MAT_STONE].friction = -1.0f;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_material_table_validate(&t));
    t = base;
    memset(t.materials[VXK_MAT_STONE].name, 'x', sizeof(t.materials[0].name));
    EXPECT(VXK_ERR_MALFORMED, vxk_material_table_validate(&t));

    vxk_world_def def = vxk_default_world_def(), d = def;
    vxk_world* w = NULL;
    EXPECT(VXK_OK, vxk_world_create(&def, &w));
    vxk_world_destroy(w);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_create(NULL, &w));
    d.cookie = 0;
    EXPECT(VXK_ERR_BAD_DEF, vxk_world_create(&d, &w));
    d = def;
    d.voxel_size = INFINITY;
    EXPECT(VXK_ERR_NOT_FINITE, vxk_world_create(&d, &w));
    d.voxel_size = -1.0f;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_world_create(&d, &w));
    d = def;
    d.materials = &t; // the name without its NUL
    EXPECT(VXK_ERR_MALFORMED, vxk_world_create(&d, &w));
    t = base;
    t.materials[VXK_MAT_WOOD].kind = 7;
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_world_create(&d, &w));
    EXPECT_NO_MEMORY(vxk_world_create(&def, &w));

    w = make_terrain();
    VXK_CHECK(w != NULL);
    uint8_t box[64];
    const vxk_int_box cube = {{0, 0, 0}, {3, 3, 3}}; // 64 voxels, the bytes of box
    EXPECT(VXK_OK, vxk_world_read_box(w, box, cube));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_read_box(w, NULL, cube));
    const vxk_int_box inverted = {{0, 0, 0}, {3, -1, 3}};
    const vxk_int_box all = {{INT32_MIN, INT32_MIN, INT32_MIN}, {INT32_MAX, INT32_MAX, INT32_MAX}};
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_read_box(w, box, inverted));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_world_read_box(w, box, all));

    const vxk_int_box small = {{1, 1, 1}, {3, 3, 3}};
    EXPECT(VXK_OK, vxk_world_fill_box(w, small, VXK_MAT_SAND));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_fill_box(NULL, small, VXK_MAT_SAND));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_fill_box(w, inverted, VXK_MAT_SAND));
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_world_fill_box(w, small, 200));
    EXPECT(VXK_ERR_OUT_OF_MEMORY, vxk_world_fill_box(w, all, VXK_MAT_STONE));
    EXPECT_NO_MEMORY(
        vxk_world_fill_box(w, (vxk_int_box){{1000, 0, 0}, {1003, 3, 3}}, VXK_MAT_SAND));

    memset(box, VXK_MAT_CLAY, sizeof(box));
    EXPECT(VXK_OK, vxk_world_write_box(w, cube, box));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_write_box(NULL, cube, box));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_write_box(w, inverted, box));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_world_write_box(w, all, box));
    EXPECT_NO_MEMORY(vxk_world_write_box(w, (vxk_int_box){{2000, 0, 0}, {2003, 3, 3}}, box));
    box[17] = 201;
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_world_write_box(w, cube, box));
    // While the edit thread's system is on (vxk/edit.h), the direct writes are refused.
    vxk_edit_def ed = vxk_default_edit_def();
    VXK_CHECK_EQ_INT(vxk_edit_enable(w, &ed), VXK_OK);
    box[17] = VXK_MAT_CLAY;
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_world_fill_box(w, small, VXK_MAT_SAND));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_world_write_box(w, cube, box));
    VXK_CHECK_EQ_INT(vxk_edit_disable(w), VXK_OK);
    vxk_world_destroy(w);
    return group_end(start);
}

// ---- worldgen.h, voxel_grid.h -------------------------------------------------------------------

static int test_worldgen_and_grid(void)
{
    group_start start = group_begin();
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    vxk_worldgen_def g = vxk_default_worldgen_def(), bad = g;
    g.size_x = g.size_z = 12;
    g.size_y = 16;
    EXPECT(VXK_OK, vxk_worldgen_run(w, &g));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_worldgen_run(w, NULL));
    bad.cookie = 0;
    EXPECT(VXK_ERR_BAD_DEF, vxk_worldgen_run(w, &bad));
    bad = g;
    bad.size_y = 7;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_worldgen_run(w, &bad));
    bad = g;
    bad.cave_density = nanf("");
    EXPECT(VXK_ERR_NOT_FINITE, vxk_worldgen_run(w, &bad));
    bad.cave_density = 1.5f;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_worldgen_run(w, &bad));
    EXPECT_NO_MEMORY(vxk_worldgen_run(w, &g));
    vxk_world_destroy(w);
    static vxk_material_table table;
    vxk_default_material_table(&table);
    table.materials[VXK_MAT_CLAY].defined = 0; // a terrain material the generator needs
    w = make_world_with(&table);
    VXK_CHECK(w != NULL);
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_worldgen_run(w, &g));
    vxk_world_destroy(w);

    vxk_voxel_grid grid;
    EXPECT(VXK_OK, vxk_voxel_grid_create(&grid, (vxk_int3){3, 4, 5}));
    vxk_voxel_grid_free(&grid);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_voxel_grid_create(NULL, (vxk_int3){3, 4, 5}));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_voxel_grid_create(&grid, (vxk_int3){3, 4097, 5}));
    EXPECT_NO_MEMORY(vxk_voxel_grid_create(&grid, (vxk_int3){3, 4, 5}));
    return group_end(start);
}

// ---- vox.h --------------------------------------------------------------------------------------

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

static int test_vox(void)
{
    group_start start = group_begin();
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
            expect_named(fn, want, vox_load(e, w, data, size, path, NULL), corpus[i].file,
                         __LINE__);
            if (i == 0) {
                expect_named(fn, VXK_ERR_BAD_DEF, vox_load(e, w, data, size, path, &forged),
                             "forged options", __LINE__);
                expect_named(fn, VXK_ERR_INVALID_ARGUMENT,
                             vox_load(e, w, data, size, path, &no_limit), "max_bytes 0", __LINE__);
                expect_named(fn, VXK_ERR_BAD_MATERIAL, vox_load(e, w, data, size, path, &unmapped),
                             "undefined mapping", __LINE__);
                vxk_set_allocator(&g_refuse);
                vxk_status st = vox_load(e, w, data, size, path, NULL);
                vxk_set_allocator(NULL);
                expect_named(fn, VXK_ERR_OUT_OF_MEMORY, st, "no memory", __LINE__);
                if (e == VOX_INTO_WORLD || e == VOX_INTO_WORLD_FILE)
                    expect_named(fn, VXK_ERR_OUT_OF_RANGE,
                                 e == VOX_INTO_WORLD
                                     ? vxk_vox_load_into_world(w, data, size,
                                                               (vxk_int3){INT32_MAX, 0, 0}, NULL)
                                     : vxk_vox_load_into_world_file(
                                           w, path, (vxk_int3){INT32_MAX, 0, 0}, NULL),
                                 "box beyond int32", __LINE__);
                if (file) {
                    expect_named(fn, VXK_ERR_OUT_OF_RANGE,
                                 vox_load(e, w, data, size, path, &small_files),
                                 "file beyond max_file_bytes", __LINE__);
                    expect_named(fn, VXK_ERR_IO,
                                 vox_load(e, w, data, size, "/nonexistent/x.vox", NULL),
                                 "missing file", __LINE__);
                    expect_named(fn, VXK_ERR_IO, vox_load(e, w, data, size, dir, NULL),
                                 "a directory", __LINE__);
                    expect_named(fn, VXK_ERR_INVALID_ARGUMENT,
                                 vox_load(e, w, data, size, NULL, NULL), "NULL path", __LINE__);
                } else if (e == VOX_GRIDS) {
                    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_vox_load_grids(data, size, NULL, NULL));
                } else if (e == VOX_FLAT) {
                    EXPECT(VXK_ERR_INVALID_ARGUMENT,
                           vxk_vox_load_flat(data, size, NULL, NULL, NULL));
                } else {
                    EXPECT(VXK_ERR_INVALID_ARGUMENT,
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
    EXPECT(VXK_OK, vxk_vox_scene_flatten(&scene, &grid, NULL));
    vxk_voxel_grid_free(&grid);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_vox_scene_flatten(NULL, &grid, NULL));
    EXPECT_NO_MEMORY(vxk_vox_scene_flatten(&scene, &grid, NULL));
    vxk_vox_scene_free(&scene);
    data = read_corpus("graph_empty_group.vox", path, sizeof(path), &size);
    VXK_CHECK(data != NULL);
    VXK_CHECK_EQ_INT(vxk_vox_load_grids(data, size, NULL, &scene), VXK_OK);
    free(data);
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_vox_scene_flatten(&scene, &grid, NULL));
    vxk_vox_scene_free(&scene);
    vxk_world_destroy(w);
    return group_end(start);
}

// ---- broadphase.h -------------------------------------------------------------------------------

static int test_broadphase(void)
{
    group_start start = group_begin();
    vxk_world* w = make_terrain();
    VXK_CHECK(w != NULL);
    EXPECT_NO_MEMORY(vxk_broadphase_build(w));
    EXPECT(VXK_OK, vxk_broadphase_build(w));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_build(NULL));

    const vxk_int3 chunk = {0, 0, 0}, beyond = {1 << 28, 0, 0};
    EXPECT(VXK_OK, vxk_broadphase_update(w, &chunk, 1));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_update(w, NULL, 1));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_broadphase_update(w, &beyond, 1));
    EXPECT_NO_MEMORY(vxk_broadphase_update(w, &chunk, 1));

    const vxk_int_box stone = {{30, 0, 0}, {33, 3, 3}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, stone, VXK_MAT_STONE), VXK_OK);
    EXPECT_NO_MEMORY(vxk_world_step(w, 0.0f));
    EXPECT(VXK_OK, vxk_world_step(w, 0.0f));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_step(NULL, 0.0f));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_world_step(w, nanf("")));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_world_step(w, INFINITY));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_world_step(w, -1.0f));

    vxk_broadphase_entry entry;
    EXPECT(VXK_OK, vxk_broadphase_compute(w, &chunk, 1, &entry));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_compute(w, &chunk, 1, NULL));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_broadphase_compute(w, &beyond, 1, &entry));
    EXPECT(VXK_OK, vxk_broadphase_get(w, chunk, &entry));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_get(w, chunk, NULL));

    vxk_int3 coords[256];
    uint32_t count = 0;
    EXPECT(VXK_OK, vxk_broadphase_list(w, coords, 256, &count));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_list(w, coords, 256, NULL));
    EXPECT(VXK_ERR_CAPACITY, vxk_broadphase_list(w, NULL, 0, &count));
    EXPECT_NO_MEMORY(vxk_broadphase_list(w, coords, 256, &count));

    vxk_broadphase_hit hits[256];
    const vxk_aabb near = {{-1, 0, -1}, {2, 3, 2}};
    const vxk_aabb huge = {{-1e6f, -1e6f, -1e6f}, {1e6f, 1e6f, 1e6f}};
    const vxk_aabb bad[] = {
        {{nanf(""), 0, 0}, {1, 1, 1}}, {{2, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1e10f, 1, 1}}};
    const vxk_status bad_status[] = {VXK_ERR_NOT_FINITE, VXK_ERR_INVALID_ARGUMENT,
                                     VXK_ERR_OUT_OF_RANGE};
    EXPECT(VXK_OK, vxk_broadphase_query_aabb(w, near, hits, 256, &count));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_query_aabb(w, near, hits, 256, NULL));
    EXPECT(VXK_ERR_CAPACITY, vxk_broadphase_query_aabb(w, near, hits, 0, &count));
    EXPECT_NO_MEMORY(vxk_broadphase_query_aabb(w, huge, hits, 256, &count));
    uint32_t offsets[2];
    EXPECT(VXK_OK, vxk_broadphase_query_batch(w, hits, 256, offsets, &near, 1));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_broadphase_query_batch(w, hits, 256, NULL, &near, 1));
    EXPECT(VXK_ERR_CAPACITY, vxk_broadphase_query_batch(w, NULL, 0, offsets, &near, 1));
    // The batch keeps its scratch for the next one: a batch of more pieces has to grow it.
    static vxk_aabb many[200];
    static uint32_t many_offsets[201];
    for (int i = 0; i < 200; ++i)
        many[i] = near;
    EXPECT_NO_MEMORY(vxk_broadphase_query_batch(w, hits, 256, many_offsets, many, 200));
    for (int i = 0; i < 3; ++i) {
        EXPECT(bad_status[i], vxk_broadphase_query_aabb(w, bad[i], hits, 256, &count));
        EXPECT(bad_status[i], vxk_broadphase_query_batch(w, hits, 256, offsets, &bad[i], 1));
    }
    vxk_world_destroy(w);
    return group_end(start);
}

// ---- mesher.h, boxes.h --------------------------------------------------------------------------

static int test_mesher_and_boxes(void)
{
    group_start start = group_begin();
    static vxk_material_table table;
    vxk_default_material_table(&table);
    uint8_t solid[256];
    EXPECT(VXK_OK, vxk_chunk_solid_table(solid, &table));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_chunk_solid_table(solid, NULL));

    static vxk_quad quads[VXK_MESHER_MAX_QUADS];
    uint32_t count = 0;
    uint8_t box[VXK_MESHER_BOX_VOXELS] = {0};
    box[1 + 10 * (1 + 10 * 1)] = VXK_MAT_STONE; // chunk voxel (0, 0, 0): six faces
    EXPECT(VXK_OK, vxk_quad_mesh_chunk(quads, VXK_MESHER_MAX_QUADS, &count, box, solid));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_quad_mesh_chunk(quads, 8, NULL, box, solid));
    EXPECT(VXK_ERR_CAPACITY, vxk_quad_mesh_chunk(quads, 5, &count, box, solid));

    vxk_world* w = make_terrain();
    VXK_CHECK(w != NULL);
    EXPECT(VXK_OK, vxk_chunk_mesh(w, quads, VXK_MESHER_MAX_QUADS, &count, (vxk_int3){0, 0, 0}));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_chunk_mesh(NULL, quads, 8, &count, (vxk_int3){0, 0, 0}));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_chunk_mesh(w, quads, 8, &count, (vxk_int3){1 << 28, 0, 0}));
    EXPECT(VXK_ERR_CAPACITY, vxk_chunk_mesh(w, quads, 0, &count, (vxk_int3){0, 0, 0}));

    vxk_mesh mesh;
    const vxk_vec3 zero = {0, 0, 0};
    EXPECT(VXK_OK, vxk_quad_to_mesh(&mesh, quads, 1, 4, zero, 1.0f));
    vxk_mesh_free(&mesh);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_quad_to_mesh(&mesh, quads, 1, 5, zero, 1.0f));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_quad_to_mesh(&mesh, quads, 1, 3, zero, nanf("")));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_quad_to_mesh(&mesh, quads, 1, 3, zero, 0.0f));
    EXPECT_NO_MEMORY(vxk_quad_to_mesh(&mesh, quads, 1, 3, zero, 1.0f));

    vxk_voxel_box boxes[VXK_BOXES_CHUNK_MAX];
    uint8_t voxels[512] = {0};
    voxels[0] = voxels[9] = VXK_MAT_STONE; // two separate voxels: two boxes
    EXPECT(VXK_OK, vxk_boxes_chunk(boxes, 512, &count, voxels, NULL, VXK_BOXES_ANY_SOLID));
    EXPECT(VXK_ERR_INVALID_ARGUMENT,
           vxk_boxes_chunk(boxes, 512, &count, voxels, NULL, (vxk_boxes_mode)7));
    EXPECT(VXK_ERR_CAPACITY, vxk_boxes_chunk(boxes, 1, &count, voxels, NULL, VXK_BOXES_ANY_SOLID));
    EXPECT(VXK_OK,
           vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){0, 0, 0}, VXK_BOXES_PER_MATERIAL));
    EXPECT(VXK_ERR_INVALID_ARGUMENT,
           vxk_chunk_boxes(w, NULL, 512, &count, (vxk_int3){0, 0, 0}, VXK_BOXES_PER_MATERIAL));
    EXPECT(VXK_ERR_OUT_OF_RANGE,
           vxk_chunk_boxes(w, boxes, 512, &count, (vxk_int3){1 << 28, 0, 0}, VXK_BOXES_ANY_SOLID));
    EXPECT(VXK_ERR_CAPACITY,
           vxk_chunk_boxes(w, boxes, 0, &count, (vxk_int3){0, 0, 0}, VXK_BOXES_PER_MATERIAL));
    vxk_world_destroy(w);

    vxk_box_list list = {0};
    vxk_voxel_grid grid = {{8, 8, 8}, voxels};
    EXPECT(VXK_OK, vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_ANY_SOLID));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_boxes_grid(NULL, &grid, NULL, VXK_BOXES_ANY_SOLID));
    vxk_voxel_grid wide = {{65536, 1, 1}, voxels}; // refused before its voxels are read
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_boxes_grid(&list, &wide, NULL, VXK_BOXES_ANY_SOLID));
    vxk_box_list_free(&list);
    EXPECT_NO_MEMORY(vxk_boxes_grid(&list, &grid, NULL, VXK_BOXES_ANY_SOLID));
    return group_end(start);
}

// ---- mass.h -------------------------------------------------------------------------------------

static int test_mass(void)
{
    group_start start = group_begin();
    vxk_mass_properties p;
    float density[256] = {0};
    density[VXK_MAT_STONE] = 2.5f;
    uint8_t voxels[8] = {VXK_MAT_STONE};
    vxk_voxel_grid grid = {{2, 2, 2}, voxels}, wide = {{257, 1, 1}, voxels};
    EXPECT(VXK_OK, vxk_mass_from_grid(&p, &grid, density, 0.5f));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_mass_from_grid(&p, &grid, NULL, 0.5f));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_mass_from_grid(&p, &grid, density, INFINITY));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&p, &grid, density, 0.0f));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&p, &wide, density, 0.5f));
    EXPECT_NO_MEMORY(vxk_mass_from_grid(&p, &grid, density, 0.5f));
    density[VXK_MAT_STONE] = nanf("");
    EXPECT(VXK_ERR_NOT_FINITE, vxk_mass_from_grid(&p, &grid, density, 0.5f));
    density[VXK_MAT_STONE] = 0.0f; // zero total mass
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_mass_from_grid(&p, &grid, density, 0.5f));
    const vxk_vec3 half = {1, 2, 3}, flat = {1, 0, 3}, bad = {1, INFINITY, 3};
    EXPECT(VXK_OK, vxk_mass_box(&p, half, 1.0f));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_mass_box(NULL, half, 1.0f));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_mass_box(&p, bad, 1.0f));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_mass_box(&p, flat, 1.0f));
    EXPECT(VXK_OK, vxk_mass_sphere(&p, 2.0f, 1.0f));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_mass_sphere(NULL, 2.0f, 1.0f));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_mass_sphere(&p, 2.0f, nanf("")));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_mass_sphere(&p, 2.0f, -1.0f));
    return group_end(start);
}

// ---- voxel_types.h ------------------------------------------------------------------------------

static int test_voxel_types(void)
{
    group_start start = group_begin();
    uint8_t solid[256] = {0};
    solid[1] = 1;
    static uint8_t voxels[4 * 4 * 4], types[4 * 4 * 4];
    memset(voxels, 1, sizeof(voxels)); // a full cube: an inside too
    vxk_voxel_grid grid = {{4, 4, 4}, voxels}, wide = {{257, 1, 1}, voxels};
    const vxk_int_box box = {{1, 1, 1}, {2, 2, 2}};
    EXPECT(VXK_OK, vxk_voxel_types_compute(types, &grid, solid));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_voxel_types_compute(NULL, &grid, solid));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_voxel_types_compute(types, &wide, solid));
    EXPECT_NO_MEMORY(vxk_voxel_types_compute(types, &grid, solid));
    EXPECT(VXK_OK, vxk_voxel_types_update(types, &grid, solid, box));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_voxel_types_update(types, &grid, NULL, box));
    EXPECT(VXK_ERR_INVALID_ARGUMENT,
           vxk_voxel_types_update(types, &grid, solid, (vxk_int_box){{2, 0, 0}, {1, 0, 0}}));
    EXPECT(VXK_ERR_OUT_OF_RANGE,
           vxk_voxel_types_update(types, &grid, solid, (vxk_int_box){{0, 0, 0}, {4, 0, 0}}));
    EXPECT_NO_MEMORY(vxk_voxel_types_update(types, &grid, solid, box));
    return group_end(start);
}

// ---- kdtree.h -----------------------------------------------------------------------------------

// Builder 0 (vxk_kdtree_build), 1 (vxk_kdtree_build_in) or 2 (vxk_kdtree16_build) on a mesh; the
// tree it builds is released.
static vxk_status kd_build(int builder, const vxk_mesh* mesh, void* scratch, size_t scratch_size)
{
    vxk_kdtree tree;
    vxk_kdtree16 tree16;
    vxk_kdtree_node storage[8];
    vxk_status st;
    if (builder == 0)
        st = vxk_kdtree_build(&tree, mesh, scratch, scratch_size);
    else if (builder == 1)
        st = vxk_kdtree_build_in(&tree, mesh, storage, 8, scratch, scratch_size);
    else
        st = vxk_kdtree16_build(&tree16, mesh, scratch, scratch_size);
    if (st == VXK_OK && builder == 2)
        vxk_kdtree16_free(&tree16);
    else if (st == VXK_OK)
        vxk_kdtree_free(&tree);
    return st;
}

static int test_kdtree(void)
{
    group_start start = group_begin();
    vxk_vec3 vertices[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    const vxk_mesh good = {vertices, 4, indices, NULL, 2, 3};
    vxk_mesh five = good, beyond = good;
    five.corners = 5;
    beyond.primitive_count = VXK_KD_MAX_PRIMITIVES + 1; // refused before its indices are read
    uint64_t scratch[64];
    // The float builders and the quantized one share these checks.
    static const char* const builders[3] = {"vxk_kdtree_build", "vxk_kdtree_build_in",
                                            "vxk_kdtree16_build"};
    for (int b = 0; b < 3; ++b) {
        const char* fn = builders[b];
        expect_named(fn, VXK_OK, kd_build(b, &good, NULL, 0), "two triangles", __LINE__);
        expect_named(fn, VXK_ERR_INVALID_ARGUMENT, kd_build(b, NULL, NULL, 0), "NULL mesh",
                     __LINE__);
        expect_named(fn, VXK_ERR_INVALID_ARGUMENT, kd_build(b, &five, NULL, 0), "corners 5",
                     __LINE__);
        expect_named(fn, VXK_ERR_OUT_OF_RANGE, kd_build(b, &beyond, NULL, 0), "2^28 + 1 primitives",
                     __LINE__);
        indices[4] = 4;
        expect_named(fn, VXK_ERR_OUT_OF_RANGE, kd_build(b, &good, NULL, 0), "index 4 of 4",
                     __LINE__);
        indices[4] = 2;
        vertices[2].y = INFINITY;
        expect_named(fn, VXK_ERR_NOT_FINITE, kd_build(b, &good, NULL, 0), "infinite vertex",
                     __LINE__);
        vertices[2].y = 1;
        expect_named(fn, VXK_ERR_CAPACITY, kd_build(b, &good, scratch, 8), "8 bytes of scratch",
                     __LINE__);
        vxk_set_allocator(&g_refuse);
        vxk_status st = kd_build(b, &good, NULL, 0);
        vxk_set_allocator(NULL);
        expect_named(fn, VXK_ERR_OUT_OF_MEMORY, st, "no memory", __LINE__);
    }
    vxk_kdtree tree;
    vxk_kdtree_node storage[8];
    vxk_kdtree16 tree16;
    vxk_mesh out;
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree_build(NULL, &good, NULL, 0));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree_build_in(&tree, &good, NULL, 8, NULL, 0));
    EXPECT(VXK_ERR_CAPACITY, vxk_kdtree_build_in(&tree, &good, storage, 2, NULL, 0));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree16_build(NULL, &good, NULL, 0));
    // Past the quantized tree's primitive limit.
    uint32_t many = VXK_KD16_MAX_PRIMITIVES + 1;
    uint32_t* zeros = (uint32_t*)calloc(3 * (size_t)many, sizeof(uint32_t));
    VXK_CHECK(zeros != NULL);
    const vxk_mesh crowded = {vertices, 1, zeros, NULL, many, 3};
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_kdtree16_build(&tree16, &crowded, NULL, 0));
    free(zeros);

    VXK_CHECK_EQ_INT(vxk_kdtree_build(&tree, &good, NULL, 0), VXK_OK);
    EXPECT(VXK_OK, vxk_kdtree_validate(&tree));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree_validate(NULL));
    EXPECT_NO_MEMORY(vxk_kdtree_validate(&tree));
    vxk_kdtree deeper = tree;
    deeper.depth += 1;
    EXPECT(VXK_ERR_MALFORMED, vxk_kdtree_validate(&deeper));
    vxk_kdtree_free(&tree);

    VXK_CHECK_EQ_INT(vxk_kdtree16_build(&tree16, &good, NULL, 0), VXK_OK);
    EXPECT(VXK_OK, vxk_kdtree16_validate(&tree16));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree16_validate(NULL));
    EXPECT_NO_MEMORY(vxk_kdtree16_validate(&tree16));
    vxk_kdtree16 deeper16 = tree16;
    deeper16.depth += 1;
    EXPECT(VXK_ERR_MALFORMED, vxk_kdtree16_validate(&deeper16));
    EXPECT(VXK_OK, vxk_kdtree16_dequantize(&tree16, &out));
    vxk_mesh_free(&out);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_kdtree16_dequantize(&tree16, NULL));
    EXPECT_NO_MEMORY(vxk_kdtree16_dequantize(&tree16, &out));
    vxk_kdtree16_free(&tree16);
    return group_end(start);
}

// ---- obj.h --------------------------------------------------------------------------------------

static bool write_text_file(const char* path, const char* text)
{
    FILE* f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(text, 1, strlen(text), f) == strlen(text);
    return fclose(f) == 0 && ok;
}

static int test_obj(void)
{
    group_start start = group_begin();
    static const char good[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    static const char bad[] = "v 0 0 0\nf 1 2 3\n";
    vxk_mesh mesh;
    EXPECT(VXK_OK, vxk_obj_read(&mesh, good, sizeof(good) - 1, 3, NULL));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_obj_read(&mesh, good, sizeof(good) - 1, 5, NULL));
    EXPECT(VXK_ERR_MALFORMED, vxk_obj_read(&mesh, bad, sizeof(bad) - 1, 3, NULL));
    EXPECT_NO_MEMORY(vxk_obj_read(&mesh, good, sizeof(good) - 1, 3, NULL));

    char* text = NULL;
    size_t size = 0;
    EXPECT(VXK_OK, vxk_obj_write(&text, &size, &mesh));
    vxk_obj_free_text(text, size);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_obj_write(&text, &size, NULL));
    EXPECT_NO_MEMORY(vxk_obj_write(&text, &size, &mesh));
    mesh.indices[1] = 3;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_obj_write(&text, &size, &mesh));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_obj_save("test_status_never.obj", &mesh));
    mesh.indices[1] = 1;
    mesh.vertices[2].z = nanf("");
    EXPECT(VXK_ERR_NOT_FINITE, vxk_obj_write(&text, &size, &mesh));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_obj_save("test_status_never.obj", &mesh));
    mesh.vertices[2].z = 0;

    // Files live in the test's working directory (the build tree).
    const char* saved = "test_status.obj";
    const char* malformed = "test_status_malformed.obj";
    EXPECT(VXK_OK, vxk_obj_save(saved, &mesh));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_obj_save(NULL, &mesh));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_obj_save(saved, NULL));
    EXPECT(VXK_ERR_IO, vxk_obj_save("/nonexistent/dir/x.obj", &mesh));
    EXPECT_NO_MEMORY(vxk_obj_save(saved, &mesh));
    vxk_mesh_free(&mesh);

    VXK_CHECK(write_text_file(malformed, bad));
    EXPECT(VXK_OK, vxk_obj_load(&mesh, saved, 3, NULL));
    vxk_mesh_free(&mesh);
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_obj_load(&mesh, NULL, 3, NULL));
    EXPECT(VXK_ERR_MALFORMED, vxk_obj_load(&mesh, malformed, 3, NULL));
    EXPECT(VXK_ERR_IO, vxk_obj_load(&mesh, "/nonexistent/x.obj", 3, NULL));
    EXPECT(VXK_ERR_IO, vxk_obj_load(&mesh, ".", 3, NULL)); // a directory
    EXPECT_NO_MEMORY(vxk_obj_load(&mesh, saved, 3, NULL));
    remove(saved);
    remove(malformed);
    return group_end(start);
}

// ---- edit.h -------------------------------------------------------------------------------------

static int test_edit(void)
{
    group_start start = group_begin();
    vxk_world* w = NULL;
    vxk_world_def wd = vxk_default_world_def();
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    vxk_edit_def def = vxk_default_edit_def();
    vxk_edit_def bad_def = def;
    bad_def.cookie = 0;
    vxk_edit_def bad_range = def;
    bad_range.queue_capacity = 3; // not a power of two
    vxk_edit fill = vxk_edit_fill_box((vxk_int_box){{0, 0, 0}, {3, 3, 3}}, VXK_MAT_STONE);
    uint64_t ticket = 0;
    vxk_edit_outcome outcome;
    uint32_t applied = 0;
    // Not enabled yet.
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_disable(w));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_thread_start(w));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_thread_stop(w));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_run(w, 0, &applied));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_get_outcome(w, &outcome, 1));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_enable(NULL, &def));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_enable(w, NULL));
    EXPECT(VXK_ERR_BAD_DEF, vxk_edit_enable(w, &bad_def));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_edit_enable(w, &bad_range));
    EXPECT_NO_MEMORY(vxk_edit_enable(w, &def));
    EXPECT(VXK_OK, vxk_edit_enable(w, &def));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_enable(w, &def));
    // Submit and outcomes.
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_submit(NULL, &ticket, &fill, 0));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_submit(w, NULL, &fill, 0));
    EXPECT(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_get_outcome(NULL, &outcome, ticket));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_get_outcome(w, NULL, ticket));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_edit_get_outcome(w, &outcome, ticket + 100));
    EXPECT(VXK_OK, vxk_edit_get_outcome(w, &outcome, ticket));
    // The caller-driven writer (out of memory: a step's cut ends the batch, whose chunk versions
    // cannot be made).
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_run(NULL, 0, &applied));
    VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    EXPECT_NO_MEMORY(vxk_edit_run(w, 0, &applied));
    EXPECT(VXK_OK, vxk_edit_run(w, 0, &applied));
    // The thread.
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_thread_start(NULL));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_thread_stop(NULL));
    EXPECT_NO_MEMORY(vxk_edit_thread_start(w));
    EXPECT(VXK_OK, vxk_edit_thread_start(w));
    EXPECT(VXK_ERR_UNSUPPORTED, vxk_edit_thread_start(w));
    EXPECT(VXK_OK, vxk_edit_thread_stop(w));
    // A full queue (the smallest) with no writer, refused at once.
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_edit_disable(NULL));
    EXPECT(VXK_OK, vxk_edit_disable(w));
    vxk_edit_def small = def;
    small.queue_capacity = 2;
    small.outcome_capacity = 2;
    EXPECT(VXK_OK, vxk_edit_enable(w, &small));
    uint64_t first = 0;
    EXPECT(VXK_OK, vxk_edit_submit(w, &first, &fill, 0));
    EXPECT(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT(VXK_ERR_CAPACITY, vxk_edit_submit(w, &ticket, &fill, 0));
    // Outcomes past the kept ones: applying these and two more forgets the first.
    EXPECT(VXK_OK, vxk_edit_run(w, 0, &applied));
    EXPECT(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT(VXK_OK, vxk_edit_run(w, 0, &applied));
    EXPECT(VXK_ERR_STALE_ID, vxk_edit_get_outcome(w, &outcome, first));
    // Disable out of memory: a pending edit cannot be published; the system stays on.
    vxk_edit far = vxk_edit_fill_box((vxk_int_box){{800, 0, 800}, {803, 3, 803}}, VXK_MAT_SAND);
    EXPECT(VXK_OK, vxk_edit_submit(w, &ticket, &far, 0));
    EXPECT_NO_MEMORY(vxk_edit_disable(w));
    EXPECT(VXK_OK, vxk_edit_disable(w));
    vxk_world_destroy(w);
    return group_end(start);
}

// ---- raycast.h ----------------------------------------------------------------------------------

static int test_raycast(void)
{
    group_start start = group_begin();
    vxk_world* w = make_terrain();
    vxk_world* fresh = make_terrain(); // its ray cache is created by its first ray
    VXK_CHECK(w != NULL && fresh != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(fresh), VXK_OK);
    const vxk_ray down = {{2.5f, 20.0f, 2.5f}, {0, -1, 0}, INFINITY};
    vxk_ray rays[4] = {down, down, down, down};
    rays[0].origin.x = nanf("");
    rays[1].direction.y = 0;
    rays[2].max_distance = -1;
    rays[3].origin.x = 3e9f; // past the int32 voxel range
    const vxk_status bad_status[4] = {VXK_ERR_NOT_FINITE, VXK_ERR_OUT_OF_RANGE,
                                      VXK_ERR_OUT_OF_RANGE, VXK_ERR_OUT_OF_RANGE};
    vxk_ray_hit hit;
    bool any = false;
    EXPECT_NO_MEMORY(vxk_raycast(fresh, &hit, &down));
    EXPECT_NO_MEMORY(vxk_raycast_any(fresh, &any, &down));
    EXPECT_NO_MEMORY(vxk_raycast_batch(fresh, &hit, &down, 1));
    EXPECT(VXK_OK, vxk_raycast(w, &hit, &down));
    VXK_CHECK(hit.hit);
    EXPECT(VXK_OK, vxk_raycast_any(w, &any, &down));
    EXPECT(VXK_OK, vxk_raycast_batch(w, &hit, &down, 1));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast(w, NULL, &down));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_any(w, &any, NULL));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_batch(w, NULL, &down, 1));
    for (int i = 0; i < 4; ++i) {
        EXPECT(bad_status[i], vxk_raycast(w, &hit, &rays[i]));
        EXPECT(bad_status[i], vxk_raycast_any(w, &any, &rays[i]));
        EXPECT(bad_status[i], vxk_raycast_batch(w, &hit, &rays[i], 1));
    }
    // Queries that hit bodies: a zero filter is refused, then the ray's own errors.
    vxk_ray_query query = {down, vxk_default_ray_filter()};
    vxk_ray_query no_filter = {down, {0, 0, {0, 0}}};
    vxk_ray_result result;
    EXPECT_NO_MEMORY(vxk_raycast_query(fresh, &result, &query));
    EXPECT_NO_MEMORY(vxk_raycast_query_batch(fresh, &result, &query, 1));
    EXPECT(VXK_OK, vxk_raycast_query(w, &result, &query));
    VXK_CHECK_EQ_INT(result.target, VXK_RAY_TARGET_TERRAIN);
    EXPECT(VXK_OK, vxk_raycast_query_batch(w, &result, &query, 1));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query(w, NULL, &query));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query(w, &result, &no_filter));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query_batch(w, NULL, &query, 1));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_raycast_query_batch(w, &result, &no_filter, 1));
    for (int i = 0; i < 4; ++i) {
        vxk_ray_query bad = {rays[i], vxk_default_ray_filter()};
        EXPECT(bad_status[i], vxk_raycast_query(w, &result, &bad));
        EXPECT(bad_status[i], vxk_raycast_query_batch(w, &result, &bad, 1));
    }
    vxk_world_destroy(fresh);
    vxk_world_destroy(w);
    return group_end(start);
}

// ---- every listed status produced ---------------------------------------------------------------

// ---- body.h -------------------------------------------------------------------------------------

static int test_body(void)
{
    group_start start = group_begin();
    vxk_world_def wdef = vxk_default_world_def(), wd = wdef;
    vxk_world* w = NULL;
    wd.substeps = 0;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_world_create(&wd, &w));
    wd = wdef;
    wd.gravity.y = NAN;
    EXPECT(VXK_ERR_NOT_FINITE, vxk_world_create(&wd, &w));
    EXPECT(VXK_OK, vxk_world_create(&wdef, &w));
    EXPECT(VXK_OK, vxk_world_fill_box(w, (vxk_int_box){{-8, -8, -8}, {7, -1, 7}}, VXK_MAT_STONE));

    vxk_body_def def = vxk_default_body_def(), d = def;
    vxk_body_id id, box_id, voxel_id, stat_id;
    def.position = (vxk_vec3){0, 0.4f, 0};
    EXPECT(VXK_OK, vxk_body_create(w, &def, &id));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_create(w, NULL, &id));
    d = def;
    d.cookie = 0;
    EXPECT(VXK_ERR_BAD_DEF, vxk_body_create(w, &d, &id));
    d = def;
    d.linear_velocity.x = INFINITY;
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_create(w, &d, &id));
    d = def;
    d.rotation.w = 0.9f;
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_body_create(w, &d, &id));
    d = def;
    d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, 200);
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_body_create(w, &d, &id));
    d.shape.material = VXK_MAT_WOOD;
    d.position = (vxk_vec3){2, 0.5f, 0};
    EXPECT(VXK_OK, vxk_body_create(w, &d, &box_id));
    d = def;
    d.type = VXK_BODY_STATIC;
    d.position = (vxk_vec3){-3, 1, 0};
    EXPECT(VXK_OK, vxk_body_create(w, &d, &stat_id));
    static uint8_t cells[4 * 4 * 4];
    memset(cells, VXK_MAT_STONE, sizeof(cells));
    vxk_voxel_grid grid = {{4, 4, 4}, cells};
    d = def;
    d.position = (vxk_vec3){0, 5, 4};
    d.shape = vxk_voxel_shape(&grid, 0.25f);
    EXPECT(VXK_OK, vxk_body_create(w, &d, &voxel_id));
    EXPECT_NO_MEMORY(vxk_body_create(w, &d, &id));
    // id is the sphere made first (index 0): the failed creates left it alone.
    id = (vxk_body_id){0, 1};
    VXK_CHECK(vxk_body_is_valid(w, id));

    vxk_transform tf;
    vxk_vec3 v, av;
    void* user;
    vxk_aabb aabb;
    vxk_body_info info;
    const vxk_body_id stale = {id.index, id.generation + 2};
    EXPECT(VXK_OK, vxk_body_get_transform(w, id, &tf));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_transform(w, id, NULL));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_get_transform(w, stale, &tf));
    EXPECT(VXK_OK, vxk_body_get_velocity(w, id, &v, &av));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_velocity(w, id, &v, NULL));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_get_velocity(w, stale, &v, &av));
    EXPECT(VXK_OK, vxk_body_get_user_data(w, id, &user));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_user_data(NULL, id, &user));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_get_user_data(w, stale, &user));
    EXPECT(VXK_OK, vxk_body_get_aabb(w, id, &aabb));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_aabb(w, id, NULL));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_get_aabb(w, stale, &aabb));
    EXPECT(VXK_OK, vxk_body_get_info(w, id, &info));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_get_info(w, id, NULL));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_get_info(w, stale, &info));

    const vxk_vec3 zero = {0, 0, 0}, one = {1, 0, 0}, bad = {0, NAN, 0};
    const vxk_quat unit = {0, 0, 0, 1}, off = {0, 0, 0, 1.1f}, nan_q = {0, 0, NAN, 1};
    EXPECT(VXK_OK, vxk_body_set_transform(w, id, (vxk_vec3){0, 0.6f, 0}, unit));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_transform(NULL, id, zero, unit));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_set_transform(w, stale, zero, unit));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_set_transform(w, id, zero, nan_q));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_body_set_transform(w, id, zero, off));
    EXPECT(VXK_OK, vxk_body_set_velocity(w, id, one, zero));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_velocity(NULL, id, one, zero));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_set_velocity(w, stale, one, zero));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_set_velocity(w, id, bad, zero));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_body_set_velocity(w, stat_id, one, zero));
    EXPECT(VXK_OK, vxk_body_set_awake(w, id, false));
    EXPECT(VXK_OK, vxk_body_set_awake(w, id, true));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_awake(NULL, id, true));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_set_awake(w, stale, true));
    EXPECT(VXK_OK, vxk_body_set_user_data(w, id, &info));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_user_data(NULL, id, &info));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_set_user_data(w, stale, &info));

    EXPECT(VXK_OK, vxk_body_apply_force(w, id, one, zero));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_force(NULL, id, one, zero));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_apply_force(w, stale, one, zero));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_apply_force(w, id, one, bad));
    EXPECT(VXK_OK, vxk_body_apply_force_to_center(w, id, one));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_force_to_center(NULL, id, one));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_apply_force_to_center(w, stale, one));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_apply_force_to_center(w, id, bad));
    EXPECT(VXK_OK, vxk_body_apply_torque(w, id, one));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_torque(NULL, id, one));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_apply_torque(w, stale, one));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_apply_torque(w, id, bad));
    EXPECT(VXK_OK, vxk_body_apply_impulse(w, id, one, zero));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_impulse(NULL, id, one, zero));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_apply_impulse(w, stale, one, zero));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_apply_impulse(w, id, bad, zero));
    EXPECT(VXK_OK, vxk_body_apply_angular_impulse(w, id, one));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_apply_angular_impulse(NULL, id, one));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_apply_angular_impulse(w, stale, one));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_body_apply_angular_impulse(w, id, bad));

    uint8_t ids[8], out[8];
    memset(ids, VXK_MAT_WOOD, sizeof(ids));
    const vxk_int_box corner = {{0, 0, 0}, {1, 1, 1}}, past = {{3, 3, 3}, {4, 4, 4}},
                      flipped = {{1, 0, 0}, {0, 1, 1}};
    EXPECT(VXK_OK, vxk_body_set_voxels(w, voxel_id, corner, ids));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_set_voxels(w, stale, corner, ids));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_voxels(w, id, corner, ids)); // a sphere
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_set_voxels(w, voxel_id, flipped, ids));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_body_set_voxels(w, voxel_id, past, ids));
    ids[3] = 199;
    EXPECT(VXK_ERR_BAD_MATERIAL, vxk_body_set_voxels(w, voxel_id, corner, ids));
    ids[3] = VXK_MAT_WOOD;
    EXPECT_NO_MEMORY(vxk_body_set_voxels(w, voxel_id, corner, ids));
    static uint8_t air[4 * 4 * 4];
    EXPECT(VXK_ERR_OUT_OF_RANGE,
           vxk_body_set_voxels(w, voxel_id, (vxk_int_box){{0, 0, 0}, {3, 3, 3}}, air));
    EXPECT(VXK_OK, vxk_body_read_voxels(w, voxel_id, out, corner));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_read_voxels(w, stale, out, corner));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_read_voxels(w, voxel_id, NULL, corner));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_body_read_voxels(w, voxel_id, out, past));
    EXPECT(VXK_OK, vxk_body_read_voxel_types(w, voxel_id, out, corner));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_read_voxel_types(w, stale, out, corner));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_read_voxel_types(w, box_id, out, corner));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_body_read_voxel_types(w, voxel_id, out, past));

    EXPECT(VXK_OK, vxk_world_step(w, 1.0f / 60.0f));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_world_step(NULL, 1.0f / 60.0f));
    EXPECT(VXK_ERR_NOT_FINITE, vxk_world_step(w, NAN));
    EXPECT(VXK_ERR_OUT_OF_RANGE, vxk_world_step(w, -1.0f));
    EXPECT_NO_MEMORY(vxk_world_step(w, 1.0f / 60.0f));

    EXPECT(VXK_OK, vxk_body_destroy(w, box_id));
    EXPECT(VXK_ERR_STALE_ID, vxk_body_destroy(w, box_id));
    EXPECT(VXK_ERR_INVALID_ARGUMENT, vxk_body_destroy(NULL, id));
    vxk_world_destroy(w);
    return group_end(start);
}

static int test_every_status_produced(void)
{
    int missing = 0;
    for (int i = 0; i < g_api_count; ++i) {
        const api_function* f = &g_api[i];
        uint32_t left = f->documented & ~f->produced;
        for (int s = 0; s < VXK_STATUS_COUNT; ++s) {
            if (left & STATUS_BIT(s)) {
                fprintf(stderr, "%s (vxk/%s): no input produced %s\n", f->name, f->header,
                        status_name((vxk_status)s));
                ++missing;
            }
        }
    }
    return missing != 0;
}

int main(void)
{
    VXK_RUN(read_headers);
    VXK_RUN(test_world);
    VXK_RUN(test_worldgen_and_grid);
    VXK_RUN(test_vox);
    VXK_RUN(test_broadphase);
    VXK_RUN(test_mesher_and_boxes);
    VXK_RUN(test_voxel_types);
    VXK_RUN(test_mass);
    VXK_RUN(test_kdtree);
    VXK_RUN(test_obj);
    VXK_RUN(test_raycast);
    VXK_RUN(test_body);
    VXK_RUN(test_edit);
    VXK_RUN(test_every_status_produced);
    return vxk_test_finish();
}
