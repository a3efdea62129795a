/* The trace of a rank that goes down without MPI_Finalize (module.h:
 * emergency). The run's archive cannot be finished: its anchor file and
 * global definitions are written by rank 0 after a collective unification
 * that a dying rank cannot take part in. What OTF2 does allow without any
 * communication is closing this rank's event writers (each flushes its
 * buffer to trace/traces/<location>.evt through the POSIX substrate) and
 * opening a second archive in serial mode, of which this rank is the only
 * member and the master. So the rank writes
 * <outdir>/trace/rank<R>.incomplete/traces.otf2 with global definitions of
 * its own (clock, its locations, the MPI functions as regions, property
 * MPISCOPE::TRACE_COMPLETE=false and the reason), and moves its event files
 * into it: otf2-print reads that archive. Its communicator references are
 * this rank's local ones and have no definitions (they would need the
 * unification); user regions from the VT_ API are not defined either.
 */
#include <otf2/otf2.h>

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "../core/log.h"
#include "msc_functions.h"
#include "impl.h"

static OTF2_StringRef nstr;

static OTF2_StringRef str(OTF2_GlobalDefWriter *gw, const char *s)
{
    OTF2_GlobalDefWriter_WriteString(gw, nstr, s);
    return nstr++;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_cb = {pre_flush, NULL};

bool trc_emergency_archive(const char *why, const trc_loc_t *locs, int nlocs, uint64_t t0,
                           uint64_t t1)
{
    char dir[PATH_MAX + 64], from[PATH_MAX + 64], to[PATH_MAX + 96];
    snprintf(dir, sizeof dir, "%s/trace/rank%d.incomplete", msc_g.outdir, msc_g.world_rank);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE,
                                        OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a) return false;
    bool ok = OTF2_Archive_SetSerialCollectiveCallbacks(a) == OTF2_SUCCESS &&
              OTF2_Archive_SetFlushCallbacks(a, &flush_cb, NULL) == OTF2_SUCCESS;
    OTF2_Archive_SetCreator(a, "mpiscope " MSC_MPI_NAME " (emergency)");
    OTF2_Archive_SetProperty(a, "MPISCOPE::TRACE_COMPLETE", "false", true);
    OTF2_Archive_SetProperty(a, "MPISCOPE::INCOMPLETE_REASON", why, true);
    char rank[32];
    snprintf(rank, sizeof rank, "%d", msc_g.world_rank);
    OTF2_Archive_SetProperty(a, "MPISCOPE::RANK", rank, true);
    OTF2_GlobalDefWriter *gw = ok ? OTF2_Archive_GetGlobalDefWriter(a) : NULL;
    if (gw) {
        nstr = 0;
        OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000u, t0, t1 > t0 ? t1 - t0 : 0,
                                                  OTF2_UNDEFINED_TIMESTAMP);
        OTF2_StringRef empty = str(gw, "");
        OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, str(gw, "MPI"),
                                           OTF2_PARADIGM_CLASS_PROCESS);
        OTF2_GlobalDefWriter_WriteSystemTreeNode(gw, 0, str(gw, "machine"), str(gw, "machine"),
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
        char name[64];
        snprintf(name, sizeof name, "MPI Rank %d", msc_g.world_rank);
        OTF2_GlobalDefWriter_WriteLocationGroup(gw, 0,
                                                str(gw, name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        for (int i = 0; i < nlocs; i++) {
            snprintf(name, sizeof name, "Rank %d thread %u", msc_g.world_rank,
                     (unsigned)(locs[i].id >> 32));
            OTF2_GlobalDefWriter_WriteLocation(gw, locs[i].id, str(gw, name),
                                               OTF2_LOCATION_TYPE_CPU_THREAD, locs[i].events,
                                               0);
        }
        for (int f = 0; f < MSC_FN_COUNT; f++) {
            OTF2_StringRef s = str(gw, msc_fn_name[f]);
            OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)f, s, s, empty,
                                             OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                             OTF2_REGION_FLAG_NONE, empty, 0, 0);
        }
        ok = OTF2_Archive_CloseGlobalDefWriter(a, gw) == OTF2_SUCCESS;
    } else {
        ok = false;
    }
    /* Empty local definitions: readers open one per location. */
    if (ok && OTF2_Archive_OpenDefFiles(a) == OTF2_SUCCESS) {
        for (int i = 0; i < nlocs; i++) {
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, locs[i].id);
            if (dw) OTF2_Archive_CloseDefWriter(a, dw);
        }
        OTF2_Archive_CloseDefFiles(a);
    }
    if (OTF2_Archive_Close(a) != OTF2_SUCCESS) ok = false;
    /* The events: this rank's files of the run's archive, moved in. */
    snprintf(to, sizeof to, "%s/traces", dir);
    if (mkdir(to, 0755) != 0 && errno != EEXIST) ok = false;
    for (int i = 0; i < nlocs; i++) {
        snprintf(from, sizeof from, "%s/trace/traces/%llu.evt", msc_g.outdir,
                 (unsigned long long)locs[i].id);
        snprintf(to, sizeof to, "%s/traces/%llu.evt", dir, (unsigned long long)locs[i].id);
        if (rename(from, to) != 0 && locs[i].events) ok = false;
    }
    return ok;
}
