// `npm run docs:inventory`: writes the inventory reference page from the JSON Schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { SCHEMA_PATH } from './schema-diagnostics.js';
import { REFERENCE_PAGE, schemaReference } from './schema-reference.js';
import type { SchemaNode } from './schema-entries.js';

const root = packageRoot();
const schema = JSON.parse(readFileSync(join(root, SCHEMA_PATH), 'utf8')) as SchemaNode;
writeFileSync(join(root, REFERENCE_PAGE), schemaReference(schema));
process.stdout.write(`wrote ${REFERENCE_PAGE} from ${SCHEMA_PATH}\n`);
