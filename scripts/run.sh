#!/usr/bin/env bash
# The fresh-machine path, behind "make test", "make demo" and "make bench".
#
#   scripts/run.sh test     build, C unit tests, SQL tests on a throwaway
#                           cluster, the docs' SQL as written (test/doc.pl),
#                           the client libraries' tests
#                           (clients/*/run-tests.sh) on another, TAP tests
#                           (t/*.pl)
#   scripts/run.sh test-all the same on the host's 15, then the SQL and TAP
#                           tests on every other major in $PG_MAJORS (default
#                           "17 18 19"), each in a Debian chroot made and
#                           cached by scripts/chroot.sh, then the cross-major
#                           tests (test/cross/); in the background, once
#                           the host's tests and the architectures' (below)
#                           have ended, the installation tests
#                           (test/install/: package, PGXN zip); meanwhile,
#                           in the background
#                           from the start, the unit and SQL tests on 15 for
#                           each architecture in $BLOOM_ARCHES (default
#                           "arm64 s390x i386"; test/arch.sh)
#   scripts/run.sh demo     build, then scripts/demo.sql on a throwaway cluster
#   scripts/run.sh bench    build, then bench/bench.sh on a tuned throwaway cluster
#   scripts/run.sh plots    build, then doc/plots/make-plots.sh on a throwaway cluster
#
# Installs what is missing first (scripts/setup.sh), builds out of tree in
# build/ and installs into build/inst with DESTDIR: nothing is installed into
# the system's PostgreSQL, and a clone can be tested without touching a
# server of your own.  "test" ends with one line "N passed, M failed" over the
# unit and SQL tests and exits non-zero if anything failed.
#
# Environment: PG_CONFIG (default: PostgreSQL 15's), BLOOM_BUILD_DIR (default
# build/), BLOOM_WERROR=1 to fail on any compiler warning in our sources,
# BLOOM_TESTS (default "unit sql doc clients cluster"; doc is test/doc.pl,
# cluster the TAP tests) to run only some kinds of tests,
# BLOOM_SKIP_SETUP=1 where the dependencies are known to be there (chroots).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-}
case $mode in
	test | test-all | demo | bench | plots) ;;
	*) echo "usage: $0 test|test-all|demo|bench|plots" >&2; exit 2 ;;
esac
tests=${BLOOM_TESTS:-unit sql doc clients cluster}
runs() { case " $tests " in *" $1 "*) return 0 ;; esac; return 1; }

started=$SECONDS
# What to undo on exit, in order.
cleanup=()
trap 'for c in "${cleanup[@]}"; do eval "$c" || true; done' EXIT
elapsed() { echo "$((SECONDS - ${1:-started}))s"; }
heading() { printf '\n==== %s ====\n' "$*"; }
# run_background OUT COMMAND...: for a test run in the background, COMMAND's
# output to OUT and, when it ends, "STATUS SECONDS" to OUT.status (which
# add_background reads, and a run waiting for this one looks for)
run_background() {
	local out=$1 t=$SECONDS status=0
	shift
	rm -f "$out.status"
	"$@" >"$out" 2>&1 </dev/null || status=$?
	echo "$status $((SECONDS - t))" >"$out.status"
}

heading "set-up"
extra=()
[ "$mode" = bench ] && extra=(postgresql-15-hll valgrind)
[ "$mode" = plots ] && extra=(gnuplot-nox)
if [ "${BLOOM_SKIP_SETUP:-0}" != 1 ]; then
	"$ROOT/scripts/setup.sh" "${extra[@]}"
fi
echo "dependencies present"

export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BUILD=${BLOOM_BUILD_DIR:-$ROOT/build}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
mk=(make --no-print-directory -C "$BUILD" -f "$ROOT/Makefile" VPATH="$ROOT" PG_CONFIG="$PG_CONFIG")

# ---- build and install into build/inst ----
heading "build ($("$PG_CONFIG" --version), in $BUILD)"
t=$SECONDS
build_status=0
"${mk[@]}" -j2 2>&1 | tee "$BUILD/build.log" || build_status=$?
if [ "$build_status" -ne 0 ]; then
	echo "run.sh: build failed (make exited $build_status); see above"
	exit 1
fi
rm -rf "$BUILD/inst"
if ! "${mk[@]}" install DESTDIR="$BUILD/inst" >"$BUILD/install.log" 2>&1; then
	cat "$BUILD/install.log"
	echo "run.sh: make install DESTDIR=$BUILD/inst failed"
	exit 1
fi
echo "built and installed into $BUILD/inst in $(elapsed $t)"

# The throwaway cluster runs as postgres when we are root, and must read the
# install tree.  A clone in a private directory (/root/...) is out of its
# reach: then it gets a copy in /tmp.
inst=$BUILD/inst
control=$inst$("$PG_CONFIG" --sharedir)/extension/bloomfilter.control
if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -r "$control" 2>/dev/null; then
	inst=$(mktemp -d /tmp/bloomfilter-inst.XXXXXX)
	cleanup+=("rm -rf '$inst'")
	chmod 755 "$inst"
	cp -a "$BUILD/inst/." "$inst/"
	echo "(user postgres cannot read $BUILD/inst, so the cluster loads a copy in $inst)"
fi

# Compiler warnings located in our own sources (src/, test/), from any log given.
our_warnings() {
	grep -hE '(^|/)(src|test)/[^: ]+:[0-9]+(:[0-9]+)?: warning:' "$@" 2>/dev/null \
		| grep -v '^/usr/' | sort -u || true
}

cluster=("$ROOT/test/pg_cluster.sh")

case $mode in
demo)
	heading "demo (scripts/demo.sql on a throwaway cluster)"
	t=$SECONDS
	"${cluster[@]}" "$inst" "$("$PG_CONFIG" --bindir)/psql" -X -q \
		-v ON_ERROR_STOP=1 -P pager=off -f "$ROOT/scripts/demo.sql"
	echo
	echo "demo finished in $(elapsed $t)"
	exit 0
	;;
bench)
	heading "bench (bench/bench.sh on a throwaway cluster)"
	"${cluster[@]}" -o shared_buffers=2GB -o max_parallel_workers_per_gather=0 \
		-o jit=off -o work_mem=1GB -o maintenance_work_mem=1GB \
		-o max_wal_size=8GB -o checkpoint_timeout=1h \
		"$inst" env BLOOM_INST="$inst" "$ROOT/bench/bench.sh"
	exit 0
	;;
plots)
	heading "plots (doc/plots/make-plots.sh on a throwaway cluster)"
	t=$SECONDS
	"${cluster[@]}" "$inst" "$ROOT/doc/plots/make-plots.sh"
	echo "plots written to $ROOT/doc/plots in $(elapsed $t)"
	exit 0
	;;
esac

# ---- test ----
# test-all: the chroots of the other majors are made (or found) in the
# background while the host's tests run; each major's run below waits for
# its own.
declare -A preparing=()
if [ "$mode" = test-all ]; then
	for major in ${PG_MAJORS:-17 18 19}; do
		[ "$major" = 15 ] && continue
		"$ROOT/scripts/chroot.sh" ensure "$major" >"$BUILD/chroot-$major.log" 2>&1 &
		preparing[$major]=$!
	done
	arches=(${BLOOM_ARCHES-arm64 s390x i386})
	for arch in "${arches[@]}"; do
		"$ROOT/scripts/chroot.sh" ensure "15-$arch" >"$BUILD/chroot-15-$arch.log" 2>&1 &
	done
	# The other architectures' tests (test/arch.sh) run in the background
	# from here, all at once, each once its chroot is made (ensure waits for
	# the maker above): they are mostly qemu's work, which shares the two
	# cores with the host's and the majors' tests while those run, and has
	# both when they are done.  Their output is shown, and counted, at the
	# end, and they end before the installation tests start, which put a
	# package into the host's PostgreSQL (each writes its status file when
	# it ends).
	arch_run() { "$ROOT/scripts/chroot.sh" ensure "15-$1" && "$ROOT/test/arch.sh" "15-$1"; }
	arch_jobs=()
	for arch in "${arches[@]}"; do
		run_background "$BUILD/arch-$arch.out" arch_run "$arch" &
		arch_jobs+=($!)
	done
fi
passed=0
failed=0
summary=()

# Add up every "N passed, M failed" line of a log; echo "N M", or nothing.
count_result_lines() {
	grep -E '^([[:alnum:]_-]+: )?[0-9]+ passed, [0-9]+ failed' "$1" \
		| sed -E 's/^([[:alnum:]_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/' \
		| awk '{ p += $1; f += $2; n++ } END { if (n) print p, f }'
}

# run_counted NAME LOG COMMAND...: run a test command, its output to the
# terminal and LOG, and add its "N passed, M failed" lines to the totals and
# a line to the summary.  A command that failed before reporting a failure
# (did not compile, crashed, stopped early) counts as one failure.
run_counted() {
	local name=$1 log=$2 t=$SECONDS status=0
	shift 2
	"$@" 2>&1 | tee "$log" || status=$?
	add_counted "$name" "$log" "$status" "$(elapsed $t)"
}

# add_counted NAME LOG STATUS TIME: the "N passed, M failed" lines of LOG
# added to the totals and a line to the summary; a non-zero STATUS with no
# failure reported counts as one.
add_counted() {
	local name=$1 log=$2 status=$3 time=$4 p f
	read -r p f <<<"$(count_result_lines "$log")" || true
	p=${p:-0} f=${f:-0}
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f))
	summary+=("$(printf '%-22s %d passed, %d failed (exited %d, %s)' "$name:" "$p" "$f" "$status" "$time")")
}

# add_background NAME OUT: a background run's output shown, and counted
# as add_counted does, with the status and time run_background wrote
add_background() {
	local name=$1 out=$2 status=1 secs=0
	cat "$out" 2>/dev/null || true
	[ -s "$out.status" ] && read -r status secs <"$out.status"
	add_counted "$name" "$out" "$status" "${secs}s, in the background"
}

if runs unit; then
	heading "layout: doc/development.md's tables of src/ and the tree"
	run_counted layout "$BUILD/layout.log" "$ROOT/test/layout.sh"
fi
if ! runs unit; then
	:
elif [ -f "$ROOT/test/unit.mk" ]; then
	for target in unitcheck unitcheck-sanitize fuzzcheck; do
		heading "C unit tests: make $target"
		run_counted "$target" "$BUILD/$target.log" "${mk[@]}" "$target"
	done
else
	summary+=("unit tests:            none (test/unit.mk not there yet)")
fi

if runs sql; then
heading "SQL tests: make installcheck on a throwaway cluster"
t=$SECONDS
log="$BUILD/installcheck.log"
status=0
"${cluster[@]}" "$inst" "${mk[@]}" installcheck 2>&1 | tee "$log" || status=$?
# pg_regress closes with "All N tests passed." or "M of N tests failed."
p=0 f=0
if line=$(grep -Eo 'All [0-9]+ tests passed' "$log" | tail -n 1) && [ -n "$line" ]; then
	p=$(echo "$line" | grep -Eo '[0-9]+')
elif line=$(grep -Eo '[0-9]+ of [0-9]+ tests (failed|passed)' "$log" | tail -n 1) && [ -n "$line" ]; then
	read -r a _ total _ verdict <<<"$line"
	if [ "$verdict" = failed ]; then f=$a p=$((total - a)); else p=$a f=$((total - a)); fi
fi
if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
	# A crash, a cluster that did not start, or pg_regress did not run.
	f=1
fi
passed=$((passed + p)) failed=$((failed + f))
summary+=("$(printf '%-22s %d passed, %d failed (exited %d, %s)' "installcheck:" "$p" "$f" "$status" "$(elapsed $t)")")
if [ "$status" -ne 0 ] && [ -s "$BUILD/regression.diffs" ]; then
	heading "$BUILD/regression.diffs"
	head -n 600 "$BUILD/regression.diffs"
	[ "$(wc -l <"$BUILD/regression.diffs")" -gt 600 ] && echo "... (cut at 600 lines; the whole file is $BUILD/regression.diffs)"
fi
fi

# ---- the docs: every SQL example of README.md and doc/*.md, as written ----
# test/doc.pl, each page in a database of its own on a throwaway cluster; its
# last line is "doc: N passed, M failed, K skipped" (the blocks that need
# another server, Citus or a preload, named in the pages).
if runs doc; then
	heading "docs: the SQL of README.md and doc/*.md, as written (test/doc.pl)"
	run_counted doc "$BUILD/doc.log" "${cluster[@]}" "$inst" "$ROOT/test/doc.pl"
	doc_skipped=$(sed -n 's/^doc: [0-9]* passed, [0-9]* failed, \(.* skipped.*\) in [0-9.]* s$/\1/p' "$BUILD/doc.log")
	[ -n "$doc_skipped" ] && summary+=("$(printf '%-22s %s' "doc:" "$doc_skipped")")
fi

# ---- the client libraries: clients/*/run-tests.sh, each on a throwaway cluster ----
# Each builds its library into $BUILD, runs its tests (the golden vectors,
# and against the server: values, sizing, estimates, drivers) and ends with
# "NAME: N passed, M failed".
if runs clients; then
	for runner in "$ROOT"/clients/*/run-tests.sh; do
		[ -e "$runner" ] || continue
		name=$(basename "$(dirname "$runner")")
		heading "client library: clients/$name, on a throwaway cluster"
		run_counted "client-$name" "$BUILD/client-$name.log" "${cluster[@]}" "$inst" "$runner" "$BUILD"
	done
fi

# ---- TAP tests: t/*.pl, on PostgreSQL's framework ----
# One "make prove_installcheck" runs them all, BLOOM_TAP_JOBS (2) at a
# time: each starts its own servers from the install tree (BLOOM_INST) on
# ports the framework reserves, so they do not meet.  Those named in
# BLOOM_TAP_ALONE (by default "resources", whose cancel timings and memory
# peaks the others' load would disturb) run after, one at a time.  Each
# test's last line is "NAME: N passed, M failed", a line of the summary.
# initdb refuses root: as root the tests run as postgres, from a copy of the
# tree when postgres cannot read this one.  When a test fails, the logs (its
# own and its servers') are kept in $BUILD/tap-logs.
# BLOOM_SKIP_CLUSTER_TESTS (space-separated names, t/011_parallel.pl is
# "parallel") skips some.
export BLOOM_ROOT=$ROOT BLOOM_BUILD=$BUILD PG_CONFIG
if runs cluster; then
	tap_root=$ROOT
	tap_run=$BUILD/tap
	as_tester=()
	rm -rf "$tap_run" "$BUILD/tap-logs"
	mkdir -p "$tap_run"
	if [ "$(id -u)" = 0 ]; then
		as_tester=(runuser -u postgres --)
		chown postgres: "$tap_run"
		if ! runuser -u postgres -- test -r "$ROOT/t/BloomTest.pm"; then
			tap_root=$(mktemp -d /tmp/bloomfilter-src.XXXXXX)
			cleanup+=("rm -rf '$tap_root'")
			tar -C "$ROOT" --exclude=./build -cf - . | tar -C "$tap_root" -xf -
			chmod -R a+rX "$tap_root"
			echo "(user postgres cannot read $ROOT, so the TAP tests run from a copy in $tap_root)"
		fi
	fi
	together=() alone=()
	for test in "$tap_root"/t/*.pl; do
		[ -e "$test" ] || continue
		name=$(basename "$test" .pl)
		name=${name#[0-9]*_}
		case " ${BLOOM_SKIP_CLUSTER_TESTS:-} " in *" $name "*) continue ;; esac
		case " ${BLOOM_TAP_ALONE-resources} " in
		*" $name "*) alone+=("t/$(basename "$test")") ;;
		*) together+=("t/$(basename "$test")") ;;
		esac
	done
	# tap_prove JOBS LOG TESTS...: one prove of the tests; each test's line
	# goes to the totals and the summary
	tap_prove() {
		local jobs=$1 log=$2 t=$SECONDS status=0 line name p f seen=0
		shift 2
		[ $# -gt 0 ] || return 0
		heading "TAP tests, $jobs at a time: $*"
		"${as_tester[@]}" env BLOOM_INST="$inst" BLOOM_ROOT="$tap_root" PG_CONFIG="$PG_CONFIG" \
			make --no-print-directory -C "$tap_run" -f "$tap_root/Makefile" VPATH="$tap_root" \
			PG_CONFIG="$PG_CONFIG" prove_installcheck PROVE_FLAGS="-v -j$jobs" PROVE_TESTS="$*" \
			2>&1 | tee "$log" || status=$?
		while IFS= read -r line; do
			name=${line%%:*}
			read -r p _ f _ <<<"${line#*: }"
			passed=$((passed + p)) failed=$((failed + f)) seen=$((seen + 1))
			summary+=("$(printf '%-22s %d passed, %d failed' "$name:" "$p" "$f")")
		done < <(grep -E '^[[:alnum:]_-]+: [0-9]+ passed, [0-9]+ failed' "$log")
		# a test that skipped as a whole (plan skip_all: Citus where it is
		# not installed) says so in prove's own line, not in its output
		while IFS= read -r line; do
			name=${line#t/[0-9]*_}
			name=${name%%.pl*}
			seen=$((seen + 1))
			summary+=("$(printf '%-22s skipped: %s' "$name:" "${line#*skipped: }")")
		done < <(grep -E '^t/[[:alnum:]_-]+\.pl \.* ?skipped: ' "$log")
		# a test that reported nothing (it did not start, or died before
		# its end) is a failure of its own, as is a prove that failed
		# with no failure reported
		if [ "$seen" -lt $# ]; then
			failed=$((failed + $# - seen))
			summary+=("$(printf '%-22s %d of %d tests reported nothing' "TAP:" "$(($# - seen))" "$#")")
		elif [ "$status" -ne 0 ] && ! grep -qE '^[[:alnum:]_-]+: [0-9]+ passed, [1-9][0-9]* failed' "$log"; then
			failed=$((failed + 1))
		fi
		summary+=("$(printf '%-22s prove exited %d, %s' "TAP ($jobs at a time):" "$status" "$(elapsed $t)")")
		if [ "$status" -ne 0 ] && [ -d "$tap_run/tmp_check/log" ]; then
			mkdir -p "$BUILD/tap-logs"
			cp -r "$tap_run/tmp_check/log/." "$BUILD/tap-logs/"
			echo "(the logs are in $BUILD/tap-logs; the tails of the failed tests' own:)"
			for name in $(grep -E '^[[:alnum:]_-]+: [0-9]+ passed, [1-9][0-9]* failed' "$log" | cut -d: -f1); do
				tail -n 40 "$BUILD/tap-logs"/regress_log_*_"$name" 2>/dev/null || true
			done
		fi
	}
	tap_prove "${BLOOM_TAP_JOBS:-2}" "$BUILD/tap.log" "${together[@]}"
	tap_prove 1 "$BUILD/tap-alone.log" "${alone[@]}"
fi

# ---- test-all: the other majors, each in its chroot, then across majors ----
# Each major's run is this script in its chroot ("test" with the SQL and
# TAP tests: the C core is the same on every major, and its unit tests
# and fuzzers ran above), building into $BUILD/pgN; its last line is its
# total.
if [ "$mode" = test-all ]; then
	cleanup+=("'$ROOT/scripts/chroot.sh' release")
	# ---- installation paths: test/install/*.sh on the host's 15, in the background ----
	# The ways users install the extension (the Debian package, the PGXN
	# zip), each built from this tree and tested as installed.  A package
	# goes into the system's PostgreSQL 15, where no other test may find it,
	# so they run one after the other once every other test of the host's
	# 15 has ended: the host's own (above) and the architectures' exchange
	# (their status files); the majors run in their chroots meanwhile, and
	# the cross-major tests (a 15 server of this tree) wait for them.  Their
	# output is shown, and counted, before the cross-major tests run.
	install_scripts=()
	for script in "$ROOT"/test/install/*.sh; do
		[ -e "$script" ] || continue
		install_scripts+=("$script")
	done
	(
		for arch in "${arches[@]}"; do
			while [ ! -s "$BUILD/arch-$arch.out.status" ]; do sleep 5; done
		done
		for script in "${install_scripts[@]}"; do
			run_background "$BUILD/install-$(basename "$script" .sh).log" "$script"
		done
	) &
	install_job=$!
	majors=()
	for major in ${PG_MAJORS:-17 18 19}; do
		[ "$major" = 15 ] && continue
		majors+=("$major")
		heading "PostgreSQL $major (chroot $("$ROOT/scripts/chroot.sh" name "$major"))"
		t=$SECONDS
		log="$BUILD/pg$major.log"
		status=0
		{ wait "${preparing[$major]}" || { cat "$BUILD/chroot-$major.log"; false; }; } \
			&& cat "$BUILD/chroot-$major.log" \
			&& "$ROOT/scripts/chroot.sh" run "$major" env \
				PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" \
				BLOOM_BUILD_DIR="$BUILD/pg$major" BLOOM_TESTS="sql cluster" \
				BLOOM_SKIP_SETUP=1 BLOOM_WERROR="${BLOOM_WERROR:-0}" \
				"$ROOT/scripts/run.sh" test 2>&1 | tee "$log" || status=$?
		p=0 f=0
		if line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1) && [ -n "$line" ]; then
			read -r p _ f _ <<<"$line"
		fi
		[ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		passed=$((passed + p)) failed=$((failed + f))
		summary+=("$(printf '%-22s %d passed, %d failed (exited %d, %s)' "PostgreSQL $major:" "$p" "$f" "$status" "$(elapsed $t)")")
	done
	# ---- the installation tests (started above), then across majors ----
	heading "installation tests (waiting for the background run)"
	t=$SECONDS
	wait "$install_job" || true
	echo "waited $(elapsed $t)"
	for script in "${install_scripts[@]}"; do
		name=$(basename "$script" .sh)
		heading "installation test: $name"
		add_background "install-$name" "$BUILD/install-$name.log"
	done
	# test/cross/*.sh, with the majors just tested
	export BLOOM_INST_15=$inst BLOOM_MAJORS="${majors[*]}"
	for script in "$ROOT"/test/cross/*.sh; do
		[ -e "$script" ] || continue
		[ ${#majors[@]} -gt 0 ] || break
		name=$(basename "$script" .sh)
		heading "cross-major test: $name (15 and ${majors[*]})"
		run_counted "cross-$name" "$BUILD/cross-$name.log" "$script"
	done
	# ---- other architectures: test/arch.sh on 15, in chroots ----
	# The unit tests (without the sanitizers and fuzzers, which ran above),
	# pg_regress, and filters exchanged with the host, run in the background
	# since the start (and ended before the installation tests began).
	if [ ${#arch_jobs[@]} -gt 0 ]; then
		wait "${arch_jobs[@]}" || true
	fi
	for arch in "${arches[@]}"; do
		heading "PostgreSQL 15 on $arch (chroot $("$ROOT/scripts/chroot.sh" name "15-$arch"))"
		cat "$BUILD/chroot-15-$arch.log" 2>/dev/null || true
		add_background "15 on $arch" "$BUILD/arch-$arch.out"
	done
fi

warnings=$(our_warnings "$BUILD"/*.log "$BUILD"/pg*/*.log)
nwarnings=0
[ -n "$warnings" ] && nwarnings=$(printf '%s\n' "$warnings" | wc -l)

heading "summary ($(elapsed))"
printf '%s\n' "${summary[@]}"
if [ "$nwarnings" -gt 0 ]; then
	echo "compiler warnings in our sources: $nwarnings"
	printf '%s\n' "$warnings" | sed 's/^/    /'
else
	echo "compiler warnings in our sources: none"
fi
result=0
[ "$failed" -eq 0 ] || result=1
if [ "$nwarnings" -gt 0 ] && [ "${BLOOM_WERROR:-0}" = 1 ]; then
	echo "FAILED: compiler warnings (BLOOM_WERROR=1)"
	result=1
fi
[ $((passed + failed)) -gt 0 ] || { echo "FAILED: no test ran"; result=1; }
echo "$passed passed, $failed failed"
exit $result
