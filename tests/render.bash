# Headless Chromium for the suites that look at a picture or a report as a
# person does: a screenshot that is not blank, and the text in the DOM.
# Skips with a message where chromium is not installed (CI installs it:
# scripts/deps.sh).

need_chromium() {
	CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
		skip "chromium not installed (Debian package chromium; make deps installs it)"
}

# Chromium's own flags for a run in a test: no sandbox (CI runs as root),
# no GPU, a profile of its own in the test's directory.
chromium_run() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$BATS_TEST_TMPDIR/chromium" "$@" 2>/dev/null
}

# shot FILE PNG [WIDTH,HEIGHT]: a screenshot of FILE as a browser shows it.
shot() {
	chromium_run --screenshot="$2" --window-size="${3:-1000,800}" "file://$1" >/dev/null
	[ -s "$2" ]
}

# The DOM of FILE after the browser parsed it.
dom() {
	chromium_run --dump-dom "file://$1"
}

# not_blank FILE: FILE's screenshot is larger (PNG compresses a uniform page
# to almost nothing) than three times that of an empty page of the same size.
not_blank() {
	local empty="$BATS_TEST_TMPDIR/empty.html"
	printf '<!DOCTYPE html><html><body></body></html>\n' > "$empty"
	shot "$empty" "$BATS_TEST_TMPDIR/empty.png" "${2:-1000,800}"
	shot "$1" "$BATS_TEST_TMPDIR/page.png" "${2:-1000,800}"
	local e p
	e=$(stat -c %s "$BATS_TEST_TMPDIR/empty.png")
	p=$(stat -c %s "$BATS_TEST_TMPDIR/page.png")
	echo "screenshot $p bytes, empty page $e bytes"
	[ "$p" -gt $((3 * e)) ]
}
