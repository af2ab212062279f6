// The engine reads facts of one kind together (one `stat` for every file, one `systemctl show`
// for every unit...): a group script whose output the group's split cuts into each fact's own
// section. A replay holds the sections; to answer a group script it must print what the group
// script would have printed for those items: the inverse of each group's split, here. The group
// scripts themselves come from the real fact code, so a batch is recognised exactly.
import type { FactGroup } from '../../../src/orchestrator/engine/fact.js';
import { fileStateGroup } from '../../../src/orchestrator/facts/file-state-group.js';
import { packageState } from '../../../src/orchestrator/facts/package-state.js';
import { sysctlValue } from '../../../src/orchestrator/facts/sysctl-value.js';
import { systemdUnit } from '../../../src/orchestrator/facts/systemd-unit.js';

export interface Section {
  readonly stdout: string;
  readonly exitCode: number;
}

export interface ReplayGroup {
  readonly real: FactGroup;
  /** What the group script prints for these items, given each item's own section. */
  join(sections: readonly Section[], items: readonly string[]): string;
}

const allOk = (id: string, sections: readonly Section[], items: readonly string[]): void => {
  const bad = sections.findIndex((s) => s.exitCode !== 0);
  if (bad >= 0) throw new Error(`cannot replay ${id} for ${items[bad]}: its recorded section exited ${sections[bad]!.exitCode}`);
};

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');

const systemctlShow: ReplayGroup = {
  real: systemdUnit('x.service').group!,
  join(sections, items) {
    allOk('systemctl-show', sections, items);
    return sections.map((s) => s.stdout).join('\n');
  },
};

const sysctlRead: ReplayGroup = {
  real: sysctlValue('kernel.x').group!,
  join(sections, items) {
    allOk('sysctl-read', sections, items);
    const present = sections.map((s) => s.stdout.startsWith('present\n'));
    const head = items.map((p, i) => `${present[i] ? 'present' : 'absent'} ${p}\n`).join('');
    const values = items.flatMap((p, i) => (present[i] ? lines(sections[i]!.stdout.slice('present\n'.length)).map((l) => `${p}:${l}\n`) : []));
    return `${head}@@values\n${values.join('')}`;
  },
};

const packageQuery: ReplayGroup = {
  real: packageState('x').group!,
  join(sections, items) {
    const headers = new Set(sections.map((s) => lines(s.stdout).slice(0, 3).join('\n')));
    if (headers.size !== 1) throw new Error('cannot replay package-query: the recorded sections disagree on the OS family');
    const rest = sections.flatMap((s, i) =>
      lines(s.stdout)
        .slice(3)
        .filter((l) => l !== 'not-installed')
        .map((l) => `${items[i]}\t${l}\n`),
    );
    return `${[...headers][0]}\n${rest.join('')}`;
  },
};

/** The inverse of splitFileStates: one file-read group script's output for these paths. */
function fileRead(max: number): ReplayGroup {
  return {
    real: fileStateGroup('/x', max)!,
    join(sections, paths) {
      const present: string[] = [];
      const stats: string[] = [];
      const small: string[] = [];
      const contents: Buffer[] = [];
      const sums: string[] = [];
      sections.forEach((s, i) => {
        const path = paths[i]!;
        if (s.exitCode === 0 && s.stdout === 'absent\n') return void present.push('absent');
        present.push('present');
        if (s.exitCode !== 0) return; // stat failed: no stat line, the split answers exit 1
        const [stat, second, third] = lines(s.stdout);
        stats.push(`${stat}|${path}`);
        if (second === 'content') {
          small.push(path);
          contents.push(Buffer.from(third ?? '', 'base64'));
        } else if (second !== undefined) sums.push(`${second.slice(0, 64)}  ${path}`); // the own script prints "<sum>  -"
      });
      const block = (name: string, rows: readonly string[]) => `@@${name}\n${rows.map((r) => `${r}\n`).join('')}`;
      return `${present.map((p) => `${p}\n`).join('')}${block('stat', stats)}${block('small', small)}@@content\n${contents.length > 0 ? Buffer.concat(contents).toString('base64') : ''}\n${block('sums', sums)}`;
    },
  };
}

/** The replayable group of this id, or undefined for a kind this file does not know. */
export function replayGroup(id: string): ReplayGroup | undefined {
  if (id === 'systemctl-show') return systemctlShow;
  if (id === 'sysctl-read') return sysctlRead;
  if (id === 'package-query') return packageQuery;
  const file = /^file-read:(-?\d+)$/.exec(id);
  return file ? fileRead(Number(file[1])) : undefined;
}
