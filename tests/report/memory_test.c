/* report/memory: the analysis's peak memory stays below the trace's size,
 * with the same results (issue 15 "Analysis memory", issue 18 "memory no
 * larger than the trace").
 *
 * Usage: memory_test GEN_TRACE MPISCOPE DIR [norss]. Generates the benchmark trace
 * (8 ranks x 100,000 iterations, about 38 MB of OTF2) in DIR; with GEN_TRACE
 * `-`, DIR is a traced run's output directory already (a real trace, with
 * mapping tables, call sites, metrics and the delay pass's claims that a
 * generated trace lacks). Then it runs
 * `mpiscope report --reanalyze` on it as a child and takes the child's peak
 * resident set from wait4 (ru_maxrss: a count of pages, not a time, so it
 * holds on a loaded machine). It must be at most the trace's size on disk:
 * the records the analysis keeps take about twice the trace (docs/analysis.md
 * "Memory"), so an analysis that held them all in memory again would fail,
 * while the bounded one peaks at the process itself plus a window. Then the
 * same analysis with the spill file off (MPISCOPE_ANALYSIS_SPILL=0) must
 * give the same waitstates.json (but its timing line) and report text, byte
 * for byte. With a fifth argument `norss` (a sanitizer build: its shadow
 * memory and quarantine are not the product's memory) only the results
 * are compared. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long long trace_bytes;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)path, (void)f;
    if (type == FTW_F) trace_bytes += (unsigned long long)st->st_blocks * 512;
    return 0;
}

/* Runs argv with stdout to `out` (NULL: /dev/null); the child's peak RSS in
 * bytes, or -1 when it failed. */
static long long run(char *const argv[], const char *out, const char *spill)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (spill) setenv("MPISCOPE_ANALYSIS_SPILL", spill, 1);
        else unsetenv("MPISCOPE_ANALYSIS_SPILL");
        if (!freopen(out ? out : "/dev/null", "w", stdout)) _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "memory_test: %s failed (status %d)\n", argv[0], st);
        return -1;
    }
    return (long long)ru.ru_maxrss * 1024;
}

/* The file's bytes without the line(s) containing `skip`. */
static char *slurp(const char *path, const char *skip)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap), line[4096];
    while (s && fgets(line, sizeof line, f)) {
        if (skip && strstr(line, skip)) continue;
        size_t k = strlen(line);
        if (n + k + 1 > cap) s = realloc(s, cap = 2 * (n + k + 1));
        if (s) memcpy(s + n, line, k), n += k;
    }
    fclose(f);
    if (s) s[n] = '\0';
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "norss"))) {
        fprintf(stderr, "usage: memory_test GEN_TRACE MPISCOPE DIR [norss]\n");
        return 2;
    }
    char trace[4096], ws[4200], out1[4200], out2[4200], ws1[4200];
    snprintf(trace, sizeof trace, "%s/trace", argv[3]);
    snprintf(ws, sizeof ws, "%s/waitstates.json", argv[3]);
    snprintf(out1, sizeof out1, "%s/report-spill.txt", argv[3]);
    snprintf(out2, sizeof out2, "%s/report-nospill.txt", argv[3]);
    snprintf(ws1, sizeof ws1, "%s/waitstates-spill.json", argv[3]);
    char *gen[] = {argv[1], trace, "8", "100000", NULL};
    if (strcmp(argv[1], "-") && run(gen, NULL, NULL) < 0) return 1;
    if (nftw(trace, add_size, 16, FTW_PHYS)) return 1;

    char *rep[] = {argv[2], "report", "--reanalyze", argv[3], NULL};
    long long rss = run(rep, out1, NULL);
    if (rss < 0 || rename(ws, ws1)) return 1;
    printf("trace %.1f MB on disk, analysis peak RSS %.1f MB (%.2fx)\n", trace_bytes / 1e6,
           rss / 1e6, (double)rss / (double)trace_bytes);
    int bad = 0;
    if (argc == 4 && (unsigned long long)rss > trace_bytes) {
        fprintf(stderr, "FAIL: peak RSS %lld bytes exceeds the trace's %llu bytes\n", rss,
                trace_bytes);
        bad = 1;
    }

    long long rss0 = run(rep, out2, "0");
    if (rss0 < 0) return 1;
    printf("without the spill file: peak RSS %.1f MB (%.2fx)\n", rss0 / 1e6,
           (double)rss0 / (double)trace_bytes);
    char *a = slurp(ws1, "\"analysis\": {"), *b = slurp(ws, "\"analysis\": {");
    char *c = slurp(out1, NULL), *d = slurp(out2, NULL);
    if (!a || !b || !c || !d || !*a || !*c) {
        fprintf(stderr, "FAIL: missing output\n");
        return 1;
    }
    if (strcmp(a, b)) {
        fprintf(stderr, "FAIL: waitstates.json differs with and without the spill file\n");
        bad = 1;
    }
    if (strcmp(c, d)) {
        fprintf(stderr, "FAIL: the report text differs with and without the spill file\n");
        bad = 1;
    }
    free(a), free(b), free(c), free(d);
    return bad;
}
