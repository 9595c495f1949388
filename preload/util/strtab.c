/* strtab.c: the process-wide string table over an intern set. See strtab.h for the
 * invariants. Keys are the string bytes (truncated to GO_MAX_STRING_LEN), without the NUL;
 * before a successful str_init every intern returns 0. */
#include "strtab.h"

#include "arena.h"
#include "go_wire.h"
#include "intern.h"

#include <string.h>

static struct intern_set strs;
static int init_result = 1; /* 1: not initialised yet */

int str_init(void)
{
    if (init_result == 1) {
        init_result = intern_init(&strs, "string", 16, 1);
        struct gt_live_head *h = arena_head();
        if (init_result == 0 && h) intern_publish(&strs, &h->strings);
    }
    return init_result;
}

uint64_t str_intern(const char *s, size_t len)
{
    if (init_result != 0) return 0;
    return intern_insert(&strs, s, len < GO_MAX_STRING_LEN ? len : GO_MAX_STRING_LEN);
}

uint64_t str_intern_cstr(const char *s)
{
    return str_intern(s, strnlen(s, GO_MAX_STRING_LEN));
}

void str_mark(uint64_t id, uint64_t gen)
{
    if (init_result == 0) intern_mark(&strs, id, gen);
}

const char *str_get(uint64_t id, size_t *len)
{
    return init_result == 0 ? intern_get(&strs, id, len) : NULL;
}

struct visit {
    str_visit_fn fn;
    void *ctx;
};

static void visit_one(void *ctx, uint64_t id, const void *key, size_t len)
{
    const struct visit *v = ctx;
    v->fn(v->ctx, id, key, len);
}

void str_foreach_marked(uint64_t gen, str_visit_fn fn, void *ctx)
{
    struct visit v = {fn, ctx};
    if (init_result == 0) intern_foreach_marked(&strs, gen, visit_one, &v);
}
