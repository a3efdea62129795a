/* The flame view of the HTML report: the profile's call paths as an icicle,
 * the outermost frame on top and the MPI function at the bottom of each
 * stack, a frame as wide as the MPI time of the calls made under it, summed
 * over the ranks. The stacks and weights are those of `mpiscope export
 * --folded` (msc_folded_stacks, export_folded.c), so the picture and the file
 * a user gives flamegraph.pl or speedscope agree to the microsecond.
 *
 * Design. The tree is built here from the folded lines: a frame's children
 * in the order of the lines (sorted by path), the root "all MPI time at call
 * sites" their sum. It is drawn as SVG in a viewBox 1000 units wide, a row of
 * 18 units per level; each frame is a <g class="fr"> holding its rect, its
 * name clipped to the width (about 6.6 units a character at 11 units), a
 * <title> for the hover (name, time, share) and, for the tests and scripts,
 * data-id, data-parent, data-us (the frame's weight in µs) and data-path (its
 * stack, ';'-joined as in the folded file). A click on a frame zooms into it:
 * it and its ancestors span the width, its descendants scale with it, the
 * rest is hidden (flamegraph.pl's zoom); a click on the top frame or Escape
 * goes back. Frames narrower than 0.05 units at the current zoom are hidden
 * (counted on the svg as data-hidden). The location #flame=N opens the page
 * zoomed into frame N; the svg says which in data-zoom.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_cli.h"

#define FL_W 1000.0 /* viewBox width */
#define FL_ROW 18   /* units per level */
#define FL_MIN 0.05 /* narrowest frame drawn, units */

typedef struct {
    char *name;
    int64_t us;
    int parent, first, last, next;
    int depth;
    size_t path_len; /* bytes of the folded path up to and including this frame */
    const char *path; /* a folded line that passes through this frame */
    double x, w;
} fnode_t;

typedef struct {
    fnode_t *v;
    int n, cap;
    int depth;
} ftree_t;

static int add_node(ftree_t *t, int parent, const char *name, size_t len)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        fnode_t *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        t->v = v, t->cap = cap;
    }
    fnode_t *f = &t->v[t->n];
    *f = (fnode_t){.parent = parent, .first = -1, .last = -1, .next = -1};
    f->name = strndup(name, len);
    if (!f->name) return -1;
    if (parent >= 0) {
        fnode_t *p = &t->v[parent];
        f->depth = p->depth + 1;
        if (p->last >= 0) t->v[p->last].next = t->n;
        else p->first = t->n;
        p->last = t->n;
    }
    if (f->depth > t->depth) t->depth = f->depth;
    return t->n++;
}

/* The child of `parent` named name[0..len), made when missing; -1 when out
 * of memory. Lines come sorted, so the match is nearly always the last child. */
static int child(ftree_t *t, int parent, const char *name, size_t len)
{
    int last = t->v[parent].last;
    if (last >= 0 && strlen(t->v[last].name) == len && !memcmp(t->v[last].name, name, len))
        return last;
    for (int c = t->v[parent].first; c >= 0; c = t->v[c].next)
        if (strlen(t->v[c].name) == len && !memcmp(t->v[c].name, name, len)) return c;
    return add_node(t, parent, name, len);
}

static int build(ftree_t *t, const msc_folded_t *st, size_t n)
{
    if (add_node(t, -1, "all", 3) < 0) return -1;
    for (size_t i = 0; i < n; i++) {
        int at = 0;
        t->v[0].us += st[i].us;
        for (const char *s = st[i].path; *s;) {
            const char *e = strchr(s, ';');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            at = child(t, at, s, len);
            if (at < 0) return -1;
            t->v[at].us += st[i].us;
            t->v[at].path = st[i].path;
            t->v[at].path_len = (size_t)(s + len - st[i].path);
            s += len + (e ? 1 : 0);
        }
    }
    /* Nodes are made parent first, so one pass in order lays out each
     * node's children from its own x. */
    t->v[0].x = 0, t->v[0].w = FL_W;
    for (int i = 0; i < t->n; i++) {
        double x = t->v[i].x;
        for (int c = t->v[i].first; c >= 0; c = t->v[c].next) {
            t->v[c].x = x;
            t->v[c].w = t->v[0].us ? FL_W * (double)t->v[c].us / (double)t->v[0].us : 0;
            x += t->v[c].w;
        }
    }
    return 0;
}

/* flamegraph.pl's warm colours, by a hash of the name: the same frame has
 * the same colour wherever it appears; MPI functions are redder. */
static void colour(const fnode_t *f, char *b, size_t len)
{
    if (f->parent < 0 || f->name[0] == '[') {
        snprintf(b, len, "#c8c4c0");
        return;
    }
    uint32_t h = 2166136261u;
    for (const char *s = f->name; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    bool mpi = !strncmp(f->name, "MPI_", 4) || !strncmp(f->name, "mpi_", 4);
    int r = 205 + (int)(h % 50), g = mpi ? 40 + (int)(h >> 8) % 60 : 110 + (int)(h >> 8) % 110;
    int bl = (int)(h >> 16) % 55;
    snprintf(b, len, "#%02x%02x%02x", r, g, bl);
}

static void clipped(FILE *o, const char *name, double w)
{
    int fit = (int)((w - 6) / 6.6);
    int len = (int)strlen(name);
    if (fit >= len) {
        msc_html_esc(o, name);
    } else if (fit > 2) {
        char *s = strndup(name, (size_t)(fit - 2));
        if (s) msc_html_esc(o, s);
        free(s);
        fputs("..", o);
    }
}

static const char *FLAME_JS =
    "(function(){\n"
    "var s=document.getElementById('flame-svg');if(!s)return;\n"
    "var by={},gs=[].slice.call(s.querySelectorAll('g.fr'));\n"
    "gs.forEach(function(g){var r=g.querySelector('rect');by[g.getAttribute('data-id')]={g:g,r:r,"
    "t:g.querySelector('text'),x:+g.getAttribute('data-x'),w:+g.getAttribute('data-w'),"
    "p:g.getAttribute('data-parent'),n:g.getAttribute('data-name')};});\n"
    "function under(id,a){while(id&&id!=='-1'){if(id===a)return true;id=by[id]?by[id].p:null;}return false;}\n"
    "function label(e,x,w){var fit=Math.floor((w-6)/6.6);e.t.setAttribute('x',(x+3).toFixed(3));\n"
    " e.t.textContent=fit>=e.n.length?e.n:(fit>2?e.n.slice(0,fit-2)+'..':'');}\n"
    "function zoom(id){var z=by[id];if(!z)return;var x0=z.x,k=1000/z.w,hid=0;\n"
    " gs.forEach(function(g){var i=g.getAttribute('data-id'),e=by[i],x,w,v=true;\n"
    "  if(under(id,i)){x=0;w=1000;}else if(under(i,id)){x=(e.x-x0)*k;w=e.w*k;}else v=false;\n"
    "  if(v&&w<0.05){v=false;hid++;}\n"
    "  g.style.display=v?'':'none';if(v){e.r.setAttribute('x',x.toFixed(3));"
    "e.r.setAttribute('width',w.toFixed(3));label(e,x,w);}});\n"
    " s.setAttribute('data-zoom',id);s.setAttribute('data-hidden',hid);}\n"
    "gs.forEach(function(g){g.addEventListener('click',function(){\n"
    " var i=g.getAttribute('data-id');zoom(i===s.getAttribute('data-zoom')&&by[i].p!=='-1'?by[i].p:i);});});\n"
    "document.addEventListener('keydown',function(ev){if(ev.key==='Escape')zoom('0');});\n"
    "var m=/flame=(\\d+)/.exec(location.hash);zoom(m?m[1]:'0');\n"
    "})();\n";

void msc_html_flame(FILE *o, const msc_json_t *profile)
{
    msc_folded_t *st = NULL;
    size_t n = 0;
    if (msc_folded_stacks(profile, &st, &n) != 0 || n == 0) {
        msc_folded_free(st, n);
        return;
    }
    ftree_t t = {0};
    if (build(&t, st, n) != 0) {
        fprintf(o, "<section id=\"flame\"><h2>Call paths</h2><p>Out of memory.</p></section>\n");
        goto done;
    }
    int64_t depth = msc_json_int(profile, "callsite_depth");
    int h = (t.depth + 1) * FL_ROW;
    fprintf(o, "<section id=\"flame\"><h2>Call paths</h2><p>The MPI time of the calls made under "
               "each frame, summed over the ranks, outermost frame on top: the %zu stacks of "
               "<code>mpiscope export --folded</code>, recorded at call-site depth %" PRId64 "%s. "
               "Click a frame to zoom into it, the top frame or Escape to go back.</p>\n",
            n, depth,
            depth < 2 ? " (each stack is the calling line alone: record with --callsite-depth 4 "
                        "for call paths)"
                      : "");
    fprintf(o, "<svg id=\"flame-svg\" class=\"plot\" width=\"100%%\" viewBox=\"0 0 %d %d\" "
               "data-total-us=\"%" PRId64 "\" data-frames=\"%d\" role=\"img\" "
               "aria-label=\"call paths\">\n",
            (int)FL_W, h, t.v[0].us, t.n);
    for (int i = 0; i < t.n; i++) {
        const fnode_t *f = &t.v[i];
        char fill[16];
        colour(f, fill, sizeof fill);
        double share = t.v[0].us ? 100.0 * (double)f->us / (double)t.v[0].us : 0;
        fprintf(o, "<g class=\"fr\" data-id=\"%d\" data-parent=\"%d\" data-us=\"%" PRId64 "\" "
                   "data-x=\"%.6f\" data-w=\"%.6f\" data-name=\"",
                i, f->parent, f->us, f->x, f->w);
        msc_html_esc(o, f->name);
        fputs("\" data-path=\"", o);
        if (f->parent >= 0) {
            char *p = strndup(f->path, f->path_len);
            if (p) msc_html_esc(o, p);
            free(p);
        }
        fprintf(o, "\"%s><title>", f->w < FL_MIN ? " style=\"display:none\"" : "");
        msc_html_esc(o, f->parent < 0 ? "all MPI time at call sites" : f->name);
        fprintf(o, ": %" PRId64 " µs, %.1f %% of the MPI time at call sites</title>"
                   "<rect x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\" fill=\"%s\" "
                   "stroke=\"#fff\" stroke-width=\"0.5\"/><text x=\"%.3f\" y=\"%d\" "
                   "style=\"font-size:11px;pointer-events:none\">",
                f->us, share, f->x, f->depth * FL_ROW, f->w, FL_ROW - 1, fill, f->x + 3,
                f->depth * FL_ROW + 12);
        clipped(o, f->name, f->w);
        fputs("</text></g>\n", o);
    }
    fprintf(o, "</svg></section>\n<script>%s</script>\n", FLAME_JS);
done:
    for (int i = 0; i < t.n; i++) free(t.v[i].name);
    free(t.v);
    msc_folded_free(st, n);
}
