import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definedEventTypes, leasedJobNames, protoServices, readmeProblems } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startIntegrationHarness, type IntegrationHarness } from "./support/harness.js";

/** The README is how a newcomer finds the service's contract: it must name all of it. */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

let harness: IntegrationHarness;

beforeAll(async () => {
  harness = await startIntegrationHarness();
});
afterAll(() => harness?.stop());

describe("integration's README", () => {
  it("names every RPC of proto/imprint/integration/v1 and every event integration records", () => {
    expect(readmeProblems(readme, { services: protoServices("integration"), events: definedEventTypes(definitions) })).toEqual([]);
  });

  it("names every background job integration runs", async () => {
    expect(readmeProblems(readme, { jobs: await leasedJobNames(harness.integration.orm) })).toEqual([]);
  });
});
