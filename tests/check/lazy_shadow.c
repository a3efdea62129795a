/* Shadows of communicators made by blocking constructors are made without
 * waiting for the other members (src/check/objects.c, "shadows made
 * lazily"), and the checks still run on them.
 *   create_group_idup  even ranks call MPI_Comm_create_group and then
 *                      MPI_Comm_idup of MPI_COMM_WORLD, odd ranks the other
 *                      way round (MPICH's test comm/comm_create_group_idup):
 *                      legal, ends natively; it hung under check mode on
 *                      Open MPI with 4 ranks while the tool made the
 *                      group communicator's shadow inside the call
 *   split_checked      a split communicator's first use is a message whose
 *                      type signature differs between sender and receiver:
 *                      found (its shadow is ready when the message needs it);
 *                      then a reduction whose operation differs: found
 *   split_null         ranks given MPI_COMM_NULL by MPI_Comm_split (color
 *                      MPI_UNDEFINED) take part in the budget's agreement
 *                      over the parent, then everyone goes on on the parent
 */
#include "cases.h"

static void create_group_idup(void)
{
    MPI_Group world;
    MPI_Comm group_comm, idup_comm;
    MPI_Request req;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, &group_comm);
        MPI_Comm_idup(MPI_COMM_WORLD, &idup_comm, &req);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &idup_comm, &req);
        MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, &group_comm);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(idup_comm);
    MPI_Barrier(group_comm);
    int v = rank, sum = -1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, group_comm);
    if (rank == 0) printf("create_group_idup: sum %d\n", sum);
    MPI_Group_free(&world);
    MPI_Comm_free(&idup_comm);
    MPI_Comm_free(&group_comm);
}

static void split_checked(void)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c); /* reversed: rank size-1 is 0 */
    int r;
    MPI_Comm_rank(c, &r);
    int ibuf[4] = {1, 2, 3, 4};
    float fbuf[4];
    if (r == 0)
        MPI_Send(ibuf, 4, MPI_INT, 1, 0, c); /* expect(split_checked): GLOBAL:P2P:TYPE_MISMATCH */
    else if (r == 1)
        MPI_Recv(fbuf, 4, MPI_FLOAT, 0, 0, c, MPI_STATUS_IGNORE); /* expect(split_checked): GLOBAL:P2P:TYPE_MISMATCH */
    int v = 1, out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_INT, r == 0 ? MPI_SUM : MPI_MAX, c); /* expect(split_checked): GLOBAL:COLLECTIVE:OP_MISMATCH */
    MPI_Comm_free(&c);
}

static void split_null(void)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &c);
    int v = 1, sum = 0;
    if (c != MPI_COMM_NULL) {
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
        MPI_Comm_free(&c);
    }
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("split_null: %d members\n", sum);
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"create_group_idup", create_group_idup},
                                       {"split_checked", split_checked},
                                       {"split_null", split_null}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
