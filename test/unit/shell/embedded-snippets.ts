// Every shell snippet kcluster embeds in its TypeScript, found by the TypeScript parser: each
// sh`...` template (an interpolation becomes one placeholder word, as `sh` makes a quoted value
// one word) and each shellRaw('...') of a literal. Where each is (file:line) goes with it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface EmbeddedSnippet {
  /** file:line of the snippet in the repository. */
  readonly where: string;
  readonly text: string;
}

/** What an interpolation stands for: one inert word (a quoted value, or a command spliced where a word may go). */
export const PLACEHOLDER = 'KC_VALUE';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function templateText(template: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  return template.head.text + template.templateSpans.map((span) => PLACEHOLDER + span.literal.text).join('');
}

export function embeddedSnippets(root: string, dirs: readonly string[]): EmbeddedSnippet[] {
  const found: EmbeddedSnippet[] = [];
  for (const file of dirs.flatMap((d) => sourceFiles(join(root, d)))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node): string => `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'sh')
        found.push({ where: where(node), text: templateText(node.template) });
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'shellRaw') {
        const [arg] = node.arguments;
        if (arg !== undefined && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) found.push({ where: where(node), text: arg.text });
        else if (arg !== undefined && ts.isTemplateExpression(arg)) found.push({ where: where(node), text: templateText(arg) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
