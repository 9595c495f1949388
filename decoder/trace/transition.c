/* transition.c: each event type's move of a goroutine or proc state (see transition.h), as
 * Go's internal/trace/event.go StateTransition defines them.
 * The moves are those of Go's public API states (GoState, ProcState), not of the ordering
 * engine's wire statuses: a P in a syscall is Running here (still bound to its thread), and a
 * P whose syscall was abandoned is Idle (the thread that held it is no longer known). The validator
 * checks that each move starts where the previous one of that resource ended, so the two views must
 * agree on every event: this is the one place they are translated. */
#include "transition.h"

#include "go_wire.h"

#include <string.h>

int gd_transition(const struct gd_tev *ev, struct gd_trans *t)
{
    /* Wire status -> API state (Go's go122GoStatus2GoState / go122ProcStatus2ProcState):
     * index 0 is the invalid status, which order.c refuses before an event gets here. */
    static const uint8_t gmap[] = {GS_UNDET, GS_RUNNABLE, GS_RUNNING, GS_SYSCALL, GS_WAITING};
    static const uint8_t pmap[] = {PS_UNDET, PS_RUNNING, PS_IDLE, PS_RUNNING, PS_IDLE};
    memset(t, 0, sizeof(*t));
    const uint64_t *a = ev->args;
#define G(i, o, n) (t->kind = TR_G, t->id = (i), t->old = (o), t->new = (n))
#define P(i, o, n) (t->kind = TR_P, t->id = (i), t->old = (o), t->new = (n))
    switch (ev->type) {
    case GO_EV_PROC_START:
        P(a[0], PS_IDLE, PS_RUNNING);
        break;
    case GO_EV_PROC_STOP:
        P(ev->p, PS_RUNNING, PS_IDLE);
        break;
    case GO_EV_PROC_STEAL:
        /* A P stolen out of SyscallAbandoned was already shown Idle (by its ProcStatus), so
         * the move is Idle -> Idle; otherwise the P was Running in its owner's syscall. */
        P(a[0], ev->extra == GO_P_SYSCALL_ABANDONED ? PS_IDLE : PS_RUNNING, PS_IDLE);
        break;
    case GO_EV_PROC_STATUS: /* old: what order.c knew (Undetermined or NotExist if new) */
        P(a[0], (uint8_t)ev->extra, a[1] < 5 ? pmap[a[1]] : PS_UNDET);
        break;
    case GO_EV_GO_CREATE:
    case GO_EV_GO_CREATE_BLOCKED:
        G(a[0], GS_NOTEXIST, ev->type == GO_EV_GO_CREATE ? GS_RUNNABLE : GS_WAITING);
        t->stack = a[1]; /* the new goroutine's stack (its start), not the creator's */
        break;
    case GO_EV_GO_CREATE_SYSCALL: /* a C thread calling into Go: born inside the syscall */
        G(a[0], GS_NOTEXIST, GS_SYSCALL);
        break;
    case GO_EV_GO_START:
        G(a[0], GS_RUNNABLE, GS_RUNNING);
        break;
    case GO_EV_GO_DESTROY:
        G(ev->g, GS_RUNNING, GS_NOTEXIST);
        break;
    case GO_EV_GO_DESTROY_SYSCALL:
        G(ev->g, GS_SYSCALL, GS_NOTEXIST);
        break;
    case GO_EV_GO_STOP:
    case GO_EV_GO_BLOCK:
        G(ev->g, GS_RUNNING, ev->type == GO_EV_GO_STOP ? GS_RUNNABLE : GS_WAITING);
        t->reason = a[0];
        t->stack = a[1];
        break;
    /* A switch first unblocks the goroutine it names, exactly like GoUnblock (same arguments);
     * the current goroutine's block or destroy and the named one's start are separate events
     * that order.c queues after it. */
    case GO_EV_GO_UNBLOCK:
    case GO_EV_GO_SWITCH:
    case GO_EV_GO_SWITCH_DESTROY:
        G(a[0], GS_WAITING, GS_RUNNABLE);
        break;
    case GO_EV_GO_SYSCALL_BEGIN:
        G(ev->g, GS_RUNNING, GS_SYSCALL);
        t->stack = a[1];
        break;
    case GO_EV_GO_SYSCALL_END:
        G(ev->g, GS_SYSCALL, GS_RUNNING);
        break;
    case GO_EV_GO_SYSCALL_END_BLOCKED: /* its P was taken: it must be scheduled again */
        G(ev->g, GS_SYSCALL, GS_RUNNABLE);
        break;
    /* A status names its goroutine (it need not run here). Its old state is what order.c knew:
     * the same state for a known goroutine (a fix-up: the move changes nothing), Undetermined
     * for one first seen in the first generation. */
    case GO_EV_GO_STATUS:
    case GO_EV_GO_STATUS_STACK:
        G(a[0], (uint8_t)ev->extra, a[2] < 5 ? gmap[a[2]] : GS_UNDET);
        break;
    default:
        return 0;
    }
#undef G
#undef P
    return 1;
}
