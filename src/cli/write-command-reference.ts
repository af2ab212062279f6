// `npm run docs:commands`: writes the command reference page from the CLI's definitions.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../orchestrator/util/package-root.js';
import { COMMAND_REFERENCE_PAGE, commandReference } from './command-reference.js';
import { quietCliContext } from './context.js';
import { buildProgram } from './main.js';

const program = await buildProgram(quietCliContext(), []);
writeFileSync(join(packageRoot(), COMMAND_REFERENCE_PAGE), commandReference(program));
process.stdout.write(`wrote ${COMMAND_REFERENCE_PAGE} from the CLI's definitions\n`);
