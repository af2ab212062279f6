// From the events of one run to its timeline. Plays run one after another; inside a play
// each host runs its roles, and each role its tasks, one after another; so the spans nest
// and a role ends where the next one on the host starts. What the log does not close (a
// run cut short) ends at the run's last event and is marked running.
import type { RunEvent, TaskStatus } from '../../engine/events.js';
import type { HostLane, HostOutcome, PlaySpan, RoleSpan, TaskSpan, Timeline } from './model.js';
import type { LoggedEvent } from './read-events.js';

interface TaskDraft {
  readonly role: string;
  readonly task: string;
  readonly start: number;
  end?: number;
  status?: TaskStatus;
}

interface RoleDraft {
  readonly role: string;
  readonly start: number;
  factsMs: number;
  readonly tasks: TaskDraft[];
}

interface HostDraft {
  readonly host: string;
  readonly start: number;
  end?: number;
  outcome?: Exclude<HostOutcome, 'done' | 'running'>;
  readonly roles: RoleDraft[];
}

interface PlayDraft {
  readonly play: string;
  readonly index: number;
  readonly start: number;
  end?: number;
  aborted?: string;
  readonly hosts: Map<string, HostDraft>;
}

/** The runs in a file, each from its run-start on (a file may hold several, one after another). */
export function splitRuns(events: readonly LoggedEvent[]): LoggedEvent[][] {
  const runs: LoggedEvent[][] = [];
  for (const logged of events) {
    if (logged.event.type === 'run-start') runs.push([logged]);
    else runs.at(-1)?.push(logged);
  }
  return runs;
}

/** Pure: the timeline of one run; `events` starts with its run-start. */
export function buildTimeline(events: readonly RunEvent[]): Timeline {
  const first = events[0];
  if (first?.type !== 'run-start') throw new Error('internal: a run starts with its run-start event');
  const t0 = first.time;
  const at = (time: number): number => time - t0;
  const plays: PlayDraft[] = [];
  let exitCode: number | undefined;
  let runEnd: number | undefined;
  let lastTime = t0;

  // The latest play of this name: plays do not overlap, so that is the one an event belongs to.
  const playOf = (name: string): PlayDraft | undefined => plays.findLast((p) => p.play === name);
  const hostOf = (play: string, host: string): HostDraft | undefined => playOf(play)?.hosts.get(host);
  // facts-gathered names no play: it belongs to the host's lane in the play under way.
  const laneNow = (host: string): HostDraft | undefined => plays.at(-1)?.hosts.get(host);

  for (const event of events) {
    lastTime = Math.max(lastTime, event.time);
    const time = at(event.time);
    switch (event.type) {
      case 'play-start':
        plays.push({ play: event.play, index: plays.length, start: time, hosts: new Map() });
        break;
      case 'host-start':
        playOf(event.play)?.hosts.set(event.host, { host: event.host, start: time, roles: [] });
        break;
      case 'role-start':
        hostOf(event.play, event.host)?.roles.push({ role: event.role, start: time, factsMs: 0, tasks: [] });
        break;
      case 'facts-gathered': {
        const role = laneNow(event.host)?.roles.findLast((r) => r.role === event.role);
        if (role) role.factsMs += event.durationMs;
        break;
      }
      case 'task-start':
        hostOf(event.play, event.host)
          ?.roles.findLast((r) => r.role === event.role)
          ?.tasks.push({ role: event.role, task: event.task, start: time });
        break;
      case 'task-result': {
        const role = hostOf(event.play, event.host)?.roles.findLast((r) => r.role === event.role);
        if (!role) break;
        let task = role.tasks.findLast((t) => t.task === event.task && t.end === undefined);
        if (!task) {
          // A log without the task-start: its duration says when it began.
          task = { role: event.role, task: event.task, start: time - event.durationMs };
          role.tasks.push(task);
        }
        task.end = time;
        task.status = event.status;
        break;
      }
      case 'host-failed':
      case 'host-unreachable':
      case 'host-stopped': {
        const host = hostOf(event.play, event.host);
        if (host) host.outcome = event.type === 'host-failed' ? 'failed' : event.type === 'host-unreachable' ? 'unreachable' : 'stopped';
        break;
      }
      case 'host-end': {
        const host = hostOf(event.play, event.host);
        if (host) host.end = time;
        break;
      }
      case 'play-end': {
        const play = playOf(event.play);
        if (play) {
          play.end = time;
          if (event.aborted !== undefined) play.aborted = event.aborted;
        }
        break;
      }
      case 'run-end':
        runEnd = time;
        exitCode = event.summary.exitCode;
        break;
      default:
        break;
    }
  }

  const end = runEnd ?? at(lastTime);
  const built: PlaySpan[] = plays.map((p) => {
    const hosts: HostLane[] = [...p.hosts.values()].map((h) => {
      const hostEnd = h.end ?? end;
      const roles: RoleSpan[] = h.roles.map((r, i) => ({
        role: r.role,
        start: r.start,
        end: h.roles[i + 1]?.start ?? hostEnd,
        factsMs: r.factsMs,
        tasks: r.tasks.map((t): TaskSpan => ({ role: t.role, task: t.task, start: t.start, end: t.end ?? hostEnd, status: t.status ?? 'running' })),
      }));
      const outcome: HostOutcome = h.outcome ?? (h.end === undefined ? 'running' : 'done');
      return { host: h.host, start: h.start, end: hostEnd, outcome, roles };
    });
    const playEnd = p.end ?? Math.max(p.start, ...hosts.map((h) => h.end));
    return { play: p.play, index: p.index, start: p.start, end: playEnd, hosts, ...(p.aborted !== undefined ? { aborted: p.aborted } : {}) };
  });
  return {
    playbook: first.playbook,
    hosts: first.hosts,
    check: first.check,
    startedAt: t0,
    durationMs: end,
    plays: built,
    ...(exitCode !== undefined ? { exitCode } : {}),
  };
}
