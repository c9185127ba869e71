import { randomUUID } from "node:crypto";
import type { PublishIntegrationRequest } from "@imprint/proto/integration/v1/integrations";
import type { Caller } from "@imprint/proto/common/v1";
import type { IntegrationHarness } from "./harness.js";

/**
 * A small integration script as GitBook's runtime would answer: `ui_render` renders a block with a
 * button (state counted up by the `increment` action), every other event logs a line and answers OK.
 */
export const ECHO_SCRIPT = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get("event"));
    if (event.type === "ui_render") {
      const state = event.state ?? { count: 0 };
      const next = event.action?.action === "increment" ? { count: state.count + 1 } : state;
      return new Response(JSON.stringify({ type: "element", state: next, props: event.props,
        element: { type: "block", children: [{ type: "button", label: "Count " + next.count, onPress: { action: "increment" } }] } }),
        { headers: { "content-type": "application/json", "cache-control": "max-age=60" } });
    }
    if (event.type === "fetch") {
      return new Response("hello from " + new URL(event.request.url).pathname, { headers: { "content-type": "text/plain", "set-cookie": "a=b" } });
    }
    if (event.type === "fetch_published_script") return new Response("console.log('injected')", { headers: { "content-type": "application/javascript" } });
    console.log("handled " + event.type + " " + (event.installationId ?? ""));
    return new Response("OK");
  },
};`;

/** A unique integration name. */
export function integrationName(prefix = "test"): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** Publishes an integration through gRPC with sensible defaults; `overrides` win. */
export async function publish(harness: IntegrationHarness, caller: Caller, organization: string, overrides: Partial<PublishIntegrationRequest> = {}) {
  const { integration } = await harness.integrations.publishIntegration({
    caller,
    name: integrationName(),
    organization,
    runtime: "",
    title: "Test integration",
    description: "Integration under test",
    visibility: "private",
    target: "",
    scopes: ["space:content:read"],
    categories: [],
    blocksJson: "",
    contentSourcesJson: "",
    externalLinksJson: "",
    configurationsJson: "",
    script: ECHO_SCRIPT,
    secrets: {},
    previewImages: [],
    previewsPresent: false,
    ...overrides,
  });
  return integration!;
}
