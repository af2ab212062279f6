// A server at its MaxSessions refuses a new session channel with "open failed". OpenSSH frees a
// session a moment after it closes the channel, so even below the limit a busy connection can
// meet that refusal; kcluster tries the channel again, a little later each time, for about 3 s.
// Here against a real sshd on 127.0.0.1 with MaxSessions lowered below kcluster's channels (8)
// and guard session (1): commands still all run once sessions free up, and a server that never
// frees one is reported with what to change.
import { afterEach, describe, expect, it } from 'vitest';
import { createSshConnector, type SshConnector } from '../../../src/orchestrator/ssh/connector.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { startSshd, type TestSshd } from './support/sshd.js';
import { endpoint, host, setup } from './support/inventory.js';

let sshd: TestSshd | undefined;
let connector: SshConnector | undefined;

async function connectWithMaxSessions(maxSessions: number) {
  sshd = await startSshd({ maxSessions });
  const node = host('node1', endpoint(sshd));
  const { inventory, policy } = setup([node]);
  connector = createSshConnector({ inventory, env: {}, hostKeys: policy });
  return connector.connect(node);
}

afterEach(async () => {
  await connector?.closeAll();
  await sshd?.stop();
});

describe('session channels the server refuses (real sshd)', () => {
  it('runs every command when the server takes fewer sessions than kcluster opens: the refused ones are tried again', async () => {
    const connection = await connectWithMaxSessions(5);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => connection.exec(sh`sleep 0.3; echo ${i}`)));
    expect(results.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
  });

  it('reports a server that keeps refusing, naming MaxSessions', async () => {
    // One session for the guard, one for a long command: the second command finds none for its ~3 s of tries.
    const connection = await connectWithMaxSessions(2);
    const long = connection.exec(sh`sleep 6; echo done`);
    await new Promise((r) => setTimeout(r, 300));
    await expect(connection.exec(sh`echo second`, { label: 'the second command' })).rejects.toThrow(
      /node1: unreachable: the server refused a new channel for the second command: .*open failed.*refused 8 times: kcluster keeps up to 9 sessions open.*raise MaxSessions in the host's sshd_config/,
    );
    expect((await long).stdout).toBe('done\n');
  }, 20_000);
});
