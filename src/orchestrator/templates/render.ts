// Handlebars, strict: a missing variable is an error naming the template file, the variable
// and where it is used. Templates stay flat: values are computed in TypeScript and passed in.
// Shared partials come from the top-level templates/ folder ({{> managed-header comment="#"}}).
// Each renderer compiles a template once and keeps it in its own cache: no module state.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative, isAbsolute } from 'node:path';
import type Handlebars from 'handlebars';
import { packageRoot } from '../util/package-root.js';

// Handlebars' prebuilt one-file build, the same library: its package entry also loads
// source-map and registers a require hook, and an ESM import of either makes Node scan the
// file for exports. Required like this it loads in about half the time, at every run (figures:
// bench/results/2026-11-28-figures-from-code-comments.md).
const handlebars = createRequire(import.meta.url)('handlebars/dist/handlebars.js') as typeof Handlebars;

export type TemplateData = Readonly<Record<string, unknown>>;
export type CompiledTemplate = (data: TemplateData) => string;

export interface TemplateRendererOptions {
  /** Folder of shared partials (default: <package root>/templates). */
  readonly partialsDir?: string;
}

/** `render(file, data)`; also `compile(file)` to read a template once, up front. */
export interface TemplateRenderer {
  (file: string, data: TemplateData): string;
  compile(file: string): CompiledTemplate;
  /** A template given as text; `label` names it in errors. */
  compileInline(label: string, source: string): CompiledTemplate;
}

export class TemplateError extends Error {
  constructor(
    readonly template: string,
    message: string,
  ) {
    super(`template ${template}: ${message}`);
    this.name = 'TemplateError';
  }
}

function displayPath(file: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(packageRoot(), file);
  return rel.startsWith('..') ? file : rel;
}

/** Turns Handlebars' `"x" not defined in [object Object] - 2:19` into something a person can use. */
function explain(error: unknown, source: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const m = /^"([^"]*)" not defined in .* - (\d+):(\d+)$/.exec(message);
  if (!m) return message;
  const [, name = '', line = '1', column = '0'] = m;
  const where = `line ${line}, column ${Number(column) + 1}`;
  // Name the whole path ("cluster.name", not "name") when the position is in this file.
  const path = /^[\w.@/-]+/.exec(source.split('\n')[Number(line) - 1]?.slice(Number(column)) ?? '')?.[0];
  if (path && (path === name || path.endsWith(`.${name}`) || path.endsWith(`/${name}`))) {
    return `missing variable "${path}" (${where}): pass it in the template's data`;
  }
  return `missing variable "${name}" (used by a partial this template includes, ${where} of the partial): pass it in the template's data`;
}

export function createTemplateRenderer(options: TemplateRendererOptions = {}): TemplateRenderer {
  const hbs = handlebars.create();
  const partialsDir = options.partialsDir ?? join(packageRoot(), 'templates');
  for (const file of readdirSync(partialsDir).filter((f) => f.endsWith('.hbs'))) {
    hbs.registerPartial(basename(file, '.hbs'), readFileSync(join(partialsDir, file), 'utf8'));
  }
  const cache = new Map<string, CompiledTemplate>();

  const compileSource = (label: string, source: string): CompiledTemplate => {
    let template: Handlebars.TemplateDelegate;
    try {
      // compile() is lazy: parse now so a syntax error shows when the role is built, and
      // hand it the tree so the first render does not parse the text a second time.
      template = hbs.compile(hbs.parse(source), { strict: true, noEscape: true });
    } catch (error) {
      throw new TemplateError(label, (error as Error).message);
    }
    return (data) => {
      try {
        return template(data);
      } catch (error) {
        throw new TemplateError(label, explain(error, source));
      }
    };
  };

  const compile = (file: string): CompiledTemplate => {
    const cached = cache.get(file);
    if (cached) return cached;
    let source: string;
    try {
      source = readFileSync(file, 'utf8');
    } catch (error) {
      throw new TemplateError(displayPath(file), `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    const compiled = compileSource(displayPath(file), source);
    cache.set(file, compiled);
    return compiled;
  };

  const render = (file: string, data: TemplateData): string => compile(file)(data);
  return Object.assign(render, { compile, compileInline: compileSource });
}
