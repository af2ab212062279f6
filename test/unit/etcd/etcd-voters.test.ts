// Which control planes apply plans as etcd members: etcd's own member list (voters only), read
// on whichever control plane answers first, and what the operator is told when it and the
// API's view differ (issue 40: a removed control plane's etcd pod lingered in the API, so
// re-adding it ran the members' steps on a reset host). The connections here are fakes that run
// the fact's real script in a local shell, with a stand-in etcdctl in place of the host's.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { membershipNote } from '../../../src/cli/etcd-members-to-plan.js';
import { readEtcdVoters, votingMemberNames } from '../../../src/kubernetes/etcd/etcd-voters.js';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';
import type { Connection } from '../../../src/orchestrator/ssh/connection.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-etcd-voters-'));
const LIST = [
  '8e9e05c52164694d, started, cp1, https://10.0.0.1:2380, https://10.0.0.1:2379, false',
  '91bc3c398fb3c146, started, cp2, https://10.0.0.2:2380, https://10.0.0.2:2379, false',
  'fd422379fda50e48, started, cp4, https://10.0.0.4:2380, https://10.0.0.4:2379, true',
  'aa00000000000001, unstarted, , https://10.0.0.5:2380, , false',
].join('\n');

/** A stand-in etcdctl: prints `output` and exits `code`, whatever its arguments. */
function standInEtcdctl(name: string, output: string, code: number): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ncat <<'OUT'\n${output}\nOUT\nexit ${code}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A connection faked to run each command in a local shell, the host's etcdctl replaced by `etcdctl`. */
function localShellConnection(etcdctl: string): Connection {
  return {
    exec: async (command: { text: string }) => {
      try {
        const stdout = execFileSync('bash', ['-c', command.text.replaceAll('/usr/local/bin/etcdctl', etcdctl)], { encoding: 'utf8' });
        return { code: 0, stdout, stderr: '' };
      } catch (error) {
        const e = error as { status: number; stdout: string; stderr: string };
        return { code: e.status, stdout: e.stdout, stderr: e.stderr };
      }
    },
    close: async () => undefined,
  } as unknown as Connection;
}

const host = (name: string) => ({ name }) as HostSettings;

describe('votingMemberNames', () => {
  it('keeps started voters, sorted; a learner and a member that never started are not members yet', async () => {
    const read = await readEtcdVoters([host('cp1')], async () => localShellConnection(standInEtcdctl('ok', LIST, 0)));
    expect(read).toEqual({ voters: ['cp1', 'cp2'], readOn: 'cp1' });
    expect(votingMemberNames([])).toEqual([]);
  });
});

describe('readEtcdVoters over connections faked to run the script locally', () => {
  it('takes the answer of a control plane that can give it when another cannot (a reset host, one down)', async () => {
    const broken = standInEtcdctl('broken', 'Error: open /etc/kubernetes/pki/etcd/healthcheck-client.crt: no such file or directory', 1);
    const good = standInEtcdctl('good', LIST, 0);
    const connect = async (h: HostSettings): Promise<Connection> => {
      if (h.name === 'cp3') throw new Error('cp3: connect ECONNREFUSED 10.0.0.3:22');
      return localShellConnection(h.name === 'cp1' ? broken : good);
    };
    expect(await readEtcdVoters([host('cp1'), host('cp2'), host('cp3')], connect)).toEqual({ voters: ['cp1', 'cp2'], readOn: 'cp2' });
  });

  it("names each control plane's reason when none can give the list", async () => {
    const broken = standInEtcdctl('broken2', 'Error: context deadline exceeded', 1);
    const read = await readEtcdVoters([host('cp2'), host('cp1')], async () => localShellConnection(broken));
    expect(read).toEqual({
      failures: [
        'cp1: etcdctl member list failed on this control plane: Error: context deadline exceeded',
        'cp2: etcdctl member list failed on this control plane: Error: context deadline exceeded',
      ],
    });
  });
});

describe('membershipNote', () => {
  it('says nothing when etcd and the API agree', () => {
    expect(membershipNote(['cp1', 'cp2'], 'cp1', ['cp1', 'cp2'])).toBeUndefined();
  });
  it('says that etcd decides, naming the host the API still shows as a member', () => {
    expect(membershipNote(['cp1', 'cp2'], 'cp1', ['cp1', 'cp2', 'cp3'])).toBe(
      "etcd's member list (read on cp1): cp1, cp2; the API still shows etcd pods or control-plane labels of cp1, cp2, cp3. etcd decides: cp3 is no etcd member and joins as a new one where the inventory lists it as a control plane",
    );
  });
});
