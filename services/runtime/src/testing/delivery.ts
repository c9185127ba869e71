import { randomUUID } from "node:crypto";
import fc from "fast-check";

/**
 * How a consumer's property test mixes an in-order event stream, as JetStream may hand it over
 * after a crash or to two replicas: a sort key per event (the shuffle), which events come twice
 * (a redelivery), which are held back to the end (an unacknowledged event redelivered after the
 * ack wait). Plans cover `size` events; longer streams reuse them cyclically.
 */
export interface DeliveryPlan {
  keys: number[];
  duplicated: boolean[];
  held: boolean[];
}

/** Plans for streams of up to `size` events (longer ones reuse the plan cyclically). */
export function deliveryPlans(size: number): fc.Arbitrary<DeliveryPlan> {
  const each = <T>(value: fc.Arbitrary<T>) => fc.array(value, { minLength: size, maxLength: size });
  return fc.record({ keys: each(fc.nat()), duplicated: each(fc.boolean()), held: each(fc.boolean()) });
}

/**
 * `events` in the plan's order: shuffled by the keys, the duplicated ones once more at another
 * place (through `again`: e.g. a republished event under a new id; default the same event), the
 * held ones last.
 */
export function deliverInPlan<T>(events: readonly T[], plan: DeliveryPlan, again: (event: T) => T = (event) => event): T[] {
  const size = plan.keys.length;
  const entries = events.flatMap((event, i) => {
    const key = plan.keys[i % size]!;
    const copies = [{ event, key, held: plan.held[i % size]! }];
    if (plan.duplicated[i % size]) copies.push({ event: again(event), key: key * 7 + 13, held: false });
    return copies;
  });
  entries.sort((a, b) => Number(a.held) - Number(b.held) || a.key - b.key);
  return entries.map((entry) => entry.event);
}

/** An event as a republish makes it (for `deliverInPlan`'s `again`): the same change under a new id. */
export function republished<E extends { id: string }>(event: E): E {
  return { ...event, id: randomUUID() };
}
