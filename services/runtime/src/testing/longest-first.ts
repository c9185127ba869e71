import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Where the measured durations of the test files are kept (`npm run test:durations` writes it from
 * vitest's own record of the last run): relative path → milliseconds.
 */
export const TEST_DURATIONS_FILE = ".ci/test-durations.json";

/** What a file nobody measured yet is taken to last: about an end-to-end file with its own stack. */
const UNMEASURED_MS = 5_000;

/**
 * Runs the longest test files first. vitest's own order needs its cache of the last run, which a
 * fresh clone (CI) lacks: it then runs the larger files first, and a short file that waits minutes
 * on the wall clock (the chaos runs) starts last, leaving the other workers idle at the end. The
 * estimate of each file is vitest's record of its last run when there is one, else the committed
 * measurement, else a typical e2e file's.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    let measured: Record<string, number> = {};
    try {
      measured = JSON.parse(readFileSync(join(root, TEST_DURATIONS_FILE), "utf8")) as Record<string, number>;
    } catch {
      // No record: every file is unmeasured, and the order is vitest's.
    }
    const estimate = (spec: TestSpecification) =>
      this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? measured[relative(root, spec.moduleId)] ?? UNMEASURED_MS;
    const byDefault = await super.sort(files);
    const position = new Map(byDefault.map((spec, index) => [spec, index]));
    return [...byDefault].sort((a, b) => estimate(b) - estimate(a) || position.get(a)! - position.get(b)!);
  }
}
