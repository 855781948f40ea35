#!/usr/bin/env bash
# Proves the README's install line works: serves the committed tree (HEAD) as
# module version v0.1.0 from a local module proxy, installs it the way a user does,
# `go install github.com/skillsync/skillsync/cmd/skillsync@v0.1.0` (dependencies
# from the usual proxy), and checks that `skillsync version` names that version.
set -euo pipefail
cd "$(dirname "$0")/.."
module=github.com/skillsync/skillsync
version=v0.1.0
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
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
