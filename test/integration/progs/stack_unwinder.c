/* stack_unwinder: naps through a frame whose CFA is an expression (realigned: GCC realigns the
 * stack through a register for an over-aligned local beside alloca), which the tracer's walker
 * cannot walk, so its stacks need libunwind, which the tracer loads only then, on its flusher
 * thread. Prints whether libunwind is mapped at the start (it must not be: nothing needed it),
 * then naps on a second thread until it is mapped (at most 10 s), then 100 more times.
 * Invariant: output "libunwind at start: no" then "libunwind loaded" when traced; every call
 * checked. */
#include <alloca.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"

static int find_unwind(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (strstr(info->dlpi_name, "libunwind")) *(int *)found = 1;
    return 0;
}

static int unwind_mapped(void)
{
    int found = 0;
    dl_iterate_phdr(find_unwind, &found);
    return found;
}

__attribute__((noinline)) static void nap(void)
{
    struct timespec t = {0, 1000000};
    nanosleep(&t, NULL);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void realigned(volatile size_t n)
{
    char *p = alloca(n);
    _Alignas(64) char b[64];
    __asm__ volatile("" : : "r"(p), "r"(b) : "memory");
    nap();
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void *napper(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000 && !unwind_mapped(); i++)
        realigned(32);
    printf("libunwind %s\n", unwind_mapped() ? "loaded" : "never loaded");
    for (int i = 0; i < 100; i++) /* its functions are looked up after it is mapped */
        realigned(32);
    return NULL;
}

int main(void)
{
    printf("libunwind at start: %s\n", unwind_mapped() ? "yes" : "no");
    fflush(stdout);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, napper, NULL));
    CHECK(pthread_join(t, NULL));
    return 0;
}
