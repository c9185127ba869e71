import type { MikroORM } from "@mikro-orm/postgresql";
import { forkEm, type JobSpec } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { sweepExpiredTokens } from "../use-cases/tokens/sweep-expired-tokens.js";

/** Deletes long-expired API tokens, ended sessions and expired reset tokens, every `intervalMs` (one replica at a time). */
export function sweepExpiredTokensJob(orm: MikroORM, deps: UseCaseDeps, intervalMs: number): JobSpec {
  return {
    name: "sweep-expired-tokens",
    intervalMs,
    run: () => sweepExpiredTokens(forkEm(orm), deps),
  };
}
