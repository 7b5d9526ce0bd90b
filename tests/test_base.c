// test_base.c: vxk/base.h: every status (and values past the last) has a text, the version
// string, and an allocator missing a function is not installed (the default serves instead).
// The public headers' status lists read cleanly, each status function owned by a test program
// (status_lists.h).
#include <string.h>

#include <vxk/vxk.h>

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
    VXK_RUN(test_statuses_lists);
    return vxk_test_finish();
}
