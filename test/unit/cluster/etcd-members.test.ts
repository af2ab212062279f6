import { describe, expect, it } from 'vitest';
import { parseEndpointHealth, parseMemberList, quorumProblem, type EtcdMember } from '../../../src/kubernetes/etcd/etcd-members.js';

const member = (name: string, healthy: boolean): EtcdMember => ({
  id: `${name}1d`,
  name,
  clientUrls: [`https://${name}:2379`],
  peerUrls: [`https://${name}:2380`],
  learner: false,
  healthy,
});

describe('etcd membership', () => {
  it('parses member list -w simple with hex IDs intact', () => {
    const members = parseMemberList(
      '8e9e05c52164694d, started, cp1, https://10.0.0.1:2380, https://10.0.0.1:2379, false\nfd422379fda50e48, started, cp2, https://10.0.0.2:2380, https://10.0.0.2:2379 https://127.0.0.1:2379, false\na8266ecf031671f3, unstarted, , https://10.0.0.3:2380, , true\n',
    );
    expect(members).toEqual([
      { id: '8e9e05c52164694d', name: 'cp1', peerUrls: ['https://10.0.0.1:2380'], clientUrls: ['https://10.0.0.1:2379'], learner: false },
      {
        id: 'fd422379fda50e48',
        name: 'cp2',
        peerUrls: ['https://10.0.0.2:2380'],
        clientUrls: ['https://10.0.0.2:2379', 'https://127.0.0.1:2379'],
        learner: false,
      },
      { id: 'a8266ecf031671f3', name: '', peerUrls: ['https://10.0.0.3:2380'], clientUrls: [], learner: true },
    ]);
    expect(() => parseMemberList('Error: context deadline exceeded')).toThrow(/unexpected etcdctl member list line/);
  });

  it('parses endpoint health JSON, unhealthy endpoints included', () => {
    const health = parseEndpointHealth(
      '[{"endpoint":"https://10.0.0.1:2379","health":true,"took":"2ms"},{"endpoint":"https://10.0.0.2:2379","health":false,"error":"timeout"}]',
    );
    expect([...health]).toEqual([
      ['https://10.0.0.1:2379', true],
      ['https://10.0.0.2:2379', false],
    ]);
  });

  it('allows a removal only when the members left keep a healthy majority', () => {
    expect(quorumProblem([member('a', true), member('b', true), member('c', true)], 'c')).toBeUndefined();
    expect(quorumProblem([member('a', true), member('b', true)], 'b')).toBeUndefined();
    // 3 members, one already down: removing a healthy one leaves 1 healthy of 2.
    expect(quorumProblem([member('a', true), member('b', false), member('c', true)], 'c')).toMatch(
      /1 of 2 remaining etcd members would be healthy, and quorum needs 2 \(unhealthy: b\)/,
    );
    // Removing the sick one is fine.
    expect(quorumProblem([member('a', true), member('b', false), member('c', true)], 'b')).toBeUndefined();
    expect(quorumProblem([member('a', true)], 'a')).toMatch(/only etcd member/);
    expect(quorumProblem([member('a', true)], 'not-a-member')).toBeUndefined();
  });
});
