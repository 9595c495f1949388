/* annotations.h: what the hooks need from the annotations module (annotations.c), besides the
 * public API it exports (include/gotrace.h).
 * Invariants: like the tracer API: errno preserved, nothing written for an untraced caller or
 * from inside the tracer; never allocates with malloc. */
#ifndef GOTRACE_ANNOTATIONS_H
#define GOTRACE_ANNOTATIONS_H
#include <pthread.h>

/* Thread th was named name (pthread_setname_np, prctl(PR_SET_NAME)); the first 15 bytes are
 * kept, as by the kernel. The named thread writes it as a GoLabel (tracer.h, tr_set_name): at once
 * when it names itself, else when it next returns to Running, annotates or exits. */
void names_set(pthread_t th, const char *name);
#endif
