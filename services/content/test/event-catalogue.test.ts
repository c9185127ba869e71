import * as identityMessages from "@imprint/proto/identity/v1/events";
import * as messages from "@imprint/proto/content/v1/events";
import { consumedEventProblems, eventCatalogueProblems } from "@imprint/runtime/testing";
import { describe, expect, it } from "vitest";
import { consumedMemberEvents } from "@imprint/runtime";
import * as definitions from "../src/events.js";

describe("event catalogue", () => {
  it("documents every content event with its message and payload fields (docs/architecture.md)", () => {
    expect(eventCatalogueProblems("content", definitions, messages)).toEqual([]);
  });

  it("documents the identity events content consumes, with the messages it reads them with", () => {
    expect(consumedEventProblems(consumedMemberEvents, identityMessages)).toEqual([]);
  });
});
