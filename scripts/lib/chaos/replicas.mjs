// `npm run chaos -- --replicas`: the chaos suite on two copies of every target (split hosting, as
// `IMPRINT_HOSTING=split IMPRINT_REPLICAS=2 npm start` runs them), under the same loops and the same
// audit as run.mjs. One at a time it kills (-9) one copy of each service and one of the gateway
// while the other keeps serving (the killed one held down a few seconds, then restarted), pauses
// (SIGSTOP) one content copy 5 s right after team and comment changes it projects (events in flight),
// then times how long every projection takes to be right again, and replaces every process in a
// rolling restart. Each copy's gRPC calls are counted by its channelz service over the whole run.
// The figures are those of issue 24's "Chaos with replicas".
import { watchCallsPerCopy } from "../channelz.mjs";
import { backlog, compareProjections } from "./audit.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The two runs. `kills`: the copies killed in turn (a copy of each service, alternating #1 and #2 so
 * that neither is the one always down, then one of the gateway), each held down `copyDown` ms;
 * `pause`: the copy paused and for how long; `convergeWithinMs`: how soon after SIGCONT every
 * projection must be right again. `loops`, `pace`, `calm`, `settle`, `writeGrace` as in run.mjs.
 */
export const REPLICA_PLANS = {
  full: {
    kills: ["identity#1", "content#2", "collaboration#1", "publishing#2", "integration#1", "gateway#2"],
    copyDown: 10_000,
    pause: { unit: "content#1", ms: 5_000 },
    convergeWithinMs: 60_000,
    loops: 10_000,
    pace: 150,
    calm: 5_000,
    settle: 120_000,
    writeGrace: 90_000,
  },
  short: {
    kills: ["identity#1", "content#2", "collaboration#1", "publishing#2", "integration#1", "gateway#2"],
    copyDown: 3_000,
    pause: { unit: "content#1", ms: 5_000 },
    convergeWithinMs: 60_000,
    loops: 10_000,
    pace: 250,
    calm: 2_000,
    settle: 60_000,
    writeGrace: 30_000,
  },
};

/** The address of each copy of each service, and the process serving it now, for watchCallsPerCopy. */
export function serviceCopies(stack) {
  const copies = {};
  for (const handle of stack.processes) {
    const list = stack.grpcAddresses[handle.target]?.split(",");
    if (!list) continue;
    (copies[handle.target] ??= []).push({ address: list[handle.copy - 1], pid: () => handle.pid, name: handle.name });
  }
  return copies;
}

/**
 * What the replica run adds to the setup (`ids` of run.mjs): a team and a space that only the pause
 * touches, and a public site publishing the first space (one page), which the reader serves.
 */
export async function replicaSetup({ client, ids, deadline }) {
  const must = async (what, write) => {
    const answer = await write;
    if (!answer.succeeded) throw new Error(`setup: ${what} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const org = ids.organizationId;
  ids.pauseTeam = (
    await must(
      "a team",
      client.write({
        kind: "team",
        route: "team.create",
        method: "PUT",
        path: `/orgs/${org}/teams`,
        body: { title: `Paused ${ids.run}` },
        deadline: deadline(),
      }),
    )
  ).id;
  ids.pauseSpace = (
    await must(
      "a space",
      client.write({
        kind: "space",
        route: "space.create",
        method: "POST",
        path: `/orgs/${org}/spaces`,
        body: { title: `paused-${ids.run}` },
        deadline: deadline(),
      }),
    )
  ).id;
  const spaceId = ids.spaces[0];
  const opened = await must(
    "a change request",
    client.write({
      kind: "change-request",
      route: "change-request.create",
      method: "POST",
      path: `/spaces/${spaceId}/change-requests`,
      body: { subject: `Guide ${ids.run}` },
      deadline: deadline(),
    }),
  );
  await must(
    "a page",
    client.write({
      kind: "content",
      route: "change-request.content",
      method: "POST",
      path: `/spaces/${spaceId}/change-requests/${opened.id}/content`,
      body: { changes: [{ operation: "insert_page", ref: "guide", slug: "guide", document: { markdown: "# Guide\n\nHow we work: write things down." } }] },
      deadline: deadline(),
    }),
  );
  await must(
    "a merge",
    client.write({
      kind: "merge",
      route: "change-request.merge",
      method: "POST",
      path: `/spaces/${spaceId}/change-requests/${opened.id}/merge`,
      deadline: deadline(),
    }),
  );
  const site = await must(
    "a site",
    client.write({
      kind: "site",
      route: "site.create",
      method: "POST",
      path: `/orgs/${org}/sites`,
      body: { title: `Site ${ids.run}`, visibility: "public", spaces: [spaceId] },
      deadline: deadline(),
    }),
  );
  ids.site = site.id;
  const published = await must(
    "a publication",
    client.write({ kind: "site", route: "site.publish", method: "POST", path: `/orgs/${org}/sites/${site.id}/publish`, deadline: deadline() }),
  );
  ids.sitePage = `${published.urls.published.replace(/\/$/, "")}/guide`;
  // The reader serves it once publishing's event reached it.
  const until = deadline();
  while ((await client.send({ route: "probe.reader", method: "GET", url: ids.sitePage })).status !== 200) {
    if (Date.now() > until) throw new Error(`setup: the reader did not serve ${ids.sitePage}`);
    await sleep(200);
  }
}

/** The replica run's loops besides run.mjs's: reads of identity, publishing, integration and the reader, and writes to publishing. */
export function replicaLoops({ client, ids, loop, writeDeadline }) {
  const org = ids.organizationId;
  return [
    loop(async (i) => {
      const reads = [
        ["org.get", { path: `/orgs/${org}` }],
        ["site.list", { path: `/orgs/${org}/sites` }],
        ["integration.list", { path: "/integrations" }],
        ["reader.page", { url: ids.sitePage }],
      ];
      const [route, where] = reads[i % reads.length];
      await client.send({ route, method: "GET", ...where });
    }),
    loop(async () => {
      await client.write({
        kind: "site",
        route: "site.update",
        method: "PATCH",
        path: `/orgs/${org}/sites/${ids.site}`,
        body: { title: `Site ${Math.random().toString(36).slice(2, 8)}` },
        deadline: writeDeadline(),
      });
    }),
  ];
}

/** Reads that failed: no answer, or 5xx (each attempt: reads are not retried). */
const failedRead = (request) => request.status === 0 || request.status >= 500;
/** Writes that failed: their last answer, after every retry with their key, was none or 5xx. */
const failedWrite = (write) => write.status === 0 || write.status >= 500;

/**
 * Runs the experiments of the replica run on `ctx` ({stack, plan, client, now, ids, users, log,
 * experiments, waitReady, writeDeadline, nextEvent}); resolves the calls per copy counted over them.
 */
export async function replicaExperiments(ctx) {
  const { stack, plan, client, now, ids, users, log, experiments, waitReady, writeDeadline, nextEvent } = ctx;
  const calls = watchCallsPerCopy(serviceCopies(stack));
  await calls.sample();
  const begin = (experiment) => {
    experiments.push(experiment);
    log(`experiment: ${experiment.name}`);
    now.experiment = experiment.name;
    return experiment;
  };
  const end = async (experiment) => {
    await waitReady();
    await sleep(plan.calm);
    experiment.endedAt = Date.now();
    now.experiment = "calm";
  };

  /** kill -9 one copy, hold it down `ms`, restart it; the other copies serve meanwhile. */
  const killCopy = async (name, ms) => {
    const unit = stack.units[name];
    const experiment = begin({ name: `kill -9 ${name}, down ${s(ms)}`, kind: "copy-kill", unit: name, target: unit.target, outageMs: ms });
    unit.hold();
    const exited = nextEvent(unit, "exited");
    // Its calls counted up to the kill.
    await calls.sample();
    experiment.downAt = Date.now();
    now.down.push(name);
    unit.signal("SIGKILL");
    // The process is gone (its sockets closed) only when its exit is seen, some milliseconds later.
    experiment.exitedAt = (await exited).at;
    await sleep(ms);
    const ready = nextEvent(unit, "ready");
    experiment.releasedAt = Date.now();
    await unit.release();
    experiment.readyAt = (await ready).at;
    now.down = now.down.filter((n) => n !== name);
    await end(experiment);
  };

  /**
   * SIGSTOP one copy right after changes whose events it projects (team members of a team no loop
   * touches, a comment on a space no loop touches), SIGCONT after `ms`, then poll those
   * projections until they equal their sources: how long after SIGCONT, and how many rows differ
   * when the limit is reached.
   */
  const pauseCopy = async (name, ms) => {
    const unit = stack.units[name];
    const experiment = begin({
      name: `SIGSTOP ${name} ${s(ms)} with events in flight`,
      kind: "copy-pause",
      unit: name,
      target: unit.target,
      pausedMs: ms,
      convergeWithinMs: plan.convergeWithinMs,
    });
    const round = (experiment.round = ids.pauseRound = (ids.pauseRound ?? 0) + 1);
    // Delivered to the paused target's consumers and not acknowledged (the other copy acks at once):
    // before the changes, and mid-pause.
    const held = async () => {
      const now = await backlog({ databaseUrls: stack.infra.databaseUrls, natsUrl: stack.infra.natsUrl }).catch(() => null);
      return now
        ? now.consumers.filter((consumer) => consumer.name.startsWith(`${unit.target}-`)).reduce((sum, consumer) => sum + consumer.ackPending, 0)
        : null;
    };
    const heldBefore = await held();
    const teamPath = (user) => `/orgs/${ids.organizationId}/teams/${ids.pauseTeam}/members/${user}`;
    // Each member of the pause team toggled: in on odd rounds, out on even ones.
    const changes = users.map((user) =>
      round % 2
        ? client.write({ kind: "team-member", route: "team.member.add", method: "PUT", path: teamPath(user), body: {}, deadline: writeDeadline() })
        : client.write({ kind: "team-member", route: "team.member.remove", method: "DELETE", path: teamPath(user), deadline: writeDeadline() }),
    );
    const text = `chaos-c-pause-${round}-${ids.run}`;
    changes.push(
      client.write({
        kind: "comment",
        route: "comment.post",
        method: "POST",
        path: `/spaces/${ids.pauseSpace}/comments`,
        body: { body: { markdown: text } },
        marker: text,
        deadline: writeDeadline(),
      }),
    );
    await sleep(50);
    now.down.push(`${name} (paused)`);
    experiment.pausedAt = Date.now();
    unit.signal("SIGSTOP");
    await sleep(ms / 2);
    const heldMidPause = await held();
    experiment.heldDuringPause = heldBefore === null || heldMidPause === null ? null : heldMidPause - heldBefore;
    await sleep(ms - ms / 2);
    unit.signal("SIGCONT");
    experiment.resumedAt = Date.now();
    now.down = now.down.filter((n) => n !== `${name} (paused)`);
    experiment.changes = (await Promise.all(changes)).map((write) => write.status);
    // Only the experiment's rows: the loops change the others all the time.
    const mine = (projection) => projection.diverged.filter((row) => row.key.startsWith(`${ids.pauseTeam}/`) || row.key === ids.pauseSpace);
    const deadline = experiment.resumedAt + plan.convergeWithinMs;
    for (;;) {
      const diverged = (await compareProjections(stack.infra.databaseUrls)).flatMap(mine);
      experiment.diverged = diverged;
      if (diverged.length === 0) {
        experiment.convergedMs = Date.now() - experiment.resumedAt;
        break;
      }
      if (Date.now() > deadline) {
        experiment.convergedMs = null;
        break;
      }
      await sleep(200);
    }
    await end(experiment);
  };

  /** Every Node process replaced, one copy at a time (stack.restart), under the loops. */
  const rollingRestart = async () => {
    const experiment = begin({ name: "rolling restart of every process", kind: "rolling-restart" });
    const result = await stack.restart({
      // Each copy's calls counted up to its replacement.
      onStep: (step) => (step.type === "replacing" ? calls.sample() : undefined),
    });
    experiment.steps = result.steps.map((step) => ({ name: step.name, ms: step.ms }));
    experiment.restartMs = result.ms;
    await end(experiment);
  };

  now.experiment = "warm-up";
  await sleep(plan.calm);
  for (const name of plan.kills) await killCopy(name, plan.copyDown);
  await pauseCopy(plan.pause.unit, plan.pause.ms);
  await rollingRestart();
  return calls.stop();
}

/** Requests of `experiment`: every read attempt, every write that had an attempt in it. */
function requestsOf(client, experiment) {
  const reads = client.requests.filter((request) => !request.write && request.experiment === experiment.name && !request.route.startsWith("probe."));
  const writes = client.writes.filter((write) => write.attempts.some((attempt) => attempt.experiment === experiment.name));
  return { reads, writes };
}

/**
 * Read attempts that went to the killed gateway copy while it died: a kill -9 takes it 15–40 ms
 * (the kernel frees its memory before it closes its sockets), and a request sent meanwhile on a
 * connection to it, or accepted into its listening socket's queue, is reset when those close. So:
 * no answer (the connection reset or closed), started no later than its exit was seen, ended after
 * the kill. No process is left to answer them (a client or a load balancer retries such a GET on
 * another connection); shown apart, like a write committed in the instant before its process was
 * killed. Every other failure counts.
 */
function cutByTheKill(request, experiment) {
  return (
    experiment.target === "gateway" &&
    request.status === 0 &&
    request.error !== "TimeoutError" &&
    request.startedAt <= experiment.exitedAt &&
    request.endedAt >= experiment.downAt
  );
}

/**
 * What went wrong in an experiment, a line each (up to 8): failed or cut reads, reads answered 4xx
 * (not failures by the definition above, but shown), writes that needed a retry.
 */
function troubles(reads, writes, { cut = [], killedAt } = {}) {
  // When it started, relative to the kill (when there was one).
  const when = (a) => (killedAt === undefined ? "" : ` @${a.startedAt - killedAt >= 0 ? "+" : ""}${a.startedAt - killedAt} ms`);
  const attempt = (a) => `${a.status}${a.error ? ` ${a.error}` : ""}${a.status === 0 || a.status >= 500 ? when(a) : ""}`;
  return [
    ...reads
      .filter((r) => failedRead(r) || r.status >= 400)
      .map((r) => `read ${r.route}: ${attempt(r)}${cut.includes(r) ? " (reset with the dying copy)" : ""}`),
    ...writes.filter((w) => w.attempts.length > 1).map((w) => `write ${w.route}: ${w.attempts.map(attempt).join(", ")}`),
  ].slice(0, 8);
}

/** The rows of the replica run, after the audit's (run.mjs `figures`). */
export function replicaRows({ client, experiments, calls, row }) {
  const kills = experiments.filter((e) => e.kind === "copy-kill");
  const perKill = kills.map((e) => {
    const { reads, writes } = requestsOf(client, e);
    const cut = reads.filter((r) => cutByTheKill(r, e));
    e.reads = reads.length;
    e.failedReads = reads.filter((r) => failedRead(r) && !cut.includes(r)).length;
    e.cutReads = cut.length;
    e.writes = writes.length;
    e.failedWrites = writes.filter(failedWrite).length;
    e.retriedWrites = writes.filter((w) => w.attempts.length > 1).length;
    e.troubles = troubles(reads, writes, { cut, killedAt: e.downAt });
    return e;
  });
  const sum = (list, field) => list.reduce((total, e) => total + e[field], 0);
  const cutReads = sum(perKill, "cutReads");
  const killedServices = perKill.filter((e) => e.target !== "gateway");
  row(
    "failed reads when one copy is killed",
    `${sum(perKill, "failedReads")} of ${sum(perKill, "reads")}${cutReads ? ` (and ${cutReads} sent to the gateway copy as it died, reset with it)` : ""}`,
    "0",
    perKill.length > 0 && killedServices.every((e) => e.reads > 0) && sum(perKill, "failedReads") === 0,
  );
  row(
    "failed writes when one copy is killed",
    `${sum(perKill, "failedWrites")} of ${sum(perKill, "writes")} (${sum(perKill, "retriedWrites")} retried with their key)`,
    "0 (retried with their idempotency key)",
    perKill.length > 0 && sum(perKill, "writes") > 0 && sum(perKill, "failedWrites") === 0,
  );

  const restart = experiments.find((e) => e.kind === "rolling-restart");
  if (restart) {
    const { reads, writes } = requestsOf(client, restart);
    restart.reads = reads.length;
    restart.failedReads = reads.filter(failedRead).length;
    restart.writes = writes.length;
    restart.failedWrites = writes.filter(failedWrite).length;
    restart.retriedWrites = writes.filter((w) => w.attempts.length > 1).length;
    restart.troubles = troubles(reads, writes);
  }
  row(
    "failed requests during a rolling restart of every process",
    restart
      ? `${restart.failedReads + restart.failedWrites} of ${restart.reads + restart.writes} (${restart.steps.length} processes in ${s(restart.restartMs)}; ${restart.retriedWrites} writes retried with their key)`
      : "not run",
    "0",
    Boolean(restart) && restart.reads > 0 && restart.failedReads + restart.failedWrites === 0,
  );

  // The busier copy's share of each service's calls, over the whole run.
  const shares = Object.entries(calls).map(([service, copies]) => {
    const total = copies.reduce((t, c) => t + c.calls, 0);
    const busier = Math.max(...copies.map((c) => c.calls));
    return { service, total, share: total ? busier / total : 1, copies };
  });
  row(
    "gRPC calls per copy under load, two copies (busier copy's share)",
    shares.map((x) => `${x.service} ${x.copies.map((c) => c.calls).join("/")} (${(100 * x.share).toFixed(0)}%)`).join(", "),
    "within 60/40",
    shares.length > 0 && shares.every((x) => x.copies.length === 2 && x.total > 0 && x.share <= 0.6),
  );

  const pauses = experiments.filter((e) => e.kind === "copy-pause");
  // Shown, not judged: calls that reached the paused copy wait for SIGCONT (within their deadline).
  for (const e of pauses) {
    const { reads, writes } = requestsOf(client, e);
    Object.assign(e, {
      reads: reads.length,
      failedReads: reads.filter(failedRead).length,
      writes: writes.length,
      failedWrites: writes.filter(failedWrite).length,
    });
    e.retriedWrites = writes.filter((w) => w.attempts.length > 1).length;
    e.slowestReadMs = Math.max(0, ...reads.map((r) => r.endedAt - r.startedAt));
    e.troubles = troubles(reads, writes);
  }
  row(
    "projections diverged after a 5 s SIGSTOP of one copy",
    pauses
      .map(
        (e) =>
          `${e.diverged.length}${e.convergedMs === null ? ` (not right ${s(e.convergeWithinMs)} after SIGCONT)` : ` (right again ${s(e.convergedMs)} after SIGCONT)`}`,
      )
      .join(", ") || "not run",
    "0 (every projection right again within 60 s of SIGCONT)",
    pauses.length > 0 && pauses.every((e) => e.convergedMs !== null && e.diverged.length === 0),
  );

  // A 500 is a bug whatever happened; 502/503/504 say an upstream was missing.
  const during = client.requests.filter((r) => experiments.some((e) => e.name === r.experiment));
  const fiveHundreds = during.filter((r) => r.status === 500).length;
  row("answers 500 during any experiment", `${fiveHundreds} of ${during.length}`, "0", fiveHundreds === 0);
}

/** The experiments' lines of the report. */
export function describeReplicaExperiment(e) {
  const parts = [e.name];
  if (e.exitedAt) parts.push(`its exit seen ${e.exitedAt - e.downAt} ms after the kill`);
  if (e.readyAt && e.releasedAt) parts.push(`ready ${s(e.readyAt - e.releasedAt)} after its restart`);
  if (e.reads !== undefined) parts.push(`${e.failedReads} of ${e.reads} reads failed${e.cutReads ? ` (and ${e.cutReads} reset with the dying copy)` : ""}`);
  if (e.writes !== undefined) parts.push(`${e.failedWrites} of ${e.writes} writes failed (${e.retriedWrites} retried)`);
  if (e.slowestReadMs !== undefined) parts.push(`slowest read ${s(e.slowestReadMs)}`);
  if (e.kind === "copy-pause") {
    parts.push(`${e.heldDuringPause ?? "?"} more events delivered to ${e.target}'s consumers and not acknowledged mid-pause`);
    parts.push(e.convergedMs === null ? `${e.diverged.length} rows still diverged` : `projections right ${s(e.convergedMs)} after SIGCONT`);
  }
  if (e.steps?.length) {
    const slowest = e.steps.reduce((max, step) => (step.ms > max.ms ? step : max));
    parts.push(`slowest replacement ${slowest.name} (${s(slowest.ms)})`);
  }
  return [parts.join("; "), ...(e.troubles ?? []).map((line) => `    ${line}`)].join("\n");
}
