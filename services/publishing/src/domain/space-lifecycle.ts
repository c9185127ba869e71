import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * The lifecycle version (content's `lifecycleVersion`) of the newest `space.deleted` or
 * `space.restored` of a space publishing applied: an older one is a late redelivery and changes
 * nothing, so a stale deletion never hides a restored space.
 */
export const SpaceLifecycleSchema = defineEntity({
  name: "SpaceLifecycle",
  tableName: "space_lifecycles",
  properties: {
    spaceId: p.uuid().primary(),
    version: p.integer(),
  },
});
export class SpaceLifecycle extends SpaceLifecycleSchema.class {}
SpaceLifecycleSchema.setClass(SpaceLifecycle);
