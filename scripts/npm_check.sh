#!/usr/bin/env bash
# Proves the npm distribution offline, after `make dist`. Makes the packages from
# dist/ (scripts/npm_packages.js), packs the launcher and this machine's platform
# package, and installs both tarballs into a new project with npm --offline: the
# other platforms' optional dependencies cannot be fetched there, and npm leaves
# them out as it leaves out any optional dependency it cannot get. Then checks that
#   - `npx skillsync` is the dist binary: the same stdout, stderr and exit code
#     for a run that succeeds, one that finds changes (1) and usage errors (2);
#   - SIGTERM to the launcher reaches the binary, and a binary killed by a signal
#     ends the launcher by the same signal;
#   - npm refuses another platform's package (its os and cpu fields);
#   - without a binary for the platform, or with its package missing, the
#     launcher says so and exits 4, skillsync's "any other failure".
# NPM=… NPX=… run it with another npm (e.g. "node /path/to/npm/bin/npm-cli.js").
# Writes only dist/npm/ and a temporary directory it removes; asks no registry.
set -euo pipefail
cd "$(dirname "$0")/.."
npm=${NPM:-npm}
npx=${NPX:-npx}
fail() { echo "npm check: $*" >&2; exit 1; }

[ -f dist/artifacts.json ] || fail "no dist/artifacts.json: run make dist first"
node scripts/npm_packages.js dist
echo "npm check: npm $($npm --version), node $(node --version)"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# npm's cache and logs in the temporary directory; no registry is asked.
export npm_config_cache=$work/npm-cache npm_config_offline=true npm_config_update_notifier=false \
  npm_config_audit=false npm_config_fund=false

read -r version host_dir host_name binary foreign_dir foreign_name < <(node -e '
  const p = require("./dist/npm/packages.json");
  const host = p.platforms.find((x) => x.os === process.platform && x.cpu === process.arch) || {};
  const foreign = p.platforms.find((x) => x.os !== process.platform) || {};
  console.log(p.version, host.dir, host.name, host.binary, foreign.dir, foreign.name);
') || true
[ -n "${version:-}" ] || fail "cannot read dist/npm/packages.json"
[ "$host_dir" != undefined ] || fail "no npm package for this machine ($(node -p 'process.platform + " " + process.arch'))"
binary=$PWD/$binary

mkdir "$work/tarballs"
for dir in skillsync "$host_dir" "$foreign_dir"; do
  (cd "dist/npm/$dir" && $npm pack --silent --pack-destination "$work/tarballs" >/dev/null)
done
main_tgz=$work/tarballs/skillsync-$version.tgz
host_tgz=$work/tarballs/skillsync-$host_dir-$version.tgz
foreign_tgz=$work/tarballs/skillsync-$foreign_dir-$version.tgz
for tgz in "$main_tgz" "$host_tgz" "$foreign_tgz"; do
  [ -f "$tgz" ] || fail "npm pack wrote no $tgz"
done

project=$work/project
mkdir -p "$project/empty"
echo '{"name": "npm-check", "private": true}' >"$project/package.json"
(cd "$project" && $npm install --offline --no-audit --no-fund "$main_tgz" "$host_tgz")
[ "$(ls "$project/node_modules/@skillsync")" = "$host_dir" ] ||
  fail "npm installed other platform packages than $host_name: $(ls "$project/node_modules/@skillsync")"

# same WANT DIR ARGS…: the dist binary exits WANT for `skillsync ARGS…` in DIR, and
# `npx skillsync ARGS…` there prints the same on stdout and stderr and exits the same.
same() {
  local want=$1 dir=$2 binary_exit=0 npx_exit=0
  shift 2
  (cd "$dir" && "$binary" "$@") >"$work/binary.out" 2>"$work/binary.err" || binary_exit=$?
  (cd "$dir" && $npx --no skillsync "$@") >"$work/npx.out" 2>"$work/npx.err" || npx_exit=$?
  [ "$binary_exit" = "$want" ] || fail "the dist binary exits $binary_exit, not $want, for skillsync $*"
  [ "$npx_exit" = "$binary_exit" ] || fail "npx skillsync $* exits $npx_exit, the binary $binary_exit; its stderr: $(cat "$work/npx.err")"
  for stream in out err; do
    if ! cmp -s "$work/binary.$stream" "$work/npx.$stream"; then
      diff "$work/binary.$stream" "$work/npx.$stream" >&2 || true
      fail "npx skillsync $* prints other std$stream than the binary (above: < binary, > npx)"
    fi
  done
  echo "npm check: npx skillsync $*: exit $npx_exit and the same output as the dist binary"
}

# skillsync's flags come after its command: npm takes an option it knows, such as
# --workspace, when it comes right after the command's name (npx skillsync
# --workspace DIR … fails in npm itself).
cp -R fixtures/example "$project/workspace"
same 0 "$project" version
grep -qx "skillsync v$version" <(head -1 "$work/npx.out") || fail "npx skillsync version does not say v$version: $(head -1 "$work/npx.out")"
same 0 "$project" version -o json
same 1 "$project" reconcile --check --workspace workspace
same 0 "$project" status --workspace workspace
same 2 "$project/empty" reconcile --check
same 2 "$project" nosuchcommand
same 2 "$project" explain "no such skill" --workspace workspace

# start_watcher WORKSPACE: starts the launcher as the long-running controller on a
# fresh copy of the example, in a process group of its own as a terminal would,
# and waits for the binary's pid in the workspace lock and its first run's end.
start_watcher() {
  cp -R fixtures/example "$project/$1"
  setsid "$project/node_modules/.bin/skillsync" reconcile --watch --workspace "$project/$1" >"$work/$1.log" 2>&1 &
  launcher=$!
  pids+=("$launcher")
  for _ in $(seq 100); do
    watcher=$(cat "$project/$1/.skillsync/lock" 2>/dev/null || true)
    if [ -n "$watcher" ] && [ "$watcher" != "$launcher" ] && grep -q 'reconcile finished' "$work/$1.log"; then
      pids+=("$watcher")
      return
    fi
    sleep 0.1
  done
  fail "the binary the launcher started wrote no pid into .skillsync/lock, or did not finish its first run, in 10 s: $(cat "$work/$1.log")"
}
# ended PID: waits up to 10 s for the launcher PID to end; its exit status is then
# in $status.
ended() {
  # Quiet: bash reports a job killed by a signal, here on purpose, as "Killed".
  {
    for _ in $(seq 100); do
      kill -0 "$1" || break
      sleep 0.1
    done
    status=0
    wait "$1" || status=$?
  } 2>/dev/null
  [ "$status" != 127 ] || fail "the launcher (pid $1) still runs 10 s after its signal"
}

start_watcher signal-term
kill -TERM "$launcher"
ended "$launcher"
[ "$status" = 0 ] || fail "the launcher, sent SIGTERM, ended with $status, not 0 as the binary does: $(cat "$work/signal-term.log")"
grep -q 'stopping after the current run' "$work/signal-term.log" || fail "SIGTERM did not reach the binary: $(cat "$work/signal-term.log")"
! kill -0 "$watcher" 2>/dev/null || fail "the binary (pid $watcher) runs on after its launcher ended"
echo "npm check: SIGTERM to the launcher stops the binary as it stops it directly (exit 0)"

# Ctrl-C: the terminal signals the whole process group, launcher and binary, so
# the launcher passes SIGINT on to no one: alone, it is not the binary's.
start_watcher signal-int
kill -INT "$launcher"
sleep 0.5
! grep -q 'stopping after the current run' "$work/signal-int.log" ||
  fail "the launcher passed SIGINT on, which the binary then has twice on Ctrl-C: $(cat "$work/signal-int.log")"
kill -0 "$launcher" 2>/dev/null || fail "the launcher ended on SIGINT before its binary: $(cat "$work/signal-int.log")"
kill -INT -- "-$launcher"
ended "$launcher"
[ "$status" = 0 ] || fail "the launcher, its process group sent SIGINT, ended with $status, not 0: $(cat "$work/signal-int.log")"
grep -q 'stopping after the current run' "$work/signal-int.log" || fail "SIGINT did not reach the binary: $(cat "$work/signal-int.log")"
! grep -q 'second signal' "$work/signal-int.log" || fail "the binary had SIGINT twice, from the terminal and from the launcher: $(cat "$work/signal-int.log")"
echo "npm check: SIGINT to the process group (Ctrl-C) reaches the binary once (exit 0)"

start_watcher signal-kill
kill -KILL "$watcher"
ended "$launcher"
[ "$status" = 137 ] || fail "the launcher, its binary killed by SIGKILL, ended with $status, not 137 (by SIGKILL)"
echo "npm check: a binary killed by SIGKILL ends its launcher by SIGKILL (137)"

mkdir "$work/foreign"
echo '{"name": "npm-check-foreign", "private": true}' >"$work/foreign/package.json"
if (cd "$work/foreign" && $npm install --offline --no-audit --no-fund "$foreign_tgz") >"$work/foreign.log" 2>&1; then
  fail "npm installed $foreign_name on $(node -p 'process.platform + " " + process.arch')"
fi
grep -q EBADPLATFORM "$work/foreign.log" || fail "npm refused $foreign_name, but not for its platform: $(cat "$work/foreign.log")"
echo "npm check: npm refuses $foreign_name here (EBADPLATFORM)"

# refused MESSAGE COMMAND…: COMMAND exits 4 and says MESSAGE on stderr.
refused() {
  local message=$1 code=0
  shift
  (cd "$project" && "$@") >"$work/refused.out" 2>"$work/refused.err" || code=$?
  [ "$code" = 4 ] || fail "$* exits $code, not 4, without a binary to run; stderr: $(cat "$work/refused.err")"
  grep -qF "$message" "$work/refused.err" || fail "$* does not say \"$message\"; it says: $(cat "$work/refused.err")"
  echo "npm check: $*: exit 4, \"$message\""
}
echo "Object.defineProperty(process, 'arch', { value: 'mips' });" >"$work/pretend-mips.js"
refused "there is no skillsync binary on npm for $(node -p process.platform) mips" \
  node --require "$work/pretend-mips.js" node_modules/.bin/skillsync version
# A platform package above the project (another version, or anyone's of that
# name) is not run in place of the one npm installs beside the launcher.
mkdir -p "$work/node_modules/@skillsync"
mv "$project/node_modules/@skillsync/$host_dir" "$work/node_modules/@skillsync/$host_dir"
refused "is not the one npm installs" $npx --no skillsync version
sed -i "s/\"version\": \"$version\"/\"version\": \"0.0.1\"/" "$work/node_modules/@skillsync/$host_dir/package.json"
refused "version 0.0.1" $npx --no skillsync version
rm -rf "$work/node_modules"
refused "npm install $host_name@$version" $npx --no skillsync version
echo "npm check: passed"
