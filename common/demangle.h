/* demangle.h: C++ (Itanium) and Rust (legacy _ZN...17h<hash>E and v0 _R...) symbol names made
 * readable, with libiberty's allocation-free callback demanglers (statically linked, hidden).
 * Invariants: never allocates; the result is the input itself when it is not a mangled name
 * this knows (a C name, a truncated or malformed mangling); the flusher's only (one static
 * buffer). */
#ifndef GOTRACE_DEMANGLE_H
#define GOTRACE_DEMANGLE_H

/* The demangled form of name, or name itself. Valid until the next call. Rust's legacy
 * hash suffix (::h0123456789abcdef) is dropped, as rustc's own backtraces do. */
const char *demangle_name(const char *name);
#endif
