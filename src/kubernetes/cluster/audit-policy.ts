// The API server's audit log: where it goes on a control plane, and kcluster's default policy.
// The policy records who did what to which object (Metadata) for most requests, never request
// or response bodies, so Secrets, tokens and ConfigMaps never reach the log; it leaves out the
// health probes and the lease renewals that every node and controller makes every few seconds.
// `cluster.audit.policyFile` replaces it with the operator's own.

export const AUDIT_POLICY_PATH = '/etc/kubernetes/audit/policy.yaml';
export const AUDIT_LOG_DIR = '/var/log/kubernetes/audit';
export const AUDIT_LOG_PATH = `${AUDIT_LOG_DIR}/audit.log`;

export const DEFAULT_AUDIT_POLICY = `# Written by kcluster (cluster.audit.policyFile replaces it): metadata only, never bodies.
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
  - RequestReceived
rules:
  # Health probes and version checks: not actions.
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version"]
  # Lease renewals of nodes and controllers (every 10 s each): no audit value.
  - level: None
    verbs: ["get", "update"]
    resources:
      - group: coordination.k8s.io
        resources: ["leases"]
  # Events are a log of their own.
  - level: None
    resources:
      - group: ""
        resources: ["events"]
      - group: events.k8s.io
        resources: ["events"]
  # Everything else, Secrets, tokens and ConfigMaps included: who, what, when, never the body.
  - level: Metadata
`;
