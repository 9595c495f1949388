/* test_invariant.c: GT_ASSERT (util/invariant.h) as the debug and sanitizer builds compile it:
 * a check that holds costs nothing visible, one that fails aborts the process. */
#define GT_DEBUG_ASSERT 1
#include "invariant.h"

#include <criterion/criterion.h>
#include <signal.h>

static int calls;
static int counted(int v)
{
    calls++;
    return v;
}

Test(invariant, a_check_that_holds_goes_on)
{
    GT_ASSERT(counted(1) == 1);
    cr_assert_eq(calls, 1, "the condition is evaluated once in a debug build");
}

Test(invariant, a_failed_check_aborts, .signal = SIGABRT)
{
    GT_ASSERT(counted(2) == 3);
}
