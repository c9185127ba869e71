import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defineEvent } from "../src/events/definitions.js";
import { keyByAggregate } from "../src/events/subscribe.js";
import { watchEvents } from "../src/events/watch.js";
import { createLogger } from "../src/logger.js";
import { eventually, testNats } from "../src/testing/index.js";
import { scalarMessage } from "./support/messages.js";

const logLines: string[] = [];
const logger = createLogger("event-watch", { write: (line) => logLines.push(line) });

const context = `watch${randomBytes(4).toString("hex")}`;
const WidgetCreated = scalarMessage({ widgetId: "", size: 0 });
const widgetCreated = defineEvent({ context, aggregate: "widget", event: "created", message: WidgetCreated, orderingKey: "widgetId" });
const widgetSeen = defineEvent({ context, aggregate: "widget", event: "seen", message: scalarMessage({ widgetId: "" }) });

const envelope = (type: string, payload: Record<string, unknown>, organizationId: string | null = null) => ({
  id: randomUUID(),
  type,
  subject: `imprint.${context}.v1.${type}`,
  occurredAt: new Date().toISOString(),
  organizationId,
  actor: null,
  payload,
});

describe("event contracts", () => {
  it("order each event by its contract's ordering key, and others by their organization", () => {
    const keyOf = keyByAggregate([widgetCreated, widgetSeen]);
    expect(keyOf(envelope("widget.created", { widgetId: "w1" }, "o1"))).toBe("widgetId:w1");
    expect(keyOf(envelope("widget.seen", { widgetId: "w1" }, "o1"))).toBe("o1");
    expect(keyOf(envelope("widget.gone", { widgetId: "w1" }, "o1"))).toBe("o1");
    // As keyByPayload: an event without the field is ordered by its organization.
    expect(keyOf(envelope("widget.created", {}, "o1"))).toBe("o1");
  });
});

describe("an event watch", () => {
  it("hands over the events of its contracts, decoded; skips other types and payloads that do not decode", async () => {
    const nc = await testNats();
    const heard: { type: string; widgetId: string; size: number }[] = [];
    const watch = watchEvents(nc, {
      events: [widgetCreated],
      onEvent: (event) => void heard.push({ type: event.type, widgetId: event.payload.widgetId, size: event.payload.size }),
      onGap: () => undefined,
      logger,
    });
    try {
      await eventually(async () => watch.following());
      await nc.flush();
      for (const sent of [
        envelope("widget.seen", { widgetId: "w0" }),
        envelope("widget.created", { widgetId: "w1", size: "large" }),
        envelope("widget.created", { widgetId: "w2", size: 3 }),
      ]) {
        nc.publish(sent.subject, JSON.stringify(sent));
      }
      await eventually(async () => heard.length > 0);
      await nc.flush();
      expect(heard).toEqual([{ type: "widget.created", widgetId: "w2", size: 3 }]);
      expect(logLines.some((line) => line.includes("undecodable event ignored") && line.includes("payload.size must be a number"))).toBe(true);
    } finally {
      await watch.stop();
    }
  });
});
