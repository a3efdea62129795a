/* mpiscope's own MPI_T variables, and the module that measures them.
 *
 * Control variables: every setting of src/core/settings.def, read-only
 * (they are fixed at MPI_Init), and `mpiscope_recording`, writable while MPI
 * runs (0/1, the MPI_Pcontrol levels). Performance variables: messages and
 * bytes sent and received per peer of a communicator (bound to it, one value
 * per rank), time spent in MPI, calls per function class, pending nonblocking
 * requests and their high watermark, and receives whose message had already
 * arrived when the receive was posted. All sit in a category tree rooted at
 * `mpiscope`, with one sub-category per module.
 *
 * Cost on the recording path: each thread owns its counters (a fixed,
 * insert-only hash table of (communicator, peer) cells and a few totals) and
 * updates them with relaxed loads and stores, never a lock or a locked
 * instruction; readers sum over threads. The variables can be started and
 * stopped (not continuous), and the tool layer reads a started handle as
 * the difference from its value at start, so nothing needs counting while no
 * handle is started: the leave hook is one load and one test then (the
 * `counting` interest, raised at start before the base value is read and
 * lowered at stop after the last). The unexpected-message probe (an
 * MPI_Iprobe before each receive) is paid only while a handle of that
 * variable is started, and the watermark slots (a compare-and-swap per
 * request call) only while a watermark handle exists.
 *
 * Known limits: point-to-point only (collectives are not split per peer);
 * matched receives (MPI_Mrecv) have no communicator and are not counted per
 * peer; a communicator handle that MPI reuses after MPI_Comm_free inherits
 * the old counts; a thread's table has PEER_SLOTS cells, more (communicator,
 * peer) pairs are counted in mpiscope_p2p_overflow.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/module.h"
#include "../core/requests.h"
#include "../core/runtime.h"
#include "../core/state.h"
#include "internal.h"

void msc_mpit_close_library(void) MSC_HIDDEN;

enum { PEER_SLOTS = 2048, PROBE_STEPS = 16 };
enum { V_MSGS_SENT, V_BYTES_SENT, V_MSGS_RECV, V_BYTES_RECV, V_COUNT };
enum { G_P2P, G_COLL, G_COMPLETION, G_OTHER, G_COUNT };
enum { HWM_SLOTS = 64 };

typedef struct {
    uint64_t comm;            /* the MPI_Comm's bits */
    int peer;
    _Atomic int used;         /* published after comm and peer are set */
    _Atomic uint64_t v[V_COUNT];
} cell_t;

typedef struct tdata {
    struct tdata *next;
    _Atomic uint64_t calls[G_COUNT];
    _Atomic uint64_t time_ns;
    _Atomic uint64_t unexpected;
    _Atomic uint64_t overflow;
    cell_t cells[PEER_SLOTS];
} tdata_t;

static int slot = -1;
static _Atomic int recording_value = 1; /* mpiscope_recording, see recording_read */
static _Atomic int counting; /* started handles of the counted variables */
static _Atomic int leave_wanted; /* counting + watermark handles: the leave hook has work */
static _Atomic(tdata_t *) threads;        /* every thread's counters, never freed */
static _Atomic int probe_interest;        /* started handles of the unexpected pvar */
static _Atomic uint64_t hwm_mask;         /* watermark slots in use */
static _Atomic uint64_t hwm_value[HWM_SLOTS];
static uint64_t hwm_stopped[HWM_SLOTS];   /* under the MPI_T lock */

static inline void bump(_Atomic uint64_t *x, uint64_t by)
{
    atomic_store_explicit(x, atomic_load_explicit(x, memory_order_relaxed) + by,
                          memory_order_relaxed);
}

static uint64_t comm_bits(MPI_Comm c)
{
    uint64_t k = 0;
    memcpy(&k, &c, sizeof c < sizeof k ? sizeof c : sizeof k);
    return k;
}

static tdata_t *tdata(msc_thread_t *t)
{
    tdata_t *d = t->module_data[slot];
    if (MSC_LIKELY(d != NULL)) return d;
    d = calloc(1, sizeof *d);
    if (!d) return NULL;
    t->module_data[slot] = d;
    tdata_t *head = atomic_load(&threads);
    do d->next = head;
    while (!atomic_compare_exchange_weak(&threads, &head, d));
    return d;
}

static unsigned hash(uint64_t comm, int peer)
{
    uint64_t h = (comm ^ ((uint64_t)(unsigned)peer << 32)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 40) & (PEER_SLOTS - 1);
}

static void count(tdata_t *d, MPI_Comm comm, int peer, int what, int64_t bytes)
{
    if (comm == MPI_COMM_NULL || peer < 0) return; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
    uint64_t k = comm_bits(comm);
    unsigned h = hash(k, peer);
    for (int i = 0; i < PROBE_STEPS; i++) {
        cell_t *c = &d->cells[(h + (unsigned)i) & (PEER_SLOTS - 1)];
        if (!atomic_load_explicit(&c->used, memory_order_relaxed)) {
            c->comm = k;
            c->peer = peer;
            atomic_store_explicit(&c->used, 1, memory_order_release);
        } else if (c->comm != k || c->peer != peer) {
            continue;
        }
        bump(&c->v[what], 1);
        bump(&c->v[what + 1], bytes > 0 ? (uint64_t)bytes : 0);
        return;
    }
    bump(&d->overflow, 1);
}

static int group_of(msc_kind_t k)
{
    switch (k) {
    case MSC_KIND_SEND: case MSC_KIND_RECV: case MSC_KIND_SENDRECV: case MSC_KIND_ISEND:
    case MSC_KIND_IRECV: case MSC_KIND_SEND_INIT: case MSC_KIND_RECV_INIT: case MSC_KIND_PROBE:
    case MSC_KIND_MRECV: case MSC_KIND_IMRECV: case MSC_KIND_ISENDRECV:
        return G_P2P;
    case MSC_KIND_COLL: case MSC_KIND_ICOLL:
        return G_COLL;
    case MSC_KIND_WAIT: case MSC_KIND_TEST: case MSC_KIND_WAITANY: case MSC_KIND_TESTANY:
    case MSC_KIND_WAITALL: case MSC_KIND_TESTALL: case MSC_KIND_WAITSOME:
    case MSC_KIND_TESTSOME: case MSC_KIND_START: case MSC_KIND_STARTALL:
    case MSC_KIND_REQUEST_FREE: case MSC_KIND_CANCEL:
        return G_COMPLETION;
    default:
        return G_OTHER;
    }
}

static int64_t status_bytes(MPI_Status *st)
{
    int n = 0;
    if (!st || PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) return 0;
    return n;
}

static void mod_enter(msc_call_t *c)
{
    if (MSC_LIKELY(atomic_load_explicit(&probe_interest, memory_order_relaxed) == 0)) return;
    if ((c->kind != MSC_KIND_RECV && c->kind != MSC_KIND_IRECV) || c->peer == MPI_PROC_NULL)
        return;
    int flag = 0;
    if (PMPI_Iprobe(c->peer, c->tag, c->comm, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) {
        tdata_t *d = tdata(c->thread);
        if (d) bump(&d->unexpected, 1);
    }
}

static void hwm_update(void)
{
    uint64_t mask = atomic_load_explicit(&hwm_mask, memory_order_relaxed);
    if (MSC_LIKELY(mask == 0)) return;
    uint64_t cur = msc_requests_pending();
    for (int i = 0; i < HWM_SLOTS; i++) {
        if (!((mask >> i) & 1)) continue;
        uint64_t old = atomic_load_explicit(&hwm_value[i], memory_order_relaxed);
        while (cur > old && !atomic_compare_exchange_weak(&hwm_value[i], &old, cur)) {
        }
    }
}

static __attribute__((noinline)) void mod_count(msc_call_t *c)
{
    tdata_t *d = tdata(c->thread);
    if (!d) return;
    bump(&d->time_ns, c->t_leave - c->t_enter);
    bump(&d->calls[group_of(c->kind)], 1);
    if (c->rc != MPI_SUCCESS) return;
    switch (c->kind) {
    case MSC_KIND_SEND:
    case MSC_KIND_ISENDRECV: /* the send; its receive completes as an MPI_Irecv's, below */
        count(d, c->comm, c->peer, V_MSGS_SENT, msc_type_bytes(c->type, c->count));
        break;
    case MSC_KIND_RECV:
        count(d, c->comm, c->status->MPI_SOURCE, V_MSGS_RECV, status_bytes(c->status));
        break;
    case MSC_KIND_SENDRECV:
        count(d, c->comm, c->peer, V_MSGS_SENT, msc_type_bytes(c->type, c->count));
        count(d, c->comm, c->status->MPI_SOURCE, V_MSGS_RECV, status_bytes(c->status));
        break;
    default:
        break;
    }
    for (int i = 0; i < c->ndone; i++) {
        msc_done_t *x = &c->done[i];
        if (!x->info.id || x->cancelled) continue;
        if (x->info.kind == MSC_KIND_ISEND || x->info.kind == MSC_KIND_SEND_INIT)
            count(d, x->info.comm, x->info.peer, V_MSGS_SENT, x->bytes);
        else if (x->info.kind == MSC_KIND_IRECV || x->info.kind == MSC_KIND_RECV_INIT ||
                 x->info.kind == MSC_KIND_IMRECV)
            count(d, x->info.comm, x->status ? x->status->MPI_SOURCE : x->info.peer,
                  V_MSGS_RECV, x->bytes);
    }
}

/* Out of line, so that the common case (nothing measured) pays no
 * register saves. */
static void mod_leave(msc_call_t *c)
{
    if (MSC_UNLIKELY(atomic_load_explicit(&hwm_mask, memory_order_relaxed) != 0) &&
        msc_kind_has_requests(c->kind))
        hwm_update();
    if (MSC_UNLIKELY(atomic_load_explicit(&counting, memory_order_relaxed) != 0)) mod_count(c);
}

/* MPI_Pcontrol(0/1) sets the recording state: mpiscope_recording reads it. */
static void mod_pcontrol(int level)
{
    if (level == 0 || level == 1) atomic_store(&recording_value, level);
}

static int mod_init(int s)
{
    (void)s;
    return 0;
}

static void mod_finalize(void)
{
    msc_mpit_close_library();
}

static const msc_module_t module = {
    .abi = MSC_MODULE_ABI,
    .name = "mpit",
    .mode = NULL,
    .init = mod_init,
    .enter = mod_enter,
    .leave = mod_leave,
    .enter_wanted = &probe_interest,
    .leave_wanted = &leave_wanted,
    .finalize = mod_finalize,
    .pcontrol = mod_pcontrol,
    .solo = true, /* no collective; closing the library again is harmless */
};

/* --- performance variables ------------------------------------------------- */

/* Per-peer values: which V_* is in pv->ctx (as an integer). */
/* Counted variables: while any handle is started, the leave hook counts. */
static int counting_notify(const msc_pvar_desc_t *pv, msc_pvar_event_t ev, void *obj, void **hctx)
{
    (void)pv;
    (void)obj;
    (void)hctx;
    if (ev == MSC_PVAR_START) atomic_fetch_add(&counting, 1), atomic_fetch_add(&leave_wanted, 1);
    if (ev == MSC_PVAR_STOP) atomic_fetch_sub(&counting, 1), atomic_fetch_sub(&leave_wanted, 1);
    if (ev == MSC_PVAR_START || ev == MSC_PVAR_STOP) msc_hooks_refresh();
    return ev == MSC_PVAR_BOUND ? 1 : MPI_SUCCESS;
}

static int peer_notify(const msc_pvar_desc_t *pv, msc_pvar_event_t ev, void *obj, void **hctx)
{
    if (ev != MSC_PVAR_BOUND) return counting_notify(pv, ev, obj, hctx);
    MPI_Comm comm = *(MPI_Comm *)obj;
    int n = 0;
    if (atomic_load(&msc_g.phase) != MSC_PHASE_RUNNING || comm == MPI_COMM_NULL ||
        PMPI_Comm_size(comm, &n) != MPI_SUCCESS || n < 1)
        return -MPI_T_ERR_INVALID;
    *hctx = (void *)(intptr_t)n;
    return n;
}

static int peer_read(const msc_pvar_desc_t *pv, void *obj, void *hctx, void *buf)
{
    int what = (int)(intptr_t)pv->ctx, n = (int)(intptr_t)hctx;
    uint64_t k = comm_bits(*(MPI_Comm *)obj);
    unsigned long long *out = buf;
    memset(out, 0, (size_t)n * sizeof *out);
    for (tdata_t *d = atomic_load(&threads); d; d = d->next)
        for (int i = 0; i < PEER_SLOTS; i++) {
            cell_t *c = &d->cells[i];
            if (!atomic_load_explicit(&c->used, memory_order_acquire)) continue;
            if (c->comm == k && c->peer < n)
                out[c->peer] += atomic_load_explicit(&c->v[what], memory_order_relaxed);
        }
    return MPI_SUCCESS;
}

/* Totals over threads: pv->ctx is the offset of the field in tdata_t. */
static uint64_t total(size_t offset)
{
    uint64_t sum = 0;
    for (tdata_t *d = atomic_load(&threads); d; d = d->next)
        sum += atomic_load_explicit((_Atomic uint64_t *)((char *)d + offset), memory_order_relaxed);
    return sum;
}

static int total_read(const msc_pvar_desc_t *pv, void *obj, void *hctx, void *buf)
{
    (void)obj;
    (void)hctx;
    *(unsigned long long *)buf = total((size_t)(intptr_t)pv->ctx);
    return MPI_SUCCESS;
}

static int time_read(const msc_pvar_desc_t *pv, void *obj, void *hctx, void *buf)
{
    (void)pv;
    (void)obj;
    (void)hctx;
    *(double *)buf = (double)total(offsetof(tdata_t, time_ns)) * 1e-9;
    return MPI_SUCCESS;
}

static int pending_read(const msc_pvar_desc_t *pv, void *obj, void *hctx, void *buf)
{
    (void)pv;
    (void)obj;
    (void)hctx;
    *(unsigned long long *)buf = msc_requests_pending();
    return MPI_SUCCESS;
}

static int probe_notify(const msc_pvar_desc_t *pv, msc_pvar_event_t ev, void *obj, void **hctx)
{
    (void)pv;
    (void)obj;
    (void)hctx;
    if (ev == MSC_PVAR_START) atomic_fetch_add(&probe_interest, 1);
    if (ev == MSC_PVAR_STOP) atomic_fetch_sub(&probe_interest, 1);
    if (ev == MSC_PVAR_START || ev == MSC_PVAR_STOP) msc_hooks_refresh();
    return ev == MSC_PVAR_BOUND ? 1 : MPI_SUCCESS;
}

/* Watermark slot i is hctx - 1. Reads give the peak since the handle was
 * bound or reset, over the time it was started. */
static int hwm_notify(const msc_pvar_desc_t *pv, msc_pvar_event_t ev, void *obj, void **hctx)
{
    (void)pv;
    (void)obj;
    uint64_t cur = msc_requests_pending();
    if (ev == MSC_PVAR_BOUND) {
        uint64_t mask = atomic_load(&hwm_mask);
        int i = 0;
        while (i < HWM_SLOTS && ((mask >> i) & 1)) i++;
        if (i == HWM_SLOTS) return -MPI_T_ERR_OUT_OF_HANDLES;
        hwm_stopped[i] = cur;
        atomic_store(&hwm_value[i], cur);
        atomic_fetch_or(&hwm_mask, 1ull << i);
        atomic_fetch_add(&leave_wanted, 1);
        msc_hooks_refresh();
        *hctx = (void *)(intptr_t)(i + 1);
        return 1;
    }
    int i = (int)(intptr_t)*hctx - 1;
    if (i < 0) return MPI_SUCCESS;
    uint64_t v = atomic_load(&hwm_value[i]);
    if (ev == MSC_PVAR_START) atomic_store(&hwm_value[i], hwm_stopped[i] > cur ? hwm_stopped[i] : cur);
    if (ev == MSC_PVAR_STOP) hwm_stopped[i] = v > cur ? v : cur;
    if (ev == MSC_PVAR_RESET) {
        hwm_stopped[i] = cur;
        atomic_store(&hwm_value[i], cur);
    }
    if (ev == MSC_PVAR_FREED) {
        atomic_fetch_and(&hwm_mask, ~(1ull << i));
        atomic_fetch_sub(&leave_wanted, 1);
        msc_hooks_refresh();
    }
    return MPI_SUCCESS;
}

static int hwm_read(const msc_pvar_desc_t *pv, void *obj, void *hctx, void *buf)
{
    (void)pv;
    (void)obj;
    int i = (int)(intptr_t)hctx - 1;
    uint64_t cur = msc_requests_pending(), v = i >= 0 ? atomic_load(&hwm_value[i]) : cur;
    *(unsigned long long *)buf = v > cur ? v : cur;
    return MPI_SUCCESS;
}

/* --- control variables ------------------------------------------------------- */

static void quiet(const char *message, void *arg)
{
    (void)message;
    (void)arg;
}

/* The settings as MPI_Init read them, or as it will read them. */
static const msc_settings_t *settings(void)
{
    static msc_settings_t early;
    if (msc_g.t_init_begin) return &msc_g.settings;
    msc_settings_load(&early, NULL, quiet, NULL);
    return &early;
}

static int setting_read(const msc_cvar_desc_t *cv, void *obj, void *buf)
{
    (void)obj;
    msc_setting_id_t id = (msc_setting_id_t)(intptr_t)cv->ctx;
    const msc_setting_value_t *v = &settings()->v[id];
    const msc_setting_desc_t *d = msc_setting_desc(id);
    if (cv->datatype == MPI_CHAR) {
        const char *s = v->str;
        if (!v->given && d->type != MSC_SETTING_STRING) s = d->dflt;
        snprintf(buf, (size_t)cv->count, "%s", s);
    } else if (cv->datatype == MPI_UNSIGNED_LONG_LONG) {
        *(unsigned long long *)buf = (unsigned long long)v->num;
    } else {
        *(int *)buf = (int)v->num;
    }
    return MPI_SUCCESS;
}

static bool mode_none(void)
{
    const char *choices = msc_setting_desc(MSC_SET_MODE)->choices;
    int bit = 0;
    for (const char *p = choices; *p; bit++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == 4 && strncmp(p, "none", 4) == 0)
            return (settings()->v[MSC_SET_MODE].num >> bit) & 1;
        if (!bar) break;
        p = bar + 1;
    }
    return false;
}

/* mpiscope_recording is a truth value, as C has them: 0 off, any other
 * value on. A client may write any int (MPICH's cvarwrite test writes 123
 * to every writable MPI_INT variable and expects to read it back) and reads
 * back what it wrote as long as recording is still in the state that value
 * set; after MPI_Pcontrol changed it, 0 or 1. */
static int recording_read(const msc_cvar_desc_t *cv, void *obj, void *buf)
{
    (void)cv;
    (void)obj;
    int on = msc_recording_on(), v = atomic_load(&recording_value);
    *(int *)buf = (v != 0) == (on != 0) ? v : on;
    return MPI_SUCCESS;
}

static int recording_write(const msc_cvar_desc_t *cv, void *obj, const void *buf)
{
    (void)cv;
    (void)obj;
    int v = *(const int *)buf;
    int phase = atomic_load(&msc_g.phase);
    if (phase == MSC_PHASE_BEFORE_INIT) return MPI_T_ERR_CVAR_SET_NOT_NOW;
    if (phase != MSC_PHASE_RUNNING || mode_none()) return MPI_T_ERR_CVAR_SET_NEVER;
    /* As MPI_Pcontrol would, with this thread's gate busy so that anything
     * the modules do is not recorded. */
    msc_thread_t *t = msc_thread_attach();
    unsigned gate = atomic_fetch_or(&msc_tls.gate, MSC_GATE_BUSY);
    msc_runtime_pcontrol(v != 0);
    atomic_store(&recording_value, v);
    if (t && !(gate & MSC_GATE_BUSY))
        msc_gate_release();
    return MPI_SUCCESS;
}

/* --- registration ------------------------------------------------------------ */

static int category(int root, const char *module)
{
    char name[64], desc[160];
    snprintf(name, sizeof name, "mpiscope_%s", module);
    snprintf(desc, sizeof desc, "mpiscope: variables of the %s module", module);
    int c = msc_mpit_category_register(name, desc);
    if (c >= 0) msc_mpit_category_add_category(root, c);
    return c;
}

/* Sub-category of a setting: the module its name starts with, else core. */
static int setting_category(int root, const char *id)
{
    const char *choices = msc_setting_desc(MSC_SET_MODE)->choices;
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char word[32];
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        if (strcmp(word, "none") != 0 && strncasecmp(id, word, len) == 0 && id[len] == '_')
            return category(root, word);
        if (!bar) break;
        p = bar + 1;
    }
    return category(root, "core");
}

static const char *const setting_ids[] = {
#define MSC_SETTING(id, name, type, lo, hi, choices, dflt, help) #id,
#include "../core/settings.def"
#undef MSC_SETTING
};

static void register_settings(int root)
{
    for (int id = 0; id < MSC_SET_COUNT; id++) {
        const msc_setting_desc_t *s = msc_setting_desc((msc_setting_id_t)id);
        char name[96], desc[512];
        snprintf(name, sizeof name, "mpiscope_%s", setting_ids[id]);
        for (char *p = name; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        snprintf(desc, sizeof desc, "%s (environment %s, default %s; fixed at MPI_Init)", s->help,
                 s->name, s->dflt);
        msc_cvar_desc_t d = {.name = name, .desc = desc, .verbosity = MPI_T_VERBOSITY_USER_BASIC,
                             .datatype = MPI_INT, .bind = MPI_T_BIND_NO_OBJECT,
                             .scope = MPI_T_SCOPE_CONSTANT, .count = 1, .read = setting_read,
                             .ctx = (void *)(intptr_t)id};
        if (s->type == MSC_SETTING_SIZE) d.datatype = MPI_UNSIGNED_LONG_LONG;
        if (s->type == MSC_SETTING_LIST || s->type == MSC_SETTING_STRING) {
            d.datatype = MPI_CHAR;
            d.count = MSC_SETTING_MAX_STRING;
        }
        if (s->type == MSC_SETTING_CHOICE) {
            const char *names[32];
            int values[32], n = 0;
            char copy[256];
            snprintf(copy, sizeof copy, "%s", s->choices);
            for (char *save = NULL, *w = strtok_r(copy, "|", &save); w && n < 32;
                 w = strtok_r(NULL, "|", &save)) {
                names[n] = w;
                values[n] = n;
                n++;
            }
            d.enumtype = msc_mpit_enum_create(name, n, values, names);
        }
        int idx = msc_mpit_cvar_register(&d);
        if (idx >= 0) msc_mpit_category_add_cvar(setting_category(root, setting_ids[id]), idx);
    }
    /* With MPISCOPE_MODE=none nothing can ever be recorded: the scope says
     * so from the start (get_info never changes), and writes are refused
     * with MPI_T_ERR_CVAR_SET_NEVER. */
    msc_cvar_desc_t rec = {
        .name = "mpiscope_recording",
        .desc = "whether mpiscope records: 0 off, any other value on, as MPI_Pcontrol(0) and "
                "(1) set it; reads give the value written while recording is in the state it "
                "set, else 0 or 1; writable between MPI_Init and MPI_Finalize, local to the "
                "process (read-only with MPISCOPE_MODE=none)",
        .verbosity = MPI_T_VERBOSITY_USER_BASIC,
        .datatype = MPI_INT,
        .bind = MPI_T_BIND_NO_OBJECT,
        .scope = mode_none() ? MPI_T_SCOPE_READONLY : MPI_T_SCOPE_LOCAL,
        .count = 1,
        .read = recording_read,
        .write = recording_write,
    };
    int idx = msc_mpit_cvar_register(&rec);
    if (idx >= 0) msc_mpit_category_add_cvar(category(root, "core"), idx);
}

static void register_pvars(int root)
{
    int cat = category(root, "mpit");
    const unsigned rw = MSC_PVAR_ATOMIC;
    static const struct {
        const char *name, *desc;
        int cls;
    } peer[V_COUNT] = {
        [V_MSGS_SENT] = {"mpiscope_p2p_messages_sent",
                         "point-to-point messages sent to each rank of the communicator",
                         MPI_T_PVAR_CLASS_COUNTER},
        [V_BYTES_SENT] = {"mpiscope_p2p_bytes_sent",
                          "bytes sent in point-to-point messages to each rank of the communicator",
                          MPI_T_PVAR_CLASS_AGGREGATE},
        [V_MSGS_RECV] = {"mpiscope_p2p_messages_received",
                         "point-to-point messages received from each rank of the communicator",
                         MPI_T_PVAR_CLASS_COUNTER},
        [V_BYTES_RECV] = {"mpiscope_p2p_bytes_received",
                          "bytes received in point-to-point messages from each rank of the "
                          "communicator",
                          MPI_T_PVAR_CLASS_AGGREGATE},
    };
    msc_pvar_desc_t d;
    for (int v = 0; v < V_COUNT; v++) {
        d = (msc_pvar_desc_t){.name = peer[v].name, .desc = peer[v].desc,
                              .verbosity = MPI_T_VERBOSITY_USER_BASIC, .var_class = peer[v].cls,
                              .datatype = MPI_UNSIGNED_LONG_LONG, .bind = MPI_T_BIND_MPI_COMM,
                              .flags = rw, .read = peer_read, .notify = peer_notify,
                              .ctx = (void *)(intptr_t)v};
        int i = msc_mpit_pvar_register(&d);
        if (i >= 0) msc_mpit_category_add_pvar(cat, i);
    }
    static const struct {
        const char *name, *desc;
        size_t offset;
    } totals[] = {
        {"mpiscope_calls_p2p", "point-to-point calls (send, receive, probe)",
         offsetof(tdata_t, calls[G_P2P])},
        {"mpiscope_calls_collective", "collective calls, blocking and nonblocking",
         offsetof(tdata_t, calls[G_COLL])},
        {"mpiscope_calls_completion", "request calls (wait, test, start, free, cancel)",
         offsetof(tdata_t, calls[G_COMPLETION])},
        {"mpiscope_calls_other", "all other recorded MPI calls", offsetof(tdata_t, calls[G_OTHER])},
        {"mpiscope_p2p_overflow",
         "messages not counted per peer because a thread's table of (communicator, peer) "
         "pairs was full",
         offsetof(tdata_t, overflow)},
    };
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
        d = (msc_pvar_desc_t){.name = totals[t].name, .desc = totals[t].desc,
                              .verbosity = MPI_T_VERBOSITY_USER_DETAIL,
                              .var_class = MPI_T_PVAR_CLASS_COUNTER,
                              .datatype = MPI_UNSIGNED_LONG_LONG, .bind = MPI_T_BIND_NO_OBJECT,
                              .flags = rw, .read = total_read, .notify = counting_notify,
                              .ctx = (void *)(intptr_t)totals[t].offset};
        int i = msc_mpit_pvar_register(&d);
        if (i >= 0) msc_mpit_category_add_pvar(cat, i);
    }
    msc_pvar_desc_t more[] = {
        {.name = "mpiscope_time_in_mpi",
         .desc = "seconds spent inside recorded MPI calls, all threads (units of MPI_Wtime)",
         .verbosity = MPI_T_VERBOSITY_USER_BASIC, .var_class = MPI_T_PVAR_CLASS_TIMER,
         .datatype = MPI_DOUBLE, .bind = MPI_T_BIND_NO_OBJECT, .flags = rw, .read = time_read,
         .notify = counting_notify},
        {.name = "mpiscope_pending_requests",
         .desc = "nonblocking and active persistent requests not yet completed",
         .verbosity = MPI_T_VERBOSITY_USER_DETAIL, .var_class = MPI_T_PVAR_CLASS_LEVEL,
         .datatype = MPI_UNSIGNED_LONG_LONG, .bind = MPI_T_BIND_NO_OBJECT,
         .flags = MSC_PVAR_READONLY | MSC_PVAR_CONTINUOUS, .read = pending_read},
        {.name = "mpiscope_pending_requests",
         .desc = "the most nonblocking requests pending at once since the handle was "
                 "started or reset",
         .verbosity = MPI_T_VERBOSITY_USER_DETAIL, .var_class = MPI_T_PVAR_CLASS_HIGHWATERMARK,
         .datatype = MPI_UNSIGNED_LONG_LONG, .bind = MPI_T_BIND_NO_OBJECT, .flags = rw,
         .read = hwm_read, .notify = hwm_notify},
        {.name = "mpiscope_unexpected_messages",
         .desc = "receives whose message had already arrived when the receive was posted, as "
                 "far as MPI_Iprobe tells (probed only while a handle is started)",
         .verbosity = MPI_T_VERBOSITY_USER_DETAIL, .var_class = MPI_T_PVAR_CLASS_COUNTER,
         .datatype = MPI_UNSIGNED_LONG_LONG, .bind = MPI_T_BIND_NO_OBJECT, .flags = rw,
         .read = total_read, .notify = probe_notify,
         .ctx = (void *)(intptr_t)offsetof(tdata_t, unexpected)},
    };
    for (size_t t = 0; t < sizeof more / sizeof more[0]; t++) {
        int i = msc_mpit_pvar_register(&more[t]);
        if (i >= 0) msc_mpit_category_add_pvar(cat, i);
    }
}

MSC_CONSTRUCTOR static void mpit_register(void)
{
    slot = msc_module_register(&module);
    int root = msc_mpit_category_register("mpiscope", "mpiscope, the MPI profiling and tracing "
                                                      "tool: its settings and measurements");
    if (root < 0) return;
    register_settings(root);
    register_pvars(root);
}
