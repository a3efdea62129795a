/* Findings as data (findings_io.h): the per-rank line format, its reader and
 * the writers of checks.txt and checks.json. No MPI and nothing of the
 * library's state, so that the `mpiscope` program compiles this same file
 * (tools/cli/report_checks.c) to assemble the report of a run that died.
 *
 * The reader parses only what the encoder writes: one flat object per line
 * whose values are strings, integers or (for "sites") an array of flat
 * objects. Unknown members are skipped; a line that does not parse (the
 * torn last line of a process that died in the middle of a write) is
 * ignored. Input is untrusted (`mpiscope report` reads any directory):
 * every copy is bounded by its destination.
 */
#include "findings_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- encoding ------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
    bool over;
} out_t;

static void put(out_t *o, const char *s, size_t len)
{
    if (o->over || o->n + len >= o->cap) {
        o->over = true;
        return;
    }
    memcpy(o->p + o->n, s, len);
    o->n += len;
}

static void puts_(out_t *o, const char *s)
{
    put(o, s, strlen(s));
}

static void put_str(out_t *o, const char *s)
{
    put(o, "\"", 1);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            put(o, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(o, esc, 6);
        } else {
            put(o, (const char *)&c, 1);
        }
    }
    put(o, "\"", 1);
}

static void put_int(out_t *o, long long v)
{
    char num[32];
    int len = snprintf(num, sizeof num, "%lld", v);
    put(o, num, (size_t)len);
}

static size_t finish(out_t *o)
{
    put(o, "\n", 1);
    return o->over ? 0 : o->n;
}

size_t chk_io_encode(const chk_finding_t *f, char *buf, size_t cap)
{
    out_t o = {buf, 0, cap, false};
    puts_(&o, "{\"class\":");
    put_str(&o, f->cls);
    puts_(&o, ",\"group\":");
    put_str(&o, f->group);
    puts_(&o, ",\"count\":");
    put_int(&o, (long long)f->count);
    puts_(&o, ",\"text\":");
    put_str(&o, f->text);
    puts_(&o, ",\"sites\":[");
    for (int k = 0; k < f->nparts && k < CHK_PARTS_MAX; k++) {
        const chk_part_t *p = &f->parts[k];
        puts_(&o, k ? ",{\"rank\":" : "{\"rank\":");
        put_int(&o, p->rank);
        puts_(&o, ",\"call\":");
        put_str(&o, p->call);
        puts_(&o, ",\"file\":");
        put_str(&o, p->file);
        puts_(&o, ",\"line\":");
        put_int(&o, p->line);
        puts_(&o, ",\"function\":");
        put_str(&o, p->func);
        puts_(&o, "}");
    }
    puts_(&o, "]}");
    return finish(&o);
}

size_t chk_io_encode_update(int index, uint64_t count, char *buf, size_t cap)
{
    out_t o = {buf, 0, cap, false};
    puts_(&o, "{\"update\":");
    put_int(&o, index);
    puts_(&o, ",\"count\":");
    put_int(&o, (long long)count);
    puts_(&o, "}");
    return finish(&o);
}

size_t chk_io_encode_suppressed(const chk_suppressed_t *s, char *buf, size_t cap)
{
    out_t o = {buf, 0, cap, false};
    puts_(&o, "{\"suppressed\":");
    put_str(&o, s->cls);
    puts_(&o, ",\"rank\":");
    put_int(&o, s->rank);
    puts_(&o, ",\"count\":");
    put_int(&o, s->count);
    puts_(&o, "}");
    return finish(&o);
}

/* --- decoding ------------------------------------------------------------ */

typedef struct {
    const char *p, *end;
    bool bad;
} in_t;

static void ws(in_t *in)
{
    while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\r')) in->p++;
}

static bool eat(in_t *in, char c)
{
    ws(in);
    if (in->p < in->end && *in->p == c) {
        in->p++;
        return true;
    }
    return false;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                 : -1;
}

/* A string into out (cap bytes, always terminated); false if malformed. */
static bool get_str(in_t *in, char *out, size_t cap)
{
    size_t n = 0;
    if (!eat(in, '"')) return false;
    while (in->p < in->end && *in->p != '"') {
        char c = *in->p++;
        if ((unsigned char)c < 0x20) return false;
        if (c == '\\') {
            if (in->p >= in->end) return false;
            char e = *in->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case '"': case '\\': case '/': c = e; break;
            case 'u': {
                if (in->end - in->p < 4) return false;
                int v = 0;
                for (int i = 0; i < 4; i++) {
                    int h = hexval(in->p[i]);
                    if (h < 0) return false;
                    v = v * 16 + h;
                }
                in->p += 4;
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            default: return false;
            }
        }
        if (out && n + 1 < cap) out[n++] = c;
    }
    if (out && cap) out[n] = 0;
    return eat(in, '"');
}

static bool get_int(in_t *in, long long *v)
{
    ws(in);
    char buf[32];
    size_t n = 0;
    while (in->p < in->end && n + 1 < sizeof buf &&
           ((*in->p >= '0' && *in->p <= '9') || (n == 0 && *in->p == '-')))
        buf[n++] = *in->p++;
    buf[n] = 0;
    if (n == 0 || (n == 1 && buf[0] == '-')) return false;
    errno = 0;
    *v = strtoll(buf, NULL, 10);
    return errno == 0;
}

/* Skips one value of a kind this format never nests deeply. */
static bool skip_value(in_t *in, int depth)
{
    ws(in);
    if (in->p >= in->end || depth > 8) return false;
    if (*in->p == '"') return get_str(in, NULL, 0);
    if (*in->p == '{' || *in->p == '[') {
        char close = *in->p == '{' ? '}' : ']';
        in->p++;
        if (eat(in, close)) return true;
        do {
            if (close == '}' && (!get_str(in, NULL, 0) || !eat(in, ':'))) return false;
            if (!skip_value(in, depth + 1)) return false;
        } while (eat(in, ','));
        return eat(in, close);
    }
    long long v;
    if (get_int(in, &v)) return true;
    while (in->p < in->end && strchr("truefalsn", *in->p)) in->p++;
    return true;
}

static bool get_part(in_t *in, chk_part_t *p)
{
    memset(p, 0, sizeof *p);
    p->resolved = true;
    if (!eat(in, '{')) return false;
    if (eat(in, '}')) return true;
    do {
        char key[32];
        long long v = 0;
        if (!get_str(in, key, sizeof key) || !eat(in, ':')) return false;
        bool ok;
        if (!strcmp(key, "rank")) ok = get_int(in, &v), p->rank = (int)v;
        else if (!strcmp(key, "line")) ok = get_int(in, &v), p->line = (int)v;
        else if (!strcmp(key, "call")) ok = get_str(in, p->call, sizeof p->call);
        else if (!strcmp(key, "file")) ok = get_str(in, p->file, sizeof p->file);
        else if (!strcmp(key, "function")) ok = get_str(in, p->func, sizeof p->func);
        else ok = skip_value(in, 1);
        if (!ok) return false;
    } while (eat(in, ','));
    return eat(in, '}');
}

typedef enum { REC_BAD, REC_FINDING, REC_UPDATE, REC_SUPPRESSED } rec_t;

static rec_t decode(const char *line, size_t len, chk_finding_t *f, chk_suppressed_t *s,
                    long long *index)
{
    in_t in = {line, line + len, false};
    memset(f, 0, sizeof *f);
    memset(s, 0, sizeof *s);
    bool finding = false, update = false, supp = false;
    long long count = 1;
    if (!eat(&in, '{')) return REC_BAD;
    do {
        char key[32];
        long long v = 0;
        if (!get_str(&in, key, sizeof key) || !eat(&in, ':')) return REC_BAD;
        bool ok;
        if (!strcmp(key, "class")) ok = get_str(&in, f->cls, sizeof f->cls), finding = true;
        else if (!strcmp(key, "group")) ok = get_str(&in, f->group, sizeof f->group);
        else if (!strcmp(key, "text")) ok = get_str(&in, f->text, sizeof f->text);
        else if (!strcmp(key, "count")) ok = get_int(&in, &count);
        else if (!strcmp(key, "update")) ok = get_int(&in, index), update = true;
        else if (!strcmp(key, "suppressed")) ok = get_str(&in, s->cls, sizeof s->cls), supp = true;
        else if (!strcmp(key, "rank")) ok = get_int(&in, &v), s->rank = (int)v;
        else if (!strcmp(key, "sites")) {
            ok = eat(&in, '[');
            if (ok && !eat(&in, ']')) {
                do {
                    chk_part_t p;
                    if (!get_part(&in, &p)) return REC_BAD;
                    if (f->nparts < CHK_PARTS_MAX) f->parts[f->nparts++] = p;
                } while (eat(&in, ','));
                ok = eat(&in, ']');
            }
        } else {
            ok = skip_value(&in, 1);
        }
        if (!ok) return REC_BAD;
    } while (eat(&in, ','));
    if (!eat(&in, '}')) return REC_BAD;
    if (count < 0) count = 0;
    if (finding && f->cls[0] && f->nparts > 0) {
        f->count = (uint64_t)count;
        return REC_FINDING;
    }
    if (update) {
        f->count = (uint64_t)count;
        return REC_UPDATE;
    }
    if (supp && s->cls[0]) {
        s->count = count;
        return REC_SUPPRESSED;
    }
    return REC_BAD;
}

bool chk_io_add(chk_io_list_t *l, const chk_finding_t *f)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        chk_finding_t *m = realloc(l->f, sizeof *m * (size_t)cap);
        if (!m) return false;
        l->f = m, l->cap = cap;
    }
    l->f[l->n++] = *f;
    return true;
}

bool chk_io_add_suppressed(chk_io_list_t *l, const chk_suppressed_t *s)
{
    for (int i = 0; i < l->ns; i++)
        if (l->s[i].rank == s->rank && !strcmp(l->s[i].cls, s->cls)) {
            l->s[i].count = s->count; /* the latest line counts */
            return true;
        }
    if (l->ns == l->scap) {
        int cap = l->scap ? l->scap * 2 : 8;
        chk_suppressed_t *m = realloc(l->s, sizeof *m * (size_t)cap);
        if (!m) return false;
        l->s = m, l->scap = cap;
    }
    l->s[l->ns++] = *s;
    return true;
}

void chk_io_list_free(chk_io_list_t *l)
{
    free(l->f);
    free(l->s);
    memset(l, 0, sizeof *l);
}

int chk_io_read(const char *path, chk_io_list_t *l)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    FILE *fp = fdopen(fd, "r");
    if (!fp) {
        close(fd);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int first = l->n, nread = 0;
    chk_finding_t *f = malloc(sizeof *f);
    chk_suppressed_t s;
    while (f && (len = getline(&line, &cap, fp)) > 0) {
        if (line[len - 1] != '\n') break; /* torn: the writer died inside it */
        long long index = -1;
        switch (decode(line, (size_t)len - 1, f, &s, &index)) {
        case REC_FINDING:
            if (chk_io_add(l, f)) nread++;
            break;
        case REC_UPDATE:
            if (index >= 0 && index < nread) l->f[first + index].count = f->count;
            break;
        case REC_SUPPRESSED:
            chk_io_add_suppressed(l, &s);
            break;
        default:
            break;
        }
    }
    free(f);
    free(line);
    fclose(fp);
    return nread;
}

/* --- merging and writing ------------------------------------------------- */

static int by_class(const void *a, const void *b)
{
    const chk_finding_t *x = a, *y = b;
    int c = strcmp(x->cls, y->cls);
    if (c) return c;
    if (x->parts[0].rank != y->parts[0].rank) return x->parts[0].rank - y->parts[0].rank;
    c = strcmp(x->parts[0].file, y->parts[0].file);
    return c ? c : x->parts[0].line - y->parts[0].line;
}

int chk_io_merge(chk_finding_t *f, int n)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        int into = -1;
        if (f[i].group[0])
            for (int j = 0; j < out && into < 0; j++)
                if (strcmp(f[j].group, f[i].group) == 0 && strcmp(f[j].cls, f[i].cls) == 0)
                    into = j;
        if (into < 0) {
            if (out != i) f[out] = f[i];
            out++;
            continue;
        }
        chk_finding_t *g = &f[into];
        for (int k = 0; k < f[i].nparts && g->nparts < CHK_PARTS_MAX; k++) {
            bool dup = false;
            /* One part per rank and call site: a rank may hold two parts
             * of one finding (a message race's receive and a send). */
            const chk_part_t *p = &f[i].parts[k];
            for (int m = 0; m < g->nparts; m++)
                dup |= g->parts[m].rank == p->rank && g->parts[m].line == p->line &&
                       !strcmp(g->parts[m].file, p->file) && !strcmp(g->parts[m].call, p->call);
            if (!dup) g->parts[g->nparts++] = f[i].parts[k];
        }
        if (f[i].count > g->count) g->count = f[i].count;
    }
    qsort(f, (size_t)out, sizeof *f, by_class);
    return out;
}

static void json_str(FILE *o, const char *s)
{
    char buf[2 * CHK_TEXT + 16];
    out_t t = {buf, 0, sizeof buf, false};
    put_str(&t, s);
    fwrite(buf, 1, t.over ? 0 : t.n, o);
    if (t.over) fputs("\"\"", o);
}

static void write_txt(FILE *o, const chk_finding_t *f, int n, const chk_suppressed_t *s, int ns,
                      const char *note)
{
    fprintf(o, "mpiscope correctness checks: %d finding%s\n", n, n == 1 ? "" : "s");
    if (note && *note) fprintf(o, "note: %s\n", note);
    for (int i = 0; i < ns; i++)
        fprintf(o, "note: %lld more %s findings on rank %d not listed "
                   "(MPISCOPE_CHECK_MAX_REPEATS)\n",
                s[i].count, s[i].cls, s[i].rank);
    for (int i = 0; i < n; i++) {
        fprintf(o, "\n[%d] %s  rank%s", i + 1, f[i].cls, f[i].nparts > 1 ? "s" : "");
        for (int k = 0; k < f[i].nparts; k++) fprintf(o, "%s%d", k ? "," : " ", f[i].parts[k].rank);
        if (f[i].count > 1) fprintf(o, "  (%llu times)", (unsigned long long)f[i].count);
        fputc('\n', o);
        for (int k = 0; k < f[i].nparts; k++) {
            const chk_part_t *p = &f[i].parts[k];
            fprintf(o, "    rank %d: %s at %s", p->rank, p->call[0] ? p->call : "?", p->file);
            if (p->line) fprintf(o, ":%d", p->line);
            if (p->func[0]) fprintf(o, " (%s)", p->func);
            fputc('\n', o);
        }
        fprintf(o, "    %s\n", f[i].text);
    }
}

static void write_json(FILE *o, const chk_finding_t *f, int n, const chk_suppressed_t *s, int ns,
                       const char *note)
{
    fprintf(o, "{\n  \"version\": 1,\n  \"note\": ");
    json_str(o, note ? note : "");
    fprintf(o, ",\n  \"count\": %d,\n  \"suppressed\": [", n);
    for (int i = 0; i < ns; i++) {
        fprintf(o, "%s{\"class\": ", i ? ", " : "");
        json_str(o, s[i].cls);
        fprintf(o, ", \"rank\": %d, \"count\": %lld}", s[i].rank, s[i].count);
    }
    fprintf(o, "],\n  \"findings\": [");
    for (int i = 0; i < n; i++) {
        fprintf(o, "%s\n    {\"class\": ", i ? "," : "");
        json_str(o, f[i].cls);
        fprintf(o, ", \"count\": %llu, \"ranks\": [", (unsigned long long)f[i].count);
        for (int k = 0; k < f[i].nparts; k++)
            fprintf(o, "%s%d", k ? ", " : "", f[i].parts[k].rank);
        fprintf(o, "], \"sites\": [");
        for (int k = 0; k < f[i].nparts; k++) {
            const chk_part_t *p = &f[i].parts[k];
            fprintf(o, "%s{\"rank\": %d, \"call\": ", k ? ", " : "", p->rank);
            json_str(o, p->call);
            fprintf(o, ", \"file\": ");
            json_str(o, p->file);
            fprintf(o, ", \"line\": %d, \"function\": ", p->line);
            json_str(o, p->func);
            fputc('}', o);
        }
        fprintf(o, "],\n     \"explanation\": ");
        json_str(o, f[i].text);
        fputc('}', o);
    }
    fprintf(o, "\n  ]\n}\n");
}

/* dir/name through a temporary file created exclusively, renamed when whole. */
static bool write_file(const char *dir, const char *name, bool json, const chk_finding_t *f, int n,
                       const chk_suppressed_t *s, int ns, const char *note, char *err,
                       size_t errlen)
{
    char path[4096 + 64], tmp[4096 + 128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.partial-%ld", dir, name, (long)getpid());
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *o = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!o) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    if (json)
        write_json(o, f, n, s, ns, note);
    else
        write_txt(o, f, n, s, ns, note);
    bool ok = !ferror(o) && fflush(o) == 0;
    int e = errno;
    if (fclose(o) != 0) ok = false, e = errno;
    if (ok && rename(tmp, path) != 0) ok = false, e = errno;
    if (!ok) {
        snprintf(err, errlen, "could not write %s: %s", path, strerror(e));
        unlink(tmp);
    }
    return ok;
}

bool chk_io_write(const char *dir, const chk_finding_t *f, int n, const chk_suppressed_t *s,
                  int ns, const char *note, char *err, size_t errlen)
{
    return write_file(dir, "checks.txt", false, f, n, s, ns, note, err, errlen) &&
           write_file(dir, "checks.json", true, f, n, s, ns, note, err, errlen);
}
