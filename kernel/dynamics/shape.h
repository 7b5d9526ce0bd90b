// shape.h: body shapes by table (after Box2D's contact registers and Jolt's CollisionDispatch).
// Each shape type has one vxk_shape_class, defined in its own file (shape_sphere.c, shape_box.c,
// shape_voxels.c, ...): what the def must hold, its mass properties, its bounds, its
// exact ray test, its pieces for time of impact and its contact with a terrain face. Contacts
// between two bodies go through one table indexed by the two shape types, filled by
// vxk_shapes_register (shape.c): a pair function registered for (A, B) also serves (B, A), its
// manifolds flipped. Adding a shape is one file (its class, its constructor of vxk/body.h, its
// pair functions and their register function) and its line in shape.c's lists
// (docs/architecture.md, "Adding a shape").
#ifndef VXK_SHAPE_H
#define VXK_SHAPE_H

#include "dynamics.h"
#include "ray_body.h"
#include "toi.h"

#include <vxk/mass.h>

// Shape type values run below this (vxk_shape_type).
#define VXK_SHAPE_TYPE_COUNT 8

// Where a shape's contact functions put their manifolds: `key` names the pair of pieces that made
// it (mixed into feature ids), `material` the terrain face's (0 for body pairs).
typedef struct vxk_contact_sink vxk_contact_sink;
struct vxk_contact_sink {
    void (*add)(vxk_contact_sink* sink, const vxk_manifold* m, uint32_t key, uint8_t material);
};

typedef struct vxk_shape_class {
    // The def's sizes: VXK_OK or VXK_ERR_OUT_OF_RANGE (VXK_ERR_INVALID_ARGUMENT for missing
    // data). Finiteness is checked before.
    vxk_status (*validate)(const vxk_shape_def* shape);
    // Mass properties about the centre of mass in the body frame for a density (primitives; a
    // voxel shape's come from its grid and materials, body.c).
    vxk_status (*mass)(vxk_mass_properties* out, const vxk_shape_def* shape, float density);
    // Keeps the def's sizes in the body (radius, half) and sets its bounding radius.
    void (*init)(vxk_body* body, const vxk_shape_def* shape);
    // The world box of the shape at the body's pose.
    vxk_aabb (*aabb)(const vxk_body* body);
    // The largest distance of the shape from the centre of mass along each body axis.
    vxk_vec3 (*extent)(const vxk_body* body);
    // Half the smallest extent (the continuous stage sweeps a body that moved more).
    float (*min_extent)(const vxk_body* body);
    // The exact ray test (ray_body.h).
    void (*raycast)(const vxk_body_ray* ray, const vxk_body* body, uint32_t index,
                    vxk_body_hit* best);
    // Convex pieces for time of impact, in the body frame.
    uint32_t (*piece_count)(const vxk_body* body);
    vxk_toi_piece (*piece)(const vxk_body* body, uint32_t i);
    // Contact with one terrain face, manifolds into the sink (key: the face's). NULL: the shape
    // meets the terrain voxel against voxel (narrowphase.c's regions).
    void (*collide_face)(vxk_contact_sink* sink, const vxk_body* body, const vxk_mat3* rot,
                         const vxk_face* face, uint32_t key, float margin);
} vxk_shape_class;

// Contact of body A with body B (shape types of the registered order), manifolds from A to B.
typedef void vxk_pair_fn(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                         vxk_voxel_contact_scratch* scratch);

// The class of a shape type, NULL for an unknown type.
const vxk_shape_class* vxk_shape_class_of(uint32_t type);
static inline const vxk_shape_class* vxk_body_class(const vxk_body* body)
{
    return vxk_shape_class_of(body->shape);
}

// Fills the pair table once (pthread_once; vxk_dynamics_attach calls it).
void vxk_shapes_register(void);
// Registers fn for bodies of types (a, b); (b, a) calls it with the bodies swapped and flips its
// manifolds. Called by the shape files' register functions (shape.c lists them).
void vxk_shapes_add_pair(uint32_t a, uint32_t b, vxk_pair_fn* fn);

// The contact of two bodies through the table (nothing for an unregistered pair).
void vxk_collide_bodies(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                        vxk_voxel_contact_scratch* scratch);

// Shared by the box and voxel classes: the oriented boxes of body (one for a box, the compound's
// for a voxel body) against one terrain face, culled by the face's bounds for a compound.
void vxk_collide_face_boxes(vxk_contact_sink* sink, const vxk_body* body, const vxk_mat3* rot,
                            const vxk_face* face, uint32_t key, float margin);

// piece_count of a shape of one piece.
uint32_t vxk_shape_one_piece(const vxk_body* body);

// A voxel body's bounding radius from its box compound (shape_voxels.c; body.c after a grid edit).
void vxk_voxel_shape_bound(vxk_body* body);

#endif
