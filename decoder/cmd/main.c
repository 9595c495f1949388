/* main.c: `gotrace COMMAND ...` dispatch and top-level usage.
 * Each command is a function of cmds.h called with argv shifted by one, so that it sees its
 * own name as argv[0] and parses its options as a program of its own would (cli.c); main
 * parses nothing else, so every option belongs to a command and `--help` works per command.
 * Invariants: exit status 0 ok, 1 bad trace, 2 bad usage, 3 I/O error (exitcode.h), whatever
 * the command; no command runs without its name (a bare `gotrace FILE` is a usage error, not
 * a guess); help that was asked for goes to stdout with status 0, usage after a mistake to
 * stderr with status 2, so scripts can tell them apart. */
#include "cli.h"
#include "cmds.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace COMMAND [OPTIONS] FILE\n"
    "\n"
    "Reads Go 1.22/1.23 execution traces (written by libgotrace.so or by the Go runtime).\n"
    "\n"
    "commands:\n"
    "  check FILE                 validate the trace as Go's parser and validator do\n"
    "  dump [--stacks] FILE       one line per event, in global order\n"
    "  summary FILE               per-thread lifetime, running, blocked, syscall times\n"
    "  contention [--top N] FILE  where threads waited, grouped by stack\n"
    "  export --format chrome FILE -o OUT.json   Chrome/Perfetto trace JSON\n"
    "  report FILE [-o OUT.html]  one HTML page: timelines, tables, flame graphs\n"
    "  locks [--holders] FILE     sync objects by total wait; who held them\n"
    "  critical-path FILE [--thread T | --region NAME | --task ID] [--from/--to TIME]\n"
    "                             the chain of work the target waited for\n"
    "  hangs [--at TIME] FILE     blocked threads, their holders, deadlocks\n"
    "  record [-o FILE] -- PROGRAM ARGS...       run PROGRAM with the tracer preloaded\n"
    "  recover [--keep] FILE      complete the trace of a process that was killed\n"
    "  merge -o OUT FILE...|DIR   several processes' traces as one\n"
    "\n"
    "Run `gotrace COMMAND --help` for a command's options. Exit status: 0 ok, 1 bad trace,\n"
    "2 bad usage, 3 input/output error (trace unreadable, output not written).\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return GD_EXIT_USAGE;
    }
    const char *c = argv[1];
    /* "help" too: the word people type after seeing "gotrace COMMAND" in a message. */
    if (!strcmp(c, "-h") || !strcmp(c, "--help") || !strcmp(c, "help")) {
        fputs(usage, stdout);
        return GD_EXIT_OK;
    }
    /* Names are matched whole, never abbreviated: a new command could make an abbreviation
     * that scripts rely on ambiguous. */
    if (!strcmp(c, "check")) return gd_cmd_check(argc - 1, argv + 1);
    if (!strcmp(c, "dump")) return gd_cmd_dump(argc - 1, argv + 1);
    if (!strcmp(c, "summary")) return gd_cmd_summary(argc - 1, argv + 1);
    if (!strcmp(c, "contention")) return gd_cmd_contention(argc - 1, argv + 1);
    if (!strcmp(c, "export")) return gd_cmd_export(argc - 1, argv + 1);
    if (!strcmp(c, "report")) return gd_cmd_report(argc - 1, argv + 1);
    if (!strcmp(c, "record")) return gd_cmd_record(argc - 1, argv + 1);
    if (!strcmp(c, "merge")) return gd_cmd_merge(argc - 1, argv + 1);
    if (!strcmp(c, "locks")) return gd_cmd_locks(argc - 1, argv + 1);
    if (!strcmp(c, "critical-path")) return gd_cmd_critical_path(argc - 1, argv + 1);
    if (!strcmp(c, "hangs")) return gd_cmd_hangs(argc - 1, argv + 1);
    if (!strcmp(c, "recover")) return gd_cmd_recover(argc - 1, argv + 1);
    fprintf(stderr, "gotrace: unknown command %s\n\n", c);
    fputs(usage, stderr);
    return GD_EXIT_USAGE;
}
