#!/usr/bin/env node
// Makes the npm packages of a release from what `make dist` (GoReleaser) wrote:
// one @skillsync/cli-<os>-<cpu> per binary it built, holding that binary, with os
// and cpu fields so npm installs it only there; and skillsync, the launcher, which
// names each as an optional dependency of its exact version. The templates are in
// packaging/npm/; the version is the one GoReleaser gave the build.
//
//   node scripts/npm_packages.js [DIST]
//
// writes DIST/npm/ (DIST defaults to dist) afresh: a directory per package, ready
// for `npm pack` or `npm publish`, and packages.json, which lists them with the
// binary each was made from. Reads and writes nothing else.
'use strict';

const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const templates = path.join(root, 'packaging', 'npm');
const scope = '@skillsync/cli-';

// npm's names for GoReleaser's (Go's) operating systems and architectures. A
// target without one here stops the script: whether npm can carry it is a
// decision to make, not to skip.
const npmOS = { linux: 'linux', darwin: 'darwin', windows: 'win32', freebsd: 'freebsd' };
const npmCPU = { amd64: 'x64', arm64: 'arm64' };

// Semantic Versioning 2.0.0's own expression: npm refuses any other version.
const semver =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function fail(message) {
  process.stderr.write('npm packages: ' + message + '\n');
  process.exit(1);
}

function readJSON(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    fail('cannot read ' + file + ': ' + err.message + (err.code === 'ENOENT' ? ' (run make dist first)' : ''));
  }
}

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

const dist = path.resolve(process.argv[2] || path.join(root, 'dist'));
const out = path.join(dist, 'npm');
const metadata = readJSON(path.join(dist, 'metadata.json'));
const artifacts = readJSON(path.join(dist, 'artifacts.json'));

const version = metadata.version;
if (!semver.test(version || '')) {
  fail('GoReleaser\'s version "' + version + '" is not a semantic version, which npm requires (snapshot.version_template in .goreleaser.yaml)');
}

const binaries = artifacts.filter((a) => a.type === 'Binary' && a.extra && a.extra.ID === 'skillsync');
if (binaries.length === 0) {
  fail('dist/artifacts.json lists no skillsync binary');
}

const platforms = binaries.map((a) => {
  const os = npmOS[a.goos];
  const cpu = npmCPU[a.goarch];
  if (!os || !cpu) {
    fail('GoReleaser built ' + a.goos + '/' + a.goarch + ', which has no npm os and cpu here: add them to npmOS/npmCPU, or leave the target out');
  }
  return { name: scope + os + '-' + cpu, dir: 'cli-' + os + '-' + cpu, os, cpu, binary: a.path, file: a.name };
});
platforms.sort((a, b) => (a.name < b.name ? -1 : 1));
for (let i = 1; i < platforms.length; i++) {
  if (platforms[i].name === platforms[i - 1].name) {
    fail('two binaries for ' + platforms[i].os + ' ' + platforms[i].cpu + ' (' + platforms[i - 1].binary + ', ' + platforms[i].binary + '): npm installs one per os and cpu');
  }
}

fs.rmSync(out, { recursive: true, force: true });

const platformTemplate = readJSON(path.join(templates, 'platform', 'package.json'));
const platformReadme = fs.readFileSync(path.join(templates, 'platform', 'README.md'), 'utf8');
for (const p of platforms) {
  const dir = path.join(out, p.dir);
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  writeJSON(path.join(dir, 'package.json'), {
    name: p.name,
    version,
    ...platformTemplate,
    os: [p.os],
    cpu: [p.cpu],
  });
  fs.writeFileSync(
    path.join(dir, 'README.md'),
    platformReadme.replaceAll('{{name}}', p.name).replaceAll('{{os}}', p.os).replaceAll('{{cpu}}', p.cpu)
  );
  // GoReleaser's paths are relative to the directory it ran in, dist's parent.
  const target = path.join(dir, 'bin', p.file);
  fs.copyFileSync(path.join(dist, '..', p.binary), target);
  fs.chmodSync(target, 0o755);
}

const mainTemplate = readJSON(path.join(templates, 'skillsync', 'package.json'));
const main = path.join(out, 'skillsync');
fs.mkdirSync(path.join(main, 'bin'), { recursive: true });
writeJSON(path.join(main, 'package.json'), {
  name: mainTemplate.name,
  version,
  ...mainTemplate,
  optionalDependencies: Object.fromEntries(platforms.map((p) => [p.name, version])),
});
fs.copyFileSync(path.join(templates, 'skillsync', 'README.md'), path.join(main, 'README.md'));
fs.copyFileSync(path.join(templates, 'skillsync', 'bin', 'skillsync'), path.join(main, 'bin', 'skillsync'));
fs.chmodSync(path.join(main, 'bin', 'skillsync'), 0o755);

writeJSON(path.join(out, 'packages.json'), {
  version,
  main: { name: mainTemplate.name, dir: 'skillsync' },
  platforms: platforms.map(({ name, dir, os, cpu, binary }) => ({ name, dir, os, cpu, binary })),
});
process.stdout.write('npm packages ' + version + ' in ' + path.relative(process.cwd(), out) + ': ' + mainTemplate.name + ', ' + platforms.map((p) => p.name).join(', ') + '\n');
