// Mistakes in a playbook's shape, found before any host is touched: a task notifying a
// handler its role does not define would otherwise surface only after a change was applied.
import { InputError } from './input-error.js';
import type { Playbook } from './types.js';

export function validatePlaybook(playbook: Playbook): void {
  const problems: string[] = [];
  for (const play of playbook.plays) {
    for (const role of play.roles) {
      const handlers = new Set((role.handlers ?? []).map((h) => h.name));
      for (const task of role.tasks) {
        for (const name of task.notify ?? []) {
          if (!handlers.has(name))
            problems.push(`play "${play.name}", role ${role.name}, task "${task.name}" notifies handler "${name}", which the role does not define`);
        }
      }
    }
    const serial = play.serial;
    if (
      serial !== undefined &&
      !(typeof serial === 'number' ? Number.isInteger(serial) && serial > 0 : /^\d+(\.\d+)?%$/.test(serial) && Number(serial.slice(0, -1)) > 0)
    ) {
      problems.push(`play "${play.name}": serial must be a positive integer or a percentage such as "30%" (got ${JSON.stringify(serial)})`);
    }
    const maxFail = play.maxFailPercentage;
    if (maxFail !== undefined && !(maxFail >= 0 && maxFail <= 100)) {
      problems.push(`play "${play.name}": maxFailPercentage must be 0-100 (got ${maxFail})`);
    }
  }
  if (problems.length > 0) throw new InputError(`playbook ${playbook.name}: ${problems.join('; ')}`);
}
