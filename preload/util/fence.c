/* fence.c: the mode of the asymmetric fence and its heavy side. See fence.h. */
#include "fence.h"

#include "log.h"
#include "real.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>

int fence_asym;

static long membarrier(int cmd)
{
    return REAL(syscall)(SYS_membarrier, cmd, 0, 0);
}

void fence_init(void)
{
    fence_asym = 0;
    if (!GT_FENCE_CAN_ASYM) return;
    /* Registered (and proved to work once) or the locked mode. */
    fence_asym = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
                 membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
    gt_debug("seqlock sections: %s", fence_asym ? "asymmetric (membarrier)" : "locked");
}

int fence_sync(void)
{
    if (!fence_asym) return 0;
    return membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ? 0 : -1;
}
