/* Private to the VT_ module: what vt.c (the API), fortran.c (its Fortran
 * bindings) and profile.c (time per user region) share.
 */
#ifndef MSC_VT_IMPL_H
#define MSC_VT_IMPL_H

#include <stdatomic.h>
#include <stdint.h>

#define VT_HIDDEN __attribute__((visibility("hidden")))

enum { VT_MAX_DEPTH = 256 };

/* A function (state) of VT_funcdef; handle = index + 1. */
typedef struct {
    char name[128];
    char cls_name[64];  /* its class, "" for VT_NOCLASS */
    int cls;            /* class handle */
    uint32_t trc;       /* trace region, UINT32_MAX when the trace is off */
} vt_func_t;

extern vt_func_t vt_funcs[] VT_HIDDEN;
extern _Atomic int vt_nfuncs VT_HIDDEN;

/* The calling thread's state. */
typedef struct {
    int depth;                     /* entered functions */
    int overflow;                  /* VT_enter calls refused beyond VT_MAX_DEPTH, not yet left */
    int stack[VT_MAX_DEPTH];       /* their handles */
    uint64_t t_enter[VT_MAX_DEPTH]; /* ns, when each was entered */
    int thisloc;                   /* VT_thisloc for the next event, VT_NOSCL: none */
    int unordered;                 /* open VT_begin_unordered periods */
    struct vt_pthread *prof;       /* profile.c's per-thread table */
} vt_tls_t;

extern _Thread_local vt_tls_t vt_tls VT_HIDDEN;

/* profile.c: a function left after `ns` of inclusive time. */
void vt_prof_region(int handle, uint64_t ns) VT_HIDDEN;

#endif
