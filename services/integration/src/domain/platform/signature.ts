import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Imprint's signature of the requests it posts outside its own network (a developer's tunnel in
 * development mode, any external endpoint an integration is reached at), so the receiver can tell
 * them from anyone else's. GitBook publishes no scheme for its dispatcher; this one is Imprint's:
 *
 *   X-GitBook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of `${t}.` followed by the body bytes>
 *
 * keyed with the integration's signing secret, the one its script receives as
 * `environment.signingSecrets.integration`. The timestamp is signed with the body so a captured
 * request cannot be replayed once it is older than the receiver's tolerance.
 */
export const SIGNATURE_HEADER = "X-GitBook-Signature";

const encoder = new TextEncoder();

const bytesOf = (body: Uint8Array | string): Uint8Array => (typeof body === "string" ? encoder.encode(body) : body);

function digest(timestamp: number, body: Uint8Array, secret: string): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
}

/** The header value signing `body` at `now`. */
export function signDispatch(body: Uint8Array | string, secret: string, now: Date): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  return `t=${timestamp},v1=${digest(timestamp, bytesOf(body), secret).toString("hex")}`;
}

/** `t` and every `v1` of a header value, or null when it is not one. */
function parseSignature(header: string): { timestamp: number; signatures: Buffer[] } | null {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const item of header.split(",")) {
    const [key, value, ...rest] = item.trim().split("=");
    if (rest.length > 0 || value === undefined) return null;
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    // Several v1 entries let a receiver accept a request signed with either of two secrets while one is rotated.
    else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, "hex"));
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * Whether `header` signs `body` with `secret` and was made within `toleranceSeconds` of `now`
 * (either way, so a clock ahead of the receiver's does not open a longer replay window).
 */
export function verifyDispatchSignature(
  header: string | null | undefined,
  body: Uint8Array | string,
  secret: string,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  if (!header) return false;
  const parsed = parseSignature(header);
  if (!parsed) return false;
  if (Math.abs(now.getTime() / 1000 - parsed.timestamp) > toleranceSeconds) return false;
  const expected = digest(parsed.timestamp, bytesOf(body), secret);
  return parsed.signatures.some((given) => timingSafeEqual(given, expected));
}
