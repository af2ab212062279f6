// `kcluster validate` and `kcluster config` registered on a bare commander program, with
// captured streams and exit code (no process, no host).
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { registerConfigCommand } from '../../../src/cli/commands/config.js';
import { registerValidateCommand } from '../../../src/cli/commands/validate.js';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  let code = 0;
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const cli: CliContext = {
    stdout,
    stderr,
    env: { SSH_AUTH_SOCK: '/tmp/agent.sock' },
    cwd: process.cwd(),
    interactive: false,
    signal: new AbortController().signal,
    setExitCode: (c) => (code = Math.max(code, c)),
  };
  const program = new Command('kcluster').exitOverride();
  registerValidateCommand(program, cli);
  registerConfigCommand(program, cli);
  await program.parseAsync(['node', 'kcluster', ...args]);
  return { code, out, err };
}

const fixtures = 'test/fixtures/inventory';

describe('kcluster validate (captured streams)', () => {
  it('prints the summary on stdout and warnings on stderr, exit 0', async () => {
    const r = await run(['validate', '-i', `${fixtures}/even-etcd.yaml`]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${fixtures}/even-etcd.yaml: valid (3 hosts: 2 control planes, 1 workers, 2 etcd members)\n`);
    expect(r.err.split('\n').filter(Boolean)).toEqual([
      `${fixtures}/even-etcd.yaml:4:3: warning: hosts: 2 etcd members: an even count tolerates no more failures than 1; use an odd number`,
      `${fixtures}/even-etcd.yaml:6:26: warning: hosts[2].address: 10.96.0.20 lies inside the service CIDR 10.96.0.0/12: traffic to this host would be routed into the cluster`,
    ]);
  });

  it('prints every error with file:line:col, no stack trace, exit 2', async () => {
    const r = await run(['validate', '--inventory', `${fixtures}/many-errors.yaml`]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const lines = r.err.split('\n').filter(Boolean);
    expect(lines).toHaveLength(14);
    expect(lines.slice(0, -1).every((l) => l.startsWith(`${fixtures}/many-errors.yaml:`))).toBe(true);
    expect(lines.at(-1)).toBe(`kcluster: 13 error(s) in ${fixtures}/many-errors.yaml; nothing was done`);
    expect(r.err).not.toMatch(/^\s+at /m);
  });
});

describe('kcluster config (captured streams)', () => {
  it('prints the resolved model (--resolved) as YAML by default and as JSON on request', async () => {
    const yaml = await run(['config', '-i', `${fixtures}/valid-ha.yaml`, '--resolved']);
    const json = await run(['config', '-i', `${fixtures}/valid-ha.yaml`, '--resolved', '--output', 'json']);
    expect([yaml.code, json.code]).toEqual([0, 0]);
    expect(parse(yaml.out)).toEqual(JSON.parse(json.out));
    const config = JSON.parse(json.out) as { cluster: { name: string }; hosts: { name: string; become: unknown }[] };
    expect(config.cluster.name).toBe('ha');
    expect(config.hosts.map((h) => h.name)).toEqual(['cp1', 'cp2', 'cp3', 'w1', 'w2']);
    expect(config.hosts[0]!.become).toEqual({ enabled: true, method: 'sudo', passwordEnv: 'KC_SUDO' });
  });

  it('prints errors as validate does and nothing on stdout, exit 2', async () => {
    const r = await run(['config', '-i', `${fixtures}/yaml-syntax.yaml`]);
    expect(r).toMatchObject({ code: 2, out: '' });
    expect(r.err).toContain(`${fixtures}/yaml-syntax.yaml:4:5: YAML syntax:`);
  });
});
