// spawn.c: the spawn stage of a step: what the publish of the edit system handed over (spawn.h)
// becomes bodies. Per published batch, in order: the body edits of each voxel body applied to one
// copy of its grid and set once (one by one when that fails, so each gets the status it would
// alone), the body split along what they disconnected (Voxtric's connectivity search,
// geometry/split.h), then the terrain debris made into dynamic voxel bodies. Ids are taken in
// that order, so the bodies made are the same for any worker count.
#include "dynamics.h"
#include "math3.h"
#include "spawn.h"

// Reads a voxel body's whole grid into a new buffer.
static vxk_status read_grid(vxk_world* world, vxk_body_id id, vxk_int3* size, uint8_t** grid)
{
    vxk_body_info info;
    vxk_status status = vxk_body_get_info(world, id, &info);
    if (status != VXK_OK)
        return status;
    if (info.shape != VXK_SHAPE_VOXELS)
        return VXK_ERR_INVALID_ARGUMENT;
    *size = info.grid_size;
    size_t n = (size_t)info.grid_size.x * (size_t)info.grid_size.y * (size_t)info.grid_size.z;
    *grid = (uint8_t*)vxk_alloc(n);
    if (!*grid)
        return VXK_ERR_OUT_OF_MEMORY;
    vxk_int_box all = {{0, 0, 0}, {size->x - 1, size->y - 1, size->z - 1}};
    status = vxk_body_read_voxels(world, id, *grid, all);
    VXK_ASSERT(status == VXK_OK);
    return status;
}

static void record(const vxk_spawn_list* list, vxk_body_id body, vxk_body_id source, uint32_t count)
{
    if (vxk_grow_items((void**)list->events, list->event_capacity, (uint64_t)*list->event_count + 1,
                       sizeof(**list->events)))
        (*list->events)[(*list->event_count)++] = (vxk_edit_split_event){body, source, count};
}

// Creates a voxel body whose grid voxel (0, 0, 0) has its lowest corner at `corner` (world), with
// rotation q and the velocity field (v, w) about point p.
static vxk_status create_part(vxk_world* world, vxk_body_def* def, vxk_vec3 corner, vxk_vec3 p,
                              vxk_vec3 v, vxk_vec3 w, vxk_body_id* out)
{
    vxk_status status = vxk_body_create(world, def, out);
    if (status != VXK_OK)
        return status;
    vxk_body_info info;
    status = vxk_body_get_info(world, *out, &info);
    VXK_ASSERT(status == VXK_OK);
    vxk_vec3 position = vxk_v3_sub(corner, vxk_quat_rotate(def->rotation, info.grid_origin));
    vxk_dynamics_place(world, *out, (vxk_transform){position, def->rotation},
                       vxk_v3_add(v, vxk_v3_cross(w, vxk_v3_sub(position, p))), w);
    return VXK_OK;
}

// The debris of a batch as dynamic bodies at rest, awake, of the world's voxel size, their voxels
// where the terrain had them, in list order.
static void create_debris(vxk_dynamics* dyn, vxk_spawn_list* list, const vxk_spawn_batch* batch)
{
    vxk_world* world = dyn->world;
    vxk_vec3 zero = {0.0f, 0.0f, 0.0f};
    for (uint32_t i = 0; i < batch->debris_count; ++i) {
        const vxk_spawn_debris* d = &batch->debris[i];
        vxk_body_def def = vxk_default_body_def();
        def.shape = vxk_voxel_shape(&d->grid, 0.0f);
        vxk_vec3 corner = {(float)d->origin.x * world->voxel_size,
                           (float)d->origin.y * world->voxel_size,
                           (float)d->origin.z * world->voxel_size};
        vxk_body_id id;
        if (create_part(world, &def, corner, zero, zero, zero, &id) == VXK_OK)
            record(list, id, (vxk_body_id){0, 0}, d->voxel_count);
        else // out of memory: the part has left the terrain and cannot become a body
            list->lost++;
    }
}

// The voxels of a body grid as flood rows (split.h layout), and the removed voxels listed.
static bool split_rows(vxk_spawn_scratch* sc, const uint8_t* before, const uint8_t* now,
                       vxk_int3 size, uint32_t removed)
{
    size_t words = vxk_split_grid_words(size);
    uint32_t row_words = (uint32_t)((size.x + 63) / 64);
    if (vxk_dynamics_reserve((void**)&sc->rows, &sc->row_bytes, words * sizeof(uint64_t)) != VXK_OK)
        return false;
    if (!vxk_grow_items((void**)&sc->removed, &sc->removed_capacity, removed, sizeof(*sc->removed)))
        return false;
    memset(sc->rows, 0, words * sizeof(uint64_t));
    uint32_t k = 0;
    for (int32_t y = 0; y < size.y; ++y)
        for (int32_t z = 0; z < size.z; ++z)
            for (int32_t x = 0; x < size.x; ++x) {
                size_t i = (size_t)x + (size_t)size.x * ((size_t)z + (size_t)size.z * (size_t)y);
                if (now[i])
                    sc->rows[((size_t)y * (size_t)size.z + (size_t)z) * row_words +
                             (size_t)(x >> 6)] |= 1ull << (x & 63);
                else if (before[i])
                    sc->removed[k++] = (vxk_int3){x, y, z};
            }
    return true;
}

// After body edits changed voxel body id from grid `before` to `now`: splits off the parts the
// removed voxels disconnected. The part left growing keeps the id (else the largest); each other
// becomes a new body of the same type and settings, in the order of its smallest voxel (y, z, x),
// with the velocity of its material. `rest` is scratch of the grid's size. Out of memory: the
// body stays whole.
static void split_body(vxk_dynamics* dyn, vxk_spawn_list* list, vxk_body_id id,
                       const uint8_t* before, const uint8_t* now, uint8_t* rest, vxk_int3 size)
{
    vxk_world* world = dyn->world;
    vxk_spawn_scratch* sc = &dyn->spawn;
    vxk_body_info info;
    vxk_transform pose;
    vxk_vec3 v, w;
    void* user_data = NULL;
    if (vxk_body_get_info(world, id, &info) != VXK_OK || info.shape != VXK_SHAPE_VOXELS ||
        info.grid_size.x != size.x || info.grid_size.y != size.y || info.grid_size.z != size.z ||
        vxk_body_get_transform(world, id, &pose) != VXK_OK ||
        vxk_body_get_velocity(world, id, &v, &w) != VXK_OK ||
        vxk_body_get_user_data(world, id, &user_data) != VXK_OK)
        return;
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    uint32_t removed = 0;
    for (size_t i = 0; i < n; ++i)
        removed += before[i] && !now[i];
    if (removed == 0 || !split_rows(sc, before, now, size, removed))
        return;
    vxk_split_grid grid = {size, sc->rows, NULL};
    bool done = false;
    if (vxk_split_begin(&sc->split, &grid, sc->removed, removed, VXK_SPLIT_KEEP_LAST) != VXK_OK ||
        vxk_split_run(&sc->split, 0, &done) != VXK_OK || !done ||
        vxk_split_result_get(&sc->split, &sc->result) != VXK_OK)
        return;
    vxk_split_stats st;
    vxk_split_stats_get(&sc->split, &st);
    list->split_voxels += st.voxels_expanded;
    const vxk_split_result* res = &sc->result;
    // The part that keeps the id: the group left growing, else the largest part (the first of
    // equals).
    uint32_t keep = UINT32_MAX;
    if (!st.kept_groups) {
        keep = 0;
        for (uint32_t c = 1; c < res->component_count; ++c)
            if (res->components[c].voxel_count > res->components[keep].voxel_count)
                keep = c;
    }
    if (res->component_count == 0 || (keep != UINT32_MAX && res->component_count == 1))
        return;

    // The original's settings for its parts, and its grid less the parts that leave.
    vxk_vec3 origin = info.grid_origin;
    float vs = info.voxel_size;
    vxk_body_def def = vxk_default_body_def();
    def.type = info.type;
    def.rotation = pose.q;
    def.linear_damping = info.linear_damping;
    def.angular_damping = info.angular_damping;
    def.gravity_scale = info.gravity_scale;
    def.friction = info.friction;
    def.restitution = info.restitution;
    def.user_data = user_data;
    def.is_bullet = info.is_bullet;
    memcpy(rest, now, n);
    uint32_t first_event = *list->event_count;
    bool ok = true;
    for (uint32_t c = 0; c < res->component_count && ok; ++c) {
        if (c == keep)
            continue;
        const vxk_split_component* part = &res->components[c];
        vxk_int_box b = part->bounds;
        vxk_int3 ps = {b.max.x - b.min.x + 1, b.max.y - b.min.y + 1, b.max.z - b.min.z + 1};
        vxk_voxel_grid g;
        if (vxk_voxel_grid_create(&g, ps) != VXK_OK) {
            ok = false;
            break;
        }
        for (uint32_t r = 0; r < part->row_count; ++r) {
            const vxk_split_row* row = &res->rows[part->first_row + r];
            for (uint64_t bits = row->bits; bits; bits &= bits - 1) {
                int32_t x = 64 * row->word + __builtin_ctzll(bits);
                size_t i =
                    (size_t)x + (size_t)size.x * ((size_t)row->z + (size_t)size.z * (size_t)row->y);
                size_t j = (size_t)(x - b.min.x) +
                           (size_t)ps.x * ((size_t)(row->z - b.min.z) +
                                           (size_t)ps.z * (size_t)(row->y - b.min.y));
                g.voxels[j] = now[i];
                rest[i] = VXK_MAT_AIR;
            }
        }
        def.shape = vxk_voxel_shape(&g, vs);
        vxk_vec3 local = {origin.x + (float)b.min.x * vs, origin.y + (float)b.min.y * vs,
                          origin.z + (float)b.min.z * vs};
        vxk_vec3 corner = vxk_v3_add(pose.p, vxk_quat_rotate(pose.q, local));
        vxk_body_id part_id;
        ok = create_part(world, &def, corner, pose.p, v, w, &part_id) == VXK_OK;
        if (ok)
            record(list, part_id, id, part->voxel_count);
        vxk_voxel_grid_free(&g);
    }
    vxk_int_box all = {{0, 0, 0}, {size.x - 1, size.y - 1, size.z - 1}};
    if (!ok || vxk_body_set_voxels(world, id, all, rest) != VXK_OK) {
        // Whole again: the parts made are destroyed (out of memory).
        for (uint32_t e = first_event; e < *list->event_count; ++e)
            vxk_body_destroy(world, (*list->events)[e].body);
        *list->event_count = first_event;
    }
}

// The staged edits of one body (those of the batch from `first` on naming the body of `first`):
// applied in order to one copy of its grid, set once; if that set fails, each edit is set alone
// in order (reading the grid anew each time), so each gets the status it would alone.
static void edit_body(vxk_dynamics* dyn, vxk_spawn_list* list, const vxk_spawn_batch* batch,
                      uint32_t first)
{
    vxk_world* world = dyn->world;
    vxk_body_id id = batch->edits[first].edit.body;
    vxk_int3 size = {0, 0, 0};
    uint8_t* grid = NULL;
    vxk_status status = read_grid(world, id, &size, &grid);
    vxk_int_box all = {{0, 0, 0}, {size.x - 1, size.y - 1, size.z - 1}};
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    uint64_t solid = status == VXK_OK ? vxk_count_solid(grid, n) : 0;
    // The grid before the edits, for splitting (without it the body is not split).
    uint8_t* before = status == VXK_OK && list->split ? (uint8_t*)vxk_alloc(n) : NULL;
    if (before)
        memcpy(before, grid, n);
    bool any = false;
    for (uint32_t i = first; i < batch->edit_count; ++i) {
        vxk_spawn_body_edit* s = &batch->edits[i];
        if (s->done || !VXK_ID_EQUAL(s->edit.body, id))
            continue;
        s->done = true;
        s->status = status != VXK_OK ? status : list->apply(s, grid, size, &solid);
        any |= s->status == VXK_OK;
    }
    if (any && vxk_body_set_voxels(world, id, all, grid) != VXK_OK) {
        for (uint32_t i = first; i < batch->edit_count; ++i) {
            vxk_spawn_body_edit* s = &batch->edits[i];
            if (!VXK_ID_EQUAL(s->edit.body, id))
                continue;
            vxk_status st = vxk_body_read_voxels(world, id, grid, all);
            uint64_t count = vxk_count_solid(grid, n);
            if (st == VXK_OK)
                st = list->apply(s, grid, size, &count);
            if (st == VXK_OK)
                st = vxk_body_set_voxels(world, id, all, grid);
            s->status = st;
        }
        if (vxk_body_read_voxels(world, id, grid, all) != VXK_OK) // what the edits left
            any = false;
    }
    if (before && any) {
        uint8_t* rest = (uint8_t*)vxk_alloc(n); // what the original keeps
        if (rest)
            split_body(dyn, list, id, before, grid, rest, size);
        vxk_free(rest, n);
    }
    vxk_free(before, n);
    vxk_free(grid, n);
}

void vxk_dynamics_spawn(vxk_dynamics* dyn, vxk_spawn_list* list)
{
    for (uint32_t k = 0; k < list->batch_count; ++k) {
        const vxk_spawn_batch* batch = &list->batches[k];
        for (uint32_t i = 0; i < batch->edit_count; ++i)
            if (!batch->edits[i].done)
                edit_body(dyn, list, batch, i);
        if (list->split)
            create_debris(dyn, list, batch);
    }
}

void vxk_spawn_scratch_free(vxk_spawn_scratch* sc)
{
    vxk_split_destroy(&sc->split);
    vxk_split_result_free(&sc->result);
    vxk_free(sc->rows, sc->row_bytes);
    vxk_free(sc->removed, (size_t)sc->removed_capacity * sizeof(*sc->removed));
    memset(sc, 0, sizeof(*sc));
    vxk_split_init(&sc->split);
}

uint64_t vxk_spawn_scratch_bytes(const vxk_spawn_scratch* sc)
{
    return sc->row_bytes + (uint64_t)sc->removed_capacity * sizeof(*sc->removed);
}
