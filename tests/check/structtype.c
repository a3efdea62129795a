/* A structure's layout against the datatype it is passed as (issue 26,
 * "struct layouts against struct datatypes", MPI-CorrBench's usertypes
 * errors): LOCAL:BUFFER:TYPE_MISMATCH when a basic element of the
 * datatype's type map falls on a member of another type, on padding, or on
 * a smaller member that is not a number. Built -O0 -g (the heap case
 * reaches its block through a pointer kept in the frame). Rank 0 sends,
 * rank 1 receives the same datatype into a `char` array (never judged).
 *   order:     {MPI_CHAR, MPI_INT, MPI_DOUBLE} at the members' addresses
 *              of `struct S {int i; char c; double d;}` (a global): the
 *              MPI_INT falls on `char c`;
 *   blocklen:  blocklengths {2, 1, 1} of {MPI_INT, MPI_CHAR, MPI_DOUBLE} (a
 *              local): the second MPI_INT on `c`;
 *   sizeof:    displacements {0, sizeof(int), sizeof(int) + sizeof(char)}
 *              (a heap block through `struct S *`): the MPI_DOUBLE at byte
 *              5, on padding;
 *   member:    {MPI_INT, MPI_CHAR, MPI_FLOAT}, resized to the structure, 3
 *              of a local array of 3: the MPI_FLOAT on `double d`;
 *   scalar:    a global `struct P {int a; float b;} p[4]` sent as 8 MPI_INT:
 *              the second on `float b`;
 * each with a twin (<case>_ok: the datatype built from the members'
 * addresses and types, 8 MPI_BYTE for the scalar case); the twins also send
 * a datatype of `d` alone, and an MPI_INT over a union member: no finding.
 */
#include <stddef.h>
#include <stdlib.h>

#include "cases.h"

struct S {
    int i;
    char c;
    double d;
};
struct P {
    int a;
    float b;
};
struct U {
    union {
        int i;
        float f;
    } u;
    double d;
};

struct S gs;
struct P gp[4];
static char got[256];

static MPI_Datatype make(const int *bl, const MPI_Aint *disp, const MPI_Datatype *types, int resize)
{
    MPI_Datatype t, r;
    MPI_Type_create_struct(3, bl, disp, types, &t);
    if (!resize) {
        MPI_Type_commit(&t);
        return t;
    }
    MPI_Type_create_resized(t, 0, sizeof(struct S), &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

static MPI_Datatype good(int resize)
{
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct S, i), offsetof(struct S, c), offsetof(struct S, d)};
    MPI_Datatype types[3] = {MPI_INT, MPI_CHAR, MPI_DOUBLE};
    return make(bl, disp, types, resize);
}

static void exchange(void *buf, int n, MPI_Datatype t)
{
    if (rank == 0) MPI_Send(buf, n, t, 1, 5, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(got, n, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void order_case(int ok)
{
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct S, i), offsetof(struct S, c), offsetof(struct S, d)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
    MPI_Datatype t = ok ? good(0) : make(bl, disp, types, 0);
    if (rank == 0) MPI_Send(&gs, 1, t, 1, 5, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    if (rank == 1) MPI_Recv(got, 1, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void blocklen_case(int ok)
{
    struct S ls = {1, 'a', 2.0};
    int bl[3] = {2, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct S, i), offsetof(struct S, c), offsetof(struct S, d)};
    MPI_Datatype types[3] = {MPI_INT, MPI_CHAR, MPI_DOUBLE};
    MPI_Datatype t = ok ? good(0) : make(bl, disp, types, 0);
    if (rank == 0) MPI_Send(&ls, 1, t, 1, 5, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    if (rank == 1) MPI_Recv(got, 1, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void sizeof_case(int ok)
{
    struct S *hp = calloc(1, sizeof *hp);
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {0, sizeof(int), sizeof(int) + sizeof(char)};
    MPI_Datatype types[3] = {MPI_INT, MPI_CHAR, MPI_DOUBLE};
    MPI_Datatype t = ok ? good(0) : make(bl, disp, types, 0);
    if (rank == 0) MPI_Send(hp, 1, t, 1, 5, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    if (rank == 1) MPI_Recv(got, 1, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    free(hp);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void member_case(int ok)
{
    struct S arr[3] = {{0, 'a', 0.0}, {1, 'b', 1.0}, {2, 'c', 2.0}};
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct S, i), offsetof(struct S, c), offsetof(struct S, d)};
    MPI_Datatype types[3] = {MPI_INT, MPI_CHAR, MPI_FLOAT};
    MPI_Datatype t = ok ? good(1) : make(bl, disp, types, 1);
    if (rank == 0) MPI_Send(arr, 3, t, 1, 5, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    if (rank == 1) MPI_Recv(got, 3, t, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void scalar_case(int ok)
{
    if (ok)
        exchange(gp, 8, MPI_BYTE);
    else if (rank == 0)
        MPI_Send(gp, 8, MPI_INT, 1, 5, MPI_COMM_WORLD); /* expect(all): LOCAL:BUFFER:TYPE_MISMATCH rank=0 */
    else if (rank == 1)
        MPI_Recv(got, 8, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Datatypes that fit: d alone; an MPI_INT over a union of int and float. */
static void fitting(void)
{
    struct S ls = {0, 'x', 1.5};
    int one = 1;
    MPI_Aint at = offsetof(struct S, d);
    MPI_Datatype dbl = MPI_DOUBLE, t;
    MPI_Type_create_struct(1, &one, &at, &dbl, &t);
    MPI_Type_commit(&t);
    exchange(&ls, 1, t);
    MPI_Type_free(&t);
    struct U u = {{1}, 2.0};
    exchange(&u, 1, MPI_INT);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void all_bad(void)
{
    order_case(0), blocklen_case(0), sizeof_case(0), member_case(0), scalar_case(0);
}
static void all_ok(void)
{
    order_case(1), blocklen_case(1), sizeof_case(1), member_case(1), scalar_case(1);
    fitting();
}

int main(int argc, char **argv)
{
    static const chk_case_t cases[] = {{"all", all_bad}, {"all_ok", all_ok}};
    return case_main(argc, argv, cases, sizeof cases / sizeof *cases);
}
