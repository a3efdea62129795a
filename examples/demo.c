/* demo: a small MPI program with the shape of a real one, for the README's
 * first command. A 1-D heat equation on a ring of ranks: each step exchanges
 * halo cells with both neighbours (nonblocking), relaxes the interior, and
 * every few steps agrees on the residual (MPI_Allreduce). Rank 0 gathers the
 * final field. The last rank is given more cells, so the profile shows the
 * imbalance as time the others spend waiting in MPI.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void exchange_halos(double *u, int n, int left, int right)
{
    MPI_Request req[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

static double relax(double *u, double *v, int n)
{
    double change = 0;
    for (int i = 1; i <= n; i++) {
        v[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
        change += fabs(v[i] - u[i]);
    }
    for (int i = 1; i <= n; i++) u[i] = v[i];
    return change;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 2000;
    int n = 20000 + (rank == size - 1 ? 20000 : 0);
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 1; i <= n; i++) u[i] = sin(0.001 * (i + rank * 20000));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    double residual = 0;
    for (int s = 0; s < steps; s++) {
        exchange_halos(u, n, left, right);
        double change = relax(u, v, n);
        if (s % 10 == 0)
            MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double local = 0, total = 0;
    for (int i = 1; i <= n; i++) local += u[i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("demo: %d ranks, %d steps, residual %.6g, sum %.6f\n", size, steps, residual, total);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
