// The first step of a CA rotation: the new CAs (or service-account key pair) made on the controller, in the state folder's
// rotation/next/, then the state recorded at its first phase. No host has seen the new CAs
// before the state names them, so an interruption in between only means new ones next time.
import { join } from 'node:path';
import { CA_REQUESTS } from './cluster-pki.js';
import { newRsaKeyPair } from './key-pair.js';
import { PkiFiles } from './pki-files.js';
import { signCertificate } from './sign-certificate.js';
import { rotationDir, SERVICE_ACCOUNT_KEY, writeCaRotation, type CaRotation, type Rotated } from './ca-rotation.js';

export async function startCaRotation(stateDir: string, cas: readonly Rotated[], now: Date): Promise<CaRotation> {
  const next = new PkiFiles(join(rotationDir(stateDir), 'next'));
  await Promise.all(
    cas.map(async (ca) => {
      if (ca === SERVICE_ACCOUNT_KEY) {
        const pair = await newRsaKeyPair();
        await next.write('sa.key', pair.privateKey, 0o600);
        await next.write('sa.pub', pair.publicKey, 0o644);
        return;
      }
      const request = CA_REQUESTS.find((r) => r.file === ca);
      if (request === undefined) throw new Error(`no CA ${ca} in the cluster PKI`);
      const pair = await newRsaKeyPair();
      await next.write(`${ca}.key`, pair.privateKey, 0o600);
      await next.write(`${ca}.crt`, signCertificate(request, pair.publicKey, pair.privateKey), 0o644);
    }),
  );
  const rotation: CaRotation = { cas: [...cas], phase: 'trust-new', startedAt: now.toISOString() };
  await writeCaRotation(stateDir, rotation);
  return rotation;
}
