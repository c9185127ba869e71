import * as contentMessages from "@imprint/proto/content/v1/events";
import * as messages from "@imprint/proto/integration/v1/events";
import * as publishingMessages from "@imprint/proto/publishing/v1/events";
import { consumedEventProblems, eventCatalogueProblems } from "@imprint/runtime/testing";
import { describe, expect, it } from "vitest";
import { consumedContentEvents } from "../src/consumers/content-events.js";
import { consumedPublishingEvents } from "../src/consumers/publishing-events.js";
import * as definitions from "../src/events.js";

describe("event catalogue", () => {
  it("documents every integration event with its message and payload fields (docs/architecture.md)", () => {
    expect(eventCatalogueProblems("integration", definitions, messages)).toEqual([]);
  });

  it("documents the content and publishing events integration consumes, with the messages it reads them with", () => {
    expect(consumedEventProblems(consumedContentEvents, contentMessages)).toEqual([]);
    expect(consumedEventProblems(consumedPublishingEvents, publishingMessages)).toEqual([]);
  });
});
