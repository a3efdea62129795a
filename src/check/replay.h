/* Private to the check module. The events each rank records for the
 * analyses after the fact at MPI_Finalize (replay.c records and exchanges
 * them; replay_run.c replays them), and what rank 0 tells every rank back.
 * Plain data: the events travel between ranks as bytes.
 */
#ifndef MSC_CHECK_REPLAY_H
#define MSC_CHECK_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "findings_io.h"

enum { RP_SEND = 1, RP_RECV, RP_COLL, RP_WAIT };

/* ev_t.flags */
enum {
    RP_ANY_SOURCE = 1, /* RECV: posted with MPI_ANY_SOURCE */
    RP_ANY_TAG = 2,    /* RECV: posted with MPI_ANY_TAG */
    RP_ROOT = 4,       /* COLL: this rank is the root */
};

typedef struct {
    uint8_t op, mode;  /* RP_*; chk_rp_mode_t (WAIT: 1 for any, 0 for all) */
    uint16_t flags;
    int32_t fn;        /* msc_fn_t */
    int32_t peer;      /* RECV: the matched sender's world rank (-1: unknown); COLL: members;
                        * WAIT: refs (-1: unknown, completes) */
    uint32_t ref;      /* RECV: the sender's event; WAIT: first of its refs */
    uint64_t key;      /* COLL: the members' key and the instance; RECV: the communicator
                        * handle (compared on this rank only) */
    int32_t tag;       /* RECV: the matched message's tag; COLL: this rank's rank in it */
    int32_t ptag;      /* RECV: the tag posted (unless RP_ANY_TAG) */
    uint64_t site;     /* the call's return address in its rank (compared, never followed,
                        * by another rank) */
} rp_ev_t;

/* What a rank sends rank 0 before its events. */
typedef struct {
    uint32_t nev, nrefs;
    int32_t skipped;   /* its events cannot be replayed */
    int32_t unordered; /* a call that orders ranks was not recorded: no race verdicts */
} rp_header_t;

typedef struct {
    int rank;
    uint32_t at;
    int32_t fn;        /* in a verdict: the event's call (msc_fn_t) */
} rp_where_t;

enum { RP_CYCLES_MAX = 8, RP_CYCLE_RANKS = 16, RP_RACES_MAX = 8 };

/* Rank 0's verdict, sent to every rank: each names its own calls. */
typedef struct {
    int ncycles;
    int len[RP_CYCLES_MAX];
    rp_where_t at[RP_CYCLES_MAX][RP_CYCLE_RANKS];
    char text[RP_CYCLES_MAX][CHK_TEXT];
    /* Message races: the wildcard receive, the send it took, and another
     * send that could have been taken instead. */
    int nraces;
    rp_where_t race[RP_RACES_MAX][3];
    char race_text[RP_RACES_MAX][CHK_TEXT];
    uint64_t race_count[RP_RACES_MAX]; /* races at the same receive call */
} rp_verdict_t;

/* Replays the events of `nranks` ranks (headers, then each rank's events
 * and refs back to back in `blob`) into `v`. */
void chk_rp_analyze(const rp_header_t *h, const char *blob, int nranks, rp_verdict_t *v)
    __attribute__((visibility("hidden")));

#endif
