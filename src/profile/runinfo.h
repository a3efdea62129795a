/* Private to the profile module. What profile.json says about the run
 * itself ("run": command line, start, hosts, MPI library, settings).
 *
 * Each rank notes at MPI_Init its host name, the wall-clock time, its
 * command line (/proc/self/cmdline) and the executable's full path
 * (/proc/self/exe); the hosts and the command lines travel up the merge
 * tree as tables of strings with one index per rank (merge.c: a job of
 * several programs, MPMD or MPI_Comm_spawn_multiple, has several commands),
 * and rank 0 writes the rest from its own (a rank writing a flush of its
 * own, from its own).
 */
#ifndef MSC_PROFILE_RUNINFO_H
#define MSC_PROFILE_RUNINFO_H

#include <stdint.h>
#include <stdio.h>

/* At profile init, on every rank (after PMPI_Init). */
void msc_prun_init(void) __attribute__((visibility("hidden")));

/* This rank's host name. */
const char *msc_prun_host(void) __attribute__((visibility("hidden")));

/* The program: the executable's file name, whole (not /proc/self/comm's
 * 15 characters). */
const char *msc_prun_program(void) __attribute__((visibility("hidden")));

/* This rank's command line as one string: the executable's path and the
 * arguments, each quoted as a shell would need it. */
const char *msc_prun_command(void) __attribute__((visibility("hidden")));

/* The "run" object's members (without braces): executable, args, command,
 * start time, duration (`wall_ns`, the longest rank), the MPI library and
 * its version, mpiscope's version, every setting that differs from its
 * default and, under Slurm, the job ("slurm": id, step, cluster, node
 * list). The hosts are the caller's (they come from the merge). */
void msc_prun_json(FILE *o, uint64_t wall_ns) __attribute__((visibility("hidden")));

#endif
