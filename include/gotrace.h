/* gotrace.h: the annotations API of gotrace (docs/annotations.md): mark the work a program
 * does as Go user tasks, regions and logs on the trace's timeline.
 *
 * Usage: include this header and call the functions; link nothing. Under
 * LD_PRELOAD=libgotrace.so the calls reach the tracer; without it they do nothing and cost a
 * load and a branch (each gotrace_impl_* symbol is a weak reference, resolved by the dynamic
 * linker to the preloaded library's definition, and NULL when it is absent). Needs a dynamic,
 * position-independent executable (the default of Debian's gcc); with -no-pie the static
 * linker resolves the weak references to NULL and the calls stay no-ops even when traced.
 *
 * Invariants: every function is safe from any thread, never fails, preserves errno and accepts
 * NULL strings (read as ""); strings are copied (at most 1024 bytes kept). Task ids are never 0
 * or UINT64_MAX; 0 means "no task" (a region or log of no task, a task without parent) and is
 * what gotrace_task_begin returns when the program is not traced. A task may end on another
 * thread than the one that began it. Regions nest per thread: an end that does not match the
 * innermost open region of the calling thread is dropped (one "gotrace:" warning). */
#ifndef GOTRACE_H
#define GOTRACE_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GOTRACE_WEAK __attribute__((weak))
GOTRACE_WEAK uint64_t gotrace_impl_task_begin(const char *name, uint64_t parent);
GOTRACE_WEAK void gotrace_impl_task_end(uint64_t task);
GOTRACE_WEAK void gotrace_impl_region_begin(uint64_t task, const char *name);
GOTRACE_WEAK void gotrace_impl_region_end(uint64_t task, const char *name);
GOTRACE_WEAK void gotrace_impl_log(uint64_t task, const char *category, const char *message);
GOTRACE_WEAK int gotrace_impl_flight_dump(void);
#undef GOTRACE_WEAK

/* Begins a task (Go's trace.NewTask) named name, child of parent (0: none); returns its id. */
static inline uint64_t gotrace_task_begin(const char *name, uint64_t parent)
{
    return gotrace_impl_task_begin ? gotrace_impl_task_begin(name, parent) : 0;
}

/* Ends a task (Task.End); 0 is ignored. */
static inline void gotrace_task_end(uint64_t task)
{
    if (gotrace_impl_task_end) gotrace_impl_task_end(task);
}

/* Begins a region of the calling thread (trace.StartRegion), in task (0: none). */
static inline void gotrace_region_begin(uint64_t task, const char *name)
{
    if (gotrace_impl_region_begin) gotrace_impl_region_begin(task, name);
}

/* Ends the calling thread's innermost region, which must have this task and name. */
static inline void gotrace_region_end(uint64_t task, const char *name)
{
    if (gotrace_impl_region_end) gotrace_impl_region_end(task, name);
}

/* GOTRACE_MODE=flight: writes the flight recorder's window (the last GOTRACE_FLIGHT_S seconds)
 * as a complete trace now, and tracing goes on (Go's FlightRecorder.WriteTo). 0 when written;
 * -1 when not traced in flight mode. */
static inline int gotrace_flight_dump(void)
{
    return gotrace_impl_flight_dump ? gotrace_impl_flight_dump() : -1;
}

/* A log message with a category, in task (0: none) (trace.Log). */
static inline void gotrace_log(uint64_t task, const char *category, const char *message)
{
    if (gotrace_impl_log) gotrace_impl_log(task, category, message);
}

#ifdef __cplusplus
}
#endif
#endif
