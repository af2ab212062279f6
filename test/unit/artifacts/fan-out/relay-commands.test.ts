import { describe, expect, it } from 'vitest';
import {
  fetchTimeoutSeconds,
  hostPort,
  newRelayToken,
  parseServeOutput,
  relayFetchCommand,
  relayServeCommand,
} from '../../../../src/kubernetes/artifacts/fan-out/relay-commands.js';

const file = { path: '/var/lib/kcluster/images/pause-3.10.2.ab12cd34.tar', sha256: 'c'.repeat(64), size: 300 << 20 };

describe('kcluster-relay commands', () => {
  it('serves on the node address with an ephemeral port, the token never on the command line', () => {
    const token = newRelayToken();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const text = relayServeCommand(file, '10.231.28.11', true).text;
    expect(text).toContain('serve -listen 10.231.28.11:0 -file /var/lib/kcluster/images/pause-3.10.2.ab12cd34.tar');
    expect(text).toContain('-idle 45s -lifetime 15m');
    expect(text).toContain('-remove-on-exit');
    expect(text).not.toContain(token);
    expect(relayServeCommand(file, '10.231.28.11', false).text).not.toContain('-remove-on-exit');
  });

  it('reads the port, or why there is none', () => {
    expect(parseServeOutput('port 41234\n')).toEqual({ port: 41234 });
    expect(parseServeOutput('no-relay: /usr/local/bin/kcluster-relay is missing\n')).toEqual({ problem: '/usr/local/bin/kcluster-relay is missing' });
    expect(parseServeOutput('')).toEqual({ problem: 'the relay printed nothing' });
  });

  it('fetches with the expected size and sum, a timeout that grows with the size, IPv6 in brackets', () => {
    expect(fetchTimeoutSeconds(300 << 20)).toBe(120 + 38);
    expect(hostPort('fd00::5', 4000)).toBe('[fd00::5]:4000');
    const text = relayFetchCommand(file, '10.231.28.12:41234', '0600').text;
    expect(text).toBe(
      `/usr/local/bin/kcluster-relay fetch -from 10.231.28.12:41234 -sha256 ${'c'.repeat(64)} -size ${300 << 20} -out /var/lib/kcluster/images/pause-3.10.2.ab12cd34.tar -mode 0600 -timeout 158s`,
    );
  });
});
