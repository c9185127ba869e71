import { describe, expect, it } from "vitest";
import { decodePayload, defineEvent, encodePayload, UndecodablePayloadError, type EventMessage } from "../src/events/definitions.js";
import type { EventEnvelope } from "../src/events/envelope.js";
import { eventCatalogueProblems, consumedEventProblems } from "../src/testing/event-catalogue.js";
import { scalarMessage } from "./support/messages.js";

const MemberAdded = scalarMessage<{ userId: string; role?: string; active: boolean; seats: number }>({ userId: "", role: undefined, active: false, seats: 0 });
const memberAdded = defineEvent({ context: "identity", aggregate: "member", event: "added", message: MemberAdded });

const envelope = (payload: Record<string, unknown>, type = "member.added"): EventEnvelope => ({
  id: "00000000-0000-4000-8000-000000000000",
  type,
  subject: `imprint.identity.v1.${type}`,
  occurredAt: "2026-01-01T00:00:00.000Z",
  organizationId: null,
  actor: null,
  payload,
});

describe("event definitions", () => {
  it("name the subject and list the message's fields", () => {
    expect(memberAdded).toMatchObject({ type: "member.added", subject: "imprint.identity.v1.member.added", fields: ["userId", "role", "active", "seats"] });
  });

  it("write every field, defaults included, and null where the producer said null", () => {
    expect(encodePayload(memberAdded, { userId: "u", role: null, active: false, seats: 0 })).toEqual({ userId: "u", role: null, active: false, seats: 0 });
    const unset = encodePayload(memberAdded, { userId: "u", active: true, seats: 2 });
    expect(unset).toEqual({ userId: "u", active: true, seats: 2 });
    expect("role" in unset).toBe(false);
  });

  it("read payloads with the message: null is unset, missing fields take their default, unknown fields are ignored", () => {
    expect(decodePayload(MemberAdded, envelope({ userId: "u", role: null, seats: 3, addedLater: [1] }))).toEqual({
      userId: "u",
      role: undefined,
      active: false,
      seats: 3,
    });
  });

  it("refuse values the generated decoder would have to coerce", () => {
    for (const [payload, problem] of [
      [{ userId: 5 }, "payload.userId must be a string"],
      [{ active: "yes" }, "payload.active must be a boolean"],
      [{ seats: "3" }, "payload.seats must be a number"],
      [{ seats: "many" }, "payload.seats must be a number"],
    ] as const) {
      expect(() => decodePayload(MemberAdded, envelope(payload))).toThrow(new UndecodablePayloadError(`member.added: ${problem}`));
    }
  });

  it("read a timestamp only from ISO 8601 text", () => {
    const Deleted: EventMessage<{ at: Date | undefined }> = {
      fromPartial: (object) => ({ at: object.at ?? undefined }),
      fromJSON: (object) => ({ at: typeof (object as { at?: unknown }).at === "string" ? new Date((object as { at: string }).at) : undefined }),
    };
    expect(decodePayload(Deleted, envelope({ at: "2026-01-01T00:00:00Z" })).at).toEqual(new Date("2026-01-01T00:00:00Z"));
    expect(() => decodePayload(Deleted, envelope({ at: "yesterday" }))).toThrow("payload.at must be an ISO 8601 time");
    expect(() => decodePayload(Deleted, envelope({ at: 5 }))).toThrow("payload.at must be a value of its field's type");
  });
});

describe("event catalogue check", () => {
  const MemberRemoved = scalarMessage({ userId: "" });
  const Shared = scalarMessage({ n: 0 });
  const markdown = (rows: string, extra = "") => `# Architecture

## Event catalogue

Identity (\`IMPRINT_IDENTITY\`, \`imprint.identity.v1.>\`):${extra}

| type | message | payload (besides \`userId\`) |
|---|---|---|
${rows}

Content (\`IMPRINT_CONTENT\`, \`imprint.content.v1.>\`):

| type | message | payload |
|---|---|---|
| \`space.created\` | \`SpaceCreated\` | \`spaceId\` |

## Error model
`;
  const rows = "| `member.added` | `MemberAdded` | `role` (null for guests), `active`, `seats` {a: `b`} |\n| `member.removed` | `MemberRemoved` | |";
  const definitions = {
    memberAdded,
    memberRemoved: defineEvent({ context: "identity", aggregate: "member", event: "removed", message: MemberRemoved }),
    other: 1,
  };
  const messages = { MemberAdded, MemberRemoved, protobufPackage: "imprint.identity.v1" };

  it("passes when documentation, definitions and messages agree", () => {
    expect(eventCatalogueProblems("identity", definitions, messages, markdown(rows))).toEqual([]);
  });

  it("names each disagreement", () => {
    expect(eventCatalogueProblems("identity", definitions, messages, markdown(rows.split("\n")[0]!))).toEqual([
      "member.removed: defined (imprint.identity.v1.member.removed) but not documented",
    ]);
    expect(eventCatalogueProblems("identity", { memberAdded }, messages, markdown(rows))).toEqual(["member.removed: documented but not defined"]);
    expect(eventCatalogueProblems("identity", definitions, messages, markdown(rows.replace("`seats` {a: `b`}", "`seat`")))).toEqual([
      "member.added: documented payload [userId, role, active, seat], message MemberAdded has [userId, role, active, seats]",
    ]);
    expect(eventCatalogueProblems("identity", definitions, messages, markdown(rows.replace("`MemberRemoved`", "`MemberGone`")))).toEqual([
      "member.removed: documented with message MemberGone, defined with MemberRemoved",
      "member.removed: documented message MemberGone is not in events.proto",
    ]);
    expect(eventCatalogueProblems("identity", definitions, { ...messages, Shared }, markdown(rows))).toEqual([
      "Shared: in events.proto, but neither an event's payload nor named in the catalogue",
    ]);
    expect(eventCatalogueProblems("identity", definitions, { ...messages, Shared }, markdown(rows, " every event shares `Shared`."))).toEqual([]);
    const misplaced = defineEvent({ context: "content", aggregate: "member", event: "removed", message: MemberRemoved });
    expect(eventCatalogueProblems("identity", { memberAdded, misplaced }, messages, markdown(rows))).toEqual([
      "member.removed: defined for context content, not identity",
    ]);
    expect(eventCatalogueProblems("collaboration", definitions, messages, markdown(rows))).toEqual([
      "docs/architecture.md has no event table for collaboration (a paragraph naming IMPRINT_COLLABORATION and imprint.collaboration.v1.>)",
    ]);
  });

  it("checks a consumer's definitions of another context's events", () => {
    const SpaceCreated = scalarMessage({ spaceId: "" });
    const spaceCreated = (message: EventMessage<{ spaceId: string }>, event = "created") =>
      defineEvent({ context: "content", aggregate: "space", event, message });
    expect(consumedEventProblems([spaceCreated(SpaceCreated)], { SpaceCreated }, markdown(rows))).toEqual([]);
    expect(consumedEventProblems([spaceCreated(SpaceCreated, "made")], { SpaceCreated }, markdown(rows))).toEqual([
      "imprint.content.v1.space.made: consumed but not documented",
    ]);
    expect(consumedEventProblems([spaceCreated(scalarMessage({ spaceId: "" }))], { SpaceCreated }, markdown(rows))).toEqual([
      "imprint.content.v1.space.created: documented with message SpaceCreated, consumed as another message",
    ]);
  });
});
