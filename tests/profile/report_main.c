/* A stand-alone `report` for the tests: the same report.c the `mpiscope`
 * program links, called as `mpiscope report` would call it. */
#include "../../tools/cli/commands.h"

int main(int argc, char **argv)
{
    return msc_cmd_report(argc - 1, argv + 1);
}
