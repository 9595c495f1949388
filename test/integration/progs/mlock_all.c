/* mlock_all: what a real-time program does at start (robust_mlock.sh). mlockall with the flags
 * named by argv[1] ("current", "future", "onfault", joined by commas), then prints "mlockall:
 * ok" or "mlockall: ERRNO" and "VmLck: N kB" (/proc/self/status); then two threads with 64 KiB
 * stacks hand a turn back and forth 200 times through a mutex and a condvar (the tracer's own
 * thread starts then), and the program prints "VmLck after threads: N kB"; then munlockall and
 * "VmLck after munlockall: N kB". */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>

#include "common.h"

#define ROUNDS 200

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;

static void *play(void *arg)
{
    int me = (int)(long)arg;
    CHECK(pthread_mutex_lock(&mu));
    for (int i = 0; i < ROUNDS; i++) {
        while (turn != me)
            CHECK(pthread_cond_wait(&cv, &mu));
        turn = 1 - me;
        CHECK(pthread_cond_signal(&cv));
    }
    CHECK(pthread_mutex_unlock(&mu));
    return NULL;
}

static void print_vmlck(const char *when)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) exit(98);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmLck:", 6) == 0) printf("VmLck%s:%s", when, line + 6);
    fclose(f);
}

static int parse_flags(const char *s)
{
    int flags = 0;
    if (strstr(s, "current")) flags |= MCL_CURRENT;
    if (strstr(s, "future")) flags |= MCL_FUTURE;
    if (strstr(s, "onfault")) flags |= MCL_ONFAULT;
    return flags;
}

int main(int argc, char **argv)
{
    int r = mlockall(parse_flags(argc > 1 ? argv[1] : "current,future"));
    printf("mlockall: %s\n", r == 0 ? "ok" : strerrorname_np(errno));
    print_vmlck("");
    pthread_attr_t attr;
    CHECK(pthread_attr_init(&attr));
    CHECK(pthread_attr_setstacksize(&attr, 64 << 10));
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], &attr, play, (void *)i));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(t[i], NULL));
    print_vmlck(" after threads");
    if (munlockall() != 0) printf("munlockall: %s\n", strerrorname_np(errno));
    print_vmlck(" after munlockall");
    return 0;
}
