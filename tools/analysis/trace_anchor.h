/* A plausibility check of an OTF2 anchor file before OTF2 reads it
 * (trace_anchor.c). */
#ifndef MSC_TRACE_ANCHOR_H
#define MSC_TRACE_ANCHOR_H

#include <stdbool.h>
#include <stddef.h>

/* False, with a message in err, when the anchor file `anchor` cannot be read
 * or declares more than its archive's files can hold. */
bool msc_anchor_plausible(const char *anchor, char *err, size_t errlen);

#endif
