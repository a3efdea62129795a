/* The output directory of `mpiscope run`, before and after the run: whether
 * it can be written (probed by making and removing a directory in it, which
 * also catches a read-only mount or an immutable directory that permission
 * bits do not show, for root too), and which of the names a run writes it
 * holds. Before the run, such names mean another run's results, which the
 * new run would mix with its own (a report would then show one run's profile
 * with the other's trace); after it, they are what this run wrote. After a
 * run that did not end normally (a deadlock reported and ended, a killed or
 * crashed job), the per-rank files say what each rank left: the reason it
 * stopped (rank-R.incomplete), the findings written so far
 * (checks.rankR.jsonl, one line each), a partial profile
 * (profile.rankR.incomplete.json), and the trace's directory. Worlds that
 * MPI_Comm_spawn made have result directories of their own, worlds/<id>
 * (msc_outdir_worlds). */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool msc_outdir_writable(const char *dir, int *err)
{
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.mpiscope-probe-%ld", dir, (long)getpid());
    if (mkdir(probe, 0700) != 0) {
        *err = errno;
        return false;
    }
    rmdir(probe);
    return true;
}

/* What a run writes into its directory (the core's output.c and the modules). */
static const char *const result_names[] = {
    "profile.json", "profile.txt", "profile-vt.txt", "profile.rank*.json", "rank-*.incomplete",
    "trace", "trace.unreadable", "checks.txt", "checks.json", "checks.rank*.jsonl", "mpit.txt",
    "mpit.json",
    "waitstates.json", "report.html", "trace.json", "worlds", ".profile",
};

size_t msc_outdir_results(const char *dir, char *list, size_t len)
{
    if (len) list[0] = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0, used = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        bool result = false;
        for (size_t i = 0; !result && i < sizeof result_names / sizeof *result_names; i++)
            result = fnmatch(result_names[i], de->d_name, 0) == 0;
        if (!result) continue;
        n++;
        if (n <= 8 && used < len) {
            int w = snprintf(list + used, len - used, "%s%s", used ? ", " : "", de->d_name);
            if (w > 0) used += (size_t)w;
        } else if (n == 9 && used < len) {
            int w = snprintf(list + used, len - used, ", ...");
            if (w > 0) used += (size_t)w;
        }
    }
    closedir(d);
    if (used >= len && len) list[len - 1] = 0;
    return n;
}

/* What one rank left. */
typedef struct {
    int rank;
    char reason[96];   /* rank-R.incomplete's first line, or "" */
    long findings;     /* lines of checks.rankR.jsonl, or -1: no such file */
    bool profile;      /* profile.rankR.incomplete.json */
} leftover_t;

static leftover_t *leftover_of(leftover_t **v, int *n, int *cap, int rank)
{
    for (int i = 0; i < *n; i++)
        if ((*v)[i].rank == rank) return &(*v)[i];
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        leftover_t *p = realloc(*v, (size_t)c * sizeof *p);
        if (!p) return NULL;
        *v = p, *cap = c;
    }
    leftover_t *e = &(*v)[(*n)++];
    *e = (leftover_t){.rank = rank, .findings = -1};
    return e;
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long n = 0;
    for (int ch; (ch = fgetc(f)) != EOF;)
        if (ch == '\n') n++;
    fclose(f);
    return n;
}

static int by_rank(const void *a, const void *b)
{
    return ((const leftover_t *)a)->rank - ((const leftover_t *)b)->rank;
}

int msc_outdir_leftovers(const char *dir, const char *shown, int rc, FILE *o)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    leftover_t *v = NULL;
    int n = 0, cap = 0;
    bool trace = false, merged = false;
    struct dirent *de;
    char path[4200];
    while ((de = readdir(d))) {
        int rank = -1, used = 0;
        const char *nm = de->d_name;
        if (!strcmp(nm, "trace")) trace = true;
        if (!strcmp(nm, "profile.json") || !strcmp(nm, "checks.json")) merged = true;
        leftover_t *e = NULL;
        if (sscanf(nm, "rank-%d.incomplete%n", &rank, &used) == 1 && !nm[used] &&
            (e = leftover_of(&v, &n, &cap, rank))) {
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            FILE *f = fopen(path, "r");
            if (f) {
                if (fgets(e->reason, sizeof e->reason, f)) e->reason[strcspn(e->reason, "\n")] = 0;
                fclose(f);
            }
        } else if (sscanf(nm, "checks.rank%d.jsonl%n", &rank, &used) == 1 && !nm[used] &&
                   (e = leftover_of(&v, &n, &cap, rank))) {
            snprintf(path, sizeof path, "%s/%s", dir, nm);
            e->findings = count_lines(path);
        } else if (sscanf(nm, "profile.rank%d.incomplete.json%n", &rank, &used) == 1 && !nm[used] &&
                   (e = leftover_of(&v, &n, &cap, rank))) {
            e->profile = true;
        }
    }
    closedir(d);
    bool any_reason = false;
    for (int i = 0; i < n; i++) any_reason |= v[i].reason[0] != 0;
    /* A run that ended normally merged everything: nothing to say. */
    if (!n || (rc == 0 && merged && !any_reason)) {
        free(v);
        return 0;
    }
    qsort(v, (size_t)n, sizeof *v, by_rank);
    if (rc != 0)
        fprintf(o, "mpiscope: the command ended with exit code %d; what each rank left in %s:\n",
                rc, shown);
    else
        fprintf(o, "mpiscope: some ranks did not end normally; what each rank left in %s:\n",
                shown);
    long total = 0;
    for (int i = 0; i < n; i++) {
        const leftover_t *e = &v[i];
        const char *sep = "";
        fprintf(o, "  rank %d: ", e->rank);
        if (e->reason[0]) fprintf(o, "stopped by %s", e->reason), sep = "; ";
        if (e->findings >= 0) {
            fprintf(o, "%s%ld finding%s written", sep, e->findings, e->findings == 1 ? "" : "s");
            total += e->findings, sep = "; ";
        }
        if (e->profile) fprintf(o, "%sa partial profile", sep);
        else if (!merged && !e->reason[0])
            fprintf(o, "%sno profile (it ended without a word: as by SIGKILL)", sep);
        fputc('\n', o);
    }
    if (!merged)
        fprintf(o, "  No rank merged the results at MPI_Finalize: `mpiscope report %s` assembles "
                   "%s%s and names the ranks that are missing.\n",
                shown, total ? "the findings" : "what was written",
                trace ? " (and the trace's events up to where each rank stopped)" : "");
    free(v);
    return merged ? 1 : 2;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int msc_outdir_worlds(const char *dir, char ***ids)
{
    *ids = NULL;
    char path[4200];
    snprintf(path, sizeof path, "%s/worlds", dir);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char sub[4500];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
        if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            char **p = realloc(*ids, (size_t)cap * sizeof *p);
            if (!p) break;
            *ids = p;
        }
        (*ids)[n] = strdup(de->d_name);
        if ((*ids)[n]) n++;
    }
    closedir(d);
    if (n > 1) qsort(*ids, (size_t)n, sizeof **ids, by_name);
    return n;
}

void msc_outdir_worlds_free(char **ids, int n)
{
    for (int i = 0; i < n; i++) free(ids[i]);
    free(ids);
}
