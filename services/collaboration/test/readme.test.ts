import { describeReadme } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startCollaborationHarness } from "./support/harness.js";

describeReadme({
  context: "collaboration",
  readme: new URL("../README.md", import.meta.url),
  definitions,
  start: async () => {
    const harness = await startCollaborationHarness();
    return { orm: harness.collaboration.orm, stop: () => harness.stop() };
  },
});
