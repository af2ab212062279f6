// The minimal base layer every image but pause shares: users and groups (root, nonroot 65532,
// nobody), a writable /tmp, /var/run, and name resolution through files then DNS.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeBaseLayer(dir: string): void {
  for (const d of ['etc', 'tmp', 'var/run']) mkdirSync(join(dir, d), { recursive: true });
  chmodSync(join(dir, 'tmp'), 0o1777);
  writeFileSync(
    join(dir, 'etc/passwd'),
    'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n',
  );
  writeFileSync(join(dir, 'etc/group'), 'root:x:0:\nnonroot:x:65532:\nnogroup:x:65534:\n');
  writeFileSync(join(dir, 'etc/nsswitch.conf'), 'hosts: files dns\n');
}
