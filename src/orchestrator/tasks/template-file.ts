// A file rendered from a Handlebars template (a .hbs file or inline text) with per-host data.
// The template is read and compiled when the task is built, so plan only renders: pure.
import type { HostContext, Task } from '../engine/types.js';
import type { fileState } from '../facts/file-state.js';
import { createTemplateRenderer, type TemplateData, type TemplateRenderer } from '../templates/render.js';
import { managedFile, type ManagedFileOptions, type ManagedFilePayload } from './managed-file.js';

export { managedFile, planManagedFile, type ManagedFileOptions, type ManagedFilePayload } from './managed-file.js';

type Source =
  /** Absolute path of a .hbs file. */
  | { readonly template: string; readonly content?: never }
  /** Handlebars source text (plain text without `{{` renders as itself). */
  | { readonly content: string; readonly template?: never };

export type TemplateFileOptions = Source &
  Omit<ManagedFileOptions, 'content'> & {
    /** Values for the template, fixed or computed per host (pure). */
    readonly data?: TemplateData | ((ctx: HostContext) => TemplateData);
    /** Share one renderer (and its compile cache) across a role's tasks. */
    readonly renderer?: TemplateRenderer;
  };

export function templateFile(options: TemplateFileOptions): Task<{ file: ReturnType<typeof fileState> }, ManagedFilePayload> {
  const renderer = options.renderer ?? createTemplateRenderer();
  const compiled = options.template !== undefined ? renderer.compile(options.template) : renderer.compileInline(`for ${options.path}`, options.content);
  const data = options.data ?? {};
  const { template: _template, content: _content, data: _data, renderer: _renderer, ...file } = options;
  return managedFile({
    ...file,
    content: (ctx) => compiled(typeof data === 'function' ? data(ctx) : data),
  });
}
