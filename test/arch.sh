#!/usr/bin/env bash
# The tests on another architecture, in a Debian chroot (scripts/chroot.sh;
# arm64 and s390x run under qemu-user, i386 natively where the kernel can),
# and filters exchanged between it and the host.
#
#   test/arch.sh TARGET [unit] [regress] [exchange]
#
# TARGET is 15-arm64, 15-s390x (big-endian) or 15-i386 (x87 floating point).
# With no step named, all three run:
#
#   unit      make unitcheck there (gcc; build/ARCH)
#   regress   build there (build/ARCH) and install into a tree in /tmp, then
#             make installcheck on a throwaway cluster there (arm64 and
#             s390x share the suite between them: regress_tests below)
#   exchange  a cluster there and one on the host (built here, build/):
#             the same statements make the same filters on both (text and
#             binary forms byte for byte the same), and the text and binary
#             COPY of each side's filters, loaded into the other, give
#             filters equal (=) to that side's own: bloom, counting_bloom
#             and scalable_bloom filters
#
# Needs root (chroot.sh).  Prints "ARCH-STEP: N passed, M failed" for each
# step and exits non-zero if any failed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG15=/usr/lib/postgresql/15/bin/pg_config

# Inside the chroot: the exchange, run as a command of the chroot's cluster
# (PGHOST etc. are that cluster's); $2 and $3 are the host cluster's socket
# directory and port.
if [ "${1:-}" = --exchange-inside ]; then
	host_pghost=$2 host_pgport=$3 arch=$4
	export PG_CONFIG=$PG15
	source "$ROOT/test/checks.bash"
	here=("${PSQL[@]}")
	host=("${PSQL[@]}" -h "$host_pghost" -p "$host_pgport")
	files=$(mktemp -d /tmp/bloomfilter-exchange.XXXXXX)
	chmod 755 "$files"

	# The same filters on both sides: both hash schemes, the adder (2 MiB and
	# more), the self-sizing aggregate's exact phase and its folded sketch,
	# set operations, and values of several types (whose canonical bytes are
	# little-endian whatever the machine); counting filters (c: both hash
	# schemes, values removed, saturated counters, union and subtraction) and
	# scalable ones (s: 7 stages, growth 4, self-sized, scheme 2, union).
	make_filters="
	CREATE EXTENSION bloomfilter;
	CREATE TABLE made (name text, f bloom, c counting_bloom, s scalable_bloom);
	INSERT INTO made (name, f) VALUES
		('empty', bloom_empty(0.01, 1000)),
		('scheme 1', (SELECT bloom_agg(i, 0.01, 100000) FROM generate_series(1, 100000) AS i)),
		('scheme 2, adder', (SELECT bloom_agg(i, 0.01, 2000000) FROM generate_series(1, 2000000) AS i)),
		('self-sized, exact', (SELECT bloom_agg(i) FROM generate_series(1, 100000) AS i)),
		('self-sized, sketch', (SELECT bloom_agg(i) FROM generate_series(1, 300000) AS i)),
		('self-sized, p = 0.001', (SELECT bloom_agg(i, 0.001) FROM generate_series(1, 1000) AS i)),
		('union', (SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(1, 10000) AS i) |
			(SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(5001, 15000) AS i)),
		('intersection', (SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(1, 10000) AS i) &
			(SELECT bloom_agg(i, 0.01, 20000) FROM generate_series(5001, 15000) AS i)),
		('text, float8, numeric, uuid, timestamp',
			bloom_add(bloom_add(bloom_add(bloom_add(
				(SELECT bloom_agg(v, 0.01, 1000) FROM (VALUES ('apple'), ('pear')) AS t(v)),
				1.5::float8), '-0.001'::numeric), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
				'1999-12-31 23:59:59.999999'::timestamp));
	INSERT INTO made (name, c) VALUES
		('counting: empty', counting_bloom_empty(0.01, 1000)),
		('counting: scheme 1, half removed', (SELECT bloom_remove_all(counting_bloom_agg(i, 0.01, 100000),
			array_agg(i) FILTER (WHERE i <= 50000)) FROM generate_series(1, 100000) AS i)),
		('counting: scheme 2', (SELECT counting_bloom_agg(i, 0.01, 2000000) FROM generate_series(1, 20000) AS i)),
		('counting: saturated, text, float8, numeric, uuid', bloom_add_all(bloom_add(bloom_add(bloom_add(bloom_add(
			bloom_add_all(counting_bloom_empty_mk(1000, 3), array_fill(7, ARRAY[20])),
			'apple'::text), 'café あ'::text), 1.5::float8), '-0.001'::numeric),
			ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid])),
		('counting: union, subtraction', ((SELECT counting_bloom_agg(i, 0.01, 20000) FROM generate_series(1, 10000) AS i) |
			(SELECT counting_bloom_agg(i, 0.01, 20000) FROM generate_series(5001, 15000) AS i)) -
			(SELECT counting_bloom_agg(i, 0.01, 20000) FROM generate_series(1, 1000) AS i));
	INSERT INTO made (name, s) VALUES
		('scalable: 7 stages', bloom_add_all(scalable_bloom_empty(0.01, 1000), ARRAY(SELECT generate_series(1, 100000)))),
		('scalable: growth 4, tightening 0.9, text', bloom_add_all(scalable_bloom_empty(0.001, 100, 4, 0.9),
			ARRAY(SELECT md5(i::text) || 'é' FROM generate_series(1, 5000) AS i))),
		('scalable: self-sized', (SELECT bloom_add_all(scalable_bloom_agg(i, 0.01), ARRAY(SELECT generate_series(30001, 60000)))
			FROM generate_series(1, 30000) AS i)),
		('scalable: scheme 2', bloom_add_all(scalable_bloom_empty(0.01, 2000000), ARRAY(SELECT generate_series(1, 1000)))),
		('scalable: union', bloom_add_all(scalable_bloom_empty(0.01, 100), ARRAY(SELECT generate_series(1, 1000))) |
			bloom_add_all(scalable_bloom_empty(0.01, 100), ARRAY(SELECT generate_series(501, 3000))));
	CREATE TABLE theirs_text (LIKE made);
	CREATE TABLE theirs_binary (LIKE made);"
	"${here[@]}" -c "$make_filters"
	"${host[@]}" -c "$make_filters"
	nfilters=$("${here[@]}" -c 'SELECT count(*) FROM made')

	# Each side's own forms, byte for byte
	forms="SELECT name || ' | ' || CASE
		WHEN f IS NOT NULL THEN (bloom_info(f)).m || ' ' || (bloom_info(f)).k || ' ' ||
			split_part(f::text, ':', 3) || ' | ' || md5(f::text) || ' ' || md5(bloom_send(f))
		WHEN c IS NOT NULL THEN (bloom_info(c)).m || ' ' || (bloom_info(c)).k || ' h' || (bloom_info(c)).hash_scheme
			|| ' ' || (bloom_info(c)).counter_sum || ' | ' || md5(c::text) || ' ' || md5(counting_bloom_send(c))
		ELSE (bloom_info(s)).stages || ' stages ' || (bloom_info(s)).bytes || ' bytes | ' || md5(s::text)
			|| ' ' || md5(scalable_bloom_send(s)) END
		FROM made ORDER BY name"
	here_forms=$("${here[@]}" -c "$forms")
	host_forms=$("${host[@]}" -c "$forms")
	printf '%s (m k h<scheme> [counter sum] or stages and bytes | md5 of the text and binary forms):\n%s\n' "$arch" "$here_forms"
	while IFS= read -r line; do
		name=${line%% |*}
		check "$name: the same m, k, scheme and forms on $arch and the host" \
			"$(awk -v start="$name |" 'index($0, start) == 1' <<<"$host_forms")" "$line"
	done <<<"$here_forms"

	# COPY out of each side into files, which are the same bytes
	for side in here host; do
		declare -n client=$side
		"${client[@]}" -c "\\copy (SELECT name, f, c, s FROM made ORDER BY name) TO '$files/$side.txt'"
		"${client[@]}" -c "\\copy (SELECT name, f, c, s FROM made ORDER BY name) TO '$files/$side.copy' (FORMAT binary)"
		unset -n client
	done
	( cd "$files" && md5sum here.txt host.txt here.copy host.copy | sed "s/here\./$arch./" )
	check "text COPY files: $arch's and the host's are the same bytes" \
		"$(md5sum <"$files/host.txt")" "$(md5sum <"$files/here.txt")"
	check "binary COPY files: $arch's and the host's are the same bytes" \
		"$(md5sum <"$files/host.copy")" "$(md5sum <"$files/here.copy")"

	# Each side loads the other's files: every filter equals its own
	compare="SELECT format('%s|%s', t.name, num_nonnulls(m.f, m.c, m.s) = 1
			AND t.f IS NOT DISTINCT FROM m.f AND b.f IS NOT DISTINCT FROM m.f
			AND t.f::text IS NOT DISTINCT FROM m.f::text AND bloom_send(b.f) IS NOT DISTINCT FROM bloom_send(m.f)
			AND t.c IS NOT DISTINCT FROM m.c AND b.c IS NOT DISTINCT FROM m.c
			AND t.c::text IS NOT DISTINCT FROM m.c::text
			AND counting_bloom_send(b.c) IS NOT DISTINCT FROM counting_bloom_send(m.c)
			AND t.s IS NOT DISTINCT FROM m.s AND b.s IS NOT DISTINCT FROM m.s
			AND t.s::text IS NOT DISTINCT FROM m.s::text
			AND scalable_bloom_send(b.s) IS NOT DISTINCT FROM scalable_bloom_send(m.s))
		FROM made AS m JOIN theirs_text AS t USING (name) JOIN theirs_binary AS b USING (name)
		ORDER BY name"
	for pair in "here host host $arch" "host here $arch host"; do
		read -r side other writer reader <<<"$pair"
		declare -n client=$side
		"${client[@]}" -c "\\copy theirs_text FROM '$files/$other.txt'"
		"${client[@]}" -c "\\copy theirs_binary FROM '$files/$other.copy' (FORMAT binary)"
		result=$("${client[@]}" -c "$compare")
		unset -n client
		check "$reader reads all of $writer's filters" "$nfilters" "$(grep -c . <<<"$result")"
		while IFS='|' read -r name equal; do
			check "$name: written on $writer, read on $reader (text and binary): =" t "$equal"
		done <<<"$result"
	done
	rm -rf "$files"
	echo "$passed $failed" >"$5"
	exit 0
fi

# Inside the host's cluster: start one in the chroot, and the exchange in it.
if [ "${1:-}" = --exchange-host ]; then
	target=$2 arch=$3 counts=$4 inst_there=$5 jit=$6
	exec "$ROOT/scripts/chroot.sh" run "$target" env PG_CONFIG=$PG15 \
		"$ROOT/test/pg_cluster.sh" -o "jit=$jit" "$inst_there" \
		"$ROOT/test/arch.sh" --exchange-inside "$PGHOST" "$PGPORT" "$arch" "$counts"
fi

target=${1:?usage: test/arch.sh 15-arm64|15-s390x|15-i386 [unit] [regress] [exchange]}
arch=${target#*-}
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(unit regress exchange)
cd "$ROOT"
# The install trees go to /tmp (which the chroot shares), where the postgres
# users of the host and of the chroot can read them whatever the clone's
# permissions.
inst=$(mktemp -d /tmp/bloomfilter-arch.XXXXXX)
chmod 755 "$inst"
trap 'rm -rf "$inst"' EXIT
in_chroot=("$ROOT/scripts/chroot.sh" run "$target")
# with_llvm=no: no JIT inlining bitcode (clang under qemu would double the
# build, and the JIT is not what these tests are about; the host's build
# has it)
make_there=(make --no-print-directory -C "build/$arch" -f ../../Makefile VPATH=../.. PG_CONFIG=$PG15 with_llvm=no)
# arm64 and s390x run under qemu, where gcc itself would be emulated (the
# longest part of their run): their code is compiled on the host by Debian's
# cross compiler of the same GCC, against the chroot's own headers,
# libraries and Makefile.global (--sysroot, PGXS), and only runs there.
# i386 runs natively and builds in its chroot (under qemu, where the kernel
# cannot run it, it is cross-compiled too).
triplet=$("$ROOT/scripts/chroot.sh" cross-compiler "$target")
# Under qemu the servers run with jit = off: LLVM itself would be emulated
# (it took a third of the time of the heaviest SQL tests on arm64: autosize
# 39.9 s against 25.5 s), and the extension's code runs the same either way
# (it has no bitcode there: with_llvm=no).  Their chroots have an empty
# stand-in for the server's libllvm (scripts/chroot.sh).  i386 on its own
# kernel, the host and every major test with JIT on.
jit=on
[ -n "$triplet" ] && jit=off
if [ -n "$triplet" ]; then
	"$ROOT/scripts/chroot.sh" ensure "$target"
	sysroot=$("$ROOT/scripts/chroot.sh" name "$target")
	# the chroot's pg_config (run under qemu) names the paths of an
	# installation there; its headers are read through the sysroot
	printf '#!/bin/sh\nexec chroot %s %s "$@"\n' "$sysroot" "$PG15" >"$inst/pg_config"
	chmod 755 "$inst/pg_config"
	make_built=(make --no-print-directory -C "build/$arch" -f ../../Makefile VPATH=../..
		PG_CONFIG="$inst/pg_config" PGXS="$sysroot$("$inst/pg_config" --pgxs)" with_llvm=no
		CC="$triplet-gcc --sysroot=$sysroot"
		includedir_server="$sysroot$("$inst/pg_config" --includedir-server)"
		includedir_internal="$sysroot$("$inst/pg_config" --includedir)/internal")
fi
# Under qemu the SQL suite is the longest part of make test-all (doc/
# development.md has the times), so arm64 and s390x share it: s390x,
# big-endian, runs the tests of the stored forms, the hashing, the value
# encodings and the sizing, where byte order shows; arm64 runs the others,
# and every new test.  i386 runs them all where it runs natively; under
# qemu (a kernel without IA32 emulation) it runs s390x's half, where its
# 4-byte alignment and x87 arithmetic show too.  Every major runs them all.
# BLOOM_ARCH_REGRESS=all runs every test here too.
regress_tests=
if [ -n "$triplet" ] && [ "${BLOOM_ARCH_REGRESS:-split}" != all ]; then
	byte_order_tests=" adversarial blocked counting element encoding estimates forms hash_alike hashing"
	byte_order_tests+=" input_validity io scalable scalable_agg setops sizing "
	regress_tests=setup
	for test in $(cd sql && ls -- *.sql | sed -n 's/\.sql$//p' | grep -v '^bloomfilter--' | grep -vx setup | sort); do
		half=arm64
		case $byte_order_tests in *" $test "*) half=s390x ;; esac
		case $arch-$half in arm64-arm64 | s390x-s390x | i386-s390x) regress_tests+=" $test" ;; esac
	done
fi
# build_cmd TARGET...: the make that builds for $arch (on the host for a
# cross-compiled one, else in the chroot)
build_cmd() {
	if [ -n "$triplet" ]; then
		mkdir -p "build/$arch" && "${make_built[@]}" "$@"
	else
		"${in_chroot[@]}" bash -c "mkdir -p build/$arch && ${make_there[*]} $*"
	fi
}
status=0

report() {
	echo "$arch-$1: $2 passed, $3 failed ($4 s)"
	[ "$3" -eq 0 ] || status=1
}

built=false
build_there() {
	$built && return 0
	build_cmd -j2 >/dev/null && build_cmd install DESTDIR="$inst/$arch" >/dev/null && chmod -R a+rX "$inst/$arch"
	built=true
}

for step in "${steps[@]}"; do
	start=$SECONDS
	log=$ROOT/build/arch-$arch-$step.log
	mkdir -p "$ROOT/build"
	case $step in
	unit)
		# unitcheck's binaries, built for $arch, then run there
		{ build_cmd test/unit-tests test/fuzz-corpus-gen \
			&& "${in_chroot[@]}" bash -c "cd build/$arch && ./test/unit-tests"; } >"$log" 2>&1 || true
		grep FAILED "$log" || true
		counts=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -n 1)
		[ -n "$counts" ] || { tail -n 5 "$log"; counts="0 1"; }
		report unit "${counts% *}" "${counts#* }" $((SECONDS - start))
		;;
	regress)
		build_there
		"${in_chroot[@]}" env PG_CONFIG=$PG15 test/pg_cluster.sh -o "jit=$jit" "$inst/$arch" \
			"${make_there[@]}" installcheck ${regress_tests:+REGRESS="$regress_tests"} >"$log" 2>&1 || true
		grep -E '^(not )?ok|^test |FAILED' "$log" || true
		p=$(grep -cE '^(ok|test .*\.\.\. ok)' "$log" || true)
		f=$(grep -cE '^not ok|FAILED' "$log" || true)
		[ -e "build/$arch/regression.diffs" ] && cat "build/$arch/regression.diffs"
		report regress "$p" "$f" $((SECONDS - start))
		;;
	exchange)
		build_there
		mk_host=(make --no-print-directory -C build -f ../Makefile VPATH=.. PG_CONFIG=$PG15)
		"${mk_host[@]}" >/dev/null && "${mk_host[@]}" install DESTDIR="$inst/host" >/dev/null
		chmod -R a+rX "$inst/host"
		counts=$(mktemp /tmp/bloomfilter-counts.XXXXXX)
		chmod 666 "$counts"
		PG_CONFIG=$PG15 test/pg_cluster.sh "$inst/host" "$ROOT/test/arch.sh" --exchange-host \
			"$target" "$arch" "$counts" "$inst/$arch" "$jit" 2>&1 | tee "$log" || true
		p=0 f=1
		if [ -s "$counts" ]; then read -r p f <"$counts"; fi
		rm -f "$counts"
		report exchange "$p" "$f" $((SECONDS - start))
		;;
	*)
		echo "test/arch.sh: unknown step $step (unit, regress or exchange)" >&2
		exit 2
		;;
	esac
done
exit $status
