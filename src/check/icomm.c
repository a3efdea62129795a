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
 * PMPI_Comm_idup of the parent's shadow and, on the same shadow, a
 * PMPI_Iallreduce (MIN) of its own answer to "one more communicator of the
 * tool's fits the budget" (objects.c): both nonblocking, at the same place in
 * the parent's collective order on every member (right after the
 * application's idup of the parent), and copying no attribute of the
 * application (the shadow carries none). When the application's request
 * completes at one member, all members have made their MPI_Comm_idup call
 * and so started the tool's, which then need nothing more of the
 * application: the wait for them at completion only waits for MPI's
 * progress. Every member then keeps the new shadow, or every member frees it
 * (the agreement, as chk_shadow_new makes it for blocking constructors). An
 * intercommunicator parent's shadow is an intercommunicator, whose reduction
 * gives each group the other's answers: its new shadow is kept when the idup
 * succeeds (MPI fails it on every member alike). A parent without a shadow
 * (not known to the registry, or made without room) gives a new
 * communicator without one: registered, but the checks across ranks skip it
 * (p2p.c, global.c).
 *
 * Pending constructions are kept in a short list keyed by the core's request
 * id; a request the application frees without completing leaves its entry
 * (and the tool's requests) until the end of the run.
 */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

typedef struct pending {
    struct pending *next;
    uint64_t id;            /* the core's id of the application's request */
    MPI_Comm made;          /* the tool's new shadow (valid once reqs[0] completes) */
    bool inter;             /* the parent's shadow is an intercommunicator */
    int room, all;          /* this member's answer; the MIN over the members */
    MPI_Request reqs[2];    /* the idup, the agreement */
} pending_t;

static pthread_mutex_t pending_mu = PTHREAD_MUTEX_INITIALIZER;
static pending_t *pending;

void chk_icomm_posted(const msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS || !c->req_id) return;
    MPI_Comm from = MPI_COMM_NULL;
    chk_lock();
    chk_comm_t *e = c->comm != MPI_COMM_NULL ? chk_comm_find(c->comm) : NULL;
    if (e) from = e->shadow;
    chk_unlock();
    if (from == MPI_COMM_NULL) return;
    pending_t *p = calloc(1, sizeof *p);
    if (!p) return;
    p->id = c->req_id;
    p->made = MPI_COMM_NULL;
    p->reqs[0] = p->reqs[1] = MPI_REQUEST_NULL;
    int inter = 0;
    PMPI_Comm_test_inter(from, &inter);
    p->inter = inter;
    p->room = chk_shadow_room();
    p->all = 0;
    /* Every member has the same shadow (made together), so every member
     * starts the same two operations on it in the same order. */
    if (PMPI_Comm_idup(from, &p->made, &p->reqs[0]) != MPI_SUCCESS) {
        p->made = MPI_COMM_NULL;
        p->reqs[0] = MPI_REQUEST_NULL;
    }
    if (!inter && PMPI_Iallreduce(&p->room, &p->all, 1, MPI_INT, MPI_MIN, from, &p->reqs[1]) !=
                      MPI_SUCCESS)
        p->reqs[1] = MPI_REQUEST_NULL;
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
    MPI_Comm shadow = MPI_COMM_NULL;
    if (p) {
        MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: MPICH's mpi.h gives it a size of 0 */
        bool ok = PMPI_Waitall(2, p->reqs, st) == MPI_SUCCESS && p->made != MPI_COMM_NULL;
        shadow = p->made;
        if (!chk_shadow_adopt(&shadow, ok && (p->inter || p->all))) shadow = MPI_COMM_NULL;
        free(p);
    }
    chk_comm_add_shadowed(d->newcomm, d->info.fn, d->info.site, true, shadow);
}
