/* A tiny assertion layer for the layer's self-contained C test programs (the
 * GPU machine has no test library). Each CHECK counts one pass or one failure;
 * test_summary() prints the harness's closing line. */
#ifndef TLOB_TEST_CHECK_H
#define TLOB_TEST_CHECK_H

#include <stdio.h>

static int test_passed, test_failed;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (cond) {                                                           \
            test_passed++;                                                    \
        } else {                                                              \
            test_failed++;                                                    \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
        }                                                                     \
    } while (0)

static int test_summary(void) {
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}

#endif /* TLOB_TEST_CHECK_H */
