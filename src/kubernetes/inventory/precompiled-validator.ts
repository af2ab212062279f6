// The inventory schema's validator, compiled ahead of time. Compiling the schema with ajv at
// every start, and loading ajv's compiler for it, is a visible share of a no-op run (figures:
// bench/results/2026-11-28-figures-from-code-comments.md). `npm run build` writes the compiled
// validator (ajv's standalone code, CommonJS) next to this module in dist/; compileInventorySchema()
// uses it when its recorded schema sha256 equals the schema file's, and compiles at run time
// otherwise (running from the sources, or a schema edited after the build): the same
// validator either way, only slower.
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';

export const PRECOMPILED_FILE = 'inventory-validator.cjs';

const requireHere = createRequire(import.meta.url);

export function schemaSha256(schemaText: string): string {
  return createHash('sha256').update(schemaText).digest('hex');
}

/** The ajv options the validator is compiled with, at run time or ahead of time. */
function newAjv(standalone: boolean) {
  const { Ajv } = requireHere('ajv') as typeof import('ajv');
  const ajv = new Ajv({ allErrors: true, strict: true, verbose: true, allowUnionTypes: true, ...(standalone ? { code: { source: true } } : {}) });
  // Our extra keywords: the plain-words description of what a field accepts, and of a default
  // computed from other settings (stateDir's from cluster.name), which `default` cannot hold.
  ajv.addKeyword({ keyword: 'allowed', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'defaultText', schemaType: 'string' });
  return ajv;
}

export function compileAtRunTime(schemaText: string): ValidateFunction {
  return newAjv(false).compile(JSON.parse(schemaText) as object);
}

/** The standalone validator's source (CommonJS), recording the sha256 of the schema it implements. */
export function precompiledSource(schemaText: string): string {
  const ajv = newAjv(true);
  const validate = ajv.compile(JSON.parse(schemaText) as object);
  const standalone = requireHere('ajv/dist/standalone') as { default: (a: typeof ajv, v: ValidateFunction) => string };
  return `${standalone.default(ajv, validate)}\nmodule.exports.schemaSha256 = ${JSON.stringify(schemaSha256(schemaText))};\n`;
}

/** The validator in `dir`, if there is one compiled from exactly this schema text. */
export function loadPrecompiled(schemaText: string, dir = dirname(fileURLToPath(import.meta.url))): ValidateFunction | undefined {
  const file = resolve(dir, PRECOMPILED_FILE);
  if (!existsSync(file)) return undefined;
  const loaded = requireHere(file) as ValidateFunction & { schemaSha256?: string };
  return loaded.schemaSha256 === schemaSha256(schemaText) ? loaded : undefined;
}

export function writePrecompiled(schemaText: string, dir: string): string {
  const file = join(dir, PRECOMPILED_FILE);
  writeFileSync(file, precompiledSource(schemaText));
  return file;
}
