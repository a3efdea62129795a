/* The subcommands of the `mpiscope` program. Each lives in its own file and
 * takes the arguments after its name: argv[0] is the first argument after
 * "run" or "report", not the subcommand's name. Each returns the program's
 * exit code (0 success, 2 usage error, or what the launched application
 * returned), and answers -h/--help as its first argument with its help on
 * stdout and 0 (`mpiscope help <command>` calls it that way). */
#ifndef MSC_CLI_COMMANDS_H
#define MSC_CLI_COMMANDS_H

int msc_cmd_run(int argc, char **argv);     /* run.c */
int msc_cmd_report(int argc, char **argv);  /* report.c: the profile text alone */
int msc_cmd_report_all(int argc, char **argv); /* report_cmd.c: profile, wait states, --html */
int msc_cmd_export(int argc, char **argv); /* export_chrome.c: --chrome; --folded goes to: */
int msc_export_folded(int argc, char **argv); /* export_folded.c */
int msc_cmd_diff(int argc, char **argv);   /* diff.c */
int msc_cmd_replay(int argc, char **argv); /* replay_cmd.c: what-if replay of a trace */
int msc_cmd_vars(int argc, char **argv);   /* vars.c: MPI_T variables */

#endif
