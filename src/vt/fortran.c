/* Fortran bindings of the VT_ API: the Intel Trace Collector's names in
 * upper case without underscores (VTLOGSENDMSG), each a subroutine with a
 * trailing ierr, exported under the manglings compilers use: VTLOGSENDMSG,
 * vtlogsendmsg, vtlogsendmsg_ and vtlogsendmsg__. Arguments arrive by
 * reference; CHARACTER arguments have hidden lengths (size_t, after all the
 * others, as gfortran passes them) and lose their trailing blanks.
 * VTTIMESTAMP and VTTIMESTART are DOUBLE PRECISION functions.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "VT.h"

/* One implementation, four exported names. */
#define VT_FORTRAN_AS(UP, low, impl)                                                   \
    extern __typeof__(impl) UP __attribute__((alias(#impl), visibility("default")));      \
    extern __typeof__(impl) low __attribute__((alias(#impl), visibility("default")));     \
    extern __typeof__(impl) low##_ __attribute__((alias(#impl), visibility("default")));  \
    extern __typeof__(impl) low##__ __attribute__((alias(#impl), visibility("default")));
#define VT_FORTRAN(UP, low) VT_FORTRAN_AS(UP, low, f_##low)

/* A Fortran string as a C string without trailing blanks (malloc'ed). */
static char *cstr(const char *s, size_t len)
{
    if (!s) return NULL;
    while (len > 0 && s[len - 1] == ' ') len--;
    char *c = malloc(len + 1);
    if (!c) return NULL;
    memcpy(c, s, len);
    c[len] = 0;
    return c;
}

static void f_vtinit(int *ierr)
{
    *ierr = VT_init();
}
VT_FORTRAN(VTINIT, vtinit)

static void f_vtfini(int *ierr)
{
    *ierr = VT_finalize();
}
VT_FORTRAN(VTFINI, vtfini)
VT_FORTRAN_AS(VTFINALIZE, vtfinalize, f_vtfini)

static void f_vtgetrank(int *rank, int *ierr)
{
    *ierr = VT_getrank(rank);
}
VT_FORTRAN(VTGETRANK, vtgetrank)

static void f_vttraceon(void)
{
    VT_traceon();
}
VT_FORTRAN(VTTRACEON, vttraceon)

static void f_vttraceoff(void)
{
    VT_traceoff();
}
VT_FORTRAN(VTTRACEOFF, vttraceoff)

static void f_vttracestate(int *state, int *ierr)
{
    *ierr = VT_tracestate(state);
}
VT_FORTRAN(VTTRACESTATE, vttracestate)

static void f_vtflush(int *ierr)
{
    *ierr = VT_flush();
}
VT_FORTRAN(VTFLUSH, vtflush)

static double f_vttimestamp(void)
{
    return VT_timestamp();
}
VT_FORTRAN(VTTIMESTAMP, vttimestamp)

static double f_vttimestart(void)
{
    return VT_timestart();
}
VT_FORTRAN(VTTIMESTART, vttimestart)

static void f_vtclassdef(const char *name, int *handle, int *ierr, size_t len)
{
    char *c = cstr(name, len);
    *ierr = c ? VT_classdef(c, handle) : VT_ERR_NOMEMORY;
    free(c);
}
VT_FORTRAN(VTCLASSDEF, vtclassdef)

static void f_vtfuncdef(const char *name, int *cls, int *handle, int *ierr, size_t len)
{
    char *c = cstr(name, len);
    *ierr = c ? VT_funcdef(c, *cls, handle) : VT_ERR_NOMEMORY;
    free(c);
}
VT_FORTRAN(VTFUNCDEF, vtfuncdef)

static void f_vtenter(int *state, int *scl, int *ierr)
{
    *ierr = VT_enter(*state, *scl);
}
VT_FORTRAN(VTENTER, vtenter)

static void f_vtleave(int *scl, int *ierr)
{
    *ierr = VT_leave(*scl);
}
VT_FORTRAN(VTLEAVE, vtleave)

static void f_vtbegin(int *state, int *ierr)
{
    *ierr = VT_begin(*state);
}
VT_FORTRAN(VTBEGIN, vtbegin)

static void f_vtend(int *state, int *ierr)
{
    *ierr = VT_end(*state);
}
VT_FORTRAN(VTEND, vtend)

static void f_vtscldef(const char *file, int *line, int *handle, int *ierr, size_t len)
{
    char *c = cstr(file, len);
    *ierr = c ? VT_scldef(c, *line, handle) : VT_ERR_NOMEMORY;
    free(c);
}
VT_FORTRAN(VTSCLDEF, vtscldef)

static void f_vtthisloc(int *scl, int *ierr)
{
    *ierr = VT_thisloc(*scl);
}
VT_FORTRAN(VTTHISLOC, vtthisloc)

static void f_vtcommdef(int *comid, int *numprocs, int *ranks, int *ierr)
{
    *ierr = VT_commdef(*comid, *numprocs, ranks);
}
VT_FORTRAN(VTCOMMDEF, vtcommdef)

static void f_vtlogsendmsg(int *other, int *count, int *tag, int *commid, int *scl, int *ierr)
{
    *ierr = VT_log_sendmsg(*other, *count, *tag, *commid, *scl);
}
VT_FORTRAN(VTLOGSENDMSG, vtlogsendmsg)

static void f_vtlogrecvmsg(int *other, int *count, int *tag, int *commid, int *scl, int *ierr)
{
    *ierr = VT_log_recvmsg(*other, *count, *tag, *commid, *scl);
}
VT_FORTRAN(VTLOGRECVMSG, vtlogrecvmsg)

static void f_vtlogmsgevent(int *sender, int *receiver, int *count, int *tag, int *commid,
                            double *sendts, int *sendscl, int *recvscl, int *ierr)
{
    *ierr = VT_log_msgevent(*sender, *receiver, *count, *tag, *commid, *sendts, *sendscl, *recvscl);
}
VT_FORTRAN(VTLOGMSGEVENT, vtlogmsgevent)

static void f_vtlogop(int *opid, int *commid, int *root, int *bsend, int *brecv, double *startts,
                      int *scl, int *ierr)
{
    *ierr = VT_log_op(*opid, *commid, *root, *bsend, *brecv, *startts, *scl);
}
VT_FORTRAN(VTLOGOP, vtlogop)

static void f_vtlogopevent(int *opid, int *commid, int *root, int *numprocs, int *bsend,
                           int *brecv, double *startts, int *scl, int *ierr)
{
    *ierr = VT_log_opevent(*opid, *commid, *root, *numprocs, bsend, brecv, startts, *scl);
}
VT_FORTRAN(VTLOGOPEVENT, vtlogopevent)

static void f_vtbeginunordered(int *ierr)
{
    *ierr = VT_begin_unordered();
}
VT_FORTRAN(VTBEGINUNORDERED, vtbeginunordered)

static void f_vtendunordered(int *ierr)
{
    *ierr = VT_end_unordered();
}
VT_FORTRAN(VTENDUNORDERED, vtendunordered)
/* The reference spells it so. */
VT_FORTRAN_AS(VTENDNORDERED, vtendnordered, f_vtendunordered)

static void f_vtcountdef(const char *name, int *cls, int *genre, int *scope, const void *bounds,
                         const char *unit, int *handle, int *ierr, size_t lname, size_t lunit)
{
    char *n = cstr(name, lname), *u = cstr(unit, lunit);
    *ierr = n && u ? VT_countdef(n, *cls, *genre, *scope, bounds, u, handle) : VT_ERR_NOMEMORY;
    free(n), free(u);
}
VT_FORTRAN(VTCOUNTDEF, vtcountdef)

static void f_vtcountval(int *num, int *handles, void *values, int *ierr)
{
    *ierr = VT_countval(*num, handles, values);
}
VT_FORTRAN(VTCOUNTVAL, vtcountval)

static void f_vtregisterthread(int *thindex, int *ierr)
{
    *ierr = VT_registerthread(*thindex);
}
VT_FORTRAN(VTREGISTERTHREAD, vtregisterthread)

static void f_vtregisternamed(const char *name, int *thindex, int *ierr, size_t len)
{
    char *c = cstr(name, len);
    *ierr = c ? VT_registernamed(c, *thindex) : VT_ERR_NOMEMORY;
    free(c);
}
VT_FORTRAN(VTREGISTERNAMED, vtregisternamed)

static void f_vtlogcomment(const char *text, int *ierr, size_t len)
{
    char *c = cstr(text, len);
    *ierr = c ? VT_log_comment(c) : VT_ERR_NOMEMORY;
    free(c);
}
VT_FORTRAN(VTLOGCOMMENT, vtlogcomment)
