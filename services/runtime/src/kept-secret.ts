import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/** Whether a file system error means "not allowed here" (a setting to change), not a fault. */
export function isPermissionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EACCES" || code === "EPERM" || code === "EROFS";
}

/**
 * A secret key: the configured one, else the one kept in `<dataDir>/<fileName>`, else a new one
 * (`generate`; by default 32 random bytes, base64url) written there (0600) so that restarts,
 * replicas and launchers sharing the data directory agree. `setting` names the variable an
 * operator sets instead; `service` names who needs it in the error an unwritable directory gets.
 */
export async function resolveKeptSecret(options: {
  configured: string | undefined;
  dataDir: string;
  fileName: string;
  service: string;
  setting: string;
  generate?: () => string;
}): Promise<string> {
  if (options.configured) return options.configured;
  const file = join(resolve(options.dataDir), options.fileName);
  const kept = (await readFile(file, "utf8").catch(() => "")).trim();
  if (kept) return kept;
  const secret = options.generate?.() ?? randomBytes(32).toString("base64url");
  // Written whole to a file of this call's own, then linked under the kept name: a link is created
  // whole or not at all, so a process starting beside this one reads the first key in full, never
  // a file still being written (replicas started at once failed on a partial key).
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(temporary, `${secret}\n`, { mode: 0o600, flag: "wx" });
    await link(temporary, file);
    return secret;
  } catch (error) {
    if (isPermissionError(error)) {
      throw new Error(
        `the ${options.service} service cannot write its key to ${file} (${(error as NodeJS.ErrnoException).code}): make the directory writable, set IMPRINT_DATA_DIR to one that is, or set ${options.setting}`,
        { cause: error },
      );
    }
    // Another process kept its key first: this one uses it.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readFile(file, "utf8")).trim();
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
