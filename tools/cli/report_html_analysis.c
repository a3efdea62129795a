/* The HTML report's sections of the analyses (docs/analysis.md), kept apart
 * from report_html.c, which calls them with one line each:
 *   msc_html_pop       POP's efficiency tree: Parallel Efficiency, Load
 *                      Balance, Communication Efficiency, and from a trace
 *                      Serialization and Transfer Efficiency; each with a
 *                      bar coloured by POP's reading (0.8 or more good, 0.6
 *                      or more fair, else poor);
 *   msc_html_analysis  the critical path (per rank, per site, imbalance) and
 *                      the delay analysis (the computation that caused the
 *                      waiting), from waitstates.json.
 * Plain HTML and CSS (no <svg class="plot">: the page's plot count is the
 * profile's and wait states' plots). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_cli.h"

typedef const msc_json_t J;

static void node(FILE *o, int depth, const char *name, double v, const char *src)
{
    const char *col = v >= 0.8 ? "#59a14f" : v >= 0.6 ? "#edc948" : "#e15759";
    const char *word = v >= 0.8 ? "good" : v >= 0.6 ? "fair" : "poor";
    fprintf(o,
            "<div class=\"popn\" style=\"margin-left:%dpx\" data-metric=\"%s\" data-value=\"%.6f\">"
            "<span class=\"popl\">%s</span><span class=\"popb\"><span style=\"width:%.1f%%;"
            "background:%s\"></span></span><b>%.3f</b> <span class=\"popw\">%s%s%s</span></div>\n",
            24 * depth, name, v, name, 100.0 * (v > 1 ? 1 : v < 0 ? 0 : v), col, v, word,
            src ? ", " : "", src ? src : "");
}

void msc_html_pop(FILE *o, const msc_json_t *profile, const msc_json_t *ws)
{
    J *pp = profile ? msc_json_get(profile, "pop") : NULL;
    J *pt = ws ? msc_json_get(ws, "pop") : NULL;
    if (!pp && !pt) return;
    fprintf(o, "<section id=\"pop\"><h2>POP efficiency</h2><p>How much of the run is useful "
               "computation (time outside MPI), and where the rest goes. POP's reading: 0.8 or "
               "more is good. %s</p>\n<style>.popn{display:flex;align-items:center;gap:10px;"
               "margin:3px 0}.popl{width:220px}.popb{display:inline-block;width:260px;height:12px;"
               "background:#eee;border-radius:3px;overflow:hidden}.popb span{display:block;"
               "height:100%%}.popw{color:#666;font-size:12px}</style>\n",
            pp ? "Load Balance and Communication Efficiency come from the profile; "
                 "Serialization and Transfer from replaying the trace on an ideal network."
               : "From the trace.");
    J *top = pp ? pp : pt;
    const char *s1 = pp ? NULL : "trace";
    node(o, 0, "Parallel Efficiency", msc_json_num(top, "parallel_efficiency"), s1);
    node(o, 1, "Load Balance", msc_json_num(top, "load_balance"), s1);
    node(o, 1, "Communication Efficiency", msc_json_num(top, "communication_efficiency"), s1);
    if (pt) {
        node(o, 2, "Serialization Efficiency", msc_json_num(pt, "serialization_efficiency"), "trace");
        node(o, 2, "Transfer Efficiency", msc_json_num(pt, "transfer_efficiency"), "trace");
        int64_t rt = msc_json_int(pt, "runtime_ns"), id = msc_json_int(pt, "ideal_runtime_ns");
        fprintf(o, "<p>Run time %.6f s; on an ideal network %.6f s: the real network costs "
                   "<b>%.6f s</b> (%.1f %%).</p>\n",
                (double)rt / 1e9, (double)id / 1e9, (double)(rt - id) / 1e9,
                rt ? 100.0 * (double)(rt - id) / (double)rt : 0.0);
    }
    fprintf(o, "</section>\n");
}

void msc_html_analysis(FILE *o, const msc_json_t *ws)
{
    J *cp = ws ? msc_json_get(ws, "critical_path") : NULL;
    if (!cp) return;
    int64_t len = msc_json_int(cp, "length_ns");
    fprintf(o, "<section id=\"critical-path\"><h2>Critical path</h2><p>The computation and "
               "communication that set the run time: %.6f s from rank %lld to rank %lld, %lld "
               "jumps between locations; computation %.6f s, MPI %.6f s. Critical-path "
               "imbalance <b>%.6f s</b> (%.1f %% of the path): time the path spends in "
               "computation beyond the mean per rank.</p>\n",
            (double)len / 1e9, (long long)msc_json_int(cp, "start_rank"),
            (long long)msc_json_int(cp, "end_rank"), (long long)msc_json_int(cp, "hops"),
            (double)msc_json_int(cp, "computation_ns") / 1e9,
            (double)msc_json_int(cp, "mpi_ns") / 1e9,
            (double)msc_json_int(cp, "imbalance_ns") / 1e9,
            len ? 100.0 * (double)msc_json_int(cp, "imbalance_ns") / (double)len : 0.0);
    fprintf(o, "<table class=\"sortable\"><thead><tr><th>kind</th><th>on the path (s)</th>"
               "<th>all ranks (s)</th><th>site</th></tr></thead><tbody>\n");
    int n = 0;
    J *sites = msc_json_get(cp, "sites");
    for (J *s = sites ? sites->child : NULL; s && n < 50; s = s->next) {
        int64_t ns = msc_json_int(s, "ns");
        if (!ns) continue;
        n++;
        bool mpi = !strcmp(msc_json_str(s, "kind", ""), "mpi");
        fprintf(o, "<tr><td>%s</td><td class=\"n\" data-v=\"%lld\">%.6f</td>", mpi ? "MPI" : "computation",
                (long long)ns, (double)ns / 1e9);
        if (mpi) fprintf(o, "<td></td><td>");
        else fprintf(o, "<td class=\"n\" data-v=\"%lld\">%.6f</td><td>",
                     (long long)msc_json_int(s, "all_ranks_ns"), (double)msc_json_int(s, "all_ranks_ns") / 1e9);
        msc_html_esc(o, msc_json_str(s, "site", "?"));
        fprintf(o, "</td></tr>\n");
    }
    fprintf(o, "</tbody></table></section>\n");

    J *dl = msc_json_get(ws, "delay");
    J *cs = msc_json_get(dl, "causes");
    fprintf(o, "<section id=\"delay\"><h2>Delay: what caused the waiting</h2><p>Each wait is "
               "traced to the computation of the rank waited for, between its previous "
               "communication and the call waited for; waiting beyond that computation came "
               "through that rank's own waiting (propagated); long-term: the propagated "
               "waiting followed back along that chain to the computation that started it.</p>\n");
    fprintf(o, "<table class=\"sortable\"><thead><tr><th>pattern</th><th>traced (s)</th>"
               "<th>propagated (s)</th><th>of it long-term (s)</th></tr></thead><tbody>\n");
    J *dp = msc_json_get(dl, "patterns");
    for (J *p = dp ? dp->child : NULL; p; p = p->next) {
        int64_t d = msc_json_int(p, "delay_ns"), q = msc_json_int(p, "propagated_ns");
        int64_t lt = msc_json_int(p, "longterm_ns");
        if (!d && !q) continue;
        fprintf(o, "<tr><td>");
        msc_html_esc(o, msc_json_str(p, "id", "?"));
        fprintf(o, "</td><td class=\"n\" data-v=\"%lld\">%.6f</td><td class=\"n\" data-v=\"%lld\">"
                   "%.6f</td><td class=\"n\" data-v=\"%lld\">%.6f</td></tr>\n", (long long)d,
                (double)d / 1e9, (long long)q, (double)q / 1e9, (long long)lt, (double)lt / 1e9);
    }
    fprintf(o, "</tbody></table>\n<table class=\"sortable\"><thead><tr><th>pattern</th>"
               "<th>rank</th><th>caused (s)</th><th>long-term (s)</th><th>largest interval (s)</th>"
               "<th>computation</th></tr></thead><tbody>\n");
    n = 0;
    for (J *c = cs ? cs->child : NULL; c && n < 50; c = c->next, n++) {
        int64_t ns = msc_json_int(c, "ns"), lt = msc_json_int(c, "longterm_ns");
        fprintf(o, "<tr><td>");
        msc_html_esc(o, msc_json_str(c, "pattern", "?"));
        fprintf(o, "</td><td class=\"n\" data-v=\"%lld\">%lld</td><td class=\"n\" data-v=\"%lld\">"
                   "%.6f</td><td class=\"n\" data-v=\"%lld\">%.6f</td><td>%.6f&ndash;%.6f</td><td>",
                (long long)msc_json_int(c, "rank"), (long long)msc_json_int(c, "rank"),
                (long long)ns, (double)ns / 1e9, (long long)lt, (double)lt / 1e9,
                (double)msc_json_int(c, "start_ns") / 1e9,
                (double)msc_json_int(c, "end_ns") / 1e9);
        msc_html_esc(o, msc_json_str(c, "site", "?"));
        fprintf(o, "</td></tr>\n");
    }
    fprintf(o, "</tbody></table></section>\n");
}
