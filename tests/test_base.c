// test_base.c: vxk/base.h: every status (and values past the last) has a text, the version
// string, and an allocator missing a function is not installed (the default serves instead).
#include <string.h>

#include <vxk/vxk.h>

#include "harness.h"
#include "scenes.h"
#include "test.h"

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

int main(void)
{
    vxk_edge_tests_begin();
    VXK_RUN(test_base);
    vxk_edge_tests_end();
    return vxk_test_finish();
}
