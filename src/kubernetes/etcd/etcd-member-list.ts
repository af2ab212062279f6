// A fact: etcd's members as one control plane's own member lists them (no health check: a
// dead member would cost the check its timeout on every run).
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { parseMemberList, type ListedMember } from './etcd-members.js';
import { ETCDCTL } from './etcdctl.js';

export type EtcdMemberList = { readonly listed: true; readonly members: readonly ListedMember[] } | { readonly listed: false; readonly detail: string };

export const etcdMemberList: Fact<EtcdMemberList> = {
  key: 'etcd:member-list',
  become: true,
  script: sh`if out=$(${ETCDCTL} --dial-timeout=3s --command-timeout=10s member list -w simple 2>&1); then echo listed; printf '%s\n' "$out"; else echo failed; printf '%s\n' "$out" | tail -n 2; fi`,
  parse: (stdout) => {
    const [head = '', ...rest] = stdout.split('\n');
    return head.trim() === 'listed'
      ? { listed: true, members: parseMemberList(rest.join('\n')) }
      : { listed: false, detail: rest.join(' ').trim().slice(0, 300) };
  },
};
