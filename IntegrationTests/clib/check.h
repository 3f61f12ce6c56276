/* A minimal test harness for the C client tests: CHECK counts, reports the line, never aborts. */
#ifndef JWTK_CHECK_H
#define JWTK_CHECK_H
#include <stdio.h>

extern int check_passed, check_failed;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (cond) {                                                                       \
            check_passed++;                                                               \
        } else {                                                                          \
            check_failed++;                                                               \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* Status equality with both names in the failure message. */
#define CHECK_STATUS(got, want, what)                                                      \
    do {                                                                                  \
        int got_ = (got), want_ = (want);                                                 \
        CHECK(got_ == want_, "%s: got %d (%s), want %d (%s)", (what), got_,               \
              jwtk_status_name(got_), want_, jwtk_status_name(want_));                    \
    } while (0)
#endif
