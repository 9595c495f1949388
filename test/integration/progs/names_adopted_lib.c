/* names_adopted_lib: a shared library that starts threads with the real pthread_create, found
 * with dlsym(RTLD_NEXT) as jemalloc does for its background thread: loaded after a preloaded
 * library, it gets the next definition, libc's, not the preloaded one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* pthread_create's result, EAGAIN if libc's pthread_create is not found. */
int lib_create(pthread_t *th, void *(*start)(void *), void *arg)
{
    create_fn *real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
    return real ? real(th, NULL, start, arg) : 11;
}
