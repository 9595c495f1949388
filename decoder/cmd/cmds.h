/* cmds.h: entry points of the gotrace subcommands (one file each, cmd_*.c), called by main.c
 * with the command's own argument vector; what each prints is docs/decoder.md's "Commands".
 * Invariants: argv[0] is the subcommand name, options and operands follow (`--` ends the
 * options); each returns the process exit status (exitcode.h: 0 ok, 1 bad trace, 2 usage, 3
 * I/O; record: the program's), after its message on stderr for any failure; `--help` prints
 * the command's usage on stdout and returns 0. No command writes a partial output file. */
#ifndef GOTRACE_DECODER_CMDS_H
#define GOTRACE_DECODER_CMDS_H

#include <stddef.h>
#include <stdio.h>

/* `check FILE`: the verdict line; 1 with the located error for a bad trace. */
int gd_cmd_check(int argc, char **argv);
/* `dump [--stacks] FILE`: every event; for a bad trace, the events before the damage, then 1. */
int gd_cmd_dump(int argc, char **argv);
/* `summary FILE`: the per-thread table and its totals, tasks, regions, CPU samples. */
int gd_cmd_summary(int argc, char **argv);
/* `contention [--top N] FILE`: waiting sites by total wait, their wakers and holders. */
int gd_cmd_contention(int argc, char **argv);
/* `export --format chrome FILE -o OUT`: Chrome Trace Event JSON, OUT replaced only when whole. */
int gd_cmd_export(int argc, char **argv);
/* `report FILE [-o OUT]`: the HTML page (docs/report.md); nothing written for a bad trace. */
int gd_cmd_report(int argc, char **argv);
/* `record [-o FILE] -- PROGRAM ARGS...`: runs PROGRAM traced; returns the program's status
 * (128 + signal when killed, 127 when it could not start), 1 when the tracer is not found. */
int gd_cmd_record(int argc, char **argv);
/* `merge -o OUT FILE...|DIR`: several processes' traces as one (docs/processes.md). */
int gd_cmd_merge(int argc, char **argv);
/* merge's work for record: the trace files in folder dir merged into out; the exit status (after
 * a message on failure); *nproc the number of traces found. */
int gd_merge_into(const char *dir, const char *out, size_t *nproc);
/* `locks [--holders] [--top N] FILE`: sync objects by total wait (docs/locks.md). */
int gd_cmd_locks(int argc, char **argv);
/* `critical-path FILE [target] [--from T] [--to T]`: 2 when the target is not in the trace. */
int gd_cmd_critical_path(int argc, char **argv);
/* `hangs [--at TIME] FILE`: threads blocked at the end (or at TIME), holders, deadlocks. */
int gd_cmd_hangs(int argc, char **argv);
/* `recover [--keep] FILE`: gd_recover_file after the options. */
int gd_cmd_recover(int argc, char **argv);
/* `gotrace recover FILE` without its options (keep: leave the live file), also run by record
 * for a program killed by a signal: 0 recovered or nothing to do (the trace is complete, or its
 * process traced nothing), 1 the process still runs, the result would not validate (FILE is
 * then unchanged) or FILE is damaged and has no live file left, 3 FILE or the live file cannot
 * be read, or FILE cannot be written. Its report line goes to out (record: stderr, the
 * program's stdout being the program's); errors to stderr. */
int gd_recover_file(const char *path, int keep, FILE *out);

#endif
