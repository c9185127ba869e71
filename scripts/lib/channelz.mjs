// gRPC calls per copy of a service, counted by each copy's own server: its channelz service
// (GRPC_CHANNELZ=true) says how many calls it has started. The replicas test and the chaos suite's
// replica run compare the copies of a service with it. Plain ESM over grpc-js alone.
import { credentials, getChannelzServiceDefinition, makeGenericClientConstructor } from "@grpc/grpc-js";

let ChannelzClient = null;

/** Calls the gRPC server at `address` has started so far (its GetServers, our one call included). */
export async function callsStarted(address, timeoutMs = 2_000) {
  ChannelzClient ??= makeGenericClientConstructor(getChannelzServiceDefinition(), "Channelz");
  // A pool of its own: a probe of a copy just restarted never reuses a connection to the old one.
  const client = new ChannelzClient(address, credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 });
  try {
    const answer = await new Promise((resolve, reject) => {
      client.GetServers({ start_server_id: "0", max_results: "10" }, { deadline: Date.now() + timeoutMs }, (error, response) =>
        error ? reject(error) : resolve(response),
      );
    });
    return answer.server.reduce((sum, server) => sum + Number(server.data.calls_started), 0);
  } finally {
    client.close();
  }
}

/** Calls each copy (`addresses`) started while `work` ran, our own GetServers calls included (one each). */
export async function callsPerCopy(addresses, work) {
  const before = await Promise.all(addresses.map((address) => callsStarted(address)));
  await work();
  const after = await Promise.all(addresses.map((address) => callsStarted(address)));
  return after.map((count, index) => count - before[index]);
}

/**
 * Counts the calls of every copy over a long run in which copies die and start again (their
 * counters start again at 0). `copies` {service: [{address, pid()}]}, `pid()` the process serving
 * that address now: each copy is read every `intervalMs` and on `sample()`, and a reading from
 * another process than the last one is added whole. What a copy started between its last reading
 * and its end is missed, so `sample()` right before stopping or killing one. A copy that does not
 * answer (stopped, paused) is skipped until it does.
 */
export function watchCallsPerCopy(copies, { intervalMs = 1_000 } = {}) {
  const state = Object.fromEntries(
    Object.entries(copies).map(([service, list]) => [
      service,
      list.map(({ address, pid }) => ({ address, pid, lastPid: null, last: 0, total: 0, processes: new Set() })),
    ]),
  );
  const readOne = async (copy) => {
    const pid = copy.pid();
    const count = await callsStarted(copy.address, 1_000).catch(() => null);
    if (count === null || pid !== copy.pid()) return;
    copy.total += pid === copy.lastPid ? count - copy.last : count;
    copy.lastPid = pid;
    copy.last = count;
    copy.processes.add(pid);
  };
  // One reading of all at a time; a sample() during one waits for it, then reads again.
  let reading = Promise.resolve();
  let queued = 0;
  const sample = () => {
    queued++;
    reading = reading
      .then(() => Promise.all(Object.values(state).flat().map(readOne)))
      .then(() => {
        queued--;
      });
    return reading;
  };
  let stopped = false;
  // The timer's readings never pile up behind a slow one (a paused copy answers only at its deadline).
  const timer = setInterval(() => {
    if (!stopped && queued === 0) void sample();
  }, intervalMs);
  timer.unref?.();
  return {
    sample,
    /** Reads once more and stops: {service: [{address, calls, processes}]}, `processes` the pids counted. */
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sample();
      return Object.fromEntries(
        Object.entries(state).map(([service, list]) => [
          service,
          list.map(({ address, total, processes }) => ({ address, calls: total, processes: processes.size })),
        ]),
      );
    },
  };
}
