/* die_early: kills itself with SIGKILL from a constructor, before main and before any traced
 * call: a traced process whose live file holds no thread and no event. */
#include <signal.h>
#include <unistd.h>

__attribute__((constructor)) static void die(void)
{
    kill(getpid(), SIGKILL);
}

int main(void)
{
    return 0;
}
