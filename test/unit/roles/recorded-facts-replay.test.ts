// The fake connection the role plan tests run over (recordedFactsConnection): it answers the
// engine's fact batches, grouped reads included, from a recording, and refuses everything else:
// a fact no recording holds, any other command, any file transfer.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import { FactCache } from '../../../src/orchestrator/engine/fact-cache.js';
import { gatherFacts } from '../../../src/orchestrator/engine/gather-facts.js';
import { newNonce } from '../../../src/orchestrator/engine/fact-batch.js';
import { fileState } from '../../../src/orchestrator/facts/file-state.js';
import { packageState } from '../../../src/orchestrator/facts/package-state.js';
import { sysctlValue } from '../../../src/orchestrator/facts/sysctl-value.js';
import { systemdUnit } from '../../../src/orchestrator/facts/systemd-unit.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import type { Connection } from '../../../src/orchestrator/ssh/connection.js';
import { recordedFactsConnection, UnrecordedFactError } from '../../support/recorded-facts/recorded-facts-connection.js';
import { readRecording, type HostRecording, type RecordedSection } from '../../support/recorded-facts/recording.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';

const gather = async (connection: Connection, facts: readonly Fact<unknown>[]): Promise<FactCache> => {
  const cache = new FactCache();
  await gatherFacts({ host: connection.host, connection, cache, nonce: newNonce(), emit: () => undefined }, 'some-role', facts);
  return cache;
};

const section = (fact: Fact<unknown>, stdout: string): [string, RecordedSection] => [
  fact.key,
  { script: fact.script.text, ...(fact.group ? { group: { id: fact.group.id, item: fact.group.item } } : {}), stdout, exitCode: 0 },
];

// What each fact's own script prints on a host holding these (made up, in the recorded format).
const motd = fileState('/etc/motd', { content: true });
const hosts = fileState('/etc/hosts', { content: true });
const big = fileState('/var/lib/big', { content: true, maxContentBytes: 4 });
const meta = fileState('/etc/kubernetes', { content: false });
const forward = sysctlValue('net.ipv4.ip_forward');
const ports = sysctlValue('net.ipv4.ip_local_port_range');
const kubelet = systemdUnit('kubelet.service');
const ssh = systemdUnit('ssh.service');
const curl = packageState('curl');
const docker = packageState('docker.io');
const family = 'family=debian\nid=debian\nlike=\n';
const made: HostRecording = {
  file: 'test/made-up.json',
  host: 'h1',
  facts: Object.fromEntries([
    section(motd, `regular file|644|root|root|6\ncontent\n${Buffer.from('hello\n').toString('base64')}\n`),
    section(hosts, 'absent\n'),
    section(big, `regular file|600|root|root|10\n${'a'.repeat(64)}  -\n`),
    section(meta, 'directory|755|root|root|4096\n'),
    section(forward, 'present\n1\n'),
    section(ports, 'present\n32768\t60999\n'),
    section(kubelet, 'LoadState=not-found\nActiveState=inactive\nSubState=dead\n'),
    section(ssh, 'LoadState=loaded\nActiveState=active\nSubState=running\n'),
    section(curl, `${family}installed 8.14.1-2\n`),
    section(docker, `${family}not-installed\n`),
  ]),
};

describe('recordedFactsConnection (a fake connection replaying recorded fact sections)', () => {
  it('answers a batch of grouped reads as the real group scripts would: each fact reads what it reads alone', async () => {
    const all = [motd, hosts, big, meta, forward, ports, kubelet, ssh, curl, docker];
    const together = await gather(recordedFactsConnection(made), all);
    for (const fact of all) {
      const alone = await gather(recordedFactsConnection(made), [fact]);
      expect(together.get(fact.key), fact.key).toEqual(alone.get(fact.key));
    }
    expect(together.get(motd.key)).toMatchObject({ exists: true, content: 'hello\n' });
    expect(together.get(big.key)).toMatchObject({ exists: true, sha256: 'a'.repeat(64) });
    expect(together.get(ports.key)).toEqual({ present: true, value: '32768 60999' });
    expect(together.get(ssh.key)).toMatchObject({ activeState: 'active' });
    expect(together.get(curl.key)).toMatchObject({ installed: true, version: '8.14.1-2' });
    expect(together.get(docker.key)).toMatchObject({ installed: false });
  });

  it('answers from a real recording (a fresh Debian host)', async () => {
    const recording = readRecording('empty-debian', 'kcrec1');
    const facts = await gather(recordedFactsConnection(recording), [
      fileState('/etc/kubernetes/pki/ca.key', { content: true }),
      sysctlValue('net.ipv4.ip_forward'),
      systemdUnit('kubelet.service'),
    ]);
    expect(facts.get('file:/etc/kubernetes/pki/ca.key')).toMatchObject({ exists: false });
    expect(facts.get('systemd:kubelet.service')).toMatchObject({ loadState: 'not-found' });
  });

  it("refuses a fact the recording does not hold, naming the role, the fact's script and the recording", async () => {
    const unknown = { key: 'uptime', script: sh`cat /proc/uptime`, parse: (s: string) => s };
    await expect(gather(recordedFactsConnection(made), [unknown])).rejects.toThrow(UnrecordedFactError);
    await expect(gather(recordedFactsConnection(made), [forward, unknown])).rejects.toThrow(
      /^role some-role asks for a fact section that test\/made-up\.json does not hold: cat \/proc\/uptime .*npm run record:facts/,
    );
    // One unrecorded file among recorded ones: the group read as a whole cannot be answered.
    await expect(gather(recordedFactsConnection(made), [motd, fileState('/etc/shadow', { content: true })])).rejects.toThrow(
      /role some-role asks for a fact section that test\/made-up\.json does not hold: .*\/etc\/shadow/,
    );
  });

  it('runs no command, writes, uploads or downloads nothing', async () => {
    const connection = recordedFactsConnection(made);
    await expect(connection.exec(sh`systemctl restart kubelet`, { label: 'task:restart' })).rejects.toThrow(
      'h1: a plan over recorded facts must not run a command (task:restart): systemctl restart kubelet',
    );
    await expect(connection.exec(sh`cat /proc/uptime`, { label: 'facts:x' })).rejects.toThrow(/must not run a command \(facts:x\)/);
    await expect(connection.writeFile('/etc/motd', 'x', { mode: 0o644 })).rejects.toThrow('must not write /etc/motd');
    await expect(connection.uploadFile('/tmp/x', '/usr/local/bin/x', { mode: 0o755, sha256: 'a'.repeat(64) })).rejects.toThrow(
      'must not upload /usr/local/bin/x',
    );
    await expect(connection.downloadFile('/var/lib/etcd/snap', '/tmp/snap')).rejects.toThrow('must not download');
  });

  it('a role that asks for a fact section no recording holds fails the plan, which names the fact', async () => {
    const plan = await planOverRecording('empty-debian', {}, (host) => {
      const recording = readRecording('empty-debian', host);
      const { ['systemd:kubelet.service']: _dropped, ...facts } = recording.facts;
      return host === 'kcrec2' ? { ...recording, facts } : recording;
    });
    expect(plan.failures).toEqual([
      expect.stringMatching(
        /^kcrec2: .*role kubelet-started asks for fact systemd:kubelet\.service that test\/fixtures\/facts\/empty-debian\/kcrec2\.json does not hold: systemctl show .* kubelet\.service .*npm run record:facts/,
      ),
    ]);
  }, 60_000);

  it('names the facts of a group read the recording lacks, and a fact recorded with another script', async () => {
    const shadow = fileState('/etc/shadow', { content: true });
    const changed = { ...forward, script: sh`echo present; echo 1` };
    await expect(
      gather(
        recordedFactsConnection(made, () => [motd, shadow]),
        [motd, shadow],
      ),
    ).rejects.toThrow(/^role some-role asks for fact file:\/etc\/shadow that test\/made-up\.json does not hold: /);
    await expect(
      gather(
        recordedFactsConnection(made, () => [changed]),
        [changed],
      ),
    ).rejects.toThrow(/^role some-role asks for fact sysctl:net\.ipv4\.ip_forward \(recorded with another script\) that test\/made-up\.json does not hold/);
  });
});
