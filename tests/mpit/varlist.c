/* What `mpiscope vars` must agree with: the names of every control variable
 * (with its scope, as the standard's constant without MPI_T_SCOPE_, lower
 * case), performance variable and category as the MPI_T API gives them to
 * this program, one "kind name [scope]" line each, then the value of the
 * control variable named by the second argument ("value TEXT"; integers in
 * decimal, a C bool as true or false, strings as they are). First argument "before": MPI_T only, no MPI_Init (run without a
 * launcher); "after": MPI_Init first, as `mpiscope vars --after-init` does.
 * Run with the tool preloaded (tests/mpit/vars.sh). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *scope_name(int s)
{
    return s == MPI_T_SCOPE_CONSTANT   ? "constant"
           : s == MPI_T_SCOPE_READONLY ? "readonly"
           : s == MPI_T_SCOPE_LOCAL    ? "local"
           : s == MPI_T_SCOPE_GROUP    ? "group"
           : s == MPI_T_SCOPE_GROUP_EQ ? "group_eq"
           : s == MPI_T_SCOPE_ALL      ? "all"
           : s == MPI_T_SCOPE_ALL_EQ   ? "all_eq"
                                       : "?";
}

int main(int argc, char **argv)
{
    int after = argc > 1 && strcmp(argv[1], "after") == 0, provided, n;
    if (after) MPI_Init(&argc, &argv);
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 1;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[1024];
        int len = sizeof name, scope;
        if (MPI_T_cvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, &scope) ==
            MPI_SUCCESS)
            printf("cvar %s %s\n", name, scope_name(scope));
    }
    MPI_T_pvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[1024];
        int len = sizeof name;
        if (MPI_T_pvar_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                NULL, NULL) == MPI_SUCCESS)
            printf("pvar %s\n", name);
    }
    MPI_T_category_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[1024];
        int len = sizeof name;
        if (MPI_T_category_get_info(i, name, &len, NULL, NULL, NULL, NULL, NULL) == MPI_SUCCESS)
            printf("category %s\n", name);
    }
    int index;
    if (argc > 2 && MPI_T_cvar_get_index(argv[2], &index) == MPI_SUCCESS) {
        MPI_Datatype type;
        MPI_T_cvar_handle h;
        int count;
        char buf[4096] = "";
        MPI_T_cvar_get_info(index, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL);
        if (MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS &&
            count * 8 < (int)sizeof buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
            if (type == MPI_CHAR) printf("value %s\n", buf);
            else if (type == MPI_INT) printf("value %d\n", *(int *)buf);
            else if (type == MPI_C_BOOL) printf("value %s\n", buf[0] ? "true" : "false");
            MPI_T_cvar_handle_free(&h);
        }
    }
    MPI_T_finalize();
    if (after) MPI_Finalize();
    return 0;
}
