import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../src/memory-reducer.ts", import.meta.url));

/**
 * A child process that allocates a burst (~200 MB of short-lived objects, a fifth of them kept
 * until the burst ends), drops it, then stays quiet and prints its RSS every 250 ms.
 */
const CHILD = `
import { keepMemoryReducerWorking } from ${JSON.stringify(MODULE)};
keepMemoryReducerWorking();
let kept = [];
for (let round = 0; round < 5; round++) {
  const garbage = [];
  for (let i = 0; i < 400_000; i++) garbage.push({ a: i, b: "x" + i, c: [i, i + 1] });
  kept.push(garbage.filter((_, i) => i % 5 === 0));
}
console.log("burst " + kept.length);
kept = null;
setInterval(() => console.log("rss " + process.memoryUsage().rss), 250);
`;

describe("keepMemoryReducerWorking", () => {
  it("lets a quiet process give back the memory its last burst of work took (V8's memory reducer runs)", async () => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const samples: number[] = [];
      let burst = false;
      await new Promise<void>((resolve, reject) => {
        let buffered = "";
        child.on("exit", (code) => reject(new Error(`the child exited (${code})`)));
        child.stdout.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
            const line = buffered.slice(0, end);
            buffered = buffered.slice(end + 1);
            if (line.startsWith("burst")) burst = true;
            if (!line.startsWith("rss ")) continue;
            samples.push(Number(line.slice(4)));
            // Back to less than half of what it held right after the burst: the pages were returned.
            if (samples.length > 1 && samples.at(-1)! < samples[0]! / 2) resolve();
          }
        });
      });
      expect(burst).toBe(true);
      expect(samples[0]).toBeGreaterThan(150 * 1024 * 1024);
    } finally {
      child.kill();
    }
  }, 60_000);
});
