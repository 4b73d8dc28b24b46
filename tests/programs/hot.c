/* A hot small function under a loop of argv[1] iterations (default 20000): recorded by
 * tests/uftrace_generated.rs and, with millions of iterations, by scripts/bench-uftrace.sh. */
#include <stdio.h>
#include <stdlib.h>
int leaf(int x) { return x * 3 + 1; }
int mid(int x) { int s = 0; for (int i = 0; i < 4; i++) s += leaf(x + i); return s; }
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000, s = 0;
    for (long i = 0; i < n; i++) s += mid((int)i);
    printf("%ld\n", s);
    return 0;
}
