/* The accounting of counters.h: counts at the start, at each outermost MPI
 * call's enter and leave, and at the end; useful = all − in MPI. A failed
 * read turns the counters off with its reason (never a partial result). */
#include "counters.h"

#include <stdio.h>
#include <string.h>

int msc_ctr_start(msc_ctr_acc_t *acc, const msc_ctr_source_t *src)
{
    memset(acc, 0, sizeof *acc);
    acc->src = src;
    if (!src || src->open(src->u, acc->why, sizeof acc->why) != 0) {
        if (!acc->why[0]) snprintf(acc->why, sizeof acc->why, "no counter source");
        return -1;
    }
    if (src->read(src->u, acc->start) != 0) {
        snprintf(acc->why, sizeof acc->why, "the counters cannot be read");
        src->close(src->u);
        return -1;
    }
    acc->on = true;
    return 0;
}

static void off(msc_ctr_acc_t *acc)
{
    acc->on = false;
    snprintf(acc->why, sizeof acc->why, "a read of the counters failed during the run");
}

void msc_ctr_enter(msc_ctr_acc_t *acc)
{
    if (!acc->on || acc->depth++) return;
    if (acc->src->read(acc->src->u, acc->at_enter) != 0) off(acc);
}

void msc_ctr_leave(msc_ctr_acc_t *acc)
{
    if (!acc->on || !acc->depth || --acc->depth) return;
    uint64_t v[MSC_CTR_N];
    if (acc->src->read(acc->src->u, v) != 0) {
        off(acc);
        return;
    }
    for (int k = 0; k < MSC_CTR_N; k++) acc->in_mpi[k] += v[k] - acc->at_enter[k];
}

bool msc_ctr_finish(msc_ctr_acc_t *acc, uint64_t total[MSC_CTR_N], uint64_t useful[MSC_CTR_N])
{
    memset(total, 0, MSC_CTR_N * sizeof *total);
    memset(useful, 0, MSC_CTR_N * sizeof *useful);
    if (!acc->on) return false;
    uint64_t v[MSC_CTR_N];
    bool ok = acc->src->read(acc->src->u, v) == 0;
    acc->src->close(acc->src->u);
    acc->on = false;
    if (!ok) {
        snprintf(acc->why, sizeof acc->why, "a read of the counters failed at the end");
        return false;
    }
    for (int k = 0; k < MSC_CTR_N; k++) {
        total[k] = v[k] - acc->start[k];
        useful[k] = total[k] > acc->in_mpi[k] ? total[k] - acc->in_mpi[k] : 0;
    }
    return true;
}
