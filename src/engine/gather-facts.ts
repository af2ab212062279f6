// Fact gathering for one host: every fact not already fresh in the cache, in ONE command.
// A converged role therefore costs one round trip; after a change, only stale facts return.
import type { Connection } from '../ssh/connection.js';
import type { RunEventInput } from './events.js';
import type { Fact, FactMap } from './fact.js';
import { buildFactBatch, parseFactBatch, type FactSection } from './fact-batch.js';
import type { FactCache } from './fact-cache.js';

export interface GatherContext {
  readonly host: string;
  readonly connection: Connection;
  readonly cache: FactCache;
  readonly nonce: string;
  emit(event: RunEventInput): void;
}

function stderrTail(stderr: string, lines: number): string {
  const tail = stderr.trim().split('\n').slice(-lines).join(' | ');
  return tail ? `; stderr: ${tail}` : '';
}

/** Gathers what is missing or stale among `facts` (deduplicated by key); no command when all are fresh. */
export async function gatherFacts(run: GatherContext, role: string, facts: readonly Fact<unknown>[]): Promise<void> {
  const missing = [...new Map(facts.filter((f) => !run.cache.has(f.key)).map((f) => [f.key, f])).values()];
  if (missing.length === 0) return;
  const started = Date.now();
  const become = missing.some((f) => f.become === true);
  const result = await run.connection.exec(buildFactBatch(missing, run.nonce), { become, label: `facts:${role}` });
  let sections: FactSection[];
  try {
    sections = parseFactBatch(result.stdout, missing.length, run.nonce);
  } catch (error) {
    // The batch itself broke (sudo refused, shell missing, output cut): name its exit code.
    throw new Error(`gathering facts (${missing.map((f) => f.key).join(', ')}) failed with exit ${result.code}: ${(error as Error).message}${stderrTail(result.stderr, 5)}`);
  }
  missing.forEach((fact, i) => {
    const section = sections[i];
    if (!section) throw new Error(`fact ${fact.key}: no section in the batch output`);
    try {
      run.cache.set(fact.key, fact.parse(section.stdout, section.exitCode));
    } catch (error) {
      throw new Error(`fact ${fact.key}: cannot read it (exit ${section.exitCode}): ${(error as Error).message}${stderrTail(result.stderr, 3)}`);
    }
  });
  run.emit({
    type: 'facts-gathered',
    host: run.host,
    role,
    keys: missing.map((f) => f.key),
    roundTrips: run.connection.stats.roundTrips,
    durationMs: Date.now() - started,
  });
}

/** The values of a task's fact map, by the task's own names for them. */
export function factValues(cache: FactCache, map: FactMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(map)) out[name] = cache.get(fact.key);
  return out;
}
