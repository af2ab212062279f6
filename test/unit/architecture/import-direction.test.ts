// The storeys of the house, checked on every import: a module may import only from its own
// folder or from a lower storey (types included), so the generic orchestrator never depends on
// the Kubernetes product above it, and nothing depends on the CLI. The known exceptions are
// listed with the work that removes them; a new back-edge fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Lower numbers are lower storeys. */
const STOREY: Record<string, number> = {
  // the agentless orchestrator: hosts, SSH, facts, tasks, playbooks; nothing of Kubernetes
  'src/orchestrator/util': 0,
  'src/orchestrator/inventory': 1,
  'src/orchestrator/state-store': 1,
  'src/orchestrator/templates': 1,
  'src/orchestrator/ssh': 2,
  'src/orchestrator/os': 3,
  'src/orchestrator/engine': 3,
  'src/orchestrator/facts': 4,
  'src/orchestrator/report': 4,
  'src/orchestrator/tasks': 5,
  // the Kubernetes product, built on the orchestrator
  'src/kubernetes/inventory': 6,
  'src/kubernetes/facts': 7,
  'src/kubernetes/pki': 7,
  'src/kubernetes/artifacts': 8,
  'src/kubernetes/kube': 8,
  'src/kubernetes/etcd': 8,
  'src/kubernetes/secrets': 9,
  'src/kubernetes/charts': 9,
  'src/kubernetes/cluster': 10,
  roles: 11,
  playbooks: 12,
  // developer tooling
  'src/lab': 12,
  'src/cli': 13,
  'src/index.ts': 14,
};

/** Back-edges that exist today, each with the change that removes it (issue 15). */
const KNOWN_EXCEPTIONS = new Set<string>([]);

function folderOf(file: string): string {
  const parts = relative(ROOT, file).split('/');
  if (parts[0] !== 'src') return parts[0]!;
  if (parts[1] === 'orchestrator' || parts[1] === 'kubernetes') return parts.slice(0, 3).join('/');
  return `src/${parts[1]}`;
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

function edges(): { from: string; to: string; file: string; spec: string }[] {
  const out: { from: string; to: string; file: string; spec: string }[] = [];
  for (const file of [...sources('src'), ...sources('roles'), ...sources('playbooks')]) {
    const text = readFileSync(file, 'utf8');
    // Static imports and re-exports, and dynamic import() (a lazy import is still a dependency).
    const specs = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/g),
      ...text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g),
    ];
    for (const m of specs) {
      const target = resolve(dirname(file), m[1]!);
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) out.push({ from, to, file: relative(ROOT, file), spec: m[1]! });
    }
  }
  return out;
}

describe('import direction', () => {
  it('every folder has a storey', () => {
    const unknown = [...new Set(edges().flatMap((e) => [e.from, e.to]))].filter((f) => STOREY[f] === undefined);
    expect(unknown).toEqual([]);
  });

  it('no module imports from a higher storey, except the listed exceptions', () => {
    const all = edges();
    const upward = all.filter((e) => STOREY[e.to]! >= STOREY[e.from]! && !KNOWN_EXCEPTIONS.has(`${e.from} -> ${e.to}`));
    expect(upward.map((e) => `${e.file} imports ${e.spec} (${e.from} -> ${e.to})`)).toEqual([]);
    // An exception that no import needs any more is removed from the list.
    for (const exception of KNOWN_EXCEPTIONS)
      expect(
        all.some((e) => `${e.from} -> ${e.to}` === exception),
        exception,
      ).toBe(true);
  });

  it('the engine defines the exit codes (the CLI only re-exports them)', () => {
    expect(readFileSync(join(ROOT, 'src/orchestrator/engine/exit-code.ts'), 'utf8')).toContain('export const ExitCode');
  });
});
