/* stack_fallback: sleeps through a function without unwind information (nocfi_call, plain asm
 * with a frame pointer and no CFI), which the tracer's walker steps over by its frame pointer
 * (libunwind, when it was the fallback, created a pthread key at its first use with
 * unw_backtrace). The program creates keys before and after and
 * prints their numbers: they must be the untraced ones (0 1 2); then it takes 37 more keys and
 * prints the first number below 40 it did not get ("taken N"; "taken none" untraced).
 * With the argument "seccomp", a seccomp filter first kills the process at a process_vm_readv.
 * Invariant: output "keys 0 1 2" and "taken none" untraced; every call checked. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include "common.h"

void nocfi_call(void (*fn)(void));
__asm__(".text\n"
        ".globl nocfi_call\n"
        ".type nocfi_call, @function\n"
        "nocfi_call:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  call *%rdi\n"
        "  pop %rbp\n"
        "  ret\n"
        ".size nocfi_call, . - nocfi_call\n");

static void nap(void)
{
    struct timespec t = {0, 1000000};
    nanosleep(&t, NULL);
}

__attribute__((noinline)) static void sleeper(void)
{
    for (int i = 0; i < 3; i++)
        nocfi_call(nap);
}

static void *thread_main(void *arg)
{
    (void)arg;
    sleeper();
    return NULL;
}

/* A seccomp filter that kills the process at a process_vm_readv, the call the tracer's walker
 * reads a frame without CFI with: the tracer must see the filter and not make it. */
static void forbid_process_vm_readv(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
    CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "seccomp")) forbid_process_vm_readv();
    pthread_key_t k0, k1, k2;
    CHECK(pthread_key_create(&k0, NULL));
    sleeper();
    CHECK(pthread_key_create(&k1, NULL));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_main, NULL));
    CHECK(pthread_join(t, NULL));
    CHECK(pthread_key_create(&k2, NULL));
    printf("keys %u %u %u\n", k0, k1, k2);
    /* The first number below 40 the program cannot get: another library's key. */
    char got[40] = {0};
    got[k0] = got[k1] = got[k2] = 1;
    for (int i = 0; i < 37; i++) {
        pthread_key_t k;
        CHECK(pthread_key_create(&k, NULL));
        if (k < sizeof got) got[k] = 1;
    }
    int gap = 0;
    while (gap < (int)sizeof got && got[gap])
        gap++;
    if (gap < (int)sizeof got)
        printf("taken %d\n", gap);
    else
        printf("taken none\n");
    return 0;
}
