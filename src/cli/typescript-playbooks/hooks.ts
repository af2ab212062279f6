// Module hooks (node:module register) that let `kcluster run` load a playbook written in
// TypeScript, on the Node versions kcluster supports (20 has no type stripping). Each .ts/.mts
// file is transpiled on load, one file at a time (no type check: run `tsc --noEmit` for that),
// with the typescript package of the user's project. A relative `./x.js` import that has no .js
// file next to it resolves to `./x.ts`, the convention TypeScript's NodeNext mode uses.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

interface TypeScriptApi {
  transpileModule(
    source: string,
    options: { compilerOptions: Record<string, unknown>; fileName: string; reportDiagnostics: boolean },
  ): { outputText: string; diagnostics?: { messageText: unknown; start?: number }[] };
  ModuleKind: { ESNext: number };
  ScriptTarget: { ES2022: number };
}

interface ResolveContext {
  readonly parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string; format?: string | null }>;
type NextLoad = (url: string, context: unknown) => Promise<{ format?: string | null; source?: string | ArrayBuffer | Uint8Array | null }>;

let typescript: TypeScriptApi | undefined;

/** Called once by register() with the path of the typescript package to use. */
export function initialize(data: { typescriptPath: string }): void {
  typescript = createRequire(import.meta.url)(data.typescriptPath) as TypeScriptApi;
}

const TYPESCRIPT_FILE = /\.m?ts$/;

export async function resolve(
  specifier: string,
  context: ResolveContext,
  next: NextResolve,
): Promise<{ url: string; format?: string | null; shortCircuit?: boolean }> {
  try {
    return await next(specifier, context);
  } catch (error) {
    const fromTypeScript = context.parentURL !== undefined && TYPESCRIPT_FILE.test(context.parentURL);
    if (!fromTypeScript || !/^\.{1,2}\//.test(specifier) || !/\.m?js$/.test(specifier)) throw error;
    return next(specifier.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts'), context);
  }
}

export async function load(
  url: string,
  context: unknown,
  next: NextLoad,
): Promise<{ format?: string | null; source?: string | ArrayBuffer | Uint8Array | null; shortCircuit?: boolean }> {
  if (!url.startsWith('file:') || !TYPESCRIPT_FILE.test(url)) return next(url, context);
  const file = fileURLToPath(url);
  const ts = typescript;
  if (!ts) throw new Error('internal: the TypeScript playbook hooks were not initialised');
  const source = await readFile(file, 'utf8');
  const output = ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false, inlineSourceMap: true, inlineSources: true },
  });
  const problem = output.diagnostics?.[0];
  if (problem) throw new SyntaxError(`${file}: ${typeof problem.messageText === 'string' ? problem.messageText : 'TypeScript syntax error'}`);
  return { format: 'module', source: output.outputText, shortCircuit: true };
}
