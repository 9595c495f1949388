/* annotations.c: the public annotations API (include/gotrace.h: Go's user tasks, regions and
 * logs) and thread names. Ids, strings and the region stack are handled here; tracer.c writes
 * the events (tr_user_event, tr_set_name). Conventions: docs/annotations.md.
 * Invariants: the exported gotrace_impl_* functions are the only symbols of the library meant
 * for programs; they are GOTRACE_API_FN, so the stack of each event starts in the program's
 * caller; each preserves errno and is a no-op for a caller that may not emit (untraced, inside
 * the tracer); the per-thread region stack only ever holds regions whose begin was written
 * (regions.h), so a wrong end from the program is dropped, never written. Task ids come from
 * one atomic counter and are never 0 or UINT64_MAX. */
#include "annotations.h"

#include "go_wire.h"
#include "hooks.h"
#include "log.h"
#include "regions.h"
#include "stack.h"

#include <errno.h>
#include <string.h>

#define API_EXPORT EXPORT GOTRACE_API_FN
#define KERNEL_NAME_MAX 15 /* TASK_COMM_LEN - 1 */

static _Atomic uint64_t next_task = 1;

API_EXPORT uint64_t gotrace_impl_task_begin(const char *name, uint64_t parent)
{
    struct gt_thread *self = tr_current();
    if (!self) return 0;
    uint64_t id;
    do
        id = atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed);
    while (id == 0 || id == UINT64_MAX);
    uint64_t args[] = {id, parent, tr_string(self, name, GO_MAX_STRING_LEN)};
    tr_user_event(self, GO_EV_USER_TASK_BEGIN, 3, args, 1u << 2);
    return id;
}

API_EXPORT void gotrace_impl_task_end(uint64_t task)
{
    struct gt_thread *self = task ? tr_current() : NULL;
    if (self) tr_user_event(self, GO_EV_USER_TASK_END, 1, &task, 0);
}

API_EXPORT void gotrace_impl_region_begin(uint64_t task, const char *name)
{
    struct gt_thread *self = tr_current();
    if (!self) return;
    uint64_t args[] = {task, tr_string(self, name, GO_MAX_STRING_LEN)};
    if (!regions_begin(tr_regions(self))) {
        gt_warn_once(warned_deep,
                     "more than %d nested regions on one thread: the deeper ones are "
                     "left out of the trace",
                     GT_REGION_MAX);
        return;
    }
    if (tr_user_event(self, GO_EV_USER_REGION_BEGIN, 2, args, 1u << 1))
        regions_push(tr_regions(self), task, args[1]);
}

API_EXPORT void gotrace_impl_region_end(uint64_t task, const char *name)
{
    struct gt_thread *self = tr_current();
    if (!self) return;
    uint64_t args[] = {task, tr_string(self, name, GO_MAX_STRING_LEN)};
    switch (regions_end(tr_regions(self), task, args[1])) {
    case REGION_END_MATCH:
        if (tr_user_event(self, GO_EV_USER_REGION_END, 2, args, 1u << 1))
            regions_pop(tr_regions(self));
        break;
    case REGION_END_MISMATCH:
        gt_warn_once(warned_mismatch,
                     "gotrace_region_end(%llu, \"%.64s\") does not end the thread's innermost "
                     "open region: left out of the trace (so are later mismatched ends)",
                     (unsigned long long)task, name ? name : "");
        break;
    case REGION_END_LOST:
        break;
    }
}

API_EXPORT void gotrace_impl_log(uint64_t task, const char *category, const char *message)
{
    struct gt_thread *self = tr_current();
    if (!self) return;
    uint64_t args[] = {task, tr_string(self, category, GO_MAX_STRING_LEN),
                       tr_string(self, message, GO_MAX_STRING_LEN)};
    tr_user_event(self, GO_EV_USER_LOG, 3, args, 1u << 1 | 1u << 2);
}

API_EXPORT int gotrace_impl_flight_dump(void)
{
    int saved = errno;
    int r = tr_flight_dump();
    errno = saved;
    return r;
}

void names_set(pthread_t th, const char *name)
{
    struct gt_thread *self = name ? tr_current() : NULL;
    if (self) tr_set_name(self, th, name, KERNEL_NAME_MAX);
}
