// Host selectors, as Ansible's patterns: names, groups, globs, `all`, `!x` to exclude and
// `&x` to intersect; comma separated or a list. The result keeps inventory order.
import { closest } from './suggest.js';
import type { Inventory } from './model.js';

/** `*`, `?` and `[...]` (with `[!...]` negated) as a RegExp; undefined for an unclosed `[`. */
function globToRegExp(glob: string): RegExp | undefined {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') out += '.*';
    else if (ch === '?') out += '.';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) return undefined;
      const body = glob.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      out += `[${negated ? '^' : ''}${(negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else out += ch.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The hosts a term names, or undefined when it names nothing (a glob that matches nothing too). */
function termHosts(inventory: Inventory, term: string): string[] | undefined {
  const group = inventory.groups[term];
  if (group) return [...group];
  if (inventory.hosts.some((h) => h.name === term)) return [term];
  if (!/[*?[]/.test(term)) return undefined;
  const re = globToRegExp(term);
  if (!re) return undefined;
  const names = new Set<string>();
  for (const h of inventory.hosts) if (re.test(h.name)) names.add(h.name);
  for (const g of Object.keys(inventory.groups)) if (re.test(g)) for (const n of inventory.groups[g] ?? []) names.add(n);
  return names.size > 0 ? [...names] : undefined;
}

export function selectHosts(inventory: Inventory, selector: string | readonly string[]): { hosts: string[]; unknown: string[] } {
  const terms = (typeof selector === 'string' ? [selector] : selector)
    .flatMap((s) => s.split(/[,:]/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const unknown: string[] = [];
  let selected = new Set<string>();
  const resolveTerm = (term: string): Set<string> => {
    const hosts = termHosts(inventory, term);
    if (hosts === undefined) unknown.push(term);
    return new Set(hosts ?? []);
  };
  for (const term of terms.filter((t) => !t.startsWith('!') && !t.startsWith('&'))) {
    for (const h of resolveTerm(term)) selected.add(h);
  }
  if (terms.every((t) => t.startsWith('!') || t.startsWith('&'))) selected = new Set(inventory.groups['all'] ?? []);
  for (const term of terms.filter((t) => t.startsWith('&'))) {
    const keep = resolveTerm(term.slice(1));
    selected = new Set([...selected].filter((h) => keep.has(h)));
  }
  for (const term of terms.filter((t) => t.startsWith('!'))) {
    for (const h of resolveTerm(term.slice(1))) selected.delete(h);
  }
  return { hosts: inventory.hosts.map((h) => h.name).filter((n) => selected.has(n)), unknown };
}

export const quotedTerms = (terms: readonly string[]): string => terms.map((t) => `"${t}"`).join(', ');

/** After a selector named nothing: " (did you mean ...?)" from the hosts and groups, or the known names. */
export function unknownSelectorHint(inventory: Inventory, unknown: readonly string[]): string {
  const names = [...inventory.hosts.map((h) => h.name), ...Object.keys(inventory.groups)];
  const guesses = unknown.map((u) => closest(u.replace(/^[!&]/, ''), names)).filter((g): g is string => g !== undefined);
  return guesses.length > 0 ? ` (did you mean ${quotedTerms(guesses)}?)` : ` (known: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', ...' : ''})`;
}
