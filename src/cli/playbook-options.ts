// The options shared by every command that runs a playbook.
import { Option, type Command } from 'commander';

export function addPlaybookOptions(command: Command): Command {
  return command
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-C, --check', 'plan only: report what would change, change nothing')
    .option('-D, --diff', 'show unified diffs of file changes')
    .option('-l, --limit <selector>', 'only these hosts: names, groups, globs, !exclude, &intersect (comma separated)')
    .option('-t, --tags <tags>', 'only tasks with these tags (comma separated; a role name is a tag; an unknown tag is refused)')
    .option('--skip-tags <tags>', 'skip tasks with these tags (an unknown tag is refused)')
    .option('--list-tags', "print the playbook's tags, one a line, and exit: nothing runs on any host")
    .option('--concurrency <n>', 'hosts worked on at once', '64')
    .addOption(new Option('-o, --output <format>', 'text (live tree on a terminal, lines otherwise) or json (NDJSON events)').choices(['text', 'json']));
}
