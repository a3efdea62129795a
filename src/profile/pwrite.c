/* profile.json and profile.txt from the merged set (merge.h).
 *
 * The JSON is printed straight from the records (functions and call sites by
 * time, pairs by bytes, files by time), then parsed back and rendered into
 * profile.txt by the renderer `mpiscope report` uses, so that the text and a
 * later report of the same file are the same. Field meanings:
 * docs/profile.md and docs/profile-schema.json.
 */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

#include "banner.h"
#include "log.h"
#include "output.h"
#include "pjson.h"
#include "pop.h"
#include "render.h"
#include "runinfo.h"
#include "state.h"
#include "../core/json_out.h"

/* src/mpit/pvars.c, if built: the "pvars" object of profile.json, or NULL. */
extern const char *msc_pvars_profile_section(void) __attribute__((weak, visibility("hidden")));

enum { SCHEMA_VERSION = MSC_PROFILE_SCHEMA };


static void json_stats(FILE *o, const rec_t *r, int world)
{
    const msc_pstat_t *s = &r->s;
    fprintf(o,
            "\"calls\": %llu, \"time_ns\": %llu, \"time_min_ns\": %llu, \"time_max_ns\": %llu, "
            "\"bytes_sent\": %llu, \"bytes_recv\": %llu, \"ranks\": %u, "
            "\"rank_time_min_ns\": %llu, \"rank_time_min_at\": %d, \"rank_time_max_ns\": %llu, "
            "\"rank_time_max_at\": %d, \"rank_time_mean_ns\": %llu",
            (unsigned long long)s->count, (unsigned long long)s->time_ns,
            (unsigned long long)(s->count ? s->tmin_ns : 0), (unsigned long long)s->tmax_ns,
            (unsigned long long)s->bytes_sent, (unsigned long long)s->bytes_recv, r->nranks,
            (unsigned long long)(r->rmin_at >= 0 ? r->rmin_ns : 0), r->rmin_at,
            (unsigned long long)r->rmax_ns, r->rmax_at,
            (unsigned long long)(world ? s->time_ns / (uint64_t)world : 0));
}

static void json_frames(FILE *o, char *key)
{
    /* key: S \t fn \t frame \t frame ... ; frame: sym \x1f file \x1f line \x1f module \x1f off */
    char *save = NULL;
    strtok_r(key, "\t", &save);
    char *fn = strtok_r(NULL, "\t", &save);
    fprintf(o, "\"function\": ");
    msc_json_put_string(o, fn);
    fprintf(o, ", \"frames\": [");
    bool first = true;
    for (char *fr; (fr = strtok_r(NULL, "\t", &save)); first = false) {
        char *f[5] = {0};
        for (int i = 0; i < 5; i++) {
            f[i] = fr;
            char *sep = fr ? strchr(fr, '\x1f') : NULL;
            if (sep) *sep = 0, fr = sep + 1;
            else fr = NULL;
        }
        fprintf(o, "%s{\"symbol\": ", first ? "" : ", ");
        msc_json_put_string(o, f[0] ? f[0] : "");
        fprintf(o, ", \"file\": ");
        msc_json_put_string(o, f[1] ? f[1] : "");
        fprintf(o, ", \"line\": %d, \"module\": ", f[2] ? atoi(f[2]) : 0);
        msc_json_put_string(o, f[3] ? f[3] : "");
        fprintf(o, ", \"offset\": ");
        msc_json_put_string(o, f[4] ? f[4] : "");
        fputc('}', o);
    }
    fputc(']', o);
}

/* "spawns": the spawn calls of the run, one record per root rank, command
 * line and call site, with how many calls it stands for (merge.c's "W"
 * keys: W \t rank \t procs \t command \t function \t frame). */
static void json_spawns(FILE *o, const set_t *st)
{
    fprintf(o, ",\n\"spawns\": [");
    bool first = true;
    for (size_t i = 0; i < st->n; i++) {
        if (st->e[i].key[0] != 'W') continue;
        char *k = strdup(st->e[i].key);
        char *f[4] = {0}, *p = k ? k + 2 : NULL;
        for (int j = 0; j < 3 && p; j++) { /* rank, procs, command; f[3]: the rest */
            f[j] = p;
            p = strchr(p, '\t');
            if (p) *p++ = 0;
        }
        f[3] = p;
        if (f[3]) { /* the rest: function \t frame, as a site's key after its letter */
            fprintf(o, "%s\n  {\"rank\": %d, \"procs\": %d, \"command\": ", first ? "" : ",",
                    atoi(f[0]), atoi(f[1]));
            msc_json_put_string(o, f[2]);
            fprintf(o, ", \"calls\": %llu, ", (unsigned long long)st->e[i].r.s.count);
            f[3][-2] = 'W', f[3][-1] = '\t';
            json_frames(o, f[3] - 2);
            fputc('}', o);
            first = false;
        }
        free(k);
    }
    fputc(']', o);
}

static void json_sizes(FILE *o, const uint64_t *hist)
{
    fputc('[', o);
    bool first = true;
    for (int b = 0; b < MSC_PROF_BINS; b++) {
        if (!hist[b]) continue;
        unsigned long long lo = b ? 1ull << (b - 1) : 0;
        unsigned long long hi = b ? (b == MSC_PROF_BINS - 1 ? 0 : (1ull << b) - 1) : 0;
        fprintf(o, "%s{\"bin\": %d, \"lo\": %llu, \"hi\": %llu, \"count\": %llu}",
                first ? "" : ", ", b, lo, hi, (unsigned long long)hist[b]);
        first = false;
    }
    fputc(']', o);
}

/* Bytes per second that `bytes` in `ns` make (0 without time). */
static double rate(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes * 1e9 / (double)ns : 0.0;
}

static void json_file(FILE *o, const entry_t *e)
{
    const rec_t *r = &e->r;
    const msc_pio_stat_t *x = &e->io->s;
    double mean = r->nranks ? (double)r->s.time_ns / r->nranks : 0;
    fprintf(o, "\"ranks\": %u, \"opens\": %llu, \"reads_independent\": %llu, "
               "\"reads_collective\": %llu, \"writes_independent\": %llu, "
               "\"writes_collective\": %llu, \"bytes_read\": %llu, \"bytes_written\": %llu, "
               "\"read_time_ns\": %llu, \"write_time_ns\": %llu, \"meta_time_ns\": %llu, "
               "\"time_ns\": %llu, \"read_time_rank_max_ns\": %llu, \"write_time_rank_max_ns\": %llu, "
               "\"read_bandwidth_Bps\": %.0f, \"write_bandwidth_Bps\": %.0f, "
               "\"rank_time_min_ns\": %llu, \"rank_time_min_at\": %d, \"rank_time_max_ns\": %llu, "
               "\"rank_time_max_at\": %d, \"imbalance_pct\": %.3f, \"read_sizes\": ",
            r->nranks, (unsigned long long)x->opens, (unsigned long long)x->ops[0][0],
            (unsigned long long)x->ops[0][1], (unsigned long long)x->ops[1][0],
            (unsigned long long)x->ops[1][1], (unsigned long long)x->bytes[0],
            (unsigned long long)x->bytes[1], (unsigned long long)x->time_ns[0],
            (unsigned long long)x->time_ns[1], (unsigned long long)x->time_ns[2],
            (unsigned long long)r->s.time_ns, (unsigned long long)e->io->rank_max_ns[0],
            (unsigned long long)e->io->rank_max_ns[1], rate(x->bytes[0], e->io->rank_max_ns[0]),
            rate(x->bytes[1], e->io->rank_max_ns[1]),
            (unsigned long long)(r->rmin_at >= 0 ? r->rmin_ns : 0), r->rmin_at,
            (unsigned long long)r->rmax_ns, r->rmax_at,
            r->rmax_ns ? 100.0 * ((double)r->rmax_ns - mean) / (double)r->rmax_ns : 0.0);
    json_sizes(o, x->hist[0]);
    fprintf(o, ", \"write_sizes\": ");
    json_sizes(o, x->hist[1]);
}

/* The I/O section: per file, and the ranks' I/O time. */
static void json_io(FILE *o, set_t *st, const rank_sum_t *ranks, int nranks, int rank0)
{
    uint64_t tot = 0, mn = UINT64_MAX, mx = 0, br = 0, bw = 0;
    int mn_at = 0, mx_at = 0, with_io = 0;
    for (int i = 0; i < nranks; i++) {
        uint64_t t = ranks[i].io_ns;
        tot += t, with_io += t > 0;
        if (t < mn) mn = t, mn_at = rank0 + i;
        if (t > mx) mx = t, mx_at = rank0 + i;
    }
    const entry_t *others = NULL;
    for (size_t i = 0; i < st->n; i++) {
        if (!st->e[i].io) continue;
        br += st->e[i].io->s.bytes[0], bw += st->e[i].io->s.bytes[1];
        if (st->e[i].key[0] == 'O') others = &st->e[i];
    }
    double mean = nranks ? (double)tot / nranks : 0;
    fprintf(o, "\"io\": {\"files_limit\": %lld, \"files_dropped\": %llu, \"files_merged\": %llu, "
               "\"ranks_with_io\": %d, \"time_ns\": %llu, \"bytes_read\": %llu, \"bytes_written\": %llu, "
               "\"rank_time_min_ns\": %llu, \"rank_time_min_at\": %d, \"rank_time_max_ns\": %llu, "
               "\"rank_time_max_at\": %d, \"rank_time_mean_ns\": %.0f, \"imbalance_pct\": %.3f,\n  \"files\": [",
            msc_g.settings.v[MSC_SET_PROFILE_FILES].num, (unsigned long long)st->h.files_dropped,
            (unsigned long long)st->h.files_merged, with_io, (unsigned long long)tot,
            (unsigned long long)br, (unsigned long long)bw,
            (unsigned long long)(nranks ? mn : 0), mn_at, (unsigned long long)mx, mx_at, mean,
            mx ? 100.0 * ((double)mx - mean) / (double)mx : 0.0);
    bool first = true;
    for (size_t i = 0; i < st->n; i++) { /* sorted by time by the caller */
        if (st->e[i].key[0] != 'I') continue;
        fprintf(o, "%s\n    {\"name\": ", first ? "" : ",");
        msc_json_put_string(o, st->e[i].key + 2);
        fprintf(o, ", ");
        json_file(o, &st->e[i]);
        fputc('}', o);
        first = false;
    }
    fprintf(o, "]");
    if (others) {
        fprintf(o, ",\n  \"other_files\": {");
        json_file(o, others);
        fputc('}', o);
    }
    fputc('}', o);
}

/* A table of strings the ranks share, as `member`: each string (as `key`)
 * with its ranks as ranges ("0-3,8") and their count, in order of their
 * first rank. `cmd`: the ranks' command indices, else their host indices. */
static void json_ranked(FILE *o, const char *member, const char *key, const strtab_t *t, bool cmd,
                        const set_t *st, int rank0)
{
    fprintf(o, ", \"%s\": [", member);
    for (uint32_t h = 0; h < t->n; h++) {
        fprintf(o, "%s{\"%s\": ", h ? ", " : "", key);
        msc_json_put_string(o, t->s[h]);
        fprintf(o, ", \"ranks\": \"");
        size_t count = 0;
        bool first = true;
        for (size_t i = 0; i < st->nranks; i++) {
            if ((cmd ? st->ranks[i].cmd : st->ranks[i].host) != h) continue;
            size_t j = i;
            while (j + 1 < st->nranks && (cmd ? st->ranks[j + 1].cmd : st->ranks[j + 1].host) == h)
                j++;
            if (j > i) fprintf(o, "%s%zu-%zu", first ? "" : ",", rank0 + i, rank0 + j);
            else fprintf(o, "%s%zu", first ? "" : ",", rank0 + i);
            count += j - i + 1, first = false, i = j;
        }
        fprintf(o, "\", \"count\": %zu}", count);
    }
    fputc(']', o);
}

void msc_pwrite_json(FILE *o, set_t *st, bool flush, const char *per_rank_fns, const char *why)
{
    const rank_sum_t *ranks = st->ranks;
    int nranks = (int)st->nranks;
    int world = nranks;
    rank_sum_t tot = {0};
    uint64_t wmax = 0, mmin = UINT64_MAX, mmax = 0;
    int mmin_at = 0, mmax_at = 0;
    for (int i = 0; i < nranks; i++) {
        tot.wall_ns += ranks[i].wall_ns;
        tot.profiled_ns += ranks[i].profiled_ns;
        tot.mpi_ns += ranks[i].mpi_ns;
        tot.calls += ranks[i].calls;
        if (ranks[i].wall_ns > wmax) wmax = ranks[i].wall_ns;
        if (ranks[i].mpi_ns < mmin) mmin = ranks[i].mpi_ns, mmin_at = i;
        if (ranks[i].mpi_ns > mmax) mmax = ranks[i].mpi_ns, mmax_at = i;
    }
    int rank0 = flush ? msc_g.world_rank : 0;
    double mean = nranks ? (double)tot.mpi_ns / nranks : 0;
    fprintf(o, "{\n\"schema_version\": %d,\n\"tool\": \"mpiscope\",\n\"mpi\": \"%s\",\n",
            SCHEMA_VERSION, MSC_MPI_NAME);
    fprintf(o, "\"program\": ");
    msc_json_put_string(o, msc_prun_program());
    fprintf(o, ",\n\"scope\": \"%s\",\n", why ? "rank-incomplete" : flush ? "rank-flush" : "run");
    if (why) {
        fprintf(o, "\"incomplete\": {\"rank\": %d, \"reason\": ", msc_g.world_rank);
        msc_json_put_string(o, why);
        fprintf(o, "},\n");
    } else if (flush) {
        fprintf(o, "\"flush\": {\"rank\": %d, \"index\": %d},\n", msc_g.world_rank, msc_prof.flushes);
    }
    fprintf(o, "\"ranks\": %d,\n\"world_size\": %d,\n\"callsite_depth\": %lld,\n", nranks,
            msc_g.world_size, msc_g.settings.v[MSC_SET_CALLSITE_DEPTH].num);
    fprintf(o,
            "\"summary\": {\"wall_ns_max\": %llu, \"wall_ns_total\": %llu, \"profiled_ns_total\": "
            "%llu, \"mpi_ns_total\": %llu, \"mpi_pct\": %.3f, \"mpi_ns_rank_min\": %llu, "
            "\"mpi_ns_rank_min_at\": %d, \"mpi_ns_rank_max\": %llu, \"mpi_ns_rank_max_at\": %d, "
            "\"mpi_ns_rank_mean\": %.0f, \"imbalance_pct\": %.3f, \"calls\": %llu},\n",
            (unsigned long long)wmax, (unsigned long long)tot.wall_ns,
            (unsigned long long)tot.profiled_ns, (unsigned long long)tot.mpi_ns,
            tot.profiled_ns ? 100.0 * (double)tot.mpi_ns / (double)tot.profiled_ns : 0.0,
            (unsigned long long)(nranks ? mmin : 0), rank0 + mmin_at, (unsigned long long)mmax,
            rank0 + mmax_at, mean, mmax ? 100.0 * ((double)mmax - mean) / (double)mmax : 0.0,
            (unsigned long long)tot.calls);
    fprintf(o, "\"run\": {");
    msc_prun_json(o, wmax);
    json_ranked(o, "hosts", "name", &st->hosts, false, st, rank0);
    json_ranked(o, "commands", "command", &st->cmds, true, st, rank0);
    fprintf(o, "},\n\"per_rank\": [");
    for (int i = 0; i < nranks; i++) {
        fprintf(o, "%s\n  {\"rank\": %d, \"host\": ", i ? "," : "", rank0 + i);
        msc_json_put_string(o, ranks[i].host < st->hosts.n ? st->hosts.s[ranks[i].host] : "?");
        fprintf(o, ", \"wall_ns\": %llu, \"profiled_ns\": %llu, \"mpi_ns\": %llu, \"calls\": %llu, \"io_ns\": %llu}",
                (unsigned long long)ranks[i].wall_ns, (unsigned long long)ranks[i].profiled_ns,
                (unsigned long long)ranks[i].mpi_ns, (unsigned long long)ranks[i].calls,
                (unsigned long long)ranks[i].io_ns);
    }
    msc_pop_t pop; /* POP's efficiencies from the same per-rank times (pop.c) */
    msc_pop_compute(&ranks[0].profiled_ns, &ranks[0].mpi_ns, sizeof *ranks / sizeof(uint64_t),
                    nranks, &pop);
    pop.useful_max_at += rank0, pop.useful_min_at += rank0;
    fprintf(o, "],\n");
    msc_pop_json(o, &pop);
    fprintf(o, ",\n\"functions\": [");
    if (st->n > 1) qsort(st->e, st->n, sizeof *st->e, msc_pmerge_by_time);
    bool first = true;
    for (size_t i = 0; i < st->n; i++) {
        if (st->e[i].key[0] != 'F') continue;
        rec_t *r = &st->e[i].r;
        fprintf(o, "%s\n  {\"name\": ", first ? "" : ",");
        msc_json_put_string(o, st->e[i].key + 2);
        fprintf(o, ", ");
        json_stats(o, r, world);
        fprintf(o, ", \"histogram\": [");
        bool f1 = true;
        for (int b = 0; b < MSC_PROF_BINS; b++) {
            if (!r->hist[b]) continue;
            unsigned long long lo = b ? 1ull << (b - 1) : 0;
            unsigned long long hi = b ? (b == MSC_PROF_BINS - 1 ? 0 : (1ull << b) - 1) : 0;
            fprintf(o, "%s{\"bin\": %d, \"lo\": %llu, \"hi\": %llu, \"count\": %llu}",
                    f1 ? "" : ", ", b, lo, hi, (unsigned long long)r->hist[b]);
            f1 = false;
        }
        fprintf(o, "]}");
        first = false;
    }
    fprintf(o, "],\n\"callsites\": [");
    first = true;
    for (size_t i = 0; i < st->n; i++) {
        if (st->e[i].key[0] != 'S') continue;
        fprintf(o, "%s\n  {", first ? "" : ",");
        char *k = strdup(st->e[i].key);
        if (k) json_frames(o, k);
        free(k);
        fprintf(o, ", ");
        json_stats(o, &st->e[i].r, world);
        fputc('}', o);
        first = false;
    }
    fprintf(o, "],\n\"matrix\": {\"recorded\": %s, \"ranks_limit\": %lld, \"pairs_limit\": %d,\n",
            msc_prof.matrix_on ? "true" : "false",
            msc_g.settings.v[MSC_SET_PROFILE_MATRIX_RANKS].num, msc_prof.matrix_pairs);
    fprintf(o, "  \"p2p\": {\"messages\": %llu, \"bytes\": %llu}, \"collective\": {\"messages\": %llu, \"bytes\": %llu},\n",
            (unsigned long long)st->h.tot[0][0], (unsigned long long)st->h.tot[0][1],
            (unsigned long long)st->h.tot[1][0], (unsigned long long)st->h.tot[1][1]);
    fprintf(o, "  \"omitted\": {\"pairs\": %llu, \"messages\": %llu, \"bytes\": %llu},\n  \"pairs\": [",
            (unsigned long long)st->h.omitted[0], (unsigned long long)st->h.omitted[1],
            (unsigned long long)st->h.omitted[2]);
    if (st->npairs > 1) qsort(st->pairs, st->npairs, sizeof *st->pairs, msc_pmerge_by_bytes);
    for (size_t i = 0; i < st->npairs; i++) {
        const pair_t *p = &st->pairs[i];
        fprintf(o, "%s\n    {\"from\": %d, \"to\": %d, \"class\": \"%s\", \"messages\": %llu, \"bytes\": %llu}",
                i ? "," : "", p->from, p->to, p->cls ? "collective" : "p2p",
                (unsigned long long)p->msgs, (unsigned long long)p->bytes);
    }
    fprintf(o, "]},\n");
    json_io(o, st, ranks, nranks, rank0);
    fprintf(o, ",\n\"spawned_worlds\": %llu", (unsigned long long)st->h.worlds_spawned);
    json_spawns(o, st);
    fprintf(o, ",\n\"dropped\": {\"callsite_calls\": %llu, \"callsites_merged\": %llu, "
               "\"requests\": %llu}",
            (unsigned long long)st->h.dropped_sites, (unsigned long long)st->h.merged_sites,
            (unsigned long long)st->h.dropped_requests);
    if (per_rank_fns) fprintf(o, ",\n\"per_rank_functions\": [%s]", per_rank_fns);
    /* MPI_T performance variables sampled by src/mpit/pvars.c (whose
     * finalize hook runs before this module's), when it is built and did. */
    const char *pvars = msc_pvars_profile_section ? msc_pvars_profile_section() : NULL;
    if (pvars) fprintf(o, ",\n\"pvars\": %s", pvars);
    fprintf(o, "\n}\n");
}

void msc_pwrite_files(const char *json, size_t len, const char *base)
{
    char name[256], err[256];
    msc_out_t out;
    snprintf(name, sizeof name, "%s.json", base);
    if (msc_out_open(&out, name)) {
        fwrite(json, 1, len, out.f);
        msc_out_close(&out);
    }
    msc_json_doc_t *doc = msc_json_parse(json, len, err, sizeof err);
    if (!doc) {
        msc_warn("profile: internal error, the JSON written does not parse: %s", err);
        return;
    }
    snprintf(name, sizeof name, "%s.txt", base);
    if (msc_out_open(&out, name)) {
        msc_render_opts_t opts = msc_render_defaults();
        msc_profile_render(out.f, msc_json_root(doc), &opts);
        msc_out_close(&out);
    }
    msc_json_free(doc);
}

void msc_pwrite_profile(set_t *st, bool flush, const char *per_rank_fns, const char *why,
                        const char *base)
{
    char *json = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&json, &len);
    if (o) {
        msc_pwrite_json(o, st, flush, per_rank_fns, why);
        fclose(o);
        msc_pwrite_files(json, len, base);
        /* Run without `mpiscope run` (which prints it itself, after the
         * launcher): the closing summary, before the core's last line. */
        if (!flush && !msc_g.settings.v[MSC_SET_QUIET].num)
            msc_banner_print(stderr, msc_g.outdir, msc_g.outdir);
    }
    free(json);
}
