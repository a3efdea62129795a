/* Local variables of the running frames (issue 26: a stack buffer's
 * variable without recompiling), from DWARF.
 *
 * A buffer on the calling thread's stack (between the current stack
 * pointer and the top of the thread's stack, whose bounds are read once
 * per thread) belongs to one of the frames from the MPI call's caller
 * outwards. The unwinder (libgcc's _Unwind_Backtrace, which reads the
 * objects' .eh_frame) gives each frame's return address and its canonical
 * frame address (CFA); a frame's own memory lies between its callee's CFA
 * and its own, so the buffer's frame is the first whose CFA is above it,
 * and the walk stops there.
 *
 * That frame's variables come from the DWARF of its object (built with
 * -g): the out-of-line function whose code holds its pc, and in it the
 * lexical blocks and inlined subroutines that hold the pc, and in each the
 * variables and parameters whose location at that pc
 * (dwarf_getlocation_addr: location lists included) is DW_OP_fbreg N,
 * while the function's frame base is DW_OP_call_frame_cfa (GCC's and
 * clang's on x86-64): the variable is then at CFA + N, with the size of its
 * declared type (dwarf_aggregate_size). Variables kept in registers, or
 * whose location at the pc is anything else, are not known; variable-length
 * arrays have no static size and are not known either. The table of a pc is
 * built once and kept (a hash table under a mutex), so a look-up pays the
 * walk of the stack and a search of a few variables.
 *
 * Each object's DWARF is opened once, when a pc in it is first seen, and
 * kept open for the process's life.
 *
 * A heap block has no declared type, but the code that uses it does: the
 * pointer it is reached through. When a call's buffer lies in a heap block
 * and a pointer variable of the calling frame (a local or a parameter with
 * a DW_OP_fbreg location, -O0 code or a pointer the compiler kept in
 * memory) holds an address in that block whose pointee is a number type,
 * that type is the block's declared element type, as TypeART would give it
 * from the allocation (chk_stack_pointee). Pointers of the frame into the
 * block whose pointee types disagree give none.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unwind.h>

#include "check.h"
#include "dwarf_types.h"

/* --- the objects' DWARF ---------------------------------------------------- */

typedef struct {
    uintptr_t lo, hi; /* an executable segment */
    uintptr_t base;   /* load bias */
    char *path;
    Dwarf *dw;        /* NULL: no DWARF (or not opened yet: tried false) */
    bool tried;
} smod_t;

static smod_t *mods;
static size_t nmods;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int each_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *name = info->dlpi_name;
    char exe[4096];
    if (!name || !*name) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        name = exe;
    }
    if (!*name || strstr(name, "linux-vdso")) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        smod_t *m = realloc(mods, (nmods + 1) * sizeof *m);
        if (!m) return 1;
        mods = m;
        char *path = strdup(name);
        if (!path) return 1;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        mods[nmods++] = (smod_t){lo, lo + ph->p_memsz, info->dlpi_addr, path, NULL, false};
    }
    return 0;
}

/* The object holding pc, its DWARF opened; NULL if none. Under mu. */
static smod_t *module_of(uintptr_t pc)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nmods; i++)
            if (pc >= mods[i].lo && pc < mods[i].hi) {
                smod_t *m = &mods[i];
                if (!m->tried) {
                    m->tried = true;
                    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
                    if (fd >= 0) m->dw = dwarf_begin(fd, DWARF_C_READ); /* keeps fd */
                    if (fd >= 0 && !m->dw) close(fd);
                }
                return m->dw ? m : NULL;
            }
        if (pass == 0) { /* an object loaded since: read the list again */
            for (size_t i = 0; i < nmods; i++) free(mods[i].path);
            /* Opened handles are dropped with the list; rare (dlopen). */
            nmods = 0;
            dl_iterate_phdr(each_segment, NULL);
        }
    }
    return NULL;
}

/* --- the variables of a pc ------------------------------------------------- */

typedef struct {
    int64_t off;     /* from the frame's CFA */
    uint64_t size;
    char *name, *type;
    const char *func; /* the function (or inlined one) declaring it */
    int depth;        /* of its scope: the function's own 0, its blocks 1, ... */
    unsigned char enc, esize; /* declared element's base type (0: none) */
    /* A pointer to a number (size 8): its pointee's base type, else 0. */
    unsigned char penc, pesize;
    char *ptype;
    /* Elements that are structures (layout.c): the variable's own, or a
     * pointer's pointee's. */
    const chk_layout_t *layout, *playout;
} svar_t;

typedef struct {
    uintptr_t pc;   /* 0: empty slot */
    svar_t *v;
    int n;
} spc_t;

enum { PC_SLOTS = 4096 };
static spc_t pcs[PC_SLOTS];

static bool frame_base_is_cfa(Dwarf_Die *sub)
{
    Dwarf_Attribute a;
    Dwarf_Op *ops;
    size_t n;
    return dwarf_attr_integrate(sub, DW_AT_frame_base, &a) &&
           dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_call_frame_cfa;
}

static void add_var(spc_t *e, Dwarf_Die *v, Dwarf_Addr pc, const char *func, int depth)
{
    Dwarf_Attribute a;
    Dwarf_Op *expr;
    size_t len;
    if (!dwarf_attr(v, DW_AT_location, &a) || dwarf_getlocation_addr(&a, pc, &expr, &len, 1) != 1 ||
        len != 1 || expr[0].atom != DW_OP_fbreg)
        return;
    Dwarf_Die t, peeled;
    Dwarf_Word size;
    if (!dwarf_attr_integrate(v, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) ||
        dwarf_peel_type(&t, &peeled) != 0 || dwarf_aggregate_size(&peeled, &size) != 0 || !size)
        return;
    svar_t *nv = realloc(e->v, (size_t)(e->n + 1) * sizeof *nv);
    if (!nv) return;
    e->v = nv;
    const char *name = dwarf_formstring(dwarf_attr_integrate(v, DW_AT_name, &a));
    svar_t *s = &e->v[e->n++];
    *s = (svar_t){(int64_t)expr[0].number, size, strdup(name ? name : "?"), NULL, func, depth,
                  0, 0, 0, 0, NULL, NULL, NULL};
    Dwarf_Die bt = t, pt, whole;
    int enc = 0, esize = 0;
    const char *tn = NULL;
    if (chk_dwarf_base_type(&bt, &enc, &esize, &tn)) {
        s->enc = (unsigned char)enc, s->esize = (unsigned char)esize;
        s->type = strdup(tn ? tn : "?");
    } else if (dwarf_tag(&peeled) == DW_TAG_pointer_type && size == sizeof(void *) &&
               dwarf_attr_integrate(&peeled, DW_AT_type, &a) && dwarf_formref_die(&a, &pt)) {
        whole = pt;
        if (chk_dwarf_base_type(&pt, &enc, &esize, &tn)) {
            s->penc = (unsigned char)enc, s->pesize = (unsigned char)esize;
            s->ptype = strdup(tn ? tn : "?");
        } else {
            s->playout = chk_dwarf_layout(&whole);
        }
    } else {
        s->layout = chk_dwarf_layout(&t);
    }
}

static const char *name_of(Dwarf_Die *d)
{
    Dwarf_Attribute a;
    const char *n = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
    return n ? n : "?";
}

/* The variables of `scope` and of its blocks and inlined subroutines that
 * hold pc; `func` names the function (or inlined one) they belong to. */
static void walk_scope(spc_t *e, Dwarf_Die *scope, Dwarf_Addr pc, const char *func, int depth)
{
    Dwarf_Die c;
    if (depth > 32 || dwarf_child(scope, &c) != 0) return;
    do {
        int t = dwarf_tag(&c);
        if (t == DW_TAG_variable || t == DW_TAG_formal_parameter) {
            add_var(e, &c, pc, func, depth);
        } else if ((t == DW_TAG_lexical_block || t == DW_TAG_inlined_subroutine) &&
                   dwarf_haspc(&c, pc) == 1) {
            const char *f = func;
            if (t == DW_TAG_inlined_subroutine) {
                char *own = strdup(name_of(&c)); /* kept with the table */
                if (own) f = own;
            }
            walk_scope(e, &c, pc, f, depth + 1);
        }
    } while (dwarf_siblingof(&c, &c) == 0);
}

/* The out-of-line function whose code holds pc (inlined code included). */
static bool concrete_function(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
    Dwarf_Die c;
    if (depth > 8 || dwarf_child(parent, &c) != 0) return false;
    do {
        int t = dwarf_tag(&c);
        if (t == DW_TAG_subprogram && dwarf_haspc(&c, pc) == 1) {
            *out = c;
            return true;
        }
        if ((t == DW_TAG_namespace || t == DW_TAG_module || t == DW_TAG_class_type ||
             t == DW_TAG_structure_type) && concrete_function(&c, pc, out, depth + 1))
            return true;
    } while (dwarf_siblingof(&c, &c) == 0);
    return false;
}

static void build_pc(spc_t *e, uintptr_t pc)
{
    e->pc = pc;
    smod_t *m = module_of(pc);
    if (!m) return;
    Dwarf_Addr rel = pc - m->base;
    Dwarf_Die cu, sub;
    if (!dwarf_addrdie(m->dw, rel, &cu) || !concrete_function(&cu, rel, &sub, 0)) return;
    /* Only a frame base we know: the CFA (GCC's and clang's on x86-64). */
    if (!frame_base_is_cfa(&sub)) return;
    char *func = strdup(name_of(&sub)); /* kept with the table */
    if (func) walk_scope(e, &sub, rel, func, 0);
}

/* The table of pc (built on first use); under mu. */
static spc_t *vars_at(uintptr_t pc)
{
    size_t s = (size_t)(pc * 0x9e3779b97f4a7c15ull >> 52) & (PC_SLOTS - 1);
    for (size_t k = 0; k < PC_SLOTS; k++, s = (s + 1) & (PC_SLOTS - 1)) {
        if (pcs[s].pc == pc) return &pcs[s];
        if (!pcs[s].pc) {
            build_pc(&pcs[s], pc);
            return &pcs[s];
        }
    }
    return NULL; /* full: 4096 call sites' frames */
}

/* --- the frames ------------------------------------------------------------ */

static CHK_TLS uintptr_t stack_lo, stack_hi; /* this thread's stack */

static bool on_my_stack(uintptr_t addr)
{
    if (!stack_hi) {
        pthread_attr_t at;
        void *base;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &at) != 0) return false;
        if (pthread_attr_getstack(&at, &base, &size) == 0) {
            stack_lo = (uintptr_t)base;
            stack_hi = (uintptr_t)base + size;
        }
        pthread_attr_destroy(&at);
    }
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    return addr > here && addr < stack_hi;
}

enum { MAX_FRAMES = 64 };
/* From the site's frame outwards: pc[k] is frame k's pc (a return address)
 * and cfa[k] the CFA of its callee, so frame k's memory is [cfa[k],
 * cfa[k + 1]). (During _Unwind_Backtrace the context of a frame still
 * answers its callee's CFA: the frame's own is computed after the
 * callback.) */
typedef struct {
    uintptr_t site, addr;
    int n;
    uintptr_t pc[MAX_FRAMES + 1], cfa[MAX_FRAMES + 1];
} walk_t;

static _Unwind_Reason_Code each_frame(struct _Unwind_Context *ctx, void *arg)
{
    walk_t *w = arg;
    uintptr_t ip = (uintptr_t)_Unwind_GetIP(ctx);
    if (w->n == 0 && ip != w->site) return _URC_NO_REASON;
    w->pc[w->n] = ip;
    w->cfa[w->n] = (uintptr_t)_Unwind_GetCFA(ctx);
    w->n++;
    /* The frame holding the buffer is known: no need to go on to main. */
    return w->n > MAX_FRAMES || (w->n >= 2 && w->addr < w->cfa[w->n - 1]) ? _URC_END_OF_STACK
                                                                           : _URC_NO_REASON;
}

/* The variable of the frame [lo, cfa) holding addr. Compilers give one
 * stack slot to variables whose lives do not overlap (GCC's -fstack-reuse,
 * the default), and DWARF then places several variables in scope at the
 * pc at the same bytes. Of those, the extent taken is the largest and the
 * name the innermost's; their declared types are judged only when they
 * all agree. Ambiguity never turns into a finding. */
static bool in_frame(uintptr_t addr, uintptr_t pc, uintptr_t cfa, chk_object_t *out)
{
    pthread_mutex_lock(&mu);
    spc_t *e = vars_at(pc - 1); /* the call instruction's pc */
    const svar_t *best = NULL;
    uintptr_t blo = 0, bhi = 0;
    bool types_agree = true;
    for (int k = 0; e && k < e->n; k++) {
        const svar_t *v = &e->v[k];
        uintptr_t vlo = cfa + (uintptr_t)v->off;
        if (addr < vlo || addr >= vlo + v->size) continue;
        if (best && (v->enc != best->enc || v->esize != best->esize)) types_agree = false;
        if (!best || v->depth > best->depth) best = v;
        if (!blo || vlo < blo) blo = vlo;
        if (vlo + v->size > bhi) bhi = vlo + v->size;
    }
    if (best)
        *out = (chk_object_t){.lo = blo, .hi = bhi, .name = best->name, .module = NULL,
                              .func = best->func,
                              .type = types_agree ? best->layout ? best->layout->name : best->type
                                                  : NULL,
                              .enc = types_agree ? best->enc : 0,
                              .size = types_agree ? best->esize : 0,
                              .layout = types_agree && blo == cfa + (uintptr_t)best->off ? best->layout
                                                                                        : NULL,
                              .layout_lo = blo};
    pthread_mutex_unlock(&mu);
    return best != NULL;
}

/* The walk costs about a microsecond (some ten frames from here to the
 * call's caller), which a loop of MPI calls on a local buffer would pay on
 * every call. So each thread keeps the site frame of its last few walks:
 * the same call site reached with this function's frame at the same depth
 * is, almost always, the same frames. Almost: a cached entry is used only
 * when the stack still holds the return addresses it was found with (on
 * x86-64 a frame's return address is the word below its CFA), else the
 * stack is walked again. Buffers in frames further out are always walked.
 * Sixteen entries, taken in turn: a loop's few call sites, each reached
 * through one or two paths of the checks. */
#if defined(__x86_64__)
typedef struct {
    uintptr_t site, sp, below, cfa, ret;
} site_frame_t;
enum { SITE_FRAMES = 16 };
static CHK_TLS site_frame_t site_frames[SITE_FRAMES];
static CHK_TLS unsigned site_next;

static bool still(const site_frame_t *f)
{
    return *(const uintptr_t *)(f->below - 8) == f->site &&
           *(const uintptr_t *)(f->cfa - 8) == f->ret;
}
#endif

bool chk_stack_find(uintptr_t addr, void *site, chk_object_t *out)
{
    if (!site || !on_my_stack(addr)) return false;
#if defined(__x86_64__)
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    for (unsigned i = 0; i < SITE_FRAMES; i++) {
        const site_frame_t *f = &site_frames[i];
        if (f->site == (uintptr_t)site && f->sp == sp && addr >= f->below && still(f)) {
            if (addr < f->cfa) return in_frame(addr, f->site, f->cfa, out);
            break;
        }
    }
#endif
    walk_t w = {.site = (uintptr_t)site, .addr = addr};
    _Unwind_Backtrace(each_frame, &w);
#if defined(__x86_64__)
    if (w.n >= 2 && w.cfa[1] > w.cfa[0])
        site_frames[site_next++ % SITE_FRAMES] =
            (site_frame_t){(uintptr_t)site, sp, w.cfa[0], w.cfa[1], *(const uintptr_t *)(w.cfa[1] - 8)};
#endif
    for (int k = 0; k + 1 < w.n; k++)
        if (addr >= w.cfa[k] && addr < w.cfa[k + 1]) return in_frame(addr, w.pc[k], w.cfa[k + 1], out);
    return false;
}

/* The calling frame of `site` (the MPI call's caller): its pc and CFA. */
static bool site_frame(void *site, uintptr_t *pc, uintptr_t *cfa)
{
#if defined(__x86_64__)
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    for (unsigned i = 0; i < SITE_FRAMES; i++) {
        const site_frame_t *f = &site_frames[i];
        if (f->site == (uintptr_t)site && f->sp == sp && still(f)) {
            *pc = f->site, *cfa = f->cfa;
            return true;
        }
    }
#endif
    walk_t w = {.site = (uintptr_t)site, .addr = 0}; /* stops at the caller's frame */
    _Unwind_Backtrace(each_frame, &w);
    if (w.n < 2 || w.cfa[1] <= w.cfa[0]) return false;
#if defined(__x86_64__)
    site_frames[site_next++ % SITE_FRAMES] =
        (site_frame_t){(uintptr_t)site, sp, w.cfa[0], w.cfa[1], *(const uintptr_t *)(w.cfa[1] - 8)};
#endif
    *pc = w.pc[0], *cfa = w.cfa[1];
    return true;
}

bool chk_stack_pointee(uintptr_t buf, void *site, chk_object_t *obj)
{
    if (!site) return false;
    uintptr_t pc, cfa;
    if (!site_frame(site, &pc, &cfa)) return false;
    const svar_t *found = NULL;
    uintptr_t found_to = 0;
    bool agree = true;
    pthread_mutex_lock(&mu);
    spc_t *e = vars_at(pc - 1);
    for (int k = 0; e && k < e->n; k++) {
        const svar_t *v = &e->v[k];
        if (!v->penc && !v->playout) continue;
        uintptr_t to = *(const uintptr_t *)(cfa + (uintptr_t)v->off);
        /* Into the block, and on an element boundary of buf. */
        if (to < obj->lo || to >= obj->hi) continue;
        if (v->penc && (buf > to ? buf - to : to - buf) % v->pesize) continue;
        if (v->playout && buf < to) continue;
        if (found && (found->penc != v->penc || found->pesize != v->pesize ||
                      (found->playout != v->playout &&
                       (!found->playout || !v->playout ||
                        strcmp(found->playout->name, v->playout->name) ||
                        found->playout->stride != v->playout->stride))))
            agree = false;
        if (!found || v->depth > found->depth) found = v, found_to = to;
    }
    if (found && agree) {
        obj->ptr_name = found->name;
        obj->func = found->func;
        if (found->playout) {
            obj->layout = found->playout;
            obj->layout_lo = found_to;
            obj->type = found->playout->name;
        } else {
            obj->type = found->ptype;
            obj->enc = found->penc;
            obj->size = found->pesize;
            obj->layout_lo = found_to;
        }
    }
    pthread_mutex_unlock(&mu);
    return found && agree;
}
