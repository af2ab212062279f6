// The operator's audit policy, checked before any host is touched: kcluster's own passes, and
// what an API server would refuse at start is reported at its line and column.
import { describe, expect, it } from 'vitest';
import { DEFAULT_AUDIT_POLICY } from '../../../src/kubernetes/cluster/audit-policy.js';
import { auditPolicyProblems } from '../../../src/kubernetes/cluster/audit-policy-check.js';

const lines = (text: string): string[] => auditPolicyProblems(text).map((p) => `${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ''}${p.message}`);

describe('audit policy check', () => {
  it("accepts kcluster's default policy and a minimal valid one", () => {
    expect(lines(DEFAULT_AUDIT_POLICY)).toEqual([]);
    expect(
      lines(
        'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n  - level: Metadata\n    resources: [{ group: "", resources: [secrets] }]\n    verbs: [get, list]\n',
      ),
    ).toEqual([]);
  });

  const cases: [string, string, string[]][] = [
    [
      'a misspelt level',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadta\n',
      ['4:12: rules[0].level: must be one of None, Metadata, Request, RequestResponse (got "Metadta")'],
    ],
    [
      'no rules',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n',
      ['3:8: rules: must be a list of at least one rule (the API server refuses a policy without rules)'],
    ],
    [
      'the wrong kind and version',
      'apiVersion: audit.k8s.io/v1beta1\nkind: AuditPolicy\nrules:\n  - level: None\n',
      ['1:13: apiVersion: must be audit.k8s.io/v1 (got "audit.k8s.io/v1beta1")', '2:7: kind: must be Policy (got "AuditPolicy")'],
    ],
    [
      'an unknown field in a rule, and a bad stage',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: None\n    user: [alice]\n    omitStages: [Started]\n',
      [
        '5:5: rules[0].user: unknown field "user" in a rule (allowed: level, users, userGroups, verbs, resources, namespaces, nonResourceURLs, omitStages, omitManagedFields)',
        '6:18: rules[0].omitStages[0]: must be one of RequestReceived, ResponseStarted, ResponseComplete, Panic (got "Started")',
      ],
    ],
    ['verbs as a string', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: None\n    verbs: get\n', ['5:12: rules[0].verbs: must be a list']],
    ['not YAML', 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n\t- level: None\n', ['4:1: YAML: Tabs are not allowed as indentation']],
    ['a list instead of a policy', '- level: None\n', ['1:1: must be an audit.k8s.io/v1 Policy: a map with apiVersion, kind and rules']],
  ];
  it.each(cases)('reports %s', (_what, text, expected) => {
    expect(lines(text)).toEqual(expected);
  });
});
