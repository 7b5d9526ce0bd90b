// trace.c: export of the per-thread job trace rings as Chrome trace event JSON (complete "X"
// events in microseconds, thread_name metadata) and a per-name summary (count, total, mean).
#include "jobs_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Events of one thread's ring, oldest first: first index and count.
static void ring_range(const vxk_jobs* jobs, const vxk_jobs_thread* t, uint64_t* first,
                       uint64_t* count)
{
    uint64_t n = t->trace_written < jobs->trace_capacity ? t->trace_written : jobs->trace_capacity;
    *first = t->trace_written - n;
    *count = n;
}

static void write_json_string(FILE* f, const char* s)
{
    fputc('"', f);
    for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int vxk_jobs_write_trace(const vxk_jobs* jobs, const char* path)
{
    if (!jobs || !path)
        return -1;
    FILE* f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"traceEvents\":[\n");
    bool first_event = true;
    for (uint32_t i = 0; i < jobs->thread_count; ++i) {
        const char* kind = i == 0 ? "main" : i < jobs->worker_count ? "worker" : "external";
        fprintf(f,
                "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                "\"args\":{\"name\":\"%s %u\"}}",
                first_event ? "" : ",\n", i, kind, i);
        first_event = false;
    }
    for (uint32_t i = 0; i < jobs->thread_count && jobs->trace_capacity; ++i) {
        const vxk_jobs_thread* t = &jobs->threads[i];
        uint64_t first, count;
        ring_range(jobs, t, &first, &count);
        for (uint64_t k = first; k < first + count; ++k) {
            const vxk_trace_event* e = &t->trace[k % jobs->trace_capacity];
            double ts = (double)(int64_t)(e->start_ns - jobs->trace_base_ns) * 1e-3;
            double dur = (double)(e->end_ns - e->start_ns) * 1e-3;
            fprintf(f, ",\n{\"name\":");
            write_json_string(f, e->name);
            fprintf(f, ",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}", i, ts, dur);
        }
    }
    fprintf(f, "\n],\"displayTimeUnit\":\"ns\"}\n");
    int status = ferror(f) ? -1 : 0;
    if (fclose(f) != 0)
        status = -1;
    return status;
}

typedef struct summary_entry {
    const char* name;
    uint64_t count;
    uint64_t total_ns;
} summary_entry;

static uint64_t name_hash(const char* s)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (; *s; ++s)
        h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
    return h;
}

static int compare_entries(const void* a, const void* b)
{
    const summary_entry* x = a;
    const summary_entry* y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

uint32_t vxk_jobs_get_summaries(const vxk_jobs* jobs, vxk_job_summary* out, uint32_t capacity)
{
    if (!jobs || !jobs->trace_capacity)
        return 0;
    uint64_t events = 0;
    for (uint32_t i = 0; i < jobs->thread_count; ++i) {
        uint64_t first, count;
        ring_range(jobs, &jobs->threads[i], &first, &count);
        events += count;
    }
    // Open addressing keyed by the name's text (equal strings at different addresses merge).
    size_t table_size = 64;
    while (table_size < 2 * events)
        table_size *= 2;
    summary_entry* table =
        vxk_jobs_mem_alloc(&jobs->allocator, table_size * sizeof(summary_entry), true);
    if (!table)
        return 0;
    uint32_t names = 0;
    for (uint32_t i = 0; i < jobs->thread_count; ++i) {
        const vxk_jobs_thread* t = &jobs->threads[i];
        uint64_t first, count;
        ring_range(jobs, t, &first, &count);
        for (uint64_t k = first; k < first + count; ++k) {
            const vxk_trace_event* e = &t->trace[k % jobs->trace_capacity];
            size_t slot = (size_t)name_hash(e->name) & (table_size - 1);
            while (table[slot].name && strcmp(table[slot].name, e->name) != 0)
                slot = (slot + 1) & (table_size - 1);
            if (!table[slot].name) {
                table[slot].name = e->name;
                ++names;
            }
            ++table[slot].count;
            table[slot].total_ns += e->end_ns - e->start_ns;
        }
    }
    size_t used = 0;
    for (size_t s = 0; s < table_size; ++s) {
        if (table[s].name)
            table[used++] = table[s];
    }
    qsort(table, used, sizeof(summary_entry), compare_entries);
    for (uint32_t i = 0; i < capacity && i < used && out; ++i) {
        out[i].name = table[i].name;
        out[i].count = table[i].count;
        out[i].total_seconds = (double)table[i].total_ns * 1e-9;
        out[i].mean_seconds = out[i].total_seconds / (double)table[i].count;
    }
    vxk_jobs_mem_free(&jobs->allocator, table, table_size * sizeof(summary_entry));
    return names;
}

void vxk_jobs_clear_trace(vxk_jobs* jobs)
{
    if (!jobs)
        return;
    for (uint32_t i = 0; i < jobs->thread_count; ++i)
        jobs->threads[i].trace_written = 0;
    jobs->trace_base_ns = vxk_jobs_now_ns();
}
