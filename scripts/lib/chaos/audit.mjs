// The chaos suite's exact audit: every service's outbox against its JetStream stream (by event id,
// the Nats-Msg-Id), every durable consumer's processed events against the messages on its filter
// (and the dead-letter stream), every projection against its source of truth, and the loops'
// writes against what the databases hold. The SQL is in sql.mjs.
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import pg from "pg";
import * as sql from "./sql.mjs";

export const DEAD_LETTER_STREAM = "IMPRINT_DLQ";

/** Runs `fn(client)` on a fresh connection to `url`. */
export async function withDatabase(url, fn) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const rows = async (url, text, values = []) => withDatabase(url, async (client) => (await client.query(text, values)).rows);

/** NATS subject matching with `*` (one token) and `>` (the rest). */
export function subjectMatches(filter, subject) {
  const f = filter.split(".");
  const s = subject.split(".");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === ">") return s.length > i;
    if (i >= s.length || (f[i] !== "*" && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}

async function withNats(natsUrl, fn) {
  const nc = await connect({ servers: natsUrl, name: "imprint-chaos-audit", timeout: 5_000 });
  try {
    return await fn(nc);
  } finally {
    await nc.close().catch(() => {});
  }
}

/** The replay work queue: a consumer's replayed dead letters, accounted under that consumer. */
const REPLAY_STREAM = "IMPRINT_REPLAY";

/**
 * The streams of Imprint's events (IMPRINT_<CONTEXT>, the dead letters and the replay queue): not
 * the gateway's idempotency bucket (KV_…) or anything else on the server.
 */
async function streamNames(jsm) {
  const names = [];
  for await (const info of jsm.streams.list()) if (info.config.name.startsWith("IMPRINT_")) names.push(info.config.name);
  return names;
}

/** Every message of `stream`, read with an ordered consumer: {seq, subject, msgId, body}. */
async function readStream(js, jsm, stream) {
  const info = await jsm.streams.info(stream);
  const messages = [];
  if (info.state.messages === 0) return messages;
  const last = info.state.last_seq;
  const consumer = await js.consumers.get(stream);
  while (messages.length === 0 || messages.at(-1).seq < last) {
    const batch = await consumer.fetch({ max_messages: 500, expires: 5_000 });
    let got = 0;
    for await (const m of batch) {
      got++;
      let body = null;
      try {
        body = m.json();
      } catch {
        // Not JSON: a poison message; its id is only in the header.
      }
      messages.push({ seq: m.seq, subject: m.subject, msgId: m.headers?.get("Nats-Msg-Id") ?? null, body });
      if (m.seq >= last) break;
    }
    if (got === 0) break;
  }
  return messages;
}

/** The event id a stream message carries: the envelope's id, else its Nats-Msg-Id. */
const eventIdOf = (message) => (typeof message.body?.id === "string" ? message.body.id : message.msgId);

/** A dead letter's consumer (from its subject imprint.dlq.<consumer>) and event id (body or header). */
function deadLetterOf(message) {
  const consumer = message.subject.split(".").slice(2).join(".") || message.body?.consumer || "";
  const eventId =
    message.body?.envelope?.id ?? message.body?.eventId ?? message.body?.event?.id ?? (message.msgId?.includes(":") ? message.msgId.split(":").pop() : null);
  return { consumer, eventId };
}

/** The service whose database holds a durable consumer's records: by its name prefix, else where its records are. */
function ownerOf(consumer, services, processedByService) {
  const byPrefix = services.find((service) => consumer.startsWith(`${service}-`));
  if (byPrefix) return byPrefix;
  return services.find((service) => processedByService[service]?.some((row) => row.consumer === consumer)) ?? null;
}

/**
 * How many events wait: unpublished outbox rows, messages not delivered to a durable consumer yet,
 * and delivered but not acknowledged; `consumers` [{name, ackPending, ackWaitMs}] the last per consumer.
 */
export async function backlog({ databaseUrls, natsUrl }) {
  let unpublished = 0;
  for (const url of Object.values(databaseUrls)) {
    unpublished += (await rows(url, sql.OUTBOX_EVENTS)).filter((row) => !row.published).length;
  }
  const counts = await withNats(natsUrl, async (nc) => {
    const jsm = await jetstreamManager(nc);
    const counts = { pending: 0, ackPending: 0, consumers: [] };
    for (const stream of await streamNames(jsm)) {
      if (stream === DEAD_LETTER_STREAM) continue;
      for await (const consumer of jsm.consumers.list(stream)) {
        if (!consumer.config.durable_name) continue;
        counts.pending += consumer.num_pending;
        counts.ackPending += consumer.num_ack_pending;
        counts.consumers.push({
          name: consumer.config.durable_name,
          ackPending: consumer.num_ack_pending,
          ackWaitMs: Math.round((consumer.config.ack_wait ?? 0) / 1_000_000),
        });
      }
    }
    return counts;
  });
  return { unpublished, ...counts };
}

/** Messages in the dead-letter stream (0 when it does not exist). */
export async function deadLetterCount(natsUrl) {
  return withNats(natsUrl, async (nc) => {
    const jsm = await jetstreamManager(nc);
    try {
      return (await jsm.streams.info(DEAD_LETTER_STREAM)).state.messages;
    } catch {
      return 0;
    }
  });
}

/** Rows of `a` and `b` (keyed by `key`) that differ, with both sides. */
function differences(source, projection, key, compare) {
  const left = new Map(source.map((row) => [key(row), row]));
  const right = new Map(projection.map((row) => [key(row), row]));
  const diverged = [];
  for (const k of new Set([...left.keys(), ...right.keys()])) {
    if (!compare(left.get(k), right.get(k))) diverged.push({ key: k, source: left.get(k) ?? null, projection: right.get(k) ?? null });
  }
  return diverged;
}

/**
 * Every projection against its source of truth: [{name, rows, diverged: [{key, source, projection}]}].
 * Keys: "<team id>/<user id>" for team memberships, the space id for counters and publications.
 */
export async function compareProjections(databaseUrls) {
  const projections = [];
  if (databaseUrls.identity && databaseUrls.content) {
    const source = await rows(databaseUrls.identity, sql.IDENTITY_TEAM_MEMBERS);
    const projection = await rows(databaseUrls.content, sql.CONTENT_TEAM_MEMBERSHIPS);
    const key = (row) => `${row.team_id}/${row.user_id}`;
    projections.push({
      name: "content team memberships = identity team members",
      rows: source.length,
      diverged: differences(source, projection, key, (a, b) => Boolean(a) === Boolean(b)),
    });
  }
  if (databaseUrls.collaboration && databaseUrls.content) {
    const source = await rows(databaseUrls.collaboration, sql.COLLABORATION_SPACE_COUNTS);
    const projection = await rows(databaseUrls.content, sql.CONTENT_SPACE_COUNTERS);
    const fields = ["change_requests", "change_requests_open", "change_requests_draft", "comments"];
    const known = new Set(projection.map((row) => row.space_id));
    projections.push({
      name: "content space counters = collaboration counts",
      rows: projection.length,
      // A space content does not have (deleted for good) has no counters to compare.
      diverged: differences(
        source.filter((row) => known.has(row.space_id)),
        projection,
        (row) => row.space_id,
        (a, b) => fields.every((field) => Number(a?.[field] ?? 0) === Number(b?.[field] ?? 0)),
      ),
    });
  }
  if (databaseUrls.publishing && databaseUrls.content) {
    const source = (await rows(databaseUrls.publishing, sql.PUBLISHING_SPACE_PUBLICATIONS)).filter((row) => row.address !== null);
    const projection = await rows(databaseUrls.content, sql.CONTENT_SPACE_PUBLICATIONS);
    projections.push({
      name: "content urls.published = publishing's",
      rows: source.length,
      diverged: differences(
        source,
        projection,
        (row) => row.space_id,
        (a, b) => (a?.address ?? null) === (b?.address ?? null),
      ),
    });
  }
  if (databaseUrls.collaboration && databaseUrls.content) {
    const source = await rows(databaseUrls.content, sql.CONTENT_BRANCH_MERGES);
    const projection = await rows(databaseUrls.collaboration, sql.COLLABORATION_CHANGE_REQUEST_MERGES);
    const recorded = new Set(projection.map((row) => row.id));
    const branched = new Set(source.map((row) => row.id));
    projections.push({
      name: "collaboration merged change requests = content merged branches",
      rows: source.filter((row) => row.merged_revision_id !== null).length,
      // Only pairs both sides hold: a deleted space's change requests or branches may be gone on one side first.
      diverged: differences(
        source.filter((row) => recorded.has(row.id)),
        projection.filter((row) => branched.has(row.id)),
        (row) => row.id,
        (a, b) => (a?.merged_revision_id ?? null) === (b?.merged_revision_id ?? null),
      ),
    });
  }
  return projections;
}

/**
 * The audit. `databaseUrls` {service: url}; `writes` the loops' writes {kind, marker, attempts:
 * [{status}], final}. Returns every count the table needs and the details behind them.
 */
export async function audit({ databaseUrls, natsUrl, writes = [] }) {
  const services = Object.keys(databaseUrls);
  const outbox = {};
  const processedByService = {};
  for (const service of services) {
    outbox[service] = await rows(databaseUrls[service], sql.OUTBOX_EVENTS);
    processedByService[service] = await rows(databaseUrls[service], sql.PROCESSED_EVENTS);
  }

  const { streams, consumers, deadLetters } = await withNats(natsUrl, async (nc) => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const streams = {};
    const consumers = [];
    let deadLetters = [];
    for (const name of await streamNames(jsm)) {
      if (name === REPLAY_STREAM) continue;
      const messages = await readStream(js, jsm, name);
      if (name === DEAD_LETTER_STREAM) {
        deadLetters = messages.map(deadLetterOf);
        continue;
      }
      streams[name] = messages;
      for await (const info of jsm.consumers.list(name)) {
        if (!info.config.durable_name) continue;
        const filters = info.config.filter_subjects?.length ? info.config.filter_subjects : [info.config.filter_subject || ">"];
        consumers.push({
          name: info.config.durable_name,
          stream: name,
          filters,
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          ackWaitMs: Math.round((info.config.ack_wait ?? 0) / 1_000_000),
        });
      }
    }
    return { streams, consumers, deadLetters };
  });

  // Outbox → stream: every committed event is on its context's stream, once.
  const streamIds = new Map();
  const subjects = new Map();
  for (const messages of Object.values(streams)) {
    for (const message of messages) {
      const id = eventIdOf(message);
      subjects.set(id, message.subject);
      streamIds.set(id, (streamIds.get(id) ?? 0) + 1);
    }
  }
  const outboxReport = services.map((service) => {
    const missing = outbox[service].filter((row) => !streamIds.has(row.id));
    return {
      service,
      rows: outbox[service].length,
      unpublished: outbox[service].filter((row) => !row.published).length,
      missingFromStream: missing.length,
      missingIds: missing.slice(0, 5).map((row) => `${row.type} ${row.id}`),
    };
  });
  const duplicatedInStreams = [...streamIds.values()].filter((count) => count > 1).length;

  // Stream → each durable consumer: every event on its filter processed once, or dead-lettered.
  const deadLettered = new Map();
  for (const letter of deadLetters) {
    if (!deadLettered.has(letter.consumer)) deadLettered.set(letter.consumer, new Set());
    deadLettered.get(letter.consumer).add(letter.eventId);
  }
  const consumerReport = consumers.map((consumer) => {
    const owner = ownerOf(consumer.name, services, processedByService);
    const expected = new Set(streams[consumer.stream].filter((m) => consumer.filters.some((f) => subjectMatches(f, m.subject))).map(eventIdOf));
    const processedRows = owner ? processedByService[owner].filter((row) => row.consumer === consumer.name) : [];
    const processed = new Map();
    for (const row of processedRows) processed.set(row.event_id, (processed.get(row.event_id) ?? 0) + 1);
    const dead = deadLettered.get(consumer.name) ?? new Set();
    const missing = [...expected].filter((id) => !processed.has(id) && !dead.has(id));
    // JetStream still holds some for this consumer (not delivered yet, or delivered to a process that
    // died and due again after the ack wait, 5 minutes for search): those are late, not lost.
    const waiting = Math.min(missing.length, consumer.pending + consumer.ackPending);
    const lost = missing.slice(0, missing.length - waiting);
    // processed_events' key makes a second record impossible; an event both processed and
    // dead-lettered was applied once (its commit answered late): a replay would find it done.
    const twice = [...processed.values()].filter((count) => count > 1).length;
    const deadButProcessed = [...dead].filter((id) => processed.has(id)).length;
    const unknown = [...processed.keys()].filter((id) => !expected.has(id)).length;
    return {
      consumer: consumer.name,
      stream: consumer.stream,
      owner,
      expected: expected.size,
      processed: processed.size,
      deadLettered: dead.size,
      lost: lost.length,
      waiting,
      // Which of the missing ones are late cannot be told apart: all are listed.
      lostIds: missing.slice(0, 5).map((id) => `${subjects.get(id) ?? "?"} ${id}`),
      appliedTwice: twice,
      deadButProcessed,
      unknown,
      pending: consumer.pending,
      unacknowledged: consumer.ackPending,
      ackWaitMs: consumer.ackWaitMs,
    };
  });

  const projections = await compareProjections(databaseUrls);

  // Writes against the databases: committed or not, how many copies, and whether an attempt that
  // was answered with an error (5xx) is the one that committed: the copy was created while that
  // attempt was in flight.
  const copies = new Map();
  const add = (marker, createdMs) => {
    if (!marker) return;
    if (!copies.has(marker)) copies.set(marker, []);
    copies.get(marker).push(createdMs);
  };
  // A merge commits in content; collaboration's record of it follows (in the same call, or from the
  // merge resumer or content's event once either is back), checked as a projection above.
  const merges = new Map();
  if (databaseUrls.content) {
    for (const row of await rows(databaseUrls.content, sql.CONTENT_MARKED_SPACES)) add(row.marker, row.created_ms);
    for (const row of await rows(databaseUrls.content, sql.CONTENT_MARKED_MERGES)) merges.set(row.marker, [...(merges.get(row.marker) ?? []), row.merged_ms]);
  }
  if (databaseUrls.collaboration) {
    for (const row of await rows(databaseUrls.collaboration, sql.COLLABORATION_MARKED_COMMENTS)) add(row.marker, row.created_ms);
    for (const row of await rows(databaseUrls.collaboration, sql.COLLABORATION_MARKED_CHANGE_REQUESTS)) add(row.marker, row.created_ms);
  }
  // Timestamps come from the services' clocks (same machine), in ms: allow the rounding.
  const SLACK_MS = 5;
  const writeReport = { checked: 0, committed: 0, committedButError: [], duplicated: [], lostAfterSuccess: [] };
  for (const write of writes) {
    if (!write.marker) continue;
    writeReport.checked++;
    const found = (write.kind === "merge" ? merges.get(write.marker) : copies.get(write.marker)) ?? [];
    if (found.length > 0) writeReport.committed++;
    const erroredCommit = write.attempts.some(
      (attempt) => attempt.status >= 500 && found.some((at) => at >= attempt.startedAt - SLACK_MS && at <= attempt.endedAt + SLACK_MS),
    );
    if (erroredCommit || (found.length > 0 && !write.succeeded)) writeReport.committedButError.push({ ...write, committedAt: found });
    if (found.length > 1) writeReport.duplicated.push(write);
    if (found.length === 0 && write.succeeded) writeReport.lostAfterSuccess.push(write);
  }

  const lost =
    outboxReport.reduce((sum, row) => sum + row.missingFromStream, 0) +
    consumerReport.reduce((sum, row) => sum + row.lost, 0) +
    writeReport.lostAfterSuccess.length;
  const appliedTwice = duplicatedInStreams + consumerReport.reduce((sum, row) => sum + row.appliedTwice, 0);
  const diverged = projections.reduce((sum, projection) => sum + projection.diverged.length, 0);
  return {
    lost,
    waiting: consumerReport.reduce((sum, row) => sum + row.waiting, 0),
    appliedTwice,
    diverged,
    deadLetters: deadLetters.length,
    outbox: outboxReport,
    duplicatedInStreams,
    consumers: consumerReport,
    projections,
    writes: writeReport,
  };
}
