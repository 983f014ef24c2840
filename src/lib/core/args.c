/* args.c - the values of options (args.h): each parser accepts the whole
 * argument or says what it wanted, through the one usage-error call. */
#include "core/args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void
tr_usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fflush(stdout);
	tr_warn("%s", msg);
	tr_usage_try();
}

void
tr_usage_try(void)
{
	fprintf(stderr, "try '%s --help'\n", tr_progname);
	exit(TR_EXIT_USAGE);
}

int64_t
tr_arg_count(const char *opt, const char *s, int64_t min, int64_t max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end != s && !*end && !errno && v >= min && v <= max)
		return v;
	if (max == TR_ARG_NO_MAX)
		tr_usage_error("%s: not a count of %lld or more: %s", opt, (long long)min, s);
	tr_usage_error("%s: not a count from %lld to %lld: %s", opt, (long long)min, (long long)max, s);
}

double
tr_arg_real(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && !*end && !errno && isfinite(v) && v >= min && v <= max)
		return v;
	if (max == HUGE_VAL)
		tr_usage_error("%s: not a number of %g or more: %s", opt, min, s);
	tr_usage_error("%s: not a number from %g to %g: %s", opt, min, max, s);
}

double
tr_arg_percentile(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && !errno && (!*end || strcmp(end, "%") == 0) && v >= 0 && v <= 100)
		return v;
	tr_usage_error("%s: not a number from 0 to 100: %s", opt, s);
}

int64_t
tr_arg_duration(const char *opt, const char *s, int64_t min)
{
	int64_t v;

	if (parse_duration(s, &v) == 0 && v >= min)
		return v;
	tr_usage_error("%s: not a duration%s (1s, 250ms, 10us): %s", opt, min > 0 ? " over 0" : "", s);
}

double
tr_arg_share(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && !errno && strcmp(end, "%") == 0 && v >= 0 && v <= 100)
		return v / 100;
	if (end != s && !errno && !*end && v >= 0 && v <= 1)
		return v;
	/* a bare percentage (tr-temporal's --min-share was one): never read
	 * as a fraction, nor silently as a percentage */
	if (end != s && !errno && !*end && v > 1 && v <= 100)
		tr_usage_error("%s %s: a share is a fraction from 0 to 1; write %s%% for a percentage",
			       opt, s, s);
	tr_usage_error("%s: not a share from 0 to 1 (or 0%% to 100%%): %s", opt, s);
}

int
tr_arg_choice(const char *opt, const char *what, const char *s, const char *const *names)
{
	char list[256] = "";
	size_t n = 0;

	for (; names[n]; n++) {
		if (strcmp(s, names[n]) == 0)
			return (int)n;
		strncat(list, n ? ", " : "", sizeof list - strlen(list) - 1);
		strncat(list, names[n], sizeof list - strlen(list) - 1);
	}
	/* names are short: two edits turn "png" into "svg" */
	size_t limit = strlen(s) / 3;
	const char *near = closest_name_within(s, names, n, limit < 1 ? 1 : limit);

	if (near)
		tr_usage_error("%s: unknown %s \"%s\" (%s): did you mean %s?", opt, what, s, list, near);
	tr_usage_error("%s: unknown %s \"%s\" (%s)", opt, what, s, list);
}
