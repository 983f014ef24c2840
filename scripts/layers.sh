#!/bin/sh
# Print every call that goes up a stack of layers: each LAYER is a list of
# objects under OBJDIR, named without .o, shell patterns allowed
# ('ingest/ingest ingest/lines', 'core/*'), the top layer first. A file may
# use symbols of its own layer and of those below; one line "a.c -> b.c: sym"
# for each symbol it uses (nm) that a layer above defines. Exit 1 if any.
# usage: layers.sh OBJDIR LAYER...      (e.g. build/lib 'exports' 'core/*')
dir=${1:-build/lib}
[ -d "$dir" ] || { echo "layers.sh: $dir: no such directory" >&2; exit 4; }
shift
for layer in "$@"; do
	for pat in $layer; do
		for o in "$dir"/$pat.o; do
			[ -f "$o" ] || { echo "layers.sh: $o: no such object" >&2; exit 4; }
		done
	done
done
n=0
for layer in "$@"; do
	n=$((n + 1))
	for pat in $layer; do
		for o in "$dir"/$pat.o; do
			f=${o#"$dir"/}
			nm "$o" | awk -v f="${f%.o}.c" -v l=$n '$1 == "U" { print "U", l, f, $2 } NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", l, f, $3 }'
		done
	done
done | awk '
$1 == "D" { layer[$4] = $2; file[$4] = $3; next }
{ use[++n] = $2 " " $3 " " $4 }
END {
	for (i = 1; i <= n; i++) {
		split(use[i], u, " ")
		if ((u[3] in layer) && layer[u[3]] < u[1])
			print u[2] " -> " file[u[3]] ": " u[3]
	}
}' | sort -u > "${TMPDIR:-/tmp}/layers.$$"
out=$(cat "${TMPDIR:-/tmp}/layers.$$"); rm -f "${TMPDIR:-/tmp}/layers.$$"
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
