#!/usr/bin/env bats
# make install with PREFIX and DESTDIR: the installed tools run, man -M finds
# their pages, and the bash completion (completion/tr.bash) completes them.

load helper

top=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

# The BUILD directory the binaries under test came from (make check-asan uses
# build/asan): TR_BUILD, else TR_BIN without its /bin when it is in the tree.
build_dir() {
	local bin
	if [ -n "${TR_BUILD:-}" ]; then
		echo "$TR_BUILD"
		return
	fi
	bin=$(cd "$TR_BIN" && pwd)
	case $bin in
	"$top"/*/bin) bin=${bin#"$top"/}; echo "${bin%/bin}" ;;
	*) echo build ;;
	esac
}

# Install into $dest (DESTDIR) with PREFIX=/usr, from the binaries already
# built. Never build here: "-o all" keeps make from remaking them, which under
# make check-asan would replace the sanitizer build with a plain one.
install_tree() {
	build=$(build_dir)
	for src in "$top"/src/tr-*.c; do
		[ -x "$top/$build/bin/$(basename "$src" .c)" ] ||
			skip "$build/bin has no $(basename "$src" .c): build first"
	done
	dest=$BATS_TEST_TMPDIR/dest
	make -s -C "$top" -o all install BUILD="$build" DESTDIR="$dest" PREFIX=/usr > "$BATS_TEST_TMPDIR/make.log" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/make.log"; false; }
}

tools() {
	local src
	for src in "$top"/src/tr-*.c; do basename "$src" .c; done
}

@test "make install DESTDIR=... PREFIX=/usr puts every tool in usr/bin and every page in usr/share/man" {
	install_tree
	for t in $(tools); do
		[ -x "$dest/usr/bin/$t" ] || { echo "no usr/bin/$t"; false; }
		[ -f "$dest/usr/share/man/man1/$t.1" ] || { echo "no man1/$t.1"; false; }
	done
	[ -f "$dest/usr/share/man/man5/tr-format.5" ]
	[ -f "$dest/usr/share/man/man7/tr.7" ]
	# the simulator the docs use
	[ -x "$dest/usr/bin/trsim" ]
	# Nothing outside DESTDIR's PREFIX.
	expect_eq usr "$(ls "$dest")"
}

@test "make install puts the MIT LICENSE in usr/share/doc/tr" {
	install_tree
	f=$dest/usr/share/doc/tr/LICENSE
	[ -f "$f" ] || { echo "no usr/share/doc/tr/LICENSE; installed:"; find "$dest" -type f; false; }
	cmp "$top/LICENSE" "$f" || { echo "usr/share/doc/tr/LICENSE differs from LICENSE"; false; }
	head -1 "$f" | grep -qx 'MIT License'
}

@test "make uninstall removes the documentation directory it made" {
	install_tree
	make -s -C "$top" -o all uninstall BUILD="$build" DESTDIR="$dest" PREFIX=/usr > "$BATS_TEST_TMPDIR/make.log" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/make.log"; false; }
	[ ! -e "$dest/usr/share/doc/tr" ] || { echo "left behind:"; find "$dest/usr/share/doc/tr"; false; }
}

@test "make uninstall removes every file make install put there, and nothing else" {
	install_tree
	touch "$dest/usr/bin/other-tool"
	make -s -C "$top" -o all uninstall BUILD="$build" DESTDIR="$dest" PREFIX=/usr > "$BATS_TEST_TMPDIR/make.log" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/make.log"; false; }
	expect_eq usr/bin/other-tool "$(find "$dest" -type f | sed "s|^$dest/||")"
}

@test "the installed tools run a pipeline on the samples" {
	install_tree
	run "$dest/usr/bin/tr-cp" --version
	expect_eq 0 "$status" status
	expect_output "tr-cp (tr) $("$TR_BIN/tr-cp" --version | awk '{ print $3 }')"
	"$dest/usr/bin/tr-ingest" -q "$SAMPLES/jaeger/hotrod.json" |
		"$dest/usr/bin/tr-cp" --summary service > "$BATS_TEST_TMPDIR/summary"
	head -1 "$BATS_TEST_TMPDIR/summary" | grep -q '^service	traces	cp_us'
	grep -q '^customer	45	' "$BATS_TEST_TMPDIR/summary"
}

@test "man -M finds the installed pages: tr(7), tr-format(5) and every tool's" {
	command -v man >/dev/null || skip "man is not installed"
	install_tree
	m=$dest/usr/share/man
	MANWIDTH=80 man -M "$m" -P cat 7 tr > "$BATS_TEST_TMPDIR/tr.txt" 2>/dev/null
	grep -q 'tr - offline analysis of distributed traces' "$BATS_TEST_TMPDIR/tr.txt"
	MANWIDTH=80 man -M "$m" -P cat 5 tr-format | grep -q 'the line format the tr tools read and write'
	for t in $(tools); do
		MANWIDTH=80 man -M "$m" -P cat "$t" 2>/dev/null | grep -q "^NAME" || { echo "man $t"; false; }
	done
}

@test "make install installs the bash completion for every tool" {
	grep -q 'completion' "$top/Makefile" || skip "the Makefile's install does not copy completion/ yet"
	install_tree
	for t in $(tools); do
		f=$dest/usr/share/bash-completion/completions/$t
		[ -f "$f" ] || { echo "no $f"; false; }
		bash -c "source '$f' && complete -p $t" | grep -q '_tr_complete'
	done
}

# Complete the words "$@" (the last is the one being completed) as bash would.
complete_words() {
	source "$top/completion/tr.bash"
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	_tr_complete "$1"
	printf '%s\n' "${COMPREPLY[@]}"
}

@test "completion offers every option each tool's --help names" {
	for t in $(tools); do
		got=$(complete_words "$t" -)
		for o in $("$t" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
			grep -qx -- "$o" <<<"$got" || { echo "$t: $o not completed"; false; }
		done
	done
	expect_eq --summary "$(complete_words tr-cp --sum)"
}

@test "every -f value completion offers is a format the tool accepts" {
	printf '#tr/1\nT\tt1\nS\tt1\ta\t\t1000\t100\tfront\tGET\tserver\th1\n' > "$BATS_TEST_TMPDIR/t.tr"
	n=0
	for t in $(tools); do
		in=$BATS_TEST_TMPDIR/t.tr
		[ "$t" = tr-ingest ] && in=$SAMPLES/jaeger/hotrod.json
		q=()
		[ "$t" = tr-aggregate ] && q=('From s In spans GroupBy s.service, s.host Select s.service, s.host, COUNT')	# crosstab's shape
		[ "$t" = tr-report ] && q=(-o "$BATS_TEST_TMPDIR/report")	# md's pictures go beside it
		for f in $(complete_words "$t" -f ''); do
			st=0
			"$t" -f "$f" "${q[@]}" "$in" > /dev/null 2>&1 || st=$?
			expect_num_ne 2 "$st" || { echo "$t -f $f: usage error"; false; }
			n=$((n + 1))
		done
	done
	expect_ge 15 "$n"
	expect_eq jaeger-json "$(complete_words tr-infer --links -f jae)"
	tr-infer --links -f jaeger-json "$BATS_TEST_TMPDIR/t.tr" > /dev/null
	expect_empty "$(complete_words tr-infer -f jae)"
}

@test "completion offers the trace ids of the files on the command line after -t and --trace" {
	printf '#tr/1\nT\tabc1\nS\tabc1\ta\t\t1\t1\tx\ty\t\t\nT\tabd2\nS\tabd2\ta\t\t1\t1\tx\ty\t\t\nT\tzz3\n' > "$BATS_TEST_TMPDIR/t.tr"
	cd "$BATS_TEST_TMPDIR"
	expect_eq "abc1 abd2 " "$(complete_words tr-temporal t.tr -t ab | sort | tr '\n' ' ')"
	expect_eq zz3 "$(complete_words tr-cp --dot t.tr --trace z)"
	expect_eq operation "$(complete_words tr-cp --summary o)"
	# A file argument completes to files.
	expect_eq t.tr "$(complete_words tr-cp t.t)"
}
