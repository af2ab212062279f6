// The one definition of the generic workload for kcluster; ansible/playbook.yml and
// pyinfra/deploy.py do the same work (same files, packages, units, sysctls) on their own paths.
const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

export const workload = {
  payload: 'x'.repeat(200),
  files: range(15).map((i) => ({ index: i, path: `/etc/kcbench/file-${String(i).padStart(2, '0')}.conf` })),
  units: range(5).map((i) => ({ index: i, name: `kcbench-${i}.service`, path: `/etc/systemd/system/kcbench-${i}.service` })),
  packages: ['coreutils', 'procps', 'iproute2', 'openssh-server', 'sudo'],
  sysctls: [
    { key: 'net.ipv4.conf.all.log_martians', value: '1' },
    { key: 'net.ipv4.conf.default.log_martians', value: '1' },
    { key: 'net.ipv4.conf.all.accept_redirects', value: '0' },
    { key: 'net.ipv4.conf.default.accept_redirects', value: '0' },
    { key: 'net.ipv4.tcp_syncookies', value: '1' },
  ].map((s, i) => ({ ...s, file: `/etc/sysctl.d/9${i}-kcbench.conf` })),
};
