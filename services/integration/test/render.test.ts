import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeStatement, sql } from "@imprint/runtime";
import { createMember, createOrganization, createSpace, errorCode, eventually, failure, type TestOrganization } from "@imprint/runtime/testing";
import { TargetKind } from "@imprint/proto/integration/v1/target_installations";
import { bundleIntegration } from "./support/bundle.js";
import { startIntegrationHarness, type IntegrationHarness } from "./support/harness.js";
import { publish } from "./support/integrations.js";

let harness: IntegrationHarness;
let org: TestOrganization;
let spaceId: string;
let compat: string;
let runaway: string;

beforeAll(async () => {
  // A CPU limit long enough to see other renders finish while a runaway script burns it, and a wall
  // limit twenty times longer: on a busy 2-core machine (a CI run beside other work) the loop's
  // thread may get a sixth of a core or less, and it must still be stopped by CPU time, not by the clock.
  harness = await startIntegrationHarness({ INTEGRATION_SCRIPT_CPU_MS: "1000", INTEGRATION_SCRIPT_WALL_MS: "20000", INTEGRATION_SANDBOX_WORKERS: "2" });
  org = await createOrganization(harness);
  spaceId = (await createSpace(harness, org)).id;
  for (const [fixture, assign] of [
    ["compat", (name: string) => (compat = name)],
    ["runaway", (name: string) => (runaway = name)],
  ] as const) {
    const script = await bundleIntegration(new URL(`./fixtures/${fixture}/`, import.meta.url));
    const integration = await publish(harness, org.owner.caller, org.organizationId, { script });
    await harness.installations.installIntegration({ caller: org.owner.caller, name: integration.name, organizationId: org.organizationId });
    assign(integration.name);
  }
});
afterAll(() => harness?.stop());

function render(
  name: string,
  componentId: string,
  extra: { state?: object; action?: object; caller?: { userId: string; tokenId: string }; scripts?: IntegrationHarness["scripts"] } = {},
) {
  return (extra.scripts ?? harness.scripts).renderIntegrationUi({
    caller: extra.caller ?? org.owner.caller,
    name,
    componentId,
    propsJson: "{}",
    stateJson: extra.state ? JSON.stringify(extra.state) : "",
    contextJson: JSON.stringify({ type: "document", spaceId, editable: true, theme: "light" }),
    actionJson: extra.action ? JSON.stringify(extra.action) : "",
  });
}

const output = async (call: ReturnType<typeof render>) => JSON.parse((await call).outputJson) as Record<string, unknown>;

/** Echoes its version, the installation's configuration and its space installation's (what renders keep). */
const echoScript = (version: string) => `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get("event"));
    const env = JSON.parse(form.get("environment"));
    const label = "${version} " + JSON.stringify(env.installation.configuration) + " space=" + JSON.stringify(env.spaceInstallation?.configuration ?? null);
    return new Response(JSON.stringify({ type: "element", state: {}, props: event.props,
      element: { type: "block", children: [{ type: "button", label, onPress: { action: "x" } }] } }));
  },
};`;
const echoConfigurations = JSON.stringify({
  account: { properties: { greeting: { type: "string" } } },
  space: { properties: { mood: { type: "string" } } },
});
const labelOf = async (name: string, scripts?: IntegrationHarness["scripts"]) =>
  ((await output(render(name, "echo", { scripts }))).element as { children: Array<{ label: string }> }).children[0]!.label;

describe("rendering ContentKit components", () => {
  it("renders @gitbook/runtime's component with its initial state, runs its actions, and completes", async () => {
    expect(await output(render(compat, "counter"))).toEqual({
      type: "element",
      state: { count: 0 },
      props: {},
      element: { type: "block", children: [{ type: "button", label: "Count: 0", onPress: { action: "increment" } }] },
    });
    expect(await output(render(compat, "counter", { state: { count: 2 }, action: { action: "increment" } }))).toMatchObject({ state: { count: 3 } });
    expect(await output(render(compat, "counter", { state: { count: 7 }, action: { action: "done" } }))).toEqual({
      type: "complete",
      returnValue: { count: 7 },
    });
  });

  it("answers 404 for a component the integration does not have, and for readers of other organizations", async () => {
    expect(await errorCode(render(compat, "nope"))).toBe("not_found");
    const stranger = await createOrganization(harness);
    expect(await errorCode(render(compat, "counter", { caller: stranger.owner.caller }))).toBe("not_found");
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    expect(await output(render(compat, "counter", { caller: reader.caller }))).toMatchObject({ type: "element" });
  });

  it("renders with the installation the context points at, and with a republished script at once", async () => {
    // Echoes its version, the installation's space count and its space installation from the environment.
    const placeScript = (version: string) => `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get("event"));
    const env = JSON.parse(form.get("environment"));
    const label = "${version} spaces=" + env.installation.spaces + " space=" + (env.spaceInstallation?.space ?? "none");
    return new Response(JSON.stringify({ type: "element", state: {}, props: event.props,
      element: { type: "block", children: [{ type: "button", label, onPress: { action: "x" } }] } }));
  },
};`;
    const labelOf = async (name: string) => ((await output(render(name, "echo"))).element as { children: Array<{ label: string }> }).children[0]!.label;
    const integration = await publish(harness, org.owner.caller, org.organizationId, { script: placeScript("v1") });
    const { installation } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    expect(await labelOf(integration.name)).toBe("v1 spaces=0 space=none");

    const otherSpace = (await createSpace(harness, org)).id;
    for (const target of [spaceId, otherSpace]) {
      await harness.targetInstallations.installOnTarget({
        caller: org.owner.caller,
        name: integration.name,
        installationId: installation!.id,
        kind: TargetKind.TARGET_KIND_SPACE,
        targetId: target,
        configurationJson: "",
        externalIds: [],
      });
    }
    expect(await labelOf(integration.name)).toBe(`v1 spaces=2 space=${spaceId}`);

    await publish(harness, org.owner.caller, org.organizationId, { name: integration.name, script: placeScript("v2") });
    expect(await labelOf(integration.name)).toBe(`v2 spaces=2 space=${spaceId}`);
  });

  it("sees a configuration update, a space installation, a new version and an uninstall at the next render", async () => {
    // Twice each time: the second render is answered from what the first kept.
    const labelsOf = async (name: string) => [await labelOf(name), await labelOf(name)];
    const integration = await publish(harness, org.owner.caller, org.organizationId, { script: echoScript("v1"), configurationsJson: echoConfigurations });
    const install = async () =>
      (await harness.installations.installIntegration({ caller: org.owner.caller, name: integration.name, organizationId: org.organizationId })).installation!;
    const installation = await install();
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill("v1 {} space=null"));

    await harness.installations.updateInstallation({
      caller: org.owner.caller,
      name: integration.name,
      installationId: installation.id,
      updateMask: ["configuration_json"],
      configurationJson: JSON.stringify({ greeting: "hello" }),
      spaceSelection: "",
      siteSelection: "",
    });
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill('v1 {"greeting":"hello"} space=null'));

    const target = { caller: org.owner.caller, name: integration.name, installationId: installation.id, kind: TargetKind.TARGET_KIND_SPACE, targetId: spaceId };
    await harness.targetInstallations.installOnTarget({ ...target, configurationJson: JSON.stringify({ mood: "calm" }), externalIds: [] });
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill('v1 {"greeting":"hello"} space={"mood":"calm"}'));
    await harness.targetInstallations.updateTargetInstallation({
      ...target,
      updateMask: ["configuration_json"],
      configurationJson: JSON.stringify({ mood: "busy" }),
    });
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill('v1 {"greeting":"hello"} space={"mood":"busy"}'));
    await harness.targetInstallations.uninstallFromTarget(target);
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill('v1 {"greeting":"hello"} space=null'));

    await publish(harness, org.owner.caller, org.organizationId, { name: integration.name, script: echoScript("v2"), configurationsJson: echoConfigurations });
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill('v2 {"greeting":"hello"} space=null'));

    await harness.installations.uninstall({ caller: org.owner.caller, name: integration.name, installationId: installation.id });
    expect(await errorCode(render(integration.name, "echo"))).toBe("failed_precondition");
    await install();
    expect(await labelsOf(integration.name)).toEqual(Array(2).fill("v2 {} space=null"));

    await harness.integrations.unpublishIntegration({ caller: org.owner.caller, name: integration.name });
    expect(await errorCode(render(integration.name, "echo"))).toBe("not_found");
  });

  it("keeps what renders read on another replica until the change's event arrives there", async () => {
    // It keeps rows for ten minutes: only the events can make it see a change within this test.
    const replica = await harness.startIntegrationReplica({ INTEGRATION_RENDER_CACHE_TTL_MS: String(10 * 60 * 1000) });
    const integration = await publish(harness, org.owner.caller, org.organizationId, { script: echoScript("v1"), configurationsJson: echoConfigurations });
    const { installation } = await harness.installations.installIntegration({
      caller: org.owner.caller,
      name: integration.name,
      organizationId: org.organizationId,
    });
    // A change no event announces (as if its event were late) is not seen there: the replica answers what it kept.
    let unannounced = 0;
    const changeUnannounced = async () =>
      executeStatement(
        harness.integration.orm.em.fork(),
        sql`update installations set configuration = ${JSON.stringify({ greeting: `unannounced ${++unannounced}` })}::jsonb where id = ${installation!.id}`,
      );
    await eventually(async () => {
      const before = await labelOf(integration.name, replica.scripts);
      await changeUnannounced();
      return (await labelOf(integration.name, replica.scripts)) === before;
    });

    // An announced change reaches it with its event.
    await harness.installations.updateInstallation({
      caller: org.owner.caller,
      name: integration.name,
      installationId: installation!.id,
      updateMask: ["configuration_json"],
      configurationJson: JSON.stringify({ greeting: "hello" }),
      spaceSelection: "",
      siteSelection: "",
    });
    await eventually(async () => (await labelOf(integration.name, replica.scripts)) === 'v1 {"greeting":"hello"} space=null');
    await harness.installations.uninstall({ caller: org.owner.caller, name: integration.name, installationId: installation!.id });
    await eventually(async () => (await errorCode(render(integration.name, "echo", { scripts: replica.scripts }))) === "failed_precondition");
  });

  // A script waiting out the wall limit is the sandbox's own test (sandbox.test.ts): here it would
  // wait the 20 s this file's wall limit is. The loop burns its CPU allowance, up to that limit on a busy machine.
  it("stops runaway scripts with a clear reason, records them, and keeps serving others at full speed", { timeout: 60_000 }, async () => {
    const reasons: Record<string, string> = {};
    for (const componentId of ["throws", "garbage", "allocate"]) {
      const failed = await failure(render(runaway, componentId));
      expect(failed.code).toBe("upstream_failed");
      reasons[componentId] = failed.message;
      // A well-behaved script renders right after.
      expect(await output(render(compat, "counter"))).toMatchObject({ type: "element" });
    }
    expect(reasons.throws).toContain("boom");
    expect(reasons.garbage).toMatch(/not JSON|not ContentKit|response/);
    expect(reasons.allocate).toMatch(/memory/i);

    // A loop burns one worker for its whole CPU allowance; renders on the other go on meanwhile.
    let loopSettled = false;
    const loop = failure(render(runaway, "loop")).then((failed) => {
      loopSettled = true;
      return failed;
    });
    for (let index = 0; index < 5; index++) expect(await output(render(compat, "counter"))).toMatchObject({ type: "element" });
    expect(loopSettled).toBe(false);
    const stopped = await loop;
    expect(stopped.code).toBe("upstream_failed");
    expect(stopped.message).toMatch(/cpu/i);

    // Each failure is in the integration's event log with its reason.
    const { events } = await harness.integrationEvents.listIntegrationEvents({
      caller: org.owner.caller,
      name: runaway,
      page: { pageToken: "", pageSize: 100 },
    });
    const failedRenders = events.filter((event) => event.status === "failed" && JSON.parse(event.payloadJson).type === "ui_render");
    expect(failedRenders.length).toBe(4);
    const detail = await harness.integrationEvents.getIntegrationEvent({ caller: org.owner.caller, name: runaway, eventId: failedRenders[0]!.id });
    expect(detail.logs.some((line) => line.level === "error" && /cpu/i.test(line.message))).toBe(true);
  });
});
