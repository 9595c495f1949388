/* annotations.c: the public annotations API (include/gotrace.h: Go's user tasks, regions and
 * logs) and thread names. Task ids and strings are handled here; tracer.c keeps the region
 * stack and writes the events (tr_user_event, tr_region_begin/end, tr_set_name). Conventions:
 * docs/annotations.md.
 * Invariants: the exported gotrace_impl_* functions are the only symbols of the library meant
 * for programs; they are GOTRACE_API_FN, so the stack of each event starts in the program's
 * caller; each preserves errno and is a no-op for a caller that may not emit (untraced, inside
 * the tracer); a wrong region end from the program is dropped, never written (tracer.h). Task
 * ids come from one atomic counter and are never 0 or UINT64_MAX. */
#include "annotations.h"

#include "go_wire.h"
#include "hooks.h"

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
    if (self) tr_region_begin(self, task, tr_string(self, name, GO_MAX_STRING_LEN));
}

API_EXPORT void gotrace_impl_region_end(uint64_t task, const char *name)
{
    struct gt_thread *self = tr_current();
    if (self) tr_region_end(self, task, tr_string(self, name, GO_MAX_STRING_LEN), name);
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
