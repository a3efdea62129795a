/* `mpiscope replay`: what the run would have taken on another network, or
 * with some computation faster or slower (the engine's what-if replay,
 * tools/analysis/replay.c).
 *
 *   mpiscope replay [--latency L] [--bandwidth B] [--scale S]...
 *                   [--np N [--mpi MPI]] [-o FILE] DIR
 *
 * It prints the real run time, the ideal network's (what the real network
 * costs) and the predicted one, then each rank's predicted end and time in
 * MPI. The analysis runs here, or under MPI with --np as `mpiscope report`
 * does; -o writes its whole result (waitstates.json's schema with the
 * "whatif" object filled). The run directory is not changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "commands.h"
#include "report_cli.h"

static void usage(FILE *o)
{
    fprintf(o,
            "usage: mpiscope replay [--latency L] [--bandwidth B] [--scale S]...\n"
            "                       [--np N [--mpi openmpi|mpich]] [-o FILE] DIR\n"
            "\n"
            "Replays the trace of DIR (DIR/trace/traces.otf2) on a network of latency L and\n"
            "bandwidth B, with the computation between MPI calls scaled where asked, and\n"
            "predicts the run time and each rank's end. MPI semantics are kept: messages\n"
            "match in order, a receive completes when its message arrived (post + L +\n"
            "bytes / B), sends are buffered, collectives wait for the members they need\n"
            "(plus ceil(log2 members) x L).\n"
            "\n"
            "  --latency L     seconds, or 5us, 1.5ms, 20ns (default 0)\n"
            "  --bandwidth B   bytes per second: 1e9, 10G, 500M, 2Gi, 1GB/s; inf (default)\n"
            "  --scale S       RANKS:FACTOR (RANKS: all, 3, 0-3, 0,2,5-7) or\n"
            "                  region:NAME:FACTOR (time in the user region NAME); repeatable\n"
            "  --np N, --mpi   analyse under MPI, as mpiscope report does\n"
            "  -o FILE         write the whole result as JSON\n");
}

int msc_cmd_replay(int argc, char **argv)
{
    msc_an_opts_t o = {.progress = isatty(2) != 0, .whatif = true};
    const char *dir = NULL, *out = NULL, *mpi = NULL;
    int np = 1, nextra = 0, rc = 0;
    char *extra[56];
    char err[512];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            msc_an_opts_free(&o);
            return 0;
        }
        if (a[0] == '-' && i + 1 >= argc) {
            fprintf(stderr, "mpiscope replay: %s needs a value\n", a);
            msc_an_opts_free(&o);
            return 2;
        }
        int k = a[0] == '-' ? msc_an_parse_option(a, argv[i + 1], &o, err, sizeof err) : 0;
        if (k < 0) {
            fprintf(stderr, "mpiscope replay: %s\n", err);
            msc_an_opts_free(&o);
            return 2;
        }
        if (k > 0) {
            if (nextra + 2 > (int)(sizeof extra / sizeof *extra)) {
                fprintf(stderr, "mpiscope replay: too many options\n");
                msc_an_opts_free(&o);
                return 2;
            }
            extra[nextra++] = argv[i], extra[nextra++] = argv[i + 1];
            i++;
        } else if (!strcmp(a, "-o")) {
            out = argv[++i];
        } else if (!strcmp(a, "--mpi")) {
            mpi = argv[++i];
            if (strcmp(mpi, "openmpi") && strcmp(mpi, "mpich")) {
                fprintf(stderr, "mpiscope replay: --mpi takes openmpi or mpich, not '%s'\n", mpi);
                msc_an_opts_free(&o);
                return 2;
            }
        } else if (!strcmp(a, "--np")) {
            char *end = NULL;
            long v = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || v < 1 || v > 100000) {
                fprintf(stderr, "mpiscope replay: --np takes a number from 1 to 100000, not '%s'\n",
                        argv[i]);
                msc_an_opts_free(&o);
                return 2;
            }
            np = (int)v;
        } else if (a[0] == '-' || dir) {
            usage(stderr);
            msc_an_opts_free(&o);
            return 2;
        } else {
            dir = a;
        }
    }
    if (!dir) {
        usage(stderr);
        msc_an_opts_free(&o);
        return 2;
    }
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", dir);
    if (access(anchor, R_OK) != 0) {
        fprintf(stderr, "mpiscope replay: %s has no trace (trace/traces.otf2)\n", dir);
        msc_an_opts_free(&o);
        return 1;
    }
    char *text = NULL;
    size_t len = 0;
    if (np > 1) {
        text = msc_waitstate_parallel(anchor, np, mpi, extra, nextra, &len);
    } else {
        msc_an_result_t *r = msc_an_analyze(anchor, &o, err, sizeof err);
        if (!r) {
            fprintf(stderr, "mpiscope replay: %s\n", err);
        } else {
            FILE *m = open_memstream(&text, &len);
            if (m) {
                msc_an_write_json(m, r, "trace/traces.otf2");
                fclose(m);
            }
            msc_an_free(r);
        }
    }
    msc_an_opts_free(&o);
    if (!text) return 1;
    char jerr[256];
    msc_json_doc_t *doc = msc_json_parse(text, len, jerr, sizeof jerr);
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "mpiscope replay: cannot write %s\n", out);
            rc = 1;
        }
    }
    free(text);
    if (!doc) {
        fprintf(stderr, "mpiscope replay: the analysis wrote bad JSON: %s\n", jerr);
        return 1;
    }
    if (msc_replay_render(stdout, msc_json_root(doc)) != 0) rc = 1;
    msc_json_free(doc);
    return rc;
}
