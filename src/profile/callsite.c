/* Call-site resolution with elfutils libdwfl on the live process: the
 * /proc/self/maps report gives every loaded object with its load address,
 * and each module's DWARF line table (found next to the object or through
 * the debuginfo paths) gives file and line. The caller's line is that of the
 * call instruction, so the return address is moved back one byte before the
 * lookup. The resolver is opened once per report and closed after it.
 *
 * C++ function names are demangled (LAMMPS_NS::CommBrick::forward_comm(int),
 * not _ZN9LAMMPS_NS9CommBrick12forward_commEi) with the C++ runtime's own
 * __cxa_demangle, looked up in the process (dlsym): a program with C++ code
 * has libstdc++ loaded, and one without has no mangled names. The demangled
 * strings belong to the resolver, one per distinct symbol.
 */
#include "callsite.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct msc_callsite_resolver {
    Dwfl *dwfl;
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    /* Demangled names: the symbol table's string (stable while the
     * resolver is open) and its demangled copy. */
    struct demangled {
        const char *mangled;
        char *name;
    } *dm;
    size_t ndm, capdm;
};

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* The demangled form of `sym`, or sym itself (not a C++ name, no C++
 * runtime in the process, out of memory). */
static const char *demangle(msc_callsite_resolver_t *r, const char *sym)
{
    if (!sym || sym[0] != '_' || sym[1] != 'Z') return sym;
    for (size_t i = 0; i < r->ndm; i++)
        if (r->dm[i].mangled == sym) return r->dm[i].name ? r->dm[i].name : sym;
    static cxa_demangle_fn fn;
    static int looked;
    if (!looked) {
        looked = 1;
        *(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    }
    int status = -1;
    char *name = fn ? fn(sym, NULL, NULL, &status) : NULL;
    if (status != 0) {
        free(name);
        name = NULL;
    }
    if (r->ndm == r->capdm) {
        size_t cap = r->capdm ? 2 * r->capdm : 16;
        struct demangled *n = realloc(r->dm, cap * sizeof *n);
        if (!n) {
            free(name);
            return sym;
        }
        r->dm = n, r->capdm = cap;
    }
    r->dm[r->ndm++] = (struct demangled){sym, name};
    return name ? name : sym;
}

/* A resolver over the objects of `maps` (a /proc/self/maps text), or of
 * the whole process when maps is NULL. */
static msc_callsite_resolver_t *open_maps(const char *maps, size_t len)
{
    msc_callsite_resolver_t *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->cb.find_elf = dwfl_linux_proc_find_elf;
    r->cb.find_debuginfo = dwfl_standard_find_debuginfo;
    r->cb.debuginfo_path = &r->debuginfo_path;
    r->dwfl = dwfl_begin(&r->cb);
    if (!r->dwfl) {
        free(r);
        return NULL;
    }
    dwfl_report_begin(r->dwfl);
    int rc;
    if (maps) {
        FILE *f = len ? fmemopen((void *)maps, len, "r") : NULL;
        rc = f ? dwfl_linux_proc_maps_report(r->dwfl, f) : 0;
        if (f) fclose(f);
    } else {
        rc = dwfl_linux_proc_report(r->dwfl, getpid());
    }
    if (dwfl_report_end(r->dwfl, NULL, NULL) != 0 || rc != 0) {
        dwfl_end(r->dwfl);
        free(r);
        return NULL;
    }
    return r;
}

msc_callsite_resolver_t *msc_callsite_open(void)
{
    return open_maps(NULL, 0);
}

static int addr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
    return x < y ? -1 : x > y;
}

/* Whether a sorted address lies in [lo, hi). */
static bool any_in(void *const *sorted, size_t n, uintptr_t lo, uintptr_t hi)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if ((uintptr_t)sorted[m] < lo) a = m + 1;
        else b = m;
    }
    return a < n && (uintptr_t)sorted[a] < hi;
}

static uintptr_t hex(const char **p)
{
    uintptr_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9') v = v * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (uintptr_t)(c - 'a' + 10);
        else return v;
    }
}

/* /proc/self/maps, whole (read() in a loop: the file has no size). */
static char *read_maps(size_t *len)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    for (ssize_t got; buf; n += (size_t)got) {
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) break;
            buf = b, cap *= 2;
        }
        got = read(fd, buf + n, cap - n);
        if (got <= 0) break;
    }
    close(fd);
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

/* The path of a maps line (from its first '/' to the line's end), or NULL. */
static const char *line_path(const char *l, const char *e, size_t *pl)
{
    const char *p = memchr(l, '/', (size_t)(e - l));
    if (p) *pl = (size_t)(e - p);
    return p;
}

msc_callsite_resolver_t *msc_callsite_open_for(void *const *addrs, size_t n)
{
    size_t len = 0;
    char *maps = read_maps(&len);
    void **sorted = malloc((n ? n : 1) * sizeof *sorted);
    char *keep = maps ? malloc(len + 1) : NULL;
    if (!maps || !sorted || !keep) {
        free(maps), free(sorted), free(keep);
        return open_maps(NULL, 0);
    }
    for (size_t i = 0; i < n; i++) sorted[i] = (void *)((uintptr_t)addrs[i] - 1);
    qsort(sorted, n, sizeof *sorted, addr_cmp);
    /* An object is several consecutive mappings of one path: keep every line
     * of a run of lines with the same path when one of them holds an
     * address. */
    size_t klen = 0;
    for (const char *l = maps, *end = maps + len; l < end;) {
        const char *run = l, *rpath = NULL;
        size_t rpl = 0;
        bool hit = false;
        for (; l < end; ) {
            const char *e = memchr(l, '\n', (size_t)(end - l));
            if (!e) e = end;
            size_t pl = 0;
            const char *path = line_path(l, e, &pl);
            if (l != run && (!path || !rpath || pl != rpl || memcmp(path, rpath, pl) != 0)) break;
            rpath = path, rpl = pl;
            const char *q = l;
            uintptr_t lo = hex(&q), hi = *q == '-' ? (q++, hex(&q)) : 0;
            hit |= path && any_in(sorted, n, lo, hi);
            l = e < end ? e + 1 : end;
        }
        if (hit) {
            memcpy(keep + klen, run, (size_t)(l - run));
            klen += (size_t)(l - run);
        }
    }
    msc_callsite_resolver_t *r = open_maps(keep, klen);
    free(maps), free(keep), free(sorted);
    return r;
}

bool msc_callsite_resolve(msc_callsite_resolver_t *r, const void *return_address,
                          msc_frame_t *out)
{
    out->module = "?";
    out->symbol = NULL;
    out->file = NULL;
    out->line = 0;
    out->offset = (uintptr_t)return_address;
    if (!r || !return_address) return false;
    Dwarf_Addr pc = (Dwarf_Addr)(uintptr_t)return_address - 1;
    Dwfl_Module *m = dwfl_addrmodule(r->dwfl, pc);
    if (!m) return false;
    Dwarf_Addr base = 0;
    const char *name = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    if (name) out->module = name;
    out->offset = (uintptr_t)(pc + 1 - base);
    out->symbol = demangle(r, dwfl_module_addrname(m, pc));
    Dwfl_Line *line = dwfl_module_getsrc(m, pc);
    if (line) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        if (file) out->file = file, out->line = lineno;
    }
    return true;
}

void msc_callsite_close(msc_callsite_resolver_t *r)
{
    if (!r) return;
    dwfl_end(r->dwfl);
    for (size_t i = 0; i < r->ndm; i++) free(r->dm[i].name);
    free(r->dm);
    free(r);
}

void msc_callsite_backtrace(void *site, void **pcs, int depth)
{
    void *buf[64];
    int n = unw_backtrace(buf, depth + 16 < 64 ? depth + 16 : 64);
    int start = -1;
    for (int i = 0; i < n; i++)
        if (buf[i] == site) {
            start = i;
            break;
        }
    pcs[0] = site;
    for (int i = 1; i < depth; i++) pcs[i] = start >= 0 && start + i < n ? buf[start + i] : NULL;
}
