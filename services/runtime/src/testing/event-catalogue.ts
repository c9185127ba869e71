import { readFileSync } from "node:fs";
import { isEventDefinition, type EventDefinition } from "../events/definitions.js";
import { streamName } from "../events/envelope.js";

/** One row of a context's table in the event catalogue of docs/architecture.md. */
export interface DocumentedEvent {
  context: string;
  /** "<aggregate>.<event>". */
  type: string;
  /** The payload's message in `proto/imprint/<context>/v1/events.proto`. */
  message: string;
  /** Top-level payload fields: the row's, plus those the payload column's header names for every row. */
  fields: string[];
}

/** A context's part of the catalogue: its table, and its text (for the messages it names). */
export interface DocumentedContext {
  events: DocumentedEvent[];
  text: string;
}

const ARCHITECTURE = new URL("../../../../docs/architecture.md", import.meta.url);
const CONTEXT_HEADING = /\(`IMPRINT_[A-Z0-9_]+`, `imprint\.[a-z0-9_-]+\.v1\.>`\)/;

/** The backticked names of a cell, leaving out what parentheses and braces explain. */
function fieldNames(cell: string): string[] {
  let text = cell;
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text.replace(/\([^()]*\)|\{[^{}]*\}/g, "");
  }
  return [...text.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((match) => match[1]!);
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim());
const unquote = (cell: string) => cell.replace(/`/g, "").trim();

/**
 * The catalogue's section of `context`: the paragraph naming its stream and subjects, e.g.
 * "Identity (`IMPRINT_IDENTITY`, `imprint.identity.v1.>`)", then a table with the columns `type`,
 * `message` and `payload`; undefined when the catalogue has no such section.
 */
export function documentedContext(context: string, markdown = readFileSync(ARCHITECTURE, "utf8")): DocumentedContext | undefined {
  const lines = markdown.split("\n");
  const heading = `(\`${streamName(context)}\`, \`imprint.${context}.v1.>\`)`;
  const start = lines.findIndex((line) => line.includes(heading));
  if (start < 0) return undefined;
  let end = lines.findIndex((line, index) => index > start && (CONTEXT_HEADING.test(line) || line.startsWith("## ")));
  if (end < 0) end = lines.length;
  const section = lines.slice(start, end);
  const tableStart = section.findIndex((line) => line.startsWith("|"));
  if (tableStart < 0) return { events: [], text: section.join("\n") };
  const tableEnd = section.findIndex((line, index) => index > tableStart && !line.startsWith("|"));
  const table = section.slice(tableStart, tableEnd < 0 ? section.length : tableEnd);
  const header = cells(table[0]!);
  const column = (name: string) => header.findIndex((cell) => cell === name || cell.startsWith(`${name} `));
  const [type, message, payload] = [column("type"), column("message"), column("payload")];
  if (type < 0 || message < 0 || payload < 0) throw new Error(`the ${context} event table needs the columns type, message and payload`);
  // "payload (besides `spaceId`, `spaceCounters`)": fields every row has.
  const common = [...header[payload]!.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((match) => match[1]!);
  const events = table.slice(2).map((line) => {
    const row = cells(line);
    return { context, type: unquote(row[type]!), message: unquote(row[message]!), fields: [...common, ...fieldNames(row[payload]!)] };
  });
  return { events, text: section.join("\n") };
}

const isMessage = (value: unknown) => typeof (value as { fromJSON?: unknown } | null)?.fromJSON === "function";
const sameFields = (a: readonly string[], b: readonly string[]) => [...a].sort().join() === [...b].sort().join();

/** The name `definition`'s message is exported under in `messages`, if any. */
function messageName(definition: EventDefinition<unknown>, messages: Record<string, unknown>): string | undefined {
  return Object.entries(messages).find(([, value]) => value === definition.message)?.[0];
}

/**
 * Differences between a context's event catalogue and its producer: the event definitions
 * exported by `definitions` (the service's definitions module) and the generated messages of
 * `@imprint/proto/<context>/v1/events`. Every defined event must be documented under its type with
 * its message and that message's fields, every documented event defined, and every message of the
 * context's events.proto be an event's payload or named in the context's text.
 */
export function eventCatalogueProblems(context: string, definitions: Record<string, unknown>, messages: Record<string, unknown>, markdown?: string): string[] {
  const documented = documentedContext(context, markdown);
  if (!documented) return [`docs/architecture.md has no event table for ${context} (a paragraph naming ${streamName(context)} and imprint.${context}.v1.>)`];
  const problems: string[] = [];
  const defined = Object.values(definitions).filter(isEventDefinition);
  const byType = new Map<string, DocumentedEvent>();
  for (const event of documented.events) {
    if (byType.has(event.type)) problems.push(`${event.type}: documented twice`);
    byType.set(event.type, event);
  }
  for (const definition of defined) {
    const name = messageName(definition, messages);
    if (definition.context !== context) problems.push(`${definition.type}: defined for context ${definition.context}, not ${context}`);
    if (!name) problems.push(`${definition.type}: its message is not one of @imprint/proto/${context}/v1/events`);
    const row = byType.get(definition.type);
    if (!row) {
      problems.push(`${definition.type}: defined (${definition.subject}) but not documented`);
      continue;
    }
    if (name && row.message !== name) problems.push(`${definition.type}: documented with message ${row.message}, defined with ${name}`);
    if (!sameFields(row.fields, definition.fields)) {
      problems.push(`${definition.type}: documented payload [${row.fields.join(", ")}], message ${name ?? "?"} has [${definition.fields.join(", ")}]`);
    }
  }
  for (const row of documented.events) {
    if (!defined.some((definition) => definition.type === row.type)) problems.push(`${row.type}: documented but not defined`);
    if (!isMessage(messages[row.message])) problems.push(`${row.type}: documented message ${row.message} is not in events.proto`);
  }
  for (const [name, value] of Object.entries(messages)) {
    // Nested types (ts-proto names them Parent_Child, e.g. map entries) belong to their message.
    if (!isMessage(value) || name.includes("_") || defined.some((definition) => definition.message === value)) continue;
    if (!documented.text.includes(`\`${name}\``)) problems.push(`${name}: in events.proto, but neither an event's payload nor named in the catalogue`);
  }
  return problems;
}

/**
 * Differences between the catalogue and a consumer's definitions of other contexts' events
 * (`messages`: the generated events modules they come from): each must be documented in its
 * context's table with the same message.
 */
export function consumedEventProblems(definitions: readonly EventDefinition<unknown>[], messages: Record<string, unknown>, markdown?: string): string[] {
  const problems: string[] = [];
  for (const definition of definitions) {
    const row = documentedContext(definition.context, markdown)?.events.find((event) => event.type === definition.type);
    const name = messageName(definition, messages);
    if (!row) problems.push(`${definition.subject}: consumed but not documented`);
    else if (row.message !== name) problems.push(`${definition.subject}: documented with message ${row.message}, consumed as ${name ?? "another message"}`);
  }
  return problems;
}
