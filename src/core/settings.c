/* Settings parser. Each value is checked against the table in settings.def;
 * a bad value keeps the default and yields one message that names the
 * variable, quotes what was given and says what is allowed. Variables that
 * start with MPISCOPE_ but name no setting are reported too: a misspelt
 * setting that silently does nothing is the worst kind of bad setting.
 */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const msc_setting_desc_t table[MSC_SET_COUNT] = {
#define MSC_SETTING(id, name, type, lo, hi, choices, dflt, help) \
    [MSC_SET_##id] = {name, type, lo, hi, choices, dflt, help},
#include "settings.def"
#undef MSC_SETTING
};

const msc_setting_desc_t *msc_setting_desc(msc_setting_id_t id)
{
    return (unsigned)id < MSC_SET_COUNT ? &table[id] : NULL;
}

msc_setting_id_t msc_setting_find(const char *name)
{
    for (int i = 0; i < MSC_SET_COUNT; i++)
        if (strcmp(table[i].name, name) == 0) return (msc_setting_id_t)i;
    return MSC_SET_COUNT;
}

/* Index of word [w, w+n) in a "a|b|c" list, or -1. */
static int choice_index(const char *choices, const char *w, size_t n)
{
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, w, n) == 0) return idx;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

static bool parse_integer(const char *text, long long *out, bool allow_suffix)
{
    while (isspace((unsigned char)*text)) text++;
    if (!isdigit((unsigned char)*text) && *text != '-' && *text != '+') return false;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno == ERANGE || end == text) return false;
    if (allow_suffix && *end) {
        long long mul = 1;
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1LL << 10; break;
        case 'M': mul = 1LL << 20; break;
        case 'G': mul = 1LL << 30; break;
        case 'T': mul = 1LL << 40; break;
        default: return false;
        }
        end++;
        if (toupper((unsigned char)*end) == 'B' || toupper((unsigned char)*end) == 'I') {
            if (toupper((unsigned char)*end) == 'I') end++;
            if (toupper((unsigned char)*end) == 'B') end++;
        }
        /* Both signs: a negative value times the suffix must not wrap around
         * into the allowed range either. */
        if (v > __LONG_LONG_MAX__ / mul || v < -__LONG_LONG_MAX__ / mul) return false;
        v *= mul;
    }
    while (isspace((unsigned char)*end)) end++;
    if (*end) return false;
    *out = v;
    return true;
}

bool msc_setting_parse(msc_setting_id_t id, const char *text, msc_setting_value_t *out,
                       char *err, size_t errlen)
{
    const msc_setting_desc_t *d = msc_setting_desc(id);
    if (!d) {
        snprintf(err, errlen, "no such setting");
        return false;
    }
    if (!text) {
        snprintf(err, errlen, "%s has no value", d->name);
        return false;
    }
    if (strlen(text) >= sizeof out->str) {
        snprintf(err, errlen, "%s is %zu characters long; at most %zu are allowed", d->name,
                 strlen(text), sizeof out->str - 1);
        return false;
    }
    msc_setting_value_t v = {0};
    snprintf(v.str, sizeof v.str, "%s", text);
    switch (d->type) {
    case MSC_SETTING_BOOL:
        if (!strcasecmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "on") ||
            !strcasecmp(text, "true"))
            v.num = 1;
        else if (!strcasecmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "off") ||
                 !strcasecmp(text, "false"))
            v.num = 0;
        else {
            snprintf(err, errlen, "%s='%s' is not a yes/no value; use 1, 0, yes, no, on, off",
                     d->name, text);
            return false;
        }
        break;
    case MSC_SETTING_INT:
    case MSC_SETTING_SIZE:
        if (!parse_integer(text, &v.num, d->type == MSC_SETTING_SIZE) || v.num < d->lo ||
            v.num > d->hi) {
            if (d->type == MSC_SETTING_SIZE)
                snprintf(err, errlen,
                         "%s='%s' is not a size from %lld to %lld bytes (suffixes K, M, G, T "
                         "allowed)",
                         d->name, text, d->lo, d->hi);
            else
                snprintf(err, errlen, "%s='%s' is not a whole number from %lld to %lld", d->name,
                         text, d->lo, d->hi);
            return false;
        }
        break;
    case MSC_SETTING_CHOICE: {
        int i = choice_index(d->choices, text, strlen(text));
        if (i < 0) {
            snprintf(err, errlen, "%s='%s' is not one of %s", d->name, text, d->choices);
            return false;
        }
        v.num = i;
        break;
    }
    case MSC_SETTING_LIST: {
        const char *p = text;
        if (!*p) {
            snprintf(err, errlen, "%s is empty; give a comma-separated list of %s", d->name,
                     d->choices);
            return false;
        }
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            int i = choice_index(d->choices, p, n);
            if (i < 0) {
                snprintf(err, errlen, "%s='%s': '%.*s' is not one of %s", d->name, text, (int)n,
                         p, d->choices);
                return false;
            }
            v.num |= 1LL << i;
            if (!comma) break;
            p = comma + 1;
        }
        break;
    }
    case MSC_SETTING_STRING:
        break;
    }
    v.given = true;
    *out = v;
    return true;
}

static void load_default(msc_setting_id_t id, msc_setting_value_t *out)
{
    char err[256];
    if (!msc_setting_parse(id, table[id].dflt, out, err, sizeof err)) abort(); /* table bug */
    out->given = false;
}

int msc_settings_load(msc_settings_t *s, char *const *envp,
                      void (*report)(const char *message, void *arg), void *arg)
{
    int problems = 0;
    char err[MSC_SETTING_MAX_STRING + 256];
    for (int i = 0; i < MSC_SET_COUNT; i++) {
        load_default((msc_setting_id_t)i, &s->v[i]);
        const char *text = getenv(table[i].name);
        if (!text) continue;
        if (!msc_setting_parse((msc_setting_id_t)i, text, &s->v[i], err, sizeof err)) {
            problems++;
            if (report) {
                char msg[sizeof err + 64];
                if (*table[i].dflt)
                    snprintf(msg, sizeof msg, "%s; using the default '%s'", err, table[i].dflt);
                else
                    snprintf(msg, sizeof msg, "%s; the setting is ignored", err);
                report(msg, arg);
            }
        }
    }
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "MPISCOPE_", 9) != 0) continue;
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        char name[128];
        if (n >= sizeof name) n = sizeof name - 1;
        memcpy(name, *e, n);
        name[n] = 0;
        if (msc_setting_find(name) != MSC_SET_COUNT) continue;
        if (strncmp(name, "MPISCOPE_TEST_", 14) == 0) continue; /* test-only knobs */
        problems++;
        if (report) {
            char msg[512];
            int len = snprintf(msg, sizeof msg, "unknown setting %s ignored; known settings:", name);
            for (int i = 0; i < MSC_SET_COUNT && len > 0 && (size_t)len < sizeof msg; i++)
                len += snprintf(msg + len, sizeof msg - (size_t)len, " %s", table[i].name);
            report(msg, arg);
        }
    }
    return problems;
}

void msc_settings_print_help(FILE *out)
{
    for (int i = 0; i < MSC_SET_COUNT; i++) {
        const msc_setting_desc_t *d = &table[i];
        fprintf(out, "  %-26s %s", d->name, d->help);
        if (d->choices) fprintf(out, " [%s]", d->choices);
        if (d->type == MSC_SETTING_INT) fprintf(out, " [%lld..%lld]", d->lo, d->hi);
        fprintf(out, " (default: %s)\n", *d->dflt ? d->dflt : "see above");
    }
}
