// The data directory: created with the permissions the embedded PostgreSQL needs, and the secrets
// the launcher keeps there (the bootstrap token, the gateway's page-token secret) with the runtime's
// kept-secret logic, so two launchers starting at once agree on one.
import { randomInt } from "node:crypto";
import { statSync } from "node:fs";
import { chmod, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { runtimeModule } from "./runtime-modules.mjs";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function randomBase62(length) {
  let text = "";
  for (let i = 0; i < length; i++) text += BASE62[randomInt(BASE62.length)];
  return text;
}

/** A fresh API token secret in Imprint's format: `imp_` + 40 base62 characters. */
export function generateTokenSecret() {
  return `imp_${randomBase62(40)}`;
}

/** The setting when set, else the secret kept in `<dataDir>/<fileName>`, else a new one from `generate` written there (0600). */
async function keptSecret({ configured, dataDir, fileName, setting, generate }) {
  const { resolveKeptSecret } = await runtimeModule("index.js");
  return resolveKeptSecret({ configured, dataDir, fileName, service: "launcher", setting, generate });
}

/** The first-run token: IMPRINT_BOOTSTRAP_TOKEN when set, else the one kept in `<data>/bootstrap-token`. */
export async function resolveBootstrapToken(dataDir, env = process.env) {
  if (env.IMPRINT_BOOTSTRAP_TOKEN) return { token: env.IMPRINT_BOOTSTRAP_TOKEN, source: "IMPRINT_BOOTSTRAP_TOKEN" };
  const token = await keptSecret({
    configured: undefined,
    dataDir,
    fileName: "bootstrap-token",
    setting: "IMPRINT_BOOTSTRAP_TOKEN",
    generate: generateTokenSecret,
  });
  return { token, source: join(dataDir, "bootstrap-token") };
}

/**
 * The gateway's list-cursor signing secret: IMPRINT_PAGE_TOKEN_SECRET when set, else the one kept
 * in `<data>/page-token-secret` (48 base62 characters), so cursors handed out survive a restart.
 */
export async function resolvePageTokenSecret(dataDir, env = process.env) {
  return keptSecret({
    configured: env.IMPRINT_PAGE_TOKEN_SECRET,
    dataDir,
    fileName: "page-token-secret",
    setting: "IMPRINT_PAGE_TOKEN_SECRET",
    generate: () => randomBase62(48),
  });
}

/**
 * Creates the data dir (0755: the postgres OS user must traverse it) and, when it will hold the
 * embedded PostgreSQL, checks its parents.
 */
export async function prepareDataDir(dataDir, { embeddedPostgres = true } = {}) {
  const { isPermissionError } = await runtimeModule("index.js");
  try {
    await mkdir(dataDir, { recursive: true });
    await chmod(dataDir, 0o755);
  } catch (error) {
    if (!isPermissionError(error)) throw error;
    throw new Error(`cannot create or use the data directory ${dataDir} (${error.code}): set IMPRINT_DATA_DIR to a directory you own`, { cause: error });
  }
  if (embeddedPostgres && process.getuid?.() === 0) {
    // As root, PostgreSQL runs as the `postgres` user, which needs search permission on every parent.
    for (let dir = resolve(dataDir); dir !== dirname(dir); dir = dirname(dir)) {
      if ((statSync(dirname(dir)).mode & 0o001) === 0) {
        throw new Error(
          `the data directory ${dataDir} is inside ${dirname(dir)}, which other users cannot traverse; the embedded PostgreSQL runs as the "postgres" user: set IMPRINT_DATA_DIR to a directory outside it (e.g. /var/lib/imprint)`,
        );
      }
    }
  }
}
