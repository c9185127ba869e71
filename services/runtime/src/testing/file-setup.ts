// Runs in every test file (vitest `setupFiles`): whatever per-file infrastructure the file started
// is stopped after its last test.
import { afterAll } from "vitest";
import { stopTestNats } from "./nats.js";

afterAll(() => stopTestNats());
