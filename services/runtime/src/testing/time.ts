// No imports: vitest.config.ts reads this too.

/**
 * How much slower than an idle developer machine a test run may be: a CI machine runs the suite on
 * two busy cores. Every wait of the tests (polling ceilings, gRPC deadlines of test clients, vitest's
 * own timeouts) is a ceiling multiplied by this, never a window that passing tests sit out: waits end
 * as soon as the awaited state is there. `IMPRINT_TEST_TIME_SCALE` overrides it.
 */
export const TEST_TIME_SCALE = testTimeScale(process.env);

export function testTimeScale(env: Record<string, string | undefined>): number {
  const configured = Number(env.IMPRINT_TEST_TIME_SCALE);
  if (Number.isFinite(configured) && configured > 0) return configured;
  return env.CI ? 6 : 3;
}

/** A test's time ceiling, scaled for the machine (see TEST_TIME_SCALE). */
export function patient(ms: number): number {
  return Math.round(ms * TEST_TIME_SCALE);
}
