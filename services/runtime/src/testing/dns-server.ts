import { createSocket } from "node:dgram";
import { isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";

/** One question the server was asked. */
export interface DnsQuery {
  /** Lower-case, without the trailing dot. */
  name: string;
  type: "A" | "AAAA" | "other";
}

/**
 * The addresses a name has now (IPv4 and IPv6 mixed; each question answers those of its type); an
 * empty list: the name does not exist. `asked`: how often this name was asked for this type before.
 */
export type DnsAnswers = (name: string, asked: number) => string[];

export interface TestDnsServer {
  /** `127.0.0.1:port`, as IMPRINT_FETCH_DNS_SERVERS and dns.setServers take it. */
  address: string;
  /** Every question so far, in order. */
  queries: DnsQuery[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/** The question's name and type, and where the question section ends. */
function readQuestion(message: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset]!;
    if (length === 0) break;
    // Compression pointers never appear in a question a stub resolver sends.
    if (length > 63) return undefined;
    labels.push(message.toString("latin1", offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  if (offset + 5 > message.length) return undefined;
  return { name: labels.join(".").toLowerCase(), type: message.readUInt16BE(offset + 1), end: offset + 5 };
}

function record(type: number, address: string): Buffer {
  const data = Buffer.from(ipaddr.parse(address).toByteArray());
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0xc00c, 0); // the question's name
  header.writeUInt16BE(type, 2);
  header.writeUInt16BE(1, 4); // IN
  header.writeUInt32BE(0, 6); // TTL 0: nothing cached between questions
  header.writeUInt16BE(data.length, 10);
  return Buffer.concat([header, data]);
}

/**
 * A DNS server on loopback (UDP) for tests of what resolves names: it answers A and AAAA questions
 * from `answers` (called per question, so a name may answer differently each time: rebinding),
 * NXDOMAIN for a name without addresses, and records every question.
 */
export async function startTestDnsServer(answers: DnsAnswers): Promise<TestDnsServer> {
  const socket = createSocket("udp4");
  const queries: DnsQuery[] = [];
  const asked = new Map<string, number>();
  socket.on("message", (message, peer) => {
    const question = readQuestion(message);
    if (!question || message.length < 12) return;
    const type = question.type === TYPE_A ? "A" : question.type === TYPE_AAAA ? "AAAA" : "other";
    queries.push({ name: question.name, type });
    const key = `${type} ${question.name}`;
    const count = asked.get(key) ?? 0;
    asked.set(key, count + 1);
    const addresses = answers(question.name, count);
    const matching = addresses.filter((address) => (question.type === TYPE_A ? isIPv4(address) : question.type === TYPE_AAAA && isIPv6(address)));
    const header = Buffer.alloc(12);
    message.copy(header, 0, 0, 2); // id
    // QR, the question's RD, RA; NXDOMAIN when the name has no address at all.
    header.writeUInt16BE(0x8080 | (message.readUInt16BE(2) & 0x0100) | (addresses.length === 0 ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(matching.length, 6);
    const reply = Buffer.concat([header, message.subarray(12, question.end), ...matching.map((address) => record(question.type, address))]);
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
