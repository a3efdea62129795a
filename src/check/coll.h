/* Private to the collective checks: what global.c (the descriptors of a
 * member's collective calls and their judgement) and coll_agree.c (the
 * members' agreements, comparisons and exchanges over the shadow, none of
 * which ever waits for a member the application's own call would not wait
 * for) share.
 */
#ifndef MSC_CHECK_COLL_H
#define MSC_CHECK_COLL_H

#include "check.h"

/* What a member passes to one collective: function, root, operation and
 * the type signature of its data blocks, where the standard says they are
 * significant. */
typedef struct coll {
    int32_t fn, root, sok, rok;
    int64_t op;
    chk_sig_t s, r;
    int32_t rank;     /* world rank */
    int32_t vform;    /* a vector form: its blocks are judged by psig/pbytes */
    /* Vector forms: this member's share of the sums over every (sender,
     * receiver) pair of + hash(what the sender sends) - hash(what the
     * receiver expects), of the signature and of its size alone (pairs()).
     * The members' shares add up to 0 when every block matches. loose: a
     * block of unknown signature (no verdict). */
    uint64_t psig, pbytes;
    int32_t loose, pad;
    uint64_t seq;     /* instance number on the communicator (not hashed) */
} coll_t;

/* Judges one instance from every member's descriptor (in communicator
 * order); this member reports its part. True if a mismatch was found. */
bool chk_coll_judge(const coll_t *all, int n, uint64_t key, msc_fn_t fn, void *site) CHK_INTERNAL;

/* The key that groups every member's part of one instance into one finding. */
static inline uint64_t chk_coll_key(const chk_comm_t *e, uint64_t seq)
{
    return (e->key ^ seq) * 0x100000001b3ull;
}

/* coll_agree.c, all with e->coll_mu held (e: intracommunicator, shadow,
 * size > 1). */

/* The agreement before one of the first blocking collectives: `h` the
 * hash of this member's descriptor `me` (me->seq its instance), `unsure`
 * when the hash cannot stand for it. When
 * the collective waits for every member (`everyone`), it is judged before
 * the call; otherwise posted and judged when complete (at most 1 s now). */
void chk_agree(chk_comm_t *e, uint64_t h, bool unsure, const coll_t *me, void *site,
               bool everyone) CHK_INTERNAL;
/* Pending agreements, comparisons and exchanges of e advanced (never
 * waiting), or, with `everyone` (the collective being entered waits for
 * every member), the pending agreements waited for, at most 10 s. */
void chk_coll_step(chk_comm_t *e, bool everyone) CHK_INTERNAL;
/* The log (coll_t's e->log...) compared among the members: posted now,
 * judged when complete; the log starts again empty. */
void chk_coll_compare(chk_comm_t *e) CHK_INTERNAL;

#endif
