# doc/plots/scale.gp: the scale curve (bench/scale.sh writes scale.tsv, then
# runs this in this directory).  Columns: items, filter MB, floor ns,
# contains ns, one dependent load ns, target ns (floor + 1.3 x load),
# bloom_agg ns.
set terminal pngcairo size 900,560 enhanced font "DejaVu Sans,10" linewidth 1.2
set encoding utf8
set datafile separator "\t"
set grid lc rgb "#dddddd"
set key top left box opaque
set output "scale.png"
set title "Per-row cost against filter size (p = 0.01), over 10,000,000 rows, one row at a time" font ",11"
set logscale x
set xlabel "items in the filter (filter size: 1.2 MB per million)"
set ylabel "ns per row"
set yrange [0:*]
set xtics ("1M" 1e6, "10M" 1e7, "50M" 5e7, "100M" 1e8)
plot "scale.tsv" using 1:4 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "bloom\\_contains (stored filter)", \
     "" using 1:7 with linespoints lw 2 pt 5 lc rgb "#2ca02c" title "bloom\\_agg(id, 0.01, N)", \
     "" using 1:6 with linespoints lw 1.5 dt 2 pt 6 lc rgb "#d62728" title "target: floor + 1.3 x one dependent load", \
     "" using 1:($3 + $5) with lines lw 1 dt 3 lc rgb "#ff7f0e" title "floor + one dependent load (pointer chase)", \
     "" using 1:3 with lines lw 1.5 lc rgb "#000000" title "floor: hashint8 per row"
