import { describeReadme } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startTestIdentity } from "./support/harness.js";

describeReadme({
  context: "identity",
  readme: new URL("../README.md", import.meta.url),
  definitions,
  start: async () => {
    const harness = await startTestIdentity();
    return { orm: harness.running.orm, stop: () => harness.stop() };
  },
});
