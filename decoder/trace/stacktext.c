/* stacktext.c: a stack's text. See stacktext.h for the form and the invariants. */
#include "stacktext.h"

#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends n bytes of p to t, keeping it NUL-terminated: 0, or -1 when out of memory. */
static int put(struct gd_stack_text *t, const char *p, size_t n)
{
    if (gd_grow((void **)&t->s, &t->cap, t->len + n + 1, 1)) return -1;
    memcpy(t->s + t->len, p, n);
    t->len += n;
    t->s[t->len] = 0;
    return 0;
}

/* Appends the line of frame f (NULL: a pc with no frame): 0, or -1 when out of memory. */
static int frame_line(struct gd_stack_text *t, const struct gd_gen *g, const struct gd_frame *f)
{
    uint32_t fl = 0, il = 0;
    const char *fn = f ? gd_str(g, f->func, &fl) : "";
    const char *fi = f ? gd_str(g, f->file, &il) : "";
    if (fl ? put(t, fn, fl) : put(t, "?", 1)) return -1;
    if (f && f->line) {
        char num[24];
        int nl = snprintf(num, sizeof num, ":%" PRIu64, f->line);
        if (put(t, " ", 1) || put(t, fi, il) || put(t, num, (size_t)nl)) return -1;
    } else if (il) {
        const char *slash = memrchr(fi, '/', il);
        const char *base = slash ? slash + 1 : fi;
        if (put(t, " (", 2) || put(t, base, il - (size_t)(base - fi)) || put(t, ")", 1)) return -1;
    }
    return put(t, "\n", 1);
}

const char *gd_stack_text(const struct gd_gen *g, uint64_t stk, struct gd_stack_text *t)
{
    const uint64_t *pcs;
    uint32_t n = 0;
    int rc = 0;
    t->len = 0;
    if (stk && gd_gen_stack(g, stk, &pcs, &n))
        for (uint32_t i = 0; i < n && !rc; i++)
            rc = frame_line(t, g, gd_gen_frame(g, pcs[i]));
    if (rc) t->len = 0;
    if (t->s) t->s[t->len] = 0;
    return t->len ? t->s : "";
}

void gd_stack_text_free(struct gd_stack_text *t)
{
    free(t->s);
    *t = (struct gd_stack_text){0};
}
