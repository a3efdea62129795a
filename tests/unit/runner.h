/* Private to the unit tests. A table-driven runner in the manner of libuv's:
 * every test is a name and a function that asserts one behaviour; list.h is
 * the table. `unit_tests NAME` runs one test (CTest runs each in its own
 * process, so environment changes never leak from one test to the next);
 * `unit_tests` alone runs them all in one process, for a quick look.
 */
#ifndef MSC_TESTS_UNIT_RUNNER_H
#define MSC_TESTS_UNIT_RUNNER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST(name) void msc_test_##name(void)

#define FAIL(...)                                                   \
    do {                                                            \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);             \
        fprintf(stderr, __VA_ARGS__);                               \
        fputc('\n', stderr);                                        \
        exit(1);                                                    \
    } while (0)

#define ASSERT(cond)                                                \
    do {                                                            \
        if (!(cond)) FAIL("assertion failed: %s", #cond);           \
    } while (0)

#define ASSERT_EQ(a, b)                                                                   \
    do {                                                                                  \
        long long msc_a_ = (long long)(a), msc_b_ = (long long)(b);                       \
        if (msc_a_ != msc_b_) FAIL("%s == %s: %lld != %lld", #a, #b, msc_a_, msc_b_);    \
    } while (0)

#define ASSERT_STR_EQ(a, b)                                                               \
    do {                                                                                  \
        const char *msc_a_ = (a), *msc_b_ = (b);                                          \
        if (strcmp(msc_a_, msc_b_) != 0) FAIL("%s == %s: '%s' != '%s'", #a, #b, msc_a_, msc_b_); \
    } while (0)

/* `haystack` contains `needle`. */
#define ASSERT_HAS(haystack, needle)                                                      \
    do {                                                                                  \
        const char *msc_h_ = (haystack), *msc_n_ = (needle);                              \
        if (!strstr(msc_h_, msc_n_)) FAIL("'%s' does not contain '%s'", msc_h_, msc_n_);  \
    } while (0)

#define UNIT_TEST(name) TEST(name);
#include "list.h"
#undef UNIT_TEST

#endif
