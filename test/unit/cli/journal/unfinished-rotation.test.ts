// A rotation killed between two phases leaves a last run that completed; `kcluster status`
// names the rotation from the state folder and the rotate-ca command that goes on (issue 40:
// "interrupted at every phase, the command status names finishes it").
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { unfinishedRotation } from '../../../../src/cli/journal/unfinished-rotation.js';
import type { RunOutcome } from '../../../../src/cli/journal/run-outcome.js';

const run = (argv: string[], cwd = '/ops'): RunOutcome => ({ argv, cwd, command: `kcluster ${argv.join(' ')}` }) as unknown as RunOutcome;

describe('unfinishedRotation', () => {
  it('nothing under way: nothing to say', () => {
    expect(unfinishedRotation(undefined, [run(['apply', '-i', 'inv.yaml'])], '/ops', 'inv.yaml')).toBeUndefined();
  });

  it('names the next phase and the last rotate-ca command as typed (its flags choose the workloads rolled), with cd when elsewhere', () => {
    const runs = [run(['apply', '-i', 'inv.yaml']), run(['certs', 'rotate-ca', '-i', 'inv.yaml', '--yes', '--restart-workloads'])];
    expect(unfinishedRotation({ cas: ['ca', 'etcd/ca'], phase: 'reissue' }, runs, '/ops', '/ops/inv.yaml')).toEqual({
      what: 'a rotation of the ca, etcd/ca CAs is under way (pki/rotation/state.json): its next phase is reissue',
      next: 'kcluster certs rotate-ca -i inv.yaml --yes --restart-workloads',
    });
    expect(unfinishedRotation({ cas: ['ca'], phase: 'drop-old' }, runs, '/elsewhere', '/ops/inv.yaml')?.next).toBe(
      'cd /ops && kcluster certs rotate-ca -i inv.yaml --yes --restart-workloads',
    );
  });

  it('with no rotate-ca run left in the journal: the command built from the state, the service-account key flag included', () => {
    expect(unfinishedRotation({ cas: ['sa'], phase: 'drop-old' }, [], '/ops', '/ops/inv.yaml')).toEqual({
      what: 'a rotation of the service-account key is under way (pki/rotation/state.json): its next phase is drop-old',
      next: 'kcluster certs rotate-ca -i /ops/inv.yaml --service-account-key',
    });
  });
});

describe('kcluster status with a rotation under way', () => {
  it('the last run completed, yet status names the rotation and the command that finishes it (text and json)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-status-rotation-'));
    const state = join(dir, 'state');
    mkdirSync(join(state, 'journal'), { recursive: true });
    mkdirSync(join(state, 'pki', 'rotation'), { recursive: true });
    writeFileSync(join(state, 'journal', '2026-11-26T23-03-41-135Z-f699.jsonl'), readFileSync('test/fixtures/journal/completed.jsonl', 'utf8'));
    writeFileSync(join(state, 'pki', 'rotation', 'state.json'), JSON.stringify({ cas: ['ca'], phase: 'restart-pods', startedAt: '2026-11-26T23:00:00.000Z' }));
    const inventory = join(dir, 'inventory.yaml');
    writeFileSync(
      inventory,
      `cluster:\n  name: jr\nstateDir: ${state}\nssh: { agent: true }\nhosts:\n  - { name: kcejr1, address: 10.231.15.11, roles: [control-plane] }\n`,
    );
    const text = await runCli(['status', '-i', inventory], undefined, dir);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain(': completed in ');
    expect(text.out).toContain(
      `Not finished: a rotation of the ca CA is under way (pki/rotation/state.json): its next phase is restart-pods. Run next to go on:\n  kcluster certs rotate-ca -i ${inventory}\n`,
    );
    const json = await runCli(['status', '-i', inventory, '-o', 'json'], undefined, dir);
    const last = (JSON.parse(json.out) as { last: { result: string; next?: string; unfinished?: { next: string } } }).last;
    expect(last.result).toBe('completed');
    expect(last.next).toBe(`kcluster certs rotate-ca -i ${inventory}`);
    expect(last.unfinished?.next).toBe(last.next);
  });
});
