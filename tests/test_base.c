// test_base.c: vxk/base.h: every status (and values past the last) has a text, the version
// string, and an allocator missing a function is not installed (the default serves instead).
// The public headers' status lists read cleanly, each status function owned by a test program
// (status_lists.h). The kernel's one growable array (core.h: vxk_grow_items and its zeroing twin).
#include <string.h>

#include <vxk/vxk.h>

#include "core.h"
#include "harness.h"
#include "scenes.h"
#include "test.h"
#include "status_lists.h"

// ---- base ---------------------------------------------------------------------------------------

static int test_base(void)
{
    for (int s = 0; s < VXK_STATUS_COUNT + 3; ++s) {
        const char* text = vxk_status_string((vxk_status)s);
        VXK_CHECK(text != NULL && text[0] != 0);
    }
    VXK_CHECK(vxk_status_string((vxk_status)-1) != NULL);
    VXK_CHECK(strcmp(vxk_version_string(), "0.1.0") == 0);
    // An allocator with a missing function is not installed (the default is used instead):
    // allocations still count and succeed.
    size_t before = vxk_allocated_bytes();
    vxk_allocator partial = {fa_alloc, NULL, NULL};
    vxk_set_allocator(&partial);
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    vxk_world_destroy(w);
    vxk_set_allocator(NULL);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- growable arrays (core.h) ---------------------------------------------------------------

// Grows keep the contents, reach at least the need, change nothing when the need fits, and leave
// the array as it was when they fail (past 2^31 items, or out of memory); the zeroing twin zeroes
// exactly the items past the old capacity.
static int test_grow_items(void)
{
    size_t before = vxk_allocated_bytes();
    for (int zeroed = 0; zeroed < 2; ++zeroed) {
        bool (*grow)(void**, uint32_t*, uint64_t, size_t) =
            zeroed ? vxk_grow_items_zeroed : vxk_grow_items;
        uint32_t* items = NULL;
        uint32_t capacity = 0;
        VXK_CHECK(grow((void**)&items, &capacity, 0, sizeof(uint32_t)));
        VXK_CHECK(items == NULL && capacity == 0);
        uint32_t count = 0;
        for (uint32_t need = 1; need <= 1000; need += 7) {
            uint32_t old = capacity;
            VXK_CHECK(grow((void**)&items, &capacity, need, sizeof(uint32_t)));
            VXK_CHECK_MSG(capacity >= need && capacity >= old, "need %u: capacity %u -> %u", need,
                          old, capacity);
            if (zeroed)
                for (uint32_t i = old; i < capacity; ++i)
                    VXK_CHECK_MSG(items[i] == 0, "need %u: item %u is %u", need, i, items[i]);
            for (uint32_t i = 0; i < count; ++i)
                VXK_CHECK_MSG(items[i] == i * 2654435761u, "need %u: item %u lost", need, i);
            for (; count < need; ++count)
                items[count] = count * 2654435761u;
        }
        uint32_t* kept = items;
        uint32_t kept_capacity = capacity;
        VXK_CHECK(grow((void**)&items, &capacity, capacity, sizeof(uint32_t)));
        VXK_CHECK(items == kept && capacity == kept_capacity);
        VXK_CHECK(!grow((void**)&items, &capacity, (uint64_t)1 << 31, sizeof(uint32_t)));
        VXK_CHECK(items == kept && capacity == kept_capacity);
        vxk_test_refuse_allocations();
        bool grown = grow((void**)&items, &capacity, (uint64_t)capacity + 1, sizeof(uint32_t));
        vxk_set_allocator(NULL);
        VXK_CHECK(!grown && items == kept && capacity == kept_capacity);
        for (uint32_t i = 0; i < count; ++i)
            VXK_CHECK(items[i] == i * 2654435761u);
        vxk_free(items, (size_t)capacity * sizeof(uint32_t));
    }
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), before);
    return 0;
}

// ---- statuses: the headers' lists (status_lists.h) ----------------------------------------------

// The status lists of the public headers read cleanly: a comment above every status function,
// only known status names, errors taken only from status functions, and a test program that owns
// each function's statuses.
static int test_statuses_lists(void)
{
    VXK_CHECK_EQ_INT(vxk_test_status_lists_problems(), 0);
    return 0;
}

int main(void)
{
    vxk_edge_tests_begin();
    VXK_RUN(test_base);
    vxk_edge_tests_end();
    VXK_RUN(test_grow_items);
    VXK_RUN(test_statuses_lists);
    return vxk_test_finish();
}
