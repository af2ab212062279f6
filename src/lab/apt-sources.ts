// The Debian mirrors this machine's own apt is configured with (deb822 .sources files and
// classic sources.list lines): the lab's base is built from them and the apt proxy forwards
// only to them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function parseAptSources(text: string, deb822: boolean): string[] {
  const uris: string[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (deb822) {
      if (/^URIs:/i.test(line)) uris.push(...line.slice(5).trim().split(/\s+/));
    } else if (/^deb\s/.test(line)) {
      const fields = line.replace(/\[[^\]]*\]/, '').split(/\s+/);
      if (fields[1]) uris.push(fields[1]);
    }
  }
  return uris.filter((u) => /^https?:\/\//.test(u));
}

export function machineAptMirrors(root = '/etc/apt'): string[] {
  const uris: string[] = [];
  const list = join(root, 'sources.list');
  if (existsSync(list)) uris.push(...parseAptSources(readFileSync(list, 'utf8'), false));
  const dir = join(root, 'sources.list.d');
  if (existsSync(dir)) {
    for (const f of readdirSync(dir)) {
      if (f.endsWith('.sources')) uris.push(...parseAptSources(readFileSync(join(dir, f), 'utf8'), true));
      else if (f.endsWith('.list')) uris.push(...parseAptSources(readFileSync(join(dir, f), 'utf8'), false));
    }
  }
  return [...new Set(uris)];
}

/** The mirror to debootstrap Debian from: the first configured URI serving Debian's main archive. */
export function debianMirror(uris: readonly string[]): string | undefined {
  return uris.find((u) => /\/debian\/?$/.test(u)) ?? uris.find((u) => /debian/.test(u) && !/security/.test(u));
}
