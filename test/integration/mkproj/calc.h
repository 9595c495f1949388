/* calc.h: the two functions of the `processes` case's tiny project (Makefile). */
int add(int a, int b);
int mul(int a, int b);
