/* The counters module: with MPISCOPE_COUNTERS=1, the instructions and
 * cycles of each rank's useful computation (outside MPI), for POP's
 * Instruction and IPC Scaling (docs/analysis.md). Off by default: it costs
 * two reads of the counters per MPI call of the counted thread.
 *
 * The thread that initialised MPI is counted (a perf_event group counts
 * its own thread); other threads' calls are not. Every rank must have the
 * counters, or none records them: a machine without them (this VM) says so
 * once, on rank 0, and DIR/counters.json has "recorded": false and the
 * reason; the report and the scaling table mark the metrics that need them
 * as not recorded. At MPI_Finalize the per-rank counts meet on rank 0,
 * which writes DIR/counters.json.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "counters.h"
#include "log.h"
#include "module.h"
#include "output.h"
#include "state.h"
#include "../core/json_out.h"

static msc_ctr_acc_t acc;
static pthread_t counted;
static _Atomic int wanted;

static int counters_init(int slot)
{
    (void)slot;
    if (!msc_g.settings.v[MSC_SET_COUNTERS].num) return 1; /* off: not part of the run */
    int on = msc_ctr_start(&acc, &msc_ctr_perf_source) == 0, all = 0;
    PMPI_Allreduce(&on, &all, 1, MPI_INT, MPI_MIN, msc_g.comm);
    if (on && !all) {
        uint64_t t[MSC_CTR_N], u[MSC_CTR_N];
        msc_ctr_finish(&acc, t, u);
        snprintf(acc.why, sizeof acc.why, "another rank has no hardware counters");
    }
    if (!all && msc_g.world_rank == 0)
        msc_warn("hardware counters are unavailable (%s); Instruction and IPC Scaling are "
                 "marked as not recorded", on ? "another rank has none" : acc.why);
    counted = pthread_self();
    atomic_store(&wanted, all);
    return 0;
}

static void counters_enter(msc_call_t *c)
{
    (void)c;
    if (pthread_equal(pthread_self(), counted)) msc_ctr_enter(&acc);
}

static void counters_leave(msc_call_t *c)
{
    (void)c;
    if (pthread_equal(pthread_self(), counted)) msc_ctr_leave(&acc);
}

static void counters_finalize(void)
{
    atomic_store(&wanted, 0);
    msc_hooks_refresh();
    uint64_t mine[1 + 2 * MSC_CTR_N] = {0}, *all = NULL;
    uint64_t *total = mine + 1, *useful = mine + 1 + MSC_CTR_N;
    mine[0] = msc_ctr_finish(&acc, total, useful);
    if (msc_g.world_rank == 0) all = calloc((size_t)msc_g.world_size, sizeof mine);
    PMPI_Gather(mine, (int)(sizeof mine / sizeof *mine), MPI_UINT64_T, all,
                (int)(sizeof mine / sizeof *mine), MPI_UINT64_T, 0, msc_g.comm);
    if (msc_g.world_rank != 0 || !all || !msc_g.outdir[0]) {
        free(all);
        return;
    }
    bool rec = true;
    for (int r = 0; r < msc_g.world_size; r++) rec &= all[(size_t)r * (1 + 2 * MSC_CTR_N)] == 1;
    msc_out_t o;
    if (msc_out_open(&o, "counters.json")) {
        fprintf(o.f, "{\"schema_version\": 1, \"tool\": \"mpiscope\", \"kind\": \"counters\", "
                     "\"source\": \"perf_event_open\", \"recorded\": %s, \"reason\": ",
                rec ? "true" : "false");
        msc_json_put_string(o.f, rec ? "" : acc.why[0] ? acc.why : "a rank lost its counters");
        fprintf(o.f, ",\n \"per_rank\": [");
        for (int r = 0; rec && r < msc_g.world_size; r++) {
            const uint64_t *v = &all[(size_t)r * (1 + 2 * MSC_CTR_N)];
            fprintf(o.f, "%s\n  {\"rank\": %d, \"instructions\": %llu, \"cycles\": %llu, "
                         "\"useful_instructions\": %llu, \"useful_cycles\": %llu}",
                    r ? "," : "", r, (unsigned long long)v[1], (unsigned long long)v[2],
                    (unsigned long long)v[3], (unsigned long long)v[4]);
        }
        fprintf(o.f, "]}\n");
        msc_out_close(&o);
    }
    free(all);
}

static const msc_module_t counters_module = {
    .abi = MSC_MODULE_ABI,
    .name = "counters",
    .mode = NULL,
    .init = counters_init,
    .enter = counters_enter,
    .leave = counters_leave,
    .finalize = counters_finalize,
    .enter_wanted = &wanted,
    .leave_wanted = &wanted,
};

MSC_CONSTRUCTOR static void counters_register(void)
{
    msc_module_register(&counters_module);
}
