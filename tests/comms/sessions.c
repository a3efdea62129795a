/* MPI-4 sessions (MPI-4.0 chapter 11), each way a process can be inside
 * MPI, with the calls each must show in the profile (check_sessions.py):
 *
 *   only    one session: 100 sends from rank 0 to rank 1 on a communicator
 *           from the mpi://WORLD group, one MPI_Allreduce; never MPI_Init.
 *   two     two sessions at once; 10 sends on a communicator of the first,
 *           20 on one of the second; the first ends, then 30 more sends on a
 *           communicator made from the second afterwards (ranks are still
 *           translated once the first session, whose group the tool held,
 *           is gone).
 *   again   a session with 10 sends ends, a second one begins (MPI-4.0
 *           §11.3 allows it) with 20 sends: the profile holds all 30.
 *   session-first  a session, then MPI_Init: 40 sends on MPI_COMM_WORLD,
 *           10 on the session's communicator; MPI_Finalize, then
 *           MPI_Session_finalize (the last end).
 *   init-first     MPI_Init, then a session: the same 40 + 10 sends; the
 *           session ends before MPI_Finalize (the world model's run).
 *
 * Every rank prints "sum <S>" of an MPI_Allreduce of the ranks, so that a
 * test sees the program ran the same with and without the tool.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static MPI_Comm world_comm(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&g);
    return c;
}

static void sends(MPI_Comm c, int n)
{
    int r, v = 0;
    MPI_Comm_rank(c, &r);
    for (int i = 0; i < n; i++) {
        if (r == 0) MPI_Send(&i, 1, MPI_INT, 1, 0, c);
        else if (r == 1) MPI_Recv(&v, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE);
    }
}

static void sum(MPI_Comm c)
{
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Allreduce(&r, &s, 1, MPI_INT, MPI_SUM, c);
    if (r == 0) printf("sum %d\n", s);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "only";
    MPI_Session s1, s2;
    MPI_Comm c1, c2, c3;
    if (strcmp(how, "only") == 0) {
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
        c1 = world_comm(s1, "org.mpiscope.only");
        sends(c1, 100);
        sum(c1);
        MPI_Comm_free(&c1);
        MPI_Session_finalize(&s1);
    } else if (strcmp(how, "two") == 0) {
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
        c1 = world_comm(s1, "org.mpiscope.two.1");
        c2 = world_comm(s2, "org.mpiscope.two.2");
        sends(c1, 10);
        sends(c2, 20);
        MPI_Comm_free(&c1);
        MPI_Session_finalize(&s1);
        c3 = world_comm(s2, "org.mpiscope.two.3");
        sends(c3, 30);
        sum(c3);
        MPI_Comm_free(&c2);
        MPI_Comm_free(&c3);
        MPI_Session_finalize(&s2);
    } else if (strcmp(how, "again") == 0) {
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
        c1 = world_comm(s1, "org.mpiscope.again.1");
        sends(c1, 10);
        MPI_Comm_free(&c1);
        MPI_Session_finalize(&s1);
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
        c2 = world_comm(s2, "org.mpiscope.again.2");
        sends(c2, 20);
        sum(c2);
        MPI_Comm_free(&c2);
        MPI_Session_finalize(&s2);
    } else if (strcmp(how, "session-first") == 0) {
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
        MPI_Init(&argc, &argv);
        sends(MPI_COMM_WORLD, 40);
        c1 = world_comm(s1, "org.mpiscope.sf");
        sends(c1, 10);
        sum(MPI_COMM_WORLD);
        MPI_Comm_free(&c1);
        MPI_Finalize();
        MPI_Session_finalize(&s1);
    } else if (strcmp(how, "init-first") == 0) {
        MPI_Init(&argc, &argv);
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1);
        sends(MPI_COMM_WORLD, 40);
        c1 = world_comm(s1, "org.mpiscope.if");
        sends(c1, 10);
        sum(MPI_COMM_WORLD);
        MPI_Comm_free(&c1);
        MPI_Session_finalize(&s1);
        MPI_Finalize();
    } else {
        fprintf(stderr, "sessions: unknown case %s\n", how);
        return 2;
    }
    return 0;
}
