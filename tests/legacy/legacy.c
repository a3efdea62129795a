/* Calls the ten functions removed in MPI-3.0 that MPI libraries still
 * export (MPI_Address, MPI_Type_extent/_struct/_hvector/_hindexed/_lb/_ub,
 * MPI_Errhandler_create/_get/_set), once each per rank, and checks that each
 * result equals its modern equivalent's (MPI_Get_address,
 * MPI_Type_get_extent, MPI_Type_create_*, MPI_Comm_*_errhandler). Open MPI's
 * mpi.h turns their names into _Static_asserts under C11, so this program
 * declares their MPI-2.2 prototypes itself, as legacy codes do; MPICH's
 * mpi.h still declares them. legacy_check.py then checks the exact counts
 * in profile.json and the trace. Exit 1 with a message on any mismatch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef OPEN_MPI
#undef MPI_Address
#undef MPI_Type_extent
#undef MPI_Type_struct
#undef MPI_Type_hvector
#undef MPI_Type_hindexed
#undef MPI_Type_lb
#undef MPI_Type_ub
#undef MPI_Errhandler_create
#undef MPI_Errhandler_get
#undef MPI_Errhandler_set
int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_struct(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                    MPI_Datatype *array_of_types, MPI_Datatype *newtype);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int *array_of_blocklengths, MPI_Aint *array_of_displacements,
                      MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Errhandler_create(MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
#endif

static int bad;

#define SAME(what, a, b) do { if ((long long)(a) != (long long)(b)) { \
    fprintf(stderr, "legacy: %s: %lld, modern %lld\n", what, (long long)(a), (long long)(b)); \
    bad = 1; } } while (0)
#define OK(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) { \
    fprintf(stderr, "legacy: %s returned %d\n", #call, rc_); bad = 1; } } while (0)

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

/* The size, lower bound and extent of two types must agree. */
static void same_type(const char *what, MPI_Datatype old, MPI_Datatype now)
{
    int s1, s2;
    MPI_Aint lb1, lb2, ex1, ex2;
    MPI_Type_size(old, &s1);
    MPI_Type_size(now, &s2);
    MPI_Type_get_extent(old, &lb1, &ex1);
    MPI_Type_get_extent(now, &lb2, &ex2);
    SAME(what, s1, s2);
    SAME(what, lb1, lb2);
    SAME(what, ex1, ex2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double a[4];
    MPI_Aint addr, gaddr, ext, lb, gext;
    OK(MPI_Address(&a[2], &addr));
    MPI_Get_address(&a[2], &gaddr);
    SAME("MPI_Address", addr, gaddr);

    OK(MPI_Type_extent(MPI_DOUBLE, &ext));
    MPI_Type_get_extent(MPI_DOUBLE, &lb, &gext);
    SAME("MPI_Type_extent", ext, gext);

    MPI_Datatype hv, hv2, hi, hi2, st, st2;
    OK(MPI_Type_hvector(3, 2, 24, MPI_INT, &hv));
    MPI_Type_create_hvector(3, 2, 24, MPI_INT, &hv2);
    same_type("MPI_Type_hvector", hv, hv2);

    int bl[2] = {2, 1};
    MPI_Aint disp[2] = {8, 40};
    OK(MPI_Type_hindexed(2, bl, disp, MPI_INT, &hi));
    MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &hi2);
    same_type("MPI_Type_hindexed", hi, hi2);

    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    OK(MPI_Type_struct(2, bl, disp, types, &st));
    MPI_Type_create_struct(2, bl, disp, types, &st2);
    same_type("MPI_Type_struct", st, st2);

    MPI_Aint olb, oub;
    OK(MPI_Type_lb(st, &olb));
    OK(MPI_Type_ub(st, &oub));
    MPI_Type_get_extent(st2, &lb, &gext);
    SAME("MPI_Type_lb", olb, lb);
    SAME("MPI_Type_ub", oub, lb + gext);
    SAME("MPI_Type_lb (from the standard)", olb, 8);

    MPI_Errhandler eh, old, now;
    OK(MPI_Errhandler_get(MPI_COMM_WORLD, &old));
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &now);
    SAME("MPI_Errhandler_get", MPI_Errhandler_c2f(old), MPI_Errhandler_c2f(now));
    SAME("MPI_Errhandler_get (the default)", MPI_Errhandler_c2f(old),
         MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL));
    OK(MPI_Errhandler_create(handler, &eh));
    OK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    MPI_Errhandler_free(&now);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &now);
    SAME("MPI_Errhandler_set", MPI_Errhandler_c2f(now), MPI_Errhandler_c2f(eh));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, old);
    MPI_Errhandler_free(&now);
    MPI_Errhandler_free(&eh);
    MPI_Errhandler_free(&old);

    MPI_Type_free(&hv);
    MPI_Type_free(&hv2);
    MPI_Type_free(&hi);
    MPI_Type_free(&hi2);
    MPI_Type_free(&st);
    MPI_Type_free(&st2);
    MPI_Finalize();
    return bad;
}
