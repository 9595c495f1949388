/* hangproc.h: what the hang check (hang.h) learns of other processes, through /proc only, to
 * judge a thread that reads a pipe or FIFO without a timeout (docs/locks.md section 6, "Across
 * processes"): which processes hold the pipe's write end (a socket's peer), and whether every
 * thread of such a process waits for a child that is the reader's process (so only the reader's
 * process can let it move). Nothing here is called unless a thread has read a pipe for the check's
 * period. Invariants: reads /proc and fstat/fcntl's this process's descriptors, nothing else; a
 * doubt (a file that cannot be read, a process that vanished mid-look, a table too small) is an
 * answer that gives no verdict; runs on the flusher thread only. */
#ifndef GOTRACE_HANGPROC_H
#define GOTRACE_HANGPROC_H
#include <stdint.h>
#include <sys/types.h>

#define HP_TIDS 8 /* threads of a holder process judged: one with more gives no verdict */

/* A pipe, FIFO or connected Unix stream socket this process reads. */
struct hp_pipe {
    dev_t dev;
    ino_t ino;       /* a FIFO's inode */
    int fifo;        /* a FIFO (named): holders are found by inode, else by match */
    char match[100]; /* what a holder's descriptor links to: "pipe:[INO]", a socket's peer's
                       "socket:[INO]" */
    char text[220];  /* "pipe:[INO]", "fifo:PATH", "socket:[INO] unix, peer socket:[INO]" */
};

/* Another process holding the pipe's write end, and its threads' waits (hp_waits_for). */
struct hp_holder {
    int pid;
    char name[20];         /* its command (/proc/PID/comm) */
    int ntids;             /* its threads */
    int64_t tids[HP_TIDS]; /* TIDs */
    char waits[HP_TIDS]
              [72]; /* each one's wait: "waitpid(1235)", "wait4(-1), 1235 its only child" */
};

/* Process pid's command (/proc/PID/comm) into buf: 0, or -1 when it is gone. */
int hp_comm(int pid, char *buf, size_t cap);
/* fd of this process as a pipe, FIFO, or Unix stream or seqpacket socket that is connected
 * (its peer found with sock_diag's UDIAG_SHOW_PEER) and has no receive timeout: 0, or -1 when
 * it is none of these. */
int hp_pipe_of(int fd, struct hp_pipe *p);
/* Whether task tid of this process is in a read, readv, recvfrom or recvmsg system call on fd
 * (/proc/self/task/TID/syscall), asleep. */
int hp_reads_now(int64_t tid, int fd);
/* The processes but this one that hold a write end of p (a descriptor opened for writing):
 * their pids into out (at most cap), their number; *self_holds whether this process holds one.
 * -1 when that cannot be known: a process of this session whose descriptors cannot be read,
 * more than cap holders, /proc unreadable. Costs a readlink per descriptor of every process. */
int hp_holders(const struct hp_pipe *p, int *self_holds, int *out, int cap);
/* Whether this process holds a write end of p (1; also when it cannot tell), through
 * /proc/self/fd only. */
int hp_self_holds(const struct hp_pipe *p);
/* Whether every thread of process h->pid (at most HP_TIDS) is asleep in a wait for a child
 * (wait4, waitid: waitpid, wait) that only the end of process pid ends: a wait for pid itself,
 * or for any child (of a group) when pid is its only child; and it has no handler for a signal
 * that may come from outside but those the tracer takes (docs/locks.md section 6). Fills h
 * (name, threads, their waits). 1 yes, 0 no or not known. */
int hp_waits_for(struct hp_holder *h, int pid);
#endif
