/* The hardware-counter accounting (src/counters/account.c) with an injected
 * source: scripted counts stand in for the PMU this VM does not have, so
 * the arithmetic of useful instructions and cycles (all − in MPI, only the
 * outermost of nested calls, a failing read turning the counters off) is
 * checked exactly; and the perf_event_open source either works or says why. */
#include "counters.h"
#include "runner.h"

typedef struct {
    uint64_t v[16][MSC_CTR_N];
    int n, at, fail_at;
    bool open_fails, closed;
} script_t;

static int s_open(void *u, char *why, size_t len)
{
    script_t *s = u;
    if (s->open_fails) snprintf(why, len, "scripted: no PMU");
    return s->open_fails ? -1 : 0;
}

static int s_read(void *u, uint64_t v[MSC_CTR_N])
{
    script_t *s = u;
    if (s->at == s->fail_at || s->at >= s->n) return -1;
    for (int k = 0; k < MSC_CTR_N; k++) v[k] = s->v[s->at][k];
    s->at++;
    return 0;
}

static void s_close(void *u) { ((script_t *)u)->closed = true; }

TEST(counters_useful_is_all_minus_mpi)
{
    /* start; two MPI calls; the end: instructions and cycles */
    script_t s = {.v = {{100, 200}, {150, 260}, {400, 600}, {450, 650}, {500, 700}, {1000, 1500}},
                  .n = 6, .fail_at = -1};
    msc_ctr_source_t src = {s_open, s_read, s_close, &s};
    msc_ctr_acc_t acc;
    ASSERT_EQ(msc_ctr_start(&acc, &src), 0);
    msc_ctr_enter(&acc), msc_ctr_leave(&acc);
    msc_ctr_enter(&acc), msc_ctr_leave(&acc);
    uint64_t total[MSC_CTR_N], useful[MSC_CTR_N];
    ASSERT(msc_ctr_finish(&acc, total, useful));
    /* all: 900, 1300; in MPI: 250 + 50, 340 + 50 */
    ASSERT_EQ(total[MSC_CTR_INSTRUCTIONS], 900);
    ASSERT_EQ(total[MSC_CTR_CYCLES], 1300);
    ASSERT_EQ(useful[MSC_CTR_INSTRUCTIONS], 600);
    ASSERT_EQ(useful[MSC_CTR_CYCLES], 910);
    ASSERT(s.closed);
}

TEST(counters_nested_calls_count_once)
{
    /* MPI_Finalize-like nesting: the inner call reads nothing */
    script_t s = {.v = {{0, 0}, {10, 20}, {70, 90}, {100, 200}}, .n = 4, .fail_at = -1};
    msc_ctr_source_t src = {s_open, s_read, s_close, &s};
    msc_ctr_acc_t acc;
    ASSERT_EQ(msc_ctr_start(&acc, &src), 0);
    msc_ctr_enter(&acc);
    msc_ctr_enter(&acc), msc_ctr_leave(&acc);
    msc_ctr_leave(&acc);
    uint64_t total[MSC_CTR_N], useful[MSC_CTR_N];
    ASSERT(msc_ctr_finish(&acc, total, useful));
    ASSERT_EQ(s.at, 4);
    ASSERT_EQ(useful[MSC_CTR_INSTRUCTIONS], 100 - 60);
    ASSERT_EQ(useful[MSC_CTR_CYCLES], 200 - 70);
}

TEST(counters_unavailable_says_why)
{
    script_t s = {.open_fails = true, .fail_at = -1};
    msc_ctr_source_t src = {s_open, s_read, s_close, &s};
    msc_ctr_acc_t acc;
    ASSERT_EQ(msc_ctr_start(&acc, &src), -1);
    ASSERT_HAS(acc.why, "no PMU");
    msc_ctr_enter(&acc), msc_ctr_leave(&acc); /* nothing happens */
    uint64_t total[MSC_CTR_N], useful[MSC_CTR_N];
    ASSERT(!msc_ctr_finish(&acc, total, useful));
    ASSERT_EQ(s.at, 0);
    ASSERT_EQ(useful[MSC_CTR_INSTRUCTIONS], 0);
}

TEST(counters_failed_read_is_no_result)
{
    script_t s = {.v = {{0, 0}, {10, 20}, {70, 90}, {100, 200}}, .n = 4, .fail_at = 2};
    msc_ctr_source_t src = {s_open, s_read, s_close, &s};
    msc_ctr_acc_t acc;
    ASSERT_EQ(msc_ctr_start(&acc, &src), 0);
    msc_ctr_enter(&acc), msc_ctr_leave(&acc); /* the leave's read fails */
    uint64_t total[MSC_CTR_N], useful[MSC_CTR_N];
    ASSERT(!msc_ctr_finish(&acc, total, useful));
    ASSERT_HAS(acc.why, "failed");
}

TEST(counters_perf_source_works_or_says_why)
{
    /* This VM has no PMU: the open fails with a reason; a machine with one
     * counts some instructions in a loop. */
    msc_ctr_acc_t acc;
    if (msc_ctr_start(&acc, &msc_ctr_perf_source) != 0) {
        ASSERT_HAS(acc.why, "perf_event_open");
        return;
    }
    volatile uint64_t x = 0;
    for (int i = 0; i < 100000; i++) x += (uint64_t)i;
    uint64_t total[MSC_CTR_N], useful[MSC_CTR_N];
    ASSERT(msc_ctr_finish(&acc, total, useful));
    ASSERT(total[MSC_CTR_INSTRUCTIONS] > 100000);
    ASSERT_EQ(useful[MSC_CTR_INSTRUCTIONS], total[MSC_CTR_INSTRUCTIONS]);
}
