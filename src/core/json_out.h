/* Private to mpiscope. Writing JSON text: the one string writer that every
 * file mpiscope writes as JSON uses (profile.json, checks.json, mpit.json,
 * waitstates.json, the Chrome export, `mpiscope vars --json`). Part of
 * msc_base, so the tool library and the programs share it.
 */
#ifndef MSC_CORE_JSON_OUT_H
#define MSC_CORE_JSON_OUT_H

#include <stdio.h>

/* Writes `s` (NULL: the empty string) as a JSON string, quotes included:
 * '"' and '\\' escaped, control characters as \u00XX, other bytes as they
 * are (UTF-8 passes through). */
void msc_json_put_string(FILE *f, const char *s);

#endif
