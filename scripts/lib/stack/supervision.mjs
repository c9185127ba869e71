// Supervision: a process that dies is restarted with backoff, as Kubernetes would, until stopped.

/** Restart backoff: 1 s, doubling per crash in a row up to 30 s; a process up for a minute starts again at 1 s. */
export const RESTART_INITIAL_DELAY_MS = 1_000;
export const RESTART_MAX_DELAY_MS = 30_000;
export const RESTART_RESET_AFTER_MS = 60_000;

/** The delay before the restart that follows `crashesInARow` earlier crashes (0 for the first). */
export function restartDelayMs(crashesInARow) {
  return Math.min(RESTART_MAX_DELAY_MS, RESTART_INITIAL_DELAY_MS * 2 ** Math.min(crashesInARow, 30));
}

/** "exited with code 1", "exited (signal SIGKILL)". */
export function describeExit({ code, signal }) {
  if (signal === "unknown") return "exited";
  return signal ? `exited (signal ${signal})` : `exited with code ${code}`;
}

const seconds = (ms) => `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)} s`;

/** The terminal line for a supervision event, or null for events that need none. */
export function describeEvent(event) {
  switch (event.type) {
    case "exited":
      return event.delayMs === null
        ? `↓ ${event.name} ${describeExit(event)}; held down`
        : `↻ ${event.name} ${describeExit(event)}; restarted in ${seconds(event.delayMs)} (restart ${event.restart})`;
    case "restart-failed":
      return `↻ ${event.name} did not start again (${event.error.split("\n")[0]}); next attempt in ${seconds(event.delayMs)} (restart ${event.restart + 1})`;
    case "ready":
      return `✔ ${event.name} is back (restart ${event.restart}, ready ${seconds(event.afterMs)} after its start)`;
    default:
      return null;
  }
}

/**
 * A process kept running: `launch(previous)` starts it (resolving once it is ready to be used) and
 * resolves a handle {pid, exited, running, signal(sig), stop()}; whenever the handle's process ends,
 * unless `stop()` was called or `mayRestart()` says no (a stack still starting fails instead), it is
 * launched again after the backoff, forever. `probe(handle)`, when given, tells when a started
 * process is ready. Events (`onEvent`): `exited` {name, code, signal, restart, delayMs | null when
 * held}, `restarted` {name, restart, pid}, `ready` {name, restart, afterMs}, `restart-failed`
 * {name, restart, error, delayMs}. `hold()` keeps a dead process down until `release()` (the chaos
 * suite times outages with it); `replace()` puts a new process in the place of a running one (the
 * rolling restart). The unit's first launch is awaited by startUnit.
 */
export async function startUnit({ name, launch, probe, onEvent = () => {}, mayRestart = () => true }) {
  let current = null;
  let down = false;
  let stopping = false;
  let held = false;
  let timer = null;
  let restarts = 0;
  let crashesInARow = 0;
  let upSince = 0;
  let restarting = null;
  let replacing = null;
  // A new process started beside the current one (replace with surge), not yet adopted.
  let surging = null;
  // Processes stopped on purpose by replace(): their end is no crash.
  const retired = new WeakSet();
  const listeners = new Set();
  const emit = (event) => {
    const stamped = { ...event, name, at: Date.now() };
    onEvent(stamped);
    for (const listener of listeners) listener(stamped);
  };

  const schedule = (delayMs) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void restart();
    }, delayMs);
  };
  const nextDelay = () => {
    if (Date.now() - upSince >= RESTART_RESET_AFTER_MS) crashesInARow = 0;
    return restartDelayMs(crashesInARow++);
  };
  const adopt = (handle) => {
    current = handle;
    down = false;
    upSince = Date.now();
    void handle.exited.then((result) => {
      if (handle !== current || stopping || retired.has(handle)) return;
      down = true;
      if (!mayRestart(result)) return;
      const delayMs = nextDelay();
      emit({ type: "exited", ...result, restart: restarts + 1, delayMs: held ? null : delayMs });
      if (!held) schedule(delayMs);
    });
  };
  const restart = () =>
    (restarting ??= (async () => {
      try {
        if (stopping || held || !down) return;
        restarts++;
        const startedAt = Date.now();
        let handle;
        try {
          handle = await launch(current);
        } catch (error) {
          const delayMs = nextDelay();
          emit({ type: "restart-failed", restart: restarts, error: error instanceof Error ? error.message : String(error ?? "failed to start"), delayMs });
          if (!stopping && !held) schedule(delayMs);
          return;
        }
        if (stopping) {
          await handle.stop();
          return;
        }
        adopt(handle);
        emit({ type: "restarted", restart: restarts, pid: handle.pid });
        if (probe) {
          for (;;) {
            if (stopping || handle !== current || !handle.running) return;
            if (await probe(handle).catch(() => false)) break;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        emit({ type: "ready", restart: restarts, afterMs: Date.now() - startedAt });
      } finally {
        restarting = null;
      }
    })());

  /** Resolves once `handle` is ready (`probe`); rejects when it dies first, when the unit stops, or after `deadline`. */
  const untilReady = async (handle, deadline, timeoutMs) => {
    for (;;) {
      if (stopping) throw new Error(`${name} is stopping`);
      if (!handle.running) throw new Error(`${name} ${describeExit(await handle.exited)} before it was ready`);
      if (!probe || (await probe(handle).catch(() => false))) return;
      if (Date.now() > deadline) throw new Error(`${name} was not ready within ${seconds(timeoutMs)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const replaceNow = async ({ surge, timeoutMs }) => {
    if (stopping) throw new Error(`${name} is stopping`);
    // A restart after a crash already under way: what it starts is what gets replaced.
    await restarting;
    const startedAt = Date.now();
    const deadline = startedAt + timeoutMs;
    const old = current;
    const done = () => ({ name, oldPid: old.pid, newPid: current.pid, startedAt, ms: Date.now() - startedAt });
    if (down) {
      // Dead and waiting for its backoff: started now instead.
      if (held) throw new Error(`${name} is held down`);
      clearTimeout(timer);
      timer = null;
      await restart();
      if (down || current === old) throw new Error(`${name} did not start again`);
      await untilReady(current, deadline, timeoutMs);
      return done();
    }
    if (surge) {
      // Beside the old process (they share a port): the old one serves until the new one is ready.
      const next = await launch(old);
      surging = next;
      try {
        await untilReady(next, deadline, timeoutMs);
      } catch (error) {
        await next.stop();
        throw error;
      } finally {
        surging = null;
      }
      // Had the old one crashed meanwhile, its restart (planned or under way) is replaced too.
      clearTimeout(timer);
      timer = null;
      await restarting;
      const previous = current;
      retired.add(previous);
      adopt(next);
      await previous.stop();
      return done();
    }
    retired.add(old);
    await old.stop();
    if (stopping) throw new Error(`${name} is stopping`);
    let next;
    try {
      next = await launch(old);
    } catch (error) {
      // Supervised again, as after a crash: the next attempt follows the backoff.
      down = true;
      const delayMs = nextDelay();
      emit({ type: "restart-failed", restart: restarts, error: error instanceof Error ? error.message : String(error), delayMs });
      schedule(delayMs);
      throw error;
    }
    adopt(next);
    if (stopping) {
      await next.stop();
      throw new Error(`${name} is stopping`);
    }
    // A new process that dies before it is ready is restarted with backoff (adopt), and this fails.
    await untilReady(next, deadline, timeoutMs);
    return done();
  };

  adopt(await launch(null));
  return {
    name,
    get current() {
      return current;
    },
    get pid() {
      return current.pid;
    },
    get running() {
      return !down && current.running;
    },
    get restarts() {
      return restarts;
    },
    /** Calls `listener(event)` for each event of this unit; returns the function that stops it. */
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Sends `signal` to the process (SIGKILL, SIGSTOP, SIGCONT, …); a no-op when it is not running. */
    signal(signal) {
      if (!down) current.signal(signal);
    },
    /** No restart until release(): the process stays down once it dies. */
    hold() {
      held = true;
      clearTimeout(timer);
      timer = null;
    },
    /** Kills the process for good (no restart): the second Ctrl-C. */
    kill() {
      stopping = true;
      clearTimeout(timer);
      if (!down) current.signal("SIGKILL");
      surging?.signal("SIGKILL");
    },
    /**
     * Puts a new process in the place of the running one and resolves {name, oldPid, newPid,
     * startedAt, ms} once the new one is ready (`probe`). `surge`: the new process starts beside the old one, which
     * is stopped (SIGTERM, its drain) only once the new one is ready: for processes sharing a port;
     * a new one that is not ready within `timeoutMs` is stopped and the old one kept. Otherwise the
     * old one stops first and the new one starts in its place (its port free again); one that is
     * not ready in time stays supervised (restarted with backoff if it died). A dead process waiting
     * for its backoff is started at once instead. Rejects with the reason; one replacement at a time.
     */
    replace({ surge = false, timeoutMs = 90_000 } = {}) {
      replacing ??= replaceNow({ surge, timeoutMs }).finally(() => {
        replacing = null;
      });
      return replacing;
    },
    /** Restarts a held process at once (and resolves once it is launched); later deaths restart with backoff again. */
    async release() {
      held = false;
      if (down && !stopping) await restart();
    },
    async stop(...args) {
      stopping = true;
      clearTimeout(timer);
      await restarting;
      // A replacement under way notices the stop and stops the process it started.
      await replacing?.catch(() => {});
      return current.stop(...args);
    },
  };
}
