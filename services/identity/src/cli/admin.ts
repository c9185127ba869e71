#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AppError, createPromiseClient, type PromiseClient } from "@imprint/runtime/core";
import { runEventsAdmin } from "@imprint/runtime/events-admin";
import { IdentityServiceService, type MemberRole } from "@imprint/proto/identity/v1";
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

The org, user, member and token commands print one JSON object. Identity is found through IDENTITY_GRPC_ADDRESS, else
through \${IMPRINT_DATA_DIR:-.imprint}/stack.json (written by \`npm start\`).`;

const ROLE_NAMES = [...ROLES, "guest"] as const;

/** `--role` value → wire role; "guest" is the CLI's name for the null role. */
function roleFromName(name: string): MemberRole | undefined {
  if (name === "guest") return roleToProto(null);
  return isRole(name) ? roleToProto(name) : undefined;
}

/** A failure to report on one line of stderr. */
class CliError extends Error {}

type Client = PromiseClient<typeof IdentityServiceService>;
type Flags = Record<string, string | boolean | undefined>;

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
      const created = await client.createOrganization({
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
      const result = await client.createUser({ email: required(flags, "email"), displayName: optional(flags, "name") });
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
      const result = await client.addMember({ organizationId, email: required(flags, "email"), role });
      return { organizationId, userId: result.member?.user?.id, role: roleName };
    },
  },
  "token issue": {
    flags: ["email", "label"],
    run: async (client, flags) => {
      const issued = await client.issueToken({ email: required(flags, "email"), label: optional(flags, "label") });
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
      const revoked = await client.revokeToken({ token, tokenId });
      return { tokenId: revoked.tokenId, revokedAt: revoked.revokedAt?.toISOString() };
    },
  },
};

/** Identity's address and where it came from (named when it cannot be reached). */
async function identityAddress(): Promise<{ address: string; source: string }> {
  const fromEnv = process.env.IDENTITY_GRPC_ADDRESS;
  if (fromEnv) return { address: fromEnv, source: "IDENTITY_GRPC_ADDRESS" };
  const stackFile = join(process.env.IMPRINT_DATA_DIR || ".imprint", "stack.json");
  let text: string;
  try {
    text = await readFile(stackFile, "utf8");
  } catch {
    throw new CliError(
      `cannot find identity: no ${stackFile} (is \`npm start\` running? if it uses another data directory, set IMPRINT_DATA_DIR to it), or set IDENTITY_GRPC_ADDRESS to identity's host:port`,
    );
  }
  const stack = JSON.parse(text) as { identityGrpcAddress?: unknown };
  if (typeof stack.identityGrpcAddress !== "string") throw new CliError(`${stackFile} has no identityGrpcAddress`);
  return { address: stack.identityGrpcAddress, source: stackFile };
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
  const command = COMMANDS[name];
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
  const { address, source } = await identityAddress();
  const client = createPromiseClient(IdentityServiceService, address, { defaultTimeoutMs: 10_000 });
  try {
    const output = await command.run(client, flags);
    process.stdout.write(`${JSON.stringify(output)}\n`);
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
