// jobs_internal.h: the scheduler's private state shared by jobs.c, trace.c and scratch.c:
// job slots with generation-checked state words, per-thread state (deque, free-index caches,
// scratch arena, trace ring) and the sleep/wake words.
#ifndef VXK_JOBS_INTERNAL_H
#define VXK_JOBS_INTERNAL_H

#include <vxk/jobs.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "deque.h"

#define VXK_JOBS_NIL UINT32_MAX
#define VXK_JOBS_WALK_START (UINT32_MAX - 1)
#define VXK_JOBS_COOKIE 0x4A4F4253u
// Per-thread free-index cache; half of it moves to or from the global stack at a time.
#define VXK_JOBS_CACHE 128
#define VXK_JOBS_BATCH (VXK_JOBS_CACHE / 2)

// One job (64 bytes, one cache line). state = generation << 32 | head of the continuation list.
// Finishing a job swaps in the next generation, which at once marks handles of the old one done
// and makes late continuation pushes fail (they compare the generation too).
//
// A job is run by whoever claims it: `ready` holds its generation from the moment it is ready
// until one thread swaps it to 0 (a queue pop, or a wait that reaches it through a handle, a
// group or a dependency list). Queues may therefore hold stale indices; a pop that finds
// `ready` at 0 skips its entry.
typedef struct vxk_job_slot {
    vxk_job_fn* fn;
    void* ctx;
    const char* name;
    _Atomic(vxk_job_group*) group; // read by waits scanning queues for members
    _Atomic uint64_t state;
    _Atomic uint32_t pending; // unfinished dependencies + 1 while the submitter attaches them
    _Atomic uint32_t ready;   // generation while ready and unclaimed, else 0
    _Atomic uint32_t deps;    // this job's dependency list (links), VXK_JOBS_NIL when none
    uint32_t group_prev;      // the group's list of members with dependencies, slot index + 1
    uint32_t group_next;      // (0: none), under the group's lock
    uint32_t listed;          // whether this job is in its group's list
} vxk_job_slot;
_Static_assert(sizeof(vxk_job_slot) == 64, "a job slot is one cache line");

// A continuation: `job` waits for the job whose list holds this node.
typedef struct vxk_job_node {
    uint32_t job;
    uint32_t next;
} vxk_job_node;

// One entry of a job's dependency list: the handle of a dependency that was unfinished when the
// job was submitted. Written before the list is published, freed when the job finishes; a reader
// that walks a list re-checks the owner's generation after each read (a seqlock).
typedef struct vxk_job_link {
    _Atomic uint32_t index;
    _Atomic uint32_t generation;
    _Atomic uint32_t next;
} vxk_job_link;

// Indices of a pool (job slots or nodes): a per-thread cache in front of a global stack under a
// mutex, in front of a bump counter over never-used indices.
typedef struct vxk_index_pool {
    pthread_mutex_t lock;
    uint32_t* stack;
    uint32_t stack_count;
    uint32_t capacity;
    _Atomic uint32_t bump;
    const vxk_jobs_allocator* allocator;
} vxk_index_pool;

typedef struct vxk_index_cache {
    uint32_t count;
    uint32_t items[VXK_JOBS_CACHE];
} vxk_index_cache;

typedef struct vxk_trace_event {
    const char* name;
    uint64_t start_ns;
    uint64_t end_ns;
} vxk_trace_event;

// Scratch of the dependency walk of a wait inside a job (see jobs.c, closure_find): a DFS stack
// and a visited set of handles cleared by bumping a stamp.
typedef struct vxk_walk_frame {
    uint32_t index;
    uint32_t generation;
    uint32_t cursor; // next link to read; VXK_JOBS_WALK_START before the job was examined
} vxk_walk_frame;

typedef struct vxk_walk {
    vxk_walk_frame* stack;
    uint32_t stack_capacity;
    uint64_t* seen_keys; // generation << 32 | index
    uint32_t* seen_stamps;
    uint32_t seen_capacity; // a power of two
    uint32_t seen_count;
    uint32_t stamp;
} vxk_walk;

typedef struct vxk_jobs_thread {
    _Alignas(64) vxk_deque deque; // workers only
    struct vxk_jobs* owner;
    uint32_t index;
    uint32_t nest;        // job runs inside waits: 0 outside every job
    uint32_t stack_depth; // job runs inside waits on the current stack (bounded)
    uint64_t rng;         // victim selection
    vxk_index_cache slot_cache;
    vxk_index_cache node_cache;
    vxk_index_cache link_cache;
    vxk_walk walk;
    _Atomic uint64_t submitted; // written by this thread only
    _Atomic uint64_t finished;  // written by this thread only
    unsigned char* scratch;
    size_t scratch_top;
    vxk_trace_event* trace;
    uint64_t trace_written; // total events recorded; the ring keeps the last trace_capacity
    pthread_t thread;       // the thread owning this index (under external_lock)
    pthread_t handle;       // background workers: the join handle (creator only)
    bool started;
    bool in_use; // external slots: held by a live thread (under external_lock)
} vxk_jobs_thread;

struct vxk_jobs {
    uint64_t uid; // distinguishes schedulers in the thread-local index cache
    vxk_jobs_allocator allocator;
    size_t slots_bytes;
    uint32_t worker_count;
    uint32_t thread_count;
    uint32_t spin_count;
    uint32_t trace_capacity;
    size_t scratch_bytes;
    uint64_t trace_base_ns;

    vxk_job_slot* slots; // 64-byte aligned inside slots_memory
    void* slots_memory;
    vxk_job_node* nodes;
    vxk_job_link* links;
    vxk_index_pool slot_pool;
    vxk_index_pool node_pool;
    vxk_index_pool link_pool;
    vxk_jobs_thread* threads;
    struct vxk_jobs* next_live; // the registry of live schedulers (thread-exit release)

    // External slots: a thread takes a free one on first use and gives it back when it exits
    // (a pthread key destructor). The last slot, `shared`, serves the threads that find none
    // free, one call at a time under shared_lock.
    pthread_mutex_t external_lock;
    pthread_key_t exit_key;
    uint32_t shared;
    pthread_mutex_t shared_lock;

    // Injection queue (MPMC ring under a mutex) for jobs made ready on non-worker threads.
    pthread_mutex_t inject_lock;
    uint32_t* inject_items;
    uint32_t inject_capacity; // a power of two
    uint32_t inject_head;
    _Atomic uint32_t inject_count;

    // Sleep/wake: idle workers sleep on work_epoch, blocked waiters on done_epoch. A waker
    // touches the futex only when the matching sleeper count is non-zero.
    _Alignas(64) _Atomic uint32_t work_epoch;
    _Atomic uint32_t sleeping_workers;
    _Alignas(64) _Atomic uint32_t done_epoch;
    _Atomic uint32_t sleeping_waiters;
    _Alignas(64) _Atomic bool stop;
};

static inline void vxk_jobs_trace_record(vxk_jobs* jobs, vxk_jobs_thread* self, const char* name,
                                         uint64_t start_ns, uint64_t end_ns)
{
    vxk_trace_event* e = &self->trace[self->trace_written % jobs->trace_capacity];
    e->name = name ? name : "job";
    e->start_ns = start_ns;
    e->end_ns = end_ns;
    ++self->trace_written;
}

#endif
