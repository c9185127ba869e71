import { AppError, jsonNestingDepth, jsonTooDeep, MAX_JSON_DEPTH } from "@imprint/runtime";

/** A task's payload, as JSON text, at most this many bytes (it travels in the event's JSON to the script). */
export const TASK_MAX_BYTES = 64 * 1024;
/** The longest a task may wait before it is delivered (GitBook's `schedule`, in seconds). */
export const TASK_SCHEDULE_MAX_SECONDS = 86_400;
/** Tasks of one integration that may wait for delivery at once: a script queueing tasks in a loop stops here. */
export const TASKS_WAITING_MAX = 1_000;

/** A task as queued: its payload and when it is due. */
export interface QueuedTask {
  task: Record<string, unknown>;
  dueAt: Date;
}

/**
 * Checks a task an integration queues for itself: a JSON object of at most 64 KiB, nested at most
 * MAX_JSON_DEPTH levels (`task`),
 * delivered after 0 to 86,400 seconds (`schedule`), as GitBook's queueIntegrationTask takes them.
 */
export function validateTask(taskJson: string, scheduleSeconds: number, now: Date): QueuedTask {
  if (Buffer.byteLength(taskJson, "utf8") > TASK_MAX_BYTES) throw AppError.invalidArgument(`task: must be at most ${TASK_MAX_BYTES / 1024} KiB of JSON`);
  // Read without parsing: a task nested past the bound is refused before anything recurses into it.
  if (jsonNestingDepth(taskJson, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw AppError.invalidArgument(jsonTooDeep("task"));
  let task: unknown;
  try {
    task = JSON.parse(taskJson);
  } catch {
    throw AppError.invalidArgument("task: must be a JSON object");
  }
  if (typeof task !== "object" || task === null || Array.isArray(task)) throw AppError.invalidArgument("task: must be a JSON object");
  if (!Number.isFinite(scheduleSeconds) || scheduleSeconds < 0 || scheduleSeconds > TASK_SCHEDULE_MAX_SECONDS)
    throw AppError.invalidArgument(`schedule: must be from 0 to ${TASK_SCHEDULE_MAX_SECONDS} seconds`);
  return { task: task as Record<string, unknown>, dueAt: new Date(now.getTime() + Math.round(scheduleSeconds * 1000)) };
}
