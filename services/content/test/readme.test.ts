import { describeReadme } from "@imprint/runtime/testing";
import * as definitions from "../src/events.js";
import { startContentHarness } from "./support/harness.js";

describeReadme({
  context: "content",
  readme: new URL("../README.md", import.meta.url),
  definitions,
  start: async () => {
    const harness = await startContentHarness();
    return { orm: harness.content.orm, stop: () => harness.stop() };
  },
});
