/* The output directory of `mpiscope run`, before and after the run: whether
 * it can be written (probed by making and removing a directory in it, which
 * also catches a read-only mount or an immutable directory that permission
 * bits do not show, for root too), and which of the names a run writes it
 * holds. Before the run, such names mean another run's results, which the
 * new run would mix with its own (a report would then show one run's profile
 * with the other's trace); after it, they are what this run wrote. */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool msc_outdir_writable(const char *dir, int *err)
{
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.mpiscope-probe-%ld", dir, (long)getpid());
    if (mkdir(probe, 0700) != 0) {
        *err = errno;
        return false;
    }
    rmdir(probe);
    return true;
}

/* What a run writes into its directory (the core's output.c and the modules). */
static const char *const result_names[] = {
    "profile.json", "profile.txt", "profile-vt.txt", "profile.rank*.json", "rank-*.incomplete",
    "trace", "trace.unreadable", "checks.txt", "checks.json", "mpit.txt", "mpit.json",
    "waitstates.json", "report.html", "trace.json",
};

size_t msc_outdir_results(const char *dir, char *list, size_t len)
{
    if (len) list[0] = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0, used = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        bool result = false;
        for (size_t i = 0; !result && i < sizeof result_names / sizeof *result_names; i++)
            result = fnmatch(result_names[i], de->d_name, 0) == 0;
        if (!result) continue;
        n++;
        if (n <= 8 && used < len) {
            int w = snprintf(list + used, len - used, "%s%s", used ? ", " : "", de->d_name);
            if (w > 0) used += (size_t)w;
        } else if (n == 9 && used < len) {
            int w = snprintf(list + used, len - used, ", ...");
            if (w > 0) used += (size_t)w;
        }
    }
    closedir(d);
    if (used >= len && len) list[len - 1] = 0;
    return n;
}
