// Run by `npm run build` after tsc: writes the inventory validator, compiled ahead of time,
// next to the compiled precompiled-validator.js in dist/ (see precompiled-validator.ts).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { SCHEMA_PATH } from './schema-diagnostics.js';
import { writePrecompiled } from './precompiled-validator.js';

const file = writePrecompiled(readFileSync(join(packageRoot(), SCHEMA_PATH), 'utf8'), dirname(fileURLToPath(import.meta.url)));
process.stdout.write(`precompiled the inventory schema into ${file}\n`);
