// Old spellings of "write to this path" kept working for a while: `kubeconfig -o PATH` and
// `etcd snapshot save --to PATH` are `--file PATH` now (-o is a format, --to a version, everywhere
// else). The old flag still works, with a warning on stderr.
import type { CliContext } from './context.js';

/** The path to write to: --file, else the deprecated flag's value (with a warning), else undefined. */
export function fileOption(cli: CliContext, file: string | undefined, old: { flag: string; value: string | undefined }): string | undefined {
  if (old.value === undefined) return file;
  cli.stderr.write(`kcluster: warning: ${old.flag} as a path is deprecated: use --file\n`);
  return file ?? old.value;
}
