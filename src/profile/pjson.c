/* JSON reader: recursive descent over a bounded depth, nodes and decoded
 * strings taken from one growing arena of blocks so that freeing a document
 * is one walk over the blocks. See pjson.h. */
#include "pjson.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct block {
    struct block *next;
    size_t used, cap;  /* bytes */
    char data[];
} block_t;

struct msc_json_doc {
    block_t *blocks;
    msc_json_t *root;
};

typedef struct {
    const char *p, *end, *start;
    msc_json_doc_t *doc;
    char *err;
    size_t errlen;
    bool failed;
} parser_t;

static void *arena(parser_t *ps, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    block_t *b = ps->doc->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = ps->doc->blocks;
        ps->doc->blocks = b;
    }
    void *r = b->data + b->used;
    b->used += n;
    return r;
}

static void fail(parser_t *ps, const char *what)
{
    if (ps->failed) return;
    ps->failed = true;
    if (ps->err) snprintf(ps->err, ps->errlen, "%s at byte %zu", what, (size_t)(ps->p - ps->start));
}

static void ws(parser_t *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static const char *string(parser_t *ps)
{
    if (ps->p >= ps->end || *ps->p != '"') return fail(ps, "expected a string"), NULL;
    ps->p++;
    const char *s = ps->p;
    size_t raw = 0;
    while (s + raw < ps->end && s[raw] != '"') raw += s[raw] == '\\' ? 2 : 1;
    if (s + raw >= ps->end) return fail(ps, "unterminated string"), NULL;
    char *out = arena(ps, raw + 1), *o = out;
    if (!out) return fail(ps, "out of memory"), NULL;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char ch = (unsigned char)*ps->p++;
        if (ch < 0x20) return fail(ps, "control character in string"), NULL;
        if (ch != '\\') {
            *o++ = (char)ch;
            continue;
        }
        if (ps->p >= ps->end) break;
        char e = *ps->p++;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            if (ps->end - ps->p < 4) return fail(ps, "bad \\u escape"), NULL;
            unsigned v = 0;
            for (int i = 0; i < 4; i++) {
                int h = hexval(ps->p[i]);
                if (h < 0) return fail(ps, "bad \\u escape"), NULL;
                v = v * 16 + (unsigned)h;
            }
            ps->p += 4;
            /* Non-ASCII is kept as '?': the report only prints it. */
            *o++ = v < 0x80 && v >= 0x20 ? (char)v : '?';
            break;
        }
        default:
            return fail(ps, "bad escape"), NULL;
        }
    }
    if (ps->p >= ps->end) return fail(ps, "unterminated string"), NULL;
    ps->p++;
    *o = 0;
    return out;
}

static msc_json_t *value(parser_t *ps, int depth);

static msc_json_t *node(parser_t *ps, msc_jtype_t t)
{
    msc_json_t *n = arena(ps, sizeof *n);
    if (!n) return fail(ps, "out of memory"), NULL;
    memset(n, 0, sizeof *n);
    n->type = t;
    return n;
}

static msc_json_t *container(parser_t *ps, int depth, bool obj)
{
    msc_json_t *n = node(ps, obj ? MSC_JOBJ : MSC_JARR);
    if (!n) return NULL;
    ps->p++;
    ws(ps);
    char close = obj ? '}' : ']';
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return n;
    }
    msc_json_t **tail = &n->child;
    for (;;) {
        const char *key = NULL;
        ws(ps);
        if (obj) {
            key = string(ps);
            if (!key) return NULL;
            ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') return fail(ps, "expected ':'"), NULL;
            ps->p++;
        }
        msc_json_t *v = value(ps, depth + 1);
        if (!v) return NULL;
        v->key = key;
        *tail = v;
        tail = &v->next;
        n->n++;
        ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return n;
        }
        return fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'"), NULL;
    }
}

static bool word(parser_t *ps, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0) return false;
    ps->p += n;
    return true;
}

static msc_json_t *number(parser_t *ps)
{
    char buf[64];
    size_t n = 0;
    const char *q = ps->p;
    while (q < ps->end && n < sizeof buf - 1 && strchr("+-0123456789.eE", *q)) buf[n++] = *q++;
    buf[n] = 0;
    if (n == 0 || n == sizeof buf - 1) return fail(ps, "bad number"), NULL;
    char *e = NULL;
    errno = 0;
    double d = strtod(buf, &e);
    if (*e) return fail(ps, "bad number"), NULL;
    msc_json_t *v = node(ps, MSC_JNUM);
    if (!v) return NULL;
    v->num = d;
    if (!strpbrk(buf, ".eE")) {
        errno = 0;
        long long ll = strtoll(buf, &e, 10);
        if (!*e && errno == 0) v->i = ll, v->is_int = true;
    }
    if (!v->is_int) v->i = d > -9.2e18 && d < 9.2e18 ? (int64_t)d : 0;
    ps->p = q;
    return v;
}

static msc_json_t *value(parser_t *ps, int depth)
{
    if (depth > MAX_DEPTH) return fail(ps, "nested too deeply"), NULL;
    ws(ps);
    if (ps->p >= ps->end) return fail(ps, "unexpected end"), NULL;
    char c = *ps->p;
    if (c == '{') return container(ps, depth, true);
    if (c == '[') return container(ps, depth, false);
    if (c == '"') {
        msc_json_t *v = node(ps, MSC_JSTR);
        if (v && !(v->str = string(ps))) return NULL;
        return v;
    }
    if (word(ps, "true") || word(ps, "false")) {
        msc_json_t *v = node(ps, MSC_JBOOL);
        if (v) v->num = ps->p[-1] == 'e' && ps->p[-2] == 'u';
        return v;
    }
    if (word(ps, "null")) return node(ps, MSC_JNULL);
    return number(ps);
}

msc_json_doc_t *msc_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    msc_json_doc_t *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    parser_t ps = {.p = text, .end = text + len, .start = text, .doc = d, .err = err, .errlen = errlen};
    d->root = value(&ps, 0);
    ws(&ps);
    if (d->root && ps.p != ps.end) fail(&ps, "trailing characters"), d->root = NULL;
    if (!d->root) {
        if (!ps.failed) fail(&ps, "bad JSON");
        msc_json_free(d);
        return NULL;
    }
    return d;
}

const msc_json_t *msc_json_root(const msc_json_doc_t *d)
{
    return d ? d->root : NULL;
}

void msc_json_free(msc_json_doc_t *d)
{
    if (!d) return;
    for (block_t *b = d->blocks, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(d);
}

const msc_json_t *msc_json_get(const msc_json_t *obj, const char *key)
{
    if (!obj || obj->type != MSC_JOBJ) return NULL;
    for (const msc_json_t *c = obj->child; c; c = c->next)
        if (c->key && strcmp(c->key, key) == 0) return c;
    return NULL;
}

double msc_json_num(const msc_json_t *obj, const char *key)
{
    const msc_json_t *v = msc_json_get(obj, key);
    return v && (v->type == MSC_JNUM || v->type == MSC_JBOOL) ? v->num : 0;
}

int64_t msc_json_int(const msc_json_t *obj, const char *key)
{
    const msc_json_t *v = msc_json_get(obj, key);
    return v && v->type == MSC_JNUM ? v->i : 0;
}

const char *msc_json_str(const msc_json_t *obj, const char *key, const char *dflt)
{
    const msc_json_t *v = msc_json_get(obj, key);
    return v && v->type == MSC_JSTR ? v->str : dflt;
}

char *msc_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    char chunk[65536];
    size_t got;
    while (m && (got = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, got, m);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (m) fclose(m);
    if (bad || !m) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

msc_json_doc_t *msc_json_load(const char *dir, const char *name)
{
    char path[4096 + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n = 0;
    char *buf = msc_read_file(path, &n);
    char err[128];
    msc_json_doc_t *d = buf ? msc_json_parse(buf, n, err, sizeof err) : NULL;
    free(buf);
    return d;
}
