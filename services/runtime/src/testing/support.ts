import { randomBytes } from "node:crypto";
import type { ServiceDefinition } from "@grpc/grpc-js";
import { ensureDatabaseExists } from "../db/orm.js";
import { createIdentityClients, type IdentityClients } from "../access/identity-clients.js";
import { createPromiseClient, type PromiseClient } from "../grpc/client.js";
import { patient } from "./time.js";

/** A gRPC client for tests: the runtime's client, with its deadline scaled for a busy machine. */
export function testClient<Def extends ServiceDefinition>(definition: Def, address: string, options: { defaultTimeoutMs?: number } = {}): PromiseClient<Def> {
  return createPromiseClient(definition, address, { defaultTimeoutMs: patient(options.defaultTimeoutMs ?? 10_000) });
}

/** Clients of identity's services for a test, with the same deadlines as `testClient`. */
export function testIdentityClients(address: string, options: { defaultTimeoutMs?: number } = {}): IdentityClients {
  return createIdentityClients(address, { defaultTimeoutMs: patient(options.defaultTimeoutMs ?? 10_000) });
}

/** Creates a fresh, uniquely named database on the shared test server and returns its URL. */
export async function createTestDatabase(pgAdminUrl: string, prefix: string): Promise<string> {
  const url = new URL(pgAdminUrl);
  url.pathname = `/${prefix}_${randomBytes(6).toString("hex")}`;
  await ensureDatabaseExists(url.toString());
  return url.toString();
}

/**
 * Polls `probe` until it returns a truthy value; fails once `timeoutMs` (scaled for the machine, see
 * TEST_TIME_SCALE) has passed without it.
 */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 5_000, intervalMs = 25): Promise<T> {
  timeoutMs = patient(timeoutMs);
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
