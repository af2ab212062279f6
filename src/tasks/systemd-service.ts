// A systemd service enabled (or not) and started (or stopped); reloads systemd first when
// its unit file changed on disk.
import { noChange, type Change } from '../engine/change.js';
import type { Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { sh, shellJoin, type ShellCommand } from '../ssh/quote.js';
import { systemdUnit, type UnitState } from '../facts/systemd-unit.js';

export interface ServiceOptions {
  readonly unit: string;
  readonly enabled: boolean;
  readonly state: 'started' | 'stopped';
  readonly tags?: readonly string[];
}

interface Payload {
  readonly steps: readonly ('daemon-reload' | 'enable' | 'disable' | 'start' | 'stop')[];
}

export function planService(options: ServiceOptions, unit: UnitState): Change<Payload> {
  const steps: Payload['steps'][number][] = [];
  // A unit file written a moment ago is "not-found" until systemd reloads its configuration.
  if (unit.needDaemonReload || unit.loadState === 'not-found') steps.push('daemon-reload');
  const enabled = unit.unitFileState === 'enabled';
  if (options.enabled && !enabled) steps.push('enable');
  if (!options.enabled && enabled) steps.push('disable');
  const active = unit.activeState === 'active' || unit.activeState === 'activating' || unit.activeState === 'reloading';
  if (options.state === 'started' && !active) steps.push('start');
  if (options.state === 'stopped' && active) steps.push('stop');
  if (steps.length === 0) return noChange(`${options.unit} is ${options.enabled ? 'enabled' : 'disabled'} and ${options.state === 'started' ? 'running' : 'stopped'}`);
  return { kind: 'run', summary: `${steps.join(', ')} ${options.unit}`, payload: { steps } };
}

function stepCommand(step: Payload['steps'][number], unit: string): ShellCommand {
  return step === 'daemon-reload' ? sh`systemctl daemon-reload` : sh`systemctl ${step} -- ${unit}`;
}

export function systemdService(options: ServiceOptions): Task<{ unit: ReturnType<typeof systemdUnit> }, Payload> {
  return {
    name: `service ${options.unit} ${options.enabled ? 'enabled' : 'disabled'}, ${options.state}`,
    ...(options.tags ? { tags: options.tags } : {}),
    invalidates: ['systemd:*'],
    facts: () => ({ unit: systemdUnit(options.unit) }),
    plan: (facts) => planService(options, facts.unit),
    apply: async (change, ctx) => {
      const command = shellJoin(change.payload.steps.map((s) => stepCommand(s, options.unit)), '&&');
      await execChecked(ctx.connection, command, { become: true, label: `systemctl ${options.unit}` });
    },
  };
}
