import type { LogFields, Logger } from "@imprint/runtime/core";

/** How often at most a throttled warning is written. */
const WARNING_INTERVAL_MS = 60_000;

/**
 * A warning written at most once a minute, for something that may happen at every request (an
 * upstream the reader can do without is down): each one written counts, in `counted`, how many
 * times it happened since the last (e.g. views dropped, failed reads).
 */
export function throttledWarning(
  logger: Logger,
  message: string,
  counted: string,
  clock: () => number = Date.now,
): (count: number, fields?: LogFields) => void {
  let writtenAt = -Infinity;
  let pending = 0;
  return (count, fields = {}) => {
    pending += count;
    const now = clock();
    if (now - writtenAt < WARNING_INTERVAL_MS) return;
    writtenAt = now;
    logger.warn(message, { ...fields, [counted]: pending });
    pending = 0;
  };
}
