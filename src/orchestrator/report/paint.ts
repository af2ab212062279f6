// ANSI colours for the plain reporter, or none: the caller decides (NO_COLOR, not a TTY).
export type Paint = (text: string, style: 'green' | 'yellow' | 'red' | 'cyan' | 'dim' | 'bold') => string;

const codes = { green: [32, 39], yellow: [33, 39], red: [31, 39], cyan: [36, 39], dim: [2, 22], bold: [1, 22] } as const;

export function painter(color: boolean): Paint {
  if (!color) return (text) => text;
  return (text, style) => `\u001b[${codes[style][0]}m${text}\u001b[${codes[style][1]}m`;
}
