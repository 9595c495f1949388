/* annot_names: thread names. "self-named" names itself with pthread_setname_np, "by-main" is
 * named by main right after pthread_create, "by-prctl" names itself with prctl(PR_SET_NAME);
 * each then sleeps 20 ms twice and ends. Prints "ok". */
#include "common.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *self_named(void *arg)
{
    (void)arg;
    CHECK(pthread_setname_np(pthread_self(), "self-named"));
    usleep(20000);
    usleep(20000);
    return NULL;
}

static void *by_main(void *arg)
{
    (void)arg;
    usleep(20000);
    usleep(20000);
    return NULL;
}

static void *by_prctl(void *arg)
{
    (void)arg;
    if (prctl(PR_SET_NAME, "by-prctl", 0, 0, 0) != 0) exit(98);
    usleep(20000);
    usleep(20000);
    return NULL;
}

int main(void)
{
    pthread_t a, b, c;
    CHECK(pthread_create(&a, NULL, self_named, NULL));
    CHECK(pthread_create(&b, NULL, by_main, NULL));
    CHECK(pthread_setname_np(b, "by-main"));
    CHECK(pthread_create(&c, NULL, by_prctl, NULL));
    CHECK(pthread_join(a, NULL));
    CHECK(pthread_join(b, NULL));
    CHECK(pthread_join(c, NULL));
    puts("ok");
    return 0;
}
