/* Tests of check mode's allocator interposer (src/heap), without MPI: the
 * program runs with libmpiscope-heap.so preloaded (run.sh) and asks it, by
 * msc_heap_find, for the blocks it made. One case per run:
 *
 *   kinds      every allocation function: start, size and site exact,
 *              interior addresses found, one past the end and freed not
 *   early      a block made by a constructor, before main
 *   threads    4 threads allocating and freeing, a quarter of the blocks
 *              freed by another thread than their maker: the live set exact
 *   gather     8 threads' logs of 1,000 entries each, drained at once
 *   reuse      300 threads one after the other: logs are reused
 *   fork       a child finds its parent's blocks and its own, while a
 *              thread of the parent was allocating at the fork
 *   signal     a signal handler that looks up, interrupting the
 *              interposer and its lock: no deadlock, blocks still exact
 *   unknown    a free of a block the interposer never saw (glibc's own
 *              entry point) is counted, not applied
 *   many       100,000 live blocks, every one found
 *   freed      a freed block is found by msc_heap_find_freed with its
 *              allocating and freeing calls (free, realloc moving it, one
 *              born and freed between two look-ups), interior bytes too;
 *              one handed out again by malloc is not; of 5,000 freed
 *              blocks the oldest are forgotten and the last 4,096 kept;
 *              a freed block of 256 KiB (glibc unmaps it) is not kept
 *
 * MSC_HEAP_EXPECT=inactive (run.sh sets it when a sanitizer runtime is
 * preloaded first): the interposer must then see nothing, and the program
 * must run as without it.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/heap/heap.h"

static msc_heap_find_fn find;
static msc_heap_stats_fn stats;
static msc_heap_find_freed_fn find_freed;
static int failures;

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: FAIL %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* The block at p must be exactly [p, p + size), made in this program. */
static void expect_block(const void *p, uint64_t size, const char *what)
{
    msc_heap_block_t b;
    uintptr_t a = (uintptr_t)p;
    EXPECT(find(a, &b), "%s: %p not found", what, p);
    if (!find(a, &b)) return;
    EXPECT(b.start == a && b.size == size, "%s: block [%#lx, +%lu), expected [%p, +%lu)", what,
           (unsigned long)b.start, (unsigned long)b.size, p, (unsigned long)size);
    Dl_info di;
    EXPECT(b.site && dladdr((void *)b.site, &di) && strstr(di.dli_fname, "heap_test"),
           "%s: site %#lx is not in the test program", what, (unsigned long)b.site);
    if (size > 1) {
        EXPECT(find(a + size - 1, &b) && b.start == a, "%s: last byte not in the block", what);
        EXPECT(find(a + size / 2, &b) && b.start == a, "%s: middle not in the block", what);
    }
}

/* No block may start at a (a freed block's address). */
static void expect_none(uintptr_t a, const char *what)
{
    msc_heap_block_t b;
    int found = find(a, &b);
    EXPECT(!found || b.start != a, "%s: %#lx still found (block %#lx +%lu)", what,
           (unsigned long)a, (unsigned long)b.start, (unsigned long)b.size);
}

static int case_kinds(void)
{
    char *m = malloc(100);
    if (m) memset(m, 1, 100);
    uintptr_t ma0 = (uintptr_t)m;
    expect_block(m, 100, "malloc");
    msc_heap_block_t b;
    EXPECT(!find(ma0 + 100, &b) || b.start != ma0, "one past the end found");
    int *c = calloc(25, sizeof *c);
    expect_block(c, 100, "calloc");
    char *r = realloc(m, 5000); /* moves, most likely */
    expect_block(r, 5000, "realloc");
    if ((uintptr_t)r != ma0) expect_none(ma0, "realloc's old block");
    double *ra = reallocarray(NULL, 7, sizeof(double));
    expect_block(ra, 56, "reallocarray");
    void *pm = NULL;
    EXPECT(posix_memalign(&pm, 256, 300) == 0, "posix_memalign failed");
    expect_block(pm, 300, "posix_memalign");
    void *aa = aligned_alloc(64, 128);
    expect_block(aa, 128, "aligned_alloc");
    void *ma = memalign(128, 77);
    expect_block(ma, 77, "memalign");
    void *va = valloc(10);
    expect_block(va, 10, "valloc");
    void *z = malloc(0);
    if (z) EXPECT(find((uintptr_t)z, &b) && b.start == (uintptr_t)z && b.size == 0,
                  "malloc(0)'s block not found with size 0");
    void *gone = malloc(64);
    uintptr_t ga = (uintptr_t)gone;
    free(gone);
    expect_none(ga, "a freed block");
    uintptr_t ra0 = (uintptr_t)r;
    char *shrink = realloc(r, 0);
    (void)shrink;
    expect_none(ra0, "realloc(p, 0)'s block");
    free(c);
    free(ra);
    free(pm);
    free(aa);
    free(ma);
    free(va);
    free(z);
    return 0;
}

static void *early;
__attribute__((constructor)) static void make_early(void) { early = malloc(333); }

static int case_early(void)
{
    expect_block(early, 333, "a constructor's block");
    return 0;
}

enum { THREADS = 4, PER = 20000 };
static void *handoff[THREADS][PER / 4];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    void *keep[64] = {0};
    for (int i = 0; i < PER; i++) {
        size_t n = 16 + (size_t)((i * 7 + id) % 500);
        void *p = malloc(n);
        if (i % 4 == 0) {
            handoff[id][i / 4] = p; /* freed by the next thread */
        } else if (i % 4 == 1) {
            int k = i % 64;
            free(keep[k]);
            keep[k] = p;
        } else {
            free(p);
        }
    }
    for (int k = 0; k < 64; k++) free(keep[k]);
    return NULL;
}

static void *freer(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < PER / 4; i++)
        if (i % 10) { /* every tenth stays live, checked by main */
            free(handoff[id][i]);
            handoff[id][i] = NULL;
        }
    return NULL;
}

static int case_threads(void)
{
    msc_heap_stats_t before, after;
    stats(&before);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, freer, (void *)(intptr_t)((i + 1) % THREADS));
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    int kept = 0;
    for (int id = 0; id < THREADS; id++)
        for (int i = 0; i < PER / 4; i++)
            if (handoff[id][i]) {
                kept++;
                expect_block(handoff[id][i], 16 + (size_t)((i * 4 * 7 + id) % 500), "a kept block");
            }
    stats(&after);
    if (failures)
        fprintf(stderr, "stats: live %lu allocs %lu frees %lu unknown frees %lu drains %lu logs %lu\n",
                (unsigned long)after.live, (unsigned long)after.allocs, (unsigned long)after.frees,
                (unsigned long)after.unknown_frees, (unsigned long)after.drains,
                (unsigned long)after.logs);
    /* glibc keeps finished threads' TLS vectors for reuse: a few more. */
    EXPECT(after.live - before.live >= (uint64_t)kept &&
               after.live - before.live <= (uint64_t)kept + 4 * THREADS,
           "live blocks grew by %lu, %d kept", (unsigned long)(after.live - before.live), kept);
    return 0;
}

/* 8 threads, alive at once (8 logs), each with 1,000 blocks not yet
 * drained (its log holds 1,024): the first look-up gathers 8,000 entries
 * from 8 logs in one drain. */
enum { GATHER_T = 8, GATHER_N = 1000 };
static void *gathered[GATHER_T][GATHER_N];
static pthread_barrier_t all_made;

static void *make_many(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < GATHER_N; i++) gathered[id][i] = malloc(8 + (size_t)((i + id) % 64));
    pthread_barrier_wait(&all_made); /* made */
    pthread_barrier_wait(&all_made); /* looked up */
    return NULL;
}

static int case_gather(void)
{
    pthread_t t[GATHER_T];
    pthread_barrier_init(&all_made, NULL, GATHER_T + 1);
    for (int i = 0; i < GATHER_T; i++) pthread_create(&t[i], NULL, make_many, (void *)(intptr_t)i);
    pthread_barrier_wait(&all_made);
    int bad = 0;
    msc_heap_block_t b;
    for (int id = 0; id < GATHER_T; id++)
        for (int i = 0; i < GATHER_N; i++)
            if (!find((uintptr_t)gathered[id][i], &b) || b.size != 8 + (uint64_t)((i + id) % 64))
                bad++;
    EXPECT(bad == 0, "%d of %d blocks gathered from %d logs not found exactly", bad,
           GATHER_T * GATHER_N, GATHER_T);
    pthread_barrier_wait(&all_made);
    for (int i = 0; i < GATHER_T; i++) pthread_join(t[i], NULL);
    return 0;
}

static void *one_block(void *arg)
{
    *(void **)arg = malloc(48);
    return NULL;
}

static int case_reuse(void)
{
    static void *blocks[300];
    for (int i = 0; i < 300; i++) {
        pthread_t t;
        pthread_create(&t, NULL, one_block, &blocks[i]);
        pthread_join(t, NULL);
    }
    for (int i = 0; i < 300; i++) expect_block(blocks[i], 48, "a finished thread's block");
    msc_heap_stats_t s;
    stats(&s);
    EXPECT(s.logs <= 3, "%lu logs for threads that ran one at a time", (unsigned long)s.logs);
    return 0;
}

static volatile int stop;
static void *churn(void *arg)
{
    (void)arg;
    while (!stop) free(malloc(32));
    return NULL;
}

static int case_fork(void)
{
    void *mine = malloc(1234);
    pthread_t t;
    pthread_create(&t, NULL, churn, NULL);
    usleep(20000);
    for (int round = 0; round < 20; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(20); /* a drain waiting for the parent's thread would hang */
            failures = 0;
            expect_block(mine, 1234, "the parent's block in the child");
            void *child = malloc(99);
            expect_block(child, 99, "the child's block");
            uintptr_t ca = (uintptr_t)child;
            free(child);
            expect_none(ca, "the child's freed block");
            _exit(failures ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d ended with status %#x", round, st);
    }
    stop = 1;
    pthread_join(t, NULL);
    expect_block(mine, 1234, "the parent's block after the forks");
    free(mine);
    return 0;
}

/* A handler that looks a block up, as the tool's crash-time writer might:
 * it interrupts the interposer inside its bookkeeping or holding the
 * drain's lock, and must be answered ("not known" there), never wait for a
 * lock its own thread holds. (It does not allocate: glibc's malloc is not
 * reentrant, with or without us.) */
static void *signal_block;
static volatile sig_atomic_t handled, answered;
static void on_alarm(int sig)
{
    (void)sig;
    msc_heap_block_t b;
    if (find((uintptr_t)signal_block, &b)) answered++;
    handled++;
}

static int case_signal(void)
{
    signal_block = malloc(40);
    signal(SIGALRM, on_alarm);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    void *keep[256] = {0};
    msc_heap_block_t b;
    for (int i = 0; i < 2000000 && handled < 2000; i++) {
        int k = i % 256;
        free(keep[k]);
        keep[k] = malloc(24 + (size_t)(k % 7));
        if (k == 0) find((uintptr_t)keep[k], &b); /* drains, under the lock */
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    EXPECT(handled > 0 && answered > 0, "the timer fired %d times, %d answered", (int)handled,
           (int)answered);
    expect_block(signal_block, 40, "the handler's block");
    free(signal_block);
    for (int k = 0; k < 256; k++) expect_block(keep[k], 24 + (size_t)(k % 7), "a block made between signals");
    for (int k = 0; k < 256; k++) free(keep[k]);
    return 0;
}

extern void *__libc_malloc(size_t);

static int case_unknown(void)
{
    msc_heap_stats_t a, b;
    stats(&a);
    void *p = __libc_malloc(80); /* glibc's own entry point: never seen */
    msc_heap_block_t blk;
    EXPECT(!find((uintptr_t)p, &blk), "a block never seen was found");
    free(p);
    stats(&b);
    EXPECT(b.unknown_frees == a.unknown_frees + 1, "unknown frees %lu -> %lu",
           (unsigned long)a.unknown_frees, (unsigned long)b.unknown_frees);
    return 0;
}

static int case_many(void)
{
    enum { N = 100000 };
    void **p = malloc(N * sizeof *p);
    for (int i = 0; i < N; i++) p[i] = malloc(8 + (size_t)(i % 100));
    for (int i = 0; i < N; i += 3) {
        free(p[i]);
        p[i] = NULL;
    }
    int bad = 0;
    msc_heap_block_t b;
    for (int i = 0; i < N; i++) {
        if (!p[i]) continue;
        uintptr_t a = (uintptr_t)p[i] + (size_t)(i % 8);
        if (!find(a, &b) || b.start != (uintptr_t)p[i] || b.size != 8 + (uint64_t)(i % 100)) bad++;
    }
    EXPECT(bad == 0, "%d of the live blocks not found exactly", bad);
    for (int i = 0; i < N; i++) free(p[i]);
    free(p);
    return 0;
}

/* The freed block at a must be exactly [a, a + size), both its sites in
 * this program. Addresses, not pointers: the compiler rightly objects to a
 * freed pointer's use. */
static void expect_freed(uintptr_t a, uint64_t size, const char *what)
{
    msc_heap_freed_t f;
    EXPECT(find_freed(a + size / 2, &f), "%s: %#lx not found freed", what, (unsigned long)a);
    if (!find_freed(a + size / 2, &f)) return;
    EXPECT(f.start == a && f.size == size, "%s: freed block [%#lx, +%lu), expected [%#lx, +%lu)",
           what, (unsigned long)f.start, (unsigned long)f.size, (unsigned long)a,
           (unsigned long)size);
    Dl_info di;
    EXPECT(f.site && dladdr((void *)f.site, &di) && strstr(di.dli_fname, "heap_test"),
           "%s: allocating site not in the test program", what);
    EXPECT(f.free_site && dladdr((void *)f.free_site, &di) && strstr(di.dli_fname, "heap_test"),
           "%s: freeing site not in the test program", what);
    EXPECT(f.site != f.free_site, "%s: the same site for both calls", what);
}

static int case_freed(void)
{
    msc_heap_block_t b;
    msc_heap_freed_t f;
    /* Freed after a look-up made it part of the index. */
    char *keep = malloc(16); /* keeps p's chunk from merging into the top */
    char *p = calloc(520, 1);
    uintptr_t pa = (uintptr_t)p;
    expect_block(p, 520, "before free");
    free(p);
    expect_freed(pa, 520, "free");
    EXPECT(!find(pa, &b) || b.start != pa, "a freed block found live");
    /* Handed out again: live, not freed. */
    char *q = calloc(520, 1);
    if ((uintptr_t)q == pa) {
        EXPECT(!find_freed(pa + 8, &f), "a block handed out again is still freed");
        expect_block(q, 520, "handed out again");
    }
    free(q);
    /* Born and freed between two look-ups (one drain). */
    char *r = malloc(700);
    uintptr_t ra = (uintptr_t)r;
    free(r);
    expect_freed(ra, 700, "born and freed in one drain");
    /* realloc that moves the block: the old one is freed. */
    char *s = calloc(32, 1), *guard = malloc(32);
    uintptr_t sa = (uintptr_t)s;
    expect_block(s, 32, "before realloc");
    char *t = realloc(s, 1 << 20);
    if ((uintptr_t)t != sa) expect_freed(sa, 32, "moved by realloc");
    free(t);
    free(guard);
    /* A block glibc may unmap at its free is not remembered. */
    char *big = calloc(256 << 10, 1);
    uintptr_t biga = (uintptr_t)big;
    expect_block(big, 256 << 10, "a large block");
    free(big);
    EXPECT(!find_freed(biga, &f), "a freed block of 256 KiB is remembered");
    /* Only the last frees are kept. */
    enum { N = 5000 };
    uintptr_t *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++) v[i] = (uintptr_t)calloc(24, 1);
    expect_block((void *)v[0], 24, "first of many");
    for (int i = 0; i < N; i++) free((void *)v[i]);
    msc_heap_stats_t st;
    stats(&st);
    EXPECT(st.freed_kept <= 4096, "%lu freed blocks kept", (unsigned long)st.freed_kept);
    EXPECT(find_freed(v[N - 1], &f) && f.start == v[N - 1], "the last freed block is not kept");
    EXPECT(!find_freed(v[0], &f) || f.start != v[0],
           "the first of 5,000 freed blocks is still kept");
    free(v);
    free(keep);
    return 0;
}

int main(int argc, char **argv)
{
    const char *expect = getenv("MSC_HEAP_EXPECT");
    find = (msc_heap_find_fn)dlsym(RTLD_DEFAULT, "msc_heap_find");
    stats = (msc_heap_stats_fn)dlsym(RTLD_DEFAULT, "msc_heap_stats");
    find_freed = (msc_heap_find_freed_fn)dlsym(RTLD_DEFAULT, "msc_heap_find_freed");
    if (argc != 2 || !find || !stats || !find_freed || !expect) {
        fprintf(stderr, "usage: MSC_HEAP_EXPECT=active|inactive heap_test CASE, with "
                        "libmpiscope-heap.so preloaded\n");
        return 2;
    }
    if (strcmp(expect, "inactive") == 0) {
        /* A sanitizer's allocator comes first: nothing of ours is called,
         * and the program runs as without us. */
        void *p = malloc(64);
        msc_heap_block_t b;
        EXPECT(!find((uintptr_t)p, &b), "a block found although the sanitizer's malloc is first");
        free(p);
        printf("%s: inactive, as expected\n", argv[1]);
        return failures ? 1 : 0;
    }
    const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"kinds", case_kinds},   {"early", case_early},   {"threads", case_threads},
                 {"gather", case_gather}, {"reuse", case_reuse},   {"fork", case_fork},     {"signal", case_signal},
                 {"unknown", case_unknown}, {"many", case_many},   {"freed", case_freed}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            printf("%s: %s\n", argv[1], failures ? "FAILED" : "ok");
            return failures ? 1 : 0;
        }
    fprintf(stderr, "heap_test: no case '%s'\n", argv[1]);
    return 2;
}
