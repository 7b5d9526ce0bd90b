// vxk/id.h: the one id layout of vxk. Bodies, shapes and contacts are named by ids of this form:
// an index into the owner's array and a generation that changes every time the index is
// reused. The zero id is null (no object has generation 0). An id whose object was destroyed is
// stale for ever: every call that takes it returns VXK_ERR_STALE_ID and changes nothing.
//
// Ids carry their world. Each world draws a salt when it is created (thread-safe), and a
// generation is that salt XOR a count kept per index (it moves on at every create and destroy
// at the index), so worlds built alike hand out the same indices with different generations.
// An id of world B passed to world A is refused like a stale one (VXK_ERR_STALE_ID, nothing
// changed):
// - always, when its object and the object at that index in A are the same use of the index
//   (created after as many destructions at that index in each world; every id of two worlds
//   that never destroy a body, say), for any two of 2^31 worlds created in a row in the process;
// - otherwise, except with a chance of about 2^-31 per id: it is taken only if the two salts
//   differ in exactly the bits in which the two counts differ, and salts differ like random
//   31-bit values.
// Generation values therefore depend on how many worlds the process created before (they are
// the same in every run of the same program); results never do: vxk_world_hash and every
// output other than ids are the same for worlds built alike.
//
// Each kind has its own struct type, so a body id cannot be passed where a shape id is asked
// for; all share the layout and these helpers.
#ifndef VXK_ID_H
#define VXK_ID_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VXK_DEFINE_ID(name)  \
    typedef struct name {    \
        uint32_t index;      \
        uint32_t generation; \
    } name

VXK_DEFINE_ID(vxk_body_id);
VXK_DEFINE_ID(vxk_shape_id);
VXK_DEFINE_ID(vxk_contact_id);

// The null id of any kind, e.g. `vxk_body_id none = VXK_NULL_ID(vxk_body_id);`.
#define VXK_NULL_ID(type) ((type){0, 0})
// Whether an id (any kind) is null.
#define VXK_ID_IS_NULL(id) ((id).generation == 0)
// Whether two ids of one kind name the same object.
#define VXK_ID_EQUAL(a, b) ((a).index == (b).index && (a).generation == (b).generation)

// An id as one 64-bit key (generation << 32 | index), for hashing and sorting; 0 for null.
#define VXK_ID_KEY(id) ((uint64_t)(id).generation << 32 | (uint64_t)(id).index)

#ifdef __cplusplus
}
#endif
#endif
