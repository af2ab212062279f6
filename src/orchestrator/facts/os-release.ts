// The host's /etc/os-release and the OS family kcluster's adapters recognise in it.
import { shellRaw } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';
import { parseOsRelease, type OsRelease } from '../os/os-release.js';
import { osFamilyOf } from '../os/choose-adapter.js';
import type { OsFamily } from '../os/os-adapter.js';

export interface OsReleaseFacts extends OsRelease {
  /** undefined when no adapter claims the host: `adapterFor` then explains which ID it found. */
  readonly family: OsFamily | undefined;
}

// A `read` loop prints the file without starting a process.
const SCRIPT = `for f in /etc/os-release /usr/lib/os-release; do
  if [ -r "$f" ]; then while IFS= read -r l || [ -n "$l" ]; do printf '%s\\n' "$l"; done < "$f"; exit 0; fi
done
exit 3`;

export function parseOsReleaseFacts(stdout: string, exitCode = 0): OsReleaseFacts {
  if (exitCode === 3) throw new Error('neither /etc/os-release nor /usr/lib/os-release is readable');
  const release = parseOsRelease(stdout);
  return { ...release, family: osFamilyOf(release) };
}

export function osRelease(): Fact<OsReleaseFacts> {
  return { key: 'os-release', script: shellRaw(SCRIPT), parse: parseOsReleaseFacts };
}
