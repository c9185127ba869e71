import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@imprint/runtime";

/** The signature headers a repository host sends with a push webhook (absent: empty). */
export interface WebhookSignatures {
  /** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. */
  github: string;
  /** GitLab: `X-Gitlab-Token: <the secret itself>`. */
  gitlab: string;
  /** Gitea: `X-Gitea-Signature: <hex HMAC-SHA256 of the body>`. */
  gitea: string;
  /** Forgejo: `X-Forgejo-Signature: <hex HMAC-SHA256 of the body>`. */
  forgejo: string;
}

const hmacHex = (secret: string, body: Uint8Array) => createHmac("sha256", secret).update(body).digest();

/** Constant-time comparison of two byte strings of any length (hashed first, so lengths leak nothing). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

/** A hex signature's bytes, or null when it is not hex of an HMAC-SHA256's length. */
const hexBytes = (value: string): Buffer | null => (/^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, "hex") : null);

/**
 * Which host signed the body with `secret`: GitHub's, Gitea's and Forgejo's HMAC-SHA256 of the raw
 * body, GitLab's token equal to the secret, all compared in constant time. A body that carries no
 * signature, or one that does not match, is unauthenticated.
 */
export function verifyWebhook(secret: string, body: Uint8Array, signatures: WebhookSignatures): "github" | "gitlab" | "gitea" | "forgejo" {
  const expected = hmacHex(secret, body);
  if (signatures.github) {
    const given = signatures.github.startsWith("sha256=") ? hexBytes(signatures.github.slice("sha256=".length)) : null;
    if (given && sameBytes(given, expected)) return "github";
  } else if (signatures.gitea || signatures.forgejo) {
    const header = signatures.forgejo || signatures.gitea;
    const given = hexBytes(header);
    if (given && sameBytes(given, expected)) return signatures.forgejo ? "forgejo" : "gitea";
  } else if (signatures.gitlab) {
    if (sameBytes(Buffer.from(signatures.gitlab, "utf8"), Buffer.from(secret, "utf8"))) return "gitlab";
  } else {
    throw AppError.unauthenticated("webhook: not signed (X-Hub-Signature-256, X-Gitlab-Token, X-Gitea-Signature or X-Forgejo-Signature)");
  }
  throw AppError.unauthenticated("webhook: the signature does not match the connection's webhook secret");
}

/** What a push webhook says: the ref pushed and the commit it now points at (GitHub, GitLab, Gitea and Forgejo alike). */
export interface PushPayload {
  ref: string;
  after: string;
}

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const DELETED = /^0+$/;

/** The push a webhook body describes; null for other events (a ping, a tag or branch deletion). Refuses a body that is not JSON. */
export function parsePushPayload(body: Uint8Array): PushPayload | null {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body).toString("utf8"));
  } catch {
    throw AppError.invalidArgument("body: must be a push event in JSON");
  }
  if (typeof payload !== "object" || payload === null) throw AppError.invalidArgument("body: must be a push event in JSON");
  const { ref, after } = payload as { ref?: unknown; after?: unknown };
  if (typeof ref !== "string" || typeof after !== "string" || !OID.test(after) || DELETED.test(after)) return null;
  return { ref, after };
}
