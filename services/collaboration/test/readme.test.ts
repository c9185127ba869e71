import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definedEventTypes, leasedJobNames, protoServices, readmeProblems } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startCollaborationHarness, type CollaborationHarness } from "./support/harness.js";

/** The README is how a newcomer finds the service's contract: it must name all of it. */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

let harness: CollaborationHarness;

beforeAll(async () => {
  harness = await startCollaborationHarness();
});
afterAll(() => harness?.stop());

describe("collaboration's README", () => {
  it("names every RPC of proto/imprint/collaboration/v1 and every event collaboration records", () => {
    expect(readmeProblems(readme, { services: protoServices("collaboration"), events: definedEventTypes(definitions) })).toEqual([]);
  });

  it("names every background job collaboration runs", async () => {
    expect(readmeProblems(readme, { jobs: await leasedJobNames(harness.collaboration.orm) })).toEqual([]);
  });
});
