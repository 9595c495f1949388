/* demangle.c: see demangle.h. libiberty's callback forms (rust_demangle_callback,
 * cplus_demangle_v3_callback) write the result in pieces through a callback and take their
 * working memory from the stack, so no malloc failure can end the traced program (libiberty's
 * xmalloc exits on failure). Names longer than the buffer are cut (Go caps strings at
 * GO_MAX_STRING_LEN anyway). */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <string.h>

#define OUT_MAX 4096

struct out {
    char s[OUT_MAX];
    size_t len;
};

static struct out out;

static void append(const char *piece, size_t len, void *opaque)
{
    struct out *o = opaque;
    size_t room = sizeof o->s - 1 - o->len;
    if (len > room) len = room;
    memcpy(o->s + o->len, piece, len);
    o->len += len;
    o->s[o->len] = 0;
}

const char *demangle_name(const char *name)
{
    if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) return name;
    out.len = 0;
    out.s[0] = 0;
    /* Rust first: a legacy Rust name is also a valid Itanium name (with the hash as a path
     * element); rust_demangle_callback accepts it only with a well-formed hash. */
    if (rust_demangle_callback(name, DMGL_PARAMS | DMGL_ANSI, append, &out) && out.len)
        return out.s;
    out.len = 0;
    if (name[1] == 'Z' && cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, append, &out) &&
        out.len)
        return out.s;
    return name;
}
