// An authoritative DNS server for one zone, for the end-to-end tests (test-only, not part of
// kcluster): answers A queries for any name in the zone with one fixed address over UDP on the
// lab bridge's address, other types in the zone with no record, names outside it with REFUSED,
// and counts the questions it answered, so a test can show a query reached it (a CoreDNS stub domain).
import { createSocket, type RemoteInfo } from 'node:dgram';

export interface TestDnsServer {
  readonly address: string;
  readonly port: number;
  /** Names asked for, in the order they came. */
  readonly asked: string[];
  close(): Promise<void>;
}

/** The question's name, type and where it ends in the message, or undefined for a malformed one. */
function question(msg: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length) {
    const length = msg[at]!;
    if (length === 0) break;
    if (length > 63 || at + 1 + length > msg.length) return undefined;
    labels.push(
      msg
        .subarray(at + 1, at + 1 + length)
        .toString('latin1')
        .toLowerCase(),
    );
    at += 1 + length;
  }
  if (at + 5 > msg.length) return undefined;
  return { name: labels.join('.'), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

/** The reply to a query with one question and that question's name, or undefined for a malformed query. */
function answer(query: Buffer, zone: string, ip: string): { reply: Buffer; name: string } | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const q = question(query);
  if (q === undefined) return undefined;
  const inZone = q.name === zone || q.name.endsWith(`.${zone}`);
  const withA = inZone && q.type === 1;
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, AA, the query's RD; RCODE 0 (no error) or 5 (refused).
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | (inZone ? 0 : 5), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(withA ? 1 : 0, 6);
  const parts = [header, query.subarray(12, q.end)];
  if (withA) {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the question's name
    record.writeUInt16BE(1, 2); // A
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(5, 6); // TTL
    record.writeUInt16BE(4, 10);
    ip.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    parts.push(record);
  }
  return { reply: Buffer.concat(parts), name: q.name };
}

export async function startTestDnsServer(address: string, zone: string, ip: string): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (msg: Buffer, from: RemoteInfo) => {
    const answered = answer(msg, zone.toLowerCase(), ip);
    if (answered === undefined) return;
    asked.push(answered.name);
    socket.send(answered.reply, from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => socket.once('error', reject).bind(0, address, resolve));
  return {
    address,
    port: socket.address().port,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
