/* The analyses on synthetic traces whose every result is known in closed
 * form (bench/report/gen_trace.c's scenarios: ranks n, iterations I,
 * computation C = 10 µs, MPI calls of zero length unless they wait). The
 * expected values below are derived from what each scenario's ranks do, not
 * from the analysis; times must match to the nanosecond, efficiencies to
 * 1e-6.
 *   closed_form_test <gen_trace> <tmpdir>     exit code 0 when all pass */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "waitstate.h"

enum { I = 4, C = 10000, X = 3 * C, D = 5 * C };
#define D_LONG 5e9

static int fails;

static void eq(const char *sc, const char *what, double got, double want)
{
    bool ok = fabs(got - want) <= 1e-6 * (fabs(want) > 1 ? fabs(want) : 1);
    if (!ok) fails++;
    printf("%s %-44s %16.6f %s %16.6f\n", sc, what, got, ok ? "==" : "!=", want);
}

static msc_an_result_t *run(const char *gen, const char *tmp, const char *sc, int n,
                            const char *const *opt)
{
    char cmd[4600], anchor[4200], err[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/%s' && '%s' '%s/%s' %d %d %s >/dev/null", tmp, sc, gen,
             tmp, sc, n, I, sc);
    if (system(cmd) != 0) {
        fprintf(stderr, "closed_form_test: %s failed\n", cmd);
        exit(1);
    }
    snprintf(anchor, sizeof anchor, "%s/%s/traces.otf2", tmp, sc);
    msc_an_opts_t o = {0};
    for (int k = 0; opt && opt[k]; k += 2)
        if (msc_an_parse_option(opt[k], opt[k + 1], &o, err, sizeof err) != 1) {
            fprintf(stderr, "closed_form_test: %s\n", err);
            exit(1);
        }
    msc_an_result_t *r = msc_an_analyze(anchor, &o, err, sizeof err);
    if (!r) {
        fprintf(stderr, "closed_form_test: %s: %s\n", sc, err);
        exit(1);
    }
    msc_an_opts_free(&o);
    return r;
}

static void pop(const char *sc, const ws_result_t *r, double lb, double ce, double se, double te)
{
    uint64_t mx = 0, sum = 0;
    for (int k = 0; k < r->ranks; k++) {
        sum += r->rank_useful_ns[k];
        if (r->rank_useful_ns[k] > mx) mx = r->rank_useful_ns[k];
    }
    eq(sc, "load balance", (double)sum / r->ranks / (double)mx, lb);
    eq(sc, "communication efficiency", (double)mx / (double)r->runtime_ns, ce);
    eq(sc, "serialization efficiency", (double)mx / (double)r->ideal_ns, se);
    eq(sc, "transfer efficiency", (double)r->ideal_ns / (double)r->runtime_ns, te);
}

/* The cause of `pattern` on `rank` whose site starts with `site`. */
static uint64_t cause(const ws_result_t *r, int pattern, int rank, const char *site)
{
    uint64_t ns = 0;
    for (int k = 0; k < r->ncauses; k++)
        if (r->causes[k].pattern == pattern && r->causes[k].rank == rank &&
            !strncmp(r->causes[k].name, site, strlen(site)))
            ns += r->causes[k].ns;
    return ns;
}

/* The long-term delay of `pattern` traced to `rank`'s sites starting with `site`. */
static uint64_t longterm(const ws_result_t *r, int pattern, int rank, const char *site)
{
    uint64_t ns = 0;
    for (int k = 0; k < r->ncauses; k++)
        if (r->causes[k].pattern == pattern && r->causes[k].rank == rank &&
            !strncmp(r->causes[k].name, site, strlen(site)))
            ns += r->causes[k].longterm_ns;
    return ns;
}

/* latesender, n = 2: rank 0 receives at once and waits D for rank 1's
 * "heavy" computation, then both compute C. */
static void latesender(const char *gen, const char *tmp, const char *sc, double d)
{
    static const char *const half[] = {"--scale", "region:heavy:0.5", NULL};
    msc_an_result_t *r = run(gen, tmp, sc, 2, half);
    eq(sc, "runtime ns", (double)r->runtime_ns, I * (d + C));
    pop(sc, r, (double)(I * C + I * (d + C)) / 2 / (I * (d + C)), 1, 1, 1);
    eq(sc, "late sender ns", (double)r->ns[WS_LATE_SENDER], I * d);
    eq(sc, "delay: traced to rank 1's heavy", (double)cause(r, WS_LATE_SENDER, 1, "computation in heavy"), I * d);
    eq(sc, "critical path ns", (double)r->cp_ns, I * (d + C));
    eq(sc, "critical path on rank 1", (double)r->rank_cp_comp_ns[1], I * (d + C) - C);
    /* "heavy" twice as fast: each iteration D / 2 + C */
    eq(sc, "what-if runtime, heavy x0.5", (double)r->whatif_ns, I * (d / 2 + C));
    int named = 0;
    for (int k = 0; k < r->ncauses; k++)
        named += r->causes[k].rank == 1 && !strcmp(r->causes[k].name, "computation in heavy") &&
                 r->causes[k].start_ns == 0 && r->causes[k].end_ns == d;
    eq(sc, "cause named with its first interval", named, 1);
    msc_an_free(r);
}

/* latereceiver, n = 2: rank 0's synchronous send waits D for rank 1's
 * "heavy" computation before its receive, then both compute C. */
static void latereceiver(const char *gen, const char *tmp)
{
    const char *sc = "latereceiver";
    msc_an_result_t *r = run(gen, tmp, sc, 2, NULL);
    eq(sc, "runtime ns", (double)r->runtime_ns, I * (D + C));
    eq(sc, "late receiver ns", (double)r->ns[WS_LATE_RECEIVER], I * D);
    eq(sc, "late sender ns", (double)r->ns[WS_LATE_SENDER], 0);
    eq(sc, "delay: traced to rank 1's heavy", (double)cause(r, WS_LATE_RECEIVER, 1, "computation in heavy"), I * D);
    eq(sc, "delay: traced in all", (double)r->delay_ns[WS_LATE_RECEIVER], I * D);
    eq(sc, "delay: propagated", (double)r->propagated_ns[WS_LATE_RECEIVER], 0);
    eq(sc, "delay: nothing on rank 0", (double)cause(r, WS_LATE_RECEIVER, 0, ""), 0);
    int named = 0;
    for (int k = 0; k < r->ncauses; k++)
        named += r->causes[k].pattern == WS_LATE_RECEIVER && r->causes[k].rank == 1 &&
                 !strcmp(r->causes[k].name, "computation in heavy") &&
                 r->causes[k].start_ns == 0 && r->causes[k].end_ns == D;
    eq(sc, "cause named with its first interval", named, 1);
    msc_an_free(r);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: closed_form_test <gen_trace> <tmpdir>\n");
        return 2;
    }
    const char *gen = argv[1], *tmp = argv[2];
    static const char *const lat1us[] = {"--latency", "1us", NULL};

    /* imbalance, n = 4: rank r computes (r + 1) C, then a barrier that
     * leaves when rank 3 enters; runtime I n C. */
    ws_result_t *r = run(gen, tmp, "imbalance", 4, lat1us);
    eq("imbalance", "runtime ns", (double)r->runtime_ns, I * 4 * C);
    for (int k = 0; k < 4; k++) eq("imbalance", "useful ns of a rank", (double)r->rank_useful_ns[k], I * (k + 1) * C);
    pop("imbalance", r, 2.5 / 4, 1, 1, 1);
    eq("imbalance", "wait at barrier ns", (double)r->ns[WS_WAIT_BARRIER], I * (3 + 2 + 1) * C);
    eq("imbalance", "delay: traced to rank 3's compute", (double)cause(r, WS_WAIT_BARRIER, 3, "computation in compute"), I * 6 * C);
    eq("imbalance", "delay: propagated", (double)r->propagated_ns[WS_WAIT_BARRIER], 0);
    eq("imbalance", "long-term", (double)r->longterm_ns[WS_WAIT_BARRIER], 0);
    eq("imbalance", "critical path ns", (double)r->cp_ns, I * 4 * C);
    eq("imbalance", "critical path computation on rank 3", (double)r->rank_cp_comp_ns[3], I * 4 * C);
    /* on the path 4IC in compute; all ranks (1+2+3+4) IC, mean 2.5 IC */
    eq("imbalance", "critical-path imbalance ns", (double)r->cp_imbalance_ns, I * 1.5 * C);
    /* a barrier of 4 costs ceil(log2 4) = 2 latencies */
    eq("imbalance", "what-if runtime, L = 1 us", (double)r->whatif_ns, I * (4 * C + 2000));
    msc_an_free(r);

    /* pipeline, n = 4: rank r's i-th work starts at (i + r) C; runtime
     * (I + n - 1) C; rank r waits r C once, for rank r - 1's computation C. */
    r = run(gen, tmp, "pipeline", 4, lat1us);
    eq("pipeline", "runtime ns", (double)r->runtime_ns, (I + 3) * C);
    pop("pipeline", r, 1, (double)I / (I + 3), (double)I / (I + 3), 1);
    eq("pipeline", "late sender ns", (double)r->ns[WS_LATE_SENDER], (1 + 2 + 3) * C);
    for (int k = 0; k < 3; k++)
        eq("pipeline", "delay: traced to rank k's compute", (double)cause(r, WS_LATE_SENDER, k, "computation in compute"), C);
    eq("pipeline", "delay: propagated", (double)r->propagated_ns[WS_LATE_SENDER], (0 + 1 + 2) * C);
    eq("pipeline", "delay: traced", (double)r->delay_ns[WS_LATE_SENDER], 3 * C);
    /* Long-term: rank 3's 3C is C of rank 2's compute, then through rank 2's
     * wait C of rank 1's, then through rank 1's wait C of rank 0's; rank
     * 2's 2C is C of rank 1's and C of rank 0's: beyond the direct C each,
     * rank 0 caused 2C and rank 1 C through the others' waiting. */
    eq("pipeline", "long-term: rank 0's compute", (double)longterm(r, WS_LATE_SENDER, 0, "computation in compute"), 2 * C);
    eq("pipeline", "long-term: rank 1's compute", (double)longterm(r, WS_LATE_SENDER, 1, "computation in compute"), C);
    eq("pipeline", "long-term: rank 2's compute", (double)longterm(r, WS_LATE_SENDER, 2, ""), 0);
    eq("pipeline", "long-term: the whole propagated", (double)r->longterm_ns[WS_LATE_SENDER], (0 + 1 + 2) * C);
    eq("pipeline", "critical path ns", (double)r->cp_ns, (I + 3) * C);
    eq("pipeline", "critical path jumps", (double)r->cp_hops, 3);
    eq("pipeline", "critical path on rank 3", (double)r->rank_cp_comp_ns[3], I * C);
    eq("pipeline", "critical path on rank 1", (double)r->rank_cp_comp_ns[1], C);
    /* each of the n - 1 messages on the chain adds L */
    eq("pipeline", "what-if runtime, L = 1 us", (double)r->whatif_ns, (I + 3) * C + 3 * 1000);
    for (int k = 0; k < 4; k++)
        eq("pipeline", "what-if end of rank k", (double)r->rank_whatif_end_ns[k], (I + k) * C + k * 1000);
    msc_an_free(r);

    /* slowlink, n = 2: both compute C, rank 1 receives 1 MB X after it was
     * sent, then a barrier; runtime I (C + X), ideal I C. */
    static const char *const net[] = {"--latency", "1us", "--bandwidth", "100G", NULL};
    r = run(gen, tmp, "slowlink", 2, net);
    eq("slowlink", "runtime ns", (double)r->runtime_ns, I * (C + X));
    eq("slowlink", "ideal runtime ns", (double)r->ideal_ns, I * C);
    pop("slowlink", r, 1, (double)C / (C + X), 1, (double)C / (C + X));
    /* rank 0 waits X at each barrier; rank 1 computed nothing meanwhile */
    eq("slowlink", "wait at barrier ns", (double)r->ns[WS_WAIT_BARRIER], I * X);
    eq("slowlink", "delay: propagated", (double)r->propagated_ns[WS_WAIT_BARRIER], I * X);
    /* rank 1's receive took X without a wait state: nothing to follow */
    eq("slowlink", "long-term", (double)r->longterm_ns[WS_WAIT_BARRIER], 0);
    /* per iteration C, then L + 1e6 B / 1e11 B/s = 11 us, then the barrier's L */
    eq("slowlink", "what-if runtime", (double)r->whatif_ns, I * (C + 11000 + 1000));
    msc_an_free(r);

    latesender(gen, tmp, "latesender", D);
    /* The same with D = 5 s: a receive and a region of 2^32 ns and more. */
    latesender(gen, tmp, "latesender-long", D_LONG);
    latereceiver(gen, tmp);

    printf("closed_form_test: %s\n", fails ? "FAIL" : "all values exact");
    return fails != 0;
}
