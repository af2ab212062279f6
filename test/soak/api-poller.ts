// The API servers sampled throughout a step: every 250 ms an HTTPS request to each control
// plane's :6443/version. Any HTTP answer counts (the rotations change the credentials under
// way; what is measured is whether an API server answers at all); a sample where none answers
// is a failure. /version, not /readyz: readyz waits on etcd's check, which takes seconds while
// a member restarts (a 2-member etcd during an upgrade), and would count a serving API server
// as down. The counts are reported per step.
import { request } from 'node:https';

export interface ApiAnswers {
  samples: number;
  noneAnswered: number;
  someDown: number;
}

function answers(address: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: address, port: 6443, path: '/version', method: 'GET', rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

export function pollApiServers(addresses: readonly string[]): { readonly counts: ApiAnswers; stop(): Promise<void> } {
  const counts: ApiAnswers = { samples: 0, noneAnswered: 0, someDown: 0 };
  let polling = true;
  const loop = (async () => {
    while (polling) {
      const up = (await Promise.all(addresses.map((a) => answers(a, 2_000)))).filter(Boolean).length;
      counts.samples++;
      if (up === 0) counts.noneAnswered++;
      if (up < addresses.length) counts.someDown++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    counts,
    stop: async () => {
      polling = false;
      await loop;
    },
  };
}
