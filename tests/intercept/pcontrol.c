/* Turning recording off and on: MPI_Pcontrol(0) and (1), levels with no
 * meaning, MPISCOPE_MODE=none, and threads that start while recording is
 * off or see it change. */
#include <pthread.h>
#include <unistd.h>

#include "harness.h"

static void comm_ranks(int n)
{
    int r;
    for (int i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
}

static void case_off_on(int argc, char **argv)
{
    msc_init(&argc, &argv);
    comm_ranks(3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(0);
    comm_ranks(5);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    int x = 0;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_CALLS("MPI_Comm_rank", 3);
    MPI_Pcontrol(1);
    comm_ranks(7);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_CALLS("MPI_Comm_rank", 10);
    CHECK_CALLS("MPI_Barrier", 2);
    CHECK_CALLS("MPI_Allreduce", 0);
    /* Level 1 while on, level 0 while off: no change. */
    MPI_Pcontrol(1);
    comm_ranks(1);
    MPI_Pcontrol(0);
    MPI_Pcontrol(0);
    comm_ranks(1);
    MPI_Pcontrol(1);
    CHECK_CALLS("MPI_Comm_rank", 11);
    MPI_Finalize();
}

/* Runs fn with this process's stderr going to a file; returns what it wrote. */
static char *capture_stderr(void (*fn)(void))
{
    static char text[8192];
    fflush(stderr);
    FILE *tmp = tmpfile();
    CHECK(tmp);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = 0;
    fclose(tmp);
    return text;
}

static int count_of(const char *text, const char *word)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, word)); p += strlen(word)) n++;
    return n;
}

static void meaningless_levels(void)
{
    MPI_Pcontrol(5);
    comm_ranks(2);
    MPI_Pcontrol(5);
    MPI_Pcontrol(-3);
    MPI_Pcontrol(5);
}

static void case_unknown_level(int argc, char **argv)
{
    msc_init(&argc, &argv);
    comm_ranks(1);
    const char *err = capture_stderr(meaningless_levels);
    if (count_of(err, "mpiscope[") != 1 || count_of(err, "MPI_Pcontrol(5)") != 1)
        FAIL("expected one warning about MPI_Pcontrol(5), got:\n%s", err);
    /* Recording went on as before. */
    comm_ranks(4);
    CHECK_CALLS("MPI_Comm_rank", 7);
    MPI_Finalize();
}

static void case_mode_none(int argc, char **argv)
{
    msc_init(&argc, &argv);
    comm_ranks(3);
    MPI_Pcontrol(1); /* cannot turn on what MPISCOPE_MODE=none left out */
    comm_ranks(3);
    MPI_Barrier(MPI_COMM_WORLD);
    int x = 1;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(x, msc_size);
    CHECK_CALLS("MPI_Init", 0);
    CHECK_CALLS("MPI_Comm_rank", 0);
    CHECK_CALLS("MPI_Barrier", 0);
    CHECK_CALLS("MPI_Allreduce", 0);
    const char *(*dir)(void);
    void *sym = dlsym(RTLD_DEFAULT, "mpiscope_output_dir");
    CHECK(sym);
    memcpy(&dir, &sym, sizeof dir);
    CHECK_EQ(strlen(dir()), 0);
    MPI_Finalize();
    CHECK_CALLS("MPI_Finalize", 0);
}

/* A thread's first MPI call decides how it joins the registry: it must see
 * the recording level of that moment, and later changes. */
static pthread_barrier_t step;
static int calls_while_off = 4, calls_while_on = 5;

static void *late_thread(void *arg)
{
    comm_ranks(*(int *)arg);
    return NULL;
}

static void *toggled_thread(void *arg)
{
    (void)arg;
    comm_ranks(1);                 /* registers while on: counted */
    pthread_barrier_wait(&step);   /* main: Pcontrol(0) */
    pthread_barrier_wait(&step);
    comm_ranks(calls_while_off);
    pthread_barrier_wait(&step);   /* main: Pcontrol(1) */
    pthread_barrier_wait(&step);
    comm_ranks(calls_while_on);
    return NULL;
}

static void case_threads(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    pthread_t t;
    int three = 3, two = 2;
    MPI_Pcontrol(0);
    pthread_create(&t, NULL, late_thread, &three); /* first call while off */
    pthread_join(t, NULL);
    CHECK_CALLS("MPI_Comm_rank", 0);
    MPI_Pcontrol(1);
    pthread_create(&t, NULL, late_thread, &two);
    pthread_join(t, NULL);
    CHECK_CALLS("MPI_Comm_rank", 2);

    pthread_barrier_init(&step, NULL, 2);
    pthread_create(&t, NULL, toggled_thread, NULL);
    pthread_barrier_wait(&step);
    MPI_Pcontrol(0);
    pthread_barrier_wait(&step);
    pthread_barrier_wait(&step);
    CHECK_CALLS("MPI_Comm_rank", 3);
    MPI_Pcontrol(1);
    pthread_barrier_wait(&step);
    pthread_join(t, NULL);
    CHECK_CALLS("MPI_Comm_rank", 3 + calls_while_on);
    pthread_barrier_destroy(&step);
    MPI_Finalize();
}

MSC_CASES_MAIN(CASE(off_on), CASE(unknown_level), CASE(mode_none), CASE(threads))
