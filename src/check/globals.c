/* The global and static objects of the running process, from its ELF
 * symbol tables (issue 26: a buffer's object without recompiling).
 *
 * A program's global and static variables -- `double grid[N]` at file
 * scope, a function's `static int counts[8]`, a Fortran COMMON block or
 * module array -- are ELF symbols of type STT_OBJECT with their size, in
 * the executable's .symtab (kept unless the program was stripped) or, for
 * exported ones, its .dynsym. The first buffer check reads them once, for
 * every object loaded then (dl_iterate_phdr: the executable and its shared
 * libraries; the vDSO has no file), with libelf: each symbol's run-time
 * address is its value plus the object's load address. They go into one
 * array sorted by address, in which the object holding any address is found
 * by binary search (log2 of some 10^4 symbols: about 14 steps). Aliases (two
 * names of one address) keep the larger size; a symbol inside a larger one
 * (rare: a COMMON member) is left to the larger. Libraries loaded later
 * (dlopen) are not seen; that is said in docs/checks.md.
 *
 * Where an object file has DWARF (built with -g, as development builds
 * are), each variable with a fixed address (DW_OP_addr: globals and
 * function statics) gives its declared type, peeled of typedefs, qualifiers
 * and array dimensions down to a base type: its encoding (integer, floating
 * point, ...), size and name, which the check compares with the MPI
 * datatype a buffer in it is passed as (check.c).
 *
 * The table is built under pthread_once and never changes, so lookups take
 * no lock. The names live in one arena, kept for the process's life.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dwarf_types.h"

typedef struct {
    uintptr_t lo, hi;
    const char *name;   /* in the arena */
    const char *module; /* file name of the ELF object, in the arena */
    const char *type;   /* the base type's name (DWARF), in the arena, or NULL */
    unsigned char enc;  /* its DW_ATE_* encoding (0: not known) */
    unsigned char size; /* its bytes */
    const chk_layout_t *layout; /* elements that are structures (layout.c) */
} gobj_t;

/* A variable's base type from DWARF, by address, until the table is sorted. */
typedef struct {
    uintptr_t addr;
    size_t type; /* arena offset of the type's name */
    unsigned char enc, size;
    const chk_layout_t *layout;
} dtype_t;
static dtype_t *dtypes;
static size_t ndtypes, capdtypes;

static gobj_t *objs;
static size_t nobjs, capobjs;
static char *arena;
static size_t arena_used, arena_cap;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Offsets into the arena while it grows; made pointers at the end. */
static size_t keep(const char *s)
{
    size_t n = strlen(s) + 1;
    if (arena_used + n > arena_cap) {
        size_t cap = arena_cap ? 2 * arena_cap : 1 << 16;
        while (cap < arena_used + n) cap *= 2;
        char *a = realloc(arena, cap);
        if (!a) return SIZE_MAX;
        arena = a, arena_cap = cap;
    }
    memcpy(arena + arena_used, s, n);
    arena_used += n;
    return arena_used - n;
}

static void add(uintptr_t lo, uintptr_t size, size_t name, size_t module)
{
    if (nobjs == capobjs) {
        size_t cap = capobjs ? 2 * capobjs : 4096;
        gobj_t *o = realloc(objs, cap * sizeof *o);
        if (!o) return;
        objs = o, capobjs = cap;
    }
    /* Offsets stored in the pointers until the arena stops moving. */
    objs[nobjs++] =
        (gobj_t){lo, lo + size, (const char *)name, (const char *)module, NULL, 0, 0, NULL};
}

/* The base type behind `t`: typedefs, qualifiers and array dimensions
 * peeled; false for anything else (structures, pointers, enumerations). */
static bool base_type(Dwarf_Die *t)
{
    for (int k = 0; k < 16; k++) {
        Dwarf_Die p;
        if (dwarf_peel_type(t, &p) != 0) return false;
        *t = p;
        if (dwarf_tag(t) != DW_TAG_array_type) return dwarf_tag(t) == DW_TAG_base_type;
        Dwarf_Attribute a;
        if (!dwarf_attr_integrate(t, DW_AT_type, &a) || !dwarf_formref_die(&a, t)) return false;
    }
    return false;
}

bool chk_dwarf_base_type(Dwarf_Die *t, int *enc, int *size, const char **name)
{
    Dwarf_Attribute a;
    Dwarf_Word e = 0;
    if (!base_type(t)) return false;
    int n = dwarf_bytesize(t);
    if (!dwarf_attr(t, DW_AT_encoding, &a) || dwarf_formudata(&a, &e) != 0 || n <= 0 || n > 255 ||
        e > 255)
        return false;
    *enc = (int)e, *size = n, *name = dwarf_diename(t);
    return true;
}

static void note_variable(Dwarf_Die *v, uintptr_t base)
{
    Dwarf_Attribute a;
    Dwarf_Op *ops;
    size_t nops;
    if (!dwarf_attr(v, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &nops) != 0 ||
        nops != 1 || ops[0].atom != DW_OP_addr)
        return;
    Dwarf_Die t, whole;
    int enc = 0, size = 0;
    const char *tn = NULL;
    const chk_layout_t *layout = NULL;
    if (!dwarf_attr_integrate(v, DW_AT_type, &a) || !dwarf_formref_die(&a, &t)) return;
    whole = t;
    if (!chk_dwarf_base_type(&t, &enc, &size, &tn)) {
        enc = 0, size = 0, tn = NULL;
        if (!(layout = chk_dwarf_layout(&whole))) return;
        tn = layout->name;
    }
    size_t at = keep(tn ? tn : "?");
    if (at == SIZE_MAX) return;
    if (ndtypes == capdtypes) {
        size_t cap = capdtypes ? 2 * capdtypes : 1024;
        dtype_t *d = realloc(dtypes, cap * sizeof *d);
        if (!d) return;
        dtypes = d, capdtypes = cap;
    }
    dtypes[ndtypes++] = (dtype_t){base + (uintptr_t)ops[0].number, at, (unsigned char)enc,
                                  (unsigned char)size, layout};
}

/* Variables at fixed addresses: a unit's, and those declared static in
 * its functions and blocks (and C++ namespaces). */
static void walk(Dwarf_Die *die, uintptr_t base, int depth)
{
    Dwarf_Die c;
    if (depth > 8 || dwarf_child(die, &c) != 0) return;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_variable)
            note_variable(&c, base);
        else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
                 tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_common_block)
            walk(&c, base, depth + 1);
    } while (dwarf_siblingof(&c, &c) == 0);
}

static void read_dwarf(int fd, uintptr_t base)
{
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    if (!dw) return;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + hsize, &cu)) walk(&cu, base, 0);
        off = next;
    }
    dwarf_end(dw);
}

/* The object symbols of the ELF file `path` loaded at `base`. */
static void read_elf(const char *path, uintptr_t base)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    Elf_Scn *symtab = NULL, *dynsym = NULL;
    for (Elf_Scn *s = e ? elf_nextscn(e, NULL) : NULL; s; s = elf_nextscn(e, s)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(s, &sh)) continue;
        if (sh.sh_type == SHT_SYMTAB) symtab = s;
        if (sh.sh_type == SHT_DYNSYM) dynsym = s;
    }
    Elf_Scn *use = symtab ? symtab : dynsym;
    GElf_Shdr sh;
    Elf_Data *d = use && gelf_getshdr(use, &sh) ? elf_getdata(use, NULL) : NULL;
    const char *slash = strrchr(path, '/');
    size_t module = d ? keep(slash ? slash + 1 : path) : SIZE_MAX;
    size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; module != SIZE_MAX && i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, (int)i, &sym)) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
            sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS || sym.st_shndx == SHN_COMMON)
            continue;
        const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
        /* A function's static is local.0 (GCC) for `local`: the name as
         * written. */
        char plain[256];
        const char *dot = name && GELF_ST_BIND(sym.st_info) == STB_LOCAL ? strrchr(name, '.') : NULL;
        if (dot && dot > name && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) &&
            (size_t)(dot - name) < sizeof plain) {
            memcpy(plain, name, (size_t)(dot - name));
            plain[dot - name] = 0;
            name = plain;
        }
        size_t at = name ? keep(name) : SIZE_MAX;
        if (at != SIZE_MAX) add(base + (uintptr_t)sym.st_value, (uintptr_t)sym.st_size, at, module);
    }
    if (e) elf_end(e);
    if (d) read_dwarf(fd, base);
    close(fd);
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *name = info->dlpi_name;
    char exe[4096];
    if (!name || !*name) { /* the executable, by its own name */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        name = n > 0 ? exe : "/proc/self/exe";
    } else if (strstr(name, "linux-vdso") || strstr(name, "linux-gate")) {
        return 0;
    }
    read_elf(name, (uintptr_t)info->dlpi_addr);
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const gobj_t *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->hi > y->hi ? -1 : x->hi < y->hi; /* the larger first */
}

static void build(void)
{
    if (elf_version(EV_CURRENT) == EV_NONE) return;
    /* The executable first: dl_iterate_phdr names it "" (read from
     * /proc/self/exe). */
    dl_iterate_phdr(each_object, NULL);
    for (size_t i = 0; i < nobjs; i++) {
        objs[i].name = arena + (size_t)objs[i].name;
        objs[i].module = arena + (size_t)objs[i].module;
    }
    if (nobjs > 1) qsort(objs, nobjs, sizeof *objs, by_start);
    /* Aliases and members of a larger object go: the table is then sorted
     * by start with disjoint ranges, which the search needs. */
    size_t k = 0;
    for (size_t i = 0; i < nobjs; i++) {
        if (k && objs[i].lo < objs[k - 1].hi) continue;
        objs[k++] = objs[i];
    }
    nobjs = k;
    /* Each variable's type onto the object that starts at its address. */
    for (size_t i = 0; i < ndtypes; i++) {
        size_t lo = 0, hi = nobjs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (objs[mid].lo < dtypes[i].addr) lo = mid + 1;
            else hi = mid;
        }
        if (lo < nobjs && objs[lo].lo == dtypes[i].addr) {
            objs[lo].type = arena + dtypes[i].type;
            objs[lo].enc = dtypes[i].enc, objs[lo].size = dtypes[i].size;
            objs[lo].layout = dtypes[i].layout;
        }
    }
    free(dtypes);
    dtypes = NULL;
}

bool chk_global_find(uintptr_t addr, chk_object_t *out)
{
    pthread_once(&once, build);
    size_t lo = 0, hi = nobjs;
    while (lo < hi) { /* the last object starting at or before addr */
        size_t mid = lo + (hi - lo) / 2;
        if (objs[mid].lo <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0 || addr >= objs[lo - 1].hi) return false;
    const gobj_t *o = &objs[lo - 1];
    out->lo = o->lo, out->hi = o->hi, out->name = o->name, out->module = o->module;
    out->type = o->type, out->enc = o->enc, out->size = o->size;
    out->func = NULL, out->alloc_site = NULL, out->free_site = NULL, out->ptr_name = NULL;
    out->layout = o->layout, out->layout_lo = o->lo;
    return true;
}
