/* `mpiscope report --by-node`: the ranks grouped by the host they ran on.
 *
 * A rank's host comes from profile.json's per_rank[].host when the profile
 * has it, else from the trace's OTF2 system tree (src/trace/defs.c hangs
 * each rank's location group, whose reference is the rank, under a node of
 * class "node" named by its host). Per node: its ranks with their MPI time
 * and share of their profiled time (profile.json per_rank: mpi_ns,
 * profiled_ns), and the node's aggregates (ranks, MPI time summed, mean and
 * range of the ranks' MPI shares). Without either source of hosts the
 * section says so and the command fails (exit 1): --by-node asked for it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "../../src/profile/pjson.h"
#include "report_cli.h"
#include "trace_anchor.h"

enum { MAX_DEFS = 1 << 20 };

typedef struct {
    char **str;      /* string ref -> text */
    uint32_t nstr;
    uint32_t *node_name, *node_class; /* system tree node ref -> string refs */
    uint32_t nnode;
    uint32_t *rank_node;              /* location group (rank) -> system tree node */
    uint32_t nrank;
    bool oom;
} tree_t;

static bool grow(void **p, uint32_t *n, uint32_t want, size_t size)
{
    if (want < *n) return true;
    if (want >= MAX_DEFS) return false;
    uint32_t m = want + 64;
    void *q = realloc(*p, (size_t)m * size);
    if (!q) return false;
    memset((char *)q + (size_t)*n * size, 0xff, (size_t)(m - *n) * size);
    *p = q;
    *n = m;
    return true;
}

static OTF2_CallbackCode d_string(void *ud, OTF2_StringRef self, const char *s)
{
    tree_t *t = ud;
    uint32_t n = t->nstr;
    if (!grow((void **)&t->str, &n, self, sizeof *t->str)) return t->oom = true, OTF2_CALLBACK_SUCCESS;
    for (uint32_t i = t->nstr; i < n; i++) t->str[i] = NULL;
    t->nstr = n;
    t->str[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_node(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)parent;
    tree_t *t = ud;
    uint32_t n = t->nnode, n2 = t->nnode;
    if (!grow((void **)&t->node_name, &n, self, sizeof *t->node_name) ||
        !grow((void **)&t->node_class, &n2, self, sizeof *t->node_class))
        return t->oom = true, OTF2_CALLBACK_SUCCESS;
    t->nnode = n;
    t->node_name[self] = name;
    t->node_class[self] = cls;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                 OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                 OTF2_LocationGroupRef creator)
{
    (void)name, (void)type, (void)creator;
    tree_t *t = ud;
    if (!grow((void **)&t->rank_node, &t->nrank, self, sizeof *t->rank_node))
        return t->oom = true, OTF2_CALLBACK_SUCCESS;
    t->rank_node[self] = parent;
    return OTF2_CALLBACK_SUCCESS;
}

static const char *tstr(const tree_t *t, uint32_t ref)
{
    return ref < t->nstr && t->str[ref] ? t->str[ref] : NULL;
}

/* The host of every rank from the trace's system tree: hosts[r] (strdup'd),
 * false if the archive cannot be read or has no node level. */
static bool hosts_from_trace(const char *dir, char **hosts, int nranks)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    char err[64 + sizeof anchor];
    if (!msc_anchor_plausible(anchor, err, sizeof err)) return false;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) return false;
    tree_t t = {0};
    bool ok = false;
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReader *gd = NULL;
    uint64_t n = 0;
    if (cb && OTF2_Reader_SetSerialCollectiveCallbacks(rd) == OTF2_SUCCESS &&
        (gd = OTF2_Reader_GetGlobalDefReader(rd))) {
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, d_node);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_group);
        ok = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, cb, &t) == OTF2_SUCCESS &&
             OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n) == OTF2_SUCCESS && !t.oom;
    }
    if (cb) OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(rd);
    for (int r = 0; ok && r < nranks; r++) {
        uint32_t nd = (uint32_t)r < t.nrank ? t.rank_node[r] : UINT32_MAX;
        const char *cls = nd < t.nnode ? tstr(&t, t.node_class[nd]) : NULL;
        const char *name = nd < t.nnode ? tstr(&t, t.node_name[nd]) : NULL;
        if (!cls || strcmp(cls, "node") || !name) ok = false;
        else hosts[r] = strdup(name);
    }
    for (uint32_t i = 0; i < t.nstr; i++)
        if (t.str[i]) free(t.str[i]); /* sparse when a reference is corrupted */
    free(t.str), free(t.node_name), free(t.node_class), free(t.rank_node);
    return ok;
}

int msc_report_nodes(const char *dir, const char *profile, FILE *o)
{
    FILE *f = profile ? fopen(profile, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "mpiscope report: --by-node needs profile.json\n");
        return 1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    char buf[65536];
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *t = realloc(text, cap);
            if (!t) { free(text); fclose(f); return 1; }
            text = t;
        }
        memcpy(text + len, buf, got);
        len += got;
    }
    fclose(f);
    char err[256];
    msc_json_doc_t *doc = text ? msc_json_parse(text, len, err, sizeof err) : NULL;
    free(text);
    if (!doc) {
        fprintf(stderr, "mpiscope report: --by-node: cannot read %s\n", profile);
        return 1;
    }
    const msc_json_t *pr = msc_json_get(msc_json_root(doc), "per_rank");
    int n = pr && pr->type == MSC_JARR ? (int)pr->n : 0;
    const msc_json_t **row = calloc((size_t)n + 1, sizeof *row);
    char **host = calloc((size_t)n + 1, sizeof *host);
    int rc = 1;
    if (!row || !host || n == 0) goto out;
    int maxr = -1;
    for (const msc_json_t *r = pr->child; r; r = r->next) {
        int64_t k = msc_json_int(r, "rank");
        if (k < 0 || k >= n) goto out;
        row[k] = r;
        if (k > maxr) maxr = (int)k;
    }
    const char *source = "profile.json";
    for (int r = 0; r < n; r++) {
        const char *h = row[r] ? msc_json_str(row[r], "host", NULL) : NULL;
        if (!h) { source = NULL; break; }
        host[r] = strdup(h);
    }
    if (!source) {
        for (int r = 0; r < n; r++) free(host[r]), host[r] = NULL;
        if (dir && hosts_from_trace(dir, host, n)) source = "the trace's system tree";
    }
    fprintf(o, "\nRanks by node (hosts from %s)\n", source ? source : "nowhere");
    if (!source) {
        fprintf(o, "  no host per rank: profile.json names none and there is no trace with "
                   "a node level\n");
        fprintf(stderr, "mpiscope report: --by-node: no host per rank in %s\n", dir ? dir : profile);
        goto out;
    }
    bool *done = calloc((size_t)n, sizeof *done);
    if (!done) goto out;
    int nodes = 0;
    for (int a = 0; a < n; a++) {
        if (done[a]) continue;
        nodes++;
        int cnt = 0;
        double mpi = 0, pmin = 1e300, pmax = -1, psum = 0;
        for (int r = a; r < n; r++) {
            if (done[r] || strcmp(host[r], host[a])) continue;
            double m = row[r] ? msc_json_num(row[r], "mpi_ns") : 0;
            double p = row[r] ? msc_json_num(row[r], "profiled_ns") : 0;
            double pct = p > 0 ? 100.0 * m / p : 0;
            cnt++, mpi += m, psum += pct;
            if (pct < pmin) pmin = pct;
            if (pct > pmax) pmax = pct;
        }
        fprintf(o, "  node %s: %d rank(s), MPI time %.6f s, MPI %% mean %.2f (min %.2f, max %.2f)\n",
                host[a], cnt, mpi / 1e9, psum / cnt, pmin, pmax);
        fprintf(o, "    %6s %14s %8s\n", "rank", "MPI (s)", "MPI %");
        for (int r = a; r < n; r++) {
            if (done[r] || strcmp(host[r], host[a])) continue;
            done[r] = true;
            double m = row[r] ? msc_json_num(row[r], "mpi_ns") : 0;
            double p = row[r] ? msc_json_num(row[r], "profiled_ns") : 0;
            fprintf(o, "    %6d %14.6f %8.2f\n", r, m / 1e9, p > 0 ? 100.0 * m / p : 0);
        }
    }
    fprintf(o, "  %d node(s), %d rank(s)\n", nodes, n);
    free(done);
    rc = 0;
out:
    for (int r = 0; host && r < n; r++) free(host[r]);
    free(host), free(row);
    msc_json_free(doc);
    return rc;
}
