/* cmds.h: entry points of the gotrace subcommands; each returns the process exit status.
 * Invariant: argv[0] is the subcommand name; options follow. */
#ifndef GOTRACE_DECODER_CMDS_H
#define GOTRACE_DECODER_CMDS_H

int gd_cmd_check(int argc, char **argv);
int gd_cmd_dump(int argc, char **argv);
int gd_cmd_summary(int argc, char **argv);
int gd_cmd_contention(int argc, char **argv);
int gd_cmd_export(int argc, char **argv);
int gd_cmd_report(int argc, char **argv);
int gd_cmd_record(int argc, char **argv);
int gd_cmd_locks(int argc, char **argv);
int gd_cmd_critical_path(int argc, char **argv);
int gd_cmd_hangs(int argc, char **argv);
int gd_cmd_recover(int argc, char **argv);
/* `gotrace recover FILE` without its options (keep: leave the live file): the exit status. */
int gd_recover_file(const char *path, int keep);

#endif
