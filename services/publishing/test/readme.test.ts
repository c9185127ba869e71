import { describeReadme } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startPublishingHarness } from "./support/harness.js";

describeReadme({
  context: "publishing",
  readme: new URL("../README.md", import.meta.url),
  definitions,
  start: async () => {
    const harness = await startPublishingHarness();
    return { orm: harness.publishing.orm, stop: () => harness.stop() };
  },
});
