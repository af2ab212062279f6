// The results file of a soak (test/soak/results/DATE-TOPOLOGY-seedN.md): the seed, steps and
// topology that reproduce it, then every step: operation, fault, resume, duration, invariants
// and the NodePort's answers. Pure: rewritten after every step, so a soak that dies midway
// still leaves what it did.
import { FAULT_RATE } from './faults.js';
import type { Topology } from './cluster-model.js';
import type { StepExecution } from './execute-step.js';
import type { InvariantVerdict } from './invariants.js';

export interface StepResult {
  readonly step: number;
  readonly operation: string;
  readonly plannedFault: string;
  readonly execution: StepExecution;
  readonly invariants: readonly InvariantVerdict[];
}

export interface SoakResult {
  readonly seed: number;
  readonly steps: number;
  readonly topology: Topology;
  /** The share of steps drawn with a fault (absent: the default, FAULT_RATE). */
  readonly faultRate?: number;
  readonly started: string;
  readonly kclusterCommit: string;
  readonly install: string;
  readonly results: readonly StepResult[];
  /** Set once the soak ended (all steps, or stopped at a violation). */
  readonly ended?: string;
}

export interface Violation {
  readonly step: number;
  readonly operation: string;
  readonly what: string;
}

export function violationsOf(result: SoakResult): Violation[] {
  return result.results.flatMap((r) => [
    ...(r.execution.failure !== undefined ? [{ step: r.step, operation: r.operation, what: `operation: ${r.execution.failure}` }] : []),
    ...r.invariants.filter((v) => !v.ok).map((v) => ({ step: r.step, operation: r.operation, what: `${v.name}: ${v.detail}` })),
  ]);
}

export const resultsFileName = (date: string, topology: Topology, seed: number): string => `${date}-${topology}-seed${seed}.md`;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const faultRateArgument = (rate: number | undefined): string => (rate === undefined || rate === FAULT_RATE ? '' : ` --fault-rate ${rate}`);

export function renderResults(result: SoakResult): string {
  const violations = violationsOf(result);
  const faults = result.results.filter((r) => r.plannedFault !== 'none').length;
  const delivered = result.results.filter((r) => r.execution.faultDelivered).length;
  const lines = [
    `# Soak: seed ${result.seed}, ${result.steps} steps, ${result.topology}`,
    '',
    `Reproduce: \`npm run soak -- --seed ${result.seed} --steps ${result.steps} --topology ${result.topology}${faultRateArgument(result.faultRate)}\` (kcluster ${result.kclusterCommit}).`,
    '',
    `Started ${result.started}${result.ended ? `, ended ${result.ended}` : ', still running (or stopped without its end)'}; install: ${result.install}.`,
    `${result.results.length} of ${result.steps} steps run; ${faults} with a planned fault, ${delivered} delivered; ${violations.length} violation(s).`,
    '',
    '| step | operation | fault | resume | seconds | Service ok/failed | API samples: none/some down | invariants |',
    '|---|---|---|---|---|---|---|---|',
    ...result.results.map((r) => {
      const broken = r.invariants.filter((v) => !v.ok);
      const invariants = broken.length === 0 ? `all ${r.invariants.length} hold` : broken.map((v) => `FAILED ${v.name}`).join('; ');
      return `| ${r.step} | ${cell(r.operation)} | ${cell(`${r.plannedFault}: ${r.execution.fault}`)} | ${cell(r.execution.resume.join('; ') || '-')} | ${r.execution.seconds.toFixed(0)} | ${r.execution.service.ok}/${r.execution.service.failed} | ${r.execution.api.samples}: ${r.execution.api.noneAnswered}/${r.execution.api.someDown} | ${cell(invariants)} |`;
    }),
    '',
    '## Commands',
    '',
    ...result.results.flatMap((r) => [`- step ${r.step}: ${r.execution.commands.map((c) => `\`${c}\``).join(', ') || '(none)'}`]),
    '',
    '## Service failures',
    '',
    ...(result.results.some((r) => r.execution.service.failed > 0)
      ? result.results
          .filter((r) => r.execution.service.failed > 0)
          .map((r) => `- step ${r.step} (${r.operation}): ${r.execution.service.failed} failed, first: ${r.execution.service.firstFailures.join('; ')}`)
      : ['None.']),
    '',
    '## Violations',
    '',
    ...(violations.length === 0 ? ['None.'] : violations.map((v) => `- step ${v.step} (${v.operation}), seed ${result.seed}: ${v.what}`)),
    '',
  ];
  return lines.join('\n');
}
