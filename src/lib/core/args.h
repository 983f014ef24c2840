/* args.h - the values of options, in one vocabulary for every tool: a
 * count, a real number in a range, a duration, a share, a choice of names.
 * A bad value is a usage error in one form, "OPT: not a ...: VALUE", then
 * "try 'tr-xxx --help'", exit 2 (tr_usage_error). opt names the option as
 * the user may have typed it ("--top", "-f"). */
#ifndef TR_ARGS_H
#define TR_ARGS_H

#include <stdint.h>

/* No upper bound for tr_arg_count and tr_arg_real. */
#define TR_ARG_NO_MAX INT64_MAX

/* The message, then "try 'tr-xxx --help'"; exit 2. */
_Noreturn void tr_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The end of a usage error whose message was said already (one of
 * several lines, as a query's with its caret): "try 'tr-xxx --help'";
 * exit 2. tr_usage_error ends so. */
_Noreturn void tr_usage_try(void);

/* A whole number from min to max (max TR_ARG_NO_MAX: none), decimal. */
int64_t tr_arg_count(const char *opt, const char *s, int64_t min, int64_t max);
/* A finite number from min to max (max HUGE_VAL: none). */
double tr_arg_real(const char *opt, const char *s, double min, double max);
/* A percentile from 0 to 100, written P or P% (90, 90%: the 90th). */
double tr_arg_percentile(const char *opt, const char *s);
/* A duration in µs: a number and a unit (us, ms, s, m, h; none: µs),
 * at least min (0, or 1 for "longer than 0"). */
int64_t tr_arg_duration(const char *opt, const char *s, int64_t min);
/* A share of a whole: a fraction from 0 to 1, or a percentage N% from 0%
 * to 100%; the fraction either way. */
double tr_arg_share(const char *opt, const char *s);
/* The index of s in names (NULL-terminated); what says what they are
 * ("format"): otherwise "OPT: unknown WHAT "s" (a, b, c)", with the
 * closest name when one is near. */
int tr_arg_choice(const char *opt, const char *what, const char *s, const char *const *names);

#endif
