// shape.c: the shape classes by type and the body-pair contact table (shape.h), filled once by the
// shape files' register functions.
#include "shape.h"

#include <pthread.h>

// The shapes, each defined in its own file: its class and its register function.
extern const vxk_shape_class vxk_sphere_class;
extern const vxk_shape_class vxk_box_class;
extern const vxk_shape_class vxk_voxel_class;
extern const vxk_shape_class vxk_capsule_class;
void vxk_sphere_register(void);
void vxk_box_register(void);
void vxk_voxel_register(void);
void vxk_capsule_register(void);

typedef struct pair_entry {
    vxk_pair_fn* fn;
    bool flip; // registered for (b, a): called with the bodies swapped, manifolds flipped
} pair_entry;

static pair_entry pair_table[VXK_SHAPE_TYPE_COUNT][VXK_SHAPE_TYPE_COUNT];
static pthread_once_t registered = PTHREAD_ONCE_INIT;

const vxk_shape_class* vxk_shape_class_of(uint32_t type)
{
    static const vxk_shape_class* const classes[VXK_SHAPE_TYPE_COUNT] = {
        [VXK_SHAPE_SPHERE] = &vxk_sphere_class,
        [VXK_SHAPE_BOX] = &vxk_box_class,
        [VXK_SHAPE_VOXELS] = &vxk_voxel_class,
        [VXK_SHAPE_CAPSULE] = &vxk_capsule_class,
    };
    return type < VXK_SHAPE_TYPE_COUNT ? classes[type] : NULL;
}

void vxk_shapes_add_pair(uint32_t a, uint32_t b, vxk_pair_fn* fn)
{
    VXK_ASSERT(a < VXK_SHAPE_TYPE_COUNT && b < VXK_SHAPE_TYPE_COUNT);
    pair_table[a][b] = (pair_entry){fn, false};
    if (a != b)
        pair_table[b][a] = (pair_entry){fn, true};
}

static void register_all(void)
{
    vxk_sphere_register();
    vxk_box_register();
    vxk_voxel_register();
    vxk_capsule_register();
}

void vxk_shapes_register(void)
{
    pthread_once(&registered, register_all);
}

// A sink that flips each manifold (B to A becomes A to B) before passing it on.
typedef struct flip_sink {
    vxk_contact_sink base;
    vxk_contact_sink* next;
} flip_sink;

static void flip_add(vxk_contact_sink* sink, const vxk_manifold* m, uint32_t key, uint8_t material)
{
    flip_sink* f = (flip_sink*)sink;
    vxk_manifold flipped = *m;
    vxk_manifold_flip(&flipped);
    f->next->add(f->next, &flipped, key, material);
}

void vxk_collide_bodies(vxk_contact_sink* sink, const vxk_body* a, const vxk_body* b, float margin,
                        vxk_voxel_contact_scratch* scratch)
{
    const pair_entry* e = &pair_table[a->shape][b->shape];
    if (!e->fn)
        return;
    if (!e->flip) {
        e->fn(sink, a, b, margin, scratch);
        return;
    }
    flip_sink f = {{flip_add}, sink};
    e->fn(&f.base, b, a, margin, scratch);
}

uint32_t vxk_shape_one_piece(const vxk_body* body)
{
    (void)body;
    return 1;
}

void vxk_collide_face_boxes(vxk_contact_sink* sink, const vxk_body* body, const vxk_mat3* rot,
                            const vxk_face* f, uint32_t key, float margin)
{
    uint32_t boxes = body->voxels ? body->voxels->box_count : 1;
    // Face bounds, for the compound's box cull.
    vxk_vec3 lo = f->min, hi = f->min;
    uint32_t u = f->axis == 0 ? 2u : 0u, v = f->axis == 1 ? 2u : 1u;
    vxk_v3_set(&hi, u, vxk_v3_get(hi, u) + f->size_u);
    vxk_v3_set(&hi, v, vxk_v3_get(hi, v) + f->size_v);
    const vxk_mat3 abs_rot = {vxk_v3_abs(rot->cx), vxk_v3_abs(rot->cy), vxk_v3_abs(rot->cz)};
    for (uint32_t i = 0; i < boxes; ++i) {
        vxk_obb o = vxk_body_obb(body, rot, i);
        if (body->voxels) {
            vxk_vec3 e =
                vxk_v3_add(vxk_mat3_mul_v(&abs_rot, o.half), vxk_v3(margin, margin, margin));
            vxk_vec3 bl = vxk_v3_sub(o.center, e), bh = vxk_v3_add(o.center, e);
            if (bl.x > hi.x || bl.y > hi.y || bl.z > hi.z || bh.x < lo.x || bh.y < lo.y ||
                bh.z < lo.z)
                continue;
        }
        vxk_manifold m;
        vxk_collide_face_box(&m, f, &o, margin);
        sink->add(sink, &m, key * 0x01000193u + i, f->material);
    }
}
