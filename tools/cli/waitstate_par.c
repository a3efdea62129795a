/* The wait-state analysis under MPI, for traces with many locations: not
 * implemented yet (docs/report.md, "Parallel analysis"). Always answers
 * that the trace is to be analysed in this process. */
#include "report_cli.h"
int msc_waitstate_parallel(const char *dir, const char *anchor, long min_locations)
{
    (void)dir, (void)anchor, (void)min_locations;
    return 1;
}
