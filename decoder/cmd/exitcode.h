/* exitcode.h: the exit statuses of every gotrace command (docs/decoder.md, "Exit status").
 * Invariants: a status says whose fault a failure is. GD_EXIT_BAD_TRACE: the trace breaks a
 * rule of the format; GD_EXIT_USAGE: the command line (or an output that is the input trace);
 * GD_EXIT_IO: the trace could not be read (missing, a directory, a read error) or the output
 * could not be written (full disk, closed pipe): nothing is wrong with the trace. When both a
 * bad trace and an I/O error happen, GD_EXIT_IO wins (the trace may only look bad because it
 * was not read whole). */
#ifndef GOTRACE_DECODER_EXITCODE_H
#define GOTRACE_DECODER_EXITCODE_H

enum { GD_EXIT_OK = 0, GD_EXIT_BAD_TRACE = 1, GD_EXIT_USAGE = 2, GD_EXIT_IO = 3 };

#endif
