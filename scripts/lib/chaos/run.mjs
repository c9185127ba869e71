// `npm run chaos`: a bounded, loopback-only fault suite. It starts split hosting (one process per
// target, through scripts/lib/stack.mjs, fresh data in a temporary folder), runs write and read loops
// through the REST API whose effects cross services (spaces; comments and change requests, which
// content counts from collaboration's events; merges; team membership, which content projects from
// identity's events), and meanwhile, one experiment at a time, kills -9 each service, nats-server and
// PostgreSQL and keeps it down for a while, pauses a process (SIGSTOP) with an event in flight, kills
// content while it holds an event it has not acknowledged (redelivered after newer ones), and lets the
// supervisor restart the gateway and the reader. Then it waits for the events to drain and audits
// exactly (audit.mjs). The result is a table of figures against the targets of issue 23. With
// `replicas`, two copies of every target under the same loops and audit, and the experiments of
// replicas.mjs (issue 24's targets).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../setup.mjs";
import { generateTokenSecret, prepareDataDir, RATE_LIMITS_OUT_OF_REACH, startStack } from "../stack.mjs";
import { audit, backlog, deadLetterCount } from "./audit.mjs";
import { ChaosClient } from "./client.mjs";
import { describeReplicaExperiment, REPLICA_PLANS, replicaExperiments, replicaLoops, replicaRows, replicaSetup } from "./replicas.mjs";

export { REPLICA_PLANS };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The two runs. Outages in ms; `loops` bounds each loop's iterations; `pace` the pause between a
 * loop's requests; `calm` the quiet time between experiments; `settle` how long the events may take
 * to drain after the loops stop.
 */
export const PLANS = {
  full: {
    outages: { identity: 20_000, content: 60_000, collaboration: 5_000, publishing: 5_000, integration: 5_000, nats: 20_000, postgres: 60_000 },
    pause: { target: "content", ms: 5_000 },
    supervised: ["gateway", "reader"],
    loops: 2_000,
    pace: 150,
    calm: 5_000,
    settle: 120_000,
    writeGrace: 90_000,
  },
  short: {
    outages: { identity: 8_000, content: 5_000, collaboration: 3_000, publishing: 2_000, integration: 2_000, nats: 5_000, postgres: 10_000 },
    pause: { target: "content", ms: 3_000 },
    supervised: ["gateway"],
    loops: 500,
    pace: 250,
    // Each experiment first waits until every process is ready and reached again; a second of quiet
    // then keeps it apart from the next (the short run is part of `npm test`).
    calm: 1_000,
    settle: 60_000,
    writeGrace: 30_000,
  },
};

/** Routes that need no identity call once the token is known (the issue: reading, creating and changing spaces). */
const NO_IDENTITY_ROUTES = new Set(["space.get", "space.list", "space.create"]);
/** Routes through which callers reach each service after its restart. */
const REACH_PROBES = {
  identity: (ids) => [`/orgs/${ids.organizationId}/teams`],
  content: (ids) => [`/spaces/${ids.spaces[0]}`, `/spaces/${ids.spaces[0]}/comments`],
  collaboration: (ids) => [`/spaces/${ids.spaces[0]}/change-requests`],
  publishing: (ids) => [`/orgs/${ids.organizationId}/sites`],
  integration: () => ["/integrations"],
};

/** Waits for the first event of `type` from `unit` (rejects after `timeoutMs`). */
function nextEvent(unit, type, timeoutMs = 180_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${unit.name}: no "${type}" within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const off = unit.on((event) => {
      if (event.type !== type) return;
      clearTimeout(timer);
      off();
      resolve(event);
    });
  });
}

async function identityAdmin(address) {
  const { createIdentityClients } = await import(pathToFileURL(join(REPO_ROOT, "services/runtime/dist/index.js")).href);
  const { MemberRole } = await import(pathToFileURL(join(REPO_ROOT, "proto/dist/gen/imprint/identity/v1/identity.js")).href);
  return { client: createIdentityClients(address, { defaultTimeoutMs: 15_000 }), MemberRole };
}

/**
 * Runs the suite. Options: `short`, `replicas` (two copies of every target, replicas.mjs),
 * `log(line)`. Resolves {rows, passed, audit, experiments, requests, details}; the stack is stopped
 * and its data removed whatever happens.
 */
export async function runChaos({ short = false, replicas = false, log = () => {} } = {}) {
  const plans = replicas ? REPLICA_PLANS : PLANS;
  const plan = short ? plans.short : plans.full;
  const started = Date.now();
  const dataDir = await mkdtemp(join(tmpdir(), "imprint-chaos-"));
  await prepareDataDir(dataDir);
  const lastLines = [];
  let stack = null;
  try {
    log(`starting split hosting${replicas ? " with two copies of every target" : ""} in ${dataDir}`);
    stack = await startStack({
      dataDir,
      // Durable PostgreSQL settings: the throw-away ones (fsync and synchronous_commit off) lose the
      // last commits on a kill -9, which would show as losses of our own making.
      persistent: true,
      hosting: "split",
      replicas: replicas ? 2 : 1,
      // With copies, each service copy serves channelz: its calls are counted (replicas.mjs).
      // Its loops send far more than a hosted API's limits with one token: out of reach.
      env: { ...process.env, LOG_LEVEL: "warn", LOG_FORMAT: "json", ...RATE_LIMITS_OUT_OF_REACH, ...(replicas ? { GRPC_CHANNELZ: "true" } : {}) },
      bootstrap: { token: generateTokenSecret() },
      onLog: (source, line) => {
        if (source === "postgres" || source === "nats") return;
        lastLines.push(`${source} | ${line}`);
        if (lastLines.length > 300) lastLines.shift();
      },
    });
    const supervision = [];
    stack.onEvent((event) => supervision.push(event));
    return await exercise({ stack, plan, short, replicas, log, started, supervision });
  } catch (error) {
    if (error instanceof Error) error.lastLines = lastLines.slice(-60);
    throw error;
  } finally {
    await stack?.stop().catch(() => {});
    await rm(dataDir, { recursive: true, force: true }).catch(() => {});
  }
}

async function exercise({ stack, plan, short, replicas, log, started, supervision }) {
  const run = Math.random().toString(36).slice(2, 8);
  let serial = 0;
  const marker = (kind) => `chaos-${kind}-${run}-${++serial}`;

  // An organization, six more members, three spaces and two teams to work on.
  const admin = await identityAdmin(stack.grpcAddresses.identity);
  const created = await admin.client.organizations.createOrganization({
    title: "Chaos",
    ownerEmail: `owner-${run}@chaos.test`,
    ownerDisplayName: "Chaos Owner",
    ownerToken: "",
  });
  const organizationId = created.organizationId;
  const users = [];
  for (let i = 0; i < 6; i++) {
    const added = await admin.client.members.addMember({ organizationId, email: `member-${i}-${run}@chaos.test`, role: admin.MemberRole.MEMBER_ROLE_EDIT });
    users.push(added.member.user.id);
  }
  // One more member that only the experiments move in and out of a team, so the loops cannot mask
  // what they did to content's projection.
  const spare = (await admin.client.members.addMember({ organizationId, email: `spare-${run}@chaos.test`, role: admin.MemberRole.MEMBER_ROLE_EDIT })).member
    .user.id;
  admin.client.close();

  const now = { experiment: "setup", down: [] };
  const client = new ChaosClient({ baseUrl: stack.gatewayUrl, token: created.token, context: () => ({ experiment: now.experiment, down: [...now.down] }) });
  const setupDeadline = () => Date.now() + 30_000;
  const ids = { organizationId, run, spaces: [], teams: [] };
  for (let i = 0; i < 3; i++) {
    const space = await client.write({
      kind: "space",
      route: "space.create",
      method: "POST",
      path: `/orgs/${organizationId}/spaces`,
      body: { title: marker("s") },
      marker: null,
      deadline: setupDeadline(),
    });
    if (!space.succeeded) throw new Error(`setup: creating a space answered ${space.status}`);
    ids.spaces.push(space.body.id);
  }
  for (let i = 0; i < 2; i++) {
    const team = await client.write({
      kind: "team",
      route: "team.create",
      method: "PUT",
      path: `/orgs/${organizationId}/teams`,
      body: { title: `Team ${i} ${run}` },
      deadline: setupDeadline(),
    });
    if (!team.succeeded) throw new Error(`setup: creating a team answered ${team.status}`);
    ids.teams.push(team.body.id);
  }
  if (replicas) await replicaSetup({ client, ids, deadline: setupDeadline });
  log(
    `organization ${organizationId}: ${users.length + 1} members, ${ids.spaces.length} spaces, ${ids.teams.length} teams${replicas ? ", a published site" : ""}`,
  );

  // The loops: bounded in count, stopped when the experiments are over.
  let stopLoops = false;
  let loopsEnd = Infinity;
  // A write keeps retrying until past the longest outage and its restart, so one started just as a
  // process was killed still hears its result (a client that gives up earlier knows nothing).
  // (The replicas' plans keep no process down: their writes keep the 60 s they had.)
  const retryBudgetMs = Math.max(60_000, ...Object.values(plan.outages ?? {}).map((ms) => ms + 30_000));
  const writeDeadline = () => Math.min(Date.now() + retryBudgetMs, loopsEnd + plan.writeGrace);
  const pick = (list) => list[Math.floor(Math.random() * list.length)];
  const loop = async (body) => {
    for (let i = 0; i < plan.loops && !stopLoops; i++) {
      await body(i);
      await sleep(plan.pace);
    }
  };
  const loops = [
    // Spaces (content).
    loop(async () => {
      const title = marker("s");
      const space = await client.write({
        kind: "space",
        route: "space.create",
        method: "POST",
        path: `/orgs/${organizationId}/spaces`,
        body: { title },
        marker: title,
        deadline: writeDeadline(),
      });
      if (space.succeeded && space.body?.id) ids.spaces.push(space.body.id);
    }),
    // Comments: collaboration, counted by content from its events.
    loop(async () => {
      const text = marker("c");
      await client.write({
        kind: "comment",
        route: "comment.post",
        method: "POST",
        path: `/spaces/${pick(ids.spaces)}/comments`,
        body: { body: { markdown: text } },
        marker: text,
        deadline: writeDeadline(),
      });
    }),
    // Change requests and their merges: collaboration driving content's branches.
    loop(async () => {
      const subject = marker("r");
      const spaceId = pick(ids.spaces);
      const opened = await client.write({
        kind: "change-request",
        route: "change-request.create",
        method: "POST",
        path: `/spaces/${spaceId}/change-requests`,
        body: { subject },
        marker: subject,
        deadline: writeDeadline(),
      });
      if (!opened.succeeded || !opened.body?.id) return;
      await client.write({
        kind: "merge",
        route: "change-request.merge",
        method: "POST",
        path: `/spaces/${spaceId}/change-requests/${opened.body.id}/merge`,
        marker: subject,
        deadline: writeDeadline(),
      });
    }),
    // Team membership: identity, projected by content (team access).
    loop(async () => {
      const path = `/orgs/${organizationId}/teams/${pick(ids.teams)}/members/${pick(users)}`;
      if (Math.random() < 0.5) await client.write({ kind: "team-member", route: "team.member.add", method: "PUT", path, body: {}, deadline: writeDeadline() });
      else await client.write({ kind: "team-member", route: "team.member.remove", method: "DELETE", path, deadline: writeDeadline() });
    }),
    // Reads.
    loop(async (i) => {
      const spaceId = pick(ids.spaces);
      const reads = [
        ["space.get", `/spaces/${spaceId}`],
        ["space.list", `/orgs/${organizationId}/spaces`],
        ["comment.list", `/spaces/${spaceId}/comments`],
        ["change-request.list", `/spaces/${spaceId}/change-requests`],
        ["team.members", `/orgs/${organizationId}/teams/${pick(ids.teams)}/members`],
      ];
      const [route, path] = reads[i % reads.length];
      await client.get(route, path);
    }),
    loop(async (i) => {
      await client.get(i % 2 ? "space.get" : "space.list", i % 2 ? `/spaces/${pick(ids.spaces)}` : `/orgs/${organizationId}/spaces`);
    }),
    ...(replicas ? replicaLoops({ client, ids, loop, writeDeadline }) : []),
  ];

  const experiments = [];
  const waitReady = async (timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (Object.values(stack.units).every((unit) => unit.running)) {
        // /healthz/upstreams: every service has a serving copy (the gateway's /readyz is its own only).
        const ok = await fetch(`${stack.gatewayUrl}/healthz/upstreams`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return;
      }
      await sleep(200);
    }
    throw new Error("the stack was not ready again within 120 s");
  };
  /** Polls the routes that reach `service` until each answers 2xx; ms after `from`. */
  const reach = async (service, from) => {
    const paths = REACH_PROBES[service]?.(ids) ?? [];
    let latest = from;
    for (const path of paths) {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const answer = await client.send({ route: `probe.${service}`, method: "GET", path });
        if (answer.status >= 200 && answer.status < 300) {
          latest = Math.max(latest, Date.now());
          break;
        }
        if (Date.now() > deadline) return null;
        await sleep(100);
      }
    }
    return latest - from;
  };

  /** kill -9 `name`, keep it down `outageMs`, restart it; record when it was ready and reached again. */
  const outage = async (name, outageMs) => {
    const unit = stack.units[name];
    const experiment = { name: `kill -9 ${name}, down ${s(outageMs)}`, kind: "outage", unit: name, outageMs };
    experiments.push(experiment);
    log(`experiment: ${experiment.name}`);
    now.experiment = experiment.name;
    experiment.deadLettersBefore = await deadLetterCount(stack.infra.natsUrl).catch(() => null);
    unit.hold();
    const exited = nextEvent(unit, "exited");
    experiment.downAt = Date.now();
    now.down.push(name);
    unit.signal("SIGKILL");
    await exited;
    // A commit may still land between the signal and the exit (PostgreSQL's backends die one by one).
    experiment.goneAt = Date.now();
    await sleep(outageMs);
    const ready = nextEvent(unit, "ready");
    experiment.releasedAt = Date.now();
    await unit.release();
    const readyEvent = await ready;
    experiment.readyAt = readyEvent.at;
    now.down = now.down.filter((n) => n !== name);
    experiment.reachMs = REACH_PROBES[name] ? await reach(name, experiment.readyAt) : undefined;
    await waitReady();
    await sleep(plan.calm);
    experiment.deadLettersAfter = await deadLetterCount(stack.infra.natsUrl).catch(() => null);
    now.experiment = "calm";
  };

  /** SIGSTOP `name` right after a team change (its event in flight to content), then SIGCONT. */
  const pause = async (name, ms) => {
    const unit = stack.units[name];
    const experiment = { name: `SIGSTOP ${name} ${s(ms)} with an event in flight`, kind: "pause", unit: name };
    experiments.push(experiment);
    log(`experiment: ${experiment.name}`);
    now.experiment = experiment.name;
    void client.write({
      kind: "team-member",
      route: "team.member.add",
      method: "PUT",
      path: `/orgs/${organizationId}/teams/${ids.teams[0]}/members/${users[0]}`,
      body: {},
      deadline: writeDeadline(),
    });
    void client.write({
      kind: "team-member",
      route: "team.member.remove",
      method: "DELETE",
      path: `/orgs/${organizationId}/teams/${ids.teams[0]}/members/${users[0]}`,
      deadline: writeDeadline(),
    });
    await sleep(50);
    now.down.push(`${name} (paused)`);
    unit.signal("SIGSTOP");
    await sleep(ms);
    unit.signal("SIGCONT");
    now.down = now.down.filter((n) => n !== `${name} (paused)`);
    await waitReady();
    await sleep(plan.calm);
    now.experiment = "calm";
  };

  /**
   * kill -9 content while it holds an event it received and did not acknowledge: paused (SIGSTOP),
   * it is sent a team member's addition, then killed; the removal that follows is committed while it
   * is down. Restarted, it gets the removal at once and the addition again only when JetStream's ack
   * wait has passed: a projection that applies events in arrival order ends with a member identity
   * says has left.
   */
  const crashInFlight = async (name) => {
    const unit = stack.units[name];
    const experiment = { name: `kill -9 ${name} holding an unacknowledged event`, kind: "crash-in-flight", unit: name };
    experiments.push(experiment);
    log(`experiment: ${experiment.name}`);
    now.experiment = experiment.name;
    const path = `/orgs/${organizationId}/teams/${ids.teams[0]}/members/${spare}`;
    unit.hold();
    now.down.push(`${name} (paused)`);
    // It runs no more from here (killed, never continued): a write it committed just before is one
    // whose process was killed between its commit and its answer.
    experiment.downAt = Date.now();
    unit.signal("SIGSTOP");
    experiment.added = (await client.write({ kind: "team-member", route: "team.member.add", method: "PUT", path, body: {}, deadline: writeDeadline() })).status;
    // The outbox relay publishes it and JetStream pushes it into the paused process's socket.
    await sleep(2_000);
    const exited = nextEvent(unit, "exited");
    unit.signal("SIGKILL");
    await exited;
    now.down = now.down.filter((n) => n !== `${name} (paused)`);
    now.down.push(name);
    experiment.removed = (await client.write({ kind: "team-member", route: "team.member.remove", method: "DELETE", path, deadline: writeDeadline() })).status;
    const ready = nextEvent(unit, "ready");
    experiment.releasedAt = Date.now();
    await unit.release();
    experiment.readyAt = (await ready).at;
    now.down = now.down.filter((n) => n !== name);
    await waitReady();
    await sleep(plan.calm);
    now.experiment = "calm";
  };

  /** kill -9 `name` and let the supervisor restart it (no hold): as `npm start` would. */
  const supervised = async (name) => {
    const unit = stack.units[name];
    const experiment = { name: `kill -9 ${name}, restarted by the supervisor`, kind: "supervised", unit: name };
    experiments.push(experiment);
    log(`experiment: ${experiment.name}`);
    now.experiment = experiment.name;
    const ready = nextEvent(unit, "ready");
    experiment.downAt = Date.now();
    now.down.push(name);
    unit.signal("SIGKILL");
    const readyEvent = await ready.catch(() => null);
    now.down = now.down.filter((n) => n !== name);
    experiment.readyAt = readyEvent?.at ?? null;
    experiment.restartMs = readyEvent ? readyEvent.at - experiment.downAt : null;
    const answer = await client.get("space.list", `/orgs/${organizationId}/spaces`);
    experiment.servingAfter = answer.status === 200;
    await waitReady();
    await sleep(plan.calm);
    now.experiment = "calm";
  };

  let calls = null;
  if (replicas) {
    calls = await replicaExperiments({ stack, plan, client, now, ids, users, log, experiments, waitReady, writeDeadline, nextEvent });
  } else {
    now.experiment = "warm-up";
    await sleep(plan.calm);
    for (const service of ["identity", "content", "collaboration", "publishing", "integration"]) await outage(service, plan.outages[service]);
    await outage("nats", plan.outages.nats);
    await outage("postgres", plan.outages.postgres);
    await pause(plan.pause.target, plan.pause.ms);
    await crashInFlight("content");
    for (const name of plan.supervised) await supervised(name);
  }

  log("experiments done: stopping the loops");
  stopLoops = true;
  loopsEnd = Date.now();
  await Promise.all(loops);
  // Writes fired by the pause experiment may still be retrying.
  while (client.requests.some((request) => request.endedAt === 0)) await sleep(100);

  // Let the outbox relays and the consumers catch up, then audit.
  log("waiting for the events to drain");
  // Drained: everything published and delivered, and no consumer awaiting an acknowledgement, or
  // the same number for longer than its ack wait (what a dead process held is due again by then).
  // A consumer whose ack wait is longer than the suite waits (search: 5 minutes) is not waited for:
  // the audit shows what it holds as late.
  const settleStart = Date.now();
  let settled = false;
  let last = null;
  const heldSince = new Map();
  while (Date.now() - settleStart < plan.settle) {
    last = await backlog({ databaseUrls: stack.infra.databaseUrls, natsUrl: stack.infra.natsUrl }).catch(() => null);
    const at = Date.now();
    for (const consumer of last?.consumers ?? []) {
      if (heldSince.get(consumer.name)?.count !== consumer.ackPending) heldSince.set(consumer.name, { count: consumer.ackPending, since: at });
    }
    const awaited = (last?.consumers ?? []).filter(
      (consumer) => consumer.ackPending > 0 && consumer.ackWaitMs <= plan.settle && at - heldSince.get(consumer.name).since <= consumer.ackWaitMs + 5_000,
    );
    if (last && last.unpublished === 0 && last.pending === 0 && awaited.length === 0) {
      settled = true;
      break;
    }
    await sleep(1_000);
  }
  const settleMs = Date.now() - settleStart;
  const summary = last && { unpublished: last.unpublished, pending: last.pending, ackPending: last.ackPending };
  log(settled ? `drained in ${s(settleMs)}; auditing` : `not drained after ${s(settleMs)} (${JSON.stringify(summary)}); auditing anyway`);
  const result = await audit({ databaseUrls: stack.infra.databaseUrls, natsUrl: stack.infra.natsUrl, writes: client.writes });

  return figures({ plan, short, replicas, client, experiments, result, settled, settleMs, started, supervision, calls });
}

/**
 * Which services commit each kind of write the loops send and carry its answer back: a merge
 * commits in content and is answered through collaboration, which records it.
 */
const WRITE_OWNERS = {
  space: ["content"],
  comment: ["collaboration"],
  "change-request": ["collaboration"],
  merge: ["content", "collaboration"],
  "team-member": ["identity"],
  site: ["publishing"],
};
/** How long before a kill -9 a commit may land and still be the one the dead process could not answer. */
const KILL_WINDOW_MS = 250;

/**
 * Whether `write` committed within KILL_WINDOW_MS before a kill -9 of a process that committed it or
 * carries its answer, and was then answered only "applied, read the result" (409) or a later success: the one case where
 * no process is left to give the write's answer. With copies, the kill of either copy of the
 * service that commits it (which copy committed is not recorded). PostgreSQL commits every write:
 * killed after a commit and before acknowledging it, it leaves the service that asked with an
 * unknown outcome, which its answer (503) says and the retry resolves.
 */
function killedBeforeAnswering(write, experiments) {
  const owners = [...(WRITE_OWNERS[write.kind] ?? []), "postgres"];
  const last = write.attempts.at(-1);
  const honest = write.succeeded || (last?.status === 409 && /was applied/.test(JSON.stringify(write.body ?? "")));
  return (
    honest &&
    experiments.some(
      (experiment) =>
        owners.includes(experiment.target ?? experiment.unit) &&
        experiment.downAt !== undefined &&
        (write.committedAt ?? []).some((at) => at <= (experiment.goneAt ?? experiment.downAt) + 5 && at >= experiment.downAt - KILL_WINDOW_MS),
    )
  );
}

/** The table: figures against the targets of issue 23, and whether each is met. */
export function figures({ plan, short, replicas = false, client, experiments, result, settled, settleMs, started, supervision, calls = null }) {
  const rows = [];
  const row = (figure, value, target, passed) => rows.push({ figure, value: String(value), target, passed });

  row(
    "events lost / applied twice / projections diverged after all scenarios",
    `${result.lost} / ${result.appliedTwice} / ${result.diverged}`,
    "0 / 0 / 0",
    result.lost === 0 && result.appliedTwice === 0 && result.diverged === 0,
  );
  // Late is not lost: JetStream redelivers what a dead process held once the consumer's ack wait has
  // passed (5 minutes for search), longer than the suite waits. Shown, not judged.
  const late = result.consumers.filter((c) => c.waiting > 0);
  const unpublished = result.outbox.reduce((sum, o) => sum + o.unpublished, 0);
  row(
    "events still waiting for their consumer when audited (ack wait)",
    late.length || unpublished
      ? [unpublished ? `${unpublished} unpublished` : "", ...late.map((c) => `${c.waiting} ${c.consumer} (ack wait ${s(c.ackWaitMs)})`)]
          .filter(Boolean)
          .join(", ")
      : "0",
    "late, not lost",
    unpublished === 0,
  );
  if (!replicas) {
    const database = experiments.find((e) => e.unit === "postgres");
    const dbDeadLetters =
      database && database.deadLettersBefore !== null && database.deadLettersAfter !== null ? database.deadLettersAfter - database.deadLettersBefore : null;
    row(`events dead-lettered by a ${s(plan.outages.postgres)} database outage`, dbDeadLetters ?? "unknown", "0", dbDeadLetters === 0);
  }
  row("dead letters in IMPRINT_DLQ after all scenarios", result.deadLetters, "0", result.deadLetters === 0);
  // A write committed in the instant before kill -9 hit the process committing it, before it kept
  // the answer: no process is left to answer it, and its retry is told the truth (409: applied, read
  // the result), never run again. Shown apart; every other committed write answered with an error fails.
  const killedInWindow = result.writes.committedButError.filter((write) => killedBeforeAnswering(write, experiments));
  const answeredWrong = result.writes.committedButError.filter((write) => !killedInWindow.includes(write));
  result.writes.killedBeforeAnswering = killedInWindow;
  row(
    "writes committed but answered with an error",
    `${answeredWrong.length} of ${result.writes.committed}${killedInWindow.length ? ` (and ${killedInWindow.length} whose process was killed between commit and answer: 409 "applied")` : ""}`,
    "0",
    answeredWrong.length === 0,
  );
  row("writes applied twice by a retry (same Idempotency-Key)", result.writes.duplicated.length, "0", result.writes.duplicated.length === 0);
  if (replicas) replicaRows({ client, experiments, calls, row });
  else faultRows({ plan, client, experiments, row });

  // Where the 500s came from: which experiment, which route.
  // Replicas: every request of an experiment (with copies, nothing is ever down for the callers).
  const during = client.requests.filter((r) => (replicas ? experiments.some((e) => e.name === r.experiment) : r.down.length > 0));
  const fiveHundredsBy = {};
  for (const r of during.filter((request) => request.status === 500)) {
    const key = `${r.experiment}: ${r.route}`;
    fiveHundredsBy[key] = (fiveHundredsBy[key] ?? 0) + 1;
  }
  const passed = rows.every((r) => r.passed);
  return {
    short,
    replicas,
    passed,
    rows,
    audit: result,
    experiments,
    settled,
    settleMs,
    requests: client.requests.length,
    writes: client.writes.length,
    durationMs: Date.now() - started,
    fiveHundredsBy,
    supervision,
    calls,
  };
}

/** The rows of the fault run (one copy of everything), after the audit's. */
function faultRows({ client, experiments, row }) {
  const identity = experiments.find((e) => e.unit === "identity");
  const duringIdentity = client.requests.filter((r) => r.down.includes("identity") && NO_IDENTITY_ROUTES.has(r.route));
  const failed = duringIdentity.filter((r) => r.status === 0 || r.status >= 500 || r.status === 401);
  const share = duringIdentity.length ? (100 * failed.length) / duringIdentity.length : 0;
  row(
    `requests failed on routes that do not need identity, while identity is down ${s(identity?.outageMs ?? 0)}`,
    `${share.toFixed(0)}% (${failed.length} of ${duringIdentity.length})`,
    "0 (token used in the last 5 minutes)",
    duringIdentity.length > 0 && failed.length === 0,
  );

  const during = client.requests.filter((r) => r.down.length > 0);
  const fiveHundreds = during.filter((r) => r.status === 500).length;
  row("answers 500 during any outage", `${fiveHundreds} of ${during.length}`, "0", fiveHundreds === 0);

  const reaches = experiments.filter((e) => e.reachMs !== undefined);
  const worst = reaches.reduce((max, e) => (e.reachMs === null ? Infinity : Math.max(max, e.reachMs)), 0);
  const slowest = reaches.find((e) => e.reachMs === worst || (worst === Infinity && e.reachMs === null));
  row(
    "time from a service's restart to its callers reaching it",
    worst === Infinity ? `never (${slowest?.unit})` : `up to ${s(worst)}${slowest ? ` (${slowest.unit})` : ""}`,
    "≤ 2 s",
    worst <= 2_000,
  );

  const kills = experiments.filter((e) => e.kind === "supervised");
  const restarted = kills.every((e) => e.restartMs !== null && e.servingAfter);
  row(
    "a kill -9 under the supervisor (npm start)",
    kills
      .map((e) => (e.restartMs === null ? `${e.unit} not restarted` : `${e.unit} back in ${s(e.restartMs)}${e.servingAfter ? "" : ", not serving"}`))
      .join(", "),
    "process restarted, stack keeps serving",
    kills.length > 0 && restarted,
  );
}

/** The table as text (figure | value | target | ✔/✖), then the audit's details. */
export function formatReport(report) {
  const header = ["figure", "value", "target", "ok"];
  const lines = [header, ...report.rows.map((r) => [r.figure, r.value, r.target, r.passed ? "✔" : "✖"])];
  const widths = header.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  const text = [];
  text.push(
    `chaos ${[report.replicas ? "--replicas" : "", report.short ? "--short" : ""].filter(Boolean).join(" ") || "(full)"}: ${report.requests} requests (${report.writes} writes) over ${report.experiments.length} experiments in ${s(report.durationMs)}`,
    "",
  );
  text.push(
    ...lines.map(
      (line, index) => `${line.map((cell, i) => cell.padEnd(widths[i])).join(" | ")}${index === 0 ? `\n${widths.map((w) => "-".repeat(w)).join("-|-")}` : ""}`,
    ),
  );
  text.push("", "experiments:");
  for (const e of report.experiments) {
    if (report.replicas) {
      text.push(`  ${describeReplicaExperiment(e)}`);
      continue;
    }
    const parts = [e.name];
    if (e.readyAt && e.releasedAt) parts.push(`ready ${s(e.readyAt - e.releasedAt)} after its restart`);
    if (e.reachMs !== undefined) parts.push(e.reachMs === null ? "callers never reached it" : `callers reached it ${s(e.reachMs)} after it was ready`);
    if (e.restartMs !== undefined) parts.push(e.restartMs === null ? "not restarted" : `back ${s(e.restartMs)} after the kill`);
    if (e.deadLettersAfter !== undefined && e.deadLettersBefore !== null && e.deadLettersAfter !== null)
      parts.push(`${e.deadLettersAfter - e.deadLettersBefore} dead-lettered`);
    text.push(`  ${parts.join("; ")}`);
  }
  if (report.calls) {
    text.push("", "gRPC calls per copy over the whole run (each copy's channelz):");
    for (const [service, copies] of Object.entries(report.calls))
      text.push(`  ${service}: ${copies.map((c) => `${c.address} ${c.calls} (${c.processes} processes)`).join(", ")}`);
  }
  const { audit: a } = report;
  text.push("", "outbox → stream:");
  for (const o of a.outbox)
    text.push(
      `  ${o.service}: ${o.rows} events, ${o.unpublished} unpublished, ${o.missingFromStream} missing from the stream${o.missingIds.length ? ` (${o.missingIds.join(", ")})` : ""}`,
    );
  if (a.duplicatedInStreams) text.push(`  ${a.duplicatedInStreams} event ids stored twice in the streams`);
  text.push("stream → consumers (expected / processed / dead-lettered / lost / applied twice):");
  for (const c of a.consumers) {
    const notes = [
      c.waiting ? `${c.waiting} due again after the ack wait (${s(c.ackWaitMs)})` : "",
      c.deadButProcessed ? `${c.deadButProcessed} dead-lettered though processed` : "",
      c.pending ? `${c.pending} not delivered yet` : "",
      c.unacknowledged ? `${c.unacknowledged} delivered, not acknowledged` : "",
      c.unknown ? `${c.unknown} processed ids not on the stream` : "",
      c.lostIds.length ? `missing: ${c.lostIds.join(", ")}` : "",
    ].filter(Boolean);
    text.push(
      `  ${c.consumer} (${c.owner ?? "unknown owner"}): ${c.expected} / ${c.processed} / ${c.deadLettered} / ${c.lost} / ${c.appliedTwice}${notes.length ? `; ${notes.join("; ")}` : ""}`,
    );
  }
  text.push("projections vs source of truth:");
  for (const p of a.projections) {
    text.push(`  ${p.name}: ${p.rows} rows, ${p.diverged.length} diverged`);
    for (const d of p.diverged.slice(0, 5)) text.push(`    ${d.key}: source ${JSON.stringify(d.source)} projection ${JSON.stringify(d.projection)}`);
  }
  const sources = Object.entries(report.fiveHundredsBy ?? {}).sort((x, y) => y[1] - x[1]);
  if (sources.length) {
    text.push("answers 500 during outages, by experiment and route:");
    for (const [key, count] of sources.slice(0, 12)) text.push(`  ${count} ${key}`);
  }
  const byKind = (list) =>
    Object.entries(Object.groupBy(list, (write) => write.kind))
      .map(([kind, items]) => `${items.length} ${kind}`)
      .join(", ");
  // Each write's attempts (status, 0 for no answer; the experiment under way), to tell what answered wrong.
  const attemptsOf = (write) => write.attempts.map((attempt) => `${attempt.status}${attempt.experiment ? ` (${attempt.experiment})` : ""}`).join(", ");
  if (a.writes.committedButError.length) {
    text.push(
      `committed but answered with an error (process killed between commit and answer: ${a.writes.killedBeforeAnswering?.length ?? 0}): ${byKind(a.writes.committedButError)}`,
    );
    // When it committed against when each attempt ran, and what the gateway said: which attempt's
    // answer hid the commit, and which hop failed.
    const clock = (ms) => new Date(ms).toISOString().slice(11, 23);
    for (const write of a.writes.committedButError.slice(0, 10)) {
      text.push(`  ${write.kind} ${write.marker}: committed at ${(write.committedAt ?? []).map(clock).join(", ") || "?"}`);
      for (const attempt of write.attempts) {
        const why = [attempt.error, attempt.message].filter(Boolean).join(": ");
        text.push(
          `    ${attempt.status} ${clock(attempt.startedAt)}–${clock(attempt.endedAt)}${attempt.experiment ? ` (${attempt.experiment})` : ""}${why ? ` ${why}` : ""}`,
        );
      }
    }
  }
  if (a.writes.duplicated.length) {
    text.push(`applied twice by a retry: ${byKind(a.writes.duplicated)}`);
    for (const write of a.writes.duplicated.slice(0, 10)) text.push(`  ${write.kind} ${write.marker}: ${attemptsOf(write)}`);
  }
  text.push(
    `writes: ${a.writes.checked} checked, ${a.writes.committed} committed, ${a.writes.committedButError.length} committed but answered with an error, ${a.writes.duplicated.length} applied twice, ${a.writes.lostAfterSuccess.length} answered 2xx but not found`,
  );
  text.push("", report.passed ? "✔ every figure meets its target" : "✖ some figures miss their target");
  return text.join("\n");
}
