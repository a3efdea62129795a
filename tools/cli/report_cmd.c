/* `mpiscope report`: everything a run directory holds, as text or as one
 * HTML file.
 *
 *   mpiscope report [--sort K] [--limit N | --all] [--html [-o FILE]]
 *                   [--no-waitstates] [--reanalyze] [--np N [--mpi MPI]]
 *                   [--parallel-locations N] [--quiet] DIR|FILE.json
 *
 * The profile text is report.c's (the renderer of profile.txt, so that part
 * is that file byte for byte). When DIR has a trace (DIR/trace/traces.otf2),
 * the wait states follow: they are computed once (waitstate.c), written to
 * DIR/waitstates.json, and read from there while that file is newer than
 * the trace; with --np N, by the analysis under MPI (waitstate_par.c).
 * --html writes DIR/report.html (report_html.c) instead of text.
 *
 * report.c stays on its own (tests/profile builds it alone into a stand-alone
 * report program), so this file wraps it rather than growing it.
 */
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/profile/banner.h"
#include "../../src/profile/pjson.h"
#include "commands.h"
#include "report_cli.h"
#include "outdir.h"
#include "spawn_match.h"
#include "trace_check.h"
#include "trace_reader.h"
#include "analysis.h"

/* A time after the run's start: seconds, or with a unit s, ms, us, ns. */
static int parse_time_ns(const char *s, unsigned long long *ns)
{
    char *end;
    if (!*s || *s == '-' || *s == '+') return -1;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0) || v > 1e9) return -1;
    double unit = !*end || !strcmp(end, "s") ? 1e9 : !strcmp(end, "ms") ? 1e6
                  : !strcmp(end, "us") ? 1e3 : !strcmp(end, "ns") ? 1 : -1;
    if (unit < 0) return -1;
    *ns = (unsigned long long)(v * unit + 0.5);
    return 0;
}

static void usage(FILE *o)
{
    fprintf(o,
            "usage: mpiscope report [--sort time|calls|bytes|name] [--limit N | --all]\n"
            "                       [--html [-o FILE] [--from T] [--to T]] [--no-waitstates]\n"
            "                       [--reanalyze]\n"
            "                       [--np N [--mpi openmpi|mpich]] [--parallel-locations N]\n"
            "                       [--allow-partial] [--by-node] [--part COPY]... DIR|FILE.json\n"
            "       mpiscope report [--weak] [--np N] RUN1 RUN2 [RUN3...]\n"
            "\n"
            "Prints the profile report of DIR/profile.json (default: sorted by time, 20 rows\n"
            "per table): the same text as DIR/profile.txt. When DIR holds a trace, the wait\n"
            "states follow (Late Sender, Late Receiver, Wait at Barrier and N×N, Late\n"
            "Broadcast, Early Reduce, completions; per rank and call site); they are saved in\n"
            "DIR/waitstates.json and reused while it is newer than the trace. With several\n"
            "runs of one program at different rank counts: POP's scaling table (Global\n"
            "Efficiency, Computation, Instruction and IPC Scaling).\n"
            "\n"
            "  --html              write one self-contained HTML file (DIR/report.html, or -o)\n"
            "  -o FILE             where --html writes\n"
            "  --from T --to T     with --html: the timeline carries every exact call in this\n"
            "                      window (seconds after the run's start, or 20ms, 300us, 4000ns)\n"
            "  --no-waitstates     skip the trace analysis\n"
            "  --part COPY         a node's copy of DIR, when the output directory was not\n"
            "                      shared by every node (DIR/trace/parts.txt): its ranks'\n"
            "                      trace events are merged with DIR's (repeat per node)\n"
            "  --by-node           add the ranks grouped by host: per node its ranks' MPI time\n"
            "                      and share, and the node's totals (hosts from profile.json,\n"
            "                      else from the trace's system tree)\n"
            "  --reanalyze         analyse the trace again even if waitstates.json is current\n"
            "  --np N              analyse the trace with N MPI processes (mpiscope-analyze\n"
            "                      under the MPI's launcher, mpirun.<mpi>); default 1: here\n"
            "  --mpi MPI           the MPI for --np: openmpi or mpich (default: the first\n"
            "                      installed)\n"
            "  --weak              with several runs: weak scaling (work grows with the ranks)\n"
            "  --parallel-locations N\n"
            "                      with --np, analyse traces of fewer than N locations here\n"
            "                      (default 0: always under MPI)\n"
            "  --allow-partial     exit 0 on a partial trace (default: exit 3 after the report)\n"
            "\n"
            "Exit status: 0 done; 1 nothing could be reported (unreadable or missing data);\n"
            "2 bad usage; 3 reported, but the trace is partial (a rank's trace stopped on a\n"
            "write error, locations whose events cannot be read, or a run cut short whose\n"
            "ranks left partial traces: they are named on stderr and in the report).\n");
}

msc_json_doc_t *msc_load_json(const char *path, bool quiet_if_missing)
{
    size_t len = 0;
    char *text = msc_slurp(path, &len);
    if (!text) {
        if (!(quiet_if_missing && errno == ENOENT))
            fprintf(stderr, "mpiscope report: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char err[256];
    msc_json_doc_t *doc = msc_json_parse(text, len, err, sizeof err);
    free(text);
    if (!doc) fprintf(stderr, "mpiscope report: %s is not valid JSON: %s\n", path, err);
    return doc;
}

static bool newer_or_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false;
    if (sa.st_mtim.tv_sec != sb.st_mtim.tv_sec) return sa.st_mtim.tv_sec > sb.st_mtim.tv_sec;
    return sa.st_mtim.tv_nsec >= sb.st_mtim.tv_nsec;
}

/* Writes `r` to dir/waitstates.json (through a temporary file) and returns
 * the parsed document; if the directory is not writable, the document is
 * made in memory and a warning says so. */
static msc_json_doc_t *save_text(const char *dir, char *mem, size_t memlen);

static msc_json_doc_t *save_waitstates(const char *dir, const msc_an_result_t *r)
{
    char *mem = NULL;
    size_t memlen = 0;
    FILE *m = open_memstream(&mem, &memlen);
    if (!m) return NULL;
    msc_an_write_json(m, r, "trace/traces.otf2");
    fclose(m);
    return save_text(dir, mem, memlen);
}

/* Saves the waitstates.json text `mem` (freed here) as the analysis in
 * this process does, and returns it parsed. */
static msc_json_doc_t *save_text(const char *dir, char *mem, size_t memlen)
{
    char path[4096], tmp[4200];
    if (!dir) { /* (a timeline window asked for: not saved) */
        char err[256];
        msc_json_doc_t *doc = msc_json_parse(mem, memlen, err, sizeof err);
        free(mem);
        return doc;
    }
    snprintf(path, sizeof path, "%s/waitstates.json", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(mem, 1, memlen, f) == memlen;
    if (f) ok = (fclose(f) == 0) && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "mpiscope report: cannot write %s (%s); the wait states are not saved\n",
                path, strerror(errno));
        unlink(tmp);
    }
    char err[256];
    msc_json_doc_t *doc = msc_json_parse(mem, memlen, err, sizeof err);
    free(mem);
    return doc;
}

/* Number of locations of the trace, from its definitions; -1 if unreadable. */
static long trace_locations(const char *anchor)
{
    char err[512];
    msc_trace_t *t = msc_trace_open(anchor, err, sizeof err);
    long n = t ? (long)t->nloc : -1;
    msc_trace_close(t);
    return n;
}

msc_json_doc_t *msc_report_waitstates(const char *dir, bool reanalyze, const msc_ws_opts_t *o)
{
    char anchor[4096], path[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    snprintf(path, sizeof path, "%s/waitstates.json", dir);
    if (access(anchor, R_OK) != 0) return NULL;
    const char *save = o && o->window ? NULL : dir;
    char win[64];
    if (o && o->window) snprintf(win, sizeof win, "%llu:%llu", o->from_ns, o->to_ns);
    if (!reanalyze && save && newer_or_same(path, anchor)) {
        msc_json_doc_t *d = msc_load_json(path, true);
        /* One written before these analyses existed, or without the
         * timeline that --html needs, is analysed again. */
        if (d && msc_json_get(msc_json_root(d), "critical_path") &&
            (!o || !o->timeline || msc_json_get(msc_json_root(d), "timeline")))
            return d;
        msc_json_free(d);
    }
    if (o && o->np > 1 && (o->min_locations <= 0 || trace_locations(anchor) >= o->min_locations)) {
        size_t len = 0;
        char *tl[] = {"--timeline", "1", "--window", win};
        char *text = msc_waitstate_parallel(anchor, o->np, o->mpi, tl,
                                            o->timeline ? o->window ? 4 : 2 : 0, &len);
        /* A failed analysis under MPI has said why; it is not repeated here. */
        return text ? save_text(save, text, len) : NULL;
    }
    char err[512];
    msc_an_opts_t ao = {.progress = isatty(2), .timeline = o && o->timeline,
                        .window = o && o->window, .window_from_ns = o ? o->from_ns : 0,
                        .window_to_ns = o ? o->to_ns : 0};
    msc_an_result_t *r = msc_an_analyze(anchor, &ao, err, sizeof err);
    if (!r) {
        fprintf(stderr, "mpiscope report: wait states: %s\n", err);
        return NULL;
    }
    msc_json_doc_t *d = save_waitstates(save, r);
    msc_an_free(r);
    return d;
}

/* True if `dir` holds what a run cut short leaves: per-rank partial profiles
 * (profile.rank<R>.incomplete.json, profile.rank<R>.flush<K>.json) or the
 * core's rank-<N>.incomplete notes. */
static bool has_partial_profile(const char *dir)
{
    if (!dir) return false;
    static const char *const patterns[] = {"%s/profile.rank*.json", "%s/rank-*.incomplete"};
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        char pat[4200];
        snprintf(pat, sizeof pat, patterns[i], dir);
        glob_t g;
        int rc = glob(pat, 0, NULL, &g);
        size_t n = rc == 0 ? g.gl_pathc : 0;
        globfree(&g);
        if (n > 0) return true;
    }
    return false;
}

/* The ranks whose partial traces a run cut short left (trace/rank<R>.incomplete,
 * src/trace/emergency.c), as ranges ("0-3,5"); NULL when there are none. */
static char *partial_trace_ranks(const char *dir)
{
    char pat[4200];
    snprintf(pat, sizeof pat, "%s/trace/rank*.incomplete", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0) return NULL;
    long *ranks = calloc(g.gl_pathc, sizeof *ranks);
    size_t n = 0;
    for (size_t i = 0; ranks && i < g.gl_pathc; i++) {
        const char *base = strrchr(g.gl_pathv[i], '/');
        char *end = NULL;
        long r = strtol(base + 5, &end, 10); /* "/rank" */
        if (end != base + 5 && strcmp(end, ".incomplete") == 0 && r >= 0) ranks[n++] = r;
    }
    globfree(&g);
    char *text = NULL;
    size_t len = 0;
    FILE *o = n ? open_memstream(&text, &len) : NULL;
    if (o) {
        /* Sorted (glob's order is by name: rank10 before rank2), then ranges. */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && ranks[j - 1] > ranks[j]; j--) {
                long t = ranks[j];
                ranks[j] = ranks[j - 1], ranks[j - 1] = t;
            }
        for (size_t i = 0; i < n; i++) {
            size_t j = i;
            while (j + 1 < n && ranks[j + 1] == ranks[j] + 1) j++;
            if (j > i) fprintf(o, "%s%ld-%ld", i ? "," : "", ranks[i], ranks[j]);
            else fprintf(o, "%s%ld", i ? "," : "", ranks[i]);
            i = j;
        }
        fclose(o);
    }
    free(ranks);
    return text;
}

/* The report of one run directory (or of several runs' scaling). The
 * single run directory's index in argv goes to *dir_at (-1 for several
 * runs, --html or --part, whose spawned worlds are not reported here), and
 * --allow-partial to *allow_out. */
static int report_one(int argc, char **argv, int *dir_at, bool *allow_out)
{
    const char *target = NULL, *html_out = NULL;
    bool html = false, no_ws = false, reanalyze = false, weak = false, allow_partial = false;
    bool by_node = false;
    char *parts[256];
    int nparts = 0;
    char merged[4096] = "", html_default[4000];
    char **runs = calloc((size_t)argc + 1, sizeof *runs);
    int nruns = 0;
    msc_ws_opts_t wso = {1, NULL, 0, false, false, 0, ~0ull};
    char **pass = calloc((size_t)argc + 2, sizeof *pass);
    int npass = 0;
    int limit = 20;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(pass);
            return 0;
        } else if ((!strcmp(a, "--sort") || !strcmp(a, "--limit")) && i + 1 < argc) {
            if (!strcmp(a, "--limit")) limit = atoi(argv[i + 1]);
            pass[npass++] = argv[i];
            pass[npass++] = argv[++i];
        } else if (!strcmp(a, "--all")) {
            limit = 0;
            pass[npass++] = argv[i];
        } else if (!strcmp(a, "--html")) {
            html = true;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            html_out = argv[++i];
        } else if ((!strcmp(a, "--from") || !strcmp(a, "--to")) && i + 1 < argc) {
            unsigned long long ns;
            if (parse_time_ns(argv[++i], &ns) != 0) {
                fprintf(stderr, "mpiscope report: %s takes a time after the run's start such as "
                                "1.5, 20ms, 300us or 4000ns (seconds without a unit), not '%s'\n",
                        a, argv[i]);
                free(pass), free(runs);
                return 2;
            }
            *(a[2] == 'f' ? &wso.from_ns : &wso.to_ns) = ns;
            wso.window = true;
        } else if (!strcmp(a, "--weak")) {
            weak = true;
        } else if (!strcmp(a, "--allow-partial")) {
            allow_partial = true;
        } else if (!strcmp(a, "--part") && i + 1 < argc) {
            if (nparts == (int)(sizeof parts / sizeof *parts)) {
                fprintf(stderr, "mpiscope report: at most %zu --part copies\n",
                        sizeof parts / sizeof *parts);
                free(pass), free(runs);
                return 2;
            }
            parts[nparts++] = argv[++i];
        } else if (!strcmp(a, "--by-node")) {
            by_node = true;
        } else if (!strcmp(a, "--no-waitstates")) {
            no_ws = true;
        } else if (!strcmp(a, "--reanalyze")) {
            reanalyze = true;
        } else if (!strcmp(a, "--parallel-locations") && i + 1 < argc) {
            char *end = NULL;
            wso.min_locations = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || wso.min_locations < 0) {
                fprintf(stderr, "mpiscope report: --parallel-locations takes a number from 0, "
                                "not '%s'\n", argv[i]);
                free(pass);
                return 2;
            }
        } else if (!strcmp(a, "--np") && i + 1 < argc) {
            char *end = NULL;
            long np = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || np < 1 || np > 100000) {
                fprintf(stderr, "mpiscope report: --np takes a number from 1 to 100000, "
                                "not '%s'\n", argv[i]);
                free(pass);
                return 2;
            }
            wso.np = (int)np;
        } else if (!strcmp(a, "--mpi") && i + 1 < argc) {
            wso.mpi = argv[++i];
            if (strcmp(wso.mpi, "openmpi") && strcmp(wso.mpi, "mpich")) {
                fprintf(stderr, "mpiscope report: --mpi takes openmpi or mpich, not '%s'\n",
                        wso.mpi);
                free(pass);
                return 2;
            }
        } else if (a[0] == '-') {
            usage(stderr);
            free(pass), free(runs);
            return 2;
        } else {
            if (!target) *dir_at = i;
            target = target ? target : a;
            runs[nruns++] = argv[i];
        }
    }
    *allow_out = allow_partial;
    if (nruns != 1 || html || nparts) *dir_at = -1;
    if (nruns > 1) {
        /* Several runs: POP's scaling table (scaling.c). */
        int rc = 2;
        if (html) fprintf(stderr, "mpiscope report: --html takes one run; the scaling table of "
                                  "several runs is text\n");
        else rc = msc_report_scaling(nruns, runs, weak, &wso, stdout);
        free(pass), free(runs);
        return rc;
    }
    free(runs);
    if (wso.window && (!html || wso.to_ns <= wso.from_ns)) {
        fprintf(stderr, "mpiscope report: --from/--to %s\n",
                !html ? "go with --html (the timeline's window of exact calls)"
                      : "need FROM before TO");
        free(pass);
        return 2;
    }
    if (!target || (html_out && !html)) {
        usage(stderr);
        free(pass);
        return 2;
    }
    struct stat sb;
    bool is_dir = stat(target, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (nparts) {
        if (!is_dir || msc_report_parts_merge(target, parts, nparts, merged, sizeof merged)) {
            if (!is_dir) fprintf(stderr, "mpiscope report: --part needs DIR, not a file\n");
            msc_report_parts_cleanup(merged);
            free(pass);
            return is_dir ? 1 : 2;
        }
        /* The HTML page goes next to DIR, not into the links (removed at the end). */
        if (html && !html_out) {
            snprintf(html_default, sizeof html_default, "%.3900s/report.html", target);
            html_out = html_default;
        }
        target = merged;
    }
    char profile[4096], anchor[4096];
    snprintf(profile, sizeof profile, is_dir ? "%s/profile.json" : "%s", target);
    snprintf(anchor, sizeof anchor, "%.4000s/trace/traces.otf2", target);
    bool has_profile = access(profile, R_OK) == 0;
    bool has_trace = is_dir && access(anchor, R_OK) == 0;
    bool has_checks = is_dir && msc_report_checks(target);
    if (!has_profile && is_dir && !html && (has_partial_profile(target) || !has_trace)) {
        /* A run cut short: report.c merges the ranks' partial files and says
         * which ranks are missing and why (or that there is nothing). */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", target);
        pass[npass++] = dir;
        int rc = has_partial_profile(target) || !has_checks ? msc_cmd_report(npass, pass) : 0;
        if (has_checks) msc_report_checks_print(target, stdout);
        /* Traced, its trace is only what each rank saved as it went down
         * (a job cancelled, a rank killed): partial, as a damaged archive. */
        char *cut = partial_trace_ranks(target);
        if (cut) {
            fprintf(stderr, "mpiscope report: the trace is partial: the run did not reach "
                            "MPI_Finalize; ranks %s left what they had recorded in "
                            "trace/rank<R>.incomplete\n", cut);
            if (rc == 0 && !allow_partial) rc = 3;
            free(cut);
        }
        free(pass);
        msc_report_parts_cleanup(merged);
        return rc;
    }
    if (!has_profile && !has_trace) {
        fprintf(stderr, "mpiscope report: %s has neither profile.json nor a trace "
                        "(trace/traces.otf2)\n", target);
        free(pass);
        msc_report_parts_cleanup(merged);
        return 1;
    }
    /* A damaged trace (trace_check.c) is still analysed, from what can be
     * read, and reported as partial: named on stderr and in the text, and
     * exit status 3 unless --allow-partial. An archive that could not be
     * written at all was moved to trace.unreadable by the trace module. */
    char *damage = NULL;
    char unreadable[4096 + 32];
    snprintf(unreadable, sizeof unreadable, "%s/trace.unreadable", target);
    if (has_trace) {
        damage = msc_trace_damage(anchor, NULL);
        /* Ranks whose events are in other nodes' copies (report_parts.c). */
        char *elsewhere = msc_report_parts_missing(target);
        if (elsewhere) {
            size_t n = strlen(elsewhere) + (damage ? strlen(damage) : 0) + 4;
            char *both = malloc(n);
            if (both) snprintf(both, n, "%s%s%s", elsewhere, damage ? "; " : "", damage ? damage : "");
            free(damage), free(elsewhere);
            damage = both;
        }
    } else if (is_dir && access(unreadable, F_OK) == 0) {
        damage = strdup("the trace could not be written (what there is is in trace.unreadable)");
    }
    if (damage) fprintf(stderr, "mpiscope report: the trace is partial: %s\n", damage);
    msc_json_doc_t *ws = NULL;
    wso.timeline = html;
    if (has_trace && !no_ws) ws = msc_report_waitstates(target, reanalyze || damage, &wso);
    /* Locations the analysis could not read whole, which the check above
     * cannot see (an event file cut where its last two bytes happen to end
     * a file: OTF2's reader gives fewer events than the definition counts,
     * or loops), make the result partial too. */
    double unread = ws ? msc_json_num(msc_json_root(ws), "unreadable_locations") : 0;
    if (unread > 0 && !damage) {
        char why[200];
        snprintf(why, sizeof why,
                 "%.0f location%s gave more or fewer events than %s definition%s count%s (an "
                 "event file cut short)",
                 unread, unread == 1 ? "" : "s", unread == 1 ? "its" : "their",
                 unread == 1 ? "" : "s", unread == 1 ? "s" : "");
        damage = strdup(why);
        if (damage) fprintf(stderr, "mpiscope report: the trace is partial: %s\n", damage);
    }
    int rc = 0;
    if (html) {
        char out[4096];
        snprintf(out, sizeof out, "%s", html_out ? html_out : "");
        if (!html_out) {
            if (is_dir)
                snprintf(out, sizeof out, "%.4000s/report.html", target);
            else
                snprintf(out, sizeof out, "%.*s.html",
                         (int)(strlen(target) > 5 && !strcmp(target + strlen(target) - 5, ".json")
                                   ? strlen(target) - 5
                                   : strlen(target)),
                         target);
        }
        rc = msc_report_html(is_dir ? target : NULL, has_profile ? profile : NULL, ws, out);
        if (rc == 0) printf("mpiscope report: wrote %s\n", out);
    } else {
        if (has_profile) {
            pass[npass++] = profile;
            rc = msc_cmd_report(npass, pass);
            fflush(stdout);
            if (by_node && msc_report_nodes(is_dir ? target : NULL, profile, stdout) != 0 && rc == 0)
                rc = 1;
        } else {
            printf("(no profile.json in %s: the run was traced only)\n", target);
        }
        /* User regions of the VT_ API (src/vt/profile.c writes the table
         * ready to print: time and calls per region, MPI time split by the
         * region that encloses it). */
        char vt[4096 + 24];
        snprintf(vt, sizeof vt, "%s/profile-vt.txt", target);
        FILE *vf = is_dir ? fopen(vt, "r") : NULL;
        if (vf) {
            char line[1024];
            printf("\nUser regions (VT_ API)\n");
            while (fgets(line, sizeof line, vf)) printf("  %s", line);
            fclose(vf);
        }
        if (damage) printf("\nPARTIAL TRACE: %s\n", damage);
        if (ws) {
            fputc('\n', stdout);
            if (msc_waitstates_render(stdout, msc_json_root(ws), limit) != 0) rc = 1;
            else msc_analysis_render(stdout, msc_json_root(ws), limit);
        }
        /* The unexpected-queue check (src/mpit/pvars.c writes mpit.txt ready
         * to print; its performance variables are in the profile already,
         * so without a profile the whole file). */
        char mpit[4096 + 16];
        snprintf(mpit, sizeof mpit, "%s/mpit.txt", target);
        FILE *f = is_dir ? fopen(mpit, "r") : NULL;
        if (f) {
            char line[1024];
            bool show = !has_profile;
            if (show) fputc('\n', stdout);
            while (fgets(line, sizeof line, f)) {
                if (!show && strncmp(line, "Unexpected-queue check", 22) == 0) {
                    show = true;
                    fputc('\n', stdout);
                }
                if (show) fputs(line, stdout);
            }
            fclose(f);
        }
    }
    if (has_checks && !html) msc_report_checks_print(target, stdout);
    /* A trace that cannot be analysed (its message is on stderr) fails the
     * command, after whatever else could be shown. */
    if (has_trace && !no_ws && !ws && rc == 0) rc = 1;
    if (damage && rc == 0 && !allow_partial) rc = 3;
    free(damage);
    msc_json_free(ws);
    free(pass);
    msc_report_parts_cleanup(merged);
    return rc;
}

/* `mpiscope report DIR`: the run's report, then, for each world that
 * MPI_Comm_spawn made (DIR/worlds/<id>, a result directory of its own),
 * the same report of that world under a heading that names it. The exit
 * status is the first nonzero one (a partial world's 3 included). */
int msc_cmd_report_all(int argc, char **argv)
{
    int at = -1, ignored;
    bool allow_partial = false, also;
    int rc = report_one(argc, argv, &at, &allow_partial);
    char **worlds = NULL;
    int nw = at >= 0 ? msc_outdir_worlds(argv[at], &worlds) : 0;
    int spawned = at >= 0 ? msc_banner_spawned(argv[at]) : 0;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    for (int i = 0; args && i < nw; i++) {
        char dir[4600];
        snprintf(dir, sizeof dir, "%s/worlds/%s", argv[at], worlds[i]);
        memcpy(args, argv, (size_t)argc * sizeof *args);
        args[at] = dir;
        fflush(stdout);
        printf("\n==== spawned world %d of %d: %s (%s) ====\n\n", i + 1, nw, worlds[i], dir);
        fflush(stdout);
        int w = report_one(argc, args, &ignored, &also);
        if (rc == 0) rc = w;
        spawned += msc_banner_spawned(dir);
    }
    free(args);
    msc_outdir_worlds_free(worlds, nw);
    if (spawned > nw) {
        /* A world's results missing, like a rank's: the report is partial. */
        printf("\nPARTIAL RUN: %d of the %d worlds MPI_Comm_spawn made left no results in "
               "%s/worlds (spawned without mpiscope loaded, or failed before MPI_Init)\n",
               spawned - nw, spawned, argv[at]);
        char **missing = NULL;
        int nm = msc_spawns_unanswered(argv[at], &missing);
        for (int i = 0; i < nm; i++) printf("  missing: the world of %s\n", missing[i]);
        msc_spawns_free(missing, nm);
        fprintf(stderr, "mpiscope report: %d of the %d spawned worlds left no results\n",
                spawned - nw, spawned);
        if (rc == 0 && !allow_partial) rc = 3;
    }
    return rc;
}
