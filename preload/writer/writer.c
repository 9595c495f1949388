/* writer.c: the event writer's cold path. See writer.h for the invariants. */
#include "writer.h"

__attribute__((cold, noinline)) int wr_refill(struct gt_stream *st, uint64_t gen, uint64_t now)
{
    struct gt_buf *nb = buf_get();
    if (!nb) {
        gen_fail("out of memory for trace buffers");
        return 0;
    }
    if (st->cur) {
        st->cur->len = st->len;
        stream_push_full(st, st->cur);
        gen_note_full(gen, st->len);
    }
    st->cur = nb;
    st->len = 0;
    st->room = nb->cap - GT_EV_MAX + 1;
    nb->base_ts = st->last_ts = now;
    return 1;
}
