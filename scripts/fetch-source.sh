#!/bin/bash
# Fetch Debian's linux-source-VERSION (trixie-backports) and leave its
# tarball as CACHE/linux-source-VERSION.tar.xz, for scripts/series.py.
# apt runs on a sources list and state of its own under CACHE/apt: the
# host's apt sources and lists are not touched, and a Debian 12 host needs
# nothing but apt and the archive keyring it has.  CACHE is outside the
# clone (ASHMEM_SOURCE_CACHE, by default /var/cache/ashmem), so that a
# fresh clone does not download the 167 MB package again.
#
# usage: fetch-source.sh VERSION
set -euo pipefail

version=$1
cache=${ASHMEM_SOURCE_CACHE:-/var/cache/ashmem}
tarball=$cache/linux-source-$version.tar.xz
[ -f "$tarball" ] && exit 0

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
apt=$cache/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/etc"
cat >"$apt/etc/sources.list" <<EOS
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
deb [signed-by=$keyring] http://deb.debian.org/debian trixie-backports main
EOS
opts=(-o Dir::Etc::sourcelist="$apt/etc/sources.list" -o Dir::Etc::sourceparts=-
      -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
      -o Dir::State::status=/var/lib/dpkg/status -o APT::Get::List-Cleanup=0)
echo "fetch-source: linux-source-$version from trixie-backports into $cache"
apt-get -q "${opts[@]}" update >/dev/null
tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get -q "${opts[@]}" download "linux-source-$version")
dpkg-deb -x "$tmp"/linux-source-"$version"_*.deb "$tmp/root"
mv "$tmp/root/usr/src/linux-source-$version.tar.xz" "$tarball"
echo "fetch-source: $tarball"
