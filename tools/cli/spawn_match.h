/* Private to mpiscope. The spawn calls of a run that no spawned world with
 * results answers (spawn_match.c), for `mpiscope run` and `mpiscope report`
 * to name the worlds that left none.
 */
#ifndef MSC_CLI_SPAWN_MATCH_H
#define MSC_CLI_SPAWN_MATCH_H

/* One line per unanswered spawn call of the run in `dir` (its profile.json
 * and those of DIR/worlds/<id>), e.g. `MPI_Comm_spawn("./child mute", 2
 * processes) at spawn.c:52 in main by rank 0 of the job's world`; several
 * identical calls are one line that starts "K calls of". Returns the number
 * of lines; free them with msc_spawns_free. */
int msc_spawns_unanswered(const char *dir, char ***lines);
void msc_spawns_free(char **lines, int n);

#endif
