// The operator's audit policy (cluster.audit.policyFile), checked on the controller before any
// host is touched: what the API server would refuse at start (it does not start at all with a
// policy it cannot load, and the control plane would be down) is reported with line:col in
// that file. The checks follow audit.k8s.io/v1 Policy: its fields, each rule's level and
// fields, and the stages a policy may omit.
import { isMap, isSeq, LineCounter, parseDocument, type Node, type YAMLMap } from 'yaml';

export interface AuditPolicyProblem {
  readonly line: number;
  readonly col: number;
  readonly path: string;
  readonly message: string;
}

const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];
const POLICY_KEYS = ['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields'];
const RULE_KEYS = ['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields'];
const LIST_OF_STRINGS = ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs'];

/** A scalar's value under `key` (undefined when absent or not a scalar). */
const valueOf = (map: YAMLMap, key: string): unknown => (map.get(key, true) as { value?: unknown } | undefined)?.value;

export function auditPolicyProblems(text: string): AuditPolicyProblem[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const problems: AuditPolicyProblem[] = [];
  const at = (node: Node | null | undefined, path: string, message: string): void => {
    const { line, col } = lines.linePos(node?.range?.[0] ?? 0);
    problems.push({ line, col, path, message });
  };
  for (const error of doc.errors) {
    const { line, col } = lines.linePos(error.pos[0]);
    problems.push({ line, col, path: '', message: `YAML: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}` });
  }
  if (problems.length > 0) return problems;
  const root = doc.contents;
  if (!isMap(root)) {
    at(root, '', 'must be an audit.k8s.io/v1 Policy: a map with apiVersion, kind and rules');
    return problems;
  }
  const stagesAt = (node: unknown, path: string): void => {
    if (!isSeq(node)) return at(node as Node, path, `must be a list of stages (${STAGES.join(', ')})`);
    node.items.forEach((item, i) => {
      const value = (item as { value?: unknown }).value;
      if (!STAGES.includes(String(value))) at(item as Node, `${path}[${i}]`, `must be one of ${STAGES.join(', ')} (got ${JSON.stringify(value)})`);
    });
  };
  for (const pair of root.items) {
    const key = String((pair.key as { value?: unknown }).value);
    if (!POLICY_KEYS.includes(key)) at(pair.key as Node, key, `unknown field "${key}" in a Policy (allowed: ${POLICY_KEYS.join(', ')})`);
  }
  if (valueOf(root, 'apiVersion') !== 'audit.k8s.io/v1')
    at(
      (root.get('apiVersion', true) as Node | undefined) ?? root,
      'apiVersion',
      `must be audit.k8s.io/v1 (got ${JSON.stringify(valueOf(root, 'apiVersion') ?? null)})`,
    );
  if (valueOf(root, 'kind') !== 'Policy')
    at((root.get('kind', true) as Node | undefined) ?? root, 'kind', `must be Policy (got ${JSON.stringify(valueOf(root, 'kind') ?? null)})`);
  if (root.has('omitStages')) stagesAt(root.get('omitStages', true), 'omitStages');
  const rules = root.get('rules', true);
  if (!isSeq(rules) || rules.items.length === 0) {
    at((rules as Node | undefined) ?? root, 'rules', 'must be a list of at least one rule (the API server refuses a policy without rules)');
    return problems;
  }
  rules.items.forEach((rule, i) => {
    const path = `rules[${i}]`;
    if (!isMap(rule)) return at(rule as Node, path, 'must be a rule: a map with at least `level`');
    for (const pair of rule.items) {
      const key = String((pair.key as { value?: unknown }).value);
      if (!RULE_KEYS.includes(key)) at(pair.key as Node, `${path}.${key}`, `unknown field "${key}" in a rule (allowed: ${RULE_KEYS.join(', ')})`);
    }
    const level = valueOf(rule, 'level');
    if (!LEVELS.includes(String(level)))
      at((rule.get('level', true) as Node | undefined) ?? rule, `${path}.level`, `must be one of ${LEVELS.join(', ')} (got ${JSON.stringify(level ?? null)})`);
    for (const key of LIST_OF_STRINGS) {
      const value = rule.get(key, true);
      if (value !== undefined && !isSeq(value)) at(value as Node, `${path}.${key}`, 'must be a list');
    }
    if (rule.has('omitStages')) stagesAt(rule.get('omitStages', true), `${path}.omitStages`);
    const resources = rule.get('resources', true);
    if (resources !== undefined && !isSeq(resources)) at(resources as Node, `${path}.resources`, 'must be a list of { group, resources, resourceNames }');
  });
  return problems;
}
