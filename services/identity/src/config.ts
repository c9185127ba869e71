import { z } from "zod";
import { env, loadConfig, serviceConfigShape } from "@imprint/runtime";
import { DEFAULT_AUDIT_RETENTION_DAYS } from "./domain/audit-event.js";
import { CHOSEN_SECRET_PATTERN } from "./domain/tokens.js";

/** The shared service settings, the optional first-run bootstrap, the expired tokens' sweep, the audit log's retention, password lockout, sessions and OpenID providers' fetches. */
export const identityConfigShape = {
  ...serviceConfigShape,
  /** When set and there is no organization yet, the first organization's owner gets this exact token. */
  IMPRINT_BOOTSTRAP_TOKEN: z.string().regex(CHOSEN_SECRET_PATTERN, 'must start with "imp_" followed by 8 to 200 letters, digits, "-" or "_"').optional(),
  IMPRINT_BOOTSTRAP_ORG_TITLE: z.string().trim().min(2).max(255).default("My organization"),
  IMPRINT_BOOTSTRAP_EMAIL: z.string().trim().toLowerCase().email().default("admin@imprint.local"),
  /** How often tokens that expired more than a day ago are deleted. */
  TOKEN_SWEEP_INTERVAL_MS: env.positiveInt(60 * 60 * 1000),
  /** How many days an audit entry is kept (from when its change occurred). */
  AUDIT_RETENTION_DAYS: env.positiveInt(DEFAULT_AUDIT_RETENTION_DAYS),
  /** How often audit entries older than the retention are deleted. */
  AUDIT_PRUNE_INTERVAL_MS: env.positiveInt(60 * 60 * 1000),
  /** Failed password sign-ins in a row that lock an account. */
  PASSWORD_LOCKOUT_FAILURES: env.positiveInt(10),
  /** How long a locked account refuses sign-ins, right password or not. */
  PASSWORD_LOCKOUT_MS: env.positiveInt(15 * 60 * 1000),
  /** A session unused this long ends (8 hours: a working day). */
  SESSION_IDLE_MS: env.positiveInt(8 * 60 * 60 * 1000),
  /** A session ends this long after its sign-in, used or not (30 days). */
  SESSION_MAX_MS: env.positiveInt(30 * 24 * 60 * 60 * 1000),
  /** Where the secrets key is kept when IDENTITY_SECRETS_KEY is unset. */
  IMPRINT_DATA_DIR: z.string().min(1).default("./data"),
  /** AES-256-GCM key for OpenID providers' client secrets at rest: 32 bytes, base64 or base64url; unset: generated once and kept in the data directory. */
  IDENTITY_SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, "base64").length === 32, "must be 32 bytes in base64")
    .optional(),
  /** Lets OpenID providers' issuers be http URLs and private, loopback or link-local addresses (tests and local development). */
  IMPRINT_ALLOW_PRIVATE_FETCH: env.boolean(false),
  /** DNS servers the fetch guard asks for OpenID providers' hosts (comma-separated `address[:port]`); empty: the system resolver. */
  IMPRINT_FETCH_DNS_SERVERS: env.dnsServers(),
};

export type IdentityConfig = z.infer<z.ZodObject<typeof identityConfigShape>>;

export function loadIdentityConfig(env: Record<string, string | undefined> = process.env): IdentityConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  return loadConfig(identityConfigShape, present);
}
