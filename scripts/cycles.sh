#!/bin/sh
# Print every call cycle between the files of the library: the file-level
# graph links object A to object B when A uses a symbol B defines (nm).
# One line per strongly connected component of more than one file, its
# files sorted, separated by spaces; exit 1 if there is any, 0 if none.
# usage: cycles.sh OBJDIR      (e.g. build/lib)
dir=${1:-build/lib}
[ -d "$dir" ] || { echo "cycles.sh: $dir: no such directory" >&2; exit 4; }
find "$dir" -name '*.o' | sort | while read -r o; do
	f=${o#"$dir"/}
	nm "$o" | awk -v f="${f%.o}.c" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", f, $3 }'
done | awk '
$1 == "D" { def[$3] = $2; next }
{ use[++n] = $2 " " $3 }
END {
	for (i = 1; i <= n; i++) {
		split(use[i], p, " ")
		if ((p[2] in def) && def[p[2]] != p[1] && !((p[1] SUBSEP def[p[2]]) in edge)) {
			edge[p[1], def[p[2]]] = 1
			adj[p[1]] = adj[p[1]] " " def[p[2]]
			node[p[1]] = node[def[p[2]]] = 1
		}
	}
	# reach[a,b]: b reachable from a (transitive closure by breadth-first search
	# from every node; the graph has a few hundred edges)
	for (a in node) {
		qh = qt = 0; q[qt++] = a; seen[a, a] = 0
		while (qh < qt) {
			x = q[qh++]; k = split(adj[x], nb, " ")
			for (j = 1; j <= k; j++)
				if (!((a, nb[j]) in seen)) { seen[a, nb[j]] = 1; q[qt++] = nb[j] }
		}
	}
	for (a in node) {
		if (a in done) continue
		comp = a; m = 1
		for (b in node)
			if (b != a && ((a, b) in seen) && ((b, a) in seen)) { comp = comp "\n" b; done[b] = 1; m++ }
		done[a] = 1
		if (m > 1) { print comp | "sort | paste -sd\" \" -"; close("sort | paste -sd\" \" -"); }
	}
}' | sort > "${TMPDIR:-/tmp}/cycles.$$"
# sorted so that the output is the same on every run
out=$(cat "${TMPDIR:-/tmp}/cycles.$$"); rm -f "${TMPDIR:-/tmp}/cycles.$$"
[ -z "$out" ] && exit 0
printf '%s\n' "$out"
exit 1
