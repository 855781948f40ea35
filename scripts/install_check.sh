#!/usr/bin/env bash
# Proves the README's install lines work, each into a temporary directory:
#   - from a clone, `make install` (with PREFIX, with DESTDIR, and by default into
#     GOBIN, where `go install` puts it) builds a skillsync whose version is
#     git describe's, and `go install ./cmd/skillsync` one that runs;
#   - as a release will, `go install github.com/skillsync/skillsync/cmd/skillsync@v0.1.0`:
#     serves the committed tree (HEAD) as module version v0.1.0 from a local module
#     proxy, installs it the way a user does (dependencies from the usual proxy),
#     and checks that `skillsync version` names that version.
set -euo pipefail
cd "$(dirname "$0")/.."
module=github.com/skillsync/skillsync
version=v0.1.0
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
fail() { echo "install check: $*" >&2; exit 1; }

# says BINARY VERSION: BINARY runs and `version` names VERSION.
says() {
  [ -x "$1" ] || fail "no $1"
  out=$("$1" version)
  grep -qx "skillsync $2" <(head -1 <<<"$out") || fail "$1 version says \"$(head -1 <<<"$out")\", not skillsync $2"
  echo "install check: $1: skillsync $2"
}
described=$(git describe --tags --always --dirty)
make -s install PREFIX="$work/prefix"
says "$work/prefix/bin/skillsync" "$described"
make -s install DESTDIR="$work/stage" PREFIX=/usr/local
says "$work/stage/usr/local/bin/skillsync" "$described"
GOBIN=$work/gobin make -s install
says "$work/gobin/skillsync" "$described"
rm "$work/gobin/skillsync"
GOBIN=$work/gobin go install ./cmd/skillsync
[ -x "$work/gobin/skillsync" ] && "$work/gobin/skillsync" version >/dev/null || fail "go install ./cmd/skillsync installed no skillsync that runs"
echo "install check: go install ./cmd/skillsync: $("$work/gobin/skillsync" version | head -1)"

dir=$work/proxy/$module/@v
mkdir -p "$dir"
git archive --format=zip --prefix="$module@$version/" -o "$dir/$version.zip" HEAD
git show HEAD:go.mod >"$dir/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git log -1 --format=%cI HEAD)" >"$dir/$version.info"
echo "$version" >"$dir/list"

cd "$work"
GOBIN=$work/bin GOPROXY="file://$work/proxy,$(go env GOPROXY)" GONOSUMDB=$module GOFLAGS= \
  GOMODCACHE=$work/modcache go install "$module/cmd/skillsync@$version"
out=$("$work/bin/skillsync" version)
echo "$out"
if ! grep -q "^skillsync $version\$" <<<"$out"; then
  echo "install check: skillsync version does not name $version" >&2
  exit 1
fi
