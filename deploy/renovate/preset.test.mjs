// The preset's custom managers, run as Renovate runs a regex manager: each
// matchString an ECMAScript regular expression applied to the whole file with
// the global flag, its named groups the dependency, the templates filled from
// them. Renovate itself cannot run here (it needs Node 24); its regex engine,
// RE2, takes the same syntax, which `go test ./deploy` checks with Go's RE2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const preset = JSON.parse(readFileSync(join(here, 'skillsync.json'), 'utf8'));
const expected = JSON.parse(readFileSync(join(here, 'testdata', 'expected.json'), 'utf8'));

// managerFilePattern is a /regex/ written as Renovate writes one.
function managerFilePattern(p) {
  const m = /^\/(.*)\/$/.exec(p);
  assert.ok(m, `${p} is not written as /regex/`);
  return new RegExp(m[1]);
}

// fill fills a Handlebars template of the {{{name}}} form from groups.
function fill(template, groups) {
  return template.replace(/\{\{\{?(\w+)\}?\}\}/g, (_, name) => groups[name] ?? '');
}

function extract(file, content) {
  const deps = [];
  for (const manager of preset.customManagers) {
    if (!manager.managerFilePatterns.some((p) => managerFilePattern(p).test(file))) {
      continue;
    }
    for (const source of manager.matchStrings) {
      for (const m of content.matchAll(new RegExp(source, 'gu'))) {
        const g = { ...m.groups };
        deps.push({
          datasource: manager.datasourceTemplate,
          depName: manager.depNameTemplate ? fill(manager.depNameTemplate, g) : g.depName,
          currentValue: g.currentValue,
        });
      }
    }
  }
  const key = (d) => `${d.datasource} ${d.depName} ${d.currentValue}`;
  return deps.sort((a, b) => key(a).localeCompare(key(b)));
}

for (const [name, want] of Object.entries(expected)) {
  test(`the preset finds every moving pin of ${name}, and nothing else`, () => {
    const content = readFileSync(join(here, 'testdata', name), 'utf8');
    const key = (d) => `${d.datasource} ${d.depName} ${d.currentValue}`;
    assert.deepEqual(extract(`repo/${'skillsync.yaml'}`, content), [...want].sort((a, b) => key(a).localeCompare(key(b))));
  });
}

test('the preset reads skillsync.yaml only, at any depth', () => {
  const content = readFileSync(join(here, 'testdata', 'catalog.yaml'), 'utf8');
  assert.equal(extract('skillsync.yaml', content).length, 2);
  assert.equal(extract('services/api/skillsync.yaml', content).length, 2);
  assert.equal(extract('skillsync.lock', content).length, 0);
  assert.equal(extract('not-skillsync.yaml', content).length, 0);
});

test('a version Renovate writes back reads as the same dependency', () => {
  const content = readFileSync(join(here, 'testdata', 'catalog.yaml'), 'utf8');
  const moved = content.replace('ref: v1.4.0', 'ref: v1.5.0').replace('catalog:2.0', 'catalog:2.1');
  const values = extract('skillsync.yaml', moved).map((d) => d.currentValue).sort();
  assert.deepEqual(values, ['2.1', 'v1.5.0']);
});

test('the lock follows through skillsync update, run after the upgrade', () => {
  assert.deepEqual(preset.postUpgradeTasks.commands, ['skillsync update --yes']);
  assert.deepEqual(preset.postUpgradeTasks.fileFilters, ['**/skillsync.lock']);
});
