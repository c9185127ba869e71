import type { Clock } from "../service.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Real time plus an offset a test moves forward (e.g. to day 8 after a space's deletion); hand
 * `now` to a service as its clock. With `distinct`, it never answers the same millisecond twice,
 * so "newest first" lists of things created in a row have a definite order.
 */
export class TestClock {
  private offsetMs = 0;
  private lastMs = 0;

  constructor(private readonly options: { distinct?: boolean } = {}) {}

  readonly now: Clock = () => {
    let ms = Date.now() + this.offsetMs;
    if (this.options.distinct) ms = Math.max(ms, this.lastMs + 1);
    this.lastMs = ms;
    return new Date(ms);
  };

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  advanceDays(days: number): void {
    this.advance(days * DAY_MS);
  }
}
