/* noop_preload.c: the do-nothing interposer, the floor any LD_PRELOAD tracer pays. It exports
 * exactly the functions libgotrace.so exports (the list, noop_syms.h, is generated from the
 * built library by bench/bench.mk as lines NOOP(name)), and each one only jumps to the next
 * definition (dlsym RTLD_NEXT; the condvar functions at their GLIBC_2.3.2 version, as the
 * tracer resolves them).
 * Invariants: a stub changes no argument register, no stack slot and no return value (a plain
 * indirect jump, so variadic functions forward too); a stub called before the constructor
 * resolves every target first. x86_64 only. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOOP(name) __attribute__((visibility("hidden"))) void *noop_ptr_##name;
#include "noop_syms.h"
#undef NOOP

/* Each stub: jump through its pointer; while it is still NULL, save the argument registers
 * (and %al, the vector count of a variadic call), resolve everything, and jump. */
#define NOOP(name)                                                                                 \
    __asm__(".text\n.globl " #name "\n.type " #name ",@function\n" #name ":\n"                     \
            "  movq noop_ptr_" #name "(%rip), %r11\n"                                              \
            "  testq %r11, %r11\n"                                                                 \
            "  jz 1f\n"                                                                            \
            "  jmp *%r11\n"                                                                        \
            "1: pushq %rdi\n  pushq %rsi\n  pushq %rdx\n  pushq %rcx\n"                            \
            "  pushq %r8\n  pushq %r9\n  pushq %rax\n"                                             \
            "  call noop_resolve\n"                                                                \
            "  popq %rax\n  popq %r9\n  popq %r8\n  popq %rcx\n"                                   \
            "  popq %rdx\n  popq %rsi\n  popq %rdi\n"                                              \
            "  jmp *noop_ptr_" #name "(%rip)\n"                                                    \
            ".size " #name ", .-" #name "\n");
#include "noop_syms.h"
#undef NOOP

/* The target of a function with no next definition (an entry point of the tracer's own API):
 * calling it is a bug of the benchmark. */
static void missing(void)
{
    static const char msg[] = "noop_preload: called a function that has no next definition\n";
    if (write(2, msg, sizeof msg - 1) < 0) abort();
    abort();
}

static void *next_of(const char *name)
{
    void *p =
        strncmp(name, "pthread_cond_", 13) == 0 ? dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2") : NULL;
    if (!p) p = dlsym(RTLD_NEXT, name);
    return p ? p : (void *)missing;
}

__attribute__((visibility("hidden"), used)) void noop_resolve(void)
{
#define NOOP(name) __atomic_store_n(&noop_ptr_##name, next_of(#name), __ATOMIC_RELEASE);
#include "noop_syms.h"
#undef NOOP
}

__attribute__((constructor)) static void noop_init(void)
{
    noop_resolve();
}
