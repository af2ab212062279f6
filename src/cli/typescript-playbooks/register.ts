// Before `kcluster run` imports a .ts/.mts playbook: find the typescript package (the playbook's
// project first, then kcluster's own), and register the hooks that transpile on load. Without
// typescript the error says what to install; nothing is registered for .js/.mjs playbooks.
import { createRequire, register } from 'node:module';

export const TYPESCRIPT_PLAYBOOK = /\.m?ts$/;

let registered = false;

function findTypeScript(playbookFile: string): string | undefined {
  for (const from of [playbookFile, import.meta.url]) {
    try {
      return createRequire(from).resolve('typescript');
    } catch {
      // not there: try the next place
    }
  }
  return undefined;
}

/** Returns an error message, or undefined once TypeScript playbooks can be imported. */
export function enableTypeScriptPlaybooks(playbookFile: string): string | undefined {
  if (registered) return undefined;
  const typescriptPath = findTypeScript(playbookFile);
  if (typescriptPath === undefined) {
    return `${playbookFile} is TypeScript, and no typescript package was found from its folder: install it in the playbook's project (npm install --save-dev typescript), or compile the playbook to .js`;
  }
  register('./hooks.js', { parentURL: import.meta.url, data: { typescriptPath } });
  registered = true;
  return undefined;
}
