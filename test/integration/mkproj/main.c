/* main.c: the tiny project's program: prints add(2, 3) * 7 = 35 (Makefile). */
#include "calc.h"

#include <stdio.h>

int main(void)
{
    printf("%d\n", mul(add(2, 3), 7));
    return 0;
}
