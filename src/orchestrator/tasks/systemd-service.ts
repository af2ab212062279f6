// A systemd service enabled (or not) and started (or stopped). Reloads systemd first when
// the unit file changed on disk since systemd last read it (or was just created).
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { sh, shellJoin, type ShellCommand } from '../ssh/quote.js';
import { systemdUnit, type UnitState } from '../facts/systemd-unit.js';

interface ServiceCommon {
  readonly enabled: boolean;
  readonly state: 'started' | 'stopped';
  readonly tags?: readonly string[];
}

/** `name` is the unit ("kcluster-demo.service"); `unit` is its older spelling, still accepted. */
export type ServiceOptions = ServiceCommon & ({ readonly name: string; readonly unit?: never } | { readonly unit: string; readonly name?: never });

export type ServiceStep = 'daemon-reload' | 'enable' | 'disable' | 'start' | 'stop';

export interface ServicePayload {
  readonly steps: readonly ServiceStep[];
}

export const unitName = (options: ServiceOptions): string => options.name ?? options.unit;

const ACTIVE = new Set(['active', 'activating', 'reloading']);
// "static", "indirect", "generated" units cannot be enabled: treat them as enabled enough.
const ENABLED = new Set(['enabled', 'enabled-runtime', 'static', 'indirect', 'generated', 'alias']);

/** Pure: the unit's state in, the systemctl steps out. */
export function planService(options: ServiceOptions, unit: UnitState): Change<ServicePayload> {
  const name = unitName(options);
  if (unit.loadState === 'masked') throw new Error(`${name} is masked: run \`systemctl unmask ${name}\` if kcluster should manage it`);
  const steps: ServiceStep[] = [];
  // A unit file written a moment ago is "not-found" until systemd reloads its configuration.
  if (unit.needDaemonReload || unit.loadState === 'not-found') steps.push('daemon-reload');
  const enabled = ENABLED.has(unit.unitFileState);
  if (options.enabled && !enabled) steps.push('enable');
  if (!options.enabled && unit.unitFileState === 'enabled') steps.push('disable');
  const active = ACTIVE.has(unit.activeState);
  if (options.state === 'started' && !active) steps.push('start');
  if (options.state === 'stopped' && active) steps.push('stop');
  if (steps.length === 0) {
    return noChange(`${name} is ${options.enabled ? 'enabled' : 'disabled'} and ${options.state === 'started' ? 'running' : 'stopped'}`);
  }
  return { kind: 'run', summary: `${steps.join(', ')} ${name}`, payload: { steps } };
}

function stepCommand(step: ServiceStep, unit: string): ShellCommand {
  if (step === 'daemon-reload') return sh`systemctl daemon-reload`;
  // A unit that failed too often earlier is refused by its start limit until reset.
  if (step === 'start') return sh`{ systemctl reset-failed -- ${unit} 2>/dev/null; systemctl start -- ${unit}; }`;
  return sh`systemctl ${step} -- ${unit}`;
}

export function systemdService(options: ServiceOptions): Task<{ unit: ReturnType<typeof systemdUnit> }, ServicePayload> {
  const name = unitName(options);
  return {
    name: `service ${name} ${options.enabled ? 'enabled' : 'disabled'}, ${options.state}`,
    ...(options.tags ? { tags: options.tags } : {}),
    // A daemon-reload changes what systemd reports about every unit.
    invalidates: ['systemd:*'],
    facts: () => ({ unit: systemdUnit(name) }),
    plan: (facts) => planService(options, facts.unit),
    apply: async (change, ctx) => {
      const command = shellJoin(
        change.payload.steps.map((s) => stepCommand(s, name)),
        '&&',
      );
      await execChecked(ctx.connection, command, { become: true, label: `systemctl ${name}` });
    },
  };
}
