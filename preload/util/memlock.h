/* memlock.h: mlockall for the program's memory, not the tracer's. The kernel's mlockall
 * (MCL_CURRENT) would lock the tracer's memory with the program's: its 1 GiB live file (all of
 * it read into tmpfs), its private range, its image; and it refuses an unprivileged process
 * whose mappings exceed RLIMIT_MEMLOCK, which they then do (the default 8 MiB). memlock_all
 * does what the kernel would do for the program alone: the tracer's memory is its image and
 * arena_ranges (util/arena.h); every other mapping of /proc/self/maps is the program's.
 * Invariants: the result and errno are the kernel's for the program's memory: EINVAL for flags
 * it refuses, EPERM without RLIMIT_MEMLOCK or CAP_IPC_LOCK, ENOMEM when the program's mappings
 * exceed the limit without CAP_IPC_LOCK (in the initial user namespace), and then nothing has
 * changed; on success every mapping of the program is locked as mlockall would lock it
 * (MCL_ONFAULT: on fault), MCL_FUTURE applies from then on (the tracer's later memory is carved
 * from ranges reserved before: never locked), an earlier MCL_FUTURE is dropped without it, and
 * errno is untouched. When /proc/self/maps cannot be read, the kernel's mlockall runs as is
 * (the tracer's memory locked too) after one "gotrace:" warning. A system call per mapping:
 * never on the event path. */
#ifndef GOTRACE_MEMLOCK_H
#define GOTRACE_MEMLOCK_H

int memlock_all(int flags);
#endif
