// Rolling restarts of a running `npm start`: the launcher replaces its Node processes one at a time
// on SIGHUP (scripts/lib/stack.mjs, `stack.restart`) and keeps `<data>/restart.json` up to date
// while it does; `npm run admin -- restart` sends the signal and follows that file until the
// restart it asked for is done. Plain ESM.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { isAlive, writeFileAtomically } from "./stack.mjs";

export const RESTART_FILE = "restart.json";

/**
 * @typedef {object} RestartStep  one process replaced
 * @property {string} name  e.g. "content#2"
 * @property {number | undefined} oldPid
 * @property {number | undefined} newPid
 * @property {number} startedAt  when its replacement began (epoch ms)
 * @property {number} ms  from its stop (or the new copy's start) until the new one was ready
 *
 * @typedef {object} RestartStatus  what `<data>/restart.json` holds
 * @property {number} pid  the launcher
 * @property {number} id  1 for the launcher's first rolling restart, then 2, …
 * @property {"running" | "done" | "failed"} state
 * @property {number} startedAt  epoch ms
 * @property {number | null} finishedAt
 * @property {string[]} names  every process it replaces, in order
 * @property {string | null} current  the one being replaced now
 * @property {RestartStep[]} steps  the ones replaced so far
 * @property {boolean} queued  another restart was asked meanwhile and follows this one
 * @property {string | null} error  why it stopped (state "failed")
 */

/** @param {string} dataDir @param {RestartStatus} status */
export async function writeRestartStatus(dataDir, status) {
  await writeFileAtomically(join(dataDir, RESTART_FILE), `${JSON.stringify(status, null, 2)}\n`);
}

/** @param {string} dataDir @returns {Promise<RestartStatus | null>} null when there is none (or it is unreadable) */
export async function readRestartStatus(dataDir) {
  try {
    return JSON.parse(await readFile(join(dataDir, RESTART_FILE), "utf8"));
  } catch {
    return null;
  }
}

export async function removeRestartStatus(dataDir) {
  await rm(join(dataDir, RESTART_FILE), { force: true });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** "content#2 replaced: pid 4121 → 4388, ready in 2.3 s" */
export function describeStep(step) {
  const pids = step.oldPid === step.newPid ? `pid ${step.newPid}` : `pid ${step.oldPid ?? "?"} → ${step.newPid ?? "?"}`;
  return `${step.name} replaced: ${pids}, ready in ${seconds(step.ms)}`;
}

/** "rolling restart done in 74.2 s: 14 processes replaced" */
export function describeRestartEnd(status) {
  const took = seconds((status.finishedAt ?? Date.now()) - status.startedAt);
  const count = `${status.steps.length} process${status.steps.length === 1 ? "" : "es"}`;
  return status.state === "failed"
    ? `rolling restart failed after ${took} at ${status.current ?? "?"}: ${status.error}; ${count} replaced before it, the others left as they were`
    : `rolling restart done in ${took}: ${count} replaced`;
}

/**
 * `npm run admin -- restart`: finds the launcher of the `npm start` using `dataDir` (its
 * stack.json), sends it SIGHUP and follows `restart.json` until the rolling restart that signal
 * asked for (one started after it: when another is running, the launcher queues it) is done,
 * printing each process replaced. Resolves the exit code: 0 done, 1 failed, launcher gone, or no
 * end within `timeoutMs`.
 * @param {{ dataDir: string, out?: (line: string) => void, err?: (line: string) => void, timeoutMs?: number, pollMs?: number }} options
 * @returns {Promise<number>}
 */
export async function requestRestart({ dataDir, out = console.log, err = console.error, timeoutMs = 10 * 60_000, pollMs = 200 }) {
  const stackFile = join(dataDir, "stack.json");
  let pid;
  try {
    pid = JSON.parse(await readFile(stackFile, "utf8")).pid;
  } catch {
    err(`no running \`npm start\` found (${stackFile} is missing): start it, or set IMPRINT_DATA_DIR to the data directory it uses`);
    return 1;
  }
  if (!Number.isInteger(pid) || !isAlive(pid)) {
    err(`the \`npm start\` that wrote ${stackFile} (pid ${pid}) is not running`);
    return 1;
  }
  const askedAt = Date.now();
  process.kill(pid, "SIGHUP");
  out(`asked npm start (pid ${pid}) for a rolling restart: every Node process is replaced, one at a time`);
  const deadline = askedAt + timeoutMs;
  let printed = 0;
  let saidQueued = false;
  for (;;) {
    const status = await readRestartStatus(dataDir);
    if (status && status.pid === pid && status.startedAt >= askedAt) {
      for (const step of status.steps.slice(printed)) out(`✔ ${describeStep(step)}`);
      printed = status.steps.length;
      if (status.state === "done") {
        out(`✔ ${describeRestartEnd(status)}`);
        return 0;
      }
      if (status.state === "failed") {
        err(`✖ ${describeRestartEnd(status)}`);
        return 1;
      }
    } else if (status?.pid === pid && status.state === "running" && !saidQueued) {
      out(`a rolling restart (started ${seconds(Date.now() - status.startedAt)} ago) is under way: this one follows it`);
      saidQueued = true;
    }
    if (!isAlive(pid)) {
      err(`✖ npm start (pid ${pid}) ended before the rolling restart was done`);
      return 1;
    }
    if (Date.now() > deadline) {
      err(`✖ the rolling restart was not done within ${seconds(timeoutMs)} (npm start's output says where it is)`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
