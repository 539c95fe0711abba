#!/bin/bash
# Draws a benchmark's PNG from its CSV with gnuplot (Debian: apt-get install gnuplot-nox):
#   bash share/bench/plot.sh assembly|bp|deformed|action|plex|solve|scaling CSV PNG
# Without gnuplot it says so and leaves the CSV as it is.
kind=$1 csv=$2 png=$3
command -v gnuplot > /dev/null || { echo "plot: no gnuplot here (apt-get install gnuplot-nox); $csv is kept, draw $png later with share/bench/plot.sh"; exit 0; }
[ -s "$csv" ] || { echo "plot: no data in $csv"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $kind in
assembly)
  # assembly time per case: fegpu addto (atomic), fegpu addto through MatSetValuesCOO, lma, PETSc's COO alone, the host
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    { k = $h["cell"] ($h["cell"] == "hex" || $h["cell"] == "quad" ? " Q" : " P") $h["order"]; if (!(k in seen)) { seen[k] = ++n; name[n] = k }
      v[k, ($h["device"] == "cpu" ? "host " : "") $h["strategy"]] = $h["assembly_ms"] }
    END { for (i = 1; i <= n; i++) { k = name[i]; printf "\"%s\"", k;
        split("atomic coo lma petsccoo", s, " "); for (j = 1; j <= 4; j++) printf " %s", ((k, s[j]) in v ? v[k, s[j]] : "NaN");
        printf " %s\n", ((k, "host atomic") in v ? v[k, "host atomic"] : "NaN") } }' "$csv" > "$tmp/d"
  gnuplot <<GP
set terminal pngcairo size 1000,560
set output "$png"
set title "Assembly (ms, lower is better): fegpu on one GPU, PETSc's MatSetValuesCOO, the host cores"
set datafile missing "NaN"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set logscale y
set ylabel "ms"
set key top left
set yrange [*:1e5]
plot "$tmp/d" using 2:xtic(1) title "fegpu addto (atomic)", "" using 3 title "fegpu addto via MatSetValuesCOO", "" using 4 title "fegpu lma (integration)", "" using 5 title "PETSc MatSetValuesCOO alone", "" using 6 title "host cores, addto"
GP
  ;;
bp)
  awk -F, 'NR == 1 { next } { b = ($1 == "fegpu" ? "fegpu" : "libCEED"); print $2, b, $3, $8 }' "$csv" | sort -k1,1 -k2,2 -k3,3n > "$tmp/d"
  gnuplot <<GP
set terminal pngcairo size 1000,560
set output "$png"
set title "CEED benchmark problems: 50 CG iterations, million unknowns x iterations per second (higher is better)"
set xlabel "polynomial degree"
set ylabel "MDOF/s"
set key outside
set xrange [1:9]
plot for [p in "bp1 bp3 bp5"] for [who in "fegpu libCEED"] "$tmp/d" using (strcol(1) eq p && strcol(2) eq who ? \$3 : 1/0):4 with linespoints title p." ".who
GP
  ;;
deformed)
  # fegpu on each mesh and geometry over libCEED on its uniform box: one row per problem, size and degree, one
  # column per fegpu series (mesh and geometry)
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    { k = $h["problem"] " " ($h["global_nodes"] > 4000000 ? "8M" : "1M") " Q" $h["degree"]
      if ($1 == "libceed") { ref[k] = $h["mdofs_per_s"]; next }
      s = $h["mesh"] " / " $h["geometry"]; if (!(s in sn)) { sn[s] = ++ns; sname[ns] = s }
      if (!(k in kn)) { kn[k] = ++nk; kname[nk] = k }
      v[k, s] = $h["mdofs_per_s"] }
    END { printf "case"; for (j = 1; j <= ns; j++) printf ",%s", sname[j]; printf "\n"
      for (i = 1; i <= nk; i++) { k = kname[i]; if (!(k in ref)) continue; printf "%s", k
        for (j = 1; j <= ns; j++) printf ",%s", ((k, sname[j]) in v ? v[k, sname[j]] / ref[k] : "NaN"); printf "\n" } }' "$csv" > "$tmp/d"
  ns=$(head -1 "$tmp/d" | awk -F, '{ print NF - 1 }')
  gnuplot <<GP
set terminal pngcairo size 1300,600
set output "$png"
set datafile separator ","
set datafile missing "NaN"
set title "Matrix-free CG throughput of fegpu over libCEED's on its uniform box (higher is better; 1.3 dashed)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set xtics rotate by -60
set key outside autotitle columnheader
set yrange [0:*]
set arrow from graph 0, first 1.3 to graph 1, first 1.3 nohead dt 2
plot for [j=2:$((ns + 1))] "$tmp/d" using j:xtic(1)
GP
  ;;
action)
  gnuplot <<GP
set terminal pngcairo size 1000,560
set output "$png"
set datafile separator ","
set title "Matrix-free action on tetrahedra: the work done against the roofline measured on the spot"
set xlabel "polynomial order"
set ylabel "% of min(FP64 peak, triad x AI)"
set key outside
set yrange [0:*]
plot "$csv" using 1:9 with linespoints title "% of the roofline", "" using 1:(\$10 > 0 ? \$10 * 50 : 1/0) with points pt 7 title "factoring speedup x 50"
GP
  ;;
solve)
  # whole-process seconds to a solution of BP3 (rtol 1e-8) per degree: fegpu's solvers and libCEED's multigrid, on the
  # uniform box of hexahedra (eps 1) at the CSV's first size
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    $h["problem"] == "bp3" && $h["cell"] == "hex" && $h["eps"] + 0 == 1 && $h["process_seconds"] != "" {
      n = $h["global_nodes"] + 0; if (!size) size = n; if (n > 2 * size || 2 * n < size) next
      w = ($h["solver"] == "libceed-mg" ? "libceed" : $h["solver"]); d = $h["degree"]; v[d, w] = $h["process_seconds"]; deg[d] = 1 }
    END { for (d = 1; d <= 8; d++) if (d in deg) { printf "%d", d; split("pmg jacobi gamg libceed", s, " ");
        for (j = 1; j <= 4; j++) printf " %s", ((d, s[j]) in v ? v[d, s[j]] : "NaN"); printf "\n" } }' "$csv" > "$tmp/d"
  gnuplot <<GP
set terminal pngcairo size 1000,560
set output "$png"
set title "BP3 to rtol 1e-8 from a zero guess, about 1M unknowns: whole process, seconds (lower is better)"
set datafile missing "NaN"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set logscale y
set xlabel "polynomial degree"
set ylabel "s"
set key top left
plot "$tmp/d" using 2:xtic(1) title "fegpu p-multigrid", "" using 3 title "fegpu CG + Jacobi", "" using 4 title "PETSc GAMG on fegpu's matrix", "" using 5 title "libCEED multigrid"
GP
  ;;
plex)
  awk -F, 'NR == 1 { next } { printf "\"%s %s %st\" %s\n", $1, $2, $4, $7 }' "$csv" > "$tmp/d"
  gnuplot <<GP
set terminal pngcairo size 1150,600
set rmargin 8
set bmargin 12
set output "$png"
set title "fegpu's replacements of PETSc routines: PETSc's time over fegpu's at about 1M cells (higher is better)"
set style fill solid 0.8 border -1
set boxwidth 0.7
set logscale y
set yrange [0.5:*]
set xtics rotate by -60
set ylabel "factor"
set arrow from graph 0, first 2 to graph 1, first 2 nohead dt 2
plot "$tmp/d" using 0:2:xtic(1) with boxes notitle
GP
  ;;
scaling)
  # whole process and its measured phases per run: 1 GPU, 2 GPUs weak (the size on each), 2 GPUs strong; CSVs
  # without the -phases columns (sections_s, rhs_s, solves_s) count one CG run and leave the rest unsplit
  awk -F, 'NR == 1 { next } { lab = sprintf("%s GPU%s %.1fM%s", $1, $1 > 1 ? "s" : "", $2 / 1e6, $1 > 1 ? ($3 == "yes" ? " weak" : " strong") : "");
    sec = NF >= 11 ? $9 : 0; rhs = NF >= 11 ? $10 : 0; sol = NF >= 11 ? $11 : $7;
    printf "\"%s\" %s %s %s %s %s %s\n", lab, $5, sec, $6, rhs, sol, $4 - $5 - sec - $6 - rhs - sol }' "$csv" > "$tmp/d"
  gnuplot <<GP
set terminal pngcairo size 1000,560
set bmargin 8
set output "$png"
set title "BP3 Q2 on one and two H200s: whole process in seconds (lower is better)"
set style data histogram
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -30
set ylabel "s"
set key top left
plot "$tmp/d" using 2:xtic(1) title "mesh", "" using 3 title "sections, first vector", "" using 4 title "operator setup", "" using 5 title "right-hand side", "" using 6 title "CG (11 runs of 50 iterations; older CSVs: one)", "" using 7 title "the rest (start-up, exit, diagnostics)"
GP
  ;;
*)
  echo "plot: unknown kind $kind (assembly, bp, deformed, action, plex, solve, scaling)"
  exit 1
  ;;
esac
echo "plot: wrote $png"
