import { runLoad, type LoadResult } from "./load.js";
import { cpuProfile } from "./run.js";

/** One short load on one of the two gateways. */
export interface CopiesRound {
  copies: "one" | "several";
  requestsPerSecond: number;
}

export interface CopiesMeasurement {
  oneCopy: LoadResult;
  severalCopies: LoadResult;
  oneCopyCpuSeconds: Record<string, number>;
  severalCopiesCpuSeconds: Record<string, number>;
  /** Every round in the order it ran. */
  rounds: CopiesRound[];
}

/**
 * One stack, two gateways: `severalUrl` balances over every copy of the target, `oneUrl` calls its
 * first copy only (the other copies sit idle meanwhile). Short loads alternate between them
 * (one, several, several, one, …), so whatever else loads the machine during the run weighs on
 * both alike: the ratio holds where two stacks measured one after the other would drift apart.
 */
export async function measureCopies(options: {
  severalUrl: string;
  oneUrl: string;
  path: string;
  token: string;
  connections: number;
  /** Rounds per gateway, each `secondsPerRound` long. */
  rounds: number;
  secondsPerRound: number;
  warmupSeconds: number;
  pids: Record<string, number>;
}): Promise<CopiesMeasurement> {
  const load = (url: string, warmupSeconds: number) =>
    cpuProfile(options.pids, () =>
      runLoad({ url: url + options.path, token: options.token, connections: options.connections, durationSeconds: options.secondsPerRound, warmupSeconds }),
    );
  // Both gateways warm (JIT, pools, caches) before any round counts.
  await load(options.oneUrl, options.warmupSeconds);
  await load(options.severalUrl, options.warmupSeconds);
  const results: Record<CopiesRound["copies"], { loads: LoadResult[]; cpu: Record<string, number>[] }> = {
    one: { loads: [], cpu: [] },
    several: { loads: [], cpu: [] },
  };
  const rounds: CopiesRound[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order: CopiesRound["copies"][] = round % 2 === 0 ? ["one", "several"] : ["several", "one"];
    for (const copies of order) {
      const { value, cpuSeconds } = await load(copies === "one" ? options.oneUrl : options.severalUrl, 0);
      results[copies].loads.push(value);
      results[copies].cpu.push(cpuSeconds);
      rounds.push({ copies, requestsPerSecond: value.requestsPerSecond });
    }
  }
  return {
    oneCopy: combineLoads(results.one.loads),
    severalCopies: combineLoads(results.several.loads),
    oneCopyCpuSeconds: sumCpu(results.one.cpu),
    severalCopiesCpuSeconds: sumCpu(results.several.cpu),
    rounds,
  };
}

/** Several loads of one route as one: throughput over their whole time, the worst of their latencies (p50: their median). */
export function combineLoads(loads: LoadResult[]): LoadResult {
  if (loads.length === 0) throw new Error("combineLoads needs at least one load");
  const sum = (pick: (load: LoadResult) => number) => loads.reduce((total, load) => total + pick(load), 0);
  const durationSeconds = sum((load) => load.durationSeconds);
  const p50s = loads.map((load) => load.p50Ms).sort((a, b) => a - b);
  return {
    requestsPerSecond: durationSeconds > 0 ? sum((load) => load.requestsPerSecond * load.durationSeconds) / durationSeconds : 0,
    p50Ms: p50s[Math.floor(p50s.length / 2)]!,
    p99Ms: Math.max(...loads.map((load) => load.p99Ms)),
    maxMs: Math.max(...loads.map((load) => load.maxMs)),
    total: sum((load) => load.total),
    non2xx: sum((load) => load.non2xx),
    errors: sum((load) => load.errors),
    timeouts: sum((load) => load.timeouts),
    durationSeconds,
  };
}

function sumCpu(profiles: Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const profile of profiles) for (const [name, seconds] of Object.entries(profile)) total[name] = (total[name] ?? 0) + seconds;
  return total;
}
