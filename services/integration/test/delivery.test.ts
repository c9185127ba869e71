import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreatePageInput } from "@imprint/proto/content/v1/editing";
import { TargetKind } from "@imprint/proto/integration/v1/target_installations";
import { createOrganization, createRevision, createSpace, eventually, failure, type TestOrganization } from "@imprint/runtime/testing";
import { verifyDispatchSignature } from "../src/domain/platform/signature.js";
import { bundleIntegration } from "./support/bundle.js";
import { startIntegrationHarness, type IntegrationHarness } from "./support/harness.js";
import { publish } from "./support/integrations.js";

let harness: IntegrationHarness;
let org: TestOrganization;

beforeAll(async () => {
  harness = await startIntegrationHarness();
  org = await createOrganization(harness);
});
afterAll(() => harness?.stop());

const COMPAT_FIXTURE = new URL("./fixtures/compat/", import.meta.url);

/** An integration's events once delivered, with their traces. */
async function deliveredEvents(name: string, count: number) {
  return eventually(async () => {
    const { events } = await harness.integrationEvents.listIntegrationEvents({ caller: org.owner.caller, name, page: { pageToken: "", pageSize: 1000 } });
    return events.length >= count ? events : undefined;
  }, 20_000);
}

/** The integration's delivered event whose payload matches, once there is one (other events may come and go around it). */
async function deliveredEvent(name: string, matches: (payload: { type: string }) => boolean) {
  return eventually(async () => {
    const { events } = await harness.integrationEvents.listIntegrationEvents({ caller: org.owner.caller, name, page: { pageToken: "", pageSize: 1000 } });
    return events.find((event) => matches(JSON.parse(event.payloadJson) as { type: string }));
  }, 20_000);
}

async function trace(name: string, eventId: string) {
  return (await harness.integrationEvents.getIntegrationEvent({ caller: org.owner.caller, name, eventId })).logs.map((line) => line.message);
}

describe("delivering events to the sandbox", () => {
  it("runs @gitbook/runtime's installation_setup handler, whose log lines make the event's trace", async () => {
    const script = await bundleIntegration(COMPAT_FIXTURE);
    const integration = await publish(harness, org.owner.caller, org.organizationId, { script, scopes: ["space:content:read"] });
    const { installation } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    const [event] = await deliveredEvents(integration.name, 1);
    expect(event).toMatchObject({ installationId: installation!.id });
    expect(JSON.parse(event!.payloadJson)).toMatchObject({ type: "installation_setup", installationId: installation!.id, status: "active" });
    const lines = await trace(integration.name, event!.id);
    expect(lines.some((line) => line.includes(`installation_setup for installation ${installation!.id}`))).toBe(true);
    // No gateway serves /v1 in this harness: the call back is refused, the runtime answers 500 and
    // the trace says so (the gateway's end-to-end test sees the same call succeed).
    expect(lines.some((line) => line.includes("HTTP 500"))).toBe(true);
  });

  it("announces a space's new content to the installations that read it, in order per installation, once each", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, { scopes: ["space:content:read"] });
    const deaf = await publish(harness, org.owner.caller, org.organizationId, { scopes: ["site:views:read"] });
    const space = await createSpace(harness, org);
    for (const current of [integration, deaf]) {
      const { installation } = await harness.installations.installIntegration({
        caller: org.owner.caller,
        name: current.name,
        organizationId: org.organizationId,
      });
      await harness.targetInstallations.installOnTarget({
        caller: org.owner.caller,
        name: current.name,
        installationId: installation!.id,
        kind: TargetKind.TARGET_KIND_SPACE,
        targetId: space.id,
        configurationJson: "",
        externalIds: [],
      });
    }
    const revisions: string[] = [];
    for (const [title, markdown] of [
      ["One", "first"],
      ["Two", "second"],
    ] as const) {
      revisions.push(
        await createRevision(harness, org.owner.caller, { spaceId: space.id }, (draftId) =>
          harness.editing.createPage({ caller: org.owner.caller, draftId, page: CreatePageInput.fromPartial({ pageId: `page-${title}`, title, markdown }) }),
        ),
      );
    }
    // What this test caused, whatever else the space announced (creating it may be announced too, late):
    // one installation_setup, one space_installation_setup, then the two revisions in order, once each.
    const payloadsOf = (events: { payloadJson: string }[]) =>
      [...events].reverse().map((event) => JSON.parse(event.payloadJson) as { type: string; revisionId?: string; spaceId?: string });
    const events = await eventually(async () => {
      const { events: listed } = await harness.integrationEvents.listIntegrationEvents({
        caller: org.owner.caller,
        name: integration.name,
        page: { pageToken: "", pageSize: 1000 },
      });
      return payloadsOf(listed).some((payload) => payload.revisionId === revisions[1]) ? payloadsOf(listed) : undefined;
    }, 20_000);
    expect(events.filter((payload) => payload.type.endsWith("installation_setup")).map((payload) => payload.type)).toEqual([
      "installation_setup",
      "space_installation_setup",
    ]);
    const ours = events.filter((payload) => payload.type === "space_content_updated" && revisions.includes(payload.revisionId ?? ""));
    expect(ours.map((payload) => payload.revisionId)).toEqual(revisions);
    expect(ours[1]).toMatchObject({ spaceId: space.id, updatedBy: [{ object: "user", id: org.owner.caller.userId }] });
    // The integration without the content scope hears only its own installation's events: each
    // announcement is recorded for every installation that reads the space at once, so by now it
    // would have them.
    const deafTypes = payloadsOf(await deliveredEvents(deaf.name, 2)).map((payload) => payload.type);
    expect(deafTypes).toEqual(["installation_setup", "space_installation_setup"]);
  });

  it("records a script that keeps failing as failed after its retries, with the reason in its trace", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, {
      script: `export default { async fetch() { throw new Error("database unreachable"); } };`,
    });
    await harness.installations.installIntegration({ caller: org.owner.caller, name: integration.name, organizationId: org.organizationId });
    const [event] = await deliveredEvents(integration.name, 1);
    expect(event!.status).toBe("failed");
    const lines = await trace(integration.name, event!.id);
    expect(lines.filter((line) => line.includes("database unreachable")).length).toBe(3);
    expect(lines.some((line) => line.includes("gave up after 3 attempts"))).toBe(true);
  });
});

describe("development mode", () => {
  let server: Server;
  let tunnelUrl: string;
  const received: Array<{ event: { type: string; eventId: string }; signed: boolean }> = [];
  let failNext = 1;
  let secret = "";

  beforeAll(async () => {
    // The developer's machine: GitBook's own runtime (the compat integration, bundled as GitBook's
    // CLI bundles it) answers the requests, as `gitbook dev` serves them behind its tunnel.
    const directory = await mkdtemp(join(tmpdir(), "imprint-tunnel-"));
    const file = join(directory, "integration.mjs");
    await writeFile(file, await bundleIntegration(COMPAT_FIXTURE));
    const integration = (await import(pathToFileURL(file).href)).default as { fetch(request: Request, env: unknown, ctx: unknown): Promise<Response> };
    const answerAsTheDeveloper = async (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const fetchRequest = new Request(`http://127.0.0.1${request.url}`, { method: request.method, headers: request.headers as Record<string, string>, body });
      const form = await fetchRequest.clone().formData();
      const event = JSON.parse(form.get("event") as string) as { type: string; eventId: string };
      const environment = JSON.parse(form.get("environment") as string) as { signingSecrets: { integration: string } };
      secret = environment.signingSecrets.integration;
      received.push({ event, signed: verifyDispatchSignature(request.headers["x-gitbook-signature"] as string, body, secret, new Date()) });
      // The first space_installation_setup is refused: other events (the space's content announced) pass.
      if (failNext > 0 && event.type === "space_installation_setup") {
        failNext -= 1;
        response.writeHead(503).end("warming up");
        return;
      }
      const answer = await integration.fetch(fetchRequest, {}, { waitUntil: () => undefined });
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(Buffer.from(await answer.arrayBuffer()));
    };
    server = createServer((request, response) => void answerAsTheDeveloper(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    tunnelUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends events and renders to the tunnel, signed, parsed there by @gitbook/runtime, retried after a failure; off at once", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, {
      script: `export default { async fetch() { return new Response("published script"); } };`,
    });
    const { installation } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    await deliveredEvents(integration.name, 1);
    expect(received).toHaveLength(0);

    await harness.integrations.setDevelopmentMode({ caller: org.owner.caller, name: integration.name, tunnelUrl, all: false });
    const space = await createSpace(harness, org);
    await harness.targetInstallations.installOnTarget({
      caller: org.owner.caller,
      name: integration.name,
      installationId: installation!.id,
      kind: TargetKind.TARGET_KIND_SPACE,
      targetId: space.id,
      configurationJson: "",
      externalIds: [],
    });
    const event = await deliveredEvent(integration.name, (payload) => payload.type === "space_installation_setup");
    expect(JSON.parse(event.payloadJson)).toMatchObject({ type: "space_installation_setup", spaceId: space.id });
    expect(event.status).toBe("success");
    // Refused once (503), then @gitbook/runtime itself answered: it has no handler for this event type (406).
    // (Other events of the space, e.g. space_content_updated, may reach the tunnel too: only what this test caused counts.)
    const setups = received.filter((request) => request.event.type === "space_installation_setup");
    expect(setups.map((request) => (request.event as { spaceId?: string }).spaceId)).toEqual([space.id, space.id]);
    expect(received.every((request) => request.signed)).toBe(true);
    const lines = await trace(integration.name, event.id);
    expect(lines.some((line) => line.includes("HTTP 503"))).toBe(true);
    expect(lines.some((line) => line.includes("retrying"))).toBe(true);
    expect(lines.some((line) => line.includes("does not handle space_installation_setup events"))).toBe(true);

    const render = () =>
      harness.scripts.renderIntegrationUi({
        caller: org.owner.caller,
        name: integration.name,
        componentId: "counter",
        propsJson: "{}",
        stateJson: JSON.stringify({ count: 4 }),
        contextJson: JSON.stringify({ type: "document", spaceId: space.id, editable: true, theme: "light" }),
        actionJson: JSON.stringify({ action: "increment" }),
      });
    const rendered = JSON.parse((await render()).outputJson);
    expect(rendered).toMatchObject({ type: "element", state: { count: 5 }, element: { type: "block", children: [{ type: "button", label: "Count: 5" }] } });
    const renders = () => received.filter((request) => request.event.type === "ui_render").length;
    expect(renders()).toBe(1);

    await harness.integrations.disableDevelopmentMode({ caller: org.owner.caller, name: integration.name });
    // Off: the published script answers (not ContentKit, so the render fails), and the tunnel hears no
    // render (a render is answered by whoever rendered it, so it is known by the time the call returns).
    await expect(render()).rejects.toMatchObject({ code: "upstream_failed" });
    expect(renders()).toBe(1);
  });
});

/**
 * Answers its integration's public endpoint with what it was called with (its URL, whether an
 * installation came with it, and its integration token), and logs the tasks it is handed.
 */
const TASK_SCRIPT = `export default { async fetch(request) {
  const form = await request.formData();
  const event = JSON.parse(form.get("event"));
  const environment = JSON.parse(form.get("environment"));
  if (event.type === "fetch") return new Response(JSON.stringify({ url: event.request.url, installationId: event.installationId ?? null, installation: environment.installation ?? null, token: environment.apiTokens.integration, body: form.get("fetch-body") }), { status: 201, headers: { "content-type": "application/json", "x-seen": "yes" } });
  if (event.type === "task") { console.log("task " + JSON.stringify(event.task)); return new Response("OK"); }
  return new Response("OK");
} }`;

// Last in the file: it moves the integration service's clock an hour ahead.
describe("the integration's own public endpoint and tasks", () => {
  it("serves the integration-wide endpoint with no installation, and delivers the tasks its token queues, scheduled ones once due", async () => {
    const integration = await publish(harness, org.owner.caller, org.organizationId, { script: TASK_SCRIPT });
    const served = await harness.scripts.handleIntegrationRequest({
      name: integration.name,
      method: "POST",
      path: "/oauth/callback?code=1",
      headers: { "x-custom": "kept" },
      body: Buffer.from("ping"),
    });
    expect(served.status).toBe(201);
    expect(served.headers).toContainEqual({ name: "x-seen", value: "yes" });
    const seen = JSON.parse(Buffer.from(served.body).toString()) as {
      url: string;
      installationId: string | null;
      installation: unknown;
      token: string;
      body: string;
    };
    expect(seen).toMatchObject({ installationId: null, installation: null, body: "ping" });
    expect(seen.url).toMatch(new RegExp(`/v1/integrations/${integration.name}/public/oauth/callback\\?code=1$`));
    expect(
      await failure(harness.scripts.handleIntegrationRequest({ name: "nothing-here", method: "GET", path: "/", headers: {}, body: Buffer.alloc(0) })),
    ).toMatchObject({
      code: "not_found",
    });

    // The token a script of the integration calls the API with acts as the integration's principal.
    const { caller: principal } = await harness.identity.tokens.authenticateToken({ token: seen.token });
    const queue = (caller: typeof principal, taskJson: string, scheduleSeconds = 0) =>
      harness.integrationEvents.queueIntegrationTask({ caller, name: integration.name, taskJson, scheduleSeconds });
    const { eventId } = await queue(principal, JSON.stringify({ type: "sync", page: 1 }));
    const delivered = await deliveredEvent(integration.name, (payload) => payload.type === "task");
    expect(delivered).toMatchObject({ id: eventId, installationId: "", status: "success" });
    expect(JSON.parse(delivered.payloadJson)).toEqual({ type: "task", eventId, task: { type: "sync", page: 1 } });
    // The script logged the task it was handed (as stored: key order is PostgreSQL's).
    const logged = (await trace(integration.name, eventId)).find((line) => line.startsWith("task "));
    expect(JSON.parse(logged!.slice("task ".length))).toEqual({ type: "sync", page: 1 });

    const later = await queue(principal, JSON.stringify({ type: "later" }), 3600);
    await queue(principal, JSON.stringify({ type: "now" }));
    await deliveredEvent(integration.name, (payload) => (payload as { task?: { type?: string } }).task?.type === "now");
    const listed = await harness.integrationEvents.listIntegrationEvents({
      caller: org.owner.caller,
      name: integration.name,
      page: { pageToken: "", pageSize: 100 },
    });
    expect(listed.events.map((event) => event.id)).not.toContain(later.eventId);
    harness.integrationClock.advance(3600 * 1000);
    expect(await deliveredEvent(integration.name, (payload) => (payload as { task?: { type?: string } }).task?.type === "later")).toMatchObject({
      id: later.eventId,
      status: "success",
    });

    expect(await failure(queue(org.owner.caller, "{}"))).toMatchObject({ code: "permission_denied", message: expect.stringContaining("integration token") });
    const stranger = await createOrganization(harness);
    expect(await failure(queue(stranger.owner.caller, "{}"))).toMatchObject({ code: "not_found" });
    expect(await failure(queue(principal, "[1, 2]"))).toMatchObject({ code: "invalid_argument", message: "task: must be a JSON object" });
    expect(await failure(queue(principal, JSON.stringify({ text: "x".repeat(64 * 1024) })))).toMatchObject({
      code: "invalid_argument",
      message: expect.stringContaining("task: must be at most 64 KiB"),
    });
    expect(await failure(queue(principal, `${'{"a":'.repeat(300)}1${"}".repeat(300)}`))).toMatchObject({
      code: "invalid_argument",
      message: "task: nesting deeper than 256",
    });
    expect(await failure(queue(principal, "{}", 86_401))).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("schedule:") });
  });
});
