// The inventory validator compiled ahead of time by the build must be the validator compiled
// at run time: same verdict and same errors on the fixtures, and never used for another schema.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileAtRunTime, loadPrecompiled, writePrecompiled } from '../../../src/kubernetes/inventory/precompiled-validator.js';

const schemaText = readFileSync('src/kubernetes/inventory/inventory.schema.json', 'utf8');
const fixtures = [
  'inventory.example.yaml',
  ...readdirSync('test/fixtures/inventory')
    .filter((f) => f.endsWith('.yaml') && f !== 'yaml-syntax.yaml')
    .map((f) => join('test/fixtures/inventory', f)),
];

// Inside the package (.cache/ is ignored by git): the compiled code requires ajv's runtime helpers.
mkdirSync('.cache', { recursive: true });
const newDir = (): string => resolve(mkdtempSync(join('.cache', 'validator-')));

describe('the precompiled inventory validator', () => {
  const dir = newDir();
  writePrecompiled(schemaText, dir);

  it('gives the same verdict and errors as the run-time compile on every fixture', () => {
    const ahead = loadPrecompiled(schemaText, dir);
    const runtime = compileAtRunTime(schemaText);
    expect(ahead).toBeTypeOf('function');
    let invalid = 0;
    for (const file of fixtures) {
      const doc = parse(readFileSync(file, 'utf8')) as unknown;
      const verdict = runtime(doc);
      if (!verdict) invalid++;
      expect({ file, ok: ahead!(doc), errors: ahead!.errors ?? null }).toEqual({ file, ok: verdict, errors: runtime.errors ?? null });
    }
    expect(invalid).toBeGreaterThan(0);
  });

  it('is ignored when the schema file changed after the build', () => {
    expect(loadPrecompiled(schemaText.replace('"kcluster inventory"', '"kcluster inventory (edited)"'), dir)).toBeUndefined();
  });

  it('is absent when the build did not write one', () => {
    expect(loadPrecompiled(schemaText, newDir())).toBeUndefined();
  });
});
