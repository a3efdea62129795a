/* Private to the interception tests: MPI calls made from a second
 * translation unit (second_tu.c), linked into the counts program. */
#ifndef MSC_TESTS_INTERCEPT_SECOND_TU_H
#define MSC_TESTS_INTERCEPT_SECOND_TU_H

/* MPI_Comm_rank on MPI_COMM_WORLD. */
int tu2_rank(void);
/* `n` MPI_Sendrecv of one int with `partner`; returns the sum received. */
int tu2_exchange(int partner, int n);
/* One MPI_Allreduce (sum) of `x` over MPI_COMM_WORLD. */
int tu2_sum(int x);

#endif
