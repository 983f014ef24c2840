#!/bin/sh
# Make sure the build and test dependencies are present: libyajl (tr-ingest's
# streaming JSON parser), libjansson (builds the JSON the tools write), libzstd and zlib (compressed input; headers), bats, jq and
# zstd (tests compare against them), graphviz, mandoc,
# groff and column (tests render DOT, lint and format the man pages, align the
# walkthrough's tables), clang and its libFuzzer runtime (fuzz corpus replay);
# and chromium, where it can be installed: the tests that look at the
# pictures and the report in a browser (they skip without it, so a machine
# where it cannot be installed still builds and tests).
# Installs the missing ones with apt-get when run as root.
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have_header yajl/yajl_parse.h || missing="$missing libyajl-dev"
have_header jansson.h || missing="$missing libjansson-dev"
have_header zstd.h    || missing="$missing libzstd-dev"
have_header zlib.h    || missing="$missing zlib1g-dev"
command -v bats >/dev/null 2>&1 || missing="$missing bats"
command -v jq >/dev/null 2>&1   || missing="$missing jq"
command -v zstd >/dev/null 2>&1 || missing="$missing zstd"
command -v dot >/dev/null 2>&1 || missing="$missing graphviz"
command -v mandoc >/dev/null 2>&1 || missing="$missing mandoc"
command -v groff >/dev/null 2>&1 || missing="$missing groff"
command -v column >/dev/null 2>&1 || missing="$missing bsdextrautils"
# clang with libFuzzer: the fuzz corpus replay (make check) and make fuzz-smoke.
have_libfuzzer() {
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
		clang -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1
}
command -v clang >/dev/null 2>&1 || missing="$missing clang"
have_libfuzzer || missing="$missing libclang-rt-dev"
optional=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
	optional="$optional chromium"
[ -z "$missing$optional" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=sudo
	elif [ -z "$missing" ]; then
		echo "deps: no$optional: the browser tests will skip (apt-get install$optional as root)" >&2
		exit 0
	else
		echo "deps: missing$missing; install them (apt-get install$missing) as root, then run make again" >&2
		exit 1
	fi
fi
echo "deps: installing:$missing$optional" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -qq >/dev/null; then
	echo "deps: apt-get update failed" >&2
	[ -z "$missing" ] && exit 0	# only the optional ones: their tests skip
	exit 1
fi
if [ -n "$missing" ]; then
	$SUDO apt-get install -y -qq $missing >/dev/null || {
		echo "deps: apt-get install$missing failed" >&2
		exit 1
	}
fi
if [ -n "$optional" ]; then
	$SUDO apt-get install -y -qq $optional >/dev/null ||
		echo "deps: apt-get install$optional failed: the browser tests will skip" >&2
fi
exit 0
