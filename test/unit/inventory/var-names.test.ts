// A var within two edits of one kcluster's roles read, but not it, is a warning naming the
// shipped var, wherever it is written (the inventory's vars, a group's, a host's); the
// inventory stays valid, and other names stay free for the operator's own roles.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { shippedVarNames } from '../../../src/kubernetes/inventory/check-var-names.js';
import { READY_TIMEOUT_VAR } from '../../../src/kubernetes/cluster/ready-timeout.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { runCli } from '../cli/support/run-cli.js';

const root = packageRoot();
const home = mkdtempSync(join(tmpdir(), 'kc-home-'));
const env = { SSH_AUTH_SOCK: '/tmp/agent.sock' };

function load(text: string): { ok: boolean; warnings: string[] } {
  const result = parseInventory(text, 'inv.yaml', { env, homeDir: home });
  return { ok: result.ok, warnings: result.warnings.map(formatDiagnostic) };
}

const message = (name: string, shipped: string) =>
  `"${name}" is not a var kcluster reads (its roles ignore it and use their default): did you mean "${shipped}"? Rename it, or keep it if your own roles read it`;

const text = [
  'vars:',
  '  cgroupdriver: cgroupfs',
  '  myOwnVar: 1',
  'groups:',
  '  edge:',
  '    hosts: [cp1]',
  '    vars: { failSwapon: false }',
  'hosts:',
  '  - name: cp1',
  '    address: 10.0.0.1',
  '    roles: [control-plane]',
  '    vars:',
  '      nodeLabel: { a: b }',
  '      controlPlaneTaint: false',
  '',
].join('\n');

describe('var names near a shipped var', () => {
  it("the shipped names are the schema's, and every var a shipped role reads is one (the demo role's aside)", () => {
    const names = shippedVarNames();
    const sources = ['src', 'roles'].flatMap((top) => readdirSync(join(root, top), { recursive: true, encoding: 'utf8' }).map((f) => join(top, f)));
    const read = new Set<string>([READY_TIMEOUT_VAR]);
    for (const file of sources.filter((f) => f.endsWith('.ts') && !f.startsWith(join('roles', 'demo')))) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/vars\[['"]([A-Za-z0-9_]+)['"]\]/g)) read.add(m[1]!);
    }
    expect(read.size).toBeGreaterThanOrEqual(10);
    expect([...read].filter((name) => !names.includes(name))).toEqual([]);
  });

  it('warns at each misspelt var, naming the shipped one, and the inventory stays valid', () => {
    const { ok, warnings } = load(text);
    expect(ok).toBe(true);
    expect(warnings).toEqual([
      `inv.yaml:2:3: warning: vars.cgroupdriver: ${message('cgroupdriver', 'cgroupDriver')}`,
      `inv.yaml:7:13: warning: groups.edge.vars.failSwapon: ${message('failSwapon', 'failSwapOn')}`,
      `inv.yaml:13:7: warning: hosts[0].vars.nodeLabel: ${message('nodeLabel', 'nodeLabels')}`,
    ]);
  });

  it('says nothing about shipped names or names further than two edits', () => {
    const { warnings } = load(
      'vars:\n  cgroupDriver: systemd\n  failSwapOn: true\n  cgroupDrv: x\n  myOwnVar: 1\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n',
    );
    expect(warnings).toEqual([]);
  });

  it('still warns when the document fails the schema', () => {
    const result = parseInventory('vars:\n  failSwapon: false\nhosts:\n  - { name: cp1, address: 10.0.0.1, port: "x", roles: [control-plane] }\n', 'inv.yaml', {
      env,
      homeDir: home,
    });
    expect(result.ok).toBe(false);
    expect(result.warnings.map(formatDiagnostic)).toEqual([`inv.yaml:2:3: warning: vars.failSwapon: ${message('failSwapon', 'failSwapOn')}`]);
  });

  it('kcluster validate prints the warning on stderr and exits 0; apply prints it too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-vars-'));
    const file = join(dir, 'inv.yaml');
    // validate refuses release images without a source, as apply does: validate's copy names
    // one; apply's does not, so it stops at the inputs (after the warnings) before any download.
    writeFileSync(file, `${text}stateDir: ${join(dir, 'state')}\ncluster:\n  artifacts: { imageRepository: registry.example/k8s }\n`);
    const r = await runCli(['validate', '-i', file]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('valid (1 hosts');
    expect(r.err).toContain(`${file}:2:3: warning: vars.cgroupdriver: ${message('cgroupdriver', 'cgroupDriver')}`);
    expect(r.err).toContain(`${file}:7:13: warning: groups.edge.vars.failSwapon`);
    writeFileSync(file, `${text}stateDir: ${join(dir, 'state')}\n`);
    const apply = await runCli(['apply', '-i', file, '--check']);
    expect(apply.err).toContain(`${file}:2:3: warning: vars.cgroupdriver: ${message('cgroupdriver', 'cgroupDriver')}`);
  });
});
