import * as messages from "@imprint/proto/publishing/v1/events";
import { eventCatalogueProblems } from "@imprint/runtime/testing";
import { describe, expect, it } from "vitest";
import * as definitions from "../src/events.js";

describe("event catalogue", () => {
  it("documents every publishing event with its message and payload fields (docs/architecture.md)", () => {
    expect(eventCatalogueProblems("publishing", definitions, messages)).toEqual([]);
  });
});
