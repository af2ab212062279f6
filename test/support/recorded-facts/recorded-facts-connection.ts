// A fake Connection for plan tests: it answers the engine's fact batches from a recording of a
// real host (test/fixtures/facts/<scenario>/<host>.json) and runs nothing. A section no
// recording holds, or any other command, file transfer or download, throws: a plan must not
// run commands, and a role that asks for a new fact fails its test until the recording is
// refreshed (`npm run record:facts`).
import type { Connection, ConnectionStats, DownloadedFile, ExecOptions, ExecResult } from '../../../src/orchestrator/ssh/connection.js';
import { abbreviate } from '../../../src/orchestrator/ssh/connection.js';
import { quoteWord, type ShellCommand } from '../../../src/orchestrator/ssh/quote.js';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import { decodeFactBatch, encodeBatchOutput, type BatchSection } from './decode-fact-batch.js';
import { replayGroup, type Section } from './fact-groups.js';
import type { HostRecording, RecordedSection } from './recording.js';

export class UnrecordedFactError extends Error {
  override readonly name = 'UnrecordedFactError';
}

/** Facts a role asked for on this host (the playbook's tasks noted them), to name what a recording lacks. */
export type AskedFacts = () => Iterable<Fact<unknown>>;

function unrecorded(recording: HostRecording, role: string, keys: readonly string[], script: string): UnrecordedFactError {
  const named = keys.map((k) => (recording.facts[k] ? `${k} (recorded with another script)` : k));
  const what = named.length === 0 ? 'a fact section' : `fact${named.length > 1 ? 's' : ''} ${named.join(', ')}`;
  return new UnrecordedFactError(
    `role ${role} asks for ${what} that ${recording.file} does not hold: ${abbreviate(script, 160)} (a new or changed fact: refresh the recordings with npm run record:facts)`,
  );
}

/** Where `item`, as the shell word the group script quotes it into, stands alone in `script`. */
function wordAt(script: string, item: string): number {
  const re = new RegExp(`(?<=\\s)${quoteWord(item).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[\\s;]|$)`);
  return re.exec(script)?.index ?? -1;
}

/** The facts a section reads: one fact's own script, or a group script over several items (the engine names the host). */
function answer(recording: HostRecording, role: string, section: BatchSection, asked: AskedFacts): Section {
  const entries = Object.entries(recording.facts);
  if (!section.inline) {
    const found = entries.find(([, r]) => r.script === section.script);
    if (found) return found[1];
    const fact = [...asked()].find((f) => f.script.text === section.script);
    throw unrecorded(recording, role, fact ? [fact.key] : [], section.script);
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
    if (group.real.script(items).text === section.script)
      return {
        stdout: group.join(
          listed.map((m) => m.r),
          items,
        ),
        exitCode: 0,
      };
  }
  // Name the facts of the group read that the recording lacks (or holds under another script).
  const lacking = [...asked()].filter((f) => f.group && wordAt(section.script, f.group.item) >= 0 && recording.facts[f.key]?.script !== f.script.text);
  throw unrecorded(
    recording,
    role,
    lacking.map((f) => f.key),
    section.script,
  );
}

/** A Connection (fake: nothing runs) for `recording.host`, answering fact batches from the recording; `asked` names what it lacks. */
export function recordedFactsConnection(recording: HostRecording, asked: AskedFacts = () => []): Connection {
  const host = recording.host;
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
      const outputs = batch.sections.map((s) => answer(recording, role, s, asked));
      return { code: 0, stdout: encodeBatchOutput(batch.nonce, outputs), stderr: '', durationMs: 0 };
    },
    writeFile: async (path) => refuse(`write ${path}`),
    uploadFile: async (_local, path) => refuse(`upload ${path}`),
    downloadFile: async (path): Promise<DownloadedFile> => refuse(`download ${path}`),
    close: async () => undefined,
  };
}
