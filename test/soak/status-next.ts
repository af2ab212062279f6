// The command `kcluster status` names as next, made into arguments again: "kcluster ARGS" or
// "cd DIR && kcluster ARGS", each word bare or single-quoted as quoteWord writes it (a quote
// inside as '\''). Pure; null when the text is not such a command, which the soak reports.

export interface NextCommand {
  readonly cwd?: string;
  /** The arguments after `kcluster`. */
  readonly args: string[];
}

/** POSIX shell words of a line with only bare and single-quoted words; null on anything else. */
export function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ') i++;
    if (i >= line.length) break;
    let word = '';
    while (i < line.length && line[i] !== ' ') {
      if (line[i] === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) return null;
        word += line.slice(i + 1, end);
        i = end + 1;
      } else if (line[i] === '\\' && line[i + 1] === "'") {
        word += "'";
        i += 2;
      } else if (/[\s"`$\\;|&<>()]/.test(line[i]!)) {
        return null;
      } else {
        word += line[i];
        i++;
      }
    }
    words.push(word);
  }
  return words;
}

export function parseNextCommand(text: string): NextCommand | null {
  const cd = /^cd (.+?) && (kcluster .*)$/.exec(text.trim());
  const command = shellWords(cd ? cd[2]! : text.trim());
  if (!command || command[0] !== 'kcluster' || command.length < 2) return null;
  if (!cd) return { args: command.slice(1) };
  const dir = shellWords(cd[1]!);
  if (!dir || dir.length !== 1) return null;
  return { cwd: dir[0]!, args: command.slice(1) };
}
