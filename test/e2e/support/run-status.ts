// `kcluster status -o json` read by the e2e tests that check what an interrupted or failed run
// left (the run journal): the last run's result, the command to run next, and per host the
// plays left.
import { kcluster } from '../../integration/support/test-lab.js';

export interface StatusJson {
  last: { result: string; exitCode?: number; next?: string; hosts: { host: string; left: string[]; plays: { play: string; state: string }[] }[] };
}

/** The journal's view for this inventory; throws with kcluster's stderr when status does not answer (exit non-zero). */
export async function runStatus(inventory: string): Promise<StatusJson> {
  const r = await kcluster(['status', '-i', inventory, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kcluster status exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as StatusJson;
}
