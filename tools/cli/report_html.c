/* `mpiscope report --html`: one self-contained HTML file from a run's
 * results (profile.json, waitstates.json, checks.json, MPI_T values).
 *
 * Everything is inline: CSS, the plots (SVG drawn here, no library), and a
 * few lines of JavaScript that sort the tables when a header is clicked and,
 * once the page is laid out, note every plot's rendered size on the element
 * (data-width/data-height) so that a headless browser's DOM dump shows the
 * plots were drawn. No network, no external script or font.
 *
 * Sections appear when their data exist: a run without a trace has no wait
 * states, one without the check module no findings. Tables list every row
 * (sortable); plots show the heaviest rows when there are many.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_cli.h"
#include "../../src/profile/render.h"

typedef const msc_json_t J;

void msc_html_esc(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '&': fputs("&amp;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
    }
}

static const char *secs(double ns, char *b, size_t n)
{
    double s = ns / 1e9;
    if (s >= 100) snprintf(b, n, "%.1f s", s);
    else if (s >= 1) snprintf(b, n, "%.3f s", s);
    else if (s >= 1e-3) snprintf(b, n, "%.3f ms", s * 1e3);
    else snprintf(b, n, "%.3f µs", s * 1e6);
    return b;
}

static const char *bytes(double v, char *b, size_t n)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (v >= 1024 && i < 4) v /= 1024, i++;
    snprintf(b, n, i ? "%.1f %s" : "%.0f %s", v, u[i]);
    return b;
}

static size_t count(J *a) { return a && (a->type == MSC_JARR || a->type == MSC_JOBJ) ? a->n : 0; }

static const char *PAL[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                            "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* ---- plots --------------------------------------------------------------- */

#define PW 860 /* plot width, px */

static void svg_open(FILE *o, const char *id, int h, const char *label)
{
    fprintf(o, "<svg class=\"plot\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "role=\"img\" aria-label=\"", id, PW, h, PW, h);
    msc_html_esc(o, label);
    fprintf(o, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
}

/* Horizontal bars with up to 3 stacked parts per row. */
typedef struct {
    const char *label;
    double v[3];
} hrow_t;

static void hbars(FILE *o, const char *id, const char *label, hrow_t *rows, int n, int parts,
                  const char *const *part_names, const char *const *colors, bool as_time)
{
    int rh = n > 40 ? 10 : 20, top = 28, lw = 260;
    int h = top + n * rh + 24;
    double max = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int p = 0; p < parts; p++) s += rows[i].v[p];
        if (s > max) max = s;
    }
    if (max <= 0) max = 1;
    svg_open(o, id, h, label);
    int lx = lw;
    for (int p = 0; p < parts && parts > 1; p++) {
        fprintf(o, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"16\" class=\"lg\">%s</text>\n",
                lx, colors[p], lx + 16, part_names[p]);
        lx += 20 + 8 * (int)strlen(part_names[p]);
    }
    double scale = (PW - lw - 110) / max;
    for (int i = 0; i < n; i++) {
        int y = top + i * rh;
        double x = lw, total = 0;
        if (rh >= 14) {
            fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"lb\">", lw - 6, y + rh - 6);
            msc_html_esc(o, rows[i].label);
            fprintf(o, "</text>");
        }
        for (int p = 0; p < parts; p++) {
            double w = rows[i].v[p] * scale;
            char b[64];
            fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
                    x, y + 1, w, rh - 2, colors[p]);
            msc_html_esc(o, rows[i].label);
            fprintf(o, " %s: %s</title></rect>", parts > 1 ? part_names[p] : "",
                    as_time ? secs(rows[i].v[p], b, sizeof b) : bytes(rows[i].v[p], b, sizeof b));
            x += w;
            total += rows[i].v[p];
        }
        char b[64];
        if (rh >= 14)
            fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"vl\">%s</text>", x + 4, y + rh - 6,
                    as_time ? secs(total, b, sizeof b) : bytes(total, b, sizeof b));
        fputc('\n', o);
    }
    fprintf(o, "</svg>\n");
}

/* ---- tables -------------------------------------------------------------- */

static void th(FILE *o, const char *const *cols, int n)
{
    fprintf(o, "<table class=\"sortable\"><thead><tr>");
    for (int i = 0; i < n; i++) fprintf(o, "<th>%s</th>", cols[i]);
    fprintf(o, "</tr></thead><tbody>\n");
}

static void td_num(FILE *o, double v, const char *shown)
{
    fprintf(o, "<td class=\"n\" data-v=\"%.17g\">", v);
    msc_html_esc(o, shown);
    fprintf(o, "</td>");
}

static void td_int(FILE *o, int64_t v)
{
    fprintf(o, "<td class=\"n\" data-v=\"%lld\">%lld</td>", (long long)v, (long long)v);
}

static void td_time(FILE *o, int64_t ns)
{
    char b[64];
    td_num(o, (double)ns, ns ? secs((double)ns, b, sizeof b) : "0");
}

static void td_bytes(FILE *o, int64_t v)
{
    char b[64];
    td_num(o, (double)v, bytes((double)v, b, sizeof b));
}

static void td_str(FILE *o, const char *s)
{
    fprintf(o, "<td>");
    msc_html_esc(o, s);
    fprintf(o, "</td>");
}

/* ---- sections ------------------------------------------------------------ */

static void section_summary(FILE *o, J *p)
{
    J *s = msc_json_get(p, "summary");
    char a[64], b[64], c[64], d[64]; /* one buffer per number of the line */
    fprintf(o, "<section id=\"summary\"><h2>Summary</h2><p class=\"facts\">");
    fprintf(o, "<b>%lld</b> ranks &middot; wall time <b>%s</b> &middot; in MPI <b>%s</b> "
               "(%.1f%% of the profiled time) &middot; <b>%lld</b> calls &middot; imbalance "
               "<b>%.1f%%</b> (MPI time per rank: least %s on rank %lld, most %s on rank %lld)</p>",
            (long long)msc_json_int(p, "world_size"), secs((double)msc_json_int(s, "wall_ns_max"), a, sizeof a),
            secs((double)msc_json_int(s, "mpi_ns_total"), b, sizeof b), msc_json_num(s, "mpi_pct"),
            (long long)msc_json_int(s, "calls"), msc_json_num(s, "imbalance_pct"),
            secs((double)msc_json_int(s, "mpi_ns_rank_min"), c, sizeof c),
            (long long)msc_json_int(s, "mpi_ns_rank_min_at"),
            secs((double)msc_json_int(s, "mpi_ns_rank_max"), d, sizeof d),
            (long long)msc_json_int(s, "mpi_ns_rank_max_at"));
    fprintf(o, "</section>\n");
}

static void section_ranks(FILE *o, J *p)
{
    J *pr = msc_json_get(p, "per_rank");
    int n = (int)count(pr);
    if (!n) return;
    hrow_t *rows = calloc((size_t)n, sizeof *rows);
    char (*labels)[32] = calloc((size_t)n, sizeof *labels);
    double mean = 0, max = 0;
    int i = 0;
    for (J *r = pr->child; r; r = r->next, i++) {
        snprintf(labels[i], sizeof labels[i], "rank %lld", (long long)msc_json_int(r, "rank"));
        rows[i].label = labels[i];
        double mpi = (double)msc_json_int(r, "mpi_ns"), prof = (double)msc_json_int(r, "profiled_ns");
        rows[i].v[0] = prof > mpi ? prof - mpi : 0;
        rows[i].v[1] = mpi;
        mean += mpi;
        if (mpi > max) max = mpi;
    }
    mean /= n;
    static const char *const names[] = {"computation", "MPI"};
    static const char *const colors[] = {"#59a14f", "#e15759"};
    fprintf(o, "<section id=\"ranks\"><h2>Time per rank</h2><p>Profiled time of each rank, split "
               "into computation (outside MPI) and MPI.</p>\n");
    hbars(o, "plot-rank-time", "time per rank: computation and MPI", rows, n, 2, names, colors, true);
    fprintf(o, "</section>\n<section id=\"imbalance\"><h2>Imbalance across ranks</h2>");
    char a[64], b[64];
    fprintf(o, "<p>MPI time per rank against the mean (%s, dashed); the most is %s. "
               "Imbalance: 100 &times; (max &minus; mean) / max = <b>%.1f%%</b>.</p>\n",
            secs(mean, a, sizeof a), secs(max, b, sizeof b),
            max > 0 ? 100.0 * (max - mean) / max : 0.0);
    int rh = n > 40 ? 8 : 18, top = 30, h = top + n * rh + 20, lw = 90;
    svg_open(o, "plot-imbalance", h, "MPI time per rank against the mean");
    /* The legend: what the three colours and the dashed line mean. */
    static const char *const lg_col[] = {"#e15759", "#bab0ac", "#4e79a7"};
    static const char *const lg_txt[] = {"more than 5% above the mean", "within 5% of the mean",
                                         "more than 5% below the mean"};
    fprintf(o, "<g class=\"legend\" id=\"legend-imbalance\">");
    for (int k = 0, lx = lw; k < 3; k++, lx += 200)
        fprintf(o, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" "
                   "y=\"16\" class=\"lg\">%s</text>", lx, lg_col[k], lx + 16, lg_txt[k]);
    fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"12\" y2=\"12\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>"
               "<text x=\"%d\" y=\"16\" class=\"lg\">mean</text></g>\n", lw + 600, lw + 624, lw + 628);
    double scale = (PW - lw - 110) / (max > 0 ? max : 1);
    i = 0;
    for (J *r = pr->child; r; r = r->next, i++) {
        double mpi = (double)msc_json_int(r, "mpi_ns");
        const char *col = mpi > mean * 1.05 ? lg_col[0] : mpi < mean * 0.95 ? lg_col[2] : lg_col[1];
        if (rh >= 14)
            fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"lb\">%s</text>", lw - 6,
                    top + i * rh + rh - 5, labels[i]);
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s"
                   "</title></rect>\n",
                lw, top + i * rh + 1, mpi * scale, rh - 2, col, labels[i], secs(mpi, a, sizeof a));
    }
    fprintf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\" "
               "stroke-dasharray=\"4 3\"/>\n</svg>\n</section>\n",
            lw + mean * scale, lw + mean * scale, top - 4, h - 10);
    free(rows);
    free(labels);
}

static void section_functions(FILE *o, J *p)
{
    J *fs = msc_json_get(p, "functions");
    int n = (int)count(fs);
    if (!n) return;
    int64_t total = msc_json_int(msc_json_get(p, "summary"), "mpi_ns_total");
    /* functions are sorted by time in profile.json; plot the first 15 */
    int np = n < 15 ? n : 15;
    hrow_t *rows = calloc((size_t)np, sizeof *rows);
    J *f = fs->child;
    for (int i = 0; i < np; i++, f = f->next) {
        rows[i].label = msc_json_str(f, "name", "?");
        rows[i].v[0] = (double)msc_json_int(f, "time_ns");
    }
    static const char *const names[] = {"time"};
    static const char *const colors[] = {"#e15759"};
    fprintf(o, "<section id=\"functions\"><h2>Top MPI functions</h2>\n");
    hbars(o, "plot-functions", "time in the top MPI functions, all ranks", rows, np, 1, names, colors,
          true);
    free(rows);
    static const char *const cols[] = {"function", "calls", "time", "% of MPI", "min rank time",
                                       "max rank time", "bytes sent", "bytes received"};
    th(o, cols, 8);
    for (f = fs->child; f; f = f->next) {
        int64_t t = msc_json_int(f, "time_ns");
        char b[32];
        snprintf(b, sizeof b, "%.1f%%", total ? 100.0 * (double)t / (double)total : 0.0);
        fprintf(o, "<tr>");
        td_str(o, msc_json_str(f, "name", "?"));
        td_int(o, msc_json_int(f, "calls"));
        td_time(o, t);
        td_num(o, total ? (double)t / (double)total : 0, b);
        td_time(o, msc_json_int(f, "rank_time_min_ns"));
        td_time(o, msc_json_int(f, "rank_time_max_ns"));
        td_bytes(o, msc_json_int(f, "bytes_sent"));
        td_bytes(o, msc_json_int(f, "bytes_recv"));
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</tbody></table></section>\n");
}

static void section_callsites(FILE *o, J *p)
{
    J *cs = msc_json_get(p, "callsites");
    if (!count(cs)) return;
    fprintf(o, "<section id=\"callsites\"><h2>Top call sites</h2>\n");
    static const char *const cols[] = {"function", "site (file:line)", "in", "calls", "time",
                                       "ranks", "bytes sent", "bytes received"};
    th(o, cols, 8);
    for (J *s = cs->child; s; s = s->next) {
        J *fr = msc_json_get(s, "frames");
        J *f0 = count(fr) ? fr->child : NULL;
        char where[1200];
        const char *file = msc_json_str(f0, "file", "");
        if (*file)
            snprintf(where, sizeof where, "%s:%lld", file, (long long)msc_json_int(f0, "line"));
        else
            snprintf(where, sizeof where, "%s+%s", msc_json_str(f0, "module", "?"),
                     msc_json_str(f0, "offset", "?"));
        fprintf(o, "<tr>");
        td_str(o, msc_json_str(s, "function", "?"));
        td_str(o, where);
        td_str(o, msc_json_str(f0, "symbol", ""));
        td_int(o, msc_json_int(s, "calls"));
        td_time(o, msc_json_int(s, "time_ns"));
        td_int(o, msc_json_int(s, "ranks"));
        td_bytes(o, msc_json_int(s, "bytes_sent"));
        td_bytes(o, msc_json_int(s, "bytes_recv"));
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</tbody></table></section>\n");
}

static void section_histogram(FILE *o, J *p)
{
    int64_t bins[66] = {0};
    int maxbin = -1;
    J *fs = msc_json_get(p, "functions");
    for (J *f = fs ? fs->child : NULL; f; f = f->next) {
        J *h = msc_json_get(f, "histogram");
        for (J *b = h && h->type == MSC_JARR ? h->child : NULL; b; b = b->next) {
            int64_t k = msc_json_int(b, "bin");
            if (k < 0 || k > 65) continue;
            bins[k] += msc_json_int(b, "count");
            if (k > maxbin) maxbin = (int)k;
        }
    }
    if (maxbin < 0) return;
    int64_t max = 1;
    for (int k = 0; k <= maxbin; k++)
        if (bins[k] > max) max = bins[k];
    int nb = maxbin + 1, h = 240, base = 200, bw = (PW - 80) / (nb > 0 ? nb : 1);
    if (bw > 60) bw = 60;
    fprintf(o, "<section id=\"histogram\"><h2>Message sizes</h2><p>Calls per message size "
               "(power-of-two bins, all functions; log scale).</p>\n");
    svg_open(o, "plot-histogram", h, "histogram of message sizes");
    double lmax = log10((double)max + 1);
    for (int k = 0; k < nb; k++) {
        double bh = bins[k] ? (base - 20) * log10((double)bins[k] + 1) / lmax : 0;
        char lo[32];
        if (k == 0)
            snprintf(lo, sizeof lo, "0");
        else
            bytes((double)(1ULL << (k - 1)), lo, sizeof lo);
        int x = 60 + k * bw;
        fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#4e79a7\">"
                   "<title>%s and up: %lld calls</title></rect>",
                x + 1, base - bh, bw - 2, bh, lo, (long long)bins[k]);
        fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"ax\" transform=\"rotate(45 %d %d)\">%s</text>\n",
                x + 2, base + 12, x + 2, base + 12, lo);
        if (bins[k])
            fprintf(o, "<text x=\"%d\" y=\"%.1f\" class=\"ax\" text-anchor=\"middle\">%lld</text>",
                    x + bw / 2, base - bh - 3, (long long)bins[k]);
    }
    fprintf(o, "<line x1=\"58\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/></svg></section>\n",
            60 + nb * bw, base, base);
}

static void section_matrix(FILE *o, J *p)
{
    J *m = msc_json_get(p, "matrix");
    int n = (int)msc_json_int(p, "world_size");
    fprintf(o, "<section id=\"matrix\"><h2>Communication matrix</h2>");
    if (!m || !msc_json_get(m, "recorded") || !msc_json_get(m, "recorded")->num || n <= 0) {
        fprintf(o, "<p>No matrix was recorded for this run.</p></section>\n");
        return;
    }
    if (n > 512) {
        fprintf(o, "<p>%d ranks: too many for a heatmap here; see profile.json.</p></section>\n", n);
        return;
    }
    double *cell = calloc((size_t)n * (size_t)n, sizeof *cell);
    double max = 0;
    J *pairs = msc_json_get(m, "pairs");
    for (J *q = pairs ? pairs->child : NULL; q; q = q->next) {
        int64_t f = msc_json_int(q, "from"), t = msc_json_int(q, "to");
        if (f < 0 || t < 0 || f >= n || t >= n) continue;
        double *c = &cell[f * n + t];
        *c += (double)msc_json_int(q, "bytes");
        if (*c > max) max = *c;
    }
    int cs = (PW - 280) / n; /* the colour scale takes the right */
    if (cs > 40) cs = 40;
    if (cs < 1) cs = 1;
    int h = 50 + n * cs + 40;
    if (h < 260) h = 260; /* room for the colour scale */
    fprintf(o, "<p>Bytes from each sender (row) to each receiver (column), world ranks, "
               "point-to-point and collective (log colour scale; darker is more).</p>\n");
    svg_open(o, "plot-matrix", h, "communication matrix heatmap");
    double lmax = log10(max + 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = cell[i * n + j];
            double t = v > 0 && lmax > 0 ? 0.15 + 0.85 * log10(v + 1) / lmax : 0;
            int r = (int)(255 - t * (255 - 33)), g = (int)(255 - t * (255 - 102)),
                b = (int)(255 - t * (255 - 172));
            char bb[64];
            fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
                       "stroke=\"#eee\" stroke-width=\"%s\"><title>%d to %d: %s</title></rect>\n",
                    80 + j * cs, 40 + i * cs, cs, cs, r, g, b, cs > 4 ? "0.5" : "0", i, j,
                    bytes(v, bb, sizeof bb));
        }
    if (cs >= 10)
        for (int i = 0; i < n; i++) {
            fprintf(o, "<text x=\"74\" y=\"%d\" text-anchor=\"end\" class=\"ax\">%d</text>",
                    40 + i * cs + cs / 2 + 4, i);
            fprintf(o, "<text x=\"%d\" y=\"34\" text-anchor=\"middle\" class=\"ax\">%d</text>",
                    80 + i * cs + cs / 2, i);
        }
    char bb[64];
    fprintf(o, "<text x=\"80\" y=\"16\" class=\"lg\">receiver &#8594;</text>"
               "<text x=\"4\" y=\"30\" class=\"lg\">sender &#8595;</text>\n");
    /* The colour scale: the same mapping as the cells, at bytes 1, 10, 100,
     * ... up to the largest pair. */
    int lx = 80 + n * cs + 30, ly = 40, lh = 160;
    if (lx + 150 > PW) lx = PW - 150;
    fprintf(o, "<g class=\"legend\" id=\"legend-matrix\"><text x=\"%d\" y=\"%d\" class=\"lg\">bytes "
               "per pair</text>", lx, ly - 6);
    for (int k = 0; k < 16; k++) {
        double t = 0.15 + 0.85 * (15 - k) / 15.0; /* top: the most */
        int r = (int)(255 - t * (255 - 33)), g = (int)(255 - t * (255 - 102)),
            b = (int)(255 - t * (255 - 172));
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"/>", lx,
                ly + k * lh / 16, lh / 16 + 1, r, g, b);
    }
    fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"10\" fill=\"#fff\" stroke=\"#bbb\"/>"
               "<text x=\"%d\" y=\"%d\" class=\"ax\">%s (max)</text><text x=\"%d\" y=\"%d\" "
               "class=\"ax\">1 B</text><text x=\"%d\" y=\"%d\" class=\"ax\">none</text>"
               "<text x=\"%d\" y=\"%d\" class=\"ax\">log scale</text></g></svg></section>\n",
            lx, ly + lh + 6, lx + 22, ly + 9, bytes(max, bb, sizeof bb), lx + 22, ly + lh - 2, lx + 22,
            ly + lh + 15, lx, ly + lh + 32);
    free(cell);
}

/* Sampled MPI_T performance variables (src/mpit/pvars.c): profile.json's
 * "pvars" member, or mpit.json's when the run had no profile. One row per
 * variable and rank: samples, first and last value, min and max. */
static void section_mpit(FILE *o, J *p, const char *dir)
{
    J *pv = p ? msc_json_get(p, "pvars") : NULL;
    msc_json_doc_t *doc = NULL;
    if (!pv && dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/mpit.json", dir);
        doc = msc_load_json(path, true);
        if (doc) pv = msc_json_get(msc_json_root(doc), "pvars");
    }
    J *vars = pv ? msc_json_get(pv, "variables") : NULL;
    if (vars && vars->type == MSC_JARR && count(vars)) {
        fprintf(o, "<section id=\"mpit\"><h2>MPI_T performance variables</h2><p>Sampled: ");
        msc_html_esc(o, msc_json_str(pv, "setting", ""));
        fprintf(o, ", at most every %lld ms, at MPI call boundaries.</p>\n",
                (long long)msc_json_int(pv, "interval_ms"));
        static const char *const cols[] = {"variable", "class", "bound to", "rank", "samples",
                                           "start", "end", "min", "max"};
        th(o, cols, 9);
        static const char *const vals[] = {"start", "end", "min", "max"};
        for (J *v = vars->child; v; v = v->next) {
            J *ranks = msc_json_get(v, "per_rank");
            for (J *r = ranks && ranks->type == MSC_JARR ? ranks->child : NULL; r; r = r->next) {
                fprintf(o, "<tr>");
                td_str(o, msc_json_str(v, "name", "?"));
                td_str(o, msc_json_str(v, "class", ""));
                td_str(o, msc_json_str(v, "bound_to", ""));
                td_int(o, msc_json_int(r, "rank"));
                td_int(o, msc_json_int(r, "samples"));
                for (int k = 0; k < 4; k++) {
                    char b[64];
                    double x = msc_json_num(r, vals[k]);
                    snprintf(b, sizeof b, "%.6g", x);
                    td_num(o, x, b);
                }
                fprintf(o, "</tr>\n");
            }
        }
        fprintf(o, "</tbody></table></section>\n");
    }
    msc_json_free(doc);
}

static void section_checks(FILE *o, const char *dir)
{
    if (!dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/checks.json", dir);
    msc_json_doc_t *doc = msc_load_json(path, true);
    if (!doc) return;
    J *root = msc_json_root(doc), *fs = msc_json_get(root, "findings");
    fprintf(o, "<section id=\"checks\"><h2>Check findings</h2><p>%lld finding(s). ",
            (long long)msc_json_int(root, "count"));
    msc_html_esc(o, msc_json_str(root, "note", ""));
    fprintf(o, "</p>\n");
    static const char *const cols[] = {"class", "count", "ranks", "where", "explanation"};
    th(o, cols, 5);
    for (J *f = fs ? fs->child : NULL; f; f = f->next) {
        fprintf(o, "<tr>");
        td_str(o, msc_json_str(f, "class", "?"));
        td_int(o, msc_json_int(f, "count"));
        fprintf(o, "<td>");
        J *r = msc_json_get(f, "ranks");
        for (J *x = r ? r->child : NULL; x; x = x->next)
            fprintf(o, "%s%lld", x == r->child ? "" : ", ", (long long)x->i);
        fprintf(o, "</td><td>");
        J *s = msc_json_get(f, "sites");
        for (J *x = s ? s->child : NULL; x; x = x->next) {
            fprintf(o, "%srank %lld: ", x == s->child ? "" : "<br>", (long long)msc_json_int(x, "rank"));
            msc_html_esc(o, msc_json_str(x, "call", ""));
            fprintf(o, " at ");
            msc_html_esc(o, msc_json_str(x, "file", ""));
            if (msc_json_int(x, "line")) fprintf(o, ":%lld", (long long)msc_json_int(x, "line"));
        }
        fprintf(o, "</td>");
        td_str(o, msc_json_str(f, "explanation", ""));
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</tbody></table></section>\n");
    msc_json_free(doc);
}

static bool is_part(J *pat)
{
    J *x = msc_json_get(pat, "part_of");
    return x && x->type == MSC_JSTR;
}

static void section_waitstates(FILE *o, J *ws)
{
    J *pats = msc_json_get(ws, "patterns");
    int np = (int)count(pats);
    if (!np) return;
    int64_t mpi = msc_json_int(ws, "mpi_ns");
    fprintf(o, "<section id=\"waitstates\"><h2>Wait states</h2><p>Why ranks wait, from the trace "
               "(%lld events, %lld messages, %lld collective operations): Scalasca's patterns. "
               "Late Sender: a receive waited for its send to start; wrong order: another message "
               "was ready meanwhile. Late Receiver: a blocking send waited for the receive. Wait at "
               "Barrier / N&times;N: a rank entered before the last one. Late Broadcast: a rank "
               "entered before the root. Early Reduce: the root entered before the others. "
               "Completion: time after the first rank had left.</p>\n",
            (long long)msc_json_int(ws, "events"), (long long)msc_json_int(ws, "messages"),
            (long long)msc_json_int(ws, "collectives"));
    hrow_t *rows = calloc((size_t)np, sizeof *rows);
    int i = 0;
    for (J *p = pats->child; p; p = p->next, i++) {
        rows[i].label = msc_json_str(p, "title", "?");
        rows[i].v[0] = (double)msc_json_int(p, "time_ns");
    }
    static const char *const names[] = {"waiting"};
    static const char *const colors[] = {"#f28e2b"};
    hbars(o, "plot-waitstates", "waiting time per pattern", rows, np, 1, names, colors, true);
    free(rows);
    /* Per rank: stacked by pattern (the wrong-order part is inside Late Sender). */
    J *pr = msc_json_get(ws, "per_rank");
    int nr = (int)count(pr);
    if (nr) {
        int rh = nr > 40 ? 8 : 18, top = 48, lw = 90, h = top + nr * rh + 20;
        double max = 1;
        for (J *r = pr->child; r; r = r->next) {
            double s = 0;
            for (J *p = pats->child; p; p = p->next)
                if (!is_part(p)) s += (double)msc_json_int(r, msc_json_str(p, "id", ""));
            if (s > max) max = s;
        }
        fprintf(o, "<h3>Waiting time per rank</h3>\n");
        svg_open(o, "plot-waitstates-ranks", h, "waiting time per rank by pattern");
        int lx = 10, ly = 6, k = 0;
        for (J *p = pats->child; p; p = p->next) {
            if (is_part(p)) continue;
            int w = 24 + 7 * (int)strlen(msc_json_str(p, "title", ""));
            if (lx + w > PW) lx = 10, ly += 18; /* legend on two rows */
            fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" "
                       "y=\"%d\" class=\"lg\">", lx, ly, PAL[k % 10], lx + 13, ly + 9);
            msc_html_esc(o, msc_json_str(p, "title", ""));
            fprintf(o, "</text>");
            lx += w;
            k++;
        }
        double scale = (PW - lw - 100) / max;
        i = 0;
        for (J *r = pr->child; r; r = r->next, i++) {
            int y = top + i * rh;
            double x = lw;
            if (rh >= 14)
                fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"lb\">rank %lld</text>",
                        lw - 6, y + rh - 5, (long long)msc_json_int(r, "rank"));
            k = 0;
            for (J *p = pats->child; p; p = p->next) {
                if (is_part(p)) continue;
                double v = (double)msc_json_int(r, msc_json_str(p, "id", ""));
                char b[64];
                if (v > 0) {
                    fprintf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                               "<title>rank %lld ", x, y + 1, v * scale, rh - 2, PAL[k % 10],
                            (long long)msc_json_int(r, "rank"));
                    msc_html_esc(o, msc_json_str(p, "title", ""));
                    fprintf(o, ": %s</title></rect>", secs(v, b, sizeof b));
                }
                x += v * scale;
                k++;
            }
            fputc('\n', o);
        }
        fprintf(o, "</svg>\n");
    }
    fprintf(o, "<h3>Call sites</h3>\n<table class=\"sortable\"><thead><tr><th>site</th><th>calls</th>"
               "<th>MPI time</th><th>waiting</th>");
    for (J *p = pats->child; p; p = p->next) {
        fprintf(o, "<th>");
        msc_html_esc(o, msc_json_str(p, "title", ""));
        fprintf(o, "</th>");
    }
    fprintf(o, "</tr></thead><tbody>\n");
    J *cs = msc_json_get(ws, "callsites");
    for (J *s = cs ? cs->child : NULL; s; s = s->next) {
        int64_t w = 0;
        for (J *p = pats->child; p; p = p->next)
            if (!is_part(p)) w += msc_json_int(s, msc_json_str(p, "id", ""));
        fprintf(o, "<tr>");
        td_str(o, msc_json_str(s, "site", "?"));
        td_int(o, msc_json_int(s, "calls"));
        td_time(o, msc_json_int(s, "mpi_ns"));
        td_time(o, w);
        for (J *p = pats->child; p; p = p->next) td_time(o, msc_json_int(s, msc_json_str(p, "id", "")));
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</tbody></table><p>MPI time in the trace: ");
    char b[64];
    fprintf(o, "%s.</p></section>\n", secs((double)mpi, b, sizeof b));
}

/* ---- the run: metadata, per-rank table, I/O, user regions (issue 16) ----- */

/* The first 16 entries of run.hosts or run.commands: each `key` (in <code>
 * with `code`) and its ranks, `sep` between them. */
static void ranked_list(FILE *o, J *list, const char *key, const char *sep, bool code)
{
    int k = 0;
    for (J *x = list ? list->child : NULL; x && k < 16; x = x->next, k++) {
        fprintf(o, "%s%s", k ? sep : "", code ? "<code>" : "");
        msc_html_esc(o, msc_json_str(x, key, "?"));
        fprintf(o, "%s (ranks ", code ? "</code>" : "");
        msc_html_esc(o, msc_json_str(x, "ranks", "?"));
        fprintf(o, ")");
    }
    if (count(list) > 16) fprintf(o, "%s... %zu more", sep, count(list) - 16);
}

/* The header's facts about the run (profile.json "run"; older profiles
 * have none). */
static void header_run(FILE *o, J *p)
{
    J *run = msc_json_get(p, "run");
    if (!run) return;
    char a[64];
    J *cmds = msc_json_get(run, "commands");
    if (count(cmds) > 1) { /* several programs in one world: each with its ranks */
        fprintf(o, "<dl class=\"run\" id=\"run\"><dt>commands</dt><dd>");
        ranked_list(o, cmds, "command", "; ", true);
        fprintf(o, "</dd><dt>started</dt><dd>");
    } else {
        fprintf(o, "<dl class=\"run\" id=\"run\"><dt>command</dt><dd><code>");
        msc_html_esc(o, msc_json_str(run, "command", "?"));
        fprintf(o, "</code></dd><dt>started</dt><dd>");
    }
    msc_html_esc(o, msc_json_str(run, "start_time", "?"));
    fprintf(o, ", ran %s</dd><dt>hosts</dt><dd>", secs((double)msc_json_int(run, "duration_ns"), a, sizeof a));
    ranked_list(o, msc_json_get(run, "hosts"), "name", ", ", false);
    /* The Slurm job, in the text report's words (render.c). */
    char *slurm = NULL;
    size_t slurm_len = 0;
    FILE *m = msc_json_get(run, "slurm") ? open_memstream(&slurm, &slurm_len) : NULL;
    if (m) {
        msc_render_slurm(m, run);
        fclose(m);
        fprintf(o, "</dd><dt>slurm</dt><dd>");
        msc_html_esc(o, slurm ? slurm : "?");
    }
    free(slurm);
    fprintf(o, "</dd><dt>MPI</dt><dd>");
    msc_html_esc(o, msc_json_str(run, "mpi_library", "?"));
    fprintf(o, " (MPI ");
    msc_html_esc(o, msc_json_str(run, "mpi_version", "?"));
    fprintf(o, "), mpiscope ");
    msc_html_esc(o, msc_json_str(run, "mpiscope_version", "?"));
    fprintf(o, "</dd><dt>settings</dt><dd>");
    J *set = msc_json_get(run, "settings");
    if (!count(set)) fprintf(o, "all defaults");
    for (J *s = set ? set->child : NULL; s; s = s->next) {
        fprintf(o, "%s<code>", s == set->child ? "" : " ");
        msc_html_esc(o, s->key ? s->key : "?");
        fprintf(o, "=");
        msc_html_esc(o, s->str ? s->str : "?");
        fprintf(o, "</code>");
    }
    fprintf(o, "</dd></dl>\n");
}

static int by_mpi_ns(const void *a, const void *b)
{
    J *x = *(J *const *)a, *y = *(J *const *)b;
    int64_t u = msc_json_int(x, "mpi_ns"), v = msc_json_int(y, "mpi_ns");
    if (u != v) return u < v ? -1 : 1;
    return msc_json_int(x, "rank") < msc_json_int(y, "rank") ? -1 : 1;
}

static void rank_tr(FILE *o, J *r, const char *label)
{
    int64_t prof = msc_json_int(r, "profiled_ns"), mpi = msc_json_int(r, "mpi_ns");
    char b[32];
    snprintf(b, sizeof b, "%.1f%%", prof ? 100.0 * (double)mpi / (double)prof : 0.0);
    fprintf(o, "<tr>");
    if (label) td_str(o, label);
    td_int(o, msc_json_int(r, "rank"));
    td_str(o, msc_json_str(r, "host", "-"));
    td_time(o, prof > mpi ? prof - mpi : 0);
    td_time(o, mpi);
    td_num(o, prof ? (double)mpi / (double)prof : 0, b);
    td_time(o, msc_json_int(r, "io_ns"));
    td_int(o, msc_json_int(r, "calls"));
    fprintf(o, "</tr>\n");
}

enum { RANKS_FOLD = 1024 }; /* rows of the per-rank table before it folds */

/* Every rank's application and MPI time, as mpiP's table; past RANKS_FOLD
 * ranks the ranks of least, median and most MPI time. */
static void section_rank_table(FILE *o, J *p)
{
    J *pr = msc_json_get(p, "per_rank");
    size_t n = count(pr);
    if (!n) return;
    fprintf(o, "<section id=\"rank-table\"><h2>Per-rank table</h2><p>Application time is the "
               "profiled time outside MPI.%s</p>\n",
            n > RANKS_FOLD ? " Folded: the ranks of least, median and most MPI time." : "");
    static const char *const cols[] = {"", "rank", "host", "application", "MPI", "MPI %",
                                       "MPI-IO", "calls"};
    bool fold = n > RANKS_FOLD;
    th(o, cols + !fold, fold ? 8 : 7);
    if (!fold) {
        for (J *r = pr->child; r; r = r->next) rank_tr(o, r, NULL);
    } else {
        J **v = malloc(n * sizeof *v);
        size_t k = 0;
        for (J *r = pr->child; v && r; r = r->next) v[k++] = r;
        if (v) {
            qsort(v, k, sizeof *v, by_mpi_ns);
            rank_tr(o, v[0], "least MPI");
            rank_tr(o, v[(k - 1) / 2], "median");
            rank_tr(o, v[k - 1], "most MPI");
        }
        free(v);
    }
    fprintf(o, "</tbody></table></section>\n");
}

static void sizes_cell(FILE *o, J *h)
{
    fprintf(o, "<td>");
    char lo[32], hi[32];
    for (J *b = h ? h->child : NULL; b; b = b->next) {
        int64_t l = msc_json_int(b, "lo"), u = msc_json_int(b, "hi");
        if (l == u) fprintf(o, "%s%s: %lld", b == h->child ? "" : ", ", bytes((double)l, lo, sizeof lo),
                            (long long)msc_json_int(b, "count"));
        else fprintf(o, "%s%s&ndash;%s: %lld", b == h->child ? "" : ", ", bytes((double)l, lo, sizeof lo),
                     bytes((double)u, hi, sizeof hi), (long long)msc_json_int(b, "count"));
    }
    fprintf(o, "</td>");
}

static void io_tr(FILE *o, J *f, const char *name)
{
    char b[64];
    fprintf(o, "<tr>");
    td_str(o, name);
    td_int(o, msc_json_int(f, "ranks"));
    td_int(o, msc_json_int(f, "opens"));
    snprintf(b, sizeof b, "%lld / %lld", (long long)msc_json_int(f, "reads_independent"),
             (long long)msc_json_int(f, "reads_collective"));
    td_num(o, (double)(msc_json_int(f, "reads_independent") + msc_json_int(f, "reads_collective")), b);
    snprintf(b, sizeof b, "%lld / %lld", (long long)msc_json_int(f, "writes_independent"),
             (long long)msc_json_int(f, "writes_collective"));
    td_num(o, (double)(msc_json_int(f, "writes_independent") + msc_json_int(f, "writes_collective")), b);
    td_bytes(o, msc_json_int(f, "bytes_read"));
    td_bytes(o, msc_json_int(f, "bytes_written"));
    td_time(o, msc_json_int(f, "time_ns"));
    snprintf(b, sizeof b, "%.1f / %.1f", msc_json_num(f, "read_bandwidth_Bps") / 1e6,
             msc_json_num(f, "write_bandwidth_Bps") / 1e6);
    td_num(o, msc_json_num(f, "read_bandwidth_Bps") + msc_json_num(f, "write_bandwidth_Bps"), b);
    snprintf(b, sizeof b, "%.1f%%", msc_json_num(f, "imbalance_pct"));
    td_num(o, msc_json_num(f, "imbalance_pct"), b);
    sizes_cell(o, msc_json_get(f, "read_sizes"));
    sizes_cell(o, msc_json_get(f, "write_sizes"));
    fprintf(o, "</tr>\n");
}

/* MPI-IO per file (profile.json "io"), when the run opened a file. */
static void section_io(FILE *o, J *p)
{
    J *io = msc_json_get(p, "io"), *fs = msc_json_get(io, "files"), *other = msc_json_get(io, "other_files");
    if (!count(fs) && !other) return;
    char a[64], b[64], c[64], d[64];
    fprintf(o, "<section id=\"io\"><h2>I/O (MPI-IO)</h2><p class=\"facts\">read <b>%s</b> &middot; "
               "written <b>%s</b> &middot; %lld of %lld ranks did I/O &middot; I/O time per rank: least "
               "%s on rank %lld, most %s on rank %lld, mean %s &middot; imbalance <b>%.1f%%</b></p>\n",
            bytes(msc_json_num(io, "bytes_read"), a, sizeof a), bytes(msc_json_num(io, "bytes_written"), b, sizeof b),
            (long long)msc_json_int(io, "ranks_with_io"), (long long)msc_json_int(p, "ranks"),
            secs((double)msc_json_int(io, "rank_time_min_ns"), c, sizeof c),
            (long long)msc_json_int(io, "rank_time_min_at"),
            secs((double)msc_json_int(io, "rank_time_max_ns"), d, sizeof d),
            (long long)msc_json_int(io, "rank_time_max_at"),
            secs(msc_json_num(io, "rank_time_mean_ns"), a, sizeof a), msc_json_num(io, "imbalance_pct"));
    fprintf(o, "<p>Per file: reads and writes independent / collective, time summed over the ranks, "
               "bandwidth in MB/s (read / write) over the slowest rank's time, imbalance of the "
               "ranks' time on the file, access sizes (operations per size).</p>\n");
    static const char *const cols[] = {"file", "ranks", "opens", "reads", "writes", "read",
                                       "written", "time", "MB/s", "imbalance", "read sizes",
                                       "write sizes"};
    th(o, cols, 12);
    for (J *f = fs ? fs->child : NULL; f; f = f->next) io_tr(o, f, msc_json_str(f, "name", "?"));
    if (other) io_tr(o, other, "(other files)");
    fprintf(o, "</tbody></table></section>\n");
}

/* User regions of the VT_ API: profile-vt.json (src/vt/profile.c). */
static void section_regions(FILE *o, const char *dir)
{
    if (!dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/profile-vt.json", dir);
    msc_json_doc_t *doc = msc_load_json(path, true);
    if (!doc) return;
    J *rs = msc_json_get(msc_json_root(doc), "regions");
    if (count(rs)) {
        fprintf(o, "<section id=\"regions\"><h2>User regions (VT_ API)</h2><p>Time in each region "
                   "(inclusive, all ranks) and the MPI calls made with it innermost.</p>\n");
        static const char *const cols[] = {"region", "calls", "time", "MPI calls", "MPI time"};
        th(o, cols, 5);
        for (J *r = rs->child; r; r = r->next) {
            fprintf(o, "<tr>");
            td_str(o, msc_json_str(r, "region", "?"));
            td_int(o, msc_json_int(r, "calls"));
            td_time(o, msc_json_int(r, "time_ns"));
            td_int(o, msc_json_int(r, "mpi_calls"));
            td_time(o, msc_json_int(r, "mpi_time_ns"));
            fprintf(o, "</tr>\n");
        }
        fprintf(o, "</tbody></table></section>\n");
    }
    msc_json_free(doc);
}

/* How many findings checks.json lists, or -1 without the file. */
static int64_t findings(const char *dir)
{
    char path[4096];
    if (!dir) return -1;
    snprintf(path, sizeof path, "%s/checks.json", dir);
    if (access(path, R_OK) != 0) return -1;
    msc_json_doc_t *doc = msc_load_json(path, true);
    int64_t n = doc ? msc_json_int(msc_json_root(doc), "count") : -1;
    msc_json_free(doc);
    return n;
}

/* The navigation bar: a link to every section of `body` but the summary,
 * in order, named by a short label (or its heading); the findings, placed
 * first after the summary, say how many there are. */
static void nav_bar(FILE *o, const char *body, int64_t nfindings)
{
    static const char *const short_names[][2] = {
        {"rank-table", "per rank"}, {"ranks", "time per rank"}, {"imbalance", "imbalance"},
        {"functions", "functions"}, {"callsites", "call sites"}, {"io", "I/O"},
        {"histogram", "message sizes"}, {"matrix", "matrix"}, {"regions", "user regions"},
        {"mpit", "MPI_T"}, {"waitstates", "wait states"}};
    fprintf(o, "<nav>");
    for (const char *s = strstr(body, "<section id=\""); s; s = strstr(s + 1, "<section id=\"")) {
        const char *id = s + 13, *q = strchr(id, '"');
        if (!q || q - id > 64) continue;
        char sid[65];
        memcpy(sid, id, (size_t)(q - id));
        sid[q - id] = 0;
        if (!strcmp(sid, "summary")) continue;
        fprintf(o, "<a href=\"#%s\"", sid);
        if (!strcmp(sid, "checks")) {
            fprintf(o, "%s>findings (%lld)</a>", nfindings ? " class=\"warn\"" : "", (long long)nfindings);
            continue;
        }
        const char *label = NULL;
        for (size_t i = 0; i < sizeof short_names / sizeof short_names[0]; i++)
            if (!strcmp(sid, short_names[i][0])) label = short_names[i][1];
        fputc('>', o);
        if (label) {
            fputs(label, o);
        } else { /* a section of another file: its heading */
            const char *h = strstr(q, "<h2>"), *e = h ? strstr(h, "</h2>") : NULL;
            if (h && e && e - h < 200) fwrite(h + 4, 1, (size_t)(e - h - 4), o);
            else fputs(sid, o);
        }
        fputs("</a>", o);
    }
    fprintf(o, "</nav>\n");
}

static const char *CSS =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;"
    "background:#fafafa}header{background:#2b3a4a;color:#fff;padding:14px 24px}"
    "header h1{margin:0;font-size:20px}header p{margin:4px 0 0;opacity:.85}"
    "nav{padding:6px 24px;background:#e8ecf0;font-size:13px}nav a{margin-right:14px;color:#2b3a4a}"
    "main{padding:0 24px 40px;max-width:1100px}section{background:#fff;border:1px solid #ddd;"
    "border-radius:6px;padding:4px 18px 14px;margin:16px 0}h2{font-size:17px;margin:12px 0 6px}"
    "h3{font-size:15px}svg.plot{display:block;max-width:100%;height:auto;margin:8px 0}"
    "svg text{font:12px system-ui,sans-serif;fill:#333}svg text.lg{font-size:12px}"
    "svg text.ax{font-size:10px}table{border-collapse:collapse;margin:8px 0;font-size:13px;"
    "width:100%}th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f2f4;cursor:pointer;"
    "user-select:none;position:sticky;top:0}th.asc::after{content:' \\25B2'}"
    "th.desc::after{content:' \\25BC'}.facts b{color:#2b3a4a}"
    "td,th{overflow-wrap:anywhere}"
    "dl.run{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0 0;"
    "font-size:13px}dl.run dt{opacity:.75}dl.run dd{margin:0;overflow-wrap:anywhere}"
    "dl.run code{font-size:12px}nav a.warn{color:#b3261e;font-weight:600}";

static const char *JS =
    "(function(){\n"
    "function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent:parseFloat(v);}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){\n"
    "  var desc=!th.classList.contains('desc');\n"
    "  t.querySelectorAll('th').forEach(function(h){h.classList.remove('asc','desc');});\n"
    "  th.classList.add(desc?'desc':'asc');\n"
    "  var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\n"
    "  rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);\n"
    "   var r=(typeof a==='number'&&typeof c==='number')?a-c:String(a).localeCompare(String(c));\n"
    "   return desc?-r:r;});\n"
    "  rows.forEach(function(r){b.appendChild(r);});});});});\n"
    "function sizes(){var n=0;document.querySelectorAll('svg.plot').forEach(function(s){\n"
    " var r=s.getBoundingClientRect();s.setAttribute('data-width',Math.round(r.width));\n"
    " s.setAttribute('data-height',Math.round(r.height));\n"
    " s.setAttribute('data-shapes',s.querySelectorAll('rect').length);n++;});\n"
    " document.body.setAttribute('data-plots',n);\n"
    " var over=0;document.querySelectorAll('table').forEach(function(t){\n"
    "  if(t.getBoundingClientRect().right>t.parentElement.getBoundingClientRect().right+1)over++;});\n"
    " document.body.setAttribute('data-overflowing-tables',over);\n"
    " document.body.setAttribute('data-scroll-width',document.documentElement.scrollWidth);\n"
    " document.body.setAttribute('data-view-width',window.innerWidth);}\n"
    "if(document.readyState==='complete')sizes();else window.addEventListener('load',sizes);sizes();\n"
    "})();\n";

int msc_report_html(const char *dir, const char *profile_path, const msc_json_doc_t *wsdoc,
                    const char *out_path)
{
    msc_json_doc_t *pdoc = profile_path ? msc_load_json(profile_path, false) : NULL;
    if (profile_path && !pdoc) return 1;
    J *p = pdoc ? msc_json_root(pdoc) : NULL;
    if (p && strcmp(msc_json_str(p, "tool", ""), "mpiscope") != 0) {
        fprintf(stderr, "mpiscope report: %s is not an mpiscope profile\n", profile_path);
        msc_json_free(pdoc);
        return 1;
    }
    J *ws = wsdoc ? msc_json_root(wsdoc) : NULL;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", out_path);
    FILE *o = fopen(tmp, "w");
    if (!o) {
        fprintf(stderr, "mpiscope report: cannot write %s: %s\n", tmp, strerror(errno));
        msc_json_free(pdoc);
        return 1;
    }
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
               "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
               "<title>mpiscope report: ");
    msc_html_esc(o, p ? msc_json_str(p, "program", "?") : dir ? dir : "?");
    fprintf(o, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>mpiscope report: ", CSS);
    msc_html_esc(o, p ? msc_json_str(p, "program", "?") : dir ? dir : "?");
    fprintf(o, "</h1><p>");
    if (p) {
        msc_html_esc(o, msc_json_str(p, "mpi", "?"));
        fprintf(o, ", %lld ranks", (long long)msc_json_int(p, "world_size"));
    }
    if (dir) {
        fprintf(o, " &middot; ");
        msc_html_esc(o, dir);
    }
    fprintf(o, "</p>");
    if (p) header_run(o, p);
    fprintf(o, "</header>\n");
    /* The sections go to memory first: the navigation bar lists the ones
     * written, in their order (nav_bar). */
    FILE *page = o;
    char *body = NULL;
    size_t blen = 0;
    o = open_memstream(&body, &blen);
    if (!o) o = page, page = NULL;
    if (p) section_summary(o, p);
    section_checks(o, dir);
    if (p) {
        section_rank_table(o, p);
        msc_html_pop(o, p, ws); /* report_html_analysis.c */
        section_ranks(o, p);
        section_functions(o, p);
        section_callsites(o, p);
        msc_html_flame(o, p); /* report_html_flame.c */
        section_io(o, p);
        section_histogram(o, p);
        section_matrix(o, p);
    } else {
        fprintf(o, "<section><p>No profile.json: the run was traced only.</p></section>\n");
        msc_html_pop(o, NULL, ws);
    }
    section_regions(o, dir);
    section_mpit(o, p, dir);
    if (ws) section_waitstates(o, ws);
    if (ws) msc_html_analysis(o, ws); /* report_html_analysis.c */
    if (ws) msc_html_timeline(o, ws, p); /* report_html_timeline.c */
    if (page) {
        fclose(o);
        o = page;
        nav_bar(o, body ? body : "", findings(dir));
        fprintf(o, "<main>\n");
        if (body) fwrite(body, 1, blen, o);
        free(body);
    } else {
        fprintf(o, "<main>\n");
    }
    fprintf(o, "</main>\n<script>%s</script>\n</body></html>\n", JS);
    msc_json_free(pdoc);
    bool bad = ferror(o);
    if (fclose(o) != 0 || bad || rename(tmp, out_path) != 0) {
        fprintf(stderr, "mpiscope report: cannot write %s: %s\n", out_path, strerror(errno));
        unlink(tmp);
        return 1;
    }
    return 0;
}
