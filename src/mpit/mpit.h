/* Private to mpiscope. Registration of mpiscope's own MPI_T variables.
 *
 * Modelled on Open MPI's mca_base_pvar interface: a performance variable is
 * registered with its metadata and up to three callbacks. `notify` is told
 * when a handle is bound, started, stopped, reset and freed; when a handle is
 * bound it returns the number of values for the object (e.g. the size of a
 * communicator), so a variable whose count depends on its object must have
 * one. When `read` or `write` is NULL the value is read from or written to
 * `ctx`, typed by the datatype (count values). The MPI_T layer (tool.c) does
 * the per-handle bookkeeping the standard asks for: start/stop, reset and
 * readreset of counters, frozen values of stopped levels, one independent
 * value per session.
 *
 * Everything registered keeps its index for the whole run; nothing is ever
 * removed. Registration may happen at any time from any thread, except from
 * inside a callback (callbacks run under the MPI_T layer's lock).
 * Functions return an index (>= 0) or the negative of an MPI_T error code.
 */
#ifndef MSC_MPIT_MPIT_H
#define MSC_MPIT_MPIT_H

#include <mpi.h>

typedef struct msc_mpit_enum msc_mpit_enum_t;

enum {
    MSC_PVAR_READONLY = 1u,   /* cannot be written or reset */
    MSC_PVAR_CONTINUOUS = 2u, /* always active; cannot be started or stopped */
    MSC_PVAR_ATOMIC = 4u,     /* may be read and reset atomically (readreset) */
};

typedef enum {
    MSC_PVAR_BOUND,   /* a handle was allocated: return the count of values (>= 1) */
    MSC_PVAR_START,   /* a handle was started (continuous: at allocation) */
    MSC_PVAR_STOP,    /* a handle was stopped (continuous: before it is freed) */
    MSC_PVAR_RESET,   /* a handle was reset (watermarks start over from here) */
    MSC_PVAR_FREED,   /* a handle was freed */
} msc_pvar_event_t;

typedef struct msc_pvar_desc msc_pvar_desc_t;

/* `obj` points to a copy of the bound object's handle (MPI_Comm *, ...), or
 * is NULL for MPI_T_BIND_NO_OBJECT. `hctx` is a per-handle word the callbacks
 * may use (e.g. a watermark slot); it starts as NULL. Return MPI_SUCCESS or
 * an MPI_T error code; notify returns the count for MSC_PVAR_BOUND. */
typedef int (*msc_pvar_read_fn)(const msc_pvar_desc_t *pv, void *obj, void *hctx, void *buf);
typedef int (*msc_pvar_write_fn)(const msc_pvar_desc_t *pv, void *obj, void *hctx,
                                 const void *buf);
typedef int (*msc_pvar_notify_fn)(const msc_pvar_desc_t *pv, msc_pvar_event_t ev, void *obj,
                                  void **hctx);

struct msc_pvar_desc {
    const char *name;         /* unique with the class among all pvars of the union */
    const char *desc;
    int verbosity;            /* MPI_T_VERBOSITY_* */
    int var_class;            /* MPI_T_PVAR_CLASS_* */
    MPI_Datatype datatype;    /* one of table 14.4, allowed for the class */
    msc_mpit_enum_t *enumtype; /* MPI_INT only; NULL: none */
    int bind;                 /* MPI_T_BIND_* */
    unsigned flags;           /* MSC_PVAR_* */
    msc_pvar_read_fn read;    /* NULL: read `ctx` */
    msc_pvar_write_fn write;  /* NULL: write `ctx` (if not read-only) */
    msc_pvar_notify_fn notify; /* NULL: count 1 */
    void *ctx;                /* value storage, or the callbacks' own argument */
};

typedef struct msc_cvar_desc msc_cvar_desc_t;

/* Read/write one control variable value (count values of the datatype). A
 * write may return MPI_T_ERR_CVAR_SET_NOT_NOW or MPI_T_ERR_CVAR_SET_NEVER. */
typedef int (*msc_cvar_read_fn)(const msc_cvar_desc_t *cv, void *obj, void *buf);
typedef int (*msc_cvar_write_fn)(const msc_cvar_desc_t *cv, void *obj, const void *buf);

struct msc_cvar_desc {
    const char *name;
    const char *desc;
    int verbosity;
    MPI_Datatype datatype;    /* MPI_INT, MPI_UNSIGNED, MPI_UNSIGNED_LONG(_LONG), MPI_DOUBLE, MPI_CHAR */
    msc_mpit_enum_t *enumtype;
    int bind;
    int scope;                /* MPI_T_SCOPE_*: CONSTANT and READONLY are never written */
    int count;                /* values; for MPI_CHAR the buffer size with the terminator */
    msc_cvar_read_fn read;    /* NULL: read `ctx` */
    msc_cvar_write_fn write;  /* NULL: write `ctx` (when the scope allows it) */
    void *ctx;
};

/* An enumeration of `n` (value, name) pairs; names are copied. NULL if the
 * arguments are invalid (n < 1, empty or duplicate names) or memory ran out. */
msc_mpit_enum_t *msc_mpit_enum_create(const char *name, int n, const int *values,
                                      const char *const *names)
    __attribute__((visibility("hidden")));

/* The descriptions are copied, except ctx and the callbacks. Refused with
 * -MPI_T_ERR_INVALID: a class/datatype pair the standard forbids, an
 * enumeration on a type other than MPI_INT, an unknown bind, scope or
 * verbosity, a name already taken; with -MPI_T_ERR_MEMORY: out of memory. */
int msc_mpit_pvar_register(const msc_pvar_desc_t *d) __attribute__((visibility("hidden")));
int msc_mpit_cvar_register(const msc_cvar_desc_t *d) __attribute__((visibility("hidden")));

/* A category (returns the existing one if the name is taken, with its
 * description unchanged), and its members. add_category refuses a child that
 * is the parent or contains it (a category never contains itself). Adding a
 * member twice is a no-op. */
int msc_mpit_category_register(const char *name, const char *desc)
    __attribute__((visibility("hidden")));
int msc_mpit_category_add_cvar(int category, int cvar) __attribute__((visibility("hidden")));
int msc_mpit_category_add_pvar(int category, int pvar) __attribute__((visibility("hidden")));
int msc_mpit_category_add_category(int parent, int child) __attribute__((visibility("hidden")));

#endif
