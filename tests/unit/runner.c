/* The unit test runner: looks a test up in the table of list.h by name and
 * runs it; a test fails by exiting non-zero (see FAIL in runner.h). */
#include "runner.h"

typedef struct {
    const char *name;
    void (*fn)(void);
} msc_unit_test_t;

static const msc_unit_test_t tests[] = {
#define UNIT_TEST(name) {#name, msc_test_##name},
#include "list.h"
#undef UNIT_TEST
};

int main(int argc, char **argv)
{
    size_t n = sizeof tests / sizeof tests[0];
    if (argc > 1) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(tests[i].name, argv[1]) == 0) {
                tests[i].fn();
                printf("ok %s\n", tests[i].name);
                return 0;
            }
        }
        fprintf(stderr, "unit_tests: no test named '%s'\n", argv[1]);
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        tests[i].fn();
        printf("ok %zu %s\n", i + 1, tests[i].name);
    }
    return 0;
}
