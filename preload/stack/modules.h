/* modules.h: the code modules loaded in the process (the executable and its shared libraries),
 * recorded in the live file (common/gt_live.h) so that `gotrace recover` can symbolize a killed
 * process's stacks from the same files.
 * Invariants: the list is append-only (a module seen again is not written again; one unloaded
 * stays; the reader takes the last entry that holds an address), an entry is written whole before
 * the count covers it; at most GT_LIVE_MODULES are recorded. modules_record walks the loader's
 * list (dl_iterate_phdr): call it at start and at each generation switch, never on the event
 * path; code loaded since the last call is not recorded yet. */
#ifndef GOTRACE_MODULES_H
#define GOTRACE_MODULES_H

void modules_record(void);
/* The program's file as /proc/self/exe named it at the first modules_record, or NULL (not
 * recorded: no live file, or the name is not a file's any more). Another file may have replaced
 * it since: the caller that opens it reads a file, not the mapped code. */
const char *modules_program(void);
#endif
