// What a task planned on a host, with the facts it planned from: handed to RunOptions.onPlanned
// as each task plans (in check mode and not), so a caller can keep a plan (kcluster's plan
// files) or compare one. The values are the parsed facts, as the task saw them.
import type { Change } from './change.js';

export interface PlannedTask {
  readonly play: string;
  readonly host: string;
  readonly role: string;
  readonly task: string;
  readonly change: Change;
  /** Each fact the task declared, by key, with the value it was planned from. */
  readonly facts: readonly { readonly key: string; readonly value: unknown }[];
}
