/* early_lib: a shared library whose constructor starts a thread, before the tracer library
 * (preloaded, initialised after the program's own libraries) has run its constructor. */
#include <pthread.h>
#include <unistd.h>
pthread_t early_thread;
static void *bg(void *a) { usleep(100000); return a; }
__attribute__((constructor)) static void start_early(void) { pthread_create(&early_thread, NULL, bg, NULL); }
