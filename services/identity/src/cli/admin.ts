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

The org, user, member, token and reconcile commands print one JSON object. Identity is found through IDENTITY_GRPC_ADDRESS, else
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
