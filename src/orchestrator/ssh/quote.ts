// The one way to build shell text that runs on a host.
//
// `sh` is a tagged template: every interpolated value is single-quoted for POSIX sh, so a
// hostname, path or variable holding `;`, `$()`, quotes or newlines stays one inert word.
// Only another ShellCommand (already built by `sh`, or a trusted constant made with
// `shellRaw`) is spliced in as shell text. Plain strings can never reach `exec`: the
// Connection interface takes a ShellCommand, whose constructor is private to this module.

const brand: unique symbol = Symbol('ShellCommand');

export class ShellCommand {
  readonly [brand] = true;
  private constructor(readonly text: string) {}

  /** @internal used by this module only */
  static of(text: string): ShellCommand {
    return new ShellCommand(text);
  }

  toString(): string {
    return this.text;
  }
}

export type ShellValue = string | number | bigint | boolean | ShellCommand | readonly ShellValue[];

/** Quote one value as a single POSIX shell word. */
export function quoteWord(value: string): string {
  if (value === '') return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function render(value: ShellValue): string {
  if (value instanceof ShellCommand) return value.text;
  if (Array.isArray(value)) return value.map((v: ShellValue) => render(v)).join(' ');
  if (typeof value === 'string') return quoteWord(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return quoteWord(String(value));
  }
  throw new TypeError(`cannot quote a value of type ${typeof value}`);
}

/** Build a command: literal parts are shell text, every `${value}` is quoted. */
export function sh(strings: TemplateStringsArray, ...values: ShellValue[]): ShellCommand {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return ShellCommand.of(out);
}

/**
 * Trusted shell text written by kcluster's own authors (fact scripts, constant snippets).
 * Never pass user input here: use `sh` instead.
 */
export function shellRaw(text: string): ShellCommand {
  return ShellCommand.of(text);
}

/** Join commands with a separator (`&&`, `;`, `|`, newline). */
export function shellJoin(commands: readonly ShellCommand[], separator: '&&' | ';' | '||' | '|' | '\n'): ShellCommand {
  const sep = separator === '\n' ? '\n' : ` ${separator} `;
  return ShellCommand.of(commands.map((c) => c.text).join(sep));
}
