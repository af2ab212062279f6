// A fake Connection for plan tests: it answers the engine's fact batches from a recording of a
// real host (test/fixtures/facts/<scenario>/<host>.json) and runs nothing. A section no
// recording holds, or any other command, file transfer or download, throws: a plan must not
// run commands, and a role that asks for a new fact fails its test until the recording is
// refreshed (`npm run record:facts`).
import type { Connection, ConnectionStats, DownloadedFile, ExecOptions, ExecResult } from '../../../src/orchestrator/ssh/connection.js';
import { abbreviate } from '../../../src/orchestrator/ssh/connection.js';
import type { ShellCommand } from '../../../src/orchestrator/ssh/quote.js';
import { decodeFactBatch, encodeBatchOutput, type BatchSection } from './decode-fact-batch.js';
import { replayGroup, type Section } from './fact-groups.js';
import type { HostRecording, RecordedSection } from './recording.js';

export class UnrecordedFactError extends Error {
  override readonly name = 'UnrecordedFactError';
}

/** The facts a section reads: one fact's own script, or a group script over several items (the engine names the host). */
function answer(recording: HostRecording, role: string, section: BatchSection): Section {
  const entries = Object.entries(recording.facts);
  if (!section.inline) {
    const found = entries.find(([, r]) => r.script === section.script);
    if (found) return found[1];
    throw new UnrecordedFactError(`role ${role} asks for a fact section that ${recording.file} does not hold: ${abbreviate(section.script, 160)} (a new or changed fact: refresh the recording with npm run record:facts)`);
  }
  // A group script: which recorded group it is, and its items in the order the script lists them.
  const groups = new Map<string, [string, RecordedSection][]>();
  for (const [key, r] of entries) if (r.group) groups.set(r.group.id, [...(groups.get(r.group.id) ?? []), [key, r]]);
  for (const [id, members] of groups) {
    const group = replayGroup(id);
    if (!group) throw new Error(`${recording.file}: group ${id} has no replay (add one to test/support/recorded-facts/fact-groups.ts)`);
    const listed = members
      .map(([key, r]) => ({ key, r, at: wordAt(section.script, r.group!.item) }))
      .filter((m) => m.at >= 0)
      .sort((a, b) => a.at - b.at);
    if (listed.length === 0) continue;
    const items = listed.map((m) => m.r.group!.item);
    if (group.real.script(items).text === section.script) return { stdout: group.join(listed.map((m) => m.r), items), exitCode: 0 };
  }
  throw new UnrecordedFactError(`role ${role} asks for a group of facts that ${recording.file} does not hold all of: ${abbreviate(section.script, 160)} (a new or changed fact: refresh the recording with npm run record:facts)`);
}

/** Where `item`, as the shell word the group script quotes it into, stands alone in `script`. */
function wordAt(script: string, item: string): number {
  const word = item === '' || /^[A-Za-z0-9_@%+=:,./-]+$/.test(item) ? item || "''" : `'${item.replace(/'/g, `'\\''`)}'`;
  const re = new RegExp(`(?<=[\\s])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[\\s;]|$)`);
  return re.exec(script)?.index ?? -1;
}

/** A Connection (fake: nothing runs) for `recording.host`, answering fact batches from the recording. */
export function recordedFactsConnection(recording: HostRecording, host = recording.host): Connection {
  const stats: ConnectionStats = { roundTrips: 0, bytesSent: 0, bytesReceived: 0 };
  const refuse = (what: string): never => {
    throw new Error(`${host}: a plan over recorded facts must not ${what}`);
  };
  return {
    host,
    stats,
    async exec(command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
      const label = options.label ?? '';
      const batch = label.startsWith('facts:') ? decodeFactBatch(command.text) : undefined;
      if (!batch) return refuse(`run a command (${label || 'unlabelled'}): ${abbreviate(command.text, 120)}`);
      stats.roundTrips += 1;
      const role = label.slice('facts:'.length);
      const outputs = batch.sections.map((s) => answer(recording, role, s));
      return { code: 0, stdout: encodeBatchOutput(batch.nonce, outputs), stderr: '', durationMs: 0 };
    },
    writeFile: async (path) => refuse(`write ${path}`),
    uploadFile: async (_local, path) => refuse(`upload ${path}`),
    downloadFile: async (path): Promise<DownloadedFile> => refuse(`download ${path}`),
    close: async () => undefined,
  };
}
