/* A minimal table-driven test harness for the MPI_T tests: each test is a
 * function returning 0 on success; CHECK records the first failed condition
 * with its line. Every test prints "<name> PASS|FAIL" (rank 0, or any rank
 * that fails), and the program exits non-zero if any test failed. */
#ifndef MSC_TESTS_MPIT_CHECK_H
#define MSC_TESTS_MPIT_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int check_rank;
static int check_failures;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", check_rank,      \
                    __func__, __LINE__, #cond);                                     \
            return 1;                                                               \
        }                                                                           \
    } while (0)

/* CHECK that an MPI_T call returns `want`, printing what it returned. */
#define CHECK_RC(call, want)                                                        \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != (want)) {                                                        \
            fprintf(stderr, "[rank %d] %s:%d: %s returned %d, expected %s (%d)\n",  \
                    check_rank, __func__, __LINE__, #call, rc_, #want, (int)(want)); \
            return 1;                                                               \
        }                                                                           \
    } while (0)

typedef struct {
    const char *name;
    int (*fn)(void);
} check_test_t;

static void check_run(const check_test_t *tests, int n)
{
    for (int i = 0; i < n; i++) {
        int bad = tests[i].fn();
        if (bad) check_failures++;
        if (bad || check_rank == 0)
            printf("[rank %d] %-40s %s\n", check_rank, tests[i].name, bad ? "FAIL" : "PASS");
        fflush(stdout);
    }
}

#endif
