// Shared pieces of the engine tests: a small inventory, a file fact and a file task that work
// against a per-host temp directory through the local-shell fake connection, and a harness
// that runs a playbook while recording every event and every connection.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noChange, type Change } from '../../../src/orchestrator/engine/change.js';
import type { RunEvent } from '../../../src/orchestrator/engine/events.js';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import type { RunOptions } from '../../../src/orchestrator/engine/run-playbook.js';
import type { AnyTask, Play } from '../../../src/orchestrator/engine/types.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { LocalShellConnection } from './local-shell-connection.js';

export const root = mkdtempSync(join(tmpdir(), 'kc-engine-'));

/** Hosts h1.. in inventory order; the first is the control plane. `extra` is appended YAML. */
export function inventory(names: readonly string[], extra = ''): Inventory {
  const hosts = names.map((n, i) => `  - { name: ${n}, address: 10.9.0.${i + 1}, roles: [${i === 0 ? 'control-plane' : 'worker'}] }`).join('\n');
  const result = parseInventory(`hosts:\n${hosts}\n${extra}`, join(root, 'inv.yaml'), { env: { SSH_AUTH_SOCK: '/x' }, homeDir: root });
  if (!result.ok) throw new Error(`bad test inventory: ${JSON.stringify(result)}`);
  return result.inventory;
}

/** A per-test, per-host directory that exists. */
export function hostDir(test: string, host: string): string {
  const dir = join(root, test, host);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A fact: the content of a file ("" when absent). */
export const fileFact = (path: string, become = false): Fact<string> => ({
  key: `file:${path}`,
  script: sh`cat ${path} 2>/dev/null || true`,
  ...(become ? { become } : {}),
  parse: (stdout) => stdout,
});

/** A task that makes a file hold a value, writing it when it differs. */
export function fileTask(name: string, file: (host: string) => string, value: string, extra: Partial<AnyTask> = {}): AnyTask {
  return {
    name,
    facts: (ctx) => ({ current: fileFact(file(ctx.host.name)) }),
    plan: (facts: { current: string }): Change<string> =>
      facts.current === value ? noChange('already set') : { kind: 'update', summary: `set ${name}`, diff: `-${facts.current}\n+${value}`, payload: value },
    apply: async (change, ctx) => {
      await ctx.connection.exec(sh`printf '%s' ${change.payload as string} > ${file(ctx.host.name)}`, { label: `apply:${name}` });
    },
    ...extra,
  };
}

/** A task with no facts that always wants to run `work` (verify off). */
export function runTask(name: string, work: (host: string) => Promise<void>, extra: Partial<AnyTask> = {}): AnyTask {
  return {
    name,
    facts: () => ({}),
    plan: () => ({ kind: 'run', summary: `run ${name}`, payload: null }),
    apply: async (_change, ctx) => work(ctx.host.name),
    verify: false,
    ...extra,
  };
}

export interface Harness {
  readonly events: RunEvent[];
  readonly connections: Map<string, LocalShellConnection>;
  readonly options: RunOptions;
}

export function harness(inv: Inventory, plays: Play[], extra: Partial<RunOptions> = {}): Harness {
  const events: RunEvent[] = [];
  const connections = new Map<string, LocalShellConnection>();
  const options: RunOptions = {
    inventory: inv,
    playbook: { name: 'test', description: '', plays },
    connect: async (host) => {
      const c = new LocalShellConnection(host.name);
      connections.set(host.name, c);
      return c;
    },
    concurrency: 64,
    check: false,
    diff: true,
    events: { emit: (e) => events.push(e) },
    signal: new AbortController().signal,
    ...extra,
  };
  return { events, connections, options };
}

/** The events of one type, typed. */
export function eventsOf<T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A task that records `name on HOST` in `ran` when it runs (it always has a change to make). */
export const recordingTask = (ran: string[], name = 'change'): AnyTask => runTask(name, async (host) => void ran.push(`${name} on ${host}`));

/** A task with nothing to do. */
export const convergedTask: AnyTask = {
  name: 'converged',
  facts: () => ({}),
  plan: () => ({ kind: 'none', reason: 'in place' }),
  apply: async () => undefined,
};

/** A task that only waits (no change to the host). */
export const waitingTask: AnyTask = {
  name: 'wait',
  facts: () => ({}),
  plan: () => ({ kind: 'wait', summary: 'wait for it', payload: null }),
  apply: async () => undefined,
  verify: false,
};
