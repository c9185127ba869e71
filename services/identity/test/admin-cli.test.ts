import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { uniqueEmail, runNodeScript, type ScriptResult } from "@imprint/runtime/testing";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

const ADMIN_CLI = fileURLToPath(new URL("../dist/cli/admin.js", import.meta.url));

/** Runs the compiled CLI the way an operator does. */
function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<ScriptResult> {
  // What the machine says of the stack must not leak into a test that sets its own.
  return runNodeScript(ADMIN_CLI, [...args], { cwd: options.cwd, env: { IDENTITY_GRPC_ADDRESS: undefined, IMPRINT_DATA_DIR: undefined, ...options.env } });
}

function json(result: ScriptResult): Record<string, unknown> {
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const lines = result.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe("admin CLI", () => {
  let identity: TestIdentity;
  let env: Record<string, string>;
  beforeAll(async () => {
    identity = await startTestIdentity();
    env = { IDENTITY_GRPC_ADDRESS: identity.running.address };
  });
  afterAll(() => identity.stop());

  it("org create prints the organization, its owner and a working token", async () => {
    const email = uniqueEmail("cli-owner");
    const output = json(await runCli(["org", "create", "--title", "CLI Org", "--owner-email", email, "--owner-name", "Cli Owner"], { env }));
    expect(output).toEqual({ organizationId: expect.any(String), userId: expect.any(String), token: expect.stringMatching(/^imp_/) });
    const principal = await identity.client.tokens.authenticateToken({ token: output.token as string });
    expect(principal.user).toMatchObject({ id: output.userId, email, displayName: "Cli Owner" });
  });

  it("user create creates once, then reports the existing user", async () => {
    const email = uniqueEmail("cli-user");
    const created = json(await runCli(["user", "create", "--email", email, "--name", "Ursula"], { env }));
    expect(created).toEqual({ userId: expect.any(String), email, displayName: "Ursula", created: true });
    const existing = json(await runCli(["user", "create", "--email", email], { env }));
    expect(existing).toEqual({ ...created, created: false });
  });

  it("member add adds a user with a role, guests included", async () => {
    const org = json(await runCli(["org", "create", "--title", "CLI Members", "--owner-email", uniqueEmail("cli-owner")], { env }));
    const email = uniqueEmail("cli-member");
    const output = json(await runCli(["member", "add", "--org", org.organizationId as string, "--email", email, "--role", "guest"], { env }));
    expect(output).toEqual({ organizationId: org.organizationId, userId: expect.any(String), role: "guest" });
    const membership = await identity.client.members.getMembership({
      organizationId: org.organizationId as string,
      userId: output.userId as string,
      tokenId: "",
    });
    expect(membership.role).toBe(7); // MEMBER_ROLE_GUEST

    const bad = await runCli(["member", "add", "--org", org.organizationId as string, "--email", email, "--role", "owner"], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--role must be one of admin, create, review, edit, comment, read, guest/);
  });

  it("token issue and token revoke (by secret and by id)", async () => {
    const email = uniqueEmail("cli-token");
    json(await runCli(["user", "create", "--email", email], { env }));
    const first = json(await runCli(["token", "issue", "--email", email, "--label", "laptop"], { env }));
    expect(first).toEqual({ tokenId: expect.any(String), token: expect.stringMatching(/^imp_/) });
    await identity.client.tokens.authenticateToken({ token: first.token as string });

    const revoked = json(await runCli(["token", "revoke", "--token", first.token as string], { env }));
    expect(revoked).toEqual({ tokenId: first.tokenId, revokedAt: expect.any(String) });
    await expect(identity.client.tokens.authenticateToken({ token: first.token as string })).rejects.toMatchObject({ code: "unauthenticated" });

    const second = json(await runCli(["token", "issue", "--email", email], { env }));
    expect(json(await runCli(["token", "revoke", "--id", second.tokenId as string], { env }))).toMatchObject({ tokenId: second.tokenId });
  });

  it("prints help", async () => {
    const result = await runCli(["--help"], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("org create --title <t> --owner-email <e>");
  });

  it("fails with one clear line for unknown commands, missing flags and rejected requests", async () => {
    const unknown = await runCli(["space", "create"], { env });
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toBe('imprint-admin: unknown command "space create"; run with --help\n');

    const missing = await runCli(["token", "issue"], { env });
    expect(missing).toMatchObject({ code: 1, stderr: "imprint-admin: missing --email\n" });

    const unknownFlag = await runCli(["user", "create", "--email", "a@example.com", "--nope", "x"], { env });
    expect(unknownFlag.code).toBe(1);
    expect(unknownFlag.stderr).toMatch(/^imprint-admin: .*--nope/);

    const rejected = await runCli(["org", "create", "--title", "X", "--owner-email", uniqueEmail()], { env });
    expect(rejected).toMatchObject({ code: 1, stderr: "imprint-admin: title: must be at least 2 characters\n" });

    const unknownUser = await runCli(["token", "issue", "--email", uniqueEmail("nobody")], { env });
    expect(unknownUser).toMatchObject({ code: 1, stderr: "imprint-admin: User not found\n" });
  });

  it("says when identity cannot be reached", async () => {
    const address = `127.0.0.1:${await getFreePort()}`;
    const result = await runCli(["user", "create", "--email", uniqueEmail()], { env: { IDENTITY_GRPC_ADDRESS: address } });
    expect(result).toMatchObject({
      code: 1,
      stderr: `imprint-admin: cannot reach identity at ${address} (from IDENTITY_GRPC_ADDRESS): is \`npm start\` running?\n`,
    });
  });

  it("finds identity through stack.json in the data directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "imprint-cli-"));
    try {
      await mkdir(join(dir, ".imprint"));
      await writeFile(join(dir, ".imprint", "stack.json"), JSON.stringify({ identityGrpcAddress: identity.running.address, gatewayUrl: "http://127.0.0.1:1" }));
      const output = json(await runCli(["user", "create", "--email", uniqueEmail("stack")], { cwd: dir }));
      expect(output.created).toBe(true);

      await mkdir(join(dir, "custom"));
      await writeFile(join(dir, "custom", "stack.json"), JSON.stringify({ identityGrpcAddress: identity.running.address }));
      expect(json(await runCli(["user", "create", "--email", uniqueEmail("custom")], { cwd: dir, env: { IMPRINT_DATA_DIR: "custom" } })).created).toBe(true);

      const empty = await mkdtemp(join(tmpdir(), "imprint-cli-empty-"));
      const none = await runCli(["user", "create", "--email", uniqueEmail()], { cwd: empty });
      await rm(empty, { recursive: true, force: true });
      expect(none.code).toBe(1);
      expect(none.stderr).toBe(
        "imprint-admin: cannot find identity: no .imprint/stack.json (is `npm start` running? if it uses another data directory, set IMPRINT_DATA_DIR to it), or set IDENTITY_GRPC_ADDRESS to identity's host:port\n",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
