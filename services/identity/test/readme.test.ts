import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definedEventTypes, leasedJobNames, protoServices, readmeProblems } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startTestIdentity, type TestIdentity } from "./support/harness.js";

/** The README is how a newcomer finds the service's contract: it must name all of it. */
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

let identity: TestIdentity;

beforeAll(async () => {
  identity = await startTestIdentity();
});
afterAll(() => identity?.stop());

describe("identity's README", () => {
  it("names every RPC of proto/imprint/identity/v1 and every event identity records", () => {
    expect(readmeProblems(readme, { services: protoServices("identity"), events: definedEventTypes(definitions) })).toEqual([]);
  });

  it("names every background job identity runs", async () => {
    expect(readmeProblems(readme, { jobs: await leasedJobNames(identity.running.orm) })).toEqual([]);
  });
});
