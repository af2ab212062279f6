// The tags a playbook answers to (--tags, --skip-tags, --list-tags): each role's name and
// tags, and each task's tags. A tag that none of them carries selects nothing: with --tags
// the run would do nothing and succeed, with --skip-tags skip nothing, so it is refused with
// the closest known tag before any host is touched.
import { closest } from '../inventory/suggest.js';
import { InputError } from './input-error.js';
import type { Playbook } from './types.js';

/** Every tag of the playbook, sorted, each once. */
export function playbookTags(playbook: Playbook): string[] {
  const tags = new Set<string>();
  for (const play of playbook.plays) {
    for (const role of play.roles) {
      for (const tag of [role.name, ...(role.tags ?? [])]) tags.add(tag);
      for (const task of role.tasks) for (const tag of task.tags ?? []) tags.add(tag);
    }
  }
  return [...tags].sort();
}

function unknownIn(flag: string, given: readonly string[] | undefined, known: readonly string[]): string[] {
  const set = new Set(known);
  return (given ?? [])
    .filter((tag) => !set.has(tag))
    .map((tag) => {
      const guess = closest(tag, known);
      return `${flag} "${tag}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
    });
}

/** Throws an InputError naming every tag of `tags` and `skipTags` the playbook does not have. */
export function checkTags(playbook: Playbook, tags?: readonly string[], skipTags?: readonly string[]): void {
  const known = playbookTags(playbook);
  const unknown = [...unknownIn('--tags', tags, known), ...unknownIn('--skip-tags', skipTags, known)];
  if (unknown.length === 0) return;
  const [what, them] = unknown.length === 1 ? ['tag', 'it'] : ['tags', 'them'];
  throw new InputError(
    `unknown ${what} ${unknown.join(', ')}: no role or task of playbook ${playbook.name} has ${them}; its tags are ${known.join(', ')} (a role's name is one of its tags; --list-tags prints them)`,
  );
}
