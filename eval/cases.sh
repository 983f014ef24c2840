#!/bin/sh
# eval/cases.sh - the cases of the fault-injection suite, one a line:
#   ID SYSTEM FAULT TARGET VARIANT SEED
# Every fault type on five services of each system, in every
# instrumentation variant; each case has a seed of its own.
set -eu

FAULTS="delay cpu slow error throw down"
VARIANTS="plain nokinds wrapper nostatus"
n=0
for system in hotrod shop; do
	case $system in
	hotrod) targets="customer mysql driver redis route" ;;
	shop) targets="auth postgres pricing fraud feature-store" ;;
	esac
	for fault in $FAULTS; do
		for variant in $VARIANTS; do
			for target in $targets; do
				n=$((n + 1))
				echo "$system-$fault-$target-$variant $system $fault $target $variant $n"
			done
		done
	done
done
