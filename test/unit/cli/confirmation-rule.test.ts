// One rule for every command that destroys something or changes a running cluster's identity:
// it asks first, `-y, --yes` confirms in advance, and its help says "(asks first)" (issue 44:
// secrets rotate-key, which rewrites every Secret, asked nothing and refused --yes).
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { quietCliContext } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/main.js';

const ASKING = ['reset', 'remove-node', 'etcd snapshot restore', 'certs renew', 'certs rotate-ca', 'secrets rotate-key'];

const program = await buildProgram(quietCliContext(), []);
function find(path: string): Command {
  let command: Command = program;
  for (const name of path.split(' ')) command = command.commands.find((c) => c.name() === name)!;
  return command;
}

describe('the confirmation rule', () => {
  it.each(ASKING)('kcluster %s takes -y, --yes and says it asks first', (path) => {
    const command = find(path);
    expect(command.options.find((o) => o.long === '--yes')?.flags).toBe('-y, --yes');
    expect(command.description()).toMatch(/asks first/);
  });
});
