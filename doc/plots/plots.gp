# doc/plots/plots.gp: gnuplot script for the README's plots (run by make-plots.sh,
# in this directory, after the .tsv files are written).
set terminal pngcairo size 900,620 enhanced font "DejaVu Sans,10" linewidth 1.2
set encoding utf8
set datafile separator "\t"
set grid lc rgb "#dddddd"
set key top left box opaque

m = 95851.0
k = 7.0
capacity = 10000

# ---- fpr.png: the false-positive rate of one filter as it fills ----
set output "fpr.png"
set multiplot layout 2,1 title "False-positive rate of bloom\\_empty(0.01, 10000) (m = 95,851 bits, k = 7) as values are added\n100,000 absent values probed after every 500 added" font ",11"
set xrange [0:30000]
set xlabel "distinct values added (n)"
set ylabel "false-positive rate"
set yrange [0:*]
set arrow 1 from capacity, graph 0 to capacity, graph 1 nohead dt 3 lc rgb "#888888"
set label 1 "capacity" at capacity, graph 0.93 offset 0.5,0 tc rgb "#666666"
plot "fpr.tsv" using 1:3 with lines lw 2 lc rgb "#1f77b4" title "classic (1 - e^{-kn/m})^k", \
     "" using 1:4 with lines lw 1.5 dt 2 lc rgb "#d62728" title "Goel-Gupta bound (1 - e^{-k(n+0.5)/(m-1)})^k (coincides at this m)", \
     "" using 1:2 with points pt 7 ps 0.6 lc rgb "#000000" title "measured"
set logscale y
set yrange [1e-6:1]
set format y "10^{%L}"
set ylabel "false-positive rate (log scale)"
set key bottom right
unset label 1
plot "fpr.tsv" using 1:3 with lines lw 2 lc rgb "#1f77b4" title "classic", \
     "" using 1:4 with lines lw 1.5 dt 2 lc rgb "#d62728" title "Goel-Gupta bound", \
     "" using 1:5 with lines lw 1 lc rgb "#2ca02c" title "the filter's own (X/m)^k (bloom\\_info)", \
     "" using 1:($2 > 0 ? $2 : 1/0) with points pt 7 ps 0.6 lc rgb "#000000" title "measured (0 not shown)"
unset multiplot
unset logscale y
set format y "%g"
unset arrow 1

# ---- cardinality.png: the Swamidass-Baldi estimate across the fill range ----
set output "cardinality.png"
set multiplot layout 2,1 title "Swamidass-Baldi estimate -(m/k) ln(1 - X/m) (bloom\\_cardinality) against the true count\none filter, bloom\\_empty(0.01, 10000), filled to 8 times its capacity" font ",11"
set xrange [0:80000]
set xlabel "distinct values added (n)"
set x2range [0:80000]
set x2tics ("fill 0.5" m*log(2)/k, "0.9" -m/k*log(0.1), "0.99" -m/k*log(0.01), "0.997" -m/k*log(0.003))
set arrow 1 from capacity, graph 0 to capacity, graph 1 nohead dt 3 lc rgb "#888888"
set ylabel "estimated n"
set yrange [0:*]
set key top left
plot x with lines lc rgb "#aaaaaa" title "estimate = n", \
     "cardinality.tsv" using 1:2 with points pt 7 ps 0.6 lc rgb "#000000" title "bloom\\_cardinality"
set ylabel "estimate / n"
set yrange [0.95:1.05]
set key bottom left
plot "cardinality.tsv" using 1:(1 - 2*$4/$1):(1 + 2*$4/$1) with filledcurves lc rgb "#cfe2f3" title "± 2 standard deviations (delta method)", \
     1 with lines lc rgb "#aaaaaa" notitle, \
     "" using 1:($2/$1) with linespoints pt 7 ps 0.6 lc rgb "#000000" title "estimate / true n"
unset multiplot
unset x2tics
unset arrow 1

# ---- bench.png: the benchmark ratios ----
if (strlen(bench_title) > 0) {
	set output "bench.png"
	set terminal pngcairo size 1400,420 enhanced font "DejaVu Sans,10"
	set title "Benchmark ratios (median time of numerator / denominator)\n" . bench_title font ",11" noenhanced
	set style fill solid 0.7 border -1
	set autoscale
	stats "bench.tsv" using 3 nooutput
	set xrange [0:STATS_max * 1.8]
	set xlabel "ratio"
	set ylabel ""
	set yrange [STATS_records - 0.4:-0.6]
	set ytics scale 0 noenhanced
	unset x2tics
	unset arrow 1
	unset grid
	set grid x lc rgb "#dddddd"
	set key below
	# bars from 0 to the ratio, one per case; a target as a red line across its bar
	plot "bench.tsv" using (column(3)/2):0:(column(3)/2):(0.3):yticlabels(sprintf("%s: %s", strcol(1), strcol(2))) \
	         with boxxyerror lc rgb "#1f77b4" notitle, \
	     "" using 4:($0 - 0.38):(0):(0.76) with vectors nohead lw 3 lc rgb "#d62728" title "target (b: at least, others: at most)", \
	     "" using 7:0:(sprintf(" %.2f (%s ms / %s ms)", column(3), strcol(5), strcol(6))) \
	         with labels left offset 0.5,0 noenhanced notitle
}
