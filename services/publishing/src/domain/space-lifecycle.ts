import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * The newest lifecycle version of a space publishing applied (content's `lifecycleVersion` of
 * `space.deleted`, `space.restored`, `space.transferred`): an older one is a late redelivery and
 * changes nothing, so a stale deletion never hides a restored space, nor a stale transfer takes a
 * space off the sites of the organization it came back to.
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
