import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definedEventTypes, leasedJobNames, protoServices, readmeProblems } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startPublishingHarness, type PublishingHarness } from "./support/harness.js";

/** The README is how a newcomer finds the service's contract: it must name all of it. */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

let harness: PublishingHarness;

beforeAll(async () => {
  harness = await startPublishingHarness();
});
afterAll(() => harness?.stop());

describe("publishing's README", () => {
  it("names every RPC of proto/imprint/publishing/v1 and every event publishing records", () => {
    expect(readmeProblems(readme, { services: protoServices("publishing"), events: definedEventTypes(definitions) })).toEqual([]);
  });

  it("names every background job publishing runs", async () => {
    expect(readmeProblems(readme, { jobs: await leasedJobNames(harness.publishing.orm) })).toEqual([]);
  });
});
