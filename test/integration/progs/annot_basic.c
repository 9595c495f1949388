/* annot_basic: the annotations API with exact counts. main begins task "outer" and, inside
 * region "phase", regions "step" 3 times with a log each (category "cat"); a worker thread
 * begins task "child" (parent outer) and region "work" in it, and ends task "span", which main
 * began (a task that ends on another thread). Then two mismatched ends on main: region
 * "open" ended as "wrong" (dropped), then as "open" (written), and an end with no region open
 * (dropped). main ends "outer" after the join. Expected in the trace: 3 TaskBegin, 3 TaskEnd,
 * 6 RegionBegin, 6 RegionEnd, 3 Log; one "gotrace:" warning. Prints "ok". */
#include "../../../include/gotrace.h"
#include "common.h"

#include <pthread.h>

static uint64_t outer, span;

static void *worker(void *arg)
{
    (void)arg;
    uint64_t child = gotrace_task_begin("child", outer);
    gotrace_region_begin(child, "work");
    spin_ms(2);
    gotrace_region_end(child, "work");
    gotrace_task_end(child);
    gotrace_task_end(span);
    return NULL;
}

int main(void)
{
    outer = gotrace_task_begin("outer", 0);
    span = gotrace_task_begin("span", outer);
    gotrace_region_begin(outer, "phase");
    for (int i = 0; i < 3; i++) {
        char msg[32];
        snprintf(msg, sizeof msg, "step %d", i);
        gotrace_region_begin(outer, "step");
        gotrace_log(outer, "cat", msg);
        gotrace_region_end(outer, "step");
    }
    gotrace_region_end(outer, "phase");
    pthread_t th;
    CHECK(pthread_create(&th, NULL, worker, NULL));
    CHECK(pthread_join(th, NULL));
    gotrace_region_begin(0, "open");
    gotrace_region_end(0, "wrong");
    gotrace_region_end(0, "open");
    gotrace_region_end(0, "open");
    gotrace_task_end(outer);
    puts("ok");
    return 0;
}
