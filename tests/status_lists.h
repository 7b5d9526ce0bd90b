// status_lists.h: the statuses the public headers list, read from the headers, and the checks
// every concept's status tests share. Every function of kernel/include/vxk/*.h (the headers vxk.h
// includes) that returns a vxk_status documents its statuses in the comment right above its
// declaration: the VXK_ERR_* names the comment lists, those of the functions it names after
// "errors of", "errors as" or "errors: those of" (up to the end of that sentence), and those of
// the file's opening comment when it points at "the top of this file".
//
// A concept's test calls each of its functions with an input built for each status the header
// lists (EXPECT_STATUS, EXPECT_NO_MEMORY, EXPECT_STATUS_OF): the call must return exactly that
// status, and a status the header does not list is reported as such. Each status function has one
// owning test program (the table in status_lists.c), which ends with
// vxk_test_statuses_all_produced: its calls produced every status its header lists. test_base
// checks the lists themselves and that every status function has an owner. Built as the static
// library vxk_status_lists.
#ifndef VXK_TEST_STATUS_LISTS_H
#define VXK_TEST_STATUS_LISTS_H

#include <vxk/vxk.h>

#include "harness.h"
#include "test.h"

// Reads the headers' lists once (the calls below read them when needed): returns the problems
// found in the headers (a status function without a comment, an unknown status name, errors
// taken from a function that returns no status, a function no test program owns, an owner row
// naming nothing, fewer than 40 status functions), printing each.
int vxk_test_status_lists_problems(void);

// The name of a status ("VXK_ERR_IO"), "(not a status)" past the last.
const char* vxk_test_status_name(vxk_status status);

// One call of function returned got where its input must produce expected: got must be listed in
// the function's header and equal expected (what names the input, file and line the call).
// Otherwise the mismatch is printed and counted; else got counts as produced.
void vxk_test_status_expect(const char* function, vxk_status expected, vxk_status got,
                            const char* what, const char* file, int line);

// As vxk_test_status_expect, the function being the first name of the call's text.
void vxk_test_status_expect_call(vxk_status expected, vxk_status got, const char* call,
                                 const char* file, int line);

// Whether the header of function lists status (VXK_OK included): for calls whose input is random,
// whose status is any the header allows (test_api_fuzz). False for a name that is not a status
// function of the headers.
bool vxk_test_status_documented(const char* function, vxk_status status);

// The calls so far that got a wrong or unlisted status.
int vxk_test_status_mismatches(void);

// Whether the calls of this program produced every status the header of each function it owns
// lists: 0, or 1 after naming each status left (and when it owns no function). test_file is the
// program's source (__FILE__): its name without ".c" is the owner in the table.
int vxk_test_statuses_all_produced(const char* test_file);

#define EXPECT_STATUS(expected, call) \
    vxk_test_status_expect_call((expected), (call), #call, __FILE__, __LINE__)

// A status got from function on an input the text what names (for calls made through a helper).
#define EXPECT_STATUS_OF(function, expected, got, what) \
    vxk_test_status_expect((function), (expected), (got), (what), __FILE__, __LINE__)

// The call with every allocation refused: its out-of-memory status.
#define EXPECT_NO_MEMORY(call)                                                              \
    do {                                                                                    \
        vxk_test_refuse_allocations();                                                      \
        vxk_status st_ = (call);                                                            \
        vxk_set_allocator(NULL);                                                            \
        vxk_test_status_expect_call(VXK_ERR_OUT_OF_MEMORY, st_, #call, __FILE__, __LINE__); \
    } while (0)

// A group of status calls fails when one of its calls got a wrong status, or when it leaked.
typedef struct vxk_status_group {
    int mismatches;
    size_t bytes;
} vxk_status_group;

static inline vxk_status_group vxk_status_group_begin(void)
{
    return (vxk_status_group){vxk_test_status_mismatches(), vxk_allocated_bytes()};
}

static inline int vxk_status_group_end(vxk_status_group start)
{
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), start.bytes);
    return vxk_test_status_mismatches() != start.mismatches;
}

#endif
