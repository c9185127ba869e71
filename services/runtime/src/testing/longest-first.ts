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
 * Files at least this long start whole stacks of processes (the chaos and replica runs): two at
 * once on two cores slow each other (and every file beside them) to several times their length.
 */
const HEAVY_MS = 60_000;

/**
 * The vitest project whose files share worker processes (`isolate: false`, vitest.config.ts). vitest
 * hands a finished shared process the next file only when that file is next in the queue and of the
 * same project: its files go last, one after another (they are short), rather than spread among the
 * others, where each would end up in a process of its own again.
 */
export const SHARED_PROCESS_PROJECT = "shared-process";

/**
 * Orders the test files for a run on a small machine. vitest's own order needs its record of the
 * last run, which a fresh clone (CI) lacks: it then starts the largest files first, and a short
 * file that runs for minutes (the chaos runs) may start last, leaving the other workers idle at
 * the end. Here the longest files go first, except that the heavy ones (see HEAVY_MS) are spaced
 * so that no two are expected to run at once: a simulation of the workers hands each free worker
 * the longest file left, or the next heavy file once the previous one is expected to be done.
 * The estimate of a file is vitest's record of its last run when there is one, else the committed
 * measurement, else a typical end-to-end file's. The files of SHARED_PROCESS_PROJECT come last, in
 * the same order among themselves.
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
    const estimate = new Map(
      files.map((spec) => [spec, this.ctx.cache.getTestSpecificationResult(spec)?.duration ?? measured[relative(root, spec.moduleId)] ?? UNMEASURED_MS]),
    );
    const byDefault = await super.sort(files);
    const position = new Map(byDefault.map((spec, index) => [spec, index]));
    const longestFirst = (a: TestSpecification, b: TestSpecification) => estimate.get(b)! - estimate.get(a)! || position.get(a)! - position.get(b)!;
    const shared = byDefault.filter((spec) => spec.project.name === SHARED_PROCESS_PROJECT).sort(longestFirst);
    const own = byDefault.filter((spec) => spec.project.name !== SHARED_PROCESS_PROJECT);
    const heavy = own.filter((spec) => estimate.get(spec)! >= HEAVY_MS).sort(longestFirst);
    const light = own.filter((spec) => estimate.get(spec)! < HEAVY_MS).sort(longestFirst);

    const workers = Array.from({ length: Math.max(1, Number(this.ctx.config.maxWorkers) || 1) }, () => 0);
    let heavyDoneAt = 0;
    const order: TestSpecification[] = [];
    while (heavy.length > 0 || light.length > 0) {
      const worker = workers.indexOf(Math.min(...workers));
      const now = workers[worker]!;
      const next = heavy.length > 0 && (now >= heavyDoneAt || light.length === 0) ? heavy.shift()! : light.shift()!;
      workers[worker] = now + estimate.get(next)!;
      if (estimate.get(next)! >= HEAVY_MS) heavyDoneAt = workers[worker]!;
      order.push(next);
    }
    return [...order, ...shared];
  }
}
