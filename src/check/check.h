/* Private to the check module. What its parts share: findings (findings.c),
 * the registry of MPI objects the application made (objects.c), type
 * signatures (sig.c), the global checks (global.c) and the deadlock watchdog
 * (deadlock.c). check.c registers the module and dispatches the hooks; see
 * docs/checks.md for the classes and their limits.
 */
#ifndef MSC_CHECK_CHECK_H
#define MSC_CHECK_CHECK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "call.h"
#include "findings_io.h"
#include "state.h"

#define CHK_INTERNAL __attribute__((visibility("hidden")))
/* Thread-local data of the checks: initial-exec, one %fs-relative load (the
 * library is loaded at start-up, as msc_tls requires anyway). */
#define CHK_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* --- findings (findings.c; the record and its files: findings_io.h) ----- */

/* True if the class is enabled by MPISCOPE_CHECK_CLASSES. */
bool chk_class_enabled(const char *cls) CHK_INTERNAL;

/* True if a finding of this class at this site of this rank would be new
 * (enabled, not seen here yet, under the class's cap). A false answer has
 * counted the repeat. For callers whose text costs work to prepare (a
 * resolved site, an error string): ask first, then chk_report. */
bool chk_fresh(const char *cls, void *site) CHK_INTERNAL;

/* Records a finding of this rank at `site` (this rank's return address),
 * in call `fn`. The text is printf-style. Repeats of a class at one site
 * are counted; a new finding goes out at once (stderr and the per-rank
 * file); MPISCOPE_CHECK_ABORT ends the run here. */
void chk_report(const char *cls, msc_fn_t fn, void *site, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) CHK_INTERNAL;

/* Records a prepared finding (several parts, a group); same rules, folded
 * by its first part's site and rank. */
void chk_report_full(chk_finding_t *f) CHK_INTERNAL;

/* Findings of this rank so far. */
int chk_findings_count(void) CHK_INTERNAL;

/* Opens this rank's per-rank file (at init, once the output directory is
 * known). */
void chk_findings_init(void) CHK_INTERNAL;
/* Path of a rank's per-rank file. */
void chk_findings_rank_path(int rank, char *out, size_t n) CHK_INTERNAL;
/* Appends the current counts and suppressed classes to the per-rank file:
 * without waiting for a lock (the rank is dying), or waiting (a deadlock
 * report is about to read every rank's file). */
void chk_findings_emergency(void) CHK_INTERNAL;
void chk_findings_for_deadlock(void) CHK_INTERNAL;

/* Collective over msc_g.comm: gathers, merges and writes checks.txt and
 * checks.json on rank 0, with the summary on stderr; the per-rank files go. */
void chk_findings_finalize(void) CHK_INTERNAL;

/* Merges `l` and writes checks.txt and checks.json with the summary on
 * stderr (rank 0 at MPI_Finalize, a deadlock's reporter). */
void chk_findings_publish_report(chk_io_list_t *l, const char *note) CHK_INTERNAL;

/* Resolves a part's site: this rank's return address, or another rank's
 * (objkey, objoff). */
void chk_resolve(chk_part_t *p) CHK_INTERNAL;
/* The (object, offset) form of one of this rank's return addresses, which
 * another rank can resolve (chk_part_t.objkey). */
void chk_site_key(void *site, uint64_t *key, uint64_t *off) CHK_INTERNAL;

/* --- argument checks (args.c, optable.c) ------------------------------- */

/* NULL pointers and handles, datatype constructors, operation and
 * datatype combinations, MPI_IN_PLACE of collectives: before PMPI. */
void chk_args_enter(msc_call_t *c) CHK_INTERNAL;
/* topo.c: the arguments of topology and split calls (role args). */
void chk_topo_init(void) CHK_INTERNAL;
void chk_topo_enter(msc_call_t *c) CHK_INTERNAL;
/* Fills the table of section 5.9.2 (once, at the module's init). */
void chk_optable_init(void) CHK_INTERNAL;
/* 1: the predefined operation is defined on the predefined datatype; 0:
 * the standard does not define it; -1: cannot tell (user-defined
 * operation, derived datatype, MPI_REPLACE/MPI_NO_OP). */
int chk_op_allows(MPI_Op op, MPI_Datatype t) CHK_INTERNAL;
const char *chk_op_name(MPI_Op op) CHK_INTERNAL;
/* The datatypes a predefined operation allows, in words. */
const char *chk_op_allowed_text(MPI_Op op) CHK_INTERNAL;

/* --- calls outside MPI (outside.c) ------------------------------------- */

/* True for the functions the standard allows before MPI_Init and after
 * MPI_Finalize. */
bool chk_outside_allowed(const char *name) CHK_INTERNAL;
/* At the module's init: calls seen before MPI_Init become findings. */
void chk_outside_init(void) CHK_INTERNAL;

/* --- thread level (threadlevel.c) -------------------------------------- */
/* At the module's init (in the thread that initialized MPI), in every enter
 * hook first and every leave hook last, and at MPI_Finalize. */
void chk_thr_init(void) CHK_INTERNAL;
void chk_thr_enter(const msc_call_t *c) CHK_INTERNAL;
void chk_thr_leave(const msc_call_t *c) CHK_INTERNAL;
void chk_thr_finalize(void) CHK_INTERNAL;

/* --- objects (objects.c) ------------------------------------------------ */

typedef struct {
    uint64_t unit;   /* hash of one period of the basic-type sequence (0: unknown) */
    uint64_t reps;   /* how often the period repeats */
    int64_t bytes;   /* total size */
} chk_sig_t;

/* Signature of `count` elements of `type` (sig.c). */
chk_sig_t chk_sig(MPI_Datatype type, MPI_Count count) CHK_INTERNAL;
/* True if a message of signature `s` may be received with signature `r`. */
bool chk_sig_receivable(chk_sig_t s, chk_sig_t r) CHK_INTERNAL;
bool chk_sig_equal(chk_sig_t a, chk_sig_t b) CHK_INTERNAL;

typedef enum { CHK_LIVE = 0, CHK_FREED, CHK_UNKNOWN } chk_state_t;

/* Incremented whenever a communicator or datatype is made, committed or
 * freed: a per-thread memo of their state is valid while it is unchanged. */
extern _Atomic uint64_t chk_gen CHK_INTERNAL;

/* What the checks need of a datatype (sig.c), from a per-thread memo: one
 * load and a comparison when the same types recur. `ok`: the layout
 * queries succeeded (never tried for MPI_DATATYPE_NULL or a freed type). */
typedef struct {
    MPI_Datatype t;
    uint64_t gen;
    chk_state_t state;    /* CHK_UNKNOWN: predefined, or made where not tracked */
    bool committed, ok;
    bool contig;          /* size == extent == true extent: no gaps */
    MPI_Count size, lb, extent, tlb, textent;
    chk_sig_t sig;        /* of one element */
} chk_tinfo_t;
const chk_tinfo_t *chk_tinfo_slow(MPI_Datatype t) CHK_INTERNAL;
extern CHK_TLS chk_tinfo_t *chk_tlast CHK_INTERNAL;
static inline const chk_tinfo_t *chk_tinfo(MPI_Datatype t)
{
    const chk_tinfo_t *l = chk_tlast;
    if (MSC_LIKELY(l && l->t == t && l->gen == atomic_load_explicit(&chk_gen, memory_order_acquire)))
        return l;
    return chk_tinfo_slow(t);
}

/* An all-zero handle: NULL in Open MPI (whose handles are pointers), 0 in
 * MPICH (whose handles carry a nonzero kind in their high bits). Never a
 * valid handle of either MPI: a NULL or zeroed handle variable. */
static inline bool chk_zero_handle(const void *h, size_t n)
{
    const unsigned char *p = (const unsigned char *)h;
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}
#define CHK_ZERO(h) chk_zero_handle(&(h), sizeof(h))

/* What the checks need of a communicator (objects.c), memoized alike. */
typedef struct {
    MPI_Comm comm;
    uint64_t gen;
    chk_state_t state;    /* CHK_UNKNOWN: not made by a tracked constructor */
    bool inter;
    int rank;             /* this process's rank in it (-1: unknown) */
    int size, rsize;      /* rsize: remote group of an intercommunicator, else size */
    MPI_Comm shadow;      /* the tool's communicator beside it (MPI_COMM_NULL: none) */
} chk_cinfo_t;
const chk_cinfo_t *chk_cinfo_slow(MPI_Comm c) CHK_INTERNAL;
extern CHK_TLS chk_cinfo_t *chk_clast CHK_INTERNAL;
static inline const chk_cinfo_t *chk_cinfo(MPI_Comm c)
{
    const chk_cinfo_t *l = chk_clast;
    if (MSC_LIKELY(l && l->comm == c && l->gen == atomic_load_explicit(&chk_gen, memory_order_acquire)))
        return l;
    return chk_cinfo_slow(c);
}
enum { CHK_RSUM_MAX = 16 };

/* Object life cycle, from HANDLE_NEW, HANDLE_FREE, COMM, COMM_FREE and
 * posting calls. `bits` is the handle's value (pointer or int). */
void chk_obj_new(msc_obj_class_t cls, const void *handle, size_t size, msc_fn_t fn, void *site)
    CHK_INTERNAL;
void chk_obj_free(msc_obj_class_t cls, const void *handle, size_t size) CHK_INTERNAL;
/* One more reference to a datatype handle the application holds: a derived
 * type MPI_Type_get_contents returned, which the application must free and
 * which in both MPIs is the handle of an existing object (MPI-3.1 section
 * 4.1.13). Each MPI_Type_free takes one reference; the handle is freed when
 * none is left. */
void chk_obj_ref(msc_obj_class_t cls, const void *handle, size_t size) CHK_INTERNAL;
chk_state_t chk_obj_state(msc_obj_class_t cls, const void *handle, size_t size) CHK_INTERNAL;
/* Datatypes: committed? (predefined ones are) */
void chk_type_commit(MPI_Datatype t) CHK_INTERNAL;
bool chk_type_committed(MPI_Datatype t) CHK_INTERNAL;

/* Requests and objects that did not fit the tables (MPISCOPE_MAX_REQUESTS
 * of each per rank) or memory. */
void chk_objects_dropped(uint64_t *requests, uint64_t *objects) CHK_INTERNAL;

/* Requests: the check module's view (who and what, for leaks and the
 * deadlock wait-for graph). */
typedef struct {
    msc_kind_t kind;
    msc_fn_t fn;
    MPI_Comm comm;
    int peer, tag;
    void *site;
    const void *buf;       /* send buffer (ISEND) or receive buffer */
    int64_t bytes;
    uint64_t checksum;     /* ISEND, ICOLL: of the send buffer when posted; SEND_INIT: when
                            * last started (0: none, or its layout has gaps) */
    chk_sig_t sig;
    bool persistent, active;
    uint64_t post_seq;
    uint32_t rp_ev;        /* its posting event in the zero-buffer replay (CHK_RP_NONE: none) */
    uintptr_t lo, hi;      /* bytes the operation's buffer spans (lo == hi: unknown) */
    bool writes;           /* a receive: MPI writes the span */
    uintptr_t slo, shi;    /* a nonblocking collective's send buffer besides (MPI reads it;
                            * slo == shi: none or unknown) */
    /* Receives into contiguous buffers: checksums of the buffer in blocks
     * of rblock bytes, taken when posted (nrsum 0: none). */
    int nrsum;
    int64_t rblock, rbytes; /* block size; bytes covered (first 64 MiB) */
    uint64_t rsum[CHK_RSUM_MAX];
    /* The application's variable its handle was written to (C bindings;
     * NULL in the others), and the posting call that wrote another
     * request's handle over it while this one was still allocated
     * (over_site NULL: none). */
    const void *where;
    msc_fn_t over_fn;
    void *over_site;
} chk_req_t;
void chk_req_new(MPI_Request r, const chk_req_t *info) CHK_INTERNAL;
/* A posting call wrote a new request's handle to `where`, which held `old`:
 * if `old` is still allocated and its handle was written there, it is
 * lost unless the application kept a copy. Remembered for the leak report
 * at MPI_Finalize (LOCAL:REQUEST:OVERWRITTEN), which is made only if
 * nothing completed or freed it by then. */
void chk_req_overwritten(MPI_Request old, const void *where, msc_fn_t fn, void *site)
    CHK_INTERNAL;
/* "file:line" of one of this rank's call sites (check.c). */
void chk_where(void *site, char *out, size_t n) CHK_INTERNAL;
bool chk_req_get(MPI_Request r, chk_req_t *out) CHK_INTERNAL;
/* A request completed: its record (false if unknown), and it is forgotten
 * (a persistent one becomes inactive). One lock for both. */
bool chk_req_take(MPI_Request r, chk_req_t *out) CHK_INTERNAL;
bool chk_req_get_locked(MPI_Request r, chk_req_t *out) CHK_INTERNAL; /* chk_lock held */
/* A persistent request started (active) or completed; rp_ev: the posting
 * event of a start (replay.c). */
void chk_req_set_active(MPI_Request r, bool active, uint32_t rp_ev) CHK_INTERNAL;
void chk_req_forget(MPI_Request r) CHK_INTERNAL;
/* A persistent receive started: its buffer's block checksums (nrsum,
 * rblock, rbytes, rsum of `sums`). */
void chk_req_set_sums(MPI_Request r, const chk_req_t *sums) CHK_INTERNAL;
/* A persistent send started: its buffer's checksum for this round. */
void chk_req_set_checksum(MPI_Request r, uint64_t sum) CHK_INTERNAL;
/* A pending (active) request other than `self` whose buffer span overlaps
 * [lo, hi), where at least one of the two is written by MPI (`writes`, or
 * the pending one is a receive); false if none. */
bool chk_req_overlap(uintptr_t lo, uintptr_t hi, bool writes, MPI_Request self, chk_req_t *out)
    CHK_INTERNAL;
/* One basic datatype of a type map at its displacement (typemap.c). */
typedef struct {
    MPI_Aint disp;
    MPI_Datatype type;
} chk_tm_ent_t;
/* The type map of one element of t, flattened: at most max pairs (a
 * longer map is cut there); -1 if a constructor is not followed. */
int chk_typemap(MPI_Datatype t, chk_tm_ent_t *out, int max) CHK_INTERNAL;

/* A structure's layout from DWARF (layout.c): runs of `count` elements of
 * one base type (enc: DW_ATE_*; 0 not a number; 0xff opaque) at offsets of
 * the structure, in offset order, repeating every `stride` bytes. */
typedef struct {
    uint64_t off, count;
    unsigned char enc, size;
    const char *name; /* the base type's name, or what the leaf is */
} chk_leaf_t;
typedef struct {
    const char *name; /* "struct S" */
    uint64_t stride;
    int n;
    chk_leaf_t leaf[];
} chk_layout_t;
/* The kind of number a predefined datatype is ('i', 'u', 'f') and its size
 * (check.c's number_kind); 0 for the datatypes never judged. */
typedef char (*chk_kind_fn)(MPI_Datatype t, int *size);
/* Whether `count` elements of t, starting `at` bytes into an object of
 * `object_bytes` whose elements have layout l, fit it (elements beyond the
 * object are OVERFLOW's); false with the first misfit in `why`. */
bool chk_layout_match(const chk_layout_t *l, uint64_t at, uint64_t object_bytes, MPI_Count count,
                      MPI_Datatype t, chk_kind_fn kind_of, char *why, size_t n) CHK_INTERNAL;

/* The object a buffer points into: a global or static variable (its ELF
 * symbol, globals.c) or a live heap block (check mode's allocator
 * interposer, objects_at.c): its bytes [lo, hi). */
typedef struct {
    uintptr_t lo, hi;
    /* A global's or local variable's name; the file of a global's ELF
     * object; the function of a local (stackvars.c); NULL otherwise. */
    const char *name, *module, *func;
    /* Its declared element type, from DWARF: name, DW_ATE_* encoding and
     * bytes (type NULL, enc 0: not known; a heap block's comes from the
     * pointer it is reached through, chk_stack_pointee). */
    const char *type;
    unsigned char enc, size;
    /* A heap block's: the pointer variable of the calling frame (in func)
     * whose pointee type gave its declared type, else NULL. */
    const char *ptr_name;
    /* Elements that are structures: their layout (DWARF), repeating from
     * layout_lo (the variable's start, or where the pointer points). */
    const chk_layout_t *layout;
    uintptr_t layout_lo;
    /* A heap block's allocating call (a return address of this rank). */
    void *alloc_site;
    /* A freed heap block's freeing call (chk_freed_find), else NULL. */
    void *free_site;
} chk_object_t;
/* The global or static object holding `addr`; false if none. */
bool chk_global_find(uintptr_t addr, chk_object_t *out) CHK_INTERNAL;
/* The local variable holding `addr`, in one of the frames from the MPI
 * call's caller (whose return address is `site`) outwards; false if none
 * is known (stackvars.c). */
bool chk_stack_find(uintptr_t addr, void *site, chk_object_t *out) CHK_INTERNAL;
/* A heap block's declared element type (obj: the block, as found), from a
 * pointer variable of the frame of the call at `site` that points into it
 * on an element boundary of `buf` (stackvars.c): fills obj's type, enc,
 * size, ptr_name and func; false if no such pointer, or pointers that
 * disagree. */
bool chk_stack_pointee(uintptr_t buf, void *site, chk_object_t *obj) CHK_INTERNAL;
/* The global, static, local (with `site`: the call's return address) or
 * heap object holding `addr`; false if none is known. */
bool chk_object_find(uintptr_t addr, void *site, chk_object_t *out) CHK_INTERNAL;
/* From chk_object_mark(true) to chk_object_mark(false), this thread's
 * look-ups see the heap as it was at the mark (the start of a call's
 * checks), not the blocks the tool allocates meanwhile. */
void chk_object_mark(bool on) CHK_INTERNAL;
/* The heap block, freed and not handed out again, holding `addr` when no
 * object does (libmpiscope-heap.so remembers the last few thousand frees),
 * as the heap was at this thread's last chk_object_find; false if none is
 * known. */
bool chk_freed_find(uintptr_t addr, chk_object_t *out) CHK_INTERNAL;
/* The object in words, for a finding's text: "the global or static object
 * `grid` (800 bytes, in app)", "the local variable `grid` of main (800
 * bytes)" or "the heap block of 800 bytes allocated at app.c:12 in main". */
void chk_object_describe(const chk_object_t *o, char *buf, size_t n) CHK_INTERNAL;
/* A call's buffer (count elements of t at buf; `which`: "send ", "origin
 * ", ... or "") against the object it points into: LOCAL:BUFFER:OVERFLOW
 * and LOCAL:BUFFER:TYPE_MISMATCH (check.c). */
void chk_buffer_object(msc_call_t *c, const void *buf, MPI_Count count, MPI_Datatype t,
                       bool writes, const char *which) CHK_INTERNAL;
/* The bytes [lo, hi) MPI reads (or, `writes`, writes) against the object
 * of their first byte: LOCAL:BUFFER:OVERFLOW, or LOCAL:BUFFER:FREED when
 * that byte lies in a freed heap block (check.c). */
void chk_span_object(msc_call_t *c, uintptr_t lo, uintptr_t hi, bool writes,
                     const char *which) CHK_INTERNAL;
/* `len` bytes at `buf` cut back to the end of the object `buf` is in
 * (unchanged outside one): the tool's own reads of a buffer (checksums)
 * stay inside the object even when the buffer overflows it, which
 * LOCAL:BUFFER:OVERFLOW reports; the bytes beyond are MPI's to read, not
 * the tool's (under ASan the application's redzones are there). */
int64_t chk_object_clamp(const void *buf, int64_t len) CHK_INTERNAL;

/* Whether any pending operation has a buffer span (a cheap test first). */
bool chk_req_spans_pending(void) CHK_INTERNAL;
/* True if a receive posted before `seq` on `comm` is still pending and could
 * match a message from `src` (a rank of comm)/`tag` (the p2p matching order). */
bool chk_req_earlier_recv(MPI_Comm comm, int src, int tag, uint64_t seq) CHK_INTERNAL;

/* Communicators: world ranks of the members and the shadow communicators. */
typedef struct chk_comm {
    int size, rsize;       /* local group; remote group (intercommunicators), else 0 */
    int *world;            /* world rank of each local member (NULL: not known) */
    int *rworld;           /* of each remote member */
    /* The tool's communicator over the same group (MPI_COMM_NULL: none,
     * over budget): global.c's collectives, p2p.c's sidecar batches (tag 0)
     * and acknowledgements (tags from 1). */
    MPI_Comm shadow;
    /* A shadow still being made (objects.c, "shadows made lazily"): the
     * PMPI_Comm_idup's request, and where it writes the new communicator.
     * shadow stays MPI_COMM_NULL until chk_shadow_settle. */
    MPI_Request shadow_req;
    MPI_Comm shadow_next;
    MPI_Comm app;          /* the application's communicator these shadow */
    bool inter;
    uint64_t coll_seq;     /* collectives seen on it */
    /* Threads inside a collective call on it now (two at once: the
     * application's error, LOCAL:THREAD:CONCURRENT_COLLECTIVE), and the lock
     * that keeps global.c's numbering, log and exchanges in one order per
     * rank even then, so that the tool's own traffic always matches. */
    _Atomic int coll_in;
    pthread_mutex_t coll_mu;
    uint64_t key;          /* hash of the members' world ranks (groups of findings) */
    /* Its place among the communicators over the same members made so far
     * (MPI_COMM_WORLD 0 for its group, a duplicate of it 1, ...): the same
     * on every member, so that (key, ord) names it across ranks; and the
     * call that made it, for naming it in a report. */
    uint32_t ord;
    msc_fn_t made_by;
    void *made_at;
    /* Collectives logged since the last comparison (global.c). */
    struct coll *log;
    void **log_site;
    int nlog, caplog;
    uint64_t run;          /* running hash of the logged descriptors */
    uint64_t psum;         /* sum of their pair sums (vector forms, global.c) */
    /* Agreements before a collective not yet complete at its call (global.c:
     * rooted and prefix collectives never wait long for them), oldest
     * first; each is judged in this order once complete. */
    struct coll_pending *pend;
    int npend, cappend;
    /* Comparisons of earlier logs posted and not yet complete, oldest
     * first, and exchanges of descriptors posted (coll_agree.c). */
    struct coll_cmp *cmps;
    struct coll_xchg *xchgs;
    /* Its traffic was given up at MPI_Finalize or after a member never
     * came: MPI keeps the shadow and the buffers. */
    bool abandoned;
    struct chk_comm *retired_next; /* coll_agree.c's list of freed ones */
} chk_comm_t;
/* A freed communicator's entry (taken from the registry): kept by
 * coll_agree.c while the tool's traffic on its shadow is pending (true),
 * and given to chk_comm_destroy once complete. */
bool chk_coll_retire(chk_comm_t *e) CHK_INTERNAL;
/* Advances the retired communicators' traffic (cheap when there is none). */
void chk_coll_progress(void) CHK_INTERNAL;
/* Frees a communicator's entry and its shadow (objects.c). */
void chk_comm_destroy(chk_comm_t *e) CHK_INTERNAL;
/* Registers a communicator the application got (creating its shadow:
 * collective over its members). */
void chk_comm_add(MPI_Comm c, msc_fn_t fn, void *site) CHK_INTERNAL;
/* A blocking constructor returned (kind COMM, c->comm the parent, rc
 * MPI_SUCCESS): registers its new communicator, if any, and starts making
 * its shadow without waiting for the other members (objects.c). Called on
 * every member of the parent, those given MPI_COMM_NULL too. */
void chk_comm_made(const msc_call_t *c) CHK_INTERNAL;
/* Before the tool uses c's shadow (every call on c, check.c's enter):
 * completes its making if still pending. Cheap when none is pending. */
void chk_shadow_settle(MPI_Comm c) CHK_INTERNAL;
/* The same for every communicator (MPI_Finalize). */
void chk_shadow_settle_all(void) CHK_INTERNAL;
/* The same with its shadow `given` (made and counted already by
 * chk_shadow_adopt, or MPI_COMM_NULL for none), or made here when not given. */
void chk_comm_add_shadowed(MPI_Comm c, msc_fn_t fn, void *site, bool given, MPI_Comm shadow) CHK_INTERNAL;
/* This process's own answer to "one more communicator of the tool's fits
 * the budget" (1 or 0), for an agreement made elsewhere (icomm.c). */
int chk_shadow_room(void) CHK_INTERNAL;
/* A communicator of the tool's made outside chk_shadow_new (icomm.c's
 * PMPI_Comm_idup of a shadow): kept and counted in the budget when `keep`
 * (every member agreed), else freed; the budget's line is said when the
 * communicator ends up without a shadow. true: kept. */
bool chk_shadow_adopt(MPI_Comm *s, bool keep) CHK_INTERNAL;
/* Nonblocking constructors (icomm.c): the application's MPI_Comm_idup* call
 * returned (its request posted), and one of its requests completed. */
void chk_icomm_posted(const msc_call_t *c) CHK_INTERNAL;
void chk_icomm_completed(const msc_done_t *d) CHK_INTERNAL;
/* A communicator of our own with c's group (and remote group): made by
 * MPI_Comm_create, which, unlike MPI_Comm_dup, copies none of the
 * application's attributes, so none of its copy or delete callbacks runs
 * for our communicators. Collective over c; MPI_COMM_NULL on failure. */
MPI_Comm chk_shadow_of(MPI_Comm c) CHK_INTERNAL;
/* A communicator of the tool's over via's group (and remote group), made
 * the same way, within the budget of the tool's communicators (objects.c):
 * MPI_COMM_NULL on every member alike when a member has no room or MPI
 * fails. `app`: via is the application's (its error handler is set aside
 * for the call). Collective over via. */
MPI_Comm chk_shadow_new(MPI_Comm via, bool app) CHK_INTERNAL;
/* Another communicator of the tool's over the group of the application's
 * c, made from c's shadow within the budget (MPI_COMM_NULL when c has no
 * shadow, or no room). Collective over c. */
MPI_Comm chk_side_of(MPI_Comm c) CHK_INTERNAL;
/* A shadow kept after its communicator was freed (`in`), or no longer
 * kept (before chk_shadow_free): out of the budget, still an MPI context
 * id. */
void chk_shadow_park(bool in) CHK_INTERNAL;
/* Frees one made by chk_shadow_new (nothing for MPI_COMM_NULL). */
void chk_shadow_free(MPI_Comm *s) CHK_INTERNAL;
void chk_comm_remove(MPI_Comm c) CHK_INTERNAL;
/* The shadows of the live communicators (at most max), and in `apps`
 * (may be NULL) the application communicator of each. */
int chk_comm_shadows(MPI_Comm *out, MPI_Comm *apps, int max) CHK_INTERNAL;
/* The entries of the live communicators (at most max). */
int chk_comm_entries(chk_comm_t **out, int max) CHK_INTERNAL;
/* The entry (under the registry's lock held by the caller: use chk_lock). */
chk_comm_t *chk_comm_find(MPI_Comm c) CHK_INTERNAL;
void chk_lock(void) CHK_INTERNAL;
void chk_unlock(void) CHK_INTERNAL;
/* World rank of `rank` in c (remote group for intercommunicators); -1 if unknown. */
int chk_world_rank(MPI_Comm c, int rank) CHK_INTERNAL;
int chk_world_rank_locked(MPI_Comm c, int rank) CHK_INTERNAL;
void chk_sig_forget(MPI_Datatype t) CHK_INTERNAL;

/* Leaks at MPI_Finalize, reported as findings. */
void chk_objects_leaks(void) CHK_INTERNAL;
void chk_objects_init(void) CHK_INTERNAL;
void chk_objects_finalize(void) CHK_INTERNAL;
/* At MPI_Finalize, collective over the world: the line on the tool's
 * budget, from world rank 0, if a communicator of any rank got no shadow
 * and it has not said so yet. */
void chk_shadow_finalize(void) CHK_INTERNAL;

/* --- global checks (global.c) ------------------------------------------- */
/* Pair sums of the collectives' blocks that global.c's pairs() does not
 * take (collpairs.c): Alltoallw, Reduce_scatter, neighbourhood v/w-forms.
 * True when c is one of them (ps filled). */
typedef struct {
    uint64_t psig, pbytes;
    int32_t loose;
} chk_pairsum_t;
bool chk_pairs_more(const msc_call_t *c, chk_pairsum_t *ps) CHK_INTERNAL;
/* What a collective function is, from its name (after "MPI_" and the "I" of
 * nonblocking forms, without case; persistent *_init forms included): a
 * table filled once, so that calls do not compare strings. */
enum {
    CHK_CF_GATHER = 1 << 0,      /* Gather, Gatherv */
    CHK_CF_SCATTER = 1 << 1,     /* Scatter, Scatterv */
    CHK_CF_BCAST = 1 << 2,
    CHK_CF_NEIGHBOR = 1 << 3,    /* every neighbourhood collective */
    CHK_CF_EXSCAN = 1 << 4,
    CHK_CF_GATHERV = 1 << 5,
    CHK_CF_SCATTERV = 1 << 6,
    CHK_CF_ALLGATHERV = 1 << 7,
    CHK_CF_ALLTOALLV = 1 << 8,
    CHK_CF_ALLTOALLW = 1 << 9,
    CHK_CF_RSCATTER = 1 << 10,   /* Reduce_scatter, not _block */
    CHK_CF_NBR_AGV = 1 << 11,    /* Neighbor_allgatherv */
    CHK_CF_NBR_A2AV = 1 << 12,   /* Neighbor_alltoallv */
    CHK_CF_NBR_A2AW = 1 << 13,   /* Neighbor_alltoallw */
    CHK_CF_SCAN = 1 << 14,       /* Scan (Exscan: CHK_CF_EXSCAN) */
};
unsigned chk_coll_form(msc_fn_t fn) CHK_INTERNAL;
void chk_coll_enter(msc_call_t *c) CHK_INTERNAL;
/* After the collective (blocking or not, or its init) returned. */
void chk_coll_leave(msc_call_t *c) CHK_INTERNAL;
/* Before MPI_Comm_free (collective): the logged collectives are compared
 * (posted; judged when complete, never waited for here). */
void chk_coll_comm_free(MPI_Comm comm) CHK_INTERNAL;
/* At MPI_Finalize: the same for every communicator still alive, and what
 * is pending on them and on the freed ones waited for while it moves;
 * `list` holds the live ones. */
void chk_coll_finalize(chk_comm_t **list, int n) CHK_INTERNAL;
void chk_p2p_send_enter(msc_call_t *c) CHK_INTERNAL;

/* --- point to point (p2p.c) --------------------------------------------- */
/* After a send: its sidecar record (batched; nonblocking), carrying the
 * send's replay event `ev`. */
void chk_p2p_send_leave(msc_call_t *c, uint32_t ev) CHK_INTERNAL;
/* A persistent send started: its sidecar record. */
void chk_p2p_started(MPI_Request r) CHK_INTERNAL;
/* A receive completed (probe: a matched probe took the message; its sidecar
 * is consumed unjudged). post_seq: when the receive was posted (0: now);
 * ev: the receive's replay event, told which send it matched when paired. */
void chk_p2p_recv_done(MPI_Comm comm, MPI_Status *st, chk_sig_t rsig, msc_fn_t fn, void *site,
                       uint64_t post_seq, bool probe, uint32_t ev) CHK_INTERNAL;
/* As a call leaves (now: its time): records whose delay has passed are
 * sent, arrived ones judged; one load and a comparison when nothing is due. */
void chk_p2p_progress(uint64_t now) CHK_INTERNAL;
/* The application frees the communicator whose p2p shadow this is: its
 * records are sent; true if p2p.c keeps the shadow (records still awaited;
 * it frees it itself), false if the caller frees it. */
bool chk_p2p_comm_free(MPI_Comm p2p) CHK_INTERNAL;
/* At MPI_Finalize (collective): the last sidecars, and messages never received. */
void chk_p2p_unreceived(void) CHK_INTERNAL;
/* Point-to-point traffic so far, per (communicator, peer in it): messages
 * sent (with the last one's tag) or received. Copies at most `max` into
 * out; returns how many (0 when the tables are busy). For the deadlock
 * report's hints (deadlock.c). */
typedef struct {
    MPI_Comm comm;
    int peer;
    uint64_t n;
    int tag;   /* sent: the last message's tag */
    bool sent;
} chk_tally_t;
int chk_p2p_tallies(chk_tally_t *out, int max) CHK_INTERNAL;

/* --- error handlers (errhandler.c) -------------------------------------- */
/* Creates the substitute handlers and puts them on MPI_COMM_WORLD,
 * MPI_COMM_SELF and MPI_FILE_NULL where the handler is fatal. */
void chk_eh_init(void) CHK_INTERNAL;
void chk_eh_finalize(void) CHK_INTERNAL;
/* Around the application's PMPI call: enter marks it as running (and as the
 * last call), leave replaces fatal handlers of new windows and files and of
 * set_errhandler calls, and gives get_errhandler the application's handler. */
void chk_eh_enter(const msc_call_t *c) CHK_INTERNAL;
void chk_eh_leave(const msc_call_t *c) CHK_INTERNAL;
/* The last MPI call made by any thread (MSC_FN_COUNT, NULL: none). */
void chk_eh_last_call(msc_fn_t *fn, void **site) CHK_INTERNAL;
/* This thread is inside an application's MPI call (between the hooks). */
bool chk_eh_in_call(void) CHK_INTERNAL;

/* --- deadlock watchdog (deadlock.c) ------------------------------------- */
void chk_wd_start(void) CHK_INTERNAL;
void chk_wd_stop(void) CHK_INTERNAL;
/* Marks this thread as inside call `c` (blocking calls) or outside. */
void chk_wd_enter(msc_call_t *c) CHK_INTERNAL;
void chk_wd_leave(void) CHK_INTERNAL;
/* After a Test* or MPI_Iprobe: `found` something, or the thread polls (a
 * run of unsuccessful polls is one long wait to the watchdog). */
void chk_wd_poll(msc_call_t *c, bool found) CHK_INTERNAL;
/* Before any call: a thread that was polling with another function stops. */
void chk_wd_poll_other(msc_call_t *c) CHK_INTERNAL;
/* This thread waits for the acknowledgement of an emulated synchronous send. */
void chk_wd_sync_wait(bool on) CHK_INTERNAL;
/* MPI_Finalize: this rank waits for every rank from now on. */
void chk_wd_finalizing(void *site) CHK_INTERNAL;
/* The collective this thread is in was found mismatched (global.c). */
void chk_wd_coll_mismatch(void) CHK_INTERNAL;

/* --- request state (reqstate.c) and one-sided communication (rma.c) ----- */
/* The kinds whose enter and leave hooks these two files need (a bit per
 * kind: one test for every other call), and the hooks: enter checks
 * START_ACTIVE, FREE_ACTIVE, FREED, RMA epochs and origin buffers (also of
 * point-to-point calls and of completions of R* requests); leave records
 * deallocated and new request handles, windows made and freed, fences (the
 * conflict exchange) and R* requests. */
#define CHK_K(k) (1ull << MSC_KIND_##k)
_Static_assert(MSC_KIND_COUNT <= 64, "a kind mask is one word");
#define CHK_STATE_COMPLETION                                                               \
    (CHK_K(WAIT) | CHK_K(TEST) | CHK_K(WAITANY) | CHK_K(TESTANY) | CHK_K(WAITALL) |          \
     CHK_K(TESTALL) | CHK_K(WAITSOME) | CHK_K(TESTSOME))
#define CHK_STATE_RMA                                                                      \
    (CHK_K(RMA_PUT) | CHK_K(RMA_GET) | CHK_K(RMA_ACC) | CHK_K(RMA_RPUT) | CHK_K(RMA_RGET) |  \
     CHK_K(RMA_RACC) | CHK_K(RMA_FENCE) | CHK_K(RMA_LOCK) | CHK_K(RMA_UNLOCK) |              \
     CHK_K(RMA_SYNC) | CHK_K(RMA_PSCW))
#define CHK_STATE_ENTER                                                                    \
    (CHK_STATE_COMPLETION | CHK_STATE_RMA | CHK_K(START) | CHK_K(STARTALL) |                \
     CHK_K(REQUEST_FREE) | CHK_K(CANCEL) | CHK_K(HANDLE_FREE) | CHK_K(SEND) | CHK_K(ISEND) | \
     CHK_K(RECV) | CHK_K(IRECV) | CHK_K(SENDRECV) | CHK_K(ISENDRECV))
#define CHK_STATE_LEAVE                                                                    \
    (CHK_STATE_COMPLETION | CHK_K(RMA_RPUT) | CHK_K(RMA_RGET) | CHK_K(RMA_RACC) |            \
     CHK_K(RMA_FENCE) | CHK_K(REQUEST_FREE) | CHK_K(HANDLE_NEW) | CHK_K(HANDLE_FREE) |        \
     CHK_K(OTHER))
static inline bool chk_state_wants(const msc_call_t *c, bool enter)
{
    if (enter) return (CHK_STATE_ENTER >> c->kind) & 1u;
    return ((CHK_STATE_LEAVE >> c->kind) & 1u) || (msc_fn_roles[c->fn] & MSC_ROLE_REQUEST);
}
void chk_state_enter(msc_call_t *c) CHK_INTERNAL; /* reqstate.c: both files' enter hooks */
void chk_state_leave(msc_call_t *c) CHK_INTERNAL;
void chk_reqstate_enter(msc_call_t *c) CHK_INTERNAL;
void chk_reqstate_leave(msc_call_t *c) CHK_INTERNAL;
void chk_rma_enter(msc_call_t *c) CHK_INTERNAL;
/* MPI_Win_create's and MPI_Win_attach's memory against its object. */
void chk_rma_memory_enter(msc_call_t *c) CHK_INTERNAL;
void chk_rma_p2p_enter(msc_call_t *c) CHK_INTERNAL;
void chk_rma_req_enter(msc_call_t *c) CHK_INTERNAL;
void chk_rma_leave(msc_call_t *c) CHK_INTERNAL;
void chk_rma_req_leave(msc_call_t *c) CHK_INTERNAL;
/* The epochs of one window as this process's calls show them (rma.c), for
 * rma_epochs.c's judgement of a synchronization call at its enter, before
 * rma.c updates them: EPOCH_TWICE and NO_EPOCH. */
typedef struct {
    int rank, size;                /* this process and the window's group size */
    bool lock_all, start_open, post_open;
    const unsigned char *locks;    /* per target: locked by this process (NULL: none yet) */
    const unsigned char *ingroup;  /* per target: in the open start's group; at
                                    * MPI_Win_start, in its own (NULL: none) */
} chk_epochs_t;
void chk_rma_epochs(const msc_call_t *c, const chk_epochs_t *e) CHK_INTERNAL;

/* --- potential deadlocks: the zero-buffer replay (replay.c) ------------- */
#define CHK_RP_NONE UINT32_MAX
typedef enum {
    CHK_RP_BLOCK = 0,    /* waits in the call (a blocking send, receive or collective) */
    CHK_RP_POST = 1,     /* posted by a nonblocking call; a completion call waits for it */
    CHK_RP_BUFFERED = 2, /* a send that never waits for its receive (MPI_Bsend, MPI_Ibsend) */
} chk_rp_mode_t;
/* This rank's events, in call order; each returns the event's number (or
 * CHK_RP_NONE when not recorded). */
uint32_t chk_rp_send(msc_fn_t fn, void *site, chk_rp_mode_t mode) CHK_INTERNAL;
/* A receive (or a matched probe) on `comm` from `src` (a rank of comm, or
 * MPI_ANY_SOURCE) with `tag` (or MPI_ANY_TAG). */
uint32_t chk_rp_recv(msc_fn_t fn, void *site, chk_rp_mode_t mode, MPI_Comm comm, int src,
                     int tag) CHK_INTERNAL;
/* A collective: its communicator's members' key, the instance number every
 * member gives it, the members, this rank's rank in it and whether it is
 * the root. */
uint32_t chk_rp_coll(msc_fn_t fn, void *site, uint64_t comm_key, uint64_t instance, int members,
                     chk_rp_mode_t mode, int comm_rank, bool root) CHK_INTERNAL;
/* A completion call: the posting events of its requests; all or any of them. */
void chk_rp_wait(msc_fn_t fn, void *site, const uint32_t *posts, int n, bool any) CHK_INTERNAL;
/* Receive event `recv_ev` took the message (tag `tag`) of world rank
 * `sender`'s event `send_ev`. */
void chk_rp_matched(uint32_t recv_ev, int sender, uint32_t send_ev, int tag) CHK_INTERNAL;
/* This rank's events cannot be replayed (a reason, kept as given). */
void chk_rp_disable(const char *why) CHK_INTERNAL;
/* A call that orders ranks was not recorded (a collective on an
 * intercommunicator or without a shadow): message races are not judged. */
void chk_rp_unordered(void) CHK_INTERNAL;
/* The last collective event this thread recorded (global.c), then none. */
uint32_t chk_coll_take_ev(void) CHK_INTERNAL;
/* At MPI_Finalize, once every receive is paired: collective over msc_g.comm. */
void chk_rp_finalize(void) CHK_INTERNAL;

/* --- shared state (check.c) --------------------------------------------- */
typedef struct {
    int slot;
    int tag_ub;
    long long timeout_s, max_repeats;
    bool abort_first, sync_sends, deadlock_exit;
    const char *classes;
} chk_config_t;
extern chk_config_t chk_cfg CHK_INTERNAL;

/* Checksum of `count` elements of a contiguous type (0 for other layouts:
 * their gaps may change legally), and of `len` bytes; sampled beyond 64 KiB
 * (sig.c). Never 0 when computed. */
uint64_t chk_checksum(const void *buf, MPI_Count count, MPI_Datatype type) CHK_INTERNAL;
uint64_t chk_checksum_span(const void *buf, int64_t len) CHK_INTERNAL;
/* The same for a receive buffer's block (up to 4 KiB; cheaper when small). */
uint64_t chk_checksum_block(const void *buf, int64_t len) CHK_INTERNAL;

#endif
