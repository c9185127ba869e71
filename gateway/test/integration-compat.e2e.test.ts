import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compressToEncodedURIComponent } from "lz-string";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "@imprint/runtime/testing";
import { ensureGitbookCli } from "../../scripts/lib/gitbook-cli.mjs";
import { createOrganization, createSpace, type TestOrganization } from "./support/factories.js";
import { gitbookClient, type GitBookClient } from "./support/http.js";
import { startStack, type TestStack } from "./support/stack.js";

/**
 * The compatibility proof: an integration written with GitBook's `@gitbook/runtime` (a block with
 * state and actions, an `installation_setup` hook that logs and calls the API back) is published
 * with GitBook's own CLI pointed at Imprint, installed and configured with GitBook's client,
 * receives its events and renders, and answers its integration-wide public endpoint with a task it
 * queues for itself — unchanged.
 */
const FIXTURE = fileURLToPath(new URL("../../services/integration/test/fixtures/compat/", import.meta.url));
const NAME = "imprint-compat";

let stack: TestStack;
let org: TestOrganization;
let client: GitBookClient;
let spaceId: string;

beforeAll(async () => {
  stack = await startStack();
  org = await createOrganization(stack);
  client = gitbookClient(stack, org.owner.token);
  spaceId = (await createSpace(stack, org)).id;
});
afterAll(() => stack?.stop());

/** `gitbook publish` as a developer runs it, with the two variables that point it at Imprint. */
async function gitbookPublish(): Promise<{ code: number | null; output: string }> {
  const cli = ensureGitbookCli();
  const home = await mkdtemp(join(tmpdir(), "gitbook-cli-home-"));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "publish", ".", "--organization", org.organizationId], {
      cwd: FIXTURE,
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: home, GITBOOK_ENDPOINT: stack.baseUrl, GITBOOK_TOKEN: org.owner.token, NO_COLOR: "1", CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

interface EventItem {
  id: string;
  status: string;
  installationId?: string;
  payload: { type: string; installationId?: string; task?: unknown };
}

describe("a GitBook integration, unchanged", () => {
  it("is published by GitBook's CLI, installed with GitBook's client, hears its events and calls the API back", async () => {
    const published = await gitbookPublish();
    expect(published.code, published.output).toBe(0);
    expect(published.output).toContain(`Integration "${NAME}" published`);

    const { data: integration } = await client.integrations.getIntegrationByName(NAME);
    expect(integration).toMatchObject({ name: NAME, version: 1, title: "Imprint compatibility", blocks: [{ id: "counter", title: "Counter" }] });
    expect(integration.owner.id).toBe(org.organizationId);

    const { data: installation } = await client.integrations.installIntegration(NAME, { organization: org.organizationId });
    expect(installation.status).toBe("pending");
    const { data: configured } = await client.integrations.updateIntegrationInstallation(NAME, installation.id, { configuration: { greeting: "Hello" } });
    expect(configured).toMatchObject({ status: "active", configuration: { greeting: "Hello" } });

    // Installed, then configured: two installation_setup events, each handled by the script, whose
    // hook called GitBook's API back (with its installation token) and logged what it read.
    // Only the events this test caused count (nothing else is expected, but nothing else is asserted away).
    const events = await eventually(async () => {
      const { data } = await client.integrations.listIntegrationEvents(NAME, { limit: 100 });
      const items = (data.items as unknown as EventItem[]).filter((event) => event.payload.type === "installation_setup");
      return items.length >= 2 ? items : undefined;
    }, 30_000);
    expect(events.map((event) => [event.payload.type, event.status])).toEqual([
      ["installation_setup", "success"],
      ["installation_setup", "success"],
    ]);
    const { data: detail } = await client.integrations.getIntegrationEvent(NAME, events[0]!.id);
    const lines: string[] = (detail.trace?.logs ?? []).map((line) => line?.message ?? "");
    expect(lines.some((line) => line.includes(`installation_setup for installation ${installation.id}`))).toBe(true);
    expect(lines.some((line) => line.includes(`integration ${NAME} has`))).toBe(true);
  });

  it("renders its block with state and actions, through GitBook's POST and compressed GET forms", async () => {
    const context = { type: "document" as const, spaceId, editable: true, theme: "light" as const };
    const { data: first } = await client.integrations.renderIntegrationUiWithPost(NAME, { componentId: "counter", props: {}, context });
    expect(first).toEqual({
      type: "element",
      state: { count: 0 },
      props: {},
      element: { type: "block", children: [{ type: "button", label: "Count: 0", onPress: { action: "increment" } }] },
    });
    const { data: next } = await client.integrations.renderIntegrationUiWithPost(NAME, {
      componentId: "counter",
      props: {},
      state: { count: 0 },
      action: { action: "increment" },
      context,
    });
    expect(next).toMatchObject({ type: "element", state: { count: 1 } });
    const request = compressToEncodedURIComponent(
      JSON.stringify({ componentId: "counter", props: {}, state: { count: 5 }, action: { action: "done" }, context }),
    );
    const { data: done } = await client.integrations.renderIntegrationUiWithGet(NAME, { request });
    expect(done).toEqual({ type: "complete", returnValue: { count: 5 } });
  });

  it("answers its integration-wide public endpoint, whose handler queues a task through GitBook's client that comes back as a task event", async () => {
    const { data: integration } = await client.integrations.getIntegrationByName(NAME);
    const response = await fetch(`${integration.urls.publicEndpoint}/hello?from=test`, { method: "POST", body: "{}" });
    expect(response.status).toBe(200);
    const path = `/v1/integrations/${NAME}/public/hello`;
    expect(await response.json()).toEqual({ queued: path });
    const task = await eventually(async () => {
      const { data } = await client.integrations.listIntegrationEvents(NAME, { limit: 100 });
      return (data.items as unknown as EventItem[]).find((event) => event.payload.type === "task");
    }, 30_000);
    expect(task).toMatchObject({ status: "success", payload: { type: "task", task: { type: "greet", path } } });
    expect(task.installationId).toBeUndefined();
    const { data: detail } = await client.integrations.getIntegrationEvent(NAME, task.id);
    expect((detail.trace?.logs ?? []).some((line) => line?.message?.includes(`task greet for ${path}`))).toBe(true);
  });
});
