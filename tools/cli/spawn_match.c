/* Naming the spawned worlds that left no results (docs/worlds.md).
 *
 * A parent cannot learn the id of a world it spawns without a message to it
 * (the tool sends none on the application's communicators, and a world run
 * without mpiscope would never answer one of the tool's), so the worlds are
 * matched to the spawn calls after the run, from what each side wrote: every
 * world's profile.json lists the spawn calls made at its ranks ("spawns":
 * root rank, processes asked for, command line, call site, number of such
 * calls), and every spawned world's profile.json gives its program and its
 * size. A world answers a call whose process count is its size and whose
 * command (any of them for MPI_Comm_spawn_multiple) has its program's name;
 * failing that, one whose count is its size; failing that, any call left.
 * The calls no world answers are the missing worlds, each named by its
 * function, command line, processes, call site and the world and rank that
 * made it. Calls beyond the 32 described per rank are counted (the caller's
 * "K of the N worlds" line) but cannot be named.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outdir.h"
#include "../../src/profile/pjson.h"
#include "spawn_match.h"

enum { MSC_SPAWN_TEXT = 400 };

typedef struct {
    char *world;   /* "" for the job's first world */
    int rank, procs, left;
    char *command, *function, *site;
} spawn_t;

/* "file:line" of a spawns[] item's first frame, its symbol, or "". */
static char *site_text(const msc_json_t *item)
{
    const msc_json_t *fr = msc_json_get(item, "frames");
    const msc_json_t *f = fr && fr->type == MSC_JARR ? fr->child : NULL;
    char buf[600] = "";
    if (f) {
        const char *file = msc_json_str(f, "file", ""), *sym = msc_json_str(f, "symbol", "");
        int line = (int)msc_json_int(f, "line");
        if (*file && line > 0) {
            const char *slash = strrchr(file, '/');
            snprintf(buf, sizeof buf, "%s:%d%s%s", slash ? slash + 1 : file, line,
                     *sym ? " in " : "", sym);
        } else if (*sym) {
            snprintf(buf, sizeof buf, "in %s", sym);
        }
    }
    return strdup(buf);
}

static void add_spawns(spawn_t **v, int *n, const char *world, const msc_json_doc_t *doc)
{
    const msc_json_t *arr = doc ? msc_json_get(msc_json_root(doc), "spawns") : NULL;
    if (!arr || arr->type != MSC_JARR) return;
    for (const msc_json_t *it = arr->child; it; it = it->next) {
        if (it->type != MSC_JOBJ) continue;
        spawn_t *nv = realloc(*v, (size_t)(*n + 1) * sizeof *nv);
        if (!nv) return;
        *v = nv;
        int64_t calls = msc_json_int(it, "calls");
        nv[*n] = (spawn_t){
            .world = strdup(world),
            .rank = (int)msc_json_int(it, "rank"),
            .procs = (int)msc_json_int(it, "procs"),
            .left = calls > 0 && calls < 1000000 ? (int)calls : 1,
            .command = strdup(msc_json_str(it, "command", "")),
            .function = strdup(msc_json_str(it, "function", "MPI_Comm_spawn")),
            .site = site_text(it),
        };
        (*n)++;
    }
}

/* Whether one of the commands of `command` (words up to " : ") has the
 * program name `program` (the executable's file name, as profile.json
 * gives it). */
static bool runs(const char *command, const char *program)
{
    if (!*program) return false;
    char *c = strdup(command);
    bool yes = false, first = true;
    char *save = NULL;
    for (char *w = c ? strtok_r(c, " ", &save) : NULL; w && !yes; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, ":") == 0) {
            first = true;
            continue;
        }
        if (first) {
            const char *slash = strrchr(w, '/');
            yes = strcmp(slash ? slash + 1 : w, program) == 0;
        }
        first = false;
    }
    free(c);
    return yes;
}

int msc_spawns_unanswered(const char *dir, char ***lines)
{
    *lines = NULL;
    spawn_t *sp = NULL;
    int nsp = 0;
    msc_json_doc_t *top = msc_json_load(dir, "profile.json");
    add_spawns(&sp, &nsp, "", top);
    msc_json_free(top);
    char **ids = NULL;
    int nw = msc_outdir_worlds(dir, &ids);
    char *wdir = NULL;
    for (int i = 0; i < nw; i++) {
        free(wdir);
        if (asprintf(&wdir, "%s/worlds/%s", dir, ids[i]) < 0) wdir = NULL;
        msc_json_doc_t *d = wdir ? msc_json_load(wdir, "profile.json") : NULL;
        add_spawns(&sp, &nsp, ids[i], d);
        msc_json_free(d);
    }
    /* Each world answers one call, in three passes of looser matching. */
    bool *done = calloc((size_t)nw + 1, sizeof *done);
    for (int pass = 0; done && pass < 3; pass++) {
        for (int i = 0; i < nw; i++) {
            if (done[i]) continue;
            free(wdir);
            if (asprintf(&wdir, "%s/worlds/%s", dir, ids[i]) < 0) wdir = NULL;
            msc_json_doc_t *d = wdir ? msc_json_load(wdir, "profile.json") : NULL;
            const msc_json_t *root = d ? msc_json_root(d) : NULL;
            int size = root ? (int)msc_json_int(root, "world_size") : -1;
            const char *program = root ? msc_json_str(root, "program", "") : "";
            for (int k = 0; k < nsp; k++) {
                if (sp[k].left <= 0) continue;
                if (pass < 2 && sp[k].procs != size) continue;
                if (pass == 0 && !runs(sp[k].command, program)) continue;
                sp[k].left--;
                done[i] = true;
                break;
            }
            msc_json_free(d);
        }
    }
    free(wdir);
    free(done);
    int n = 0;
    for (int k = 0; k < nsp; k++) {
        if (sp[k].left > 0) {
            char **nl = realloc(*lines, (size_t)(n + 1) * sizeof *nl);
            char *s = NULL;
            if (nl) {
                *lines = nl;
                char calls[32] = "";
                if (sp[k].left > 1) snprintf(calls, sizeof calls, "%d calls of ", sp[k].left);
                char who[200];
                if (sp[k].world[0])
                    snprintf(who, sizeof who, "rank %d of spawned world %s", sp[k].rank,
                             sp[k].world);
                else
                    snprintf(who, sizeof who, "rank %d of the job's world", sp[k].rank);
                char what[MSC_SPAWN_TEXT];
                if (sp[k].command[0])
                    snprintf(what, sizeof what, "(\"%s\", %d process%s)", sp[k].command,
                             sp[k].procs, sp[k].procs == 1 ? "" : "es");
                else /* the Fortran bindings give the tool no arguments */
                    snprintf(what, sizeof what, " (from Fortran: command not known)");
                if (asprintf(&s, "%s%s%s%s%s by %s", calls, sp[k].function, what,
                             sp[k].site[0] ? " at " : "", sp[k].site, who) < 0)
                    s = NULL;
            }
            if (s) (*lines)[n++] = s;
        }
        free(sp[k].world), free(sp[k].command), free(sp[k].function), free(sp[k].site);
    }
    free(sp);
    msc_outdir_worlds_free(ids, nw);
    return n;
}

void msc_spawns_free(char **lines, int n)
{
    for (int i = 0; i < n; i++) free(lines[i]);
    free(lines);
}
