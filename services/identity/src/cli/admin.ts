#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AppError, createIdentityClients, type IdentityClients, openUpstream, type UpstreamClients } from "@imprint/runtime/core";
import { runEventsAdmin } from "@imprint/runtime/events-admin";
import type { MemberRole } from "@imprint/proto/identity/v1";
import { TeamPermissionServiceService } from "@imprint/proto/content/v1/permissions";
import { ChangeRequestServiceService } from "@imprint/proto/collaboration/v1/change_requests";
import { SpacePublicationServiceService } from "@imprint/proto/publishing/v1/space_publications";
import type { ServiceDefinition } from "@grpc/grpc-js";
import { isRole, ROLES } from "../domain/roles.js";
import { roleToProto } from "../grpc/mappers.js";

const HELP = `Imprint administration: organizations, users, members and API tokens.

Usage: imprint-admin <command> [flags]

  org create --title <t> --owner-email <e> [--owner-name <n>]
      Creates an organization whose owner (created when unknown) is admin; prints the owner's token.
  user create --email <e> [--name <n>]
      Creates a user, or shows the existing one.
  member add --org <id> --email <e> --role <admin|create|review|edit|comment|read|guest>
      Adds a user (created when unknown) to an organization, or changes their role.
  token issue --email <e> [--label <l>]
      Issues a new API token to a user; the secret is printed only once.
  token revoke (--token <secret> | --id <tokenId>)
      Revokes a token.
  password <email>
      Sets a user's password, read as one line from standard input (12 to 1024 characters), clears
      its lockout and ends its sessions: \`printf '%s\\n' "$PASSWORD" | npm run admin -- password a@b.c\`.
  reset-link <email>
      Prints a single-use link, valid one hour, where the user sets a new password:
      <IMPRINT_APP_URL, else IMPRINT_PUBLIC_URL, else the running stack's gateway>/reset-password?token=…
  events dead-letters list|show|replay|discard ...
      Events a consumer could never handle; \`events dead-letters --help\` tells more (NATS through
      NATS_URL, else stack.json).
  reconcile team-memberships [--org <id>]
      Makes content's copy of who is in which team equal to identity's now (one organization, or
      every one content knows), as content's hourly job does; prints how many memberships it
      added and removed.
  reconcile space-counters [--space <id>]
      Has collaboration announce the change-request and comment counters of one space (or of
      every space it has change requests or comments of) again, repairing content's copy.
  reconcile space-publications [--space <id>]
      Has publishing announce where one space (or every space it knows) is published again,
      repairing content's copy (the spaces' urls.published).

The org, user, member, token, password, reset-link and reconcile commands print one JSON object. Identity is found through IDENTITY_GRPC_ADDRESS, else
through \${IMPRINT_DATA_DIR:-.imprint}/stack.json (written by \`npm start\`); content,
collaboration and publishing (for reconcile) through CONTENT_GRPC_ADDRESS,
COLLABORATION_GRPC_ADDRESS, PUBLISHING_GRPC_ADDRESS, else the same file.`;

const ROLE_NAMES = [...ROLES, "guest"] as const;

/** `--role` value → wire role; "guest" is the CLI's name for the null role. */
function roleFromName(name: string): MemberRole | undefined {
  if (name === "guest") return roleToProto(null);
  return isRole(name) ? roleToProto(name) : undefined;
}

/** A failure to report on one line of stderr. */
class CliError extends Error {}

type Client = IdentityClients;
type Flags = Record<string, string | boolean | undefined>;

/** A long deadline: a reconcile walks every row it covers. */
const RECONCILE_TIMEOUT_MS = 10 * 60_000;

/**
 * A command that talks to another service than identity: the upstream it declares (found like
 * identity, by its name) is opened for it, and closed after it, like a service's upstreams.
 */
interface RemoteCommand<Services extends Record<string, ServiceDefinition>> {
  service: "content" | "collaboration" | "publishing";
  services: Services;
  flags: string[];
  run: (clients: UpstreamClients<Services>, flags: Flags) => Promise<Record<string, unknown>>;
}

function remoteCommand<Services extends Record<string, ServiceDefinition>>(command: RemoteCommand<Services>) {
  return {
    service: command.service,
    flags: command.flags,
    run: async (address: string, flags: Flags) => {
      const clients = openUpstream({ address, services: command.services, defaultTimeoutMs: RECONCILE_TIMEOUT_MS });
      try {
        return await command.run(clients, flags);
      } finally {
        clients.close();
      }
    },
  };
}

const REMOTE_COMMANDS = {
  "reconcile team-memberships": remoteCommand({
    service: "content",
    services: { teamPermissions: TeamPermissionServiceService },
    flags: ["org"],
    run: async ({ teamPermissions }, flags) => ({ ...(await teamPermissions.reconcileTeamMemberships({ organizationId: optional(flags, "org") })) }),
  }),
  "reconcile space-counters": remoteCommand({
    service: "collaboration",
    services: { changeRequests: ChangeRequestServiceService },
    flags: ["space"],
    run: async ({ changeRequests }, flags) => ({ ...(await changeRequests.announceSpaceCounters({ spaceId: optional(flags, "space") })) }),
  }),
  "reconcile space-publications": remoteCommand({
    service: "publishing",
    services: { spacePublications: SpacePublicationServiceService },
    flags: ["space"],
    run: async ({ spacePublications }, flags) => ({ ...(await spacePublications.announceSpacePublications({ spaceId: optional(flags, "space") })) }),
  }),
} as Record<string, ReturnType<typeof remoteCommand>>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value.trim() === "") throw new CliError(`missing --${name}`);
  return value;
}

function optional(flags: Flags, name: string): string {
  const value = flags[name];
  return typeof value === "string" ? value : "";
}

const COMMANDS: Record<string, { flags: string[]; run: (client: Client, flags: Flags) => Promise<Record<string, unknown>> }> = {
  "org create": {
    flags: ["title", "owner-email", "owner-name"],
    run: async (client, flags) => {
      const created = await client.organizations.createOrganization({
        title: required(flags, "title"),
        ownerEmail: required(flags, "owner-email"),
        ownerDisplayName: optional(flags, "owner-name"),
        ownerToken: "",
      });
      return { organizationId: created.organizationId, userId: created.userId, token: created.token };
    },
  },
  "user create": {
    flags: ["email", "name"],
    run: async (client, flags) => {
      const result = await client.users.createUser({ email: required(flags, "email"), displayName: optional(flags, "name") });
      return { userId: result.user?.id, email: result.user?.email, displayName: result.user?.displayName, created: result.created };
    },
  },
  "member add": {
    flags: ["org", "email", "role"],
    run: async (client, flags) => {
      const roleName = required(flags, "role");
      const role = roleFromName(roleName);
      if (role === undefined) throw new CliError(`--role must be one of ${ROLE_NAMES.join(", ")} (got "${roleName}")`);
      const organizationId = required(flags, "org");
      const result = await client.members.addMember({ organizationId, email: required(flags, "email"), role });
      return { organizationId, userId: result.member?.user?.id, role: roleName };
    },
  },
  "token issue": {
    flags: ["email", "label"],
    run: async (client, flags) => {
      const issued = await client.tokens.issueToken({ email: required(flags, "email"), label: optional(flags, "label") });
      return { tokenId: issued.tokenId, token: issued.token };
    },
  },
  "token revoke": {
    flags: ["token", "id"],
    run: async (client, flags) => {
      const token = optional(flags, "token");
      const tokenId = optional(flags, "id");
      if (!token && !tokenId) throw new CliError("give --token <secret> or --id <tokenId>");
      if (token && tokenId) throw new CliError("give either --token or --id, not both");
      const revoked = await client.tokens.revokeToken({ token, tokenId });
      return { tokenId: revoked.tokenId, revokedAt: revoked.revokedAt?.toISOString() };
    },
  },
};

/** A service's address (identity or content) and where it came from (named when it cannot be reached). */
async function serviceAddress(service: "identity" | "content" | "collaboration" | "publishing"): Promise<{ address: string; source: string }> {
  const variable = `${service.toUpperCase()}_GRPC_ADDRESS`;
  const fromEnv = process.env[variable];
  if (fromEnv) return { address: fromEnv, source: variable };
  const stackFile = join(process.env.IMPRINT_DATA_DIR || ".imprint", "stack.json");
  let text: string;
  try {
    text = await readFile(stackFile, "utf8");
  } catch {
    throw new CliError(
      `cannot find ${service}: no ${stackFile} (is \`npm start\` running? if it uses another data directory, set IMPRINT_DATA_DIR to it), or set ${variable} to ${service}'s host:port`,
    );
  }
  const key = `${service}GrpcAddress`;
  const address = (JSON.parse(text) as Record<string, unknown>)[key];
  if (typeof address !== "string") throw new CliError(`${stackFile} has no ${key}`);
  return { address, source: stackFile };
}

/** Standard input's first line (a piped password), without its line ending. */
async function readFirstLine(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("Password (one line, then Enter): ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    const end = text.search(/\r?\n/);
    if (end !== -1) return text.slice(0, end);
    if (text.length > 64 * 1024) break;
  }
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Where reset links point: the app's base URL (the page comes with the app). */
async function appBaseUrl(): Promise<string> {
  const configured = process.env.IMPRINT_APP_URL || process.env.IMPRINT_PUBLIC_URL;
  if (configured) return configured.replace(/\/+$/, "");
  const stackFile = join(process.env.IMPRINT_DATA_DIR || ".imprint", "stack.json");
  const url = await readFile(stackFile, "utf8").then(
    (text) => (JSON.parse(text) as Record<string, unknown>).gatewayUrl,
    () => undefined,
  );
  if (typeof url !== "string") throw new CliError(`set IMPRINT_APP_URL (or IMPRINT_PUBLIC_URL) to the address people open Imprint at`);
  return url.replace(/\/+$/, "");
}

/** `password <email>` and `reset-link <email>`: a person's password, named by a positional e-mail. */
const PASSWORD_COMMANDS: Record<string, (client: Client, email: string) => Promise<Record<string, unknown>>> = {
  password: async (client, email) => {
    const password = await readFirstLine();
    if ([...password].length < 12) throw new CliError("the password (standard input's first line) must be at least 12 characters");
    const result = await client.sessions.setPassword({ email, password });
    return { userId: result.userId, passwordSet: true, endedSessions: result.endedSessions };
  },
  "reset-link": async (client, email) => {
    const base = await appBaseUrl();
    const reset = await client.sessions.createPasswordReset({ email });
    return { userId: reset.userId, link: `${base}/reset-password?token=${encodeURIComponent(reset.token)}`, expiresAt: reset.expiresAt?.toISOString() };
  },
};

async function runPasswordCommand(name: string, args: string[]): Promise<number> {
  if (args.length !== 1 || !args[0] || args[0].startsWith("-")) throw new CliError(`usage: ${name} <email>`);
  const { address, source } = await serviceAddress("identity");
  const client = createIdentityClients(address, { defaultTimeoutMs: 10_000 });
  try {
    process.stdout.write(`${JSON.stringify(await PASSWORD_COMMANDS[name]!(client, args[0]))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AppError && (error.code === "unavailable" || error.code === "deadline_exceeded")) {
      throw new CliError(`cannot reach identity at ${address} (from ${source}): is \`npm start\` running?`);
    }
    throw error;
  } finally {
    client.close();
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "events") {
    return runEventsAdmin(argv.slice(1), {
      env: process.env,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  }
  if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${HELP}\n`);
    return argv.length === 0 ? 1 : 0;
  }
  if (argv[0] && PASSWORD_COMMANDS[argv[0]]) return runPasswordCommand(argv[0], argv.slice(1));
  const [noun, verb] = argv;
  const name = `${noun} ${verb}`;
  const command = COMMANDS[name] ?? REMOTE_COMMANDS[name];
  if (!command) throw new CliError(`unknown command "${argv.slice(0, 2).join(" ")}"; run with --help`);
  let flags: Flags;
  try {
    const parsed = parseArgs({
      args: argv.slice(2),
      options: Object.fromEntries(command.flags.map((flag) => [flag, { type: "string" as const }])),
      strict: true,
      allowPositionals: false,
    });
    flags = parsed.values;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  const remote = REMOTE_COMMANDS[name];
  const service = remote?.service ?? "identity";
  const { address, source } = await serviceAddress(service);
  const client = remote ? undefined : createIdentityClients(address, { defaultTimeoutMs: 10_000 });
  try {
    const output = remote ? await remote.run(address, flags) : await COMMANDS[name]!.run(client!, flags);
    process.stdout.write(`${JSON.stringify(output)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AppError && (error.code === "unavailable" || error.code === "deadline_exceeded")) {
      throw new CliError(`cannot reach ${service} at ${address} (from ${source}): is \`npm start\` running?`);
    }
    throw error;
  } finally {
    client?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof CliError || error instanceof AppError ? error.message : String(error);
    process.stderr.write(`imprint-admin: ${message}\n`);
    process.exitCode = 1;
  },
);
