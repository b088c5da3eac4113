#!/usr/bin/env bash
# Debian chroots for the PostgreSQL majors the host does not have.
#
#   scripts/chroot.sh name TARGET            the chroot that serves TARGET
#   scripts/chroot.sh ensure TARGET          create it (once; it is cached)
#   scripts/chroot.sh cross-compiler TARGET  install the host's cross compiler
#                                            for TARGET (arm64, s390x), print
#                                            its triplet (nothing for others)
#   scripts/chroot.sh run TARGET COMMAND...  run COMMAND inside it, as root
#   scripts/chroot.sh release                unmount what "run" mounted
#
# TARGET is a PostgreSQL major, or MAJOR-ARCH for another architecture.
# The host (Debian 12, bookworm, amd64) has PostgreSQL 15.  The others come
# from the Debian archive, one chroot per suite and architecture, with every
# major of that suite that we test installed side by side:
#
#   target     chroot           how
#   17         trixie           debootstrap trixie
#   18         forky            debootstrap forky (with the sid script)
#   19         forky            the same chroot, postgresql-19 from experimental
#   15-arm64   bookworm-arm64   debootstrap --arch=arm64, run under qemu-user
#   15-s390x   bookworm-s390x   the same, big-endian
#   15-i386    bookworm-i386    debootstrap --arch=i386, runs natively (or under qemu-i386)
#
# Beside their own majors, the trixie chroot has bookworm's postgresql-15
# and the forky chroot trixie's postgresql-17, the old majors of the
# pg_upgrade tests (test/cross/pg_upgrade.sh).
#
# Foreign architectures need qemu-user-static and binfmt-support (installed
# when missing, and binfmt_misc mounted).
#
# Chroots are cached in $BLOOM_CHROOT_DIR (default /var/tmp/bloomfilter-chroots)
# and made once, in 4 to 8 minutes each (under qemu the longest); a chroot that is there and
# complete is reused.  "run" bind-mounts /proc, /dev, /tmp and the project
# root (at the same path) into the chroot, so that a command sees the same
# files and the same socket directories in /tmp as the host: servers of
# different majors, in and out of chroots, can talk to each other.  The
# mounts stay until "release" (a server started by "run" keeps using them).
#
# Needs root, debootstrap and network access to the Debian archive that the
# host's apt uses (its URI is read from the apt sources; BLOOM_DEBIAN_MIRROR
# overrides it).  The
# archive's Release files of older suites are past their Valid-Until date,
# so apt runs with Check-Valid-Until=false.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${BLOOM_CHROOT_DIR:-/var/tmp/bloomfilter-chroots}
# The URI of the host's Debian archive: the first deb source of a bookworm
# suite that is not the security archive, in deb822 or one-line form.
host_debian_mirror() {
	local uri
	uri=$(awk '/^[[:space:]]*$/ { u = ""; t = "" }
		/^Types:/ { t = $0 }
		/^URIs:/ { u = $2 }
		/^Suites:/ && / bookworm( |$)/ && u != "" && u !~ /security/ && t ~ /deb( |$)/ { print u; exit }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [ -z "$uri" ]; then
		uri=$(awk '$1 == "deb" && $0 !~ /security/ && / bookworm / {
				for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
	fi
	echo "$uri"
}
MIRROR=${BLOOM_DEBIAN_MIRROR:-$(host_debian_mirror)}

# The chroot (suite, or suite-arch) that serves a target, and the apt target
# release a major comes from (empty: the suite's own).
chroot_of() {
	case $1 in
	17) echo trixie ;;
	18 | 19) echo forky ;;
	15-arm64 | 15-s390x | 15-i386) echo "bookworm-${1#15-}" ;;
	*) echo "chroot.sh: no chroot serves $1 (the host has 15; 17, 18, 19, 15-arm64, 15-s390x and 15-i386 are served)" >&2; return 2 ;;
	esac
}
majors_of_chroot() {
	case $1 in
	trixie) echo 17 ;;
	forky) echo 18 19 ;;
	bookworm-*) echo 15 ;;
	esac
}
target_release_of() {
	case $1 in
	19) echo experimental ;;
	*) echo "" ;;
	esac
}

apt_in() {
	local dir=$1
	shift
	chroot "$dir" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get \
		-o Acquire::Check-Valid-Until=false -o Dpkg::Options::=--force-confold -q "$@"
}

mount_into() {
	local dir=$1
	mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
	mountpoint -q "$dir/dev" || { mount --rbind /dev "$dir/dev" && mount --make-rslave "$dir/dev"; }
	mountpoint -q "$dir/tmp" || mount --bind /tmp "$dir/tmp"
	mkdir -p "$dir$ROOT"
	mountpoint -q "$dir$ROOT" || mount --bind "$ROOT" "$dir$ROOT"
}

# Install on the host what is missing, one caller at a time (test-all makes
# several chroots at once, and apt-get takes dpkg's lock).
host_packages() {
	mkdir -p "$CACHE"
	(
		flock 8
		missing=()
		for p in "$@"; do
			[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
		done
		[ ${#missing[@]} -eq 0 ] && exit 0
		apt-get -o DPkg::Lock::Timeout=600 update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
				--no-install-recommends "${missing[@]}"
	) 8>"$CACHE/host-apt.lock"
}

# Whether i386 programs run on this kernel itself (IA32 emulation), not
# under qemu-i386.  Some kernels (seen on a Firecracker VM) are built
# without it, and then the i386 chroot runs under qemu-i386 too, and is
# built like arm64 and s390x (cross_triplet).  BLOOM_I386_QEMU=1 takes that
# path on any machine (to test it).  Once qemu-i386 is registered (by
# register_qemu_i386, only where it is needed, or asked for) i386 programs
# are handed to it, so the registration is what tells.
i386_native() {
	[ "${BLOOM_I386_QEMU:-0}" = 1 ] && return 1
	[ -e /proc/sys/fs/binfmt_misc/qemu-i386 ] && return 1
	i386_runs
}

# Whether i386 programs run at all: a 93-byte static i386 ELF that exits 0.
i386_runs() {
	local probe
	probe=$(mktemp /tmp/bloomfilter-i386.XXXXXX)
	printf '\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00\x01\x00\x00\x00\x54\x80\x04\x08\x34\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x34\x00\x20\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x80\x04\x08\x00\x80\x04\x08\x5d\x00\x00\x00\x5d\x00\x00\x00\x05\x00\x00\x00\x00\x10\x00\x00\xb8\x01\x00\x00\x00\x31\xdb\xcd\x80' >"$probe"
	chmod 755 "$probe"
	local status=0
	"$probe" 2>/dev/null || status=$?
	rm -f "$probe"
	return "$status"
}

# Have the kernel hand i386 programs to qemu-i386-static (Debian's
# qemu-user-static registers every architecture but the host's own family).
# F: the interpreter is opened now, so it works inside the chroot.
register_qemu_i386() {
	[ -e /proc/sys/fs/binfmt_misc/qemu-i386 ] && return 0
	printf '%s' ':qemu-i386:M::\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00:\xff\xff\xff\xff\xff\xfe\xfe\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-i386-static:F' \
		>/proc/sys/fs/binfmt_misc/register 2>/dev/null \
		|| [ -e /proc/sys/fs/binfmt_misc/qemu-i386 ]
}

# What a chroot needs beyond a major's server and headers: the majors'
# chroots (amd64) run the TAP tests, whose framework runs programs with
# IPC::Run; the other architectures run no TAP test (test/arch.sh).  Those
# under qemu (arm64, s390x, and i386 where the kernel cannot run it) have
# no compiler: test/arch.sh builds their code on the host (cross_triplet).
extra_packages() {
	[ "$1" = amd64 ] && echo libipc-run-perl
	[ -n "$(cross_triplet "$1")" ] || echo gcc
	return 0
}

# The GNU triplet of the host's cross compiler for an architecture that runs
# under qemu (its package is gcc-TRIPLET); empty for one built natively.
cross_triplet() {
	case $1 in
	arm64) echo aarch64-linux-gnu ;;
	s390x) echo s390x-linux-gnu ;;
	i386) i386_native || echo i686-linux-gnu ;;
	esac
	return 0
}

# The majors of the previous suite that a chroot has beside its own, as
# MAJOR:SUITE, for test/cross/pg_upgrade.sh: pg_upgrade needs the old and
# the new major's binaries side by side.  Only their servers: the extension
# is built for the old major in that major's own chroot (or on the host for
# 15), and loads under the old suite's server here.  (About 10 s and 55 MB
# to download each.)
older_majors_of_chroot() {
	case $1 in
	trixie) echo 15:bookworm ;;
	forky) echo 17:trixie ;;
	esac
	return 0
}

installed_in() {
	[ "$(chroot "$1" dpkg-query -W -f='${db:Status-Status}' "$2" 2>/dev/null || true)" = installed ]
}

# A chroot made before a package joined extra_packages, or a major joined
# older_majors_of_chroot, gets it now.
add_missing_packages() {
	local dir=$1 name=$2 arch=$3 p older suite missing=()
	for p in $(extra_packages "$arch"); do
		installed_in "$dir" "$p" || missing+=("$p")
	done
	for older in $(older_majors_of_chroot "$name"); do
		suite=${older#*:}
		installed_in "$dir" "postgresql-${older%%:*}" && continue
		missing+=("postgresql-${older%%:*}")
		# (the older suite's packages are only candidates where the chroot's
		# own suite has none: its own are newer)
		if [ ! -f "$dir/etc/apt/sources.list.d/$suite.list" ]; then
			[ -n "$MIRROR" ] || { echo "chroot.sh: found no Debian archive in the host's apt sources; set BLOOM_DEBIAN_MIRROR" >&2; return 1; }
			echo "deb $MIRROR $suite main" >"$dir/etc/apt/sources.list.d/$suite.list"
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "chroot.sh: adding ${missing[*]} to the chroot in $dir"
	mount_into "$dir"
	apt_in "$dir" update
	apt_in "$dir" install -y --no-install-recommends "${missing[@]}"
	apt_in "$dir" clean
}

# The other architectures build with with_llvm=no (test/arch.sh), so the
# server headers' dependencies on clang and LLVM, where a suite has them
# (bookworm's arm64 and i386), are met by empty stand-in packages: the real
# ones are about 1.4 GB, and their unpacking under qemu was the longest part
# of making a chroot.  Under qemu the servers also run with jit = off
# (test/arch.sh), so the server's own libllvm (100 MB, and libz3 with it)
# is a stand-in there too.  Each stand-in has the candidate's version with
# "+bloomfilter.stub" after it, so that nothing replaces it.
stub_jit_dependencies() {
	local dir=$1 major=$2 arch=$3 name version stub server=
	[ -n "$(cross_triplet "$arch")" ] && server=postgresql-$major
	for name in $( { chroot "$dir" apt-cache depends "postgresql-server-dev-$major" \
		| sed -nE 's/^ *Depends: ((clang|llvm)-[0-9]+(-dev)?)$/\1/p'
		[ -z "$server" ] || chroot "$dir" apt-cache depends "$server" \
			| sed -nE 's/^ *Depends: (libllvm[0-9]+)$/\1/p'; } | sort -u); do
		installed_in "$dir" "$name" && continue
		version=$(chroot "$dir" apt-cache policy "$name" | sed -nE 's/^ *Candidate: (.*)$/\1/p')
		[ -n "$version" ] && [ "$version" != "(none)" ] || continue
		stub=$(mktemp -d /tmp/bloomfilter-stub.XXXXXX)
		mkdir -p "$stub/pkg/DEBIAN"
		printf '%s\n' "Package: $name" "Version: $version+bloomfilter.stub" "Architecture: all" \
			"Maintainer: bloomfilter tests <tests@bloomfilter.invalid>" \
			"Description: empty stand-in for $name in a bloomfilter test chroot" \
			" The extension is built there with with_llvm=no." >"$stub/pkg/DEBIAN/control"
		dpkg-deb --root-owner-group --build "$stub/pkg" "$stub/$name.deb" >/dev/null
		echo "chroot.sh: $name ($version) is an empty stand-in in $dir"
		chroot "$dir" dpkg -i "$stub/$name.deb" >/dev/null
		rm -rf "$stub"
	done
}

ensure() {
	local name dir suite arch
	name=$(chroot_of "$1")
	dir=$CACHE/$name
	suite=${name%%-*}
	arch=amd64
	[ "$name" != "$suite" ] && arch=${name#*-}
	if [ "$arch" = arm64 ] || [ "$arch" = s390x ] || { [ "$arch" = i386 ] && ! i386_native; }; then
		host_packages qemu-user-static binfmt-support
		# (two callers may race here: the loser's mount fails harmlessly)
		[ -e /proc/sys/fs/binfmt_misc/register ] \
			|| mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
			|| [ -e /proc/sys/fs/binfmt_misc/register ]
		update-binfmts --enable >/dev/null 2>&1 || true
		if [ "$arch" = i386 ]; then register_qemu_i386; fi
	fi
	# one creator at a time (18 and 19 share a chroot; test-all prepares
	# chroots in the background)
	mkdir -p "$CACHE"
	exec 9>"$CACHE/$name.lock"
	flock 9
	if [ -f "$dir/.bloomfilter-complete" ]; then
		add_missing_packages "$dir" "$name" "$arch"
		exec 9>&-
		return 0
	fi

	host_packages debootstrap
	echo "chroot.sh: creating the $name chroot in $dir"
	rm -rf "$dir"
	mkdir -p "$CACHE"
	local script=()
	[ "$suite" = forky ] && script=(/usr/share/debootstrap/scripts/sid)
	if [ -z "$MIRROR" ]; then
		echo "chroot.sh: found no Debian archive in the host's apt sources; set BLOOM_DEBIAN_MIRROR" >&2
		exit 1
	fi
	debootstrap --variant=minbase --arch="$arch" "$suite" "$dir" "$MIRROR" "${script[@]}" \
		>"$CACHE/$name.debootstrap.log" 2>&1 \
		|| { tail -n 30 "$CACHE/$name.debootstrap.log" >&2; return 1; }
	# No services start in a chroot, and no "main" cluster is made: the tests
	# make their own.
	printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
	chmod 755 "$dir/usr/sbin/policy-rc.d"
	mkdir -p "$dir/etc/postgresql-common"
	echo "create_main_cluster = false" >"$dir/etc/postgresql-common/createcluster.conf"
	[ "$suite" = forky ] && echo "deb $MIRROR experimental main" >"$dir/etc/apt/sources.list.d/experimental.list"
	mount_into "$dir"
	apt_in "$dir" update
	local major packages
	for major in $(majors_of_chroot "$name"); do
		packages=(postgresql-$major postgresql-server-dev-$major libxxhash-dev make libc6-dev
			$(extra_packages "$arch"))
		[ "$arch" = amd64 ] || stub_jit_dependencies "$dir" "$major" "$arch"
		local target
		target=$(target_release_of "$major")
		if [ -n "$target" ]; then
			apt_in "$dir" install -y --no-install-recommends -t "$target" "${packages[@]}"
		else
			apt_in "$dir" install -y --no-install-recommends "${packages[@]}"
		fi
	done
	add_missing_packages "$dir" "$name" "$arch"
	apt_in "$dir" clean
	touch "$dir/.bloomfilter-complete"
	exec 9>&-
}

release() {
	local dir
	for dir in "$CACHE"/*/; do
		dir=${dir%/}
		for m in "$dir$ROOT" "$dir/tmp" "$dir/dev" "$dir/proc"; do
			mountpoint -q "$m" 2>/dev/null && umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null || true
		done
	done
}

command=${1:-}
case $command in
name)
	echo "$CACHE/$(chroot_of "$2")"
	;;
ensure)
	ensure "$2"
	;;
cross-compiler)
	# the host's cross compiler for TARGET's architecture, installed if
	# missing (apt's output on stderr); prints its triplet, or nothing for
	# a target built natively
	name=$(chroot_of "$2")
	triplet=$(cross_triplet "${name#*-}")
	if [ -n "$triplet" ]; then
		host_packages "gcc-$triplet" >&2
		echo "$triplet"
	fi
	;;
run)
	major=${2:?target}
	shift 2
	ensure "$major"
	dir=$CACHE/$(chroot_of "$major")
	mount_into "$dir"
	exec chroot "$dir" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" ${CI:+CI=$CI} \
		bash -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' bash "$PWD" "$@"
	;;
release)
	release
	;;
*)
	echo "usage: $0 name|ensure|cross-compiler|run|release [MAJOR [COMMAND...]]" >&2
	exit 2
	;;
esac
