/* Fatal-signal chaining, the exit-without-MPI_Finalize handler and the
 * rank-<N>.incomplete note. For each signal in `caught` the previous sigaction
 * is saved; the handler runs the modules' emergency hooks once (an atomic
 * flag guards against a second signal, or a crash inside a hook), puts the
 * previous action back and re-raises, or calls a previous SA_SIGINFO handler
 * directly, so a crash still produces the core dump and exit status it would
 * have. Recording is switched off first, so nothing the hooks do is
 * recorded. SIGINT and SIGTERM are what mpirun sends the ranks when it stops
 * a job.
 */
#include "fatal.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

static const int caught[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
enum { NCAUGHT = sizeof caught / sizeof caught[0] };
static struct sigaction previous[NCAUGHT];
static int installed;
static atomic_int emergency_done;

/* Appends decimal `v` to buf at *n (async-signal-safe formatting). */
static void put_num(char *buf, size_t cap, size_t *n, long v)
{
    char tmp[24];
    int k = 0;
    unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
    do tmp[k++] = (char)('0' + u % 10);
    while ((u /= 10) && k < (int)sizeof tmp);
    if (v < 0 && *n < cap) buf[(*n)++] = '-';
    while (k > 0 && *n < cap) buf[(*n)++] = tmp[--k];
}

static void put_str(char *buf, size_t cap, size_t *n, const char *s)
{
    while (*s && *n < cap) buf[(*n)++] = *s++;
}

/* <outdir>/rank-<N>.incomplete: one line saying why this rank ended early,
 * written with open/write/close only (async-signal-safe). */
static void write_note(int signum)
{
    if (!msc_g.outdir[0]) return;
    char path[sizeof msc_g.outdir + 64], line[128];
    size_t n = 0, m = 0;
    put_str(path, sizeof path - 1, &n, msc_g.outdir);
    put_str(path, sizeof path - 1, &n, "/rank-");
    put_num(path, sizeof path - 1, &n, msc_g.world_rank);
    put_str(path, sizeof path - 1, &n, ".incomplete");
    path[n] = 0;
    if (signum == MSC_FATAL_EXIT) {
        put_str(line, sizeof line - 1, &m, "exit without MPI_Finalize\n");
    } else if (signum == 0) {
        put_str(line, sizeof line - 1, &m, "MPI_Abort\n");
    } else {
        put_str(line, sizeof line - 1, &m, "signal ");
        put_num(line, sizeof line - 1, &m, signum);
        put_str(line, sizeof line - 1, &m, " (");
        put_str(line, sizeof line - 1, &m, sigabbrev_np(signum) ? sigabbrev_np(signum) : "?");
        put_str(line, sizeof line - 1, &m, ")\n");
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ssize_t w = write(fd, line, m);
    (void)w;
    close(fd);
}

void msc_fatal_reason(int signum, char *buf, size_t len)
{
    if (signum == MSC_FATAL_EXIT) {
        snprintf(buf, len, "exit without MPI_Finalize");
    } else if (signum) {
        const char *abbrev = sigabbrev_np(signum);
        snprintf(buf, len, "signal %d (%s)", signum, abbrev ? abbrev : "?");
    } else {
        snprintf(buf, len, "MPI_Abort");
    }
}

/* The watchdog of msc_fatal_guarded: SIGALRM, directed at the thread that
 * runs the hooks, jumps back out of the hook. */
enum { GUARD_SECONDS = 3 };
static sigjmp_buf guard_env;
static volatile sig_atomic_t guard_armed;
static pthread_t guard_thread;

static void guard_alarm(int signum)
{
    if (!guard_armed) return;
    if (!pthread_equal(pthread_self(), guard_thread)) {
        pthread_kill(guard_thread, signum); /* the process alarm hit another thread */
        return;
    }
    guard_armed = 0;
    siglongjmp(guard_env, 1);
}

void msc_fatal_guarded(const char *module, void (*hook)(int signum), int signum)
{
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = guard_alarm;
    sigemptyset(&sa.sa_mask);
    sigset_t alrm, old_mask;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    guard_thread = pthread_self();
    sigaction(SIGALRM, &sa, &old_sa);
    pthread_sigmask(SIG_UNBLOCK, &alrm, &old_mask);
    unsigned pending = alarm(GUARD_SECONDS);
    if (sigsetjmp(guard_env, 1) == 0) {
        guard_armed = 1;
        hook(signum);
        guard_armed = 0;
    } else {
        char msg[160];
        size_t n = 0;
        put_str(msg, sizeof msg - 1, &n, "mpiscope: ");
        put_str(msg, sizeof msg - 1, &n, module);
        put_str(msg, sizeof msg - 1, &n, ": writing what this rank recorded did not finish in "
                                         "time; it is missing\n");
        ssize_t w = write(STDERR_FILENO, msg, n);
        (void)w;
    }
    alarm(0);
    sigaction(SIGALRM, &old_sa, NULL);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (pending) alarm(pending); /* the application's own alarm, as it was */
}

void msc_fatal_emergency(int signum)
{
    if (atomic_load(&msc_g.phase) != MSC_PHASE_RUNNING) return;
    if (atomic_exchange(&emergency_done, 1)) return;
    atomic_store(&msc_g.level, 0);
    msc_recording_update();
    atomic_fetch_or(&msc_tls.gate, MSC_GATE_BUSY);
    write_note(signum);
    msc_runtime_emergency(signum);
}

static int slot_of(int signum)
{
    for (int i = 0; i < NCAUGHT; i++)
        if (caught[i] == signum) return i;
    return -1;
}

static void on_fatal(int signum, siginfo_t *info, void *uctx)
{
    int saved_errno = errno;
    msc_fatal_emergency(signum);
    int i = slot_of(signum);
    if (i < 0) return;
    struct sigaction *old = &previous[i];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        errno = saved_errno;
        old->sa_sigaction(signum, info, uctx);
        return;
    }
    if (old->sa_handler == SIG_IGN) return;
    if (old->sa_handler != SIG_DFL && old->sa_handler) {
        errno = saved_errno;
        old->sa_handler(signum);
        return;
    }
    /* Default action: put it back and raise again; for a fault the faulting
     * instruction runs again on return and takes the default path. */
    sigaction(signum, old, NULL);
    if (info && info->si_code <= 0) raise(signum); /* sent by kill(), not a fault */
}

/* exit() or a return from main after MPI_Init, MPI_Finalize not called:
 * registered after PMPI_Init, so it runs before whatever the MPI library
 * registered at its own initialization. After MPI_Finalize, MPI_Abort or a
 * fatal signal it does nothing (msc_fatal_emergency's phase and once-only
 * tests). */
static void on_exit_without_finalize(void)
{
    msc_fatal_emergency(MSC_FATAL_EXIT);
}

void msc_fatal_install(void)
{
    static int exit_handler_registered;
    if (!exit_handler_registered) {
        exit_handler_registered = 1;
        atexit(on_exit_without_finalize);
    }
    if (installed) return;
    for (int i = 0; i < NCAUGHT; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(caught[i], &sa, &previous[i]) != 0) previous[i].sa_handler = SIG_DFL;
    }
    installed = 1;
}

void msc_fatal_uninstall(void)
{
    if (!installed) return;
    for (int i = 0; i < NCAUGHT; i++) {
        struct sigaction cur;
        /* Only if ours is still in place: the application may have set its own. */
        if (sigaction(caught[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == on_fatal)
            sigaction(caught[i], &previous[i], NULL);
    }
    installed = 0;
}
