/* writer.c: the event writer's cold path. See writer.h for the invariants. */
#include "writer.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

__thread int wr_deferred_sig __attribute__((tls_model("initial-exec")));

void wr_redeliver(struct gt_thread *t)
{
    if (atomic_load_explicit(&t->seq, memory_order_relaxed) & 1) return; /* a nested one ended */
    int sig = wr_deferred_sig, saved = errno;
    wr_deferred_sig = 0;
    tgkill(getpid(), gettid(), sig);
    errno = saved;
}

int wr_refill(struct gt_stream *st, uint64_t gen, uint64_t now)
{
    struct gt_buf *cur = st->cur;
    if (cur) clock_allow_tsc(); /* a page of events written: the TSC is worth reading (clock.h) */
    if (cur && cur->ready < cur->cap && buf_extend(cur) == 0) { /* more of the same buffer */
        st->room = cur->ready - GT_EV_MAX + 1;
        return 1;
    }
    struct gt_buf *nb = buf_get();
    if (!nb) {
        state_fail("out of memory for trace buffers");
        return 0;
    }
    nb->base_ts = now;
    if (cur) {
        cur->len = st->len;
        stream_push_full(st, cur);
        state_note_full(gen, st->len);
    }
    st->len = 0;
    atomic_signal_fence(memory_order_release); /* a dead process's reader: buf.h */
    st->cur = nb;
    st->room = nb->ready - GT_EV_MAX + 1;
    st->last_ts = now;
    state_lazy_poll(); /* a program without a flusher thread yet (flusher.h) */
    return 1;
}

void wr_label(struct gt_writer *w, uint64_t name)
{
    struct gt_thread *t = w->t;
    wr_mark_str(w, name);
    WR_EMIT(w, GO_EV_GO_LABEL, name);
    t->label_str = name;
    t->label_gen = w->gen;
}
