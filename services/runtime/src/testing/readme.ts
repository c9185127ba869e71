import { readdirSync, readFileSync } from "node:fs";
import type { MikroORM } from "@mikro-orm/postgresql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEventDefinition } from "../events/definitions.js";
import { eventually } from "./support.js";
import { queryRows, sql } from "../db/sql.js";

/** One `service` of a context's protos, with its RPCs in declaration order. */
export interface ProtoService {
  /** e.g. "SpaceService". */
  name: string;
  /** The file declaring it, relative to `proto/`, e.g. "imprint/content/v1/spaces.proto". */
  file: string;
  rpcs: string[];
}

const PROTO_ROOT = new URL("../../../../proto/", import.meta.url);

/** `source` without comments and string literals (so braces and `rpc` inside them count for nothing). */
function code(source: string): string {
  return source.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (match) => (match.startsWith("/") ? " " : '""'));
}

/** The services declared in one .proto file's text, each with its RPCs. */
export function parseProtoServices(source: string, file: string): ProtoService[] {
  const text = code(source);
  const services: ProtoService[] = [];
  for (const declaration of text.matchAll(/\bservice\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{/g)) {
    // The service's body: up to the brace that closes the one opening it (RPCs may hold option blocks).
    const start = declaration.index + declaration[0].length;
    let depth = 1;
    let end = start;
    while (depth > 0) {
      if (end >= text.length) throw new Error(`${file}: service ${declaration[1]} is not closed`);
      if (text[end] === "{") depth += 1;
      else if (text[end] === "}") depth -= 1;
      end += 1;
    }
    const body = text.slice(start, end - 1);
    const rpcs = [...body.matchAll(/\brpc\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)].map((match) => match[1]!);
    services.push({ name: declaration[1]!, file, rpcs });
  }
  return services;
}

/** Every service of `proto/imprint/<context>/v1/*.proto`, with its RPCs. */
export function protoServices(context: string): ProtoService[] {
  const directory = new URL(`imprint/${context}/v1/`, PROTO_ROOT);
  return readdirSync(directory)
    .filter((name) => name.endsWith(".proto"))
    .sort()
    .flatMap((name) => parseProtoServices(readFileSync(new URL(name, directory), "utf8"), `imprint/${context}/v1/${name}`));
}

/** The types (`<aggregate>.<event>`) of the event definitions a module exports (a service's `events.ts`). */
export function definedEventTypes(definitions: Record<string, unknown>): string[] {
  return Object.values(definitions)
    .filter(isEventDefinition)
    .map((definition) => definition.type);
}

/**
 * The background jobs a running service runs, by name: the leases its job runner took in
 * `job_leases` (the runtime's own job included). The runner takes every free lease of a fresh
 * database in one statement, so the first rows seen are all of them.
 */
export async function leasedJobNames(orm: MikroORM): Promise<string[]> {
  const rows = await eventually(async () => {
    const found = await queryRows(orm.em.fork(), sql<{ name: string }>`select name from job_leases order by name`);
    return found.length > 0 && found;
  });
  return rows.map((row) => row.name);
}

/** The section of `markdown` from the first `## ` heading starting with `title` up to the next `## `; undefined without one. */
export function markdownSection(markdown: string, title: string): string | undefined {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`## ${title}`));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start, end < 0 ? lines.length : end).join("\n");
}

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim());

/** The backticked names of a cell, leaving out what parentheses explain ("`X` (internal: `Y` calls it)"). */
function namesOutsideParentheses(cell: string): string[] {
  let text = cell;
  for (let previous = ""; previous !== text; ) {
    previous = text;
    text = text.replace(/\([^()]*\)/g, "");
  }
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

/** The backticked names in the cells of `section`'s tables under a column whose header is one of `headers`. */
function namesInColumns(section: string, headers: readonly string[]): string[] {
  const names: string[] = [];
  let columns: number[] | undefined;
  for (const line of section.split("\n")) {
    if (!line.startsWith("|")) {
      columns = undefined;
      continue;
    }
    const row = cells(line);
    if (!columns) {
      columns = row.flatMap((cell, index) => (headers.includes(cell.toLowerCase()) ? [index] : []));
      continue;
    }
    if (row.every((cell) => /^:?-+:?$/.test(cell))) continue;
    for (const index of columns) names.push(...namesOutsideParentheses(row[index] ?? ""));
  }
  return names;
}

/** Whether `section` names `name` in backticks, alone or qualified (`imprint.content.v1.SpaceService`). */
const named = (section: string, name: string) => new RegExp(`\`(?:[A-Za-z0-9_]+\\.)*${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\``).test(section);

export interface ReadmeFacts {
  /** The services of the context's protos (`protoServices`): each service and each of its RPCs must be named under "## gRPC". */
  services?: readonly ProtoService[];
  /** The event types the service records (`definedEventTypes`): each must be named under "## Events". */
  events?: readonly string[];
  /** The jobs the service runs (`leasedJobNames`): each must be named under "## Jobs". */
  jobs?: readonly string[];
}

/**
 * Differences between a service's README and what the service is: every RPC of its protos (in
 * backticks) and every service's name in the "gRPC" section, every event it records in the
 * "Events" section, every job it runs in the "Jobs" section. The other way round, the names in the
 * RPC columns of the gRPC section's tables (headers `rpc`, `rpcs`, `service`) must be RPCs or
 * services of the protos, and those in the `emitted` column of the Events section's tables events
 * the service records (what parentheses say is left out: "`PurgeDeletedSpaces` (internal: …)").
 */
export function readmeProblems(markdown: string, facts: ReadmeFacts): string[] {
  const problems: string[] = [];
  const check = (title: string, expected: readonly string[] | undefined, what: string, known?: { names: ReadonlySet<string>; headers: readonly string[] }) => {
    if (!expected) return;
    const section = markdownSection(markdown, title);
    if (section === undefined) {
      problems.push(`no "## ${title}" section (it must name every ${what})`);
      return;
    }
    for (const name of expected) if (!named(section, name)) problems.push(`${name}: ${what} not named in "## ${title}"`);
    if (!known) return;
    for (const name of namesInColumns(section, known.headers)) {
      if (!known.names.has(name)) problems.push(`${name}: in a table of "## ${title}" but no ${what}`);
    }
  };
  if (facts.services) {
    const rpcs = facts.services.flatMap((service) => service.rpcs);
    const names = new Set([...facts.services.map((service) => service.name), ...rpcs]);
    check(
      "gRPC",
      facts.services.map((service) => service.name),
      "service of the protos",
    );
    check("gRPC", rpcs, "RPC of the protos", { names, headers: ["rpc", "rpcs", "service"] });
  }
  check("Events", facts.events, "event the service records", facts.events && { names: new Set(facts.events), headers: ["emitted"] });
  check("Jobs", facts.jobs, "job the service runs");
  return problems;
}

/**
 * A service's README test: it names every RPC of the context's protos, every event the service
 * records (`definitions`: its events module) and every job the running service leases. `start`
 * runs the service (its test harness) and answers its ORM and how to stop it.
 */
export function describeReadme(options: {
  context: string;
  readme: URL;
  definitions: Record<string, unknown>;
  start: () => Promise<{ orm: MikroORM; stop(): Promise<void> }>;
}): void {
  const { context } = options;
  // The README is how a newcomer finds the service's contract: it must name all of it.
  const readme = readFileSync(options.readme, "utf8");
  let running: { orm: MikroORM; stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    running = await options.start();
  });
  afterAll(() => running?.stop());

  describe(`${context}'s README`, () => {
    it(`names every RPC of proto/imprint/${context}/v1 and every event ${context} records`, () => {
      expect(readmeProblems(readme, { services: protoServices(context), events: definedEventTypes(options.definitions) })).toEqual([]);
    });

    it(`names every background job ${context} runs`, async () => {
      expect(readmeProblems(readme, { jobs: await leasedJobNames(running!.orm) })).toEqual([]);
    });
  });
}
