/* `mpiscope export --folded DIR [-o FILE]`: the profile's call paths as
 * folded stacks, the input of flamegraph.pl, speedscope and Hatchet's
 * flame-graph writer: one line per call path,
 *
 *     main;solve;exchange;MPI_Sendrecv 1234
 *
 * outermost frame first, the MPI function last, and the MPI time of the
 * calls made on that path in microseconds (summed over ranks, rounded to the
 * nearest microsecond; a path below half a microsecond is left out).
 *
 * The paths come from profile.json's call sites, recorded with
 * MPISCOPE_CALLSITE_DEPTH frames. A frame is named by its symbol (else
 * module+offset, else file:line, else ??; a ';' in a name becomes ':');
 * frames outside main (the C library's start-up) are dropped. A stack that
 * reaches main, or has fewer frames than the depth (the unwinder reached the
 * bottom), is whole; any other was cut at the depth and starts with the
 * frame "[cut at depth N]", so that the cut stacks share one root instead of
 * passing for whole ones. Sites that differ only in their lines fold into one
 * path. The Python package (python/mpiscope/stacks.py) follows the same
 * rules, and tests/python compares the two.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "report_cli.h"

typedef struct {
    char *path;  /* "main;solve;MPI_Allreduce" */
    int64_t ns;  /* MPI time on the path, ns */
} stack_t;

/* Appends `s` to the growing string *b (length *n, capacity *cap), ';'
 * replaced by ':' unless `sep` (the separator itself). False when out of
 * memory. */
static bool append(char **b, size_t *n, size_t *cap, const char *s, bool sep)
{
    size_t l = strlen(s);
    if (*n + l + 2 > *cap) {
        size_t c = (*cap ? *cap * 2 : 256) + l;
        char *nb = realloc(*b, c);
        if (!nb) return false;
        *b = nb, *cap = c;
    }
    for (size_t i = 0; i < l; i++) (*b)[(*n)++] = s[i] == ';' && !sep ? ':' : s[i];
    (*b)[*n] = '\0';
    return true;
}

static void frame_name(const msc_json_t *f, char *buf, size_t len)
{
    const char *sym = msc_json_str(f, "symbol", "");
    const char *off = msc_json_str(f, "offset", "");
    const char *file = msc_json_str(f, "file", "");
    if (*sym) snprintf(buf, len, "%s", sym);
    else if (*off) snprintf(buf, len, "%s+%s", msc_json_str(f, "module", ""), off);
    else if (*file) snprintf(buf, len, "%s:%" PRId64, file, msc_json_int(f, "line"));
    else snprintf(buf, len, "??");
}

/* The folded path of one call site, malloc'd; NULL when out of memory. */
static char *site_path(const msc_json_t *site, int64_t depth)
{
    const msc_json_t *fr = msc_json_get(site, "frames");
    size_t nf = fr && fr->type == MSC_JARR ? fr->n : 0;
    const msc_json_t **frames = calloc(nf ? nf : 1, sizeof *frames);
    if (!frames) return NULL;
    size_t k = 0;
    for (const msc_json_t *f = nf ? fr->child : NULL; f && k < nf; f = f->next) frames[k++] = f;
    /* frames[0] is the innermost; start from the outermost main, if any. */
    size_t top = nf;
    bool whole = (int64_t)nf < depth;
    for (size_t i = nf; i-- > 0;)
        if (!strcmp(msc_json_str(frames[i], "symbol", ""), "main")) {
            top = i + 1, whole = true;
            break;
        }
    char *b = NULL, name[1200];
    size_t n = 0, cap = 0;
    bool ok = true;
    if (!whole) {
        snprintf(name, sizeof name, "[cut at depth %" PRId64 "]", depth);
        ok = append(&b, &n, &cap, name, false) && append(&b, &n, &cap, ";", true);
    }
    for (size_t i = top; ok && i-- > 0;) {
        frame_name(frames[i], name, sizeof name);
        ok = append(&b, &n, &cap, name, false) && append(&b, &n, &cap, ";", true);
    }
    ok = ok && append(&b, &n, &cap, msc_json_str(site, "function", "?"), false);
    free(frames);
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const stack_t *)a)->path, ((const stack_t *)b)->path);
}

static void usage(FILE *o)
{
    fprintf(o, "usage: mpiscope export --folded [-o FILE] DIR|PROFILE.json\n"
               "\n"
               "Writes the profile's call paths as folded stacks (DIR/stacks.folded, or FILE;\n"
               "'-' for stdout), for flamegraph.pl, speedscope or Hatchet:\n"
               "    main;solve;MPI_Allreduce 1234\n"
               "one line per path, outermost frame first, weighted by the MPI time of its calls\n"
               "in microseconds summed over the ranks. Needs call paths: record with\n"
               "MPISCOPE_CALLSITE_DEPTH=2 or more (mpiscope run --set MPISCOPE_CALLSITE_DEPTH=4);\n"
               "stacks longer than the depth start with the frame [cut at depth N].\n"
               "\n"
               "Exit status: 0 written; 1 no profile or no call sites, or not written; 2 bad usage.\n");
}

int msc_export_folded(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--folded")) {
            continue;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            if (!strcmp(argv[i], "-o")) fprintf(stderr, "mpiscope export: -o needs a value\n");
            else if (argv[i][0] == '-')
                fprintf(stderr, "mpiscope export: unknown option %s for --folded\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        usage(stderr);
        return 2;
    }
    char profile[4096], path[4096];
    struct stat sb;
    bool is_dir = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
    snprintf(profile, sizeof profile, is_dir ? "%s/profile.json" : "%s", dir);
    if (out) snprintf(path, sizeof path, "%s", out);
    else if (is_dir) snprintf(path, sizeof path, "%s/stacks.folded", dir);
    else snprintf(path, sizeof path, "stacks.folded");
    msc_json_doc_t *doc = msc_load_json(profile, false);
    if (!doc) return 1;
    const msc_json_t *root = msc_json_root(doc);
    if (strcmp(msc_json_str(root, "tool", ""), "mpiscope") != 0) {
        fprintf(stderr, "mpiscope export: %s is not an mpiscope profile\n", profile);
        msc_json_free(doc);
        return 1;
    }
    int64_t depth = msc_json_int(root, "callsite_depth");
    const msc_json_t *sites = msc_json_get(root, "callsites");
    size_t ns = sites && sites->type == MSC_JARR ? sites->n : 0;
    if (depth < 1 || ns == 0) {
        fprintf(stderr, "mpiscope export: %s has no call sites (recorded with "
                        "MPISCOPE_CALLSITE_DEPTH=%" PRId64 "); record with depth 2 or more\n",
                profile, depth);
        msc_json_free(doc);
        return 1;
    }
    if (depth == 1)
        fprintf(stderr, "mpiscope export: %s was recorded with MPISCOPE_CALLSITE_DEPTH=1: every "
                        "stack is one frame; record with 2 or more for call paths\n", profile);
    stack_t *st = calloc(ns, sizeof *st);
    int rc = 1;
    size_t n = 0;
    if (!st) goto oom;
    for (const msc_json_t *s = sites->child; s && n < ns; s = s->next) {
        st[n].path = site_path(s, depth);
        if (!st[n].path) goto oom;
        st[n++].ns = msc_json_int(s, "time_ns");
    }
    qsort(st, n, sizeof *st, by_path);
    bool to_stdout = !strcmp(path, "-");
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = to_stdout ? stdout : fopen(tmp, "w");
    if (!o) {
        fprintf(stderr, "mpiscope export: cannot write %s\n", tmp);
        goto done;
    }
    size_t lines = 0;
    for (size_t i = 0; i < n;) {
        int64_t sum = 0;
        size_t j = i;
        for (; j < n && !strcmp(st[j].path, st[i].path); j++) sum += st[j].ns;
        int64_t us = (sum + 500) / 1000;
        if (us > 0) {
            fprintf(o, "%s %" PRId64 "\n", st[i].path, us);
            lines++;
        }
        i = j;
    }
    if (!to_stdout) {
        bool bad = ferror(o);
        if (fclose(o) != 0 || bad || rename(tmp, path) != 0) {
            fprintf(stderr, "mpiscope export: cannot write %s\n", path);
            unlink(tmp);
            goto done;
        }
        printf("mpiscope export: wrote %s: %zu stacks from %zu call sites\n", path, lines, n);
    } else if (fflush(stdout) != 0) {
        goto done;
    }
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "mpiscope export: out of memory\n");
done:
    for (size_t i = 0; i < n; i++) free(st[i].path);
    free(st);
    msc_json_free(doc);
    return rc;
}
