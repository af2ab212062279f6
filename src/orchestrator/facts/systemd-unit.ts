// A systemd unit's state, from one `systemctl show`; several units in one batch share one
// `systemctl show` (it prints a block per unit, in order, separated by an empty line).
import { sh } from '../ssh/quote.js';
import type { Fact, FactGroup } from '../engine/fact.js';

const PROPERTIES = ['LoadState', 'ActiveState', 'SubState', 'UnitFileState', 'FragmentPath', 'NeedDaemonReload'].flatMap((p) => ['-p', p]);
const show = (units: readonly string[]) => sh`systemctl show --no-pager ${PROPERTIES} -- ${units}`;

/** Pure: one `systemctl show` of several units, cut into one block per unit. */
export function splitUnitBlocks(stdout: string, exitCode: number, units: readonly string[]): { stdout: string; exitCode: number }[] {
  if (exitCode !== 0) return units.map(() => ({ stdout, exitCode }));
  const blocks = stdout.replace(/\n+$/, '').split(/\n\n/);
  if (blocks.length !== units.length) throw new Error(`systemctl show printed ${blocks.length} blocks for ${units.length} units`);
  return blocks.map((b) => ({ stdout: `${b}\n`, exitCode: 0 }));
}

const unitGroup = (name: string): FactGroup => ({ id: 'systemctl-show', item: name, script: show, split: splitUnitBlocks, inline: true });

export interface UnitState {
  readonly loadState: string;
  readonly activeState: string;
  readonly subState: string;
  readonly unitFileState: string;
  readonly fragmentPath: string;
  /** systemd has an older copy of the unit file than the one on disk. */
  readonly needDaemonReload: boolean;
}

export function systemdUnit(name: string): Fact<UnitState> {
  return {
    key: `systemd:${name}`,
    script: show([name]),
    group: unitGroup(name),
    parse(stdout, code) {
      if (code !== 0) throw new Error(`systemctl show exited ${code}`);
      const props = new Map(
        stdout
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      return {
        loadState: props.get('LoadState') ?? 'unknown',
        activeState: props.get('ActiveState') ?? 'unknown',
        subState: props.get('SubState') ?? 'unknown',
        unitFileState: props.get('UnitFileState') ?? '',
        fragmentPath: props.get('FragmentPath') ?? '',
        needDaemonReload: props.get('NeedDaemonReload') === 'yes',
      };
    },
  };
}
