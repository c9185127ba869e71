import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { discardDeadLetter, findDeadLetters, listDeadLetters, replayDeadLetter, unreplayable, type DeadLetter } from "./dead-letters.js";
import { connectNats } from "./nats.js";

export const EVENTS_ADMIN_HELP = `Dead letters: events a consumer could never handle (malformed, undecodable, or rejected as
invalid by its handler), kept in the IMPRINT_DLQ stream for 30 days.

  events dead-letters list [--consumer <name>]
      One line per dead letter: sequence, consumer, event type, event id, failedAt, error,
      attempts; "no dead letters" when there are none.
  events dead-letters show <sequence|event id> [--consumer <name>]
      The whole dead letter, as JSON.
  events dead-letters replay (<sequence|event id> | --all) [--consumer <name>]
      Hands the event back to the consumer that gave up on it (no other consumer sees it again),
      then removes the dead letter. Fix the cause first (deploy the fixed handler).
  events dead-letters discard (<sequence|event id> | --all) [--consumer <name>]
      Removes dead letters without replaying them (e.g. a message that was never an event).

NATS is found through NATS_URL, else through \${IMPRINT_DATA_DIR:-.imprint}/stack.json (written by
\`npm start\`).`;

export interface EventsAdminIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

/** A failure to report on one line of stderr. */
class CliError extends Error {}

async function natsUrl(env: EventsAdminIo["env"]): Promise<{ url: string; source: string }> {
  if (env.NATS_URL) return { url: env.NATS_URL, source: "NATS_URL" };
  const stackFile = join(env.IMPRINT_DATA_DIR || ".imprint", "stack.json");
  let text: string;
  try {
    text = await readFile(stackFile, "utf8");
  } catch {
    throw new CliError(
      `cannot find NATS: no ${stackFile} (is \`npm start\` running? if it uses another data directory, set IMPRINT_DATA_DIR to it), or set NATS_URL`,
    );
  }
  const stack = JSON.parse(text) as { natsUrl?: unknown };
  if (typeof stack.natsUrl !== "string") throw new CliError(`${stackFile} has no natsUrl (restart \`npm start\`), or set NATS_URL`);
  return { url: stack.natsUrl, source: stackFile };
}

function line(letter: DeadLetter): string {
  const event = letter.envelope;
  return [
    String(letter.sequence),
    `consumer=${letter.consumer}`,
    `type=${event?.type ?? "-"}`,
    `event=${event?.id ?? "-"}`,
    `failedAt=${letter.failedAt || "-"}`,
    `error=${JSON.stringify(letter.error)}`,
    `attempts=${letter.attempts}`,
  ].join(" ");
}

/**
 * `events dead-letters list|show|replay|discard` of the admin CLI (`npm run admin -- events ...`).
 * Returns the exit code.
 */
export async function runEventsAdmin(argv: readonly string[], io: EventsAdminIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    io.err(`imprint-admin: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function run(argv: readonly string[], io: EventsAdminIo): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun !== "dead-letters" || verb === undefined || rest.includes("--help") || verb === "--help") {
    io.out(EVENTS_ADMIN_HELP);
    return noun === "dead-letters" && (verb === "--help" || rest.includes("--help")) ? 0 : 1;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { consumer: { type: "string" }, all: { type: "boolean" } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  const { consumer, all } = parsed.values;
  const refs = parsed.positionals;
  const query = consumer === undefined ? {} : { consumer };
  if (!["list", "show", "replay", "discard"].includes(verb)) throw new CliError(`unknown command "events dead-letters ${verb}"; run with --help`);
  if (verb === "list" && (refs.length > 0 || all)) throw new CliError("list takes no sequence or --all (only --consumer)");
  if (verb === "show" && (refs.length !== 1 || all)) throw new CliError("show takes one dead-letter sequence or event id");
  if ((verb === "replay" || verb === "discard") && (all ? refs.length > 0 : refs.length !== 1)) {
    throw new CliError(`${verb} takes one dead-letter sequence or event id, or --all`);
  }

  const { url, source } = await natsUrl(io.env);
  const nc = await connectNats(url, "imprint-admin").catch((error: unknown) => {
    throw new CliError(`cannot reach NATS at ${url} (from ${source}): ${error instanceof Error ? error.message : String(error)}`);
  });
  try {
    if (verb === "list") {
      const letters = await listDeadLetters(nc, query);
      if (letters.length === 0) io.out("no dead letters");
      for (const letter of letters) io.out(line(letter));
      return 0;
    }
    const letters = all ? await listDeadLetters(nc, query) : await findDeadLetters(nc, refs[0]!, query);
    if (letters.length === 0) {
      if (all) {
        io.out("no dead letters");
        return 0;
      }
      throw new CliError(`no dead letter ${refs[0]}${consumer ? ` of consumer ${consumer}` : ""} (see \`events dead-letters list\`)`);
    }
    if (verb === "show") {
      for (const letter of letters) io.out(JSON.stringify({ sequence: letter.sequence, ...letter.record }, null, 2));
      return 0;
    }
    let failed = 0;
    for (const letter of letters) {
      const what = `${letter.sequence} (${letter.envelope?.type ?? "not an event"} ${letter.envelope?.id ?? ""}`.trimEnd() + `) of ${letter.consumer}`;
      if (verb === "discard") {
        await discardDeadLetter(nc, letter);
        io.out(`discarded ${what}`);
        continue;
      }
      const problem = unreplayable(letter);
      if (problem) {
        failed += 1;
        io.err(`imprint-admin: ${problem}`);
        continue;
      }
      await replayDeadLetter(nc, letter);
      io.out(`replayed ${what}`);
    }
    return failed > 0 ? 1 : 0;
  } finally {
    await nc.close();
  }
}
