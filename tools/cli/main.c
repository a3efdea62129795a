/* The `mpiscope` program: the entry point and the subcommands' dispatch.
 *
 * `mpiscope <command> [arguments]` hands the arguments after the command's
 * name to the command (commands.h). This file only adds the program-wide
 * options (--help, --version) and `mpiscope help <command>`, which asks the
 * command for its own help so that the text lives next to the code it
 * describes.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "paths.h"

#ifndef MSC_VERSION
#error "MSC_VERSION must be defined by the build"
#endif

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: mpiscope <command> [arguments]\n"
            "\n"
            "mpiscope profiles and traces MPI programs through the MPI profiling\n"
            "interface, without recompiling them.\n"
            "\n"
            "Commands:\n"
            "  run [options] -- <launcher> ... <program> [args]\n"
            "                    run an MPI program with the tool loaded into every rank\n"
            "  report DIR        summarize the results in DIR (--html: one HTML page)\n"
            "  export --chrome [--ranks LIST] [--from S] [--to S] DIR\n"
            "                    the trace as Chrome trace-event JSON (Perfetto); refused\n"
            "                    above an estimated 1 GiB (--max-size, --force)\n"
            "  export --folded [--per-rank] [-o FILE] DIR\n"
            "                    the profile's call paths as folded stacks (flame graphs)\n"
            "  diff A B          compare two profiles\n"
            "  replay [--latency L] [--bandwidth B] [--scale S] DIR\n"
            "                    predict the run on another network or with faster code\n"
            "  vars [PATTERN]    the MPI's MPI_T variables, mpiscope's own included\n"
            "  help [command]    show this help, or a command's\n"
            "\n"
            "Options:\n"
            "  -h, --help        show this help\n"
            "  -V, --version     show the version and where the tool libraries are\n"
            "\n"
            "Example: mpiscope run -- mpirun -np 4 ./app\n"
            "See 'mpiscope help run' for the options of run and the settings.\n");
}

static int print_version(void)
{
    printf("mpiscope %s\n", MSC_VERSION);
    static const char *const mpis[] = {"openmpi", "mpich"};
    for (size_t i = 0; i < sizeof mpis / sizeof mpis[0]; i++) {
        char path[4096];
        bool found = msc_tool_library(mpis[i], path, sizeof path);
        printf("  %-8s %s%s\n", mpis[i], path, found ? "" : " (not built)");
    }
    return 0;
}

static int help_for(const char *command)
{
    char help[] = "--help";
    char *argv[] = {help, NULL};
    if (strcmp(command, "run") == 0) return msc_cmd_run(1, argv);
    if (strcmp(command, "report") == 0) return msc_cmd_report_all(1, argv);
    if (strcmp(command, "export") == 0) return msc_cmd_export(1, argv);
    if (strcmp(command, "diff") == 0) return msc_cmd_diff(1, argv);
    if (strcmp(command, "replay") == 0) return msc_cmd_replay(1, argv);
    if (strcmp(command, "vars") == 0) return msc_cmd_vars(1, argv);
    if (strcmp(command, "help") == 0) {
        print_usage(stdout);
        return 0;
    }
    fprintf(stderr, "mpiscope help: no command is named '%s'; the commands are export, diff, replay, vars, run, "
                    "report and help\n",
            command);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const char *command = argv[1];
    if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(command, "-V") == 0 || strcmp(command, "--version") == 0) return print_version();
    if (strcmp(command, "help") == 0) {
        if (argc == 2) {
            print_usage(stdout);
            return 0;
        }
        if (argc > 3) {
            fprintf(stderr, "mpiscope help: give one command (run, report, export, diff, replay, vars or help)\n");
            return 2;
        }
        return help_for(argv[2]);
    }
    if (strcmp(command, "run") == 0) return msc_cmd_run(argc - 2, argv + 2);
    if (strcmp(command, "report") == 0) return msc_cmd_report_all(argc - 2, argv + 2);
    if (strcmp(command, "export") == 0) return msc_cmd_export(argc - 2, argv + 2);
    if (strcmp(command, "diff") == 0) return msc_cmd_diff(argc - 2, argv + 2);
    if (strcmp(command, "replay") == 0) return msc_cmd_replay(argc - 2, argv + 2);
    if (strcmp(command, "vars") == 0) return msc_cmd_vars(argc - 2, argv + 2);
    if (command[0] == '-')
        fprintf(stderr, "mpiscope: unknown option '%s'; the options are -h/--help and "
                        "-V/--version, or a command: run, report, export, diff, replay, vars, help\n",
                command);
    else
        fprintf(stderr, "mpiscope: no command is named '%s'; the commands are export, diff, replay, vars, run, "
                        "report and help (see mpiscope --help)\n",
                command);
    return 2;
}
