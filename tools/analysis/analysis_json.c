/* The sections of waitstates.json that the passes after the wait states
 * add (docs/analysis.md): "pop" (POP's efficiencies from the trace),
 * "replay" (ideal and modelled network), "critical_path" and "delay".
 * Everything here is computed from integers the passes left, so the
 * analysis in one process and under MPI write the same text.
 */
#include <stdio.h>

#include "waitstate_impl.h"
#include "../../src/core/json_out.h"

/* ratio a / b, 0 when b is 0 */
static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

void ws_write_json_analyses(FILE *f, const ws_result_t *r)
{
    uint64_t umax = 0, usum = 0;
    int n = r->ranks > 0 ? r->ranks : 0;
    for (int k = 0; k < n; k++) {
        usum += r->rank_useful_ns[k];
        if (r->rank_useful_ns[k] > umax) umax = r->rank_useful_ns[k];
    }
    double umean = n ? (double)usum / n : 0.0, rt = (double)r->runtime_ns;
    double lb = ratio(umean, (double)umax), ce = ratio((double)umax, rt);
    double se = ratio((double)umax, (double)r->ideal_ns), te = ratio((double)r->ideal_ns, rt);
    fprintf(f, ",\n  \"pop\": {\"runtime_ns\": %llu, \"useful_max_ns\": %llu, \"useful_mean_ns\": %.1f, "
               "\"ideal_runtime_ns\": %llu, \"parallel_efficiency\": %.6f, \"load_balance\": %.6f, "
               "\"communication_efficiency\": %.6f, \"serialization_efficiency\": %.6f, "
               "\"transfer_efficiency\": %.6f}",
            (unsigned long long)r->runtime_ns, (unsigned long long)umax, umean,
            (unsigned long long)r->ideal_ns, ratio(umean, rt), lb, ce, se, te);
    fprintf(f, ",\n  \"replay\": {\"ideal_runtime_ns\": %llu, \"unresolved_locations\": %llu, "
               "\"whatif\": ",
            (unsigned long long)r->ideal_ns, (unsigned long long)r->unresolved);
    if (r->whatif)
        fprintf(f, "{\"latency_s\": %.9g, \"bandwidth_Bps\": %.9g, \"runtime_ns\": %llu}}",
                r->latency_s, r->bandwidth_Bps, (unsigned long long)r->whatif_ns);
    else
        fprintf(f, "null}");
    fprintf(f, ",\n  \"critical_path\": {\"length_ns\": %llu, \"computation_ns\": %llu, "
               "\"mpi_ns\": %llu, \"start_rank\": %d, \"start_ns\": %llu, \"end_rank\": %d, "
               "\"hops\": %llu, \"imbalance_ns\": %llu, \"sites\": [",
            (unsigned long long)r->cp_ns, (unsigned long long)r->cp_comp_ns,
            (unsigned long long)r->cp_mpi_ns, r->cp_start_rank, (unsigned long long)r->cp_start_ns,
            r->cp_end_rank, (unsigned long long)r->cp_hops,
            (unsigned long long)r->cp_imbalance_ns);
    for (int i = 0; i < r->ncp_sites; i++) {
        const ws_cpsite_t *s = &r->cp_sites[i];
        fprintf(f, "%s\n    {\"site\": ", i ? "," : "");
        msc_json_put_string(f, s->name);
        fprintf(f, ", \"kind\": \"%s\", \"ns\": %llu, \"all_ranks_ns\": %llu}",
                s->mpi ? "mpi" : "computation", (unsigned long long)s->ns,
                (unsigned long long)s->total_ns);
    }
    fprintf(f, "]},\n  \"delay\": {\"patterns\": [");
    for (int p = 0; p < WS_NPATTERNS; p++)
        fprintf(f, "%s{\"id\": \"%s\", \"delay_ns\": %llu, \"propagated_ns\": %llu, \"longterm_ns\": %llu}",
                p ? ", " : "", ws_pattern_id[p], (unsigned long long)r->delay_ns[p],
                (unsigned long long)r->propagated_ns[p], (unsigned long long)r->longterm_ns[p]);
    fprintf(f, "],\n    \"causes\": [");
    for (int i = 0; i < r->ncauses; i++) {
        const ws_cause_t *c = &r->causes[i];
        fprintf(f, "%s\n    {\"pattern\": \"%s\", \"rank\": %d, \"site\": ", i ? "," : "",
                c->pattern >= 0 && c->pattern < WS_NPATTERNS ? ws_pattern_id[c->pattern] : "?",
                c->rank);
        msc_json_put_string(f, c->name);
        fprintf(f, ", \"ns\": %llu, \"longterm_ns\": %llu, \"start_ns\": %llu, \"end_ns\": %llu}",
                (unsigned long long)c->ns, (unsigned long long)c->longterm_ns,
                (unsigned long long)c->start_ns, (unsigned long long)c->end_ns);
    }
    fprintf(f, "]}");
    if (r->timeline) {
        fprintf(f, ",\n  \"timeline\": ");
        msc_json_put_string(f, r->timeline);
    }
}
