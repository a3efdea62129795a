/* `mpiscope report DIR`: a placeholder until the profile's report exists.
 *
 * Whoever writes the profile output replaces this file with the real report
 * (same function, see commands.h); tools/cli/CMakeLists.txt builds every .c
 * file of this folder, so nothing else needs to change.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

int msc_cmd_report(int argc, char **argv)
{
    if (argc >= 1 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
        printf("usage: mpiscope report DIR\n"
               "\n"
               "Summarizes the results that `mpiscope run` wrote into DIR.\n");
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "mpiscope report: give one result directory; usage: mpiscope report DIR\n");
        return 2;
    }
    printf("mpiscope report: no report for %s yet\n", argv[0]);
    return 1;
}
