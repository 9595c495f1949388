/* add.c: one compile of the tiny project (Makefile). */
#include "calc.h"

int add(int a, int b)
{
    return a + b;
}
