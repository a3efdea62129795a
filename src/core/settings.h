/* Private to mpiscope. Settings: the MPISCOPE_* environment variables.
 *
 * One X-macro table (settings.def) names every setting, its type, its range
 * and its default. The same parser serves the tool library (read once, before
 * PMPI_Init) and the `mpiscope` program (which validates before it launches),
 * so a bad value gets the same message in both places. This file includes no
 * MPI header: the command-line program links it without MPI.
 */
#ifndef MSC_CORE_SETTINGS_H
#define MSC_CORE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
    MSC_SETTING_BOOL,   /* 0/1, yes/no, on/off, true/false */
    MSC_SETTING_INT,    /* decimal integer within [min, max] */
    MSC_SETTING_SIZE,   /* bytes, with an optional K/M/G suffix, within [min, max] */
    MSC_SETTING_CHOICE, /* one word out of a '|' separated list */
    MSC_SETTING_LIST,   /* comma separated words, each out of a '|' list */
    MSC_SETTING_STRING, /* free text (a path) */
} msc_setting_type_t;

#define MSC_SETTING_MAX_STRING 1024

typedef enum {
#define MSC_SETTING(id, name, type, lo, hi, choices, dflt, help) MSC_SET_##id,
#include "settings.def"
#undef MSC_SETTING
    MSC_SET_COUNT
} msc_setting_id_t;

typedef struct {
    long long num;                    /* BOOL, INT, SIZE: value; CHOICE: index; LIST: bit mask */
    char str[MSC_SETTING_MAX_STRING]; /* STRING: value; every type: the text given */
    bool given;                       /* the variable was set in the environment */
} msc_setting_value_t;

typedef struct {
    msc_setting_value_t v[MSC_SET_COUNT];
} msc_settings_t;

typedef struct {
    const char *name;       /* environment variable, e.g. "MPISCOPE_MODE" */
    msc_setting_type_t type;
    long long lo, hi;       /* INT and SIZE bounds, inclusive */
    const char *choices;    /* CHOICE and LIST: "a|b|c" */
    const char *dflt;       /* default, as text */
    const char *help;       /* one line for --help and the messages */
} msc_setting_desc_t;

/* The table, indexed by msc_setting_id_t. */
const msc_setting_desc_t *msc_setting_desc(msc_setting_id_t id);

/* Parses `text` for setting `id` into `out`. On error returns false and writes
 * one sentence naming the setting and what is allowed into `err`. */
bool msc_setting_parse(msc_setting_id_t id, const char *text, msc_setting_value_t *out,
                       char *err, size_t errlen);

/* Fills `s` from `getenv`-like `lookup` (NULL: the process environment). Every
 * bad or unknown setting is reported through `report` (one call each) and the
 * default is kept for it. Returns the number of problems found. `envp` (may be
 * NULL) is scanned for MPISCOPE_* names that no setting has. */
int msc_settings_load(msc_settings_t *s, char *const *envp,
                      void (*report)(const char *message, void *arg), void *arg);

/* Looks a setting up by its environment name; returns MSC_SET_COUNT if none. */
msc_setting_id_t msc_setting_find(const char *name);

/* Writes one line per setting (name, allowed values, default, help). */
void msc_settings_print_help(FILE *out);

#endif
