// Several facts read in one command, outside a role's fact batch: for a task that polls
// (the control-plane wait reads /readyz and the static pods together, every two seconds).
import type { Connection } from '../ssh/connection.js';
import type { Fact } from './fact.js';
import { buildFactBatch, newNonce, parseFactBatch } from './fact-batch.js';

type Values<T extends readonly Fact<unknown>[]> = { [K in keyof T]: T[K] extends Fact<infer V> ? V : never };

export async function readFacts<T extends readonly Fact<unknown>[]>(
  connection: Connection,
  facts: T,
  options: { readonly label: string; readonly timeoutMs?: number },
): Promise<Values<T>> {
  const nonce = newNonce();
  const result = await connection.exec(buildFactBatch(facts, nonce), {
    become: facts.some((f) => f.become === true),
    label: options.label,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const sections = parseFactBatch(result.stdout, facts.length, nonce);
  return facts.map((fact, i) => fact.parse(sections[i]!.stdout, sections[i]!.exitCode)) as Values<T>;
}
