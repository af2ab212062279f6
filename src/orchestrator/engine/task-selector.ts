// --tags / --skip-tags: a task is selected by a tag on the task or its role; a role's name
// counts as one of its tags.
import type { AnyTask, Role } from './types.js';

export function taskSelector(tags?: readonly string[], skipTags?: readonly string[]): (task: AnyTask, role: Role) => boolean {
  return (task, role) => {
    const own = new Set([role.name, ...(role.tags ?? []), ...(task.tags ?? [])]);
    if (tags && tags.length > 0 && !tags.some((t) => own.has(t))) return false;
    if (skipTags && skipTags.some((t) => own.has(t))) return false;
    return true;
  };
}
