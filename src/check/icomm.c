/* Nonblocking communicator constructors in check mode (MPI_Comm_idup,
 * MPI_Comm_idup_with_info; kind ICOMM).
 *
 * The new communicator does not exist until the request completes (MPI-3.1
 * 5.4.2, MPI-4.0 7.4.2): before that it may not be asked anything (MPICH
 * fails with an internal error if its group is asked for), so the registry
 * learns it from the completion, where the core reads the application's
 * handle (msc_done_t.newcomm). Its shadows cannot be made there with
 * PMPI_Comm_create, a blocking collective: the members complete the request
 * in different calls, and a member blocked in the tool's create while
 * another waits for that member's next message would hang a correct program.
 * So, in the application's own MPI_Comm_idup call, every member starts
 * PMPI_Comm_idup of each of the parent's shadows: nonblocking, at the same
 * place in the parent's collective order on every member (right after the
 * application's idup of the parent), and copying no attribute of the
 * application (the shadows carry none). When the application's request
 * completes at one member, all members have made their MPI_Comm_idup call
 * and so started the tool's, which then need nothing more of the
 * application to complete: the wait for them at completion only waits for
 * MPI's progress. A parent without shadows (not known to the registry, or
 * whose shadows could not be made) gives a new communicator without shadows:
 * registered, but the checks across ranks skip it (p2p.c, global.c).
 *
 * Pending constructions are kept in a short list keyed by the core's request
 * id; a request the application frees without completing leaves its entry
 * (and the tool's requests) until the end of the run.
 */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

enum { SHADOWS = 3 }; /* coll, p2p, ack: chk_comm_add_shadowed's order */

typedef struct pending {
    struct pending *next;
    uint64_t id;                 /* the core's id of the application's request */
    MPI_Comm made[SHADOWS];      /* the tool's new shadows (valid once reqs complete) */
    MPI_Request reqs[SHADOWS];
} pending_t;

static pthread_mutex_t pending_mu = PTHREAD_MUTEX_INITIALIZER;
static pending_t *pending;

void chk_icomm_posted(const msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS || !c->req_id) return;
    MPI_Comm from[SHADOWS] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    chk_lock();
    chk_comm_t *e = c->comm != MPI_COMM_NULL ? chk_comm_find(c->comm) : NULL;
    if (e) {
        from[0] = e->coll_shadow;
        from[1] = e->p2p_shadow;
        from[2] = e->ack_shadow;
    }
    chk_unlock();
    if (from[0] == MPI_COMM_NULL && from[1] == MPI_COMM_NULL && from[2] == MPI_COMM_NULL) return;
    pending_t *p = calloc(1, sizeof *p);
    if (!p) return;
    p->id = c->req_id;
    for (int i = 0; i < SHADOWS; i++) {
        p->made[i] = MPI_COMM_NULL;
        p->reqs[i] = MPI_REQUEST_NULL;
        /* Every member has the same shadows (made together), so every
         * member starts the same idups in the same order. */
        if (from[i] != MPI_COMM_NULL &&
            PMPI_Comm_idup(from[i], &p->made[i], &p->reqs[i]) != MPI_SUCCESS) {
            p->made[i] = MPI_COMM_NULL;
            p->reqs[i] = MPI_REQUEST_NULL;
        }
    }
    pthread_mutex_lock(&pending_mu);
    p->next = pending;
    pending = p;
    pthread_mutex_unlock(&pending_mu);
}

void chk_icomm_completed(const msc_done_t *d)
{
    if (d->info.kind != MSC_KIND_ICOMM || !d->info.id || d->newcomm == MPI_COMM_NULL) return;
    pthread_mutex_lock(&pending_mu);
    pending_t **pp = &pending;
    while (*pp && (*pp)->id != d->info.id) pp = &(*pp)->next;
    pending_t *p = *pp;
    if (p) *pp = p->next;
    pthread_mutex_unlock(&pending_mu);
    MPI_Comm made[SHADOWS] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    if (p) {
        MPI_Status st[SHADOWS]; /* not MPI_STATUSES_IGNORE: MPICH's mpi.h gives it a size of 0 */
        if (PMPI_Waitall(SHADOWS, p->reqs, st) == MPI_SUCCESS)
            for (int i = 0; i < SHADOWS; i++) made[i] = p->made[i];
        free(p);
    }
    chk_comm_add_shadowed(d->newcomm, d->info.fn, d->info.site, made);
}
