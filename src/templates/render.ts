// Handlebars, strict: a missing variable is an error naming the template and the variable.
// Templates stay flat: values are computed in TypeScript and passed in. Shared partials come
// from the top-level templates/ folder ({{> managed-header comment="#"}}).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Handlebars from 'handlebars';
import { packageRoot } from '../util/package-root.js';

export type RenderTemplate = (file: string, data: Record<string, unknown>) => string;

export function createTemplateRenderer(options: { partialsDir?: string } = {}): RenderTemplate {
  const hbs = Handlebars.create();
  const partialsDir = options.partialsDir ?? join(packageRoot(), 'templates');
  for (const file of readdirSync(partialsDir).filter((f) => f.endsWith('.hbs'))) {
    hbs.registerPartial(basename(file, '.hbs'), readFileSync(join(partialsDir, file), 'utf8'));
  }
  const compiled = new Map<string, Handlebars.TemplateDelegate>();
  return (file, data) => {
    let template = compiled.get(file);
    if (!template) {
      template = hbs.compile(readFileSync(file, 'utf8'), { strict: true, noEscape: true });
      compiled.set(file, template);
    }
    try {
      return template(data);
    } catch (error) {
      throw new Error(`template ${file}: ${(error as Error).message}`);
    }
  };
}
