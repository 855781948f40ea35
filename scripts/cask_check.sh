#!/usr/bin/env bash
# Checks the Homebrew cask that `make dist` writes (dist/homebrew/Casks/skillsync.rb):
# it is for the version the snapshot built, GoReleaser read skip_upload so no run
# pushes it to a tap, and it names exactly the macOS and Linux archives of
# checksums.txt, each at the release's download URL with that archive's checksum
# and holding the `skillsync` its `binary` stanza links. Reads dist/ only.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "cask check: $*" >&2; exit 1; }

cask=dist/homebrew/Casks/skillsync.rb
[ -f dist/metadata.json ] && [ -f dist/checksums.txt ] || fail "no dist/metadata.json or dist/checksums.txt: run make dist first"
[ -f "$cask" ] || fail "make dist wrote no $cask (is homebrew_casks still in .goreleaser.yaml?)"

# metadata.json is one line of JSON written by GoReleaser.
field() { grep -o "\"$1\":\"[^\"]*\"" dist/metadata.json | head -1 | cut -d'"' -f4; }
version=$(field version)
tag=$(field tag)
[ -n "$version" ] && [ -n "$tag" ] || fail "dist/metadata.json has no version or tag"

grep -qx "  version \"$version\"" "$cask" || fail "$cask is not for version $version"
grep -qx '  binary "skillsync"' "$cask" || fail "$cask links no skillsync binary"
# The effective configuration: without skip_upload a release would push the cask.
grep -A30 '^homebrew_casks:' dist/config.yaml | grep -q 'skip_upload: "true"' ||
  fail "GoReleaser's effective configuration (dist/config.yaml) has no skip_upload: true for the cask"

# What the cask should name: each macOS and Linux archive, the version in its name
# written as the cask's #{version}, with its checksum.
want=$(grep -E "  skillsync_${version//./\\.}_(darwin|linux)_(amd64|arm64)\.tar\.gz\$" dist/checksums.txt |
  while read -r sum name; do
    tar -tzf "dist/$name" | grep -qx skillsync || fail "dist/$name holds no skillsync at its top, which the cask's binary stanza links"
    echo "https://github.com/skillsync/skillsync/releases/download/$tag/${name/$version/'#{version}'} $sum"
  done | sort)
[ "$(wc -l <<<"$want")" -eq 4 ] || fail "expected 4 macOS and Linux archives in dist/checksums.txt, found: $want"
# What it names: each url stanza with the sha256 stanza that follows it.
got=$(awk -F'"' '/^ *url "/ {url = $2} /^ *sha256 "/ {print url, $2}' "$cask" | sort)
if [ "$got" != "$want" ]; then
  echo "cask check: $cask names other archives or checksums than the release:" >&2
  diff <(echo "$want") <(echo "$got") >&2 || true
  exit 1
fi
echo "cask check: $cask names the 4 macOS and Linux archives of $version with their checksums"
