#!/bin/sh
# deps.sh: install the Debian packages ovni-auto needs to build and test, only
# those missing. Runs apt-get as root (or through sudo when available).
set -e
pkgs="make gcc libc6-dev libjansson-dev libunwind-dev libelf-dev clang libomp-dev procps"
# The house style (make format-check, t021): Debian 12's clang-format 14.
pkgs="$pkgs clang-format"
# The manual (t052 renders every page with man -l).
pkgs="$pkgs man-db groff-base"
# The real-software tier (make test-real): programs from Debian run under the agent.
pkgs="$pkgs python3 stress-ng openmpi-bin libopenmpi-dev xz-utils bzip2 gzip coreutils"
# MPI (issue 13): both Debian implementations, with gfortran for the Fortran bindings.
pkgs="$pkgs mpich libmpich-dev gfortran python3-mpi4py"
# Programs that end without libc (issue 30): Go (cgo) and GNU parallel.
pkgs="$pkgs golang-go parallel"
# Servers that change user (issue 30): nginx (workers as www-data), PostgreSQL
# (runuser -u postgres), getfacl to look at the ACL the agent grants.
pkgs="$pkgs nginx-light postgresql acl util-linux bubblewrap fakechroot"
# A server whose child confines itself with a seccomp filter: OpenSSH's
# pre-authentication child (sshd, logged into with ssh and a key).
pkgs="$pkgs openssh-server openssh-client"
# valgrind's memcheck over a traced program (t700): the agent reads nothing
# the program left unset.
pkgs="$pkgs valgrind"
# Failures of the agent's system calls made on purpose (strace's inject):
# an EINTR from tmpfs's fallocate (t101).
pkgs="$pkgs strace"
# The viewer's page is tested in a real browser (issue 34): headless Chromium.
pkgs="$pkgs chromium"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: missing packages:$missing; run as root: apt-get install$missing" >&2
	exit 1
fi
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
