#!/usr/bin/env bash
# Runs skillsync on a copy of the bundled example workspace: reconcile, status, and a
# second reconcile that has nothing left to do.
set -euo pipefail
bin=$(realpath "${1:-bin/skillsync}")
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$here/fixtures/example/." "$work/"
cd "$work"

step() { printf '\n$ %s\n' "$*"; "$@"; }
step "$bin" reconcile --once
step "$bin" status
step "$bin" reconcile --once
printf '\nThe generated Claude Code skill for /intent:\n\n'
cat .claude/skills/intent/SKILL.md
