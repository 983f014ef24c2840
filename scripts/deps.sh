#!/bin/sh
# Make sure the build and test dependencies are present: libyajl (tr-ingest's
# JSON parser), libzstd and zlib (compressed input; headers), bats, jq and
# zstd (tests compare against them), graphviz, mandoc,
# groff and column (tests render DOT, lint and format the man pages, align the
# walkthrough's tables), clang and its libFuzzer runtime (fuzz corpus replay).
# Installs the missing ones with apt-get when run as root.
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have_header yajl/yajl_parse.h || missing="$missing libyajl-dev"
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
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=sudo
	else
		echo "deps: missing$missing; install them (apt-get install$missing) as root, then run make again" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq $missing >/dev/null || {
	echo "deps: apt-get install$missing failed" >&2
	exit 1
}
