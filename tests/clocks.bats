#!/usr/bin/env bats
# --clock-offsets: one clock for every tool (tr(7), CLOCKS). The simulator's
# hosts run clocks up to 5 ms apart with --clock-skew 5000.

load helper
bats_require_minimum_version 1.5.0

TAB=$'\t'

# The simulated requests, ingested, with skewed clocks (5000) or one (0).
sim() {
	local f="$BATS_TEST_TMPDIR/skew$1.tr"
	[ -s "$f" ] || trsim --hints --clock-skew "$1" --seed 1 --traces 200 | tr-ingest > "$f"
	printf '%s\n' "$f"
}

# tr-infer's service edges above the acceptance threshold, one a line.
edges() {
	tr-infer --name service --dot --spans -t 's/T >= 0.95' "$@" | grep -- '->' | sort
}

# The number in tr-pag's "clamped" note (0 without the note).
clamped() {
	tr-pag "$@" 2>&1 >/dev/null | awk '/clamped/ { n = $2 } END { print n + 0 }'
}

# One RPC from host a to host b, whose clock runs 5 ms ahead: the server
# span starts after its client ended, on the recorded clocks.
rpc() {
	printf '#tr/1\n'
	printf 'S\tt1\tc\t\t1000\t100\tfront\tcall\tclient\ta\n'
	printf 'S\tt1\ts\tc\t6010\t80\tback\tserve\tserver\tb\n'
}

@test "tr-infer --clock-offsets on skewed clocks gives the edges of one clock" {
	local one skewed
	one=$(edges < "$(sim 0)")
	expect_eq 14 "$(printf '%s\n' "$one" | wc -l)" "edges with one clock"
	skewed=$(edges < "$(sim 5000)")
	expect_ne "$one" "$skewed" "edges on skewed clocks, no offsets"
	expect_eq "$one" "$(edges --clock-offsets < "$(sim 5000)")" "edges with offsets"
}

@test "tr-pag clamps fewer requests and responses with --clock-offsets" {
	local without with
	without=$(clamped "$(sim 5000)")
	with=$(clamped --clock-offsets "$(sim 5000)")
	expect_gt 0 "$without" "clamped without offsets"
	expect_lt "$without" "$with" "clamped with offsets"
}

@test "tr-ingest --clock-offsets writes an O record per host; tools read them back" {
	local off="$BATS_TEST_TMPDIR/off"
	tr-ingest --clock-offsets "$(sim 5000)" > "$off"
	expect_eq '#tr/1' "$(head -1 "$off")" header
	expect_eq 0 "$(awk -F'\t' 'NR > 1 && !($1 == "O" && $2 == "" && NF == 5)' "$off" | wc -l)" \
		"lines that are not O records"
	expect_gt 1 "$(grep -c '^O' "$off")" "O records"
	expect_eq "$(edges < "$(sim 0)")" "$(edges --clock-offsets="$off" < "$(sim 5000)")" \
		"edges with offsets read"
}

@test "--clock-offsets=FILE moves a host's spans by its offset" {
	local off
	off=$(printf 'O\t\tb\t5000\t1\n' | mkfix off)
	run --separate-stderr tr-cp < <(rpc)
	expect_contains "1 spans in 1 traces lie wholly outside their parent" "$stderr" "as recorded"
	run --separate-stderr tr-cp --clock-offsets="$off" < <(rpc)
	expect_status 0
	expect_eq "" "$stderr" "with b moved"
}

@test "-v reports each host's offset and the RPCs behind it" {
	local off
	off=$(printf '#tr/1\nO\t\tb\t5000\t3\n' | mkfix off)
	run --separate-stderr tr-pag -v --clock-offsets="$off" < <(rpc)
	expect_status 0
	expect_contains "tr-pag: clock offset of b: +5.000 ms, from 3 RPCs" "$stderr"
}

@test "offsets of a host the input does not have are reported, by line" {
	local off
	off=$(printf '#tr/1\nO\t\tb\t5000\t3\nO\t\tghost\t100\t1\n' | mkfix off)
	run --separate-stderr tr-cp --clock-offsets="$off" < <(rpc)
	expect_status 0
	expect_eq "tr-cp: $off:3: no span of the input is on host ghost" "$stderr"
}

@test "a line of an offsets file that is not an O record is bad input" {
	local off
	off=$(printf 'O\tt1\tb\t5000\t3\n' | mkfix off)
	run --separate-stderr tr-infer --clock-offsets="$off" < <(rpc)
	expect_status 3
	expect_eq "tr-infer: $off:1: not an O record (O, empty trace id, host, offset_us, rpcs)" "$stderr"
}

@test "tr-pag, tr-infer and tr-cp take clocks as recorded unless asked" {
	local f
	f=$(sim 5000)
	expect_eq "$(tr-pag "$f" | cksum)" "$(tr-pag --clock-offsets=none "$f" | cksum)" tr-pag
	expect_eq "$(edges < "$f")" "$(edges --clock-offsets=none < "$f")" tr-infer
	expect_eq "$(tr-cp "$f" | cksum)" "$(tr-cp --clock-offsets=none "$f" | cksum)" tr-cp
}

@test "tr-temporal --no-clock-offsets is --clock-offsets=none; the default estimates" {
	local f
	f=$(sim 5000)
	expect_eq "$(tr-temporal --no-clock-offsets "$f" | cksum)" \
		"$(tr-temporal --clock-offsets=none "$f" | cksum)" "none"
	expect_eq "$(tr-temporal "$f" | cksum)" "$(tr-temporal --clock-offsets "$f" | cksum)" "estimated"
	expect_ne "$(tr-temporal "$f" | cksum)" "$(tr-temporal --no-clock-offsets "$f" | cksum)" "off"
}

@test "tr-temporal -v reports offsets read from a file" {
	local off
	off=$(printf 'O\t\tb\t5000\t3\n' | mkfix off)
	run --separate-stderr tr-temporal -v --clock-offsets="$off" < <(rpc)
	expect_status 0
	expect_contains "tr-temporal: clock of b: +5.000 ms, from 3 RPCs" "$stderr"
}
