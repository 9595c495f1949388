/* short_process: a short process that uses the tracer's tables the way a short real one does
 * (per_process.sh): 1000 sync objects initialized at 1000 addresses, and 300 distinct stacks
 * (a write to /dev/null at recursion depths 1..300), then exits. Prints "done". */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define OBJECTS 1000
#define DEPTHS 300

static pthread_mutex_t locks[OBJECTS];

static int at_depth(int fd, int d)
{
    if (d == 0) return write(fd, "x", 1) == 1 ? 0 : 1;
    int r = at_depth(fd, d - 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call: one frame per level */
    return r;
}

int main(void)
{
    for (int i = 0; i < OBJECTS; i++)
        if (pthread_mutex_init(&locks[i], NULL) != 0) return 1;
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0) return 1;
    int bad = 0;
    for (int d = 1; d <= DEPTHS; d++)
        bad += at_depth(fd, d);
    close(fd);
    puts(bad ? "failed" : "done");
    return bad != 0;
}
