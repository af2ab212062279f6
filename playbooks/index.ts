// Every playbook kcluster ships, by name: the table of contents of what it does.
import type { Playbook } from '../src/engine/types.js';
import { demoPlaybook } from './demo.js';

const PLAYBOOKS: readonly Playbook[] = [demoPlaybook];

export function playbookNames(): string[] {
  return PLAYBOOKS.map((p) => p.name);
}

export function findPlaybook(name: string): Playbook | undefined {
  return PLAYBOOKS.find((p) => p.name === name);
}
