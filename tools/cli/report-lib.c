/* The profile's JSON reader and text renderer, compiled into the `mpiscope`
 * program from the same sources the tool library uses (src/profile/), so
 * that `mpiscope report` and profile.txt can never disagree. The CLI's build
 * takes every .c file of tools/cli; this file is how those two sources get in. */
#include "../../src/profile/pjson.c"
#include "../../src/profile/render.c"
#include "../../src/profile/pop.c"
