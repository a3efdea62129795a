/* The profile of a solo process (one that entered MPI through an MPI-4
 * session, state.h), which may not talk to the others: no merge tree.
 *
 * Each process packs its set (merge.c's wire form) into
 * <outdir>/.profile/rank<R>.<K>.set, K counting the times its last session
 * ended (a process may initialize again and write again), renamed into place
 * when complete. It then looks for the files of every rank of the world: the
 * last process to finish finds them all (so does any that finishes at the
 * same moment; an exclusive lock file, join.<K>, picks one). That process
 * merges the sets in rank order, as the tree does, and writes profile.json
 * and profile.txt as rank 0 would, then removes the sets. Nothing waits: a
 * process whose files are not all there yet leaves them to the last. When
 * no process sees every file (a world spread over nodes without a shared
 * directory, or a process that went down), the sets stay and `mpiscope
 * report` names the ranks missing.
 */
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pjson.h"
#include "output.h"
#include "state.h"

static int cycle; /* K: this process's writes so far */

static void set_path(char *path, size_t size, int rank, int k)
{
    snprintf(path, size, "%s/.profile/rank%d.%d.set", msc_g.outdir, rank, k);
}

/* Merges every rank's set of write k into one and writes the profile; false
 * if a set could not be read (another process joined them first and removed
 * them). */
static bool join(int k)
{
    set_t all = {0};
    char path[sizeof msc_g.outdir + 64];
    for (int r = 0; r < msc_g.world_size; r++) {
        size_t len = 0;
        set_path(path, sizeof path, r, k);
        char *b = msc_read_file(path, &len);
        if (!b) {
            msc_pset_free(&all);
            return false;
        }
        msc_pset_merge(&all, b, len);
        msc_pset_trim(&all);
        free(b);
    }
    msc_pwrite_profile(&all, false, NULL, NULL, "profile");
    msc_pset_free(&all);
    for (int r = 0; r < msc_g.world_size; r++) {
        set_path(path, sizeof path, r, k);
        unlink(path);
    }
    return true;
}

void msc_pjoin_write(set_t *st)
{
    int k = cycle++;
    if (!msc_g.outdir[0]) return;
    char dir[sizeof msc_g.outdir + 16];
    snprintf(dir, sizeof dir, "%s/.profile", msc_g.outdir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        msc_warn_once("profile-join", "profile: cannot create %s: %s; this process's profile "
                                      "is not written", dir, strerror(errno));
        return;
    }
    size_t len = 0;
    char *blob = msc_pset_pack(st, &len);
    char name[64];
    snprintf(name, sizeof name, ".profile/rank%d.%d.set", msc_g.world_rank, k);
    msc_out_t out;
    bool ok = blob && msc_out_open(&out, name);
    if (ok) {
        fwrite(blob, 1, len, out.f);
        ok = msc_out_close(&out);
    }
    free(blob);
    if (!ok) return;
    char path[sizeof msc_g.outdir + 64];
    for (int r = 0; r < msc_g.world_size; r++) {
        set_path(path, sizeof path, r, k);
        if (access(path, R_OK) != 0) return; /* not the last: the last joins */
    }
    snprintf(path, sizeof path, "%s/.profile/join.%d", msc_g.outdir, k);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return; /* another process is joining */
    close(fd);
    join(k);
    unlink(path);
    rmdir(dir); /* when empty: nothing left of this way of writing */
}
