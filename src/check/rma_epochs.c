/* One-sided synchronization calls against the epochs this process has open
 * on the window (MPI-3.1 section 11.5): an epoch opened where one it must be
 * disjoint from is open, and an epoch closed or flushed that is not open.
 *
 *   LOCAL:RMA:EPOCH_TWICE  MPI_Win_lock of a target this process has locked
 *                          already, or that its MPI_Win_lock_all or open
 *                          MPI_Win_start covers ("each access epoch must
 *                          target a different process", 11.5.3; "distinct
 *                          access epochs for win at the same process must be
 *                          disjoint", 11.5); MPI_Win_lock_all over a lock,
 *                          another lock_all or an open start; MPI_Win_start
 *                          over an open start, a lock_all or a lock of one of
 *                          its targets; MPI_Win_post over an open post
 *                          (exposure epochs likewise) or over this process's
 *                          own lock on itself, and a lock of itself while
 *                          its post is open ("it is erroneous to call
 *                          MPI_WIN_POST while the local window is locked",
 *                          11.5.3).
 *   LOCAL:RMA:NO_EPOCH     MPI_Win_unlock of a target not locked,
 *                          MPI_Win_unlock_all without MPI_Win_lock_all,
 *                          MPI_Win_complete without MPI_Win_start,
 *                          MPI_Win_wait without MPI_Win_post,
 *                          and the flushes outside a passive-target epoch of
 *                          their target (11.5.4: "can be called only within
 *                          passive target epochs").
 *
 * Design. rma.c keeps each window's epochs as this process's own calls show
 * them and calls chk_rma_epochs at the enter of every synchronization call,
 * before it updates them, with a view of that state (chk_epochs_t); the
 * start's targets are its group already translated to the window's ranks.
 * Locks other processes hold, and posts of other processes, are not seen:
 * a lock of a target whose post is open there is not judged. Both MPIs
 * reject most of these calls themselves (MPI_ERR_RMA_SYNC), which under
 * MPI_ERRORS_ARE_FATAL ends the job; the finding is recorded before the call,
 * with the rule, and the application's call goes on unchanged.
 */
#include <stdio.h>

#include "check.h"

static bool locked(const chk_epochs_t *e, int t)
{
    return e->locks && t >= 0 && t < e->size && e->locks[t];
}

static int first_lock(const chk_epochs_t *e, const unsigned char *among)
{
    for (int t = 0; e->locks && t < e->size; t++)
        if (e->locks[t] && (!among || among[t])) return t;
    return -1;
}

static void twice(const msc_call_t *c, const char *what, const char *rule)
{
    chk_report("LOCAL:RMA:EPOCH_TWICE", c->fn, c->site,
               "%s opens an epoch on the window while %s. %s Close the open epoch first "
               "(MPI_Win_unlock, MPI_Win_unlock_all, MPI_Win_complete, MPI_Win_wait).",
               msc_fn_name[c->fn], what, rule);
}

static const char *ACCESS_RULE =
    "Access epochs of one process on a window must be disjoint, and several locks may be held "
    "at once only on different targets (MPI-3.1 sections 11.5 and 11.5.3).";

static void open_epoch(const msc_call_t *c, const chk_epochs_t *e)
{
    char what[160];
    int t = c->peer;
    switch (c->fn) {
    case MSC_FN_MPI_Win_lock:
        if (t == MPI_PROC_NULL) return;
        if (locked(e, t))
            snprintf(what, sizeof what, "this process holds a lock on target %d already", t);
        else if (e->lock_all)
            snprintf(what, sizeof what, "its MPI_Win_lock_all, which covers target %d, is open", t);
        else if (e->start_open && e->ingroup && t >= 0 && t < e->size && e->ingroup[t])
            snprintf(what, sizeof what, "its MPI_Win_start, whose group holds target %d, is open",
                     t);
        else if (t == e->rank && e->post_open) {
            twice(c, "this process's own window, the target, is exposed by its open MPI_Win_post",
                  "A window may not be locked while it is exposed: it is erroneous to call "
                  "MPI_Win_post while the local window is locked (MPI-3.1 section 11.5.3), and "
                  "to lock a window whose process has called MPI_Win_post and not yet "
                  "MPI_Win_wait.");
            return;
        } else
            return;
        twice(c, what, ACCESS_RULE);
        return;
    case MSC_FN_MPI_Win_lock_all:
        if (e->lock_all)
            snprintf(what, sizeof what, "its MPI_Win_lock_all is open already");
        else if ((t = first_lock(e, NULL)) >= 0)
            snprintf(what, sizeof what, "this process holds a lock on target %d", t);
        else if (e->start_open)
            snprintf(what, sizeof what, "its MPI_Win_start is open");
        else
            return;
        twice(c, what, ACCESS_RULE);
        return;
    case MSC_FN_MPI_Win_start:
        if (e->start_open)
            snprintf(what, sizeof what,
                     "the access epoch of its previous MPI_Win_start is open (no "
                     "MPI_Win_complete)");
        else if (e->lock_all)
            snprintf(what, sizeof what, "its MPI_Win_lock_all is open");
        else if ((t = first_lock(e, e->ingroup)) >= 0)
            snprintf(what, sizeof what,
                     "this process holds a lock on target %d, which the start's group holds", t);
        else
            return;
        twice(c, what, ACCESS_RULE);
        return;
    case MSC_FN_MPI_Win_post:
        if (e->post_open)
            twice(c,
                  "the exposure epoch of its previous MPI_Win_post is open (no MPI_Win_wait or "
                  "successful MPI_Win_test)",
                  "Exposure epochs of one process on a window must be disjoint (MPI-3.1 "
                  "section 11.5).");
        else if (locked(e, e->rank) || e->lock_all)
            twice(c, "this process holds a lock on its own window",
                  "It is erroneous to call MPI_Win_post while the local window is locked "
                  "(MPI-3.1 section 11.5.3).");
        return;
    default:
        return;
    }
}

static void no_epoch(const msc_call_t *c, const char *what, const char *rule)
{
    chk_report("LOCAL:RMA:NO_EPOCH", c->fn, c->site, "%s %s. %s", msc_fn_name[c->fn], what, rule);
}

static void close_epoch(const msc_call_t *c, const chk_epochs_t *e)
{
    char what[200];
    int t = c->peer;
    bool passive = e->lock_all || first_lock(e, NULL) >= 0;
    switch (c->fn) {
    case MSC_FN_MPI_Win_unlock:
        if (t == MPI_PROC_NULL || locked(e, t)) return;
        snprintf(what, sizeof what,
                 "of target %d, which this process has not locked with MPI_Win_lock%s", t,
                 e->lock_all ? " (its MPI_Win_lock_all is closed by MPI_Win_unlock_all)" : "");
        no_epoch(c, what,
                 "MPI_Win_unlock completes the epoch a matching MPI_Win_lock of the same target "
                 "started (MPI-3.1 section 11.5.3).");
        return;
    case MSC_FN_MPI_Win_unlock_all:
        if (e->lock_all) return;
        no_epoch(c, "was called without an open MPI_Win_lock_all",
                 "A window locked with MPI_Win_lock_all must be unlocked with "
                 "MPI_Win_unlock_all, and only such a window (MPI-3.1 section 11.5.3).");
        return;
    case MSC_FN_MPI_Win_complete:
        if (e->start_open) return;
        no_epoch(c, "was called without an open MPI_Win_start",
                 "MPI_Win_complete completes the access epoch MPI_Win_start began (MPI-3.1 "
                 "section 11.5.2).");
        return;
    case MSC_FN_MPI_Win_wait:
        if (e->post_open) return;
        no_epoch(c, "was called without an open MPI_Win_post",
                 "MPI_Win_wait completes the exposure epoch MPI_Win_post began (MPI-3.1 "
                 "section 11.5.2).");
        return;
    case MSC_FN_MPI_Win_flush:
    case MSC_FN_MPI_Win_flush_local:
        if (t == MPI_PROC_NULL || locked(e, t) || e->lock_all) return;
        snprintf(what, sizeof what,
                 "of target %d was called outside a passive-target epoch of that target (no "
                 "MPI_Win_lock of it, no MPI_Win_lock_all)",
                 t);
        no_epoch(c, what,
                 "The flushes can be called only within passive target epochs (MPI-3.1 "
                 "section 11.5.4).");
        return;
    case MSC_FN_MPI_Win_flush_all:
    case MSC_FN_MPI_Win_flush_local_all:
        if (passive) return;
        no_epoch(c,
                 "was called outside any passive-target epoch (no MPI_Win_lock, no "
                 "MPI_Win_lock_all)",
                 "The flushes can be called only within passive target epochs (MPI-3.1 "
                 "section 11.5.4).");
        return;
    default:
        return;
    }
}

void chk_rma_epochs(const msc_call_t *c, const chk_epochs_t *e)
{
    open_epoch(c, e);
    close_epoch(c, e);
}
