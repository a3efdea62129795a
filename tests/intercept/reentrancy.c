/* MPI calls made by the application's own code that MPI runs inside an MPI
 * call (a user reduction operation, attribute copy and delete functions, an
 * error handler called through MPI_Comm_call_errhandler, a delete callback
 * that frees a communicator) are the application's calls: each is recorded,
 * exactly once. Calls the MPI library makes to itself are not ("multiple
 * counting", MPI standard 14.2.7). Each case runs a callback that MPI invokes
 * from inside a call, has the callback make MPI calls, counts how often the
 * callback ran, and checks the recorded calls against those numbers.
 * Two kinds of callback stay unrecorded (wrapgen.py, CALLBACK_FUNCTIONS says
 * why): an error handler the library calls on a failing call, and a
 * generalized request's query and free functions inside MPI_Wait.
 */
#include "harness.h"

static int callbacks; /* how often a callback ran */

/* Calls inside a callback: each recorded when the callback runs inside an
 * opened call (see above). */
static void inner_calls(void)
{
    int size, rank;
    MPI_Type_size(MPI_INT, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    callbacks++;
}

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size;
    MPI_Type_size(*type, &size);
    CHECK_EQ(size, (int)sizeof(int));
    inner_calls();
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void case_user_op(int argc, char **argv)
{
    msc_init(&argc, &argv);
    MPI_Op op;
    MPI_Op_create(sum_op, 1, &op);
    int x = msc_rank + 1, s = 0, a[2] = {1, 2}, b[2] = {10, 20};
    for (int i = 0; i < 3; i++) {
        MPI_Allreduce(&x, &s, 1, MPI_INT, op, MPI_COMM_WORLD);
        CHECK_EQ(s, msc_size * (msc_size + 1) / 2);
    }
    MPI_Reduce_local(a, b, 2, MPI_INT, op); /* runs the operation on every rank */
    CHECK(b[0] == 11 && b[1] == 22);
    MPI_Op_free(&op);
    CHECK(callbacks >= 1);
    if (msc_size > 1) CHECK(callbacks >= 2);
    CHECK_CALLS("MPI_Op_create", 1);
    CHECK_CALLS("MPI_Allreduce", 3);
    CHECK_CALLS("MPI_Reduce_local", 1);
    CHECK_CALLS("MPI_Op_free", 1);
    /* sum_op: MPI_Type_size twice, MPI_Comm_rank once, per run. */
    CHECK_CALLS("MPI_Type_size", 2 * callbacks);
    CHECK_CALLS("MPI_Comm_rank", callbacks);
    MPI_Finalize();
}

static int copy_attr(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key, (void)extra;
    inner_calls();
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_attr(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    inner_calls();
    return MPI_SUCCESS;
}

static void case_attr_callbacks(int argc, char **argv)
{
    msc_init(&argc, &argv);
    static int value = 42;
    int key;
    MPI_Comm dup;
    MPI_Comm_create_keyval(copy_attr, delete_attr, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* copy callback */
    CHECK_EQ(callbacks, 1);
    int *got, flag;
    MPI_Comm_get_attr(dup, key, &got, &flag);
    CHECK(flag && got == &value);
    MPI_Comm_free(&dup);                 /* delete callback */
    CHECK_EQ(callbacks, 2);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key); /* delete callback */
    CHECK_EQ(callbacks, 3);
    MPI_Comm_free_keyval(&key);
    CHECK_CALLS("MPI_Comm_create_keyval", 1);
    CHECK_CALLS("MPI_Comm_set_attr", 1);
    CHECK_CALLS("MPI_Comm_dup", 1);
    CHECK_CALLS("MPI_Comm_get_attr", 1);
    CHECK_CALLS("MPI_Comm_free", 1);
    CHECK_CALLS("MPI_Comm_delete_attr", 1);
    CHECK_CALLS("MPI_Comm_free_keyval", 1);
    CHECK_CALLS("MPI_Type_size", 3);
    CHECK_CALLS("MPI_Comm_rank", 3);
    MPI_Finalize();
}

static MPI_Comm inner;

static int free_inner(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    int done;
    MPI_Finalized(&done);
    MPI_Comm_free(&inner);
    callbacks++;
    return MPI_SUCCESS;
}

/* mpi4py's clean-up: a delete callback frees a communicator, run by
 * MPI_Comm_free of another one and by MPI_Comm_delete_attr. */
static void case_delete_frees(int argc, char **argv)
{
    msc_init(&argc, &argv);
    MPI_Comm outer;
    int key;
    MPI_Comm_dup(MPI_COMM_WORLD, &outer);
    MPI_Comm_dup(MPI_COMM_WORLD, &inner);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_inner, &key, NULL);
    MPI_Comm_set_attr(outer, key, NULL);
    MPI_Comm_free(&outer);
    CHECK_EQ(callbacks, 1);
    CHECK(inner == MPI_COMM_NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &inner);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
    MPI_Comm_delete_attr(MPI_COMM_SELF, key);
    CHECK_EQ(callbacks, 2);
    CHECK(inner == MPI_COMM_NULL);
    MPI_Comm_free_keyval(&key);
    CHECK_CALLS("MPI_Comm_dup", 3);
    CHECK_CALLS("MPI_Comm_set_attr", 2);
    CHECK_CALLS("MPI_Comm_delete_attr", 1);
    CHECK_CALLS("MPI_Comm_free", 3);
    CHECK_CALLS("MPI_Finalized", 2);
    MPI_Finalize();
}

static int last_class = -1;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    (void)comm;
    MPI_Error_class(*code, &last_class);
    MPI_Error_string(*code, text, &len);
    inner_calls();
}

static void case_errhandler(int argc, char **argv)
{
    msc_init(&argc, &argv);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, msc_size, 0, MPI_COMM_WORLD); /* no such rank */
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ(callbacks, 1);
    CHECK_EQ(last_class, MPI_ERR_RANK);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK_EQ(callbacks, 2);
    CHECK_EQ(last_class, MPI_ERR_OTHER);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    CHECK_CALLS("MPI_Comm_create_errhandler", 1);
    CHECK_CALLS("MPI_Comm_set_errhandler", 2);
    CHECK_CALLS("MPI_Send", 1);
    CHECK_CALLS("MPI_Comm_call_errhandler", 1);
    CHECK_CALLS("MPI_Errhandler_free", 1);
    /* Only the handler's run through MPI_Comm_call_errhandler is recorded
     * (the library's own call of it, on the failing MPI_Send, is not). */
    CHECK_CALLS("MPI_Error_class", 1);
    CHECK_CALLS("MPI_Error_string", 1);
    CHECK_CALLS("MPI_Type_size", 1);
    CHECK_CALLS("MPI_Comm_rank", 1);
    MPI_Finalize();
}

static int query_fn(void *extra, MPI_Status *status)
{
    (void)extra;
    inner_calls();
    MPI_Status_set_elements(status, MPI_INT, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    inner_calls();
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void case_grequest(int argc, char **argv)
{
    msc_init(&argc, &argv);
    MPI_Request r;
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &r);
    MPI_Grequest_complete(r);
    MPI_Status st;
    MPI_Wait(&r, &st); /* query_fn, then free_fn */
    CHECK_EQ(callbacks, 2);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_CALLS("MPI_Grequest_start", 1);
    CHECK_CALLS("MPI_Grequest_complete", 1);
    CHECK_CALLS("MPI_Wait", 1);
    /* Not recorded: the query and free functions run inside MPI_Wait. */
    CHECK_CALLS("MPI_Status_set_elements", 0);
    CHECK_CALLS("MPI_Status_set_cancelled", 0);
    CHECK_CALLS("MPI_Type_size", 0);
    CHECK_CALLS("MPI_Comm_rank", 0);
    MPI_Finalize();
}

MSC_CASES_MAIN(CASE(user_op), CASE(attr_callbacks), CASE(delete_frees), CASE(errhandler),
               CASE(grequest))
