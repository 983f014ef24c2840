#!/bin/sh
# eval/evidence.sh ID [SERVICE...] - what a case's traces carry, per service:
# the evidence --suspects has to go on, to explain a hit or a miss.
#
# Regenerates case ID of eval/cases.sh (trsim on PATH) and prints, for the
# baseline (b) and the incident (i), per service: its server spans (n, mean
# µs, mean own time: the span minus its children's union, failed), and the
# client spans calling it (those whose peer.service names it: n, mean µs,
# failed); "-" where there are none.  A span without a kind counts as a
# server span when its parent is of another service or missing.  With
# SERVICEs, only those.
set -eu

id=$1
shift
line=$(sh "$(dirname "$0")/cases.sh" | grep "^$id ") || { echo "evidence: no case $id" >&2; exit 2; }
# shellcheck disable=SC2086
set -- $line "$@"
system=$2 fault=$3 target=$4 variant=$5 seed=$6
shift 6
case $variant in
plain) opts= ;;
nokinds) opts="--kindless all" ;;
wrapper) opts="--wrapper-spans" ;;
nostatus) opts="--no-status" ;;
esac
echo "case $id: $fault on $target ($system, $variant, seed $seed)"
for w in before after; do
	# shellcheck disable=SC2086
	trsim --system "$system" --inject "$fault:$target" --fault-start 15000 --traces 600 \
		--seed "$seed" --window $w $opts | tr-ingest -q | sed "s/^/$w	/"
done | awk -F'\t' -v only="$*" '
	$2 != "S" { next }
	{ w = ($1 == "before") ? "b" : "i"; k = w SUBSEP $4
	  par[k] = $5; st[k] = $6; du[k] = $7; sv[k] = $8; kind[k] = $10
	  err[k] = ($0 ~ /\terror=true(\t|$)/)
	  peer[k] = match($0, /\tpeer\.service=[^\t]*/) ? substr($0, RSTART + 14, RLENGTH - 14) : ""
	  pk = w SUBSEP $5; kids[pk] = kids[pk] " " $4 }
	# the span minus the union of its children
	function own(k, w,   n, c, i, j, t, e, sum, cur) {
		n = split(kids[k], c, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && st[w SUBSEP c[j]] < st[w SUBSEP c[j - 1]]; j--) { t = c[j]; c[j] = c[j - 1]; c[j - 1] = t }
		sum = 0; cur = st[k]
		for (i = 1; i <= n; i++) {
			t = st[w SUBSEP c[i]]; e = t + du[w SUBSEP c[i]]
			if (t < cur) t = cur
			if (e > st[k] + du[k]) e = st[k] + du[k]
			if (e > t) { sum += e - t; cur = e }
		}
		return du[k] - sum
	}
	END {
		for (k in sv) {
			split(k, a, SUBSEP); w = a[1]; p = w SUBSEP par[k]
			if (peer[k] != "") {
				g = w SUBSEP peer[k]; cn[g]++; cd[g] += du[k]; ce[g] += err[k]; names[peer[k]] = 1
			}
			srv = kind[k] == "server" || (kind[k] == "" && (!(p in sv) || sv[p] != sv[k]))
			if (!srv) continue
			g = w SUBSEP sv[k]; sn[g]++; sd[g] += du[k]; so[g] += own(k, w); se[g] += err[k]
			names[sv[k]] = 1
		}
		printf "%-14s %s\n", "service", "win  server: n mean own failed | client spans calling it: n mean failed"
		for (s in names) {
			if (only != "" && index(" " only " ", " " s " ") == 0) continue
			for (x = 1; x <= 2; x++) {
				w = x == 1 ? "b" : "i"; g = w SUBSEP s
				printf "%-14s %s    %6d %7s %7s %5d | %6d %7s %5d\n", s, w, sn[g],
					sn[g] ? int(sd[g] / sn[g]) : "-", sn[g] ? int(so[g] / sn[g]) : "-", se[g],
					cn[g], cn[g] ? int(cd[g] / cn[g]) : "-", ce[g]
			}
		}
	}' | { IFS= read -r head; echo "$head"; sort; }
