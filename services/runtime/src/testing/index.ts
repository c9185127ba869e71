import { randomBytes } from "node:crypto";
import { ensureDatabaseExists } from "../db/orm.js";

/** Creates a fresh, uniquely named database on the shared test server and returns its URL. */
export async function createTestDatabase(pgAdminUrl: string, prefix: string): Promise<string> {
  const url = new URL(pgAdminUrl);
  url.pathname = `/${prefix}_${randomBytes(6).toString("hex")}`;
  await ensureDatabaseExists(url.toString());
  return url.toString();
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 5_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`, { cause: lastError });
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The AppError code a call failed with ("ok" when it succeeded). */
export async function errorCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** The AppError a call failed with; fails the test when it succeeded. */
export async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected the call to fail");
}
