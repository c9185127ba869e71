import type { EventMessage } from "../../src/events/definitions.js";

type Scalar = string | number | boolean;

/**
 * A hand-written event message of scalar fields (the runtime knows no protos) that fills in and
 * reads payloads the way ts-proto's generated code does: `fromPartial` gives unset fields their
 * default (undefined for an optional field), `fromJSON` coerces whatever it finds.
 */
export function scalarMessage<T extends Record<string, Scalar | undefined>>(defaults: T): EventMessage<T> {
  const convert = (value: unknown, like: Scalar | undefined) =>
    typeof like === "number" ? Number(value) : typeof like === "boolean" ? Boolean(value) : String(value);
  const fill = (object: unknown, read: (value: unknown, like: Scalar | undefined) => unknown) =>
    Object.fromEntries(
      Object.entries(defaults).map(([key, like]) => {
        const value = (object as Record<string, unknown>)[key];
        return [key, value === null || value === undefined ? like : read(value, like)];
      }),
    ) as T;
  return { fromPartial: (object) => fill(object, (value) => value), fromJSON: (object) => fill(object, convert) };
}
