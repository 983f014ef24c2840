#!/bin/sh
# eval/case.sh DIR ID SYSTEM FAULT TARGET VARIANT SEED
#
# One case: trsim simulates SYSTEM with FAULT injected into TARGET, 15 s
# into a run of 600 requests (one every 50 ms on average).  The requests
# that started before the fault are the baseline, the others the incident;
# both are written as Jaeger JSON compressed with zstd, and tr-cp ranks the
# suspects exactly as the benchmark runs it.  Writes DIR/ID.res, one line:
#   ID SYSTEM FAULT VARIANT TARGET EXPECTED NAMED TOP1 TOP3
# (tab-separated).  EXPECTED is "-" when the incident carries no evidence
# (a code fault recorded without status): right is then naming no one.
# NAMED is the first three services named, comma-separated, or "-".
set -eu

dir=$1 id=$2 system=$3 fault=$4 target=$5 variant=$6 seed=$7
case $variant in
plain) opts= ;;
nokinds) opts="--kindless all" ;;
wrapper) opts="--wrapper-spans" ;;
nostatus) opts="--no-status" ;;
*) echo "eval: unknown variant $variant" >&2; exit 2 ;;
esac
expected=$target
case $fault-$variant in
error-nostatus | throw-nostatus) expected=- ;;
esac

base=$dir/$id.base.json.zst inc=$dir/$id.inc.json.zst
for w in before after; do
	f=$base
	[ $w = after ] && f=$inc
	# shellcheck disable=SC2086
	trsim --system "$system" --inject "$fault:$target" --fault-start 15000 \
		--traces 600 --seed "$seed" --window $w $opts | zstd -q -3 > "$f"
done

if tr-cp -q --suspects --baseline "$base" -f tsv "$inc" > "$dir/$id.out" 2> "$dir/$id.err"; then
	named=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "service") c = i; next }
		c && NR <= 4 { printf "%s%s", (NR > 2 ? "," : ""), $c }' "$dir/$id.out")
	[ -n "$named" ] || named=-
else
	named="error: $(head -n 1 "$dir/$id.err")"
fi
first=${named%%,*}
top1=0 top3=0
[ "$first" = "$expected" ] && top1=1
case ",$named," in
*",$expected,"*) top3=1 ;;
esac
# with nothing expected, only silence is right
[ "$expected" = - ] && [ "$named" != - ] && top1=0 top3=0
rm -f "$base" "$inc"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$system" "$fault" "$variant" \
	"$target" "$expected" "$named" "$top1" "$top3" > "$dir/$id.res"
