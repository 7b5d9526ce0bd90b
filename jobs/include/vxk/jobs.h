// vxk/jobs.h: a fiber-free job scheduler on pthreads.
//
// Workers are pthreads with per-worker Chase-Lev deques and work stealing; threads that are not
// workers submit through an injection queue. A thread that waits runs other ready jobs while it
// waits, so jobs may wait on jobs (also nested) without fibers and without deadlock. Idle workers
// sleep after a short bounded spin. Each worker records (name, start, end) of the jobs it runs in
// a ring buffer that exports as Chrome trace event JSON.
//
// Thread indices: the thread that creates the scheduler is thread 0; background workers are
// 1..worker_count-1; threads that are neither (an edit thread, say) get indices from
// worker_count up to vxk_jobs_thread_count()-1 the first time they submit or wait. Every callback
// receives the index of the thread that runs it, so per-thread scratch can be an array of
// vxk_jobs_thread_count() entries.
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

// A group counts unfinished jobs submitted into it. Initialise with vxk_job_group_init (or zero
// it); wait with vxk_jobs_wait_group. The group must outlive the jobs submitted into it: it may
// be dropped once vxk_jobs_wait_group returned, or once vxk_jobs_wait returned for every one of
// them (a job leaves its group before its handle reads finished).
typedef struct vxk_job_group {
    volatile uint32_t pending_do_not_touch; // accessed atomically by the scheduler
    uint32_t reserved;
} vxk_job_group;

// fn(ctx, thread): thread is the index of the running thread, < vxk_jobs_thread_count().
typedef void vxk_job_fn(void* ctx, uint32_t thread);

// fn(ctx, begin, end, thread): one piece [begin, end) of a parallel_for.
typedef void vxk_range_fn(void* ctx, uint32_t begin, uint32_t end, uint32_t thread);

typedef struct vxk_jobs_def {
    uint32_t cookie;       // set by vxk_default_jobs_def; a def not made by it is rejected
    uint32_t worker_count; // threads that run jobs, the creating thread included; 0 = all cores.
                           // 1 = no background thread: jobs run inline on the thread that
                           // waits, in submission order, deterministically.
    uint32_t external_threads; // extra thread slots for non-worker threads (default 8)
    uint32_t max_jobs;         // capacity of live (unfinished or unwaited) jobs (default 1<<20)
    size_t scratch_bytes;      // per-thread scratch arena size (default 4 MiB)
    uint32_t trace_capacity;   // per-thread trace ring entries; 0 disables tracing (default 0)
    uint32_t spin_count;       // spins before an idle worker sleeps (default 2000)
} vxk_jobs_def;

vxk_jobs_def vxk_default_jobs_def(void);

// Returns 0 on success; a negative value for a bad def (-1) or out of memory (-2).
int vxk_jobs_create(const vxk_jobs_def* def, vxk_jobs** out);
// Waits for every submitted job to finish (running jobs meanwhile), then joins the workers.
// No other thread may be inside a vxk_jobs call, nor call one later.
void vxk_jobs_destroy(vxk_jobs* jobs);

uint32_t vxk_jobs_worker_count(const vxk_jobs* jobs);
// Number of distinct thread indices callbacks may receive (workers + external slots).
uint32_t vxk_jobs_thread_count(const vxk_jobs* jobs);
// Index of the calling thread (registers an external thread on first call). Returns UINT32_MAX
// when all external slots are taken.
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
// only when max_jobs live jobs exist already (the caller may wait and retry), for a bad desc
// (NULL, no fn, dep_count > 0 with deps NULL), or when the calling thread cannot get an index
// (all external slots taken). Cost: O(dep_count), no allocation once the pools are warm.
vxk_job vxk_jobs_submit(vxk_jobs* jobs, const vxk_job_desc* desc);

// Waits for one job; runs other ready jobs meanwhile. Thread-safe.
void vxk_jobs_wait(vxk_jobs* jobs, vxk_job job);

void vxk_job_group_init(vxk_job_group* group);
// Waits until every job submitted into the group has finished; runs other jobs meanwhile.
void vxk_jobs_wait_group(vxk_jobs* jobs, vxk_job_group* group);

// Runs fn over [0, count) in pieces [k*grain, min((k+1)*grain, count)), k = 0..pieces-1, and
// returns when all are done. The cut depends only on count and grain, never on the worker count,
// so outputs kept per piece (index begin/grain) and merged in piece order are identical for any
// number of threads. grain 0 is taken as 1. Callable from inside jobs (nested). A thread that
// cannot get an index (all external slots taken) runs the pieces inline with thread UINT32_MAX.
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
// Fills up to capacity summaries sorted by total time, descending; returns how many names exist.
uint32_t vxk_jobs_summary(const vxk_jobs* jobs, vxk_job_summary* out, uint32_t capacity);
void vxk_jobs_clear_trace(vxk_jobs* jobs);

// Monotonic clock in nanoseconds (the clock the trace uses).
uint64_t vxk_jobs_now_ns(void);

#ifdef __cplusplus
}
#endif
#endif
