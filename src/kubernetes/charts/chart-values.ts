// A chart's values as Helm reads them: valuesFile first, then the inline values (written as
// JSON, which is YAML, to a 0600 file of the work folder), so inline values win as with two
// `--values` flags. Never in Helm's arguments: values may hold secrets.
import { readFile } from 'node:fs/promises';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { ChartSettings } from '../inventory/cluster-settings.js';
import type { WorkFolder } from './work-folder.js';

/** What is wrong with a values file, at its own file:line:col. */
export async function valuesFileProblem(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return `${file}: cannot read it on the controller (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const where = (offset: number | undefined): string => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `${file}:${line}:${col}`;
  };
  const error = doc.errors[0];
  if (error !== undefined) return `${where(error.pos[0])}: ${error.message.split('\n')[0]}`;
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return undefined;
  if (!isMap(contents)) return `${where(contents.range?.[0])}: a values file must be a map of values`;
  return undefined;
}

/** `--values FILE` for each source of values, in Helm's order (the last wins). */
export async function valuesArgs(settings: ChartSettings, work: WorkFolder, name: string): Promise<string[]> {
  const args: string[] = [];
  if (settings.valuesFile !== undefined) args.push('--values', settings.valuesFile);
  if (Object.keys(settings.values).length > 0) args.push('--values', await work.secretFile(`${name}.values.json`, JSON.stringify(settings.values)));
  return args;
}

/** What the values are made of, for the inputs hash: the file's text and the inline map. */
export async function valuesText(settings: ChartSettings): Promise<string> {
  const file = settings.valuesFile === undefined ? '' : await readFile(settings.valuesFile, 'utf8');
  return JSON.stringify([file, settings.values]);
}
