import { describeReadme } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startIntegrationHarness } from "./support/harness.js";

describeReadme({
  context: "integration",
  readme: new URL("../README.md", import.meta.url),
  definitions,
  start: async () => {
    const harness = await startIntegrationHarness();
    return { orm: harness.integration.orm, stop: () => harness.stop() };
  },
});
