import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definedEventTypes, leasedJobNames, protoServices, readmeProblems } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";

/** The README is how a newcomer finds the service's contract: it must name all of it. */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

let harness: ContentHarness;

beforeAll(async () => {
  harness = await startContentHarness();
});
afterAll(() => harness?.stop());

describe("content's README", () => {
  it("names every RPC of proto/imprint/content/v1 and every event content records", () => {
    expect(readmeProblems(readme, { services: protoServices("content"), events: definedEventTypes(definitions) })).toEqual([]);
  });

  it("names every background job content runs", async () => {
    expect(readmeProblems(readme, { jobs: await leasedJobNames(harness.content.orm) })).toEqual([]);
  });
});
