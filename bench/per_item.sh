#!/usr/bin/env bash
# bench/per_item.sh: the throwaway prototype behind doc/per-item.md, against
# the server in PGHOST/PGPORT.  Plain SQL, no extension: what one add costs
# when a 12 MB filter is one bytea value (what a stored bloom is) against
# when it is rows of blocks, each add an UPDATE of one block.
#
#   whole        one row, the 12,369,920 bytes as one bytea (STORAGE
#                EXTERNAL, as the bloom type's default): an add rewrites it
#   blocks_8000  rows of 8,000-byte blocks, STORAGE PLAIN (one row a page;
#                the whole blocks only, 12,368,000 bytes, and likewise below)
#   blocks_4000  rows of 4,000-byte blocks, STORAGE PLAIN, fillfactor 50
#                (one row a page, with room for its next version: HOT)
#   blocks_1000  rows of 1,000-byte blocks, STORAGE PLAIN, fillfactor 50
#
# An add sets 6 random bits of one random 512-bit line (a blocked filter's
# add, k = 6), with set_bit.  One pgbench client for PER_ITEM_SECONDS
# (default 15) a case, after a VACUUM FULL and a CHECKPOINT; reported:
# adds per second, WAL bytes per add (pg_current_wal_lsn) and the growth of
# the table over the run (autovacuum as configured).
#
# Not part of the extension, nor of make bench: run it by hand, e.g.
#   test/pg_cluster.sh -o shared_buffers=1GB -o max_wal_size=8GB build/inst bench/per_item.sh
set -euo pipefail

seconds=${PER_ITEM_SECONDS:-15}
runs=${PER_ITEM_RUNS:-3}
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
psql=(env PGOPTIONS="-c client_min_messages=warning" "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1)
work=$(mktemp -d /tmp/bloomfilter-per-item.XXXXXX)
trap 'rm -rf "$work"' EXIT

bytes=12369920                  # a blocked filter of 10M values at p = 0.01: 193,280 lines
"${psql[@]}" <<SQL
DROP TABLE IF EXISTS pi_whole, pi_blocks_8000, pi_blocks_4000, pi_blocks_1000;
-- incompressible bits, about half of them set
CREATE TABLE pi_whole (id int PRIMARY KEY, bits bytea);
ALTER TABLE pi_whole ALTER bits SET STORAGE EXTERNAL;
INSERT INTO pi_whole
SELECT 1, string_agg(sha256(i::text::bytea), ''::bytea ORDER BY i)
FROM generate_series(1, $bytes / 32) AS i;
SQL
for size in 8000 4000 1000; do
	fillfactor=50
	[ "$size" = 8000 ] && fillfactor=100
	"${psql[@]}" <<SQL
CREATE TABLE pi_blocks_$size (filter_id int, block_no int, bits bytea,
	PRIMARY KEY (filter_id, block_no)) WITH (fillfactor = $fillfactor);
ALTER TABLE pi_blocks_$size ALTER bits SET STORAGE PLAIN;
INSERT INTO pi_blocks_$size
SELECT 1, b, substr(w.bits, b * $size + 1, $size)
FROM pi_whole AS w, generate_series(0, $bytes / $size - 1) AS b;
SQL
done

# the 6 bits of one 512-bit line, set in column bits
probes=''
set_bits=bits
for i in 1 2 3 4 5 6; do
	set_bits="set_bit($set_bits, :line * 512 + :b$i, 1)"
	probes+="\\set b$i random(0, 511)"$'\n'
done
{
	printf '%s\\set line random(0, %d)\n' "$probes" $((bytes / 64 - 1))
	echo "UPDATE pi_whole SET bits = $set_bits WHERE id = 1;"
} >"$work/whole.sql"
for size in 8000 4000 1000; do
	{
		printf '%s\\set block random(0, %d)\n\\set line random(0, %d)\n' "$probes" \
			$(( bytes / size - 1 )) $(( size / 64 - 1 ))
		echo "UPDATE pi_blocks_$size SET bits = $set_bits WHERE filter_id = 1 AND block_no = :block;"
	} >"$work/blocks_$size.sql"
done

printf '%-12s %12s %14s %16s\n' layout "adds/s" "WAL bytes/add" "growth/run (MB)"
for layout in whole blocks_8000 blocks_4000 blocks_1000; do
	: >"$work/runs"
	for run in $(seq "$runs"); do
		"${psql[@]}" -c "VACUUM FULL pi_$layout" -c "CHECKPOINT"
		before=$("${psql[@]}" -c "SELECT pg_current_wal_lsn() || ' ' || pg_total_relation_size('pi_$layout')")
		tps_count=$("$bindir/pgbench" -n -M prepared -f "$work/$layout.sql" -T "$seconds" 2>/dev/null |
			awk '/number of transactions actually processed/ { split($NF, a, "/"); n = a[1] }
				/^tps/ { t = $3 } END { print t, n }')
		after=$("${psql[@]}" -c "SELECT pg_current_wal_lsn() || ' ' || pg_total_relation_size('pi_$layout')")
		read -r tps count <<<"$tps_count"
		wal=$("${psql[@]}" -c "SELECT round(pg_wal_lsn_diff('${after% *}', '${before% *}') / $count)")
		echo "$tps $wal $(( (${after#* } - ${before#* }) ))" >>"$work/runs"
	done
	read -r tps wal growth < <(sort -g "$work/runs" | sed -n "$(( (runs + 1) / 2 ))p")
	awk -v l="$layout" -v t="$tps" -v w="$wal" -v g="$growth" 'BEGIN {
		printf "%-12s %12.0f %14d %16.1f\n", l, t, w, g / 1048576 }'
done
echo "($runs runs of ${seconds}s a layout, the median run by adds/s shown)"
"${psql[@]}" -c "DROP TABLE pi_whole, pi_blocks_8000, pi_blocks_4000, pi_blocks_1000"
