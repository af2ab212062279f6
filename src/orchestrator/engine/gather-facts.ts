// Fact gathering for one host: every fact not already fresh in the cache, in ONE command.
// A converged role therefore costs one round trip; after a change, only stale facts return.
import type { Connection } from '../ssh/connection.js';
import type { RunEventInput } from './events.js';
import type { Fact, FactMap } from './fact.js';
import { buildFactBatch, parseFactBatch, type BatchScript, type FactSection } from './fact-batch.js';
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

/** One part of the batch: a fact's own script, or a group script standing for several facts. */
interface BatchPart extends BatchScript {
  readonly facts: readonly Fact<unknown>[];
  sections(section: FactSection): FactSection[];
}

/** Facts sharing a group id (two or more) become one part; the rest keep their own script. */
export function batchParts(facts: readonly Fact<unknown>[]): BatchPart[] {
  const byGroup = new Map<string, Fact<unknown>[]>();
  for (const fact of facts) if (fact.group) byGroup.set(fact.group.id, [...(byGroup.get(fact.group.id) ?? []), fact]);
  const parts: BatchPart[] = [];
  const placed = new Set<string>();
  for (const fact of facts) {
    const members = fact.group ? byGroup.get(fact.group.id)! : [fact];
    if (members.length < 2) {
      parts.push({ facts: [fact], script: fact.script, sections: (section) => [section] });
      continue;
    }
    if (placed.has(fact.group!.id)) continue;
    placed.add(fact.group!.id);
    const group = fact.group!;
    const items = members.map((m) => m.group!.item);
    parts.push({
      facts: members,
      script: group.script(items),
      inline: group.inline === true,
      sections: (section) => {
        const split = group.split(section.stdout, section.exitCode, items);
        if (split.length !== items.length) throw new Error(`group ${group.id}: ${split.length} sections for ${items.length} items`);
        return split;
      },
    });
  }
  return parts;
}

/**
 * Gathers what is missing or stale among `facts` (deduplicated by key); no command when all are
 * fresh. Returns every one of their values as this call saw them: those in the cache when it
 * began and those it read. What it read is cached too unless another task invalidated the fact
 * meanwhile (FactCache.begin): the caller still gets it, read after its own change.
 */
export async function gatherFacts(run: GatherContext, role: string, facts: readonly Fact<unknown>[]): Promise<ReadonlyMap<string, unknown>> {
  const seen = new Map<string, unknown>();
  for (const fact of facts) if (run.cache.has(fact.key)) seen.set(fact.key, run.cache.get(fact.key));
  const missing = [...new Map(facts.filter((f) => !seen.has(f.key)).map((f) => [f.key, f])).values()];
  if (missing.length === 0) return seen;
  const started = Date.now();
  const become = missing.some((f) => f.become === true);
  const parts = batchParts(missing);
  const gather = run.cache.begin();
  try {
    const result = await run.connection.exec(buildFactBatch(parts, run.nonce), { become, label: `facts:${role}` });
    let sections: FactSection[];
    try {
      sections = parseFactBatch(result.stdout, parts.length, run.nonce);
    } catch (error) {
      // The batch itself broke (sudo refused, shell missing, output cut): name its exit code.
      throw new Error(
        `gathering facts (${missing.map((f) => f.key).join(', ')}) failed with exit ${result.code}: ${(error as Error).message}${stderrTail(result.stderr, 5)}`,
        { cause: error },
      );
    }
    parts.forEach((part, i) => {
      const section = sections[i];
      if (!section) throw new Error(`fact ${part.facts[0]!.key}: no section in the batch output`);
      let perFact: FactSection[];
      try {
        perFact = part.sections(section);
      } catch (error) {
        throw new Error(
          `facts ${part.facts.map((f) => f.key).join(', ')}: cannot read them (exit ${section.exitCode}): ${(error as Error).message}${stderrTail(result.stderr, 3)}`,
          { cause: error },
        );
      }
      part.facts.forEach((fact, j) => {
        const own = perFact[j]!;
        let value: unknown;
        try {
          value = fact.parse(own.stdout, own.exitCode);
        } catch (error) {
          throw new Error(`fact ${fact.key}: cannot read it (exit ${own.exitCode}): ${(error as Error).message}${stderrTail(result.stderr, 3)}`, {
            cause: error,
          });
        }
        seen.set(fact.key, value);
        run.cache.set(fact.key, value, gather.since);
      });
    });
  } finally {
    gather.end();
  }
  run.emit({
    type: 'facts-gathered',
    host: run.host,
    role,
    keys: missing.map((f) => f.key),
    roundTrips: run.connection.stats.roundTrips,
    durationMs: Date.now() - started,
  });
  return seen;
}

/** The values of a task's fact map, by the task's own names for them. */
export function factValues(values: ReadonlyMap<string, unknown>, map: FactMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(map)) out[name] = values.get(fact.key);
  return out;
}
