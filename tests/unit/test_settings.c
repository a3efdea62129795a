/* The settings parser (src/core/settings.c): every type of settings.def, its
 * bounds, garbage of every shape, and msc_settings_load's reports (one per
 * problem, naming the setting, the default kept). Each test starts from an
 * environment without MPISCOPE_* variables. */
#include <stdint.h>

#include "runner.h"
#include "settings.h"

extern char **environ;

static void clear_env(void)
{
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; e && *e; e++) {
            if (strncmp(*e, "MPISCOPE_", 9) == 0) {
                char name[256];
                size_t n = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)n, *e);
                unsetenv(name);
                again = 1;
                break;
            }
        }
    }
}

static char err[2048];

/* Parses `text` for `id`; fails the test if that does not succeed. */
static long long ok(msc_setting_id_t id, const char *text)
{
    msc_setting_value_t v;
    err[0] = 0;
    if (!msc_setting_parse(id, text, &v, err, sizeof err))
        FAIL("%s='%s' rejected: %s", msc_setting_desc(id)->name, text, err);
    if (!v.given) FAIL("%s='%s': given not set", msc_setting_desc(id)->name, text);
    return v.num;
}

/* Parses `text` for `id`; fails the test if that succeeds, or if the message
 * does not name the setting and quote the value. Leaves the message in err. */
static void bad(msc_setting_id_t id, const char *text)
{
    msc_setting_value_t v = {.num = 12345};
    err[0] = 0;
    if (msc_setting_parse(id, text, &v, err, sizeof err))
        FAIL("%s='%s' accepted as %lld", msc_setting_desc(id)->name, text, v.num);
    if (v.num != 12345) FAIL("%s='%s': output written on error", msc_setting_desc(id)->name, text);
    ASSERT_HAS(err, msc_setting_desc(id)->name);
}

/* --- bool: MPISCOPE_QUIET --------------------------------------------- */

TEST(settings_bool_true_words)
{
    const char *words[] = {"1", "yes", "on", "true", "YES", "On", "True"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        ASSERT_EQ(ok(MSC_SET_QUIET, words[i]), 1);
}

TEST(settings_bool_false_words)
{
    const char *words[] = {"0", "no", "off", "false", "NO", "Off", "FALSE"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        ASSERT_EQ(ok(MSC_SET_QUIET, words[i]), 0);
}

TEST(settings_bool_rejects_garbage)
{
    const char *words[] = {"", " ", "2", "-1", "y", "n", "yes ", " no", "maybe", "1x", "00"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) bad(MSC_SET_QUIET, words[i]);
    bad(MSC_SET_QUIET, "maybe");
    ASSERT_HAS(err, "'maybe'");
    ASSERT_HAS(err, "yes");
}

/* --- int: MPISCOPE_CALLSITE_DEPTH, 0..8 ------------------------------- */

TEST(settings_int_bounds)
{
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, "0"), 0);
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, "8"), 8);
    bad(MSC_SET_CALLSITE_DEPTH, "9");
    ASSERT_HAS(err, "from 0 to 8");
    bad(MSC_SET_CALLSITE_DEPTH, "-1");
    bad(MSC_SET_CALLSITE_DEPTH, "1000");
}

TEST(settings_int_sign_and_blanks)
{
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, "+3"), 3);
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, " 3"), 3);
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, "3 "), 3);
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, "007"), 7);
    ASSERT_EQ(ok(MSC_SET_CALLSITE_DEPTH, "-0"), 0);
}

TEST(settings_int_rejects_garbage)
{
    const char *words[] = {"", " ", "-", "+", "abc", "3x", "x3", "3.5", "0x3", "3e0",
                           "--1", "- 1", "1 2", "3K", "١"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        bad(MSC_SET_CALLSITE_DEPTH, words[i]);
}

TEST(settings_int_rejects_overflow)
{
    bad(MSC_SET_CALLSITE_DEPTH, "9223372036854775807");  /* LLONG_MAX: parses, out of range */
    bad(MSC_SET_CALLSITE_DEPTH, "9223372036854775808");  /* LLONG_MAX + 1 */
    bad(MSC_SET_CALLSITE_DEPTH, "-9223372036854775809");
    bad(MSC_SET_CALLSITE_DEPTH, "99999999999999999999999999999999");
    /* strtoll saturates at LLONG_MAX; the next value must not look like it. */
    bad(MSC_SET_CALLSITE_DEPTH, "18446744073709551619");
}

/* --- size: MPISCOPE_TRACE_BUFFER, 512K..1T ------------------------------ */

TEST(settings_size_suffixes)
{
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "524288"), 524288);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "512K"), 524288);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "512k"), 524288);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "512KB"), 524288);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "512KiB"), 524288);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "3M"), 3LL << 20);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "2g"), 2LL << 30);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, "1T"), 1LL << 40);
    ASSERT_EQ(ok(MSC_SET_TRACE_BUFFER, " 1M "), 1LL << 20);
}

TEST(settings_size_bounds)
{
    bad(MSC_SET_TRACE_BUFFER, "524287");
    ASSERT_HAS(err, "from 524288 to 1099511627776");
    bad(MSC_SET_TRACE_BUFFER, "0");
    bad(MSC_SET_TRACE_BUFFER, "1025G");
    bad(MSC_SET_TRACE_BUFFER, "2T");
    bad(MSC_SET_TRACE_BUFFER, "-512K");
    bad(MSC_SET_TRACE_BUFFER, "-1");
}

TEST(settings_size_rejects_garbage)
{
    const char *words[] = {"", " ", "K", "M64", "64X", "64KK", "64 K", "1.5M", "64KBB",
                           "64KBi", "64B", "1P", "0x10000", "lots"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) bad(MSC_SET_TRACE_BUFFER, words[i]);
    bad(MSC_SET_TRACE_BUFFER, "64X");
    ASSERT_HAS(err, "suffixes");
}

TEST(settings_size_rejects_overflow)
{
    bad(MSC_SET_TRACE_BUFFER, "9223372036854775807K");
    bad(MSC_SET_TRACE_BUFFER, "8589934592G");      /* 2^63 bytes */
    bad(MSC_SET_TRACE_BUFFER, "9007199254740992K"); /* 2^63 bytes */
    bad(MSC_SET_TRACE_BUFFER, "99999999999999999999M");
    /* -(2^34 - 1) G wraps around to +1 G in 64-bit arithmetic. */
    bad(MSC_SET_TRACE_BUFFER, "-17179869183G");
    bad(MSC_SET_TRACE_BUFFER, "-9223372036854775807T");
}

/* --- choice: MPISCOPE_CLOCK -------------------------------------------- */

TEST(settings_choice_words)
{
    ASSERT_EQ(ok(MSC_SET_CLOCK, "auto"), 0);
    ASSERT_EQ(ok(MSC_SET_CLOCK, "tsc"), 1);
    ASSERT_EQ(ok(MSC_SET_CLOCK, "monotonic"), 2);
}

TEST(settings_choice_rejects_garbage)
{
    const char *words[] = {"", " ", "rdtsc", "ts", "tscc", "auto,tsc", "auto|tsc", " tsc",
                           "tsc ", "|", "monotonic|"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) bad(MSC_SET_CLOCK, words[i]);
    bad(MSC_SET_CLOCK, "rdtsc");
    ASSERT_HAS(err, "auto|tsc|monotonic");
}

/* --- list: MPISCOPE_MODE ---------------------------------------------- */

TEST(settings_list_words)
{
    ASSERT_EQ(ok(MSC_SET_MODE, "profile"), 1);
    ASSERT_EQ(ok(MSC_SET_MODE, "trace"), 2);
    ASSERT_EQ(ok(MSC_SET_MODE, "profile,trace"), 3);
    ASSERT_EQ(ok(MSC_SET_MODE, "check,profile"), 5);
    ASSERT_EQ(ok(MSC_SET_MODE, "trace,trace"), 2);
    ASSERT_EQ(ok(MSC_SET_MODE, "none"), 8);
}

TEST(settings_list_rejects_garbage)
{
    const char *words[] = {"", ",", "profile,", ",trace", "profile,,trace", "profile trace",
                           "profile;trace", "bogus", "PROFILE", "profile|trace"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) bad(MSC_SET_MODE, words[i]);
    bad(MSC_SET_MODE, "profile,bogus");
    ASSERT_HAS(err, "'bogus'");
    ASSERT_HAS(err, "profile|trace|check|none");
}

/* --- string: MPISCOPE_OUTPUT ------------------------------------------- */

TEST(settings_string_any_text)
{
    msc_setting_value_t v;
    ASSERT(msc_setting_parse(MSC_SET_OUTPUT, "/tmp/a b/ü", &v, err, sizeof err));
    ASSERT_STR_EQ(v.str, "/tmp/a b/ü");
    ASSERT(msc_setting_parse(MSC_SET_OUTPUT, "", &v, err, sizeof err));
    ASSERT_STR_EQ(v.str, "");
}

TEST(settings_string_length_limit)
{
    static char text[MSC_SETTING_MAX_STRING + 1];
    msc_setting_value_t v;
    memset(text, 'x', MSC_SETTING_MAX_STRING - 1);
    ASSERT(msc_setting_parse(MSC_SET_OUTPUT, text, &v, err, sizeof err));
    ASSERT_EQ(strlen(v.str), MSC_SETTING_MAX_STRING - 1);
    text[MSC_SETTING_MAX_STRING - 1] = 'x';
    bad(MSC_SET_OUTPUT, text);
    ASSERT_HAS(err, "at most 1023");
    /* The length check comes first for every type. */
    memset(text, '1', MSC_SETTING_MAX_STRING);
    bad(MSC_SET_TRACE_BUFFER, text);
}

/* --- the table and msc_settings_load ---------------------------------- */

TEST(settings_every_default_parses)
{
    for (int i = 0; i < MSC_SET_COUNT; i++) {
        const msc_setting_desc_t *d = msc_setting_desc((msc_setting_id_t)i);
        ASSERT(d && d->name && d->help && d->dflt);
        ASSERT(strncmp(d->name, "MPISCOPE_", 9) == 0);
        ok((msc_setting_id_t)i, d->dflt);
        ASSERT_EQ(msc_setting_find(d->name), i);
    }
    ASSERT_EQ(msc_setting_find("MPISCOPE_NOPE"), MSC_SET_COUNT);
    ASSERT(msc_setting_desc(MSC_SET_COUNT) == NULL);
}

static char reports[8][1400];
static int n_reports;

static void collect(const char *message, void *arg)
{
    ASSERT(arg == (void *)reports);
    ASSERT(n_reports < 8);
    snprintf(reports[n_reports++], sizeof reports[0], "%s", message);
}

static int load(msc_settings_t *s)
{
    n_reports = 0;
    memset(s, 0x5a, sizeof *s);
    return msc_settings_load(s, environ, collect, reports);
}

TEST(settings_load_defaults)
{
    clear_env();
    msc_settings_t s;
    ASSERT_EQ(load(&s), 0);
    ASSERT_EQ(n_reports, 0);
    ASSERT_EQ(s.v[MSC_SET_MODE].num, 1);
    ASSERT_STR_EQ(s.v[MSC_SET_OUTPUT].str, "");
    ASSERT_EQ(s.v[MSC_SET_CALLSITE_DEPTH].num, 1);
    ASSERT_EQ(s.v[MSC_SET_CLOCK].num, 0);
    ASSERT_EQ(s.v[MSC_SET_QUIET].num, 0);
    ASSERT_EQ(s.v[MSC_SET_TRACE_BUFFER].num, 64LL << 20);
    for (int i = 0; i < MSC_SET_COUNT; i++) ASSERT(!s.v[i].given);
}

TEST(settings_load_good_values)
{
    clear_env();
    setenv("MPISCOPE_MODE", "trace,check", 1);
    setenv("MPISCOPE_OUTPUT", "/tmp/out", 1);
    setenv("MPISCOPE_CALLSITE_DEPTH", "4", 1);
    setenv("MPISCOPE_CLOCK", "monotonic", 1);
    setenv("MPISCOPE_QUIET", "yes", 1);
    setenv("MPISCOPE_TRACE_BUFFER", "1G", 1);
    msc_settings_t s;
    ASSERT_EQ(load(&s), 0);
    ASSERT_EQ(s.v[MSC_SET_MODE].num, 6);
    ASSERT_STR_EQ(s.v[MSC_SET_OUTPUT].str, "/tmp/out");
    ASSERT_EQ(s.v[MSC_SET_CALLSITE_DEPTH].num, 4);
    ASSERT_EQ(s.v[MSC_SET_CLOCK].num, 2);
    ASSERT_EQ(s.v[MSC_SET_QUIET].num, 1);
    ASSERT_EQ(s.v[MSC_SET_TRACE_BUFFER].num, 1LL << 30);
    for (int i = 0; i < MSC_SET_COUNT; i++)
        ASSERT_EQ(s.v[i].given, getenv(msc_setting_desc((msc_setting_id_t)i)->name) != NULL);
}

TEST(settings_load_bad_value_keeps_default)
{
    clear_env();
    setenv("MPISCOPE_TRACE_BUFFER", "lots", 1);
    msc_settings_t s;
    ASSERT_EQ(load(&s), 1);
    ASSERT_EQ(n_reports, 1);
    ASSERT_HAS(reports[0], "MPISCOPE_TRACE_BUFFER");
    ASSERT_HAS(reports[0], "'lots'");
    ASSERT_HAS(reports[0], "using the default '64M'");
    ASSERT_EQ(s.v[MSC_SET_TRACE_BUFFER].num, 64LL << 20);
    ASSERT(!s.v[MSC_SET_TRACE_BUFFER].given);
}

TEST(settings_load_empty_value_keeps_default)
{
    clear_env();
    setenv("MPISCOPE_CALLSITE_DEPTH", "", 1);
    msc_settings_t s;
    ASSERT_EQ(load(&s), 1);
    ASSERT_HAS(reports[0], "MPISCOPE_CALLSITE_DEPTH");
    ASSERT_HAS(reports[0], "using the default '1'");
    ASSERT_EQ(s.v[MSC_SET_CALLSITE_DEPTH].num, 1);
}

TEST(settings_load_unknown_name_reported)
{
    clear_env();
    setenv("MPISCOPE_MODES", "trace", 1);
    msc_settings_t s;
    ASSERT_EQ(load(&s), 1);
    ASSERT_EQ(n_reports, 1);
    ASSERT_HAS(reports[0], "unknown setting MPISCOPE_MODES");
    ASSERT_HAS(reports[0], "MPISCOPE_MODE ");
    ASSERT_EQ(s.v[MSC_SET_MODE].num, 1); /* not taken as MPISCOPE_MODE */
}

TEST(settings_load_test_knobs_not_reported)
{
    clear_env();
    setenv("MPISCOPE_TEST_ANYTHING", "1", 1);
    msc_settings_t s;
    ASSERT_EQ(load(&s), 0);
    ASSERT_EQ(n_reports, 0);
}

TEST(settings_load_one_report_per_problem)
{
    clear_env();
    setenv("MPISCOPE_QUIET", "perhaps", 1);
    setenv("MPISCOPE_CLOCK", "sundial", 1);
    setenv("MPISCOPE_MODE", "profile", 1);
    setenv("MPISCOPE_COLOUR", "blue", 1);
    msc_settings_t s;
    ASSERT_EQ(load(&s), 3);
    ASSERT_EQ(n_reports, 3);
    ASSERT_HAS(reports[0], "MPISCOPE_CLOCK='sundial'");
    ASSERT_HAS(reports[1], "MPISCOPE_QUIET='perhaps'");
    ASSERT_HAS(reports[2], "MPISCOPE_COLOUR");
    ASSERT_EQ(s.v[MSC_SET_MODE].num, 1);
    ASSERT(s.v[MSC_SET_MODE].given);
    ASSERT_EQ(s.v[MSC_SET_CLOCK].num, 0);
    ASSERT_EQ(s.v[MSC_SET_QUIET].num, 0);
}

TEST(settings_load_without_reporter)
{
    clear_env();
    setenv("MPISCOPE_QUIET", "perhaps", 1);
    setenv("MPISCOPE_COLOUR", "blue", 1);
    msc_settings_t s;
    ASSERT_EQ(msc_settings_load(&s, environ, NULL, NULL), 2);
    ASSERT_EQ(s.v[MSC_SET_QUIET].num, 0);
    /* Without envp, unknown names cannot be seen. */
    ASSERT_EQ(msc_settings_load(&s, NULL, NULL, NULL), 1);
}

TEST(settings_help_lists_every_setting)
{
    char buf[8192] = {0};
    FILE *f = tmpfile();
    ASSERT(f);
    msc_settings_print_help(f);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    ASSERT(n > 0);
    for (int i = 0; i < MSC_SET_COUNT; i++)
        ASSERT_HAS(buf, msc_setting_desc((msc_setting_id_t)i)->name);
    ASSERT_HAS(buf, "[0..8]");
}
