/* Private to mpiscope. The names of the MPI_T performance-variable classes,
 * as mpiscope prints them (mpit.txt and mpit.json, and the records of
 * mpiscope-vars, tools/vars): the class constant without its prefix, lower
 * case. Header-only, so that the helper program, built apart from the tool
 * library, uses the same words. */
#ifndef MSC_MPIT_PVAR_CLASS_H
#define MSC_MPIT_PVAR_CLASS_H

#include <mpi.h>

static inline const char *msc_pvar_class_name(int c)
{
    switch (c) {
    case MPI_T_PVAR_CLASS_STATE: return "state";
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_SIZE: return "size";
    case MPI_T_PVAR_CLASS_PERCENTAGE: return "percentage";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    case MPI_T_PVAR_CLASS_LOWWATERMARK: return "lowwatermark";
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    case MPI_T_PVAR_CLASS_AGGREGATE: return "aggregate";
    case MPI_T_PVAR_CLASS_TIMER: return "timer";
    case MPI_T_PVAR_CLASS_GENERIC: return "generic";
    default: return "?";
    }
}

#endif
