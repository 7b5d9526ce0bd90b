// edit_thread.c: the edit system of vxk/edit.h: the single writer of voxel data, its batches of
// copy-on-write chunk versions, and their publish at the step's start. After Voxtric's "Proper
// Multi-threading" (seed 004): every voxel write happens on one thread, off the step.
//
// Batches. The publish of step p records a cut: the tickets issued so far (under the lock the
// writer reads cuts under, so a ticket the writer has seen queued is always below a cut it has
// not seen). Batch k holds the queue positions [cut k, cut k+1) (cut 0 = 0): it is closed by
// publish k+1 and published by publish k+2, "the edits submitted before the previous step
// began". The writer applies positions in order into its own terrain (a fork of the world's,
// sharing every payload) and, once a batch's closing cut is known and its last edit applied,
// completes it: the chunks it wrote are listed with a reference to their payloads (shared from
// then on, so the writer's next write to them copies) and the batch is sealed. The publish waits
// until the batches it needs are sealed (applying them itself when no writer thread runs),
// installs them into the world's terrain by reference, applies their body edits and makes their
// outcomes final. The writer never reads the world's terrain and the publish never reads the
// writer's, so they meet only at the sealed list (a mutex once per batch) and at payload
// reference counts; no reader of either terrain takes a lock.
//
// Body edits are staged by the writer (checked, copied into the batch) and applied at the
// publish on the step's thread, in ticket order, through vxk_body_set_voxels: the dynamics are not
// thread-safe with a step. A body's edits of one batch are applied to one copy of its grid and
// set once; if that set fails they are set one by one, so each gets the status it would alone.
#define _POSIX_C_SOURCE 200809L // clock_gettime, nanosleep, pthread_condattr_setclock

#include "edit_thread.h"

#include "edit_apply.h"
#include "edit_queue.h"
#include "edit_split.h"
#include "world_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define EDIT_DEF_COOKIE 0x564B4544u // "VKED"
#define CUT_RING 8                  // the writer only ever needs the newest cut (see writer_cut)

typedef vxk_spawn_body_edit staged_body_edit; // spawn.h

typedef struct edit_batch {
    uint64_t index;                   // batch k
    uint64_t first, end;              // queue positions [first, end)
    vxk_terrain_chunk_source* states; // the chunks it wrote, as the batch left them (references)
    uint32_t state_count, state_capacity;
    staged_body_edit* bodies;
    uint32_t body_count, body_capacity;
    uint64_t applied, rejected;  // terrain edits, and body edits the writer's checks rejected
    vxk_edit_debris_list debris; // terrain parts cut loose, bodies at the publish
    bool hook_done;
    struct edit_batch* next;
} edit_batch;

typedef struct edit_system {
    vxk_world* world;
    bool enabled;
    vxk_edit_def def;
    vxk_edit_queue queue;
    vxk_terrain work;   // the writer's terrain: the newest version of every chunk
    uint64_t step_base; // the world's step count at enable: outcome steps are absolute

    // The writer's state: whoever holds apply_lock (the thread, vxk_edit_run, the publish).
    pthread_mutex_t apply_lock;
    edit_batch* open; // the batch being written (allocated while enabled)
    _Atomic uint64_t open_index;
    uint64_t writer_cuts[CUT_RING];
    uint64_t writer_cut_count;
    vxk_chunk_map base_map; // while a hook is set: chunk -> index in base
    vxk_edit_removed* base; // solid bits of chunks as the open batch first touched them
    uint32_t base_count, base_capacity;
    vxk_edit_removed* removed; // the hook's list
    uint32_t removed_capacity;
    vxk_edit_batch_fn* hook;
    void* hook_ctx;
    vxk_edit_splitter* splitter; // connectivity splitting (NULL: off)
    bool split_finish;           // the next batch's searches run to their end (disable)
    _Atomic uint32_t test_delay_us;

    // Shared: under lock, or atomic.
    pthread_mutex_t lock;
    pthread_cond_t work_cond;   // the writer thread waits for edits, cuts or stop
    pthread_cond_t sealed_cond; // the publish waits for a batch
    uint64_t cuts[CUT_RING];    // cut p at p % CUT_RING (p from 1)
    _Atomic uint64_t cut_count;
    edit_batch* sealed_head;
    edit_batch* sealed_tail;
    _Atomic uint64_t sealed;    // positions below are in sealed batches
    _Atomic uint64_t completed; // batches completed (sealed, or empty and skipped)
    _Atomic bool split_carry;   // the last completed batch left terrain searches to the next
    _Atomic uint64_t applied;   // positions below were taken by the writer
    _Atomic uint64_t publishes; // since enable
    _Atomic bool sleeping;
    _Atomic bool stop;
    bool writer_failed; // the thread's last batch completion ran out of memory
    bool thread_running;
    pthread_t* thread; // the writer thread's handle, allocated through the hook while it runs

    // The publish's (the step's thread): the batches installed and not yet finished, the step
    // their outcomes take, and the spawn list's batches.
    edit_batch* publishing;
    uint64_t publishing_step;
    vxk_spawn_batch* spawn_batches;
    uint32_t spawn_capacity;

    // Figures (under lock).
    uint64_t applied_total, rejected_total, stalls;
    double stall_seconds, publish_seconds;
    uint32_t published_chunks, published_edits;
} edit_system;

static edit_system* system_of(const vxk_world* world)
{
    return world ? (edit_system*)world->edit.self : NULL;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_us(uint32_t us)
{
    struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};
    nanosleep(&ts, NULL);
}

// Grows an array to hold `need` elements (amortised doubling). False when out of memory.
static uint64_t box_positions(vxk_int_box b)
{
    return (uint64_t)((int64_t)b.max.x - b.min.x + 1) * (uint64_t)((int64_t)b.max.y - b.min.y + 1) *
           (uint64_t)((int64_t)b.max.z - b.min.z + 1);
}

// ---- batches ----------------------------------------------------------------------------------

static edit_batch* batch_create(uint64_t index, uint64_t first)
{
    edit_batch* b = (edit_batch*)vxk_calloc(sizeof(edit_batch));
    if (b) {
        b->index = index;
        b->first = first;
    }
    return b;
}

// Frees a batch, dropping the payload references it still holds (none after an install).
static void batch_free(edit_batch* b)
{
    for (uint32_t i = 0; i < b->state_count; ++i)
        if (b->states[i].payload)
            vxk_terrain_payload_free(b->states[i].payload);
    vxk_free(b->states, (size_t)b->state_capacity * sizeof(*b->states));
    vxk_free(b->bodies, (size_t)b->body_capacity * sizeof(*b->bodies));
    vxk_edit_debris_list_free(&b->debris);
    vxk_free(b, sizeof(*b));
}

static uint64_t batch_bytes(const edit_batch* b)
{
    return sizeof(*b) + (uint64_t)b->state_capacity * sizeof(*b->states) +
           (uint64_t)b->body_capacity * sizeof(*b->bodies) + vxk_edit_debris_list_bytes(&b->debris);
}

static bool batch_has_tickets(const edit_batch* b)
{
    return b->applied + b->rejected + b->body_count > 0;
}

// ---- the writer (apply_lock held) -------------------------------------------------------------

static void writer_read_cuts(edit_system* es)
{
    pthread_mutex_lock(&es->lock);
    uint64_t count = atomic_load_explicit(&es->cut_count, memory_order_relaxed);
    uint64_t from = VXK_MAX(es->writer_cut_count + 1, count >= CUT_RING ? count - CUT_RING + 1 : 1);
    for (uint64_t p = from; p <= count; ++p)
        es->writer_cuts[p % CUT_RING] = es->cuts[p % CUT_RING];
    es->writer_cut_count = count;
    pthread_mutex_unlock(&es->lock);
}

// Cut p, when the writer has read it. A cut is recorded only after the batch before the one it
// closes was sealed, so the writer's open batch is at least the newest cut's index minus one and
// it never needs an older cut than the newest.
static bool writer_cut(const edit_system* es, uint64_t p, uint64_t* value)
{
    if (p > es->writer_cut_count)
        return false;
    VXK_ASSERT(p + CUT_RING > es->writer_cut_count);
    *value = es->writer_cuts[p % CUT_RING];
    return true;
}

// Records the solid bits of the chunks of `chunks` that the open batch touches for the first time.
static vxk_status track_base(edit_system* es, vxk_int_box chunks)
{
    uint64_t need = (uint64_t)es->base_count + box_positions(chunks);
    if (need > (1u << 30) || !vxk_chunk_map_reserve(&es->base_map, (uint32_t)need) ||
        !vxk_grow_items((void**)&es->base, &es->base_capacity, need, sizeof(*es->base)))
        return VXK_ERR_OUT_OF_MEMORY;
    for (int64_t y = chunks.min.y; y <= chunks.max.y; ++y)
        for (int64_t z = chunks.min.z; z <= chunks.max.z; ++z)
            for (int64_t x = chunks.min.x; x <= chunks.max.x; ++x) {
                vxk_int3 c = {(int32_t)x, (int32_t)y, (int32_t)z};
                if (vxk_chunk_map_find(&es->base_map, c) != VXK_CHUNK_MAP_EMPTY)
                    continue;
                vxk_edit_removed* e = &es->base[es->base_count];
                uint64_t water[8];
                e->chunk = c;
                e->pad = 0;
                vxk_terrain_chunk_bits(&es->work, c, e->solid, water);
                bool inserted = vxk_chunk_map_insert(&es->base_map, c, es->base_count++);
                VXK_ASSERT(inserted); // reserved
                (void)inserted;
            }
    return VXK_OK;
}

static int removed_order(const void* a, const void* b)
{
    const vxk_int3 p = ((const vxk_edit_removed*)a)->chunk, q = ((const vxk_edit_removed*)b)->chunk;
    if (p.y != q.y)
        return p.y < q.y ? -1 : 1;
    if (p.z != q.z)
        return p.z < q.z ? -1 : 1;
    return p.x < q.x ? -1 : p.x > q.x;
}

// Runs the splitting and the batch hook with the voxels the open batch removed.
static vxk_status run_hook(edit_system* es, edit_batch* b, uint64_t end)
{
    if (!vxk_grow_items((void**)&es->removed, &es->removed_capacity, es->base_count,
                        sizeof(*es->removed)))
        return VXK_ERR_OUT_OF_MEMORY;
    uint32_t count = 0;
    for (uint32_t i = 0; i < es->base_count; ++i) {
        uint64_t solid[8], water[8], any = 0;
        vxk_terrain_chunk_bits(&es->work, es->base[i].chunk, solid, water);
        vxk_edit_removed* r = &es->removed[count];
        for (int w = 0; w < 8; ++w)
            any |= r->solid[w] = es->base[i].solid[w] & ~solid[w];
        if (any) {
            r->chunk = es->base[i].chunk;
            r->pad = 0;
            ++count;
        }
    }
    if (count > 1)
        qsort(es->removed, count, sizeof(*es->removed), removed_order);
    // Splitting first: the hook sees the terrain as the batch will be published. Out of memory
    // leaves the parts not yet found in the terrain (nothing is lost) and is not retried.
    if (es->splitter)
        vxk_edit_split_terrain(es->splitter, es->world->jobs, &es->work, &es->world->materials,
                               es->removed, count, es->split_finish, &b->debris);
    vxk_edit_batch_view view = {b->index,    b->first, end, &es->work, &es->world->materials,
                                es->removed, count};
    if (es->hook)
        es->hook(es->hook_ctx, &view); // its status is its own: the batch goes on either way
    return VXK_OK;
}

// Completes the open batch at `end`: the hook, the chunk states (references), the seal. Fails
// only out of memory, before anything is sealed (called again later).
static vxk_status complete_batch(edit_system* es, uint64_t end)
{
    edit_batch* b = es->open;
    uint64_t index = atomic_load_explicit(&es->open_index, memory_order_relaxed);
    // A batch with searches in progress is published even without edits, so that their parts
    // fall at a step fixed by the batches alone.
    bool tickets = batch_has_tickets(b) || vxk_edit_splitter_pending(es->splitter);
    edit_batch* next = b;
    if (tickets) {
        if ((es->hook || es->splitter) && !b->hook_done) {
            if (run_hook(es, b, end) != VXK_OK)
                return VXK_ERR_OUT_OF_MEMORY;
            b->hook_done = true;
        }
        if (!vxk_grow_items((void**)&b->states, &b->state_capacity,
                            vxk_terrain_dirty_count(&es->work), sizeof(*b->states)))
            return VXK_ERR_OUT_OF_MEMORY;
        next = batch_create(index + 1, end);
        if (!next)
            return VXK_ERR_OUT_OF_MEMORY;
        uint32_t n = 0;
        const vxk_int3* written = vxk_terrain_take_dirty(&es->work, &n);
        VXK_ASSERT(n <= b->state_capacity);
        for (uint32_t i = 0; i < n; ++i) {
            const vxk_chunk* c = vxk_terrain_find(&es->work, written[i]);
            vxk_terrain_chunk_source* s = &b->states[i];
            s->coord = written[i];
            s->payload = c ? c->payload : NULL;
            s->uniform_material = c && !c->payload ? c->uniform_material : VXK_MAT_AIR;
            if (s->payload)
                vxk_terrain_payload_retain(s->payload); // shared from now: the next write copies
        }
        b->state_count = n;
        b->end = end;
    } else {
        b->index = index + 1;
        b->first = end;
    }
    if (es->base_count) {
        vxk_chunk_map_clear(&es->base_map);
        es->base_count = 0;
    }
    es->open = next;
    atomic_store_explicit(&es->open_index, index + 1, memory_order_relaxed);
    pthread_mutex_lock(&es->lock);
    if (tickets) {
        if (es->sealed_tail)
            es->sealed_tail->next = b;
        else
            es->sealed_head = b;
        es->sealed_tail = b;
    }
    atomic_store_explicit(&es->sealed, end, memory_order_release);
    atomic_store_explicit(&es->split_carry, vxk_edit_splitter_pending(es->splitter),
                          memory_order_release);
    atomic_store_explicit(&es->completed, index + 1, memory_order_release);
    pthread_cond_broadcast(&es->sealed_cond);
    pthread_mutex_unlock(&es->lock);
    return VXK_OK;
}

// Completes every batch whose closing cut is known and whose edits were all applied.
static vxk_status writer_complete_ready(edit_system* es, bool* progressed)
{
    writer_read_cuts(es);
    uint64_t applied = atomic_load_explicit(&es->applied, memory_order_relaxed);
    for (;;) {
        uint64_t index = atomic_load_explicit(&es->open_index, memory_order_relaxed), end;
        if (!writer_cut(es, index + 1, &end) || applied < end)
            return VXK_OK;
        vxk_status status = complete_batch(es, end);
        if (status != VXK_OK)
            return status;
        *progressed = true;
    }
}

static void write_outcome(edit_system* es, uint64_t position, vxk_edit_state state,
                          vxk_status status, uint64_t batch)
{
    uint64_t step = es->step_base + batch + 2;
    vxk_edit_outcome_write(&es->queue, position, vxk_edit_outcome_info(state, status, step), false);
}

// Applies (or stages, or rejects) the edit at `position` into the open batch.
static void writer_apply(edit_system* es, uint64_t position, const vxk_edit* e)
{
    edit_batch* b = es->open;
    vxk_int_box bounds;
    vxk_status status = vxk_edit_check(e, &es->world->materials, &bounds);
    if (status == VXK_OK && !VXK_ID_IS_NULL(e->body)) {
        if (vxk_grow_items((void**)&b->bodies, &b->body_capacity, (uint64_t)b->body_count + 1,
                           sizeof(*b->bodies))) {
            b->bodies[b->body_count++] = (staged_body_edit){*e, bounds, position, VXK_OK, false};
            write_outcome(es, position, VXK_EDIT_PENDING, VXK_OK, b->index);
            return;
        }
        status = VXK_ERR_OUT_OF_MEMORY;
    }
    if (status == VXK_OK) {
        vxk_int_box chunks = vxk_edit_chunk_box(bounds);
        if (es->hook || es->splitter)
            status = track_base(es, chunks);
        // Room for the batch's chunk states now, so that completing it cannot fail for an edit.
        uint64_t states = (uint64_t)vxk_terrain_dirty_count(&es->work) + box_positions(chunks);
        if (status == VXK_OK &&
            !vxk_grow_items((void**)&b->states, &b->state_capacity, states, sizeof(*b->states)))
            status = VXK_ERR_OUT_OF_MEMORY;
        if (status == VXK_OK)
            status = vxk_edit_apply_terrain(e, &es->work, bounds);
    }
    if (status == VXK_OK)
        ++b->applied;
    else
        ++b->rejected;
    write_outcome(es, position, status == VXK_OK ? VXK_EDIT_APPLIED : VXK_EDIT_REJECTED, status,
                  b->index);
}

// One unit of the writer's work: the batches that can be completed, then the next edit below
// limit if it is queued. Returns whether it did anything; *status gets an out-of-memory failure
// of a batch completion (retried by the next call).
static bool writer_step(edit_system* es, uint64_t limit, vxk_status* status)
{
    bool progressed = false;
    uint64_t position = atomic_load_explicit(&es->applied, memory_order_relaxed);
    // Seen queued before the cuts are read: a cut recorded later lies past it.
    bool ready = position < limit && vxk_edit_queue_ready(&es->queue, position);
    *status = writer_complete_ready(es, &progressed);
    if (*status != VXK_OK || !ready)
        return progressed;
    vxk_edit edit;
    vxk_edit_queue_take(&es->queue, position, &edit);
    uint32_t delay = atomic_load_explicit(&es->test_delay_us, memory_order_relaxed);
    if (delay)
        sleep_us(delay);
    writer_apply(es, position, &edit);
    atomic_store_explicit(&es->applied, position + 1, memory_order_release);
    return true;
}

// Whether the writer thread has something to do (under lock, with sleeping set).
static bool writer_has_work(edit_system* es, bool* claimed)
{
    uint64_t applied = atomic_load_explicit(&es->applied, memory_order_seq_cst);
    *claimed = vxk_edit_queue_issued(&es->queue) > applied;
    // A cut past the open batch: its batch can complete once applied (else something is claimed).
    bool cut = atomic_load_explicit(&es->cut_count, memory_order_relaxed) >
               atomic_load_explicit(&es->open_index, memory_order_relaxed);
    return *claimed || cut || atomic_load_explicit(&es->stop, memory_order_relaxed);
}

static void* edit_thread_main(void* arg)
{
    edit_system* es = (edit_system*)arg;
    while (!atomic_load_explicit(&es->stop, memory_order_acquire)) {
        vxk_status status = VXK_OK;
        pthread_mutex_lock(&es->apply_lock);
        bool progressed = writer_step(es, UINT64_MAX, &status);
        pthread_mutex_unlock(&es->apply_lock);
        if (progressed)
            continue;
        if (status != VXK_OK) {
            // Out of memory completing a batch: a waiting publish gives up (its step fails and
            // the next one tries again); this thread tries again soon.
            pthread_mutex_lock(&es->lock);
            es->writer_failed = true;
            pthread_cond_broadcast(&es->sealed_cond);
            pthread_mutex_unlock(&es->lock);
            sleep_us(1000);
            continue;
        }
        bool claimed = false;
        pthread_mutex_lock(&es->lock);
        // seq_cst with the producers' claim (edit_queue.c): Dekker's protocol, no lost wake-up.
        atomic_store_explicit(&es->sleeping, true, memory_order_seq_cst);
        if (!writer_has_work(es, &claimed))
            pthread_cond_wait(&es->work_cond, &es->lock);
        atomic_store_explicit(&es->sleeping, false, memory_order_relaxed);
        pthread_mutex_unlock(&es->lock);
        if (claimed)
            sched_yield(); // a producer is still writing its cell
    }
    return NULL;
}

// ---- the publish (the step's thread) ----------------------------------------------------------

// Whether the first `batches` batches are completed, or will be empty when they are: their
// positions (below target) are sealed and the last completed batch carried no search over, so
// the batches left have neither edits nor splitting work. Then the publish need not wait for the
// writer to pass them. (Read completed first: a later completion only makes the rest stricter.)
static bool batches_ready(edit_system* es, uint64_t batches, uint64_t target)
{
    if (atomic_load_explicit(&es->completed, memory_order_acquire) >= batches)
        return true;
    return atomic_load_explicit(&es->sealed, memory_order_acquire) >= target &&
           !atomic_load_explicit(&es->split_carry, memory_order_acquire);
}

// Waits until the first `batches` batches are completed (every position below target, their
// end, is then sealed): for the thread, or doing the writer's work here when no thread runs.
// Counted in batches, not positions: a batch without edits may still carry splitting work.
// VXK_ERR_OUT_OF_MEMORY when a batch cannot be completed.
static vxk_status wait_sealed(edit_system* es, uint64_t batches, uint64_t target)
{
    vxk_status status = VXK_OK;
    if (es->thread_running) {
        pthread_mutex_lock(&es->lock);
        es->writer_failed = false;
        pthread_cond_signal(&es->work_cond);
        while (!batches_ready(es, batches, target) && !es->writer_failed)
            pthread_cond_wait(&es->sealed_cond, &es->lock);
        if (!batches_ready(es, batches, target))
            status = VXK_ERR_OUT_OF_MEMORY;
        pthread_mutex_unlock(&es->lock);
        return status;
    }
    pthread_mutex_lock(&es->apply_lock);
    while (status == VXK_OK && !batches_ready(es, batches, target))
        if (!writer_step(es, target, &status) && status == VXK_OK)
            sched_yield(); // a producer is still writing a cell below target
    pthread_mutex_unlock(&es->apply_lock);
    return status;
}

// Copies between a body grid and a dense box of it (to_box: grid -> box).
static void grid_box_copy(uint8_t* grid, vxk_int3 size, uint8_t* dense, vxk_int_box box,
                          bool to_box)
{
    size_t dx = (size_t)(box.max.x - box.min.x + 1), dz = (size_t)(box.max.z - box.min.z + 1);
    for (int32_t y = box.min.y; y <= box.max.y; ++y)
        for (int32_t z = box.min.z; z <= box.max.z; ++z) {
            uint8_t* row = grid + (size_t)box.min.x +
                           (size_t)size.x * ((size_t)z + (size_t)size.z * (size_t)y);
            uint8_t* run = dense + dx * ((size_t)(z - box.min.z) + dz * (size_t)(y - box.min.y));
            if (to_box)
                memcpy(run, row, dx);
            else
                memcpy(row, run, dx);
        }
}

// vxk_spawn_edit_fn: one staged edit applied to a copy of a body's grid, refusing one that would
// leave it empty. *solid is the grid's solid count, updated.
static vxk_status body_edit_on_grid(const staged_body_edit* s, uint8_t* grid, vxk_int3 size,
                                    uint64_t* solid)
{
    vxk_int_box region;
    vxk_status status = vxk_edit_clip_to_grid(&s->edit, s->bounds, size, &region);
    if (status != VXK_OK)
        return status;
    size_t n = (size_t)box_positions(region);
    uint8_t* dense = (uint8_t*)vxk_alloc(n);
    if (!dense)
        return VXK_ERR_OUT_OF_MEMORY;
    grid_box_copy(grid, size, dense, region, true);
    uint64_t before = vxk_count_solid(dense, n);
    vxk_edit_apply_dense(&s->edit, dense, region);
    uint64_t after = vxk_count_solid(dense, n);
    if (*solid - before + after == 0) {
        status = VXK_ERR_OUT_OF_RANGE; // vxk_body_set_voxels' rule: a body keeps a voxel
    } else {
        grid_box_copy(grid, size, dense, region, false);
        *solid = *solid - before + after;
    }
    vxk_free(dense, n);
    return status;
}

// Detaches the sealed batches and reserves the world's terrain and the spawn list for them; on
// failure puts them back.
static vxk_status take_sealed(edit_system* es, edit_batch** list)
{
    pthread_mutex_lock(&es->lock);
    *list = es->sealed_head;
    es->sealed_head = es->sealed_tail = NULL;
    pthread_mutex_unlock(&es->lock);
    uint64_t states = 0, batches = 0;
    for (edit_batch* b = *list; b; b = b->next) {
        states += b->state_count;
        batches++;
    }
    if (vxk_terrain_reserve_install(&es->world->terrain, states) == VXK_OK &&
        vxk_grow_items((void**)&es->spawn_batches, &es->spawn_capacity, batches,
                       sizeof(*es->spawn_batches)))
        return VXK_OK;
    pthread_mutex_lock(&es->lock);
    edit_batch* last = *list;
    while (last && last->next)
        last = last->next;
    if (last) {
        last->next = es->sealed_head;
        if (!es->sealed_head)
            es->sealed_tail = last;
        es->sealed_head = *list;
    }
    pthread_mutex_unlock(&es->lock);
    return VXK_ERR_OUT_OF_MEMORY;
}

// Installs detached batches (reserved by take_sealed) into the world's terrain and lists their
// body edits and debris for the spawn stage; the batches stay with the edit system until
// vxk_edit_publish_finish, whose outcomes take `step`.
static void install_batches(edit_system* es, edit_batch* list, uint64_t step, vxk_spawn_list* out)
{
    memset(out, 0, sizeof(*out));
    out->batches = es->spawn_batches;
    out->apply = body_edit_on_grid;
    vxk_edit_split_publish_begin(es->splitter, out);
    uint32_t chunks = 0;
    for (edit_batch* b = list; b; b = b->next) {
        vxk_terrain_install(&es->world->terrain, b->states, b->state_count);
        chunks += b->state_count;
        b->state_count = 0; // the terrain holds the references now
        out->batches[out->batch_count++] =
            (vxk_spawn_batch){b->bodies, b->body_count, b->debris.items, b->debris.count};
    }
    es->publishing = list;
    es->publishing_step = step;
    pthread_mutex_lock(&es->lock);
    es->published_chunks = chunks;
    pthread_mutex_unlock(&es->lock);
}

void vxk_edit_publish_finish(vxk_world* world, const vxk_spawn_list* spawned)
{
    edit_system* es = system_of(world);
    if (!es || !es->publishing)
        return;
    uint64_t applied = 0, rejected = 0;
    edit_batch* list = es->publishing;
    es->publishing = NULL;
    while (list) {
        edit_batch* b = list;
        list = b->next;
        applied += b->applied;
        rejected += b->rejected;
        for (uint32_t i = 0; i < b->body_count; ++i) {
            const staged_body_edit* s = &b->bodies[i];
            bool ok = s->status == VXK_OK;
            vxk_edit_outcome_write(&es->queue, s->position,
                                   vxk_edit_outcome_info(ok ? VXK_EDIT_APPLIED : VXK_EDIT_REJECTED,
                                                         s->status, es->publishing_step),
                                   true);
            ++*(ok ? &applied : &rejected);
        }
        batch_free(b);
    }
    vxk_edit_split_publish_end(es->splitter, spawned);
    pthread_mutex_lock(&es->lock);
    es->applied_total += applied;
    es->rejected_total += rejected;
    es->published_edits = (uint32_t)VXK_MIN(applied + rejected, (uint64_t)UINT32_MAX);
    pthread_mutex_unlock(&es->lock);
}

vxk_status vxk_edit_publish(vxk_world* world, vxk_spawn_list* out)
{
    memset(out, 0, sizeof(*out));
    edit_system* es = system_of(world);
    if (!es || !es->enabled)
        return VXK_OK;
    uint64_t p = atomic_load_explicit(&es->publishes, memory_order_relaxed) + 1;
    uint64_t target = p >= 2 ? es->cuts[(p - 1) % CUT_RING] : 0; // this thread wrote it
    uint64_t batches = p - 1;                                    // batches 0 .. p - 2
    double stall = 0.0;
    if (!batches_ready(es, batches, target)) {
        double start = seconds_now();
        vxk_status status = wait_sealed(es, batches, target);
        stall = seconds_now() - start;
        if (status != VXK_OK)
            return status;
    }
    edit_batch* list = NULL;
    if (take_sealed(es, &list) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    double start = seconds_now();
    // The cut: this step begins here. Read under the lock the writer reads cuts under.
    pthread_mutex_lock(&es->lock);
    es->cuts[p % CUT_RING] = vxk_edit_queue_issued(&es->queue);
    atomic_store_explicit(&es->cut_count, p, memory_order_release);
    pthread_cond_signal(&es->work_cond);
    if (stall > 0.0) {
        es->stalls++;
        es->stall_seconds += stall;
    }
    pthread_mutex_unlock(&es->lock);
    install_batches(es, list, es->step_base + p, out);
    atomic_store_explicit(&es->publishes, p, memory_order_release);
    double seconds = seconds_now() - start;
    pthread_mutex_lock(&es->lock);
    es->publish_seconds = seconds;
    pthread_mutex_unlock(&es->lock);
    return VXK_OK;
}

// ---- the subsystem ----------------------------------------------------------------------------

static void stop_thread(edit_system* es)
{
    pthread_mutex_lock(&es->lock);
    atomic_store_explicit(&es->stop, true, memory_order_release);
    pthread_cond_signal(&es->work_cond);
    pthread_mutex_unlock(&es->lock);
    pthread_join(*es->thread, NULL);
    vxk_free(es->thread, sizeof(*es->thread));
    es->thread = NULL;
    pthread_mutex_lock(&es->lock);
    es->thread_running = false;
    pthread_mutex_unlock(&es->lock);
}

// Releases what enable made (the thread is stopped).
static void release_enabled(edit_system* es)
{
    for (edit_batch* b = es->sealed_head; b;) {
        edit_batch* next = b->next;
        batch_free(b);
        b = next;
    }
    es->sealed_head = es->sealed_tail = NULL;
    if (es->open)
        batch_free(es->open);
    es->open = NULL;
    vxk_chunk_map_free(&es->base_map);
    vxk_free(es->base, (size_t)es->base_capacity * sizeof(*es->base));
    vxk_free(es->removed, (size_t)es->removed_capacity * sizeof(*es->removed));
    es->base = es->removed = NULL;
    es->base_count = es->base_capacity = es->removed_capacity = 0;
    vxk_terrain_destroy(&es->work);
    vxk_edit_queue_destroy(&es->queue);
    vxk_edit_splitter_destroy(es->splitter);
    es->splitter = NULL;
    es->split_finish = false;
    es->world->terrain.writes_frozen = false;
    es->enabled = false;
}

static void edit_destroy(void* self)
{
    edit_system* es = (edit_system*)self;
    if (es->thread_running)
        stop_thread(es);
    if (es->enabled)
        release_enabled(es);
    pthread_mutex_destroy(&es->apply_lock);
    pthread_mutex_destroy(&es->lock);
    pthread_cond_destroy(&es->work_cond);
    pthread_cond_destroy(&es->sealed_cond);
    vxk_free(es->spawn_batches, (size_t)es->spawn_capacity * sizeof(*es->spawn_batches));
    vxk_free(es, sizeof(*es));
}

static uint64_t edit_bytes(edit_system* es)
{
    if (!es->enabled)
        return 0;
    pthread_mutex_lock(&es->apply_lock);
    uint64_t bytes = vxk_edit_queue_bytes(&es->queue) + vxk_terrain_index_bytes(&es->work) +
                     vxk_chunk_map_bytes(&es->base_map) +
                     (uint64_t)(es->base_capacity + es->removed_capacity) * sizeof(*es->base) +
                     batch_bytes(es->open) + vxk_edit_splitter_bytes(es->splitter) +
                     (uint64_t)es->spawn_capacity * sizeof(*es->spawn_batches);
    pthread_mutex_lock(&es->lock);
    for (const edit_batch* b = es->sealed_head; b; b = b->next)
        bytes += batch_bytes(b);
    pthread_mutex_unlock(&es->lock);
    pthread_mutex_unlock(&es->apply_lock);
    return bytes;
}

static void edit_memory(const void* self, vxk_world_memory_stats* stats)
{
    stats->terrain_other_bytes += edit_bytes((edit_system*)self);
}

vxk_status vxk_edit_attach(vxk_world* world)
{
    edit_system* es = (edit_system*)vxk_calloc(sizeof(edit_system));
    if (!es)
        return VXK_ERR_OUT_OF_MEMORY;
    es->world = world;
    pthread_mutex_init(&es->apply_lock, NULL);
    pthread_mutex_init(&es->lock, NULL);
    pthread_cond_init(&es->work_cond, NULL);
    pthread_cond_init(&es->sealed_cond, NULL);
    world->edit = (vxk_subsystem){es, edit_destroy, edit_memory};
    return VXK_OK;
}

bool vxk_edit_enabled(const vxk_world* world)
{
    const edit_system* es = system_of(world);
    return es && es->enabled;
}

void vxk_edit_set_batch_hook(vxk_world* world, vxk_edit_batch_fn* fn, void* ctx)
{
    edit_system* es = system_of(world);
    if (!es)
        return;
    pthread_mutex_lock(&es->apply_lock);
    es->hook = fn;
    es->hook_ctx = ctx;
    vxk_chunk_map_clear(&es->base_map);
    es->base_count = 0;
    pthread_mutex_unlock(&es->apply_lock);
}

void vxk_edit_set_test_delay(vxk_world* world, uint32_t microseconds)
{
    edit_system* es = system_of(world);
    if (es)
        atomic_store_explicit(&es->test_delay_us, microseconds, memory_order_relaxed);
}

// ---- the public API -----------------------------------------------------------------------------

vxk_edit_def vxk_default_edit_def(void)
{
    vxk_edit_def def;
    memset(&def, 0, sizeof(def));
    def.cookie = EDIT_DEF_COOKIE;
    def.queue_capacity = 4096;
    def.outcome_capacity = 65536;
    def.split = true;
    def.floor_y = 0;
    def.split_margin = 32;
    def.split_budget = 1u << 20;
    return def;
}

static bool power_of_two(uint32_t v)
{
    return v && (v & (v - 1)) == 0;
}

vxk_status vxk_edit_enable(vxk_world* world, const vxk_edit_def* def)
{
    edit_system* es = system_of(world);
    if (!es || !def)
        return VXK_ERR_INVALID_ARGUMENT;
    if (def->cookie != EDIT_DEF_COOKIE)
        return VXK_ERR_BAD_DEF;
    if (!power_of_two(def->queue_capacity) || def->queue_capacity < 2 ||
        def->queue_capacity > (1u << 24) || !power_of_two(def->outcome_capacity) ||
        def->outcome_capacity < def->queue_capacity || def->outcome_capacity > (1u << 26) ||
        def->split_margin < 1 || def->split_margin > 256 || def->split_budget < 4096)
        return VXK_ERR_OUT_OF_RANGE;
    if (es->enabled)
        return VXK_ERR_UNSUPPORTED;
    if (vxk_edit_queue_init(&es->queue, def->queue_capacity, def->outcome_capacity) != VXK_OK)
        return VXK_ERR_OUT_OF_MEMORY;
    es->open = batch_create(0, 0);
    es->splitter = def->split ? vxk_edit_splitter_create(def) : NULL;
    if (!es->open || (def->split && !es->splitter) ||
        vxk_terrain_fork(&es->work, &world->terrain) != VXK_OK) {
        if (es->open)
            batch_free(es->open);
        es->open = NULL;
        vxk_edit_splitter_destroy(es->splitter);
        es->splitter = NULL;
        vxk_edit_queue_destroy(&es->queue);
        return VXK_ERR_OUT_OF_MEMORY;
    }
    es->def = *def;
    es->step_base = world->step_stats.steps;
    atomic_store(&es->open_index, 0);
    es->writer_cut_count = 0;
    atomic_store(&es->cut_count, 0);
    atomic_store(&es->sealed, 0);
    atomic_store(&es->completed, 0);
    atomic_store(&es->split_carry, false);
    atomic_store(&es->applied, 0);
    atomic_store(&es->publishes, 0);
    atomic_store(&es->sleeping, false);
    atomic_store(&es->stop, false);
    es->applied_total = es->rejected_total = es->stalls = 0;
    es->stall_seconds = es->publish_seconds = 0.0;
    es->published_chunks = es->published_edits = 0;
    world->terrain.writes_frozen = true;
    es->enabled = true;
    return VXK_OK;
}

vxk_status vxk_edit_disable_begin(vxk_world* world, vxk_spawn_list* out)
{
    memset(out, 0, sizeof(*out));
    edit_system* es = system_of(world);
    if (!es)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!es->enabled)
        return VXK_ERR_UNSUPPORTED;
    if (es->thread_running)
        stop_thread(es);
    // Everything submitted, applied; the open batch ends with it, cut or not.
    pthread_mutex_lock(&es->apply_lock);
    uint64_t limit = vxk_edit_queue_issued(&es->queue);
    vxk_status status = VXK_OK;
    while (atomic_load_explicit(&es->applied, memory_order_relaxed) < limit) {
        if (!writer_step(es, limit, &status)) {
            if (status != VXK_OK)
                break;
            sched_yield();
        }
    }
    es->split_finish = true; // the last batch ends every search
    if (status == VXK_OK)
        status = complete_batch(es, limit);
    es->split_finish = false;
    pthread_mutex_unlock(&es->apply_lock);
    edit_batch* list = NULL;
    if (status == VXK_OK)
        status = take_sealed(es, &list);
    if (status != VXK_OK)
        return status;
    uint64_t p = atomic_load_explicit(&es->publishes, memory_order_relaxed);
    install_batches(es, list, es->step_base + p + 1, out);
    return VXK_OK;
}

void vxk_edit_disable_end(vxk_world* world)
{
    edit_system* es = system_of(world);
    if (es && es->enabled)
        release_enabled(es);
}

vxk_status vxk_edit_thread_start(vxk_world* world)
{
    edit_system* es = system_of(world);
    if (!es)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!es->enabled || es->thread_running)
        return VXK_ERR_UNSUPPORTED;
    atomic_store_explicit(&es->stop, false, memory_order_relaxed);
    es->thread = (pthread_t*)vxk_alloc(sizeof(pthread_t));
    if (!es->thread)
        return VXK_ERR_OUT_OF_MEMORY;
    if (pthread_create(es->thread, NULL, edit_thread_main, es) != 0) {
        vxk_free(es->thread, sizeof(*es->thread));
        es->thread = NULL;
        return VXK_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&es->lock);
    es->thread_running = true;
    pthread_mutex_unlock(&es->lock);
    return VXK_OK;
}

vxk_status vxk_edit_thread_stop(vxk_world* world)
{
    edit_system* es = system_of(world);
    if (!es)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!es->enabled || !es->thread_running)
        return VXK_ERR_UNSUPPORTED;
    stop_thread(es);
    return VXK_OK;
}

vxk_status vxk_edit_run(vxk_world* world, uint32_t max_edits, uint32_t* applied)
{
    edit_system* es = system_of(world);
    if (applied)
        *applied = 0;
    if (!es)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!es->enabled)
        return VXK_ERR_UNSUPPORTED;
    uint64_t limit = vxk_edit_queue_issued(&es->queue);
    uint32_t done = 0;
    vxk_status status = VXK_OK;
    while ((max_edits == 0 || done < max_edits) && status == VXK_OK) {
        pthread_mutex_lock(&es->apply_lock);
        uint64_t before = atomic_load_explicit(&es->applied, memory_order_relaxed);
        bool progressed = writer_step(es, limit, &status);
        done += atomic_load_explicit(&es->applied, memory_order_relaxed) > before;
        pthread_mutex_unlock(&es->apply_lock);
        if (!progressed && status == VXK_OK) {
            if (before >= limit)
                break;
            sched_yield(); // a producer is still writing a cell below limit
        }
    }
    if (applied)
        *applied = done;
    return status;
}

vxk_status vxk_edit_submit(vxk_world* world, uint64_t* ticket, const vxk_edit* edit,
                           uint32_t timeout_us)
{
    edit_system* es = system_of(world);
    if (!es || !ticket || !edit)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!es->enabled)
        return VXK_ERR_UNSUPPORTED;
    uint64_t position;
    vxk_status status = vxk_edit_queue_push(&es->queue, edit, &position, timeout_us);
    if (status != VXK_OK)
        return status;
    *ticket = position + 1;
    if (atomic_load_explicit(&es->sleeping, memory_order_seq_cst)) {
        pthread_mutex_lock(&es->lock);
        pthread_cond_signal(&es->work_cond);
        pthread_mutex_unlock(&es->lock);
    }
    return VXK_OK;
}

vxk_status vxk_edit_get_outcome(const vxk_world* world, vxk_edit_outcome* out, uint64_t ticket)
{
    edit_system* es = system_of(world);
    if (!es || !out)
        return VXK_ERR_INVALID_ARGUMENT;
    if (!es->enabled)
        return VXK_ERR_UNSUPPORTED;
    if (ticket == 0 || ticket > vxk_edit_queue_issued(&es->queue))
        return VXK_ERR_OUT_OF_RANGE;
    uint64_t info = 0;
    int found = vxk_edit_outcome_read(&es->queue, ticket - 1, &info);
    if (found < 0)
        return VXK_ERR_STALE_ID;
    *out = (vxk_edit_outcome){VXK_EDIT_PENDING, VXK_OK, 0};
    vxk_edit_state state = (vxk_edit_state)(info & 3);
    uint64_t step = info >> 8;
    uint64_t published = es->step_base + atomic_load_explicit(&es->publishes, memory_order_acquire);
    if (found > 0 && state != VXK_EDIT_PENDING && step <= published)
        *out = (vxk_edit_outcome){state, (vxk_status)((info >> 2) & 63), step};
    return VXK_OK;
}

uint32_t vxk_edit_get_split_events(const vxk_world* world, vxk_edit_split_event* out,
                                   uint32_t capacity)
{
    edit_system* es = system_of(world);
    if (!es || !es->enabled)
        return 0;
    return vxk_edit_split_events(es->splitter, out, capacity);
}

void vxk_edit_get_stats(const vxk_world* world, vxk_edit_stats* out)
{
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    edit_system* es = system_of(world);
    if (!es || !es->enabled)
        return;
    out->enabled = true;
    out->submitted = vxk_edit_queue_issued(&es->queue);
    out->processed = atomic_load_explicit(&es->applied, memory_order_acquire);
    out->queue_depth =
        out->processed < out->submitted ? (uint32_t)(out->submitted - out->processed) : 0;
    out->capacity_refusals = atomic_load_explicit(&es->queue.refusals, memory_order_relaxed);
    out->publishes = atomic_load_explicit(&es->publishes, memory_order_acquire);
    out->bytes = edit_bytes(es);
    vxk_edit_split_stats(es->splitter, out);
    pthread_mutex_lock(&es->lock);
    out->thread_running = es->thread_running;
    out->applied = es->applied_total;
    out->rejected = es->rejected_total;
    out->stalls = es->stalls;
    out->stall_seconds = es->stall_seconds;
    out->publish_seconds = es->publish_seconds;
    out->published_chunks = es->published_chunks;
    out->published_edits = es->published_edits;
    // Steps begun since the oldest edit not yet taken was queued: cuts past it.
    uint64_t count = atomic_load_explicit(&es->cut_count, memory_order_relaxed);
    if (out->processed < out->submitted)
        for (uint64_t p = count; p >= 1 && p + CUT_RING > count; --p)
            out->lag_steps += es->cuts[p % CUT_RING] > out->processed;
    pthread_mutex_unlock(&es->lock);
}
