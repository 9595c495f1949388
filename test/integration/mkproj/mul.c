/* mul.c: one compile of the tiny project (Makefile). */
#include "calc.h"

int mul(int a, int b)
{
    return a * b;
}
