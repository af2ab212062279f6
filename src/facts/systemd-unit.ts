// A systemd unit's state, from one `systemctl show`.
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

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
    script: sh`systemctl show --no-pager -p LoadState -p ActiveState -p SubState -p UnitFileState -p FragmentPath -p NeedDaemonReload -- ${name}`,
    parse(stdout, code) {
      if (code !== 0) throw new Error(`systemctl show exited ${code}`);
      const props = new Map(stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
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
