import { Script } from "node:vm";

/** How often a trivial script is compiled: well within the ~110 s the rate V8 reads takes to decay to zero. */
export const MEMORY_REDUCER_NUDGE_MS = 30_000;

/**
 * Lets V8's memory reducer work in Node 24. A collection hands the pages it empties to V8's page
 * pool, which keeps them resident; only a memory-reducing collection gives them back to the
 * system, and V8 starts one (its memory reducer) once the process allocates little. Since V8 13.1
 * that test also reads the embedder's (cppgc's) allocation rate, and a process that never
 * allocates there reads exactly zero, which V8 takes for the highest rate: the reducer never
 * starts, and a process's RSS stays at its largest heap so far (Node 22 gave it back within
 * about 40 s of going quiet). Compiling a trivial script allocates on cppgc (node:vm's
 * ContextifyScript), so the rate reads as low once the process is quiet: the reducer then runs
 * within about 16 s, as V8 means it to. Costs one tiny compile per interval; the timer does not
 * keep the process alive. Answers a function that stops it.
 */
export function keepMemoryReducerWorking(intervalMs = MEMORY_REDUCER_NUDGE_MS): () => void {
  const nudge = () => new Script("0");
  nudge();
  const timer = setInterval(nudge, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
