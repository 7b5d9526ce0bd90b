// vxk/jobs.h: a fiber-free job scheduler on pthreads.
//
// Workers are pthreads with per-worker Chase-Lev deques and work stealing; threads that are not
// workers submit through an injection queue. Idle workers sleep after a short bounded spin. Each
// thread records (name, start, end) of the jobs it runs in a ring buffer that exports as Chrome
// trace event JSON.
//
// What the scheduler guarantees:
// - Waits run work. A wait made outside every job (a thread's own code) runs any ready job
//   until the awaited one is done. A wait made inside a job runs only jobs that the awaited job
//   (or group) needs: the job itself, its dependencies, theirs, and so on (for a group: its
//   unfinished members and what they need). So jobs may wait on jobs, nested to any depth, and
//   every wait returns, provided the wait graph is acyclic (no job waits, directly or through
//   dependencies and other waits, on itself). No other thread needs to be free for that: a
//   waiting thread can finish all the awaited job needs by itself.
// - Bounded stacks. At most 64 jobs run nested inside waits on one stack (about a few hundred
//   bytes of scheduler frames each, plus the jobs' own). A wait at that depth that has a job to
//   run continues on a new thread's stack, under the same thread index, while the waiting thread
//   sleeps in pthread_join; the new thread ends when the wait is over. So a chain of 60,000 jobs
//   that each wait on a child uses about 940 short-lived threads, never a deep stack. If that
//   thread cannot be created the wait returns VXK_JOBS_ERR_NESTING with the job not done.
// - Any thread may call in. Thread indices: the creating thread is 0; background workers are
//   1..worker_count-1; other threads take one of `external_threads` slots on first use and give
//   it back when they exit (a thread-exit destructor). While every external slot is held by a
//   live thread, further threads share the last index (vxk_jobs_thread_count() - 1): their calls
//   are correct but run one at a time. So every callback gets a thread < vxk_jobs_thread_count(),
//   and per-thread scratch can be a plain array of that many entries.
//
// This library depends on nothing else in vxk.
#ifndef VXK_JOBS_H
#define VXK_JOBS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vxk_jobs vxk_jobs;

// Generation-checked job handle. {0,0} is null; waiting on null or on a finished job returns at
// once. A handle stays valid to wait on after its job finished (the generation tells).
typedef struct vxk_job {
    uint32_t index;
    uint32_t generation;
} vxk_job;

// A group counts the unfinished jobs submitted into it (and lists those with dependencies).
// Initialise with vxk_job_group_init (or zero it); wait with vxk_jobs_wait_group. The group must
// outlive the jobs submitted into it: it may be dropped once vxk_jobs_wait_group returned, or once
// vxk_jobs_wait returned for every one of them (a job leaves its group before its handle reads
// finished).
typedef struct vxk_job_group {
    uint32_t pending_do_not_touch; // the fields are the scheduler's, accessed atomically
    uint32_t lock_do_not_touch;
    uint32_t head_do_not_touch;
    uint32_t tail_do_not_touch;
} vxk_job_group;

// Results of waits (and of vxk_jobs_create, below), with the values of vxk_status.
#define VXK_JOBS_OK 0
// A wait at the nesting cap could not start the thread to continue on; the job is not done.
#define VXK_JOBS_ERR_NESTING 13

// fn(ctx, thread): thread is the index of the running thread, < vxk_jobs_thread_count().
typedef void vxk_job_fn(void* ctx, uint32_t thread);

// fn(ctx, begin, end, thread): one piece [begin, end) of a parallel_for.
typedef void vxk_range_fn(void* ctx, uint32_t begin, uint32_t end, uint32_t thread);

// Every allocation of a scheduler goes through this hook (the kernel's vxk_allocator has the
// same shape; a world passes its hook to the scheduler it creates). NULL functions: malloc/free.
// Thread stacks are the system's.
typedef struct vxk_jobs_allocator {
    void* (*alloc)(size_t size, void* user); // 16-byte aligned or better; NULL on failure
    void (*free)(void* pointer, size_t size, void* user);
    void* user;
} vxk_jobs_allocator;

// Status codes of this library: the values of the vxk_status codes of the same names.
#define VXK_JOBS_ERR_INVALID_ARGUMENT 1
#define VXK_JOBS_ERR_BAD_DEF 2
#define VXK_JOBS_ERR_OUT_OF_MEMORY 7

typedef struct vxk_jobs_def {
    uint32_t cookie;       // set by vxk_default_jobs_def; a def not made by it is rejected
    uint32_t worker_count; // threads that run jobs, the creating thread included; 0 = all cores.
                           // 1 = no background thread: jobs run inline on the thread that
                           // waits, in submission order, deterministically.
    uint32_t external_threads;    // slots for non-worker threads alive at once (default 8), plus
                                  // one shared by the threads beyond them
    uint32_t max_jobs;            // capacity of live (unfinished or unwaited) jobs (default 1<<20)
    size_t scratch_bytes;         // per-thread scratch arena size (default 4 MiB)
    uint32_t trace_capacity;      // per-thread trace ring entries; 0 disables tracing (default 0)
    uint32_t spin_count;          // spins before an idle worker sleeps (default 2000)
    vxk_jobs_allocator allocator; // default: malloc/free
} vxk_jobs_def;

vxk_jobs_def vxk_default_jobs_def(void);

// Returns VXK_JOBS_OK and *out, or: NULL def or out -> VXK_JOBS_ERR_INVALID_ARGUMENT; a def not
// made by vxk_default_jobs_def, max_jobs 0 or above 2^25, more than 1024 workers or external
// threads, trace_capacity above 2^24, an allocator with only one of its functions ->
// VXK_JOBS_ERR_BAD_DEF; VXK_JOBS_ERR_OUT_OF_MEMORY (also when a thread cannot be started).
int vxk_jobs_create(const vxk_jobs_def* def, vxk_jobs** out);
// Waits for every submitted job to finish (running jobs meanwhile), then joins the workers.
// No other thread may be inside a vxk_jobs call, nor call one later.
void vxk_jobs_destroy(vxk_jobs* jobs);

uint32_t vxk_jobs_worker_count(const vxk_jobs* jobs);
// Number of distinct thread indices callbacks may receive: workers + external slots + 1 shared.
uint32_t vxk_jobs_thread_count(const vxk_jobs* jobs);
// Index of the calling thread (takes a free external slot on first call; the slot comes back
// when the thread exits). Inside a callback: the index the callback got. Outside, UINT32_MAX
// when every external slot is held by a live thread (the thread's calls then share the last
// index, one at a time).
uint32_t vxk_jobs_thread_index(vxk_jobs* jobs);

typedef struct vxk_job_desc {
    const char* name; // static string, shown in traces and summaries
    vxk_job_fn* fn;
    void* ctx;
    const vxk_job* deps; // jobs that must finish before this one starts (may be null handles)
    uint32_t dep_count;
    vxk_job_group* group; // optional
} vxk_job_desc;

// Submits a job. Thread-safe; callable from jobs and from any thread. Returns the null handle
// only when max_jobs live jobs exist already (the caller may wait and retry) or for a bad desc
// (NULL, no fn, dep_count > 0 with deps NULL). Cost: O(dep_count), no allocation once the pools
// are warm.
vxk_job vxk_jobs_submit(vxk_jobs* jobs, const vxk_job_desc* desc);

// Waits for one job, running jobs meanwhile as the guarantees at the top say. Thread-safe.
// Returns VXK_JOBS_OK once the job is done, or VXK_JOBS_ERR_NESTING (see above). Inside a job,
// cost per job run: a walk over the awaited job's unfinished dependencies (usually one step).
int vxk_jobs_wait(vxk_jobs* jobs, vxk_job job);

void vxk_job_group_init(vxk_job_group* group);
// Waits until every job submitted into the group has finished; as vxk_jobs_wait otherwise.
// A group may be submitted into again once every wait on it returned.
int vxk_jobs_wait_group(vxk_jobs* jobs, vxk_job_group* group);

// Runs fn over [0, count) in pieces [k*grain, min((k+1)*grain, count)), k = 0..pieces-1, and
// returns when all are done. The cut depends only on count and grain, never on the worker count,
// so outputs kept per piece (index begin/grain) and merged in piece order are identical for any
// number of threads. grain 0 is taken as 1. Callable from inside jobs (nested) and from any
// thread; fn always gets a thread index < vxk_jobs_thread_count(). At the nesting cap the
// caller runs every piece itself.
void vxk_parallel_for(vxk_jobs* jobs, const char* name, uint32_t count, uint32_t grain,
                      vxk_range_fn* fn, void* ctx);
static inline uint32_t vxk_parallel_for_pieces(uint32_t count, uint32_t grain)
{
    grain = grain ? grain : 1;
    return (uint32_t)(((uint64_t)count + grain - 1) / grain);
}

// Per-thread scratch arena: a stack. A job takes a mark, allocates, and releases to its mark
// before it returns (jobs that run nested inside a wait on the same thread stack above it).
// Returns NULL when the arena is exhausted. Only the owning thread may use its arena.
size_t vxk_jobs_scratch_mark(vxk_jobs* jobs, uint32_t thread);
void* vxk_jobs_scratch_alloc(vxk_jobs* jobs, uint32_t thread, size_t size, size_t align);
void vxk_jobs_scratch_release(vxk_jobs* jobs, uint32_t thread, size_t mark);

// Profiling (when trace_capacity > 0). Records are kept per thread in a ring buffer (oldest
// dropped first). Call these while no job runs.
typedef struct vxk_job_summary {
    const char* name;
    uint64_t count;
    double total_seconds;
    double mean_seconds;
} vxk_job_summary;
// Writes Chrome trace event JSON ("traceEvents", complete events "ph":"X", one tid per thread)
// that Perfetto and chrome://tracing open. Returns 0, or -1 if the file cannot be written.
int vxk_jobs_write_trace(const vxk_jobs* jobs, const char* path);
// The summary of each job name, sorted by total time, descending: writes up to capacity to out
// (out may be NULL when capacity is 0) and returns how many names there are (0 when tracing is
// off or the call runs out of memory).
uint32_t vxk_jobs_get_summaries(const vxk_jobs* jobs, vxk_job_summary* out, uint32_t capacity);
void vxk_jobs_clear_trace(vxk_jobs* jobs);
// Records a span of the caller's own work (a stage of a step) on the calling thread's trace,
// from begin_ns to end_ns (vxk_jobs_now_ns), so that traces show the stages around the jobs
// they run. Does nothing when tracing is off or jobs is NULL.
void vxk_jobs_trace_span(vxk_jobs* jobs, const char* name, uint64_t begin_ns, uint64_t end_ns);

// Monotonic clock in nanoseconds (the clock the trace uses).
uint64_t vxk_jobs_now_ns(void);

#ifdef __cplusplus
}
#endif
#endif
