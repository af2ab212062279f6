// kcluster as a library: everything the CLI does can be done from TypeScript. The engine and the
// generic tasks are here; the shipped roles and playbooks are subpaths, loaded only when imported:
// `kcluster/roles/<name>` (e.g. kcluster/roles/demo) and `kcluster/playbooks/<name>` (cluster,
// upgrade, reset, certs-renew, cluster-inputs, ...).
// A playbook module imports this file, and a run loads it: the CLI entry and the lab, which a
// playbook does not need, are loaded only when called, so that a run does not pay for loading them.
import type { main as mainFunction } from './cli/main.js';
import type { labUp as labUpFunction } from './lab/lab-up.js';
import type { labDown as labDownFunction } from './lab/lab-down.js';

/** The kcluster command: argv in, exit code out (see cli/main.ts). */
export async function main(...args: Parameters<typeof mainFunction>): ReturnType<typeof mainFunction> {
  return (await import('./cli/main.js')).main(...args);
}
/** Brings up a lab of systemd-nspawn hosts (see lab/lab-up.ts). */
export async function labUp(...args: Parameters<typeof labUpFunction>): ReturnType<typeof labUpFunction> {
  return (await import('./lab/lab-up.js')).labUp(...args);
}
/** Tears a lab down (see lab/lab-down.ts). */
export async function labDown(...args: Parameters<typeof labDownFunction>): ReturnType<typeof labDownFunction> {
  return (await import('./lab/lab-down.js')).labDown(...args);
}
export { loadInventory, parseInventory, formatDiagnostic, type Diagnostic, type InventoryLoadResult } from './kubernetes/inventory/load-inventory.js';
export type * from './orchestrator/inventory/model.js';
export { selectHosts } from './orchestrator/inventory/select-hosts.js';
export { renderEffectiveConfig } from './kubernetes/inventory/effective-config.js';
export { runPlaybook, type RunOptions } from './orchestrator/engine/run-playbook.js';
export type { RunSummary, HostRecap } from './orchestrator/engine/recap.js';
export type * from './orchestrator/engine/types.js';
export type * from './orchestrator/engine/fact.js';
export * from './orchestrator/engine/change.js';
export type { RunEvent, EventSink } from './orchestrator/engine/events.js';
export { createReporter } from './orchestrator/report/create-reporter.js';
export { createSshConnector, type SshConnector } from './orchestrator/ssh/connector.js';
export { hostKeyPolicyFor } from './orchestrator/ssh/host-key-policy-for.js';
export { sh, shellRaw, shellJoin, ShellCommand } from './orchestrator/ssh/quote.js';
export * from './orchestrator/ssh/connection.js';
export { managedFile, templateFile } from './orchestrator/tasks/template-file.js';
export { systemdService } from './orchestrator/tasks/systemd-service.js';
export { kernelModule, type KernelModuleOptions } from './orchestrator/tasks/kernel-module.js';
export { factDerivedFile, type FactDerivedFileOptions } from './orchestrator/tasks/fact-derived-file.js';
export { onlyOnHosts } from './orchestrator/tasks/only-on-hosts.js';
export { directory, type DirectoryOptions } from './orchestrator/tasks/directory.js';
export { Semaphore } from './orchestrator/engine/semaphore.js';
export { sysctl } from './orchestrator/tasks/sysctl.js';
export { packagePresent, packagesPresent } from './orchestrator/tasks/package-present.js';
export { fileState } from './orchestrator/facts/file-state.js';
export { systemdUnit } from './orchestrator/facts/systemd-unit.js';
export { sysctlValue } from './orchestrator/facts/sysctl-value.js';
export { packageState } from './orchestrator/facts/package-state.js';
export { commandPath } from './orchestrator/facts/command-path.js';
export { osRelease } from './orchestrator/facts/os-release.js';
export { hostFacts } from './orchestrator/facts/host-facts.js';
export { adapterFor } from './orchestrator/os/choose-adapter.js';
export { createTemplateRenderer } from './orchestrator/templates/render.js';
